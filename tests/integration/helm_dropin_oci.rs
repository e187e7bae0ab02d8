//! berth as a drop-in `helm` with OCI registries: the command lines helmfile v1.x issues for a release whose chart
//! is in a registry (`pkg/helmexec/exec.go` `RegistryLogin` and `ChartPull`, with the flags `pkg/state/state.go`
//! `getOCIChart` gives it), and those a CI job publishing a chart runs, each through real Helm 4.1.4 and through
//! berth as `helm` (`dropin_lines.rs` says how they are compared). Each side has its own registry: Debian's
//! `docker-registry` with htpasswd basic auth, as `sources_oci.rs` starts it; then one asking for bearer tokens, and
//! one on HTTPS.

use crate::dropin_lines::{Line, Setup, assert_none, differences};
use crate::sources_support::{Registry, RegistryAuth};
use std::path::Path;

/// The lines, in order: (arguments, what the line reads on stdin). `{registry}` is the side's registry
/// (`127.0.0.1:PORT`), `{user}` and `{password}` the registry's user and password, `{digest}` the manifest digest
/// the last push printed.
const LINES: &[Line] = &[
    // Before any login: the registry asks for credentials.
    ("pull oci://{registry}/charts/alpha --version 0.1.0 --plain-http -d before-login", None),
    // helmfile's RegistryLogin: the password on stdin; over HTTPS (the registry speaks plain HTTP), a wrong
    // password, then the right one.
    ("registry login {registry} --username {user} --password-stdin", Some("{password}\n")),
    ("registry login {registry} --username {user} --password-stdin --plain-http", Some("not-the-password\n")),
    ("registry login {registry} --username {user} --password-stdin --plain-http", Some("{password}\n")),
    ("registry login {registry}/charts --username {user} --password {password} --plain-http", None),
    // A CI job publishing the chart.
    ("push alpha-0.1.0.tgz oci://{registry}/charts --plain-http", None),
    ("push missing-0.1.0.tgz oci://{registry}/charts --plain-http", None),
    ("push alpha-0.1.0.tgz {registry}/charts --plain-http", None),
    ("push alpha-0.1.0.tgz localhost/charts --plain-http", None),
    ("push alpha-0.1.0.tgz https://{registry}/charts --plain-http", None),
    // Pushed again: the registry has it, and it is only tagged.
    ("push alpha-0.1.0.tgz oci://{registry}/charts --plain-http", None),
    // helmfile's ChartPull (`--destination DIR --untar`, then `--plain-http` and `--version`), twice: the second
    // finds the chart's directory there.
    ("pull oci://{registry}/charts/alpha --destination pulled --untar --plain-http --version 0.1.0", None),
    ("pull oci://{registry}/charts/alpha --destination pulled --untar --plain-http --version 0.1.0", None),
    // The chart read, rendered and installed from the registry.
    ("show chart oci://{registry}/charts/alpha --plain-http", None),
    ("show values oci://{registry}/charts/alpha --plain-http --version 0.1.0", None),
    ("template one oci://{registry}/charts/alpha --plain-http --version 0.1.0 --set size=3", None),
    (
        "upgrade --install alpha oci://{registry}/charts/alpha --version 0.1.0 --plain-http --namespace team-a \
         --create-namespace --wait",
        None,
    ),
    ("list --namespace team-a", None),
    ("get manifest alpha --namespace team-a", None),
    // A tag in the reference, a version the registry lacks, a chart it lacks.
    ("pull oci://{registry}/charts/alpha:0.1.0 --plain-http -d pulled", None),
    ("pull oci://{registry}/charts/alpha --version 9.9.9 --plain-http", None),
    ("pull oci://{registry}/charts/nothing --plain-http", None),
    ("install gamma oci://{registry}/charts/alpha --version 9.9.9 --plain-http --namespace team-a", None),
    // Version constraints, and the manifest's digest (`{digest}`: what the push printed).
    ("show chart oci://{registry}/charts/alpha --plain-http --version ^0.1", None),
    ("pull oci://{registry}/charts/alpha --version ~0.1 --plain-http -d .", None),
    ("template two oci://{registry}/charts/alpha:0.1.0 --plain-http", None),
    ("pull oci://{registry}/charts/alpha@{digest} --plain-http -d .", None),
    ("show chart oci://{registry}/charts/alpha:0.1.0@{digest} --plain-http", None),
    // A chart depending on the registry's chart (helmfile runs `dependency build` for local charts).
    ("dependency list ./withdep", None),
    ("dependency update ./withdep --plain-http", None),
    ("dependency build ./withdep --plain-http", None),
    ("dependency list ./withdep", None),
    ("template three ./withdep", None),
    // Logging out, twice, then the registry asks again.
    ("registry logout {registry}", None),
    ("registry logout {registry}", None),
    ("pull oci://{registry}/charts/alpha --version 0.1.0 --plain-http -d after-logout", None),
];

/// A side's registry, and a chart depending on the registry's `alpha` in its directory (`withdep`).
fn prepare(dir: &Path, registry: Option<Registry>) -> Option<Setup> {
    let registry = registry?;
    let chart = dir.join("withdep");
    std::fs::create_dir_all(chart.join("templates")).expect("chart directory");
    let dependency = format!(
        "apiVersion: v2\nname: withdep\nversion: 0.1.0\ndependencies:\n  - name: alpha\n    version: 0.1.0\n    \
         repository: oci://{}/charts\n",
        registry.host
    );
    std::fs::write(chart.join("Chart.yaml"), dependency).expect("Chart.yaml");
    let template = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-withdep\n";
    std::fs::write(chart.join("templates/configmap.yaml"), template).expect("template");
    let mut values = vec![("{registry}", registry.host.clone())];
    values.extend(registry.ca_file.as_ref().map(|path| ("{ca_file}", path.display().to_string())));
    values.extend(registry.token_host().map(|host| ("{token_service}", host)));
    Some(Setup { values, servers: Box::new(registry) })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn helmfiles_registry_lines_answer_as_helm_4() {
    assert_none(&differences(LINES, |dir| prepare(dir, Registry::start(true))).await, LINES.len());
}

/// A registry whose token service hands out bearer tokens (as ghcr.io, Docker Hub, Harbor do).
const TOKEN_LINES: &[Line] = &[
    ("pull oci://{registry}/charts/alpha --version 0.1.0 --plain-http -d .", None),
    ("push alpha-0.1.0.tgz oci://{registry}/charts --plain-http", None),
    ("registry login {registry} --username {user} --password-stdin --plain-http", Some("not-the-password\n")),
    ("registry login {registry} --username {user} --password-stdin --plain-http", Some("{password}\n")),
    ("push alpha-0.1.0.tgz oci://{registry}/charts --plain-http", None),
    ("show chart oci://{registry}/charts/alpha --plain-http", None),
    ("pull oci://{registry}/charts/alpha --destination pulled --untar --plain-http --version 0.1.0", None),
    ("pull oci://{registry}/charts/alpha --version 9.9.9 --plain-http", None),
    ("registry logout {registry}", None),
    ("show chart oci://{registry}/charts/alpha --plain-http --version 0.1.0", None),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registries_asking_for_bearer_tokens_answer_as_helm_4() {
    assert_none(
        &differences(TOKEN_LINES, |dir| prepare(dir, Registry::start_with(RegistryAuth::Token))).await,
        TOKEN_LINES.len(),
    );
}

/// A registry on HTTPS whose certificate a CA of the test's signed (`{ca_file}`).
const TLS_LINES: &[Line] = &[
    ("push alpha-0.1.0.tgz oci://{registry}/charts", None),
    ("push alpha-0.1.0.tgz oci://{registry}/charts --ca-file {ca_file}", None),
    ("pull oci://{registry}/charts/alpha --version 0.1.0 -d .", None),
    ("pull oci://{registry}/charts/alpha --version 0.1.0 -d . --ca-file {ca_file}", None),
    (
        "pull oci://{registry}/charts/alpha --version 0.1.0 --destination pulled --untar --insecure-skip-tls-verify",
        None,
    ),
    ("show chart oci://{registry}/charts/alpha --ca-file {ca_file}", None),
    ("template one oci://{registry}/charts/alpha --version 0.1.0 --insecure-skip-tls-verify", None),
    ("registry login {registry} --username {user} --password-stdin", Some("{password}\n")),
    ("registry login {registry} --username {user} --password-stdin --ca-file {ca_file}", Some("{password}\n")),
    ("registry login {registry} --username {user} --password-stdin --insecure", Some("{password}\n")),
    ("registry logout {registry}", None),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registries_on_https_answer_as_helm_4() {
    assert_none(&differences(TLS_LINES, |dir| prepare(dir, Registry::start_tls())).await, TLS_LINES.len());
}
