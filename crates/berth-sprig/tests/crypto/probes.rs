//! Every `crypto-*` probe whose output does not depend on randomness: berth prints what Helm printed, and
//! fails where Helm failed with Helm's message.

use super::probe_support;

/// The probe area of keys and certificates, whose bytes differ on every run (see `shapes.rs`).
pub const RANDOM_AREA: &str = "crypto-certificates";

#[test]
fn crypto_probes_match_helm() {
    let areas: Vec<String> = probe_support::areas("crypto-").into_iter().filter(|area| area != RANDOM_AREA).collect();
    assert_eq!(areas.len(), 4, "crypto probe areas: {areas:?}");
    let mut count = 0;
    let mut failures = Vec::new();
    for area in &areas {
        count += probe_support::probes(area).len();
        failures.extend(probe_support::check_area(area, probe_support::json_values));
    }
    assert!(count >= 40, "only {count} crypto probes");
    assert!(
        failures.is_empty(),
        "{} of {count} crypto probes differ from Helm:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
