//! The release queries, as Helm 4 answers them: `list` (pkg/cmd/list.go), `history` (history.go), `status`
//! (status.go): their flags, the read, and their `-o table|json|yaml` shapes (uitable's tab-separated tables,
//! `releaseElement`, `releaseInfo`, the status text or the record). As `berth`, `status` adds the readiness of
//! each of the release's objects now (a `RESOURCES:` table; `resources` in JSON and YAML).

use super::common_args::OutputFormat;
use super::global_args::{Globals, Personality};
use super::output::print_stdout;
use super::release_resources::{Representation, live_resources};
use super::runtime::Interrupts;
use crate::cli::error::{Error, ExitCode, NameCheck, check_release_name};
use berth::observe::ResourceStatus;
use berth::release::list::{ListQuery, Sort, States, select};
use berth::release::show::{self, Format, StatusView};
use berth::release::{HelmTime, LifecycleError, Release, Storage};
use clap::Args;
use serde::Serialize;

#[derive(Debug, Args)]
pub struct ListArgs {
    /// List releases across all namespaces.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    #[arg(short, long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
    /// Output the names only.
    #[arg(short = 'q', long)]
    pub short: bool,
    /// Do not print the header of the table.
    #[arg(long)]
    pub no_headers: bool,
    /// Format the time with a Go layout (`2006-01-02 15:04:05Z0700`).
    #[arg(long, value_name = "LAYOUT")]
    pub time_format: Option<String>,
    /// Sort by release date.
    #[arg(short = 'd', long)]
    pub date: bool,
    /// Reverse the sort order.
    #[arg(short = 'r', long)]
    pub reverse: bool,
    /// Show deployed releases.
    #[arg(long)]
    pub deployed: bool,
    /// Show failed releases.
    #[arg(long)]
    pub failed: bool,
    /// Show pending releases.
    #[arg(long)]
    pub pending: bool,
    /// Show superseded releases.
    #[arg(long)]
    pub superseded: bool,
    /// Show uninstalled releases (uninstalled with `--keep-history`).
    #[arg(long)]
    pub uninstalled: bool,
    /// Show releases being uninstalled.
    #[arg(long)]
    pub uninstalling: bool,
    /// At most this many releases (0 or less: all, as Helm's int flag).
    #[arg(short = 'm', long, default_value_t = 256)]
    pub max: i64,
    /// Skip this many releases first.
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    /// A regular expression release names must match.
    #[arg(short = 'f', long, value_name = "REGEXP")]
    pub filter: Option<String>,
    /// A label selector on the release records' labels (`key=value`, `key!=value`, `key in (a,b)`).
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    #[arg(value_name = "RELEASE_NAME")]
    pub name: String,
    /// At most this many revisions, the latest (0 or less: none, as Helm's `min(len(hist), client.Max)`).
    #[arg(long, default_value_t = 256)]
    pub max: i64,
    #[arg(short, long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    #[arg(value_name = "RELEASE_NAME")]
    pub name: String,
    /// This revision instead of the latest (0 or less: the latest, as Helm's int flag).
    #[arg(long, value_name = "REVISION")]
    pub revision: Option<i64>,
    #[arg(short, long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
    /// Each object of the release as the cluster holds it and the Pods its workloads select, as Helm 4 always
    /// shows them (and berth as `helm`): `-o json|yaml` in `info.resources`, the table as the server's tables under
    /// `RESOURCES:` (instead of berth's readiness).
    #[arg(long)]
    pub show_resources: bool,
    /// Helm 3's flag: Helm 4 always shows the description (accepted, changes nothing).
    #[arg(long, hide = true)]
    pub show_desc: bool,
    /// Judge custom resources without the built-in health rules (berth's readiness table).
    #[arg(long)]
    pub no_builtin_rules: bool,
}

/// The release queries, one entry point.
#[derive(Debug)]
pub enum QueryCommand {
    List(ListArgs),
    History(HistoryArgs),
    Status(StatusArgs),
}

/// Runs a query and prints its answer.
///
/// # Errors
/// [`Error`] when the cluster cannot be read, the release does not exist, or an argument is wrong.
pub fn run(command: QueryCommand, globals: &Globals) -> Result<ExitCode, Error> {
    match &command {
        QueryCommand::History(HistoryArgs { name, .. }) => check_release_name(name, NameCheck::History)?,
        QueryCommand::Status(StatusArgs { name, .. }) => check_release_name(name, NameCheck::Content)?,
        QueryCommand::List(_) => {}
    }
    super::runtime::runtime()?.block_on(async move {
        let interrupts = Interrupts::install();
        let text = interrupts.unless_cancelled("while reading the release", answer(&command, globals)).await?;
        print_stdout(&text)?;
        Ok(ExitCode::Success)
    })
}

async fn answer(command: &QueryCommand, globals: &Globals) -> Result<String, Error> {
    // Helm sets up its storage driver before it connects (`Configuration.Init`): a bad `HELM_DRIVER` fails first.
    let driver = globals.storage_driver()?;
    // Only a status that reads the release's objects resolves kinds; the other queries read records alone, so
    // they skip discovery (Helm's list and history ask the server's version and then the records).
    let reads_objects = match command {
        QueryCommand::Status(_) => true,
        QueryCommand::List(_) | QueryCommand::History(_) => false,
    };
    let (cluster, _simulated) =
        if reads_objects { globals.connect().await? } else { globals.connect_for_records().await? };
    let in_namespace = Storage::open(&driver, cluster.client.clone(), Some(&cluster.default_namespace));
    let read = |error: berth::release::StorageError| Error::Release(error.into());
    match command {
        QueryCommand::List(args) => {
            let storage =
                if args.all_namespaces { Storage::open(&driver, cluster.client.clone(), None) } else { in_namespace };
            let query = list_query(args);
            let mut releases = storage.list().await.map_err(read)?;
            if query.states.is_superseded_only() {
                // Helm lists every superseded revision then, not only each release's latest.
                let mut revisions = Vec::new();
                for release in &releases {
                    revisions.extend(storage.history(&release.name).await.map_err(read)?);
                }
                releases = revisions;
            }
            let releases = select(releases, &query).map_err(|error| Error::Usage(error.to_string()))?;
            list_text(&releases, args)
        }
        QueryCommand::History(args) => {
            let storage = in_namespace;
            tracing::debug!(release = args.name.as_str(), "getting history for release");
            let history = storage.history(&args.name).await.map_err(read)?;
            if history.is_empty() {
                return Err(Error::Release(LifecycleError::NotFound(args.name.clone())));
            }
            history_text(&history, args.max, args.output)
        }
        QueryCommand::Status(args) => {
            let storage = in_namespace;
            let name = &args.name;
            // Helm's `releaseContent`: 0 or less is the latest; a revision past u32 is one no release has.
            let release = match args.revision.filter(|revision| *revision > 0).map(u32::try_from) {
                Some(Ok(version)) => storage.get(name, version).await.map_err(read)?,
                Some(Err(_)) => None,
                None => storage.last(name).await.map_err(read)?,
            };
            let mut release = release.ok_or_else(|| Error::Release(LifecycleError::NotFound(name.clone())))?;
            let format = Format::from(args.output);
            let manifests = berth::release::recorded_manifests(&release).unwrap_or_default();
            // Helm 4 reads the objects for every status (`-o json|yaml`: as objects in `info.resources`; the table:
            // as the server's tables under `RESOURCES:`); as berth, `--show-resources` asks for the same.
            let helm_resources = args.show_resources || globals.personality == Personality::Helm;
            if format != Format::Table && helm_resources {
                let live = live_resources(&cluster, &manifests, Representation::Objects).await;
                if let Some(resources) = super::release_resources::resources_json(live) {
                    release.info.extra.insert("resources".to_string(), resources);
                }
            }
            let tables = if format == Format::Table && helm_resources {
                Some(super::resource_tables::section(
                    &live_resources(&cluster, &manifests, Representation::Tables).await,
                ))
            } else {
                None
            };
            let resources = match (globals.personality, &tables) {
                (Personality::Helm, _) | (Personality::Berth, Some(_)) => None,
                (Personality::Berth, None) => {
                    let rules =
                        std::sync::Arc::new(berth::health::HealthRules::new().with_builtin(!args.no_builtin_rules));
                    // A manifest that does not read as objects shows no rows.
                    Some(berth::observe::resource_statuses(&cluster, &manifests, &rules).await)
                }
            };
            status_text(&release, resources.as_deref(), tables.as_deref(), args.output)
        }
    }
}

fn list_query(args: &ListArgs) -> ListQuery {
    ListQuery {
        filter: args.filter.clone(),
        states: States {
            deployed: args.deployed,
            failed: args.failed,
            pending: args.pending,
            superseded: args.superseded,
            uninstalled: args.uninstalled,
            uninstalling: args.uninstalling,
        },
        selector: args.selector.clone(),
        sort: Sort { by_date: args.date, reverse: args.reverse },
        // Helm keeps every release for a limit of 0 or less (`action.List.Run`), as a `max` of 0 does here.
        max: usize::try_from(args.max).unwrap_or(0),
        offset: args.offset,
    }
}

/// Helm's `releaseElement`.
#[derive(Debug, Serialize)]
struct ListEntry {
    name: String,
    namespace: String,
    revision: String,
    updated: String,
    status: String,
    chart: String,
    app_version: String,
}

fn chart_label(release: &Release) -> String {
    format!("{}-{}", release.chart.metadata.name, release.chart.metadata.version)
}

fn app_version(release: &Release) -> String {
    release.chart.metadata.app_version.clone().unwrap_or_default()
}

/// A release's time as `helm list` shows it: Go's `Time.String()`, the `--time-format` layout, or `-`.
fn list_time(time: Option<HelmTime>, layout: Option<&str>) -> String {
    let Some(time) = time else { return "-".to_string() };
    match layout.filter(|layout| !layout.is_empty()) {
        None => time.go_string(),
        Some(layout) => {
            let offset = time.offset.seconds();
            let location = if offset == 0 {
                berth_go::time::Location::Utc
            } else {
                berth_go::time::Location::Fixed(String::new(), offset)
            };
            let go_time = berth_go::time::Time {
                seconds: time.timestamp.as_second(),
                nanos: u32::try_from(time.timestamp.subsec_nanosecond()).unwrap_or_default(),
                location,
            };
            go_time.format(layout)
        }
    }
}

fn list_text(releases: &[Release], args: &ListArgs) -> Result<String, Error> {
    if args.short {
        let names: Vec<&str> = releases.iter().map(|release| release.name.as_str()).collect();
        return Ok(match args.output {
            OutputFormat::Table => names.iter().map(|name| format!("{name}\n")).collect(),
            OutputFormat::Json => show::encode_json(&names, "names")?,
            OutputFormat::Yaml => show::encode_yaml(&names, "names")?,
        });
    }
    let entries: Vec<ListEntry> = releases
        .iter()
        .map(|release| ListEntry {
            name: release.name.clone(),
            namespace: release.namespace.clone(),
            revision: release.version.to_string(),
            updated: list_time(release.info.last_deployed, args.time_format.as_deref()),
            status: release.info.status.to_string(),
            chart: chart_label(release),
            app_version: app_version(release),
        })
        .collect();
    Ok(match args.output {
        OutputFormat::Json => show::encode_json(&entries, "releases")?,
        OutputFormat::Yaml => show::encode_yaml(&entries, "releases")?,
        OutputFormat::Table => {
            let mut rows = Vec::new();
            if !args.no_headers {
                rows.push(
                    ["NAME", "NAMESPACE", "REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION"]
                        .map(str::to_string)
                        .to_vec(),
                );
            }
            for entry in entries {
                rows.push(vec![
                    entry.name,
                    entry.namespace,
                    entry.revision,
                    entry.updated,
                    entry.status,
                    entry.chart,
                    entry.app_version,
                ]);
            }
            format!("{}\n", berth::helm_table::render(&rows, 0))
        }
    })
}

/// Helm's `releaseInfo`: `updated` left out when the record has no time.
#[derive(Debug, Serialize)]
struct HistoryEntry {
    revision: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    updated: Option<HelmTime>,
    status: String,
    chart: String,
    app_version: String,
    description: String,
}

/// The latest `max` revisions, oldest first, in Helm's shapes.
fn history_text(history: &[Release], max: i64, output: OutputFormat) -> Result<String, Error> {
    let max = usize::try_from(max).unwrap_or(0);
    let kept = &history[history.len().saturating_sub(max)..];
    let entries: Vec<HistoryEntry> = kept
        .iter()
        .map(|release| HistoryEntry {
            revision: release.version,
            updated: release.info.last_deployed,
            status: release.info.status.to_string(),
            chart: chart_label(release),
            app_version: app_version(release),
            description: release.info.description.clone(),
        })
        .collect();
    Ok(match output {
        OutputFormat::Json => show::encode_json(&entries, "history")?,
        OutputFormat::Yaml => show::encode_yaml(&entries, "history")?,
        OutputFormat::Table => {
            let mut rows = vec![
                ["REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION", "DESCRIPTION"].map(str::to_string).to_vec(),
            ];
            for entry in entries {
                rows.push(vec![
                    entry.revision.to_string(),
                    HelmTime::ansic(entry.updated),
                    entry.status,
                    entry.chart,
                    entry.app_version,
                    entry.description,
                ]);
            }
            format!("{}\n", berth::helm_table::render(&rows, 0))
        }
    })
}

/// `status`: Helm's status text with `tables` (Helm's `RESOURCES:` section) or, as `berth`, the readiness of each
/// object as its `RESOURCES:` (after the description, where Helm prints its resources); or the record without its
/// chart (as `berth`, with `resources`).
fn status_text(
    release: &Release,
    resources: Option<&[ResourceStatus]>,
    tables: Option<&str>,
    output: OutputFormat,
) -> Result<String, Error> {
    let format = Format::from(output);
    if format != Format::Table {
        let mut extra = serde_json::Map::new();
        if let Some(resources) = resources {
            extra.insert(
                "resources".to_string(),
                serde_json::Value::Array(resources.iter().map(resource_json).collect()),
            );
        }
        return Ok(show::status_record(release, extra, format)?);
    }
    let text =
        show::status(release, StatusView { debug: false, show_metadata: false, hide_notes: false, fresh: false })?;
    let section = match (tables, resources.filter(|resources| !resources.is_empty())) {
        (Some(tables), _) => tables.to_string(),
        (None, Some(resources)) => {
            let mut rows = vec![["NAMESPACE", "KIND", "NAME", "STATUS", "MESSAGE"].map(str::to_string).to_vec()];
            for resource in resources {
                rows.push(vec![
                    resource.object.namespace.clone().unwrap_or_default(),
                    resource.object.kind.clone(),
                    resource.object.name.clone(),
                    resource.status.to_string(),
                    resource.message.clone(),
                ]);
            }
            format!("RESOURCES:\n{}\n\n", berth::helm_table::render(&rows, 0))
        }
        (None, None) => return Ok(text),
    };
    let description = format!("DESCRIPTION: {}\n", release.info.description);
    Ok(match text.find(&description) {
        Some(at) => format!("{}{section}{}", &text[..at + description.len()], &text[at + description.len()..]),
        None => format!("{text}{section}"),
    })
}

fn resource_json(resource: &ResourceStatus) -> serde_json::Value {
    serde_json::json!({
        "apiVersion": resource.object.api_version,
        "kind": resource.object.kind,
        "namespace": resource.object.namespace.clone().unwrap_or_default(),
        "name": resource.object.name,
        "status": resource.status,
        "message": resource.message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use berth::release::ReleaseStatus;

    fn release(version: u32, status: ReleaseStatus, description: &str) -> Release {
        let mut release =
            Release { name: "shop".to_string(), namespace: "default".to_string(), version, ..Release::default() };
        release.info.status = status;
        release.info.description = description.to_string();
        release.info.last_deployed = "2026-05-01T10:11:12.5Z".parse().ok();
        release.chart.metadata.name = "shop".to_string();
        release.chart.metadata.version = "1.2.0".to_string();
        release.chart.metadata.app_version = Some("2.0".to_string());
        release
    }

    #[test]
    fn history_prints_as_helm_history() {
        let history = [
            release(1, ReleaseStatus::Superseded, "Install complete"),
            release(2, ReleaseStatus::Deployed, "Upgrade complete"),
        ];
        assert_eq!(
            history_text(&history, 256, OutputFormat::Table).expect("table"),
            "REVISION\tUPDATED                 \tSTATUS    \tCHART     \tAPP VERSION\tDESCRIPTION     \n\
             1       \tFri May  1 10:11:12 2026\tsuperseded\tshop-1.2.0\t2.0        \tInstall complete\n\
             2       \tFri May  1 10:11:12 2026\tdeployed  \tshop-1.2.0\t2.0        \tUpgrade complete\n"
        );
        assert_eq!(
            history_text(&history, 1, OutputFormat::Json).expect("json"),
            "[{\"revision\":2,\"updated\":\"2026-05-01T10:11:12.5Z\",\"status\":\"deployed\",\"chart\":\"shop-1.2.0\",\
             \"app_version\":\"2.0\",\"description\":\"Upgrade complete\"}]\n"
        );
        assert!(history_text(&history, 0, OutputFormat::Yaml).expect("yaml").starts_with("[]"));
    }

    #[test]
    fn list_times_follow_go_layouts() {
        let time = "2026-05-01T10:11:12.5Z".parse().ok();
        assert_eq!(list_time(time, None), "2026-05-01 10:11:12.5 +0000 UTC");
        assert_eq!(list_time(time, Some("2006-01-02 15:04:05Z0700")), "2026-05-01 10:11:12Z");
        assert_eq!(list_time(None, Some("2006")), "-");
    }
}
