//! The dependencies rule (helm pkg/chart/v2/lint/rules/dependencies.go): the chart loads, every subchart in
//! `charts/` is declared in `Chart.yaml` (an [ERROR]), no two declarations share a name or alias, and every
//! declared dependency is in `charts/` (a [WARNING]: `helm dependency build` fetches it). Its messages name the
//! chart by its absolute directory, as Helm's do.

use super::Loaded;
use super::message::{Family, Linter, Severity};
use berth_chart::chart::Chart;
use std::path::Path;

/// Helm's `Dependencies` rule.
pub(super) fn lint(linter: &mut Linter, chart_dir: &Path, loaded: &Loaded, log: &mut Vec<String>) {
    let chart = match loaded.take_for_rule(log) {
        Ok(chart) => chart,
        Err(message) => {
            linter.rule(Family::Dependencies, Severity::Error, "", Err(format!("unable to load chart\n\t{message}")));
            return;
        }
    };
    let path = chart_dir.to_string_lossy();
    linter.rule(Family::Dependencies, Severity::Error, &path, declared(chart));
    linter.rule(Family::Dependencies, Severity::Error, &path, unique(chart));
    linter.rule(Family::Dependencies, Severity::Warning, &path, present(chart));
}

/// `validateDependencyInMetadata`: every subchart in `charts/` is declared.
fn declared(chart: &Chart) -> Result<(), String> {
    let missing: Vec<&str> = chart
        .dependencies
        .iter()
        .map(Chart::name)
        .filter(|name| !chart.metadata.dependencies.iter().any(|dependency| dependency.name == *name))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!("chart metadata is missing these dependencies: {}", missing.join(",")))
    }
}

/// `validateDependenciesUnique`: names (or aliases) declared once.
fn unique(chart: &Chart) -> Result<(), String> {
    let mut seen: Vec<&str> = Vec::new();
    let mut shadowing: Vec<&str> = Vec::new();
    for dependency in &chart.metadata.dependencies {
        let key = if dependency.alias.is_empty() { dependency.name.as_str() } else { dependency.alias.as_str() };
        if seen.contains(&key) {
            shadowing.push(key);
        }
        seen.push(key);
    }
    if shadowing.is_empty() {
        Ok(())
    } else {
        Err(format!("multiple dependencies with name or alias: {}", shadowing.join(",")))
    }
}

/// `validateDependencyInChartsDir`: every declared dependency is in `charts/`.
fn present(chart: &Chart) -> Result<(), String> {
    let missing: Vec<&str> = chart
        .metadata
        .dependencies
        .iter()
        .map(|dependency| dependency.name.as_str())
        .filter(|name| !chart.dependencies.iter().any(|subchart| subchart.name() == *name))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!("chart directory is missing these dependencies: {}", missing.join(",")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use berth_chart::chart::{Dependency, Metadata};

    fn chart(name: &str, declared: &[(&str, &str)], subcharts: &[&str]) -> Chart {
        let dependencies = declared
            .iter()
            .map(|(name, alias)| Dependency {
                name: name.to_string(),
                alias: alias.to_string(),
                ..Dependency::default()
            })
            .collect();
        Chart {
            metadata: Metadata { name: name.into(), dependencies, ..Metadata::default() },
            dependencies: subcharts.iter().map(|name| chart(name, &[], &[])).collect(),
            ..Chart::default()
        }
    }

    #[test]
    fn declarations_and_subcharts_must_agree() {
        let top = chart("top", &[("db", ""), ("cache", "memory")], &["db", "stray"]);
        assert_eq!(declared(&top), Err("chart metadata is missing these dependencies: stray".into()));
        assert_eq!(present(&top), Err("chart directory is missing these dependencies: cache".into()));
        assert_eq!(unique(&top), Ok(()));
        let twice = chart("top", &[("a", ""), ("b", "a"), ("c", "a")], &[]);
        assert_eq!(unique(&twice), Err("multiple dependencies with name or alias: a,a".into()));
    }
}
