//! The values templates compute with: Go's `interface{}` as Helm's data and Sprig's results hold it.
//!
//! Go's template engine inspects arbitrary types by reflection; here data travels as a [`Value`]: nil,
//! booleans, Go's numeric types that charts can observe apart (`int`, `int64`, `uint64`, `float64`),
//! strings, immutable lists, shared mutable maps (Go's reference semantics, see [`Map`]), functions and
//! host objects (see [`Object`]). Printing follows `fmt`'s `%v`; printing, comparing and copying stop at
//! [`MAX_DEPTH`] levels, since a map can contain itself.
//!
//! ```
//! use berth_go::{tmap, ToValue};
//!
//! let data = tmap! {
//!     "Name" => "Alice",
//!     "Age" => 30i64,
//!     "Tags" => vec!["admin".to_string(), "user".to_string()],
//! };
//! ```

mod format;
mod gotype;
mod list;
mod map;
mod nil;
mod object;
mod raw;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::error::{Result, TemplateError};

pub use format::{MAX_DEPTH, TooDeep};
pub use format::{WriteError, write_value};
pub use gotype::GoType;
pub use list::List;
pub use map::{Entries, Map};
pub use nil::NilCollection;
pub(crate) use object::ObjectDisplay as ObjectText;
pub use object::ObjectPrinted;
pub use object::{Kind, Object, Signature};
pub use raw::RawString;

/// A function stored in a value ([`Value::Function`]), called by the `call` builtin.
///
/// ```
/// use std::sync::Arc;
/// use berth_go::{Value, ValueFunc};
///
/// let add: ValueFunc = Arc::new(|args| {
///     let sum: i64 = args.iter().filter_map(|a| a.as_int()).sum();
///     Ok(Value::Int(sum))
/// });
/// assert_eq!(add(&[Value::Int(2), Value::Int(3)]).unwrap(), Value::Int(5));
/// ```
pub type ValueFunc = Arc<dyn Fn(&[Value]) -> Result<Value> + Send + Sync>;

/// The Go type `%T` prints for a [`Value::Function`].
pub const FUNC_TYPE_NAME: &str = "func(...interface {}) (interface {}, error)";

/// A template value: Go's `interface{}` as Helm's data and Sprig's functions hold it.
///
/// Truthiness (`if`, `with`, `and`, `or`, `not`) is Go's: nil, `false`, zero numbers, empty strings, lists
/// and maps are false; functions and structs are true; an [`Object`] decides by its kind.
#[derive(Clone, Default)]
pub enum Value {
    /// Go's `nil` (a nil `interface{}`).
    #[default]
    Nil,
    /// `bool`.
    Bool(bool),
    /// Go's `int`: integer literals, `len`, `range` counters, Sprig's `int` and `atoi`.
    Int(i64),
    /// Go's `int64`: Sprig's arithmetic (`add`, `sub`, `max`...), `int64`, `--set` numbers.
    Int64(i64),
    /// Go's `uint64` (semver's `Major`, `Minor`, `Patch`; unsigned Rust integers).
    Uint(u64),
    /// Go's `float64`: every number in values files and JSON, float literals.
    Float(f64),
    /// `string`.
    String(Arc<str>),
    /// `[]interface{}`: immutable, shared on clone.
    List(List),
    /// `map[string]interface{}`: shared and mutable, as Go maps are.
    Map(Map),
    /// A Go func value, called through `call` (a func-typed field is never called implicitly).
    Function(ValueFunc),
    /// A host object with a Go type, fields and methods.
    Object(Arc<dyn Object>),
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Nil => write!(f, "Nil"),
            Value::Bool(b) => write!(f, "Bool({b:?})"),
            Value::Int(n) => write!(f, "Int({n:?})"),
            Value::Int64(n) => write!(f, "Int64({n:?})"),
            Value::Uint(n) => write!(f, "Uint({n:?})"),
            Value::Float(v) => write!(f, "Float({v:?})"),
            Value::String(s) => write!(f, "String({s:?})"),
            Value::List(v) => write!(f, "List({v:?})"),
            Value::Map(m) => write!(f, "Map({m:?})"),
            Value::Function(_) => write!(f, "Function(...)"),
            Value::Object(o) => write!(f, "Object({o:?})"),
        }
    }
}

/// Drops values without recursion: children that are uniquely owned are moved onto a work list first.
pub(crate) fn drop_iteratively(mut pending: Vec<Value>) {
    while let Some(mut value) = pending.pop() {
        match &mut value {
            Value::List(list) => list.take_children_if_unique(&mut pending),
            Value::Map(map) => map.take_children_if_unique(&mut pending),
            _ => {}
        }
    }
}

impl Value {
    /// A value holding a host object.
    pub fn object(object: impl Object) -> Value {
        Value::Object(Arc::new(object))
    }

    /// A new map value from `(key, value)` pairs.
    pub fn map<K: Into<Arc<str>>>(entries: impl IntoIterator<Item = (K, Value)>) -> Value {
        Value::Map(entries.into_iter().collect())
    }

    /// A new list value.
    pub fn list(items: impl IntoIterator<Item = Value>) -> Value {
        Value::List(items.into_iter().collect())
    }

    /// Whether the value holds no other values (so dropping it cannot recurse).
    #[inline]
    pub(crate) fn is_leaf(&self) -> bool {
        !matches!(self, Value::List(_) | Value::Map(_))
    }

    /// Whether the value is "true" as Go's `if` sees it.
    pub fn is_truthy(&self) -> bool {
        match self {
            Value::Nil => false,
            Value::Bool(b) => *b,
            Value::Int(n) | Value::Int64(n) => *n != 0,
            Value::Uint(n) => *n != 0,
            Value::Float(f) => *f != 0.0,
            Value::String(s) => !s.is_empty(),
            Value::List(v) => !v.is_empty(),
            Value::Map(m) => !m.is_empty(),
            Value::Function(_) => true,
            Value::Object(o) => o.is_truthy(),
        }
    }

    /// The value under key `name` of a map, if the key is present (its value may be [`Value::Nil`]).
    /// `None` for missing keys and for values that are not maps.
    ///
    /// ```
    /// use berth_go::{tmap, Value};
    ///
    /// let data = tmap! { "Name" => "Alice", "Empty" => Value::Nil };
    /// assert_eq!(data.field("Name"), Some(Value::String("Alice".into())));
    /// assert_eq!(data.field("Empty"), Some(Value::Nil));
    /// assert_eq!(data.field("Missing"), None);
    /// assert_eq!(Value::Int(1).field("x"), None);
    /// ```
    #[inline]
    pub fn field(&self, name: &str) -> Option<Value> {
        match self {
            Value::Map(m) => m.get(name),
            _ => None,
        }
    }

    /// The Go type as `%T` prints it.
    pub fn type_name(&self) -> &str {
        match self {
            Value::Nil => "<nil>",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Int64(_) => "int64",
            Value::Uint(_) => "uint64",
            Value::Float(_) => "float64",
            Value::String(_) => "string",
            Value::List(_) => "[]interface {}",
            Value::Map(_) => "map[string]interface {}",
            Value::Function(_) => FUNC_TYPE_NAME,
            Value::Object(o) => o.type_name(),
        }
    }

    /// The reflect kind as Sprig's `kindOf` prints it (`invalid` for nil).
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Nil => "invalid",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Int64(_) => "int64",
            Value::Uint(_) => "uint64",
            Value::Float(_) => "float64",
            Value::String(_) => "string",
            Value::List(_) => "slice",
            Value::Map(_) => "map",
            Value::Function(_) => "func",
            Value::Object(o) => o.kind().go_name(),
        }
    }

    /// The length of a string (in bytes), list, map, or map/slice-kind object; `None` otherwise.
    #[inline]
    pub fn len(&self) -> Option<usize> {
        match self {
            Value::String(s) => Some(s.len()),
            Value::List(v) => Some(v.len()),
            Value::Map(m) => Some(m.len()),
            Value::Object(o) => o.length(),
            _ => None,
        }
    }

    /// `Some(true)` if the value has a length and it is zero.
    #[inline]
    pub fn is_empty(&self) -> Option<bool> {
        self.len().map(|n| n == 0)
    }

    /// The string, if this is a [`Value::String`].
    #[inline]
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The integer of an `Int`, `Int64` or `Uint` (wrapping above `i64::MAX`), or a float truncated.
    #[inline]
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(n) | Value::Int64(n) => Some(*n),
            Value::Uint(n) => Some(*n as i64),
            Value::Float(f) => Some(*f as i64),
            _ => None,
        }
    }

    /// The number as a float.
    #[inline]
    pub fn as_float(&self) -> Option<f64> {
        match self {
            Value::Float(f) => Some(*f),
            Value::Int(n) | Value::Int64(n) => Some(*n as f64),
            Value::Uint(n) => Some(*n as f64),
            _ => None,
        }
    }

    /// The boolean, if this is a [`Value::Bool`].
    #[inline]
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The map, if this is a [`Value::Map`].
    #[inline]
    pub fn as_map(&self) -> Option<&Map> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The list items, if this is a [`Value::List`].
    #[inline]
    pub fn as_list(&self) -> Option<&List> {
        match self {
            Value::List(l) => Some(l),
            _ => None,
        }
    }

    /// The object, if this is a [`Value::Object`].
    #[inline]
    pub fn as_object(&self) -> Option<&dyn Object> {
        match self {
            Value::Object(o) => Some(o.as_ref()),
            _ => None,
        }
    }

    /// Returns `true` if this is a [`Value::Function`].
    #[inline]
    pub fn is_function(&self) -> bool {
        matches!(self, Value::Function(_))
    }

    /// `fmt.Sprint(value)`: Go's `%v` text, or an error when the value nests deeper than [`MAX_DEPTH`]
    /// (a map that contains itself).
    pub fn to_go_string(&self) -> std::result::Result<String, TooDeep> {
        let mut out = String::new();
        match write_value(&mut out, self, 0) {
            Ok(()) => Ok(out),
            Err(_) => Err(TooDeep),
        }
    }

    /// A copy sharing nothing mutable with `self`: every nested map is copied (lists and objects are
    /// immutable and stay shared). Errors past [`MAX_DEPTH`] levels (a map that contains itself).
    ///
    /// A value that holds the same map many times (built by doubling) copies each time it is held, as Go's
    /// `copystructure` does: the copy's size is asked of the render's byte budget as it grows.
    pub fn deep_copy(&self) -> Result<Value> {
        self.deep_copy_at(0, &mut 0)
    }

    fn deep_copy_at(&self, depth: usize, copied: &mut usize) -> Result<Value> {
        if depth > MAX_DEPTH {
            return Err(TemplateError::Exec(TooDeep.to_string()));
        }
        Ok(match self {
            Value::List(items) => {
                if items.iter().all(Value::is_leaf) {
                    return Ok(self.clone());
                }
                *copied = copied.saturating_add(items.len() * size_of::<Value>());
                crate::budget::ensure(*copied)?;
                Value::List(items.iter().map(|v| v.deep_copy_at(depth + 1, copied)).collect::<Result<List>>()?)
            }
            Value::Map(map) => {
                let snapshot = map.snapshot();
                *copied = copied.saturating_add(snapshot.len() * size_of::<(Arc<str>, Value)>());
                crate::budget::ensure(*copied)?;
                let mut entries = Entries::new();
                for (k, v) in snapshot.iter() {
                    entries.insert(Arc::clone(k), v.deep_copy_at(depth + 1, copied)?);
                }
                Value::Map(Map::from_entries(entries))
            }
            other => other.clone(),
        })
    }

    /// Creates a [`Value::Map`] from a fixed-size array of key-value pairs (used by [`tmap!`](crate::tmap)).
    #[doc(hidden)]
    pub fn from_entries<const N: usize>(entries: [(String, Value); N]) -> Self {
        Value::Map(entries.into_iter().map(|(k, v)| (Arc::<str>::from(k), v)).collect())
    }
}

impl fmt::Display for Value {
    /// Go's `%v`. A value nested deeper than [`MAX_DEPTH`] prints up to that depth followed by
    /// `<too deep>`; use [`Value::to_go_string`] to get an error instead.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match write_value(f, self, 0) {
            Ok(()) => Ok(()),
            Err(WriteError::Fmt) => Err(fmt::Error),
            Err(WriteError::TooDeep) => f.write_str("<too deep>"),
            // The render's meter stays exhausted and its engine reports it after the call: the text is cut here.
            Err(WriteError::Exhausted(_)) => Ok(()),
        }
    }
}

/// Rust-side structural equality (not Go's `eq`, which lives with the builtins): same variant and same
/// contents; maps compare by contents, objects by [`Object::equals`]. Past [`MAX_DEPTH`] levels values
/// compare unequal.
impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        values_equal(self, other, 0)
    }
}

fn values_equal(a: &Value, b: &Value, depth: usize) -> bool {
    // Two values built by doubling compare in exponential time: a render that must stop (its meter stays
    // exhausted, and its engine reports it) stops comparing.
    if depth > MAX_DEPTH || crate::budget::check().is_err() {
        return false;
    }
    match (a, b) {
        (Value::Nil, Value::Nil) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Int(a), Value::Int(b)) | (Value::Int64(a), Value::Int64(b)) => a == b,
        (Value::Uint(a), Value::Uint(b)) => a == b,
        (Value::Float(a), Value::Float(b)) => a == b,
        (Value::String(a), Value::String(b)) => a == b,
        (Value::List(a), Value::List(b)) => {
            a.ptr_eq(b) || (a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| values_equal(x, y, depth + 1)))
        }
        (Value::Map(a), Value::Map(b)) => {
            if a.ptr_eq(b) {
                return true;
            }
            let (a, b) = (a.snapshot(), b.snapshot());
            a.len() == b.len()
                && a.iter().zip(b.iter()).all(|((ka, va), (kb, vb))| ka == kb && values_equal(va, vb, depth + 1))
        }
        (Value::Function(a), Value::Function(b)) => Arc::ptr_eq(a, b),
        (Value::Object(a), Value::Object(b)) => a.equals(b.as_ref()).unwrap_or(false),
        _ => false,
    }
}

/// Ordering for same-variant numbers and strings; `None` otherwise.
impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        match (self, other) {
            (Value::Int(a), Value::Int(b)) | (Value::Int64(a), Value::Int64(b)) => a.partial_cmp(b),
            (Value::Uint(a), Value::Uint(b)) => a.partial_cmp(b),
            (Value::Float(a), Value::Float(b)) => a.partial_cmp(b),
            (Value::String(a), Value::String(b)) => a.partial_cmp(b),
            _ => None,
        }
    }
}

/// Trait for converting Rust types into template [`Value`]s.
///
/// Standing in for Go's ability to pass any type to `template.Execute()`.
/// Blanket impls cover common types; implement it on your own types to pass
/// them as template data.
///
/// # Examples
///
/// ```
/// use berth_go::{Value, ToValue};
///
/// assert_eq!(42i64.to_value(), Value::Int(42));
/// assert_eq!("hello".to_value(), Value::String("hello".into()));
/// assert_eq!(true.to_value(), Value::Bool(true));
///
/// let none: Option<i64> = None;
/// assert_eq!(none.to_value(), Value::Nil);
/// ```
pub trait ToValue {
    /// Convert this value into a template [`Value`].
    fn to_value(&self) -> Value;
}

impl ToValue for Value {
    #[inline]
    fn to_value(&self) -> Value {
        self.clone()
    }
}

impl ToValue for bool {
    #[inline]
    fn to_value(&self) -> Value {
        Value::Bool(*self)
    }
}

macro_rules! impl_to_value_int {
    ($($t:ty),*) => {
        $(impl ToValue for $t {
            #[inline]
            fn to_value(&self) -> Value {
                Value::Int(*self as i64)
            }
        })*
    };
}

macro_rules! impl_to_value_uint {
    ($($t:ty),*) => {
        $(impl ToValue for $t {
            #[inline]
            fn to_value(&self) -> Value {
                Value::Uint(*self as u64)
            }
        })*
    };
}

// Signed integers map to `Value::Int`; unsigned integers map to `Value::Uint`,
// mirroring Go's distinct signed/unsigned reflect kinds. Keeping the unsigned
// family in `Value::Uint` is what lets `u64::MAX` render and compare as its
// true value instead of wrapping to `Value::Int(-1)`.
impl_to_value_int!(i8, i16, i32, i64, isize);
impl_to_value_uint!(u8, u16, u32, u64, usize);

impl ToValue for f32 {
    #[inline]
    fn to_value(&self) -> Value {
        Value::Float(*self as f64)
    }
}

impl ToValue for f64 {
    #[inline]
    fn to_value(&self) -> Value {
        Value::Float(*self)
    }
}

impl ToValue for str {
    #[inline]
    fn to_value(&self) -> Value {
        Value::String(Arc::from(self))
    }
}

impl ToValue for String {
    #[inline]
    fn to_value(&self) -> Value {
        Value::String(Arc::from(self.as_str()))
    }
}

impl ToValue for std::borrow::Cow<'_, str> {
    #[inline]
    fn to_value(&self) -> Value {
        Value::String(Arc::from(self.as_ref()))
    }
}

impl<T: ToValue + ?Sized> ToValue for &T {
    #[inline]
    fn to_value(&self) -> Value {
        (*self).to_value()
    }
}

/// Converts `Some(v)` to `v.to_value()` and `None` to [`Value::Nil`].
impl<T: ToValue> ToValue for Option<T> {
    #[inline]
    fn to_value(&self) -> Value {
        match self {
            Some(v) => v.to_value(),
            None => Value::Nil,
        }
    }
}

fn list_from_iter<'a, T: ToValue + 'a, I: IntoIterator<Item = &'a T>>(iter: I) -> Value {
    Value::List(iter.into_iter().map(ToValue::to_value).collect())
}

fn map_from_iter_str<'a, T: ToValue + 'a, I: IntoIterator<Item = (&'a str, &'a T)>>(iter: I) -> Value {
    Value::Map(iter.into_iter().map(|(k, v)| (Arc::<str>::from(k), v.to_value())).collect())
}

impl<T: ToValue> ToValue for [T] {
    #[inline]
    fn to_value(&self) -> Value {
        list_from_iter(self.iter())
    }
}

impl<T: ToValue, const N: usize> ToValue for [T; N] {
    #[inline]
    fn to_value(&self) -> Value {
        list_from_iter(self.iter())
    }
}

impl<T: ToValue> ToValue for Vec<T> {
    #[inline]
    fn to_value(&self) -> Value {
        list_from_iter(self.iter())
    }
}

impl<T: ToValue> ToValue for std::collections::VecDeque<T> {
    #[inline]
    fn to_value(&self) -> Value {
        list_from_iter(self.iter())
    }
}

impl<T: ToValue> ToValue for std::collections::LinkedList<T> {
    #[inline]
    fn to_value(&self) -> Value {
        list_from_iter(self.iter())
    }
}

impl<T: ToValue> ToValue for std::collections::BTreeSet<T> {
    #[inline]
    fn to_value(&self) -> Value {
        list_from_iter(self.iter())
    }
}

impl<T: ToValue> ToValue for std::collections::HashSet<T> {
    #[inline]
    fn to_value(&self) -> Value {
        // Collect and sort for deterministic output.
        let mut items: Vec<Value> = self.iter().map(ToValue::to_value).collect();
        items.sort_by(|a, b| a.partial_cmp(b).unwrap_or(core::cmp::Ordering::Equal));
        Value::List(items.into())
    }
}

impl<T: ToValue> ToValue for BTreeMap<String, T> {
    #[inline]
    fn to_value(&self) -> Value {
        map_from_iter_str(self.iter().map(|(k, v)| (k.as_str(), v)))
    }
}

impl<T: ToValue> ToValue for BTreeMap<&str, T> {
    #[inline]
    fn to_value(&self) -> Value {
        map_from_iter_str(self.iter().map(|(k, v)| (*k, v)))
    }
}

impl<T: ToValue> ToValue for std::collections::HashMap<String, T> {
    #[inline]
    fn to_value(&self) -> Value {
        map_from_iter_str(self.iter().map(|(k, v)| (k.as_str(), v)))
    }
}

impl<T: ToValue> ToValue for std::collections::HashMap<&str, T> {
    #[inline]
    fn to_value(&self) -> Value {
        map_from_iter_str(self.iter().map(|(k, v)| (*k, v)))
    }
}

impl From<&str> for Value {
    #[inline]
    fn from(s: &str) -> Self {
        Value::String(Arc::from(s))
    }
}

impl From<String> for Value {
    #[inline]
    fn from(s: String) -> Self {
        Value::String(Arc::from(s))
    }
}

impl From<BTreeMap<String, Value>> for Value {
    #[inline]
    fn from(m: BTreeMap<String, Value>) -> Self {
        Value::Map(m.into_iter().map(|(k, v)| (Arc::<str>::from(k), v)).collect())
    }
}

impl From<BTreeMap<Arc<str>, Value>> for Value {
    #[inline]
    fn from(m: BTreeMap<Arc<str>, Value>) -> Self {
        Value::Map(Map::from_entries(m))
    }
}

impl From<Vec<Value>> for Value {
    #[inline]
    fn from(v: Vec<Value>) -> Self {
        Value::List(v.into())
    }
}

impl From<Arc<str>> for Value {
    #[inline]
    fn from(s: Arc<str>) -> Self {
        Value::String(s)
    }
}

impl From<Arc<[Value]>> for Value {
    #[inline]
    fn from(v: Arc<[Value]>) -> Self {
        Value::List(List::from(v))
    }
}

impl From<List> for Value {
    #[inline]
    fn from(v: List) -> Self {
        Value::List(v)
    }
}

impl From<Map> for Value {
    #[inline]
    fn from(m: Map) -> Self {
        Value::Map(m)
    }
}

/// Converts a [`std::collections::HashMap<String, Value>`] into a [`Value::Map`].
///
/// Useful when data is already in a `HashMap` and should be passed to a
/// template without first converting to `BTreeMap`.
///
/// # Examples
///
/// ```
/// use std::collections::HashMap;
/// use berth_go::Value;
///
/// let mut hm = HashMap::new();
/// hm.insert("key".to_string(), Value::Int(42));
/// let val = Value::from(hm);
/// assert!(matches!(val, Value::Map(_)));
/// ```
impl From<std::collections::HashMap<String, Value>> for Value {
    #[inline]
    fn from(m: std::collections::HashMap<String, Value>) -> Self {
        Value::Map(m.into_iter().map(|(k, v)| (Arc::<str>::from(k), v)).collect())
    }
}

/// Creates a [`Value::Map`] from key-value pairs, similar to Go's map literals.
///
/// Keys are converted to strings via `.to_string()`, and values are converted
/// via [`ToValue::to_value`].
///
/// # Examples
///
/// ```
/// use berth_go::{tmap, ToValue};
/// use berth_go::Value;
///
/// let data = tmap! {
///     "name" => "Alice",
///     "age" => 30i64,
///     "scores" => vec![95i64, 87, 92],
///     "address" => tmap! { "city" => "Paris" },
/// };
///
/// assert!(matches!(data, Value::Map(_)));
/// ```
#[macro_export]
macro_rules! tmap {
    () => {
        $crate::Value::from_entries([])
    };
    ($($key:expr => $val:expr),+ $(,)?) => {
        $crate::Value::from_entries([
            $(($key.to_string(), $crate::ToValue::to_value(&$val)),)+
        ])
    };
}
