//! Helm's provenance files (pkg/provenance/sign.go): a `.prov` beside a chart archive is an OpenPGP clearsigned
//! document holding the chart's `Chart.yaml`, a `...` line, and `files: {<archive name>: sha256:<hex>}`. A chart
//! verifies when the signature is good for a key of the keyring and the archive's digest is the one signed.
//!
//! OpenPGP through rPGP (the `pgp` crate): signature checking for RSA, DSA, ECDSA and EdDSA keys, binary or
//! armored keyrings (`gpg --export` writes the binary `pubring.gpg` form Helm reads). [`verify_chart`] is what
//! `verify`, `pull --verify` and, later, `install`/`upgrade --verify` call.

use pgp::composed::{CleartextSignedMessage, PublicOrSecret, SignedPublicKey, SignedSecretKey};
use pgp::types::KeyDetails as _;
use sha2::{Digest as _, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The separator of a provenance message block's parts.
const PART_SEPARATOR: &str = "\n...\n";

/// Why a chart did not verify; the texts are Helm's where Helm words them.
#[derive(Debug, thiserror::Error)]
pub enum ProvenanceError {
    #[error("unpacked charts cannot be verified")]
    Unpacked,
    #[error("chart must be a tgz file")]
    NotAnArchive,
    #[error("stat {path}: {reason}")]
    Chart { path: String, reason: String },
    #[error("could not load provenance file {path}: stat {path}: {reason}")]
    ProvenanceFile { path: String, reason: String },
    #[error("failed to load keyring: open {path}: {reason}")]
    KeyringFile { path: String, reason: String },
    #[error("failed to load keyring: {0}")]
    Keyring(String),
    #[error("signature block not found")]
    NoSignatureBlock,
    #[error("openpgp: signature made by unknown entity")]
    UnknownSigner,
    #[error("openpgp: invalid signature: {0}")]
    BadSignature(String),
    #[error("message block must have at least two parts")]
    MessageBlock,
    #[error("{0}")]
    Sums(String),
    #[error("provenance does not contain a SHA for a file named {0:?}")]
    NoSum(String),
    #[error("sha256 sum does not match for {file}: {signed:?} != {actual:?}")]
    SumMismatch { file: String, signed: String, actual: String },
    #[error("private key not found")]
    NoPrivateKey,
    #[error("provided key is not a private key. Try providing a keyring with secret keys")]
    NotPrivate,
    #[error("more than one key contain the id {0:?}")]
    Vague(String),
    #[error("failed to either sign or armor message block: {0}")]
    Sign(String),
}

/// What a good provenance says (Helm's `provenance.Verification`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    /// The signing key's user ids.
    pub signed_by: Vec<String>,
    /// The primary key's fingerprint, upper-case hex (`%X`).
    pub fingerprint: String,
    /// `sha256:<hex>` of the archive.
    pub file_hash: String,
    pub file_name: String,
}

impl Verification {
    /// The lines `helm verify` and `helm pull --verify` print.
    pub fn report(&self) -> String {
        self.report_for("Chart")
    }

    /// The lines Helm prints for a verified `subject` (`Chart`, or `Plugin` for `plugin verify|install`).
    pub fn report_for(&self, subject: &str) -> String {
        let mut text = String::new();
        for name in &self.signed_by {
            text.push_str(&format!("Signed by: {name}\n"));
        }
        text.push_str(&format!("Using Key With Fingerprint: {}\n", self.fingerprint));
        text.push_str(&format!("{subject} Hash Verified: {}\n", self.file_hash));
        text
    }
}

/// A clearsigned document: the text as signed, and the message.
pub struct Clearsigned {
    /// The signed text, dash-unescaped.
    pub plaintext: String,
    message: CleartextSignedMessage,
}

impl Clearsigned {
    /// Reads a clearsigned document (`clearsign.Decode`).
    ///
    /// # Errors
    /// [`ProvenanceError::NoSignatureBlock`] when the data is no clearsigned document.
    pub fn parse(data: &[u8]) -> Result<Clearsigned, ProvenanceError> {
        let text = std::str::from_utf8(data).map_err(|_| ProvenanceError::NoSignatureBlock)?;
        let start = text.find("-----BEGIN PGP SIGNED MESSAGE-----").ok_or(ProvenanceError::NoSignatureBlock)?;
        let (message, _) =
            CleartextSignedMessage::from_string(&text[start..]).map_err(|_| ProvenanceError::NoSignatureBlock)?;
        let plaintext = message.text().lines().map(|line| line.strip_prefix("- ").unwrap_or(line)).collect::<Vec<_>>();
        Ok(Clearsigned { plaintext: plaintext.join("\n"), message })
    }

    /// The key of `keyring` that made the signature (`openpgp.CheckDetachedSignature`): the primary key or a
    /// subkey of one of the keys.
    ///
    /// # Errors
    /// [`ProvenanceError::UnknownSigner`] when no key of the keyring made it, [`ProvenanceError::BadSignature`]
    /// when the key that claims it does not verify it.
    pub fn signer<'a>(&self, keyring: &'a [SignedPublicKey]) -> Result<&'a SignedPublicKey, ProvenanceError> {
        let issuers: Vec<Vec<u8>> = self
            .message
            .signatures()
            .iter()
            .flat_map(|signature| signature.issuer_key_id().into_iter().map(|id| id.as_ref().to_vec()))
            .collect();
        let mut claimed: Option<pgp::crypto::public_key::PublicKeyAlgorithm> = None;
        for key in keyring {
            // The primary key, then each subkey: whichever the signature names as its issuer.
            let claims = |id: pgp::types::KeyId| issuers.is_empty() || issuers.contains(&id.as_ref().to_vec());
            if claims(key.primary_key.legacy_key_id()) {
                claimed = Some(key.primary_key.algorithm());
                if self.message.verify(&key.primary_key).is_ok() {
                    return Ok(key);
                }
            }
            for subkey in &key.public_subkeys {
                if claims(subkey.key.legacy_key_id()) {
                    claimed = Some(subkey.key.algorithm());
                    if self.message.verify(&subkey.key).is_ok() {
                        return Ok(key);
                    }
                }
            }
        }
        match claimed {
            Some(algorithm) => {
                Err(ProvenanceError::BadSignature(format!("{} verification failure", algorithm_name(algorithm))))
            }
            None => Err(ProvenanceError::UnknownSigner),
        }
    }
}

/// The name go-crypto's verification errors give an algorithm (`RSA verification failure`).
fn algorithm_name(algorithm: pgp::crypto::public_key::PublicKeyAlgorithm) -> &'static str {
    use pgp::crypto::public_key::PublicKeyAlgorithm as Algorithm;
    match algorithm {
        Algorithm::RSA | Algorithm::RSASign | Algorithm::RSAEncrypt => "RSA",
        Algorithm::DSA => "DSA",
        Algorithm::ECDSA => "ECDSA",
        Algorithm::Ed25519 => "ed25519",
        Algorithm::Ed448 => "ed448",
        _ => "EdDSA",
    }
}

/// `sha256:<hex>` of `data` (Helm's `Digest` with its prefix).
pub fn sha256_digest(data: &[u8]) -> String {
    let digest = Sha256::digest(data);
    format!("sha256:{}", digest.iter().map(|byte| format!("{byte:02x}")).collect::<String>())
}

/// The `files` of a message block's second part (`parseMessageBlock`).
///
/// # Errors
/// [`ProvenanceError::MessageBlock`] without the `...` separator, [`ProvenanceError::Sums`] for YAML that is no
/// `files` map.
pub fn file_sums(plaintext: &str) -> Result<BTreeMap<String, String>, ProvenanceError> {
    let mut parts = plaintext.splitn(2, PART_SEPARATOR);
    let (Some(_), Some(sums)) = (parts.next(), parts.next()) else { return Err(ProvenanceError::MessageBlock) };
    // A third part (Helm splits at every separator) is not part of the sums.
    let sums = sums.split(PART_SEPARATOR).next().unwrap_or_default();
    let parsed = berth_goyaml::parse_document(sums).map_err(|error| ProvenanceError::Sums(error.to_string()))?;
    let mut files = BTreeMap::new();
    if let Some(berth_go::Value::Map(map)) = parsed.field("files") {
        for name in map.keys() {
            if let Some(sum) = map.get(&name).as_ref().and_then(berth_go::Value::as_str) {
                files.insert(name.to_string(), sum.to_string());
            }
        }
    }
    Ok(files)
}

/// Reads a keyring file: binary (`pubring.gpg`) or armored, public or secret keys (secret ones count with their
/// public part).
///
/// # Errors
/// [`ProvenanceError::KeyringFile`] when it cannot be read, [`ProvenanceError::Keyring`] when it holds no key.
pub fn load_keyring(path: &Path) -> Result<Vec<SignedPublicKey>, ProvenanceError> {
    let data = std::fs::read(path).map_err(|error| ProvenanceError::KeyringFile {
        path: path.display().to_string(),
        reason: berth_source::io_text(&error),
    })?;
    let (keys, _) = PublicOrSecret::from_reader_many(data.as_slice())
        .map_err(|error| ProvenanceError::Keyring(error.to_string()))?;
    let mut keyring = Vec::new();
    for key in keys {
        match key {
            Ok(PublicOrSecret::Public(key)) => keyring.push(key),
            Ok(PublicOrSecret::Secret(key)) => keyring.push(key.to_public_key()),
            // A packet rPGP cannot read (an unknown algorithm) does not stop the others being used.
            Err(error) => tracing::debug!(%error, "skipping a keyring entry"),
        }
    }
    if keyring.is_empty() {
        return Err(ProvenanceError::Keyring("openpgp: no keys found in the keyring".to_string()));
    }
    Ok(keyring)
}

/// `NewFromKeyring(keyring, id)` for signing: the secret key whose user id is `id`, else the one user id that
/// contains it.
///
/// # Errors
/// [`ProvenanceError::NoPrivateKey`] when none matches (or the keyring holds no secret key),
/// [`ProvenanceError::Vague`] when several contain `id`, or the keyring's read error.
pub fn load_signing_key(path: &Path, id: &str) -> Result<SignedSecretKey, ProvenanceError> {
    let data = std::fs::read(path).map_err(|error| ProvenanceError::KeyringFile {
        path: path.display().to_string(),
        reason: berth_source::io_text(&error),
    })?;
    let (keys, _) = PublicOrSecret::from_reader_many(data.as_slice())
        .map_err(|error| ProvenanceError::Keyring(error.to_string()))?;
    // Every key with its user ids; only secret keys can sign.
    let entries: Vec<(Option<SignedSecretKey>, Vec<String>)> = keys
        .filter_map(Result::ok)
        .map(|key| {
            let users = match &key {
                PublicOrSecret::Public(key) => &key.details.users,
                PublicOrSecret::Secret(key) => &key.details.users,
            };
            let ids = users.iter().map(|user| String::from_utf8_lossy(user.id.id()).into_owned()).collect();
            let secret = match key {
                PublicOrSecret::Secret(key) => Some(key),
                PublicOrSecret::Public(_) => None,
            };
            (secret, ids)
        })
        .collect();
    let chosen = match entries.iter().find(|(_, ids)| ids.iter().any(|user| user == id)) {
        Some(exact) => exact,
        None => {
            let mut candidates = entries.iter().filter(|(_, ids)| ids.iter().any(|user| user.contains(id)));
            match (candidates.next(), candidates.next()) {
                (Some(_), Some(_)) => return Err(ProvenanceError::Vague(id.to_string())),
                (Some(candidate), None) => candidate,
                (None, _) => return Err(ProvenanceError::NoPrivateKey),
            }
        }
    };
    chosen.0.clone().ok_or(ProvenanceError::NotPrivate)
}

/// `Signatory.ClearSign`: the message block (the chart's `Chart.yaml` as Helm marshals it, or a plugin's
/// metadata, then `...`, and
/// `files: {<file name>: sha256:<hex>}`) clearsigned with `key`'s primary key (unlocked with `passphrase` when
/// protected), as the text of a `.prov` file.
///
/// # Errors
/// [`ProvenanceError::Sign`] when the key cannot sign (a wrong passphrase, a key that cannot sign).
pub fn sign_archive(
    archive: &[u8],
    file_name: &str,
    chart_yaml: &str,
    key: &SignedSecretKey,
    passphrase: &str,
) -> Result<String, ProvenanceError> {
    let sums = berth_goyaml::to_yaml(&berth_go::Value::map([(
        "files",
        berth_go::Value::map([(file_name, berth_go::Value::String(sha256_digest(archive).into()))]),
    )]))
    .map_err(|error| ProvenanceError::Sign(error.to_string()))?;
    let block = format!("{chart_yaml}{PART_SEPARATOR}{sums}");
    let password = if passphrase.is_empty() { pgp::types::Password::empty() } else { passphrase.into() };
    let message = CleartextSignedMessage::sign(rand::thread_rng(), &block, &key.primary_key, &password)
        .map_err(|error| ProvenanceError::Sign(error.to_string()))?;
    message
        .to_armored_string(pgp::composed::ArmorOptions::default())
        .map_err(|error| ProvenanceError::Sign(error.to_string()))
}

/// Helm's default keyring: `$GNUPGHOME/pubring.gpg`, else `~/.gnupg/pubring.gpg`.
pub fn default_keyring() -> PathBuf {
    match std::env::var_os("GNUPGHOME") {
        Some(home) => PathBuf::from(home).join("pubring.gpg"),
        None => PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".gnupg/pubring.gpg"),
    }
}

/// `Signatory.Verify`: the archive (its bytes and file name) against a provenance document and a keyring.
///
/// # Errors
/// [`ProvenanceError`] naming what failed: the signature block, the signer, the sums.
pub fn verify_archive(
    archive: &[u8],
    file_name: &str,
    provenance: &[u8],
    keyring: &[SignedPublicKey],
) -> Result<Verification, ProvenanceError> {
    let signed = Clearsigned::parse(provenance)?;
    let signer = signed.signer(keyring)?;
    let file_hash = sha256_digest(archive);
    let sums = file_sums(&signed.plaintext)?;
    match sums.get(file_name) {
        None => return Err(ProvenanceError::NoSum(file_name.to_string())),
        Some(sum) if *sum != file_hash => {
            return Err(ProvenanceError::SumMismatch {
                file: file_name.to_string(),
                signed: sum.clone(),
                actual: file_hash,
            });
        }
        Some(_) => {}
    }
    Ok(Verification {
        signed_by: signer.details.users.iter().map(|user| String::from_utf8_lossy(user.id.id()).into_owned()).collect(),
        fingerprint: format!("{:X}", signer.primary_key.fingerprint()),
        file_hash,
        file_name: file_name.to_string(),
    })
}

/// `downloader.VerifyChart`: the chart archive at `path` against `<path>.prov` and the keyring file.
///
/// # Errors
/// As Helm: a directory or a file not named `.tgz` is refused, a missing `.prov` or keyring named, then as
/// [`verify_archive`].
pub fn verify_chart(path: &Path, keyring: &Path) -> Result<Verification, ProvenanceError> {
    let shown = path.display().to_string();
    let metadata = std::fs::metadata(path)
        .map_err(|error| ProvenanceError::Chart { path: shown.clone(), reason: berth_source::io_text(&error) })?;
    if metadata.is_dir() {
        return Err(ProvenanceError::Unpacked);
    }
    if !path.extension().is_some_and(|extension| extension.eq_ignore_ascii_case("tgz")) {
        return Err(ProvenanceError::NotAnArchive);
    }
    let provenance_path = PathBuf::from(format!("{shown}.prov"));
    let provenance = std::fs::read(&provenance_path).map_err(|error| ProvenanceError::ProvenanceFile {
        path: provenance_path.display().to_string(),
        reason: berth_source::io_text(&error),
    })?;
    let keyring = load_keyring(keyring)?;
    let archive = std::fs::read(path)
        .map_err(|error| ProvenanceError::Chart { path: shown.clone(), reason: berth_source::io_text(&error) })?;
    let file_name = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    verify_archive(&archive, &file_name, &provenance, &keyring)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_are_read_from_the_second_part() {
        let block = "apiVersion: v2\nname: shop\n...\nfiles:\n  shop-0.1.0.tgz: sha256:abc\n";
        let sums = file_sums(block).unwrap();
        assert_eq!(sums.get("shop-0.1.0.tgz").map(String::as_str), Some("sha256:abc"));
        assert!(matches!(file_sums("name: shop\n"), Err(ProvenanceError::MessageBlock)));
        assert_eq!(sha256_digest(b""), "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert!(matches!(Clearsigned::parse(b"not signed"), Err(ProvenanceError::NoSignatureBlock)));
    }
}
