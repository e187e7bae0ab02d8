//! Property tests: no template text, however malformed or hostile, makes the engine panic, hang or overflow
//! the stack. Each case is parsed and executed (with Helm-like `include`/`tpl`, data holding a map that
//! contains itself) under small limits, on a thread of the default 2 MiB test size, within a deadline.

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

use std::sync::mpsc;
use std::time::Duration;

use berth_go::{GoType, Map, Signature, Value};
use berth_template::{Context, Limits, MissingKey, Template};
use proptest::prelude::*;

const DEADLINE: Duration = Duration::from_secs(10);

fn include(ctx: &mut Context<'_>, args: &[Value]) -> berth_go::Result<Value> {
    let name = args.first().and_then(Value::as_str).unwrap_or_default().to_string();
    let data = args.get(1).cloned().unwrap_or(Value::Nil);
    ctx.execute_template(&name, &data).map(|s| Value::from_go_bytes(&s))
}

fn tpl(ctx: &mut Context<'_>, args: &[Value]) -> berth_go::Result<Value> {
    let text = args.first().and_then(Value::as_str).unwrap_or_default().to_string();
    let data = args.get(1).cloned().unwrap_or(Value::Nil);
    ctx.execute_text("gotpl", &text, &data).map(|s| Value::from_go_bytes(&s))
}

fn data() -> Value {
    let cyclic = Map::new();
    cyclic.insert("self", Value::Map(cyclic.clone()));
    cyclic.insert("n", Value::Float(2.0));
    Value::map([
        ("a", Value::map([("b", Value::from("x")), ("n", Value::Float(3.0))])),
        ("list", Value::list([Value::Int(1), Value::from("two"), Value::Nil])),
        ("n", Value::Float(1e6)),
        ("s", Value::from("{{ .n }}")),
        ("cyclic", Value::Map(cyclic)),
    ])
}

/// Parses and executes `text`; returns whether it succeeded. Panics only if the engine panicked or hung.
fn run(text: String) -> bool {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("template".into())
        .spawn(move || {
            let limits = Limits {
                max_range_iterations: 20_000,
                max_template_calls: 5_000,
                max_render_bytes: 1 << 20,
                timeout: None,
                stack_budget: 512 * 1024,
            };
            let set = Template::new("gotpl")
                .missing_key(MissingKey::ZeroValue)
                .limits(limits)
                .context_func("include", Some(Signature::fixed(&[GoType::String, GoType::Any])), include)
                .context_func("tpl", Some(Signature::fixed(&[GoType::String, GoType::Any])), tpl);
            let data = data();
            let result = set.parse(&text).and_then(|t| t.execute_to_string(&data));
            let ok = match &result {
                Ok(_) => true,
                Err(e) => {
                    // Displaying the error walks its whole chain, which must not overflow either.
                    assert!(!e.to_string().is_empty());
                    false
                }
            };
            let _ = tx.send(ok);
        })
        .expect("spawn");
    match rx.recv_timeout(DEADLINE) {
        Ok(ok) => ok,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("template did not finish within {DEADLINE:?}"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the engine panicked"),
    }
}

/// Pieces of template syntax, valid and not.
fn token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "{{",
        "}}",
        "{{- ",
        " -}}",
        "{{/*",
        "*/}}",
        "if ",
        "else ",
        "end",
        "range ",
        "with ",
        "define ",
        "template ",
        "block ",
        "break",
        "continue",
        " ",
        ".",
        ".a",
        ".a.b",
        ".a.b.c",
        ".list",
        ".n",
        ".cyclic",
        ".cyclic.self",
        ".cyclic.self.self.n",
        "$",
        "$x",
        "$x := ",
        "$x = ",
        "$i, $v := ",
        "|",
        "(",
        ")",
        "\"loop\"",
        "\"t\"",
        "\"{{ .n }}\"",
        "`raw`",
        "1",
        "-2",
        "3.5",
        "1e300",
        "0x1F",
        "'c'",
        "true",
        "nil",
        "print ",
        "printf ",
        "\"%v %d %s %q\" ",
        "println ",
        "len ",
        "index ",
        "slice ",
        "eq ",
        "ne ",
        "lt ",
        "and ",
        "or ",
        "not ",
        "call ",
        "html ",
        "js ",
        "urlquery ",
        "include ",
        "tpl ",
        ".s",
        "text",
        "\n",
        ",",
        "'",
        "\"",
        "é",
        "100000",
    ])
}

/// Well-formed templates built from nested blocks, so execution gets deep as well as parsing.
fn node() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(vec![
        "x".to_string(),
        "{{ .a.b }}".to_string(),
        "{{ .cyclic }}".to_string(),
        "{{ printf \"%v|%5.2f\" .list .n }}".to_string(),
        "{{ include \"loop\" . }}".to_string(),
        "{{ include \"t\" . }}".to_string(),
        "{{ tpl .s . }}".to_string(),
        "{{ tpl \"{{ include \\\"t\\\" . }}\" . }}".to_string(),
        "{{ template \"t\" . }}".to_string(),
        "{{ $x := 1 }}{{ $x = 2 }}".to_string(),
        "{{ len .list }}".to_string(),
        "{{ index .list 9 }}".to_string(),
        "{{ break }}".to_string(),
    ]);
    leaf.prop_recursive(6, 64, 4, |inner| {
        (prop::sample::select(vec!["if", "range", "with", "define"]), prop::collection::vec(inner, 1..4)).prop_map(
            |(keyword, body)| {
                let body = body.concat();
                match keyword {
                    "range" => format!("{{{{ range $i, $v := .list }}}}{body}{{{{ range 3 }}}}{body}{{{{ end }}}}{{{{ end }}}}"),
                    "define" => format!("{{{{ define \"t\" }}}}{body}{{{{ end }}}}{{{{ define \"loop\" }}}}{{{{ include \"loop\" . }}}}{{{{ end }}}}"),
                    other => format!("{{{{ {other} .a }}}}{body}{{{{ else }}}}{body}{{{{ end }}}}"),
                }
            },
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn token_soup_never_panics_or_hangs(tokens in prop::collection::vec(token(), 0..80)) {
        run(tokens.concat());
    }

    #[test]
    fn arbitrary_text_never_panics_or_hangs(text in "\\PC{0,200}") {
        run(text);
    }

    #[test]
    fn nested_templates_never_panic_or_hang(body in node()) {
        run(body);
    }
}

#[test]
fn pathological_inputs_end_in_errors() {
    let deep_parens = format!("{{{{{}1{}}}}}", "(".repeat(50_000), ")".repeat(50_000));
    let deep_ifs = format!("{}x{}", "{{if 1}}".repeat(50_000), "{{end}}".repeat(50_000));
    let long_pipeline = format!("{{{{ 1 {} }}}}", "| print ".repeat(100_000));
    let huge_range = "{{ range 1000000000 }}{{ range 1000000000 }}x{{ end }}{{ end }}".to_string();
    let exponential = (0..40)
        .map(|i| {
            format!(
                "{{{{define \"t{i}\"}}}}{{{{template \"t{}\" .}}}}{{{{template \"t{}\" .}}}}{{{{end}}}}",
                i + 1,
                i + 1
            )
        })
        .collect::<String>()
        + "{{define \"t40\"}}x{{end}}{{template \"t0\" .}}";
    for text in [deep_parens, deep_ifs, long_pipeline, huge_range, exponential] {
        assert!(!run(text), "expected an error");
    }
}
