//! A Secret's values as helm-diff shows them (`redactSecrets` and `decodeSecrets` in helm-diff's `diff/diff.go`):
//! the Secret read as Kubernetes reads it (`stringData` over `data`, `data` base64-decoded), then written again
//! as client-go's YAML serializer writes a `v1.Secret` (sorted keys, unknown fields dropped, `creationTimestamp:
//! null` taken out) with each value replaced: by `REDACTED # (N bytes)` when both sides hold the same bytes,
//! `-------- # (N bytes)` or `++++++++ # (N bytes)` when they differ, under `data:`; or, with
//! `--show-secrets-decoded`, by the decoded text under `stringData:`. The document's `# Source:` line is kept.
//!
//! One rule of berth's own on top: the annotations in which tools keep a copy of the object
//! (`kubectl.kubernetes.io/last-applied-configuration`, kapp's) are masked as well (`secret.rs`); helm-diff
//! shows them as they are, values and all.

use super::parse::MappingResult;
use super::secret;
use berth_patch::object_meta::OBJECT_META_FIELDS;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

const SECRET: &str = "Secret";

/// How Secret values are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretView {
    /// Sizes only (helm-diff's default).
    Redacted,
    /// `--show-secrets-decoded`: the decoded values.
    Decoded,
}

/// A Secret as `v1.Secret` holds it after decoding.
struct DecodedSecret {
    /// `apiVersion`, `kind`, `metadata`, `immutable`, `type`: what is written back besides the values.
    fields: Map<String, Value>,
    /// `data` with `stringData` laid over it, as the API server merges them.
    data: BTreeMap<String, Vec<u8>>,
}

/// A decoded Secret ready to be written again: its fields and the values as shown.
struct Shown {
    fields: Value,
    values: Map<String, Value>,
}

/// Rewrites the content of `old` and `new` (either may be absent) when both are Secrets.
pub fn secrets(old: Option<&mut MappingResult>, new: Option<&mut MappingResult>, view: SecretView) {
    let is_secret = |side: &Option<&mut MappingResult>| side.as_ref().is_none_or(|side| side.kind == SECRET);
    if !is_secret(&old) || !is_secret(&new) {
        return;
    }
    let decode = |side: &Option<&mut MappingResult>| side.as_ref().map(|side| decode(&side.content));
    let (old_secret, new_secret) = (decode(&old), decode(&new));
    let mut old_shown = old_secret.as_ref().map(|this| shown(this, new_secret.as_ref(), "--------", view));
    let mut new_shown = new_secret.as_ref().map(|this| shown(this, old_secret.as_ref(), "++++++++", view));
    if view == SecretView::Redacted {
        secret::mask_copies(fields(&mut old_shown), fields(&mut new_shown));
    }
    for (side, shown, label) in [(old, old_shown, "old"), (new, new_shown, "new")] {
        if let (Some(side), Some(shown)) = (side, shown) {
            side.content = match shown {
                Ok(shown) => encode(&side.content, shown, view),
                Err(error) => format!("Error parsing {label} secret: {error}"),
            };
        }
    }
}

/// The fields of a side that decoded (where the copy annotations are masked).
fn fields(shown: &mut Option<Result<Shown, String>>) -> Option<&mut Value> {
    shown.as_mut().and_then(|shown| shown.as_mut().ok()).map(|shown| &mut shown.fields)
}

/// The values of `this` as shown beside `other` (the other side, `None` when there is none): redacted with
/// `sign` where they differ, or decoded.
fn shown(
    this: &Result<DecodedSecret, String>,
    other: Option<&Result<DecodedSecret, String>>,
    sign: &str,
    view: SecretView,
) -> Result<Shown, String> {
    let this = this.as_ref().map_err(Clone::clone)?;
    // Compared with the other side's values when there is another side, even when it did not decode (it then
    // has none): Go's `bytes.Equal` with the nil of a missing key holds for an empty value.
    let other_data = other.map(|other| other.as_ref().ok().map(|other| &other.data));
    let values = this
        .data
        .iter()
        .map(|(key, bytes)| {
            let text = match view {
                SecretView::Decoded => String::from_utf8_lossy(bytes).into_owned(),
                SecretView::Redacted => {
                    let same = other_data.is_some_and(|data| {
                        data.and_then(|data| data.get(key)).map_or(&[][..], Vec::as_slice) == bytes.as_slice()
                    });
                    format!("{} # ({} bytes)", if same { "REDACTED" } else { sign }, bytes.len())
                }
            };
            (key.clone(), Value::String(text))
        })
        .collect();
    Ok(Shown { fields: Value::Object(this.fields.clone()), values })
}

/// The Secret in `content`, as `yaml.NewYAMLToJSONDecoder(...).Decode(&v1.Secret{})` reads it; the error text
/// is what helm-diff puts in place of the document.
fn decode(content: &str) -> Result<DecodedSecret, String> {
    let json = berth_goyaml::yaml_to_json(content).map_err(|error| error.message().to_string())?;
    let value: Value = match json {
        Some(json) => serde_json::from_str(&json).map_err(|error| error.to_string())?,
        None => Value::Null,
    };
    let object = match value {
        Value::Object(object) => object,
        Value::Null => Map::new(),
        _ => return Err("json: cannot unmarshal into Go value of type v1.Secret".to_string()),
    };
    let mut fields = Map::new();
    for key in ["apiVersion", "kind", "immutable", "type"] {
        if let Some(value) = object.get(key).filter(|value| !value.is_null()) {
            fields.insert(key.to_string(), value.clone());
        }
    }
    let mut metadata: Map<String, Value> = object
        .get("metadata")
        .and_then(Value::as_object)
        .map(|metadata| {
            metadata
                .iter()
                // client-go decodes the Secret's metadata into `metav1.ObjectMeta`: other fields are dropped.
                .filter(|(key, _)| OBJECT_META_FIELDS.contains(&key.as_str()))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect()
        })
        .unwrap_or_default();
    // `metav1.Time` is a struct: `omitempty` never leaves it out, and a zero time is written `null`.
    metadata.entry("creationTimestamp").or_insert(Value::Null);
    fields.insert("metadata".to_string(), Value::Object(metadata));
    let mut data = BTreeMap::new();
    for (key, value) in object.get("data").and_then(Value::as_object).into_iter().flatten() {
        let bytes = match value {
            Value::Null => Vec::new(),
            Value::String(text) => base64::Engine::decode(&base64::engine::general_purpose::STANDARD, text).map_err(
                |error| match error {
                    base64::DecodeError::InvalidByte(offset, _) | base64::DecodeError::InvalidLastSymbol(offset, _) => {
                        format!("illegal base64 data at input byte {offset}")
                    }
                    _ => format!("illegal base64 data at input byte {}", text.len()),
                },
            )?,
            _ => {
                return Err(format!("json: cannot unmarshal into Go struct field Secret.data of type []uint8 ({key})"));
            }
        };
        data.insert(key.clone(), bytes);
    }
    for (key, value) in object.get("stringData").and_then(Value::as_object).into_iter().flatten() {
        let text = match value {
            Value::String(text) => text.clone(),
            Value::Null => String::new(),
            _ => {
                return Err(format!(
                    "json: cannot unmarshal into Go struct field Secret.stringData of type string ({key})"
                ));
            }
        };
        data.insert(key.clone(), text.into_bytes());
    }
    Ok(DecodedSecret { fields, data })
}

/// The Secret written again: `fields` and the values shown under `stringData` (renamed `data` when redacted,
/// the first occurrence in the text, as helm-diff's `strings.Replace` does), behind the original's comment line.
fn encode(original: &str, shown: Shown, view: SecretView) -> String {
    let Value::Object(mut object) = shown.fields else { return String::new() };
    // `StringData` is `omitempty`: a Secret without values has no such key.
    if !shown.values.is_empty() {
        object.insert("stringData".to_string(), Value::Object(shown.values));
    }
    let value = crate::release::cluster_chart::template_value(&Value::Object(object));
    let text = match berth_goyaml::to_yaml(&value) {
        Ok(text) => text,
        Err(error) => return format!("Error encoding secret: {}", error.message()),
    };
    let text = match view {
        SecretView::Redacted => text.replacen("stringData", "data", 1),
        SecretView::Decoded => text,
    };
    format!("{}{}", comment(original), text.replacen("  creationTimestamp: null\n", "", 1))
}

/// `getComment`: the first line with its newline when it is a comment (the `# Source:` line of a rendering).
fn comment(text: &str) -> &str {
    match text.find('\n') {
        Some(end) if text.starts_with('#') => &text[..=end],
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret(content: &str) -> MappingResult {
        MappingResult {
            name: "default, foo, Secret (v1)".into(),
            kind: SECRET.into(),
            content: content.into(),
            ..MappingResult::default()
        }
    }

    #[test]
    fn the_last_applied_copy_is_masked_too() {
        let content = "# Source: s.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: foo\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{\"kind\":\"Secret\",\"data\":{\"k\":\"c2VjcmV0\"}}'\ndata:\n  k: c2VjcmV0\n";
        let mut new = secret(content);
        secrets(None, Some(&mut new), SecretView::Redacted);
        assert!(new.content.starts_with("# Source: s.yaml\napiVersion: v1\n"), "{}", new.content);
        assert!(new.content.contains("\ndata:\n  k: '++++++++ # (6 bytes)'\n"), "{}", new.content);
        assert!(!new.content.contains("c2VjcmV0") && !new.content.contains("secret\n"), "{}", new.content);
    }

    #[test]
    fn objects_that_are_not_secrets_are_left_alone() {
        let mut old =
            MappingResult { kind: "ConfigMap".into(), content: "kind: ConfigMap\n".into(), ..MappingResult::default() };
        let mut new = secret("kind: Secret\ndata:\n  a: YQ==\n");
        secrets(Some(&mut old), Some(&mut new), SecretView::Redacted);
        assert_eq!(
            (old.content.as_str(), new.content.as_str()),
            ("kind: ConfigMap\n", "kind: Secret\ndata:\n  a: YQ==\n")
        );
    }
}
