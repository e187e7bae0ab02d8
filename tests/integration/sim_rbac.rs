//! Authentication, RBAC and impersonation on the simulated cluster, seen through real kubectl v1.35 and Helm
//! v4.1.4 (issue 28): `kubectl auth can-i` against a table of expectations written from the RBAC
//! documentation and kube-apiserver's source, `kubectl auth whoami`, `kubectl create token` and
//! `kubectl create role|rolebinding|clusterrole|clusterrolebinding` round trips, Forbidden and Unauthorized
//! answers worded as kube-apiserver's, escalation checks, and Helm and berth refused with the same message.

use crate::peers::{PeerCluster, peers_dir};
use berth_sim::{Identity, SimConfig};
use futures::{StreamExt, stream};
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::api::rbac::v1::ClusterRole;
use kube::api::{Api, PostParams};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

const BOUND: Duration = Duration::from_secs(30);

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A kubeconfig for `identity` in the cluster's directory.
fn kubeconfig(peer: &PeerCluster, file: &str, identity: &Identity) -> PathBuf {
    let path = peer.dir.path().join(file);
    peer.cluster.write_kubeconfig_for(&path, identity).expect("kubeconfig written");
    path
}

fn user(name: &str) -> Identity {
    Identity::User { name: name.to_string(), groups: Vec::new() }
}

/// Runs a peer binary with `kubeconfig` and a HOME of its own (`home`), bounded in time.
async fn peer_run(peer: &PeerCluster, binary: &str, kubeconfig: &Path, home: &str, args: &[&str]) -> Output {
    let home = format!("homes/{home}");
    let run = peer.run_with(binary, kubeconfig, &home, args);
    tokio::time::timeout(BOUND, run).await.expect("the peer finishes in time")
}

/// Applies YAML as the admin with real kubectl.
async fn apply(peer: &PeerCluster, name: &str, yaml: &str) {
    let file = peer.file(name, yaml);
    let output = peer.run("kubectl", &["apply", "-f", &file]).await;
    assert!(output.status.success(), "kubectl apply {name}: {}", text(&output.stderr));
}

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
kind: Namespace
metadata: {name: team-c}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: deployer, namespace: team-a}
"#;

/// Custom resources for the rules on API groups: kubectl asks about a resource it finds in discovery under its
/// group, and about an unknown one under its bare name in the core group.
fn crds() -> String {
    let crd = |group: &str, plural: &str, kind: &str| {
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: {plural}.{group}}}\n\
             spec:\n  group: {group}\n  scope: Namespaced\n  names: {{plural: {plural}, kind: {kind}}}\n  versions:\n  \
             - {{name: v1, served: true, storage: true, schema: {{openAPIV3Schema: {{type: object, \
             x-kubernetes-preserve-unknown-fields: true}}}}}}\n"
        )
    };
    [
        crd("example.com", "widgets", "Widget"),
        crd("example.com", "gadgets", "Gadget"),
        crd("other.example", "widgets", "Widget"),
        crd("monitoring.coreos.com", "prometheusrules", "PrometheusRule"),
    ]
    .join("---\n")
}

/// The grants of `system:serviceaccount:team-a:deployer` the can-i table is written against.
const GRANTS: &str = r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: deployer, namespace: team-a}
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list, create, update]
- apiGroups: [""]
  resources: [secrets]
  resourceNames: [app-config]
  verbs: [get]
- apiGroups: [""]
  resources: [pods/log]
  verbs: [get]
- apiGroups: [apps]
  resources: [deployments/scale]
  verbs: [update, patch]
- apiGroups: [example.com]
  resources: ["*"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: deployer, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: deployer}
subjects:
- {kind: ServiceAccount, name: deployer}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: viewers, namespace: team-b}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects:
- {kind: ServiceAccount, name: deployer, namespace: team-a}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: team-a-admins, namespace: team-c}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: "system:serviceaccounts:team-a"}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: node-reader}
rules:
- apiGroups: [""]
  resources: [nodes]
  verbs: [get, list]
- nonResourceURLs: [/metrics, /logs/*]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: node-readers}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: node-reader}
subjects:
- {kind: ServiceAccount, name: deployer, namespace: team-a}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: alice-impersonator}
rules:
- apiGroups: [""]
  resources: [users]
  resourceNames: [alice]
  verbs: [impersonate]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: alice-impersonators}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: alice-impersonator}
subjects:
- {kind: ServiceAccount, name: deployer, namespace: team-a}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: widget-viewer
  labels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}
rules:
- apiGroups: [example.com]
  resources: [widgets]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: platform-monitoring}
aggregationRule:
  clusterRoleSelectors:
  - matchLabels: {berth.dev/aggregate-to-platform-monitoring: "true"}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: alert-reader
  labels: {berth.dev/aggregate-to-platform-monitoring: "true"}
rules:
- apiGroups: [monitoring.coreos.com]
  resources: [prometheusrules]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: platform-monitoring}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: platform-monitoring}
subjects:
- {kind: ServiceAccount, name: deployer, namespace: team-a}
"#;

/// Waits until the aggregation controller has written a rule on `resource` into the ClusterRole `name`.
async fn aggregated(peer: &PeerCluster, name: &str, resource: &str) {
    let client = kube::Client::try_from(peer.cluster.kube_config()).expect("client");
    let roles: Api<ClusterRole> = Api::all(client);
    let holds = |role: Option<&ClusterRole>| {
        role.and_then(|role| role.rules.as_ref()).is_some_and(|rules| {
            rules.iter().any(|rule| rule.resources.iter().flatten().any(|found| found == resource))
        })
    };
    let waited = tokio::time::timeout(BOUND, kube::runtime::wait::await_condition(roles, name, holds)).await;
    assert!(waited.is_ok_and(|result| result.is_ok()), "{name} aggregates {resource}");
}

/// One row: `kubectl auth can-i VERB RESOURCE FLAGS...` as the ServiceAccount, and the answer RBAC gives.
type Row = (&'static str, &'static str, &'static [&'static str], bool);

/// The expected answers, each from the RBAC documentation (kubernetes.io/docs/reference/access-authn-authz/
/// rbac/, "RBAC docs" below) or kube-apiserver's source, as the comment beside it says.
const CAN_I: &[Row] = &[
    // RBAC docs, "RoleBinding and ClusterRoleBinding": a RoleBinding grants the Role's rules in its namespace;
    // a ServiceAccount subject without a namespace is in the binding's (rule.go appliesToUser).
    ("create", "configmaps", &["-n", "team-a"], true),
    // evaluation_helpers.go VerbMatches: `delete` is not among the rule's verbs.
    ("delete", "configmaps", &["-n", "team-a"], false),
    // rule.go VisitRulesFor: only the RoleBindings of the request's namespace are visited.
    ("create", "configmaps", &["-n", "kube-system"], false),
    // RBAC docs, "RoleBinding and ClusterRoleBinding": a Role grants nothing across namespaces; a list over
    // all namespaces has no namespace, so no RoleBinding applies.
    ("list", "configmaps", &["-A"], false),
    // evaluation_helpers.go ResourceNameMatches: the name is listed.
    ("get", "secrets/app-config", &["-n", "team-a"], true),
    // ResourceNameMatches: another name.
    ("get", "secrets/other", &["-n", "team-a"], false),
    // RBAC docs, "Referring to resources": rules with resourceNames cannot restrict list (no name).
    ("list", "secrets", &["-n", "team-a"], false),
    // RBAC docs, "Referring to resources" (`pods/log`); rbac.go RuleAllows matches resource/subresource.
    ("get", "pods", &["-n", "team-a", "--subresource=log"], true),
    // ResourceMatches: `pods/log` does not grant `pods`.
    ("get", "pods", &["-n", "team-a"], false),
    // ResourceMatches on the combined `deployments/scale`.
    ("update", "deployments.apps", &["-n", "team-a", "--subresource=scale"], true),
    // ResourceMatches: the subresource rule does not grant the resource.
    ("update", "deployments.apps", &["-n", "team-a"], false),
    // VerbMatches and ResourceMatches with `*` (VerbAll, ResourceAll) inside APIGroupMatches `example.com`.
    ("delete", "widgets.example.com", &["-n", "team-a"], true),
    ("patch", "gadgets.example.com", &["-n", "team-a"], true),
    // APIGroupMatches: another group.
    ("delete", "widgets.other.example", &["-n", "team-a"], false),
    // RBAC docs, "User-facing roles": `view` reads most objects (policy.go aggregate-to-view).
    ("list", "deployments.apps", &["-n", "team-b"], true),
    ("watch", "configmaps", &["-n", "team-b"], true),
    // RBAC docs, "User-facing roles": `view` does not allow viewing Secrets.
    ("get", "secrets", &["-n", "team-b"], false),
    // `view` is read-only.
    ("create", "deployments.apps", &["-n", "team-b"], false),
    // policy.go aggregate-to-view lists `deployments/scale` for reading.
    ("get", "deployments.apps", &["-n", "team-b", "--subresource=scale"], true),
    // RBAC docs, "Aggregated ClusterRoles" and "Default roles and role bindings": a ClusterRole labelled
    // `rbac.authorization.k8s.io/aggregate-to-view` adds its rules to `view`.
    ("list", "widgets.example.com", &["-n", "team-b"], true),
    // Only get, list and watch were aggregated.
    ("delete", "widgets.example.com", &["-n", "team-b"], false),
    // RBAC docs, "Referring to subjects" (the group `system:serviceaccounts:team-a`) and "User-facing roles":
    // `admin` (through `edit`, policy.go aggregate-to-edit) writes Secrets.
    ("create", "secrets", &["-n", "team-c"], true),
    // policy.go aggregate-to-admin: roles and rolebindings.
    ("create", "rolebindings.rbac.authorization.k8s.io", &["-n", "team-c"], true),
    // RBAC docs, "User-facing roles": `admin` does not allow write access to resource quota.
    ("create", "resourcequotas", &["-n", "team-c"], false),
    // policy.go aggregate-to-edit: `impersonate` on serviceaccounts.
    ("impersonate", "serviceaccounts", &["-n", "team-c"], true),
    // No binding in team-a grants it.
    ("impersonate", "serviceaccounts", &["-n", "team-a"], false),
    // kubectl asks with the context's namespace (`default`) for cluster-scoped resources too; no binding there
    // nor cluster-wide grants creating Namespaces.
    ("create", "namespaces", &[], false),
    // RBAC docs, "ClusterRoleBinding example": cluster-wide.
    ("list", "nodes", &[], true),
    // evaluation_helpers.go NonResourceURLMatches: the exact path.
    ("get", "/metrics", &[], true),
    // NonResourceURLMatches: a prefix ending in `*`.
    ("get", "/logs/kubelet.log", &[], true),
    // VerbMatches on a non-resource URL (the lower-case HTTP method).
    ("post", "/metrics", &[], false),
    // RBAC docs, "Default roles and role bindings": `system:public-info-viewer` and `system:discovery` for
    // `system:authenticated`.
    ("get", "/healthz", &[], true),
    ("get", "/apis/apps/v1", &[], true),
    // RBAC docs, "Default roles and role bindings": `system:basic-user`.
    ("create", "selfsubjectaccessreviews.authorization.k8s.io", &[], true),
    // Authenticating docs, "User impersonation": `impersonate` on users, limited by resourceNames.
    ("impersonate", "users/alice", &[], true),
    ("impersonate", "users/bob", &[], false),
    // impersonation.go: impersonating a group needs `impersonate` on groups.
    ("impersonate", "groups", &[], false),
    // RBAC docs, "Aggregated ClusterRoles": an aggregationRule of one's own gathers the labelled roles.
    ("list", "prometheusrules.monitoring.coreos.com", &["-A"], true),
    ("delete", "prometheusrules.monitoring.coreos.com", &["-A"], false),
    // Nothing grants every verb on every resource of every group.
    ("*", "*", &["-n", "team-a"], false),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_auth_can_i_answers_as_rbac_says() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    apply(&peer, "teams.yaml", TEAMS).await;
    apply(&peer, "crds.yaml", &crds()).await;
    apply(&peer, "grants.yaml", GRANTS).await;
    aggregated(&peer, "view", "widgets").await;
    aggregated(&peer, "platform-monitoring", "prometheusrules").await;
    let admin = peer.kubeconfig();
    let answers: Vec<(usize, String, bool, String)> = stream::iter(CAN_I.iter().enumerate())
        .map(|(index, (verb, resource, flags, _))| {
            let (peer, admin) = (&peer, &admin);
            async move {
                let mut args = vec!["auth", "can-i", "--as=system:serviceaccount:team-a:deployer", verb, resource];
                args.extend(flags.iter());
                let output = peer_run(peer, "kubectl", admin, &format!("can-i-{index}"), &args).await;
                let answer = text(&output.stdout).trim().to_string();
                (index, answer, output.status.success(), text(&output.stderr))
            }
        })
        .buffer_unordered(4)
        .collect()
        .await;
    let mut wrong = Vec::new();
    for (index, answer, succeeded, stderr) in answers {
        let (verb, resource, flags, expected) = CAN_I[index];
        let expected_answer = if expected { "yes" } else { "no" };
        // `kubectl auth can-i` prints yes or no and exits 0 or 1 accordingly.
        if answer != expected_answer || succeeded != expected {
            wrong.push(format!("{verb} {resource} {flags:?}: expected {expected_answer}, got {answer:?} ({stderr})"));
        }
    }
    assert!(wrong.is_empty(), "{} of {} answers differ:\n{}", wrong.len(), CAN_I.len(), wrong.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whoami_create_token_and_rbac_objects_round_trip_through_kubectl() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    apply(&peer, "teams.yaml", TEAMS).await;
    let admin = peer.kubeconfig();
    let kubectl = |home: &'static str, args: Vec<String>| {
        let (peer, admin) = (&peer, admin.clone());
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let output = peer_run(peer, "kubectl", &admin, home, &args).await;
            assert!(output.status.success(), "kubectl {args:?}: {}", text(&output.stderr));
            text(&output.stdout)
        }
    };
    let strings = |args: &[&str]| args.iter().map(|arg| (*arg).to_string()).collect::<Vec<String>>();

    let whoami = kubectl("whoami", strings(&["auth", "whoami", "-o", "jsonpath={.status.userInfo}"])).await;
    let info: serde_json::Value = serde_json::from_str(&whoami).expect("user info JSON");
    assert_eq!(info["username"], "kubernetes-admin");
    assert_eq!(info["groups"], serde_json::json!(["system:masters", "system:authenticated"]));

    for args in [
        &["create", "role", "deployer", "-n", "team-a", "--verb=get,create", "--resource=configmaps,deployments.apps"]
            [..],
        &["create", "rolebinding", "deployer", "-n", "team-a", "--role=deployer", "--serviceaccount=team-a:deployer"],
        &["create", "clusterrole", "namespace-reader", "--verb=get,list", "--resource=namespaces"],
        &[
            "create",
            "clusterrolebinding",
            "namespace-readers",
            "--clusterrole=namespace-reader",
            "--group=system:serviceaccounts:team-a",
        ],
    ] {
        kubectl("create", strings(args)).await;
    }
    let role = kubectl("get", strings(&["get", "role", "deployer", "-n", "team-a", "-o", "json"])).await;
    let role: serde_json::Value = serde_json::from_str(&role).expect("role JSON");
    assert_eq!(
        role["rules"],
        serde_json::json!([
            {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "create"]},
            {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "create"]}
        ])
    );
    let binding = kubectl(
        "get",
        strings(&[
            "get",
            "clusterrolebinding",
            "namespace-readers",
            "-o",
            "jsonpath={.subjects[0].name} {.roleRef.name}",
        ]),
    )
    .await;
    assert_eq!(binding, "system:serviceaccounts:team-a namespace-reader");

    // A TokenRequest's token authenticates as the ServiceAccount, which now holds what was just bound.
    let token = kubectl("token", strings(&["create", "token", "deployer", "-n", "team-a", "--duration=15m"])).await;
    let token = token.trim();
    assert_eq!(token.split('.').count(), 3, "a JWT-shaped token");
    let authority = peer.file("ca.crt", peer.cluster.certificate_authority());
    let with_token = |home: &'static str, args: &[&str]| {
        let mut full: Vec<String> = strings(args);
        full.extend([
            format!("--token={token}"),
            format!("--server={}", peer.cluster.url()),
            format!("--certificate-authority={authority}"),
        ]);
        let empty = peer.file("empty.kubeconfig", "apiVersion: v1\nkind: Config\n");
        let peer = &peer;
        async move {
            let args: Vec<&str> = full.iter().map(String::as_str).collect();
            peer_run(peer, "kubectl", &PathBuf::from(empty), home, &args).await
        }
    };
    let whoami = with_token(
        "token-whoami",
        &["auth", "whoami", "-o", "jsonpath={.status.userInfo.username} {.status.userInfo.groups}"],
    )
    .await;
    assert_eq!(
        text(&whoami.stdout),
        "system:serviceaccount:team-a:deployer [\"system:serviceaccounts\",\"system:serviceaccounts:team-a\",\"system:authenticated\"]",
        "{}",
        text(&whoami.stderr)
    );
    let created = with_token("token-create", &["create", "configmap", "made-with-a-token", "-n", "team-a"]).await;
    assert!(created.status.success(), "{}", text(&created.stderr));
    let listed = with_token("token-list", &["get", "namespaces", "-o", "name"]).await;
    assert!(text(&listed.stdout).contains("namespace/team-a"), "{}", text(&listed.stderr));
    let refused = with_token("token-refused", &["create", "configmap", "elsewhere", "-n", "kube-system"]).await;
    assert_eq!(
        text(&refused.stderr).trim(),
        "error: failed to create configmap: configmaps is forbidden: User \"system:serviceaccount:team-a:deployer\" \
         cannot create resource \"configmaps\" in API group \"\" in the namespace \"kube-system\""
    );

    // Deleting the ServiceAccount invalidates its tokens: 401, which kubectl words as for a real server.
    kubectl("delete", strings(&["delete", "serviceaccount", "deployer", "-n", "team-a"])).await;
    let unauthorized = with_token("token-deleted", &["get", "configmaps", "-n", "team-a"]).await;
    assert_eq!(
        text(&unauthorized.stderr).lines().last(),
        Some("error: You must be logged in to the server (the server has asked for the client to provide credentials)")
    );
}

/// The Forbidden Status body of a refused request, and that nothing was written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_without_rights_is_refused_with_the_apiservers_words_and_nothing_is_written() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let mallory = kubeconfig(&peer, "mallory.kubeconfig", &user("mallory"));
    let writes_before = peer.cluster.record().len();

    let output =
        peer_run(&peer, "kubectl", &mallory, "create", &["create", "configmap", "planted", "-n", "default"]).await;
    assert_eq!(
        text(&output.stderr).trim(),
        "error: failed to create configmap: configmaps is forbidden: User \"mallory\" cannot create resource \
         \"configmaps\" in API group \"\" in the namespace \"default\""
    );
    let output =
        peer_run(&peer, "kubectl", &mallory, "scale", &["scale", "deployment", "web", "--replicas=3", "-n", "shop"])
            .await;
    assert!(
        text(&output.stderr).contains(
            "deployments.apps \"web\" is forbidden: User \"mallory\" cannot get resource \"deployments\" in API group \"apps\" in the namespace \"shop\""
        ),
        "{}",
        text(&output.stderr)
    );

    // kube-rs sees the same Status: 403, reason Forbidden, the resource in the details.
    let client = kube::Client::try_from(peer.cluster.kube_config_for(&user("mallory"))).expect("client");
    let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), "kube-system");
    let planted: ConfigMap =
        serde_json::from_value(serde_json::json!({"metadata": {"name": "planted"}})).expect("object");
    match config_maps.create(&PostParams::default(), &planted).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!((status.code, status.reason.as_str()), (403, "Forbidden"));
            assert_eq!(
                status.message,
                "configmaps is forbidden: User \"mallory\" cannot create resource \"configmaps\" in API group \"\" in \
                 the namespace \"kube-system\""
            );
            assert_eq!(status.details.map(|details| details.kind), Some("configmaps".to_string()));
        }
        other => panic!("expected a 403, got {other:?}"),
    }
    // A subresource and a cluster-scoped resource are named as the authorizer saw them.
    let deployments: Api<k8s_openapi::api::apps::v1::Deployment> = Api::namespaced(client.clone(), "shop");
    let scaled = deployments
        .patch_scale("web", &Default::default(), &kube::api::Patch::Merge(serde_json::json!({"spec": {"replicas": 3}})))
        .await;
    assert!(
        matches!(scaled, Err(kube::Error::Api(ref status)) if status.message == "deployments.apps \"web\" is forbidden: User \"mallory\" \
            cannot patch resource \"deployments/scale\" in API group \"apps\" in the namespace \"shop\""),
        "{scaled:?}"
    );
    let output = peer_run(&peer, "kubectl", &mallory, "namespace", &["create", "namespace", "planted"]).await;
    assert_eq!(
        text(&output.stderr).trim(),
        "Error from server (Forbidden): namespaces is forbidden: User \"mallory\" cannot create resource \"namespaces\" \
         in API group \"\" at the cluster scope"
    );
    // Watches and discovery are authorized too; the non-resource message names the path.
    let watched = config_maps.watch(&Default::default(), "0").await.map(|_| ());
    assert!(
        matches!(watched, Err(kube::Error::Api(ref status)) if status.message.contains("cannot watch resource \"configmaps\"")),
        "{watched:?}"
    );
    let anonymous = kube::Client::try_from({
        let mut config = peer.cluster.kube_config();
        config.auth_info.token = None;
        config
    })
    .expect("client");
    let discovery = anonymous.list_api_groups().await;
    assert!(
        matches!(discovery, Err(kube::Error::Api(ref status)) if status.message == "forbidden: User \"system:anonymous\" cannot get path \"/apis\""),
        "{discovery:?}"
    );
    let version = anonymous.apiserver_version().await;
    assert!(version.is_ok(), "system:public-info-viewer lets anyone read /version: {version:?}");

    assert_eq!(peer.cluster.record().len(), writes_before, "nothing written");
    let admin_view: Api<ConfigMap> = Api::all(kube::Client::try_from(peer.cluster.kube_config()).expect("client"));
    let planted = admin_view.list(&Default::default()).await.expect("list as admin");
    assert!(planted.items.iter().all(|item| item.metadata.name.as_deref() != Some("planted")));
}

/// kube-apiserver's Unauthorized Status for a token it did not issue, and the impersonation filter's answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_tokens_and_impersonation_without_the_verb_are_refused() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let mut forged = peer.cluster.kube_config();
    forged.auth_info.token = Some("eyJhbGciOiJSUzI1NiJ9.e30.c2lnbmF0dXJl".to_string().into());
    let client = kube::Client::try_from(forged).expect("client");
    let answer = client.list_api_groups().await;
    assert!(
        matches!(answer, Err(kube::Error::Api(ref status)) if status.code == 401 && status.reason == "Unauthorized" && status.message == "Unauthorized"),
        "{answer:?}"
    );

    // (`kubectl create configmap` reads the Status; kubectl's discovery prints a refused request as "unknown",
    // from a real server too.)
    let alice = kubeconfig(&peer, "alice.kubeconfig", &user("alice"));
    let output = peer_run(&peer, "kubectl", &alice, "as-bob", &["create", "configmap", "x", "--as=bob"]).await;
    assert_eq!(
        text(&output.stderr).trim(),
        "error: failed to create configmap: users \"bob\" is forbidden: User \"alice\" cannot impersonate resource \
         \"users\" in API group \"\" at the cluster scope"
    );
    // Impersonating a ServiceAccount is `impersonate` on serviceaccounts in its namespace.
    let output = peer_run(
        &peer,
        "kubectl",
        &alice,
        "as-sa",
        &["create", "configmap", "x", "--as=system:serviceaccount:team-a:deployer"],
    )
    .await;
    assert_eq!(
        text(&output.stderr).trim(),
        "error: failed to create configmap: serviceaccounts \"deployer\" is forbidden: User \"alice\" cannot \
         impersonate resource \"serviceaccounts\" in API group \"\" in the namespace \"team-a\""
    );
    // An admin impersonates anyone: `kubectl auth whoami --as` shows the impersonated user with its groups.
    let admin = peer.kubeconfig();
    let output = peer_run(
        &peer,
        "kubectl",
        &admin,
        "as-ops",
        &[
            "auth",
            "whoami",
            "--as=bob",
            "--as-group=ops",
            "-o",
            "jsonpath={.status.userInfo.username} {.status.userInfo.groups}",
        ],
    )
    .await;
    assert_eq!(text(&output.stdout), "bob [\"ops\",\"system:authenticated\"]", "{}", text(&output.stderr));
}

/// A user may not write a role or binding granting more than they hold, unless allowed `escalate` or `bind`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn escalation_is_refused_unless_escalate_or_bind_allow_it() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    apply(&peer, "teams.yaml", TEAMS).await;
    apply(
        &peer,
        "dev.yaml",
        r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: dev-admin, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: dev}
"#,
    )
    .await;
    let dev = kubeconfig(&peer, "dev.kubeconfig", &user("dev"));
    let run = |home: &'static str, args: &'static [&'static str]| {
        let (peer, dev) = (&peer, dev.clone());
        async move { peer_run(peer, "kubectl", &dev, home, args).await }
    };
    // Rules the user holds (admin in team-a) may be granted.
    let output =
        run("held", &["create", "role", "reader", "-n", "team-a", "--verb=get", "--resource=configmaps"]).await;
    assert!(output.status.success(), "{}", text(&output.stderr));
    // Rules it does not hold may not (ConfirmNoEscalation's message).
    let output =
        run("nodes", &["create", "role", "nodes", "-n", "team-a", "--verb=get,list", "--resource=nodes"]).await;
    assert_eq!(
        text(&output.stderr).trim(),
        "Error from server (Forbidden): roles.rbac.authorization.k8s.io \"nodes\" is forbidden: user \"dev\" \
         (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n\
         {APIGroups:[\"\"], Resources:[\"nodes\"], Verbs:[\"get\" \"list\"]}"
    );
    // Binding cluster-admin in its namespace would grant what it does not hold.
    let output =
        run("bind", &["create", "rolebinding", "root", "-n", "team-a", "--clusterrole=cluster-admin", "--user=dev"])
            .await;
    assert!(
        text(&output.stderr).starts_with(
            "error: failed to create rolebinding: rolebindings.rbac.authorization.k8s.io \"root\" is forbidden: user \"dev\" \
             (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n"
        ),
        "{}",
        text(&output.stderr)
    );
    // An aggregation rule needs every right, even for a user allowed to create ClusterRoles.
    apply(
        &peer,
        "clusterrole-writer.yaml",
        r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: clusterrole-writer}
rules:
- apiGroups: [rbac.authorization.k8s.io]
  resources: [clusterroles]
  verbs: [create]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: dev-writes-clusterroles}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: clusterrole-writer}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: dev}
"#,
    )
    .await;
    let output = run("aggregate", &["create", "clusterrole", "gatherer", "--aggregation-rule=team=a"]).await;
    assert_eq!(
        text(&output.stderr).trim(),
        "Error from server (Forbidden): clusterroles.rbac.authorization.k8s.io \"gatherer\" is forbidden: must have \
         cluster-admin privileges to use the aggregationRule"
    );
    // `bind` on the ClusterRole, granted by the admin, lets the user bind it without holding its rules.
    apply(
        &peer,
        "binder.yaml",
        r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: bind-view, namespace: team-a}
rules:
- apiGroups: [rbac.authorization.k8s.io]
  resources: [clusterroles]
  verbs: [bind]
  resourceNames: [cluster-admin]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: dev-binds, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: bind-view}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: dev}
"#,
    )
    .await;
    let output =
        run("bound", &["create", "rolebinding", "root", "-n", "team-a", "--clusterrole=cluster-admin", "--user=dev"])
            .await;
    assert!(output.status.success(), "{}", text(&output.stderr));
    // Now the user holds cluster-admin's rules in team-a, and may grant them in a Role there.
    let output =
        run("now-held", &["create", "role", "nodes", "-n", "team-a", "--verb=get,list", "--resource=nodes"]).await;
    assert!(output.status.success(), "{}", text(&output.stderr));
}

/// The apiserver's message in a Helm or berth error: from the qualified resource to the end of its sentence.
fn apiserver_message(output: &str) -> Option<String> {
    let line = output.lines().find(|line| line.contains(" is forbidden: User "))?;
    let at = line.find(" is forbidden: User ")?;
    let start = line[..at].rfind([' ', ':']).map_or(0, |index| index + 1);
    Some(line[start..].trim_end_matches(" (Forbidden, 403)").to_string())
}

/// Helm and berth, as a user who may only touch team-a (or acting as one with `--kube-as-user`), upgrading
/// into kube-system: the same Forbidden message, and nothing written there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn helm_and_berth_are_refused_with_the_same_forbidden_message() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    apply(&peer, "teams.yaml", TEAMS).await;
    apply(
        &peer,
        "dev.yaml",
        r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: dev-admin, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: dev}
"#,
    )
    .await;
    std::fs::create_dir_all(peer.dir.path().join("tiny/templates")).expect("chart directory");
    peer.file("tiny/Chart.yaml", "apiVersion: v2\nname: tiny\nversion: 0.1.0\n");
    peer.file(
        "tiny/templates/settings.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-settings\ndata:\n  mode: one\n",
    );
    let dev = kubeconfig(&peer, "dev.kubeconfig", &user("dev"));
    let admin = peer.kubeconfig();
    let expected = "secrets is forbidden: User \"dev\" cannot list resource \"secrets\" in API group \"\" in the namespace \"kube-system\"";
    let upgrade = ["upgrade", "--install", "tiny", "tiny", "-n", "kube-system"];
    let helm = peer_run(&peer, "helm", &dev, "helm", &upgrade).await;
    let helm_as =
        peer_run(&peer, "helm", &admin, "helm-as", &[&upgrade[..], &["--kube-as-user", "dev"]].concat()).await;
    let berth_args = |kubeconfig: &PathBuf, extra: &[&str]| {
        let mut args: Vec<String> = upgrade.iter().map(|arg| (*arg).to_string()).collect();
        args.extend(["--kubeconfig".to_string(), kubeconfig.display().to_string()]);
        args.extend(extra.iter().map(|arg| (*arg).to_string()));
        args
    };
    let berth = |args: Vec<String>| {
        let peer = &peer;
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let mut command = crate::run::command(&args);
            command.current_dir(peer.dir.path());
            tokio::task::spawn_blocking(move || command.output().expect("berth runs")).await.expect("joined")
        }
    };
    let berth_dev = berth(berth_args(&dev, &[])).await;
    let berth_as = berth(berth_args(&admin, &["--as", "dev"])).await;
    let berth_helm_spelling = berth(berth_args(&admin, &["--kube-as-user", "dev"])).await;
    for (who, output) in [
        ("helm", &helm),
        ("helm --kube-as-user", &helm_as),
        ("berth", &berth_dev),
        ("berth --as", &berth_as),
        ("berth --kube-as-user", &berth_helm_spelling),
    ] {
        let stderr = text(&output.stderr);
        assert!(!output.status.success(), "{who} refused");
        assert_eq!(apiserver_message(&stderr).as_deref(), Some(expected), "{who}: {stderr}");
    }
    assert!(text(&helm.stderr).starts_with("Error: query: failed to query with labels: "), "{}", text(&helm.stderr));
    assert!(
        text(&berth_dev.stderr).contains(&format!("  Caused by: {expected} (Forbidden, 403)\n")),
        "{}",
        text(&berth_dev.stderr)
    );

    // As the admin it works, and nothing of the refused runs is in kube-system.
    let secrets: Api<k8s_openapi::api::core::v1::Secret> =
        Api::namespaced(kube::Client::try_from(peer.cluster.kube_config()).expect("client"), "kube-system");
    let stored = secrets.list(&Default::default()).await.expect("list as admin");
    assert!(stored.items.is_empty(), "no release record in kube-system");
    let config_maps: Api<ConfigMap> =
        Api::namespaced(kube::Client::try_from(peer.cluster.kube_config()).expect("client"), "kube-system");
    assert!(config_maps.get_opt("tiny-settings").await.expect("get as admin").is_none());
}

/// `berth sim serve --user` and `--service-account` write kubeconfigs kubectl authenticates with.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sim_serve_writes_a_kubeconfig_per_user_and_service_account() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = |name: &str| dir.path().join(name).display().to_string();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_berth"))
        .args(["sim", "serve", "--port", "0", "--kubeconfig", &path("admin")])
        .args(["--user", &format!("alice,team-a,system:monitoring={}", path("alice"))])
        .args(["--service-account", &format!("team-a/deployer={}", path("deployer"))])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("berth sim serve starts");
    let stderr = child.stderr.take().expect("stderr");
    let (home, kubectl) = (dir.path().join("home"), peers_dir().join("kubectl"));
    let (alice, deployer) = (path("alice"), path("deployer"));
    let checked = tokio::task::spawn_blocking(move || {
        use std::io::BufRead;
        // The announcement comes after every kubeconfig is written.
        let announced = std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
            .any(|line| line.starts_with("simulated cluster serving at"));
        let whoami = |kubeconfig: &str| {
            let output = Command::new(&kubectl)
                .args(["auth", "whoami", "-o", "jsonpath={.status.userInfo.username} {.status.userInfo.groups}"])
                .env("KUBECONFIG", kubeconfig)
                .env("HOME", &home)
                .output()
                .expect("kubectl runs");
            text(&output.stdout)
        };
        let answers = (announced, whoami(&alice), whoami(&deployer));
        Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill runs");
        let _ = child.wait();
        answers
    });
    let (announced, alice, deployer) =
        tokio::time::timeout(Duration::from_secs(60), checked).await.expect("bounded").expect("joined");
    assert!(announced);
    assert_eq!(alice, "alice [\"team-a\",\"system:monitoring\",\"system:authenticated\"]");
    assert_eq!(
        deployer,
        "system:serviceaccount:team-a:deployer [\"system:serviceaccounts\",\"system:serviceaccounts:team-a\",\"system:authenticated\"]"
    );
}
