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

use super::cel_cost;
use crate::status::Status;
use cel::common::ast::{EntryExpr, Expr, IdedExpr};
use cel::common::types::{CelBool, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString, CelUInt};
use cel::common::value::Val;
use cel::{Context, Env, Program};
use serde_json::Value;
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, LazyLock};

/// Nesting beyond this depth is bound as `null`: no Kubernetes object comes near it, and it bounds recursion.
const MAX_DEPTH: usize = 256;

/// The longest expression accepted, in bytes. Health expressions are a few hundred bytes; this bounds what
/// parsing one can cost (cel-go's own default is 100,000 code points; Kubernetes bounds expressions by cost).
pub const MAX_EXPRESSION_BYTES: usize = 8 * 1024;

/// The deepest expression tree accepted: `1 + 1 + ...` with more terms than this, or operations nested
/// deeper, is refused when the rule is read (the interpreter recurses once per level). cel 0.15's parser
/// stops parenthesised nesting at 96; the macros add a few levels each.
pub const MAX_NESTING: usize = 100;

/// The stack parsing runs on, once per rule (measured in `nesting_limits_keep_every_stack_bounded`;
/// `crate::stacks` says why this much).
const PARSE_STACK_BYTES: usize = crate::stacks::CEL_PARSE;

/// The stack evaluation needs: [`MAX_NESTING`] levels of the interpreter and objects nested [`MAX_DEPTH`]
/// deep (measured in the same test, on a stack mapped for the call: a debug build passes with 4 MiB and
/// crashes with 2 MiB). A thread with this much left evaluates on its own stack (a main thread's 8 MiB, the
/// CLI runtime's 16 MiB threads); others (tokio's threads have 2 MiB by default) get
/// [`EVALUATION_STACK_BYTES`] mapped for the call, which costs a page fault per page touched.
const EVALUATION_RED_ZONE: usize = 6 * 1024 * 1024;

/// The stack mapped for an evaluation on a thread with less than [`EVALUATION_RED_ZONE`] left
/// (`crate::stacks` says why this much).
const EVALUATION_STACK_BYTES: usize = crate::stacks::CEL_EVALUATION;

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

    /// Judges `object` with Flux's order; the message says which expression decided. Runs on a thread of its
    /// own (see the module documentation) and blocks the caller until it ends: async callers run it where
    /// blocking is allowed (`tokio::task::spawn_blocking`).
    pub fn judge(&self, object: &Value) -> (Status, String) {
        if let Some(message) = generation_not_observed(object) {
            return (Status::InProgress, message);
        }
        with_stack(EVALUATION_RED_ZONE, EVALUATION_STACK_BYTES, || self.evaluate(object))
            .unwrap_or_else(|message| (Status::Unknown, message))
    }

    /// The first expression whose cost on `object` could exceed the budget, with that cost: checked when an
    /// object's own rule is read (its manifest as the object), so a rule that can never run is refused then.
    pub fn over_budget(&self, object: &Value) -> Option<(Field, u64)> {
        with_stack(EVALUATION_RED_ZONE, EVALUATION_STACK_BYTES, || {
            self.expressions.iter().find_map(|expression| {
                let cost = cel_cost::estimate(expression.program.expression(), object);
                (cost > cel_cost::BUDGET).then_some((expression.field, cost))
            })
        })
        .ok()
        .flatten()
    }

    fn evaluate(&self, object: &Value) -> (Status, String) {
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
            let cost = cel_cost::estimate(expression.program.expression(), object);
            if cost > cel_cost::BUDGET {
                return (Status::Unknown, format!("{}; not evaluated", over_budget_message(expression.field, cost)));
            }
            match expression.program.execute(&context) {
                Ok(cel::Value::Bool(true)) => {
                    let status = expression.field.status();
                    let message = match condition_hint(object).filter(|_| status != Status::Current) {
                        Some(hint) => format!("`{key}` is true; {hint}"),
                        None => format!("`{key}` is true"),
                    };
                    return (status, message);
                }
                Ok(cel::Value::Bool(false)) => {}
                Ok(other) => {
                    return (Status::Unknown, format!("`{key}` returned a {}, not a bool", other.type_of()));
                }
                Err(error) => return (Status::Unknown, format!("`{key}` cannot be evaluated: {error}")),
            }
        }
        let message = match condition_hint(object) {
            Some(hint) => format!("no expression is true yet; {hint}"),
            None => "no expression is true yet".to_string(),
        };
        (Status::InProgress, message)
    }
}

/// Why an expression was not evaluated.
pub fn over_budget_message(field: Field, cost: u64) -> String {
    let cost = if cost == u64::MAX { "an unbounded amount".to_string() } else { format!("up to {cost} units") };
    format!(
        "`{}` could cost {cost} on this object, over the budget of {} per evaluation",
        field.key(),
        cel_cost::BUDGET
    )
}

/// Runs `work`, a batch of judgements, where each evaluation finds the stack it needs in place: on the
/// calling thread when it has [`crate::stacks::CEL_EVALUATION`] left, else on a stack of that size mapped once for
/// the batch (not once per evaluation, as a thread with less stack would for each).
pub fn with_evaluation_stack<T>(work: impl FnOnce() -> T) -> T {
    stacker::maybe_grow(EVALUATION_STACK_BYTES, EVALUATION_STACK_BYTES, work)
}

/// Runs `work` with at least `red_zone` bytes of stack: on the calling thread's own stack when that much is
/// left, else on a stack of `stack` bytes mapped for the call (stacker switches to it and back; no thread is
/// started), so the caller's stack size does not matter.
///
/// # Errors
/// A message when `work` panics (the interpreter failed).
fn with_stack<T>(red_zone: usize, stack: usize, work: impl FnOnce() -> T) -> Result<T, String> {
    stacker::maybe_grow(red_zone, stack, || catch_unwind(AssertUnwindSafe(work)))
        .map_err(|_| "the CEL interpreter failed".to_string())
}

/// Parses one expression on the CEL thread, refusing what is too long or too deeply nested; the error carries
/// a 1-based line and column inside it.
fn compile_one(source: &str) -> Result<Program, (usize, usize, String)> {
    if source.len() > MAX_EXPRESSION_BYTES {
        return Err((
            1,
            1,
            format!("the expression is {} bytes long; at most {MAX_EXPRESSION_BYTES} are accepted", source.len()),
        ));
    }
    with_stack(PARSE_STACK_BYTES, PARSE_STACK_BYTES, || match ENVIRONMENT.compile(source) {
        Ok(program) => {
            let depth = nesting(program.expression());
            if depth > MAX_NESTING {
                return Err((
                    1,
                    1,
                    format!("the expression nests {depth} levels deep; at most {MAX_NESTING} are accepted"),
                ));
            }
            Ok(program)
        }
        Err(errors) => {
            let Some(first) = errors.errors.first() else {
                return Err((1, 1, "syntax error".to_string()));
            };
            let line = usize::try_from(first.pos.0).unwrap_or(1).max(1);
            let column = usize::try_from(first.pos.1).unwrap_or(1).max(1);
            // The parser's own nesting limit comes back as a debug rendering of its error; say what it means.
            let message = if first.msg.contains("Recursion limit of") {
                "the expression nests more than 96 levels of parentheses, calls or operators".to_string()
            } else {
                first.msg.clone()
            };
            Err((line, column, message))
        }
    })
    .unwrap_or_else(|message| Err((1, 1, message)))
}

/// The depth of an expression tree, without recursion (the tree may be thousands of levels deep).
fn nesting(expression: &IdedExpr) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(expression, 1usize)];
    while let Some((expression, depth)) = pending.pop() {
        deepest = deepest.max(depth);
        let next = depth + 1;
        match &expression.expr {
            Expr::Call(call) => {
                pending.extend(call.target.iter().map(|target| (&**target, next)));
                pending.extend(call.args.iter().map(|arg| (arg, next)));
            }
            Expr::Comprehension(comprehension) => pending.extend(
                [
                    &comprehension.iter_range,
                    &comprehension.accu_init,
                    &comprehension.loop_cond,
                    &comprehension.loop_step,
                    &comprehension.result,
                ]
                .map(|part| (part, next)),
            ),
            Expr::List(list) => pending.extend(list.elements.iter().map(|element| (element, next))),
            Expr::Map(map) => {
                for entry in &map.entries {
                    if let EntryExpr::MapEntry(entry) = &entry.expr {
                        pending.push((&entry.key, next));
                        pending.push((&entry.value, next));
                    }
                }
            }
            Expr::Struct(structure) => {
                for entry in &structure.entries {
                    if let EntryExpr::StructField(field) = &entry.expr {
                        pending.push((&field.value, next));
                    }
                }
            }
            Expr::Select(select) => pending.push((&select.operand, next)),
            Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
        }
    }
    deepest
}

/// An expression compiled in the rules' environment, for the cost estimator's tests.
#[cfg(test)]
pub(super) fn compiled(source: &str) -> Program {
    ENVIRONMENT.compile(source).unwrap_or_else(|errors| panic!("{source}: {errors:?}"))
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

    #[test]
    fn hostile_expressions_are_refused_when_read() {
        let long_chain = vec!["1"; 7000].join(" + ");
        let errors = CelRule::compile(&format!("{long_chain} > 0"), None, None).expect_err("too long");
        assert!(errors[0].message.contains("at most 8192 are accepted"), "{}", errors[0].message);
        let deep_chain = vec!["1"; 2000].join("+");
        let errors = CelRule::compile(&format!("{deep_chain} > 0"), None, None).expect_err("too deep");
        assert!(errors[0].message.contains("levels deep; at most 100 are accepted"), "{}", errors[0].message);
        let nested = format!("{}true{}", "(".repeat(200), ")".repeat(200));
        assert!(CelRule::compile(&nested, None, None).is_err());
        let within = vec!["1"; 90].join(" + ");
        assert_eq!(rule(&format!("{within} == 90"), None, None).judge(&json!({})).0, Status::Current);
    }

    #[test]
    fn evaluations_over_the_budget_are_unknown_never_current() {
        let mut bomb = "1".to_string();
        for level in 0..7 {
            bomb = format!("[0,1,2,3,4,5,6,7,8,9].map(x{level}, {bomb})");
        }
        let bomb = rule(&format!("size({bomb}) > 0"), Some("false"), None);
        let (status, message) = bomb.judge(&json!({}));
        assert_eq!(status, Status::Unknown);
        assert!(message.starts_with("`current` could cost up to "), "{message}");
        assert!(
            message.ends_with(" on this object, over the budget of 1000000 per evaluation; not evaluated"),
            "{message}"
        );
        assert_eq!(bomb.over_budget(&json!({})).map(|(field, _)| field), Some(Field::Current));

        // The same rule is cheap on a small object and over budget on a large one.
        let pairs = rule("status.items.all(a, status.items.all(b, a != b || a == b))", None, None);
        let object = |count: usize| json!({"status": {"items": (0..count).collect::<Vec<_>>()}});
        assert_eq!(pairs.judge(&object(50)), (Status::Current, "`current` is true".into()));
        assert!(pairs.over_budget(&object(50)).is_none());
        assert_eq!(pairs.judge(&object(3000)).0, Status::Unknown);
        let unbounded = rule("lists.range(size(status.items)).size() > 0", None, None);
        let (status, message) = unbounded.judge(&object(3));
        assert_eq!(status, Status::Unknown);
        assert!(message.contains("an unbounded amount"), "{message}");
    }

    #[test]
    fn nesting_limits_keep_every_stack_bounded() {
        // The deepest expression accepted, on the deepest object the conversion reads, on the CEL thread.
        let mut deep = json!("leaf");
        for _ in 0..300 {
            deep = json!({"a": deep});
        }
        // `(1 + 1 + ... == 98) && has(spec.a)`: the leftmost `1` is MAX_NESTING levels down.
        let chain = vec!["1"; 98].join(" + ");
        let source = format!("{chain} == 98 && has(spec.a)");
        assert_eq!(
            with_stack(PARSE_STACK_BYTES, PARSE_STACK_BYTES, || nesting(compiled(&source).expression())),
            Ok(MAX_NESTING)
        );
        let rule = rule(&source, None, None);
        assert_eq!(rule.judge(&json!({"spec": deep})).0, Status::Current);
        // A parse tree as deep as the longest expression allows, refused without exhausting the stack.
        let chain = vec!["1"; MAX_EXPRESSION_BYTES / 2 - 2].join("+");
        assert!(CelRule::compile(&chain, None, None).is_err());
    }
}
