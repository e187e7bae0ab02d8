//! `berth search repo|hub`: the charts of the configured repositories' cached indexes, ranked and printed as
//! `helm search repo` prints them ([`berth::search`], [`berth::helm_table`]), and the charts a hub's search API
//! finds (Artifact Hub, or a Monocular instance), printed as `helm search hub` prints them ([`berth::hub`]).

use super::global_args::{Globals, Personality};
use super::output::print_stdout;
use crate::cli::error::{Error, ExitCode};
use berth::hub::{HubChart, HubError};
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
    /// Search for charts in the Artifact Hub or your own hub instance (a Monocular-compatible search API).
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
    /// The keywords (joined with spaces), or a quoted string of Artifact Hub's rich query options.
    pub keyword: Vec<String>,
    /// Hub instance to query for charts.
    #[arg(long, default_value = berth::hub::DEFAULT_ENDPOINT)]
    pub endpoint: String,
    /// Maximum column width for output table.
    #[arg(long, default_value_t = 50)]
    pub max_col_width: usize,
    /// Print charts repository URL.
    #[arg(long)]
    pub list_repo_url: bool,
    /// Search fails if no results are found.
    #[arg(long)]
    pub fail_on_no_result: bool,
    /// The output format.
    #[arg(short, long, value_enum, default_value = "table")]
    pub output: OutputFormat,
}

pub fn run(args: &SearchArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let settings = &globals.environment;
    match &args.command {
        SearchCommand::Repo(repo) => run_repo(repo, settings),
        SearchCommand::Hub(hub) => run_hub(hub, globals.personality),
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
    json_list(results, |result| {
        format!(
            "{{\"name\":{},\"version\":{},\"app_version\":{},\"description\":{}}}",
            string(&result.name),
            string(&result.chart.version),
            string(result.app_version()),
            string(result.description())
        )
    })
}

/// A JSON list of `items` on one line as `json.Encoder` ends it (`[]` for none).
fn json_list<T>(items: &[T], element: impl Fn(&T) -> String) -> String {
    format!("[{}]\n", items.iter().map(element).collect::<Vec<_>>().join(","))
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

/// `search hub` (search_hub.go `run`): the hub's charts, or Helm's error.
fn run_hub(args: &SearchHubArgs, personality: Personality) -> Result<ExitCode, Error> {
    let client = berth_source::http::HttpClient::new(&Default::default(), berth_source::http::DEFAULT_TIMEOUT)
        .map_err(|error| Error::from_source("cannot search the hub", error))?;
    let keywords = args.keyword.join(" ");
    let charts = super::runtime::run_then_exit(async {
        berth::hub::search(&client, &args.endpoint, &keywords).await.map_err(|error| hub_failed(error, personality))
    })?;
    if charts.is_empty() && args.fail_on_no_result {
        return Err(Error::Usage("no results found".to_string()));
    }
    let text = match args.output {
        OutputFormat::Table if charts.is_empty() => "No results found\n".to_string(),
        OutputFormat::Table => hub_table(&charts, args.max_col_width, args.list_repo_url),
        OutputFormat::Json => hub_json(&charts),
        OutputFormat::Yaml => hub_yaml(&charts)?,
    };
    print_stdout(&text).map(|()| ExitCode::Success)
}

/// A failed hub search: as `helm`, Helm's one line (which leaves out why a search failed: Helm logs that at
/// debug level only); as `berth`, the line and its causes.
fn hub_failed(error: HubError, personality: Personality) -> Error {
    match (personality, &error) {
        (Personality::Helm, HubError::Search { .. }) => {
            tracing::debug!(error = %berth_source::download::error_chain(&error), "search failed");
            Error::Usage(error.to_string())
        }
        (Personality::Helm, HubError::Connection { .. }) => Error::Usage(berth_source::download::error_chain(&error)),
        (Personality::Berth, _) => {
            let message = error.to_string();
            let cause: Box<dyn std::error::Error + Send + Sync> = match error {
                HubError::Connection { source, .. } => Box::new(source),
                HubError::Search { source, .. } => Box::new(source),
            };
            Error::Helm(message, cause)
        }
    }
}

/// The table `hubSearchWriter.WriteTable` prints.
fn hub_table(charts: &[HubChart], max_column_width: usize, list_repo_url: bool) -> String {
    let mut header = vec!["URL", "CHART VERSION", "APP VERSION", "DESCRIPTION"];
    if list_repo_url {
        header.push("REPO URL");
    }
    let mut rows = vec![header.into_iter().map(str::to_string).collect::<Vec<_>>()];
    rows.extend(charts.iter().map(|chart| {
        let mut row =
            vec![chart.url.clone(), chart.version.clone(), chart.app_version.clone(), chart.description.clone()];
        if list_repo_url {
            row.push(chart.repository_url.clone());
        }
        row
    }));
    format!("{}\n", berth::helm_table::render(&rows, max_column_width))
}

/// `hubChartElement` list as Go's `encoding/json` writes it (one line; `[]` for no chart).
fn hub_json(charts: &[HubChart]) -> String {
    let string = berth_go::json::quote;
    json_list(charts, |chart| {
        format!(
            "{{\"url\":{},\"version\":{},\"app_version\":{},\"description\":{},\"repository\":{{\"url\":{},\"name\":{}}}}}",
            string(&chart.url),
            string(&chart.version),
            string(&chart.app_version),
            string(&chart.description),
            string(&chart.repository_url),
            string(&chart.repository_name)
        )
    })
}

/// The same list as Helm's YAML (keys sorted, as sigs.k8s.io/yaml writes them).
fn hub_yaml(charts: &[HubChart]) -> Result<String, Error> {
    use berth_go::Value;
    let text = |text: &str| Value::String(text.into());
    let list = Value::list(charts.iter().map(|chart| {
        Value::map([
            ("app_version", text(&chart.app_version)),
            ("description", text(&chart.description)),
            ("repository", Value::map([("name", text(&chart.repository_name)), ("url", text(&chart.repository_url))])),
            ("url", text(&chart.url)),
            ("version", text(&chart.version)),
        ])
    }));
    berth_goyaml::to_yaml(&list)
        .map_err(|error| Error::Helm("cannot print the results".into(), error.to_string().into()))
}
