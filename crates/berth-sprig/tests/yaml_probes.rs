//! YAML and TOML functions and the YAML reader against real Helm: every `tests/probes/yaml-*` chart is rendered
//! by berth with its `values.yaml` read by berth's own reader (`berth_goyaml::load_values`, as Helm's `LoadValues` reads
//! it), and must print what `helm template` printed (goldens from `tests/probes/regen.sh`).
//!
//! Two kinds of Helm failure are checked here rather than by the template engine: a values file Helm refuses
//! (`cannot load values.yaml: ...`, areas `yaml-badvalues-*`) must make `berth_goyaml::load_values` fail with the same
//! message, and a rendered document whose head Helm cannot read (`YAML parse error on FILE: ...`) must make
//! `berth_goyaml::read_manifest_head` fail with the same message.

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

mod probe_support;

use berth_go::Value;
use berth_sprig::helm_functions;
use probe_support::{Expected, Probe};

/// Probes that differ from Helm for a reason outside the YAML module.
const PENDING: &[(&str, &str)] = &[];

fn read_values(area: &str) -> Vec<u8> {
    let path = probe_support::probes_dir().join(area).join("values.yaml");
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The message after `Error: <prefix>` on Helm's first error line.
fn helm_error_after<'a>(stderr: &'a str, prefix: &str) -> Option<&'a str> {
    stderr.lines().find_map(|line| line.strip_prefix("Error: ")?.strip_prefix(prefix))
}

/// Checks a probe whose rendered document Helm could not read the head of.
fn check_head_error(probe: &Probe, values: Value, want: &str) -> Option<String> {
    let label = format!("{}/{}", probe.area, probe.file);
    let rendered = match probe_support::render(probe, values, helm_functions()) {
        Ok(rendered) => rendered,
        Err(error) => return Some(format!("{label}: berth failed to render: {error}")),
    };
    // The harness frames each document with Helm's `# Source:` comment, which Helm adds only when printing.
    let errors: Vec<String> = berth_goyaml::split_manifests(&rendered)
        .iter()
        .map(|document| match document.split_once('\n') {
            Some((first, rest)) if first.starts_with("# Source: ") => rest,
            _ => document.as_str(),
        })
        .filter_map(|document| berth_goyaml::read_manifest_head(document).err())
        .map(|error| error.to_string())
        .collect();
    match errors.first() {
        Some(got) if got == want => None,
        Some(got) => Some(format!("{label}: head error differs\n  helm:  {want}\n  berth: {got}")),
        None => Some(format!("{label}: berth read every head where Helm failed with `{want}`")),
    }
}

/// Checks a probe chart whose values file Helm refused.
fn check_bad_values(area: &str) -> Vec<String> {
    let probes = probe_support::probes(area);
    let Some(Expected::Failure { stderr, .. }) = probes.first().map(|probe| &probe.expected) else {
        return vec![format!("{area}: Helm loaded this values file; bad-values areas must hold one Helm refuses")];
    };
    let want = helm_error_after(stderr, "cannot load values.yaml: ").unwrap_or_default();
    match berth_goyaml::load_values(read_values(area)) {
        Ok(_) => vec![format!("{area}: berth loaded values Helm refused with `{want}`")],
        Err(error) if error.to_string() == want => Vec::new(),
        Err(error) => vec![format!("{area}: values error differs\n  helm:  {want}\n  berth: {error}")],
    }
}

#[test]
fn yaml_probes_match_helm() {
    let areas = probe_support::areas("yaml-");
    assert!(!areas.is_empty(), "no yaml-* probe areas");
    let mut failures = Vec::new();
    let mut count = 0;
    for area in &areas {
        if area.starts_with("yaml-badvalues-") {
            count += 1;
            failures.extend(check_bad_values(area));
            continue;
        }
        let values = berth_goyaml::load_values(read_values(area))
            .unwrap_or_else(|e| panic!("{area}/values.yaml: berth refused what Helm read: {e}"));
        for probe in probe_support::probes(area) {
            count += 1;
            let label = format!("{}/{}", probe.area, probe.file);
            let head_error = match &probe.expected {
                Expected::Failure { stderr, .. } => {
                    helm_error_after(stderr, &format!("YAML parse error on {}: ", probe.template_name()))
                }
                Expected::Output(_) => None,
            };
            let mismatch = match head_error {
                Some(want) => check_head_error(&probe, values.clone(), want),
                None => probe_support::check(&probe, values.clone(), helm_functions()),
            };
            let reason = PENDING.iter().find(|(name, _)| *name == label).map(|(_, why)| *why);
            match (mismatch, reason) {
                (Some(mismatch), None) => failures.push(mismatch),
                (Some(mismatch), Some(why)) => eprintln!("pending: {label}: {why}\n{mismatch}"),
                (None, Some(_)) => failures.push(format!("{label}: matches Helm now; remove it from PENDING")),
                (None, None) => {}
            }
        }
    }
    assert!(failures.is_empty(), "{} of {count} probes differ from Helm:\n\n{}", failures.len(), failures.join("\n\n"));
}
