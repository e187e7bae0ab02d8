//! A CRD's `x-kubernetes-validations` rules and list types hold on every way of writing a custom resource,
//! with kube-apiserver's words: real kubectl (create, `apply --server-side`, `patch`, `replace`, the status
//! subresource, a transition rule on update) prints the simulated cluster's refusals as it prints a real
//! server's, a CRD whose rule does not compile is refused, and berth's own apply reports the refusal.

use crate::peers::PeerCluster;
use crate::sim_harness::{config, fast, start_berth, start_kube};
use berth::apply::{self, ApplyRequest};
use berth::events::Emitter;
use berth::manifest;
use berth::status::Status;
use berth_sim::SimConfig;
use kube::api::{Api, DynamicObject, PostParams};
use kube::core::{ApiResource, GroupVersionKind};
use serde_json::{Value, json};
use std::process::Output;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Every berth call's outer bound: a hang fails the test instead of blocking the suite.
const BOUND: Duration = Duration::from_secs(60);

/// Widgets: a rule on the spec (with a message), a transition rule, a rule with a message expression, a
/// status rule, a `set` list and a `map` list.
fn crd() -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object",
                        "x-kubernetes-validations": [
                            {"rule": "self.replicas > 0", "message": "replicas must be positive"},
                            {"rule": "self.replicas >= oldSelf.replicas", "message": "replicas may not decrease"}],
                        "properties": {
                            "replicas": {"type": "integer"},
                            "mode": {"type": "string", "x-kubernetes-validations": [
                                {"rule": "self in ['fast', 'safe']",
                                 "messageExpression": "'mode ' + self + ' is neither fast nor safe'"}]},
                            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                            "ports": {"type": "array", "x-kubernetes-list-type": "map",
                                "x-kubernetes-list-map-keys": ["name"],
                                "items": {"type": "object", "required": ["name"], "properties": {
                                    "name": {"type": "string"}, "port": {"type": "integer"}}}}}},
                    "status": {"type": "object", "properties": {
                        "ready": {"type": "integer", "x-kubernetes-validations": [
                            {"rule": "self >= 0", "message": "ready may not be negative"}]}}}}}}}]}})
}

fn widget(name: &str, spec: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name, "namespace": "default"},
           "spec": spec})
}

fn stderr(output: &Output) -> String {
    assert!(!output.status.success(), "refused: {}", String::from_utf8_lossy(&output.stdout));
    String::from_utf8_lossy(&output.stderr).trim_end().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_prints_the_refusals_of_rules_and_list_types_as_against_a_real_server() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let file = |name: &str, value: &Value| peer.file(name, &value.to_string());
    peer.ok("kubectl", &["apply", "-f", &file("crd.json", &crd())]).await;
    let good = widget(
        "good",
        json!({"replicas": 2, "mode": "fast", "tags": ["a", "b"],
                                     "ports": [{"name": "http", "port": 80}]}),
    );
    peer.ok("kubectl", &["create", "-f", &file("good.json", &good)]).await;

    // Create: the list type's duplicate first, then the rules, the spec's before its fields'.
    let bad = widget("bad", json!({"replicas": 0, "mode": "slow", "tags": ["a", "b", "a"]}));
    let refused = peer.run("kubectl", &["create", "-f", &file("bad.json", &bad)]).await;
    assert_eq!(
        stderr(&refused),
        "The Widget \"bad\" is invalid: \n\
         * spec.tags[2]: Duplicate value: \"a\"\n\
         * spec: Invalid value: replicas must be positive\n\
         * spec.mode: Invalid value: \"slow\": mode slow is neither fast nor safe"
    );

    // Server-side apply of a change a rule refuses.
    let slow = widget(
        "good",
        json!({"replicas": 2, "mode": "slow", "tags": ["a", "b"],
                                     "ports": [{"name": "http", "port": 80}]}),
    );
    let refused =
        peer.run("kubectl", &["apply", "--server-side", "--force-conflicts", "-f", &file("slow.json", &slow)]).await;
    assert_eq!(
        stderr(&refused),
        "The Widget \"good\" is invalid: spec.mode: Invalid value: \"slow\": mode slow is neither fast nor safe"
    );

    // A patch: the transition rule compares with the stored object.
    let shrink = r#"{"spec": {"replicas": 1}}"#;
    let refused = peer.run("kubectl", &["patch", "widget", "good", "--type=merge", "-p", shrink]).await;
    assert_eq!(stderr(&refused), "The Widget \"good\" is invalid: spec: Invalid value: replicas may not decrease");
    let grow = r#"{"spec": {"replicas": 3}}"#;
    peer.ok("kubectl", &["patch", "widget", "good", "--type=merge", "-p", grow]).await;

    // A replace with a duplicate key in the map list.
    let stored: Value = serde_json::from_str(&peer.ok("kubectl", &["get", "widget", "good", "-o", "json"]).await)
        .expect("kubectl prints JSON");
    let mut doubled = stored.clone();
    doubled["spec"]["ports"] = json!([{"name": "http", "port": 80}, {"name": "http", "port": 8080}]);
    let refused = peer.run("kubectl", &["replace", "-f", &file("doubled.json", &doubled)]).await;
    assert_eq!(stderr(&refused), r#"The Widget "good" is invalid: spec.ports[1]: Duplicate value: {"name":"http"}"#);

    // A server-side apply with duplicates fails earlier, in the field manager's typed conversion.
    let duplicated = widget("dup", json!({"replicas": 1, "tags": ["a", "a"], "ports": [{"name": "x"}, {"name": "x"}]}));
    let refused = peer.run("kubectl", &["apply", "--server-side", "-f", &file("dup.json", &duplicated)]).await;
    assert_eq!(
        stderr(&refused),
        "Error from server: failed to create typed patch object (default/dup; example.com/v1, Kind=Widget): errors:\n  \
         .spec.ports: duplicate entries for key [name=\"x\"]\n  .spec.tags: duplicate entries for key [=\"a\"]"
    );

    // The status subresource: the status part's rules.
    let negative = r#"{"status": {"ready": -1}}"#;
    let refused =
        peer.run("kubectl", &["patch", "widget", "good", "--subresource=status", "--type=merge", "-p", negative]).await;
    assert_eq!(
        stderr(&refused),
        "The Widget \"good\" is invalid: status.ready: Invalid value: -1: ready may not be negative"
    );
    let ready = r#"{"status": {"ready": 1}}"#;
    peer.ok("kubectl", &["patch", "widget", "good", "--subresource=status", "--type=merge", "-p", ready]).await;

    let now: Value = serde_json::from_str(&peer.ok("kubectl", &["get", "widget", "good", "-o", "json"]).await)
        .expect("kubectl prints JSON");
    assert_eq!(
        (&now["spec"], &now["status"]),
        (
            &json!({"replicas": 3, "mode": "fast", "tags": ["a", "b"], "ports": [{"name": "http", "port": 80}]}),
            &json!({"ready": 1})
        ),
        "only the accepted writes changed the widget"
    );
    let refused = peer.run("kubectl", &["get", "widget", "bad"]).await;
    assert!(!refused.status.success(), "the refused create stored nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_failing_on_a_value_left_unchanged_is_a_warning_kubectl_prints() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let file = |name: &str, value: &Value| peer.file(name, &value.to_string());
    peer.ok("kubectl", &["apply", "-f", &file("crd.json", &crd())]).await;
    let fast = widget("w", json!({"replicas": 1, "mode": "fast"}));
    peer.ok("kubectl", &["create", "-f", &file("w.json", &fast)]).await;
    // The CRD becomes stricter: only `safe` now.
    let mut stricter = crd();
    stricter["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["mode"] = json!(
        {"type": "string", "x-kubernetes-validations": [{"rule": "self == 'safe'", "messageExpression": "'mode ' + self + ' is not safe'"}]});
    peer.ok("kubectl", &["apply", "-f", &file("stricter.json", &stricter)]).await;
    let grow =
        peer.run("kubectl", &["patch", "widget", "w", "--type=merge", "-p", r#"{"spec": {"replicas": 2}}"#]).await;
    assert!(grow.status.success(), "{}", String::from_utf8_lossy(&grow.stderr));
    assert_eq!(
        String::from_utf8_lossy(&grow.stderr).trim_end(),
        r#"Warning: spec.mode: Invalid value: "fast": mode fast is not safe"#
    );
    let changed =
        peer.run("kubectl", &["patch", "widget", "w", "--type=merge", "-p", r#"{"spec": {"mode": "quick"}}"#]).await;
    assert_eq!(
        stderr(&changed),
        r#"The Widget "w" is invalid: spec.mode: Invalid value: "quick": mode quick is not safe"#
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_prints_the_refusal_of_a_crd_whose_rule_does_not_compile() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let mut broken = crd();
    broken["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-validations"] =
        json!([{"rule": "self.replica > 0", "message": "replicas must be positive"}]);
    let refused = peer.run("kubectl", &["apply", "-f", &peer.file("crd.json", &broken.to_string())]).await;
    assert_eq!(
        stderr(&refused),
        "The CustomResourceDefinition \"widgets.example.com\" is invalid: \
         spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: \
         {\"Rule\":\"self.replica \\u003e 0\",\"Message\":\"replicas must be positive\",\"MessageExpression\":\"\",\
         \"Reason\":null,\"FieldPath\":\"\",\"OptionalOldSelf\":null}: compilation failed: \
         ERROR: <input>:1:5: undefined field 'replica'\n | self.replica > 0\n | ....^"
    );
    let missing = peer.run("kubectl", &["get", "crd", "widgets.example.com"]).await;
    assert!(!missing.status.success(), "the refused CRD is not stored");
}

#[tokio::test]
async fn rules_are_not_run_on_an_object_the_schema_already_refuses() {
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let crds = crate::sim_harness::crd_api(&client);
    let created = serde_json::from_value(crd()).expect("a CRD");
    tokio::time::timeout(BOUND, crds.create(&PostParams::default(), &created)).await.expect("bounded").expect("CRD");
    let resource = ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk("example.com", "v1", "Widget"), "widgets");
    let widgets: Api<DynamicObject> = Api::namespaced_with(client, "default", &resource);
    let typed_wrong = serde_json::from_value(widget("w", json!({"replicas": "two", "mode": "slow"}))).expect("object");
    let result =
        tokio::time::timeout(BOUND, widgets.create(&PostParams::default(), &typed_wrong)).await.expect("bounded");
    let Err(kube::Error::Api(status)) = result else { panic!("refused, got {result:?}") };
    assert_eq!(
        (status.code, status.message.as_str()),
        (
            422,
            "Widget.example.com \"w\" is invalid: [spec.replicas: Invalid value: \"string\": spec.replicas in body \
             must be of type integer: \"string\", <nil>: Invalid value: \"null\": some validation rules were not \
             checked because the object was invalid; correct the existing errors to complete validation]"
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn berths_apply_reports_the_servers_refusal_of_a_rule() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let set = format!("{}\n---\n{}", crd(), widget("w", json!({"replicas": 0, "mode": "fast"})));
    let mut problems = Vec::new();
    let manifests = manifest::parse_text(&set, "widgets.yaml", false, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    let cancel = CancellationToken::new();
    let request = ApplyRequest::default();
    let applying = apply::apply(&cluster, &manifests, &request, &cancel, Emitter::none());
    let report = tokio::time::timeout(BOUND, applying).await.expect("bounded").expect("the set is valid");
    let widget = report.resources.iter().find(|resource| resource.object.kind == "Widget").expect("reported");
    assert_eq!(widget.status, Status::Failed, "{report:#?}");
    assert!(
        widget.message.contains(r#"Widget.example.com "w" is invalid: spec: Invalid value: replicas must be positive"#),
        "{}",
        widget.message
    );
    let registry = sim.store().registry();
    let def = registry.find_kind("example.com/v1", "Widget").expect("the CRD is served");
    assert!(sim.store().get(def, Some("default"), "w").is_err(), "the refused widget is not stored");
}
