//! `get all --template`: Helm's `tpl` (`pkg/cmd/printer.go`), Go's text/template without Sprig over
//! `{"Release": release}`, where the release is Helm 4's `*v1.Release` with its chart (`*v2.Chart`), info
//! (`*v1.Info`) and hooks (`*v1.Hook`): Go structs, so a field they do not have fails as Go fails (`can't evaluate
//! field Missing in type *v1.Release`) while a key missing from `.Release.Config` (a map) prints `<no value>`.
//! Times are Go's `Time.String()`, as a time field prints.

use crate::cli::error::Error;
use berth::release::Release;
use berth::release::cluster_chart::template_value;
use berth_go::{Kind, Object, Value};
use std::fmt;

/// A Go struct pointer as a template reads it: its type and its exported fields in declaration order.
#[derive(Debug)]
struct GoStruct {
    type_name: &'static str,
    fields: Vec<(&'static str, Value)>,
}

impl GoStruct {
    fn value(type_name: &'static str, fields: Vec<(&'static str, Value)>) -> Value {
        Value::object(GoStruct { type_name, fields })
    }
}

impl Object for GoStruct {
    fn type_name(&self) -> &str {
        self.type_name
    }

    fn kind(&self) -> Kind {
        Kind::Ptr
    }

    fn field(&self, name: &str) -> Option<Value> {
        self.fields.iter().find(|(field, _)| *field == name).map(|(_, value)| value.clone())
    }

    /// fmt's `%v` of a struct: its fields between braces, separated by spaces (Go prints a pointer field inside as
    /// an address, which no two runs share).
    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fields: Vec<String> = self.fields.iter().map(|(_, value)| value.to_string()).collect();
        write!(f, "{{{}}}", fields.join(" "))
    }

    fn to_data(&self) -> Value {
        Value::map(self.fields.iter().map(|(name, value)| (*name, value.clone())))
    }
}

/// Runs `template` over the release as Helm's `get all --template` does, into `out`: as Go's `Execute` writes to
/// stdout, what the template wrote before an error stays there (and is printed before the error).
///
/// # Errors
/// [`Error::Usage`] with Go's message when the template does not parse or fails.
pub fn write(release: &Release, template: &str, out: &mut Vec<u8>) -> Result<(), Error> {
    let parsed = berth_template::Template::new("_").parse(template).map_err(|error| Error::Usage(error.to_string()))?;
    let data = Value::map([("Release", release_fields(release))]);
    parsed.execute_into(out, &data).map_err(|error| Error::Usage(error.to_string()))
}

/// The release as Helm's `release.Release` struct reads in a template; what berth's record does not hold (the
/// chart's files, lock and schema, the objects of `Info.Resources`) reads as empty.
fn release_fields(release: &Release) -> Value {
    let time = |time: Option<berth::release::HelmTime>| {
        Value::from(time.map_or_else(|| "0001-01-01 00:00:00 +0000 UTC".to_string(), |time| time.go_string()).as_str())
    };
    let text = |text: &str| Value::from(text);
    let texts = |texts: &[String]| Value::list(texts.iter().map(|text| Value::from(text.as_str())));
    let empty = || Value::list(Vec::<Value>::new());
    let info = &release.info;
    let metadata = &release.chart.metadata;
    let chart_metadata = GoStruct::value(
        "*v2.Metadata",
        vec![
            ("Name", text(&metadata.name)),
            ("Home", text(metadata.home.as_deref().unwrap_or_default())),
            ("Sources", texts(&metadata.sources)),
            ("Version", text(&metadata.version)),
            ("Description", text(metadata.description.as_deref().unwrap_or_default())),
            ("Keywords", texts(&metadata.keywords)),
            ("Maintainers", empty()),
            ("Icon", text(metadata.icon.as_deref().unwrap_or_default())),
            ("APIVersion", text(&metadata.api_version)),
            ("Condition", text("")),
            ("Tags", text("")),
            ("AppVersion", text(metadata.app_version.as_deref().unwrap_or_default())),
            ("Deprecated", Value::Bool(metadata.deprecated)),
            ("Annotations", Value::map(metadata.annotations.iter().map(|(key, value)| (key.as_str(), text(value))))),
            ("KubeVersion", text(metadata.kube_version.as_deref().unwrap_or_default())),
            ("Dependencies", empty()),
            ("Type", text(metadata.chart_type.as_deref().unwrap_or_default())),
        ],
    );
    let chart = GoStruct::value(
        "*v2.Chart",
        vec![
            ("Raw", empty()),
            ("Metadata", chart_metadata),
            ("Lock", Value::Nil),
            ("Templates", empty()),
            ("Values", template_value(&serde_json::Value::Object(release.chart.values.clone().unwrap_or_default()))),
            ("Schema", empty()),
            ("SchemaModTime", time(None)),
            ("Files", empty()),
            ("ModTime", time(None)),
        ],
    );
    let hooks = release.hooks.iter().map(|hook| {
        GoStruct::value(
            "*v1.Hook",
            vec![
                ("Name", text(&hook.name)),
                ("Kind", text(&hook.kind)),
                ("Path", text(&hook.path)),
                ("Manifest", text(&hook.manifest)),
                ("Events", texts(&hook.events)),
                // A struct, not a pointer, in Helm's `Hook`: a hook that never ran reads as Go's zero values.
                (
                    "LastRun",
                    GoStruct::value(
                        "v1.HookExecution",
                        vec![
                            ("StartedAt", time(hook.last_run.started_at)),
                            ("CompletedAt", time(hook.last_run.completed_at)),
                            ("Phase", text(&hook.last_run.phase)),
                        ],
                    ),
                ),
                ("Weight", Value::Int(i64::from(hook.weight))),
                ("DeletePolicies", texts(&hook.delete_policies)),
                ("OutputLogPolicies", empty()),
            ],
        )
    });
    let info = GoStruct::value(
        "*v1.Info",
        vec![
            ("FirstDeployed", time(info.first_deployed)),
            ("LastDeployed", time(info.last_deployed)),
            ("Deleted", time(info.deleted)),
            ("Description", text(&info.description)),
            ("Status", text(info.status.as_str())),
            ("Notes", text(&info.notes)),
            ("Resources", Value::map(Vec::<(&str, Value)>::new())),
        ],
    );
    GoStruct::value(
        "*v1.Release",
        vec![
            ("Name", text(&release.name)),
            ("Info", info),
            ("Chart", chart),
            ("Config", template_value(&serde_json::Value::Object(release.config.clone()))),
            ("Manifest", text(&release.manifest)),
            ("Hooks", Value::list(hooks)),
            ("Version", Value::Int(i64::from(release.version))),
            ("Namespace", text(&release.namespace)),
            ("Labels", Value::map(release.labels.iter().map(|(key, value)| (key.as_str(), text(value))))),
            ("ApplyMethod", text(&release.apply_method)),
        ],
    )
}
