//! Charts released by berth and continued by real Helm 4.1.4, and the other way round, on the simulated cluster:
//! a chart with a library subchart, a conditional subchart, a CRD in `crds/` and a custom resource of it, a hook
//! and NOTES. Helm reads berth's records (`get values|manifest|hooks|notes`, `history`), upgrades and rolls back
//! berth's release without `--force-conflicts`, and berth upgrades a release Helm installed.

use crate::peers::PeerCluster;
use berth_sim::SimConfig;

const CHART: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/release-charts/shop");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn helm_continues_a_chart_release_berth_installed() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let out = peer.berth_ok(&["install", "shop", CHART, "--set", "replicas=2", "--wait", "--timeout", "2m"]).await;
    assert!(
        out.contains("STATUS: deployed") && out.contains("NOTES:\nshop is installed in default with 2 replica(s)."),
        "{out}"
    );

    // Helm reads the record as its own.
    assert_eq!(peer.ok("helm", &["get", "values", "shop"]).await, "USER-SUPPLIED VALUES:\nreplicas: 2\n");
    let manifest = peer.ok("helm", &["get", "manifest", "shop"]).await;
    let template =
        crate::run::stdout(&crate::run::berth(&["template", "shop", CHART, "--set", "replicas=2", "--no-hooks"], None));
    assert_eq!(manifest.trim(), template.trim(), "the recorded manifest is what `berth template` renders");
    assert!(!manifest.contains("kind: CustomResourceDefinition"), "crds/ are not part of the manifest");
    let hooks = peer.ok("helm", &["get", "hooks", "shop"]).await;
    assert!(
        hooks.contains("# Source: shop/templates/migrate.yaml")
            && hooks.contains("helm.sh/hook: pre-install,pre-upgrade"),
        "{hooks}"
    );
    assert_eq!(
        peer.ok("helm", &["get", "notes", "shop"]).await.trim(),
        "NOTES:\nshop is installed in default with 2 replica(s)."
    );
    let list = peer.ok("helm", &["list", "-o", "json"]).await;
    assert!(list.contains("\"chart\":\"shop-1.2.0\"") && list.contains("\"app_version\":\"2.0\""), "{list}");

    // Helm upgrades and rolls back berth's release with no extra flags (same field manager, same marks).
    peer.ok("helm", &["upgrade", "shop", CHART, "--set", "replicas=3", "--wait", "--timeout", "2m"]).await;
    peer.ok("helm", &["rollback", "shop", "1", "--wait", "--timeout", "2m"]).await;
    // And berth goes on from there, keeping the user's values.
    peer.berth_ok(&["upgrade", "shop", CHART, "--reuse-values", "--set", "mode=slow", "--wait", "--timeout", "2m"])
        .await;
    assert_eq!(peer.ok("helm", &["get", "values", "shop"]).await, "USER-SUPPLIED VALUES:\nmode: slow\nreplicas: 2\n");
    let statuses: Vec<(u64, String)> =
        peer.helm_history("shop", "default").await.into_iter().map(|(r, s, _)| (r, s)).collect();
    assert_eq!(
        statuses,
        [(1, "superseded"), (2, "superseded"), (3, "superseded"), (4, "deployed")].map(|(r, s)| (r, s.to_string()))
    );

    // The CRD of crds/ stays after the release is gone, as Helm leaves it.
    peer.berth_ok(&["uninstall", "shop", "--wait"]).await;
    let crds = peer.ok("kubectl", &["get", "crd", "widgets.shop.example.com", "-o", "name"]).await;
    assert_eq!(crds.trim(), "customresourcedefinition.apiextensions.k8s.io/widgets.shop.example.com");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn berth_continues_a_chart_release_helm_installed() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    peer.ok("helm", &["install", "shop", CHART, "--set", "cache.enabled=false", "--wait", "--timeout", "2m"]).await;
    let out = peer.berth_ok(&["upgrade", "shop", CHART, "--set", "replicas=2", "--wait", "--timeout", "2m"]).await;
    assert!(out.contains("REVISION: 2") && out.contains("DESCRIPTION: Upgrade complete"), "{out}");
    // No --reuse-values and new values given: Helm's default records only the new ones.
    assert_eq!(peer.ok("helm", &["get", "values", "shop"]).await, "USER-SUPPLIED VALUES:\nreplicas: 2\n");
    let cache = peer.run("kubectl", &["get", "configmap", "shop-cache", "-o", "name"]).await;
    assert!(cache.status.success(), "the cache subchart is enabled again by its default");
    peer.berth_ok(&["rollback", "shop", "1", "--wait", "--timeout", "2m"]).await;
    let last = peer.helm_history("shop", "default").await.pop().expect("a revision");
    assert_eq!((last.0, last.1.as_str(), last.2.as_str()), (3, "deployed", "Rollback to 1"));
    peer.ok("helm", &["upgrade", "shop", CHART, "--reuse-values", "--wait", "--timeout", "2m"]).await;
}

/// The password the `keeper` chart generated, as the cluster holds it.
async fn password(peer: &PeerCluster) -> String {
    peer.ok("kubectl", &["get", "secret", "keep-auth", "-o", "jsonpath={.data.password}"]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lookup_answers_from_the_cluster_so_generated_passwords_survive_upgrades() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let keeper = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/release-charts/keeper");
    peer.berth_ok(&["install", "keep", keeper]).await;
    let first = password(&peer).await;
    assert_eq!(first.len(), 24, "16 random characters, base64: {first}");
    peer.berth_ok(&["upgrade", "keep", keeper]).await;
    assert_eq!(password(&peer).await, first, "berth's upgrade found the Secret through lookup");
    peer.ok("helm", &["upgrade", "keep", keeper]).await;
    assert_eq!(password(&peer).await, first, "and so does Helm's, continuing berth's release");
    // Offline, `lookup` finds nothing: `berth template` generates a new one, as `helm template` does.
    let offline = crate::run::stdout(&crate::run::berth(&["template", "keep", keeper], None));
    assert!(!offline.contains(&first), "{offline}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diff_shows_what_an_upgrade_or_a_rollback_would_change_and_writes_nothing() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    peer.berth_ok(&["install", "shop", CHART]).await;
    let diff = |args: &'static [&'static str]| {
        let peer = &peer;
        async move {
            let output = peer.berth(args).await;
            (output.status.code(), String::from_utf8_lossy(&output.stdout).into_owned())
        }
    };

    // The same chart and values: nothing changes, exit 0 even with --detailed-exitcode.
    let (code, out) = diff(&["diff", "upgrade", "shop", CHART, "--detailed-exitcode"]).await;
    assert_eq!((code, out.as_str()), (Some(0), ""), "no change");

    // A value: the Deployment and the ConfigMap change, exit 2, and the cluster still has 1 replica.
    let (code, out) = diff(&["diff", "upgrade", "shop", CHART, "--set", "replicas=3", "--detailed-exitcode"]).await;
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("default, shop-shop-web, Deployment (apps) has changed:\n"), "{out}");
    assert!(out.contains("\n-   replicas: 1\n+   replicas: 3\n"), "{out}");
    assert!(out.contains("default, shop-shop-settings, ConfigMap (v1) has changed:\n"), "{out}");
    assert!(out.contains("\n-   replicas: \"1\"\n+   replicas: \"3\"\n"), "{out}");
    let replicas = peer.ok("kubectl", &["get", "deployment", "shop-shop-web", "-o", "jsonpath={.spec.replicas}"]).await;
    assert_eq!(replicas, "1", "a diff writes nothing");
    assert_eq!(peer.helm_history("shop", "default").await.len(), 1, "nor a revision");

    // Without --detailed-exitcode, changes are success.
    let (code, _) = diff(&["diff", "upgrade", "shop", CHART, "--set", "replicas=3"]).await;
    assert_eq!(code, Some(0));

    // After the upgrade, a rollback would take the replicas back.
    peer.berth_ok(&["upgrade", "shop", CHART, "--set", "replicas=3"]).await;
    let (code, out) = diff(&["diff", "rollback", "shop", "--detailed-exitcode"]).await;
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("\n-   replicas: 3\n+   replicas: 1\n"), "{out}");
    let (code, out) = diff(&["diff", "rollback", "shop", "2", "--detailed-exitcode"]).await;
    assert_eq!((code, out.as_str()), (Some(0), ""), "rolling back to the current revision changes nothing");

    // Errors exit 1 with --detailed-exitcode, as helm-diff does: an unknown release, a missing revision.
    let (code, _) = diff(&["diff", "upgrade", "nothing", CHART, "--detailed-exitcode"]).await;
    assert_eq!(code, Some(1));
    let (code, _) = diff(&["diff", "rollback", "shop", "9", "--detailed-exitcode"]).await;
    assert_eq!(code, Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diff_never_shows_a_secret_value() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |value: &str| {
        let secret = format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: vault\nstringData:\n  token: {value}\n  same: unchanged-canary\n"
        );
        std::fs::write(dir.path().join("secret.yaml"), secret).expect("write");
    };
    write("first-canary-value");
    let path = dir.path().to_str().expect("utf-8 path");
    peer.berth_ok(&["install", "vault", path]).await;
    write("second-canary-value");
    let output = peer.berth(&["diff", "upgrade", "vault", path, "--detailed-exitcode"]).await;
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(2), "{stdout}{stderr}");
    for secret in ["first-canary-value", "second-canary-value", "unchanged-canary"] {
        use base64::Engine;
        let encoded = base64::engine::general_purpose::STANDARD.encode(secret);
        for shown in [&stdout, &stderr] {
            assert!(!shown.contains(secret) && !shown.contains(&encoded), "{secret} shown:\n{shown}");
        }
    }
    // Values shown as sizes, as helm-diff redacts them: the changed one marked, the same one REDACTED.
    for masked in ["-------- # (18 bytes)", "++++++++ # (19 bytes)", "REDACTED # (16 bytes)"] {
        assert!(stdout.contains(masked), "{masked} in:\n{stdout}");
    }
}

/// The writes of kind `kind` named `name`, as positions in the simulated cluster's write record.
fn first_write(peer: &PeerCluster, kind: &str, name: &str) -> Option<usize> {
    peer.cluster.record().iter().position(|entry| entry.kind() == kind && entry.event.name == name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crds_are_installed_before_pre_install_hooks_as_helm_installs_them() {
    let gadget = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/release-charts/gadget");
    for tool in ["berth", "helm"] {
        let peer = PeerCluster::start(SimConfig::default()).await;
        match tool {
            "berth" => drop(peer.berth_ok(&["install", "g", gadget, "--wait"]).await),
            _ => drop(peer.ok("helm", &["install", "g", gadget, "--wait"]).await),
        }
        let crd = first_write(&peer, "CustomResourceDefinition", "gadgets.gadget.example.com").expect("CRD written");
        let hook = first_write(&peer, "Gadget", "g-seed").expect("the hook written");
        let settings = first_write(&peer, "ConfigMap", "g-settings").expect("the ConfigMap written");
        assert!(crd < hook && hook < settings, "{tool}: CRD {crd}, hook {hook}, objects {settings}");
        assert_eq!(peer.helm_history("g", "default").await[0].1, "deployed", "{tool}");
    }
}
