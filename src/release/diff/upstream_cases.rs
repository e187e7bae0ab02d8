//! helm-diff's own test expectations (`tests/data/helm_diff/cases.yaml`, ported from its `diff/diff_test.go`
//! and `diff/report_test.go`; the file's header names the commit) run against berth's port, case by case: the
//! golden outputs come from helm-diff's tables, not from berth.

use super::format::{self, OutputFormat, UserTemplate};
use super::lines;
use super::parse::{Index, MappingResult};
use super::redact::{self, SecretView};
use super::report::{self, ChangeType, CompareOptions, OwnershipChange, ReportEntry};
use serde_json::Value;
use std::collections::BTreeMap;

const CASES: &str = include_str!("../../../tests/data/helm_diff/cases.yaml");

fn text<'a>(case: &'a Value, field: &str) -> &'a str {
    case[field].as_str().unwrap_or_else(|| panic!("{}: `{field}` is text", case["name"]))
}

fn strings(value: &Value) -> Vec<String> {
    value.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
}

fn context(value: &Value) -> Option<usize> {
    value.as_u64().and_then(|context| usize::try_from(context).ok())
}

fn mapping(value: &Value) -> MappingResult {
    MappingResult {
        name: value["key"].as_str().unwrap_or_default().to_string(),
        kind: value["kind"].as_str().unwrap_or_default().to_string(),
        content: value["content"].as_str().unwrap_or_default().to_string(),
        resource_policy: value["resource_policy"].as_str().unwrap_or_default().to_string(),
    }
}

fn index(value: &Value) -> Index {
    value.as_array().into_iter().flatten().map(mapping).map(|mapping| (mapping.name.clone(), mapping)).collect()
}

fn output_format(name: &str) -> OutputFormat {
    match name {
        "simple" => OutputFormat::Simple,
        "template" => OutputFormat::Template,
        "json" => OutputFormat::Json,
        "structured" => OutputFormat::Structured,
        _ => OutputFormat::Diff,
    }
}

/// Runs one case and returns what berth printed (and, for `manifests`, whether it saw changes).
fn run(case: &Value) -> (String, Option<bool>) {
    match text(case, "test") {
        "lines" => {
            let diffs =
                lines::diff_strings(text(case, "before"), text(case, "after"), case["strip_trailing_cr"] == true);
            let entry = ReportEntry {
                key: String::new(),
                suppressed_kinds: Vec::new(),
                kind: "some-resource".to_string(),
                context: context(&case["context"]),
                diffs,
                change_type: ChangeType::Modify,
                structured: None,
            };
            (format::diff_records(&entry, false), None)
        }
        "suppress" => {
            let entry = ReportEntry {
                key: String::new(),
                suppressed_kinds: Vec::new(),
                kind: String::new(),
                context: None,
                diffs: lines::diff_strings(text(case, "before"), text(case, "after"), false),
                change_type: ChangeType::Modify,
                structured: None,
            };
            let patterns = strings(&case["regex"])
                .iter()
                .map(|pattern| berth_go::regexp::compile(pattern).expect("a pattern"))
                .collect::<Vec<_>>();
            let entries = report::suppress(vec![entry], &patterns);
            (entries.iter().map(|entry| format::diff_records(entry, false)).collect(), None)
        }
        "secrets" => {
            let view = if text(case, "view") == "decoded" { SecretView::Decoded } else { SecretView::Redacted };
            let (mut old, mut new) = (
                Some(&case["old"]).filter(|side| !side.is_null()).map(mapping),
                Some(&case["new"]).filter(|side| !side.is_null()).map(mapping),
            );
            redact::secrets(old.as_mut(), new.as_mut(), view);
            let content = |side: Option<MappingResult>| side.map(|side| side.content).unwrap_or_default();
            (format!("{}\u{0}{}", content(old), content(new)), None)
        }
        _ => {
            let options = &case["options"];
            let compare = CompareOptions {
                context: context(&options["context"]),
                strip_trailing_cr: options["strip_trailing_cr"] == true,
                show_secrets: options["show_secrets"] == true,
                show_secrets_decoded: options["show_secrets_decoded"] == true,
                suppressed_kinds: strings(&options["suppressed_kinds"]),
                find_renames: options["find_renames"].as_f64().unwrap_or(0.0) as f32,
                suppressed_output_line_regex: strings(&options["suppress_output_line_regex"]),
                structured: options["output"] == "structured",
            };
            let owners: BTreeMap<String, OwnershipChange> = case["owners"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|owner| {
                    let change = OwnershipChange {
                        old_release: text(owner, "old_release").to_string(),
                        new_release: text(owner, "new_release").to_string(),
                    };
                    (text(owner, "key").to_string(), change)
                })
                .collect();
            let (mut old, mut new) = (index(&case["old"]), index(&case["new"]));
            let report = report::generate(&mut old, &mut new, &owners, &compare).expect("a report");
            let template = case.get("template").map(|template| UserTemplate {
                name: text(template, "name").to_string(),
                text: text(template, "text").to_string(),
            });
            let format = output_format(options["output"].as_str().unwrap_or_default());
            let printed = format::print(&report, format, false, template.as_ref()).expect("printed");
            (printed, Some(report.changed))
        }
    }
}

#[test]
fn berth_prints_what_helm_diff_expects_in_every_upstream_case() {
    let file: Value = serde_saphyr::from_str(CASES).expect("cases.yaml parses");
    let cases = file["cases"].as_array().expect("a list of cases");
    assert!(cases.len() >= 50, "every ported case is read: {}", cases.len());
    let mut failures = Vec::new();
    for case in cases {
        let name = text(case, "name");
        let (printed, changed) = run(case);
        if let (Some(expected), Some(changed)) = (case["changes"].as_bool(), changed)
            && expected != changed
        {
            failures.push(format!("{name}: changes seen {changed}, upstream expects {expected}"));
        }
        if let Some(expected) = case["expected"].as_str() {
            let same = if case["json_equal"] == true {
                serde_json::from_str::<Value>(&printed).ok() == serde_json::from_str::<Value>(expected).ok()
            } else {
                printed == expected
            };
            if !same {
                failures.push(format!("{name}:\n--- expected\n{expected:?}\n--- printed\n{printed:?}"));
            }
        }
        let (old, new) = printed.split_once('\u{0}').unwrap_or((&printed, ""));
        for (field, shown) in [("contains", printed.as_str()), ("old_contains", old), ("new_contains", new)] {
            for wanted in strings(&case[field]) {
                if !shown.contains(&wanted) {
                    failures.push(format!("{name}: {field} {wanted:?} not in\n{shown}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}
