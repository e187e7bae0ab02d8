//! Chart archives downloaded by the controller, kept in memory by their sha256 so that a Release reconciled
//! again (every interval re-resolves its version) or a thousand Releases of one chart download it once. Bounded
//! in bytes: the least recently used archives go first. An archive is only ever stored under the digest of its
//! own bytes, computed here, so a hit is the content the digest names.
//!
//! A source consults the cache only after it has resolved the digest through the tenant's own credentials (the
//! repository's index, the registry's manifest, the Flux object's status): knowing a digest is never enough to
//! read a chart another tenant downloaded.

use super::sha256;
use lru::LruCache;
use std::sync::{Arc, Mutex};

/// What the controller keeps at most: many small charts, or a few large ones.
pub const DEFAULT_CAPACITY_BYTES: usize = 64 << 20;

/// The cache, shared by every reconcile (cloning shares it).
#[derive(Clone)]
pub struct ChartCache {
    inner: Arc<Mutex<Inner>>,
}

struct Inner {
    archives: LruCache<String, Arc<Vec<u8>>>,
    bytes: usize,
    capacity: usize,
}

impl std::fmt::Debug for ChartCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (count, bytes) = self.usage();
        f.debug_struct("ChartCache").field("archives", &count).field("bytes", &bytes).finish()
    }
}

impl Default for ChartCache {
    fn default() -> ChartCache {
        ChartCache::with_capacity(DEFAULT_CAPACITY_BYTES)
    }
}

impl ChartCache {
    /// A cache holding at most `capacity` bytes of archives.
    pub fn with_capacity(capacity: usize) -> ChartCache {
        let inner = Inner { archives: LruCache::unbounded(), bytes: 0, capacity };
        ChartCache { inner: Arc::new(Mutex::new(inner)) }
    }

    /// The archive whose `sha256:` digest is `digest`, if kept (it becomes the most recently used).
    pub fn get(&self, digest: &str) -> Option<Arc<Vec<u8>>> {
        self.inner.lock().ok()?.archives.get(digest).cloned()
    }

    /// Keeps `archive` under the digest of its bytes, which it returns; older archives are evicted to make room.
    /// An archive larger than the whole capacity is not kept.
    pub fn insert(&self, archive: Arc<Vec<u8>>) -> String {
        let digest = sha256(&archive);
        let Ok(mut inner) = self.inner.lock() else { return digest };
        if archive.len() > inner.capacity || inner.archives.contains(&digest) {
            return digest;
        }
        while inner.bytes + archive.len() > inner.capacity {
            match inner.archives.pop_lru() {
                Some((_, evicted)) => inner.bytes -= evicted.len(),
                None => break,
            }
        }
        inner.bytes += archive.len();
        inner.archives.put(digest.clone(), archive);
        digest
    }

    /// (archives, bytes) kept now.
    pub fn usage(&self) -> (usize, usize) {
        self.inner.lock().map(|inner| (inner.archives.len(), inner.bytes)).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archives_are_kept_by_their_own_digest_within_the_bound_least_recent_first_out() {
        let cache = ChartCache::with_capacity(10);
        let a = cache.insert(Arc::new(b"aaaa".to_vec()));
        assert_eq!(a, sha256(b"aaaa"));
        let b = cache.insert(Arc::new(b"bbbb".to_vec()));
        assert_eq!(cache.usage(), (2, 8));
        // `a` used last: `b` is the one evicted for `c`.
        assert!(cache.get(&a).is_some());
        let c = cache.insert(Arc::new(b"cccc".to_vec()));
        assert_eq!(cache.usage(), (2, 8));
        assert!(cache.get(&b).is_none() && cache.get(&a).is_some() && cache.get(&c).is_some());
        // Larger than the whole bound: not kept, nothing evicted for it.
        cache.insert(Arc::new(vec![0; 11]));
        assert_eq!(cache.usage(), (2, 8));
        // The same content again takes no more room.
        cache.insert(Arc::new(b"cccc".to_vec()));
        assert_eq!(cache.usage(), (2, 8));
    }
}
