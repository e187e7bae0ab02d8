//! Kubernetes label selectors (`app=web,tier in (front, back),!legacy`), parsed as apimachinery's
//! `labels.Parse` reads them and matched against a map of labels (or of annotations: Flux's annotation
//! selectors use the same grammar). `helm list --selector` and the controller's drift ignore rules share it.

use std::collections::BTreeMap;

/// One requirement of a label selector.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    DoesNotExist(String),
}

impl Requirement {
    fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        match self {
            Requirement::Equals(key, value) => labels.get(key) == Some(value),
            Requirement::NotEquals(key, value) => labels.get(key) != Some(value),
            Requirement::In(key, values) => labels.get(key).is_some_and(|value| values.contains(value)),
            Requirement::NotIn(key, values) => labels.get(key).is_none_or(|value| !values.contains(value)),
            Requirement::Exists(key) => labels.contains_key(key),
            Requirement::DoesNotExist(key) => !labels.contains_key(key),
        }
    }
}

/// A parsed selector: every requirement must hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
}

impl LabelSelector {
    /// Kubernetes' `labels.Parse`: requirements separated by commas (outside parentheses).
    ///
    /// # Errors
    /// apimachinery's message (`unable to parse requirement: found '...' in selector '...'`).
    pub fn parse(selector: &str) -> Result<LabelSelector, String> {
        let mut parts = Vec::new();
        let (mut depth, mut start) = (0_i32, 0);
        for (index, character) in selector.char_indices() {
            match character {
                '(' => depth += 1,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&selector[start..index]);
                    start = index + 1;
                }
                _ => {}
            }
        }
        parts.push(&selector[start..]);
        let requirements =
            parts.into_iter().map(|part| requirement(part.trim(), selector)).collect::<Result<_, _>>()?;
        Ok(LabelSelector { requirements })
    }

    /// Whether `labels` satisfy every requirement.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.requirements.iter().all(|requirement| requirement.matches(labels))
    }
}

fn requirement(text: &str, selector: &str) -> Result<Requirement, String> {
    let invalid = || format!("unable to parse requirement: found '{text}' in selector '{selector}'");
    if text.is_empty() {
        return Err(invalid());
    }
    if let Some(key) = text.strip_prefix('!') {
        return Ok(Requirement::DoesNotExist(key.trim().to_string()));
    }
    for (operator, make) in [
        ("!=", Requirement::NotEquals as fn(String, String) -> Requirement),
        ("==", Requirement::Equals),
        ("=", Requirement::Equals),
    ] {
        if let Some((key, value)) = text.split_once(operator) {
            return Ok(make(key.trim().to_string(), value.trim().to_string()));
        }
    }
    for (operator, negated) in [(" notin ", true), (" in ", false)] {
        if let Some((key, values)) = text.split_once(operator) {
            let values =
                values.trim().strip_prefix('(').and_then(|values| values.strip_suffix(')')).ok_or_else(invalid)?;
            let values: Vec<String> = values.split(',').map(|value| value.trim().to_string()).collect();
            let key = key.trim().to_string();
            return Ok(if negated { Requirement::NotIn(key, values) } else { Requirement::In(key, values) });
        }
    }
    if text.contains(char::is_whitespace) {
        return Err(invalid());
    }
    Ok(Requirement::Exists(text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_parse_as_kubernetes_labels_parse() {
        let labels: BTreeMap<String, String> =
            [("a", "1"), ("b", "2")].iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        // (selector, matches)
        let table = [
            ("a=1", true),
            ("a==1,b=2", true),
            ("a!=1", false),
            ("a in (1, 3)", true),
            ("c", false),
            ("!c", true),
            ("a,b notin (2)", false),
        ];
        for (selector, expected) in table {
            let parsed = LabelSelector::parse(selector).expect("parses");
            assert_eq!(parsed.matches(&labels), expected, "{selector}");
        }
        for bad in ["", "a in 1", "a b", "a,,b"] {
            assert!(LabelSelector::parse(bad).is_err(), "{bad}");
        }
    }
}
