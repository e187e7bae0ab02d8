//! Signing a plugin archive as Helm 4.1.4 does (internal/plugin/sign.go `SignPlugin`, pkg/provenance
//! `NewFromKeyring`, `DecryptKey`; pkg/cmd/plugin_package.go's passphrase): the key chosen and unlocked, and the
//! `.prov` text.
//!
//! The provenance file is a chart's (one owner, [`crate::provenance`]) with the plugin's metadata where a chart
//! has its `Chart.yaml`: Helm marshals its internal `Metadata` struct, whose fields have no JSON names, so the
//! block reads `APIVersion: v1`, `Config: ...`, `Name: ...` ([`provenance_metadata`]). Verification reads only
//! the archive's digest from it.

use super::PluginError;
use super::metadata::{Metadata, PlatformCommand, PluginConfig, parse_metadata};
use super::store::PLUGIN_FILE;
use crate::provenance::ProvenanceError;
use berth_go::Value;
use pgp::composed::SignedSecretKey;
use std::path::Path;

/// A secret key unlocked for signing, with the passphrase that unlocks it.
pub struct SigningKey {
    key: SignedSecretKey,
    passphrase: String,
}

/// Where a protected key's passphrase comes from (`--passphrase-file`, else Helm's terminal prompt).
pub enum Passphrase<'a> {
    /// `--passphrase-file FILE`: the whole file, trailing line breaks removed; `-` is standard input, which must
    /// be a pipe.
    File(&'a Path),
    /// Asked for the key named (its first user id) when the key is protected.
    Prompt(&'a mut dyn FnMut(&str) -> Result<String, String>),
}

/// `provenance.NewFromKeyring(keyring, id)` then `DecryptKey`: the secret key whose user id is `id` (or the one
/// user id containing it), unlocked.
///
/// # Errors
/// Helm's: `error reading from keyring: ...`, `private key not found` (no `id`, or no key matches), `provided
/// key is not a private key...`, a passphrase file that cannot be read, a wrong passphrase.
pub fn signing_key(keyring: &Path, id: &str, passphrase: Passphrase<'_>) -> Result<SigningKey, PluginError> {
    let unreadable = |error: ProvenanceError| {
        PluginError::Keyring(match error {
            ProvenanceError::KeyringFile { path, reason } => format!("open {path}: {reason}"),
            ProvenanceError::Keyring(reason) => reason,
            other => other.to_string(),
        })
    };
    // Helm reads the keyring first, whatever the id; an empty id chooses no key.
    let found = if id.is_empty() {
        crate::provenance::load_keyring(keyring).map_err(unreadable)?;
        Err(ProvenanceError::NoPrivateKey)
    } else {
        match crate::provenance::load_signing_key(keyring, id) {
            Err(error @ (ProvenanceError::KeyringFile { .. } | ProvenanceError::Keyring(_))) => {
                return Err(unreadable(error));
            }
            Err(ProvenanceError::Vague(id)) => return Err(unreadable(ProvenanceError::Vague(id))),
            found => found,
        }
    };
    // The passphrase file is read before the key is looked at, as Helm's `passphraseFileFetcher` reads it.
    let mut from_file = match &passphrase {
        Passphrase::File(path) => Some(read_passphrase_file(path)?),
        Passphrase::Prompt(_) => None,
    };
    let key = found.map_err(PluginError::Signature)?;
    if !key.primary_key.secret_params().is_encrypted() {
        return Ok(SigningKey { key, passphrase: String::new() });
    }
    let passphrase = match (from_file.take(), passphrase) {
        (Some(text), _) => text,
        (None, Passphrase::Prompt(prompt)) => {
            let name = key
                .details
                .users
                .iter()
                .map(|user| String::from_utf8_lossy(user.id.id()).into_owned())
                .find(|name| !name.is_empty())
                .unwrap_or_else(|| "Unknown".to_string());
            prompt(&name).map_err(PluginError::Passphrase)?
        }
        (None, Passphrase::File(_)) => String::new(),
    };
    let password = pgp::types::Password::from(passphrase.as_str());
    match key.primary_key.unlock(&password, |_, _| Ok(())) {
        Ok(Ok(())) => Ok(SigningKey { key, passphrase }),
        // go-crypto's words for a passphrase that does not open the key.
        _ => Err(PluginError::Passphrase("openpgp: invalid data: private key checksum failure".to_string())),
    }
}

/// `passphraseFileFetcher`: the file's text without trailing `\r`/`\n`.
fn read_passphrase_file(path: &Path) -> Result<String, PluginError> {
    let data = if path.as_os_str() == "-" {
        use std::os::unix::fs::FileTypeExt as _;
        let stdin = Path::new("/dev/stdin");
        let is_pipe = std::fs::metadata(stdin).is_ok_and(|metadata| metadata.file_type().is_fifo());
        if !is_pipe {
            return Err(PluginError::NoStdinPassphrase);
        }
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut data)
            .map_err(|error| PluginError::io("read", stdin, &error))?;
        data
    } else {
        std::fs::read(path).map_err(|error| PluginError::io("open", path, &error))?
    };
    let text = String::from_utf8_lossy(&data);
    Ok(text.trim_end_matches(['\r', '\n']).to_string())
}

/// `SignPlugin`: the `.prov` text for an archive: its first `plugin.yaml` (by base name, as
/// `ExtractTgzPluginMetadata` finds it) marshalled as Helm marshals it, and the archive's digest, clearsigned.
pub(super) fn sign(archive: &[u8], file_name: &str, key: &SigningKey) -> Result<String, PluginError> {
    let failed = |reason: String| PluginError::SignPlugin(format!("failed to extract plugin metadata: {reason}"));
    let entries = berth_chart::load::tar_gz_entries(archive).map_err(failed)?;
    let metadata = archive_metadata(&entries).map_err(|error| failed(error.to_string()))?;
    let text = provenance_metadata(&metadata).map_err(PluginError::SignPlugin)?;
    crate::provenance::sign_archive(archive, file_name, &text, &key.key, &key.passphrase)
        .map_err(|error| PluginError::SignPlugin(error.to_string()))
}

/// The metadata of an archive's first `plugin.yaml` (any directory), as Helm finds it for signing and installing.
///
/// # Errors
/// `plugin.yaml not found in tarball`, or its metadata error.
pub fn archive_metadata(entries: &[berth_chart::load::TarEntry]) -> Result<Metadata, PluginError> {
    let plugin_file = entries
        .iter()
        .find(|entry| entry.is_regular() && entry.name.rsplit('/').next() == Some(PLUGIN_FILE))
        .ok_or_else(|| PluginError::ArchiveMetadata("plugin.yaml not found in tarball".to_string()))?;
    parse_metadata(&plugin_file.data).map_err(|error| PluginError::ArchiveMetadata(error.to_string()))
}

/// `yaml.Marshal(metadata)` of Helm's internal `Metadata`: sigs.k8s.io/yaml goes through `encoding/json`, and the
/// struct's fields have no JSON names, so the keys are the Go field names, sorted.
///
/// # Errors
/// The YAML writer's (none for metadata that parsed).
pub fn provenance_metadata(metadata: &Metadata) -> Result<String, String> {
    let text = |text: &str| Value::String(text.into());
    let config = match &metadata.config {
        PluginConfig::Cli { usage, short_help, long_help, ignore_flags } => Value::map([
            ("IgnoreFlags", Value::Bool(*ignore_flags)),
            ("LongHelp", text(long_help)),
            ("ShortHelp", text(short_help)),
            ("Usage", text(usage)),
        ]),
        PluginConfig::Getter { protocols } => Value::map([("Protocols", strings(protocols))]),
        PluginConfig::PostRenderer | PluginConfig::Test => Value::map(Vec::<(&str, Value)>::new()),
    };
    let commands = |commands: &[PlatformCommand]| {
        if commands.is_empty() {
            return Value::Nil;
        }
        Value::list(commands.iter().map(|command| {
            Value::map([
                ("Architecture", text(&command.architecture)),
                ("Args", strings(&command.args)),
                ("Command", text(&command.command)),
                ("OperatingSystem", text(&command.operating_system)),
            ])
        }))
    };
    let hooks = if metadata.hooks.is_empty() {
        Value::Nil
    } else {
        Value::map(metadata.hooks.iter().map(|(event, hooks)| (event.as_str(), commands(hooks))))
    };
    let runtime_config = Value::map([
        ("PlatformCommand", commands(&metadata.commands)),
        ("PlatformHooks", hooks),
        ("ProtocolCommands", Value::Nil),
    ]);
    let document = Value::map([
        ("APIVersion", text(&metadata.api_version)),
        ("Config", config),
        ("Name", text(&metadata.name)),
        ("Runtime", text(&metadata.runtime)),
        ("RuntimeConfig", runtime_config),
        ("SourceURL", text(&metadata.source_url)),
        ("Type", text(&metadata.plugin_type)),
        ("Version", text(&metadata.version)),
    ]);
    berth_goyaml::to_yaml(&document).map_err(|error| error.to_string())
}

/// A Go string slice as JSON writes it: `null` when empty (berth cannot tell an empty list from none).
fn strings(items: &[String]) -> Value {
    if items.is_empty() {
        Value::Nil
    } else {
        Value::list(items.iter().map(|item| Value::String(item.as_str().into())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_is_marshalled_with_helms_go_field_names() {
        let yaml = "apiVersion: v1\nname: hello\ntype: cli/v1\nruntime: subprocess\nversion: 0.2.0\nsourceURL: https://x\n\
                    config:\n  usage: hello\n  shortHelp: say hi\nruntimeConfig:\n  platformCommand:\n  - command: echo\n    \
                    args: [hello]\n  platformHooks:\n    install:\n    - command: sh\n";
        let metadata = parse_metadata(yaml.as_bytes()).unwrap();
        // What `helm plugin package --sign` writes for this plugin.yaml (Helm 4.1.4).
        let expected = "APIVersion: v1\nConfig:\n  IgnoreFlags: false\n  LongHelp: \"\"\n  ShortHelp: say hi\n  Usage: hello\n\
                        Name: hello\nRuntime: subprocess\nRuntimeConfig:\n  PlatformCommand:\n  - Architecture: \"\"\n    \
                        Args:\n    - hello\n    Command: echo\n    OperatingSystem: \"\"\n  PlatformHooks:\n    install:\n    \
                        - Architecture: \"\"\n      Args: null\n      Command: sh\n      OperatingSystem: \"\"\n  \
                        ProtocolCommands: null\nSourceURL: https://x\nType: cli/v1\nVersion: 0.2.0\n";
        assert_eq!(provenance_metadata(&metadata).unwrap(), expected);
        let renderer = "apiVersion: v1\nname: up\ntype: postrenderer/v1\nruntime: subprocess\nversion: 1.0.0\n";
        let text = provenance_metadata(&parse_metadata(renderer.as_bytes()).unwrap()).unwrap();
        assert!(text.starts_with("APIVersion: v1\nConfig: {}\nName: up\n"), "{text}");
    }
}
