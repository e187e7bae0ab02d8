//! Link settings of the `berth` binary, which a short-lived process pays for at every start.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let target_env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    // Packed relative relocations (DT_RELR): the loader applies the binary's ~100,000 relative relocations from
    // a 35 KB bitmap instead of a 2.4 MB table it would read at every start; this cut the CPU time of a short
    // `berth template` by about 12 % (docs/BENCHMARKS.md, "Start-up"). GNU ld 2.38+ and lld 15+ write them, glibc
    // 2.36+ reads them. Only the binaries: libraries and dependencies are not relinked.
    if target_os == "linux" && target_env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
