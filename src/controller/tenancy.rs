//! Who a Release acts as, and what it may refer to (issue 28): every request of a Release (its chart and values,
//! the Helm history and records, rendering, applies, hooks, waits, uninstall, remediation) is made as its
//! tenant, so the API server's RBAC decides what a Release can do, as Flux's helm-controller impersonates
//! `spec.serviceAccountName` (`runtime/client.Impersonator`). The controller's own identity is kept for the
//! Releases themselves (status, finalizers), Events, Leases and discovery.
//!
//! - [`Tenant::of`]: `spec.serviceAccountName`, else `--default-service-account`, else the controller itself;
//! - [`Tenants::cluster_for`]: a [`Cluster`] impersonating the tenant (one client per namespace and
//!   ServiceAccount, cached), discovery shared with the controller's (discovery is not tenant data);
//! - the policy checks, pure: [`check_references`] (`--no-cross-namespace-refs`, worded as Flux's
//!   `acl.AccessDenied`) and [`check_owner`] (a release name in a namespace is held by one Release: its records
//!   carry the label [`OWNER_LABEL`]; a release another Release or no berth Release owns is refused unless
//!   `spec.install.adopt: true`); [`owns`] for the uninstall of a deleted Release.

use super::api::{ReleaseKey, ReleaseSpec};
use crate::cluster::Cluster;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

/// The record label naming the Release that owns a Helm release: `NAMESPACE.NAME` (a namespace has no dot,
/// so the first dot splits it), or, when that is longer than a label value may be (63), `sha256.` and the first
/// 32 hex digits of the SHA-256 of `NAMESPACE/NAME`. A label, not an annotation, because every storage driver
/// keeps a revision's labels (Helm's `--labels`: Secrets, ConfigMaps, SQL, memory) and Helm ignores it.
pub const OWNER_LABEL: &str = "berth.dev/owner";

/// The longest label value Kubernetes accepts.
const LABEL_VALUE_MAX: usize = 63;

/// The identity one Release acts as.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Tenant {
    /// The Release's namespace (where its ServiceAccount lives).
    pub namespace: String,
    /// `None`: the controller's own identity.
    pub service_account: Option<String>,
}

impl Tenant {
    /// `spec.serviceAccountName`, else the controller's `--default-service-account`, in the Release's namespace.
    pub fn of(namespace: &str, spec: &ReleaseSpec, default_service_account: Option<&str>) -> Tenant {
        let service_account = spec.service_account_name.as_deref().or(default_service_account).map(str::to_string);
        Tenant { namespace: namespace.to_string(), service_account }
    }

    /// The user the API server sees (`system:serviceaccount:NS:NAME`), if the tenant is a ServiceAccount.
    pub fn user(&self) -> Option<String> {
        let service_account = self.service_account.as_ref()?;
        Some(format!("system:serviceaccount:{}:{service_account}", self.namespace))
    }
}

/// Why a tenant's cluster could not be made.
#[derive(Debug, thiserror::Error)]
pub enum TenancyError {
    #[error(
        "the Release names ServiceAccount `{0}`, but the controller was started without a client configuration to impersonate it with"
    )]
    NoClientConfiguration(String),
    #[error("cannot build a client impersonating `{user}`")]
    Client {
        user: String,
        #[source]
        source: kube::Error,
    },
}

/// The tenants' clients, made from the controller's client configuration.
pub struct Tenants {
    /// The controller's own configuration (`None`: in-process callers that only give a [`Cluster`]).
    base: Option<kube::Config>,
    /// Each tenant's client, and the watches its waits share (`cluster::SharedWatches`).
    clients: Mutex<HashMap<Tenant, (kube::Client, Option<crate::cluster::SharedWatches>)>>,
}

impl Tenants {
    pub fn new(base: Option<kube::Config>) -> Tenants {
        Tenants { base, clients: Mutex::new(HashMap::new()) }
    }

    /// The cluster `tenant` acts on, with `namespace` as its default namespace: the controller's own when the
    /// tenant is the controller, else a client impersonating the ServiceAccount (built once, then cloned).
    ///
    /// # Errors
    /// [`TenancyError`] when a ServiceAccount is named and no client configuration was given, or the client
    /// cannot be built.
    pub fn cluster_for(&self, own: &Cluster, tenant: &Tenant, namespace: &str) -> Result<Cluster, TenancyError> {
        let Some(user) = tenant.user() else {
            return Ok(Cluster { default_namespace: namespace.to_string(), ..own.clone() });
        };
        let cached = self.clients.lock().ok().and_then(|clients| clients.get(tenant).cloned());
        let (client, shared_watches) = match cached {
            Some(cached) => cached,
            None => {
                let Some(base) = &self.base else { return Err(TenancyError::NoClientConfiguration(user)) };
                let mut config = base.clone();
                // No `Impersonate-Group`: for a ServiceAccount kube-apiserver adds its groups itself
                // (`system:serviceaccounts`, `system:serviceaccounts:NS`, `system:authenticated`; filters/
                // impersonation.go), so the controller needs `impersonate` on serviceaccounts only, never on
                // groups (which would let it claim any group, `system:masters` included).
                config.auth_info.impersonate = Some(user.clone());
                config.auth_info.impersonate_groups = None;
                // As `connect_config`: berth's own retries are bounded and cancellable, kube-rs's are not.
                config.default_retry = false;
                let client = kube::Client::try_from(config).map_err(|source| TenancyError::Client { user, source })?;
                let shared_watches = own.shared_watches.as_ref().map(crate::cluster::SharedWatches::for_another_client);
                if let Ok(mut clients) = self.clients.lock() {
                    clients.insert(tenant.clone(), (client.clone(), shared_watches.clone()));
                }
                (client, shared_watches)
            }
        };
        Ok(Cluster {
            client,
            default_namespace: namespace.to_string(),
            resources: own.resources.clone(),
            shared_watches,
        })
    }
}

/// A reference the Release makes to another object: (field path, namespace it points into).
fn references(namespace: &str, spec: &ReleaseSpec) -> Vec<(String, String)> {
    let dependencies = spec.depends_on.iter().enumerate().map(|(index, dependency)| {
        let into = dependency.namespace.clone().unwrap_or_else(|| namespace.to_string());
        (format!("spec.dependsOn[{index}]"), into)
    });
    // A Flux source object is read with the controller's own client (its status only), so a reference into
    // another namespace is the one way a tenant could name another tenant's chart: refused as Flux refuses it.
    let chart_ref = spec.chart_ref.iter().map(|reference| {
        let into = reference.namespace.clone().unwrap_or_else(|| namespace.to_string());
        ("spec.chartRef".to_string(), into)
    });
    dependencies.chain(chart_ref).collect()
}

/// `--no-cross-namespace-refs`: every reference stays in the Release's namespace. The message is Flux's
/// (`acl.AccessDenied`: "cross-namespace references are not allowed").
///
/// # Errors
/// The refusal's message, naming the field.
pub fn check_references(namespace: &str, spec: &ReleaseSpec, no_cross_namespace_refs: bool) -> Result<(), String> {
    if !no_cross_namespace_refs {
        return Ok(());
    }
    match references(namespace, spec).into_iter().find(|(_, into)| into != namespace) {
        Some((field, into)) => Err(format!(
            "{field}: cross-namespace references are not allowed: namespace `{into}` is not the Release's \
             namespace `{namespace}` (--no-cross-namespace-refs)"
        )),
        None => Ok(()),
    }
}

/// Whether the API server refused `error` (403 Forbidden) somewhere down its chain.
pub fn is_forbidden(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if let Some(kube::Error::Api(status)) = error.downcast_ref::<kube::Error>()
            && status.code == 403
        {
            return true;
        }
        cause = error.source();
    }
    false
}

/// The value of [`OWNER_LABEL`] for the Release `key`.
pub fn owner_value(key: &ReleaseKey) -> String {
    let text = format!("{}.{}", key.namespace, key.name);
    if text.len() <= LABEL_VALUE_MAX {
        return text;
    }
    let digest = Sha256::digest(format!("{}/{}", key.namespace, key.name));
    let hex: String = digest.iter().take(16).map(|byte| format!("{byte:02x}")).collect();
    format!("sha256.{hex}")
}

/// The labels of the revisions a Release writes.
pub fn owner_labels(key: &ReleaseKey) -> BTreeMap<String, String> {
    BTreeMap::from([(OWNER_LABEL.to_string(), owner_value(key))])
}

/// Whether the last revision's `labels` name `key` as owner.
pub fn owns(key: &ReleaseKey, labels: &BTreeMap<String, String>) -> bool {
    labels.get(OWNER_LABEL).is_some_and(|owner| *owner == owner_value(key))
}

/// A Release may roll out a release that has no revision, or whose last revision it owns; one another Release
/// owns is refused, and so is one no berth Release owns (installed by Helm, `berth install`, ...) unless the
/// Release adopts it (`spec.install.adopt: true`).
///
/// # Errors
/// The refusal's message.
pub fn check_owner(
    key: &ReleaseKey,
    release: &str,
    namespace: &str,
    last_labels: Option<&BTreeMap<String, String>>,
    adopt: bool,
) -> Result<(), String> {
    let Some(labels) = last_labels else { return Ok(()) };
    match labels.get(OWNER_LABEL) {
        _ if owns(key, labels) => Ok(()),
        Some(other) => Err(format!(
            "Helm release `{namespace}/{release}` belongs to another Release (record label {OWNER_LABEL}={other}); \
             it is not taken over"
        )),
        None if adopt => Ok(()),
        None => Err(format!(
            "Helm release `{namespace}/{release}` exists and no berth Release owns it; set spec.install.adopt: true \
             to take it over"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::api::DependencyReference;

    fn key(namespace: &str, name: &str) -> ReleaseKey {
        ReleaseKey { namespace: namespace.into(), name: name.into() }
    }

    #[test]
    fn the_tenant_is_the_named_service_account_else_the_default_else_the_controller() {
        let named = ReleaseSpec { service_account_name: Some("deployer".into()), ..ReleaseSpec::default() };
        let cases = [
            (&named, Some("fallback"), Some("system:serviceaccount:team-a:deployer")),
            (&named, None, Some("system:serviceaccount:team-a:deployer")),
            (&ReleaseSpec::default(), Some("fallback"), Some("system:serviceaccount:team-a:fallback")),
            (&ReleaseSpec::default(), None, None),
        ];
        for (spec, default, user) in cases {
            assert_eq!(Tenant::of("team-a", spec, default).user().as_deref(), user, "{spec:?} {default:?}");
        }
    }

    #[test]
    fn cross_namespace_references_are_refused_only_when_asked() {
        let dependency = |namespace: Option<&str>| DependencyReference {
            name: "db".into(),
            namespace: namespace.map(str::to_string),
        };
        let spec =
            |dependencies: Vec<DependencyReference>| ReleaseSpec { depends_on: dependencies, ..ReleaseSpec::default() };
        let chart_ref = |namespace: Option<&str>| ReleaseSpec {
            chart_ref: Some(super::super::api::FluxChartReference {
                kind: "HelmChart".into(),
                name: "shared".into(),
                namespace: namespace.map(str::to_string),
                api_version: None,
            }),
            ..ReleaseSpec::default()
        };
        let cases = [
            (spec(vec![dependency(None)]), true, None),
            (spec(vec![dependency(Some("team-a"))]), true, None),
            (spec(vec![dependency(None), dependency(Some("team-b"))]), true, Some("spec.dependsOn[1]")),
            (spec(vec![dependency(Some("team-b"))]), false, None),
            (chart_ref(Some("team-b")), true, Some("spec.chartRef")),
            (chart_ref(None), true, None),
            (chart_ref(Some("team-b")), false, None),
        ];
        for (spec, refuse, field) in cases {
            let checked = check_references("team-a", &spec, refuse);
            match field {
                None => assert_eq!(checked, Ok(()), "{spec:?}"),
                Some(field) => {
                    let message = checked.expect_err("refused");
                    assert!(
                        message.starts_with(&format!("{field}: cross-namespace references are not allowed")),
                        "{message}"
                    );
                    assert!(message.contains("`team-b`"), "{message}");
                }
            }
        }
    }

    #[test]
    fn the_owner_label_names_the_release_and_fits_a_label_value() {
        assert_eq!(owner_value(&key("team-a", "web")), "team-a.web");
        let long = "n".repeat(80);
        let value = owner_value(&key("team-a", &long));
        assert!(value.starts_with("sha256.") && value.len() == 7 + 32, "{value}");
        assert_ne!(value, owner_value(&key("team-b", &long)));
        assert!(owns(&key("team-a", "web"), &owner_labels(&key("team-a", "web"))));
        assert!(!owns(&key("team-a", "web"), &owner_labels(&key("team-b", "web"))));
    }

    #[test]
    fn a_release_is_rolled_out_only_by_its_owner_or_an_adopting_release() {
        let ours = owner_labels(&key("team-a", "web"));
        let theirs = owner_labels(&key("team-b", "payments"));
        let helms = BTreeMap::new();
        let me = key("team-a", "web");
        // (the last revision's labels, spec.install.adopt, what the refusal says).
        type Case<'a> = (Option<&'a BTreeMap<String, String>>, bool, Option<&'a str>);
        let cases: [Case; 6] = [
            (None, false, None),
            (Some(&ours), false, None),
            (Some(&theirs), false, Some("belongs to another Release (record label berth.dev/owner=team-b.payments)")),
            (Some(&theirs), true, Some("belongs to another Release")),
            (Some(&helms), false, Some("no berth Release owns it; set spec.install.adopt: true")),
            (Some(&helms), true, None),
        ];
        for (labels, adopt, refused) in cases {
            let checked = check_owner(&me, "payments", "team-b", labels, adopt);
            match refused {
                None => assert_eq!(checked, Ok(()), "{labels:?} {adopt}"),
                Some(text) => {
                    let message = checked.expect_err("refused");
                    assert!(message.starts_with("Helm release `team-b/payments` "), "{message}");
                    assert!(message.contains(text), "{message}");
                }
            }
        }
    }
}
