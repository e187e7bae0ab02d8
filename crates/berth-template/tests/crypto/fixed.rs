//! Probes whose output does not depend on randomness: berth must print exactly what Helm printed.

use super::harness::{helm_output, render_probe, values};

fn assert_same_as_helm(chart: &str) {
    let ours = render_probe(chart);
    let helm = helm_output(chart);
    let (our_values, helm_values) = (values(&ours), values(&helm));
    assert!(helm_values.len() >= 7, "{chart}: too few probe values in Helm's output");
    for (key, expected) in &helm_values {
        assert_eq!(our_values.get(key), Some(expected), "{chart}: {key}");
    }
    assert_eq!(ours.trim_end(), helm.trim_end(), "{chart}: whole output");
}

#[test]
fn digests_are_helms() {
    assert_same_as_helm("crypto-digests");
}

#[test]
fn derived_passwords_are_helms() {
    assert_same_as_helm("crypto-derive-password");
}

#[test]
fn messages_round_trips_and_decryptions_are_helms() {
    assert_same_as_helm("crypto-fixed-results");
}
