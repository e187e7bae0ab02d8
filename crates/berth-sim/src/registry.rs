//! Which resource types the simulated cluster serves: a table of built-in types and the types that
//! CustomResourceDefinitions add, with what each CRD version says of its objects (schema, printer columns,
//! scale paths). Discovery, OpenAPI, request routing and the custom resources' write path all read this one
//! table.

use crate::schema::Structural;
use serde_json::Value;
use std::sync::{Arc, OnceLock};

/// One served resource type (one version of it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceDef {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
    pub singular: String,
    pub namespaced: bool,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    /// Serves the `status` subresource: status is written only through it and spec changes bump `generation`.
    pub has_status: bool,
    /// Serves the `scale` subresource.
    pub has_scale: bool,
    /// Defined by a CustomResourceDefinition (always gets `generation`).
    pub custom: bool,
    /// What the CRD says of this version (`None` for built-in types).
    pub crd: Option<CrdVersion>,
}

/// What a CustomResourceDefinition says of one served version beyond its names, read once when the CRD is
/// stored and shared by every copy of the type (equal when it is the same reading).
#[derive(Debug, Clone)]
pub struct CrdVersion(Arc<CrdVersionSpec>);

impl PartialEq for CrdVersion {
    fn eq(&self, other: &CrdVersion) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for CrdVersion {}

impl std::ops::Deref for CrdVersion {
    type Target = CrdVersionSpec;

    fn deref(&self) -> &CrdVersionSpec {
        &self.0
    }
}

/// The schema, printer columns and scale subresource of a CRD version.
#[derive(Debug)]
pub struct CrdVersionSpec {
    /// The stored CRD (its compact JSON, shared with the store) and the version's index, which the schema is
    /// read from when first needed: reading a megabyte schema while the store is locked would hold up every
    /// request, and most are never needed (no custom resource written).
    schema_source: Option<(Arc<[u8]>, usize)>,
    schema: OnceLock<Option<Structural>>,
    /// `additionalPrinterColumns`, or the `Age` column a real server serves when there are none.
    pub columns: Vec<PrinterColumn>,
    pub scale: Option<ScalePaths>,
}

impl CrdVersionSpec {
    /// `schema.openAPIV3Schema`; `None` when the version has none (its objects are kept as sent) or the CRD is
    /// not stored yet.
    pub fn schema(&self) -> Option<&Structural> {
        let schema = self.schema.get_or_init(|| {
            let (json, index) = self.schema_source.as_ref()?;
            let crd: Value = serde_json::from_slice(json).ok()?;
            crd.pointer(&format!("/spec/versions/{index}/schema/openAPIV3Schema")).map(Structural::parse)
        });
        schema.as_ref()
    }
}

/// One of `additionalPrinterColumns`.
#[derive(Debug, Clone, PartialEq)]
pub struct PrinterColumn {
    pub name: String,
    /// `integer`, `number`, `string`, `boolean` or `date`.
    pub column_type: String,
    pub format: String,
    pub description: String,
    pub priority: i64,
    /// A kubectl JSONPath, without the braces (`.status.conditions[?(@.type=="Ready")].status`).
    pub json_path: String,
}

/// `subresources.scale`: where the scale subresource reads and writes replicas.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalePaths {
    /// `.spec.replicas`
    pub spec_replicas: String,
    pub status_replicas: String,
    pub label_selector: Option<String>,
}

impl ResourceDef {
    /// The resource as kubectl names it (`pods`, `deployments.apps`), with a subresource (`/status`): how the
    /// server's request counters and faults name it.
    pub fn kubectl_name(&self, subresource: Option<&str>) -> String {
        let group = if self.group.is_empty() { String::new() } else { format!(".{}", self.group) };
        let subresource = subresource.map(|name| format!("/{name}")).unwrap_or_default();
        format!("{}{group}{subresource}", self.plural)
    }

    pub fn api_version(&self) -> String {
        if self.group.is_empty() { self.version.clone() } else { format!("{}/{}", self.group, self.version) }
    }

    pub fn list_kind(&self) -> String {
        format!("{}List", self.kind)
    }

    /// Storage is shared by all versions of a resource: the key is (group, plural), and `events.k8s.io`
    /// Events are the core Events (one storage, as in kube-apiserver).
    pub fn type_key(&self) -> TypeKey {
        let group = SHARED_STORAGE
            .iter()
            .find(|(group, plural, _)| self.group == *group && self.plural == *plural)
            .map_or(self.group.as_str(), |(_, _, storage)| storage);
        TypeKey { group: group.to_string(), plural: self.plural.clone() }
    }

    /// The verbs discovery lists: every verb for stored resources, `create` for the reviews.
    pub fn verbs(&self) -> &'static [&'static str] {
        let create_only = CREATE_ONLY.iter().any(|(group, plural)| self.group == *group && self.plural == *plural);
        if create_only { &["create"] } else { STORED_VERBS }
    }

    /// `deployments.apps`, `configmaps`: the name used in error messages.
    pub fn qualified_plural(&self) -> String {
        if self.group.is_empty() { self.plural.clone() } else { format!("{}.{}", self.plural, self.group) }
    }

    /// Whether `metadata.generation` is kept (types with a spec/status split and every custom resource).
    pub fn tracks_generation(&self) -> bool {
        self.has_status || self.custom
    }

    /// The URL path of the collection, for `selfLink`-like messages and tests.
    pub fn collection_path(&self, namespace: Option<&str>) -> String {
        let prefix = if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        };
        match namespace {
            Some(namespace) if self.namespaced => format!("{prefix}/namespaces/{namespace}/{}", self.plural),
            _ => format!("{prefix}/{}", self.plural),
        }
    }
}

/// Identifies stored objects of one resource across its versions.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeKey {
    pub group: String,
    pub plural: String,
}

/// (group, version, kind, plural, namespaced, status, scale, short names, categories)
type Row = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    bool,
    bool,
    bool,
    &'static [&'static str],
    &'static [&'static str],
);

/// (group, plural): resources that are only created, answered by the server and never stored (the reviews).
const CREATE_ONLY: &[(&str, &str)] = &[
    ("authentication.k8s.io", "selfsubjectreviews"),
    ("authentication.k8s.io", "tokenreviews"),
    ("authorization.k8s.io", "localsubjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectrulesreviews"),
    ("authorization.k8s.io", "subjectaccessreviews"),
];

/// The verbs of a stored resource.
const STORED_VERBS: &[&str] = &["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

/// (group, plural, storage group): resources served by two groups over one storage.
const SHARED_STORAGE: &[(&str, &str, &str)] = &[("events.k8s.io", "events", "")];

const ALL: &[&str] = &["all"];
const NONE: &[&str] = &[];

/// The built-in types, as a real 1.35 server names them.
const BUILT_IN: &[Row] = &[
    ("", "v1", "Namespace", "namespaces", false, true, false, &["ns"], NONE),
    ("", "v1", "ConfigMap", "configmaps", true, false, false, &["cm"], NONE),
    ("", "v1", "Secret", "secrets", true, false, false, NONE, NONE),
    ("", "v1", "Service", "services", true, true, false, &["svc"], ALL),
    ("", "v1", "ServiceAccount", "serviceaccounts", true, false, false, &["sa"], NONE),
    ("", "v1", "Pod", "pods", true, true, false, &["po"], ALL),
    ("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", true, true, false, &["pvc"], NONE),
    ("", "v1", "PersistentVolume", "persistentvolumes", false, true, false, &["pv"], NONE),
    ("", "v1", "Node", "nodes", false, true, false, &["no"], NONE),
    ("", "v1", "Event", "events", true, false, false, &["ev"], NONE),
    ("", "v1", "Endpoints", "endpoints", true, false, false, &["ep"], NONE),
    ("", "v1", "PodTemplate", "podtemplates", true, false, false, NONE, NONE),
    ("", "v1", "LimitRange", "limitranges", true, false, false, &["limits"], NONE),
    ("", "v1", "ResourceQuota", "resourcequotas", true, true, false, &["quota"], NONE),
    ("", "v1", "ReplicationController", "replicationcontrollers", true, true, true, &["rc"], ALL),
    ("apps", "v1", "Deployment", "deployments", true, true, true, &["deploy"], ALL),
    ("apps", "v1", "StatefulSet", "statefulsets", true, true, true, &["sts"], ALL),
    ("apps", "v1", "DaemonSet", "daemonsets", true, true, false, &["ds"], ALL),
    ("apps", "v1", "ReplicaSet", "replicasets", true, true, true, &["rs"], ALL),
    ("apps", "v1", "ControllerRevision", "controllerrevisions", true, false, false, NONE, NONE),
    ("authentication.k8s.io", "v1", "SelfSubjectReview", "selfsubjectreviews", false, false, false, NONE, NONE),
    ("authentication.k8s.io", "v1", "TokenReview", "tokenreviews", false, false, false, NONE, NONE),
    (
        "authorization.k8s.io",
        "v1",
        "LocalSubjectAccessReview",
        "localsubjectaccessreviews",
        true,
        false,
        false,
        NONE,
        NONE,
    ),
    (
        "authorization.k8s.io",
        "v1",
        "SelfSubjectAccessReview",
        "selfsubjectaccessreviews",
        false,
        false,
        false,
        NONE,
        NONE,
    ),
    (
        "authorization.k8s.io",
        "v1",
        "SelfSubjectRulesReview",
        "selfsubjectrulesreviews",
        false,
        false,
        false,
        NONE,
        NONE,
    ),
    ("authorization.k8s.io", "v1", "SubjectAccessReview", "subjectaccessreviews", false, false, false, NONE, NONE),
    ("batch", "v1", "Job", "jobs", true, true, false, NONE, ALL),
    ("batch", "v1", "CronJob", "cronjobs", true, true, false, &["cj"], ALL),
    ("autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", true, true, false, &["hpa"], ALL),
    ("autoscaling", "v1", "HorizontalPodAutoscaler", "horizontalpodautoscalers", true, true, false, &["hpa"], ALL),
    ("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", true, true, false, &["pdb"], NONE),
    ("networking.k8s.io", "v1", "Ingress", "ingresses", true, true, false, &["ing"], NONE),
    ("networking.k8s.io", "v1", "IngressClass", "ingressclasses", false, false, false, NONE, NONE),
    ("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", true, false, false, &["netpol"], NONE),
    ("rbac.authorization.k8s.io", "v1", "Role", "roles", true, false, false, NONE, NONE),
    ("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", true, false, false, NONE, NONE),
    ("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", false, false, false, NONE, NONE),
    ("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", false, false, false, NONE, NONE),
    ("storage.k8s.io", "v1", "StorageClass", "storageclasses", false, false, false, &["sc"], NONE),
    ("storage.k8s.io", "v1", "CSIDriver", "csidrivers", false, false, false, NONE, NONE),
    ("storage.k8s.io", "v1", "CSINode", "csinodes", false, false, false, NONE, NONE),
    ("storage.k8s.io", "v1", "CSIStorageCapacity", "csistoragecapacities", true, false, false, NONE, NONE),
    ("storage.k8s.io", "v1", "VolumeAttachment", "volumeattachments", false, true, false, NONE, NONE),
    ("storage.k8s.io", "v1", "VolumeAttributesClass", "volumeattributesclasses", false, false, false, &["vac"], NONE),
    ("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", false, false, false, &["pc"], NONE),
    ("coordination.k8s.io", "v1", "Lease", "leases", true, false, false, NONE, NONE),
    ("events.k8s.io", "v1", "Event", "events", true, false, false, &["ev"], NONE),
    ("node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", false, false, false, NONE, NONE),
    (
        "certificates.k8s.io",
        "v1",
        "CertificateSigningRequest",
        "certificatesigningrequests",
        false,
        true,
        false,
        &["csr"],
        NONE,
    ),
    ("apiregistration.k8s.io", "v1", "APIService", "apiservices", false, true, false, NONE, &["api-extensions"]),
    ("flowcontrol.apiserver.k8s.io", "v1", "FlowSchema", "flowschemas", false, true, false, NONE, NONE),
    (
        "flowcontrol.apiserver.k8s.io",
        "v1",
        "PriorityLevelConfiguration",
        "prioritylevelconfigurations",
        false,
        true,
        false,
        NONE,
        NONE,
    ),
    ("resource.k8s.io", "v1", "DeviceClass", "deviceclasses", false, false, false, NONE, NONE),
    ("resource.k8s.io", "v1", "ResourceClaim", "resourceclaims", true, true, false, NONE, NONE),
    ("resource.k8s.io", "v1", "ResourceClaimTemplate", "resourceclaimtemplates", true, false, false, NONE, NONE),
    ("resource.k8s.io", "v1", "ResourceSlice", "resourceslices", false, false, false, NONE, NONE),
    ("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", true, false, false, NONE, NONE),
    (
        "admissionregistration.k8s.io",
        "v1",
        "MutatingWebhookConfiguration",
        "mutatingwebhookconfigurations",
        false,
        false,
        false,
        NONE,
        NONE,
    ),
    (
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingWebhookConfiguration",
        "validatingwebhookconfigurations",
        false,
        false,
        false,
        NONE,
        NONE,
    ),
    (
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingAdmissionPolicy",
        "validatingadmissionpolicies",
        false,
        true,
        false,
        NONE,
        &["api-extensions"],
    ),
    (
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingAdmissionPolicyBinding",
        "validatingadmissionpolicybindings",
        false,
        false,
        false,
        NONE,
        &["api-extensions"],
    ),
    (
        "apiextensions.k8s.io",
        "v1",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        false,
        true,
        false,
        &["crd", "crds"],
        NONE,
    ),
];

fn strings(values: &[&str]) -> Vec<String> {
    values.iter().map(|value| (*value).to_string()).collect()
}

/// The served types: built-ins first, then those of each established CRD in creation order.
#[derive(Debug, Clone)]
pub struct Registry {
    built_in: Vec<ResourceDef>,
    custom: Vec<(String, Vec<ResourceDef>)>,
}

impl Default for Registry {
    fn default() -> Registry {
        Registry::new()
    }
}

impl Registry {
    pub fn new() -> Registry {
        let built_in = BUILT_IN
            .iter()
            .map(|&(group, version, kind, plural, namespaced, has_status, has_scale, short_names, categories)| {
                ResourceDef {
                    group: group.to_string(),
                    version: version.to_string(),
                    kind: kind.to_string(),
                    plural: plural.to_string(),
                    singular: kind.to_lowercase(),
                    namespaced,
                    short_names: strings(short_names),
                    categories: strings(categories),
                    has_status,
                    has_scale,
                    custom: false,
                    crd: None,
                }
            })
            .collect();
        Registry { built_in, custom: Vec::new() }
    }

    pub fn all(&self) -> impl Iterator<Item = &ResourceDef> {
        self.built_in.iter().chain(self.custom.iter().flat_map(|(_, defs)| defs.iter()))
    }

    /// The type served at `group`/`version` under `plural`.
    pub fn find(&self, group: &str, version: &str, plural: &str) -> Option<&ResourceDef> {
        self.all().find(|def| def.group == group && def.version == version && def.plural == plural)
    }

    /// The type of objects with this apiVersion and kind.
    pub fn find_kind(&self, api_version: &str, kind: &str) -> Option<&ResourceDef> {
        self.all().find(|def| def.kind == kind && def.api_version() == api_version)
    }

    /// Some version of the resource stored under `key` (for garbage collection across versions).
    pub fn find_key(&self, key: &TypeKey) -> Option<&ResourceDef> {
        self.all().find(|def| def.group == key.group && def.plural == key.plural)
    }

    /// Whether `group`/`version` is served at all.
    pub fn serves_group_version(&self, group: &str, version: &str) -> bool {
        self.all().any(|def| def.group == group && def.version == version)
    }

    /// Groups in discovery order (core first) with their versions, preferred first.
    pub fn groups(&self) -> Vec<(String, Vec<String>)> {
        let mut groups: Vec<(String, Vec<String>)> = Vec::new();
        for def in self.all() {
            match groups.iter_mut().find(|(group, _)| *group == def.group) {
                Some((_, versions)) => {
                    if !versions.contains(&def.version) {
                        versions.push(def.version.clone());
                    }
                }
                None => groups.push((def.group.clone(), vec![def.version.clone()])),
            }
        }
        groups
    }

    /// The types of one group version.
    pub fn group_version(&self, group: &str, version: &str) -> Vec<&ResourceDef> {
        self.all().filter(|def| def.group == group && def.version == version).collect()
    }

    /// Serves (or stops serving, with `None`) the types of the CRD named `name`.
    pub fn set_custom(&mut self, name: &str, defs: Option<Vec<ResourceDef>>) {
        self.custom.retain(|(existing, _)| existing != name);
        if let Some(defs) = defs {
            self.custom.push((name.to_string(), defs));
        }
    }
}

/// The types a CustomResourceDefinition serves, or why it is invalid (422 message). Their schemas are not
/// read: the CRD is not stored yet ([`stored_crd_resources`]).
///
/// # Errors
/// A message naming the missing or wrong field, as a real server's validation would.
pub fn crd_resources(crd: &Value) -> Result<Vec<ResourceDef>, String> {
    resources(crd, None)
}

/// The types of a stored CRD, whose compact JSON is `json`: each version reads its schema from it when
/// first needed.
///
/// # Errors
/// As [`crd_resources`].
pub fn stored_crd_resources(crd: &Value, json: Arc<[u8]>) -> Result<Vec<ResourceDef>, String> {
    resources(crd, Some(json))
}

fn resources(crd: &Value, source: Option<Arc<[u8]>>) -> Result<Vec<ResourceDef>, String> {
    let spec = crd.get("spec").ok_or("spec: Required value")?;
    let group = spec.get("group").and_then(Value::as_str).ok_or("spec.group: Required value")?;
    let names = spec.get("names").ok_or("spec.names: Required value")?;
    let plural = names.get("plural").and_then(Value::as_str).ok_or("spec.names.plural: Required value")?;
    let kind = names.get("kind").and_then(Value::as_str).ok_or("spec.names.kind: Required value")?;
    let singular = names.get("singular").and_then(Value::as_str).map_or_else(|| kind.to_lowercase(), str::to_string);
    let scope = spec.get("scope").and_then(Value::as_str).ok_or("spec.scope: Required value")?;
    let namespaced = match scope {
        "Namespaced" => true,
        "Cluster" => false,
        other => {
            return Err(format!(
                "spec.scope: Unsupported value: \"{other}\": supported values: \"Cluster\", \"Namespaced\""
            ));
        }
    };
    let expected_name = format!("{plural}.{group}");
    let name = crd.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
    if name != expected_name {
        return Err(format!("metadata.name: Invalid value: \"{name}\": must be spec.names.plural+\".\"+spec.group"));
    }
    let list = |field: &str| -> Vec<String> {
        names
            .get(field)
            .and_then(Value::as_array)
            .map(|values| values.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default()
    };
    let versions = spec.get("versions").and_then(Value::as_array).ok_or("spec.versions: Required value")?;
    let mut defs = Vec::new();
    for (index, version) in versions.iter().enumerate() {
        let Some(version_name) = version.get("name").and_then(Value::as_str) else {
            return Err("spec.versions[].name: Required value".to_string());
        };
        if version.get("served").and_then(Value::as_bool) == Some(false) {
            continue;
        }
        let subresources = version.get("subresources");
        let crd_version = crd_version(version, source.clone().map(|json| (json, index)));
        defs.push(ResourceDef {
            group: group.to_string(),
            version: version_name.to_string(),
            kind: kind.to_string(),
            plural: plural.to_string(),
            singular: singular.clone(),
            namespaced,
            short_names: list("shortNames"),
            categories: list("categories"),
            has_status: subresources.and_then(|sub| sub.get("status")).is_some(),
            has_scale: subresources.and_then(|sub| sub.get("scale")).is_some(),
            custom: true,
            crd: Some(crd_version),
        });
    }
    if defs.is_empty() {
        return Err("spec.versions: Invalid value: must have exactly one version marked as storage version".into());
    }
    Ok(defs)
}

/// The printer columns and scale paths of a CRD version, and where to read its schema from.
fn crd_version(version: &Value, schema_source: Option<(Arc<[u8]>, usize)>) -> CrdVersion {
    let text = |column: &Value, field: &str| column.get(field).and_then(Value::as_str).unwrap_or_default().to_string();
    let mut columns: Vec<PrinterColumn> = version
        .get("additionalPrinterColumns")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|column| PrinterColumn {
            name: text(column, "name"),
            column_type: text(column, "type"),
            format: text(column, "format"),
            description: match text(column, "description") {
                description if description.is_empty() => {
                    format!("Custom resource definition column (in JSONPath format): {}", text(column, "jsonPath"))
                }
                description => description,
            },
            priority: column.get("priority").and_then(Value::as_i64).unwrap_or(0),
            json_path: text(column, "jsonPath"),
        })
        .collect();
    if columns.is_empty() {
        // `serveDefaultColumnsIfEmpty`
        columns.push(PrinterColumn {
            name: "Age".to_string(),
            column_type: "date".to_string(),
            format: String::new(),
            description: CREATION_TIMESTAMP_DESCRIPTION.to_string(),
            priority: 0,
            json_path: ".metadata.creationTimestamp".to_string(),
        });
    }
    let scale = version.pointer("/subresources/scale").map(|scale| ScalePaths {
        spec_replicas: text(scale, "specReplicasPath"),
        status_replicas: text(scale, "statusReplicasPath"),
        label_selector: scale.get("labelSelectorPath").and_then(Value::as_str).map(str::to_string),
    });
    CrdVersion(Arc::new(CrdVersionSpec { schema_source, schema: OnceLock::new(), columns, scale }))
}

/// `ObjectMeta.creationTimestamp`'s documentation, which describes the default Age column.
pub const CREATION_TIMESTAMP_DESCRIPTION: &str = "CreationTimestamp is a timestamp representing the server time when \
     this object was created. It is not guaranteed to be set in happens-before order across separate operations. \
     Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. \
     Read-only. Null for lists. More info: \
     https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn built_ins_are_found_by_path_and_kind() {
        let registry = Registry::new();
        let deployments = registry.find("apps", "v1", "deployments").map(ResourceDef::list_kind);
        assert_eq!(deployments.as_deref(), Some("DeploymentList"));
        assert!(registry.find_kind("v1", "Namespace").is_some_and(|def| !def.namespaced));
        assert!(registry.find_kind("apps/v1", "Namespace").is_none());
        assert_eq!(registry.groups()[0], (String::new(), vec!["v1".to_string()]));
    }

    #[test]
    fn a_crd_adds_and_removes_its_served_versions() {
        let crd = json!({
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "kind": "Widget", "shortNames": ["wd"]},
                "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}}},
                             {"name": "v0", "served": false, "storage": false}]}
        });
        let mut registry = Registry::new();
        let defs = crd_resources(&crd);
        assert!(defs.as_ref().is_ok_and(|defs| defs.len() == 1 && defs[0].has_status && defs[0].singular == "widget"));
        registry.set_custom("widgets.example.com", defs.ok());
        assert!(registry.find("example.com", "v1", "widgets").is_some());
        assert!(registry.serves_group_version("example.com", "v1"));
        registry.set_custom("widgets.example.com", None);
        assert!(registry.find("example.com", "v1", "widgets").is_none());
    }

    #[test]
    fn an_invalid_crd_names_the_field() {
        let crd = json!({"metadata": {"name": "wrong"}, "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "kind": "Widget"}, "versions": [{"name": "v1", "served": true}]}});
        assert!(crd_resources(&crd).is_err_and(|message| message.starts_with("metadata.name")));
        assert!(crd_resources(&json!({})).is_err_and(|message| message.starts_with("spec")));
    }
}
