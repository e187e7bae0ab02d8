//! The controller's Prometheus metrics and their text exposition format (version 0.0.4), written by hand: a
//! few counters, gauges and histograms do not need a metrics crate. Pure; `http.rs` serves the text.
//!
//! Per-Release series (labels `namespace`, `name`) are kept for the Releases the controller watches and removed
//! when one is deleted, so their number is bounded by the Releases'.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Duration;

/// Buckets of reconcile durations, in seconds (a reconcile waits for readiness, so minutes are normal).
const DURATION_BUCKETS: [f64; 14] = [0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0];

/// Buckets of cancel latencies, in seconds (the target is under 0.1).
const LATENCY_BUCKETS: [f64; 9] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0];

#[derive(Debug, Clone)]
struct Histogram {
    bounds: &'static [f64],
    /// Observations at or below each bound (not cumulative; summed when written).
    counts: Vec<u64>,
    sum: f64,
    count: u64,
}

impl Histogram {
    fn new(bounds: &'static [f64]) -> Histogram {
        Histogram { bounds, counts: vec![0; bounds.len()], sum: 0.0, count: 0 }
    }

    fn observe(&mut self, seconds: f64) {
        if let Some(index) = self.bounds.iter().position(|bound| seconds <= *bound) {
            self.counts[index] += 1;
        }
        self.sum += seconds;
        self.count += 1;
    }

    fn write(&self, out: &mut String, name: &str, labels: &str) {
        let mut cumulative = 0;
        let separator = if labels.is_empty() { "" } else { "," };
        for (bound, count) in self.bounds.iter().zip(&self.counts) {
            cumulative += count;
            let _ = writeln!(out, "{name}_bucket{{{labels}{separator}le=\"{bound}\"}} {cumulative}");
        }
        let _ = writeln!(out, "{name}_bucket{{{labels}{separator}le=\"+Inf\"}} {}", self.count);
        let braces = if labels.is_empty() { String::new() } else { format!("{{{labels}}}") };
        let _ = writeln!(out, "{name}_sum{braces} {}", self.sum);
        let _ = writeln!(out, "{name}_count{braces} {}", self.count);
    }
}

/// Results of a reconcile that count as a failure of the Release (`berth_release_reconcile_failures_total`):
/// the rollout failed, the Release cannot go on as it is, or the reconcile hit an error to retry. A superseded or
/// interrupted wait is not the Release's failure.
const FAILURES: [&str; 3] = ["failed", "stalled", "error"];

/// One Release's series, from its first reconcile's end on.
#[derive(Debug, Clone, Copy, Default)]
struct ReleaseSeries {
    /// `Ready=True` after its last reconcile.
    ready: bool,
    last_duration: f64,
    failures: u64,
}

#[derive(Debug)]
struct Inner {
    releases_by_key: BTreeMap<(String, String), ReleaseSeries>,
    reconciles: BTreeMap<&'static str, Histogram>,
    cancellations: u64,
    cancel_latency: Histogram,
    events: BTreeMap<(&'static str, String), u64>,
    running: usize,
    releases: usize,
    leader: bool,
    /// Drift detections and corrections by Release (namespace, name); removed with the Release.
    drift: BTreeMap<(String, String), DriftCounts>,
}

/// A per-Release drift counter: its name, its help, and its value of a Release's counts.
type DriftCounter = (&'static str, &'static str, fn(&DriftCounts) -> u64);

/// One Release's drift counters.
#[derive(Debug, Clone, Copy, Default)]
struct DriftCounts {
    detections: u64,
    corrections: u64,
}

/// The controller's metrics; shared between the controller and the HTTP endpoint.
#[derive(Debug)]
pub struct Metrics {
    inner: Mutex<Inner>,
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics {
            inner: Mutex::new(Inner {
                releases_by_key: BTreeMap::new(),
                reconciles: BTreeMap::new(),
                cancellations: 0,
                cancel_latency: Histogram::new(&LATENCY_BUCKETS),
                events: BTreeMap::new(),
                running: 0,
                releases: 0,
                leader: false,
                drift: BTreeMap::new(),
            }),
        }
    }
}

impl Metrics {
    fn with(&self, change: impl FnOnce(&mut Inner)) {
        // A poisoned lock means a panic elsewhere; metrics are not worth a second one.
        if let Ok(mut inner) = self.inner.lock() {
            change(&mut inner);
        }
    }

    /// A reconcile ended with `result` after `duration`.
    pub fn reconciled(&self, result: &'static str, duration: Duration) {
        self.with(|inner| {
            inner
                .reconciles
                .entry(result)
                .or_insert_with(|| Histogram::new(&DURATION_BUCKETS))
                .observe(duration.as_secs_f64());
        });
    }

    /// A reconcile of Release `namespace/name` ended with `result` after `duration`, leaving it Ready or not.
    pub fn release_reconciled(
        &self,
        (namespace, name): (&str, &str),
        result: &'static str,
        duration: Duration,
        ready: bool,
    ) {
        self.with(|inner| {
            let series = inner.releases_by_key.entry((namespace.to_string(), name.to_string())).or_default();
            series.ready = ready;
            series.last_duration = duration.as_secs_f64();
            series.failures += u64::from(FAILURES.contains(&result));
        });
    }

    /// Release `namespace/name` was deleted (or left this controller's shard): its series go.
    pub fn release_deleted(&self, namespace: &str, name: &str) {
        self.with(|inner| {
            inner.releases_by_key.remove(&(namespace.to_string(), name.to_string()));
        });
    }

    /// A wait was cancelled by a new generation; `latency` from seeing the generation to the reconcile's end.
    pub fn cancelled(&self, latency: Duration) {
        self.with(|inner| {
            inner.cancellations += 1;
            inner.cancel_latency.observe(latency.as_secs_f64());
        });
    }

    /// A Kubernetes Event was published.
    pub fn event(&self, event_type: &'static str, reason: &str) {
        self.with(|inner| *inner.events.entry((event_type, reason.to_string())).or_insert(0) += 1);
    }

    /// A drift check found the Release's objects changed in the cluster.
    pub fn drift_detected(&self, namespace: &str, name: &str) {
        self.with(|inner| inner.drift.entry((namespace.to_string(), name.to_string())).or_default().detections += 1);
    }

    /// The Release's drifted objects were applied again.
    pub fn drift_corrected(&self, namespace: &str, name: &str) {
        self.with(|inner| inner.drift.entry((namespace.to_string(), name.to_string())).or_default().corrections += 1);
    }

    /// The Release is gone: its series go with it (the metrics stay bounded by the Releases that exist).
    pub fn forget_release(&self, namespace: &str, name: &str) {
        self.with(|inner| {
            inner.drift.remove(&(namespace.to_string(), name.to_string()));
        });
    }

    pub fn set_running(&self, running: usize) {
        self.with(|inner| inner.running = running);
    }

    pub fn set_releases(&self, releases: usize) {
        self.with(|inner| inner.releases = releases);
    }

    pub fn set_leader(&self, leader: bool) {
        self.with(|inner| inner.leader = leader);
    }

    /// The text exposition format.
    pub fn encode(&self) -> String {
        let Ok(inner) = self.inner.lock() else { return String::new() };
        let mut out = String::new();
        let name = "berth_controller_reconcile_duration_seconds";
        let _ = writeln!(out, "# HELP {name} How long reconciles took, by result.\n# TYPE {name} histogram");
        for (result, histogram) in &inner.reconciles {
            histogram.write(&mut out, name, &format!("result=\"{result}\""));
        }
        let name = "berth_controller_reconciles_total";
        let _ = writeln!(out, "# HELP {name} Reconciles ended, by result.\n# TYPE {name} counter");
        for (result, histogram) in &inner.reconciles {
            let _ = writeln!(out, "{name}{{result=\"{result}\"}} {}", histogram.count);
        }
        let name = "berth_controller_wait_cancellations_total";
        let _ = writeln!(out, "# HELP {name} Waits cancelled because a new generation arrived.\n# TYPE {name} counter");
        let _ = writeln!(out, "{name} {}", inner.cancellations);
        let name = "berth_controller_cancel_latency_seconds";
        let _ = writeln!(
            out,
            "# HELP {name} From a new generation seen to the cancelled revision recorded failed.\n# TYPE {name} histogram"
        );
        inner.cancel_latency.write(&mut out, name, "");
        let name = "berth_controller_events_total";
        let _ = writeln!(out, "# HELP {name} Kubernetes Events published, by type and reason.\n# TYPE {name} counter");
        for ((event_type, reason), count) in &inner.events {
            let _ = writeln!(out, "{name}{{type=\"{event_type}\",reason=\"{}\"}} {count}", escape(reason));
        }
        let drift_counters: [DriftCounter; 2] = [
            (
                "berth_controller_drift_detections_total",
                "Drift checks that found a Release's objects changed in the cluster.",
                |counts| counts.detections,
            ),
            (
                "berth_controller_drift_corrections_total",
                "Times a Release's drifted objects were applied again.",
                |counts| counts.corrections,
            ),
        ];
        for (name, help, count) in drift_counters {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter");
            for ((namespace, release), counts) in &inner.drift {
                let _ = writeln!(
                    out,
                    "{name}{{namespace=\"{}\",name=\"{}\"}} {}",
                    escape(namespace),
                    escape(release),
                    count(counts)
                );
            }
        }
        let gauges = [
            ("berth_controller_reconciles_running", "Reconciles running now.", inner.running),
            ("berth_controller_releases", "Releases the controller watches.", inner.releases),
            (
                "berth_controller_leader",
                "1 when this replica reconciles (the leader, or no leader election).",
                usize::from(inner.leader),
            ),
        ];
        for (name, help, value) in gauges {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {value}");
        }
        write_releases(&mut out, &inner.releases_by_key);
        out
    }
}

/// The per-Release families, each sample labelled with the Release's namespace and name.
fn write_releases(out: &mut String, releases: &BTreeMap<(String, String), ReleaseSeries>) {
    type Sample = fn(&ReleaseSeries) -> String;
    let families: [(&str, &str, &str, Sample); 3] = [
        (
            "berth_release_ready",
            "1 when the Release is Ready after its last reconcile, 0 when not.",
            "gauge",
            |series| u8::from(series.ready).to_string(),
        ),
        (
            "berth_release_last_reconcile_duration_seconds",
            "How long the Release's last reconcile took.",
            "gauge",
            |series| series.last_duration.to_string(),
        ),
        (
            "berth_release_reconcile_failures_total",
            "Reconciles of the Release that failed (rollout failed, stalled, or an error to retry).",
            "counter",
            |series| series.failures.to_string(),
        ),
    ];
    for (name, help, kind, sample) in families {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        for ((namespace, release), series) in releases {
            let labels = format!("namespace=\"{}\",name=\"{}\"", escape(namespace), escape(release));
            let _ = writeln!(out, "{name}{{{labels}}} {}", sample(series));
        }
    }
}

/// A label value as the exposition format quotes it.
fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
        text.lines().find(|line| line.starts_with(prefix))
    }

    #[test]
    fn histograms_are_cumulative_with_sum_and_count() {
        let metrics = Metrics::default();
        metrics.reconciled("succeeded", Duration::from_millis(40));
        metrics.reconciled("succeeded", Duration::from_secs(3));
        metrics.reconciled("failed", Duration::from_secs(700));
        let text = metrics.encode();
        let name = "berth_controller_reconcile_duration_seconds";
        assert_eq!(
            line(&text, &format!("{name}_bucket{{result=\"succeeded\",le=\"0.05\"}}")).map(|l| l.ends_with(" 1")),
            Some(true)
        );
        assert_eq!(
            line(&text, &format!("{name}_bucket{{result=\"succeeded\",le=\"5\"}}")).map(|l| l.ends_with(" 2")),
            Some(true)
        );
        assert_eq!(
            line(&text, &format!("{name}_bucket{{result=\"failed\",le=\"600\"}}")).map(|l| l.ends_with(" 0")),
            Some(true)
        );
        assert_eq!(
            line(&text, &format!("{name}_bucket{{result=\"failed\",le=\"+Inf\"}}")).map(|l| l.ends_with(" 1")),
            Some(true)
        );
        assert_eq!(
            line(&text, &format!("{name}_count{{result=\"succeeded\"}}")),
            Some(&*format!("{name}_count{{result=\"succeeded\"}} 2"))
        );
        assert_eq!(
            line(&text, "berth_controller_reconciles_total{result=\"failed\"}"),
            Some("berth_controller_reconciles_total{result=\"failed\"} 1")
        );
    }

    #[test]
    fn cancellations_gauges_and_events() {
        let metrics = Metrics::default();
        metrics.cancelled(Duration::from_millis(20));
        metrics.set_running(3);
        metrics.set_leader(true);
        metrics.event("Warning", "Upgrade\"Failed");
        let text = metrics.encode();
        assert_eq!(
            line(&text, "berth_controller_wait_cancellations_total "),
            Some("berth_controller_wait_cancellations_total 1")
        );
        assert_eq!(
            line(&text, "berth_controller_cancel_latency_seconds_bucket{le=\"0.01\"}"),
            Some("berth_controller_cancel_latency_seconds_bucket{le=\"0.01\"} 0")
        );
        assert_eq!(
            line(&text, "berth_controller_cancel_latency_seconds_bucket{le=\"0.025\"}"),
            Some("berth_controller_cancel_latency_seconds_bucket{le=\"0.025\"} 1")
        );
        assert_eq!(
            line(&text, "berth_controller_cancel_latency_seconds_count"),
            Some("berth_controller_cancel_latency_seconds_count 1")
        );
        assert_eq!(line(&text, "berth_controller_reconciles_running "), Some("berth_controller_reconciles_running 3"));
        assert_eq!(line(&text, "berth_controller_leader "), Some("berth_controller_leader 1"));
        assert_eq!(
            line(&text, "berth_controller_events_total{"),
            Some("berth_controller_events_total{type=\"Warning\",reason=\"Upgrade\\\"Failed\"} 1")
        );
    }

    #[test]
    fn per_release_series_follow_the_release_and_go_with_it() {
        let metrics = Metrics::default();
        metrics.release_reconciled(("shop", "web"), "failed", Duration::from_millis(1500), false);
        metrics.release_reconciled(("shop", "web"), "succeeded", Duration::from_millis(250), true);
        metrics.release_reconciled(("shop", "db"), "stalled", Duration::from_secs(2), false);
        metrics.release_reconciled(("shop", "db"), "superseded", Duration::from_secs(1), false);
        let text = metrics.encode();
        let cases = [
            ("berth_release_ready{namespace=\"shop\",name=\"web\"}", Some("1")),
            ("berth_release_ready{namespace=\"shop\",name=\"db\"}", Some("0")),
            ("berth_release_last_reconcile_duration_seconds{namespace=\"shop\",name=\"web\"}", Some("0.25")),
            ("berth_release_reconcile_failures_total{namespace=\"shop\",name=\"web\"}", Some("1")),
            ("berth_release_reconcile_failures_total{namespace=\"shop\",name=\"db\"}", Some("1")),
        ];
        for (series, expected) in cases {
            let value = line(&text, &format!("{series} ")).and_then(|line| line.rsplit(' ').next());
            assert_eq!(value, expected, "{series}\n{text}");
        }
        metrics.release_deleted("shop", "web");
        let text = metrics.encode();
        assert!(!text.contains("name=\"web\""), "{text}");
        assert!(text.contains("berth_release_ready{namespace=\"shop\",name=\"db\"} 0"), "{text}");
    }

    #[test]
    fn every_sample_has_its_type_line_first() {
        let metrics = Metrics::default();
        metrics.reconciled("succeeded", Duration::from_secs(1));
        metrics.release_reconciled(("shop", "web"), "succeeded", Duration::from_secs(1), true);
        let text = metrics.encode();
        let mut typed: Vec<&str> = Vec::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("# TYPE ") {
                typed.push(rest.split(' ').next().unwrap_or_default());
            } else if !line.starts_with('#') {
                let name = line.split(['{', ' ']).next().unwrap_or_default();
                let family = ["_bucket", "_sum", "_count"]
                    .iter()
                    .fold(name, |name, suffix| name.strip_suffix(suffix).unwrap_or(name));
                assert!(typed.contains(&family) || typed.contains(&name), "{line} has no TYPE line before it");
            }
        }
    }

    #[test]
    fn drift_counters_are_per_release_and_go_with_it() {
        let metrics = Metrics::default();
        metrics.drift_detected("shop", "web");
        metrics.drift_detected("shop", "web");
        metrics.drift_corrected("shop", "web");
        metrics.drift_detected("bank", "ledger");
        let text = metrics.encode();
        let detections = "berth_controller_drift_detections_total";
        assert_eq!(
            line(&text, &format!("{detections}{{namespace=\"shop\"")),
            Some(&*format!("{detections}{{namespace=\"shop\",name=\"web\"}} 2"))
        );
        assert_eq!(
            line(&text, "berth_controller_drift_corrections_total{namespace=\"bank\""),
            Some("berth_controller_drift_corrections_total{namespace=\"bank\",name=\"ledger\"} 0")
        );
        metrics.forget_release("shop", "web");
        assert_eq!(line(&metrics.encode(), &format!("{detections}{{namespace=\"shop\"")), None);
    }
}
