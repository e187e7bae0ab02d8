//! The release record Helm keeps for every revision (`release.Release` in `pkg/release/v1/release.go`); the
//! text it is stored as is `codec.rs`'s.
//!
//! berth upgrades and uninstalls releases Helm made, and Helm must read back what berth wrote, so the JSON is
//! Helm's field for field: the same names, the same omissions (`omitempty`), the same timestamp form
//! (RFC 3339 with the writer's offset, trailing zeros of the fraction trimmed, as Go prints `time.Time`).
//! Fields berth does not model (a chart's files and lock, `info.resources`, fields a later Helm adds) are kept
//! in each struct's `extra` map, so decoding a release and encoding it again loses nothing.

use base64::engine::general_purpose::STANDARD;
use jiff::Timestamp;
use jiff::fmt::temporal::Pieces;
use jiff::tz::{Offset, TimeZone};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// Where a release is in its life (`pkg/release/common/status.go`). Stored in the JSON and, as the `status`
/// label, on the Secret.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReleaseStatus {
    /// The state is uncertain. Also what a record without a status decodes to.
    #[default]
    Unknown,
    /// The revision is what runs in the cluster.
    Deployed,
    /// Uninstalled with `--keep-history`.
    Uninstalled,
    /// A newer revision replaced this one.
    Superseded,
    /// The install, upgrade or rollback failed.
    Failed,
    /// An uninstall is under way.
    Uninstalling,
    /// An install is under way.
    PendingInstall,
    /// An upgrade is under way.
    PendingUpgrade,
    /// A rollback is under way.
    PendingRollback,
}

impl ReleaseStatus {
    /// Every status, in the order of Helm's `status.go`.
    pub const ALL: [ReleaseStatus; 9] = [
        ReleaseStatus::Unknown,
        ReleaseStatus::Deployed,
        ReleaseStatus::Uninstalled,
        ReleaseStatus::Superseded,
        ReleaseStatus::Failed,
        ReleaseStatus::Uninstalling,
        ReleaseStatus::PendingInstall,
        ReleaseStatus::PendingUpgrade,
        ReleaseStatus::PendingRollback,
    ];

    /// Helm's string for the status, as in the JSON and the Secret's `status` label.
    pub fn as_str(self) -> &'static str {
        match self {
            ReleaseStatus::Unknown => "unknown",
            ReleaseStatus::Deployed => "deployed",
            ReleaseStatus::Uninstalled => "uninstalled",
            ReleaseStatus::Superseded => "superseded",
            ReleaseStatus::Failed => "failed",
            ReleaseStatus::Uninstalling => "uninstalling",
            ReleaseStatus::PendingInstall => "pending-install",
            ReleaseStatus::PendingUpgrade => "pending-upgrade",
            ReleaseStatus::PendingRollback => "pending-rollback",
        }
    }

    /// Whether an operation holds the release (Helm's `IsPending`): another install, upgrade or rollback
    /// must not start. `uninstalling` is not pending, as in Helm.
    pub fn is_pending(self) -> bool {
        matches!(self, ReleaseStatus::PendingInstall | ReleaseStatus::PendingUpgrade | ReleaseStatus::PendingRollback)
    }
}

impl fmt::Display for ReleaseStatus {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// A string that names no status.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a release status")]
pub struct UnknownStatus(pub String);

impl FromStr for ReleaseStatus {
    type Err = UnknownStatus;

    fn from_str(text: &str) -> Result<ReleaseStatus, UnknownStatus> {
        ReleaseStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == text)
            .ok_or_else(|| UnknownStatus(text.to_string()))
    }
}

/// `0001-01-01T00:00:00Z`: -62135596800 seconds from the Unix epoch.
const ZERO_TIME: Timestamp = Timestamp::constant(-62_135_596_800, 0);

/// A point in time as Go's `time.Time` carries it through JSON: the instant and the writer's UTC offset.
/// Keeping the offset means a release Helm wrote in local time reads the same in `helm list` after berth
/// rewrote its status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HelmTime {
    pub timestamp: Timestamp,
    pub offset: Offset,
}

impl HelmTime {
    /// Now, in the machine's local offset (as Helm's `time.Now()`).
    pub fn now() -> HelmTime {
        let now = jiff::Zoned::now();
        HelmTime { timestamp: now.timestamp(), offset: now.offset() }
    }

    /// An instant written in UTC (`Z`).
    pub fn utc(timestamp: Timestamp) -> HelmTime {
        HelmTime { timestamp, offset: Offset::UTC }
    }

    /// An instant in the machine's offset at that instant, as Go's `time.Unix` gives a file's modification time.
    pub fn local(timestamp: Timestamp) -> HelmTime {
        HelmTime { timestamp, offset: TimeZone::system().to_offset(timestamp) }
    }

    /// Go's zero time (`0001-01-01T00:00:00Z`), what Helm records for a time it does not know.
    pub fn zero() -> HelmTime {
        HelmTime::utc(ZERO_TIME)
    }

    /// Go's `Time.String()` (`2006-01-02 15:04:05.999999999 -0700 MST`) of the time as Helm reads it from a
    /// record, what `helm list` shows: the zone is `UTC` for a zero offset, the machine's zone abbreviation when
    /// the machine had that offset then, and otherwise the offset again (Go's zone without a name).
    pub fn go_string(&self) -> String {
        let zoned = self.timestamp.to_zoned(TimeZone::fixed(self.offset));
        let nanos = zoned.subsec_nanosecond();
        let fraction =
            if nanos == 0 { String::new() } else { format!(".{nanos:09}").trim_end_matches('0').to_string() };
        let offset = zoned.strftime("%z").to_string();
        let zone = if self.offset == Offset::UTC {
            "UTC".to_string()
        } else {
            let system = TimeZone::system();
            let local = system.to_offset_info(self.timestamp);
            if local.offset() == self.offset { local.abbreviation().to_string() } else { offset.clone() }
        };
        format!("{}{fraction} {offset} {zone}", zoned.strftime("%Y-%m-%d %H:%M:%S"))
    }

    /// Go's `time.ANSIC` (`Mon Jan _2 15:04:05 2006`) in the time's own offset, what `helm history` shows;
    /// Go's zero time for a time the record does not hold, as Helm shows it.
    pub fn ansic(time: Option<HelmTime>) -> String {
        let Some(time) = time else { return "Mon Jan  1 00:00:00 0001".to_string() };
        let zoned = time.timestamp.to_zoned(TimeZone::fixed(time.offset));
        zoned.strftime("%a %b %e %H:%M:%S %Y").to_string()
    }
}

impl From<Timestamp> for HelmTime {
    fn from(timestamp: Timestamp) -> HelmTime {
        HelmTime::utc(timestamp)
    }
}

/// Go's `time.RFC3339Nano`: `Z` for a zero offset, otherwise `±hh:mm`; the fraction only when non-zero,
/// without trailing zeros (jiff's RFC 3339 printing follows the same rules).
impl fmt::Display for HelmTime {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.offset == Offset::UTC {
            write!(formatter, "{}", self.timestamp)
        } else {
            write!(formatter, "{}", self.timestamp.display_with_offset(self.offset))
        }
    }
}

impl FromStr for HelmTime {
    type Err = jiff::Error;

    fn from_str(text: &str) -> Result<HelmTime, jiff::Error> {
        let timestamp: Timestamp = text.parse()?;
        let offset = Pieces::parse(text)?.to_numeric_offset().unwrap_or(Offset::UTC);
        Ok(HelmTime { timestamp, offset })
    }
}

impl Serialize for HelmTime {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for HelmTime {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<HelmTime, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Helm's `Info.UnmarshalJSON` reads an empty string or `null` as "no time"; its `MarshalJSON` omits it.
fn optional_time<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<HelmTime>, D::Error> {
    match Option::<String>::deserialize(deserializer)? {
        None => Ok(None),
        Some(text) if text.is_empty() => Ok(None),
        Some(text) => text.parse().map(Some).map_err(serde::de::Error::custom),
    }
}

/// Go reads `null` into any field as its zero value; so does this.
fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

fn is_zero(number: &u32) -> bool {
    *number == 0
}

fn is_zero_i32(number: &i32) -> bool {
    *number == 0
}

fn is_false(flag: &bool) -> bool {
    !*flag
}

/// One revision of a release (Helm's `release.Release`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Release {
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub info: Info,
    #[serde(default, deserialize_with = "null_as_default")]
    pub chart: Chart,
    /// The values the user supplied (not the chart's defaults).
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "Map::is_empty")]
    pub config: Map<String, Value>,
    /// The rendered templates, hooks excluded, as one multi-document YAML text.
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "String::is_empty")]
    pub manifest: String,
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<Hook>,
    /// The revision, from 1.
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "is_zero")]
    pub version: u32,
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// `ssa` or `csa` (Helm 4); empty means client-side apply.
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "String::is_empty")]
    pub apply_method: String,
    /// The user's labels on the storage Secret, Helm's own labels (`name`, `owner`, `status`, `version`,
    /// `createdAt`, `modifiedAt`) left out. Not part of the JSON (`json:"-"` in Helm).
    #[serde(skip)]
    pub labels: BTreeMap<String, String>,
    /// When the storage Secret was created (its `createdAt` label); kept when berth rewrites the record.
    /// Not part of the JSON.
    #[serde(skip)]
    pub created_at: Option<Timestamp>,
    /// Fields berth does not model, kept for the next encode.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Helm's `release.Info`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Info {
    #[serde(default, deserialize_with = "optional_time", skip_serializing_if = "Option::is_none")]
    pub first_deployed: Option<HelmTime>,
    #[serde(default, deserialize_with = "optional_time", skip_serializing_if = "Option::is_none")]
    pub last_deployed: Option<HelmTime>,
    #[serde(default, deserialize_with = "optional_time", skip_serializing_if = "Option::is_none")]
    pub deleted: Option<HelmTime>,
    /// A one-line log entry ("Install complete", "Upgrade complete", ...).
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub status: ReleaseStatus,
    /// The revision a rollback went back to; 0 when this revision is not a rollback.
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "is_zero")]
    pub rollback_revision: u32,
    /// The rendered `NOTES.txt`.
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "String::is_empty")]
    pub notes: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Helm's `chart.Chart` as a release records it, its fields in Helm's order (`-o json` prints them so). The
/// fields after `values` are kept as the record holds them: absent stays absent (Helm 3 wrote no `modtime`),
/// `null` stays `null`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Chart {
    #[serde(default, deserialize_with = "null_as_default")]
    pub metadata: ChartMetadata,
    /// `Chart.lock` as Helm's `chart.Lock` writes it, `null` without one.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub lock: Option<Value>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub templates: Vec<ChartFile>,
    /// The chart's default values; `None` (`null`) for a chart without `values.yaml` and without dependencies, as
    /// Helm's loader leaves its `Values` nil (and `processImportValues` leaves it so when there are no
    /// dependencies).
    #[serde(default)]
    pub values: Option<Map<String, Value>>,
    /// `values.schema.json`, base64 (Go's `[]byte`), `null` without one.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub schema: Option<Value>,
    /// `values.schema.json`'s modification time (Go's zero time without one).
    #[serde(default, deserialize_with = "optional_time", skip_serializing_if = "Option::is_none")]
    pub schemamodtime: Option<HelmTime>,
    /// The chart's other files (`null` for none, as Go writes a nil slice).
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub files: Option<Option<Vec<ChartFile>>>,
    /// `Chart.yaml`'s modification time.
    #[serde(default, deserialize_with = "optional_time", skip_serializing_if = "Option::is_none")]
    pub modtime: Option<HelmTime>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Helm's `common.File`: a file of the chart, its content base64 in the JSON (Go's `[]byte`), and its
/// modification time.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChartFile {
    #[serde(default, deserialize_with = "null_as_default")]
    pub name: String,
    #[serde(default, with = "base64_bytes")]
    pub data: Vec<u8>,
    #[serde(default, deserialize_with = "optional_time", skip_serializing_if = "Option::is_none")]
    pub modtime: Option<HelmTime>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A field the record holds, `null` included (serde reads `null` as `None` for an `Option` otherwise).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

/// Go's JSON form of `[]byte`: standard base64, `null` for nil.
mod base64_bytes {
    use super::STANDARD;
    use base64::Engine as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        match Option::<String>::deserialize(deserializer)? {
            None => Ok(Vec::new()),
            Some(text) => STANDARD.decode(text).map_err(serde::de::Error::custom),
        }
    }
}

/// Helm's `chart.Metadata` (the chart's `Chart.yaml`). `condition`, `tags` and `dependencies` stay in `extra`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChartMetadata {
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home: Option<String>,
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "String::is_empty")]
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "Vec::is_empty")]
    pub maintainers: Vec<Maintainer>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    /// `v2` for Helm 3+ charts, `v1` for Helm 2 charts.
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_version: Option<String>,
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "is_false")]
    pub deprecated: bool,
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kube_version: Option<String>,
    /// `application` or `library`; absent means application.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub chart_type: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A new chart's metadata is `apiVersion: v2`, as `helm create` writes.
impl Default for ChartMetadata {
    fn default() -> ChartMetadata {
        ChartMetadata {
            name: String::new(),
            home: None,
            sources: Vec::new(),
            version: String::new(),
            description: None,
            keywords: Vec::new(),
            maintainers: Vec::new(),
            icon: None,
            api_version: "v2".to_string(),
            app_version: None,
            deprecated: false,
            annotations: BTreeMap::new(),
            kube_version: None,
            chart_type: None,
            extra: Map::new(),
        }
    }
}

/// Helm's `chart.Maintainer`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Maintainer {
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "String::is_empty")]
    pub email: String,
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "String::is_empty")]
    pub url: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Helm's `release.Hook`: a rendered hook and its last run. Events and policies are Helm's strings
/// (`pre-install`, `hook-succeeded`, ...).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Hook {
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// The template the hook came from.
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "String::is_empty")]
    pub path: String,
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "String::is_empty")]
    pub manifest: String,
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub last_run: HookExecution,
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "is_zero_i32")]
    pub weight: i32,
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "Vec::is_empty")]
    pub delete_policies: Vec<String>,
    #[serde(default, deserialize_with = "null_as_default", skip_serializing_if = "Vec::is_empty")]
    pub output_log_policies: Vec<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Helm's `release.HookExecution`. `phase` is always written (`Unknown`, `Running`, `Succeeded`, `Failed`,
/// or empty for a hook that never ran).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HookExecution {
    #[serde(default, deserialize_with = "optional_time", skip_serializing_if = "Option::is_none")]
    pub started_at: Option<HelmTime>,
    #[serde(default, deserialize_with = "optional_time", skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<HelmTime>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub phase: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::super::codec::decode;
    use super::super::record_writer::encode;
    use super::*;
    use base64::Engine as _;
    use flate2::Compression;
    use flate2::read::MultiGzDecoder;
    use flate2::write::GzEncoder;
    use proptest::prelude::*;
    use serde_json::json;
    use std::io::{Read as _, Write as _};

    /// A release as Helm v4 writes it (`json.Marshal` of `release.Release` after `helm install`), with the
    /// fields berth does not model: the chart's lock, files, schema and mod times, `info.resources`,
    /// metadata `dependencies`/`condition`/`tags`, a hook with its last run, and a field from the future.
    fn helm_written() -> Value {
        json!({
            "name": "demo",
            "info": {
                "first_deployed": "2026-05-01T10:11:12.123456789+02:00",
                "last_deployed": "2026-05-01T10:11:12.5+02:00",
                "deleted": "",
                "description": "Install complete",
                "status": "deployed",
                "notes": "Thanks for installing demo.",
                "resources": {"v1/ConfigMap": [{"apiVersion": "v1", "kind": "ConfigMap"}]}
            },
            "chart": {
                "metadata": {
                    "name": "demo-chart",
                    "home": "https://example.com",
                    "sources": ["https://example.com/src"],
                    "version": "0.1.0",
                    "description": "A Helm chart for Kubernetes",
                    "keywords": ["demo"],
                    "maintainers": [{"name": "Ann", "email": "ann@example.com"}],
                    "apiVersion": "v2",
                    "condition": "demo.enabled",
                    "tags": "frontend",
                    "appVersion": "1.16.0",
                    "annotations": {"category": "Demo"},
                    "kubeVersion": ">=1.30.0-0",
                    "dependencies": [{"name": "common", "version": "1.x", "repository": "oci://example.com/charts"}],
                    "type": "application"
                },
                "lock": null,
                "templates": [{"name": "templates/cm.yaml", "data": "a2luZDogQ29uZmlnTWFw", "modtime": "2026-05-01T08:11:12Z"}],
                "values": {"replicaCount": 1, "image": {"repository": "nginx", "tag": ""}, "ratio": 0.5},
                "schema": null,
                "schemamodtime": "0001-01-01T00:00:00Z",
                "files": [{"name": "README.md", "data": "IyBkZW1v"}],
                "modtime": "2026-05-01T08:11:12Z"
            },
            "config": {"replicaCount": 2},
            "manifest": "---\n# Source: demo-chart/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n",
            "hooks": [{
                "name": "demo-test",
                "kind": "Pod",
                "path": "demo-chart/templates/tests/test.yaml",
                "manifest": "apiVersion: v1\nkind: Pod\n",
                "events": ["test"],
                "last_run": {"started_at": "2026-05-01T10:12:00-07:00", "completed_at": "2026-05-01T10:12:03.25-07:00", "phase": "Succeeded"},
                "weight": -5,
                "delete_policies": ["before-hook-creation"],
                "output_log_policies": ["hook-failed"],
                "future_hook_field": true
            }],
            "version": 1,
            "namespace": "default",
            "apply_method": "ssa",
            "future_field": {"kept": [1, 2, 3]}
        })
    }

    fn gzip_base64(bytes: &[u8]) -> String {
        let mut gzip = GzEncoder::new(Vec::new(), Compression::best());
        gzip.write_all(bytes).expect("gzip in memory");
        STANDARD.encode(gzip.finish().expect("gzip in memory"))
    }

    #[test]
    fn a_release_helm_wrote_decodes_with_every_modelled_field() {
        let text = gzip_base64(helm_written().to_string().as_bytes());
        let release = decode(&text).expect("decodes");
        assert_eq!((release.name.as_str(), release.namespace.as_str(), release.version), ("demo", "default", 1));
        assert_eq!(release.info.status, ReleaseStatus::Deployed);
        assert_eq!(release.info.description, "Install complete");
        assert_eq!(release.info.deleted, None, "an empty time string is no time");
        let last_deployed = release.info.last_deployed.expect("last_deployed");
        assert_eq!(last_deployed.timestamp, "2026-05-01T08:11:12.5Z".parse::<Timestamp>().expect("timestamp"));
        assert_eq!(last_deployed.offset, jiff::tz::offset(2));
        let metadata = &release.chart.metadata;
        assert_eq!((metadata.name.as_str(), metadata.version.as_str()), ("demo-chart", "0.1.0"));
        assert_eq!(metadata.app_version.as_deref(), Some("1.16.0"));
        assert_eq!(metadata.chart_type.as_deref(), Some("application"));
        assert_eq!(metadata.maintainers[0].email, "ann@example.com");
        assert_eq!(&*release.chart.templates[0].data, b"kind: ConfigMap");
        assert_eq!(release.config["replicaCount"], 2);
        assert_eq!(release.hooks[0].last_run.phase, "Succeeded");
        assert_eq!(release.hooks[0].weight, -5);
        assert_eq!(release.apply_method, "ssa");
        assert!(release.extra.contains_key("future_field"));
    }

    #[test]
    fn a_status_rewrite_keeps_every_field_helm_wrote() {
        let original = helm_written();
        let mut release = decode(&gzip_base64(original.to_string().as_bytes())).expect("decodes");
        release.info.status = ReleaseStatus::Superseded;
        release.info.description = "Superseded by berth".to_string();
        let rewritten: Value = {
            let text = encode(&release).expect("encodes");
            let compressed = STANDARD.decode(text).expect("base64");
            assert!(compressed.starts_with(&[0x1f, 0x8b, 0x08]), "gzipped");
            let mut json = Vec::new();
            MultiGzDecoder::new(compressed.as_slice()).read_to_end(&mut json).expect("gunzip");
            serde_json::from_slice(&json).expect("JSON")
        };
        let mut expected = original;
        expected["info"]["status"] = json!("superseded");
        expected["info"]["description"] = json!("Superseded by berth");
        // Helm itself drops an empty time on its next write.
        expected["info"].as_object_mut().expect("info").remove("deleted");
        assert_eq!(rewritten, expected);
    }

    #[test]
    fn encode_then_decode_is_the_identity() {
        let release = Release {
            name: "web".to_string(),
            namespace: "apps".to_string(),
            version: 3,
            manifest: "apiVersion: v1\nkind: ConfigMap\n".to_string(),
            info: Info {
                first_deployed: Some(HelmTime::now()),
                last_deployed: Some(HelmTime::utc(Timestamp::from_second(1_700_000_000).expect("in range"))),
                description: "Upgrade complete".to_string(),
                status: ReleaseStatus::PendingUpgrade,
                ..Info::default()
            },
            chart: Chart {
                metadata: ChartMetadata {
                    name: "web".to_string(),
                    version: "1.2.3".to_string(),
                    app_version: Some("2.0".to_string()),
                    ..ChartMetadata::default()
                },
                ..Chart::default()
            },
            ..Release::default()
        };
        assert_eq!(decode(&encode(&release).expect("encodes")).expect("decodes"), release);
    }

    #[test]
    fn a_new_release_writes_only_what_helm_would() {
        let release = Release {
            name: "web".to_string(),
            version: 1,
            info: Info { status: ReleaseStatus::Deployed, ..Info::default() },
            ..Release::default()
        };
        let json = serde_json::to_value(&release).expect("JSON");
        assert_eq!(
            json,
            json!({
                "name": "web",
                "info": {"status": "deployed"},
                "chart": {"metadata": {"apiVersion": "v2"}, "templates": [], "values": null},
                "version": 1
            })
        );
    }

    #[test]
    fn a_record_from_before_compression_is_read_as_plain_json() {
        let text = STANDARD.encode(helm_written().to_string());
        let release = decode(&text).expect("decodes");
        assert_eq!(release.name, "demo");
        let wrapped: String =
            text.as_bytes().chunks(76).map(|line| format!("{}\n", String::from_utf8_lossy(line))).collect();
        assert_eq!(decode(&wrapped).expect("line breaks are skipped").name, "demo");
    }

    #[test]
    fn garbage_is_an_error_naming_the_layer() {
        let cases = [
            ("not base64!", "invalid base64"),
            (&STANDARD.encode([0x1f, 0x8b, 0x08, 0x00, 0x01]), "invalid gzip"),
            (&STANDARD.encode("{\"name\": 3}"), "invalid release JSON"),
            (&STANDARD.encode("{\"info\": {\"status\": \"sleeping\"}}"), "invalid release JSON"),
            (&STANDARD.encode("{\"info\": {\"last_deployed\": \"yesterday\"}}"), "invalid release JSON"),
            (&gzip_base64(b"[1, 2]"), "invalid release JSON"),
        ];
        for (text, expected) in cases {
            let error = decode(text).expect_err(text);
            assert!(error.to_string().contains(expected), "{text}: {error}");
        }
    }

    #[test]
    fn every_status_maps_to_helms_string_and_back() {
        let expected = [
            (ReleaseStatus::Unknown, "unknown", false),
            (ReleaseStatus::Deployed, "deployed", false),
            (ReleaseStatus::Uninstalled, "uninstalled", false),
            (ReleaseStatus::Superseded, "superseded", false),
            (ReleaseStatus::Failed, "failed", false),
            (ReleaseStatus::Uninstalling, "uninstalling", false),
            (ReleaseStatus::PendingInstall, "pending-install", true),
            (ReleaseStatus::PendingUpgrade, "pending-upgrade", true),
            (ReleaseStatus::PendingRollback, "pending-rollback", true),
        ];
        assert_eq!(expected.map(|(status, _, _)| status), ReleaseStatus::ALL);
        for (status, text, pending) in expected {
            assert_eq!(status.to_string(), text);
            assert_eq!(serde_json::to_value(status).expect("JSON"), json!(text));
            assert_eq!(serde_json::from_value::<ReleaseStatus>(json!(text)).expect("JSON"), status);
            assert_eq!(text.parse::<ReleaseStatus>(), Ok(status));
            assert_eq!(status.is_pending(), pending, "{text}");
        }
        assert_eq!("Deployed".parse::<ReleaseStatus>(), Err(UnknownStatus("Deployed".to_string())));
    }

    #[test]
    fn times_print_as_go_prints_rfc3339_nano() {
        for text in [
            "2026-05-01T10:11:12Z",
            "2026-05-01T10:11:12.5Z",
            "2026-05-01T10:11:12.123456789+02:00",
            "2026-05-01T10:11:12.1-05:30",
            "0001-01-01T00:00:00Z",
        ] {
            assert_eq!(text.parse::<HelmTime>().expect(text).to_string(), text);
        }
        assert_eq!("2026-05-01T10:11:12+00:00".parse::<HelmTime>().expect("time").to_string(), "2026-05-01T10:11:12Z");
    }

    #[test]
    fn times_print_as_helm_list_and_history_show_them() {
        let time = |text: &str| text.parse::<HelmTime>().expect(text);
        // As Helm 4.1.4 printed these times of a release on this machine (UTC).
        assert_eq!(time("2026-11-24T08:25:57.269399699Z").go_string(), "2026-11-24 08:25:57.269399699 +0000 UTC");
        assert_eq!(time("2026-05-02T12:00:00Z").go_string(), "2026-05-02 12:00:00 +0000 UTC");
        assert_eq!(time("2026-05-02T12:00:00.250Z").go_string(), "2026-05-02 12:00:00.25 +0000 UTC");
        assert_eq!(HelmTime::ansic(Some(time("2026-11-24T08:25:57.269399699Z"))), "Tue Nov 24 08:25:57 2026");
        assert_eq!(HelmTime::ansic(Some(time("2026-05-01T10:00:00.25+02:00"))), "Fri May  1 10:00:00 2026");
        assert_eq!(HelmTime::ansic(None), "Mon Jan  1 00:00:00 0001");
        // An offset the machine's zone did not have then is its own zone name, as Go names a fixed zone.
        let odd = time("2026-05-01T10:00:00-03:17");
        assert_eq!(odd.go_string(), "2026-05-01 10:00:00 -0317 -0317");
    }

    proptest! {
        #[test]
        fn decode_never_panics_on_any_text(text in ".*") {
            let _ = decode(&text);
        }

        #[test]
        fn decode_never_panics_on_any_payload(bytes in proptest::collection::vec(any::<u8>(), 0..256), gzip in any::<bool>()) {
            let text = if gzip { gzip_base64(&bytes) } else { STANDARD.encode(&bytes) };
            let _ = decode(&text);
        }
    }
}
