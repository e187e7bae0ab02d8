//! The simulated controllers: what turns stored objects into a cluster that moves, kwok-style.
//!
//! berth's promise is "ready means ready", so the simulated cluster must produce the status fields real
//! controllers write (Deployment conditions, ReplicaSet counts, pod container states, Job conditions, ...)
//! with the same shapes, or berth, kubectl and Helm would be judged against something no cluster says.
//! Each controller is one file: a pure core that decides (`plan`, `status`) from objects and elapsed time,
//! tested with inline JSON, and a thin `reconcile` that reads the store and writes the decision back.
//!
//! One task runs them all ([`spawn`]): it turns store events into work items, reconciles them one at a time
//! (deterministic, no write races between controllers), and keeps a timer queue for delayed transitions
//! (a pod becoming ready after `sim.berth.dev/ready-after`). Nothing polls.

mod addresses;
mod behaviour;
mod client;
mod clock;
mod conditions;
mod context;
mod cron_job;
mod cron_schedule;
mod daemon_set;
mod deployment;
mod driver;
mod events;
mod generic;
mod job;
mod kubelet;
mod meta;
mod node;
mod operators;
mod ownership;
mod queue;
mod recorder;
mod replica_set;
mod service;
mod stateful_set;
mod template;
mod volume;
mod workload;

#[cfg(test)]
mod tests;

use super::profile::Profile;
use super::store::Store;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

pub use behaviour::{GENERIC_READY, JOB_DURATION, JOB_OUTCOME, OPERATOR_FAILURE, POD_WAITING_REASON, READY_AFTER};

/// An operator the simulated cluster emulates: when a ready Deployment, StatefulSet or DaemonSet runs one of its
/// images, the custom resources it covers get the status it writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmulatedOperator {
    pub name: &'static str,
    /// Image repositories, registry and tag left out; a trailing `*` matches the start of the last segment.
    pub images: &'static [&'static str],
    /// (API group, kind) of the objects it reconciles.
    pub kinds: Vec<(&'static str, &'static str)>,
    /// Objects of any other group that have one of these fields (`spec.forProvider`) are its too.
    pub match_fields: Vec<&'static str>,
}

/// Every emulated operator, in the order the simulated cluster looks them up.
pub fn emulated_operators() -> Vec<EmulatedOperator> {
    operators::OPERATORS
        .iter()
        .map(|operator| {
            let mut kinds = Vec::new();
            let mut match_fields = Vec::new();
            for covers in operator.covers {
                match covers {
                    operators::Covers::Kinds(group, covered) => {
                        kinds.extend(covered.iter().map(|kind| (*group, *kind)))
                    }
                    operators::Covers::Fields(fields) => match_fields.extend(fields.iter().copied()),
                }
            }
            EmulatedOperator { name: operator.name, images: operator.images, kinds, match_fields }
        })
        .collect()
}

/// Runs every simulated controller until `shutdown` is cancelled.
///
/// The nodes of the profile exist when this returns, and the task is subscribed to the store before it
/// returns, so nothing written afterwards is missed.
pub fn spawn(store: Arc<Store>, profile: Profile, shutdown: CancellationToken) -> tokio::task::JoinHandle<()> {
    let events = store.subscribe();
    let context = match client::Client::new(store) {
        Ok(client) => {
            node::create_nodes(&client, profile.nodes);
            Some(context::Context::new(client, profile))
        }
        Err(error) => {
            tracing::warn!(%error, "the simulated controllers cannot start");
            None
        }
    };
    tokio::spawn(async move {
        if let Some(context) = context {
            driver::run(context, events, shutdown).await;
        }
    })
}
