//! Issue 28 in the controller, on the simulated cluster that enforces RBAC and impersonation: a tenant who may
//! only create Releases in `team-a` (real kubectl, as user `alice`) tries the four attacks of the issue against
//! a controller that acts as each Release's ServiceAccount (`--default-service-account deployer`,
//! `--no-cross-namespace-refs`): each is refused with the API server's Forbidden message (or the policy's) on
//! the Release's status, nothing is written outside team-a, and Helm 4.1.4 and berth acting as the same
//! ServiceAccount through an impersonating kubeconfig get the same Forbidden message.

use crate::controller_support::{BOUND, archive, condition, is_ready, release_resource, release_where, web_chart};
use crate::peers::PeerCluster;
use berth::controller::{Controller, ControllerOptions};
use berth_sim::{Identity, SimConfig};
use futures::StreamExt;
use kube::api::{Api, DynamicObject, PostParams};
use kube::runtime::watcher;
use serde_json::{Value, json};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Two teams, each with a `deployer` ServiceAccount holding `admin` in its namespace only, and `alice`, who may
/// only write Releases (and read them) in team-a.
const TEAMS: &str = r#"
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: deployer, namespace: team-a}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: deployer, namespace: team-b}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: deployer-admin, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}
subjects: [{kind: ServiceAccount, name: deployer, namespace: team-a}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: deployer-admin, namespace: team-b}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}
subjects: [{kind: ServiceAccount, name: deployer, namespace: team-b}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: release-author, namespace: team-a}
rules:
- apiGroups: [berth.dev]
  resources: [releases]
  verbs: [get, list, watch, create, update, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-release-author, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: release-author}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}]
"#;

/// A chart that writes outside its namespace: a ConfigMap in team-b and a ClusterRoleBinding granting
/// team-a's default ServiceAccount cluster-admin.
fn evil_chart() -> Vec<u8> {
    archive(&[
        ("evil/Chart.yaml", "apiVersion: v2\nname: evil\nversion: 1.0.0\n"),
        (
            "evil/templates/planted.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: planted\n  namespace: team-b\ndata:\n  planted: \"yes\"\n",
        ),
        (
            "evil/templates/grant.yaml",
            concat!(
                "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: team-a-admin\n",
                "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\n",
                "subjects: [{kind: ServiceAccount, name: default, namespace: team-a}]\n",
            ),
        ),
    ])
}

async fn chart(client: &kube::Client, namespace: &str, name: &str, chart: &[u8]) {
    let config_maps: Api<k8s_openapi::api::core::v1::ConfigMap> = Api::namespaced(client.clone(), namespace);
    let encoded = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, chart);
    let object = json!({"metadata": {"name": name}, "binaryData": {"chart.tgz": encoded}});
    config_maps
        .create(&PostParams::default(), &serde_json::from_value(object).expect("ConfigMap"))
        .await
        .expect("chart");
}

/// Waits until the Release is gone (its finalizer done).
async fn release_gone(client: &kube::Client, namespace: &str, name: &str) {
    let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), namespace, &release_resource());
    let mut last = Value::Null;
    let gone = tokio::time::timeout(BOUND, async {
        let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
        let mut stream = watcher::watcher(api, config).boxed();
        // Gone already when the first list does not have it.
        let mut listed = false;
        while let Some(event) = stream.next().await {
            match event {
                Ok(watcher::Event::Delete(_)) => return true,
                Ok(watcher::Event::Init) => listed = false,
                Ok(watcher::Event::InitDone) if !listed => return true,
                Ok(watcher::Event::Apply(object) | watcher::Event::InitApply(object)) => {
                    listed = true;
                    last = serde_json::to_value(object).expect("JSON");
                }
                _ => {}
            }
        }
        false
    })
    .await;
    assert!(gone.unwrap_or(false), "Release {namespace}/{name} not gone within {BOUND:?}: {last:#}");
}

/// The Ready condition's message once it is False (or Stalled's).
fn refusal(object: &Value) -> Option<String> {
    let (status, _, message) = condition(object, "Ready")?;
    (status == "False").then_some(message)
}

/// The apiserver's Forbidden sentence in a message: from the qualified resource to its end.
fn forbidden(text: &str) -> Option<String> {
    let at = text.find(" is forbidden: User ")?;
    let start = text[..at].rfind([' ', ':']).map_or(0, |index| index + 1);
    let end = text[at..].find(" (Forbidden, 403)").map_or(text.len(), |end| at + end);
    let sentence = &text[start..end];
    // A message may go on after the API server's sentence (`: ` and what berth adds).
    Some(sentence.split("\n").next().unwrap_or(sentence).to_string())
}

/// Writes as `alice` with real kubectl: a Release in team-a.
async fn alice_applies(peer: &PeerCluster, alice: &std::path::Path, name: &str, spec: Value) {
    let object = json!({"apiVersion": "berth.dev/v1alpha1", "kind": "Release", "metadata": {"name": name, "namespace": "team-a"}, "spec": spec});
    let file = peer.file(&format!("{name}.json"), &object.to_string());
    let output = peer.run_with("kubectl", alice, "homes/alice", &["apply", "-f", &file]).await;
    assert!(output.status.success(), "alice creates {name}: {}", String::from_utf8_lossy(&output.stderr));
}

/// Everything written in `namespace` by anyone but the test's own setup, from the cluster's write record.
fn written_in(peer: &PeerCluster, namespace: &str, from: usize) -> Vec<String> {
    peer.cluster.record()[from..]
        .iter()
        .filter(|entry| entry.event.namespace == namespace && entry.kind() != "Event")
        .map(|entry| format!("{:?} {}/{}", entry.verb, entry.kind(), entry.event.name))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tenants_release_does_only_what_its_service_account_may() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let printed = crate::run::berth(&["controller", "crd"], None);
    let crd = peer.file("crd.yaml", &crate::run::stdout(&printed));
    peer.ok("kubectl", &["apply", "-f", &crd]).await;
    let teams = peer.file("teams.yaml", TEAMS);
    peer.ok("kubectl", &["apply", "-f", &teams]).await;
    let admin = berth::cluster::connect_config(peer.cluster.kube_config()).await.expect("connects");
    let client = admin.client.clone();
    chart(&client, "team-a", "web-chart", &web_chart("1.0.0")).await;
    chart(&client, "team-a", "evil-chart", &evil_chart()).await;
    chart(&client, "team-b", "web-chart", &web_chart("1.0.0")).await;
    let alice_config = peer.dir.path().join("alice.kubeconfig");
    let alice_identity = Identity::User { name: "alice".into(), groups: Vec::new() };
    peer.cluster.write_kubeconfig_for(&alice_config, &alice_identity).expect("kubeconfig");

    let options = ControllerOptions {
        default_service_account: Some("deployer".into()),
        no_cross_namespace_refs: true,
        retry_base: Duration::from_millis(200),
        retry_max: Duration::from_secs(1),
        ..ControllerOptions::default()
    };
    let controller = Controller::new(options).impersonating(peer.cluster.kube_config());
    let shutdown = CancellationToken::new();
    let stop = shutdown.clone();
    let running = tokio::spawn(async move { controller.run(admin, stop).await });

    // team-b's own release, by team-b's Release (acting as team-b's deployer).
    let payments = json!({"apiVersion": "berth.dev/v1alpha1", "kind": "Release", "metadata": {"name": "payments", "namespace": "team-b"},
        "spec": {"chart": {"configMapRef": {"name": "web-chart"}}, "values": {"message": "team-b"}, "timeout": "1m"}});
    let releases_b: Api<DynamicObject> = Api::namespaced_with(client.clone(), "team-b", &release_resource());
    releases_b.create(&PostParams::default(), &serde_json::from_value(payments).expect("Release")).await.expect("made");
    release_where(&client, "team-b", "payments", "Ready", is_ready).await;
    let records = Api::<k8s_openapi::api::core::v1::Secret>::namespaced(client.clone(), "team-b")
        .get("sh.helm.release.v1.payments.v1")
        .await
        .expect("team-b's record");
    let owner = records.metadata.labels.unwrap_or_default().get("berth.dev/owner").cloned();
    assert_eq!(owner.as_deref(), Some("team-b.payments"), "the record names its owner");
    let mark = peer.cluster.record().len();

    // A Release of team-a acting as team-a's deployer works in team-a.
    let web = json!({"chart": {"configMapRef": {"name": "web-chart"}}, "timeout": "1m"});
    alice_applies(&peer, &alice_config, "web", web.clone()).await;
    release_where(&client, "team-a", "web", "Ready", is_ready).await;

    // 1. targetNamespace kube-system: the API server refuses team-a's deployer.
    let mut system = web.clone();
    system["targetNamespace"] = json!("kube-system");
    alice_applies(&peer, &alice_config, "system", system).await;
    let refused = release_where(&client, "team-a", "system", "refused", |object| refusal(object).is_some()).await;
    let message = refusal(&refused).unwrap_or_default();
    let expected_system = "secrets is forbidden: User \"system:serviceaccount:team-a:deployer\" cannot list resource \"secrets\" in API group \"\" in the namespace \"kube-system\"";
    assert_eq!(forbidden(&message).as_deref(), Some(expected_system), "{message}");

    // 2. A chart writing into team-b and granting cluster-admin: refused object by object.
    let evil = json!({"chart": {"configMapRef": {"name": "evil-chart"}}, "timeout": "1m"});
    alice_applies(&peer, &alice_config, "evil", evil).await;
    let refused = release_where(&client, "team-a", "evil", "refused", |object| {
        refusal(object).is_some_and(|message| message.contains("forbidden"))
    })
    .await;
    let message = refusal(&refused).unwrap_or_default();
    assert!(
        message.contains("User \"system:serviceaccount:team-a:deployer\" cannot")
            && (message.contains("in the namespace \"team-b\"") || message.contains("clusterrolebindings")),
        "{message}"
    );

    // 3. A reference into team-b under --no-cross-namespace-refs: the policy refuses it, Stalled.
    let mut depends = web.clone();
    depends["dependsOn"] = json!([{"name": "payments", "namespace": "team-b"}]);
    alice_applies(&peer, &alice_config, "depends", depends).await;
    let stalled = release_where(&client, "team-a", "depends", "stalled", |object| {
        condition(object, "Stalled").is_some_and(|(status, _, _)| status == "True")
    })
    .await;
    let (_, reason, message) = condition(&stalled, "Stalled").expect("Stalled");
    assert_eq!(reason, "AccessDenied");
    assert!(message.starts_with("spec.dependsOn[0]: cross-namespace references are not allowed"), "{message}");

    // 4. Taking over team-b's release name from team-a: the API server refuses team-a's deployer there.
    let mut takeover = web.clone();
    takeover["releaseName"] = json!("payments");
    takeover["targetNamespace"] = json!("team-b");
    takeover["values"] = json!({"message": "team-a", "image": "evil:1"});
    alice_applies(&peer, &alice_config, "takeover", takeover).await;
    let refused = release_where(&client, "team-a", "takeover", "refused", |object| refusal(object).is_some()).await;
    let message = refusal(&refused).unwrap_or_default();
    let expected_takeover = "secrets is forbidden: User \"system:serviceaccount:team-a:deployer\" cannot list resource \"secrets\" in API group \"\" in the namespace \"team-b\"";
    assert_eq!(forbidden(&message).as_deref(), Some(expected_takeover), "{message}");
    // ... and a second Release in team-b itself (its deployer may write there) is refused by the owner policy.
    let copy = json!({"apiVersion": "berth.dev/v1alpha1", "kind": "Release", "metadata": {"name": "copy", "namespace": "team-b"},
        "spec": {"chart": {"configMapRef": {"name": "web-chart"}}, "releaseName": "payments", "values": {"message": "copy"}}});
    releases_b.create(&PostParams::default(), &serde_json::from_value(copy).expect("Release")).await.expect("made");
    let stalled = release_where(&client, "team-b", "copy", "stalled", |object| {
        condition(object, "Stalled").is_some_and(|(status, _, _)| status == "True")
    })
    .await;
    let (_, reason, message) = condition(&stalled, "Stalled").expect("Stalled");
    assert_eq!(reason, "ReleaseNotOwned");
    assert!(message.contains("belongs to another Release (record label berth.dev/owner=team-b.payments)"), "{message}");

    // Deleting the Releases that do not own `payments` leaves it in place.
    let takeover_deleted = peer
        .run_with(
            "kubectl",
            &alice_config,
            "homes/alice",
            &["delete", "release", "takeover", "-n", "team-a", "--wait=false"],
        )
        .await;
    assert!(takeover_deleted.status.success(), "{}", String::from_utf8_lossy(&takeover_deleted.stderr));
    release_gone(&client, "team-a", "takeover").await;
    peer.ok("kubectl", &["delete", "release", "copy", "-n", "team-b", "--wait=false"]).await;
    release_gone(&client, "team-b", "copy").await;
    let history = peer.helm_history("payments", "team-b").await;
    assert_eq!(
        history.iter().map(|(revision, status, _)| (*revision, status.as_str())).collect::<Vec<_>>(),
        [(1, "deployed")]
    );
    let payments = release_where(&client, "team-b", "payments", "still Ready", is_ready).await;
    assert_eq!(payments["status"]["currentRevision"], 1);

    // Nothing of team-a's Releases was written outside team-a (team-b's own Releases aside).
    let outside: Vec<String> =
        written_in(&peer, "team-b", mark).into_iter().filter(|write| !write.contains("Release/copy")).collect();
    assert!(outside.is_empty(), "{outside:?}");
    assert!(written_in(&peer, "kube-system", mark).is_empty());
    let bindings: Api<k8s_openapi::api::rbac::v1::ClusterRoleBinding> = Api::all(client.clone());
    assert!(bindings.get_opt("team-a-admin").await.expect("read").is_none(), "no cluster-admin granted");

    // Helm 4.1.4 and berth, acting as team-a's deployer through an impersonating kubeconfig, get the same
    // Forbidden as the controller did.
    let chart_dir = peer.dir.path().join("tiny/templates");
    std::fs::create_dir_all(&chart_dir).expect("chart directory");
    peer.file("tiny/Chart.yaml", "apiVersion: v2\nname: tiny\nversion: 0.1.0\n");
    peer.file("tiny/templates/settings.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n");
    let admin_config = std::fs::read_to_string(peer.kubeconfig()).expect("kubeconfig");
    let deployer = "system:serviceaccount:team-a:deployer";
    let impersonating = impersonating_kubeconfig(&admin_config, deployer);
    let impersonating = std::path::PathBuf::from(peer.file("as-deployer.kubeconfig", &impersonating));
    for namespace in ["kube-system", "team-b"] {
        let args = ["upgrade", "--install", "payments", "tiny", "-n", namespace];
        let helm = peer.run_with("helm", &impersonating, "homes/helm", &args).await;
        let kubeconfig = impersonating.display().to_string();
        let mut berth_args = args.to_vec();
        berth_args.extend(["--kubeconfig", &kubeconfig]);
        let mut command = crate::run::command(&berth_args);
        command.current_dir(peer.dir.path());
        let berth = tokio::task::spawn_blocking(move || command.output().expect("berth runs")).await.expect("joined");
        let expected = if namespace == "kube-system" { expected_system } else { expected_takeover };
        for (who, output) in [("helm", &helm), ("berth", &berth)] {
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(!output.status.success(), "{who} refused in {namespace}");
            assert_eq!(forbidden(&stderr).as_deref(), Some(expected), "{who} in {namespace}: {stderr}");
        }
    }

    shutdown.cancel();
    let ended = tokio::time::timeout(BOUND, running).await.expect("stops in time").expect("joined");
    ended.expect("the controller ends cleanly");
}

/// `kubeconfig` with every user impersonating `user` (the kubeconfig's `as` and `as-groups`, which kubectl, Helm
/// and kube-rs honour), in the groups a ServiceAccount's token carries; written as JSON (a kubeconfig is YAML).
fn impersonating_kubeconfig(kubeconfig: &str, user: &str) -> String {
    let mut config = kube::config::Kubeconfig::from_yaml(kubeconfig).expect("kubeconfig");
    let namespace = user.split(':').nth(2).unwrap_or_default();
    for named in &mut config.auth_infos {
        if let Some(auth_info) = &mut named.auth_info {
            auth_info.impersonate = Some(user.to_string());
            auth_info.impersonate_groups = Some(vec![
                "system:serviceaccounts".to_string(),
                format!("system:serviceaccounts:{namespace}"),
                "system:authenticated".to_string(),
            ]);
        }
    }
    serde_json::to_string(&config).expect("JSON")
}
