//! Property tests at the chart level: random templates and random values through the path `berth template` takes
//! (a chart directory loaded, user values parsed and merged, dependencies processed, every template rendered,
//! the output sorted) end with output or an error, never with a panic, and within a time bound.

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

use berth_chart::pipeline::{ReleaseOptions, render_release};
use berth_chart::render::{Release, RenderBudget, RenderOptions, offline};
use berth_chart::values::ComputeOptions;
use proptest::prelude::*;
use std::time::Duration;

/// How long one chart may take to render before the run counts as hung (debug build, shared machine).
const RENDER_LIMIT: Duration = Duration::from_secs(60);

/// Pieces of templates: actions of every kind charts use, text, YAML structure and broken syntax.
const TEMPLATE_PIECES: &[&str] = &[
    "{{ .Values.a }}",
    "{{ .Values.list | toYaml | nindent 2 }}",
    "{{ toJson .Values }}",
    "{{ include \"helper\" . }}",
    "{{ template \"helper\" . }}",
    "{{ tpl .Values.t . }}",
    "{{ tpl (toYaml .Values) . }}",
    "{{ range $i, $v := .Values.list }}{{ $i }}={{ $v }} {{ end }}",
    "{{ range .Values.a }}x{{ end }}",
    "{{ with .Values.m }}{{ .k }}{{ else }}none{{ end }}",
    "{{ if .Values.flag }}yes{{ else if .Values.a }}a{{ else }}no{{ end }}",
    "{{ default \"d\" .Values.c | quote }}",
    "{{ $x := dict \"k\" 1 }}{{ $_ := set $x \"v\" .Values.a }}{{ $x | toYaml }}",
    "{{ .Files.Get \"files/data.txt\" | b64enc }}",
    "{{ (.Files.Glob \"files/*\").AsConfig }}",
    "{{ .Capabilities.KubeVersion }}{{ .Capabilities.APIVersions.Has \"v1\" }}",
    "{{ lookup \"v1\" \"Secret\" .Release.Namespace \"s\" | toJson }}",
    "{{ .Release.Name }}-{{ .Chart.Name }}-{{ .Template.Name }}",
    "{{ until (int .Values.a) | join \",\" }}",
    "{{ printf \"%v %d %s\" .Values.a .Values.list .Values.m }}",
    "{{ regexReplaceAll \"(a+)\" (toString .Values.t) \"${1}b\" }}",
    "{{ fromYaml .Values.t | toJson }}",
    "{{ fromJson (toString .Values.a) }}",
    "{{ add .Values.a 1 | mul 2 | sub 3 | div 0 }}",
    "{{ trunc 3 (toString .Values.t) }}",
    "{{ genCA \"x\" 1 | toString | len }}",
    "{{- /* a comment */ -}}",
    "apiVersion: v1\nkind: ConfigMap\n",
    "metadata:\n  name: ",
    "\n  annotations:\n    helm.sh/hook: pre-install\n",
    "\n---\n",
    "\ndata:\n  key: ",
    "kind: Secret\n",
    "\n",
    "  ",
    "- ",
    "\t",
];

/// Pieces that make a template fail: broken syntax, unknown functions, recursion without end, failing actions,
/// a second definition of one name.
const BROKEN_TEMPLATE_PIECES: &[&str] = &[
    "{{ semverCompare \">=1.2\" (toString .Values.a) }}",
    "{{ .Values.missing.deeper }}",
    "{{ include \"loop\" . }}",
    "{{ fail \"stop\" }}",
    "{{ end }}",
    "{{ .Values.a | ",
    "{{",
    "}}",
    "{{ nosuchfunction }}",
    "{{ index .Values.list 5 }}",
    "{{ required \"need b\" .Values.b }}",
    "{{ define \"inner\" }}in{{ end }}",
    "{{ block \"b\" . }}block{{ end }}",
    ": [",
];

/// Pieces of values files: maps, lists, scalars of each type, templates for `tpl`, and broken YAML.
const VALUE_PIECES: &[&str] = &[
    "a: 3\n",
    "a: -1\n",
    "a: 1e3\n",
    "a: text\n",
    "a: null\n",
    "b: given\n",
    "c: \"\"\n",
    "flag: true\n",
    "flag: no\n",
    "list: [1, two, null, {k: v}]\n",
    "list: []\n",
    "m: {k: v, n: {deep: [1, 2]}}\n",
    "m: null\n",
    "t: \"{{ .Values.a }}\"\n",
    "t: \"{{ tpl .Values.t . }}\"\n",
    "t: \"a: [1, 2]\"\n",
    "global: {g: 1}\n",
    "sub: {enabled: false}\n",
    "sub: {x: 2}\n",
    "tags: {t: false}\n",
];

/// Pieces that make values fail to load (or their templates fail): broken YAML, a list as the document.
const BROKEN_VALUE_PIECES: &[&str] = &[
    "&anchor a: *anchor\n",
    "key: [unclosed\n",
    "- not a map\n",
    "\t\n",
    "? complex\n: key\n",
    "t: \"{{ include \\\"loop\\\" . }}\"\n",
];

/// Up to `max` pieces, one in about 25 a broken one, so most charts get as far as rendering.
fn assemble(
    pieces: &'static [&'static str],
    broken: &'static [&'static str],
    max: usize,
) -> impl Strategy<Value = String> {
    let piece = prop_oneof![24 => proptest::sample::select(pieces), 1 => proptest::sample::select(broken)];
    proptest::collection::vec(piece, 0..max).prop_map(|parts| parts.concat())
}

/// A chart: a few templates, helpers (one of them recursive), a subchart, files, values, and the user's values.
#[derive(Debug, Clone)]
struct RandomChart {
    templates: Vec<String>,
    chart_values: String,
    sub_values: String,
    user_values: String,
}

fn random_chart() -> impl Strategy<Value = RandomChart> {
    (
        proptest::collection::vec(assemble(TEMPLATE_PIECES, BROKEN_TEMPLATE_PIECES, 14), 1..5),
        assemble(VALUE_PIECES, BROKEN_VALUE_PIECES, 8),
        assemble(VALUE_PIECES, BROKEN_VALUE_PIECES, 4),
        assemble(VALUE_PIECES, BROKEN_VALUE_PIECES, 6),
    )
        .prop_map(|(templates, chart_values, sub_values, user_values)| RandomChart {
            templates,
            chart_values,
            sub_values,
            user_values,
        })
}

fn write(path: &std::path::Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("directory");
    }
    std::fs::write(path, text).expect("file written");
}

fn write_chart(dir: &std::path::Path, chart: &RandomChart) {
    write(
        &dir.join("Chart.yaml"),
        "apiVersion: v2\nname: random\nversion: 0.1.0\ndependencies:\n  - name: sub\n    version: 0.1.0\n    condition: sub.enabled\n    tags: [t]\n",
    );
    write(&dir.join("values.yaml"), &chart.chart_values);
    write(&dir.join("files/data.txt"), "data\n");
    write(
        &dir.join("templates/_helpers.tpl"),
        "{{- define \"helper\" -}}h: {{ .Values.a }}{{- end -}}\n{{- define \"loop\" -}}{{ include \"loop\" . }}{{- end -}}\n",
    );
    for (index, template) in chart.templates.iter().enumerate() {
        write(&dir.join(format!("templates/t{index}.yaml")), template);
    }
    write(&dir.join("templates/NOTES.txt"), chart.templates.first().map_or("", String::as_str));
    write(&dir.join("charts/sub/Chart.yaml"), "apiVersion: v2\nname: sub\nversion: 0.1.0\n");
    write(&dir.join("charts/sub/values.yaml"), &chart.sub_values);
    write(&dir.join("charts/sub/templates/s.yaml"), chart.templates.last().map_or("", String::as_str));
}

/// What rendering the chart gave: `Ok(output size)` or the error's text.
fn render(dir: &std::path::Path, user_values: &str) -> Result<usize, String> {
    let loaded = berth_chart::load::load(dir).map_err(|error| error.to_string())?;
    let user = berth_goyaml::load_values(user_values).map_err(|error| error.to_string())?;
    let options = ReleaseOptions {
        render: RenderOptions {
            release: Release::install("r", "default"),
            capabilities: offline(None, &[]),
            lookup: None,
            budget: RenderBudget::default(),
        },
        compute: ComputeOptions::default(),
        sub_notes: true,
        read_objects: true,
        on_chart: None,
    };
    let rendered = render_release(&loaded.chart, user, &options).map_err(|error| error.to_string())?;
    Ok(rendered.rendered.manifests.len() + rendered.rendered.hooks.len())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn random_charts_render_or_fail_without_panic_or_hang(chart in random_chart()) {
        let dir = tempfile::tempdir().expect("temporary directory");
        write_chart(dir.path(), &chart);
        let (sender, receiver) = std::sync::mpsc::channel();
        let path = dir.path().to_path_buf();
        let user_values = chart.user_values.clone();
        let worker = std::thread::spawn(move || {
            let _ = sender.send(std::panic::catch_unwind(|| render(&path, &user_values)));
        });
        let outcome = receiver.recv_timeout(RENDER_LIMIT);
        prop_assert!(outcome.is_ok(), "rendering did not end within {RENDER_LIMIT:?}: {chart:?}");
        let _ = worker.join();
        match outcome.expect("checked above") {
            Err(_) => prop_assert!(false, "the renderer panicked: {chart:?}"),
            Ok(Err(message)) => prop_assert!(!message.contains("panicked"), "{message}"),
            Ok(Ok(_)) => {}
        }
    }
}
