//! Validation of a custom resource against its CRD's schema, with kube-apiserver's messages: kube-openapi's
//! `SchemaValidator` (its validators in its order: type, allOf/anyOf/oneOf/not, string, format, number, array,
//! enum, object) and apiextensions-apiserver's `kubeOpenAPIResultToFieldErrors`, which turns each failure into
//! the field error a client prints (`spec.replicas: Invalid value: "string": spec.replicas in body must be of
//! type integer: "string"`, `spec.chart: Required value`, `spec.mode: Unsupported value: "x": supported
//! values: "a", "b"`, `spec.name: Too long: may not be more than 53 bytes`).
//!
//! On an update, a value equal to the old one at the same place is not validated again (the apiserver's
//! validation ratcheting: a CRD whose schema became stricter does not lock existing objects). Properties are
//! validated in name order where the apiserver's map order varies.

use super::{Structural, format};
use crate::field_error::{ErrorType, FieldError};
use serde_json::Value;

/// Where kube-openapi says a value is (`in body`).
const IN: &str = "in body";

/// Every error of `object` (with `old`, an update) against `schema`.
pub fn validate(schema: &Structural, object: &Value, old: Option<&Value>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    node(schema, object, old, "", &mut errors);
    errors
}

/// Every error of a status write (the status strategy's `ValidateStatusUpdate`): `status` against the schema's
/// `status` property alone, by a validator rooted there (kube-openapi's details name `phase`, not
/// `status.phase`), its field errors then put under `status`. Nothing is checked when the schema has no status.
pub fn validate_status(schema: &Structural, object: &Value, old: Option<&Value>) -> Vec<FieldError> {
    let (Some(status_schema), Some(status)) = (schema.properties.get("status"), object.get("status")) else {
        return Vec::new();
    };
    let mut errors = validate(status_schema, status, old.and_then(|old| old.get("status")));
    for error in &mut errors {
        error.field = if error.field == "<nil>" { "status".to_string() } else { format!("status.{}", error.field) };
    }
    errors
}

/// The JSON type name kube-openapi gives a value.
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) if number.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Go's `%v` of a float64: the shortest decimal, in exponent form (`1e+06`) from the seventh digit before
/// the point or the fifth zero after it.
pub fn go_float(number: f64) -> String {
    if !number.is_finite() {
        return if number.is_nan() {
            "NaN".into()
        } else if number > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    let scientific = format!("{number:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if (-4..6).contains(&exponent) || number == 0.0 {
        return format!("{number}");
    }
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.abs())
}

/// A value as `field.Error` prints it: strings quoted, numbers and booleans plain, the rest as JSON.
pub(crate) fn printed(value: &Value) -> String {
    match value {
        Value::String(text) => crate::field_error::quote(text),
        Value::Number(number) => match number.as_f64() {
            Some(float) if number.is_f64() => go_float(float),
            _ => number.to_string(),
        },
        other => other.to_string(),
    }
}

fn error(error_type: ErrorType, path: &str, value: Option<String>, detail: String) -> FieldError {
    FieldError { error_type, field: field_path(path), value, detail }
}

/// The field a failure at kube-openapi path `path` is reported on; the root has none (`<nil>`).
fn field_path(path: &str) -> String {
    let trimmed = path.trim_start_matches('.');
    if trimmed.is_empty() { "<nil>".to_string() } else { trimmed.to_string() }
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_string() } else { format!("{path}.{key}") }
}

fn node(schema: &Structural, value: &Value, old: Option<&Value>, path: &str, errors: &mut Vec<FieldError>) {
    if old == Some(value) {
        return;
    }
    type_check(schema, value, path, errors);
    if value.is_null() {
        enumeration(schema, value, path, errors);
        return;
    }
    composition(schema, value, path, errors);
    if let Value::String(text) = value {
        string(schema, text, path, errors);
        if let Some(name) = &schema.checks.format
            && !format::matches(name, text)
        {
            let detail = format!("{path} {IN} must be of type {name}: {}", printed(value));
            errors.push(error(ErrorType::TypeInvalid, path, Some(printed(value)), detail));
        }
    }
    if value.is_number() {
        number(schema, value, path, errors);
    }
    if let Value::Array(items) = value {
        array(schema, items, path, errors);
    }
    enumeration(schema, value, path, errors);
    if let Value::Object(map) = value {
        object(schema, map, old.and_then(Value::as_object), path, errors);
    }
}

/// The schema's types (`x-kubernetes-int-or-string` is integer or string).
fn types(schema: &Structural) -> Vec<&str> {
    if schema.int_or_string {
        return vec!["integer", "string"];
    }
    schema.value_type.as_deref().into_iter().collect()
}

fn type_check(schema: &Structural, value: &Value, path: &str, errors: &mut Vec<FieldError>) {
    let expected = types(schema);
    if expected.is_empty() {
        return;
    }
    let actual = type_name(value);
    let integral_float = value.as_f64().is_some_and(|float| float.fract() == 0.0) && expected.contains(&"integer");
    let accepted = match actual {
        "null" => schema.nullable,
        "integer" => expected.contains(&"integer") || expected.contains(&"number"),
        "number" => expected.contains(&"number") || integral_float,
        other => expected.contains(&other),
    };
    if !accepted {
        let detail = format!("{path} {IN} must be of type {}: \"{actual}\"", expected.join(","));
        errors.push(error(ErrorType::TypeInvalid, path, Some(format!("\"{actual}\"")), detail));
    }
}

/// allOf, anyOf, oneOf and not: the apiserver reports their failures on no field (`<nil>`).
fn composition(schema: &Structural, value: &Value, path: &str, errors: &mut Vec<FieldError>) {
    let checks = &schema.checks;
    let quoted = crate::field_error::quote(path);
    let composite = |message: String| error(ErrorType::Invalid, "", Some("\"\"".to_string()), message);
    let results = |schemas: &[Structural]| -> Vec<Vec<FieldError>> {
        schemas.iter().map(|alternative| validate_at(alternative, value, path)).collect()
    };
    if !checks.any_of.is_empty() {
        let outcomes = results(&checks.any_of);
        if !outcomes.iter().any(Vec::is_empty) {
            errors.push(composite(format!("{quoted} must validate at least one schema (anyOf)")));
            errors.extend(outcomes.into_iter().min_by_key(Vec::len).unwrap_or_default());
        }
    }
    if !checks.one_of.is_empty() {
        let outcomes = results(&checks.one_of);
        let valid = outcomes.iter().filter(|outcome| outcome.is_empty()).count();
        if valid != 1 {
            let found =
                if valid == 0 { "Found none valid".to_string() } else { format!("Found {valid} valid alternatives") };
            errors.push(composite(format!("{quoted} must validate one and only one schema (oneOf). {found}")));
            if valid == 0 {
                errors.extend(outcomes.into_iter().min_by_key(Vec::len).unwrap_or_default());
            }
        }
    }
    if !checks.all_of.is_empty() {
        let outcomes = results(&checks.all_of);
        let valid = outcomes.iter().filter(|outcome| outcome.is_empty()).count();
        errors.extend(outcomes.into_iter().flatten());
        if valid != checks.all_of.len() {
            let none = if valid == 0 { ". None validated" } else { "" };
            errors.push(composite(format!("{quoted} must validate all the schemas (allOf){none}")));
        }
    }
    if let Some(not) = &checks.not
        && validate_at(not, value, path).is_empty()
    {
        errors.push(composite(format!("{quoted} must not validate the schema (not)")));
    }
}

fn validate_at(schema: &Structural, value: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    node(schema, value, None, path, &mut errors);
    errors
}

/// maxLength, minLength, pattern: the first that fails (lengths in characters).
fn string(schema: &Structural, text: &str, path: &str, errors: &mut Vec<FieldError>) {
    let checks = &schema.checks;
    let length = i64::try_from(text.chars().count()).unwrap_or(i64::MAX);
    let value = Some(crate::field_error::quote(text));
    if let Some(max) = checks.max_length
        && length > max
    {
        errors.push(FieldError::too_long(field_path(path), usize::try_from(max).unwrap_or(0)));
    } else if let Some(min) = checks.min_length
        && length < min
    {
        let detail = format!("{path} {IN} should be at least {min} chars long");
        errors.push(error(ErrorType::Invalid, path, value, detail));
    } else if let Some(pattern) = &checks.pattern {
        // kube-openapi's `Pattern`: a pattern that does not compile fails every value, saying so.
        let failed = match pattern.is_match(text) {
            Ok(true) => None,
            Ok(false) => Some(pattern.text.clone()),
            Err(cause) => Some(format!("{}, but pattern is invalid: {cause}", pattern.text)),
        };
        if let Some(expected) = failed {
            let detail = format!("{path} {IN} should match '{expected}'");
            errors.push(error(ErrorType::Invalid, path, value, detail));
        }
    }
}

/// multipleOf, minimum, maximum. An integer is compared with the bound as an integer and the bound printed so;
/// a float with the bound as a float.
fn number(schema: &Structural, value: &Value, path: &str, errors: &mut Vec<FieldError>) {
    let checks = &schema.checks;
    let integer = value.as_i64().or_else(|| value.as_u64().map(|unsigned| i64::try_from(unsigned).unwrap_or(i64::MAX)));
    let float = value.as_f64().unwrap_or(0.0);
    let bound = |bound: f64| match integer {
        Some(_) => format!("{}", bound as i64),
        None => go_float(bound),
    };
    let invalid = |detail: String| error(ErrorType::Invalid, path, Some(printed(value)), detail);
    if let Some(factor) = checks.multiple_of
        && factor > 0.0
    {
        let multiple = match integer {
            Some(integer) if factor.fract() == 0.0 && factor < 9.0e18 => integer % (factor as i64) == 0,
            _ => (float / factor).fract() == 0.0,
        };
        if !multiple {
            errors.push(invalid(format!("{path} {IN} should be a multiple of {}", go_float(factor))));
        }
    }
    if let Some(minimum) = checks.minimum {
        let below = match integer {
            Some(integer) => integer < minimum as i64 || (checks.exclusive_minimum && integer == minimum as i64),
            None => float < minimum || (checks.exclusive_minimum && float == minimum),
        };
        if below {
            let relation = if checks.exclusive_minimum { "greater than" } else { "greater than or equal to" };
            errors.push(invalid(format!("{path} {IN} should be {relation} {}", bound(minimum))));
        }
    }
    if let Some(maximum) = checks.maximum {
        let above = match integer {
            Some(integer) => integer > maximum as i64 || (checks.exclusive_maximum && integer == maximum as i64),
            None => float > maximum || (checks.exclusive_maximum && float == maximum),
        };
        if above {
            let relation = if checks.exclusive_maximum { "less than" } else { "less than or equal to" };
            errors.push(invalid(format!("{path} {IN} should be {relation} {}", bound(maximum))));
        }
    }
}

/// Items first, then minItems, maxItems, uniqueItems. Items are not compared with the old list's (an unchanged
/// list was skipped whole): the apiserver correlates the items of atomic lists not at all.
fn array(schema: &Structural, items: &[Value], path: &str, errors: &mut Vec<FieldError>) {
    if let Some(items_schema) = &schema.items {
        for (index, item) in items.iter().enumerate() {
            node(items_schema, item, None, &format!("{path}[{index}]"), errors);
        }
    }
    let checks = &schema.checks;
    counted(path, items.len(), (checks.min_items, checks.max_items), "items", errors);
    if checks.unique_items && items.iter().enumerate().any(|(index, item)| items[..index].contains(item)) {
        let detail = format!("{path} {IN} shouldn't contain duplicates");
        errors.push(error(ErrorType::Invalid, path, Some("\"\"".to_string()), detail));
    }
}

/// minItems/maxItems and minProperties/maxProperties: too few is `Invalid value: 0: spec.x in body should have
/// at least 1 items` (or properties), too many is `field.TooMany` (`Too many: 5: must have at most 3 items`,
/// properties too, as the apiserver maps both).
fn counted(path: &str, count: usize, (min, max): (Option<i64>, Option<i64>), unit: &str, errors: &mut Vec<FieldError>) {
    let size = i64::try_from(count).unwrap_or(i64::MAX);
    if let Some(min) = min
        && size < min
    {
        let detail = format!("{path} {IN} should have at least {min} {unit}");
        errors.push(error(ErrorType::Invalid, path, Some(size.to_string()), detail));
    }
    if let Some(max) = max
        && size > max
    {
        let items = if max == 1 { "item" } else { "items" };
        errors.push(error(
            ErrorType::TooMany,
            path,
            Some(size.to_string()),
            format!("must have at most {max} {items}"),
        ));
    }
}

fn equal(left: &Value, right: &Value) -> bool {
    match (left.as_f64(), right.as_f64()) {
        (Some(left), Some(right)) => left == right,
        _ => left == right,
    }
}

/// `enum`: `Unsupported value: "x": supported values: "a", "b"` (values that are not strings as JSON).
fn enumeration(schema: &Structural, value: &Value, path: &str, errors: &mut Vec<FieldError>) {
    let allowed = &schema.checks.enumeration;
    if allowed.is_empty() || allowed.iter().any(|candidate| equal(candidate, value)) {
        return;
    }
    let supported: Vec<String> = allowed
        .iter()
        .map(|candidate| match candidate {
            Value::String(text) => crate::field_error::quote(text),
            other => crate::field_error::quote(&other.to_string()),
        })
        .collect();
    let detail = format!("supported values: {}", supported.join(", "));
    errors.push(error(ErrorType::NotSupported, path, Some(printed(value)), detail));
}

/// min/maxProperties, then each property (compared with the old object's), then `required`.
fn object(
    schema: &Structural,
    map: &serde_json::Map<String, Value>,
    old: Option<&serde_json::Map<String, Value>>,
    path: &str,
    errors: &mut Vec<FieldError>,
) {
    let checks = &schema.checks;
    counted(path, map.len(), (checks.min_properties, checks.max_properties), "properties", errors);
    for (key, value) in map {
        let old_value = old.and_then(|old| old.get(key));
        if let Some(property) = schema.properties.get(key) {
            node(property, value, old_value, &child(path, key), errors);
        } else if let Some(additional) = schema.additional_properties.as_ref().and_then(super::Additional::schema) {
            node(additional, value, old_value, &child(path, key), errors);
        }
    }
    for required in &checks.required {
        if !map.contains_key(required) {
            errors.push(FieldError::required(field_path(&format!("{path}.{required}")), ""));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(schema: Value, object: Value) -> Vec<String> {
        let schema = Structural::parse(&schema);
        validate(&schema, &object, None).iter().map(ToString::to_string).collect()
    }

    fn spec(properties: Value) -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": properties}}})
    }

    #[test]
    fn each_check_fails_with_the_apiservers_message() {
        let cases = [
            (
                json!({"replicas": {"type": "integer"}}),
                json!({"replicas": "three"}),
                r#"spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string""#,
            ),
            (
                json!({"mode": {"type": "string", "enum": ["fast", "safe"]}}),
                json!({"mode": "slow"}),
                r#"spec.mode: Unsupported value: "slow": supported values: "fast", "safe""#,
            ),
            (
                json!({"level": {"type": "integer", "enum": [1, 2]}}),
                json!({"level": 3}),
                r#"spec.level: Unsupported value: 3: supported values: "1", "2""#,
            ),
            (
                json!({"name": {"type": "string", "maxLength": 5}}),
                json!({"name": "abcdef"}),
                "spec.name: Too long: may not be more than 5 bytes",
            ),
            (
                json!({"name": {"type": "string", "minLength": 3}}),
                json!({"name": "ab"}),
                r#"spec.name: Invalid value: "ab": spec.name in body should be at least 3 chars long"#,
            ),
            (
                json!({"name": {"type": "string", "pattern": "^[a-z]+$"}}),
                json!({"name": "A1"}),
                r#"spec.name: Invalid value: "A1": spec.name in body should match '^[a-z]+$'"#,
            ),
            (
                json!({"replicas": {"type": "integer", "minimum": 1}}),
                json!({"replicas": 0}),
                "spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1",
            ),
            (
                json!({"replicas": {"type": "integer", "maximum": 1000000}}),
                json!({"replicas": 2000000}),
                "spec.replicas: Invalid value: 2000000: spec.replicas in body should be less than or equal to 1000000",
            ),
            (
                json!({"ratio": {"type": "number", "maximum": 1000000}}),
                json!({"ratio": 2000000.5}),
                "spec.ratio: Invalid value: 2.0000005e+06: spec.ratio in body should be less than or equal to 1e+06",
            ),
            (
                json!({"ratio": {"type": "number", "maximum": 1, "exclusiveMaximum": true}}),
                json!({"ratio": 1}),
                "spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1",
            ),
            (
                json!({"hosts": {"type": "array", "minItems": 1, "items": {"type": "string"}}}),
                json!({"hosts": []}),
                "spec.hosts: Invalid value: 0: spec.hosts in body should have at least 1 items",
            ),
            (
                json!({"hosts": {"type": "array", "maxItems": 1, "items": {"type": "string"}}}),
                json!({"hosts": ["a", "b"]}),
                "spec.hosts: Too many: 2: must have at most 1 item",
            ),
            (
                json!({"hosts": {"type": "array", "items": {"type": "string"}}}),
                json!({"hosts": ["a", null]}),
                r#"spec.hosts[1]: Invalid value: "null": spec.hosts[1] in body must be of type string: "null""#,
            ),
            (
                json!({"since": {"type": "string", "format": "date-time"}}),
                json!({"since": "yesterday"}),
                r#"spec.since: Invalid value: "yesterday": spec.since in body must be of type date-time: "yesterday""#,
            ),
            (
                json!({"port": {"x-kubernetes-int-or-string": true}}),
                json!({"port": true}),
                r#"spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean""#,
            ),
        ];
        for (properties, given, expected) in cases {
            assert_eq!(messages(spec(properties), json!({"spec": given})), [expected]);
        }
        let required = json!({"type": "object", "required": ["spec"], "properties": {"spec": {"type": "object",
            "required": ["chart"], "properties": {"chart": {"type": "object"}}}}});
        assert_eq!(messages(required.clone(), json!({})), ["spec: Required value"]);
        assert_eq!(messages(required, json!({"spec": {}})), ["spec.chart: Required value"]);
        let any_of = spec(json!({"size": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}));
        assert_eq!(
            messages(any_of, json!({"spec": {"size": true}})),
            [
                r#"<nil>: Invalid value: "": "spec.size" must validate at least one schema (anyOf)"#,
                r#"spec.size: Invalid value: "boolean": spec.size in body must be of type integer: "boolean""#
            ]
        );
    }

    #[test]
    fn floats_that_are_integers_pass_as_integers_and_print_as_go_prints_them() {
        assert!(
            messages(spec(json!({"replicas": {"type": "integer"}})), json!({"spec": {"replicas": 3.0}})).is_empty()
        );
        let cases = [(1.0, "1"), (0.5, "0.5"), (123456.0, "123456"), (1234567.0, "1.234567e+06"), (0.00001, "1e-05")];
        for (number, expected) in cases {
            assert_eq!(go_float(number), expected);
        }
    }

    #[test]
    fn unchanged_values_are_not_validated_again_on_update() {
        let schema = Structural::parse(&spec(json!({"name": {"type": "string", "maxLength": 3},
                                                     "size": {"type": "integer", "maximum": 5}})));
        let old = json!({"spec": {"name": "toolong", "size": 1}});
        assert!(validate(&schema, &json!({"spec": {"name": "toolong", "size": 2}}), Some(&old)).is_empty());
        let changed = validate(&schema, &json!({"spec": {"name": "stilltoolong", "size": 2}}), Some(&old));
        assert_eq!(changed.len(), 1);
    }

    #[test]
    fn a_status_write_is_validated_against_the_status_schema_alone() {
        let schema = Structural::parse(&json!({"type": "object", "required": ["spec"], "properties": {
            "spec": {"type": "object"},
            "status": {"type": "object", "required": ["phase"], "properties": {
                "phase": {"type": "string", "enum": ["Ready"]}, "replicas": {"type": "integer"}}}}}));
        let printed = |object: Value| -> Vec<String> {
            validate_status(&schema, &object, None).iter().map(ToString::to_string).collect()
        };
        assert!(printed(json!({"status": {"phase": "Ready"}})).is_empty(), "the missing spec is not the status's");
        assert_eq!(
            printed(json!({"status": {"phase": "Broken", "replicas": "two"}})),
            [
                r#"status.phase: Unsupported value: "Broken": supported values: "Ready""#,
                r#"status.replicas: Invalid value: "string": replicas in body must be of type integer: "string""#,
            ]
        );
        assert_eq!(printed(json!({"status": {}})), ["status.phase: Required value"]);
        assert!(printed(json!({"spec": {}})).is_empty(), "no status, nothing to check");
    }
}
