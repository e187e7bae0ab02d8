//! The Go values Helm hands templates besides plain data: `.Capabilities` (with `KubeVersion`, `APIVersions`
//! and `HelmVersion`), `.Files` (with `Get`, `GetBytes`, `Glob`, `Lines`, `AsConfig`, `AsSecrets`), and the byte
//! slices `.Files` holds. Each is an engine [`Object`] with Helm's Go type name, fields, methods and printing.

use super::glob::Glob;
use base64::Engine as _;
use berth_go::{GoType, Kind, Object, Result, Signature, TemplateError, Value};
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
    /// Parses a version as `--kube-version` takes it (`1.29`, `v1.29.3`, `v1.33.4-gke.1245000`): Helm's
    /// `ParseKubeVersion` over Kubernetes' `version.ParseGeneric` (k8s.io/apimachinery util/version): the
    /// leading numbers (`^\s*v?([0-9]+(?:\.[0-9]+)*)(.*)*$`), at least two, the first without a leading zero;
    /// the normalised version is those numbers as parsed, anything after them dropped. `Version` is the text
    /// as given, with a `v` put in front unless it starts with one.
    ///
    /// # Errors
    /// Kubernetes' messages: `could not parse "x" as version`, `illegal version string "1"`, `illegal
    /// zero-prefixed version component "01" in "01.2"`, `illegal non-numeric version component ...`.
    pub fn parse(text: &str) -> std::result::Result<KubeVersion, String> {
        let quoted = berth_go::strconv::quote(text);
        let rest = text.trim_start_matches(['\t', '\n', '\x0c', '\r', ' ']);
        let rest = rest.strip_prefix('v').unwrap_or(rest);
        let bytes = rest.as_bytes();
        let mut end = bytes.iter().take_while(|byte| byte.is_ascii_digit()).count();
        while end > 0 && bytes.get(end) == Some(&b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
            end += 1 + bytes[end + 1..].iter().take_while(|byte| byte.is_ascii_digit()).count();
        }
        // `(.*)*$`: the rest may hold anything but a newline (`.` stops there and `$` needs the end).
        if end == 0 || rest[end..].contains('\n') {
            return Err(format!("could not parse {quoted} as version"));
        }
        let components: Vec<&str> = rest[..end].split('.').collect();
        if components.len() < 2 {
            return Err(format!("illegal version string {quoted}"));
        }
        let mut numbers = Vec::with_capacity(components.len());
        for (index, component) in components.iter().enumerate() {
            if index == 0 && component.starts_with('0') && *component != "0" {
                return Err(format!(
                    "illegal zero-prefixed version component {} in {quoted}",
                    berth_go::strconv::quote(component)
                ));
            }
            let number = component.parse::<u64>().map_err(|_| {
                format!(
                    "illegal non-numeric version component {} in {quoted}: strconv.ParseUint: parsing {}: value out \
                     of range",
                    berth_go::strconv::quote(component),
                    berth_go::strconv::quote(component)
                )
            })?;
            numbers.push(number.to_string());
        }
        let version = if text.starts_with('v') { text.to_string() } else { format!("v{text}") };
        Ok(KubeVersion {
            version,
            normalized: format!("v{}", numbers.join(".")),
            major: numbers[0].clone(),
            minor: numbers[1].clone(),
        })
    }

    /// Helm's `String()`: the normalised version, or the version as given when there is none (a cluster's
    /// version, which Helm's `getCapabilities` takes from the server without normalising it).
    pub fn string(&self) -> &str {
        if self.normalized.is_empty() { &self.version } else { &self.normalized }
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
        Ok(Value::from(if name == "GitVersion" { self.version.as_str() } else { self.string() }))
    }

    /// A `KubeVersion` value is no `fmt.Stringer` (its `String` has a pointer receiver): `fmt` prints its fields,
    /// the unexported normalised version among them.
    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{} {} {} {}}}", self.version, self.normalized, self.major, self.minor)
    }

    /// Reached as `.Capabilities.KubeVersion`, the field is addressable and an action prints its `String()`.
    fn fmt_printed(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.string())
    }

    fn to_data(&self) -> Value {
        Value::map(self.json_fields().unwrap_or_default())
    }

    fn json_fields(&self) -> Option<Vec<(&'static str, Value)>> {
        Some(vec![
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

/// Helm's `version.BuildInfo`: `.Capabilities.HelmVersion`, and what `helm version --template` executes on.
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
        Value::map(self.json_fields().unwrap_or_default())
    }

    /// encoding/json with BuildInfo's tags, in field order; empty fields are `omitempty`.
    fn json_fields(&self) -> Option<Vec<(&'static str, Value)>> {
        Some(
            self.fields()
                .into_iter()
                .filter(|(_, _, value)| !value.is_empty())
                .map(|(_, json, value)| (json, Value::from(value)))
                .collect(),
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

    /// `fmt` of the pointer: `&` and the struct, its fields printed as values (no `String()` of theirs applies).
    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("&")?;
        self.fmt_printed(f)
    }

    /// An action dereferences the pointer first (`printableValue`): the struct alone.
    fn fmt_printed(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        self.kube_version.fmt_value(f)?;
        f.write_str(" ")?;
        self.api_versions.fmt_value(f)?;
        f.write_str(" ")?;
        self.helm_version.fmt_value(f)?;
        f.write_str("}")
    }

    fn to_data(&self) -> Value {
        Value::map(self.json_fields().unwrap_or_default())
    }

    fn json_fields(&self) -> Option<Vec<(&'static str, Value)>> {
        Some(vec![
            ("KubeVersion", Value::object(self.kube_version.clone())),
            ("APIVersions", self.api_versions.to_data()),
            ("HelmVersion", Value::object(self.helm_version.clone())),
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

    fn as_bytes(&self) -> Option<&[u8]> {
        Some(&self.0)
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
    fn by_base_name(&self, encode: impl Fn(&[u8]) -> Value) -> Value {
        Value::map(self.files.iter().map(|(name, data)| (name.rsplit('/').next().unwrap_or(name), encode(data))))
    }

    fn lines(&self, path: &str) -> Result<Value> {
        let Some(data) = self.files.get(path) else { return Ok(Value::list([])) };
        // Go indexes the last byte without checking: an empty file is a runtime error in Helm.
        let Some(data) = (if data.is_empty() { None } else { Some(data.strip_suffix(b"\n").unwrap_or(data)) }) else {
            return Err(TemplateError::msg("runtime error: index out of range [-1]"));
        };
        Ok(Value::list(data.split(|byte| *byte == b'\n').map(Value::from_go_bytes)))
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
            // A Go string holds the file's bytes, UTF-8 or not.
            "Get" => Ok(Value::from_go_bytes(&self.get_bytes(argument))),
            "GetBytes" => Ok(Value::object(Bytes(self.get_bytes(argument)))),
            "Glob" => Ok(Value::object(self.glob(argument))),
            "Lines" => self.lines(argument),
            "AsConfig" => Ok(Value::from((self.to_yaml)(&self.by_base_name(Value::from_go_bytes)).as_str())),
            "AsSecrets" => {
                Ok(Value::from(
                    (self.to_yaml)(&self.by_base_name(|data| {
                        Value::from(base64::engine::general_purpose::STANDARD.encode(data).as_str())
                    }))
                    .as_str(),
                ))
            }
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

#[cfg(test)]
mod tests {
    use super::KubeVersion;

    #[test]
    fn kube_versions_parse_as_kubernetes_parse_generic() {
        // (input, Version, normalised, major, minor), as Helm 4.1.4 prints `.Capabilities.KubeVersion` for them.
        let cases = [
            ("1.30", "v1.30", "v1.30", "1", "30"),
            ("1.030", "v1.030", "v1.30", "1", "30"),
            ("1.30.1.2", "v1.30.1.2", "v1.30.1.2", "1", "30"),
            ("1.30.x", "v1.30.x", "v1.30", "1", "30"),
            (" v1.30", "v v1.30", "v1.30", "1", "30"),
            ("v1.31.0-eks-1234", "v1.31.0-eks-1234", "v1.31.0", "1", "31"),
        ];
        for (input, version, normalized, major, minor) in cases {
            let parsed = KubeVersion::parse(input).unwrap();
            assert_eq!(
                (parsed.version.as_str(), parsed.normalized.as_str(), parsed.major.as_str(), parsed.minor.as_str()),
                (version, normalized, major, minor),
                "{input:?}"
            );
        }
        for (input, error) in [
            ("01.30", r#"illegal zero-prefixed version component "01" in "01.30""#),
            ("1.x", r#"illegal version string "1.x""#),
            ("V1.30", r#"could not parse "V1.30" as version"#),
            ("1.30\n", r#"could not parse "1.30\n" as version"#),
        ] {
            assert_eq!(KubeVersion::parse(input), Err(error.to_string()), "{input:?}");
        }
    }
}
