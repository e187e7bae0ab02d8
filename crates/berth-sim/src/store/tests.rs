//! The store: resource versions, generations, watches and deletion, as the API server keeps them.

use super::*;
use serde_json::json;

fn def(store: &Store, api_version: &str, kind: &str) -> ResourceDef {
    store.registry().find_kind(api_version, kind).cloned().unwrap_or_else(|| panic!("{kind} is served"))
}

fn options(verb: Verb, create: bool) -> WriteOptions {
    WriteOptions { verb, manager: "test".to_string(), dry_run: false, create, status_only: false }
}

fn put(store: &Store, object: Value) -> Result<Arc<Value>, ApiError> {
    let (api_version, kind) = type_meta(&object);
    let def = def(store, &api_version, &kind);
    let namespace = object.pointer("/metadata/namespace").and_then(Value::as_str).map(str::to_string);
    let name = object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default().to_string();
    let target = Target { def: &def, namespace: namespace.as_deref(), name: &name };
    store.write(&target, &options(Verb::Update, true), |_| Ok(object)).map(|(object, _)| object)
}

fn deployment(replicas: i64) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
           "spec": {"replicas": replicas}, "status": {"replicas": 99}})
}

#[test]
fn create_sets_identity_and_drops_status_of_types_with_a_status_subresource() {
    let store = Store::new(1000, true);
    let created = put(&store, deployment(1)).expect("created");
    assert_eq!(created["metadata"]["generation"], 1);
    assert!(created["metadata"]["uid"].as_str().is_some_and(|uid| uid.len() == 36));
    assert!(created["metadata"]["creationTimestamp"].is_string());
    assert!(created.get("status").is_none());
    let config_map = put(
        &store,
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}}),
    );
    assert!(config_map.is_ok_and(|object| object.pointer("/metadata/generation").is_none()));
}

#[test]
fn generation_moves_on_spec_changes_only() {
    let store = Store::new(1000, true);
    put(&store, deployment(1)).expect("created");
    let mut labelled = deployment(1);
    labelled["metadata"]["labels"] = json!({"a": "b"});
    let relabelled = put(&store, labelled).expect("updated");
    assert_eq!(relabelled["metadata"]["generation"], 1);
    let scaled = put(&store, deployment(3)).expect("updated");
    assert_eq!(scaled["metadata"]["generation"], 2);
    let def = def(&store, "apps/v1", "Deployment");
    let target = Target { def: &def, namespace: Some("default"), name: "web" };
    let status_options = WriteOptions { status_only: true, ..options(Verb::UpdateStatus, false) };
    let (with_status, _) = store
        .write(&target, &status_options, |old| {
            let mut object = old.cloned().unwrap_or_default();
            object["status"] = json!({"observedGeneration": 2});
            Ok(object)
        })
        .expect("status written");
    assert_eq!(with_status["metadata"]["generation"], 2);
    assert_eq!(with_status["status"]["observedGeneration"], 2);
    let rewritten = put(&store, deployment(3)).expect("no-op");
    assert_eq!(rewritten["status"]["observedGeneration"], 2, "a main-resource write keeps the status");
}

#[test]
fn a_stale_resource_version_conflicts() {
    let store = Store::new(1000, true);
    put(&store, deployment(1)).expect("created");
    let mut stale = deployment(2);
    stale["metadata"]["resourceVersion"] = json!("1");
    assert!(put(&store, stale).is_err_and(|error| error.code == 409));
}

#[test]
fn writes_into_a_missing_namespace_are_not_found() {
    let store = Store::new(1000, true);
    let mut object = deployment(1);
    object["metadata"]["namespace"] = json!("nowhere");
    let error = put(&store, object).expect_err("refused");
    assert_eq!((error.code, error.message.as_str()), (404, "namespaces \"nowhere\" not found"));
}

#[test]
fn invalid_names_are_refused_with_422() {
    let store = Store::new(1000, true);
    let mut object = deployment(1);
    object["metadata"]["name"] = json!("Web_1");
    assert!(put(&store, object).is_err_and(|error| error.code == 422 && error.message.contains("RFC 1123")));
}

#[test]
fn finalizers_hold_deletion_until_removed() {
    let store = Store::new(1000, true);
    let mut object = deployment(1);
    object["metadata"]["finalizers"] = json!(["example.com/hold"]);
    put(&store, object).expect("created");
    let def = def(&store, "apps/v1", "Deployment");
    let marked = store.delete(&def, Some("default"), "web", Propagation::Background, "test", false).expect("marked");
    assert!(marked["metadata"]["deletionTimestamp"].is_string());
    assert!(store.get(&def, Some("default"), "web").is_ok());
    let target = Target { def: &def, namespace: Some("default"), name: "web" };
    store
        .write(&target, &options(Verb::Update, false), |old| {
            let mut object = old.cloned().unwrap_or_default();
            object["metadata"]["finalizers"] = json!([]);
            Ok(object)
        })
        .expect("finalizer removed");
    assert!(store.get(&def, Some("default"), "web").is_err_and(|error| error.code == 404));
}

#[test]
fn deleting_an_owner_collects_its_dependents_unless_orphaned() {
    let store = Store::new(1000, true);
    let owner = put(&store, deployment(1)).expect("created");
    let uid = owner["metadata"]["uid"].clone();
    for name in ["web-1", "web-2"] {
        put(
            &store,
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name, "namespace": "default",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": uid}]}}),
        )
        .expect("created");
    }
    let deployments = def(&store, "apps/v1", "Deployment");
    let replica_sets = def(&store, "apps/v1", "ReplicaSet");
    store.delete(&deployments, Some("default"), "web", Propagation::Background, "test", false).expect("deleted");
    assert!(store.get(&replica_sets, Some("default"), "web-1").is_err());
    let owner = put(&store, deployment(1)).expect("created again");
    put(&store, json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "kept", "namespace": "default",
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": owner["metadata"]["uid"]}]}}))
    .expect("created");
    store.delete(&deployments, Some("default"), "web", Propagation::Orphan, "test", false).expect("deleted");
    let kept = store.get(&replica_sets, Some("default"), "kept").expect("orphan kept");
    assert_eq!(kept["metadata"]["ownerReferences"], json!([]));
}

#[test]
fn deleting_a_namespace_removes_its_contents_then_itself() {
    let store = Store::new(1000, true);
    put(&store, json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}})).expect("created");
    let mut object = deployment(1);
    object["metadata"]["namespace"] = json!("shop");
    put(&store, object).expect("created");
    let namespaces = def(&store, "v1", "Namespace");
    store.delete(&namespaces, None, "shop", Propagation::Background, "test", false).expect("deleted");
    assert!(store.get(&namespaces, None, "shop").is_err());
    let deployments = def(&store, "apps/v1", "Deployment");
    assert!(store.get(&deployments, Some("shop"), "web").is_err());
}

#[test]
fn a_crd_serves_its_resources_until_deleted() {
    let store = Store::new(1000, true);
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                 "versions": [{"name": "v1", "served": true, "storage": true}]}});
    let stored = put(&store, crd).expect("created");
    assert_eq!(stored["status"]["conditions"][1]["type"], "Established");
    put(&store, json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default"}, "spec": {}}))
        .expect("custom resource created");
    let crds = def(&store, "apiextensions.k8s.io/v1", "CustomResourceDefinition");
    store.delete(&crds, None, "widgets.example.com", Propagation::Background, "test", false).expect("deleted");
    assert!(store.registry().find_kind("example.com/v1", "Widget").is_none());
    assert_eq!(store.object_count(), 6, "only the built-in namespaces and priority classes remain");
}

#[test]
fn lists_page_with_continue_tokens() {
    let store = Store::new(1000, true);
    for index in 0..5 {
        put(&store, json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": format!("c{index}"), "namespace": "default"}}))
            .expect("created");
    }
    let def = def(&store, "v1", "ConfigMap");
    let first = store.list(&def, Some("default"), &Selector::default(), Some(2), None).expect("listed");
    assert_eq!((first.items.len(), first.remaining), (2, Some(3)));
    let second = store
        .list(&def, Some("default"), &Selector::default(), Some(10), first.continue_token.as_deref())
        .expect("listed");
    let names: Vec<&str> =
        second.items.iter().filter_map(|item| item.pointer("/metadata/name").and_then(Value::as_str)).collect();
    assert_eq!(names, ["c2", "c3", "c4"]);
    assert!(store.list(&def, None, &Selector::default(), None, Some("zz")).is_err_and(|error| error.code == 400));
}

fn names_of(page: &ListPage) -> Vec<String> {
    page.items.iter().filter_map(|item| item["metadata"]["name"].as_str().map(str::to_string)).collect()
}

#[test]
fn continued_pages_read_the_snapshot_of_the_first_page() {
    let store = Store::new(1000, true);
    for name in ["a", "b", "c", "d"] {
        put(&store, config_map(name, json!({"v": "1"}))).expect("created");
    }
    let def = def(&store, "v1", "ConfigMap");
    let everything = Selector::default();
    let first = store.list(&def, Some("default"), &everything, Some(2), None).expect("listed");
    assert_eq!(names_of(&first), ["a", "b"]);
    // After the first page: one object changes, one goes, one comes; the rest of the list does not see it.
    put(&store, config_map("c", json!({"v": "2"}))).expect("updated");
    store.delete(&def, Some("default"), "d", Propagation::Background, "test", false).expect("deleted");
    put(&store, config_map("bb", json!({"v": "1"}))).expect("created");
    let rest =
        store.list(&def, Some("default"), &everything, Some(10), first.continue_token.as_deref()).expect("listed");
    assert_eq!(names_of(&rest), ["c", "d"], "the objects as they were when the list began");
    assert_eq!(rest.items[0]["data"]["v"], "1");
    assert_eq!(rest.resource_version, first.resource_version);
    assert_eq!((rest.continue_token.as_deref(), rest.remaining), (None, None));
    let filtered =
        store.list(&def, None, &Selector::parse(None, Some("metadata.name!=a")).expect("parses"), Some(1), None);
    assert!(
        filtered.is_ok_and(|page| page.continue_token.is_some() && page.remaining.is_none()),
        "no count with a selector"
    );
}

#[test]
fn a_continued_list_older_than_the_event_log_expires_with_a_token_from_the_latest_state() {
    let store = Store::new(3, true);
    for name in ["a", "b", "c"] {
        put(&store, config_map(name, json!({"v": "1"}))).expect("created");
    }
    let def = def(&store, "v1", "ConfigMap");
    let first = store.list(&def, None, &Selector::default(), Some(1), None).expect("listed");
    for value in ["2", "3", "4", "5"] {
        put(&store, config_map("c", json!({"v": value}))).expect("updated");
    }
    let expired = store.list(&def, None, &Selector::default(), Some(1), first.continue_token.as_deref());
    let error = expired.expect_err("the snapshot is compacted away");
    assert_eq!((error.code, error.reason), (410, "Expired"));
    assert!(error.message.starts_with("The provided continue parameter is too old"), "{}", error.message);
    let latest = error.list_continue.clone().expect("a token to go on with");
    assert_eq!(error.to_status()["metadata"]["continue"], json!(latest));
    let rest = store.list(&def, None, &Selector::default(), None, Some(&latest)).expect("listed");
    assert_eq!(names_of(&rest), ["b", "c"]);
    assert_eq!(rest.items[1]["data"]["v"], "5", "inconsistent: the latest state");
}

#[test]
fn watches_replay_from_a_version_and_expire_old_ones() {
    let store = Store::new(3, true);
    let def = def(&store, "v1", "ConfigMap");
    let start = store.resource_version();
    for index in 0..5 {
        put(&store, json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": format!("c{index}"), "namespace": "default"}}))
            .expect("created");
    }
    assert!(store.watch(&def, None, Some(start)).is_err_and(|error| error.code == 410));
    let recent = store.watch(&def, Some("default"), Some(start + 3)).expect("recent enough");
    assert_eq!(recent.backlog.len(), 2);
    let everything = store.watch(&def, None, None).expect("initial state");
    assert!(everything.backlog.iter().all(|event| event.event_type == EventType::Added));
    assert_eq!(everything.backlog.len(), 5);
}

/// How long a test waits for another thread: the waits end as soon as what they wait for happens.
const BOUND: std::time::Duration = std::time::Duration::from_secs(10);

fn config_map(name: &str, data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}, "data": data})
}

type Written = Result<(Arc<Value>, bool), ApiError>;

/// What `put` gives back.
type Put = Result<Arc<Value>, ApiError>;

/// A concurrent write of `key: value` into a ConfigMap's data whose first computation waits for `release`
/// after telling `entered`; later computations (the retry under the lock) do not wait.
fn held_write(
    store: &Arc<Store>,
    name: &'static str,
    (key, value): (&'static str, &'static str),
    entered: std::sync::mpsc::Sender<()>,
    release: std::sync::mpsc::Receiver<()>,
) -> std::thread::JoinHandle<(Written, usize)> {
    let store = store.clone();
    std::thread::spawn(move || {
        let def = def(&store, "v1", "ConfigMap");
        let target = Target { def: &def, namespace: Some("default"), name };
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let written = store.write_concurrently(&target, &options(Verb::Patch, false), |old| {
            if calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
                let _ = entered.send(());
                // Longer than the test's own waits, so that a write blocked behind this one fails the test.
                let _ = release.recv_timeout(BOUND * 3);
            }
            let mut object = old.cloned().ok_or_else(|| ApiError::not_found("", "configmaps", name))?;
            object["data"][key] = json!(value);
            Ok(object)
        });
        (written, calls.load(std::sync::atomic::Ordering::SeqCst))
    })
}

/// `held_write` of `held` into ConfigMap `name`, and, while it computes, `other` put (waited for at most
/// [`BOUND`]); then the held write is let go. Returns the other write (`None` when it did not complete) and the
/// held write's result with its number of computations.
fn write_during_a_held_write(
    store: &Arc<Store>,
    name: &'static str,
    held: (&'static str, &'static str),
    other: Value,
) -> (Option<Put>, (Written, usize)) {
    let (entered, computing) = std::sync::mpsc::channel();
    let (release, released) = std::sync::mpsc::channel();
    let slow = held_write(store, name, held, entered, released);
    computing.recv_timeout(BOUND).expect("the slow write is computing");
    let other = bounded({
        let store = store.clone();
        move || put(&store, other)
    });
    let _ = release.send(());
    (other, slow.join().expect("the slow write's thread ends"))
}

/// Runs `write` on its own thread and waits for it at most [`BOUND`].
fn bounded<T: Send + 'static>(write: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(write());
    });
    finished.recv_timeout(BOUND).ok()
}

#[test]
fn a_write_completes_while_another_write_computes() {
    let store = Arc::new(Store::new(1000, true));
    put(&store, config_map("slow", json!({"a": "0"}))).expect("created");
    let (other, (slow, calls)) =
        write_during_a_held_write(&store, "slow", ("a", "1"), config_map("other", json!({"b": "2"})));
    assert!(other.is_some_and(|written| written.is_ok()), "the other write completed while the slow one computed");
    let (slow, _) = slow.expect("the slow write is stored");
    assert_eq!((slow["data"]["a"].clone(), calls), (json!("1"), 1), "computed once: its object did not change");
}

#[test]
fn a_write_that_lands_during_a_computation_is_not_lost() {
    let store = Arc::new(Store::new(1000, true));
    let created = put(&store, config_map("shared", json!({"a": "0"}))).expect("created");
    let created_version = object_resource_version(&created);
    let (landed, (slow, calls)) =
        write_during_a_held_write(&store, "shared", ("b", "2"), config_map("shared", json!({"a": "1"})));
    let landed = landed.and_then(Result::ok).expect("the other write completed while the slow one computed");
    assert_eq!(object_resource_version(&landed), created_version + 1);
    let (slow, _) = slow.expect("the slow write is stored");
    assert_eq!(calls, 2, "computed again on the version the other write stored");
    assert_eq!(slow["data"], json!({"a": "1", "b": "2"}), "both changes are kept");
    assert_eq!(object_resource_version(&slow), created_version + 2);
}

#[test]
fn a_concurrent_write_computes_against_absence_and_refuses_what_is_missing() {
    let store = Store::new(1000, true);
    let def = def(&store, "v1", "ConfigMap");
    let target = Target { def: &def, namespace: Some("default"), name: "fresh" };
    let missing =
        store.write_concurrently(&target, &options(Verb::Patch, false), |_| Ok(config_map("fresh", json!({}))));
    assert!(missing.is_err_and(|error| error.code == 404), "a patch of a missing object is not found");
    let (created, is_new) = store
        .write_concurrently(&target, &options(Verb::Apply, true), |old| match old {
            None => Ok(config_map("fresh", json!({"a": "1"}))),
            Some(_) => Err(ApiError::bad_request("computed against an object")),
        })
        .expect("created");
    assert!(is_new);
    assert_eq!(created["data"], json!({"a": "1"}));
}

#[test]
fn custom_resources_are_pruned_defaulted_and_validated_by_the_stored_crds_schema() {
    let store = Store::new(1000, true);
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "size": {"type": "integer", "minimum": 1, "default": 1}}}, "status": {"type": "object", "properties": {
        "phase": {"type": "string", "enum": ["Ready"]}}}}});
    put(
        &store,
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                 "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
                               "schema": {"openAPIV3Schema": schema}}]}}),
    )
    .expect("CRD created");
    let widget = |spec: Value| {
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default"},
               "spec": spec})
    };
    let created = put(&store, widget(json!({"color": "red"}))).expect("created");
    assert_eq!(created["spec"], json!({"size": 1}), "pruned and defaulted");
    let refused = put(&store, widget(json!({"size": 0}))).expect_err("refused");
    assert_eq!(
        refused.message,
        "Widget.example.com \"w\" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1"
    );
    let def = def(&store, "example.com/v1", "Widget");
    let target = Target { def: &def, namespace: Some("default"), name: "w" };
    let status_options = WriteOptions { status_only: true, ..options(Verb::UpdateStatus, false) };
    let status = store.write(&target, &status_options, |old| {
        let mut object = old.cloned().unwrap_or_default();
        object["status"] = json!({"phase": "Broken"});
        Ok(object)
    });
    let error = status.expect_err("status writes are validated too");
    assert!(
        error.message.ends_with(r#"status.phase: Unsupported value: "Broken": supported values: "Ready""#),
        "{}",
        error.message
    );
}
