//! The simulated cluster's profile: how fast its controllers are, how many nodes it has, and which faults it
//! injects. Read from a YAML file (`berth sim serve --profile FILE`) or built in code by tests.

use crate::duration::parse_duration;
use serde::Deserialize;
use std::path::Path;
use std::time::Duration;

/// Everything configurable about one simulated cluster. Every field has a default: an empty file is valid.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct Profile {
    /// Multiplies the speed of every simulated delay: 2 halves them, 0.5 doubles them.
    pub speed: f64,
    /// Simulated nodes (DaemonSets run one pod per node).
    pub nodes: u32,
    /// Default delays of the simulated controllers (per-object annotations override them).
    pub delays: Delays,
    /// Faults injected into API requests.
    pub faults: Faults,
    /// The generic controller manages every custom resource (as if each one's operator ran), not only those
    /// annotated `sim.berth.dev/generic-ready: "true"`; an annotation `"false"` still opts one out.
    pub generic_ready: bool,
}

impl Default for Profile {
    fn default() -> Profile {
        Profile { speed: 1.0, nodes: 3, delays: Delays::default(), faults: Faults::default(), generic_ready: false }
    }
}

/// Default delays, in the Go duration form (`500ms`, `2s`).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct Delays {
    /// From a pod's creation to Running and Ready.
    #[serde(deserialize_with = "duration")]
    pub pod_ready: Duration,
    /// How long a Job's pods run before the Job completes.
    #[serde(deserialize_with = "duration")]
    pub job: Duration,
    /// From a claim's creation to Bound.
    #[serde(deserialize_with = "duration")]
    pub volume_bind: Duration,
    /// From a LoadBalancer Service's creation to an ingress address.
    #[serde(deserialize_with = "duration")]
    pub load_balancer: Duration,
}

impl Default for Delays {
    fn default() -> Delays {
        Delays {
            pod_ready: Duration::from_millis(200),
            job: Duration::from_millis(300),
            volume_bind: Duration::from_millis(100),
            load_balancer: Duration::from_millis(200),
        }
    }
}

/// Faults, each off by default; all random choices come from `seed`, so a run can be repeated.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct Faults {
    pub seed: u64,
    /// Added to every resource request.
    #[serde(deserialize_with = "duration")]
    pub latency: Duration,
    /// Fraction of resource requests answered 500.
    pub error_rate: f64,
    /// Fraction of resource requests answered 429 with `Retry-After`.
    pub throttle_rate: f64,
    /// The `Retry-After` of throttled answers, in seconds.
    pub retry_after_seconds: u64,
    /// Watch streams are closed after this long (0 = never, beyond their own timeout).
    #[serde(deserialize_with = "duration")]
    pub watch_close_after: Duration,
    /// Fraction of watch requests answered with a 410 Expired event, forcing a re-list.
    pub watch_gone_rate: f64,
    /// At most this many faulted requests in a row, so retries always get through (the bound).
    pub max_consecutive: u32,
}

impl Default for Faults {
    fn default() -> Faults {
        Faults {
            seed: 1,
            latency: Duration::ZERO,
            error_rate: 0.0,
            throttle_rate: 0.0,
            retry_after_seconds: 1,
            watch_close_after: Duration::ZERO,
            watch_gone_rate: 0.0,
            max_consecutive: 2,
        }
    }
}

fn duration<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
    let text = String::deserialize(deserializer)?;
    parse_duration(&text).map_err(serde::de::Error::custom)
}

/// Why a profile could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("cannot read the profile {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("invalid profile {path}: {message}")]
    Invalid { path: String, message: String },
}

impl Profile {
    /// Reads a profile file.
    ///
    /// # Errors
    /// [`ProfileError`] naming the file and, for bad content, the field.
    pub fn from_file(path: &Path) -> Result<Profile, ProfileError> {
        let display = path.display().to_string();
        let text =
            std::fs::read_to_string(path).map_err(|source| ProfileError::Read { path: display.clone(), source })?;
        Profile::from_yaml(&text).map_err(|message| ProfileError::Invalid { path: display, message })
    }

    /// Parses a profile from YAML text.
    ///
    /// # Errors
    /// The parser's message, with the line and the field.
    pub fn from_yaml(text: &str) -> Result<Profile, String> {
        if text.trim().is_empty() {
            return Ok(Profile::default());
        }
        let profile: Profile = serde_saphyr::from_str(text).map_err(|error| error.to_string())?;
        let rates = [
            ("faults.errorRate", profile.faults.error_rate),
            ("faults.throttleRate", profile.faults.throttle_rate),
            ("faults.watchGoneRate", profile.faults.watch_gone_rate),
        ];
        for (field, rate) in rates {
            if !(0.0..=1.0).contains(&rate) {
                return Err(format!("{field} must be between 0 and 1, got {rate}"));
            }
        }
        if !(profile.speed.is_finite() && profile.speed > 0.0) {
            return Err(format!("speed must be a positive number, got {}", profile.speed));
        }
        Ok(profile)
    }

    /// A delay scaled by the profile's speed.
    pub fn scaled(&self, delay: Duration) -> Duration {
        delay.div_f64(self.speed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_profile_is_the_default() {
        assert_eq!(Profile::from_yaml(""), Ok(Profile::default()));
    }

    #[test]
    fn fields_parse_with_go_durations() {
        let profile = Profile::from_yaml(
            "speed: 2\nnodes: 5\ngenericReady: true\ndelays:\n  podReady: 1s\nfaults:\n  seed: 7\n  errorRate: 0.1\n  latency: 5ms\n",
        );
        let profile = profile.unwrap_or_default();
        assert_eq!(profile.nodes, 5);
        assert!(profile.generic_ready);
        assert_eq!(profile.delays.pod_ready, Duration::from_secs(1));
        assert_eq!(profile.faults.latency, Duration::from_millis(5));
        assert_eq!(profile.scaled(Duration::from_secs(1)), Duration::from_millis(500));
    }

    #[test]
    fn bad_values_are_named() {
        assert!(Profile::from_yaml("faults:\n  errorRate: 2\n").is_err_and(|message| message.contains("errorRate")));
        assert!(Profile::from_yaml("speed: 0\n").is_err_and(|message| message.contains("speed")));
        assert!(Profile::from_yaml("nodez: 1\n").is_err_and(|message| message.contains("nodez")));
        assert!(Profile::from_yaml("delays:\n  podReady: soon\n").is_err());
    }
}
