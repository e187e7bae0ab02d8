//! The flags every cluster command shares, as kubectl spells them.

use crate::cluster::ConnectOptions;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Clone, Args)]
pub struct ClusterArgs {
    /// Path to the kubeconfig file (default: KUBECONFIG, then ~/.kube/config, then in-cluster config).
    #[arg(long, global = true)]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use.
    #[arg(long, global = true)]
    pub context: Option<String>,
    /// Namespace for objects that name none.
    #[arg(short, long, global = true)]
    pub namespace: Option<String>,
    /// Run against an embedded simulated cluster started in this process (no real cluster needed).
    #[arg(long, global = true, conflicts_with_all = ["kubeconfig", "context"])]
    pub sim: bool,
}

impl ClusterArgs {
    pub fn connect_options(&self) -> ConnectOptions {
        ConnectOptions {
            kubeconfig: self.kubeconfig.clone(),
            context: self.context.clone(),
            namespace: self.namespace.clone(),
        }
    }
}
