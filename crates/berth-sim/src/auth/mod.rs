//! Authentication and authorization as kube-apiserver does them, in the order its filter chain runs:
//! authenticate the bearer token (or `system:anonymous`), apply impersonation headers, authorize the request's
//! attributes with RBAC (`system:masters` allowed everything), then answer the reviews and TokenRequests the
//! server answers itself; the RBAC escalation checks run in the store on the objects being written.
//!
//! The request pipeline calls [`Auth::admit`], [`Auth::answer`] and [`Auth::serve_as`]; [`Auth::install`]
//! writes the bootstrap policy and starts what keeps RBAC current. The cluster's own controllers write to the
//! store directly, which is what kube-apiserver's loopback client in `system:masters` amounts to.

pub mod attributes;
mod authenticate;
pub mod authorizer;
mod controller;
mod escalation;
mod impersonation;
pub mod rbac;
mod refusal;
mod reviews;
mod tokens;
pub mod user;

pub use authorizer::AuthorizationMode;
pub use controller::BootstrapError;
pub use escalation::Requester;

use crate::api_error::ApiError;
use crate::server::body::{content_type, decode_object, error_response, object_response};
use crate::store::Store;
use attributes::Attributes;
use authorizer::{Authorizer, RBAC_GROUP};
use axum::http::{HeaderMap, Method, Uri};
use axum::response::Response;
use impersonation::Refused;
use reviews::{Review, Reviewer};
use serde_json::Value;
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use tokens::{API_AUDIENCE, Claims, KubernetesClaims, ServiceAccountClaim, TokenIssuer};
use tokio_util::sync::CancellationToken;
use user::SYSTEM_MASTERS;

/// The user of the cluster's admin kubeconfig, as kubeadm names it.
pub const ADMIN_USER: &str = "kubernetes-admin";

/// Who a kubeconfig or client configuration of the simulated cluster authenticates as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    /// `kubernetes-admin` in `system:masters`, allowed everything: the default kubeconfig's user.
    Admin,
    /// A user in these groups (and `system:authenticated`), allowed what RBAC grants them.
    User { name: String, groups: Vec<String> },
    /// A ServiceAccount: `system:serviceaccount:NAMESPACE:NAME` in its groups. Its token authenticates while the
    /// ServiceAccount exists (the one that existed when the token was issued, if one did).
    ServiceAccount { namespace: String, name: String },
}

impl Identity {
    /// The username requests with this identity's token authenticate as.
    pub fn username(&self) -> String {
        match self {
            Identity::Admin => ADMIN_USER.to_string(),
            Identity::User { name, .. } => name.clone(),
            Identity::ServiceAccount { namespace, name } => user::service_account_username(namespace, name),
        }
    }
}

/// The authentication and authorization state of one cluster.
#[derive(Debug)]
pub struct Auth {
    authorizer: Arc<Authorizer>,
    issuer: TokenIssuer,
}

/// The verbs that change nothing.
const READ_VERBS: &[&str] = &["get", "list", "watch"];

impl Auth {
    /// Fresh signing keys and an authorizer in `mode`.
    pub fn new(mode: AuthorizationMode) -> Auth {
        Auth { authorizer: Arc::new(Authorizer::new(mode)), issuer: TokenIssuer::new() }
    }

    /// Writes the bootstrap RBAC policy, installs the escalation checks in the store and starts the background
    /// work (aggregated roles, the index kept current) until `shutdown`.
    ///
    /// # Errors
    /// [`BootstrapError`] when the bootstrap policy cannot be written.
    pub fn install(&self, store: &Arc<Store>, shutdown: CancellationToken) -> Result<(), BootstrapError> {
        controller::bootstrap(store)?;
        store.set_write_guard(Arc::new(escalation::EscalationGuard { authorizer: self.authorizer.clone() }));
        drop(controller::spawn(store.clone(), self.authorizer.clone(), shutdown));
        Ok(())
    }

    /// A bearer token authenticating as `identity`, with no expiry (a static token, or a legacy ServiceAccount
    /// token bound to the ServiceAccount's uid when it exists).
    pub fn token(&self, store: &Store, identity: &Identity) -> String {
        let (groups, kubernetes) = match identity {
            Identity::Admin => (vec![SYSTEM_MASTERS.to_string()], None),
            Identity::User { groups, .. } => (groups.clone(), None),
            Identity::ServiceAccount { namespace, name } => {
                let account =
                    store.find("", "v1", "serviceaccounts").and_then(|def| store.get(&def, Some(namespace), name).ok());
                let uid = account.as_ref().and_then(|account| account.pointer("/metadata/uid")).and_then(Value::as_str);
                let serviceaccount =
                    ServiceAccountClaim { name: name.clone(), uid: uid.unwrap_or_default().to_string() };
                (Vec::new(), Some(KubernetesClaims { namespace: namespace.clone(), serviceaccount }))
            }
        };
        let claims = Claims {
            iss: API_AUDIENCE.to_string(),
            sub: identity.username(),
            aud: vec![API_AUDIENCE.to_string()],
            iat: jiff::Timestamp::now().as_second(),
            nbf: None,
            exp: None,
            jti: tokens::random_id(),
            groups,
            kubernetes,
        };
        self.issuer.issue(&claims)
    }

    /// Authenticates, impersonates and authorizes one request (`path` decoded), or answers it: 401 for
    /// credentials that do not authenticate, 403 for what the requester may not do or impersonate, 500 for
    /// impersonation headers without a user.
    pub fn admit(
        &self,
        store: &Store,
        method: &Method,
        uri: &Uri,
        path: &str,
        query: &HashMap<String, String>,
        headers: &HeaderMap,
    ) -> Result<Arc<Requester>, Box<Response>> {
        let now = jiff::Timestamp::now().as_second();
        let refuse = |error: &ApiError| Box::new(error_response(error));
        let requester =
            authenticate::authenticate(&self.issuer, store, headers, now).map_err(|error| refuse(&error))?;
        let authorize =
            |user: &user::UserInfo, attributes: &Attributes| self.authorizer.authorize(store, user, attributes);
        let user = match impersonation::impersonate(requester.clone(), headers, authorize) {
            Ok(user) => user,
            Err(Refused::WithoutUser(cause)) => {
                let request_uri = uri.path_and_query().map_or(path, |whole| whole.as_str());
                return Err(Box::new(refusal::internal_error(request_uri, &cause)));
            }
            Err(Refused::Forbidden { attributes, reason }) => {
                return Err(refuse(&refusal::forbidden(&requester, &attributes, &reason)));
            }
        };
        let attributes = Attributes::of_request(method.as_str(), path, query);
        let decision = self.authorizer.authorize(store, &user, &attributes);
        if !decision.allowed {
            return Err(refuse(&refusal::forbidden(&user, &attributes, &decision.reason)));
        }
        Ok(Arc::new(Requester { user, attributes }))
    }

    /// Answers the requests the API server answers itself (access, rules, user and token reviews,
    /// TokenRequests); `None` for the others.
    pub fn answer(&self, store: &Store, requester: &Requester, headers: &HeaderMap, body: &[u8]) -> Option<Response> {
        let attributes = &requester.attributes;
        let review = Review::of(attributes)?;
        // Reviews are created at their collection, a TokenRequest at its ServiceAccount's `token` subresource;
        // any other request on them names a route the server does not have.
        let at_its_path = match review {
            Review::TokenRequest => !attributes.name.is_empty(),
            _ => attributes.name.is_empty(),
        };
        let answered = if attributes.verb == "create" && at_its_path {
            decode_object(&content_type(headers), body).and_then(|body| {
                let reviewer = Reviewer { authorizer: &self.authorizer, issuer: &self.issuer };
                review.answer(&reviewer, store, &requester.user, attributes, body)
            })
        } else {
            Err(ApiError::method_not_allowed("the server does not allow this method on the requested resource"))
        };
        Some(match answered {
            Ok((status, value)) => object_response(status, &value, headers),
            Err(error) => error_response(&error),
        })
    }

    /// Serves the rest of a request as its requester (for the store's escalation checks); after a write to an
    /// RBAC object the authorizer rebuilds its index before it answers again.
    pub async fn serve_as<F: Future>(&self, requester: Arc<Requester>, future: F) -> F::Output {
        let attributes = &requester.attributes;
        let writes_rbac = attributes.api_group == RBAC_GROUP && !READ_VERBS.contains(&attributes.verb.as_str());
        let output = escalation::run_as(requester, future).await;
        if writes_rbac {
            self.authorizer.mark_stale();
        }
        output
    }
}
