//! From rendered files to what Helm prints and records (helm pkg/action/action.go `renderResources`,
//! pkg/release/v1/util `SortManifests`, pkg/cmd/template.go).
//!
//! Each rendered file is split into YAML documents on `---` lines, each document's head (apiVersion, kind,
//! name, annotations) is read; documents with a `helm.sh/hook` annotation become hooks, the rest manifests.
//! Both are sorted by kind in Helm's install order (stably: files in path order, documents in file order).
//! NOTES.txt is not a manifest. `helm template` prints the manifests (with the CRDs of `crds/` first when
//! asked), then the hooks, each as `---`, a `# Source:` line and the document.

use crate::side_by_side;
use std::collections::{BTreeMap, HashMap};

/// The head of a manifest document, as Helm reads it (`SimpleHead`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Head {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub annotations: BTreeMap<String, String>,
}

/// A document's head read (and its object, when asked), or why it could not be read.
pub type DocumentRead = Result<(Head, Option<serde_json::Value>), String>;

/// Files read already, by full name: each document and its read, in the file's order (see the `ahead` module).
pub type ReadFiles = HashMap<String, Vec<(String, DocumentRead)>>;

/// One manifest document of the output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// The template it came from (`mychart/templates/deployment.yaml`).
    pub source: String,
    /// The document, trimmed.
    pub content: String,
    pub head: Head,
    /// The document as a JSON value, when the head read was asked to keep it (see [`sort_manifests`]).
    pub object: Option<serde_json::Value>,
}

/// The events a hook runs on (`helm.sh/hook`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookEvent {
    PreInstall,
    PostInstall,
    PreDelete,
    PostDelete,
    PreUpgrade,
    PostUpgrade,
    PreRollback,
    PostRollback,
    Test,
}

impl HookEvent {
    /// The event named in `helm.sh/hook` (`test-success` is the old name of `test`).
    pub fn parse(name: &str) -> Option<HookEvent> {
        Some(match name {
            "pre-install" => HookEvent::PreInstall,
            "post-install" => HookEvent::PostInstall,
            "pre-delete" => HookEvent::PreDelete,
            "post-delete" => HookEvent::PostDelete,
            "pre-upgrade" => HookEvent::PreUpgrade,
            "post-upgrade" => HookEvent::PostUpgrade,
            "pre-rollback" => HookEvent::PreRollback,
            "post-rollback" => HookEvent::PostRollback,
            "test" | "test-success" => HookEvent::Test,
            _ => return None,
        })
    }

    /// The name Helm records.
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::PreInstall => "pre-install",
            HookEvent::PostInstall => "post-install",
            HookEvent::PreDelete => "pre-delete",
            HookEvent::PostDelete => "post-delete",
            HookEvent::PreUpgrade => "pre-upgrade",
            HookEvent::PostUpgrade => "post-upgrade",
            HookEvent::PreRollback => "pre-rollback",
            HookEvent::PostRollback => "post-rollback",
            HookEvent::Test => "test",
        }
    }
}

impl std::fmt::Display for HookEvent {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.as_str())
    }
}

pub const HOOK_ANNOTATION: &str = "helm.sh/hook";
pub const HOOK_WEIGHT_ANNOTATION: &str = "helm.sh/hook-weight";
pub const HOOK_DELETE_ANNOTATION: &str = "helm.sh/hook-delete-policy";
pub const HOOK_OUTPUT_LOG_ANNOTATION: &str = "helm.sh/hook-output-log-policy";

/// A hook document, as Helm records it (`release.Hook`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hook {
    pub name: String,
    pub kind: String,
    /// The template it came from.
    pub path: String,
    /// The document, trimmed.
    pub manifest: String,
    pub events: Vec<HookEvent>,
    /// `helm.sh/hook-weight`; 0 when missing or not an integer.
    pub weight: i64,
    /// `helm.sh/hook-delete-policy`, lower-cased, as written.
    pub delete_policies: Vec<String>,
    /// `helm.sh/hook-output-log-policy`, lower-cased, as written.
    pub output_log_policies: Vec<String>,
    /// The document as a JSON value, when the head read was asked to keep it (see [`sort_manifests`]).
    pub object: Option<serde_json::Value>,
}

impl Hook {
    pub fn is_test(&self) -> bool {
        self.events.contains(&HookEvent::Test)
    }
}

/// Why rendered output could not be sorted (Helm's "YAML parse error on FILE: ...").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("YAML parse error on {file}: {message}")]
pub struct SortError {
    pub file: String,
    pub message: String,
    /// Every rendered file that is not blank, as `---`, `# Source: FILE` and its text: the manifest Helm attaches
    /// to the release it returns with this error (`renderResources`), which `helm template --debug` prints so the
    /// invalid YAML can be seen. Files in path order, where Helm walks a Go map.
    pub rendered: String,
}

/// Helm's install order by kind; kinds not listed go last, alphabetically.
pub const INSTALL_ORDER: [&str; 38] = [
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
];

/// Splits a rendered file into its documents, trimmed, empty ones dropped (`releaseutil.SplitManifests`).
pub fn split_manifests(text: &str) -> Vec<String> {
    berth_goyaml::split_manifests(text)
}

/// The rendered files as Helm's `renderResources` writes them when they cannot be sorted: each that is not blank,
/// as `---`, `# Source: FILE` and its text.
fn rendered_files(files: &BTreeMap<String, String>) -> String {
    files
        .iter()
        .filter(|(path, content)| {
            !path.rsplit('/').next().unwrap_or(path).starts_with('_') && !trim_go_space(content).is_empty()
        })
        .map(|(path, content)| format!("---\n# Source: {path}\n{content}\n"))
        .collect()
}

/// Go's `strings.TrimSpace`: Unicode white space at both ends.
fn trim_go_space(text: &str) -> &str {
    text.trim_matches(char::is_whitespace)
}

/// The position of `kind` in the install order: listed kinds by their index, others after them by name.
fn kind_rank(kind: &str) -> (usize, &str) {
    match INSTALL_ORDER.iter().position(|listed| *listed == kind) {
        Some(index) => (index, ""),
        None => (INSTALL_ORDER.len(), kind),
    }
}

/// Hooks and manifests of the rendered `files` (template path → text), sorted as Helm sorts them.
/// `read_head` reads a document's head as Helm's YAML reading does (an error is Helm's "YAML parse error"), and
/// may give the whole document as a JSON value too, kept as the manifest's or hook's `object` (reading a document
/// once where its objects are wanted). Files in `read_ahead` were split and read already, with the same
/// `read_head` (see the `ahead` module). Partials (`_*`) and blank files are skipped; NOTES.txt must already be
/// taken out.
///
/// # Errors
/// [`SortError`] for the first document whose head cannot be read.
pub fn sort_manifests(
    files: &BTreeMap<String, String>,
    mut read_ahead: ReadFiles,
    read_head: impl Fn(&str) -> DocumentRead + Sync,
) -> Result<(Vec<Hook>, Vec<Manifest>), SortError> {
    let mut documents = Vec::new();
    for (path, content) in files {
        let base = path.rsplit('/').next().unwrap_or(path);
        if base.starts_with('_') || trim_go_space(content).is_empty() {
            continue;
        }
        match read_ahead.remove(path) {
            Some(read) => documents.extend(read.into_iter().map(|(document, read)| (path, document, Some(read)))),
            None => documents.extend(split_manifests(content).into_iter().map(|document| (path, document, None))),
        }
    }
    // The rest of a large output's heads are read on both cores (see `side_by_side`).
    let unread = documents.iter().filter(|(_, _, read)| read.is_none()).collect();
    let mut heads = side_by_side::map_large(
        unread,
        HEAD_READER_STACK_BYTES,
        |(_, document, _)| document.len(),
        |(_, document, _)| read_head(document),
    )
    .into_iter();
    let mut hooks = Vec::new();
    let mut manifests = Vec::new();
    for (path, document, read) in documents {
        let Some(read) = read.or_else(|| heads.next()) else { break };
        let (head, object) =
            read.map_err(|message| SortError { file: path.clone(), message, rendered: rendered_files(files) })?;
        match head.annotations.get(HOOK_ANNOTATION) {
            Some(events) => {
                if let Some(hook) = hook(path, &document, &head, events) {
                    hooks.push(Hook { object, ..hook });
                }
            }
            None => manifests.push(Manifest { source: path.clone(), content: document, head, object }),
        }
    }
    hooks.sort_by(|a, b| kind_rank(&a.kind).cmp(&kind_rank(&b.kind)));
    manifests.sort_by(|a, b| kind_rank(&a.head.kind).cmp(&kind_rank(&b.head.kind)));
    Ok((hooks, manifests))
}

/// The stack of a thread reading heads: as the renderer's.
pub(super) const HEAD_READER_STACK_BYTES: usize = 16 * 1024 * 1024;

/// A hook document; `None` for an unknown event (Helm skips the document then, with a log line).
fn hook(path: &str, document: &str, head: &Head, events: &str) -> Option<Hook> {
    let events: Option<Vec<HookEvent>> =
        events.split(',').map(|event| HookEvent::parse(&event.trim().to_lowercase())).collect();
    // Helm skips a document with an unknown event (it logs that at info level); so does berth.
    let events = events?;
    let list = |annotation: &str| -> Vec<String> {
        head.annotations
            .get(annotation)
            .map(|value| value.split(',').map(|item| item.trim().to_lowercase()).collect())
            .unwrap_or_default()
    };
    Some(Hook {
        name: head.name.clone(),
        kind: head.kind.clone(),
        path: path.to_string(),
        manifest: document.to_string(),
        events,
        weight: head.annotations.get(HOOK_WEIGHT_ANNOTATION).and_then(|weight| go_atoi(weight)).unwrap_or(0),
        delete_policies: list(HOOK_DELETE_ANNOTATION),
        output_log_policies: list(HOOK_OUTPUT_LOG_ANNOTATION),
        object: None,
    })
}

/// Go's `strconv.Atoi`: an optional sign and decimal digits, nothing else.
fn go_atoi(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// A CRD file of a chart's `crds/` (never templated), with the path Helm prints (`chart/crds/x.yaml`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrdFile {
    pub path: String,
    pub content: String,
}

/// What `helm template` prints, given what it renders.
#[derive(Debug, Clone, Default)]
pub struct TemplateOutput<'a> {
    pub manifests: &'a [Manifest],
    pub hooks: &'a [Hook],
    /// Printed first, as written, with `--include-crds`.
    pub crds: &'a [CrdFile],
    /// `--no-hooks`.
    pub without_hooks: bool,
    /// `--skip-tests`.
    pub without_tests: bool,
}

/// The release manifest Helm records: CRDs (when included) and manifests, each `---\n# Source: ...\n<doc>\n`.
pub fn release_manifest(crds: &[CrdFile], manifests: &[Manifest]) -> String {
    let mut text = String::new();
    for crd in crds {
        text.push_str(&format!("---\n# Source: {}\n{}\n", crd.path, crd.content));
    }
    for manifest in manifests {
        text.push_str(&format!("---\n# Source: {}\n{}\n", manifest.source, manifest.content));
    }
    text
}

/// The text `helm template` prints: the release manifest trimmed, a newline, then the hooks.
pub fn template_text(output: &TemplateOutput<'_>) -> String {
    let manifest = release_manifest(output.crds, output.manifests);
    let mut text = format!("{}\n", trim_go_space(&manifest));
    if !output.without_hooks {
        for hook in output.hooks {
            if output.without_tests && hook.is_test() {
                continue;
            }
            text.push_str(&format!("---\n# Source: {}\n{}\n", hook.path, hook.manifest));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(kind: &str, name: &str, annotations: &[(&str, &str)]) -> Head {
        Head {
            api_version: "v1".into(),
            kind: kind.into(),
            name: name.into(),
            annotations: annotations.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        }
    }

    #[test]
    fn splits_as_helm_does() {
        let cases: [(&str, &[&str]); 6] = [
            ("a: 1\n---\nb: 2\n", &["a: 1", "b: 2"]),
            ("---\na: 1\n", &["a: 1"]),
            ("a: 1\n\n  \n---   \n\nb: 2", &["a: 1", "b: 2"]),
            ("a: |\n  ---\n  x\n", &["a: |\n  ---\n  x"]),
            ("a: 1\n---\n---\nb: 2", &["a: 1", "---\nb: 2"]),
            ("\n\n   ", &[]),
        ];
        for (text, expected) in cases {
            assert_eq!(split_manifests(text), expected, "{text:?}");
        }
    }

    #[test]
    fn sorts_by_install_order_then_kind_name_stably() {
        let mut files = BTreeMap::new();
        files.insert("c/templates/b.yaml".to_string(), "Deployment web\n---\nWidget w\n---\nService web".to_string());
        files.insert("c/templates/a.yaml".to_string(), "ConfigMap a\n---\nAardvark z\n---\nService a".to_string());
        files.insert("c/templates/_helpers.tpl".to_string(), "Namespace n".to_string());
        let read = |document: &str| {
            let (kind, name) = document.split_once(' ').unwrap_or((document, ""));
            Ok((head(kind, name, &[]), None))
        };
        let (hooks, manifests) = sort_manifests(&files, ReadFiles::new(), read).expect("sorted");
        assert!(hooks.is_empty());
        let order: Vec<(&str, &str)> = manifests.iter().map(|m| (m.head.kind.as_str(), m.head.name.as_str())).collect();
        assert_eq!(
            order,
            [
                ("ConfigMap", "a"),
                ("Service", "a"),
                ("Service", "web"),
                ("Deployment", "web"),
                ("Aardvark", "z"),
                ("Widget", "w")
            ]
        );
    }

    #[test]
    fn hooks_are_taken_apart_with_weights_and_policies() {
        let mut files = BTreeMap::new();
        files.insert("c/templates/job.yaml".to_string(), "job".to_string());
        let read = |_: &str| {
            let head = head(
                "Job",
                "migrate",
                &[
                    (HOOK_ANNOTATION, "pre-install, Pre-Upgrade"),
                    (HOOK_WEIGHT_ANNOTATION, "-5"),
                    (HOOK_DELETE_ANNOTATION, "before-hook-creation,hook-succeeded"),
                ],
            );
            Ok((head, Some(serde_json::json!({"kind": "Job"}))))
        };
        let (hooks, manifests) = sort_manifests(&files, ReadFiles::new(), read).expect("sorted");
        assert!(manifests.is_empty());
        assert_eq!(hooks[0].events, [HookEvent::PreInstall, HookEvent::PreUpgrade]);
        assert_eq!(hooks[0].weight, -5);
        assert_eq!(hooks[0].delete_policies, ["before-hook-creation", "hook-succeeded"]);
        assert_eq!(hooks[0].object, Some(serde_json::json!({"kind": "Job"})), "the object read with the head is kept");
    }

    #[test]
    fn unknown_hook_events_drop_the_document_and_bad_weights_are_zero() {
        let mut files = BTreeMap::new();
        files.insert("c/templates/x.yaml".to_string(), "one\n---\ntwo".to_string());
        let read = |document: &str| {
            let head = if document == "one" {
                head("Pod", "p", &[(HOOK_ANNOTATION, "pre-install,sometimes")])
            } else {
                head("Pod", "q", &[(HOOK_ANNOTATION, "test-success"), (HOOK_WEIGHT_ANNOTATION, "1.5")])
            };
            Ok((head, None))
        };
        let (hooks, _) = sort_manifests(&files, ReadFiles::new(), read).expect("sorted");
        assert_eq!(hooks.len(), 1);
        assert_eq!((hooks[0].name.as_str(), hooks[0].weight, hooks[0].is_test()), ("q", 0, true));
    }

    #[test]
    fn template_text_puts_hooks_after_manifests() {
        let manifests = [Manifest {
            source: "c/templates/a.yaml".into(),
            content: "kind: A".into(),
            head: head("A", "a", &[]),
            object: None,
        }];
        let hooks = [Hook {
            name: "t".into(),
            kind: "Pod".into(),
            path: "c/templates/tests/t.yaml".into(),
            manifest: "kind: Pod".into(),
            events: vec![HookEvent::Test],
            weight: 0,
            delete_policies: vec![],
            output_log_policies: vec![],
            object: None,
        }];
        let crds = [CrdFile { path: "c/crds/x.yaml".into(), content: "kind: CustomResourceDefinition\n".into() }];
        let all = TemplateOutput { manifests: &manifests, hooks: &hooks, crds: &crds, ..TemplateOutput::default() };
        assert_eq!(
            template_text(&all),
            "---\n# Source: c/crds/x.yaml\nkind: CustomResourceDefinition\n\n---\n# Source: c/templates/a.yaml\nkind: A\n\
             ---\n# Source: c/templates/tests/t.yaml\nkind: Pod\n"
        );
        let no_tests =
            TemplateOutput { manifests: &manifests, hooks: &hooks, without_tests: true, ..TemplateOutput::default() };
        assert_eq!(template_text(&no_tests), "---\n# Source: c/templates/a.yaml\nkind: A\n");
        assert_eq!(template_text(&TemplateOutput::default()), "\n");
    }
}
