//! The `crds/` rule (helm pkg/chart/v2/lint/rules/crds.go): the directory, when there is one, is a directory,
//! and every manifest file in the `crds/` of the chart and its subcharts holds only plain YAML (never a
//! template) documents of kind `CustomResourceDefinition` in `apiextensions.k8s.io`.

use super::Loaded;
use super::documents::{Head, decode_all};
use super::message::{Family, Linter, Severity};
use berth_chart::go::errno_text;
use std::path::Path;

const CRDS: &str = "crds/";

/// Helm's `Crds` rule.
pub(super) fn lint(linter: &mut Linter, chart_dir: &Path, loaded: &Loaded, log: &mut Vec<String>) {
    let rule = |linter: &mut Linter, path: &str, outcome| linter.rule(Family::Crds, Severity::Error, path, outcome);
    let directory = chart_dir.join("crds");
    let is_directory = match std::fs::metadata(&directory) {
        // The directory is optional.
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return,
        Err(error) => Err(format!("stat {}: {}", directory.display(), errno_text(&error))),
        Ok(metadata) if metadata.is_dir() => Ok(()),
        Ok(_) => Err("not a directory".to_string()),
    };
    if !rule(linter, CRDS, is_directory) {
        return;
    }
    let chart = match loaded.take_for_rule(log) {
        Ok(chart) => chart,
        Err(message) => {
            rule(linter, CRDS, Err(message));
            return;
        }
    };
    for (_, file) in chart.crd_objects() {
        for document in decode_all(&file.text()) {
            match document {
                // Not YAML, or a template: the rule ends here, as Helm's does.
                Err(error) => {
                    rule(linter, &file.name, Err(format!("unable to parse YAML: {error}")));
                    return;
                }
                Ok(None) => {}
                Ok(Some(head)) => {
                    rule(linter, &file.name, api_version(&head));
                    rule(linter, &file.name, kind(&head));
                }
            }
        }
    }
}

/// `validateCrdAPIVersion`.
fn api_version(head: &Head) -> Result<(), String> {
    if head.api_version.starts_with("apiextensions.k8s.io") {
        Ok(())
    } else {
        Err("apiVersion is not in 'apiextensions.k8s.io'".into())
    }
}

/// `validateCrdKind`.
fn kind(head: &Head) -> Result<(), String> {
    if head.kind == "CustomResourceDefinition" {
        Ok(())
    } else {
        Err("object kind is not 'CustomResourceDefinition'".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crd_passes_and_anything_else_is_named() {
        let crd = Head {
            api_version: "apiextensions.k8s.io/v1".into(),
            kind: "CustomResourceDefinition".into(),
            ..Head::default()
        };
        assert_eq!((api_version(&crd), kind(&crd)), (Ok(()), Ok(())));
        let config_map = Head { api_version: "v1".into(), kind: "ConfigMap".into(), ..Head::default() };
        assert_eq!(api_version(&config_map), Err("apiVersion is not in 'apiextensions.k8s.io'".into()));
        assert_eq!(kind(&config_map), Err("object kind is not 'CustomResourceDefinition'".into()));
    }
}
