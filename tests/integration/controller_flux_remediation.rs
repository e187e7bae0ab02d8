//! What a failed rollout leaves behind, as Flux's controls say, on the simulated cluster with the controller
//! in-process: `spec.upgrade.cleanupOnFail` (the objects a failed upgrade created deleted again),
//! `spec.rollback.cleanupOnFail` and `spec.rollback.force` reaching the rollback remediation runs, and uninstall
//! remediation following `spec.uninstall` (`keepHistory`, `disableHooks`) as Flux's `newUninstall` builds it.
//! Real Helm 4.1.4 reads the histories.

use crate::controller_flux::{broken, flux_chart_with, has, helm, helm_history, spec, stalled, start_with, statuses};
use crate::controller_support::*;
use berth_sim::store::Verb;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

/// A ConfigMap `NAME-extra`, rendered when `.Values.extra`.
const EXTRA: &str = "{{- if .Values.extra }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-extra\ndata:\n  made-by: chart\n{{- end }}\n";

/// A ConfigMap `NAME-guarded` labelled `guarded: "yes"` (what [`guard`] refuses to create), rendered when
/// `.Values.guarded`.
const GUARDED: &str = "{{- if .Values.guarded }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-guarded\n  labels:\n    guarded: \"yes\"\ndata:\n  made-by: chart\n{{- end }}\n";

/// A pre-delete hook Job `NAME-pre-delete`, done at once.
const PRE_DELETE_HOOK: &str = concat!(
    "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}-pre-delete\n",
    "  annotations:\n    helm.sh/hook: pre-delete\n    sim.berth.dev/job-duration: 100ms\n",
    "spec:\n  template:\n    spec:\n      restartPolicy: Never\n",
    "      containers: [{name: clean, image: clean:1}]\n",
);

/// [`broken`] with `more` values.
fn broken_with(more: Value) -> Value {
    let mut values = broken();
    if let (Some(values), Some(more)) = (values.as_object_mut(), more.as_object()) {
        values.extend(more.clone());
    }
    values
}

fn config_maps(env: &Env) -> Api<ConfigMap> {
    Api::namespaced(env.client(), "shop")
}

async fn exists(env: &Env, name: &str) -> bool {
    config_maps(env).get_opt(name).await.expect("read").is_some()
}

/// The writes the simulated cluster recorded for object `name` of `kind`, in order.
fn writes(env: &Env, kind: &str, name: &str) -> Vec<Verb> {
    env.sim
        .record()
        .iter()
        .filter(|entry| entry.kind() == kind && entry.event.name == name)
        .map(|entry| entry.verb)
        .collect()
}

/// Waits until Release `name` is Stalled, its remediation reported with `Remediated` `status` and `reason`.
async fn remediated(env: &Env, name: &str, status: &str, reason: &str) -> Value {
    let what = format!("Stalled, Remediated={status} ({reason})");
    env.wait_release("shop", name, &what, |object| stalled(object) && has(object, "Remediated", status, reason)).await
}

/// How often the ConfigMap `name` was deleted.
fn deletions(env: &Env, name: &str) -> usize {
    writes(env, "ConfigMap", name).iter().filter(|verb| **verb == Verb::Delete).count()
}

/// A validating webhook that refuses to create ConfigMaps labelled `guarded: "yes"` in every namespace: its
/// Service does not exist, so the API server cannot call it and `failurePolicy: Fail` refuses the request.
async fn guard(env: &Env) {
    let webhook = json!({
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "guard"},
        "webhooks": [{
            "name": "guard.example.com", "admissionReviewVersions": ["v1"], "sideEffects": "None",
            "failurePolicy": "Fail",
            "clientConfig": {"service": {"namespace": "shop", "name": "guard", "path": "/validate"}},
            "objectSelector": {"matchLabels": {"guarded": "yes"}},
            "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}],
        }],
    });
    let webhooks: Api<k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration> =
        Api::all(env.client());
    let webhook = serde_json::from_value(webhook).expect("a webhook configuration");
    webhooks.create(&PostParams::default(), &webhook).await.expect("the webhook configuration is created");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_upgrade_deletes_what_it_created_with_cleanup_on_fail() {
    let (env, dir) = start_with("shop", &flux_chart_with(&[("web/templates/extra.yaml", EXTRA)])).await;
    let running = Running::start(&env, test_options());
    let mut clean = spec(json!({"message": "first"}));
    clean["upgrade"] = json!({"cleanupOnFail": true});
    env.create_release("shop", "clean", clean).await;
    env.create_release("shop", "keep", spec(json!({"message": "first"}))).await;
    for name in ["clean", "keep"] {
        env.wait_release("shop", name, "installed", is_ready).await;
    }

    // An upgrade that adds a ConfigMap and never gets ready: no retry, no remediation.
    for name in ["clean", "keep"] {
        env.patch_spec("shop", name, json!({"values": broken_with(json!({"extra": true}))})).await;
    }
    for name in ["clean", "keep"] {
        let failed = env.wait_release("shop", name, "Stalled after the upgrade", stalled).await;
        assert!(has(&failed, "Ready", "False", "UpgradeFailed"), "{failed:#}");
        // Revision 1 stays deployed, revision 2 is recorded failed: Helm reads it so.
        let history = helm_history(&dir, name, "shop").await.expect("a history");
        assert_eq!(statuses(&history), [(1, "deployed"), (2, "failed")], "{name}: {history:?}");
    }
    // cleanupOnFail: what the failed upgrade created is deleted again (Helm's CleanupOnFail)...
    assert!(!exists(&env, "clean-extra").await, "the failed upgrade's new ConfigMap is deleted");
    assert_eq!(deletions(&env, "clean-extra"), 1, "{:?}", writes(&env, "ConfigMap", "clean-extra"));
    // ... and without it, kept for debugging.
    assert!(exists(&env, "keep-extra").await, "the failed upgrade's new ConfigMap is kept");
    assert_eq!(deletions(&env, "keep-extra"), 0, "{:?}", writes(&env, "ConfigMap", "keep-extra"));
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rollback_remediation_deletes_what_a_refused_rollback_created_with_rollback_cleanup_on_fail() {
    let chart = flux_chart_with(&[("web/templates/extra.yaml", EXTRA), ("web/templates/guarded.yaml", GUARDED)]);
    let (env, dir) = start_with("shop", &chart).await;
    let running = Running::start(&env, test_options());
    for name in ["clean", "keep"] {
        let mut release = spec(json!({"message": "first", "extra": true, "guarded": true}));
        release["upgrade"] = json!({"remediation": {"remediateLastFailure": true}});
        if name == "clean" {
            release["rollback"] = json!({"cleanupOnFail": true});
        }
        env.create_release("shop", name, release).await;
    }
    for name in ["clean", "keep"] {
        env.wait_release("shop", name, "installed", is_ready).await;
    }
    // Both extra ConfigMaps deleted by hand, and the guarded one may no longer be created: the rollback to
    // revision 1 creates `NAME-extra` again, then the server refuses `NAME-guarded`.
    for name in ["clean", "keep"] {
        for suffix in ["extra", "guarded"] {
            let object = format!("{name}-{suffix}");
            config_maps(&env).delete(&object, &DeleteParams::default()).await.expect("deleted by hand");
        }
    }
    guard(&env).await;
    for name in ["clean", "keep"] {
        let values = broken_with(json!({"extra": false, "guarded": false}));
        env.patch_spec("shop", name, json!({"values": values})).await;
    }
    for name in ["clean", "keep"] {
        let failed = remediated(&env, name, "False", "RollbackFailed").await;
        let (_, _, message) = condition(&failed, "Remediated").expect("Remediated");
        assert!(message.contains("failed calling webhook \"guard.example.com\""), "why: {message}");
        // Revision 1 stays deployed; the rollback, revision 3, is recorded failed: Helm reads it so.
        let history = helm_history(&dir, name, "shop").await.expect("a history");
        assert_eq!((history.len(), statuses(&history)[0]), (3, (1, "deployed")), "{name}: {history:?}");
        assert_eq!(history[2].1, "failed", "{name}: {history:?}");
        assert!(history[2].2.starts_with(&format!("Rollback \"{name}\" failed")), "{history:?}");
        // The server's words, as Helm's rollback records them (`... Internal error occurred: failed calling
        // webhook ...`), not the client's error structure.
        assert!(history[2].2.contains(": Internal error occurred: failed calling webhook"), "{history:?}");
        assert!(!history[2].2.contains("ApiError") && !message.contains("ApiError"), "{history:?} {message}");
    }
    // rollback.cleanupOnFail: the ConfigMap the refused rollback created is deleted again (Helm's rollback
    // `CleanupOnFail`); without it, it stays.
    assert!(!exists(&env, "clean-extra").await, "deleted after the refused rollback");
    assert_eq!(deletions(&env, "clean-extra"), 2, "by hand, then the clean-up");
    assert!(exists(&env, "keep-extra").await, "created again by the rollback and kept");
    assert_eq!(deletions(&env, "keep-extra"), 1, "by hand only");
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rollback_remediation_replaces_the_objects_of_a_release_applied_client_side_with_rollback_force() {
    let (env, dir) = start_with("shop", &flux_chart_with(&[])).await;
    // Installed by Helm 4.1.4 applying client-side, then taken over by a Release each.
    let chart = dir.path().join("web-1.0.0.tgz");
    std::fs::write(&chart, flux_chart_with(&[])).expect("chart written");
    let chart = chart.display().to_string();
    for name in ["forced", "patched"] {
        let output = helm(&dir, &["install", name, &chart, "-n", "shop", "--server-side=false"]).await;
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    }
    let running = Running::start(&env, test_options());
    for name in ["forced", "patched"] {
        let mut release = spec(json!({"message": "adopted"}));
        release["install"] = json!({"adopt": true});
        release["upgrade"] = json!({"remediation": {"remediateLastFailure": true}});
        if name == "forced" {
            release["rollback"] = json!({"force": true});
        }
        env.create_release("shop", name, release).await;
    }
    for name in ["forced", "patched"] {
        env.wait_release("shop", name, "upgraded", |object| {
            is_ready(object) && object["status"]["currentRevision"] == 2
        })
        .await;
    }
    // Another hand labels the ConfigMaps; then an upgrade fails and is rolled back to revision 2 (client-side).
    let label = json!({"metadata": {"labels": {"edited-by-hand": "yes"}}});
    for name in ["forced", "patched"] {
        let object = format!("{name}-config");
        config_maps(&env).patch(&object, &PatchParams::default(), &Patch::Merge(&label)).await.expect("labelled");
    }
    for name in ["forced", "patched"] {
        env.patch_spec("shop", name, json!({"values": broken()})).await;
    }
    for name in ["forced", "patched"] {
        let rolled_back = remediated(&env, name, "True", "RollbackSucceeded").await;
        assert_eq!(rolled_back["status"]["currentRevision"], 4, "{rolled_back:#}");
        let history = helm_history(&dir, name, "shop").await.expect("a history");
        let expected = [(1, "superseded"), (2, "superseded"), (3, "failed"), (4, "deployed")];
        assert_eq!(statuses(&history), expected, "{name}: {history:?}");
        assert_eq!(history[3].2, "Rollback to 2");
    }
    let labelled = async |name: &str| {
        let config = config_maps(&env).get(name).await.expect("the ConfigMap");
        config.metadata.labels.unwrap_or_default().contains_key("edited-by-hand")
    };
    // rollback.force: replaced whole (a PUT, Helm's `--force-replace`), the hand's label gone...
    assert!(!labelled("forced-config").await, "a replacement drops the label");
    // (Revision 3 does not change the ConfigMap: its three-way patch is empty and not sent.)
    use Verb::{Create, Patch as Patched, Update};
    let written = [Create, Patched, Patched, Update];
    assert_eq!(writes(&env, "ConfigMap", "forced-config"), written, "install, revision 2, the hand, the rollback");
    // ... without it, patched three-way: the patch from revision 3 to 2 is empty, the label kept.
    assert!(labelled("patched-config").await, "a patch keeps the label");
    assert_eq!(writes(&env, "ConfigMap", "patched-config"), written[..3], "install, revision 2, the hand");
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uninstall_remediation_keeps_the_history_and_skips_the_hooks_as_spec_uninstall_says() {
    let (env, dir) = start_with("shop", &flux_chart_with(&[("web/templates/pre-delete.yaml", PRE_DELETE_HOOK)])).await;
    let running = Running::start(&env, test_options());
    for name in ["hooked", "bare"] {
        let mut release = spec(json!({"message": "first"}));
        release["upgrade"] = json!({"remediation": {"strategy": "uninstall", "remediateLastFailure": true}});
        release["uninstall"] = json!({"keepHistory": true, "disableHooks": name == "bare"});
        env.create_release("shop", name, release).await;
    }
    for name in ["hooked", "bare"] {
        env.wait_release("shop", name, "installed", is_ready).await;
    }
    for name in ["hooked", "bare"] {
        env.patch_spec("shop", name, json!({"values": broken()})).await;
    }
    for name in ["hooked", "bare"] {
        let uninstalled = remediated(&env, name, "True", "UninstallSucceeded").await;
        assert!(uninstalled["status"]["currentRevision"].is_null(), "{uninstalled:#}");
        // keepHistory: the records stay, the last one uninstalled; Helm and berth read them so.
        let history = helm_history(&dir, name, "shop").await.expect("the history is kept");
        assert_eq!(statuses(&history), [(1, "deployed"), (2, "uninstalled")], "{name}: {history:?}");
        let recorded: Vec<(u32, String)> =
            env.history("shop", name).await.into_iter().map(|(revision, status, _)| (revision, status)).collect();
        assert_eq!(recorded, [(1, "deployed".to_string()), (2, "uninstalled".to_string())], "{name}");
        let deployments: Api<k8s_openapi::api::apps::v1::Deployment> = Api::namespaced(env.client(), "shop");
        assert!(deployments.get_opt(name).await.expect("read").is_none(), "{name}: the objects are gone");
    }
    // disableHooks: the pre-delete hook ran for one release only.
    assert!(!writes(&env, "Job", "hooked-pre-delete").is_empty(), "the hook ran");
    assert_eq!(writes(&env, "Job", "bare-pre-delete"), [], "no hook ran");
    running.stop().await;
}
