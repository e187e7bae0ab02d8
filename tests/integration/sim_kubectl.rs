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

/// Creates `count` ConfigMaps named `cm-0000`... over HTTP with kube-rs, a few at a time.
async fn many_config_maps(peer: &PeerCluster, count: usize) {
    use futures::StreamExt;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::{Api, PostParams};
    let client = kube::Client::try_from(peer.cluster.kube_config()).expect("client");
    let api: Api<ConfigMap> = Api::namespaced(client, "default");
    let failures = futures::stream::iter(0..count)
        .map(|index| {
            let api = api.clone();
            async move {
                let config_map: ConfigMap =
                    serde_json::from_value(serde_json::json!({"metadata": {"name": format!("cm-{index:04}")}}))
                        .expect("config map");
                api.create(&PostParams::default(), &config_map).await.is_err()
            }
        })
        .buffer_unordered(16)
        .filter(|failed| futures::future::ready(*failed))
        .count()
        .await;
    assert_eq!(failures, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_gets_every_page_of_a_long_list() {
    let peer = PeerCluster::start(SimConfig { keep_record: false, ..SimConfig::default() }).await;
    many_config_maps(&peer, 1203).await;
    // `kubectl get` asks for Tables 500 at a time and follows `continue`.
    let table = peer.ok("kubectl", &["get", "configmaps", "--no-headers"]).await;
    assert_eq!(
        table.lines().count(),
        1203,
        "every row, not the first page: {}",
        table.lines().last().unwrap_or_default()
    );
    assert!(table.lines().last().is_some_and(|line| line.starts_with("cm-1202 ")), "in name order");
    let names = peer.ok("kubectl", &["get", "configmaps", "-o", "name", "--chunk-size", "100"]).await;
    assert_eq!(names.lines().count(), 1203);
    let listed = json(&peer.ok("kubectl", &["get", "configmaps", "-o", "json", "--chunk-size", "250"]).await);
    assert_eq!(listed["items"].as_array().map(Vec::len), Some(1203));
}

const PRINTED_CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Mode, type: string, jsonPath: .spec.mode}
    - {name: Owner, type: string, jsonPath: '.spec.owners[?(@.primary==true)].name', priority: 1}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, minimum: 1, maximum: 10}
              mode: {type: string, enum: [fast, safe], default: safe}
              owners:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string, maxLength: 8}
                    primary: {type: boolean}
          status: {type: object, x-kubernetes-preserve-unknown-fields: true}
";

const GADGET: &str = "apiVersion: example.com/v1
kind: Gadget
metadata:
  name: g1
spec:
  size: 3
  owners: [{name: ana, primary: false}, {name: bo, primary: true}]
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_prints_a_custom_resources_printer_columns() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    peer.ok("kubectl", &["apply", "-f", &peer.file("crd.yaml", PRINTED_CRD)]).await;
    peer.ok("kubectl", &["apply", "-f", &peer.file("gadget.yaml", GADGET)]).await;
    let table = peer.ok("kubectl", &["get", "gadgets"]).await;
    let lines: Vec<Vec<&str>> = table.lines().map(|line| line.split_whitespace().collect()).collect();
    assert_eq!(lines[0], ["NAME", "SIZE", "MODE", "AGE"], "{table}");
    assert_eq!(lines[1][..3], ["g1", "3", "safe"], "the mode is defaulted by the schema: {table}");
    let wide = peer.ok("kubectl", &["get", "gadgets", "-o", "wide"]).await;
    let header: Vec<&str> = wide.lines().next().unwrap_or_default().split_whitespace().collect();
    assert_eq!(header, ["NAME", "SIZE", "MODE", "OWNER", "AGE"], "priority 1 columns with -o wide: {wide}");
    let row: Vec<&str> = wide.lines().nth(1).unwrap_or_default().split_whitespace().collect();
    assert_eq!(row.get(3), Some(&"bo"), "the filter picks the primary owner: {wide}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_meets_a_custom_resources_schema_as_on_a_real_server() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    peer.ok("kubectl", &["apply", "-f", &peer.file("crd.yaml", PRINTED_CRD)]).await;
    // kubectl validates strictly on the server by default: an unknown field is refused, naming it.
    let unknown = peer.file("unknown.yaml", &GADGET.replace("  size: 3\n", "  size: 3\n  color: red\n"));
    let refused = peer.run("kubectl", &["apply", "-f", &unknown]).await;
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        stderr.contains(
            r#"Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "spec.color""#
        ),
        "{stderr}"
    );
    // Without validation the server prunes it and warns of nothing.
    let pruned = peer.run("kubectl", &["apply", "--validate=false", "-f", &unknown]).await;
    assert!(pruned.status.success(), "{}", String::from_utf8_lossy(&pruned.stderr));
    let stored = json(&peer.ok("kubectl", &["get", "gadget", "g1", "-o", "json"]).await);
    assert!(stored["spec"].get("color").is_none(), "pruned: {stored}");
    assert_eq!(stored["spec"]["mode"], "safe");
    // Values the schema does not allow are refused with the apiserver's field errors.
    let invalid = peer.file(
        "invalid.yaml",
        &GADGET
            .replace("name: g1", "name: g2")
            .replace("  size: 3\n", "  size: 11\n  mode: slow\n")
            .replace("name: ana", "name: anastasia"),
    );
    let refused = peer.run("kubectl", &["apply", "-f", &invalid]).await;
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    for expected in [
        r#"spec.mode: Unsupported value: "slow": supported values: "fast", "safe""#,
        "spec.owners[0].name: Too long: may not be more than 8 bytes",
        "spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10",
    ] {
        assert!(stderr.contains(expected), "{expected}\n{stderr}");
    }
    // A server-side apply naming a field the schema has not fails in the field manager, whatever validation.
    let applied = peer.run("kubectl", &["apply", "--server-side", "--validate=false", "-f", &unknown]).await;
    let stderr = String::from_utf8_lossy(&applied.stderr);
    assert!(!applied.status.success());
    assert!(stderr.contains("failed to create typed patch object (default/g1; example.com/v1, Kind=Gadget): .spec.color: field not declared in schema"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_scale_owns_the_replicas_so_another_managers_apply_conflicts() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let file = peer.file("web.yaml", DEPLOYMENT);
    peer.ok("kubectl", &["apply", "--server-side", "--field-manager", "helm", "-f", &file]).await;
    assert_eq!(
        peer.ok("kubectl", &["scale", "deployment", "web", "--replicas=5"]).await.trim(),
        "deployment.apps/web scaled"
    );
    let scaled = json(&peer.ok("kubectl", &["get", "deployment", "web", "-o", "json", "--show-managed-fields"]).await);
    assert_eq!(scaled["spec"]["replicas"], 5);
    let entries = scaled["metadata"]["managedFields"].as_array().cloned().unwrap_or_default();
    let scale = entries.iter().find(|entry| entry["subresource"] == "scale").cloned().unwrap_or_default();
    assert_eq!(
        (scale["manager"].clone(), scale["operation"].clone(), scale["apiVersion"].clone(), scale["fieldsV1"].clone()),
        ("kubectl".into(), "Update".into(), "apps/v1".into(), serde_json::json!({"f:spec": {"f:replicas": {}}})),
        "kubectl scale names no field manager: the server takes its user agent's program name: {entries:?}"
    );
    // The chart's manager applies its replicas again: the scale owns them now.
    let conflict = peer.run("kubectl", &["apply", "--server-side", "--field-manager", "helm", "-f", &file]).await;
    let stderr = String::from_utf8_lossy(&conflict.stderr);
    assert!(!conflict.status.success());
    assert!(
        stderr.contains(r#"Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas"#),
        "{stderr}"
    );
}
