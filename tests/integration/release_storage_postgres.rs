//! A real PostgreSQL server for the `sql` storage driver's tests: Debian's `postgresql` package (`.ci/run`
//! installs it), a fresh cluster in a temporary directory, reached only through its Unix socket (no port to
//! collide with another test), stopped when dropped. PostgreSQL refuses to run as root: as root the server runs
//! as the package's `postgres` user.
//!
//! When PostgreSQL is not installed the tests that need it say so loudly on stderr and pass, unless
//! `BERTH_REQUIRE_POSTGRES=1` (`.ci/run` sets it once the install succeeded): then they fail.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The database user and database every test uses.
const USER: &str = "postgres";

/// The system user the server runs as when the tests run as root.
const SERVER_USER: &str = "postgres";

/// A running PostgreSQL server, stopped when dropped.
pub struct Postgres {
    binaries: PathBuf,
    dir: tempfile::TempDir,
    as_root: bool,
}

impl Postgres {
    /// Starts a server, or returns `None` after saying loudly why the test is skipped.
    pub fn start(test: &str) -> Option<Postgres> {
        let Some(binaries) = binaries() else {
            let required = std::env::var("BERTH_REQUIRE_POSTGRES").is_ok_and(|value| value == "1");
            assert!(
                !required,
                "BERTH_REQUIRE_POSTGRES=1 but no PostgreSQL server binaries (initdb, pg_ctl) were found"
            );
            eprintln!(
                "\n*** SKIPPED {test}: PostgreSQL is not installed (no initdb/pg_ctl on PATH or in \
                 /usr/lib/postgresql/*/bin); `.ci/run` installs Debian's `postgresql` package ***\n"
            );
            return None;
        };
        let dir = tempfile::tempdir().expect("temporary directory");
        // SAFETY: geteuid has no preconditions and cannot fail.
        let as_root = unsafe { libc::geteuid() } == 0;
        let postgres = Postgres { binaries, dir, as_root };
        if as_root {
            postgres.run(Command::new("chown").arg(format!("{SERVER_USER}:")).arg(postgres.dir.path()), false);
        }
        let data = postgres.data();
        postgres.run(
            postgres.tool("initdb").args(["--no-sync", "-A", "trust", "-E", "UTF8", "-U", USER, "-D"]).arg(&data),
            true,
        );
        let options = format!("-c listen_addresses= -k {} -p 5432", postgres.dir.path().display());
        let log = postgres.dir.path().join("server.log");
        // `-w -t 60`: pg_ctl returns once the server accepts connections, or fails after 60 s.
        postgres.run(
            postgres
                .tool("pg_ctl")
                .args(["-w", "-t", "60", "-D"])
                .arg(&data)
                .arg("-l")
                .arg(&log)
                .args(["-o", &options, "start"]),
            true,
        );
        Some(postgres)
    }

    /// The connection string Helm (lib/pq) and berth both take: the server's socket, no TLS.
    pub fn connection_string(&self) -> String {
        format!("host={} port=5432 user={USER} dbname={USER} sslmode=disable", self.dir.path().display())
    }

    /// `psql -c SQL` against the server, its output unaligned without headers.
    pub fn psql(&self, sql: &str) -> String {
        let output = Command::new(self.binaries.join("psql"))
            .args(["-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql, &self.connection_string()])
            .output()
            .expect("psql runs");
        assert!(output.status.success(), "psql {sql}: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// A server tool's command, as the server's user when the tests run as root.
    fn tool(&self, name: &str) -> Command {
        let program = self.binaries.join(name);
        if self.as_root {
            let mut command = Command::new("runuser");
            command.args(["-u", SERVER_USER, "--"]).arg(program);
            command
        } else {
            Command::new(program)
        }
    }

    fn run(&self, command: &mut Command, show_log: bool) {
        let output = command.output().unwrap_or_else(|error| panic!("{command:?} starts: {error}"));
        if !output.status.success() {
            let log = if show_log {
                std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
            } else {
                String::new()
            };
            panic!(
                "{command:?} failed:\n{}\n{}\n{log}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ =
            self.tool("pg_ctl").args(["-w", "-t", "30", "-m", "immediate", "-D"]).arg(self.data()).arg("stop").output();
    }
}

/// The directory of `initdb` and `pg_ctl`: on PATH, else the newest of Debian's `/usr/lib/postgresql/*/bin`.
fn binaries() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path).find(|dir| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file())
    });
    // `initdb` on PATH may be a link into the versioned directory, which also holds `psql`.
    if let Some(dir) = on_path {
        let resolved =
            std::fs::canonicalize(dir.join("initdb")).ok().and_then(|initdb| initdb.parent().map(Path::to_path_buf));
        return resolved.filter(|dir| dir.join("psql").is_file()).or(Some(dir));
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .filter_map(|entry| Some((entry.file_name().to_str()?.parse().ok()?, entry.path().join("bin"))))
        .filter(|(_, bin): &(u32, PathBuf)| bin.join("initdb").is_file())
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}
