//! The Go parameter types the engine checks arguments against.
//!
//! Go's template engine calls functions by reflection and checks every argument against the parameter's
//! type first; the messages a chart author sees (`wrong type for value; expected int; got int64`,
//! `expected string; found 3`) come from that check, not from the function. A [`Signature`] lists
//! these types for a function or method so the engine can make the same check.
//!
//! [`Signature`]: super::Signature

/// A Go parameter type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GoType {
    /// `interface{}`: anything; nil stays nil.
    Any,
    /// `reflect.Value`: anything, as Go's builtins (`index`, `len`, `eq`...) take it.
    Reflect,
    /// `string`.
    String,
    /// `bool`.
    Bool,
    /// `int`.
    Int,
    /// `int64`.
    Int64,
    /// `uint64`.
    Uint64,
    /// `uint32`.
    Uint32,
    /// `float64`.
    Float64,
    /// `[]interface{}`.
    List,
    /// `[]string`.
    StringList,
    /// `map[string]interface{}`.
    Map,
    /// A named host type, by its Go name (as [`Object::type_name`](super::Object::type_name) gives it).
    Named(&'static str),
}

impl GoType {
    /// The type as Go prints it in messages (`reflect.Type.String()`).
    pub fn go_name(self) -> &'static str {
        match self {
            GoType::Any => "interface {}",
            GoType::Reflect => "reflect.Value",
            GoType::String => "string",
            GoType::Bool => "bool",
            GoType::Int => "int",
            GoType::Int64 => "int64",
            GoType::Uint64 => "uint64",
            GoType::Uint32 => "uint32",
            GoType::Float64 => "float64",
            GoType::List => "[]interface {}",
            GoType::StringList => "[]string",
            GoType::Map => "map[string]interface {}",
            GoType::Named(name) => name,
        }
    }

    /// Whether an untyped `nil` can be passed for this type (Go's `canBeNil`).
    pub fn can_be_nil(self) -> bool {
        matches!(self, GoType::Any | GoType::Reflect | GoType::List | GoType::StringList | GoType::Map)
            || matches!(self, GoType::Named(name) if name.starts_with('*'))
    }
}
