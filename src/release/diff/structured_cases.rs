//! helm-diff's tests of `--output structured` (`TestStructuredOutput*` in `diff/diff_test.go`, v3.15.11), run
//! against berth's port: the manifests and the assertions are upstream's. Upstream decodes the printed JSON and
//! checks fields; the byte-for-byte layout is checked here against text written out by hand from Go's
//! `json.Encoder` rules (field order, `omitempty`, two-space indent, float64 numbers), not from berth's output.

use super::format::{self, OutputFormat};
use super::parse::{self, Index, MappingResult, ParseOptions};
use super::report::{self, CompareOptions, Report};
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn index(text: &str, namespace: &str) -> Index {
    let options = ParseOptions { default_namespace: namespace, normalize: false, excluded_hooks: &[] };
    parse::parse(text, "test", options).expect("the manifest parses")
}

fn structured(options: CompareOptions) -> CompareOptions {
    CompareOptions { structured: true, ..options }
}

/// `Manifests(old, new, opts, &buf)`: the report and what it printed.
fn manifests(mut old: Index, mut new: Index, options: &CompareOptions) -> (Report, String) {
    let report = report::generate(&mut old, &mut new, &BTreeMap::new(), options).expect("a report");
    let printed = format::print(&report, OutputFormat::Structured, false, None).expect("printed");
    (report, printed)
}

fn entries(printed: &str) -> Vec<Value> {
    serde_json::from_str::<Value>(printed).expect("JSON").as_array().expect("a list").clone()
}

/// `findChange`.
fn find_change<'a>(entry: &'a Value, path: &str, field: &str) -> &'a Value {
    entry["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|change| {
            change.get("path").and_then(Value::as_str).unwrap_or_default() == path
                && change.get("field").and_then(Value::as_str).unwrap_or_default() == field
        })
        .unwrap_or_else(|| panic!("a change at {path} {field} in {entry}"))
}

const MODIFY_OLD: &str = r#"
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: prod
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: app
        image: demo:v1
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - key: node-type
                operator: In
                values:
                - standard
      priorities:
      - 1
      booleanArrayField:
      - true
      multiTypeField:
      - 3
      - true
      - "string"
"#;

const MODIFY_NEW: &str = r#"
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: prod
spec:
  replicas: 3
  template:
    spec:
      containers:
      - name: app
        image: demo:v2
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - key: node-type
                operator: In
                values:
                - dedicated
      priorities:
      - 2
      booleanArrayField:
      - false
      multiTypeField:
      - false
      - "new-string"
      - 2
"#;

#[test]
fn structured_output_modify() {
    let options = structured(CompareOptions::default());
    let (report, printed) = manifests(index(MODIFY_OLD, "prod"), index(MODIFY_NEW, "prod"), &options);
    assert!(report.changed);
    let entries = entries(&printed);
    assert_eq!(entries.len(), 1);
    let entry = &entries[0];
    assert_eq!(entry["changeType"], "MODIFY");
    assert_eq!(entry["apiVersion"], "apps/v1");
    assert_eq!(entry["kind"], "Deployment");
    assert_eq!(entry["namespace"], "prod");
    assert_eq!(entry["name"], "web");
    assert_eq!(entry["changes"].as_array().map(Vec::len), Some(8));
    let replicas = find_change(entry, "spec", "replicas");
    assert_eq!((replicas["oldValue"].as_f64(), replicas["newValue"].as_f64()), (Some(2.0), Some(3.0)));
    let image = find_change(entry, "spec.template.spec.containers[0]", "image");
    assert_eq!((&image["oldValue"], &image["newValue"]), (&json!("demo:v1"), &json!("demo:v2")));
    let affinity = find_change(
        entry,
        "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values",
        "0",
    );
    assert_eq!((&affinity["oldValue"], &affinity["newValue"]), (&json!("standard"), &json!("dedicated")));
    let priority = find_change(entry, "spec.template.spec.priorities", "0");
    assert_eq!((priority["oldValue"].as_f64(), priority["newValue"].as_f64()), (Some(1.0), Some(2.0)));
    let boolean = find_change(entry, "spec.template.spec.booleanArrayField", "0");
    assert_eq!((&boolean["oldValue"], &boolean["newValue"]), (&json!(true), &json!(false)));
    let first = find_change(entry, "spec.template.spec.multiTypeField", "0");
    assert_eq!((first["oldValue"].as_f64(), &first["newValue"]), (Some(3.0), &json!(false)));
    let second = find_change(entry, "spec.template.spec.multiTypeField", "1");
    assert_eq!((&second["oldValue"], &second["newValue"]), (&json!(true), &json!("new-string")));
    let third = find_change(entry, "spec.template.spec.multiTypeField", "2");
    assert_eq!((&third["oldValue"], third["newValue"].as_f64()), (&json!("string"), Some(2.0)));
}

/// The same report, byte for byte as `json.Encoder` with `SetIndent("", "  ")` writes `[]StructuredEntry`: keys
/// of the patch walked in sorted order (`replicas` under `spec` before `template`), `omitempty` dropping the
/// empty `changesSuppressed`, `resourceStatus` always written.
#[test]
fn structured_output_modify_is_laid_out_as_go_encodes_it() {
    let options = structured(CompareOptions::default());
    let (_, printed) = manifests(index(MODIFY_OLD, "prod"), index(MODIFY_NEW, "prod"), &options);
    let change = |path: &str, field: &str, old: &str, new: &str| {
        format!(
            "      {{\n        \"path\": \"{path}\",\n        \"field\": \"{field}\",\n        \"change\": \"replace\",\n        \"oldValue\": {old},\n        \"newValue\": {new}\n      }}"
        )
    };
    let spec = "spec.template.spec";
    let changes = [
        change("spec", "replicas", "2", "3"),
        change(
            "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values",
            "0",
            "\"standard\"",
            "\"dedicated\"",
        ),
        change(&format!("{spec}.booleanArrayField"), "0", "true", "false"),
        change(&format!("{spec}.containers[0]"), "image", "\"demo:v1\"", "\"demo:v2\""),
        change(&format!("{spec}.multiTypeField"), "0", "3", "false"),
        change(&format!("{spec}.multiTypeField"), "1", "true", "\"new-string\""),
        change(&format!("{spec}.multiTypeField"), "2", "\"string\"", "2"),
        change(&format!("{spec}.priorities"), "0", "1", "2"),
    ];
    let expected = format!(
        "[\n  {{\n    \"apiVersion\": \"apps/v1\",\n    \"kind\": \"Deployment\",\n    \"namespace\": \"prod\",\n    \"name\": \"web\",\n    \"changeType\": \"MODIFY\",\n    \"resourceStatus\": {{\n      \"oldExists\": true,\n      \"newExists\": true\n    }},\n    \"changes\": [\n{}\n    ]\n  }}\n]\n",
        changes.join(",\n")
    );
    assert_eq!(printed, expected);
}

const JOB: &str = r#"
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: ops
spec:
  restartPolicy: "Never"
  containers:
  - name: app
    image: demo:v1
    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - key: node-type
              operator: In
              values:
              - standard
"#;

#[test]
fn structured_output_add_and_remove() {
    let options = structured(CompareOptions::default());
    let (report, printed) = manifests(Index::new(), index(JOB, "ops"), &options);
    assert!(report.changed);
    let added = entries(&printed);
    assert_eq!(added.len(), 1);
    assert_eq!(added[0]["changeType"], "ADD");
    assert_eq!(added[0]["resourceStatus"], json!({"oldExists": false, "newExists": true}));
    assert_eq!(
        printed,
        "[\n  {\n    \"apiVersion\": \"batch/v1\",\n    \"kind\": \"Job\",\n    \"namespace\": \"ops\",\n    \"name\": \"migrate\",\n    \"changeType\": \"ADD\",\n    \"resourceStatus\": {\n      \"oldExists\": false,\n      \"newExists\": true\n    }\n  }\n]\n"
    );

    let (report, printed) = manifests(index(JOB, "ops"), Index::new(), &options);
    assert!(report.changed);
    let removed = entries(&printed);
    assert_eq!(removed.len(), 1);
    assert_eq!(removed[0]["changeType"], "REMOVE");
    assert_eq!(removed[0]["resourceStatus"], json!({"oldExists": true, "newExists": false}));
}

#[test]
fn structured_output_suppressed_kind() {
    let options = structured(CompareOptions { suppressed_kinds: vec!["Secret".to_string()], ..Default::default() });
    let secret =
        |data: &str| format!("\napiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\ndata:\n  password: {data}\n");
    let (report, printed) =
        manifests(index(&secret("c29tZQ=="), "default"), index(&secret("Zm9v"), "default"), &options);
    assert!(report.changed);
    let entries = entries(&printed);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["changesSuppressed"], true);
    assert!(entries[0].get("changes").is_none());
    // Nothing of either value reaches the output.
    assert!(!printed.contains("c29tZQ") && !printed.contains("Zm9v"), "{printed}");
}

/// `TestStructuredOutputErrorPaths`: a side that is not an object still gives an entry, with the key as its
/// name and the change type only, and a warning.
#[test]
fn structured_output_error_paths() {
    let key = "default, failing, ConfigMap (v1)";
    let valid =
        "\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: valid\n  namespace: default\ndata:\n  foo: bar\n";
    let mapping = |content: &str| -> Index {
        let mapping = MappingResult {
            name: key.to_string(),
            kind: "ConfigMap".to_string(),
            content: content.to_string(),
            resource_policy: String::new(),
        };
        Index::from([(key.to_string(), mapping)])
    };
    let options = structured(CompareOptions::default());
    let fallback = |change: &str| {
        format!(
            "[\n  {{\n    \"name\": \"{key}\",\n    \"changeType\": \"{change}\",\n    \"resourceStatus\": {{\n      \"oldExists\": false,\n      \"newExists\": false\n    }}\n  }}\n]\n"
        )
    };
    let cases = [
        ("InvalidNewManifestYAML", mapping(valid), mapping(":\n  not-valid: value"), "MODIFY"),
        (
            "InvalidOldManifestYAML",
            mapping("metadata:\n  name: invalid\n  namespace: default\n  labels:\n    : bad"),
            mapping(valid),
            "MODIFY",
        ),
        (
            "ArrayDocumentProducesJSONUnmarshalError",
            Index::new(),
            mapping(
                "\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: list\n    namespace: default\n  data:\n    key: value\n",
            ),
            "ADD",
        ),
    ];
    for (name, old, new, change) in cases {
        let (report, printed) = manifests(old, new, &options);
        assert!(report.changed, "{name}");
        assert_eq!(printed, fallback(change), "{name}");
        assert_eq!(report.warnings.len(), 1, "{name}");
        assert!(report.warnings[0].starts_with(&format!("Warning: failed to build structured entry for {key}")));
    }
}

#[test]
fn structured_output_additional_scenarios() {
    let options = structured(CompareOptions::default());
    let pod = "\napiVersion: v1\nkind: Pod\nmetadata:\n  name: test\n  namespace: default\n";
    // EmptyManifestHandling and NullYAMLDocument.
    for empty in ["", "null"] {
        let (report, printed) = manifests(index(empty, "default"), index(pod, "default"), &options);
        assert!(report.changed);
        let entries = entries(&printed);
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0]["changeType"], "ADD");
        assert_eq!(entries[0]["resourceStatus"], json!({"oldExists": false, "newExists": true}));
    }

    // ComplexNestedStructuresForJSONPatch.
    let config = |version: &str, value: &str| {
        format!(
            "\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: complex\n  namespace: default\n  labels:\n    app: test\n    version: {version}\ndata:\n  config.yaml: |\n    nested:\n      deeply:\n        value: {value}\n"
        )
    };
    let (report, printed) =
        manifests(index(&config("v1", "old"), "default"), index(&config("v2", "new"), "default"), &options);
    assert!(report.changed);
    let nested = entries(&printed);
    assert_eq!(nested.len(), 1);
    assert_eq!(nested[0]["changeType"], "MODIFY");
    let version = find_change(&nested[0], "metadata.labels", "version");
    assert_eq!((&version["oldValue"], &version["newValue"]), (&json!("v1"), &json!("v2")));
    // The document is trimmed as `manifest.Parse` trims it, so the block scalar ends without its line break.
    let data = find_change(&nested[0], "data", "config.yaml");
    assert_eq!(data["newValue"], "nested:\n  deeply:\n    value: new");

    // ArrayChangesInStructuredOutput.
    let deployment = |image: &str, extra: &str| {
        format!(
            "\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\n  namespace: prod\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: {image}\n        env:\n        - name: KEY1\n          value: val1\n{extra}"
        )
    };
    let (report, printed) = manifests(
        index(&deployment("myapp:v1", ""), "prod"),
        index(&deployment("myapp:v2", "        - name: KEY2\n          value: val2\n"), "prod"),
        &options,
    );
    assert!(report.changed);
    let arrays = entries(&printed);
    assert_eq!(arrays[0]["changeType"], "MODIFY");
    let image = find_change(&arrays[0], "spec.template.spec.containers[0]", "image");
    assert_eq!((&image["oldValue"], &image["newValue"]), (&json!("myapp:v1"), &json!("myapp:v2")));
    // The added item of the nested list, whole.
    let added = find_change(&arrays[0], "spec.template.spec.containers[0].env", "1");
    assert_eq!(
        (added["change"].as_str(), &added["newValue"]),
        (Some("add"), &json!({"name": "KEY2", "value": "val2"}))
    );

    // BothManifestsEmpty.
    let (report, printed) = manifests(index("", "default"), index("", "default"), &options);
    assert!(!report.changed);
    assert_eq!(printed, "[]\n");
}

/// Beyond upstream's tables: a removed field is `remove` with its old value only, an added map walked to its leaves, a
/// value written as Go writes it (HTML-safe escapes), and a change that is only reformatting (no field
/// differs) is no entry at all, as `doDiff` returns before adding it.
#[test]
fn structured_output_removals_escapes_and_reformatting() {
    let options = structured(CompareOptions::default());
    let old = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: default\ndata:\n  gone: x\n  page: \"<b>&</b>\"\n";
    let new = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: default\n  labels:\n    a: b\ndata:\n  page: \"<i>\"\n";
    let (_, printed) = manifests(index(old, "default"), index(new, "default"), &options);
    let expected = r#"[
  {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "namespace": "default",
    "name": "c",
    "changeType": "MODIFY",
    "resourceStatus": {
      "oldExists": true,
      "newExists": true
    },
    "changes": [
      {
        "path": "data",
        "field": "gone",
        "change": "remove",
        "oldValue": "x"
      },
      {
        "path": "data",
        "field": "page",
        "change": "replace",
        "oldValue": "\u003cb\u003e\u0026\u003c/b\u003e",
        "newValue": "\u003ci\u003e"
      },
      {
        "path": "metadata.labels",
        "field": "a",
        "change": "add",
        "newValue": "b"
      }
    ]
  }
]
"#;
    assert_eq!(printed, expected);

    let reformatted = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\ndata: {gone: x, page: \"<b>&</b>\"}\n";
    let (report, printed) = manifests(index(old, "default"), index(reformatted, "default"), &options);
    assert!(!report.changed);
    assert_eq!(printed, "[]\n");
}

/// `doSuppress` runs after the entries are built: in structured mode they carry no lines, so every modification
/// becomes `MODIFY_SUPPRESSED` in the report, yet the printed entry keeps the change type it was built with
/// (`printStructuredReport` prefers the structured entry's own); additions stay additions.
#[test]
fn output_line_suppression_leaves_structured_change_types_alone() {
    let options =
        structured(CompareOptions { suppressed_output_line_regex: vec!["replicas".to_string()], ..Default::default() });
    let (report, printed) = manifests(index(MODIFY_OLD, "prod"), index(MODIFY_NEW, "prod"), &options);
    assert_eq!(report.entries[0].change_type.as_str(), "MODIFY_SUPPRESSED");
    let entries = entries(&printed);
    assert_eq!(entries[0]["changeType"], "MODIFY");
    assert_eq!(entries[0]["changes"].as_array().map(Vec::len), Some(8));
}

/// Past the walk's depth bound an entry is printed as one that could not be built (name and change type), with
/// a warning: deep input neither overflows the stack nor is dropped.
#[test]
fn objects_nested_past_the_bound_are_entries_without_fields() {
    let nested = |leaf: &str| {
        let depth = 300;
        let mut text =
            String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\n  namespace: default\ndata:");
        for _ in 0..depth {
            text.push_str(" {a:");
        }
        text.push_str(&format!(" {leaf}"));
        text.push_str(&"}".repeat(depth));
        text.push('\n');
        text
    };
    let options = structured(CompareOptions::default());
    let (report, printed) = manifests(index(&nested("x"), "default"), index(&nested("y"), "default"), &options);
    assert_eq!(report.warnings.len(), 1, "{printed}");
    assert!(report.warnings[0].ends_with("nested deeper than 256 levels"), "{}", report.warnings[0]);
    let entries = entries(&printed);
    assert_eq!(
        (&entries[0]["name"], &entries[0]["changeType"]),
        (&json!("default, deep, ConfigMap (v1)"), &json!("MODIFY"))
    );
}

/// Secrets are redacted before the entry is built (`doDiff` redacts first), so a changed value is reported by
/// its redaction marks and never by its content.
#[test]
fn secret_values_are_redacted_in_structured_entries() {
    let options = structured(CompareOptions::default());
    let secret = |data: &str| {
        format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: default\ndata:\n  password: {data}\n"
        )
    };
    let (_, printed) =
        manifests(index(&secret("c29tZQ=="), "default"), index(&secret("Zm9vYmFy"), "default"), &options);
    assert!(!printed.contains("c29tZQ") && !printed.contains("Zm9v") && !printed.contains("some"), "{printed}");
    let entries = entries(&printed);
    let password = find_change(&entries[0], "data", "password");
    assert_eq!(
        (&password["oldValue"], &password["newValue"]),
        (&json!("-------- # (4 bytes)"), &json!("++++++++ # (6 bytes)"))
    );
}
