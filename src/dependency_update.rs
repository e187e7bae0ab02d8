//! `--dependency-update` of `template`, `install` and `upgrade` (Helm 4.1.4 pkg/cmd/install.go `runInstall`):
//! when a chart's `charts/` lacks a dependency its `Chart.yaml` lists (`CheckDependencies`), the dependencies
//! are updated as `dependency update` does (berth-source's [`Manager`]) and the chart is loaded again.

use berth_chart::chart::Chart;
use berth_source::SourceError;
use berth_source::dependency::Manager;
use berth_source::download::{ChartOptions, Environment};
use std::path::Path;

/// Why the dependencies could not be brought in.
#[derive(Debug, thiserror::Error)]
pub enum DependencyUpdateError {
    #[error("cannot update the dependencies of {chart}")]
    Update {
        chart: String,
        #[source]
        source: SourceError,
    },
    #[error("failed reloading chart after repo update: {0}")]
    Reload(String),
}

/// The chart at `chart_path` (a directory), its missing dependencies downloaded first. A chart with all its
/// dependencies is returned as it was loaded; `say` receives the manager's lines (Helm prints them on stdout),
/// `notices` a registry's (`Pulled: ...`; Helm prints them on stderr).
///
/// # Errors
/// [`DependencyUpdateError`] when the update fails or the updated chart does not load.
pub async fn with_dependencies(
    chart_path: &Path,
    chart: Chart,
    environment: &Environment,
    options: ChartOptions,
    say: &mut dyn FnMut(&str),
    notices: &mut dyn FnMut(&str),
) -> Result<Chart, DependencyUpdateError> {
    if berth_chart::values::check_dependencies(&chart).is_ok() {
        return Ok(chart);
    }
    let mut manager = Manager {
        chart_path: chart_path.to_path_buf(),
        env: environment,
        skip_refresh: false,
        options,
        out: say,
        notices,
        verify: None,
    };
    manager
        .update()
        .await
        .map_err(|source| DependencyUpdateError::Update { chart: chart_path.display().to_string(), source })?;
    berth_chart::load::load(chart_path)
        .map(|loaded| loaded.chart)
        .map_err(|error| DependencyUpdateError::Reload(error.to_string()))
}
