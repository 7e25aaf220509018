//! Network interfaces: a source queue (and a reply queue), an injection channel into the
//! router port the node injects into, and a receive side that consumes ejected flits at a
//! configurable rate.
//!
//! Injection sends one packet at a time per logical network, one flit per cycle (or per
//! node-link period) over both, on an injection VC of the packet's network chosen round-robin
//! among the free ones (with room for the whole packet under cut-through); replies go first.
//! The receive side holds up to one VC buffer of flits per ejection VC and consumes at most
//! `ejection_rate` flits per cycle in arrival order, returning a credit for each; with a
//! processor model, complete packets wait in an arrivals queue for the processor, and a full
//! queue stops consumption (except for control packets, which go to the mechanism).
//!
//! Requests wait in the source queue in creation order; when the mechanism asks for flows
//! ([`CongestionControl::FLOWS`]) they wait per destination instead, and the mechanism moves
//! the next one into the (then one-packet) source queue whenever it is empty; with
//! `nic.queues = "per_destination"` they wait per destination and the NIC takes them round
//! robin (`queue_pairs.rs`). Control packets from the mechanism's outbox go before the
//! requests. With `nic.inject_rate` a packet starts only when a token bucket filling at that
//! rate holds all its flits; a NIC waiting for its bucket sleeps until it is full enough.

mod pauses;
mod queue_pairs;
mod trains;

use std::collections::VecDeque;

use rand::RngExt;

use pauses::InjectionPauses;
use queue_pairs::QueuePairs;

use crate::bitset::BitSet;
use crate::bitset::{bits32, next_after_32};
use crate::calendar::Calendar;
use crate::config::{Multiplexing, NicConfig, NicQueues, RouterConfig};
use crate::event::{CreditBatch, FlitArrival, VcSlots, Wheel};
use crate::flit::Flit;
use crate::hooks::{Arrived, Committed, CongestionControl, Context, Flows, HookState};
use crate::ids::NodeId;
use crate::packet::{LogicalNetwork, Packet, PacketSlab};
use crate::rng::{self, Purpose, StreamRng};
use crate::stats::Collector;
use crate::topology::Topology;
use crate::traffic::Offered;
use crate::view::NetworkView;

const NO_PACKET: u32 = u32::MAX;

/// Cycles ahead a sleeping NIC's wake-up is kept in a per-cycle bucket (later ones in a heap):
/// a link busy with a packet, a received packet being consumed and most injection-rate delays
/// fall within it.
const SLEEP_HORIZON: u64 = 4096;

/// Of a network's VCs `all`, those a packet may use when `kept` are kept for control packets
/// (`control`: it is one).
#[inline]
fn lanes(all: u32, kept: u32, control: bool) -> u32 {
    match (kept, control) {
        (0, _) => all,
        (kept, true) => kept,
        (kept, false) => all & !kept,
    }
}
/// The pseudo VC of flits that arrive through the deadlock-recovery lane (they hold no credit).
const RECOVERED: u8 = u8::MAX;

/// What injection did in a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Injection {
    /// A flit left.
    Sent,
    /// Nothing to send.
    Idle,
    /// A flit or a new packet waits for an injection credit.
    NoCredit,
    /// The congestion mechanism holds the next packet back.
    Held,
    /// The injection channel still carries the previous flit (slow node links), or belongs to
    /// the other logical network this cycle (time multiplexing).
    Busy,
    /// The next packet waits for the injection bucket until the given cycle.
    Wait(u64),
}

/// A packet a NIC is injecting.
#[derive(Debug, Clone, Copy)]
struct Current {
    packet: u32,
    vc: u8,
    sent: u32,
    flits: u32,
}

impl Current {
    const NONE: Current = Current {
        packet: NO_PACKET,
        vc: 0,
        sent: 0,
        flits: 0,
    };
}

/// What a NIC needs from the rest of the engine during its step.
pub(crate) struct NicContext<'a, C> {
    pub(crate) now: u64,
    pub(crate) view: &'a NetworkView<'a>,
    pub(crate) packets: &'a mut PacketSlab,
    pub(crate) flits: &'a mut Wheel<FlitArrival>,
    pub(crate) credits: &'a mut Wheel<u32>,
    /// Credits returned a packet at a time (with trains).
    pub(crate) credit_batches: &'a mut Wheel<CreditBatch>,
    pub(crate) control: &'a mut C,
    pub(crate) stats: &'a mut Collector,
    /// What hooks act on.
    pub(crate) hooks: &'a mut HookState,
}

impl<C> NicContext<'_, C> {
    /// The hook context, and the mechanism.
    #[inline]
    fn hook(&mut self) -> (Context<'_>, &mut C) {
        (self.hooks.context(self.now), self.control)
    }
}

/// One node's network interface.
#[derive(Debug)]
pub(crate) struct Nic {
    /// Requests committed to send and not yet injected, oldest first (all the node's
    /// requests, unless they wait in `flows`).
    queue: VecDeque<Offered>,
    /// Requests by destination, for a mechanism that chooses among them.
    flows: Flows,
    /// The mechanism chose nothing from `flows` last time: wait for a new packet or a timer.
    flows_blocked: bool,
    /// Requests by destination, served round robin (`nic.queues = "per_destination"`).
    pairs: QueuePairs,
    /// Credits one injection VC needs before this NIC, waiting for credits, can send: a whole
    /// packet's under cut-through with one logical network, else one. Credits trickling back
    /// below it do not wake the NIC.
    credits_wanted: u16,
    /// Injection tokens (flits) and the cycle they were last updated (`nic.inject_rate`).
    inj_tokens: f64,
    inj_updated: u64,
    /// Request-network control packets; they go before the requests.
    control: VecDeque<Offered>,
    /// Reply-network packets waiting; they go before the request network's packets.
    replies: VecDeque<Offered>,
    /// The packet being injected on each logical network (request, reply; `packet ==
    /// NO_PACKET`: none). Their flits share the injection channel.
    current: [Current; 2],
    /// Injection VCs not carrying a packet whose tail has not left.
    inj_free: u32,
    /// Injection VC used last (round robin).
    inj_ptr: u8,
    /// Router VC slot of VC 0 of the port the node injects into.
    terminal_slot: u32,
    /// Router VC slot of VC 0 of the port the node ejects from (credits return there).
    ejection_slot: u32,
    /// Received flits (ejection VC, flit) in arrival order.
    pub(crate) rx: VecDeque<(u8, Flit)>,
    /// Received packets when packets move as trains, in arrival order, and the (fractional)
    /// cycle the receiver may start on the next one.
    rx_trains: VecDeque<trains::Received>,
    rx_free_at: f64,
    /// Consumption tokens and the cycle they were last updated (`ejection_rate < 1`).
    rx_tokens: f64,
    rx_updated: u64,
    /// The cycle the injection channel can take the next flit.
    link_free_at: u64,
    /// Cycles per flit on the node's channels (those of its ejection port; the node link's
    /// speed, both ways).
    link_period: u64,
}

impl Nic {
    /// Whether a packet of `network` is being injected or waits to be (or, with `flows`, a
    /// flow's packet can be chosen).
    #[inline]
    fn has_work(&self, network: LogicalNetwork, flows: bool) -> bool {
        let waiting = match network {
            LogicalNetwork::Request => {
                !self.queue.is_empty()
                    || !self.control.is_empty()
                    || self.pairs.len() > 0
                    || (flows && !self.flows.is_empty() && !self.flows_blocked)
            }
            LogicalNetwork::Reply => !self.replies.is_empty(),
        };
        self.current[network as usize].packet != NO_PACKET || waiting
    }
}

/// The state of every NIC.
#[derive(Debug)]
pub(crate) struct NicSet {
    /// VC numbering: the per-VC arrays are indexed `node << shift | vc`.
    slots: VcSlots,
    pub(crate) capacity: u32,
    injection_latency: u64,
    credit_latency: u64,
    ejection_rate: f64,
    cut_through: bool,
    /// Injection VCs of each logical network (request, reply).
    network_vcs: [u32; 2],
    /// VCs kept for control packets, which use no others (0: none kept).
    control_lanes: u32,
    /// The networks take turns on the links, a cycle each (requests in even cycles).
    time_multiplexed: bool,
    /// Whether there is a reply network besides the request network.
    replies: bool,
    pub(crate) nics: Vec<Nic>,
    /// Injection credits per (node, VC).
    pub(crate) inj_credits: Vec<u16>,
    /// Injection lanes paced by priority flow control, and their pauses.
    pub(crate) pauses: InjectionPauses,
    /// Received flits held per (node, ejection VC).
    pub(crate) rx_held: Vec<u16>,
    /// With a processor model, complete packets go to the arrivals queues, and a full queue
    /// stops the NIC taking flits from the network.
    processor: bool,
    /// Requests wait in per-destination flows, up to this many (`None`: no limit).
    flows: Option<Option<u32>>,
    /// Requests wait per destination and are served round robin.
    per_destination: bool,
    /// Flits per cycle the injection bucket fills with (`None`: no cap).
    inject_rate: Option<f64>,
    /// The switch inputs keep a queue per destination with room of its own (VOQnet): a packet
    /// starts only when its queue there has room for it.
    queue_room: bool,
    /// Sleeping NICs by the cycle they have work again (their injection bucket holds their
    /// next packet, their link is free, a received packet is consumed).
    sleepers: Calendar,
    /// Control packets (node, slot) completed this cycle, for the mechanism.
    pub(crate) control_inbox: Vec<(u32, u32)>,
    active: BitSet,
    /// Flits sent into the network over the whole run.
    pub(crate) injected_flits: u64,
    /// Each source's routing stream, when routing draws random choices per packet.
    route_draws: Option<Vec<StreamRng>>,
    /// Packets cross the node links as trains ([`Fabric::trains`](crate::fabric::Fabric::trains)):
    /// injected and received a packet at a time, credits returned a packet at a time.
    trains: bool,
    /// Nodes that started a request from their queue pairs this cycle, for sources that wait
    /// for their adapters (`None`: nobody waits).
    pub(crate) started: Option<Vec<u32>>,
}

impl NicSet {
    /// The NICs of `topology` in front of routers as `router` describes (`processor`: with a
    /// processor behind each); with `flows`, requests wait per destination, up to the given
    /// number of packets; with `queue_room`, the switches keep a queue per destination with
    /// room of its own, which the NICs respect; with `trains`, packets cross the node links
    /// as trains.
    pub(crate) fn new(
        nic: &NicConfig,
        router: &RouterConfig,
        processor: bool,
        topology: &Topology,
        flows: Option<Option<u32>>,
        queue_room: bool,
        trains: bool,
    ) -> NicSet {
        let nodes = topology.node_count();
        let vcs = router.vcs as usize;
        let slots = VcSlots::new(vcs, topology.ports().len(), nodes);
        let per_node = slots.port_vc(nodes, 0);
        let capacity = router.vc_buffer_flits;
        let all_vcs = if vcs == 32 {
            u32::MAX
        } else {
            (1u32 << vcs) - 1
        };
        let nics = (0..nodes)
            .map(|n| Nic {
                queue: VecDeque::new(),
                flows: Flows::default(),
                flows_blocked: false,
                pairs: QueuePairs::default(),
                credits_wanted: 1,
                inj_tokens: 0.0,
                inj_updated: 0,
                control: VecDeque::new(),
                replies: VecDeque::new(),
                current: [Current::NONE; 2],
                inj_free: all_vcs,
                inj_ptr: (vcs - 1) as u8,
                terminal_slot: slots.port_vc(topology.injection_port(NodeId::new(n)).index(), 0)
                    as u32,
                ejection_slot: slots.port_vc(topology.ejection_port(NodeId::new(n)).index(), 0)
                    as u32,
                rx: VecDeque::with_capacity(if trains { 0 } else { vcs * capacity as usize }),
                rx_trains: VecDeque::new(),
                rx_free_at: 0.0,
                rx_tokens: 0.0,
                rx_updated: 0,
                link_free_at: 0,
                link_period: u64::from(
                    topology.ports()[topology.ejection_port(NodeId::new(n)).index()].output_period,
                ),
            })
            .collect();
        NicSet {
            slots,
            capacity,
            injection_latency: nic.injection_latency as u64,
            credit_latency: router.credit_latency as u64,
            ejection_rate: nic.ejection_rate,
            cut_through: router.switching.whole_packets(),
            network_vcs: router.network_vc_masks(),
            control_lanes: 0,
            time_multiplexed: router.multiplexing == Some(Multiplexing::Time),
            replies: router.logical_networks == 2,
            nics,
            inj_credits: vec![capacity as u16; per_node],
            pauses: InjectionPauses::default(),
            rx_held: vec![0; per_node],
            processor,
            flows,
            per_destination: nic.queues == NicQueues::PerDestination,
            inject_rate: nic.inject_rate,
            queue_room,
            sleepers: Calendar::new(SLEEP_HORIZON),
            control_inbox: Vec::new(),
            active: BitSet::new(nodes),
            injected_flits: 0,
            route_draws: None,
            trains,
            started: None,
        }
    }

    /// Records the nodes that start requests from their queue pairs (for sources that wait for
    /// their adapters).
    pub(crate) fn report_starts(&mut self) {
        self.started = Some(Vec::new());
    }

    /// Gives every packet a routing draw from its source's routing stream (for routing that
    /// makes random choices).
    pub(crate) fn draw_routes(&mut self, seed: u64) {
        self.route_draws = Some(
            (0..self.nics.len())
                .map(|n| rng::stream(seed, n as u64, Purpose::Routing))
                .collect(),
        );
    }

    /// Injects on the lanes of `mask` only.
    pub(crate) fn keep_to_lanes(&mut self, mask: u32) {
        for lanes in &mut self.network_vcs {
            *lanes &= mask;
        }
    }

    /// Keeps VC `lane` for control packets: they use it alone, and nothing else does.
    pub(crate) fn reserve_control_lane(&mut self, lane: usize) {
        self.control_lanes = 1 << lane;
    }

    /// Paces injection on the lanes of `mask` by the switches' PAUSE and RESUME frames instead
    /// of credits (priority flow control).
    pub(crate) fn pace_lanes(&mut self, mask: u32) {
        self.pauses = InjectionPauses::new(mask, self.inj_credits.len());
    }

    /// A PAUSE (`pause`) or RESUME reaches `node`'s injection lane `vc` at cycle `now`; a
    /// resumed adapter looks again.
    pub(crate) fn pause_frame(&mut self, node: usize, vc: usize, pause: bool, now: u64) {
        if self
            .pauses
            .clocks
            .received(self.slots.port_vc(node, vc), pause, now)
        {
            self.active.insert(node);
        }
    }

    /// The VC slot numbering of the channels.
    pub(crate) fn slots(&self) -> VcSlots {
        self.slots
    }

    /// Router VC slot of `node`'s terminal port (input VC fed by the NIC's injection VC `vc`,
    /// and output VC feeding its receive VC `vc`).
    pub(crate) fn terminal_slot(&self, node: usize, vc: usize) -> usize {
        self.nics[node].terminal_slot as usize + vc
    }

    /// Index of (`node`, `vc`) in the per-VC arrays.
    #[inline]
    pub(crate) fn local(&self, node: usize, vc: usize) -> usize {
        self.slots.port_vc(node, vc)
    }

    /// Whether `node`'s source queue (or its flows) has room for another request (`limit`:
    /// the source queue's capacity).
    #[inline]
    pub(crate) fn has_room(&self, node: usize, limit: Option<u32>) -> bool {
        let nic = &self.nics[node];
        match self.flows {
            Some(limit) => limit.is_none_or(|limit| nic.flows.len() < limit as usize),
            None => limit.is_none_or(|limit| nic.queue.len() < limit as usize),
        }
    }

    /// Whether `node` has room for another request to `dst`: its queue for `dst` with
    /// per-destination queues, else as [`has_room`](Self::has_room).
    #[inline]
    pub(crate) fn has_room_for(&self, node: usize, dst: u32, limit: Option<u32>) -> bool {
        if self.per_destination {
            self.nics[node].pairs.has_room(dst, limit)
        } else {
            self.has_room(node, limit)
        }
    }

    /// NICs whose wake-up cycle has come by `now` look again.
    #[inline]
    pub(crate) fn wake_due(&mut self, now: u64) {
        let active = &mut self.active;
        self.sleepers.take_due(now, |node| {
            active.insert(node);
        });
    }

    /// The next cycle a sleeping NIC wakes up ([`NEVER`](crate::traffic::NEVER): none).
    pub(crate) fn next_wake(&self) -> u64 {
        self.sleepers.next_due()
    }

    /// Appends a packet to `node`'s source queue or its flow (a request), its control queue
    /// (a request-network control packet) or its reply queue.
    pub(crate) fn enqueue(&mut self, node: usize, packet: Offered) {
        let nic = &mut self.nics[node];
        match packet.network {
            LogicalNetwork::Request if packet.control => nic.control.push_back(packet),
            LogicalNetwork::Request if self.flows.is_some() => {
                nic.flows.push(packet);
                nic.flows_blocked = false;
            }
            LogicalNetwork::Request if self.per_destination => nic.pairs.push(packet),
            LogicalNetwork::Request => nic.queue.push_back(packet),
            LogicalNetwork::Reply => nic.replies.push_back(packet),
        }
        self.active.insert(node);
    }

    /// A timer of `node` fired: its NIC looks at its flows again.
    pub(crate) fn wake(&mut self, node: usize) {
        self.nics[node].flows_blocked = false;
        self.active.insert(node);
    }

    /// The processor at `node` took a packet from its arrivals queue: the NIC may take more
    /// flits.
    pub(crate) fn arrival_taken(&mut self, node: usize) {
        if !self.nics[node].rx.is_empty() {
            self.active.insert(node);
        }
    }

    /// A flit arrives from the router on ejection VC `vc`.
    pub(crate) fn receive(&mut self, node: usize, vc: u8, flit: Flit) {
        let held = &mut self.rx_held[self.slots.port_vc(node, vc as usize)];
        assert!(
            (*held as u32) < self.capacity,
            "NIC {node} receive buffer overflow on VC {vc}: credit protocol violated"
        );
        *held += 1;
        self.nics[node].rx.push_back((vc, flit));
        self.active.insert(node);
    }

    /// A flit arrives through the deadlock-recovery lane.
    pub(crate) fn receive_recovered(&mut self, node: usize, flit: Flit) {
        self.nics[node].rx.push_back((RECOVERED, flit));
        self.active.insert(node);
    }

    /// `count` injection credits return from the router.
    pub(crate) fn add_credits(&mut self, node: usize, vc: u8, count: u16) {
        let credits = &mut self.inj_credits[self.slots.port_vc(node, vc as usize)];
        *credits += count;
        if *credits >= self.nics[node].credits_wanted {
            self.active.insert(node);
        }
    }

    /// Requests of `node` waiting for `dst`, not yet started.
    pub(crate) fn queued_for(&self, node: usize, dst: u32) -> usize {
        self.nics[node].pairs.queued(dst)
    }

    /// Requests of `node` waiting in its queue pairs, not yet started.
    pub(crate) fn queued(&self, node: usize) -> usize {
        self.nics[node].pairs.len()
    }

    /// The destinations `node` has requests waiting for.
    pub(crate) fn waiting(&self, node: usize) -> impl Iterator<Item = u32> + '_ {
        self.nics[node].pairs.waiting()
    }

    /// Whether any NIC has work to do.
    pub(crate) fn any_active(&self) -> bool {
        !self.active.is_empty()
    }

    /// Requests waiting in all source queues and flows.
    pub(crate) fn queued_packets(&self) -> usize {
        self.nics
            .iter()
            .map(|n| n.queue.len() + n.flows.len() + n.pairs.len())
            .sum()
    }

    /// Evaluates every NIC with work; idle ones leave the active list.
    pub(crate) fn step_all<C: CongestionControl>(&mut self, cx: &mut NicContext<'_, C>) {
        let mut active = std::mem::take(&mut self.active);
        if self.trains {
            self.step_trains(&mut active, cx);
            self.active = active;
            return;
        }
        active.retain(|node| {
            self.consume(node, cx);
            let injection = self.inject(node, cx);
            if let Injection::Wait(t) = injection {
                self.sleepers.schedule(t, node as u32);
            }
            let nic = &self.nics[node];
            // A NIC waiting for credits sleeps until one returns (which wakes it); one held back
            // by the mechanism or by a slow channel tries again next cycle.
            let more_to_send = injection == Injection::Sent && self.has_more(nic, C::FLOWS);
            more_to_send
                || matches!(injection, Injection::Held | Injection::Busy)
                || !nic.rx.is_empty()
        });
        self.active = active;
    }

    /// Whether `nic` has another packet to send (with `flows`: one its mechanism may choose).
    #[inline]
    fn has_more(&self, nic: &Nic, flows: bool) -> bool {
        nic.has_work(LogicalNetwork::Request, flows)
            || (self.replies && nic.has_work(LogicalNetwork::Reply, flows))
    }

    /// Consumes received flits at the ejection rate; delivers packets whose tail is consumed.
    fn consume<C: CongestionControl>(&mut self, node: usize, cx: &mut NicContext<'_, C>) {
        let nic = &mut self.nics[node];
        if nic.rx.is_empty() {
            return;
        }
        if self.processor && !cx.hooks.arrivals.has_room(NodeId::new(node)) {
            // Control packets go to the mechanism whatever the arrivals queue holds.
            let control_first = nic
                .rx
                .front()
                .is_some_and(|&(_, flit)| cx.packets.get(flit.packet()).control);
            if !control_first {
                return;
            }
        }
        let now = cx.now;
        if self.ejection_rate < 1.0 {
            let elapsed = now.saturating_sub(nic.rx_updated).max(1);
            let tokens = nic.rx_tokens + self.ejection_rate * elapsed as f64;
            // An idle receiver's bucket fills up to one flit's worth; a busy one (called every
            // cycle) keeps what the last flit left over, so that rates other than 1/k are met
            // too (0.8: four flits in five cycles, not one in two).
            let tokens = if elapsed > 1 { tokens.min(1.0) } else { tokens };
            nic.rx_updated = now;
            // Tolerate rounding so that rate 1/3 consumes exactly every third cycle.
            if tokens < 1.0 - 1e-9 {
                nic.rx_tokens = tokens;
                return;
            }
            nic.rx_tokens = (tokens - 1.0).max(0.0);
        }
        let Some((vc, flit)) = nic.rx.pop_front() else {
            return;
        };
        if vc != RECOVERED {
            // Input and output sides of a port share its VC slots.
            let credit_to = nic.ejection_slot + vc as u32;
            self.rx_held[self.slots.port_vc(node, vc as usize)] -= 1;
            cx.credits.schedule(now, self.credit_latency, credit_to);
        }
        cx.stats.on_flit_accepted(node, now);
        let slot = flit.packet();
        let packet = cx.packets.get_mut(slot);
        assert_eq!(
            packet.dst as usize, node,
            "packet from {} for {} delivered to node {node}",
            packet.src, packet.dst
        );
        assert_eq!(
            flit.is_head(),
            packet.delivered_flits == 0,
            "flits of packet {slot} arrived out of order"
        );
        packet.delivered_flits += 1;
        if flit.is_tail() {
            assert_eq!(
                packet.delivered_flits, packet.flits,
                "packet {slot} delivered with missing flits"
            );
            self.deliver(node, slot, cx);
        }
    }

    /// The packet in slab slot `slot` has arrived whole at `node`: a control packet goes to the
    /// mechanism, a request or reply to the processor (if modelled) or is delivered.
    fn deliver<C: CongestionControl>(
        &mut self,
        node: usize,
        slot: u32,
        cx: &mut NicContext<'_, C>,
    ) {
        let node_id = NodeId::new(node);
        if cx.packets.get(slot).control {
            // The mechanism sees it after the NICs' step.
            self.control_inbox.push((node as u32, slot));
        } else if self.processor {
            // The processor takes it from there, unless the mechanism keeps it.
            let packet = *cx.packets.get(slot);
            let (mut hook, control) = cx.hook();
            if control.on_arrival(&mut hook, node_id, &packet, Arrived(slot)) {
                cx.hooks.arrivals.hand_over(node_id, Arrived(slot));
            }
        } else {
            let packet = cx.packets.remove(slot);
            cx.stats.on_delivered(&packet, cx.now);
            let (mut hook, control) = cx.hook();
            control.on_delivered(&mut hook, node_id, &packet);
        }
    }

    /// Lets the mechanism move `node`'s next request from its flows into the empty source
    /// queue; when it chooses none, the flows wait for a new packet or a timer.
    fn choose_from_flows<C: CongestionControl>(&mut self, node: usize, cx: &mut NicContext<'_, C>) {
        let nic = &mut self.nics[node];
        if !nic.queue.is_empty() || nic.flows.is_empty() || nic.flows_blocked {
            return;
        }
        let (mut hook, control) = cx.hook();
        match control.next_packet(&mut hook, NodeId::new(node), &mut nic.flows) {
            Some(packet) => nic.queue.push_back(packet),
            None => nic.flows_blocked = true,
        }
    }

    /// Sends the next flit of a packet in progress, or starts the next queued one: the reply
    /// network first (replies never wait for requests), then the request network.
    #[inline(always)]
    fn inject<C: CongestionControl>(
        &mut self,
        node: usize,
        cx: &mut NicContext<'_, C>,
    ) -> Injection {
        let now = cx.now;
        if C::FLOWS {
            self.choose_from_flows(node, cx);
        }
        if now < self.nics[node].link_free_at {
            // A train's link is busy until a known cycle.
            return if self.trains {
                Injection::Wait(self.nics[node].link_free_at)
            } else {
                Injection::Busy
            };
        }
        if !self.replies {
            return self.inject_on(node, LogicalNetwork::Request, cx);
        }
        // With time multiplexing, only the network whose turn it is may send.
        let turn = self.time_multiplexed.then_some(now % 2);
        let mut outcome = Injection::Idle;
        for network in [LogicalNetwork::Reply, LogicalNetwork::Request] {
            let attempt = if turn.is_some_and(|t| t != network as u64) {
                if self.nics[node].has_work(network, C::FLOWS) {
                    Injection::Busy
                } else {
                    Injection::Idle
                }
            } else {
                match self.inject_on(node, network, cx) {
                    // Two networks share the bucket: look again next cycle.
                    Injection::Wait(_) => Injection::Held,
                    attempt => attempt,
                }
            };
            outcome = match (outcome, attempt) {
                (_, Injection::Sent) => return Injection::Sent,
                // Retrying next cycle beats sleeping until a credit returns, which beats idling.
                (Injection::Held | Injection::Busy, _) => outcome,
                (_, Injection::Held | Injection::Busy) => attempt,
                (Injection::NoCredit, _) => outcome,
                _ => attempt,
            };
        }
        outcome
    }

    /// [`inject`](Self::inject) on one logical network.
    #[inline(always)]
    fn inject_on<C: CongestionControl>(
        &mut self,
        node: usize,
        network: LogicalNetwork,
        cx: &mut NicContext<'_, C>,
    ) -> Injection {
        let now = cx.now;
        let slots = self.slots;
        let nic = &mut self.nics[node];
        let mut current = nic.current[network as usize];
        if current.packet == NO_PACKET {
            if self.per_destination && nic.queue.is_empty() {
                // The next destination's turn: its first packet is committed. Where queues
                // downstream have room of their own, destinations without room keep their turn
                // and do not block the others.
                // With a pacing mechanism, a destination whose next packet is not due yet keeps
                // its turn too.
                let (view, terminal) = (cx.view, nic.terminal_slot as usize);
                let vcs = lanes(
                    self.network_vcs[network as usize],
                    self.control_lanes,
                    false,
                );
                let (queue_room, cut_through) = (self.queue_room, self.cut_through);
                let control = &*cx.control;
                let due =
                    |dst: u32| !C::PACING || control.send_time(NodeId::new(node), dst, now) <= now;
                let sendable = |p: &Offered| {
                    let need = if cut_through { p.flits } else { 1 };
                    due(p.dst)
                        && (!queue_room
                            || bits32(vcs).any(|vc| view.admits(terminal + vc, p.dst, need)))
                };
                match nic.pairs.pop_next(sendable) {
                    Some(next) => {
                        nic.queue.push_back(next);
                        if let Some(started) = &mut self.started {
                            started.push(node as u32);
                        }
                    }
                    None if nic.pairs.len() > 0 && nic.control.is_empty() => {
                        // Room comes back with the credits of the blocks that leave.
                        nic.credits_wanted = 1;
                        if C::PACING {
                            // Sleep until the first destination is due (or credits return).
                            let wake = nic
                                .pairs
                                .waiting()
                                .map(|dst| control.send_time(NodeId::new(node), dst, now))
                                .min()
                                .unwrap_or(now);
                            if wake > now {
                                return Injection::Wait(wake);
                            }
                        }
                        return Injection::NoCredit;
                    }
                    None => {}
                }
            }
            let queue = match network {
                LogicalNetwork::Request if !nic.control.is_empty() => &mut nic.control,
                LogicalNetwork::Request => &mut nic.queue,
                LogicalNetwork::Reply => &mut nic.replies,
            };
            let Some(next) = queue.front() else {
                return Injection::Idle;
            };
            let need = if self.cut_through { next.flits } else { 1 };
            let free = bits32(lanes(
                self.network_vcs[network as usize],
                self.control_lanes,
                next.control,
            ))
            .filter(|&vc| {
                nic.inj_free & (1 << vc) != 0
                    && self.pauses.may_start(
                        slots.port_vc(node, vc),
                        vc,
                        self.inj_credits[slots.port_vc(node, vc)],
                        need,
                    )
                    && (!self.queue_room
                        || cx
                            .view
                            .admits(nic.terminal_slot as usize + vc, next.dst, need))
            })
            .fold(0u32, |m, vc| m | 1 << vc);
            if free == 0 {
                // With one network every VC is free here, so only credits reaching `need` on
                // one of them can help.
                nic.credits_wanted = if self.replies { 1 } else { need as u16 };
                return Injection::NoCredit;
            }
            if let Some(rate) = self.inject_rate {
                let flits = f64::from(next.flits);
                let elapsed = (now - nic.inj_updated) as f64;
                // The bucket holds a packet's worth, plus what a cycle adds: waits end on whole
                // cycles, and the overshoot must carry over for the average to be exact.
                nic.inj_tokens = (nic.inj_tokens + rate * elapsed).min(flits + rate);
                nic.inj_updated = now;
                // Tolerate rounding, so that exact multiples of the rate are on time.
                if nic.inj_tokens < flits - 1e-9 {
                    let wait = ((flits - nic.inj_tokens) / rate - 1e-9).ceil() as u64;
                    return Injection::Wait(now.saturating_add(wait.max(1)));
                }
            }
            // Throttling mechanisms hold back new requests, not replies or control packets.
            if network == LogicalNetwork::Request && !next.control {
                let view = cx.view;
                let (mut hook, control) = cx.hook();
                if !control.may_start_injection(&mut hook, view, NodeId::new(node), next) {
                    return Injection::Held;
                }
            }
            let vc = next_after_32(free, nic.inj_ptr as u32) as u8;
            let Some(offered) = queue.pop_front() else {
                return Injection::Idle;
            };
            if self.inject_rate.is_some() {
                nic.inj_tokens -= f64::from(offered.flits);
            }
            // Only the workload's requests are measured.
            let measured = network == LogicalNetwork::Request
                && !offered.control
                && cx.stats.in_window(offered.created);
            let mut packet = Packet::new(
                node as u32,
                offered.dst,
                offered.created,
                now,
                offered.flits,
                measured,
                network,
            );
            packet.header = offered.header;
            packet.control = offered.control;
            packet.traced = offered.traced;
            packet.sl = vc;
            if let Some(streams) = &mut self.route_draws {
                packet.route_draw = streams[node].random();
            }
            cx.stats.on_injected(&packet);
            let slot = cx.packets.insert(packet);
            let (mut hook, control) = cx.hook();
            control.on_injected(&mut hook, NodeId::new(node), &packet);
            nic.inj_ptr = vc;
            if self.trains {
                // The whole packet leaves as a train (its credits were checked above).
                let flits = offered.flits;
                if !self.pauses.paces(vc as usize) {
                    self.inj_credits[slots.port_vc(node, vc as usize)] -= flits as u16;
                }
                self.injected_flits += u64::from(flits);
                nic.link_free_at = now + u64::from(flits) * nic.link_period;
                cx.flits.schedule(
                    now,
                    self.injection_latency,
                    FlitArrival {
                        to: nic.terminal_slot + u32::from(vc),
                        flit: Flit::new(slot, true, true),
                    },
                );
                let (mut hook, control) = cx.hook();
                control.on_injection_done(&mut hook, NodeId::new(node));
                return Injection::Sent;
            }
            nic.inj_free &= !(1 << vc);
            current = Current {
                packet: slot,
                vc,
                sent: 0,
                flits: offered.flits,
            };
        }
        let credit = &mut self.inj_credits[slots.port_vc(node, current.vc as usize)];
        if *credit == 0 {
            nic.current[network as usize] = current;
            nic.credits_wanted = 1;
            return Injection::NoCredit;
        }
        *credit -= 1;
        self.injected_flits += 1;
        nic.link_free_at = now + nic.link_period;
        let tail = current.sent + 1 == current.flits;
        let flit = Flit::new(current.packet, current.sent == 0, tail);
        cx.flits.schedule(
            now,
            self.injection_latency,
            FlitArrival {
                to: nic.terminal_slot + current.vc as u32,
                flit,
            },
        );
        current.sent += 1;
        if tail {
            nic.inj_free |= 1 << current.vc;
            current.packet = NO_PACKET;
            let (mut hook, control) = cx.hook();
            control.on_injection_done(&mut hook, NodeId::new(node));
        }
        nic.current[network as usize] = current;
        Injection::Sent
    }
}

/// Packets a node has committed to send and not started: requests chosen from its flows (or all
/// its requests), control packets and replies.
impl Committed for NicSet {
    fn committed(&self, node: usize) -> Box<dyn Iterator<Item = &Offered> + '_> {
        let nic = &self.nics[node];
        Box::new(nic.queue.iter().chain(&nic.control).chain(&nic.replies))
    }
}
