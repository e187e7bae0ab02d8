//! Sprig and Helm JSON functions against real Helm: every `tests/probes/sprig-*` chart rendered by berth must
//! print what `helm template` printed (goldens from `tests/probes/regen.sh`).

mod probe_support;

/// Probes that differ from Helm for a reason outside the function under test.
const PENDING: &[(&str, &str)] = &[(
    "sprig-json/fromjson.yaml",
    "the engine prints float64 with Rust's Display instead of Go's %v, and a nil map/slice as <nil>",
)];

#[test]
fn sprig_probes_match_helm() {
    probe_support::assert_areas("sprig-", probe_support::json_values, PENDING);
}
