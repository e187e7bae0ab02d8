//! `berth push CHART.tgz oci://HOST/PATH`: a packaged chart uploaded as Helm's OCI artifact (config, chart layer,
//! provenance layer when `CHART.tgz.prov` exists; Helm's media types and annotations, created at the archive's
//! modification time), tagged with the chart's version (`+` written `_`), so `helm pull` reads it.

use super::global_args::Globals;
use super::source_args::{AccessArgs, environment};
use crate::cli::error::{Error, ExitCode};
use berth_source::SourceError;
use berth_source::download::ChartOptions;
use berth_source::oci::manifest::chart_artifact;
use berth_source::oci::reference::{Reference, is_oci};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct PushArgs {
    /// The packaged chart.
    pub chart: PathBuf,
    /// `oci://HOST/PATH`: the chart goes to `HOST/PATH/<name>:<version>`.
    pub remote: String,
    /// Helm's `push` reads its first two arguments and ignores any after them (`require.MinimumNArgs(2)`).
    #[arg(hide = true)]
    pub ignored: Vec<String>,
    #[command(flatten)]
    pub access: AccessArgs,
}

pub fn run(args: PushArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let what = format!("cannot push {}", args.chart.display());
    let other = |reason: String| Error::from_source(what.clone(), SourceError::Other(reason));
    if let Some(problem) = remote_problem(&args.remote) {
        return Err(other(problem));
    }
    let metadata = std::fs::metadata(&args.chart).map_err(|error| match error.kind() {
        std::io::ErrorKind::NotFound => other(format!("{}: no such file", args.chart.display())),
        _ => other(format!("stat {}: {}", args.chart.display(), berth_source::io_text(&error))),
    })?;
    if metadata.is_dir() {
        return Err(other("cannot push directory, must provide chart archive (.tgz)".to_string()));
    }
    let data = std::fs::read(&args.chart)
        .map_err(|error| other(format!("read {}: {}", args.chart.display(), berth_source::io_text(&error))))?;
    let chart = berth_chart::load::load_archive(&data).map_err(|error| other(error.to_string()))?.chart;
    let prov_path = PathBuf::from(format!("{}.prov", args.chart.display()));
    let prov = std::fs::read(&prov_path).ok();
    let remote = args.remote.trim_start_matches("oci://").trim_end_matches('/');
    let reference =
        Reference::parse(&format!("{remote}/{}:{}", chart.metadata.name, chart.metadata.version)).map_err(other)?;
    // "The time the chart was created is semantically the time the chart archive file was last written."
    let modified = metadata
        .modified()
        .ok()
        .and_then(|time| jiff::Timestamp::try_from(time).ok())
        .unwrap_or_else(jiff::Timestamp::now);
    let created = rfc3339_local(modified);
    let artifact = chart_artifact(&data, prov.as_deref(), &chart.metadata, &created);
    let options = ChartOptions {
        credentials: args.access.credentials(),
        plain_http: args.access.plain_http,
        tls: args.access.tls(),
        ..ChartOptions::default()
    };
    super::runtime::runtime()?.block_on(async {
        let registry = environment(&globals.environment).registry(&reference.registry, &options).map_err(|error| Error::from_source(what.clone(), error))?;
        let digest = registry.push_chart(&reference, &artifact).await.map_err(|error| Error::from_source(what.clone(), error))?;
        eprintln!("Pushed: {}", reference.display());
        eprintln!("Digest: {digest}");
        if reference.tag.contains('_') {
            eprintln!("{} contains an underscore.", reference.display());
            eprintln!(
                "\nOCI artifact references (e.g. tags) do not support the plus sign (+). To support\nstoring semantic versions, Helm adopts the convention of changing plus (+) to\nan underscore (_) in chart version tags when pushing to a registry and back to\na plus (+) when pulling from a registry."
            );
        }
        Ok(ExitCode::Success)
    })
}

/// Go's `time.RFC3339` in the local zone (`Z` for UTC).
fn rfc3339_local(time: jiff::Timestamp) -> String {
    let zoned = time.to_zoned(jiff::tz::TimeZone::system());
    let text = zoned.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string();
    match text.strip_suffix("+00:00") {
        Some(utc) => format!("{utc}Z"),
        None => text,
    }
}

/// What Helm's `ChartUploader.UploadTo` says of a remote that is not `oci://...`: Go's `url.Parse` fails on it (a
/// first path segment holding a colon, `127.0.0.1:5000/charts`), it has no scheme, or one no pusher takes
/// (`localhost:5000/charts` reads as scheme `localhost`).
fn remote_problem(remote: &str) -> Option<String> {
    if is_oci(remote) {
        return None;
    }
    let invalid = || Some(format!("invalid chart URL format: {remote}"));
    if remote.chars().any(char::is_control) {
        return invalid();
    }
    match go_url_scheme(remote) {
        Err(()) => invalid(),
        Ok(Some(scheme)) if scheme.eq_ignore_ascii_case("oci") => None,
        Ok(Some(scheme)) => Some(format!("scheme {} not supported", berth_go::strconv::quote(&scheme.to_lowercase()))),
        Ok(None)
            if !remote.starts_with('/') && remote.split('/').next().is_some_and(|segment| segment.contains(':')) =>
        {
            invalid()
        }
        Ok(None) => Some("scheme prefix missing from remote (e.g. \"oci://\")".to_string()),
    }
}

/// Go's `net/url` `getScheme`: letters, then digits, `+`, `-` or `.`, up to a colon; `Err` for a colon first.
fn go_url_scheme(raw: &str) -> Result<Option<&str>, ()> {
    for (index, character) in raw.char_indices() {
        match character {
            'a'..='z' | 'A'..='Z' => {}
            '0'..='9' | '+' | '-' | '.' if index > 0 => {}
            ':' if index == 0 => return Err(()),
            ':' => return Ok(Some(&raw[..index])),
            _ => return Ok(None),
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::remote_problem;

    #[test]
    fn remotes_are_refused_as_helms_uploader_refuses_them() {
        assert_eq!(remote_problem("oci://127.0.0.1:5000/charts"), None);
        assert_eq!(
            remote_problem("127.0.0.1:5000/charts").as_deref(),
            Some("invalid chart URL format: 127.0.0.1:5000/charts")
        );
        assert_eq!(remote_problem(":x").as_deref(), Some("invalid chart URL format: :x"));
        assert_eq!(remote_problem("localhost:5000/charts").as_deref(), Some("scheme \"localhost\" not supported"));
        assert_eq!(remote_problem("https://charts.example").as_deref(), Some("scheme \"https\" not supported"));
        assert_eq!(
            remote_problem("charts.example/charts").as_deref(),
            Some("scheme prefix missing from remote (e.g. \"oci://\")")
        );
    }
}
