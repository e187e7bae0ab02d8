//! A chart repository's `index.yaml`, read as Helm 4.1.4 reads it (pkg/repo/v1/index.go `loadIndex`), and the
//! version a `--version` constraint picks from it (`IndexFile.Get`): an exact match first, else the newest
//! version the Masterminds constraint accepts, pre-releases only when the constraint names one.
//!
//! Pure: parsing and resolution over bytes already read.

use berth_sprig::semver::{Constraints, Version};
use serde_json::{Map, Value as Json};
use std::cmp::Ordering;

/// One version of a chart in an index (`repo.ChartVersion`): what resolution needs, and the whole entry as read.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartVersion {
    pub name: String,
    pub version: String,
    pub urls: Vec<String>,
    /// `sha256` of the archive, hex (some indexes prefix it with `sha256:`), as the index writes it whatever its
    /// YAML type (an unquoted digest may read as a number); empty when the index has none. See
    /// [`ChartVersion::archive_digest`].
    pub digest: String,
    /// The entry as the index holds it.
    pub raw: Map<String, Json>,
}

/// A parsed index: charts by name, each chart's versions newest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IndexFile {
    pub api_version: String,
    pub entries: Vec<(String, Vec<ChartVersion>)>,
    /// Entries Helm skips with a warning (invalid metadata), as its log lines say.
    pub warnings: Vec<String>,
}

/// Why a chart version could not be picked from an index.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GetError {
    /// `ErrNoChartName`.
    #[error("no chart name found")]
    NoChartName,
    /// `ErrNoChartVersion`, or no version matching the constraint; `nearest` lists the index's closest versions.
    #[error("no chart version found for {name}-{constraint}")]
    NoVersion { name: String, constraint: String, nearest: Vec<String> },
    /// The constraint does not parse.
    #[error("{0}")]
    Constraint(String),
}

impl IndexFile {
    /// `loadIndex`: JSON when the bytes are valid JSON, else YAML; invalid entries skipped; versions sorted newest
    /// first.
    ///
    /// # Errors
    ///
    /// `empty index.yaml file`, `no API version specified`, or the YAML/JSON error.
    pub fn parse(data: &[u8], source: &str) -> Result<IndexFile, String> {
        if data.is_empty() {
            return Err("empty index.yaml file".to_string());
        }
        let json: Json = match serde_json::from_slice(data) {
            Ok(json) => json,
            Err(_) => {
                let text = berth_goyaml::yaml_to_json(data)
                    .map_err(|error| error.to_string())?
                    .unwrap_or_else(|| "null".to_string());
                serde_json::from_str(&text).map_err(|error| error.to_string())?
            }
        };
        let object = match json {
            Json::Object(object) => object,
            Json::Null => Map::new(),
            _ => {
                return Err(
                    "error unmarshaling JSON: json: cannot unmarshal into Go value of type repo.IndexFile".into()
                );
            }
        };
        let mut index = IndexFile {
            api_version: object.get("apiVersion").and_then(Json::as_str).unwrap_or_default().to_string(),
            ..IndexFile::default()
        };
        if let Some(Json::Object(entries)) = object.get("entries") {
            for (name, versions) in entries {
                let mut kept = Vec::new();
                for version in versions.as_array().into_iter().flatten() {
                    let Some(raw) = version.as_object() else {
                        index.warnings.push(format!(
                            "skipping loading invalid entry for chart {name:?} from {source}: empty entry"
                        ));
                        continue;
                    };
                    let chart_version = ChartVersion::from_raw(raw.clone());
                    if let Err(problem) = chart_version.validate() {
                        index.warnings.push(format!(
                            "skipping loading invalid entry for chart {name:?} {:?} from {source}: {problem}",
                            chart_version.version
                        ));
                        continue;
                    }
                    kept.push(chart_version);
                }
                sort_newest_first(&mut kept);
                index.entries.push((name.clone(), kept));
            }
        }
        if index.api_version.is_empty() {
            return Err("no API version specified".to_string());
        }
        Ok(index)
    }

    /// The versions of `name`, newest first.
    pub fn versions(&self, name: &str) -> Option<&[ChartVersion]> {
        self.entries.iter().find(|(entry, _)| entry == name).map(|(_, versions)| versions.as_slice())
    }

    /// `IndexFile.Get`: the version `constraint` picks (`""` is `*`: the newest release).
    ///
    /// # Errors
    ///
    /// No such chart, no version matching (with the nearest versions), or a constraint that does not parse.
    pub fn get(&self, name: &str, constraint: &str) -> Result<&ChartVersion, GetError> {
        let versions = self.versions(name).ok_or(GetError::NoChartName)?;
        let picked = pick(versions.iter(), name, constraint, |version| version.version.as_str())?;
        // Helm's `IndexFile.Get` logs a version a constraint chose (not the OCI path's tag resolution).
        if !constraint.is_empty() && picked.version != constraint {
            tracing::warn!(
                chart = name,
                requested = constraint,
                selected = picked.version.as_str(),
                "unable to find exact version requested; falling back to closest available version"
            );
        }
        Ok(picked)
    }

    /// `<name>-charts.txt`: every chart name, one a line.
    pub fn charts_list(&self) -> String {
        self.entries.iter().map(|(name, _)| format!("{name}\n")).collect()
    }
}

/// `Get`'s resolution over versions sorted newest first, shared by indexes and registry tags.
///
/// # Errors
///
/// See [`IndexFile::get`].
pub fn pick<'a, T>(
    candidates: impl Iterator<Item = &'a T> + Clone,
    name: &str,
    constraint: &str,
    version_of: impl Fn(&T) -> &str,
) -> Result<&'a T, GetError>
where
    T: 'a,
{
    if candidates.clone().next().is_none() {
        return Err(GetError::NoVersion {
            name: name.to_string(),
            constraint: constraint.to_string(),
            nearest: vec![],
        });
    }
    let parsed =
        Constraints::parse(if constraint.is_empty() { "*" } else { constraint }).map_err(GetError::Constraint)?;
    if !constraint.is_empty()
        && let Some(exact) = candidates.clone().find(|candidate| version_of(candidate) == constraint)
    {
        return Ok(exact);
    }
    for candidate in candidates.clone() {
        if let Ok(version) = Version::parse(version_of(candidate))
            && parsed.check(&version)
        {
            return Ok(candidate);
        }
    }
    let all: Vec<&str> = candidates.map(&version_of).collect();
    Err(GetError::NoVersion {
        name: name.to_string(),
        constraint: constraint.to_string(),
        nearest: nearest_versions(&all, constraint, 5),
    })
}

/// Up to `count` of `versions` closest to the first version the constraint names (by major, then minor, then
/// patch distance), newest first; the newest ones when the constraint names no version.
pub fn nearest_versions(versions: &[&str], constraint: &str, count: usize) -> Vec<String> {
    let target = constraint
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
        .filter(|token| token.starts_with(|c: char| c.is_ascii_digit() || c == 'v'))
        .find_map(|token| {
            let numeric: Vec<&str> =
                token.trim_start_matches('v').split('.').take_while(|part| part.parse::<u64>().is_ok()).collect();
            (!numeric.is_empty())
                .then(|| numeric.iter().filter_map(|part| part.parse::<u64>().ok()).collect::<Vec<_>>())
        });
    let mut parsed: Vec<(Version, &str)> =
        versions.iter().filter_map(|text| Version::parse(text).ok().map(|version| (version, *text))).collect();
    parsed.sort_by(|a, b| b.0.precedence(&a.0));
    parsed.dedup_by(|a, b| a.1 == b.1);
    if let Some(target) = target {
        let distance = |version: &Version| -> Vec<u64> {
            let parts = [version_part(version, 0), version_part(version, 1), version_part(version, 2)];
            target.iter().zip(parts).map(|(want, have)| want.abs_diff(have)).collect()
        };
        let mut ranked: Vec<(Vec<u64>, usize)> =
            parsed.iter().enumerate().map(|(position, (version, _))| (distance(version), position)).collect();
        ranked.sort();
        let mut chosen: Vec<usize> = ranked.into_iter().take(count).map(|(_, position)| position).collect();
        chosen.sort_unstable();
        return chosen
            .into_iter()
            .filter_map(|position| parsed.get(position).map(|(_, text)| text.to_string()))
            .collect();
    }
    parsed.into_iter().take(count).map(|(_, text)| text.to_string()).collect()
}

/// Major, minor or patch of a version, read back from its canonical text.
fn version_part(version: &Version, index: usize) -> u64 {
    let text = version.to_string();
    text.split(['.', '-', '+']).nth(index).and_then(|part| part.parse().ok()).unwrap_or_default()
}

/// `SortEntries`: newest first by semver precedence; versions that do not parse go last.
pub fn sort_newest_first(versions: &mut [ChartVersion]) {
    versions.sort_by(|a, b| match (Version::parse(&a.version), Version::parse(&b.version)) {
        (Ok(a), Ok(b)) => b.precedence(&a),
        (Ok(_), Err(_)) => Ordering::Less,
        (Err(_), Ok(_)) => Ordering::Greater,
        (Err(_), Err(_)) => Ordering::Equal,
    });
}

impl ChartVersion {
    fn from_raw(raw: Map<String, Json>) -> ChartVersion {
        let text = |name: &str| raw.get(name).and_then(Json::as_str).unwrap_or_default().to_string();
        let urls = raw
            .get("urls")
            .and_then(Json::as_array)
            .map(|urls| urls.iter().filter_map(Json::as_str).map(str::to_string).collect())
            .unwrap_or_default();
        // Helm decodes `digest` into a Go string: an unquoted digest YAML reads as a number still arrives, as text
        // that is then no sha256 and is refused, never as no digest at all.
        let digest = match raw.get("digest") {
            None | Some(Json::Null) => String::new(),
            Some(Json::String(digest)) => digest.clone(),
            Some(other) => other.to_string(),
        };
        ChartVersion { name: text("name"), version: text("version"), urls, digest, raw }
    }

    /// The parts of `Metadata.Validate` an index entry can fail.
    fn validate(&self) -> Result<(), String> {
        if self.name.is_empty() {
            return Err("validation: chart.metadata.name is required".to_string());
        }
        if self.version.is_empty() {
            return Err("validation: chart.metadata.version is required".to_string());
        }
        if Version::parse(&self.version).is_err() {
            return Err(format!("validation: chart.metadata.version {:?} is invalid", self.version));
        }
        Ok(())
    }

    /// The archive's sha256 the index promises, as lowercase hex; `None` when it gives no digest.
    ///
    /// # Errors
    ///
    /// The digest is no sha256 (see [`archive_digest`]).
    pub fn archive_digest(&self) -> Result<Option<String>, String> {
        archive_digest(&self.digest)
    }
}

/// A digest from an index as Helm's `DownloadTo` reads it: the algorithm prefix dropped (`stripDigestAlgorithm`),
/// then hex of 32 bytes; `None` for an empty digest.
///
/// # Errors
///
/// Anything else (Helm: `encoding/hex: invalid byte`, `invalid digest length: N`), worded with the digest.
pub fn archive_digest(digest: &str) -> Result<Option<String>, String> {
    if digest.is_empty() {
        return Ok(None);
    }
    let hex = digest.split_once(':').map_or(digest, |(_, hex)| hex);
    if hex.len() == 64 && hex.bytes().all(|byte| byte.is_ascii_hexdigit()) {
        Ok(Some(hex.to_ascii_lowercase()))
    } else {
        Err(format!("invalid digest {:?}: not a sha256 digest (64 hexadecimal digits)", digest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INDEX: &str = "apiVersion: v1\nentries:\n  app:\n  - name: app\n    version: 1.2.0\n    urls: [app-1.2.0.tgz]\n  - name: app\n    version: 2.0.0-rc.1\n    urls: [app-2.0.0-rc.1.tgz]\n  - name: app\n    version: 1.10.1\n    urls: [app-1.10.1.tgz]\n    digest: abc\n  - name: app\n    version: not-semver\n  - null\n  other: []\n";

    #[test]
    fn versions_are_sorted_newest_first_and_bad_entries_skipped() {
        let index = IndexFile::parse(INDEX.as_bytes(), "test").unwrap();
        let versions: Vec<&str> = index.versions("app").unwrap().iter().map(|v| v.version.as_str()).collect();
        assert_eq!(versions, ["2.0.0-rc.1", "1.10.1", "1.2.0"]);
        assert_eq!(index.warnings.len(), 2, "{:?}", index.warnings);
        assert_eq!(index.charts_list(), "app\nother\n");
    }

    #[test]
    fn get_picks_as_helm_does() {
        let index = IndexFile::parse(INDEX.as_bytes(), "test").unwrap();
        let table = [
            ("", "1.10.1"),
            ("^1.2", "1.10.1"),
            ("~1.2", "1.2.0"),
            (">=2.0.0-0", "2.0.0-rc.1"),
            ("2.0.0-rc.1", "2.0.0-rc.1"),
            ("1.2.0", "1.2.0"),
        ];
        for (constraint, want) in table {
            assert_eq!(index.get("app", constraint).map(|v| v.version.as_str()), Ok(want), "{constraint}");
        }
        assert_eq!(index.get("nope", ""), Err(GetError::NoChartName));
        let Err(GetError::NoVersion { nearest, .. }) = index.get("app", "^3.0") else { panic!("expected no version") };
        assert_eq!(nearest, ["2.0.0-rc.1", "1.10.1", "1.2.0"]);
        assert!(matches!(index.get("other", ""), Err(GetError::NoVersion { .. })));
        assert!(matches!(index.get("app", "what"), Err(GetError::Constraint(_))));
    }

    #[test]
    fn nearest_versions_are_close_to_the_constraint() {
        let versions = ["20.1.0", "20.0.3", "19.6.4", "18.0.0", "21.0.0", "1.0.0", "20.1.1"];
        assert_eq!(nearest_versions(&versions, "22.x", 3), ["21.0.0", "20.1.1", "20.1.0"]);
        assert_eq!(nearest_versions(&versions, "~19.5", 2), ["20.1.1", "19.6.4"]);
        assert_eq!(nearest_versions(&versions, "*", 2), ["21.0.0", "20.1.1"]);
    }

    #[test]
    fn digests_are_read_whatever_their_yaml_type_and_only_sha256_passes() {
        let hex = "ab".repeat(32);
        let index = format!(
            "apiVersion: v1\nentries:\n  app:\n  - {{name: app, version: 1.0.0, digest: sha256:{hex}}}\n  \
             - {{name: app, version: 1.1.0, digest: {upper}}}\n  - {{name: app, version: 2.0.0, digest: 12e34}}\n  \
             - {{name: app, version: 2.1.0, digest: 1234567890123456789012345678901234567890123456789012345678901234}}\n  \
             - {{name: app, version: 3.0.0, digest: true}}\n  - {{name: app, version: 4.0.0, digest: ~}}\n",
            upper = hex.to_uppercase()
        );
        let index = IndexFile::parse(index.as_bytes(), "test").unwrap();
        let digest = |version: &str| index.get("app", version).unwrap().archive_digest();
        assert_eq!(digest("1.0.0"), Ok(Some(hex.clone())));
        assert_eq!(digest("1.1.0"), Ok(Some(hex.clone())));
        for number in ["2.0.0", "2.1.0", "3.0.0"] {
            assert!(digest(number).is_err(), "{number}: {:?}", digest(number));
        }
        assert_eq!(digest("4.0.0"), Ok(None));
        assert!(archive_digest("sha256:abc").is_err());
        assert!(archive_digest(&format!("sha256:{}", "zz".repeat(32))).is_err());
    }

    #[test]
    fn indexes_without_api_version_or_content_are_refused() {
        assert_eq!(IndexFile::parse(b"", "x").unwrap_err(), "empty index.yaml file");
        assert_eq!(IndexFile::parse(b"entries: {}\n", "x").unwrap_err(), "no API version specified");
        assert!(IndexFile::parse(b"{\"apiVersion\":\"v1\",\"entries\":{}}", "x").is_ok());
    }
}
