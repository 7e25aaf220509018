//! At-Least-One (ALO; Baydal, López and Duato, IPDPS 2000): purely local injection limitation.
//!
//! A node may start a packet when, at its router, every *useful* output channel (one on a
//! minimal path to the packet's destination) has at least one free virtual channel, or at least
//! one useful channel has all its virtual channels free. A virtual channel is free when no
//! packet holds it. Packets to the node itself are never held back.

use super::registry::Registered;
use crate::bitset::bits64;
use crate::config::Config;
use crate::hooks::{CongestionControl, Context};
use crate::ids::{NodeId, PortId, RouterId};
use crate::topology::Topology;
use crate::traffic::Offered;
use crate::view::NetworkView;

/// The ALO injection limitation.
#[derive(Debug, Clone, Default)]
pub struct Alo {
    throttled_node_cycles: u64,
}

impl Alo {
    /// ALO with nothing throttled yet.
    pub fn new() -> Alo {
        Alo::default()
    }
}

impl Registered for Alo {
    type Settings = ();
    type Control = Alo;

    fn build(_: &(), _: &Config, _: &Topology) -> Alo {
        Alo::new()
    }
}

/// Whether ALO lets a packet from the router of `node` to `dst` enter the network.
pub fn alo_allows(view: &NetworkView<'_>, node: NodeId, dst: usize) -> bool {
    let topology = view.topology();
    let router = topology.ports()[topology.injection_port(node).index()].router;
    let first = topology.router_ports(router).start;
    // The packet has no routing draw yet: every direction a draw may give is useful.
    let (routing, at) = (view.routing(), RouterId::new(router.index()));
    let useful = routing.minimal_ports(at, dst, 0) | routing.minimal_ports(at, dst, u32::MAX);
    let vcs = view.vcs();
    let mut every_port_has_one = true;
    for local in bits64(useful) {
        let port = PortId::new(first + local);
        let free = (0..vcs).filter(|&vc| view.output_vc_free(port, vc)).count();
        if free == vcs {
            return true;
        }
        every_port_has_one &= free > 0;
    }
    every_port_has_one
}

impl CongestionControl for Alo {
    fn may_start_injection(
        &mut self,
        _cx: &mut Context<'_>,
        view: &NetworkView<'_>,
        node: NodeId,
        packet: &Offered,
    ) -> bool {
        let allowed = alo_allows(view, node, packet.dst as usize);
        if !allowed {
            self.throttled_node_cycles += 1;
        }
        allowed
    }

    fn throttled_node_cycles(&self) -> u64 {
        self.throttled_node_cycles
    }
}
