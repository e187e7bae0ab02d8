//! Seed 001 field checks: `helm.sh/health/<path>: "<op><value>"` annotations.
//!
//! The part of the key after `helm.sh/health/` is a path from the object's root, one step per `/` segment
//! (`spec/replicas`, `status/conditions/-/status`), JSON-Pointer style (`~1` is a `/` inside a key, `~0` a `~`).
//! On a list, a step is an index (`0`), `-` or `any` (some element satisfies the rest of the path) or `each`
//! (every element does); a trailing `/` is allowed. The value is an operator from [`compare`](super::compare)
//! followed by a literal: `"==Running"`, `">=3"`, `"!=False"`.
//!
//! Every such annotation on an object must hold for the object to be Current; otherwise it is InProgress with
//! a message naming the first check (in key order) that does not hold. These checks never say Failed: the
//! seed's grammar can only say what ready looks like.
//!
//! Decisions the seed leaves open: a missing field (or a `null`, or a list/map where a value is expected)
//! does not hold, whatever the operator, so `!=` cannot pass on an object whose controller has not written
//! the field yet; `each` over an empty or missing list does not hold either, for the same reason.

use super::compare::{self, Literal, Operator, TextOrdering};
use serde_json::Value;

/// The key prefix of seed 001 field checks.
pub const PREFIX: &str = "helm.sh/health/";

/// The most steps a path may have; evaluation recurses once per step. Kubernetes objects are not nested
/// half as deep.
pub const MAX_STEPS: usize = 64;

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    /// A map key, or a list index when it reads as one.
    Key(String),
    /// `-` or `any`: some list element.
    Some,
    /// `each`: every list element.
    Every,
}

/// One parsed `helm.sh/health/<path>` annotation.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldCheck {
    /// The whole annotation key, for messages.
    key: String,
    steps: Vec<Step>,
    operator: Operator,
    literal: Literal,
}

/// All seed 001 checks of one object, in key order.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldChecks {
    checks: Vec<FieldCheck>,
}

/// The outcome of the checks: all hold, or the message for the first that does not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Hold(String),
    Unmet(String),
}

impl FieldCheck {
    /// Parses one annotation: `key` starts with [`PREFIX`].
    ///
    /// # Errors
    /// A message saying what is wrong with the path or the value.
    pub fn parse(key: &str, value: &str) -> Result<FieldCheck, String> {
        let path = key.strip_prefix(PREFIX).ok_or_else(|| format!("the key does not start with `{PREFIX}`"))?;
        let path = path.strip_suffix('/').unwrap_or(path);
        if path.is_empty() {
            return Err("the key names no field: write a path after `helm.sh/health/`, e.g. `status/phase`".into());
        }
        let count = path.split('/').count();
        if count > MAX_STEPS {
            return Err(format!("the path has {count} steps; at most {MAX_STEPS} are accepted"));
        }
        let mut steps = Vec::new();
        for (index, segment) in path.split('/').enumerate() {
            let step = match segment {
                "" => return Err(format!("empty step in path `{path}`")),
                "-" | "any" => Step::Some,
                "each" => Step::Every,
                key => Step::Key(unescape_pointer(key)?),
            };
            if index == 0 && matches!(step, Step::Some | Step::Every) {
                return Err(format!("path `{path}` starts with a list step; the object's root is a map"));
            }
            steps.push(step);
        }
        let value = value.trim();
        let (operator, rest) = Operator::split_prefix(value).ok_or_else(|| {
            format!("value `{value}` does not start with an operator (==, !=, <, <=, >, >=), e.g. `==Running`")
        })?;
        let literal = Literal::parse(rest).ok_or_else(|| {
            format!("value `{value}` has no literal after `{operator}`; write `{operator}\"\"` for an empty string")
        })?;
        Ok(FieldCheck { key: key.to_string(), steps, operator, literal })
    }

    /// Whether the check holds on `object`; `Err` carries why not.
    fn evaluate(&self, object: &Value) -> Result<(), String> {
        let mut walked = String::new();
        self.walk(object, &self.steps, &mut walked)
    }

    fn walk(&self, value: &Value, steps: &[Step], walked: &mut String) -> Result<(), String> {
        let Some((step, rest)) = steps.split_first() else {
            return self.compare(value, walked);
        };
        match step {
            Step::Key(key) => {
                let child = match value {
                    Value::Object(map) => map.get(key),
                    Value::Array(items) => key.parse::<usize>().ok().and_then(|index| items.get(index)),
                    _ => None,
                };
                let length = walked.len();
                push_step(walked, key, value.is_array());
                let result = match child {
                    Some(child) if !child.is_null() => self.walk(child, rest, walked),
                    _ => Err(format!("`{walked}` is missing")),
                };
                walked.truncate(length);
                result
            }
            Step::Some | Step::Every => {
                let Value::Array(items) = value else {
                    return Err(format!("`{walked}` is not a list"));
                };
                let list = walked.clone();
                if items.is_empty() {
                    return Err(format!("`{list}` is empty"));
                }
                let length = walked.len();
                walked.push_str("[*]");
                let mut result = Ok(());
                for (index, item) in items.iter().enumerate() {
                    match (step, self.walk(item, rest, walked)) {
                        (Step::Some, Ok(())) => {
                            result = Ok(());
                            break;
                        }
                        (Step::Some, Err(_)) => result = Err(format!("no element of `{list}` satisfies it")),
                        (_, Err(reason)) => {
                            result = Err(format!("element {index} of `{list}`: {reason}"));
                            break;
                        }
                        (_, Ok(())) => {}
                    }
                }
                walked.truncate(length);
                result
            }
        }
    }

    fn compare(&self, value: &Value, walked: &str) -> Result<(), String> {
        if compare::holds(value, self.operator, &self.literal, TextOrdering::Lexicographic) {
            Ok(())
        } else if value.is_array() || value.is_object() {
            Err(format!("`{walked}` is {}, not a value", compare::describe(value)))
        } else {
            Err(format!("`{walked}` is {}", compare::describe(value)))
        }
    }

    fn wanted(&self) -> String {
        format!("{} {}", self.operator, self.literal)
    }
}

fn push_step(walked: &mut String, key: &str, on_list: bool) {
    if on_list {
        walked.push('[');
        walked.push_str(key);
        walked.push(']');
    } else {
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(key);
    }
}

/// JSON Pointer escapes: `~1` is `/`, `~0` is `~`; any other `~` is an error.
fn unescape_pointer(segment: &str) -> Result<String, String> {
    let mut text = String::with_capacity(segment.len());
    let mut chars = segment.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next() {
                Some('0') => text.push('~'),
                Some('1') => text.push('/'),
                _ => return Err(format!("step `{segment}`: `~` must be followed by 0 or 1 (JSON Pointer escapes)")),
            }
        } else {
            text.push(c);
        }
    }
    Ok(text)
}

impl FieldChecks {
    /// Reads every `helm.sh/health/*` annotation of `annotations` (a `metadata.annotations` map).
    /// `None` when there is none.
    ///
    /// # Errors
    /// Every malformed annotation as `(key, message)`, in key order.
    pub fn from_annotations(
        annotations: &serde_json::Map<String, Value>,
    ) -> Option<Result<FieldChecks, Vec<(String, String)>>> {
        let mut checks = Vec::new();
        let mut problems = Vec::new();
        for (key, value) in annotations.iter().filter(|(key, _)| key.starts_with(PREFIX)) {
            let parsed = match value {
                Value::String(text) => FieldCheck::parse(key, text),
                other => {
                    Err(format!("annotation values must be strings, found {}; quote it", compare::describe(other)))
                }
            };
            match parsed {
                Ok(check) => checks.push(check),
                Err(message) => problems.push((key.clone(), message)),
            }
        }
        if checks.is_empty() && problems.is_empty() {
            return None;
        }
        Some(if problems.is_empty() { Ok(FieldChecks { checks }) } else { Err(problems) })
    }

    /// Judges `object`: every check must hold.
    pub fn judge(&self, object: &Value) -> Outcome {
        for check in &self.checks {
            if let Err(reason) = check.evaluate(object) {
                return Outcome::Unmet(format!("`{}` wants {}: {reason}", check.key, check.wanted()));
            }
        }
        match self.checks.len() {
            1 => Outcome::Hold("the health annotation holds".to_string()),
            count => Outcome::Hold(format!("all {count} health annotations hold")),
        }
    }

    pub fn len(&self) -> usize {
        self.checks.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn judge(annotations: Value, object: &Value) -> Outcome {
        let Value::Object(annotations) = annotations else { panic!("annotations must be a map") };
        FieldChecks::from_annotations(&annotations).expect("some checks").expect("valid checks").judge(object)
    }

    fn object() -> Value {
        json!({
            "apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
            "spec": {"someattribute": "meh", "replicas": 3, "a/b": {"c~d": 1}},
            "status": {
                "phase": "Ready", "ready": true, "count": "4",
                "somelist": ["OK", "OK"],
                "mixed": ["OK", "NO"],
                "empty": [],
                "nodes": [{"someattribute": "meh", "load": 0}, {"someattribute": "other", "load": 2}],
            },
        })
    }

    #[test]
    fn seed_examples_hold_or_name_the_unmet_check() {
        let object = object();
        let cases: Vec<(&str, &str, Result<(), &str>)> = vec![
            ("spec/someattribute", "==meh", Ok(())),
            (
                "spec/someattribute",
                "!=meh",
                Err("`helm.sh/health/spec/someattribute` wants != meh: `spec.someattribute` is `meh`"),
            ),
            ("status/somelist/-/", "==OK", Ok(())),
            ("status/somelist/each/", "==OK", Ok(())),
            ("status/somelist/any/", "==OK", Ok(())),
            ("status/mixed/any", "==OK", Ok(())),
            (
                "status/mixed/each",
                "==OK",
                Err(
                    "`helm.sh/health/status/mixed/each` wants == OK: element 1 of `status.mixed`: `status.mixed[*]` is `NO`",
                ),
            ),
            (
                "status/mixed/-",
                "==MAYBE",
                Err("`helm.sh/health/status/mixed/-` wants == MAYBE: no element of `status.mixed` satisfies it"),
            ),
            (
                "status/empty/each",
                "==OK",
                Err("`helm.sh/health/status/empty/each` wants == OK: `status.empty` is empty"),
            ),
            ("status/nodes/-/someattribute", "==meh", Ok(())),
            ("status/nodes/-/load", "<=1", Ok(())),
            (
                "status/nodes/each/load",
                "<1",
                Err(
                    "`helm.sh/health/status/nodes/each/load` wants < 1: element 1 of `status.nodes`: `status.nodes[*].load` is 2",
                ),
            ),
            ("status/nodes/any/load", "<1", Ok(())),
            ("status/nodes/1/load", "==2", Ok(())),
            (
                "status/nodes/5/load",
                "==2",
                Err("`helm.sh/health/status/nodes/5/load` wants == 2: `status.nodes[5]` is missing"),
            ),
            ("status/phase", "==Ready", Ok(())),
            ("status/ready", "==true", Ok(())),
            ("status/count", ">3", Ok(())),
            ("spec/replicas", ">=3", Ok(())),
            ("spec/a~1b/c~0d", "==1", Ok(())),
            ("status/missing", "!=x", Err("`helm.sh/health/status/missing` wants != x: `status.missing` is missing")),
            (
                "status/missing/each",
                "==x",
                Err("`helm.sh/health/status/missing/each` wants == x: `status.missing` is missing"),
            ),
            (
                "status/phase/each",
                "==x",
                Err("`helm.sh/health/status/phase/each` wants == x: `status.phase` is not a list"),
            ),
            (
                "status/nodes",
                "==x",
                Err("`helm.sh/health/status/nodes` wants == x: `status.nodes` is a list of 2 items, not a value"),
            ),
        ];
        for (path, value, expected) in cases {
            let key = format!("{PREFIX}{path}");
            let outcome = judge(json!({ key.clone(): value }), &object);
            let expected = match expected {
                Ok(()) => Outcome::Hold("the health annotation holds".to_string()),
                Err(message) => Outcome::Unmet(message.to_string()),
            };
            assert_eq!(outcome, expected, "{key}: {value}");
        }
    }

    #[test]
    fn all_checks_must_hold_and_the_first_unmet_in_key_order_is_named() {
        let object = object();
        let annotations = json!({
            "helm.sh/health/status/phase": "==Ready",
            "helm.sh/health/spec/replicas": ">=3",
            "helm.sh/health/status/somelist/each": "==OK",
        });
        assert_eq!(judge(annotations, &object), Outcome::Hold("all 3 health annotations hold".into()));
        let annotations = json!({
            "helm.sh/health/status/phase": "==Pending",
            "helm.sh/health/spec/replicas": ">3",
            "other.example.com/ignored": "x",
        });
        assert_eq!(
            judge(annotations, &object),
            Outcome::Unmet("`helm.sh/health/spec/replicas` wants > 3: `spec.replicas` is 3".into())
        );
    }

    #[test]
    fn malformed_annotations_are_reported_with_their_key() {
        let cases = [
            ("helm.sh/health/", "==x", "the key names no field"),
            ("helm.sh/health/status//phase", "==x", "empty step in path `status//phase`"),
            ("helm.sh/health/-/phase", "==x", "starts with a list step"),
            ("helm.sh/health/status/phase", "Ready", "does not start with an operator"),
            ("helm.sh/health/status/phase", "=Ready", "does not start with an operator"),
            ("helm.sh/health/status/phase", "==", "has no literal after `==`"),
            ("helm.sh/health/status/a~2b", "==1", "JSON Pointer escapes"),
        ];
        let deep = format!("helm.sh/health/status{}", "/a".repeat(100_000));
        let cases = cases.into_iter().chain([(deep.as_str(), "==x", "the path has 100001 steps; at most 64")]);
        for (key, value, expected) in cases {
            let error = FieldCheck::parse(key, value).expect_err(key);
            assert!(error.contains(expected), "{key}: {value}: {error}");
        }
        let Value::Object(annotations) = json!({"helm.sh/health/spec/replicas": 3}) else {
            panic!("the literal is an object")
        };
        let problems = FieldChecks::from_annotations(&annotations).expect("present").expect_err("not a string");
        assert_eq!(problems[0].1, "annotation values must be strings, found 3; quote it");
        assert!(FieldChecks::from_annotations(&serde_json::Map::new()).is_none());
    }
}
