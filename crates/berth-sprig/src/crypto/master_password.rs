//! Sprig's `derivePassword counter type password user site`: the Master Password algorithm (scrypt key
//! from the master password and user, HMAC-SHA256 seed from the site and counter, characters picked from
//! templates). Deterministic, so berth's output is Helm's. A port of Sprig's `derivePassword`.

use hmac::{KeyInit as _, Mac as _};

use super::args::{self, FunctionError};
use berth_go::Value;

const SEED: &[u8] = b"com.lyndir.masterpassword";

/// Templates per password type (Sprig's `passwordTypeTemplates`).
const TEMPLATES: [(&str, &[&str]); 6] = [
    ("maximum", &["anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"]),
    (
        "long",
        &[
            "CvcvnoCvcvCvcv",
            "CvcvCvcvnoCvcv",
            "CvcvCvcvCvcvno",
            "CvccnoCvcvCvcv",
            "CvccCvcvnoCvcv",
            "CvccCvcvCvcvno",
            "CvcvnoCvccCvcv",
            "CvcvCvccnoCvcv",
            "CvcvCvccCvcvno",
            "CvcvnoCvcvCvcc",
            "CvcvCvcvnoCvcc",
            "CvcvCvcvCvccno",
            "CvccnoCvccCvcv",
            "CvccCvccnoCvcv",
            "CvccCvccCvcvno",
            "CvcvnoCvccCvcc",
            "CvcvCvccnoCvcc",
            "CvcvCvccCvccno",
            "CvccnoCvcvCvcc",
            "CvccCvcvnoCvcc",
            "CvccCvcvCvccno",
        ],
    ),
    ("medium", &["CvcnoCvc", "CvcCvcno"]),
    ("short", &["Cvcn"]),
    ("basic", &["aaanaaan", "aannaaan", "aaannaaa"]),
    ("pin", &["nnnn"]),
];

/// Characters per template letter (Sprig's `templateCharacters`).
const CHARACTERS: [(u8, &[u8]); 9] = [
    (b'V', b"AEIOU"),
    (b'C', b"BCDFGHJKLMNPQRSTVWXYZ"),
    (b'v', b"aeiou"),
    (b'c', b"bcdfghjklmnpqrstvwxyz"),
    (b'A', b"AEIOUBCDFGHJKLMNPQRSTVWXYZ"),
    (b'a', b"AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz"),
    (b'n', b"0123456789"),
    (b'o', b"@&%?,=[]_:-+*$#!'^~;()/."),
    (b'x', b"AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()"),
];

/// `derivePassword counter passwordType password user site`.
pub(crate) fn derive_password(arguments: &[Value]) -> Result<Value, FunctionError> {
    args::expect_count("derivePassword", arguments, 5)?;
    let counter = args::uint32(&arguments[0])?;
    let password_type = args::string(&arguments[1])?;
    let password = args::string(&arguments[2])?;
    let user = args::string(&arguments[3])?;
    let site = args::string(&arguments[4])?;
    Ok(Value::String(derive(counter, password_type, password, user, site).into()))
}

/// Sprig's `derivePassword`; failures are text, as Sprig returns them.
fn derive(counter: u32, password_type: &str, password: &str, user: &str, site: &str) -> String {
    let Some((_, templates)) = TEMPLATES.iter().find(|(name, _)| *name == password_type) else {
        return format!("cannot find password template {password_type}");
    };

    let mut salt = SEED.to_vec();
    salt.extend_from_slice(&length_prefix(user));
    salt.extend_from_slice(user.as_bytes());
    // N = 32768, r = 8, p = 2, 64 bytes, as Sprig calls scrypt.Key.
    let mut key = [0u8; 64];
    let derived = scrypt::Params::new(15, 8, 2).map_err(|error| error.to_string()).and_then(|params| {
        scrypt::scrypt(password.as_bytes(), &salt, &params, &mut key).map_err(|error| error.to_string())
    });
    if let Err(error) = derived {
        return format!("failed to derive password: {error}");
    }

    let mut message = SEED.to_vec();
    message.extend_from_slice(&length_prefix(site));
    message.extend_from_slice(site.as_bytes());
    message.extend_from_slice(&counter.to_be_bytes());
    let Ok(mut mac) = hmac::Hmac::<sha2::Sha256>::new_from_slice(&key) else {
        return "failed to derive password: invalid HMAC key".to_string();
    };
    mac.update(&message);
    let seed = mac.finalize().into_bytes();

    let template = templates[usize::from(seed[0]) % templates.len()];
    template
        .bytes()
        .enumerate()
        .filter_map(|(index, letter)| {
            let (_, characters) = CHARACTERS.iter().find(|(name, _)| *name == letter)?;
            Some(char::from(characters[usize::from(seed[index + 1]) % characters.len()]))
        })
        .collect()
}

/// `binary.Write(buffer, binary.BigEndian, uint32(len(text)))`.
fn length_prefix(text: &str) -> [u8; 4] {
    // Template strings are far below 4 GiB; Go's uint32 conversion would wrap the same way.
    (text.len() as u32).to_be_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_letter_has_characters_and_seeds_cover_the_longest_template() {
        for (_, templates) in TEMPLATES {
            for template in templates {
                assert!(template.len() < 32, "the HMAC seed has 32 bytes");
                for letter in template.bytes() {
                    assert!(CHARACTERS.iter().any(|(name, _)| *name == letter), "{template}");
                }
            }
        }
    }

    #[test]
    fn unknown_types_are_reported_as_text() {
        assert_eq!(derive(1, "nope", "p", "u", "s"), "cannot find password template nope");
    }
}
