//! Running subprocess plugins as Helm 4.1.4 runs them (internal/plugin/runtime_subprocess.go): a `cli/v1`
//! plugin as a subcommand with Helm's environment (`HELM_*` of `helm env`, `HELM_PLUGIN_NAME`,
//! `HELM_PLUGIN_DIR`) and the streams of the caller; a `postrenderer/v1` plugin with the rendered manifests on
//! stdin and its stdout taken as the new manifests (pkg/postrenderer); hooks after install, update and delete.

use super::PluginError;
use super::command::prepare_command;
use super::metadata::{Metadata, PluginConfig};
use super::store::{Plugin, find_plugin};
use crate::settings::HelmEnvironment;
use std::collections::BTreeMap;
use std::io::Write as _;
use std::process::{Command, Stdio};

/// The global flags Helm takes out of a plugin's arguments (`manuallyProcessArgs`); the ones with a value.
const GLOBAL_FLAGS_WITH_VALUE: [&str; 14] = [
    "--kube-context",
    "--namespace",
    "-n",
    "--kubeconfig",
    "--kube-apiserver",
    "--kube-token",
    "--kube-as-user",
    "--kube-as-group",
    "--kube-ca-file",
    "--registry-config",
    "--repository-cache",
    "--repository-config",
    "--kube-insecure-skip-tls-verify",
    "--kube-tls-server-name",
];

/// `manuallyProcessArgs`: Helm's global flags (applied to `settings`) apart from what the plugin receives.
pub fn split_global_flags(arguments: &[String], settings: &mut HelmEnvironment) -> Vec<String> {
    let mut unknown = Vec::new();
    let mut index = 0;
    while index < arguments.len() {
        let argument = &arguments[index];
        if argument == "--debug" {
            settings.debug = true;
        } else if GLOBAL_FLAGS_WITH_VALUE.contains(&argument.as_str()) {
            index += 1;
            if let Some(value) = arguments.get(index) {
                apply_global_flag(argument, value, settings);
            }
        } else if let Some((flag, value)) = argument.split_once('=')
            && GLOBAL_FLAGS_WITH_VALUE.contains(&flag)
        {
            apply_global_flag(flag, value, settings);
        } else {
            unknown.push(argument.clone());
        }
        index += 1;
    }
    unknown
}

/// One global flag's value into the settings (the ones a plugin's environment shows).
fn apply_global_flag(flag: &str, value: &str, settings: &mut HelmEnvironment) {
    match flag {
        "--kube-context" => settings.kube_context = value.to_string(),
        "--namespace" | "-n" => settings.namespace = value.to_string(),
        "--kubeconfig" => settings.kube_config = value.to_string(),
        "--kube-apiserver" => settings.kube_api_server = value.to_string(),
        "--kube-token" => settings.kube_token = value.to_string(),
        "--kube-as-user" => settings.kube_as_user = value.to_string(),
        "--kube-as-group" => settings.kube_as_groups.push(value.to_string()),
        "--kube-ca-file" => settings.kube_ca_file = value.to_string(),
        "--registry-config" => settings.paths.registry_config = value.into(),
        "--repository-cache" => settings.paths.repository_cache = value.into(),
        "--repository-config" => settings.paths.repository_config = value.into(),
        "--kube-insecure-skip-tls-verify" => settings.kube_insecure_skip_tls_verify = value == "true",
        "--kube-tls-server-name" => settings.kube_tls_server_name = value.to_string(),
        _ => {}
    }
}

/// This process's environment with `extra` over it and the plugin's own two variables (`ParseEnv`, then the
/// maps inserted in Helm's order).
fn plugin_environment(plugin: &Plugin, extra: &BTreeMap<&'static str, String>) -> BTreeMap<String, String> {
    let mut environment: BTreeMap<String, String> = std::env::vars().collect();
    environment.extend(extra.iter().map(|(name, value)| (name.to_string(), value.clone())));
    environment.insert("HELM_PLUGIN_NAME".to_string(), plugin.metadata.name.clone());
    environment.insert("HELM_PLUGIN_DIR".to_string(), plugin.directory.display().to_string());
    environment
}

fn require_subprocess(metadata: &Metadata) -> Result<(), PluginError> {
    if metadata.runtime == "subprocess" {
        Ok(())
    } else {
        Err(PluginError::Runtime { name: metadata.name.clone(), runtime: metadata.runtime.clone() })
    }
}

/// The command for `program` and `arguments` with exactly `environment`.
fn command(program: &str, arguments: &[String], environment: &BTreeMap<String, String>) -> Command {
    let mut command = Command::new(program);
    command.args(arguments).env_clear().envs(environment);
    command
}

/// Runs a `cli/v1` plugin as `helm PLUGIN ARGS...` does, with the caller's streams. `arguments` are what
/// followed the plugin's name; Helm's global flags among them are applied to `settings`, the rest go to the
/// plugin (none with `ignoreFlags`). `helm_bin` is `HELM_BIN`.
///
/// # Errors
/// [`PluginError::Exited`] with the plugin's exit code when it fails, or the reason it could not start.
pub fn run_cli_plugin(
    plugin: &Plugin,
    arguments: &[String],
    settings: &HelmEnvironment,
    helm_bin: &str,
) -> Result<(), PluginError> {
    require_subprocess(&plugin.metadata)?;
    let mut settings = settings.clone();
    let unknown = split_global_flags(arguments, &mut settings);
    let ignore_flags = matches!(plugin.metadata.config, PluginConfig::Cli { ignore_flags: true, .. });
    let extra = if ignore_flags { Vec::new() } else { unknown };
    let environment = plugin_environment(plugin, &settings.variables(helm_bin));
    let (program, arguments) =
        prepare_command(&plugin.metadata.commands, true, &extra, &environment).map_err(PluginError::Command)?;
    // Helm's line (`runtime_subprocess.go`), the command as Go's `exec.Cmd.String` writes it.
    if tracing::enabled!(tracing::Level::DEBUG) {
        let command_line = std::iter::once(resolved_program(&program)).chain(arguments.iter().cloned());
        let command_line = command_line.collect::<Vec<_>>().join(" ");
        tracing::debug!(pluginName = plugin.metadata.name, command = command_line, "executing plugin command");
    }
    let status = command(&program, &arguments, &environment)
        .status()
        .map_err(|error| PluginError::Start { name: plugin.metadata.name.clone(), reason: error.to_string() })?;
    if status.success() {
        return Ok(());
    }
    Err(PluginError::Exited { name: plugin.metadata.name.clone(), code: status.code().unwrap_or(1) })
}

/// `program` as Go's `exec.Command` finds it (`LookPath`): a name without a `/` found in `PATH`, else as it is.
fn resolved_program(program: &str) -> String {
    if program.contains('/') {
        return program.to_string();
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|directory| directory.join(program))
        .find(|candidate| candidate.is_file())
        .map_or_else(|| program.to_string(), |found| found.display().to_string())
}

/// `InvokeHook`: the plugin's command for `event` (`install`, `update`, `delete`), if it has one, with this
/// process's streams.
///
/// # Errors
/// [`PluginError::Hook`] when the hook exits non-zero.
pub fn run_hook(plugin: &Plugin, event: &str) -> Result<(), PluginError> {
    let Some(commands) = plugin.metadata.hooks.get(event).filter(|commands| !commands.is_empty()) else {
        return Ok(());
    };
    require_subprocess(&plugin.metadata)?;
    let environment = plugin_environment(plugin, &BTreeMap::new());
    let (program, arguments) =
        prepare_command(commands, plugin.metadata.expand_hook_args, &[], &environment).map_err(PluginError::Command)?;
    let status = command(&program, &arguments, &environment)
        .status()
        .map_err(|error| PluginError::Start { name: plugin.metadata.name.clone(), reason: error.to_string() })?;
    if status.success() {
        Ok(())
    } else {
        Err(PluginError::Hook { event: event.to_string(), name: plugin.metadata.name.clone() })
    }
}

/// A `postrenderer/v1` plugin ready to run (Helm's `NewPostRendererPlugin`): found by name among the
/// installed plugins, with the `--post-renderer-args` it is given.
#[derive(Debug, Clone)]
pub struct PostRenderer {
    pub plugin: Plugin,
    pub arguments: Vec<String>,
}

impl PostRenderer {
    /// Finds the plugin `name` of type `postrenderer/v1`. Helm 4.1 takes nothing else: an executable's path is
    /// refused as a plugin that does not exist.
    ///
    /// # Errors
    /// [`PluginError::NotFound`] (`plugin: {Name:NAME Type:postrenderer/v1} not found`).
    pub fn find(settings: &HelmEnvironment, name: &str, arguments: Vec<String>) -> Result<PostRenderer, PluginError> {
        let plugin = find_plugin(&settings.plugin_directories(), name, "postrenderer/v1")?;
        Ok(PostRenderer { plugin, arguments })
    }

    /// `Run`: `manifests` on the plugin's stdin, its stdout back (its stderr is kept from the user, as Helm's
    /// is, and logged at debug level).
    ///
    /// # Errors
    /// [`PluginError::PostRenderer`] when it cannot start or fails, [`PluginError::EmptyOutput`] when it prints
    /// nothing.
    pub fn run(&self, manifests: &str) -> Result<String, PluginError> {
        let name = self.plugin.metadata.name.clone();
        let failed = |source: PluginError| PluginError::PostRenderer { name: name.clone(), source: Box::new(source) };
        require_subprocess(&self.plugin.metadata).map_err(&failed)?;
        let environment = plugin_environment(&self.plugin, &BTreeMap::new());
        let (program, arguments) = prepare_command(&self.plugin.metadata.commands, true, &self.arguments, &environment)
            .map_err(|error| failed(PluginError::Command(error)))?;
        let mut child = command(&program, &arguments, &environment)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|error| failed(PluginError::Start { name: name.clone(), reason: error.to_string() }))?;
        // Written from a thread of its own: a plugin that prints before it has read everything must not block.
        let input = manifests.to_string();
        let stdin = child.stdin.take();
        let writer = std::thread::spawn(move || {
            if let Some(mut stdin) = stdin {
                let _ = stdin.write_all(input.as_bytes());
            }
        });
        let output = child
            .wait_with_output()
            .map_err(|error| failed(PluginError::Start { name: name.clone(), reason: error.to_string() }))?;
        let _ = writer.join();
        if !output.status.success() {
            tracing::debug!(plugin = name, stderr = %String::from_utf8_lossy(&output.stderr).trim(), "plugin execution failed");
            return Err(failed(PluginError::Exited { name: name.clone(), code: output.status.code().unwrap_or(1) }));
        }
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        if text.trim().is_empty() {
            return Err(PluginError::EmptyOutput(name));
        }
        Ok(text)
    }

    /// The post-renderer step of rendering (Helm's `renderResources`): the files merged into one annotated
    /// stream, run through the plugin, split back into files.
    ///
    /// # Errors
    /// As [`PostRenderer::run`], or the stream's [`crate::post_render::StreamError`].
    pub fn render_files(&self, files: &BTreeMap<String, String>) -> Result<BTreeMap<String, String>, PluginError> {
        let merged = crate::post_render::annotate_and_merge(files)?;
        let rendered = self.run(&merged)?;
        Ok(crate::post_render::split_and_deannotate(&rendered))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helms_global_flags_are_taken_out_of_a_plugins_arguments() {
        let mut settings = HelmEnvironment::from_lookup(|_| None);
        let arguments: Vec<String> =
            ["a", "--namespace", "x", "-b", "--kube-context=ctx", "--debug", "c", "-n"].map(str::to_string).to_vec();
        let unknown = split_global_flags(&arguments, &mut settings);
        assert_eq!(unknown, ["a", "-b", "c"]);
        assert_eq!((settings.namespace.as_str(), settings.kube_context.as_str(), settings.debug), ("x", "ctx", true));
    }
}
