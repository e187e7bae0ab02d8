//! `berth sim serve`: run the simulated cluster until SIGINT/SIGTERM, for kubectl, Helm or berth to talk to.

use crate::cli::error::{Error, ExitCode};
use berth_sim::profile::Profile;
use berth_sim::{SimCluster, SimConfig};
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct SimArgs {
    #[command(subcommand)]
    pub command: SimCommand,
}

#[derive(Debug, Subcommand)]
pub enum SimCommand {
    /// Serve the simulated cluster's API over HTTP on 127.0.0.1 until interrupted.
    Serve(ServeArgs),
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Write a kubeconfig for the cluster here once it accepts connections.
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// Profile: controller speed, nodes, delays and injected faults (YAML).
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
}

pub fn run(args: SimArgs) -> Result<ExitCode, Error> {
    match args.command {
        SimCommand::Serve(serve) => run_serve(serve),
    }
}

fn run_serve(args: ServeArgs) -> Result<ExitCode, Error> {
    let profile = match &args.profile {
        Some(path) => Profile::from_file(path).map_err(|error| Error::Usage(error.to_string()))?,
        None => Profile::default(),
    };
    let runtime = super::runtime::runtime()?;
    runtime.block_on(async move {
        let config = SimConfig { profile, port: args.port, keep_record: false, ..SimConfig::default() };
        let cluster = SimCluster::start(config).await.map_err(|error| Error::Usage(error.to_string()))?;
        if let Some(path) = &args.kubeconfig {
            cluster.write_kubeconfig(path).map_err(|error| Error::Usage(error.to_string()))?;
        }
        eprintln!("simulated cluster serving at {}", cluster.url());
        super::runtime::shutdown_signal().await;
        eprintln!("simulated cluster stopping");
        cluster.stop();
        Ok(ExitCode::Success)
    })
}
