//! Errors as a real API server reports them: a `metav1.Status` with the HTTP code, reason and details that
//! clients (kube-rs, kubectl, Helm) switch on.

use crate::field_error::{FieldError, aggregate};
use serde_json::{Value, json};

/// One failed request.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub code: u16,
    pub reason: &'static str,
    pub message: String,
    /// `details` of the Status: name, group, kind and causes when known.
    pub details: Option<Value>,
    /// `Retry-After` seconds for 429 and some 5xx answers.
    pub retry_after: Option<u64>,
    /// `metadata.continue` of the Status: how an expired paginated list may go on.
    pub list_continue: Option<String>,
}

impl ApiError {
    fn new(code: u16, reason: &'static str, message: impl Into<String>) -> ApiError {
        ApiError { code, reason, message: message.into(), details: None, retry_after: None, list_continue: None }
    }

    fn with_details(mut self, group: &str, plural: &str, name: &str) -> ApiError {
        self.details = Some(json!({"name": name, "group": group, "kind": plural}));
        self
    }

    /// `configmaps "demo" not found`
    pub fn not_found(group: &str, plural: &str, name: &str) -> ApiError {
        let qualified = qualified(group, plural);
        ApiError::new(404, "NotFound", format!("{qualified} \"{name}\" not found")).with_details(group, plural, name)
    }

    /// A path that names no served resource.
    pub fn no_route() -> ApiError {
        ApiError::new(404, "NotFound", "the server could not find the requested resource").with_details_value(
            json!({"causes": [{"reason": "UnexpectedServerResponse", "message": "404 page not found"}]}),
        )
    }

    pub fn already_exists(group: &str, plural: &str, name: &str) -> ApiError {
        let qualified = qualified(group, plural);
        ApiError::new(409, "AlreadyExists", format!("{qualified} \"{name}\" already exists"))
            .with_details(group, plural, name)
    }

    /// Optimistic concurrency failure (a stale `resourceVersion` on update).
    pub fn modified(group: &str, plural: &str, name: &str) -> ApiError {
        let qualified = qualified(group, plural);
        let message = format!(
            "Operation cannot be fulfilled on {qualified} \"{name}\": the object has been modified; please apply your \
             changes to the latest version and try again"
        );
        ApiError::new(409, "Conflict", message).with_details(group, plural, name)
    }

    /// A server-side apply ownership conflict (apimachinery's `NewApplyConflict`): the details hold the causes
    /// only, each (message, field), and no object.
    pub fn apply_conflict(message: &str, causes: &[(String, String)]) -> ApiError {
        let causes: Vec<Value> = causes
            .iter()
            .map(|(cause, field)| json!({"reason": "FieldManagerConflict", "message": cause, "field": field}))
            .collect();
        ApiError::new(409, "Conflict", message).with_details_value(json!({"causes": causes}))
    }

    /// 422: `ConfigMap "demo" is invalid: metadata.name: Required value` (the kind qualified by its group,
    /// `Deployment.apps`, as `GroupKind.String()` prints it).
    pub fn invalid(group: &str, kind: &str, name: &str, cause: &str) -> ApiError {
        let qualified_kind = qualified(group, kind);
        ApiError::new(422, "Invalid", format!("{qualified_kind} \"{name}\" is invalid: {cause}"))
            .with_details_value(json!({"name": name, "group": group, "kind": kind, "causes": [{"message": cause}]}))
    }

    /// 422 from field errors: their aggregate as the message, each one a cause.
    pub fn invalid_fields(group: &str, kind: &str, name: &str, errors: &[FieldError]) -> ApiError {
        let qualified_kind = qualified(group, kind);
        let message = format!("{qualified_kind} \"{name}\" is invalid: {}", aggregate(errors));
        let causes: Vec<Value> = errors.iter().map(FieldError::cause).collect();
        ApiError::new(422, "Invalid", message)
            .with_details_value(json!({"name": name, "group": group, "kind": kind, "causes": causes}))
    }

    /// A plain error the server answers with no reason (`StatusReasonUnknown`), as handlers do for errors that
    /// are not API errors.
    pub fn unknown(code: u16, message: impl Into<String>) -> ApiError {
        ApiError::new(code, "", message)
    }

    /// 403 from an admission plugin: `pods "web-" is forbidden: <cause>`.
    pub fn admission_forbidden(group: &str, plural: &str, name: &str, cause: &str) -> ApiError {
        let qualified = qualified(group, plural);
        ApiError::new(403, "Forbidden", format!("{qualified} \"{name}\" is forbidden: {cause}"))
            .with_details(group, plural, name)
    }

    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(400, "BadRequest", message)
    }

    pub fn method_not_allowed(message: impl Into<String>) -> ApiError {
        ApiError::new(405, "MethodNotAllowed", message)
    }

    /// 415 for a body of a media type the handler does not take, listing the ones it takes (apiserver's
    /// `negotiation.NewUnsupportedMediaTypeError`; the given type is not named).
    pub fn unsupported_media_type(accepted: &[&str]) -> ApiError {
        ApiError::new(
            415,
            "UnsupportedMediaType",
            format!(
                "the body of the request was in an unknown format - accepted media types include: {}",
                accepted.join(", ")
            ),
        )
    }

    /// 410 on a watch or list from a resourceVersion the server no longer has.
    pub fn gone(resource_version: u64, oldest: u64) -> ApiError {
        ApiError::new(410, "Expired", format!("too old resource version: {resource_version} ({oldest})"))
    }

    /// 413 for a request body over the server's limit (`NewRequestEntityTooLargeError`).
    pub fn request_entity_too_large(limit: usize) -> ApiError {
        ApiError::new(413, "RequestEntityTooLarge", format!("Request entity too large: limit is {limit}"))
    }

    /// 410 for a continued list whose snapshot is gone (etcd compacted it): `handleCompactedErrorForPaging`'s
    /// message, with a token that goes on from the latest state.
    pub fn continue_expired(inconsistent_continue: String) -> ApiError {
        let mut error = ApiError::new(
            410,
            "Expired",
            "The provided continue parameter is too old to display a consistent list result. You can start a new \
             list without the continue parameter, or use the continue token in this response to retrieve the \
             remainder of the results. Continuing with the provided token results in an inconsistent list - \
             objects that were created, modified, or deleted between the time the first chunk was returned and now \
             may show up in the list.",
        );
        error.list_continue = Some(inconsistent_continue);
        error
    }

    pub fn too_many_requests(retry_after: u64) -> ApiError {
        let mut error = ApiError::new(
            429,
            "TooManyRequests",
            "the server has received too many requests and has asked us to try again later",
        );
        error.retry_after = Some(retry_after);
        error.details = Some(json!({"retryAfterSeconds": retry_after}));
        error
    }

    /// `NewInternalError`: 500 InternalError, `Internal error occurred: <cause>`, the cause in the details.
    pub fn internal_error(cause: impl Into<String>) -> ApiError {
        let cause = cause.into();
        ApiError::new(500, "InternalError", format!("Internal error occurred: {cause}"))
            .with_details_value(json!({"causes": [{"message": cause}]}))
    }

    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(500, "InternalError", message)
    }

    /// 403 for writes into a namespace that is being deleted.
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(403, "Forbidden", message)
    }

    /// `NewForbidden`: `configmaps is forbidden: <cause>`, `roles.rbac.authorization.k8s.io "x" is forbidden:
    /// <cause>`, or `forbidden: <cause>` when no resource is named; the details leave out what is empty.
    pub fn forbidden_resource(group: &str, resource: &str, name: &str, cause: &str) -> ApiError {
        let qualified = qualified(group, resource);
        let message = match (resource.is_empty() && group.is_empty(), name.is_empty()) {
            (true, _) => format!("forbidden: {cause}"),
            (false, true) => format!("{qualified} is forbidden: {cause}"),
            (false, false) => format!("{qualified} \"{name}\" is forbidden: {cause}"),
        };
        let mut details = serde_json::Map::new();
        for (field, value) in [("name", name), ("group", group), ("kind", resource)] {
            if !value.is_empty() {
                details.insert(field.to_string(), json!(value));
            }
        }
        ApiError::new(403, "Forbidden", message).with_details_value(Value::Object(details))
    }

    /// `NewUnauthorized("Unauthorized")`: credentials that do not authenticate anyone.
    pub fn unauthorized() -> ApiError {
        ApiError::new(401, "Unauthorized", "Unauthorized")
    }

    fn with_details_value(mut self, details: Value) -> ApiError {
        self.details = Some(details);
        self
    }

    /// The `metav1.Status` body.
    pub fn to_status(&self) -> Value {
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        });
        if self.reason.is_empty()
            && let Some(map) = status.as_object_mut()
        {
            // `StatusReasonUnknown` is the empty string, omitted.
            map.remove("reason");
        }
        if let (Some(details), Some(map)) = (&self.details, status.as_object_mut()) {
            map.insert("details".to_string(), details.clone());
        }
        if let Some(token) = &self.list_continue {
            status["metadata"] = json!({"continue": token});
        }
        status
    }
}

fn qualified(group: &str, plural: &str) -> String {
    if group.is_empty() { plural.to_string() } else { format!("{plural}.{group}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_found_reads_as_a_real_server_writes_it() {
        let status = ApiError::not_found("apps", "deployments", "web").to_status();
        assert_eq!(status["message"], "deployments.apps \"web\" not found");
        assert_eq!(status["reason"], "NotFound");
        assert_eq!(status["code"], 404);
        assert_eq!(status["details"]["kind"], "deployments");
    }

    #[test]
    fn forbidden_answers_read_as_new_forbidden_writes_them() {
        let status = ApiError::forbidden_resource("", "configmaps", "", "User \"u\" cannot create").to_status();
        assert_eq!(
            (status["message"].as_str(), status["code"].as_u64()),
            (Some("configmaps is forbidden: User \"u\" cannot create"), Some(403))
        );
        assert_eq!(status["details"], json!({"kind": "configmaps"}));
        let named = ApiError::forbidden_resource("rbac.authorization.k8s.io", "roles", "r", "no").to_status();
        assert_eq!(named["message"], "roles.rbac.authorization.k8s.io \"r\" is forbidden: no");
        let path = ApiError::forbidden_resource("", "", "", "User \"u\" cannot get path \"/\"").to_status();
        assert_eq!(
            (path["message"].as_str(), &path["details"]),
            (Some("forbidden: User \"u\" cannot get path \"/\""), &json!({}))
        );
        let unauthorized = ApiError::unauthorized().to_status();
        assert_eq!((unauthorized["reason"].as_str(), unauthorized.get("details")), (Some("Unauthorized"), None));
    }

    #[test]
    fn too_many_requests_carries_retry_after() {
        let error = ApiError::too_many_requests(2);
        assert_eq!(error.retry_after, Some(2));
        assert_eq!(error.to_status()["details"]["retryAfterSeconds"], 2);
    }
}
