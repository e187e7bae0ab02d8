//! The simulated cluster's HTTP face: one handler that routes a request path the way kube-apiserver does
//! (discovery, OpenAPI, resource paths) and answers with real status codes and `metav1.Status` errors.

pub(crate) mod body;
mod columns;
mod discovery;
pub mod logs;
mod metadata;
mod resources;
mod table;
mod watch;

use super::api_error::ApiError;
use super::auth::Auth;
use super::faults::FaultInjector;
use super::store::Store;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio_util::sync::CancellationToken;

/// Shared by every request of one simulated cluster.
pub struct ServerState {
    pub store: Arc<Store>,
    pub faults: FaultInjector,
    /// `host:port` the server listens on (for `/api`'s serverAddressByClientCIDRs).
    pub address: String,
    pub requests: RequestCounts,
    /// Ends open watches when the cluster stops.
    pub shutdown: CancellationToken,
}

/// How many requests of each verb the server answered (tests check that waits watch instead of polling), and of
/// each resource request by verb, resource and label selector (tests and the controller's benchmark count what
/// a Release costs, and what a wait watches).
#[derive(Debug, Default)]
pub struct RequestCounts {
    counts: [AtomicU64; 9],
    /// Bounded by the distinct (verb, resource, selector) the clients send: a test's handful.
    by_kind: std::sync::Mutex<HashMap<RequestKind, u64>>,
}

/// One kind of resource request.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RequestKind {
    pub verb: RequestVerb,
    /// As kubectl names it: `pods`, `deployments.apps`, `releases.berth.dev/status`; a discovery request's path.
    pub resource: String,
    /// A list's or watch's `labelSelector`.
    pub label_selector: Option<String>,
}

/// The verbs counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RequestVerb {
    Discovery = 0,
    Get = 1,
    List = 2,
    Watch = 3,
    Create = 4,
    Update = 5,
    Patch = 6,
    Delete = 7,
    Other = 8,
}

impl RequestCounts {
    fn count(&self, verb: RequestVerb) {
        self.counts[verb as usize].fetch_add(1, Ordering::Relaxed);
    }

    pub fn get(&self, verb: RequestVerb) -> u64 {
        self.counts[verb as usize].load(Ordering::Relaxed)
    }

    /// Every request answered, of any verb.
    pub fn total(&self) -> u64 {
        self.counts.iter().map(|count| count.load(Ordering::Relaxed)).sum()
    }

    fn count_kind(&self, kind: RequestKind) {
        if let Ok(mut by_kind) = self.by_kind.lock() {
            *by_kind.entry(kind).or_insert(0) += 1;
        }
    }

    /// The resource requests answered so far, by kind.
    pub fn by_kind(&self) -> std::collections::BTreeMap<RequestKind, u64> {
        self.by_kind
            .lock()
            .map(|by_kind| by_kind.iter().map(|(kind, count)| (kind.clone(), *count)).collect())
            .unwrap_or_default()
    }
}

/// The router serving the whole API, every request authenticated and authorized by `auth` first. Bodies over
/// kube-apiserver's limit are refused before they are read whole.
pub fn router(state: Arc<ServerState>, auth: Arc<Auth>) -> Router {
    Router::new()
        .fallback(handle)
        .with_state((state, auth))
        .layer(DefaultBodyLimit::max(body::MAX_REQUEST_BODY_BYTES))
        .layer(axum::middleware::map_response(body::body_limit_as_status))
}

/// The query parameters of a request (last value wins, empty pairs ignored).
pub(crate) type Query = HashMap<String, String>;

fn parse_query(uri: &Uri) -> Query {
    uri.query()
        .map(|query| {
            form_urlencoded::parse(query.as_bytes())
                .filter(|(key, _)| !key.is_empty())
                .map(|(key, value)| (key.into_owned(), value.into_owned()))
                .collect()
        })
        .unwrap_or_default()
}

/// A resource path: `/api/v1[/namespaces/{ns}]/{plural}[/{name}[/{subresource}]]` or the `/apis/{group}/{version}` form.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ResourcePath {
    pub group: String,
    pub version: String,
    pub namespace: Option<String>,
    pub plural: String,
    pub name: Option<String>,
    pub subresource: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
enum Route {
    Version,
    Health,
    CoreVersions,
    Groups,
    Group(String),
    ResourceList(String, String),
    OpenApiRoot,
    OpenApi(String, String),
    OpenApiV2,
    Resource(ResourcePath),
    NotFound,
}

/// The path as Go's `net/http` hands it to kube-apiserver (`URL.Path`): percent-decoded before it is split
/// into segments, so an encoded `/` separates segments there too.
fn decode_path(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let hex = |offset: usize| bytes.get(index + offset).and_then(|byte| char::from(*byte).to_digit(16));
        match (bytes[index], hex(1), hex(2)) {
            (b'%', Some(high), Some(low)) => {
                decoded.push(u8::try_from(high * 16 + low).unwrap_or(b'%'));
                index += 3;
            }
            (byte, _, _) => {
                decoded.push(byte);
                index += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded).into_owned()
}

fn route(path: &str, is_served: impl Fn(&str, &str, &str) -> bool) -> Route {
    let segments: Vec<&str> = path.trim_matches('/').split('/').filter(|segment| !segment.is_empty()).collect();
    match segments.as_slice() {
        ["version"] => Route::Version,
        ["healthz" | "readyz" | "livez", ..] => Route::Health,
        ["api"] => Route::CoreVersions,
        ["apis"] => Route::Groups,
        ["apis", group] => Route::Group((*group).to_string()),
        ["api", version] => Route::ResourceList(String::new(), (*version).to_string()),
        ["apis", group, version] => Route::ResourceList((*group).to_string(), (*version).to_string()),
        ["openapi", "v3"] => Route::OpenApiRoot,
        ["openapi", "v2"] => Route::OpenApiV2,
        ["openapi", "v3", "api", version] => Route::OpenApi(String::new(), (*version).to_string()),
        ["openapi", "v3", "apis", group, version] => Route::OpenApi((*group).to_string(), (*version).to_string()),
        ["api", version, rest @ ..] => resource_route("", version, rest, &is_served),
        ["apis", group, version, rest @ ..] => resource_route(group, version, rest, &is_served),
        _ => Route::NotFound,
    }
}

fn resource_route(group: &str, version: &str, rest: &[&str], is_served: &impl Fn(&str, &str, &str) -> bool) -> Route {
    let text = |value: &&str| (*value).to_string();
    // `/namespaces/{ns}/{plural}...` unless the third segment is a namespace subresource (`/namespaces/x/status`).
    let namespaced = rest.len() >= 3 && rest[0] == "namespaces" && is_served(group, version, rest[2]);
    let (namespace, remainder) = if namespaced { (Some(rest[1].to_string()), &rest[2..]) } else { (None, rest) };
    match remainder {
        [plural] => Route::Resource(ResourcePath {
            group: group.to_string(),
            version: version.to_string(),
            namespace,
            plural: text(plural),
            name: None,
            subresource: None,
        }),
        [plural, name, subresource @ ..] if subresource.len() <= 1 => Route::Resource(ResourcePath {
            group: group.to_string(),
            version: version.to_string(),
            namespace,
            plural: text(plural),
            name: Some(text(name)),
            subresource: subresource.first().map(text),
        }),
        _ => Route::NotFound,
    }
}

async fn handle(
    State((state, auth)): State<(Arc<ServerState>, Arc<Auth>)>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    payload: Bytes,
) -> Response {
    let query = parse_query(&uri);
    let content_type = headers.get(header::CONTENT_TYPE).and_then(|value| value.to_str().ok()).unwrap_or_default();
    tracing::debug!(%method, %uri, content_type, "simulated cluster request");
    let store = &state.store;
    let path = decode_path(uri.path());
    let requester = match auth.admit(store, &method, &uri, &path, &query, &headers) {
        Ok(requester) => requester,
        Err(refused) => return *refused,
    };
    if let Some(answer) = auth.answer(store, &requester, &headers, &payload) {
        return answer;
    }
    auth.serve_as(requester, serve(&state, method, path, query, headers, payload)).await
}

/// Serves an authorized request: routes it, then answers from discovery or the resource handlers.
async fn serve(
    state: &ServerState,
    method: Method,
    path: String,
    query: Query,
    headers: HeaderMap,
    payload: Bytes,
) -> Response {
    let store = &state.store;
    let route = route(&path, |group, version, plural| store.serves(group, version, plural));
    let accept = headers.get(header::ACCEPT).and_then(|value| value.to_str().ok()).unwrap_or_default().to_string();
    let is_read = method == Method::GET;
    if !is_read && !matches!(route, Route::Resource(_)) {
        state.requests.count(RequestVerb::Other);
        return body::error_response(&ApiError::method_not_allowed(format!(
            "the server does not allow this method on the requested resource ({method})"
        )));
    }
    match route {
        Route::Resource(path) => resources::handle(state, &method, &path, &query, &headers, &payload).await,
        other => {
            state.requests.count(RequestVerb::Discovery);
            state.requests.count_kind(RequestKind {
                verb: RequestVerb::Discovery,
                resource: path,
                label_selector: None,
            });
            discovery_response(state, other, &accept)
        }
    }
}

fn discovery_response(state: &ServerState, route: Route, accept: &str) -> Response {
    let registry = state.store.registry();
    let found = match route {
        Route::Version => Some(discovery::version()),
        Route::Health => return (StatusCode::OK, "ok").into_response(),
        Route::CoreVersions | Route::Groups => {
            let core = route == Route::CoreVersions;
            if let Some(version) = discovery::aggregated_version(accept) {
                let document = discovery::aggregated(&registry, core, version);
                let content_type = discovery::aggregated_content_type(version);
                let mut response = body::json_response(StatusCode::OK, &document);
                if let Ok(value) = HeaderValue::from_str(&content_type) {
                    response.headers_mut().insert(header::CONTENT_TYPE, value);
                }
                return response;
            }
            Some(if core { discovery::core_versions(&state.address) } else { discovery::group_list(&registry) })
        }
        Route::Group(group) => discovery::group(&registry, &group),
        Route::ResourceList(group, version) => discovery::resource_list(&registry, &group, &version),
        Route::OpenApiRoot => Some(discovery::openapi_root(&registry)),
        // An empty OpenAPI v2 document (zero protobuf bytes): kubectl falls back to it for group versions
        // missing from v3 and then reports unknown kinds as a real server makes it do ("no matches for kind").
        Route::OpenApiV2 => {
            let content_type = HeaderValue::from_static("application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
            return (StatusCode::OK, [(header::CONTENT_TYPE, content_type)], Vec::new()).into_response();
        }
        Route::OpenApi(group, version) => discovery::openapi_group_version(&registry, &group, &version),
        Route::Resource(_) | Route::NotFound => None,
    };
    match found {
        Some(document) => body::json_response(StatusCode::OK, &document),
        None => body::error_response(&ApiError::no_route()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn served(_: &str, _: &str, plural: &str) -> bool {
        plural != "status"
    }

    fn resource(path: &str) -> Option<ResourcePath> {
        match route(path, served) {
            Route::Resource(path) => Some(path),
            _ => None,
        }
    }

    #[test]
    fn paths_route_like_kube_apiserver() {
        let namespaced = resource("/apis/apps/v1/namespaces/shop/deployments/web/status");
        assert!(namespaced.as_ref().is_some_and(|path| path.namespace.as_deref() == Some("shop")
            && path.plural == "deployments"
            && path.name.as_deref() == Some("web")
            && path.subresource.as_deref() == Some("status")));
        let namespace_status = resource("/api/v1/namespaces/shop/status");
        assert!(
            namespace_status.is_some_and(|path| path.plural == "namespaces" && path.name.as_deref() == Some("shop"))
        );
        let all = resource("/api/v1/configmaps");
        assert!(all.is_some_and(|path| path.namespace.is_none() && path.name.is_none()));
        assert_eq!(route("/apis/apps/v1", served), Route::ResourceList("apps".into(), "v1".into()));
        assert_eq!(route("/openapi/v3/apis/apps/v1", served), Route::OpenApi("apps".into(), "v1".into()));
        assert_eq!(route("/nothing/here", served), Route::NotFound);
        assert_eq!(route("/api/v1/namespaces/a/pods/b/c/d", served), Route::NotFound);
        assert_eq!(
            decode_path("/apis/rbac.authorization.k8s.io/v1/roles/read%20only%3F"),
            "/apis/rbac.authorization.k8s.io/v1/roles/read only?"
        );
        let encoded = resource(&decode_path("/apis/apps/v1/namespaces/shop/deployments/web%2Fscale"));
        assert!(encoded.is_some_and(|path| path.subresource.as_deref() == Some("scale")), "as kube-apiserver reads it");
    }

    #[test]
    fn queries_ignore_empty_pairs() {
        let uri: Uri = "/api/v1/configmaps?&watch=true&fieldSelector=metadata.name%3Ddemo".parse().unwrap_or_default();
        let query = parse_query(&uri);
        assert_eq!(query.get("fieldSelector").map(String::as_str), Some("metadata.name=demo"));
        assert_eq!(query.len(), 2);
    }
}
