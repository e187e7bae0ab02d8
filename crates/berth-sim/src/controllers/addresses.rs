//! The addresses the API server and the cloud hand out to Services: cluster IPs (10.96.x.y), node ports
//! (30000-32767) and LoadBalancer ingress addresses (172.18.2xx.y), kept per Service uid.

use std::collections::{HashMap, HashSet};

/// Addresses handed out, kept per Service uid so an update that drops them gets the same ones back.
#[derive(Debug, Default)]
pub(super) struct Addresses {
    cluster_ips: HashMap<String, String>,
    used_cluster_ips: HashSet<String>,
    next_cluster_ip: u32,
    load_balancer_ips: HashMap<String, String>,
    next_load_balancer_ip: u32,
    node_ports: HashSet<i64>,
    next_node_port: i64,
}

impl Addresses {
    /// The cluster IP of the Service with `uid`, allocated once.
    pub(super) fn cluster_ip(&mut self, uid: &str) -> String {
        if let Some(address) = self.cluster_ips.get(uid) {
            return address.clone();
        }
        loop {
            // 10.96.0.1 is the `kubernetes` Service and 10.96.0.10 the DNS in a real cluster: start after.
            let index = 11 + self.next_cluster_ip % (254 * 254 - 11);
            self.next_cluster_ip = self.next_cluster_ip.wrapping_add(1);
            let address = format!("10.96.{}.{}", index / 254, index % 254 + 1);
            if self.used_cluster_ips.insert(address.clone()) {
                self.cluster_ips.insert(uid.to_string(), address.clone());
                return address;
            }
        }
    }

    /// Marks a cluster IP written by someone else as taken.
    pub(super) fn claim_cluster_ip(&mut self, uid: &str, address: &str) {
        if address.parse::<std::net::Ipv4Addr>().is_ok() {
            self.used_cluster_ips.insert(address.to_string());
            self.cluster_ips.entry(uid.to_string()).or_insert_with(|| address.to_string());
        }
    }

    pub(super) fn load_balancer_ip(&mut self, uid: &str) -> String {
        if let Some(address) = self.load_balancer_ips.get(uid) {
            return address.clone();
        }
        let index = self.next_load_balancer_ip % (254 * 56);
        self.next_load_balancer_ip = self.next_load_balancer_ip.wrapping_add(1);
        let address = format!("172.18.{}.{}", 200 + index / 254, index % 254 + 1);
        self.load_balancer_ips.insert(uid.to_string(), address.clone());
        address
    }

    pub(super) fn node_port(&mut self) -> i64 {
        loop {
            let port = 30000 + self.next_node_port % 2768;
            self.next_node_port += 1;
            if self.node_ports.insert(port) {
                return port;
            }
        }
    }

    /// Marks a node port written by someone else as taken.
    pub(super) fn claim_node_port(&mut self, port: i64) {
        self.node_ports.insert(port);
    }

    /// Frees what a deleted Service held.
    pub fn release(&mut self, uid: &str) {
        if let Some(address) = self.cluster_ips.remove(uid) {
            self.used_cluster_ips.remove(&address);
        }
        self.load_balancer_ips.remove(uid);
    }
}
