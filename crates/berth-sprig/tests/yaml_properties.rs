//! Properties of the YAML module over generated input: any value `toYaml` writes reads back as the same value with
//! JSON number semantics (what Helm's values and `fromYaml` see), and no input makes the readers, the writers or
//! the YAML and TOML template functions panic or run long.

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use berth_go::Value;
use berth_sprig::helm_functions;
use proptest::prelude::*;

/// Whether `toYaml` can round-trip the text. Go's `json.Marshal` leaves U+007F, C1 controls, U+FFFE and U+FFFF
/// unescaped and yaml.v2 refuses them when it reads the JSON back, so Helm's `toYaml` gives "" for such values;
/// U+0085 it reads as a line break inside the quoted scalar and writes back as a space.
fn round_trips(text: &str) -> bool {
    !text.chars().any(|c| matches!(c, '\u{7f}'..='\u{9f}' | '\u{fffe}' | '\u{ffff}'))
}

/// Strings mixing YAML's special characters, spellings that resolve to other types, Unicode and control
/// characters; with `all` false, only text `toYaml` round-trips (see [`round_trips`]).
fn tricky_text(all: bool) -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "",
        " ",
        "  ",
        "a",
        "word",
        "y",
        "no",
        "True",
        "null",
        "~",
        "-",
        "- ",
        ":",
        ": ",
        "?",
        "#",
        " #",
        "'",
        "\"",
        "\\",
        "[",
        "]",
        "{",
        "}",
        ",",
        "&",
        "*",
        "!",
        "|",
        ">",
        "%",
        "@",
        "`",
        "\n",
        "\r",
        "\t",
        "\r\n",
        "0x1F",
        "1.5",
        "1e3",
        "017",
        "1:20",
        ".inf",
        "2001-12-14",
        "---",
        "...",
        "é",
        "日本",
        "\u{2028}",
        "\u{85}",
        "\u{feff}",
        "\u{1}",
        "\u{7f}",
        "\u{a0}",
        "😀",
        "=",
    ]);
    prop::collection::vec(pieces, 0..8)
        .prop_map(|parts| parts.concat())
        .prop_filter("toYaml round trip", move |text| all || round_trips(text))
}

/// A key `toYaml` writes so that it reads back as itself (`<<` is written plain and reads back as a merge key, in
/// Helm too).
fn key() -> impl Strategy<Value = String> {
    prop_oneof![tricky_text(false), "[a-z]{1,140}"].prop_filter("merge key", |key| key != "<<")
}

/// Values `toYaml` round-trips (see [`round_trips`]).
fn value() -> impl Strategy<Value = Value> {
    value_with(false)
}

fn value_with(all: bool) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Nil),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        any::<i64>().prop_map(Value::Int64),
        any::<u64>().prop_map(Value::Uint),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::Float),
        tricky_text(all).prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::list),
            prop::collection::btree_map(key(), inner, 0..6).prop_map(|entries| {
                Value::from(entries.into_iter().map(|(k, v)| (Arc::from(k.as_str()), v)).collect::<BTreeMap<_, _>>())
            }),
        ]
    })
}

/// The value with JSON number semantics: every number a float64 (as encoding/json decodes it).
fn json_semantics(value: &Value) -> Value {
    match value {
        Value::Int(n) | Value::Int64(n) => Value::Float(*n as f64),
        Value::Uint(n) => Value::Float(*n as f64),
        Value::List(items) => Value::list(items.iter().map(json_semantics)),
        Value::Map(map) => Value::from(
            map.snapshot().iter().map(|(k, v)| (k.clone(), json_semantics(v))).collect::<BTreeMap<Arc<str>, Value>>(),
        ),
        other => other.clone(),
    }
}

/// Whether a string or key anywhere in `value` satisfies `test`.
fn any_string(value: &Value, test: &dyn Fn(&str) -> bool) -> bool {
    match value {
        Value::String(s) => test(s),
        Value::List(items) => items.iter().any(|item| any_string(item, test)),
        Value::Map(map) => map.snapshot().iter().any(|(key, item)| test(key) || any_string(item, test)),
        _ => false,
    }
}

/// Structural equality, with 0.0 and -0.0 equal (JSON keeps the sign, yaml.v2 reads "-0" as the integer 0).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x == y,
        (Value::List(x), Value::List(y)) => x.len() == y.len() && x.iter().zip(y.iter()).all(|(a, b)| same(a, b)),
        (Value::Map(x), Value::Map(y)) => {
            let (x, y) = (x.snapshot(), y.snapshot());
            x.len() == y.len() && x.iter().zip(y.iter()).all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
        }
        (Value::Nil, Value::Nil) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn to_yaml_reads_back_as_the_same_value(value in value()) {
        let text = berth_goyaml::to_yaml(&value).expect("finite values encode");
        let back = berth_goyaml::parse_any(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let want = json_semantics(&value);
        prop_assert!(same(&back, &want), "wrote:\n{}\nread back: {:?}\nwanted: {:?}", text, back, want);
    }

    #[test]
    fn to_yaml_pretty_reads_back_as_the_same_value(value in value()) {
        // yaml.v3 writes a multi-line string that starts with a tab as a literal block without an indentation
        // indicator, which no YAML reader accepts; Helm's toYamlPretty prints the same unreadable text.
        prop_assume!(!any_string(&value, &|s: &str| s.starts_with('\t') && s.contains('\n')));
        let text = berth_goyaml::to_yaml_pretty(&value).expect("finite values encode");
        let back = berth_goyaml::parse_any(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let want = json_semantics(&value);
        prop_assert!(same(&back, &want), "wrote:\n{}\nread back: {:?}\nwanted: {:?}", text, back, want);
    }

    #[test]
    fn to_yaml_of_a_map_reads_back_through_load_values(entries in prop::collection::btree_map(key(), value(), 0..5)) {
        let map = Value::from(entries.into_iter().map(|(k, v)| (Arc::from(k.as_str()), v)).collect::<BTreeMap<_, _>>());
        let text = berth_goyaml::to_yaml(&map).expect("finite values encode");
        // A value line could start with "---" only inside a quoted or block scalar, which load_values' splitter
        // would cut as Helm's does; such text is left to the other property.
        prop_assume!(!text.lines().any(|line| line.starts_with("---")));
        let back = berth_goyaml::load_values(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        prop_assert!(same(&back, &json_semantics(&map)), "wrote:\n{}", text);
    }
}

/// YAML-looking fragments, so generated input reaches deep into the scanner and parser.
fn yamlish() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a",
        "b",
        "key",
        "-",
        "- ",
        ":",
        ": ",
        "? ",
        "[",
        "]",
        "{",
        "}",
        ",",
        "'",
        "\"",
        "\\",
        "#",
        "&a ",
        "*a",
        "!!str ",
        "!t ",
        "|",
        ">-",
        "|2",
        "\n",
        "\n  ",
        "\n- ",
        "\t",
        "\r\n",
        "---",
        "...",
        "%YAML 1.1\n",
        "<<: ",
        "yes",
        "0x",
        "1.5",
        "é",
        "\u{feff}",
        "\u{1}",
        "\"\\u263A\"",
        "{x: 1}",
        "[1, 2]",
        "k: v\n",
        "\"a\\",
        "=",
        "[[",
        "]]",
    ]);
    prop::collection::vec(pieces, 0..40).prop_map(|parts| parts.concat())
}

fn bounded<T>(what: &str, input: &str, f: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let result = f();
    assert!(started.elapsed() < Duration::from_secs(5), "{what} took {:?} on {input:?}", started.elapsed());
    result
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn readers_and_functions_never_panic(input in prop_oneof![yamlish(), ".{0,200}"]) {
        let functions = helm_functions();
        let call = |name: &str, arg: Value| {
            let function = functions.get(name).unwrap_or_else(|| panic!("{name} registered"));
            function(&[arg])
        };
        bounded("parse_any", &input, || berth_goyaml::parse_any(&input).ok());
        bounded("parse_stream", &input, || berth_goyaml::parse_stream(&input).ok());
        bounded("load_values", &input, || berth_goyaml::load_values(&input).ok());
        bounded("read_manifest_head", &input, || berth_goyaml::read_manifest_head(&input).ok());
        for document in berth_goyaml::split_manifests(&input) {
            bounded("read_manifest_head", &document, || berth_goyaml::read_manifest_head(&document).ok());
        }
        let parsed = bounded("fromYaml", &input, || call("fromYaml", Value::from(input.as_str())));
        bounded("fromYamlArray", &input, || call("fromYamlArray", Value::from(input.as_str())).ok());
        bounded("fromToml", &input, || call("fromToml", Value::from(input.as_str())).ok());
        if let Ok(value) = parsed {
            for name in ["toYaml", "toYamlPretty", "toToml", "mustToYaml"] {
                bounded(name, &input, || call(name, value.clone()).ok());
            }
        }
    }

    #[test]
    fn writers_never_panic(value in value_with(true)) {
        let functions = helm_functions();
        for name in ["toYaml", "mustToYaml", "toYamlPretty", "toToml"] {
            let function = functions.get(name).unwrap_or_else(|| panic!("{name} registered"));
            // toToml of nil is an error in Helm too (a reflect panic); any other outcome is a string.
            let result = bounded(name, &format!("{value:?}"), || function(std::slice::from_ref(&value)));
            prop_assert!(result.is_ok() || matches!(value, Value::Nil) || name == "mustToYaml", "{name}: {result:?}");
        }
    }
}
