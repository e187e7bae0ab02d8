//! Number literals: Go's `parse.NumberNode`, which keeps every reading of a literal that fits (int, uint,
//! float), so the executor can pick the one a parameter type asks for, as Go's ideal constants work.
//! Parsing follows `strconv.ParseUint`/`ParseInt`/`ParseFloat` with base 0 (prefixes, underscores).

use berth_go::strconv::{self, Piece, parse_float};

/// A number literal.
#[derive(Debug, Clone)]
pub struct NumberNode {
    /// Byte offset.
    pub pos: usize,
    /// The literal as written.
    pub text: String,
    /// The value fits an `int64`.
    pub is_int: bool,
    /// The value fits a `uint64`.
    pub is_uint: bool,
    /// The value has a float reading.
    pub is_float: bool,
    /// The literal is a complex number with a non-zero imaginary part (not supported at run time).
    pub is_complex: bool,
    /// The `int64` reading.
    pub int64: i64,
    /// The `uint64` reading.
    pub uint64: u64,
    /// The `float64` reading.
    pub float64: f64,
}

/// What kind of token the literal came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NumberKind {
    Number,
    Char,
    Complex,
}

impl NumberNode {
    fn empty(pos: usize, text: &str) -> Self {
        NumberNode {
            pos,
            text: text.to_string(),
            is_int: false,
            is_uint: false,
            is_float: false,
            is_complex: false,
            int64: 0,
            uint64: 0,
            float64: 0.0,
        }
    }

    /// Go's `Tree.newNumber`; the error text is what Go's parser reports.
    pub(crate) fn parse(pos: usize, text: &str, kind: NumberKind) -> Result<NumberNode, String> {
        let mut n = NumberNode::empty(pos, text);
        match kind {
            NumberKind::Char => {
                let body = text.get(1..).unwrap_or("");
                let (piece, tail) = strconv::unquote_char(body, '\'').map_err(|e| e.to_string())?;
                if tail != "'" {
                    return Err(format!("malformed character constant: {text}"));
                }
                let r = match piece {
                    Piece::Rune(c) => c as u32,
                    Piece::Byte(b) => b as u32,
                };
                n.int64 = r as i64;
                n.uint64 = r as u64;
                n.float64 = r as f64;
                n.is_int = true;
                n.is_uint = true;
                n.is_float = true;
                return Ok(n);
            }
            NumberKind::Complex => {
                // `1+2i`: real and imaginary parts.
                let split = text
                    .char_indices()
                    .skip(1)
                    .filter(|(_, c)| *c == '+' || *c == '-')
                    .map(|(i, _)| i)
                    .find(|&i| !matches!(text.as_bytes().get(i - 1), Some(b'e' | b'E' | b'p' | b'P')));
                let (re, im) = match split {
                    Some(i) => (&text[..i], text.get(i..text.len() - 1).unwrap_or("")),
                    None => return Err(format!("expected integer; found {text}")),
                };
                let re = parse_float(re).map_err(|_| format!("illegal number syntax: {}", strconv::quote(text)))?;
                let im = parse_float(im).map_err(|_| format!("illegal number syntax: {}", strconv::quote(text)))?;
                n.is_complex = true;
                n.simplify_complex(re, im);
                return Ok(n);
            }
            NumberKind::Number => {}
        }
        // Imaginary constants can only be complex unless they are zero.
        if let Some(body) = text.strip_suffix('i')
            && let Ok(f) = parse_float(body)
        {
            n.is_complex = true;
            n.simplify_complex(0.0, f);
            return Ok(n);
        }
        // Integer readings first so 0x123 etc. work.
        let unsigned = strconv::parse_uint(text, 0);
        if let Ok(u) = unsigned {
            n.is_uint = true;
            n.uint64 = u;
        }
        if let Ok(i) = strconv::parse_int(text, 0) {
            n.is_int = true;
            n.int64 = i;
            if i == 0 {
                // `-0`.
                n.is_uint = true;
                n.uint64 = unsigned.unwrap_or(0);
            }
        }
        if n.is_int {
            n.is_float = true;
            n.float64 = n.int64 as f64;
        } else if n.is_uint {
            n.is_float = true;
            n.float64 = n.uint64 as f64;
        } else if let Ok(f) = parse_float(text) {
            // A float reading of something that looks like an integer: too big for an int.
            if !text.contains(['.', 'e', 'E', 'p', 'P']) {
                return Err(format!("integer overflow: {}", strconv::quote(text)));
            }
            n.is_float = true;
            n.float64 = f;
            if !n.is_int && (f as i64) as f64 == f {
                n.is_int = true;
                n.int64 = f as i64;
            }
            if !n.is_uint && (f as u64) as f64 == f {
                n.is_uint = true;
                n.uint64 = f as u64;
            }
        }
        if !n.is_int && !n.is_uint && !n.is_float {
            return Err(format!("illegal number syntax: {}", strconv::quote(text)));
        }
        Ok(n)
    }

    /// Go's `simplifyComplex`: a complex with zero imaginary part also has real readings.
    fn simplify_complex(&mut self, re: f64, im: f64) {
        self.is_float = im == 0.0;
        if self.is_float {
            self.is_complex = false;
            self.float64 = re;
            self.is_int = (re as i64) as f64 == re;
            if self.is_int {
                self.int64 = re as i64;
            }
            self.is_uint = (re as u64) as f64 == re;
            if self.is_uint {
                self.uint64 = re as u64;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(text: &str) -> Result<NumberNode, String> {
        NumberNode::parse(0, text, NumberKind::Number)
    }

    #[test]
    fn readings_match_go() {
        let n = num("0x10").unwrap();
        assert!(n.is_int && n.is_uint && n.is_float);
        assert_eq!(n.int64, 16);
        let n = num("1e3").unwrap();
        assert!(n.is_int && n.is_float);
        assert_eq!(n.int64, 1000);
        let n = num("1.5").unwrap();
        assert!(!n.is_int && n.is_float);
        let n = num("18446744073709551615").unwrap();
        assert!(n.is_uint && !n.is_int);
        let n = num("1_000").unwrap();
        assert_eq!(n.int64, 1000);
        let n = num("0777").unwrap();
        assert_eq!(n.int64, 511);
    }

    #[test]
    fn errors_match_go() {
        assert_eq!(num("089").unwrap_err(), "integer overflow: \"089\"");
        assert_eq!(num("99999999999999999999").unwrap_err(), "integer overflow: \"99999999999999999999\"");
        assert_eq!(num("1__0").unwrap_err(), "illegal number syntax: \"1__0\"");
        assert_eq!(NumberNode::parse(0, "'ab'", NumberKind::Char).unwrap_err(), "malformed character constant: 'ab'");
    }

    #[test]
    fn char_constants() {
        let n = NumberNode::parse(0, r"'\n'", NumberKind::Char).unwrap();
        assert_eq!(n.int64, 10);
        let n = NumberNode::parse(0, "'é'", NumberKind::Char).unwrap();
        assert_eq!(n.int64, 0xe9);
    }
}
