//! How much stack template recursion costs, and that it always ends in an error rather than a crash.
//!
//! The executor stops when the stack used since the outermost execution passes `Limits::stack_budget`.
//! These tests measure the cost of one nested `include` (a context function executing a template) and of
//! one `{{template}}` call, and check that recursion stops with a clear error on a small default stack.

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

use berth_go::{GoType, Signature, Value};
use berth_template::{Context, Limits, Template};

fn include(ctx: &mut Context<'_>, args: &[Value]) -> berth_go::Result<Value> {
    let name = args.first().and_then(Value::as_str).unwrap_or_default().to_string();
    let data = args.get(1).cloned().unwrap_or(Value::Nil);
    ctx.execute_template(&name, &data).map(|s| Value::from_go_bytes(&s))
}

fn set(budget: usize) -> Template {
    Template::new("root").limits(Limits { stack_budget: budget, ..Limits::default() }).context_func(
        "include",
        Some(Signature::fixed(&[GoType::String, GoType::Any])),
        include,
    )
}

/// Depth reached by unbounded recursion before the stack budget stops it.
fn depth_reached(set: &Template, text: &str, marker: &str) -> usize {
    let set = set.clone().parse(text).expect("parses");
    let err = set.execute_to_string(&Value::Int(1)).expect_err("recursion must end in an error");
    let message = err.to_string();
    assert!(message.contains("exceeded maximum template depth"), "{message}");
    message.matches(marker).count()
}

fn on_thread<T: Send + 'static>(stack: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(stack).spawn(f).expect("spawn").join().expect("no crash")
}

#[test]
fn include_recursion_ends_in_an_error_within_the_budget() {
    let budget = 4 * 1024 * 1024;
    let levels = on_thread(16 * 1024 * 1024, move || {
        depth_reached(
            &set(budget),
            r#"{{define "loop"}}{{include "loop" .}}{{end}}{{include "loop" .}}"#,
            "error calling include",
        )
    });
    let per_level = budget / levels.max(1);
    println!("include recursion: {levels} levels in {budget} bytes, about {per_level} bytes per level");
    assert!(levels > 100, "only {levels} levels");
}

#[test]
fn template_recursion_ends_in_an_error_on_the_default_budget() {
    // The default budget (1 MiB) on a 2 MiB test thread.
    let set = Template::new("root");
    let set = set.parse(r#"{{define "loop"}}{{template "loop" .}}{{end}}{{template "loop" .}}"#).expect("parses");
    let err = set.execute_to_string(&Value::Nil).expect_err("recursion must end");
    assert!(err.to_string().contains("exceeded maximum template depth"), "{err}");
}

#[test]
fn helm_include_cap_fits_the_documented_stack() {
    // Helm stops `include` recursion after 1000 nested calls of one name; the renderer runs templates on a
    // thread with a 64 MiB stack and a 60 MiB budget, which must hold 1001 levels of a template that does a
    // little work around its include.
    let levels = on_thread(64 * 1024 * 1024, || {
        let text = r#"{{define "loop"}}{{if true}}{{with .}}{{range 1}}{{include "loop" $}}{{end}}{{end}}{{end}}{{end}}{{include "loop" .}}"#;
        depth_reached(&set(60 * 1024 * 1024), text, "error calling include")
    });
    assert!(levels > 1001, "only {levels} nested includes fit");
}
