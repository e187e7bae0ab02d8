//! Emulated operators: when the workload of an operator berth has built-in health rules for runs in the
//! simulated cluster and is ready, the custom resources of its kinds get the status that operator writes on
//! success, so a chart that installs cert-manager, velero, Flux... and its custom resources becomes ready as on a
//! real cluster. Without the operator they keep no status, as on a real cluster, and berth's rules (which need
//! the operator's word) keep waiting.
//!
//! [`OPERATORS`] is the table, as kstatus keeps its rules: one row per operator, naming how its workload is
//! recognised (the repository of a container image of a ready Deployment, StatefulSet or DaemonSet, whatever
//! the registry and tag) and the kinds it reconciles, and one small function per operator family (a file each)
//! that writes the status of one object. The functions are pure: the object, the [`Outcome`] its annotations
//! choose (`sim.berth.dev/ready-after` delays success, `sim.berth.dev/operator-failure` makes the operator
//! report that failure), the time; the generic controller ([`super::generic`]) reads the store and writes the
//! result through the status subresource.

mod argo;
mod capi;
mod cert_manager;
mod cnpg;
mod crossplane;
mod elastic;
mod external_secrets;
mod flux;
mod gateway;
mod karpenter;
mod keda;
mod knative;
mod kubevirt;
mod kyverno;
mod opentelemetry;
mod prometheus;
mod strimzi;
mod tekton;
mod velero;

use super::conditions;
use crate::fields::{str_at, value_at};
use serde_json::{Map, Value, json};
use std::collections::{BTreeSet, HashMap};

/// What an operator reconciles.
#[derive(Debug, Clone, Copy)]
pub(super) enum Covers {
    /// These kinds of one API group.
    Kinds(&'static str, &'static [&'static str]),
    /// Objects of any group no other row covers that have one of these fields (Crossplane's managed and
    /// composite resources, whose groups providers and platform teams choose).
    Fields(&'static [&'static str]),
}

/// One emulated operator.
#[derive(Debug)]
pub(super) struct Operator {
    /// For logs and documentation.
    pub name: &'static str,
    /// Image repositories of its workload, registry and tag left out (`jetstack/cert-manager-controller`); a
    /// trailing `*` matches the start of the last segment (ko-built images carry a hash there).
    pub images: &'static [&'static str],
    pub covers: &'static [Covers],
    /// The status it writes for one object of its kinds; `None` when it writes none for that kind.
    pub status: fn(&Reconcile<'_>) -> Option<Value>,
}

/// The table: every operator whose kinds have built-in health rules in berth (`src/health/builtin/*.yaml`).
pub(super) static OPERATORS: &[Operator] = &[
    Operator {
        name: "cert-manager",
        images: &["jetstack/cert-manager-controller", "cert-manager/cert-manager-controller"],
        covers: &[
            Covers::Kinds("cert-manager.io", &["Certificate", "CertificateRequest", "Issuer", "ClusterIssuer"]),
            Covers::Kinds("acme.cert-manager.io", &["Order", "Challenge"]),
        ],
        status: cert_manager::status,
    },
    Operator {
        name: "velero",
        images: &["velero/velero"],
        covers: &[Covers::Kinds("velero.io", &["Backup", "Restore", "Schedule", "BackupStorageLocation"])],
        status: velero::status,
    },
    Operator {
        name: "external-secrets",
        images: &["external-secrets/external-secrets"],
        covers: &[Covers::Kinds(
            "external-secrets.io",
            &["ExternalSecret", "SecretStore", "ClusterSecretStore", "ClusterExternalSecret", "PushSecret"],
        )],
        status: external_secrets::status,
    },
    Operator {
        name: "argo-cd",
        images: &["argoproj/argocd"],
        covers: &[Covers::Kinds("argoproj.io", &["Application"])],
        status: argo::status,
    },
    Operator {
        name: "argo-rollouts",
        images: &["argoproj/argo-rollouts"],
        covers: &[Covers::Kinds("argoproj.io", &["Rollout", "AnalysisRun"])],
        status: argo::status,
    },
    Operator {
        name: "argo-workflows",
        images: &["argoproj/workflow-controller"],
        covers: &[Covers::Kinds("argoproj.io", &["Workflow"])],
        status: argo::status,
    },
    Operator {
        name: "flux source-controller",
        images: &["fluxcd/source-controller"],
        covers: &[Covers::Kinds(
            "source.toolkit.fluxcd.io",
            &["GitRepository", "OCIRepository", "HelmRepository", "HelmChart", "Bucket"],
        )],
        status: flux::status,
    },
    Operator {
        name: "flux kustomize-controller",
        images: &["fluxcd/kustomize-controller"],
        covers: &[Covers::Kinds("kustomize.toolkit.fluxcd.io", &["Kustomization"])],
        status: flux::status,
    },
    Operator {
        name: "flux helm-controller",
        images: &["fluxcd/helm-controller"],
        covers: &[Covers::Kinds("helm.toolkit.fluxcd.io", &["HelmRelease"])],
        status: flux::status,
    },
    Operator {
        name: "flux image-reflector-controller",
        images: &["fluxcd/image-reflector-controller"],
        covers: &[Covers::Kinds("image.toolkit.fluxcd.io", &["ImageRepository", "ImagePolicy"])],
        status: flux::status,
    },
    Operator {
        name: "keda",
        images: &["kedacore/keda"],
        covers: &[Covers::Kinds("keda.sh", &["ScaledObject", "ScaledJob"])],
        status: keda::status,
    },
    Operator {
        name: "knative serving",
        images: &["knative.dev/serving/cmd/controller", "knative-releases/knative.dev/serving/cmd/controller"],
        covers: &[Covers::Kinds("serving.knative.dev", &["Service", "Route", "Configuration", "Revision"])],
        status: knative::status,
    },
    Operator {
        name: "knative eventing",
        images: &["knative.dev/eventing/cmd/controller", "knative-releases/knative.dev/eventing/cmd/controller"],
        covers: &[Covers::Kinds("eventing.knative.dev", &["Broker", "Trigger"])],
        status: knative::status,
    },
    Operator {
        // istiod writes status only with PILOT_ENABLE_STATUS, which is off by default: nothing to write, and
        // berth's rules judge an Istio object without status ready.
        name: "istio",
        images: &["istio/pilot"],
        covers: &[
            Covers::Kinds("networking.istio.io", &["VirtualService", "DestinationRule", "Gateway", "ServiceEntry"]),
            Covers::Kinds("security.istio.io", &["AuthorizationPolicy", "PeerAuthentication", "RequestAuthentication"]),
        ],
        status: |_| None,
    },
    Operator {
        name: "strimzi",
        images: &["strimzi/operator"],
        covers: &[Covers::Kinds(
            "kafka.strimzi.io",
            &[
                "Kafka",
                "KafkaTopic",
                "KafkaUser",
                "KafkaConnect",
                "KafkaConnector",
                "KafkaMirrorMaker2",
                "KafkaBridge",
                "KafkaRebalance",
            ],
        )],
        status: strimzi::status,
    },
    Operator {
        name: "cloudnative-pg",
        images: &["cloudnative-pg/cloudnative-pg"],
        covers: &[Covers::Kinds("postgresql.cnpg.io", &["Cluster", "Backup"])],
        status: cnpg::status,
    },
    Operator {
        name: "crossplane",
        images: &["crossplane/crossplane"],
        covers: &[
            Covers::Kinds("pkg.crossplane.io", &["Provider", "Function", "Configuration"]),
            Covers::Kinds("apiextensions.crossplane.io", &["CompositeResourceDefinition"]),
            Covers::Kinds("ops.crossplane.io", &["Operation", "CronOperation", "WatchOperation"]),
            Covers::Fields(&[
                "spec.crossplane",
                "spec.compositionRef",
                "spec.compositionSelector",
                "spec.resourceRef",
                "spec.resourceRefs",
            ]),
        ],
        status: crossplane::status,
    },
    Operator {
        // Managed resources are reconciled by their provider's pods, which Crossplane runs from a Provider
        // package; the simulated cluster runs no package, so a provider counts when its image runs.
        name: "crossplane provider",
        images: &["upbound/provider-*", "crossplane-contrib/provider-*"],
        covers: &[Covers::Fields(&["spec.forProvider"])],
        status: crossplane::managed_status,
    },
    Operator {
        name: "cluster-api",
        images: &["cluster-api/cluster-api-controller"],
        covers: &[Covers::Kinds("cluster.x-k8s.io", &["Cluster", "Machine", "MachineDeployment"])],
        status: capi::status,
    },
    Operator {
        name: "cluster-api kubeadm control plane",
        images: &["cluster-api/kubeadm-control-plane-controller"],
        covers: &[Covers::Kinds("controlplane.cluster.x-k8s.io", &["KubeadmControlPlane"])],
        status: capi::status,
    },
    Operator {
        name: "prometheus-operator",
        images: &["prometheus-operator/prometheus-operator"],
        covers: &[Covers::Kinds(
            "monitoring.coreos.com",
            &[
                "Prometheus",
                "Alertmanager",
                "ThanosRuler",
                "PrometheusAgent",
                "ServiceMonitor",
                "PodMonitor",
                "Probe",
                "PrometheusRule",
                "ScrapeConfig",
                "AlertmanagerConfig",
            ],
        )],
        status: prometheus::status,
    },
    Operator {
        name: "gateway API implementation",
        images: gateway::IMAGES,
        covers: &[Covers::Kinds(
            "gateway.networking.k8s.io",
            &["GatewayClass", "Gateway", "HTTPRoute", "GRPCRoute", "TCPRoute", "TLSRoute", "UDPRoute"],
        )],
        status: gateway::status,
    },
    Operator {
        name: "kyverno",
        images: &["kyverno/kyverno"],
        covers: &[Covers::Kinds("kyverno.io", &["ClusterPolicy", "Policy"])],
        status: kyverno::status,
    },
    Operator {
        name: "elastic cloud on kubernetes",
        images: &["eck/eck-operator"],
        covers: &[
            Covers::Kinds("elasticsearch.k8s.elastic.co", &["Elasticsearch"]),
            Covers::Kinds("kibana.k8s.elastic.co", &["Kibana"]),
            Covers::Kinds("apm.k8s.elastic.co", &["ApmServer"]),
            Covers::Kinds("beat.k8s.elastic.co", &["Beat"]),
            Covers::Kinds("agent.k8s.elastic.co", &["Agent"]),
            Covers::Kinds("logstash.k8s.elastic.co", &["Logstash"]),
        ],
        status: elastic::status,
    },
    Operator {
        name: "kubevirt",
        images: &["kubevirt/virt-controller", "kubevirt/virt-operator"],
        covers: &[Covers::Kinds("kubevirt.io", &["VirtualMachine", "VirtualMachineInstance"])],
        status: kubevirt::status,
    },
    Operator {
        name: "karpenter",
        images: &["karpenter/controller"],
        covers: &[Covers::Kinds("karpenter.sh", &["NodePool", "NodeClaim"])],
        status: karpenter::status,
    },
    Operator {
        name: "tekton pipelines",
        images: &["tektoncd/pipeline/cmd/controller", "tektoncd/pipeline/controller-*"],
        covers: &[Covers::Kinds("tekton.dev", &["PipelineRun", "TaskRun", "CustomRun"])],
        status: tekton::status,
    },
    Operator {
        name: "opentelemetry-operator",
        images: &["open-telemetry/opentelemetry-operator/opentelemetry-operator"],
        covers: &[Covers::Kinds("opentelemetry.io", &["OpenTelemetryCollector"])],
        status: opentelemetry::status,
    },
];

/// How a reconcile of one object ends, as its annotations choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome<'a> {
    /// Still at work (`sim.berth.dev/ready-after` not yet elapsed).
    Progressing,
    Ready,
    /// The operator reports this failure (`sim.berth.dev/operator-failure`).
    Failed(&'a str),
}

/// One reconcile of one object: what a status function reads.
#[derive(Debug, Clone, Copy)]
pub(super) struct Reconcile<'a> {
    pub object: &'a Value,
    pub kind: &'a str,
    pub api_version: &'a str,
    pub name: &'a str,
    pub namespace: &'a str,
    pub generation: i64,
    pub outcome: Outcome<'a>,
    /// When the outcome came about (RFC 3339), for transition times.
    pub time: &'a str,
}

impl<'a> Reconcile<'a> {
    pub fn new(object: &'a Value, outcome: Outcome<'a>, time: &'a str) -> Reconcile<'a> {
        let field = |name: &str| str_at(object, &[name]).unwrap_or_default();
        Reconcile {
            object,
            kind: field("kind"),
            api_version: field("apiVersion"),
            name: str_at(object, &["metadata", "name"]).unwrap_or_default(),
            namespace: str_at(object, &["metadata", "namespace"]).unwrap_or_default(),
            generation: value_at(object, &["metadata", "generation"]).and_then(Value::as_i64).unwrap_or(0),
            outcome,
            time,
        }
    }

    /// A string field of the object (`spec.x`), empty when absent.
    pub fn text(&self, dotted: &str) -> &'a str {
        self.value(dotted).and_then(Value::as_str).unwrap_or_default()
    }

    pub fn value(&self, dotted: &str) -> Option<&'a Value> {
        let path: Vec<&str> = dotted.split('.').collect();
        value_at(self.object, &path)
    }

    pub fn integer(&self, dotted: &str, default: i64) -> i64 {
        self.value(dotted).and_then(Value::as_i64).unwrap_or(default)
    }

    /// Whether the object's API version is `version` (`v1beta1` in `cluster.x-k8s.io/v1beta1`).
    pub fn is_version(&self, version: &str) -> bool {
        self.api_version.rsplit('/').next() == Some(version)
    }

    /// A stable hex digest derived from the object (artifact digests, hashes, ids), `length` characters.
    pub fn digest(&self, length: usize) -> String {
        let mut digest =
            super::template::digest(&format!("{}/{}/{}/{}", self.kind, self.namespace, self.name, self.generation));
        digest.truncate(length);
        digest
    }

    /// A status builder over the object's current status.
    pub fn written(&self) -> Written {
        Written::new(self)
    }
}

/// How an operator writes its conditions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    /// `metav1.Condition`: `observedGeneration` on each condition, with `lastTransitionTime`.
    Generational,
    /// `type`, `status`, `lastTransitionTime`, reason and message (Knative, Strimzi, Velero-era APIs).
    Timed,
    /// `type`, `status`, reason and message only (KEDA).
    Plain,
}

/// A status as an operator builds it: the object's current status with fields and conditions set.
#[derive(Debug, Clone)]
pub(super) struct Written {
    status: Map<String, Value>,
    conditions: Vec<Value>,
    generation: i64,
    time: String,
    style: Style,
}

impl Written {
    fn new(reconcile: &Reconcile<'_>) -> Written {
        let existing = reconcile.object.get("status");
        Written {
            status: existing.and_then(Value::as_object).cloned().unwrap_or_default(),
            conditions: conditions::of(existing),
            generation: reconcile.generation,
            time: reconcile.time.to_string(),
            style: Style::Generational,
        }
    }

    pub fn style(mut self, style: Style) -> Written {
        self.style = style;
        self
    }

    /// Sets a condition (the transition time kept when the status is unchanged); empty reason and message are
    /// left out.
    pub fn condition(mut self, kind: &str, status: &str, reason: &str, message: &str) -> Written {
        let mut condition = Map::new();
        condition.insert("type".to_string(), json!(kind));
        condition.insert("status".to_string(), json!(status));
        if self.style == Style::Generational {
            condition.insert("observedGeneration".to_string(), json!(self.generation));
        }
        if self.style != Style::Plain {
            condition.insert("lastTransitionTime".to_string(), json!(self.time));
        }
        if !reason.is_empty() {
            condition.insert("reason".to_string(), json!(reason));
        }
        if !message.is_empty() {
            condition.insert("message".to_string(), json!(message));
        }
        let condition = Value::Object(condition);
        let index = self.conditions.iter().position(|existing| conditions::field(existing, "type") == kind);
        match index {
            Some(index) => {
                let existing = &self.conditions[index];
                let mut updated = condition;
                if conditions::field(existing, "status") == status
                    && let (Some(time), Some(map)) =
                        (existing.get("lastTransitionTime").cloned(), updated.as_object_mut())
                    && map.contains_key("lastTransitionTime")
                {
                    map.insert("lastTransitionTime".to_string(), time);
                }
                self.conditions[index] = updated;
            }
            None => self.conditions.push(condition),
        }
        self
    }

    /// Removes a condition.
    pub fn without(mut self, kind: &str) -> Written {
        conditions::remove(&mut self.conditions, kind);
        self
    }

    pub fn field(mut self, name: &str, value: Value) -> Written {
        self.status.insert(name.to_string(), value);
        self
    }

    pub fn remove(mut self, name: &str) -> Written {
        self.status.remove(name);
        self
    }

    /// `status.observedGeneration`: the generation this status describes.
    pub fn observed(self) -> Written {
        let generation = self.generation;
        self.field("observedGeneration", json!(generation))
    }

    pub fn time(&self) -> &str {
        &self.time
    }

    pub fn build(mut self) -> Value {
        if !self.conditions.is_empty() {
            self.status.insert("conditions".to_string(), Value::Array(self.conditions));
        }
        Value::Object(self.status)
    }
}

/// The repository path of a container image: registry, tag and digest left out (`quay.io/jetstack/x:v1` ->
/// `jetstack/x`).
fn repository(image: &str) -> &str {
    let without_digest = image.split('@').next().unwrap_or(image);
    let name_start = without_digest.rfind('/').map_or(0, |slash| slash + 1);
    let without_tag = match without_digest[name_start..].find(':') {
        Some(colon) => &without_digest[..name_start + colon],
        None => without_digest,
    };
    match without_tag.split_once('/') {
        Some((first, rest)) if first.contains('.') || first.contains(':') || first == "localhost" => rest,
        _ => without_tag,
    }
}

/// Whether `image` is one of an operator's `signature`s.
fn names(image: &str, signature: &str) -> bool {
    let repository = repository(image);
    let ends_with_segments = |path: &str, suffix: &str| path == suffix || path.ends_with(&format!("/{suffix}"));
    match signature.strip_suffix('*') {
        Some(prefix) => {
            let (directory, start) = prefix.rsplit_once('/').unwrap_or(("", prefix));
            let (image_directory, last) = repository.rsplit_once('/').unwrap_or(("", repository));
            last.starts_with(start) && (directory.is_empty() || ends_with_segments(image_directory, directory))
        }
        None => ends_with_segments(repository, signature),
    }
}

/// The operators a workload (Deployment, StatefulSet, DaemonSet) runs, if it is ready.
pub(super) fn run_by(workload: &Value) -> Vec<usize> {
    let ready = ["availableReplicas", "readyReplicas", "numberReady"]
        .iter()
        .any(|field| value_at(workload, &["status", field]).and_then(Value::as_i64).unwrap_or(0) >= 1);
    let deleting = value_at(workload, &["metadata", "deletionTimestamp"]).is_some_and(|time| !time.is_null());
    if !ready || deleting {
        return Vec::new();
    }
    let images: Vec<&str> = value_at(workload, &["spec", "template", "spec", "containers"])
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|container| str_at(container, &["image"]))
        .collect();
    OPERATORS
        .iter()
        .enumerate()
        .filter(|(_, operator)| images.iter().any(|image| operator.images.iter().any(|sig| names(image, sig))))
        .map(|(index, _)| index)
        .collect()
}

/// The operator of `object` (by its group and kind, else by its fields), whether or not it runs.
pub(super) fn operator_of(object: &Value) -> Option<(usize, &'static Operator)> {
    let api_version = str_at(object, &["apiVersion"]).unwrap_or_default();
    let group = api_version.rsplit_once('/').map_or("", |(group, _)| group);
    let kind = str_at(object, &["kind"]).unwrap_or_default();
    let by_kind = OPERATORS.iter().enumerate().find(|(_, operator)| {
        operator
            .covers
            .iter()
            .any(|covers| matches!(covers, Covers::Kinds(covered, kinds) if *covered == group && kinds.contains(&kind)))
    });
    if by_kind.is_some() || group.is_empty() || !group.contains('.') || is_named_group(group) {
        return by_kind;
    }
    OPERATORS.iter().enumerate().find(|(_, operator)| {
        operator.covers.iter().any(|covers| match covers {
            Covers::Fields(fields) => {
                fields.iter().any(|dotted| value_at(object, &dotted.split('.').collect::<Vec<_>>()).is_some())
            }
            Covers::Kinds(..) => false,
        })
    })
}

/// Whether a row names `group` (its other kinds are not anybody's, whatever their fields).
fn is_named_group(group: &str) -> bool {
    OPERATORS.iter().any(|operator| {
        operator.covers.iter().any(|covers| matches!(covers, Covers::Kinds(covered, _) if *covered == group))
    })
}

/// Which operators run, by the ready workloads that run them.
#[derive(Debug, Default)]
pub(super) struct Running {
    /// (kind, namespace, name) of a workload -> the operators it runs.
    workloads: HashMap<(String, String, String), Vec<usize>>,
}

impl Running {
    /// Notes a workload's new state (`None`: deleted); returns the operators that now run and did not.
    pub fn observe(&mut self, kind: &str, namespace: &str, name: &str, workload: Option<&Value>) -> Vec<usize> {
        let before = self.running();
        let key = (kind.to_string(), namespace.to_string(), name.to_string());
        match workload.map(run_by).filter(|operators| !operators.is_empty()) {
            Some(operators) => {
                self.workloads.insert(key, operators);
            }
            None => {
                self.workloads.remove(&key);
            }
        }
        self.running().difference(&before).copied().collect()
    }

    pub fn clear(&mut self) {
        self.workloads.clear();
    }

    fn running(&self) -> BTreeSet<usize> {
        self.workloads.values().flatten().copied().collect()
    }

    pub fn is_running(&self, operator: usize) -> bool {
        self.workloads.values().any(|operators| operators.contains(&operator))
    }
}

#[cfg(test)]
mod tests;
