//! A report printed as helm-diff prints it (`diff/report.go` and `printDiffRecords` in `diff/diff.go`), byte for
//! byte: `diff` (a header per object, `+`/`-`/two-space lines, `...` where `--context` leaves lines out),
//! `simple` (a line per object and the `Plan:` summary), `template` (helm-diff's default Go template, or the one
//! `HELM_DIFF_TPL` names) and `json` (the default template). Colours are mgutz/ansi's codes, as helm-diff writes
//! them when it colours.

use super::lines::{self, Delta, DiffRecord};
use super::parse::load_from_key;
use super::report::{ChangeType, Report, ReportEntry};
use super::structured;
use berth_go::Value;

/// `--output`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    #[default]
    Diff,
    Simple,
    Template,
    Json,
    /// helm-diff's `structured`: JSON entries with the changed fields (`structured.rs`).
    Structured,
    /// helm-diff's `dyff`: homeport/dyff's report of the two sides (`dyff/`).
    Dyff,
}

/// The colours helm-diff uses, as mgutz/ansi writes them (`ansi.Color(text, style)`).
#[derive(Debug, Clone, Copy)]
enum Colour {
    Red,
    Green,
    Yellow,
    Magenta,
    /// `blue+h`: high-intensity blue.
    BrightBlue,
}

impl Colour {
    fn code(self) -> &'static str {
        match self {
            Colour::Red => "\x1b[31m",
            Colour::Green => "\x1b[32m",
            Colour::Yellow => "\x1b[33m",
            Colour::Magenta => "\x1b[35m",
            Colour::BrightBlue => "\x1b[94m",
        }
    }
}

/// `ansi.Color`: the text between the colour's code and the reset code, or as it is when not colouring.
fn paint(text: &str, colour: Colour, coloured: bool) -> String {
    if coloured { format!("{}{text}\x1b[0m", colour.code()) } else { text.to_string() }
}

/// The colour and the words of each change type in the `diff` and `simple` outputs (`changestyles`).
fn style(change: ChangeType, format: OutputFormat) -> (Colour, &'static str) {
    let simple = format == OutputFormat::Simple;
    match change {
        ChangeType::Add => (Colour::Green, if simple { "to be added." } else { "has been added:" }),
        ChangeType::Remove => (Colour::Red, if simple { "to be removed." } else { "has been removed:" }),
        ChangeType::Modify => (Colour::Yellow, if simple { "to be changed." } else { "has changed:" }),
        ChangeType::Ownership => (Colour::Magenta, if simple { "to change ownership." } else { "changed ownership:" }),
        ChangeType::ModifySuppressed => (Colour::BrightBlue, "has changed, but diff is empty after suppression."),
    }
}

/// Why a report cannot be printed.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    #[error("cannot read the template HELM_DIFF_TPL names ({path})")]
    ReadTemplate {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the report template {name} does not parse or run")]
    Template {
        name: String,
        #[source]
        source: berth_go::TemplateError,
    },
    /// Go's encoding error text (a value JSON cannot hold).
    #[error("cannot encode the structured report: {0}")]
    Structured(String),
}

/// helm-diff's default report template (`defaultTemplateReport`, `diff/constant.go`), also its `json` output.
const DEFAULT_TEMPLATE: &str = r#"[
{{- $global := . -}}
{{- range $idx, $entry := . -}}
{
  "api": "{{ $entry.API }}",
  "kind": "{{ $entry.Kind }}",
  "namespace": "{{ $entry.Namespace }}",
  "name": "{{ $entry.Name }}",
  "change": "{{ $entry.Change }}"
}{{ if not (last $idx  $global) }},{{ end }}
{{- end }}]"#;

/// A report template of the user's (`HELM_DIFF_TPL`): its name (the file's base name) and text.
pub struct UserTemplate {
    pub name: String,
    pub text: String,
}

impl UserTemplate {
    /// The template at `path`.
    ///
    /// # Errors
    /// [`FormatError::ReadTemplate`] when the file cannot be read.
    pub fn read(path: &str) -> Result<UserTemplate, FormatError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| FormatError::ReadTemplate { path: path.to_string(), source })?;
        let name = std::path::Path::new(path).file_name().map(|name| name.to_string_lossy().into_owned());
        Ok(UserTemplate { name: name.unwrap_or_default(), text })
    }
}

/// The report as helm-diff prints it in `format` (`template` with the user's template when given).
///
/// # Errors
/// [`FormatError`] when a template does not parse or run.
pub fn print(
    report: &Report,
    format: OutputFormat,
    coloured: bool,
    template: Option<&UserTemplate>,
) -> Result<String, FormatError> {
    match format {
        OutputFormat::Diff => Ok(diff_report(report, coloured)),
        OutputFormat::Simple => Ok(simple_report(report, coloured)),
        OutputFormat::Json => template_report(report, "entries", DEFAULT_TEMPLATE),
        OutputFormat::Template => match template {
            Some(template) => template_report(report, &template.name, &template.text),
            None => template_report(report, "entries", DEFAULT_TEMPLATE),
        },
        OutputFormat::Structured => structured::print(report.entries.iter().map(|entry| structured::Printed {
            structured: entry.structured.as_ref(),
            key: &entry.key,
            change_type: entry.change_type.as_str(),
        }))
        .map_err(FormatError::Structured),
        // Laid out for a terminal of dyff's default width and without colours (helm-diff colours dyff's report
        // by its own rule), without rename detection; `dyff::print` takes other settings and gives warnings.
        OutputFormat::Dyff => {
            let settings =
                super::dyff::Settings { width: super::dyff::DEFAULT_WIDTH, coloured: false, detect_renames: false };
            Ok(super::dyff::print(report, settings).text)
        }
    }
}

/// The header line of an entry (`ansi.Color("%s %s", colour) + "\n"`).
fn header(entry: &ReportEntry, format: OutputFormat, coloured: bool) -> String {
    let (colour, message) = style(entry.change_type, format);
    format!("{}\n", paint(&format!("{} {message}", entry.key), colour, coloured))
}

/// `printDiffReport`.
fn diff_report(report: &Report, coloured: bool) -> String {
    let mut text = String::new();
    for entry in &report.entries {
        text.push_str(&header(entry, OutputFormat::Diff, coloured));
        text.push_str(&diff_records(entry, coloured));
    }
    text
}

/// `printDiffRecords`: the entry's lines, or the suppression notice for a suppressed kind.
pub fn diff_records(entry: &ReportEntry, coloured: bool) -> String {
    if entry.suppressed_kinds.contains(&entry.kind) {
        let notice = format!("+ Changes suppressed on sensitive content of type {}\n", entry.kind);
        return paint(&notice, Colour::Yellow, coloured);
    }
    let mut text = String::new();
    let Some(context) = entry.context else {
        for record in &entry.diffs {
            text.push_str(&diff_record(record, coloured));
        }
        return text;
    };
    let distances = lines::distances(&entry.diffs);
    let mut omitting = false;
    for (record, distance) in entry.diffs.iter().zip(distances) {
        if distance > context {
            if !omitting {
                text.push_str("...\n");
                omitting = true;
            }
        } else {
            omitting = false;
            text.push_str(&diff_record(record, coloured));
        }
    }
    text
}

/// `printDiffRecord`.
fn diff_record(record: &DiffRecord, coloured: bool) -> String {
    match record.delta {
        Delta::RightOnly => format!("{}\n", paint(&format!("+ {}", record.payload), Colour::Green, coloured)),
        Delta::LeftOnly => format!("{}\n", paint(&format!("- {}", record.payload), Colour::Red, coloured)),
        Delta::Common if record.payload.is_empty() => "\n".to_string(),
        Delta::Common => format!("  {}\n", record.payload),
    }
}

/// `printSimpleReport`.
fn simple_report(report: &Report, coloured: bool) -> String {
    let mut text = String::new();
    let count = |change: ChangeType| report.entries.iter().filter(|entry| entry.change_type == change).count();
    for entry in &report.entries {
        text.push_str(&header(entry, OutputFormat::Simple, coloured));
    }
    text.push_str(&format!(
        "Plan: {} to add, {} to change, {} to destroy, {} to change ownership.\n",
        count(ChangeType::Add),
        count(ChangeType::Modify),
        count(ChangeType::Remove),
        count(ChangeType::Ownership)
    ));
    text
}

/// What a report template sees of an entry (`ReportTemplateSpec`), read back from the entry's key
/// (`loadFromKey`): `None` when the key does not have the shape (a cluster-scoped object's empty namespace
/// does not match helm-diff's pattern either, so such an entry is left out, as helm-diff leaves it out).
fn template_spec(entry: &ReportEntry) -> Option<Value> {
    let [namespace, name, kind, api] = load_from_key(&entry.key)?;
    Some(Value::map([
        ("Namespace", Value::from(namespace)),
        ("Name", Value::from(name)),
        ("Kind", Value::from(kind)),
        ("API", Value::from(api)),
        ("Change", Value::from(entry.change_type.as_str())),
    ]))
}

/// `templateReportPrinter`: the template run over the entries, then a newline.
fn template_report(report: &Report, name: &str, text: &str) -> Result<String, FormatError> {
    let mut specs = Vec::new();
    for entry in &report.entries {
        match template_spec(entry) {
            Some(spec) => specs.push(spec),
            None => tracing::warn!("error processing report entry"),
        }
    }
    // Go's `range` over a nil slice runs no iteration, as over an empty one: the same output either way.
    let data = Value::list(specs);
    let template_error = |source| FormatError::Template { name: name.to_string(), source };
    // `last(x int, a interface{})`: whether index `x` is the last of `a` (helm-diff's one template function;
    // Sprig's `last` of the same name takes one argument, so the Go signature is given here).
    let signature = berth_go::Signature::fixed(&[berth_go::GoType::Int, berth_go::GoType::Any]);
    let template = berth_template::Template::new(name)
        .func_with_signature("last", signature, |arguments: &[Value]| {
            let index = arguments.first().and_then(Value::as_int);
            let length = arguments.get(1).and_then(|list| list.as_list().map(|list| list.len() as i64));
            Ok(Value::Bool(matches!((index, length), (Some(index), Some(length)) if index == length - 1)))
        })
        .parse(text)
        .map_err(template_error)?;
    let mut output = template.execute_to_string(&data).map_err(template_error)?;
    output.push('\n');
    Ok(output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::diff::lines::diff_strings;

    fn entry(change_type: ChangeType, before: &str, after: &str) -> ReportEntry {
        ReportEntry {
            key: "default, web, Deployment (apps)".to_string(),
            suppressed_kinds: vec!["Secret".to_string()],
            kind: "Deployment".to_string(),
            context: None,
            diffs: diff_strings(before, after, false),
            change_type,
            structured: None,
        }
    }

    /// mgutz/ansi's `Color(s, style)`: the style's code, the text, the reset code `\x1b[0m`; helm-diff colours
    /// the header with the change type's colour (the newline after the reset) and each changed line whole.
    #[test]
    fn colours_are_mgutz_ansi_codes_around_what_helm_diff_colours() {
        let report =
            Report { entries: vec![entry(ChangeType::Modify, "a\nb", "a\nc")], changed: true, warnings: Vec::new() };
        let printed = print(&report, OutputFormat::Diff, true, None).expect("printed");
        assert_eq!(
            printed,
            "\x1b[33mdefault, web, Deployment (apps) has changed:\x1b[0m\n  a\n\x1b[31m- b\x1b[0m\n\x1b[32m+ c\x1b[0m\n"
        );
        let suppressed = ReportEntry { kind: "Secret".to_string(), ..entry(ChangeType::Add, "", "x") };
        let printed = print(
            &Report { entries: vec![suppressed], changed: true, warnings: Vec::new() },
            OutputFormat::Simple,
            true,
            None,
        );
        assert_eq!(
            printed.expect("printed"),
            "\x1b[32mdefault, web, Deployment (apps) to be added.\x1b[0m\n\
             Plan: 1 to add, 0 to change, 0 to destroy, 0 to change ownership.\n"
        );
        let notice = diff_records(&ReportEntry { kind: "Secret".to_string(), ..entry(ChangeType::Add, "", "x") }, true);
        assert_eq!(notice, "\x1b[33m+ Changes suppressed on sensitive content of type Secret\n\x1b[0m");
        let quiet = ReportEntry {
            change_type: ChangeType::ModifySuppressed,
            diffs: Vec::new(),
            ..entry(ChangeType::Modify, "", "")
        };
        let printed = print(
            &Report { entries: vec![quiet], changed: true, warnings: Vec::new() },
            OutputFormat::Diff,
            true,
            None,
        );
        assert_eq!(
            printed.expect("printed"),
            "\x1b[94mdefault, web, Deployment (apps) has changed, but diff is empty after suppression.\x1b[0m\n"
        );
    }

    #[test]
    fn a_template_that_does_not_parse_is_an_error_naming_it() {
        let template = UserTemplate { name: "mine.tpl".to_string(), text: "{{ range }".to_string() };
        let error =
            print(&Report::default(), OutputFormat::Template, false, Some(&template)).expect_err("bad template");
        assert_eq!(error.to_string(), "the report template mine.tpl does not parse or run");
    }
}
