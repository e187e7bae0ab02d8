//! Label and field selectors of list and watch requests, parsed once per request and matched per object.

use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
enum LabelRequirement {
    Exists(String),
    NotExists(String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
}

#[derive(Debug, Clone, PartialEq)]
struct FieldRequirement {
    path: Vec<String>,
    value: String,
    equal: bool,
}

/// The selectors of one request; empty matches everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selector {
    labels: Vec<LabelRequirement>,
    fields: Vec<FieldRequirement>,
}

/// Fields every type can be selected on, plus the few per-type ones clients use.
const SELECTABLE_FIELDS: &[&str] = &[
    "metadata.name",
    "metadata.namespace",
    "status.phase",
    "spec.nodeName",
    "spec.serviceAccountName",
    "type",
    "reason",
    "reportingComponent",
    "source",
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
];

impl Selector {
    /// Parses `labelSelector` and `fieldSelector` query values.
    ///
    /// # Errors
    /// A message like a real server's 400 answer, naming the bad requirement.
    pub fn parse(label_selector: Option<&str>, field_selector: Option<&str>) -> Result<Selector, String> {
        let labels = match label_selector {
            Some(text) => split_top_level(text).into_iter().map(parse_label).collect::<Result<_, _>>()?,
            None => Vec::new(),
        };
        let fields = match field_selector {
            Some(text) => split_top_level(text).into_iter().map(parse_field).collect::<Result<_, _>>()?,
            None => Vec::new(),
        };
        Ok(Selector { labels, fields })
    }

    /// Whether the selector selects everything.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty() && self.fields.is_empty()
    }

    /// Whether an object whose label `key` has the value `label(key)` meets the label requirements (the field
    /// requirements are left to [`Selector::matches`]).
    pub fn matches_labels<'a>(&self, label: impl Fn(&str) -> Option<&'a str>) -> bool {
        self.labels.iter().all(|requirement| match requirement {
            LabelRequirement::Exists(key) => label(key).is_some(),
            LabelRequirement::NotExists(key) => label(key).is_none(),
            LabelRequirement::In(key, values) => label(key).is_some_and(|value| values.iter().any(|v| v == value)),
            LabelRequirement::NotIn(key, values) => label(key).is_none_or(|value| values.iter().all(|v| v != value)),
        })
    }

    pub fn matches(&self, object: &Value) -> bool {
        let labels = object.pointer("/metadata/labels");
        self.matches_labels(|key| labels.and_then(|labels| labels.get(key)).and_then(Value::as_str))
            && self.fields.iter().all(|requirement| {
                let mut current = Some(object);
                for step in &requirement.path {
                    current = current.and_then(|value| value.get(step));
                }
                let actual = current.and_then(Value::as_str).unwrap_or_default();
                (actual == requirement.value) == requirement.equal
            })
    }

    /// The single name a `metadata.name=` field selector pins, if any.
    pub fn pinned_name(&self) -> Option<&str> {
        self.fields
            .iter()
            .find(|requirement| requirement.equal && requirement.path == ["metadata", "name"])
            .map(|requirement| requirement.value.as_str())
    }
}

/// The field of the stored object a selector field names: `events.k8s.io` Events are stored as core Events,
/// so `regarding.name` is `involvedObject.name` and `reportingController` is `reportingComponent`.
fn stored_field(field: &str) -> String {
    if let Some(rest) = field.strip_prefix("regarding.") {
        return format!("involvedObject.{rest}");
    }
    match field {
        "reportingController" => "reportingComponent".to_string(),
        "deprecatedSource" => "source".to_string(),
        other => other.to_string(),
    }
}

/// Whether a `metav1.LabelSelector` (`matchLabels` and `matchExpressions`) selects `labels`, as
/// `LabelSelectorAsSelector` builds it. An empty or absent selector selects everything; a malformed one
/// (an unknown operator) selects nothing.
pub fn label_selector_matches(selector: Option<&Value>, labels: Option<&Value>) -> bool {
    let Some(selector) = selector.filter(|selector| !selector.is_null()) else { return true };
    let label = |key: &str| labels.and_then(|labels| labels.get(key)).and_then(Value::as_str);
    let match_labels = selector.get("matchLabels").and_then(Value::as_object);
    let labels_match = match_labels
        .into_iter()
        .flatten()
        .all(|(key, value)| value.as_str().is_some_and(|value| label(key) == Some(value)));
    let expressions = selector.get("matchExpressions").and_then(Value::as_array);
    labels_match
        && expressions.into_iter().flatten().all(|expression| {
            let key = expression.get("key").and_then(Value::as_str).unwrap_or_default();
            let values: Vec<&str> = expression
                .get("values")
                .and_then(Value::as_array)
                .map(|values| values.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            match expression.get("operator").and_then(Value::as_str) {
                Some("In") => label(key).is_some_and(|value| values.contains(&value)),
                Some("NotIn") => label(key).is_none_or(|value| !values.contains(&value)),
                Some("Exists") => label(key).is_some(),
                Some("DoesNotExist") => label(key).is_none(),
                _ => false,
            }
        })
}

/// Splits at commas that are not inside parentheses.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (index, character) in text.char_indices() {
        match character {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(text[start..index].trim());
                start = index + 1;
            }
            _ => {}
        }
    }
    parts.push(text[start..].trim());
    parts.into_iter().filter(|part| !part.is_empty()).collect()
}

fn parse_label(text: &str) -> Result<LabelRequirement, String> {
    let invalid =
        || format!("unable to parse requirement: found '{text}', expected: in, notin, =, ==, !=, or identifier");
    if let Some(key) = text.strip_prefix('!') {
        return valid_key(key.trim()).map(LabelRequirement::NotExists).ok_or_else(invalid);
    }
    if let Some((key, value)) = text.split_once("!=") {
        let key = valid_key(key.trim()).ok_or_else(invalid)?;
        return Ok(LabelRequirement::NotIn(key, vec![value.trim().to_string()]));
    }
    if let Some((key, value)) = text.split_once("==").or_else(|| text.split_once('=')) {
        let key = valid_key(key.trim()).ok_or_else(invalid)?;
        return Ok(LabelRequirement::In(key, vec![value.trim().to_string()]));
    }
    for (operator, negate) in [(" notin ", true), (" in ", false)] {
        if let Some((key, values)) = text.split_once(operator) {
            let key = valid_key(key.trim()).ok_or_else(invalid)?;
            let values = values.trim().strip_prefix('(').and_then(|rest| rest.strip_suffix(')')).ok_or_else(invalid)?;
            let values: Vec<String> = values.split(',').map(|value| value.trim().to_string()).collect();
            return Ok(if negate { LabelRequirement::NotIn(key, values) } else { LabelRequirement::In(key, values) });
        }
    }
    valid_key(text).map(LabelRequirement::Exists).ok_or_else(invalid)
}

fn valid_key(key: &str) -> Option<String> {
    let is_valid = !key.is_empty()
        && key.len() <= 317
        && key.chars().all(|character| character.is_ascii_alphanumeric() || "-_./".contains(character));
    is_valid.then(|| key.to_string())
}

fn parse_field(text: &str) -> Result<FieldRequirement, String> {
    let (field, value, equal) = if let Some((field, value)) = text.split_once("!=") {
        (field, value, false)
    } else if let Some((field, value)) = text.split_once("==").or_else(|| text.split_once('=')) {
        (field, value, true)
    } else {
        return Err(format!("invalid selector: '{text}'; can't understand '{text}'"));
    };
    let field = field.trim();
    let stored = stored_field(field);
    if !SELECTABLE_FIELDS.contains(&stored.as_str()) {
        return Err(format!("field label not supported: {field}"));
    }
    let stored = if stored == "source" { "source.component".to_string() } else { stored };
    Ok(FieldRequirement {
        path: stored.split('.').map(str::to_string).collect(),
        value: value.trim().to_string(),
        equal,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn label_selectors_match_labels_and_expressions() {
        let labels = json!({"app": "web", "tier": "front"});
        let cases = [
            (json!(null), true),
            (json!({}), true),
            (json!({"matchLabels": {"app": "web"}}), true),
            (json!({"matchLabels": {"app": "db"}}), false),
            (json!({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["front", "back"]}]}), true),
            (
                json!({"matchExpressions": [{"key": "cert-manager.io/disable-validation", "operator": "NotIn", "values": ["true"]}]}),
                true,
            ),
            (json!({"matchExpressions": [{"key": "app", "operator": "DoesNotExist"}]}), false),
            (json!({"matchExpressions": [{"key": "app", "operator": "Exists"}]}), true),
            (json!({"matchExpressions": [{"key": "app", "operator": "Near"}]}), false),
        ];
        for (selector, expected) in cases {
            assert_eq!(label_selector_matches(Some(&selector), Some(&labels)), expected, "{selector}");
        }
    }

    fn object() -> Value {
        json!({"metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web", "tier": "front"}}})
    }

    #[test]
    fn label_selectors_follow_kubernetes_grammar() {
        let cases = [
            ("app=web", true),
            ("app==web", true),
            ("app!=web", false),
            ("app", true),
            ("!app", false),
            ("missing", false),
            ("!missing", true),
            ("tier in (front,back)", true),
            ("tier notin (front,back)", false),
            ("app=web,tier=back", false),
            ("app=web, tier in (front)", true),
            ("missing!=x", true),
        ];
        for (text, expected) in cases {
            let selector = Selector::parse(Some(text), None);
            assert_eq!(selector.map(|selector| selector.matches(&object())), Ok(expected), "{text}");
        }
    }

    #[test]
    fn field_selectors_match_name_and_namespace() {
        let selector = Selector::parse(None, Some("metadata.name=web,metadata.namespace!=default"));
        assert_eq!(selector.as_ref().map(|selector| selector.matches(&object())), Ok(true));
        assert_eq!(selector.as_ref().ok().and_then(Selector::pinned_name), Some("web"));
        assert!(Selector::parse(None, Some("spec.foo=bar")).is_err_and(|message| message.contains("spec.foo")));
        assert!(Selector::parse(Some("a in b"), None).is_err());
    }
}
