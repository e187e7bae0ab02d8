//! helm-diff's behaviour that only a variable turns on (HELM_DIFF_USE_UPGRADE_DRY_RUN=true: the chart rendered by
//! `helm upgrade --dry-run=server` instead of `helm template`), which the drop-in table's lines cannot set. As the
//! table's helm-diff lines: berth run as `helm` is compared with real Helm 4.1.4 running the helm-diff plugin
//! where BERTH_HELM_DIFF_PLUGIN names it (and recorded into `helm-diff-variables.recorded` with
//! BERTH_RECORD_HELM_DIFF=1), else with those recorded answers.

use crate::helm_dropin::{Seen, Side, berth_as_helm, difference, first_line, masked, stderr_of, timestamp_masks};
use crate::helm_dropin_recorded::Recording;
use crate::peers::peers_dir;
use std::path::PathBuf;
use std::process::Output;

/// Where real Helm's answers are kept.
const RECORDING: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/helm_dropin/helm-diff-variables.recorded");

/// Lines each cluster runs first: a release of `capable` and one of `shared` (the drop-in table's charts).
const SETUP: [&str; 2] =
    ["install cap ./capable -n caps --create-namespace", "install a ./shared -n owners --create-namespace"];

/// `VARIABLE=VALUE ... ARGUMENTS`, run in this order.
const LINES: &[&str] = &[
    // Rendered on the server whatever --disable-validation, --dry-run or --dry-run=false say, and given neither
    // --kube-version nor --api-versions (an invalid version is never read).
    "HELM_DIFF_USE_UPGRADE_DRY_RUN=true diff upgrade cap ./capable -n caps",
    "HELM_DIFF_USE_UPGRADE_DRY_RUN=true diff upgrade cap ./capable -n caps --disable-validation --kube-version 1.20 -a x/v1",
    "HELM_DIFF_USE_UPGRADE_DRY_RUN=true diff upgrade cap ./capable -n caps --dry-run=false --kube-version 1.20",
    "HELM_DIFF_USE_UPGRADE_DRY_RUN=true diff upgrade cap ./capable -n caps --dry-run --kube-version 1.20 -a x/v1",
    "HELM_DIFF_USE_UPGRADE_DRY_RUN=true diff upgrade cap ./capable -n caps --dry-run --three-way-merge",
    "HELM_DIFF_USE_UPGRADE_DRY_RUN=true diff upgrade --allow-unreleased capy ./capable -n caps --dry-run",
    "HELM_DIFF_USE_UPGRADE_DRY_RUN=true diff upgrade --allow-unreleased capy ./capable -n caps --kube-version nope",
    // `helm upgrade` has no --include-crds; a first install refuses another release's object as `template` does.
    "HELM_DIFF_USE_UPGRADE_DRY_RUN=true diff upgrade cap ./capable -n caps --include-crds",
    "HELM_DIFF_USE_UPGRADE_DRY_RUN=true diff upgrade --allow-unreleased b ./shared -n owners",
    "HELM_DIFF_USE_UPGRADE_DRY_RUN=true diff upgrade --allow-unreleased b ./shared -n owners --take-ownership",
    // The other switches, with their notice on stderr.
    "HELM_DIFF_THREE_WAY_MERGE=true diff upgrade --allow-unreleased b ./shared -n owners --take-ownership",
    "HELM_DIFF_NORMALIZE_MANIFESTS=true diff upgrade cap ./capable -n caps --dry-run=false",
];

/// What the recording's file says of itself.
const HEADER: &str = "What real Helm 4.1.4 with the helm-diff plugin v3.15.11 answered to the lines of \
    tests/integration/helm_diff_variables.rs,\nrecorded by `BERTH_HELM_DIFF_PLUGIN=DIR BERTH_RECORD_HELM_DIFF=1 cargo \
    test --test integration helm_diff_variables`.\nWritten by the test: do not edit.";

/// A line's variables and arguments.
fn split(line: &str) -> (Vec<(String, String)>, Vec<String>) {
    let mut variables = Vec::new();
    let mut arguments = Vec::new();
    for word in line.split_whitespace() {
        match word.split_once('=') {
            Some((name, value)) if arguments.is_empty() && name.starts_with("HELM_") => {
                variables.push((name.to_string(), value.to_string()));
            }
            _ => arguments.push(word.to_string()),
        }
    }
    (variables, arguments)
}

async fn run(side: &Side, line: &str, plugins: Option<&std::path::Path>) -> Output {
    let (variables, arguments) = split(line);
    let mut command = side.command(&arguments);
    command.envs(variables);
    if let Some(plugins) = plugins {
        command.env("HELM_PLUGINS", plugins);
    }
    side.run_command(command, &arguments).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn helm_diff_variables_answer_as_the_plugin() {
    let masks = timestamp_masks();
    let seen = |output: &Output| -> Seen {
        let stdout = masked(&String::from_utf8_lossy(&output.stdout), &masks);
        (output.status.code(), stdout, masked(&first_line(&output.stderr), &masks))
    };
    let plugin = std::env::var_os("BERTH_HELM_DIFF_PLUGIN").map(PathBuf::from);
    let plugins = tempfile::tempdir().expect("plugins directory");
    let bin = tempfile::tempdir().expect("bin directory");
    let berth = Side::start(berth_as_helm(bin.path())).await;
    let helm = match &plugin {
        Some(plugin) => {
            std::os::unix::fs::symlink(plugin, plugins.path().join("diff")).expect("the plugin linked");
            Some(Side::start(peers_dir().join("helm")).await)
        }
        None => None,
    };
    for line in SETUP {
        for side in std::iter::once(&berth).chain(&helm) {
            let output = run(side, line, None).await;
            assert!(output.status.success(), "{line}: {}", stderr_of(&output));
        }
    }
    let recorded =
        std::fs::read_to_string(RECORDING).map_or_else(|_| Ok(Recording::default()), |text| Recording::parse(&text));
    let recorded = recorded.unwrap_or_else(|error| panic!("{error}"));
    let mut recording = Recording::default();
    let mut differences = Vec::new();
    for line in LINES {
        let key = (line.to_string(), 1);
        let berth_output = run(&berth, line, None).await;
        let actual = seen(&berth_output);
        let (expected, helm_stderr) = match &helm {
            Some(helm) => {
                let output = run(helm, line, Some(plugins.path())).await;
                (seen(&output), stderr_of(&output).into_owned())
            }
            None => match recorded.entries.get(&key) {
                Some(expected) => (expected.clone(), "(recorded: its first line only)".to_string()),
                None => {
                    differences.push(format!("no recorded answer of helm-diff for `{line}` ({RECORDING})"));
                    continue;
                }
            },
        };
        if expected != actual {
            differences.push(difference(line, &expected, &actual, [&helm_stderr, &stderr_of(&berth_output)]));
        }
        recording.entries.insert(key, expected);
    }
    if helm.is_some() && std::env::var_os("BERTH_RECORD_HELM_DIFF").is_some() {
        std::fs::write(RECORDING, recording.render(HEADER)).expect("the recording written");
    }
    assert!(
        differences.is_empty(),
        "{} of {} lines differ:\n{}",
        differences.len(),
        LINES.len(),
        differences.join("\n")
    );
}
