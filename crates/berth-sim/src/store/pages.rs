//! Paginated lists as kube-apiserver serves them (`limit` and `continue`, kubectl asks for 500 at a time).
//!
//! The continue token is the apiserver's (`k8s.io/apiserver/pkg/storage` `EncodeContinue`/`DecodeContinue`):
//! base64url without padding of `{"v":"meta.k8s.io/v1","rv":N,"start":"KEY\u0000"}`, `N` the resourceVersion the
//! first page was read at and `KEY` the last key served, relative to the list's key prefix (`namespace/name`
//! across namespaces, `name` within one or for a cluster-scoped type). Every later page reads the objects as
//! they were at `N`, as etcd's multi-version store serves them, so a list assembled from pages is one consistent
//! snapshot. The simulated store keeps only the newest objects: a continued page undoes the changes the event
//! log holds since `N` (the log watches replay from). When the log no longer reaches back to `N`, the answer is
//! etcd's after a compaction (`handleCompactedErrorForPaging`): 410 Expired, with a token whose resourceVersion
//! is -1, which goes on from the latest state.

use super::{Json, WatchEvent};
use crate::api_error::ApiError;
use crate::registry::TypeKey;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

/// The only token version kube-apiserver writes and reads.
const TOKEN_VERSION: &str = "meta.k8s.io/v1";

/// A decoded continue token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct ContinueToken {
    #[serde(rename = "v")]
    version: String,
    /// The snapshot's resourceVersion; -1 for "the latest".
    #[serde(rename = "rv")]
    pub resource_version: i64,
    /// The first key of the next page (the last one served followed by `\0`).
    pub start: String,
}

impl ContinueToken {
    /// The token that goes on after `last` (namespace, name) of a list read at `resource_version`, in
    /// `namespace` (`None`: across namespaces).
    pub fn after(resource_version: i64, namespace: Option<&str>, last: (&str, &str)) -> ContinueToken {
        let key = match (namespace, last) {
            (None, (object_namespace, name)) if !object_namespace.is_empty() => format!("{object_namespace}/{name}"),
            (_, (_, name)) => name.to_string(),
        };
        ContinueToken { version: TOKEN_VERSION.to_string(), resource_version, start: format!("{key}\0") }
    }

    /// The same place in the list, read from the latest state (the token of a 410 answer).
    pub fn going_on_from_latest(&self) -> ContinueToken {
        ContinueToken { resource_version: -1, ..self.clone() }
    }

    pub fn encode(&self) -> String {
        // Serializing a struct of strings and an integer cannot fail.
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(self).unwrap_or_default())
    }

    /// Reads a token as `DecodeContinue` does, refusing it as `ValidateListOptions` does.
    ///
    /// # Errors
    /// 400 `invalid continue token: continue key is not valid...` naming what is wrong.
    pub fn decode(token: &str) -> Result<ContinueToken, ApiError> {
        let invalid = |cause: String| ApiError::bad_request(format!("invalid continue token: {cause}"));
        let not_valid = |cause: String| invalid(format!("continue key is not valid: {cause}"));
        let bytes = URL_SAFE_NO_PAD.decode(token).map_err(|error| not_valid(go_base64_error(&error, token)))?;
        let decoded: ContinueToken = serde_json::from_slice(&bytes).map_err(|error| not_valid(error.to_string()))?;
        if decoded.version != TOKEN_VERSION {
            return Err(invalid(format!(
                "continue key is not valid: server does not recognize this encoded version {}",
                decoded.version
            )));
        }
        if decoded.resource_version == 0 {
            return Err(not_valid("incorrect encoded start resourceVersion (version meta.k8s.io/v1)".to_string()));
        }
        if decoded.start.is_empty() {
            return Err(not_valid("encoded start key empty (version meta.k8s.io/v1)".to_string()));
        }
        // `path.Clean` of the key must leave it as it is: no `..`, `.` or doubled slashes that climb out of the
        // list's prefix.
        let climbs = decoded.start.split('/').any(|segment| matches!(segment, "" | "." | ".."));
        if climbs {
            return Err(not_valid(decoded.start));
        }
        Ok(decoded)
    }

    /// The (namespace, name) the next page starts after, in the store's order, for a list in `namespace`.
    /// The key ends in `\0`, which no name holds, so "after it" is "from the next object on".
    pub fn bound(&self, namespace: Option<&str>) -> (String, String) {
        match namespace {
            Some(namespace) => (namespace.to_string(), self.start.clone()),
            None => match self.start.split_once('/') {
                Some((object_namespace, name)) => (object_namespace.to_string(), name.to_string()),
                None => (String::new(), self.start.clone()),
            },
        }
    }
}

/// Go's `CorruptInputError` text for a token that is not base64url (`illegal base64 data at input byte N`).
fn go_base64_error(error: &base64::DecodeError, token: &str) -> String {
    let offset = match error {
        base64::DecodeError::InvalidByte(offset, _) | base64::DecodeError::InvalidLastSymbol(offset, _) => *offset,
        base64::DecodeError::InvalidLength(length) => length.saturating_sub(1),
        base64::DecodeError::InvalidPadding => token.find('=').unwrap_or(token.len()),
    };
    format!("illegal base64 data at input byte {offset}")
}

/// The objects of `key` in `namespace` (all namespaces when `None`) after `after` as they were at
/// `resource_version`, for those that changed since: (namespace, name) to their JSON then (`None`: absent).
/// The earliest logged change after `resource_version` of each object carries its state before.
pub(super) fn changed_since(
    log: &VecDeque<Arc<WatchEvent>>,
    key: &TypeKey,
    namespace: Option<&str>,
    after: Option<&(String, String)>,
    resource_version: u64,
) -> BTreeMap<(String, String), Option<Json>> {
    let first = log.partition_point(|event| event.resource_version <= resource_version);
    let mut before: BTreeMap<(String, String), Option<Json>> = BTreeMap::new();
    for event in log.range(first..) {
        let in_scope = event.key == *key && namespace.is_none_or(|namespace| namespace == event.namespace);
        if !in_scope {
            continue;
        }
        let object = (event.namespace.clone(), event.name.clone());
        if after.is_some_and(|after| object <= *after) {
            continue;
        }
        before.entry(object).or_insert_with(|| event.previous.clone());
    }
    before
}

/// An object of a list by its (namespace, name): as it is (or was), `None` when absent.
pub(super) type Listed = ((String, String), Option<Arc<Value>>);

/// The stored objects in order, with those that changed since the snapshot as they were then: `then` replaces
/// `stored` for the keys it has and brings back the objects deleted since. Both come in (namespace, name) order.
pub(super) fn merge(
    stored: impl Iterator<Item = Listed>,
    then: impl Iterator<Item = Listed>,
) -> impl Iterator<Item = Listed> {
    let mut stored = stored.peekable();
    let mut then = then.peekable();
    std::iter::from_fn(move || match (stored.peek(), then.peek()) {
        (Some((now, _)), Some((before, _))) if now < before => stored.next(),
        (Some((now, _)), Some((before, _))) if now == before => {
            stored.next();
            then.next()
        }
        (Some(_), Some(_)) | (None, Some(_)) => then.next(),
        (Some(_), None) => stored.next(),
        (None, None) => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_read_as_the_apiserver_writes_them() {
        let token = ContinueToken::after(1234, Some("shop"), ("shop", "web-7"));
        let encoded = token.encode();
        let json = URL_SAFE_NO_PAD.decode(&encoded).map(String::from_utf8);
        assert_eq!(
            json.ok().and_then(Result::ok).as_deref(),
            Some(r#"{"v":"meta.k8s.io/v1","rv":1234,"start":"web-7\u0000"}"#)
        );
        assert_eq!(ContinueToken::decode(&encoded), Ok(token.clone()));
        assert_eq!(token.bound(Some("shop")), ("shop".to_string(), "web-7\0".to_string()));
        let across = ContinueToken::after(9, None, ("shop", "web-7"));
        assert_eq!(across.start, "shop/web-7\0");
        assert_eq!(across.bound(None), ("shop".to_string(), "web-7\0".to_string()));
        assert_eq!(ContinueToken::after(9, None, ("", "node-1")).start, "node-1\0", "cluster-scoped");
        assert_eq!(token.going_on_from_latest().resource_version, -1);
    }

    #[test]
    fn bad_tokens_are_refused_with_the_apiservers_words() {
        let message = |token: &str| ContinueToken::decode(token).err().map(|error| (error.code, error.message));
        let encode = |json: &str| URL_SAFE_NO_PAD.encode(json);
        assert_eq!(
            message("zz!"),
            Some((
                400,
                "invalid continue token: continue key is not valid: illegal base64 data at input byte 2".into()
            ))
        );
        let cases = [
            (r#"{"v":"meta.k8s.io/v1","rv":0,"start":"a"}"#, "incorrect encoded start resourceVersion"),
            (r#"{"v":"meta.k8s.io/v1","rv":5,"start":""}"#, "encoded start key empty"),
            (r#"{"v":"meta.k8s.io/v2","rv":5,"start":"a"}"#, "server does not recognize this encoded version"),
            (r#"{"v":"meta.k8s.io/v1","rv":5,"start":"../secrets/x"}"#, "continue key is not valid: ../secrets/x"),
        ];
        for (json, expected) in cases {
            let answer = message(&encode(json)).map(|(_, message)| message).unwrap_or_default();
            assert!(answer.contains(expected), "{json}: {answer}");
        }
    }
}
