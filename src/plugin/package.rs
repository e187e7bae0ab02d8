//! `plugin package` as Helm 4.1.4 does it (pkg/cmd/plugin_package.go, internal/plugin/sign.go
//! `CreatePluginTarball`): a plugin directory written as `<name>-<version>.tgz` with the plugin under `<name>/`,
//! signed into `<archive>.tgz.prov` ([`super::sign`]).
//!
//! The archive is written as Go's `filepath.Walk` and `tar.FileInfoHeader` write it: every directory, file and
//! link under the plugin directory in lexical order, each with its permission bits, owner ids and
//! modification time to the second, the root entry named `<name>`, the others `<name>/<path>`; file contents are
//! streamed, not held in memory.

use super::PluginError;
use super::metadata::Metadata;
use super::sign::{SigningKey, sign};
use super::store::load_directory;
use berth_source::tar_write::{END_OF_ARCHIVE, EntryKind, Header, padding};
use std::io::Write as _;
use std::path::{Path, PathBuf};

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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(super::super::sign::archive_metadata(&entries).unwrap().name, "p");
    }
}
