//! `plugin package` and `plugin verify` as Helm 4.1.4 does them (pkg/cmd/plugin_package.go, plugin_verify.go;
//! internal/plugin/sign.go, verify.go): a plugin directory written as `<name>-<version>.tgz` with the plugin
//! under `<name>/`, signed into `<archive>.tgz.prov`, and an archive checked against its `.prov` and a keyring.
//!
//! The provenance file is a chart's (one owner, [`crate::provenance`]) with the plugin's metadata where a chart
//! has its `Chart.yaml`: Helm marshals its internal `Metadata` struct, whose fields have no JSON names, so the
//! block reads `APIVersion: v1`, `Config: ...`, `Name: ...` ([`provenance_metadata`]). Verification reads only
//! the archive's digest from it.
//!
//! The archive is written as Go's `filepath.Walk` and `tar.FileInfoHeader` write it: every directory, file and
//! link under the plugin directory in lexical order, each with its permission bits, owner ids and
//! modification time to the second, the root entry named `<name>`, the others `<name>/<path>`; file contents are
//! streamed, not held in memory.

use super::PluginError;
use super::metadata::{Metadata, PlatformCommand, PluginConfig, parse_metadata};
use super::store::{PLUGIN_FILE, load_directory};
use crate::provenance::{ProvenanceError, Verification};
use berth_go::Value;
use berth_source::tar_write::{END_OF_ARCHIVE, EntryKind, Header, padding};
use pgp::composed::SignedSecretKey;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The suffixes `plugin verify` takes (`IsTarball`: the extension `.gz` or `.tgz`).
const TARBALL_EXTENSIONS: [&str; 2] = ["gz", "tgz"];

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

/// What `plugin package` did.
#[derive(Debug, Clone)]
pub struct Packaged {
    /// `<destination>/<name>-<version>.tgz`, joined as Go's `filepath.Join` joins it.
    pub archive: PathBuf,
    /// `<archive>.prov`, when signed.
    pub provenance: Option<PathBuf>,
}

/// The plugin directory's metadata, checked as `plugin package` checks it before anything is written.
///
/// # Errors
/// The directory cannot be read, is a file, or holds no valid `plugin.yaml` (Helm's words).
pub fn check_directory(directory: &Path) -> Result<Metadata, PluginError> {
    let metadata = std::fs::metadata(directory).map_err(|error| PluginError::io("stat", directory, &error))?;
    if !metadata.is_dir() {
        return Err(PluginError::PackageNotDirectory);
    }
    load_directory(directory)
        .map(|plugin| plugin.metadata)
        .map_err(|error| PluginError::InvalidDirectory(Box::new(error)))
}

/// `plugin package DIRECTORY`: the archive written in `destination` (created if missing), then signed with
/// `key` when given. An archive that cannot be completed or signed is removed.
///
/// # Errors
/// Helm's: `failed to create tarball: ...`, `failed to create plugin tarball: ...`, `failed to sign plugin: ...`.
pub fn package(
    directory: &Path,
    metadata: &Metadata,
    destination: &Path,
    key: Option<&SigningKey>,
) -> Result<Packaged, PluginError> {
    let file_name = format!("{}-{}.tgz", metadata.name, metadata.version);
    let archive = if destination.as_os_str().is_empty() {
        PathBuf::from(&file_name)
    } else {
        PathBuf::from(berth_go::path::clean(&format!("{}/{file_name}", destination.display())))
    };
    let file = std::fs::File::create(&archive)
        .map_err(|error| PluginError::CreateTarball(PluginError::io("open", &archive, &error).to_string()))?;
    if let Err(error) = write_archive(directory, &metadata.name, file) {
        let _ = std::fs::remove_file(&archive);
        return Err(PluginError::WriteTarball(error));
    }
    let Some(key) = key else { return Ok(Packaged { archive, provenance: None }) };
    let signed = std::fs::read(&archive)
        .map_err(|error| PluginError::io("read", &archive, &error))
        .and_then(|data| sign(&data, &file_name, key));
    let provenance = PathBuf::from(format!("{}.prov", archive.display()));
    let written = signed.and_then(|text| {
        std::fs::write(&provenance, text).map_err(|error| PluginError::io("open", &provenance, &error))
    });
    if let Err(error) = written {
        let _ = std::fs::remove_file(&archive);
        return Err(error);
    }
    Ok(Packaged { archive, provenance: Some(provenance) })
}

/// `SignPlugin`: the `.prov` text for an archive: its first `plugin.yaml` (by base name, as
/// `ExtractTgzPluginMetadata` finds it) marshalled as Helm marshals it, and the archive's digest, clearsigned.
fn sign(archive: &[u8], file_name: &str, key: &SigningKey) -> Result<String, PluginError> {
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

/// `CreatePluginTarball`: `directory` walked in lexical order, written under `name/` into a gzip stream.
fn write_archive(directory: &Path, name: &str, file: std::fs::File) -> Result<(), String> {
    // Go's gzip writer: no name, no time, operating system "unknown".
    let mut gzip = flate2::GzBuilder::new()
        .operating_system(255)
        .write(std::io::BufWriter::new(file), flate2::Compression::default());
    // Depth-first, each directory's entries sorted (`filepath.Walk`), on a stack of our own: any depth.
    let mut pending = vec![(directory.to_path_buf(), name.to_string())];
    while let Some((path, archive_name)) = pending.pop() {
        // The plugin directory itself is followed if it is a link (its stat said it is a directory).
        let metadata = if archive_name == name { std::fs::metadata(&path) } else { std::fs::symlink_metadata(&path) };
        let metadata =
            metadata.map_err(|error| format!("lstat {}: {}", path.display(), berth_source::io_text(&error)))?;
        write_entry(&mut gzip, &path, &archive_name, &metadata)?;
        if metadata.is_dir() {
            let entries = std::fs::read_dir(&path)
                .map_err(|error| format!("open {}: {}", path.display(), berth_source::io_text(&error)))?;
            let mut children = entries
                .map(|entry| entry.map(|entry| entry.file_name()))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|error| format!("readdir {}: {}", path.display(), berth_source::io_text(&error)))?;
            children.sort_by(|a, b| a.as_encoded_bytes().cmp(b.as_encoded_bytes()));
            for child in children.into_iter().rev() {
                let child_name = format!("{archive_name}/{}", child.to_string_lossy());
                pending.push((path.join(&child), child_name));
            }
        }
    }
    gzip.write_all(&END_OF_ARCHIVE).map_err(|error| error.to_string())?;
    let mut out = gzip.finish().map_err(|error| error.to_string())?;
    out.flush().map_err(|error| error.to_string())
}

/// One entry as `tar.FileInfoHeader` describes the file, its content streamed after the header.
fn write_entry(
    out: &mut impl std::io::Write,
    path: &Path,
    archive_name: &str,
    metadata: &std::fs::Metadata,
) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt as _;
    // The permission, set-id and sticky bits, as `FileInfoHeader` keeps them (no file-type bits).
    let permissions = metadata.mode() & 0o7777;
    let file_type = metadata.file_type();
    let (kind, size) = if file_type.is_dir() {
        (EntryKind::Directory, 0)
    } else if file_type.is_symlink() {
        let target = std::fs::read_link(path).map_err(|error| format!("readlink {}: {error}", path.display()))?;
        (EntryKind::Symlink(target.to_string_lossy().into_owned()), 0)
    } else if file_type.is_file() {
        (EntryKind::File, metadata.len())
    } else {
        return Err(format!("archive/tar: unsupported file type of {}", path.display()));
    };
    let header = Header {
        name: archive_name,
        kind,
        mode: permissions,
        size,
        mod_time: metadata.mtime(),
        uid: metadata.uid(),
        gid: metadata.gid(),
    };
    let write_failed = |error: std::io::Error| error.to_string();
    out.write_all(&header.blocks()?).map_err(write_failed)?;
    if size > 0 {
        let file = std::fs::File::open(path)
            .map_err(|error| format!("open {}: {}", path.display(), berth_source::io_text(&error)))?;
        let copied = std::io::copy(&mut std::io::Read::take(file, size), out).map_err(write_failed)?;
        if copied != size {
            return Err(format!("archive/tar: {} changed while it was archived", path.display()));
        }
        out.write_all(&vec![0; padding(size)]).map_err(write_failed)?;
    }
    Ok(())
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

/// `plugin verify ARCHIVE`: the archive against `<ARCHIVE>.prov` and the keyring (plugin_verify.go `run`).
///
/// # Errors
/// Helm's, in Helm's order: the archive's stat, a directory, a name without `.tgz`/`.gz`, a missing `.prov`, the
/// keyring, then the signature and digest ([`crate::provenance::verify_archive`]).
pub fn verify(path: &Path, keyring: &Path) -> Result<Verification, PluginError> {
    let metadata = std::fs::metadata(path).map_err(|error| PluginError::io("stat", path, &error))?;
    if metadata.is_dir() {
        return Err(PluginError::VerifyDirectory);
    }
    let extension = path.extension().and_then(|extension| extension.to_str()).unwrap_or_default();
    if !TARBALL_EXTENSIONS.contains(&extension) {
        return Err(PluginError::NotATarball);
    }
    let provenance_path = PathBuf::from(format!("{}.prov", path.display()));
    if let Err(error) = std::fs::metadata(&provenance_path) {
        return Err(PluginError::ProvenanceMissing {
            path: provenance_path.display().to_string(),
            reason: berth_source::io_text(&error),
        });
    }
    let archive = std::fs::read(path).map_err(|error| PluginError::io("read", path, &error))?;
    let provenance =
        std::fs::read(&provenance_path).map_err(|error| PluginError::io("read", &provenance_path, &error))?;
    let keyring = crate::provenance::load_keyring(keyring).map_err(|error| match error {
        ProvenanceError::KeyringFile { path, reason } => PluginError::Io { step: "open", path, reason },
        other => PluginError::Signature(other),
    })?;
    let file_name = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    crate::provenance::verify_archive(&archive, &file_name, &provenance, &keyring).map_err(PluginError::Signature)
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

    #[test]
    fn an_archive_holds_the_directory_under_the_plugins_name() {
        use std::os::unix::fs::PermissionsExt as _;
        let root = tempfile::tempdir().unwrap();
        let source = root.path().join("source");
        std::fs::create_dir_all(source.join("sub/deeper")).unwrap();
        std::fs::write(source.join("plugin.yaml"), "name: p\nversion: 1.0.0\n").unwrap();
        std::fs::write(source.join("run.sh"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(source.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(source.join("sub/deeper/a"), "x".repeat(700)).unwrap();
        std::fs::write(source.join("Z"), "").unwrap();
        // Modes as the umask of the test's process would not leave them.
        for (path, mode) in [
            ("", 0o755),
            ("sub", 0o755),
            ("sub/deeper", 0o755),
            ("plugin.yaml", 0o644),
            ("Z", 0o644),
            ("sub/deeper/a", 0o644),
        ] {
            std::fs::set_permissions(source.join(path), std::fs::Permissions::from_mode(mode)).unwrap();
        }
        let metadata = check_directory(&source).unwrap();
        std::fs::create_dir(root.path().join("out")).unwrap();
        let packaged = package(&source, &metadata, &root.path().join("out/."), None).unwrap();
        assert_eq!(packaged.archive, root.path().join("out/p-1.0.0.tgz"));
        let data = std::fs::read(&packaged.archive).unwrap();
        let entries = berth_chart::load::tar_gz_entries(&data).unwrap();
        let listed: Vec<(&str, i64)> = entries.iter().map(|entry| (entry.name.as_str(), entry.mode)).collect();
        assert_eq!(
            listed,
            [
                ("p", 0o755),
                ("p/Z", 0o644),
                ("p/plugin.yaml", 0o644),
                ("p/run.sh", 0o755),
                ("p/sub", 0o755),
                ("p/sub/deeper", 0o755),
                ("p/sub/deeper/a", 0o644),
            ]
        );
        assert_eq!(entries[6].data.len(), 700);
        assert_eq!(archive_metadata(&entries).unwrap().name, "p");
    }
}
