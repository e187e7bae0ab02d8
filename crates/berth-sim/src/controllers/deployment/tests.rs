//! The Deployment controller's pure decisions (ReplicaSets, rolling updates, status), judged with berth's kstatus port.

use super::*;
use berth::status::{Status, compute};

fn now() -> Timestamp {
    "2025-01-01T00:10:00Z".parse().unwrap_or(Timestamp::UNIX_EPOCH)
}

fn template(image: &str) -> Value {
    json!({"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": image}]}})
}

fn deployment(replicas: i64, image: &str) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop", "uid": "d1", "generation": 2,
                     "annotations": {"sim.berth.dev/ready-after": "1s",
                                     "kubectl.kubernetes.io/last-applied-configuration": "{}"}},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}}, "template": template(image)},
    })
}

/// A ReplicaSet of `image` with `replicas` wanted and (replicas, ready = available) in its status.
fn replica_set(image: &str, replicas: i64, status: (i64, i64), revision: i64, created: &str) -> Value {
    let hash = template::template_hash(&template(image), 0);
    json!({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": format!("web-{hash}"), "namespace": "shop", "uid": format!("rs-{image}"), "generation": 1,
                     "creationTimestamp": created,
                     "annotations": {REVISION: revision.to_string()}},
        "spec": {"replicas": replicas, "template": template::with_label(&template(image), "pod-template-hash", &hash)},
        "status": {"replicas": status.0, "readyReplicas": status.1, "availableReplicas": status.1, "observedGeneration": 1},
    })
}

fn with_status(mut deployment: Value, plan: &DeploymentPlan) -> Value {
    deployment["status"] = plan.status.clone();
    deployment
}

fn kstatus(deployment: &Value) -> Status {
    compute(deployment, now()).map(|result| result.status).unwrap_or(Status::Unknown)
}

fn condition<'a>(plan: &'a DeploymentPlan, condition_type: &str) -> (&'a str, &'a str) {
    let conditions = plan.status["conditions"].as_array().map(Vec::as_slice).unwrap_or_default();
    let found = conditions::find(conditions, condition_type);
    (
        found.map(|condition| conditions::field(condition, "status")).unwrap_or_default(),
        found.map(|condition| conditions::field(condition, "reason")).unwrap_or_default(),
    )
}

/// The ReplicaSets whose `spec.replicas` the plan changes (annotation-only updates left out).
fn scaled(plan: &DeploymentPlan, before: &[&Value]) -> Vec<(String, i64)> {
    let replicas_before = |name: &str| {
        before.iter().find(|set| meta::name(set) == name).and_then(|set| meta::int_at(set, &["spec", "replicas"]))
    };
    plan.actions
        .iter()
        .filter_map(|action| match action {
            Action::Update { name, replicas, .. } if replicas_before(name) != Some(*replicas) => {
                Some((name.clone(), *replicas))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_new_deployment_creates_its_replica_set_with_hash_revision_and_owner() {
    let deployment = deployment(3, "nginx:1");
    let plan = plan(&deployment, &[], now());
    let [Action::Create(replica_set)] = plan.actions.as_slice() else { panic!("one create: {:?}", plan.actions) };
    let hash = template::template_hash(&template("nginx:1"), 0);
    assert_eq!(replica_set["metadata"]["name"], format!("web-{hash}"));
    assert_eq!(replica_set["spec"]["replicas"], 3);
    assert_eq!(replica_set["spec"]["selector"]["matchLabels"]["pod-template-hash"], hash);
    assert_eq!(replica_set["spec"]["template"]["metadata"]["labels"]["pod-template-hash"], hash);
    assert_eq!(replica_set["metadata"]["labels"], json!({"app": "web", "pod-template-hash": hash}));
    let annotations = &replica_set["metadata"]["annotations"];
    assert_eq!(annotations[REVISION], "1");
    assert_eq!(annotations[DESIRED_REPLICAS], "3");
    assert_eq!(annotations[MAX_REPLICAS], "4");
    assert_eq!(annotations["sim.berth.dev/ready-after"], "1s", "annotations are copied");
    assert!(annotations.get("kubectl.kubernetes.io/last-applied-configuration").is_none());
    let owner = &replica_set["metadata"]["ownerReferences"][0];
    assert_eq!(
        (owner["kind"].as_str(), owner["uid"].as_str(), owner["controller"].as_bool()),
        (Some("Deployment"), Some("d1"), Some(true))
    );
    assert_eq!(plan.revision.as_deref(), Some("1"));
    assert_eq!(plan.status["observedGeneration"], 2);
    assert_eq!(condition(&plan, "Available"), ("False", "MinimumReplicasUnavailable"));
    assert_eq!(condition(&plan, "Progressing"), ("True", "NewReplicaSetCreated"));
    assert!(plan.recheck_after.is_some_and(|left| left > Duration::from_secs(590)));
    assert_eq!(kstatus(&with_status(deployment, &plan)), Status::InProgress);
}

#[test]
fn counts_and_conditions_follow_the_replica_sets() {
    // (status of the only ReplicaSet, Available, kstatus)
    let cases = [
        ((0, 0), ("False", "MinimumReplicasUnavailable"), Status::InProgress),
        ((3, 1), ("False", "MinimumReplicasUnavailable"), Status::InProgress),
        ((3, 3), ("True", "MinimumReplicasAvailable"), Status::Current),
    ];
    for (status, available, expected) in cases {
        let current = replica_set("nginx:1", 3, status, 1, "t1");
        let deployment = deployment(3, "nginx:1");
        let plan = plan(&deployment, &[&current], now());
        assert!(scaled(&plan, &[&current]).is_empty(), "{:?}", plan.actions);
        assert_eq!(condition(&plan, "Available"), available, "{status:?}");
        let deployment = with_status(deployment, &plan);
        assert_eq!(deployment["status"]["replicas"].as_i64().unwrap_or(0), status.0);
        assert_eq!(deployment["status"]["readyReplicas"].as_i64().unwrap_or(0), status.1);
        assert_eq!(deployment["status"]["unavailableReplicas"].as_i64().unwrap_or(0), 3 - status.1);
        // A second sync changes nothing that kstatus reads.
        let again = plan_again(&deployment, &current);
        assert_eq!(kstatus(&with_status(deployment.clone(), &again)), expected, "{status:?}");
    }
}

fn plan_again(deployment: &Value, current: &Value) -> DeploymentPlan {
    plan(deployment, &[current], now())
}

#[test]
fn a_complete_rollout_says_new_replica_set_available() {
    let current = replica_set("nginx:1", 3, (3, 3), 1, "t1");
    let plan = plan(&deployment(3, "nginx:1"), &[&current], now());
    assert_eq!(condition(&plan, "Progressing"), ("True", "NewReplicaSetAvailable"));
    assert_eq!(plan.recheck_after, None);
}

#[test]
fn a_template_change_rolls_within_surge_and_unavailability() {
    let old = replica_set("nginx:1", 3, (3, 3), 1, "t1");
    // The Deployment as the controller left it before the change.
    let settled = plan(&deployment(3, "nginx:1"), &[&old], now());
    let deployment = with_status(deployment(3, "nginx:2"), &settled);
    let first = plan(&deployment, &[&old], now());
    let [Action::Create(created)] = first.actions.as_slice() else { panic!("{:?}", first.actions) };
    assert_eq!(created["spec"]["replicas"], 1, "25% surge of 3 rounds up to 1");
    assert_eq!(created["metadata"]["annotations"][REVISION], "2");
    assert_eq!(condition(&first, "Progressing"), ("True", "NewReplicaSetCreated"));

    // The new pod is available: one old one may go.
    let new = replica_set("nginx:2", 1, (1, 1), 2, "t2");
    let second = plan(&with_status(deployment.clone(), &first), &[&old, &new], now());
    assert_eq!(scaled(&second, &[&old, &new]), [(meta::name(&old).to_string(), 2)]);
    assert_eq!(condition(&second, "Progressing"), ("True", "ReplicaSetUpdated"));

    // The old one shrank: the new one grows.
    let old = replica_set("nginx:1", 2, (2, 2), 1, "t1");
    let third = plan(&with_status(deployment.clone(), &second), &[&old, &new], now());
    assert_eq!(scaled(&third, &[&old, &new]), [(meta::name(&new).to_string(), 2)]);

    // Done: the old ReplicaSet stays at zero, the rollout is complete.
    let old = replica_set("nginx:1", 0, (0, 0), 1, "t1");
    let new = replica_set("nginx:2", 3, (3, 3), 2, "t2");
    let last = plan(&with_status(deployment.clone(), &third), &[&old, &new], now());
    assert!(scaled(&last, &[&old, &new]).is_empty(), "{:?}", last.actions);
    assert_eq!(condition(&last, "Progressing"), ("True", "NewReplicaSetAvailable"));
    assert_eq!(last.status["updatedReplicas"], 3);
    assert_eq!(last.revision.as_deref(), Some("2"));
    assert_eq!(kstatus(&with_status(deployment, &last)), Status::Current);
}

#[test]
fn unavailable_old_pods_are_removed_first() {
    let old = replica_set("nginx:1", 4, (4, 1), 1, "t1");
    let new = replica_set("nginx:2", 1, (1, 0), 2, "t2");
    let mut deployment = deployment(4, "nginx:2");
    deployment["spec"]["strategy"] = json!({"rollingUpdate": {"maxSurge": 1, "maxUnavailable": 2}});
    let plan = plan(&deployment, &[&old, &new], now());
    // all 5, min available 2, new unavailable 1: two old pods can go, both unhealthy ones.
    assert_eq!(scaled(&plan, &[&old, &new]), [(meta::name(&old).to_string(), 2)]);
}

#[test]
fn recreate_scales_old_to_zero_before_creating_the_new_replica_set() {
    let mut deployment = deployment(2, "nginx:2");
    deployment["spec"]["strategy"] = json!({"type": "Recreate"});
    let old = replica_set("nginx:1", 2, (2, 2), 1, "t1");
    let first = plan(&deployment, &[&old], now());
    assert_eq!(scaled(&first, &[&old]), [(meta::name(&old).to_string(), 0)]);
    assert!(!first.actions.iter().any(|action| matches!(action, Action::Create(_))));
    let old = replica_set("nginx:1", 0, (0, 0), 1, "t1");
    let second = plan(&deployment, &[&old], now());
    let [Action::Create(created)] = second.actions.as_slice() else { panic!("{:?}", second.actions) };
    assert_eq!(created["spec"]["replicas"], 2);
}

#[test]
fn a_paused_deployment_does_not_roll_but_scales() {
    let mut deployment = deployment(5, "nginx:2");
    deployment["spec"]["paused"] = json!(true);
    let old = replica_set("nginx:1", 3, (3, 3), 1, "t1");
    let plan = plan(&deployment, &[&old], now());
    assert_eq!(scaled(&plan, &[&old]), [(meta::name(&old).to_string(), 5)]);
    assert!(!plan.actions.iter().any(|action| matches!(action, Action::Create(_))));
    assert_eq!(condition(&plan, "Progressing"), ("Unknown", "DeploymentPaused"));
}

#[test]
fn no_progress_past_the_deadline_fails_the_deployment() {
    let current = replica_set("nginx:1", 2, (2, 0), 1, "t1");
    let mut deployment = deployment(2, "nginx:1");
    deployment["spec"]["progressDeadlineSeconds"] = json!(60);
    deployment["status"] = json!({"observedGeneration": 2, "replicas": 2, "updatedReplicas": 2, "conditions": [
        {"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated", "message": "x",
         "lastUpdateTime": "2025-01-01T00:09:30Z", "lastTransitionTime": "2025-01-01T00:09:00Z"}]});
    let waiting = plan(&deployment, &[&current], now());
    assert_eq!(condition(&waiting, "Progressing"), ("True", "ReplicaSetUpdated"));
    assert_eq!(waiting.recheck_after, Some(Duration::from_secs(31)));

    deployment["status"]["conditions"][0]["lastUpdateTime"] = json!("2025-01-01T00:08:00Z");
    let failed = plan(&deployment, &[&current], now());
    assert_eq!(condition(&failed, "Progressing"), ("False", "ProgressDeadlineExceeded"));
    let message = failed.status["conditions"].as_array().and_then(|all| conditions::find(all, "Progressing").cloned());
    assert!(
        message
            .is_some_and(|condition| conditions::field(&condition, "message").ends_with("has timed out progressing."))
    );
    assert_eq!(kstatus(&with_status(deployment, &failed)), Status::Failed);
}

#[test]
fn scaling_to_zero_completes() {
    let current = replica_set("nginx:1", 2, (2, 2), 1, "t1");
    let deployment = deployment(0, "nginx:1");
    let first = plan(&deployment, &[&current], now());
    assert_eq!(scaled(&first, &[&current]), [(meta::name(&current).to_string(), 0)]);
    let current = replica_set("nginx:1", 0, (0, 0), 1, "t1");
    let done = plan(&with_status(deployment.clone(), &first), &[&current], now());
    assert_eq!(condition(&done, "Available"), ("True", "MinimumReplicasAvailable"));
    assert_eq!(condition(&done, "Progressing"), ("True", "NewReplicaSetAvailable"));
    assert_eq!(kstatus(&with_status(deployment, &done)), Status::Current);
}

#[test]
fn old_replica_sets_beyond_the_history_limit_are_deleted() {
    let mut deployment = deployment(1, "nginx:4");
    deployment["spec"]["revisionHistoryLimit"] = json!(1);
    let sets = [
        replica_set("nginx:1", 0, (0, 0), 1, "t1"),
        replica_set("nginx:2", 0, (0, 0), 2, "t2"),
        replica_set("nginx:3", 0, (0, 0), 3, "t3"),
        replica_set("nginx:4", 1, (1, 1), 4, "t4"),
    ];
    let refs: Vec<&Value> = sets.iter().collect();
    let plan = plan(&deployment, &refs, now());
    let deleted: Vec<&String> = plan
        .actions
        .iter()
        .filter_map(|action| match action {
            Action::Delete(name) => Some(name),
            _ => None,
        })
        .collect();
    assert_eq!(deleted, [meta::name(&sets[0]), meta::name(&sets[1])]);
}

#[test]
fn rolling_back_to_an_old_template_reuses_its_replica_set_with_a_new_revision() {
    let old = replica_set("nginx:1", 0, (0, 0), 1, "t1");
    let current = replica_set("nginx:2", 2, (2, 2), 2, "t2");
    let plan = plan(&deployment(2, "nginx:1"), &[&old, &current], now());
    assert!(!plan.actions.iter().any(|action| matches!(action, Action::Create(_))));
    let update = plan.actions.iter().find_map(|action| match action {
        Action::Update { name, annotations, replicas } if name == meta::name(&old) => {
            Some((annotations.clone(), *replicas))
        }
        _ => None,
    });
    let (annotations, replicas) = update.unwrap_or_default();
    assert_eq!(annotations.get(REVISION), Some(&json!("3")));
    assert_eq!(replicas, 1, "scaled up within the surge");
    assert_eq!(plan.revision.as_deref(), Some("3"));
}

#[test]
fn simulation_annotations_follow_the_deployment_both_ways() {
    let mut current = replica_set("nginx:1", 1, (1, 0), 1, "t1");
    current["metadata"]["annotations"][behaviour::POD_WAITING_REASON] = json!("ImagePullBackOff");
    let plan = plan(&deployment(1, "nginx:1"), &[&current], now());
    let annotations = plan.actions.iter().find_map(|action| match action {
        Action::Update { annotations, .. } => Some(annotations.clone()),
        _ => None,
    });
    let annotations = annotations.unwrap_or_default();
    assert!(annotations.get(behaviour::POD_WAITING_REASON).is_none());
    assert_eq!(annotations.get(behaviour::READY_AFTER), Some(&json!("1s")));
}
