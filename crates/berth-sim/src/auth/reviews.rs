//! The requests kube-apiserver answers itself instead of storing: access reviews (`kubectl auth can-i`), rules
//! reviews (`kubectl auth can-i --list`), who-am-I and token reviews (`kubectl auth whoami`), and TokenRequests
//! (`kubectl create token`), as pkg/registry/authorization/* and pkg/registry/authentication/* and
//! pkg/registry/core/serviceaccount/storage/token.go answer them. Each is a create that returns the posted
//! object with its status filled in, and writes nothing.

use super::attributes::Attributes;
use super::authenticate::user_of;
use super::authorizer::Authorizer;
use super::rbac::rule::PolicyRule;
use super::tokens::{API_AUDIENCE, Claims, KubernetesClaims, ServiceAccountClaim, TokenIssuer, random_id};
use super::user::UserInfo;
use crate::api_error::ApiError;
use crate::field_error::FieldError;
use crate::store::{Store, kube_time};
use axum::http::StatusCode;
use serde_json::{Map, Value, json};

/// What answering a review needs of the cluster's auth state: the authorizer (access and rules reviews) and the
/// token issuer (token reviews and requests). Borrowed from `Auth` by its caller, so this module does not import
/// the module that declares it.
pub(super) struct Reviewer<'a> {
    pub authorizer: &'a Authorizer,
    pub issuer: &'a TokenIssuer,
}

const AUTHORIZATION_GROUP: &str = "authorization.k8s.io";
const AUTHENTICATION_GROUP: &str = "authentication.k8s.io";

/// The reviews and the subresource the request pipeline answers here instead of the store: (group, resource,
/// subresource).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Review {
    SelfSubjectAccess,
    SubjectAccess,
    LocalSubjectAccess,
    SelfSubjectRules,
    SelfSubject,
    Token,
    TokenRequest,
}

const REVIEWS: &[(&str, &str, &str, Review)] = &[
    (AUTHORIZATION_GROUP, "selfsubjectaccessreviews", "", Review::SelfSubjectAccess),
    (AUTHORIZATION_GROUP, "subjectaccessreviews", "", Review::SubjectAccess),
    (AUTHORIZATION_GROUP, "localsubjectaccessreviews", "", Review::LocalSubjectAccess),
    (AUTHORIZATION_GROUP, "selfsubjectrulesreviews", "", Review::SelfSubjectRules),
    (AUTHENTICATION_GROUP, "selfsubjectreviews", "", Review::SelfSubject),
    (AUTHENTICATION_GROUP, "tokenreviews", "", Review::Token),
    ("", "serviceaccounts", "token", Review::TokenRequest),
];

impl Review {
    /// The review a request's attributes name, if any.
    pub fn of(attributes: &Attributes) -> Option<Review> {
        REVIEWS
            .iter()
            .find(|(group, resource, subresource, _)| {
                attributes.resource_request
                    && attributes.api_group == *group
                    && attributes.resource == *resource
                    && attributes.subresource == *subresource
            })
            .map(|(_, _, _, review)| *review)
    }

    /// Answers a POST of `body` by `user`.
    ///
    /// # Errors
    /// What kube-apiserver answers: 422 for an invalid review, 400 for a bad namespace, 404 for a TokenRequest
    /// of a missing ServiceAccount.
    pub fn answer(
        self,
        auth: &Reviewer<'_>,
        store: &Store,
        user: &UserInfo,
        attributes: &Attributes,
        mut body: Value,
    ) -> Result<(StatusCode, Value), ApiError> {
        let spec = body.get("spec").cloned().unwrap_or(Value::Null);
        if !body.is_object() || !(spec.is_object() || spec.is_null()) {
            return Err(ApiError::bad_request("the body of the request is not a review object"));
        }
        let status = match self {
            Review::SelfSubjectAccess => access_status(auth, store, user, &spec, "SelfSubjectAccessReview")?,
            Review::SubjectAccess => access_status(auth, store, &subject_of(&spec)?, &spec, "SubjectAccessReview")?,
            Review::LocalSubjectAccess => {
                let requested =
                    spec.pointer("/resourceAttributes/namespace").and_then(Value::as_str).unwrap_or_default();
                if requested != attributes.namespace {
                    return Err(ApiError::bad_request(format!(
                        "spec.resourceAttributes.namespace must match namespace: {} != {}",
                        attributes.namespace, requested
                    )));
                }
                access_status(auth, store, &subject_of(&spec)?, &spec, "LocalSubjectAccessReview")?
            }
            Review::SelfSubjectRules => rules_status(auth, store, user, &spec)?,
            Review::SelfSubject => json!({"userInfo": user_info_json(user)}),
            Review::Token => token_status(auth, store, &spec),
            Review::TokenRequest => return token_request(auth, store, attributes, body),
        };
        body["status"] = status;
        if body.get("metadata").is_none_or(Value::is_null) {
            body["metadata"] = json!({"creationTimestamp": null});
        }
        Ok((StatusCode::CREATED, body))
    }
}

fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value.get(field).and_then(Value::as_str).unwrap_or_default()
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default()
}

/// `authorizationutil.ResourceAttributesFrom` / `NonResourceAttributesFrom`, after the validation both
/// access reviews share (exactly one kind of attributes).
fn review_attributes(spec: &Value, kind: &str) -> Result<Attributes, ApiError> {
    let resource = spec.get("resourceAttributes").filter(|value| !value.is_null());
    let non_resource = spec.get("nonResourceAttributes").filter(|value| !value.is_null());
    let invalid = |error: FieldError| ApiError::invalid_fields(AUTHORIZATION_GROUP, kind, "", &[error]);
    match (resource, non_resource) {
        (Some(resource), None) => {
            let mut attributes = Attributes::resource(
                text(resource, "verb"),
                text(resource, "group"),
                text(resource, "resource"),
                text(resource, "namespace"),
                text(resource, "name"),
            );
            attributes.subresource = text(resource, "subresource").to_string();
            attributes.api_version = match text(resource, "version") {
                "" => "*".to_string(),
                version => version.to_string(),
            };
            Ok(attributes)
        }
        (None, Some(non_resource)) => {
            Ok(Attributes::non_resource(text(non_resource, "verb"), text(non_resource, "path")))
        }
        (Some(_), Some(_)) => Err(invalid(FieldError::invalid_raw(
            "spec.nonResourceAttributes",
            "{...}",
            "cannot be specified in combination with resourceAttributes",
        ))),
        (None, None) => Err(invalid(FieldError::invalid_raw(
            "spec.resourceAttributes",
            "null",
            "exactly one of nonResourceAttributes or resourceAttributes must be specified",
        ))),
    }
}

/// The subject of a SubjectAccessReview: the user and groups as given, no group implied.
fn subject_of(spec: &Value) -> Result<UserInfo, ApiError> {
    let mut user = UserInfo::new(text(spec, "user"), strings(spec.get("groups")));
    if user.name.is_empty() && user.groups.is_empty() {
        return Err(ApiError::invalid_fields(
            AUTHORIZATION_GROUP,
            "SubjectAccessReview",
            "",
            &[FieldError::invalid("spec.user", "", "at least one of user or group must be specified")],
        ));
    }
    user.uid = text(spec, "uid").to_string();
    if let Some(extra) = spec.get("extra").and_then(Value::as_object) {
        user.extra = extra.iter().map(|(key, values)| (key.clone(), strings(Some(values)))).collect();
    }
    Ok(user)
}

/// `SubjectAccessReviewStatus`: allowed or not, and the authorizer's reason.
fn access_status(
    auth: &Reviewer<'_>,
    store: &Store,
    user: &UserInfo,
    spec: &Value,
    kind: &str,
) -> Result<Value, ApiError> {
    let attributes = review_attributes(spec, kind)?;
    let decision = auth.authorizer.authorize(store, user, &attributes);
    let mut status = json!({"allowed": decision.allowed});
    if !decision.reason.is_empty() {
        status["reason"] = json!(decision.reason);
    }
    Ok(status)
}

/// `SubjectRulesReviewStatus`: the user's rules in the namespace, resource and non-resource apart.
fn rules_status(auth: &Reviewer<'_>, store: &Store, user: &UserInfo, spec: &Value) -> Result<Value, ApiError> {
    let namespace = text(spec, "namespace");
    if namespace.is_empty() {
        return Err(ApiError::bad_request("no namespace on request"));
    }
    let (rules, errors) = auth.authorizer.fresh_index(store).rules_for(user, namespace);
    let resource_rules: Vec<Value> = rules
        .iter()
        .filter(|rule| !rule.resources.is_empty())
        .map(|rule| PolicyRule { non_resource_urls: Vec::new(), ..rule.clone() }.to_json())
        .collect();
    let non_resource_rules: Vec<Value> = rules
        .iter()
        .filter(|rule| !rule.non_resource_urls.is_empty())
        .map(|rule| json!({"verbs": rule.verbs, "nonResourceURLs": rule.non_resource_urls}))
        .collect();
    let mut status =
        json!({"resourceRules": resource_rules, "nonResourceRules": non_resource_rules, "incomplete": false});
    if !errors.is_empty() {
        status["evaluationError"] = json!(super::rbac::index::aggregate(&errors));
    }
    Ok(status)
}

/// `authenticationv1.UserInfo`
fn user_info_json(user: &UserInfo) -> Value {
    let mut info = Map::new();
    info.insert("username".to_string(), json!(user.name));
    if !user.uid.is_empty() {
        info.insert("uid".to_string(), json!(user.uid));
    }
    if !user.groups.is_empty() {
        info.insert("groups".to_string(), json!(user.groups));
    }
    if !user.extra.is_empty() {
        info.insert("extra".to_string(), json!(user.extra));
    }
    Value::Object(info)
}

/// `TokenReviewStatus`: whom a token authenticates, for the audiences asked.
fn token_status(auth: &Reviewer<'_>, store: &Store, spec: &Value) -> Value {
    let now = jiff::Timestamp::now().as_second();
    let user = auth.issuer.verify(text(spec, "token"), now).and_then(|claims| user_of(&claims, store));
    match user {
        Some(user) => json!({"authenticated": true, "user": user_info_json(&user), "audiences": [API_AUDIENCE]}),
        None => json!({"user": {}, "error": "[invalid bearer token, token lookup failed]"}),
    }
}

/// Seconds a TokenRequest's token lives when it asks nothing (`SetDefaults_TokenRequestSpec`).
const DEFAULT_EXPIRATION_SECONDS: i64 = 3600;
/// The shortest lifetime a TokenRequest may ask (`ValidateTokenRequest`).
const MIN_EXPIRATION_SECONDS: i64 = 600;
/// The longest: 2^32 seconds.
const MAX_EXPIRATION_SECONDS: i64 = 1 << 32;

/// A TokenRequest: a token bound to the ServiceAccount of the URL, for the audiences asked (the API server's
/// when none), living the seconds asked.
fn token_request(
    auth: &Reviewer<'_>,
    store: &Store,
    attributes: &Attributes,
    mut body: Value,
) -> Result<(StatusCode, Value), ApiError> {
    let (namespace, name) = (attributes.namespace.as_str(), attributes.name.as_str());
    let def = store.find("", "v1", "serviceaccounts").ok_or_else(ApiError::no_route)?;
    let account = store.get(&def, Some(namespace), name)?;
    let seconds = match body.pointer("/spec/expirationSeconds") {
        None | Some(Value::Null) => DEFAULT_EXPIRATION_SECONDS,
        Some(value) => {
            value.as_i64().ok_or_else(|| ApiError::bad_request("spec.expirationSeconds must be an integer"))?
        }
    };
    let too = if seconds < MIN_EXPIRATION_SECONDS {
        Some("may not specify a duration less than 10 minutes")
    } else if seconds > MAX_EXPIRATION_SECONDS {
        Some("may not specify a duration larger than 2^32 seconds")
    } else {
        None
    };
    if let Some(detail) = too {
        let error = FieldError::invalid_raw("spec.expirationSeconds", seconds.to_string(), detail);
        return Err(ApiError::invalid_fields(AUTHENTICATION_GROUP, "TokenRequest", name, &[error]));
    }
    let mut audiences = strings(body.pointer("/spec/audiences"));
    if audiences.is_empty() {
        audiences = vec![API_AUDIENCE.to_string()];
    }
    let now = jiff::Timestamp::now();
    let expires = now.as_second().saturating_add(seconds);
    let uid = account.pointer("/metadata/uid").and_then(Value::as_str).unwrap_or_default();
    let claims = Claims {
        iss: API_AUDIENCE.to_string(),
        sub: super::user::service_account_username(namespace, name),
        aud: audiences.clone(),
        iat: now.as_second(),
        nbf: Some(now.as_second()),
        exp: Some(expires),
        jti: random_id(),
        groups: Vec::new(),
        kubernetes: Some(KubernetesClaims {
            namespace: namespace.to_string(),
            serviceaccount: ServiceAccountClaim { name: name.to_string(), uid: uid.to_string() },
        }),
    };
    let expiration = jiff::Timestamp::from_second(expires).map(kube_time).unwrap_or_default();
    body["spec"]["audiences"] = json!(audiences);
    body["spec"]["expirationSeconds"] = json!(seconds);
    body["status"] = json!({"token": auth.issuer.issue(&claims), "expirationTimestamp": expiration});
    Ok((StatusCode::CREATED, body))
}
