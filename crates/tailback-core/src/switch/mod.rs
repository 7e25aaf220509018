//! Buffered switches, InfiniBand style: the `buffered` fabric.
//!
//! Each input port has, per virtual lane (VL, a VC slot), one pool of blocks (a block is a
//! flit; a credit stands for one block) shared by all the queues a [`QueueScheme`] sorts its
//! packets into. The upstream end holds one credit count per (link, VL), so a single hot queue
//! can fill the pool and stop the link for every other queue behind it.
//!
//! Packets move as *trains*: under virtual cut-through with credits for the whole packet, a
//! packet's blocks cross a link back to back, so the arrival of its head says when every
//! block arrives (one per period of the link). A packet is one event per hop: its head arrives,
//! takes room for all its blocks in the pool, is routed in that cycle and queued; it may leave
//! from `switch_latency` cycles later. Each output port sends one packet at a time: it picks,
//! round robin over VLs and then over input ports, the head packet of a queue for it whose VL
//! downstream has credits for all its blocks and whose input port has a free read port, and
//! sends it as a train, one block per period of its link. A packet forwarded from a slower link
//! onto a faster one starts only when its last block will have arrived before it must leave,
//! so the faster link carries it without gaps. When the last block has left, the packet's
//! room in the pool is freed and its credits go back upstream together (as InfiniBand's
//! flow-control packets return credits in batches, not one per block).
//!
//! Work: an output is evaluated when it may start a packet; one whose head packets are not
//! yet due sleeps until the first is, one sending a packet sleeps until its last block leaves,
//! and one whose candidates all lack credits (or read ports) sleeps until credits return (or a
//! read port frees), so neither a train in flight nor blocked traffic costs anything per
//! cycle. A packet's lane on each link comes from the SL-to-VL table of the output port it
//! leaves through ([`lanes`]); it waits in the input pool of the lane it arrived on, and an
//! output serves those pools round robin, each packet needing credits on its own lane.
//!
//! A notification a switch sends to a packet's source ([`notices`]) waits at its output in a
//! list of its own, served before the pools.

mod cam;
mod check;
mod fabric;
mod isolate;
mod lanes;
mod notices;
mod pfc;
mod queues;
mod step;
mod turns;

pub(crate) use queues::{Fifo, NfqCfq, QueueScheme, Voq, VoqHpq, VoqNet};

use cam::Cams;
use lanes::LaneTables;
use pfc::Pfc;
use turns::ClassTurns;

use std::cell::Cell;
use std::collections::VecDeque;
use std::marker::PhantomData;

use crate::bitset::BitSet;
use crate::calendar::Calendar;
use crate::config::{Arbitration, FabricConfig};
use crate::event::VcSlots;
use crate::fabric::Buffered;
use crate::ids::RouterId;
use crate::routing::Routing;
use crate::spec::Spec;
use crate::table::{Pool, Table};
use crate::topology::{Link, Topology};

/// Marks a missing resident, queue entry, stream or unconnected port.
const NONE: u32 = u32::MAX;

/// Cycles ahead an output's wake-up is kept in a per-cycle bucket (later ones in a heap): a
/// packet of up to 1024 blocks on a full-speed link.
const WAKE_HORIZON: u64 = 1024;

/// The round robin's start before any grant: as if the last lane of local port 63 had been
/// granted, so local port 0 goes first.
const LAST_REQUESTER: u16 = 63 << 5 | 31;

/// A packet in an input pool, from the arrival of its head until its last block leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Resident {
    /// Its slot in the packet slab.
    packet: u32,
    /// Its length in blocks.
    blocks: u32,
    /// The cycle its head arrived (known once routed, in that cycle).
    arrived: u64,
    /// The earliest cycle its head may leave (known once routed): late enough for its last
    /// block to arrive before it must leave.
    ready: u64,
    /// Its destination node.
    dst: u32,
    /// Local output port of its route, and its lane there.
    out: u8,
    out_vl: u8,
    /// Whether its routing offered other output ports here (known once routed).
    chosen: bool,
    /// The queue of its pool it is in (known once routed).
    queue: u32,
    /// The next resident in its queue ([`NONE`]: the last).
    next: u32,
}

/// The first and last entries of a linked list ([`NONE`] when empty): residents of a queue, or
/// queues of a ready list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Queue {
    head: u32,
    tail: u32,
}

impl Queue {
    const EMPTY: Queue = Queue {
        head: NONE,
        tail: NONE,
    };
}

/// Room of `blocks` blocks for `dst` in the pool of input VC slot `slot`, known to the sender
/// at cycle `due`.
#[derive(Debug, Clone, Copy)]
struct RoomReturn {
    due: u64,
    slot: u32,
    dst: u32,
    blocks: u32,
}

/// Per global port: wiring, the output's sending state and the input's readers.
#[derive(Debug, Clone, Copy)]
struct Port {
    /// The switch owning the port, and the global index of its first port.
    router: u32,
    first: u32,
    /// First VC slot of the output channel's far end, or [`NONE`].
    downstream: u32,
    /// First VC slot the input side's credits go back to, or [`NONE`].
    upstream: u32,
    /// Latency of the output channel.
    link_delay: u32,
    /// Cycles per block on the output channel.
    period: u32,
    /// Cycles per block on the input channel.
    in_period: u32,
    /// The cycle the last block of the packet being sent leaves, and the first cycle the
    /// output may start its next packet.
    tail_at: u64,
    free_at: u64,
    /// The resident being sent ([`NONE`]: the output is idle).
    stream: u32,
    /// The input VC slot it is sent from.
    stream_from: u32,
    /// VLs with a request at this output, and the VL granted last.
    requested_vls: u32,
    vl_ptr: u8,
    /// Packets being sent from this input port.
    reading: u32,
    /// iSLIP: the local output this input accepted last.
    accept_ptr: u8,
    /// Notices the switch sends through this output, waiting (their residents, first in first
    /// out).
    notices: Queue,
}

/// The buffered switches of the network, with queue scheme `S`.
#[derive(Debug)]
pub(crate) struct BufferedSwitches<S> {
    vls: usize,
    slots: VcSlots,
    /// Blocks per input pool (per input port and VL).
    capacity: u32,
    latency: u64,
    credit_latency: u64,
    /// Packets one input port may send at once.
    read_ports: u32,
    /// iSLIP iterations per cycle (0: each output picks on its own, round robin).
    islip_iterations: u32,
    /// A lane every output serves before the others (congestion notifications).
    priority_lane: Option<usize>,
    /// Queues per input pool.
    queues_per_pool: usize,
    first_port: Table<u32>,
    ports: Table<Port>,
    /// Per input VC slot: blocks in the pool.
    pools: Table<u32>,
    /// Per input pool and queue: its residents, and the next queue in its ready list.
    queues: Table<Queue>,
    ready_next: Table<u32>,
    /// Per input pool and local output port: the queues whose head packet is routed to that
    /// output and not being sent (its *ready list*), served in order, a queue rejoining at the
    /// back when its next packet is due.
    ready: Table<Queue>,
    /// Local ports per switch, at most (the ready lists' stride).
    max_ports: usize,
    /// With queues of their own room (`S::OWN_ROOM`): per input pool and destination, the
    /// blocks reserved (a packet's, from when its sender starts it until the credits of its
    /// last block reach the sender), at most `room_blocks`; empty otherwise.
    reserved: Table<u32>,
    /// Room freed when packets left, in the order it reaches their senders (with their
    /// credits).
    room_returns: VecDeque<RoomReturn>,
    room_blocks: u32,
    nodes: usize,
    /// Per output VC slot: credits, the input ports whose queue for this output and VL has a
    /// head packet waiting (bit = local port), and the requester last granted a packet
    /// leaving on this VL (local input port << 5 | the lane it arrived on).
    credits: Table<u32>,
    /// The fewest credits that would let a blocked output start a packet on this VL
    /// (`u32::MAX`: it waits for nothing), so that credits trickling back below that do not
    /// wake it. Cells: looking for a candidate records it and nothing else, so the invariant
    /// checker can look too.
    wanted: Table<Cell<u32>>,
    requests: Table<u64>,
    grant_ptr: Table<u16>,
    /// Whether routing weighs the switches' queues (adaptive up ports, UGAL, PAR, DAL): by the
    /// occupancy of each candidate's Port VL, which the counts below then keep.
    adaptive: bool,
    /// Whether the Port VL counts below are kept (for a mechanism, a record or routing).
    watched: bool,
    /// UGAL's threshold, in blocks.
    ugal_threshold: u32,
    /// The lane a packet takes on each output port.
    lanes: LaneTables,
    /// For a mechanism that watches Port VLs, or adaptive routing (empty otherwise): per input
    /// pool, local output and (where lanes change hop by hop) leaving lane, the blocks queued
    /// for that Port VL; per output VC slot, the blocks queued for it at all inputs of the
    /// switch, and the inputs with blocks queued for it.
    queued_for: Table<u32>,
    /// Leaving lanes `queued_for` tells apart: 1 where a packet leaves on the lane it arrived
    /// on, else every lane.
    queued_lanes: usize,
    port_vl_blocks: Table<u32>,
    port_vl_inputs: Table<u32>,
    residents: Pool<Resident>,
    /// Heads that arrived this cycle, to be routed (input VC slot, resident).
    unrouted: Vec<(u32, u32)>,
    /// iSLIP's working storage, reused from cycle to cycle: the idle outputs, their outcomes
    /// and the grants of an iteration (output index, packet).
    islip_idle: Vec<u32>,
    islip_outcomes: Vec<step::Choice>,
    islip_grants: Vec<(u8, step::Pick)>,
    /// Packets started before all their blocks could arrive in time to leave back to back
    /// (0 unless the engine is wrong: a train never has gaps).
    early_starts: u64,
    /// Outputs with work, and an empty set of the same size that collects outputs woken while
    /// the active ones step.
    active: BitSet,
    woken: BitSet,
    /// Sleeping outputs by the cycle they wake: the last block of their packet leaves, or
    /// their next head packet is due.
    asleep: Calendar,
    /// Per switch: a node attached to it (where a notice's route starts), or [`NONE`].
    home_nodes: Table<u32>,
    /// Blocks of the notices the switches sent that have started to leave.
    originated_blocks: u64,
    /// Congested-flow isolation's CAMs and control messages (empty for other schemes).
    cams: Cams,
    /// With isolation: how an output chooses between an input's normal and isolating queues.
    turns: ClassTurns,
    /// Priority flow control in place of credits on the paced lanes (`None`: credits only).
    pfc: Option<Box<Pfc>>,
    scheme: PhantomData<S>,
}

impl<S: QueueScheme> BufferedSwitches<S> {
    /// Empty switches with full credits, wired as `topology` says, routed by `routing`; with
    /// `watched`, they keep the traffic queued for each Port VL for a mechanism (as they do for
    /// routing that weighs queues).
    pub(crate) fn new(spec: &Spec, topology: &Topology, routing: &Routing, watched: bool) -> Self {
        let cfg = spec.config();
        let algorithm = cfg.routing.algorithm;
        let adaptive = algorithm.chooses_ports() || algorithm.weighs_queues();
        let watched = watched || adaptive;
        let FabricConfig::Buffered(settings) = &cfg.fabric else {
            unreachable!("buffered switches are built for fabric.kind = \"buffered\"");
        };
        let vls = cfg.router.vcs as usize;
        let lanes = LaneTables::new(routing, topology);
        let queued_lanes = if lanes.keeps_lanes() { 1 } else { vls };
        let capacity = cfg.router.vc_buffer_flits;
        let topo_ports = topology.ports();
        let slots = VcSlots::new(vls, topo_ports.len(), topology.node_count());
        let far_end = |link: Link| match link {
            Link::None => NONE,
            Link::Router(q) => slots.port_vc(q.index(), 0) as u32,
            Link::Node(n) => slots.nic_vc(n.index(), 0) as u32,
        };
        // A node's link runs at the speed of its ejection port's channel, both ways.
        let in_period = |link: Link| match link {
            Link::None => 1,
            Link::Router(q) => topo_ports[q.index()].output_period,
            Link::Node(n) => topo_ports[topology.ejection_port(n).index()].output_period,
        };
        let routers = topology.router_count();
        let mut first_port: Vec<u32> = (0..routers)
            .map(|r| topology.router_ports(RouterId::new(r)).start as u32)
            .collect();
        first_port.push(topo_ports.len() as u32);
        let ports: Vec<Port> = topo_ports
            .iter()
            .map(|p| Port {
                router: p.router.index() as u32,
                first: topology.router_ports(p.router).start as u32,
                downstream: far_end(p.output),
                upstream: far_end(p.input),
                link_delay: p.output_latency,
                period: p.output_period,
                in_period: in_period(p.input),
                tail_at: 0,
                free_at: 0,
                stream: NONE,
                stream_from: NONE,
                requested_vls: 0,
                vl_ptr: (vls - 1) as u8,
                reading: 0,
                accept_ptr: 63,
                notices: Queue::EMPTY,
            })
            .collect();
        let n_slots = slots.nic_base as usize;
        let nodes = topology.node_count();
        let mut home_nodes = vec![NONE; routers];
        for p in topo_ports {
            if let Link::Node(n) = p.output
                && home_nodes[p.router.index()] == NONE
            {
                home_nodes[p.router.index()] = n.index() as u32;
            }
        }
        let queues_per_pool = S::queues(topology.max_ports(), nodes, settings);
        let pfc = cfg.pfc_thresholds().map(|t| {
            let lanes = spec.pfc_lanes();
            let paced = |slot: usize| lanes >> slots.vc(slot) & 1 == 1;
            Box::new(Pfc::new(
                t,
                n_slots,
                |slot| paced(slot) && ports[slots.owner(slot)].upstream != NONE,
                |slot| {
                    let far = ports[slots.owner(slot)].downstream;
                    paced(slot) && far != NONE && slots.is_router(far as usize)
                },
            ))
        });
        let arbitration = settings
            .isolation
            .as_ref()
            .filter(|_| S::ISOLATION)
            .map_or(Arbitration::ReadyOrder, |i| i.arbitration);
        BufferedSwitches {
            vls,
            slots,
            capacity,
            latency: u64::from(settings.switch_latency),
            credit_latency: u64::from(cfg.router.credit_latency),
            read_ports: settings.read_ports.unwrap_or(u32::MAX),
            islip_iterations: settings.islip_iterations.unwrap_or(0),
            priority_lane: spec.priority_lane(),
            queues_per_pool,
            first_port: first_port.into(),
            ports: ports.into(),
            pools: Table::filled(0, n_slots),
            queues: Table::filled(Queue::EMPTY, n_slots * queues_per_pool),
            ready_next: Table::filled(NONE, n_slots * queues_per_pool),
            ready: Table::filled(Queue::EMPTY, n_slots * topology.max_ports()),
            max_ports: topology.max_ports(),
            reserved: Table::filled(0, if S::OWN_ROOM { n_slots * nodes } else { 0 }),
            room_returns: VecDeque::new(),
            room_blocks: settings.voqnet_queue_blocks.unwrap_or(u32::MAX),
            nodes,
            credits: Table::filled(capacity, n_slots),
            wanted: Table::filled(Cell::new(u32::MAX), n_slots),
            requests: Table::filled(0, n_slots),
            grant_ptr: Table::filled(LAST_REQUESTER, n_slots),
            adaptive,
            watched,
            ugal_threshold: cfg.routing.ugal_threshold.unwrap_or(0),
            queued_for: Table::filled(
                0,
                if watched {
                    n_slots * topology.max_ports() * queued_lanes
                } else {
                    0
                },
            ),
            queued_lanes,
            lanes,
            port_vl_blocks: Table::filled(0, if watched { n_slots } else { 0 }),
            port_vl_inputs: Table::filled(0, if watched { n_slots } else { 0 }),
            residents: Pool::default(),
            unrouted: Vec::new(),
            islip_idle: Vec::new(),
            islip_outcomes: Vec::new(),
            islip_grants: Vec::new(),
            early_starts: 0,
            active: BitSet::new(topo_ports.len()),
            woken: BitSet::new(topo_ports.len()),
            asleep: Calendar::new(WAKE_HORIZON),
            home_nodes: home_nodes.into(),
            originated_blocks: 0,
            cams: Cams::new(
                settings.isolation.as_ref().filter(|_| S::ISOLATION),
                n_slots,
                if S::NORMAL_VOQS {
                    topology.max_ports()
                } else {
                    0
                },
            ),
            turns: ClassTurns::new(arbitration, n_slots * topology.max_ports()),
            pfc,
            scheme: PhantomData,
        }
    }

    /// Index of the ready list of the pool in input VC slot `slot` for local output `out`.
    #[inline(always)]
    fn ready_list(&self, slot: usize, out: usize) -> usize {
        slot * self.max_ports + out
    }

    /// Index of queue `queue` of the pool in input VC slot `slot`.
    #[inline(always)]
    fn queue_index(&self, slot: usize, queue: usize) -> usize {
        slot * self.queues_per_pool + queue
    }

    /// The head of packet `packet` arrives at input VC slot `slot` with room taken for its
    /// `blocks` blocks; it is routed in this cycle's step.
    #[inline(always)]
    fn accept_train(&mut self, slot: usize, packet: u32, blocks: u32) -> Buffered {
        let held = &mut self.pools[slot];
        assert!(
            *held + blocks <= self.capacity,
            "input pool overflow at VC slot {slot}: flow control violated (credits, or the headroom above XOFF)"
        );
        *held += blocks;
        let occupancy = *held;
        if let Some(pfc) = &mut self.pfc {
            pfc.arrived(slot, occupancy);
        }
        let resident = self.residents.insert(Resident {
            packet,
            blocks,
            arrived: u64::MAX,
            ready: u64::MAX,
            dst: 0,
            out: 0,
            out_vl: 0,
            chosen: false,
            queue: 0,
            next: NONE,
        });
        self.unrouted.push((slot as u32, resident));
        let port = &self.ports[self.slots.owner(slot)];
        Buffered {
            router: port.router as usize,
            port: (self.slots.owner(slot) - port.first as usize) as u8,
            occupancy,
        }
    }

    /// Whether packets may leave a switch on another lane than they arrived on (routings of
    /// several classes, or a file's tables): Port VLs are then counted per leaving lane, and
    /// outputs look at every lane for every lane they send on.
    #[inline(always)]
    pub(super) fn lanes_change(&self) -> bool {
        self.queued_lanes > 1
    }

    /// Whether the queue for `dst` at input VC slot `slot` (a router's, or a NIC's) can take
    /// `blocks` more blocks: always, unless queues have room of their own.
    #[inline(always)]
    pub(super) fn has_room(&self, slot: usize, dst: u32, blocks: u32) -> bool {
        !S::OWN_ROOM
            || !self.slots.is_router(slot)
            || self.reserved[slot * self.nodes + dst as usize] + blocks <= self.room_blocks
    }

    /// Whether output VC slot `slot` may not start a packet of `blocks` blocks downstream: its
    /// sender is paused, or (on a lane kept by credits) lacks the credits.
    #[inline(always)]
    pub(super) fn held_back(&self, slot: usize, blocks: u32) -> bool {
        match &self.pfc {
            Some(pfc) if pfc.paces_out(slot) => pfc.paused(slot),
            _ => self.credits[slot] < blocks,
        }
    }

    /// Whether output VC slot `slot` counts credits (it is not paced by priority flow control).
    #[inline(always)]
    fn counts_credits(&self, slot: usize) -> bool {
        self.pfc.as_ref().is_none_or(|pfc| !pfc.paces_out(slot))
    }

    /// A PAUSE (`pause`) or RESUME reaches output VC slot `slot` at cycle `now`; a resumed
    /// idle output with requests looks again.
    pub(super) fn pause_frame(&mut self, slot: usize, pause: bool, now: u64) {
        let Some(pfc) = &mut self.pfc else {
            unreachable!("a priority flow control frame without priority flow control");
        };
        if pfc.received(slot, pause, now) {
            let out = self.slots.owner(slot);
            let port = &self.ports[out];
            if port.stream == NONE && (port.requested_vls != 0 || port.notices.head != NONE) {
                self.active.insert(out);
            }
        }
    }

    /// `count` credits return to output VC slot `slot`; an idle output with requests looks
    /// again once the credits cover a packet it waits for.
    #[inline(always)]
    fn return_credits(&mut self, slot: usize, count: u32) {
        self.credits[slot] += count;
        debug_assert!(self.credits[slot] <= self.capacity);
        let out = self.slots.owner(slot);
        let port = &self.ports[out];
        if port.stream == NONE
            && (port.requested_vls != 0 || port.notices.head != NONE)
            && self.credits[slot] >= self.wanted[slot].get()
        {
            self.active.insert(out);
        }
    }
}
