//! Go's `strconv`: quoting (`Quote`, `QuoteRune`, `Unquote`, `IsPrint`) and numbers (`ParseInt`, `ParseUint`,
//! `ParseFloat`, `FormatFloat`), the one implementation every berth crate quotes and spells numbers with.

mod number;
mod quote;

pub use number::{
    NumError, format_float_e, format_float_f, format_float_g, format_float32_g, parse_float, parse_hex_float,
    parse_int, parse_uint,
};
pub use quote::{Piece, SyntaxError, is_print, quote, quote_into, quote_rune, quote_rune_into, unquote, unquote_char};
