//! What can be wrong with health rules, in a rules file or in an object's annotations.
//!
//! Rules are checked before anything is applied; every problem is collected so one run reports them all, each
//! naming where it was found: the file and the rule's list index, or the object and the manifest it came from,
//! and for CEL the position inside the expression.

use super::cel::SyntaxError;
use crate::problems::Problems;

/// One problem with a health rule. Each variant names the step that failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleProblem {
    /// The rules file cannot be read.
    #[error("{path}: cannot read: {message}")]
    ReadFile { path: String, message: String },
    /// The rules file is not valid YAML.
    #[error("{path}{}: invalid YAML: {message}", line.map(|line| format!(", line {line}")).unwrap_or_default())]
    ParseFile { path: String, line: Option<usize>, message: String },
    /// A rule (or the file around it) does not have the expected shape: a missing or unknown key, a wrong type.
    #[error("{origin}: {message}")]
    InvalidRule { origin: String, message: String },
    /// Two rules of a file cover the same group (and kind).
    #[error("{origin}: a rule for {covers} is already defined at rule [{first}]")]
    DuplicateRule { origin: String, covers: String, first: usize },
    /// A CEL expression does not parse.
    #[error("{origin}: {error}")]
    CompileExpression { origin: String, error: SyntaxError },
    /// An object's health annotation is malformed (seed 001 value, HIP-0025 JSON or JSONPath, `berth.dev/health`
    /// YAML).
    #[error("{origin}: annotation `{annotation}`: {message}")]
    InvalidAnnotation { origin: String, annotation: String, message: String },
}

/// Every problem found in a rules file; the file is rejected as a whole.
pub type RulesError = Problems<RuleProblem>;

/// Every malformed health annotation found in a set of manifests.
pub type AnnotationErrors = Problems<RuleProblem>;
