//! Helm's coalescing of values (pkg/chart/common/util/coalesce.go): a chart's defaults under the user's values,
//! subcharts' defaults under their key, globals copied from parent to child, and `null` deleting a default
//! (`CoalesceValues`) or kept (`MergeValues`, used while importing values).
//!
//! Go mutates maps in place and shares them between trees in places (`copyMap` of globals is shallow); the
//! port works on [`Map`] handles, which share as Go maps do, so the results match Helm's even where sharing is
//! observable. The table merge is iterative, so value depth cannot overflow the stack.

use std::collections::BTreeSet;

use berth_go::{Map, Value};

use crate::chart::Chart;
use crate::go::format_t;
use berth_go::strconv::quote;

/// `common.GlobalKey`.
pub(crate) const GLOBAL_KEY: &str = "global";

/// Collects what Helm logs while processing dependencies and coalescing, as its log lines.
#[derive(Debug, Default)]
pub(crate) struct Warnings(pub Vec<String>);

impl Warnings {
    /// A `log.Printf` line (Helm routes it to its handler at level INFO).
    pub(crate) fn push(&mut self, message: String) {
        self.0.push(crate::go::slog_line("INFO", &message, &[]));
    }

    /// A `slog.Warn` line with its attributes.
    pub(crate) fn warn(&mut self, message: &str, attrs: &[(&str, &str)]) {
        self.0.push(crate::go::slog_line("WARN", message, attrs));
    }
}

fn concat_prefix(a: &str, b: &str) -> String {
    if a.is_empty() { b.to_string() } else { format!("{a}.{b}") }
}

/// How many maps and lists one copy may visit: values have no cycles, but maps changed through shared handles
/// could; a copy that visits this many containers stops with an error instead of running forever.
const MAX_COPIED_CONTAINERS: usize = 20_000_000;

/// A deep copy of a values map (`copystructure.Copy`); `None` and non-maps give an empty map. Iterative, so
/// values of any depth are copied (Helm copies them too) without growing the stack.
pub(crate) fn copy_values(values: &Value) -> Result<Map, String> {
    match deep_copy(values)? {
        Value::Map(map) => Ok(map),
        _ => Ok(Map::new()),
    }
}

/// Copies every map and list of `value`; leaves are shared.
pub(crate) fn deep_copy(value: &Value) -> Result<Value, String> {
    enum Frame {
        Map(std::vec::IntoIter<(std::sync::Arc<str>, Value)>, berth_go::Entries, Option<std::sync::Arc<str>>),
        List(std::vec::IntoIter<Value>, Vec<Value>),
    }
    fn open(value: &Value) -> Option<Frame> {
        match value {
            Value::Map(map) => {
                let entries: Vec<_> = map.snapshot().iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                Some(Frame::Map(entries.into_iter(), berth_go::Entries::new(), None))
            }
            Value::List(items) => {
                let pending: Vec<Value> = items.iter().cloned().collect();
                Some(Frame::List(pending.into_iter(), Vec::with_capacity(items.len())))
            }
            _ => None,
        }
    }
    let Some(root) = open(value) else {
        return Ok(value.clone());
    };
    let mut stack = vec![root];
    let mut visited = 1usize;
    loop {
        let Some(frame) = stack.last_mut() else {
            return Ok(Value::Nil);
        };
        // The next child of the innermost container, or that container finished.
        let next = match frame {
            Frame::Map(pending, _, key) => pending.next().map(|(k, v)| {
                *key = Some(k);
                v
            }),
            Frame::List(pending, _) => pending.next(),
        };
        match next {
            Some(child) => match open(&child) {
                Some(inner) => {
                    visited += 1;
                    if visited > MAX_COPIED_CONTAINERS {
                        return Err(format!("values hold more than {MAX_COPIED_CONTAINERS} maps and lists"));
                    }
                    stack.push(inner);
                }
                None => attach(&mut stack, child),
            },
            None => {
                let done = match stack.pop() {
                    Some(Frame::Map(_, entries, _)) => Value::Map(Map::from_entries(entries)),
                    Some(Frame::List(_, items)) => Value::List(items.into()),
                    None => Value::Nil,
                };
                if stack.is_empty() {
                    return Ok(done);
                }
                attach(&mut stack, done);
            }
        }
    }

    fn attach(stack: &mut [Frame], value: Value) {
        match stack.last_mut() {
            Some(Frame::Map(_, entries, key)) => {
                if let Some(key) = key.take() {
                    entries.insert(key, value);
                }
            }
            Some(Frame::List(_, items)) => items.push(value),
            None => {}
        }
    }
}

/// `CoalesceValues`: the user's values (copied first) over the chart's and its subcharts' defaults; a `null`
/// from the user deletes the default.
pub(crate) fn coalesce_values(chart: &Chart, values: &Value, warnings: &mut Warnings) -> Result<Map, String> {
    let copy = copy_values(values)?;
    coalesce(chart, copy, "", false, warnings)
}

/// `MergeValues`: as [`coalesce_values`], keeping `null`s.
pub(crate) fn merge_values(chart: &Chart, values: &Value, warnings: &mut Warnings) -> Result<Map, String> {
    let copy = copy_values(values)?;
    coalesce(chart, copy, "", true, warnings)
}

fn coalesce(chart: &Chart, dest: Map, prefix: &str, merge: bool, warnings: &mut Warnings) -> Result<Map, String> {
    coalesce_chart_values(chart, &dest, prefix, merge, warnings)?;
    coalesce_dependencies(chart, dest, prefix, merge, warnings)
}

/// `coalesceDeps`.
fn coalesce_dependencies(
    chart: &Chart,
    dest: Map,
    prefix: &str,
    merge: bool,
    warnings: &mut Warnings,
) -> Result<Map, String> {
    for subchart in &chart.dependencies {
        let name = subchart.name();
        let sub_values = match dest.get(name) {
            None => {
                let fresh = Map::new();
                dest.insert(name, Value::Map(fresh.clone()));
                fresh
            }
            Some(Value::Map(map)) => map,
            Some(other) => return Err(format!("type mismatch on {name}: {}", format_t(&other))),
        };
        let sub_prefix = concat_prefix(prefix, chart.name());
        coalesce_globals(&sub_values, &dest, &sub_prefix, warnings);
        let result = coalesce(subchart, sub_values, &sub_prefix, merge, warnings)?;
        dest.insert(name, Value::Map(result));
    }
    Ok(dest)
}

/// `coalesceGlobals`: the globals of `src` merged into those of `dest` (`dest`'s own win for tables).
fn coalesce_globals(dest: &Map, src: &Map, prefix: &str, warnings: &mut Warnings) {
    let dest_globals = match dest.get(GLOBAL_KEY) {
        None => Map::new(),
        Some(Value::Map(map)) => map,
        Some(_) => {
            warnings.push(format!("warning: skipping globals because destination {GLOBAL_KEY} is not a table."));
            return;
        }
    };
    let src_globals = match src.get(GLOBAL_KEY) {
        None => Map::new(),
        Some(Value::Map(map)) => map,
        Some(_) => {
            warnings.push(format!("warning: skipping globals because source {GLOBAL_KEY} is not a table."));
            return;
        }
    };
    for (key, value) in src_globals.snapshot().iter() {
        if let Value::Map(table) = value {
            let copy = table.shallow_copy();
            match dest_globals.get(key) {
                None => {
                    dest_globals.insert(key.clone(), Value::Map(copy));
                }
                Some(Value::Map(dest_table)) => {
                    coalesce_tables(&copy, &dest_table, &concat_prefix(prefix, key), true, warnings);
                    dest_globals.insert(key.clone(), Value::Map(copy));
                }
                Some(_) => {
                    warnings.push(format!("Conflict: cannot merge map onto non-map for {}. Skipping.", quote(key)));
                }
            }
        } else if let Some(Value::Map(_)) = dest_globals.get(key) {
            warnings.push(format!("key {key} is table. Skipping"));
        } else {
            dest_globals.insert(key.clone(), value.clone());
        }
    }
    dest.insert(GLOBAL_KEY, Value::Map(dest_globals));
}

/// `coalesceValues`: the chart's own defaults (a copy) merged under `values`.
fn coalesce_chart_values(
    chart: &Chart,
    values: &Map,
    prefix: &str,
    merge: bool,
    warnings: &mut Warnings,
) -> Result<(), String> {
    let sub_prefix = concat_prefix(prefix, chart.name());
    let defaults = copy_values(&chart.values)?;
    for (key, default) in defaults.snapshot().iter() {
        match values.get(key) {
            Some(Value::Nil) if !merge => {
                // A user null removes the key (and so the default).
                values.remove(key);
            }
            Some(Value::Map(dest)) => match default {
                Value::Map(src) => {
                    let merge = merge || chart.dependencies.iter().any(|sub| sub.name() == &**key);
                    coalesce_tables(&dest, src, &concat_prefix(&sub_prefix, key), merge, warnings);
                }
                Value::Nil => {}
                _ => warnings.push(format!("warning: skipped value for {sub_prefix}.{key}: Not a table.")),
            },
            Some(_) => {}
            None => {
                values.insert(key.clone(), default.clone());
            }
        }
    }
    Ok(())
}

/// `CoalesceTables` (`merge` false) and `MergeTables` (`merge` true): `src` merged into `dst`, `dst`
/// authoritative. Returns `dst`.
pub(crate) fn coalesce_tables(dst: &Map, src: &Map, prefix: &str, merge: bool, warnings: &mut Warnings) {
    // Go recurses into nested tables; a work list keeps deep values off the stack.
    let mut work = vec![(dst.clone(), src.clone(), prefix.to_string())];
    while let Some((dst, src, prefix)) = work.pop() {
        let mut nested = Vec::new();
        let original_non_nil: BTreeSet<_> =
            src.snapshot().iter().filter(|(_, v)| !matches!(v, Value::Nil)).map(|(k, _)| k.clone()).collect();
        for (key, value) in dst.snapshot().iter() {
            if matches!(value, Value::Nil) {
                src.insert(key.clone(), Value::Nil);
            }
        }
        for (key, value) in src.snapshot().iter() {
            let full_key = concat_prefix(&prefix, key);
            match dst.get(key) {
                Some(Value::Nil) if !merge && original_non_nil.contains(key) => {
                    // The user nulls a default: the key goes.
                    dst.remove(key);
                }
                None => {
                    dst.insert(key.clone(), value.clone());
                }
                Some(existing) => {
                    if let Value::Map(src_table) = value {
                        if let Value::Map(dst_table) = existing {
                            nested.push((dst_table, src_table.clone(), full_key));
                        } else {
                            warnings.push(format!(
                                "warning: cannot overwrite table with non table for {full_key} ({value})"
                            ));
                        }
                    } else if matches!(existing, Value::Map(_)) && !matches!(value, Value::Nil) {
                        warnings.push(format!(
                            "warning: destination for {full_key} is a table. Ignoring non-table value ({value})"
                        ));
                    }
                }
            }
        }
        // Go finishes a nested table before the next key; pushing in reverse keeps that order.
        work.extend(nested.into_iter().rev());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::Metadata;

    fn yaml(text: &str) -> Value {
        berth_goyaml::load_values(text).unwrap()
    }

    fn chart(name: &str, values: &str, dependencies: Vec<Chart>) -> Chart {
        Chart {
            metadata: Metadata { name: name.into(), ..Metadata::default() },
            values: yaml(values),
            dependencies,
            ..Chart::default()
        }
    }

    fn render(map: &Map) -> String {
        Value::Map(map.clone()).to_string()
    }

    #[test]
    fn user_values_win_and_nulls_delete_defaults() {
        let sub = chart("sub", "a: 1\nb: 2\nnested: {x: 1, y: 2}\n", vec![]);
        let top = chart("top", "keep: 1\ngone: 2\nsub: {b: 3}\n", vec![sub]);
        let mut warnings = Warnings::default();
        let values = yaml("gone: null\nsub: {a: null, nested: {y: null}}\n");
        let out = coalesce_values(&top, &values, &mut warnings).unwrap();
        assert_eq!(render(&out), "map[keep:1 sub:map[b:3 global:map[] nested:map[x:1]]]");
    }

    #[test]
    fn merge_keeps_nulls() {
        let top = chart("top", "gone: 2\n", vec![]);
        let mut warnings = Warnings::default();
        let out = merge_values(&top, &yaml("gone: null\n"), &mut warnings).unwrap();
        assert_eq!(render(&out), "map[gone:<nil>]");
    }

    #[test]
    fn globals_flow_from_parent_to_child() {
        let sub = chart("sub", "global: {a: child, c: 3}\n", vec![]);
        let top = chart("top", "global: {a: parent, b: 2}\n", vec![sub]);
        let mut warnings = Warnings::default();
        let out = coalesce_values(&top, &yaml("{}"), &mut warnings).unwrap();
        assert_eq!(render(&out), "map[global:map[a:parent b:2] sub:map[global:map[a:parent b:2 c:3]]]");
    }

    #[test]
    fn type_mismatch_on_a_subchart_key() {
        let sub = chart("sub", "", vec![]);
        let top = chart("top", "", vec![sub]);
        let mut warnings = Warnings::default();
        let error = coalesce_values(&top, &yaml("sub: x\n"), &mut warnings).unwrap_err();
        assert_eq!(error, "type mismatch on sub: %!t(string=x)");
    }

    #[test]
    fn warnings_for_tables_against_scalars() {
        let top = chart("top", "t: {a: 1}\ns: 1\n", vec![]);
        let mut warnings = Warnings::default();
        let out = coalesce_values(&top, &yaml("t: 5\ns: {b: 1}\n"), &mut warnings).unwrap();
        assert_eq!(render(&out), "map[s:map[b:1] t:5]");
        assert_eq!(warnings.0, ["level=INFO msg=\"warning: skipped value for top.s: Not a table.\""]);
    }

    #[test]
    fn deep_values_copy_without_recursion() {
        let mut deep = Value::Float(1.0);
        for i in 0..100_000 {
            deep = if i % 2 == 0 { Value::map([("k", deep)]) } else { Value::list([deep, Value::Nil]) };
        }
        let copy = deep_copy(&deep).unwrap();
        // Walk both side by side: every level copied (not shared), the leaf the same.
        let (mut a, mut b) = (copy, deep);
        let mut levels = 0;
        loop {
            let (next_a, next_b) = match (&a, &b) {
                (Value::Map(x), Value::Map(y)) => {
                    assert!(!x.ptr_eq(y));
                    (x.get("k").unwrap(), y.get("k").unwrap())
                }
                (Value::List(x), Value::List(y)) => {
                    assert!(!x.ptr_eq(y));
                    (x[0].clone(), y[0].clone())
                }
                (leaf_a, leaf_b) => {
                    assert_eq!(leaf_a, leaf_b);
                    break;
                }
            };
            a = next_a;
            b = next_b;
            levels += 1;
        }
        assert_eq!(levels, 100_000);
    }

    #[test]
    fn deep_tables_merge_without_recursion() {
        let mut deep = Value::Float(1.0);
        let mut other = Value::Float(2.0);
        for _ in 0..100_000 {
            deep = Value::map([("k", deep)]);
            other = Value::map([("k", other), ("j", Value::Nil)]);
        }
        let (Value::Map(dst), Value::Map(src)) = (deep, other) else { panic!("both are maps") };
        coalesce_tables(&dst, &src, "", false, &mut Warnings::default());
        assert!(dst.contains_key("j"));
    }
}
