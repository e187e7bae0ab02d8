//! How a revision's objects are written, decided once before anything is recorded: Helm 4's `--server-side`
//! (`true`, `false`, or `auto`: as the revision it continues was applied), `--force-conflicts` and
//! `--force-replace`, with the refusals of Helm's kube client for the combinations it cannot do. Pure.
//!
//! Helm 4 (`pkg/action/upgrade.go` `getUpgradeServerSideValue`): `auto` is server-side apply when the revision
//! continued was recorded `ssa`, client-side when it was recorded `csa` or nothing (Helm 3's records): an
//! upgrade continues the last revision's method, a rollback the target revision's, and an install, which
//! continues nothing, applies server-side. The new revision records the method it was written with.

use crate::apply::WriteMethod;
use crate::cluster::ApplyOptions;
pub use crate::release::error::ApplyMethodError;
use crate::release::ownership::FIELD_MANAGER;

/// The record's `apply_method` of a revision written with server-side apply.
const SERVER_SIDE: &str = "ssa";
/// The record's `apply_method` of a revision written client-side.
const CLIENT_SIDE: &str = "csa";

/// How a release's objects are written (Helm 4's `--server-side` and `--force-conflicts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApplyMethod {
    /// Server-side apply under the field manager `helm`. A field another manager owns with another value is a
    /// conflict that fails the operation, naming the manager and the fields, unless `force_conflicts` takes it.
    ServerSide { force_conflicts: bool },
    /// Helm's client-side apply: a new object created, an existing one patched with a three-way merge patch
    /// from the previous revision's object, the new one and the live one. `force_conflicts` is refused where
    /// Helm's kube client refuses it, when it writes ([`Writing::check_update`]).
    ClientSide { force_conflicts: bool },
    /// Helm 4's default (`auto`): as the revision continued was applied (an install: server-side). With
    /// `force_conflicts`, a release applied client-side is refused as Helm refuses it.
    Auto { force_conflicts: bool },
    /// Flux helm-controller's: `auto`, with conflicts forced whenever that is server-side apply (and
    /// `force_replace` only when it is client-side), so the controller's releases stay what they declare.
    AutoForcingConflicts,
}

impl Default for ApplyMethod {
    fn default() -> ApplyMethod {
        ApplyMethod::Auto { force_conflicts: false }
    }
}

impl ApplyMethod {
    /// From Helm's flags: `--server-side` (`true`, `false` or `auto`) and `--force-conflicts`.
    ///
    /// # Errors
    /// [`ApplyMethodError::Unknown`] for another `--server-side`.
    pub fn from_flags(server_side: &str, force_conflicts: bool) -> Result<ApplyMethod, ApplyMethodError> {
        match server_side {
            "true" => Ok(ApplyMethod::ServerSide { force_conflicts }),
            "false" => Ok(ApplyMethod::ClientSide { force_conflicts }),
            "auto" => Ok(ApplyMethod::Auto { force_conflicts }),
            other => Err(ApplyMethodError::Unknown(other.to_string())),
        }
    }
}

/// What one revision is written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Writing {
    server_side: bool,
    force_conflicts: bool,
    force_replace: bool,
}

impl Writing {
    /// Resolves `method` for a revision that continues one recorded with `continued` (`None`: an install). The
    /// combinations Helm's kube client cannot do are resolved as asked and refused when the objects are written
    /// ([`Writing::check_update`]), as Helm refuses them.
    pub fn resolve(method: ApplyMethod, force_replace: bool, continued: Option<&str>) -> Writing {
        let auto = continued.is_none_or(|recorded| recorded == SERVER_SIDE);
        let (server_side, force_conflicts, force_replace) = match method {
            ApplyMethod::ServerSide { force_conflicts } => (true, force_conflicts, force_replace),
            ApplyMethod::ClientSide { force_conflicts } => (false, force_conflicts, force_replace),
            ApplyMethod::Auto { force_conflicts } => (auto, force_conflicts, force_replace),
            ApplyMethod::AutoForcingConflicts => (auto, auto, force_replace && !auto),
        };
        Writing { server_side, force_conflicts, force_replace }
    }

    /// The refusals of Helm's `Client.Update` (every upgrade and rollback; an install only when objects exist
    /// to adopt), in its order: its options (`--force-conflicts` without server-side apply), then
    /// `--force-conflicts` with `--force-replace`, then `--force-replace` with server-side apply. Helm makes them
    /// once the revision is recorded and its pre-hooks ran: the revision fails.
    ///
    /// # Errors
    /// The first [`ApplyMethodError`] of those.
    pub fn check_update(&self) -> Result<(), ApplyMethodError> {
        match (self.server_side, self.force_conflicts, self.force_replace) {
            (false, true, _) => Err(ApplyMethodError::ForceConflictsClientSide),
            (_, true, true) => Err(ApplyMethodError::ForceConflictsAndReplace),
            (true, _, true) => Err(ApplyMethodError::ServerSideAndReplace),
            _ => Ok(()),
        }
    }

    /// The refusal of Helm's `installCRDs`, which creates the chart's CRDs with `--force-conflicts` (Helm creates
    /// the release's objects with none) before the revision is recorded.
    ///
    /// # Errors
    /// [`ApplyMethodError::ForceConflictsClientSideCrd`] naming the CRD.
    pub fn check_crd_creation(&self, crd: &str) -> Result<(), ApplyMethodError> {
        if !self.server_side && self.force_conflicts {
            return Err(ApplyMethodError::ForceConflictsClientSideCrd(crd.to_string()));
        }
        Ok(())
    }

    /// Whether the revision is written with server-side apply.
    pub fn is_server_side(&self) -> bool {
        self.server_side
    }

    /// The record's `apply_method`.
    pub fn recorded(&self) -> &'static str {
        if self.server_side { SERVER_SIDE } else { CLIENT_SIDE }
    }

    /// Whether `recorded` (a revision's `apply_method`) is client-side: `csa`, or nothing (Helm 3).
    pub fn is_client_side(recorded: &str) -> bool {
        recorded.is_empty() || recorded == CLIENT_SIDE
    }

    /// The request's write method. `upgrade_client_side_manager` (server-side apply) hands the release
    /// manager's client-side fields to its server-side apply first; `three_way_for_custom_resources`
    /// (client-side apply) patches custom resources three-way too.
    pub fn write_method(&self, upgrade_client_side_manager: bool, three_way_for_custom_resources: bool) -> WriteMethod {
        match (self.server_side, self.force_replace) {
            (true, _) => WriteMethod::ServerSideApply { upgrade_client_side_manager },
            (false, true) => WriteMethod::Replace,
            (false, false) => WriteMethod::ClientSideApply { three_way_for_custom_resources },
        }
    }

    /// The apply options: the release's field manager, its conflicts forced or not.
    pub fn apply_options(&self, dry_run: bool) -> ApplyOptions {
        ApplyOptions { field_manager: FIELD_MANAGER.to_string(), force_conflicts: self.force_conflicts, dry_run }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_read_as_helm_reads_them() {
        let cases = [
            ("true", false, Ok(ApplyMethod::ServerSide { force_conflicts: false })),
            ("true", true, Ok(ApplyMethod::ServerSide { force_conflicts: true })),
            ("false", false, Ok(ApplyMethod::ClientSide { force_conflicts: false })),
            ("false", true, Ok(ApplyMethod::ClientSide { force_conflicts: true })),
            ("auto", true, Ok(ApplyMethod::Auto { force_conflicts: true })),
            ("yes", false, Err(ApplyMethodError::Unknown("yes".into()))),
        ];
        for (server_side, force, expected) in cases {
            assert_eq!(ApplyMethod::from_flags(server_side, force), expected, "{server_side} {force}");
        }
    }

    #[test]
    fn auto_follows_the_revision_continued_as_getupgradeserversidevalue() {
        let auto = ApplyMethod::default();
        let written = |continued| Writing::resolve(auto, false, continued).recorded();
        assert_eq!(written(None), "ssa", "an install continues nothing");
        assert_eq!(written(Some("ssa")), "ssa");
        assert_eq!(written(Some("csa")), "csa");
        assert_eq!(written(Some("")), "csa", "a Helm 3 record has no method: client-side");
        let explicit = Writing::resolve(ApplyMethod::ServerSide { force_conflicts: false }, false, Some("csa"));
        assert_eq!(explicit.recorded(), "ssa");
        assert!(Writing::is_client_side("") && Writing::is_client_side("csa") && !Writing::is_client_side("ssa"));
    }

    #[test]
    fn helms_refusals_in_its_update_order_and_fluxs_forcing() {
        let forced = ApplyMethod::Auto { force_conflicts: true };
        let client_side = Writing::resolve(forced, false, Some("csa"));
        assert_eq!(client_side.check_update(), Err(ApplyMethodError::ForceConflictsClientSide));
        assert_eq!(
            client_side.check_crd_creation("widgets.example.com"),
            Err(ApplyMethodError::ForceConflictsClientSideCrd("widgets.example.com".into()))
        );
        assert_eq!(Writing::resolve(forced, false, Some("ssa")).check_crd_creation("w"), Ok(()));
        let everything = Writing::resolve(ApplyMethod::ClientSide { force_conflicts: true }, true, None);
        assert_eq!(everything.check_update(), Err(ApplyMethodError::ForceConflictsClientSide), "the options first");
        let server = ApplyMethod::ServerSide { force_conflicts: true };
        assert_eq!(
            Writing::resolve(server, true, None).check_update(),
            Err(ApplyMethodError::ForceConflictsAndReplace)
        );
        let replace = Writing::resolve(ApplyMethod::default(), true, Some("ssa"));
        assert_eq!(replace.check_update(), Err(ApplyMethodError::ServerSideAndReplace));
        let replace = Writing::resolve(ApplyMethod::ClientSide { force_conflicts: false }, true, Some("ssa"));
        assert_eq!((replace.check_update(), replace.write_method(true, true)), (Ok(()), WriteMethod::Replace));

        // The controller: conflicts forced on server-side apply, replacement only client-side.
        let flux = |continued| Writing::resolve(ApplyMethod::AutoForcingConflicts, true, continued);
        let server_side = flux(Some("ssa"));
        assert!(server_side.apply_options(false).force_conflicts && server_side.check_update().is_ok());
        let client_side = flux(Some("csa"));
        assert_eq!(client_side.write_method(false, false), WriteMethod::Replace);
        assert!(!client_side.apply_options(false).force_conflicts);
    }
}
