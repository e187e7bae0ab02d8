//! Real kubectl v1.35 against the simulated cluster: the checks that the simulation behaves like a real API
//! server come from an independent client, not from berth's own.

use crate::peers::PeerCluster;
use berth_sim::SimConfig;
use serde_json::Value;

const CONFIG_MAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\ndata:\n  a: \"1\"\n";

const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports: [{containerPort: 80}]
        env: [{name: MODE, value: one}]
";

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
";

const WIDGET: &str = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  size: 3\n";

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|error| panic!("kubectl printed JSON ({error}): {text}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_side_apply_with_validation_creates_then_patches() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let file = peer.file("cm.yaml", CONFIG_MAP);
    assert_eq!(peer.ok("kubectl", &["apply", "-f", &file]).await.trim(), "configmap/demo created");
    assert_eq!(peer.ok("kubectl", &["apply", "-f", &file]).await.trim(), "configmap/demo unchanged");
    let changed = peer.file("cm.yaml", &CONFIG_MAP.replace("\"1\"", "\"2\""));
    assert_eq!(peer.ok("kubectl", &["apply", "-f", &changed]).await.trim(), "configmap/demo configured");
    let object = json(&peer.ok("kubectl", &["get", "configmap", "demo", "-o", "json"]).await);
    assert_eq!(object["data"]["a"], "2");
    assert!(object["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"].is_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_side_apply_reports_conflicts_with_the_owning_manager() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let file = peer.file("cm.yaml", CONFIG_MAP);
    peer.ok("kubectl", &["apply", "-f", &file]).await;
    let changed = peer.file("cm2.yaml", &CONFIG_MAP.replace("\"1\"", "\"3\""));
    let conflict = peer.run("kubectl", &["apply", "--server-side", "--field-manager", "other", "-f", &changed]).await;
    let stderr = String::from_utf8_lossy(&conflict.stderr);
    assert!(!conflict.status.success(), "a conflicting server-side apply fails");
    assert!(stderr.contains("conflict") && stderr.contains("kubectl-client-side-apply"), "stderr: {stderr}");
    let forced = peer
        .ok("kubectl", &["apply", "--server-side", "--field-manager", "other", "--force-conflicts", "-f", &changed])
        .await;
    assert_eq!(forced.trim(), "configmap/demo serverside-applied");
    let object = json(&peer.ok("kubectl", &["get", "configmap", "demo", "-o", "json"]).await);
    assert_eq!(object["data"]["a"], "3");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deployment_rolls_out_and_kubectl_waits_for_it() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let file = peer.file("web.yaml", DEPLOYMENT);
    assert_eq!(
        peer.ok("kubectl", &["apply", "--server-side", "-f", &file]).await.trim(),
        "deployment.apps/web serverside-applied"
    );
    let waited = peer.ok("kubectl", &["wait", "--for=condition=Available", "deployment/web", "--timeout=30s"]).await;
    assert_eq!(waited.trim(), "deployment.apps/web condition met");
    let rolled = peer.ok("kubectl", &["rollout", "status", "deployment/web", "--timeout=30s"]).await;
    assert!(rolled.contains("successfully rolled out"), "{rolled}");
    let changed = peer.file("web2.yaml", &DEPLOYMENT.replace("value: one", "value: two"));
    assert_eq!(peer.ok("kubectl", &["apply", "-f", &changed]).await.trim(), "deployment.apps/web configured");
    let rolled = peer.ok("kubectl", &["rollout", "status", "deployment/web", "--timeout=30s"]).await;
    assert!(rolled.contains("successfully rolled out"), "{rolled}");
    let object = json(&peer.ok("kubectl", &["get", "deployment", "web", "-o", "json"]).await);
    assert_eq!(object["metadata"]["generation"], 2);
    assert_eq!(object["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"], "two");
    let pods = json(&peer.ok("kubectl", &["get", "pods", "-l", "app=web", "-o", "json"]).await);
    assert_eq!(pods["items"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        peer.ok("kubectl", &["delete", "-f", &file, "--wait=true"]).await.trim(),
        "deployment.apps \"web\" deleted from default namespace"
    );
    let remaining = json(&peer.ok("kubectl", &["get", "pods,replicasets", "-o", "json"]).await);
    assert_eq!(remaining["items"], Value::Array(Vec::new()), "garbage collection removed the replica sets and pods");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crd_then_its_custom_resource() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let crd = peer.file("crd.yaml", CRD);
    peer.ok("kubectl", &["apply", "-f", &crd]).await;
    let established =
        peer.ok("kubectl", &["wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=10s"]).await;
    assert_eq!(established.trim(), "customresourcedefinition.apiextensions.k8s.io/widgets.example.com condition met");
    let widget = peer.file("widget.yaml", WIDGET);
    assert_eq!(peer.ok("kubectl", &["apply", "-f", &widget]).await.trim(), "widget.example.com/w1 created");
    let bigger = peer.file("widget2.yaml", &WIDGET.replace("size: 3", "size: 4"));
    assert_eq!(peer.ok("kubectl", &["apply", "-f", &bigger]).await.trim(), "widget.example.com/w1 configured");
    let object = json(&peer.ok("kubectl", &["get", "wd", "w1", "-o", "json"]).await);
    assert_eq!((object["spec"]["size"].clone(), object["metadata"]["generation"].clone()), (4.into(), 2.into()));
    assert_eq!(
        peer.ok("kubectl", &["delete", "-f", &widget]).await.trim(),
        "widget.example.com \"w1\" deleted from default namespace"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_kinds_and_bad_input_get_real_errors() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let unknown = peer.file("gadget.yaml", "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n");
    let refused = peer.run("kubectl", &["apply", "-f", &unknown]).await;
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("no matches for kind \"Gadget\""));
    let missing = peer.run("kubectl", &["get", "configmap", "nothing"]).await;
    assert_eq!(
        String::from_utf8_lossy(&missing.stderr).trim(),
        "Error from server (NotFound): configmaps \"nothing\" not found"
    );
    let bad_name = peer.file("bad.yaml", &CONFIG_MAP.replace("name: demo", "name: Demo_1"));
    let invalid = peer.run("kubectl", &["apply", "-f", &bad_name]).await;
    assert!(
        String::from_utf8_lossy(&invalid.stderr).contains("is invalid"),
        "{}",
        String::from_utf8_lossy(&invalid.stderr)
    );
}

const STATEFUL_AND_DAEMON: &str = "apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  replicas: 2
  serviceName: db
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers: [{name: db, image: postgres:17}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers: [{name: agent, image: agent:1}]
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateful_sets_and_daemon_sets_roll_out_with_server_defaults() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let file = peer.file("workloads.yaml", STATEFUL_AND_DAEMON);
    peer.ok("kubectl", &["apply", "-f", &file]).await;
    for workload in ["statefulset/db", "daemonset/agent"] {
        let rolled = peer.ok("kubectl", &["rollout", "status", workload, "--timeout=30s"]).await;
        assert!(rolled.contains("roll") && !rolled.contains("error"), "{workload}: {rolled}");
    }
    let stateful_set = json(&peer.ok("kubectl", &["get", "statefulset", "db", "-o", "json"]).await);
    assert_eq!(stateful_set["spec"]["updateStrategy"]["type"], "RollingUpdate");
    assert_eq!(stateful_set["status"]["readyReplicas"], 2);
}
