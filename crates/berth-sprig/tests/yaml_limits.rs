//! Limits of the YAML reader and writers: deep nesting is read up to yaml.v2's own limit of 10000 levels without
//! overflowing the stack (in threads with small stacks), deeper input is refused with yaml.v2's message, and alias
//! bombs are refused as yaml.v2 refuses them, in bounded time.

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

use std::time::{Duration, Instant};

use berth_go::Value;
use berth_sprig::helm_functions;

/// Runs `f` on a thread with a 1 MiB stack, so recursion that a deep input could drive would overflow it.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(1 << 20).spawn(f).expect("spawn").join().expect("no stack overflow")
}

fn nested_flow(depth: usize) -> String {
    format!("a: {}{}", "[".repeat(depth), "]".repeat(depth))
}

fn depth_of(value: &Value) -> usize {
    let mut depth = 0;
    let mut current = value.clone();
    loop {
        let next = match &current {
            Value::List(items) => items.first().cloned(),
            Value::Map(map) => map.get("a"),
            _ => None,
        };
        match next {
            Some(next) => {
                depth += 1;
                current = next;
            }
            None => return depth,
        }
    }
}

#[test]
fn deep_flow_nesting_reads_and_writes_without_overflow() {
    let (depth_back, yaml_len, depth, pretty_len) = on_small_stack(|| {
        let value = berth_goyaml::parse_document(nested_flow(9_999)).expect("yaml.v2 reads 9999 levels");
        let yaml = berth_goyaml::to_yaml(&value).expect("toYaml");
        let pretty = berth_goyaml::to_yaml_pretty(&value).expect("toYamlPretty");
        let back = berth_goyaml::parse_document(&yaml).expect("reads its own output");
        (depth_of(&back), yaml.len(), depth_of(&value), pretty.len())
    });
    // The key, then 9999 lists whose innermost is empty.
    assert_eq!(depth, 9_999);
    assert_eq!(depth_back, 9_999);
    assert!(yaml_len > 10_000 && pretty_len > 10_000);
}

#[test]
fn deep_block_nesting_reads_without_overflow() {
    let depth = on_small_stack(|| {
        let text: String = (0..5_000).map(|level| format!("{}a:\n", " ".repeat(level))).collect();
        depth_of(&berth_goyaml::parse_document(text).expect("5000 block levels"))
    });
    assert_eq!(depth, 5_000);
}

#[test]
fn nesting_beyond_yaml_v2_limit_is_refused_with_its_message() {
    let error = on_small_stack(|| berth_goyaml::parse_document(nested_flow(10_001)).expect_err("too deep"));
    assert_eq!(error.to_string(), "error converting YAML to JSON: yaml: exceeded max depth of 10000");
}

#[test]
fn deep_keys_values_and_functions_do_not_overflow() {
    on_small_stack(|| {
        // An invalid map key holding a deep list: its %#v rendering in the error.
        let key = format!("? {}{}\n: x\n", "[".repeat(9_000), "]".repeat(9_000));
        let error = berth_goyaml::parse_document(key).expect_err("invalid key");
        assert!(error.to_string().starts_with("error converting YAML to JSON: yaml: invalid map key: []interface {}{"));
        // A deep value through fromYaml, toToml and the typed reader.
        let functions = helm_functions();
        let from_yaml = functions.get("fromYaml").expect("fromYaml");
        let value = from_yaml(&[Value::from(nested_flow(9_999))]).expect("fromYaml");
        let to_toml = functions.get("toToml").expect("toToml");
        let toml = to_toml(&[value]).expect("toToml returns its error as text");
        assert_eq!(toml.as_str(), Some("toml: value nests more than 1000 levels deep"));
        let document = format!("kind: x\nspec: {}{}", "[".repeat(9_000), "]".repeat(9_000));
        let head = berth_goyaml::read_manifest_head(&document);
        assert_eq!(head.expect("head").kind, "x");
    });
}

#[test]
fn alias_bomb_is_refused_quickly() {
    let mut text = String::from("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for pair in names.windows(2) {
        let refs = vec![format!("*{}", pair[0]); 9].join(",");
        text.push_str(&format!("{}: &{} [{refs}]\n", pair[1], pair[1]));
    }
    let started = Instant::now();
    let error = berth_goyaml::parse_document(&text).expect_err("billion laughs");
    assert_eq!(error.to_string(), "error converting YAML to JSON: yaml: document contains excessive aliasing");
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
}

#[test]
fn a_large_scalar_aliased_many_times_is_refused_past_the_expansion_bound() {
    // Issue 29: a 4.9 MB scalar aliased 990 times passes yaml.v2's alias ratio (fewer than 1000 nodes) and decodes
    // to 4.85 GB. One 1 MiB scalar aliased 70 times passes the ratio too, and expands past 64 MiB.
    let scalar = "x".repeat(1 << 20);
    let aliases = vec!["*big"; 70].join(", ");
    let text = format!("big: &big \"{scalar}\"\ncopies: [{aliases}]\n");
    let started = Instant::now();
    let error = berth_goyaml::parse_document(&text).expect_err("past the expansion bound");
    assert_eq!(
        error.to_string(),
        "error converting YAML to JSON: yaml: document's aliases expand to more than 64 MiB (berth's limit on alias \
         expansion)"
    );
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    assert_eq!(berth_goyaml::MAX_ALIAS_EXPANSION_BYTES, 64 << 20);
    // Within the bound, aliases expand as in Go.
    let aliases = vec!["*big"; 60].join(", ");
    let text = format!("big: &big \"{scalar}\"\ncopies: [{aliases}]\n");
    let value = berth_goyaml::parse_document(&text).expect("within the bound");
    let copies = value.as_map().and_then(|map| map.get("copies")).expect("copies");
    assert_eq!(copies.as_list().map(|list| list.len()), Some(60));
}
