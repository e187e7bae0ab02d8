//! `helm search hub` against a local hub: a loopback server answering the Monocular search API (as Artifact Hub
//! serves it) for real Helm 4.1.4 and for berth as `helm`, the same command lines compared: stdout, stderr's
//! first line, exit status, and the request each sent. A hub answering without end is cut off by berth.

use crate::helm_commands::{Program, run_in, text};
use crate::hostile_server::{Answer, Framing, HostileServer, Request};
use std::sync::{Arc, Mutex};

/// Three charts: an Artifact Hub result (its `packageUrl` is the link), a Monocular one (the link is built from
/// the endpoint and the id), and one with text JSON and tables must escape or cut.
const CHARTS: &str = r#"{"data": [
  {"id": "bitnami/nginx", "type": "chart",
   "artifactHub": {"packageUrl": "https://artifacthub.io/packages/helm/bitnami/nginx"},
   "attributes": {"name": "nginx", "description": "NGINX Open Source is a web server that can be also used as a reverse proxy, load balancer and HTTP cache",
     "repo": {"name": "bitnami", "url": "https://charts.bitnami.com/bitnami"}},
   "relationships": {"latestChartVersion": {"data": {"version": "15.1.0", "app_version": "1.25.1",
     "created": "2024-01-01T00:00:00Z"}}}},
  {"id": "stable/nginx-ingress",
   "attributes": {"description": "An nginx Ingress controller", "repo": {"name": "stable", "url": "https://charts.helm.sh/stable"}},
   "relationships": {"latestChartVersion": {"data": {"version": "1.41.3", "app_version": "v0.34.1"}}}},
  {"id": "tools/proxy", "artifactHub": {"packageUrl": ""},
   "attributes": {"description": "Tools <for> nginx & 名前 — ünïcode", "repo": {"name": "tools", "url": "https://tools.example/charts"}},
   "relationships": {"latestChartVersion": {"data": {"version": "0.1.0"}}}}
]}"#;

/// The hub's answer to a request: the charts for `nginx`, a 500 for `broken`, none for anything else.
fn answer(request: &Request) -> Answer {
    if request.path() != "/api/chartsvc/v1/charts/search" {
        return Answer::new(404, "not found");
    }
    let query = request.target.split_once('?').map(|(_, query)| query).unwrap_or_default();
    match query {
        "q=nginx" | "q=web+server" => Answer::new(200, CHARTS).header("Content-Type", "application/json"),
        "q=broken" => Answer::new(500, "{\"error\": \"internal\"}"),
        _ => Answer::new(200, "{\"data\": []}"),
    }
}

/// The first line of stderr.
fn first_line(stderr: &[u8]) -> String {
    text(stderr).lines().next().unwrap_or_default().to_string()
}

#[test]
fn search_hub_prints_what_helm_prints() {
    let requests = Arc::new(Mutex::new(Vec::new()));
    let seen = requests.clone();
    let hub = HostileServer::start(move |request| {
        seen.lock().unwrap().push(request.target.clone());
        answer(request)
    });
    let endpoint = hub.url.clone();
    let table: [&[&str]; 13] = [
        &["nginx"],
        &["web", "server"],
        &["nginx", "-o", "json"],
        &["nginx", "--output", "yaml"],
        &["nginx", "--list-repo-url"],
        &["nginx", "--max-col-width", "10"],
        &["nginx", "--max-col-width", "0", "--list-repo-url"],
        &["zzz"],
        &["zzz", "-o", "json"],
        &["zzz", "-o", "yaml"],
        &["zzz", "--fail-on-no-result"],
        &["zzz", "--fail-on-no-result", "-o", "json"],
        &["broken"],
    ];
    for keywords in table {
        let mut args = vec!["search", "hub"];
        args.extend_from_slice(keywords);
        args.extend_from_slice(&["--endpoint", &endpoint]);
        let [helm, berth] =
            [(Program::Helm, &[][..]), (Program::Berth, &[("BERTH_HELM", "1")][..])].map(|(program, variables)| {
                let home = tempfile::tempdir().unwrap();
                let before = requests.lock().unwrap().len();
                let output = run_in(program, &args, home.path(), home.path(), variables);
                let sent = requests.lock().unwrap()[before..].to_vec();
                (output, sent)
            });
        let ((helm, helm_sent), (berth, berth_sent)) = (helm, berth);
        assert_eq!(text(&berth.stdout), text(&helm.stdout), "stdout of {args:?}");
        assert_eq!(first_line(&berth.stderr), first_line(&helm.stderr), "stderr of {args:?}");
        assert_eq!(berth.status.code(), helm.status.code(), "exit status of {args:?}");
        assert_eq!(berth_sent, helm_sent, "requests of {args:?}");
        assert_eq!(helm_sent.len(), 1, "{args:?}");
    }
    // The endpoint as Helm checks it, and one nothing listens on (berth's timeout is never reached: refused).
    let closed = format!("http://127.0.0.1:{}", crate::sources_support::closed_port());
    for endpoint in ["hub.example.com", "localhost:8080", closed.as_str()] {
        let args = ["search", "hub", "nginx", "--endpoint", endpoint];
        let [helm, berth] =
            [(Program::Helm, &[][..]), (Program::Berth, &[("BERTH_HELM", "1")][..])].map(|(program, variables)| {
                let home = tempfile::tempdir().unwrap();
                run_in(program, &args, home.path(), home.path(), variables)
            });
        assert_eq!(first_line(&berth.stderr), first_line(&helm.stderr), "stderr of {args:?}");
        assert_eq!((berth.status.code(), helm.status.code()), (Some(1), Some(1)), "{args:?}");
        assert!(helm.stdout.is_empty() && berth.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn a_hub_answering_without_end_is_cut_off() {
    let hub =
        HostileServer::start(|_| Answer::new(200, "{\"data\": [").endless(&b"{\"id\": \"x\"},"[..], Framing::Chunked));
    let home = tempfile::tempdir().unwrap();
    let args = ["search", "hub", "x", "--endpoint", hub.url.as_str()];
    let as_helm = run_in(Program::Berth, &args, home.path(), home.path(), &[("BERTH_HELM", "1")]);
    assert_eq!(as_helm.status.code(), Some(1));
    assert_eq!(first_line(&as_helm.stderr), format!("Error: unable to perform search against {:?}", hub.url));
    // As berth, the cause is said: the body passed the bound.
    let as_berth = run_in(Program::Berth, &args, home.path(), home.path(), &[]);
    assert_eq!(as_berth.status.code(), Some(2));
    let stderr = text(&as_berth.stderr);
    assert!(stderr.contains("is larger than berth's limit of 32 MiB"), "{stderr}");
}
