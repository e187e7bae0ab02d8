//! `GET /api/v1/namespaces/{ns}/pods/{name}/log`: simulated container logs, as `kubectl logs` and Helm read
//! them through the API server. There are no real containers, so each container's log is a few deterministic
//! lines derived from its status (started, ready, completed or exited), or the lines the
//! `sim.berth.dev/logs` annotation gives (on the pod, its pod template, or the workload that owns it: the first
//! found). The query parameters kubectl sends are honoured: `container`, `previous`, `tailLines`, `timestamps`,
//! `limitBytes` (`follow` returns what there is and ends). Errors are the kubelet's and API server's messages.

use super::body::error_response;
use super::{Query, ResourcePath};
use crate::api_error::ApiError;
use crate::fields::str_at;
use crate::registry::ResourceDef;
use crate::store::Store;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use jiff::Timestamp;
use serde_json::Value;
use std::sync::Arc;

/// The annotation that sets a workload's log lines (`\n`-separated).
pub const LOGS: &str = "sim.berth.dev/logs";

/// What a log request asks for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LogOptions {
    pub container: Option<String>,
    pub previous: bool,
    pub tail_lines: Option<usize>,
    pub timestamps: bool,
    pub limit_bytes: Option<usize>,
}

impl LogOptions {
    /// Reads the query parameters of a log request.
    ///
    /// # Errors
    /// 400 for a `tailLines` or `limitBytes` that is not a non-negative integer.
    pub fn from_query(query: &Query) -> Result<LogOptions, ApiError> {
        let flag = |name: &str| query.get(name).is_some_and(|value| value == "true" || value == "1");
        let number = |name: &str| -> Result<Option<usize>, ApiError> {
            match query.get(name) {
                None => Ok(None),
                Some(text) => text.parse::<usize>().map(Some).map_err(|_| {
                    ApiError::bad_request(format!("invalid value for {name}: {text:?} is not a non-negative integer"))
                }),
            }
        };
        Ok(LogOptions {
            container: query.get("container").filter(|name| !name.is_empty()).cloned(),
            previous: flag("previous"),
            tail_lines: number("tailLines")?,
            timestamps: flag("timestamps"),
            limit_bytes: number("limitBytes")?,
        })
    }
}

fn names(pod: &Value, list: &str) -> Vec<String> {
    pod.pointer(&format!("/spec/{list}"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|container| container.get("name").and_then(Value::as_str).map(str::to_string))
        .collect()
}

/// The container a request means: the one named, or the only one (`validateContainerLogStatus` and the
/// API server's `podLogs` choice).
fn chosen_container(pod: &Value, options: &LogOptions) -> Result<String, ApiError> {
    let pod_name = str_at(pod, &["metadata", "name"]).unwrap_or_default();
    let containers = names(pod, "containers");
    let init_containers = names(pod, "initContainers");
    match &options.container {
        Some(name) if containers.contains(name) || init_containers.contains(name) => Ok(name.clone()),
        Some(name) => Err(ApiError::bad_request(format!("container {name} is not valid for pod {pod_name}"))),
        None if containers.len() == 1 => Ok(containers[0].clone()),
        None => {
            let mut message = format!(
                "a container name must be specified for pod {pod_name}, choose one of: [{}]",
                containers.join(" ")
            );
            if !init_containers.is_empty() {
                message.push_str(&format!(" or one of the init containers: [{}]", init_containers.join(" ")));
            }
            Err(ApiError::bad_request(message))
        }
    }
}

/// The lines the annotation gives, from the first of `sources` that has it.
fn annotated_lines(sources: &[&Value]) -> Option<Vec<String>> {
    let text = sources.iter().find_map(|object| str_at(object, &["metadata", "annotations", LOGS]))?;
    Some(text.lines().map(str::to_string).collect())
}

fn time_at(value: &Value, pointer: &str) -> Option<Timestamp> {
    value.pointer(pointer).and_then(Value::as_str).and_then(|text| text.parse().ok())
}

/// One run of a container: when it started and how it ended (`None`: still running).
struct Run {
    started: Timestamp,
    ended: Option<(Timestamp, i64, String)>,
}

fn run_of(state: &Value) -> Option<Run> {
    if let Some(started) = time_at(state, "/running/startedAt") {
        return Some(Run { started, ended: None });
    }
    let terminated = state.get("terminated")?;
    let started = time_at(terminated, "/startedAt")?;
    let finished = time_at(terminated, "/finishedAt").unwrap_or(started);
    let exit_code = terminated.get("exitCode").and_then(Value::as_i64).unwrap_or(0);
    let reason = terminated.get("reason").and_then(Value::as_str).unwrap_or_default().to_string();
    Some(Run { started, ended: Some((finished, exit_code, reason)) })
}

/// The log of one run: the annotation's lines or the default ones, each with its time.
fn run_lines(run: &Run, container: &str, image: &str, annotated: Option<&[String]>) -> Vec<(Timestamp, String)> {
    let mut lines: Vec<String> = match annotated {
        Some(lines) => lines.to_vec(),
        None => vec![
            format!("sim: container {container} started (image {image})"),
            format!("sim: container {container} is ready"),
        ],
    };
    if annotated.is_none()
        && let Some((_, exit_code, reason)) = &run.ended
    {
        lines.pop();
        lines.push(match (exit_code, reason.as_str()) {
            (0, _) => format!("sim: container {container} completed (exit code 0)"),
            (code, "") => format!("sim: container {container} exited with code {code}"),
            (code, reason) => format!("sim: container {container} exited with code {code} ({reason})"),
        });
    }
    let count = lines.len();
    lines
        .into_iter()
        .enumerate()
        .map(|(index, line)| {
            let at = match (&run.ended, index + 1 == count) {
                (Some((finished, _, _)), true) if count > 1 => *finished,
                _ => {
                    let offset = jiff::SignedDuration::from_millis(i64::try_from(index).unwrap_or(0));
                    run.started.checked_add(offset).unwrap_or(run.started)
                }
            };
            (at, line)
        })
        .collect()
}

/// Go's RFC3339Nano (trailing zeros of the fraction dropped), as the kubelet prefixes lines with `timestamps`.
fn rfc3339_nano(at: Timestamp) -> String {
    let nanos = at.subsec_nanosecond();
    let whole = at.strftime("%Y-%m-%dT%H:%M:%S").to_string();
    if nanos == 0 {
        return format!("{whole}Z");
    }
    let fraction = format!("{nanos:09}");
    format!("{whole}.{}Z", fraction.trim_end_matches('0'))
}

/// The log text of `pod` for `options`; `sources` are the pod, then the workloads that own it (their
/// `sim.berth.dev/logs` annotation counts in that order).
///
/// # Errors
/// 400 with the kubelet's message when no container or no such run can be read.
pub fn pod_log(pod: &Value, sources: &[&Value], options: &LogOptions) -> Result<String, ApiError> {
    let container = chosen_container(pod, options)?;
    let pod_name = str_at(pod, &["metadata", "name"]).unwrap_or_default();
    let statuses = ["containerStatuses", "initContainerStatuses"]
        .iter()
        .filter_map(|list| pod.pointer(&format!("/status/{list}")).and_then(Value::as_array))
        .flatten()
        .find(|status| status.get("name").and_then(Value::as_str) == Some(container.as_str()));
    let image = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .chain(pod.pointer("/spec/initContainers").and_then(Value::as_array).into_iter().flatten())
        .find(|spec| spec.get("name").and_then(Value::as_str) == Some(container.as_str()))
        .and_then(|spec| spec.get("image").and_then(Value::as_str))
        .unwrap_or_default();
    let waiting = |reason: &str| {
        let reason = match reason {
            "ImagePullBackOff" | "ErrImagePull" => "trying and failing to pull image",
            other => other,
        };
        ApiError::bad_request(format!("container \"{container}\" in pod \"{pod_name}\" is waiting to start: {reason}"))
    };
    let Some(status) = statuses else { return Err(waiting("ContainerCreating")) };
    let current = status.get("state").and_then(run_of);
    let last = status.get("lastState").and_then(run_of);
    let run = if options.previous {
        last.ok_or_else(|| {
            ApiError::bad_request(format!(
                "previous terminated container \"{container}\" in pod \"{pod_name}\" not found"
            ))
        })?
    } else {
        match (current, last) {
            (Some(run), _) | (None, Some(run)) => run,
            (None, None) => {
                let reason =
                    status.pointer("/state/waiting/reason").and_then(Value::as_str).unwrap_or("ContainerCreating");
                return Err(waiting(reason));
            }
        }
    };
    let annotated = annotated_lines(sources);
    let mut lines = run_lines(&run, &container, image, annotated.as_deref());
    if let Some(tail) = options.tail_lines {
        let skip = lines.len().saturating_sub(tail);
        lines.drain(..skip);
    }
    let mut text = String::new();
    for (at, line) in lines {
        if options.timestamps {
            text.push_str(&rfc3339_nano(at));
            text.push(' ');
        }
        text.push_str(&line);
        text.push('\n');
    }
    if let Some(limit) = options.limit_bytes {
        let mut end = limit.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    Ok(text)
}

/// The controller of `object` (its owner reference with `controller: true`), if stored.
fn controller_of(store: &Store, object: &Value) -> Option<Arc<Value>> {
    let owners = object.pointer("/metadata/ownerReferences").and_then(Value::as_array)?;
    let owner = owners.iter().find(|owner| owner.get("controller").and_then(Value::as_bool) == Some(true))?;
    let api_version = owner.get("apiVersion").and_then(Value::as_str)?;
    let kind = owner.get("kind").and_then(Value::as_str)?;
    let name = owner.get("name").and_then(Value::as_str)?;
    let def = store.registry().find_kind(api_version, kind).cloned()?;
    let namespace = object.pointer("/metadata/namespace").and_then(Value::as_str);
    store.get(&def, namespace, name).ok()
}

/// Answers a log request for the pod at `path`: plain text, or a Status error.
pub(crate) fn serve(store: &Store, def: &ResourceDef, path: &ResourcePath, query: &Query) -> Response {
    let answer = LogOptions::from_query(query).and_then(|options| {
        let name = path.name.as_deref().unwrap_or_default();
        let pod = store.get(def, path.namespace.as_deref(), name)?;
        let owner = controller_of(store, &pod);
        let grand_owner = owner.as_ref().and_then(|owner| controller_of(store, owner));
        let mut sources: Vec<&Value> = vec![&pod];
        sources.extend(owner.as_deref());
        sources.extend(grand_owner.as_deref());
        pod_log(&pod, &sources, &options)
    });
    match answer {
        Ok(text) => {
            (StatusCode::OK, [(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"))], text).into_response()
        }
        Err(error) => error_response(&error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(state: Value, last_state: Value, annotations: Value) -> Value {
        json!({"metadata": {"name": "web-1", "annotations": annotations},
               "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
               "status": {"containerStatuses": [{"name": "web", "state": state, "lastState": last_state}]}})
    }

    fn options() -> LogOptions {
        LogOptions::default()
    }

    #[test]
    fn a_running_container_logs_its_start_and_readiness() {
        let pod = pod(json!({"running": {"startedAt": "2026-11-23T10:00:00Z"}}), json!({}), json!({}));
        assert_eq!(
            pod_log(&pod, &[&pod], &options()),
            Ok("sim: container web started (image nginx:1.27)\nsim: container web is ready\n".to_string())
        );
        let stamped = LogOptions { timestamps: true, tail_lines: Some(1), ..options() };
        assert_eq!(
            pod_log(&pod, &[&pod], &stamped),
            Ok("2026-11-23T10:00:00.001Z sim: container web is ready\n".to_string())
        );
    }

    #[test]
    fn job_pods_log_their_completion_and_annotations_replace_the_lines() {
        let done = json!({"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": "2026-11-23T10:00:00Z",
                                         "finishedAt": "2026-11-23T10:00:05Z"}});
        let pod = pod(done.clone(), json!({}), json!({}));
        let text = pod_log(&pod, &[&pod], &LogOptions { timestamps: true, ..options() }).unwrap_or_default();
        assert_eq!(
            text,
            "2026-11-23T10:00:00Z sim: container web started (image nginx:1.27)\n\
             2026-11-23T10:00:05Z sim: container web completed (exit code 0)\n"
        );
        let owner = json!({"metadata": {"annotations": {LOGS: "migrating\nmigrated 3 tables"}}});
        assert_eq!(pod_log(&pod, &[&pod, &owner], &options()), Ok("migrating\nmigrated 3 tables\n".to_string()));
    }

    #[test]
    fn errors_read_as_the_kubelets() {
        let waiting = pod(json!({"waiting": {"reason": "ImagePullBackOff"}}), json!({}), json!({}));
        let message =
            |pod: &Value, options: &LogOptions| pod_log(pod, &[pod], options).err().map(|error| error.message);
        assert_eq!(
            message(&waiting, &options()).as_deref(),
            Some("container \"web\" in pod \"web-1\" is waiting to start: trying and failing to pull image")
        );
        assert_eq!(
            message(&waiting, &LogOptions { previous: true, ..options() }).as_deref(),
            Some("previous terminated container \"web\" in pod \"web-1\" not found")
        );
        assert_eq!(
            message(&waiting, &LogOptions { container: Some("db".into()), ..options() }).as_deref(),
            Some("container db is not valid for pod web-1")
        );
        let two = json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "a"}, {"name": "b"}]}});
        assert_eq!(
            message(&two, &options()).as_deref(),
            Some("a container name must be specified for pod p, choose one of: [a b]")
        );
    }

    #[test]
    fn a_crash_looping_container_logs_its_last_run_and_previous_reads_it() {
        let crashed = json!({"terminated": {"exitCode": 1, "reason": "Error", "startedAt": "2026-11-23T10:00:00Z",
                                            "finishedAt": "2026-11-23T10:00:00Z"}});
        let pod = pod(json!({"waiting": {"reason": "CrashLoopBackOff"}}), crashed, json!({}));
        let expected = "sim: container web started (image nginx:1.27)\nsim: container web exited with code 1 (Error)\n";
        assert_eq!(pod_log(&pod, &[&pod], &options()).as_deref(), Ok(expected));
        assert_eq!(pod_log(&pod, &[&pod], &LogOptions { previous: true, ..options() }).as_deref(), Ok(expected));
        assert_eq!(
            pod_log(&pod, &[&pod], &LogOptions { limit_bytes: Some(10), ..options() }).as_deref(),
            Ok("sim: conta")
        );
    }
}
