//! Sprig's `bcrypt` and `htpasswd`: golang.org/x/crypto/bcrypt's `GenerateFromPassword` at its default
//! cost 10, written in the `$2a$` form it uses, with its refusal of passwords longer than 72 bytes.
//! Failures are returned as text, as Sprig does.

use super::args::{self, FunctionError};
use super::random;
use berth_go::Value;

/// x/crypto's `bcrypt.DefaultCost`.
const DEFAULT_COST: u32 = 10;
/// x/crypto refuses longer passwords (`ErrPasswordTooLong`) instead of truncating them.
const MAX_PASSWORD_BYTES: usize = 72;

/// `bcrypt password`.
pub(crate) fn bcrypt(arguments: &[Value]) -> Result<Value, FunctionError> {
    args::expect_count("bcrypt", arguments, 1)?;
    let password = args::string(&arguments[0])?;
    Ok(Value::String(hash_or_message(password)?.into()))
}

/// `htpasswd username password`: `username:<bcrypt hash>`.
pub(crate) fn htpasswd(arguments: &[Value]) -> Result<Value, FunctionError> {
    args::expect_count("htpasswd", arguments, 2)?;
    let username = args::string(&arguments[0])?;
    let password = args::string(&arguments[1])?;
    if username.contains(':') {
        return Ok(Value::String(format!("invalid username: {username}").into()));
    }
    Ok(Value::String(format!("{username}:{}", hash_or_message(password)?).into()))
}

/// Sprig's `bcrypt` helper: the hash, or the failure as text.
fn hash_or_message(password: &str) -> Result<String, FunctionError> {
    if password.len() > MAX_PASSWORD_BYTES {
        return Ok("failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes".to_string());
    }
    let salt = random::bytes::<16>()?;
    match ::bcrypt::hash_with_salt(password.as_bytes(), DEFAULT_COST, salt) {
        Ok(parts) => Ok(parts.format_for_version(::bcrypt::Version::TwoA)),
        Err(error) => Ok(format!("failed to encrypt string with bcrypt: {error}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(value: Value) -> String {
        match value {
            Value::String(text) => text.to_string(),
            other => panic!("not a string: {other:?}"),
        }
    }

    #[test]
    fn hashes_verify_and_use_the_2a_prefix() {
        let hash = text(bcrypt(&[Value::String("secret".into())]).unwrap());
        assert!(hash.starts_with("$2a$10$"), "{hash}");
        assert_eq!(hash.len(), 60);
        assert!(::bcrypt::verify("secret", &hash).unwrap());
        assert!(!::bcrypt::verify("Secret", &hash).unwrap());
    }

    #[test]
    fn long_passwords_and_bad_usernames_are_reported_as_text() {
        let long = "x".repeat(73);
        assert_eq!(
            text(bcrypt(&[Value::String(long.as_str().into())]).unwrap()),
            "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes"
        );
        let exactly = "x".repeat(72);
        assert!(text(bcrypt(&[Value::String(exactly.as_str().into())]).unwrap()).starts_with("$2a$10$"));
        assert_eq!(
            text(htpasswd(&[Value::String("a:b".into()), Value::String("p".into())]).unwrap()),
            "invalid username: a:b"
        );
        let line = text(htpasswd(&[Value::String("admin".into()), Value::String("p".into())]).unwrap());
        let (user, hash) = line.split_once(':').unwrap();
        assert_eq!(user, "admin");
        assert!(::bcrypt::verify("p", hash).unwrap());
    }
}
