//! Moving the fields a client-side write left to a manager over to that manager's server-side apply, as Helm 4
//! does before it applies server-side an object a client-side revision wrote (`upgradeClientSideFieldManager`,
//! over client-go `csaupgrade.UpgradeManagedFieldsPatch` with the manager as both the client-side and the
//! server-side name). Without it, the fields `helm` owns through an `Update` entry would be another owner to
//! `helm`'s `Apply` entry, and the first server-side upgrade of a release made client-side would conflict with
//! itself. Pure: the live object in, the JSON patch out.

use serde_json::{Map, Value, json};

/// The JSON patch that rewrites `live`'s managedFields so `manager`'s `Apply` entry owns what its `Update`
/// entries of the main resource owned, with a `resourceVersion` precondition (written as `replace`, so a
/// concurrent write makes the server answer 409 rather than refuse the patch). `None` when there is nothing to
/// move.
pub fn upgrade_patch(live: &Value, manager: &str) -> Option<Value> {
    let entries = live.pointer("/metadata/managedFields").and_then(Value::as_array)?;
    let upgraded = upgraded(entries, manager);
    if upgraded == *entries {
        return None;
    }
    // A server takes an empty list as "no change"; csaupgrade writes one empty entry to clear them.
    let entries = if upgraded.is_empty() { vec![Value::Object(Map::new())] } else { upgraded };
    let resource_version = live.pointer("/metadata/resourceVersion").cloned().unwrap_or(Value::Null);
    Some(json!([
        {"op": "replace", "path": "/metadata/managedFields", "value": entries},
        {"op": "replace", "path": "/metadata/resourceVersion", "value": resource_version},
    ]))
}

fn field<'a>(entry: &'a Value, name: &str) -> &'a str {
    entry.get(name).and_then(Value::as_str).unwrap_or_default()
}

fn is_main(entry: &Value, manager: &str, operation: &str) -> bool {
    field(entry, "manager") == manager
        && field(entry, "operation") == operation
        && field(entry, "subresource").is_empty()
}

/// csaupgrade's `upgradedManagedFields`: the manager's `Apply` entry, or else its first `Update` entry turned
/// into one, takes the fields of its `Update` entry of the same API version; then every `Update` entry of the
/// manager on the main resource goes.
fn upgraded(entries: &[Value], manager: &str) -> Vec<Value> {
    let mut entries = entries.to_vec();
    let target = match entries.iter().position(|entry| is_main(entry, manager, "Apply")) {
        Some(index) => index,
        None => {
            let Some(index) = entries.iter().position(|entry| is_main(entry, manager, "Update")) else {
                return entries;
            };
            if let Some(entry) = entries.get_mut(index).and_then(Value::as_object_mut) {
                entry.insert("operation".to_string(), Value::String("Apply".to_string()));
            }
            index
        }
    };
    let api_version = entries.get(target).map(|entry| field(entry, "apiVersion").to_string()).unwrap_or_default();
    let update_fields = entries
        .iter()
        .find(|entry| is_main(entry, manager, "Update") && field(entry, "apiVersion") == api_version)
        .and_then(|entry| entry.get("fieldsV1"))
        .cloned();
    if let (Some(update_fields), Some(entry)) = (update_fields, entries.get_mut(target).and_then(Value::as_object_mut))
    {
        let fields = entry.entry("fieldsV1").or_insert_with(|| Value::Object(Map::new()));
        union(fields, &update_fields);
        entry.insert("fieldsType".to_string(), Value::String("FieldsV1".to_string()));
    }
    entries.retain(|entry| !is_main(entry, manager, "Update"));
    entries
}

/// The union of two `fieldsV1` sets: each is a tree of field names whose leaves are `{}`.
fn union(into: &mut Value, other: &Value) {
    let (Value::Object(into), Value::Object(other)) = (into, other) else { return };
    for (key, value) in other {
        match into.get_mut(key) {
            Some(existing) => union(existing, value),
            None => {
                into.insert(key.clone(), value.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(manager: &str, operation: &str, api_version: &str, fields: Value) -> Value {
        json!({"manager": manager, "operation": operation, "apiVersion": api_version, "time": "t",
            "fieldsType": "FieldsV1", "fieldsV1": fields})
    }

    fn object(entries: Vec<Value>) -> Value {
        json!({"metadata": {"name": "web", "resourceVersion": "42", "managedFields": entries}})
    }

    #[test]
    fn the_update_entry_becomes_the_apply_entry_and_others_stay() {
        let live = object(vec![
            entry("helm", "Update", "apps/v1", json!({"f:spec": {"f:replicas": {}}})),
            entry("kube-controller-manager", "Update", "apps/v1", json!({"f:status": {}})),
        ]);
        let patch = upgrade_patch(&live, "helm").expect("something to move");
        assert_eq!(
            patch,
            json!([
                {"op": "replace", "path": "/metadata/managedFields", "value": [
                    entry("helm", "Apply", "apps/v1", json!({"f:spec": {"f:replicas": {}}})),
                    entry("kube-controller-manager", "Update", "apps/v1", json!({"f:status": {}})),
                ]},
                {"op": "replace", "path": "/metadata/resourceVersion", "value": "42"},
            ])
        );
    }

    #[test]
    fn an_existing_apply_entry_takes_the_union_and_every_update_entry_goes() {
        let live = object(vec![
            entry("helm", "Apply", "apps/v1", json!({"f:spec": {"f:replicas": {}}})),
            entry("helm", "Update", "apps/v1", json!({"f:spec": {"f:template": {"f:spec": {}}}})),
            entry("helm", "Update", "apps/v1beta1", json!({"f:metadata": {}})),
        ]);
        let patch = upgrade_patch(&live, "helm").expect("something to move");
        let entries = patch.pointer("/0/value").cloned().unwrap_or_default();
        assert_eq!(
            entries,
            json!([entry(
                "helm",
                "Apply",
                "apps/v1",
                json!({"f:spec": {"f:replicas": {}, "f:template": {"f:spec": {}}}})
            )])
        );
    }

    #[test]
    fn nothing_to_move_is_no_patch() {
        let only_apply = object(vec![entry("helm", "Apply", "v1", json!({"f:data": {}}))]);
        assert_eq!(upgrade_patch(&only_apply, "helm"), None);
        let others = object(vec![entry("kubectl", "Update", "v1", json!({"f:data": {}}))]);
        assert_eq!(upgrade_patch(&others, "helm"), None);
        assert_eq!(upgrade_patch(&json!({"metadata": {}}), "helm"), None);
    }
}
