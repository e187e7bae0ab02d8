//! Nil maps and slices with a type: Go values that hold nothing but are not the nil interface.

use std::fmt;

use super::{Kind, Object, Value};

/// A nil `map[string]interface{}` or `[]interface{}` held in an `interface{}`: what `json.Unmarshal` leaves for
/// `null` in Helm's `fromJson` and `fromJsonArray`, and what Sprig's `concat`, `rest` and `initial` return for
/// no elements. It is not nil to `reflect` (`typeOf`, `kindOf`, Sprig's list functions take it), prints as an
/// empty one (`map[]`, `[]`), has no elements and encodes as JSON `null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NilCollection {
    Map,
    Slice,
}

impl Object for NilCollection {
    fn type_name(&self) -> &str {
        match self {
            NilCollection::Map => "map[string]interface {}",
            NilCollection::Slice => "[]interface {}",
        }
    }

    fn kind(&self) -> Kind {
        match self {
            NilCollection::Map => Kind::Map,
            NilCollection::Slice => Kind::Slice,
        }
    }

    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NilCollection::Map => "map[]",
            NilCollection::Slice => "[]",
        })
    }

    fn to_data(&self) -> Value {
        Value::Nil
    }

    fn length(&self) -> Option<usize> {
        Some(0)
    }

    /// Maps and slices are not comparable in Go.
    fn equals(&self, _other: &dyn Object) -> Option<bool> {
        None
    }
}
