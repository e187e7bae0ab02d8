//! The simulated nodes: created Ready at start (`profile.nodes` of them, `sim-node-0..`), and the scheduler's
//! view of them (round-robin placement, pod addresses). Nodes added by hand are used too.

use super::client::{CONTROLLER_MANAGER, Client, KUBELET};
use super::{conditions, meta};
use crate::fields::str_at;
use jiff::Timestamp;
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// One node as the scheduler sees it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct NodeInfo {
    pub name: String,
    pub address: String,
    pub labels: Map<String, Value>,
    pub schedulable: bool,
}

impl NodeInfo {
    fn from_object(node: &Value) -> NodeInfo {
        let addresses = node.pointer("/status/addresses").and_then(Value::as_array).cloned().unwrap_or_default();
        let address = addresses
            .iter()
            .find(|address| address.get("type").and_then(Value::as_str) == Some("InternalIP"))
            .and_then(|address| address.get("address"))
            .and_then(Value::as_str)
            .unwrap_or("172.18.0.1")
            .to_string();
        let ready = conditions::is_true(&conditions::of(node.get("status")), "Ready");
        let cordoned = node.pointer("/spec/unschedulable").and_then(Value::as_bool) == Some(true);
        NodeInfo {
            name: meta::name(node).to_string(),
            address,
            labels: meta::map_at(node, &["metadata", "labels"]),
            schedulable: ready && !cordoned && !meta::is_deleting(node),
        }
    }
}

/// The nodes, the round-robin position and the pod address counter.
#[derive(Debug, Default)]
pub(super) struct Nodes {
    nodes: Vec<NodeInfo>,
    next: usize,
    allocated: u32,
    pod_addresses: HashMap<String, String>,
}

impl Nodes {
    /// Reads the nodes again (after a Node changed).
    pub fn refresh(&mut self, client: &Client) {
        self.nodes = client.list(&client.types.nodes, None).iter().map(|node| NodeInfo::from_object(node)).collect();
    }

    /// Nodes that accept new pods, by name.
    pub fn schedulable(&self) -> Vec<&NodeInfo> {
        self.nodes.iter().filter(|node| node.schedulable).collect()
    }

    pub fn count(&self) -> usize {
        self.nodes.len()
    }

    pub fn find(&self, name: &str) -> Option<&NodeInfo> {
        self.nodes.iter().find(|node| node.name == name)
    }

    /// The next schedulable node that `fits`, round-robin.
    pub fn pick(&mut self, fits: impl Fn(&NodeInfo) -> bool) -> Option<NodeInfo> {
        let candidates: Vec<NodeInfo> = self.schedulable().into_iter().filter(|node| fits(node)).cloned().collect();
        if candidates.is_empty() {
            return None;
        }
        let node = candidates[self.next % candidates.len()].clone();
        self.next = self.next.wrapping_add(1);
        Some(node)
    }

    /// The address of the pod with `uid`, allocated in 10.244.0.0/16 on first use.
    pub fn pod_address(&mut self, uid: &str) -> String {
        if let Some(address) = self.pod_addresses.get(uid) {
            return address.clone();
        }
        let index = self.allocated % (254 * 256);
        self.allocated = self.allocated.wrapping_add(1);
        let address = format!("10.244.{}.{}", index / 254, index % 254 + 1);
        self.pod_addresses.insert(uid.to_string(), address.clone());
        address
    }

    /// Releases the address of a deleted pod.
    pub fn forget_pod(&mut self, uid: &str) {
        self.pod_addresses.remove(uid);
    }
}

/// Creates `sim-node-0..count` (Ready) unless they exist.
pub(super) fn create_nodes(client: &Client, count: u32) {
    let now = Timestamp::now();
    for index in 0..count {
        let node = node_object(index);
        let name = meta::name(&node).to_string();
        if client.get(&client.types.nodes, "", &name).is_some() {
            continue;
        }
        let created = client
            .create(&client.types.nodes, node, CONTROLLER_MANAGER)
            .and_then(|created| client.write_status(&client.types.nodes, &created, node_status(index, now), KUBELET));
        if let Err(error) = created {
            tracing::warn!(%error, "a simulated node could not be created");
        }
    }
}

fn node_object(index: u32) -> Value {
    let name = format!("sim-node-{index}");
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "beta.kubernetes.io/os": "linux",
                "beta.kubernetes.io/arch": "amd64",
            },
            "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
        },
        "spec": {"podCIDR": format!("10.244.{index}.0/24"), "podCIDRs": [format!("10.244.{index}.0/24")]},
    })
}

/// A healthy node's status, as a 1.35 kubelet reports it.
fn node_status(index: u32, now: Timestamp) -> Value {
    let time = meta::time(now);
    let condition = |condition_type: &str, status: &str, reason: &str, message: &str| {
        json!({"type": condition_type, "status": status, "lastHeartbeatTime": time, "lastTransitionTime": time,
               "reason": reason, "message": message})
    };
    let resources =
        json!({"cpu": "8", "ephemeral-storage": "100Gi", "hugepages-2Mi": "0", "memory": "32Gi", "pods": "110"});
    let name = format!("sim-node-{index}");
    let machine = super::template::digest(&name);
    json!({
        "addresses": [
            {"type": "InternalIP", "address": format!("172.18.0.{}", index + 2)},
            {"type": "Hostname", "address": name},
        ],
        "allocatable": resources,
        "capacity": resources,
        "conditions": [
            condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
            condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
            condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
        ],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "nodeInfo": {
            "architecture": "amd64",
            "bootID": &machine[..32],
            "containerRuntimeVersion": "containerd://2.1.4",
            "kernelVersion": "6.8.0-sim",
            "kubeProxyVersion": "",
            "kubeletVersion": "v1.35.0",
            "machineID": &machine[32..],
            "operatingSystem": "linux",
            "osImage": "berth simulated node",
            "systemUUID": &machine[..32],
        },
    })
}

/// Whether `node` satisfies the pod template's `nodeSelector`.
pub(super) fn matches_node_selector(template: &Value, node: &NodeInfo) -> bool {
    let selector = meta::map_at(template, &["spec", "nodeSelector"]);
    meta::labels_match(&node.labels, &selector)
}

/// The node a pod is bound to.
pub(super) fn node_name(pod: &Value) -> &str {
    str_at(pod, &["spec", "nodeName"]).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simulated_nodes_read_back_as_schedulable_with_their_address() {
        let mut node = node_object(1);
        node["status"] = node_status(1, Timestamp::UNIX_EPOCH);
        let info = NodeInfo::from_object(&node);
        assert_eq!(info.name, "sim-node-1");
        assert_eq!(info.address, "172.18.0.3");
        assert!(info.schedulable);
        node["spec"]["unschedulable"] = json!(true);
        assert!(!NodeInfo::from_object(&node).schedulable);
        let template = json!({"spec": {"nodeSelector": {"kubernetes.io/os": "linux"}}});
        assert!(matches_node_selector(&template, &info));
        assert!(!matches_node_selector(&json!({"spec": {"nodeSelector": {"disk": "ssd"}}}), &info));
    }

    #[test]
    fn placement_is_round_robin_and_addresses_are_unique() {
        let mut nodes = Nodes::default();
        for index in 0..3 {
            let mut node = node_object(index);
            node["status"] = node_status(index, Timestamp::UNIX_EPOCH);
            nodes.nodes.push(NodeInfo::from_object(&node));
        }
        let picked: Vec<String> = (0..4).filter_map(|_| nodes.pick(|_| true)).map(|node| node.name).collect();
        assert_eq!(picked, ["sim-node-0", "sim-node-1", "sim-node-2", "sim-node-0"]);
        assert!(nodes.pick(|node| node.name == "none").is_none());
        let first = nodes.pod_address("a");
        assert_eq!(first, "10.244.0.1");
        assert_eq!(nodes.pod_address("a"), first, "stable per pod");
        assert_ne!(nodes.pod_address("b"), first);
    }
}
