//! `LoadFiles` (pkg/chart/v2/loader/load.go): a chart from its files, whichever way they were read: `Chart.yaml`
//! first, then every other file sorted into lock, values, schema, requirements, templates, subcharts and plain
//! files; validation; subcharts loaded from their directories or archives under `charts/`.

use super::archive::{BufferedFile, load_archive_files};
use super::chartfile::{RawMetadata, decode_lock, decode_metadata, validate};
use super::{LoadContext, MAX_CHART_DEPTH, MAX_CHARTS, MAX_LOADED_CHART_BYTES};
use crate::chart::Chart;

/// `LoadFiles`, at `depth` levels below the chart being loaded.
pub(crate) fn load_files(files: Vec<BufferedFile>, context: &mut LoadContext, depth: usize) -> Result<Chart, String> {
    if depth > MAX_CHART_DEPTH {
        return Err(format!("subcharts are nested more than {MAX_CHART_DEPTH} levels deep"));
    }
    context.charts += 1;
    if context.charts > MAX_CHARTS {
        return Err(format!("the chart holds more than {MAX_CHARTS} charts with its subcharts (berth's limit)"));
    }
    // A subchart's files are counted where it is loaded, once.
    context.bytes = files
        .iter()
        .filter(|file| !file.name.starts_with("charts/"))
        .fold(context.bytes, |bytes, file| bytes.saturating_add(file.data.len() as u64));
    if context.bytes > MAX_LOADED_CHART_BYTES {
        return Err(format!(
            "the chart holds more than {} MiB of files with its subcharts (berth's limit)",
            MAX_LOADED_CHART_BYTES >> 20
        ));
    }
    let mut chart = Chart::default();
    let mut metadata: Option<RawMetadata> = None;

    // Chart.yaml first, wherever it is in the list.
    for file in &files {
        chart.raw.push(file.clone());
        if file.name == "Chart.yaml" {
            let raw = metadata.get_or_insert_with(RawMetadata::default);
            decode_metadata(&file.data, raw).map_err(|error| format!("cannot load Chart.yaml: {error}"))?;
            if raw.metadata.api_version.is_empty() {
                raw.metadata.api_version = "v1".to_string();
            }
            chart.mod_time = file.mod_time;
        }
    }

    // Subcharts by directory name under charts/, in the order their first file was seen.
    let mut subcharts: Vec<(String, Vec<BufferedFile>)> = Vec::new();
    for file in files {
        let name = file.name.as_str();
        match name {
            "Chart.yaml" => {}
            "Chart.lock" => {
                chart.lock = Some(decode_lock(&file.data).map_err(|error| format!("cannot load Chart.lock: {error}"))?);
            }
            "values.yaml" => {
                chart.values = berth_goyaml::load_values(&file.data)
                    .map_err(|error| format!("cannot load values.yaml: {}", error.message()))?;
            }
            "values.schema.json" => {
                chart.schema_mod_time = file.mod_time;
                chart.schema = Some(file.data.to_vec());
            }
            "requirements.yaml" => {
                let raw = metadata.get_or_insert_with(RawMetadata::default);
                if raw.metadata.api_version != "v1" {
                    context.warn(
                        "Warning: Dependencies are handled in Chart.yaml since apiVersion \"v2\". We recommend \
                         migrating dependencies to Chart.yaml.",
                    );
                }
                decode_metadata(&file.data, raw).map_err(|error| format!("cannot load requirements.yaml: {error}"))?;
                if raw.metadata.api_version == "v1" {
                    chart.files.push(file);
                }
            }
            "requirements.lock" => {
                chart.lock =
                    Some(decode_lock(&file.data).map_err(|error| format!("cannot load requirements.lock: {error}"))?);
                let raw = metadata.get_or_insert_with(RawMetadata::default);
                if raw.metadata.api_version != "v1" {
                    context.warn(
                        "Warning: Dependency locking is handled in Chart.lock since apiVersion \"v2\". We recommend \
                         migrating to Chart.lock.",
                    );
                }
                if raw.metadata.api_version == "v1" {
                    chart.files.push(file);
                }
            }
            _ if name.starts_with("templates/") => chart.templates.push(file),
            _ if name.starts_with("charts/") => {
                if extension(name) == ".prov" {
                    chart.files.push(file);
                    continue;
                }
                let inner = name["charts/".len()..].to_string();
                let subchart = inner.split('/').next().unwrap_or_default().to_string();
                let entry = BufferedFile { name: inner, ..file };
                match subcharts.iter_mut().find(|(n, _)| *n == subchart) {
                    Some((_, list)) => list.push(entry),
                    None => subcharts.push((subchart, vec![entry])),
                }
            }
            _ => chart.files.push(file),
        }
    }

    let Some(mut metadata) = metadata else {
        return Err("Chart.yaml file is missing".to_string());
    };
    validate(&mut metadata)?;
    chart.metadata = metadata.metadata;

    for (name, files) in subcharts {
        if name.starts_with('_') || name.starts_with('.') {
            continue;
        }
        let loaded = if extension(&name) == ".tgz" {
            let Some(file) = files.into_iter().next() else {
                continue;
            };
            if file.name != name {
                return Err(format!(
                    "error unpacking subchart tar in {}: expected {name}, got {}",
                    chart.name(),
                    file.name
                ));
            }
            load_archive_files(&*file.data)
                .map_err(|error| error.to_string())
                .and_then(|files| load_files(files, context, depth + 1))
        } else {
            // The files of a directory subchart, with the directory dropped from their names; a lone file in
            // charts/ that is not an archive has no files left (and so no Chart.yaml).
            let inner: Vec<BufferedFile> = files
                .into_iter()
                .filter_map(|file| {
                    let (_, rest) = file.name.split_once('/')?;
                    Some(BufferedFile { name: rest.to_string(), ..file })
                })
                .collect();
            load_files(inner, context, depth + 1)
        };
        match loaded {
            Ok(subchart) => chart.dependencies.push(subchart),
            Err(error) => return Err(format!("error unpacking subchart {name} in {}: {error}", chart.name())),
        }
    }
    Ok(chart)
}

/// `filepath.Ext`.
fn extension(name: &str) -> &str {
    let base_start = name.rfind('/').map_or(0, |i| i + 1);
    match name[base_start..].rfind('.') {
        Some(dot) => &name[base_start + dot..],
        None => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use berth_go::Value;

    fn file(name: &str, data: &str) -> BufferedFile {
        BufferedFile::new(name, data.as_bytes())
    }

    fn load(files: Vec<BufferedFile>) -> Result<Chart, String> {
        load_files(files, &mut LoadContext::default(), 0)
    }

    #[test]
    fn files_are_sorted_into_their_places() {
        let chart = load(vec![
            file("templates/a.yaml", "a"),
            file("values.yaml", "x: 1\n"),
            file("README.md", "readme"),
            file("Chart.yaml", "apiVersion: v2\nname: top\nversion: 1.0.0\n"),
            file("charts/sub/Chart.yaml", "apiVersion: v2\nname: sub\nversion: 0.1.0\n"),
            file("charts/sub/templates/b.yaml", "b"),
            file("charts/_skipped/Chart.yaml", "not even yaml: ["),
            file("charts/sub-0.1.0.tgz.prov", "signature"),
            file("values.schema.json", "{}"),
        ])
        .unwrap();
        assert_eq!(chart.name(), "top");
        assert_eq!(chart.templates.len(), 1);
        assert_eq!(
            chart.files.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
            ["README.md", "charts/sub-0.1.0.tgz.prov"]
        );
        assert_eq!(chart.raw.len(), 9);
        assert_eq!(chart.schema.as_deref(), Some(&b"{}"[..]));
        assert_eq!(chart.dependencies.len(), 1);
        assert_eq!(chart.dependencies[0].templates[0].name, "templates/b.yaml");
        assert_eq!(chart.values.field("x"), Some(Value::Float(1.0)));
    }

    #[test]
    fn missing_chart_yaml_and_subchart_errors_name_the_chart() {
        assert_eq!(load(vec![file("values.yaml", "")]).unwrap_err(), "Chart.yaml file is missing");
        let error =
            load(vec![file("Chart.yaml", "apiVersion: v2\nname: top\nversion: 1.0.0\n"), file("charts/README", "x")])
                .unwrap_err();
        assert_eq!(error, "error unpacking subchart README in top: Chart.yaml file is missing");
    }

    #[test]
    fn v1_requirements_are_dependencies_and_files() {
        let mut context = LoadContext::default();
        let chart = load_files(
            vec![
                file("Chart.yaml", "name: old\nversion: 1.0.0\n"),
                file("requirements.yaml", "dependencies:\n- name: sub\n  version: 0.1.0\n"),
            ],
            &mut context,
            0,
        )
        .unwrap();
        assert_eq!(chart.metadata.api_version, "v1");
        assert_eq!(chart.metadata.dependencies[0].name, "sub");
        assert_eq!(chart.files[0].name, "requirements.yaml");
        assert!(context.warnings.is_empty());
    }

    #[test]
    fn subchart_nesting_is_bounded() {
        let mut files = Vec::new();
        let mut prefix = String::new();
        for _ in 0..=MAX_CHART_DEPTH + 1 {
            files.push(file(&format!("{prefix}Chart.yaml"), "apiVersion: v2\nname: a\nversion: 1.0.0\n"));
            prefix.push_str("charts/a/");
        }
        let error = load(files).unwrap_err();
        assert!(error.ends_with("subcharts are nested more than 64 levels deep"), "{error}");
        assert!(error.starts_with("error unpacking subchart a in a: error unpacking subchart a in a:"));
    }

    #[test]
    fn subcharts_are_bounded_in_number_and_bytes() {
        // 20 subcharts of 20 subcharts of 20: 8,421 charts.
        let chart_yaml = "apiVersion: v2\nname: a\nversion: 1.0.0\n";
        let mut files = Vec::new();
        for top in 0..20 {
            for middle in 0..20 {
                for leaf in 0..=20 {
                    let prefix = format!("charts/s{top}/charts/s{middle}/");
                    let name = if leaf == 20 { String::new() } else { format!("charts/s{leaf}/") };
                    files.push(file(&format!("{prefix}{name}Chart.yaml"), chart_yaml));
                }
            }
            files.push(file(&format!("charts/s{top}/Chart.yaml"), chart_yaml));
        }
        files.push(file("Chart.yaml", chart_yaml));
        let error = load(files).unwrap_err();
        assert!(error.ends_with("the chart holds more than 5000 charts with its subcharts (berth's limit)"), "{error}");

        let large = "x".repeat(100 << 20);
        let files = vec![
            file("Chart.yaml", chart_yaml),
            file("a.txt", &large),
            file("charts/s/Chart.yaml", chart_yaml),
            file("charts/s/b.txt", &large),
            file("charts/s/charts/t/Chart.yaml", chart_yaml),
            file("charts/s/charts/t/c.txt", &large),
        ];
        let error = load(files).unwrap_err();
        assert!(
            error.ends_with("the chart holds more than 256 MiB of files with its subcharts (berth's limit)"),
            "{error}"
        );
    }

    #[test]
    fn values_yaml_errors_are_wrapped() {
        let error = load(vec![
            file("Chart.yaml", "apiVersion: v2\nname: top\nversion: 1.0.0\n"),
            file("values.yaml", "a: b: c\n"),
        ])
        .unwrap_err();
        assert!(error.starts_with("cannot load values.yaml: cannot unmarshal yaml document: error converting YAML to JSON: yaml: mapping values are not allowed in this context"), "{error}");
    }
}
