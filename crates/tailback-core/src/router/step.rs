//! One cycle of a router: route computation, VC allocation, switch allocation and traversal.

use super::alloc::Scratch;
use super::arbiter::{bits32, bits64};
use super::{InputVc, Ready, RouterSet, Stage, UNCONNECTED};
use crate::config::AllocatorKind;
use crate::event::{FlitArrival, Wheel};
use crate::hooks::{BufferEvent, CongestionControl, ForwardEvent};
use crate::ids::{NodeId, RouterId};
use crate::packet::PacketSlab;
use crate::routing::Routing;

/// What a router needs from the rest of the engine during its step.
pub(crate) struct StepContext<'a, C> {
    pub(crate) now: u64,
    pub(crate) routing: &'a Routing,
    pub(crate) packets: &'a mut PacketSlab,
    pub(crate) flits: &'a mut Wheel<FlitArrival>,
    pub(crate) credits: &'a mut Wheel<u32>,
    pub(crate) control: &'a mut C,
    /// Router-to-router flit traversals so far.
    pub(crate) flit_hops: &'a mut u64,
}

impl RouterSet {
    /// Evaluates every router with work; routers left without work go idle. `sc` is working
    /// storage reused from cycle to cycle.
    pub(crate) fn step_all<C: CongestionControl>(
        &mut self,
        sc: &mut Scratch,
        cx: &mut StepContext<'_, C>,
    ) {
        let mut active = std::mem::take(&mut self.active);
        active.retain(|r| {
            self.step(r, sc, cx);
            self.work_ports[r] != 0
        });
        self.active = active;
    }

    fn step<C: CongestionControl>(
        &mut self,
        r: usize,
        sc: &mut Scratch,
        cx: &mut StepContext<'_, C>,
    ) {
        self.collect_requests(r, sc, cx);
        if !sc.va_requests.is_empty() {
            self.allocate_vcs(r, sc, cx);
        }
        match self.allocator {
            AllocatorKind::Separable => {
                if sc.outputs != 0 {
                    self.grant_separable(r, sc, cx);
                }
            }
            AllocatorKind::Islip => {
                if sc.cand_ports != 0 {
                    self.allocate_switch_islip(r, sc, self.islip_iterations);
                    for i in 0..sc.winners.len() {
                        let (local, vc) = sc.winners[i];
                        self.traverse(r, local as usize, vc as usize, cx);
                    }
                }
            }
        }
        // Only ports that won an allocation can have run out of work.
        let first = self.first_port(r);
        for local in bits64(sc.touched_ports) {
            if !self.ports[first + local].work.any() {
                self.work_ports[r] &= !(1 << local);
            }
        }
    }

    /// Routes new heads, and gathers VC-allocation requests and switch candidates.
    fn collect_requests<C: CongestionControl>(
        &mut self,
        r: usize,
        sc: &mut Scratch,
        cx: &mut StepContext<'_, C>,
    ) {
        let now = cx.now;
        let slots = self.slots;
        let first = self.first_port(r);
        let separable = self.allocator == AllocatorKind::Separable;
        sc.va_requests.clear();
        sc.cand_ports = 0;
        sc.touched_ports = 0;
        sc.bidders = 0;
        sc.outputs = 0;
        for local in bits64(self.work_ports[r]) {
            let port = first + local;
            let mut work = self.ports[port].work;
            if work.needs_route | work.va_pending | work.warming == 0 {
                // The common case: only switch candidates, all past their delays.
                if work.sa_ready != 0 {
                    sc.sa_cand[local] = work.sa_ready;
                    sc.cand_ports |= 1 << local;
                    if separable {
                        self.bid(first, local, sc);
                    }
                }
                continue;
            }
            for vc in bits32(work.needs_route) {
                let slot = slots.port_vc(port, vc);
                let packet = cx.packets.get(self.front(slot).packet());
                let hop = cx.routing.route(
                    RouterId::new(r),
                    NodeId::new(packet.src as usize),
                    NodeId::new(packet.dst as usize),
                    packet.class,
                );
                let state = &mut self.ivc[slot];
                *state = InputVc {
                    stage: Stage::VcAlloc,
                    out_port: hop.port,
                    out_vc: 0,
                    class: hop.class,
                    allowed: hop.vcs,
                    ready: Ready::at(now + self.timing.routing),
                    ..*state
                };
            }
            work.va_pending |= work.needs_route;
            work.needs_route = 0;
            for vc in bits32(work.va_pending) {
                let slot = slots.port_vc(port, vc);
                if self.ivc[slot].ready.reached(now) {
                    sc.va_requests.push(slot as u32);
                }
            }
            let mut candidates = work.sa_ready;
            for vc in bits32(work.warming & candidates) {
                if !self.ivc[slots.port_vc(port, vc)].ready.reached(now) {
                    candidates &= !(1 << vc);
                } else {
                    work.warming &= !(1 << vc);
                }
            }
            self.ports[port].work = work;
            if candidates != 0 {
                sc.sa_cand[local] = candidates;
                sc.cand_ports |= 1 << local;
                if separable {
                    self.bid(first, local, sc);
                }
            }
        }
    }

    /// Sends the front flit of input VC `vc` of local port `local` through the crossbar.
    #[inline(always)]
    pub(super) fn traverse<C: CongestionControl>(
        &mut self,
        r: usize,
        local: usize,
        vc: usize,
        cx: &mut StepContext<'_, C>,
    ) {
        let now = cx.now;
        let slots = self.slots;
        let first = self.first_port(r);
        let port = first + local;
        let slot = slots.port_vc(port, vc);
        let state = self.ivc[slot];
        let out = first + state.out_port as usize;
        let out_slot = slots.port_vc(out, state.out_vc as usize);
        let flit = self.pop_flit(slot);
        self.ovc[out_slot].credits -= 1;
        let bit = 1u32 << vc;
        if self.ovc[out_slot].credits == 0 || state.len == 1 {
            self.ports[port].work.sa_ready &= !bit;
        }
        let to = self.ports[out].downstream + state.out_vc as u32;
        cx.flits
            .schedule(now, self.ports[out].out_delay as u64, FlitArrival { to, flit });
        let to_router = slots.is_router(to as usize);
        *cx.flit_hops += u64::from(to_router);
        cx.credits
            .schedule(now, self.timing.credit, self.ports[port].upstream + vc as u32);
        if flit.is_head() {
            let packet = cx.packets.get_mut(flit.packet());
            packet.class = state.class;
            packet.hops += u32::from(to_router);
            if C::FORWARD_EVENTS {
                let event = ForwardEvent {
                    router: RouterId::new(r),
                    in_port: local as u8,
                    out_port: state.out_port,
                    out_vc: state.out_vc,
                };
                cx.control.on_forward(event, packet, now);
            }
        }
        if flit.is_tail() {
            self.ports[out].out_free |= 1 << state.out_vc;
            self.ovc[out_slot].owner = UNCONNECTED;
            self.ivc[slot].stage = Stage::Idle;
            let work = &mut self.ports[port].work;
            work.sa_ready &= !bit;
            if state.len > 1 {
                // The next packet's head is routed from the next cycle on.
                work.needs_route |= bit;
            }
        }
        if C::BUFFER_EVENTS {
            let event = BufferEvent {
                router: RouterId::new(r),
                port: local as u8,
                vc: vc as u8,
                occupancy: state.len as u32 - 1,
                capacity: self.capacity,
            };
            cx.control.on_dequeue(event, now);
        }
    }
}
