//! Credentials are never printed: a password in a repository URL, in `repositories.yaml`, on the command line or in
//! a chart's dependency list, and a registry token or password (even when a hostile registry echoes what it was
//! sent), appear in no output of any chart-source command, stdout or stderr, at the highest verbosity (`-vvv`,
//! `BERTH_LOG=trace`). Each command fails as it should (the failure is where the secret used to show).

use crate::hostile_server::{Answer, HostileServer, Request};
use crate::sources_support::{SourceEnv, closed_port};
use base64::Engine as _;
use std::process::Output;

const PASSWORD: &str = "pw-S3CRET-9f7";
const TOKEN: &str = "tok-S3CRET-4c1";

/// Every secret form that must not show: the password, the token, and the basic-auth encodings carrying them.
fn secrets() -> Vec<String> {
    let encode = |text: &str| base64::engine::general_purpose::STANDARD.encode(text);
    vec![
        PASSWORD.to_string(),
        TOKEN.to_string(),
        encode(&format!("user:{PASSWORD}")),
        encode(&format!("user:{TOKEN}")),
        "S3CRET".to_string(),
    ]
}

/// Runs `args` at the highest verbosity and checks that no secret is in its output; returns the output.
fn run_checked(env: &SourceEnv, args: &[&str], stdin: Option<&str>) -> Output {
    let mut all: Vec<&str> = args.to_vec();
    all.push("-vvv");
    let mut command = env.berth_command(&all);
    command.env("BERTH_LOG", "trace").env("RUST_LOG", "trace");
    let output = match stdin {
        None => command.output().expect("berth runs"),
        Some(text) => {
            use std::io::Write as _;
            command.stdin(std::process::Stdio::piped());
            let mut child = command.spawn().expect("berth starts");
            child.stdin.take().expect("stdin").write_all(text.as_bytes()).expect("stdin written");
            child.wait_with_output().expect("berth output")
        }
    };
    let shown = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    for secret in secrets() {
        assert!(!shown.contains(&secret), "berth {args:?} printed {secret:?}:\n{shown}");
    }
    output
}

fn failed(output: &Output) -> bool {
    !output.status.success() && !output.stderr.is_empty()
}

/// A server answering every request 404, and a registry that refuses every request and echoes what it was sent
/// (the `Authorization` header, decoded) in its error message.
fn servers() -> (HostileServer, HostileServer) {
    let nothing = HostileServer::start(|_: &Request| Answer::new(404, "not found"));
    let echoing = HostileServer::start(|request: &Request| {
        let sent = request.authorization.clone().unwrap_or_default();
        let decoded = sent
            .strip_prefix("Basic ")
            .and_then(|encoded| base64::engine::general_purpose::STANDARD.decode(encoded).ok())
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap_or_default();
        let body =
            serde_json::json!({"errors": [{"code": "DENIED", "message": format!("you sent {sent} ({decoded})")}]});
        let answer = Answer::new(if sent.is_empty() { 401 } else { 403 }, body.to_string());
        answer.header("WWW-Authenticate", "Basic realm=\"echo\"")
    });
    (nothing, echoing)
}

#[test]
fn repository_passwords_are_never_printed() {
    let env = SourceEnv::new();
    let (nothing, _) = servers();
    let unreachable = format!("http://user:{PASSWORD}@127.0.0.1:{}/charts", closed_port());
    let not_found = format!("http://user:{PASSWORD}@{}/charts", nothing.host);

    assert!(failed(&run_checked(&env, &["repo", "add", "down", &unreachable], None)));
    let refused = run_checked(&env, &["repo", "add", "missing", &not_found], None);
    assert!(failed(&refused) && String::from_utf8_lossy(&refused.stderr).contains("user:xxxxx@"), "{refused:?}");
    let flags = ["repo", "add", "flags", &nothing.url, "--username", "user", "--password", PASSWORD];
    assert!(failed(&run_checked(&env, &flags, None)));
    assert!(failed(&run_checked(
        &env,
        &["repo", "add", "stdin", &nothing.url, "--username", "user", "--password-stdin"],
        Some(PASSWORD)
    )));

    // Repositories Helm stored with passwords (in the URL and in the entry), none of them reachable.
    let config = env.home().join(".config/helm/repositories.yaml");
    std::fs::create_dir_all(config.parent().expect("parent")).expect("config directory");
    let entry = |name: &str, url: &str| {
        format!(
            "- name: {name}\n  url: {url}\n  username: user\n  password: {PASSWORD}\n  certFile: \"\"\n  keyFile: \"\"\n  \
             caFile: \"\"\n  insecure_skip_tls_verify: false\n  pass_credentials_all: true\n"
        )
    };
    std::fs::write(
        &config,
        format!(
            "apiVersion: \"\"\ngenerated: \"0001-01-01T00:00:00Z\"\nrepositories:\n{}{}",
            entry("down", &unreachable),
            entry("missing", &not_found)
        ),
    )
    .expect("repositories.yaml");
    let updated = run_checked(&env, &["repo", "update"], None);
    assert!(failed(&updated) && String::from_utf8_lossy(&updated.stdout).contains("Unable to get an update"));
    for format in ["table", "json", "yaml"] {
        let listed = run_checked(&env, &["repo", "list", "-o", format], None);
        assert!(String::from_utf8_lossy(&listed.stdout).contains("user:xxxxx@"), "{listed:?}");
    }

    // Charts named by URL, by --repo, and through the configured repository.
    let destination = env.subdir("pulled").display().to_string();
    let chart_url = format!("{not_found}/app-1.0.0.tgz");
    for args in [
        vec!["pull", chart_url.as_str(), "-d", destination.as_str()],
        vec!["pull", "app", "--repo", not_found.as_str(), "-d", destination.as_str()],
        vec!["pull", "app", "--repo", nothing.url.as_str(), "--username", "user", "--password", PASSWORD],
        vec!["pull", "missing/app", "-d", destination.as_str()],
        vec!["template", "demo", chart_url.as_str()],
        vec!["template", "demo", "app", "--repo", unreachable.as_str()],
        vec!["install", "demo", chart_url.as_str()],
        vec!["show", "chart", "app", "--repo", not_found.as_str()],
    ] {
        assert!(failed(&run_checked(&env, &args, None)), "{args:?}");
    }

    // A dependency whose repository URL carries the password.
    let chart = env.subdir("parent");
    std::fs::create_dir_all(chart.join("templates")).expect("templates");
    std::fs::write(
        chart.join("Chart.yaml"),
        format!(
            "apiVersion: v2\nname: parent\nversion: 1.0.0\ndependencies:\n- name: app\n  version: 1.0.0\n  repository: \
             {not_found}\n"
        ),
    )
    .expect("Chart.yaml");
    let chart_dir = chart.display().to_string();
    assert!(failed(&run_checked(&env, &["dependency", "update", &chart_dir], None)));
    assert!(failed(&run_checked(&env, &["dependency", "build", &chart_dir], None)));

    run_checked(&env, &["repo", "remove", "down", "missing"], None);
}

#[test]
fn registry_passwords_and_tokens_are_never_printed_even_when_echoed() {
    let env = SourceEnv::new();
    let (_, echoing) = servers();
    let reference = format!("oci://{}/charts/app", echoing.host);

    let login = ["registry", "login", echoing.host.as_str(), "--plain-http", "--username", "user", "--password", TOKEN];
    assert!(failed(&run_checked(&env, &login, None)));
    let stdin_login =
        ["registry", "login", echoing.host.as_str(), "--plain-http", "--username", "user", "--password-stdin"];
    assert!(failed(&run_checked(&env, &stdin_login, Some(TOKEN))));
    let in_host = format!("user:{TOKEN}@{}", echoing.host);
    assert!(failed(&run_checked(&env, &["registry", "login", &in_host, "--password", TOKEN], None)));

    let destination = env.subdir("pulled").display().to_string();
    let pull = ["pull", reference.as_str(), "--version", "1.0.0", "--plain-http", "-d", destination.as_str()];
    let with_credentials: Vec<&str> = pull.iter().copied().chain(["--username", "user", "--password", TOKEN]).collect();
    let refused = run_checked(&env, &with_credentials, None);
    assert!(
        failed(&refused) && String::from_utf8_lossy(&refused.stderr).contains("you sent Basic xxxxx"),
        "{refused:?}"
    );
    let in_reference = format!("oci://user:{TOKEN}@{}/charts/app", echoing.host);
    assert!(failed(&run_checked(&env, &["pull", &in_reference, "--version", "1.0.0", "--plain-http"], None)));
    let template = ["template", "demo", reference.as_str(), "--version", "1.0.0", "--plain-http"];
    let template: Vec<&str> = template.iter().copied().chain(["--username", "user", "--password", TOKEN]).collect();
    assert!(failed(&run_checked(&env, &template, None)));
}
