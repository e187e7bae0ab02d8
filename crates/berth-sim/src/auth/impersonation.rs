//! Impersonation: a requester acting as another user through the `Impersonate-User`, `Impersonate-Group`,
//! `Impersonate-Uid` and `Impersonate-Extra-*` headers, each value allowed only by the `impersonate` verb on
//! `users`, `groups`, `serviceaccounts`, `uids` or `userextras/KEY`, as kube-apiserver's `WithImpersonation`
//! filter checks it (staging/src/k8s.io/apiserver/pkg/endpoints/filters/impersonation.go): an impersonated
//! ServiceAccount gets its groups, every impersonated user but the anonymous one gets `system:authenticated`.

use super::attributes::Attributes;
use super::rbac::index::Decision;
use super::user::{
    ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS, UserInfo, service_account_groups, service_account_username,
    split_service_account_username,
};
use axum::http::HeaderMap;

const USER_HEADER: &str = "impersonate-user";
const GROUP_HEADER: &str = "impersonate-group";
const UID_HEADER: &str = "impersonate-uid";
const EXTRA_HEADER_PREFIX: &str = "impersonate-extra-";
/// The API group of the `uids` and `userextras` resources the filter authorizes.
const AUTHENTICATION_GROUP: &str = "authentication.k8s.io";

/// One thing the requester asks to impersonate (`buildImpersonationRequests`' object references).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Request {
    ServiceAccount { namespace: String, name: String },
    User(String),
    Group(String),
    Extra { key: String, value: String },
    Uid(String),
}

impl Request {
    /// The `impersonate` request the requester must be allowed.
    fn attributes(&self) -> Attributes {
        let (group, resource, namespace, name) = match self {
            Request::ServiceAccount { namespace, name } => ("", "serviceaccounts", namespace.as_str(), name.as_str()),
            Request::User(name) => ("", "users", "", name.as_str()),
            Request::Group(name) => ("", "groups", "", name.as_str()),
            Request::Extra { value, .. } => (AUTHENTICATION_GROUP, "userextras", "", value.as_str()),
            Request::Uid(uid) => (AUTHENTICATION_GROUP, "uids", "", uid.as_str()),
        };
        let mut attributes = Attributes::resource("impersonate", group, resource, namespace, name);
        if let Request::Extra { key, .. } = self {
            attributes.subresource = key.clone();
        }
        attributes
    }

    /// Go's `%v` of the `v1.ObjectReference` (Kind, Namespace, Name, UID, APIVersion, ResourceVersion,
    /// FieldPath), for the error about headers without a user.
    fn go_value(&self) -> String {
        let (kind, namespace, name, api_version, field_path) = match self {
            Request::ServiceAccount { namespace, name } => {
                ("ServiceAccount", namespace.as_str(), name.as_str(), "", "")
            }
            Request::User(name) => ("User", "", name.as_str(), "", ""),
            Request::Group(name) => ("Group", "", name.as_str(), "", ""),
            Request::Extra { key, value } => {
                ("UserExtra", "", value.as_str(), "authentication.k8s.io/v1", key.as_str())
            }
            Request::Uid(uid) => ("UID", "", uid.as_str(), "authentication.k8s.io/v1", ""),
        };
        format!("{{{kind} {namespace} {name}  {api_version}  {field_path}}}")
    }
}

/// Why impersonation was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// Groups, extras or a uid without a user: kube-apiserver answers 500 with this cause.
    WithoutUser(String),
    /// The requester may not impersonate this (403 for these attributes, with the authorizer's reason).
    Forbidden { attributes: Box<Attributes>, reason: String },
}

/// `unescapeExtraKey`: the key of an extra header is percent-encoded; an undecodable key is kept as sent.
fn unescape_extra_key(key: &str) -> String {
    let bytes = key.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let hex = bytes.get(index + 1..index + 3).and_then(|pair| std::str::from_utf8(pair).ok());
            match hex.and_then(|pair| u8::from_str_radix(pair, 16).ok()) {
                Some(byte) => decoded.push(byte),
                None => return key.to_string(),
            }
            index += 3;
        } else {
            decoded.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8(decoded).unwrap_or_else(|_| key.to_string())
}

/// `buildImpersonationRequests`: the user, then groups, extras and uid, in header order.
fn requests(headers: &HeaderMap) -> Result<Vec<Request>, Refused> {
    let text = |value: &axum::http::HeaderValue| String::from_utf8_lossy(value.as_bytes()).into_owned();
    let mut requests = Vec::new();
    let user = headers.get(USER_HEADER).map(text).filter(|user| !user.is_empty());
    if let Some(user) = &user {
        requests.push(match split_service_account_username(user) {
            Some((namespace, name)) => {
                Request::ServiceAccount { namespace: namespace.to_string(), name: name.to_string() }
            }
            None => Request::User(user.clone()),
        });
    }
    requests.extend(headers.get_all(GROUP_HEADER).iter().map(|group| Request::Group(text(group))));
    for (name, value) in headers {
        if let Some(key) = name.as_str().strip_prefix(EXTRA_HEADER_PREFIX) {
            requests.push(Request::Extra { key: unescape_extra_key(key), value: text(value) });
        }
    }
    if let Some(uid) = headers.get(UID_HEADER).map(text).filter(|uid| !uid.is_empty()) {
        requests.push(Request::Uid(uid));
    }
    if user.is_none() && !requests.is_empty() {
        let listed: Vec<String> = requests.iter().map(Request::go_value).collect();
        return Err(Refused::WithoutUser(format!("requested [{}] without impersonating a user", listed.join(" "))));
    }
    Ok(requests)
}

/// The user a request acts as: the requester itself without impersonation headers, else the impersonated
/// user once every part of it is allowed by `authorize`.
///
/// # Errors
/// [`Refused`] for headers without a user, or the first part the requester may not impersonate.
pub fn impersonate(
    requester: UserInfo,
    headers: &HeaderMap,
    authorize: impl Fn(&UserInfo, &Attributes) -> Decision,
) -> Result<UserInfo, Refused> {
    let requests = requests(headers)?;
    if requests.is_empty() {
        return Ok(requester);
    }
    let groups_specified = headers.contains_key(GROUP_HEADER);
    let mut user = UserInfo::default();
    for request in &requests {
        let attributes = request.attributes();
        let decision = authorize(&requester, &attributes);
        if !decision.allowed {
            return Err(Refused::Forbidden { attributes: Box::new(attributes), reason: decision.reason });
        }
        match request {
            Request::ServiceAccount { namespace, name } => {
                user.name = service_account_username(namespace, name);
                if !groups_specified {
                    user.groups = service_account_groups(namespace);
                }
            }
            Request::User(name) => user.name = name.clone(),
            Request::Group(group) => user.groups.push(group.clone()),
            Request::Extra { key, value } => user.extra.entry(key.clone()).or_default().push(value.clone()),
            Request::Uid(uid) => user.uid = uid.clone(),
        }
    }
    let (implied, excluded) = if user.name == ANONYMOUS {
        (ALL_UNAUTHENTICATED, ALL_UNAUTHENTICATED)
    } else {
        (ALL_AUTHENTICATED, ALL_UNAUTHENTICATED)
    };
    if !user.is_in(implied) && !user.is_in(excluded) {
        user.groups.push(implied.to_string());
    }
    Ok(user)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, HeaderValue::from_static(value));
        }
        headers
    }

    fn admin() -> UserInfo {
        UserInfo::new("admin", vec!["system:masters".to_string()])
    }

    fn allow_all(_: &UserInfo, _: &Attributes) -> Decision {
        Decision { allowed: true, reason: String::new() }
    }

    #[test]
    fn an_impersonated_service_account_gets_its_groups() {
        let user =
            impersonate(admin(), &headers(&[("impersonate-user", "system:serviceaccount:team-a:deployer")]), allow_all);
        assert_eq!(
            user.map(|user| (user.name, user.groups)),
            Ok((
                "system:serviceaccount:team-a:deployer".to_string(),
                vec![
                    "system:serviceaccounts".to_string(),
                    "system:serviceaccounts:team-a".to_string(),
                    "system:authenticated".to_string()
                ]
            ))
        );
    }

    #[test]
    fn named_groups_replace_the_service_account_groups() {
        let pairs = [("impersonate-user", "system:serviceaccount:team-a:deployer"), ("impersonate-group", "ops")];
        let user = impersonate(admin(), &headers(&pairs), allow_all);
        assert_eq!(user.map(|user| user.groups), Ok(vec!["ops".to_string(), "system:authenticated".to_string()]));
    }

    #[test]
    fn extras_and_uids_are_impersonated_with_the_user() {
        let pairs =
            [("impersonate-user", "alice"), ("impersonate-uid", "42"), ("impersonate-extra-scopes%2fx", "read")];
        let user = impersonate(admin(), &headers(&pairs), allow_all).unwrap_or_default();
        assert_eq!((user.uid.as_str(), user.extra.get("scopes/x").cloned()), ("42", Some(vec!["read".to_string()])));
    }

    #[test]
    fn each_part_needs_the_impersonate_verb() {
        let only_users = |_: &UserInfo, attributes: &Attributes| Decision {
            allowed: attributes.resource == "users",
            reason: String::new(),
        };
        let refused = impersonate(
            admin(),
            &headers(&[("impersonate-user", "alice"), ("impersonate-group", "system:masters")]),
            only_users,
        );
        let expected = Attributes::resource("impersonate", "", "groups", "", "system:masters");
        assert_eq!(refused, Err(Refused::Forbidden { attributes: Box::new(expected), reason: String::new() }));
    }

    #[test]
    fn groups_without_a_user_are_an_error() {
        let refused = impersonate(admin(), &headers(&[("impersonate-group", "system:masters")]), allow_all);
        assert_eq!(
            refused,
            Err(Refused::WithoutUser(
                "requested [{Group  system:masters    }] without impersonating a user".to_string()
            ))
        );
    }

    #[test]
    fn anonymous_stays_unauthenticated() {
        let user = impersonate(admin(), &headers(&[("impersonate-user", "system:anonymous")]), allow_all);
        assert_eq!(user.map(|user| user.groups), Ok(vec!["system:unauthenticated".to_string()]));
    }
}
