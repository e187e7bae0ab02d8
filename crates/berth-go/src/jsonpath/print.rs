//! Printing results (client-go util/jsonpath jsonpath.go `PrintResults` and `evalToText`): lists and maps as
//! `json.Marshal` writes them (compact, keys sorted, `<>&` escaped), anything else as `fmt.Fprint` does (Go's
//! `%v`: `1e+06` for the float64 1000000), nil as `null`; the values of one text or action separated by a space.

use super::{Item, PrintError};
use crate::{Value, write_value};

/// The most bytes printed: a template can print a large value many times (`{..}` prints every subtree, so a
/// values file nested 10,000 deep prints hundreds of megabytes). 64 MiB is a large chart's values printed dozens
/// of times over.
pub const MAX_OUTPUT: usize = 64 << 20;

/// `PrintResults` of one text or action, appended to `out`.
pub fn print_results(out: &mut String, results: &[Item]) -> Result<(), PrintError> {
    for (index, item) in results.iter().enumerate() {
        match item {
            Item::Value(value @ (Value::List(_) | Value::Map(_) | Value::Object(_))) => {
                out.push_str(&crate::json::marshal(value).map_err(PrintError::Go)?);
            }
            Item::Value(Value::Function(_)) => {
                return Err(PrintError::Go(format!("can't print type {}", crate::FUNC_TYPE_NAME)));
            }
            Item::Value(Value::Nil) => out.push_str("null"),
            Item::Value(value) => {
                if write_value(out, value, 0).is_err() {
                    return Err(PrintError::TooLarge);
                }
            }
            Item::Byte(byte) => out.push_str(&byte.to_string()),
            Item::Invalid => out.push_str("<no value>"),
        }
        if index + 1 != results.len() {
            out.push(' ');
        }
        if out.len() > MAX_OUTPUT {
            return Err(PrintError::TooLarge);
        }
    }
    Ok(())
}
