//! The Secret values a render's `lookup` returned, and the scrubbing of error texts of them.
//!
//! A chart's `lookup` reads objects as whoever renders it; a template that `fail`s with what it read (or puts it
//! where the API server quotes it back in a refusal) would hand a Secret to everyone who can read the error: the
//! CLI's stderr, and in the controller a Release's status and Events, which a tenant reads although the Secret
//! may be out of its reach. Helm does nothing about it; berth records every Secret value a lookup returns (as the
//! object holds it, base64, and decoded) and replaces each in any error text it shows by [`REDACTED`].
//!
//! Only what a lookup returned whole is known: a value the template transformed (`upper`, `sha256sum`) is not
//! recognised, and values shorter than [`SHORTEST_SCRUBBED`] bytes are left (replacing every `true` or `1` of a
//! message would destroy it and hide little). The set is bounded; past the bound a text is withheld whole.

use aho_corasick::{AhoCorasick, MatchKind};
use base64::Engine;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

/// What replaces a Secret value in a text.
pub const REDACTED: &str = "[redacted]";

/// Values shorter than this are not scrubbed.
pub const SHORTEST_SCRUBBED: usize = 4;

/// At most this many bytes of values are kept; a render whose lookups returned more has its error texts withheld.
const MAX_RECORDED_BYTES: usize = 8 << 20;

/// What a text becomes when the values read were too many to scrub.
const WITHHELD: &str = "[error text withheld: the render's lookups read more Secret data than berth scrubs]";

/// The Secret values read by one render's (or one reconcile's) lookups. Cloning shares the set: the render
/// records into it from its thread, the caller scrubs with it.
#[derive(Debug, Clone, Default)]
pub struct LookedUpSecrets(Arc<Mutex<Recorded>>);

#[derive(Debug, Default)]
struct Recorded {
    values: BTreeSet<String>,
    bytes: usize,
    overflowed: bool,
}

impl LookedUpSecrets {
    /// Records the values of `object` if it is a Secret, or of every Secret in it if it is a list (what `lookup`
    /// returns for an empty name).
    pub fn record(&self, object: &serde_json::Value) {
        match object.get("items").and_then(serde_json::Value::as_array) {
            Some(items) => items.iter().for_each(|item| self.record_secret(item)),
            None => self.record_secret(object),
        }
    }

    fn record_secret(&self, object: &serde_json::Value) {
        if object.get("kind").and_then(serde_json::Value::as_str) != Some("Secret") {
            return;
        }
        let field = |name: &str| {
            object.get(name).and_then(serde_json::Value::as_object).into_iter().flat_map(|map| map.values())
        };
        let mut recorded = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // `data` holds base64: both forms are recorded (`b64dec` shows the second); `stringData` (never served by
        // the API server, but a list from a test double may hold it) is text.
        for text in field("data").filter_map(serde_json::Value::as_str) {
            if let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(text) {
                recorded.insert(String::from_utf8_lossy(&bytes).into_owned());
            }
            recorded.insert(text.to_string());
        }
        for text in field("stringData").filter_map(serde_json::Value::as_str) {
            recorded.insert(text.to_string());
        }
    }

    /// Whether no value was recorded (nothing to scrub).
    pub fn is_empty(&self) -> bool {
        let recorded = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        recorded.values.is_empty() && !recorded.overflowed
    }

    /// `text` with every recorded value replaced by [`REDACTED`] (the longest first, where they overlap).
    pub fn scrub(&self, text: &str) -> String {
        let recorded = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if recorded.overflowed {
            return WITHHELD.to_string();
        }
        if recorded.values.is_empty() {
            return text.to_string();
        }
        match AhoCorasick::builder().match_kind(MatchKind::LeftmostLongest).build(&recorded.values) {
            Ok(matcher) => matcher.replace_all(text, &vec![REDACTED; recorded.values.len()]),
            // Only a set too large for the matcher's own limits: nothing shown is safer than a value shown.
            Err(_) => WITHHELD.to_string(),
        }
    }
}

impl Recorded {
    fn insert(&mut self, value: String) {
        if value.len() < SHORTEST_SCRUBBED || self.values.contains(&value) {
            return;
        }
        self.bytes = self.bytes.saturating_add(value.len());
        if self.bytes > MAX_RECORDED_BYTES {
            self.overflowed = true;
            return;
        }
        self.values.insert(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secret_values_are_scrubbed_raw_and_base64_and_other_kinds_are_not_recorded() {
        let looked_up = LookedUpSecrets::default();
        assert!(looked_up.is_empty());
        looked_up.record(&json!({"kind": "ConfigMap", "data": {"a": "plain-config"}}));
        // "hunter22" and "cGFzc3dvcmQtb25l" ("password-one"); "abc" is too short to scrub.
        looked_up.record(&json!({"kind": "SecretList", "items": [
            {"kind": "Secret", "data": {"one": "cGFzc3dvcmQtb25l", "short": "YWJj"}},
            {"kind": "Secret", "stringData": {"two": "hunter22"}},
        ]}));
        let text = "fail: password-one / cGFzc3dvcmQtb25l / hunter22 / plain-config / abc";
        assert_eq!(looked_up.scrub(text), "fail: [redacted] / [redacted] / [redacted] / plain-config / abc");
    }

    #[test]
    fn the_longest_value_wins_and_too_many_values_withhold_the_text() {
        let looked_up = LookedUpSecrets::default();
        looked_up.record(&json!({"kind": "Secret", "stringData": {"a": "secret", "b": "secret-and-more"}}));
        assert_eq!(looked_up.scrub("x secret-and-more y secret"), "x [redacted] y [redacted]");

        let huge = LookedUpSecrets::default();
        let value = "v".repeat(MAX_RECORDED_BYTES + 1);
        huge.record(&json!({"kind": "Secret", "stringData": {"a": value}}));
        assert_eq!(huge.scrub("anything"), WITHHELD);
    }
}
