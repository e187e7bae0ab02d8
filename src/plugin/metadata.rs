//! `plugin.yaml` as Helm 4.1.4 reads it (internal/plugin/loader.go `loadMetadata`): `apiVersion: v1` (strict:
//! unknown fields refused) with `type`, `runtime`, `config` and `runtimeConfig`, or, without an `apiVersion`, a
//! Helm 3 plugin (`command`/`platformCommand`, `hooks`/`platformHooks`, `downloaders`) converted as Helm 4
//! converts it (metadata.go `fromMetadataLegacy`: type `cli/v1`, or `getter/v1` with downloaders; runtime
//! `subprocess`).
//!
//! Pure: bytes in, [`Metadata`] or Helm's message out.

use serde::Deserialize;
use std::collections::BTreeMap;

/// One command of `platformCommand`/`platformHooks`: for an operating system and architecture, or any.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct PlatformCommand {
    #[serde(rename = "os")]
    pub operating_system: String,
    #[serde(rename = "arch")]
    pub architecture: String,
    pub command: String,
    pub args: Vec<String>,
}

/// A plugin type's `config`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PluginConfig {
    /// `cli/v1`: how the subcommand is described, and whether flags reach the plugin.
    Cli { usage: String, short_help: String, long_help: String, ignore_flags: bool },
    /// `postrenderer/v1`: no settings.
    PostRenderer,
    /// `getter/v1`: the protocols it downloads (berth lists such plugins but does not use them).
    Getter { protocols: Vec<String> },
    /// `test/v1`.
    Test,
}

/// A plugin's metadata, whichever `plugin.yaml` form it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    /// `v1`, or `legacy` for a Helm 3 `plugin.yaml`.
    pub api_version: String,
    pub name: String,
    /// `cli/v1`, `postrenderer/v1`, `getter/v1`, `test/v1`.
    pub plugin_type: String,
    /// `subprocess` or `extism/v1` (berth runs the first only).
    pub runtime: String,
    pub version: String,
    pub source_url: String,
    pub config: PluginConfig,
    /// `runtimeConfig.platformCommand` of the subprocess runtime.
    pub commands: Vec<PlatformCommand>,
    /// `runtimeConfig.platformHooks`: `install`, `delete`, `update`.
    pub hooks: BTreeMap<String, Vec<PlatformCommand>>,
    /// Whether hook commands have `$VARIABLES` expanded (not for legacy `hooks`, which run through `sh -c`).
    pub expand_hook_args: bool,
}

/// Why a `plugin.yaml` was refused; the texts are Helm's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetadataError {
    #[error("failed to peek plugin.yaml API version: {0}")]
    Peek(String),
    #[error("invalid plugin apiVersion: {0:?}")]
    ApiVersion(String),
    #[error("{0}")]
    Decode(String),
    #[error("{0}")]
    Invalid(String),
}

/// Helm's `validPluginName`.
fn is_valid_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
}

/// Masterminds' `StrictNewVersion`.
fn is_valid_semver(version: &str) -> bool {
    berth_sprig::semver::Version::parse_strict(version).is_ok()
}

#[derive(Debug, Default, Deserialize)]
struct Peek {
    #[serde(default, rename = "apiVersion")]
    api_version: Option<serde_json::Value>,
}

/// `MetadataV1`, strict.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct MetadataV1 {
    #[serde(rename = "apiVersion")]
    api_version: String,
    name: String,
    #[serde(rename = "type")]
    plugin_type: String,
    runtime: String,
    version: String,
    #[serde(rename = "sourceURL")]
    source_url: String,
    config: Option<serde_json::Value>,
    #[serde(rename = "runtimeConfig")]
    runtime_config: Option<serde_json::Value>,
}

/// `ConfigCLIV1`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct CliConfig {
    usage: String,
    #[serde(rename = "shortHelp")]
    short_help: String,
    #[serde(rename = "longHelp")]
    long_help: String,
    #[serde(rename = "ignoreFlags")]
    ignore_flags: bool,
}

/// `RuntimeConfigSubprocess`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct SubprocessConfig {
    #[serde(rename = "platformCommand")]
    platform_command: Vec<PlatformCommand>,
    #[serde(rename = "platformHooks")]
    platform_hooks: BTreeMap<String, Vec<PlatformCommand>>,
}

/// A Helm 3 `plugin.yaml` (`MetadataLegacy`), read leniently as yaml.v3 reads it into the struct.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct MetadataLegacy {
    name: String,
    version: String,
    usage: String,
    description: String,
    #[serde(rename = "platformCommand")]
    platform_command: Vec<PlatformCommand>,
    command: String,
    #[serde(rename = "ignoreFlags")]
    ignore_flags: bool,
    #[serde(rename = "platformHooks")]
    platform_hooks: BTreeMap<String, Vec<PlatformCommand>>,
    hooks: BTreeMap<String, String>,
    downloaders: Vec<Downloader>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Downloader {
    protocols: Vec<String>,
    command: String,
}

fn decode<T: for<'de> Deserialize<'de>>(data: &[u8]) -> Result<T, MetadataError> {
    let text = std::str::from_utf8(data).map_err(|error| MetadataError::Decode(error.to_string()))?;
    serde_saphyr::from_str(text).map_err(|error| MetadataError::Decode(error.to_string()))
}

/// `loadMetadata`: the form the `apiVersion` names.
///
/// # Errors
/// [`MetadataError`] with Helm's message.
pub fn parse_metadata(data: &[u8]) -> Result<Metadata, MetadataError> {
    let peek: Peek = decode(data).map_err(|error| MetadataError::Peek(error.to_string()))?;
    let api_version = match peek.api_version {
        None | Some(serde_json::Value::Null) => String::new(),
        Some(serde_json::Value::String(text)) => text,
        Some(other) => other.to_string(),
    };
    match api_version.as_str() {
        "" => parse_legacy(data),
        "v1" => parse_v1(data),
        _ => Err(MetadataError::ApiVersion(api_version)),
    }
}

fn parse_v1(data: &[u8]) -> Result<Metadata, MetadataError> {
    let v1: MetadataV1 = decode(data)?;
    let invalid = |text: String| Err(MetadataError::Invalid(text));
    if !is_valid_name(&v1.name) {
        return invalid("invalid plugin `name`".to_string());
    }
    if v1.version.is_empty() {
        return invalid("plugin `version` is required".to_string());
    }
    if !is_valid_semver(&v1.version) {
        return invalid(format!("invalid plugin `version` {:?}: must be valid semver", v1.version));
    }
    if v1.plugin_type.is_empty() {
        return invalid("`type` missing".to_string());
    }
    if v1.runtime.is_empty() {
        return invalid("`runtime` missing".to_string());
    }
    let config_value = v1.config.unwrap_or(serde_json::Value::Null);
    let config = match v1.plugin_type.as_str() {
        "cli/v1" => {
            let cli: CliConfig = from_json(config_value, "config")?;
            PluginConfig::Cli {
                usage: cli.usage,
                short_help: cli.short_help,
                long_help: cli.long_help,
                ignore_flags: cli.ignore_flags,
            }
        }
        "postrenderer/v1" => PluginConfig::PostRenderer,
        "getter/v1" => {
            let protocols = config_value
                .get("protocols")
                .and_then(serde_json::Value::as_array)
                .map(|list| list.iter().filter_map(|item| item.as_str().map(str::to_string)).collect())
                .unwrap_or_default();
            PluginConfig::Getter { protocols }
        }
        "test/v1" => PluginConfig::Test,
        other => return invalid(format!("unknown plugin type {other:?}")),
    };
    let runtime_value = v1.runtime_config.unwrap_or(serde_json::Value::Null);
    let subprocess: SubprocessConfig = match v1.runtime.as_str() {
        "subprocess" => from_json(runtime_value, "runtimeConfig for subprocess runtime")?,
        "extism/v1" => SubprocessConfig::default(),
        other => return invalid(format!("unsupported plugin runtime type: {other:?}")),
    };
    Ok(Metadata {
        api_version: v1.api_version,
        name: v1.name,
        plugin_type: v1.plugin_type,
        runtime: v1.runtime,
        version: v1.version,
        source_url: v1.source_url,
        config,
        commands: subprocess.platform_command,
        hooks: subprocess.platform_hooks,
        expand_hook_args: true,
    })
}

/// A part of `plugin.yaml` read again as its typed form (Helm's remarshalling).
fn from_json<T: for<'de> Deserialize<'de> + Default>(value: serde_json::Value, what: &str) -> Result<T, MetadataError> {
    if value.is_null() {
        return Ok(T::default());
    }
    serde_json::from_value(value)
        .map_err(|error| MetadataError::Invalid(format!("failed to unmarshal {what}: {error}")))
}

fn parse_legacy(data: &[u8]) -> Result<Metadata, MetadataError> {
    let legacy: MetadataLegacy = decode(data)?;
    let invalid = |text: String| Err(MetadataError::Invalid(text));
    if !is_valid_name(&legacy.name) {
        return invalid(format!("invalid plugin name {:?}: must contain only a-z, A-Z, 0-9, _ and -", legacy.name));
    }
    if !legacy.version.is_empty() && !is_valid_semver(&legacy.version) {
        return invalid(format!("invalid plugin version {:?}: must be valid semver", legacy.version));
    }
    if !legacy.platform_command.is_empty() && !legacy.command.is_empty() {
        return invalid("both platformCommand and command are set".to_string());
    }
    if !legacy.platform_hooks.is_empty() && !legacy.hooks.is_empty() {
        return invalid("both platformHooks and hooks are set".to_string());
    }
    for (index, downloader) in legacy.downloaders.iter().enumerate() {
        if downloader.command.is_empty() {
            return invalid(format!("downloader {index} has empty command"));
        }
        if downloader.protocols.is_empty() {
            return invalid(format!("downloader {index} has no protocols"));
        }
        if let Some(position) = downloader.protocols.iter().position(String::is_empty) {
            return invalid(format!("downloader {index} has empty protocol at index {position}"));
        }
    }
    let (plugin_type, config) = if legacy.downloaders.is_empty() {
        let config = PluginConfig::Cli {
            usage: String::new(),
            short_help: sanitize(&legacy.usage),
            long_help: legacy.description,
            ignore_flags: legacy.ignore_flags,
        };
        ("cli/v1", config)
    } else {
        let protocols = legacy.downloaders.iter().flat_map(|downloader| downloader.protocols.clone()).collect();
        ("getter/v1", PluginConfig::Getter { protocols })
    };
    let commands = if legacy.platform_command.is_empty() && !legacy.command.is_empty() {
        vec![PlatformCommand { command: legacy.command, ..PlatformCommand::default() }]
    } else {
        legacy.platform_command
    };
    // Legacy `hooks` are shell lines: run with `sh -c`, their `$VARIABLES` left to the shell.
    let (hooks, expand_hook_args) = if legacy.platform_hooks.is_empty() && !legacy.hooks.is_empty() {
        let hooks = legacy
            .hooks
            .into_iter()
            .map(|(event, line)| {
                let command = PlatformCommand {
                    command: "sh".to_string(),
                    args: vec!["-c".to_string(), line],
                    ..PlatformCommand::default()
                };
                (event, vec![command])
            })
            .collect();
        (hooks, false)
    } else {
        (legacy.platform_hooks, true)
    };
    Ok(Metadata {
        api_version: "legacy".to_string(),
        name: legacy.name,
        plugin_type: plugin_type.to_string(),
        runtime: "subprocess".to_string(),
        version: legacy.version,
        source_url: String::new(),
        config,
        commands,
        hooks,
        expand_hook_args,
    })
}

/// `sanitizeString`: white space becomes a space, unprintable characters are dropped.
fn sanitize(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if c.is_whitespace() {
                Some(' ')
            } else if c.is_control() {
                None
            } else {
                Some(c)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_and_legacy_forms_read_as_helm_reads_them() {
        let v1 = "apiVersion: v1\nname: hello\ntype: cli/v1\nruntime: subprocess\nversion: 0.2.0\nsourceURL: https://x\n\
                  config: {usage: hello, shortHelp: say hello, ignoreFlags: true}\nruntimeConfig:\n  \
                  platformCommand:\n  - {command: sh, args: [-c, echo]}\n  platformHooks:\n    install:\n    - \
                  {command: echo}\n";
        let metadata = parse_metadata(v1.as_bytes()).unwrap();
        assert_eq!((metadata.api_version.as_str(), metadata.plugin_type.as_str()), ("v1", "cli/v1"));
        assert!(matches!(metadata.config, PluginConfig::Cli { ignore_flags: true, .. }));
        assert_eq!(metadata.commands[0].args, ["-c", "echo"]);
        assert_eq!(metadata.hooks["install"][0].command, "echo");
        let legacy = "name: legacy\nversion: 1.0.0\nusage: \"two\\nlines\"\ncommand: $HELM_PLUGIN_DIR/run.sh\nhooks:\n  install: echo hi\n";
        let metadata = parse_metadata(legacy.as_bytes()).unwrap();
        assert_eq!((metadata.api_version.as_str(), metadata.runtime.as_str()), ("legacy", "subprocess"));
        assert!(matches!(&metadata.config, PluginConfig::Cli { short_help, .. } if short_help == "two lines"));
        assert_eq!(metadata.commands[0].command, "$HELM_PLUGIN_DIR/run.sh");
        assert_eq!(metadata.hooks["install"][0].args, ["-c", "echo hi"]);
        assert!(!metadata.expand_hook_args);
        let getter = "name: g\ndownloaders:\n- {command: get, protocols: [s3]}\n";
        assert_eq!(parse_metadata(getter.as_bytes()).unwrap().plugin_type, "getter/v1");
    }

    #[test]
    fn invalid_plugins_are_refused_with_helms_words() {
        let table = [
            ("apiVersion: v2\nname: x\n", "invalid plugin apiVersion: \"v2\""),
            ("apiVersion: v1\nname: a b\nversion: 1.0.0\n", "invalid plugin `name`"),
            ("apiVersion: v1\nname: x\n", "plugin `version` is required"),
            ("apiVersion: v1\nname: x\nversion: \"1.0\"\n", "invalid plugin `version` \"1.0\": must be valid semver"),
            ("apiVersion: v1\nname: x\nversion: 1.0.0\n", "`type` missing"),
            ("apiVersion: v1\nname: x\nversion: 1.0.0\ntype: cli/v1\n", "`runtime` missing"),
            (
                "apiVersion: v1\nname: x\nversion: 1.0.0\ntype: cli/v1\nruntime: java\n",
                "unsupported plugin runtime type: \"java\"",
            ),
            ("name: a/b\n", "invalid plugin name \"a/b\": must contain only a-z, A-Z, 0-9, _ and -"),
            ("name: x\nversion: one\n", "invalid plugin version \"one\": must be valid semver"),
            ("name: x\ncommand: a\nplatformCommand: [{command: b}]\n", "both platformCommand and command are set"),
            ("name: x\ndownloaders: [{command: c}]\n", "downloader 0 has no protocols"),
        ];
        for (text, expected) in table {
            let error = parse_metadata(text.as_bytes()).unwrap_err();
            assert_eq!(error.to_string(), expected, "{text}");
        }
        let unknown =
            parse_metadata(b"apiVersion: v1\nname: x\nversion: 1.0.0\ntype: cli/v1\nruntime: subprocess\nextra: 1\n");
        assert!(matches!(unknown, Err(MetadataError::Decode(_))), "{unknown:?}");
    }
}
