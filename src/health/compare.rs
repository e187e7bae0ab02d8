//! Comparing one field of an object with a literal written in an annotation.
//!
//! Seed 001 (`helm.sh/health/<path>: "<op><value>"`) and HIP-0025 (`{<jsonpath>} <op> <value>`) share the six
//! operators and the rule for what kind of comparison is made, so both read this one definition:
//!
//! - numeric when both sides are numbers: a JSON number or a string that reads as one on the object's side, a
//!   literal that reads as one on the annotation's side (integers exactly, otherwise as 64-bit floats);
//! - boolean for `==`/`!=` when the field is a JSON boolean and the literal is `true` or `false`;
//! - text otherwise: `==`/`!=` compare exactly; the ordering operators compare the strings lexicographically
//!   (seed 001) or do not hold (HIP-0025, as Helm's implementation treats them), chosen by the caller;
//! - a field that is missing, `null`, a list or a map never satisfies any operator.
//!
//! A literal may be wrapped in double or single quotes (`=="Ready"`, `== 'Ready'`); the quotes are removed, and
//! `""` is how an empty string is written.

use serde_json::Value;
use std::fmt;

/// The six comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operator {
    Equal,
    NotEqual,
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
}

impl Operator {
    /// Longest first, so that `<=` is not read as `<` followed by `=...`.
    pub(super) const SPELLINGS: [(&'static str, Operator); 6] = [
        ("==", Operator::Equal),
        ("!=", Operator::NotEqual),
        ("<=", Operator::LessOrEqual),
        (">=", Operator::GreaterOrEqual),
        ("<", Operator::Less),
        (">", Operator::Greater),
    ];

    /// Splits a leading operator off `text`: `"<=1"` -> `(LessOrEqual, "1")`.
    pub fn split_prefix(text: &str) -> Option<(Operator, &str)> {
        Operator::SPELLINGS
            .iter()
            .find_map(|(spelling, operator)| text.strip_prefix(spelling).map(|rest| (*operator, rest)))
    }

    /// Reads a whole word as an operator: `">="` -> `GreaterOrEqual`.
    pub fn from_word(word: &str) -> Option<Operator> {
        Operator::SPELLINGS.iter().find(|(spelling, _)| *spelling == word).map(|(_, operator)| *operator)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Operator::Equal => "==",
            Operator::NotEqual => "!=",
            Operator::Less => "<",
            Operator::LessOrEqual => "<=",
            Operator::Greater => ">",
            Operator::GreaterOrEqual => ">=",
        }
    }

    pub fn is_ordering(self) -> bool {
        !matches!(self, Operator::Equal | Operator::NotEqual)
    }

    fn accepts(self, ordering: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::{Equal, Greater, Less};
        match self {
            Operator::Equal => ordering == Equal,
            Operator::NotEqual => ordering != Equal,
            Operator::Less => ordering == Less,
            Operator::LessOrEqual => ordering != Greater,
            Operator::Greater => ordering == Greater,
            Operator::GreaterOrEqual => ordering != Less,
        }
    }
}

impl fmt::Display for Operator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How the ordering operators treat two texts that are not both numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextOrdering {
    /// Byte-wise lexicographic order (seed 001: "string otherwise").
    Lexicographic,
    /// The comparison does not hold (HIP-0025 as Helm implements it: ordering needs numbers).
    NotComparable,
}

/// The right-hand side of a comparison, read once when the annotation is parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct Literal {
    text: String,
    number: Option<Number>,
}

impl Literal {
    /// Reads a literal as written after the operator: surrounding whitespace and one pair of matching quotes
    /// are removed. `None` when nothing is left before unquoting (an empty literal is written `""`).
    pub fn parse(raw: &str) -> Option<Literal> {
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            return None;
        }
        let text = unquote(trimmed);
        Some(Literal { text: text.to_string(), number: Number::parse(text) })
    }

    #[cfg(test)]
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn is_number(&self) -> bool {
        self.number.is_some()
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.text.is_empty() { f.write_str("\"\"") } else { f.write_str(&self.text) }
    }
}

fn unquote(text: &str) -> &str {
    for quote in ['"', '\''] {
        if text.len() >= 2
            && let Some(inner) = text.strip_prefix(quote).and_then(|rest| rest.strip_suffix(quote))
        {
            return inner;
        }
    }
    text
}

/// A number read from text or JSON: integers are kept exact.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Number {
    Integer(i64),
    Float(f64),
}

impl Number {
    fn parse(text: &str) -> Option<Number> {
        let text = text.trim();
        if let Ok(integer) = text.parse::<i64>() {
            return Some(Number::Integer(integer));
        }
        // Rust accepts "inf" and "NaN"; a Kubernetes field holding those is text, not a number.
        text.parse::<f64>().ok().filter(|float| float.is_finite()).map(Number::Float)
    }

    fn of_json(value: &Value) -> Option<Number> {
        match value {
            Value::Number(number) => match number.as_i64() {
                Some(integer) => Some(Number::Integer(integer)),
                None => number.as_f64().filter(|float| float.is_finite()).map(Number::Float),
            },
            Value::String(text) => Number::parse(text),
            _ => None,
        }
    }

    fn cmp(self, other: Number) -> Option<std::cmp::Ordering> {
        match (self, other) {
            (Number::Integer(left), Number::Integer(right)) => Some(left.cmp(&right)),
            (left, right) => left.as_f64().partial_cmp(&right.as_f64()),
        }
    }

    fn as_f64(self) -> f64 {
        match self {
            // Precision loss above 2^53 is accepted: such a field compared with a fractional literal is rare.
            Number::Integer(integer) => integer as f64,
            Number::Float(float) => float,
        }
    }
}

/// Whether `actual operator literal` holds.
pub fn holds(actual: &Value, operator: Operator, literal: &Literal, text_ordering: TextOrdering) -> bool {
    if let (Some(left), Some(right)) = (Number::of_json(actual), literal.number) {
        return left.cmp(right).is_some_and(|ordering| operator.accepts(ordering));
    }
    let text = match actual {
        Value::String(text) => text.as_str(),
        Value::Bool(flag) => {
            let expected = match literal.text.to_ascii_lowercase().as_str() {
                "true" => true,
                "false" => false,
                _ => return operator == Operator::NotEqual,
            };
            return match operator {
                Operator::Equal => *flag == expected,
                Operator::NotEqual => *flag != expected,
                _ => false,
            };
        }
        Value::Number(_) => {
            // A number against a literal that is not one: compare the texts, as kubectl prints numbers.
            return compare_text(&actual.to_string(), operator, &literal.text, text_ordering);
        }
        Value::Null | Value::Array(_) | Value::Object(_) => return false,
    };
    compare_text(text, operator, &literal.text, text_ordering)
}

fn compare_text(actual: &str, operator: Operator, expected: &str, text_ordering: TextOrdering) -> bool {
    if operator.is_ordering() && text_ordering == TextOrdering::NotComparable {
        return false;
    }
    operator.accepts(actual.cmp(expected))
}

/// A short rendering of a field's value for messages: strings bare, everything else as JSON, cut at 80 chars.
pub fn describe(value: &Value) -> String {
    let text = match value {
        Value::String(text) => format!("`{text}`"),
        Value::Array(items) if items.len() == 1 => return "a list of 1 item".to_string(),
        Value::Array(items) => return format!("a list of {} items", items.len()),
        Value::Object(_) => return "a map".to_string(),
        other => other.to_string(),
    };
    if text.chars().count() > 80 {
        let mut cut: String = text.chars().take(77).collect();
        cut.push_str("...");
        cut
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(actual: Value, expression: &str, text_ordering: TextOrdering) -> bool {
        let (operator, rest) = Operator::split_prefix(expression).expect("operator");
        let literal = Literal::parse(rest).expect("literal");
        holds(&actual, operator, &literal, text_ordering)
    }

    #[test]
    fn comparisons_follow_the_kind_of_both_sides() {
        use TextOrdering::{Lexicographic, NotComparable};
        let cases: Vec<(Value, &str, TextOrdering, bool)> = vec![
            (json!("Running"), "==Running", Lexicographic, true),
            (json!("Running"), "== \"Running\"", Lexicographic, true),
            (json!("Running"), "=='Running'", Lexicographic, true),
            (json!("Running"), "!=Running", Lexicographic, false),
            (json!(3), "==3", Lexicographic, true),
            (json!(3), ">=3", Lexicographic, true),
            (json!(3), ">3", Lexicographic, false),
            (json!(3), "<10", Lexicographic, true),
            (json!("3"), "<10", Lexicographic, true),
            (json!(2.5), "<3", Lexicographic, true),
            (json!(3), "==3.0", Lexicographic, true),
            (json!(3), "==\"3\"", Lexicographic, true),
            (json!("10"), ">9", Lexicographic, true),
            (json!("b"), ">a", Lexicographic, true),
            (json!("b"), ">a", NotComparable, false),
            (json!("abc"), "<=abd", Lexicographic, true),
            (json!(true), "==true", Lexicographic, true),
            (json!(true), "==True", Lexicographic, true),
            (json!(false), "!=true", Lexicographic, true),
            (json!(false), ">true", Lexicographic, false),
            (json!(true), "==yes", Lexicographic, false),
            (json!(true), "!=yes", Lexicographic, true),
            (json!(""), "==\"\"", Lexicographic, true),
            (json!(null), "!=x", Lexicographic, false),
            (json!(null), "==null", Lexicographic, false),
            (json!([1]), "!=x", Lexicographic, false),
            (json!({"a": 1}), "!=x", Lexicographic, false),
            (json!(3), "==three", Lexicographic, false),
            (json!(3), "!=three", Lexicographic, true),
            (json!("NaN"), "==NaN", Lexicographic, true),
            (json!(9007199254740993_i64), "==9007199254740993", Lexicographic, true),
            (json!(9007199254740993_i64), "==9007199254740992", Lexicographic, false),
        ];
        for (actual, expression, text_ordering, expected) in cases {
            assert_eq!(check(actual.clone(), expression, text_ordering), expected, "{actual} {expression}");
        }
    }

    #[test]
    fn operators_split_longest_first() {
        assert_eq!(Operator::split_prefix("<=1"), Some((Operator::LessOrEqual, "1")));
        assert_eq!(Operator::split_prefix("<1"), Some((Operator::Less, "1")));
        assert_eq!(Operator::split_prefix("=1"), None);
        assert_eq!(Operator::from_word(">="), Some(Operator::GreaterOrEqual));
        assert_eq!(Operator::from_word("=>"), None);
    }

    #[test]
    fn literals_need_text_and_lose_one_pair_of_quotes() {
        assert_eq!(Literal::parse("  "), None);
        assert_eq!(Literal::parse("\"\"").map(|literal| literal.text().to_string()), Some(String::new()));
        assert_eq!(Literal::parse("'\"a\"'").map(|literal| literal.text().to_string()), Some("\"a\"".into()));
        assert_eq!(Literal::parse("\"").map(|literal| literal.text().to_string()), Some("\"".into()));
    }
}
