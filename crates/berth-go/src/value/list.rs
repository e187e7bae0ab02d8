//! Go's `[]interface{}` as templates see it: an immutable, cheaply shared sequence.
//!
//! Sprig never changes a list in place (`append`, `prepend`, `without` return new lists), so a list is a
//! value: an `Arc<[Value]>` behind a newtype whose `Drop` unnests deep values without recursion (a template
//! can build `list (list (list ...))` a million levels deep; dropping that recursively would overflow the
//! stack).

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use super::Value;

/// An immutable list of values, shared on clone.
#[derive(Clone, Default)]
pub struct List(Arc<[Value]>);

impl List {
    /// A list of `items`.
    #[inline]
    pub fn new(items: Vec<Value>) -> Self {
        List(items.into())
    }

    /// The items.
    #[inline]
    pub fn as_slice(&self) -> &[Value] {
        &self.0
    }

    /// Whether both handles share the same storage.
    #[inline]
    pub fn ptr_eq(&self, other: &List) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// The shared storage.
    #[inline]
    pub fn as_arc(&self) -> &Arc<[Value]> {
        &self.0
    }

    pub(super) fn take_children_if_unique(&mut self, out: &mut Vec<Value>) {
        if let Some(items) = Arc::get_mut(&mut self.0) {
            if items.iter().all(Value::is_leaf) {
                return;
            }
            out.extend(items.iter_mut().map(std::mem::take));
        }
    }
}

impl Drop for List {
    fn drop(&mut self) {
        let mut children = Vec::new();
        self.take_children_if_unique(&mut children);
        super::drop_iteratively(children);
    }
}

impl Deref for List {
    type Target = [Value];
    #[inline]
    fn deref(&self) -> &[Value] {
        &self.0
    }
}

impl fmt::Debug for List {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter()).finish()
    }
}

impl From<Vec<Value>> for List {
    #[inline]
    fn from(items: Vec<Value>) -> Self {
        List(items.into())
    }
}

impl From<Arc<[Value]>> for List {
    #[inline]
    fn from(items: Arc<[Value]>) -> Self {
        List(items)
    }
}

impl From<&[Value]> for List {
    #[inline]
    fn from(items: &[Value]) -> Self {
        List(items.into())
    }
}

impl FromIterator<Value> for List {
    fn from_iter<I: IntoIterator<Item = Value>>(iter: I) -> Self {
        List(iter.into_iter().collect())
    }
}

impl<'a> IntoIterator for &'a List {
    type Item = &'a Value;
    type IntoIter = std::slice::Iter<'a, Value>;
    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropping_a_million_nested_lists_does_not_overflow() {
        let mut v = Value::Nil;
        for _ in 0..1_000_000 {
            v = Value::List(List::new(vec![v]));
        }
        drop(v);
    }

    #[test]
    fn shared_children_survive_the_parent() {
        let child = Value::List(List::new(vec![Value::Int(1)]));
        let parent = Value::List(List::new(vec![child.clone(), Value::Int(2)]));
        drop(parent);
        assert_eq!(child, Value::List(List::new(vec![Value::Int(1)])));
    }
}
