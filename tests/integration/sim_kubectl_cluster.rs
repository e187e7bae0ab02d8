//! Real kubectl v1.35 against what the simulated cluster adds to plain storage: pod logs, Events (core and
//! `events.k8s.io`), Leases with optimistic concurrency, PriorityClasses and the Priority admission plugin,
//! and the kinds public charts send (APIService, flowcontrol, CSIDriver, CertificateSigningRequest, ...).

use crate::peers::PeerCluster;
use berth_sim::SimConfig;
use k8s_openapi::api::coordination::v1::Lease;
use kube::Client;
use kube::api::{Api, PostParams};
use serde_json::{Value, json};

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|error| panic!("kubectl printed JSON ({error}): {text}"))
}

const APP: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - {name: web, image: nginx:1.27}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    sim.berth.dev/job-duration: 100ms
    sim.berth.dev/logs: |-
      applying migration 001
      applying migration 002
      done
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: migrate, image: example/migrate:1}
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_logs_reads_simulated_container_logs() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let file = peer.file("app.yaml", APP);
    peer.ok("kubectl", &["apply", "--server-side", "-f", &file]).await;
    peer.ok("kubectl", &["rollout", "status", "deployment/web", "--timeout=30s"]).await;
    peer.ok("kubectl", &["wait", "--for=condition=Complete", "job/migrate", "--timeout=30s"]).await;
    let web = peer.ok("kubectl", &["logs", "deployment/web"]).await;
    assert_eq!(web, "sim: container web started (image nginx:1.27)\nsim: container web is ready\n");
    let migrate = peer.ok("kubectl", &["logs", "job/migrate", "--tail=2"]).await;
    assert_eq!(migrate, "applying migration 002\ndone\n");
    let stamped = peer.ok("kubectl", &["logs", "job/migrate", "--timestamps", "--tail=1"]).await;
    assert!(stamped.ends_with("Z done\n") && stamped.starts_with("20"), "{stamped}");
    let previous = peer.run("kubectl", &["logs", "deployment/web", "--previous"]).await;
    let stderr = String::from_utf8_lossy(&previous.stderr);
    assert!(!previous.status.success());
    assert!(stderr.contains("previous terminated container \"web\" in pod \"web-"), "{stderr}");
    let pods = json(&peer.ok("kubectl", &["get", "pods", "-l", "job-name=migrate", "-o", "json"]).await);
    let pod = pods["items"][0]["metadata"]["name"].as_str().unwrap_or_default().to_string();
    let listed = peer.ok("kubectl", &["get", "pod", &pod, "--no-headers"]).await;
    assert!(listed.split_whitespace().nth(2) == Some("Completed"), "a finished Job pod reads Completed: {listed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_get_events_shows_what_the_controllers_did() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let file = peer.file("app.yaml", APP);
    peer.ok("kubectl", &["apply", "--server-side", "-f", &file]).await;
    peer.ok("kubectl", &["rollout", "status", "deployment/web", "--timeout=30s"]).await;
    peer.ok("kubectl", &["wait", "--for=condition=Complete", "job/migrate", "--timeout=30s"]).await;
    let events = json(&peer.ok("kubectl", &["get", "events", "-o", "json"]).await);
    let reasons: Vec<&str> =
        events["items"].as_array().into_iter().flatten().filter_map(|e| e["reason"].as_str()).collect();
    for reason in ["ScalingReplicaSet", "SuccessfulCreate", "Scheduled", "Pulled", "Created", "Started", "Completed"] {
        assert!(reasons.contains(&reason), "{reason} recorded: {reasons:?}");
    }
    let table = peer.ok("kubectl", &["get", "events", "--field-selector", "reason=ScalingReplicaSet"]).await;
    let mut lines = table.lines();
    assert_eq!(
        lines.next().map(|header| header.split_whitespace().collect::<Vec<_>>()),
        Some(vec!["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"])
    );
    let row = lines.next().unwrap_or_default();
    assert!(
        row.contains("Normal") && row.contains("deployment/web") && row.contains("Scaled up replica set web-"),
        "{row}"
    );
    let v1 = json(&peer.ok("kubectl", &["get", "events.v1.events.k8s.io", "-o", "json"]).await);
    let scaled = v1["items"].as_array().into_iter().flatten().find(|event| event["reason"] == "ScalingReplicaSet");
    let scaled = scaled.unwrap_or_else(|| panic!("events.k8s.io lists it: {v1}"));
    assert_eq!(scaled["regarding"]["kind"], "Deployment");
    assert!(scaled["note"].as_str().is_some_and(|note| note.starts_with("Scaled up")));
    let described = peer.ok("kubectl", &["describe", "deployment", "web"]).await;
    assert!(described.contains("ScalingReplicaSet"), "describe shows the events: {described}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leases_take_optimistic_concurrency_as_leader_election_needs() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let client = Client::try_from(peer.cluster.kube_config()).expect("client");
    let leases: Api<Lease> = Api::namespaced(client, "kube-system");
    let lease: Lease = serde_json::from_value(json!({"metadata": {"name": "berth-controller"},
        "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15, "renewTime": "2026-11-23T10:00:00.000000Z"}}))
    .expect("lease");
    let created = leases.create(&PostParams::default(), &lease).await.expect("created");
    let again = leases.create(&PostParams::default(), &lease).await;
    assert!(matches!(again, Err(kube::Error::Api(status)) if status.code == 409 && status.reason == "AlreadyExists"));
    let mut renewed = created.clone();
    renewed.spec.as_mut().expect("spec").holder_identity = Some("b".into());
    leases.replace("berth-controller", &PostParams::default(), &renewed).await.expect("renewed by b");
    let mut stale = created;
    stale.spec.as_mut().expect("spec").holder_identity = Some("c".into());
    let lost = leases.replace("berth-controller", &PostParams::default(), &stale).await;
    assert!(matches!(lost, Err(kube::Error::Api(status)) if status.code == 409 && status.reason == "Conflict"));
    let held = peer
        .ok(
            "kubectl",
            &["get", "lease", "-n", "kube-system", "berth-controller", "-o", "jsonpath={.spec.holderIdentity}"],
        )
        .await;
    assert_eq!(held, "b");
}

const PRIORITY: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: critical
spec:
  replicas: 1
  selector:
    matchLabels: {app: critical}
  template:
    metadata:
      labels: {app: critical}
    spec:
      priorityClassName: missing-class
      containers:
      - {name: c, image: busybox}
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_priority_class_is_refused_for_pods_not_for_the_deployment() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let classes = peer.ok("kubectl", &["get", "priorityclasses", "-o", "jsonpath={.items[*].metadata.name}"]).await;
    assert_eq!(classes, "system-cluster-critical system-node-critical");
    let file = peer.file("critical.yaml", PRIORITY);
    assert_eq!(peer.ok("kubectl", &["apply", "-f", &file]).await.trim(), "deployment.apps/critical created");
    let condition = peer
        .ok(
            "kubectl",
            &["wait", "deployment/critical", "--for=condition=ReplicaFailure", "--timeout=30s", "-o", "json"],
        )
        .await;
    let deployment = json(&condition);
    let failure =
        deployment["status"]["conditions"].as_array().into_iter().flatten().find(|c| c["type"] == "ReplicaFailure");
    let failure = failure.cloned().unwrap_or_default();
    assert_eq!(failure["reason"], "FailedCreate");
    let message = failure["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("pods \"critical-")
            && message.ends_with("-\" is forbidden: no PriorityClass with name missing-class was found"),
        "{message}"
    );
    let pods = peer.ok("kubectl", &["get", "pods", "-l", "app=critical", "-o", "jsonpath={.items}"]).await;
    assert_eq!(pods, "[]", "no pod was created");
    let events = peer
        .ok(
            "kubectl",
            &["get", "events", "--field-selector", "reason=FailedCreate", "-o", "jsonpath={.items[0].message}"],
        )
        .await;
    assert!(events.starts_with("Error creating: pods \"critical-"), "{events}");
    let class = peer.file(
        "class.yaml",
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: missing-class\nvalue: 1000\n",
    );
    peer.ok("kubectl", &["apply", "-f", &class]).await;
    peer.ok("kubectl", &["rollout", "status", "deployment/critical", "--timeout=90s"]).await;
    let priority =
        peer.ok("kubectl", &["get", "pods", "-l", "app=critical", "-o", "jsonpath={.items[0].spec.priority}"]).await;
    assert_eq!(priority, "1000");
}

const CHART_KINDS: &str = "apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1beta1.metrics.k8s.io
spec:
  group: metrics.k8s.io
  version: v1beta1
  groupPriorityMinimum: 100
  versionPriority: 100
  insecureSkipTLSVerify: true
  service: {name: metrics-server, namespace: kube-system, port: 443}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata:
  name: kyverno
spec:
  matchingPrecedence: 1000
  priorityLevelConfiguration: {name: workload-high}
  rules:
  - subjects: [{kind: ServiceAccount, serviceAccount: {name: kyverno, namespace: kyverno}}]
    resourceRules: [{apiGroups: ['*'], resources: ['*'], verbs: ['*'], clusterScope: true, namespaces: ['*']}]
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata:
  name: kyverno-level
spec:
  type: Limited
  limited: {nominalConcurrencyShares: 10, limitResponse: {type: Reject}}
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata:
  name: secrets-store.csi.k8s.io
spec:
  podInfoOnMount: true
  volumeLifecycleModes: [Ephemeral]
---
apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata:
  name: webhook.example
spec:
  request: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K
  signerName: kubernetes.io/kubelet-serving
  usages: [digital signature, key encipherment, server auth]
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: gvisor
handler: runsc
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: metrics-server:system:auth-delegator
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:auth-delegator}
subjects: [{kind: ServiceAccount, name: metrics-server, namespace: kube-system}]
---
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 3
  targetCPUUtilizationPercentage: 80
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kinds_public_charts_send_are_served() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let file = peer.file("kinds.yaml", CHART_KINDS);
    let applied = peer.ok("kubectl", &["apply", "--server-side", "-f", &file]).await;
    assert_eq!(applied.lines().count(), 8, "{applied}");
    let hpa = json(&peer.ok("kubectl", &["get", "hpa.v2.autoscaling", "web", "-o", "json"]).await);
    assert_eq!(hpa["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"], 80, "v1 is converted to v2");
    let names =
        peer.ok("kubectl", &["get", "apiservices,flowschemas,csidrivers,csr,runtimeclasses", "-o", "name"]).await;
    assert_eq!(names.lines().count(), 5, "{names}");
}
