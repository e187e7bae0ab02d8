//! Go's `fmt.Sprintf` as templates use it (`printf`): directives, flags, width and precision, argument
//! indexes, and the formatting of every operand type with its error markers (`%!d(string=x)`,
//! `%!s(MISSING)`, `%!(EXTRA ...)`).
//!
//! # What lives here
//!
//! | Category | Functions | Go equivalent |
//! |----------|-----------|---------------|
//! | sprintf | [`sprintf`] | `fmt.Sprintf` |
//! | Quoting | [`try_backquote_into`] | `%#q` |
//! | Sci-notation | [`write_normalized_sci`] | Exponent `e+00` format |
//! | `%g` formatting | [`write_g_default`], [`write_g_with_precision`] | `%g` / `%.Ng` |
//! | Integer bases | [`format_int_base_into`] | `%x`, `%o`, `%b` with sign handling |

use core::fmt::Write;
use std::format;
use std::string::String;

use crate::error::{Result, TemplateError};
use crate::value::Value;

// fmt.Sprint spacing

// sprintf
/// Go's `tooLarge`: a width or precision whose magnitude is past a million is refused (`%!(BADWIDTH)`,
/// `%!(BADPREC)` for `*` arguments; a literal stops being read as a number, see [`parse_number`]). Widths up to
/// that size are padded as Go pads them, the render's byte budget (`crate::budget`) permitting.
const MAX_WIDTH_OR_PRECISION: i64 = 1_000_000;

fn too_large(n: i64) -> bool {
    !(-MAX_WIDTH_OR_PRECISION..=MAX_WIDTH_OR_PRECISION).contains(&n)
}

/// Parsed printf format specifier (`flags`, `width`, `precision`).
///
/// Mirrors the subset of Go's `fmt` format grammar that `text/template` uses.
#[derive(Default)]
struct FmtSpec {
    left_align: bool,
    plus: bool,
    space: bool,
    hash: bool,
    zero: bool,
    width: Option<usize>,
    precision: Option<usize>,
}

impl FmtSpec {
    fn from_flags(chars: &mut core::iter::Peekable<core::str::Chars<'_>>) -> Self {
        let mut spec = FmtSpec::default();
        loop {
            match chars.peek() {
                Some('-') => {
                    spec.left_align = true;
                    chars.next();
                }
                Some('+') => {
                    spec.plus = true;
                    chars.next();
                }
                Some(' ') => {
                    spec.space = true;
                    chars.next();
                }
                Some('#') => {
                    spec.hash = true;
                    chars.next();
                }
                Some('0') => {
                    spec.zero = true;
                    chars.next();
                }
                _ => break,
            }
        }
        spec
    }

    /// Pad `out[start..]` to the configured width in place.
    ///
    /// Width is measured in Unicode scalars (chars) to match Rust's formatter
    /// semantics and Go parity on the verbs we support. Padding is inserted
    /// only when the already-written content is shorter than `width`.
    ///
    /// `start` must sit on a char boundary in `out`. Callers always invoke
    /// at `out.len()` taken before the verb's content was pushed, which
    /// trivially satisfies that requirement.
    ///
    /// # Errors
    /// When a render's byte budget cannot hold the padded text.
    fn pad_in_place(&self, out: &mut String, start: usize, is_numeric: bool) -> Result<()> {
        let Some(width) = self.width else {
            return Ok(());
        };
        let written = out[start..].chars().count();
        if written >= width {
            return Ok(());
        }
        let pad_count = width - written;
        crate::budget::ensure(out.len().saturating_add(pad_count))?;

        if self.left_align {
            for _ in 0..pad_count {
                out.push(' ');
            }
        } else if self.zero && is_numeric {
            // Zero-pad after a leading sign so `-042` / `+042` / ` 042` stay
            // sign-first. The space flag synthesizes a leading ' ' that, like
            // '+'/'-', occupies the sign slot (Go's `% 08d` of 5 is " 0000005").
            let sign_off = match out.as_bytes().get(start) {
                Some(&b'-') | Some(&b'+') | Some(&b' ') => 1,
                _ => 0,
            };
            insert_repeated(out, start + sign_off, '0', pad_count);
        } else {
            insert_repeated(out, start, ' ', pad_count);
        }
        Ok(())
    }
}

/// Insert `count` copies of `ch` at byte position `pos` in `out`.
///
/// One allocation for the pad buffer (via `str::repeat`), then a single
/// `insert_str` memmove. Callers pass ASCII characters, so `pos` is
/// guaranteed to sit on a char boundary.
fn insert_repeated(out: &mut String, pos: usize, ch: char, count: usize) {
    let mut buf = [0u8; 4];
    let s: &str = ch.encode_utf8(&mut buf);
    out.insert_str(pos, &s.repeat(count));
}

/// Go-compatible `fmt.Sprintf` implementation.
///
/// Supports the format verbs used by `text/template`:
/// `%s`, `%d`, `%f`, `%e`/`%E`, `%g`/`%G`, `%v`, `%q` (incl. `%#q`),
/// `%t`, `%x`/`%X`, `%o`, `%b`, `%c`, and `%%`.
///
/// Flags: `-` (left-align), `+` (sign), ` ` (space sign), `#` (alternate),
/// `0` (zero-pad). Width and precision (`.N`) are supported.
pub fn sprintf(fmt_str: &str, args: &[Value]) -> Result<String> {
    let mut out = String::with_capacity(fmt_str.len() + 16 * args.len());
    sprintf_into(&mut out, fmt_str, args)?;
    Ok(out)
}

/// Read a run of ASCII digits as a `usize` (saturating on overflow).
///
/// Returns `None` if no digits were consumed.
fn parse_uint_digits(chars: &mut core::iter::Peekable<core::str::Chars<'_>>) -> Option<usize> {
    let mut n: usize = 0;
    let mut any = false;
    while let Some(c) = chars.next_if(|c| c.is_ascii_digit()) {
        n = n.saturating_mul(10).saturating_add((c as u8 - b'0') as usize);
        any = true;
    }
    any.then_some(n)
}

/// A width or precision written in the format, as Go's `parsenum` reads it.
enum Number {
    Absent,
    Value(usize),
    /// More digits than Go reads: the rest of the format is consumed (Go's "crazy long number"), so the directive
    /// ends in `%!(NOVERB)`.
    Overflow,
}

/// Go's `parsenum`: digits are read while the number so far is not [`too_large`], so a width of up to eight
/// digits is a number and a longer one swallows the rest of the format.
fn parse_number(chars: &mut core::iter::Peekable<core::str::Chars<'_>>) -> Number {
    let mut n: i64 = 0;
    let mut any = false;
    while let Some(c) = chars.next_if(|c| c.is_ascii_digit()) {
        if too_large(n) {
            chars.for_each(drop);
            return Number::Overflow;
        }
        n = n * 10 + i64::from(c as u8 - b'0');
        any = true;
    }
    if any { Number::Value(n as usize) } else { Number::Absent }
}

enum ParsedIndex {
    Absent,
    /// 1-based; caller validates `N` against `args.len()`.
    Found(usize),
    Bad,
}

enum IndexOutcome {
    None,
    Applied,
    /// Marker was malformed/out-of-range; BADINDEX has been written and the
    /// caller must `continue`.
    Bad,
}

/// Try to parse a `[N]` argument-index marker at the current position.
///
/// On a malformed bracket: if a `]` exists later in the format, consume up
/// to and past it; otherwise consume only the `[` so the remaining chars
/// (digits, verb) flow back through the regular parse path — `%[1d` ends
/// up as `%!d(BADINDEX)` rather than a swallowed directive.
fn try_parse_index(chars: &mut core::iter::Peekable<core::str::Chars<'_>>) -> ParsedIndex {
    if chars.peek() != Some(&'[') {
        return ParsedIndex::Absent;
    }
    let mut probe = chars.clone();
    probe.next(); // consume '['
    if let Some(n) = parse_uint_digits(&mut probe)
        && probe.peek() == Some(&']')
    {
        probe.next(); // consume ']'
        *chars = probe;
        return ParsedIndex::Found(n);
    }
    chars.next(); // consume '['
    // Only the malformed path needs to know whether a `]` exists later, so
    // we do the scan here rather than up front.
    if chars.clone().any(|c| c == ']') {
        for c in chars.by_ref() {
            if c == ']' {
                break;
            }
        }
    }
    ParsedIndex::Bad
}

/// Parse an optional `[N]` argument-index marker and apply its effect.
///
/// On a valid in-range index, updates `arg_idx`/`reordered` and returns
/// `Applied`. On out-of-range or malformed `[…]`, writes the BADINDEX marker
/// into `out`, sets `reordered` (so a trailing `%!(EXTRA …)` doesn't fire
/// over an unconsumed arg), and returns `Bad` for the caller to `continue`.
fn consume_index(
    chars: &mut core::iter::Peekable<core::str::Chars<'_>>,
    out: &mut String,
    arg_idx: &mut usize,
    reordered: &mut bool,
    args_len: usize,
) -> IndexOutcome {
    match try_parse_index(chars) {
        ParsedIndex::Absent => IndexOutcome::None,
        ParsedIndex::Found(n) if n >= 1 && n <= args_len => {
            *arg_idx = n - 1;
            *reordered = true;
            IndexOutcome::Applied
        }
        ParsedIndex::Found(_) | ParsedIndex::Bad => {
            let verb = skip_to_verb(chars);
            let _ = write!(out, "%!{}(BADINDEX)", verb);
            *reordered = true;
            IndexOutcome::Bad
        }
    }
}

/// Go's `intFromArg`: `args[*arg_idx]` as a `*` width or `.*` precision. Any integer that fits Go's `int` is one
/// (`int`, `int64`, an unsigned value below 2^63), unless it is [`too_large`]; anything else is not, and still
/// consumes the argument. A missing argument is not one and consumes nothing, so the verb then reports it
/// missing.
fn take_int_arg(args: &[Value], arg_idx: &mut usize) -> core::result::Result<i64, ()> {
    let Some(arg) = args.get(*arg_idx) else {
        return Err(());
    };
    *arg_idx += 1;
    let n = match *arg {
        Value::Int(n) | Value::Int64(n) => n,
        Value::Uint(n) => i64::try_from(n).map_err(|_| ())?,
        _ => return Err(()),
    };
    if too_large(n) { Err(()) } else { Ok(n) }
}

/// Skip ahead to the verb char (the next non-flag/digit/dot/star/bracket).
/// Used after a BADINDEX to drain the rest of the directive.
fn skip_to_verb(chars: &mut core::iter::Peekable<core::str::Chars<'_>>) -> char {
    let mut in_brackets = false;
    while let Some(&c) = chars.peek() {
        if in_brackets {
            chars.next();
            if c == ']' {
                in_brackets = false;
            }
            continue;
        }
        match c {
            '-' | '+' | ' ' | '#' | '0' | '.' | '*' => {
                chars.next();
            }
            '[' => {
                chars.next();
                in_brackets = true;
            }
            c if c.is_ascii_digit() => {
                chars.next();
            }
            _ => {
                chars.next();
                return c;
            }
        }
    }
    '?'
}

/// Format directly into `out`. Each verb writes its value at `out.len()`,
/// then pads in place. Supports Go's `[N]` argument indexing and `*` /
/// `.*` dynamic width/precision.
fn sprintf_into(out: &mut String, fmt_str: &str, args: &[Value]) -> Result<()> {
    let mut chars = fmt_str.chars().peekable();
    let mut arg_idx: usize = 0;
    let mut reordered = false;

    while let Some(ch) = chars.next() {
        if ch != '%' {
            out.push(ch);
            continue;
        }

        let mut spec = FmtSpec::from_flags(&mut chars);

        // Optional `[N]` after flags (the grammar puts the index *after*
        // flags, not before — so `%[1]-d` parses `-` as the verb, not as
        // a left-align flag).
        let first_index = consume_index(&mut chars, out, &mut arg_idx, &mut reordered, args.len());
        if matches!(first_index, IndexOutcome::Bad) {
            continue;
        }
        let had_index_marker = !matches!(first_index, IndexOutcome::None);

        // Go writes `%!(BADWIDTH)` and `%!(BADPREC)` as it reads them, before the verb.
        if chars.peek() == Some(&'*') {
            chars.next();
            match take_int_arg(args, &mut arg_idx) {
                Ok(n) if n >= 0 => spec.width = Some(n as usize),
                Ok(n) => {
                    // A negative width pads on the right, with spaces.
                    spec.left_align = true;
                    spec.zero = false;
                    spec.width = Some(n.unsigned_abs() as usize);
                }
                Err(()) => out.push_str("%!(BADWIDTH)"),
            }
        } else if let Number::Value(width) = parse_number(&mut chars) {
            spec.width = Some(width);
        }

        // A `.` is a precision only when something follows it (`%.` is the verb `.`).
        if chars.peek() == Some(&'.') && chars.clone().nth(1).is_some() {
            chars.next();
            if chars.peek() == Some(&'*') {
                chars.next();
                match take_int_arg(args, &mut arg_idx) {
                    Ok(n) if n >= 0 => spec.precision = Some(n as usize),
                    _ => out.push_str("%!(BADPREC)"),
                }
            } else {
                // Empty digits (`%.f`) → precision 0.
                spec.precision = Some(match parse_number(&mut chars) {
                    Number::Value(precision) => precision,
                    Number::Absent | Number::Overflow => 0,
                });
            }
        }

        // Optional `[N]` immediately before the verb. Skipped if a prior
        // `[N]` already fired in this directive, to avoid double-reorder
        // on `%[1][2]d`.
        if !had_index_marker
            && matches!(consume_index(&mut chars, out, &mut arg_idx, &mut reordered, args.len()), IndexOutcome::Bad)
        {
            continue;
        }

        let Some(verb) = chars.next() else {
            out.push_str("%!(NOVERB)");
            break;
        };

        if verb == '%' {
            out.push('%');
            continue;
        }

        let arg = if arg_idx < args.len() {
            arg_idx += 1;
            &args[arg_idx - 1]
        } else {
            let _ = write!(out, "%!{}(MISSING)", verb);
            continue;
        };

        if verb == 'v' {
            // `%+v` and `%#v` are Go's struct-field and Go-syntax forms: the flags do not sign numbers.
            spec.plus = false;
            spec.hash = false;
        }
        print_arg(out, arg, verb, &spec, 0, true)?;
    }

    // Trailing %!(EXTRA …) marker for unconsumed args.
    //
    // Go suppresses EXTRA when any [N] indexing was used in the directive —
    // tracking which args got read in that case is too expensive and not
    // unambiguous anyway.
    if !reordered && arg_idx < args.len() {
        out.push_str("%!(EXTRA ");
        for (i, v) in args[arg_idx..].iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_bad_arg(out, v, &FmtSpec::default())?;
        }
        out.push(')');
    }

    Ok(())
}

/// Go's `printArg`/`printValue`: formats one operand with `verb`. Lists and maps apply the verb to every
/// element (and map key), as Go's `fmt` does; a nil inside them prints `<nil>` whatever the verb.
fn print_arg(out: &mut String, arg: &Value, verb: char, spec: &FmtSpec, depth: usize, top: bool) -> Result<()> {
    if depth > crate::value::MAX_DEPTH {
        return Err(TemplateError::msg(crate::value::TooDeep));
    }
    if verb == 'T' && top {
        let start = out.len();
        out.push_str(arg.type_name());
        spec.pad_in_place(out, start, false)?;
        return Ok(());
    }
    let start = out.len();
    match arg {
        Value::Nil => {
            if top && verb != 'v' {
                return write_bad_verb(out, verb, arg, spec);
            }
            out.push_str("<nil>");
            spec.pad_in_place(out, start, false)?;
        }
        Value::Bool(b) => match verb {
            't' | 'v' => {
                out.push_str(if *b { "true" } else { "false" });
                spec.pad_in_place(out, start, false)?;
            }
            _ => return write_bad_verb(out, verb, arg, spec),
        },
        Value::Int(n) | Value::Int64(n) => return fmt_integer(out, Integer::Signed(*n), verb, spec, arg),
        Value::Uint(n) => return fmt_integer(out, Integer::Unsigned(*n), verb, spec, arg),
        Value::Float(f) => return fmt_float(out, *f, verb, spec, arg),
        Value::String(s) => return fmt_string(out, s, verb, spec, arg),
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                print_arg(out, item, verb, spec, depth + 1, false)?;
            }
            out.push(']');
        }
        Value::Map(map) => {
            out.push_str("map[");
            for (i, (key, item)) in map.snapshot().iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                print_arg(out, &Value::String(key.clone()), verb, spec, depth + 1, false)?;
                out.push(':');
                print_arg(out, item, verb, spec, depth + 1, false)?;
            }
            out.push(']');
        }
        // A host object prints through its String method (or Go's rendering of it) for the verbs that take
        // a string.
        Value::Object(o) => match verb {
            // fmt prints a `[]byte` as text for the string verbs.
            's' | 'q' | 'x' | 'X' if o.as_bytes().is_some() => {
                let text = String::from_utf8_lossy(o.as_bytes().unwrap_or_default()).into_owned();
                return fmt_string(out, &text, verb, spec, arg);
            }
            'v' | 's' | 'q' | 'x' | 'X' => {
                let text = crate::value::ObjectText(o.as_ref()).to_string();
                return fmt_string(out, &text, verb, spec, arg);
            }
            _ => return write_bad_verb(out, verb, arg, spec),
        },
        Value::Function(_) => match verb {
            'v' => {
                out.push_str("<func>");
                spec.pad_in_place(out, start, false)?;
            }
            _ => return write_bad_verb(out, verb, arg, spec),
        },
    }
    Ok(())
}

/// An integer operand, signed or not.
#[derive(Clone, Copy)]
enum Integer {
    Signed(i64),
    Unsigned(u64),
}

/// Go's `fmtInteger` dispatch (`%v %d %b %o %O %x %X %c %q %U`).
fn fmt_integer(out: &mut String, n: Integer, verb: char, spec: &FmtSpec, arg: &Value) -> Result<()> {
    let start = out.len();
    match verb {
        'v' | 'd' | 'b' | 'o' | 'O' | 'x' | 'X' => {
            let base = match verb {
                'v' | 'd' => 'd',
                'O' => 'O',
                other => other,
            };
            // Zeros up to the precision (or the width, with `0`) are added to the digits.
            crate::budget::ensure(out.len().saturating_add(spec.precision.unwrap_or(0).max(spec.width.unwrap_or(0))))?;
            match n {
                Integer::Signed(v) => format_int_base_into(out, v, base, spec),
                Integer::Unsigned(v) => format_uint_base_into(out, v, base, spec),
            }
            spec.pad_in_place(out, start, false)?;
        }
        'c' => {
            let code = match n {
                Integer::Signed(v) => u32::try_from(v).ok(),
                Integer::Unsigned(v) => u32::try_from(v).ok(),
            };
            out.push(code.and_then(char::from_u32).unwrap_or('\u{FFFD}'));
            spec.pad_in_place(out, start, false)?;
        }
        'q' => {
            let code = match n {
                Integer::Signed(v) => u32::try_from(v).ok(),
                Integer::Unsigned(v) => u32::try_from(v).ok(),
            };
            let c = code.and_then(char::from_u32).unwrap_or('\u{FFFD}');
            out.push('\'');
            crate::strconv::quote_rune_into(out, c, '\'');
            out.push('\'');
            spec.pad_in_place(out, start, false)?;
        }
        'U' => {
            let code = match n {
                Integer::Signed(v) => v as u64,
                Integer::Unsigned(v) => v,
            };
            let _ = write!(out, "U+{code:04X}");
            if spec.hash
                && let Some(c) = u32::try_from(code).ok().and_then(char::from_u32)
                && crate::strconv::is_print(c)
            {
                let _ = write!(out, " '{c}'");
            }
            spec.pad_in_place(out, start, false)?;
        }
        _ => return write_bad_verb(out, verb, arg, spec),
    }
    Ok(())
}

/// Digits after the point that can differ from zero in a float64 (its smallest value is 2^-1074): past them
/// `%f` only adds zeros, which are written without Rust's formatter (whose precision stops at 65,535).
const EXACT_FRACTION_DIGITS: usize = 1100;

/// Significant digits that can differ from zero in a float64 (767 at most): past them `%e` only adds zeros.
const EXACT_SIGNIFICANT_DIGITS: usize = 800;

/// `raw` (Rust's `%e` text) with `zeros` more zeros at the end of its mantissa.
fn with_zeros_before_exponent(raw: String, zeros: usize) -> String {
    if zeros == 0 {
        return raw;
    }
    let at = raw.find(['e', 'E']).unwrap_or(raw.len());
    let mut padded = String::with_capacity(raw.len() + zeros);
    padded.push_str(&raw[..at]);
    padded.extend(std::iter::repeat_n('0', zeros));
    padded.push_str(&raw[at..]);
    padded
}

/// Go's `fmtFloat` dispatch (`%v %e %E %f %F %g %G`).
fn fmt_float(out: &mut String, f: f64, verb: char, spec: &FmtSpec, arg: &Value) -> Result<()> {
    let start = out.len();
    // The digits, without sign.
    let mut num = String::new();
    match verb {
        'v' => num.push_str(crate::strconv::format_float_g(f.abs()).trim_start_matches('+')),
        'e' | 'E' => {
            let prec = spec.precision.unwrap_or(6);
            crate::budget::ensure(prec)?;
            let exact = prec.min(EXACT_SIGNIFICANT_DIGITS);
            let raw = if verb == 'e' { format!("{:.exact$e}", f.abs()) } else { format!("{:.exact$E}", f.abs()) };
            let raw = with_zeros_before_exponent(raw, prec - exact);
            write_normalized_sci(&mut num, &raw, verb == 'E', false);
        }
        'f' | 'F' => {
            let prec = spec.precision.unwrap_or(6);
            crate::budget::ensure(prec)?;
            let exact = prec.min(EXACT_FRACTION_DIGITS);
            let _ = write!(num, "{:.exact$}", f.abs());
            num.extend(std::iter::repeat_n('0', prec - exact));
        }
        'g' | 'G' => match spec.precision {
            // Past the exact digits `%g` only has zeros to add, and it trims them.
            Some(prec) => {
                write_g_with_precision(&mut num, f.abs(), prec.clamp(1, EXACT_SIGNIFICANT_DIGITS), verb == 'G')
            }
            None => write_g_default(&mut num, f.abs(), verb == 'G'),
        },
        _ => return write_bad_verb(out, verb, arg, spec),
    }
    if f.is_nan() {
        num = "NaN".into();
    } else if f.is_infinite() {
        num = "Inf".into();
    }
    let sign = if f.is_sign_negative() && !f.is_nan() {
        Some('-')
    } else if spec.plus || f.is_infinite() {
        Some('+')
    } else if spec.space {
        Some(' ')
    } else {
        None
    };
    if let Some(s) = sign {
        out.push(s);
    }
    out.push_str(&num);
    // Infinities and NaN are never zero-padded.
    spec.pad_in_place(out, start, f.is_finite())?;
    Ok(())
}

/// Go's `fmtString` dispatch (`%v %s %q %x %X`).
fn fmt_string(out: &mut String, s: &str, verb: char, spec: &FmtSpec, arg: &Value) -> Result<()> {
    let start = out.len();
    match verb {
        'v' | 's' => match spec.precision {
            Some(prec) => out.extend(s.chars().take(prec)),
            None => out.push_str(s),
        },
        'q' => {
            let s: String = match spec.precision {
                Some(prec) => s.chars().take(prec).collect(),
                None => s.to_string(),
            };
            if !(spec.hash && try_backquote_into(out, &s)) {
                crate::strconv::quote_into(out, &s);
            }
        }
        'x' | 'X' => format_string_hex_into(out, s, verb == 'X', spec),
        _ => return write_bad_verb(out, verb, arg, spec),
    }
    spec.pad_in_place(out, start, false)?;
    Ok(())
}

/// Go's `badVerb`: `%!verb(type=value)`, or `%!verb(<nil>)` for nil.
fn write_bad_verb(out: &mut String, verb: char, arg: &Value, spec: &FmtSpec) -> Result<()> {
    out.push_str("%!");
    out.push(verb);
    out.push('(');
    write_bad_arg(out, arg, spec)?;
    out.push(')');
    Ok(())
}

/// The `type=value` (or bare `<nil>`) of `%!verb(...)` and `%!(EXTRA ...)` markers; Go prints the value
/// with `%v` and the directive's flags.
fn write_bad_arg(out: &mut String, arg: &Value, spec: &FmtSpec) -> Result<()> {
    if matches!(arg, Value::Nil) {
        out.push_str("<nil>");
        return Ok(());
    }
    out.push_str(arg.type_name());
    out.push('=');
    print_arg(out, arg, 'v', spec, 0, false)
}

/// `%x` / `%X` on strings: hex-encode each byte into `out`.
///
/// Go's precision on `%.Nx` for strings limits the number of *input bytes*
/// consumed, yielding `2 * N` hex characters, not `N`.
fn format_string_hex_into(out: &mut String, s: &str, upper: bool, spec: &FmtSpec) {
    let bytes = s.as_bytes();
    let take = spec.precision.map(|p| p.min(bytes.len())).unwrap_or(bytes.len());
    out.reserve(take * 2);
    for b in &bytes[..take] {
        let _ = if upper { write!(out, "{:02X}", b) } else { write!(out, "{:02x}", b) };
    }
}

// Quoting

/// Try to write a Go-syntax backtick-quoted string (for `%#q`) into `out`.
///
/// Returns `false` if the string contains backticks or non-printable
/// characters; in that case `out` is left unchanged and the caller should
/// fall back to [`go_quote_into`].
fn try_backquote_into(out: &mut String, s: &str) -> bool {
    if s.contains('`') {
        return false;
    }
    for ch in s.chars() {
        // Mirrors Go's strconv.CanBackquote: reject ASCII control chars
        // (U+0000..U+001F plus DEL) except tab, which is allowed inside
        // backticks. Non-ASCII chars pass through — Rust's &str already
        // guarantees valid UTF-8, which is the other half of Go's rule.
        if ch != '\t' && (ch < ' ' || ch == '\x7F') {
            return false;
        }
    }
    out.reserve(s.len() + 2);
    out.push('`');
    out.push_str(s);
    out.push('`');
    true
}

// Scientific notation normalization
/// Write Rust's scientific notation `raw` into `out` in Go's format.
///
/// Go's format requires:
/// - Explicit `+` sign on positive exponents.
/// - At least 2-digit exponent (`e+02`, not `e+2`).
/// - The exponent character is taken from `upper` (`'E'` if true, else `'e'`),
///   regardless of which case `raw` happens to contain. Callers that already
///   produced uppercase `raw` (e.g. `format!("{:E}", f)`) must pass
///   `upper = true` to preserve case.
/// - When `strip_zeros` is set, trailing zeros (and a dangling `.`) are
///   removed from the mantissa before emission.
///
/// Writes directly into `out`: no intermediate `String` allocation, in
/// contrast to the previous `go_normalize_sci` + `replace` + `strip` chain.
fn write_normalized_sci(out: &mut String, raw: &str, upper: bool, strip_zeros: bool) {
    let e_pos = raw.bytes().position(|b| b == b'e' || b == b'E');
    let Some(e_pos) = e_pos else {
        // No exponent: emit the mantissa-only form, optionally stripped.
        out.push_str(if strip_zeros { trim_trailing_zeros_view(raw) } else { raw });
        return;
    };
    let mut mantissa = &raw[..e_pos];
    if strip_zeros && mantissa.contains('.') {
        mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
    }
    out.push_str(mantissa);
    out.push(if upper { 'E' } else { 'e' });

    let exp_str = &raw[e_pos + 1..];
    let (sign, digits) = if let Some(d) = exp_str.strip_prefix('-') {
        ('-', d)
    } else if let Some(d) = exp_str.strip_prefix('+') {
        ('+', d)
    } else {
        ('+', exp_str)
    };
    out.push(sign);
    if digits.len() < 2 {
        out.push('0');
    }
    out.push_str(digits);
}

/// Borrowing view of `s` with trailing zeros (and a dangling `.`) stripped.
/// Zero-allocation alternative to the old `strip_trailing_zeros` String
/// helper.
fn trim_trailing_zeros_view(s: &str) -> &str {
    if !s.contains('.') {
        return s;
    }
    s.trim_end_matches('0').trim_end_matches('.')
}

// %g formatting
/// Decimal exponent of `f` as reported by its shortest scientific form.
///
/// Avoids the `log10().floor()` round-off that misclassifies values right at
/// a power-of-ten boundary (e.g. `999999.999…` rounding up to `1e6`).
fn decimal_exp(f: f64) -> i32 {
    let s = format!("{:e}", f.abs());
    s.find('e').and_then(|i| s[i + 1..].parse::<i32>().ok()).unwrap_or(0)
}

/// Write a float into `out` using Go's `%g` default precision (shortest
/// representation). Uses `%e` notation when the exponent is < −4 or ≥ 6,
/// matching Go's `strconv.FormatFloat(f, 'g', -1, 64)`.
fn write_g_default(out: &mut String, f: f64, upper: bool) {
    if f == 0.0 {
        out.push_str(if f.is_sign_negative() { "-0" } else { "0" });
        return;
    }
    let exp = decimal_exp(f);
    if !(-4..6).contains(&exp) {
        let raw = format!("{:e}", f);
        write_normalized_sci(out, &raw, upper, false);
    } else {
        let _ = write!(out, "{}", f);
    }
}

/// Write a float into `out` using Go's `%g` with an explicit precision
/// (significant digits). Uses `%e` notation when the exponent is < −4 or
/// ≥ `prec`, then strips trailing zeros.
fn write_g_with_precision(out: &mut String, f: f64, prec: usize, upper: bool) {
    if f == 0.0 {
        out.push_str(if f.is_sign_negative() { "-0" } else { "0" });
        return;
    }
    let exp = decimal_exp(f);
    if exp < -4 || exp >= prec as i32 {
        let e_prec = prec.saturating_sub(1);
        let raw = format!("{:.prec$e}", f, prec = e_prec);
        write_normalized_sci(out, &raw, upper, true);
    } else {
        let f_prec = if prec as i32 > exp + 1 { (prec as i32 - exp - 1) as usize } else { 0 };
        let raw = format!("{:.prec$}", f, prec = f_prec);
        out.push_str(trim_trailing_zeros_view(&raw));
    }
}

// Integer base formatting
/// Write a signed integer in a non-decimal base into `out`, using Go's
/// conventions (sign separate from magnitude; `#` inserts `0x`/`0X`/`0b`/`0`).
///
/// Zero-padding is applied to the digits themselves — matching Go, whose
/// integer formatter builds the digit string, pads it up to
/// `width − sign_len`, then prepends the `#` prefix. As a result `%#08x` of
/// 255 yields `0x000000ff` (the `0x` sits outside the padded digit count),
/// and `%#08o` of 255 yields `00000377` (Go's formatter omits the bare-`0`
/// octal prefix when the padded digits already start with `0`).
fn format_int_base_into(out: &mut String, n: i64, base: char, spec: &FmtSpec) {
    let sign = if n < 0 {
        Some('-')
    } else if spec.plus {
        Some('+')
    } else if spec.space {
        Some(' ')
    } else {
        None
    };
    format_magnitude_base_into(out, n.unsigned_abs(), sign, base, spec);
}

/// Write an unsigned integer (a [`Value::Uint`]) in a non-decimal base into
/// `out`.
///
/// Identical to [`format_int_base_into`] except the value has no inherent
/// sign: only the `+` / space flags can introduce a leading sign character,
/// never `-`. Go applies the `+` / space flags to unsigned values too.
fn format_uint_base_into(out: &mut String, u: u64, base: char, spec: &FmtSpec) {
    let sign = if spec.plus {
        Some('+')
    } else if spec.space {
        Some(' ')
    } else {
        None
    };
    format_magnitude_base_into(out, u, sign, base, spec);
}

/// Shared core for the signed and unsigned base formatters: writes `mag`'s
/// digits in `base` with `sign` prepended, applying Go's zero-pad / precision /
/// `#`-prefix rules described on [`format_int_base_into`].
fn format_magnitude_base_into(out: &mut String, mag: u64, sign: Option<char>, base: char, spec: &FmtSpec) {
    let mut digits = String::new();
    let _ = match base {
        'x' => write!(digits, "{:x}", mag),
        'X' => write!(digits, "{:X}", mag),
        'o' | 'O' => write!(digits, "{:o}", mag),
        'b' => write!(digits, "{:b}", mag),
        _ => write!(digits, "{mag}"),
    };

    // Go's rule: `0` flag without `-` and without explicit precision turns
    // into "pad digits up to width − sign_len". An explicit precision wins
    // over the zero flag.
    let digit_target = match spec.precision {
        Some(p) => p,
        None if spec.zero && !spec.left_align => {
            spec.width.map(|w| w.saturating_sub(sign.is_some() as usize)).unwrap_or(0)
        }
        None => 0,
    };
    if digits.len() < digit_target {
        let pad = digit_target - digits.len();
        let mut padded = String::with_capacity(digit_target);
        for _ in 0..pad {
            padded.push('0');
        }
        padded.push_str(&digits);
        digits = padded;
    }

    if let Some(s) = sign {
        out.push(s);
    }
    if base == 'O' {
        out.push_str("0o");
    } else if spec.hash {
        match base {
            'x' => out.push_str("0x"),
            'X' => out.push_str("0X"),
            'b' => out.push_str("0b"),
            // Go skips the `0` octal prefix when the first digit is
            // already `0` — which happens naturally after zero-padding.
            'o' if !digits.starts_with('0') => out.push('0'),
            _ => {}
        }
    }
    out.push_str(&digits);
}

// ═══════════════════════════════════════════════════════════════════════════
// Tests
// ═══════════════════════════════════════════════════════════════════════════

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;

    // Helper: run sprintf with Value args and return the String.
    fn sf(fmt: &str, args: &[Value]) -> String {
        sprintf(fmt, args).unwrap()
    }

    // Test wrappers for helpers that write into `&mut String` in production.
    // Kept here (not in the main module) so production code stays free of
    // test-only scaffolding.

    impl FmtSpec {
        fn pad(&self, s: &str, is_numeric: bool) -> String {
            let mut out = String::from(s);
            self.pad_in_place(&mut out, 0, is_numeric).unwrap();
            out
        }

        fn format_signed(&self, n: i64) -> String {
            let mut out = String::new();
            format_int_base_into(&mut out, n, 'd', self);
            out
        }
    }

    fn go_quote(s: &str) -> String {
        crate::strconv::quote(s)
    }

    fn go_backquote(s: &str) -> Option<String> {
        let mut out = String::new();
        if try_backquote_into(&mut out, s) { Some(out) } else { None }
    }

    // `base` is a single-char string (`"x"`, `"X"`, `"o"`, `"b"`) so the
    // existing test call-sites compile unchanged.
    fn format_int_base(n: i64, base: &str, spec: &FmtSpec) -> String {
        let mut out = String::new();
        let ch = base.chars().next().unwrap_or('x');
        format_int_base_into(&mut out, n, ch, spec);
        out
    }

    // String-returning wrappers for the sci-notation and `%g` helpers, kept
    // so the existing test call-sites compile after production switched to
    // `&mut String` writers. They are *not* used in production code.

    fn go_normalize_sci(s: &str) -> String {
        let mut out = String::new();
        // Preserve raw case: pass `upper = true` only if the raw `s` already
        // uses 'E'. The old `go_normalize_sci` was case-preserving.
        let upper = s.bytes().any(|b| b == b'E');
        write_normalized_sci(&mut out, s, upper, false);
        out
    }

    fn strip_trailing_zeros(s: &str) -> String {
        trim_trailing_zeros_view(s).to_string()
    }

    fn strip_trailing_zeros_sci(s: &str) -> String {
        // Old behavior: trim zeros from mantissa, leave exponent verbatim.
        if let Some(e_pos) = s.bytes().position(|b| b == b'e' || b == b'E') {
            let mantissa = trim_trailing_zeros_view(&s[..e_pos]);
            let mut out = String::with_capacity(s.len());
            out.push_str(mantissa);
            out.push_str(&s[e_pos..]);
            out
        } else {
            trim_trailing_zeros_view(s).to_string()
        }
    }

    fn format_g_default(f: f64, upper: bool) -> String {
        let mut out = String::new();
        write_g_default(&mut out, f, upper);
        out
    }

    fn format_g_with_precision(f: f64, prec: usize, upper: bool) -> String {
        let mut out = String::new();
        write_g_with_precision(&mut out, f, prec, upper);
        out
    }

    // needs_space

    // go_quote
    #[test]
    fn quote_simple() {
        assert_eq!(go_quote("hello"), r#""hello""#);
    }

    #[test]
    fn quote_empty() {
        assert_eq!(go_quote(""), r#""""#);
    }

    #[test]
    fn quote_special_chars() {
        assert_eq!(go_quote("a\"b"), r#""a\"b""#);
        assert_eq!(go_quote("a\\b"), r#""a\\b""#);
        assert_eq!(go_quote("a\nb"), r#""a\nb""#);
        assert_eq!(go_quote("a\tb"), r#""a\tb""#);
        assert_eq!(go_quote("a\rb"), r#""a\rb""#);
    }

    #[test]
    fn quote_bell_backspace_formfeed_vtab() {
        assert_eq!(go_quote("\x07"), r#""\a""#);
        assert_eq!(go_quote("\x08"), r#""\b""#);
        assert_eq!(go_quote("\x0C"), r#""\f""#);
        assert_eq!(go_quote("\x0B"), r#""\v""#);
    }

    #[test]
    fn quote_control_chars() {
        assert_eq!(go_quote("\x01"), r#""\x01""#);
        assert_eq!(go_quote("\x1f"), r#""\x1f""#);
        assert_eq!(go_quote("\x7f"), r#""\x7f""#);
    }

    #[test]
    fn quote_unicode_passthrough() {
        assert_eq!(go_quote("caf\u{00e9}"), "\"caf\u{00e9}\"");
    }

    // go_backquote
    #[test]
    fn backquote_simple() {
        assert_eq!(go_backquote("hello"), Some("`hello`".into()));
    }

    #[test]
    fn backquote_with_tab() {
        // Tab is allowed in backtick strings
        assert_eq!(go_backquote("a\tb"), Some("`a\tb`".into()));
    }

    #[test]
    fn backquote_rejects_backtick() {
        assert_eq!(go_backquote("hel`lo"), None);
    }

    #[test]
    fn backquote_rejects_control_char() {
        assert_eq!(go_backquote("a\x01b"), None);
        assert_eq!(go_backquote("a\nb"), None);
        assert_eq!(go_backquote("\x7f"), None);
    }

    #[test]
    fn backquote_empty() {
        assert_eq!(go_backquote(""), Some("``".into()));
    }

    // go_normalize_sci
    #[test]
    fn normalize_positive_single_digit_exp() {
        assert_eq!(go_normalize_sci("1.5e0"), "1.5e+00");
        assert_eq!(go_normalize_sci("1.5e2"), "1.5e+02");
        assert_eq!(go_normalize_sci("1.5e9"), "1.5e+09");
    }

    #[test]
    fn normalize_negative_single_digit_exp() {
        assert_eq!(go_normalize_sci("1.5e-3"), "1.5e-03");
        assert_eq!(go_normalize_sci("1.5e-9"), "1.5e-09");
    }

    #[test]
    fn normalize_already_two_digit_exp() {
        assert_eq!(go_normalize_sci("1.5e+10"), "1.5e+10");
        assert_eq!(go_normalize_sci("1.5e-10"), "1.5e-10");
    }

    #[test]
    fn normalize_large_exp() {
        assert_eq!(go_normalize_sci("5e-324"), "5e-324");
        assert_eq!(go_normalize_sci("1e308"), "1e+308");
    }

    #[test]
    fn normalize_uppercase() {
        assert_eq!(go_normalize_sci("1.5E2"), "1.5E+02");
        assert_eq!(go_normalize_sci("1.5E-3"), "1.5E-03");
    }

    #[test]
    fn normalize_no_exponent() {
        assert_eq!(go_normalize_sci("3.14"), "3.14");
    }

    #[test]
    fn normalize_explicit_plus() {
        assert_eq!(go_normalize_sci("1.5e+2"), "1.5e+02");
    }

    // strip_trailing_zeros
    #[test]
    fn strip_zeros_basic() {
        assert_eq!(strip_trailing_zeros("1.50000"), "1.5");
        assert_eq!(strip_trailing_zeros("1.0"), "1");
        assert_eq!(strip_trailing_zeros("1.20"), "1.2");
    }

    #[test]
    fn strip_zeros_no_dot() {
        assert_eq!(strip_trailing_zeros("42"), "42");
    }

    #[test]
    fn strip_zeros_no_trailing() {
        assert_eq!(strip_trailing_zeros("1.23"), "1.23");
    }

    #[test]
    fn strip_zeros_all_fractional_zeros() {
        assert_eq!(strip_trailing_zeros("5.000"), "5");
    }

    // strip_trailing_zeros_sci
    #[test]
    fn strip_zeros_sci_basic() {
        assert_eq!(strip_trailing_zeros_sci("1.50000e+02"), "1.5e+02");
        assert_eq!(strip_trailing_zeros_sci("1.00000e+02"), "1e+02");
    }

    #[test]
    fn strip_zeros_sci_no_trailing() {
        assert_eq!(strip_trailing_zeros_sci("1.23e+02"), "1.23e+02");
    }

    #[test]
    fn strip_zeros_sci_uppercase() {
        assert_eq!(strip_trailing_zeros_sci("1.50000E+02"), "1.5E+02");
    }

    // format_g_default
    #[test]
    fn g_default_zero() {
        assert_eq!(format_g_default(0.0, false), "0");
    }

    #[test]
    fn g_default_negative_zero() {
        assert_eq!(format_g_default(-0.0, false), "-0");
    }

    #[test]
    fn g_default_small() {
        assert_eq!(format_g_default(3.5, false), "3.5");
        assert_eq!(format_g_default(0.5, false), "0.5");
        assert_eq!(format_g_default(100000.0, false), "100000");
    }

    #[test]
    fn g_default_switches_to_sci() {
        // exp >= 6 → sci notation
        assert_eq!(format_g_default(1e6, false), "1e+06");
        assert_eq!(format_g_default(1e7, false), "1e+07");
    }

    #[test]
    fn g_default_very_small_switches_to_sci() {
        // exp < -4 → sci notation
        assert_eq!(format_g_default(0.000035, false), "3.5e-05");
    }

    #[test]
    fn g_default_upper() {
        assert_eq!(format_g_default(1e7, true), "1E+07");
    }

    // format_g_with_precision
    #[test]
    fn g_prec_basic() {
        assert_eq!(format_g_with_precision(3.5, 4, false), "3.5");
        assert_eq!(format_g_with_precision(1.5, 6, false), "1.5");
    }

    #[test]
    fn g_prec_switches_to_sci() {
        // exp (5) >= prec (4) → sci
        assert_eq!(format_g_with_precision(123456.0, 4, false), "1.235e+05");
    }

    #[test]
    fn g_prec_rounding() {
        assert_eq!(format_g_with_precision(10.0, 2, false), "10");
        assert_eq!(format_g_with_precision(100.0, 2, false), "1e+02");
    }

    #[test]
    fn g_prec_small_number() {
        // exp = -2, prec = 2 → f_prec = 2-(-2)-1 = 3
        assert_eq!(format_g_with_precision(0.0123, 2, false), "0.012");
    }

    #[test]
    fn g_prec_zero() {
        assert_eq!(format_g_with_precision(0.0, 4, false), "0");
    }

    #[test]
    fn g_prec_upper() {
        assert_eq!(format_g_with_precision(1e7, 4, true), "1E+07");
    }

    // format_int_base
    #[test]
    fn int_base_hex() {
        let spec = FmtSpec {
            left_align: false,
            plus: false,
            space: false,
            hash: false,
            zero: false,
            width: None,
            precision: None,
        };
        assert_eq!(format_int_base(255, "x", &spec), "ff");
        assert_eq!(format_int_base(255, "X", &spec), "FF");
        assert_eq!(format_int_base(-255, "x", &spec), "-ff");
    }

    #[test]
    fn int_base_octal() {
        let spec = FmtSpec {
            left_align: false,
            plus: false,
            space: false,
            hash: false,
            zero: false,
            width: None,
            precision: None,
        };
        assert_eq!(format_int_base(8, "o", &spec), "10");
    }

    #[test]
    fn int_base_binary() {
        let spec = FmtSpec {
            left_align: false,
            plus: false,
            space: false,
            hash: false,
            zero: false,
            width: None,
            precision: None,
        };
        assert_eq!(format_int_base(10, "b", &spec), "1010");
    }

    #[test]
    fn int_base_hash_prefix() {
        let spec = FmtSpec {
            left_align: false,
            plus: false,
            space: false,
            hash: true,
            zero: false,
            width: None,
            precision: None,
        };
        assert_eq!(format_int_base(255, "x", &spec), "0xff");
        assert_eq!(format_int_base(255, "X", &spec), "0XFF");
        assert_eq!(format_int_base(8, "o", &spec), "010");
        assert_eq!(format_int_base(10, "b", &spec), "0b1010");
        assert_eq!(format_int_base(-255, "x", &spec), "-0xff");
    }

    // Sign-flag + zero-pad: the synthesized sign (`+` or space) must sit
    // *before* the zero padding, matching Go (`fmt.Sprintf("% 08d", 5)` is
    // " 0000005", not "000000 5"). Covers the signed and unsigned `%d` paths.
    #[test]
    fn sprintf_sign_flag_zero_pad() {
        assert_eq!(sf("% 08d", &[Value::Int(5)]), " 0000005");
        assert_eq!(sf("% 08d", &[Value::Uint(5)]), " 0000005");
        assert_eq!(sf("%+08d", &[Value::Int(5)]), "+0000005");
        assert_eq!(sf("%+08d", &[Value::Uint(5)]), "+0000005");
        assert_eq!(sf("%08d", &[Value::Int(-5)]), "-0000005");
        // Non-zero-pad space/plus still right-align with the sign attached.
        assert_eq!(sf("% 8d", &[Value::Int(5)]), "       5");
        assert_eq!(sf("%+8d", &[Value::Uint(5)]), "      +5");
    }

    // sprintf: %s
    #[test]
    fn sprintf_s_basic() {
        assert_eq!(sf("%s", &[Value::String("hello".into())]), "hello");
    }

    #[test]
    fn sprintf_s_non_string() {
        // Go's `%s` rejects non-string args, emitting `%!s(type=value)`.
        assert_eq!(sf("%s", &[Value::Int(42)]), "%!s(int=42)");
        assert_eq!(sf("%s", &[Value::Bool(true)]), "%!s(bool=true)");
        // Nil: bare `<nil>` (no `nil=` prefix), matching Go.
        assert_eq!(sf("%s", &[Value::Nil]), "%!s(<nil>)");
    }

    #[test]
    fn sprintf_s_width() {
        assert_eq!(sf("%10s", &[Value::String("hi".into())]), "        hi");
        assert_eq!(sf("%-10s", &[Value::String("hi".into())]), "hi        ");
    }

    #[test]
    fn sprintf_s_precision() {
        assert_eq!(sf("%.3s", &[Value::String("hello".into())]), "hel");
        assert_eq!(sf("%.10s", &[Value::String("hi".into())]), "hi");
    }

    #[test]
    fn sprintf_s_precision_multibyte() {
        // Precision counts Unicode scalars, not bytes. Each accented char is
        // 2 bytes in UTF-8, so `%.3s` keeps the first 3 chars.
        assert_eq!(sf("%.3s", &[Value::String("café".into())]), "caf");
        assert_eq!(sf("%.4s", &[Value::String("café".into())]), "café");
    }

    #[test]
    fn sprintf_s_left_align_with_truncation() {
        // Truncate first to 3 chars, then left-align in width 6.
        assert_eq!(sf("%-6.3s", &[Value::String("hello".into())]), "hel   ");
    }

    #[test]
    fn sprintf_s_zero_precision() {
        assert_eq!(sf("%.0s", &[Value::String("hello".into())]), "");
    }

    // sprintf: %d
    #[test]
    fn sprintf_d_basic() {
        assert_eq!(sf("%d", &[Value::Int(42)]), "42");
        assert_eq!(sf("%d", &[Value::Int(-42)]), "-42");
        assert_eq!(sf("%d", &[Value::Int(0)]), "0");
    }

    #[test]
    fn sprintf_d_plus_flag() {
        assert_eq!(sf("%+d", &[Value::Int(42)]), "+42");
        assert_eq!(sf("%+d", &[Value::Int(-42)]), "-42");
    }

    #[test]
    fn sprintf_d_space_flag() {
        assert_eq!(sf("% d", &[Value::Int(42)]), " 42");
        assert_eq!(sf("% d", &[Value::Int(-42)]), "-42");
    }

    #[test]
    fn sprintf_d_width() {
        assert_eq!(sf("%10d", &[Value::Int(42)]), "        42");
        assert_eq!(sf("%-10d", &[Value::Int(42)]), "42        ");
    }

    #[test]
    fn sprintf_d_zero_pad() {
        assert_eq!(sf("%06d", &[Value::Int(42)]), "000042");
        assert_eq!(sf("%06d", &[Value::Int(-42)]), "-00042");
    }

    #[test]
    fn sprintf_d_zero_pad_with_plus() {
        assert_eq!(sf("%+06d", &[Value::Int(42)]), "+00042");
    }

    #[test]
    fn sprintf_d_zero_pad_plus_negative() {
        // The plus flag is shadowed by the leading minus on negatives.
        assert_eq!(sf("%+06d", &[Value::Int(-42)]), "-00042");
    }

    #[test]
    fn sprintf_d_left_align_overrides_zero() {
        // Go: '-' wins over '0', so pad with spaces on the right.
        assert_eq!(sf("%-06d", &[Value::Int(42)]), "42    ");
    }

    #[test]
    fn sprintf_d_zero_pad_no_overpad() {
        // Width <= already-written length: no padding inserted.
        assert_eq!(sf("%02d", &[Value::Int(12345)]), "12345");
    }

    // sprintf: %f
    #[test]
    fn sprintf_f_default_precision() {
        assert_eq!(sf("%f", &[Value::Float(1.5)]), "1.500000");
        assert_eq!(sf("%f", &[Value::Float(0.0)]), "0.000000");
    }

    #[test]
    fn sprintf_f_explicit_precision() {
        assert_eq!(sf("%.2f", &[Value::Float(1.5)]), "1.50");
        assert_eq!(sf("%.0f", &[Value::Float(1.5)]), "2"); // rounded
    }

    #[test]
    fn sprintf_f_plus_flag() {
        assert_eq!(sf("%+f", &[Value::Float(1.5)]), "+1.500000");
        assert_eq!(sf("%+f", &[Value::Float(-1.5)]), "-1.500000");
    }

    #[test]
    fn sprintf_f_space_flag() {
        assert_eq!(sf("% f", &[Value::Float(1.5)]), " 1.500000");
        assert_eq!(sf("% f", &[Value::Float(-1.5)]), "-1.500000");
    }

    // sprintf: %e / %E
    #[test]
    fn sprintf_e_default() {
        assert_eq!(sf("%e", &[Value::Float(1.5)]), "1.500000e+00");
        assert_eq!(sf("%e", &[Value::Float(100.0)]), "1.000000e+02");
        assert_eq!(sf("%e", &[Value::Float(0.001)]), "1.000000e-03");
    }

    #[test]
    fn sprintf_e_precision() {
        assert_eq!(sf("%.2e", &[Value::Float(1.5)]), "1.50e+00");
        assert_eq!(sf("%.0e", &[Value::Float(1.5)]), "2e+00");
    }

    #[test]
    fn sprintf_e_uppercase() {
        assert_eq!(sf("%E", &[Value::Float(1.5)]), "1.500000E+00");
    }

    #[test]
    fn sprintf_e_plus_flag() {
        assert_eq!(sf("%+e", &[Value::Float(1.5)]), "+1.500000e+00");
        assert_eq!(sf("%+e", &[Value::Float(-1.5)]), "-1.500000e+00");
    }

    #[test]
    fn sprintf_e_zero() {
        assert_eq!(sf("%e", &[Value::Float(0.0)]), "0.000000e+00");
    }

    #[test]
    fn sprintf_e_space_flag() {
        assert_eq!(sf("% e", &[Value::Float(1.5)]), " 1.500000e+00");
        assert_eq!(sf("% e", &[Value::Float(-1.5)]), "-1.500000e+00");
    }

    #[test]
    fn sprintf_e_width() {
        // Right-align in 16 chars; "1.500000e+00" is 12 → 4 leading spaces.
        assert_eq!(sf("%16e", &[Value::Float(1.5)]), "    1.500000e+00");
    }

    #[test]
    fn sprintf_e_plus_width_negative() {
        // The plus flag does not synthesize a sign on negatives; width pads
        // the whole number (sign included) on the left.
        assert_eq!(sf("%+16e", &[Value::Float(-1.5)]), "   -1.500000e+00");
    }

    // sprintf: %g / %G
    #[test]
    fn sprintf_g_default() {
        assert_eq!(sf("%g", &[Value::Float(3.5)]), "3.5");
        assert_eq!(sf("%g", &[Value::Float(0.0)]), "0");
        assert_eq!(sf("%g", &[Value::Float(1.0)]), "1");
    }

    #[test]
    fn sprintf_g_large_switches_to_sci() {
        assert_eq!(sf("%g", &[Value::Float(1e6)]), "1e+06");
        assert_eq!(sf("%g", &[Value::Float(1e7)]), "1e+07");
    }

    #[test]
    fn sprintf_g_small_switches_to_sci() {
        assert_eq!(sf("%g", &[Value::Float(0.000035)]), "3.5e-05");
    }

    #[test]
    fn sprintf_g_boundary() {
        // exp = 5 → still decimal
        assert_eq!(sf("%g", &[Value::Float(100000.0)]), "100000");
        // exp = 6 → switches to sci
        assert_eq!(sf("%g", &[Value::Float(1000000.0)]), "1e+06");
    }

    #[test]
    fn sprintf_g_precision() {
        assert_eq!(sf("%.4g", &[Value::Float(123456.0)]), "1.235e+05");
        assert_eq!(sf("%.2g", &[Value::Float(10.0)]), "10");
        assert_eq!(sf("%.2g", &[Value::Float(100.0)]), "1e+02");
    }

    #[test]
    fn sprintf_g_uppercase() {
        assert_eq!(sf("%G", &[Value::Float(1e7)]), "1E+07");
    }

    #[test]
    fn sprintf_g_plus_flag() {
        assert_eq!(sf("%+g", &[Value::Float(3.5)]), "+3.5");
        assert_eq!(sf("%+g", &[Value::Float(-3.5)]), "-3.5");
    }

    #[test]
    fn sprintf_g_negative_zero() {
        assert_eq!(sf("%g", &[Value::Float(-0.0)]), "-0");
    }

    #[test]
    fn sprintf_g_nan_no_sign_synthesis() {
        // Go keeps a sign before NaN only when the flags ask for one.
        assert_eq!(sf("%g", &[Value::Float(f64::NAN)]), "NaN");
        assert_eq!(sf("%+g", &[Value::Float(f64::NAN)]), "+NaN");
        assert_eq!(sf("% g", &[Value::Float(f64::NAN)]), " NaN");
    }

    #[test]
    fn sprintf_g_inf_with_sign_flags() {
        // Go always signs infinities.
        assert_eq!(sf("%g", &[Value::Float(f64::INFINITY)]), "+Inf");
        assert_eq!(sf("%g", &[Value::Float(f64::NEG_INFINITY)]), "-Inf");
        assert_eq!(sf("%+g", &[Value::Float(f64::INFINITY)]), "+Inf");
    }

    #[test]
    fn sprintf_g_width_and_sci() {
        // Width pads the entire formatted number, sci notation included.
        assert_eq!(sf("%10g", &[Value::Float(1e7)]), "     1e+07");
    }

    #[test]
    fn sprintf_f_nan() {
        assert_eq!(sf("%f", &[Value::Float(f64::NAN)]), "NaN");
        assert_eq!(sf("%+f", &[Value::Float(f64::NAN)]), "+NaN");
    }

    #[test]
    fn sprintf_f_inf() {
        assert_eq!(sf("%f", &[Value::Float(f64::INFINITY)]), "+Inf");
        assert_eq!(sf("%f", &[Value::Float(f64::NEG_INFINITY)]), "-Inf");
    }

    // sprintf: %v
    #[test]
    fn sprintf_v() {
        assert_eq!(sf("%v", &[Value::Int(42)]), "42");
        assert_eq!(sf("%v", &[Value::String("hi".into())]), "hi");
        assert_eq!(sf("%v", &[Value::Bool(true)]), "true");
        assert_eq!(sf("%v", &[Value::Nil]), "<nil>");
    }

    #[test]
    fn sprintf_v_width() {
        assert_eq!(sf("%6v", &[Value::Int(42)]), "    42");
        assert_eq!(sf("%-6v", &[Value::String("hi".into())]), "hi    ");
    }

    // sprintf: %q
    #[test]
    fn sprintf_q_basic() {
        assert_eq!(sf("%q", &[Value::String("hello".into())]), r#""hello""#);
    }

    #[test]
    fn sprintf_q_with_special() {
        assert_eq!(sf("%q", &[Value::String("a\nb".into())]), r#""a\nb""#);
    }

    #[test]
    fn sprintf_hash_q_backtick() {
        assert_eq!(sf("%#q", &[Value::String("hello".into())]), "`hello`");
    }

    #[test]
    fn sprintf_hash_q_fallback_on_backtick() {
        assert_eq!(sf("%#q", &[Value::String("hel`lo".into())]), r#""hel`lo""#);
    }

    #[test]
    fn sprintf_hash_q_fallback_on_control() {
        assert_eq!(sf("%#q", &[Value::String("a\nb".into())]), r#""a\nb""#);
    }

    #[test]
    fn sprintf_q_width() {
        // `"hi"` is 4 chars wide; right-align in width 8 → 4 leading spaces.
        assert_eq!(sf("%8q", &[Value::String("hi".into())]), r#"    "hi""#);
        assert_eq!(sf("%-8q", &[Value::String("hi".into())]), r#""hi"    "#);
    }

    #[test]
    fn sprintf_hash_q_width() {
        // Backtick form: `hi` is 4 chars, pad to width 8.
        assert_eq!(sf("%#8q", &[Value::String("hi".into())]), "    `hi`");
    }

    // sprintf: %t
    #[test]
    fn sprintf_t() {
        assert_eq!(sf("%t", &[Value::Bool(true)]), "true");
        assert_eq!(sf("%t", &[Value::Bool(false)]), "false");
    }

    #[test]
    fn sprintf_t_non_bool_emits_bad_verb() {
        assert_eq!(sf("%t", &[Value::Int(42)]), "%!t(int=42)");
    }

    #[test]
    fn sprintf_t_width() {
        assert_eq!(sf("%6t", &[Value::Bool(true)]), "  true");
        assert_eq!(sf("%-6t", &[Value::Bool(true)]), "true  ");
    }

    // sprintf: %x / %X / %o / %b
    #[test]
    fn sprintf_x_basic() {
        assert_eq!(sf("%x", &[Value::Int(255)]), "ff");
        assert_eq!(sf("%X", &[Value::Int(255)]), "FF");
    }

    #[test]
    fn sprintf_x_negative() {
        assert_eq!(sf("%x", &[Value::Int(-255)]), "-ff");
    }

    #[test]
    fn sprintf_x_hash() {
        assert_eq!(sf("%#x", &[Value::Int(255)]), "0xff");
        assert_eq!(sf("%#X", &[Value::Int(255)]), "0XFF");
    }

    #[test]
    fn sprintf_x_zero_pad() {
        assert_eq!(sf("%04x", &[Value::Int(127)]), "007f");
    }

    #[test]
    fn sprintf_x_left_align() {
        assert_eq!(sf("%-6x", &[Value::Int(255)]), "ff    ");
    }

    #[test]
    fn sprintf_x_hash_zero_pad_negative() {
        // `%#08x` pads the *digit* portion up to width − sign_len (so 7 digits
        // for a negative value), then prepends `0x` and the sign. Matches Go's
        // `fmt.Sprintf("%#08x", -255)`.
        assert_eq!(sf("%#08x", &[Value::Int(-255)]), "-0x00000ff");
    }

    #[test]
    fn sprintf_x_hash_zero_pad_positive() {
        // With `#`, the `0x` prefix is *not* counted against the zero-pad
        // width — Go pads to 8 hex digits, yielding `0x000000ff` (10 chars).
        assert_eq!(sf("%#08x", &[Value::Int(255)]), "0x000000ff");
    }

    #[test]
    fn sprintf_o() {
        assert_eq!(sf("%o", &[Value::Int(8)]), "10");
        assert_eq!(sf("%#o", &[Value::Int(8)]), "010");
    }

    #[test]
    fn sprintf_b() {
        assert_eq!(sf("%b", &[Value::Int(10)]), "1010");
        assert_eq!(sf("%#b", &[Value::Int(10)]), "0b1010");
    }

    // sprintf: %c
    #[test]
    fn sprintf_c() {
        assert_eq!(sf("%c", &[Value::Int(65)]), "A");
        assert_eq!(sf("%c", &[Value::Int(0x1F600)]), "\u{1F600}"); // 😀
    }

    // sprintf: %% and mixed
    #[test]
    fn sprintf_percent_literal() {
        assert_eq!(sf("100%%", &[]), "100%");
    }

    #[test]
    fn sprintf_multiple_verbs() {
        assert_eq!(
            sf(
                "%d %s %d %s",
                &[Value::Int(1), Value::String("one".into()), Value::Int(2), Value::String("two".into())]
            ),
            "1 one 2 two"
        );
    }

    #[test]
    fn sprintf_missing_arg() {
        assert_eq!(sf("%d %d", &[Value::Int(1)]), "1 %!d(MISSING)");
    }

    #[test]
    fn sprintf_no_args_no_verbs() {
        assert_eq!(sf("hello world", &[]), "hello world");
    }

    #[test]
    fn sprintf_trailing_percent() {
        // Go: `fmt.Sprintf("test%")` is "test%!(NOVERB)" (helm 4.1.4 prints the same).
        assert_eq!(sf("test%", &[]), "test%!(NOVERB)");
    }

    #[test]
    fn sprintf_huge_width_is_clamped() {
        // Without Go's bound this would try to allocate >100 GB: past eight digits the rest of the format is
        // swallowed, as Go's `parsenum` does.
        let out = sf("%999999999999d", &[Value::Int(1)]);
        assert_eq!(out, "%!(NOVERB)%!(EXTRA int=1)");
    }

    #[test]
    fn sprintf_huge_precision_is_clamped() {
        let out = sf("%.999999999999f", &[Value::Float(1.0)]);
        assert_eq!(out, "%!(NOVERB)%!(EXTRA float64=1)");
    }

    #[test]
    fn widths_and_precisions_up_to_go_s_bound_are_padded_as_go_pads_them() {
        // Each row checked against helm 4.1.4 (`printf` in a template); lengths where the text is long.
        let length = |format: &str, args: &[Value]| sf(format, args).len();
        assert_eq!(length("%1000000d", &[Value::Int(5)]), 1_000_000);
        assert_eq!(length("%10000000d", &[Value::Int(5)]), 10_000_000);
        assert_eq!(sf("%100000000d", &[Value::Int(5)]), "%!(NOVERB)%!(EXTRA int=5)");
        assert_eq!(sf("%*d", &[Value::Int(1_000_001), Value::Int(5)]), "%!(BADWIDTH)5");
        assert_eq!(length("%*d", &[Value::Int(1_000_000), Value::Int(5)]), 1_000_000);
        assert_eq!(length("%*d", &[Value::Int(-1_000_000), Value::Int(5)]), 1_000_000);
        assert_eq!(sf("%*d", &[Value::Int(-1_000_001), Value::Int(5)]), "%!(BADWIDTH)5");
        assert_eq!(sf("%.*d", &[Value::Int(1_000_001), Value::Int(5)]), "%!(BADPREC)5");
        assert_eq!(sf("%.*d", &[Value::Int(-1), Value::Int(5)]), "%!(BADPREC)5");
        assert_eq!(sf("%*d", &[Value::Int64(3), Value::Int(5)]), "  5", "Sprig's int64 is an int to Go's fmt");
        assert_eq!(sf("%*d", &[Value::Float(3.0), Value::Int(5)]), "%!(BADWIDTH)5");
        assert_eq!(sf("%.", &[Value::Int(5)]), "%!.(int=5)");
        assert_eq!(sf("%*", &[Value::Int(5)]), "%!(NOVERB)");
        assert_eq!(sf("%*", &[]), "%!(BADWIDTH)%!(NOVERB)");
        assert_eq!(length("%.70000f", &[Value::Float(1.5)]), 70_002);
        assert_eq!(length("%.70000e", &[Value::Float(1.5)]), 70_006);
        assert!(sf("%.70000e", &[Value::Float(1.5)]).starts_with("1.500000000000000000"));
        assert!(sf("%.70000e", &[Value::Float(1.5)]).ends_with("0e+00"));
        assert_eq!(length("%070000d", &[Value::Int(-5)]), 70_000);
        assert_eq!(length("%-70000s|", &[Value::from("x")]), 70_001);
        assert_eq!(sf("%.800g", &[Value::Float(0.1)]), "0.1000000000000000055511151231257827021181583404541015625");
        assert_eq!(length("%.70000g", &[Value::Float(0.1)]), 57);
    }

    #[test]
    fn padding_stops_at_the_render_byte_budget() {
        let meter = crate::budget::Meter::new(1000, None, None);
        let _active = meter.activate();
        assert!(sprintf("%999d", &[Value::Int(1)]).is_ok());
        let error = sprintf("%1001d", &[Value::Int(1)]).unwrap_err();
        assert!(error.to_string().contains("more than 1000 bytes"), "{error}");
        assert!(meter.exhausted().is_some());
    }

    #[test]
    fn sprintf_unknown_verb_emits_bad_verb() {
        assert_eq!(sf("%z", &[Value::Int(1)]), "%!z(int=1)");
    }

    #[test]
    fn sprintf_d_non_int_emits_bad_verb() {
        assert_eq!(sf("%d", &[Value::String("abc".into())]), "%!d(string=abc)");
    }

    #[test]
    fn sprintf_f_non_numeric_emits_bad_verb() {
        assert_eq!(sf("%f", &[Value::String("abc".into())]), "%!f(string=abc)");
    }

    // sprintf: %x / %X on strings (Go parity: precision limits input bytes)
    #[test]
    fn sprintf_x_string_full() {
        assert_eq!(sf("%x", &[Value::String("abc".into())]), "616263");
    }

    #[test]
    fn sprintf_x_string_precision_limits_input_bytes() {
        // Go: fmt.Sprintf("%.2x", "abc") == "6162" (2 bytes → 4 hex chars).
        assert_eq!(sf("%.2x", &[Value::String("abc".into())]), "6162");
        assert_eq!(sf("%.3x", &[Value::String("abc".into())]), "616263");
        assert_eq!(sf("%.0x", &[Value::String("abc".into())]), "");
    }

    #[test]
    fn sprintf_x_string_uppercase_verb() {
        assert_eq!(sf("%X", &[Value::String("abc".into())]), "616263");
    }

    #[test]
    fn sprintf_x_string_precision_over_length_is_capped() {
        // Precision larger than the string length just emits the whole string.
        assert_eq!(sf("%.99x", &[Value::String("ab".into())]), "6162");
    }

    // FmtSpec::pad
    #[test]
    fn pad_no_width() {
        let spec = FmtSpec {
            left_align: false,
            plus: false,
            space: false,
            hash: false,
            zero: false,
            width: None,
            precision: None,
        };
        assert_eq!(spec.pad("hello", false), "hello");
    }

    #[test]
    fn pad_right_align() {
        let spec = FmtSpec {
            left_align: false,
            plus: false,
            space: false,
            hash: false,
            zero: false,
            width: Some(10),
            precision: None,
        };
        assert_eq!(spec.pad("hi", false), "        hi");
    }

    #[test]
    fn pad_left_align() {
        let spec = FmtSpec {
            left_align: true,
            plus: false,
            space: false,
            hash: false,
            zero: false,
            width: Some(10),
            precision: None,
        };
        assert_eq!(spec.pad("hi", false), "hi        ");
    }

    #[test]
    fn pad_zero_unsigned() {
        let spec = FmtSpec {
            left_align: false,
            plus: false,
            space: false,
            hash: false,
            zero: true,
            width: Some(6),
            precision: None,
        };
        assert_eq!(spec.pad("42", true), "000042");
    }

    #[test]
    fn pad_zero_negative() {
        let spec = FmtSpec {
            left_align: false,
            plus: false,
            space: false,
            hash: false,
            zero: true,
            width: Some(6),
            precision: None,
        };
        assert_eq!(spec.pad("-42", true), "-00042");
    }

    #[test]
    fn pad_zero_positive_sign() {
        let spec = FmtSpec {
            left_align: false,
            plus: false,
            space: false,
            hash: false,
            zero: true,
            width: Some(6),
            precision: None,
        };
        assert_eq!(spec.pad("+42", true), "+00042");
    }

    #[test]
    fn pad_wider_than_needed() {
        let spec = FmtSpec {
            left_align: false,
            plus: false,
            space: false,
            hash: false,
            zero: false,
            width: Some(2),
            precision: None,
        };
        // String already wider, no padding needed
        assert_eq!(spec.pad("hello", false), "hello");
    }

    // FmtSpec::format_signed
    #[test]
    fn format_signed_plain() {
        let spec = FmtSpec {
            left_align: false,
            plus: false,
            space: false,
            hash: false,
            zero: false,
            width: None,
            precision: None,
        };
        assert_eq!(spec.format_signed(42), "42");
        assert_eq!(spec.format_signed(-42), "-42");
        assert_eq!(spec.format_signed(0), "0");
    }

    #[test]
    fn format_signed_plus() {
        let spec = FmtSpec {
            left_align: false,
            plus: true,
            space: false,
            hash: false,
            zero: false,
            width: None,
            precision: None,
        };
        assert_eq!(spec.format_signed(42), "+42");
        assert_eq!(spec.format_signed(-42), "-42");
        assert_eq!(spec.format_signed(0), "+0");
    }

    #[test]
    fn format_signed_space() {
        let spec = FmtSpec {
            left_align: false,
            plus: false,
            space: true,
            hash: false,
            zero: false,
            width: None,
            precision: None,
        };
        assert_eq!(spec.format_signed(42), " 42");
        assert_eq!(spec.format_signed(-42), "-42");
        assert_eq!(spec.format_signed(0), " 0");
    }
}
