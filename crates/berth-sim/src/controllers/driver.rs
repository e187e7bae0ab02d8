//! The one task that runs every controller: store events become work items (an object and the controller
//! that reconciles it), work is reconciled in arrival order, delayed transitions wait in the timer queue.
//!
//! Events name what changed; the table in [`Context::observe`] says which controllers care (a pod's change
//! concerns its kubelet and its owner). A lagging subscription (events dropped) triggers a full resync, so
//! nothing is lost for good.

use super::client::ControllerError;
use super::context::Context;
use super::queue::{Controller, Work};
use super::{cron_job, daemon_set, deployment, generic, kubelet, meta, replica_set, service, stateful_set, volume};
use crate::store::WatchEvent;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::{self, error::RecvError, error::TryRecvError};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// How long a failed reconcile waits before it is tried again.
const RETRY: Duration = Duration::from_millis(250);

/// Reconciles between yields to the runtime, so a burst of work does not starve the API server.
const BATCH: usize = 32;

impl Context {
    /// Reconciles one work item.
    fn reconcile(&mut self, work: &Work) -> Result<(), ControllerError> {
        let (namespace, name) = (work.namespace.as_str(), work.name.as_str());
        match &work.controller {
            Controller::Deployment => deployment::reconcile(self, namespace, name),
            Controller::ReplicaSet => replica_set::reconcile(self, namespace, name),
            Controller::StatefulSet => stateful_set::reconcile(self, namespace, name),
            Controller::DaemonSet => daemon_set::reconcile(self, namespace, name),
            Controller::Kubelet => kubelet::reconcile(self, namespace, name),
            Controller::Job => super::job::reconcile(self, namespace, name),
            Controller::CronJob => cron_job::reconcile(self, namespace, name),
            Controller::Claim => volume::reconcile(self, namespace, name),
            Controller::Service => service::reconcile(self, namespace, name),
            Controller::Generic(key) => generic::reconcile(self, key, namespace, name),
            Controller::NodesChanged => {
                for object in self.client.list(&self.client.types.daemon_sets, None) {
                    let work = Work::new(Controller::DaemonSet, meta::namespace(&object), meta::name(&object));
                    self.queue.push(work);
                }
                for pod in self.client.list(&self.client.types.pods, None) {
                    if super::node::node_name(&pod).is_empty() {
                        self.queue.push(Work::new(Controller::Kubelet, meta::namespace(&pod), meta::name(&pod)));
                    }
                }
                Ok(())
            }
            Controller::OwnedPods => {
                let pods = self.controlled_pods(name);
                for pod in pods {
                    self.queue.push(Work::new(Controller::Kubelet, namespace, meta::name(&pod)));
                }
                Ok(())
            }
        }
    }

    /// Observes every event published so far; false when the store is gone.
    fn pump(&mut self, events: &mut broadcast::Receiver<Arc<WatchEvent>>) -> bool {
        loop {
            match events.try_recv() {
                Ok(event) => self.observe(&event),
                Err(TryRecvError::Lagged(missed)) => {
                    tracing::debug!(missed, "the simulated controllers missed events; resyncing");
                    self.resync();
                }
                Err(TryRecvError::Empty) => return true,
                Err(TryRecvError::Closed) => return false,
            }
        }
    }

    /// Reconciles everything queued (and due), yielding to the runtime between batches. Events are observed
    /// before each reconcile, so what a reconcile reads from the indexes is as fresh as the store.
    async fn drain(&mut self, events: &mut broadcast::Receiver<Arc<WatchEvent>>, shutdown: &CancellationToken) -> bool {
        let mut done = 0usize;
        loop {
            if !self.pump(events) {
                return false;
            }
            self.queue.release_due(Instant::now());
            let Some(work) = self.queue.pop() else { return true };
            if let Err(error) = self.reconcile(&work) {
                tracing::warn!(%error, work = %work, "a simulated controller will retry");
                self.recheck(work, RETRY);
            }
            done += 1;
            if done.is_multiple_of(BATCH) {
                tokio::task::yield_now().await;
                if shutdown.is_cancelled() {
                    return false;
                }
            }
        }
    }
}

/// Runs the controllers until `shutdown` is cancelled or the store goes away.
pub(super) async fn run(
    mut context: Context,
    mut events: broadcast::Receiver<Arc<WatchEvent>>,
    shutdown: CancellationToken,
) {
    context.resync();
    loop {
        if !context.drain(&mut events, &shutdown).await {
            return;
        }
        let deadline = context.queue.next_deadline();
        let timer = async move {
            match deadline {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            () = shutdown.cancelled() => return,
            received = events.recv() => match received {
                Ok(event) => context.observe(&event),
                Err(RecvError::Lagged(missed)) => {
                    tracing::debug!(missed, "the simulated controllers missed events; resyncing");
                    context.resync();
                }
                Err(RecvError::Closed) => return,
            },
            () = timer => {}
        }
    }
}
