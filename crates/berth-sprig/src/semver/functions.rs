//! Sprig's `semver` and `semverCompare` (semver.go): `semver` returns a `*semver.Version` object with the methods
//! charts call (`.Major`, `.Minor`, `.Patch`, `.Prerelease`, `.Metadata`, `.Original`, `.Compare`, `.LessThan`,
//! ...), whose `Inc*` and `Set*` methods return `semver.Version` values.

use std::cmp::Ordering;
use std::fmt;

use berth_go::{GoType, Kind, Object, Result, Signature, TemplateError, Value};

use super::{Constraints, Version, validate_metadata, validate_prerelease};
use crate::args::SprigFn;
use crate::args::{call_error, fixed, string};

pub(crate) const FUNCTIONS: &[(&str, SprigFn)] = &[("semver", semver), ("semverCompare", semver_compare)];

/// A `*semver.Version` in a template.
#[derive(Debug)]
struct VersionObject(Version);

const VERSION_PTR: GoType = GoType::Named("*semver.Version");

impl VersionObject {
    fn value(version: Version) -> Value {
        Value::object(VersionObject(version))
    }
}

/// The `semver.Version` values (not pointers) that `IncMajor` and friends return.
#[derive(Debug)]
struct VersionValue(Version);

fn version_method(name: &str) -> Option<Signature> {
    Some(match name {
        "Major" | "Minor" | "Patch" | "Prerelease" | "Metadata" | "Original" | "String" | "IncMajor" | "IncMinor"
        | "IncPatch" => Signature::fixed(&[]),
        "SetPrerelease" | "SetMetadata" => Signature::fixed(&[GoType::String]),
        "Compare" | "LessThan" | "LessThanEqual" | "GreaterThan" | "GreaterThanEqual" | "Equal" => {
            Signature::fixed(&[VERSION_PTR])
        }
        _ => return None,
    })
}

fn other_version(args: &[Value]) -> Result<&Version> {
    match args.first() {
        Some(Value::Object(object)) => object
            .downcast_ref::<VersionObject>()
            .map(|v| &v.0)
            .ok_or_else(|| call_error("runtime error: invalid memory address or nil pointer dereference")),
        _ => Err(call_error("runtime error: invalid memory address or nil pointer dereference")),
    }
}

fn call_version_method(version: &Version, name: &str, args: &[Value], pointer: bool) -> Result<Value> {
    let derived = |f: fn(&mut Version)| Value::object(VersionValue(version.derived(f)));
    Ok(match name {
        "Major" => Value::Uint(version.major),
        "Minor" => Value::Uint(version.minor),
        "Patch" => Value::Uint(version.patch),
        "Prerelease" => Value::from(version.pre.as_str()),
        "Metadata" => Value::from(version.metadata.as_str()),
        "Original" if pointer => Value::from(version.original.as_str()),
        "String" => Value::from(version.canonical()),
        "IncMajor" => derived(|v| {
            v.metadata.clear();
            v.pre.clear();
            v.patch = 0;
            v.minor = 0;
            v.major += 1;
        }),
        "IncMinor" => derived(|v| {
            v.metadata.clear();
            v.pre.clear();
            v.patch = 0;
            v.minor += 1;
        }),
        "IncPatch" => derived(|v| {
            v.metadata.clear();
            if v.pre.is_empty() {
                v.patch += 1;
            }
            v.pre.clear();
        }),
        "SetPrerelease" | "SetMetadata" => {
            let text = args.first().and_then(Value::as_str).unwrap_or("");
            let is_pre = name == "SetPrerelease";
            if !text.is_empty() {
                let check = if is_pre { validate_prerelease(text) } else { validate_metadata(text) };
                check.map_err(call_error)?;
            }
            let mut next = version.clone();
            if is_pre {
                next.pre = String::from(text);
            } else {
                next.metadata = String::from(text);
            }
            next.original = format!("{}{}", version.v_prefix(), next.canonical());
            Value::object(VersionValue(next))
        }
        "Compare" => Value::Int(match version.precedence(other_version(args)?) {
            Ordering::Less => -1,
            Ordering::Equal => 0,
            Ordering::Greater => 1,
        }),
        "LessThan" => Value::Bool(version.precedence(other_version(args)?) == Ordering::Less),
        "LessThanEqual" => Value::Bool(version.precedence(other_version(args)?) != Ordering::Greater),
        "GreaterThan" => Value::Bool(version.precedence(other_version(args)?) == Ordering::Greater),
        "GreaterThanEqual" => Value::Bool(version.precedence(other_version(args)?) != Ordering::Less),
        "Equal" => Value::Bool(version.precedence(other_version(args)?) == Ordering::Equal),
        _ => return Err(TemplateError::Exec(format!("can't evaluate field {name}"))),
    })
}

impl Object for VersionObject {
    fn type_name(&self) -> &str {
        "*semver.Version"
    }

    fn kind(&self) -> Kind {
        Kind::Ptr
    }

    fn method(&self, name: &str) -> Option<Signature> {
        version_method(name)
    }

    fn call_method(&self, name: &str, args: &[Value]) -> Result<Value> {
        call_version_method(&self.0, name, args, true)
    }

    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.canonical())
    }

    /// `MarshalJSON`: the canonical string.
    fn to_data(&self) -> Value {
        Value::from(self.0.canonical())
    }
}

impl Object for VersionValue {
    fn type_name(&self) -> &str {
        "semver.Version"
    }

    fn method(&self, name: &str) -> Option<Signature> {
        // Pointer-receiver methods (Original, Compare, ...) are not in a Version value's method set.
        match name {
            "Original" | "Compare" | "LessThan" | "LessThanEqual" | "GreaterThan" | "GreaterThanEqual" | "Equal" => {
                None
            }
            _ => version_method(name),
        }
    }

    fn call_method(&self, name: &str, args: &[Value]) -> Result<Value> {
        call_version_method(&self.0, name, args, false)
    }

    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.canonical())
    }

    fn to_data(&self) -> Value {
        Value::from(self.0.canonical())
    }

    fn equals(&self, other: &dyn Object) -> Option<bool> {
        other.downcast_ref::<VersionValue>().map(|o| o.0 == self.0)
    }
}

/// `semver(version string) (*Version, error)`.
fn semver(args: &[Value]) -> Result<Value> {
    let [text] = fixed("semver", args)?;
    Version::parse(string(text)?).map(VersionObject::value).map_err(call_error)
}

/// `semverCompare(constraint, version string) (bool, error)`.
fn semver_compare(args: &[Value]) -> Result<Value> {
    let [constraint, version] = fixed("semverCompare", args)?;
    let (constraint, version) = (string(constraint)?, string(version)?);
    let constraints = Constraints::parse(constraint).map_err(call_error)?;
    let version = Version::parse(version).map_err(call_error)?;
    Ok(Value::Bool(constraints.check(&version)))
}
