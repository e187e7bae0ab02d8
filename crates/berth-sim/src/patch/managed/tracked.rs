//! Which fields of an object managedFields track at all, as a borrowed view: the comparisons and field sets
//! of server-side apply read an object through [`tracked`] instead of a copy without the untracked fields.

use serde_json::Value;

/// Metadata a server owns, never tracked in managedFields (the apimachinery `stripMetaManager` set, plus
/// `deletionTimestamp`).
const UNTRACKED_METADATA: &[&str] = &[
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "managedFields",
    "deletionTimestamp",
    "selfLink",
    "clusterName",
];

/// Which part of an object a write may change: the main resource ignores `status`, the status subresource
/// ignores everything else (a real server's per-subresource reset fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    Main,
    Status,
}

impl Scope {
    pub(crate) fn of(subresource: Option<&str>) -> Scope {
        if subresource == Some("status") { Scope::Status } else { Scope::Main }
    }
}

/// The part of `object` whose fields are tracked in `scope`, borrowed: a view that leaves out the untracked
/// top-level and metadata fields (the objects a server-side apply compares can be megabytes; copying them
/// without those fields took most of an apply's time).
pub(crate) fn tracked(object: &Value, scope: Scope) -> Node<'_> {
    Node { value: object, view: View::Root(scope) }
}

/// Which entries of a map a [`Node`] shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum View {
    /// The value as it is.
    Whole,
    /// The tracked fields of an object in a scope (`{}` for a value that is not an object).
    Root(Scope),
    /// An object's metadata without the fields a server owns.
    Metadata,
}

/// A value as the field walkers (comparison, field sets, list checks) read it: whole, or the tracked part of
/// an object's root or metadata.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node<'a> {
    value: &'a Value,
    view: View,
}

impl<'a> Node<'a> {
    pub(crate) fn whole(value: &'a Value) -> Node<'a> {
        Node { value, view: View::Whole }
    }

    /// The value, when the node shows all of it (every node below the root and metadata does).
    pub(crate) fn as_whole(self) -> Option<&'a Value> {
        (self.view == View::Whole).then_some(self.value)
    }

    pub(crate) fn is_map(self) -> bool {
        self.view != View::Whole || self.value.is_object()
    }

    pub(crate) fn as_array(self) -> Option<&'a Vec<Value>> {
        self.as_whole().and_then(Value::as_array)
    }

    /// The entries shown, in key order (none for a value that is not a map).
    pub(crate) fn entries(self) -> impl Iterator<Item = (&'a String, Node<'a>)> {
        let map = self.value.as_object().filter(|_| self.is_map());
        map.into_iter().flatten().filter_map(move |(key, value)| self.child(key, value).map(|child| (key, child)))
    }

    pub(crate) fn get(self, key: &str) -> Option<Node<'a>> {
        let value = self.value.as_object()?.get(key)?;
        self.child(key, value)
    }

    pub(crate) fn is_empty_map(self) -> bool {
        self.is_map() && self.entries().next().is_none()
    }

    /// Whether both nodes show the same value.
    pub(crate) fn same(self, other: Node<'_>) -> bool {
        match (self.as_whole(), other.as_whole()) {
            (Some(value), Some(other)) => value == other,
            _ if self.is_map() && other.is_map() => {
                let mut left = self.entries();
                let mut right = other.entries();
                loop {
                    match (left.next(), right.next()) {
                        (None, None) => return true,
                        (Some((left_key, left)), Some((right_key, right)))
                            if left_key == right_key && left.same(right) => {}
                        _ => return false,
                    }
                }
            }
            _ => false,
        }
    }

    /// The entry `key: value` of this node's map as shown, or `None` when it is left out. The root's metadata
    /// is left out when none of its fields is tracked, as the structured-merge-diff `stripMetaManager` leaves
    /// an empty `metadata`.
    fn child(self, key: &str, value: &'a Value) -> Option<Node<'a>> {
        match self.view {
            View::Whole => Some(Node::whole(value)),
            View::Root(Scope::Status) => (key == "status").then_some(Node::whole(value)),
            View::Root(Scope::Main) if matches!(key, "apiVersion" | "kind" | "status") => None,
            View::Root(Scope::Main) if key == "metadata" && value.is_object() => {
                let metadata = Node { value, view: View::Metadata };
                (!metadata.is_empty_map()).then_some(metadata)
            }
            View::Root(Scope::Main) => Some(Node::whole(value)),
            View::Metadata => (!UNTRACKED_METADATA.contains(&key)).then_some(Node::whole(value)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys(node: Node<'_>) -> Vec<&str> {
        node.entries().map(|(key, _)| key.as_str()).collect()
    }

    #[test]
    fn the_view_shows_what_a_scope_tracks() {
        let object = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "1"}, "status": {"phase": "x"},
            "metadata": {"name": "c", "namespace": "d", "managedFields": [], "labels": {"app": "c"}}});
        let main = tracked(&object, Scope::Main);
        assert_eq!(keys(main), ["data", "metadata"]);
        assert_eq!(main.get("metadata").map(keys), Some(vec!["labels"]));
        assert!(main.get("status").is_none() && main.get("kind").is_none());
        assert_eq!(keys(tracked(&object, Scope::Status)), ["status"]);
        let untracked_metadata = json!({"metadata": {"name": "c", "resourceVersion": "5"}, "data": {}});
        assert_eq!(
            keys(tracked(&untracked_metadata, Scope::Main)),
            ["data"],
            "metadata with nothing tracked is left out"
        );
        assert!(tracked(&json!("text"), Scope::Main).is_empty_map(), "a value that is not an object tracks nothing");
    }

    #[test]
    fn views_are_the_same_when_what_they_show_is() {
        let labelled = |name: &str, version: &str| json!({"metadata": {"name": name, "resourceVersion": version, "labels": {"a": "1"}}, "spec": {"x": 1}});
        let (one, other) = (labelled("a", "1"), labelled("b", "2"));
        assert!(tracked(&one, Scope::Main).same(tracked(&other, Scope::Main)));
        let relabelled = json!({"metadata": {"name": "a", "labels": {"a": "2"}}, "spec": {"x": 1}});
        assert!(!tracked(&one, Scope::Main).same(tracked(&relabelled, Scope::Main)));
        assert!(!tracked(&one, Scope::Main).same(Node::whole(&one)), "the whole object shows more");
    }
}
