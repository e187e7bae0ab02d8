//! Field errors as apimachinery's `field.Error` prints them (`metadata.name: Invalid value: "x": detail`), and
//! their aggregate in a 422 answer, so kubectl, Helm and berth print what a real server makes them print. The
//! built-in kinds' validation and the CRD schemas' both report them.

use serde_json::{Value, json};

/// The kind of a field error (apimachinery's `field.ErrorType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorType {
    Required,
    Invalid,
    /// A value of the wrong type (printed as an invalid value).
    TypeInvalid,
    Forbidden,
    NotSupported,
    TooLong,
    TooMany,
    Duplicate,
}

impl ErrorType {
    /// The text in messages (`ErrorType.String()`).
    fn text(self) -> &'static str {
        match self {
            ErrorType::Required => "Required value",
            ErrorType::Invalid | ErrorType::TypeInvalid => "Invalid value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::TooLong => "Too long",
            ErrorType::TooMany => "Too many",
            ErrorType::Duplicate => "Duplicate value",
        }
    }

    /// The cause reason in the Status details.
    fn reason(self) -> &'static str {
        match self {
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::TypeInvalid => "FieldValueTypeInvalid",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::Duplicate => "FieldValueDuplicate",
        }
    }
}

/// One field error: its type, the field path, the bad value as Go prints it (`None`: not printed) and detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub error_type: ErrorType,
    pub field: String,
    pub value: Option<String>,
    pub detail: String,
}

impl FieldError {
    /// `field: Invalid value: "value": detail` for a string value (Go's `%q`).
    pub fn invalid(field: impl Into<String>, value: &str, detail: impl Into<String>) -> FieldError {
        FieldError {
            error_type: ErrorType::Invalid,
            field: field.into(),
            value: Some(quote(value)),
            detail: detail.into(),
        }
    }

    /// An invalid value printed as given (numbers, Go struct dumps).
    pub fn invalid_raw(field: impl Into<String>, value: impl Into<String>, detail: impl Into<String>) -> FieldError {
        FieldError {
            error_type: ErrorType::Invalid,
            field: field.into(),
            value: Some(value.into()),
            detail: detail.into(),
        }
    }

    pub fn required(field: impl Into<String>, detail: impl Into<String>) -> FieldError {
        FieldError { error_type: ErrorType::Required, field: field.into(), value: None, detail: detail.into() }
    }

    pub fn forbidden(field: impl Into<String>, detail: impl Into<String>) -> FieldError {
        FieldError { error_type: ErrorType::Forbidden, field: field.into(), value: None, detail: detail.into() }
    }

    /// `field: Unsupported value: "x": supported values: "a", "b"`
    pub fn not_supported(field: impl Into<String>, value: &str, supported: &[&str]) -> FieldError {
        let quoted: Vec<String> = supported.iter().map(|value| quote(value)).collect();
        FieldError {
            error_type: ErrorType::NotSupported,
            field: field.into(),
            value: Some(quote(value)),
            detail: format!("supported values: {}", quoted.join(", ")),
        }
    }

    /// `field: Too long: may not be more than N bytes`, as apimachinery's `field.TooLong` words it since 1.32
    /// (`must have at most N bytes` before).
    pub fn too_long(field: impl Into<String>, max: usize) -> FieldError {
        let unit = if max == 1 { "byte" } else { "bytes" };
        FieldError {
            error_type: ErrorType::TooLong,
            field: field.into(),
            value: None,
            detail: format!("may not be more than {max} {unit}"),
        }
    }

    pub fn duplicate(field: impl Into<String>, value: &str) -> FieldError {
        FieldError {
            error_type: ErrorType::Duplicate,
            field: field.into(),
            value: Some(quote(value)),
            detail: String::new(),
        }
    }

    /// The message without the field (`ErrorBody`).
    pub fn body(&self) -> String {
        let mut body = match (&self.value, self.error_type) {
            (
                Some(value),
                ErrorType::Invalid
                | ErrorType::TypeInvalid
                | ErrorType::NotSupported
                | ErrorType::Duplicate
                | ErrorType::TooMany,
            ) => {
                format!("{}: {value}", self.error_type.text())
            }
            _ => self.error_type.text().to_string(),
        };
        if !self.detail.is_empty() {
            body.push_str(": ");
            body.push_str(&self.detail);
        }
        body
    }

    /// The cause in the Status details.
    pub fn cause(&self) -> Value {
        json!({"reason": self.error_type.reason(), "message": self.body(), "field": self.field})
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

/// Go's `%q` for a string (close enough: JSON escaping differs only for control characters).
pub fn quote(value: &str) -> String {
    Value::String(value.to_string()).to_string()
}

/// The errors as `ErrorList.ToAggregate()` prints them: duplicates dropped, one alone, several in brackets.
pub fn aggregate(errors: &[FieldError]) -> String {
    let mut messages: Vec<String> = Vec::new();
    for error in errors {
        let message = error.to_string();
        if !messages.contains(&message) {
            messages.push(message);
        }
    }
    match messages.as_slice() {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_print_as_apimachinery_prints_them() {
        let cases = [
            (FieldError::invalid("metadata.name", "a b", "bad"), "metadata.name: Invalid value: \"a b\": bad"),
            (
                FieldError::required("metadata.name", "name or generateName is required"),
                "metadata.name: Required value: name or generateName is required",
            ),
            (FieldError::required("spec.x", ""), "spec.x: Required value"),
            (FieldError::forbidden("value", "too high"), "value: Forbidden: too high"),
            (
                FieldError::not_supported("spec.scope", "Both", &["Cluster", "Namespaced"]),
                "spec.scope: Unsupported value: \"Both\": supported values: \"Cluster\", \"Namespaced\"",
            ),
            (
                FieldError::too_long("metadata.annotations", 262_144),
                "metadata.annotations: Too long: may not be more than 262144 bytes",
            ),
            (FieldError::invalid_raw("value", "2000000000", "x"), "value: Invalid value: 2000000000: x"),
        ];
        for (error, expected) in cases {
            assert_eq!(error.to_string(), expected);
        }
    }

    #[test]
    fn aggregates_bracket_several_and_drop_duplicates() {
        let one = FieldError::required("a", "");
        let two = FieldError::required("b", "");
        assert_eq!(aggregate(&[one.clone(), one.clone()]), "a: Required value");
        assert_eq!(aggregate(&[one, two]), "[a: Required value, b: Required value]");
    }
}
