//! `repositories.yaml`, read and written as Helm 4.1.4 reads and writes it (pkg/repo/v1/repo.go and
//! pkg/cmd/repo_add.go): sigs.k8s.io/yaml over the JSON shape of `repo.File`, so a file written by berth is the
//! file Helm writes for the same repositories, and a file Helm wrote reads back unchanged.

use berth_go::Value;
use serde_json::Value as Json;

/// One configured repository (`repo.Entry`), every field as Helm keeps it. Never printed whole: `Debug` shows
/// the URL redacted and no password.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub url: String,
    pub username: String,
    pub password: String,
    pub cert_file: String,
    pub key_file: String,
    pub ca_file: String,
    pub insecure_skip_tls_verify: bool,
    pub pass_credentials_all: bool,
}

/// The whole file (`repo.File`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoFile {
    pub api_version: String,
    /// `generated`, as written (Go's zero time when absent, as Helm writes a file it started from nothing).
    pub generated: String,
    pub repositories: Vec<Entry>,
}

/// Go's zero `time.Time` as encoding/json writes it.
pub const ZERO_TIME: &str = "0001-01-01T00:00:00Z";

impl Default for RepoFile {
    fn default() -> RepoFile {
        RepoFile { api_version: String::new(), generated: ZERO_TIME.to_string(), repositories: Vec::new() }
    }
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("name", &self.name)
            .field("url", &crate::redact::urls(&self.url))
            .field("username", &self.username)
            .field("password", &crate::redact::MASK)
            .field("pass_credentials_all", &self.pass_credentials_all)
            .finish_non_exhaustive()
    }
}

impl Entry {
    /// The entry as encoding/json writes `repo.Entry` (every field, none omitted).
    fn json_view(&self) -> Value {
        Value::map([
            ("name", Value::from(self.name.as_str())),
            ("url", Value::from(self.url.as_str())),
            ("username", Value::from(self.username.as_str())),
            ("password", Value::from(self.password.as_str())),
            ("certFile", Value::from(self.cert_file.as_str())),
            ("keyFile", Value::from(self.key_file.as_str())),
            ("caFile", Value::from(self.ca_file.as_str())),
            ("insecure_skip_tls_verify", Value::Bool(self.insecure_skip_tls_verify)),
            ("pass_credentials_all", Value::Bool(self.pass_credentials_all)),
        ])
    }

    fn from_json(json: &Json) -> Entry {
        let text = |name: &str| json.get(name).and_then(Json::as_str).unwrap_or_default().to_string();
        let flag = |name: &str| json.get(name).and_then(Json::as_bool).unwrap_or_default();
        Entry {
            name: text("name"),
            url: text("url"),
            username: text("username"),
            password: text("password"),
            cert_file: text("certFile"),
            key_file: text("keyFile"),
            ca_file: text("caFile"),
            insecure_skip_tls_verify: flag("insecure_skip_tls_verify"),
            pass_credentials_all: flag("pass_credentials_all"),
        }
    }
}

impl RepoFile {
    /// Parses the file as `yaml.Unmarshal` into `repo.File` does; empty input is an empty file.
    ///
    /// # Errors
    ///
    /// The YAML error, or a field of the wrong type, worded as Helm's decoder words it.
    pub fn parse(data: &[u8]) -> Result<RepoFile, String> {
        let Some(json) = berth_goyaml::yaml_to_json(data).map_err(|error| error.to_string())? else {
            return Ok(RepoFile::default());
        };
        let json: Json = serde_json::from_str(&json).map_err(|error| error.to_string())?;
        if json.is_null() {
            return Ok(RepoFile::default());
        }
        let Some(object) = json.as_object() else {
            return Err("error unmarshaling JSON: json: cannot unmarshal into Go value of type repo.File".to_string());
        };
        let repositories = match object.get("repositories") {
            Some(Json::Array(items)) => items.iter().filter(|item| item.is_object()).map(Entry::from_json).collect(),
            Some(Json::Null) | None => Vec::new(),
            Some(_) => {
                return Err(
                    "error unmarshaling JSON: json: cannot unmarshal into Go struct field File.repositories of type \
                     []*repo.Entry"
                        .to_string(),
                );
            }
        };
        Ok(RepoFile {
            api_version: object.get("apiVersion").and_then(Json::as_str).unwrap_or_default().to_string(),
            generated: object.get("generated").and_then(Json::as_str).unwrap_or(ZERO_TIME).to_string(),
            repositories,
        })
    }

    /// The file as Helm writes it (`yaml.Marshal` of `repo.File`: keys sorted, every entry field present).
    ///
    /// # Errors
    ///
    /// Only if the YAML writer refuses a value, which strings and bools never make it do.
    pub fn render(&self) -> Result<String, String> {
        let value = Value::map([
            ("apiVersion", Value::from(self.api_version.as_str())),
            ("generated", Value::from(self.generated.as_str())),
            ("repositories", Value::list(self.repositories.iter().map(Entry::json_view))),
        ]);
        berth_goyaml::to_yaml(&value).map_err(|error| error.to_string())
    }

    /// `File.Get`.
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.repositories.iter().find(|entry| entry.name == name)
    }

    /// `File.Update`: replaces the entry of the same name, or appends.
    pub fn update(&mut self, entry: Entry) {
        match self.repositories.iter_mut().find(|existing| existing.name == entry.name) {
            Some(existing) => *existing = entry,
            None => self.repositories.push(entry),
        }
    }

    /// `File.Remove`: whether an entry of that name was there.
    pub fn remove(&mut self, name: &str) -> bool {
        let before = self.repositories.len();
        self.repositories.retain(|entry| entry.name != name);
        self.repositories.len() != before
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_reads_back_as_written() {
        let mut file = RepoFile::default();
        file.update(Entry { name: "a".into(), url: "http://127.0.0.1:1/charts".into(), ..Entry::default() });
        file.update(Entry { name: "b".into(), url: "https://x".into(), username: "u".into(), ..Entry::default() });
        file.update(Entry { name: "a".into(), url: "http://other".into(), ..Entry::default() });
        let text = file.render().unwrap();
        assert!(
            text.starts_with("apiVersion: \"\"\ngenerated: \"0001-01-01T00:00:00Z\"\nrepositories:\n- caFile: \"\""),
            "{text}"
        );
        let read = RepoFile::parse(text.as_bytes()).unwrap();
        assert_eq!(read, file);
        assert_eq!(read.get("a").map(|entry| entry.url.as_str()), Some("http://other"));
        let mut removed = read.clone();
        assert!(removed.remove("a"));
        assert!(!removed.remove("a"));
        assert_eq!(removed.repositories.len(), 1);
    }

    #[test]
    fn empty_and_null_files_are_empty() {
        assert_eq!(RepoFile::parse(b"").unwrap(), RepoFile::default());
        assert_eq!(RepoFile::parse(b"repositories: [null]\n").unwrap().repositories, Vec::<Entry>::new());
        assert!(RepoFile::parse(b"repositories: 3\n").is_err());
        assert!(RepoFile::parse(b"[").is_err());
    }
}
