//! `helm create`: a new chart directory, either Helm 4.1.4's own starter chart byte for byte (pkg/chart/v2/util/
//! create.go `Create`) or scaffolded from a starter chart (`CreateFrom`: a chart directory or archive whose
//! `<CHARTNAME>` placeholders in templates and `values.yaml` become the new chart's name).
//!
//! The starter's files are Helm's text, kept under `starter/` with `<CHARTNAME>` where Helm puts the name (Helm
//! formats `Chart.yaml` and `values.yaml` with `%s`; the result is the same).

use berth_chart::chart::{Chart, Metadata, ModTime};
use std::path::{Path, PathBuf};

/// The placeholder Helm replaces with the chart's name.
const PLACEHOLDER: &str = "<CHARTNAME>";

/// `maxChartNameLength`.
const MAX_CHART_NAME_LENGTH: usize = 250;

/// Helm's starter chart: each file's path under the chart directory and its text, in the order `Create` writes
/// them.
const STARTER: [(&str, &str); 12] = [
    ("Chart.yaml", include_str!("starter/Chart.yaml")),
    ("values.yaml", include_str!("starter/values.yaml")),
    (".helmignore", include_str!("starter/helmignore")),
    ("templates/ingress.yaml", include_str!("starter/ingress.yaml")),
    ("templates/httproute.yaml", include_str!("starter/httproute.yaml")),
    ("templates/deployment.yaml", include_str!("starter/deployment.yaml")),
    ("templates/service.yaml", include_str!("starter/service.yaml")),
    ("templates/serviceaccount.yaml", include_str!("starter/serviceaccount.yaml")),
    ("templates/hpa.yaml", include_str!("starter/hpa.yaml")),
    ("templates/NOTES.txt", include_str!("starter/NOTES.txt")),
    ("templates/_helpers.tpl", include_str!("starter/_helpers.tpl")),
    ("templates/tests/test-connection.yaml", include_str!("starter/test-connection.yaml")),
];

/// Why a chart could not be created; the texts are Helm's.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    #[error("chart name must be between 1 and {MAX_CHART_NAME_LENGTH} characters")]
    NameLength,
    #[error("chart name must match the regular expression \"^[a-zA-Z0-9._-]+$\"")]
    NameCharacters,
    #[error("stat {0}: {1}")]
    Directory(String, String),
    #[error("no such directory {0}")]
    NotADirectory(String),
    #[error("file {0} already exists and is not a directory")]
    NotAChartDirectory(String),
    #[error("could not load {starter}: {reason}")]
    Starter { starter: String, reason: String },
    #[error("write {path}: {reason}")]
    Write { path: String, reason: String },
    #[error("saving {name}: {reason}")]
    Subchart { name: String, reason: String },
}

/// What creating a chart did: the directory, and the warnings Helm prints for files it overwrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Created {
    pub directory: PathBuf,
    pub warnings: Vec<String>,
}

/// Where a new chart's scaffold comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scaffold {
    /// Helm's own starter chart.
    Default,
    /// A starter chart: a directory or packaged chart.
    Starter(PathBuf),
}

/// `helm create NAME [--starter]`: the chart `<dirname NAME>/<basename NAME>`.
///
/// # Errors
/// [`CreateError`] with Helm's message; the default scaffold checks the name first and writes nothing then.
pub fn create(name: &str, scaffold: &Scaffold) -> Result<Created, CreateError> {
    let path = Path::new(name);
    let chart_name = path.file_name().map(|base| base.to_string_lossy().into_owned()).unwrap_or_default();
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    match scaffold {
        Scaffold::Default => create_default(&chart_name, &parent),
        Scaffold::Starter(starter) => create_from(&chart_name, &parent, starter),
    }
}

/// The starter `--starter NAME` names: an absolute path as it is, else under Helm's starters directory.
pub fn starter_path(starter: &str, starters_directory: &Path) -> PathBuf {
    let path = Path::new(starter);
    if path.is_absolute() { path.to_path_buf() } else { starters_directory.join(starter) }
}

/// `validateChartName`.
fn validate_chart_name(name: &str) -> Result<(), CreateError> {
    if name.is_empty() || name.len() > MAX_CHART_NAME_LENGTH {
        return Err(CreateError::NameLength);
    }
    if !name.bytes().all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-')) {
        return Err(CreateError::NameCharacters);
    }
    Ok(())
}

/// `Create`: Helm's starter chart in `<directory>/<name>`; `directory` must exist.
fn create_default(name: &str, directory: &Path) -> Result<Created, CreateError> {
    validate_chart_name(name)?;
    let absolute = std::path::absolute(directory)
        .map_err(|error| CreateError::Directory(directory.display().to_string(), io_text(&error)))?;
    let shown = absolute.display().to_string();
    match std::fs::metadata(&absolute) {
        Err(error) => return Err(CreateError::Directory(shown, io_text(&error))),
        Ok(metadata) if !metadata.is_dir() => return Err(CreateError::NotADirectory(shown)),
        Ok(_) => {}
    }
    let chart_directory = absolute.join(name);
    if chart_directory.metadata().is_ok_and(|metadata| !metadata.is_dir()) {
        return Err(CreateError::NotAChartDirectory(chart_directory.display().to_string()));
    }
    let mut warnings = Vec::new();
    for (file, text) in STARTER {
        let path = chart_directory.join(file);
        if path.exists() {
            warnings.push(format!("WARNING: File {:?} already exists. Overwriting.", path.display().to_string()));
        }
        write_file(&path, text.replace(PLACEHOLDER, name).as_bytes())?;
    }
    create_directory(&chart_directory.join("charts"))?;
    Ok(Created { directory: chart_directory, warnings })
}

/// `CreateFrom`: the starter loaded, its metadata replaced by a new chart's, `<CHARTNAME>` replaced in its
/// templates and `values.yaml`, then saved as `SaveDir` saves a chart.
fn create_from(name: &str, directory: &Path, starter: &Path) -> Result<Created, CreateError> {
    let shown = starter.display().to_string();
    let loaded = berth_chart::load::load(starter)
        .map_err(|error| CreateError::Starter { starter: shown.clone(), reason: error.to_string() })?;
    let mut chart = loaded.chart;
    chart.metadata = Metadata {
        name: name.to_string(),
        description: "A Helm chart for Kubernetes".to_string(),
        chart_type: "application".to_string(),
        version: "0.1.0".to_string(),
        app_version: "0.1.0".to_string(),
        api_version: "v2".to_string(),
        ..Metadata::default()
    };
    for template in &mut chart.templates {
        template.data = replace_placeholder(&template.data, name).into();
    }
    for file in &mut chart.raw {
        if file.name == "values.yaml" {
            file.data = replace_placeholder(&file.data, name).into();
        }
    }
    save_directory(&chart, directory)?;
    Ok(Created { directory: directory.join(name), warnings: Vec::new() })
}

/// `transform` on bytes.
fn replace_placeholder(data: &[u8], name: &str) -> Vec<u8> {
    String::from_utf8_lossy(data).replace(PLACEHOLDER, name).into_bytes()
}

/// `SaveDir`: `Chart.yaml` marshalled, `values.yaml` as written, the schema, templates and other files, and
/// each subchart packaged under `charts/`.
fn save_directory(chart: &Chart, destination: &Path) -> Result<(), CreateError> {
    let name = chart.name();
    if name.is_empty() || name.contains('/') || name == "." || name == ".." {
        return Err(CreateError::NameCharacters);
    }
    let directory = destination.join(name);
    if directory.metadata().is_ok_and(|metadata| !metadata.is_dir()) {
        return Err(CreateError::NotAChartDirectory(directory.display().to_string()));
    }
    create_directory(&directory)?;
    let chart_yaml = berth_goyaml::to_yaml(&chart.metadata.json_view()).map_err(|error| CreateError::Write {
        path: directory.join("Chart.yaml").display().to_string(),
        reason: error.to_string(),
    })?;
    write_file(&directory.join("Chart.yaml"), chart_yaml.as_bytes())?;
    if let Some(values) = chart.raw.iter().find(|file| file.name == "values.yaml") {
        write_file(&directory.join("values.yaml"), &values.data)?;
    }
    if let Some(schema) = &chart.schema {
        write_file(&directory.join("values.schema.json"), schema)?;
    }
    for file in chart.templates.iter().chain(&chart.files) {
        // The loader keeps names inside the chart; a name that still climbs out is not written.
        if file.name.split('/').any(|part| part == ".." || part.is_empty()) {
            return Err(CreateError::Write { path: file.name.clone(), reason: "path escapes the chart".to_string() });
        }
        write_file(&directory.join(&file.name), &file.data)?;
    }
    let charts = directory.join("charts");
    for dependency in &chart.dependencies {
        let subchart = |reason: String| CreateError::Subchart { name: dependency.name().to_string(), reason };
        let archive = berth_source::package::archive(dependency, now()).map_err(subchart)?;
        create_directory(&charts)?;
        let path = charts.join(berth_source::package::file_name(dependency));
        std::fs::write(&path, archive).map_err(|error| subchart(io_text(&error)))?;
    }
    Ok(())
}

/// The time files without one are archived with.
fn now() -> ModTime {
    let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    ModTime { seconds: i64::try_from(since_epoch.as_secs()).unwrap_or(i64::MAX), nanos: 0 }
}

/// `writeFile`: parent directories 0755, the file 0644.
fn write_file(path: &Path, data: &[u8]) -> Result<(), CreateError> {
    if let Some(parent) = path.parent() {
        create_directory(parent)?;
    }
    std::fs::write(path, data)
        .map_err(|error| CreateError::Write { path: path.display().to_string(), reason: io_text(&error) })
}

fn create_directory(path: &Path) -> Result<(), CreateError> {
    std::fs::create_dir_all(path)
        .map_err(|error| CreateError::Write { path: path.display().to_string(), reason: io_text(&error) })
}

fn io_text(error: &std::io::Error) -> String {
    berth_source::io_text(error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_as_helm_checks_them() {
        let long = "a".repeat(251);
        let table: [(&str, Option<&str>); 5] = [
            ("shop", None),
            ("shop-1.2_x", None),
            ("", Some("chart name must be between 1 and 250 characters")),
            (&long, Some("chart name must be between 1 and 250 characters")),
            ("a b", Some("chart name must match the regular expression \"^[a-zA-Z0-9._-]+$\"")),
        ];
        for (name, expected) in table {
            assert_eq!(validate_chart_name(name).err().map(|error| error.to_string()).as_deref(), expected, "{name}");
        }
    }

    #[test]
    fn the_default_scaffold_names_the_chart_everywhere() {
        let directory = tempfile::tempdir().unwrap();
        let name = directory.path().join("shop");
        let created = create(name.to_str().unwrap(), &Scaffold::Default).unwrap();
        assert!(created.warnings.is_empty());
        let chart = std::fs::read_to_string(created.directory.join("Chart.yaml")).unwrap();
        assert!(chart.starts_with("apiVersion: v2\nname: shop\n"), "{chart}");
        let helpers = std::fs::read_to_string(created.directory.join("templates/_helpers.tpl")).unwrap();
        assert!(helpers.contains("define \"shop.fullname\"") && !helpers.contains(PLACEHOLDER));
        assert!(created.directory.join("charts").is_dir());
        let again = create(name.to_str().unwrap(), &Scaffold::Default).unwrap();
        assert_eq!(again.warnings.len(), STARTER.len(), "every file is overwritten with a warning");
    }
}
