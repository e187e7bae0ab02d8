//! The engine against real Helm v4.1.4: the probe chart in `tests/probes` is rendered here as Helm renders
//! it and compared byte for byte with the outputs `tests/probes/regen.sh` recorded from `helm template`.
//! Error probes compare the engine's errors, reprinted as Helm reprints them, with Helm's stderr.
//!
//! Rendering runs on a thread with a 64 MiB stack and a 60 MiB stack budget, as the chart renderer must
//! (Helm allows 1000 nested `include`s of one template, and one probe reaches that limit).

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

#[path = "support/helm.rs"]
mod helm;
#[path = "support/objects.rs"]
mod objects;

use std::path::{Path, PathBuf};

use berth_go::Value;

fn probes() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/probes")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn values() -> Value {
    let json: serde_json::Value =
        serde_json::from_str(&read(&probes().join("values.yaml"))).expect("values.yaml is JSON");
    let values = helm::from_json(&json);
    Value::map([
        ("Values", values),
        (
            "Release",
            Value::map([
                ("Name", Value::from("probe")),
                ("Namespace", Value::from("default")),
                ("IsInstall", Value::Bool(true)),
                ("IsUpgrade", Value::Bool(false)),
                ("Revision", Value::Int(1)),
                ("Service", Value::from("Helm")),
            ]),
        ),
        ("Chart", Value::map([("Name", Value::from("probe")), ("Version", Value::from("0.1.0"))])),
        ("Capabilities", objects::default_capabilities()),
        ("Files", Value::object(objects::Files(std::sync::Arc::new(chart_files())))),
    ])
}

/// The chart's non-template files, as Helm loads them (paths relative to the chart).
fn chart_files() -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    for name in ["a.txt", "b.txt"] {
        let bytes = std::fs::read(probes().join("files").join(name)).expect("probe file");
        files.insert(format!("files/{name}"), bytes);
    }
    files
}

fn chart_file(dir: &str, name: &str) -> helm::File {
    helm::File { name: format!("probe/templates/{name}"), text: read(&probes().join(dir).join(name)) }
}

fn files_in(dir: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(probes().join(dir))
        .expect("probe directory")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yaml"))
        .collect();
    names.sort();
    names
}

/// Runs `f` on a thread with a large stack, as the chart renderer runs templates.
fn on_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(helm::THREAD_STACK)
        .spawn(f)
        .expect("spawn render thread")
        .join()
        .expect("render thread panicked")
}

#[test]
fn probes_render_as_helm_renders_them() {
    let names = files_in("templates");
    assert!(names.len() >= 10, "probe templates missing");
    let mut files = vec![chart_file("templates", "_helpers.tpl")];
    files.extend(names.iter().map(|n| chart_file("templates", n)));
    let rendered =
        on_big_stack(move || helm::render(&files, &values())).unwrap_or_else(|e| panic!("render failed: {e}"));
    let mut failures = Vec::new();
    for name in &names {
        let stem = name.trim_end_matches(".yaml");
        let want = read(&probes().join("golden").join(format!("{stem}.out")));
        let full = format!("probe/templates/{name}");
        let content = rendered.iter().find(|(n, _)| *n == full).map(|(_, c)| c.as_str()).unwrap_or_default();
        let got = helm::print_manifests(&full, content);
        if got != want {
            failures.push(format!("== {name}\n--- helm\n{want}\n--- berth\n{got}"));
        }
    }
    assert!(failures.is_empty(), "{} probe(s) differ from Helm:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn error_probes_fail_as_helm_fails() {
    let names = files_in("errors");
    assert!(names.len() >= 40, "error probes missing");
    let mut failures = Vec::new();
    for name in names {
        let stem = name.trim_end_matches(".yaml").to_string();
        let golden = read(&probes().join("golden/errors").join(format!("{stem}.txt")));
        let (status, stderr) = golden.split_once('\n').unwrap_or_default();
        assert_eq!(status, "exit=1", "{name}: Helm did not fail");
        let want = stderr
            .strip_prefix("Error: ")
            .and_then(|s| s.strip_suffix("\n\nUse --debug flag to render out invalid YAML\n"))
            .unwrap_or_else(|| panic!("{name}: unexpected Helm stderr {stderr:?}"))
            .to_string();
        let files = vec![chart_file("templates", "_helpers.tpl"), chart_file("errors", &name)];
        let result = on_big_stack(move || helm::render(&files, &values()));
        match result {
            Ok(_) => failures.push(format!("== {name}: rendered without error; Helm: {want}")),
            Err(got) if got != want => failures.push(format!("== {name}\n--- helm\n{want}\n--- berth\n{got}")),
            Err(_) => {}
        }
    }
    assert!(failures.is_empty(), "{} error probe(s) differ from Helm:\n{}", failures.len(), failures.join("\n"));
}
