//! `helm dependency list` (pkg/action/dependency.go): each dependency of `Chart.yaml` with the status of what
//! `charts/` holds for it (`ok`, `missing`, `wrong version`, `unpacked`, ...), in Helm's uitable layout, and the
//! warnings for archives that are no chart or not asked for.

use super::other;
use crate::error::SourceError;
use berth_chart::chart::{Chart, Dependency};
use berth_sprig::semver::{Constraints, Version};
use std::path::{Path, PathBuf};

/// What `helm dependency list` prints, for the caller to lay out as Helm's table (uitable with the column width
/// of `--max-col-width`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DependencyList {
    /// `Chart.yaml` lists no dependencies: Helm's one warning, naming `charts/`.
    NoDependencies(String),
    /// The table's rows, the header first, and the warnings printed after it (archives in `charts/` that are no
    /// chart or that `Chart.yaml` does not ask for).
    Listed { rows: Vec<Vec<String>>, warnings: Vec<String> },
}

/// `helm dependency list` (`printDependencies`, `printMissing`).
pub fn list(chart_path: &Path) -> Result<DependencyList, SourceError> {
    let chart = berth_chart::load::load_v2(chart_path).map_err(|error| other(error.to_string()))?.chart;
    let charts_dir = chart_path.join("charts");
    if !chart.metadata.has_dependency_list {
        return Ok(DependencyList::NoDependencies(format!("WARNING: no dependencies at {}", charts_dir.display())));
    }
    let mut rows =
        vec![vec!["NAME".to_string(), "VERSION".to_string(), "REPOSITORY".to_string(), "STATUS".to_string()]];
    for dependency in &chart.metadata.dependencies {
        rows.push(vec![
            dependency.name.clone(),
            dependency.version.clone(),
            dependency.repository.clone(),
            status(chart_path, dependency, &chart),
        ]);
    }
    let mut warnings = Vec::new();
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(&charts_dir).into_iter().flatten().filter_map(Result::ok).map(|entry| entry.path()).collect();
    entries.sort();
    for path in entries {
        let is_dir = path.is_dir();
        if !is_dir && path.extension().is_none_or(|extension| extension != "tgz") {
            continue;
        }
        match berth_chart::load::load_v2(&path) {
            Err(_) => warnings.push(format!("WARNING: {:?} is not a chart.", path.display().to_string())),
            Ok(loaded) => {
                if !chart.metadata.dependencies.iter().any(|dependency| dependency.name == loaded.chart.name()) {
                    warnings.push(format!("WARNING: {:?} is not in Chart.yaml.", path.display().to_string()));
                }
            }
        }
    }
    Ok(DependencyList::Listed { rows, warnings })
}

/// `dependencyStatus`.
fn status(chart_path: &Path, dependency: &Dependency, parent: &Chart) -> String {
    let prefix = format!("{}-", dependency.name);
    let archives: Vec<PathBuf> = std::fs::read_dir(chart_path.join("charts"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with(&prefix) && name.ends_with(".tgz"))
        })
        .collect();
    let candidates: Vec<&PathBuf> = if archives.len() > 1 {
        archives
            .iter()
            .filter(|path| {
                let stem = path.file_name().and_then(|name| name.to_str()).unwrap_or_default();
                Version::parse_strict(stem.trim_end_matches(".tgz").trim_start_matches(&prefix)).is_ok()
            })
            .collect()
    } else {
        archives.iter().collect()
    };
    if archives.len() > 1 && candidates.len() > 1 {
        return "too many matches".to_string();
    }
    if let Some(archive) = candidates.first() {
        return match berth_chart::load::load_v2(archive) {
            Err(_) => "corrupt".to_string(),
            Ok(loaded) if loaded.chart.name() != dependency.name => "misnamed".to_string(),
            Ok(loaded) => {
                version_status(&loaded.chart.metadata.version, &dependency.version).unwrap_or_else(|| "ok".to_string())
            }
        };
    }
    match parent.dependencies.iter().rev().find(|child| child.name() == dependency.name) {
        None => "missing".to_string(),
        Some(child) => {
            version_status(&child.metadata.version, &dependency.version).unwrap_or_else(|| "unpacked".to_string())
        }
    }
}

/// `invalid version` / `wrong version` when `version` does not meet `constraint`.
fn version_status(version: &str, constraint: &str) -> Option<String> {
    if version == constraint {
        return None;
    }
    let Ok(parsed_constraint) = Constraints::parse(constraint) else { return Some("invalid version".to_string()) };
    let Ok(parsed) = Version::parse(version) else { return Some("invalid version".to_string()) };
    (!parsed_constraint.check(&parsed)).then(|| "wrong version".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_meet_constraints_as_helm_reports_them() {
        assert_eq!(version_status("1.2.0", "^1.0.0"), None);
        assert_eq!(version_status("1.2.0", "1.2.0"), None);
        assert_eq!(version_status("2.0.0", "^1.0.0").as_deref(), Some("wrong version"));
        assert_eq!(version_status("x", "^1.0.0").as_deref(), Some("invalid version"));
    }
}
