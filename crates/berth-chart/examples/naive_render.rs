use berth_chart::chart::{Chart, File, Metadata};
use berth_chart::render::output::{TemplateOutput, template_text};
use berth_chart::render::{Release, RenderOptions, offline, render_chart};
use std::path::Path;

fn walk(dir: &Path, base: &Path, out: &mut Vec<File>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, base, out);
        } else {
            out.push(File {
                name: path.strip_prefix(base).unwrap().to_string_lossy().into_owned(),
                data: std::fs::read(&path).unwrap(),
            });
        }
    }
}

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap());
    let mut files = Vec::new();
    walk(&dir, &dir, &mut files);
    let chart_yaml = berth_template::yaml::parse_document(&String::from_utf8_lossy(
        &files.iter().find(|f| f.name == "Chart.yaml").unwrap().data,
    ))
    .unwrap();
    let field = |k: &str| match &chart_yaml {
        berth_template::Value::Map(m) => m.get(k).and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
        _ => panic!(),
    };
    let name = field("name");
    let values = berth_template::yaml::load_values(&String::from_utf8_lossy(
        &files.iter().find(|f| f.name == "values.yaml").unwrap().data,
    ))
    .unwrap();
    let chart = Chart {
        metadata: Metadata {
            name,
            version: field("version"),
            app_version: field("appVersion"),
            api_version: "v2".into(),
            chart_type: "application".into(),
            ..Default::default()
        },
        templates: files.iter().filter(|f| f.name.starts_with("templates/")).cloned().collect(),
        files: files.iter().filter(|f| !f.name.starts_with("templates/")).cloned().collect(),
        values: values.clone(),
        ..Default::default()
    };
    let options = RenderOptions {
        release: Release::install("release-name", "default"),
        capabilities: offline(None, &[]),
        lookup: None,
    };
    match render_chart(&chart, &values, &options, false) {
        Ok(rendered) => print!(
            "{}",
            template_text(&TemplateOutput {
                manifests: &rendered.manifests,
                hooks: &rendered.hooks,
                ..Default::default()
            })
        ),
        Err(e) => eprintln!("Error: {e}"),
    }
}
