//! Where Helm keeps its configuration and caches, computed as Helm 4.1.4 computes them (pkg/helmpath and
//! pkg/cli/environment.go), so a repository added or a registry login made by either tool is seen by both.
//!
//! Pure: the environment is passed in as a lookup function.

use std::path::{Path, PathBuf};

/// Helm's locations for one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelmPaths {
    /// `repositories.yaml` (`HELM_REPOSITORY_CONFIG`).
    pub repository_config: PathBuf,
    /// The repository index cache (`HELM_REPOSITORY_CACHE`): `<name>-index.yaml`, `<name>-charts.txt`.
    pub repository_cache: PathBuf,
    /// The registry credentials, docker's `config.json` format (`HELM_REGISTRY_CONFIG`).
    pub registry_config: PathBuf,
    /// The content cache of downloaded charts by digest (`HELM_CONTENT_CACHE`).
    pub content_cache: PathBuf,
}

/// The three homes of `lazypath` (pkg/helmpath): each is the Helm variable, else the XDG variable plus `helm`,
/// else the XDG default under the user's home plus `helm`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Home {
    /// `HELM_CONFIG_HOME`, `XDG_CONFIG_HOME`, `~/.config`.
    Config,
    /// `HELM_CACHE_HOME`, `XDG_CACHE_HOME`, `~/.cache`.
    Cache,
    /// `HELM_DATA_HOME`, `XDG_DATA_HOME`, `~/.local/share` (plugins, starters).
    Data,
}

impl Home {
    /// The Helm variable, the XDG variable and the default under the home directory (Linux's, as Helm's
    /// `xdg` defaults on Unix other than macOS).
    fn variables(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Home::Config => ("HELM_CONFIG_HOME", "XDG_CONFIG_HOME", ".config"),
            Home::Cache => ("HELM_CACHE_HOME", "XDG_CACHE_HOME", ".cache"),
            Home::Data => ("HELM_DATA_HOME", "XDG_DATA_HOME", ".local/share"),
        }
    }

    /// `helmpath.ConfigPath(elem)`, `CachePath(elem)` or `DataPath(elem)` in the environment `lookup` gives
    /// (`lazypath.path`: a set Helm variable is used as it is, without `helm` appended).
    pub fn path(self, elem: &str, lookup: &impl Fn(&str) -> Option<String>) -> PathBuf {
        let (helm, xdg, default) = self.variables();
        let set = |name: &str| lookup(name).filter(|value| !value.is_empty());
        match set(helm) {
            Some(base) => join(Path::new(&base), elem),
            None => {
                let base = set(xdg).map_or_else(|| home_dir(lookup).join(default), PathBuf::from);
                join(&base.join("helm"), elem)
            }
        }
    }
}

impl HelmPaths {
    /// The paths for this process's environment.
    pub fn from_env() -> HelmPaths {
        HelmPaths::from_lookup(|name| std::env::var(name).ok())
    }

    /// The paths for an environment given as a lookup (`EnvSettings`' `envOr` with `helmpath` defaults).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> HelmPaths {
        let set = |name: &str| lookup(name).filter(|value| !value.is_empty());
        let lazy = |home: Home, elem: &str| home.path(elem, &lookup);
        let or = |name: &str, default: PathBuf| set(name).map_or(default, PathBuf::from);
        HelmPaths {
            repository_config: or("HELM_REPOSITORY_CONFIG", lazy(Home::Config, "repositories.yaml")),
            repository_cache: or("HELM_REPOSITORY_CACHE", lazy(Home::Cache, "repository")),
            registry_config: or("HELM_REGISTRY_CONFIG", lazy(Home::Config, "registry/config.json")),
            content_cache: or("HELM_CONTENT_CACHE", lazy(Home::Cache, "content")),
        }
    }

    /// `<cache>/<name>-index.yaml` (`helmpath.CacheIndexFile`).
    pub fn index_file(&self, repository: &str) -> PathBuf {
        self.repository_cache.join(cache_index_file(repository))
    }

    /// `<cache>/<name>-charts.txt` (`helmpath.CacheChartsFile`).
    pub fn charts_file(&self, repository: &str) -> PathBuf {
        self.repository_cache.join(cache_charts_file(repository))
    }
}

/// `helmpath.CacheIndexFile`.
pub fn cache_index_file(name: &str) -> String {
    if name.is_empty() { "index.yaml".to_string() } else { format!("{name}-index.yaml") }
}

/// `helmpath.CacheChartsFile`.
pub fn cache_charts_file(name: &str) -> String {
    if name.is_empty() { "charts.txt".to_string() } else { format!("{name}-charts.txt") }
}

/// client-go's `homedir.HomeDir` on Unix: `$HOME`, else the current directory's root as Go falls back.
fn home_dir(lookup: &impl Fn(&str) -> Option<String>) -> PathBuf {
    lookup("HOME").filter(|home| !home.is_empty()).map_or_else(|| PathBuf::from("/"), PathBuf::from)
}

/// `filepath.Join(base, elem)` for the one relative element these paths use.
fn join(base: &Path, elem: &str) -> PathBuf {
    if elem.is_empty() { base.to_path_buf() } else { base.join(elem) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(vars: &[(&str, &str)]) -> HelmPaths {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        HelmPaths::from_lookup(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    /// The environment, then the expected repository config, repository cache and registry config.
    type Case = (&'static [(&'static str, &'static str)], &'static str, &'static str, &'static str);

    #[test]
    fn helm_variables_then_xdg_then_home_as_helmpath_orders_them() {
        let table: [Case; 4] = [
            (
                &[("HOME", "/h")],
                "/h/.config/helm/repositories.yaml",
                "/h/.cache/helm/repository",
                "/h/.config/helm/registry/config.json",
            ),
            (
                &[("HOME", "/h"), ("XDG_CONFIG_HOME", "/x"), ("XDG_CACHE_HOME", "/c")],
                "/x/helm/repositories.yaml",
                "/c/helm/repository",
                "/x/helm/registry/config.json",
            ),
            (
                &[("HOME", "/h"), ("XDG_CONFIG_HOME", "/x"), ("HELM_CONFIG_HOME", "/hc"), ("HELM_CACHE_HOME", "/cc")],
                "/hc/repositories.yaml",
                "/cc/repository",
                "/hc/registry/config.json",
            ),
            (
                &[
                    ("HOME", "/h"),
                    ("HELM_REPOSITORY_CONFIG", "/r.yaml"),
                    ("HELM_REPOSITORY_CACHE", "/rc"),
                    ("HELM_REGISTRY_CONFIG", "/reg.json"),
                ],
                "/r.yaml",
                "/rc",
                "/reg.json",
            ),
        ];
        for (vars, config, cache, registry) in table {
            let found = paths(vars);
            assert_eq!(found.repository_config, PathBuf::from(config), "{vars:?}");
            assert_eq!(found.repository_cache, PathBuf::from(cache), "{vars:?}");
            assert_eq!(found.registry_config, PathBuf::from(registry), "{vars:?}");
        }
        assert_eq!(paths(&[("HOME", "/h")]).content_cache, PathBuf::from("/h/.cache/helm/content"));
        assert_eq!(paths(&[("HOME", "/h")]).index_file("x"), PathBuf::from("/h/.cache/helm/repository/x-index.yaml"));
        assert_eq!(cache_charts_file(""), "charts.txt");
        let lookup = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
        };
        assert_eq!(
            Home::Data.path("plugins", &lookup(&[("HOME", "/h")])),
            PathBuf::from("/h/.local/share/helm/plugins")
        );
        assert_eq!(Home::Data.path("", &lookup(&[("HOME", "/h"), ("XDG_DATA_HOME", "/d")])), PathBuf::from("/d/helm"));
        assert_eq!(Home::Data.path("starters", &lookup(&[("HELM_DATA_HOME", "/hd")])), PathBuf::from("/hd/starters"));
    }
}
