//! The kstatus rules as a table: one case per rule and per edge, each an object in YAML and what kstatus
//! says about it.
//!
//! Cases named after a kstatus test (`stsLessReady`, `podCrashLooping`, ...) are ported from
//! `core_test.go`/`status_compute_test.go`; kstatus asserts status and reason there, these also pin the
//! message, which kstatus's code makes deterministic. Error cases expect Unknown with kstatus's error text.

use super::fields::{go_float, go_value};
use super::{Status, StatusResult, compute, compute_or_unknown};
use jiff::Timestamp;
use proptest::prelude::*;
use serde_json::{Value, json};

/// How a case's message is checked: exactly, or (where the text comes from Go's formatting of arbitrary
/// input) by a fragment.
#[derive(Debug, Clone, Copy)]
enum Message {
    Exact(&'static str),
    Contains(&'static str),
}

use Message::{Contains, Exact};
use Status::{Current, Failed, InProgress, Terminating, Unknown};

/// The clock every case is judged at; Pod creation times in the cases are relative to it.
const NOW: &str = "2024-05-01T12:00:00Z";

/// (name, object, status, message, reason). The reason is the one kstatus puts on its Reconciling/Stalled
/// condition, empty where it sets none.
type Case = (&'static str, &'static str, Status, Message, &'static str);

const CASES: &[Case] = &[
    // --- Deletion -------------------------------------------------------------------------------------
    (
        "deletion timestamp wins over generation and conditions",
        r#"
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web, generation: 2, deletionTimestamp: "2024-05-01T11:00:00Z"}
        status:
          observedGeneration: 1
          conditions: [{type: Stalled, status: "True", reason: Broken}]
        "#,
        Terminating,
        Exact("Resource scheduled for deletion"),
        "",
    ),
    (
        "empty deletion timestamp is not a deletion",
        r#"
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: settings, deletionTimestamp: ""}
        "#,
        Current,
        Exact("Resource is always ready"),
        "",
    ),
    (
        "deletion timestamp of the wrong type is an error",
        r#"
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: settings, deletionTimestamp: 5}
        "#,
        Unknown,
        Exact(
            "looking up metadata.deletionTimestamp from resource: .metadata.deletionTimestamp accessor error: \
             5 is of the type int64, expected string",
        ),
        "",
    ),
    (
        "null deletion timestamp is an error as in Go",
        r#"
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: settings, deletionTimestamp: null}
        "#,
        Unknown,
        Exact(
            "looking up metadata.deletionTimestamp from resource: .metadata.deletionTimestamp accessor error: \
             <nil> is of the type <nil>, expected string",
        ),
        "",
    ),
    (
        "metadata that is not a map is an error",
        r#"
        apiVersion: v1
        kind: ConfigMap
        metadata: settings
        "#,
        Unknown,
        Exact(
            "looking up metadata.deletionTimestamp from resource: .metadata.deletionTimestamp accessor error: \
             settings is of the type string, expected map[string]interface{}",
        ),
        "",
    ),
    (
        "object that is not a map is an error",
        r#"
        - apiVersion: v1
        - kind: ConfigMap
        "#,
        Unknown,
        Exact(
            "object accessor error: [map[apiVersion:v1] map[kind:ConfigMap]] is of the type []interface {}, \
             expected map[string]interface{}",
        ),
        "",
    ),
    // --- Generation -----------------------------------------------------------------------------------
    (
        "crdMismatchStatusGeneration",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test, namespace: qual, generation: 2}
        status: {observedGeneration: 1}
        "#,
        InProgress,
        Exact("MyCR generation is 2, but latest observed generation is 1"),
        "LatestGenerationNotObserved",
    ),
    (
        "observed generation ahead of generation is also not observed",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test, generation: 2}
        status: {observedGeneration: 3}
        "#,
        InProgress,
        Exact("MyCR generation is 2, but latest observed generation is 3"),
        "LatestGenerationNotObserved",
    ),
    (
        "generation mismatch wins over Stalled",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test, generation: 5}
        status:
          observedGeneration: 4
          conditions: [{type: Stalled, status: "True", reason: Broken, message: broken}]
        "#,
        InProgress,
        Exact("MyCR generation is 5, but latest observed generation is 4"),
        "LatestGenerationNotObserved",
    ),
    (
        "generation without kind names no kind",
        r#"
        apiVersion: something/v1
        metadata: {name: test, generation: 2}
        status: {observedGeneration: 1}
        "#,
        InProgress,
        Exact(" generation is 2, but latest observed generation is 1"),
        "LatestGenerationNotObserved",
    ),
    (
        "missing observed generation skips the check (crdNoStatus)",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {generation: 1, name: test, namespace: qual}
        "#,
        Current,
        Exact("Resource is current"),
        "",
    ),
    (
        "missing generation skips the check, observed generation unread",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test}
        status: {observedGeneration: not-a-number}
        "#,
        Current,
        Exact("Resource is current"),
        "",
    ),
    (
        "observed generation as a string is an error",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test, generation: 1}
        status: {observedGeneration: foo}
        "#,
        Unknown,
        Exact(
            "looking up status.observedGeneration from resource: .status.observedGeneration accessor error: \
             foo is of the type string, expected int64",
        ),
        "",
    ),
    (
        "observed generation as a float is an error",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test, generation: 1}
        status: {observedGeneration: 1.5}
        "#,
        Unknown,
        Exact(
            "looking up status.observedGeneration from resource: .status.observedGeneration accessor error: \
             1.5 is of the type float64, expected int64",
        ),
        "",
    ),
    (
        "observed generation as a whole float is still a float",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test, generation: 1}
        status: {observedGeneration: 1.0}
        "#,
        Unknown,
        Exact(
            "looking up status.observedGeneration from resource: .status.observedGeneration accessor error: \
             1 is of the type float64, expected int64",
        ),
        "",
    ),
    (
        "observed generation beyond int64 decodes as a float in Go",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test, generation: 1}
        status: {observedGeneration: 18446744073709551615}
        "#,
        Unknown,
        Exact(
            "looking up status.observedGeneration from resource: .status.observedGeneration accessor error: \
             1.8446744073709552e+19 is of the type float64, expected int64",
        ),
        "",
    ),
    (
        "observed generation as a map is an error",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test, generation: 1}
        status: {observedGeneration: {b: [x, null], a: true}}
        "#,
        Unknown,
        Exact(
            "looking up status.observedGeneration from resource: .status.observedGeneration accessor error: \
             map[a:true b:[x <nil>]] is of the type map[string]interface {}, expected int64",
        ),
        "",
    ),
    (
        "null observed generation is an error as in Go",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test, generation: 1}
        status: {observedGeneration: null}
        "#,
        Unknown,
        Exact(
            "looking up status.observedGeneration from resource: .status.observedGeneration accessor error: \
             <nil> is of the type <nil>, expected int64",
        ),
        "",
    ),
    (
        "generation as a string is an error",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test, generation: "2"}
        status: {observedGeneration: 2}
        "#,
        Unknown,
        Exact(
            "looking up metadata.generation from resource: .metadata.generation accessor error: \
             2 is of the type string, expected int64",
        ),
        "",
    ),
    (
        "status that is not a map fails the observed generation lookup",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test, generation: 1}
        status: pending
        "#,
        Unknown,
        Exact(
            "looking up status.observedGeneration from resource: .status.observedGeneration accessor error: \
             pending is of the type string, expected map[string]interface{}",
        ),
        "",
    ),
    // --- Condition shape (kstatus GetObjectWithConditions) ------------------------------------------------
    (
        "status that is not a map fails the condition conversion",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test}
        status: pending
        "#,
        Unknown,
        Exact("cannot restore struct from: string"),
        "",
    ),
    (
        "status that is a list fails the condition conversion",
        r#"
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: test}
        status: [a]
        "#,
        Unknown,
        Exact("cannot restore struct from: slice"),
        "",
    ),
    (
        "conditions that are a map are an error",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test}
        status: {conditions: {type: Ready, status: "True"}}
        "#,
        Unknown,
        Exact("cannot restore slice from map"),
        "",
    ),
    (
        "conditions that are a string are an error",
        r#"
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: test}
        status: {conditions: Ready}
        "#,
        Unknown,
        Exact("cannot restore slice from string"),
        "",
    ),
    (
        "a condition that is not a map is an error",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test}
        status: {conditions: [Ready]}
        "#,
        Unknown,
        Exact("cannot restore struct from: string"),
        "",
    ),
    (
        "a condition type that is an integer is an error",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test}
        status: {conditions: [{type: 5, status: "True"}]}
        "#,
        Unknown,
        Exact("cannot convert int64 to string"),
        "",
    ),
    (
        "a condition status that is an integer is an error",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test}
        status: {conditions: [{type: Ready, status: 1}]}
        "#,
        Unknown,
        Exact("cannot convert int64 to v1.ConditionStatus"),
        "",
    ),
    (
        "a condition status that is a YAML bool is an error",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test}
        status: {conditions: [{type: Ready, status: True}]}
        "#,
        Unknown,
        Exact("unrecognized type: string"),
        "",
    ),
    (
        "a condition message that is a map is an error",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {name: test}
        status: {phase: Running, conditions: [{type: Ready, status: "True", message: {text: hi}}]}
        "#,
        Unknown,
        Exact("unrecognized type: string"),
        "",
    ),
    (
        "a malformed condition after a decisive one is still an error",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test}
        status:
          conditions:
          - {type: Reconciling, status: "True", reason: Working}
          - {type: Ready, status: "False", reason: 7}
        "#,
        Unknown,
        Exact("cannot convert int64 to string"),
        "",
    ),
    (
        "null conditions, null entries and null fields are zero values",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test}
        status:
          conditions:
          - null
          - {type: Ready, status: "True", reason: null, message: null, lastTransitionTime: 5}
        "#,
        Current,
        Exact("Resource is Ready"),
        "",
    ),
    (
        "null status is no status (cronjobWithStatus)",
        r#"
        apiVersion: batch/v1
        kind: CronJob
        metadata: {name: test, namespace: qual, generation: 1}
        status:
        "#,
        Current,
        Exact("Resource is always ready"),
        "",
    ),
    // --- Reconciling / Stalled ------------------------------------------------------------------------
    (
        "Reconciling=True is InProgress with its reason and message",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test, generation: 1}
        status:
          observedGeneration: 1
          conditions: [{type: Reconciling, status: "True", reason: Progressing, message: rolling out}]
        "#,
        InProgress,
        Exact("rolling out"),
        "Progressing",
    ),
    (
        "Stalled=True is Failed with its reason and message",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test}
        status:
          conditions: [{type: Stalled, status: "True", reason: QuotaExceeded, message: quota exceeded}]
        "#,
        Failed,
        Exact("quota exceeded"),
        "QuotaExceeded",
    ),
    (
        "the first of Stalled and Reconciling decides",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test}
        status:
          conditions:
          - {type: Stalled, status: "True", reason: Stuck, message: stuck}
          - {type: Reconciling, status: "True", reason: Working, message: working}
        "#,
        Failed,
        Exact("stuck"),
        "Stuck",
    ),
    (
        "Reconciling and Stalled False fall through to Ready",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test}
        status:
          conditions:
          - {type: Reconciling, status: "False"}
          - {type: Stalled, status: "False"}
          - {type: Ready, status: "True"}
        "#,
        Current,
        Exact("Resource is Ready"),
        "",
    ),
    (
        "Reconciling=True wins over the kind rule",
        r#"
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: test, generation: 1}
        spec: {replicas: 1}
        status:
          observedGeneration: 1
          replicas: 1
          updatedReplicas: 1
          readyReplicas: 1
          availableReplicas: 1
          conditions:
          - {type: Reconciling, status: "True", reason: Custom, message: custom controller busy}
        "#,
        InProgress,
        Exact("custom controller busy"),
        "Custom",
    ),
    (
        "Stalled=True wins over an always-ready kind",
        r#"
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: test}
        status: {conditions: [{type: Stalled, status: "True"}]}
        "#,
        Failed,
        Exact(""),
        "",
    ),
    // --- Ready fallback and unknown kinds -----------------------------------------------------------------
    (
        "crdReady",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test, namespace: qual, generation: 1}
        status:
          conditions: [{type: Ready, status: "True", message: All looks ok, reason: AllOk}]
        "#,
        Current,
        Exact("Resource is Ready"),
        "",
    ),
    (
        "crdNotReady",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {generation: 1, name: test, namespace: qual}
        status:
          observedGeneration: 1
          conditions: [{type: Ready, status: "False", reason: NotReadyYet}]
        "#,
        InProgress,
        Exact(""),
        "NotReadyYet",
    ),
    (
        "Ready=False copies the message",
        r#"
        apiVersion: cert-manager.io/v1
        kind: Certificate
        metadata: {name: tls}
        status:
          conditions: [{type: Ready, status: "False", reason: Issuing, message: Issuing certificate}]
        "#,
        InProgress,
        Exact("Issuing certificate"),
        "Issuing",
    ),
    (
        "Ready=Unknown is InProgress",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test}
        status:
          conditions: [{type: Ready, status: Unknown, reason: Pending, message: waiting for dependencies}]
        "#,
        InProgress,
        Exact("waiting for dependencies"),
        "Pending",
    ),
    (
        "a Ready condition with another status is skipped",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test}
        status:
          conditions:
          - {type: Ready, status: ""}
          - {type: Ready, status: "False", reason: Second}
        "#,
        InProgress,
        Exact(""),
        "Second",
    ),
    (
        "crdNoCondition",
        r#"
        apiVersion: something/v1
        kind: MyCR
        metadata: {name: test, namespace: qual, generation: 1}
        status:
          conditions: [{type: SomeCondition, status: "False"}]
        "#,
        Current,
        Exact("Resource is current"),
        "",
    ),
    (
        "unknown custom resource without status is current",
        r#"
        apiVersion: example.com/v1
        kind: Widget
        metadata: {name: w, namespace: shop}
        spec: {size: 3}
        "#,
        Current,
        Exact("Resource is current"),
        "",
    ),
    (
        "object without apiVersion or kind is current",
        r#"
        metadata: {name: w}
        "#,
        Current,
        Exact("Resource is current"),
        "",
    ),
    (
        "known kinds do not use the Ready fallback",
        r#"
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: test}
        status: {conditions: [{type: Ready, status: "False", reason: Nope}]}
        "#,
        Current,
        Exact("Resource is always ready"),
        "",
    ),
    (
        "an apiVersion with two slashes has no kind rule",
        r#"
        apiVersion: apps/v1/extra
        kind: Deployment
        metadata: {name: test}
        "#,
        Current,
        Exact("Resource is current"),
        "",
    ),
    (
        "a workload kind in the core group has no kind rule",
        r#"
        apiVersion: v1
        kind: Deployment
        metadata: {name: test}
        "#,
        Current,
        Exact("Resource is current"),
        "",
    ),
    (
        "extensions/StatefulSet is not in kstatus's table",
        r#"
        apiVersion: extensions/v1beta1
        kind: StatefulSet
        metadata: {name: test}
        status: {conditions: [{type: Ready, status: "False", reason: NotYet}]}
        "#,
        InProgress,
        Exact(""),
        "NotYet",
    ),
    (
        "kind matching is case-sensitive",
        r#"
        apiVersion: apps/v1
        kind: deployment
        metadata: {name: test}
        "#,
        Current,
        Exact("Resource is current"),
        "",
    ),
    // --- Service ------------------------------------------------------------------------------------------
    (
        "serviceDefault",
        r#"
        apiVersion: v1
        kind: Service
        metadata: {name: test, namespace: qual, generation: 1}
        "#,
        Current,
        Exact("Service is ready"),
        "",
    ),
    (
        "serviceNodePort",
        r#"
        apiVersion: v1
        kind: Service
        metadata: {name: test, namespace: qual, generation: 1}
        spec: {type: NodePort}
        "#,
        Current,
        Exact("Service is ready"),
        "",
    ),
    (
        "serviceLBok",
        r#"
        apiVersion: v1
        kind: Service
        metadata: {name: test, namespace: qual, generation: 1}
        spec: {type: LoadBalancer, clusterIP: "1.2.3.4"}
        "#,
        Current,
        Exact("Service is ready"),
        "",
    ),
    (
        "serviceLBnok",
        r#"
        apiVersion: v1
        kind: Service
        metadata: {name: test, namespace: qual, generation: 1}
        spec: {type: LoadBalancer}
        "#,
        InProgress,
        Exact("ClusterIP not set. Service type: LoadBalancer"),
        "NoIPAssigned",
    ),
    (
        "LoadBalancer with an empty cluster IP waits",
        r#"
        apiVersion: v1
        kind: Service
        metadata: {name: test}
        spec: {type: LoadBalancer, clusterIP: ""}
        status: {loadBalancer: {}}
        "#,
        InProgress,
        Exact("ClusterIP not set. Service type: LoadBalancer"),
        "NoIPAssigned",
    ),
    (
        "Service type of the wrong type takes the default",
        r#"
        apiVersion: v1
        kind: Service
        metadata: {name: test}
        spec: {type: 5}
        "#,
        Current,
        Exact("Service is ready"),
        "",
    ),
    // --- Pod ----------------------------------------------------------------------------------------------
    (
        "podNoStatus",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {generation: 1, name: test}
        "#,
        InProgress,
        Exact("Pod phase not available"),
        "PodNotObserved",
    ),
    (
        "podReady",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {generation: 1, name: test, namespace: qual}
        status:
          conditions: [{type: Ready, status: "True"}]
          phase: Running
        "#,
        Current,
        Exact("Pod is Ready"),
        "",
    ),
    (
        "podCompletedSuccessfully",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {generation: 1, name: test, namespace: qual}
        status:
          phase: Succeeded
          conditions: [{type: Ready, status: "False", reason: PodCompleted}]
        "#,
        Current,
        Exact("Pod has completed successfully"),
        "",
    ),
    (
        "podCompletedFailed",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {generation: 1, name: test, namespace: qual}
        status:
          phase: Failed
          conditions: [{type: Ready, status: "False", reason: PodCompleted}]
        "#,
        Current,
        Exact("Pod has completed, but not successfully"),
        "",
    ),
    (
        "running Pod that is not Ready",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {name: test}
        status:
          phase: Running
          conditions: [{type: Ready, status: "False", reason: ContainersNotReady}]
          containerStatuses: [{name: web, state: {running: {startedAt: "2024-05-01T11:00:00Z"}}}]
        "#,
        InProgress,
        Exact("Pod is running but is not Ready"),
        "PodRunningNotReady",
    ),
    (
        "podCrashLooping",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {generation: 1, name: test, namespace: qual}
        status:
          phase: Running
          conditions: [{type: PodScheduled, status: "False", reason: Unschedulable}]
          containerStatuses:
          - name: nginx
            state: {waiting: {reason: CrashLoopBackOff}}
        "#,
        Failed,
        Exact("Containers in CrashLoop state: nginx"),
        "ContainerCrashLooping",
    ),
    (
        "crash-looping containers are listed in order",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {name: test}
        status:
          phase: Running
          containerStatuses:
          - {name: a, state: {waiting: {reason: CrashLoopBackOff, message: back-off 5m0s}}}
          - {name: c, state: {running: {}}}
          - {name: b, state: {waiting: {reason: CrashLoopBackOff}}}
        "#,
        Failed,
        Exact("Containers in CrashLoop state: a,b"),
        "ContainerCrashLooping",
    ),
    (
        "ImagePullBackOff is not a failure",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {name: test}
        status:
          phase: Running
          containerStatuses: [{name: web, state: {waiting: {reason: ImagePullBackOff}}}]
        "#,
        InProgress,
        Exact("Pod is running but is not Ready"),
        "PodRunningNotReady",
    ),
    (
        "Ready wins over a crash-looping container",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {name: test}
        status:
          phase: Running
          conditions: [{type: Ready, status: "True"}]
          containerStatuses: [{name: web, state: {waiting: {reason: CrashLoopBackOff}}}]
        "#,
        Current,
        Exact("Pod is Ready"),
        "",
    ),
    (
        "container statuses without name, state, waiting or reason are skipped",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {name: test}
        status:
          phase: Running
          containerStatuses:
          - {state: {waiting: {reason: CrashLoopBackOff}}}
          - {name: a}
          - {name: b, state: {terminated: {}}}
          - {name: c, state: {waiting: {}}}
        "#,
        InProgress,
        Exact("Pod is running but is not Ready"),
        "PodRunningNotReady",
    ),
    (
        "container statuses that are not a list are an error",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {name: test}
        status: {phase: Running, containerStatuses: web}
        "#,
        Unknown,
        Exact(".status.containerStatuses accessor error: web is of the type string, expected []interface{}"),
        "",
    ),
    (
        "a container status that is not a map is an error (Go panics)",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {name: test}
        status: {phase: Running, containerStatuses: [web]}
        "#,
        Unknown,
        Exact(
            ".status.containerStatuses[0] accessor error: web is of the type string, \
             expected map[string]interface{}",
        ),
        "",
    ),
    (
        "a container name that is not a string is an error (Go panics)",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {name: test}
        status:
          phase: Running
          containerStatuses: [{name: a, state: {}}, {name: 7, state: {}}]
        "#,
        Unknown,
        Exact(".status.containerStatuses[1].name accessor error: 7 is of the type int64, expected string"),
        "",
    ),
    (
        "a waiting state that is not a map is an error (Go panics)",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {name: test}
        status:
          phase: Running
          containerStatuses: [{name: a, state: {waiting: CrashLoopBackOff}}]
        "#,
        Unknown,
        Contains(".status.containerStatuses[0].state.waiting accessor error: CrashLoopBackOff is of the type"),
        "",
    ),
    (
        "container statuses are not read unless the Pod is running and not Ready",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {name: test}
        status: {phase: Succeeded, containerStatuses: broken}
        "#,
        Current,
        Exact("Pod has completed successfully"),
        "",
    ),
    (
        "podBeingScheduled: Unschedulable 10s after creation is within the window",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {creationTimestamp: "2024-05-01T11:59:50Z", generation: 1, name: test, namespace: qual}
        status:
          phase: Pending
          conditions: [{type: PodScheduled, status: "False", reason: Unschedulable}]
        "#,
        InProgress,
        Exact("Pod has not been scheduled"),
        "PodNotScheduled",
    ),
    (
        "Unschedulable 14.5s after creation is within the window",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {creationTimestamp: "2024-05-01T11:59:45.5Z", name: test}
        status:
          phase: Pending
          conditions: [{type: PodScheduled, status: "False", reason: Unschedulable}]
        "#,
        InProgress,
        Exact("Pod has not been scheduled"),
        "PodNotScheduled",
    ),
    (
        "Unschedulable exactly 15s after creation is Failed",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {creationTimestamp: "2024-05-01T11:59:45Z", name: test}
        status:
          phase: Pending
          conditions: [{type: PodScheduled, status: "False", reason: Unschedulable}]
        "#,
        Failed,
        Exact("Pod could not be scheduled"),
        "PodUnschedulable",
    ),
    (
        "Unschedulable 16s after creation is Failed",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {creationTimestamp: "2024-05-01T11:59:44Z", name: test}
        status:
          phase: Pending
          conditions: [{type: PodScheduled, status: "False", reason: Unschedulable, message: 0/3 nodes are available}]
        "#,
        Failed,
        Exact("Pod could not be scheduled"),
        "PodUnschedulable",
    ),
    (
        "creation time with an offset is compared as an instant",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {creationTimestamp: "2024-05-01T13:59:50+02:00", name: test}
        status:
          phase: Pending
          conditions: [{type: PodScheduled, status: "False", reason: Unschedulable}]
        "#,
        InProgress,
        Exact("Pod has not been scheduled"),
        "PodNotScheduled",
    ),
    (
        "creation time in the future is within the window",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {creationTimestamp: "2024-05-01T12:05:00Z", name: test}
        status:
          phase: Pending
          conditions: [{type: PodScheduled, status: "False", reason: Unschedulable}]
        "#,
        InProgress,
        Exact("Pod has not been scheduled"),
        "PodNotScheduled",
    ),
    (
        "podUnschedulable: no creation time is Go's zero time, so no grace",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {generation: 1, name: test, namespace: qual}
        status:
          phase: Pending
          conditions: [{type: PodScheduled, status: "False", reason: Unschedulable}]
        "#,
        Failed,
        Exact("Pod could not be scheduled"),
        "PodUnschedulable",
    ),
    (
        "unparsable creation time is Go's zero time",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {creationTimestamp: yesterday, name: test}
        status:
          phase: Pending
          conditions: [{type: PodScheduled, status: "False", reason: Unschedulable}]
        "#,
        Failed,
        Exact("Pod could not be scheduled"),
        "PodUnschedulable",
    ),
    (
        "creation time that is not RFC 3339 is Go's zero time",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {creationTimestamp: "2024-05-01 11:59:50Z", name: test}
        status:
          phase: Pending
          conditions: [{type: PodScheduled, status: "False", reason: Unschedulable}]
        "#,
        Failed,
        Exact("Pod could not be scheduled"),
        "PodUnschedulable",
    ),
    (
        "creation time with a leap second is Go's zero time",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {creationTimestamp: "2024-05-01T11:59:60Z", name: test}
        status:
          phase: Pending
          conditions: [{type: PodScheduled, status: "False", reason: Unschedulable}]
        "#,
        Failed,
        Exact("Pod could not be scheduled"),
        "PodUnschedulable",
    ),
    (
        "creation time of the wrong type is Go's zero time",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {creationTimestamp: 1714564790, name: test}
        status:
          phase: Pending
          conditions: [{type: PodScheduled, status: "False", reason: Unschedulable}]
        "#,
        Failed,
        Exact("Pod could not be scheduled"),
        "PodUnschedulable",
    ),
    (
        "pending Pod not scheduled for another reason",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {creationTimestamp: "2024-05-01T11:00:00Z", name: test}
        status:
          phase: Pending
          conditions: [{type: PodScheduled, status: "False", reason: SchedulerError}]
        "#,
        InProgress,
        Exact("Pod is in the Pending phase"),
        "PodPending",
    ),
    (
        "only the first PodScheduled=False condition is read",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {name: test}
        status:
          phase: Pending
          conditions:
          - {type: PodScheduled, status: "False", reason: Other}
          - {type: PodScheduled, status: "False", reason: Unschedulable}
        "#,
        InProgress,
        Exact("Pod is in the Pending phase"),
        "PodPending",
    ),
    (
        "pending Pod pulling images",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {name: test}
        status:
          phase: Pending
          conditions: [{type: PodScheduled, status: "True"}]
          containerStatuses: [{name: web, state: {waiting: {reason: ErrImagePull}}}]
        "#,
        InProgress,
        Exact("Pod is in the Pending phase"),
        "PodPending",
    ),
    (
        "an unknown Pod phase is an error",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {name: test}
        status: {phase: Exploded}
        "#,
        Unknown,
        Exact("unknown phase Exploded"),
        "",
    ),
    (
        "a Pod phase of the wrong type is no phase",
        r#"
        apiVersion: v1
        kind: Pod
        metadata: {name: test}
        status: {phase: 3}
        "#,
        InProgress,
        Exact("Pod phase not available"),
        "PodNotObserved",
    ),
    // --- PersistentVolumeClaim ------------------------------------------------------------------------------
    (
        "pvcNoStatus",
        r#"
        apiVersion: v1
        kind: PersistentVolumeClaim
        metadata: {generation: 1, name: test}
        "#,
        InProgress,
        Exact("PVC is not Bound. phase: unknown"),
        "NotBound",
    ),
    (
        "pending PVC",
        r#"
        apiVersion: v1
        kind: PersistentVolumeClaim
        metadata: {name: test}
        status: {phase: Pending}
        "#,
        InProgress,
        Exact("PVC is not Bound. phase: Pending"),
        "NotBound",
    ),
    (
        "pvcBound",
        r#"
        apiVersion: v1
        kind: PersistentVolumeClaim
        metadata: {generation: 1, name: test, namespace: qual}
        status: {phase: Bound}
        "#,
        Current,
        Exact("PVC is Bound"),
        "",
    ),
    // --- Always ready ---------------------------------------------------------------------------------
    (
        "Secret",
        r#"
        apiVersion: v1
        kind: Secret
        metadata: {name: test}
        type: Opaque
        "#,
        Current,
        Exact("Resource is always ready"),
        "",
    ),
    (
        "ConfigMap",
        r#"
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: test}
        data: {a: b}
        "#,
        Current,
        Exact("Resource is always ready"),
        "",
    ),
    (
        "cronjobNoStatus",
        r#"
        apiVersion: batch/v1
        kind: CronJob
        metadata: {name: test, namespace: qual, generation: 1}
        "#,
        Current,
        Exact("Resource is always ready"),
        "",
    ),
    (
        "batch/v1beta1 CronJob",
        r#"
        apiVersion: batch/v1beta1
        kind: CronJob
        metadata: {name: test}
        status: {active: [{name: run-1}]}
        "#,
        Current,
        Exact("Resource is always ready"),
        "",
    ),
    // --- StatefulSet ------------------------------------------------------------------------------------------
    (
        "stsNoStatus",
        r#"
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {generation: 1, name: test}
        "#,
        InProgress,
        Exact("Replicas: 0/1"),
        "LessReplicas",
    ),
    (
        "stsBadStatus",
        r#"
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {generation: 1, name: test, namespace: qual}
        status: {observedGeneration: 1, currentReplicas: 1}
        "#,
        InProgress,
        Exact("Replicas: 0/1"),
        "LessReplicas",
    ),
    (
        "stsOK",
        r#"
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {generation: 1, name: test, namespace: qual}
        spec: {replicas: 4}
        status: {observedGeneration: 1, currentReplicas: 4, readyReplicas: 4, replicas: 4}
        "#,
        Current,
        Exact("All replicas scheduled as expected. Replicas: 4"),
        "",
    ),
    (
        "stsLessReady",
        r#"
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {generation: 1, name: test, namespace: qual}
        spec: {replicas: 4}
        status: {observedGeneration: 1, currentReplicas: 4, readyReplicas: 2, replicas: 4}
        "#,
        InProgress,
        Exact("Ready: 2/4"),
        "LessReady",
    ),
    (
        "stsLessCurrent",
        r#"
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {generation: 1, name: test, namespace: qual}
        spec: {replicas: 4}
        status: {observedGeneration: 1, currentReplicas: 2, readyReplicas: 4, replicas: 4}
        "#,
        InProgress,
        Exact("current: 2/4"),
        "LessCurrent",
    ),
    (
        "stsExtraPods",
        r#"
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {generation: 1, name: test, namespace: qual}
        spec: {replicas: 4}
        status: {observedGeneration: 1, currentReplicas: 4, readyReplicas: 4, replicas: 8}
        "#,
        InProgress,
        Exact("Pending termination: 4"),
        "ExtraPods",
    ),
    (
        "StatefulSet with the OnDelete strategy is current",
        r#"
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: test}
        spec: {replicas: 3, updateStrategy: {type: OnDelete}}
        "#,
        Current,
        Exact("StatefulSet is using the ondelete update strategy"),
        "",
    ),
    (
        "StatefulSet partition rollout in progress",
        r#"
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: test}
        spec: {replicas: 4, updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 2}}}
        status: {replicas: 4, readyReplicas: 4, currentReplicas: 3, updatedReplicas: 1}
        "#,
        InProgress,
        Exact("updated: 1/2"),
        "PartitionRollout",
    ),
    (
        "StatefulSet partition rollout complete ignores revisions",
        r#"
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: test}
        spec: {replicas: 4, updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 2}}}
        status: {replicas: 4, readyReplicas: 4, currentReplicas: 2, updatedReplicas: 2, currentRevision: a, updateRevision: b}
        "#,
        Current,
        Exact("Partition rollout complete. updated: 2"),
        "",
    ),
    (
        "StatefulSet revisions differ",
        r#"
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: test}
        spec: {replicas: 2}
        status: {replicas: 2, readyReplicas: 2, currentReplicas: 2, updatedReplicas: 2, currentRevision: db-1, updateRevision: db-2}
        "#,
        InProgress,
        Exact("Waiting for updated revision to match current"),
        "RevisionMismatch",
    ),
    (
        "StatefulSet revisions match",
        r#"
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: test, generation: 3}
        spec: {replicas: 2}
        status: {observedGeneration: 3, replicas: 2, readyReplicas: 2, currentReplicas: 2, currentRevision: db-2, updateRevision: db-2}
        "#,
        Current,
        Exact("All replicas scheduled as expected. Replicas: 2"),
        "",
    ),
    (
        "StatefulSet scaled to zero",
        r#"
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: test}
        spec: {replicas: 0}
        "#,
        Current,
        Exact("All replicas scheduled as expected. Replicas: 0"),
        "",
    ),
    (
        "StatefulSet replicas of the wrong type take the default",
        r#"
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: test}
        spec: {replicas: "3"}
        status: {replicas: 1.0}
        "#,
        InProgress,
        Exact("Replicas: 0/1"),
        "LessReplicas",
    ),
    (
        "apps/v1beta1 StatefulSet",
        r#"
        apiVersion: apps/v1beta1
        kind: StatefulSet
        metadata: {name: test}
        spec: {replicas: 3}
        status: {replicas: 1}
        "#,
        InProgress,
        Exact("Replicas: 1/3"),
        "LessReplicas",
    ),
    (
        "apps/v1beta2 StatefulSet",
        r#"
        apiVersion: apps/v1beta2
        kind: StatefulSet
        metadata: {name: test}
        spec: {replicas: 3}
        status: {replicas: 3, readyReplicas: 1}
        "#,
        InProgress,
        Exact("Ready: 1/3"),
        "LessReady",
    ),
    // --- DaemonSet --------------------------------------------------------------------------------------------
    (
        "dsNoStatus",
        r#"
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: test, generation: 1}
        "#,
        InProgress,
        Exact("DaemonSet status.observedGeneration not found"),
        "NoObservedGeneration",
    ),
    (
        "DaemonSet without generation",
        r#"
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: test}
        status: {observedGeneration: 1, desiredNumberScheduled: 1}
        "#,
        InProgress,
        Exact("DaemonSet metadata.generation not found"),
        "NoGeneration",
    ),
    (
        "dsBadStatus",
        r#"
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: test, namespace: qual, generation: 1}
        status: {observedGeneration: 1, currentReplicas: 1}
        "#,
        InProgress,
        Exact("Missing .status.desiredNumberScheduled"),
        "NoDesiredNumber",
    ),
    (
        "dsOK",
        r#"
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: test, namespace: qual, generation: 1}
        status:
          desiredNumberScheduled: 4
          currentNumberScheduled: 4
          updatedNumberScheduled: 4
          numberAvailable: 4
          numberReady: 4
          observedGeneration: 1
        "#,
        Current,
        Exact("All replicas scheduled as expected. Replicas: 4"),
        "",
    ),
    (
        "dsDifferentGeneration",
        r#"
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: test, namespace: qual, generation: 2}
        status:
          desiredNumberScheduled: 4
          currentNumberScheduled: 4
          updatedNumberScheduled: 4
          numberAvailable: 4
          numberReady: 4
          observedGeneration: 1
        "#,
        InProgress,
        Exact("DaemonSet generation is 2, but latest observed generation is 1"),
        "LatestGenerationNotObserved",
    ),
    (
        "DaemonSet with fewer current",
        r#"
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: test, generation: 1}
        status:
          observedGeneration: 1
          desiredNumberScheduled: 4
          currentNumberScheduled: 2
          updatedNumberScheduled: 4
          numberAvailable: 4
          numberReady: 4
        "#,
        InProgress,
        Exact("Current: 2/4"),
        "LessCurrent",
    ),
    (
        "DaemonSet with fewer updated",
        r#"
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: test, generation: 1}
        status:
          observedGeneration: 1
          desiredNumberScheduled: 4
          currentNumberScheduled: 4
          updatedNumberScheduled: 3
          numberAvailable: 4
          numberReady: 4
        "#,
        InProgress,
        Exact("Updated: 3/4"),
        "LessUpdated",
    ),
    (
        "dsLessAvailable",
        r#"
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: test, namespace: qual, generation: 1}
        status:
          observedGeneration: 1
          desiredNumberScheduled: 4
          currentNumberScheduled: 4
          updatedNumberScheduled: 4
          numberAvailable: 2
          numberReady: 4
        "#,
        InProgress,
        Exact("Available: 2/4"),
        "LessAvailable",
    ),
    (
        "dsLessReady",
        r#"
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: test, namespace: qual, generation: 1}
        status:
          observedGeneration: 1
          desiredNumberScheduled: 4
          currentNumberScheduled: 4
          updatedNumberScheduled: 4
          numberAvailable: 4
          numberReady: 2
        "#,
        InProgress,
        Exact("Ready: 2/4"),
        "LessReady",
    ),
    (
        "DaemonSet scheduled nowhere is current",
        r#"
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: test, generation: 1}
        status: {observedGeneration: 1, desiredNumberScheduled: 0}
        "#,
        Current,
        Exact("All replicas scheduled as expected. Replicas: 0"),
        "",
    ),
    (
        "extensions/v1beta1 DaemonSet",
        r#"
        apiVersion: extensions/v1beta1
        kind: DaemonSet
        metadata: {name: test, generation: 1}
        "#,
        InProgress,
        Exact("DaemonSet status.observedGeneration not found"),
        "NoObservedGeneration",
    ),
    (
        "apps/v1beta2 DaemonSet",
        r#"
        apiVersion: apps/v1beta2
        kind: DaemonSet
        metadata: {name: test, generation: 1}
        status: {observedGeneration: 1, desiredNumberScheduled: 2, currentNumberScheduled: 1}
        "#,
        InProgress,
        Exact("Current: 1/2"),
        "LessCurrent",
    ),
    // --- Deployment -------------------------------------------------------------------------------------------
    (
        "depNoStatus",
        r#"
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: test, generation: 1}
        "#,
        InProgress,
        Exact("Replicas: 0/1"),
        "LessReplicas",
    ),
    (
        "depOK",
        r#"
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: test, generation: 1, namespace: qual}
        status:
          observedGeneration: 1
          updatedReplicas: 1
          readyReplicas: 1
          availableReplicas: 1
          replicas: 1
          conditions:
          - {type: Progressing, status: "True", reason: NewReplicaSetAvailable}
          - {type: Available, status: "True"}
        "#,
        Current,
        Exact("Deployment is available. Replicas: 1"),
        "",
    ),
    (
        "depNotProgressing",
        r#"
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: test, generation: 1, namespace: qual}
        spec: {progressDeadlineSeconds: 45}
        status:
          observedGeneration: 1
          updatedReplicas: 1
          readyReplicas: 1
          availableReplicas: 1
          replicas: 1
          conditions:
          - {type: Progressing, status: "False", reason: Some reason}
          - {type: Available, status: "True"}
        "#,
        InProgress,
        Exact("ReplicaSet not Available"),
        "ReplicaSetNotAvailable",
    ),
    (
        "depNoProgressDeadlineSeconds",
        r#"
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: test, generation: 1, namespace: qual}
        status:
          observedGeneration: 1
          updatedReplicas: 1
          readyReplicas: 1
          availableReplicas: 1
          replicas: 1
          conditions: [{type: Available, status: "True"}]
        "#,
        Current,
        Exact("Deployment is available. Replicas: 1"),
        "",
    ),
    (
        "progress deadline of MaxInt32 means no deadline",
        r#"
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: test}
        spec: {replicas: 2, progressDeadlineSeconds: 2147483647}
        status:
          updatedReplicas: 2
          readyReplicas: 2
          availableReplicas: 2
          replicas: 2
          conditions: [{type: Available, status: "True"}]
        "#,
        Current,
        Exact("Deployment is available. Replicas: 2"),
        "",
    ),
    (
        "depNotAvailable",
        r#"
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: test, generation: 1, namespace: qual}
        status:
          observedGeneration: 1
          updatedReplicas: 1
          readyReplicas: 1
          availableReplicas: 1
          replicas: 1
          conditions:
          - {type: Progressing, status: "True", reason: NewReplicaSetAvailable}
          - {type: Available, status: "False"}
        "#,
        InProgress,
        Exact("Deployment not Available"),
        "DeploymentNotAvailable",
    ),
    (
        "Deployment past its progress deadline is Failed",
        r#"
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: test}
        spec: {replicas: 3, progressDeadlineSeconds: 600}
        status:
          replicas: 3
          updatedReplicas: 1
          conditions:
          - {type: Available, status: "True"}
          - {type: Progressing, status: "False", reason: ProgressDeadlineExceeded, message: 'ReplicaSet "web-1" has timed out progressing.'}
        "#,
        Failed,
        Exact("Progress deadline exceeded"),
        "ProgressDeadlineExceeded",
    ),
    (
        "Deployment with fewer replicas",
        r#"
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: test}
        spec: {replicas: 3}
        status: {replicas: 1, updatedReplicas: 1}
        "#,
        InProgress,
        Exact("Replicas: 1/3"),
        "LessReplicas",
    ),
    (
        "Deployment with fewer updated",
        r#"
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: test}
        spec: {replicas: 3}
        status: {replicas: 3, updatedReplicas: 1, readyReplicas: 3, availableReplicas: 3}
        "#,
        InProgress,
        Exact("Updated: 1/3"),
        "LessUpdated",
    ),
    (
        "Deployment with old pods terminating",
        r#"
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: test}
        spec: {replicas: 3}
        status: {replicas: 4, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3}
        "#,
        InProgress,
        Exact("Pending termination: 1"),
        "ExtraPods",
    ),
    (
        "Deployment with fewer available",
        r#"
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: test}
        spec: {replicas: 3}
        status: {replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 2}
        "#,
        InProgress,
        Exact("Available: 2/3"),
        "LessAvailable",
    ),
    (
        "Deployment with fewer ready",
        r#"
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: test}
        spec: {replicas: 3}
        status: {replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 3}
        "#,
        InProgress,
        Exact("Ready: 2/3"),
        "LessReady",
    ),
    (
        "extensions/v1beta1 Deployment",
        r#"
        apiVersion: extensions/v1beta1
        kind: Deployment
        metadata: {name: test}
        spec: {replicas: 2}
        status:
          replicas: 2
          updatedReplicas: 2
          readyReplicas: 2
          availableReplicas: 2
          conditions: [{type: Available, status: "True"}]
        "#,
        Current,
        Exact("Deployment is available. Replicas: 2"),
        "",
    ),
    (
        "apps/v1beta1 Deployment",
        r#"
        apiVersion: apps/v1beta1
        kind: Deployment
        metadata: {name: test}
        "#,
        InProgress,
        Exact("Replicas: 0/1"),
        "LessReplicas",
    ),
    (
        "apps/v1beta2 Deployment",
        r#"
        apiVersion: apps/v1beta2
        kind: Deployment
        metadata: {name: test}
        spec: {replicas: 1}
        status: {replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1}
        "#,
        InProgress,
        Exact("Deployment not Available"),
        "DeploymentNotAvailable",
    ),
    // --- ReplicaSet -------------------------------------------------------------------------------------------
    (
        "rsNoStatus",
        r#"
        apiVersion: apps/v1
        kind: ReplicaSet
        metadata: {name: test, generation: 1}
        "#,
        InProgress,
        Exact("Labelled: 0/1"),
        "LessLabelled",
    ),
    (
        "rsOK1",
        r#"
        apiVersion: apps/v1
        kind: ReplicaSet
        metadata: {name: test, namespace: qual, generation: 1}
        spec: {replicas: 2}
        status:
          observedGeneration: 1
          replicas: 2
          readyReplicas: 2
          availableReplicas: 2
          fullyLabeledReplicas: 2
          conditions: [{type: ReplicaFailure, status: "False"}]
        "#,
        Current,
        Exact("ReplicaSet is available. Replicas: 2"),
        "",
    ),
    (
        "rsOK2",
        r#"
        apiVersion: apps/v1
        kind: ReplicaSet
        metadata: {name: test, namespace: qual, generation: 1}
        spec: {replicas: 2}
        status: {observedGeneration: 1, fullyLabeledReplicas: 2, replicas: 2, readyReplicas: 2, availableReplicas: 2}
        "#,
        Current,
        Exact("ReplicaSet is available. Replicas: 2"),
        "",
    ),
    (
        "rsLessAvailable",
        r#"
        apiVersion: apps/v1
        kind: ReplicaSet
        metadata: {name: test, namespace: qual, generation: 1}
        spec: {replicas: 4}
        status: {observedGeneration: 1, replicas: 4, readyReplicas: 4, availableReplicas: 2, fullyLabeledReplicas: 4}
        "#,
        InProgress,
        Exact("Available: 2/4"),
        "LessAvailable",
    ),
    (
        "rsLessReady",
        r#"
        apiVersion: apps/v1
        kind: ReplicaSet
        metadata: {name: test, namespace: qual, generation: 1}
        spec: {replicas: 4}
        status: {observedGeneration: 1, replicas: 4, readyReplicas: 2, availableReplicas: 4, fullyLabeledReplicas: 4}
        "#,
        InProgress,
        Exact("Ready: 2/4"),
        "LessReady",
    ),
    (
        "rsReplicaFailure",
        r#"
        apiVersion: apps/v1
        kind: ReplicaSet
        metadata: {name: test, namespace: qual, generation: 1}
        spec: {replicas: 4}
        status:
          observedGeneration: 1
          replicas: 4
          readyReplicas: 4
          fullyLabeledReplicas: 4
          availableReplicas: 4
          conditions: [{type: ReplicaFailure, status: "True", reason: FailedCreate}]
        "#,
        InProgress,
        Exact("Replica Failure condition. Check Pods"),
        "ReplicaFailure",
    ),
    (
        "ReplicaSet with extra pods",
        r#"
        apiVersion: apps/v1
        kind: ReplicaSet
        metadata: {name: test}
        spec: {replicas: 1}
        status: {replicas: 3, readyReplicas: 1, availableReplicas: 1, fullyLabeledReplicas: 1}
        "#,
        InProgress,
        Exact("Pending termination: 2"),
        "ExtraPods",
    ),
    (
        "extensions/v1beta1 ReplicaSet",
        r#"
        apiVersion: extensions/v1beta1
        kind: ReplicaSet
        metadata: {name: test}
        spec: {replicas: 2}
        status: {replicas: 2, fullyLabeledReplicas: 1}
        "#,
        InProgress,
        Exact("Labelled: 1/2"),
        "LessLabelled",
    ),
    (
        "apps/v1beta2 ReplicaSet",
        r#"
        apiVersion: apps/v1beta2
        kind: ReplicaSet
        metadata: {name: test}
        spec: {replicas: 0}
        "#,
        Current,
        Exact("ReplicaSet is available. Replicas: 0"),
        "",
    ),
    // --- PodDisruptionBudget ----------------------------------------------------------------------------------
    (
        "pdbNotObserved",
        r#"
        apiVersion: policy/v1beta1
        kind: PodDisruptionBudget
        metadata: {generation: 2, name: test, namespace: qual}
        status: {observedGeneration: 1}
        "#,
        InProgress,
        Exact("PodDisruptionBudget generation is 2, but latest observed generation is 1"),
        "LatestGenerationNotObserved",
    ),
    (
        "pdbObserved",
        r#"
        apiVersion: policy/v1beta1
        kind: PodDisruptionBudget
        metadata: {generation: 1, name: test, namespace: qual}
        status: {observedGeneration: 1}
        "#,
        Current,
        Exact("AllowedDisruptions has been computed."),
        "",
    ),
    (
        "policy/v1 PodDisruptionBudget",
        r#"
        apiVersion: policy/v1
        kind: PodDisruptionBudget
        metadata: {name: test}
        spec: {minAvailable: 1}
        "#,
        Current,
        Exact("AllowedDisruptions has been computed."),
        "",
    ),
    // --- Job --------------------------------------------------------------------------------------------------
    (
        "jobNoStatus",
        r#"
        apiVersion: batch/v1
        kind: Job
        metadata: {name: test, namespace: qual, generation: 1}
        "#,
        InProgress,
        Exact("Job not started"),
        "JobNotStarted",
    ),
    (
        "jobComplete",
        r#"
        apiVersion: batch/v1
        kind: Job
        metadata: {name: test, namespace: qual, generation: 1}
        status:
          succeeded: 1
          active: 0
          conditions: [{type: Complete, status: "True"}]
        "#,
        Current,
        Exact("Job Completed. succeeded: 1/1"),
        "",
    ),
    (
        "jobFailed",
        r#"
        apiVersion: batch/v1
        kind: Job
        metadata: {name: test, namespace: qual, generation: 1}
        spec: {completions: 4}
        status:
          succeeded: 3
          failed: 1
          conditions: [{type: Failed, status: "True", reason: JobFailed}]
        "#,
        Failed,
        Exact("Job Failed. failed: 1/4"),
        "JobFailed",
    ),
    (
        "jobInProgress",
        r#"
        apiVersion: batch/v1
        kind: Job
        metadata: {name: test, namespace: qual, generation: 1}
        spec: {completions: 10, parallelism: 2}
        status:
          startTime: "2019-06-04T01:17:13Z"
          succeeded: 3
          failed: 1
          active: 2
          conditions:
          - {type: Failed, status: "False"}
          - {type: Complete, status: "False"}
        "#,
        Current,
        Exact("Job in progress. success:3, active: 2, failed: 1"),
        "",
    ),
    (
        "Job completions default to parallelism",
        r#"
        apiVersion: batch/v1
        kind: Job
        metadata: {name: test}
        spec: {parallelism: 3}
        status:
          succeeded: 3
          conditions: [{type: Complete, status: "True"}]
        "#,
        Current,
        Exact("Job Completed. succeeded: 3/3"),
        "",
    ),
    (
        "the first of Failed and Complete decides",
        r#"
        apiVersion: batch/v1
        kind: Job
        metadata: {name: test}
        status:
          succeeded: 1
          failed: 2
          conditions:
          - {type: Failed, status: "True", reason: BackoffLimitExceeded}
          - {type: Complete, status: "True"}
        "#,
        Failed,
        Exact("Job Failed. failed: 2/1"),
        "JobFailed",
    ),
    (
        "TestSuspendedJobConditions",
        r#"
        apiVersion: batch/v1
        kind: Job
        metadata: {name: test, generation: 1, namespace: qual}
        spec: {suspend: true}
        status:
          conditions: [{type: Suspended, status: "True"}]
        "#,
        Current,
        Exact("Job is suspended"),
        "",
    ),
    (
        "TestPreviouslySuspendedJobConditions",
        r#"
        apiVersion: batch/v1
        kind: Job
        metadata: {name: test, generation: 1, namespace: qual}
        spec: {suspend: false}
        status:
          conditions: [{type: Suspended, status: "False"}]
        "#,
        InProgress,
        Exact("Job not started"),
        "JobNotStarted",
    ),
    (
        "TestSuspendedJobTransitionConditions: to suspended",
        r#"
        apiVersion: batch/v1
        kind: Job
        metadata: {name: test, generation: 1, namespace: qual}
        spec: {suspend: true}
        status:
          conditions: [{type: Suspended, status: "False"}]
        "#,
        InProgress,
        Exact("Job not started"),
        "JobNotStarted",
    ),
    (
        "TestSuspendedJobTransitionConditions: from suspended",
        r#"
        apiVersion: batch/v1
        kind: Job
        metadata: {name: test, generation: 1, namespace: qual}
        spec: {suspend: false}
        status:
          conditions: [{type: Suspended, status: "True"}]
        "#,
        InProgress,
        Exact("Job not started"),
        "JobNotStarted",
    ),
    (
        "Job suspend of the wrong type is not suspended",
        r#"
        apiVersion: batch/v1
        kind: Job
        metadata: {name: test}
        spec: {suspend: "true"}
        status:
          startTime: "2024-05-01T11:00:00Z"
          active: 1
          conditions: [{type: Suspended, status: "True"}]
        "#,
        Current,
        Exact("Job in progress. success:0, active: 1, failed: 0"),
        "",
    ),
    // --- CustomResourceDefinition -----------------------------------------------------------------------------
    (
        "crdNoConditions",
        r#"
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {generation: 1}
        "#,
        InProgress,
        Exact("Install in progress"),
        "Installing",
    ),
    (
        "crdInstalling",
        r#"
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {generation: 1}
        status:
          conditions:
          - {type: NamesAccepted, status: "True", reason: NoConflicts}
          - {type: Established, status: "False", reason: Installing}
        "#,
        InProgress,
        Exact("Install in progress"),
        "Installing",
    ),
    (
        "crdNamesNotAccepted",
        r#"
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {generation: 1}
        status:
          conditions:
          - {type: NamesAccepted, status: "False", reason: SomeReason, message: '"widgets" is already in use'}
        "#,
        Failed,
        Exact("\"widgets\" is already in use"),
        "SomeReason",
    ),
    (
        "CRD not established for a reason other than installing",
        r#"
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: widgets.example.com}
        status:
          conditions:
          - {type: NamesAccepted, status: "True", reason: NoConflicts}
          - {type: Established, status: "False", reason: NotAccepted, message: not all names are accepted}
        "#,
        Failed,
        Exact("not all names are accepted"),
        "NotAccepted",
    ),
    (
        "crdEstablished",
        r#"
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {generation: 1}
        status:
          conditions:
          - {type: NamesAccepted, status: "True", reason: NoConflicts}
          - {type: Established, status: "True", reason: InitialNamesAccepted}
        "#,
        Current,
        Exact("CRD is established"),
        "",
    ),
    (
        "the first decisive CRD condition wins",
        r#"
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: widgets.example.com}
        status:
          conditions:
          - {type: Established, status: "True", reason: InitialNamesAccepted}
          - {type: NamesAccepted, status: "False", reason: Conflict}
        "#,
        Current,
        Exact("CRD is established"),
        "",
    ),
    (
        "CRD with unrelated conditions is installing",
        r#"
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: widgets.example.com}
        status:
          conditions:
          - {type: NamesAccepted, status: "True", reason: NoConflicts}
          - {type: Ready, status: "True"}
        "#,
        InProgress,
        Exact("Install in progress"),
        "Installing",
    ),
    (
        "apiextensions.k8s.io/v1beta1 CustomResourceDefinition",
        r#"
        apiVersion: apiextensions.k8s.io/v1beta1
        kind: CustomResourceDefinition
        metadata: {name: widgets.example.com}
        status:
          conditions: [{type: Established, status: "True"}]
        "#,
        Current,
        Exact("CRD is established"),
        "",
    ),
];

fn now() -> Timestamp {
    NOW.parse().expect("NOW is RFC 3339")
}

fn parse(name: &str, yaml: &str) -> Value {
    serde_saphyr::from_str::<Value>(yaml).unwrap_or_else(|error| panic!("case `{name}`: bad YAML: {error}"))
}

/// Every case, all failures reported at once.
#[test]
fn kstatus_rules() {
    let now = now();
    let mut failures = Vec::new();
    for &(name, yaml, status, message, reason) in CASES {
        let object = parse(name, yaml);
        let result = compute_or_unknown(&object, now);
        let message_matches = match message {
            Exact(expected) => result.message == expected,
            Contains(fragment) => result.message.contains(fragment),
        };
        if result.status != status || !message_matches || result.reason != reason {
            failures.push(format!(
                "{name}:\n    expected {status} {message:?} reason {reason:?}\n    got      {} {:?} reason {:?}",
                result.status, result.message, result.reason
            ));
        }
        // Unknown comes from an error and only from one: `compute` and `compute_or_unknown` agree.
        match compute(&object, now) {
            Err(error) if status == Unknown => assert_eq!(error.to_string(), result.message, "{name}"),
            Ok(computed) if status != Unknown => assert_eq!(computed, result, "{name}"),
            other => failures.push(format!("{name}: compute returned {other:?}")),
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), CASES.len(), failures.join("\n"));
}

#[test]
fn table_is_large_and_names_are_unique() {
    assert!(CASES.len() >= 90, "only {} cases", CASES.len());
    let mut names: Vec<&str> = CASES.iter().map(|case| case.0).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(before, names.len(), "duplicate case names");
}

#[test]
fn compute_or_unknown_carries_the_error_text() {
    let object = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "status": {"phase": "Gone"}});
    assert_eq!(
        compute_or_unknown(&object, now()),
        StatusResult { status: Unknown, message: "unknown phase Gone".to_string(), reason: String::new() }
    );
    assert_eq!(compute(&object, now()).map_err(|error| error.0), Err("unknown phase Gone".to_string()));
}

#[test]
fn scalars_at_the_top_are_errors() {
    for (object, text) in [
        (json!(null), "object accessor error: <nil> is of the type <nil>, expected map[string]interface{}"),
        (json!("Pod"), "object accessor error: Pod is of the type string, expected map[string]interface{}"),
        (json!(2.5), "object accessor error: 2.5 is of the type float64, expected map[string]interface{}"),
    ] {
        assert_eq!(compute_or_unknown(&object, now()).message, text);
    }
}

/// Go's `%v` of a float64, which error messages quote.
#[test]
fn go_float_formatting() {
    for (number, text) in [
        (1.5, "1.5"),
        (1.0, "1"),
        (-2.25, "-2.25"),
        (100_000.0, "100000"),
        (123_456.5, "123456.5"),
        (1_000_000.0, "1e+06"),
        (1_234_567.5, "1.2345675e+06"),
        (0.0001, "0.0001"),
        (0.000_012_5, "1.25e-05"),
        (1e21, "1e+21"),
        (1e100, "1e+100"),
        (18_446_744_073_709_551_615.0, "1.8446744073709552e+19"),
        (0.0, "0"),
        (-0.0, "-0"),
        (f64::INFINITY, "+Inf"),
        (f64::NAN, "NaN"),
    ] {
        assert_eq!(go_float(number), text, "{number:?}");
    }
}

/// Go's `%v` of decoded JSON: sorted map keys, space-separated lists, `<nil>`.
#[test]
fn go_value_formatting() {
    let value = json!({"b": [1, "x", null, 2.5], "a": {"z": true, "y": {}}, "c": []});
    assert_eq!(go_value(&value), "map[a:map[y:map[] z:true] b:[1 x <nil> 2.5] c:[]]");
}

/// Field names the rules read, so that generated objects reach deep into every rule.
fn field_name() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "apiVersion",
        "kind",
        "metadata",
        "status",
        "spec",
        "generation",
        "observedGeneration",
        "deletionTimestamp",
        "creationTimestamp",
        "conditions",
        "type",
        "reason",
        "message",
        "phase",
        "containerStatuses",
        "name",
        "state",
        "waiting",
        "replicas",
        "readyReplicas",
        "updateStrategy",
        "rollingUpdate",
        "partition",
        "suspend",
        "startTime",
        "desiredNumberScheduled",
        "clusterIP",
    ])
    .prop_map(str::to_string)
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |number| number.is_finite()).prop_map(Value::from),
        prop::sample::select(vec![
            "",
            "True",
            "False",
            "Unknown",
            "Ready",
            "Running",
            "Pending",
            "Unschedulable",
            "CrashLoopBackOff",
            "OnDelete",
            "LoadBalancer",
            "2024-05-01T11:59:50Z",
            "2024-13-45T99:99:99Z",
            "apps/v1",
            "v1",
            "batch/v1",
            "Pod",
            "Deployment",
            "StatefulSet",
            "DaemonSet",
            "Job",
            "CustomResourceDefinition",
            "apiextensions.k8s.io/v1",
            "Reconciling",
            "Stalled",
            "NamesAccepted",
            "Established",
        ])
        .prop_map(Value::from),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(field_name(), inner, 0..6)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

proptest! {
    /// No input makes `compute` panic, and an Unknown result always carries a message.
    #[test]
    fn compute_never_panics(object in json_value(), kind_index in 0usize..CASES.len()) {
        let result = compute_or_unknown(&object, now());
        prop_assert!(result.status != Unknown || !result.message.is_empty());
        // Also graft the random value into a real object of each kind, where the rules look.
        let mut base = parse("graft", CASES[kind_index].1);
        if let Some(map) = base.as_object_mut() {
            map.insert("status".to_string(), object.clone());
        }
        let _ = compute_or_unknown(&base, now());
        if let Some(map) = base.as_object_mut() {
            map.insert("spec".to_string(), object.clone());
            map.insert("metadata".to_string(), object);
        }
        let _ = compute_or_unknown(&base, now());
    }
}
