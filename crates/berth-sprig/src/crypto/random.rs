//! The operating system's random number generator, the `crypto/rand.Reader` of Sprig's functions, and
//! `randBytes`.

use super::args::{self, FunctionError};
use super::encoding::base64;
use berth_go::Value;

/// The most bytes one `randBytes` call makes. Go allocates whatever is asked for and dies when memory runs
/// out; berth refuses instead.
pub(crate) const MAX_RANDOM_BYTES: usize = 1 << 24;

/// Fills `buffer` from the operating system.
pub(crate) fn fill(buffer: &mut [u8]) -> Result<(), FunctionError> {
    getrandom::fill(buffer).map_err(|error| FunctionError::new(format!("reading random bytes: {error}")))
}

/// `n` random bytes.
pub(crate) fn bytes<const N: usize>() -> Result<[u8; N], FunctionError> {
    let mut buffer = [0u8; N];
    fill(&mut buffer)?;
    Ok(buffer)
}

/// The generator RustCrypto's key generation takes.
pub(crate) fn rng() -> getrandom::SysRng {
    getrandom::SysRng
}

/// The generator ring takes.
pub(crate) fn ring_rng() -> ring::rand::SystemRandom {
    ring::rand::SystemRandom::new()
}

/// `randBytes count`: base64 of `count` random bytes (Sprig `randBytes`).
pub(crate) fn rand_bytes(arguments: &[Value]) -> Result<Value, FunctionError> {
    args::expect_count("randBytes", arguments, 1)?;
    let count = args::int(&arguments[0])?;
    // Go's make([]byte, count) panics on a negative count.
    let count = usize::try_from(count)
        .map_err(|_| FunctionError::new("runtime error: makeslice: len out of range".to_string()))?;
    if count > MAX_RANDOM_BYTES {
        return Err(FunctionError::new(format!(
            "randBytes: {count} bytes asked for, more than berth's limit of {MAX_RANDOM_BYTES}"
        )));
    }
    let mut buffer = vec![0u8; count];
    fill(&mut buffer)?;
    Ok(Value::String(base64::encode(&buffer).into()))
}
