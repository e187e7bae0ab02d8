//! Field access over the JSON objects the store holds, kept in the simulated cluster itself: the server and the
//! client (berth) share no helper, so a bug in one cannot hide on both sides of the wire.

use serde_json::Value;

/// Follows `path` through nested maps.
pub fn value_at<'a>(object: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(object, |value, key| value.as_object()?.get(*key))
}

/// The string at `path`, if there is one and it is a string.
pub fn str_at<'a>(object: &'a Value, path: &[&str]) -> Option<&'a str> {
    value_at(object, path)?.as_str()
}
