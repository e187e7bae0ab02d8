//! The expectations of helm-diff's dyff tests (`diff/report_test.go`, `TestPrintDyffReport*`) and of dyff's own
//! (`pkg/dyff/compare_test.go`, `output_human_test.go` with the files under `assets/`, dyff v1.12.0), each case
//! naming the test it comes from. dyff's human goldens are written with `Indent: 2` and four lines of context
//! around multi-line changes; helm-diff sets neither, so the expected texts here are those goldens laid out as
//! `HumanReport`'s code lays them out with helm-diff's fields (no indent, no context lines).

use super::{Printed, Settings, compare_and_write, print};

/// helm-diff's settings with stdout no terminal and no flags.
const PLAIN: Settings = Settings { width: super::DEFAULT_WIDTH, coloured: false, detect_renames: false };
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

/// dyff's human report of two files as helm-diff configures it, without colours.
fn human(from: &str, to: &str) -> String {
    coloured_human(from, to, false)
}

/// dyff's human report of two files as helm-diff configures it, bunt's colours `coloured`.
fn coloured_human(from: &str, to: &str, coloured: bool) -> String {
    human_with(from, to, Settings { coloured, ..PLAIN })
}

/// dyff's human report of two files with `settings`.
fn human_with(from: &str, to: &str, settings: Settings) -> String {
    let (text, stopped) = compare_and_write(from, to, &[], settings).expect("compares");
    assert_eq!(stopped, None, "the whole report is written");
    text
}

/// helm-diff `TestPrintDyffReport`: a changed field of one object.
#[test]
fn a_changed_value_is_its_path_and_both_values() {
    let common = ["apiVersion: apps/v1", "kind: Deployment", "metadata:", "  name: nginx", "spec:"];
    let mut diffs: Vec<DiffRecord> = common.iter().map(|line| record(line, Delta::Common)).collect();
    diffs.push(record("  replicas: 2", Delta::LeftOnly));
    diffs.push(record("  replicas: 3", Delta::RightOnly));
    let printed = print(&report(vec![entry("default, nginx, Deployment (apps)", ChangeType::Modify, diffs)]), PLAIN);
    assert_eq!(
        printed,
        Printed { text: "\nspec.replicas\n± value change\n- 2\n+ 3\n\n".to_string(), warnings: vec![] }
    );
}

/// helm-diff's report of Deployment `old-app` removed and `new-app` added, each with `more` lines after its name.
fn old_app_removed_new_app_added(more: &[&str]) -> Vec<ReportEntry> {
    let lines = |name: &str, delta: Delta| {
        let name = format!("  name: {name}");
        ["apiVersion: apps/v1", "kind: Deployment", "metadata:", &name]
            .into_iter()
            .chain(more.iter().copied())
            .map(|line| record(line, delta))
            .collect::<Vec<_>>()
    };
    vec![
        entry("default, old-app, Deployment (apps)", ChangeType::Remove, lines("old-app", Delta::LeftOnly)),
        entry("default, new-app, Deployment (apps)", ChangeType::Add, lines("new-app", Delta::RightOnly)),
    ]
}

/// helm-diff `TestPrintDyffReportWithAddAndRemove` and `...RenameDetectionEnabledWithFindRenames` (without
/// renames): a removed and an added object are a removed and an added document, and, both files holding one
/// object at the same position under different names, an order change of the file.
#[test]
fn removed_and_added_objects_are_documents() {
    let printed = print(&report(old_app_removed_new_app_added(&[])), PLAIN);
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
    assert_eq!(print(&report(Vec::new()), PLAIN).text, "\n");
}

/// The `# Source:` line helm-diff's documents start with is the first key's head comment in yaml.v3, which dyff
/// prints above it when the document is added.
#[test]
fn an_added_objects_source_line_is_printed_above_it() {
    let added = ["# Source: web/templates/cm.yaml", "apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: web"];
    let diffs = added.iter().map(|line| record(line, Delta::RightOnly)).collect();
    let printed = print(&report(vec![entry("default, web, ConfigMap (v1)", ChangeType::Add, diffs)]), PLAIN);
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

/// The ConfigMap of dyff's `assets/kubernetes/configmaps` with its changed lines.
fn pinniped_configmap(renew: &str, labels: &str) -> String {
    format!(
        "---\n# Source: pinniped-concierge/templates/configmap.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  \
         name: pinniped-concierge-config\n  namespace: 'pinniped-concierge'\ndata:\n  pinniped.yaml: |\n    \
         discovery:\n      url: null\n    api:\n      servingCertificate:\n        durationSeconds: 2592000\n        \
         renewBeforeSeconds: {renew}\n    apiGroupSuffix: pinniped.dev\n{labels}    kubeCertAgent:\n      \
         namePrefix: pinniped-concierge-kube-cert-agent-"
    )
}

/// dyff `should use human friendly compact diff of multiline text differences` (`assets/kubernetes/configmaps`):
/// runs of changed lines, counted, without context lines.
#[test]
fn multiline_text_shows_its_changed_lines() {
    let from = pinniped_configmap("2160000", "    labels: {\"app\": \"pinniped-concierge\"}\n");
    let to = pinniped_configmap("12160000", "");
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
    let printed = print(&report(vec![entry("default, a, ConfigMap (v1)", ChangeType::Modify, diffs)]), PLAIN);
    assert_eq!(printed.text, "\n");
    assert_eq!(
        printed.warnings,
        vec!["Warning: dyff cannot compare the manifests: the manifests nest deeper than 200 levels"]
    );
}

/// dyff `should show nicely colored difference output` (`assets/colors`, bunt ON): a minor change with its
/// changed characters bold, a path with named entries bold and italic, a removed mapping in neat's reddish
/// colours (indent lines off: the step is two spaces in the indent line colour), a plain value change. The bytes
/// are the golden's with helm-diff's indent of zero (the golden indents each detail by two and its `- `/`+ ` by two
/// more); the documents are the golden's parts that produce these diffs.
#[test]
fn colours_are_dyffs_bunt_styles() {
    let document = |version: &str, locket: &str, sha1: &str, capi: &str| {
        format!(
            "---\nmanifest_version: {version}\ninstance_groups:\n- name: diego-api\n  jobs:\n  - name: bbs\n    \
             properties:\n      diego:\n        bbs:\n          active_key_label: key-2016-06\n{locket}releases:\n\
             - name: capi\n  version: {capi}\n  sha1: {sha1}\n"
        )
    };
    let locket = "          locket:\n            api_location: \"locket.service.cf.internal:8891\"\n";
    let from = document("v1.19.0", locket, "77186faf9dc9606e633ef27186ae09ba8599f4cb", "1.50.0");
    let to = document("v1.20.0", "", "c56405524d92b34af2b063e7d7ee44a7465b7697", "1.51.0");
    let yellow = |text: &str| format!("\x1b[38;2;199;196;63m{text}\x1b[0m");
    let expected = [
        "\n\x1b[1mmanifest_version\x1b[0m".to_string(),
        yellow("± value change"),
        "\x1b[38;2;185;49;27m- \x1b[0m\x1b[38;2;255;160;122mv1.\x1b[0m\x1b[1;38;2;185;49;27m19\x1b[0m\x1b[38;2;255;160;122m.0\x1b[0m"
            .to_string(),
        "\x1b[38;2;88;191;56m+ \x1b[0m\x1b[38;2;144;238;144mv1.\x1b[0m\x1b[1;38;2;88;191;56m20\x1b[0m\x1b[38;2;144;238;144m.0\x1b[0m"
            .to_string(),
        "\n\x1b[1minstance_groups\x1b[0m.\x1b[1;3mdiego-api\x1b[0m.\x1b[1mjobs\x1b[0m.\x1b[1;3mbbs\x1b[0m.\
         \x1b[1mproperties\x1b[0m.\x1b[1mdiego\x1b[0m.\x1b[1mbbs\x1b[0m"
            .to_string(),
        yellow("- one map entry removed:"),
        "\x1b[1;38;2;178;34;34mlocket:\x1b[0m".to_string(),
        "\x1b[38;2;51;0;0m  \x1b[0m\x1b[1;38;2;178;34;34mapi_location:\x1b[0m \
         \x1b[38;2;240;128;128m\"locket.service.cf.internal:8891\"\x1b[0m"
            .to_string(),
        "\n\x1b[1mreleases\x1b[0m.\x1b[1;3mcapi\x1b[0m.\x1b[1mversion\x1b[0m".to_string(),
        yellow("± value change"),
        "\x1b[38;2;185;49;27m- \x1b[0m\x1b[38;2;255;160;122m1.5\x1b[0m\x1b[1;38;2;185;49;27m0\x1b[0m\x1b[38;2;255;160;122m.0\x1b[0m"
            .to_string(),
        "\x1b[38;2;88;191;56m+ \x1b[0m\x1b[38;2;144;238;144m1.5\x1b[0m\x1b[1;38;2;88;191;56m1\x1b[0m\x1b[38;2;144;238;144m.0\x1b[0m"
            .to_string(),
        "\n\x1b[1mreleases\x1b[0m.\x1b[1;3mcapi\x1b[0m.\x1b[1msha1\x1b[0m".to_string(),
        yellow("± value change"),
        "\x1b[38;2;185;49;27m- 77186faf9dc9606e633ef27186ae09ba8599f4cb\x1b[0m".to_string(),
        "\x1b[38;2;88;191;56m+ c56405524d92b34af2b063e7d7ee44a7465b7697\x1b[0m".to_string(),
        "\n".to_string(),
    ];
    assert_eq!(coloured_human(&from, &to, true), expected.join("\n"));
    // Without colours: the same report in plain text.
    let plain = expected.join("\n");
    let plain = regex::Regex::new(r"\x1b\[[\d;]*m").expect("valid").replace_all(&plain, "").into_owned();
    assert_eq!(human(&from, &to), plain);
}

/// dyff `should use human friendly compact diff of multiline text differences` (`assets/kubernetes/configmaps`,
/// bunt ON): the header yellow, each deleted run red and inserted run green line by line.
#[test]
fn multiline_text_changes_are_coloured_line_by_line() {
    let from = pinniped_configmap("2160000", "    labels: {\"app\": \"pinniped-concierge\"}\n");
    let to = pinniped_configmap("12160000", "");
    assert_eq!(
        coloured_human(&from, &to, true),
        "\n\x1b[1mdata\x1b[0m.\x1b[1mpinniped.yaml\x1b[0m\n\
         \x1b[38;2;199;196;63m± value change in multiline text (one insert, two deletions)\x1b[0m\n\
         \x1b[38;2;185;49;27m-     renewBeforeSeconds: 2160000\x1b[0m\n\
         \x1b[38;2;88;191;56m+     renewBeforeSeconds: 12160000\x1b[0m\n\
         \x1b[38;2;185;49;27m- labels: {\"app\": \"pinniped-concierge\"}\x1b[0m\n\n\n"
    );
}

/// The `- ` and `+ ` blocks of a dyff golden written with `Indent: 2`, as helm-diff's indent of zero gives them:
/// each block's lines without the four spaces (detail indent and prefix indent) before them.
fn golden_blocks(golden: &str) -> (Vec<String>, Vec<String>) {
    let (mut from, mut to) = (Vec::new(), Vec::new());
    let mut current: Option<bool> = None;
    for line in golden.lines() {
        if line.starts_with("    - ") {
            current = Some(false);
        } else if line.starts_with("    + ") {
            current = Some(true);
        } else if line.trim().is_empty() || !line.starts_with("      ") {
            continue;
        }
        let stripped = line.get(4..).unwrap_or_default().to_string();
        match current {
            Some(false) => from.push(stripped),
            Some(true) => to.push(stripped),
            None => {}
        }
    }
    (from, to)
}

/// dyff `should show a binary data difference in hex dump style` (`assets/binary`): `!!binary` values decoded and
/// shown as Go's `hex.Dump`, the two blocks one after the other (they do not fit side by side); with no indent
/// the detail fits the terminal and is laid out as a one-column table, which trims its padding lines.
#[test]
fn binary_values_are_hex_dumps() {
    let (from, to) = golden_blocks(include_str!("testdata/binary-dyff.expected"));
    assert_eq!((from.len(), to.len()), (34, 43), "the golden's dump lines");
    let expected = format!("\nyaml.data\n± content change\n{}\n\n\n{}\n\n\n\n", from.join("\n"), to.join("\n"));
    assert_eq!(human(include_str!("testdata/binary-from.yml"), include_str!("testdata/binary-to.yml")), expected);
}

/// dyff `should show the testbed results as expected` (`assets/testbed/expected-dyff-spruce.human`, `certs.data`):
/// two PEM certificates are a certificate change with the summary of each.
#[test]
fn certificates_are_summarised() {
    let golden = "
    - Subject:
        Common Name: www.example.com
        Organization: Company Name
        Organization Unit: Org
        Locality: Portland
        State: Oregon
        Country: US
      Validity Period:
        NotBefore: Apr 2 19:29:56 2018 UTC
        NotAfter: Apr 2 19:29:56 2019 UTC
      Issuer: www.example.com, Company Name
      Serial Number: 14581103526614300972 (0xca5a7c67490a792c)


    + Subject:
        Common Name: www.example.com
        Organization: My Company Name
        Organization Unit: Org
        Locality: Portland
        State: Oregon
        Country: US
      Validity Period:
        NotBefore: Apr 2 19:37:46 2018 UTC
        NotAfter: Apr 1 19:37:46 2020 UTC
      Issuer: www.example.com, My Company Name
      Serial Number: 12453678034067864896 (0xacd45a3087b33d40)
";
    let (from, to) = golden_blocks(golden);
    let expected = format!("\ncerts.data\n± certificate change\n{}\n\n\n{}\n\n\n\n", from.join("\n"), to.join("\n"));
    assert_eq!(
        human(include_str!("testdata/testbed-certs-from.yml"), include_str!("testdata/testbed-certs-to.yml")),
        expected
    );
}

/// dyff `should detect renames for kubernetes documents` (`assets/kubernetes/rename`, `DetectRenames(true)`): two
/// ConfigMaps whose generated names differ are compared as one object. The golden's two diffs, with helm-diff's
/// indent of zero and no context lines around the multi-line change.
#[test]
fn renamed_documents_are_compared_as_one_with_find_renames() {
    let (from, to) = (include_str!("testdata/rename-from.yaml"), include_str!("testdata/rename-to.yaml"));
    assert_eq!(
        human_with(from, to, Settings { detect_renames: true, ..PLAIN }),
        "\ndata.pinniped.yaml\n± value change in multiline text (one insert, no deletions)\n+   # Example comment\n\n\
         \nmetadata.name\n± value change\n- pinniped-concierge-config-9bfbmfgt2f\n\
         + pinniped-concierge-config-296567ccmt\n\n"
    );
    let without = human(from, to);
    assert!(without.contains("- one document removed:") && without.contains("+ one document added:"), "{without}");
}

/// helm-diff `TestPrintDyffReportRenameDetectionEnabledWithFindRenames`: a removed and an added Deployment that
/// differ in name only are two documents without `--find-renames`, one value change with it.
#[test]
fn find_renames_pairs_a_removed_and_an_added_object() {
    let entries = old_app_removed_new_app_added(&["spec:", "  replicas: 3"]);
    let without = print(&report(entries.clone()), PLAIN).text;
    assert!(without.contains("one document removed") && without.contains("one document added"), "{without}");
    let with = print(&report(entries), Settings { detect_renames: true, ..PLAIN }).text;
    assert_eq!(with, "\nmetadata.name\n± value change\n- old-app\n+ new-app\n\n");
}

/// `generateHumanDetailOutputModification` returns base64's error for a `!!binary` value that is not base64, and
/// `WriteReport` stops there: the path line is out, nothing after it; berth says why.
#[test]
fn a_binary_value_that_is_not_base64_ends_the_report() {
    let from = "---\na: !!binary aGVsbG8=\nb: 1\n";
    let to = "---\na: !!binary '*not base64*'\nb: 2\n";
    let (text, stopped) = compare_and_write(from, to, &[], PLAIN).expect("compares");
    assert_eq!(text, "\na\n");
    assert!(stopped.is_some_and(|reason| reason.contains("not base64")));
}
