//! The templates rule (helm pkg/chart/v2/lint/rules/template.go): `templates/` is there and a directory, the
//! chart loads, its values meet the schemas, every template renders in Helm's lint mode (release `test-release`,
//! offline capabilities), and each of the top chart's YAML templates renders to YAML whose documents have
//! valid names, no deprecated API, a selector where a workload needs one and no `helm.sh/resource-policy` inside
//! a `List`.

use super::documents::{Head, decode_all};
use super::message::{Family, Linter, Severity};
use super::{LintOptions, Loaded, deprecations, names};
use berth_chart::chart::Chart;
use berth_chart::go::{errno_text, quote};
use berth_chart::render::{Release, RenderBudget, RenderOptions, lint_templates, offline};
use berth_chart::values::{ComputeOptions, compute_checked, validate_values};
use berth_go::Value;
use berth_goyaml::{GoShape, GoStruct, unmarshal_typed};
use std::collections::BTreeMap;
use std::path::Path;

const TEMPLATES: &str = "templates/";

/// The release lint renders for (Helm's `ReleaseOptions{Name: "test-release", Namespace: ...}`: revision 0,
/// neither install nor upgrade).
const RELEASE_NAME: &str = "test-release";

/// What the templates rendered to, for berth's own checks: each file by its name in the chart.
pub(super) struct Rendered {
    pub chart: Chart,
    pub files: BTreeMap<String, String>,
}

/// Helm's `Templates` rule up to the render: the directory, the chart, the schemas, the templates rendered.
/// Adds to `log` what Helm would log; returns the render when there was one ([`check_documents`] goes on).
pub(super) fn render(
    linter: &mut Linter,
    chart_dir: &Path,
    loaded: &Loaded,
    options: &LintOptions,
    log: &mut Vec<String>,
) -> Option<Rendered> {
    let rule = |linter: &mut Linter, severity, outcome| linter.rule(Family::Templates, severity, TEMPLATES, outcome);
    let directory = chart_dir.join("templates");
    let stat = std::fs::metadata(&directory);
    let missing = matches!(&stat, Err(error) if error.kind() == std::io::ErrorKind::NotFound);
    if !rule(linter, Severity::Warning, if missing { Err("directory does not exist".into()) } else { Ok(()) }) {
        return None;
    }
    let is_directory = match &stat {
        Ok(metadata) if metadata.is_dir() => Ok(()),
        Ok(_) => Err("not a directory".to_string()),
        Err(error) => Err(format!("stat {}: {}", directory.display(), errno_text(error))),
    };
    if !rule(linter, Severity::Error, is_directory) {
        return None;
    }
    let chart = match loaded.take_for_rule(log) {
        Ok(chart) => chart,
        Err(message) => {
            rule(linter, Severity::Error, Err(message));
            return None;
        }
    };
    // ProcessDependencies and CoalesceValues: a failure ends the rule without a message, as in Helm.
    let computed = compute_checked(chart, &options.values, &ComputeOptions { skip_schema_validation: true }).ok()?;
    log.extend(computed.warnings.iter().cloned());
    if !options.skip_schema_validation
        && let Value::Map(values) = &computed.values
        && let Err(error) = validate_values(&computed.chart, values)
    {
        rule(linter, Severity::Error, Err(error.to_string()));
        return None;
    }
    let release = Release {
        name: RELEASE_NAME.to_string(),
        namespace: options.namespace.clone(),
        revision: 0,
        is_install: false,
        is_upgrade: false,
    };
    let render_options = RenderOptions {
        release,
        capabilities: offline(options.kube_version.clone(), &[]),
        lookup: None,
        budget: RenderBudget::default(),
    };
    let render = lint_templates(&computed.chart, &computed.values, &render_options);
    log.extend(render.log);
    match render.rendered {
        Ok(files) => Some(Rendered { chart: computed.chart, files }),
        Err(error) => {
            rule(linter, Severity::Error, Err(error.to_string()));
            None
        }
    }
}

/// The rest of Helm's `Templates` rule: each of the top chart's templates has an allowed extension, and each
/// YAML one renders to documents that parse, with valid names, no deprecated API, a selector where a workload
/// needs one, no resource policy inside a List.
pub(super) fn check_documents(linter: &mut Linter, rendered: &Rendered, options: &LintOptions) {
    let rule =
        |linter: &mut Linter, severity, path: &str, outcome| linter.rule(Family::Templates, severity, path, outcome);
    let (major, minor) = options.kube_major_minor();
    for template in &rendered.chart.templates {
        let file_name = template.name.as_str();
        rule(linter, Severity::Error, file_name, allowed_extension(file_name));
        if !is_yaml(file_name) {
            continue;
        }
        let content = rendered.files.get(&format!("{}/{file_name}", rendered.chart.name())).map_or("", String::as_str);
        if content.trim().is_empty() {
            continue;
        }
        rule(linter, Severity::Warning, file_name, top_indent_level(content));
        for document in decode_all(content) {
            let head = match document {
                // A document that is not YAML ends the rule: the next checks would fail the same way.
                Err(error) => {
                    rule(linter, Severity::Error, file_name, Err(format!("unable to parse YAML: {error}")));
                    return;
                }
                Ok(None) => continue,
                Ok(Some(head)) => head,
            };
            rule(linter, Severity::Warning, file_name, names::check(&head.kind, &head.name));
            rule(linter, Severity::Warning, file_name, deprecations::check(&head, major, minor));
            rule(linter, Severity::Error, file_name, match_selector(&head, content));
            rule(linter, Severity::Error, file_name, list_annotations(&head, content));
        }
    }
}

/// `validateAllowedExtension`.
fn allowed_extension(file_name: &str) -> Result<(), String> {
    let extension = extension(file_name);
    if [".yaml", ".yml", ".tpl", ".txt"].contains(&extension) {
        return Ok(());
    }
    Err(format!("file extension '{extension}' not valid. Valid extensions are .yaml, .yml, .tpl, or .txt"))
}

/// `filepath.Ext`.
fn extension(name: &str) -> &str {
    let base = name.rsplit('/').next().unwrap_or(name);
    base.rfind('.').map_or("", |dot| &base[dot..])
}

/// `isYamlFileExtension`: `.yaml` or `.yml`, any case.
fn is_yaml(file_name: &str) -> bool {
    let extension = extension(file_name).to_lowercase();
    extension == ".yaml" || extension == ".yml"
}

/// `bufio.MaxScanTokenSize`: a longer line stops Go's line scanner with an error.
const MAX_SCANNED_LINE: usize = 64 * 1024;

/// `validateTopIndentLevel`: the first non-blank line must not start with a space or a tab.
fn top_indent_level(content: &str) -> Result<(), String> {
    for line in content.lines() {
        if line.len() >= MAX_SCANNED_LINE {
            return Err("bufio.Scanner: token too long".into());
        }
        if line.trim().is_empty() {
            continue;
        }
        if line.starts_with(' ') || line.starts_with('\t') {
            return Err(format!(
                "document starts with an illegal indent: {}, which may cause parsing problems",
                quote(line)
            ));
        }
        return Ok(());
    }
    Ok(())
}

/// `validateMatchSelector`: a workload's file must mention `matchLabels` or `matchExpressions` somewhere.
fn match_selector(head: &Head, content: &str) -> Result<(), String> {
    let is_workload = matches!(head.kind.as_str(), "Deployment" | "ReplicaSet" | "DaemonSet" | "StatefulSet");
    if is_workload && !content.contains("matchLabels") && !content.contains("matchExpressions") {
        return Err(format!(
            "a {} must contain matchLabels or matchExpressions, and {} does not",
            head.kind,
            quote(&head.name)
        ));
    }
    Ok(())
}

static LIST_ITEM_METADATA: GoStruct = GoStruct {
    name: "",
    type_string: "struct { Annotations map[string]string }",
    fields: &[("Annotations", GoShape::Map(&GoShape::String))],
};
static LIST_ITEM: GoStruct = GoStruct {
    name: "",
    type_string: "struct { Metadata struct { Annotations map[string]string } }",
    fields: &[("Metadata", GoShape::Struct(&LIST_ITEM_METADATA))],
};
static LIST: GoStruct = GoStruct {
    name: "",
    type_string: "struct { Items []struct { Metadata struct { Annotations map[string]string } } }",
    fields: &[("Items", GoShape::List(&GoShape::Struct(&LIST_ITEM)))],
};

/// `validateListAnnotations`: for a `List`, the file (its first document, as sigs.k8s.io/yaml reads it) must
/// hold no item with `helm.sh/resource-policy`, which Helm ignores inside a List.
fn list_annotations(head: &Head, content: &str) -> Result<(), String> {
    if head.kind != "List" {
        return Ok(());
    }
    let list = unmarshal_typed(content, GoShape::Struct(&LIST))
        .map_err(|error| format!("unable to parse YAML: {}", error.message()))?;
    let items = list.and_then(|list| list.field("Items")).and_then(|items| items.as_list().map(|items| items.to_vec()));
    let kept = items.unwrap_or_default().iter().any(|item| {
        item.field("Metadata")
            .and_then(|metadata| metadata.field("Annotations"))
            .and_then(|annotations| annotations.field("helm.sh/resource-policy"))
            .is_some()
    });
    if kept { Err("annotation 'helm.sh/resource-policy' within List objects are ignored".into()) } else { Ok(()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_as_helm_allows_them() {
        assert_eq!(allowed_extension("templates/a.yaml"), Ok(()));
        assert_eq!(allowed_extension("templates/NOTES.txt"), Ok(()));
        assert_eq!(
            allowed_extension("templates/a.json"),
            Err("file extension '.json' not valid. Valid extensions are .yaml, .yml, .tpl, or .txt".into())
        );
        assert_eq!(allowed_extension("templates/Makefile").unwrap_err().split('\'').nth(1), Some(""));
        assert!(is_yaml("templates/A.YML") && !is_yaml("templates/a.tpl"));
    }

    #[test]
    fn the_first_line_that_says_something_must_not_be_indented() {
        assert_eq!(top_indent_level("\n  \nkind: A\n  b: c\n"), Ok(()));
        assert_eq!(
            top_indent_level("\n  kind: A\n"),
            Err("document starts with an illegal indent: \"  kind: A\", which may cause parsing problems".into())
        );
        assert_eq!(
            top_indent_level(&format!("{}\n", "a".repeat(MAX_SCANNED_LINE))),
            Err("bufio.Scanner: token too long".into())
        );
    }

    #[test]
    fn workloads_need_a_selector_somewhere_in_their_file() {
        let deployment = Head { kind: "Deployment".into(), name: "web".into(), ..Head::default() };
        assert_eq!(
            match_selector(&deployment, "kind: Deployment\n"),
            Err("a Deployment must contain matchLabels or matchExpressions, and \"web\" does not".into())
        );
        assert_eq!(match_selector(&deployment, "selector:\n  matchExpressions: []\n"), Ok(()));
        assert_eq!(match_selector(&Head { kind: "Job".into(), ..Head::default() }, ""), Ok(()));
    }

    #[test]
    fn a_resource_policy_inside_a_list_is_reported_only_from_the_first_document() {
        let list = Head { kind: "List".into(), ..Head::default() };
        let first = "kind: List\nitems:\n- metadata:\n    annotations: {helm.sh/resource-policy: keep}\n";
        assert_eq!(
            list_annotations(&list, first),
            Err("annotation 'helm.sh/resource-policy' within List objects are ignored".into())
        );
        assert_eq!(list_annotations(&list, &format!("kind: Service\n---\n{first}")), Ok(()));
    }
}
