//! The bad-input corpus (`tests/data/bad-input/`, issue 14 item 7): every case exits 2 with the message its
//! header expects, and nothing at all is written to the simulated cluster.

use crate::peers::PeerCluster;
use berth_sim::SimConfig;
use std::path::{Path, PathBuf};

/// One case: its file, the texts stderr must hold, the command line.
struct Case {
    path: PathBuf,
    expect: Vec<String>,
    run: String,
}

fn cases() -> Vec<Case> {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bad-input");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&directory)
        .expect("the corpus directory")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| matches!(path.extension().and_then(|extension| extension.to_str()), Some("yaml" | "json")))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            // JSON has no comments: its header is in a sibling `.expect` file.
            let header = if path.extension().is_some_and(|extension| extension == "json") {
                path.with_extension("expect")
            } else {
                path.clone()
            };
            let text = std::fs::read_to_string(&header).expect("a readable header");
            let mut expect = Vec::new();
            let mut run = "apply -f {file}".to_string();
            for line in text.lines().take_while(|line| line.starts_with('#')) {
                if let Some(text) = line.strip_prefix("# expect: ") {
                    expect.push(text.to_string());
                } else if let Some(text) = line.strip_prefix("# run: ") {
                    run = text.to_string();
                }
            }
            assert!(!expect.is_empty(), "{} says what to expect", path.display());
            Case { path, expect, run }
        })
        .collect()
}

/// Runs a case; `None` when it went as expected, else what went wrong.
fn check(case: &Case, kubeconfig: &Path) -> Option<String> {
    let relative = case.path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(&case.path);
    let line = case.run.replace("{file}", &relative.display().to_string());
    let output = crate::run::command(&line.split_whitespace().collect::<Vec<_>>())
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .output()
        .expect("berth runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let missing: Vec<&String> = case.expect.iter().filter(|text| !stderr.contains(text.as_str())).collect();
    if output.status.code() == Some(2) && missing.is_empty() {
        return None;
    }
    Some(format!("{}: exit {:?}, missing {missing:?}\n{stderr}", relative.display(), output.status.code()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_bad_input_exits_2_with_its_message_and_writes_nothing() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let before = peer.cluster.record().len();
    let cases = cases();
    assert!(cases.len() >= 100, "{} cases", cases.len());
    let kubeconfig = peer.kubeconfig();
    let failures = tokio::task::spawn_blocking(move || {
        let chunks: Vec<&[Case]> = cases.chunks(cases.len().div_ceil(4)).collect();
        std::thread::scope(|scope| {
            let handles: Vec<_> = chunks
                .into_iter()
                .map(|chunk| {
                    let kubeconfig = &kubeconfig;
                    scope.spawn(move || chunk.iter().filter_map(|case| check(case, kubeconfig)).collect::<Vec<_>>())
                })
                .collect();
            handles.into_iter().flat_map(|handle| handle.join().unwrap_or_default()).collect::<Vec<_>>()
        })
    })
    .await
    .expect("joined");
    assert!(failures.is_empty(), "{} cases went wrong:\n{}", failures.len(), failures.join("\n"));
    let writes: Vec<String> =
        peer.cluster.record()[before..].iter().map(|entry| format!("{} by {}", entry.kind(), entry.manager)).collect();
    assert!(writes.is_empty(), "the corpus wrote {writes:?}");
}
