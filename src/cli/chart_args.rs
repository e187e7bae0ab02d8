//! The chart flags `template`, `install` and `upgrade` share, spelled as Helm spells them: the values flags
//! (`-f`, `--set` and its family) and how `.Capabilities` is filled.

use crate::cli::error::{Error, ValuesProblem};
use berth_chart::values::{LocalFiles, ValueOptions};
use berth_go::Value;
use clap::Args;

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

impl ValuesArgs {
    /// The user's values, merged as Helm's `MergeValues` merges them.
    pub fn user_values(&self) -> Result<Value, Error> {
        let options = ValueOptions {
            value_files: self.values.clone(),
            string_values: self.set_string.clone(),
            values: self.set.clone(),
            file_values: self.set_file.clone(),
            json_values: self.set_json.clone(),
            literal_values: self.set_literal.clone(),
        };
        options.merge_values(&mut LocalFiles).map_err(|message| Error::Values(ValuesProblem(message)))
    }
}
