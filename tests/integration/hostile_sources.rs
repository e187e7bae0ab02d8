//! Hostile chart sources, each case run as the berth binary in a child process with bounds (60 s kill limit,
//! 512 MiB peak RSS from `wait4`): archives that try to write outside `pull --untar`'s directory
//! (tests/data/hostile/sources/, made by its make_archives.py), and a hostile HTTP server on loopback that streams
//! without end, lies in `Content-Length`, answers with terminal escape sequences, a token without end, a chunked
//! manifest past 4 MiB, a blob past its descriptor's size, and an index whose digest YAML reads as a number.
//!
//! Every case prints one line `CASE: exit N, T s, peak RSS M MiB` (docs/BENCHMARKS.md, "Hostile inputs: chart
//! sources"); `BERTH_HOSTILE_BIN=PATH` runs another build of berth, to measure it before a fix.

use crate::bounded::{BoundedRun, run_bounded};
use crate::hostile_server::{Answer, Framing, HostileServer, Request};
use crate::sources_support::{FileServer, SourceEnv};
use berth_source::oci::manifest::sha256_hex;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `assert!`, unless another build is measured (`BERTH_HOSTILE_BIN`): then a failed expectation is printed, as a
/// finding about that build, and the cases go on.
macro_rules! expect {
    ($condition:expr, $($message:tt)+) => {
        if !$condition {
            let message = format!($($message)+);
            if std::env::var_os("BERTH_HOSTILE_BIN").is_some() {
                println!("hostile-sources FAILS: {}", message.lines().next().unwrap_or_default());
            } else {
                panic!("{message}");
            }
        }
    };
}

/// `assert_eq!` as [`expect!`].
macro_rules! expect_eq {
    ($left:expr, $right:expr, $($message:tt)+) => {
        let (left, right) = ($left, $right);
        expect!(left == right, "{left:?} != {right:?}: {}", format!($($message)+));
    };
}

const KILL_AFTER: Duration = Duration::from_secs(60);
const RSS_MIB: u64 = 512;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/hostile/sources")
}

fn corpus_file(name: &str) -> Vec<u8> {
    std::fs::read(corpus().join(name)).unwrap_or_else(|error| panic!("{name}: {error}"))
}

/// Runs one case, prints its measurement line, and holds it to the bounds.
fn run(env: &SourceEnv, case: &str, args: &[&str]) -> BoundedRun {
    let run = run_bounded(env.berth_command(args), KILL_AFTER);
    println!("hostile-sources {}", run.summary(case));
    expect!(!run.killed, "{case}: still running after the kill limit");
    expect!(run.peak_rss_kib < RSS_MIB * 1024, "{case}: peak RSS over {RSS_MIB} MiB");
    run
}

/// Refused with exit 2 and `needle` in the message; no control character but the line ends reached the output.
fn assert_refused(case: &str, run: &BoundedRun, needle: &str) {
    let stderr = run.stderr_text();
    expect_eq!(run.code, Some(2), "{case}: {stderr}");
    expect!(stderr.contains(needle), "{case}: {needle:?} not in {stderr}");
    for (stream, text) in [("stdout", run.stdout_text()), ("stderr", stderr)] {
        let control = text.chars().find(|c| (c.is_control() && *c != '\n') || ('\u{202a}'..='\u{202e}').contains(c));
        expect_eq!(control, None, "{case}: a control character reached {stream}: {text:?}");
    }
}

/// Every path under `root`, relative, sorted.
fn listing(root: &Path) -> Vec<String> {
    let mut names = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable directory").flatten() {
            let path = entry.path();
            names.push(path.strip_prefix(root).expect("under root").display().to_string());
            if std::fs::symlink_metadata(&path).is_ok_and(|metadata| metadata.is_dir()) {
                stack.push(path);
            }
        }
    }
    names.sort();
    names
}

#[test]
fn untarred_archives_write_nothing_outside_their_directory_and_nothing_when_refused() {
    let env = SourceEnv::new();
    let server = FileServer::start(&corpus());
    let table = [
        ("untar-empty-name.tgz", "chart name not specified"),
        ("untar-no-name.tgz", "chart name not specified"),
        ("untar-dot-name.tgz", "chart name \".\" is not allowed"),
        ("untar-dotdot-name.tgz", "chart name \"..\" is not allowed"),
        ("untar-slash-name.tgz", "chart name \"../../escaped\" must not contain path separators"),
        ("untar-backslash-name.tgz", "must not contain path separators"),
        ("untar-symlink-outside.tgz", "is a link to \"/etc/passwd\", outside the chart"),
        ("untar-symlink-climbing.tgz", "is a link to \"../../../.ssh\", outside the chart"),
        ("untar-hardlink-outside.tgz", "outside the chart"),
        ("untar-absolute-entry.tgz", "chart illegally contains absolute paths"),
        ("untar-parent-entry.tgz", "chart illegally references parent directory"),
    ];
    for (archive, needle) in table {
        // The untar directory is a home directory of its own, inside a parent that must stay empty too.
        let parent = env.subdir(&format!("untar-{archive}"));
        let home = parent.join("home");
        std::fs::create_dir_all(&home).expect("home");
        std::fs::write(home.join(".bashrc"), "# mine\n").expect(".bashrc");
        let url = format!("{}/{archive}", server.url);
        let refused = run(&env, archive, &["pull", &url, "--untar", "-d", &home.display().to_string()]);
        assert_refused(archive, &refused, needle);
        expect_eq!(listing(&parent), ["home", "home/.bashrc"], "{archive}: nothing written");
        let bashrc = std::fs::read_to_string(home.join(".bashrc")).ok();
        expect_eq!(bashrc.as_deref(), Some("# mine\n"), "{archive}: .bashrc kept");
    }
    expect!(!Path::new("/tmp/berth-hostile-absolute").exists(), "an absolute entry was written");

    // The well-formed chart of the corpus unpacks, and not over a directory that exists.
    let home = env.subdir("untar-well-formed");
    let url = format!("{}/app-1.0.0.tgz", server.url);
    let pulled = run(&env, "untar-well-formed", &["pull", &url, "--untar", "-d", &home.display().to_string()]);
    expect_eq!(pulled.code, Some(0), "{}", pulled.stderr_text());
    let unpacked = ["app", "app/.bashrc", "app/Chart.yaml", "app/templates", "app/templates/cm.yaml"];
    expect_eq!(listing(&home), unpacked, "the well-formed chart unpacked");
}

/// A classic repository whose `index.yaml` and archive are answered by `index` and `chart`.
fn repository(
    index: impl Fn() -> Answer + Send + Sync + 'static,
    chart: impl Fn() -> Answer + Send + Sync + 'static,
) -> HostileServer {
    HostileServer::start(move |request: &Request| match request.path() {
        "/index.yaml" => index(),
        "/app-1.0.0.tgz" => chart(),
        _ => Answer::new(404, "not found"),
    })
}

fn index_of_app(digest: &str) -> String {
    format!(
        "apiVersion: v1\nentries:\n  app:\n  - apiVersion: v2\n    name: app\n    version: 1.0.0\n    digest: {digest}\n    \
         urls:\n    - app-1.0.0.tgz\n"
    )
}

#[test]
fn repository_answers_are_bounded_and_their_text_escaped() {
    let env = SourceEnv::new();
    let index_head = "apiVersion: v1\nentries: {}\n";

    let endless = repository(
        move || Answer::new(200, index_head).endless("# an index that never ends\n", Framing::Chunked),
        || Answer::new(404, ""),
    );
    let refused = run(&env, "index-endless-chunked", &["repo", "add", "endless", &endless.url]);
    assert_refused("index-endless-chunked", &refused, "larger than berth's limit of 128 MiB");

    let lying = repository(
        move || Answer::new(200, index_head).endless("#", Framing::Length(Some(1 << 40))),
        || Answer::new(404, ""),
    );
    let refused = run(&env, "index-lying-content-length", &["repo", "add", "lying", &lying.url]);
    assert_refused("index-lying-content-length", &refused, "larger than berth's limit of 128 MiB");

    let escapes = HostileServer::start(|_: &Request| {
        let mut answer = Answer::new(404, "\u{1b}]0;pwned\u{7}");
        answer.status_line = "404 \u{1b}]0;pwned\u{7}\u{1b}[2J".to_string();
        answer
    });
    let refused = run(&env, "repository-status-escapes", &["repo", "add", "escapes", &escapes.url]);
    // hyper refuses such a status line before berth could show it.
    assert_refused("repository-status-escapes", &refused, "invalid HTTP status-code parsed");

    // A chart without end behind an index that is well-formed.
    let archive = corpus_file("app-1.0.0.tgz");
    let digest = sha256_hex(&archive);
    let chart_endless = repository(
        move || Answer::new(200, index_of_app(&digest)),
        || Answer::new(200, "").endless("\u{1f}\u{8b}", Framing::Close),
    );
    env.berth_ok(&["repo", "add", "chart-endless", &chart_endless.url]);
    let destination = env.subdir("chart-endless");
    let refused = run(&env, "chart-endless", &["pull", "chart-endless/app", "-d", &destination.display().to_string()]);
    assert_refused("chart-endless", &refused, "the chart archive from");
    expect!(refused.stderr_text().contains("larger than berth's limit of 128 MiB"), "{}", refused.stderr_text());
    expect!(listing(&destination).is_empty(), "nothing written");

    // A digest YAML reads as a number: no sha256, so the chart is refused, never taken unchecked.
    let numeric = corpus_file("index-numeric-digest.yaml");
    let served = archive.clone();
    let numeric_digest =
        repository(move || Answer::new(200, numeric.clone()), move || Answer::new(200, served.clone()));
    env.berth_ok(&["repo", "add", "numeric", &numeric_digest.url]);
    let destination = env.subdir("numeric-digest");
    let refused = run(&env, "index-numeric-digest", &["pull", "numeric/app", "-d", &destination.display().to_string()]);
    assert_refused("index-numeric-digest", &refused, "invalid digest \"1.2345678901234568e+63\"");
    expect!(listing(&destination).is_empty(), "nothing written");

    // And a digest that is a sha256 but not the archive's.
    let served = archive.clone();
    let other = repository(
        move || Answer::new(200, index_of_app(&format!("sha256:{}", "0".repeat(64)))),
        move || Answer::new(200, served.clone()),
    );
    env.berth_ok(&["repo", "add", "mismatch", &other.url]);
    let destination = env.subdir("digest-mismatch");
    let refused =
        run(&env, "index-digest-mismatch", &["pull", "mismatch/app", "-d", &destination.display().to_string()]);
    assert_refused("index-digest-mismatch", &refused, "digest mismatch");
    expect!(listing(&destination).is_empty(), "nothing written");
}

/// A registry serving `charts/app:1.0.0` (the corpus chart), with `tweak` answering first where it wants to.
fn registry(tweak: impl Fn(&Request, &Registry) -> Option<Answer> + Send + Sync + 'static) -> HostileServer {
    let archive = corpus_file("app-1.0.0.tgz");
    let config = br#"{"apiVersion":"v2","name":"app","version":"1.0.0"}"#.to_vec();
    let registry = Registry { manifest: manifest(&config, &archive), config, archive };
    HostileServer::start(move |request: &Request| {
        if let Some(answer) = tweak(request, &registry) {
            return answer;
        }
        let blob = |data: &[u8]| format!("/v2/charts/app/blobs/sha256:{}", sha256_hex(data));
        match request.path() {
            "/v2/charts/app/manifests/1.0.0" => Answer::new(200, registry.manifest.clone())
                .header("Content-Type", "application/vnd.oci.image.manifest.v1+json"),
            path if path == blob(&registry.config) => Answer::new(200, registry.config.clone()),
            path if path == blob(&registry.archive) => Answer::new(200, registry.archive.clone()),
            _ => Answer::new(404, r#"{"errors":[{"code":"NAME_UNKNOWN","message":"no such thing"}]}"#),
        }
    })
}

/// What the registry serves.
struct Registry {
    manifest: Vec<u8>,
    config: Vec<u8>,
    archive: Vec<u8>,
}

/// Helm's chart manifest for `config` and the chart layer `archive`.
fn manifest(config: &[u8], archive: &[u8]) -> Vec<u8> {
    serde_json::json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {
            "mediaType": "application/vnd.cncf.helm.config.v1+json",
            "digest": format!("sha256:{}", sha256_hex(config)),
            "size": config.len()
        },
        "layers": [{
            "mediaType": "application/vnd.cncf.helm.chart.content.v1.tar+gzip",
            "digest": format!("sha256:{}", sha256_hex(archive)),
            "size": archive.len()
        }]
    })
    .to_string()
    .into_bytes()
}

fn is_layer(request: &Request, registry: &Registry) -> bool {
    request.path().ends_with(&sha256_hex(&registry.archive))
}

#[test]
fn registry_answers_are_bounded_and_their_text_escaped() {
    let env = SourceEnv::new();
    let destination = env.subdir("pulled");
    let pull = |server: &HostileServer, case: &str, version: Option<&str>| -> BoundedRun {
        let chart = format!("oci://{}/charts/app", server.host);
        let target = destination.display().to_string();
        let mut args = vec!["pull", chart.as_str(), "--plain-http", "-d", target.as_str()];
        if let Some(version) = version {
            args.extend(["--version", version]);
        }
        let refused = run(&env, case, &args);
        expect!(listing(&destination).is_empty(), "{case}: nothing written");
        refused
    };

    // The well-formed registry serves the chart (the cases below differ from it in one answer each).
    let well_formed = registry(|_, _| None);
    let pulled = run(
        &env,
        "registry-well-formed",
        &[
            "pull",
            &format!("oci://{}/charts/app", well_formed.host),
            "--version",
            "1.0.0",
            "--plain-http",
            "-d",
            &env.subdir("well-formed").display().to_string(),
        ],
    );
    expect_eq!(pulled.code, Some(0), "{}", pulled.stderr_text());

    let error_endless = registry(|request, _| {
        request.path().contains("/manifests/").then(|| Answer::new(500, "{").endless("\"errors\":[", Framing::Chunked))
    });
    let refused = pull(&error_endless, "registry-error-endless", Some("1.0.0"));
    assert_refused("registry-error-endless", &refused, "response status code 500");

    let escapes = corpus_file("registry-error-escapes.json");
    // A 403 (a 404 of a manifest reads `REFERENCE: not found`, oras-go's words, without the server's text).
    let escaping =
        registry(move |request, _| request.path().contains("/manifests/").then(|| Answer::new(403, escapes.clone())));
    let refused = pull(&escaping, "registry-error-escapes", Some("1.0.0"));
    assert_refused("registry-error-escapes", &refused, "denied: \\u{1b}]0;pwned\\u{7}\\u{1b}[2J");

    let token_endless = registry(|request, _| {
        if request.path() == "/token" {
            return Some(Answer::new(200, "{\"token\":\"").endless("A", Framing::Chunked));
        }
        request.authorization.is_none().then(|| {
            Answer::new(401, r#"{"errors":[{"code":"UNAUTHORIZED"}]}"#).header(
                "WWW-Authenticate",
                &format!("Bearer realm=\"http://{}/token\",service=\"hostile\"", request.host),
            )
        })
    });
    let refused = pull(&token_endless, "token-endless", Some("1.0.0"));
    assert_refused("token-endless", &refused, "token service's answer from");
    expect!(refused.stderr_text().contains("larger than berth's limit of 1 MiB"), "{}", refused.stderr_text());

    let manifest_endless = registry(|request, _| {
        request.path().contains("/manifests/").then(|| {
            Answer::new(200, "{\"schemaVersion\":2,\"annotations\":{\"padding\":\"")
                .header("Content-Type", "application/vnd.oci.image.manifest.v1+json")
                .endless("x", Framing::Chunked)
        })
    });
    let refused = pull(&manifest_endless, "manifest-chunked-endless", Some("1.0.0"));
    assert_refused("manifest-chunked-endless", &refused, "larger than berth's limit of 4 MiB");

    let blob_endless = registry(|request, registry| {
        is_layer(request, registry).then(|| Answer::new(200, registry.archive.clone()).endless("more", Framing::Close))
    });
    let refused = pull(&blob_endless, "blob-past-descriptor", Some("1.0.0"));
    let size = corpus_file("app-1.0.0.tgz").len();
    assert_refused("blob-past-descriptor", &refused, &format!("larger than the {size} bytes its descriptor declares"));

    let blob_lying = registry(|request, registry| {
        is_layer(request, registry)
            .then(|| Answer::new(200, registry.archive.clone()).endless("more", Framing::Length(Some(1 << 40))))
    });
    let refused = pull(&blob_lying, "blob-lying-content-length", Some("1.0.0"));
    assert_refused("blob-lying-content-length", &refused, "announces 1099511627776 bytes for blob");

    let tags_endless = registry(|request, _| {
        request
            .path()
            .ends_with("/tags/list")
            .then(|| Answer::new(200, "{\"name\":\"charts/app\",\"tags\":[").endless("\"1.0.0\",", Framing::Chunked))
    });
    let refused = pull(&tags_endless, "tags-endless", None);
    assert_refused("tags-endless", &refused, "larger than berth's limit of 4 MiB");
}
