//! Finding the rule for an object: the lookup shared by the user's rules file and the built-in rules.
//!
//! An entry covers a group and a kind, a whole group, or, with `apiVersion: '*'`, objects of any group that
//! carry one of the fields its `match` names (how Crossplane's managed and composite resources are recognised:
//! their groups are chosen by providers and users). For an object the most specific entry wins: the kind's
//! entry, else the group's, else the first any-group entry (in file order) whose kind and fields fit.
//! Any-group entries only apply to custom resources, recognised by a group with a dot (a CRD's group must have
//! one; `apps` or the core group cannot), so Deployments and ConfigMaps never pay for the field checks. Lookups
//! borrow the object's group and kind: no allocation on the path every watch event takes.

use serde_json::Value;
use std::collections::HashMap;

/// The group an any-group entry names (`apiVersion: '*'`).
pub const ANY_GROUP: &str = "*";

/// Whether `group` can be a custom resource's group: CustomResourceDefinitions require a dot in it.
pub fn is_custom_group(group: &str) -> bool {
    group.contains('.')
}

/// A field path from the object's root (`spec.forProvider`), one step per key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPath {
    text: String,
    steps: Vec<String>,
}

impl FieldPath {
    /// Parses `spec.forProvider`; `None` for an empty path or an empty step (`spec..x`).
    pub fn parse(text: &str) -> Option<FieldPath> {
        let steps: Vec<String> = text.split('.').map(str::to_string).collect();
        if text.is_empty() || steps.iter().any(String::is_empty) {
            return None;
        }
        Some(FieldPath { text: text.to_string(), steps })
    }

    /// Whether the object has a non-null value at this path.
    pub fn is_present(&self, object: &Value) -> bool {
        let mut current = object;
        for step in &self.steps {
            match current.get(step.as_str()) {
                Some(next) => current = next,
                None => return false,
            }
        }
        !current.is_null()
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }
}

/// What one entry covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage {
    /// The group, or [`ANY_GROUP`].
    pub group: String,
    pub kind: Option<String>,
    /// For any-group entries: the entry applies when one of these fields is present.
    pub match_fields: Vec<FieldPath>,
}

impl Coverage {
    fn fits_any_group(&self, kind: &str, object: &Value) -> bool {
        self.kind.as_deref().is_none_or(|own| own == kind)
            && self.match_fields.iter().any(|path| path.is_present(object))
    }
}

/// An entry that [`RuleTable`] can hold.
pub trait Covers {
    fn coverage(&self) -> &Coverage;
    /// The entry's 0-based position in its file's list, for messages.
    fn index(&self) -> usize;
}

#[derive(Debug, Default)]
struct GroupEntries {
    kinds: HashMap<String, usize>,
    whole: Option<usize>,
}

/// Entries and the indexes that find the one for an object.
#[derive(Debug)]
pub struct RuleTable<T> {
    entries: Vec<T>,
    groups: HashMap<String, GroupEntries>,
    any_group: Vec<usize>,
}

impl<T> Default for RuleTable<T> {
    fn default() -> Self {
        RuleTable { entries: Vec::new(), groups: HashMap::new(), any_group: Vec::new() }
    }
}

impl<T: Covers> RuleTable<T> {
    /// Adds `entry`; when an entry already covers the same group and kind (or the same whole group), the entry
    /// is not added and the first one's position in the table is returned. Any-group entries never clash: each
    /// names its own fields.
    pub fn insert(&mut self, entry: T) -> Result<(), usize> {
        let position = self.entries.len();
        let coverage = entry.coverage();
        if coverage.group == ANY_GROUP {
            self.any_group.push(position);
        } else {
            let group = self.groups.entry(coverage.group.clone()).or_default();
            let slot = match &coverage.kind {
                Some(kind) => group.kinds.entry(kind.clone()).or_insert(position),
                None => group.whole.get_or_insert(position),
            };
            if *slot != position {
                return Err(*slot);
            }
        }
        self.entries.push(entry);
        Ok(())
    }

    /// The entry at `position` (as [`RuleTable::insert`] reports it).
    pub fn get(&self, position: usize) -> Option<&T> {
        self.entries.get(position)
    }

    /// The entry of `group` for `kind`: the kind's entry, else the group's.
    pub fn find_exact(&self, group: &str, kind: &str) -> Option<&T> {
        let entries = self.groups.get(group)?;
        let position = entries.kinds.get(kind).or(entries.whole.as_ref())?;
        self.entries.get(*position)
    }

    /// The first any-group entry whose kind and fields fit the object.
    pub fn find_any_group(&self, kind: &str, object: &Value) -> Option<&T> {
        self.any_group
            .iter()
            .filter_map(|position| self.entries.get(*position))
            .find(|entry| entry.coverage().fits_any_group(kind, object))
    }

    /// The most specific entry for an object of `group` and `kind`.
    pub fn find(&self, group: &str, kind: &str, object: &Value) -> Option<&T> {
        self.find_exact(group, kind).or_else(|| self.find_any_group(kind, object).filter(|_| is_custom_group(group)))
    }

    pub fn entries(&self) -> &[T] {
        &self.entries
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    impl Covers for Coverage {
        fn coverage(&self) -> &Coverage {
            self
        }

        fn index(&self) -> usize {
            0
        }
    }

    fn coverage(group: &str, kind: Option<&str>, fields: &[&str]) -> Coverage {
        Coverage {
            group: group.to_string(),
            kind: kind.map(str::to_string),
            match_fields: fields.iter().filter_map(|field| FieldPath::parse(field)).collect(),
        }
    }

    #[test]
    fn kind_beats_group_beats_any_group_and_duplicates_are_refused() {
        let mut table = RuleTable::default();
        assert_eq!(table.insert(coverage("example.com", Some("Widget"), &[])), Ok(()));
        assert_eq!(table.insert(coverage("example.com", None, &[])), Ok(()));
        assert_eq!(table.insert(coverage(ANY_GROUP, None, &["spec.forProvider"])), Ok(()));
        assert_eq!(table.insert(coverage(ANY_GROUP, Some("Gadget"), &["spec.a", "spec.b"])), Ok(()));
        assert_eq!(table.insert(coverage("example.com", Some("Widget"), &[])), Err(0));
        assert_eq!(table.insert(coverage("example.com", None, &[])), Err(1));
        assert_eq!(table.len(), 4);

        let managed = json!({"spec": {"forProvider": {"region": "eu"}, "b": 1}});
        let plain = json!({"spec": {"forProvider": null}});
        let found = |group: &str, kind: &str, object: &Value| {
            table.find(group, kind, object).map(|entry| (entry.group.clone(), entry.kind.clone()))
        };
        assert_eq!(found("example.com", "Widget", &plain), Some(("example.com".into(), Some("Widget".into()))));
        assert_eq!(found("example.com", "Other", &managed), Some(("example.com".into(), None)));
        assert_eq!(found("s3.aws.upbound.io", "Bucket", &managed), Some(("*".into(), None)));
        assert_eq!(found("s3.aws.upbound.io", "Bucket", &plain), None);
        assert_eq!(found("other.io", "Gadget", &json!({"spec": {"b": {}}})), Some(("*".into(), Some("Gadget".into()))));
        assert_eq!(found("other.io", "Widget", &json!({"spec": {"b": {}}})), None);
        assert_eq!(found("apps", "Deployment", &managed), None, "any-group entries are for custom resources");
    }

    #[test]
    fn field_paths_need_every_step() {
        assert!(FieldPath::parse("").is_none());
        assert!(FieldPath::parse("spec..x").is_none());
        let path = FieldPath::parse("spec.crossplane.compositionRef").expect("valid");
        assert!(path.is_present(&json!({"spec": {"crossplane": {"compositionRef": {"name": "a"}}}})));
        assert!(!path.is_present(&json!({"spec": {"crossplane": {}}})));
        assert!(!path.is_present(&json!({"spec": ["crossplane"]})));
    }
}
