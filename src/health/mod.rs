//! User health rules: what "ready" means for objects kstatus cannot judge, declared by chart authors on the
//! object or by the user in a rules file.
//!
//! kstatus reads a cert-manager Certificate whose issuance failed as in progress forever, a Crossplane
//! resource with `Synced=False` or a Strimzi Kafka that is `NotReady` as ready, and cannot read Argo Rollouts'
//! string `observedGeneration` at all. Rules fix that, from the most specific to the most general:
//!
//! 1. the object's own annotations, in this order, the first kind present deciding alone:
//!    - `berth.dev/health`: a CEL rule (Flux `healthCheckExprs` keys and semantics, `cel.rs`);
//!    - `helm.sh/readiness-success` + `helm.sh/readiness-failure` (HIP-0025, `readiness.rs`); with only one of
//!      the pair the object is judged as if neither were set, and [`HealthRules::check`] warns;
//!    - `helm.sh/health/<path>: "<op><value>"` (seed 001, `annotations.rs`);
//! 2. the rules file's entry for the object's group and kind, else for its group, else an any-group entry
//!    whose `match` fields the object has;
//! 3. the built-in rules for popular custom resources (`builtin/`, in the same format), unless turned off;
//! 4. kstatus ([`crate::status`]).
//!
//! Whatever the rules say, an object with `metadata.deletionTimestamp` is Terminating, as kstatus reports it:
//! rules describe readiness, not deletion.
//!
//! Everything here is pure: [`HealthRules`] is compiled once per run (the rules file when loaded, each
//! object's annotations on first sight, cached by their text, each built-in rule when its kind is first seen)
//! and then judges objects as often as a wait needs. [`HealthRules::check`] validates every object's annotations up front, so a syntax error stops a run
//! before anything is applied.

mod annotations;
pub mod builtin;
mod cel;
mod compare;
mod jsonpath;
mod problem;
mod readiness;
mod rules;
mod table;
#[cfg(test)]
mod tests;

pub use annotations::PREFIX as FIELD_CHECK_PREFIX;
pub use cel::{CelRule, Field, SyntaxError};
pub use problem::{AnnotationErrors, RuleProblem, RulesError};
pub use readiness::{FAILURE as READINESS_FAILURE, SUCCESS as READINESS_SUCCESS};
pub use rules::{ANNOTATION as CEL_ANNOTATION, RulesFile};
pub use table::ANY_GROUP;

use crate::manifest::Manifest;
use crate::object::{group_of, str_at, value_at};
use crate::status::{self, Status};
use annotations::FieldChecks;
use jiff::Timestamp;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Compiled per-object rules kept at most this many distinct annotation sets; then the cache starts over.
const CACHE_LIMIT: usize = 4096;

/// Which rule decided an object's status (`berth health --explain`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecidedBy {
    /// The object's `berth.dev/health` CEL rule.
    CelAnnotation,
    /// The object's HIP-0025 `helm.sh/readiness-success`/`-failure` annotations.
    ReadinessAnnotations,
    /// The object's seed 001 `helm.sh/health/*` annotations (how many).
    FieldAnnotations { count: usize },
    /// An entry of the rules file: its 0-based index, and what it covers.
    RulesFile { path: String, index: usize, api_version: String, kind: Option<String> },
    /// A built-in rule, for an object of this group and kind.
    Builtin { group: String, kind: String },
    /// kstatus's built-in rules.
    Kstatus,
}

impl fmt::Display for DecidedBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecidedBy::CelAnnotation => write!(f, "annotation {CEL_ANNOTATION}"),
            DecidedBy::ReadinessAnnotations => write!(f, "annotations {READINESS_SUCCESS}, {READINESS_FAILURE}"),
            DecidedBy::FieldAnnotations { count: 1 } => write!(f, "annotation {FIELD_CHECK_PREFIX}*"),
            DecidedBy::FieldAnnotations { count } => write!(f, "{count} annotations {FIELD_CHECK_PREFIX}*"),
            DecidedBy::RulesFile { path, index, api_version, kind } => {
                write!(f, "{}", rules::entry_origin(path, *index, Some(api_version), kind.as_deref()))
            }
            DecidedBy::Builtin { group, kind } => write!(f, "built-in rule ({group}, {kind})"),
            DecidedBy::Kstatus => f.write_str("kstatus"),
        }
    }
}

/// The status of one object and the rule that decided it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    pub status: Status,
    pub message: String,
    pub decided_by: DecidedBy,
}

/// What [`HealthRules::check`] found in a set of manifests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckReport {
    /// Malformed health annotations: the run must stop before anything is applied.
    pub errors: Vec<RuleProblem>,
    /// Rules that are valid but will not act as their author may expect (e.g. half a HIP-0025 pair).
    pub warnings: Vec<String>,
}

impl CheckReport {
    /// The warnings when there are no errors.
    ///
    /// # Errors
    /// [`AnnotationErrors`] holding every error.
    pub fn into_result(self) -> Result<Vec<String>, AnnotationErrors> {
        if self.errors.is_empty() { Ok(self.warnings) } else { Err(AnnotationErrors { problems: self.errors }) }
    }
}

/// The health rules of one run: the rules file, if any, whether the built-in rules apply, and a cache of the
/// objects' compiled annotations. Shareable across threads; judging takes `&self`.
#[derive(Debug)]
pub struct HealthRules {
    file: Option<RulesFile>,
    builtin: bool,
    cache: Mutex<HashMap<String, Arc<Declared>>>,
}

impl Default for HealthRules {
    fn default() -> HealthRules {
        HealthRules { file: None, builtin: true, cache: Mutex::default() }
    }
}

/// An object's compiled annotations. A part that did not compile keeps its error message, so an object that
/// was never checked is judged Unknown with the reason rather than silently by a lower rule.
#[derive(Debug)]
struct Declared {
    cel: Option<Result<CelRule, String>>,
    readiness: Option<Result<readiness::Declared, String>>,
    fields: Option<Result<FieldChecks, String>>,
    /// `(annotation, message)` for every malformed annotation, and CEL syntax errors, for `check`.
    problems: Vec<DeclaredProblem>,
}

#[derive(Debug)]
enum DeclaredProblem {
    Annotation { annotation: String, message: String },
    Expression(SyntaxError),
}

impl HealthRules {
    /// Rules without a rules file: annotations, then the built-in rules, then kstatus.
    pub fn new() -> HealthRules {
        HealthRules::default()
    }

    /// The same rules with the built-in rules on or off (`--no-builtin-rules`).
    #[must_use]
    pub fn with_builtin(self, builtin: bool) -> HealthRules {
        HealthRules { builtin, ..self }
    }

    /// Loads and compiles a rules file (`--health-rules FILE`).
    ///
    /// # Errors
    /// A [`RulesError`] listing every problem in the file, each naming the file, the rule's index and, for CEL
    /// syntax errors, the position in the expression.
    pub fn from_file(path: &Path) -> Result<HealthRules, RulesError> {
        Ok(HealthRules::with_file(RulesFile::load(path)?))
    }

    /// Compiles rules-file text; `name` names it in messages.
    ///
    /// # Errors
    /// As [`HealthRules::from_file`].
    pub fn from_text(text: &str, name: &str) -> Result<HealthRules, RulesError> {
        Ok(HealthRules::with_file(RulesFile::parse(text, name)?))
    }

    pub fn with_file(file: RulesFile) -> HealthRules {
        HealthRules { file: Some(file), ..HealthRules::default() }
    }

    /// Validates the health annotations of every manifest, compiling them into the cache as it goes: malformed
    /// seed 001 values, HIP-0025 JSON or JSONPath, `berth.dev/health` YAML and CEL syntax, each naming the
    /// manifest's source and the object. Also warns about rules that will not act as written.
    pub fn check(&self, manifests: &[Manifest]) -> CheckReport {
        let mut report = CheckReport::default();
        for manifest in manifests {
            let Some(declared) = self.declared(&manifest.object) else { continue };
            let origin = format!("{}: {}", manifest.source, manifest.reference);
            for problem in &declared.problems {
                report.errors.push(match problem {
                    DeclaredProblem::Annotation { annotation, message } => RuleProblem::InvalidAnnotation {
                        origin: origin.clone(),
                        annotation: annotation.clone(),
                        message: message.clone(),
                    },
                    DeclaredProblem::Expression(error) => RuleProblem::CompileExpression {
                        origin: format!("{origin}: annotation `{CEL_ANNOTATION}`"),
                        error: error.clone(),
                    },
                });
            }
            if let Some(Ok(readiness::Declared::OnlyOne { present, missing })) = &declared.readiness {
                report.warnings.push(format!(
                    "{origin}: only `{present}` is set; HIP-0025 needs `{missing}` too, so both are ignored"
                ));
            }
            let kinds = [
                declared.cel.is_some(),
                matches!(declared.readiness, Some(Ok(readiness::Declared::Both(_))) | Some(Err(_))),
                declared.fields.is_some(),
            ];
            if kinds.iter().filter(|present| **present).count() > 1 {
                let decider = if kinds[0] { CEL_ANNOTATION } else { "helm.sh/readiness-*" };
                report.warnings.push(format!(
                    "{origin}: several kinds of health annotations; `{decider}` decides and the others are ignored"
                ));
            }
        }
        report
    }

    /// Judges `object` by the first rule that applies (see the module documentation).
    ///
    /// # Examples
    ///
    /// ```
    /// use berth::health::{DecidedBy, HealthRules};
    /// use berth::status::Status;
    ///
    /// let rules = HealthRules::from_text(
    ///     "- apiVersion: kafka.strimzi.io/v1beta2\n  kind: Kafka\n  \
    ///      failed: status.conditions.exists(c, c.type == 'NotReady' && c.status == 'True')\n  \
    ///      current: status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')\n",
    ///     "rules.yaml",
    /// )?;
    /// let kafka = serde_json::json!({
    ///     "apiVersion": "kafka.strimzi.io/v1beta2", "kind": "Kafka", "metadata": {"name": "events"},
    ///     "status": {"conditions": [{"type": "NotReady", "status": "True", "reason": "InvalidResourceException",
    ///         "message": "Kafka.spec.kafka.listeners is invalid"}]},
    /// });
    /// let judgement = rules.judge(&kafka, jiff::Timestamp::now());
    /// assert_eq!(judgement.status, Status::Failed);
    /// assert_eq!(judgement.message, "`failed` is true; NotReady=True (InvalidResourceException): Kafka.spec.kafka.listeners is invalid");
    /// assert!(matches!(judgement.decided_by, DecidedBy::RulesFile { index: 0, .. }));
    /// # Ok::<(), berth::health::RulesError>(())
    /// ```
    pub fn judge(&self, object: &Value, now: Timestamp) -> Judgement {
        self.judge_declared(object, object, now)
    }

    /// Judges the live `object` with the annotations of `declared`, the object as the manifest declared it.
    ///
    /// Seed 001 keys (`helm.sh/health/status/phase`) hold more than one `/`, which the Kubernetes API server
    /// rejects in annotation keys, so a wait must read the rules from the manifest rather than from the
    /// object the cluster returns. The rules file is looked up by the live object's group and kind.
    pub fn judge_declared(&self, declared: &Value, object: &Value, now: Timestamp) -> Judgement {
        if value_at(object, &["metadata", "deletionTimestamp"]).is_some_and(|value| !value.is_null()) {
            return kstatus(object, now);
        }
        if let Some(rules) = self.declared(declared)
            && let Some(judgement) = judge_with_annotations(&rules, object)
        {
            return judgement;
        }
        let group = group_of(str_at(object, &["apiVersion"]).unwrap_or_default());
        let kind = str_at(object, &["kind"]).unwrap_or_default();
        if let Some(file) = &self.file
            && let Some(entry) = file.find(group, kind, object)
        {
            let (status, message) = entry.rule.judge(object);
            return Judgement {
                status,
                message,
                decided_by: DecidedBy::RulesFile {
                    path: file.path.clone(),
                    index: entry.index,
                    api_version: entry.api_version.clone(),
                    kind: entry.kind().map(str::to_string),
                },
            };
        }
        if self.builtin
            && let Some(entry) = builtin::find(group, kind, object)
        {
            let (status, message) = match entry.rule() {
                Ok(rule) => rule.judge(object),
                Err(message) => (Status::Unknown, message.to_string()),
            };
            let decided_by = DecidedBy::Builtin { group: group.to_string(), kind: kind.to_string() };
            return Judgement { status, message, decided_by };
        }
        kstatus(object, now)
    }

    /// The compiled annotations of `object`, from the cache when the same annotation text was seen before;
    /// `None` when it carries no health annotation.
    fn declared(&self, object: &Value) -> Option<Arc<Declared>> {
        let annotations = value_at(object, &["metadata", "annotations"])?.as_object()?;
        let key = cache_key(annotations)?;
        if let Ok(cache) = self.cache.lock()
            && let Some(found) = cache.get(&key)
        {
            return Some(Arc::clone(found));
        }
        let declared = Arc::new(compile_declared(annotations));
        if let Ok(mut cache) = self.cache.lock() {
            if cache.len() >= CACHE_LIMIT {
                cache.clear();
            }
            cache.insert(key, Arc::clone(&declared));
        }
        Some(declared)
    }
}

fn kstatus(object: &Value, now: Timestamp) -> Judgement {
    let result = status::compute_or_unknown(object, now);
    Judgement { status: result.status, message: result.message, decided_by: DecidedBy::Kstatus }
}

fn is_health_annotation(key: &str) -> bool {
    key == CEL_ANNOTATION || key == READINESS_SUCCESS || key == READINESS_FAILURE || key.starts_with(FIELD_CHECK_PREFIX)
}

/// The health annotations' keys and values as one string; `None` when there are none.
fn cache_key(annotations: &Map<String, Value>) -> Option<String> {
    let mut key = String::new();
    for (name, value) in annotations.iter().filter(|(name, _)| is_health_annotation(name)) {
        key.push_str(name);
        key.push('\0');
        match value {
            Value::String(text) => key.push_str(text),
            other => key.push_str(&other.to_string()),
        }
        key.push('\0');
    }
    (!key.is_empty()).then_some(key)
}

fn compile_declared(annotations: &Map<String, Value>) -> Declared {
    let mut problems = Vec::new();
    let cel = annotations.get(CEL_ANNOTATION).map(|value| {
        let Value::String(text) = value else {
            let message = "annotation values must be strings; write the rule as a YAML block (`|`)".to_string();
            problems
                .push(DeclaredProblem::Annotation { annotation: CEL_ANNOTATION.to_string(), message: message.clone() });
            return Err(message);
        };
        rules::compile_annotation(text).map_err(|problem| match problem {
            rules::AnnotationProblem::Shape(message) => {
                problems.push(DeclaredProblem::Annotation {
                    annotation: CEL_ANNOTATION.to_string(),
                    message: message.clone(),
                });
                message
            }
            rules::AnnotationProblem::Syntax(errors) => {
                let message = errors.first().map(|error| error.to_string()).unwrap_or_default();
                problems.extend(errors.into_iter().map(DeclaredProblem::Expression));
                format!("`{CEL_ANNOTATION}` does not compile: {message}")
            }
        })
    });
    let readiness = readiness::Declared::from_annotations(annotations)
        .map(|result| result.map_err(|errors| collect(errors, &mut problems)));
    let fields = FieldChecks::from_annotations(annotations)
        .map(|result| result.map_err(|errors| collect(errors, &mut problems)));
    Declared { cel, readiness, fields, problems }
}

/// Records `(annotation, message)` problems; returns the first as the message an Unknown judgement carries.
fn collect(errors: Vec<(String, String)>, problems: &mut Vec<DeclaredProblem>) -> String {
    let first = errors.first().map(|(annotation, message)| format!("`{annotation}`: {message}")).unwrap_or_default();
    problems
        .extend(errors.into_iter().map(|(annotation, message)| DeclaredProblem::Annotation { annotation, message }));
    first
}

/// The first kind of annotation present decides: CEL, then the HIP-0025 pair, then seed 001.
fn judge_with_annotations(declared: &Declared, object: &Value) -> Option<Judgement> {
    if let Some(cel) = &declared.cel {
        let (status, message) = match cel {
            Ok(rule) => rule.judge(object),
            Err(message) => (Status::Unknown, message.clone()),
        };
        return Some(Judgement { status, message, decided_by: DecidedBy::CelAnnotation });
    }
    match &declared.readiness {
        Some(Ok(readiness::Declared::Both(readiness))) => {
            let (status, message) = match readiness.judge(object) {
                readiness::Outcome::Failed(message) => (Status::Failed, message),
                readiness::Outcome::Ready(message) => (Status::Current, message),
                readiness::Outcome::Pending(message) => (Status::InProgress, message),
            };
            return Some(Judgement { status, message, decided_by: DecidedBy::ReadinessAnnotations });
        }
        Some(Err(message)) => {
            return Some(Judgement {
                status: Status::Unknown,
                message: message.clone(),
                decided_by: DecidedBy::ReadinessAnnotations,
            });
        }
        Some(Ok(readiness::Declared::OnlyOne { .. })) | None => {}
    }
    let fields = declared.fields.as_ref()?;
    Some(match fields {
        Ok(checks) => {
            let (status, message) = match checks.judge(object) {
                annotations::Outcome::Hold(message) => (Status::Current, message),
                annotations::Outcome::Unmet(message) => (Status::InProgress, message),
            };
            Judgement { status, message, decided_by: DecidedBy::FieldAnnotations { count: checks.len() } }
        }
        Err(message) => Judgement {
            status: Status::Unknown,
            message: message.clone(),
            decided_by: DecidedBy::FieldAnnotations { count: 0 },
        },
    })
}
