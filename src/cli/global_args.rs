//! The flags every command takes, before or after the subcommand: Helm 4's global flags (pkg/cli/environment.go
//! `EnvSettings.AddFlags`, pkg/cmd/root.go) with kubectl's spellings berth already took (`--context`, `--as`,
//! `--as-group`, `--as-uid`), berth's own `--sim` and `-v`; and the one step that resolves them, over the
//! environment [`HelmEnvironment`] read, into the [`Globals`] a command runs with.
//!
//! As in Helm, a flag overrides its `HELM_*` variable; `-n` (or `HELM_NAMESPACE`) overrides the kubeconfig's
//! namespace. The storage driver Helm takes from `HELM_DRIVER` reaches the release storage through
//! [`Globals::storage_driver`] (`HelmEnvironment::storage_driver`).

use crate::cli::error::Error;
use berth::cluster::{self, Cluster, ConnectOptions, Impersonation, KubeOverrides};
use berth::release::{LifecycleError, StorageDriver};
use berth::settings::{ColorMode, HelmEnvironment};
use berth_sim::{SimCluster, SimConfig};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// `--color`: when output is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    Never,
    Auto,
    Always,
}

/// Helm's global flags, and berth's.
#[derive(Debug, Clone, Default, Args)]
pub struct GlobalArgs {
    /// More log output on stderr (-v info, -vv debug, -vvv trace); BERTH_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// Enable verbose output (Helm's `--debug`: debug logs on stderr).
    #[arg(long, global = true)]
    pub debug: bool,
    /// Path to the kubeconfig file (default: KUBECONFIG, then ~/.kube/config, then in-cluster config).
    #[arg(long, global = true, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
    /// Name of the kubeconfig context to use (`--context`, kubectl's spelling, works too).
    #[arg(long = "kube-context", global = true, alias = "context", value_name = "CONTEXT")]
    pub kube_context: Option<String>,
    /// Namespace scope for this request.
    #[arg(short, long, global = true)]
    pub namespace: Option<String>,
    /// Username to impersonate for the operation, or `system:serviceaccount:NAMESPACE:NAME` (`--as` too).
    #[arg(long = "kube-as-user", global = true, alias = "as", value_name = "USER")]
    pub kube_as_user: Option<String>,
    /// Group to impersonate for the operation; repeat for more (`--as-group` too).
    #[arg(long = "kube-as-group", global = true, alias = "as-group", value_name = "GROUP")]
    pub kube_as_groups: Vec<String>,
    /// Uid to impersonate for the operation (kubectl's `--as-uid`).
    #[arg(long = "as-uid", global = true, value_name = "UID")]
    pub kube_as_uid: Option<String>,
    /// Bearer token used for authentication.
    #[arg(long = "kube-token", global = true, value_name = "TOKEN")]
    pub kube_token: Option<String>,
    /// The address and the port for the Kubernetes API server.
    #[arg(long = "kube-apiserver", global = true, value_name = "URL")]
    pub kube_api_server: Option<String>,
    /// The certificate authority file for the Kubernetes API server connection.
    #[arg(long = "kube-ca-file", global = true, value_name = "FILE")]
    pub kube_ca_file: Option<String>,
    /// Do not check the Kubernetes API server's certificate (insecure).
    #[arg(long = "kube-insecure-skip-tls-verify", global = true)]
    pub kube_insecure_skip_tls_verify: bool,
    /// Server name to use for Kubernetes API server certificate validation.
    #[arg(long = "kube-tls-server-name", global = true, value_name = "NAME")]
    pub kube_tls_server_name: Option<String>,
    /// Client-side default throttling limit (accepted as Helm takes it; berth does not throttle itself).
    #[arg(long = "burst-limit", global = true, value_name = "INT", allow_negative_numbers = true)]
    pub burst_limit: Option<i64>,
    /// Queries per second used with the Kubernetes API (accepted as Helm takes it; berth does not throttle
    /// itself).
    #[arg(long, global = true, value_name = "FLOAT")]
    pub qps: Option<f32>,
    /// Use colored output (never, auto, always); `--colour` too.
    #[arg(long, global = true, alias = "colour", value_enum, value_name = "MODE")]
    pub color: Option<ColorArg>,
    /// Path to the registry config file.
    #[arg(long = "registry-config", global = true, value_name = "FILE")]
    pub registry_config: Option<PathBuf>,
    /// Path to the file containing repository names and URLs.
    #[arg(long = "repository-config", global = true, value_name = "FILE")]
    pub repository_config: Option<PathBuf>,
    /// Path to the directory containing cached repository indexes.
    #[arg(long = "repository-cache", global = true, value_name = "DIR")]
    pub repository_cache: Option<PathBuf>,
    /// Path to the directory containing cached content (e.g. charts).
    #[arg(long = "content-cache", global = true, value_name = "DIR")]
    pub content_cache: Option<PathBuf>,
    /// Run against an embedded simulated cluster started in this process (no real cluster needed).
    #[arg(long, global = true, conflicts_with_all = ["kubeconfig", "kube_context"])]
    pub sim: bool,
}

/// Which interface the binary presents: berth's own, or Helm 4's (run as `helm`, or with `BERTH_HELM=1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Personality {
    Berth,
    Helm,
}

impl Personality {
    /// Helm's when the program's file name is `helm` (a symlink or copy) or `BERTH_HELM=1`, else berth's.
    pub fn detect(program: Option<&std::ffi::OsStr>, berth_helm: Option<&std::ffi::OsStr>) -> Personality {
        let named_helm =
            program.map(std::path::Path::new).and_then(std::path::Path::file_stem).is_some_and(|stem| stem == "helm");
        if named_helm || berth_helm.is_some_and(|value| value == "1") { Personality::Helm } else { Personality::Berth }
    }
}

/// What a command runs with: the global flags resolved over the environment, once.
#[derive(Debug, Clone)]
pub struct Globals {
    /// The interface the user called.
    pub personality: Personality,
    /// Helm's settings: the `HELM_*` variables with the flags' overrides.
    pub environment: HelmEnvironment,
    /// `-n` or `HELM_NAMESPACE` as given (the kubeconfig's namespace applies when neither is).
    pub namespace: Option<String>,
    /// The kubeconfig file `--kubeconfig` names.
    pub kubeconfig: Option<PathBuf>,
    /// The embedded simulated cluster (`--sim`).
    pub sim: bool,
    /// `-v` count, raised to debug by `--debug` or `HELM_DEBUG`.
    pub verbose: u8,
    /// `--as-uid` (Helm has none; kubectl's).
    as_uid: Option<String>,
}

impl Globals {
    /// Resolves `args` over `environment` (as read from the process's environment): each flag given replaces
    /// the setting its variable gave.
    pub fn resolve(personality: Personality, args: &GlobalArgs, mut environment: HelmEnvironment) -> Globals {
        let text = |flag: &Option<String>, setting: &mut String| {
            if let Some(value) = flag {
                setting.clone_from(value);
            }
        };
        text(&args.namespace, &mut environment.namespace);
        text(&args.kube_context, &mut environment.kube_context);
        text(&args.kube_token, &mut environment.kube_token);
        text(&args.kube_as_user, &mut environment.kube_as_user);
        text(&args.kube_api_server, &mut environment.kube_api_server);
        text(&args.kube_ca_file, &mut environment.kube_ca_file);
        text(&args.kube_tls_server_name, &mut environment.kube_tls_server_name);
        if let Some(kubeconfig) = &args.kubeconfig {
            environment.kube_config = kubeconfig.display().to_string();
        }
        if !args.kube_as_groups.is_empty() {
            environment.kube_as_groups.clone_from(&args.kube_as_groups);
        }
        environment.kube_insecure_skip_tls_verify |= args.kube_insecure_skip_tls_verify;
        environment.debug |= args.debug;
        if let Some(burst_limit) = args.burst_limit {
            environment.burst_limit = burst_limit;
        }
        if let Some(qps) = args.qps {
            environment.qps = qps;
        }
        if let Some(color) = args.color {
            environment.color_mode = match color {
                ColorArg::Never => ColorMode::Never,
                ColorArg::Auto => ColorMode::Auto,
                ColorArg::Always => ColorMode::Always,
            };
        }
        let paths = &mut environment.paths;
        for (flag, path) in [
            (&args.registry_config, &mut paths.registry_config),
            (&args.repository_config, &mut paths.repository_config),
            (&args.repository_cache, &mut paths.repository_cache),
            (&args.content_cache, &mut paths.content_cache),
        ] {
            if let Some(flag) = flag {
                path.clone_from(flag);
            }
        }
        let namespace = Some(environment.namespace.clone()).filter(|namespace| !namespace.is_empty());
        let verbose = if environment.debug { args.verbose.max(2) } else { args.verbose };
        Globals {
            personality,
            environment,
            namespace,
            kubeconfig: args.kubeconfig.clone(),
            sim: args.sim,
            verbose,
            as_uid: args.kube_as_uid.clone(),
        }
    }

    /// The release storage `HELM_DRIVER` names, set up when a command first needs it (Helm's `Configuration.Init`).
    ///
    /// # Errors
    /// A driver name Helm does not know, or a driver that cannot start (the memory driver's data unreadable).
    pub fn storage_driver(&self) -> Result<StorageDriver, Error> {
        self.environment.storage_driver().map_err(|error| Error::Release(LifecycleError::Storage(error.into())))
    }

    /// The namespace a command works in when no cluster is asked (`template`): `-n`, `HELM_NAMESPACE`, the
    /// kubeconfig context's, else `default` (Helm's `Namespace()`).
    pub fn namespace_offline(&self) -> String {
        self.environment.namespace()
    }

    fn impersonation(&self) -> Impersonation {
        let environment = &self.environment;
        Impersonation {
            user: Some(environment.kube_as_user.clone()).filter(|user| !user.is_empty()),
            groups: environment.kube_as_groups.clone(),
            uid: self.as_uid.clone(),
        }
    }

    /// How berth connects: the kubeconfig and context, the namespace, impersonation, and Helm's overrides of
    /// the kubeconfig (`--kube-apiserver`, `--kube-token`, `--kube-ca-file`, ...).
    pub fn connect_options(&self) -> ConnectOptions {
        let environment = &self.environment;
        let given = |text: &String| Some(text.clone()).filter(|text| !text.is_empty());
        ConnectOptions {
            kubeconfig: self.kubeconfig.clone(),
            context: given(&environment.kube_context),
            namespace: self.namespace.clone(),
            impersonation: self.impersonation(),
            overrides: KubeOverrides {
                api_server: given(&environment.kube_api_server),
                token: given(&environment.kube_token),
                ca_file: given(&environment.kube_ca_file).map(PathBuf::from),
                insecure_skip_tls_verify: environment.kube_insecure_skip_tls_verify,
                tls_server_name: given(&environment.kube_tls_server_name),
            },
        }
    }

    /// Connects to the cluster the settings name, or starts the embedded simulated cluster for `--sim` (kept
    /// alive by the returned handle until the command ends).
    pub async fn connect(&self) -> Result<(Cluster, Option<SimCluster>), Error> {
        self.connect_as(false).await
    }

    /// [`Globals::connect`] for a command that reads only release records: the cluster's reachability is
    /// checked (Helm's `IsReachable`) without discovering its resources, which such a command never resolves.
    ///
    /// # Errors
    /// As [`Globals::connect`].
    pub async fn connect_for_records(&self) -> Result<(Cluster, Option<SimCluster>), Error> {
        self.connect_as(true).await
    }

    async fn connect_as(&self, records_only: bool) -> Result<(Cluster, Option<SimCluster>), Error> {
        if !self.sim {
            let options = self.connect_options();
            let connected = if records_only {
                cluster::connect_for_records(&options).await
            } else {
                cluster::connect(&options).await
            };
            return Ok((connected.map_err(Error::connect)?, None));
        }
        let simulated =
            SimCluster::start(SimConfig::default()).await.map_err(|error| Error::Usage(error.to_string()))?;
        let mut config = simulated.kube_config();
        if let Some(namespace) = &self.namespace {
            config.default_namespace = namespace.clone();
        }
        self.impersonation().apply(&mut config);
        let cluster = cluster::connect_config(config).await.map_err(Error::connect)?;
        Ok((cluster, Some(simulated)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Probe {
        #[command(flatten)]
        global: GlobalArgs,
    }

    fn read_environment(vars: &[(&str, &str)]) -> HelmEnvironment {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        HelmEnvironment::from_lookup(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    #[test]
    fn flags_override_their_variables_and_unset_flags_keep_them() {
        let vars = [
            ("HOME", "/h"),
            ("HELM_NAMESPACE", "from-env"),
            ("HELM_KUBECONTEXT", "env-context"),
            ("HELM_KUBETOKEN", "env-token"),
            ("HELM_QPS", "5"),
        ];
        let args = Probe::parse_from([
            "helm",
            "-n",
            "shop",
            "--kube-apiserver",
            "https://127.0.0.1:6443",
            "--kube-as-group",
            "a",
            "--kube-as-group",
            "b",
            "--repository-config",
            "/r.yaml",
            "--colour",
            "never",
            "--burst-limit",
            "-1",
        ]);
        let globals = Globals::resolve(Personality::Helm, &args.global, read_environment(&vars));
        let environment = &globals.environment;
        assert_eq!(environment.namespace, "shop");
        assert_eq!(globals.namespace.as_deref(), Some("shop"));
        assert_eq!(environment.kube_context, "env-context", "HELM_KUBECONTEXT stays without --kube-context");
        assert_eq!(environment.kube_as_groups, ["a", "b"]);
        assert_eq!(environment.paths.repository_config, PathBuf::from("/r.yaml"));
        assert_eq!(environment.color_mode, ColorMode::Never);
        assert_eq!(environment.burst_limit, -1);
        assert!((environment.qps - 5.0).abs() < f32::EPSILON);
        let options = globals.connect_options();
        assert_eq!(options.context.as_deref(), Some("env-context"));
        assert_eq!(options.overrides.token.as_deref(), Some("env-token"));
        assert_eq!(options.overrides.api_server.as_deref(), Some("https://127.0.0.1:6443"));
        assert_eq!(options.impersonation.groups, ["a", "b"]);
        let unset = Globals::resolve(Personality::Berth, &GlobalArgs::default(), read_environment(&[("HOME", "/h")]));
        assert_eq!(unset.namespace, None, "the kubeconfig's namespace applies");
        assert_eq!(unset.connect_options().context, None);
    }

    #[test]
    fn helm_is_the_program_named_helm_or_berth_helm_1() {
        use std::ffi::OsStr;
        let detect = |program: &str, variable: Option<&str>| {
            Personality::detect(Some(OsStr::new(program)), variable.map(OsStr::new))
        };
        assert_eq!(detect("/usr/local/bin/helm", None), Personality::Helm);
        assert_eq!(detect("helm.exe", None), Personality::Helm);
        assert_eq!(detect("./target/debug/berth", None), Personality::Berth);
        assert_eq!(detect("berth", Some("1")), Personality::Helm);
        assert_eq!(detect("berth", Some("0")), Personality::Berth);
        assert_eq!(detect("helmfile", None), Personality::Berth);
    }
}
