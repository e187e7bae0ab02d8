//! Pod templates: their hash (`pod-template-hash`, revision names), the pods stamped from them, and the
//! generated parts of names, all deterministic so a run can be repeated.

use super::meta;
use serde_json::{Map, Value, json};

/// The alphabet of Kubernetes' `rand.SafeEncodeString` and generated name suffixes (no vowels, no 0/1/3).
const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// The `pod-template-hash` of a template, as the Deployment controller forms it: FNV-1a (32 bits) of the
/// template (here its canonical JSON) and the collision count, printed in decimal and safe-encoded.
pub(super) fn template_hash(template: &Value, collision_count: i64) -> String {
    // Keys sorted, so equal templates hash equally whatever order their keys arrived in.
    let mut text = crate::validation::go_json::sorted_json(template, &Value::to_string);
    if collision_count > 0 {
        text.push_str(&collision_count.to_string());
    }
    safe_encode(&fnv1a32(text.as_bytes()).to_string())
}

/// `rand.SafeEncodeString`: every byte mapped onto the safe alphabet.
fn safe_encode(text: &str) -> String {
    text.bytes().map(|byte| char::from(ALPHANUMS[usize::from(byte) % ALPHANUMS.len()])).collect()
}

fn fnv1a32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5_u32, |hash, byte| (hash ^ u32::from(*byte)).wrapping_mul(0x0100_0193))
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3))
}

/// A five-character name suffix derived from `seed` (what `generateName` would add).
pub(super) fn name_suffix(seed: &str) -> String {
    let mut hash = fnv1a64(seed.as_bytes());
    let mut suffix = String::with_capacity(5);
    for _ in 0..5 {
        let index = usize::try_from(hash % ALPHANUMS.len() as u64).unwrap_or(0);
        suffix.push(char::from(ALPHANUMS[index]));
        hash /= ALPHANUMS.len() as u64;
    }
    suffix
}

/// 64 hex digits derived from `seed`: image digests and container ids.
pub(super) fn digest(seed: &str) -> String {
    let mut out = String::with_capacity(64);
    let mut hash = fnv1a64(seed.as_bytes());
    for round in 0..4u8 {
        out.push_str(&format!("{hash:016x}"));
        hash = fnv1a64(&[&hash.to_be_bytes()[..], &[round]].concat());
    }
    out
}

/// A pod stamped from `template`: its labels and annotations plus `extra_labels`, its spec, the owner
/// reference to `owner`.
pub(super) fn pod_from_template(
    template: &Value,
    namespace: &str,
    name: &str,
    owner: &Value,
    extra_labels: &[(&str, String)],
) -> Value {
    let mut labels = meta::map_at(template, &["metadata", "labels"]);
    for (key, value) in extra_labels {
        labels.insert((*key).to_string(), Value::String(value.clone()));
    }
    let mut metadata = Map::new();
    metadata.insert("name".to_string(), json!(name));
    metadata.insert("namespace".to_string(), json!(namespace));
    metadata.insert("generateName".to_string(), json!(format!("{}-", meta::name(owner))));
    metadata.insert("labels".to_string(), Value::Object(labels));
    let annotations = meta::map_at(template, &["metadata", "annotations"]);
    if !annotations.is_empty() {
        metadata.insert("annotations".to_string(), Value::Object(annotations));
    }
    metadata.insert("ownerReferences".to_string(), json!([meta::owner_reference(owner)]));
    let spec = template.get("spec").cloned().unwrap_or_else(|| json!({}));
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec})
}

/// Whether two templates are equal once the `pod-template-hash` label is ignored (the controller's
/// `EqualIgnoreHash`).
pub(super) fn equal_ignoring_hash(left: &Value, right: &Value) -> bool {
    without_hash_label(left) == without_hash_label(right)
}

fn without_hash_label(template: &Value) -> Value {
    let mut template = template.clone();
    if let Some(labels) = template.pointer_mut("/metadata/labels").and_then(Value::as_object_mut) {
        labels.remove("pod-template-hash");
        if labels.is_empty()
            && let Some(metadata) = template.get_mut("metadata").and_then(Value::as_object_mut)
        {
            metadata.remove("labels");
        }
    }
    if template.get("metadata").and_then(Value::as_object).is_some_and(Map::is_empty)
        && let Some(map) = template.as_object_mut()
    {
        map.remove("metadata");
    }
    template
}

/// `template` with `label` set in its metadata.
pub(super) fn with_label(template: &Value, label: &str, value: &str) -> Value {
    let mut template = template.clone();
    if !template.is_object() {
        template = json!({});
    }
    let mut labels = meta::map_at(&template, &["metadata", "labels"]);
    labels.insert(label.to_string(), json!(value));
    if let Some(map) = template.as_object_mut() {
        let metadata = map.entry("metadata").or_insert_with(|| json!({}));
        if !metadata.is_object() {
            *metadata = json!({});
        }
        if let Some(metadata) = metadata.as_object_mut() {
            metadata.insert("labels".to_string(), Value::Object(labels));
        }
    }
    template
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_ignores_key_order_and_follows_content_and_collisions() {
        let first = json!({"metadata": {"labels": {"app": "web", "tier": "a"}}, "spec": {"containers": [{"name": "c", "image": "i:1"}]}});
        let reordered = json!({"spec": {"containers": [{"image": "i:1", "name": "c"}]}, "metadata": {"labels": {"tier": "a", "app": "web"}}});
        let changed = json!({"metadata": {"labels": {"app": "web", "tier": "a"}}, "spec": {"containers": [{"name": "c", "image": "i:2"}]}});
        let hash = template_hash(&first, 0);
        assert_eq!(hash, template_hash(&reordered, 0));
        assert_ne!(hash, template_hash(&changed, 0));
        assert_ne!(hash, template_hash(&first, 1));
        assert!(hash.len() <= 10 && hash.bytes().all(|byte| ALPHANUMS.contains(&byte)), "{hash}");
    }

    #[test]
    fn suffixes_and_digests_are_deterministic() {
        assert_eq!(name_suffix("a"), name_suffix("a"));
        assert_ne!(name_suffix("a"), name_suffix("b"));
        assert_eq!(name_suffix("x").len(), 5);
        let digest = digest("seed");
        assert_eq!(digest.len(), 64);
        assert!(digest.bytes().all(|byte| byte.is_ascii_hexdigit()));
    }

    #[test]
    fn pods_carry_template_labels_extra_labels_and_the_owner() {
        let template = json!({"metadata": {"labels": {"app": "web"}, "annotations": {"a": "b"}}, "spec": {"containers": [{"name": "c"}]}});
        let owner = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web-1", "uid": "u1"}});
        let pod = pod_from_template(&template, "shop", "web-1-abcde", &owner, &[("pod-template-hash", "1".into())]);
        assert_eq!(pod["metadata"]["labels"], json!({"app": "web", "pod-template-hash": "1"}));
        assert_eq!(pod["metadata"]["annotations"], json!({"a": "b"}));
        assert_eq!(pod["metadata"]["ownerReferences"][0]["uid"], "u1");
        assert_eq!(pod["metadata"]["generateName"], "web-1-");
        assert_eq!(pod["spec"]["containers"][0]["name"], "c");
    }

    #[test]
    fn templates_compare_without_the_hash_label() {
        let template = json!({"metadata": {"labels": {"app": "web"}}, "spec": {}});
        let hashed = with_label(&template, "pod-template-hash", "abc");
        assert!(equal_ignoring_hash(&template, &hashed));
        let bare = json!({"spec": {}});
        assert!(equal_ignoring_hash(&bare, &with_label(&bare, "pod-template-hash", "x")));
        assert!(!equal_ignoring_hash(&template, &bare));
    }
}
