//! Hook points through which congestion management mechanisms observe and steer the engine.
//!
//! A mechanism implements [`CongestionControl`]; every method has a do-nothing default. The
//! engine is generic over the mechanism, so calls compile to nothing when a mechanism keeps the
//! default, and the `*_EVENTS` / `PER_CYCLE` constants let the engine skip whole groups of calls
//! (and the work of preparing their arguments) for mechanisms that do not ask for them.
//!
//! When each hook fires:
//! - [`may_start_injection`](CongestionControl::may_start_injection): every cycle in which a NIC
//!   has a waiting packet and is not already injecting one. Returning `false` holds the packet in
//!   the source queue; a packet whose injection has started is never interrupted.
//! - [`on_injected`](CongestionControl::on_injected): when a packet's head flit leaves the NIC.
//! - [`on_delivered`](CongestionControl::on_delivered): when the destination NIC consumes the
//!   tail flit.
//! - [`on_enqueue`](CongestionControl::on_enqueue) / [`on_dequeue`](CongestionControl::on_dequeue):
//!   when a flit enters or leaves a router input VC buffer (only if `BUFFER_EVENTS`).
//! - [`on_forward`](CongestionControl::on_forward): when a head flit is switched to an output
//!   port; the mechanism may mark the packet (only if `FORWARD_EVENTS`).
//! - [`end_of_cycle`](CongestionControl::end_of_cycle): after all components have moved, with a
//!   global read-only view of the network (only if `PER_CYCLE`). Side-band models that gather
//!   global state live here.

use crate::ids::{NodeId, RouterId};
use crate::packet::Packet;
use crate::traffic::Offered;
use crate::view::NetworkView;

/// A flit entering or leaving a router input VC buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferEvent {
    /// The router.
    pub router: RouterId,
    /// Local input port.
    pub port: u8,
    /// Virtual channel.
    pub vc: u8,
    /// Flits in the buffer after the event.
    pub occupancy: u32,
    /// Capacity of the buffer in flits.
    pub capacity: u32,
    /// A dequeue through the switch: the local output port the flit leaves by (`None` for an
    /// enqueue and for the deadlock-recovery lane).
    pub out_port: Option<u8>,
}

/// A head flit switched from an input to an output port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ForwardEvent {
    /// The router.
    pub router: RouterId,
    /// Local input port.
    pub in_port: u8,
    /// Local output port.
    pub out_port: u8,
    /// Output VC.
    pub out_vc: u8,
}

/// What a mechanism reports about itself for time series.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Gauges {
    /// Current congestion threshold, if the mechanism has one.
    pub threshold: Option<f64>,
    /// Current congestion estimate the threshold is compared with.
    pub estimate: Option<f64>,
    /// Node-cycles in which a node with a waiting packet was refused injection, since the start.
    pub throttled_node_cycles: u64,
    /// Valid (nonempty) router input buffers per router, if the mechanism counts them.
    pub valid_per_router: Option<f64>,
    /// Fraction of nodes whose throttling mode is on, if the mechanism has such a mode.
    pub throttled_nodes: Option<f64>,
}

/// A congestion management mechanism.
pub trait CongestionControl {
    /// Call [`on_enqueue`](Self::on_enqueue) and [`on_dequeue`](Self::on_dequeue).
    const BUFFER_EVENTS: bool = false;
    /// Call [`on_forward`](Self::on_forward).
    const FORWARD_EVENTS: bool = false;
    /// Call [`end_of_cycle`](Self::end_of_cycle) every cycle (also stops the engine from
    /// skipping idle stretches of time).
    const PER_CYCLE: bool = false;

    /// Whether `node` may start injecting `packet` now.
    #[inline]
    fn may_start_injection(
        &mut self,
        _view: &NetworkView<'_>,
        _node: NodeId,
        _packet: &Offered,
        _now: u64,
    ) -> bool {
        true
    }

    /// A packet's head flit left its source NIC.
    #[inline]
    fn on_injected(&mut self, _node: NodeId, _packet: &Packet, _now: u64) {}

    /// `node` finished injecting a packet: its tail flit left the NIC.
    #[inline]
    fn on_injection_done(&mut self, _node: NodeId, _now: u64) {}

    /// A packet's tail flit was consumed by its destination NIC.
    #[inline]
    fn on_delivered(&mut self, _node: NodeId, _packet: &Packet, _now: u64) {}

    /// A flit entered a router input VC buffer.
    #[inline]
    fn on_enqueue(&mut self, _event: BufferEvent, _now: u64) {}

    /// A flit left a router input VC buffer.
    #[inline]
    fn on_dequeue(&mut self, _event: BufferEvent, _now: u64) {}

    /// A head flit was switched towards an output port; the packet may be marked.
    #[inline]
    fn on_forward(&mut self, _event: ForwardEvent, _packet: &mut Packet, _now: u64) {}

    /// The cycle is over.
    #[inline]
    fn end_of_cycle(&mut self, _view: &NetworkView<'_>, _now: u64) {}

    /// The mechanism's state for time series.
    fn gauges(&self) -> Gauges {
        Gauges::default()
    }
}

/// No congestion management: every hook keeps its default.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoControl;

impl CongestionControl for NoControl {}
