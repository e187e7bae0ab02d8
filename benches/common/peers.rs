//! The peer binaries the benchmarks measure berth against (real kubectl v1.35, Helm v4.1.4), fetched once by
//! `scripts/fetch-peers.sh` into its cache; the directory holding them, or why they could not be fetched.

use std::path::PathBuf;
use std::process::Command;

pub fn fetch_peers() -> Result<PathBuf, String> {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = Command::new("bash")
        .arg(format!("{root}/scripts/fetch-peers.sh"))
        .output()
        .map_err(|error| format!("cannot run scripts/fetch-peers.sh (needs bash, npm and python3): {error}"))?;
    if !output.status.success() {
        return Err(format!("scripts/fetch-peers.sh failed: {}", String::from_utf8_lossy(&output.stderr)));
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()))
}
