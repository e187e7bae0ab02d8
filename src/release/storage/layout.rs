//! How Helm lays a revision out in every driver (`pkg/storage/storage.go`, `driver/labels.go`, `util.go`): its
//! key, the labels Helm writes (`owner=helm`, `name`, `status`, `version`, `createdAt`, `modifiedAt`) beside the
//! release's own, the query by those labels, and what one write carries. Every driver speaks these terms.

use crate::release::record::{Release, ReleaseStatus};
use std::collections::BTreeMap;

/// The type Helm gives its records: a release Secret's type, a SQL row's `type` (Helm: `<domain>/<object>.v<object
/// version>`).
pub const SECRET_TYPE: &str = "helm.sh/release.v1";

/// The value of the `owner` label (and column) of every release record.
pub(super) const OWNER: &str = "helm";

/// Labels Helm writes itself (`systemLabels` in `util.go`); a release's own labels are the others.
pub const SYSTEM_LABELS: [&str; 6] = ["name", "owner", "status", "version", "createdAt", "modifiedAt"];

/// The key of one revision in every driver: the Secret's or ConfigMap's name, the SQL row's `key` (Helm's
/// `makeKey`).
pub fn record_key(name: &str, version: u32) -> String {
    format!("sh.helm.release.v1.{name}.v{version}")
}

/// Which revisions a query asks for: Helm's `Query` labels, `owner=helm` always.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Selector<'a> {
    pub name: Option<&'a str>,
    pub version: Option<u32>,
    pub status: Option<ReleaseStatus>,
}

impl Selector<'_> {
    /// The labels asked for, `owner` first, as (label, value).
    pub(super) fn labels(&self) -> Vec<(&'static str, String)> {
        let mut labels = vec![("owner", OWNER.to_string())];
        labels.extend(self.name.map(|name| ("name", name.to_string())));
        labels.extend(self.version.map(|version| ("version", version.to_string())));
        labels.extend(self.status.map(|status| ("status", status.to_string())));
        labels
    }

    /// Whether `release` has the labels asked for (the memory driver's match: its labels are the release's).
    pub(super) fn matches(&self, release: &Release) -> bool {
        self.name.is_none_or(|name| release.name == name)
            && self.version.is_none_or(|version| release.version == version)
            && self.status.is_none_or(|status| release.info.status == status)
    }
}

/// One revision by its name and version.
#[derive(Debug, Clone, Copy)]
pub(super) struct Key<'a> {
    pub name: &'a str,
    pub version: u32,
}

impl Key<'_> {
    pub(super) fn of(release: &Release) -> Key<'_> {
        Key { name: &release.name, version: release.version }
    }

    /// Helm's key of the revision.
    pub(super) fn text(&self) -> String {
        record_key(self.name, self.version)
    }
}

/// Whether a write creates the revision's record or rewrites it, and when: Helm's `createdAt` or `modifiedAt`.
#[derive(Debug, Clone, Copy)]
pub(super) enum Stamp {
    Created(jiff::Timestamp),
    Modified(jiff::Timestamp),
}

impl Stamp {
    /// The label this stamp sets, and its value (unix seconds).
    pub(super) fn label(&self) -> (&'static str, i64) {
        match self {
            Stamp::Created(at) => ("createdAt", at.as_second()),
            Stamp::Modified(at) => ("modifiedAt", at.as_second()),
        }
    }
}

/// One revision to store as text: the release, the text of its record, and the write's stamp.
pub(super) struct Write<'a> {
    pub release: &'a Release,
    pub text: &'a str,
    pub stamp: Stamp,
}

/// Where a request looks, for messages.
pub(super) fn scope_text(namespace: Option<&str>) -> String {
    match namespace {
        Some(namespace) => format!("in namespace `{namespace}`"),
        None => "in all namespaces".to_string(),
    }
}

/// A release's own labels: `labels` without Helm's (`filterSystemLabels`).
pub(super) fn own_labels<'l>(labels: impl IntoIterator<Item = (&'l String, &'l String)>) -> BTreeMap<String, String> {
    labels
        .into_iter()
        .filter(|(key, _)| !SYSTEM_LABELS.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::record::Info;

    #[test]
    fn record_keys_are_helms_keys() {
        assert_eq!(record_key("demo", 12), "sh.helm.release.v1.demo.v12");
    }

    #[test]
    fn selectors_ask_for_helms_labels_owner_first() {
        let selector = Selector { name: Some("web"), version: Some(3), status: Some(ReleaseStatus::Deployed) };
        let labels: Vec<(&str, String)> = selector.labels();
        let expected = [("owner", "helm"), ("name", "web"), ("version", "3"), ("status", "deployed")];
        assert_eq!(labels, expected.map(|(label, value)| (label, value.to_string())));
        assert_eq!(Selector::default().labels(), [("owner", "helm".to_string())]);
        let release = Release {
            name: "web".to_string(),
            version: 3,
            info: Info { status: ReleaseStatus::Deployed, ..Default::default() },
            ..Release::default()
        };
        assert!(selector.matches(&release) && Selector::default().matches(&release));
        assert!(!Selector { version: Some(2), ..selector }.matches(&release));
        assert!(!Selector { name: Some("api"), ..selector }.matches(&release));
        assert!(!Selector { status: Some(ReleaseStatus::Failed), ..selector }.matches(&release));
    }
}
