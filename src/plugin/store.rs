//! The installed plugins: every `<directory>/*/plugin.yaml` of the plugin directories, loaded as Helm 4.1.4
//! loads them (internal/plugin/loader.go `LoadAllDir`, `FindPlugins`), and the provenance status `plugin list`
//! shows (signing_info.go `GetPluginSigningInfo`).

use super::PluginError;
use super::metadata::{Metadata, parse_metadata};
use std::path::{Path, PathBuf};

/// Helm's `PluginFileName`.
pub const PLUGIN_FILE: &str = "plugin.yaml";

/// An installed plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plugin {
    /// The plugin's directory in the plugin directory (a symbolic link for one installed from a directory).
    pub directory: PathBuf,
    pub metadata: Metadata,
}

/// `LoadDir`.
///
/// # Errors
/// [`PluginError::Read`] or [`PluginError::Load`] with Helm's wording.
pub fn load_directory(directory: &Path) -> Result<Plugin, PluginError> {
    let file = directory.join(PLUGIN_FILE);
    let data = std::fs::read(&file).map_err(|error| PluginError::Read {
        path: file.display().to_string(),
        reason: berth_source::io_text(&error),
    })?;
    let metadata = parse_metadata(&data)
        .map_err(|source| PluginError::Load { directory: directory.display().to_string(), source })?;
    Ok(Plugin { directory: directory.to_path_buf(), metadata })
}

/// `LoadAllDir` with Helm's default filter: plugins that fail to load are skipped with a warning; two plugins
/// with one name are an error.
///
/// # Errors
/// [`PluginError::Duplicate`].
pub fn load_all(directory: &Path) -> Result<Vec<Plugin>, PluginError> {
    let Ok(entries) = std::fs::read_dir(directory) else { return Ok(Vec::new()) };
    // `filepath.Glob` lists matches in lexical order.
    let mut candidates: Vec<PathBuf> = entries.filter_map(Result::ok).map(|entry| entry.path()).collect();
    candidates.sort();
    let mut plugins: Vec<Plugin> = Vec::new();
    for candidate in candidates {
        if !candidate.join(PLUGIN_FILE).is_file() {
            continue;
        }
        match load_directory(&candidate) {
            Ok(plugin) => {
                if let Some(earlier) = plugins.iter().find(|earlier| earlier.metadata.name == plugin.metadata.name) {
                    return Err(PluginError::Duplicate {
                        name: plugin.metadata.name.clone(),
                        first: earlier.directory.display().to_string(),
                        second: plugin.directory.display().to_string(),
                    });
                }
                plugins.push(plugin);
            }
            Err(error) => tracing::warn!(
                plugin_yaml = %candidate.join(PLUGIN_FILE).display(),
                error = %error,
                "failed to load plugin (ignoring)"
            ),
        }
    }
    Ok(plugins)
}

/// `FindPlugins`: the plugins of every directory, in order, with this name and type when given.
///
/// # Errors
/// As [`load_all`].
pub fn find_plugins(
    directories: &[PathBuf],
    name: Option<&str>,
    plugin_type: Option<&str>,
) -> Result<Vec<Plugin>, PluginError> {
    let mut found = Vec::new();
    for directory in directories {
        for plugin in load_all(directory)? {
            let name_matches = name.is_none_or(|name| name.is_empty() || plugin.metadata.name == name);
            let type_matches = plugin_type
                .is_none_or(|plugin_type| plugin_type.is_empty() || plugin.metadata.plugin_type == plugin_type);
            if name_matches && type_matches {
                found.push(plugin);
            }
        }
    }
    Ok(found)
}

/// `FindPlugin`: the first plugin with this name and type.
///
/// # Errors
/// [`PluginError::NotFound`] (Helm's `plugin: {Name:N Type:T} not found`), or as [`load_all`].
pub fn find_plugin(directories: &[PathBuf], name: &str, plugin_type: &str) -> Result<Plugin, PluginError> {
    find_plugins(directories, Some(name), Some(plugin_type))?
        .into_iter()
        .next()
        .ok_or_else(|| PluginError::NotFound { name: name.to_string(), plugin_type: plugin_type.to_string() })
}

/// The `PROVENANCE` column of `plugin list`: `local dev` for a linked directory, `unsigned` without the archive
/// it was installed from or its `.prov`, `signed` when the `.prov` names the archive's digest, `invalid
/// provenance` or `mismatched provenance` otherwise, `unknown` when the plugin is not where Helm keeps
/// plugins (Helm looks in `$HELM_DATA_HOME/plugins`, whatever `HELM_PLUGINS` says).
pub fn signing_status(plugin: &Plugin, data_plugins: &Path) -> &'static str {
    let metadata = &plugin.metadata;
    let Ok(link) = std::fs::symlink_metadata(data_plugins.join(&metadata.name)) else { return "unknown" };
    if link.file_type().is_symlink() {
        return "local dev";
    }
    let archive = data_plugins.join(format!("{}-{}.tgz", metadata.name, metadata.version));
    let Ok(archive_data) = std::fs::read(&archive) else { return "unsigned" };
    let provenance = match std::fs::read(format!("{}.prov", archive.display())) {
        Ok(data) => data,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return "unsigned",
        Err(_) => return "unknown",
    };
    let Ok(signed) = crate::provenance::Clearsigned::parse(&provenance) else { return "invalid provenance" };
    let digest = crate::provenance::sha256_digest(&archive_data);
    let base = archive.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    let matches = crate::provenance::file_sums(&signed.plaintext)
        .is_ok_and(|sums| sums.iter().any(|(file, sum)| file.contains(&base) && *sum == digest));
    if matches { "signed" } else { "mismatched provenance" }
}
