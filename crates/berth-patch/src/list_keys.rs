//! How a list merges, chosen by the name of the field that holds it.
//!
//! A real server reads this from the Go struct tags (`patchMergeKey`, strategic merge patch) and from the OpenAPI
//! `x-kubernetes-list-map-keys` (server-side apply). The simulator has no schema, so one table by field name stands
//! in for both; every list not named here is atomic (replaced whole), as `tolerations` and `args` are.

use serde_json::Value;

/// One field of a server-side apply list key, with the default a real server would fill in when it is absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyField {
    pub name: &'static str,
    pub default: Option<&'static str>,
}

const fn key(name: &'static str) -> KeyField {
    KeyField { name, default: None }
}

const PROTOCOL: KeyField = KeyField { name: "protocol", default: Some("TCP") };

/// A list of maps merged by key. Rows for the same field are tried in order: the first whose merge key appears
/// in an element wins, the last is the fallback (container ports have `containerPort`, Service ports `port`).
struct KeyedList {
    field: &'static str,
    /// The strategic merge patch key (`patchMergeKey`).
    merge_key: &'static str,
    /// The server-side apply key (`x-kubernetes-list-map-keys`), which for ports includes the protocol.
    apply_keys: &'static [KeyField],
}

const KEYED_LISTS: &[KeyedList] = &[
    KeyedList { field: "containers", merge_key: "name", apply_keys: &[key("name")] },
    KeyedList { field: "initContainers", merge_key: "name", apply_keys: &[key("name")] },
    KeyedList { field: "ephemeralContainers", merge_key: "name", apply_keys: &[key("name")] },
    KeyedList { field: "volumes", merge_key: "name", apply_keys: &[key("name")] },
    KeyedList { field: "env", merge_key: "name", apply_keys: &[key("name")] },
    KeyedList { field: "imagePullSecrets", merge_key: "name", apply_keys: &[key("name")] },
    KeyedList { field: "resourceClaims", merge_key: "name", apply_keys: &[key("name")] },
    KeyedList { field: "volumeMounts", merge_key: "mountPath", apply_keys: &[key("mountPath")] },
    KeyedList { field: "volumeDevices", merge_key: "devicePath", apply_keys: &[key("devicePath")] },
    KeyedList { field: "ports", merge_key: "containerPort", apply_keys: &[key("containerPort"), PROTOCOL] },
    KeyedList { field: "ports", merge_key: "port", apply_keys: &[key("port"), PROTOCOL] },
    KeyedList { field: "conditions", merge_key: "type", apply_keys: &[key("type")] },
    KeyedList { field: "hostAliases", merge_key: "ip", apply_keys: &[key("ip")] },
    KeyedList {
        field: "topologySpreadConstraints",
        merge_key: "topologyKey",
        apply_keys: &[key("topologyKey"), key("whenUnsatisfiable")],
    },
    KeyedList { field: "ownerReferences", merge_key: "uid", apply_keys: &[key("uid")] },
];

/// Lists of scalars that merge as sets (`patchStrategy: merge` / `x-kubernetes-list-type: set`).
const SET_LISTS: &[&str] = &["finalizers"];

fn keyed_list<'a>(field: &str, elements: impl Iterator<Item = &'a Value> + Clone) -> Option<&'static KeyedList> {
    let mut rows = KEYED_LISTS.iter().filter(|row| row.field == field).peekable();
    let mut fallback = None;
    while let Some(row) = rows.next() {
        if rows.peek().is_none() {
            fallback = Some(row);
            break;
        }
        if elements.clone().any(|element| element.get(row.merge_key).is_some()) {
            return Some(row);
        }
    }
    fallback
}

/// The strategic merge patch key of a list of maps in `field`, given the elements on both sides.
pub fn merge_key<'a>(field: &str, elements: impl Iterator<Item = &'a Value> + Clone) -> Option<&'static str> {
    keyed_list(field, elements).map(|row| row.merge_key)
}

/// The server-side apply key fields of a list of maps in `field`, given the elements on all sides.
pub fn apply_keys<'a>(field: &str, elements: impl Iterator<Item = &'a Value> + Clone) -> Option<&'static [KeyField]> {
    keyed_list(field, elements).map(|row| row.apply_keys)
}

/// Whether a list of scalars in `field` merges as a set rather than being replaced.
pub fn is_set(field: &str) -> bool {
    SET_LISTS.contains(&field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ports_key_on_container_port_when_elements_have_it_else_on_port() {
        let container = [json!({"containerPort": 80})];
        let service = [json!({"port": 80, "targetPort": 8080})];
        assert_eq!(merge_key("ports", container.iter()), Some("containerPort"));
        assert_eq!(merge_key("ports", service.iter()), Some("port"));
        assert_eq!(merge_key("ports", [].iter()), Some("port"));
        assert_eq!(apply_keys("ports", container.iter()).map(<[KeyField]>::len), Some(2));
    }

    #[test]
    fn unknown_fields_are_atomic() {
        assert_eq!(merge_key("tolerations", [].iter()), None);
        assert_eq!(merge_key("containers", [].iter()), Some("name"));
        assert!(is_set("finalizers"));
        assert!(!is_set("args"));
    }
}
