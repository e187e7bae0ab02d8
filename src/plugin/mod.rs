//! Helm 4 plugins (internal/plugin): `plugin.yaml` in both of Helm 4's forms ([`metadata`]), the installed
//! plugins of `$HELM_PLUGINS` ([`store`]), installing from a directory or archive and removing them
//! ([`install`]), packaging, signing and verifying plugin archives ([`package`], [`sign`], [`verify`]), and running the subprocess runtime: a `cli/v1` plugin as a subcommand, a `postrenderer/v1`
//! plugin on rendered manifests, hooks ([`run`], with the program line of [`command`]).
//!
//! berth uses Helm's plugin directory and Helm's layout in it, so a plugin installed by either tool is listed,
//! run and removed by both. Only the `subprocess` runtime runs (Helm's `extism/v1` WebAssembly plugins are
//! listed, and refused when run).

pub mod command;
pub mod install;
pub mod metadata;
pub mod package;
pub mod run;
pub mod sign;
pub mod store;
pub mod verify;

pub use install::{InstallOptions, Installed, install, uninstall, update};
pub use metadata::{Metadata, PlatformCommand, PluginConfig};
pub use run::{PostRenderer, run_cli_plugin};
pub use store::{Plugin, find_plugin, find_plugins, load_all, signing_status};

/// Why a plugin could not be found, installed or run; the texts are Helm's where Helm words them.
#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    #[error("failed to read plugin at {path:?}: open {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("failed to load plugin {directory:?}")]
    Load {
        directory: String,
        #[source]
        source: metadata::MetadataError,
    },
    #[error("two plugins claim the name {name:?} at {first:?} and {second:?}")]
    Duplicate { name: String, first: String, second: String },
    #[error("plugin: {{Name:{name} Type:{plugin_type}}} not found")]
    NotFound { name: String, plugin_type: String },
    #[error("plugin: {0} not found")]
    NotInstalled(String),
    #[error("plugin already exists")]
    AlreadyExists,
    #[error("plugin does not exist")]
    DoesNotExist,
    #[error(
        "cannot get information about plugin source {source_name:?} (if it's a local directory, does it exist?), last \
         error was: {reason}"
    )]
    Source { source_name: String, reason: String },
    #[error("{0}")]
    Unsupported(String),
    #[error("expected plugin to be a directory (containing a file 'plugin.yaml')")]
    NotADirectory,
    #[error("plugin metadata (plugin.yaml) missing")]
    MissingMetadata,
    #[error("plugin verification failed: no provenance file (.prov) found")]
    NoProvenance,
    #[error("plugin verification failed")]
    Verification(#[source] crate::provenance::ProvenanceError),
    #[error("failed to extract plugin metadata from tarball: {0}")]
    ArchiveMetadata(String),
    #[error("failed to extract archive: {0}")]
    Extract(String),
    #[error("plugin is installed but unusable")]
    Unusable(#[source] Box<PluginError>),
    #[error("{step} {path}: {reason}")]
    Io { step: &'static str, path: String, reason: String },
    #[error("failed to prepare plugin command")]
    Command(#[source] command::NoCommand),
    #[error("plugin {name:?} uses the {runtime} runtime, which berth does not run (only subprocess plugins)")]
    Runtime { name: String, runtime: String },
    #[error("cannot start plugin {name:?}: {reason}")]
    Start { name: String, reason: String },
    /// Helm's `InvokeExecError`: the plugin ran and exited non-zero; Helm exits with its code.
    #[error("plugin {name:?} exited with error")]
    Exited { name: String, code: i32 },
    #[error("plugin {event} hook for {name:?} exited with error")]
    Hook { event: String, name: String },
    #[error("failed to invoke post-renderer plugin {name:?}")]
    PostRenderer {
        name: String,
        #[source]
        source: Box<PluginError>,
    },
    #[error("post-renderer {0:?} produced empty output")]
    EmptyOutput(String),
    #[error(transparent)]
    Stream(#[from] crate::post_render::StreamError),
    #[error("error reading from keyring: {0}")]
    Keyring(String),
    /// A provenance failure, worded as Helm words it (`private key not found`, `openpgp: ...`, `sha256 sum ...`).
    #[error(transparent)]
    Signature(crate::provenance::ProvenanceError),
    /// The passphrase could not be had (the prompt failed) or does not open the key.
    #[error("{0}")]
    Passphrase(String),
    #[error("specified reading passphrase from stdin, without input on stdin")]
    NoStdinPassphrase,
    #[error("plugin package only supports directories, not tarballs")]
    PackageNotDirectory,
    #[error("invalid plugin directory")]
    InvalidDirectory(#[source] Box<PluginError>),
    #[error("failed to create tarball: {0}")]
    CreateTarball(String),
    #[error("failed to create plugin tarball: {0}")]
    WriteTarball(String),
    #[error("failed to sign plugin: {0}")]
    SignPlugin(String),
    #[error("directory verification not supported - only plugin tarballs can be verified")]
    VerifyDirectory,
    #[error("plugin file must be a gzipped tarball (.tar.gz or .tgz)")]
    NotATarball,
    #[error("could not find provenance file {path}: stat {path}: {reason}")]
    ProvenanceMissing { path: String, reason: String },
}

impl PluginError {
    /// An I/O failure of `step` on `path`.
    fn io(step: &'static str, path: &std::path::Path, error: &std::io::Error) -> PluginError {
        PluginError::Io { step, path: path.display().to_string(), reason: berth_source::io_text(error) }
    }
}
