//! What the release operations print, in Helm 4's shapes (pkg/cmd/install.go, upgrade.go, rollback.go,
//! uninstall.go and `statusPrinter` in status.go): the announcements (`Release "x" has been upgraded. Happy
//! Helming!`), the status text or the release record as JSON or YAML, Helm's error text for a failed operation,
//! and berth's own result event for `--progress=json`. Pure but for [`warn`], which writes a warning on stderr.

use super::common_args::OutputFormat;
use super::global_args::{Globals, Personality};
use crate::cli::error::{Error, Stage};
use berth::release::operation::{Operation, OperationReport};
use berth::release::removal;
use berth::release::rollout::Mode;
use berth::release::show::{self, StatusView};
use berth::release::{Release, ReleaseStatus};

/// What a release command's result looks like.
#[derive(Debug, Clone, Copy)]
pub struct Printed {
    pub output: OutputFormat,
    pub hide_notes: bool,
    /// With a dry run, no Secret is shown (`--hide-secret`).
    pub hide_secret: bool,
    /// `--debug`: values, hooks and manifest with the status (Helm's `statusPrinter.debug`).
    pub debug: bool,
}

/// What an install or upgrade announces, and which of Helm's stages its errors belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Announcement {
    /// Rollback, uninstall: nothing.
    None,
    /// `install`: no line; errors are `INSTALLATION FAILED`.
    Install,
    /// `upgrade --install` of a release that does not exist: `Release "x" does not exist. Installing it now.`
    /// first; errors carry no stage (Helm's upgrade command returns `runInstall`'s error as it is).
    Installing,
    /// `upgrade`: `Release "x" has been upgraded. Happy Helming!` after it; errors are `UPGRADE FAILED`.
    Upgraded,
}

impl Announcement {
    /// What a rollout in `mode` announces once it knows whether it upgrades.
    pub fn of(mode: Mode, is_upgrade: bool) -> Announcement {
        match (mode, is_upgrade) {
            (Mode::Install { .. }, _) => Announcement::Install,
            (Mode::Upgrade { .. }, false) => Announcement::Installing,
            (Mode::Upgrade { .. }, true) => Announcement::Upgraded,
        }
    }

    /// The line Helm prints before the install (`Installing`) or before the status (`Upgraded`).
    pub fn line(self, name: &str) -> String {
        match self {
            Announcement::Installing => {
                format!("Release {} does not exist. Installing it now.\n", berth_go::strconv::quote(name))
            }
            Announcement::Upgraded => {
                format!("Release {} has been upgraded. Happy Helming!\n", berth_go::strconv::quote(name))
            }
            Announcement::None | Announcement::Install => String::new(),
        }
    }

    /// `error` met while locating and loading the chart: Helm's `upgrade` command does that (and reads the
    /// values) before it runs its action, whose errors alone it prefixes (`UPGRADE FAILED: ...`,
    /// pkg/cmd/upgrade.go); `install` prefixes everything it does.
    pub fn loading_stage(self, error: Error) -> Error {
        match self {
            Announcement::Upgraded => error,
            other => other.stage(error),
        }
    }

    /// `error` in this announcement's stage.
    pub fn stage(self, error: Error) -> Error {
        match self {
            Announcement::Install => Error::in_stage(Stage::Install, error),
            Announcement::Upgraded => Error::in_stage(Stage::Upgrade, error),
            Announcement::None | Announcement::Installing => error,
        }
    }
}

/// `Rollback was a success! Happy Helming!`
pub const ROLLBACK_SUCCEEDED: &str = "Rollback was a success! Happy Helming!\n";

/// `release "x" uninstalled`
pub fn uninstalled_line(name: &str) -> String {
    format!("release \"{name}\" uninstalled\n")
}

/// What an operation that succeeded prints.
///
/// # Errors
/// [`Error::Record`] when the release cannot be written as JSON or YAML.
pub fn operation_text(
    operation: &Operation,
    report: &OperationReport,
    printed: Printed,
    announcement: Announcement,
) -> Result<String, Error> {
    // The objects a deletion left alone, as Helm 4.3's uninstall prints them (before its last line), with why.
    let kept = if report.kept.is_empty() { String::new() } else { removal::kept_text(&report.kept) };
    match operation {
        // Helm prints its `res.Info` with `Println`: the block, then an empty line.
        Operation::Uninstall { name, .. } if !kept.is_empty() => Ok(format!("{kept}\n{}", uninstalled_line(name))),
        Operation::Uninstall { name, .. } => Ok(uninstalled_line(name)),
        Operation::Rollback { .. } => Ok(format!("{kept}{ROLLBACK_SUCCEEDED}")),
        Operation::RollOut(_) => {
            let text = rollout_text(&report.release, printed, announcement)?;
            Ok(if printed.output == OutputFormat::Table { format!("{kept}{text}") } else { text })
        }
    }
}

/// An install or upgrade's release as Helm prints it: the announcement and the status text, or the record.
///
/// # Errors
/// [`Error::Record`] when the release cannot be written as JSON or YAML.
pub fn rollout_text(release: &Release, printed: Printed, announcement: Announcement) -> Result<String, Error> {
    let shown;
    let release = if printed.hide_secret {
        shown = without_secrets(release);
        &shown
    } else {
        release
    };
    Ok(match printed.output {
        OutputFormat::Table => {
            let view =
                StatusView { debug: printed.debug, show_metadata: false, hide_notes: printed.hide_notes, fresh: true };
            // `Installing` was printed before the install began.
            let line =
                if announcement == Announcement::Upgraded { announcement.line(&release.name) } else { String::new() };
            format!("{line}{}", show::status(release, view)?)
        }
        OutputFormat::Json => show::release_json(release)?,
        OutputFormat::Yaml => show::release_yaml(release)?,
    })
}

/// `--hide-secret`: the manifest with each Secret (`v1`) replaced by Helm's note that it is hidden, its `# Source:`
/// line kept (pkg/action/action.go `renderResources`).
fn without_secrets(release: &Release) -> Release {
    let manifest = berth_chart::render::output::split_manifests(&release.manifest)
        .into_iter()
        .map(|document| {
            let (source, content) = document.split_once('\n').unwrap_or((document.as_str(), ""));
            let is_secret = berth_chart::render::head::read_head(content)
                .is_ok_and(|(head, _)| head.kind == "Secret" && head.api_version == "v1");
            match source.strip_prefix("# Source: ") {
                Some(path) if is_secret => {
                    format!("---\n# Source: {path}\n# HIDDEN: The Secret output has been suppressed\n")
                }
                _ => format!("---\n{}\n", document.trim_end()),
            }
        })
        .collect();
    Release { manifest, ..release.clone() }
}

/// What Helm says of a failed operation: the error its action returns, as the operation worded it for the failed
/// revision's description (`release::operation`, the one owner of those words); the description when there is
/// none.
pub fn failure_cause(report: &OperationReport) -> String {
    report.error.clone().unwrap_or_else(|| report.release.info.description.clone())
}

/// berth's words for a failed operation: [`failure_cause`], then the revision `--rollback-on-failure` went
/// back to.
pub fn failure_message(report: &OperationReport) -> String {
    let mut message = failure_cause(report);
    if let Some(rolled_back) = &report.rolled_back {
        message.push_str(&format!(
            "\nrolled back to revision {} ({}): {}",
            rolled_back.version, rolled_back.info.status, rolled_back.info.description
        ));
    }
    message
}

/// Helm's words for a failed operation (pkg/action `Install.failRelease`, `Upgrade.failRelease`): the cause, or
/// with `--rollback-on-failure` what was done about it; and the warning Helm logs first: for a failed upgrade
/// `level=WARN msg="upgrade failed" name=NAME error=CAUSE` (slog's text form), for a rollback whose writes were
/// refused its revision's description (`Rollback.performRollback`'s `Warn(msg)`; the only rollback failure
/// recorded `Rollback "NAME" failed: ` without a failed hook).
pub fn helm_failure(report: &OperationReport, is_upgrade: bool, rollback_on_failure: bool) -> (Option<String>, String) {
    let cause = failure_cause(report);
    let name = &report.release.name;
    let description = &report.release.info.description;
    let refused_rollback =
        report.hook_failure.is_none() && description.starts_with(&format!("Rollback \"{name}\" failed: "));
    let warning = if is_upgrade {
        Some(super::helm_log::line("WARN", "upgrade failed", &[("name", name.as_str()), ("error", cause.as_str())]))
    } else if refused_rollback {
        Some(super::helm_log::line("WARN", description, &[]))
    } else {
        None
    }
    .map(|line| line.trim_end().to_string());
    let message = match (rollback_on_failure, is_upgrade) {
        (false, _) => cause,
        (true, false) if report.release.info.status == ReleaseStatus::Uninstalled => {
            format!("release {name} failed, and has been uninstalled due to rollback-on-failure being set: {cause}")
        }
        (true, true) if report.rolled_back.is_some() => {
            format!("release {name} failed, and has been rolled back due to rollback-on-failure being set: {cause}")
        }
        (true, true) => format!(
            "unable to find a previously successful release when attempting to rollback. original upgrade error: \
             {cause}"
        ),
        (true, false) => cause,
    };
    (warning, message)
}

/// berth's result event (`--progress=json`): outcome, release, revision, status, description, and what failed.
pub fn result_event(report: &OperationReport) -> String {
    let mut value = serde_json::json!({
        "event": "result",
        "outcome": report.outcome,
        "release": report.release.name,
        "namespace": report.release.namespace,
        "revision": report.release.version,
        "status": report.release.info.status.to_string(),
        "description": report.release.info.description,
    });
    if let Some(failure) = &report.hook_failure {
        value["hookFailure"] = serde_json::json!({
            "hook": failure.event.as_str(),
            "apiVersion": failure.object.api_version,
            "kind": failure.object.kind,
            "namespace": failure.object.namespace.clone().unwrap_or_default(),
            "name": failure.object.name,
            "message": failure.message,
        });
    }
    if let Some(rolled_back) = &report.rolled_back {
        value["rolledBack"] = serde_json::json!({
            "revision": rolled_back.version,
            "status": rolled_back.info.status.to_string(),
            "description": rolled_back.info.description,
        });
    }
    if !report.kept.is_empty() {
        value["kept"] = serde_json::json!(report.kept);
    }
    format!("{value}\n")
}

/// A warning, as each interface words it: Helm's log line (`level=WARN msg="..."`), or berth's `warning:`.
pub fn warn(globals: &Globals, message: &str) {
    warn_with(globals, message, &[]);
}

/// A warning with the attributes Helm logs after it (`level=WARN msg="..." host=HOST`, slog's text form); as
/// `berth`, `warning: MESSAGE (key: value, ...)`.
pub fn warn_with(globals: &Globals, message: &str, attributes: &[(&str, &str)]) {
    let message = super::scrubbing::scrub(message);
    let attributes: Vec<(&str, String)> =
        attributes.iter().map(|(key, value)| (*key, super::scrubbing::scrub(value).into_owned())).collect();
    match globals.personality {
        Personality::Helm => {
            let attributes: Vec<(&str, &str)> = attributes.iter().map(|(key, value)| (*key, value.as_str())).collect();
            eprint!("{}", super::helm_log::line("WARN", &message, &attributes));
        }
        Personality::Berth if attributes.is_empty() => eprintln!("warning: {message}"),
        Personality::Berth => {
            let attributes: Vec<String> = attributes.iter().map(|(key, value)| format!("{key}: {value}")).collect();
            eprintln!("warning: {message} ({})", attributes.join(", "));
        }
    }
}

/// How `install` and `template` name the release: `[NAME] CHART` with `--generate-name`, `--name-template` and
/// (for `template`) a default name.
pub struct Naming<'a> {
    pub names: &'a [String],
    pub generate_name: bool,
    pub name_template: Option<&'a str>,
    /// `template`'s `release-name`; none for `install`.
    pub default_name: Option<&'a str>,
}

impl Naming<'_> {
    /// The release name and the chart, as Helm's `Install.NameAndChart` (pkg/action/install.go) picks them.
    ///
    /// # Errors
    /// [`Error::Usage`] with Helm's words for a name given twice or not at all, or a name template that fails.
    pub fn name_and_chart(&self) -> Result<(String, String), Error> {
        let template = self.name_template.filter(|template| !template.is_empty());
        match self.names {
            [name, chart] => {
                if self.generate_name {
                    return Err(Error::Usage("cannot set --generate-name and also specify a name".to_string()));
                }
                if template.is_some() {
                    return Err(Error::Usage("cannot set --name-template and also specify a name".to_string()));
                }
                Ok((name.clone(), chart.clone()))
            }
            [chart] => {
                let name = match (template, self.default_name) {
                    (Some(template), _) => release_name_from_template(template)?,
                    (None, Some(name)) => name.to_string(),
                    (None, None) if self.generate_name => generated_name(chart),
                    (None, None) => {
                        return Err(Error::Usage("must either provide a name or specify --generate-name".to_string()));
                    }
                };
                Ok((name, chart.clone()))
            }
            names => Err(Error::Usage(format!(
                "expected at most two arguments, unexpected arguments: {}",
                names.get(2..).unwrap_or_default().join(", ")
            ))),
        }
    }
}

/// Helm's `--generate-name`: the chart path's last element up to its first `.` (`chart` for none), a dash and
/// the time in seconds.
fn generated_name(chart_ref: &str) -> String {
    let base = std::path::Path::new(chart_ref).file_name().map(|name| name.to_string_lossy().into_owned());
    let base = base.unwrap_or_default();
    let base = base.split('.').next().filter(|base| !base.is_empty()).unwrap_or("chart");
    format!("{base}-{}", jiff::Timestamp::now().as_second())
}

/// `--name-template`: Helm's `TemplateName`, the template run with Sprig's functions and no data.
///
/// # Errors
/// [`Error::Usage`] with Go's template error.
pub fn release_name_from_template(template: &str) -> Result<String, Error> {
    let parsed = berth_template::Template::new("name-template")
        .funcs(berth_sprig::helm_functions())
        .parse(template)
        .map_err(|error| Error::Usage(error.to_string()))?;
    parsed.execute_to_string(&berth_go::Value::Nil).map_err(|error| Error::Usage(error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use berth::wait::Outcome;

    /// A failed operation's report: the revision `description` recorded, `error` returned.
    fn failed(description: &str, error: &str) -> OperationReport {
        let mut release = Release { name: "shop".into(), ..Release::default() };
        release.info.status = ReleaseStatus::Failed;
        release.info.description = description.into();
        OperationReport {
            outcome: Outcome::Failed,
            release,
            apply: None,
            rolled_back: None,
            hook_failure: None,
            kept: Vec::new(),
            error: Some(error.into()),
        }
    }

    #[test]
    fn helm_logs_a_failed_upgrade_and_a_refused_rollback_before_its_error() {
        let refused = "invalid operation: cannot use server-side apply and force replace together";
        let rollback = failed(&format!("Rollback \"shop\" failed: {refused}"), refused);
        assert_eq!(
            helm_failure(&rollback, false, false),
            (Some(format!("level=WARN msg=\"Rollback \\\"shop\\\" failed: {refused}\"")), refused.to_string())
        );
        let waited = "release shop failed: resource Deployment/default/shop not ready. status: Failed, message: x";
        let rollback = failed("Release \"shop\" failed: resource Deployment/default/shop not ready.", waited);
        assert_eq!(helm_failure(&rollback, false, false), (None, waited.to_string()));
        let upgrade = failed(&format!("Upgrade \"shop\" failed: {refused}"), refused);
        assert_eq!(
            helm_failure(&upgrade, true, false),
            (Some(format!("level=WARN msg=\"upgrade failed\" name=shop error=\"{refused}\"")), refused.to_string())
        );
    }

    #[test]
    fn announcements_are_helms() {
        let upgrade = Mode::Upgrade { install: true, reuse: berth_chart::values::ReuseMode::Default };
        assert_eq!(
            Announcement::of(upgrade, false).line("shop"),
            "Release \"shop\" does not exist. Installing it now.\n"
        );
        assert_eq!(
            Announcement::of(upgrade, true).line("shop"),
            "Release \"shop\" has been upgraded. Happy Helming!\n"
        );
        assert_eq!(Announcement::of(Mode::Install { replace: false }, false).line("shop"), "");
        assert_eq!(uninstalled_line("shop"), "release \"shop\" uninstalled\n");
    }

    #[test]
    fn a_name_template_runs_with_sprig() {
        assert_eq!(release_name_from_template("{{ \"Shop\" | lower }}-{{ add 1 2 }}").expect("name"), "shop-3");
        assert!(release_name_from_template("{{ nope }}").is_err());
        // Helm's base name up to its first `.`.
        assert!(generated_name("./charts/shop-1.2.0.tgz").starts_with("shop-1-"));
        assert!(generated_name("repo/shop").starts_with("shop-"));
        assert!(generated_name(".").starts_with("chart-"));
    }

    #[test]
    fn hide_secret_replaces_the_secrets_of_the_manifest_with_helms_note() {
        let release = Release {
            manifest: "---\n# Source: a/templates/s.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n---\n\
                       # Source: a/templates/c.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
                .to_string(),
            ..Release::default()
        };
        let shown = without_secrets(&release);
        assert_eq!(
            shown.manifest,
            "---\n# Source: a/templates/s.yaml\n# HIDDEN: The Secret output has been suppressed\n---\n\
             # Source: a/templates/c.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
        );
    }
}
