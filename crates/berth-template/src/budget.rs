//! What one render may spend: the [`Limits`] a set is configured with, and the [`Budget`] a render and every
//! execution in it (each template file, `template`, `include`, `tpl`) count down, so that no template hangs,
//! exhausts memory or overflows the stack.
//!
//! The bytes, the wall time and cancellation are counted by berth-go's [`Meter`], made the thread's active meter
//! while an execution runs, so that the functions a template calls can ask it before they allocate (see
//! `berth_go::budget`). Range iterations, template calls and the stack are the engine's own.
//!
//! What counts as built (the engine decides, in `exec`): every byte written to the output, every byte of a string a
//! function, builtin or method returns, and the slots of every new list or map one returns. A string built by
//! doubling in a loop, a list built by a million `append`s (each a copy, as in Go) and a value encoded at
//! exponential length all run into the same bound.

use std::rc::Rc;
use std::time::Duration;

use berth_go::budget::{Active, Cancel, Exhausted, Meter};
use berth_go::{TemplateError, Value};

use crate::stack::{DEFAULT_STACK_BUDGET, StackGuard};

/// Bytes one render may build by default: 128 MiB. The largest render of the public-chart corpus builds about
/// 26 MiB (docs/charts.md, "Budgets"); a string doubled in a loop reaches the bound after 27 doublings, and the
/// render's memory stays near twice the bound.
pub const DEFAULT_MAX_RENDER_BYTES: u64 = 128 * 1024 * 1024;

/// Execution limits, so that no template hangs or exhausts memory or stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Iterations of `range` bodies per render (nested executions included).
    pub max_range_iterations: u64,
    /// Template invocations (`template`, `block`, context functions executing templates) per render.
    pub max_template_calls: u64,
    /// Bytes a render may build: its output and what the functions it calls return (see the module's head).
    pub max_render_bytes: u64,
    /// Wall time a render may take (`None`: no limit). Checked at `range` iterations, template and function
    /// calls, and inside the functions that can run long.
    pub timeout: Option<Duration>,
    /// Bytes of thread stack parsing and execution may use (see [`crate::DEFAULT_STACK_BUDGET`]); must be
    /// below the stack size of the thread that parses and executes.
    pub stack_budget: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_range_iterations: 10_000_000,
            max_template_calls: 10_000_000,
            max_render_bytes: DEFAULT_MAX_RENDER_BYTES,
            timeout: None,
            stack_budget: DEFAULT_STACK_BUDGET,
        }
    }
}

/// The counters of one render, shared by every execution in it. Made by the caller that renders several
/// templates as one (Helm renders every file of a chart in one call), or by each `execute` call.
///
/// ```
/// use berth_go::Value;
/// use berth_template::{Budget, Cancel, Limits, Template};
///
/// let set = Template::new("t").parse("{{ range . }}{{ . }}{{ end }}").unwrap();
/// let data = Value::list(["a", "b", "c"].map(Value::from));
/// let cancel = Cancel::new();
/// let mut budget = Budget::new(Limits::default(), Some(cancel.clone()));
/// assert_eq!(set.execute_template_bytes("t", &data, &mut budget).unwrap(), b"abc");
/// assert_eq!(budget.bytes_built(), 3);
/// cancel.cancel();
/// let error = set.execute_template_bytes("t", &data, &mut budget).unwrap_err();
/// assert!(error.to_string().contains("render cancelled"), "{error}");
/// ```
pub struct Budget {
    pub(crate) limits: Limits,
    pub(crate) range_iterations: u64,
    pub(crate) template_calls: u64,
    pub(crate) guard: StackGuard,
    meter: Rc<Meter>,
}

impl Budget {
    /// A budget of `limits`, its clock started now, stopped early by `cancel`. The stack guard measures from
    /// here: create it on the thread that executes, above the executions.
    pub fn new(limits: Limits, cancel: Option<Cancel>) -> Self {
        Budget {
            limits,
            range_iterations: limits.max_range_iterations,
            template_calls: limits.max_template_calls,
            guard: StackGuard::new(limits.stack_budget),
            meter: Meter::new(limits.max_render_bytes, limits.timeout, cancel),
        }
    }

    /// Bytes counted as built so far.
    pub fn bytes_built(&self) -> u64 {
        self.meter.built()
    }

    /// Makes the budget's meter the thread's active one while an execution runs.
    pub(crate) fn activate(&self) -> Active {
        self.meter.activate()
    }

    /// Counts `bytes` written or returned.
    pub(crate) fn charge(&self, bytes: u64) -> Result<(), Exhausted> {
        self.meter.charge(bytes)
    }

    /// Time and cancellation (rate-limited reading; see `berth_go::budget`).
    pub(crate) fn check(&self) -> Result<(), Exhausted> {
        self.meter.check()
    }

    /// Time and cancellation, read now.
    pub(crate) fn check_now(&self) -> Result<(), Exhausted> {
        self.meter.check_now()
    }

    /// Why the render must stop, once it must: a function that swallowed the meter's answer (Go's `toJson`
    /// returns "" on any error) cannot hide it.
    pub(crate) fn exhausted(&self) -> Option<Exhausted> {
        self.meter.exhausted()
    }
}

/// Bytes counted for each slot of a new list or map a function returns (a [`Value`] and a key).
const SLOT_BYTES: u64 = (size_of::<Value>() + size_of::<usize>() * 2) as u64;

/// What a function's result built, given its arguments: a string's bytes; a list's or map's slots unless it is one
/// of the arguments (`set` and `merge` return the map they were given). Nested values are not walked: they were
/// counted when they were built.
pub(crate) fn built_by(result: &Value, args: &[Value]) -> u64 {
    match result {
        Value::List(list) => {
            let given = args.iter().any(|arg| matches!(arg, Value::List(other) if other.ptr_eq(list)));
            if given { 0 } else { list.len() as u64 * SLOT_BYTES }
        }
        Value::Map(map) => {
            let given = args.iter().any(|arg| matches!(arg, Value::Map(other) if other.ptr_eq(map)));
            if given { 0 } else { map.len() as u64 * SLOT_BYTES }
        }
        Value::String(text) => {
            // A string handed back as it was given (`default`, `coalesce`, `toString` of a string) is not new.
            let given =
                args.iter().any(|arg| matches!(arg, Value::String(other) if std::sync::Arc::ptr_eq(other, text)));
            if given { 0 } else { text.len() as u64 }
        }
        other => other.go_string_bytes().map_or(0, |bytes| bytes.len() as u64),
    }
}

/// The error an exhausted budget becomes where no node is at hand.
pub(crate) fn exhausted_error(template: &str, exhausted: Exhausted) -> TemplateError {
    TemplateError::msg(format!("template: {template}: {exhausted}"))
}
