//! Loading a chart as Helm 4.1.4's `helm template`/`helm install` do (pkg/chart/loader, then the v2 loader): a
//! chart directory or a packaged `.tgz`, its `Chart.yaml` (apiVersion v1 or v2), values, schema, templates,
//! files and subcharts, with Helm's checks and error texts.
//!
//! - [`load`]: a path, directory or archive (Helm's `loader.Load`);
//! - [`load_archive`]: archive bytes already in memory (Helm's `loader.LoadArchive`);
//! - [`expand`]: a packaged chart written out to a directory (Helm's `chartutil.Expand`, `pull --untar`).

mod archive;
mod chartfile;
mod directory;
mod expand;
mod files;
mod gzip;
mod ignore;
pub(crate) mod semver;
mod tar;

use std::path::Path;

pub use archive::{
    MAX_ARCHIVE_ENTRIES, MAX_DECOMPRESSED_CHART_SIZE, MAX_DECOMPRESSED_FILE_SIZE, TarEntry, tar_gz_entries,
};
pub use expand::{ChartNameError, ExpandError, check_chart_directory_name, expand};

use crate::chart::Chart;
use crate::go::os_error;
use archive::{ArchiveError, ensure_archive, load_archive_files};

/// How deep subcharts may nest (charts inside `charts/` inside ...). Helm has no bound; archives inside archives
/// could otherwise nest until the stack ends.
pub const MAX_CHART_DEPTH: usize = 64;

/// How many charts one chart may hold with all its subcharts, at every depth. Helm has no bound: an archive of
/// 10 subchart archives of 10 subchart archives... compresses to kilobytes and loads a million charts. The largest
/// umbrella charts of the public corpus hold a few dozen.
pub const MAX_CHARTS: usize = 5_000;

/// Bytes of files one chart may hold with all its subcharts, a subchart archive counted as its bytes and again as
/// the files it unpacks to. Helm bounds each archive (100 MiB unpacked, [`MAX_DECOMPRESSED_CHART_SIZE`]), not
/// archives inside archives.
pub const MAX_LOADED_CHART_BYTES: u64 = 256 * 1024 * 1024;

pub(crate) use chartfile::string_pair;
pub use chartfile::{METADATA, RawMetadata, decode_chart_file};
pub use directory::absolute;

/// A chart could not be loaded. The message is the text Helm prints after `Error: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct LoadError {
    message: String,
}

impl LoadError {
    fn new(message: impl Into<String>) -> LoadError {
        LoadError { message: message.into() }
    }

    /// The message, as Helm words it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// A loaded chart and the lines Helm would log while loading it (`level=INFO msg="Warning: ..."`).
#[derive(Debug, Clone)]
pub struct Loaded {
    pub chart: Chart,
    pub warnings: Vec<String>,
}

/// What loading collects besides the chart.
#[derive(Debug, Default)]
pub(crate) struct LoadContext {
    pub warnings: Vec<String>,
    /// Charts loaded so far, subcharts included ([`MAX_CHARTS`]).
    pub charts: usize,
    /// Bytes of their files ([`MAX_LOADED_CHART_BYTES`]).
    pub bytes: u64,
}

impl LoadContext {
    /// A `log.Printf` line of the loader, as Helm's log handler prints it.
    fn warn(&mut self, message: &str) {
        self.warnings.push(crate::go::slog_line("INFO", message, &[]));
    }
}

/// Where a chart named on the command line is, as Helm's `LocateChart` finds a local one: the name trimmed of
/// spaces, and if it exists, its absolute path (`filepath.Abs`). berth reads no chart repositories or
/// registries, so a name that is no local path is an error, worded as Helm's when it has no such repository.
///
/// # Errors
///
/// `path "./x" not found` for an absolute or `.`-relative path; for other names Helm's answers when no repository
/// is configured: `non-absolute URLs should be in form of repo_name/path_to_chart, got: x`, `repo r not found`;
/// charts by URL (`oci://`, `https://`) are refused.
pub fn locate(name: &str) -> Result<std::path::PathBuf, LoadError> {
    let name = name.trim_matches(berth_go::strings::is_space);
    if std::fs::metadata(name).is_ok() {
        let absolute = if name.starts_with('/') {
            name.to_string()
        } else {
            let current = std::env::current_dir()
                .map_err(|error| LoadError::new(format!("getwd: {}", crate::go::errno_text(&error))))?;
            format!("{}/{name}", current.to_string_lossy())
        };
        return Ok(std::path::PathBuf::from(berth_go::path::clean(&absolute)));
    }
    if name.starts_with('/') || name.starts_with('.') {
        return Err(LoadError::new(format!("path {} not found", berth_go::strconv::quote(name))));
    }
    if name.contains("://") {
        return Err(LoadError::new(format!(
            "cannot fetch chart {}: berth reads local chart directories and archives only",
            berth_go::strconv::quote(name)
        )));
    }
    match name.split_once('/') {
        Some((repository, _)) => Err(LoadError::new(format!("repo {repository} not found"))),
        None => {
            Err(LoadError::new(format!("non-absolute URLs should be in form of repo_name/path_to_chart, got: {name}")))
        }
    }
}

/// Loads the chart at `path`, a directory or a packaged chart, as Helm's `loader.Load` does. Give the path as
/// Helm's `LocateChart` hands it over (absolute) for Helm's exact messages.
///
/// # Errors
///
/// Helm's message: a missing `Chart.yaml`, YAML errors with their line, validation errors
/// (`validation: chart.metadata.name is required`), archive refusals, subchart errors wrapped as
/// `error unpacking subchart NAME in PARENT: ...`.
pub fn load(path: impl AsRef<Path>) -> Result<Loaded, LoadError> {
    let path = path.as_ref();
    let display = path.to_string_lossy().into_owned();
    let metadata = std::fs::metadata(path).map_err(|error| LoadError::new(os_error("stat", &display, &error)))?;
    if metadata.is_dir() { load_directory(path) } else { load_file(path, &display) }
}

/// `loader.LoadDir`: the apiVersion decides the loader, then the v2 directory loader reads the chart.
fn load_directory(path: &Path) -> Result<Loaded, LoadError> {
    let top = directory::absolute(path).map_err(LoadError::new)?;
    let chart_file = format!("{top}/Chart.yaml");
    let data = std::fs::read(&chart_file).map_err(|error| {
        LoadError::new(format!("unable to detect chart at {chart_file}: {}", os_error("open", &chart_file, &error)))
    })?;
    check_api_version(&data)?;
    load_v2_directory(path)
}

/// The v2 loader's `LoadDir` alone, whatever `Chart.yaml`'s apiVersion says: what `helm lint` loads a chart
/// directory with (its rules read every apiVersion as v2 and report a bad one themselves).
///
/// # Errors
///
/// As [`load`].
pub fn load_v2_directory(path: &Path) -> Result<Loaded, LoadError> {
    let (files, log) = directory::read_dir_files(path).map_err(LoadError::new)?;
    let mut context = LoadContext { warnings: log, ..LoadContext::default() };
    let chart = files::load_files(files, &mut context, 0).map_err(LoadError::new)?;
    Ok(Loaded { chart, warnings: context.warnings })
}

/// The v2 loader's own `loader.Load` (pkg/chart/v2/loader), which Helm's `show` and `dependency` commands call
/// (pkg/action/show.go, dependency.go, pkg/downloader/manager.go) where the others call the version-detecting
/// [`load`]: no apiVersion dispatch (a `Chart.yaml` of apiVersion v3 loads as v2), a directory without
/// `Chart.yaml` is `Chart.yaml file is missing`, and an archive's error keeps its detail.
///
/// # Errors
///
/// As [`load`], in the v2 loader's words.
pub fn load_v2(path: impl AsRef<Path>) -> Result<Loaded, LoadError> {
    let path = path.as_ref();
    let display = path.to_string_lossy().into_owned();
    let metadata = std::fs::metadata(path).map_err(|error| LoadError::new(os_error("stat", &display, &error)))?;
    if metadata.is_dir() {
        return load_v2_directory(path);
    }
    let files = read_archive_file(path, &display, LoadError::new)?;
    let mut context = LoadContext::default();
    let chart = files::load_files(files, &mut context, 0).map_err(LoadError::new)?;
    Ok(Loaded { chart, warnings: context.warnings })
}

/// `loader.LoadFile`: a packaged chart on disk, read as a stream (only its first bytes are held apart, for
/// `EnsureArchive`).
fn load_file(path: &Path, display: &str) -> Result<Loaded, LoadError> {
    // The version-detecting loader reads the archive once; any failure but a bad gzip header is reported
    // without detail.
    let files = read_archive_file(path, display, |_| LoadError::new("unable to load chart archive"))?;
    load_archive_file_list(files)
}

/// The files of the packaged chart at `path` (`EnsureArchive`, then `LoadArchiveFiles`); a bad gzip header in
/// both loaders' words, any other failure of the archive as `other` words it.
fn read_archive_file(
    path: &Path,
    display: &str,
    other: fn(String) -> LoadError,
) -> Result<Vec<archive::BufferedFile>, LoadError> {
    use std::io::Read;
    let cannot_read = |error: std::io::Error| {
        LoadError::new(format!("file '{display}' cannot be read: {}", crate::go::errno_text(&error)))
    };
    let mut file = std::fs::File::open(path).map_err(|error| LoadError::new(os_error("open", display, &error)))?;
    let mut head = Vec::with_capacity(512);
    (&mut file).take(512).read_to_end(&mut head).map_err(cannot_read)?;
    ensure_archive(display, &head).map_err(LoadError::new)?;
    load_archive_files(head.as_slice().chain(file)).map_err(|error| match error {
        ArchiveError::GzipHeader => {
            LoadError::new(format!("file '{display}' does not appear to be a valid chart file (details: {error})"))
        }
        ArchiveError::Other(text) => other(text),
    })
}

/// Loads a packaged chart from its bytes, as Helm's `loader.LoadArchive` does (used for charts that arrive in
/// memory: repositories, registries, ConfigMaps).
///
/// # Errors
///
/// As [`load`]; archive errors carry their detail (`chart illegally references parent directory`).
pub fn load_archive(data: &[u8]) -> Result<Loaded, LoadError> {
    let files = load_archive_files(data).map_err(|error| match error {
        ArchiveError::GzipHeader => {
            LoadError::new(format!("stream does not appear to be a valid chart file (details: {error})"))
        }
        ArchiveError::Other(text) => LoadError::new(format!("unable to load chart archive: {text}")),
    })?;
    load_archive_file_list(files)
}

/// The files of a packaged chart as Helm's `archive.LoadArchiveFiles` reads them (paths relative to the chart's
/// top directory, archive order): what `helm pull --untar` writes out.
///
/// # Errors
///
/// As [`load_archive`].
pub fn archive_files(data: &[u8]) -> Result<Vec<(String, Vec<u8>)>, LoadError> {
    let files = load_archive_files(data).map_err(|error| match error {
        ArchiveError::GzipHeader => {
            LoadError::new(format!("stream does not appear to be a valid chart file (details: {error})"))
        }
        ArchiveError::Other(text) => LoadError::new(format!("unable to load chart archive: {text}")),
    })?;
    Ok(files.into_iter().map(|file| (file.name, file.data.to_vec())).collect())
}

/// The files of a packaged chart as [`archive_files`] gives them, with the error `archive.LoadArchiveFiles` itself
/// gives (`gzip: invalid header`, `unexpected EOF`): what `chartutil.Expand` reports, under `helm lint`.
///
/// # Errors
/// The archive reader's message, unwrapped.
pub fn expand_archive(data: &[u8]) -> Result<Vec<(String, Vec<u8>)>, LoadError> {
    let files = load_archive_files(data).map_err(|error| LoadError::new(error.to_string()))?;
    Ok(files.into_iter().map(|file| (file.name, file.data.to_vec())).collect())
}

fn load_archive_file_list(files: Vec<archive::BufferedFile>) -> Result<Loaded, LoadError> {
    let Some(chart_yaml) = files.iter().find(|file| file.name == "Chart.yaml") else {
        return Err(LoadError::new("unable to detect chart version, no Chart.yaml found"));
    };
    check_api_version(&chart_yaml.data)?;
    let mut context = LoadContext::default();
    let chart = files::load_files(files, &mut context, 0).map_err(LoadError::new)?;
    Ok(Loaded { chart, warnings: context.warnings })
}

/// The apiVersion dispatch of pkg/chart/loader: v1, v2 (or none) load as v2 charts. apiVersion v3 charts load
/// with Helm's internal v3 loader, which `helm template` and `helm install` then refuse.
fn check_api_version(chart_yaml: &[u8]) -> Result<(), LoadError> {
    let api_version = chartfile::decode_api_version(chart_yaml)
        .map_err(|error| LoadError::new(format!("cannot load Chart.yaml: {error}")))?;
    match api_version.as_str() {
        "v1" | "v2" | "" => Ok(()),
        "v3" => Err(LoadError::new("invalid chart apiVersion")),
        _ => Err(LoadError::new("unsupported chart version")),
    }
}

#[cfg(test)]
mod tests {
    use super::{load, load_v2};

    #[test]
    fn the_v2_loader_reads_no_api_version_and_words_a_missing_chart_yaml_its_own_way() {
        let directory = tempfile::tempdir().expect("temporary directory");
        let empty = directory.path().join("empty");
        std::fs::create_dir(&empty).expect("empty directory");
        assert_eq!(load_v2(&empty).expect_err("no Chart.yaml").message(), "Chart.yaml file is missing");
        assert!(load(&empty).expect_err("no Chart.yaml").message().starts_with("unable to detect chart at "));
        let v3 = directory.path().join("v3");
        std::fs::create_dir(&v3).expect("chart directory");
        std::fs::write(v3.join("Chart.yaml"), "apiVersion: v3\nname: v3c\nversion: 1.0.0\n").expect("Chart.yaml");
        assert_eq!(load(&v3).expect_err("v3 refused").message(), "invalid chart apiVersion");
        assert_eq!(load_v2(&v3).expect("read as v2").chart.metadata.name, "v3c");
    }
}
