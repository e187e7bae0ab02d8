//! `values.schema.json` validation as Helm's `ValidateAgainstSchema` does it (pkg/chart/common/util/jsonschema.go):
//! each chart's schema checked against that chart's values (a subchart's are the map under its name), the
//! failures gathered per chart and worded as santhosh-tekuri/jsonschema v6.0.2 words them (`- at '/replicas':
//! minimum: got 0, want 1`, numbers grouped by thousands as its English message printer groups them).
//!
//! Validation is boon's, the Rust port of that validator by the same author, which builds the same error tree;
//! the texts are written here.
//!
//! A schema reads nothing but itself. `$ref`s inside the document (`#/definitions/port`, an embedded `$id`)
//! resolve as in Helm; a `urn:` reference is the permissive schema `true`, as Helm's when no URN resolver is
//! plugged in. Every other reference is refused with an error naming `values.schema.json` and the `$ref`:
//! `file://` URLs, absolute paths and relative ones alike (the schema sits at `file:///values.schema.json`,
//! so `defs.json` or `../../etc/passwd` would name a file of the machine, never one of the chart), and
//! `http(s)://`, which berth never fetches while rendering. Helm 4.1 reads such files from the local disk
//! (santhosh-tekuri/jsonschema's `FileLoader`) and fetches http(s) references with a 15-second timeout
//! (`newHTTPURLLoader` in pkg/chart/common/util/jsonschema.go); a chart that relies on either fails here.

use std::error::Error;
use std::fmt::Write;

use berth_go::{Map, Value};
use boon::{CompileError, Compiler, ErrorKind, Schemas, UrlLoader, ValidationError};

use crate::chart::Chart;

/// Where Helm registers a chart's schema.
const SCHEMA_URL: &str = "file:///values.schema.json";

/// `ValidateAgainstSchema`: every chart with a schema, checked against its own values; all failures at once.
pub(crate) fn validate_against_schema(chart: &Chart, values: &Map) -> Result<(), String> {
    let mut report = String::new();
    collect(chart, values, &mut report, 0);
    if report.is_empty() { Ok(()) } else { Err(report) }
}

fn collect(chart: &Chart, values: &Map, report: &mut String, depth: usize) {
    if depth > crate::load::MAX_CHART_DEPTH {
        return;
    }
    if let Some(schema) = &chart.schema
        && let Err(error) = validate_single(values, schema)
    {
        let _ = write!(report, "{}:\n{error}", chart.name());
    }
    for subchart in &chart.dependencies {
        match values.get(subchart.name()) {
            None | Some(Value::Nil) => {}
            Some(Value::Map(sub_values)) => collect(subchart, &sub_values, report, depth + 1),
            Some(other) => {
                let _ = write!(
                    report,
                    "{}:\ninvalid type for values: expected object (map), got {}\n",
                    subchart.name(),
                    other.type_name()
                );
            }
        }
    }
}

/// What the validator may load besides the schema itself: `urn:` references, which Helm cannot resolve either,
/// as the permissive schema `true`; nothing else.
struct SelfContained;

/// A reference to another document, refused; the validator reports it for its URL.
#[derive(Debug, thiserror::Error)]
#[error("berth reads a values schema from values.schema.json alone: no file, path or network reference")]
struct Refused;

impl UrlLoader for SelfContained {
    fn load(&self, url: &str) -> Result<serde_json::Value, Box<dyn Error>> {
        if url.starts_with("urn:") { Ok(serde_json::Value::Bool(true)) } else { Err(Box::new(Refused)) }
    }
}

/// The compiler's error as the user reads it: a refused reference named by its `$ref` as written (when one
/// of the document resolves to it) and the URL it resolves to.
fn compile_error(error: &CompileError, document: &serde_json::Value) -> String {
    match error {
        CompileError::LoadUrlError { url, src } if src.is::<Refused>() => {
            let written = references(document).into_iter().find(|(_, resolved)| same_document(resolved, url));
            let named = match written {
                Some((written, resolved)) if written == resolved => berth_go::strconv::quote(&written),
                Some((written, resolved)) => format!("{} ({resolved})", berth_go::strconv::quote(&written)),
                None => berth_go::strconv::quote(url),
            };
            format!("values.schema.json: $ref {named} refused: {src}")
        }
        other => other.to_string(),
    }
}

/// Whether two URLs name the same document (fragments aside).
fn same_document(left: &str, right: &str) -> bool {
    fn document(url: &str) -> &str {
        url.split_once('#').map_or(url, |(document, _)| document)
    }
    document(left) == document(right)
}

/// Every `$ref`, `$dynamicRef` and `$schema` of the document, as written and as resolved against the base URL
/// in force where it sits (`$id`s change it, as in the validator).
fn references(document: &serde_json::Value) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let Ok(base) = url::Url::parse(SCHEMA_URL) else { return found };
    // A walk with a stack of its own: no recursion, however deep the document.
    let mut pending = vec![(document, base)];
    while let Some((value, base)) = pending.pop() {
        match value {
            serde_json::Value::Object(map) => {
                let base = match map.get("$id").and_then(serde_json::Value::as_str) {
                    Some(id) => base.join(id).unwrap_or(base),
                    None => base,
                };
                for keyword in ["$ref", "$dynamicRef", "$schema"] {
                    if let Some(written) = map.get(keyword).and_then(serde_json::Value::as_str)
                        && let Ok(resolved) = base.join(written)
                    {
                        found.push((written.to_string(), resolved.to_string()));
                    }
                }
                pending.extend(map.values().map(|child| (child, base.clone())));
            }
            serde_json::Value::Array(items) => pending.extend(items.iter().map(|child| (child, base.clone()))),
            _ => {}
        }
    }
    found
}

/// The stack the validator runs on: JSON values, the validator and their drops recurse once per level of the
/// values, which may nest as deep as the YAML reader allows.
const VALIDATOR_STACK: usize = 256 * 1024 * 1024;

/// `ValidateAgainstSingleSchema`: the error text Helm appends after the chart's name. Runs on a thread of its
/// own with a stack large enough for the deepest values.
pub(crate) fn validate_single(values: &Map, schema: &[u8]) -> Result<(), String> {
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("values-schema".into())
            .stack_size(VALIDATOR_STACK)
            .spawn_scoped(scope, || validate_single_here(values, schema))
            .map_err(|error| format!("unable to validate schema: {error}"))?;
        worker.join().unwrap_or_else(|_| Err("unable to validate schema: the validator failed".to_string()))
    })
}

fn validate_single_here(values: &Map, schema: &[u8]) -> Result<(), String> {
    let document: serde_json::Value = match serde_json::from_slice(schema) {
        Ok(document) => document,
        Err(error) => {
            // Go's decoder words syntax errors its own way.
            let text = String::from_utf8_lossy(schema);
            return Err(match super::json::decode_prefix(&text) {
                Err(go_error) => go_error.0,
                Ok(_) => error.to_string(),
            });
        }
    };
    let instance = to_json(&Value::Map(values.clone()));
    // Helm recovers from panics in the validator; so does berth.
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut compiler = Compiler::new();
        compiler.use_loader(Box::new(SelfContained));
        let mut schemas = Schemas::new();
        compiler.add_resource(SCHEMA_URL, document.clone()).map_err(|error| error.to_string())?;
        let index = compiler.compile(SCHEMA_URL, &mut schemas).map_err(|error| compile_error(&error, &document))?;
        match schemas.validate(&instance, index) {
            Ok(()) => Ok(()),
            Err(error) => {
                let mut text = String::new();
                display(&error, &mut text, 0);
                let text = text
                    .strip_prefix("jsonschema validation failed with 'file:///values.schema.json#'\n")
                    .map(str::to_string)
                    .unwrap_or(text);
                Err(format!("{text}\n"))
            }
        }
    }));
    match outcome {
        Ok(result) => result,
        Err(_) => Err("unable to validate schema: the validator failed".to_string()),
    }
}

/// The values as JSON for the validator: float64 and int64 numbers as they are.
fn to_json(value: &Value) -> serde_json::Value {
    match value {
        Value::Nil | Value::Function(_) | Value::Object(_) => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Int(n) | Value::Int64(n) => serde_json::Value::from(*n),
        Value::Uint(n) => serde_json::Value::from(*n),
        Value::Float(f) => serde_json::Number::from_f64(*f).map_or(serde_json::Value::Null, serde_json::Value::Number),
        Value::String(s) => serde_json::Value::String(s.to_string()),
        Value::List(items) => serde_json::Value::Array(items.iter().map(to_json).collect()),
        Value::Map(map) => {
            serde_json::Value::Object(map.snapshot().iter().map(|(k, v)| (k.to_string(), to_json(v))).collect())
        }
    }
}

/// A validation failure as Go's validator builds it, for display.
struct Failure {
    location: String,
    /// The message; `None` for a reference with a single cause (skipped when displayed) or the root schema.
    message: Option<String>,
    is_schema: bool,
    causes: Vec<Failure>,
}

/// Which combinator a subschema location belongs to (`.../allOf/2` is allOf's).
fn combinator_of(schema_url: &str) -> Option<&'static str> {
    let mut parts = schema_url.rsplit('/');
    let index = parts.next()?;
    if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    match parts.next()? {
        "allOf" => Some("'allOf' failed"),
        "anyOf" => Some("'anyOf' failed"),
        "oneOf" => Some("'oneOf' failed, none matched"),
        _ => None,
    }
}

/// boon's error tree in Go's shape. Go wraps the failures of `allOf`, `anyOf` and `oneOf` subschemas in the
/// combinator's error even when there is one; boon passes a single failure up unwrapped, so it is wrapped again
/// here (recognised by its subschema location).
fn convert(error: &ValidationError<'_, '_>, parent_message: Option<&str>) -> Failure {
    let skip = error.causes.len() == 1 && matches!(error.kind, ErrorKind::Reference { .. });
    let is_schema = matches!(error.kind, ErrorKind::Schema { .. });
    let own = message(&error.kind);
    let causes = error.causes.iter().map(|cause| convert(cause, Some(&own))).collect();
    let failure = Failure {
        location: error.instance_location.to_string(),
        message: if skip { None } else { Some(own) },
        is_schema,
        causes,
    };
    match combinator_of(error.schema_url) {
        Some(wrapper) if parent_message != Some(wrapper) && !is_schema => Failure {
            location: failure.location.clone(),
            message: Some(wrapper.to_string()),
            is_schema: false,
            causes: vec![failure],
        },
        _ => failure,
    }
}

/// `ValidationError.display` (output.go): one `- at 'LOCATION': MESSAGE` line per error, nested by two spaces;
/// a reference with a single cause is skipped.
fn display_failure(failure: &Failure, out: &mut String, indent: usize) {
    let mut indent = indent;
    if let Some(message) = &failure.message {
        if indent > 0 {
            out.push('\n');
            for _ in 0..indent - 1 {
                out.push_str("  ");
            }
            out.push_str("- ");
        }
        indent += 1;
        if failure.is_schema {
            out.push_str(message);
        } else {
            let _ = write!(out, "at {}: {message}", quote(&failure.location));
        }
    }
    for cause in &failure.causes {
        display_failure(cause, out, indent);
    }
}

fn display(error: &ValidationError<'_, '_>, out: &mut String, indent: usize) {
    display_failure(&convert(error, None), out, indent);
}

/// The jsonschema package's `quote`: Go's `%q` with double quotes unescaped, single quotes escaped, in `'...'`.
fn quote(text: &str) -> String {
    let quoted = berth_go::strconv::quote(text);
    let inner = &quoted[1..quoted.len() - 1];
    format!("'{}'", inner.replace("\\\"", "\"").replace('\'', "\\'"))
}

fn join_quoted<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    items.into_iter().map(quote).collect::<Vec<_>>().join(", ")
}

/// An integer as golang.org/x/text/message prints `%d` in English: thousands grouped with commas.
fn grouped_int(n: usize) -> String {
    group_digits(&n.to_string())
}

/// A number as the message printer prints `%v` of the float64 Go makes of it: Go's shortest `%g` digits, the
/// integer part grouped by thousands, an exponent written as `×10` and superscript digits (`1.5×10⁰⁶`).
fn grouped_number(number: &serde_json::Number) -> String {
    let value = number.as_f64().unwrap_or(0.0);
    let text = berth_go::strconv::format_float_g(value);
    let (sign, rest) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text.as_str()),
    };
    let (mantissa, exponent) = match rest.split_once('e') {
        Some((m, e)) => (m, Some(e)),
        None => (rest, None),
    };
    let (int_part, fraction) = match mantissa.split_once('.') {
        Some((i, f)) => (i, format!(".{f}")),
        None => (mantissa, String::new()),
    };
    let mut out = format!("{sign}{}{fraction}", group_digits(int_part));
    if let Some(exponent) = exponent {
        out.push_str("×10");
        for c in exponent.chars() {
            out.push(match c {
                '-' => '⁻',
                '0' => '⁰',
                '1' => '¹',
                '2' => '²',
                '3' => '³',
                '4' => '⁴',
                '5' => '⁵',
                '6' => '⁶',
                '7' => '⁷',
                '8' => '⁸',
                '9' => '⁹',
                _ => continue,
            });
        }
    }
    out
}

fn group_digits(digits: &str) -> String {
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `display` of a primitive in enum and const messages: strings quoted, containers as `value`.
fn display_value(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => quote(s),
        serde_json::Value::Array(_) | serde_json::Value::Object(_) => "value".to_string(),
        serde_json::Value::Null => "<nil>".to_string(),
        serde_json::Value::Number(n) => match n.as_f64() {
            Some(f) if n.as_i64().is_none() && n.as_u64().is_none() => berth_go::strconv::format_float_g(f),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

fn is_primitive(value: &serde_json::Value) -> bool {
    !matches!(value, serde_json::Value::Array(_) | serde_json::Value::Object(_))
}

/// The message of one error kind, as v6.0.2's English printer writes it.
fn message(kind: &ErrorKind<'_, '_>) -> String {
    match kind {
        ErrorKind::Group | ErrorKind::Reference { .. } => "validation failed".to_string(),
        ErrorKind::Schema { url } => format!("jsonschema validation failed with {}", quote(url)),
        ErrorKind::ContentSchema => "contentSchema failed".to_string(),
        ErrorKind::PropertyName { prop } => format!("invalid propertyName {}", quote(prop)),
        ErrorKind::RefCycle { url, kw_loc1, kw_loc2 } => {
            format!("both {kw_loc1} and {kw_loc2} resolve to {} causing reference cycle", berth_go::strconv::quote(url))
        }
        ErrorKind::FalseSchema => "false schema".to_string(),
        ErrorKind::Type { got, want } => {
            let want: Vec<String> = want.iter().map(|t| t.to_string()).collect();
            format!("got {got}, want {}", want.join(" or "))
        }
        ErrorKind::Enum { want } => {
            if want.iter().all(is_primitive) {
                if want.len() == 1 {
                    format!("value must be {}", display_value(&want[0]))
                } else {
                    let items: Vec<String> = want.iter().map(display_value).collect();
                    format!("value must be one of {}", items.join(", "))
                }
            } else {
                "enum failed".to_string()
            }
        }
        ErrorKind::Const { want } => {
            if is_primitive(want) {
                format!("value must be {}", display_value(want))
            } else {
                "const failed".to_string()
            }
        }
        ErrorKind::Format { got, want, err } => format!("{} is not valid {want}: {err}", display_value(got)),
        ErrorKind::MinProperties { got, want } => {
            format!("minProperties: got {}, want {}", grouped_int(*got), grouped_int(*want))
        }
        ErrorKind::MaxProperties { got, want } => {
            format!("maxProperties: got {}, want {}", grouped_int(*got), grouped_int(*want))
        }
        ErrorKind::AdditionalProperties { got } => {
            format!("additional properties {} not allowed", join_quoted(got.iter().map(|p| p.as_ref())))
        }
        ErrorKind::Required { want } => {
            if want.len() == 1 {
                format!("missing property {}", quote(want[0]))
            } else {
                format!("missing properties {}", join_quoted(want.iter().copied()))
            }
        }
        ErrorKind::Dependency { prop, missing } | ErrorKind::DependentRequired { prop, missing } => {
            format!("properties {} required, if {} exists", join_quoted(missing.iter().copied()), quote(prop))
        }
        ErrorKind::MinItems { got, want } => {
            format!("minItems: got {}, want {}", grouped_int(*got), grouped_int(*want))
        }
        ErrorKind::MaxItems { got, want } => {
            format!("maxItems: got {}, want {}", grouped_int(*got), grouped_int(*want))
        }
        ErrorKind::Contains => "no items match contains schema".to_string(),
        ErrorKind::MinContains { got, want } => {
            if got.is_empty() {
                format!("min {} items required to match contains schema, but none matched", grouped_int(*want))
            } else {
                let at: Vec<String> = got.iter().map(usize::to_string).collect();
                format!(
                    "min {} items required to match contains schema, but matched {} items at {}",
                    grouped_int(*want),
                    grouped_int(got.len()),
                    at.join(" ")
                )
            }
        }
        ErrorKind::MaxContains { got, want } => {
            let at: Vec<String> = got.iter().map(usize::to_string).collect();
            format!(
                "max {} items required to match contains schema, but matched {} items at {}",
                grouped_int(*want),
                grouped_int(got.len()),
                at.join(" ")
            )
        }
        ErrorKind::UniqueItems { got: [i, j] } => {
            format!("items at {} and {} are equal", grouped_int(*i), grouped_int(*j))
        }
        ErrorKind::AdditionalItems { got } => format!("last {} additionalItem(s) not allowed", grouped_int(*got)),
        ErrorKind::MinLength { got, want } => {
            format!("minLength: got {}, want {}", grouped_int(*got), grouped_int(*want))
        }
        ErrorKind::MaxLength { got, want } => {
            format!("maxLength: got {}, want {}", grouped_int(*got), grouped_int(*want))
        }
        ErrorKind::Pattern { got, want } => format!("{} does not match pattern {}", quote(got), quote(want)),
        ErrorKind::ContentEncoding { want, err } => format!("value is not {} encoded: {err}", quote(want)),
        ErrorKind::ContentMediaType { want, err, .. } => format!("value if not of mediatype {}: {err}", quote(want)),
        ErrorKind::Minimum { got, want } => {
            format!("minimum: got {}, want {}", grouped_number(got), grouped_number(want))
        }
        ErrorKind::Maximum { got, want } => {
            format!("maximum: got {}, want {}", grouped_number(got), grouped_number(want))
        }
        ErrorKind::ExclusiveMinimum { got, want } => {
            format!("exclusiveMinimum: got {}, want {}", grouped_number(got), grouped_number(want))
        }
        ErrorKind::ExclusiveMaximum { got, want } => {
            format!("exclusiveMaximum: got {}, want {}", grouped_number(got), grouped_number(want))
        }
        ErrorKind::MultipleOf { got, want } => {
            format!("multipleOf: got {}, want {}", grouped_number(got), grouped_number(want))
        }
        ErrorKind::Not => "'not' failed".to_string(),
        ErrorKind::AllOf => "'allOf' failed".to_string(),
        ErrorKind::AnyOf => "'anyOf' failed".to_string(),
        ErrorKind::OneOf(None) => "'oneOf' failed, none matched".to_string(),
        ErrorKind::OneOf(Some((i, j))) => format!("'oneOf' failed, subschemas {i}, {j} matched"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_as_the_english_printer_groups_them() {
        assert_eq!(grouped_int(65537), "65,537");
        assert_eq!(grouped_int(100), "100");
        let number = |f: f64| grouped_number(&serde_json::Number::from_f64(f).unwrap());
        assert_eq!(number(123456.5), "123,456.5");
        assert_eq!(number(1234567.891), "1.234567891×10⁰⁶");
        assert_eq!(number(1e22), "1×10²²");
        assert_eq!(number(0.00001), "1×10⁻⁰⁵");
        assert_eq!(grouped_number(&serde_json::Number::from(-5000)), "-5,000");
    }

    #[test]
    fn quote_uses_single_quotes() {
        assert_eq!(quote("a'b\"c\n"), "'a\\'b\"c\\n'");
    }

    #[test]
    fn failures_are_listed_per_chart() {
        let schema = br#"{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["name"]}"#;
        let values: Map = [("n", Value::Float(0.0))].into_iter().collect();
        let error = validate_single(&values, schema).unwrap_err();
        let mut lines: Vec<&str> = error.lines().collect();
        lines.sort_unstable();
        assert_eq!(lines, ["- at '': missing property 'name'", "- at '/n': minimum: got 0, want 1"]);
    }

    /// A schema whose property `port` is `{"$ref": reference}`.
    fn referring(reference: &str) -> Vec<u8> {
        serde_json::json!({
            "$id": "file:///values.schema.json",
            "definitions": {"port": {"type": "integer"}},
            "properties": {"port": {"$ref": reference}},
        })
        .to_string()
        .into_bytes()
    }

    #[test]
    fn references_outside_the_schema_are_refused_whatever_they_name() {
        // A readable schema file on this machine: Helm would load it; berth must not.
        let directory = tempfile::tempdir().expect("tempdir");
        let outside = directory.path().join("defs.json");
        std::fs::write(&outside, br#"{"type": "integer"}"#).expect("write");
        let outside = outside.display().to_string();
        let values: Map = [("port", Value::Int(80))].into_iter().collect();
        let cases = [
            (format!("file://{outside}"), format!("\"file://{outside}\"")),
            (outside.clone(), format!("\"{outside}\" (file://{outside})")),
            (format!("../../../..{outside}"), format!("\"../../../..{outside}\" (file://{outside})")),
            ("defs.json".to_string(), "\"defs.json\" (file:///defs.json)".to_string()),
            ("https://schemas.example/port.json".to_string(), "\"https://schemas.example/port.json\"".to_string()),
            ("http://127.0.0.1:9/port.json#/x".to_string(), "\"http://127.0.0.1:9/port.json#/x\"".to_string()),
        ];
        for (reference, named) in cases {
            let error = validate_single(&values, &referring(&reference)).expect_err(&reference);
            assert_eq!(
                error,
                format!(
                    "values.schema.json: $ref {named} refused: berth reads a values schema from values.schema.json \
                     alone: no file, path or network reference"
                ),
                "{reference}"
            );
        }
    }

    #[test]
    fn references_inside_the_schema_and_urns_still_resolve() {
        let wrong: Map = [("port", Value::from("eighty"))].into_iter().collect();
        let right: Map = [("port", Value::Int(80))].into_iter().collect();
        for reference in [
            "#/definitions/port",
            "values.schema.json#/definitions/port",
            "file:///values.schema.json#/definitions/port",
        ] {
            assert_eq!(validate_single(&right, &referring(reference)), Ok(()), "{reference}");
            assert_eq!(
                validate_single(&wrong, &referring(reference)).expect_err(reference),
                "- at '/port': got string, want integer\n",
                "{reference}"
            );
        }
        // An embedded resource named by its `$id` is part of the document.
        let embedded = serde_json::json!({
            "properties": {"port": {"$ref": "https://schemas.example/port.json"}},
            "$defs": {"port": {"$id": "https://schemas.example/port.json", "type": "integer"}},
        });
        let embedded = embedded.to_string().into_bytes();
        assert_eq!(validate_single(&right, &embedded), Ok(()));
        assert!(validate_single(&wrong, &embedded).is_err());
        // `urn:` references Helm cannot resolve accept anything, as Helm's do.
        assert_eq!(validate_single(&wrong, &referring("urn:example:port")), Ok(()));
    }

    #[test]
    fn invalid_schema_json_is_worded_as_go() {
        let error = validate_single(&Map::new(), b"{\"type\": }").unwrap_err();
        assert_eq!(error, "invalid character '}' looking for beginning of value");
    }
}
