//! `berth search repo|hub`: the charts of the configured repositories' cached indexes, ranked and printed as
//! `helm search repo` prints them ([`berth::search`], [`berth::helm_table`]). `search hub` needs Artifact Hub
//! on the internet, which berth does not reach: it says so.

use super::global_args::Globals;
use super::output::print_stdout;
use crate::cli::error::{Error, ExitCode};
use berth::search::{SearchIndex, SearchOptions, SearchResult};
use berth::settings::HelmEnvironment;
use berth_source::download::load_repo_file;
use berth_source::repository::load_index_file;
use clap::{Args, Subcommand, ValueEnum};

#[derive(Debug, Clone, Args)]
pub struct SearchArgs {
    #[command(subcommand)]
    pub command: SearchCommand,
}

#[derive(Debug, Clone, Subcommand)]
pub enum SearchCommand {
    /// Search the charts of the repositories added with `repo add` (their cached indexes).
    Repo(SearchRepoArgs),
    /// Search Artifact Hub (refused: berth does not reach the internet).
    Hub(SearchHubArgs),
}

/// Helm's `-o` formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Table,
    Json,
    Yaml,
}

#[derive(Debug, Clone, Args)]
pub struct SearchRepoArgs {
    /// The keywords (joined with spaces); every chart when none is given.
    pub keyword: Vec<String>,
    /// Use a regular expression for searching.
    #[arg(short = 'r', long)]
    pub regexp: bool,
    /// Show every version of each chart, not only the newest.
    #[arg(short = 'l', long)]
    pub versions: bool,
    /// Include development versions (alpha, beta, release candidates); ignored with `--version`.
    #[arg(long)]
    pub devel: bool,
    /// Search using a semantic version constraint.
    #[arg(long)]
    pub version: Option<String>,
    /// The maximum column width of the table.
    #[arg(long, default_value_t = 50)]
    pub max_col_width: usize,
    /// Fail when nothing is found.
    #[arg(long)]
    pub fail_on_no_result: bool,
    /// The output format.
    #[arg(short, long, value_enum, default_value = "table")]
    pub output: OutputFormat,
}

#[derive(Debug, Clone, Args)]
pub struct SearchHubArgs {
    /// The keywords.
    pub keyword: Vec<String>,
}

pub fn run(args: &SearchArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let settings = &globals.environment;
    match &args.command {
        SearchCommand::Repo(repo) => run_repo(repo, settings),
        SearchCommand::Hub(_) => Err(Error::Usage(
            "search hub needs Artifact Hub (artifacthub.io), which berth does not reach; add the repository with \
             `repo add` and use `search repo`"
                .to_string(),
        )),
    }
}

fn failed(reason: impl Into<String>) -> Error {
    Error::Helm("cannot search repositories".to_string(), reason.into().into())
}

fn run_repo(args: &SearchRepoArgs, settings: &HelmEnvironment) -> Result<ExitCode, Error> {
    let paths = &settings.paths;
    let repositories = load_repo_file(&paths.repository_config).unwrap_or_default();
    if repositories.repositories.is_empty() {
        return Err(failed("no repositories configured"));
    }
    let mut index = SearchIndex::default();
    for entry in &repositories.repositories {
        match load_index_file(&paths.index_file(&entry.name)) {
            Ok(file) => index.add_repository(&entry.name, &file),
            Err(error) => tracing::warn!(repo = entry.name, error, "repo is corrupt or missing"),
        }
    }
    let options = SearchOptions {
        keyword: (!args.keyword.is_empty()).then(|| args.keyword.join(" ")),
        regexp: args.regexp,
        versions: args.versions,
        devel: args.devel,
        version: args.version.clone(),
    };
    let results =
        index.search(&options).map_err(|error| Error::Helm("cannot search repositories".into(), error.into()))?;
    if results.is_empty() && args.fail_on_no_result {
        return Err(failed("no results found"));
    }
    let text = match args.output {
        OutputFormat::Table if results.is_empty() => "No results found\n".to_string(),
        OutputFormat::Table => table(&results, args.max_col_width),
        OutputFormat::Json => json(&results),
        OutputFormat::Yaml => yaml(&results)?,
    };
    print_stdout(&text).map(|()| ExitCode::Success)
}

/// The table `repoSearchWriter.WriteTable` prints.
fn table(results: &[SearchResult], max_column_width: usize) -> String {
    let mut rows = vec![["NAME", "CHART VERSION", "APP VERSION", "DESCRIPTION"].map(str::to_string).to_vec()];
    rows.extend(results.iter().map(|result| {
        vec![
            result.name.clone(),
            result.chart.version.clone(),
            result.app_version().to_string(),
            result.description().to_string(),
        ]
    }));
    format!("{}\n", berth::helm_table::render(&rows, max_column_width))
}

/// `repoChartElement` list as Go's `encoding/json` writes it (one line).
fn json(results: &[SearchResult]) -> String {
    let string = berth_go::json::quote;
    let elements: Vec<String> = results
        .iter()
        .map(|result| {
            format!(
                "{{\"name\":{},\"version\":{},\"app_version\":{},\"description\":{}}}",
                string(&result.name),
                string(&result.chart.version),
                string(result.app_version()),
                string(result.description())
            )
        })
        .collect();
    format!("[{}]\n", elements.join(","))
}

/// The same list as Helm's YAML (keys sorted, as sigs.k8s.io/yaml writes them).
fn yaml(results: &[SearchResult]) -> Result<String, Error> {
    use berth_go::Value;
    let list = Value::list(results.iter().map(|result| {
        Value::map([
            ("app_version", Value::String(result.app_version().into())),
            ("description", Value::String(result.description().into())),
            ("name", Value::String(result.name.as_str().into())),
            ("version", Value::String(result.chart.version.as_str().into())),
        ])
    }));
    berth_goyaml::to_yaml(&list)
        .map_err(|error| Error::Helm("cannot print the results".into(), error.to_string().into()))
}
