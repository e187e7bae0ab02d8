//! Watch streams: newline-delimited events from a resourceVersion (or the current state), with selector
//! transitions (an object that stops matching is DELETED for the watcher), bookmarks, timeouts, 410 Expired
//! for versions the log no longer has, and the injected faults (forced 410, streams closed early, watches refused
//! on purpose: throttled, or closed before their first event).

use super::body::error_response;
use super::{Query, ResourcePath, ServerState};
use crate::api_error::ApiError;
use crate::faults::WatchFault;
use crate::registry::ResourceDef;
use crate::selector::Selector;
use crate::store::{EventType, WatchEvent};
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;

/// Real servers pick 30-60 minutes when a client sets no timeout.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1800);
const BOOKMARK_INTERVAL: Duration = Duration::from_secs(5);
const STREAM_BUFFER: usize = 256;

struct WatchRequest {
    def: ResourceDef,
    namespace: Option<String>,
    selector: Selector,
    bookmarks: bool,
    initial_events_end: bool,
    deadline: Instant,
    /// The client asked for `PartialObjectMetadata` (`super::metadata`).
    metadata_only: bool,
}

/// Serves `GET ...?watch=true`.
pub async fn serve(
    state: &ServerState,
    def: &ResourceDef,
    path: &ResourcePath,
    query: &Query,
    headers: &HeaderMap,
) -> Response {
    let selector = match Selector::parse(
        query.get("labelSelector").map(String::as_str),
        query.get("fieldSelector").map(String::as_str),
    ) {
        Ok(selector) => selector,
        Err(message) => return error_response(&ApiError::bad_request(message)),
    };
    let since = match query.get("resourceVersion").map(String::as_str) {
        None | Some("" | "0") => None,
        Some(text) => match text.parse::<u64>() {
            Ok(version) => Some(version),
            Err(_) => return error_response(&ApiError::bad_request(format!("invalid resource version: {text}"))),
        },
    };
    let timeout = query
        .get("timeoutSeconds")
        .and_then(|seconds| seconds.parse::<u64>().ok())
        .map_or(DEFAULT_TIMEOUT, Duration::from_secs);
    let close_after = state.faults.watch_close_after().map_or(timeout, |close| close.min(timeout));
    let bookmarks = query.get("allowWatchBookmarks").is_some_and(|value| value == "true");
    let request = WatchRequest {
        def: def.clone(),
        namespace: if def.namespaced { path.namespace.clone() } else { None },
        selector,
        bookmarks,
        initial_events_end: bookmarks && query.get("sendInitialEvents").is_some_and(|value| value == "true"),
        deadline: Instant::now() + close_after,
        metadata_only: headers
            .get(header::ACCEPT)
            .and_then(|value| value.to_str().ok())
            .is_some_and(super::metadata::wants_metadata),
    };
    let refused = state.faults.refused_watch(&def.kubectl_name(None));
    if refused == Some(WatchFault::TooManyRequests) {
        return error_response(&ApiError::too_many_requests(1));
    }
    let (sender, mut receiver) = mpsc::channel::<Bytes>(STREAM_BUFFER);
    if refused == Some(WatchFault::Closed) {
        // Nothing will be sent: the stream ends before its first event.
        drop(sender);
    } else if state.faults.watch_gone() {
        let current = state.store.resource_version();
        let _ = sender.try_send(error_line(&ApiError::gone(since.unwrap_or(current), current)));
    } else {
        match state.store.watch(def, request.namespace.as_deref(), since) {
            Ok(start) => {
                let shutdown = state.shutdown.clone();
                tokio::spawn(async move {
                    tokio::select! {
                        () = stream(request, start.backlog, start.receiver, start.resource_version, sender) => {}
                        () = shutdown.cancelled() => {}
                    }
                });
            }
            Err(error) if error.code == 410 => {
                let _ = sender.try_send(error_line(&error));
            }
            Err(error) => return error_response(&error),
        }
    }
    let body = Body::from_stream(futures::stream::poll_fn(move |context| {
        receiver.poll_recv(context).map(|line| line.map(Ok::<_, Infallible>))
    }));
    (StatusCode::OK, [(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body).into_response()
}

async fn stream(
    request: WatchRequest,
    backlog: Vec<Arc<WatchEvent>>,
    mut events: broadcast::Receiver<Arc<WatchEvent>>,
    start_version: u64,
    sender: mpsc::Sender<Bytes>,
) {
    let mut last_version = start_version;
    for event in &backlog {
        if let Some(line) = event_line(&request, event)
            && sender.send(line).await.is_err()
        {
            return;
        }
    }
    if request.initial_events_end {
        let line = bookmark_line(&request.def, start_version, true);
        if sender.send(line).await.is_err() {
            return;
        }
    }
    let mut bookmark_at = Instant::now() + BOOKMARK_INTERVAL;
    loop {
        tokio::select! {
            () = tokio::time::sleep_until(request.deadline) => return,
            () = sender.closed() => return,
            () = tokio::time::sleep_until(bookmark_at), if request.bookmarks => {
                bookmark_at = Instant::now() + BOOKMARK_INTERVAL;
                if sender.send(bookmark_line(&request.def, last_version, false)).await.is_err() {
                    return;
                }
            }
            received = events.recv() => {
                // A lagging watcher is closed, as a real server does; the client re-watches from its last version.
                let Ok(event) = received else { return };
                if event.resource_version <= start_version {
                    continue;
                }
                last_version = event.resource_version;
                if let Some(line) = event_line(&request, &event)
                    && sender.send(line).await.is_err()
                {
                    return;
                }
            }
        }
    }
}

/// The event as this watcher sees it, or None when it is out of scope or does not match before or after.
fn event_line(request: &WatchRequest, event: &WatchEvent) -> Option<Bytes> {
    if event.key != request.def.type_key() {
        return None;
    }
    if request.namespace.as_deref().is_some_and(|namespace| namespace != event.namespace) {
        return None;
    }
    // An empty selector matches everything: no need to parse the objects.
    let (matches_now, matched_before) = if request.selector.is_empty() {
        (true, event.previous.is_some())
    } else {
        let now = request.selector.matches(&event.value());
        let before = event.previous_value().is_some_and(|previous| request.selector.matches(&previous));
        (now, before)
    };
    let event_type = match event.event_type {
        EventType::Added if matches_now => EventType::Added,
        EventType::Modified if matches_now && matched_before => EventType::Modified,
        EventType::Modified if matches_now => EventType::Added,
        EventType::Modified if matched_before => EventType::Deleted,
        EventType::Deleted if matched_before || matches_now => EventType::Deleted,
        _ => return None,
    };
    if request.metadata_only {
        return line(&WatchLine { event_type: event_type.as_str(), object: &super::metadata::partial(&event.value()) });
    }
    let api_version = request.def.api_version();
    if event.api_version == api_version {
        // The common case: the stored JSON spliced into the line, without parsing or copying it per watcher.
        let prefix = format!("{{\"type\":\"{}\",\"object\":", event_type.as_str());
        let mut bytes = Vec::with_capacity(prefix.len() + event.object.len() + 2);
        bytes.extend_from_slice(prefix.as_bytes());
        bytes.extend_from_slice(&event.object);
        bytes.extend_from_slice(b"}\n");
        return Some(Bytes::from(bytes));
    }
    let converted = crate::conversion::convert(&event.value(), &api_version);
    line(&WatchLine { event_type: event_type.as_str(), object: &converted })
}

/// One line of a watch stream.
#[derive(serde::Serialize)]
struct WatchLine<'a> {
    #[serde(rename = "type")]
    event_type: &'a str,
    object: &'a Value,
}

fn bookmark_line(def: &ResourceDef, resource_version: u64, initial_events_end: bool) -> Bytes {
    let mut metadata = json!({"resourceVersion": resource_version.to_string()});
    if initial_events_end {
        metadata["annotations"] = json!({"k8s.io/initial-events-end": "true"});
    }
    let bookmark = json!({"type": "BOOKMARK", "object": {"kind": def.kind, "apiVersion": def.api_version(), "metadata": metadata}});
    line(&bookmark).unwrap_or_default()
}

fn error_line(error: &ApiError) -> Bytes {
    line(&json!({"type": "ERROR", "object": error.to_status()})).unwrap_or_default()
}

fn line(value: &impl serde::Serialize) -> Option<Bytes> {
    let mut bytes = serde_json::to_vec(value).ok()?;
    bytes.push(b'\n');
    Some(Bytes::from(bytes))
}
