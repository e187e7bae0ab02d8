//! A filter's comparisons: client-go's fork of text/template's `eq`, `ne`, `lt`, `le`, `gt`, `ge`
//! (third_party/forked/golang/template/funcs.go `Equal`, `Less`...), over the kinds Go's `basicKind` knows.
//! A number from a values file is a `float64` and a number in the template an `int`: they are incompatible, so
//! `[?(@.port==80)]` fails where `[?(@.port==80.0)]` matches, as in Helm.

use crate::Value;

/// `basicKind` of a value: `None` is `errBadComparisonType` (nil, lists, maps...).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Basic<'a> {
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    String(&'a str),
}

impl Basic<'_> {
    pub fn of(value: &Value) -> Option<Basic<'_>> {
        Some(match value {
            Value::Bool(b) => Basic::Bool(*b),
            Value::Int(n) | Value::Int64(n) => Basic::Int(*n),
            Value::Uint(n) => Basic::Uint(*n),
            Value::Float(f) => Basic::Float(*f),
            Value::String(s) => Basic::String(s),
            _ => return None,
        })
    }
}

const BAD_TYPE: &str = "invalid type for comparison";
const INCOMPATIBLE: &str = "incompatible types for comparison";

/// The filter operators (parser.go accepts any run of `!<>=`; evaluation knows these six).
pub fn compare(
    operator: &str,
    left: Option<Basic<'_>>,
    right: Option<Basic<'_>>,
) -> Option<Result<bool, &'static str>> {
    Some(match operator {
        "<" => less(left, right),
        ">" => less_equal(left, right).map(|result| !result),
        "==" => equal(left, right),
        "!=" => equal(left, right).map(|result| !result),
        "<=" => less_equal(left, right),
        ">=" => less(left, right).map(|result| !result),
        _ => return None,
    })
}

/// `Equal`.
fn equal(left: Option<Basic<'_>>, right: Option<Basic<'_>>) -> Result<bool, &'static str> {
    let (left, right) = (left.ok_or(BAD_TYPE)?, right.ok_or(BAD_TYPE)?);
    Ok(match (left, right) {
        (Basic::Bool(a), Basic::Bool(b)) => a == b,
        (Basic::Int(a), Basic::Int(b)) => a == b,
        (Basic::Uint(a), Basic::Uint(b)) => a == b,
        (Basic::Float(a), Basic::Float(b)) => a == b,
        (Basic::String(a), Basic::String(b)) => a == b,
        (Basic::Int(a), Basic::Uint(b)) | (Basic::Uint(b), Basic::Int(a)) => a >= 0 && a as u64 == b,
        _ => return Err(INCOMPATIBLE),
    })
}

/// `Less`.
fn less(left: Option<Basic<'_>>, right: Option<Basic<'_>>) -> Result<bool, &'static str> {
    let (left, right) = (left.ok_or(BAD_TYPE)?, right.ok_or(BAD_TYPE)?);
    Ok(match (left, right) {
        (Basic::Bool(_), Basic::Bool(_)) => return Err(BAD_TYPE),
        (Basic::Int(a), Basic::Int(b)) => a < b,
        (Basic::Uint(a), Basic::Uint(b)) => a < b,
        (Basic::Float(a), Basic::Float(b)) => a < b,
        (Basic::String(a), Basic::String(b)) => a < b,
        (Basic::Int(a), Basic::Uint(b)) => a < 0 || (a as u64) < b,
        (Basic::Uint(a), Basic::Int(b)) => b >= 0 && a < b as u64,
        _ => return Err(INCOMPATIBLE),
    })
}

/// `LessEqual`.
fn less_equal(left: Option<Basic<'_>>, right: Option<Basic<'_>>) -> Result<bool, &'static str> {
    if less(left, right)? {
        return Ok(true);
    }
    equal(left, right)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// funcs.go's rules: kinds must match except int against uint; bools are not ordered.
    #[test]
    fn comparisons_follow_gos_template_functions() {
        let cases: [(&str, Basic<'_>, Basic<'_>, Result<bool, &str>); 10] = [
            ("==", Basic::Float(80.0), Basic::Float(80.0), Ok(true)),
            ("==", Basic::Float(80.0), Basic::Int(80), Err(INCOMPATIBLE)),
            ("==", Basic::Int(3), Basic::Uint(3), Ok(true)),
            ("<", Basic::Int(-1), Basic::Uint(0), Ok(true)),
            ("<", Basic::Bool(false), Basic::Bool(true), Err(BAD_TYPE)),
            ("!=", Basic::String("a"), Basic::String("b"), Ok(true)),
            (">", Basic::Float(2.5), Basic::Float(2.5), Ok(false)),
            (">=", Basic::Float(2.5), Basic::Float(2.5), Ok(true)),
            ("<=", Basic::String("a"), Basic::String("a"), Ok(true)),
            ("==", Basic::Bool(true), Basic::Bool(true), Ok(true)),
        ];
        for (operator, left, right, expected) in cases {
            assert_eq!(compare(operator, Some(left), Some(right)), Some(expected), "{left:?} {operator} {right:?}");
        }
        assert_eq!(compare("==", None, Some(Basic::Int(1))), Some(Err(BAD_TYPE)));
        assert_eq!(compare("<>", Some(Basic::Int(1)), Some(Basic::Int(1))), None);
    }
}
