//! berth's own checks, after Helm's rules: what berth (or the API server) would refuse when it installs the
//! chart, found in what the templates rendered. Each is the check `berth install` itself runs, called here
//! rather than copied:
//!
//! - health annotations (`helm.sh/health/*`, HIP-0025 `helm.sh/readiness-*`, `berth.dev/health` CEL rules):
//!   [`HealthRules::check`]; a malformed one is an [ERROR] (install stops before the first write), a rule that
//!   will not act as written (half a HIP-0025 pair, several kinds on one object) a [WARNING];
//! - ordering annotations (`helm.sh/weight`, `helm.sh/resource-group`, `helm.sh/depends-on/resource-groups`,
//!   `config.kubernetes.io/depends-on`, `berth.dev/depends-on`), objects declared twice and dependency cycles:
//!   [`plan::build`] over the release's objects, and over each hook alone (hooks run one by one); an [ERROR];
//! - label and annotation keys and values the API server refuses: [`validation::check_labels_and_annotations`]
//!   on the object as berth sends it; an [ERROR];
//! - `berth.dev/timeout` that is not a duration: [`parse_duration`]; an [ERROR].
//!
//! The CRDs of `crds/` are checked as install checks them: a set of their own. Each finding names the file (as
//! Helm's do: `templates/x.yaml`, `charts/sub/templates/y.yaml`, `crds/z.yaml`) and, in its text, the document
//! and the object.

use super::message::{Family, Message, Severity};
use super::templates::Rendered;
use crate::apply::TIMEOUT_ANNOTATION;
use crate::apply::deliverable;
use crate::health::HealthRules;
use crate::manifest::{Manifest, Source, collect_objects};
use crate::object::validation;
use crate::object::{parse_duration, str_at};
use crate::plan;
use berth_chart::render::output::split_manifests;
use berth_goyaml::yaml_to_json;

/// The annotation that makes a template's object a hook (run apart from the release's objects).
const HOOK_ANNOTATION: &str = "helm.sh/hook";

/// Every finding of berth's checks on what `rendered` holds, file by file.
pub(super) fn check(rendered: &Rendered) -> Vec<Message> {
    let chart_prefix = format!("{}/", rendered.chart.name());
    let mut release = Vec::new();
    let mut hooks = Vec::new();
    for (name, content) in &rendered.files {
        let file = name.strip_prefix(&chart_prefix).unwrap_or(name);
        if file.ends_with("NOTES.txt") {
            continue;
        }
        for manifest in read_objects(file, content, Reading::Whole) {
            if str_at(&manifest.object, &["metadata", "annotations", HOOK_ANNOTATION]).is_some() {
                hooks.push(manifest);
            } else {
                release.push(manifest);
            }
        }
    }
    let mut crds = Vec::new();
    for (name, file) in rendered.chart.crd_objects() {
        let file_name = name.strip_prefix(&chart_prefix).unwrap_or(&name);
        crds.extend(read_objects(file_name, &file.text(), Reading::Metadata));
    }
    let mut findings = Vec::new();
    let health = HealthRules::new();
    for set in [&release, &hooks, &crds] {
        for manifest in set.iter() {
            object_findings(manifest, &health, &mut findings);
        }
    }
    plan_findings(&release, &mut findings);
    plan_findings(&crds, &mut findings);
    for hook in &hooks {
        plan_findings(std::slice::from_ref(hook), &mut findings);
    }
    // File by file; within a file, each object's findings in document order, then the plan's.
    findings.sort_by(|a, b| a.path.cmp(&b.path));
    findings
}

/// How much of each document the checks need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    Whole,
    /// Only `apiVersion`, `kind` and `metadata`: for the files of `crds/`, whose definitions can be megabytes of
    /// schema that none of berth's checks reads (see [`metadata_only`]).
    Metadata,
}

/// The objects of a rendered file as `berth install` reads them (Helm's `SplitManifests`, each document read as
/// sigs.k8s.io/yaml reads it), each with its document number and the line it starts on. Documents that do not
/// parse are Helm's rules' to report (and `berth install` says where).
fn read_objects(file: &str, content: &str, reading: Reading) -> Vec<Manifest> {
    let mut manifests = Vec::new();
    let (mut offset, mut line) = (0, 1);
    for (index, document) in split_manifests(content).iter().enumerate() {
        // Documents come in order and trimmed, so each is found after the one before.
        if let Some(at) = content.get(offset..).and_then(|rest| rest.find(document.as_str())) {
            line += content[offset..offset + at].matches('\n').count();
            offset += at;
        }
        let source = Source { file: file.to_string(), document: index + 1, line, item: None };
        let reduced = match reading {
            Reading::Metadata => metadata_only(document).and_then(|text| read_json(&text)),
            Reading::Whole => None,
        };
        if let Some(value) = reduced.or_else(|| read_json(document)) {
            collect_objects(value, source, &mut manifests, &mut Vec::new());
        }
    }
    manifests
}

fn read_json(document: &str) -> Option<serde_json::Value> {
    let json = yaml_to_json(document).ok()??;
    serde_json::from_str(&json).ok()
}

/// The top-level `apiVersion`, `kind` and `metadata` entries of a block-style YAML document, cut out as text:
/// every top-level entry starts at column 0 with a plain key and a colon, and what belongs to it is indented
/// (block scalars and nested nodes must be). `None` when a line at column 0 is anything else (flow style, JSON,
/// a tag, an anchor, a complex key): the document is then read whole.
fn metadata_only(document: &str) -> Option<String> {
    const KEPT: [&str; 3] = ["apiVersion", "kind", "metadata"];
    let mut kept = String::new();
    let mut keeping = false;
    let mut has_metadata = false;
    for line in document.split_inclusive('\n') {
        if line.trim().is_empty() || line.starts_with([' ', '\t', '#']) {
            if keeping {
                kept.push_str(line);
            }
            continue;
        }
        let (key, rest) = line.split_once(':')?;
        let is_plain_key =
            !key.is_empty() && key.bytes().all(|byte| byte.is_ascii_alphanumeric() || b"_.-/".contains(&byte));
        if !is_plain_key || !(rest.is_empty() || rest.starts_with([' ', '\n', '\r'])) {
            return None;
        }
        keeping = KEPT.contains(&key);
        has_metadata |= key == "metadata";
        if keeping {
            kept.push_str(line);
            if !line.ends_with('\n') {
                kept.push('\n');
            }
        }
    }
    has_metadata.then_some(kept)
}

/// The findings about one object: its health annotations, its labels and annotations, its timeout.
fn object_findings(manifest: &Manifest, health: &HealthRules, findings: &mut Vec<Message>) {
    let report = health.check(std::slice::from_ref(manifest));
    for error in report.errors {
        findings.push(finding(manifest, Severity::Error, error.to_string()));
    }
    for warning in report.warnings {
        findings.push(finding(manifest, Severity::Warning, warning));
    }
    let reference = &manifest.reference;
    // Names are Helm's rule's to judge, and sizes depend on what the server adds: labels and annotations only.
    for invalid in validation::check_labels_and_annotations(&deliverable(&manifest.object)) {
        findings.push(finding(manifest, Severity::Error, format!("{}: {reference}: {invalid}", manifest.source)));
    }
    if let Some(text) = str_at(&manifest.object, &["metadata", "annotations", TIMEOUT_ANNOTATION])
        && let Err(message) = parse_duration(text)
    {
        let text = format!("{}: {reference}: annotation `{TIMEOUT_ANNOTATION}`: {message}", manifest.source);
        findings.push(finding(manifest, Severity::Error, text));
    }
}

/// The plan's problems for `manifests` (malformed ordering annotations, unknown resource groups, objects declared
/// twice, cycles); a problem is reported in the file of its first object.
fn plan_findings(manifests: &[Manifest], findings: &mut Vec<Message>) {
    if manifests.is_empty() {
        return;
    }
    let Err(error) = plan::build(manifests) else { return };
    for problem in error.problems {
        let index = problem.index().unwrap_or_default();
        if let Some(manifest) = manifests.get(index) {
            findings.push(finding(manifest, Severity::Error, problem.to_string()));
        }
    }
}

/// A finding in the manifest's file; the text starts after the file name (the document, the object, the rest).
fn finding(manifest: &Manifest, severity: Severity, text: String) -> Message {
    let file = &manifest.source.file;
    let text = text.strip_prefix(&format!("{file}: ")).map(str::to_string).unwrap_or(text);
    Message { severity, path: file.clone(), text, family: Family::Berth }
}

#[cfg(test)]
mod tests {
    use super::*;
    use berth_chart::chart::{Chart, File, Metadata};
    use std::collections::BTreeMap;

    fn rendered(files: &[(&str, &str)], crds: &[(&str, &str)]) -> Rendered {
        let chart = Chart {
            metadata: Metadata { name: "app".into(), ..Metadata::default() },
            files: crds.iter().map(|(name, text)| File::new(*name, text.as_bytes().to_vec())).collect(),
            ..Chart::default()
        };
        let files: BTreeMap<String, String> =
            files.iter().map(|(name, text)| (format!("app/{name}"), text.to_string())).collect();
        Rendered { chart, files }
    }

    fn texts(rendered: &Rendered) -> Vec<String> {
        check(rendered).iter().map(ToString::to_string).collect()
    }

    const CONFIG_MAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n";

    #[test]
    fn a_chart_without_berth_annotations_has_no_findings() {
        let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels: {app: web}\n";
        assert!(
            texts(&rendered(&[("templates/a.yaml", CONFIG_MAP), ("templates/b.yaml", deployment)], &[])).is_empty()
        );
    }

    #[test]
    fn each_check_is_reported_with_its_severity() {
        let objects = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    \
                       helm.sh/weight: heavy\n    berth.dev/timeout: soon\n    helm.sh/readiness-success: '[\"{.x}\"'\n---\n\
                       apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  labels:\n    \"bad key!\": x\n  \
                       annotations:\n    helm.sh/readiness-success: '[\"{.status.ok} == true\"]'\n";
        let findings = check(&rendered(&[("templates/objects.yaml", objects)], &[]));
        let severities: Vec<(Severity, &str)> =
            findings.iter().map(|finding| (finding.severity, finding.path.as_str())).collect();
        assert!(findings.iter().all(|finding| finding.family == Family::Berth));
        let text = findings.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n");
        for expected in [
            "[ERROR] templates/objects.yaml: document 1 (line 1): ConfigMap/a: annotation `helm.sh/readiness-success`",
            "[ERROR] templates/objects.yaml: document 1 (line 1): ConfigMap/a: annotation `berth.dev/timeout`: ",
            "[ERROR] templates/objects.yaml: document 2 (line 10): ConfigMap/b: metadata.labels: Invalid value: \
             \"bad key!\"",
            "[WARNING] templates/objects.yaml: document 2 (line 10): ConfigMap/b: only `helm.sh/readiness-success` is \
             set",
            "[ERROR] templates/objects.yaml: document 1 (line 1): ConfigMap/a: annotation `helm.sh/weight`: ",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
        }
        assert_eq!(severities.len(), 5, "{text}");
    }

    #[test]
    fn cycles_are_found_among_the_release_objects_and_hooks_are_planned_alone() {
        let cycle = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    \
                     berth.dev/depends-on: /namespaces/default/ConfigMap/b\n---\napiVersion: v1\nkind: ConfigMap\n\
                     metadata:\n  name: b\n  annotations:\n    berth.dev/depends-on: /namespaces/default/ConfigMap/a\n";
        let findings = texts(&rendered(&[("templates/cycle.yaml", cycle)], &[]));
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert!(findings[0].starts_with("[ERROR] templates/cycle.yaml: dependency cycle: "), "{}", findings[0]);

        let hook = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n    \
                    helm.sh/hook: pre-install\n    helm.sh/depends-on/resource-groups: '[\"database\"]'\n";
        let findings = texts(&rendered(&[("templates/hook.yaml", hook)], &[]));
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert!(findings[0].contains("no object declares resource group `database`"), "{}", findings[0]);
    }

    #[test]
    fn a_definitions_metadata_is_cut_out_of_block_yaml_and_anything_else_is_read_whole() {
        let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: w\n  \
                   annotations:\n    a: |\n      text\n\n    b: c\nspec:\n  group: example.com\n  names: {kind: W}\n";
        assert_eq!(
            metadata_only(crd).as_deref(),
            Some(
                "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: w\n  \
                  annotations:\n    a: |\n      text\n\n    b: c\n"
            )
        );
        for unusual in ["{\"kind\": \"A\", \"metadata\": {}}", "kind: A\n? complex\n: key\nmetadata: {}\n", "kind: A\n"]
        {
            assert_eq!(metadata_only(unusual), None, "{unusual:?}");
        }
        // Read whole or cut, the checks see the same metadata.
        let whole = read_objects("crds/w.yaml", crd, Reading::Whole);
        let cut = read_objects("crds/w.yaml", crd, Reading::Metadata);
        assert_eq!(whole[0].object["metadata"], cut[0].object["metadata"]);
        assert_eq!(
            (whole[0].source.clone(), whole[0].reference.clone()),
            (cut[0].source.clone(), cut[0].reference.clone())
        );
    }

    #[test]
    fn crds_are_checked_in_their_own_files() {
        let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  \
                   name: widgets.example.com\n  annotations:\n    berth.dev/timeout: 5 minutes\n";
        let findings = texts(&rendered(&[], &[("crds/widgets.yaml", crd)]));
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert!(findings[0].starts_with("[ERROR] crds/widgets.yaml: document 1 (line 1): "), "{}", findings[0]);
    }
}
