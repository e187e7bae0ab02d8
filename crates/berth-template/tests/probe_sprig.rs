//! Sprig and Helm JSON functions against real Helm: every `tests/probes/sprig-*` chart rendered by berth must
//! print what `helm template` printed (goldens from `tests/probes/regen.sh`).

mod probe_support;

/// Probes that differ from Helm for a reason outside the function under test.
const PENDING: &[(&str, &str)] = &[
    (
        "sprig-json/fromjson.yaml",
        "the engine prints float64 with Rust's Display instead of Go's %v, and a nil map/slice as <nil>",
    ),
    (
        "sprig-strings/quote.yaml",
        "the engine prints float64 1e+06 as 1000000; go.rs %q leaves U+00A0 and U+200B unescaped",
    ),
    ("sprig-regex/named-digit.yaml", "the regex crate refuses group names that start with a digit, which Go accepts"),
    (
        "sprig-defaults/reflect-typed.yaml",
        "berth values carry no Go element type: []string, []int, map[string]string and typed nil slices read as []interface {}, map[string]interface {} and nil",
    ),
];

#[test]
fn sprig_probes_match_helm() {
    probe_support::assert_areas("sprig-", probe_support::json_values, PENDING);
}
