//! `berth controller`'s chart sources (issue 27 item 3) on the simulated cluster, in-process, with charts
//! packaged by real Helm 4.1.4 and the releases read back by it: a chart repository served on loopback behind
//! basic auth (credentials from a Secret; a version range re-resolved at each interval, so a newly published
//! matching version rolls out); a real OCI registry (Debian's docker-registry) with basic auth, and a layer
//! corrupted in its storage refused; Flux `HelmChart` and `OCIRepository` objects (their CRDs registered from a
//! minimal definition, their status set as source-controller sets it) whose artifacts are served over loopback,
//! and an artifact whose digest is not the status's refused.

use crate::controller_support::*;
use crate::sources_support::{FileServer, PASSWORD, Registry, RegistryAuth, SourceEnv, TAG, USER};
use berth::controller::ControllerOptions;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

/// Flux's two chart-bearing source kinds (kind, plural).
const FLUX_KINDS: [(&str, &str); 2] = [("HelmChart", "helmcharts"), ("OCIRepository", "ocirepositories")];

/// As much of a Flux source CRD as the simulated cluster needs: served in `source.toolkit.fluxcd.io/v1` with a
/// status subresource (the schema keeps every field).
pub fn flux_crd(kind: &str, plural: &str) -> DynamicObject {
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.source.toolkit.fluxcd.io")},
        "spec": {
            "group": "source.toolkit.fluxcd.io",
            "names": {"kind": kind, "listKind": format!("{kind}List"), "plural": plural, "singular": kind.to_lowercase()},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}],
        },
    });
    serde_json::from_value(crd).expect("a CRD object")
}

/// The simulated cluster with the Release CRD, and a Helm environment whose kubeconfig points at it.
struct Sources {
    env: Env,
    helm: SourceEnv,
}

impl Sources {
    async fn start() -> Sources {
        let env = Env::start().await;
        let mut helm = SourceEnv::new();
        let kubeconfig = helm.dir.path().join("kubeconfig");
        env.sim.write_kubeconfig(&kubeconfig).expect("kubeconfig written");
        helm.kubeconfig = Some(kubeconfig);
        env.namespace("shop").await;
        Sources { env, helm }
    }

    /// `helm package` of the test chart at each of `versions` into `dir`, then `helm repo index dir`.
    fn publish(&self, dir: &Path, versions: &[&str]) {
        tokio::task::block_in_place(|| {
            for version in versions {
                self.helm.package(TAG, version, dir);
            }
            self.helm.helm_ok(&["repo", "index", &dir.display().to_string()]);
        });
    }

    fn helm_json(&self, args: &[&str]) -> Value {
        let text = tokio::task::block_in_place(|| self.helm.helm_ok(args));
        serde_json::from_str(&text).unwrap_or_else(|error| panic!("helm {args:?}: {error}: {text}"))
    }

    /// Real Helm's view: `helm list` as (name, chart, revision, status), `helm get values` of each.
    fn helm_release(&self, name: &str) -> ((String, String, String), Value) {
        let list = self.helm_json(&["list", "-n", "shop", "-o", "json"]);
        let entry = list.as_array().into_iter().flatten().find(|entry| entry["name"] == name);
        let entry = entry.unwrap_or_else(|| panic!("helm list has no {name}: {list}"));
        let text = |key: &str| entry[key].as_str().unwrap_or_default().to_string();
        let values = self.helm_json(&["get", "values", name, "-n", "shop", "-o", "json"]);
        ((text("chart"), text("revision"), text("status")), values)
    }

    async fn secret(&self, name: &str, data: &[(&str, &str)]) {
        let secrets: Api<Secret> = Api::namespaced(self.env.client(), "shop");
        let encode = |value: &str| base64::Engine::encode(&base64::engine::general_purpose::STANDARD, value);
        let data: serde_json::Map<String, Value> =
            data.iter().map(|(key, value)| (key.to_string(), Value::String(encode(value)))).collect();
        let body = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "data": data});
        let params = PatchParams::apply("tests").force();
        secrets.patch(name, &params, &Patch::Apply(&body)).await.expect("Secret written");
    }

    /// The `version` the chart's ConfigMap of release `name` renders.
    async fn rendered_version(&self, name: &str) -> Option<String> {
        let config_maps: Api<ConfigMap> = Api::namespaced(self.env.client(), "shop");
        let config_map = config_maps.get(&format!("{name}-tag")).await.expect("the chart's ConfigMap");
        config_map.data.and_then(|mut data| data.remove("version"))
    }

    /// A Flux source object whose status is as source-controller reports a fetched artifact (`meta.Artifact`).
    async fn flux_object(&self, kind: &str, name: &str, url: &str, digest: &str, revision: &str) {
        let plural = FLUX_KINDS.iter().find(|(known, _)| *known == kind).map_or("", |(_, plural)| plural);
        let resource = ApiResource {
            group: "source.toolkit.fluxcd.io".into(),
            version: "v1".into(),
            api_version: "source.toolkit.fluxcd.io/v1".into(),
            kind: kind.into(),
            plural: plural.into(),
        };
        let api: Api<DynamicObject> = Api::namespaced_with(self.env.client(), "shop", &resource);
        let object = json!({"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": kind, "metadata": {"name": name},
            "spec": {"interval": "5m"}});
        api.create(&PostParams::default(), &serde_json::from_value(object).expect("an object")).await.expect("created");
        let status = json!({"status": {"artifact": {"url": url, "digest": digest, "revision": revision,
            "path": format!("{plural}/shop/{name}/artifact.tgz"), "lastUpdateTime": "2026-01-01T00:00:00Z"}}});
        api.patch_status(name, &PatchParams::default(), &Patch::Merge(&status)).await.expect("status set");
    }

    /// Every Event message about Release `name`.
    async fn event_messages(&self, name: &str) -> Vec<String> {
        let events: Api<k8s_openapi::api::events::v1::Event> = Api::namespaced(self.env.client(), "shop");
        let listed = events.list(&Default::default()).await.expect("events");
        listed
            .items
            .into_iter()
            .filter(|event| event.regarding.as_ref().and_then(|regarding| regarding.name.as_deref()) == Some(name))
            .filter_map(|event| event.note)
            .collect()
    }
}

/// Quick retries, and an interval short enough that a version range is re-resolved within a test.
fn options() -> ControllerOptions {
    ControllerOptions { resync: Duration::from_millis(300), ..test_options() }
}

fn chart_version(object: &Value) -> &str {
    object["status"]["history"][0]["chartVersion"].as_str().unwrap_or_default()
}

fn revision_is(revision: u32) -> impl Fn(&Value) -> bool {
    move |object: &Value| is_ready(object) && object["status"]["currentRevision"] == revision
}

/// Ready=False and Stalled=True with `reason` and a message containing `text`.
fn stalled_with(reason: &'static str, text: &'static str) -> impl Fn(&Value) -> bool {
    move |object: &Value| {
        let stalled = condition(object, "Stalled");
        observed(object)
            && condition(object, "Ready").is_some_and(|(status, found, _)| status == "False" && found == reason)
            && stalled.is_some_and(|(status, _, message)| status == "True" && message.contains(text))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_release_from_a_chart_repository_follows_its_version_range_with_credentials_from_a_secret() {
    let sources = Sources::start().await;
    let env = &sources.env;
    let dir = sources.helm.subdir("repository");
    sources.publish(&dir, &["1.0.0", "2.0.0"]);
    let server = FileServer::start_with_auth(&dir, Some((USER, PASSWORD)));
    let wrong = "not-the-password-4711";
    sources.secret("repository-auth", &[("username", USER), ("password", wrong)]).await;
    let running = Running::start(env, options());
    let spec = json!({
        "chart": {"repository": server.url, "name": "tag", "version": "1.x", "secretRef": {"name": "repository-auth"}},
        "values": {"colour": "green"},
    });
    env.create_release("shop", "web", spec).await;

    // Refused for the wrong password: retried, said without the password.
    let refused = env
        .wait_release("shop", "web", "refused by the repository", |object| {
            condition(object, "Ready")
                .is_some_and(|(_, reason, message)| reason == "ArtifactFailed" && message.contains("401"))
        })
        .await;
    assert!(!refused.to_string().contains(wrong), "{refused:#}");

    // The right password: the newest 1.x is installed.
    sources.secret("repository-auth", &[("username", USER), ("password", PASSWORD)]).await;
    let installed = env.wait_release("shop", "web", "installed", revision_is(1)).await;
    assert_eq!(chart_version(&installed), "1.0.0");
    assert_eq!(sources.rendered_version("web").await.as_deref(), Some("1.0.0"));

    // A new matching version (and one outside the range) published: rolled out at the next interval.
    sources.publish(&dir, &["1.2.0", "3.0.0"]);
    let upgraded = env.wait_release("shop", "web", "upgraded to 1.2.0", revision_is(2)).await;
    assert_eq!(chart_version(&upgraded), "1.2.0");
    assert_eq!(sources.rendered_version("web").await.as_deref(), Some("1.2.0"));

    // Real Helm reads the release.
    let (listed, values) = sources.helm_release("web");
    assert_eq!(listed, ("tag-1.2.0".to_string(), "2".to_string(), "deployed".to_string()));
    assert_eq!(values, json!({"colour": "green"}));

    // No credential anywhere the controller writes.
    let messages = sources.event_messages("web").await;
    for text in messages.iter().map(String::as_str).chain([upgraded.to_string().as_str()]) {
        assert!(!text.contains(wrong) && !text.contains(PASSWORD), "{text}");
    }

    // Archives that are not what the index's digest says. One already downloaded (1.2.0) is served from the
    // cache by its digest: the repository's bytes are not read again. One never downloaded (2.0.0) is refused,
    // the Release Stalled.
    for version in ["1.2.0", "2.0.0"] {
        let archive = dir.join(format!("tag-{version}.tgz"));
        let mut tampered = std::fs::read(&archive).expect("archive");
        tampered.extend_from_slice(b"tampered");
        std::fs::write(&archive, tampered).expect("archive rewritten");
    }
    let pinned = |version: &str| json!({"chart": {"repository": server.url, "name": "tag", "version": version, "secretRef": {"name": "repository-auth"}}});
    env.create_release("shop", "cached", pinned("1.2.0")).await;
    let cached = env.wait_release("shop", "cached", "installed", revision_is(1)).await;
    assert_eq!(chart_version(&cached), "1.2.0", "a download would have been refused: the cache served it");
    env.create_release("shop", "tampered", pinned("2.0.0")).await;
    let stalled =
        env.wait_release("shop", "tampered", "stalled", stalled_with("ArtifactFailed", "digest mismatch")).await;
    let (_, _, message) = condition(&stalled, "Stalled").expect("Stalled");
    assert!(message.contains("tag-2.0.0.tgz: the index says sha256:"), "{message}");
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_release_from_an_oci_registry_with_basic_auth_and_a_corrupted_layer_refused() {
    let Some(registry) = Registry::start(true) else { return };
    let sources = Sources::start().await;
    let env = &sources.env;
    let packaged = sources.helm.subdir("packaged");
    let remote = format!("oci://{}/charts", registry.host);
    tokio::task::block_in_place(|| {
        sources.helm.helm_ok(&["registry", "login", &registry.host, "-u", USER, "-p", PASSWORD, "--plain-http"]);
        for version in ["1.0.0", "1.1.0", "2.0.0", "5.0.0"] {
            let archive = sources.helm.package(TAG, version, &packaged);
            sources.helm.helm_ok(&["push", &archive.display().to_string(), &remote, "--plain-http"]);
        }
    });
    sources.secret("registry-auth", &[("username", USER), ("password", PASSWORD)]).await;
    let running = Running::start(env, options());
    let chart = format!("{remote}/tag");
    let spec = json!({
        "chart": {"oci": chart, "version": "^1.0.0", "plainHttp": true, "secretRef": {"name": "registry-auth"}},
        "values": {"colour": "red"},
    });
    env.create_release("shop", "web", spec).await;
    let installed = env.wait_release("shop", "web", "installed", revision_is(1)).await;
    assert_eq!(chart_version(&installed), "1.1.0");
    assert_eq!(sources.rendered_version("web").await.as_deref(), Some("1.1.0"));
    let (listed, values) = sources.helm_release("web");
    assert_eq!(listed, ("tag-1.1.0".to_string(), "1".to_string(), "deployed".to_string()));
    assert_eq!(values, json!({"colour": "red"}));

    // Without the Secret's credentials the registry refuses (oras-go's words for a 401 asking for basic
    // credentials when there are none).
    let spec = json!({"chart": {"oci": chart, "tag": "2.0.0", "plainHttp": true}});
    env.create_release("shop", "anonymous", spec).await;
    env.wait_release("shop", "anonymous", "refused", |object| {
        condition(object, "Ready").is_some_and(|(_, reason, message)| {
            reason == "ArtifactFailed" && message.contains("basic credential not found")
        })
    })
    .await;

    // The 5.0.0 chart layer corrupted in the registry's storage: refused, Stalled.
    let data = std::fs::read(packaged.join("tag-5.0.0.tgz")).expect("archive");
    let blob = registry.blob_path(&berth_source::oci::manifest::sha256_hex(&data));
    let mut corrupted = std::fs::read(&blob).expect("the registry stores the layer");
    let last = corrupted.len() - 1;
    corrupted[last] ^= 0xff;
    std::fs::write(&blob, &corrupted).expect("blob corrupted");
    let spec =
        json!({"chart": {"oci": chart, "tag": "5.0.0", "plainHttp": true, "secretRef": {"name": "registry-auth"}}});
    env.create_release("shop", "corrupted", spec).await;
    env.wait_release("shop", "corrupted", "stalled", stalled_with("ArtifactFailed", "digest mismatch")).await;
    for text in sources.event_messages("anonymous").await.into_iter().chain(sources.event_messages("web").await) {
        assert!(!text.contains(PASSWORD), "{text}");
    }
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn releases_from_flux_source_objects_read_their_artifacts_and_refuse_a_wrong_digest() {
    let sources = Sources::start().await;
    let env = &sources.env;
    // Flux's CRDs, and the artifacts source-controller would serve.
    let crds: Api<DynamicObject> = Api::all_with(
        env.client(),
        &ApiResource::from_gvk(&kube::api::GroupVersionKind::gvk(
            "apiextensions.k8s.io",
            "v1",
            "CustomResourceDefinition",
        )),
    );
    for (kind, plural) in FLUX_KINDS {
        crds.create(&PostParams::default(), &flux_crd(kind, plural)).await.expect("a Flux CRD");
    }
    let dir = sources.helm.subdir("artifacts");
    let archive = tokio::task::block_in_place(|| sources.helm.package(TAG, "3.1.0", &dir));
    let digest = berth_source::oci::manifest::sha256_digest(&std::fs::read(&archive).expect("archive"));
    let server = FileServer::start(&dir);
    let url = format!("{}/tag-3.1.0.tgz", server.url);

    sources.flux_object("HelmChart", "web-chart", &url, &digest, "3.1.0").await;
    sources.flux_object("OCIRepository", "api-source", &url, &digest, &format!("3.1.0@{digest}")).await;
    let wrong = format!("sha256:{}", "0".repeat(64));
    sources.flux_object("OCIRepository", "broken-source", &url, &wrong, "3.1.0").await;

    let running = Running::start(env, options());
    env.create_release(
        "shop",
        "web",
        json!({"chartRef": {"kind": "HelmChart", "name": "web-chart"}, "values": {"colour": "teal"}}),
    )
    .await;
    env.create_release(
        "shop",
        "api",
        json!({"chartRef": {"kind": "OCIRepository", "name": "api-source", "namespace": "shop"}}),
    )
    .await;
    env.create_release("shop", "broken", json!({"chartRef": {"kind": "OCIRepository", "name": "broken-source"}})).await;
    for name in ["web", "api"] {
        let installed = env.wait_release("shop", name, "installed", revision_is(1)).await;
        assert_eq!(chart_version(&installed), "3.1.0");
        assert_eq!(sources.rendered_version(name).await.as_deref(), Some("3.1.0"));
    }
    let stalled =
        env.wait_release("shop", "broken", "stalled", stalled_with("ArtifactFailed", "digest mismatch")).await;
    let (_, _, message) = condition(&stalled, "Stalled").expect("Stalled");
    assert!(
        message.contains(&format!(
            "OCIRepository `shop/broken-source` at {url}: its status says {wrong}, the download is {digest}"
        )),
        "{message}"
    );
    let (listed, values) = sources.helm_release("web");
    assert_eq!(listed, ("tag-3.1.0".to_string(), "1".to_string(), "deployed".to_string()));
    assert_eq!(values, json!({"colour": "teal"}));
    assert_eq!(sources.helm_release("api").0, ("tag-3.1.0".to_string(), "1".to_string(), "deployed".to_string()));
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registries_asking_for_tokens_or_on_https_serve_the_controller_with_the_secrets_credentials_and_ca() {
    let Some(token_registry) = Registry::start_with(RegistryAuth::Token) else { return };
    let Some(tls_registry) = Registry::start_tls() else { return };
    let ca_file = tls_registry.ca_file.clone().expect("a TLS registry has a CA");
    let sources = Sources::start().await;
    let env = &sources.env;
    let packaged = sources.helm.subdir("packaged");
    tokio::task::block_in_place(|| {
        let archive = sources.helm.package(TAG, "6.0.0", &packaged).display().to_string();
        let login = ["registry", "login", &token_registry.host, "-u", USER, "-p", PASSWORD, "--plain-http"];
        sources.helm.helm_ok(&login);
        sources.helm.helm_ok(&["push", &archive, &format!("oci://{}/charts", token_registry.host), "--plain-http"]);
        let ca = ca_file.display().to_string();
        sources.helm.helm_ok(&["push", &archive, &format!("oci://{}/charts", tls_registry.host), "--ca-file", &ca]);
    });
    let ca = std::fs::read_to_string(&ca_file).expect("the CA certificate");
    sources.secret("token-auth", &[("username", USER), ("password", PASSWORD)]).await;
    sources.secret("registry-ca", &[("ca.crt", &ca)]).await;
    let running = Running::start(env, options());

    // A bearer token from the registry's token service, asked for with the Secret's credentials.
    let chart = format!("oci://{}/charts/tag", token_registry.host);
    let spec =
        json!({"chart": {"oci": chart, "version": "6.x", "plainHttp": true, "secretRef": {"name": "token-auth"}}});
    env.create_release("shop", "token", spec).await;
    // HTTPS with the CA of certSecretRef; without it the certificate is not trusted (retried: the Secret may come).
    let chart = format!("oci://{}/charts/tag", tls_registry.host);
    env.create_release(
        "shop",
        "tls",
        json!({"chart": {"oci": chart, "tag": "6.0.0", "certSecretRef": {"name": "registry-ca"}}}),
    )
    .await;
    env.create_release("shop", "untrusted", json!({"chart": {"oci": chart, "tag": "6.0.0"}})).await;
    for name in ["token", "tls"] {
        let installed = env.wait_release("shop", name, "installed", revision_is(1)).await;
        assert_eq!(chart_version(&installed), "6.0.0");
        assert_eq!(sources.helm_release(name).0, ("tag-6.0.0".to_string(), "1".to_string(), "deployed".to_string()));
    }
    env.wait_release("shop", "untrusted", "refused", |object| {
        condition(object, "Ready").is_some_and(|(status, reason, message)| {
            status == "False"
                && reason == "ArtifactFailed"
                && message.contains("x509: certificate signed by unknown authority")
        })
    })
    .await;
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_repository_credential_resolves_the_chart_again_without_touching_the_release() {
    let sources = Sources::start().await;
    let env = &sources.env;
    let dir = sources.helm.subdir("repository");
    sources.publish(&dir, &["1.0.0"]);
    let server = FileServer::start_with_auth(&dir, Some((USER, PASSWORD)));
    sources.secret("repository-auth", &[("username", USER), ("password", "expired-1234")]).await;
    // No retry and no resync within the test: only the watch of the credential Secret can bring the fix in.
    let quiet = ControllerOptions {
        retry_base: Duration::from_secs(3600),
        retry_max: Duration::from_secs(3600),
        resync: Duration::from_secs(3600),
        ..test_options()
    };
    let running = Running::start(env, quiet);
    let spec = json!({"chart": {"repository": server.url, "name": "tag", "version": "1.x",
        "secretRef": {"name": "repository-auth"}}});
    env.create_release("shop", "web", spec).await;
    let refused = env
        .wait_release("shop", "web", "refused by the repository", |object| {
            condition(object, "Ready").is_some_and(|(status, reason, message)| {
                status == "False" && reason == "ArtifactFailed" && message.contains("401")
            })
        })
        .await;
    let generation = refused["metadata"]["generation"].clone();

    // The credential rotated in its Secret: the chart is resolved again and installed, the Release untouched.
    sources.secret("repository-auth", &[("username", USER), ("password", PASSWORD)]).await;
    let installed = env.wait_release("shop", "web", "installed", revision_is(1)).await;
    assert_eq!(installed["metadata"]["generation"], generation, "the Release's spec did not change");
    assert_eq!(chart_version(&installed), "1.0.0");
    let (listed, _) = sources.helm_release("web");
    assert_eq!(listed, ("tag-1.0.0".to_string(), "1".to_string(), "deployed".to_string()));
    running.stop().await;
}
