//! Kubernetes' own rules for object metadata, checked before anything is written: names and namespaces by
//! kind, label keys and values, annotations, and the sizes the API server accepts.
//!
//! The API server refuses an object that breaks these rules, but only when that object's turn comes, after
//! others were written: a partial apply. Checking them up front, as the server would, turns every such
//! object into a problem reported before the first write. The rules are ported from apimachinery
//! (`pkg/util/validation`, `pkg/api/validate/content`, `pkg/api/validation` `ValidateObjectMeta`,
//! `pkg/api/validation/path`) and the per-kind name functions of kube-apiserver's `pkg/apis/*/validation`;
//! the messages are the server's, so what berth says is what `kubectl apply` would have said.
//!
//! Names also become URL path segments. Every kind's name passes `path.IsValidPathSegmentName` (the API
//! server's `rest.BeforeCreate` holds every create to it): never `.` or `..`, never a `/` or `%`, so no name
//! can address a subresource (`web/scale`) or another object (`..`). [`url_segment`] percent-encodes what
//! else a name may hold (an RBAC name may hold `?` or a space), since kube-rs puts names into URLs as given.

use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// The largest request body the API server reads: `MaxRequestBodyBytes`, 3 MiB by default
/// (k8s.io/apiserver `server/config.go`; `celconfig.MaxRequestSizeBytes` is the same number). berth sends
/// each object as the JSON body of one server-side apply, so that JSON must fit.
pub const MAX_REQUEST_BYTES: usize = 3 * 1024 * 1024;

/// The most a ConfigMap's or Secret's data may hold, all keys together: `MaxSecretSize`, 1 MiB.
pub const MAX_DATA_BYTES: usize = 1024 * 1024;

/// The most all annotations of an object may hold, keys and values together: `TotalAnnotationSizeLimitB`.
pub const MAX_ANNOTATION_BYTES: usize = 256 * 1024;

const DNS1123_LABEL_MAX: usize = 63;
const DNS1035_LABEL_MAX: usize = 63;
const DNS1123_SUBDOMAIN_MAX: usize = 253;
const LABEL_VALUE_MAX: usize = 63;
const QUALIFIED_NAME_MAX: usize = 63;
/// A CronJob's Jobs are named `<cronjob>-<11 characters>`, which must still be a DNS-1035 label.
const CRON_JOB_NAME_MAX: usize = 52;
const CONFIG_MAP_KEY_MAX: usize = 253;

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const CONFIG_MAP_KEY_FMT: &str = "[-._a-zA-Z0-9]+";

/// One field the API server would refuse, worded as its `field.Error`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    /// `metadata.name`, `metadata.labels`, ...
    pub field: String,
    pub detail: Detail,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detail {
    /// `Invalid value: "<value>": <message>`
    Value { value: String, message: String },
    /// `Required value`
    Required,
    /// `Too long: may not be more than <limit> bytes` (found `size`).
    TooLong { size: usize, limit: usize },
    /// `Invalid type: <message>` (a list where a map belongs, a number where a string belongs).
    Type(String),
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.detail {
            Detail::Value { value, message } => write!(f, "{}: Invalid value: {value:?}: {message}", self.field),
            Detail::Required => write!(f, "{}: Required value", self.field),
            Detail::TooLong { size, limit } => {
                write!(f, "{}: Too long: {size} bytes, may not be more than {limit} bytes", self.field)
            }
            Detail::Type(message) => write!(f, "{}: Invalid type: {message}", self.field),
        }
    }
}

fn invalid(field: impl Into<String>, value: &str, message: String) -> Invalid {
    Invalid { field: field.into(), detail: Detail::Value { value: shorten(value), message } }
}

/// Long values are quoted by their start, so one bad name does not fill the screen.
fn shorten(value: &str) -> String {
    const SHOWN: usize = 80;
    if value.chars().count() <= SHOWN {
        return value.to_string();
    }
    let start: String = value.chars().take(SHOWN).collect();
    format!("{start}... ({} bytes)", value.len())
}

/// The rule an object's name is held to, by kind (kube-apiserver's `Validate<Kind>Name` functions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NameRule {
    /// `NameIsDNSSubdomain`: most kinds, and every custom resource.
    Subdomain,
    /// `NameIsDNSLabel`: Namespace, Service (`RelaxedServiceNameValidation`, on by default since 1.34),
    /// StatefulSet (its name is part of its pods' host names).
    Label,
    /// `path.IsValidPathSegmentName` only: RBAC kinds (`ValidateRBACName`), PodDisruptionBudget and IPAddress
    /// (whose own rule is the IP address form, left to the server).
    PathSegment,
    /// `ValidateCronJobCreate`: a subdomain of at most 52 characters.
    CronJob,
    /// `ValidateCustomResourceDefinition`: `<spec.names.plural>.<spec.group>`.
    CustomResourceDefinition,
}

/// Kinds whose names follow another rule than the DNS subdomain; every other kind's do.
const NAME_RULES: [(&str, &str, NameRule); 11] = [
    ("", "Namespace", NameRule::Label),
    ("", "Service", NameRule::Label),
    ("apps", "StatefulSet", NameRule::Label),
    ("batch", "CronJob", NameRule::CronJob),
    ("rbac.authorization.k8s.io", "Role", NameRule::PathSegment),
    ("rbac.authorization.k8s.io", "ClusterRole", NameRule::PathSegment),
    ("rbac.authorization.k8s.io", "RoleBinding", NameRule::PathSegment),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding", NameRule::PathSegment),
    ("policy", "PodDisruptionBudget", NameRule::PathSegment),
    ("networking.k8s.io", "IPAddress", NameRule::PathSegment),
    ("apiextensions.k8s.io", "CustomResourceDefinition", NameRule::CustomResourceDefinition),
];

fn name_rule(group: &str, kind: &str) -> NameRule {
    NAME_RULES
        .iter()
        .find(|(rule_group, rule_kind, _)| *rule_group == group && *rule_kind == kind)
        .map_or(NameRule::Subdomain, |(_, _, rule)| *rule)
}

/// Checks `object` as the API server's `ValidateObjectMeta` and the kind's own size rules would, for an
/// object of `group` and `kind` that will be sent to `namespace` (`None`: cluster-scoped). `object` is the
/// object as berth sends it; its JSON must fit [`MAX_REQUEST_BYTES`].
pub fn check_object(object: &Value, group: &str, kind: &str, namespace: Option<&str>) -> Vec<Invalid> {
    let mut problems = Vec::new();
    let metadata = object.get("metadata").and_then(Value::as_object);
    let name = metadata.and_then(|metadata| metadata.get("name")).and_then(Value::as_str).unwrap_or_default();
    if name.is_empty() {
        problems.push(Invalid { field: "metadata.name".to_string(), detail: Detail::Required });
    } else {
        for message in name_messages(name, group, kind, object) {
            problems.push(invalid("metadata.name", name, message));
        }
    }
    if let Some(namespace) = namespace {
        for message in dns1123_label(namespace) {
            problems.push(invalid("metadata.namespace", namespace, message));
        }
    }
    problems.extend(check_labels_and_annotations(object));
    check_data(object, group, kind, &mut problems);
    let size = json_len(object);
    if size > MAX_REQUEST_BYTES {
        problems.push(Invalid {
            field: "<object>".to_string(),
            detail: Detail::TooLong { size, limit: MAX_REQUEST_BYTES },
        });
    }
    problems
}

/// The part of [`check_object`] that reads only `metadata.labels` and `metadata.annotations`: keys, values,
/// types and the annotations' total size, as `ValidateObjectMeta` checks them.
pub fn check_labels_and_annotations(object: &Value) -> Vec<Invalid> {
    let mut problems = Vec::new();
    if let Some(metadata) = object.get("metadata").and_then(Value::as_object) {
        check_labels(metadata.get("labels"), &mut problems);
        check_annotations(metadata.get("annotations"), &mut problems);
    }
    problems
}

/// The length of `object`'s JSON, counted as it is written (no copy of a large object's text).
fn json_len(object: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, object) {
        Ok(()) => count.0,
        Err(_) => 0,
    }
}

/// What is wrong with `name` for an object of `group` and `kind`.
fn name_messages(name: &str, group: &str, kind: &str, object: &Value) -> Vec<String> {
    let mut messages = path_segment_name(name);
    if !messages.is_empty() {
        return messages;
    }
    match name_rule(group, kind) {
        NameRule::Subdomain => messages.extend(dns1123_subdomain(name)),
        NameRule::Label => messages.extend(dns1123_label(name)),
        NameRule::PathSegment => {}
        NameRule::CronJob => {
            messages.extend(dns1123_subdomain(name));
            if name.len() > CRON_JOB_NAME_MAX {
                messages.push(max_length(CRON_JOB_NAME_MAX));
            }
        }
        NameRule::CustomResourceDefinition => {
            messages.extend(dns1123_subdomain(name));
            let text = |path: &[&str]| super::str_at(object, path).unwrap_or_default();
            if name != format!("{}.{}", text(&["spec", "names", "plural"]), text(&["spec", "group"])) {
                messages.push("must be spec.names.plural+\".\"+spec.group".to_string());
            }
        }
    }
    messages
}

/// `path.IsValidPathSegmentName`: what every name must be to be one segment of a URL path.
pub fn path_segment_name(name: &str) -> Vec<String> {
    if name == "." || name == ".." {
        return vec![format!("may not be '{name}'")];
    }
    ["/", "%"]
        .iter()
        .filter(|forbidden| name.contains(**forbidden))
        .map(|forbidden| format!("may not contain '{forbidden}'"))
        .collect()
}

/// `name` as one URL path segment: every byte outside RFC 3986's unreserved set percent-encoded. Names that
/// passed [`path_segment_name`] then stay one segment naming one object.
pub fn url_segment(name: &str) -> Cow<'_, str> {
    let unreserved = |byte: u8| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~');
    if name.bytes().all(unreserved) {
        return Cow::Borrowed(name);
    }
    let mut encoded = String::with_capacity(name.len() * 3);
    for byte in name.bytes() {
        if unreserved(byte) {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    Cow::Owned(encoded)
}

fn max_length(limit: usize) -> String {
    format!("must be no more than {limit} characters")
}

/// apimachinery's `RegexError`: each example followed by `, `, and ` or ` between them (so two spaces before
/// `or`, as the API server writes it).
fn regex_error(message: &str, format: &str, examples: &[&str]) -> String {
    let examples: String = examples.iter().map(|example| format!("'{example}', ")).collect::<Vec<_>>().join(" or ");
    if examples.is_empty() {
        format!("{message} (regex used for validation is '{format}')")
    } else {
        format!("{message} (e.g. {examples}regex used for validation is '{format}')")
    }
}

fn is_lower_alphanumeric(byte: u8) -> bool {
    byte.is_ascii_lowercase() || byte.is_ascii_digit()
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
fn matches_dns1123_label(text: &str) -> bool {
    let bytes = text.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            is_lower_alphanumeric(*first)
                && is_lower_alphanumeric(*last)
                && bytes.iter().all(|byte| is_lower_alphanumeric(*byte) || *byte == b'-')
        }
        _ => false,
    }
}

fn matches_dns1123_subdomain(text: &str) -> bool {
    text.split('.').all(matches_dns1123_label)
}

/// `IsDNS1123Label`.
pub fn dns1123_label(value: &str) -> Vec<String> {
    let mut messages = Vec::new();
    if value.len() > DNS1123_LABEL_MAX {
        messages.push(max_length(DNS1123_LABEL_MAX));
    }
    if !matches_dns1123_label(value) {
        if matches_dns1123_subdomain(value) {
            messages.push("must not contain dots".to_string());
        } else {
            messages.push(regex_error(
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must \
                 start and end with an alphanumeric character",
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    messages
}

/// `IsDNS1035Label`: a lowercase label that starts with a letter (what Helm's lint holds a Service's name to).
pub fn dns1035_label(value: &str) -> Vec<String> {
    let mut messages = Vec::new();
    if value.len() > DNS1035_LABEL_MAX {
        messages.push(max_length(DNS1035_LABEL_MAX));
    }
    let starts_with_letter = value.as_bytes().first().is_some_and(u8::is_ascii_lowercase);
    if !(starts_with_letter && matches_dns1123_label(value)) {
        messages.push(regex_error(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic \
             character, and end with an alphanumeric character",
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    messages
}

/// `IsDNS1123Subdomain`.
pub fn dns1123_subdomain(value: &str) -> Vec<String> {
    let mut messages = Vec::new();
    if value.len() > DNS1123_SUBDOMAIN_MAX {
        messages.push(max_length(DNS1123_SUBDOMAIN_MAX));
    }
    if !matches_dns1123_subdomain(value) {
        messages.push(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and \
             must start and end with an alphanumeric character",
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    messages
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn matches_qualified_part(text: &str) -> bool {
    let bytes = text.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes.iter().all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// `IsQualifiedName` (`content.IsLabelKey`): an optional DNS subdomain prefix and `/`, then a name part.
pub fn qualified_name(value: &str) -> Vec<String> {
    const MESSAGE: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
    let examples = ["MyName", "my.name", "123-abc"];
    let parts: Vec<&str> = value.split('/').collect();
    let mut messages = Vec::new();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                messages.push("prefix part must be non-empty".to_string());
            } else {
                messages.extend(dns1123_subdomain(prefix).into_iter().map(|message| format!("prefix part {message}")));
            }
            *name
        }
        _ => {
            return vec![format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(MESSAGE, QUALIFIED_NAME_FMT, &examples)
            )];
        }
    };
    if name.is_empty() {
        messages.push("name part must be non-empty".to_string());
    } else if name.len() > QUALIFIED_NAME_MAX {
        messages.push(format!("name part {}", max_length(QUALIFIED_NAME_MAX)));
    }
    if !matches_qualified_part(name) {
        messages.push(format!("name part {}", regex_error(MESSAGE, QUALIFIED_NAME_FMT, &examples)));
    }
    messages
}

/// `IsValidLabelValue`.
pub fn label_value(value: &str) -> Vec<String> {
    let mut messages = Vec::new();
    if value.len() > LABEL_VALUE_MAX {
        messages.push(max_length(LABEL_VALUE_MAX));
    }
    if !value.is_empty() && !matches_qualified_part(value) {
        messages.push(regex_error(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and \
             must start and end with an alphanumeric character",
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    messages
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

/// A map of strings, or why not (`null` is an empty map, as the API server reads it).
fn string_map<'a>(value: Option<&'a Value>, field: &str, problems: &mut Vec<Invalid>) -> Vec<(&'a String, &'a str)> {
    let map = match value {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Object(map)) => map,
        Some(other) => {
            problems.push(Invalid {
                field: field.to_string(),
                detail: Detail::Type(format!("must be a map of strings, found {}", type_name(other))),
            });
            return Vec::new();
        }
    };
    let mut entries = Vec::new();
    for (key, value) in map {
        match value {
            Value::String(text) => entries.push((key, text.as_str())),
            other => problems.push(Invalid {
                field: format!("{field}.{key}"),
                detail: Detail::Type(format!("must be a string, found {}; quote it", type_name(other))),
            }),
        }
    }
    entries
}

/// `ValidateLabels`: every key a qualified name, every value a label value.
fn check_labels(labels: Option<&Value>, problems: &mut Vec<Invalid>) {
    for (key, value) in string_map(labels, "metadata.labels", problems) {
        for message in qualified_name(key) {
            problems.push(invalid("metadata.labels", key, message));
        }
        for message in label_value(value) {
            problems.push(invalid(format!("metadata.labels.{key}"), value, message));
        }
    }
}

/// `ValidateAnnotations`: every key a qualified name (case aside), all of them at most 256 KiB.
fn check_annotations(annotations: Option<&Value>, problems: &mut Vec<Invalid>) {
    let entries = string_map(annotations, "metadata.annotations", problems);
    let mut size = 0usize;
    for (key, value) in entries {
        for message in qualified_name(&key.to_lowercase()) {
            problems.push(invalid("metadata.annotations", key, message));
        }
        size = size.saturating_add(key.len()).saturating_add(value.len());
    }
    if size > MAX_ANNOTATION_BYTES {
        problems.push(Invalid {
            field: "metadata.annotations".to_string(),
            detail: Detail::TooLong { size, limit: MAX_ANNOTATION_BYTES },
        });
    }
}

/// ConfigMap and Secret data: keys as `IsConfigMapKey`, at most [`MAX_DATA_BYTES`] in all
/// (`ValidateConfigMap`, `ValidateSecret`; a Secret's `stringData` counts as the data it becomes).
fn check_data(object: &Value, group: &str, kind: &str, problems: &mut Vec<Invalid>) {
    let fields: &[&str] = match (group, kind) {
        ("", "ConfigMap") => &["data", "binaryData"],
        ("", "Secret") => &["data", "stringData"],
        _ => return,
    };
    let mut size = 0usize;
    for field in fields {
        for (key, value) in string_map(object.get(*field), field, problems) {
            for message in config_map_key(key) {
                problems.push(invalid(format!("{field}[{key}]"), key, message));
            }
            // Binary data is base64 in JSON: what is stored is about three quarters of it.
            let stored = if matches!(*field, "binaryData") || (kind == "Secret" && *field == "data") {
                value.len() / 4 * 3
            } else {
                value.len()
            };
            size = size.saturating_add(stored);
        }
    }
    if size > MAX_DATA_BYTES {
        problems.push(Invalid { field: fields.join(", "), detail: Detail::TooLong { size, limit: MAX_DATA_BYTES } });
    }
}

/// `IsConfigMapKey`.
fn config_map_key(key: &str) -> Vec<String> {
    let mut messages = Vec::new();
    if key.len() > CONFIG_MAP_KEY_MAX {
        messages.push(max_length(CONFIG_MAP_KEY_MAX));
    }
    if key.is_empty() || !key.bytes().all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_')) {
        messages.push(regex_error(
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
            CONFIG_MAP_KEY_FMT,
            &["key.name", "KEY_NAME", "key-name"],
        ));
    }
    if key == "." || key == ".." {
        messages.push(format!("must not be '{key}'"));
    } else if key.starts_with("..") {
        messages.push("must not start with '..'".to_string());
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problems(object: Value, group: &str, kind: &str, namespace: Option<&str>) -> Vec<String> {
        check_object(&object, group, kind, namespace).iter().map(ToString::to_string).collect()
    }

    fn named(name: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "X", "metadata": {"name": name}})
    }

    #[test]
    fn names_follow_the_rule_of_their_kind() {
        let cases: &[(&str, &str, &str, bool)] = &[
            ("apps", "Deployment", "web", true),
            ("apps", "Deployment", "web.v2", true),
            ("apps", "Deployment", "Web", false),
            ("apps", "Deployment", "web_1", false),
            ("apps", "Deployment", "web/scale", false),
            ("apps", "Deployment", "-web", false),
            ("apps", "StatefulSet", "db.v2", false),
            ("apps", "StatefulSet", "db", true),
            ("", "Service", "123-abc", true),
            ("", "Namespace", "shop.prod", false),
            ("batch", "CronJob", &"a".repeat(52), true),
            ("batch", "CronJob", &"a".repeat(53), false),
            ("rbac.authorization.k8s.io", "ClusterRole", "system:aggregate-to-view", true),
            ("rbac.authorization.k8s.io", "Role", "Read Only?", true),
            ("rbac.authorization.k8s.io", "Role", "..", false),
            ("rbac.authorization.k8s.io", "RoleBinding", "a%2Fb", false),
            ("example.com", "Widget", "w", true),
            ("example.com", "Widget", "W", false),
            ("", "ConfigMap", &"a".repeat(253), true),
            ("", "ConfigMap", &"a".repeat(254), false),
        ];
        for (group, kind, name, valid) in cases {
            let found = problems(named(name), group, kind, None);
            assert_eq!(found.is_empty(), *valid, "{group}/{kind} `{name}`: {found:?}");
        }
    }

    #[test]
    fn messages_are_the_api_servers() {
        assert_eq!(
            problems(named("Web"), "apps", "Deployment", Some("default")),
            ["metadata.name: Invalid value: \"Web\": a lowercase RFC 1123 subdomain must consist of lower case \
              alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. \
              'example.com', regex used for validation is \
              '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]
        );
        assert_eq!(
            problems(named("web/scale"), "apps", "Deployment", None),
            ["metadata.name: Invalid value: \"web/scale\": may not contain '/'"]
        );
        assert_eq!(
            problems(named("a.b"), "", "Namespace", None),
            ["metadata.name: Invalid value: \"a.b\": must not contain dots"]
        );
        let crd = json!({"metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.org", "names": {"plural": "widgets"}}});
        assert_eq!(
            problems(crd, "apiextensions.k8s.io", "CustomResourceDefinition", None),
            ["metadata.name: Invalid value: \"widgets.example.com\": must be spec.names.plural+\".\"+spec.group"]
        );
        assert_eq!(problems(json!({"metadata": {}}), "", "ConfigMap", None), ["metadata.name: Required value"]);
    }

    #[test]
    fn namespaces_labels_and_annotations() {
        let object = json!({"metadata": {"name": "a",
            "labels": {"app.kubernetes.io/name": "web", "bad key": "x", "tier": "front end", "long": "v".repeat(64)},
            "annotations": {"Example.COM/Mixed": "ok", "count": 3, "a/b/c": "x"}}});
        let found = problems(object, "", "ConfigMap", Some("Shop"));
        let fields: Vec<&str> = found.iter().map(|line| line.split(": ").next().unwrap_or_default()).collect();
        assert_eq!(
            fields,
            [
                "metadata.namespace",
                "metadata.labels",
                "metadata.labels.long",
                "metadata.labels.tier",
                "metadata.annotations.count",
                "metadata.annotations"
            ],
            "{found:#?}"
        );
        assert!(found[4].ends_with("Invalid type: must be a string, found a number; quote it"), "{}", found[4]);
        let listed = json!({"metadata": {"name": "a", "labels": ["app=web"]}});
        assert_eq!(
            problems(listed, "", "ConfigMap", None),
            ["metadata.labels: Invalid type: must be a map of strings, found a list"]
        );
    }

    #[test]
    fn sizes_the_server_refuses() {
        let annotations = json!({"metadata": {"name": "a", "annotations": {"big": "x".repeat(MAX_ANNOTATION_BYTES)}}});
        assert_eq!(
            problems(annotations, "", "Pod", None),
            ["metadata.annotations: Too long: 262147 bytes, may not be more than 262144 bytes"]
        );
        let config_map = json!({"metadata": {"name": "a"}, "data": {"big": "x".repeat(MAX_DATA_BYTES + 1)}});
        assert_eq!(
            problems(config_map, "", "ConfigMap", None),
            ["data, binaryData: Too long: 1048577 bytes, may not be more than 1048576 bytes"]
        );
        let widget = json!({"metadata": {"name": "a"}, "spec": {"blob": "x".repeat(MAX_REQUEST_BYTES)}});
        assert_eq!(json_len(&widget), serde_json::to_vec(&widget).map(|text| text.len()).unwrap_or_default());
        let found = problems(widget, "example.com", "Widget", None);
        assert_eq!(found.len(), 1);
        assert!(found[0].starts_with("<object>: Too long: 31457"), "{}", found[0]);
        let secret = json!({"metadata": {"name": "a"}, "stringData": {"bad/key": "x"}});
        assert!(problems(secret, "", "Secret", None)[0].starts_with("stringData[bad/key]: Invalid value: \"bad/key\""));
    }

    #[test]
    fn url_segments_hold_one_name() {
        assert_eq!(url_segment("web"), "web");
        assert_eq!(url_segment("Read Only?#x"), "Read%20Only%3F%23x");
        assert_eq!(url_segment("système"), "syst%C3%A8me");
        assert_eq!(path_segment_name("."), ["may not be '.'"]);
        assert_eq!(path_segment_name("a/b%"), ["may not contain '/'", "may not contain '%'"]);
    }
}
