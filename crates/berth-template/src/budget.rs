//! What one execution may spend: the [`Limits`] a set is configured with, and the [`Budget`] an execution and
//! every execution nested in it (templates, `include`, `tpl`) count down, so that no template hangs or exhausts
//! memory or stack.

use crate::stack::{DEFAULT_STACK_BUDGET, StackGuard};

/// Execution limits, so that no template hangs or exhausts memory or stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Iterations of `range` bodies per execution (nested executions included).
    pub max_range_iterations: u64,
    /// Template invocations (`template`, `block`, context functions executing templates) per execution.
    pub max_template_calls: u64,
    /// Bytes written per execution (nested executions included).
    pub max_output_bytes: usize,
    /// Bytes of thread stack parsing and execution may use (see [`crate::DEFAULT_STACK_BUDGET`]); must be
    /// below the stack size of the thread that parses and executes.
    pub stack_budget: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_range_iterations: 10_000_000,
            max_template_calls: 10_000_000,
            max_output_bytes: 256 * 1024 * 1024,
            stack_budget: DEFAULT_STACK_BUDGET,
        }
    }
}

/// Counters shared by one execution and every execution nested in it (templates, `include`, `tpl`).
pub(crate) struct Budget {
    pub range_iterations: u64,
    pub template_calls: u64,
    pub output_bytes: usize,
    pub guard: StackGuard,
}

impl Budget {
    pub fn new(limits: Limits) -> Self {
        Budget {
            range_iterations: limits.max_range_iterations,
            template_calls: limits.max_template_calls,
            output_bytes: limits.max_output_bytes,
            guard: StackGuard::new(limits.stack_budget),
        }
    }
}
