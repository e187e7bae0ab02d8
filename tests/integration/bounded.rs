//! Running a process on hostile input with bounds, for every hostile-input test: the child is reaped with
//! `wait4`, and killed (its whole process group) if it has not ended within a generous limit. The limit is a hang
//! guard, not a speed target: the time it took is reported beside the peak RSS for docs/BENCHMARKS.md.
//!
//! The peak RSS is the child's `ru_maxrss` as `wait4` hands it to its parent. Linux counts in it the memory of
//! the process the child was spawned from (at `exec`, the old address space's peak is kept: with `vfork`, the
//! whole test binary's), so the child is started through GNU time (`/usr/bin/time -f %M`), a small process whose
//! own `wait4` gives the child's figure. Without GNU time the test binary's `wait4` figure is used, an upper bound
//! (shown as `<=`).

use std::io::Read as _;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The berth binary the hostile cases run: `BERTH_HOSTILE_BIN` when set (an older build, to measure it before a
/// fix), else this build's.
pub fn berth_binary() -> std::path::PathBuf {
    std::env::var_os("BERTH_HOSTILE_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_BIN_EXE_berth")))
}

/// The case directories of a hostile corpus (`tests/data/hostile/...`), sorted by name.
///
/// # Panics
///
/// When the corpus cannot be read: the test cannot go on.
pub fn case_directories(corpus: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut directories: Vec<std::path::PathBuf> = std::fs::read_dir(corpus)
        .unwrap_or_else(|error| panic!("{}: {error}", corpus.display()))
        .map(|entry| entry.expect("an entry of the corpus").path())
        .filter(|path| path.is_dir())
        .collect();
    directories.sort();
    directories
}

/// What a bounded run gives back.
#[derive(Debug)]
pub struct BoundedRun {
    /// The exit code; `None` when a signal ended it (the kill included).
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub elapsed: Duration,
    /// The child's peak resident set (`ru_maxrss`), in KiB.
    pub peak_rss_kib: u64,
    /// The figure is the child's own (measured through GNU time), not an upper bound.
    pub peak_rss_exact: bool,
    /// The kill limit ended it.
    pub killed: bool,
}

impl BoundedRun {
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// One line for the measurements: `CASE: exit 2, 0.41 s, peak RSS 23 MiB`.
    pub fn summary(&self, case: &str) -> String {
        let end = match (self.killed, self.code) {
            (true, _) => "killed at the limit".to_string(),
            (false, Some(code)) => format!("exit {code}"),
            (false, None) => "ended by a signal".to_string(),
        };
        let bound = if self.peak_rss_exact { "" } else { "<= " };
        format!(
            "{case}: {end}, {:.2} s, peak RSS {bound}{} MiB",
            self.elapsed.as_secs_f64(),
            self.peak_rss_kib.div_ceil(1024)
        )
    }
}

/// Runs `command` (stdin closed, stdout and stderr captured), killing it after `kill_after`.
///
/// # Panics
///
/// When the process cannot be started or reaped: the test cannot go on.
pub fn run_bounded(command: Command, kill_after: Duration) -> BoundedRun {
    use std::os::unix::process::CommandExt as _;
    let measured = tempfile::NamedTempFile::new().expect("a file for GNU time's figure");
    let mut command = through_gnu_time(command, measured.path());
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    let started = Instant::now();
    let mut child = command.spawn().expect("the bounded process starts");
    let pid = libc::pid_t::try_from(child.id()).expect("a process id fits pid_t");
    let collect = |stream: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut stream) = stream {
                let _ = stream.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = collect(child.stdout.take().map(|stream| Box::new(stream) as Box<dyn std::io::Read + Send>));
    let stderr = collect(child.stderr.take().map(|stream| Box::new(stream) as Box<dyn std::io::Read + Send>));
    // wait4 blocks, so it waits on a thread of its own; the test waits on its answer with the limit.
    let (sender, receiver) = mpsc::channel();
    // The one place the tests call libc: std has no wait4 (a child's peak RSS) and no signal to a process group.
    #[allow(unsafe_code)]
    std::thread::spawn(move || {
        let mut status: libc::c_int = 0;
        // SAFETY: an all-zero rusage is a valid value of this plain C struct, which wait4 then fills.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `pid` is this test's own child, not reaped elsewhere (std's `Child` is never waited on); the
        // pointers are to live locals.
        let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        let _ = sender.send((reaped, status, usage.ru_maxrss, Instant::now()));
    });
    let (killed, (reaped, status, max_rss, ended)) = match receiver.recv_timeout(kill_after) {
        Ok(result) => (false, result),
        Err(_) => {
            // Not reaped yet, so the process group is still this child's (it leads it).
            // SAFETY: kill has no memory effects; a negative pid names the child's process group.
            #[allow(unsafe_code)]
            unsafe {
                libc::kill(-pid, libc::SIGKILL)
            };
            (true, receiver.recv().expect("the killed process is reaped"))
        }
    };
    drop(child);
    assert_eq!(reaped, pid, "wait4 failed: {}", std::io::Error::last_os_error());
    // GNU time exits with its child's status, and 128 + N for a child a signal N ended.
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)).filter(|code| !killed && *code < 128);
    // GNU time's last line is the figure (a line before it may say how the command ended).
    let exact = std::fs::read_to_string(measured.path())
        .ok()
        .and_then(|text| text.lines().last().and_then(|line| line.trim().parse::<u64>().ok()));
    BoundedRun {
        code,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
        elapsed: ended.duration_since(started),
        peak_rss_kib: exact.unwrap_or_else(|| u64::try_from(max_rss).unwrap_or(0)),
        peak_rss_exact: exact.is_some(),
        killed,
    }
}

/// `command` run by GNU time writing the child's peak RSS (KiB) to `figure`; `command` itself without it.
fn through_gnu_time(command: Command, figure: &std::path::Path) -> Command {
    const GNU_TIME: &str = "/usr/bin/time";
    if !std::path::Path::new(GNU_TIME).is_file() {
        return command;
    }
    let mut timed = Command::new(GNU_TIME);
    timed.arg("-f").arg("%M").arg("-o").arg(figure).arg(command.get_program()).args(command.get_args());
    for (name, value) in command.get_envs() {
        match value {
            Some(value) => timed.env(name, value),
            None => timed.env_remove(name),
        };
    }
    if let Some(directory) = command.get_current_dir() {
        timed.current_dir(directory);
    }
    timed
}

#[test]
fn a_process_that_ends_is_measured_and_one_that_hangs_is_killed() {
    let mut quick = Command::new("sh");
    quick.args(["-c", "echo out; echo err >&2; exit 3"]);
    let run = run_bounded(quick, Duration::from_secs(30));
    assert_eq!((run.code, run.stdout_text().as_str(), run.stderr_text().as_str()), (Some(3), "out\n", "err\n"));
    assert!(!run.killed && run.peak_rss_kib > 0, "{run:?}");

    let mut hanging = Command::new("sleep");
    hanging.arg("600");
    let run = run_bounded(hanging, Duration::from_millis(300));
    assert!(run.killed && run.code.is_none(), "{run:?}");
    assert!(run.elapsed < Duration::from_secs(30), "{run:?}");
}
