//! The `berth` binary: parse arguments, run, map the outcome to an exit code.

mod cli;

use clap::Parser;
use cli::Cli;
use tracing_subscriber::EnvFilter;

/// mimalloc instead of the system allocator: rendering a chart is dominated by many small, short-lived
/// allocations (template trees, YAML tokens, values), which glibc's malloc serves and frees markedly slower
/// (docs/BENCHMARKS.md, "Chart rendering against helm template"). Built without transparent huge pages
/// (`no_thp`): on kernels that grant them on request, first touches of mimalloc's arenas stalled on zeroing and
/// compacting 2 MiB pages, adding 0.1 to 0.2 s of system time to four installs of argo-cd in six (ibid., "A
/// public chart end to end").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let cli = Cli::parse();
    init_logging(cli.verbose);
    let code = match cli::run(cli) {
        Ok(code) => code,
        Err(error) => {
            cli::report_error(&error);
            error.exit_code()
        }
    };
    if let Some(line) = cli::retry_summary() {
        eprintln!("warning: {line}");
    }
    std::process::exit(code.code());
}

/// Logs go to stderr; `BERTH_LOG` (a tracing filter such as `berth=debug`) overrides `-v`.
fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_env("BERTH_LOG").unwrap_or_else(|_| EnvFilter::new(default));
    // kube-rs's client logs a whole server answer it cannot decode at WARN (a Secret's data included) and
    // every failed attempt at ERROR (retries included): never shown, whatever the verbosity. berth says what
    // failed and sums up its retries itself.
    let filter = match "kube_client::client=off".parse() {
        Ok(directive) => filter.add_directive(directive),
        Err(_) => filter,
    };
    let color = std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
        && std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(color)
        .with_target(false)
        .init();
}
