//! Sprig's `encryptAES` / `decryptAES`: AES-256-CBC under the password's first 32 bytes (zero-padded),
//! PKCS#7 padding, a random IV in front of the ciphertext, base64 around it all. Decryption checks no
//! padding, exactly as Sprig; the inputs Go would panic on give Go's panic messages as errors.

use aes::cipher::{Array, BlockCipherDecrypt as _, BlockCipherEncrypt as _, KeyInit as _};

use super::args::{self, FunctionError};
use super::encoding::base64;
use super::random;
use berth_go::Value;

const BLOCK: usize = 16;

/// `encryptAES password plaintext`.
pub(crate) fn encrypt_aes(arguments: &[Value]) -> Result<Value, FunctionError> {
    args::expect_count("encryptAES", arguments, 2)?;
    let password = args::string(&arguments[0])?;
    let plaintext = args::string(&arguments[1])?;
    if plaintext.is_empty() {
        return Ok(Value::String("".into()));
    }
    let iv = random::bytes::<BLOCK>()?;
    Ok(Value::String(base64::encode(&encrypt(&cipher(password), plaintext.as_bytes(), iv)).into()))
}

/// `decryptAES password ciphertext`.
pub(crate) fn decrypt_aes(arguments: &[Value]) -> Result<Value, FunctionError> {
    args::expect_count("decryptAES", arguments, 2)?;
    let password = args::string(&arguments[0])?;
    let encoded = args::string(&arguments[1])?;
    if encoded.is_empty() {
        return Ok(Value::String("".into()));
    }
    let crypt = base64::decode(encoded.as_bytes()).map_err(|error| FunctionError::new(error.to_string()))?;
    let plaintext = decrypt(password, &crypt, base64::decoded_capacity(encoded.len()))?;
    // Go keeps whatever bytes come out; a template value here is UTF-8, so bytes that are not become U+FFFD.
    Ok(Value::String(String::from_utf8_lossy(&plaintext).into()))
}

/// Sprig's key: the password's bytes copied into 32 zero bytes.
fn cipher(password: &str) -> aes::Aes256 {
    let mut key = [0u8; 32];
    let length = password.len().min(32);
    key[..length].copy_from_slice(&password.as_bytes()[..length]);
    aes::Aes256::new(&Array::from(key))
}

/// IV followed by the CBC encryption of the PKCS#7-padded plaintext.
fn encrypt(cipher: &aes::Aes256, plaintext: &[u8], iv: [u8; BLOCK]) -> Vec<u8> {
    let padding = BLOCK - plaintext.len() % BLOCK;
    let mut content = plaintext.to_vec();
    content.resize(plaintext.len() + padding, padding as u8);
    let mut out = Vec::with_capacity(BLOCK + content.len());
    out.extend_from_slice(&iv);
    let mut previous = iv;
    for chunk in content.chunks_exact(BLOCK) {
        let mut block = [0u8; BLOCK];
        for (index, byte) in block.iter_mut().enumerate() {
            *byte = chunk[index] ^ previous[index];
        }
        let mut block = Array::from(block);
        cipher.encrypt_block(&mut block);
        previous = block.into();
        out.extend_from_slice(&previous);
    }
    out
}

/// Sprig's decryption, with the panics Go raises on short or ragged input turned into its messages.
/// `capacity` is the capacity of Go's decoded slice, which its slice-bounds message names.
fn decrypt(password: &str, crypt: &[u8], capacity: usize) -> Result<Vec<u8>, FunctionError> {
    if crypt.len() < BLOCK {
        return Err(FunctionError::new(format!(
            "runtime error: slice bounds out of range [:{BLOCK}] with capacity {capacity}"
        )));
    }
    let (iv, body) = crypt.split_at(BLOCK);
    if body.len() % BLOCK != 0 {
        return Err(FunctionError::new("crypto/cipher: input not full blocks"));
    }
    let cipher = cipher(password);
    let mut previous: [u8; BLOCK] = [0; BLOCK];
    previous.copy_from_slice(iv);
    let mut decrypted = Vec::with_capacity(body.len());
    for chunk in body.chunks_exact(BLOCK) {
        let mut block = [0u8; BLOCK];
        block.copy_from_slice(chunk);
        let mut array = Array::from(block);
        cipher.decrypt_block(&mut array);
        let plain: [u8; BLOCK] = array.into();
        decrypted.extend(plain.iter().zip(previous).map(|(byte, mask)| byte ^ mask));
        previous = block;
    }
    let Some(&last) = decrypted.last() else {
        return Err(FunctionError::new("runtime error: index out of range [-1]"));
    };
    let keep = decrypted.len() as i64 - i64::from(last);
    if keep < 0 {
        return Err(FunctionError::new(format!("runtime error: slice bounds out of range [:{keep}]")));
    }
    decrypted.truncate(keep as usize);
    Ok(decrypted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_with_long_and_short_passwords() {
        for password in ["", "pw", "a password longer than thirty-two bytes, truncated"] {
            for plaintext in ["x", "exactly sixteen!", "a longer plaintext over two blocks"] {
                let crypt = encrypt(&cipher(password), plaintext.as_bytes(), [9; BLOCK]);
                assert_eq!(crypt.len() % BLOCK, 0);
                assert_eq!(decrypt(password, &crypt, 0).unwrap(), plaintext.as_bytes());
            }
        }
    }

    #[test]
    fn matches_a_known_cbc_vector() {
        // NIST SP 800-38A F.2.5 (CBC-AES256.Encrypt), first two blocks (the key is not UTF-8, so it cannot
        // come from a template password).
        let key: [u8; 32] =
            hex_bytes("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4").try_into().unwrap();
        let iv: [u8; 16] = hex_bytes("000102030405060708090a0b0c0d0e0f").try_into().unwrap();
        let plaintext = hex_bytes("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51");
        let crypt = encrypt(&aes::Aes256::new(&Array::from(key)), &plaintext, iv);
        assert_eq!(&crypt[..16], iv.as_slice());
        assert_eq!(
            &crypt[16..48],
            hex_bytes("f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d").as_slice()
        );
    }

    #[test]
    fn malformed_input_gives_go_panic_messages() {
        let error = |crypt: &[u8], capacity| decrypt("k", crypt, capacity).unwrap_err().to_string();
        assert_eq!(error(b"abc", 3), "runtime error: slice bounds out of range [:16] with capacity 3");
        assert_eq!(error(&[0; 16], 18), "runtime error: index out of range [-1]");
        assert_eq!(error(&[0; 20], 21), "crypto/cipher: input not full blocks");
        // One block whose last decrypted byte is larger than the block: Go slices to a negative bound.
        let crypt = encrypt(&cipher("k"), &[200; 15], [0; BLOCK]);
        let mut tampered = crypt.clone();
        // Flipping the IV flips the plaintext of the first block: make its last byte 0xff.
        tampered[15] ^= 1 ^ 0xff;
        assert_eq!(error(&tampered, 30), "runtime error: slice bounds out of range [:-239]");
    }

    fn hex_bytes(text: &str) -> Vec<u8> {
        (0..text.len()).step_by(2).map(|index| u8::from_str_radix(&text[index..index + 2], 16).unwrap()).collect()
    }
}
