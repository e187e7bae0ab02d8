//! How a registry asks to be authenticated, and the answer (oras-go's auth client as Helm uses it): a 401 carries
//! `WWW-Authenticate: Basic realm=...` (send the user and password) or `Bearer realm=...,service=...,scope=...`
//! (fetch a token from the realm, with the user and password when there are any, and send it). Pure parsing.

/// A parsed `WWW-Authenticate` challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Challenge {
    Basic,
    Bearer { realm: String, service: String, scope: String },
    Other(String),
}

/// Parses the first challenge of a `WWW-Authenticate` header value.
pub fn parse_challenge(header: &str) -> Challenge {
    let header = header.trim();
    let (scheme, rest) = header.split_once(' ').unwrap_or((header, ""));
    match scheme.to_ascii_lowercase().as_str() {
        "basic" => Challenge::Basic,
        "bearer" => {
            let parameters = parse_parameters(rest);
            let get = |name: &str| {
                parameters
                    .iter()
                    .find(|(key, _)| key.eq_ignore_ascii_case(name))
                    .map(|(_, value)| value.clone())
                    .unwrap_or_default()
            };
            Challenge::Bearer { realm: get("realm"), service: get("service"), scope: get("scope") }
        }
        other => Challenge::Other(other.to_string()),
    }
}

/// `key=value` and `key="quoted \"value\""` pairs separated by commas.
fn parse_parameters(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| *c == ',' || c.is_whitespace()) {
            chars.next();
        }
        let key: String = std::iter::from_fn(|| chars.next_if(|c| *c != '=' && *c != ',')).collect();
        if key.is_empty() {
            break;
        }
        if chars.next() != Some('=') {
            out.push((key.trim().to_string(), String::new()));
            continue;
        }
        let mut value = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => {
                        if let Some(escaped) = chars.next() {
                            value.push(escaped);
                        }
                    }
                    '"' => break,
                    other => value.push(other),
                }
            }
        } else {
            value = std::iter::from_fn(|| chars.next_if(|c| *c != ',')).collect::<String>().trim().to_string();
        }
        out.push((key.trim().to_string(), value));
    }
    out
}

/// The scope a request on `repository` needs (`repository:NAME:pull` or `...:pull,push`).
pub fn repository_scope(repository: &str, push: bool) -> String {
    format!("repository:{repository}:{}", if push { "pull,push" } else { "pull" })
}

/// The token in a token server's answer (`token`, else `access_token`).
pub fn token_from_response(body: &[u8]) -> Option<String> {
    let json: serde_json::Value = serde_json::from_slice(body).ok()?;
    ["token", "access_token"]
        .iter()
        .find_map(|name| json.get(*name).and_then(serde_json::Value::as_str).filter(|token| !token.is_empty()))
        .map(str::to_string)
}

/// A registry error body (`{"errors": [{"code": "UNAUTHORIZED", "message": "..."}]}`) as oras-go words it
/// (registry/remote/errcode `Error.Error` and `Errors.Error`): `unauthorized: authentication required`, a detail
/// after it as Go's `%v` prints what `encoding/json` decoded (`map[name:charts/nothing]`), several joined with
/// `; `.
pub fn error_text(body: &[u8]) -> String {
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(body) else {
        return String::new();
    };
    let Some(errors) = json.get("errors").and_then(serde_json::Value::as_array) else {
        return String::new();
    };
    errors
        .iter()
        .map(|error| {
            let code = error
                .get("code")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default()
                .to_lowercase()
                .replace('_', " ");
            let message = error.get("message").and_then(serde_json::Value::as_str).unwrap_or_default();
            match (message.is_empty(), error.get("detail").filter(|detail| !detail.is_null())) {
                (true, _) => code,
                (false, None) => format!("{code}: {message}"),
                (false, Some(detail)) => format!("{code}: {message}: {}", go_value_text(detail)),
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A JSON value as Go's `%v` prints it once decoded into an `any` (maps with their keys sorted, numbers as
/// `float64`'s `%g`); empty if it cannot be (nested past Go's printing bound).
fn go_value_text(value: &serde_json::Value) -> String {
    berth_go::json::decode(&value.to_string())
        .ok()
        .and_then(|decoded| decoded.value.to_go_string().ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_parse_as_registries_send_them() {
        assert_eq!(parse_challenge("Basic realm=\"basic-realm\""), Challenge::Basic);
        assert_eq!(
            parse_challenge(
                r#"Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull,push""#
            ),
            Challenge::Bearer {
                realm: "https://auth.example/token".into(),
                service: "registry.example".into(),
                scope: "repository:a/b:pull,push".into()
            }
        );
        assert_eq!(
            parse_challenge("Bearer realm=http://t/x, service=s"),
            Challenge::Bearer { realm: "http://t/x".into(), service: "s".into(), scope: String::new() }
        );
        assert_eq!(parse_challenge("Negotiate"), Challenge::Other("negotiate".into()));
    }

    #[test]
    fn tokens_and_error_bodies() {
        assert_eq!(token_from_response(br#"{"token":"t1"}"#).as_deref(), Some("t1"));
        assert_eq!(token_from_response(br#"{"access_token":"t2","token":""}"#).as_deref(), Some("t2"));
        assert_eq!(token_from_response(b"nope"), None);
        assert_eq!(
            error_text(br#"{"errors":[{"code":"UNAUTHORIZED","message":"authentication required","detail":null}]}"#),
            "unauthorized: authentication required"
        );
        assert_eq!(repository_scope("charts/app", true), "repository:charts/app:pull,push");
    }

    #[test]
    fn error_details_print_as_gos_percent_v() {
        // docker-registry 2.8's answer for a repository it lacks, and oras-go's words for it through Helm 4.1.4.
        let unknown = br#"{"errors":[{"code":"NAME_UNKNOWN","message":"repository name not known to registry","detail":{"name":"charts/nothing"}}]}"#;
        assert_eq!(
            error_text(unknown),
            "name unknown: repository name not known to registry: map[name:charts/nothing]"
        );
        let several = br#"{"errors":[{"code":"DENIED","message":"no","detail":[1000000,"x",true]},{"code":"","message":"m"},{"code":"TOO_MANY_REQUESTS"}]}"#;
        assert_eq!(error_text(several), "denied: no: [1e+06 x true]; : m; too many requests");
        assert_eq!(error_text(b"<html>"), "");
    }
}
