//! The ordering vocabulary: the annotation keys berth reads to order writes, and how a value is read.
//!
//! Kubernetes keeps annotation values as strings; a YAML author who writes `helm.sh/weight: 1` unquoted gets a
//! number, which the API server would refuse. Such values are rejected here with a hint to quote them, before
//! anything is applied, rather than read as if they were strings.

use serde_json::{Map, Value};

/// Seed 001: a weight; lower weights are applied (and ready) first.
pub const WEIGHT: &str = "helm.sh/weight";
/// Argo CD's sync wave, read as a weight.
pub const SYNC_WAVE: &str = "argocd.argoproj.io/sync-wave";
/// HIP-0025: the one resource group an object belongs to.
pub const RESOURCE_GROUP: &str = "helm.sh/resource-group";
/// HIP-0025: a JSON list of resource groups that must be ready before the object is applied.
pub const DEPENDS_ON_RESOURCE_GROUPS: &str = "helm.sh/depends-on/resource-groups";
/// cli-utils (kpt, Config Sync): comma-separated object references.
pub const CONFIG_DEPENDS_ON: &str = "config.kubernetes.io/depends-on";
/// berth's own name for the same format.
pub const BERTH_DEPENDS_ON: &str = "berth.dev/depends-on";

/// Every key above, in the order [`Ordering`] keeps their values.
pub const KEYS: [&str; 6] =
    [WEIGHT, SYNC_WAVE, RESOURCE_GROUP, DEPENDS_ON_RESOURCE_GROUPS, CONFIG_DEPENDS_ON, BERTH_DEPENDS_ON];

/// The values of one object's ordering annotations, read from its annotations in one go so that each rule
/// does not walk every object's (cold) map again.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ordering<'a> {
    values: [Option<&'a Value>; KEYS.len()],
}

impl<'a> Ordering<'a> {
    pub fn read(annotations: &'a Map<String, Value>) -> Ordering<'a> {
        let mut ordering = Ordering::default();
        if annotations.is_empty() {
            return ordering;
        }
        for (slot, key) in ordering.values.iter_mut().zip(KEYS) {
            *slot = annotations.get(key);
        }
        ordering
    }

    /// The string value of annotation `key` (one of [`KEYS`]): `None` when absent or null.
    ///
    /// # Errors
    /// A message when the value is not a string.
    pub fn text(&self, key: &str) -> Result<Option<&'a str>, String> {
        let value = KEYS.iter().position(|known| *known == key).and_then(|slot| self.values[slot]);
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(other) => Err(format!("the value must be a string; quote it: `{key}: '{other}'`")),
        }
    }
}
