//! Metadata-only answers (`Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`, and
//! `as=PartialObjectMetadataList` for lists), which controllers ask for when they need to know that an object
//! changed but not what it holds (kube-rs `Api<PartialObjectMeta<K>>`, client-go's metadata informers). As
//! kube-apiserver's `transformResponseObject` (`asPartialObjectMetadata`/`asPartialObjectMetadataList`): each
//! object keeps its `metadata` alone, as kind `PartialObjectMetadata` of `meta.k8s.io/v1`; a list keeps its own
//! `metadata` (resourceVersion, continue) too.

use serde_json::{Value, json};

const API_VERSION: &str = "meta.k8s.io/v1";

/// Whether the client's Accept header asks for metadata only (its first media type, as for Tables).
pub fn wants_metadata(accept: &str) -> bool {
    accept.split(',').next().is_some_and(|first| first.contains("as=PartialObjectMetadata"))
}

/// One object as `PartialObjectMetadata`.
pub fn partial(object: &Value) -> Value {
    let metadata = object.get("metadata").cloned().unwrap_or_else(|| json!({}));
    json!({"kind": "PartialObjectMetadata", "apiVersion": API_VERSION, "metadata": metadata})
}

/// An object or a list (`items`) in its metadata-only form.
pub fn transform(value: &Value) -> Value {
    match value.get("items").and_then(Value::as_array) {
        Some(items) => {
            let metadata = value.get("metadata").cloned().unwrap_or_else(|| json!({}));
            let items: Vec<Value> = items.iter().map(partial).collect();
            json!({"kind": "PartialObjectMetadataList", "apiVersion": API_VERSION, "metadata": metadata, "items": items})
        }
        None => partial(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_and_lists_keep_their_metadata_alone() {
        assert!(wants_metadata("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"));
        assert!(wants_metadata("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json"));
        assert!(!wants_metadata("application/json, application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"));
        let secret = json!({"kind": "Secret", "apiVersion": "v1", "metadata": {"name": "s", "resourceVersion": "7"},
            "data": {"password": "c2VjcmV0"}});
        assert_eq!(
            transform(&secret),
            json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                "metadata": {"name": "s", "resourceVersion": "7"}})
        );
        let list =
            json!({"kind": "SecretList", "apiVersion": "v1", "metadata": {"resourceVersion": "9"}, "items": [secret]});
        let partial_list = transform(&list);
        assert_eq!(partial_list["kind"], "PartialObjectMetadataList");
        assert_eq!(partial_list["metadata"]["resourceVersion"], "9");
        assert_eq!(partial_list["items"][0]["metadata"]["name"], "s");
        assert!(partial_list["items"][0].get("data").is_none(), "no value leaves the server");
    }
}
