//! `berth sim serve`: run the simulated cluster until SIGINT/SIGTERM, for kubectl, Helm or berth to talk to.

use super::global_args::Globals;
use crate::cli::error::{Error, ExitCode};
use berth_sim::profile::Profile;
use berth_sim::{Identity, SimCluster, SimConfig};
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
    /// Write an admin kubeconfig for the cluster here (user `kubernetes-admin` in `system:masters`) once it
    /// accepts connections.
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// Also write a kubeconfig for a user in the given groups, allowed what RBAC grants them; repeatable.
    /// Commas separate the user from its groups, since user and group names often hold colons
    /// (`--user 'alice,team-a,system:monitoring=alice.kubeconfig'`).
    #[arg(long = "user", value_name = "NAME[,GROUP...]=FILE", value_parser = parse_user)]
    pub users: Vec<UserKubeconfig>,
    /// Also write a kubeconfig for a ServiceAccount, created (with its namespace) if absent; repeatable.
    #[arg(long = "service-account", value_name = "NAMESPACE/NAME=FILE", value_parser = parse_service_account)]
    pub service_accounts: Vec<UserKubeconfig>,
    /// Profile: controller speed, nodes, delays and injected faults (YAML).
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
}

/// A kubeconfig to write for an identity other than the admin.
#[derive(Debug, Clone)]
pub struct UserKubeconfig {
    pub identity: Identity,
    pub path: PathBuf,
}

/// `NAME[,GROUP...]=FILE`
fn parse_user(text: &str) -> Result<UserKubeconfig, String> {
    let (who, path) = text.rsplit_once('=').ok_or("expected NAME[,GROUP...]=FILE")?;
    let mut names = who.split(',');
    let name = names.next().filter(|name| !name.is_empty()).ok_or("the user name is empty")?.to_string();
    let groups: Vec<String> = names.map(str::to_string).collect();
    if groups.iter().any(String::is_empty) || path.is_empty() {
        return Err("expected NAME[,GROUP...]=FILE with no empty group or file".to_string());
    }
    Ok(UserKubeconfig { identity: Identity::User { name, groups }, path: PathBuf::from(path) })
}

/// `NAMESPACE/NAME=FILE`
fn parse_service_account(text: &str) -> Result<UserKubeconfig, String> {
    let (who, path) = text.rsplit_once('=').ok_or("expected NAMESPACE/NAME=FILE")?;
    let (namespace, name) = who.split_once('/').ok_or("expected NAMESPACE/NAME=FILE")?;
    if namespace.is_empty() || name.is_empty() || path.is_empty() {
        return Err("expected NAMESPACE/NAME=FILE with a namespace, a name and a file".to_string());
    }
    let identity = Identity::ServiceAccount { namespace: namespace.to_string(), name: name.to_string() };
    Ok(UserKubeconfig { identity, path: PathBuf::from(path) })
}

pub fn run(args: SimArgs, _globals: &Globals) -> Result<ExitCode, Error> {
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
        for account in &args.service_accounts {
            if let Identity::ServiceAccount { namespace, name } = &account.identity {
                cluster.create_service_account(namespace, name).map_err(|error| Error::Usage(error.to_string()))?;
            }
        }
        for user in args.users.iter().chain(&args.service_accounts) {
            cluster
                .write_kubeconfig_for(&user.path, &user.identity)
                .map_err(|error| Error::Usage(error.to_string()))?;
        }
        // Written last: callers wait for this file to know the cluster and the other kubeconfigs are ready.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_kubeconfigs_name_a_user_its_groups_and_a_file() {
        let parsed =
            parse_user("alice,team-a,system:monitoring=out/alice.kubeconfig").map(|user| (user.identity, user.path));
        let expected = Identity::User {
            name: "alice".to_string(),
            groups: vec!["team-a".to_string(), "system:monitoring".to_string()],
        };
        assert_eq!(parsed, Ok((expected, PathBuf::from("out/alice.kubeconfig"))));
        assert!(parse_user("oidc:bob=bob.kubeconfig").is_ok_and(|user| user.identity.username() == "oidc:bob"));
        for bad in ["alice", "=file", "alice,=file", "alice="] {
            assert!(parse_user(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn service_account_kubeconfigs_name_a_namespace_and_a_name() {
        let parsed = parse_service_account("team-a/deployer=deployer.kubeconfig").map(|account| account.identity);
        assert_eq!(
            parsed,
            Ok(Identity::ServiceAccount { namespace: "team-a".to_string(), name: "deployer".to_string() })
        );
        for bad in ["team-a=file", "/deployer=file", "team-a/=file", "team-a/deployer"] {
            assert!(parse_service_account(bad).is_err(), "{bad}");
        }
    }
}
