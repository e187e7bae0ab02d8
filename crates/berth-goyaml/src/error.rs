//! The error of every YAML operation: the message Helm prints and, when yaml.v2 names one, the line.

/// A YAML or TOML error worded as Helm prints it (`error converting YAML to JSON: yaml: line 3: ...`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct YamlError {
    message: String,
    line: Option<usize>,
}

impl YamlError {
    pub(crate) fn new(message: String, line: Option<usize>) -> YamlError {
        YamlError { message, line }
    }

    /// Prefixes the message as Go's `fmt.Errorf("context: %w", err)` does.
    pub(crate) fn context(self, context: &str) -> YamlError {
        YamlError { message: format!("{context}: {}", self.message), line: self.line }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The 1-based line the error names, when it names one.
    pub fn line(&self) -> Option<usize> {
        self.line
    }
}
