//! What the library-level release tests share: plain manifests as a release's input, and an operation on the
//! release `shop` as a test asks for it, prepared as the CLI prepares it when it runs (an install or upgrade
//! through its rollout, which reads the history then).

use berth::cluster::Cluster;
use berth::manifest;
use berth::release::operation::Operation;
use berth::release::rollout::{Input, Mode, Rollout};
use berth::release::{ChartMetadata, LifecycleError, Rendered, Scope};
use berth_chart::values::ReuseMode;

/// The release every test works on.
pub const NAME: &str = "shop";

/// `yaml` as a release's input, its chart named `shop` 1.0.0.
pub fn rendered(yaml: &str) -> Rendered {
    let mut problems = Vec::new();
    let manifests = manifest::parse_text(yaml, "shop.yaml", false, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    let metadata = ChartMetadata { name: "shop".into(), version: "1.0.0".into(), ..ChartMetadata::default() };
    Rendered::from_manifests(manifests, metadata)
}

/// An operation on [`NAME`], before it is prepared.
#[derive(Debug, Clone)]
pub enum Step {
    Install(Rendered),
    /// An upgrade without `--install`.
    Upgrade(Rendered),
    Rollback(Option<u32>),
    Uninstall {
        keep_history: bool,
    },
}

pub fn install(yaml: &str) -> Step {
    Step::Install(rendered(yaml))
}

pub fn upgrade(yaml: &str) -> Step {
    Step::Upgrade(rendered(yaml))
}

impl Step {
    /// The operation, prepared now against `cluster` (records in its default namespace).
    pub async fn prepare(&self, cluster: &Cluster) -> Result<Operation, LifecycleError> {
        let scope = Scope::new(cluster.clone());
        let (mode, rendered) = match self {
            Step::Install(rendered) => (Mode::Install { replace: false }, rendered),
            Step::Upgrade(rendered) => (Mode::Upgrade { install: false, reuse: ReuseMode::Default }, rendered),
            Step::Rollback(revision) => {
                return Ok(Operation::Rollback { scope, name: NAME.into(), revision: *revision });
            }
            Step::Uninstall { keep_history } => {
                return Ok(Operation::Uninstall { scope, name: NAME.into(), keep_history: *keep_history });
            }
        };
        let rollout = Rollout::read(scope, NAME, mode).await?;
        let rendered =
            rollout.render(Input::Rendered(rendered.clone())).await.expect("plain manifests need no rendering");
        Ok(Operation::RollOut(Box::new(rendered)))
    }
}
