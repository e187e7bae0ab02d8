//! Sprig's random functions: `randAlphaNum`, `randAlpha`, `randAscii`, `randNumeric` (goutils' CryptoRandom*
//! alphabets), `randInt` (`rand.Intn(max-min) + min`, which panics when max <= min), `shuffle` (xstrings) and
//! `uuidv4` (google/uuid `New`). Randomness comes from the operating system, as Go's crypto/rand does.

use std::format;
use std::string::String;
use std::sync::Arc;

use crate::args::SprigFn;
use crate::args::{call_error, fixed, int, string};
use crate::xstrings::shuffle;
use berth_go::Result;
use berth_go::Value;

pub(super) const FUNCTIONS: &[(&str, SprigFn)] = &[
    ("randAlphaNum", rand_alpha_num),
    ("randAlpha", rand_alpha),
    ("randAscii", rand_ascii),
    ("randNumeric", rand_numeric),
    ("randInt", rand_int),
    ("shuffle", shuffle_string),
    ("uuidv4", uuid_v4),
];

/// Largest string the random generators build; Go would try to allocate any size, berth refuses absurd ones.
const MAX_RANDOM_LENGTH: i64 = 1 << 24;

/// Random bytes from the OS; a failing generator is an error, never a weak fallback.
fn fill(bytes: &mut [u8]) -> Result<()> {
    getrandom::fill(bytes).map_err(|e| call_error(format!("random source failed: {e}")))
}

/// A uniform integer in `0..n` (`n > 0`) by rejection sampling.
fn below(n: u64) -> Result<u64> {
    let zone = u64::MAX - (u64::MAX % n);
    loop {
        let mut bytes = [0u8; 8];
        fill(&mut bytes)?;
        let x = u64::from_le_bytes(bytes);
        if x < zone {
            return Ok(x % n);
        }
    }
}

/// `count` characters drawn from `alphabet`; a negative count is goutils' error, swallowed by Sprig to "".
fn random_string(name: &str, args: &[Value], alphabet: &[u8]) -> Result<Value> {
    let [count] = fixed(name, args)?;
    let count = int(count)?;
    if count <= 0 {
        return Ok(Value::String(Arc::from("")));
    }
    if count > MAX_RANDOM_LENGTH {
        return Err(call_error(format!(
            "{name}: {count} characters is more than berth generates ({MAX_RANDOM_LENGTH})"
        )));
    }
    let mut out = String::with_capacity(count as usize);
    for _ in 0..count {
        out.push(alphabet[below(alphabet.len() as u64)? as usize] as char);
    }
    Ok(Value::String(Arc::from(out)))
}

const DIGITS: &[u8] = b"0123456789";
const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const ALPHANUMERIC: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

fn rand_alpha_num(args: &[Value]) -> Result<Value> {
    random_string("randAlphaNum", args, ALPHANUMERIC)
}

fn rand_alpha(args: &[Value]) -> Result<Value> {
    random_string("randAlpha", args, LETTERS)
}

fn rand_numeric(args: &[Value]) -> Result<Value> {
    random_string("randNumeric", args, DIGITS)
}

/// goutils' `CryptoRandomAscii`: code points 32 to 126.
fn rand_ascii(args: &[Value]) -> Result<Value> {
    let printable: std::vec::Vec<u8> = (32u8..127).collect();
    random_string("randAscii", args, &printable)
}

/// `func(min, max int) int { return rand.Intn(max-min) + min }`.
fn rand_int(args: &[Value]) -> Result<Value> {
    let [min, max] = fixed("randInt", args)?;
    let (min, max) = (int(min)?, int(max)?);
    let span = max.wrapping_sub(min);
    if span <= 0 {
        return Err(call_error("invalid argument to Intn"));
    }
    Ok(Value::Int(below(span as u64)? as i64 + min))
}

fn shuffle_string(args: &[Value]) -> Result<Value> {
    let [value] = fixed("shuffle", args)?;
    let text = string(value)?;
    let mut failure = None;
    let shuffled = shuffle(text, |n| match below(n as u64) {
        Ok(i) => i as usize,
        Err(e) => {
            failure = Some(e);
            0
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(Value::String(Arc::from(shuffled))),
    }
}

/// A random (version 4, RFC 4122 variant) UUID in its 36-character form.
fn uuid_v4(args: &[Value]) -> Result<Value> {
    fixed::<0>("uuidv4", args)?;
    let mut bytes = [0u8; 16];
    fill(&mut bytes)?;
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(Value::String(Arc::from(format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    ))))
}
