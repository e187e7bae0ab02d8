//! How a refused request is answered, worded as kube-apiserver words it
//! (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go): `Forbidden` with
//! `forbiddenMessage`, and the plain-text `InternalError` the impersonation filter answers malformed headers
//! with.

use super::attributes::Attributes;
use super::user::UserInfo;
use crate::api_error::ApiError;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// Keeps an error from reading as HTML (`sanitizer` in errors.go); quotes stay.
fn sanitize(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// `forbiddenMessage`
fn forbidden_message(user: &UserInfo, attributes: &Attributes) -> String {
    let name = &user.name;
    let verb = &attributes.verb;
    if !attributes.resource_request {
        return format!("User {name:?} cannot {verb} path {:?}", attributes.path);
    }
    let resource = attributes.combined_resource();
    let group = &attributes.api_group;
    match attributes.namespace.as_str() {
        "" => format!("User {name:?} cannot {verb} resource {resource:?} in API group {group:?} at the cluster scope"),
        namespace => {
            format!(
                "User {name:?} cannot {verb} resource {resource:?} in API group {group:?} in the namespace {namespace:?}"
            )
        }
    }
}

/// `responsewriters.Forbidden`: the message, then the authorizer's reason when it gave one.
pub fn forbidden(user: &UserInfo, attributes: &Attributes, reason: &str) -> ApiError {
    let message = sanitize(&forbidden_message(user, attributes));
    let cause = if reason.is_empty() { message } else { format!("{message}: {reason}") };
    ApiError::forbidden_resource(&attributes.api_group, &attributes.resource, &attributes.name, &cause)
}

/// `responsewriters.InternalError`: `Internal Server Error: "URI": cause` as plain text.
pub fn internal_error(request_uri: &str, cause: &str) -> Response {
    let text = sanitize(&format!("Internal Server Error: {request_uri:?}: {cause}"));
    let content_type = HeaderValue::from_static("text/plain; charset=utf-8");
    (StatusCode::INTERNAL_SERVER_ERROR, [(header::CONTENT_TYPE, content_type)], format!("{text}\n")).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deployer() -> UserInfo {
        UserInfo::new("system:serviceaccount:team-a:deployer", Vec::new())
    }

    #[test]
    fn forbidden_answers_name_the_request_as_kube_apiserver_does() {
        let create = Attributes::resource("create", "", "configmaps", "kube-system", "");
        assert_eq!(
            forbidden(&deployer(), &create, "").message,
            "configmaps is forbidden: User \"system:serviceaccount:team-a:deployer\" cannot create resource \
             \"configmaps\" in API group \"\" in the namespace \"kube-system\""
        );
        let mut scale = Attributes::resource("patch", "apps", "deployments", "", "web");
        scale.subresource = "scale".to_string();
        assert_eq!(
            forbidden(&deployer(), &scale, "RBAC: role.rbac.authorization.k8s.io \"x\" not found").message,
            "deployments.apps \"web\" is forbidden: User \"system:serviceaccount:team-a:deployer\" cannot patch \
             resource \"deployments/scale\" in API group \"apps\" at the cluster scope: RBAC: \
             role.rbac.authorization.k8s.io \"x\" not found"
        );
        assert_eq!(
            forbidden(&UserInfo::anonymous(), &Attributes::non_resource("get", "/metrics"), "").message,
            "forbidden: User \"system:anonymous\" cannot get path \"/metrics\""
        );
    }
}
