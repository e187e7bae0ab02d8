use super::*;
use crate::schema::Structural;
use serde_json::json;

fn evaluated(schema: &Value, object: &Value, old: Option<&Value>) -> Vec<String> {
    let schema = Structural::parse(schema);
    evaluate::errors(&schema, object, old).iter().map(ToString::to_string).collect()
}

/// A schema whose `spec` has `rules` and `properties`.
fn spec_rules(rules: Value, properties: Value) -> Value {
    json!({"type": "object", "properties": {"spec": {"type": "object", "x-kubernetes-validations": rules,
        "properties": properties}}})
}

fn replicas_rule(rule: Value) -> Value {
    spec_rules(json!([rule]), json!({"replicas": {"type": "integer"}, "name": {"type": "string"}}))
}

#[test]
fn a_false_rule_is_worded_as_the_server_words_it() {
    let zero = json!({"spec": {"replicas": 0, "name": "w"}});
    let cases = [
        (
            json!({"rule": "self.replicas > 0", "message": "replicas must be positive"}),
            "spec: Invalid value: replicas must be positive",
        ),
        (json!({"rule": " self.replicas > 0 "}), "spec: Invalid value: failed rule: self.replicas > 0"),
        (
            json!({"rule": "self.replicas > 0", "messageExpression": "'replicas is ' + string(self.replicas)", "message": "m"}),
            "spec: Invalid value: replicas is 0",
        ),
        (
            json!({"rule": "self.replicas > 0", "messageExpression": "'  '", "message": "fallback"}),
            "spec: Invalid value: fallback",
        ),
        (
            json!({"rule": "self.replicas > 0", "messageExpression": "string(1 / self.replicas)"}),
            "spec: Invalid value: failed rule: self.replicas > 0",
        ),
        (json!({"rule": "self.replicas > 0", "reason": "FieldValueForbidden", "message": "no"}), "spec: Forbidden: no"),
        (
            json!({"rule": "self.replicas > 0", "reason": "FieldValueRequired", "message": "set it"}),
            "spec: Required value: set it",
        ),
        (json!({"rule": "self.replicas > 0", "reason": "FieldValueDuplicate"}), "spec: Duplicate value"),
        (
            json!({"rule": "self.replicas > 0", "fieldPath": ".replicas", "message": "positive"}),
            "spec.replicas: Invalid value: positive",
        ),
        (
            json!({"rule": "[1][self.replicas + 3] == 1", "message": "m"}),
            r#"spec: Invalid value: "object": index out of bounds: 3 evaluating rule: m"#,
        ),
        (
            json!({"rule": "self.replicas + 9223372036854775807 + 9223372036854775807 > 0", "message": "m"}),
            r#"spec: Invalid value: "object": integer overflow evaluating rule: m"#,
        ),
        (
            json!({"rule": "self.replicas / 0 > 1", "message": "m"}),
            r#"spec: Invalid value: "object": division by zero evaluating rule: m"#,
        ),
    ];
    for (rule, expected) in cases {
        assert_eq!(evaluated(&replicas_rule(rule.clone()), &zero, None), [expected], "{rule}");
    }
}

#[test]
fn formatted_strings_are_durations_timestamps_and_bytes_to_rules() {
    let schema = spec_rules(
        json!([]),
        json!({
            "period": {"type": "string", "format": "duration",
                       "x-kubernetes-validations": [{"rule": "self >= duration('1s') && self <= duration('1h')", "message": "1s to 1h"}]},
            "since": {"type": "string", "format": "date-time",
                      "x-kubernetes-validations": [{"rule": "self > timestamp('2020-01-01T00:00:00Z')", "message": "after 2020"}]},
            "day": {"type": "string", "format": "date",
                    "x-kubernetes-validations": [{"rule": "self.getFullYear() == 2026", "message": "in 2026"}]},
            "payload": {"type": "string", "format": "byte",
                        "x-kubernetes-validations": [{"rule": "size(self) == 3", "message": "three bytes"}]}}),
    );
    let valid =
        json!({"spec": {"period": "30m", "since": "2026-11-29T12:00:00Z", "day": "2026-11-29", "payload": "YWJj"}});
    assert!(evaluated(&schema, &valid, None).is_empty());
    let invalid = json!({"spec": {"period": "2h", "since": "2019-01-01T00:00:00+02:00", "day": "2025-01-01", "payload": "YWJjZA=="}});
    assert_eq!(
        evaluated(&schema, &invalid, None),
        [
            r#"spec.day: Invalid value: "2025-01-01": in 2026"#,
            r#"spec.payload: Invalid value: "YWJjZA==": three bytes"#,
            r#"spec.period: Invalid value: "2h": 1s to 1h"#,
            r#"spec.since: Invalid value: "2019-01-01T00:00:00+02:00": after 2020"#,
        ]
    );
}

#[test]
fn a_missing_key_of_a_map_is_an_error_of_the_rule() {
    let schema = spec_rules(
        json!([{"rule": "self.labels['team'] == 'web'"}]),
        json!({"labels": {"type": "object", "additionalProperties": {"type": "string"}}}),
    );
    assert_eq!(
        evaluated(&schema, &json!({"spec": {"labels": {"app": "x"}}}), None),
        [r#"spec: Invalid value: "object": no such key: team evaluating rule: self.labels['team'] == 'web'"#]
    );
}

#[test]
fn properties_named_as_cel_words_or_with_dashes_are_escaped() {
    assert_eq!(values::escape("namespace").as_deref(), Some("__namespace__"));
    assert_eq!(values::escape("a__b.c-d/e").as_deref(), Some("a__underscores__b__dot__c__dash__d__slash__e"));
    assert_eq!(values::escape("1st"), None);
    assert_eq!(values::escape("a b"), None);
    let schema = spec_rules(
        json!([{"rule": "!has(self.__namespace__) || self.__namespace__ != self.x__dash__y", "message": "differ"}]),
        json!({"namespace": {"type": "string"}, "x-y": {"type": "string"}}),
    );
    assert!(crd_errors(&crd(schema.clone())).is_empty());
    assert_eq!(
        evaluated(&schema, &json!({"spec": {"namespace": "a", "x-y": "a"}}), None),
        ["spec: Invalid value: differ"]
    );
    assert!(evaluated(&schema, &json!({"spec": {"x-y": "a"}}), None).is_empty());
}

#[test]
fn scalars_print_their_value_and_the_root_has_no_field() {
    let schema = json!({"type": "object", "x-kubernetes-validations": [{"rule": "self.metadata.name.startsWith('w-')"}],
        "properties": {"spec": {"type": "object", "properties": {
            "name": {"type": "string", "x-kubernetes-validations": [{"rule": "self.size() < 3", "message": "short"}]},
            "count": {"type": "integer", "x-kubernetes-validations": [{"rule": "self % 2 == 0", "message": "even"}]},
            "ratio": {"type": "number", "x-kubernetes-validations": [{"rule": "self < 0.5", "message": "small"}]},
            "port": {"x-kubernetes-int-or-string": true, "x-kubernetes-validations": [{"rule": "type(self) == int", "message": "a number"}]},
            "labels": {"type": "object", "additionalProperties": {"type": "string",
                "x-kubernetes-validations": [{"rule": "self != 'x'", "message": "not x"}]}}}}}});
    let object = json!({"metadata": {"name": "v", "labels": {"a": "b"}}, "spec": {"name": "long", "count": 3, "ratio": 1,
        "port": "http", "labels": {"a.b": "x"}}});
    assert_eq!(
        evaluated(&schema, &object, None),
        [
            "<nil>: Invalid value: failed rule: self.metadata.name.startsWith('w-')",
            "spec.count: Invalid value: 3: even",
            "spec.labels[a.b]: Invalid value: \"x\": not x",
            "spec.name: Invalid value: \"long\": short",
            "spec.port: Invalid value: \"http\": a number",
            "spec.ratio: Invalid value: 1: small",
        ]
    );
}

#[test]
fn transition_rules_run_on_updates_where_an_old_value_is_correlated() {
    let schema = spec_rules(
        json!([{"rule": "self.replicas >= oldSelf.replicas", "message": "may not shrink"}]),
        json!({"replicas": {"type": "integer"},
            "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}},
                    "x-kubernetes-validations": [{"rule": "self.port == oldSelf.port", "message": "port is immutable"}]}},
            "hosts": {"type": "array", "items": {"type": "object", "properties": {"host": {"type": "string"}},
                "x-kubernetes-validations": [{"rule": "self.host == oldSelf.host"}]}}}),
    );
    let old = json!({"spec": {"replicas": 3, "ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}], "hosts": [{"host": "x"}]}});
    let new = json!({"spec": {"replicas": 2, "ports": [{"name": "b", "port": 3}, {"name": "c", "port": 4}], "hosts": [{"host": "y"}]}});
    assert!(evaluated(&schema, &new, None).is_empty(), "no old value on a create");
    assert_eq!(
        evaluated(&schema, &new, Some(&old)),
        ["spec: Invalid value: may not shrink", "spec.ports[0]: Invalid value: port is immutable"],
        "a map list's items are correlated by their keys, an atomic list's are not"
    );
    let optional = spec_rules(
        json!([{"rule": "oldSelf.hasValue() || self.replicas == 1", "optionalOldSelf": true, "message": "start at one"}]),
        json!({"replicas": {"type": "integer"}}),
    );
    assert_eq!(evaluated(&optional, &json!({"spec": {"replicas": 2}}), None), ["spec: Invalid value: start at one"]);
    assert!(
        evaluated(&optional, &json!({"spec": {"replicas": 2}}), Some(&json!({"spec": {"replicas": 1}}))).is_empty()
    );
}

#[test]
fn an_unchanged_value_is_not_refused_again() {
    let schema = spec_rules(
        json!([]),
        json!({"name": {"type": "string", "x-kubernetes-validations": [{"rule": "self.size() < 3"}]},
               "size": {"type": "integer", "x-kubernetes-validations": [{"rule": "self < 3"}]}}),
    );
    let old = json!({"spec": {"name": "long", "size": 1}});
    let new = json!({"spec": {"name": "long", "size": 2}});
    let (errors, warnings) = crate::warnings::collect(|| evaluated(&schema, &new, Some(&old)));
    assert!(errors.is_empty());
    assert_eq!(
        warnings,
        [r#"spec.name: Invalid value: "long": failed rule: self.size() < 3"#],
        "answered as a warning"
    );
    assert_eq!(
        evaluated(&schema, &json!({"spec": {"name": "longer", "size": 2}}), Some(&old)),
        [r#"spec.name: Invalid value: "longer": failed rule: self.size() < 3"#]
    );
}

#[test]
fn a_rule_over_the_cost_limit_stops_the_rules() {
    let expensive = spec_rules(
        json!([{"rule": "self.items.all(a, self.items.all(b, self.items.all(c, a + b + c != '')))"},
               {"rule": "false", "message": "never reached"}]),
        json!({"items": {"type": "array", "items": {"type": "string"}}}),
    );
    let items: Vec<String> = (0..200).map(|index| index.to_string()).collect();
    assert_eq!(
        evaluated(&expensive, &json!({"spec": {"items": items}}), None),
        [
            "spec: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.items.all(a, self.items.all(b, self.items.all(c, a + b + c != '')))"
        ]
    );
    assert_eq!(
        evaluated(&expensive, &json!({"spec": {"items": ["a", "b"]}}), None),
        ["spec: Invalid value: never reached"]
    );
    let expensive_message = spec_rules(
        json!([{"rule": "false", "messageExpression": "self.items.map(a, self.items.map(b, self.items.map(c, a + b + c))).join(',')"},
               {"rule": "false", "message": "never reached"}]),
        json!({"items": {"type": "array", "items": {"type": "string"}}}),
    );
    let items: Vec<String> = (0..200).map(|index| index.to_string()).collect();
    assert_eq!(
        evaluated(&expensive_message, &json!({"spec": {"items": items}}), None),
        [
            r#"spec: Invalid value: "object": no further validation rules will be run due to call cost exceeds limit for messageExpression: "self.items.map(a, self.items.map(b, self.items.map(c, a + b + c))).join(',')""#
        ]
    );
}

#[test]
fn hostile_rules_neither_panic_nor_run_unbounded() {
    let hostile = [
        format!("size({}true{}) == 1", "[".repeat(150), "]".repeat(150)),
        "1 + 1 + ".repeat(1500) + "1 == 2",
        format!("self{} == 1", ".a".repeat(300)),
        "1 + 1 + ".repeat(3000) + "1 == 2",
    ];
    let rules: Vec<Value> = hostile.iter().map(|rule| json!({"rule": rule})).collect();
    let schema = json!({"type": "object", "x-kubernetes-validations": rules});
    assert!(crd_errors(&crd(schema.clone())).is_empty(), "rules cel-go may compile are not refused");
    assert!(evaluated(&schema, &json!({"a": 1}), None).is_empty(), "nor run");
    let negations =
        json!({"type": "object", "x-kubernetes-validations": [{"rule": "!".repeat(5001) + "true", "message": "odd"}]});
    assert_eq!(evaluated(&negations, &json!({}), None), ["<nil>: Invalid value: odd"]);
}

#[test]
fn is_url_judges_as_kubernetes_does() {
    let schema = spec_rules(
        json!([{"rule": "isURL(self.endpoint) && self.endpoint.startsWith('https://')", "message": "an https URL"}]),
        json!({"endpoint": {"type": "string"}}),
    );
    assert!(evaluated(&schema, &json!({"spec": {"endpoint": "https://example.com/a"}}), None).is_empty());
    assert_eq!(
        evaluated(&schema, &json!({"spec": {"endpoint": "https://exa mple.com"}}), None),
        ["spec: Invalid value: an https URL"]
    );
}

#[test]
fn cel_bind_names_a_value_in_a_rule() {
    let schema = spec_rules(
        json!([{"rule": "cel.bind(prefix, self.name + '-', self.hosts.all(h, h.startsWith(prefix)))", "message": "prefixed"}]),
        json!({"name": {"type": "string"}, "hosts": {"type": "array", "items": {"type": "string"}}}),
    );
    assert!(crd_errors(&crd(schema.clone())).is_empty(), "the bound name is declared");
    assert!(evaluated(&schema, &json!({"spec": {"name": "web", "hosts": ["web-a"]}}), None).is_empty());
    assert_eq!(
        evaluated(&schema, &json!({"spec": {"name": "web", "hosts": ["db-a"]}}), None),
        ["spec: Invalid value: prefixed"]
    );
}

#[test]
fn a_function_the_simulated_cluster_lacks_leaves_the_rule_unevaluated() {
    let schema = spec_rules(
        json!([{"rule": "url(self.endpoint).getScheme() == 'https'"}, {"rule": "self.ports.isSorted()"}, {"rule": "self.ports.indexOf(80) == 0"},
               {"rule": "self.ports.size() < 2", "message": "one port"}]),
        json!({"endpoint": {"type": "string"}, "ports": {"type": "array", "items": {"type": "integer"}}}),
    );
    assert!(crd_errors(&crd(schema.clone())).is_empty(), "they compile");
    let two_variables = spec_rules(
        json!([{"rule": "self.labels.all(key, value, value != '')", "message": "no empty label"}]),
        json!({"labels": {"type": "object", "additionalProperties": {"type": "string"}}}),
    );
    assert!(crd_errors(&crd(two_variables.clone())).is_empty(), "a two-variable comprehension declares its names");
    assert!(evaluated(&two_variables, &json!({"spec": {"labels": {"a": ""}}}), None).is_empty(), "and is not judged");
    assert_eq!(
        evaluated(&schema, &json!({"spec": {"endpoint": "not a url", "ports": [443, 80]}}), None),
        ["spec: Invalid value: one port"],
        "only the rule without Kubernetes functions is judged"
    );
}

fn crd(schema: Value) -> Value {
    json!({"spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema": schema}}]}})
}

#[test]
fn a_crd_whose_rules_do_not_compile_is_refused_with_cel_gos_words() {
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"replicas": {"type": "integer"}}, "x-kubernetes-validations": [
            {"rule": "self.replicas >", "message": "m"},
            {"rule": "self.replica > 0"},
            {"rule": "replicas > 0"},
            {"rule": "self.replicas > 0", "optionalOldSelf": true},
            {"rule": "self.replicas > 0", "messageExpression": "self.nope"},
            {"rule": "self.replicas == oldSelf.replicas", "optionalOldSelf": true,
             "messageExpression": "oldSelf.hasValue() ? 'changed' : 'new'"}]}},
        "x-kubernetes-validations": [{"rule": "self.metadata.labels.size() > 0"}, {"rule": "self.metadata.name != ''"}]});
    let errors: Vec<String> = crd_errors(&crd(schema)).iter().map(ToString::to_string).collect();
    let rule = |text: &str, message: &str, expression: &str| {
        format!(
            r#"{{"Rule":"{text}","Message":"{message}","MessageExpression":"{expression}","Reason":null,"FieldPath":"","OptionalOldSelf":null}}"#
        )
    };
    let spec = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations";
    assert_eq!(
        errors,
        [
            format!(
                "{spec}[0].rule: Invalid value: {}: compilation failed: ERROR: <input>:1:16: Syntax error: mismatched input '<EOF>' expecting {{'[', '{{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}}\n | self.replicas >\n | ...............^",
                rule(r"self.replicas \u003e", "m", "")
            ),
            format!(
                "{spec}[1].rule: Invalid value: {}: compilation failed: ERROR: <input>:1:5: undefined field 'replica'\n | self.replica > 0\n | ....^",
                rule(r"self.replica \u003e 0", "", "")
            ),
            format!(
                "{spec}[2].rule: Invalid value: {}: compilation failed: ERROR: <input>:1:1: undeclared reference to 'replicas' (in container '')\n | replicas > 0\n | ^",
                rule(r"replicas \u003e 0", "", "")
            ),
            format!("{spec}[3].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule"),
            format!(
                "{spec}[4].messageExpression: Invalid value: {}: messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope\n | ....^",
                rule(r"self.replicas \u003e 0", "", "self.nope")
            ),
            format!(
                "spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Invalid value: {}: compilation failed: ERROR: <input>:1:14: undefined field 'labels'\n | self.metadata.labels.size() > 0\n | .............^",
                rule(r"self.metadata.labels.size() \u003e 0", "", "")
            ),
        ]
    );
}

#[test]
fn a_rule_that_is_not_a_bool_and_a_message_that_is_not_a_string_are_refused() {
    let schema = spec_rules(
        json!([{"rule": "self.replicas"}, {"rule": "self.name"}, {"rule": "self.enabled || has(self.name)"}, {"rule": "size(self.name) + 1"},
               {"rule": "self.replicas > 0 ? 'yes' : 'no'"}, {"rule": "self.enabled", "messageExpression": "self.replicas > 1"},
               {"rule": "self.enabled", "messageExpression": "self.name"}, {"rule": "self.enabled", "messageExpression": "self.replicas"}]),
        json!({"replicas": {"type": "integer"}, "name": {"type": "string"}, "enabled": {"type": "boolean"}}),
    );
    let errors: Vec<String> =
        crd_errors(&crd(schema)).iter().map(|error| format!("{}: {}", error.field, error.detail)).collect();
    let spec = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations";
    assert_eq!(
        errors,
        [
            format!("{spec}[0].rule: cel expression must evaluate to a bool"),
            format!("{spec}[1].rule: cel expression must evaluate to a bool"),
            format!("{spec}[3].rule: cel expression must evaluate to a bool"),
            format!("{spec}[4].rule: cel expression must evaluate to a bool"),
            format!("{spec}[5].messageExpression: messageExpression must evaluate to a string"),
            format!("{spec}[7].messageExpression: messageExpression must evaluate to a string"),
        ]
    );
}

#[test]
fn a_transition_rule_under_a_list_that_is_not_a_map_is_refused() {
    let schema = spec_rules(
        json!([]),
        json!({"hosts": {"type": "array", "items": {"type": "object", "properties": {"host": {"type": "string"}},
                "x-kubernetes-validations": [{"rule": "self.host == oldSelf.host"}]}},
               "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "properties": {"name": {"type": "string"}},
                  "x-kubernetes-validations": [{"rule": "self.name == oldSelf.name"}]}}}),
    );
    let errors: Vec<String> = crd_errors(&crd(schema)).iter().map(ToString::to_string).collect();
    let spec = "spec.validation.openAPIV3Schema.properties[spec]";
    assert_eq!(
        errors,
        [format!(
            "{spec}.properties[hosts].items.x-kubernetes-validations[0].rule: Invalid value: \"self.host == oldSelf.host\": \
             oldSelf cannot be used on the uncorrelatable portion of the schema within {spec}.properties[hosts]"
        )]
    );
}

#[test]
fn a_rules_own_errors_come_first_and_keep_its_node_from_compiling() {
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"replicas": {"type": "integer"}}, "x-kubernetes-validations": [
            {"rule": "replicas > 0", "reason": "FieldValueWrong"},
            {"rule": " "},
            {"rule": "true", "message": "  "},
            {"rule": "true", "fieldPath": ".nothing"}]},
        "other": {"type": "string", "x-kubernetes-validations": [{"rule": "self >"}]}}});
    let errors: Vec<String> = crd_errors(&crd(schema)).iter().map(ToString::to_string).collect();
    let spec = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations";
    assert_eq!(errors.len(), 5, "{errors:#?}");
    assert_eq!(
        errors[..4],
        [
            format!(
                "{spec}[0].reason: Unsupported value: \"FieldValueWrong\": supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\""
            ),
            format!("{spec}[1].rule: Required value: rule is not specified"),
            format!("{spec}[2].message: Invalid value: \"  \": must be non-empty if specified"),
            format!("{spec}[3].fieldPath: Invalid value: \".nothing\": must be a valid path"),
        ]
    );
    assert!(
        errors[4].starts_with("spec.validation.openAPIV3Schema.properties[other].x-kubernetes-validations[0].rule")
    );
}

#[test]
fn versions_with_different_schemas_are_named_by_their_index() {
    let one = json!({"type": "object", "x-kubernetes-validations": [{"rule": "self.x"}]});
    let two = json!({"type": "object"});
    let crd = json!({"spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema": two}},
                                           {"name": "v2", "schema": {"openAPIV3Schema": one}}]}});
    let errors = crd_errors(&crd);
    assert!(errors.is_empty(), "an object without properties is not checked for fields: {errors:?}");
    let crd = json!({"spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema": two}},
        {"name": "v2", "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-validations": [{"rule": "x"}]}}}]}});
    let errors = crd_errors(&crd);
    assert!(
        errors.first().is_some_and(
            |error| error.field == "spec.versions[1].schema.openAPIV3Schema.x-kubernetes-validations[0].rule"
        ),
        "{errors:?}"
    );
}

/// The YAML documents of `path` that are objects.
fn documents(path: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let documents: Vec<Value> =
        serde_saphyr::from_multiple(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    documents.into_iter().filter(Value::is_object).collect()
}

/// The files under `dir`, in name order.
fn files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|error| panic!("{}: {error}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() { pending.push(path) } else { found.push(path) }
        }
    }
    found.sort();
    found
}

#[test]
fn gateway_apis_crds_accept_its_valid_objects_and_refuse_its_invalid_ones_as_the_apiservers_tests_hold_them() {
    let base = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/gateway-api"));
    let mut defs = Vec::new();
    for crd in documents(&base.join("crds/standard-install.yaml")) {
        assert!(crd_errors(&crd).is_empty(), "{}: its rules compile", crd["metadata"]["name"]);
        let json: std::sync::Arc<[u8]> = serde_json::to_vec(&crd).expect("JSON").into();
        defs.extend(crate::registry::stored_crd_resources(&crd, json).expect("a valid CRD"));
    }
    let mut checked = (0, 0);
    for (folder, valid) in [("valid", true), ("invalid", false)] {
        for path in files(&base.join(folder)) {
            for mut object in documents(&path) {
                let (api_version, kind) = (object["apiVersion"].clone(), object["kind"].clone());
                let Some(def) =
                    defs.iter().find(|def| api_version == def.api_version().as_str() && kind == def.kind.as_str())
                else {
                    continue;
                };
                let schema = def.crd.as_ref().and_then(|crd| crd.schema()).expect("a schema");
                crate::schema::coerce(&mut object, schema);
                let errors = crate::validation::errors(def, None, &object);
                assert_eq!(errors.is_empty(), valid, "{}: {errors:?}", path.display());
                let unchanged = crate::validation::errors(def, Some(&object), &object);
                assert!(
                    unchanged.is_empty(),
                    "{}: an unchanged object is not refused again: {unchanged:?}",
                    path.display()
                );
                if valid { checked.0 += 1 } else { checked.1 += 1 }
            }
        }
    }
    assert_eq!(checked, (57, 29), "every Gateway API object was checked");
}
