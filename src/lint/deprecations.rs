//! Deprecated Kubernetes APIs as Helm's lint reports them (`validateNoDeprecations`,
//! pkg/chart/v2/lint/rules/deprecations.go): the object's type looked up in client-go's scheme, its lifecycle
//! judged by k8s.io/apiserver's `deprecation.IsDeprecated` against the Kubernetes version (`--kube-version`, else
//! the default v1.35), and worded by `deprecation.WarningMessage`. The lifecycles are a table generated from
//! k8s.io/api (`api_lifecycles.rs`).

use super::api_lifecycles::{API_LIFECYCLES, ApiLifecycle};
use super::documents::Head;

/// `validateNoDeprecations`: the warning for `head` at Kubernetes `major.minor`, if its API is deprecated there.
pub(super) fn check(head: &Head, major: u32, minor: u32) -> Result<(), String> {
    if head.api_version.is_empty() || head.kind.is_empty() {
        return Ok(());
    }
    // `schema.ParseGroupVersion`: `v1`, `group/version`; anything else names no registered type.
    let (group, version) = match head.api_version.split('/').collect::<Vec<_>>().as_slice() {
        [version] => ("", *version),
        [group, version] => (*group, *version),
        _ => return Ok(()),
    };
    let Some(lifecycle) = API_LIFECYCLES
        .iter()
        .find(|lifecycle| lifecycle.group == group && lifecycle.version == version && lifecycle.kind == head.kind)
    else {
        return Ok(());
    };
    // `IsDeprecated`: no version known (0.0) counts as deprecated; else deprecated from that release on.
    let current = (major, minor);
    if current != (0, 0) && lifecycle.deprecated > current {
        return Ok(());
    }
    Err(warning_message(lifecycle))
}

/// `deprecation.WarningMessage`.
fn warning_message(lifecycle: &ApiLifecycle) -> String {
    let group_version = |group: &str, version: &str| {
        if group.is_empty() { version.to_string() } else { format!("{group}/{version}") }
    };
    let (major, minor) = lifecycle.deprecated;
    let mut message = format!(
        "{} {} is deprecated in v{major}.{minor}+",
        group_version(lifecycle.group, lifecycle.version),
        lifecycle.kind
    );
    if let Some((major, minor)) = lifecycle.removed {
        message.push_str(&format!(", unavailable in v{major}.{minor}+"));
    }
    if let Some((group, version, kind)) = lifecycle.replacement {
        message.push_str(&format!("; use {} {kind}", group_version(group, version)));
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(api_version: &str, kind: &str) -> Head {
        Head { api_version: api_version.into(), kind: kind.into(), ..Head::default() }
    }

    #[test]
    fn deprecation_depends_on_the_kubernetes_version() {
        let ingress = head("extensions/v1beta1", "Ingress");
        assert_eq!(
            check(&ingress, 1, 35),
            Err("extensions/v1beta1 Ingress is deprecated in v1.14+, unavailable in v1.22+; use networking.k8s.io/v1 \
                 Ingress"
                .into())
        );
        assert_eq!(check(&ingress, 1, 13), Ok(()));
        assert!(check(&ingress, 0, 0).is_err(), "no version known counts as deprecated");
        assert_eq!(
            check(&head("v1", "Endpoints"), 1, 33),
            Err("v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice".into())
        );
        assert_eq!(
            check(&head("v1", "ComponentStatus"), 1, 20),
            Err("v1 ComponentStatus is deprecated in v1.19+".into())
        );
    }

    #[test]
    fn unknown_and_current_types_pass() {
        for (api_version, kind) in [
            ("networking.k8s.io/v1", "Ingress"),
            ("example.com/v1alpha1", "Widget"),
            ("policy/v1beta1", "PodSecurityPolicy"),
            ("a/b/c", "Ingress"),
            ("", "Ingress"),
            ("extensions/v1beta1", ""),
        ] {
            assert_eq!(check(&head(api_version, kind), 1, 35), Ok(()), "{api_version} {kind}");
        }
    }
}
