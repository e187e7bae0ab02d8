//! `berth repo add|update|list|remove|index`: Helm's chart repositories, in Helm's own `repositories.yaml` and
//! index cache (the same files, variables and lock), so a repository added with either tool is used by both.
//! Repository URLs are shown redacted everywhere (`repo list` included): a password in one is printed `xxxxx`.

use super::global_args::{Globals, Personality};
use super::output::print_stdout;
use super::source_args::environment;
use crate::cli::error::{Error, ExitCode};
use berth_source::download::{error_chain, load_repo_file};
use berth_source::file_lock::{LOCK_TIMEOUT, lock_repository_config};
use berth_source::http::HttpClient;
use berth_source::redact;
use berth_source::repo_file::{Entry, RepoFile};
use berth_source::repository::download_index;
use berth_source::tls::TlsOptions;
use clap::{Args, Subcommand, ValueEnum};
use std::io::Read as _;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct RepoArgs {
    #[command(subcommand)]
    pub command: RepoCommand,
}

#[derive(Debug, Subcommand)]
pub enum RepoCommand {
    /// Add a chart repository (its index is downloaded and cached).
    Add(AddArgs),
    /// Download the newest indexes of all (or the named) repositories.
    #[command(alias = "up")]
    Update(UpdateArgs),
    /// List the configured repositories.
    #[command(alias = "ls")]
    List(ListArgs),
    /// Remove repositories and their cached indexes.
    #[command(alias = "rm")]
    Remove(RemoveArgs),
    /// Write index.yaml for a directory of packaged charts.
    Index(IndexArgs),
}

#[derive(Debug, Args)]
pub struct AddArgs {
    pub name: String,
    pub url: String,
    #[arg(long)]
    pub username: Option<String>,
    #[arg(long)]
    pub password: Option<String>,
    /// Read the password from standard input.
    #[arg(long)]
    pub password_stdin: bool,
    /// Send the credentials to every host.
    #[arg(long = "pass-credentials")]
    pub pass_credentials: bool,
    /// Replace the repository if it exists with other settings.
    #[arg(long)]
    pub force_update: bool,
    #[arg(long, value_name = "FILE")]
    pub cert_file: Option<PathBuf>,
    #[arg(long, value_name = "FILE")]
    pub key_file: Option<PathBuf>,
    #[arg(long, value_name = "FILE")]
    pub ca_file: Option<PathBuf>,
    #[arg(long)]
    pub insecure_skip_tls_verify: bool,
    /// Allow the repositories Helm's project deleted for good.
    #[arg(long)]
    pub allow_deprecated_repos: bool,
    /// How long the index download may take (Helm's default: 2m).
    #[arg(long, default_value = "2m", value_parser = super::common_args::duration_arg)]
    pub timeout: std::time::Duration,
}

#[derive(Debug, Args)]
pub struct UpdateArgs {
    pub names: Vec<String>,
    /// How long each index download may take (Helm's default: 2m).
    #[arg(long, default_value = "2m", value_parser = super::common_args::duration_arg)]
    pub timeout: std::time::Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    Table,
    Json,
    Yaml,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[arg(short, long, value_enum, default_value = "table")]
    pub output: ListFormat,
    #[arg(long)]
    pub no_headers: bool,
}

#[derive(Debug, Args)]
pub struct RemoveArgs {
    #[arg(required = true)]
    pub names: Vec<String>,
}

#[derive(Debug, Args)]
pub struct IndexArgs {
    pub directory: PathBuf,
    /// The repository's URL (chart URLs become absolute).
    #[arg(long)]
    pub url: Option<String>,
    /// Merge the generated index into this one.
    #[arg(long)]
    pub merge: Option<PathBuf>,
    /// Write JSON instead of YAML.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: RepoArgs, globals: &Globals) -> Result<ExitCode, Error> {
    match args.command {
        RepoCommand::Add(add) => super::runtime::runtime()?.block_on(run_add(add, globals)),
        RepoCommand::Update(update) => super::runtime::runtime()?.block_on(run_update(update, globals)),
        RepoCommand::List(list) => run_list(&list, globals),
        RepoCommand::Remove(remove) => run_remove(&remove, globals),
        RepoCommand::Index(index) => super::repo_index::run(
            &index.directory,
            index.url.as_deref().unwrap_or_default(),
            index.merge.as_deref(),
            index.json,
        ),
    }
}

fn failed(what: &str, reason: impl Into<String>) -> Error {
    Error::from_source(what.to_string(), berth_source::SourceError::Other(reason.into()))
}

/// Repositories Helm's project removed for good, and where they went.
const DEPRECATED: [(&str, &str); 2] = [
    ("//kubernetes-charts.storage.googleapis.com", "https://charts.helm.sh/stable"),
    ("//kubernetes-charts-incubator.storage.googleapis.com", "https://charts.helm.sh/incubator"),
];

async fn run_add(args: AddArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let what = format!("cannot add repository `{}`", args.name);
    if !args.allow_deprecated_repos
        && let Some((_, replacement)) = DEPRECATED.iter().find(|(old, _)| args.url.contains(old))
    {
        return Err(failed(&what, format!("repo {:?} is no longer available; try {replacement:?} instead", args.url)));
    }
    let env = environment(&globals.environment);
    let config = env.paths.repository_config.clone();
    let _lock = lock_repository_config(&config, LOCK_TIMEOUT).map_err(|reason| failed(&what, reason))?;
    let mut file = match std::fs::read(&config) {
        Ok(data) => RepoFile::parse(&data).map_err(|reason| failed(&what, reason))?,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => RepoFile::default(),
        Err(error) => {
            return Err(failed(&what, format!("open {}: {}", config.display(), berth_source::io_text(&error))));
        }
    };
    let username = args.username.clone().unwrap_or_default();
    let mut password = args.password.clone().unwrap_or_default();
    if !username.is_empty() && password.is_empty() && !args.password_stdin {
        if globals.personality != Personality::Helm {
            return Err(Error::Usage("--username needs a password: pass --password-stdin (or --password)".to_string()));
        }
        // As Helm's `repo add`: asked for on the terminal, the line ended whatever happens.
        print_stdout("Password: ")?;
        let read = super::registry::hidden_line();
        if read.is_err() {
            print_stdout("\n")?;
        }
        password = read?;
    } else if !username.is_empty() && password.is_empty() {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|error| failed(&what, format!("reading the password: {error}")))?;
        let line = text.strip_suffix('\n').unwrap_or(&text);
        password = line.strip_suffix('\r').unwrap_or(line).to_string();
    }
    let path_text = |path: &Option<PathBuf>| path.as_ref().map(|path| path.display().to_string()).unwrap_or_default();
    let entry = Entry {
        name: args.name.clone(),
        url: args.url.clone(),
        username,
        password,
        pass_credentials_all: args.pass_credentials,
        cert_file: path_text(&args.cert_file),
        key_file: path_text(&args.key_file),
        ca_file: path_text(&args.ca_file),
        insecure_skip_tls_verify: args.insecure_skip_tls_verify,
    };
    if args.name.contains('/') {
        return Err(failed(
            &what,
            format!("repository name ({}) contains '/', please specify a different name without '/'", args.name),
        ));
    }
    if !args.force_update
        && let Some(existing) = file.get(&args.name)
    {
        if *existing != entry {
            return Err(failed(
                &what,
                format!("repository name ({}) already exists, please specify a different name", args.name),
            ));
        }
        print_stdout(&format!("{:?} already exists with the same configuration, skipping\n", args.name))?;
        return Ok(ExitCode::Success);
    }
    let client = HttpClient::new(&TlsOptions::from_entry(&entry), args.timeout)
        .map_err(|error| Error::from_source(what.clone(), error))?;
    if let Err(error) = download_index(&entry, &env.paths.repository_cache, &client, env.progress.as_ref()).await {
        return Err(match error {
            berth_source::repository::IndexError::Fetch(fetch) => Error::from_source(
                what.clone(),
                berth_source::SourceError::NotARepository {
                    url: args.url.clone(),
                    source: Box::new(berth_source::SourceError::Fetch(fetch)),
                },
            ),
            other => failed(
                &format!("looks like {:?} is not a valid chart repository or cannot be reached", args.url),
                error_chain(&other),
            ),
        });
    }
    file.update(entry);
    write_repo_file(&config, &file).map_err(|reason| failed(&what, reason))?;
    print_stdout(&format!("{:?} has been added to your repositories\n", args.name))?;
    Ok(ExitCode::Success)
}

/// Writes `repositories.yaml` as Helm does (mode 0600).
fn write_repo_file(path: &std::path::Path, file: &RepoFile) -> Result<(), String> {
    let text = file.render()?;
    berth_source::write_atomic(path, text.as_bytes(), 0o600)
}

async fn run_update(args: UpdateArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let what = "cannot update repositories";
    let env = environment(&globals.environment);
    let no_repositories = || failed(what, "no repositories found. You must add one before updating");
    if !env.paths.repository_config.exists() {
        return Err(no_repositories());
    }
    let file =
        load_repo_file(&env.paths.repository_config).map_err(|error| Error::from_source(what.to_string(), error))?;
    if file.repositories.is_empty() {
        return Err(no_repositories());
    }
    for name in &args.names {
        if file.get(name).is_none() {
            return Err(failed(what, format!("no repositories found matching '{name}'.  Nothing will be updated")));
        }
    }
    print_stdout("Hang tight while we grab the latest from your chart repositories...\n")?;
    let mut failed_urls = Vec::new();
    for entry in file.repositories.iter().filter(|entry| args.names.is_empty() || args.names.contains(&entry.name)) {
        let result = match HttpClient::new(&TlsOptions::from_entry(entry), args.timeout) {
            Ok(client) => download_index(entry, &env.paths.repository_cache, &client, env.progress.as_ref())
                .await
                .map(|_| ())
                .map_err(|error| error_chain(&error)),
            Err(error) => Err(error.to_string()),
        };
        match result {
            Ok(()) => {
                print_stdout(&format!("...Successfully got an update from the {:?} chart repository\n", entry.name))?
            }
            Err(error) => {
                print_stdout(&format!(
                    "...Unable to get an update from the {:?} chart repository ({}):\n\t{}\n",
                    entry.name,
                    redact::urls(&entry.url),
                    redact::urls(&error)
                ))?;
                failed_urls.push(entry.url.clone());
            }
        }
    }
    if !failed_urls.is_empty() {
        return Err(failed(what, format!("failed to update the following repositories: [{}]", failed_urls.join(" "))));
    }
    print_stdout("Update Complete. ⎈Happy Helming!⎈\n")?;
    Ok(ExitCode::Success)
}

fn run_list(args: &ListArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let env = environment(&globals.environment);
    let file = load_repo_file(&env.paths.repository_config).unwrap_or_default();
    if file.repositories.is_empty() && args.output == ListFormat::Table {
        eprintln!("no repositories to show");
        return Ok(ExitCode::Success);
    }
    match args.output {
        ListFormat::Table => {
            let mut rows = Vec::new();
            if !args.no_headers {
                rows.push(vec!["NAME".to_string(), "URL".to_string()]);
            }
            rows.extend(file.repositories.iter().map(|entry| vec![entry.name.clone(), redact::urls(&entry.url)]));
            // Helm's `uitable.New()`: no column width limit.
            print_stdout(&format!("{}\n", berth::helm_table::render(&rows, 0)))?;
        }
        ListFormat::Json => {
            let list: Vec<serde_json::Value> = file
                .repositories
                .iter()
                .map(|entry| serde_json::json!({"name": entry.name, "url": redact::urls(&entry.url)}))
                .collect();
            let text = serde_json::to_string(&list).map_err(|error| Error::Usage(error.to_string()))?;
            print_stdout(&format!("{text}\n"))?;
        }
        ListFormat::Yaml => {
            let list = berth_go::Value::list(file.repositories.iter().map(|entry| {
                let url = redact::urls(&entry.url);
                berth_go::Value::map([("name", entry.name.as_str().into()), ("url", url.as_str().into())])
            }));
            let text = berth_goyaml::to_yaml(&list).map_err(|error| Error::Usage(error.to_string()))?;
            print_stdout(&text)?;
        }
    }
    Ok(ExitCode::Success)
}

fn run_remove(args: &RemoveArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let what = "cannot remove repositories";
    let env = environment(&globals.environment);
    let mut file = load_repo_file(&env.paths.repository_config).unwrap_or_default();
    if file.repositories.is_empty() {
        return Err(failed(what, "no repositories configured"));
    }
    for name in &args.names {
        if !file.remove(name) {
            return Err(failed(what, format!("no repo named {name:?} found")));
        }
        write_repo_file(&env.paths.repository_config, &file).map_err(|reason| failed(what, reason))?;
        let _ = std::fs::remove_file(env.paths.charts_file(name));
        match std::fs::remove_file(env.paths.index_file(name)) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => {
                return Err(failed(
                    what,
                    format!(
                        "can't remove index file {}: {}",
                        env.paths.index_file(name).display(),
                        berth_source::io_text(&error)
                    ),
                ));
            }
        }
        print_stdout(&format!("{name:?} has been removed from your repositories\n"))?;
    }
    Ok(ExitCode::Success)
}
