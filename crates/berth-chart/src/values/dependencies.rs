//! Helm's dependency processing (pkg/chart/v2/util/dependencies.go `ProcessDependencies`): aliases (a subchart
//! copied under another name, possibly twice), `tags` and `condition` deciding which subcharts stay, disabled
//! ones removed, then `import-values` (child paths, `exports`) merged into each parent's values, bottom-up.

use berth_go::{Map, Value};

use super::coalesce::{Warnings, coalesce_tables, coalesce_values, copy_values, merge_values};
use super::table::{PathError, path_value, table};
use crate::chart::{Chart, Dependency};
use crate::load::semver::is_compatible_range;

/// `ProcessDependencies`: `chart` is changed in place as Helm changes it.
pub(crate) fn process_dependencies(chart: &mut Chart, values: &Value, warnings: &mut Warnings) -> Result<(), String> {
    process_enabled(chart, values, "", warnings)?;
    process_import_values_tree(chart, warnings)
}

/// `getAliasDependency`: the first loaded subchart with the dependency's name and a version in its range, copied
/// and renamed to the alias.
fn alias_dependency(charts: &[Chart], dependency: &Dependency) -> Option<Chart> {
    let found = charts
        .iter()
        .find(|c| c.name() == dependency.name && is_compatible_range(&dependency.version, &c.metadata.version))?;
    let mut copy = found.clone();
    if !dependency.alias.is_empty() {
        copy.metadata.name = dependency.alias.clone();
    }
    Some(copy)
}

/// `processDependencyEnabled`.
fn process_enabled(chart: &mut Chart, values: &Value, path: &str, warnings: &mut Warnings) -> Result<(), String> {
    if !chart.metadata.has_dependency_list {
        return Ok(());
    }
    let loaded = std::mem::take(&mut chart.dependencies);
    // Subcharts no dependency entry names (with a matching version) are kept as they are.
    let mut dependencies: Vec<Chart> =
        loaded
            .iter()
            .filter(|existing| {
                !chart.metadata.dependencies.iter().any(|req| {
                    existing.name() == req.name && is_compatible_range(&req.version, &existing.metadata.version)
                })
            })
            .cloned()
            .collect();
    for req in &mut chart.metadata.dependencies {
        if let Some(copy) = alias_dependency(&loaded, req) {
            dependencies.push(copy);
        }
        if !req.alias.is_empty() {
            req.name = req.alias.clone();
        }
    }
    chart.dependencies = dependencies;
    for req in &mut chart.metadata.dependencies {
        req.enabled = true;
    }
    let coalesced = coalesce_values(chart, values, warnings)?;
    process_tags(&mut chart.metadata.dependencies, &coalesced, warnings);
    process_conditions(&mut chart.metadata.dependencies, &coalesced, path, warnings);

    let disabled: Vec<String> =
        chart.metadata.dependencies.iter().filter(|r| !r.enabled).map(|r| r.name.clone()).collect();
    chart.dependencies.retain(|c| !disabled.iter().any(|name| name == c.name()));
    chart.metadata.dependencies.retain(|r| !disabled.contains(&r.name));
    // `append(nil, cdMetadata...)`: no dependency left means no list.
    chart.metadata.has_dependency_list = !chart.metadata.dependencies.is_empty();

    let coalesced = Value::Map(coalesced);
    for subchart in &mut chart.dependencies {
        let sub_path = format!("{path}{}.", subchart.name());
        process_enabled(subchart, &coalesced, &sub_path, warnings)?;
    }
    Ok(())
}

/// `processDependencyTags`: a dependency is disabled when it has a false tag and no true one.
fn process_tags(reqs: &mut [Dependency], values: &Map, warnings: &mut Warnings) {
    let Ok(tags) = table(values, "tags") else {
        return;
    };
    for req in reqs {
        let (mut has_true, mut has_false) = (false, false);
        for tag in &req.tags {
            match tags.get(tag) {
                Some(Value::Bool(true)) => has_true = true,
                Some(Value::Bool(false)) => has_false = true,
                Some(_) => warnings.warn("returned non-bool value", &[("tag", tag), ("chart", &req.name)]),
                None => {}
            }
        }
        if !has_true && has_false {
            req.enabled = false;
        } else if has_true || !has_false {
            req.enabled = true;
        }
    }
}

/// `processDependencyConditions`: the first condition path holding a bool decides.
fn process_conditions(reqs: &mut [Dependency], values: &Map, path: &str, warnings: &mut Warnings) {
    for req in reqs {
        for condition in req.condition.trim_matches(berth_go::strings::is_space).split(',') {
            if condition.is_empty() {
                continue;
            }
            match path_value(values, &format!("{path}{condition}")) {
                Ok(Value::Bool(enabled)) => {
                    req.enabled = enabled;
                    break;
                }
                Ok(_) => warnings.warn("returned non-bool value", &[("path", condition), ("chart", &req.name)]),
                Err(PathError::NoValue(_)) => {}
                Err(error) => {
                    warnings.warn("the method PathValue returned error", &[("error", &error.to_string())]);
                }
            }
        }
    }
}

/// `processDependencyImportValues`: children first, then the chart itself.
fn process_import_values_tree(chart: &mut Chart, warnings: &mut Warnings) -> Result<(), String> {
    for subchart in &mut chart.dependencies {
        process_import_values_tree(subchart, warnings)?;
    }
    process_import_values(chart, warnings)
}

/// `pathToMap`: `data` nested under the dotted `path` (`.` is the top).
fn path_to_map(path: &str, data: Map) -> Map {
    if path == "." {
        return data;
    }
    let mut current = data;
    for part in path.split('.').rev() {
        current = [(part, Value::Map(current))].into_iter().collect();
    }
    current
}

/// `fmt.Sprintf("%v", x)` of an `import-values` map field.
fn go_sprint(value: Option<Value>) -> String {
    match value {
        None => "<nil>".to_string(),
        Some(value) => value.to_string(),
    }
}

/// `processImportValues` with `merge` true, as `ProcessDependencies` calls it.
fn process_import_values(chart: &mut Chart, warnings: &mut Warnings) -> Result<(), String> {
    if !chart.metadata.has_dependency_list {
        return Ok(());
    }
    let values = merge_values(chart, &Value::Nil, warnings)?;
    let imported = Map::new();
    for req in &mut chart.metadata.dependencies {
        let mut rewritten = Vec::new();
        for entry in &req.import_values {
            match entry {
                Value::Map(map) => {
                    let child = go_sprint(map.get("child"));
                    let parent = go_sprint(map.get("parent"));
                    rewritten.push(crate::load::string_pair(&child, &parent));
                    match table(&values, &format!("{}.{child}", req.name)) {
                        Ok(found) => {
                            coalesce_tables(&imported, &path_to_map(&parent, found), "", true, warnings);
                        }
                        Err(error) => {
                            warnings.warn(
                                "ImportValues missing table from chart",
                                &[("chart", &req.name), ("error", &error)],
                            );
                        }
                    }
                }
                Value::String(name) => {
                    let child = format!("exports.{name}");
                    rewritten.push(crate::load::string_pair(&child, "."));
                    match table(&values, &format!("{}.{child}", req.name)) {
                        Ok(found) => coalesce_tables(&imported, &found, "", true, warnings),
                        Err(error) => warnings.warn("ImportValues missing table", &[("error", &error)]),
                    }
                }
                _ => {}
            }
        }
        req.import_values = rewritten;
    }
    // Imported values rank below the chart's own: `b` goes under a deep copy of them.
    let copy = copy_values(&Value::Map(values))?;
    coalesce_tables(&copy, &imported, "", true, warnings);
    chart.values = Value::Map(copy);
    Ok(())
}
