//! The lock Helm takes around changes to `repositories.yaml` (pkg/cmd/repo_add.go with gofrs/flock): an exclusive
//! `flock` on `repositories.lock` beside the file, tried once a second for up to 30 seconds, so berth and Helm
//! adding repositories at the same time do not lose each other's entries.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long Helm waits for the lock.
pub const LOCK_TIMEOUT: Duration = Duration::from_secs(30);
const RETRY: Duration = Duration::from_secs(1);

/// The lock file for `repository_config`: its extension replaced by `.lock`, or `.lock` appended when it has
/// none (`repositories.yaml` → `repositories.lock`).
pub fn lock_path(repository_config: &Path) -> PathBuf {
    let text = repository_config.to_string_lossy();
    let name_start = text.rfind('/').map_or(0, |slash| slash + 1);
    // Go's filepath.Ext: from the last dot of the last element, dot included.
    let extension_len = text[name_start..].rfind('.').map_or(0, |dot| text.len() - name_start - dot);
    if extension_len > 0 && extension_len < text.len() {
        PathBuf::from(format!("{}.lock", &text[..text.len() - extension_len]))
    } else {
        PathBuf::from(format!("{text}.lock"))
    }
}

/// A held lock; released when dropped.
#[derive(Debug)]
pub struct RepositoryLock {
    _file: File,
}

/// Takes the lock on `repository_config`, creating its directory as Helm does.
///
/// # Errors
///
/// The lock file cannot be created, or another process holds it for longer than `timeout`.
pub fn lock_repository_config(repository_config: &Path, timeout: Duration) -> Result<RepositoryLock, String> {
    if let Some(parent) = repository_config.parent().filter(|parent| !parent.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|error| format!("mkdir {}: {error}", parent.display()))?;
    }
    let path = lock_path(repository_config);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|error| format!("open {}: {error}", path.display()))?;
    let deadline = Instant::now() + timeout;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(RepositoryLock { _file: file }),
            Err(TryLockError::WouldBlock) if Instant::now() < deadline => std::thread::sleep(RETRY),
            Err(TryLockError::WouldBlock) => {
                return Err(format!("{} is locked by another process (waited {}s)", path.display(), timeout.as_secs()));
            }
            Err(TryLockError::Error(error)) => return Err(format!("lock {}: {error}", path.display())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_file_replaces_the_extension() {
        let table = [
            ("/h/.config/helm/repositories.yaml", "/h/.config/helm/repositories.lock"),
            ("/h/repos", "/h/repos.lock"),
            ("/h/a.b/repos", "/h/a.b/repos.lock"),
            ("/h/.hidden", "/h/.lock"),
        ];
        for (config, lock) in table {
            assert_eq!(lock_path(Path::new(config)), PathBuf::from(lock), "{config}");
        }
    }

    #[test]
    fn a_second_holder_waits_until_the_timeout() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("repositories.yaml");
        let held = lock_repository_config(&config, Duration::ZERO).unwrap();
        let error = lock_repository_config(&config, Duration::ZERO).unwrap_err();
        assert!(error.contains("locked by another process"), "{error}");
        drop(held);
        assert!(lock_repository_config(&config, Duration::ZERO).is_ok());
    }
}
