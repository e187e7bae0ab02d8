//! Helm 4's content cache of downloaded charts (pkg/downloader/cache.go `DiskCache`): each archive stored by the
//! sha256 of its content as `<root>/<first byte in hex>/<digest in hex>.chart`, an empty file counting as absent,
//! so a chart Helm downloaded is not downloaded again by berth, and the other way round.

use std::path::{Path, PathBuf};

/// The file a digest (64 hex digits) is stored in.
pub fn file_name(root: &Path, digest_hex: &str, kind: &str) -> PathBuf {
    root.join(digest_hex.get(..2).unwrap_or("00")).join(format!("{digest_hex}{kind}"))
}

/// `CacheChart`.
pub const CHART: &str = ".chart";

/// `DiskCache.Get`: the cached file of `digest_hex`, if present and not empty.
pub fn get(root: &Path, digest_hex: &str) -> Option<PathBuf> {
    let path = file_name(root, digest_hex, CHART);
    let metadata = std::fs::metadata(&path).ok()?;
    (metadata.is_file() && metadata.len() > 0).then_some(path)
}

/// `DiskCache.Put`: stores `data` under `digest_hex`.
///
/// # Errors
///
/// The cache cannot be written.
pub fn put(root: &Path, digest_hex: &str, data: &[u8]) -> Result<PathBuf, String> {
    let path = file_name(root, digest_hex, CHART);
    crate::fs_util::write_atomic(&path, data, 0o644)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charts_are_stored_by_digest() {
        let dir = tempfile::tempdir().unwrap();
        let digest = "ab".repeat(32);
        assert_eq!(get(dir.path(), &digest), None);
        let path = put(dir.path(), &digest, b"x").unwrap();
        assert_eq!(path, dir.path().join("ab").join(format!("{digest}.chart")));
        assert_eq!(get(dir.path(), &digest), Some(path.clone()));
        std::fs::write(&path, b"").unwrap();
        assert_eq!(get(dir.path(), &digest), None, "an empty file is absent");
    }
}
