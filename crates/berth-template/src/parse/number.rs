//! Number literals: Go's `parse.NumberNode`, which keeps every reading of a literal that fits (int, uint,
//! float), so the executor can pick the one a parameter type asks for, as Go's ideal constants work.
//! Parsing follows `strconv.ParseUint`/`ParseInt`/`ParseFloat` with base 0 (prefixes, underscores).

use berth_go::strconv::{self, Piece};

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
        let unsigned = parse_uint(text);
        if let Ok(u) = unsigned {
            n.is_uint = true;
            n.uint64 = u;
        }
        if let Ok(i) = parse_int(text) {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NumError {
    Syntax,
    Range,
}

/// Go's `underscoreOK`: underscores only between digits (or after a base prefix).
fn underscore_ok(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let b = s.as_bytes();
    let mut saw = b'^';
    let mut i = 0;
    let mut hex = false;
    if b.len() >= 2 && b[0] == b'0' && matches!(b[1].to_ascii_lowercase(), b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = b[1].eq_ignore_ascii_case(&b'x');
    }
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() || (hex && (b'a'..=b'f').contains(&c.to_ascii_lowercase())) {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else {
            if saw == b'_' {
                return false;
            }
            saw = b'!';
        }
        i += 1;
    }
    saw != b'_'
}

/// `strconv.ParseUint(s, 0, 64)`.
fn parse_uint(s0: &str) -> Result<u64, NumError> {
    if s0.is_empty() {
        return Err(NumError::Syntax);
    }
    let b = s0.as_bytes();
    let (base, digits) = if b[0] == b'0' && b.len() >= 2 {
        match b[1].to_ascii_lowercase() {
            b'x' => (16, &s0[2..]),
            b'o' => (8, &s0[2..]),
            b'b' => (2, &s0[2..]),
            _ => (8, &s0[1..]),
        }
    } else {
        (10, s0)
    };
    if digits.is_empty() && base != 8 {
        return Err(NumError::Syntax);
    }
    let mut n: u64 = 0;
    let mut underscores = false;
    for c in digits.bytes() {
        if c == b'_' {
            underscores = true;
            continue;
        }
        let d = match c {
            b'0'..=b'9' => (c - b'0') as u64,
            b'a'..=b'z' => (c - b'a' + 10) as u64,
            b'A'..=b'Z' => (c - b'A' + 10) as u64,
            _ => return Err(NumError::Syntax),
        };
        if d >= base {
            return Err(NumError::Syntax);
        }
        n = n.checked_mul(base).and_then(|n| n.checked_add(d)).ok_or(NumError::Range)?;
    }
    if underscores && !underscore_ok(s0) {
        return Err(NumError::Syntax);
    }
    Ok(n)
}

/// `strconv.ParseInt(s, 0, 64)`.
fn parse_int(s: &str) -> Result<i64, NumError> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let u = parse_uint(body)?;
    if neg {
        if u > i64::MAX as u64 + 1 {
            return Err(NumError::Range);
        }
        Ok((u as i64).wrapping_neg())
    } else {
        i64::try_from(u).map_err(|_| NumError::Range)
    }
}

/// `strconv.ParseFloat(s, 64)` for the forms the lexer lets through (decimal and hex floats).
fn parse_float(s: &str) -> Result<f64, NumError> {
    if s.contains('_') && !underscore_ok(s) {
        return Err(NumError::Syntax);
    }
    let clean: String = s.chars().filter(|&c| c != '_').collect();
    let (neg, body) = match clean.as_bytes().first() {
        Some(b'-') => (true, &clean[1..]),
        Some(b'+') => (false, &clean[1..]),
        _ => (false, clean.as_str()),
    };
    let value = if body.len() > 2 && (body.starts_with("0x") || body.starts_with("0X")) {
        // Hexadecimal mantissa requires a 'p' exponent.
        if !body.contains(['p', 'P']) {
            return Err(NumError::Syntax);
        }
        berth_go::strconv::parse_hex_float(body).ok_or(NumError::Syntax)?
    } else {
        if body.is_empty() || !body.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
        {
            return Err(NumError::Syntax);
        }
        body.parse::<f64>().map_err(|_| NumError::Syntax)?
    };
    if value.is_infinite() {
        return Err(NumError::Range);
    }
    Ok(if neg { -value } else { value })
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
