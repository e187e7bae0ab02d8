//! Request and response bodies: JSON, YAML and protobuf in; JSON out (protobuf when a client accepts nothing
//! else), with the content types a real server uses.

use crate::api_error::ApiError;
use crate::protobuf;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

/// The largest request body kube-apiserver reads (`MaxRequestBodyBytes`, 3 MiB by default): its handlers read
/// one byte more and refuse the request when they get it (`limitedReadBody`).
pub const MAX_REQUEST_BODY_BYTES: usize = 3 * 1024 * 1024;

/// The answer to a body over [`MAX_REQUEST_BODY_BYTES`] as kube-apiserver gives it: 413 with a
/// `RequestEntityTooLarge` Status, where the router's body limit answers plain text. Other answers pass.
pub async fn body_limit_as_status(response: Response) -> Response {
    let is_plain = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_none_or(|value| !value.starts_with("application/json"));
    if response.status() == StatusCode::PAYLOAD_TOO_LARGE && is_plain {
        return error_response(&ApiError::request_entity_too_large(MAX_REQUEST_BODY_BYTES));
    }
    response
}

/// The media type of a request body, parameters stripped.
pub fn content_type(headers: &HeaderMap) -> String {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .map(|value| value.trim().to_ascii_lowercase())
        .unwrap_or_default()
}

/// The media types an object body (POST, PUT) may have, as the server's serializers list them.
pub const BODY_MEDIA_TYPES: &[&str] = &["application/json", "application/yaml", protobuf::CONTENT_TYPE];

/// The patch types of built-in kinds (the apiserver's installer), then of custom resources (the CRD handler:
/// no strategic merge patch), in their order.
pub const PATCH_TYPES: &[&str] = &[
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
];
pub const CUSTOM_PATCH_TYPES: &[&str] =
    &["application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"];

/// Decodes an object body (POST, PUT, apply patches) by content type.
///
/// # Errors
/// 415 for media types a server does not take, 400 for bodies that do not decode.
pub fn decode_object(media_type: &str, body: &[u8]) -> Result<Value, ApiError> {
    let value = match media_type {
        "application/json"
        | ""
        | "application/merge-patch+json"
        | "application/strategic-merge-patch+json"
        | "application/json-patch+json" => decode_json(body)?,
        "application/yaml" | "application/apply-patch+yaml" => decode_yaml(body)?,
        protobuf::CONTENT_TYPE => protobuf::decode(body)
            .map_err(|error| ApiError::bad_request(format!("the body of the request could not be decoded: {error}")))?,
        _ => return Err(ApiError::unsupported_media_type(BODY_MEDIA_TYPES)),
    };
    Ok(value)
}

fn decode_json(body: &[u8]) -> Result<Value, ApiError> {
    serde_json::from_slice(body)
        .map_err(|error| ApiError::bad_request(format!("couldn't get version/kind; json parse error: {error}")))
}

fn decode_yaml(body: &[u8]) -> Result<Value, ApiError> {
    let text =
        std::str::from_utf8(body).map_err(|_| ApiError::bad_request("error decoding YAML: the body is not UTF-8"))?;
    if text.trim_start().starts_with('{') {
        return decode_json(body);
    }
    serde_saphyr::from_str::<Value>(text)
        .map_err(|error| ApiError::bad_request(format!("error decoding YAML: {error}")))
}

/// Whether the client accepts JSON (otherwise only protobuf).
pub fn accepts_json(headers: &HeaderMap) -> bool {
    let accept =
        headers.get_all(header::ACCEPT).iter().filter_map(|value| value.to_str().ok()).collect::<Vec<_>>().join(",");
    accept.is_empty() || accept.contains("json") || accept.contains("*/*") || accept.contains("yaml")
}

/// A JSON answer.
pub fn json_response(status: StatusCode, value: &Value) -> Response {
    let body = serde_json::to_vec(value).unwrap_or_default();
    (status, [(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body).into_response()
}

/// An object answer in the encoding the client asked for.
pub fn object_response(status: StatusCode, value: &Value, headers: &HeaderMap) -> Response {
    if !accepts_json(headers)
        && let Ok(encoded) = protobuf::encode(value)
    {
        return (status, [(header::CONTENT_TYPE, HeaderValue::from_static(protobuf::CONTENT_TYPE))], encoded)
            .into_response();
    }
    json_response(status, value)
}

/// A `metav1.Status` answer with `Retry-After` when the error carries one.
pub fn error_response(error: &ApiError) -> Response {
    let status = StatusCode::from_u16(error.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = json_response(status, &error.to_status());
    if let Some(seconds) = error.retry_after
        && let Ok(value) = HeaderValue::from_str(&seconds.to_string())
    {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_decode_by_media_type() {
        assert!(decode_object("application/json", br#"{"a":1}"#).is_ok_and(|value| value["a"] == 1));
        assert!(
            decode_object("application/apply-patch+yaml", b"a: 1\nb: [x]\n").is_ok_and(|value| value["b"][0] == "x")
        );
        assert!(decode_object("application/apply-patch+yaml", br#"{"a": 2}"#).is_ok_and(|value| value["a"] == 2));
        assert!(decode_object("text/plain", b"a").is_err_and(|error| error.code == 415));
        assert!(decode_object("application/json", b"{").is_err_and(|error| error.code == 400));
        assert!(decode_object(protobuf::CONTENT_TYPE, b"nonsense").is_err_and(|error| error.code == 400));
    }
}
