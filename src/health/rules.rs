//! CEL rule sources: the rules file (`--health-rules FILE`), the built-in data files (same format) and the
//! per-object `berth.dev/health` annotation.
//!
//! The rules file is a YAML list of Flux `healthCheckExprs` entries (a mapping holding such a list under
//! `healthCheckExprs:`, as in a Kustomization's spec, is read too):
//!
//! ```yaml
//! - apiVersion: cert-manager.io/v1      # required; only the group counts
//!   kind: Certificate                   # optional; without it the rule covers every kind of the group
//!   current: status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')   # required
//!   failed: status.conditions.exists(c, c.type == 'Issuing' && c.status == 'False')  # optional
//!   inProgress: ...                     # optional
//! - apiVersion: '*'                     # any custom resource group (berth's addition), only with `match`:
//!   match: [spec.forProvider]           # the entry applies to objects that have one of these fields
//!   current: ...
//! ```
//!
//! An entry with a kind beats a group-only entry, which beats any-group entries; two entries for the same group
//! and kind (or two group-only entries for the same group) are rejected, as Flux rejects them. `berth.dev/health`
//! holds the same `current`/`inProgress`/`failed` keys as a YAML (or JSON) mapping. Unknown keys are errors, so
//! a typo such as `curent` is reported instead of silently ignored.
//!
//! Reading an entry (its shape) and compiling its expressions are separate steps: the built-in rules read a
//! data file when its group is first seen and compile an entry when its kind is first judged.

use super::cel::CelRule;
use super::problem::{RuleProblem, RulesError};
use super::table::{ANY_GROUP, Coverage, Covers, FieldPath, RuleTable};
use crate::manifest::{Problem, parse_documents};
use crate::object::group_of;
use serde_json::{Map, Value};
use std::path::Path;

/// The annotation holding an object's own CEL rule.
pub const ANNOTATION: &str = "berth.dev/health";

/// The keys an entry may hold.
const ENTRY_KEYS: [&str; 6] = ["apiVersion", "kind", "match", "current", "inProgress", "failed"];

/// One entry as read from a file, before its expressions are compiled.
#[derive(Debug, Clone)]
pub struct EntrySource {
    /// 0-based position in the file's list.
    pub index: usize,
    pub api_version: String,
    pub coverage: Coverage,
    pub current: String,
    pub in_progress: Option<String>,
    pub failed: Option<String>,
}

impl EntrySource {
    /// Compiles the expressions.
    ///
    /// # Errors
    /// One [`super::cel::SyntaxError`] per expression that does not parse.
    pub fn compile(&self) -> Result<CelRule, Vec<super::cel::SyntaxError>> {
        CelRule::compile(&self.current, self.in_progress.as_deref(), self.failed.as_deref())
    }

    /// `rules.yaml: rule [2] (cert-manager.io/v1 Certificate)`.
    pub fn origin(&self, path: &str) -> String {
        entry_origin(path, self.index, Some(&self.api_version), self.coverage.kind.as_deref())
    }
}

/// One compiled entry of a rules file.
#[derive(Debug)]
pub struct RuleEntry {
    /// 0-based position in the file's list.
    pub index: usize,
    pub api_version: String,
    pub coverage: Coverage,
    pub rule: CelRule,
}

impl RuleEntry {
    pub fn kind(&self) -> Option<&str> {
        self.coverage.kind.as_deref()
    }
}

impl Covers for RuleEntry {
    fn coverage(&self) -> &Coverage {
        &self.coverage
    }

    fn index(&self) -> usize {
        self.index
    }
}

/// A compiled rules file: its entries in the table that finds the one for an object.
#[derive(Debug, Default)]
pub struct RulesFile {
    pub path: String,
    table: RuleTable<RuleEntry>,
}

impl RulesFile {
    /// Reads and compiles the rules file at `path`.
    ///
    /// # Errors
    /// A [`RulesError`] listing every problem: unreadable file, YAML syntax, malformed or duplicate entries, CEL
    /// syntax errors with their position.
    pub fn load(path: &Path) -> Result<RulesFile, RulesError> {
        let name = path.display().to_string();
        match std::fs::read_to_string(path) {
            Ok(text) => RulesFile::parse(&text, &name),
            Err(error) => {
                Err(RulesError { problems: vec![RuleProblem::ReadFile { path: name, message: read_message(&error) }] })
            }
        }
    }

    /// Compiles rules from `text`; `path` names the file in messages.
    ///
    /// # Errors
    /// As [`RulesFile::load`].
    pub fn parse(text: &str, path: &str) -> Result<RulesFile, RulesError> {
        let (entries, mut problems) = read_entries(text, path);
        let mut file = RulesFile { path: path.to_string(), table: RuleTable::default() };
        for entry in entries {
            let source = match entry {
                Ok(source) => source,
                Err(mut entry_problems) => {
                    problems.append(&mut entry_problems);
                    continue;
                }
            };
            let rule = match source.compile() {
                Ok(rule) => rule,
                Err(errors) => {
                    let origin = source.origin(path);
                    problems.extend(
                        errors
                            .into_iter()
                            .map(|error| RuleProblem::CompileExpression { origin: origin.clone(), error }),
                    );
                    continue;
                }
            };
            let origin = source.origin(path);
            let entry =
                RuleEntry { index: source.index, api_version: source.api_version, coverage: source.coverage, rule };
            if let Err(first) = insert(&mut file.table, entry, origin) {
                problems.push(first);
            }
        }
        if problems.is_empty() { Ok(file) } else { Err(RulesError { problems }) }
    }

    /// The entry for `object` of `group` and `kind`: the kind's entry, else the group's, else an any-group
    /// entry whose fields the object has.
    pub fn find(&self, group: &str, kind: &str, object: &Value) -> Option<&RuleEntry> {
        self.table.find(group, kind, object)
    }

    pub fn len(&self) -> usize {
        self.table.len()
    }

    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }
}

/// Adds a read entry to `table`; a clash with an earlier entry becomes a [`RuleProblem::DuplicateRule`].
///
/// # Errors
/// The duplicate-rule problem.
pub fn insert<T: Covers>(table: &mut RuleTable<T>, entry: T, origin: String) -> Result<(), RuleProblem> {
    let covered = covers(&entry.coverage().group, entry.coverage().kind.as_deref());
    table.insert(entry).map_err(|position| RuleProblem::DuplicateRule {
        origin,
        covers: covered,
        first: table.get(position).map(|first| first_index(first)).unwrap_or(position),
    })
}

/// The file index of an entry already in a table, for duplicate messages.
fn first_index<T: Covers>(entry: &T) -> usize {
    entry.index()
}

/// Reads the entries of a rules file without compiling their expressions: for each list item, in order, the
/// entry or its problems; plus problems of the file as a whole (YAML syntax, wrong shape).
pub fn read_entries(text: &str, path: &str) -> (Vec<Result<EntrySource, Vec<RuleProblem>>>, Vec<RuleProblem>) {
    let mut syntax = Vec::new();
    let documents = parse_documents(text, path, false, &mut syntax);
    let mut problems: Vec<RuleProblem> = syntax.into_iter().map(|problem| syntax_problem(problem, path)).collect();
    let mut items = Vec::new();
    for document in documents {
        match document.value {
            Value::Array(list) => items.extend(list),
            Value::Object(mut map) if map.contains_key("healthCheckExprs") => match map.remove("healthCheckExprs") {
                Some(Value::Array(list)) => items.extend(list),
                Some(Value::Null) | None => {}
                Some(_) => problems.push(invalid(path, "`healthCheckExprs` must be a list of rules")),
            },
            _ => problems.push(invalid(
                path,
                "expected a list of rules (`- apiVersion: ...`), or a mapping with a `healthCheckExprs` list",
            )),
        }
    }
    let entries = items.iter().enumerate().map(|(index, item)| read_entry(index, item, path)).collect();
    (entries, problems)
}

/// The reason an open failed, worded as the manifest loader words it.
fn read_message(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        _ => error.to_string(),
    }
}

/// "the group `cert-manager.io`" or "`cert-manager.io` kind `Certificate`".
fn covers(group: &str, kind: Option<&str>) -> String {
    let group = match group {
        "" => "the core group".to_string(),
        ANY_GROUP => "any group".to_string(),
        group => format!("group `{group}`"),
    };
    match kind {
        Some(kind) => format!("{group}, kind `{kind}`"),
        None => group,
    }
}

/// `rules.yaml: rule [2] (cert-manager.io/v1 Certificate)`.
pub fn entry_origin(path: &str, index: usize, api_version: Option<&str>, kind: Option<&str>) -> String {
    let what = [api_version, kind].into_iter().flatten().collect::<Vec<_>>().join(" ");
    if what.is_empty() { format!("{path}: rule [{index}]") } else { format!("{path}: rule [{index}] ({what})") }
}

fn invalid(path: &str, message: &str) -> RuleProblem {
    RuleProblem::InvalidRule { origin: path.to_string(), message: message.to_string() }
}

fn syntax_problem(problem: Problem, path: &str) -> RuleProblem {
    match problem {
        Problem::Syntax { line, message, .. } => RuleProblem::ParseFile { path: path.to_string(), line, message },
        other => RuleProblem::InvalidRule { origin: path.to_string(), message: other.to_string() },
    }
}

/// Reads one list item of a rules file: its shape, not its expressions.
fn read_entry(index: usize, item: &Value, path: &str) -> Result<EntrySource, Vec<RuleProblem>> {
    let api_version = item.get("apiVersion").and_then(Value::as_str);
    let kind = item.get("kind").and_then(Value::as_str).filter(|kind| !kind.is_empty());
    let origin = entry_origin(path, index, api_version, kind);
    let Value::Object(map) = item else {
        return Err(vec![RuleProblem::InvalidRule { origin, message: "a rule must be a mapping".to_string() }]);
    };
    let mut problems = Vec::new();
    let mut shape = |message: String| problems.push(RuleProblem::InvalidRule { origin: origin.clone(), message });
    for key in map.keys() {
        if !ENTRY_KEYS.contains(&key.as_str()) {
            shape(format!("unknown key `{key}` (expected {})", ENTRY_KEYS.join(", ")));
        }
    }
    let group = match map.get("apiVersion") {
        Some(Value::String(api_version)) if !api_version.is_empty() => match api_version_group(api_version) {
            Ok(group) => Some(group.to_string()),
            Err(message) => {
                shape(message);
                None
            }
        },
        Some(Value::String(_)) | None => {
            shape("`apiVersion` is required".to_string());
            None
        }
        Some(_) => {
            shape("`apiVersion` must be a string".to_string());
            None
        }
    };
    if map.get("kind").is_some_and(|kind| !kind.is_string() && !kind.is_null()) {
        shape("`kind` must be a string".to_string());
    }
    let match_fields = match match_fields_of(map, group.as_deref()) {
        Ok(fields) => fields,
        Err(message) => {
            shape(message);
            Vec::new()
        }
    };
    let expressions = match expressions_of(map) {
        Ok(expressions) => Some(expressions),
        Err(messages) => {
            messages.into_iter().for_each(&mut shape);
            None
        }
    };
    let (Some(group), Some(sources)) = (group, expressions) else {
        return Err(problems);
    };
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(EntrySource {
        index,
        api_version: api_version.unwrap_or_default().to_string(),
        coverage: Coverage { group, kind: kind.map(str::to_string), match_fields },
        current: sources.current.to_string(),
        in_progress: sources.in_progress.map(str::to_string),
        failed: sources.failed.map(str::to_string),
    })
}

/// The `match` list: required for an any-group entry, refused elsewhere (the group already selects).
fn match_fields_of(map: &Map<String, Value>, group: Option<&str>) -> Result<Vec<FieldPath>, String> {
    let any_group = group == Some(ANY_GROUP);
    let Some(value) = map.get("match").filter(|value| !value.is_null()) else {
        return if any_group {
            Err("`apiVersion: '*'` (any group) needs `match`, a list of fields such as `[spec.forProvider]`"
                .to_string())
        } else {
            Ok(Vec::new())
        };
    };
    if !any_group {
        return Err(
            "`match` is only for `apiVersion: '*'` (any group); a group already selects the objects".to_string()
        );
    }
    let Value::Array(items) = value else {
        return Err("`match` must be a list of field paths such as `[spec.forProvider]`".to_string());
    };
    let fields: Option<Vec<FieldPath>> = items.iter().map(|item| item.as_str().and_then(FieldPath::parse)).collect();
    match fields {
        Some(fields) if !fields.is_empty() => Ok(fields),
        _ => Err("`match` must be a non-empty list of field paths such as `[spec.forProvider]`".to_string()),
    }
}

/// The group of a rule's apiVersion; `*` (or `*/v1`) is any group; `cert-manager.io` alone (a group without a
/// version) is a mistake.
fn api_version_group(api_version: &str) -> Result<&str, String> {
    if api_version == ANY_GROUP || api_version.starts_with("*/") {
        return Ok(ANY_GROUP);
    }
    if !api_version.contains('/') && api_version.contains('.') {
        return Err(format!(
            "`apiVersion: {api_version}` names no version; write `{api_version}/v1` (the version is ignored)"
        ));
    }
    Ok(group_of(api_version))
}

/// The expression texts of a rule, before compiling.
struct Sources<'a> {
    current: &'a str,
    in_progress: Option<&'a str>,
    failed: Option<&'a str>,
}

/// The expressions of a mapping; messages for a missing `current` and for non-string values.
fn expressions_of(map: &Map<String, Value>) -> Result<Sources<'_>, Vec<String>> {
    let mut messages = Vec::new();
    let mut read = |key: &str| -> Option<&str> {
        match map.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) => Some(text.as_str()),
            Some(_) => {
                messages.push(format!("`{key}` must be a string holding a CEL expression"));
                None
            }
        }
    };
    let current = read("current");
    let in_progress = read("inProgress");
    let failed = read("failed");
    if current.is_none() && map.get("current").is_none_or(Value::is_null) {
        messages.push("`current` is required".to_string());
    }
    match current {
        Some(current) if messages.is_empty() => Ok(Sources { current, in_progress, failed }),
        _ => Err(messages),
    }
}

/// Why a `berth.dev/health` annotation cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnnotationProblem {
    /// Not YAML, not a mapping, unknown keys, missing `current`.
    Shape(String),
    /// CEL syntax errors.
    Syntax(Vec<super::cel::SyntaxError>),
}

/// Compiles the text of a `berth.dev/health` annotation.
///
/// # Errors
/// An [`AnnotationProblem`] saying what is wrong.
pub fn compile_annotation(text: &str) -> Result<CelRule, AnnotationProblem> {
    let value: Value = serde_saphyr::from_str(text).map_err(|error| {
        let message = error.to_string();
        let first = message.lines().next().unwrap_or_default().trim().to_string();
        AnnotationProblem::Shape(format!("invalid YAML: {first}"))
    })?;
    let Value::Object(map) = value else {
        return Err(AnnotationProblem::Shape(
            "expected a YAML mapping with `current` (and optionally `inProgress`, `failed`)".to_string(),
        ));
    };
    let mut messages: Vec<String> = map
        .keys()
        .filter(|key| !matches!(key.as_str(), "current" | "inProgress" | "failed"))
        .map(|key| format!("unknown key `{key}` (expected current, inProgress, failed)"))
        .collect();
    let expressions = expressions_of(&map).map_err(|mut more| messages.append(&mut more)).ok();
    match expressions {
        Some(sources) if messages.is_empty() => {
            CelRule::compile(sources.current, sources.in_progress, sources.failed).map_err(AnnotationProblem::Syntax)
        }
        _ => Err(AnnotationProblem::Shape(messages.join("; "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: &str = r#"
- apiVersion: cert-manager.io/v1
  kind: Certificate
  current: status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')
- apiVersion: cert-manager.io/v1
  current: "true"
- apiVersion: v1
  kind: ConfigMap
  current: has(data.ready)
- apiVersion: '*'
  match: [spec.forProvider]
  current: "true"
"#;

    #[test]
    fn kind_entries_beat_group_entries() {
        let file = RulesFile::parse(RULES, "rules.yaml").expect("valid");
        assert_eq!(file.len(), 4);
        let object = serde_json::json!({"spec": {}});
        let managed = serde_json::json!({"spec": {"forProvider": {}}});
        assert_eq!(file.find("cert-manager.io", "Certificate", &object).map(|entry| entry.index), Some(0));
        assert_eq!(file.find("cert-manager.io", "Issuer", &managed).map(|entry| entry.index), Some(1));
        assert_eq!(file.find("", "ConfigMap", &object).map(|entry| entry.index), Some(2));
        assert!(file.find("", "Secret", &object).is_none());
        assert!(file.find("apps", "Deployment", &object).is_none());
        assert_eq!(file.find("s3.aws.upbound.io", "Bucket", &managed).map(|entry| entry.index), Some(3));
    }

    #[test]
    fn flux_kustomization_snippet_is_read_and_empty_files_hold_no_rules() {
        let text = "healthCheckExprs:\n  - apiVersion: example.com/v1\n    kind: Widget\n    current: 'true'\n";
        assert_eq!(RulesFile::parse(text, "f.yaml").expect("valid").len(), 1);
        assert!(RulesFile::parse("", "f.yaml").expect("valid").is_empty());
    }

    #[test]
    fn every_problem_is_reported_with_file_index_and_position() {
        let text = r#"
- apiVersion: cert-manager.io/v1
  kind: Certificate
  current: status.ready ==
- apiVersion: cert-manager.io
  curent: "true"
- apiVersion: example.com/v1
  current: "true"
- apiVersion: example.com/v2
  current: "false"
- kind: Widget
  current: 3
- just text
- apiVersion: '*'
  current: "true"
- apiVersion: example.com/v1
  kind: Gadget
  match: [spec.x]
  current: "true"
- apiVersion: '*/v1'
  match: [spec..x]
  current: "true"
"#;
        let error = RulesFile::parse(text, "rules.yaml").expect_err("invalid");
        let lines: Vec<String> = error.problems.iter().map(ToString::to_string).collect();
        assert_eq!(lines.len(), 11, "{lines:#?}");
        assert!(
            lines[0].starts_with(
                "rules.yaml: rule [0] (cert-manager.io/v1 Certificate): `current` at line 1, column 16: Syntax error"
            ),
            "{}",
            lines[0]
        );
        assert_eq!(
            lines[1],
            "rules.yaml: rule [1] (cert-manager.io): unknown key `curent` (expected apiVersion, kind, match, current, inProgress, failed)"
        );
        assert_eq!(
            lines[2],
            "rules.yaml: rule [1] (cert-manager.io): `apiVersion: cert-manager.io` names no version; write `cert-manager.io/v1` (the version is ignored)"
        );
        assert_eq!(lines[3], "rules.yaml: rule [1] (cert-manager.io): `current` is required");
        assert_eq!(
            lines[4],
            "rules.yaml: rule [3] (example.com/v2): a rule for group `example.com` is already defined at rule [2]"
        );
        assert_eq!(lines[5], "rules.yaml: rule [4] (Widget): `apiVersion` is required");
        assert_eq!(lines[6], "rules.yaml: rule [4] (Widget): `current` must be a string holding a CEL expression");
        assert_eq!(lines[7], "rules.yaml: rule [5]: a rule must be a mapping");
        assert_eq!(
            lines[8],
            "rules.yaml: rule [6] (*): `apiVersion: '*'` (any group) needs `match`, a list of fields such as `[spec.forProvider]`"
        );
        assert_eq!(
            lines[9],
            "rules.yaml: rule [7] (example.com/v1 Gadget): `match` is only for `apiVersion: '*'` (any group); a group already selects the objects"
        );
        assert_eq!(
            lines[10],
            "rules.yaml: rule [8] (*/v1): `match` must be a non-empty list of field paths such as `[spec.forProvider]`"
        );
    }

    #[test]
    fn yaml_errors_and_wrong_shapes_name_the_file() {
        let error = RulesFile::parse("- a: [\n", "rules.yaml").expect_err("invalid");
        assert!(error.to_string().starts_with("rules.yaml, line "), "{error}");
        let error = RulesFile::parse("apiVersion: v1\n", "rules.yaml").expect_err("invalid");
        assert!(error.to_string().starts_with("rules.yaml: expected a list of rules"), "{error}");
        let error = RulesFile::load(Path::new("does/not/exist.yaml")).expect_err("missing");
        assert!(error.to_string().starts_with("does/not/exist.yaml: cannot read: "), "{error}");
    }

    #[test]
    fn annotation_holds_the_same_keys() {
        assert!(compile_annotation("current: status.phase == 'Ready'\nfailed: status.phase == 'Error'").is_ok());
        assert!(compile_annotation(r#"{"current": "true"}"#).is_ok());
        let cases = [
            ("current: [", "invalid YAML"),
            ("- current: 'true'", "expected a YAML mapping"),
            ("curent: 'true'", "unknown key `curent`"),
            ("failed: 'true'", "`current` is required"),
        ];
        for (text, expected) in cases {
            match compile_annotation(text) {
                Err(AnnotationProblem::Shape(message)) => assert!(message.contains(expected), "{text}: {message}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        assert!(
            matches!(compile_annotation("current: 'a ='"), Err(AnnotationProblem::Syntax(errors)) if errors.len() == 1)
        );
    }
}
