//! Go's `encoding/json` for values: [`marshal`] and [`encode`] write them (encode.go), [`decode`] reads a document
//! into one (scanner.go, decode.go), with Go's texts for what either refuses.

mod decode;
mod encode;

pub use decode::{Decoded, decode, kind_word};
pub use encode::{MARSHAL, Style, encode, format_float, marshal, quote, write_float, write_go_string, write_string};
