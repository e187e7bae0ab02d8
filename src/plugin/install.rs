//! `plugin install|uninstall|update` as Helm 4.1.4 does them (pkg/cmd/plugin_*.go, internal/plugin/installer):
//! a local directory is linked into `$HELM_DATA_HOME/plugins` ("local dev"); a local `.tgz`/`.tar.gz` is
//! verified against its `.prov` (unless `--verify=false`), kept there as `<name>-<version>.tgz` and unpacked
//! into the plugin's directory. URLs, OCI references and version-control sources need the network or tools
//! berth does not use: they are refused with a clear message.

use super::PluginError;
use super::run::run_hook;
use super::store::{PLUGIN_FILE, Plugin, load_all, load_directory};
use crate::settings::HelmEnvironment;
use std::path::{Path, PathBuf};

/// The archive suffixes Helm's extractors take.
const ARCHIVE_SUFFIXES: [&str; 2] = [".tar.gz", ".tgz"];

/// `--verify` and `--keyring` of `plugin install`.
#[derive(Debug, Clone)]
pub struct InstallOptions {
    /// Verify an archive's `.prov` before installing (Helm's default).
    pub verify: bool,
    pub keyring: PathBuf,
}

/// What an install did.
#[derive(Debug, Clone)]
pub struct Installed {
    pub plugin: Plugin,
    pub verification: Option<crate::provenance::Verification>,
}

/// Where Helm keeps installed plugins (`helmpath.DataPath("plugins")`, whatever `HELM_PLUGINS` lists).
pub fn data_plugins(settings: &HelmEnvironment) -> PathBuf {
    settings.data_home.join("plugins")
}

/// `stripPluginName`: the archive suffix, then a `-<version>` tail, taken off a file name.
fn strip_plugin_name(name: &str) -> String {
    let stripped = ARCHIVE_SUFFIXES.iter().find_map(|suffix| name.strip_suffix(suffix)).unwrap_or_default();
    // `(.*)-[0-9]+\..*`: the last `-` followed by digits and a dot.
    let cut = stripped.char_indices().filter(|(_, c)| *c == '-').map(|(index, _)| index).rev().find(|&index| {
        let rest = &stripped[index + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        digits > 0 && rest.as_bytes().get(digits) == Some(&b'.')
    });
    match cut {
        Some(index) => stripped[..index].to_string(),
        None => stripped.to_string(),
    }
}

fn is_archive(source: &str) -> bool {
    ARCHIVE_SUFFIXES.iter().any(|suffix| source.ends_with(suffix))
}

/// `plugin install SOURCE`. `say` receives the lines Helm prints on the way, in order.
///
/// # Errors
/// [`PluginError`] with Helm's message for the step that failed; nothing is left installed then.
pub fn install(
    source: &str,
    options: &InstallOptions,
    settings: &HelmEnvironment,
    say: &mut dyn FnMut(&str),
) -> Result<Installed, PluginError> {
    if source.starts_with("oci://") {
        return Err(PluginError::Unsupported(format!(
            "cannot install plugin {source:?}: berth installs plugins from a local directory or archive; pull the \
             archive first"
        )));
    }
    let path = Path::new(source);
    if !path.exists() {
        let reason = if source.starts_with("http://") || source.starts_with("https://") {
            "berth does not download plugins; download the archive and its .prov, then install the file"
        } else if !source.contains("://") && !source.contains('@') {
            // A path that is not there: Helm tries it as a repository whose kind Masterminds/vcs cannot tell.
            "Cannot detect VCS"
        } else {
            "berth does not install plugins from version control"
        };
        return Err(PluginError::Source { source_name: source.to_string(), reason: reason.to_string() });
    }
    let absolute = std::path::absolute(path).map_err(|error| PluginError::io("stat", path, &error))?;
    let plugins = data_plugins(settings);
    let base = absolute.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    let archive = is_archive(source);
    let destination = plugins.join(if archive { strip_plugin_name(&base) } else { base.clone() });
    let mut verification = None;
    let verify = archive && options.verify;
    if !archive {
        say("Installing plugin from local directory (development mode)");
    } else if verify {
        say("Verifying plugin signature...");
    } else {
        say("WARNING: Skipping plugin signature verification");
    }
    // `InstallWithOptions`.
    std::fs::create_dir_all(&plugins).map_err(|error| PluginError::io("mkdir", &plugins, &error))?;
    if std::fs::symlink_metadata(&destination).is_ok() {
        tracing::warn!(path = %destination.display(), "plugin already exists");
        return Err(PluginError::AlreadyExists);
    }
    if archive {
        let data = std::fs::read(&absolute).map_err(|error| PluginError::io("read", &absolute, &error))?;
        let provenance_path = PathBuf::from(format!("{}.prov", absolute.display()));
        let provenance = std::fs::read(&provenance_path).ok();
        if verify {
            let provenance = provenance.as_deref().filter(|data| !data.is_empty()).ok_or(PluginError::NoProvenance)?;
            let keyring = crate::provenance::load_keyring(&options.keyring).map_err(PluginError::Verification)?;
            verification = Some(
                crate::provenance::verify_archive(&data, &base, provenance, &keyring)
                    .map_err(PluginError::Verification)?,
            );
        }
        install_archive(&data, provenance.as_deref(), &base, &plugins, &destination)?;
    } else {
        let metadata = std::fs::metadata(&absolute).map_err(|error| PluginError::io("stat", &absolute, &error))?;
        if !metadata.is_dir() {
            return Err(PluginError::NotADirectory);
        }
        if !absolute.join(PLUGIN_FILE).is_file() {
            return Err(PluginError::MissingMetadata);
        }
        std::os::unix::fs::symlink(&absolute, &destination)
            .map_err(|error| PluginError::io("symlink", &destination, &error))?;
    }
    if let Some(verification) = &verification {
        verification.report_for("Plugin").lines().for_each(&mut *say);
    }
    let plugin = load_directory(&destination).map_err(|error| PluginError::Unusable(Box::new(error)))?;
    run_hook(&plugin, "install")?;
    Ok(Installed { plugin, verification })
}

/// `LocalInstaller.installFromArchive`: the archive kept as `<name>-<version>.tgz` (with its `.prov`), and the
/// archive's `<plugin name>/` directory written to `destination`.
fn install_archive(
    data: &[u8],
    provenance: Option<&[u8]>,
    base: &str,
    plugins: &Path,
    destination: &Path,
) -> Result<(), PluginError> {
    let entries = berth_chart::load::tar_gz_entries(data).map_err(PluginError::ArchiveMetadata)?;
    let metadata = super::sign::archive_metadata(&entries)?;
    let kept = plugins.join(format!("{}-{}.tgz", metadata.name, metadata.version));
    std::fs::write(&kept, data).map_err(|error| PluginError::io("save", &kept, &error))?;
    if let Some(provenance) = provenance
        && let Err(error) = std::fs::write(format!("{}.prov", kept.display()), provenance)
    {
        tracing::debug!(%error, "failed to save provenance file");
    }
    let name = strip_plugin_name(base);
    let prefix = format!("{name}/");
    if !entries.iter().any(|entry| entry.name == format!("{prefix}{PLUGIN_FILE}")) {
        return Err(PluginError::Extract(format!("plugin.yaml not found in expected directory {name} of the archive")));
    }
    let written = extract(&entries, &prefix, destination);
    if written.is_err() {
        let _ = std::fs::remove_dir_all(destination);
    }
    written
}

/// Writes the entries under `prefix` into `destination`, with the extractor's refusals (`cleanJoin`): no `:`,
/// no `..`, no absolute path, only directories and regular files.
fn extract(entries: &[berth_chart::load::TarEntry], prefix: &str, destination: &Path) -> Result<(), PluginError> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::create_dir_all(destination).map_err(|error| PluginError::io("mkdir", destination, &error))?;
    for entry in entries {
        if entry.is_pax_header() {
            continue;
        }
        let name = entry.name.replace('\\', "/");
        if name.contains(':') {
            return Err(PluginError::Extract("path contains ':', which is illegal".to_string()));
        }
        if name.split('/').any(|part| part == "..") {
            return Err(PluginError::Extract("path contains '..', which is illegal".to_string()));
        }
        if name.starts_with('/') {
            return Err(PluginError::Extract("path is absolute, which is illegal".to_string()));
        }
        if !entry.is_dir() && !entry.is_regular() {
            return Err(PluginError::Extract(format!("unknown type: {:b} in {}", entry.typeflag, entry.name)));
        }
        let Some(relative) = name.strip_prefix(prefix) else { continue };
        let relative = relative.trim_end_matches('/');
        if relative.is_empty() {
            continue;
        }
        let path = destination.join(relative);
        if entry.is_dir() {
            std::fs::create_dir_all(&path).map_err(|error| PluginError::io("mkdir", &path, &error))?;
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|error| PluginError::io("mkdir", parent, &error))?;
        }
        std::fs::write(&path, &entry.data).map_err(|error| PluginError::io("write", &path, &error))?;
        let mode = u32::try_from(entry.mode & 0o777).unwrap_or(0o644);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))
            .map_err(|error| PluginError::io("chmod", &path, &error))?;
    }
    Ok(())
}

/// The installed plugin named `name` (Helm's `findPlugin` over `LoadAllDir($HELM_PLUGINS)`).
fn installed(name: &str, settings: &HelmEnvironment) -> Result<Plugin, PluginError> {
    let plugins = load_all(Path::new(&settings.plugins_directory))?;
    plugins
        .into_iter()
        .find(|plugin| plugin.metadata.name == name)
        .ok_or_else(|| PluginError::NotInstalled(name.to_string()))
}

/// `plugin uninstall NAME`: the plugin's directory (or link) removed with the archive and `.prov` it was
/// installed from, then its `delete` hook.
///
/// # Errors
/// [`PluginError::NotInstalled`], or the removal or hook failure.
pub fn uninstall(name: &str, settings: &HelmEnvironment) -> Result<(), PluginError> {
    let plugin = installed(name, settings)?;
    let directory = &plugin.directory;
    let link = std::fs::symlink_metadata(directory).map_err(|error| PluginError::io("stat", directory, &error))?;
    let removed = if link.file_type().is_symlink() {
        std::fs::remove_file(directory)
    } else {
        std::fs::remove_dir_all(directory)
    };
    removed.map_err(|error| PluginError::io("remove", directory, &error))?;
    if !plugin.metadata.version.is_empty() {
        let archive = Path::new(&settings.plugins_directory)
            .join(format!("{}-{}.tgz", plugin.metadata.name, plugin.metadata.version));
        for path in [archive.clone(), PathBuf::from(format!("{}.prov", archive.display()))] {
            if path.exists()
                && let Err(error) = std::fs::remove_file(&path)
            {
                tracing::debug!(path = %path.display(), %error, "failed to remove");
            }
        }
    }
    run_hook(&plugin, "delete")
}

/// `plugin update NAME`. Helm updates plugins installed from version control only; berth installs none, so a
/// plugin linked from a local directory is current by construction (its `update` hook runs), and any other
/// plugin is refused with Helm's message.
///
/// # Errors
/// [`PluginError::NotInstalled`], [`PluginError::Unsupported`] for a plugin that is no linked directory.
pub fn update(name: &str, settings: &HelmEnvironment) -> Result<(), PluginError> {
    let plugin = installed(name, settings)?;
    let is_link = std::fs::symlink_metadata(&plugin.directory).is_ok_and(|link| link.file_type().is_symlink());
    if !is_link {
        tracing::warn!(location = %plugin.directory.display(), "cannot get information about plugin source");
        return Err(PluginError::Unsupported("cannot get information about plugin source".to_string()));
    }
    if !plugin.directory.exists() {
        return Err(PluginError::DoesNotExist);
    }
    let updated = load_directory(&plugin.directory)?;
    run_hook(&updated, "update")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archive_names_lose_suffix_and_version_as_helm_strips_them() {
        let table = [
            ("hello-0.2.0.tgz", "hello"),
            ("hello.tar.gz", "hello"),
            ("my-plugin-1.2.3-rc.1.tgz", "my-plugin"),
            ("plugin-v1.tgz", "plugin-v1"),
            ("x.zip", ""),
        ];
        for (name, expected) in table {
            assert_eq!(strip_plugin_name(name), expected, "{name}");
        }
    }
}
