//! Input-queued virtual-channel routers, all kept in flat arrays indexed by global port and VC.
//!
//! Indexing: a router's ports are numbered globally (see [`Topology`]); input VC `v` of global
//! port `p` is VC slot `p << shift | v` (see [`VcSlots`]), and so is output VC `v` of port `p`.
//! Each input VC has a FIFO of flits and a pipeline state; each output VC has a credit count, a
//! free flag and, while allocated, the input VC that owns it.
//!
//! Per-hop timing of a head flit (see `docs/router-model.md`): it is at the front of an idle
//! input VC in cycle `a` (the cycle it arrives, or the cycle after the previous packet's tail
//! left); its route is known at `a + routing_delay`; it may then win VC allocation, after which
//! it may bid for the switch `vc_alloc_delay` cycles later; a flit that wins switch allocation in
//! cycle `s` leaves its buffer in `s` (its credit is returned then) and arrives downstream in
//! `s + switch_alloc_delay + crossbar_delay + link latency`. Body flits only go through switch
//! allocation.
//!
//! Work tracking: instead of scanning every buffered VC each cycle, each port keeps three masks,
//! updated when flits arrive or leave, credits return and allocations happen:
//! - `needs_route`: idle VCs with a head at the front;
//! - `va_pending`: VCs waiting for an output VC;
//! - `sa_ready`: VCs owning an output VC, with a flit at the front and a credit for it.
//!
//! A router is evaluated only while one of its ports has a bit in one of these masks, so a router
//! whose packets are all blocked on credits costs nothing until a credit returns.
//!
//! The routers are the `vc` fabric: the simulation drives them through
//! [`Fabric`](crate::fabric::Fabric) (implemented in `fabric.rs`, self-checked in `check.rs`).

mod alloc;
mod check;
mod fabric;
mod recovery;
mod step;

use alloc::Scratch;

use crate::bitset::BitSet;
use crate::config::{AllocatorKind, Config, Multiplexing, RoutingAlgorithm, Switching};
use crate::event::VcSlots;
use crate::fabric::Buffered;
use crate::flit::Flit;
use crate::ids::{PortId, RouterId};
use crate::routing::{Decide, ugal_stays_minimal};
use crate::table::Table;
use crate::topology::{Layout, Link, Topology};

/// Marks an unconnected port in the wiring tables and an output VC without owner.
pub(crate) const UNCONNECTED: u32 = u32::MAX;

/// Pipeline stage of an input VC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// No packet in progress; a flit at the front is a head waiting for route computation.
    Idle,
    /// Route computed (usable from `ready`); waiting for an output VC.
    VcAlloc,
    /// Owns output VC `out_vc` of `out_port`; flits may bid for the switch from `ready` on.
    Active,
    /// Presumed deadlocked: its flits leave one per cycle through the deadlock-recovery lane.
    Recovering,
}

/// Pipeline and buffer state of one input VC (16 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct InputVc {
    /// Output VCs the route allows (valid in `VcAlloc`).
    pub(crate) allowed: u32,
    /// Cycle (low 32 bits) from which the current stage may act; see [`Ready`].
    pub(crate) ready: Ready,
    /// Ring-buffer position of the front flit.
    head: u16,
    /// Flits in the buffer.
    pub(crate) len: u16,
    pub(crate) stage: Stage,
    /// Local output port of the current packet.
    pub(crate) out_port: u8,
    /// Output VC (valid in `Active`).
    pub(crate) out_vc: u8,
    /// VC class after this hop.
    pub(crate) class: u8,
}

impl InputVc {
    /// Removes the front flit; returns its position in the ring buffer.
    #[inline(always)]
    pub(crate) fn pop(&mut self, capacity: u32) -> usize {
        let position = self.head as usize;
        let next = self.head as u32 + 1;
        self.head = if next == capacity { 0 } else { next as u16 };
        self.len -= 1;
        position
    }
}

/// A cycle in the near future, kept as its low 32 bits. Pipeline delays are far below 2^31
/// cycles, so comparing by wrapping difference is exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ready(u32);

impl Ready {
    #[inline]
    pub(crate) fn at(cycle: u64) -> Ready {
        Ready(cycle as u32)
    }

    /// Whether `now` has reached this cycle.
    #[inline]
    pub(crate) fn reached(self, now: u64) -> bool {
        self.waited(now) >= 0
    }

    /// Cycles from this cycle to `now` (negative before it).
    #[inline]
    pub(crate) fn waited(self, now: u64) -> i64 {
        (now as u32).wrapping_sub(self.0) as i32 as i64
    }
}

/// Fixed per-router delays, in cycles.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timing {
    pub(crate) routing: u64,
    pub(crate) vc_alloc: u64,
    pub(crate) credit: u64,
    /// Switch allocation and crossbar: an output's delay less its channel's latency.
    pub(crate) switch: u64,
}

/// Per-port work masks (one bit per VC).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct PortWork {
    pub(crate) needs_route: u32,
    pub(crate) va_pending: u32,
    pub(crate) sa_ready: u32,
    /// VCs in `sa_ready` whose VC-allocation delay may not have elapsed yet.
    pub(crate) warming: u32,
    /// Recovering VCs with a flit to send into the recovery lane.
    pub(crate) recovering: u32,
}

impl PortWork {
    #[inline]
    fn any(&self) -> bool {
        self.needs_route | self.va_pending | self.sa_ready | self.recovering != 0
    }
}

/// The adaptive part of a head's route, kept while it waits for an output VC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct AdaptiveHops {
    /// Local ports of the adaptive candidates.
    pub(crate) ports: u64,
    /// VCs the adaptive candidates may use.
    pub(crate) vcs: u32,
}

/// Per-port state: work masks, wiring and arbiter pointers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Port {
    pub(crate) work: PortWork,
    /// First VC slot of the far end of the output channel (a router input port or a NIC's
    /// receive side), or [`UNCONNECTED`].
    pub(crate) downstream: u32,
    /// First VC slot the input side's credits go back to (a router output port or a NIC's
    /// injection side), or [`UNCONNECTED`].
    pub(crate) upstream: u32,
    /// Output VCs not allocated to a packet.
    pub(crate) out_free: u32,
    /// The router owning the port, and the global index of its first port.
    pub(crate) router: u32,
    first: u32,
    /// Cycles from winning switch allocation to arriving downstream.
    out_delay: u32,
    /// Cycles a credit for the input side takes to reach `upstream`.
    pub(crate) credit_delay: u32,
    /// The cycle the last flit left through the output ([`NEVER_SENT`]: none yet); slow
    /// channels take the next one `period` cycles later.
    pub(crate) sent_at: u64,
    /// Flits sent through the output so far.
    pub(crate) sent: u64,
    /// Switch allocation round-robin pointers: last VC granted at this input, last input granted
    /// at this output, and (iSLIP) last output accepted by this input.
    sa_in_ptr: u8,
    sa_out_ptr: u8,
    accept_ptr: u8,
}

/// Per-output-VC state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OutputVc {
    /// Input VC slot owning the output VC ([`UNCONNECTED`] when free).
    pub(crate) owner: u32,
    /// Free slots downstream as known here.
    pub(crate) credits: u16,
    /// Router-local slot of the input VC granted last (VC allocation round robin).
    grant_ptr: u16,
}

/// UGAL's choice by the routers' queues: the credits in use over every VC of a port.
pub(crate) struct QueueWeights<'a> {
    pub(crate) routers: &'a RouterSet,
}

impl Decide for QueueWeights<'_> {
    #[inline]
    fn stay_minimal(&mut self, minimal: PortId, detour: PortId) -> bool {
        let (minimal, detour) = (self.queue(minimal), self.queue(detour));
        ugal_stays_minimal(minimal, detour, self.routers.ugal_threshold)
    }

    /// Credits in use over every VC of the port.
    #[inline]
    fn queue(&mut self, port: PortId) -> u32 {
        (0..self.routers.vcs)
            .map(|vc| {
                let slot = self.routers.slots.port_vc(port.index(), vc);
                self.routers.capacity - u32::from(self.routers.ovc[slot].credits)
            })
            .sum()
    }
}

/// `Port::sent_at` of an output no flit has left yet.
pub(crate) const NEVER_SENT: u64 = u64::MAX;

/// Cycles per flit of every port's output channel, when some channel is slower than a flit per
/// cycle: a port may send again `period` cycles after its last flit.
#[derive(Debug)]
pub(crate) struct Pacing {
    period: Table<u32>,
}

impl Pacing {
    /// The pacing of `topology`'s output channels, if any is slow.
    fn new(topology: &Topology) -> Option<Pacing> {
        let ports = topology.ports();
        ports.iter().any(|p| p.output_period > 1).then(|| Pacing {
            period: ports
                .iter()
                .map(|p| p.output_period)
                .collect::<Vec<_>>()
                .into(),
        })
    }

    /// Whether global port `port`, whose last flit left at `sent_at`, can send at `now`.
    #[inline]
    pub(crate) fn is_free(&self, port: usize, sent_at: u64, now: u64) -> bool {
        sent_at == NEVER_SENT || now >= sent_at + u64::from(self.period[port])
    }
}

/// The input-queued virtual-channel routers: the `vc` fabric (opaque outside the engine).
#[derive(Debug)]
pub struct RouterSet {
    pub(crate) vcs: usize,
    pub(crate) slots: VcSlots,
    pub(crate) capacity: u32,
    pub(crate) timing: Timing,
    allocator: AllocatorKind,
    islip_iterations: u32,
    /// UGAL's threshold in flits (`routing.ugal_threshold`; 0 when routing does not weigh
    /// queues).
    ugal_threshold: u32,
    /// Output VCs need room for the whole packet (virtual cut-through, store-and-forward).
    cut_through: bool,
    /// A head is routed only once its whole packet is in the buffer.
    store_and_forward: bool,
    first_port: Table<u32>,
    pub(crate) ports: Table<Port>,

    // Input VCs, per slot.
    buf: Table<Flit>,
    pub(crate) ivc: Table<InputVc>,
    va_pick_ptr: Table<u8>,
    /// Whether routes have adaptive candidates (kept in `adaptive_hops` per input VC).
    adaptive: bool,
    adaptive_hops: Table<AdaptiveHops>,
    /// Deadlock recovery (Disha only).
    recovery: Option<recovery::Recovery>,
    /// Channels slower than a flit per cycle (`None` when there are none).
    pub(crate) pacing: Option<Pacing>,
    /// VCs per logical network (a reply packet's VCs are its route's, shifted by this).
    network_vcs: u32,
    /// Time multiplexing of two logical networks: the VCs that may cross links in even and in
    /// odd cycles.
    turns: Option<[u32; 2]>,
    /// Whether `pacing` or `turns` restricts when a flit may cross a link (one test on the
    /// common path instead of two).
    restricted_links: bool,

    // Output VCs, per slot.
    pub(crate) ovc: Table<OutputVc>,

    // Per router: local ports with work, and the set of routers with work.
    work_ports: Table<u64>,
    active: BitSet,
    /// Working storage of the allocators, reused from cycle to cycle (lent to the step).
    scratch: Option<Box<Scratch>>,
}

impl RouterSet {
    /// Empty routers with full credits, wired as `topology` says.
    fn new(cfg: &Config, topology: &Topology) -> RouterSet {
        let vcs = cfg.router.vcs as usize;
        let capacity = cfg.router.vc_buffer_flits;
        let topo_ports = topology.ports();
        let slots = VcSlots::new(vcs, topo_ports.len(), topology.node_count());
        let pipe = cfg.router.switch_alloc_delay + cfg.router.crossbar_delay;
        let far_end = |link: Link| match link {
            Link::None => UNCONNECTED,
            Link::Router(q) => slots.port_vc(q.index(), 0) as u32,
            Link::Node(n) => slots.nic_vc(n.index(), 0) as u32,
        };
        let all_vcs = if vcs == 32 {
            u32::MAX
        } else {
            (1u32 << vcs) - 1
        };
        let routers = topology.router_count();
        assert!(
            topology.max_ports() <= alloc::MAX_PORTS,
            "routers have at most {} ports",
            alloc::MAX_PORTS
        );
        let mut first_port: Vec<u32> = (0..routers)
            .map(|r| topology.router_ports(RouterId::new(r)).start as u32)
            .collect();
        first_port.push(topo_ports.len() as u32);
        let n_slots = slots.nic_base as usize;
        let idle = InputVc {
            stage: Stage::Idle,
            out_port: 0,
            out_vc: 0,
            class: 0,
            allowed: 0,
            ready: Ready::at(0),
            head: 0,
            len: 0,
        };
        let ports: Vec<Port> = topo_ports
            .iter()
            .enumerate()
            .map(|(i, p)| Port {
                work: PortWork::default(),
                downstream: far_end(p.output),
                upstream: far_end(p.input),
                out_free: all_vcs,
                router: p.router.index() as u32,
                first: topology.router_ports(p.router).start as u32,
                out_delay: pipe + p.output_latency,
                credit_delay: topology
                    .credit_delay(crate::ids::PortId::new(i), cfg.router.credit_latency),
                sa_in_ptr: (vcs - 1) as u8,
                sa_out_ptr: 63,
                accept_ptr: 63,
                sent_at: NEVER_SENT,
                sent: 0,
            })
            .collect();
        let pacing = Pacing::new(topology);
        let turns = (cfg.router.multiplexing == Some(Multiplexing::Time))
            .then(|| cfg.router.network_vc_masks());
        RouterSet {
            vcs,
            slots,
            capacity,
            timing: Timing {
                routing: cfg.router.routing_delay as u64,
                vc_alloc: cfg.router.vc_alloc_delay as u64,
                credit: cfg.router.credit_latency as u64,
                switch: u64::from(pipe),
            },
            allocator: cfg.router.allocator,
            islip_iterations: cfg.router.islip_iterations.unwrap_or(1),
            ugal_threshold: cfg.routing.ugal_threshold.unwrap_or(0),
            cut_through: cfg.router.switching.whole_packets(),
            store_and_forward: cfg.router.switching == Switching::StoreAndForward,
            first_port: first_port.into(),
            ports: ports.into(),
            buf: Table::filled(Flit::EMPTY, n_slots * capacity as usize),
            ivc: Table::filled(idle, n_slots),
            va_pick_ptr: Table::filled((vcs - 1) as u8, n_slots),
            adaptive: match &cfg.topology.layout {
                Layout::Fly(fly) => fly.dilation() > 1,
                _ => {
                    cfg.routing.algorithm.chooses_ports()
                        || matches!(
                            cfg.routing.algorithm,
                            RoutingAlgorithm::Duato | RoutingAlgorithm::Disha
                        )
                }
            },
            adaptive_hops: Table::filled(AdaptiveHops::default(), n_slots),
            recovery: (cfg.routing.algorithm == RoutingAlgorithm::Disha).then(|| {
                recovery::Recovery::new(
                    cfg.routing.disha_timeout.unwrap_or(8),
                    cfg.routing.disha_token_hop.unwrap_or(1),
                    cfg.topology.link_latency,
                    cfg.nic.ejection_latency,
                )
            }),
            ovc: Table::filled(
                OutputVc {
                    owner: UNCONNECTED,
                    credits: capacity as u16,
                    grant_ptr: 0,
                },
                n_slots,
            ),
            restricted_links: pacing.is_some() || turns.is_some(),
            pacing,
            network_vcs: cfg.router.network_vcs(),
            turns,
            work_ports: Table::filled(0, routers),
            active: BitSet::new(routers),
            scratch: Some(Box::default()),
        }
    }

    /// Global index of a router's first port.
    #[inline]
    pub(crate) fn first_port(&self, router: usize) -> usize {
        self.first_port[router] as usize
    }

    /// The router that owns global port `port`.
    #[inline]
    pub(crate) fn router_of_port(&self, port: usize) -> usize {
        self.ports[port].router as usize
    }

    /// Records that local port `local` of `router` has work, scheduling the router.
    #[inline]
    fn mark_work(&mut self, router: usize, local: usize) {
        self.work_ports[router] |= 1 << local;
        self.active.insert(router);
    }

    /// Appends a flit to the input VC in `slot`; says where it was buffered.
    #[inline(always)]
    fn push_flit(&mut self, slot: usize, flit: Flit) -> Buffered {
        let capacity = self.capacity;
        let state = &mut self.ivc[slot];
        let len = state.len as u32;
        assert!(
            len < capacity,
            "buffer overflow at input VC slot {slot}: credit protocol violated"
        );
        let mut position = state.head as u32 + len;
        if position >= capacity {
            position -= capacity;
        }
        state.len += 1;
        let (stage, out_port, out_vc) = (state.stage, state.out_port, state.out_vc);
        self.buf[slot * capacity as usize + position as usize] = flit;
        let port = self.slots.owner(slot);
        let record = &mut self.ports[port];
        let (router, first) = (record.router as usize, record.first as usize);
        if len == 0 {
            // A flit reaching an empty VC is either a new head or the next flit of a packet
            // that already owns an output VC.
            let bit = 1 << self.slots.vc(slot);
            let ready = match stage {
                Stage::Idle => {
                    record.work.needs_route |= bit;
                    true
                }
                Stage::Active => {
                    let out = self
                        .slots
                        .port_vc(first + out_port as usize, out_vc as usize);
                    let credited = self.ovc[out].credits > 0;
                    if credited {
                        record.work.sa_ready |= bit;
                    }
                    credited
                }
                Stage::Recovering => {
                    record.work.recovering |= bit;
                    true
                }
                Stage::VcAlloc => unreachable!("a VC waiting for allocation holds its head"),
            };
            if ready {
                self.mark_work(router, port - first);
            }
        }
        Buffered {
            router,
            port: (port - first) as u8,
            occupancy: len + 1,
        }
    }

    /// The flit at the front of the input VC in `slot`.
    #[inline]
    pub(crate) fn front(&self, slot: usize) -> Flit {
        debug_assert!(self.ivc[slot].len > 0);
        self.buf[slot * self.capacity as usize + self.ivc[slot].head as usize]
    }

    /// Returns a credit to the output VC in `slot`, waking its owner if it was starved.
    #[inline]
    fn return_credit(&mut self, slot: usize) {
        let output = &mut self.ovc[slot];
        output.credits += 1;
        debug_assert!(output.credits as u32 <= self.capacity);
        let owner = output.owner;
        if output.credits == 1 && owner != UNCONNECTED && self.ivc[owner as usize].len > 0 {
            let port = self.slots.owner(owner as usize);
            let record = &mut self.ports[port];
            record.work.sa_ready |= 1 << self.slots.vc(owner as usize);
            let (router, local) = (record.router as usize, port - record.first as usize);
            self.mark_work(router, local);
        }
    }
}
