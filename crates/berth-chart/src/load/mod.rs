//! Loading a chart: a directory (with `.helmignore`) or a packaged `.tgz`, `Chart.yaml` apiVersion v1 and v2,
//! `requirements.yaml`, subcharts in `charts/` (directories or archives), and `values.schema.json` validation,
//! as Helm's `chart/v2/loader` loads them and with its error messages.
