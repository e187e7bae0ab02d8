//! Test stand-ins for Helm's host objects (`.Files`, `.Capabilities`), written against berth-go's
//! `Object` trait as the chart renderer writes the real ones: enough of Helm's types (engine.files,
//! common.Capabilities, common.KubeVersion, common.VersionSet) to check method calls against Helm.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use berth_go::{GoType, Kind, Object, Result, Signature, TemplateError, Value};

const STRING_ARG: Signature = Signature::fixed(&[GoType::String]);
const NO_ARGS: Signature = Signature::fixed(&[]);

fn string_arg(args: &[Value]) -> &str {
    args.first().and_then(Value::as_str).unwrap_or_default()
}

fn bytes_value(bytes: &[u8]) -> Value {
    Value::list(bytes.iter().map(|b| Value::Uint(*b as u64)))
}

/// Helm's `engine.files`: chart files by path.
#[derive(Debug, Clone)]
pub struct Files(pub Arc<BTreeMap<String, Vec<u8>>>);

/// `*` matches within one path segment (enough of gobwas/glob for the probes).
fn glob_match(pattern: &str, path: &str) -> bool {
    fn matches(p: &[u8], s: &[u8]) -> bool {
        match (p.first(), s.first()) {
            (None, None) => true,
            (Some(b'*'), _) => matches(&p[1..], s) || (!s.is_empty() && s[0] != b'/' && matches(p, &s[1..])),
            (Some(a), Some(b)) if a == b => matches(&p[1..], &s[1..]),
            _ => false,
        }
    }
    matches(pattern.as_bytes(), path.as_bytes())
}

impl Object for Files {
    fn type_name(&self) -> &str {
        "engine.files"
    }
    fn kind(&self) -> Kind {
        Kind::Map
    }
    fn field(&self, name: &str) -> Option<Value> {
        self.0.get(name).map(|b| bytes_value(b))
    }
    fn method(&self, name: &str) -> Option<Signature> {
        matches!(name, "Get" | "GetBytes" | "Lines" | "Glob").then_some(STRING_ARG)
    }
    fn call_method(&self, name: &str, args: &[Value]) -> Result<Value> {
        let path = string_arg(args);
        let content = self.0.get(path);
        Ok(match name {
            "Get" => Value::from(String::from_utf8_lossy(content.map(Vec::as_slice).unwrap_or_default()).as_ref()),
            "GetBytes" => bytes_value(content.map(Vec::as_slice).unwrap_or_default()),
            "Lines" => match content {
                None => Value::list([]),
                Some(bytes) => {
                    let text = String::from_utf8_lossy(bytes);
                    let text = text.strip_suffix('\n').unwrap_or(&text);
                    Value::list(text.split('\n').map(Value::from))
                }
            },
            "Glob" => Value::object(Files(Arc::new(
                self.0.iter().filter(|(k, _)| glob_match(path, k)).map(|(k, v)| (k.clone(), v.clone())).collect(),
            ))),
            other => return Err(TemplateError::msg(format!("no method {other}"))),
        })
    }
    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_data())
    }
    fn to_data(&self) -> Value {
        Value::map(self.0.iter().map(|(k, v)| (k.as_str(), bytes_value(v))))
    }
    fn length(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// Helm's `common.KubeVersion`.
#[derive(Debug)]
pub struct KubeVersion {
    pub version: String,
    pub major: String,
    pub minor: String,
}

impl Object for KubeVersion {
    fn type_name(&self) -> &str {
        "common.KubeVersion"
    }
    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "Version" => Some(Value::from(self.version.as_str())),
            "Major" => Some(Value::from(self.major.as_str())),
            "Minor" => Some(Value::from(self.minor.as_str())),
            _ => None,
        }
    }
    fn method(&self, name: &str) -> Option<Signature> {
        matches!(name, "String" | "GitVersion").then_some(NO_ARGS)
    }
    fn call_method(&self, _name: &str, _args: &[Value]) -> Result<Value> {
        Ok(Value::from(self.version.as_str()))
    }
    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.version)
    }
    fn to_data(&self) -> Value {
        Value::map([
            ("Version", Value::from(self.version.as_str())),
            ("Major", Value::from(self.major.as_str())),
            ("Minor", Value::from(self.minor.as_str())),
        ])
    }
    fn equals(&self, other: &dyn Object) -> Option<bool> {
        Some(other.downcast_ref::<KubeVersion>().is_some_and(|o| o.version == self.version))
    }
}

/// Helm's `common.VersionSet`.
#[derive(Debug)]
pub struct VersionSet(pub Vec<String>);

impl Object for VersionSet {
    fn type_name(&self) -> &str {
        "common.VersionSet"
    }
    fn kind(&self) -> Kind {
        Kind::Slice
    }
    fn method(&self, name: &str) -> Option<Signature> {
        (name == "Has").then_some(STRING_ARG)
    }
    fn call_method(&self, _name: &str, args: &[Value]) -> Result<Value> {
        Ok(Value::Bool(self.0.iter().any(|v| v == string_arg(args))))
    }
    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}]", self.0.join(" "))
    }
    fn to_data(&self) -> Value {
        Value::list(self.0.iter().map(|v| Value::from(v.as_str())))
    }
    fn length(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// Helm's `*common.Capabilities`.
#[derive(Debug)]
pub struct Capabilities {
    pub kube_version: Value,
    pub api_versions: Value,
}

impl Object for Capabilities {
    fn type_name(&self) -> &str {
        "*common.Capabilities"
    }
    fn kind(&self) -> Kind {
        Kind::Ptr
    }
    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "KubeVersion" => Some(self.kube_version.clone()),
            "APIVersions" => Some(self.api_versions.clone()),
            _ => None,
        }
    }
    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "&{{{} {}}}", self.kube_version, self.api_versions)
    }
    fn to_data(&self) -> Value {
        Value::map([("KubeVersion", self.kube_version.clone()), ("APIVersions", self.api_versions.clone())])
    }
}

/// The capabilities `helm template` reports without a cluster (the parts the probes use).
pub fn default_capabilities() -> Value {
    Value::object(Capabilities {
        kube_version: Value::object(KubeVersion { version: "v1.35.0".into(), major: "1".into(), minor: "35".into() }),
        api_versions: Value::object(VersionSet(vec!["v1".into(), "apps/v1".into(), "batch/v1".into()])),
    })
}
