//! The controllers running against a real store: objects written as a client would, progress observed
//! through store events with a bound (no sleeps), results judged with berth's own kstatus port.

use super::behaviour::{GENERIC_READY, JOB_DURATION, JOB_OUTCOME, POD_WAITING_REASON, READY_AFTER};
use crate::profile::Profile;
use crate::registry::ResourceDef;
use crate::store::{Propagation, Store, Target, Verb, WriteOptions};
use crate::{SimCluster, SimConfig};
use berth::status::{Status, compute};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

/// Every wait's bound: a controller that never gets there fails the test instead of hanging it.
const BOUND: Duration = Duration::from_secs(20);

struct Cluster {
    store: Arc<Store>,
    shutdown: CancellationToken,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

fn fast() -> Profile {
    Profile { speed: 20.0, ..Profile::default() }
}

fn start(profile: Profile) -> Cluster {
    let store = Arc::new(Store::new(100_000, true));
    let shutdown = CancellationToken::new();
    drop(super::spawn(store.clone(), profile, shutdown.clone()));
    Cluster { store, shutdown }
}

impl Cluster {
    fn def(&self, api_version: &str, kind: &str) -> ResourceDef {
        self.store.registry().find_kind(api_version, kind).cloned().unwrap_or_else(|| panic!("{kind} is served"))
    }

    /// Creates or replaces `object` as a client would (status is left to the controllers).
    fn put(&self, object: Value) -> Arc<Value> {
        let api_version = object["apiVersion"].as_str().unwrap_or_default().to_string();
        let def = self.def(&api_version, object["kind"].as_str().unwrap_or_default());
        let namespace = object["metadata"]["namespace"].as_str().map(str::to_string);
        let name = object["metadata"]["name"].as_str().unwrap_or_default().to_string();
        let target = Target { def: &def, namespace: namespace.as_deref(), name: &name };
        let options = WriteOptions {
            verb: Verb::Update,
            manager: "test".into(),
            dry_run: false,
            create: true,
            status_only: false,
        };
        let written = self.store.write(&target, &options, |_| Ok(object));
        written.unwrap_or_else(|error| panic!("{name} is written: {}", error.message)).0
    }

    /// Changes the stored object with `change`.
    fn edit(&self, api_version: &str, kind: &str, name: &str, change: impl FnOnce(&mut Value)) {
        let mut object = self.get(api_version, kind, name).map(|object| (*object).clone()).unwrap_or_default();
        change(&mut object);
        if let Some(metadata) = object["metadata"].as_object_mut() {
            metadata.remove("resourceVersion");
        }
        self.put(object);
    }

    fn get(&self, api_version: &str, kind: &str, name: &str) -> Option<Arc<Value>> {
        let def = self.def(api_version, kind);
        self.store.get(&def, def.namespaced.then_some("default"), name).ok()
    }

    fn list(&self, api_version: &str, kind: &str) -> Vec<Arc<Value>> {
        let def = self.def(api_version, kind);
        let selector = crate::selector::Selector::default();
        self.store.list(&def, None, &selector, None, None).map(|page| page.items).unwrap_or_default()
    }

    fn delete(&self, api_version: &str, kind: &str, name: &str) {
        let def = self.def(api_version, kind);
        let deleted = self.store.delete(&def, Some("default"), name, Propagation::Background, "test", false);
        assert!(deleted.is_ok(), "{kind}/{name} is deleted");
    }

    /// Waits (bounded) until `check` finds something, checking again after every store event.
    async fn until<T>(&self, what: &str, mut check: impl FnMut(&Cluster) -> Option<T>) -> T {
        let mut events = self.store.subscribe();
        let waited = tokio::time::timeout(BOUND, async {
            loop {
                if let Some(found) = check(self) {
                    return found;
                }
                match events.recv().await {
                    Ok(_) | Err(RecvError::Lagged(_)) => {}
                    Err(RecvError::Closed) => panic!("the store went away"),
                }
            }
        })
        .await;
        waited.unwrap_or_else(|_| panic!("timed out waiting for {what}"))
    }

    /// Waits until the object exists and `predicate` holds for it.
    async fn until_object(
        &self,
        api_version: &str,
        kind: &str,
        name: &str,
        predicate: impl Fn(&Value) -> bool,
    ) -> Arc<Value> {
        self.until(&format!("{kind}/{name}"), |cluster| {
            cluster.get(api_version, kind, name).filter(|object| predicate(object))
        })
        .await
    }

    /// The pods controlled by the object with `uid`.
    fn pods_of(&self, uid: &str) -> Vec<Arc<Value>> {
        let mut pods = self.list("v1", "Pod");
        pods.retain(|pod| super::meta::is_controlled_by(pod, uid));
        pods
    }
}

fn kstatus(object: &Value) -> Status {
    compute(object, jiff::Timestamp::now()).map(|result| result.status).unwrap_or(Status::Unknown)
}

fn condition<'a>(object: &'a Value, condition_type: &str) -> (&'a str, &'a str) {
    let found = object["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|condition| condition["type"] == condition_type);
    (
        found.and_then(|condition| condition["status"].as_str()).unwrap_or_default(),
        found.and_then(|condition| condition["reason"].as_str()).unwrap_or_default(),
    )
}

fn deployment(name: &str, replicas: i64, image: &str, annotations: Value) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default", "annotations": annotations},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [{"name": "main", "image": image}]}},
        },
    })
}

fn is_current(object: &Value) -> bool {
    kstatus(object) == Status::Current
}

#[tokio::test]
async fn the_nodes_of_the_profile_exist_ready_at_start() {
    let cluster = start(Profile { nodes: 2, ..fast() });
    let nodes = cluster.list("v1", "Node");
    let names: Vec<&str> = nodes.iter().filter_map(|node| node["metadata"]["name"].as_str()).collect();
    assert_eq!(names, ["sim-node-0", "sim-node-1"]);
    assert!(nodes.iter().all(|node| condition(node, "Ready") == ("True", "KubeletReady")));
}

#[tokio::test]
async fn a_deployment_becomes_available_with_ready_pods_owned_through_its_replica_set() {
    let cluster = start(fast());
    cluster.put(deployment("web", 2, "nginx:1.27", json!({})));
    let web = cluster
        .until_object("apps/v1", "Deployment", "web", |web| web["status"]["readyReplicas"] == 2 && is_current(web))
        .await;
    assert_eq!(condition(&web, "Available"), ("True", "MinimumReplicasAvailable"));
    assert_eq!(condition(&web, "Progressing"), ("True", "NewReplicaSetAvailable"));
    assert_eq!(web["status"]["observedGeneration"], 1);
    assert_eq!(web["status"]["availableReplicas"], 2);
    assert_eq!(web["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "1");

    let uid = web["metadata"]["uid"].as_str().unwrap_or_default();
    let sets: Vec<Arc<Value>> = cluster
        .list("apps/v1", "ReplicaSet")
        .into_iter()
        .filter(|set| super::meta::is_controlled_by(set, uid))
        .collect();
    assert_eq!(sets.len(), 1);
    let set = &sets[0];
    let hash = set["metadata"]["labels"]["pod-template-hash"].as_str().unwrap_or_default();
    assert_eq!(set["metadata"]["name"], format!("web-{hash}"));
    assert_eq!(set["status"]["readyReplicas"], 2);
    assert!(is_current(set));
    let pods = cluster.pods_of(set["metadata"]["uid"].as_str().unwrap_or_default());
    assert_eq!(pods.len(), 2);
    for pod in &pods {
        assert_eq!(pod["metadata"]["labels"]["pod-template-hash"], hash);
        assert_eq!(pod["metadata"]["ownerReferences"][0]["blockOwnerDeletion"], true);
        assert!(pod["spec"]["nodeName"].as_str().is_some_and(|node| node.starts_with("sim-node-")));
        assert_eq!(pod["status"]["phase"], "Running");
        assert!(is_current(pod));
    }
    assert_ne!(pods[0]["spec"]["nodeName"], pods[1]["spec"]["nodeName"], "round-robin placement");
    let managers: Vec<String> = cluster.store.record().iter().map(|entry| entry.manager.clone()).collect();
    assert!(managers.iter().any(|manager| manager == "kubelet"));
    assert!(managers.iter().any(|manager| manager == "kube-controller-manager"));
}

#[tokio::test]
async fn a_template_change_rolls_out_to_a_new_replica_set() {
    let cluster = start(fast());
    cluster.put(deployment("web", 2, "nginx:1", json!({})));
    cluster.until_object("apps/v1", "Deployment", "web", is_current).await;
    cluster.edit("apps/v1", "Deployment", "web", |web| {
        web["spec"]["template"]["spec"]["containers"][0]["image"] = json!("nginx:2");
    });
    let web = cluster
        .until_object("apps/v1", "Deployment", "web", |web| {
            web["status"]["observedGeneration"] == 2
                && web["status"]["updatedReplicas"] == 2
                && web["status"]["replicas"] == 2
                && condition(web, "Progressing").1 == "NewReplicaSetAvailable"
                && is_current(web)
        })
        .await;
    assert_eq!(web["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "2");
    let mut sets = cluster.list("apps/v1", "ReplicaSet");
    sets.sort_by_key(|set| {
        set["metadata"]["annotations"]["deployment.kubernetes.io/revision"].as_str().map(str::to_string)
    });
    let replicas: Vec<(Value, Value)> =
        sets.iter().map(|set| (set["spec"]["replicas"].clone(), set["status"]["replicas"].clone())).collect();
    assert_eq!(replicas, [(json!(0), json!(0)), (json!(2), json!(2))], "the old ReplicaSet is kept at zero");
    let new_hash = sets[1]["metadata"]["labels"]["pod-template-hash"].clone();
    let pods = cluster.list("v1", "Pod");
    assert_eq!(pods.len(), 2);
    assert!(pods.iter().all(|pod| pod["metadata"]["labels"]["pod-template-hash"] == new_hash));
    assert!(pods.iter().all(|pod| pod["spec"]["containers"][0]["image"] == "nginx:2"));
}

#[tokio::test]
async fn image_pull_back_off_keeps_the_deployment_in_progress_with_the_reason_on_its_pods() {
    let cluster = start(fast());
    cluster.put(deployment("web", 2, "nginx:typo", json!({POD_WAITING_REASON: "ImagePullBackOff"})));
    let pods = cluster
        .until("two pods waiting in ImagePullBackOff", |cluster| {
            let pods = cluster.list("v1", "Pod");
            let waiting = pods
                .iter()
                .filter(|pod| pod["status"]["containerStatuses"][0]["state"]["waiting"]["reason"] == "ImagePullBackOff")
                .count();
            (waiting == 2).then_some(pods)
        })
        .await;
    let rules = berth::wait::pods::PodRules::default();
    for pod in &pods {
        assert_eq!(pod["status"]["phase"], "Pending");
        let failure = berth::wait::pods::pod_failure(pod, jiff::Timestamp::now(), &rules);
        assert_eq!(failure.map(|failure| failure.reason).as_deref(), Some("ImagePullBackOff"));
    }
    let web = cluster.until_object("apps/v1", "Deployment", "web", |web| web["status"]["replicas"] == 2).await;
    assert_eq!(kstatus(&web), Status::InProgress);
    assert_eq!(condition(&web, "Available"), ("False", "MinimumReplicasUnavailable"));
    assert!(web["status"].get("readyReplicas").is_none());

    // Without the annotation the same pods start.
    cluster.edit("apps/v1", "Deployment", "web", |web| web["metadata"]["annotations"] = json!({}));
    cluster
        .until_object("apps/v1", "Deployment", "web", |web| web["status"]["readyReplicas"] == 2 && is_current(web))
        .await;
    let names = |pods: &[Arc<Value>]| pods.iter().map(|pod| pod["metadata"]["name"].clone()).collect::<Vec<_>>();
    assert_eq!(names(&cluster.list("v1", "Pod")), names(&pods));
}

#[tokio::test]
async fn a_deployment_past_its_progress_deadline_fails() {
    let cluster = start(fast());
    let mut stuck = deployment("stuck", 1, "app:1", json!({POD_WAITING_REASON: "CrashLoopBackOff"}));
    stuck["spec"]["progressDeadlineSeconds"] = json!(1);
    cluster.put(stuck);
    let failed = cluster
        .until_object("apps/v1", "Deployment", "stuck", |web| {
            condition(web, "Progressing").1 == "ProgressDeadlineExceeded"
        })
        .await;
    assert_eq!(condition(&failed, "Progressing").0, "False");
    assert_eq!(kstatus(&failed), Status::Failed);
}

#[tokio::test]
async fn scaling_to_zero_and_back() {
    let cluster = start(fast());
    cluster.put(deployment("web", 2, "nginx:1", json!({})));
    cluster.until_object("apps/v1", "Deployment", "web", is_current).await;
    cluster.edit("apps/v1", "Deployment", "web", |web| web["spec"]["replicas"] = json!(0));
    let web = cluster
        .until_object("apps/v1", "Deployment", "web", |web| {
            web["status"]["observedGeneration"] == 2 && web["status"].get("replicas").is_none() && is_current(web)
        })
        .await;
    assert_eq!(condition(&web, "Available").0, "True");
    assert!(cluster.list("v1", "Pod").is_empty());
    cluster.edit("apps/v1", "Deployment", "web", |web| web["spec"]["replicas"] = json!(1));
    cluster
        .until_object("apps/v1", "Deployment", "web", |web| web["status"]["readyReplicas"] == 1 && is_current(web))
        .await;
}

#[tokio::test]
async fn deleting_a_deployment_removes_its_replica_sets_and_pods() {
    let cluster = start(fast());
    cluster.put(deployment("web", 2, "nginx:1", json!({})));
    cluster.until_object("apps/v1", "Deployment", "web", is_current).await;
    cluster.delete("apps/v1", "Deployment", "web");
    cluster
        .until("no ReplicaSets or pods", |cluster| {
            (cluster.list("apps/v1", "ReplicaSet").is_empty() && cluster.list("v1", "Pod").is_empty()).then_some(())
        })
        .await;
}

fn job(name: &str, annotations: Value) -> Value {
    json!({
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "namespace": "default", "annotations": annotations},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "task", "image": "task:1"}]}}},
    })
}

#[tokio::test]
async fn jobs_complete_or_fail_as_their_annotations_say() {
    let cluster = start(fast());
    cluster.put(job("ok", json!({JOB_DURATION: "1s"})));
    cluster.put(job("bad", json!({JOB_DURATION: "1s", JOB_OUTCOME: "Failed"})));
    let started = cluster.until_object("batch/v1", "Job", "ok", |job| job["status"]["startTime"].is_string()).await;
    assert_eq!(kstatus(&started), Status::Current, "kstatus: a started Job is Current");

    let ok = cluster.until_object("batch/v1", "Job", "ok", |job| condition(job, "Complete").0 == "True").await;
    assert_eq!(condition(&ok, "SuccessCriteriaMet"), ("True", "CompletionsReached"));
    assert_eq!(ok["status"]["succeeded"], 1);
    assert!(ok["status"]["completionTime"].is_string());
    assert!(ok["status"].get("active").is_none());
    assert_eq!(kstatus(&ok), Status::Current);

    let bad = cluster.until_object("batch/v1", "Job", "bad", |job| condition(job, "Failed").0 == "True").await;
    assert_eq!(condition(&bad, "FailureTarget"), ("True", "BackoffLimitExceeded"));
    assert_eq!(condition(&bad, "Failed").1, "BackoffLimitExceeded");
    assert_eq!(bad["status"]["failed"], 1);
    assert_eq!(kstatus(&bad), Status::Failed);
    let phases: Vec<Value> = cluster
        .pods_of(bad["metadata"]["uid"].as_str().unwrap_or_default())
        .iter()
        .map(|pod| pod["status"]["phase"].clone())
        .collect();
    assert_eq!(phases, [json!("Failed")]);
}

#[tokio::test]
async fn a_suspended_job_has_no_pods() {
    let cluster = start(fast());
    let mut suspended = job("later", json!({}));
    suspended["spec"]["suspend"] = json!(true);
    cluster.put(suspended);
    let later = cluster.until_object("batch/v1", "Job", "later", |job| condition(job, "Suspended").0 == "True").await;
    assert_eq!(kstatus(&later), Status::Current);
    assert!(cluster.list("v1", "Pod").is_empty());
}

fn stateful_set(replicas: i64, policy: &str) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "default", "annotations": {READY_AFTER: "1s"}},
        "spec": {
            "replicas": replicas, "serviceName": "db", "podManagementPolicy": policy,
            "selector": {"matchLabels": {"app": "db"}},
            "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "pg", "image": "postgres:17"}]}},
            "volumeClaimTemplates": [{"metadata": {"name": "data"},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}],
        },
    })
}

/// The index in the write record of the first write to pod `name` satisfying `predicate`.
fn first_write(store: &Store, name: &str, predicate: impl Fn(&Value) -> bool) -> Option<usize> {
    store
        .record()
        .iter()
        .position(|entry| entry.kind() == "Pod" && entry.event.name == name && predicate(&entry.event.value()))
}

#[tokio::test]
async fn an_ordered_ready_stateful_set_starts_each_pod_after_the_previous_is_ready() {
    let cluster = start(fast());
    cluster.put(stateful_set(3, "OrderedReady"));
    let db = cluster
        .until_object("apps/v1", "StatefulSet", "db", |db| db["status"]["readyReplicas"] == 3 && is_current(db))
        .await;
    assert_eq!(db["status"]["currentRevision"], db["status"]["updateRevision"]);
    assert!(db["status"]["updateRevision"].as_str().is_some_and(|revision| revision.starts_with("db-")));
    let ready = |pod: &Value| condition(pod, "Ready").0 == "True";
    let created = |_: &Value| true;
    for (previous, next) in [("db-0", "db-1"), ("db-1", "db-2")] {
        let previous_ready = first_write(&cluster.store, previous, ready);
        let next_created = first_write(&cluster.store, next, created);
        assert!(previous_ready < next_created, "{next} is created after {previous} is ready");
    }
    let claims = cluster.list("v1", "PersistentVolumeClaim");
    let names: Vec<&str> = claims.iter().filter_map(|claim| claim["metadata"]["name"].as_str()).collect();
    assert_eq!(names, ["data-db-0", "data-db-1", "data-db-2"]);
    assert!(cluster.list("apps/v1", "ControllerRevision").len() == 1);
}

#[tokio::test]
async fn a_parallel_stateful_set_creates_all_pods_before_any_is_ready() {
    let cluster = start(fast());
    cluster.put(stateful_set(3, "Parallel"));
    cluster.until_object("apps/v1", "StatefulSet", "db", |db| db["status"]["readyReplicas"] == 3).await;
    let first_ready = first_write(&cluster.store, "db-0", |pod| condition(pod, "Ready").0 == "True");
    let last_created = first_write(&cluster.store, "db-2", |_| true);
    assert!(last_created < first_ready);
}

#[tokio::test]
async fn a_daemon_set_runs_one_pod_per_node() {
    let cluster = start(fast());
    cluster.put(json!({
        "apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": "agent", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}},
                 "template": {"metadata": {"labels": {"app": "agent"}}, "spec": {"containers": [{"name": "agent", "image": "agent:1"}]}}},
    }));
    let agent = cluster
        .until_object("apps/v1", "DaemonSet", "agent", |agent| agent["status"]["numberReady"] == 3 && is_current(agent))
        .await;
    assert_eq!(agent["status"]["desiredNumberScheduled"], 3);
    assert_eq!(agent["status"]["updatedNumberScheduled"], 3);
    let mut nodes: Vec<String> = cluster
        .pods_of(agent["metadata"]["uid"].as_str().unwrap_or_default())
        .iter()
        .filter_map(|pod| pod["spec"]["nodeName"].as_str().map(str::to_string))
        .collect();
    nodes.sort();
    assert_eq!(nodes, ["sim-node-0", "sim-node-1", "sim-node-2"]);
}

#[tokio::test]
async fn a_claim_binds_to_a_provisioned_volume() {
    let cluster = start(fast());
    cluster.put(json!({
        "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "default"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "2Gi"}}},
    }));
    let claim =
        cluster.until_object("v1", "PersistentVolumeClaim", "data", |claim| claim["status"]["phase"] == "Bound").await;
    assert_eq!(claim["status"]["capacity"]["storage"], "2Gi");
    assert!(is_current(&claim));
    let volume_name = format!("pvc-{}", claim["metadata"]["uid"].as_str().unwrap_or_default());
    assert_eq!(claim["spec"]["volumeName"], volume_name);
    let volume = cluster.get("v1", "PersistentVolume", &volume_name).unwrap_or_else(|| panic!("{volume_name} exists"));
    assert_eq!(volume["status"]["phase"], "Bound");
    assert_eq!(volume["spec"]["claimRef"]["name"], "data");
    cluster.delete("v1", "PersistentVolumeClaim", "data");
    cluster
        .until("the volume released", |cluster| {
            cluster.get("v1", "PersistentVolume", &volume_name).is_none().then_some(())
        })
        .await;
}

#[tokio::test]
async fn a_load_balancer_gets_a_cluster_ip_then_an_ingress() {
    let cluster = start(fast());
    cluster.put(json!({
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
        "spec": {"type": "LoadBalancer", "selector": {"app": "web"}, "ports": [{"port": 80}]},
    }));
    cluster.put(json!({
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": "headless", "namespace": "default"},
        "spec": {"clusterIP": "None", "ports": [{"port": 80}]},
    }));
    let web = cluster
        .until_object("v1", "Service", "web", |web| web["status"]["loadBalancer"]["ingress"][0]["ip"].is_string())
        .await;
    assert!(web["spec"]["clusterIP"].as_str().is_some_and(|address| address.starts_with("10.96.")));
    assert!(web["spec"]["ports"][0]["nodePort"].as_i64().is_some_and(|port| port >= 30000));
    assert!(is_current(&web));
    let headless =
        cluster.until_object("v1", "Service", "headless", |service| service["spec"]["clusterIPs"].is_array()).await;
    assert_eq!(headless["spec"]["clusterIP"], "None");
}

/// A namespaced `example.com/v1` Widget kind with a status subresource.
fn widget_crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                 "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}}}]},
    })
}

#[tokio::test]
async fn a_generic_custom_resource_becomes_ready_for_each_generation() {
    let cluster = start(fast());
    cluster.put(widget_crd());
    cluster.put(json!({
        "apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default", "annotations": {GENERIC_READY: "true", READY_AFTER: "2s"}},
        "spec": {"size": 1},
    }));
    let ready = |generation: i64| {
        move |widget: &Value| {
            widget["status"]["observedGeneration"] == generation && condition(widget, "Ready").0 == "True"
        }
    };
    let widget = cluster.until_object("example.com/v1", "Widget", "w", ready(1)).await;
    assert!(is_current(&widget));
    cluster.edit("example.com/v1", "Widget", "w", |widget| widget["spec"]["size"] = json!(2));
    let widget = cluster.until_object("example.com/v1", "Widget", "w", ready(2)).await;
    assert!(is_current(&widget));
    let in_between = cluster.store.record().iter().any(|entry| {
        let object = &entry.event.value();
        entry.verb == Verb::UpdateStatus
            && object["metadata"]["generation"] == 2
            && object["status"]["observedGeneration"] == 1
            && condition(object, "Ready").0 == "Unknown"
            && kstatus(object) == Status::InProgress
    });
    assert!(in_between, "generation 2 was reported in progress before it was ready");
}

#[tokio::test]
async fn a_custom_resource_without_a_status_subresource_gets_its_status_with_an_update() {
    let cluster = start(fast());
    cluster.put(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
                 "versions": [{"name": "v1", "served": true, "storage": true}]},
    }));
    cluster.put(json!({
        "apiVersion": "example.com/v1", "kind": "Gadget",
        "metadata": {"name": "g", "namespace": "default", "annotations": {GENERIC_READY: "true"}},
        "spec": {},
    }));
    let gadget =
        cluster.until_object("example.com/v1", "Gadget", "g", |gadget| condition(gadget, "Ready").0 == "True").await;
    assert_eq!(gadget["metadata"]["generation"], 1);
    let writes: Vec<Verb> = cluster
        .store
        .record()
        .iter()
        .filter(|entry| entry.event.name == "g" && entry.manager == "kube-controller-manager")
        .map(|entry| entry.verb)
        .collect();
    assert!(!writes.is_empty() && writes.iter().all(|verb| *verb == Verb::Update), "{writes:?}");
}

#[tokio::test]
async fn the_profile_makes_every_custom_resource_generic_unless_it_opts_out() {
    let cluster = start(Profile { generic_ready: true, ..fast() });
    cluster.put(widget_crd());
    cluster.put(json!({
        "apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "out", "namespace": "default", "annotations": {GENERIC_READY: "false"}},
    }));
    cluster.put(json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "plain", "namespace": "default"}}));
    let plain = cluster.until_object("example.com/v1", "Widget", "plain", |w| condition(w, "Ready").0 == "True").await;
    assert!(is_current(&plain));
    // Written before `plain`, so the controllers saw it first: it would have its status by now.
    let status_writes = cluster.store.record().iter().filter(|entry| entry.event.name == "out").count();
    assert_eq!(status_writes, 1, "only its creation: the annotation opts it out");
}

#[tokio::test]
async fn a_sim_cluster_runs_the_controllers() {
    let sim = SimCluster::start(SimConfig { profile: fast(), ..SimConfig::default() }).await;
    let sim = sim.unwrap_or_else(|error| panic!("the simulated cluster starts: {error}"));
    let cluster = Cluster { store: sim.store().clone(), shutdown: CancellationToken::new() };
    assert_eq!(cluster.list("v1", "Node").len(), 3);
    cluster.put(deployment("web", 1, "nginx:1", json!({})));
    cluster.until_object("apps/v1", "Deployment", "web", |web| web["status"]["readyReplicas"] == 1).await;
}

#[tokio::test]
async fn settled_objects_are_not_written_again() {
    let cluster = start(fast());
    cluster.put(deployment("web", 2, "nginx:1", json!({})));
    cluster.put(stateful_set(1, "OrderedReady"));
    cluster.until_object("apps/v1", "Deployment", "web", is_current).await;
    cluster.until_object("apps/v1", "StatefulSet", "db", |db| db["status"]["readyReplicas"] == 1).await;
    let settled = cluster.store.record().len();
    // Wake every controller of these objects: a label on the Deployment, then a Service as a marker that the
    // queue (first in, first out) got past that work.
    cluster.edit("apps/v1", "Deployment", "web", |web| web["metadata"]["labels"] = json!({"touched": "yes"}));
    cluster.edit("apps/v1", "StatefulSet", "db", |db| db["metadata"]["labels"] = json!({"touched": "yes"}));
    cluster.put(json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "marker", "namespace": "default"},
                       "spec": {"ports": [{"port": 80}]}}));
    cluster.until_object("v1", "Service", "marker", |service| service["status"]["loadBalancer"].is_object()).await;
    let churn: Vec<String> = cluster.store.record()[settled..]
        .iter()
        .filter(|entry| entry.manager != "test" && entry.kind() != "Service")
        .map(|entry| format!("{} {} {:?}", entry.kind(), entry.event.name, entry.verb))
        .collect();
    assert!(churn.is_empty(), "{churn:?}");
}
