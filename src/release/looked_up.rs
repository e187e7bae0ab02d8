//! The Secret values a render's `lookup` returned, and the scrubbing of the texts berth shows of them.
//!
//! A chart's `lookup` reads objects as whoever renders it; a template that `fail`s with what it read (or puts it
//! where the API server or an operator quotes it back in a refusal) would hand a Secret to everyone who can read
//! the error: the CLI's stderr, the failed revision's description in the release record, and in the controller a
//! Release's status and Events, which a tenant reads although the Secret may be out of its reach. Helm does
//! nothing about it; berth records every Secret value a lookup returns and replaces it by [`REDACTED`] in every
//! text the owner of such a text shows: the controller's status writer and its Events sink
//! (`controller::events::ReleaseEvents`), the record writer of a failed revision (`operation/pending.rs`), the
//! renderer's error and warnings (`render.rs`), and the CLI's stderr (`cli::scrubbing`).
//!
//! # The forms scrubbed
//!
//! For each value (the bytes a Secret's `data` key holds, or a `stringData` text), the forms a template makes of
//! it with one cheap step, each matched without regard to ASCII case (so `upper`, `lower` and `title` of any of
//! them are found too):
//! - the text as served (`data`'s base64) and its canonical standard base64, padded and unpadded;
//! - the raw value as a template shows it (`b64dec`: invalid UTF-8 as Go prints it, one U+FFFD per bad byte)
//!   and the base64 of that text's bytes (`b64enc` after a conversion that replaced bad bytes);
//! - URL-safe base64 (with and without padding), where it differs;
//! - the value as quoted inside Go's `%q`/`quote` and JSON strings (the API server's refusals quote values
//!   so), where escaping changes it.
//!
//! Left, by decision: one-way or lossy transforms (`sha256sum`, `trunc`, `substr`, a value split or reversed)
//! and the rarer encodings (`b32enc`, `%x`, `urlquery`). A chart that means to hand a value out can always
//! transform it past any scrubber; the guard against that is the identity it renders as (a tenant's `lookup`
//! reads only what that tenant may read). Scrubbing keeps the common shapes of an accidental or careless leak
//! out of texts that travel further than the chart's own objects.
//!
//! # Short values
//!
//! Values shorter than [`SHORTEST_SCRUBBED`] bytes are not replaced where they stand bare: a Secret holding
//! `1`, `yes` or `on` would otherwise cut every such run of characters out of every message (line numbers,
//! words), destroying the text while hiding little, since 1 to 3 bytes are guessed in at most 2^24 tries. They
//! are replaced where they stand whole between quotes (`"on"`, `'on'`), which is how a refusal or `quote`
//! shows a value. Their base64 forms are 4 bytes or more and are scrubbed as any other.
//!
//! The set is bounded; past the bound a text is withheld whole.

use aho_corasick::{AhoCorasick, MatchKind};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

/// What replaces a Secret value in a text.
pub const REDACTED: &str = "[redacted]";

/// Values shorter than this are scrubbed only where they stand whole between quotes.
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
    /// Every form of every value, as matched.
    forms: BTreeSet<String>,
    bytes: usize,
    overflowed: bool,
    /// The matcher of `forms`, built at the first scrub after a change.
    matcher: Option<Arc<AhoCorasick>>,
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
        // `data` holds base64 (its bytes are the value); `stringData` (never served by the API server, but a list
        // from a test double may hold it) is the value's text.
        for text in field("data").filter_map(serde_json::Value::as_str) {
            recorded.insert_form(text);
            if let Ok(bytes) = STANDARD.decode(text) {
                recorded.insert_value(&bytes);
            }
        }
        for text in field("stringData").filter_map(serde_json::Value::as_str) {
            recorded.insert_value(text.as_bytes());
        }
    }

    /// Whether no value was recorded (nothing to scrub).
    pub fn is_empty(&self) -> bool {
        let recorded = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        recorded.forms.is_empty() && !recorded.overflowed
    }

    /// `text` with every recorded form replaced by [`REDACTED`] (the longest first, where they overlap).
    pub fn scrub(&self, text: &str) -> String {
        self.scrub_borrowed(text).into_owned()
    }

    /// [`LookedUpSecrets::scrub`], borrowing `text` when nothing in it is replaced (the common case).
    pub fn scrub_borrowed<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let matcher = {
            let mut recorded = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if recorded.overflowed {
                return Cow::Borrowed(WITHHELD);
            }
            if recorded.forms.is_empty() {
                return Cow::Borrowed(text);
            }
            match recorded.matcher() {
                Some(matcher) => matcher,
                // Only a set too large for the matcher's own limits: nothing shown is safer than a value shown.
                None => return Cow::Borrowed(WITHHELD),
            }
        };
        if !matcher.is_match(text) {
            return Cow::Borrowed(text);
        }
        let mut scrubbed = String::with_capacity(text.len());
        matcher.replace_all_with(text, &mut scrubbed, |_, _, out| {
            out.push_str(REDACTED);
            true
        });
        Cow::Owned(scrubbed)
    }
}

impl Recorded {
    /// Records every form of the value `bytes` (the module's head lists them).
    fn insert_value(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let text = berth_go::strings::from_go_bytes(bytes);
        let mut forms = vec![
            STANDARD.encode(bytes),
            STANDARD_NO_PAD.encode(bytes),
            URL_SAFE.encode(bytes),
            URL_SAFE_NO_PAD.encode(bytes),
            STANDARD.encode(text.as_bytes()),
            STANDARD_NO_PAD.encode(text.as_bytes()),
        ];
        // Inside Go's and JSON's quotes: the quotes dropped, so that a value quoted inside a longer string counts.
        let go_quoted = berth_go::strconv::quote(&text);
        let json_quoted = berth_go::json::quote(&text);
        if text.len() < SHORTEST_SCRUBBED {
            // Whole between quotes only (the module's head says why).
            forms.extend([go_quoted, json_quoted, format!("'{text}'")]);
        } else {
            for quoted in [go_quoted, json_quoted] {
                let inner = quoted.get(1..quoted.len().saturating_sub(1)).unwrap_or_default();
                if inner != text {
                    forms.push(inner.to_string());
                }
            }
            forms.push(text);
        }
        for form in forms {
            self.insert_form(&form);
        }
    }

    fn insert_form(&mut self, form: &str) {
        // A form of a short value is kept only quoted (at least 3 bytes then) or as base64 (at least 4).
        if form.len() < 3 || self.forms.contains(form) {
            return;
        }
        self.bytes = self.bytes.saturating_add(form.len());
        if self.bytes > MAX_RECORDED_BYTES {
            self.overflowed = true;
            return;
        }
        self.forms.insert(form.to_string());
        self.matcher = None;
    }

    fn matcher(&mut self) -> Option<Arc<AhoCorasick>> {
        if self.matcher.is_none() {
            let built = AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .ascii_case_insensitive(true)
                .build(&self.forms)
                .ok()?;
            self.matcher = Some(Arc::new(built));
        }
        self.matcher.clone()
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
    fn the_forms_a_template_makes_in_one_step_are_scrubbed() {
        let looked_up = LookedUpSecrets::default();
        // A value with characters Go's and JSON's quoting escape, and one whose base64 has `+` and `/`.
        let value = "pa\"ss\\wörd<1>";
        let binary: &[u8] = &[0xfb, 0xff, 0xbf, b'k', b'e', b'y', 0x80];
        let data = serde_json::Map::from_iter([
            ("text".to_string(), json!(STANDARD.encode(value))),
            ("binary".to_string(), json!(STANDARD.encode(binary))),
        ]);
        looked_up.record(&json!({"kind": "Secret", "data": data}));
        let shown = berth_go::strings::from_go_bytes(binary);
        let forms = [
            value.to_string(),
            value.to_uppercase().replace('Ö', "ö"),
            STANDARD.encode(value),
            STANDARD_NO_PAD.encode(value),
            URL_SAFE_NO_PAD.encode(binary),
            berth_go::strconv::quote(value),
            berth_go::json::quote(value),
            shown.clone(),
            STANDARD.encode(shown.as_bytes()),
        ];
        for form in forms {
            let scrubbed = looked_up.scrub(&format!("failed: <{form}> here"));
            assert!(scrubbed.contains("[redacted]"), "{form:?}: {scrubbed}");
            assert!(!scrubbed.contains(&form), "{form:?}: {scrubbed}");
        }
        assert_eq!(looked_up.scrub("nothing to hide"), "nothing to hide");
    }

    #[test]
    fn a_short_value_is_scrubbed_only_whole_between_quotes() {
        let looked_up = LookedUpSecrets::default();
        looked_up.record(&json!({"kind": "Secret", "data": {"flag": STANDARD.encode("on")}}));
        assert_eq!(
            looked_up.scrub("line 1: cannot turn on: spec.mode: Invalid value: \"on\", or 'on'"),
            "line 1: cannot turn on: spec.mode: Invalid value: [redacted], or [redacted]"
        );
        // Its base64 is 4 bytes: scrubbed wherever it stands.
        assert_eq!(looked_up.scrub("stored b24="), "stored [redacted]");
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
