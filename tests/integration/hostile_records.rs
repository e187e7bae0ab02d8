//! Release records planted in a namespace, each a small Secret that decompresses to 100 MiB (issue 29): reading
//! them together (`history`, `status`, `list`) ends with an error naming berth's limit on one read, within bounded
//! memory, instead of holding every record at once. The records are written by the test, not committed.

use crate::bounded::run_bounded;
use crate::peers::PeerCluster;
use base64::Engine;
use berth_sim::SimConfig;
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, PostParams};
use std::io::Write;
use std::time::Duration;

/// What one planted record decompresses to: under the 128 MiB a single record may hold.
const RECORD_JSON_BYTES: usize = 100 << 20;

/// A gzip member of `bytes`.
fn member(bytes: &[u8]) -> Vec<u8> {
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gzip.write_all(bytes).expect("gzip in memory");
    gzip.finish().expect("gzip in memory")
}

/// Revision `version` of release `big`: a Helm record (base64 of gzip of the release's JSON) whose manifest is
/// `RECORD_JSON_BYTES` of one letter, as gzip members read one after the other (Helm's reader and berth's read
/// them as one stream): the same 1 MiB member repeated, about 100 KiB in all.
fn planted_record(version: u32) -> String {
    let head = format!(
        r#"{{"name":"big","namespace":"planted","version":{version},"info":{{"status":"superseded"}},"manifest":""#
    );
    let letters = member(&vec![b'a'; 1 << 20]);
    let mut gzip = member(head.as_bytes());
    for _ in 0..RECORD_JSON_BYTES >> 20 {
        gzip.extend_from_slice(&letters);
    }
    gzip.extend_from_slice(&member(br#""}"#));
    base64::engine::general_purpose::STANDARD.encode(gzip)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reading_many_large_planted_records_ends_with_the_limit_named() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let client = berth::cluster::connect_config(peer.cluster.kube_config()).await.expect("connects").client;
    let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(client.clone());
    let namespace = serde_json::from_value(serde_json::json!({"metadata": {"name": "planted"}})).expect("namespace");
    namespaces.create(&PostParams::default(), &namespace).await.expect("namespace created");
    let secrets: Api<Secret> = Api::namespaced(client, "planted");
    // Three records of 100 MiB: more than the 256 MiB one read may decode.
    for version in 1..=3 {
        let secret = serde_json::from_value(serde_json::json!({
            "metadata": {
                "name": format!("sh.helm.release.v1.big.v{version}"),
                "labels": {"owner": "helm", "name": "big", "status": "superseded", "version": version.to_string()},
            },
            "type": "helm.sh/release.v1",
        }));
        let mut secret: Secret = secret.expect("a Secret");
        secret.data = Some([("release".to_string(), ByteString(planted_record(version).into_bytes()))].into());
        secrets.create(&PostParams::default(), &secret).await.expect("planted");
    }

    for args in [["history", "big"], ["status", "big"], ["list", "--all-namespaces"]] {
        let mut args: Vec<&str> = args.to_vec();
        if args[0] != "list" {
            args.extend(["-n", "planted"]);
        }
        let command = peer.berth_command(&args);
        let run =
            tokio::task::spawn_blocking(move || run_bounded(command, Duration::from_secs(60))).await.expect("joined");
        let stderr = String::from_utf8_lossy(&run.stderr);
        println!(
            "planted records, berth {}: exit {:?}, {:.2} s, peak RSS {} MiB",
            args.join(" "),
            run.code,
            run.elapsed.as_secs_f64(),
            run.peak_rss_kib >> 10
        );
        assert!(!run.killed, "berth {args:?} ran past the kill limit");
        assert_ne!(run.code, Some(0), "berth {args:?} read every record:\n{stderr}");
        assert!(
            stderr.contains("decompress to more than 256 MiB (berth's limit on one read)"),
            "berth {args:?}: {stderr}"
        );
        assert!(run.peak_rss_kib < 512 << 10, "berth {args:?}: peak RSS {} MiB", run.peak_rss_kib >> 10);
    }
}
