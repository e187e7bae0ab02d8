//! Manifests several test files share.

/// A namespaced `example.com/v1` CustomResourceDefinition with a status subresource and no schema checks.
pub fn crd(plural: &str, singular: &str, kind: &str) -> String {
    format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {plural}.example.com\n\
         spec:\n  group: example.com\n  scope: Namespaced\n  names: {{plural: {plural}, singular: {singular}, kind: {kind}}}\n\
         \x20 versions:\n  - name: v1\n    served: true\n    storage: true\n    subresources: {{status: {{}}}}\n\
         \x20   schema:\n      openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}\n"
    )
}

/// A Deployment the simulated cluster makes ready only after an hour: something to wait on and cancel.
pub const SLOW_DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: slow
  annotations: {sim.berth.dev/ready-after: 1h}
spec:
  selector: {matchLabels: {app: slow}}
  template:
    metadata: {labels: {app: slow}}
    spec: {containers: [{name: slow, image: slow:1}]}
";
