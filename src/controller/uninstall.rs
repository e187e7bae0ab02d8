//! Deleting a Release: its Helm release is uninstalled first (the finalizer `berth.dev/finalizer` holds the
//! Release until then), unless the Release is suspended or does not own the release (`tenancy.rs`), as its
//! tenant; then the finalizer is removed and the Release goes.

use super::api::{DeletionPropagation, FINALIZER, ReleaseSpec, ReleaseStatus};
use super::conditions::error_text;
use super::conditions::reason;
use super::reconcile::{Finished, Next, Run};
use super::tenancy;
use crate::events::Emitter;
use crate::release::operation::{self, Operation, ReleaseOptions, Tokens};
use crate::release::{LifecycleError, ReleaseStatus as HelmStatus, Scope, Storage};
use crate::wait::Outcome;
use kube::api::{Patch, PatchParams, PropagationPolicy};
use serde_json::json;
use std::time::Duration;

impl Run<'_> {
    /// The Release is being deleted: uninstall its Helm release (unless suspended), then let it go.
    pub(super) async fn finalize(&mut self) -> Finished {
        if !self.release.finalizers.iter().any(|finalizer| finalizer == FINALIZER) {
            return Finished::new("deleted", None, Next::OnChange);
        }
        let spec = self.release.spec.as_ref().ok();
        let suspended = spec.is_some_and(|spec| spec.suspend);
        // What was installed where, as the status remembers it, else as the spec says.
        if !suspended
            && let Some(installed) = Installed::of(&self.status).or_else(|| spec.map(|spec| self.wanted(spec)))
            && let Err(message) = self.uninstall(&installed).await
        {
            return self.retry(reason::RECONCILE_ERROR, message, 1).await;
        }
        let remaining: Vec<&String> =
            self.release.finalizers.iter().filter(|finalizer| *finalizer != FINALIZER).collect();
        let body = json!({"metadata": {"finalizers": remaining}});
        let (params, patch) = (PatchParams::default(), Patch::Merge(&body));
        let api = self.api();
        let removed = crate::cluster::retry::with_retry("remove a Release's finalizer", || {
            api.patch(&self.release.name, &params, &patch)
        })
        .await;
        match removed {
            Ok(_) => Finished::new("deleted", None, Next::OnChange),
            Err(kube::Error::Api(status)) if status.code == 404 => Finished::new("deleted", None, Next::OnChange),
            Err(error) => {
                self.retry(reason::RECONCILE_ERROR, format!("cannot remove the finalizer: {}", error_text(&error)), 1)
                    .await
            }
        }
    }

    /// Where the spec puts the release now.
    pub(super) fn wanted(&self, spec: &super::api::ReleaseSpec) -> Installed {
        let namespace = spec.target_namespace(&self.release.namespace).to_string();
        Installed {
            name: spec.release_name(&self.release.name).to_string(),
            storage_namespace: spec.storage_namespace(&namespace).to_string(),
            namespace,
        }
    }

    /// A change of `releaseName`, `targetNamespace` or `storageNamespace` (Flux's "release target changed"): the
    /// release the status remembers is uninstalled before the new one is installed. The status then names the
    /// new one.
    pub(super) async fn moved(&mut self, wanted: &Installed) -> Result<(), String> {
        let Some(installed) = Installed::of(&self.status) else { return Ok(()) };
        if installed == *wanted {
            return Ok(());
        }
        self.uninstall(&installed).await?;
        let note = format!(
            "the release moved from `{}/{}` (records in `{}`) to `{}/{}` (records in `{}`)",
            installed.namespace,
            installed.name,
            installed.storage_namespace,
            wanted.namespace,
            wanted.name,
            wanted.storage_namespace
        );
        self.events().normal("ReleaseMoved", "Uninstall", &note).await;
        self.status.current_revision = None;
        Ok(())
    }

    /// Uninstalls the Helm release as the Release's tenant, if this Release owns it (its last revision says
    /// so, `tenancy.rs`): a release another Release or no berth Release owns is left in place. `spec.uninstall`
    /// says how ([`uninstall_options`]).
    pub(super) async fn uninstall(&mut self, installed: &Installed) -> Result<(), String> {
        let Installed { name, namespace, storage_namespace } = installed;
        let (name, namespace) = (name.as_str(), namespace.as_str());
        let driver = &self.shared.options.storage_driver;
        let spec = self.release.spec.clone().unwrap_or_default();
        let base = ReleaseOptions { builtin_rules: self.shared.options.builtin_rules, ..ReleaseOptions::default() };
        let options = uninstall_options(&spec, spec.uninstall_timeout()?, base);
        let tenant = self.tenant_cluster(&spec, namespace).map_err(|error| error_text(&error))?;
        let storage = Storage::open(driver, tenant.client.clone(), Some(storage_namespace));
        let history = match storage.history(name).await {
            Ok(history) => history,
            // The tenant may not even read the release: nothing there is this Release's to uninstall.
            Err(error) if tenancy::is_forbidden(&error) => {
                let note = format!(
                    "Helm release `{namespace}/{name}` left in place: the Release's identity may not read it: {}",
                    error_text(&error)
                );
                self.events().normal("UninstallSkipped", "Uninstall", &note).await;
                return Ok(());
            }
            Err(error) => return Err(error_text(&error)),
        };
        let Some(last) = history.last() else { return Ok(()) };
        if last.info.status == HelmStatus::Uninstalled {
            return Ok(());
        }
        if !tenancy::owns(&self.release.key(), &last.labels) {
            let note = format!(
                "Helm release `{namespace}/{name}` is not owned by this Release (its last revision has no {}={}); \
                 left in place",
                tenancy::OWNER_LABEL,
                tenancy::owner_value(&self.release.key())
            );
            self.events().normal("UninstallSkipped", "Uninstall", &note).await;
            return Ok(());
        }
        let scope = Scope { cluster: tenant, storage };
        let operation = Operation::Uninstall { scope, name: name.to_string(), keep_history: keeps_history(&spec) };
        // An uninstall runs to its end: the Release is going away, nothing newer can supersede it.
        match operation::run(&operation, &options, &Tokens::default(), Emitter::none()).await {
            Ok(report) if report.outcome == Outcome::Ready => {
                let note = format!("Helm release `{namespace}/{name}` uninstalled");
                self.events().normal("UninstallSucceeded", "Uninstall", &note).await;
                Ok(())
            }
            Ok(report) => Err(report.release.info.description),
            Err(LifecycleError::NotFound(_) | LifecycleError::AlreadyUninstalled(_)) => Ok(()),
            Err(error) => Err(error_text(&error)),
        }
    }
}

/// How `spec.uninstall` says a Helm release is uninstalled, by the finalizer and by the uninstall that remediates
/// a failure alike, as Flux's `newUninstall` (`internal/action/uninstall.go`) builds both from it: within
/// `timeout` ([`ReleaseSpec::uninstall_timeout`]), `disableHooks`, `disableWait` (the deletions are waited for unless it is
/// set) and `deletionPropagation`; `keepHistory` goes with the operation ([`keeps_history`]). `base` gives the
/// rest (the controller's).
pub(super) fn uninstall_options(spec: &ReleaseSpec, timeout: Duration, base: ReleaseOptions) -> ReleaseOptions {
    let uninstall = spec.uninstall.clone().unwrap_or_default();
    ReleaseOptions {
        timeout: Some(timeout),
        wait: !uninstall.disable_wait,
        no_hooks: uninstall.disable_hooks,
        deletion_propagation: match uninstall.deletion_propagation.unwrap_or_default() {
            DeletionPropagation::Background => PropagationPolicy::Background,
            DeletionPropagation::Foreground => PropagationPolicy::Foreground,
            DeletionPropagation::Orphan => PropagationPolicy::Orphan,
        },
        ..base
    }
}

/// `spec.uninstall.keepHistory`: the records are kept, the last one marked `uninstalled`.
pub(super) fn keeps_history(spec: &ReleaseSpec) -> bool {
    spec.uninstall.as_ref().is_some_and(|uninstall| uninstall.keep_history)
}

/// A Helm release's place: its name, the namespace of its objects and that of its records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Installed {
    pub name: String,
    pub namespace: String,
    pub storage_namespace: String,
}

impl Installed {
    /// What the status remembers (records in the target namespace when it predates `storageNamespace`).
    fn of(status: &ReleaseStatus) -> Option<Installed> {
        let (name, namespace) = (status.release_name.clone()?, status.target_namespace.clone()?);
        let storage_namespace = status.storage_namespace.clone().unwrap_or_else(|| namespace.clone());
        Some(Installed { name, namespace, storage_namespace })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::api::DEFAULT_TIMEOUT;

    fn spec(json: serde_json::Value) -> ReleaseSpec {
        serde_json::from_value(json).expect("a spec")
    }

    #[test]
    fn an_uninstall_runs_as_spec_uninstall_says() {
        let base = ReleaseOptions { builtin_rules: false, ..ReleaseOptions::default() };
        let default = spec(serde_json::json!({}));
        let timeout = default.uninstall_timeout().expect("valid");
        let options = uninstall_options(&default, timeout, base.clone());
        // Flux's defaults: the deletions waited for, hooks run, background propagation, history purged.
        assert_eq!(
            (options.timeout, options.wait, options.no_hooks, options.deletion_propagation, keeps_history(&default)),
            (Some(DEFAULT_TIMEOUT), true, false, PropagationPolicy::Background, false)
        );
        assert!(!options.builtin_rules, "the rest is the controller's");
        let given = spec(serde_json::json!({"timeout": "1m", "uninstall": {"keepHistory": true, "disableHooks": true,
            "disableWait": true, "deletionPropagation": "orphan", "timeout": "42s"}}));
        let timeout = given.uninstall_timeout().expect("valid");
        let options = uninstall_options(&given, timeout, base);
        assert_eq!(
            (options.timeout, options.wait, options.no_hooks, options.deletion_propagation, keeps_history(&given)),
            (Some(Duration::from_secs(42)), false, true, PropagationPolicy::Orphan, true)
        );
        // spec.timeout when spec.uninstall has none; a bad spec.uninstall.timeout names its field.
        assert_eq!(spec(serde_json::json!({"timeout": "1m"})).uninstall_timeout(), Ok(Duration::from_secs(60)));
        let error = spec(serde_json::json!({"uninstall": {"timeout": "soon"}}))
            .uninstall_timeout()
            .expect_err("not a duration");
        assert!(error.starts_with("spec.uninstall.timeout: "), "{error}");
    }
}
