//! A guard against stack overflow in the recursive parser and executor.
//!
//! Template nesting (blocks inside blocks, templates calling templates, `include` inside `include`) maps to
//! Rust recursion whose frame sizes differ between builds. Instead of guessing a depth, the guard measures
//! the stack actually used since the outermost call, from the address of a local variable, and stops with
//! an error once a byte budget is spent. The budget must be smaller than the stack of the thread that
//! parses or executes (see [`DEFAULT_STACK_BUDGET`]).

/// The default stack budget: fits the 2 MiB stack of a spawned Rust thread with room to spare for the
/// frames below the last check (function calls, printing deep values).
pub const DEFAULT_STACK_BUDGET: usize = 1024 * 1024;

/// Measures stack use from the point where it was created.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StackGuard {
    base: usize,
    budget: usize,
}

impl StackGuard {
    /// A guard whose base is the caller's frame.
    #[inline(never)]
    pub fn new(budget: usize) -> Self {
        StackGuard { base: stack_address(), budget }
    }

    /// Bytes of stack used since the guard was made.
    #[inline(never)]
    pub fn used(&self) -> usize {
        self.base.abs_diff(stack_address())
    }

    /// Whether the budget is spent.
    pub fn exceeded(&self) -> bool {
        self.used() > self.budget
    }

    /// The budget in bytes.
    pub fn budget(&self) -> usize {
        self.budget
    }
}

/// The address of a local of this frame: an approximation of the stack pointer that needs no `unsafe`.
#[inline(never)]
fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recurse(guard: &StackGuard, depth: usize) -> usize {
        let pad = std::hint::black_box([0u8; 256]);
        if guard.exceeded() {
            return depth + pad[0] as usize;
        }
        recurse(guard, depth + 1)
    }

    #[test]
    fn recursion_stops_within_budget() {
        let guard = StackGuard::new(64 * 1024);
        let depth = recurse(&guard, 0);
        assert!(depth > 10, "stopped after {depth} levels");
        assert!(guard.used() < 64 * 1024);
    }
}
