//! Values exactly as Helm 4.1.4 computes them for `helm template` and `helm install`:
//!
//! - [`ValueOptions::merge_values`]: the user's values from `-f` files and the `--set` family (Helm's
//!   `MergeValues`; the set-line syntax itself is [`strvals`]);
//! - [`compute`]: given a loaded chart and those values, what Helm's engine receives: the chart after
//!   dependency processing (disabled subcharts gone, aliases applied, imported values merged) and the top
//!   chart's `.Values` (`CoalesceValues`), validated against every chart's `values.schema.json`.

mod coalesce;
mod dependencies;
mod json;
mod options;
mod schema;
pub mod strvals;
mod table;

use berth_go::Value;

use crate::chart::Chart;

pub use options::{LocalFiles, ValueFileReader, ValueOptions};

/// What Helm's engine gets for a chart: the processed chart and the top chart's values.
#[derive(Debug, Clone)]
pub struct Computed {
    /// The chart after `ProcessDependencies`: disabled subcharts removed, aliased subcharts renamed (and
    /// copied when aliased twice), each chart's values with its imports merged in.
    pub chart: Chart,
    /// `.Values` of the top chart (a map). A subchart's `.Values` is the map under its name, as Helm's
    /// engine scopes it.
    pub values: Value,
    /// The lines Helm would log on the way, as its log handler prints them (`level=WARN msg="returned non-bool
    /// value" path=a.enabled chart=a`, `level=INFO msg="warning: skipped value for ..."`).
    pub warnings: Vec<String>,
}

/// How [`compute`] runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ComputeOptions {
    /// `--skip-schema-validation`.
    pub skip_schema_validation: bool,
}

/// The words Helm's install wraps a failed `ProcessDependencies` in, after logging them with the cause
/// (pkg/action/install.go); its upgrade returns the cause alone (pkg/action/upgrade.go `prepareUpgrade`).
pub const DEPENDENCIES_PROCESSING_FAILED: &str = "chart dependencies processing failed";

/// Why the values could not be computed; the message is what Helm prints after `Error: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ValuesError {
    message: String,
}

impl ValuesError {
    fn new(message: impl Into<String>) -> ValuesError {
        ValuesError { message: message.into() }
    }

    /// The message, as Helm words it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// Helm's install path from a loaded chart and the user's values to the values its engine renders with, in
/// Helm's order: the chart must be installable (`checkIfInstallable`), every dependency of `Chart.yaml` must
/// be present in `charts/` (`CheckDependencies`), then `ProcessDependencies`, `CoalesceValues` and
/// `ValidateAgainstSchema`.
///
/// # Errors
///
/// Helm's messages: `library charts are not installable`, `an error occurred while checking for chart
/// dependencies. ...`, `chart dependencies processing failed: ...`, `type mismatch on ...`, `values don't meet
/// the specifications of the schema(s) in the following chart(s):\n...`.
pub fn compute(chart: &Chart, user_values: &Value, options: &ComputeOptions) -> Result<Computed, ValuesError> {
    check_chart(chart)?;
    compute_checked(chart, user_values, options)
}

/// The checks Helm makes on a chart before it installs it (`runInstall`): installable, dependencies present.
///
/// # Errors
///
/// Helm's messages, as [`compute`] lists them.
pub fn check_chart(chart: &Chart) -> Result<(), ValuesError> {
    check_installable(chart)?;
    check_dependencies_present(chart)
}

/// Every dependency of `Chart.yaml` present in `charts/`, in the words Helm's `install` and `upgrade` commands
/// wrap `action.CheckDependencies` in (its upgrade checks this before its action, so without `UPGRADE FAILED`).
///
/// # Errors
///
/// `an error occurred while checking for chart dependencies. ...`.
pub fn check_dependencies_present(chart: &Chart) -> Result<(), ValuesError> {
    check_dependencies(chart).map_err(|error| {
        ValuesError::new(format!(
            "an error occurred while checking for chart dependencies. You may need to run `helm dependency build` \
             to fetch missing dependencies: {error}"
        ))
    })
}

/// [`compute`] for a chart [`check_chart`] accepted.
///
/// # Errors
///
/// Helm's messages, as [`compute`] lists them.
pub fn compute_checked(chart: &Chart, user_values: &Value, options: &ComputeOptions) -> Result<Computed, ValuesError> {
    let mut warnings = coalesce::Warnings::default();
    let mut processed = chart.clone();
    dependencies::process_dependencies(&mut processed, user_values, &mut warnings)
        .map_err(|error| ValuesError::new(format!("{DEPENDENCIES_PROCESSING_FAILED}: {error}")))?;
    let values = coalesce::coalesce_values(&processed, user_values, &mut warnings).map_err(ValuesError::new)?;
    if !options.skip_schema_validation {
        validate_values(&processed, &values)?;
    }
    Ok(Computed { chart: processed, values: Value::Map(values), warnings: warnings.0 })
}

/// `ValidateAgainstSchema` as `ToRenderValuesWithSchemaValidation` reports it: every chart's
/// `values.schema.json` against that chart's part of `values` (the top chart's coalesced values).
///
/// # Errors
///
/// `values don't meet the specifications of the schema(s) in the following chart(s):\n...`.
pub fn validate_values(chart: &Chart, values: &berth_go::Map) -> Result<(), ValuesError> {
    schema::validate_against_schema(chart, values).map_err(|error| {
        ValuesError::new(format!(
            "values don't meet the specifications of the schema(s) in the following chart(s):\n{error}"
        ))
    })
}

/// `ValidateAgainstSingleSchema`: `values` against one schema document, as `helm lint` checks `values.yaml`.
///
/// # Errors
///
/// The validator's report as Helm prints it (`- at '/replicas': minimum: got 0, want 1\n`), or why the schema
/// cannot be read.
pub fn validate_against_single_schema(values: &berth_go::Map, schema: &[u8]) -> Result<(), String> {
    schema::validate_single(values, schema)
}

/// `CoalesceTables(dst, src)`: what `src` has and `dst` lacks copied into `dst` (in place, nested tables merged),
/// as `helm lint` puts `values.yaml` under the user's values. Returns the lines Helm would log.
pub fn coalesce_tables(dst: &berth_go::Map, src: &berth_go::Map) -> Vec<String> {
    let mut warnings = coalesce::Warnings::default();
    coalesce::coalesce_tables(dst, src, "", false, &mut warnings);
    warnings.0
}

/// `checkIfInstallable`: only application charts (type empty or `application`) install.
fn check_installable(chart: &Chart) -> Result<(), ValuesError> {
    match chart.metadata.chart_type.as_str() {
        "" | "application" => Ok(()),
        other => Err(ValuesError::new(format!("{other} charts are not installable"))),
    }
}

/// What an upgrade renders with, from the values the user gave now and the current release's chart defaults
/// and user values, as Helm's `Upgrade.reuseValues` decides (`--reset-values`, `--reuse-values`,
/// `--reset-then-reuse-values`, or by default the old user values when none are given now). Returns the user
/// values to record and render; with `--reuse-values` the new chart's defaults are replaced by the old
/// computed values, as Helm does.
///
/// # Errors
/// Helm's `failed to rebuild old values: ...`.
pub fn reuse_values(
    chart: &mut Chart,
    current_chart: &Chart,
    current_values: &Value,
    new_values: Value,
    mode: ReuseMode,
) -> Result<Value, ValuesError> {
    let current = match current_values {
        Value::Map(map) => map.clone(),
        _ => berth_go::Map::new(),
    };
    let mut warnings = coalesce::Warnings::default();
    match mode {
        ReuseMode::Reset => Ok(new_values),
        ReuseMode::Reuse => {
            let old = coalesce::coalesce_values(current_chart, current_values, &mut warnings)
                .map_err(|error| ValuesError::new(format!("failed to rebuild old values: {error}")))?;
            let merged = as_map(new_values);
            coalesce::coalesce_tables(&merged, &current, "", false, &mut warnings);
            chart.values = Value::Map(old);
            Ok(Value::Map(merged))
        }
        ReuseMode::ResetThenReuse => {
            let merged = as_map(new_values);
            coalesce::coalesce_tables(&merged, &current, "", false, &mut warnings);
            Ok(Value::Map(merged))
        }
        ReuseMode::Default => {
            let new_is_empty =
                matches!(&new_values, Value::Map(map) if map.is_empty()) || matches!(new_values, Value::Nil);
            Ok(if new_is_empty && !current.is_empty() { Value::Map(current) } else { new_values })
        }
    }
}

/// How an upgrade treats the current release's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReuseMode {
    /// Helm's default: the old user values when none are given now.
    #[default]
    Default,
    /// `--reset-values`: only the values given now.
    Reset,
    /// `--reuse-values`: the values given now over the old ones, with the old computed values as defaults.
    Reuse,
    /// `--reset-then-reuse-values`: the values given now over the old user values, with the new chart's defaults.
    ResetThenReuse,
}

fn as_map(value: Value) -> berth_go::Map {
    match value {
        Value::Map(map) => map,
        _ => berth_go::Map::new(),
    }
}

/// `action.CheckDependencies`: each dependency named in `Chart.yaml` must be among the loaded subcharts.
///
/// # Errors
///
/// `found in Chart.yaml, but missing in charts/ directory: a, b`.
pub fn check_dependencies(chart: &Chart) -> Result<(), String> {
    let missing: Vec<&str> = chart
        .metadata
        .dependencies
        .iter()
        .filter(|req| !chart.dependencies.iter().any(|loaded| loaded.name() == req.name))
        .map(|req| req.name.as_str())
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!("found in Chart.yaml, but missing in charts/ directory: {}", missing.join(", ")))
    }
}
