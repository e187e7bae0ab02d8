//! Services: a cluster IP (10.96.x.y, unique; `None` stays headless; ExternalName gets none) and node ports
//! right after creation, as the API server allocates them, and for type LoadBalancer an ingress address
//! (172.18.255.x) after `delays.load_balancer` (or the Service's `sim.berth.dev/ready-after`).
//!
//! The store cannot be hooked at creation, so the address is written by an update right after the ADDED
//! event; a client reading in between sees no cluster IP (kstatus then says InProgress for LoadBalancers,
//! which is true to the moment).

use super::addresses::Addresses;
use super::behaviour;
use super::client::{CONTROLLER_MANAGER, ControllerError};
use super::context::Context;
use super::meta;
use super::queue::{Controller, Work};
use crate::fields::str_at;
use serde_json::{Value, json};

fn service_type(service: &Value) -> &str {
    str_at(service, &["spec", "type"]).unwrap_or("ClusterIP")
}

/// What the API server fills in at creation: `clusterIP`/`clusterIPs` and node ports; `None` when nothing is missing.
pub(super) fn allocated_spec(service: &Value, addresses: &mut Addresses) -> Option<Value> {
    let uid = meta::uid(service);
    let mut spec = service.get("spec").cloned().unwrap_or_else(|| json!({}));
    let mut changed = false;
    let cluster_ip = str_at(service, &["spec", "clusterIP"]).unwrap_or_default();
    if service_type(service) != "ExternalName" {
        if cluster_ip.is_empty() {
            let address = addresses.cluster_ip(uid);
            meta::set_at(&mut spec, &["clusterIP"], json!(address));
            meta::set_at(&mut spec, &["clusterIPs"], json!([address]));
            changed = true;
        } else {
            addresses.claim_cluster_ip(uid, cluster_ip);
            if spec.get("clusterIPs").is_none() {
                meta::set_at(&mut spec, &["clusterIPs"], json!([cluster_ip]));
                changed = true;
            }
        }
    }
    if matches!(service_type(service), "NodePort" | "LoadBalancer")
        && let Some(ports) = spec.get_mut("ports").and_then(Value::as_array_mut)
    {
        for port in ports.iter_mut() {
            match port.get("nodePort").and_then(Value::as_i64) {
                Some(taken) => addresses.claim_node_port(taken),
                None => {
                    meta::set_at(port, &["nodePort"], json!(addresses.node_port()));
                    changed = true;
                }
            }
        }
    }
    changed.then_some(spec)
}

/// The status of a Service: a LoadBalancer's ingress once ready, else an empty load balancer.
pub(super) fn service_status(is_load_balancer_ready: bool, address: &str) -> Value {
    if is_load_balancer_ready {
        json!({"loadBalancer": {"ingress": [{"ip": address, "ipMode": "VIP"}]}})
    } else {
        json!({"loadBalancer": {}})
    }
}

/// Allocates addresses, then provisions the load balancer once its delay has passed.
pub(super) fn reconcile(context: &mut Context, namespace: &str, name: &str) -> Result<(), ControllerError> {
    let services = context.client.types.services.clone();
    let Some(service) = context.client.get(&services, namespace, name) else { return Ok(()) };
    if meta::is_deleting(&service) {
        return Ok(());
    }
    if let Some(spec) = allocated_spec(&service, &mut context.addresses) {
        context.client.update(&services, &service, CONTROLLER_MANAGER, "the cluster IP", |service| {
            meta::set_at(service, &["spec"], spec);
        })?;
        // The update's event brings the Service back here for its status.
        return Ok(());
    }
    let uid = meta::uid(&service).to_string();
    let status = if service_type(&service) == "LoadBalancer" {
        let seen = context.clock.first_seen(&uid, 0);
        let delay = behaviour::delay(
            &context.profile,
            &[&service],
            behaviour::READY_AFTER,
            context.profile.delays.load_balancer,
        );
        let elapsed = seen.elapsed();
        if elapsed < delay {
            context.recheck(Work::new(Controller::Service, namespace, name), delay - elapsed);
        }
        service_status(elapsed >= delay, &context.addresses.load_balancer_ip(&uid))
    } else {
        service_status(false, "")
    };
    context.client.write_status(&services, &service, status, CONTROLLER_MANAGER)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use berth::status::{Status, compute};

    fn service(service_type: &str, cluster_ip: Option<&str>) -> Value {
        let mut service = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "uid": "s1"},
                                 "spec": {"type": service_type, "ports": [{"port": 80}]}});
        if let Some(address) = cluster_ip {
            service["spec"]["clusterIP"] = json!(address);
        }
        service
    }

    #[test]
    fn cluster_ips_are_allocated_once_and_headless_stays_headless() {
        let mut addresses = Addresses::default();
        let spec = allocated_spec(&service("ClusterIP", None), &mut addresses).unwrap_or_default();
        assert_eq!(spec["clusterIP"], "10.96.0.12");
        assert_eq!(spec["clusterIPs"], json!(["10.96.0.12"]));
        assert!(spec["ports"][0].get("nodePort").is_none());
        let again = allocated_spec(&service("ClusterIP", None), &mut addresses).unwrap_or_default();
        assert_eq!(again["clusterIP"], "10.96.0.12", "the same uid gets the same address back");
        let mut other = service("ClusterIP", None);
        other["metadata"]["uid"] = json!("s2");
        assert_eq!(allocated_spec(&other, &mut addresses).unwrap_or_default()["clusterIP"], "10.96.0.13");
        let headless = allocated_spec(&service("ClusterIP", Some("None")), &mut addresses);
        assert_eq!(headless.map(|spec| spec["clusterIP"].clone()), Some(json!("None")));
        let mut complete = service("ClusterIP", Some("None"));
        complete["spec"]["clusterIPs"] = json!(["None"]);
        assert_eq!(allocated_spec(&complete, &mut addresses), None);
        assert_eq!(allocated_spec(&service("ExternalName", None), &mut addresses), None);
    }

    #[test]
    fn load_balancers_get_node_ports_then_an_ingress() {
        let mut addresses = Addresses::default();
        let mut service = service("LoadBalancer", None);
        assert_eq!(compute(&service, jiff::Timestamp::UNIX_EPOCH).map(|result| result.status), Ok(Status::InProgress));
        let spec = allocated_spec(&service, &mut addresses).unwrap_or_default();
        assert_eq!(spec["ports"][0]["nodePort"], 30000);
        service["spec"] = spec;
        assert_eq!(allocated_spec(&service, &mut addresses), None);
        assert_eq!(compute(&service, jiff::Timestamp::UNIX_EPOCH).map(|result| result.status), Ok(Status::Current));
        let address = addresses.load_balancer_ip("s1");
        assert_eq!(address, "172.18.200.1");
        assert_eq!(service_status(true, &address)["loadBalancer"]["ingress"][0]["ip"], "172.18.200.1");
        assert_eq!(service_status(false, &address), json!({"loadBalancer": {}}));
    }
}
