//! Sprig and Helm JSON functions against real Helm: every `tests/probes/sprig-*` chart rendered by berth must
//! print what `helm template` printed (goldens from `tests/probes/regen.sh`).

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

mod probe_support;

/// Probes known to differ from Helm, each with the reason (see the crate README's list of differences).
const PENDING: &[(&str, &str)] = &[(
    "sprig-defaults/reflect-typed.yaml",
    "berth values carry no Go element type: []string, []int, map[string]string and typed nil slices \
         read as []interface {}, map[string]interface {} and nil",
)];

#[test]
fn sprig_probes_match_helm() {
    probe_support::assert_areas("sprig-", probe_support::json_values, PENDING);
}
