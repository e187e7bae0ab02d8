//! Field access over the JSON objects the store holds, kept in the simulated cluster itself: the server and the
//! client (berth) share no helper, so a bug in one cannot hide on both sides of the wire.

use serde_json::{Map, Value};

/// Follows `path` through nested maps.
pub fn value_at<'a>(object: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(object, |value, key| value.as_object()?.get(*key))
}

/// The string at `path`, if there is one and it is a string.
pub fn str_at<'a>(object: &'a Value, path: &[&str]) -> Option<&'a str> {
    value_at(object, path)?.as_str()
}

/// Sets the field at `path`, making every step on the way an object (replacing what is not one).
pub fn set_at(object: &mut Value, path: &[&str], value: Value) {
    let Some((last, steps)) = path.split_last() else {
        *object = value;
        return;
    };
    let mut current = object;
    for step in steps {
        if !current.is_object() {
            *current = Value::Object(Map::new());
        }
        let Some(map) = current.as_object_mut() else { return };
        current = map.entry((*step).to_string()).or_insert(Value::Null);
    }
    if !current.is_object() {
        *current = Value::Object(Map::new());
    }
    if let Some(map) = current.as_object_mut() {
        map.insert((*last).to_string(), value);
    }
}
