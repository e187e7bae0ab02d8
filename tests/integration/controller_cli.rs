//! `berth controller` as users run it: the real binary against the simulated cluster over HTTP. The CRD that
//! `berth controller crd` prints, applied with real kubectl; a Release as the contract writes it, released and
//! read back by real Helm 4.1.4 and by `berth history`; metrics and health over HTTP; SIGTERM; two replicas
//! with `--leader-elect`, the leader killed mid-rollout and the standby finishing it; `deploy/` applied.

use crate::controller_support::{BOUND, condition, release_resource, release_where, revision_recorded, web_chart};
use crate::peers::PeerCluster;
use crate::run;
use berth_sim::SimConfig;
use futures::StreamExt;
use kube::api::{Api, PostParams};
use kube::runtime::watcher;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A `berth controller` process, killed when dropped; its stderr kept for the failure messages.
pub(crate) struct ControllerProcess {
    /// `None` once stopped.
    child: Option<Child>,
    /// Everything it wrote to stderr so far, updated line by line.
    stderr: tokio::sync::watch::Receiver<String>,
    /// Where `--metrics-addr 127.0.0.1:0` was bound.
    metrics: String,
}

impl ControllerProcess {
    /// Starts `berth controller ARGS` as replica `pod` and waits (bounded) until it says where it serves.
    pub(crate) async fn start(peer: &PeerCluster, pod: &str, args: &[&str]) -> ControllerProcess {
        ControllerProcess::start_as(&peer.kubeconfig(), pod, args).await
    }

    /// As [`ControllerProcess::start`], with the identity of `kubeconfig`.
    async fn start_as(kubeconfig: &std::path::Path, pod: &str, args: &[&str]) -> ControllerProcess {
        let mut command = Command::new(env!("CARGO_BIN_EXE_berth"));
        command
            .arg("controller")
            .args(args)
            .args(["--metrics-addr", "127.0.0.1:0", "--kubeconfig"])
            .arg(kubeconfig)
            .env("POD_NAME", pod)
            .env("BERTH_LOG", "berth=info")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("berth controller starts");
        let pipe = child.stderr.take().expect("stderr piped");
        let (kept, stderr) = tokio::sync::watch::channel(String::new());
        let (address_sender, address) = tokio::sync::oneshot::channel();
        std::thread::spawn(move || {
            let mut address_sender = Some(address_sender);
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                if let Some(bound) = line.strip_prefix("serving /metrics, /healthz and /readyz on ")
                    && let Some(sender) = address_sender.take()
                {
                    let _ = sender.send(bound.to_string());
                }
                kept.send_modify(|text| {
                    text.push_str(&line);
                    text.push('\n');
                });
            }
        });
        let metrics = match tokio::time::timeout(BOUND, address).await {
            Ok(Ok(address)) => address,
            _ => panic!("berth controller never said where it serves; stderr:\n{}", stderr.borrow().as_str()),
        };
        ControllerProcess { child: Some(child), stderr, metrics }
    }

    /// The process id, while it runs.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    pub(crate) fn stderr(&self) -> String {
        self.stderr.borrow().clone()
    }

    /// Waits (bounded) until its stderr contains `text`.
    pub(crate) async fn said(&self, text: &str) {
        let mut stderr = self.stderr.clone();
        let found = tokio::time::timeout(BOUND, stderr.wait_for(|written| written.contains(text))).await;
        assert!(matches!(found, Ok(Ok(_))), "berth controller never said `{text}`; stderr:\n{}", self.stderr());
    }

    /// An HTTP GET on the metrics address: (status line, body).
    pub(crate) async fn get(&self, path: &str) -> (String, String) {
        let mut stream = tokio::net::TcpStream::connect(&self.metrics).await.expect("connect to the metrics address");
        stream.write_all(format!("GET {path} HTTP/1.1\r\nHost: test\r\n\r\n").as_bytes()).await.expect("request");
        let mut response = String::new();
        stream.read_to_string(&mut response).await.expect("response");
        let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
        (head.lines().next().unwrap_or_default().to_string(), body.to_string())
    }

    /// SIGTERM, then the exit status (bounded).
    pub(crate) async fn terminate(mut self) -> std::process::ExitStatus {
        let Some(mut child) = self.child.take() else { panic!("the controller was already stopped") };
        let pid = child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status().expect("kill runs");
        assert!(sent.success(), "SIGTERM sent");
        let waited = tokio::time::timeout(BOUND, tokio::task::spawn_blocking(move || child.wait())).await;
        match waited {
            Ok(Ok(Ok(status))) => status,
            _ => {
                let _ = Command::new("kill").args(["-KILL", &pid]).status();
                panic!("no exit within {BOUND:?} of SIGTERM; stderr:\n{}", self.stderr())
            }
        }
    }
}

impl Drop for ControllerProcess {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The simulated cluster, a client on it, the CRD applied from `berth controller crd` by real kubectl, and the
/// namespace `ns` with the test chart in ConfigMap `web-chart`.
pub(crate) async fn cluster_with_crd(ns: &str) -> (PeerCluster, kube::Client) {
    cluster_with_crd_on(ns, SimConfig::default(), &[("web-chart", web_chart("1.0.0"))]).await
}

/// As [`cluster_with_crd`], the simulated cluster configured by `config`, with `charts` (ConfigMap name, chart).
async fn cluster_with_crd_on(ns: &str, config: SimConfig, charts: &[(&str, Vec<u8>)]) -> (PeerCluster, kube::Client) {
    let peer = PeerCluster::start(config).await;
    let printed = run::berth(&["controller", "crd"], None);
    assert!(printed.status.success(), "berth controller crd: {}", run::stderr(&printed));
    let crd = peer.file("crd.yaml", &run::stdout(&printed));
    let applied = peer.ok("kubectl", &["apply", "-f", &crd]).await;
    assert_eq!(applied.trim(), "customresourcedefinition.apiextensions.k8s.io/releases.berth.dev created");
    peer.ok("kubectl", &["create", "namespace", ns]).await;
    let cluster = berth::cluster::connect_config(peer.cluster.kube_config()).await.expect("connects");
    let config_maps: Api<k8s_openapi::api::core::v1::ConfigMap> = Api::namespaced(cluster.client.clone(), ns);
    for (name, chart) in charts {
        let encoded = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, chart);
        let chart = json!({"metadata": {"name": name}, "binaryData": {"chart.tgz": encoded}});
        let chart = serde_json::from_value(chart).expect("a ConfigMap");
        config_maps.create(&PostParams::default(), &chart).await.expect("chart ConfigMap created");
    }
    (peer, cluster.client)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_controller_binary_releases_what_helm_and_berth_read() {
    let (peer, client) = cluster_with_crd("ledger").await;
    let extra = json!({"metadata": {"name": "extra"}, "data": {"values.yaml": "message: from-valuesFrom\n"}});
    let config_maps: Api<k8s_openapi::api::core::v1::ConfigMap> = Api::namespaced(client.clone(), "ledger");
    config_maps.create(&PostParams::default(), &serde_json::from_value(extra).expect("ConfigMap")).await.expect("made");
    // The contract's example, as a user writes it (no dependsOn: there is no `db` here).
    let release = peer.file(
        "release.yaml",
        "apiVersion: berth.dev/v1alpha1\nkind: Release\nmetadata: {name: ledger, namespace: ledger}\nspec:\n  chart:\n    \
         configMapRef: {name: web-chart, key: chart.tgz}\n  values: {readyAfter: 1s}\n  valuesFrom: [{kind: \
         ConfigMap, name: extra, key: values.yaml}]\n  releaseName: ledger\n  targetNamespace: ledger\n  timeout: \
         2m\n  waitForJobs: true\n  rollbackOnFailure: false\n  suspend: false\n",
    );
    let created = peer.ok("kubectl", &["apply", "-f", &release]).await;
    assert_eq!(created.trim(), "release.berth.dev/ledger created");

    let controller = ControllerProcess::start(&peer, "berth-test", &["--concurrency", "2"]).await;
    let (status, body) = controller.get("/healthz").await;
    assert_eq!((status.as_str(), body.as_str()), ("HTTP/1.1 200 OK", "ok\n"));
    let timeout = format!("--timeout={}s", BOUND.as_secs());
    let waited =
        peer.run("kubectl", &["wait", "release/ledger", "-n", "ledger", "--for=condition=Ready", &timeout]).await;
    assert!(
        waited.status.success(),
        "kubectl wait: {}\n{}",
        String::from_utf8_lossy(&waited.stderr),
        controller.stderr()
    );
    // berth's own wait judges the Release ready (kstatus: Ready=True at the observed generation).
    let kubeconfig = peer.kubeconfig().display().to_string();
    let berth_wait = run::berth(&["wait", "-f", &release, "--kubeconfig", &kubeconfig, "--timeout", "30s"], None);
    assert!(berth_wait.status.success(), "berth wait: {}", run::stderr(&berth_wait));

    // Recorded as `berth install` records it: real Helm and berth read the history.
    assert_eq!(peer.helm_history("ledger", "ledger").await, [(1, "deployed".to_string(), "Install complete".into())]);
    let history = run::berth(&["history", "ledger", "-n", "ledger", "-o", "json", "--kubeconfig", &kubeconfig], None);
    let entries = run::json_entries(&history);
    assert_eq!((entries.len(), entries[0]["status"].as_str()), (1, Some("deployed")), "{entries:?}");
    let values = peer.ok("helm", &["get", "values", "ledger", "-n", "ledger", "-o", "json"]).await;
    let values: Value = serde_json::from_str(&values).expect("values JSON");
    assert_eq!(values, json!({"message": "from-valuesFrom", "readyAfter": "1s"}));

    // Metrics and readiness over HTTP; Events on the Release.
    let (status, metrics) = controller.get("/metrics").await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(metrics.contains("\nberth_controller_reconciles_total{result=\"succeeded\"} 1\n"), "{metrics}");
    assert!(metrics.contains("\nberth_controller_releases 1\n"), "{metrics}");
    assert_eq!(controller.get("/readyz").await.0, "HTTP/1.1 200 OK");
    let events = peer.ok("kubectl", &["get", "events.events.k8s.io", "-n", "ledger", "-o", "json"]).await;
    let events: Value = serde_json::from_str(&events).expect("events JSON");
    let on_release: Vec<(&str, &str)> = events["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|event| event["regarding"]["kind"] == "Release" && event["regarding"]["name"] == "ledger")
        .map(|event| {
            (event["reason"].as_str().unwrap_or_default(), event["reportingController"].as_str().unwrap_or_default())
        })
        .collect();
    assert!(on_release.contains(&("InstallSucceeded", "berth-controller")), "{on_release:?}");

    let exit = controller.terminate().await;
    assert_eq!(exit.code(), Some(0), "a clean stop on SIGTERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_controller_binary_lets_the_apply_in_flight_finish_when_a_new_generation_arrives() {
    use crate::controller_supersede::{bulk_chart, bulk_writes, generation_written, revision_written};
    // 10 ms per request: revision 1's 300 ConfigMaps take ~200 ms to apply.
    let faults = berth_sim::profile::Faults { latency: Duration::from_millis(10), ..Default::default() };
    let profile = berth_sim::profile::Profile { faults, ..Default::default() };
    let config = SimConfig { profile, ..SimConfig::default() };
    let (peer, client) = cluster_with_crd_on("shop", config, &[("bulk-chart", bulk_chart())]).await;
    let controller = ControllerProcess::start(&peer, "berth-test", &[]).await;
    let releases: Api<kube::api::DynamicObject> = Api::namespaced_with(client.clone(), "shop", &release_resource());
    let release = json!({
        "apiVersion": "berth.dev/v1alpha1", "kind": "Release", "metadata": {"name": "bulk", "namespace": "shop"},
        "spec": {"chart": {"configMapRef": {"name": "bulk-chart"}}, "timeout": "2m",
                 "values": {"count": 300, "message": "one", "readyAfter": "1h"}},
    });
    releases.create(&PostParams::default(), &serde_json::from_value(release).expect("Release")).await.expect("made");
    // The first of revision 1's ConfigMaps is there: its applies are under way. Generation 2 arrives now.
    let config_maps: Api<k8s_openapi::api::core::v1::ConfigMap> = Api::namespaced(client.clone(), "shop");
    let mut stream = watcher::watcher(config_maps, watcher::Config::default().labels("bulk=true")).boxed();
    let first = tokio::time::timeout(BOUND, async {
        while let Some(event) = stream.next().await {
            if let Ok(watcher::Event::Apply(_) | watcher::Event::InitApply(_)) = event {
                return true;
            }
        }
        false
    });
    assert!(first.await.unwrap_or(false), "revision 1 never applied; controller:\n{}", controller.stderr());
    drop(stream);
    let patch = peer.file("patch.json", r#"{"spec": {"values": {"message": "two", "readyAfter": "0s"}}}"#);
    peer.ok("kubectl", &["patch", "release", "bulk", "-n", "shop", "--type=merge", "--patch-file", &patch]).await;
    let ready = release_where(&client, "shop", "bulk", "Ready at generation 2", |object| {
        crate::controller_support::is_ready(object) && object["status"]["currentRevision"] == 2
    })
    .await;
    // Real Helm reads revision 1 superseded and revision 2 deployed: the upgrade continued the failed revision
    // (no deployed one before it), which Helm's upgrade marks superseded.
    let history = peer.helm_history("bulk", "shop").await;
    let statuses: Vec<(u64, &str)> = history.iter().map(|(revision, status, _)| (*revision, status.as_str())).collect();
    assert_eq!(statuses, [(1, "superseded"), (2, "deployed")], "{history:?}");
    let record = peer.cluster.record();
    let (patched, second) = (generation_written(&record, "bulk", 2), revision_written(&record, "bulk", 2));
    let first = bulk_writes(&record, "one");
    let mut names: Vec<&str> = first.iter().map(|(name, _)| name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 300, "every object of revision 1 was written");
    assert!(first.iter().all(|(_, at)| *at < second), "all before revision 2 started");
    assert!(first.iter().any(|(_, at)| *at > patched), "generation 2 arrived while revision 1 was being applied");
    let attempts = ready["status"]["history"].as_array().expect("status history");
    assert_eq!(attempts[1]["outcome"], "Superseded", "{attempts:#?}");
    let exit = controller.terminate().await;
    assert_eq!(exit.code(), Some(0));
}

/// The example tenant of docs/controller.md, as the page writes it (the YAML block after its marker).
fn documented_tenant() -> String {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/controller.md")).expect("the page");
    let (_, after) = page.split_once("<!-- example tenant -->\n```yaml\n").expect("the example's marker");
    after.split_once("```").expect("the block's end").0.to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_controller_runs_with_its_least_privilege_role_and_releases_as_the_tenant() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let root = env!("CARGO_MANIFEST_DIR");
    let printed = run::berth(&["controller", "crd"], None);
    let crd = peer.file("crd.yaml", &run::stdout(&printed));
    peer.ok("kubectl", &["apply", "-f", &crd]).await;
    for file in ["namespace.yaml", "rbac.yaml"] {
        peer.ok("kubectl", &["apply", "-f", &format!("{root}/deploy/{file}")]).await;
    }
    let tenant = peer.file("tenant.yaml", &documented_tenant());
    peer.ok("kubectl", &["apply", "-f", &tenant]).await;
    let cluster = berth::cluster::connect_config(peer.cluster.kube_config()).await.expect("connects");
    let client = cluster.client.clone();
    let config_maps: Api<k8s_openapi::api::core::v1::ConfigMap> = Api::namespaced(client.clone(), "team-a");
    let encoded = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, web_chart("1.0.0"));
    let chart = json!({"metadata": {"name": "web-chart"}, "binaryData": {"chart.tgz": encoded}});
    config_maps.create(&PostParams::default(), &serde_json::from_value(chart).expect("ConfigMap")).await.expect("made");

    // What RBAC gives the controller's own ServiceAccount: its Releases and impersonation, no chart object.
    let controller_user = "system:serviceaccount:berth-system:berth-controller";
    for (verb, resource, namespace, answer) in [
        ("watch", "releases.berth.dev", "team-a", "yes"),
        ("patch", "releases.berth.dev/status", "team-a", "yes"),
        ("impersonate", "serviceaccounts", "team-a", "yes"),
        ("impersonate", "groups", "", "no"),
        ("impersonate", "users", "", "no"),
        ("create", "deployments.apps", "team-a", "no"),
        ("list", "secrets", "team-a", "no"),
        ("create", "clusterrolebindings.rbac.authorization.k8s.io", "", "no"),
    ] {
        let mut args = vec!["auth", "can-i", verb, resource, "--as", controller_user];
        if !namespace.is_empty() {
            args.extend(["-n", namespace]);
        }
        let output = peer.run("kubectl", &args).await;
        let said = String::from_utf8_lossy(&output.stdout).trim().to_string();
        assert_eq!(said, answer, "can the controller {verb} {resource} in {namespace:?}?");
    }

    let identity =
        berth_sim::Identity::ServiceAccount { namespace: "berth-system".into(), name: "berth-controller".into() };
    let kubeconfig = peer.dir.path().join("controller.kubeconfig");
    peer.cluster.write_kubeconfig_for(&kubeconfig, &identity).expect("kubeconfig");
    let controller = ControllerProcess::start_as(&kubeconfig, "berth-test", &[]).await;
    let ready = release_where(&client, "team-a", "web", "Ready", crate::controller_support::is_ready).await;
    assert_eq!(ready["status"]["currentRevision"], 1);
    let history = peer.helm_history("web", "team-a").await;
    assert_eq!((history.len(), history[0].1.as_str()), (1, "deployed"), "{history:?}");

    // A Release naming no ServiceAccount acts as the controller, which may not even read the release.
    let bare = json!({
        "apiVersion": "berth.dev/v1alpha1", "kind": "Release", "metadata": {"name": "bare", "namespace": "team-a"},
        "spec": {"chart": {"configMapRef": {"name": "web-chart"}}},
    });
    let releases: Api<kube::api::DynamicObject> = Api::namespaced_with(client.clone(), "team-a", &release_resource());
    releases.create(&PostParams::default(), &serde_json::from_value(bare).expect("Release")).await.expect("made");
    let refused = release_where(&client, "team-a", "bare", "refused", |object| {
        condition(object, "Ready").is_some_and(|(status, _, _)| status == "False")
    })
    .await;
    let (_, _, message) = condition(&refused, "Ready").expect("Ready");
    assert!(
        message.contains(&format!("is forbidden: User \"{controller_user}\" cannot"))
            && message.contains("(Forbidden, 403)"),
        "{message}"
    );
    let exit = controller.terminate().await;
    assert_eq!(exit.code(), Some(0));
}

/// The holder of the controller's Lease, once it is `wanted` (watched, bounded); returns when it was seen.
async fn lease_held_by(client: &kube::Client, wanted: &str) -> Instant {
    let leases: Api<k8s_openapi::api::coordination::v1::Lease> = Api::namespaced(client.clone(), "default");
    let config = watcher::Config::default().fields("metadata.name=berth-controller");
    let mut stream = watcher::watcher(leases, config).boxed();
    let found = tokio::time::timeout(BOUND, async {
        while let Some(event) = stream.next().await {
            if let Ok(watcher::Event::Apply(lease) | watcher::Event::InitApply(lease)) = event
                && lease.spec.and_then(|spec| spec.holder_identity).is_some_and(|holder| holder.starts_with(wanted))
            {
                return Some(Instant::now());
            }
        }
        None
    })
    .await;
    found.ok().flatten().unwrap_or_else(|| panic!("the Lease never held by {wanted} within {BOUND:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_standby_takes_over_from_a_dead_leader_and_leaves_nothing_pending() {
    let (peer, client) = cluster_with_crd("shop").await;
    let lease_duration = Duration::from_secs(3);
    let args = ["--leader-elect", "--lease-duration", "3s", "--lease-namespace", "default"];
    let leader = ControllerProcess::start(&peer, "berth-a", &args).await;
    lease_held_by(&client, "berth-a_").await;
    let standby = ControllerProcess::start(&peer, "berth-b", &args).await;
    // A standby serves (healthy and ready) but does not reconcile.
    standby.said("standing by").await;
    assert_eq!(standby.get("/readyz").await.0, "HTTP/1.1 200 OK");
    assert!(standby.get("/metrics").await.1.contains("\nberth_controller_leader 0\n"));

    let releases: Api<kube::api::DynamicObject> = Api::namespaced_with(client.clone(), "shop", &release_resource());
    let release = json!({
        "apiVersion": "berth.dev/v1alpha1", "kind": "Release", "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"chart": {"configMapRef": {"name": "web-chart"}}, "values": {"readyAfter": "4s"}, "timeout": "2m"},
    });
    releases.create(&PostParams::default(), &serde_json::from_value(release).expect("Release")).await.expect("made");
    // The leader is waiting on revision 1 (pending-install) when it dies: no chance to record anything.
    revision_recorded(&client, "shop", "web", "pending-install").await;
    drop(leader);
    let killed_at = Instant::now();
    let took_over = lease_held_by(&client, "berth-b_").await.duration_since(killed_at);
    eprintln!("the standby took over {took_over:?} after the leader was killed");
    // The Lease expires at most `lease_duration` after its last renewal; kube-lease-manager then waits up to
    // one second before taking an expired Lease (to spread competing replicas).
    assert!(took_over < lease_duration + Duration::from_secs(2), "took over {took_over:?} after the kill");

    let api = releases.clone();
    let ready = tokio::time::timeout(BOUND, async move {
        let config = watcher::Config::default().fields("metadata.name=web");
        let mut stream = watcher::watcher(api, config).boxed();
        while let Some(event) = stream.next().await {
            if let Ok(watcher::Event::Apply(object) | watcher::Event::InitApply(object)) = event {
                let object = serde_json::to_value(object).expect("JSON");
                if crate::controller_support::is_ready(&object) {
                    return Some(object);
                }
            }
        }
        None
    })
    .await;
    let ready = ready.ok().flatten().unwrap_or_else(|| panic!("never Ready; standby:\n{}", standby.stderr()));
    assert_eq!(ready["status"]["currentRevision"], 2, "{ready:#}");
    assert_eq!(condition(&ready, "Ready").map(|c| c.1).as_deref(), Some("UpgradeSucceeded"));
    let history = peer.helm_history("web", "shop").await;
    assert_eq!(
        history.iter().map(|(revision, status, _)| (*revision, status.as_str())).collect::<Vec<_>>(),
        [(1, "superseded"), (2, "deployed")],
        "the interrupted revision, marked failed, is superseded by the upgrade that continued it (as Helm's)"
    );
    assert!(history[0].2.ends_with("interrupted, marked failed by berth controller"), "{history:?}");
    assert!(standby.get("/metrics").await.1.contains("\nberth_controller_leader 1\n"));
    let exit = standby.terminate().await;
    assert_eq!(exit.code(), Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deploy_applies_to_the_simulated_cluster_and_its_crd_is_the_printed_one() {
    let root = env!("CARGO_MANIFEST_DIR");
    let printed = run::berth(&["controller", "crd"], None);
    let committed = std::fs::read_to_string(format!("{root}/deploy/crd.yaml")).expect("deploy/crd.yaml");
    assert_eq!(run::stdout(&printed), committed, "regenerate with `berth controller crd > deploy/crd.yaml`");
    let applied = run::berth(&["apply", "--sim", "-f", &format!("{root}/deploy"), "--wait", "--timeout", "60s"], None);
    let (out, err) = (run::stdout(&applied), run::stderr(&applied));
    assert!(applied.status.success(), "berth apply --sim -f deploy/ --wait:\n{out}\n{err}");
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(rows.len(), 9, "namespace, CRD, 5 RBAC objects, Deployment and Service:\n{out}");
    assert!(rows.iter().all(|row| row.contains("Current")), "{out}");
    for kind in ["CustomResourceDefinition", "ClusterRole", "Deployment", "Service"] {
        assert!(rows.iter().any(|row| row.contains(kind)), "{kind} applied:\n{out}");
    }
    assert!(err.contains("ready: 9/9 objects"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_crd_the_controller_says_how_to_install_it() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let kubeconfig = peer.kubeconfig().display().to_string();
    let output = tokio::task::spawn_blocking(move || run::berth(&["controller", "--kubeconfig", &kubeconfig], None))
        .await
        .expect("joined");
    assert_eq!(output.status.code(), Some(2), "bad input: {}", run::stderr(&output));
    let stderr = run::stderr(&output);
    assert!(
        stderr.contains("the cluster does not serve `releases.berth.dev/v1alpha1`")
            && stderr.contains("berth controller crd | kubectl apply -f -"),
        "{stderr}"
    );
    let usage = run::berth(&["controller", "--concurrency", "0"], None);
    assert_eq!(usage.status.code(), Some(2), "{}", run::stderr(&usage));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_controller_binary_installs_a_chart_from_a_repository_behind_basic_auth_that_helm_reads() {
    use crate::sources_support::{FileServer, PASSWORD, TAG, USER};
    let (peer, _client) = cluster_with_crd("charts").await;
    let repository = peer.dir.path().join("repository");
    std::fs::create_dir_all(&repository).expect("repository directory");
    let repository_text = repository.display().to_string();
    for version in ["1.4.0", "1.4.2", "1.5.0"] {
        peer.ok("helm", &["package", TAG, "--version", version, "-d", &repository_text]).await;
    }
    peer.ok("helm", &["repo", "index", &repository_text]).await;
    let server = FileServer::start_with_auth(&repository, Some((USER, PASSWORD)));
    let credentials = [format!("--from-literal=username={USER}"), format!("--from-literal=password={PASSWORD}")];
    peer.ok("kubectl", &["create", "secret", "generic", "creds", "-n", "charts", &credentials[0], &credentials[1]])
        .await;
    let release = peer.file(
        "release.yaml",
        &format!(
            "apiVersion: berth.dev/v1alpha1\nkind: Release\nmetadata: {{name: tagged, namespace: charts}}\nspec:\n  \
             chart: {{repository: \"{}\", name: tag, version: \"~1.4\", secretRef: {{name: creds}}}}\n  values: \
             {{colour: amber}}\n",
            server.url
        ),
    );
    peer.ok("kubectl", &["apply", "-f", &release]).await;
    let controller = ControllerProcess::start(&peer, "berth-test", &[]).await;
    let timeout = format!("--timeout={}s", BOUND.as_secs());
    let waited =
        peer.run("kubectl", &["wait", "release/tagged", "-n", "charts", "--for=condition=Ready", &timeout]).await;
    assert!(
        waited.status.success(),
        "kubectl wait: {}\n{}",
        String::from_utf8_lossy(&waited.stderr),
        controller.stderr()
    );

    // Real Helm reads the release: the newest ~1.4 from the repository, the Release's values.
    let listed: Value =
        serde_json::from_str(&peer.ok("helm", &["list", "-n", "charts", "-o", "json"]).await).expect("helm list JSON");
    assert_eq!((listed[0]["name"].as_str(), listed[0]["chart"].as_str()), (Some("tagged"), Some("tag-1.4.2")));
    let values = peer.ok("helm", &["get", "values", "tagged", "-n", "charts", "-o", "json"]).await;
    assert_eq!(serde_json::from_str::<Value>(&values).expect("values JSON"), json!({"colour": "amber"}));
    assert!(!controller.stderr().contains(PASSWORD), "the password is never logged");
    let exit = controller.terminate().await;
    assert_eq!(exit.code(), Some(0), "a clean stop on SIGTERM");
}
