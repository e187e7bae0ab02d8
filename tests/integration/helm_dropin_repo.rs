//! berth as a drop-in `helm` with a classic chart repository behind basic auth: the command lines helmfile v1.x
//! issues for its `repositories:` (`pkg/helmexec/exec.go` `AddRepo`: `repo add NAME URL --force-update
//! --username U --password-stdin`; `UpdateRepo`: `repo update`) and for releases of their charts, and those a CI
//! job runs, each through real Helm 4.1.4 and through berth as `helm` (`dropin_lines.rs` says how they are
//! compared). Each side has its own repository: the drop-in table's `alpha` chart, packaged by real Helm, indexed
//! by real Helm and served over HTTP with basic auth.

use crate::dropin_lines::{Line, Setup, assert_none, differences};
use crate::peers::peers_dir;
use crate::sources_support::{FileServer, PASSWORD, USER};
use std::path::Path;
use std::process::Command;

const LINES: &[Line] = &[
    // helmfile's AddRepo: refused without credentials and with a wrong password, then added (twice: helmfile
    // always passes --force-update), and another URL under the same name without it.
    ("repo add charts {repo_url}", None),
    ("repo add charts {repo_url} --force-update --username {user} --password-stdin", Some("not-the-password\n")),
    ("repo add charts {repo_url} --force-update --username {user} --password-stdin", Some("{password}\n")),
    ("repo add charts {repo_url} --force-update --username {user} --password-stdin", Some("{password}\n")),
    ("repo add charts {repo_url}/other --username {user} --password-stdin", Some("{password}\n")),
    ("repo list", None),
    ("repo list -o json", None),
    // helmfile's UpdateRepo, and one repository by name.
    ("repo update", None),
    ("repo update charts", None),
    ("repo update nothing", None),
    ("search repo charts/", None),
    ("search repo alpha --versions -o json", None),
    ("search repo alpha --version >=1", None),
    // The repository's chart read, pulled as helmfile pulls it, rendered and installed.
    ("show chart charts/alpha --version 0.1.0", None),
    ("pull charts/alpha --version 0.1.0 --destination pulled --untar", None),
    ("pull charts/alpha --version 0.1.0 --destination pulled --untar", None),
    ("template one charts/alpha --version 0.1.x --set size=3", None),
    ("upgrade --install alpha charts/alpha --version 0.1.0 --namespace team-a --create-namespace --wait", None),
    ("list --namespace team-a", None),
    ("pull charts/nothing", None),
    ("pull charts/alpha --version 9.9.9", None),
    // A chart depending on the repository's chart, by URL (helmfile runs `dependency build` for local charts).
    ("dependency list ./withrepo", None),
    ("dependency build ./withrepo", None),
    ("dependency update ./withrepo", None),
    ("dependency build ./withrepo", None),
    ("dependency list ./withrepo", None),
    ("template three ./withrepo", None),
    // Removed, twice; then its charts are unknown.
    ("repo remove charts", None),
    ("repo remove charts", None),
    ("show chart charts/alpha", None),
];

/// A side's repository (its index written by real Helm for its URL), and a chart depending on its `alpha`.
fn prepare(dir: &Path) -> Option<Setup> {
    let served = dir.join("served");
    std::fs::create_dir_all(&served).expect("served directory");
    std::fs::copy(dir.join("alpha-0.1.0.tgz"), served.join("alpha-0.1.0.tgz")).expect("archive served");
    let server = FileServer::start_with_auth(&served, Some((USER, PASSWORD)));
    let indexed = Command::new(peers_dir().join("helm"))
        .args(["repo", "index", &served.display().to_string(), "--url", &server.url])
        .env("HOME", dir.join("indexing-home"))
        .output()
        .expect("helm repo index runs");
    assert!(indexed.status.success(), "{}", String::from_utf8_lossy(&indexed.stderr));
    let chart = dir.join("withrepo");
    std::fs::create_dir_all(chart.join("templates")).expect("chart directory");
    let dependency = format!(
        "apiVersion: v2\nname: withrepo\nversion: 0.1.0\ndependencies:\n  - name: alpha\n    version: 0.1.0\n    \
         repository: {}\n",
        server.url
    );
    std::fs::write(chart.join("Chart.yaml"), dependency).expect("Chart.yaml");
    let template = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-withrepo\n";
    std::fs::write(chart.join("templates/configmap.yaml"), template).expect("template");
    let host = server.url.trim_start_matches("http://").trim_end_matches('/').to_string();
    let values = vec![("{repo_url}", server.url.clone()), ("{repo_host}", host)];
    Some(Setup { values, servers: Box::new(server) })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn helmfiles_repository_lines_answer_as_helm_4() {
    assert_none(&differences(LINES, prepare).await, LINES.len());
}
