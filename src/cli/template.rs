//! `berth template`: a chart rendered locally, printed exactly as `helm template` prints it (the same documents
//! in the same order, the same `# Source:` lines, hooks after the manifests), or written to a directory.

use super::chart_args::ValuesArgs;
use super::common_args::{WAIT_BARE, WaitStrategy, duration_arg, wait_strategy};
use super::global_args::{Globals, Personality};
use super::output::print_stdout;
use super::release_input::RenderFlags;
use crate::cli::error::{ChartProblem, Error, ExitCode, NameCheck, check_release_name};
use berth_chart::pipeline::{ChartError, ReleaseOptions, render_release_post_rendered};
use berth_chart::render::objects::KubeVersion;
use berth_chart::render::output::{Hook, Manifest, TemplateOutput, template_text};
use berth_chart::render::{ChartRenderError, Release, RenderOptions, offline};
use berth_chart::values::ComputeOptions;
use clap::Args;
use regex::Regex;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct TemplateArgs {
    /// `[NAME] CHART`: the release name (default `release-name`) and a chart directory or packaged `.tgz`.
    #[arg(num_args = 1.., value_names = ["NAME", "CHART"], required = true)]
    pub names: Vec<String>,
    #[command(flatten)]
    pub values: ValuesArgs,
    /// Print the CRDs of `crds/` first.
    #[arg(long)]
    pub include_crds: bool,
    /// Accepted as Helm accepts it; CRDs are printed only with `--include-crds`.
    #[arg(long)]
    pub skip_crds: bool,
    /// Leave test hooks out.
    #[arg(long)]
    pub skip_tests: bool,
    /// Leave every hook out.
    #[arg(long)]
    pub no_hooks: bool,
    /// Only the manifests rendered from these templates (`templates/x.yaml`, globs allowed).
    #[arg(short = 's', long = "show-only", value_name = "TEMPLATE")]
    pub show_only: Vec<String>,
    /// Extra API versions for `.Capabilities.APIVersions` (comma-separated or repeated).
    #[arg(short = 'a', long = "api-versions", value_delimiter = ',')]
    pub api_versions: Vec<String>,
    /// The Kubernetes version of `.Capabilities.KubeVersion` (default v1.35.0, as Helm 4.1.4).
    #[arg(long)]
    pub kube_version: Option<String>,
    /// Render as an upgrade (`.Release.IsUpgrade`).
    #[arg(long)]
    pub is_upgrade: bool,
    /// Write each template's output under this directory instead of printing it.
    #[arg(long)]
    pub output_dir: Option<PathBuf>,
    /// With `--output-dir`, write under a directory named after the release.
    #[arg(long)]
    pub release_name: bool,
    /// Render the NOTES.txt of subcharts too (they are not printed by `template`).
    #[arg(long)]
    pub render_subchart_notes: bool,
    #[command(flatten)]
    pub render: RenderFlags,
    #[command(flatten)]
    pub install: InstallFlags,
}

/// The flags of `install` that `helm template` takes too (it runs an install as a client-side dry run): the name
/// flags change what is rendered, the others are accepted and change nothing in the output.
#[derive(Debug, Args)]
pub struct InstallFlags {
    /// Name the release after the chart and the time (`CHART-<seconds>`).
    #[arg(short = 'g', long)]
    pub generate_name: bool,
    /// A Go template that names the release (Sprig functions included).
    #[arg(long, value_name = "TEMPLATE")]
    pub name_template: Option<String>,
    /// `client` (the default) or `server`; berth renders without the cluster either way.
    #[arg(long, value_name = "MODE", num_args = 0..=1, require_equals = true, default_missing_value = "client")]
    pub dry_run: Option<String>,
    /// Helm 3's "validate against the cluster" (Helm 4: `--dry-run=server`); berth renders without the cluster.
    #[arg(long, hide = true)]
    pub validate: bool,
    #[arg(long, hide = true)]
    pub create_namespace: bool,
    #[arg(long, hide = true)]
    pub description: Option<String>,
    #[arg(long, hide = true)]
    pub disable_openapi_validation: bool,
    #[arg(long, hide = true)]
    pub enable_dns: bool,
    #[arg(long, hide = true)]
    pub hide_notes: bool,
    #[arg(short = 'l', long = "labels", hide = true, value_delimiter = ',')]
    pub labels: Vec<String>,
    #[arg(long, hide = true)]
    pub replace: bool,
    #[arg(long, hide = true, alias = "atomic")]
    pub rollback_on_failure: bool,
    #[arg(long, hide = true)]
    pub take_ownership: bool,
    // Helm's install flags `template` shares; rendering writes nothing, so the apply method has no effect.
    #[arg(long, hide = true, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub server_side: Option<String>,
    #[arg(long, hide = true)]
    pub force_conflicts: bool,
    #[arg(long, hide = true, alias = "force")]
    pub force_replace: bool,
    #[arg(long, hide = true, default_value = "5m", value_parser = duration_arg)]
    pub timeout: std::time::Duration,
    #[arg(long, hide = true, num_args = 0..=1, require_equals = true, default_missing_value = WAIT_BARE,
          value_parser = wait_strategy)]
    pub wait: Option<WaitStrategy>,
    #[arg(long, hide = true)]
    pub wait_for_jobs: bool,
}

pub fn run(args: TemplateArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let naming = super::release_output::Naming {
        names: &args.names,
        generate_name: args.install.generate_name,
        name_template: args.install.name_template.as_deref(),
        default_name: Some("release-name"),
    };
    let (name, chart_path) = naming.name_and_chart()?;
    if let Some(mode) =
        args.install.dry_run.as_deref().filter(|mode| !["client", "server", "true", "unset"].contains(mode))
    {
        return Err(Error::Usage(format!("invalid dry-run value ({mode:?}). Must be \"server\" or \"client\"")));
    }
    // Helm finds the post-renderer while it reads its flags, before anything else.
    let settings = &globals.environment;
    let post_renderer = super::release_input::post_renderer(
        args.render.post_renderer.as_deref(),
        &args.render.post_renderer_args,
        globals,
    )?;
    let namespace = globals.namespace_offline();
    let kube_version = args.kube_version.as_deref().map(kube_version).transpose()?;
    // Helm's order (runInstall): find the chart, merge the user's values, then load the chart.
    let chart_problem =
        |error: berth_chart::load::LoadError| Error::Chart(chart_path.clone(), ChartProblem(error.to_string()));
    super::source_args::log_chart_version(&args.render.source);
    let located =
        super::source_args::locate_any_blocking(&chart_path, &args.render.source, &args.render.provenance, settings)?;
    super::source_args::log_chart_path(&located);
    let user_values = args.values.user_values_blocking(settings)?;
    let loaded = berth_chart::load::load(&located).map_err(chart_problem)?;
    for warning in &loaded.warnings {
        tracing::warn!("{warning}");
    }
    let chart = if args.render.dependency_update && located.is_dir() {
        super::runtime::runtime()?.block_on(super::release_input::update_dependencies(
            &located,
            loaded.chart,
            &args.render.source,
            settings,
        ))?
    } else {
        loaded.chart
    };
    // Helm's install action checks the name once the chart and values are loaded (`availableName`) and logs the
    // refusal first; as `berth`, the render refuses it (berth-chart's check, in Helm's message).
    if globals.personality == Personality::Helm {
        check_release_name(&name, NameCheck::Install)?;
    }
    let server_dry_run = args.install.validate || args.install.dry_run.as_deref() == Some("server");
    if server_dry_run && !args.skip_crds && !chart.crd_objects().is_empty() {
        super::release_output::warn(globals, super::release_input::DRY_RUN_CRDS);
    }
    let mut release = Release::install(&name, &namespace);
    if args.is_upgrade {
        (release.is_install, release.is_upgrade) = (false, true);
    }
    // As `helm`, a server dry run is Helm's install's (`template --validate` or `--dry-run=server`): the cluster
    // answers capabilities (`--kube-version` and `--api-versions` are then ignored, as in Helm) and `lookup`, and
    // the objects are checked against those that exist once rendered.
    let server = match (server_dry_run, globals.personality) {
        (true, Personality::Helm) => Some(ServerRender::connect(globals)?),
        _ => None,
    };
    let (capabilities, lookup) = match &server {
        Some(server) => (server.capabilities.clone(), Some(server.lookup())),
        None => (offline(kube_version, &args.api_versions), None),
    };
    let options = ReleaseOptions {
        render: RenderOptions {
            release,
            capabilities,
            lookup,
            budget: berth::release::render_budget_from_environment()
                .map_err(|error| Error::Chart(chart_path.clone(), ChartProblem(error.0)))?,
        },
        compute: ComputeOptions { skip_schema_validation: args.render.skip_schema_validation },
        sub_notes: args.render_subchart_notes,
        read_objects: false,
        on_chart: None,
    };
    let post_render = post_renderer.as_ref().map(|renderer| {
        move |files: &std::collections::BTreeMap<String, String>| {
            renderer.render_files(files).map_err(|error| berth_source::download::error_chain(&error))
        }
    });
    let post_render = post_render.as_ref().map(|post_render| post_render as &berth_chart::render::PostRender<'_>);
    let rendered = match render_release_post_rendered(&chart, user_values, &options, post_render) {
        Ok(rendered) => rendered,
        Err(error) => return Err(render_failure(&error, &chart_path, globals)?),
    };
    for warning in &rendered.warnings {
        tracing::warn!("{warning}");
    }
    // `--take-ownership` adopts what exists (Helm's `requireAdoption`, which checks no owner).
    if let Some(server) = server.as_ref().filter(|_| !args.install.take_ownership) {
        server.check_install(&rendered, &name, &namespace)?;
    }
    let output = &rendered.rendered;
    let hooks: Vec<Hook> = if args.no_hooks { Vec::new() } else { output.hooks.clone() };
    let crds = if args.include_crds { output.crds.clone() } else { Vec::new() };
    let printed = TemplateOutput {
        manifests: &output.manifests,
        hooks: &hooks,
        crds: &crds,
        without_hooks: args.no_hooks,
        without_tests: args.skip_tests,
    };
    if let Some(directory) = &args.output_dir {
        // CRDs go to the directory as given; manifests and hooks under the release name with `--release-name`.
        let release_directory = if args.release_name { directory.join(&name) } else { directory.clone() };
        write_files(directory, &release_directory, &crds, &output.manifests, &printed)?;
        // What Helm prints after writing: the manifest it kept (none, so an empty line), or, with
        // `--show-only`, the error of finding no template in it.
        if let Some(pattern) = args.show_only.first() {
            return Err(Error::Usage(format!("could not find template {} in chart", pattern.replace('\\', "/"))));
        }
        print_stdout("\n")?;
        return Ok(ExitCode::Success);
    }
    let text = template_text(&printed);
    let text = if args.show_only.is_empty() { text } else { show_only(&text, &args.show_only)? };
    print_stdout(&text)?;
    Ok(ExitCode::Success)
}

/// The cluster a server dry run of `template` renders against, as Helm's install action does it
/// (`Install.RunWithContext` with `ClientOnly` false): its capabilities, its `lookup`, and its check of the
/// objects that exist.
struct ServerRender {
    runtime: tokio::runtime::Runtime,
    cluster: berth::cluster::Cluster,
    capabilities: berth_chart::render::objects::Capabilities,
}

impl ServerRender {
    /// Connects, and reads the cluster's version and APIs.
    ///
    /// # Errors
    /// The connection's error (Helm's `kubernetes cluster unreachable: ...`).
    fn connect(globals: &Globals) -> Result<ServerRender, Error> {
        let runtime = super::runtime::runtime()?;
        let (cluster, _simulated) = runtime.block_on(globals.connect())?;
        let capabilities = runtime
            .block_on(berth::release::cluster_chart::capabilities(&cluster))
            .map_err(|error| Error::Usage(format!("could not get server version from Kubernetes: {error}")))?;
        Ok(ServerRender { runtime, cluster, capabilities })
    }

    /// `lookup` reading the cluster, on this runtime (the render runs on this thread, outside it).
    fn lookup(&self) -> std::sync::Arc<dyn berth_chart::render::Lookup> {
        std::sync::Arc::new(berth::release::cluster_chart::ClusterLookup {
            cluster: self.cluster.clone(),
            runtime: self.runtime.handle().clone(),
            looked_up: berth::release::LookedUpSecrets::default(),
        })
    }

    /// Helm's `existingResourceConflict`: the first rendered object that exists without release `name`'s marks
    /// fails the template, in Helm's words (`unable to continue with install: ...`).
    ///
    /// # Errors
    /// That conflict, or a rendered document that is no Kubernetes object.
    fn check_install(
        &self,
        rendered: &berth_chart::pipeline::RenderedRelease,
        name: &str,
        namespace: &str,
    ) -> Result<(), Error> {
        let objects = berth::release::chart::rendered_from_chart(rendered.clone(), false)
            .map_err(|error| Error::Usage(error.to_string()))?;
        let checked = berth::release::existing::check_install(&self.cluster, &objects.manifests, name, namespace);
        let refused =
            |message| Error::Release(berth::release::LifecycleError::Exists { operation: "install", message });
        self.runtime.block_on(checked).map_err(refused)
    }
}

/// `--kube-version`, read as Helm's `template` reads it (`common.ParseKubeVersion`), with its error.
///
/// # Errors
/// [`Error::Usage`] when the text is no Kubernetes version.
pub fn kube_version(text: &str) -> Result<KubeVersion, Error> {
    KubeVersion::parse(text).map_err(|error| Error::Usage(format!("invalid kube version '{text}': {error}")))
}

/// A chart that did not render. As `helm`, a failure of the render itself (Helm's `renderResources`, which
/// returns a release holding what rendered) is reported as Helm's `template` reports it (pkg/cmd/template.go):
/// with `--debug`, that manifest printed first (the files of a YAML parse error, else nothing: an empty line);
/// without, the error and Helm's hint to use `--debug`.
///
/// # Errors
/// [`Error::Output`] when stdout cannot be written.
fn render_failure(error: &ChartError, chart_path: &str, globals: &Globals) -> Result<Error, Error> {
    let problem = |message: String| Error::Chart(chart_path.to_string(), ChartProblem(message));
    let message = error.to_string();
    let ChartError::Render(render) = error else { return Ok(problem(message)) };
    if globals.personality == Personality::Berth {
        return Ok(problem(message));
    }
    if globals.environment.debug {
        let manifest = match render {
            ChartRenderError::Sort(sort) => sort.rendered.trim_matches(berth_go::strings::is_space),
            _ => "",
        };
        print_stdout(&format!("{manifest}\n"))?;
        return Ok(problem(message));
    }
    Ok(problem(format!("{message}\n\nUse --debug flag to render out invalid YAML")))
}

/// `--show-only`: the documents whose `# Source:` template (the path after the chart name) matches a pattern,
/// pattern by pattern, as Helm filters them.
fn show_only(text: &str, patterns: &[String]) -> Result<String, Error> {
    let documents = berth_chart::render::output::split_manifests(text);
    let source = Regex::new("# Source: [^/]+/(.+)").map_err(|error| Error::Usage(error.to_string()))?;
    let mut out = String::new();
    for pattern in patterns {
        let pattern = pattern.replace('\\', "/");
        let mut found = false;
        for document in &documents {
            let Some(path) = source.captures(document).and_then(|captures| captures.get(1)) else { continue };
            if go_path_match(&pattern, path.as_str()) {
                out.push_str(&format!("---\n{document}\n"));
                found = true;
            }
        }
        if !found {
            return Err(Error::Usage(format!("could not find template {pattern} in chart")));
        }
    }
    Ok(out)
}

/// Go's `filepath.Match` (`*` and `?` stop at `/`, `[...]` classes, `\` escapes).
fn go_path_match(pattern: &str, name: &str) -> bool {
    let mut regex = String::from("^");
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' => regex.push_str("[^/]*"),
            '?' => regex.push_str("[^/]"),
            '[' => {
                regex.push('[');
                if chars.peek() == Some(&'^') {
                    chars.next();
                    regex.push('^');
                }
                for c in chars.by_ref() {
                    if c == ']' {
                        break;
                    }
                    if matches!(c, '\\' | '[' | '&' | '~') {
                        regex.push('\\');
                    }
                    regex.push(c);
                }
                regex.push(']');
            }
            '\\' => {
                if let Some(next) = chars.next() {
                    regex.push_str(&regex::escape(&next.to_string()));
                }
            }
            other => regex.push_str(&regex::escape(&other.to_string())),
        }
    }
    regex.push('$');
    Regex::new(&regex).is_ok_and(|regex| regex.is_match(name))
}

/// `--output-dir`: each template's documents appended to `DIR/<template path>`, as Helm writes them (its
/// `renderResources` and `writeToFile`): CRDs under `crd_directory`, manifests and hooks under `directory`.
fn write_files(
    crd_directory: &Path,
    directory: &Path,
    crds: &[berth_chart::render::output::CrdFile],
    manifests: &[Manifest],
    printed: &TemplateOutput<'_>,
) -> Result<(), Error> {
    let mut written = std::collections::HashSet::new();
    let mut write = |directory: &Path, name: &str, content: &str, append_to_existing: bool| -> Result<(), Error> {
        let shown = format!("{}/{name}", directory.display());
        let path = PathBuf::from(&shown);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(Error::Output)?;
        }
        // Helm appends to a file it wrote in this run; a hook's file is appended to whenever it exists.
        let append = !written.insert(name.to_string()) || (append_to_existing && path.exists());
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .append(append)
            .truncate(!append)
            .open(&path)
            .map_err(Error::Output)?;
        use std::io::Write as _;
        write!(file, "---\n# Source: {name}\n{content}\n").map_err(Error::Output)?;
        print_stdout(&format!("wrote {shown}\n"))
    };
    for crd in crds {
        write(crd_directory, &crd.path, &crd.content, false)?;
    }
    for manifest in manifests {
        write(directory, &manifest.source, &manifest.content, false)?;
    }
    if !printed.without_hooks {
        for hook in printed.hooks {
            if printed.without_tests && hook.is_test() {
                continue;
            }
            write(directory, &hook.path, &hook.manifest, true)?;
        }
    }
    Ok(())
}
