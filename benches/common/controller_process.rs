//! The controller binary as the benchmarks run it: started quietly against a simulated cluster, and its memory
//! read as Linux counts it.

use std::path::Path;
use std::process::{Child, Command, Stdio};

/// `berth controller --concurrency CONCURRENCY --kubeconfig KUBECONFIG`, its output discarded.
pub fn start(kubeconfig: &Path, concurrency: usize) -> Child {
    Command::new(env!("CARGO_BIN_EXE_berth"))
        .args(["controller", "--concurrency", &concurrency.to_string(), "--kubeconfig"])
        .arg(kubeconfig)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("berth controller starts")
}

/// (peak RSS, RSS now) of process `pid` in KiB: `VmHWM` and `VmRSS` of `/proc/PID/status` (0 when unreadable).
pub fn memory(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kb| kb.parse().ok())
            .unwrap_or(0)
    };
    (field("VmHWM:"), field("VmRSS:"))
}
