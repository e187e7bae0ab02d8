//! The expectations of helm-diff's dyff tests (`diff/report_test.go`, `TestPrintDyffReport*`) and of dyff's own
//! (`pkg/dyff/compare_test.go`, `output_human_test.go` with the files under `assets/`, dyff v1.12.0), each case
//! naming the test it comes from. dyff's human goldens are written with `Indent: 2` and four lines of context
//! around multi-line changes; helm-diff sets neither, so the expected texts here are those goldens laid out as
//! `HumanReport`'s code lays them out with helm-diff's fields (no indent, no context lines).

use super::{Printed, compare_and_write, print};
use crate::release::diff::lines::{Delta, DiffRecord};
use crate::release::diff::report::{ChangeType, Report, ReportEntry};

fn record(payload: &str, delta: Delta) -> DiffRecord {
    DiffRecord { payload: payload.to_string(), delta }
}

fn entry(key: &str, change_type: ChangeType, diffs: Vec<DiffRecord>) -> ReportEntry {
    ReportEntry {
        key: key.to_string(),
        suppressed_kinds: Vec::new(),
        kind: "Deployment".to_string(),
        context: None,
        diffs,
        change_type,
        structured: None,
    }
}

fn report(entries: Vec<ReportEntry>) -> Report {
    Report { entries, changed: true, warnings: Vec::new() }
}

/// dyff's human report of two files as helm-diff configures it.
fn human(from: &str, to: &str) -> String {
    compare_and_write(from, to, &[], super::DEFAULT_WIDTH).expect("compares")
}

/// helm-diff `TestPrintDyffReport`: a changed field of one object.
#[test]
fn a_changed_value_is_its_path_and_both_values() {
    let common = ["apiVersion: apps/v1", "kind: Deployment", "metadata:", "  name: nginx", "spec:"];
    let mut diffs: Vec<DiffRecord> = common.iter().map(|line| record(line, Delta::Common)).collect();
    diffs.push(record("  replicas: 2", Delta::LeftOnly));
    diffs.push(record("  replicas: 3", Delta::RightOnly));
    let printed = print(&report(vec![entry("default, nginx, Deployment (apps)", ChangeType::Modify, diffs)]), 80);
    assert_eq!(
        printed,
        Printed { text: "\nspec.replicas\n± value change\n- 2\n+ 3\n\n".to_string(), warnings: vec![] }
    );
}

/// helm-diff `TestPrintDyffReportWithAddAndRemove` and `...RenameDetectionEnabledWithFindRenames` (without
/// renames): a removed and an added object are a removed and an added document, and, both files holding one
/// object at the same position under different names, an order change of the file.
#[test]
fn removed_and_added_objects_are_documents() {
    let lines = |name: &str, delta: Delta| {
        ["apiVersion: apps/v1", "kind: Deployment", "metadata:", &format!("  name: {name}")]
            .iter()
            .map(|line| record(line, delta))
            .collect::<Vec<_>>()
    };
    let entries = vec![
        entry("default, old-app, Deployment (apps)", ChangeType::Remove, lines("old-app", Delta::LeftOnly)),
        entry("default, new-app, Deployment (apps)", ChangeType::Add, lines("new-app", Delta::RightOnly)),
    ];
    let printed = print(&report(entries), 80);
    assert_eq!(
        printed.text,
        "\n(root level)\n- one document removed:\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: old-app\n\
         \n(root level)\n+ one document added:\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: new-app\n\
         \n(file level)\n⇆ order changed\n- apps/v1/Deployment/old-app\n+ apps/v1/Deployment/new-app\n\n"
    );
}

/// helm-diff `TestPrintDyffReportEmpty`.
#[test]
fn no_change_is_one_line_break() {
    assert_eq!(print(&report(Vec::new()), 80).text, "\n");
}

/// The `# Source:` line helm-diff's documents start with is the first key's head comment in yaml.v3, which dyff
/// prints above it when the document is added.
#[test]
fn an_added_objects_source_line_is_printed_above_it() {
    let added = ["# Source: web/templates/cm.yaml", "apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: web"];
    let diffs = added.iter().map(|line| record(line, Delta::RightOnly)).collect();
    let printed = print(&report(vec![entry("default, web, ConfigMap (v1)", ChangeType::Add, diffs)]), 80);
    assert_eq!(
        printed.text,
        "\n(root level)\n+ one document added:\n# Source: web/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\n\
         metadata:\n  name: web\n\n"
    );
}

/// dyff `should report each file level change separately for better readability`
/// (`assets/kubernetes/multi-docs-file-level`): documents paired by name, each named after its path when the first
/// file has more than one; counts differ, so no order change.
#[test]
fn kubernetes_documents_are_paired_by_name() {
    let from = "apiVersion: v1\nkind: Service\nmetadata:\n  name: foo\nspec:\n  selector:\n    kubernetes.io/app: foo\n\n\
                ---\napiVersion: v1\nkind: Service\nmetadata:\n  name: foo-2\nspec:\n  selector:\n    kubernetes.io/app: foo-2\n";
    let to = "apiVersion: v1\nkind: Service\nmetadata:\n  name: foo\n  annotations:\n    foo: bar\nspec:\n  selector:\n    \
              kubernetes.io/app: foo\n\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: bar\nspec:\n  selector:\n    \
              kubernetes.io/app: bar\n\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: baz\nspec:\n  selector:\n    \
              kubernetes.io/app: baz\n";
    let document = |name: &str| {
        format!(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\nspec:\n  selector:\n    kubernetes.io/app: {name}\n"
        )
    };
    let expected = format!(
        "\nmetadata  (v1/Service/foo)\n+ one map entry added:\nannotations:\n  foo: bar\n\
         \n(root level)  (v1/Service/foo-2)\n- one document removed:\n{}\
         \n(root level)  (v1/Service/bar)\n+ one document added:\n{}\
         \n(root level)  (v1/Service/baz)\n+ one document added:\n{}\n",
        document("foo-2"),
        document("bar"),
        document("baz")
    );
    assert_eq!(human(from, to), expected);
}

/// dyff `should use correct indentions for all kind of changes` (`assets/issues/issue-89`): type changes.
#[test]
fn type_changes_name_both_types() {
    let from = "---\nfoo:\n  a: 1\n  b: 2\nbar:\n  c: 3\n  d: 4\n";
    let to = "---\nfoo:\n  - 1\n  - 2\nbar:\n";
    assert_eq!(
        human(from, to),
        "\nfoo\n± type change from map to list\n- a: 1\n  b: 2\n+ - 1\n  - 2\n\
         \nbar\n± type change from map to <nil>\n- c: 3\n  d: 4\n+ <nil>\n\n"
    );
}

/// dyff `should use human friendly compact diff of multiline text differences` (`assets/kubernetes/configmaps`):
/// runs of changed lines, counted, without context lines.
#[test]
fn multiline_text_shows_its_changed_lines() {
    let body = |renew: &str, labels: &str| {
        format!(
            "---\n# Source: pinniped-concierge/templates/configmap.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  \
             name: pinniped-concierge-config\n  namespace: 'pinniped-concierge'\ndata:\n  pinniped.yaml: |\n    \
             discovery:\n      url: null\n    api:\n      servingCertificate:\n        durationSeconds: 2592000\n        \
             renewBeforeSeconds: {renew}\n    apiGroupSuffix: pinniped.dev\n{labels}    kubeCertAgent:\n      \
             namePrefix: pinniped-concierge-kube-cert-agent-"
        )
    };
    let from = body("2160000", "    labels: {\"app\": \"pinniped-concierge\"}\n");
    let to = body("12160000", "");
    assert_eq!(
        human(&from, &to),
        "\ndata.pinniped.yaml\n± value change in multiline text (one insert, two deletions)\n\
         -     renewBeforeSeconds: 2160000\n+     renewBeforeSeconds: 12160000\n\
         - labels: {\"app\": \"pinniped-concierge\"}\n\n\n"
    );
}

/// dyff `should return that a string list entry was added`.
#[test]
fn an_added_list_entry() {
    let from = "---\nsome:\n  yaml:\n    structure:\n      list:\n      - one\n      - two\n";
    let to = "---\nsome:\n  yaml:\n    structure:\n      list:\n      - one\n      - two\n      - three\n";
    assert_eq!(human(from, to), "\nsome.yaml.structure.list\n+ one list entry added:\n- three\n\n");
}

/// dyff `should return order changes in named entry lists (ignoring dyff.additions and dyff.removals)`: one diff
/// with the order change of the common entries, the removed and the added entries, set side by side as they fit
/// in 80 columns.
#[test]
fn named_list_entries_order_removals_and_additions() {
    let from = "list: [ {name: A}, {name: C}, {name: B}, {name: D}, {name: E} ]\n";
    let to = "list: [ {name: A}, {name: X1}, {name: B}, {name: C}, {name: D}, {name: X2} ]\n";
    let rows = [
        "⇆ order changed   - one list entry removed:   + two list entries added:",
        "- A, C, B, D      - name: E                   - name: X1",
        "+ A, B, C, D                                  - name: X2",
        "",
    ];
    assert_eq!(human(from, to), format!("\nlist\n{}\n", rows.join("\n")));
}

/// dyff `should identify individual list entries based on the nested name field in the respective entry metadata`
/// (`assets/kubernetes/lists`): objects in a list paired by `apiVersion/kind/namespace/name`; the order change is
/// set as two columns when one line each would take half the width or more.
#[test]
fn kubernetes_objects_in_lists_are_paired_by_name() {
    let pod = |name: &str, label: &str| {
        format!(
            "- apiVersion: v1\n  kind: Pod\n  metadata:\n    labels:\n      foo: {label}\n    name: {name}\n    namespace: foobar\n"
        )
    };
    let from = format!("---\napiVersion: v1\nkind: List\nitems:\n{}{}", pod("foo-2", "bar"), pod("foo-1", "bAr"));
    let to = format!("---\napiVersion: v1\nkind: List\nitems:\n{}{}", pod("foo-1", "bar"), pod("foo-2", "bar"));
    assert_eq!(
        human(&from, &to),
        "\nitems\n⇆ order changed\n  v1/Pod/foobar/foo-2   v1/Pod/foobar/foo-1\n  v1/Pod/foobar/foo-1   v1/Pod/foobar/foo-2\
         \nitems.v1/Pod/foobar/foo-1.metadata.labels.foo\n± value change\n- bAr\n+ bar\n\n"
    );
}

/// dyff `should detect change in simple list in case a duplicate entry is introduced or removed`
/// (`assets/issues/issue-143`) and `should detect order changes in simple lists with duplicate entries`.
#[test]
fn simple_lists_count_duplicates_and_order() {
    assert_eq!(
        human("keys: [value1, value2]\n", "keys: [value1, value2, value1]\n"),
        "\nkeys\n+ one list entry added:\n- value1\n\n"
    );
    assert_eq!(
        human("keys: [value1, value2, value1, value2]\n", "keys: [value1, value1, value2, value2]\n"),
        "\nkeys\n⇆ order changed\n- value1, value2, value1, value2\n+ value1, value1, value2, value2\n\n"
    );
}

/// dyff `should report that a document was added`, `... was removed` and `should omit nil/empty documents`.
#[test]
fn documents_added_removed_and_empty_ones() {
    let x = "{\"apiVersion\": \"apps/v1\", \"kind\": \"Deployment\", \"metadata\": {\"name\": \"x\"}}\n";
    let y = "{\"apiVersion\": \"v1\", \"kind\": \"Service\", \"metadata\": {\"name\": \"y\"}}\n";
    let added = "\n(root level)\n+ one document added:\napiVersion: v1\nkind: Service\nmetadata:\n  name: y\n\n";
    assert_eq!(human(x, &format!("{x}---\n{y}")), added);
    let removed = "\n(root level)  (v1/Service/y)\n- one document removed:\napiVersion: v1\nkind: Service\nmetadata:\n  name: y\n\n";
    assert_eq!(human(&format!("{x}---\n{y}"), x), removed);
    assert_eq!(human(&format!("{x}---\n{y}"), &format!("{x}---\n---\n{y}---\n")), "\n");
}

/// dyff's scalar rules (`compare_test.go`): different spellings of true and of null are no change, a number and
/// a string are different types, whitespace at the ends of a string is no change.
#[test]
fn scalars_compare_as_dyff_compares_them() {
    assert_eq!(human("a: true\nb: ~\nc: x\n", "a: True\nb: null\nc: \"x \"\n"), "\n");
    assert_eq!(human("a: 1\n", "a: \"1\"\n"), "\na\n± type change from int to string\n- 1\n+ \"1\"\n\n");
}

/// Nesting beyond the bound (here an alias of its own ancestor) is a warning and an empty report, not a stack
/// overflow.
#[test]
fn self_referencing_aliases_are_refused() {
    let diffs = vec![
        record("apiVersion: v1", Delta::Common),
        record("kind: ConfigMap", Delta::Common),
        record("metadata: &m", Delta::Common),
        record("  name: a", Delta::Common),
        record("  self: *m", Delta::LeftOnly),
    ];
    let printed = print(&report(vec![entry("default, a, ConfigMap (v1)", ChangeType::Modify, diffs)]), 80);
    assert_eq!(printed.text, "\n");
    assert_eq!(
        printed.warnings,
        vec!["Warning: dyff cannot compare the manifests: the manifests nest deeper than 200 levels"]
    );
}
