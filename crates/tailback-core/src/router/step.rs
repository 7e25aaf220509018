//! One cycle of a router: route computation, VC allocation, switch allocation and traversal.

use super::alloc::Scratch;
use super::{InputVc, RouterSet, Stage};
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
    /// Evaluates every router that holds a flit; routers left empty go idle.
    pub(crate) fn step_all<C: CongestionControl>(&mut self, cx: &mut StepContext<'_, C>) {
        let mut sc = std::mem::take(&mut self.scratch);
        let mut i = 0;
        while i < self.active_list.len() {
            let r = self.active_list[i] as usize;
            self.step(r, &mut sc, cx);
            if self.port_nonempty[r] == 0 {
                self.active[r] = false;
                self.active_list.swap_remove(i);
            } else {
                i += 1;
            }
        }
        self.scratch = sc;
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
        if sc.cand_ports != 0 {
            match self.allocator {
                AllocatorKind::Separable => self.allocate_switch_separable(r, sc),
                AllocatorKind::Islip => self.allocate_switch_islip(r, sc, self.islip_iterations),
            }
            for i in 0..sc.winners.len() {
                let (local, vc) = sc.winners[i];
                self.traverse(r, local as usize, vc as usize, cx);
            }
        }
    }

    /// Routes idle heads and gathers VC-allocation requests and switch candidates.
    fn collect_requests<C: CongestionControl>(
        &mut self,
        r: usize,
        sc: &mut Scratch,
        cx: &mut StepContext<'_, C>,
    ) {
        let now = cx.now;
        let slots = self.slots;
        let first = self.first_port(r);
        sc.va_requests.clear();
        sc.cand_ports = 0;
        let mut ports = self.port_nonempty[r];
        while ports != 0 {
            let local = ports.trailing_zeros() as usize;
            ports &= ports - 1;
            let port = first + local;
            let mut candidates = 0u32;
            let mut vcs = self.in_nonempty[port];
            while vcs != 0 {
                let vc = vcs.trailing_zeros() as usize;
                vcs &= vcs - 1;
                let ivc = slots.port_vc(port, vc);
                let state = self.ivc[ivc];
                match state.stage {
                    Stage::Idle => {
                        let packet = cx.packets.get(self.front(ivc).packet());
                        let hop = cx.routing.route(
                            RouterId::new(r),
                            NodeId::new(packet.src as usize),
                            NodeId::new(packet.dst as usize),
                            packet.class,
                        );
                        let ready = now + self.timing.routing;
                        self.ivc[ivc] = InputVc {
                            stage: Stage::VcAlloc,
                            out_port: hop.port,
                            out_vc: 0,
                            class: hop.class,
                            allowed: hop.vcs,
                            ready,
                        };
                        if ready <= now {
                            sc.va_requests.push(ivc as u32);
                        }
                    }
                    Stage::VcAlloc if state.ready <= now => sc.va_requests.push(ivc as u32),
                    Stage::Active if state.ready <= now => {
                        let ovc =
                            slots.port_vc(first + state.out_port as usize, state.out_vc as usize);
                        if self.credits[ovc] > 0 {
                            candidates |= 1 << vc;
                        }
                    }
                    Stage::VcAlloc | Stage::Active => {}
                }
            }
            sc.sa_cand[local] = candidates;
            if candidates != 0 {
                sc.cand_ports |= 1 << local;
            }
        }
    }

    /// Sends the front flit of input VC `vc` of local port `local` through the crossbar.
    fn traverse<C: CongestionControl>(
        &mut self,
        r: usize,
        local: usize,
        vc: usize,
        cx: &mut StepContext<'_, C>,
    ) {
        let now = cx.now;
        let slots = self.slots;
        let port = self.first_port(r) + local;
        let ivc = slots.port_vc(port, vc);
        let state = self.ivc[ivc];
        let out = self.first_port(r) + state.out_port as usize;
        let flit = self.pop_flit(r, local, vc);
        self.credits[slots.port_vc(out, state.out_vc as usize)] -= 1;
        let to = self.downstream[out] + state.out_vc as u32;
        cx.flits
            .schedule(now, self.out_delay[out], FlitArrival { to, flit });
        let to_router = slots.is_router(to as usize);
        *cx.flit_hops += u64::from(to_router);
        cx.credits
            .schedule(now, self.timing.credit, self.upstream[port] + vc as u32);
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
            self.out_free[out] |= 1 << state.out_vc;
            self.ivc[ivc].stage = Stage::Idle;
        }
        if C::BUFFER_EVENTS {
            let event = BufferEvent {
                router: RouterId::new(r),
                port: local as u8,
                vc: vc as u8,
                occupancy: self.buf_len[ivc] as u32,
                capacity: self.capacity,
            };
            cx.control.on_dequeue(event, now);
        }
    }
}
