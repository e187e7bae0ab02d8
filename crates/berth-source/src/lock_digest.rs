//! The digest in `Chart.lock` (internal/resolver `HashReq`): sha256 of the JSON Go writes for
//! `[2][]*chart.Dependency{requested, locked}`, prefixed `sha256:`, so `helm dependency build` accepts a lock
//! berth wrote and the other way round. Also the lock file's text (`yaml.Marshal` of `chart.Lock`). Pure.

use berth_chart::chart::{Dependency, Lock};
use berth_go::Value;
use sha2::{Digest as _, Sha256};

/// `HashReq(req, lock)`.
pub fn hash_req(requested: &[Dependency], locked: &[Dependency]) -> String {
    let json = crate::go_json::dependency_pair(requested, locked);
    format!("sha256:{}", crate::oci::manifest::hex(&Sha256::digest(json.as_bytes())))
}

/// `HashV2Req(req)`: Helm 2's digest of `{"dependencies": req}` (apiVersion v1 charts' `requirements.lock`).
pub fn hash_v2_req(requested: &[Dependency]) -> String {
    let list: Vec<String> = requested.iter().map(crate::go_json::dependency).collect();
    let json = format!("{{\"dependencies\":[{}]}}", list.join(","));
    format!("sha256:{}", crate::oci::manifest::hex(&Sha256::digest(json.as_bytes())))
}

/// `yaml.Marshal(lock)`: `dependencies`, `digest`, `generated` (sorted, as sigs.k8s.io/yaml writes them).
pub fn render_lock(lock: &Lock) -> String {
    let value = Value::map([
        ("generated", Value::from(lock.generated.as_str())),
        ("digest", Value::from(lock.digest.as_str())),
        ("dependencies", Value::list(lock.dependencies.iter().map(Dependency::json_view))),
    ]);
    berth_goyaml::to_yaml(&value).unwrap_or_default()
}

/// The time now as Go's `time.Now()` marshals to JSON (RFC 3339 with nanoseconds, trailing zeros dropped), in
/// UTC.
pub fn now_rfc3339_nano() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    format_rfc3339(now.as_secs() as i64, now.subsec_nanos(), true)
}

/// `seconds` since the epoch as RFC 3339 in UTC; with `nanos` and `with_fraction`, Go's `RFC3339Nano`.
pub fn format_rfc3339(seconds: i64, nanos: u32, with_fraction: bool) -> String {
    let days = seconds.div_euclid(86_400);
    let second_of_day = seconds.rem_euclid(86_400);
    let (year, month, day) = berth_go::time::civil_from_days(days);
    let mut text = format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        second_of_day / 3600,
        second_of_day % 3600 / 60,
        second_of_day % 60
    );
    if with_fraction && nanos > 0 {
        let fraction = format!("{nanos:09}");
        text.push('.');
        text.push_str(fraction.trim_end_matches('0'));
    }
    text.push('Z');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dependency(name: &str, version: &str, repository: &str) -> Dependency {
        Dependency {
            name: name.into(),
            version: version.into(),
            repository: repository.into(),
            ..Dependency::default()
        }
    }

    #[test]
    fn the_digest_is_over_gos_json() {
        let requested = [dependency("sub", "^1.0.0", "https://r.example/charts?a=1&b=2")];
        let locked = [dependency("sub", "1.2.0", "https://r.example/charts?a=1&b=2")];
        let json = crate::go_json::dependency_pair(&requested, &locked);
        assert_eq!(
            json,
            r#"[[{"name":"sub","version":"^1.0.0","repository":"https://r.example/charts?a=1\u0026b=2"}],[{"name":"sub","version":"1.2.0","repository":"https://r.example/charts?a=1\u0026b=2"}]]"#
        );
        assert!(hash_req(&requested, &locked).starts_with("sha256:"));
        assert_ne!(hash_req(&requested, &locked), hash_req(&locked, &requested));
    }

    #[test]
    fn times_format_as_go_marshals_them() {
        assert_eq!(format_rfc3339(0, 0, true), "1970-01-01T00:00:00Z");
        assert_eq!(format_rfc3339(1_700_000_000, 120_000_000, true), "2023-11-14T22:13:20.12Z");
        assert_eq!(format_rfc3339(951_782_400, 5, false), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn the_lock_file_sorts_its_keys() {
        let lock = Lock {
            generated: "2026-01-01T00:00:00Z".into(),
            digest: "sha256:x".into(),
            dependencies: vec![dependency("a", "1.0.0", "")],
        };
        assert_eq!(
            render_lock(&lock),
            "dependencies:\n- name: a\n  repository: \"\"\n  version: 1.0.0\ndigest: sha256:x\ngenerated: \"2026-01-01T00:00:00Z\"\n"
        );
    }
}
