//! Manifests in the shape public charts render (`tests/charts/`: cert-manager, kyverno, metrics-server,
//! ingress-nginx, prometheus, argo-cd) applied with `berth apply --sim --wait`: every one becomes ready, its
//! webhooks, priority classes, RBAC names with `:` and APIServices included.

use crate::run::{berth, stderr, stdout};

/// (file, objects it holds)
const CHARTS: &[(&str, usize)] = &[
    ("tests/charts/cert-manager.yaml", 19),
    ("tests/charts/kyverno.yaml", 13),
    ("tests/charts/metrics-server.yaml", 9),
    ("tests/charts/ingress-nginx.yaml", 14),
    ("tests/charts/prometheus.yaml", 13),
    ("tests/charts/argo-cd.yaml", 19),
];

#[test]
fn every_chart_shaped_set_applies_and_becomes_ready() {
    for (file, objects) in CHARTS {
        let output = berth(&["apply", "--sim", "-f", file, "--wait", "--timeout", "60s"], None);
        let (out, err) = (stdout(&output), stderr(&output));
        assert_eq!(output.status.code(), Some(0), "{file}\nstdout:\n{out}\nstderr:\n{err}");
        assert!(err.contains(&format!("ready: {objects}/{objects} objects")), "{file}: {err}");
    }
}
