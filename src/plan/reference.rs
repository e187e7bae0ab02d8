//! Object references in the cli-utils `depends-on` format, as kpt and Config Sync write them.
//!
//! `<group>/namespaces/<namespace>/<Kind>/<name>` for a namespaced object, `<group>/<Kind>/<name>` for a
//! cluster-scoped one; the core group is empty (`/namespaces/default/ConfigMap/settings`). An annotation holds
//! several, separated by commas. The rules follow cli-utils' `pkg/object/dependson` parser: each reference is
//! trimmed; it has exactly 3 or 5 `/`-separated fields; in the 5-field form the second field is `namespaces`;
//! kind and name must not be empty (names are trimmed); an empty namespace means a cluster-scoped object; a
//! reference listed twice in one annotation is an error (cli-utils' `DuplicateDependencyError`).

use crate::object::ObjectRef;
use crate::object::validation::path_segment_name;
use std::fmt;

/// What a `depends-on` reference names: group and kind (no version), namespace and name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DependencyRef {
    /// Empty for the core group.
    pub group: String,
    pub kind: String,
    /// `None` for a cluster-scoped object.
    pub namespace: Option<String>,
    pub name: String,
}

const FORMS: &str = "`<group>/<Kind>/<name>` or `<group>/namespaces/<namespace>/<Kind>/<name>`";

impl DependencyRef {
    /// The reference to `object`.
    pub fn of(object: &ObjectRef) -> DependencyRef {
        DependencyRef {
            group: object.group().to_string(),
            kind: object.kind.clone(),
            namespace: object.namespace.clone(),
            name: object.name.clone(),
        }
    }

    /// Parses one reference.
    ///
    /// # Errors
    /// A message naming the reference and what is wrong with it.
    pub fn parse(text: &str) -> Result<DependencyRef, String> {
        let text = text.trim();
        let fields: Vec<&str> = text.split('/').collect();
        let (group, namespace, kind, name) = match fields.as_slice() {
            [group, kind, name] => (*group, None, *kind, *name),
            [group, namespaces, namespace, kind, name] => {
                if *namespaces != "namespaces" {
                    return Err(format!(
                        "`{text}`: the second of 5 fields must be `namespaces`, found `{namespaces}`; expected {FORMS}"
                    ));
                }
                (*group, Some(namespace.trim()).filter(|namespace| !namespace.is_empty()), *kind, *name)
            }
            _ => {
                return Err(format!(
                    "`{text}`: expected 3 or 5 fields separated by `/`, found {}: {FORMS}",
                    fields.len()
                ));
            }
        };
        let name = name.trim();
        if kind.is_empty() {
            return Err(format!("`{text}`: the kind is empty; expected {FORMS}"));
        }
        if name.is_empty() {
            return Err(format!("`{text}`: the name is empty; expected {FORMS}"));
        }
        // A name is one URL path segment when the reference is looked up.
        for (what, value) in [("name", Some(name)), ("namespace", namespace)] {
            if let Some(message) = value.and_then(|value| path_segment_name(value).into_iter().next()) {
                return Err(format!("`{text}`: the {what} {message}"));
            }
        }
        Ok(DependencyRef {
            group: group.to_string(),
            kind: kind.to_string(),
            namespace: namespace.map(str::to_string),
            name: name.to_string(),
        })
    }

    /// Parses a comma-separated list, as the annotation holds it.
    ///
    /// # Errors
    /// A message for the first reference that does not parse, an empty entry or a duplicate.
    pub fn parse_list(text: &str) -> Result<Vec<DependencyRef>, String> {
        if text.trim().is_empty() {
            return Err(format!("the value is empty; expected {FORMS}, separated by commas"));
        }
        let mut references = Vec::new();
        for (position, entry) in text.split(',').enumerate() {
            if entry.trim().is_empty() {
                return Err(format!("entry {} is empty (a stray comma?)", position + 1));
            }
            references.push(DependencyRef::parse(entry)?);
        }
        if references.len() > 1 {
            let mut sorted: Vec<&DependencyRef> = references.iter().collect();
            sorted.sort_unstable();
            if let Some(pair) = sorted.windows(2).find(|pair| pair[0] == pair[1]) {
                return Err(format!("`{}` is listed twice", pair[0]));
            }
        }
        Ok(references)
    }

    /// `Kind/namespace/name` or `Kind/name`, as [`ObjectRef`] displays itself.
    pub fn short(&self) -> String {
        match &self.namespace {
            Some(namespace) => format!("{}/{}/{}", self.kind, namespace, self.name),
            None => format!("{}/{}", self.kind, self.name),
        }
    }
}

impl fmt::Display for DependencyRef {
    /// The cli-utils form, as it would be written in the annotation.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(namespace) => write!(f, "{}/namespaces/{}/{}/{}", self.group, namespace, self.kind, self.name),
            None => write!(f, "{}/{}/{}", self.group, self.kind, self.name),
        }
    }
}
