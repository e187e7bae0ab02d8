//! One lint finding as Helm's `support` package has it (helm pkg/chart/v2/lint/support/message.go): a severity,
//! the file it is about and the text, printed `[SEVERITY] path: text`; and the linter that gathers them.

use std::fmt;

/// How bad a finding is. `--strict` fails a chart on warnings too, as Helm's does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// A recommendation (`icon is recommended`).
    Info,
    /// Something that breaks convention but will likely install.
    Warning,
    /// Something that will likely not install.
    Error,
}

impl Severity {
    /// The label Helm prints (`sev` in support/message.go).
    pub fn label(self) -> &'static str {
        match self {
            Severity::Info => "INFO",
            Severity::Warning => "WARNING",
            Severity::Error => "ERROR",
        }
    }
}

/// Which rule family found a finding: Helm's five, or berth's own checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    Chartfile,
    Values,
    Templates,
    Dependencies,
    Crds,
    /// berth's own checks (health and ordering annotations, what the API server refuses): see `berth_checks.rs`.
    Berth,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub severity: Severity,
    /// The file (or directory) it is about, as Helm names it: `Chart.yaml`, `templates/`, `templates/x.yaml`.
    pub path: String,
    pub text: String,
    pub family: Family,
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}: {}", self.severity.label(), self.path, self.text)
    }
}

/// The findings of one chart, in the order the rules ran (Helm's `support.Linter`).
#[derive(Debug, Default)]
pub(super) struct Linter {
    pub(super) messages: Vec<Message>,
}

impl Linter {
    /// Helm's `RunLinterRule`: records a failed rule; returns whether the rule passed.
    pub(super) fn rule(&mut self, family: Family, severity: Severity, path: &str, outcome: Result<(), String>) -> bool {
        match outcome {
            Ok(()) => true,
            Err(text) => {
                self.messages.push(Message { severity, path: path.to_string(), text, family });
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_prints_as_helm_prints_it() {
        let message = Message {
            severity: Severity::Warning,
            path: "templates/".to_string(),
            text: "directory does not exist".to_string(),
            family: Family::Templates,
        };
        assert_eq!(message.to_string(), "[WARNING] templates/: directory does not exist");
    }

    #[test]
    fn a_rule_records_only_its_failure() {
        let mut linter = Linter::default();
        assert!(linter.rule(Family::Chartfile, Severity::Info, "Chart.yaml", Ok(())));
        assert!(!linter.rule(Family::Chartfile, Severity::Info, "Chart.yaml", Err("icon is recommended".into())));
        assert_eq!(linter.messages.len(), 1);
        assert!(Severity::Error > Severity::Warning && Severity::Warning > Severity::Info);
    }
}
