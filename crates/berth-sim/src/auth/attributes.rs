//! What a request asks to do, as the authorizer sees it: kube-apiserver's `authorizer.Attributes` built from
//! the method, path and query by `RequestInfoFactory.NewRequestInfo`
//! (staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go), independent of whether the path names
//! a served resource: authorization comes before routing, so a forbidden request never learns what exists.

/// A request's query parameters, as the server parsed them (`server::Query`; named here again so that the
/// authorizer's attributes do not import the server that calls them).
type Query = std::collections::HashMap<String, String>;
use crate::validation::names::path_segment_problems;

/// One request's verb and target; `resource_request` false for non-resource paths (`/version`, `/api`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Attributes {
    pub verb: String,
    pub resource_request: bool,
    /// The URL path (for non-resource requests).
    pub path: String,
    pub api_group: String,
    pub api_version: String,
    pub namespace: String,
    pub resource: String,
    pub subresource: String,
    pub name: String,
}

/// Subresources of a namespace (`/api/v1/namespaces/NAME/status`), which are not namespaced resources.
const NAMESPACE_SUBRESOURCES: &[&str] = &["status", "finalize"];

/// Verbs spelled in the path (`/api/v1/watch/pods`), kept for the clients that still send them.
const SPECIAL_VERBS: &[&str] = &["proxy", "watch"];

impl Attributes {
    /// A resource request's attributes.
    pub fn resource(verb: &str, api_group: &str, resource: &str, namespace: &str, name: &str) -> Attributes {
        Attributes {
            verb: verb.to_string(),
            resource_request: true,
            api_group: api_group.to_string(),
            resource: resource.to_string(),
            namespace: namespace.to_string(),
            name: name.to_string(),
            ..Attributes::default()
        }
    }

    /// A non-resource request's attributes.
    pub fn non_resource(verb: &str, path: &str) -> Attributes {
        Attributes { verb: verb.to_string(), path: path.to_string(), ..Attributes::default() }
    }

    /// `NewRequestInfo`: `path` is the decoded URL path, `method` the HTTP method.
    pub fn of_request(method: &str, path: &str, query: &Query) -> Attributes {
        let mut attributes = Attributes::non_resource(&method.to_ascii_lowercase(), path);
        let trimmed = path.trim_matches('/');
        let parts: Vec<&str> = if trimmed.is_empty() { Vec::new() } else { trimmed.split('/').collect() };
        let rest = match parts.as_slice() {
            ["api", version, rest @ ..] if !rest.is_empty() => {
                attributes.api_version = (*version).to_string();
                rest
            }
            ["apis", group, version, rest @ ..] if !rest.is_empty() => {
                attributes.api_group = (*group).to_string();
                attributes.api_version = (*version).to_string();
                rest
            }
            _ => return Attributes::non_resource(&method.to_ascii_lowercase(), path),
        };
        attributes.resource_request = true;
        let mut rest = rest;
        match rest {
            [special, tail @ ..] if SPECIAL_VERBS.contains(special) && !tail.is_empty() => {
                attributes.verb = (*special).to_string();
                rest = tail;
            }
            _ => attributes.verb = crud_verb(method).to_string(),
        }
        if let ["namespaces", namespace, tail @ ..] = rest {
            attributes.namespace = (*namespace).to_string();
            if !tail.is_empty() && !NAMESPACE_SUBRESOURCES.contains(&tail[0]) {
                rest = tail;
            }
        }
        let can_have_subresource = attributes.verb != "proxy";
        if let Some(resource) = rest.first() {
            attributes.resource = (*resource).to_string();
        }
        if let Some(name) = rest.get(1) {
            attributes.name = (*name).to_string();
        }
        if let (Some(subresource), true) = (rest.get(2), can_have_subresource) {
            attributes.subresource = (*subresource).to_string();
        }
        if attributes.name.is_empty() && attributes.verb == "get" {
            attributes.verb = if is_watch(query) { "watch" } else { "list" }.to_string();
            attributes.name = selected_name(query).unwrap_or_default();
        }
        if attributes.name.is_empty() && attributes.verb == "delete" {
            attributes.verb = "deletecollection".to_string();
        }
        attributes
    }

    /// The resource with its subresource, as rules name it: `pods/log`.
    pub fn combined_resource(&self) -> String {
        if self.subresource.is_empty() {
            self.resource.clone()
        } else {
            format!("{}/{}", self.resource, self.subresource)
        }
    }
}

fn crud_verb(method: &str) -> &'static str {
    match method {
        "POST" => "create",
        "GET" | "HEAD" => "get",
        "PUT" => "update",
        "PATCH" => "patch",
        "DELETE" => "delete",
        _ => "",
    }
}

/// `watch=` counts unless it is `false` or `0` (`Convert_Slice_string_To_bool`).
fn is_watch(query: &Query) -> bool {
    query.get("watch").is_some_and(|value| !matches!(value.to_ascii_lowercase().as_str(), "false" | "0"))
}

/// A list or watch narrowed to one name by `fieldSelector=metadata.name=NAME` is authorized for that name, so
/// a rule with `resourceNames` allows it (`RequiresExactMatch("metadata.name")`).
fn selected_name(query: &Query) -> Option<String> {
    let selector = query.get("fieldSelector")?;
    let name = selector.split(',').find_map(|requirement| {
        let requirement = requirement.trim();
        let (field, value) = requirement
            .split_once("==")
            .or_else(|| requirement.split_once('=').filter(|(field, _)| !field.ends_with('!')))?;
        (field.trim() == "metadata.name").then(|| value.trim().to_string())
    })?;
    (!name.is_empty() && path_segment_problems(&name, false).is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(pairs: &[(&str, &str)]) -> Query {
        pairs.iter().map(|(key, value)| ((*key).to_string(), (*value).to_string())).collect()
    }

    /// (method, path, query, verb, group, namespace, resource, subresource, name), from requestinfo_test.go's
    /// table of paths.
    type Case = (
        &'static str,
        &'static str,
        &'static [(&'static str, &'static str)],
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
    );

    #[test]
    fn resource_requests_read_as_kube_apiserver_reads_them() {
        let cases: &[Case] = &[
            ("GET", "/api/v1/namespaces", &[], "list", "", "", "namespaces", "", ""),
            ("GET", "/api/v1/namespaces/other", &[], "get", "", "other", "namespaces", "", "other"),
            ("GET", "/api/v1/namespaces/other/pods/foo", &[], "get", "", "other", "pods", "", "foo"),
            ("GET", "/api/v1/namespaces/other/pods", &[], "list", "", "other", "pods", "", ""),
            ("GET", "/api/v1/pods", &[], "list", "", "", "pods", "", ""),
            ("GET", "/api/v1/pods", &[("watch", "true")], "watch", "", "", "pods", "", ""),
            ("GET", "/api/v1/pods", &[("watch", "false")], "list", "", "", "pods", "", ""),
            ("GET", "/api/v1/watch/pods", &[], "watch", "", "", "pods", "", ""),
            ("GET", "/api/v1/namespaces/a/pods/foo/log", &[], "get", "", "a", "pods", "log", "foo"),
            ("PUT", "/api/v1/namespaces/a/namespaces/status", &[], "update", "", "a", "namespaces", "", "status"),
            ("PUT", "/api/v1/namespaces/a/status", &[], "update", "", "a", "namespaces", "status", "a"),
            ("POST", "/apis/apps/v1/namespaces/a/deployments", &[], "create", "apps", "a", "deployments", "", ""),
            (
                "PATCH",
                "/apis/apps/v1/namespaces/a/deployments/w/scale",
                &[],
                "patch",
                "apps",
                "a",
                "deployments",
                "scale",
                "w",
            ),
            ("DELETE", "/api/v1/namespaces/a/pods", &[], "deletecollection", "", "a", "pods", "", ""),
            ("DELETE", "/api/v1/namespaces/a/pods/foo", &[], "delete", "", "a", "pods", "", "foo"),
            (
                "GET",
                "/api/v1/namespaces/a/configmaps",
                &[("fieldSelector", "metadata.name=x"), ("watch", "1")],
                "watch",
                "",
                "a",
                "configmaps",
                "",
                "x",
            ),
            (
                "GET",
                "/api/v1/namespaces/a/configmaps",
                &[("fieldSelector", "metadata.name!=x")],
                "list",
                "",
                "a",
                "configmaps",
                "",
                "",
            ),
            (
                "GET",
                "/apis/rbac.authorization.k8s.io/v1/clusterroles",
                &[],
                "list",
                "rbac.authorization.k8s.io",
                "",
                "clusterroles",
                "",
                "",
            ),
        ];
        for &(method, path, pairs, verb, group, namespace, resource, subresource, name) in cases {
            let attributes = Attributes::of_request(method, path, &query(pairs));
            assert!(attributes.resource_request, "{path}");
            let found = (
                attributes.verb.as_str(),
                attributes.api_group.as_str(),
                attributes.namespace.as_str(),
                attributes.resource.as_str(),
                attributes.subresource.as_str(),
                attributes.name.as_str(),
            );
            assert_eq!(found, (verb, group, namespace, resource, subresource, name), "{method} {path}");
        }
    }

    #[test]
    fn discovery_and_other_paths_are_non_resource_requests() {
        for path in
            ["/", "/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1", "/version", "/healthz", "/openapi/v3"]
        {
            let attributes = Attributes::of_request("GET", path, &Query::new());
            assert_eq!(
                (attributes.resource_request, attributes.verb.as_str(), attributes.path.as_str()),
                (false, "get", path)
            );
        }
        assert_eq!(Attributes::of_request("POST", "/version", &Query::new()).verb, "post");
    }
}
