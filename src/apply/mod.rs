//! Applying a set of manifests and, if asked, waiting until they are ready.
//!
//! - `prepare.rs`: everything checked before the first write, computed once ([`prepare`] → [`Prepared`]);
//! - `run.rs`: [`apply`] / [`apply_prepared`] (execute, then the final wait) and [`wait_only`]; [`Stop`] tells
//!   the cancellation of the whole apply from that of its waits alone;
//! - `execute.rs`: the plan driven with readiness gates; `delete.rs`: deletion in reverse order;
//! - `judge.rs`: health rules as the waits' judge; `report.rs`: the events and the report.
//!
//! Everything is checked before the first write: every object's kind must be served by the cluster or
//! defined by a CustomResourceDefinition in the same set, and every berth annotation must parse. Then
//! CustomResourceDefinitions go first and are waited for until Established, discovery is refreshed, and the
//! rest is applied (independent objects in parallel, bounded). Cancellation lets requests in flight finish
//! and starts nothing new; cancelling the waits alone ([`Stop::cancel_wait`]) ends the readiness gates and the
//! final wait but writes every object it still can. The report always says what was applied and what each
//! object's status was.
//!
//! # Example
//!
//! Applying a manifest and waiting for it from another program (a controller, say), here against the
//! embedded simulated cluster; on a real cluster, connect with [`crate::cluster::connect`] instead.
//!
//! ```
//! # #[tokio::main(flavor = "multi_thread", worker_threads = 2)]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use berth::apply::{ApplyRequest, apply};
//! use berth::events::Emitter;
//! use berth_sim::{SimCluster, SimConfig};
//! use berth::wait::{Outcome, WaitOptions};
//! use tokio_util::sync::CancellationToken;
//!
//! let sim = SimCluster::start(SimConfig::default()).await?;
//! let cluster = berth::cluster::connect_config(sim.kube_config()).await?;
//! let yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: fast\n";
//! let mut problems = Vec::new();
//! let manifests = berth::manifest::parse_text(yaml, "settings.yaml", false, &mut problems);
//! assert!(problems.is_empty());
//!
//! let request = ApplyRequest { wait: Some(WaitOptions::default()), ..ApplyRequest::default() };
//! // Cancel this token from anywhere (a newer revision arrived, SIGTERM...) to stop cleanly.
//! let cancel = CancellationToken::new();
//! // The events come out of the channel as the apply goes; the stream ends when the apply returns.
//! let (events, mut received) = Emitter::channel();
//! let printing = async {
//!     while let Some(event) = received.recv().await {
//!         println!("{}", serde_json::to_string(&event).unwrap_or_default());
//!     }
//! };
//! let (report, ()) = tokio::join!(apply(&cluster, &manifests, &request, &cancel, events), printing);
//! assert_eq!(report?.outcome, Outcome::Ready);
//! # Ok(())
//! # }
//! ```

mod delete;
mod execute;
mod judge;
mod prepare;
mod report;
mod run;

pub use delete::{delete, delete_propagating};
pub use execute::Stop;
pub use execute::WriteMethod;
pub use judge::{deliverable, rules_judge};
pub use prepare::{InvalidSet, ObjectProblem, Prepared, TIMEOUT_ANNOTATION, prepare};
pub use report::{ApplyEvent, ApplyFailure, ApplyReport};
pub use run::{ApplyRequest, apply, apply_prepared, apply_prepared_until, wait_only};
