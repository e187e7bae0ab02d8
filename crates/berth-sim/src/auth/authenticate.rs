//! Authentication: who sent a request, from its bearer token, as kube-apiserver's authenticator chain answers
//! (the bearer-token authenticator over the static users and ServiceAccount tokens, then anonymous): no
//! credentials is `system:anonymous`; a token that does not authenticate is refused with 401, never treated as
//! anonymous. Client certificates are not taken: the simulated cluster serves plain HTTP on loopback.

use super::tokens::{API_AUDIENCE, Claims, TokenIssuer};
use super::user::{UserInfo, service_account_groups, service_account_username};
use crate::api_error::ApiError;
use crate::store::Store;
use axum::http::{HeaderMap, header};
use serde_json::Value;

/// The extra value a ServiceAccount token's user carries: which credential authenticated it.
const CREDENTIAL_ID: &str = "authentication.kubernetes.io/credential-id";

/// The requester of `headers`, at `now` (seconds since the epoch).
///
/// # Errors
/// [`ApiError::unauthorized`] for a bearer token that is malformed, forged, expired, for another audience, or
/// of a ServiceAccount that no longer exists.
pub fn authenticate(issuer: &TokenIssuer, store: &Store, headers: &HeaderMap, now: i64) -> Result<UserInfo, ApiError> {
    let Some(token) = bearer_token(headers) else {
        return Ok(UserInfo::anonymous());
    };
    let claims = issuer.verify(token, now).ok_or_else(ApiError::unauthorized)?;
    user_of(&claims, store).ok_or_else(ApiError::unauthorized)
}

/// The token of an `Authorization: Bearer TOKEN` header; `None` without one (or with another scheme), as the
/// bearer-token authenticator leaves such requests to the next authenticator. An empty token is kept, and fails.
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// The user a verified token names: a static user with its groups, or a ServiceAccount that still exists (with
/// the uid the token was issued for, when it recorded one).
pub fn user_of(claims: &Claims, store: &Store) -> Option<UserInfo> {
    if !claims.aud.iter().any(|audience| audience == API_AUDIENCE) {
        return None;
    }
    let Some(kubernetes) = &claims.kubernetes else {
        return Some(UserInfo::new(claims.sub.clone(), claims.groups.clone()).with_authenticated_group());
    };
    let (namespace, name) = (&kubernetes.namespace, &kubernetes.serviceaccount.name);
    let def = store.find("", "v1", "serviceaccounts")?;
    let account = store.get(&def, Some(namespace), name).ok()?;
    let uid = account.pointer("/metadata/uid").and_then(Value::as_str).unwrap_or_default();
    let issued_for = &kubernetes.serviceaccount.uid;
    if !issued_for.is_empty() && issued_for != uid {
        return None;
    }
    let mut user = UserInfo::new(service_account_username(namespace, name), service_account_groups(namespace));
    user.uid = uid.to_string();
    user.extra.insert(CREDENTIAL_ID.to_string(), vec![format!("JTI={}", claims.jti)]);
    Some(user.with_authenticated_group())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn only_bearer_credentials_are_read() {
        let mut headers = HeaderMap::new();
        assert_eq!(bearer_token(&headers), None);
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic YWJj"));
        assert_eq!(bearer_token(&headers), None);
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("bearer abc"));
        assert_eq!(bearer_token(&headers), Some("abc"));
    }

    #[test]
    fn a_request_without_a_token_is_anonymous_and_a_bad_token_is_refused() {
        let store = Store::new(10, false);
        let issuer = TokenIssuer::new();
        let anonymous = authenticate(&issuer, &store, &HeaderMap::new(), 0);
        assert_eq!(anonymous.map(|user| user.name), Ok("system:anonymous".to_string()));
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer berth-sim"));
        assert_eq!(authenticate(&issuer, &store, &headers, 0), Err(ApiError::unauthorized()));
    }
}
