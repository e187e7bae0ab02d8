//! A packaged chart written out to disk (`helm pull --untar`), as Helm 4.1.4's `chartutil.Expand`
//! (pkg/chart/v2/util/expand.go) does it and safer: the chart's files under `<directory>/<name>/`, with Helm's
//! refusals (no chart name, a name that is `.`, `..` or holds a path separator; entries with absolute paths or
//! climbing out of the chart, which the archive reader refuses) and berth's own: `\` counts as a separator, a link
//! entry pointing outside the chart refuses the archive, and an existing `<directory>/<name>` is never written
//! into. Nothing is written before every entry is read and checked; the files then go into a fresh directory
//! beside the destination, renamed into place at the end, so a refused or failing archive leaves nothing that
//! could be taken for the chart. Links are written as the empty files Helm writes for them, never as links.

use std::io::Write as _;
use std::path::{Component, Path, PathBuf};

use super::LoadError;
use super::archive::{ArchiveError, link_leaves_chart, read_archive};
use super::chartfile::{RawMetadata, decode_metadata};
use crate::go::errno_text;
use berth_go::strconv::quote;

/// Why a chart could not be written out; nothing was.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExpandError {
    /// The archive itself is refused (Helm's loader messages).
    #[error(transparent)]
    Archive(LoadError),
    #[error("cannot load Chart.yaml: {0}")]
    ChartYaml(String),
    #[error(transparent)]
    Name(#[from] ChartNameError),
    #[error("chart file {} is a link to {}, outside the chart", quote(.name), quote(.target))]
    LinkOutside { name: String, target: String },
    /// The chart's directory exists (Helm would write into it).
    #[error("a file or directory with the name {} already exists", .0.display())]
    Exists(PathBuf),
    #[error("cannot write {}: {reason}", .path.display())]
    Write { path: PathBuf, reason: String },
}

/// A chart name that cannot name the directory a chart is written to (Helm's `Expand` and `Save` checks).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChartNameError {
    #[error("chart name not specified")]
    Empty,
    #[error("chart name {} is not allowed", quote(.0))]
    NotAllowed(String),
    #[error("chart name {} must not contain path separators", quote(.0))]
    PathSeparator(String),
}

/// Whether `name` names a directory (or the start of an archive's file name) inside its parent: not empty, not
/// `.` or `..`, no `/`, no `\` (Windows' separator, which Helm checks only on Windows), no NUL.
///
/// # Errors
///
/// The [`ChartNameError`] Helm's `Expand` words.
pub fn check_chart_directory_name(name: &str) -> Result<(), ChartNameError> {
    if name.is_empty() {
        return Err(ChartNameError::Empty);
    }
    if name == "." || name == ".." || name.contains('\0') {
        return Err(ChartNameError::NotAllowed(name.to_string()));
    }
    if name.contains(['/', '\\']) {
        return Err(ChartNameError::PathSeparator(name.to_string()));
    }
    Ok(())
}

/// Writes the packaged chart `data` out as `<directory>/<name in Chart.yaml>/`, creating `directory`; returns the
/// chart's directory.
///
/// # Errors
///
/// See [`ExpandError`]; on any error nothing is left under `directory` (which may have been created).
pub fn expand(data: &[u8], directory: &Path) -> Result<PathBuf, ExpandError> {
    let contents = read_archive(data).map_err(|error| {
        ExpandError::Archive(match error {
            ArchiveError::GzipHeader => {
                LoadError::new(format!("stream does not appear to be a valid chart file (details: {error})"))
            }
            ArchiveError::Other(text) => LoadError::new(format!("unable to load chart archive: {text}")),
        })
    })?;
    // Helm reads the name of the last `Chart.yaml`, unvalidated, as `yaml.Unmarshal` into `chart.Metadata`.
    let mut name = String::new();
    for file in contents.files.iter().filter(|file| file.name == "Chart.yaml") {
        let mut metadata = RawMetadata::default();
        decode_metadata(&file.data, &mut metadata).map_err(ExpandError::ChartYaml)?;
        name = metadata.metadata.name;
    }
    check_chart_directory_name(&name)?;
    if let Some(link) = contents.links.iter().find(|link| link_leaves_chart(link)) {
        return Err(ExpandError::LinkOutside { name: link.name.clone(), target: link.target.clone() });
    }
    let destination = directory.join(&name);
    if std::fs::symlink_metadata(&destination).is_ok() {
        return Err(ExpandError::Exists(destination));
    }
    std::fs::create_dir_all(directory).map_err(|error| write_error(directory, &error))?;
    let staging = staging_directory(directory, &name)?;
    let written = write_files(&staging, &contents.files).and_then(|()| {
        std::fs::rename(&staging, &destination).map_err(|error| match error.kind() {
            std::io::ErrorKind::DirectoryNotEmpty | std::io::ErrorKind::NotADirectory => {
                ExpandError::Exists(destination.clone())
            }
            _ => write_error(&destination, &error),
        })
    });
    if let Err(error) = written {
        // Only what this call created: the staging directory holds no links to follow.
        let _ = std::fs::remove_dir_all(&staging);
        return Err(error);
    }
    Ok(destination)
}

/// A new, empty directory beside the destination (same file system, so the final rename is atomic).
fn staging_directory(directory: &Path, name: &str) -> Result<PathBuf, ExpandError> {
    let mut attempt = 0u32;
    loop {
        let path = directory.join(format!(".{name}.expanding-{}-{attempt}", std::process::id()));
        match std::fs::create_dir(&path) {
            Ok(()) => return Ok(path),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(error) => return Err(write_error(&path, &error)),
        }
    }
}

/// Every file under `root`; the names were cleaned and checked by the archive reader, and each must still be a
/// plain relative path here.
fn write_files(root: &Path, files: &[crate::chart::File]) -> Result<(), ExpandError> {
    for file in files {
        let relative = Path::new(&file.name);
        if !relative.components().all(|component| matches!(component, Component::Normal(_))) {
            return Err(ExpandError::Write { path: root.join(relative), reason: "not a path inside the chart".into() });
        }
        let path = root.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|error| write_error(parent, &error))?;
        }
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .map_err(|error| write_error(&path, &error))?;
        out.write_all(&file.data).map_err(|error| write_error(&path, &error))?;
    }
    Ok(())
}

fn write_error(path: &Path, error: &std::io::Error) -> ExpandError {
    ExpandError::Write { path: path.to_path_buf(), reason: errno_text(error) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One archive entry: name, type flag, link target, data.
    type Entry<'a> = (&'a str, u8, &'a str, &'a [u8]);

    /// A gzipped tar of `entries`.
    fn archive(entries: &[Entry]) -> Vec<u8> {
        let mut tar = Vec::new();
        for (name, typeflag, link, data) in entries {
            let mut block = [0u8; 512];
            block[..name.len()].copy_from_slice(name.as_bytes());
            block[100..108].copy_from_slice(b"0000644\0");
            block[124..136].copy_from_slice(format!("{:011o}\0", data.len()).as_bytes());
            block[136..148].copy_from_slice(b"00000000000\0");
            block[148..156].copy_from_slice(b"        ");
            block[156] = *typeflag;
            block[157..157 + link.len()].copy_from_slice(link.as_bytes());
            block[257..265].copy_from_slice(b"ustar\x0000");
            let sum: u32 = block.iter().map(|b| u32::from(*b)).sum();
            block[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
            tar.extend_from_slice(&block);
            tar.extend_from_slice(data);
            tar.resize(tar.len().div_ceil(512) * 512, 0);
        }
        tar.extend_from_slice(&[0u8; 1024]);
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(&tar).unwrap();
        encoder.finish().unwrap()
    }

    fn chart(name_line: &str, extra: &[Entry]) -> Vec<u8> {
        let chart_yaml = format!("apiVersion: v2\n{name_line}\nversion: 1.0.0\n");
        let mut entries: Vec<Entry> = vec![
            ("app/Chart.yaml", b'0', "", chart_yaml.as_bytes()),
            ("app/.bashrc", b'0', "", b"# from the chart\n"),
            ("app/templates/cm.yaml", b'0', "", b"kind: ConfigMap\n"),
        ];
        entries.extend_from_slice(extra);
        archive(&entries)
    }

    fn listing(root: &Path) -> Vec<String> {
        let mut names = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                names.push(path.strip_prefix(root).unwrap().display().to_string());
                if path.is_dir() {
                    stack.push(path);
                }
            }
        }
        names.sort();
        names
    }

    #[test]
    fn a_chart_is_written_under_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let written = expand(&chart("name: app", &[]), dir.path()).unwrap();
        assert_eq!(written, dir.path().join("app"));
        assert_eq!(
            listing(dir.path()),
            ["app", "app/.bashrc", "app/Chart.yaml", "app/templates", "app/templates/cm.yaml"]
        );
        assert_eq!(std::fs::read(dir.path().join("app/templates/cm.yaml")).unwrap(), b"kind: ConfigMap\n");
        // Numbers are names too, as Go decodes them into a string.
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(expand(&chart("name: 123", &[]), dir.path()).unwrap(), dir.path().join("123"));
    }

    #[test]
    fn names_that_are_no_directory_and_links_outside_are_refused_and_nothing_is_written() {
        let table: [(&str, &[Entry], &str); 13] = [
            ("name: \"\"", &[], "chart name not specified"),
            ("description: no name", &[], "chart name not specified"),
            ("name: .", &[], "chart name \".\" is not allowed"),
            ("name: ..", &[], "chart name \"..\" is not allowed"),
            ("name: /", &[], "chart name \"/\" must not contain path separators"),
            ("name: ../../x", &[], "chart name \"../../x\" must not contain path separators"),
            ("name: a\\b", &[], "chart name \"a\\\\b\" must not contain path separators"),
            ("name: app", &[("app/evil", b'2', "/etc/passwd", b"")], "is a link to \"/etc/passwd\", outside"),
            ("name: app", &[("app/t/evil", b'2', "../../../x", b"")], "is a link to \"../../../x\", outside"),
            ("name: app", &[("app/evil", b'1', "../../etc/passwd", b"")], "outside the chart"),
            ("name: app", &[("app//etc/cron.d/x", b'0', "", b"x")], "chart illegally contains absolute paths"),
            ("name: app", &[("app/../../x", b'0', "", b"x")], "chart illegally references parent directory"),
            ("name: [a]", &[], "cannot load Chart.yaml"),
        ];
        for (name_line, extra, want) in table {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join(".bashrc"), b"mine\n").unwrap();
            let error = expand(&chart(name_line, extra), dir.path()).unwrap_err();
            assert!(error.to_string().contains(want), "{name_line} {extra:?}: {error}");
            assert_eq!(listing(dir.path()), [".bashrc"], "{name_line}: nothing written");
            assert_eq!(std::fs::read(dir.path().join(".bashrc")).unwrap(), b"mine\n");
        }
    }

    #[test]
    fn links_inside_the_chart_are_written_as_empty_files_as_helm_writes_them() {
        let dir = tempfile::tempdir().unwrap();
        let links: &[Entry] =
            &[("app/templates/link.yaml", b'2', "cm.yaml", b""), ("app/hard", b'1', "app/.bashrc", b"")];
        expand(&chart("name: app", links), dir.path()).unwrap();
        let link = dir.path().join("app/templates/link.yaml");
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_file());
        assert_eq!(std::fs::read(&link).unwrap(), b"");
    }

    #[test]
    fn an_existing_chart_directory_is_never_written_into() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("app")).unwrap();
        std::fs::write(dir.path().join("app/keep"), b"keep").unwrap();
        let error = expand(&chart("name: app", &[]), dir.path()).unwrap_err();
        assert!(matches!(error, ExpandError::Exists(_)), "{error}");
        assert_eq!(listing(dir.path()), ["app", "app/keep"]);
    }

    #[test]
    fn chart_names_for_files() {
        assert!(check_chart_directory_name("nginx").is_ok());
        assert!(check_chart_directory_name("a b.c-d_e").is_ok());
        for bad in ["", ".", "..", "a/b", "a\\b", "/", "a\0b"] {
            assert!(check_chart_directory_name(bad).is_err(), "{bad:?}");
        }
    }
}
