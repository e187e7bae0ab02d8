//! Registry credentials where Helm keeps them: `HELM_REGISTRY_CONFIG` (default
//! `~/.config/helm/registry/config.json`) in docker's `config.json` format, read and written as oras-go's file
//! store does (`{"auths": {"HOST": {"auth": base64("user:password")}}}`, other keys kept, tab-indented), with
//! docker's own `config.json` as the fallback for reading, as Helm falls back to it.

use crate::http::Credentials;
use base64::Engine as _;
use serde_json::{Map, Value as Json};
use std::path::{Path, PathBuf};

/// The key a registry's credentials are stored under (`ServerAddressFromRegistry`): docker hub's legacy
/// address for `docker.io`, the host otherwise.
pub fn server_address(registry: &str) -> String {
    if registry == "docker.io" { "https://index.docker.io/v1/".to_string() } else { registry.to_string() }
}

/// `ToHostname`: a legacy key (`https://host/`) reduced to its host.
fn to_hostname(address: &str) -> &str {
    let address = address.strip_prefix("http://").or_else(|| address.strip_prefix("https://")).unwrap_or(address);
    address.split('/').next().unwrap_or(address)
}

/// One `config.json`.
#[derive(Debug, Clone, Default)]
pub struct ConfigFile {
    path: PathBuf,
    content: Map<String, Json>,
}

impl ConfigFile {
    /// Loads `path`; a missing or empty file is an empty configuration.
    ///
    /// # Errors
    ///
    /// The file cannot be read or is not a JSON object (`failed to decode config file at PATH: invalid config
    /// format`).
    pub fn load(path: &Path) -> Result<ConfigFile, String> {
        let content = match std::fs::read(path) {
            Ok(data) if data.iter().all(u8::is_ascii_whitespace) => Map::new(),
            Ok(data) => match serde_json::from_slice::<Json>(&data) {
                Ok(Json::Object(content)) => content,
                _ => return Err(format!("failed to decode config file at {}: invalid config format", path.display())),
            },
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Map::new(),
            Err(error) => {
                return Err(format!("failed to open config file at {}: {}", path.display(), crate::io_text(&error)));
            }
        };
        Ok(ConfigFile { path: path.to_path_buf(), content })
    }

    fn auths(&self) -> Option<&Map<String, Json>> {
        self.content.get("auths").and_then(Json::as_object)
    }

    /// The credentials for `server_address`, also under a legacy `https://host/` key.
    ///
    /// # Errors
    ///
    /// The entry's `auth` is not base64 of `user:password`.
    pub fn credentials(&self, server_address: &str) -> Result<Option<Credentials>, String> {
        let Some(auths) = self.auths() else { return Ok(None) };
        let entry = auths
            .get(server_address)
            .or_else(|| auths.iter().find(|(key, _)| to_hostname(key) == server_address).map(|(_, value)| value));
        let Some(entry) = entry else { return Ok(None) };
        let text = |name: &str| entry.get(name).and_then(Json::as_str).unwrap_or_default().to_string();
        let mut credentials = Credentials { username: text("username"), password: text("password") };
        let auth = text("auth");
        if !auth.is_empty() {
            let invalid = || {
                format!(
                    "failed to decode auth field for {server_address} in {}: invalid config format",
                    self.path.display()
                )
            };
            let decoded = base64::engine::general_purpose::STANDARD.decode(auth.as_bytes()).map_err(|_| invalid())?;
            let decoded = String::from_utf8(decoded).map_err(|_| invalid())?;
            let (username, password) = decoded.split_once(':').ok_or_else(invalid)?;
            credentials = Credentials { username: username.to_string(), password: password.to_string() };
        }
        let token = text("identitytoken");
        if credentials.username.is_empty() && credentials.password.is_empty() && !token.is_empty() {
            // An identity token is sent as the password of the `<token>` user, as docker and oras do.
            credentials = Credentials { username: "<token>".to_string(), password: token };
        }
        Ok(Some(credentials))
    }

    /// `PutCredential`: stores `credentials` for `server_address` and writes the file.
    ///
    /// # Errors
    ///
    /// The file cannot be written.
    pub fn put(&mut self, server_address: &str, credentials: &Credentials) -> Result<(), String> {
        let auth = base64::engine::general_purpose::STANDARD
            .encode(format!("{}:{}", credentials.username, credentials.password).as_bytes());
        let mut entry = Map::new();
        entry.insert("auth".to_string(), Json::String(auth));
        let auths = self.content.entry("auths").or_insert_with(|| Json::Object(Map::new()));
        if !auths.is_object() {
            *auths = Json::Object(Map::new());
        }
        if let Json::Object(auths) = auths {
            auths.insert(server_address.to_string(), Json::Object(entry));
        }
        self.save()
    }

    /// `DeleteCredential`: whether there was an entry to remove.
    ///
    /// # Errors
    ///
    /// The file cannot be written.
    pub fn delete(&mut self, server_address: &str) -> Result<bool, String> {
        let removed = match self.content.get_mut("auths") {
            Some(Json::Object(auths)) => auths.remove(server_address).is_some(),
            _ => false,
        };
        if removed {
            self.save()?;
        }
        Ok(removed)
    }

    /// `saveFile`: `json.MarshalIndent(content, "", "\t")`, keys sorted, written atomically with mode 0600 in a
    /// directory made 0700.
    fn save(&self) -> Result<(), String> {
        let text = go_indent_json(&Json::Object(self.content.clone()));
        if let Some(parent) = self.path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
            make_private_dir(parent)?;
        }
        crate::fs_util::write_atomic(&self.path, text.as_bytes(), 0o600)
    }
}

#[cfg(unix)]
fn make_private_dir(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::DirBuilderExt as _;
    if path.is_dir() {
        return Ok(());
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
        .map_err(|error| format!("failed to make directory {}: {}", path.display(), crate::io_text(&error)))
}

#[cfg(not(unix))]
fn make_private_dir(path: &Path) -> Result<(), String> {
    std::fs::create_dir_all(path).map_err(|error| format!("failed to make directory {}: {error}", path.display()))
}

/// Go's `json.MarshalIndent(v, "", "\t")` for plain JSON: sorted keys, HTML characters escaped.
fn go_indent_json(value: &Json) -> String {
    fn write(out: &mut String, value: &Json, depth: usize) {
        let indent = |out: &mut String, depth: usize| {
            out.push('\n');
            out.extend(std::iter::repeat_n('\t', depth));
        };
        match value {
            Json::Object(map) if !map.is_empty() => {
                out.push('{');
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                for (i, key) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    indent(out, depth + 1);
                    out.push_str(&go_string(key));
                    out.push_str(": ");
                    if let Some(item) = map.get(key) {
                        write(out, item, depth + 1);
                    }
                }
                indent(out, depth);
                out.push('}');
            }
            Json::Array(items) if !items.is_empty() => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    indent(out, depth + 1);
                    write(out, item, depth + 1);
                }
                indent(out, depth);
                out.push(']');
            }
            Json::String(text) => out.push_str(&go_string(text)),
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    write(&mut out, value, 0);
    out
}

/// A JSON string as Go's encoder writes it (`<`, `>`, `&`, U+2028 and U+2029 escaped).
fn go_string(text: &str) -> String {
    let mut out = serde_json::to_string(text).unwrap_or_default();
    for (from, to) in
        [("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u{2028}", "\\u2028"), ("\u{2029}", "\\u2029")]
    {
        out = out.replace(from, to);
    }
    out
}

/// Docker's own `config.json` (`$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`), Helm's fallback.
pub fn docker_config_path(lookup: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(directory) = lookup("DOCKER_CONFIG").filter(|value| !value.is_empty()) {
        return Some(PathBuf::from(directory).join("config.json"));
    }
    lookup("HOME").filter(|home| !home.is_empty()).map(|home| PathBuf::from(home).join(".docker/config.json"))
}

/// The credentials for `registry`: Helm's file first, then docker's.
///
/// # Errors
///
/// A file that exists but cannot be read or decoded.
pub fn lookup_credentials(
    helm_config: &Path,
    docker_config: Option<&Path>,
    registry: &str,
) -> Result<Option<Credentials>, String> {
    let address = server_address(registry);
    if let Some(found) = ConfigFile::load(helm_config)?.credentials(&address)? {
        return Ok(Some(found));
    }
    match docker_config {
        Some(path) => ConfigFile::load(path)?.credentials(&address),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_round_trip_in_dockers_format() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("registry/config.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "{\"credsStore\": \"\", \"other\": {\"a\": 1}}").unwrap();
        let mut config = ConfigFile::load(&path).unwrap();
        let credentials = Credentials { username: "u".into(), password: "p:<w>".into() };
        config.put("localhost:5000", &credentials).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("{\n\t\"auths\": {\n\t\t\"localhost:5000\": {\n\t\t\t\"auth\": \""), "{text}");
        assert!(text.contains("\"other\": {\n\t\t\"a\": 1\n\t}"), "{text}");
        assert_eq!(ConfigFile::load(&path).unwrap().credentials("localhost:5000").unwrap(), Some(credentials));
        assert!(ConfigFile::load(&path).unwrap().delete("localhost:5000").unwrap());
        assert_eq!(ConfigFile::load(&path).unwrap().credentials("localhost:5000").unwrap(), None);
    }

    #[test]
    fn legacy_keys_and_fallback_to_docker() {
        let dir = tempfile::tempdir().unwrap();
        let docker = dir.path().join("docker.json");
        std::fs::write(&docker, r#"{"auths":{"https://r.example/":{"auth":"dTpw"}}}"#).unwrap();
        let found = lookup_credentials(&dir.path().join("missing.json"), Some(&docker), "r.example").unwrap();
        assert_eq!(found, Some(Credentials { username: "u".into(), password: "p".into() }));
        std::fs::write(&docker, r#"{"auths":{"r.example":{"auth":"!!"}}}"#).unwrap();
        assert!(lookup_credentials(&dir.path().join("missing.json"), Some(&docker), "r.example").is_err());
        assert_eq!(server_address("docker.io"), "https://index.docker.io/v1/");
    }
}
