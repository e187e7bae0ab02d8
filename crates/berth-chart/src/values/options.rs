//! The user's values as Helm's `values.Options.MergeValues` (pkg/cli/values/options.go) builds them: `-f` files in
//! order (each a multi-document values file, deep-merged over the previous), then `--set-json`, `--set`,
//! `--set-string`, `--set-file` and `--set-literal`, each in the order given.

use berth_go::{Map, Value};

use super::json::unmarshal_object;
use super::strvals::{Mode, parse_into};

/// The values flags of `helm install` / `helm template`, as given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValueOptions {
    /// `-f/--values`: paths, or `-` for standard input.
    pub value_files: Vec<String>,
    /// `--set-string`.
    pub string_values: Vec<String>,
    /// `--set`.
    pub values: Vec<String>,
    /// `--set-file`.
    pub file_values: Vec<String>,
    /// `--set-json`.
    pub json_values: Vec<String>,
    /// `--set-literal`.
    pub literal_values: Vec<String>,
}

/// Reads the files `-f` and `--set-file` name. The default reads the file system, and standard input for `-`;
/// the CLI can supply one that also fetches URLs (Helm's getters), which this pure crate does not.
pub trait ValueFileReader {
    /// The content of `path`, or Go's error text (`open x.yaml: no such file or directory`).
    fn read(&mut self, path: &str) -> Result<Vec<u8>, String>;
}

/// Files from disk, `-` from standard input.
#[derive(Debug, Default)]
pub struct LocalFiles;

impl ValueFileReader for LocalFiles {
    fn read(&mut self, path: &str) -> Result<Vec<u8>, String> {
        use std::io::Read;
        if path.trim() == "-" {
            let mut data = Vec::new();
            std::io::stdin().read_to_end(&mut data).map_err(|error| format!("read /dev/stdin: {error}"))?;
            return Ok(data);
        }
        std::fs::read(path).map_err(|error| match error.kind() {
            std::io::ErrorKind::IsADirectory => format!("read {path}: is a directory"),
            _ => crate::go::os_error("open", path, &error),
        })
    }
}

impl ValueOptions {
    /// `MergeValues`: the user-supplied values map.
    ///
    /// # Errors
    ///
    /// Helm's message: `failed to parse FILE: ...`, `failed parsing --set data: ...` and so on.
    pub fn merge_values(&self, files: &mut dyn ValueFileReader) -> Result<Value, String> {
        let mut base = Value::Map(Map::new());
        for path in &self.value_files {
            let raw = files.read(path)?;
            let current = berth_goyaml::load_values(&raw)
                .map_err(|error| format!("failed to parse {path}: {}", error.message()))?;
            base = berth_goyaml::merge_maps(&base, &current);
        }
        let base = match base {
            Value::Map(map) => map,
            _ => Map::new(),
        };
        for value in &self.json_values {
            let trimmed = value.trim_matches(berth_go::strings::is_space);
            if trimmed.starts_with('{') {
                let parsed =
                    unmarshal_object(trimmed).map_err(|_| format!("failed parsing --set-json data JSON: {value}"))?;
                let incoming = match parsed {
                    Some(map) => Value::Map(map),
                    None => Value::Map(Map::new()),
                };
                let merged = berth_goyaml::merge_maps(&Value::Map(base.clone()), &incoming);
                replace_entries(&base, &merged);
            } else {
                parse_into(value, &base, Mode::Json).map_err(|_| format!("failed parsing --set-json data {value}"))?;
            }
        }
        for value in &self.values {
            parse_into(value, &base, Mode::Typed { string: false })
                .map_err(|error| format!("failed parsing --set data: {error}"))?;
        }
        for value in &self.string_values {
            parse_into(value, &base, Mode::Typed { string: true })
                .map_err(|error| format!("failed parsing --set-string data: {error}"))?;
        }
        for value in &self.file_values {
            let mut reader = |path: &str| -> Result<Value, String> {
                let data = files.read(path)?;
                Ok(Value::from(String::from_utf8_lossy(&data).into_owned()))
            };
            parse_into(value, &base, Mode::File(&mut reader))
                .map_err(|error| format!("failed parsing --set-file data: {error}"))?;
        }
        for value in &self.literal_values {
            parse_into(value, &base, Mode::Literal)
                .map_err(|error| format!("failed parsing --set-literal data: {error}"))?;
        }
        Ok(Value::Map(base))
    }
}

/// Makes `target` hold the entries of `source` (a map), as Go's `base = MergeMaps(base, m)` rebinds `base`.
fn replace_entries(target: &Map, source: &Value) {
    if let Value::Map(source) = source {
        let entries = (*source.snapshot()).clone();
        target.update(|current| *current = entries);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Files(HashMap<&'static str, &'static str>);

    impl ValueFileReader for Files {
        fn read(&mut self, path: &str) -> Result<Vec<u8>, String> {
            self.0
                .get(path)
                .map(|text| text.as_bytes().to_vec())
                .ok_or_else(|| format!("open {path}: no such file or directory"))
        }
    }

    fn files() -> Files {
        Files(HashMap::from([
            ("a.yaml", "x: 1\nnested:\n  a: 1\n  b: 2\n---\nnested:\n  c: 3\n"),
            ("b.yaml", "nested:\n  b: 20\nlist: [1]\n"),
            ("text.txt", "file content\n"),
        ]))
    }

    #[test]
    fn sources_are_merged_in_helms_order() {
        let options = ValueOptions {
            value_files: vec!["a.yaml".into(), "b.yaml".into()],
            json_values: vec![r#"{"j": {"k": 1}}"#.into(), "x=[1]".into()],
            values: vec!["x=2,s=3".into()],
            string_values: vec!["s=3".into()],
            file_values: vec!["f=text.txt".into()],
            literal_values: vec!["l=a,b".into()],
        };
        let value = options.merge_values(&mut files()).unwrap();
        let nested = value.field("nested").unwrap();
        assert_eq!(nested.field("a"), Some(Value::Float(1.0)));
        assert_eq!(nested.field("b"), Some(Value::Float(20.0)));
        assert_eq!(nested.field("c"), Some(Value::Float(3.0)));
        assert_eq!(value.field("x"), Some(Value::Int64(2)));
        assert_eq!(value.field("s"), Some(Value::from("3")));
        assert_eq!(value.field("f"), Some(Value::from("file content\n")));
        assert_eq!(value.field("l"), Some(Value::from("a,b")));
        assert_eq!(value.field("j").unwrap().field("k"), Some(Value::Float(1.0)));
    }

    #[test]
    fn errors_name_the_flag() {
        let cases = [
            (
                ValueOptions { value_files: vec!["nope.yaml".into()], ..Default::default() },
                "open nope.yaml: no such file or directory",
            ),
            (
                ValueOptions { values: vec!["a".into()], ..Default::default() },
                "failed parsing --set data: key \"a\" has no value",
            ),
            (
                ValueOptions { json_values: vec!["{bad".into()], ..Default::default() },
                "failed parsing --set-json data JSON: {bad",
            ),
            (
                ValueOptions { json_values: vec!["a={bad".into()], ..Default::default() },
                "failed parsing --set-json data a={bad",
            ),
            (
                ValueOptions { file_values: vec!["a=nope".into()], ..Default::default() },
                "failed parsing --set-file data: open nope: no such file or directory",
            ),
        ];
        for (options, want) in cases {
            assert_eq!(options.merge_values(&mut files()).unwrap_err(), want);
        }
    }
}
