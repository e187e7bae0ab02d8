//! `berth plugin install|list|uninstall|update` over Helm's plugin directory ([`berth::plugin`]), `plugin
//! package|verify` of plugin archives ([`berth::plugin::package`], [`berth::plugin::verify`]), and running an installed `cli/v1` plugin as a
//! subcommand (`berth NAME ARGS...`).

use super::global_args::{Globals, Personality};
use super::output::print_stdout;
use crate::cli::error::{Error, ExitCode};
use berth::plugin::{self, InstallOptions, PluginError};
use berth::settings::HelmEnvironment;
use berth_source::download::error_chain;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Clone, Args)]
pub struct PluginArgs {
    #[command(subcommand)]
    pub command: PluginCommand,
}

#[derive(Debug, Clone, Subcommand)]
pub enum PluginCommand {
    /// Install a plugin from a local directory (linked) or a `.tgz` (verified against its `.prov`).
    #[command(alias = "add")]
    Install(InstallArgs),
    /// List the installed plugins.
    #[command(alias = "ls")]
    List(ListArgs),
    /// Uninstall plugins.
    #[command(aliases = ["rm", "remove"])]
    Uninstall(NamesArgs),
    /// Update plugins (a plugin linked from a local directory is always current).
    #[command(alias = "up")]
    Update(NamesArgs),
    /// Package a plugin directory into a plugin archive (signed by default).
    Package(PackageArgs),
    /// Verify that a plugin archive has been signed and is valid (its `.prov` against a keyring).
    Verify(VerifyArgs),
}

#[derive(Debug, Clone, Args)]
pub struct PackageArgs {
    /// The plugin directory.
    pub path: PathBuf,
    /// Use a PGP private key to sign this plugin (`--sign=false` skips it).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub sign: bool,
    /// Name of the key to use when signing.
    #[arg(long, default_value = "")]
    pub key: String,
    /// Location of a keyring with the secret key (default: `$GNUPGHOME/pubring.gpg`, else
    /// `~/.gnupg/pubring.gpg`).
    #[arg(long)]
    pub keyring: Option<PathBuf>,
    /// Location of a file which contains the passphrase for the signing key; `-` reads standard input.
    #[arg(long)]
    pub passphrase_file: Option<PathBuf>,
    /// Location to write the plugin tarball.
    #[arg(short = 'd', long, default_value = ".")]
    pub destination: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct VerifyArgs {
    /// The plugin archive (`.tgz`); its provenance is `<PATH>.prov`.
    pub path: PathBuf,
    /// Keyring containing public keys (default: `$GNUPGHOME/pubring.gpg`, else `~/.gnupg/pubring.gpg`).
    #[arg(long)]
    pub keyring: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct InstallArgs {
    /// A plugin directory, or a `.tgz`/`.tar.gz` archive.
    pub source: String,
    /// Verify an archive's signature (its `.prov`) before installing; `--verify=false` skips it.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub verify: bool,
    /// The public keys to verify with (default: `$GNUPGHOME/pubring.gpg`, else `~/.gnupg/pubring.gpg`).
    #[arg(long)]
    pub keyring: Option<PathBuf>,
    /// A version constraint (for version-control sources, which berth does not install from).
    #[arg(long)]
    pub version: Option<String>,
    /// Helm's download settings for plugins from HTTP servers and registries (`--ca-file`, `--cert-file`,
    /// `--key-file`, `--insecure-skip-tls-verify`, `--plain-http`, `--username`, `--password`; berth's shared
    /// set also has `--pass-credentials`). As in Helm they do not concern a local directory or archive, the
    /// sources berth installs from, and change nothing there.
    #[command(flatten)]
    pub download: super::source_args::AccessArgs,
}

#[derive(Debug, Clone, Args)]
pub struct ListArgs {
    /// Only plugins of this type (`cli/v1`, `postrenderer/v1`, ...).
    #[arg(long = "type")]
    pub plugin_type: Option<String>,
    /// Helm's `plugin list` takes any arguments and ignores them (cobra's default for a subcommand without an
    /// `Args` check).
    #[arg(hide = true)]
    pub ignored: Vec<String>,
}

#[derive(Debug, Clone, Args)]
pub struct NamesArgs {
    /// The plugins' names.
    pub names: Vec<String>,
}

fn failed(what: String, error: PluginError) -> Error {
    Error::Helm(what, Box::new(error))
}

pub fn run(args: &PluginArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let settings = &globals.environment;
    match &args.command {
        PluginCommand::Install(install) => run_install(install, settings),
        PluginCommand::List(list) => run_list(list, settings),
        PluginCommand::Uninstall(names) => {
            run_each(names, "uninstall", "Uninstalled", |name| plugin::uninstall(name, settings))
        }
        PluginCommand::Update(names) => run_each(names, "update", "Updated", |name| plugin::update(name, settings)),
        PluginCommand::Package(package) => run_package(package).map_err(|error| {
            refused(globals.personality, format!("cannot package plugin `{}`", package.path.display()), error)
        }),
        PluginCommand::Verify(verify) => run_verify(verify).map_err(|error| {
            refused(globals.personality, format!("cannot verify plugin `{}`", verify.path.display()), error)
        }),
    }
}

/// A `plugin package|verify` failure: as `helm`, Helm's words alone; as `berth`, what failed and why.
fn refused(personality: Personality, what: String, error: Failure) -> Error {
    match (error, personality) {
        (Failure::Plugin(error), Personality::Helm) => Error::Usage(error_chain(&error)),
        (Failure::Plugin(error), Personality::Berth) => failed(what, error),
        (Failure::Output(error), _) => error,
    }
}

/// What stops `plugin package|verify`: the plugin's failure, or stdout that cannot be written.
enum Failure {
    Plugin(PluginError),
    Output(Error),
}

impl From<PluginError> for Failure {
    fn from(error: PluginError) -> Failure {
        Failure::Plugin(error)
    }
}

impl From<Error> for Failure {
    fn from(error: Error) -> Failure {
        Failure::Output(error)
    }
}

/// `plugin package` (plugin_package.go `run`): the directory checked, the destination made, the key unlocked
/// before anything is written, then the archive and its `.prov`.
fn run_package(args: &PackageArgs) -> Result<ExitCode, Failure> {
    use berth::plugin::package::{check_directory, package};
    use berth::plugin::sign::{Passphrase, signing_key};
    let metadata = check_directory(&args.path)?;
    std::fs::create_dir_all(&args.destination).map_err(|error| PluginError::Io {
        step: "mkdir",
        path: args.destination.display().to_string(),
        reason: berth_source::io_text(&error),
    })?;
    let key = if args.sign {
        let keyring = args.keyring.clone().unwrap_or_else(berth::provenance::default_keyring);
        let mut prompt = prompt_passphrase;
        let passphrase = match &args.passphrase_file {
            Some(path) => Passphrase::File(path),
            None => Passphrase::Prompt(&mut prompt),
        };
        Some(signing_key(&keyring, &args.key, passphrase)?)
    } else {
        print_stdout(
            "WARNING: Skipping plugin signing. This is not recommended for plugins intended for distribution.\n",
        )?;
        None
    };
    let packaged = package(&args.path, &metadata, &args.destination, key.as_ref())?;
    if let Some(provenance) = &packaged.provenance {
        print_stdout(&format!("Successfully signed. Signature written to: {}\n", provenance.display()))?;
    }
    print_stdout(&format!("Successfully packaged plugin and saved it to: {}\n", packaged.archive.display()))?;
    Ok(ExitCode::Success)
}

/// Helm's prompt for a protected key's passphrase: on stdout, read from a terminal without echo; without a
/// terminal Helm's `term.ReadPassword` fails as Go words it.
fn prompt_passphrase(name: &str) -> Result<String, String> {
    use std::io::IsTerminal as _;
    print_stdout(&format!("Password for key {} >  ", berth_go::strconv::quote(name)))
        .map_err(|error| error.to_string())?;
    let read = if std::io::stdin().is_terminal() {
        console::Term::stdout().read_secure_line().map_err(|error| berth_source::io_text(&error))
    } else {
        Err("inappropriate ioctl for device".to_string())
    };
    print_stdout("\n").map_err(|error| error.to_string())?;
    read
}

/// `plugin verify` (plugin_verify.go `run`).
fn run_verify(args: &VerifyArgs) -> Result<ExitCode, Failure> {
    let keyring = args.keyring.clone().unwrap_or_else(berth::provenance::default_keyring);
    let verification = berth::plugin::verify::verify(&args.path, &keyring)?;
    print_stdout(&verification.report_for("Plugin"))?;
    Ok(ExitCode::Success)
}

fn run_install(args: &InstallArgs, settings: &HelmEnvironment) -> Result<ExitCode, Error> {
    let options = InstallOptions {
        verify: args.verify,
        keyring: args.keyring.clone().unwrap_or_else(berth::provenance::default_keyring),
    };
    let mut printed = Ok(());
    let mut say = |line: &str| {
        if printed.is_ok() {
            printed = print_stdout(&format!("{line}\n"));
        }
    };
    let installed = plugin::install(&args.source, &options, settings, &mut say)
        .map_err(|error| failed(format!("cannot install plugin `{}`", args.source), error))?;
    printed?;
    print_stdout(&format!("Installed plugin: {}\n", installed.plugin.metadata.name))?;
    Ok(ExitCode::Success)
}

fn run_list(args: &ListArgs, settings: &HelmEnvironment) -> Result<ExitCode, Error> {
    let plugins = plugin::find_plugins(&settings.plugin_directories(), None, args.plugin_type.as_deref())
        .map_err(|error| failed("cannot list plugins".to_string(), error))?;
    let data_plugins = plugin::install::data_plugins(settings);
    let mut rows = vec![["NAME", "VERSION", "TYPE", "APIVERSION", "PROVENANCE", "SOURCE"].map(str::to_string).to_vec()];
    for found in &plugins {
        let metadata = &found.metadata;
        let source = if metadata.source_url.is_empty() { "unknown" } else { metadata.source_url.as_str() };
        rows.push(vec![
            metadata.name.clone(),
            metadata.version.clone(),
            metadata.plugin_type.clone(),
            metadata.api_version.clone(),
            plugin::signing_status(found, &data_plugins).to_string(),
            source.to_string(),
        ]);
    }
    print_stdout(&format!("{}\n", berth::helm_table::render(&rows, 0)))?;
    Ok(ExitCode::Success)
}

/// Uninstall or update each plugin named, reporting each; the failures together at the end, as Helm joins them.
fn run_each(
    args: &NamesArgs,
    verb: &str,
    done: &str,
    action: impl Fn(&str) -> Result<(), PluginError>,
) -> Result<ExitCode, Error> {
    if args.names.is_empty() {
        return Err(Error::Usage(format!("please provide plugin name to {verb}")));
    }
    let mut failures = Vec::new();
    for name in &args.names {
        match action(name) {
            Ok(()) => print_stdout(&format!("{done} plugin: {name}\n"))?,
            Err(PluginError::NotInstalled(name)) => failures.push(format!("plugin: {name} not found")),
            Err(error) => failures.push(format!("failed to {verb} plugin {name}, got error ({})", error_chain(&error))),
        }
    }
    if failures.is_empty() {
        return Ok(ExitCode::Success);
    }
    Err(Error::Usage(failures.join("\n")))
}

/// `berth NAME ARGS...` for an installed `cli/v1` plugin: the plugin runs with Helm's environment and berth
/// exits with its exit code.
pub fn run_external(arguments: &[String], globals: &Globals) -> Result<ExitCode, Error> {
    let settings = &globals.environment;
    let Some((name, rest)) = arguments.split_first() else {
        return Err(Error::Usage("no command given".to_string()));
    };
    let found = plugin::find_plugins(&settings.command_plugin_directories(), Some(name), Some("cli/v1"))
        .map_err(|error| failed(format!("cannot load plugin `{name}`"), error))?;
    let Some(found) = found.into_iter().next() else {
        return Err(Error::Usage(match globals.personality {
            Personality::Berth => {
                format!("unknown command {name:?} for \"berth\" (and no plugin of that name is installed)")
            }
            Personality::Helm => format!("unknown command {name:?} for \"helm\"\nRun 'helm --help' for usage."),
        }));
    };
    match plugin::run_cli_plugin(&found, rest, settings, &super::env::helm_bin()) {
        Ok(()) => Ok(ExitCode::Success),
        Err(PluginError::Exited { name, code }) => {
            eprintln!("Error: plugin {name:?} exited with error");
            Ok(ExitCode::Plugin(code))
        }
        Err(error) => Err(failed(format!("cannot run plugin `{name}`"), error)),
    }
}
