//! `helm package`: a loaded chart written as a `.tgz` the way Helm's `chartutil.Save` writes it (pkg/chart/v2/
//! util/save.go): `Chart.yaml` re-marshalled, `Chart.lock` (v2), `values.yaml`, `values.schema.json`, templates,
//! other files, then subcharts expanded under `charts/`, each entry mode 0644 with the file's modification time
//! (to the second, as Go's tar writer keeps it), gzip with Helm's header comment and extra field. Helm loads and
//! renders it exactly as it loads the directory; the bytes differ from `helm package`'s only in the compressed
//! stream. Pure: [`archive`] builds the bytes.

use crate::tar_write::{END_OF_ARCHIVE, Header, padding};
use berth_chart::chart::{Chart, File, ModTime};
use flate2::{Compression, GzBuilder};
use std::io::Write as _;

/// Go's gzip `Extra` Helm sets.
const HEADER_EXTRA: &[u8] = b"+aHR0cHM6Ly95b3V0dS5iZS96OVV6MWljandyTQo=";

/// The archive's file name: `<name>-<version>.tgz`.
pub fn file_name(chart: &Chart) -> String {
    format!("{}-{}.tgz", chart.name(), chart.metadata.version)
}

/// The chart as Helm's `Save` writes it; `now` stands for files without a modification time.
///
/// # Errors
///
/// A chart name that would write outside its directory (Helm's `ErrInvalidChartName`), or an invalid
/// `values.schema.json`.
pub fn archive(chart: &Chart, now: ModTime) -> Result<Vec<u8>, String> {
    let mut tar = Vec::new();
    write_chart(&mut tar, chart, "", now, 0)?;
    tar.extend_from_slice(&END_OF_ARCHIVE);
    let mut encoder = GzBuilder::new()
        .extra(HEADER_EXTRA)
        .comment("Helm")
        .operating_system(255)
        .write(Vec::new(), Compression::default());
    encoder.write_all(&tar).map_err(|error| error.to_string())?;
    encoder.finish().map_err(|error| error.to_string())
}

/// `writeTarContents`.
fn write_chart(out: &mut Vec<u8>, chart: &Chart, prefix: &str, now: ModTime, depth: usize) -> Result<(), String> {
    let name = chart.name();
    berth_chart::load::check_chart_directory_name(name).map_err(|error| error.to_string())?;
    if depth > berth_chart::load::MAX_CHART_DEPTH {
        return Err(format!("chart {name}: subcharts nested deeper than {}", berth_chart::load::MAX_CHART_DEPTH));
    }
    let base = if prefix.is_empty() { name.to_string() } else { format!("{prefix}/{name}") };
    let mut metadata = chart.metadata.clone();
    if metadata.api_version == "v1" {
        metadata.dependencies.clear();
    }
    let chart_yaml = berth_goyaml::to_yaml(&metadata.json_view()).map_err(|error| error.to_string())?;
    write_entry(out, &format!("{base}/Chart.yaml"), chart_yaml.as_bytes(), chart.mod_time.unwrap_or(now))?;
    if chart.metadata.api_version == "v2"
        && let Some(lock) = &chart.lock
    {
        let text = crate::lock_digest::render_lock(lock);
        write_entry(out, &format!("{base}/Chart.lock"), text.as_bytes(), parse_time(&lock.generated).unwrap_or(now))?;
    }
    for file in chart.raw.iter().filter(|file| file.name == "values.yaml") {
        write_file(out, &base, file, now)?;
    }
    if let Some(schema) = &chart.schema {
        if serde_json::from_slice::<serde_json::Value>(schema).is_err() {
            return Err("invalid JSON in values.schema.json".to_string());
        }
        write_entry(out, &format!("{base}/values.schema.json"), schema, chart.schema_mod_time.unwrap_or(now))?;
    }
    for file in chart.templates.iter().chain(&chart.files) {
        write_file(out, &base, file, now)?;
    }
    for dependency in &chart.dependencies {
        write_chart(out, dependency, &format!("{base}/charts"), now, depth + 1)?;
    }
    Ok(())
}

fn write_file(out: &mut Vec<u8>, base: &str, file: &File, now: ModTime) -> Result<(), String> {
    write_entry(out, &format!("{base}/{}", file.name), &file.data, file.mod_time.unwrap_or(now))
}

/// An RFC 3339 time (`Chart.lock`'s `generated`), to the second.
fn parse_time(text: &str) -> Option<ModTime> {
    let date = text.get(..10)?;
    let time = text.get(11..19)?;
    let mut date_parts = date.split('-').map(|part| part.parse::<i64>().ok());
    let (year, month, day) = (date_parts.next()??, date_parts.next()??, date_parts.next()??);
    let mut time_parts = time.split(':').map(|part| part.parse::<i64>().ok());
    let (hour, minute, second) = (time_parts.next()??, time_parts.next()??, time_parts.next()??);
    let days = berth_go::time::days_from_civil(year, month, day);
    let mut seconds = days * 86_400 + hour * 3600 + minute * 60 + second;
    // A zone offset after the seconds (`+02:00`): back to UTC.
    let rest = text.get(19..).unwrap_or_default();
    let zone = rest.trim_start_matches(|c: char| c == '.' || c.is_ascii_digit());
    if let Some(sign) = zone.chars().next().filter(|c| *c == '+' || *c == '-') {
        let hours: i64 = zone.get(1..3)?.parse().ok()?;
        let minutes: i64 = zone.get(4..6)?.parse().ok()?;
        let offset = hours * 3600 + minutes * 60;
        seconds -= if sign == '+' { offset } else { -offset };
    }
    Some(ModTime { seconds, nanos: 0 })
}

/// One tar entry as Go's `tar.Writer` writes a regular file (mode 0644, no owner), modification time to the
/// second.
fn write_entry(out: &mut Vec<u8>, name: &str, data: &[u8], mod_time: ModTime) -> Result<(), String> {
    let header = Header::file(name, 0o644, data.len() as u64, mod_time.seconds);
    out.extend_from_slice(&header.blocks()?);
    out.extend_from_slice(data);
    out.resize(out.len() + padding(data.len() as u64), 0);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use berth_chart::chart::Metadata;

    fn chart() -> Chart {
        let values = File {
            name: "values.yaml".into(),
            data: b"a: 1\n".to_vec().into(),
            mod_time: Some(ModTime { seconds: 1_700_000_000, nanos: 5 }),
        };
        let long = format!("templates/{}/cm.yaml", "d".repeat(120));
        Chart {
            metadata: Metadata {
                name: "app".into(),
                version: "1.0.0".into(),
                api_version: "v2".into(),
                ..Metadata::default()
            },
            raw: vec![values],
            templates: vec![
                File::new("templates/cm.yaml", b"kind: ConfigMap\n".to_vec()),
                File::new(long, b"x".to_vec()),
            ],
            dependencies: vec![Chart {
                metadata: Metadata {
                    name: "sub".into(),
                    version: "0.1.0".into(),
                    api_version: "v2".into(),
                    ..Metadata::default()
                },
                ..Chart::default()
            }],
            ..Chart::default()
        }
    }

    #[test]
    fn the_archive_loads_back_as_the_same_chart() {
        let data = archive(&chart(), ModTime { seconds: 1_800_000_000, nanos: 0 }).unwrap();
        let loaded = berth_chart::load::load_archive(&data).unwrap().chart;
        assert_eq!(loaded.name(), "app");
        assert_eq!(loaded.metadata.version, "1.0.0");
        assert_eq!(loaded.templates.len(), 2);
        assert_eq!(&*loaded.templates[0].data, b"kind: ConfigMap\n");
        assert!(loaded.templates[1].name.ends_with("/cm.yaml"));
        assert_eq!(loaded.dependencies.len(), 1);
        assert_eq!(loaded.raw_values(), Some(&b"a: 1\n"[..]));
        let values = loaded.raw.iter().find(|file| file.name == "values.yaml").unwrap();
        assert_eq!(values.mod_time.map(|time| time.seconds), Some(1_700_000_000));
        let names: Vec<String> =
            berth_chart::load::archive_files(&data).unwrap().into_iter().map(|(name, _)| name).collect();
        assert_eq!(names[..3], ["Chart.yaml".to_string(), "values.yaml".to_string(), "templates/cm.yaml".to_string()]);
        assert_eq!(file_name(&chart()), "app-1.0.0.tgz");
    }

    #[test]
    fn lock_times_are_read_to_the_second() {
        assert_eq!(
            parse_time("2026-01-02T03:04:05+01:00").map(|t| t.seconds),
            parse_time("2026-01-02T02:04:05Z").map(|t| t.seconds)
        );
    }
}
