//! CEL rule sources: the rules file (`--health-rules FILE`) and the per-object `berth.dev/health` annotation.
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
//! ```
//!
//! An entry with a kind beats a group-only entry; two entries for the same group and kind (or two group-only
//! entries for the same group) are rejected, as Flux rejects them. `berth.dev/health` holds the same
//! `current`/`inProgress`/`failed` keys as a YAML (or JSON) mapping. Unknown keys are errors, so a typo such
//! as `curent` is reported instead of silently ignored.

use super::cel::CelRule;
use super::problem::{RuleProblem, RulesError};
use crate::manifest::{Problem, parse_documents};
use crate::object::group_of;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::Path;

/// The annotation holding an object's own CEL rule.
pub const ANNOTATION: &str = "berth.dev/health";

/// One compiled entry of a rules file.
#[derive(Debug)]
pub struct RuleEntry {
    /// 0-based position in the file's list.
    pub index: usize,
    pub api_version: String,
    pub group: String,
    pub kind: Option<String>,
    pub rule: CelRule,
}

/// A compiled rules file: entries and the tables that find the one for an object.
#[derive(Debug, Default)]
pub struct RulesFile {
    pub path: String,
    entries: Vec<RuleEntry>,
    by_kind: HashMap<(String, String), usize>,
    by_group: HashMap<String, usize>,
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
        let mut syntax = Vec::new();
        let documents = parse_documents(text, path, false, &mut syntax);
        let mut problems: Vec<RuleProblem> = syntax.into_iter().map(|problem| syntax_problem(problem, path)).collect();
        let mut items = Vec::new();
        for document in documents {
            match document.value {
                Value::Array(list) => items.extend(list),
                Value::Object(mut map) if map.contains_key("healthCheckExprs") => {
                    match map.remove("healthCheckExprs") {
                        Some(Value::Array(list)) => items.extend(list),
                        Some(Value::Null) | None => {}
                        Some(_) => problems.push(invalid(path, "`healthCheckExprs` must be a list of rules")),
                    }
                }
                _ => problems.push(invalid(
                    path,
                    "expected a list of rules (`- apiVersion: ...`), or a mapping with a `healthCheckExprs` list",
                )),
            }
        }
        let mut file = RulesFile { path: path.to_string(), ..RulesFile::default() };
        for (index, item) in items.into_iter().enumerate() {
            match compile_entry(index, &item, path) {
                Ok(entry) => file.insert(entry, &mut problems),
                Err(mut entry_problems) => problems.append(&mut entry_problems),
            }
        }
        if problems.is_empty() { Ok(file) } else { Err(RulesError { problems }) }
    }

    fn insert(&mut self, entry: RuleEntry, problems: &mut Vec<RuleProblem>) {
        let position = self.entries.len();
        let existing = match &entry.kind {
            Some(kind) => self.by_kind.get(&(entry.group.clone(), kind.clone())).copied(),
            None => self.by_group.get(&entry.group).copied(),
        };
        if let Some(first) = existing {
            problems.push(RuleProblem::DuplicateRule {
                origin: entry_origin(&self.path, entry.index, Some(&entry.api_version), entry.kind.as_deref()),
                covers: covers(&entry.group, entry.kind.as_deref()),
                first: self.entries[first].index,
            });
            return;
        }
        match &entry.kind {
            Some(kind) => self.by_kind.insert((entry.group.clone(), kind.clone()), position),
            None => self.by_group.insert(entry.group.clone(), position),
        };
        self.entries.push(entry);
    }

    /// The entry for an object of `group` and `kind`: the kind's entry, else the group's.
    pub fn find(&self, group: &str, kind: &str) -> Option<&RuleEntry> {
        let position = self.by_kind.get(&(group.to_string(), kind.to_string())).or_else(|| self.by_group.get(group))?;
        self.entries.get(*position)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
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
    let group = if group.is_empty() { "the core group".to_string() } else { format!("group `{group}`") };
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

/// Compiles one list item of the rules file.
fn compile_entry(index: usize, item: &Value, path: &str) -> Result<RuleEntry, Vec<RuleProblem>> {
    let api_version = item.get("apiVersion").and_then(Value::as_str);
    let kind = item.get("kind").and_then(Value::as_str).filter(|kind| !kind.is_empty());
    let origin = entry_origin(path, index, api_version, kind);
    let Value::Object(map) = item else {
        return Err(vec![RuleProblem::InvalidRule { origin, message: "a rule must be a mapping".to_string() }]);
    };
    let mut problems = Vec::new();
    let mut shape = |message: String| problems.push(RuleProblem::InvalidRule { origin: origin.clone(), message });
    for key in map.keys() {
        if !matches!(key.as_str(), "apiVersion" | "kind" | "current" | "inProgress" | "failed") {
            shape(format!("unknown key `{key}` (expected apiVersion, kind, current, inProgress, failed)"));
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
    match sources.compile() {
        // An expression that exceeds the budget on an empty object exceeds it on every object.
        Ok(rule) if let Some((field, cost)) = rule.over_budget(&Value::Object(Map::new())) => {
            Err(vec![RuleProblem::InvalidRule { origin, message: super::cel::over_budget_message(field, cost) }])
        }
        Ok(rule) => Ok(RuleEntry {
            index,
            api_version: api_version.unwrap_or_default().to_string(),
            group,
            kind: kind.map(str::to_string),
            rule,
        }),
        Err(errors) => Err(errors
            .into_iter()
            .map(|error| RuleProblem::CompileExpression { origin: origin.clone(), error })
            .collect()),
    }
}

/// The group of a rule's apiVersion; `cert-manager.io` alone (a group without a version) is a mistake.
fn api_version_group(api_version: &str) -> Result<&str, String> {
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

impl Sources<'_> {
    fn compile(&self) -> Result<CelRule, Vec<super::cel::SyntaxError>> {
        CelRule::compile(self.current, self.in_progress, self.failed)
    }
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
    let value: Value = serde_saphyr::from_str_with_options(text, crate::manifest::yaml_options()).map_err(|error| {
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
        Some(sources) if messages.is_empty() => sources.compile().map_err(AnnotationProblem::Syntax),
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
"#;

    #[test]
    fn kind_entries_beat_group_entries() {
        let file = RulesFile::parse(RULES, "rules.yaml").expect("valid");
        assert_eq!(file.len(), 3);
        assert_eq!(file.find("cert-manager.io", "Certificate").map(|entry| entry.index), Some(0));
        assert_eq!(file.find("cert-manager.io", "Issuer").map(|entry| entry.index), Some(1));
        assert_eq!(file.find("", "ConfigMap").map(|entry| entry.index), Some(2));
        assert!(file.find("", "Secret").is_none());
        assert!(file.find("apps", "Deployment").is_none());
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
"#;
        let error = RulesFile::parse(text, "rules.yaml").expect_err("invalid");
        let lines: Vec<String> = error.problems.iter().map(ToString::to_string).collect();
        assert_eq!(lines.len(), 8, "{lines:#?}");
        assert!(
            lines[0].starts_with(
                "rules.yaml: rule [0] (cert-manager.io/v1 Certificate): `current` at line 1, column 16: Syntax error"
            ),
            "{}",
            lines[0]
        );
        assert_eq!(
            lines[1],
            "rules.yaml: rule [1] (cert-manager.io): unknown key `curent` (expected apiVersion, kind, current, inProgress, failed)"
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

    #[test]
    fn rules_that_exceed_the_budget_on_any_object_are_refused_when_read() {
        let ten = "[0,1,2,3,4,5,6,7,8,9]";
        let bomb =
            format!("{ten}.map(a, {ten}.map(b, {ten}.map(c, {ten}.map(d, {ten}.map(e, {ten}.map(f, 1)))))).size() > 0");
        let text = format!("- apiVersion: example.com/v1\n  current: '{bomb}'\n");
        let error = RulesFile::parse(&text, "rules.yaml").expect_err("over budget");
        let message = error.to_string();
        assert!(message.starts_with("rules.yaml: rule [0] (example.com/v1): `current` could cost up to "), "{message}");
    }
}
