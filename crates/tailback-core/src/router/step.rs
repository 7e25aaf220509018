//! One cycle of a router: route computation, VC allocation, switch allocation and traversal.

use super::alloc::Scratch;
use super::{AdaptiveHops, InputVc, QueueWeights, Ready, RouterSet, Stage, UNCONNECTED};
use crate::bitset::{bits32, bits64};
use crate::config::AllocatorKind;
use crate::event::FlitArrival;
use crate::fabric::StepContext;
use crate::hooks::{BufferEvent, CongestionControl, ForwardEvent};
use crate::ids::RouterId;
use crate::routing::Head;

/// The router being evaluated: its index and its global port range.
#[derive(Debug, Clone, Copy)]
pub(super) struct At {
    pub(super) router: usize,
    pub(super) first: usize,
    pub(super) end: usize,
}

impl RouterSet {
    /// Evaluates every router with work; routers left without work go idle.
    pub(super) fn step_all<C: CongestionControl>(&mut self, cx: &mut StepContext<'_, C>) {
        let mut active = std::mem::take(&mut self.active);
        let mut sc = self
            .scratch
            .take()
            .expect("the scratch is only lent during a step");
        active.retain(|r| {
            self.step(r, &mut sc, cx);
            self.work_ports[r] != 0
        });
        self.active = active;
        self.scratch = Some(sc);
    }

    fn step<C: CongestionControl>(
        &mut self,
        r: usize,
        sc: &mut Scratch,
        cx: &mut StepContext<'_, C>,
    ) {
        let at = At {
            router: r,
            first: self.first_port(r),
            end: self.first_port(r + 1),
        };
        self.collect_requests(at, sc, cx);
        if !sc.va_requests.is_empty() {
            self.allocate_vcs(at, sc, cx);
        }
        match self.allocator {
            AllocatorKind::Separable => {
                if sc.outputs != 0 {
                    self.grant_separable(at, sc, cx);
                }
            }
            AllocatorKind::Islip => {
                if sc.cand_ports != 0 {
                    self.allocate_switch_islip(at, sc, self.islip_iterations);
                    for i in 0..sc.winners.len() {
                        let (local, vc) = sc.winners[i];
                        self.traverse(at, local as usize, vc as usize, cx);
                    }
                }
            }
        }
        // Only ports that won an allocation can have run out of work.
        for local in bits64(sc.touched_ports) {
            if !self.ports[at.first + local].work.any() {
                self.work_ports[r] &= !(1 << local);
            }
        }
    }

    /// Routes new heads, and gathers VC-allocation requests and switch candidates.
    fn collect_requests<C: CongestionControl>(
        &mut self,
        at: At,
        sc: &mut Scratch,
        cx: &mut StepContext<'_, C>,
    ) {
        let now = cx.now;
        let slots = self.slots;
        let (r, first) = (at.router, at.first);
        let separable = self.allocator == AllocatorKind::Separable;
        sc.va_requests.clear();
        sc.cand_ports = 0;
        sc.touched_ports = 0;
        sc.bidders = 0;
        sc.outputs = 0;
        for local in bits64(self.work_ports[r]) {
            let port = first + local;
            let mut work = self.ports[port].work;
            if work.needs_route | work.va_pending | work.warming | work.recovering == 0 {
                // The common case: only switch candidates, all past their delays.
                let candidates = self.sendable(first, port, work.sa_ready, now);
                if candidates != 0 {
                    sc.sa_cand[local] = candidates;
                    sc.cand_ports |= 1 << local;
                    if separable {
                        self.bid(first, local, sc);
                    }
                }
                continue;
            }
            if work.recovering != 0 {
                sc.touched_ports |= 1 << local;
                for vc in bits32(work.recovering) {
                    self.send_recovering_flit(port, vc, &mut work, cx);
                }
            }
            let mut routed = work.needs_route;
            for vc in bits32(work.needs_route) {
                let slot = slots.port_vc(port, vc);
                let id = self.front(slot).packet();
                let packet = cx.packets.get(id);
                if self.store_and_forward && u32::from(self.ivc[slot].len) < packet.flits {
                    // Not all of the packet is here yet: look again next cycle.
                    routed &= !(1 << vc);
                    continue;
                }
                let route = cx.routing.route(
                    RouterId::new(r),
                    &Head::of(packet),
                    &mut QueueWeights { routers: self },
                );
                // Each logical network routes within its own VCs.
                let shift = packet.network as u32 * self.network_vcs;
                if route.detoured != packet.detoured {
                    cx.packets.get_mut(id).detoured = route.detoured;
                }
                let state = &mut self.ivc[slot];
                *state = InputVc {
                    stage: Stage::VcAlloc,
                    out_port: route.escape.port,
                    out_vc: 0,
                    class: route.escape.class,
                    allowed: route.escape.vcs << shift,
                    ready: Ready::at(now + self.timing.routing),
                    ..*state
                };
                if self.adaptive {
                    self.adaptive_hops[slot] = AdaptiveHops {
                        ports: route.adaptive_ports,
                        vcs: route.adaptive_vcs << shift,
                    };
                }
            }
            work.va_pending |= routed;
            work.needs_route &= !routed;
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
            let candidates = self.sendable(first, port, candidates, now);
            if candidates != 0 {
                sc.sa_cand[local] = candidates;
                sc.cand_ports |= 1 << local;
                if separable {
                    self.bid(first, local, sc);
                }
            }
        }
    }

    /// `candidates` (VCs of global input port `port`) less those of the logical network whose
    /// turn it is not (time multiplexing) and those whose output channel is still busy with an
    /// earlier flit (only slow channels ever are).
    #[inline]
    fn sendable(&self, first: usize, port: usize, candidates: u32, now: u64) -> u32 {
        if !self.restricted_links {
            return candidates;
        }
        let candidates = match self.turns {
            Some(masks) => candidates & masks[(now % 2) as usize],
            None => candidates,
        };
        let Some(pacing) = &self.pacing else {
            return candidates;
        };
        bits32(candidates)
            .filter(|&vc| {
                let out = self.ivc[self.slots.port_vc(port, vc)].out_port as usize;
                pacing.is_free(first + out, self.ports[first + out].sent_at, now)
            })
            .fold(0, |m, vc| m | 1 << vc)
    }

    /// Sends the front flit of input VC `vc` of local port `local` through the crossbar.
    #[inline(always)]
    pub(super) fn traverse<C: CongestionControl>(
        &mut self,
        at: At,
        local: usize,
        vc: usize,
        cx: &mut StepContext<'_, C>,
    ) {
        let now = cx.now;
        let slots = self.slots;
        let (r, first) = (at.router, at.first);
        let port = first + local;
        let slot = slots.port_vc(port, vc);
        let capacity = self.capacity;

        // Pop the front flit.
        let state = &mut self.ivc[slot];
        let flit = self.buf[slot * capacity as usize + state.pop(capacity)];
        let left = state.len;
        let (out_port, out_vc, class) = (state.out_port, state.out_vc, state.class);
        let tail = flit.is_tail();
        if tail {
            state.stage = Stage::Idle;
        }

        // Use a credit of the output VC; the tail releases it.
        let out = first + out_port as usize;
        let out_slot = slots.port_vc(out, out_vc as usize);
        let output_vc = &mut self.ovc[out_slot];
        output_vc.credits -= 1;
        let starved = output_vc.credits == 0;
        if tail {
            output_vc.owner = UNCONNECTED;
        }
        let output = &mut self.ports[out];
        output.sent_at = now;
        output.sent += 1;
        let to = output.downstream + out_vc as u32;
        let delay = output.out_delay as u64;
        if tail {
            output.out_free |= 1 << out_vc;
        }

        // This VC stays a switch candidate only with a flit, a credit and the same packet.
        let input = &mut self.ports[port];
        let (upstream, credit_delay) = (input.upstream, input.credit_delay);
        let bit = 1u32 << vc;
        if starved || left == 0 || tail {
            input.work.sa_ready &= !bit;
        }
        if tail && left > 0 {
            // The next packet's head is routed from the next cycle on.
            input.work.needs_route |= bit;
        }

        cx.flits.schedule(now, delay, FlitArrival { to, flit });
        cx.credits
            .schedule(now, u64::from(credit_delay), upstream + vc as u32);
        let to_router = slots.is_router(to as usize);
        *cx.flit_hops += u64::from(to_router);
        if flit.is_head() {
            let packet = cx.packets.get_mut(flit.packet());
            packet.class = class;
            if to_router {
                packet.hops += 1;
                packet.link_cycles += (delay - self.timing.switch) as u32;
            }
            if C::FORWARD_EVENTS {
                let event = ForwardEvent {
                    router: RouterId::new(r),
                    in_port: local as u8,
                    out_port,
                    out_vc,
                    out_credits: u32::from(self.ovc[out_slot].credits),
                    out_capacity: capacity,
                };
                let mut hook = cx.hooks.context(now);
                cx.control.on_forward(&mut hook, event, packet);
            }
        }
        if C::BUFFER_EVENTS {
            let event = BufferEvent {
                router: RouterId::new(r),
                port: local as u8,
                vc: vc as u8,
                occupancy: left as u32,
                capacity,
                out_port: Some(out_port),
            };
            let (mut hook, control) = cx.hook();
            control.on_dequeue(&mut hook, event);
        }
    }
}
