//! Executing a chart's templates as Helm 4's engine does (helm pkg/engine/engine.go): one template set named
//! `gotpl` holding every template of the chart and its subcharts, parsed deepest path first (so a parent's
//! `define` wins over a subchart's), `missingkey=zero`, and each file executed with its chart's data: `.Values`
//! scoped to the chart, `.Chart`, `.Release`, `.Capabilities`, `.Files`, `.Subcharts` and `.Template`.
//! `include`, `tpl`, `required`, `fail` and `lookup` are bound here, with Helm's recursion limit and messages.
//! `<no value>` is deleted from the output, as Helm does.

use super::errors::{WARN_END, WARN_START, parse_error, render_error};
use super::objects::{Capabilities, Files};
use crate::chart::Chart;
use berth_go::strconv::quote;
use berth_go::{GoType, Map, Signature, TemplateError, Value};
use berth_template::{Budget, Cancel, DEFAULT_MAX_RENDER_BYTES, Limits, MissingKey, Template};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Nested `include`s of one name allowed, as Helm's `recursionMaxNums`.
const INCLUDE_RECURSION_LIMIT: usize = 1000;

/// `.Release`: who is being rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    pub name: String,
    pub namespace: String,
    pub revision: i64,
    pub is_install: bool,
    pub is_upgrade: bool,
}

impl Release {
    /// What `helm template NAME` renders with (Helm's defaults: revision 1, an install).
    pub fn install(name: &str, namespace: &str) -> Release {
        Release {
            name: name.to_string(),
            namespace: namespace.to_string(),
            revision: 1,
            is_install: true,
            is_upgrade: false,
        }
    }

    fn to_value(&self) -> Value {
        Value::map([
            ("Name", Value::from(self.name.as_str())),
            ("Namespace", Value::from(self.namespace.as_str())),
            ("Revision", Value::Int(self.revision)),
            ("IsUpgrade", Value::Bool(self.is_upgrade)),
            ("IsInstall", Value::Bool(self.is_install)),
            ("Service", Value::from("Helm")),
        ])
    }
}

/// `lookup`: objects from the cluster, or nothing when rendering offline (`helm template`).
pub trait Lookup: Send + Sync {
    /// The object (`name` given) or a `List` of objects (`name` empty) as Helm's `lookup` returns them; an
    /// empty map when there is none.
    ///
    /// # Errors
    /// A message when the cluster cannot answer.
    fn lookup(&self, api_version: &str, kind: &str, namespace: &str, name: &str) -> Result<Value, String>;
}

/// How to render.
#[derive(Clone)]
pub struct RenderOptions {
    pub release: Release,
    pub capabilities: Capabilities,
    /// `None` renders offline: `lookup` returns an empty map, as in `helm template`.
    pub lookup: Option<Arc<dyn Lookup>>,
    /// What the render may spend, and how to stop it.
    pub budget: RenderBudget,
}

/// Wall time one render of a chart may take by default: two minutes. The largest render of the public-chart corpus
/// takes about 0.1 s (2 s in a debug build on a loaded machine), and a template that loops without end inside the
/// range budget runs for minutes, so the bound stops the second long before a user or a controller would give up
/// and never the first. Helm has no such bound.
pub const DEFAULT_RENDER_TIMEOUT: Duration = Duration::from_secs(120);

/// What one render of a chart may spend (every template file, `include` and `tpl` together), and the flag that
/// stops it. Helm bounds none of this but its `include` recursion; docs/charts.md compares each bound with Helm.
#[derive(Debug, Clone)]
pub struct RenderBudget {
    /// Bytes the render may build: its output and every string, list and map the functions it calls return
    /// ([`berth_template::Limits::max_render_bytes`]).
    pub max_render_bytes: u64,
    /// Wall time the render may take; `None`: no limit.
    pub timeout: Option<Duration>,
    /// Raised by another thread (SIGINT, a deleted Release, a new generation), it stops the render at its next
    /// loop iteration or function call with the error `render cancelled`.
    pub cancel: Option<Cancel>,
}

impl Default for RenderBudget {
    fn default() -> Self {
        RenderBudget { max_render_bytes: DEFAULT_MAX_RENDER_BYTES, timeout: Some(DEFAULT_RENDER_TIMEOUT), cancel: None }
    }
}

impl RenderBudget {
    /// The engine's limits for a render on the renderer's thread: this budget, the engine's defaults for
    /// iterations and template calls, and the stack the thread has room for.
    fn limits(&self) -> Limits {
        Limits {
            max_render_bytes: self.max_render_bytes,
            timeout: self.timeout,
            stack_budget: STACK_BUDGET,
            ..Limits::default()
        }
    }
}

/// Why a chart could not be rendered; the text is Helm's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    /// A template does not parse (`parse error at (mychart/templates/x.yaml:3): ...`).
    #[error("{0}")]
    Parse(String),
    /// A template fails while executing (Helm's multi-line trace, or `execution error at (...): ...`).
    #[error("{0}")]
    Execute(String),
}

/// One template file to render, with the data of its chart.
struct Renderable {
    text: String,
    data: Map,
    base_path: String,
}

/// Renders every template of `chart` (processed: disabled subcharts removed, aliases applied) with
/// `values` as the top chart's `.Values`. Returns each rendered file by its full name
/// (`mychart/templates/deployment.yaml`, `mychart/charts/sub/templates/x.yaml`); partials are not rendered.
/// Each file's output is handed to `on_file` (with its full name) as soon as that file is rendered, on the
/// rendering thread, so a caller can start on it while the rest renders.
///
/// # Errors
/// [`RenderError`] with Helm's text for the first template that does not parse or fails.
pub fn render_templates(
    chart: &Chart,
    values: &Value,
    options: &RenderOptions,
    on_file: &(dyn Fn(&str, &str) + Sync),
) -> Result<BTreeMap<String, String>, RenderError> {
    render_in_mode(chart, values, options, on_file, &Mode::Release)
}

/// What a render in Helm's lint mode gives: the rendered files (or the first error) and the lines Helm's engine
/// logs on the way, in order (`level=WARN msg="missing required value" message="..."`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LintRender {
    pub rendered: Result<BTreeMap<String, String>, RenderError>,
    pub log: Vec<String>,
}

/// [`render_templates`] as `helm lint` renders (Helm's engine with `LintMode`): `required` with a missing value
/// and `fail` log a line and give an empty string instead of stopping the render.
pub fn lint_templates(chart: &Chart, values: &Value, options: &RenderOptions) -> LintRender {
    let log = Arc::new(Mutex::new(Vec::new()));
    let rendered = render_in_mode(chart, values, options, &|_, _| {}, &Mode::Lint(Arc::clone(&log)));
    let log = std::mem::take(&mut *log.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
    LintRender { rendered, log }
}

/// How `required` and `fail` act: stop the render, or (Helm's `LintMode`) log and go on.
enum Mode {
    Release,
    Lint(Arc<Mutex<Vec<String>>>),
}

fn render_in_mode(
    chart: &Chart,
    values: &Value,
    options: &RenderOptions,
    on_file: &(dyn Fn(&str, &str) + Sync),
    mode: &Mode,
) -> Result<BTreeMap<String, String>, RenderError> {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("berth-render".to_string())
            .stack_size(RENDER_STACK_SIZE)
            .spawn_scoped(scope, || render_on_this_thread(chart, values, options, on_file, mode));
        match thread.map(|handle| handle.join()) {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err(RenderError::Execute("rendering template failed: the renderer panicked".to_string())),
            Err(error) => {
                Err(RenderError::Execute(format!("rendering template failed: cannot start the renderer: {error}")))
            }
        }
    })
}

/// [`render_templates`] on the calling thread, which must have [`RENDER_STACK_SIZE`] of stack.
fn render_on_this_thread(
    chart: &Chart,
    values: &Value,
    options: &RenderOptions,
    on_file: &(dyn Fn(&str, &str) + Sync),
    mode: &Mode,
) -> Result<BTreeMap<String, String>, RenderError> {
    let to_yaml = yaml_writer();
    let shared = Shared {
        release: options.release.to_value(),
        capabilities: Value::object(options.capabilities.clone()),
        to_yaml,
    };
    let mut renderables = BTreeMap::new();
    collect(chart, None, values, &shared, &mut renderables);

    let mut template = template_set(options, mode);
    let keys = sort_templates(renderables.keys());
    for name in &keys {
        if let Some(renderable) = renderables.get(name) {
            template.add(name, &renderable.text).map_err(|error| RenderError::Parse(parse_error(name, &error)))?;
        }
    }
    // One budget for the whole render: every file, as Helm renders them in one call.
    let mut budget = Budget::new(options.budget.limits(), options.budget.cancel.clone());
    let mut rendered = BTreeMap::new();
    for name in keys {
        let base = name.rsplit('/').next().unwrap_or(&name);
        if base.starts_with('_') {
            continue;
        }
        let Some(renderable) = renderables.get(&name) else { continue };
        renderable.data.insert(
            "Template",
            Value::map([
                ("Name", Value::from(name.as_str())),
                ("BasePath", Value::from(renderable.base_path.as_str())),
            ]),
        );
        let output = template
            .execute_template_bytes(&name, &Value::Map(renderable.data.clone()), &mut budget)
            .map_err(|error| RenderError::Execute(render_error(&name, &error)))?;
        let output = text_of(without_no_value(output));
        on_file(&name, &output);
        rendered.insert(name, output);
    }
    Ok(rendered)
}

/// What every chart's data shares.
struct Shared {
    release: Value,
    capabilities: Value,
    to_yaml: Arc<dyn Fn(&Value) -> String + Send + Sync>,
}

/// Helm's `recAllTpls`: the data of `chart` (and, recursively, of its subcharts) and its templates. Returns the
/// chart's data, which its parent lists under `.Subcharts`.
fn collect(
    chart: &Chart,
    parent: Option<(&str, &Map)>,
    values: &Value,
    shared: &Shared,
    renderables: &mut BTreeMap<String, Renderable>,
) -> Map {
    let is_root = parent.is_none();
    let full_path = match parent {
        Some((parent_path, _)) => format!("{parent_path}/charts/{}", chart.name()),
        None => chart.name().to_string(),
    };
    let scoped_values = match parent {
        None => values.clone(),
        Some((_, parent_data)) => match parent_data.get("Values") {
            Some(Value::Map(parent_values)) => match parent_values.get(chart.name()) {
                Some(Value::Map(own)) => Value::Map(own),
                _ => Value::Map(Map::new()),
            },
            _ => Value::Map(Map::new()),
        },
    };
    let subcharts = Map::new();
    let files = chart.files.iter().map(|file| (file.name.clone(), Arc::clone(&file.data)));
    let data = Map::from_iter([
        ("Chart", chart_value(chart, is_root)),
        ("Files", Value::object(Files::new(files, shared.to_yaml.clone()))),
        ("Release", shared.release.clone()),
        ("Capabilities", shared.capabilities.clone()),
        ("Values", scoped_values),
        ("Subcharts", Value::Map(subcharts.clone())),
    ]);
    for child in &chart.dependencies {
        let child_data = collect(child, Some((&full_path, &data)), values, shared, renderables);
        subcharts.insert(child.name(), Value::Map(child_data));
    }
    for file in &chart.templates {
        let base = file.name.rsplit('/').next().unwrap_or(&file.name);
        if chart.is_library() && !base.starts_with('_') {
            continue;
        }
        renderables.insert(
            format!("{full_path}/{}", file.name),
            Renderable { text: file.text(), data: data.clone(), base_path: format!("{full_path}/templates") },
        );
    }
    data
}

/// `.Chart`: the metadata as a map of Go field names (Helm's `structToMap`), plus `IsRoot`.
fn chart_value(chart: &Chart, is_root: bool) -> Value {
    let metadata = &chart.metadata;
    let text = |value: &str| Value::from(value);
    let strings = |values: &[String]| Value::list(values.iter().map(|value| text(value)));
    let maintainers = metadata.maintainers.iter().map(|maintainer| {
        Value::map([
            ("Name", text(&maintainer.name)),
            ("Email", text(&maintainer.email)),
            ("URL", text(&maintainer.url)),
        ])
    });
    let dependencies = metadata.dependencies.iter().map(|dependency| {
        Value::map([
            ("Name", text(&dependency.name)),
            ("Version", text(&dependency.version)),
            ("Repository", text(&dependency.repository)),
            ("Condition", text(&dependency.condition)),
            ("Tags", strings(&dependency.tags)),
            ("Enabled", Value::Bool(dependency.enabled)),
            ("ImportValues", Value::list(dependency.import_values.iter().cloned())),
            ("Alias", text(&dependency.alias)),
        ])
    });
    let annotations = if metadata.annotations.is_empty() {
        Value::Nil
    } else {
        Value::map(metadata.annotations.iter().map(|(key, value)| (key.as_str(), text(value))))
    };
    Value::map([
        ("Name", text(&metadata.name)),
        ("Home", text(&metadata.home)),
        ("Sources", strings(&metadata.sources)),
        ("Version", text(&metadata.version)),
        ("Description", text(&metadata.description)),
        ("Keywords", strings(&metadata.keywords)),
        ("Maintainers", Value::list(maintainers)),
        ("Icon", text(&metadata.icon)),
        ("APIVersion", text(&metadata.api_version)),
        ("Condition", text(&metadata.condition)),
        ("Tags", text(&metadata.tags)),
        ("AppVersion", text(&metadata.app_version)),
        ("Deprecated", Value::Bool(metadata.deprecated)),
        ("Annotations", annotations),
        ("KubeVersion", text(&metadata.kube_version)),
        ("Dependencies", Value::list(dependencies)),
        ("Type", text(&metadata.chart_type)),
        ("IsRoot", Value::Bool(is_root)),
    ])
}

/// Helm's `sortTemplates`: more path segments first, then reverse lexical order; the last parsed `define`
/// of a name wins, so the top chart's helpers override its subcharts'.
fn sort_templates<'a>(names: impl Iterator<Item = &'a String>) -> Vec<String> {
    let mut names: Vec<String> = names.cloned().collect();
    names.sort_by(|a, b| {
        let depth = |name: &str| name.matches('/').count();
        depth(b).cmp(&depth(a)).then_with(|| b.cmp(a))
    });
    names
}

/// `toYaml` as templates call it, for `.Files.AsConfig` and `.AsSecrets`.
fn yaml_writer() -> Arc<dyn Fn(&Value) -> String + Send + Sync> {
    let functions = berth_sprig::helm_functions();
    match functions.get("toYaml").cloned() {
        Some(to_yaml) => Arc::new(move |value: &Value| match to_yaml(std::slice::from_ref(value)) {
            Ok(Value::String(text)) => text.to_string(),
            _ => String::new(),
        }),
        None => Arc::new(|_: &Value| String::new()),
    }
}

/// Stack a render may use: Helm's 1,000 nested `include`s of one name cost about 10 MiB in a debug build (the
/// engine's measurement). The thread rendering must have more: see [`RENDER_STACK_SIZE`].
pub(super) const STACK_BUDGET: usize = 60 * 1024 * 1024;

/// The stack of the thread [`render_templates`] runs on.
pub const RENDER_STACK_SIZE: usize = 64 * 1024 * 1024;

/// The template set with Helm's functions.
fn template_set(options: &RenderOptions, mode: &Mode) -> Template {
    let included: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let limits = Limits { stack_budget: STACK_BUDGET, ..Limits::default() };
    let template =
        Template::new("gotpl").missing_key(MissingKey::ZeroValue).limits(limits).funcs(berth_sprig::helm_functions());
    let include_counts = included.clone();
    let template = template.context_func(
        "include",
        Some(Signature::fixed(&[GoType::String, GoType::Any])),
        move |context, args| {
            let name = args.first().and_then(Value::as_str).unwrap_or_default().to_string();
            let data = args.get(1).cloned().unwrap_or(Value::Nil);
            let depth = {
                let mut counts = include_counts.lock().map_err(|_| TemplateError::msg("include counter poisoned"))?;
                let count = counts.entry(name.clone()).or_insert(0);
                *count += 1;
                *count
            };
            if depth > INCLUDE_RECURSION_LIMIT + 1 {
                decrement(&include_counts, &name);
                return Err(TemplateError::msg(format!(
                    "rendering template has a nested reference name: {name}: unable to execute template"
                )));
            }
            let result = context.execute_template(&name, &data);
            decrement(&include_counts, &name);
            result.map(|output| Value::from_go_bytes(&output))
        },
    );
    let template =
        template.context_func("tpl", Some(Signature::fixed(&[GoType::String, GoType::Any])), |context, args| {
            let text = args.first().and_then(Value::as_str).unwrap_or_default().to_string();
            let data = args.get(1).cloned().unwrap_or(Value::Nil);
            match context.execute_text("gotpl", &text, &data) {
                Ok(output) => Ok(Value::from_go_bytes(&without_no_value(output))),
                Err(error @ TemplateError::Parse(_)) => {
                    Err(TemplateError::msg(format!("cannot parse template {}: {error}", quote(&text))))
                }
                Err(error) => Err(TemplateError::msg(format!(
                    "error during tpl function execution for {}: {error}",
                    quote(&text)
                ))),
            }
        });
    let lint_log = match mode {
        Mode::Release => None,
        Mode::Lint(log) => Some(Arc::clone(log)),
    };
    let log = |log: &Option<Arc<Mutex<Vec<String>>>>, level: &str, message: &str, attribute: &str| {
        if let Some(log) = log {
            let line = crate::go::slog_line(level, message, &[("message", attribute)]);
            log.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(line);
        }
    };
    let required_log = lint_log.clone();
    let template =
        template.func_with_signature("required", Signature::fixed(&[GoType::String, GoType::Any]), move |args| {
            let warning = args.first().and_then(Value::as_str).unwrap_or_default();
            let value = args.get(1).cloned().unwrap_or(Value::Nil);
            // Helm's two lint-mode log messages: a missing value, and an empty string.
            let missing = match &value {
                Value::Nil => Some("missing required value"),
                Value::String(text) if text.is_empty() => Some("missing required values"),
                _ => None,
            };
            match (missing, &required_log) {
                (None, _) => Ok(value),
                (Some(message), Some(_)) => {
                    log(&required_log, "WARN", message, warning);
                    Ok(Value::from(""))
                }
                (Some(_), None) => Err(TemplateError::msg(format!("{WARN_START}{warning}{WARN_END}"))),
            }
        });
    let template = template.func_with_signature("fail", Signature::fixed(&[GoType::String]), move |args| {
        let message = args.first().and_then(Value::as_str).unwrap_or_default();
        if lint_log.is_some() {
            log(&lint_log, "INFO", "funcMap fail", message);
            return Ok(Value::from(""));
        }
        Err(TemplateError::msg(format!("{WARN_START}{message}{WARN_END}")))
    });
    let lookup = options.lookup.clone();
    template.func_with_signature(
        "lookup",
        Signature::fixed(&[GoType::String, GoType::String, GoType::String, GoType::String]),
        move |args| {
            let text = |index: usize| args.get(index).and_then(Value::as_str).unwrap_or_default();
            match &lookup {
                None => Ok(Value::Map(Map::new())),
                Some(lookup) => lookup.lookup(text(0), text(1), text(2), text(3)).map_err(TemplateError::msg),
            }
        },
    )
}

/// The output with Go's `<no value>` deleted, as Helm deletes it from every file and every `tpl` result.
fn without_no_value(output: Vec<u8>) -> Vec<u8> {
    static NO_VALUE: std::sync::LazyLock<Option<regex::bytes::Regex>> =
        std::sync::LazyLock::new(|| regex::bytes::Regex::new("<no value>").ok());
    match NO_VALUE.as_ref() {
        Some(no_value) if no_value.is_match(&output) => no_value.replace_all(&output, &b""[..]).into_owned(),
        _ => output,
    }
}

/// A rendered file as text (its bytes that are not UTF-8 as U+FFFD).
fn text_of(output: Vec<u8>) -> String {
    String::from_utf8(output).unwrap_or_else(|error| berth_go::strings::from_go_bytes(error.as_bytes()))
}

fn decrement(counts: &Mutex<HashMap<String, usize>>, name: &str) {
    if let Ok(mut counts) = counts.lock()
        && let Some(count) = counts.get_mut(name)
    {
        *count = count.saturating_sub(1);
    }
}
