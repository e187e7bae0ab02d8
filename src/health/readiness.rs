//! HIP-0025 readiness annotations: `helm.sh/readiness-success` and `helm.sh/readiness-failure`.
//!
//! Each annotation is a JSON list of strings `{<jsonpath>} <op> <value>`, the path in kubectl's JSONPath syntax
//! scoped to `.status` (see [`jsonpath`](super::jsonpath)), the operator one of `== != < <= > >=` and the value
//! a scalar literal, optionally quoted. As the HIP and Helm's implementation (helm/helm PR #32314) define it:
//!
//! - both annotations must be present (with at least one condition each) to replace the default readiness; with
//!   only one, the object is judged as if neither were set and a warning names the missing one;
//! - failure conditions are checked first: if any holds the object is Failed; then if any success condition
//!   holds it is Current; otherwise InProgress; an object without `.status` is InProgress;
//! - a path that matches nothing does not hold; when it matches several values, the condition holds if one of
//!   them satisfies it; the ordering operators need numbers on both sides (a non-numeric literal is rejected
//!   when the annotation is checked, a non-numeric field simply does not hold).

use super::compare::{self, Literal, Operator, TextOrdering};
use super::jsonpath;
use serde_json::Value;

/// The annotation listing success conditions.
pub const SUCCESS: &str = "helm.sh/readiness-success";
/// The annotation listing failure conditions.
pub const FAILURE: &str = "helm.sh/readiness-failure";

/// One `{<jsonpath>} <op> <value>` condition.
#[derive(Debug, Clone)]
pub struct Condition {
    text: String,
    path: jsonpath::Query,
    operator: Operator,
    literal: Literal,
}

/// What an object declares with the pair of annotations.
#[derive(Debug, Clone)]
pub enum Declared {
    /// Both annotations, each with at least one condition.
    Both(Readiness),
    /// Only one of them (or the other is an empty list): judged as if neither were set, with a warning.
    OnlyOne { present: &'static str, missing: &'static str },
}

/// Both condition lists of one object.
#[derive(Debug, Clone)]
pub struct Readiness {
    success: Vec<Condition>,
    failure: Vec<Condition>,
}

/// A decision of the readiness conditions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Failed(String),
    Ready(String),
    Pending(String),
}

impl Condition {
    /// Parses `{<jsonpath>} <op> <value>`.
    ///
    /// # Errors
    /// A message naming the condition and what is wrong with it.
    pub fn parse(text: &str) -> Result<Condition, String> {
        let trimmed = text.trim();
        let body = trimmed.strip_prefix('{').ok_or_else(|| {
            format!("condition `{trimmed}` must start with `{{<jsonpath>}}`, e.g. `{{.phase}} == Ready`")
        })?;
        let close = body.find('}').ok_or_else(|| format!("condition `{trimmed}` has no closing `}}`"))?;
        let (path, rest) = body.split_at(close);
        let rest = rest.get(1..).unwrap_or_default().trim_start();
        if path.trim().is_empty() {
            return Err(format!("condition `{trimmed}` has an empty JSONPath"));
        }
        let word: String = rest.chars().take_while(|c| matches!(c, '=' | '!' | '<' | '>')).collect();
        if word.is_empty() {
            return Err(format!("condition `{trimmed}` has no operator (==, !=, <, <=, >, >=) after the JSONPath"));
        }
        let operator =
            Operator::from_word(&word).ok_or_else(|| format!("condition `{trimmed}`: unknown operator `{word}`"))?;
        let literal = Literal::parse(&rest[word.len()..])
            .ok_or_else(|| format!("condition `{trimmed}` has no value after `{operator}`"))?;
        if operator.is_ordering() && !literal.is_number() {
            return Err(format!("condition `{trimmed}`: `{operator}` needs a number, found `{literal}`"));
        }
        let path =
            jsonpath::compile_status_path(path).map_err(|message| format!("condition `{trimmed}`: {message}"))?;
        Ok(Condition { text: trimmed.to_string(), path, operator, literal })
    }

    /// Whether the condition holds on `object`, and the values the path found (for messages).
    fn evaluate<'a>(&self, object: &'a Value) -> (bool, Vec<&'a Value>) {
        let found = self.path.query(object);
        let holds =
            found.iter().any(|value| compare::holds(value, self.operator, &self.literal, TextOrdering::NotComparable));
        (holds, found)
    }
}

/// Parses one annotation value: a JSON list of condition strings. An empty list (or empty text) is `[]`.
///
/// # Errors
/// A message for the first malformed condition, or for text that is not a JSON list of strings.
pub fn parse_list(value: &str) -> Result<Vec<Condition>, String> {
    if value.trim().is_empty() {
        return Ok(Vec::new());
    }
    let texts: Vec<String> = serde_json::from_str(value)
        .map_err(|error| format!("expected a JSON list of strings such as `[\"{{.phase}} == Ready\"]`: {error}"))?;
    texts.iter().map(|text| Condition::parse(text)).collect()
}

impl Declared {
    /// Reads the pair from a `metadata.annotations` map; `None` when neither is set.
    ///
    /// # Errors
    /// Every malformed annotation as `(key, message)`.
    pub fn from_annotations(
        annotations: &serde_json::Map<String, Value>,
    ) -> Option<Result<Declared, Vec<(String, String)>>> {
        let mut problems = Vec::new();
        let mut read = |key: &'static str| -> Vec<Condition> {
            match annotations.get(key) {
                None => Vec::new(),
                Some(Value::String(text)) => parse_list(text).unwrap_or_else(|message| {
                    problems.push((key.to_string(), message));
                    Vec::new()
                }),
                Some(other) => {
                    problems.push((
                        key.to_string(),
                        format!(
                            "annotation values must be strings, found {}; write the list as a quoted JSON string",
                            compare::describe(other)
                        ),
                    ));
                    Vec::new()
                }
            }
        };
        let success = read(SUCCESS);
        let failure = read(FAILURE);
        if !problems.is_empty() {
            return Some(Err(problems));
        }
        match (success.is_empty(), failure.is_empty()) {
            (true, true) => None,
            (false, false) => Some(Ok(Declared::Both(Readiness { success, failure }))),
            (false, true) => Some(Ok(Declared::OnlyOne { present: SUCCESS, missing: FAILURE })),
            (true, false) => Some(Ok(Declared::OnlyOne { present: FAILURE, missing: SUCCESS })),
        }
    }
}

impl Readiness {
    /// Judges `object`: failure first, then success, else pending.
    pub fn judge(&self, object: &Value) -> Outcome {
        if !object.get("status").is_some_and(Value::is_object) {
            return Outcome::Pending("no `.status` yet".to_string());
        }
        for condition in &self.failure {
            let (holds, found) = condition.evaluate(object);
            if holds {
                return Outcome::Failed(format!(
                    "failure condition `{}` holds ({})",
                    condition.text,
                    found_text(&found)
                ));
            }
        }
        for condition in &self.success {
            let (holds, found) = condition.evaluate(object);
            if holds {
                return Outcome::Ready(format!(
                    "success condition `{}` holds ({})",
                    condition.text,
                    found_text(&found)
                ));
            }
        }
        let Some(first) = self.success.first() else {
            return Outcome::Pending("no success condition".to_string());
        };
        let (_, found) = first.evaluate(object);
        let others = match self.success.len() {
            1 => String::new(),
            count => format!(" nor the {} others", count - 1),
        };
        Outcome::Pending(format!("success condition `{}` does not hold ({}){others}", first.text, found_text(&found)))
    }
}

fn found_text(found: &[&Value]) -> String {
    match found {
        [] => "nothing found".to_string(),
        [value] => format!("found {}", compare::describe(value)),
        values => format!(
            "found {}",
            values.iter().take(5).map(|value| compare::describe(value)).collect::<Vec<_>>().join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn declared(success: &str, failure: &str) -> Readiness {
        let Value::Object(annotations) = json!({SUCCESS: success, FAILURE: failure}) else {
            panic!("the literal is an object")
        };
        match Declared::from_annotations(&annotations) {
            Some(Ok(Declared::Both(readiness))) => readiness,
            other => panic!("expected both annotations, got {other:?}"),
        }
    }

    #[test]
    fn hip_example_job_is_ready_then_failed() {
        let readiness = declared(r#"["{.succeeded} == 1", "{.succeeded} == 2"]"#, r#"["{.failed} >= 1"]"#);
        let job = json!({"kind": "Job", "status": {"succeeded": 1}});
        assert_eq!(
            readiness.judge(&job),
            Outcome::Ready("success condition `{.succeeded} == 1` holds (found 1)".into())
        );
        let job = json!({"kind": "Job", "status": {"succeeded": 1, "failed": 1}});
        assert_eq!(readiness.judge(&job), Outcome::Failed("failure condition `{.failed} >= 1` holds (found 1)".into()));
        let job = json!({"kind": "Job", "status": {"active": 1}});
        assert_eq!(
            readiness.judge(&job),
            Outcome::Pending(
                "success condition `{.succeeded} == 1` does not hold (nothing found) nor the 1 others".into()
            )
        );
        assert_eq!(readiness.judge(&json!({"kind": "Job"})), Outcome::Pending("no `.status` yet".into()));
    }

    #[test]
    fn filters_quotes_and_booleans() {
        let readiness = declared(
            r#"["{.conditions[?(@.type==\"Ready\")].status} == \"True\""]"#,
            r#"["{.conditions[?(@.type=='Ready')].reason} == 'Failed'", "{.phase} == Error"]"#,
        );
        let ready = json!({"status": {"conditions": [{"type": "Ready", "status": "True"}]}});
        assert!(matches!(readiness.judge(&ready), Outcome::Ready(_)));
        let failed = json!({"status": {"conditions": [{"type": "Ready", "status": "False", "reason": "Failed"}]}});
        assert!(matches!(readiness.judge(&failed), Outcome::Failed(_)));
        let readiness = declared(r#"["{.ready} == true"]"#, r#"["{.replicas} < 1"]"#);
        assert!(matches!(readiness.judge(&json!({"status": {"ready": true, "replicas": 2}})), Outcome::Ready(_)));
        assert!(matches!(readiness.judge(&json!({"status": {"ready": true, "replicas": "x"}})), Outcome::Ready(_)));
        assert!(matches!(readiness.judge(&json!({"status": {"ready": true, "replicas": 0}})), Outcome::Failed(_)));
    }

    #[test]
    fn only_one_annotation_falls_back_with_a_warning() {
        let Value::Object(annotations) = json!({SUCCESS: "[\"{.phase} == Ready\"]", FAILURE: "[]"}) else {
            panic!("the literal is an object")
        };
        assert!(matches!(
            Declared::from_annotations(&annotations),
            Some(Ok(Declared::OnlyOne { present: SUCCESS, missing: FAILURE }))
        ));
        assert!(Declared::from_annotations(&serde_json::Map::new()).is_none());
    }

    #[test]
    fn malformed_conditions_are_rejected() {
        let cases = [
            ("not json", "expected a JSON list of strings"),
            ("[1]", "expected a JSON list of strings"),
            (r#"["succeeded==1"]"#, "must start with `{<jsonpath>}`"),
            (r#"["{.succeeded == 1"]"#, "no closing `}`"),
            (r#"["{} == 1"]"#, "empty JSONPath"),
            (r#"["{.succeeded} 1"]"#, "no operator"),
            (r#"["{.succeeded} =< 1"]"#, "unknown operator `=<`"),
            (r#"["{.succeeded} =="]"#, "no value after `==`"),
            (r#"["{.phase} > Ready"]"#, "`>` needs a number"),
            (r#"["{succeeded} == 1"]"#, "must start with `.` or `[`"),
        ];
        for (value, expected) in cases {
            let error = parse_list(value).expect_err(value);
            assert!(error.contains(expected), "{value}: {error}");
        }
        let Value::Object(annotations) = json!({SUCCESS: ["{.a} == 1"], FAILURE: "[\"{.b} == 1\"]"}) else {
            panic!("the literal is an object")
        };
        let problems = Declared::from_annotations(&annotations).expect("present").expect_err("a list");
        assert_eq!(problems[0].0, SUCCESS);
        assert!(problems[0].1.contains("quoted JSON string"), "{}", problems[0].1);
    }
}
