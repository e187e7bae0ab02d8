//! Writes whose computation runs outside the store's lock, as kube-apiserver handles requests concurrently.
//!
//! A PATCH computes the new object from the current one (a server-side apply of a 1.4 MB CRD takes
//! milliseconds); under the store's one lock every other request would wait for it. A real server does not:
//! the etcd3 storage's `GuaranteedUpdate` (k8s.io/apiserver `pkg/storage/etcd3/store.go`) computes the update
//! from the object it read, then commits it only if the stored resourceVersion has not moved, and otherwise
//! reads the object again and computes again. Here the second computation runs under the lock, so a write
//! retries at most once and cannot be starved by a stream of others.

use super::{Current, Store, Target, WriteOptions};
use crate::api_error::ApiError;
use serde_json::Value;
use std::sync::Arc;

impl Store {
    /// Writes one object as [`Store::write`] does, with `compute` run on a snapshot of the current object
    /// outside the lock. The result is committed if the object is still the one `compute` read (same
    /// resourceVersion, or still absent); otherwise `compute` runs again under the lock on the object as it is
    /// now. Everything that depends on the store (namespace, identity, admission, resourceVersion, the no-op
    /// check, the commit and its event) happens under the lock, in [`Store::write`]'s order.
    ///
    /// # Errors
    /// As [`Store::write`]. An error from `compute` is returned as computed on the snapshot, which was the
    /// stored object when it was read (as `GuaranteedUpdate` returns an error computed on current state).
    pub fn write_concurrently(
        &self,
        target: &Target<'_>,
        options: &WriteOptions,
        compute: impl Fn(Option<&Value>) -> Result<Value, ApiError>,
    ) -> Result<(Arc<Value>, bool), ApiError> {
        let snapshot = {
            let mut state = self.lock();
            let read = Current::read(&mut state, target, options);
            Store::settle(state);
            read?
        };
        let computed = compute(snapshot.served.as_deref())?;
        let mut state = self.lock();
        let latest = Current::read(&mut state, target, options);
        let written = match &latest {
            Ok(latest) if latest.is_unchanged_since(&snapshot) => {
                self.admit_and_commit(&mut state, target, options, latest, computed)
            }
            // Another write landed in between: compute again on what it stored.
            Ok(latest) => self.compute_and_commit(&mut state, target, options, latest, &compute),
            Err(error) => Err(error.clone()),
        };
        Store::settle(state);
        // The snapshot, the object replaced and an unused computation are freed here, after the lock.
        written
    }
}
