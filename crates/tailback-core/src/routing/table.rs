//! Table routing for topology files: at every switch, one output port per destination node,
//! from the file's forwarding tables or shortest paths (`topology::CustomShape`); adaptive
//! table routing may take any port a route lists. Deadlock freedom depends on the tables; the
//! configuration checks their channel dependency graph (over every listed port when adaptive).

use super::Hop;
use crate::ids::NodeId;
use crate::topology::{CustomShape, Link, Topology};

/// Forwarding tables of a topology file.
#[derive(Debug, Clone)]
pub struct TableRouting {
    nodes: usize,
    /// Output port per (switch, node).
    next: Vec<u8>,
    /// Router-to-router hops per (switch, node).
    hops: Vec<u32>,
    /// Adaptive routing: every port each route lists, per (switch, node), where some route
    /// lists several (empty otherwise).
    choices: Vec<u64>,
    vcs: u32,
}

impl TableRouting {
    /// The tables of `file`, built into `topology`, with `vcs` VCs per port; `adaptive`: any
    /// port a route lists may be taken.
    pub fn new(file: &CustomShape, topology: &Topology, vcs: u32, adaptive: bool) -> TableRouting {
        let (switches, nodes) = (file.switches(), file.nodes());
        let next: Vec<u8> = (0..switches)
            .flat_map(|s| (0..nodes).map(move |n| file.next_port(s, n)))
            .collect();
        // Hops from each switch, node by node: follow a route until a switch whose count is
        // known (or the node's own), then fill the counts back along the way (the file reader
        // checked that every route ends at its node). Linear in switches times nodes.
        const UNKNOWN: u32 = u32::MAX;
        let mut hops = vec![UNKNOWN; switches * nodes];
        let mut path = Vec::new();
        for n in 0..nodes {
            for s in 0..switches {
                let mut at = s;
                let mut known = loop {
                    if hops[at * nodes + n] != UNKNOWN {
                        break hops[at * nodes + n];
                    }
                    let port = topology.router_ports(crate::ids::RouterId::new(at)).start
                        + next[at * nodes + n] as usize;
                    match topology.ports()[port].output {
                        Link::Router(peer) => {
                            path.push(at);
                            at = topology.ports()[peer.index()].router.index();
                        }
                        _ => {
                            hops[at * nodes + n] = 0;
                            break 0;
                        }
                    }
                };
                while let Some(back) = path.pop() {
                    known += 1;
                    hops[back * nodes + n] = known;
                }
            }
        }
        let choices = if adaptive && file.has_choices() {
            (0..switches)
                .flat_map(|s| (0..nodes).map(move |n| file.next_ports(s, n)))
                .collect()
        } else {
            Vec::new()
        };
        TableRouting {
            nodes,
            next,
            hops,
            choices,
            vcs: if vcs >= 32 { u32::MAX } else { (1 << vcs) - 1 },
        }
    }

    /// The hop from router `r` towards `dst`.
    #[inline]
    pub fn route(&self, r: usize, dst: NodeId) -> Hop {
        Hop {
            port: self.next[r * self.nodes + dst.index()],
            vcs: self.vcs,
            class: 0,
        }
    }

    /// The ports adaptive routing may choose among at router `r` towards `dst` (empty where
    /// the route lists one, or routing is not adaptive).
    #[inline]
    pub fn adaptive_ports(&self, r: usize, dst: NodeId) -> u64 {
        match self.choices.get(r * self.nodes + dst.index()) {
            Some(&ports) if ports.count_ones() > 1 => ports,
            _ => 0,
        }
    }

    /// Every port the routing may take at router `r` towards `dst`.
    pub fn listed_ports(&self, r: usize, dst: NodeId) -> u64 {
        self.choices
            .get(r * self.nodes + dst.index())
            .copied()
            .unwrap_or(1 << self.next[r * self.nodes + dst.index()])
    }

    /// Whether the routing may choose among several ports somewhere.
    pub fn is_adaptive(&self) -> bool {
        !self.choices.is_empty()
    }

    /// Every VC (table routing has one class).
    pub fn all_vcs(&self) -> u32 {
        self.vcs
    }

    /// Router-to-router hops from router `r` to `dst`.
    pub fn distance(&self, r: usize, dst: usize) -> u32 {
        self.hops[r * self.nodes + dst]
    }

    /// The longest route in router-to-router hops.
    pub fn diameter(&self) -> u32 {
        self.hops.iter().copied().max().unwrap_or(0)
    }
}
