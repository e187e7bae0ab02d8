//! RBAC as kube-apiserver's authorizer evaluates it, as pure functions over the stored roles and bindings:
//! rule matching (`rule`), the per-subject index the authorizer answers from (`index`), the rule comparison
//! behind the escalation checks (`covers`), aggregated ClusterRoles (`aggregation`) and the default roles
//! (`bootstrap.yaml`).

pub mod aggregation;
pub mod covers;
pub mod index;
pub mod rule;

/// The bootstrap ClusterRoles and ClusterRoleBindings (YAML list).
pub const BOOTSTRAP: &str = include_str!("bootstrap.yaml");
