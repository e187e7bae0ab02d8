//! Preparing a rollout, once, for the CLI and the controller alike (Helm's `Upgrade.prepareUpgrade`, with the
//! install-or-upgrade choice of `helm upgrade --install`): the release's history read once; install or upgrade
//! decided, with the next revision and `.Release.IsUpgrade`; a revision left pending unlocked when the caller's
//! policy says so; an upgrade's values reused as asked (`--reuse-values`, `--reset-values`,
//! `--reset-then-reuse-values`); the chart rendered through berth-chart once. The result, a
//! [`RenderedRollout`], is what the install or upgrade operation runs (`operation/`): it reads the history no
//! more. A writer that recorded a revision meanwhile is caught when this one's record is created, which the API
//! server refuses for an existing Secret ([`LifecycleError::Concurrent`]).
//!
//! What the rollout is given is what the caller chose: a [`Scope`] whose cluster may be an impersonating one
//! (a controller's tenant) and whose storage may keep the records in another namespace than the release's
//! objects (Flux's `storageNamespace`).

use super::LookedUpSecrets;
use super::cluster_chart::template_value;
use super::error::{LifecycleError, validate_release_name};
use super::record::{Release, ReleaseStatus};
use super::render::{RenderError, RenderSettings, render_chart};
use super::rendered::Rendered;
use super::scope::Scope;
use super::unlock::unlock;
use berth_chart::chart::Chart;
use berth_chart::render::Release as RenderRelease;
use berth_chart::values::{ReuseMode, reuse_values};
use berth_go::Value;

/// What the caller asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `berth install`: a release of that name must have no history, or with `replace` (`--replace`) a last
    /// revision uninstalled (its history kept) or failed.
    Install { replace: bool },
    /// `berth upgrade`: `install` installs a release that has no revision in use (`--install`); `reuse` says
    /// what becomes of the current release's values.
    Upgrade { install: bool, reuse: ReuseMode },
}

/// Whether a rollout in `mode` upgrades the release whose last revision has the status `last` (`None`: the
/// release has no revision), as `helm upgrade --install` decides; `None` when it can do neither (an upgrade of
/// a release that never was). An install whose name is in use is refused by the install itself, once the
/// release's objects are known to be valid.
pub fn upgrades(mode: Mode, last: Option<ReleaseStatus>) -> Option<bool> {
    match (mode, last) {
        (Mode::Install { .. }, _) | (Mode::Upgrade { install: true, .. }, None | Some(ReleaseStatus::Uninstalled)) => {
            Some(false)
        }
        (Mode::Upgrade { install: false, .. }, None) => None,
        // Without `--install`, a release uninstalled with its history kept is read as an upgrade here; `Rollout::read`
        // refuses it then, as Helm has no deployed revision to upgrade.
        (Mode::Upgrade { .. }, Some(_)) => Some(true),
    }
}

/// What a rollout releases, before it is rendered.
#[derive(Debug)]
pub enum Input {
    /// A loaded chart and the values the user gave (`-f`, `--set`), rendered for the release.
    Chart { chart: Chart, user_values: Value, settings: RenderSettings },
    /// What is released as it is: plain manifests ([`Rendered::from_manifests`]).
    Rendered(Rendered),
}

/// A release's history, read once, and what rolling it out now means.
#[derive(Debug)]
pub struct Rollout {
    scope: Scope,
    /// `.Release` as the chart sees it, and as the operation records it: name, namespace, revision, install
    /// or upgrade.
    release: RenderRelease,
    /// Every stored revision, ascending.
    history: Vec<Release>,
    reuse: ReuseMode,
    /// An install may take the name of a release uninstalled with its history kept, or failed (Helm's
    /// `--replace`, and `upgrade --install` of an uninstalled release).
    replace: bool,
}

/// A rollout with what it releases: handed to the install or upgrade (`Operation::RollOut`).
#[derive(Debug)]
pub struct RenderedRollout {
    pub(super) rollout: Rollout,
    pub(super) rendered: Rendered,
    /// What the render's lookups read: the failed revision's description is scrubbed of it.
    pub(super) looked_up: LookedUpSecrets,
}

impl Rollout {
    /// Reads release `name`'s history in `scope` and decides what rolling it out in `mode` means. The release's
    /// namespace is the scope's cluster's default.
    ///
    /// # Errors
    /// [`LifecycleError::InvalidName`]; [`LifecycleError::NotFound`] for an upgrade without `--install` of a
    /// release that has no revision; [`LifecycleError::Storage`] when the history cannot be read.
    pub async fn read(scope: Scope, name: &str, mode: Mode) -> Result<Rollout, LifecycleError> {
        validate_release_name(name)?;
        // `upgrade --install` asks for the history first (Helm's `History.Run`, and its debug line).
        if matches!(mode, Mode::Upgrade { install: true, .. }) {
            tracing::debug!(release = name, "getting history for release");
        }
        let history = scope.storage.history(name).await?;
        let last = history.last();
        let Some(is_upgrade) = upgrades(mode, last.map(|last| last.info.status)) else {
            return Err(LifecycleError::NotFound(name.to_string()));
        };
        // Helm's `prepareUpgrade`: without a deployed revision, an upgrade continues only a last revision that
        // failed or was superseded; a release uninstalled with its history kept has nothing deployed to upgrade
        // (`"NAME" has no deployed releases`; `upgrade --install` installs it again instead).
        let uninstalled = last
            .is_some_and(|last| matches!(last.info.status, ReleaseStatus::Uninstalled | ReleaseStatus::Uninstalling));
        let deployed = history.iter().any(|revision| revision.info.status == ReleaseStatus::Deployed);
        if is_upgrade && uninstalled && !deployed {
            return Err(LifecycleError::NotFound(name.to_string()));
        }
        let release = RenderRelease {
            name: name.to_string(),
            namespace: scope.cluster.default_namespace.clone(),
            revision: i64::from(last.map_or(1, |last| last.version + 1)),
            is_install: !is_upgrade,
            is_upgrade,
        };
        let (reuse, replace) = match mode {
            Mode::Install { replace } => (ReuseMode::default(), replace),
            // Helm's `upgrade --install` installs an uninstalled release with `Replace` set.
            Mode::Upgrade { reuse, .. } => (reuse, true),
        };
        Ok(Rollout { scope, release, history, reuse, replace })
    }

    /// `.Release` as the chart is rendered with.
    pub fn release(&self) -> &RenderRelease {
        &self.release
    }

    pub fn name(&self) -> &str {
        &self.release.name
    }

    /// The revision this rollout records.
    pub fn revision(&self) -> u32 {
        u32::try_from(self.release.revision).unwrap_or(u32::MAX)
    }

    pub fn is_upgrade(&self) -> bool {
        self.release.is_upgrade
    }

    /// The history as it was read (and as [`Rollout::unlock`] left it), ascending.
    pub fn history(&self) -> &[Release] {
        &self.history
    }

    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// Whether an install may take the name of a release whose last revision is uninstalled or failed.
    pub fn replaces(&self) -> bool {
        self.replace
    }

    /// Sets what [`Rollout::replaces`] answers, for a caller that installs as `install --replace` says rather
    /// than as `upgrade --install` does (the controller's `spec.install.replace`, Flux's `Install.Replace`).
    pub fn set_replaces(&mut self, replace: bool) {
        self.replace = replace;
    }

    /// The revision an upgrade starts from: the last one.
    fn current(&self) -> Option<&Release> {
        self.history.last().filter(|_| self.release.is_upgrade)
    }

    /// Records revision `version` failed when it is pending (an operation whose client stopped mid-way left it
    /// so), as Flux's `unlock` does; `note` is added to its description. Returns whether it was pending.
    ///
    /// # Errors
    /// [`LifecycleError::Storage`] when the record cannot be written.
    pub async fn unlock(&mut self, version: u32, note: &str) -> Result<bool, LifecycleError> {
        let Some(revision) = self.history.iter_mut().find(|release| release.version == version) else {
            return Ok(false);
        };
        if !revision.info.status.is_pending() {
            return Ok(false);
        }
        unlock(&self.scope.storage, revision, note).await?;
        Ok(true)
    }

    /// Renders `input` for this rollout: an upgrade's values reused as the mode says, the chart rendered once
    /// with the scope's cluster answering capabilities and `lookup`, the record's chart compressed meanwhile.
    ///
    /// # Errors
    /// [`RenderError`] with Helm's text: the old values cannot be rebuilt, or the chart cannot be rendered.
    pub async fn render(self, input: Input) -> Result<RenderedRollout, RenderError> {
        let current = self.current();
        let looked_up = match &input {
            Input::Chart { settings, .. } => settings.looked_up.clone(),
            Input::Rendered(_) => LookedUpSecrets::default(),
        };
        let rendered = render_input(input, &self.release, current, self.reuse, Some(&self.scope)).await?;
        Ok(RenderedRollout { rollout: self, rendered, looked_up })
    }
}

impl Rollout {
    /// Renders `input` for this rollout as [`Rollout::render`] does, with no cluster: capabilities offline and
    /// `lookup` empty (an upgrade's `--dry-run=client`, which reads the history but talks to no cluster after).
    ///
    /// # Errors
    /// As [`Rollout::render`].
    pub async fn render_offline(&self, input: Input) -> Result<Rendered, RenderError> {
        render_input(input, &self.release, self.current(), self.reuse, None).await
    }
}

impl RenderedRollout {
    pub fn rollout(&self) -> &Rollout {
        &self.rollout
    }

    pub fn rendered(&self) -> &Rendered {
        &self.rendered
    }
}

/// `input` rendered as `release` with no cluster and no history (`--dry-run client`): its values as given,
/// capabilities and `lookup` offline.
///
/// # Errors
/// As [`Rollout::render`].
pub async fn render_offline(input: Input, release: &RenderRelease) -> Result<Rendered, RenderError> {
    render_input(input, release, None, ReuseMode::default(), None).await
}

async fn render_input(
    input: Input,
    release: &RenderRelease,
    current: Option<&Release>,
    reuse: ReuseMode,
    scope: Option<&Scope>,
) -> Result<Rendered, RenderError> {
    let (mut chart, mut user_values, settings) = match input {
        Input::Rendered(rendered) => return Ok(rendered),
        Input::Chart { chart, user_values, settings } => (chart, user_values, settings),
    };
    if let Some(current) = current {
        let current_chart = Chart {
            values: template_value(&serde_json::Value::Object(current.chart.values.clone().unwrap_or_default())),
            ..Chart::default()
        };
        let current_values = template_value(&serde_json::Value::Object(current.config.clone()));
        user_values = reuse_values(&mut chart, &current_chart, &current_values, user_values, reuse)
            .map_err(|error| RenderError(error.to_string()))?;
    }
    let cluster = scope.map(|scope| &scope.cluster);
    let writer = scope.and_then(|scope| scope.storage.writer());
    render_chart(chart, user_values, release, &settings, cluster, writer).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_or_upgrade_is_decided_from_the_last_revision_as_helm_upgrade_install_does() {
        let upgrade = |install| Mode::Upgrade { install, reuse: ReuseMode::Default };
        let deployed = Some(ReleaseStatus::Deployed);
        let (failed, uninstalled) = (Some(ReleaseStatus::Failed), Some(ReleaseStatus::Uninstalled));
        // (mode, status of the last revision, upgrades?)
        let cases = [
            (Mode::Install { replace: false }, None, Some(false)),
            (Mode::Install { replace: true }, deployed, Some(false)),
            (upgrade(true), None, Some(false)),
            (upgrade(true), uninstalled, Some(false)),
            (upgrade(true), deployed, Some(true)),
            (upgrade(true), failed, Some(true)),
            (upgrade(false), None, None),
            (upgrade(false), uninstalled, Some(true)),
            (upgrade(false), Some(ReleaseStatus::PendingUpgrade), Some(true)),
        ];
        for (mode, last, expected) in cases {
            assert_eq!(upgrades(mode, last), expected, "{mode:?} after {last:?}");
        }
    }
}
