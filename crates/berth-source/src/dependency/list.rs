//! `helm dependency list` (pkg/action/dependency.go): each dependency of `Chart.yaml` with the status of what
//! `charts/` holds for it (`ok`, `missing`, `wrong version`, `unpacked`, ...), in Helm's uitable layout, and the
//! warnings for archives that are no chart or not asked for.

use super::other;
use crate::error::SourceError;
use berth_chart::chart::{Chart, Dependency};
use berth_sprig::semver::{Constraints, Version};
use std::path::{Path, PathBuf};

/// `helm dependency list`: the table and warnings Helm prints.
pub fn list(chart_path: &Path) -> Result<String, SourceError> {
    let chart = berth_chart::load::load(chart_path).map_err(|error| other(error.to_string()))?.chart;
    let charts_dir = chart_path.join("charts");
    if !chart.metadata.has_dependency_list {
        return Ok(format!("WARNING: no dependencies at {}\n", charts_dir.display()));
    }
    let mut rows = vec![["NAME".to_string(), "VERSION".to_string(), "REPOSITORY".to_string(), "STATUS".to_string()]];
    for dependency in &chart.metadata.dependencies {
        rows.push([
            dependency.name.clone(),
            dependency.version.clone(),
            dependency.repository.clone(),
            status(chart_path, dependency, &chart),
        ]);
    }
    let mut out = uitable(&rows);
    out.push_str("\n\n");
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(&charts_dir).into_iter().flatten().filter_map(Result::ok).map(|entry| entry.path()).collect();
    entries.sort();
    for path in entries {
        let is_dir = path.is_dir();
        if !is_dir && path.extension().is_none_or(|extension| extension != "tgz") {
            continue;
        }
        match berth_chart::load::load(&path) {
            Err(_) => out.push_str(&format!("WARNING: {:?} is not a chart.\n", path.display().to_string())),
            Ok(loaded) => {
                if !chart.metadata.dependencies.iter().any(|dependency| dependency.name == loaded.chart.name()) {
                    out.push_str(&format!("WARNING: {:?} is not in Chart.yaml.\n", path.display().to_string()));
                }
            }
        }
    }
    Ok(out)
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
        return match berth_chart::load::load(archive) {
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

/// gosuri/uitable as Helm prints its tables: every cell padded to its column's width (80 at most), columns joined
/// by a tab.
pub fn uitable<const N: usize>(rows: &[[String; N]]) -> String {
    let cell = |text: &str| -> String { text.chars().take(80).collect() };
    let widths: Vec<usize> =
        (0..N).map(|column| rows.iter().map(|row| cell(&row[column]).chars().count()).max().unwrap_or(0)).collect();
    rows.iter()
        .map(|row| {
            row.iter()
                .enumerate()
                .map(|(column, text)| format!("{:<width$}", cell(text), width = widths[column]))
                .collect::<Vec<_>>()
                .join("\t")
        })
        .collect::<Vec<_>>()
        .join("\n")
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

    #[test]
    fn tables_pad_every_column() {
        let rows = [
            ["NAME".to_string(), "VERSION".into(), "REPOSITORY".into(), "STATUS".into()],
            ["sub".to_string(), "1.0.0".into(), "file://../sub".into(), "ok".into()],
        ];
        assert_eq!(uitable(&rows), "NAME\tVERSION\tREPOSITORY   \tSTATUS\nsub \t1.0.0  \tfile://../sub\tok    ");
    }
}
