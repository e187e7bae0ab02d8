//! Loading manifests: documents, lines, lists and every problem at once, with inline YAML and JSON.

use super::*;
use proptest::prelude::*;

fn parse(text: &str) -> (Vec<Manifest>, Vec<Problem>) {
    let mut problems = Vec::new();
    let manifests = parse_text(text, "app.yaml", false, &mut problems);
    (manifests, problems)
}

fn names(manifests: &[Manifest]) -> Vec<String> {
    manifests.iter().map(|manifest| manifest.reference.to_string()).collect()
}

fn one_problem(text: &str) -> String {
    let (manifests, problems) = parse(text);
    assert!(manifests.is_empty() || !problems.is_empty(), "expected a problem in {text:?}");
    assert_eq!(problems.len(), 1, "problems: {problems:?}");
    problems[0].to_string()
}

#[test]
fn reads_multiple_documents_with_numbers_and_lines() {
    let text = "# leading comment\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n\n---\n# only a comment\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n";
    let (manifests, problems) = parse(text);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(names(&manifests), ["ConfigMap/a", "Deployment/shop/web"]);
    assert_eq!(manifests[0].source, Source { file: "app.yaml".into(), document: 1, line: 2, item: None });
    assert_eq!(manifests[1].source, Source { file: "app.yaml".into(), document: 4, line: 10, item: None });
}

#[test]
fn a_leading_marker_does_not_count_as_an_extra_document() {
    let (manifests, problems) = parse("---\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\n");
    assert!(problems.is_empty());
    assert_eq!(manifests[0].source.document, 1);
    assert_eq!(manifests[0].source.line, 2);
}

#[test]
fn content_on_the_marker_line_belongs_to_the_document() {
    let (manifests, problems) = parse("--- {apiVersion: v1, kind: Secret, metadata: {name: s}}\n");
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(names(&manifests), ["Secret/s"]);
    assert_eq!(manifests[0].source.line, 1);
}

#[test]
fn directives_and_document_end_markers_are_understood() {
    let text = "%YAML 1.2\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: a}\n...\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: b}\n";
    let (manifests, problems) = parse(text);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(names(&manifests), ["Secret/a", "Secret/b"]);
}

#[test]
fn block_scalars_keep_indented_dashes() {
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  script: |\n    ---\n    echo hi\n";
    let (manifests, problems) = parse(text);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(manifests[0].object["data"]["script"], "---\necho hi\n");
}

#[test]
fn expands_kind_list_items_in_order() {
    let text = "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n";
    let (manifests, problems) = parse(text);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(names(&manifests), ["ConfigMap/a", "ConfigMap/b"]);
    assert_eq!(manifests[1].source.item, Some(1));
}

#[test]
fn expands_typed_lists_from_kubectl_get() {
    let text =
        "apiVersion: v1\nkind: ConfigMapList\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n";
    let (manifests, _) = parse(text);
    assert_eq!(names(&manifests), ["ConfigMap/a"]);
}

#[test]
fn reports_invalid_yaml_with_document_and_file_line() {
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: [unclosed\n";
    let message = one_problem(text);
    assert!(message.starts_with("app.yaml: document 2, line "), "{message}");
    assert!(message.contains("invalid YAML"), "{message}");
    let line: usize = message["app.yaml: document 2, line ".len()..].split(':').next().unwrap().parse().unwrap();
    assert!((6..=7).contains(&line), "line {line} in {message}");
}

#[test]
fn reports_a_document_that_is_not_a_mapping() {
    let message = one_problem("apiVersion: v1\nkind: Secret\nmetadata: {name: a}\n---\n- just\n- a list\n");
    assert_eq!(message, "app.yaml: document 2 (line 5): expected a mapping (an object), found a list");
    let message = one_problem("hello\n");
    assert_eq!(message, "app.yaml: document 1 (line 1): expected a mapping (an object), found a string");
}

#[test]
fn reports_missing_identity_fields_naming_kind_and_name() {
    assert_eq!(
        one_problem("kind: Deployment\nmetadata: {name: web}\n"),
        "app.yaml: document 1 (line 1): Deployment `web`: missing apiVersion"
    );
    assert_eq!(
        one_problem("apiVersion: v1\nmetadata: {name: web}\n"),
        "app.yaml: document 1 (line 1): object `web`: missing kind"
    );
    assert_eq!(
        one_problem("apiVersion: v1\nkind: Service\nmetadata: {labels: {}}\n"),
        "app.yaml: document 1 (line 1): Service object: missing metadata.name"
    );
    assert_eq!(
        one_problem("apiVersion: v1\nkind: Service\nmetadata: nope\n"),
        "app.yaml: document 1 (line 1): Service object: metadata must be a mapping"
    );
    assert_eq!(one_problem("{}\n"), "app.yaml: document 1 (line 1): object: missing apiVersion, kind, metadata.name");
}

#[test]
fn reports_bad_list_items_with_their_position() {
    let text = "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n- {kind: ConfigMap, metadata: {name: b}}\n";
    assert_eq!(one_problem(text), "app.yaml: document 1 (line 1), List item 1: ConfigMap `b`: missing apiVersion");
}

#[test]
fn reports_every_bad_document_not_just_the_first() {
    let (_, problems) = parse("kind: A\nmetadata: {name: a}\n---\nkind: B\nmetadata: {name: b}\n");
    assert_eq!(problems.len(), 2);
}

#[test]
fn duplicate_keys_are_an_error() {
    let message = one_problem("apiVersion: v1\nkind: ConfigMap\nkind: Secret\nmetadata: {name: a}\n");
    assert!(message.contains("invalid YAML"), "{message}");
}

#[test]
fn json_streams_are_read_with_lines() {
    let text = "{\"apiVersion\": \"v1\", \"kind\": \"Secret\", \"metadata\": {\"name\": \"a\"}}\n\n{\"apiVersion\": \"v1\",\n \"kind\": \"Secret\", \"metadata\": {\"name\": \"b\"}}\n";
    let mut problems = Vec::new();
    let manifests = parse_text(text, "app.json", true, &mut problems);
    assert!(problems.is_empty());
    assert_eq!(names(&manifests), ["Secret/a", "Secret/b"]);
    assert_eq!(manifests[1].source.line, 3);
    assert_eq!(manifests[1].source.document, 2);
}

#[test]
fn invalid_json_names_the_line() {
    let mut problems = Vec::new();
    parse_text("{\"apiVersion\": \"v1\",\n \"kind\": }\n", "app.json", true, &mut problems);
    assert_eq!(problems.len(), 1);
    let message = problems[0].to_string();
    assert!(message.starts_with("app.json: document 1, line 2: invalid JSON: "), "{message}");
}

#[test]
fn loads_directories_recursively_and_reports_missing_paths() {
    let directory = std::env::temp_dir().join(format!("berth-manifest-test-{}", std::process::id()));
    let nested = directory.join("nested");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::write(directory.join("b.yaml"), "apiVersion: v1\nkind: Secret\nmetadata: {name: b}\n").unwrap();
    std::fs::write(directory.join("a.yml"), "apiVersion: v1\nkind: Secret\nmetadata: {name: a}\n").unwrap();
    std::fs::write(directory.join("notes.txt"), "not a manifest").unwrap();
    std::fs::write(nested.join("c.json"), "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"c\"}}")
        .unwrap();
    let manifests = load(std::slice::from_ref(&directory)).unwrap();
    assert_eq!(names(&manifests), ["Secret/a", "Secret/b", "Secret/c"]);

    let missing = directory.join("missing.yaml");
    let error = load(&[directory.clone(), missing.clone()]).unwrap_err();
    assert_eq!(
        error.problems,
        [Problem::Read { path: missing.display().to_string(), message: "no such file or directory".into() }]
    );

    let empty = directory.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let error = load(std::slice::from_ref(&empty)).unwrap_err();
    assert!(matches!(error.problems[..], [Problem::Empty { .. }]));
    std::fs::remove_dir_all(&directory).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// The loader never panics, whatever the bytes.
    #[test]
    fn never_panics_on_arbitrary_text(text in "\\PC{0,200}") {
        let _ = parse(&text);
        let mut problems = Vec::new();
        let _ = parse_text(&text, "x.json", true, &mut problems);
    }

    /// Nor on text built from YAML's own punctuation, which reaches deeper into the parser.
    #[test]
    fn never_panics_on_yaml_like_text(parts in proptest::collection::vec(
        prop_oneof![
            Just("---\n"), Just("...\n"), Just("- "), Just(": "), Just("{"), Just("}"), Just("["), Just("]"),
            Just("&a "), Just("*a"), Just("!!str "), Just("|\n"), Just(">-\n"), Just("  "), Just("\n"), Just("#"),
            Just("'"), Just("\""), Just("kind"), Just("apiVersion: v1"), Just("metadata"), Just("name"), Just("%YAML 1.2\n"),
            Just("items"), Just("List"), Just("? "), Just(","), Just("\t"), Just("<<: *a\n"),
        ],
        0..40,
    )) {
        let text: String = parts.concat();
        let _ = parse(&text);
    }

    /// Any set of well-formed objects round-trips with its document numbers.
    #[test]
    fn well_formed_documents_all_load(names in proptest::collection::vec("[a-z][a-z0-9-]{0,20}", 1..10)) {
        let text = names.iter().map(|name| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{name}\n")).collect::<Vec<_>>().join("---\n");
        let (manifests, problems) = parse(&text);
        prop_assert!(problems.is_empty(), "{:?}", problems);
        prop_assert_eq!(manifests.len(), names.len());
        for (index, manifest) in manifests.iter().enumerate() {
            prop_assert_eq!(&manifest.reference.name, &format!("cm-{}", names[index]));
            prop_assert_eq!(manifest.source.document, index + 1);
            prop_assert_eq!(manifest.source.line, 1 + 5 * index);
        }
    }
}

#[test]
fn a_directory_of_manifests_is_read_without_the_chart_files_beside_them() {
    let directory = std::env::temp_dir().join(format!("berth-manifest-chart-files-{}", std::process::id()));
    let nested = directory.join("nested");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::write(directory.join("Chart.yaml"), "apiVersion: v2\nname: shop\nversion: 1.0.0\n").unwrap();
    std::fs::write(directory.join("values.yaml"), "replicas: 3\n").unwrap();
    std::fs::write(directory.join("app.yaml"), "apiVersion: v1\nkind: Secret\nmetadata: {name: a}\n").unwrap();
    // Only the top level is a chart's: deeper files of those names are read as manifests.
    std::fs::write(nested.join("values.yaml"), "apiVersion: v1\nkind: Secret\nmetadata: {name: b}\n").unwrap();
    let manifests = load(std::slice::from_ref(&directory)).unwrap();
    assert_eq!(names(&manifests), ["Secret/a", "Secret/b"]);
    // Named explicitly, a Chart.yaml is read as what it is, and refused.
    assert!(load(&[directory.join("Chart.yaml")]).is_err());
    std::fs::remove_dir_all(&directory).unwrap();
}
