//! The flags every cluster command shares, as kubectl spells them.

use crate::cli::error::Error;
use berth::cluster::{self, Cluster, ConnectOptions, Impersonation};
use berth_sim::{SimCluster, SimConfig};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Clone, Args)]
pub struct ClusterArgs {
    /// Path to the kubeconfig file (default: KUBECONFIG, then ~/.kube/config, then in-cluster config).
    #[arg(long, global = true)]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use (`--kube-context`, Helm's spelling, works too).
    #[arg(long, global = true, alias = "kube-context")]
    pub context: Option<String>,
    /// Namespace for objects that name none.
    #[arg(short, long, global = true)]
    pub namespace: Option<String>,
    /// Run against an embedded simulated cluster started in this process (no real cluster needed).
    #[arg(long, global = true, conflicts_with_all = ["kubeconfig", "context"])]
    pub sim: bool,
    /// Act as this user, or `system:serviceaccount:NAMESPACE:NAME` (`--kube-as-user`, Helm's spelling, works too).
    #[arg(long = "as", global = true, alias = "kube-as-user", value_name = "USER")]
    pub impersonate_user: Option<String>,
    /// Act in this group too; repeat for more (`--kube-as-group`, Helm's spelling, works too). Needs `--as`.
    #[arg(
        long = "as-group",
        global = true,
        alias = "kube-as-group",
        value_name = "GROUP",
        requires = "impersonate_user"
    )]
    pub impersonate_groups: Vec<String>,
    /// Act with this uid. Needs `--as`.
    #[arg(long = "as-uid", global = true, value_name = "UID", requires = "impersonate_user")]
    pub impersonate_uid: Option<String>,
}

impl ClusterArgs {
    pub fn connect_options(&self) -> ConnectOptions {
        ConnectOptions {
            kubeconfig: self.kubeconfig.clone(),
            context: self.context.clone(),
            namespace: self.namespace.clone(),
            impersonation: self.impersonation(),
        }
    }

    fn impersonation(&self) -> Impersonation {
        Impersonation {
            user: self.impersonate_user.clone(),
            groups: self.impersonate_groups.clone(),
            uid: self.impersonate_uid.clone(),
        }
    }

    /// Connects to the cluster the flags name, or starts the embedded simulated cluster for `--sim` (kept alive
    /// by the returned handle until the command ends).
    pub async fn connect(&self) -> Result<(Cluster, Option<SimCluster>), Error> {
        let args = self;
        if !args.sim {
            return Ok((cluster::connect(&args.connect_options()).await.map_err(Error::connect)?, None));
        }
        let simulated =
            SimCluster::start(SimConfig::default()).await.map_err(|error| Error::Usage(error.to_string()))?;
        let mut config = simulated.kube_config();
        if let Some(namespace) = &args.namespace {
            config.default_namespace = namespace.clone();
        }
        args.impersonation().apply(&mut config);
        let cluster = cluster::connect_config(config).await.map_err(Error::connect)?;
        Ok((cluster, Some(simulated)))
    }
}
