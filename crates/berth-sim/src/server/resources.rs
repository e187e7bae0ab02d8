//! Resource requests: get, list, watch, create, replace, patch (merge, JSON, strategic, server-side apply),
//! delete and deletecollection, on main resources and their status and scale subresources.

use super::body::{
    CUSTOM_PATCH_TYPES, PATCH_TYPES, content_type, decode_object, error_response, json_response, object_response,
};
use super::{Query, RequestKind, RequestVerb, ResourcePath, ServerState, metadata, table, watch};
use crate::api_error::ApiError;
use crate::fields::{set_at, value_at};
use crate::patch::{self, PatchError, managed};
use crate::registry::ResourceDef;
use crate::schema;
use crate::selector::Selector;
use crate::store::{Propagation, Target, Verb, WriteOptions};
use crate::validation::decode::{self, BodyPath};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

/// Answers one resource request.
pub async fn handle(
    state: &ServerState,
    method: &Method,
    path: &ResourcePath,
    query: &Query,
    headers: &HeaderMap,
    body: &[u8],
) -> Response {
    let Some(def) = state.store.find(&path.group, &path.version, &path.plural) else {
        state.requests.count(RequestVerb::Other);
        return error_response(&ApiError::no_route());
    };
    let verb = request_verb(method, path, query);
    state.requests.count(verb);
    state.requests.count_kind(RequestKind {
        verb,
        resource: def.kubectl_name(path.subresource.as_deref()),
        label_selector: matches!(verb, RequestVerb::List | RequestVerb::Watch)
            .then(|| query.get("labelSelector").cloned())
            .flatten(),
    });
    if def.group.is_empty() && def.plural == "pods" && path.subresource.as_deref() == Some("log") {
        if verb != RequestVerb::Get {
            return error_response(&ApiError::method_not_allowed(format!(
                "the server does not allow this method on the requested resource ({method})"
            )));
        }
        return super::logs::serve(&state.store, &def, path, query);
    }
    let latency = state.faults.latency();
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    if let Some(fault) = state.faults.request_fault() {
        return error_response(&fault);
    }
    if verb == RequestVerb::Watch {
        return watch::serve(state, &def, path, query, headers).await;
    }
    let request = Request { state, def: &def, path, query, headers, body, warnings: Mutex::default() };
    off_the_worker(body.len(), || request.respond(method, verb))
}

/// Request bodies from this size up are answered off the async worker thread (see [`off_the_worker`]).
const LARGE_BODY: usize = 256 * 1024;

/// Runs `respond` so that it holds up no other request. Decoding, patching and encoding a large body takes
/// milliseconds (a 1.4 MB CRD about fifteen), during which the tasks queued on this worker thread would wait;
/// a Go server's goroutines are preempted instead. `block_in_place` hands those tasks to another thread; a
/// current-thread runtime (tests) has none to hand them to, and small bodies are not worth the hand-over.
fn off_the_worker<T>(body_len: usize, respond: impl FnOnce() -> T) -> T {
    let flavor = tokio::runtime::Handle::try_current().map(|runtime| runtime.runtime_flavor());
    if body_len >= LARGE_BODY && matches!(flavor, Ok(tokio::runtime::RuntimeFlavor::MultiThread)) {
        tokio::task::block_in_place(respond)
    } else {
        respond()
    }
}

fn request_verb(method: &Method, path: &ResourcePath, query: &Query) -> RequestVerb {
    let is_watch = query.get("watch").is_some_and(|value| value == "true" || value == "1");
    match (method, path.name.is_some()) {
        (&Method::GET, true) => RequestVerb::Get,
        (&Method::GET, false) if is_watch => RequestVerb::Watch,
        (&Method::GET, false) => RequestVerb::List,
        (&Method::POST, false) => RequestVerb::Create,
        (&Method::PUT, true) => RequestVerb::Update,
        (&Method::PATCH, true) => RequestVerb::Patch,
        (&Method::DELETE, _) => RequestVerb::Delete,
        _ => RequestVerb::Other,
    }
}

/// The status and the object answered, shared with the store when it is a stored object (a megabyte CRD is
/// serialized from the store's copy, not copied first).
type Answer = Result<(StatusCode, Arc<Value>), ApiError>;

struct Request<'a> {
    state: &'a ServerState,
    def: &'a ResourceDef,
    path: &'a ResourcePath,
    query: &'a Query,
    headers: &'a HeaderMap,
    body: &'a [u8],
    /// Answered as `Warning` headers (unknown fields under `fieldValidation=Warn`).
    warnings: Mutex<Vec<String>>,
}

/// `fieldValidation`: what the server does with fields a custom resource's schema does not name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FieldValidation {
    Ignore,
    /// The server's default (`fieldValidation(directive)` in the apiserver's handlers).
    Warn,
    Strict,
}

/// Where a custom resource's unknown fields were found, which words the `Strict` refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decoded {
    /// A create's or an update's body, decoded into the object (`transformDecodeError`).
    Body,
    /// The object a merge or JSON patch made (`jsonPatcher.applyPatchToCurrentObject`).
    Patched,
}

fn now() -> String {
    crate::store::kube_time(jiff::Timestamp::now())
}

fn patch_error(def: &ResourceDef, name: &str, error: PatchError) -> ApiError {
    match error {
        PatchError::BadRequest(message) => ApiError::bad_request(message),
        PatchError::Invalid(message) => ApiError::invalid(&def.group, &def.kind, name, &message),
        PatchError::Conflict { message, causes, .. } => ApiError::apply_conflict(&message, &causes),
    }
}

impl Request<'_> {
    /// Answers the request: runs the verb, then encodes its answer as the client accepts it.
    fn respond(&self, method: &Method, verb: RequestVerb) -> Response {
        let (result, raised) = crate::warnings::collect(|| self.answer(method, verb));
        let accept = self.headers.get(header::ACCEPT).and_then(|value| value.to_str().ok()).unwrap_or_default();
        let is_read = matches!(verb, RequestVerb::Get | RequestVerb::List) && self.path.subresource.is_none();
        let mut response = match result {
            Ok((status, value)) if is_read && table::wants_table(accept) => {
                json_response(status, &table::table(self.def, &value, verb == RequestVerb::List))
            }
            Ok((status, value)) if is_read && metadata::wants_metadata(accept) => {
                json_response(status, &metadata::transform(&value))
            }
            Ok((status, value)) => object_response(status, &value, self.headers),
            Err(error) => error_response(&error),
        };
        // The decoder's warnings (unknown fields) first, then those validation raised.
        let mut warnings =
            std::mem::take(&mut *self.warnings.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        warnings.extend(raised);
        for warning in warnings {
            if let Ok(value) = HeaderValue::from_str(&warning_header(&warning)) {
                response.headers_mut().append(header::WARNING, value);
            }
        }
        response
    }

    /// Runs the verb.
    fn answer(&self, method: &Method, verb: RequestVerb) -> Answer {
        match verb {
            RequestVerb::Get => self.get(),
            RequestVerb::List => self.list(),
            RequestVerb::Create => self.create(),
            RequestVerb::Update => self.replace(),
            RequestVerb::Patch => self.patch(),
            RequestVerb::Delete if self.path.name.is_some() => self.delete(),
            RequestVerb::Delete => self.delete_collection(),
            _ => Err(ApiError::method_not_allowed(format!(
                "the server does not allow this method on the requested resource ({method})"
            ))),
        }
    }

    fn field_validation(&self) -> FieldValidation {
        match self.query.get("fieldValidation").map(String::as_str) {
            Some("Strict") => FieldValidation::Strict,
            Some("Ignore") => FieldValidation::Ignore,
            _ => FieldValidation::Warn,
        }
    }

    /// Prunes and defaults a custom resource's `object` as the server decodes it, then refuses or warns of the
    /// fields its schema does not name, as `fieldValidation` asks.
    fn decode_custom(&self, object: &mut Value, decoded: Decoded) -> Result<(), ApiError> {
        let Some(schema) = self.def.crd.as_ref().and_then(|crd| crd.schema()) else { return Ok(()) };
        let unknown: Vec<String> =
            schema::coerce(object, schema).iter().map(|path| format!("unknown field \"{path}\"")).collect();
        let directive = self.field_validation();
        if directive == FieldValidation::Strict && !unknown.is_empty() {
            let strict = format!("strict decoding error: {}", unknown.join(", "));
            return Err(ApiError::bad_request(match decoded {
                Decoded::Body => format!(
                    "{kind} in version \"{version}\" cannot be handled as a {kind}: {strict}",
                    kind = self.def.kind,
                    version = self.def.version
                ),
                Decoded::Patched => strict,
            }));
        }
        let warnings = if directive == FieldValidation::Warn { unknown } else { Vec::new() };
        *self.warnings.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = warnings;
        Ok(())
    }

    /// A server-side apply of a custom resource names only fields its schema has, and no item of a `set` or
    /// `map` list twice: the field manager's typed conversion refuses others whatever `fieldValidation` says (a
    /// 500 without reason, as that plain error becomes).
    fn check_applied_fields(&self, applied: &Value) -> Result<(), ApiError> {
        let Some(schema) = self.def.crd.as_ref().and_then(|crd| crd.schema()) else { return Ok(()) };
        let unknown = schema::unknown_fields(applied, schema);
        let mut problems: Vec<String> =
            unknown.iter().map(|path| format!(".{path}: field not declared in schema")).collect();
        problems.extend(schema::list_type::applied_duplicates(schema, applied));
        let described = match problems.as_slice() {
            [] => return Ok(()),
            [only] => only.clone(),
            many => format!("errors:\n  {}", many.join("\n  ")),
        };
        let namespace = applied.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or_default();
        let namespace = self.path.namespace.as_deref().unwrap_or(namespace);
        Err(ApiError::unknown(
            500,
            format!(
                "failed to create typed patch object ({namespace}/{}; {}/{}, Kind={}): {described}",
                self.name(),
                self.def.group,
                self.def.version,
                self.def.kind
            ),
        ))
    }

    fn namespace(&self) -> Option<&str> {
        if self.def.namespaced { self.path.namespace.as_deref() } else { None }
    }

    fn name(&self) -> &str {
        self.path.name.as_deref().unwrap_or_default()
    }

    fn is_dry_run(&self) -> bool {
        self.query.get("dryRun").is_some_and(|value| value == "All")
    }

    fn subresource(&self) -> Result<Option<&str>, ApiError> {
        match self.path.subresource.as_deref() {
            None => Ok(None),
            Some("status") if self.def.has_status => Ok(Some("status")),
            Some("scale") if self.def.has_scale => Ok(Some("scale")),
            Some(_) => Err(ApiError::no_route()),
        }
    }

    /// The field manager: the query parameter, else the user agent's program name, as a real server does.
    fn manager(&self) -> String {
        if let Some(manager) = self.query.get("fieldManager").filter(|manager| !manager.is_empty()) {
            return manager.clone();
        }
        let agent = self.headers.get(header::USER_AGENT).and_then(|value| value.to_str().ok()).unwrap_or("unknown");
        agent.split('/').next().unwrap_or("unknown").to_string()
    }

    fn target(&self) -> Target<'_> {
        Target { def: self.def, namespace: self.path.namespace.as_deref(), name: self.name() }
    }

    fn get(&self) -> Answer {
        let object = self.state.store.get(self.def, self.namespace(), self.name())?;
        match self.subresource()? {
            Some("scale") => Ok((StatusCode::OK, Arc::new(scale_of(&object, self.def)))),
            _ => Ok((StatusCode::OK, object)),
        }
    }

    fn selector(&self) -> Result<Selector, ApiError> {
        Selector::parse(
            self.query.get("labelSelector").map(String::as_str),
            self.query.get("fieldSelector").map(String::as_str),
        )
        .map_err(ApiError::bad_request)
    }

    fn list(&self) -> Answer {
        let selector = self.selector()?;
        let limit = self.query.get("limit").and_then(|limit| limit.parse().ok());
        let page = self.state.store.list(
            self.def,
            self.path.namespace.as_deref(),
            &selector,
            limit,
            self.query.get("continue").map(String::as_str),
        )?;
        let mut metadata = json!({"resourceVersion": page.resource_version.to_string()});
        if let Some(token) = &page.continue_token {
            metadata["continue"] = json!(token);
        }
        if let Some(remaining) = page.remaining {
            metadata["remainingItemCount"] = json!(remaining);
        }
        let items: Vec<Value> = page.items.iter().map(|item| (**item).clone()).collect();
        Ok((
            StatusCode::OK,
            Arc::new(
                json!({"apiVersion": self.def.api_version(), "kind": self.def.list_kind(), "metadata": metadata, "items": items}),
            ),
        ))
    }

    fn options(&self, verb: Verb, create: bool, status_only: bool) -> WriteOptions {
        WriteOptions { verb, manager: self.manager(), dry_run: self.is_dry_run(), create, status_only }
    }

    fn create(&self) -> Answer {
        if self.path.subresource.is_some() {
            return Err(ApiError::method_not_allowed("create is not allowed on subresources"));
        }
        let mut object = decode_object(&content_type(self.headers), self.body)?;
        decode::check(self.def, &object, BodyPath::Decode)?;
        self.decode_custom(&mut object, Decoded::Body)?;
        let name = generated_name(&mut object)?;
        let target = Target { def: self.def, namespace: self.path.namespace.as_deref(), name: &name };
        let manager = self.manager();
        let api_version = self.def.api_version();
        let (stored, created) = self.state.store.write(&target, &self.options(Verb::Create, true, false), |old| {
            if old.is_some() {
                return Err(ApiError::already_exists(&self.def.group, &self.def.plural, &name));
            }
            managed::record_update(None, &mut object, &manager, &api_version, &now(), None);
            Ok(object)
        })?;
        Ok((if created { StatusCode::CREATED } else { StatusCode::OK }, stored))
    }

    fn replace(&self) -> Answer {
        let subresource = self.subresource()?;
        let mut object = decode_object(&content_type(self.headers), self.body)?;
        if subresource == Some("scale") {
            self.check_body_name(&object)?;
            let replicas = object.pointer("/spec/replicas").cloned().unwrap_or(Value::Null);
            return self.write_scale(replicas);
        }
        decode::check(self.def, &object, BodyPath::Decode)?;
        self.decode_custom(&mut object, Decoded::Body)?;
        let manager = self.manager();
        let api_version = self.def.api_version();
        let status_only = subresource == Some("status");
        let verb = if status_only { Verb::UpdateStatus } else { Verb::Update };
        let (stored, _) = self.state.store.write(&self.target(), &self.options(verb, false, status_only), |old| {
            managed::record_update(old, &mut object, &manager, &api_version, &now(), subresource);
            Ok(object)
        })?;
        Ok((StatusCode::OK, stored))
    }

    fn patch(&self) -> Answer {
        let subresource = self.subresource()?;
        let media_type = content_type(self.headers);
        // The patch handler checks the patch type before it reads the body.
        let patch_types = if self.def.custom { CUSTOM_PATCH_TYPES } else { PATCH_TYPES };
        if !patch_types.contains(&media_type.as_str()) {
            return Err(ApiError::unsupported_media_type(patch_types));
        }
        let patch_body = decode_object(&media_type, self.body)?;
        if subresource == Some("scale") {
            let current = self.state.store.get(self.def, self.namespace(), self.name())?;
            let scale = patch::merge_patch(&scale_of(&current, self.def), &patch_body);
            self.check_body_name(&scale)?;
            return self.write_scale(scale.pointer("/spec/replicas").cloned().unwrap_or(Value::Null));
        }
        let is_apply = media_type == "application/apply-patch+yaml";
        if is_apply {
            decode::check(self.def, &patch_body, BodyPath::Apply)?;
            self.check_applied_fields(&patch_body)?;
        }
        let manager = self.manager();
        if is_apply && self.query.get("fieldManager").is_none_or(String::is_empty) {
            return Err(ApiError::invalid(
                "meta.k8s.io",
                "PatchOptions",
                "",
                "fieldManager: Required value: is required for apply patch",
            ));
        }
        let force = self.query.get("force").is_some_and(|value| value == "true");
        let api_version = self.def.api_version();
        let status_only = subresource == Some("status");
        let verb = match (is_apply, status_only) {
            (_, true) => Verb::UpdateStatus,
            (true, false) => Verb::Apply,
            (false, false) => Verb::Patch,
        };
        let name = self.name().to_string();
        let def = self.def;
        // Computed outside the store's lock, as a real server computes a patch concurrently with other requests.
        let (stored, created) =
            self.state.store.write_concurrently(&self.target(), &self.options(verb, is_apply, status_only), |old| {
                let mut new = match (media_type.as_str(), old) {
                    ("application/apply-patch+yaml", live) => {
                        managed::apply(live, &patch_body, &manager, force, &api_version, &now())
                            .map_err(|error| patch_error(def, &name, error))?
                    }
                    (_, None) => return Err(ApiError::not_found(&def.group, &def.plural, &name)),
                    ("application/merge-patch+json", Some(live)) => patch::merge_patch(live, &patch_body),
                    ("application/json-patch+json", Some(live)) => {
                        patch::json_patch(live, &patch_body).map_err(|error| patch_error(def, &name, error))?
                    }
                    ("application/strategic-merge-patch+json", Some(live)) => {
                        patch::strategic_merge_patch(live, &patch_body)
                            .map_err(|error| patch_error(def, &name, error))?
                    }
                    (_, Some(_)) => return Err(ApiError::unsupported_media_type(patch_types)),
                };
                if !is_apply {
                    decode::check(def, &new, BodyPath::Decode)?;
                    self.decode_custom(&mut new, Decoded::Patched)?;
                    managed::record_update(old, &mut new, &manager, &api_version, &now(), subresource);
                }
                Ok(new)
            })?;
        Ok((if created { StatusCode::CREATED } else { StatusCode::OK }, stored))
    }

    /// A subresource body naming another object than the URL is refused, as the handlers' `checkName` does.
    fn check_body_name(&self, body: &Value) -> Result<(), ApiError> {
        match body.pointer("/metadata/name").and_then(Value::as_str) {
            Some(name) if !name.is_empty() && name != self.name() => Err(ApiError::bad_request(format!(
                "the name of the object ({name}) does not match the name on the URL ({})",
                self.name()
            ))),
            _ => Ok(()),
        }
    }

    /// Sets the replicas through the scale subresource, recording its field manager as the apiserver's scale
    /// handler does.
    fn write_scale(&self, replicas: Value) -> Answer {
        if !replicas.is_i64() {
            return Err(ApiError::invalid(
                "autoscaling",
                "Scale",
                self.name(),
                "spec.replicas: Invalid value: must be an integer",
            ));
        }
        let paths = ScalePaths::of(self.def);
        let manager = self.manager();
        let api_version = self.def.api_version();
        let (stored, _) = self.state.store.write(&self.target(), &self.options(Verb::Update, false, false), |old| {
            let mut object = old.cloned().unwrap_or_default();
            set_at(&mut object, &paths.spec_replicas, replicas);
            if let Some(old) = old {
                managed::record_scale(old, &mut object, &manager, &api_version, &paths.spec_replicas);
            }
            Ok(object)
        })?;
        Ok((StatusCode::OK, Arc::new(scale_of(&stored, self.def))))
    }

    /// The propagation policy and dry-run of a DELETE, from its DeleteOptions body or the query.
    fn delete_options(&self) -> Result<(Propagation, bool), ApiError> {
        let body =
            if self.body.is_empty() { None } else { Some(decode_object(&content_type(self.headers), self.body)?) };
        let from_body = body.as_ref().and_then(|options| options.get("propagationPolicy")).and_then(Value::as_str);
        let policy = from_body.or_else(|| self.query.get("propagationPolicy").map(String::as_str));
        let dry_run = self.is_dry_run()
            || body
                .as_ref()
                .and_then(|options| options.get("dryRun"))
                .is_some_and(|dry_run| *dry_run == json!(["All"]));
        let propagation = match policy {
            None | Some("Background") => Propagation::Background,
            Some("Foreground") => Propagation::Foreground,
            Some("Orphan") => Propagation::Orphan,
            Some(other) => Err(ApiError::invalid(
                "meta.k8s.io",
                "DeleteOptions",
                "",
                &format!(
                    "propagationPolicy: Unsupported value: \"{other}\": supported values: \"Foreground\", \"Background\", \"Orphan\""
                ),
            ))?,
        };
        Ok((propagation, dry_run))
    }

    fn delete(&self) -> Answer {
        if self.path.subresource.is_some() {
            return Err(ApiError::method_not_allowed("delete is not allowed on subresources"));
        }
        let (propagation, dry_run) = self.delete_options()?;
        let object =
            self.state.store.delete(self.def, self.namespace(), self.name(), propagation, &self.manager(), dry_run)?;
        // The store returns the object as it remains (marked with deletionTimestamp) or as it was when removed.
        let remains = object.pointer("/metadata/deletionTimestamp").is_some_and(|value| !value.is_null());
        Ok((if remains && !dry_run { StatusCode::ACCEPTED } else { StatusCode::OK }, object))
    }

    fn delete_collection(&self) -> Answer {
        let selector = self.selector()?;
        let (propagation, dry_run) = self.delete_options()?;
        let page = self.state.store.list(self.def, self.path.namespace.as_deref(), &selector, None, None)?;
        let mut deleted = Vec::new();
        for item in page.items {
            let namespace = item.pointer("/metadata/namespace").and_then(Value::as_str);
            let name = item.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
            match self.state.store.delete(self.def, namespace, name, propagation, &self.manager(), dry_run) {
                Ok(object) => deleted.push((*object).clone()),
                Err(error) if error.code == 404 => {}
                Err(error) => return Err(error),
            }
        }
        let metadata = json!({"resourceVersion": self.state.store.resource_version().to_string()});
        Ok((
            StatusCode::OK,
            Arc::new(
                json!({"apiVersion": self.def.api_version(), "kind": self.def.list_kind(), "metadata": metadata, "items": deleted}),
            ),
        ))
    }
}

/// A `Warning` header as kube-apiserver writes one: code 299, no agent, the text quoted (`299 - "text"`).
fn warning_header(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
    format!("299 - \"{escaped}\"")
}

/// `metadata.generateName` turns into a name with a random-looking suffix.
fn generated_name(object: &mut Value) -> Result<String, ApiError> {
    let metadata = object.get("metadata");
    if let Some(name) =
        metadata.and_then(|metadata| metadata.get("name")).and_then(Value::as_str).filter(|name| !name.is_empty())
    {
        return Ok(name.to_string());
    }
    let Some(prefix) = metadata.and_then(|metadata| metadata.get("generateName")).and_then(Value::as_str) else {
        return Ok(String::new());
    };
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let suffix: String = (0..5).map(|_| char::from(ALPHABET[fastrand::usize(..ALPHABET.len())])).collect();
    let name = format!("{prefix}{suffix}");
    object["metadata"]["name"] = json!(name);
    Ok(name)
}

/// Where a scalable type keeps its replicas and selector: `spec.replicas`, `status.replicas` and the label
/// selector of built-in workloads, or the paths of a CRD's `subresources.scale`.
struct ScalePaths<'a> {
    spec_replicas: Vec<&'a str>,
    status_replicas: Vec<&'a str>,
    /// A CRD's `labelSelectorPath` (a string in the object); `None` reads `spec.selector.matchLabels`.
    label_selector: Option<Vec<&'a str>>,
}

/// `.spec.replicas` as fields.
fn fields(path: &str) -> Vec<&str> {
    path.split('.').filter(|field| !field.is_empty()).collect()
}

impl ScalePaths<'_> {
    fn of(def: &ResourceDef) -> ScalePaths<'_> {
        match def.crd.as_ref().and_then(|crd| crd.scale.as_ref()) {
            Some(scale) => ScalePaths {
                spec_replicas: fields(&scale.spec_replicas),
                status_replicas: fields(&scale.status_replicas),
                label_selector: scale.label_selector.as_deref().map(fields),
            },
            None => ScalePaths {
                spec_replicas: vec!["spec", "replicas"],
                status_replicas: vec!["status", "replicas"],
                label_selector: None,
            },
        }
    }
}

/// The `autoscaling/v1` Scale view of a scalable object of type `def`.
fn scale_of(object: &Value, def: &ResourceDef) -> Value {
    let paths = ScalePaths::of(def);
    let selector = match &paths.label_selector {
        Some(path) => value_at(object, path).and_then(Value::as_str).unwrap_or_default().to_string(),
        None => object
            .pointer("/spec/selector/matchLabels")
            .and_then(Value::as_object)
            .map(|labels| {
                labels
                    .iter()
                    .map(|(key, value)| format!("{key}={}", value.as_str().unwrap_or_default()))
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .unwrap_or_default(),
    };
    let metadata = object.get("metadata").cloned().unwrap_or_default();
    let pick = |field: &str| metadata.get(field).cloned().unwrap_or(Value::Null);
    json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {"name": pick("name"), "namespace": pick("namespace"), "uid": pick("uid"),
                     "resourceVersion": pick("resourceVersion"), "creationTimestamp": pick("creationTimestamp")},
        "spec": {"replicas": value_at(object, &paths.spec_replicas).cloned().unwrap_or(json!(1))},
        "status": {"replicas": value_at(object, &paths.status_replicas).cloned().unwrap_or(json!(0)), "selector": selector}
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::faults::FaultInjector;
    use crate::profile::Faults;
    use crate::server::RequestCounts;
    use crate::store::Store;
    use axum::http::HeaderValue;
    use tokio_util::sync::CancellationToken;

    fn server() -> ServerState {
        ServerState {
            store: Arc::new(Store::new(1000, true)),
            faults: FaultInjector::new(Faults::default()),
            address: "127.0.0.1:0".to_string(),
            requests: RequestCounts::default(),
            shutdown: CancellationToken::new(),
        }
    }

    /// PATCHes the ConfigMap `name` in `default` and returns the status code and the answer.
    async fn patch(
        state: &ServerState,
        name: &str,
        media_type: &'static str,
        query: &[(&str, &str)],
        body: Value,
    ) -> (u16, Value) {
        let path = ResourcePath {
            group: String::new(),
            version: "v1".to_string(),
            namespace: Some("default".to_string()),
            plural: "configmaps".to_string(),
            name: Some(name.to_string()),
            subresource: None,
        };
        let query: Query = query.iter().map(|(key, value)| ((*key).to_string(), (*value).to_string())).collect();
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(media_type));
        headers.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
        let body = serde_json::to_vec(&body).unwrap_or_default();
        let response = handle(state, &Method::PATCH, &path, &query, &headers, &body).await;
        let status = response.status().as_u16();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap_or_default();
        (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
    }

    const APPLY: &str = "application/apply-patch+yaml";

    fn settings(data: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": data})
    }

    /// The stored ConfigMap's resourceVersion and data, and how many writes the store recorded.
    fn stored(state: &ServerState) -> (Value, Value, usize) {
        let def = state.store.find("", "v1", "configmaps");
        let object = def.and_then(|def| state.store.get(&def, Some("default"), "settings").ok());
        let field =
            |pointer: &str| object.as_ref().and_then(|object| object.pointer(pointer).cloned()).unwrap_or_default();
        (field("/metadata/resourceVersion"), field("/data"), state.store.record().len())
    }

    #[tokio::test]
    async fn an_apply_conflicting_with_another_manager_is_refused_and_writes_nothing() {
        let state = server();
        let one = [("fieldManager", "one")];
        assert_eq!(patch(&state, "settings", APPLY, &one, settings(json!({"a": "1"}))).await.0, 201);
        let before = stored(&state);
        let two = [("fieldManager", "two")];
        let (code, answer) = patch(&state, "settings", APPLY, &two, settings(json!({"a": "2"}))).await;
        assert_eq!(code, 409);
        assert_eq!(answer["message"], "Apply failed with 1 conflict: conflict with \"one\": .data.a");
        assert_eq!(stored(&state), before, "nothing written");
        let forced = [("fieldManager", "two"), ("force", "true")];
        let (code, answer) = patch(&state, "settings", APPLY, &forced, settings(json!({"a": "2"}))).await;
        assert_eq!((code, answer["data"].clone()), (200, json!({"a": "2"})));
    }

    #[tokio::test]
    async fn a_conflict_answers_as_new_apply_conflict_with_causes_and_no_object() {
        let state = server();
        assert_eq!(
            patch(&state, "settings", APPLY, &[("fieldManager", "one")], settings(json!({"a": "1"}))).await.0,
            201
        );
        let (code, answer) =
            patch(&state, "settings", APPLY, &[("fieldManager", "two")], settings(json!({"a": "2"}))).await;
        assert_eq!((code, answer["reason"].clone()), (409, json!("Conflict")));
        assert_eq!(
            answer["details"],
            json!({"causes": [{"reason": "FieldManagerConflict", "message": "conflict with \"one\"", "field": ".data.a"}]})
        );
    }

    #[tokio::test]
    async fn a_dry_run_apply_answers_the_result_and_writes_nothing() {
        let state = server();
        let manager = [("fieldManager", "one")];
        assert_eq!(patch(&state, "settings", APPLY, &manager, settings(json!({"a": "1"}))).await.0, 201);
        let before = stored(&state);
        let dry_run = [("fieldManager", "one"), ("dryRun", "All")];
        let (code, answer) = patch(&state, "settings", APPLY, &dry_run, settings(json!({"a": "2"}))).await;
        assert_eq!((code, answer["data"].clone()), (200, json!({"a": "2"})));
        assert_eq!(stored(&state), before, "nothing written");
    }

    #[tokio::test]
    async fn a_no_op_apply_keeps_the_resource_version_and_records_no_write() {
        let state = server();
        let manager = [("fieldManager", "one")];
        assert_eq!(patch(&state, "settings", APPLY, &manager, settings(json!({"a": "1"}))).await.0, 201);
        let before = stored(&state);
        let (code, answer) = patch(&state, "settings", APPLY, &manager, settings(json!({"a": "1"}))).await;
        assert_eq!((code, answer["metadata"]["resourceVersion"].clone()), (200, before.0.clone()));
        assert_eq!(stored(&state), before, "nothing written");
    }

    async fn apply_a_large_body() -> (u16, usize) {
        let state = server();
        let large = "x".repeat(LARGE_BODY);
        let (code, answer) =
            patch(&state, "settings", APPLY, &[("fieldManager", "one")], settings(json!({"a": large}))).await;
        (code, answer["data"]["a"].as_str().map_or(0, str::len))
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_large_body_is_answered_off_the_worker_of_a_multi_thread_runtime() {
        assert_eq!(apply_a_large_body().await, (201, LARGE_BODY));
    }

    #[tokio::test]
    async fn a_large_body_is_answered_in_place_on_a_current_thread_runtime() {
        assert_eq!(apply_a_large_body().await, (201, LARGE_BODY));
    }

    #[tokio::test]
    async fn other_patches_go_through_the_concurrent_write_too() {
        let state = server();
        let merge = "application/merge-patch+json";
        let (code, _) = patch(&state, "settings", merge, &[], json!({"data": {"a": "1"}})).await;
        assert_eq!(code, 404, "a patch other than apply does not create");
        patch(&state, "settings", APPLY, &[("fieldManager", "one")], settings(json!({"a": "1"}))).await;
        let (code, answer) = patch(&state, "settings", merge, &[], json!({"data": {"b": "2"}})).await;
        assert_eq!((code, answer["data"].clone()), (200, json!({"a": "1", "b": "2"})));
        let json_patch = json!([{"op": "remove", "path": "/data/a"}]);
        let (code, answer) = patch(&state, "settings", "application/json-patch+json", &[], json_patch).await;
        assert_eq!((code, answer["data"].clone()), (200, json!({"b": "2"})));
    }

    #[test]
    fn generate_name_adds_a_suffix() {
        let mut object = json!({"metadata": {"generateName": "job-"}});
        let name = generated_name(&mut object).unwrap_or_default();
        assert!(name.starts_with("job-") && name.len() == 9);
        assert_eq!(object["metadata"]["name"], json!(name));
    }

    #[test]
    fn scale_reads_replicas_and_selector() {
        let object = json!({"metadata": {"name": "web"}, "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}},
            "status": {"replicas": 2}});
        let def = crate::registry::Registry::new().find_kind("apps/v1", "Deployment").cloned();
        let scale = def.map(|def| scale_of(&object, &def)).unwrap_or_default();
        assert_eq!(
            (scale["spec"]["replicas"].clone(), scale["status"]["selector"].clone()),
            (json!(3), json!("app=web"))
        );
    }
}
