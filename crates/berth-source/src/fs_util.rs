//! Writing files as Helm writes its caches and configuration: atomically (a temporary file in the same
//! directory, then a rename), with the permission bits Helm gives them.

use std::io::Write as _;
use std::path::Path;

/// Writes `data` to `path` atomically with `mode`, creating the parent directory.
///
/// # Errors
///
/// The directory, the temporary file or the rename fails; the text names the path.
pub fn write_atomic(path: &Path, data: &[u8], mode: u32) -> Result<(), String> {
    let parent = parent(path);
    std::fs::create_dir_all(parent)
        .map_err(|error| format!("mkdir {}: {}", parent.display(), crate::io_text(&error)))?;
    let name = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    write_through(&parent.join(format!(".{name}.{}.tmp", std::process::id())), path, data, mode)
}

/// Writes `data` to `path` atomically with `mode` into a directory that must exist, as Helm's
/// `fileutil.AtomicWriteFile` writes what `pull` downloads and `repo index` makes: the temporary file is named
/// as Go's `os.CreateTemp(dir, base)` names one (the file's name and a number), so a missing directory fails as
/// in Helm (`open DIR/NAME.tgz123: no such file or directory`; Helm's number is random, berth's the process id).
///
/// # Errors
///
/// The temporary file cannot be created (`open TEMPORARY: REASON`), written or renamed.
pub fn write_atomic_in_place(path: &Path, data: &[u8], mode: u32) -> Result<(), String> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(std::process::id().to_string());
    write_through(Path::new(&temporary), path, data, mode)
}

/// The directory `path` is in (`.` for a bare name).
fn parent(path: &Path) -> &Path {
    path.parent().filter(|parent| !parent.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// `data` written to `temporary`, then renamed to `path`; the temporary file removed when a step fails.
fn write_through(temporary: &Path, path: &Path, data: &[u8], mode: u32) -> Result<(), String> {
    let mut file = std::fs::File::create(temporary)
        .map_err(|error| format!("open {}: {}", temporary.display(), crate::io_text(&error)))?;
    let result = (|| -> std::io::Result<()> {
        file.write_all(data)?;
        file.sync_all()?;
        set_mode(temporary, mode)?;
        std::fs::rename(temporary, path)
    })();
    if let Err(error) = result {
        let _ = std::fs::remove_file(temporary);
        return Err(format!("write {}: {}", path.display(), crate::io_text(&error)));
    }
    Ok(())
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_place_needs_the_directory_as_helm() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing/beta-1.2.3.tgz");
        let refused = write_atomic_in_place(&missing, b"one", 0o644).unwrap_err();
        let expected = format!("open {}{}: no such file or directory", missing.display(), std::process::id());
        assert_eq!(refused, expected);
        assert!(!dir.path().join("missing").exists());
        let path = dir.path().join("beta-1.2.3.tgz");
        write_atomic_in_place(&path, b"one", 0o644).unwrap();
        write_atomic_in_place(&path, b"two", 0o644).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
    }

    #[test]
    fn files_are_replaced_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/x.yaml");
        write_atomic(&path, b"one", 0o600).unwrap();
        write_atomic(&path, b"two", 0o600).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(path.parent().unwrap()).unwrap().count(), 1);
    }
}
