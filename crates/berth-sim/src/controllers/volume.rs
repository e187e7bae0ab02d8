//! The volume binder: a PersistentVolumeClaim is Pending, then after `delays.volume_bind` (or the claim's
//! `sim.berth.dev/ready-after`) a PersistentVolume `pvc-<uid>` is provisioned for it and both are Bound. A
//! deleted claim's provisioned volume is deleted (reclaim policy Delete).
//!
//! Simplified: every claim is provisioned dynamically (no matching against existing volumes, no
//! WaitForFirstConsumer); a claim naming `spec.volumeName` gets a volume of that name.

use super::behaviour;
use super::client::{CONTROLLER_MANAGER, ControllerError};
use super::context::Context;
use super::meta;
use super::queue::{Controller, Work};
use crate::fields::str_at;
use serde_json::{Map, Value, json};

/// The storage class of provisioned volumes when the claim names none.
const DEFAULT_STORAGE_CLASS: &str = "standard";

/// The name of the volume provisioned for `claim`.
pub(super) fn volume_name(claim: &Value) -> String {
    match str_at(claim, &["spec", "volumeName"]).filter(|name| !name.is_empty()) {
        Some(name) => name.to_string(),
        None => format!("pvc-{}", meta::uid(claim)),
    }
}

fn is_bound(claim: &Value) -> bool {
    str_at(claim, &["status", "phase"]) == Some("Bound")
}

fn requested_storage(claim: &Value) -> Value {
    claim.pointer("/spec/resources/requests/storage").cloned().unwrap_or_else(|| json!("1Gi"))
}

fn access_modes(claim: &Value) -> Value {
    claim.pointer("/spec/accessModes").cloned().unwrap_or_else(|| json!(["ReadWriteOnce"]))
}

/// The status of a claim bound to its volume.
pub(super) fn bound_status(claim: &Value) -> Value {
    json!({"phase": "Bound", "accessModes": access_modes(claim), "capacity": {"storage": requested_storage(claim)}})
}

/// A volume provisioned for `claim`.
pub(super) fn volume_for(claim: &Value) -> Value {
    let name = volume_name(claim);
    let storage_class = str_at(claim, &["spec", "storageClassName"]).unwrap_or(DEFAULT_STORAGE_CLASS);
    let mut spec = Map::new();
    spec.insert("accessModes".to_string(), access_modes(claim));
    spec.insert("capacity".to_string(), json!({"storage": requested_storage(claim)}));
    spec.insert(
        "claimRef".to_string(),
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "namespace": meta::namespace(claim),
               "name": meta::name(claim), "uid": meta::uid(claim)}),
    );
    spec.insert(
        "hostPath".to_string(),
        json!({"path": format!("/var/lib/sim-volumes/{name}"), "type": "DirectoryOrCreate"}),
    );
    spec.insert("persistentVolumeReclaimPolicy".to_string(), json!("Delete"));
    spec.insert("storageClassName".to_string(), json!(storage_class));
    spec.insert(
        "volumeMode".to_string(),
        claim.pointer("/spec/volumeMode").cloned().unwrap_or_else(|| json!("Filesystem")),
    );
    json!({
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name, "annotations": {"pv.kubernetes.io/provisioned-by": "sim.berth.dev/hostpath"}},
        "spec": spec,
    })
}

/// Binds the claim once its delay has passed; deletes the volume of a deleted claim.
pub(super) fn reconcile(context: &mut Context, namespace: &str, name: &str) -> Result<(), ControllerError> {
    let types = context.client.types.clone();
    let Some(claim) = context.client.get(&types.claims, namespace, name) else {
        return release_volumes(context, namespace, name);
    };
    if meta::is_deleting(&claim) || is_bound(&claim) {
        return Ok(());
    }
    let seen = context.clock.first_seen(meta::uid(&claim), 0);
    let delay =
        behaviour::delay(&context.profile, &[&claim], behaviour::READY_AFTER, context.profile.delays.volume_bind);
    let elapsed = seen.elapsed();
    if elapsed < delay {
        if str_at(&claim, &["status", "phase"]) != Some("Pending") {
            context.client.write_status(&types.claims, &claim, json!({"phase": "Pending"}), CONTROLLER_MANAGER)?;
        }
        context.recheck(Work::new(Controller::Claim, namespace, name), delay - elapsed);
        return Ok(());
    }
    let volume_name = volume_name(&claim);
    let volume = match context.client.get(&types.volumes, "", &volume_name) {
        Some(volume) => volume,
        None => context.client.create(&types.volumes, volume_for(&claim), CONTROLLER_MANAGER)?,
    };
    context.client.write_status(&types.volumes, &volume, json!({"phase": "Bound"}), CONTROLLER_MANAGER)?;
    let claim = context.client.update(&types.claims, &claim, CONTROLLER_MANAGER, "the volume", |claim| {
        meta::set_at(claim, &["spec", "volumeName"], json!(volume_name));
        for (key, value) in [
            ("pv.kubernetes.io/bind-completed", "yes"),
            ("pv.kubernetes.io/bound-by-controller", "yes"),
            ("volume.kubernetes.io/storage-provisioner", "sim.berth.dev/hostpath"),
        ] {
            meta::set_at(claim, &["metadata", "annotations", key], json!(value));
        }
    })?;
    context.client.write_status(&types.claims, &claim, bound_status(&claim), CONTROLLER_MANAGER)?;
    Ok(())
}

/// Deletes the volumes provisioned for the deleted claim `namespace/name`.
fn release_volumes(context: &Context, namespace: &str, name: &str) -> Result<(), ControllerError> {
    let types = &context.client.types;
    for volume in context.client.list(&types.volumes, None) {
        let claimed = str_at(&volume, &["spec", "claimRef", "namespace"]) == Some(namespace)
            && str_at(&volume, &["spec", "claimRef", "name"]) == Some(name);
        let reclaimed = str_at(&volume, &["spec", "persistentVolumeReclaimPolicy"]) == Some("Delete");
        if claimed && reclaimed {
            context.client.delete(&types.volumes, "", meta::name(&volume), CONTROLLER_MANAGER)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use berth::status::{Status, compute};

    fn claim() -> Value {
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
               "metadata": {"name": "data", "namespace": "shop", "uid": "c1"},
               "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "5Gi"}}}})
    }

    #[test]
    fn a_bound_claim_reports_capacity_and_access_modes() {
        let mut claim = claim();
        claim["status"] = bound_status(&claim);
        assert_eq!(
            claim["status"],
            json!({"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "5Gi"}})
        );
        assert_eq!(compute(&claim, jiff::Timestamp::UNIX_EPOCH).map(|result| result.status), Ok(Status::Current));
        claim["status"] = json!({"phase": "Pending"});
        assert_eq!(compute(&claim, jiff::Timestamp::UNIX_EPOCH).map(|result| result.status), Ok(Status::InProgress));
    }

    #[test]
    fn the_provisioned_volume_points_back_at_its_claim() {
        let volume = volume_for(&claim());
        assert_eq!(volume["metadata"]["name"], "pvc-c1");
        assert_eq!(volume["spec"]["claimRef"]["name"], "data");
        assert_eq!(volume["spec"]["claimRef"]["uid"], "c1");
        assert_eq!(volume["spec"]["capacity"]["storage"], "5Gi");
        assert_eq!(volume["spec"]["storageClassName"], "standard");
        let mut named = claim();
        named["spec"]["volumeName"] = json!("fixed");
        assert_eq!(volume_name(&named), "fixed");
    }
}
