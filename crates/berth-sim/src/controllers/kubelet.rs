//! The simulated scheduler and kubelet: binds pods to nodes round-robin, then writes the pod status a real
//! kubelet would as time passes (Pending with ContainerCreating, then Running and Ready), or the failure the
//! workload's `sim.berth.dev/pod-waiting-reason` asks for (ImagePullBackOff, CrashLoopBackOff with growing
//! restart counts, OOMKilled, Unschedulable, ...). Job pods run for `sim.berth.dev/job-duration` and end
//! Succeeded or Failed per `sim.berth.dev/job-outcome`.
//!
//! A pod no workload controls runs to completion when its `restartPolicy` lets its containers end (`Never`,
//! `OnFailure`: the test pod of `helm create`), for the same duration and outcome; then the kubelet's restart
//! policy decides, as `computePodActions` does: `Never` ends the pod Succeeded or Failed, `OnFailure` ends it
//! Succeeded or restarts a failed container with the crash-loop back-off, `Always` restarts every container
//! that exits. Job pods keep ending Failed under `OnFailure` (the simulated Job controller counts them).
//!
//! The status is a pure function of the pod, its behaviour, its placement, when it was first seen and how
//! long ago: every timestamp in it is derived from that origin, so a repeated reconcile writes nothing.

use super::behaviour::{self, JobOutcome};
use super::client::{ControllerError, KUBELET, SCHEDULER};
use super::context::Context;
use super::events::{EventType, Involved};
use super::queue::{Controller, Work};
use super::{meta, node, template};
use crate::fields::str_at;
use crate::profile::Profile;
use jiff::Timestamp;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// The kubelet's first back-off after a crash; it doubles up to [`MAX_BACK_OFF`].
const BACK_OFF: Duration = Duration::from_secs(10);
const MAX_BACK_OFF: Duration = Duration::from_secs(300);

/// The waiting reason that keeps a pod from being scheduled at all.
const UNSCHEDULABLE: &str = "Unschedulable";

/// What the simulation annotations (of the pod, else of its owner) ask of one pod.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct PodBehaviour {
    /// From first sight to Running and Ready (scaled).
    pub ready_after: Duration,
    /// Containers wait with this reason instead of running.
    pub waiting_reason: Option<String>,
    /// A pod that runs to completion (a Job's): how long and how it ends.
    pub run: Option<Run>,
    /// The first crash-loop back-off (scaled).
    pub back_off: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Run {
    pub duration: Duration,
    pub outcome: JobOutcome,
    /// The kubelet restarts the containers once they end this way.
    pub restarts: bool,
}

/// A pod's `spec.restartPolicy` (`Always` when absent, as defaulting sets it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RestartPolicy {
    Always,
    OnFailure,
    Never,
}

impl RestartPolicy {
    fn of(pod: &Value) -> RestartPolicy {
        match str_at(pod, &["spec", "restartPolicy"]) {
            Some("Never") => RestartPolicy::Never,
            Some("OnFailure") => RestartPolicy::OnFailure,
            _ => RestartPolicy::Always,
        }
    }

    /// Whether the kubelet starts a container again after it ended with `outcome` (`ShouldContainerBeRestarted`).
    fn restarts(self, outcome: JobOutcome) -> bool {
        match self {
            RestartPolicy::Always => true,
            RestartPolicy::OnFailure => outcome == JobOutcome::Failed,
            RestartPolicy::Never => false,
        }
    }
}

impl PodBehaviour {
    /// Reads the annotations of `pod` and then of `owner`, with the profile's defaults and speed.
    pub fn new(profile: &Profile, pod: &Value, owner: Option<&Value>) -> PodBehaviour {
        let mut sources = vec![pod];
        sources.extend(owner);
        let owned_by_job = owner.is_some_and(|owner| str_at(owner, &["kind"]) == Some("Job"));
        let has_duration =
            sources.iter().any(|object| behaviour::annotation(object, behaviour::JOB_DURATION).is_some());
        let policy = RestartPolicy::of(pod);
        let bare = meta::controller_of(pod).is_none();
        let ends = bare && policy != RestartPolicy::Always;
        let run = (owned_by_job || has_duration || ends).then(|| {
            let outcome = behaviour::job_outcome(&sources);
            Run {
                duration: behaviour::delay(profile, &sources, behaviour::JOB_DURATION, profile.delays.job),
                outcome,
                restarts: !owned_by_job && policy.restarts(outcome),
            }
        });
        PodBehaviour {
            ready_after: behaviour::delay(profile, &sources, behaviour::READY_AFTER, profile.delays.pod_ready),
            waiting_reason: behaviour::waiting_reason(&sources),
            run,
            back_off: behaviour::scaled(profile, BACK_OFF),
        }
    }

    fn is_unschedulable(&self) -> bool {
        self.waiting_reason.as_deref() == Some(UNSCHEDULABLE)
    }
}

/// Where a bound pod runs.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Placement {
    pub host_ip: String,
    pub pod_ip: String,
}

/// A status and, while it will still change by itself, how long until it does.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct PodState {
    pub status: Value,
    pub recheck_after: Option<Duration>,
}

/// The status of a pod no node can take (the scheduler's `PodScheduled=False`).
pub(super) fn unschedulable_status(
    pod: &Value,
    schedulable_nodes: usize,
    total_nodes: usize,
    since: Timestamp,
) -> Value {
    let message = if total_nodes == 0 {
        "no nodes available to schedule pods".to_string()
    } else {
        format!(
            "0/{total_nodes} nodes are available: {schedulable_nodes} Insufficient cpu. preemption: 0/{total_nodes} \
             nodes are available: {schedulable_nodes} No preemption victims found for incoming pod."
        )
    };
    let mut status = Map::new();
    status.insert("phase".to_string(), json!("Pending"));
    status.insert(
        "conditions".to_string(),
        json!([pod_condition(pod, "PodScheduled", "False", since, Some(("Unschedulable", &message)))]),
    );
    status.insert("qosClass".to_string(), json!(qos_class(pod)));
    observed_generation(pod, &mut status);
    Value::Object(status)
}

/// The status of a bound pod `elapsed` after it was first seen at `started`.
pub(super) fn pod_status(
    pod: &Value,
    behaviour: &PodBehaviour,
    placement: &Placement,
    started: Timestamp,
    elapsed: Duration,
) -> PodState {
    let run_starts = behaviour.run.map_or(behaviour.ready_after, |run| run.duration.min(behaviour.ready_after));
    if elapsed < run_starts {
        return PodState { status: creating(pod, placement, started), recheck_after: Some(run_starts - elapsed) };
    }
    if let Some(reason) = &behaviour.waiting_reason {
        let failing_since = meta::later(started, run_starts);
        return stuck(pod, behaviour, placement, started, failing_since, elapsed - run_starts, reason);
    }
    let running_since = meta::later(started, run_starts);
    match behaviour.run {
        Some(run) if elapsed >= run.duration && run.restarts => {
            let ended = meta::later(started, run.duration);
            restarting(pod, behaviour, placement, started, ended, elapsed - run.duration, run.outcome)
        }
        Some(run) if elapsed >= run.duration => PodState {
            status: finished(pod, placement, started, running_since, meta::later(started, run.duration), run.outcome),
            recheck_after: None,
        },
        Some(run) => PodState {
            status: running(pod, placement, started, running_since),
            recheck_after: Some(run.duration - elapsed),
        },
        None => PodState { status: running(pod, placement, started, running_since), recheck_after: None },
    }
}

/// Pending, containers being created.
fn creating(pod: &Value, placement: &Placement, started: Timestamp) -> Value {
    let unready = unready_message(pod);
    let conditions = vec![
        pod_condition(pod, "PodReadyToStartContainers", "False", started, None),
        pod_condition(pod, "Initialized", "True", started, None),
        pod_condition(pod, "Ready", "False", started, Some(("ContainersNotReady", &unready))),
        pod_condition(pod, "ContainersReady", "False", started, Some(("ContainersNotReady", &unready))),
        pod_condition(pod, "PodScheduled", "True", started, None),
    ];
    let containers = containers(pod, "containers")
        .map(|container| {
            let state = json!({"waiting": {"reason": "ContainerCreating"}});
            container_status(container, pod, ContainerFacts::waiting(state))
        })
        .collect();
    let mut status = base_status(pod, "Pending", conditions, placement, started, false);
    status.insert("containerStatuses".to_string(), Value::Array(containers));
    init_statuses(pod, started, &mut status);
    Value::Object(status)
}

/// Running and Ready since `running_since`.
fn running(pod: &Value, placement: &Placement, started: Timestamp, running_since: Timestamp) -> Value {
    let conditions = vec![
        pod_condition(pod, "PodReadyToStartContainers", "True", running_since, None),
        pod_condition(pod, "Initialized", "True", started, None),
        pod_condition(pod, "Ready", "True", running_since, None),
        pod_condition(pod, "ContainersReady", "True", running_since, None),
        pod_condition(pod, "PodScheduled", "True", started, None),
    ];
    let since = meta::time(running_since);
    let containers = containers(pod, "containers")
        .map(|container| {
            let state = json!({"running": {"startedAt": since}});
            container_status(container, pod, ContainerFacts::started(state, 0))
        })
        .collect();
    let mut status = base_status(pod, "Running", conditions, placement, started, true);
    status.insert("containerStatuses".to_string(), Value::Array(containers));
    init_statuses(pod, started, &mut status);
    Value::Object(status)
}

/// A run-to-completion pod that ended.
fn finished(
    pod: &Value,
    placement: &Placement,
    started: Timestamp,
    running_since: Timestamp,
    ended: Timestamp,
    outcome: JobOutcome,
) -> Value {
    let (phase, exit_code, reason) = match outcome {
        JobOutcome::Complete => ("Succeeded", 0, "Completed"),
        JobOutcome::Failed => ("Failed", 1, "Error"),
    };
    let conditions = vec![
        pod_condition(pod, "PodReadyToStartContainers", "False", ended, None),
        pod_condition(pod, "Initialized", "True", started, Some(("PodCompleted", ""))),
        pod_condition(pod, "Ready", "False", ended, Some(("PodCompleted", ""))),
        pod_condition(pod, "ContainersReady", "False", ended, Some(("PodCompleted", ""))),
        pod_condition(pod, "PodScheduled", "True", started, None),
    ];
    let (from, to) = (meta::time(running_since), meta::time(ended));
    let containers = containers(pod, "containers")
        .map(|container| {
            let id = container_id(pod, container, 0);
            let state = json!({"terminated": {"exitCode": exit_code, "reason": reason, "startedAt": from,
                                              "finishedAt": to, "containerID": id}});
            let mut facts = ContainerFacts::started(state, 0);
            facts.ready = false;
            facts.started = false;
            container_status(container, pod, facts)
        })
        .collect();
    let mut status = base_status(pod, phase, conditions, placement, started, true);
    status.insert("containerStatuses".to_string(), Value::Array(containers));
    init_statuses(pod, started, &mut status);
    Value::Object(status)
}

/// Containers the kubelet restarts after they ended with `outcome` at `ended`, `since_end` ago: in the crash-loop
/// back-off between restarts, their last state the way they ended (exit 0 `Completed`, or exit 1 `Error`).
fn restarting(
    pod: &Value,
    behaviour: &PodBehaviour,
    placement: &Placement,
    started: Timestamp,
    ended: Timestamp,
    since_end: Duration,
    outcome: JobOutcome,
) -> PodState {
    let conditions = unready_conditions(pod, started, started, ended);
    let crashes = CrashLoop::at(since_end, behaviour.back_off);
    let exit = match outcome {
        JobOutcome::Complete => Exit { code: 0, reason: "Completed" },
        JobOutcome::Failed => Exit { code: 1, reason: "Error" },
    };
    let containers = containers(pod, "containers")
        .map(|container| crashed_container(pod, container, exit, &crashes, ended))
        .collect();
    let mut status = base_status(pod, "Running", conditions, placement, started, true);
    status.insert("containerStatuses".to_string(), Value::Array(containers));
    init_statuses(pod, started, &mut status);
    PodState { status: Value::Object(status), recheck_after: Some(crashes.next_in) }
}

/// The conditions of a scheduled pod whose containers run (or ran) but are not ready: its sandbox ready since
/// `sandbox_since`, not ready since `unready_since`.
fn unready_conditions(
    pod: &Value,
    started: Timestamp,
    sandbox_since: Timestamp,
    unready_since: Timestamp,
) -> Vec<Value> {
    let unready = unready_message(pod);
    vec![
        pod_condition(pod, "PodReadyToStartContainers", "True", sandbox_since, None),
        pod_condition(pod, "Initialized", "True", started, None),
        pod_condition(pod, "Ready", "False", unready_since, Some(("ContainersNotReady", &unready))),
        pod_condition(pod, "ContainersReady", "False", unready_since, Some(("ContainersNotReady", &unready))),
        pod_condition(pod, "PodScheduled", "True", started, None),
    ]
}

/// How a container ended: its exit code and the runtime's reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Exit {
    code: i64,
    reason: &'static str,
}

/// Containers that will not become ready: waiting with `reason` since `failing_since`.
fn stuck(
    pod: &Value,
    behaviour: &PodBehaviour,
    placement: &Placement,
    started: Timestamp,
    failing_since: Timestamp,
    failing_for: Duration,
    reason: &str,
) -> PodState {
    let conditions = unready_conditions(pod, started, failing_since, started);
    let crashing = matches!(reason, "CrashLoopBackOff" | "OOMKilled");
    let crashes = crashing.then(|| CrashLoop::at(failing_for, behaviour.back_off));
    let containers = containers(pod, "containers")
        .map(|container| match &crashes {
            Some(crashes) => {
                let exit = match reason {
                    "OOMKilled" => Exit { code: 137, reason: "OOMKilled" },
                    _ => Exit { code: 1, reason: "Error" },
                };
                crashed_container(pod, container, exit, crashes, failing_since)
            }
            None => {
                let message = waiting_message(reason, container);
                let state = json!({"waiting": {"reason": reason, "message": message}});
                let mut facts = ContainerFacts::waiting(state);
                facts.image_pulled = !matches!(reason, "ImagePullBackOff" | "ErrImagePull" | "InvalidImageName");
                container_status(container, pod, facts)
            }
        })
        .collect();
    let phase = if crashing { "Running" } else { "Pending" };
    let mut status = base_status(pod, phase, conditions, placement, started, true);
    status.insert("containerStatuses".to_string(), Value::Array(containers));
    init_statuses(pod, started, &mut status);
    let recheck_after = crashes.map(|crashes| crashes.next_in);
    PodState { status: Value::Object(status), recheck_after }
}

/// A container in the crash-loop back-off, its last run having ended as `exit` (an OOM kill counts one more
/// restart: the kubelet reports it with two or more).
fn crashed_container(pod: &Value, container: &Value, exit: Exit, crashes: &CrashLoop, since: Timestamp) -> Value {
    let name = str_at(container, &["name"]).unwrap_or_default();
    let restart_count = if exit.reason == "OOMKilled" { crashes.count + 1 } else { crashes.count };
    let (exit_code, terminated_reason) = (exit.code, exit.reason);
    let message = format!(
        "back-off {} restarting failed container={name} pod={}_{}({})",
        go_duration(crashes.message_back_off),
        meta::name(pod),
        meta::namespace(pod),
        meta::uid(pod)
    );
    let crashed_at = meta::time(meta::later(since, crashes.last_crash));
    let last_state = json!({"terminated": {
        "exitCode": exit_code, "reason": terminated_reason, "startedAt": crashed_at, "finishedAt": crashed_at,
        "containerID": container_id(pod, container, restart_count),
    }});
    let state = json!({"waiting": {"reason": "CrashLoopBackOff", "message": message}});
    let mut facts = ContainerFacts::started(state, restart_count);
    facts.ready = false;
    facts.started = false;
    facts.last_state = last_state;
    container_status(container, pod, facts)
}

/// Where a crash loop stands `failing_for` after the first crash.
#[derive(Debug, Clone, Copy, PartialEq)]
struct CrashLoop {
    /// Crashes so far (the restart count).
    count: i64,
    /// When the last crash happened, after the first.
    last_crash: Duration,
    /// The current back-off in real time, for the message (`back-off 40s restarting ...`).
    message_back_off: Duration,
    /// Until the next crash.
    next_in: Duration,
}

impl CrashLoop {
    /// The kubelet's schedule: a crash, then waits of `back_off`, doubling up to 5 minutes (all scaled alike).
    fn at(failing_for: Duration, back_off: Duration) -> CrashLoop {
        let back_off = back_off.max(Duration::from_millis(1));
        let mut count = 1i64;
        let mut last_crash = Duration::ZERO;
        let mut step = 0u32;
        loop {
            // 10s · 2^step, capped at 300s (30 units) from the sixth wait on.
            let multiplier = (1u32 << step.min(5)).min(30);
            let wait = back_off.saturating_mul(multiplier);
            let next = last_crash.saturating_add(wait);
            if next > failing_for {
                let message_back_off = (BACK_OFF.saturating_mul(multiplier)).min(MAX_BACK_OFF);
                return CrashLoop { count, last_crash, message_back_off, next_in: next - failing_for };
            }
            if multiplier == 30 {
                // Capped: the remaining crashes come at a fixed pace.
                let remaining = failing_for - next;
                let more = remaining.as_nanos() / wait.as_nanos().max(1);
                let more_count = i64::try_from(more).unwrap_or(i64::MAX / 2);
                let last = next.saturating_add(wait.saturating_mul(u32::try_from(more).unwrap_or(u32::MAX)));
                let next_crash = last.saturating_add(wait);
                return CrashLoop {
                    count: count.saturating_add(1).saturating_add(more_count),
                    last_crash: last,
                    message_back_off: MAX_BACK_OFF,
                    next_in: next_crash.saturating_sub(failing_for).max(Duration::from_millis(1)),
                };
            }
            count += 1;
            last_crash = next;
            step += 1;
        }
    }
}

/// What a container status says besides its name and image.
struct ContainerFacts {
    state: Value,
    last_state: Value,
    ready: bool,
    started: bool,
    restart_count: i64,
    image_pulled: bool,
    created: bool,
}

impl ContainerFacts {
    fn waiting(state: Value) -> ContainerFacts {
        ContainerFacts {
            state,
            last_state: json!({}),
            ready: false,
            started: false,
            restart_count: 0,
            image_pulled: false,
            created: false,
        }
    }

    fn started(state: Value, restart_count: i64) -> ContainerFacts {
        ContainerFacts {
            state,
            last_state: json!({}),
            ready: true,
            started: true,
            restart_count,
            image_pulled: true,
            created: true,
        }
    }
}

fn container_status(container: &Value, pod: &Value, facts: ContainerFacts) -> Value {
    let image = str_at(container, &["image"]).unwrap_or_default();
    let mut status = Map::new();
    status.insert("name".to_string(), json!(str_at(container, &["name"]).unwrap_or_default()));
    status.insert("image".to_string(), json!(full_image_name(image)));
    let image_id = if facts.image_pulled {
        format!("{}@sha256:{}", repository(&full_image_name(image)), template::digest(image))
    } else {
        String::new()
    };
    status.insert("imageID".to_string(), json!(image_id));
    if facts.created {
        status.insert("containerID".to_string(), json!(container_id(pod, container, facts.restart_count)));
    }
    status.insert("ready".to_string(), json!(facts.ready));
    status.insert("restartCount".to_string(), json!(facts.restart_count));
    status.insert("started".to_string(), json!(facts.started));
    status.insert("state".to_string(), facts.state);
    status.insert("lastState".to_string(), facts.last_state);
    Value::Object(status)
}

/// Init containers ran to completion when the pod started (they are not simulated further).
fn init_statuses(pod: &Value, started: Timestamp, status: &mut Map<String, Value>) {
    let at = meta::time(started);
    let statuses: Vec<Value> = containers(pod, "initContainers")
        .map(|container| {
            let id = container_id(pod, container, 0);
            let state = json!({"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": at, "finishedAt": at,
                                              "containerID": id}});
            let mut facts = ContainerFacts::started(state, 0);
            facts.ready = true;
            facts.started = false;
            container_status(container, pod, facts)
        })
        .collect();
    if !statuses.is_empty() {
        status.insert("initContainerStatuses".to_string(), Value::Array(statuses));
    }
}

fn base_status(
    pod: &Value,
    phase: &str,
    conditions: Vec<Value>,
    placement: &Placement,
    started: Timestamp,
    has_pod_ip: bool,
) -> Map<String, Value> {
    let mut status = Map::new();
    status.insert("phase".to_string(), json!(phase));
    status.insert("conditions".to_string(), Value::Array(conditions));
    status.insert("hostIP".to_string(), json!(placement.host_ip));
    status.insert("hostIPs".to_string(), json!([{"ip": placement.host_ip}]));
    if has_pod_ip {
        status.insert("podIP".to_string(), json!(placement.pod_ip));
        status.insert("podIPs".to_string(), json!([{"ip": placement.pod_ip}]));
    }
    status.insert("startTime".to_string(), json!(meta::time(started)));
    status.insert("qosClass".to_string(), json!(qos_class(pod)));
    observed_generation(pod, &mut status);
    status
}

/// Pod status tracks the generation it reflects (1.35: `PodObservedGenerationTracking`).
fn observed_generation(pod: &Value, status: &mut Map<String, Value>) {
    let generation = meta::generation(pod);
    if generation > 0 {
        status.insert("observedGeneration".to_string(), json!(generation));
    }
}

fn pod_condition(pod: &Value, condition_type: &str, status: &str, at: Timestamp, why: Option<(&str, &str)>) -> Value {
    let mut condition = Map::new();
    condition.insert("type".to_string(), json!(condition_type));
    condition.insert("status".to_string(), json!(status));
    condition.insert("lastProbeTime".to_string(), Value::Null);
    condition.insert("lastTransitionTime".to_string(), json!(meta::time(at)));
    let generation = meta::generation(pod);
    if generation > 0 {
        condition.insert("observedGeneration".to_string(), json!(generation));
    }
    if let Some((reason, message)) = why {
        condition.insert("reason".to_string(), json!(reason));
        if !message.is_empty() {
            condition.insert("message".to_string(), json!(message));
        }
    }
    Value::Object(condition)
}

fn containers<'a>(pod: &'a Value, field: &str) -> impl Iterator<Item = &'a Value> {
    pod.pointer(&format!("/spec/{field}")).and_then(Value::as_array).into_iter().flatten()
}

/// `containers with unready status: [a b]`
fn unready_message(pod: &Value) -> String {
    let names: Vec<&str> = containers(pod, "containers").filter_map(|container| str_at(container, &["name"])).collect();
    format!("containers with unready status: [{}]", names.join(" "))
}

/// The message a real kubelet gives with each waiting reason.
fn waiting_message(reason: &str, container: &Value) -> String {
    let image = str_at(container, &["image"]).unwrap_or_default();
    let full = full_image_name(image);
    match reason {
        "ImagePullBackOff" => format!(
            "Back-off pulling image \"{image}\": ErrImagePull: failed to pull and unpack image \"{full}\": failed to \
             resolve reference \"{full}\": {full}: not found"
        ),
        "ErrImagePull" => format!(
            "rpc error: code = NotFound desc = failed to pull and unpack image \"{full}\": failed to resolve reference \
             \"{full}\": {full}: not found"
        ),
        "InvalidImageName" => {
            format!(
                "Failed to apply default image tag \"{image}\": couldn't parse image name \"{image}\": invalid reference format"
            )
        }
        "CreateContainerConfigError" => missing_reference(container),
        "ContainerCreating" | "PodInitializing" => String::new(),
        _ => format!("the simulated cluster keeps this container waiting ({})", behaviour::POD_WAITING_REASON),
    }
}

/// `configmap "x" not found` for the first ConfigMap or Secret the container reads.
fn missing_reference(container: &Value) -> String {
    let sources = container.get("envFrom").and_then(Value::as_array).into_iter().flatten();
    for source in sources {
        if let Some(name) = str_at(source, &["configMapRef", "name"]) {
            return format!("configmap \"{name}\" not found");
        }
        if let Some(name) = str_at(source, &["secretRef", "name"]) {
            return format!("secret \"{name}\" not found");
        }
    }
    let variables = container.get("env").and_then(Value::as_array).into_iter().flatten();
    for variable in variables {
        if let Some(name) = str_at(variable, &["valueFrom", "configMapKeyRef", "name"]) {
            return format!("configmap \"{name}\" not found");
        }
        if let Some(name) = str_at(variable, &["valueFrom", "secretKeyRef", "name"]) {
            return format!("secret \"{name}\" not found");
        }
    }
    "container has runAsNonRoot and image will run as root".to_string()
}

/// `nginx:1.27` -> `docker.io/library/nginx:1.27`, as the runtime reports images.
fn full_image_name(image: &str) -> String {
    if image.is_empty() {
        return String::new();
    }
    let (first, _) = image.split_once('/').unwrap_or(("", image));
    let has_registry = image.contains('/') && (first.contains('.') || first.contains(':') || first == "localhost");
    let mut full = if has_registry {
        image.to_string()
    } else if image.contains('/') {
        format!("docker.io/{image}")
    } else {
        format!("docker.io/library/{image}")
    };
    let last = full.rsplit('/').next().unwrap_or_default();
    if !last.contains(':') && !last.contains('@') {
        full.push_str(":latest");
    }
    full
}

/// The image without its tag.
fn repository(full: &str) -> &str {
    let (head, last) = full.rsplit_once('/').unwrap_or(("", full));
    let name_end = last.find([':', '@']).unwrap_or(last.len());
    &full[..head.len() + usize::from(!head.is_empty()) + name_end]
}

fn container_id(pod: &Value, container: &Value, restart: i64) -> String {
    let name = str_at(container, &["name"]).unwrap_or_default();
    format!("containerd://{}", template::digest(&format!("{}/{name}/{restart}", meta::uid(pod))))
}

/// BestEffort without requests or limits, Guaranteed when every container limits cpu and memory and
/// requests (if given) equal the limits, else Burstable.
fn qos_class(pod: &Value) -> &'static str {
    let all: Vec<&Value> = containers(pod, "containers").chain(containers(pod, "initContainers")).collect();
    let resources = |container: &Value, kind: &str| container.pointer(&format!("/resources/{kind}")).cloned();
    let has_any = all.iter().any(|container| {
        ["requests", "limits"].iter().any(|kind| {
            resources(container, kind).and_then(|value| value.as_object().map(|map| !map.is_empty())) == Some(true)
        })
    });
    if !has_any {
        return "BestEffort";
    }
    let guaranteed = all.iter().all(|container| {
        let limits = resources(container, "limits").unwrap_or(Value::Null);
        let requests = resources(container, "requests").unwrap_or(Value::Null);
        ["cpu", "memory"].iter().all(|resource| {
            let limit = limits.get(*resource);
            limit.is_some() && requests.get(*resource).is_none_or(|request| Some(request) == limit)
        })
    });
    if guaranteed { "Guaranteed" } else { "Burstable" }
}

/// Go's `time.Duration.String()` for whole seconds: `10s`, `1m20s`, `5m0s`.
fn go_duration(duration: Duration) -> String {
    let seconds = duration.as_secs();
    match seconds {
        0..60 => format!("{seconds}s"),
        60..3600 => format!("{}m{}s", seconds / 60, seconds % 60),
        _ => format!("{}h{}m{}s", seconds / 3600, seconds % 3600 / 60, seconds % 60),
    }
}

/// Schedules the pod if it is not bound, else writes its status; rechecks when the status will change.
pub(super) fn reconcile(context: &mut Context, namespace: &str, name: &str) -> Result<(), ControllerError> {
    let pods = context.client.types.pods.clone();
    let Some(pod) = context.client.get(&pods, namespace, name) else { return Ok(()) };
    if meta::is_deleting(&pod) {
        return Ok(());
    }
    let owner = owner_of(context, &pod);
    let behaviour = PodBehaviour::new(&context.profile, &pod, owner.as_deref());
    let seen = context.clock.first_seen(meta::uid(&pod), 0);
    let node_name = node::node_name(&pod).to_string();
    if node_name.is_empty() {
        let picked = if behaviour.is_unschedulable() {
            None
        } else {
            context.nodes.pick(|node| node::matches_node_selector(&pod, node))
        };
        return match picked {
            Some(node) => {
                context.client.update(&pods, &pod, SCHEDULER, "the node", |pod| {
                    if let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) {
                        spec.insert("nodeName".to_string(), json!(node.name));
                    }
                })?;
                let message = format!("Successfully assigned {namespace}/{name} to {}", node.name);
                context.record_event(
                    &Involved::object(&pod),
                    EventType::Normal,
                    "Scheduled",
                    &message,
                    "default-scheduler",
                );
                Ok(())
            }
            None => {
                let schedulable = context.nodes.schedulable().len();
                let status = unschedulable_status(&pod, schedulable, context.nodes.count(), seen.wall);
                context.client.write_status(&pods, &pod, status, SCHEDULER).map(|_| ())
            }
        };
    }
    let host_ip = context.nodes.find(&node_name).map_or_else(|| "172.18.0.1".to_string(), |node| node.address.clone());
    let placement = Placement { host_ip, pod_ip: context.nodes.pod_address(meta::uid(&pod)) };
    let state = pod_status(&pod, &behaviour, &placement, seen.wall, seen.elapsed());
    let events = container_events(&pod, &state.status);
    context.client.write_status(&pods, &pod, state.status, KUBELET)?;
    for (container, event_type, reason, message) in events {
        context.record_event(&Involved::container(&pod, &container), event_type, reason, &message, KUBELET);
    }
    if let Some(delay) = state.recheck_after {
        context.recheck(Work::new(Controller::Kubelet, namespace, name), delay);
    }
    Ok(())
}

/// The state of each container in a pod status: (name, waiting reason, started).
fn container_states(status: Option<&Value>) -> Vec<(String, Option<String>, bool)> {
    let statuses = status.and_then(|status| status.get("containerStatuses")).and_then(Value::as_array);
    statuses
        .into_iter()
        .flatten()
        .map(|container| {
            let name = str_at(container, &["name"]).unwrap_or_default().to_string();
            let waiting = str_at(container, &["state", "waiting", "reason"]).map(str::to_string);
            let started = container.pointer("/state/running").is_some()
                || container.pointer("/state/terminated/startedAt").is_some()
                || container.get("restartCount").and_then(Value::as_i64).is_some_and(|count| count > 0);
            (name, waiting, started)
        })
        .collect()
}

/// The events a kubelet records as the pod's containers move from `pod`'s status to `status`: `Pulled`,
/// `Created`, `Started` when a container first starts; a warning when it starts waiting for a failure reason.
fn container_events(pod: &Value, status: &Value) -> Vec<(String, EventType, &'static str, String)> {
    let before = container_states(pod.get("status"));
    let image = |name: &str| {
        containers(pod, "containers")
            .find(|container| str_at(container, &["name"]) == Some(name))
            .and_then(|container| str_at(container, &["image"]))
            .unwrap_or_default()
            .to_string()
    };
    let mut events = Vec::new();
    for (name, waiting, started) in container_states(Some(status)) {
        let previous = before.iter().find(|(previous, _, _)| *previous == name);
        let was_started = previous.is_some_and(|(_, _, started)| *started);
        if started && !was_started {
            let pulled = format!("Container image \"{}\" already present on machine", image(&name));
            events.push((name.clone(), EventType::Normal, "Pulled", pulled));
            events.push((name.clone(), EventType::Normal, "Created", format!("Created container: {name}")));
            events.push((name.clone(), EventType::Normal, "Started", format!("Started container {name}")));
        }
        let was_waiting = previous.and_then(|(_, waiting, _)| waiting.clone());
        if let Some(reason) =
            waiting.filter(|reason| reason != "ContainerCreating" && Some(reason) != was_waiting.as_ref())
        {
            let (event_reason, message) = match reason.as_str() {
                "ImagePullBackOff" => ("BackOff", format!("Back-off pulling image \"{}\"", image(&name))),
                "CrashLoopBackOff" => (
                    "BackOff",
                    format!(
                        "Back-off restarting failed container {name} in pod {}_{}({})",
                        meta::name(pod),
                        meta::namespace(pod),
                        meta::uid(pod)
                    ),
                ),
                "ErrImagePull" => ("Failed", format!("Failed to pull image \"{}\": {reason}", image(&name))),
                other => ("Failed", format!("Error: {other}")),
            };
            events.push((name.clone(), EventType::Warning, event_reason, message));
        }
    }
    events
}

/// The workload that controls the pod (its ReplicaSet, StatefulSet, DaemonSet or Job), whose annotations
/// set the pod's behaviour.
fn owner_of(context: &Context, pod: &Value) -> Option<std::sync::Arc<Value>> {
    let reference = meta::controller_of(pod)?;
    let types = &context.client.types;
    let def = match reference.get("kind").and_then(Value::as_str)? {
        "ReplicaSet" => &types.replica_sets,
        "StatefulSet" => &types.stateful_sets,
        "DaemonSet" => &types.daemon_sets,
        "Job" => &types.jobs,
        _ => return None,
    };
    let name = reference.get("name").and_then(Value::as_str)?;
    let owner = context.client.get(def, meta::namespace(pod), name)?;
    let same = reference.get("uid").and_then(Value::as_str) == Some(meta::uid(&owner));
    same.then_some(owner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use berth::status::{Status, compute};

    fn pod(annotations: Value) -> Value {
        json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web-1", "namespace": "shop", "uid": "u1", "generation": 2, "annotations": annotations,
                         "creationTimestamp": "2025-01-01T00:00:00Z"},
            "spec": {"nodeName": "sim-node-0", "containers": [{"name": "web", "image": "nginx:1.27"}]},
        })
    }

    fn placement() -> Placement {
        Placement { host_ip: "172.18.0.2".into(), pod_ip: "10.244.0.7".into() }
    }

    fn start() -> Timestamp {
        "2025-01-01T00:00:00Z".parse().unwrap_or(Timestamp::UNIX_EPOCH)
    }

    fn behaviour_of(pod: &Value, owner: Option<&Value>) -> PodBehaviour {
        PodBehaviour::new(&Profile::default(), pod, owner)
    }

    fn state_at(pod: &Value, owner: Option<&Value>, elapsed_ms: u64) -> PodState {
        pod_status(pod, &behaviour_of(pod, owner), &placement(), start(), Duration::from_millis(elapsed_ms))
    }

    fn status_of(pod: &Value, state: &PodState) -> Status {
        let mut object = pod.clone();
        object["status"] = state.status.clone();
        compute(&object, start()).map(|result| result.status).unwrap_or(Status::Unknown)
    }

    #[test]
    fn a_pod_is_created_then_runs_ready_after_the_delay() {
        let pod = pod(json!({}));
        let state = state_at(&pod, None, 50);
        assert_eq!(state.status["phase"], "Pending");
        assert_eq!(state.status["containerStatuses"][0]["state"]["waiting"]["reason"], "ContainerCreating");
        assert_eq!(state.recheck_after, Some(Duration::from_millis(150)));
        assert_eq!(status_of(&pod, &state), Status::InProgress);

        let state = state_at(&pod, None, 200);
        assert_eq!(state.status["phase"], "Running");
        assert_eq!(state.status["podIP"], "10.244.0.7");
        assert_eq!(state.status["hostIP"], "172.18.0.2");
        assert_eq!(state.status["observedGeneration"], 2);
        let container = &state.status["containerStatuses"][0];
        assert_eq!(container["ready"], true);
        assert_eq!(container["image"], "docker.io/library/nginx:1.27");
        assert!(container["imageID"].as_str().is_some_and(|id| id.starts_with("docker.io/library/nginx@sha256:")));
        assert!(container["state"]["running"]["startedAt"].is_string());
        assert_eq!(state.recheck_after, None);
        assert_eq!(status_of(&pod, &state), Status::Current);
        assert_eq!(state, state_at(&pod, None, 90_000), "nothing changes once running");
    }

    #[test]
    fn the_owner_sets_the_delay_and_the_pod_overrides_it() {
        let owner = json!({"kind": "ReplicaSet", "metadata": {"annotations": {behaviour::READY_AFTER: "2s"}}});
        assert_eq!(state_at(&pod(json!({})), Some(&owner), 1500).status["phase"], "Pending");
        assert_eq!(state_at(&pod(json!({})), Some(&owner), 2000).status["phase"], "Running");
        let fast = pod(json!({behaviour::READY_AFTER: "0s"}));
        assert_eq!(state_at(&fast, Some(&owner), 0).status["phase"], "Running");
    }

    #[test]
    fn waiting_reasons_keep_containers_waiting_with_the_kubelets_message() {
        let cases = [
            ("ImagePullBackOff", "Pending", "Back-off pulling image \"nginx:1.27\""),
            ("ErrImagePull", "Pending", "rpc error: code = NotFound"),
            ("CreateContainerConfigError", "Pending", "container has runAsNonRoot"),
            ("InvalidImageName", "Pending", "invalid reference format"),
            ("RunContainerError", "Pending", "sim.berth.dev/pod-waiting-reason"),
        ];
        for (reason, phase, message) in cases {
            let pod = pod(json!({behaviour::POD_WAITING_REASON: reason}));
            let state = state_at(&pod, None, 10_000);
            assert_eq!(state.status["phase"], phase, "{reason}");
            let waiting = &state.status["containerStatuses"][0]["state"]["waiting"];
            assert_eq!(waiting["reason"], reason);
            assert!(waiting["message"].as_str().is_some_and(|text| text.contains(message)), "{reason}: {waiting}");
            assert_eq!(state.status["containerStatuses"][0]["ready"], false);
            assert_eq!(status_of(&pod, &state), Status::InProgress, "{reason}");
            let failure = berth::wait::pods::pod_failure(&pod_with(&pod, &state), start(), &Default::default());
            let expected_failure = reason != "RunContainerError";
            assert_eq!(failure.is_some(), expected_failure, "{reason}: {failure:?}");
        }
    }

    fn pod_with(pod: &Value, state: &PodState) -> Value {
        let mut object = pod.clone();
        object["status"] = state.status.clone();
        object
    }

    #[test]
    fn crash_loops_restart_with_growing_back_off() {
        let pod = pod(json!({behaviour::POD_WAITING_REASON: "CrashLoopBackOff"}));
        let state = state_at(&pod, None, 200);
        let container = &state.status["containerStatuses"][0];
        assert_eq!(state.status["phase"], "Running");
        assert_eq!(container["restartCount"], 1);
        assert_eq!(container["lastState"]["terminated"]["exitCode"], 1);
        assert_eq!(container["lastState"]["terminated"]["reason"], "Error");
        assert!(container["state"]["waiting"]["message"].as_str().is_some_and(|text| text.starts_with("back-off 10s")));
        assert_eq!(state.recheck_after, Some(Duration::from_secs(10)));
        assert_eq!(status_of(&pod, &state), Status::Failed, "kstatus: containers in CrashLoop");
        let later = state_at(&pod, None, 200 + 10_000 + 20_000 + 1);
        assert_eq!(later.status["containerStatuses"][0]["restartCount"], 3);
        assert!(
            later.status["containerStatuses"][0]["state"]["waiting"]["message"]
                .as_str()
                .is_some_and(|text| text.starts_with("back-off 40s"))
        );
    }

    #[test]
    fn crash_loop_schedule_caps_at_five_minutes() {
        let unit = Duration::from_secs(10);
        assert_eq!(CrashLoop::at(Duration::ZERO, unit).count, 1);
        assert_eq!(CrashLoop::at(Duration::from_secs(10), unit).count, 2);
        // Crashes at 0, 10, 30, 70, 150, 310, then every 300 s: 610, 910.
        let capped = CrashLoop::at(Duration::from_secs(920), unit);
        assert_eq!(capped.count, 8);
        assert_eq!(capped.last_crash, Duration::from_secs(910));
        assert_eq!(capped.next_in, Duration::from_secs(290));
        assert_eq!(go_duration(capped.message_back_off), "5m0s");
    }

    #[test]
    fn oom_kills_are_reported_with_two_or_more_restarts() {
        let pod = pod(json!({behaviour::POD_WAITING_REASON: "OOMKilled"}));
        let state = state_at(&pod, None, 200);
        let container = &state.status["containerStatuses"][0];
        assert_eq!(container["lastState"]["terminated"]["reason"], "OOMKilled");
        assert_eq!(container["lastState"]["terminated"]["exitCode"], 137);
        assert!(container["restartCount"].as_i64().is_some_and(|count| count >= 2));
        let failure = berth::wait::pods::pod_failure(&pod_with(&pod, &state), start(), &Default::default());
        assert_eq!(failure.map(|failure| failure.reason).as_deref(), Some("OOMKilled"));
    }

    #[test]
    fn unschedulable_pods_stay_pending_without_a_node() {
        let pod = pod(json!({behaviour::POD_WAITING_REASON: "Unschedulable"}));
        assert!(behaviour_of(&pod, None).is_unschedulable());
        let status = unschedulable_status(&pod, 3, 3, start());
        assert_eq!(status["phase"], "Pending");
        assert_eq!(status["conditions"][0]["reason"], "Unschedulable");
        assert!(status["conditions"][0]["message"].as_str().is_some_and(|text| text.starts_with("0/3 nodes")));
        assert!(status.get("podIP").is_none());
        let mut object = pod.clone();
        object["status"] = status;
        let later: Timestamp = "2025-01-01T00:10:00Z".parse().unwrap_or(Timestamp::UNIX_EPOCH);
        assert_eq!(compute(&object, later).map(|result| result.status), Ok(Status::Failed));
    }

    #[test]
    fn job_pods_run_for_the_job_duration_and_end_per_the_outcome() {
        let job = json!({"kind": "Job", "metadata": {"annotations": {behaviour::JOB_DURATION: "1s"}}});
        let pod = pod(json!({}));
        assert_eq!(state_at(&pod, Some(&job), 500).status["phase"], "Running");
        assert_eq!(state_at(&pod, Some(&job), 500).recheck_after, Some(Duration::from_millis(500)));
        let done = state_at(&pod, Some(&job), 1000);
        assert_eq!(done.status["phase"], "Succeeded");
        assert_eq!(done.status["containerStatuses"][0]["state"]["terminated"]["reason"], "Completed");
        let failing = json!({"kind": "Job", "metadata": {"annotations": {behaviour::JOB_DURATION: "100ms",
            behaviour::JOB_OUTCOME: "Failed"}}});
        let failed = state_at(&pod, Some(&failing), 100);
        assert_eq!(failed.status["phase"], "Failed");
        assert_eq!(failed.status["containerStatuses"][0]["state"]["terminated"]["exitCode"], 1);
        assert_eq!(failed.status["conditions"][2]["reason"], "PodCompleted");
    }

    fn bare_pod(restart_policy: Option<&str>, annotations: Value) -> Value {
        let mut pod = pod(annotations);
        if let Some(policy) = restart_policy {
            pod["spec"]["restartPolicy"] = json!(policy);
        }
        pod
    }

    fn first_container(state: &PodState) -> &Value {
        &state.status["containerStatuses"][0]
    }

    #[test]
    fn a_bare_pod_that_never_restarts_runs_to_completion() {
        // The test pod of `helm create`: restartPolicy Never, no annotation: it runs the job delay and succeeds.
        let test_pod = bare_pod(Some("Never"), json!({}));
        let delay = Profile::default().delays.job;
        let millis = |duration: Duration| u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
        let running = state_at(&test_pod, None, millis(delay) - 10);
        assert_eq!(
            (running.status["phase"].clone(), running.recheck_after),
            (json!("Running"), Some(Duration::from_millis(10)))
        );
        let done = state_at(&test_pod, None, millis(delay));
        assert_eq!((done.status["phase"].clone(), done.recheck_after), (json!("Succeeded"), None));
        assert_eq!(first_container(&done)["state"]["terminated"]["reason"], "Completed");
        let failed = bare_pod(Some("Never"), json!({behaviour::JOB_OUTCOME: "Failed"}));
        assert_eq!(state_at(&failed, None, millis(delay)).status["phase"], "Failed");
    }

    #[test]
    fn on_failure_restarts_only_failed_containers_and_always_restarts_every_one() {
        let annotations = |outcome: &str| json!({behaviour::JOB_DURATION: "1s", behaviour::JOB_OUTCOME: outcome});
        let succeeded = state_at(&bare_pod(Some("OnFailure"), annotations("Complete")), None, 1000);
        assert_eq!(succeeded.status["phase"], "Succeeded");

        let failing = bare_pod(Some("OnFailure"), annotations("Failed"));
        let crashed = state_at(&failing, None, 1000);
        assert_eq!(crashed.status["phase"], "Running", "restarted by the kubelet, not failed");
        assert_eq!(first_container(&crashed)["state"]["waiting"]["reason"], "CrashLoopBackOff");
        assert_eq!(first_container(&crashed)["lastState"]["terminated"]["exitCode"], 1);
        assert_eq!(crashed.recheck_after, Some(Duration::from_secs(10)));
        assert_eq!(status_of(&failing, &crashed), Status::Failed, "kstatus: containers in CrashLoop");
        let later = state_at(&failing, None, 1000 + 10_000);
        assert_eq!(first_container(&later)["restartCount"], 2);

        let server = bare_pod(None, annotations("Complete"));
        let exited = state_at(&server, None, 1000);
        assert_eq!(exited.status["phase"], "Running", "Always restarts a container that exits 0");
        assert_eq!(first_container(&exited)["lastState"]["terminated"]["reason"], "Completed");
        assert_eq!(first_container(&exited)["lastState"]["terminated"]["exitCode"], 0);

        let long_running = bare_pod(None, json!({}));
        assert_eq!(state_at(&long_running, None, 90_000).status["phase"], "Running", "no end without one asked");
    }

    #[test]
    fn job_pods_end_whatever_their_restart_policy() {
        let job = json!({"kind": "Job", "metadata": {"annotations": {behaviour::JOB_DURATION: "100ms",
            behaviour::JOB_OUTCOME: "Failed"}}});
        let mut pod = bare_pod(Some("OnFailure"), json!({}));
        pod["metadata"]["ownerReferences"] = json!([{"kind": "Job", "name": "j", "uid": "j1", "controller": true}]);
        assert_eq!(state_at(&pod, Some(&job), 100).status["phase"], "Failed");
    }

    #[test]
    fn images_are_named_as_the_runtime_reports_them() {
        let cases = [
            ("nginx", "docker.io/library/nginx:latest", "docker.io/library/nginx"),
            ("nginx:1.27", "docker.io/library/nginx:1.27", "docker.io/library/nginx"),
            ("bitnami/redis:7", "docker.io/bitnami/redis:7", "docker.io/bitnami/redis"),
            ("ghcr.io/a/b@sha256:00", "ghcr.io/a/b@sha256:00", "ghcr.io/a/b"),
            ("localhost:5000/x", "localhost:5000/x:latest", "localhost:5000/x"),
        ];
        for (image, full, repo) in cases {
            assert_eq!(full_image_name(image), full);
            assert_eq!(repository(full), repo);
        }
    }

    #[test]
    fn qos_classes_follow_resources() {
        let with = |resources: Value| json!({"spec": {"containers": [{"name": "c", "resources": resources}]}});
        assert_eq!(qos_class(&with(json!({}))), "BestEffort");
        assert_eq!(qos_class(&with(json!({"requests": {"cpu": "1"}}))), "Burstable");
        assert_eq!(qos_class(&with(json!({"limits": {"cpu": "1", "memory": "1Gi"}}))), "Guaranteed");
    }
}
