//! The operator table: workloads recognised by their images, objects matched to their operator, and each
//! family's statuses telling progress, success and failure apart (berth's integration tests judge them with
//! berth's built-in rules over a running simulated cluster).

use super::*;

fn deployment(image: &str, ready: i64) -> Value {
    json!({"kind": "Deployment", "metadata": {"name": "op"},
           "spec": {"template": {"spec": {"containers": [{"name": "c", "image": image}]}}},
           "status": {"availableReplicas": ready}})
}

fn names_of(indexes: &[usize]) -> Vec<&'static str> {
    indexes.iter().filter_map(|index| OPERATORS.get(*index)).map(|operator| operator.name).collect()
}

#[test]
fn workloads_are_recognised_by_their_images_whatever_the_registry_and_tag() {
    let cases = [
        ("quay.io/jetstack/cert-manager-controller:v1.19.1", "cert-manager"),
        ("my-mirror.example.com:5000/jetstack/cert-manager-controller@sha256:00", "cert-manager"),
        ("velero/velero:v1.17.0", "velero"),
        ("ghcr.io/fluxcd/helm-controller:v1.4.0", "flux helm-controller"),
        ("ghcr.io/tektoncd/pipeline/controller-10a3e32792f33651396d02b6855a6e36:v1.5.0", "tekton pipelines"),
        ("xpkg.upbound.io/upbound/provider-aws-s3:v1.20.0", "crossplane provider"),
        ("docker.io/envoyproxy/gateway:v1.5.0", "gateway API implementation"),
        ("traefik:v3.5", "gateway API implementation"),
    ];
    for (image, expected) in cases {
        assert_eq!(names_of(&run_by(&deployment(image, 1))), [expected], "{image}");
    }
    assert!(run_by(&deployment("quay.io/jetstack/cert-manager-webhook:v1.19.1", 1)).is_empty(), "not the controller");
    assert!(run_by(&deployment("example.com/not-velero/velero2:1", 1)).is_empty());
    assert!(run_by(&deployment("velero/velero:v1.17.0", 0)).is_empty(), "an operator that is not ready runs nothing");
    // istiod runs both Istio and a Gateway API implementation.
    assert_eq!(
        names_of(&run_by(&deployment("docker.io/istio/pilot:1.27.0", 1))),
        ["istio", "gateway API implementation"]
    );
}

#[test]
fn objects_find_their_operator_by_group_and_kind_or_by_their_fields() {
    let object =
        |api_version: &str, kind: &str, spec: Value| json!({"apiVersion": api_version, "kind": kind, "spec": spec});
    let operator = |object: &Value| operator_of(object).map(|(_, operator)| operator.name);
    assert_eq!(operator(&object("cert-manager.io/v1", "Certificate", json!({}))), Some("cert-manager"));
    assert_eq!(operator(&object("argoproj.io/v1alpha1", "Rollout", json!({}))), Some("argo-rollouts"));
    assert_eq!(operator(&object("argoproj.io/v1alpha1", "AppProject", json!({}))), None, "no rule, no operator");
    assert_eq!(
        operator(&object("s3.aws.upbound.io/v1beta1", "Bucket", json!({"region": "eu"}))),
        None,
        "no field of theirs"
    );
    assert_eq!(
        operator(&object("s3.aws.upbound.io/v1beta1", "Bucket", json!({"forProvider": {"region": "eu"}}))),
        Some("crossplane provider")
    );
    assert_eq!(
        operator(&object("platform.example.org/v1", "XDatabase", json!({"crossplane": {}}))),
        Some("crossplane")
    );
    assert_eq!(operator(&object("cert-manager.io/v1", "Other", json!({"forProvider": {}}))), None, "a named group");
    assert_eq!(operator(&object("v1", "ConfigMap", json!({"forProvider": {}}))), None);
}

#[test]
fn running_operators_follow_their_workloads() {
    let mut running = Running::default();
    let started = running.observe("Deployment", "velero", "velero", Some(&deployment("velero/velero:v1", 1)));
    assert_eq!(names_of(&started), ["velero"]);
    let again = running.observe("StatefulSet", "other", "velero", Some(&deployment("velero/velero:v1", 1)));
    assert!(again.is_empty(), "already running");
    let velero = started[0];
    running.observe("Deployment", "velero", "velero", None);
    assert!(running.is_running(velero), "the other workload still runs it");
    running.observe("StatefulSet", "other", "velero", Some(&deployment("velero/velero:v1", 0)));
    assert!(!running.is_running(velero));
}

/// One object of every kind the table covers, with what its operator needs to report on it.
fn samples() -> Vec<Value> {
    let mut objects = Vec::new();
    for operator in OPERATORS {
        for covers in operator.covers {
            match covers {
                Covers::Kinds(group, kinds) => {
                    for kind in *kinds {
                        objects.push(json!({"apiVersion": format!("{group}/v1"), "kind": kind,
                            "metadata": {"name": "sample", "namespace": "default", "generation": 2},
                            "spec": {"parentRefs": [{"name": "gateway"}], "replicas": 2,
                                     "listeners": [{"name": "http", "protocol": "HTTP", "port": 80}]}}));
                    }
                }
                Covers::Fields(fields) => {
                    let field = fields[0].trim_start_matches("spec.");
                    objects.push(json!({"apiVersion": "example.org/v1", "kind": "Thing",
                        "metadata": {"name": "sample", "namespace": "default", "generation": 2},
                        "spec": {field: {"name": "x"}}}));
                }
            }
        }
    }
    objects
}

#[test]
fn every_family_tells_progress_success_and_failure_apart() {
    let time = "2026-01-01T00:00:00Z";
    for object in samples() {
        let Some((_, operator)) = operator_of(&object) else { panic!("no operator for {object}") };
        let status = |outcome| (operator.status)(&Reconcile::new(&object, outcome, time));
        let kind = format!("{} {}", object["apiVersion"], object["kind"]);
        let Some(ready) = status(Outcome::Ready) else {
            assert_eq!(status(Outcome::Progressing), None, "{kind}: writes nothing, or something every time");
            continue;
        };
        let progressing = status(Outcome::Progressing).unwrap_or_default();
        let failed = status(Outcome::Failed("the disk is full")).unwrap_or_default();
        assert_ne!(ready, progressing, "{kind}");
        assert_ne!(ready, failed, "{kind}");
        // ECK reports the failure of the kinds that follow Elasticsearch as a failed association, no message.
        let without_message = object["apiVersion"].as_str().is_some_and(|version| version.contains(".k8s.elastic.co"))
            && object["kind"] != "Elasticsearch";
        assert!(failed.to_string().contains("the disk is full") || without_message, "{kind}: {failed}");
        // Writing the same outcome again changes nothing (no status write, no event).
        let mut settled = object.clone();
        settled["status"] = ready.clone();
        let again = (operator.status)(&Reconcile::new(&settled, Outcome::Ready, time));
        assert_eq!(again.as_ref(), Some(&ready), "{kind}");
    }
}

#[test]
fn conditions_keep_their_transition_time_while_their_status_holds() {
    let object = json!({"apiVersion": "cert-manager.io/v1", "kind": "Issuer", "metadata": {"name": "i", "generation": 1},
                        "spec": {"selfSigned": {}}});
    let first = Reconcile::new(&object, Outcome::Ready, "2026-01-01T00:00:00Z")
        .written()
        .condition("Ready", "True", "A", "")
        .build();
    let mut settled = object.clone();
    settled["status"] = first;
    let later = Reconcile::new(&settled, Outcome::Ready, "2026-01-02T00:00:00Z");
    let kept = later.written().condition("Ready", "True", "B", "").build();
    assert_eq!(kept["conditions"][0]["lastTransitionTime"], "2026-01-01T00:00:00Z");
    assert_eq!(kept["conditions"][0]["reason"], "B");
    let flipped = later.written().condition("Ready", "False", "C", "").build();
    assert_eq!(flipped["conditions"][0]["lastTransitionTime"], "2026-01-02T00:00:00Z");
}
