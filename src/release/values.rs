//! A recorded release's computed values, as `helm get values --all` computes them: Helm's `CoalesceValues`
//! (`pkg/chart/common/util/coalesce.go`) of the recorded chart's default values under the user's values
//! (`config`). A record keeps no subcharts (Helm's `Chart` does not serialise its dependencies), so only the
//! chart's own coalescing applies: the user's values win, maps merge, and a user's `null` removes a default.
//! Pure.

use serde_json::{Map, Value};

/// How deep maps are merged; deeper maps are taken from the user's values as they are. JSON records cannot
/// nest deeper than serde_json's own limit (128), so this never cuts a real record short.
const MAX_DEPTH: usize = 256;

/// The chart's default values coalesced under the user's values (Helm's `CoalesceValues` on a recorded
/// release).
pub fn computed_values(chart_values: &Map<String, Value>, config: &Map<String, Value>) -> Map<String, Value> {
    let mut values = config.clone();
    coalesce_values(&mut values, chart_values);
    values
}

/// Helm's `coalesceValues` for a chart without dependencies: every default the user did not set is copied; a
/// user's `null` deletes the key; a user's map merges the default map under it.
fn coalesce_values(values: &mut Map<String, Value>, defaults: &Map<String, Value>) {
    for (key, default) in defaults {
        match values.get_mut(key) {
            None => {
                values.insert(key.clone(), default.clone());
            }
            Some(Value::Null) => {
                values.remove(key);
            }
            Some(Value::Object(user)) => {
                // A default that is not a map is skipped (Helm warns); no subchart makes this a merge.
                if let Value::Object(default) = default {
                    coalesce_tables(user, default.clone(), 1);
                }
            }
            Some(_) => {}
        }
    }
}

/// Helm's `coalesceTablesFullKey` with `merge` false: `destination` (the user's) wins; a key the user set to
/// `null` over a non-null default is removed, one the default lacks (or holds as null) stays null.
fn coalesce_tables(destination: &mut Map<String, Value>, mut source: Map<String, Value>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let non_null_defaults: Vec<String> =
        source.iter().filter(|(_, value)| !value.is_null()).map(|(key, _)| key.clone()).collect();
    for (key, value) in destination.iter() {
        if value.is_null() {
            source.insert(key.clone(), Value::Null);
        }
    }
    for (key, default) in source {
        match destination.get_mut(&key) {
            Some(Value::Null) if non_null_defaults.contains(&key) => {
                destination.remove(&key);
            }
            None => {
                destination.insert(key, default);
            }
            Some(Value::Object(user)) => {
                if let Value::Object(default) = default {
                    coalesce_tables(user, default, depth + 1);
                }
            }
            Some(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn user_values_win_maps_merge_and_nulls_remove_defaults() {
        let defaults = map(json!({
            "replicaCount": 1,
            "image": {"repository": "nginx", "tag": "", "pullPolicy": "IfNotPresent"},
            "service": {"type": "ClusterIP", "port": 80},
            "ingress": {"enabled": false},
            "list": [1, 2],
            "scalar": "default"
        }));
        let config = map(json!({
            "replicaCount": 3,
            "image": {"tag": "1.27", "pullPolicy": null, "extra": null},
            "service": null,
            "list": [3],
            "scalar": {"now": "a map"},
            "mine": {"a": 1}
        }));
        assert_eq!(
            Value::Object(computed_values(&defaults, &config)),
            json!({
                "replicaCount": 3,
                "image": {"repository": "nginx", "tag": "1.27", "extra": null},
                "ingress": {"enabled": false},
                "list": [3],
                "scalar": {"now": "a map"},
                "mine": {"a": 1}
            })
        );
    }

    #[test]
    fn nothing_supplied_gives_the_defaults() {
        let defaults = map(json!({"a": {"b": 1}}));
        assert_eq!(computed_values(&defaults, &Map::new()), defaults);
        assert_eq!(computed_values(&Map::new(), &Map::new()), Map::new());
    }
}
