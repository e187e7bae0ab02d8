//! The pure core of drift detection: which fields of a live object differ from what applying the deployed
//! revision's object would make of it (the API server's answer to a server-side apply dry run), as JSON
//! pointers. As fluxcd/pkg `ssa/jsondiff.Unstructured`: the ignored pointers are removed from both sides
//! first; of the metadata only labels and annotations count, and only ones the apply would add or change (a
//! label a controller added is not drift); `status` never counts; everything else counts both ways.
//!
//! The dry run starts from the live object, so a difference can only be a field the chart sets (or one the
//! apply would remove): server bookkeeping (`managedFields`, `resourceVersion`, `generation`) is in metadata
//! and never compared.

use serde_json::{Map, Value};

/// The fields (JSON pointers, sorted) in which `live` differs from `applied`, the dry run's answer, once the
/// `ignore` pointers are left out of both.
pub fn changed_fields(live: &Value, applied: &Value, ignore: &[&str]) -> Vec<String> {
    let (mut live, mut applied) = (live.clone(), applied.clone());
    for pointer in ignore {
        remove(&mut live, pointer);
        remove(&mut applied, pointer);
    }
    let mut changed = Vec::new();
    for field in ["labels", "annotations"] {
        let wanted = applied.pointer(&format!("/metadata/{field}")).and_then(Value::as_object);
        let present = live.pointer(&format!("/metadata/{field}")).and_then(Value::as_object);
        for (key, value) in wanted.into_iter().flatten() {
            if present.and_then(|present| present.get(key)) != Some(value) {
                changed.push(format!("/metadata/{field}/{}", escape(key)));
            }
        }
    }
    let without_metadata = |object: &Value| -> Map<String, Value> {
        let mut map = object.as_object().cloned().unwrap_or_default();
        map.remove("metadata");
        map.remove("status");
        map
    };
    let (live, applied) = (Value::Object(without_metadata(&live)), Value::Object(without_metadata(&applied)));
    differences(Some(&live), Some(&applied), String::new(), &mut changed);
    changed.sort();
    changed
}

/// Collects the pointers at which `live` and `applied` differ: objects key by key, arrays of the same length
/// item by item, anything else (a scalar, an array that grew or shrank, a field on one side only) as a whole.
fn differences(live: Option<&Value>, applied: Option<&Value>, pointer: String, changed: &mut Vec<String>) {
    match (live, applied) {
        (Some(Value::Object(live)), Some(Value::Object(applied))) => {
            let mut keys: Vec<&String> = live.keys().chain(applied.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                differences(live.get(key), applied.get(key), format!("{pointer}/{}", escape(key)), changed);
            }
        }
        (Some(Value::Array(live)), Some(Value::Array(applied))) if live.len() == applied.len() => {
            for (index, (live, applied)) in live.iter().zip(applied).enumerate() {
                differences(Some(live), Some(applied), format!("{pointer}/{index}"), changed);
            }
        }
        (live, applied) if live == applied => {}
        _ => changed.push(pointer),
    }
}

/// A key as one JSON pointer token (RFC 6901: `~` as `~0`, `/` as `~1`).
pub fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The tokens of a JSON pointer (`""` has none); `None` when it is not one: it must start with `/`, and `~`
/// is followed by `0` or `1`.
pub fn tokens(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    rest.split('/')
        .map(|token| {
            let mut unescaped = String::with_capacity(token.len());
            let mut characters = token.chars();
            while let Some(character) = characters.next() {
                unescaped.push(match character {
                    '~' => match characters.next() {
                        Some('0') => '~',
                        Some('1') => '/',
                        _ => return None,
                    },
                    other => other,
                });
            }
            Some(unescaped)
        })
        .collect()
}

/// Removes the field at `pointer`, if there is one (an ignore rule for a field the object lacks is fine).
fn remove(object: &mut Value, pointer: &str) {
    let Some(mut tokens) = tokens(pointer) else { return };
    let Some(last) = tokens.pop() else { return };
    let mut parent = object;
    for token in &tokens {
        let child = match parent {
            Value::Object(map) => map.get_mut(token),
            Value::Array(items) => token.parse::<usize>().ok().and_then(|index| items.get_mut(index)),
            _ => None,
        };
        let Some(child) = child else { return };
        parent = child;
    }
    match parent {
        Value::Object(map) => {
            map.remove(&last);
        }
        Value::Array(items) => {
            if let Some(index) = last.parse::<usize>().ok().filter(|index| *index < items.len()) {
                items.remove(index);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment(replicas: i64, image: &str) -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {
                "name": "web", "namespace": "shop", "resourceVersion": "7", "generation": 3,
                "managedFields": [{"manager": "helm"}],
                "labels": {"app.kubernetes.io/managed-by": "Helm"},
                "annotations": {"meta.helm.sh/release-name": "web"},
            },
            "spec": {"replicas": replicas, "template": {"spec": {"containers": [{"name": "web", "image": image}]}}},
            "status": {"replicas": replicas},
        })
    }

    #[test]
    fn the_fields_that_differ_are_named_by_pointer() {
        // (what the live object is, the ignore rules, the pointers reported)
        let mut bookkeeping = deployment(1, "nginx");
        bookkeeping["metadata"]["resourceVersion"] = json!("8");
        bookkeeping["metadata"]["managedFields"] = json!([{"manager": "kubectl"}]);
        bookkeeping["status"] = json!({"replicas": 3});
        let mut extra_label = deployment(1, "nginx");
        extra_label["metadata"]["labels"]["added-by"] = json!("a-controller");
        let mut lost_annotation = deployment(1, "nginx");
        lost_annotation["metadata"]["annotations"] = json!({});
        let mut extra_container = deployment(1, "nginx");
        extra_container["spec"]["template"]["spec"]["containers"] =
            json!([{"name": "web", "image": "nginx"}, {"name": "sidecar"}]);
        let cases: [(Value, &[&str], &[&str]); 8] = [
            (deployment(1, "nginx"), &[], &[]),
            (bookkeeping, &[], &[]),
            (deployment(3, "nginx"), &[], &["/spec/replicas"]),
            (deployment(3, "nginx"), &["/spec/replicas"], &[]),
            (deployment(3, "httpd"), &["/spec/replicas"], &["/spec/template/spec/containers/0/image"]),
            (extra_label, &[], &[]),
            (lost_annotation, &[], &["/metadata/annotations/meta.helm.sh~1release-name"]),
            (extra_container, &[], &["/spec/template/spec/containers"]),
        ];
        let applied = deployment(1, "nginx");
        for (live, ignore, expected) in cases {
            assert_eq!(changed_fields(&live, &applied, ignore), expected, "{live}");
        }
    }

    #[test]
    fn a_field_on_one_side_only_is_a_change() {
        let live = json!({"kind": "ConfigMap", "data": {"a": "1", "b": "2"}});
        let applied = json!({"kind": "ConfigMap", "data": {"a": "1", "c": "3"}});
        assert_eq!(changed_fields(&live, &applied, &[]), ["/data/b", "/data/c"]);
        assert_eq!(changed_fields(&live, &applied, &["/data"]), Vec::<String>::new());
    }

    #[test]
    fn pointers_read_as_rfc_6901_says() {
        let cases: [(&str, Option<&[&str]>); 6] = [
            ("", Some(&[])),
            ("/spec/replicas", Some(&["spec", "replicas"])),
            ("/metadata/annotations/a~1b~0c", Some(&["metadata", "annotations", "a/b~c"])),
            ("/", Some(&[""])),
            ("spec/replicas", None),
            ("/a~2", None),
        ];
        for (pointer, expected) in cases {
            let expected = expected.map(|tokens| tokens.iter().map(ToString::to_string).collect::<Vec<_>>());
            assert_eq!(tokens(pointer), expected, "{pointer}");
        }
        let mut object = json!({"a": [{"b": 1}, {"b": 2}], "c/d": 1});
        remove(&mut object, "/a/1/b");
        remove(&mut object, "/c~1d");
        remove(&mut object, "/missing/field");
        remove(&mut object, "/a/9");
        assert_eq!(object, json!({"a": [{"b": 1}, {}]}));
        assert_eq!(escape("meta.helm.sh/release-name"), "meta.helm.sh~1release-name");
    }
}
