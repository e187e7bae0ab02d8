//! `berth lint` against real Helm v4.1.4 (from `peers.rs`): both run as processes with the same arguments in the
//! same directory, each with a HOME of its own, and compared whole: stdout, stderr and exit status.
//!
//! The inputs: the broken charts of `tests/data/lint/` (one or more of Helm's rules each, with every flag Helm's
//! `lint` takes), every chart of `tests/charts/`, the chart `helm create` makes (made by Helm when the test runs),
//! packaged charts (packed by `helm package` when the test runs), and with `BERTH_PUBLIC_CHARTS=DIR` (from
//! `scripts/public-charts.sh DIR`) the public corpus. berth's own checks add findings Helm has no rule for; their
//! chart (`tests/data/lint/berth-annotations`) is compared with `--no-berth-checks`, and its own findings are
//! checked against the text berth promises.

use crate::peers::peers_dir;
use regex::Regex;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The longest one program may take on one run before the run counts as hung.
const RUN_LIMIT: Duration = Duration::from_secs(180);

/// What one program did.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `program lint ARGS` in `dir` with a private HOME, bounded by [`RUN_LIMIT`].
fn lint(program: &Path, dir: &Path, args: &[&str]) -> Outcome {
    let home = tempfile::tempdir().expect("home directory");
    let mut child = Command::new(program)
        .arg("lint")
        .args(args)
        .current_dir(dir)
        .env("HOME", home.path())
        .env("HELM_CACHE_HOME", home.path().join("cache"))
        .env("HELM_CONFIG_HOME", home.path().join("config"))
        .env("HELM_DATA_HOME", home.path().join("data"))
        .env("NO_COLOR", "1")
        .env_remove("BERTH_LOG")
        .env_remove("HELM_NAMESPACE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("start {}: {error}", program.display()));
    let read = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = read(Box::new(child.stdout.take().expect("stdout pipe")));
    let stderr = read(Box::new(child.stderr.take().expect("stderr pipe")));
    let pid = child.id();
    let (sender, receiver) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let _ = sender.send(child.wait());
    });
    let status = match receiver.recv_timeout(RUN_LIMIT) {
        Ok(status) => status.expect("wait for the program"),
        Err(_) => {
            let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
            panic!("{} lint {args:?} did not finish within {RUN_LIMIT:?}", program.display());
        }
    };
    let _ = waiter.join();
    Outcome { code: status.code(), stdout: stdout.join().expect("stdout"), stderr: stderr.join().expect("stderr") }
}

fn helm() -> PathBuf {
    peers_dir().join("helm")
}

fn berth() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_berth"))
}

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lint")
}

fn charts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/charts")
}

/// Where a packaged chart was extracted (Helm's and berth's temporary directories differ run by run).
fn mask_extraction(text: &str) -> String {
    let extraction = Regex::new(r"/[^ \n]*/helm-lint[^/ \n]*/").expect("pattern");
    extraction.replace_all(text, "<extracted>/").into_owned()
}

/// Runs every case in `dir` through both programs; returns a description of each disagreement.
fn disagreements(dir: &Path, cases: &[Vec<String>]) -> Vec<String> {
    let (helm, berth) = (helm(), berth());
    let mut found = Vec::new();
    for case in cases {
        let args: Vec<&str> = case.iter().map(String::as_str).collect();
        let mut expected = lint(&helm, dir, &args);
        let mut actual = lint(&berth, dir, &args);
        for outcome in [&mut expected, &mut actual] {
            outcome.stdout = mask_extraction(&outcome.stdout);
        }
        if expected != actual {
            found.push(format!(
                "lint {args:?} in {}:\n--- helm (exit {:?})\n{}{}--- berth (exit {:?})\n{}{}",
                dir.display(),
                expected.code,
                expected.stdout,
                expected.stderr,
                actual.code,
                actual.stdout,
                actual.stderr
            ));
        }
    }
    found
}

fn cases(lines: &[&str]) -> Vec<Vec<String>> {
    lines.iter().map(|line| line.split(' ').map(str::to_string).collect()).collect()
}

/// Each broken chart alone, then Helm's flags over them: `--strict`, `--quiet`, several paths, the values flags,
/// `--kube-version`, `--skip-schema-validation`, `--namespace`.
const DATA_CASES: &[&str] = &[
    "bad-api-version",
    "bad-names",
    "bad-version",
    "chart-metadata",
    "chart-yaml-syntax",
    "crds-bad",
    "crds-not-a-directory",
    "dependencies-duplicate",
    "dependencies-missing",
    "dependencies-undeclared",
    "deprecated-api",
    "invalid-yaml",
    "missing-fields",
    "no-chart-yaml",
    "no-templates",
    "schema-violation",
    "template-exec",
    "template-parse",
    "template-separator",
    "template-shapes",
    "templates-file",
    "unknown-field",
    "v1-dependencies",
    "values-syntax",
    "version-number",
    "--strict unknown-field",
    "--strict no-templates dependencies-missing deprecated-api",
    "--quiet no-templates unknown-field chart-metadata values-syntax",
    "--quiet --strict unknown-field",
    "bad-names deprecated-api crds-bad no-chart-yaml missing-fields",
    "--set replicas=3 schema-violation",
    "-f values-files/replicas-zero.yaml --set-string name=x -f values-files/replicas-two.yaml schema-violation",
    "--skip-schema-validation schema-violation",
    "--set-json image={\"x\":1} --set-file notes=values-files/image.json template-exec",
    "-f missing.yaml no-templates",
    "--kube-version 1.20 deprecated-api",
    "--kube-version v1.40.1 deprecated-api",
    "--kube-version 1 deprecated-api",
    "-n other-ns template-shapes",
];

#[test]
fn lint_matches_helm_on_broken_charts_and_every_flag() {
    let found = disagreements(&data_dir(), &cases(DATA_CASES));
    assert!(found.is_empty(), "{} of {} runs differ:\n\n{}", found.len(), DATA_CASES.len(), found.join("\n\n"));
}

/// Every directory of `tests/charts` that holds a `Chart.yaml` (subcharts and sources of packaged ones too).
fn corpus_charts(dir: &Path, relative: &str, found: &mut Vec<String>) {
    if dir.join("Chart.yaml").is_file() {
        found.push(relative.to_string());
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|entry| entry.path().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        let child = if relative.is_empty() { name.clone() } else { format!("{relative}/{name}") };
        corpus_charts(&dir.join(&name), &child, found);
    }
}

#[test]
fn lint_matches_helm_on_every_chart_of_the_corpus() {
    let mut charts = Vec::new();
    corpus_charts(&charts_dir(), "", &mut charts);
    assert!(charts.len() >= 25, "tests/charts holds {} charts; expected many more", charts.len());
    let mut runs: Vec<Vec<String>> = charts.iter().map(|chart| vec![chart.clone()]).collect();
    runs.extend(cases(&[
        "--with-subcharts subcharts/chart",
        "--with-subcharts --strict ordering/chart imports-globals/chart crds/chart",
        "--quiet --with-subcharts library/chart schema/chart",
        "subcharts/chart/charts/worker-0.2.0.tgz",
    ]));
    let found = disagreements(&charts_dir(), &runs);
    assert!(found.is_empty(), "{} of {} runs differ:\n\n{}", found.len(), runs.len(), found.join("\n\n"));
}

#[test]
fn lint_matches_helm_on_helm_create_and_packaged_charts() {
    let scratch = tempfile::tempdir().expect("scratch directory");
    let helm = helm();
    let home = scratch.path().join("home");
    let run = |args: &[&str]| {
        let output = Command::new(&helm).args(args).current_dir(scratch.path()).env("HOME", &home).output();
        let output = output.expect("helm runs");
        assert!(output.status.success(), "helm {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    };
    run(&["create", "mychart"]);
    for chart in ["dependencies-undeclared", "template-exec", "bad-names"] {
        run(&["package", &data_dir().join(chart).to_string_lossy(), "-d", "packages"]);
    }
    let runs = cases(&[
        "mychart",
        "--strict --with-subcharts mychart",
        "--set image.tag=1 --set replicaCount=0 mychart",
        "packages/dependencies-undeclared-0.1.0.tgz",
        "packages/template-exec-0.1.0.tgz packages/bad-names-0.1.0.tgz mychart",
        "--quiet packages/dependencies-undeclared-0.1.0.tgz",
        "packages/missing-0.1.0.tgz",
    ]);
    let found = disagreements(scratch.path(), &runs);
    assert!(found.is_empty(), "{} of {} runs differ:\n\n{}", found.len(), runs.len(), found.join("\n\n"));
}

/// What berth's checks find in `tests/data/lint/berth-annotations`, after Helm's findings (none but the summary
/// there): each of berth's checks, named by file, document and object.
const BERTH_FINDINGS: &str = r#"[ERROR] templates/health.yaml: document 1 (line 1): Widget/cel: annotation `berth.dev/health`: `current` at line 1, column 16: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
  | status.ready ==
  |                ^
[WARNING] templates/health.yaml: document 2 (line 9): Widget/readiness: only `helm.sh/readiness-success` is set; HIP-0025 needs `helm.sh/readiness-failure` too, so both are ignored
[ERROR] templates/health.yaml: document 3 (line 16): Widget/seed: annotation `helm.sh/health/status.phase`: value `~Running` does not start with an operator (==, !=, <, <=, >, >=), e.g. `==Running`
[ERROR] templates/health.yaml: document 3 (line 16): Widget/seed: annotation `berth.dev/timeout`: invalid duration `soon`: time: invalid duration "soon"
[ERROR] templates/hook.yaml: document 1 (line 1): Job/migrate: annotation `helm.sh/weight`: `1.5` is not an integer; expected one such as "-1" or "5"
[ERROR] templates/metadata.yaml: document 1 (line 1): ConfigMap/labelled: metadata.labels: Invalid value: "not a key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')
[ERROR] templates/metadata.yaml: document 1 (line 1): ConfigMap/labelled: metadata.labels.tier: Invalid value: "a value that is far too long for a label value, which may hold sixty-three chara... (93 bytes)": must be no more than 63 characters
[ERROR] templates/metadata.yaml: document 1 (line 1): ConfigMap/labelled: metadata.labels.tier: Invalid value: "a value that is far too long for a label value, which may hold sixty-three chara... (93 bytes)": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')
[ERROR] templates/metadata.yaml: document 1 (line 1): ConfigMap/labelled: metadata.annotations.example.com/replicas: Invalid type: must be a string, found a number; quote it
[ERROR] templates/ordering.yaml: document 1 (line 1): ConfigMap/default/weighed: annotation `helm.sh/weight`: `heavy` is not an integer; expected one such as "-1" or "5"
[ERROR] templates/ordering.yaml: document 4 (line 25): ConfigMap/default/grouped: annotation `helm.sh/depends-on/resource-groups`: no object declares resource group `database`; no object has a `helm.sh/resource-group` annotation
[ERROR] templates/ordering.yaml: dependency cycle: ConfigMap/default/chicken -> ConfigMap/default/egg -> ConfigMap/default/chicken
  ConfigMap/default/chicken (templates/ordering.yaml: document 2 (line 9)) waits for ConfigMap/default/egg (berth.dev/depends-on)
  ConfigMap/default/egg (templates/ordering.yaml: document 3 (line 17)) waits for ConfigMap/default/chicken (berth.dev/depends-on)
"#;

#[test]
fn berths_own_checks_follow_helms_findings_and_fail_the_chart() {
    let dir = data_dir();
    let helm_outcome = lint(&helm(), &dir, &["berth-annotations"]);
    let helm_only = lint(&berth(), &dir, &["--no-berth-checks", "berth-annotations"]);
    assert_eq!(helm_only, helm_outcome, "with --no-berth-checks berth prints what Helm prints");
    assert_eq!(helm_outcome.code, Some(0), "Helm has no rule for these: {helm_outcome:?}");

    // Helm's text with berth's findings after Helm's, before the blank line that ends the chart; the chart fails.
    let helm_text = helm_outcome.stdout.strip_suffix("\n1 chart(s) linted, 0 chart(s) failed\n");
    let helm_text = helm_text.expect("Helm's summary ends its output");
    let actual = lint(&berth(), &dir, &["berth-annotations"]);
    let expected = Outcome {
        code: Some(1),
        stdout: format!("{helm_text}{BERTH_FINDINGS}\n"),
        stderr: "Error: 1 chart(s) linted, 1 chart(s) failed\n".to_string(),
    };
    assert_eq!(actual, expected);

    // --quiet keeps them (they are errors and warnings); --strict changes nothing more (already failed).
    let quiet = lint(&berth(), &dir, &["--quiet", "--strict", "berth-annotations"]);
    assert_eq!(quiet.stdout, format!("==> Linting berth-annotations\n{BERTH_FINDINGS}\n"));
}

#[test]
fn lint_matches_helm_on_the_public_charts() {
    let Some(directory) = std::env::var_os("BERTH_PUBLIC_CHARTS").map(PathBuf::from) else {
        eprintln!("skipped: set BERTH_PUBLIC_CHARTS to a directory prepared by scripts/public-charts.sh");
        return;
    };
    let mut charts: Vec<String> = std::fs::read_dir(&directory)
        .expect("BERTH_PUBLIC_CHARTS is a readable directory")
        .flatten()
        .filter(|entry| entry.path().join("Chart.yaml").is_file())
        .map(|entry| format!("{}/", entry.file_name().to_string_lossy()))
        .collect();
    charts.sort();
    assert!(!charts.is_empty(), "no charts in {}", directory.display());
    let mut runs = vec![charts.clone()];
    runs.extend(charts.iter().map(|chart| vec!["--with-subcharts".to_string(), "--strict".to_string(), chart.clone()]));
    let found = disagreements(&directory, &runs);
    assert!(found.is_empty(), "{} of {} runs differ:\n\n{}", found.len(), runs.len(), found.join("\n\n"));
}
