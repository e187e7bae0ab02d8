//! What the controller tests share: a simulated cluster with the Release CRD installed, packaged charts made in
//! memory (a small ustar writer and gzip), Releases created and patched, the controller run in-process, and
//! waits on a Release's status by watching it (bounded; never a sleep).

use berth::controller::api::API_VERSION;
use berth::controller::{Controller, ControllerEvent, ControllerOptions};
use berth_sim::{SimCluster, SimConfig};
use futures::StreamExt;
use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use kube::runtime::watcher;
use serde_json::{Value, json};
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// The longest any controller test waits for one thing.
pub const BOUND: Duration = Duration::from_secs(90);

/// A gzipped ustar archive of `files` (path, content), as `helm package` lays a chart out (`NAME/...`).
pub fn archive(files: &[(&str, &str)]) -> Vec<u8> {
    let mut tar = Vec::new();
    for (path, content) in files {
        let mut header = [0u8; 512];
        header[..path.len()].copy_from_slice(path.as_bytes());
        let octal = |field: &mut [u8], value: u64| {
            let text = format!("{value:0width$o}\0", width = field.len() - 1);
            field.copy_from_slice(text.as_bytes());
        };
        octal(&mut header[100..108], 0o644);
        octal(&mut header[108..116], 0);
        octal(&mut header[116..124], 0);
        octal(&mut header[124..136], content.len() as u64);
        octal(&mut header[136..148], 1_700_000_000);
        header[156] = b'0';
        header[257..263].copy_from_slice(b"ustar\0");
        header[263..265].copy_from_slice(b"00");
        header[148..156].copy_from_slice(b"        ");
        let checksum: u64 = header.iter().map(|byte| u64::from(*byte)).sum();
        header[148..156].copy_from_slice(format!("{checksum:06o}\0 ").as_bytes());
        tar.extend_from_slice(&header);
        tar.extend_from_slice(content.as_bytes());
        tar.resize(tar.len().div_ceil(512) * 512, 0);
    }
    tar.resize(tar.len() + 1024, 0);
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(&tar).expect("gzip in memory");
    encoder.finish().expect("gzip in memory")
}

/// The chart the tests release: a ConfigMap and a Deployment whose simulated pods are ready after
/// `readyAfter`, or never (`waitingReason: ImagePullBackOff`).
pub fn web_chart(version: &str) -> Vec<u8> {
    let chart_yaml = format!("apiVersion: v2\nname: web\nversion: {version}\nappVersion: \"1.0\"\n");
    archive(&[
        ("web/Chart.yaml", &chart_yaml),
        ("web/values.yaml", "readyAfter: 0s\nwaitingReason: \"\"\nimage: nginx:1.27\nmessage: hello\n"),
        ("web/templates/configmap.yaml", WEB_CONFIG_MAP),
        ("web/templates/deployment.yaml", WEB_DEPLOYMENT),
    ])
}

/// The web chart's ConfigMap template: `.Values.message`.
pub const WEB_CONFIG_MAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-config\ndata:\n  message: {{ .Values.message | quote }}\n";

/// The web chart's Deployment template: `.Values.image`, its simulated pods ready after `.Values.readyAfter`, or
/// waiting with `.Values.waitingReason`.
pub const WEB_DEPLOYMENT: &str = concat!(
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n  annotations:\n",
    "    sim.berth.dev/ready-after: {{ .Values.readyAfter | quote }}\n",
    "    {{- with .Values.waitingReason }}\n    sim.berth.dev/pod-waiting-reason: {{ . }}\n    {{- end }}\n",
    "spec:\n  replicas: 1\n  selector:\n    matchLabels: {app: {{ .Release.Name }}}\n  template:\n",
    "    metadata:\n      labels: {app: {{ .Release.Name }}}\n    spec:\n      containers:\n",
    "      - name: web\n        image: {{ .Values.image }}\n",
);

pub fn release_resource() -> ApiResource {
    ApiResource {
        group: "berth.dev".into(),
        version: "v1alpha1".into(),
        api_version: API_VERSION.into(),
        kind: "Release".into(),
        plural: "releases".into(),
    }
}

/// A simulated cluster with the Release CRD (from `berth controller crd`) served.
pub struct Env {
    pub sim: SimCluster,
    pub cluster: berth::cluster::Cluster,
}

impl Env {
    pub async fn start() -> Env {
        Env::start_with(SimConfig::default()).await
    }

    pub async fn start_with(config: SimConfig) -> Env {
        let (sim, cluster) = crate::sim_harness::start_berth(config).await;
        let crd = berth::controller::crd::crd().expect("the CRD parses");
        let crds: Api<DynamicObject> = Api::all_with(
            cluster.client.clone(),
            &ApiResource {
                group: "apiextensions.k8s.io".into(),
                version: "v1".into(),
                api_version: "apiextensions.k8s.io/v1".into(),
                kind: "CustomResourceDefinition".into(),
                plural: "customresourcedefinitions".into(),
            },
        );
        let crd: DynamicObject = serde_json::from_value(crd).expect("a CRD object");
        crds.create(&PostParams::default(), &crd).await.expect("the simulated cluster accepts the CRD");
        cluster
            .resources
            .refresh(&cluster.client, &tokio_util::sync::CancellationToken::new())
            .await
            .expect("discovery");
        assert!(cluster.resources.get(API_VERSION, "Release").is_some(), "Releases are served once the CRD is applied");
        Env { sim, cluster }
    }

    pub fn client(&self) -> kube::Client {
        self.cluster.client.clone()
    }

    pub fn releases(&self, namespace: &str) -> Api<DynamicObject> {
        Api::namespaced_with(self.client(), namespace, &release_resource())
    }

    pub async fn namespace(&self, name: &str) {
        let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(self.client());
        let namespace = serde_json::from_value(json!({"metadata": {"name": name}})).expect("namespace");
        namespaces.create(&PostParams::default(), &namespace).await.expect("namespace created");
    }

    /// A ConfigMap holding `chart` under `chart.tgz` (created, or replaced).
    pub async fn chart(&self, namespace: &str, name: &str, chart: &[u8]) {
        let config_maps: Api<k8s_openapi::api::core::v1::ConfigMap> = Api::namespaced(self.client(), namespace);
        let encoded = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, chart);
        let body = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "binaryData": {"chart.tgz": encoded}});
        let params = PatchParams::apply("tests").force();
        config_maps.patch(name, &params, &Patch::Apply(&body)).await.expect("chart ConfigMap written");
    }

    /// Creates a Release with `spec`.
    pub async fn create_release(&self, namespace: &str, name: &str, spec: Value) {
        let object = json!({"apiVersion": API_VERSION, "kind": "Release", "metadata": {"name": name, "namespace": namespace}, "spec": spec});
        let object: DynamicObject = serde_json::from_value(object).expect("a Release object");
        self.releases(namespace).create(&PostParams::default(), &object).await.expect("Release created");
    }

    /// Merges `spec` into a Release's spec (a new generation); returns the generation the server gave it.
    pub async fn patch_spec(&self, namespace: &str, name: &str, spec: Value) -> i64 {
        let patched = self
            .releases(namespace)
            .patch(name, &PatchParams::default(), &Patch::Merge(json!({"spec": spec})))
            .await
            .expect("Release patched");
        patched.metadata.generation.expect("a generation")
    }

    /// Waits (by watching) until the Release satisfies `condition`; returns it.
    pub async fn wait_release(
        &self,
        namespace: &str,
        name: &str,
        what: &str,
        condition: impl Fn(&Value) -> bool,
    ) -> Value {
        release_where(&self.client(), namespace, name, what, condition).await
    }

    /// The Helm history of a release as (revision, status, description), read as `berth history` reads it.
    pub async fn history(&self, namespace: &str, name: &str) -> Vec<(u32, String, String)> {
        let storage = berth::release::Storage::new(self.client(), namespace);
        storage
            .history(name)
            .await
            .expect("history")
            .into_iter()
            .map(|release| (release.version, release.info.status.as_str().to_string(), release.info.description))
            .collect()
    }
}

/// A condition of a Release object: (status, reason, message).
pub fn condition(object: &Value, condition_type: &str) -> Option<(String, String, String)> {
    object.pointer("/status/conditions")?.as_array()?.iter().find(|c| c["type"] == condition_type).map(|c| {
        let text = |key: &str| c[key].as_str().unwrap_or_default().to_string();
        (text("status"), text("reason"), text("message"))
    })
}

/// Ready=True for the object's current generation.
pub fn is_ready(object: &Value) -> bool {
    observed(object) && condition(object, "Ready").is_some_and(|(status, _, _)| status == "True")
}

/// The status speaks of the object's current generation.
pub fn observed(object: &Value) -> bool {
    object.pointer("/status/observedGeneration").and_then(Value::as_i64)
        == object.pointer("/metadata/generation").and_then(Value::as_i64)
}

/// A controller running in-process until [`Running::stop`].
pub struct Running {
    pub controller: Arc<Controller>,
    /// Subscribed before the controller started: nothing it did is missed.
    pub events: tokio::sync::broadcast::Receiver<ControllerEvent>,
    pub shutdown: CancellationToken,
    pub handle: JoinHandle<Result<(), berth::controller::ControllerError>>,
}

/// Options for tests: quick retries, and no resync within a test's time.
pub fn test_options() -> ControllerOptions {
    ControllerOptions {
        retry_base: Duration::from_millis(200),
        retry_max: Duration::from_secs(2),
        dependency_poll: Duration::from_secs(30),
        ..ControllerOptions::default()
    }
}

impl Running {
    pub fn start(env: &Env, options: ControllerOptions) -> Running {
        let controller = Arc::new(Controller::new(options).impersonating(env.sim.kube_config()));
        let events = controller.subscribe();
        let shutdown = CancellationToken::new();
        let cluster = env.cluster.clone();
        let (running, stop) = (controller.clone(), shutdown.clone());
        let handle = tokio::spawn(async move { running.run(cluster, stop).await });
        Running { controller, events, shutdown, handle }
    }

    /// The next event `select` picks, bounded.
    pub async fn next_event(&mut self, what: &str, select: impl Fn(&ControllerEvent) -> bool) -> ControllerEvent {
        let found = tokio::time::timeout(BOUND, async {
            loop {
                match self.events.recv().await {
                    Ok(event) if select(&event) => return Some(event),
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
                }
            }
        })
        .await;
        found.ok().flatten().unwrap_or_else(|| panic!("no controller event: {what} within {BOUND:?}"))
    }

    /// Stops it as SIGTERM does, bounded.
    pub async fn stop(self) {
        self.shutdown.cancel();
        let ended = tokio::time::timeout(BOUND, self.handle).await.expect("the controller stops within the bound");
        ended.expect("joined").expect("the controller ends cleanly");
    }
}

/// Waits (watching, bounded) until the Release satisfies `condition`; returns it.
pub async fn release_where(
    client: &kube::Client,
    namespace: &str,
    name: &str,
    what: &str,
    condition: impl Fn(&Value) -> bool,
) -> Value {
    let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), namespace, &release_resource());
    let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
    let mut stream = watcher::watcher(api, config).boxed();
    let mut last = Value::Null;
    let waited = tokio::time::timeout(BOUND, async {
        while let Some(event) = stream.next().await {
            let object = match event {
                Ok(watcher::Event::Apply(object) | watcher::Event::InitApply(object)) => object,
                _ => continue,
            };
            let object = serde_json::to_value(object).expect("JSON");
            if condition(&object) {
                return Some(object);
            }
            last = object;
        }
        None
    })
    .await;
    match waited {
        Ok(Some(object)) => object,
        _ => panic!(
            "Release {namespace}/{name}: not {what} within {BOUND:?}; last seen:\n{}",
            serde_json::to_string_pretty(&last).unwrap_or_default()
        ),
    }
}

/// Waits (watching, bounded) until an object of `T` that `config` selects exists in `namespace`.
pub async fn first_object<T>(client: &kube::Client, namespace: &str, config: watcher::Config)
where
    T: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + std::fmt::Debug
        + serde::de::DeserializeOwned
        + Send
        + 'static,
    T::DynamicType: Default,
{
    let api: Api<T> = Api::namespaced(client.clone(), namespace);
    let what = format!("{config:?}");
    let mut stream = watcher::watcher(api, config).boxed();
    let found = tokio::time::timeout(BOUND, async {
        while let Some(event) = stream.next().await {
            if let Ok(watcher::Event::Apply(_) | watcher::Event::InitApply(_)) = event {
                return true;
            }
        }
        false
    })
    .await;
    assert!(found.unwrap_or(false), "no object ({what}) in {namespace} within {BOUND:?}");
}

/// Waits (watching the release's Secrets) until a revision of `name` is recorded with `status`.
pub async fn revision_recorded(client: &kube::Client, namespace: &str, name: &str, status: &str) {
    let config = watcher::Config::default().labels(&format!("owner=helm,name={name},status={status}"));
    first_object::<k8s_openapi::api::core::v1::Secret>(client, namespace, config).await;
}

/// A chart repository on loopback serving `web_chart("1.0.0")` as `web` (its `index.yaml` and archive), as the
/// controller's scale benchmark and request counts read it.
pub fn web_chart_repository() -> crate::hostile_server::HostileServer {
    use crate::hostile_server::{Answer, HostileServer, Request};
    use sha2::Digest as _;
    let archive = web_chart("1.0.0");
    let digest: String = sha2::Sha256::digest(&archive).iter().map(|byte| format!("{byte:02x}")).collect();
    let index = format!(
        "apiVersion: v1\nentries:\n  web:\n  - apiVersion: v2\n    name: web\n    version: 1.0.0\n    appVersion: \"1.0\"\n    \
         digest: {digest}\n    urls: [web-1.0.0.tgz]\n    created: \"2026-01-01T00:00:00Z\"\ngenerated: \"2026-01-01T00:00:00Z\"\n"
    );
    HostileServer::start(move |request: &Request| match request.path() {
        "/index.yaml" => Answer::new(200, index.clone()),
        "/web-1.0.0.tgz" => Answer::new(200, archive.clone()),
        _ => Answer::new(404, "not found"),
    })
}
