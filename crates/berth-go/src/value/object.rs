//! Host objects: Go values with fields and methods that are not plain data.
//!
//! Helm hands templates Go structs and named types whose behaviour goes beyond maps and lists: `.Files`
//! (`Get`, `Glob`, `AsConfig`...), `.Capabilities.APIVersions.Has`, `.Capabilities.KubeVersion.Major`,
//! Masterminds semver versions, `time.Time` from Sprig's `now`, Sprig's `certificate` structs. An
//! [`Object`] describes one such value to the engine: its Go type name (for `typeOf`, `kindOf`, `%T`), its
//! reflect kind, its exported fields and methods with their parameter types (Go checks arguments before it
//! calls), how `fmt` prints it, and what `encoding/json` makes of it.

use std::any::Any;
use std::fmt;

use super::{GoType, Value};
use crate::error::Result;

/// Go's `reflect.Kind` as far as templates can observe it (truthiness, `len`, Sprig's `kindOf`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A struct value: always true in `if`.
    Struct,
    /// A pointer (to a struct): true unless nil; Sprig's `kindOf` says `ptr`.
    Ptr,
    /// A named map type (Helm's `Files` is `map[string][]byte`): true when not empty, has a `len`.
    Map,
    /// A named slice type (Helm's `VersionSet` is `[]string`): true when not empty, has a `len`.
    Slice,
    /// A named string type.
    String,
}

impl Kind {
    /// The name `reflect.Kind.String()` gives, as Sprig's `kindOf` prints it.
    pub fn go_name(self) -> &'static str {
        match self {
            Kind::Struct => "struct",
            Kind::Ptr => "ptr",
            Kind::Map => "map",
            Kind::Slice => "slice",
            Kind::String => "string",
        }
    }
}

/// The parameters of a Go function or method, which the engine checks arguments against before the call
/// as Go's reflective call does (`wrong number of args for X: want 1 got 0`, `wrong type for value;
/// expected string; got float64`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signature {
    /// The fixed parameters, in order.
    pub params: &'static [GoType],
    /// The element type of a final `...T` parameter, if the function is variadic.
    pub variadic: Option<GoType>,
}

impl Signature {
    /// A function with exactly these parameters.
    pub const fn fixed(params: &'static [GoType]) -> Self {
        Signature { params, variadic: None }
    }

    /// A function with these fixed parameters followed by `...rest`.
    pub const fn variadic(params: &'static [GoType], rest: GoType) -> Self {
        Signature { params, variadic: Some(rest) }
    }
}

/// A Go value with a type of its own, exposed to templates through fields and methods.
///
/// Implementors are usually small structs holding shared data (`Arc`s), since the engine clones the
/// `Arc<dyn Object>` freely. Functions recognise their own objects with [`downcast_ref`](trait.Object.html#method.downcast_ref):
///
/// ```
/// use std::fmt;
/// use berth_go::{GoType, Kind, Object, Result, Signature, Value};
///
/// #[derive(Debug)]
/// struct Version { major: i64 }
///
/// impl Object for Version {
///     fn type_name(&self) -> &str { "*semver.Version" }
///     fn kind(&self) -> Kind { Kind::Ptr }
///     fn method(&self, name: &str) -> Option<Signature> {
///         (name == "Major").then_some(Signature::fixed(&[]))
///     }
///     fn call_method(&self, _name: &str, _args: &[Value]) -> Result<Value> {
///         Ok(Value::Uint(self.major as u64))
///     }
///     fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { write!(f, "{}.0.0", self.major) }
///     fn to_data(&self) -> Value { Value::String(format!("{}.0.0", self.major).into()) }
/// }
///
/// let v = Value::object(Version { major: 3 });
/// assert_eq!(v.to_string(), "3.0.0");
/// let Value::Object(obj) = &v else { unreachable!() };
/// assert_eq!(obj.downcast_ref::<Version>().map(|v| v.major), Some(3));
/// ```
pub trait Object: Any + Send + Sync + fmt::Debug {
    /// The Go type as `%T` and Sprig's `typeOf` print it (`*semver.Version`, `time.Time`, `common.Files`).
    fn type_name(&self) -> &str;

    /// The reflect kind (decides truthiness and `len`).
    fn kind(&self) -> Kind {
        Kind::Struct
    }

    /// An exported field (`.Major` on Helm's `KubeVersion`), or `None` when the type has no such field.
    fn field(&self, name: &str) -> Option<Value> {
        let _ = name;
        None
    }

    /// The signature of an exported method, or `None` when the type has no such method. A method is looked
    /// up before a field of the same name, as Go does.
    fn method(&self, name: &str) -> Option<Signature> {
        let _ = name;
        None
    }

    /// Calls a method [`method`](Self::method) declared, with arguments already checked against its
    /// signature. An `Err` becomes Go's `error calling NAME: ...`.
    fn call_method(&self, name: &str, args: &[Value]) -> Result<Value> {
        let _ = args;
        Err(crate::error::TemplateError::Exec(format!("can't evaluate field {name} in type {}", self.type_name())))
    }

    /// What `fmt`'s `%v` and `%s` print: the `String()` method's result for a `fmt.Stringer`, otherwise
    /// Go's rendering of the value (`{a b}` for a struct, `[a b]` for a slice, `map[k:v]` for a map).
    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;

    /// What an action (`{{ x }}`) prints when it reaches the value through fields and variables only (no
    /// function call in between): text/template's `printableValue` dereferences a pointer, and takes the
    /// address of an addressable struct whose `String` method has a pointer receiver. Helm's
    /// `.Capabilities.KubeVersion` prints `v1.35.0` so, and `{v1.35.0 v1.35.0 1 35}` through `print` or
    /// `quote`. The default is [`fmt_value`](Self::fmt_value).
    fn fmt_printed(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_value(f)
    }

    /// The value as `encoding/json` sees it (exported fields under their JSON names, a `MarshalJSON` or
    /// `MarshalText` result, ...), as plain data for `toJson`, `toYaml` and friends.
    fn to_data(&self) -> Value;

    /// A struct's fields as `encoding/json` writes them, in declaration order (the map of
    /// [`to_data`](Self::to_data) is sorted by key, which `toYaml` wants but `toJson` does not). `None` for
    /// values that are not structs encoded field by field.
    fn json_fields(&self) -> Option<Vec<(&'static str, Value)>> {
        None
    }

    /// The bytes of a Go `[]byte` (Helm's `.Files.GetBytes`): Sprig's `strval` (`toString`, `quote`, ...) and
    /// `fmt`'s `%s` read them as text, `toStrings` as one number per byte. `None` for every other type.
    fn as_bytes(&self) -> Option<&[u8]> {
        None
    }

    /// The length of a map or slice kind (`len`, truthiness); `None` for the other kinds.
    fn length(&self) -> Option<usize> {
        None
    }

    /// Go's `==` between two values of this type (`eq`); `None` when the type is not comparable
    /// (Go's `non-comparable type` error). The default compares identity, as Go compares pointers.
    fn equals(&self, other: &dyn Object) -> Option<bool> {
        Some(std::ptr::addr_eq(self as *const Self as *const (), other as *const dyn Object as *const ()))
    }

    /// Whether the value counts as true in `if`, `with`, `and`, `or`, `not`.
    fn is_truthy(&self) -> bool {
        match self.kind() {
            Kind::Struct | Kind::Ptr => true,
            Kind::Map | Kind::Slice | Kind::String => self.length().unwrap_or(0) > 0,
        }
    }
}

impl dyn Object {
    /// The concrete object, when it is a `T`.
    pub fn downcast_ref<T: Object>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref::<T>()
    }

    /// Whether the object is a `T`.
    pub fn is<T: Object>(&self) -> bool {
        (self as &dyn Any).is::<T>()
    }
}

/// Formats an object with its [`Object::fmt_value`].
pub(crate) struct ObjectDisplay<'a>(pub &'a dyn Object);

impl fmt::Display for ObjectDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_value(f)
    }
}

/// Formats an object with its [`Object::fmt_printed`].
pub struct ObjectPrinted<'a>(pub &'a dyn Object);

impl fmt::Display for ObjectPrinted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_printed(f)
    }
}
