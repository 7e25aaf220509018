//! Input-queued virtual-channel routers, all kept in flat arrays indexed by global port and VC.
//!
//! Indexing: a router's ports are numbered globally (see [`Topology`]); input VC `v` of global
//! port `p` is VC slot `p << shift | v` (see [`VcSlots`]), and so is output VC `v` of port `p`.
//! Each input VC has a FIFO of flits and a pipeline state; each output VC has a credit count and
//! a free flag.
//!
//! Per-hop timing of a head flit (see `docs/router-model.md`): it reaches the front of its input
//! VC in cycle `a`; its route is known at `a + routing_delay`; it may then win VC allocation, after
//! which it may bid for the switch `vc_alloc_delay` cycles later; a flit that wins switch allocation
//! in cycle `s` leaves its buffer in `s` (its credit is returned then) and arrives downstream in
//! `s + switch_alloc_delay + crossbar_delay + link latency`. Body flits only go through switch
//! allocation. A router is evaluated only while it buffers at least one flit.

mod alloc;
pub(crate) mod arbiter;
mod step;

pub(crate) use step::StepContext;

use crate::config::{AllocatorKind, Config, Switching};
use crate::event::VcSlots;
use crate::flit::Flit;
use crate::ids::RouterId;
use crate::topology::{Link, Topology};

/// Marks an unconnected port in the wiring tables.
pub(crate) const UNCONNECTED: u32 = u32::MAX;

/// Pipeline stage of an input VC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// No packet in progress; a flit at the front is a head waiting for route computation.
    Idle,
    /// Route computed (ready at `ready`); waiting for an output VC.
    VcAlloc,
    /// Owns output VC `out_vc` of `out_port`; flits may bid for the switch from `ready` on.
    Active,
}

/// Pipeline state of one input VC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct InputVc {
    pub(crate) stage: Stage,
    /// Local output port of the current packet.
    pub(crate) out_port: u8,
    /// Output VC (valid in `Active`).
    pub(crate) out_vc: u8,
    /// VC class after this hop.
    pub(crate) class: u8,
    /// Output VCs the route allows (valid in `VcAlloc`).
    pub(crate) allowed: u32,
    /// Cycle from which the current stage may act.
    pub(crate) ready: u64,
}

/// Fixed per-router delays, in cycles.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timing {
    pub(crate) routing: u64,
    pub(crate) vc_alloc: u64,
    pub(crate) credit: u64,
}

/// The state of every router.
#[derive(Debug)]
pub(crate) struct RouterSet {
    pub(crate) vcs: usize,
    pub(crate) slots: VcSlots,
    pub(crate) capacity: u32,
    pub(crate) timing: Timing,
    allocator: AllocatorKind,
    islip_iterations: u32,
    cut_through: bool,
    first_port: Vec<u32>,
    port_router: Vec<u32>,

    // Wiring, per global port: first VC slot of the channel's far end.
    /// Where the output side's flits go (a router input port or a NIC's receive side).
    pub(crate) downstream: Vec<u32>,
    /// Cycles from winning switch allocation to arriving downstream.
    out_delay: Vec<u64>,
    /// Where the input side's credits go (a router output port or a NIC's injection side).
    pub(crate) upstream: Vec<u32>,

    // Input VCs, per slot.
    buf: Vec<Flit>,
    buf_head: Vec<u16>,
    pub(crate) buf_len: Vec<u16>,
    pub(crate) ivc: Vec<InputVc>,
    va_pick_ptr: Vec<u8>,

    // Output VCs, per slot.
    pub(crate) credits: Vec<u16>,
    va_grant_ptr: Vec<u16>,

    // Per port.
    in_nonempty: Vec<u32>,
    pub(crate) out_free: Vec<u32>,
    sa_in_ptr: Vec<u8>,
    sa_out_ptr: Vec<u8>,
    accept_ptr: Vec<u8>,

    // Per router.
    port_nonempty: Vec<u64>,
    active: Vec<bool>,
    active_list: Vec<u32>,

    scratch: alloc::Scratch,
}

impl RouterSet {
    /// Empty routers with full credits, wired as `topology` says.
    pub(crate) fn new(cfg: &Config, topology: &Topology) -> RouterSet {
        let vcs = cfg.router.vcs as usize;
        let capacity = cfg.router.vc_buffer_flits;
        let ports = topology.ports();
        let slots = VcSlots::new(vcs, ports.len());
        let pipe = (cfg.router.switch_alloc_delay + cfg.router.crossbar_delay) as u64;
        let far_end = |link: Link| match link {
            Link::None => UNCONNECTED,
            Link::Router(q) => slots.port_vc(q.index(), 0) as u32,
            Link::Node(n) => slots.nic_vc(n.index(), 0) as u32,
        };
        let all_vcs = if vcs == 32 { u32::MAX } else { (1u32 << vcs) - 1 };
        let routers = topology.router_count();
        let mut first_port: Vec<u32> = (0..routers)
            .map(|r| topology.router_ports(RouterId::new(r)).start as u32)
            .collect();
        first_port.push(ports.len() as u32);
        let n_slots = slots.nic_base as usize;
        RouterSet {
            vcs,
            slots,
            capacity,
            timing: Timing {
                routing: cfg.router.routing_delay as u64,
                vc_alloc: cfg.router.vc_alloc_delay as u64,
                credit: cfg.router.credit_latency as u64,
            },
            allocator: cfg.router.allocator,
            islip_iterations: cfg.router.islip_iterations.unwrap_or(1),
            cut_through: cfg.router.switching == Switching::VirtualCutThrough,
            first_port,
            port_router: ports.iter().map(|p| p.router.index() as u32).collect(),
            downstream: ports.iter().map(|p| far_end(p.output)).collect(),
            out_delay: ports.iter().map(|p| pipe + p.output_latency as u64).collect(),
            upstream: ports.iter().map(|p| far_end(p.input)).collect(),
            buf: vec![Flit::EMPTY; n_slots * capacity as usize],
            buf_head: vec![0; n_slots],
            buf_len: vec![0; n_slots],
            ivc: vec![
                InputVc {
                    stage: Stage::Idle,
                    out_port: 0,
                    out_vc: 0,
                    class: 0,
                    allowed: 0,
                    ready: 0,
                };
                n_slots
            ],
            va_pick_ptr: vec![(vcs - 1) as u8; n_slots],
            credits: vec![capacity as u16; n_slots],
            va_grant_ptr: vec![0; n_slots],
            in_nonempty: vec![0; ports.len()],
            out_free: vec![all_vcs; ports.len()],
            sa_in_ptr: vec![(vcs - 1) as u8; ports.len()],
            sa_out_ptr: vec![63; ports.len()],
            accept_ptr: vec![63; ports.len()],
            port_nonempty: vec![0; routers],
            active: vec![false; routers],
            active_list: Vec::with_capacity(routers),
            scratch: alloc::Scratch::new(topology.max_ports(), slots),
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
        self.port_router[port] as usize
    }

    /// Appends a flit to the input VC in `slot`; returns the owning router and the new occupancy.
    #[inline]
    pub(crate) fn push_flit(&mut self, slot: usize, flit: Flit) -> (usize, u32) {
        let len = self.buf_len[slot] as u32;
        assert!(
            len < self.capacity,
            "buffer overflow at input VC slot {slot}: credit protocol violated"
        );
        let mut position = self.buf_head[slot] as u32 + len;
        if position >= self.capacity {
            position -= self.capacity;
        }
        self.buf[slot * self.capacity as usize + position as usize] = flit;
        self.buf_len[slot] += 1;
        let port = self.slots.owner(slot);
        let router = self.router_of_port(port);
        if len == 0 {
            self.in_nonempty[port] |= 1 << self.slots.vc(slot);
            self.port_nonempty[router] |= 1 << (port - self.first_port(router));
            if !self.active[router] {
                self.active[router] = true;
                self.active_list.push(router as u32);
            }
        }
        (router, len + 1)
    }

    /// The flit at the front of the input VC in `slot`.
    #[inline]
    pub(crate) fn front(&self, slot: usize) -> Flit {
        debug_assert!(self.buf_len[slot] > 0);
        self.buf[slot * self.capacity as usize + self.buf_head[slot] as usize]
    }

    /// Removes the front flit of input VC `vc` of local port `local` of `router`.
    #[inline]
    fn pop_flit(&mut self, router: usize, local: usize, vc: usize) -> Flit {
        let port = self.first_port(router) + local;
        let slot = self.slots.port_vc(port, vc);
        let flit = self.front(slot);
        let head = self.buf_head[slot] as u32 + 1;
        self.buf_head[slot] = if head == self.capacity { 0 } else { head as u16 };
        self.buf_len[slot] -= 1;
        if self.buf_len[slot] == 0 {
            self.in_nonempty[port] &= !(1 << vc);
            if self.in_nonempty[port] == 0 {
                self.port_nonempty[router] &= !(1 << local);
            }
        }
        flit
    }

    /// Returns a credit to the output VC in `slot`.
    #[inline]
    pub(crate) fn add_credit(&mut self, slot: usize) {
        self.credits[slot] += 1;
        debug_assert!(self.credits[slot] as u32 <= self.capacity);
    }

    /// Whether any router holds a flit.
    pub(crate) fn any_active(&self) -> bool {
        !self.active_list.is_empty()
    }

    /// Flits buffered in all routers.
    pub(crate) fn buffered_flits(&self) -> u64 {
        self.buf_len.iter().map(|&l| l as u64).sum()
    }

    /// The flits currently in the input VC in `slot`, front first.
    pub(crate) fn buffer_contents(&self, slot: usize) -> impl Iterator<Item = Flit> + '_ {
        let cap = self.capacity as usize;
        (0..self.buf_len[slot] as usize)
            .map(move |i| self.buf[slot * cap + (self.buf_head[slot] as usize + i) % cap])
    }
}
