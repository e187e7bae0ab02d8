//! The controller binary under hostile work (issue 29, item 7): a Release whose chart renders for minutes
//! (inside every budget: a loop of 9 million iterations under the range budget, stopped only by the render
//! timeout), on the simulated cluster. While it renders, `/healthz` answers within a second each time it is
//! asked (rendering runs off the async threads); SIGTERM ends the process within its documented grace
//! (docs/controller.md, "SIGINT/SIGTERM"), the render stopped by its cancel flag at its next step.

use crate::controller_cli::{ControllerProcess, cluster_with_crd};
use crate::controller_support::{BOUND, archive, condition, release_resource};
use kube::api::{Api, DynamicObject, PostParams};
use serde_json::json;
use std::time::{Duration, Instant};

/// How long each `/healthz` may take to answer.
const HEALTH_ANSWER: Duration = Duration::from_secs(1);
/// How long `/healthz` is asked while the render runs.
const OBSERVED: Duration = Duration::from_secs(5);
/// The time docs/controller.md grants the process from SIGTERM to its exit, whatever it is doing.
const GRACE: Duration = Duration::from_secs(10);

/// A chart whose one template runs 9 million iterations of ten additions: inside the range budget (10 million)
/// and building nothing, so only the render timeout (2 minutes) would end it; tens of seconds in a release
/// build, minutes in a debug one.
fn slow_chart() -> Vec<u8> {
    let additions = "{{ $_ := add $i $j }}".repeat(10);
    let template = format!(
        "{{{{- range $i := until 3000 }}}}{{{{ range $j := until 3000 }}}}{additions}{{{{ end }}}}{{{{ end }}}}\n\
         apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: slow}}\n"
    );
    archive(&[
        ("slow/Chart.yaml", "apiVersion: v2\nname: slow\nversion: 0.1.0\n"),
        ("slow/templates/cm.yaml", &template),
    ])
}

/// The value of gauge `name` in a `/metrics` text.
fn gauge(metrics: &str, name: &str) -> Option<f64> {
    metrics.lines().find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

/// The CPU time (user and system) process `pid` has spent, from `/proc/PID/stat` (Linux's clock ticks, 100 a
/// second on every platform the tests run on).
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the process's stat");
    // After the command name (in parentheses, which may hold spaces): state is field 3, utime 14, stime 15.
    let fields: Vec<&str> =
        stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or_default().split_whitespace().collect();
    let ticks = |index: usize| fields.get(index).and_then(|field| field.parse::<u64>().ok()).unwrap_or_default();
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

/// `/healthz` asked once, bounded by [`HEALTH_ANSWER`]: its status line and how long it took.
async fn health(controller: &ControllerProcess) -> (String, Duration) {
    let asked = Instant::now();
    let answer = tokio::time::timeout(HEALTH_ANSWER, controller.get("/healthz")).await;
    let took = asked.elapsed();
    match answer {
        Ok((status, _)) => (status, took),
        Err(_) => panic!("/healthz did not answer within {HEALTH_ANSWER:?}; stderr:\n{}", controller.stderr()),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn during_a_long_render_healthz_answers_and_sigterm_ends_the_controller_within_its_grace() {
    let (peer, client) = cluster_with_crd("hostile").await;
    let encoded = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, slow_chart());
    let chart = json!({"metadata": {"name": "slow-chart"}, "binaryData": {"chart.tgz": encoded}});
    let config_maps: Api<k8s_openapi::api::core::v1::ConfigMap> = Api::namespaced(client.clone(), "hostile");
    config_maps
        .create(&PostParams::default(), &serde_json::from_value(chart).expect("a ConfigMap"))
        .await
        .expect("made");
    let releases: Api<DynamicObject> = Api::namespaced_with(client.clone(), "hostile", &release_resource());
    let release = json!({
        "apiVersion": "berth.dev/v1alpha1", "kind": "Release", "metadata": {"name": "slow", "namespace": "hostile"},
        "spec": {"chart": {"configMapRef": {"name": "slow-chart"}}, "timeout": "10m"},
    });
    releases.create(&PostParams::default(), &serde_json::from_value(release).expect("a Release")).await.expect("made");

    let controller = ControllerProcess::start(&peer, "hostile", &["--concurrency", "2"]).await;
    // The reconcile has started (and, its chart a ConfigMap, is rendering within milliseconds).
    let started = tokio::time::timeout(BOUND, async {
        loop {
            let (_, metrics) = controller.get("/metrics").await;
            if gauge(&metrics, "berth_controller_reconciles_running") == Some(1.0) {
                return;
            }
            health(&controller).await;
        }
    })
    .await;
    assert!(started.is_ok(), "no reconcile started within {BOUND:?}; stderr:\n{}", controller.stderr());

    let pid = controller.pid().expect("running");
    let (observing, cpu_before) = (Instant::now(), cpu_time(pid));
    let (mut asked, mut slowest) = (0, Duration::ZERO);
    // Asked ten times a second (as a kubelet's probe would, faster), not in a loop that takes the render's core.
    let mut pace = tokio::time::interval(Duration::from_millis(100));
    while observing.elapsed() < OBSERVED {
        pace.tick().await;
        let (status, took) = health(&controller).await;
        assert_eq!(status, "HTTP/1.1 200 OK", "stderr:\n{}", controller.stderr());
        (asked, slowest) = (asked + 1, slowest.max(took));
    }
    // The render was running all along: the reconcile has not ended, and nothing was reported.
    let (_, metrics) = controller.get("/metrics").await;
    assert_eq!(gauge(&metrics, "berth_controller_reconciles_running"), Some(1.0), "{metrics}");
    let object = serde_json::to_value(releases.get("slow").await.expect("the Release")).expect("JSON");
    let reported = |kind: &str| condition(&object, kind).is_some_and(|(status, _, _)| status == "True");
    assert!(!reported("Ready") && !reported("Stalled"), "still rendering: {:#}", object["status"]);
    // ... and working: half a second of CPU at least (an idle controller spends next to none).
    let spent = cpu_time(pid).saturating_sub(cpu_before);
    assert!(
        spent >= Duration::from_millis(500),
        "the controller spent {spent:?} of CPU in {OBSERVED:?}: not rendering?"
    );
    eprintln!(
        "/healthz answered {asked} times in {OBSERVED:?} of rendering ({spent:?} of CPU), the slowest in {slowest:?}"
    );

    let signalled = Instant::now();
    let exit = controller.terminate().await;
    let took = signalled.elapsed();
    assert_eq!(exit.code(), Some(0), "a clean stop on SIGTERM");
    assert!(took < GRACE, "SIGTERM to exit took {took:?} during a render (grace {GRACE:?})");
    eprintln!("SIGTERM to exit during the render: {took:?}");
}
