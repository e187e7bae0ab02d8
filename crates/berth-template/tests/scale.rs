//! Scale: a chart-sized template set (300 files, about 50,000 lines, helpers called through `include`,
//! `tpl` on values) parses and renders, and the test prints how long that took
//! (`cargo test --release -p berth-template --test scale -- --nocapture`).

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

use std::time::Instant;

use berth_go::{GoType, Signature, Value};
use berth_template::{Context, MissingKey, Template};

fn include(ctx: &mut Context<'_>, args: &[Value]) -> berth_go::Result<Value> {
    let name = args.first().and_then(Value::as_str).unwrap_or_default().to_string();
    let data = args.get(1).cloned().unwrap_or(Value::Nil);
    ctx.execute_template(&name, &data).map(|s| Value::from_go_bytes(&s))
}

fn tpl(ctx: &mut Context<'_>, args: &[Value]) -> berth_go::Result<Value> {
    let text = args.first().and_then(Value::as_str).unwrap_or_default().to_string();
    let data = args.get(1).cloned().unwrap_or(Value::Nil);
    ctx.execute_text("gotpl", &text, &data).map(|s| Value::from_go_bytes(&s))
}

const HELPERS: &str = r#"{{- define "app.name" -}}{{ .Chart.Name }}{{- end -}}
{{- define "app.labels" -}}
app.kubernetes.io/name: {{ include "app.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}
{{- define "app.image" -}}{{ .registry }}/{{ .repository }}:{{ .tag }}{{- end -}}
"#;

/// One Deployment-like file of about 165 lines.
fn file(i: usize) -> String {
    let mut text = format!(
        "{{{{- if .Values.enabled }}}}\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{{{ include \"app.name\" . }}}}-{i}\n  labels:\n    {{{{- include \"app.labels\" . | nindent 4 }}}}\nspec:\n  replicas: {{{{ .Values.replicas }}}}\n  template:\n    spec:\n      containers:\n"
    );
    for c in 0..10 {
        text.push_str(&format!(
            "        - name: c{c}\n          image: {{{{ include \"app.image\" .Values.image }}}}\n          {{{{- with .Values.resources }}}}\n          resources:\n            limits:\n              cpu: {{{{ .cpu }}}}\n              memory: {{{{ .memory }}}}\n          {{{{- end }}}}\n          env:\n            {{{{- range $k, $v := .Values.env }}}}\n            - name: {{{{ $k }}}}\n              value: {{{{ $v | printf \"%q\" }}}}\n            {{{{- end }}}}\n            - name: RENDERED\n              value: {{{{ tpl .Values.tplValue . | printf \"%q\" }}}}\n            - name: INDEX\n              value: \"{c}\"\n"
        ));
    }
    text.push_str("{{- end }}\n");
    text
}

#[test]
fn a_chart_of_300_files_renders() {
    let files: Vec<(String, String)> = (0..300).map(|i| (format!("app/templates/f{i:03}.yaml"), file(i))).collect();
    let lines: usize = files.iter().map(|(_, t)| t.lines().count()).sum::<usize>() + HELPERS.lines().count();

    let values = Value::map([
        ("enabled", Value::Bool(true)),
        ("replicas", Value::Float(3.0)),
        (
            "image",
            Value::map([
                ("registry", Value::from("r.io")),
                ("repository", Value::from("app")),
                ("tag", Value::from("1.0")),
            ]),
        ),
        ("resources", Value::map([("cpu", Value::from("100m")), ("memory", Value::from("128Mi"))])),
        ("env", Value::map((0..5).map(|i| (format!("K{i}"), Value::from(format!("v{i}").as_str()))))),
        ("tplValue", Value::from("{{ .Release.Name }}-{{ .Values.replicas }}")),
    ]);
    let top = Value::map([
        ("Values", values),
        ("Release", Value::map([("Name", Value::from("rel")), ("Service", Value::from("Helm"))])),
        ("Chart", Value::map([("Name", Value::from("app"))])),
    ]);

    let start = Instant::now();
    let mut set = Template::new("gotpl")
        .missing_key(MissingKey::ZeroValue)
        .func("nindent", |args| {
            let n = args.first().and_then(Value::as_int).unwrap_or(0) as usize;
            let s = args.get(1).and_then(Value::as_str).unwrap_or_default();
            let pad = " ".repeat(n);
            Ok(Value::from(format!("\n{pad}{}", s.replace('\n', &format!("\n{pad}"))).as_str()))
        })
        .context_func("include", Some(Signature::fixed(&[GoType::String, GoType::Any])), include)
        .context_func("tpl", Some(Signature::fixed(&[GoType::String, GoType::Any])), tpl);
    set.add("app/templates/_helpers.tpl", HELPERS).expect("helpers parse");
    for (name, text) in &files {
        set.add(name, text).expect("file parses");
    }
    let parsed = start.elapsed();

    let mut bytes = 0;
    for (name, _) in &files {
        bytes += set.execute_template_to_string(name, &top).expect("file renders").len();
    }
    let total = start.elapsed();
    println!(
        "{} files, {lines} lines: parsed in {:.1} ms, parsed and rendered ({bytes} bytes, 3000 tpl calls) in {:.1} ms",
        files.len(),
        parsed.as_secs_f64() * 1e3,
        total.as_secs_f64() * 1e3
    );
    assert!(lines >= 50_000, "{lines} lines");
    assert!(bytes > 1_000_000);
}
