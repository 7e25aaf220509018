//! A read-only view of network state for congestion management mechanisms.

use crate::ids::PortId;
use crate::router::RouterSet;
use crate::routing::Routing;
use crate::topology::Topology;

/// What a mechanism may look at: buffer occupancy and credit state of every router port.
#[derive(Debug, Clone, Copy)]
pub struct NetworkView<'a> {
    routers: &'a RouterSet,
    topology: &'a Topology,
    routing: &'a Routing,
    now: u64,
}

impl<'a> NetworkView<'a> {
    pub(crate) fn new(
        routers: &'a RouterSet,
        topology: &'a Topology,
        routing: &'a Routing,
        now: u64,
    ) -> Self {
        NetworkView {
            routers,
            topology,
            routing,
            now,
        }
    }

    /// The routing function.
    pub fn routing(&self) -> &'a Routing {
        self.routing
    }

    /// The current cycle.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// The network's wiring.
    pub fn topology(&self) -> &'a Topology {
        self.topology
    }

    /// Virtual channels per port.
    pub fn vcs(&self) -> usize {
        self.routers.vcs
    }

    /// Flits per VC buffer.
    pub fn vc_capacity(&self) -> u32 {
        self.routers.capacity
    }

    /// The VC slot of (`port`, `vc`); panics on a port or VC the network does not have.
    fn slot(&self, port: PortId, vc: usize) -> usize {
        assert!(
            port.index() < self.topology.ports().len() && vc < self.routers.vcs,
            "port {port} VC {vc} does not exist ({} ports, {} VCs)",
            self.topology.ports().len(),
            self.routers.vcs
        );
        self.routers.slots.port_vc(port.index(), vc)
    }

    /// Flits in input VC `vc` of `port`.
    pub fn input_occupancy(&self, port: PortId, vc: usize) -> u32 {
        self.routers.ivc[self.slot(port, vc)].len as u32
    }

    /// Credits (free downstream slots known upstream) of output VC `vc` of `port`.
    pub fn output_credits(&self, port: PortId, vc: usize) -> u32 {
        self.routers.ovc[self.slot(port, vc)].credits as u32
    }

    /// Whether output VC `vc` of `port` is free to be allocated to a new packet.
    pub fn output_vc_free(&self, port: PortId, vc: usize) -> bool {
        let slot = self.slot(port, vc);
        self.routers.ports[self.routers.slots.owner(slot)].out_free & (1 << vc) != 0
    }

    /// Flits buffered in all routers (a full scan; track buffer events for per-cycle use).
    pub fn buffered_flits(&self) -> u64 {
        self.routers.buffered_flits()
    }
}
