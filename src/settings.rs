//! Helm's client settings from the environment (`HELM_*`, `KUBECONFIG`, the XDG homes), read once as Helm 4.1.4's
//! `cli.New()` reads them (pkg/cli/environment.go), with Helm's defaults, and the `helm env` listing of them
//! (`EnvSettings.EnvVars`).
//!
//! This is the one owner of these settings: the chart-source paths come from [`berth_source::paths::HelmPaths`]
//! (which owns Helm's path rules), the global flags of the command line override fields of a
//! [`HelmEnvironment`] after it is read, and plugins receive [`HelmEnvironment::variables`].
//!
//! Pure but for [`HelmEnvironment::from_env`] and [`HelmEnvironment::namespace`] (which reads the kubeconfig,
//! as Helm's `Namespace()` does).

use crate::release::{
    DriverError, HELM_DRIVER, HELM_DRIVER_SQL_CONNECTION_STRING, HELM_MEMORY_DRIVER_DATA, StorageDriver,
};
use berth_source::paths::{HelmPaths, Home};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `defaultMaxHistory`.
pub const DEFAULT_MAX_HISTORY: i64 = 10;
/// `defaultBurstLimit`.
pub const DEFAULT_BURST_LIMIT: i64 = 100;

/// When output is coloured (`--color`, `HELM_COLOR`, `NO_COLOR`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorMode {
    Never,
    Auto,
    Always,
}

/// Helm's `EnvSettings`: every setting `helm env` lists, as this process's environment gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct HelmEnvironment {
    /// Repository configuration and caches, registry credentials, content cache.
    pub paths: HelmPaths,
    /// `helmpath.CachePath("")`, `ConfigPath("")`, `DataPath("")`.
    pub cache_home: PathBuf,
    pub config_home: PathBuf,
    pub data_home: PathBuf,
    /// `HELM_PLUGINS`: a list of directories separated as `PATH` is (`filepath.SplitList`).
    pub plugins_directory: String,
    /// `HELM_NAMESPACE` or `-n`: empty when neither is set (the kubeconfig's namespace then applies).
    pub namespace: String,
    /// `--kubeconfig`, as given (a list of paths); empty without the flag (the loader reads `KUBECONFIG` then).
    pub kube_config: String,
    pub kube_context: String,
    pub kube_token: String,
    pub kube_as_user: String,
    pub kube_as_groups: Vec<String>,
    pub kube_api_server: String,
    pub kube_ca_file: String,
    pub kube_insecure_skip_tls_verify: bool,
    pub kube_tls_server_name: String,
    pub debug: bool,
    pub max_history: i64,
    pub burst_limit: i64,
    pub qps: f32,
    pub color_mode: ColorMode,
    /// `HELM_DRIVER`, `HELM_DRIVER_SQL_CONNECTION_STRING`, `HELM_MEMORY_DRIVER_DATA`: the release storage, as
    /// Helm's `NewRootCmd` reads them with `os.Getenv` (unset reads as empty). `helm env` does not list them.
    pub driver: String,
    pub driver_sql_connection_string: String,
    pub memory_driver_data: String,
    /// `HELM_NO_PLUGINS=1`: no `cli/v1` plugin is a command (`loadCLIPlugins` in `pkg/cmd/load_plugins.go`).
    pub no_plugins: bool,
}

impl HelmEnvironment {
    /// The settings of this process's environment.
    pub fn from_env() -> HelmEnvironment {
        HelmEnvironment::from_lookup(|name| std::env::var(name).ok())
    }

    /// The settings of an environment given as a lookup (`cli.New()`).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> HelmEnvironment {
        let text = |name: &str| lookup(name).unwrap_or_default();
        // `envOr`: a variable that is set wins even when empty.
        let or = |name: &str, default: PathBuf| lookup(name).unwrap_or_else(|| default.display().to_string());
        HelmEnvironment {
            paths: HelmPaths::from_lookup(&lookup),
            cache_home: Home::Cache.path("", &lookup),
            config_home: Home::Config.path("", &lookup),
            data_home: Home::Data.path("", &lookup),
            plugins_directory: or("HELM_PLUGINS", Home::Data.path("plugins", &lookup)),
            namespace: text("HELM_NAMESPACE"),
            // Helm's `--kubeconfig` flag defaults to "" and overwrites what `New` read from `KUBECONFIG`: the
            // variable reaches the kubeconfig loader (and the namespace) but `helm env` lists no KUBECONFIG.
            kube_config: String::new(),
            kube_context: text("HELM_KUBECONTEXT"),
            kube_token: text("HELM_KUBETOKEN"),
            kube_as_user: text("HELM_KUBEASUSER"),
            kube_as_groups: comma_separated(&text("HELM_KUBEASGROUPS")),
            kube_api_server: text("HELM_KUBEAPISERVER"),
            kube_ca_file: text("HELM_KUBECAFILE"),
            kube_insecure_skip_tls_verify: lookup("HELM_KUBEINSECURE_SKIP_TLS_VERIFY")
                .and_then(|value| go_parse_bool(&value))
                .unwrap_or(false),
            kube_tls_server_name: text("HELM_KUBETLS_SERVER_NAME"),
            debug: go_parse_bool(&text("HELM_DEBUG")).unwrap_or(false),
            max_history: lookup("HELM_MAX_HISTORY").and_then(|value| value.parse().ok()).unwrap_or(DEFAULT_MAX_HISTORY),
            burst_limit: lookup("HELM_BURST_LIMIT").and_then(|value| value.parse().ok()).unwrap_or(DEFAULT_BURST_LIMIT),
            qps: lookup("HELM_QPS").and_then(|value| go_parse_float(&value)).unwrap_or(0.0),
            color_mode: color_mode(&lookup),
            driver: text(HELM_DRIVER),
            driver_sql_connection_string: text(HELM_DRIVER_SQL_CONNECTION_STRING),
            memory_driver_data: text(HELM_MEMORY_DRIVER_DATA),
            no_plugins: text("HELM_NO_PLUGINS") == "1",
        }
    }

    /// The directories searched for `cli/v1` plugins run as commands: none with `HELM_NO_PLUGINS=1`.
    pub fn command_plugin_directories(&self) -> Vec<PathBuf> {
        if self.no_plugins { Vec::new() } else { self.plugin_directories() }
    }

    /// The storage driver these settings name, as Helm's command line sets it up for every command
    /// (`NewRootCmd` in `pkg/cmd/root.go`): the `sql` driver with its connection string, the `memory` driver
    /// preloaded from `HELM_MEMORY_DRIVER_DATA` (`loadReleasesInMemory`).
    ///
    /// # Errors
    /// As [`StorageDriver::from_name`] and the memory store's preload.
    pub fn storage_driver(&self) -> Result<StorageDriver, DriverError> {
        let driver = StorageDriver::from_name(&self.driver, &self.driver_sql_connection_string)?;
        if let StorageDriver::Memory(store) = &driver {
            store.preload(&self.memory_driver_data)?;
        }
        Ok(driver)
    }

    /// berth-source's environment for finding and downloading charts, with these settings' paths.
    pub fn chart_sources(&self) -> berth_source::download::Environment {
        berth_source::download::Environment {
            paths: self.paths.clone(),
            ..berth_source::download::Environment::from_env()
        }
    }

    /// The directories `HELM_PLUGINS` lists, in order (`filepath.SplitList`: an empty list has none).
    pub fn plugin_directories(&self) -> Vec<PathBuf> {
        if self.plugins_directory.is_empty() {
            return Vec::new();
        }
        std::env::split_paths(&self.plugins_directory).collect()
    }

    /// `helmpath.DataPath("starters")`: where `create --starter NAME` looks.
    pub fn starters_directory(&self) -> PathBuf {
        self.data_home.join("starters")
    }

    /// `Namespace()`: the namespace given (`-n`, `HELM_NAMESPACE`), else the namespace of the kubeconfig's
    /// context (`--kube-context`, else the current one), else `default`.
    pub fn namespace(&self) -> String {
        if !self.namespace.is_empty() {
            return self.namespace.clone();
        }
        self.kubeconfig_namespace().unwrap_or_else(|| "default".to_string())
    }

    /// The namespace of the context in use, when a kubeconfig can be read and names one.
    fn kubeconfig_namespace(&self) -> Option<String> {
        let kubeconfig = if self.kube_config.is_empty() {
            kube::config::Kubeconfig::read().ok()?
        } else {
            let mut merged: Option<kube::config::Kubeconfig> = None;
            for path in std::env::split_paths(&self.kube_config) {
                let Ok(file) = kube::config::Kubeconfig::read_from(&path) else { continue };
                merged = Some(match merged {
                    Some(earlier) => earlier.merge(file).ok()?,
                    None => file,
                });
            }
            merged?
        };
        let context_name =
            if self.kube_context.is_empty() { kubeconfig.current_context.clone()? } else { self.kube_context.clone() };
        kubeconfig
            .contexts
            .iter()
            .find(|context| context.name == context_name)
            .and_then(|context| context.context.as_ref())
            .and_then(|context| context.namespace.clone())
            .filter(|namespace| !namespace.is_empty())
    }

    /// `EnvVars()`: what `helm env` prints and plugins receive, by name. `helm_bin` is `HELM_BIN` (Helm's
    /// `os.Args[0]`).
    pub fn variables(&self, helm_bin: &str) -> BTreeMap<&'static str, String> {
        let path = |path: &Path| path.display().to_string();
        let mut variables = BTreeMap::from([
            ("HELM_BIN", helm_bin.to_string()),
            ("HELM_CACHE_HOME", path(&self.cache_home)),
            ("HELM_CONFIG_HOME", path(&self.config_home)),
            ("HELM_DATA_HOME", path(&self.data_home)),
            ("HELM_DEBUG", self.debug.to_string()),
            ("HELM_PLUGINS", self.plugins_directory.clone()),
            ("HELM_REGISTRY_CONFIG", path(&self.paths.registry_config)),
            ("HELM_REPOSITORY_CACHE", path(&self.paths.repository_cache)),
            ("HELM_CONTENT_CACHE", path(&self.paths.content_cache)),
            ("HELM_REPOSITORY_CONFIG", path(&self.paths.repository_config)),
            ("HELM_NAMESPACE", self.namespace()),
            ("HELM_MAX_HISTORY", self.max_history.to_string()),
            ("HELM_BURST_LIMIT", self.burst_limit.to_string()),
            ("HELM_QPS", format!("{:.2}", self.qps)),
            ("HELM_KUBECONTEXT", self.kube_context.clone()),
            ("HELM_KUBETOKEN", self.kube_token.clone()),
            ("HELM_KUBEASUSER", self.kube_as_user.clone()),
            ("HELM_KUBEASGROUPS", self.kube_as_groups.join(",")),
            ("HELM_KUBEAPISERVER", self.kube_api_server.clone()),
            ("HELM_KUBECAFILE", self.kube_ca_file.clone()),
            ("HELM_KUBEINSECURE_SKIP_TLS_VERIFY", self.kube_insecure_skip_tls_verify.to_string()),
            ("HELM_KUBETLS_SERVER_NAME", self.kube_tls_server_name.clone()),
        ]);
        if !self.kube_config.is_empty() {
            variables.insert("KUBECONFIG", self.kube_config.clone());
        }
        variables
    }
}

/// `envCSV`: the value trimmed of commas and spaces at both ends, then split at commas.
fn comma_separated(value: &str) -> Vec<String> {
    let trimmed = value.trim_matches([',', ' ']);
    if trimmed.is_empty() { Vec::new() } else { trimmed.split(',').map(str::to_string).collect() }
}

/// Go's `strconv.ParseBool`.
fn go_parse_bool(value: &str) -> Option<bool> {
    match value {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// Go's `strconv.ParseFloat(value, 32)` for the decimal forms a user writes (Rust's parser also takes `inf` and
/// `nan`, which Go accepts too).
fn go_parse_float(value: &str) -> Option<f32> {
    if value.is_empty() || value.contains('_') {
        return None;
    }
    value.parse().ok()
}

/// `envColorMode`: a non-empty `NO_COLOR` first, then `HELM_COLOR` when it names a mode, else `auto`.
fn color_mode(lookup: &impl Fn(&str) -> Option<String>) -> ColorMode {
    if lookup("NO_COLOR").is_some_and(|value| !value.is_empty()) {
        return ColorMode::Never;
    }
    match lookup("HELM_COLOR").map(|value| value.to_lowercase()).as_deref() {
        Some("never") => ColorMode::Never,
        Some("always") => ColorMode::Always,
        _ => ColorMode::Auto,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(vars: &[(&str, &str)]) -> HelmEnvironment {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        HelmEnvironment::from_lookup(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    #[test]
    fn defaults_are_helms() {
        let found = settings(&[("HOME", "/h"), ("HELM_NAMESPACE", "shop")]);
        let variables = found.variables("helm");
        let expected = [
            ("HELM_BIN", "helm"),
            ("HELM_BURST_LIMIT", "100"),
            ("HELM_CACHE_HOME", "/h/.cache/helm"),
            ("HELM_CONFIG_HOME", "/h/.config/helm"),
            ("HELM_CONTENT_CACHE", "/h/.cache/helm/content"),
            ("HELM_DATA_HOME", "/h/.local/share/helm"),
            ("HELM_DEBUG", "false"),
            ("HELM_KUBEASGROUPS", ""),
            ("HELM_KUBEINSECURE_SKIP_TLS_VERIFY", "false"),
            ("HELM_MAX_HISTORY", "10"),
            ("HELM_NAMESPACE", "shop"),
            ("HELM_PLUGINS", "/h/.local/share/helm/plugins"),
            ("HELM_QPS", "0.00"),
            ("HELM_REGISTRY_CONFIG", "/h/.config/helm/registry/config.json"),
            ("HELM_REPOSITORY_CACHE", "/h/.cache/helm/repository"),
            ("HELM_REPOSITORY_CONFIG", "/h/.config/helm/repositories.yaml"),
        ];
        for (name, value) in expected {
            assert_eq!(variables.get(name).map(String::as_str), Some(value), "{name}");
        }
        assert_eq!(variables.len(), 22, "no KUBECONFIG without --kubeconfig");
        let flagged = HelmEnvironment { kube_config: "/k".to_string(), ..found };
        assert_eq!(flagged.variables("helm").get("KUBECONFIG").map(String::as_str), Some("/k"));
    }

    #[test]
    fn values_are_read_as_helm_reads_them() {
        // (variable, value, the name `helm env` lists, what it prints)
        let table = [
            ("HELM_QPS", "2.5", "HELM_QPS", "2.50"),
            ("HELM_QPS", "fast", "HELM_QPS", "0.00"),
            ("HELM_MAX_HISTORY", "x", "HELM_MAX_HISTORY", "10"),
            ("HELM_MAX_HISTORY", "3", "HELM_MAX_HISTORY", "3"),
            ("HELM_DEBUG", "T", "HELM_DEBUG", "true"),
            ("HELM_DEBUG", "yes", "HELM_DEBUG", "false"),
            ("HELM_KUBEASGROUPS", " a,b, ", "HELM_KUBEASGROUPS", "a,b"),
            ("HELM_PLUGINS", "", "HELM_PLUGINS", ""),
            ("HELM_DATA_HOME", "/d", "HELM_PLUGINS", "/d/plugins"),
            ("XDG_CACHE_HOME", "/x", "HELM_REPOSITORY_CACHE", "/x/helm/repository"),
        ];
        for (variable, value, listed, printed) in table {
            let variables = settings(&[("HOME", "/h"), ("HELM_NAMESPACE", "n"), (variable, value)]).variables("b");
            assert_eq!(variables.get(listed).map(String::as_str), Some(printed), "{variable}={value}");
        }
        assert_eq!(settings(&[("NO_COLOR", "1"), ("HELM_COLOR", "always")]).color_mode, ColorMode::Never);
        assert_eq!(settings(&[("HELM_COLOR", "ALWAYS")]).color_mode, ColorMode::Always);
        assert_eq!(settings(&[("HOME", "/h")]).starters_directory(), PathBuf::from("/h/.local/share/helm/starters"));
    }
}
