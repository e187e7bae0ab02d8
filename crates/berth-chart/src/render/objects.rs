//! The Go values Helm hands templates besides plain data: `.Capabilities` (with `KubeVersion`, `APIVersions`
//! and `HelmVersion`), `.Files` (with `Get`, `GetBytes`, `Glob`, `Lines`, `AsConfig`, `AsSecrets`), and the byte
//! slices `.Files` holds. Each is an engine [`Object`] with Helm's Go type name, fields, methods and printing.

use super::glob::Glob;
use base64::Engine as _;
use berth_template::{GoType, Kind, Object, Result, Signature, TemplateError, Value};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// Helm's `KubeVersion` (pkg/chart/common/capabilities.go): `Version` is the git version as given, `String()`
/// (what printing shows) the normalised one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeVersion {
    pub version: String,
    pub normalized: String,
    pub major: String,
    pub minor: String,
}

impl KubeVersion {
    /// Parses a version as `--kube-version` takes it (`1.29`, `v1.29.3`, `v1.33.4-gke.1245000`): Kubernetes'
    /// `ParseGeneric` (major.minor[.patch], anything after ignored for the normalised form).
    ///
    /// # Errors
    /// A message as Kubernetes words it when the text is not a version.
    pub fn parse(text: &str) -> std::result::Result<KubeVersion, String> {
        let trimmed = text.trim();
        let body = trimmed.strip_prefix('v').unwrap_or(trimmed);
        let numeric_end = body.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(body.len());
        let parts: Vec<&str> = body[..numeric_end].split('.').collect();
        let number = |part: &str| part.parse::<u64>().ok().filter(|_| !part.is_empty());
        let valid = (2..=3).contains(&parts.len()) && parts.iter().all(|part| number(part).is_some());
        if !valid {
            return Err(format!("could not parse {text:?} as version"));
        }
        let major = number(parts[0]).unwrap_or_default();
        let minor = number(parts[1]).unwrap_or_default();
        let patch = parts.get(2).and_then(|part| number(part)).unwrap_or(0);
        let version = if trimmed.starts_with('v') { trimmed.to_string() } else { format!("v{trimmed}") };
        Ok(KubeVersion {
            version,
            normalized: format!("v{major}.{minor}.{patch}"),
            major: major.to_string(),
            minor: minor.to_string(),
        })
    }

    /// `vMAJOR.MINOR.0`, as Helm's defaults are made.
    pub fn of(major: u64, minor: u64) -> KubeVersion {
        let version = format!("v{major}.{minor}.0");
        KubeVersion { normalized: version.clone(), version, major: major.to_string(), minor: minor.to_string() }
    }
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
        matches!(name, "String" | "GitVersion").then_some(Signature::fixed(&[]))
    }

    fn call_method(&self, name: &str, _args: &[Value]) -> Result<Value> {
        Ok(Value::from(if name == "GitVersion" { self.version.as_str() } else { self.normalized.as_str() }))
    }

    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.normalized)
    }

    fn to_data(&self) -> Value {
        Value::map([
            ("Version", Value::from(self.version.as_str())),
            ("Major", Value::from(self.major.as_str())),
            ("Minor", Value::from(self.minor.as_str())),
        ])
    }

    fn equals(&self, other: &dyn Object) -> Option<bool> {
        Some(other.downcast_ref::<KubeVersion>() == Some(self))
    }
}

/// Helm's `VersionSet` (`[]string` with `Has`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionSet(pub Vec<String>);

impl Object for VersionSet {
    fn type_name(&self) -> &str {
        "common.VersionSet"
    }

    fn kind(&self) -> Kind {
        Kind::Slice
    }

    fn method(&self, name: &str) -> Option<Signature> {
        (name == "Has").then_some(Signature::fixed(&[GoType::String]))
    }

    fn call_method(&self, _name: &str, args: &[Value]) -> Result<Value> {
        let wanted = args.first().and_then(Value::as_str).unwrap_or_default();
        Ok(Value::Bool(self.0.iter().any(|version| version == wanted)))
    }

    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}]", self.0.join(" "))
    }

    fn to_data(&self) -> Value {
        Value::list(self.0.iter().map(|version| Value::from(version.as_str())))
    }

    fn length(&self) -> Option<usize> {
        Some(self.0.len())
    }

    fn equals(&self, _other: &dyn Object) -> Option<bool> {
        None
    }
}

/// Helm's `version.BuildInfo`, as `.Capabilities.HelmVersion`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildInfo {
    pub version: String,
    pub git_commit: String,
    pub git_tree_state: String,
    pub go_version: String,
    pub kube_client_version: String,
}

impl BuildInfo {
    fn fields(&self) -> [(&'static str, &'static str, &str); 5] {
        [
            ("Version", "version", &self.version),
            ("GitCommit", "git_commit", &self.git_commit),
            ("GitTreeState", "git_tree_state", &self.git_tree_state),
            ("GoVersion", "go_version", &self.go_version),
            ("KubeClientVersion", "kube_client_version", &self.kube_client_version),
        ]
    }
}

impl Object for BuildInfo {
    fn type_name(&self) -> &str {
        "version.BuildInfo"
    }

    fn field(&self, name: &str) -> Option<Value> {
        self.fields().into_iter().find(|(go, _, _)| *go == name).map(|(_, _, value)| Value::from(value))
    }

    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let values: Vec<&str> = self.fields().iter().map(|(_, _, value)| *value).collect();
        write!(f, "{{{}}}", values.join(" "))
    }

    fn to_data(&self) -> Value {
        // encoding/json with BuildInfo's tags; empty fields are `omitempty`.
        Value::map(
            self.fields()
                .into_iter()
                .filter(|(_, _, value)| !value.is_empty())
                .map(|(_, json, value)| (json, Value::from(value))),
        )
    }

    fn equals(&self, other: &dyn Object) -> Option<bool> {
        Some(other.downcast_ref::<BuildInfo>() == Some(self))
    }
}

/// `.Capabilities`: a pointer to Helm's `Capabilities` struct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capabilities {
    pub kube_version: KubeVersion,
    pub api_versions: VersionSet,
    pub helm_version: BuildInfo,
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
            "KubeVersion" => Some(Value::object(self.kube_version.clone())),
            "APIVersions" => Some(Value::object(self.api_versions.clone())),
            "HelmVersion" => Some(Value::object(self.helm_version.clone())),
            _ => None,
        }
    }

    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "&{{{} ", self.kube_version.normalized)?;
        self.api_versions.fmt_value(f)?;
        f.write_str(" ")?;
        self.helm_version.fmt_value(f)?;
        f.write_str("}")
    }

    fn to_data(&self) -> Value {
        Value::map([
            ("KubeVersion", self.kube_version.to_data()),
            ("APIVersions", self.api_versions.to_data()),
            ("HelmVersion", self.helm_version.to_data()),
        ])
    }
}

/// A Go `[]byte`, as `.Files` holds each file and `GetBytes` returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bytes(pub Arc<[u8]>);

impl Object for Bytes {
    fn type_name(&self) -> &str {
        "[]uint8"
    }

    fn kind(&self) -> Kind {
        Kind::Slice
    }

    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (index, byte) in self.0.iter().enumerate() {
            if index > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{byte}")?;
        }
        f.write_str("]")
    }

    /// encoding/json writes a `[]byte` as base64.
    fn to_data(&self) -> Value {
        Value::from(base64::engine::general_purpose::STANDARD.encode(&self.0).as_str())
    }

    fn length(&self) -> Option<usize> {
        Some(self.0.len())
    }

    fn equals(&self, _other: &dyn Object) -> Option<bool> {
        None
    }
}

/// `.Files`: Helm's `files` (`map[string][]byte`) of one chart.
#[derive(Clone)]
pub struct Files {
    files: Arc<BTreeMap<String, Arc<[u8]>>>,
    /// How `AsConfig` and `AsSecrets` write YAML: Helm's `toYaml`.
    to_yaml: Arc<dyn Fn(&Value) -> String + Send + Sync>,
}

impl fmt::Debug for Files {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Files").field("names", &self.files.keys().collect::<Vec<_>>()).finish()
    }
}

impl Files {
    pub fn new(
        files: impl IntoIterator<Item = (String, Arc<[u8]>)>,
        to_yaml: Arc<dyn Fn(&Value) -> String + Send + Sync>,
    ) -> Files {
        Files { files: Arc::new(files.into_iter().collect()), to_yaml }
    }

    fn get_bytes(&self, name: &str) -> Arc<[u8]> {
        self.files.get(name).cloned().unwrap_or_else(|| Arc::from(Vec::new()))
    }

    fn glob(&self, pattern: &str) -> Files {
        let glob = Glob::new(pattern);
        let matching = self.files.iter().filter(|(name, _)| glob.matches(name));
        Files::new(matching.map(|(name, data)| (name.clone(), data.clone())), self.to_yaml.clone())
    }

    /// Base names to contents (later paths of one base name win, as Go's random map order lets one win).
    fn by_base_name(&self, encode: impl Fn(&[u8]) -> String) -> Value {
        Value::map(
            self.files
                .iter()
                .map(|(name, data)| (name.rsplit('/').next().unwrap_or(name), Value::from(encode(data).as_str()))),
        )
    }

    fn lines(&self, path: &str) -> Result<Value> {
        let Some(data) = self.files.get(path) else { return Ok(Value::list([])) };
        let text = String::from_utf8_lossy(data);
        // Go indexes the last byte without checking: an empty file is a runtime error in Helm.
        let Some(text) = (if text.is_empty() { None } else { Some(text.strip_suffix('\n').unwrap_or(&text)) }) else {
            return Err(TemplateError::msg("runtime error: index out of range [-1]"));
        };
        Ok(Value::list(text.split('\n').map(Value::from)))
    }
}

impl Object for Files {
    fn type_name(&self) -> &str {
        "engine.files"
    }

    fn kind(&self) -> Kind {
        Kind::Map
    }

    fn field(&self, name: &str) -> Option<Value> {
        // A map type: `.Files.name` indexes it (missing names are the zero value, an empty slice).
        self.files.get(name).map(|data| Value::object(Bytes(data.clone())))
    }

    fn method(&self, name: &str) -> Option<Signature> {
        match name {
            "Get" | "GetBytes" | "Glob" | "Lines" => Some(Signature::fixed(&[GoType::String])),
            "AsConfig" | "AsSecrets" => Some(Signature::fixed(&[])),
            _ => None,
        }
    }

    fn call_method(&self, name: &str, args: &[Value]) -> Result<Value> {
        let argument = args.first().and_then(Value::as_str).unwrap_or_default();
        match name {
            "Get" => Ok(Value::from(String::from_utf8_lossy(&self.get_bytes(argument)).as_ref())),
            "GetBytes" => Ok(Value::object(Bytes(self.get_bytes(argument)))),
            "Glob" => Ok(Value::object(self.glob(argument))),
            "Lines" => self.lines(argument),
            "AsConfig" => Ok(Value::from(
                (self.to_yaml)(&self.by_base_name(|data| String::from_utf8_lossy(data).into_owned())).as_str(),
            )),
            "AsSecrets" => Ok(Value::from(
                (self.to_yaml)(&self.by_base_name(|data| base64::engine::general_purpose::STANDARD.encode(data)))
                    .as_str(),
            )),
            other => Err(TemplateError::msg(format!("can't evaluate field {other} in type engine.files"))),
        }
    }

    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("map[")?;
        for (index, (name, data)) in self.files.iter().enumerate() {
            if index > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{name}:")?;
            Bytes(data.clone()).fmt_value(f)?;
        }
        f.write_str("]")
    }

    /// The files as `[]byte` objects: `range` iterates them so, and JSON encodes each as base64.
    fn to_data(&self) -> Value {
        Value::map(self.files.iter().map(|(name, data)| (name.as_str(), Value::object(Bytes(data.clone())))))
    }

    fn length(&self) -> Option<usize> {
        Some(self.files.len())
    }

    fn equals(&self, _other: &dyn Object) -> Option<bool> {
        None
    }
}
