//! CEL health rules with the semantics of Flux `healthCheckExprs` (fluxcd/pkg `runtime/cel`, RFC-0009).
//!
//! A rule has up to three boolean expressions, `inProgress`, `failed` and `current` (required). They are
//! parsed once, when the rules file or annotation is read, and evaluated many times. Evaluation, as Flux does:
//!
//! 1. when `status.observedGeneration` and `metadata.generation` are both integers and differ, InProgress
//!    (a non-integer `observedGeneration`, such as Argo Rollouts' string, skips this step instead of failing);
//! 2. `inProgress`, then `failed`, then `current`: the first that is true decides (InProgress, Failed, Current);
//! 3. none true: InProgress;
//! 4. an evaluation error (a missing key, a type mismatch) or a result that is not a bool: Unknown, with the
//!    error as the message.
//!
//! Every top-level field of the object (`apiVersion`, `kind`, `metadata`, `spec`, `status`, and any other such
//! as `data` or `rules`) is a variable. Beyond Flux: `metadata`, `spec` and `status` are bound to an empty map
//! when the object has none, so `status.?conditions.orValue([])` works on an object no controller has touched
//! yet (in Flux it is an error). The environment is cel 0.15's standard library (macros `has`, `all`, `exists`,
//! `exists_one`, `map`, `filter`; optional values `.?field`, `orValue`, `hasValue`; `timestamp`, `duration`;
//! `matches`) with the strings and lists extensions (`lowerAscii`, `split`, `startsWith`, `replace`, ...).

use crate::status::Status;
use cel::common::types::{CelBool, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString, CelUInt};
use cel::common::value::Val;
use cel::{Context, Env, Program};
use serde_json::Value;
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, LazyLock};

/// Nesting beyond this depth is bound as `null`: no Kubernetes object comes near it, and it bounds recursion.
const MAX_DEPTH: usize = 256;

/// The shared environment: built once per process, read by every compile and evaluation.
static ENVIRONMENT: LazyLock<Arc<Env>> = LazyLock::new(|| {
    let mut env = Env::stdlib();
    for (name, extension) in [
        ("strings", cel::extensions::strings as fn(&mut Env) -> Result<(), cel::DeclarationError>),
        ("lists", cel::extensions::lists),
    ] {
        if let Err(error) = env.add_extension(extension) {
            tracing::warn!("CEL {name} extension unavailable: {error}");
        }
    }
    Arc::new(env)
});

/// The three expressions of a rule, by their Flux key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Current,
    InProgress,
    Failed,
}

impl Field {
    /// The key as written in the rules file and in `berth.dev/health`.
    pub fn key(self) -> &'static str {
        match self {
            Field::Current => "current",
            Field::InProgress => "inProgress",
            Field::Failed => "failed",
        }
    }

    fn status(self) -> Status {
        match self {
            Field::Current => Status::Current,
            Field::InProgress => Status::InProgress,
            Field::Failed => Status::Failed,
        }
    }
}

/// A CEL expression that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{}` at line {line}, column {column}: {message}{snippet}", field.key())]
pub struct SyntaxError {
    pub field: Field,
    /// 1-based line and column inside the expression.
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// The offending line of the expression with a caret under the column, on lines of their own.
    snippet: String,
}

/// One compiled expression.
#[derive(Debug)]
struct Expression {
    field: Field,
    program: Program,
}

/// A compiled rule: `current` and optionally `inProgress` and `failed`.
#[derive(Debug)]
pub struct CelRule {
    /// In evaluation order: inProgress, failed, current.
    expressions: Vec<Expression>,
    /// Top-level names the expressions read; only those fields of an object are converted for evaluation.
    variables: Vec<String>,
}

impl CelRule {
    /// Parses the expressions of a rule. Empty `inProgress`/`failed` count as absent, as in Flux.
    ///
    /// # Errors
    /// One [`SyntaxError`] per expression that does not parse (an empty `current` included), with the position
    /// inside the expression.
    pub fn compile(
        current: &str,
        in_progress: Option<&str>,
        failed: Option<&str>,
    ) -> Result<CelRule, Vec<SyntaxError>> {
        let mut expressions = Vec::new();
        let mut errors = Vec::new();
        let sources = [(Field::InProgress, in_progress), (Field::Failed, failed), (Field::Current, Some(current))];
        for (field, source) in sources {
            let Some(source) = source.filter(|source| !source.trim().is_empty()) else {
                if field == Field::Current {
                    errors.push(SyntaxError {
                        field,
                        line: 1,
                        column: 1,
                        message: "the expression is empty; `current` is required".to_string(),
                        snippet: String::new(),
                    });
                }
                continue;
            };
            match compile_one(source) {
                Ok(program) => expressions.push(Expression { field, program }),
                Err((line, column, message)) => {
                    errors.push(SyntaxError { field, line, column, message, snippet: snippet(source, line, column) })
                }
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let mut variables: Vec<String> = Vec::new();
        for expression in &expressions {
            for name in expression.program.references().variables() {
                if !variables.iter().any(|known| known == name) {
                    variables.push(name.to_string());
                }
            }
        }
        Ok(CelRule { expressions, variables })
    }

    /// Judges `object` with Flux's order; the message says which expression decided.
    pub fn judge(&self, object: &Value) -> (Status, String) {
        if let Some(message) = generation_not_observed(object) {
            return (Status::InProgress, message);
        }
        let mut context = Context::with_env(Arc::clone(&ENVIRONMENT));
        for name in &self.variables {
            match object.get(name.as_str()) {
                Some(value) => context.add_variable_as_val(name.as_str(), to_cel(value, 0)),
                None if matches!(name.as_str(), "metadata" | "spec" | "status") => {
                    context.add_variable_as_val(name.as_str(), Box::new(CelMap::from(HashMap::new())))
                }
                None => {}
            }
        }
        for expression in &self.expressions {
            let key = expression.field.key();
            let result = catch_unwind(AssertUnwindSafe(|| expression.program.execute(&context)));
            match result {
                Ok(Ok(cel::Value::Bool(true))) => {
                    let status = expression.field.status();
                    let message = match condition_hint(object).filter(|_| status != Status::Current) {
                        Some(hint) => format!("`{key}` is true; {hint}"),
                        None => format!("`{key}` is true"),
                    };
                    return (status, message);
                }
                Ok(Ok(cel::Value::Bool(false))) => {}
                Ok(Ok(other)) => {
                    return (Status::Unknown, format!("`{key}` returned a {}, not a bool", other.type_of()));
                }
                Ok(Err(error)) => return (Status::Unknown, format!("`{key}` cannot be evaluated: {error}")),
                Err(_) => return (Status::Unknown, format!("`{key}` cannot be evaluated: the CEL interpreter failed")),
            }
        }
        let message = match condition_hint(object) {
            Some(hint) => format!("no expression is true yet; {hint}"),
            None => "no expression is true yet".to_string(),
        };
        (Status::InProgress, message)
    }
}

/// Parses one expression; the error carries a 1-based line and column inside it.
fn compile_one(source: &str) -> Result<Program, (usize, usize, String)> {
    match catch_unwind(AssertUnwindSafe(|| ENVIRONMENT.compile(source))) {
        Ok(Ok(program)) => Ok(program),
        Ok(Err(errors)) => {
            let Some(first) = errors.errors.first() else {
                return Err((1, 1, "syntax error".to_string()));
            };
            let line = usize::try_from(first.pos.0).unwrap_or(1).max(1);
            let column = usize::try_from(first.pos.1).unwrap_or(1).max(1);
            Err((line, column, first.msg.clone()))
        }
        Err(_) => Err((1, 1, "the CEL parser failed on this expression".to_string())),
    }
}

/// The offending line with a caret, indented under the error line.
fn snippet(source: &str, line: usize, column: usize) -> String {
    let Some(text) = source.lines().nth(line.saturating_sub(1)) else { return String::new() };
    let width = text.chars().count();
    let caret = " ".repeat(column.saturating_sub(1).min(width));
    format!("\n  | {text}\n  | {caret}^")
}

/// Flux's first step: an integer observedGeneration that differs from an integer generation.
fn generation_not_observed(object: &Value) -> Option<String> {
    let observed = object.get("status")?.get("observedGeneration")?.as_i64()?;
    let generation = object.get("metadata")?.get("generation")?.as_i64()?;
    (observed != generation)
        .then(|| format!("generation is {generation}, but latest observed generation is {observed}"))
}

/// Why an object is not ready, for InProgress and Failed messages: the most recent condition that reports a
/// problem (not True, or True for NotReady-like types) and carries a message, such as
/// `Issuing=False (Failed): The certificate request has failed`; the latest transition is the one that explains
/// the state best (cert-manager's Ready=False "DoesNotExist" predates the Issuing failure that matters). An
/// object that reports a phase or state instead of conditions (Argo, Velero, ACME orders) is described by it:
/// `phase Failed: <message>`.
pub fn condition_hint(object: &Value) -> Option<String> {
    let status = object.get("status")?;
    let conditions = status.get("conditions").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let mut best: Option<(Option<jiff::Timestamp>, String)> = None;
    for condition in conditions {
        let Some(hint) = describe_condition(condition) else { continue };
        let time = condition.get("lastTransitionTime").and_then(Value::as_str).and_then(|time| time.parse().ok());
        if best.as_ref().is_none_or(|(best_time, _)| time > *best_time) {
            best = Some((time, hint));
        }
    }
    best.map(|(_, hint)| hint).or_else(|| describe_phase(status))
}

/// Status fields that name a state, and fields that explain it, in the order they are tried.
const PHASE_FIELDS: [&str; 3] = ["phase", "state", "printableStatus"];
const DETAIL_FIELDS: [&str; 6] = ["message", "phaseReason", "failureMessage", "failureReason", "error", "reason"];

/// `phase Failed: <message>` from the first state field and the first detail field a status holds.
fn describe_phase(status: &Value) -> Option<String> {
    let text = |field: &str| status.get(field).and_then(Value::as_str).map(str::trim).filter(|text| !text.is_empty());
    let (field, phase) = PHASE_FIELDS.iter().find_map(|field| text(field).map(|phase| (*field, phase)))?;
    Some(match DETAIL_FIELDS.iter().find_map(|field| text(field)) {
        Some(detail) => format!("{field} {phase}: {detail}"),
        None => format!("{field} {phase}"),
    })
}

fn describe_condition(condition: &Value) -> Option<String> {
    let kind = condition.get("type")?.as_str()?;
    let status = condition.get("status")?.as_str()?;
    let message = condition.get("message")?.as_str().map(str::trim).filter(|message| !message.is_empty())?;
    // Most condition types say something good when True; these "abnormal-true" ones say something bad.
    let abnormal_true =
        matches!(kind, "NotReady" | "Stalled" | "Reconciling" | "Degraded" | "ReplicaFailure" | "Failed");
    if (status == "True") != abnormal_true {
        return None;
    }
    Some(match condition.get("reason").and_then(Value::as_str).filter(|reason| !reason.is_empty()) {
        Some(reason) => format!("{kind}={status} ({reason}): {message}"),
        None => format!("{kind}={status}: {message}"),
    })
}

/// A JSON value as a CEL value borrowing the object's strings.
fn to_cel(value: &Value, depth: usize) -> Box<dyn Val + '_> {
    if depth > MAX_DEPTH {
        return Box::new(CelNull);
    }
    match value {
        Value::Null => Box::new(CelNull),
        Value::Bool(flag) => Box::new(CelBool::from(*flag)),
        Value::Number(number) => match (number.as_i64(), number.as_u64()) {
            (Some(integer), _) => Box::new(CelInt::from(integer)),
            (None, Some(unsigned)) => Box::new(CelUInt::from(unsigned)),
            (None, None) => Box::new(CelDouble::from(number.as_f64().unwrap_or(f64::NAN))),
        },
        Value::String(text) => Box::new(CelString::from(text.as_str())),
        Value::Array(items) => {
            Box::new(CelList::from(items.iter().map(|item| to_cel(item, depth + 1)).collect::<Vec<_>>()))
        }
        Value::Object(map) => Box::new(CelMap::from(
            map.iter()
                .map(|(key, item)| (CelMapKey::from(key.as_str()), to_cel(item, depth + 1)))
                .collect::<HashMap<_, _>>(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rule(current: &str, in_progress: Option<&str>, failed: Option<&str>) -> CelRule {
        CelRule::compile(current, in_progress, failed).unwrap_or_else(|errors| panic!("{errors:?}"))
    }

    fn certificate(ready: &str) -> Value {
        json!({
            "apiVersion": "cert-manager.io/v1", "kind": "Certificate",
            "metadata": {"name": "tls", "generation": 2, "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"secretName": "tls", "dnsNames": ["a.example.com"]},
            "status": {"observedGeneration": 2, "conditions": [
                {"type": "Ready", "status": ready, "reason": "Ready", "message": "Certificate is up to date",
                 "lastTransitionTime": "2026-01-01T00:05:00Z"}]},
        })
    }

    #[test]
    fn language_features_flux_users_rely_on() {
        let object = certificate("True");
        let expressions = [
            "status.conditions.filter(e, e.type == 'Ready').all(e, e.status == 'True')",
            "status.conditions.exists(e, e.type == 'Ready' && e.status == 'True')",
            "status.conditions.exists_one(e, e.status == 'True')",
            "status.conditions.map(c, c.type) == ['Ready']",
            "has(status.observedGeneration) && status.observedGeneration == metadata.generation",
            "!has(status.phase)",
            "status.?phase.orValue('none') == 'none'",
            "status.?conditions.orValue([]).exists(c, c.type == 'Ready')",
            "'READY'.lowerAscii() == 'ready' && apiVersion.split('/')[0] == 'cert-manager.io'",
            "spec.dnsNames.exists(d, d.endsWith('.example.com') && d.matches('^[a-z.]+$'))",
            "timestamp(status.conditions[0].lastTransitionTime) - timestamp(metadata.creationTimestamp) > duration('1m')",
            "size(status.conditions) == 1 && kind == 'Certificate'",
            "[3, 1, 2].sort() == [1, 2, 3] && [1, 1].distinct() == [1] && [[1], [2]].flatten() == [1, 2]",
            "kind.contains('tif') && kind.endsWith('ate') && ' a '.trim() == 'a' && kind.indexOf('e') == 1",
            "kind.substring(0, 4) == 'Cert' && kind.upperAscii() == 'CERTIFICATE' && 'a-b'.replace('-', '') == 'ab'",
            "status.?phase.hasValue() == false && double(metadata.generation) == 2.0 && int('3') == 3",
            "timestamp('2026-01-01T00:00:00Z') + duration('1h') > timestamp('2026-01-01T00:30:00Z')",
        ];
        for expression in expressions {
            assert_eq!(
                rule(expression, None, None).judge(&object),
                (Status::Current, "`current` is true".into()),
                "{expression}"
            );
        }
    }

    #[test]
    fn order_is_in_progress_failed_current_and_none_true_is_in_progress() {
        let object = certificate("False");
        let ready = "status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')";
        let not_ready = "status.conditions.exists(c, c.type == 'Ready' && c.status == 'False')";
        let hint = "Ready=False (Ready): Certificate is up to date";
        assert_eq!(rule(ready, Some("true"), Some("true")).judge(&object).0, Status::InProgress);
        assert_eq!(
            rule(ready, None, Some(not_ready)).judge(&object),
            (Status::Failed, format!("`failed` is true; {hint}"))
        );
        assert_eq!(rule(not_ready, Some("false"), Some("false")).judge(&object).0, Status::Current);
        assert_eq!(
            rule(ready, None, None).judge(&object),
            (Status::InProgress, format!("no expression is true yet; {hint}"))
        );
    }

    #[test]
    fn generation_mismatch_wins_unless_observed_generation_is_not_an_integer() {
        let mut object = certificate("True");
        object["metadata"]["generation"] = json!(3);
        let rule = rule("true", None, None);
        assert_eq!(
            rule.judge(&object),
            (Status::InProgress, "generation is 3, but latest observed generation is 2".into())
        );
        object["status"]["observedGeneration"] = json!("2");
        assert_eq!(rule.judge(&object).0, Status::Current);
    }

    #[test]
    fn errors_and_non_bool_results_are_unknown() {
        let object = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}});
        assert_eq!(
            rule("status.phase == 'Ready'", None, None).judge(&object),
            (Status::Unknown, "`current` cannot be evaluated: No such key: phase".into())
        );
        assert_eq!(rule("status.?phase.orValue('') == 'Ready'", None, None).judge(&object).0, Status::InProgress);
        assert_eq!(
            rule("kind", None, None).judge(&object),
            (Status::Unknown, "`current` returned a string, not a bool".into())
        );
        assert_eq!(
            rule("data.x == 1", None, None).judge(&object),
            (Status::Unknown, "`current` cannot be evaluated: Undeclared reference to 'data'".into())
        );
        let config_map = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"x": "1"}});
        assert_eq!(rule("data.x == '1'", None, None).judge(&config_map).0, Status::Current);
    }

    #[test]
    fn syntax_errors_name_the_field_and_position() {
        let errors = CelRule::compile("status.ready ==", Some("a &&\n  (b"), Some("   ")).expect_err("bad");
        assert_eq!(errors.len(), 2);
        assert_eq!((errors[0].field, errors[0].line, errors[0].column), (Field::InProgress, 2, 5));
        assert_eq!(errors[1].field, Field::Current);
        assert_eq!((errors[1].line, errors[1].column), (1, 16));
        let text = errors[1].to_string();
        assert!(text.starts_with("`current` at line 1, column 16: Syntax error:"), "{text}");
        assert!(text.ends_with("\n  | status.ready ==\n  |                ^"), "{text}");
        let errors = CelRule::compile("", None, None).expect_err("empty");
        assert_eq!(
            errors[0].to_string(),
            "`current` at line 1, column 1: the expression is empty; `current` is required"
        );
    }
}
