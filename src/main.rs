//! The `berth` binary: pick the interface (berth's, or Helm's when run as `helm`), run, exit with the code earned.

mod cli;

/// mimalloc instead of the system allocator: rendering a chart is dominated by many small, short-lived
/// allocations (template trees, YAML tokens, values), which glibc's malloc serves and frees markedly slower
/// (docs/BENCHMARKS.md, "Chart rendering against helm template"). Built without transparent huge pages
/// (`no_thp`): on kernels that grant them on request, first touches of mimalloc's arenas stalled on zeroing and
/// compacting 2 MiB pages, adding 0.1 to 0.2 s of system time to four installs of argo-cd in six (ibid., "A
/// public chart end to end").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let arguments: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let personality = cli::Personality::detect(
        arguments.first().map(std::ffi::OsString::as_os_str),
        std::env::var_os("BERTH_HELM").as_deref(),
    );
    std::process::exit(cli::main(personality, arguments));
}
