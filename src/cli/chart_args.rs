//! The values flags `template`, `install` and `upgrade` share, spelled as Helm spells them (`-f`, `--set` and its
//! family); a values file may be a URL (Helm's getters: `-f https://...`).

use crate::cli::error::{Error, ValuesProblem};
use berth::settings::HelmEnvironment;
use berth_chart::values::{LocalFiles, ValueFileReader, ValueOptions};
use berth_go::Value;
use berth_source::http::{BodyLimit, GetRequest, HttpClient, NoProgress};
use clap::Args;
use std::collections::HashMap;

/// `-f` and the `--set` family. Helm merges them by kind, not by position: files in order, then every
/// `--set-json`, `--set`, `--set-string`, `--set-file`, `--set-literal`.
#[derive(Debug, Clone, Default, Args)]
pub struct ValuesArgs {
    /// A values file (YAML); `-` reads standard input; several are merged in order. Commas separate several too.
    #[arg(short = 'f', long = "values", value_name = "FILE", value_delimiter = ',')]
    pub values: Vec<String>,
    /// A value on the command line (`a.b=c`, `list[0]=x`, `a={x,y}`); numbers and booleans are typed.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// A value kept as a string.
    #[arg(long = "set-string", value_name = "KEY=VALUE")]
    pub set_string: Vec<String>,
    /// A value read from a file (`key=path`).
    #[arg(long = "set-file", value_name = "KEY=PATH")]
    pub set_file: Vec<String>,
    /// A JSON value (`key=<json>`, or a JSON object).
    #[arg(long = "set-json", value_name = "KEY=JSON")]
    pub set_json: Vec<String>,
    /// A literal string value: nothing in it is parsed.
    #[arg(long = "set-literal", value_name = "KEY=VALUE")]
    pub set_literal: Vec<String>,
}

/// How much of a values file berth reads from a URL.
const VALUES_LIMIT: BodyLimit = BodyLimit::of("values file", 16 << 20);

/// Values files read from disk, or what was downloaded for a URL (or the download's error, in the getter's words:
/// Helm reads each file when it merges it, so the error comes where its file does).
struct Fetched {
    downloaded: HashMap<String, Result<Vec<u8>, String>>,
}

impl ValueFileReader for Fetched {
    fn read(&mut self, path: &str) -> Result<Vec<u8>, String> {
        match self.downloaded.get(path) {
            Some(downloaded) => downloaded.clone(),
            None => LocalFiles.read(path),
        }
    }
}

/// Whether a values file is a URL Helm's HTTP getter reads.
fn is_url(path: &str) -> bool {
    path.starts_with("http://") || path.starts_with("https://")
}

/// The files a `--set-file` value names (`key=path`, several separated by commas): Helm's `readFile` fetches those
/// that are URLs, as it does `-f`'s.
fn set_file_paths(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').filter_map(|pair| pair.split_once('=').map(|(_, path)| path))
}

impl ValuesArgs {
    /// The user's values, merged as Helm's `MergeValues` merges them; a values file that is an `http(s)://` URL
    /// is downloaded first (Helm's HTTP getter, the environment's TLS defaults and no credentials).
    pub async fn user_values_fetched(&self, _environment: &HelmEnvironment) -> Result<Value, Error> {
        let mut downloaded = HashMap::new();
        let urls: Vec<&str> = self.urls().collect();
        if !urls.is_empty() {
            let client = HttpClient::new(&Default::default(), berth_source::http::DEFAULT_TIMEOUT)
                .map_err(|error| Error::Values(ValuesProblem(error.to_string())))?;
            for url in urls {
                let request = GetRequest { url, credential_url: "", limit: VALUES_LIMIT, ..GetRequest::default() };
                let data = client.get(&request, &NoProgress).await;
                downloaded.insert(url.to_string(), data.map_err(|error| crate::cli::error::helm_fetch_message(&error)));
            }
        }
        self.merge(&mut Fetched { downloaded })
    }

    /// The values files (`-f`, `--set-file`) that are URLs.
    fn urls(&self) -> impl Iterator<Item = &str> {
        let set_files = self.set_file.iter().flat_map(|value| set_file_paths(value));
        self.values.iter().map(String::as_str).chain(set_files).filter(|path| is_url(path))
    }

    /// [`ValuesArgs::user_values_fetched`] for a command that has no async runtime of its own (`template`,
    /// `lint`): values read from local files only need none, and a download gets a single-threaded one. Starting
    /// a multi-threaded runtime costs a short-lived process more than rendering a small chart does.
    pub fn user_values_blocking(&self, environment: &HelmEnvironment) -> Result<Value, Error> {
        if self.urls().next().is_none() {
            return self.merge(&mut Fetched { downloaded: HashMap::new() });
        }
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| Error::Usage(format!("cannot start the async runtime: {error}")))?
            .block_on(self.user_values_fetched(environment))
    }

    fn merge(&self, reader: &mut dyn ValueFileReader) -> Result<Value, Error> {
        let options = ValueOptions {
            value_files: self.values.clone(),
            string_values: self.set_string.clone(),
            values: self.set.clone(),
            file_values: self.set_file.clone(),
            json_values: self.set_json.clone(),
            literal_values: self.set_literal.clone(),
        };
        options.merge_values(reader).map_err(|message| Error::Values(ValuesProblem(message)))
    }
}
