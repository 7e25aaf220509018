//! Hook points through which congestion management mechanisms observe and steer the engine.
//!
//! A mechanism implements [`CongestionControl`]; every method has a do-nothing default. The
//! engine is generic over the mechanism, so calls compile to nothing when a mechanism keeps the
//! default, and the `*_EVENTS` / `PER_CYCLE` / `FLOWS` constants let the engine skip whole
//! groups of calls (and the work of preparing their arguments) for mechanisms that do not ask
//! for them.
//!
//! Every hook gets a [`Context`]: the cycle, an [`Outbox`] through which the mechanism sends
//! real control packets, [`Timers`] that wake it at a chosen cycle without polling, and the
//! [`Arrivals`] queues of the processor model. Hooks called between component steps also get a
//! read-only [`NetworkView`].
//!
//! When each hook fires:
//! - [`next_packet`](CongestionControl::next_packet) (only if `FLOWS`): when a NIC has room for
//!   its next request and packets wait in its per-destination [`Flows`]; the mechanism takes
//!   the packet to send next, or none (the NIC then sleeps until a packet arrives or a timer of
//!   the node fires). A flow the mechanism does not take never blocks another.
//! - [`may_start_injection`](CongestionControl::may_start_injection): every cycle in which a NIC
//!   has a request waiting and is not already injecting one. Returning `false` holds the NIC's
//!   requests (it tries again next cycle); a packet whose injection has started is never
//!   interrupted. Control packets and replies are never held.
//! - [`on_injected`](CongestionControl::on_injected): when a packet's head flit leaves the NIC.
//! - [`on_arrival`](CongestionControl::on_arrival): with a processor model, when a workload
//!   packet's tail reaches its destination NIC, before it joins the arrivals queue; the
//!   mechanism may keep it and hand it over later.
//! - [`on_delivered`](CongestionControl::on_delivered): when a workload packet is delivered (the
//!   NIC consumes its tail, or with a processor model the processor takes it).
//! - [`on_control`](CongestionControl::on_control): when a control packet sent through the
//!   outbox has reached its destination NIC (after the NICs' step of that cycle). Control
//!   packets never wait for the arrivals queue and never reach the processor.
//! - [`on_enqueue`](CongestionControl::on_enqueue) / [`on_dequeue`](CongestionControl::on_dequeue):
//!   when a flit enters or leaves a router input VC buffer (only if `BUFFER_EVENTS`).
//! - [`on_forward`](CongestionControl::on_forward): when a head flit is switched to an output
//!   port; the mechanism sees the output VC's credits and may mark the packet (only if
//!   `FORWARD_EVENTS`).
//! - [`on_port_vl`](CongestionControl::on_port_vl) / [`on_departure`](CongestionControl::on_departure):
//!   in buffered switches, when the blocks queued for an output port and VL change, and just
//!   before a packet leaves through it (which may be marked, and whose source the switch may
//!   notify with a [`Notice`]) (only if `PORT_VL_EVENTS`); with `JOINS`,
//!   [`on_joined`](CongestionControl::on_joined) when a packet has joined a Port VL's queue
//!   (which may be marked, or answered with a [`Notice`]).
//! - [`send_time`](CongestionControl::send_time): when a channel adapter with per-destination
//!   queues looks for a destination to serve (only if `PACING`); one not due yet keeps its turn.
//! - [`on_timer`](CongestionControl::on_timer): at the start of a cycle asked for with
//!   [`Timers::wake`], before the NICs step.
//! - [`end_of_cycle`](CongestionControl::end_of_cycle): after all components have moved, with a
//!   global read-only view of the network (only if `PER_CYCLE`). Side-band models that gather
//!   global state live here.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

use crate::ids::{NodeId, PortId, RouterId};
use crate::packet::{LogicalNetwork, Packet, PacketSlab};
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
    /// Credits the output VC holds after the head took one: free room in the buffer it feeds.
    pub out_credits: u32,
    /// Capacity of that buffer, in credits: `out_capacity - out_credits` is the output queue's
    /// occupancy as this router knows it (flits buffered downstream or on their way).
    pub out_capacity: u32,
}

/// The queued traffic of an output port and VL (a *Port VL*) of a buffered switch: what
/// InfiniBand congestion detection compares with its thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortVlEvent {
    /// The output port.
    pub port: PortId,
    /// The virtual lane.
    pub vl: u8,
    /// The local input port whose queue for this Port VL changed (or whose packet leaves).
    pub input: u8,
    /// Blocks queued at that input for this Port VL.
    pub input_blocks: u32,
    /// Blocks queued at all inputs of the switch for this Port VL.
    pub blocks: u32,
    /// Inputs with blocks queued for this Port VL.
    pub contributors: u32,
    /// Credits the output holds on this VL (after a departing packet took its own).
    pub credits: u32,
    /// Whether the port leads to a channel adapter (a node).
    pub to_node: bool,
    /// For a departing packet: whether its routing offered other output ports at this
    /// switch (it was sent here by choice); `false` for other events.
    pub chosen: bool,
    /// The cycle.
    pub now: u64,
}

/// A Port VL's congestion record since the start of the run, as a mechanism reports it for the
/// time series ([`CongestionControl::port_vl_totals`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortVlTotals {
    /// The output port.
    pub port: PortId,
    /// The virtual lane.
    pub vl: u8,
    /// Cycles spent in the congestion state.
    pub congested_cycles: u64,
    /// Packets marked.
    pub marks: u64,
}

/// A notification a buffered switch sends straight back to the source of a packet leaving
/// one of its Port VLs ([`CongestionControl::on_departure`]): a control packet of `blocks`
/// blocks that the switch routes to node `to` like any packet, on the lane kept for control
/// packets if there is one (served first at every output), else on the first lane. It reaches
/// the mechanism through [`CongestionControl::on_control`] at `to`, with
/// [`Packet::src`] set to `about` (the destination of the flow it is about, as a destination's
/// notification names its flow by its own address) and [`Packet::header`] to `bits`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Notice {
    /// The source adapter it goes to.
    pub to: NodeId,
    /// The destination of the flow it is about.
    pub about: NodeId,
    /// Its length in blocks (at least 1).
    pub blocks: u32,
    /// Header bits of the mechanism's protocol (the feedback it carries).
    pub bits: u32,
}

/// A control packet a mechanism sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ControlPacket {
    pub(crate) src: NodeId,
    pub(crate) packet: Offered,
}

/// Control packets sent by hooks, waiting to enter their source NICs.
///
/// The engine moves them into the NICs after each component's step, so a packet sent in a
/// cycle can start injection in the next component that runs (a NIC after the processors, or
/// the next cycle). At the NIC a control packet goes before every packet of its logical
/// network, is never held by [`CongestionControl::may_start_injection`], is not counted as
/// offered load or measured (its flits count as accepted), and on arrival is handed to
/// [`CongestionControl::on_control`] instead of being delivered.
#[derive(Debug, Default)]
pub struct Outbox {
    /// The current cycle (the packets' creation time).
    pub(crate) now: u64,
    pub(crate) packets: Vec<ControlPacket>,
}

impl Outbox {
    /// Sends a `flits`-flit control packet from `src` to `dst` on logical `network`, carrying
    /// `bits` in its header ([`Packet::header`]).
    pub fn send(
        &mut self,
        src: NodeId,
        dst: NodeId,
        flits: u32,
        network: LogicalNetwork,
        bits: u32,
    ) {
        self.packets.push(ControlPacket {
            src,
            packet: Offered {
                created: self.now,
                dst: dst.index() as u32,
                flits,
                network,
                message_rest: 0,
                header: bits,
                control: true,
                traced: false,
            },
        });
    }
}

/// Wake-up calls of a mechanism: [`CongestionControl::on_timer`] runs for a node at the cycle
/// asked for, and the node's NIC looks at its flows again, without the engine visiting
/// anything in between (idle stretches are still skipped).
#[derive(Debug, Default)]
pub struct Timers {
    due: BinaryHeap<Reverse<(u64, u32)>>,
}

impl Timers {
    /// Wakes the mechanism for `node` at cycle `at` (the next cycle if `at` has passed).
    pub fn wake(&mut self, node: NodeId, at: u64) {
        self.due.push(Reverse((at, node.index() as u32)));
    }

    /// The earliest cycle a timer is due ([`u64::MAX`]: none).
    pub(crate) fn next_due(&self) -> u64 {
        self.due.peek().map_or(u64::MAX, |Reverse((at, _))| *at)
    }

    /// Takes the next timer due by `now`: its node.
    pub(crate) fn pop_due(&mut self, now: u64) -> Option<usize> {
        match self.due.peek() {
            Some(&Reverse((at, node))) if at <= now => {
                self.due.pop();
                Some(node as usize)
            }
            _ => None,
        }
    }
}

/// A packet that reached its destination NIC, kept by a mechanism
/// ([`CongestionControl::on_arrival`]) until it hands it to the processor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arrived(pub(crate) u32);

/// The processor model's arrivals queues: complete packets waiting for each node's processor.
/// Without a processor model there are none.
#[derive(Debug, Default)]
pub struct Arrivals {
    queues: Vec<VecDeque<u32>>,
    capacity: usize,
}

impl Arrivals {
    /// Queues of `capacity` packets for `nodes` nodes.
    pub(crate) fn new(nodes: usize, capacity: usize) -> Arrivals {
        Arrivals {
            queues: vec![VecDeque::new(); nodes],
            capacity,
        }
    }

    /// Whether `node`'s arrivals queue has room for another packet (never without a processor
    /// model).
    #[inline]
    pub fn has_room(&self, node: NodeId) -> bool {
        self.queues
            .get(node.index())
            .is_some_and(|q| q.len() < self.capacity)
    }

    /// Hands a kept packet to `node`'s processor; it must have room ([`has_room`](Self::has_room)).
    pub fn hand_over(&mut self, node: NodeId, packet: Arrived) {
        let queue = &mut self.queues[node.index()];
        assert!(
            queue.len() < self.capacity,
            "node {node}'s arrivals queue overflows"
        );
        queue.push_back(packet.0);
    }

    /// The oldest packet waiting for `node`'s processor.
    pub(crate) fn take(&mut self, node: usize) -> Option<u32> {
        self.queues.get_mut(node)?.pop_front()
    }
}

/// The engine's state behind every hook [`Context`]: the outbox, the timers and the arrivals
/// queues, owned by the simulation and lent to each hook call.
#[derive(Debug, Default)]
pub(crate) struct HookState {
    pub(crate) outbox: Outbox,
    pub(crate) timers: Timers,
    pub(crate) arrivals: Arrivals,
}

impl HookState {
    /// The context of a hook called in cycle `now`.
    #[inline]
    pub(crate) fn context(&mut self, now: u64) -> Context<'_> {
        Context {
            now,
            outbox: &mut self.outbox,
            timers: &mut self.timers,
            arrivals: &mut self.arrivals,
        }
    }
}

/// What every hook may use besides its arguments.
pub struct Context<'a> {
    /// The current cycle.
    pub now: u64,
    /// Where control packets go.
    pub outbox: &'a mut Outbox,
    /// Wake-up calls.
    pub timers: &'a mut Timers,
    /// The processor model's arrivals queues.
    pub arrivals: &'a mut Arrivals,
}

/// A NIC's requests waiting to be chosen, one first-in first-out queue per destination.
#[derive(Debug, Clone, Default)]
pub struct Flows {
    /// Packets by destination, each with its arrival number; empty queues are removed.
    queues: BTreeMap<u32, VecDeque<(u64, Offered)>>,
    /// Arrival number of the next packet.
    arrivals: u64,
    len: usize,
}

impl Flows {
    /// Packets waiting in all flows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no packet waits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends a packet to its destination's flow.
    pub(crate) fn push(&mut self, packet: Offered) {
        self.queues
            .entry(packet.dst)
            .or_default()
            .push_back((self.arrivals, packet));
        self.arrivals += 1;
        self.len += 1;
    }

    /// The destination of the flow whose first packet arrived earliest among those `eligible`
    /// accepts.
    pub fn oldest_where(&self, mut eligible: impl FnMut(&Offered) -> bool) -> Option<u32> {
        self.queues
            .iter()
            .filter_map(|(&dst, q)| q.front().map(|&(n, ref p)| (n, dst, p)))
            .filter(|(_, _, p)| eligible(p))
            .min_by_key(|&(n, _, _)| n)
            .map(|(_, dst, _)| dst)
    }

    /// Takes the first packet of the flow to `dst`.
    pub fn pop(&mut self, dst: u32) -> Option<Offered> {
        let queue = self.queues.get_mut(&dst)?;
        let (_, packet) = queue.pop_front()?;
        if queue.is_empty() {
            self.queues.remove(&dst);
        }
        self.len -= 1;
        Some(packet)
    }

    /// Takes the packet that arrived first, whatever its flow.
    pub fn pop_oldest(&mut self) -> Option<Offered> {
        let dst = self.oldest_where(|_| true)?;
        self.pop(dst)
    }
}

/// Packets in flight and committed at the NICs, for a mechanism's self-check
/// ([`CongestionControl::check`]).
pub struct Inspection<'a> {
    pub(crate) packets: &'a PacketSlab,
    pub(crate) nics: &'a dyn Committed,
}

/// What the NICs have committed to send (for an [`Inspection`]).
pub(crate) trait Committed {
    /// Packets `node` has committed to send and not started.
    fn committed(&self, node: usize) -> Box<dyn Iterator<Item = &Offered> + '_>;
}

impl Inspection<'_> {
    /// Every packet between injection and delivery (or hand-over to a mechanism or processor).
    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.packets.iter_live()
    }

    /// Packets `node`'s NIC has committed to send (chosen from its flows, replies and control
    /// packets) and not started yet.
    pub fn committed(&self, node: NodeId) -> impl Iterator<Item = &Offered> {
        self.nics.committed(node.index())
    }
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
    /// NICs keep their requests in per-destination [`Flows`] and ask
    /// [`next_packet`](Self::next_packet) which to send; otherwise a NIC sends its requests in
    /// the order they were created.
    const FLOWS: bool = false;
    /// Buffered switches call [`on_port_vl`](Self::on_port_vl) and
    /// [`on_departure`](Self::on_departure).
    const PORT_VL_EVENTS: bool = false;
    /// [`on_departure`](Self::on_departure) or [`on_joined`](Self::on_joined) may return a
    /// [`Notice`]: the switches' outputs look for notices waiting (with `PORT_VL_EVENTS`).
    const NOTICES: bool = false;
    /// Buffered switches call [`on_joined`](Self::on_joined) (with `PORT_VL_EVENTS`; not with
    /// isolating queues).
    const JOINS: bool = false;
    /// Channel adapters with per-destination queues ask [`send_time`](Self::send_time) when
    /// each destination may send.
    const PACING: bool = false;
    /// Names (snake case) of the values the mechanism reports in every time-series row
    /// ([`gauges`](Self::gauges)): columns of the series after the engine's own.
    const GAUGES: &'static [&'static str] = &[];
    /// Name (snake case) of the value the mechanism keeps per flow, reported with each flow's
    /// throughput in every series window ([`flow_gauge`](Self::flow_gauge)).
    const FLOW_GAUGE: Option<&'static str> = None;

    /// Packets a NIC's flows may hold before the processor (or source) must wait, given the
    /// configured source-queue limit (only if `FLOWS`).
    fn flow_capacity(&self, configured: Option<u32>) -> Option<u32> {
        configured
    }

    /// Packets an arrivals queue holds, given the configured number (processor model).
    fn arrivals_capacity(&self, configured: u32) -> u32 {
        configured
    }

    /// The packet `node`'s NIC sends next, taken from its `flows`, or none for now (only if
    /// `FLOWS`). The default takes the oldest.
    #[inline]
    fn next_packet(
        &mut self,
        _cx: &mut Context<'_>,
        _node: NodeId,
        flows: &mut Flows,
    ) -> Option<Offered> {
        flows.pop_oldest()
    }

    /// Whether `node` may start injecting `packet` now.
    #[inline]
    fn may_start_injection(
        &mut self,
        _cx: &mut Context<'_>,
        _view: &NetworkView<'_>,
        _node: NodeId,
        _packet: &Offered,
    ) -> bool {
        true
    }

    /// A packet's head flit left its source NIC.
    #[inline]
    fn on_injected(&mut self, _cx: &mut Context<'_>, _node: NodeId, _packet: &Packet) {}

    /// `node` finished injecting a packet: its tail flit left the NIC.
    #[inline]
    fn on_injection_done(&mut self, _cx: &mut Context<'_>, _node: NodeId) {}

    /// With a processor model: a workload packet's tail reached `node`'s NIC. Return `false`
    /// to keep it (`packet`'s handle `id`, handed over later with [`Arrivals::hand_over`]);
    /// `true` puts it in the arrivals queue now (which has room).
    #[inline]
    fn on_arrival(
        &mut self,
        _cx: &mut Context<'_>,
        _node: NodeId,
        _packet: &Packet,
        _id: Arrived,
    ) -> bool {
        true
    }

    /// A workload packet was delivered at `node`.
    #[inline]
    fn on_delivered(&mut self, _cx: &mut Context<'_>, _node: NodeId, _packet: &Packet) {}

    /// A control packet reached `node`.
    #[inline]
    fn on_control(&mut self, _cx: &mut Context<'_>, _node: NodeId, _packet: &Packet) {}

    /// A flit entered a router input VC buffer.
    #[inline]
    fn on_enqueue(&mut self, _cx: &mut Context<'_>, _event: BufferEvent) {}

    /// A flit left a router input VC buffer.
    #[inline]
    fn on_dequeue(&mut self, _cx: &mut Context<'_>, _event: BufferEvent) {}

    /// A head flit was switched towards an output port; the packet may be marked.
    #[inline]
    fn on_forward(&mut self, _cx: &mut Context<'_>, _event: ForwardEvent, _packet: &mut Packet) {}

    /// The blocks queued for a Port VL of a buffered switch changed: a packet routed to it
    /// joined a queue, or started to leave (only if `PORT_VL_EVENTS`).
    #[inline]
    fn on_port_vl(&mut self, _event: PortVlEvent) {}

    /// `packet` has joined the queue of a Port VL of a buffered switch (counted in `event`);
    /// the packet may be marked, and the switch may send a [`Notice`] back to its source
    /// (only if `JOINS`).
    #[inline]
    fn on_joined(&mut self, _event: PortVlEvent, _packet: &mut Packet) -> Option<Notice> {
        None
    }

    /// `packet` is about to leave through a Port VL of a buffered switch (its blocks still
    /// counted in `event`); the packet may be marked, and the switch may send a [`Notice`]
    /// back to its source (only if `PORT_VL_EVENTS`).
    #[inline]
    fn on_departure(&mut self, _event: PortVlEvent, _packet: &mut Packet) -> Option<Notice> {
        None
    }

    /// The earliest cycle `node` may start a packet to `dst`, at or after `now` (only if
    /// `PACING`; channel adapters with per-destination queues).
    #[inline]
    fn send_time(&self, _node: NodeId, _dst: u32, now: u64) -> u64 {
        now
    }

    /// A timer of `node` set with [`Timers::wake`] is due.
    #[inline]
    fn on_timer(&mut self, _cx: &mut Context<'_>, _view: &NetworkView<'_>, _node: NodeId) {}

    /// The cycle is over.
    #[inline]
    fn end_of_cycle(&mut self, _cx: &mut Context<'_>, _view: &NetworkView<'_>) {}

    /// Checks the mechanism's own state against the packets on their way (with
    /// `sim.check_invariants`); describes the first violation.
    fn check(&self, _state: &Inspection<'_>) -> Result<(), String> {
        Ok(())
    }

    /// Node-cycles in which a node with a waiting packet was refused injection, since the
    /// start (the time series' `throttled_fraction`).
    fn throttled_node_cycles(&self) -> u64 {
        0
    }

    /// The value of each of [`GAUGES`](Self::GAUGES) at cycle `now`, in order (`None`:
    /// undefined now). Called once per time-series window.
    fn gauges(&self, _now: u64, _values: &mut [Option<f64>]) {}

    /// The value of [`FLOW_GAUGE`](Self::FLOW_GAUGE) for `src`'s flow to `dst` at cycle `now`.
    fn flow_gauge(&self, _src: NodeId, _dst: u32, _now: u64) -> f64 {
        0.0
    }

    /// Appends the congestion record at cycle `now` of every Port VL that has been congested
    /// or marked a packet (buffered switches; called once per time-series window).
    fn port_vl_totals(&self, _now: u64, _out: &mut Vec<PortVlTotals>) {}

    /// Totals over the whole run the summary reports (name, count), e.g. packets marked.
    fn counts(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

/// No congestion management: every hook keeps its default.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoControl;

impl CongestionControl for NoControl {}
