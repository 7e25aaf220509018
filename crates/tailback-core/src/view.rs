//! A read-only view of network state for congestion management mechanisms.

use crate::ids::PortId;
use crate::routing::Routing;
use crate::topology::Topology;

/// What one credit stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreditUnit {
    /// One flit (the virtual-channel router's buffers count flits).
    Flit,
    /// One buffer block of `bytes` bytes (a fabric whose packets occupy whole blocks).
    Block {
        /// Bytes per block.
        bytes: u32,
    },
}

/// The state of a set of switches a mechanism may look at (through a [`NetworkView`]); every
/// fabric answers these queries.
pub(crate) trait SwitchState {
    /// Virtual channels per port.
    fn vcs(&self) -> usize;

    /// Credits per VC buffer (its capacity).
    fn buffer_credits(&self) -> u32;

    /// What a credit stands for.
    fn credit_unit(&self) -> CreditUnit;

    /// Flits buffered at input VC `vc` of `port`.
    fn input_occupancy(&self, port: PortId, vc: usize) -> u32;

    /// Credits held for output VC `vc` of `port`.
    fn output_credits(&self, port: PortId, vc: usize) -> u32;

    /// Whether output VC `vc` of `port` may be allocated to a new packet.
    fn output_vc_free(&self, port: PortId, vc: usize) -> bool;

    /// Whether the input at router VC slot `slot` takes `flits` more flits for node `dst` now
    /// (fabrics whose queues per destination have room of their own, or that hold back
    /// destinations; always otherwise).
    fn admits(&self, _slot: usize, _dst: u32, _flits: u32) -> bool {
        true
    }

    /// Flits buffered in all switches.
    fn buffered_flits(&self) -> u64;
}

/// What a mechanism may look at: buffer occupancy and credit state of every switch port.
#[derive(Clone, Copy)]
pub struct NetworkView<'a> {
    fabric: &'a dyn SwitchState,
    topology: &'a Topology,
    routing: &'a Routing,
    now: u64,
}

impl std::fmt::Debug for NetworkView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetworkView")
            .field("now", &self.now)
            .finish_non_exhaustive()
    }
}

impl<'a> NetworkView<'a> {
    pub(crate) fn new(
        fabric: &'a dyn SwitchState,
        topology: &'a Topology,
        routing: &'a Routing,
        now: u64,
    ) -> Self {
        NetworkView {
            fabric,
            topology,
            routing,
            now,
        }
    }

    /// Whether router VC slot `slot` takes `flits` more flits for node `dst` (queues with room
    /// of their own: VOQnet).
    #[inline]
    pub(crate) fn admits(&self, slot: usize, dst: u32, flits: u32) -> bool {
        self.fabric.admits(slot, dst, flits)
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
        self.fabric.vcs()
    }

    /// Capacity of a VC buffer, in credits.
    pub fn vc_capacity(&self) -> u32 {
        self.fabric.buffer_credits()
    }

    /// What one credit (and one unit of occupancy) stands for.
    pub fn credit_unit(&self) -> CreditUnit {
        self.fabric.credit_unit()
    }

    /// Flits in input VC `vc` of `port`; panics on a port or VC the network does not have.
    pub fn input_occupancy(&self, port: PortId, vc: usize) -> u32 {
        self.fabric.input_occupancy(port, vc)
    }

    /// Credits (free downstream room known upstream) of output VC `vc` of `port`.
    pub fn output_credits(&self, port: PortId, vc: usize) -> u32 {
        self.fabric.output_credits(port, vc)
    }

    /// Whether output VC `vc` of `port` is free to be allocated to a new packet.
    pub fn output_vc_free(&self, port: PortId, vc: usize) -> bool {
        self.fabric.output_vc_free(port, vc)
    }

    /// Flits buffered in all switches (a full scan; track buffer events for per-cycle use).
    pub fn buffered_flits(&self) -> u64 {
        self.fabric.buffered_flits()
    }
}
