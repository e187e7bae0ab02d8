//! Chart directories as Helm's `LoadDir` reads them (pkg/chart/v2/loader/directory.go over internal/sympath):
//! every file in lexical path order, `.helmignore` and the default rules applied (an ignored directory is not
//! entered), irregular files and files past the size limit refused, UTF-8 BOMs dropped.
//!
//! Helm follows every symbolic link, wherever it points. berth follows a link only when its target lies inside
//! the chart directory, and refuses the chart otherwise; a link cycle inside the chart is an error too.

use std::fs;
use std::path::{Path, PathBuf};

use super::archive::{BufferedFile, MAX_DECOMPRESSED_FILE_SIZE};
use super::ignore::{HELM_IGNORE, Rules};
use crate::go::os_error;
use berth_go::strconv::quote;

const UTF8_BOM: &[u8] = &[0xEF, 0xBB, 0xBF];
/// Directory levels followed below the chart root.
const MAX_DIRECTORY_DEPTH: usize = 256;

/// `filepath.Abs`: joined with the working directory and cleaned, symbolic links left alone.
///
/// # Errors
/// `getwd: ...` when the working directory cannot be read.
pub fn absolute(dir: &Path) -> Result<String, String> {
    let joined = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        let cwd = std::env::current_dir().map_err(|error| format!("getwd: {error}"))?;
        cwd.join(dir)
    };
    Ok(berth_go::path::clean(&joined.to_string_lossy()))
}

struct Walk<'a> {
    top: String,
    real_top: PathBuf,
    rules: &'a Rules,
    files: Vec<BufferedFile>,
    /// Real paths of the directories being walked, to refuse link cycles.
    stack: Vec<PathBuf>,
    /// What Helm logs on the way (every link it follows).
    log: Vec<String>,
}

/// `LoadDir` up to `LoadFiles`: the chart's files, and the lines Helm logs while reading them.
pub(crate) fn read_dir_files(dir: &Path) -> Result<(Vec<BufferedFile>, Vec<String>), String> {
    let top = absolute(dir)?;
    let ignore_file = format!("{top}/{HELM_IGNORE}");
    let mut rules = if Path::new(&ignore_file).exists() {
        let data = fs::read(&ignore_file).map_err(|error| os_error("open", &ignore_file, &error))?;
        Rules::parse(&data)?
    } else {
        Rules::default()
    };
    rules.add_defaults();
    let real_top = fs::canonicalize(&top).map_err(|error| os_error("lstat", &top, &error))?;
    let mut walk =
        Walk { top: format!("{top}/"), real_top, rules: &rules, files: Vec::new(), stack: Vec::new(), log: Vec::new() };
    let root = PathBuf::from(&top);
    walk.visit(&root, 0)?;
    Ok((walk.files, walk.log))
}

impl Walk<'_> {
    /// `symwalk` + the loader's walk function for one path.
    fn visit(&mut self, path: &Path, depth: usize) -> Result<(), String> {
        if depth > MAX_DIRECTORY_DEPTH {
            return Err(format!("chart directories are nested more than {MAX_DIRECTORY_DEPTH} levels deep"));
        }
        let display = path.to_string_lossy().into_owned();
        let mut metadata = fs::symlink_metadata(path).map_err(|error| os_error("lstat", &display, &error))?;
        if metadata.file_type().is_symlink() {
            let resolved = fs::canonicalize(path).map_err(|error| {
                format!("error evaluating symlink {display}: {}", os_error("lstat", &display, &error))
            })?;
            if !resolved.starts_with(&self.real_top) {
                return Err(format!(
                    "chart file {} is a symbolic link to {}, outside the chart directory",
                    quote(&display),
                    quote(&resolved.to_string_lossy())
                ));
            }
            self.log.push(crate::go::slog_line(
                "INFO",
                "found symbolic link in path. Contents of linked file included and used",
                &[("path", &display), ("resolved", &resolved.to_string_lossy())],
            ));
            metadata = fs::symlink_metadata(&resolved)
                .map_err(|error| os_error("lstat", &resolved.to_string_lossy(), &error))?;
            return self.visit_resolved(path, &display, &metadata, Some(&resolved), depth);
        }
        self.visit_resolved(path, &display, &metadata, None, depth)
    }

    fn visit_resolved(
        &mut self,
        path: &Path,
        display: &str,
        metadata: &fs::Metadata,
        resolved: Option<&Path>,
        depth: usize,
    ) -> Result<(), String> {
        let relative = display.strip_prefix(&self.top).unwrap_or("");
        let is_root = relative.is_empty();
        if metadata.is_dir() {
            if !is_root && self.rules.ignore(relative, true) {
                return Ok(());
            }
            let real = match resolved {
                Some(resolved) => resolved.to_path_buf(),
                None => fs::canonicalize(path).map_err(|error| os_error("lstat", display, &error))?,
            };
            if self.stack.contains(&real) {
                return Err(format!("chart directory {} is a symbolic link cycle", quote(display)));
            }
            let mut names: Vec<String> = fs::read_dir(path)
                .map_err(|error| os_error("open", display, &error))?
                .map(|entry| entry.map(|e| e.file_name().to_string_lossy().into_owned()))
                .collect::<Result<_, _>>()
                .map_err(|error| os_error("readdirent", display, &error))?;
            names.sort();
            self.stack.push(real);
            for name in names {
                self.visit(&path.join(name), depth + 1)?;
            }
            self.stack.pop();
            return Ok(());
        }
        if is_root {
            return Ok(());
        }
        if self.rules.ignore(relative, false) {
            return Ok(());
        }
        if !metadata.is_file() {
            return Err(format!("cannot load irregular file {display} as it has file mode type bits set"));
        }
        if metadata.len() > MAX_DECOMPRESSED_FILE_SIZE as u64 {
            // Helm names the file by its base name (the link target's when it is a link).
            let base =
                resolved.unwrap_or(path).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            return Err(format!(
                "chart file {} is larger than the maximum file size {MAX_DECOMPRESSED_FILE_SIZE}",
                quote(&base)
            ));
        }
        let data = fs::read(path)
            .map_err(|error| format!("error reading {relative}: {}", os_error("open", display, &error)))?;
        let data = match data.strip_prefix(UTF8_BOM) {
            Some(rest) => rest.to_vec(),
            None => data,
        };
        let mod_time = metadata.modified().ok().and_then(|time| {
            let since = time.duration_since(std::time::UNIX_EPOCH).ok()?;
            Some(crate::chart::ModTime { seconds: i64::try_from(since.as_secs()).ok()?, nanos: since.subsec_nanos() })
        });
        self.files.push(BufferedFile { name: relative.to_string(), data: data.into(), mod_time });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_chart() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("templates/sub")).unwrap();
        fs::create_dir_all(root.join("ignored")).unwrap();
        fs::write(root.join("Chart.yaml"), "apiVersion: v2\nname: c\nversion: 1.0.0\n").unwrap();
        fs::write(root.join("values.yaml"), b"\xEF\xBB\xBFa: 1\n").unwrap();
        fs::write(root.join("templates/b.yaml"), "b").unwrap();
        fs::write(root.join("templates/a.yaml"), "a").unwrap();
        fs::write(root.join("templates/.hidden"), "h").unwrap();
        fs::write(root.join("templates/sub/c.yaml"), "c").unwrap();
        fs::write(root.join("ignored/x.txt"), "x").unwrap();
        fs::write(root.join(".helmignore"), "ignored/\n*.bak\n").unwrap();
        fs::write(root.join("notes.bak"), "bak").unwrap();
        dir
    }

    #[test]
    fn files_in_lexical_order_with_ignore_rules() {
        let dir = temp_chart();
        let (files, _) = read_dir_files(dir.path()).unwrap();
        let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                ".helmignore",
                "Chart.yaml",
                "templates/a.yaml",
                "templates/b.yaml",
                "templates/sub/c.yaml",
                "values.yaml"
            ]
        );
        assert_eq!(&*files[5].data, b"a: 1\n");
    }

    #[test]
    fn links_inside_are_followed_links_outside_refused() {
        let dir = temp_chart();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink("templates/a.yaml", dir.path().join("link.yaml")).unwrap();
        let (files, _) = read_dir_files(dir.path()).unwrap();
        assert!(files.iter().any(|f| f.name == "link.yaml" && *f.data == *b"a"));
        std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("evil")).unwrap();
        let error = read_dir_files(dir.path()).unwrap_err();
        assert!(error.contains("outside the chart directory"), "{error}");
    }

    #[test]
    fn link_cycles_are_refused() {
        let dir = temp_chart();
        std::os::unix::fs::symlink("..", dir.path().join("templates/loop")).unwrap();
        let error = read_dir_files(dir.path()).unwrap_err();
        assert!(error.contains("symbolic link cycle"), "{error}");
    }

    #[test]
    fn oversized_files_are_refused() {
        let dir = temp_chart();
        let big = fs::File::create(dir.path().join("big.bin")).unwrap();
        big.set_len(MAX_DECOMPRESSED_FILE_SIZE as u64 + 1).unwrap();
        assert_eq!(
            read_dir_files(dir.path()).unwrap_err(),
            "chart file \"big.bin\" is larger than the maximum file size 5242880"
        );
    }
}
