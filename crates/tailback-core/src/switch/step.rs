//! One cycle of the buffered switches: route the heads that arrived, then let every output
//! with work finish the packet whose last block has left, or choose and start its next one.

use super::notices::FROM_SWITCH;
use super::turns::Prefer;
use super::{BufferedSwitches, NONE, Queue, QueueScheme, RoomReturn};
use crate::bitset::{BitSet, bits32, bits64};
use crate::config::TreeRouting;
use crate::event::{CreditBatch, FlitArrival, PfcFrame};
use crate::fabric::StepContext;
use crate::flit::Flit;
use crate::hooks::{CongestionControl, PortVlEvent};
use crate::ids::{PortId, RouterId};
use crate::routing::{Decide, Head, ugal_stays_minimal};

/// Most lanes a port has (lane masks are 32 bits).
const MAX_LANES: usize = 32;

/// What an idle output found when it looked for a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Choice {
    /// It started one.
    Started,
    /// No candidate may start before this cycle (the earliest a head packet is due, or the
    /// next cycle after a declined iSLIP grant): sleep until then.
    NotYet(u64),
    /// Every candidate lacks credits or a read port (or there is none): sleep until one
    /// returns.
    Blocked,
}

/// What an output's look for a packet found besides one: the earliest time a head not yet
/// due is, and per leaving lane the fewest blocks a packet waiting for its credits needs (for
/// the lanes in `waited_on`: those looked at and those some packet waits for; kept from the
/// first such packet on, as most looks find a packet to start).
struct Look {
    now: u64,
    outcome: Choice,
    wanted: Option<[u32; MAX_LANES]>,
    waited_on: u32,
}

/// A packet an output may start: the head of `queue` at local input `local` on `vl`, which
/// follows `prev` in the input's ready list for the output ([`NONE`]: first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Pick {
    pub(super) queue: u32,
    prev: u32,
    /// `root_weighted`: the isolating queue's share when both classes could send.
    contest: Option<u16>,
    /// The lane it arrived on.
    pub(super) vl: u8,
    /// The lane whose round robin picked it (where lanes are kept, the same).
    lane: u8,
    pub(super) local: u8,
}

impl<S: QueueScheme> BufferedSwitches<S> {
    /// Routes new heads and steps every output with work; outputs left without work sleep.
    pub(super) fn step_all<C: CongestionControl>(&mut self, cx: &mut StepContext<'_, C>) {
        if let Some(pfc) = &mut self.pfc {
            for slot in pfc.raised.drain(..) {
                let port = &self.ports[self.slots.owner(slot as usize)];
                cx.frames.schedule(
                    cx.now,
                    u64::from(port.link_delay),
                    PfcFrame {
                        to: port.upstream + self.slots.vc(slot as usize) as u32,
                        pause: true,
                    },
                );
            }
        }
        if S::ISOLATION {
            self.deliver_control(cx);
        }
        let active = &mut self.active;
        self.asleep.take_due(cx.now, |out| {
            active.insert(out);
        });
        if !self.unrouted.is_empty() {
            self.route_heads(cx);
        }
        // Outputs woken during the step (a new queue head, a freed read port) collect in the
        // spare set and join the active ones afterwards.
        let mut active = std::mem::replace(&mut self.active, std::mem::take(&mut self.woken));
        if self.islip_iterations == 0 {
            active.retain(|out| self.step_output(out, cx));
        } else {
            self.step_with_islip(&mut active, cx);
        }
        let mut woken = std::mem::replace(&mut self.active, active);
        woken.drain_into(&mut self.active);
        self.woken = woken;
    }

    /// The room whose credits reached the senders by `now` is theirs again (the credits wake
    /// the outputs and adapters waiting for it).
    pub(super) fn return_room(&mut self, now: u64) {
        while let Some(&back) = self.room_returns.front()
            && back.due <= now
        {
            self.room_returns.pop_front();
            self.reserved[back.slot as usize * self.nodes + back.dst as usize] -= back.blocks;
        }
    }

    /// Steps the outputs in `active` that send; matches the idle ones switch by switch with
    /// iSLIP, starts the matched ones and puts to sleep those with nothing to wait for.
    fn step_with_islip<C: CongestionControl>(
        &mut self,
        active: &mut BitSet,
        cx: &mut StepContext<'_, C>,
    ) {
        let now = cx.now;
        let mut idle = std::mem::take(&mut self.islip_idle);
        idle.clear();
        active.retain(|out| {
            let port = &self.ports[out];
            if port.stream == NONE && now >= port.free_at {
                if C::NOTICES && self.notice_choice(out, now) == Some(Choice::Started) {
                    self.start_notice(out);
                    self.start_train(out, cx);
                    return false;
                }
                idle.push(out as u32);
                true
            } else {
                self.step_output(out, cx)
            }
        });
        let mut outcomes = std::mem::take(&mut self.islip_outcomes);
        // Outputs come in index order, so each switch's are consecutive.
        let mut start = 0;
        while start < idle.len() {
            let router = self.ports[idle[start] as usize].router;
            let end = start
                + idle[start..]
                    .iter()
                    .take_while(|&&out| self.ports[out as usize].router == router)
                    .count();
            let group = &idle[start..end];
            self.islip(group, now, &mut outcomes);
            for (&out, &outcome) in group.iter().zip(outcomes.iter()) {
                let outcome = if C::NOTICES {
                    self.with_notices(out as usize, now, outcome)
                } else {
                    outcome
                };
                match outcome {
                    Choice::Started => {
                        self.start_train(out as usize, cx);
                        active.remove(out as usize);
                    }
                    Choice::NotYet(at) => {
                        if !self.stays_awake(out as usize, at, now) {
                            active.remove(out as usize);
                        }
                    }
                    Choice::Blocked => active.remove(out as usize),
                }
            }
            start = end;
        }
        self.islip_idle = idle;
        self.islip_outcomes = outcomes;
    }

    /// Routes the heads that arrived this cycle and queues their packets.
    fn route_heads<C: CongestionControl>(&mut self, cx: &mut StepContext<'_, C>) {
        let now = cx.now;
        let mut unrouted = std::mem::take(&mut self.unrouted);
        for &(slot, resident) in &unrouted {
            let (slot, resident) = (slot as usize, resident as usize);
            let in_port = self.slots.owner(slot);
            let (router, first, in_period) = {
                let p = &self.ports[in_port];
                (p.router as usize, p.first as usize, p.in_period)
            };
            let id = self.residents[resident].packet;
            let packet = cx.packets.get(id);
            let (at, head) = (RouterId::new(router), Head::of(packet));
            // Our tree-aware routing only looks for trees where it may change the choice.
            let tree_dst =
                (S::ISOLATION && self.cams.tree_routing != TreeRouting::Free).then_some(packet.dst);
            let route = cx.routing.route(
                at,
                &head,
                &mut PortWeights {
                    switches: self,
                    tree_dst,
                },
            );
            let (class, sl) = (route.escape.class, packet.sl);
            let mut candidates = route.adaptive_ports;
            if S::ISOLATION && candidates != 0 {
                candidates = self.tree_candidates(first, candidates, route.escape.port, packet.dst);
            }
            let chosen = self.adaptive
                && (candidates.count_ones() > 1 || cx.routing.chose(at, &head, &route.escape));
            let out = if self.adaptive && candidates != 0 {
                self.least_occupied(first, candidates, class, sl, packet.route_draw)
            } else {
                route.escape.port
            };
            let out_vl = self.lanes.lane(first + out as usize, class, sl);
            let packet = cx.packets.get_mut(id);
            (packet.class, packet.detoured) = (class, route.detoured);
            let blocks = self.residents[resident].blocks;
            let out_period = self.ports[first + out as usize].period;
            // From a slower link, start late enough that the last block arrives in time.
            let catch_up = u64::from(blocks - 1) * u64::from(in_period.saturating_sub(out_period));
            let dst = packet.dst;
            let r = &mut self.residents[resident];
            r.arrived = now;
            r.dst = dst;
            r.out = out;
            r.out_vl = out_vl;
            r.chosen = chosen;
            r.ready = now + self.latency.max(catch_up);
            // A NIC does not reserve room in the queue it sends to: the packet does, now.
            if S::OWN_ROOM && !self.slots.is_router(self.ports[in_port].upstream as usize) {
                self.reserved[slot * self.nodes + dst as usize] += blocks;
            }
            if S::ISOLATION {
                self.arrive_isolated(slot, resident as u32, cx);
            } else {
                self.enqueue(slot, resident as u32);
                if C::PORT_VL_EVENTS || self.watched {
                    self.port_vl_change(slot, out, out_vl, blocks, true, cx);
                }
                if C::JOINS {
                    let event = self.port_vl_event(slot, out, out_vl, now);
                    if let Some(notice) = cx.control.on_joined(event, cx.packets.get_mut(id)) {
                        self.originate(router, notice, cx);
                    }
                }
            }
        }
        unrouted.clear();
        self.unrouted = unrouted;
    }

    /// Appends a routed resident to its queue; a queue that was empty joins the ready list of
    /// the resident's output.
    fn enqueue(&mut self, slot: usize, resident: u32) {
        let r = self.residents[resident as usize];
        let q = S::queue_of(r.out, r.dst);
        if self.append(slot, q, resident) {
            self.make_ready(slot, q, r.out);
        }
    }

    /// Appends resident `resident` to queue `q` of `slot` (as its last, with no next);
    /// returns whether the queue was empty (it is now the head).
    pub(super) fn append(&mut self, slot: usize, q: usize, resident: u32) -> bool {
        let r = &mut self.residents[resident as usize];
        r.queue = q as u32;
        r.next = NONE;
        let qi = self.queue_index(slot, q);
        let queue = self.queues[qi];
        if queue.tail == NONE {
            self.queues[qi] = Queue {
                head: resident,
                tail: resident,
            };
            true
        } else {
            self.residents[queue.tail as usize].next = resident;
            self.queues[qi].tail = resident;
            false
        }
    }

    /// Queue `q` of the pool in input VC slot `slot`, whose head packet is routed to local
    /// output `out`, joins the back of that output's ready list; the first one there requests
    /// the output (with isolation, every one: the others may be stopped).
    pub(super) fn make_ready(&mut self, slot: usize, q: usize, out: u8) {
        let qi = self.queue_index(slot, q);
        self.ready_next[qi] = NONE;
        let ri = self.ready_list(slot, out as usize);
        let list = self.ready[ri];
        if list.tail == NONE {
            self.ready[ri] = Queue {
                head: q as u32,
                tail: q as u32,
            };
            self.request(slot, out);
        } else {
            let last = self.queue_index(slot, list.tail as usize);
            self.ready_next[last] = q as u32;
            self.ready[ri].tail = q as u32;
            if S::ISOLATION || S::OWN_ROOM {
                // The queues already listed may all be stopped (or lack room downstream), with
                // the output asleep until a Go (or credits): this one may send now.
                self.request(slot, out);
            }
        }
    }

    /// The pool in input VC slot `slot` has a ready queue for its output `out`: it asks for
    /// the output.
    #[inline]
    fn request(&mut self, slot: usize, out: u8) {
        let in_port = self.slots.owner(slot);
        let vl = self.slots.vc(slot);
        let first = self.ports[in_port].first as usize;
        let o = first + out as usize;
        self.requests[self.slots.port_vc(o, vl)] |= 1 << (in_port - first);
        let port = &mut self.ports[o];
        port.requested_vls |= 1 << vl;
        if port.stream == NONE {
            self.active.insert(o);
        }
    }

    /// Steps output `out`: finishes the packet it sends once its last block has left, and
    /// chooses a new one when the link is free. Returns whether it has work next cycle (one
    /// that started a packet sleeps until its last block leaves).
    #[inline(always)]
    fn step_output<C: CongestionControl>(
        &mut self,
        out: usize,
        cx: &mut StepContext<'_, C>,
    ) -> bool {
        let now = cx.now;
        let port = self.ports[out];
        if port.stream != NONE {
            if now < port.tail_at {
                // Woken when the last block leaves.
                return false;
            }
            self.finish(out, cx);
        }
        if now < port.free_at {
            return true;
        }
        let choice = if C::NOTICES {
            self.choose_or_notice(out, now)
        } else {
            self.choose(out, now)
        };
        match choice {
            Choice::Started => {
                self.start_train(out, cx);
                false
            }
            Choice::NotYet(at) => self.stays_awake(out, at, now),
            Choice::Blocked => false,
        }
    }

    /// Whether output `out`, whose next packet may start at `at`, looks again next cycle;
    /// otherwise it sleeps on the calendar until `at` (arrivals, credits, Go messages and
    /// freed read ports still wake it earlier).
    fn stays_awake(&mut self, out: usize, at: u64, now: u64) -> bool {
        if at <= now + 1 {
            return true;
        }
        self.asleep.schedule(at, out as u32);
        false
    }

    /// Picks the next packet for idle output `out` and starts it (the round-robin allocator).
    pub(super) fn choose(&mut self, out: usize, now: u64) -> Choice {
        match self.candidate(out, now, 0) {
            Ok(pick) => {
                self.grant(out, pick, true, now);
                Choice::Started
            }
            Err(outcome) => outcome,
        }
    }

    /// The packet idle output `out` may start now: round robin over the lanes leaving it (the
    /// priority lane, if any, first), then over the requesters of that lane — pairs of input
    /// port and lane arrived on, skipping inputs in `taken` (a mask of local ports) and those
    /// without a free read port — then the first queue of the requester's ready list whose
    /// head packet leaves on the lane, is due, has credits for all its blocks there and room
    /// downstream. Each leaving lane keeps its own round robin, as an InfiniBand output's VL
    /// arbiter does, so grants on one lane never starve the requesters of another. Returns
    /// the packet, or why there is none; records the credits the output waits for on each
    /// lane.
    pub(super) fn candidate(&self, out: usize, now: u64, taken: u64) -> Result<Pick, Choice> {
        let port = self.ports[out];
        let requested = port.requested_vls;
        if requested == 0 {
            return Err(Choice::Blocked);
        }
        // Where packets keep their lane, only the lanes requested can leave, each fed by
        // itself; where lanes change hop by hop, any lane may leave, fed by every lane.
        let changing = self.lanes_change();
        let leaving = if changing {
            u32::MAX >> (32 - self.vls)
        } else {
            requested
        };
        // Where lanes change, the input ports asking on any lane (the same for every lane).
        let requesters = if changing {
            bits32(requested).fold(0, |any, vl| {
                any | self.requests[self.slots.port_vc(out, vl)]
            }) & !taken
        } else {
            0
        };
        let priority = self.priority_lane;
        let lanes = priority.into_iter().chain(
            (1..=self.vls)
                .map(|step| (port.vl_ptr as usize + step) % self.vls)
                .filter(move |&vl| Some(vl) != priority),
        );
        let mut look = Look {
            now,
            outcome: Choice::Blocked,
            wanted: None,
            waited_on: leaving,
        };
        for lane in lanes {
            if leaving & (1 << lane) == 0 {
                continue;
            }
            let requesters = if changing {
                requesters
            } else {
                self.requests[self.slots.port_vc(out, lane)] & !taken
            };
            if let Some(pick) = self.candidate_on(out, lane, changing, requesters, &mut look) {
                self.wanted[self.slots.port_vc(out, lane)].set(u32::MAX);
                return Ok(pick);
            }
        }
        for lane in bits32(look.waited_on) {
            let wanted = look.wanted.as_ref().map_or(u32::MAX, |wanted| wanted[lane]);
            self.wanted[self.slots.port_vc(out, lane)].set(wanted);
        }
        Err(look.outcome)
    }

    /// The packet output `out` may start on leaving lane `lane` from the input ports
    /// `requesters` (a mask of local ports), in round-robin order after the requester last
    /// granted this lane. Where lanes are kept, the inputs ask on `lane` itself; where they
    /// change (`changing`), the (input, lane) pairs asking on any lane: that input's later
    /// lanes, the following inputs, its earlier lanes last.
    #[inline(always)]
    fn candidate_on(
        &self,
        out: usize,
        lane: usize,
        changing: bool,
        requesters: u64,
        look: &mut Look,
    ) -> Option<Pick> {
        let last = self.grant_ptr[self.slots.port_vc(out, lane)];
        let (last_local, last_vl) = ((last >> 5) as usize, u32::from(last & 31));
        let after = (last_local + 1) % 64;
        if !changing {
            return bits64(requesters.rotate_right(after as u32)).find_map(|step| {
                self.candidate_at(out, lane, (step + after) % 64, lane, changing, look)
            });
        }
        let arrivals = self.ports[out].requested_vls;
        let up_to_last = ((2u64 << last_vl) - 1) as u32;
        let first_look = if requesters & (1 << last_local) != 0 {
            Some((last_local, arrivals & !up_to_last))
        } else {
            None
        };
        let rest = bits64(requesters.rotate_right(after as u32)).map(|step| {
            let local = (step + after) % 64;
            let vls = if local == last_local {
                arrivals & up_to_last
            } else {
                arrivals
            };
            (local, vls)
        });
        first_look.into_iter().chain(rest).find_map(|(local, vls)| {
            bits32(vls)
                .filter(|&vl| self.requests[self.slots.port_vc(out, vl)] & (1 << local) != 0)
                .find_map(|vl| self.candidate_at(out, lane, local, vl, changing, look))
        })
    }

    /// The packet output `out` may start on leaving lane `lane` from local input `local`'s
    /// lane `vl`: the first queue of its ready list for the output whose head qualifies.
    #[inline(always)]
    fn candidate_at(
        &self,
        out: usize,
        lane: usize,
        local: usize,
        vl: usize,
        changing: bool,
        look: &mut Look,
    ) -> Option<Pick> {
        let port = &self.ports[out];
        let first = port.first as usize;
        let in_port = first + local;
        if self.ports[in_port].reading >= self.read_ports {
            return None;
        }
        let in_slot = self.slots.port_vc(in_port, vl);
        let list = self.ready_list(in_slot, out - first);
        let (mut prev, mut q) = (NONE, self.ready[list].head);
        // With isolation, the class served first when both could send, and the first queue
        // of each class that could.
        let prefer = if S::ISOLATION {
            self.turns.prefer(list)
        } else {
            Prefer::First
        };
        let (mut normal, mut isolating) = (None, None);
        while q != NONE {
            let qi = self.queue_index(in_slot, q as usize);
            let r = self.residents[self.queues[qi].head as usize];
            let leaves = r.out_vl as usize;
            let downstream = port.downstream as usize + leaves;
            if changing && leaves != lane {
                // Looked at under its own lane.
            } else if S::ISOLATION && self.queue_stopped(in_slot, q as usize, downstream) {
                // Its tree is stopped downstream: a Go wakes the output.
            } else if r.ready > look.now {
                look.outcome = Choice::NotYet(match look.outcome {
                    Choice::NotYet(at) => at.min(r.ready),
                    _ => r.ready,
                });
            } else if self.held_back(self.slots.port_vc(out, leaves), r.blocks)
                || !self.has_room(downstream, r.dst, r.blocks)
            {
                // Credits, or the destination's room, come back with credits.
                let wanted = look.wanted.get_or_insert([u32::MAX; MAX_LANES]);
                wanted[leaves] = wanted[leaves].min(r.blocks);
                look.waited_on |= 1 << leaves;
            } else {
                let pick = Pick {
                    queue: q,
                    prev,
                    contest: None,
                    vl: vl as u8,
                    lane: lane as u8,
                    local: local as u8,
                };
                let is_normal = S::ISOLATION && self.is_normal(q as usize);
                match prefer {
                    Prefer::First => return Some(pick),
                    Prefer::Class(class) if class == is_normal => return Some(pick),
                    _ if is_normal => {
                        normal.get_or_insert(pick);
                    }
                    _ => {
                        isolating.get_or_insert(pick);
                    }
                }
                if normal.is_some() && isolating.is_some() {
                    break;
                }
            }
            prev = q;
            q = self.ready_next[qi];
        }
        match (normal, isolating) {
            // Only `root_weighted` gets here with both.
            (Some(mut n), Some(mut i)) => {
                let share = self.isolating_share(in_slot, i.queue as usize);
                n.contest = Some(share);
                i.contest = Some(share);
                Some(if self.turns.isolating_due(list, share) {
                    i
                } else {
                    n
                })
            }
            (n, i) => n.or(i),
        }
    }

    /// Output `out` starts the head packet of `pick`'s queue; the queue leaves its ready list
    /// while the packet is sent, and the packet reserves room downstream when queues have
    /// their own. With `move_pointers`, the round robin moves past the input and the VL.
    fn grant(&mut self, out: usize, pick: Pick, move_pointers: bool, now: u64) {
        let Pick {
            vl,
            lane,
            local,
            queue,
            prev,
            contest,
        } = pick;
        let (vl, lane, local) = (vl as usize, lane as usize, local as usize);
        let port = self.ports[out];
        let first = port.first as usize;
        let in_port = first + local;
        let in_slot = self.slots.port_vc(in_port, vl);
        let qi = self.queue_index(in_slot, queue as usize);
        self.unlink(in_slot, (out - first) as u8, prev, queue);
        let head = self.queues[qi].head;
        let r = self.residents[head as usize];
        if S::ISOLATION {
            let list = self.ready_list(in_slot, out - first);
            self.turns
                .served(list, self.is_normal(queue as usize), contest);
            self.measure_drain(in_slot, queue as usize, r.blocks, port.period, now);
        }
        let downstream = port.downstream as usize + r.out_vl as usize;
        if S::OWN_ROOM && self.slots.is_router(downstream) {
            self.reserved[downstream * self.nodes + r.dst as usize] += r.blocks;
        }
        let port = &mut self.ports[out];
        if move_pointers {
            self.grant_ptr[self.slots.port_vc(out, lane)] = (local << 5 | vl) as u16;
            port.vl_ptr = lane as u8;
        }
        port.stream = head;
        port.stream_from = in_slot as u32;
        self.ports[in_port].reading += 1;
    }

    /// Takes queue `q`, which follows `prev` ([`NONE`]: first), out of the ready list of the
    /// pool in input VC slot `slot` for local output `out`; a list left empty withdraws the
    /// input's request for the output (and the output's for the lane, once no input asks).
    #[inline(always)]
    pub(super) fn unlink(&mut self, slot: usize, out: u8, prev: u32, q: u32) {
        let ri = self.ready_list(slot, out as usize);
        let next = self.ready_next[self.queue_index(slot, q as usize)];
        if prev == NONE {
            self.ready[ri].head = next;
        } else {
            let before = self.queue_index(slot, prev as usize);
            self.ready_next[before] = next;
        }
        if self.ready[ri].tail == q {
            self.ready[ri].tail = prev;
        }
        if self.ready[ri].head == NONE {
            let in_port = self.slots.owner(slot);
            let vl = self.slots.vc(slot);
            let first = self.ports[in_port].first as usize;
            let o = first + out as usize;
            let out_slot = self.slots.port_vc(o, vl);
            self.requests[out_slot] &= !(1 << (in_port - first));
            if self.requests[out_slot] == 0 {
                self.ports[o].requested_vls &= !(1 << vl);
            }
        }
    }

    /// iSLIP over the idle outputs `outs` of one switch (single read port): in each iteration
    /// every unmatched output grants the input its round robin picks among the unmatched ones,
    /// and every input accepts, round robin, one output of those granting it; pointers move
    /// only on acceptances of the first iteration. Returns each output's outcome, in order.
    fn islip(&mut self, outs: &[u32], now: u64, outcomes: &mut Vec<Choice>) {
        outcomes.clear();
        outcomes.resize(outs.len(), Choice::Blocked);
        let mut grants = std::mem::take(&mut self.islip_grants);
        let mut taken = 0u64;
        // The outputs (bits of `outs`) whose grant was declined: after the first iteration
        // only they look again. The others found nothing then and fewer inputs are free now;
        // looking again would also forget the credits they wait for.
        let mut declined = u64::MAX;
        for iteration in 0..self.islip_iterations {
            grants.clear();
            for (i, &out) in outs.iter().enumerate() {
                if outcomes[i] == Choice::Started || declined & (1 << i) == 0 {
                    continue;
                }
                match self.candidate(out as usize, now, taken) {
                    Ok(pick) => grants.push((i as u8, pick)),
                    Err(outcome) if iteration == 0 => outcomes[i] = outcome,
                    Err(_) => {}
                }
            }
            if grants.is_empty() {
                break;
            }
            for g in 0..grants.len() {
                let (i, pick) = grants[g];
                if taken & (1 << pick.local) != 0 {
                    continue;
                }
                // The input accepts the granting output that comes first after its pointer.
                let first = self.ports[outs[i as usize] as usize].first as usize;
                let in_port = first + pick.local as usize;
                let after = self.ports[in_port].accept_ptr as usize + 1;
                let distance = |out: u32| (out as usize - first + 64 - after % 64) % 64;
                let &(i, pick) = grants
                    .iter()
                    .filter(|(_, p)| p.local == pick.local)
                    .min_by_key(|(j, _)| distance(outs[*j as usize]))
                    .unwrap_or(&(i, pick));
                let out = outs[i as usize] as usize;
                self.grant(out, pick, iteration == 0, now);
                if iteration == 0 {
                    self.ports[in_port].accept_ptr = (out - first) as u8;
                }
                taken |= 1 << pick.local;
                outcomes[i as usize] = Choice::Started;
            }
            // An output whose grant was declined tries again next cycle.
            declined = 0;
            for &(i, _) in &grants {
                if outcomes[i as usize] != Choice::Started {
                    outcomes[i as usize] = Choice::NotYet(now + 1);
                    declined |= 1 << i;
                }
            }
        }
        self.islip_grants = grants;
    }

    /// Output `out` sends its packet as a train: the head now, the other blocks back to back
    /// at the link's period; the packet's credits downstream are taken.
    #[inline(always)]
    fn start_train<C: CongestionControl>(&mut self, out: usize, cx: &mut StepContext<'_, C>) {
        let now = cx.now;
        let slots = self.slots;
        let from = self.ports[out].stream_from as usize;
        let originated = C::NOTICES && from == FROM_SWITCH as usize;
        let in_period = if originated {
            u64::from(self.ports[out].period)
        } else {
            u64::from(self.ports[slots.owner(from)].in_period)
        };
        let port = &mut self.ports[out];
        let r = self.residents[port.stream as usize];
        let rest = u64::from(r.blocks - 1);
        let period = u64::from(port.period);
        port.tail_at = now + rest * period;
        port.free_at = port.tail_at + period;
        self.asleep.schedule(port.tail_at, out as u32);
        // Every block leaves no earlier than it arrives.
        self.early_starts +=
            u64::from(now < r.arrived || port.tail_at < r.arrived + rest * in_period);
        let vl = r.out_vl as usize;
        let to = port.downstream + vl as u32;
        cx.flits.schedule(
            now,
            u64::from(port.link_delay),
            FlitArrival {
                to,
                flit: Flit::new(r.packet, true, true),
            },
        );
        let to_router = slots.is_router(to as usize);
        *cx.flit_hops += u64::from(r.blocks) * u64::from(to_router);
        if to_router {
            let packet = cx.packets.get_mut(r.packet);
            packet.hops += 1;
            packet.link_cycles += port.link_delay;
        }
        let out_slot = slots.port_vc(out, vl);
        if self.counts_credits(out_slot) {
            self.credits[out_slot] -= r.blocks;
        }
        if originated {
            // A notice was never queued for the Port VL.
            return;
        }
        if C::PORT_VL_EVENTS {
            // The packet counts as queued for its Port VL until it starts.
            let event = PortVlEvent {
                chosen: r.chosen,
                ..self.port_vl_event(from, r.out, r.out_vl, now)
            };
            let router = self.ports[out].router as usize;
            if let Some(notice) = cx.control.on_departure(event, cx.packets.get_mut(r.packet)) {
                self.originate(router, notice, cx);
            }
        }
        if (C::PORT_VL_EVENTS || self.watched) && self.counts_for_port_vl(from, r.queue as usize) {
            self.port_vl_change(from, r.out, r.out_vl, r.blocks, false, cx);
        }
    }

    /// A packet of `blocks` blocks routed to local output `out` and lane `lane` there joined
    /// (`added`) a queue of input VC slot `slot`, or started to leave it: the Port VL's counts
    /// follow and the mechanism hears of it. A packet counts from the arrival of its head until
    /// it starts: the blocks waiting for the output, as a switch sees them packet by packet
    /// (counting until the last block leaves would add a whole packet per input being
    /// forwarded, which a block-by-block switch holds only in part).
    pub(super) fn port_vl_change<C: CongestionControl>(
        &mut self,
        slot: usize,
        out: u8,
        lane: u8,
        blocks: u32,
        added: bool,
        cx: &mut StepContext<'_, C>,
    ) {
        let port = self.ports[self.slots.owner(slot)];
        let out_slot = self
            .slots
            .port_vc(port.first as usize + out as usize, lane as usize);
        let qi = self.queued_index(slot, out, lane);
        let queued = &mut self.queued_for[qi];
        let was_empty = *queued == 0;
        if added {
            *queued += blocks;
            self.port_vl_blocks[out_slot] += blocks;
        } else {
            *queued -= blocks;
            self.port_vl_blocks[out_slot] -= blocks;
        }
        let is_empty = *queued == 0;
        if was_empty && !is_empty {
            self.port_vl_inputs[out_slot] += 1;
        } else if is_empty && !was_empty {
            self.port_vl_inputs[out_slot] -= 1;
        }
        if C::PORT_VL_EVENTS {
            let event = self.port_vl_event(slot, out, lane, cx.now);
            cx.control.on_port_vl(event);
        }
    }

    /// The local output among `candidates` (a mask of local ports of the switch whose ports
    /// start at `first`) with the least occupancy on the lane a packet of service level `sl`
    /// takes there in class `class`: the blocks queued for that Port VL at every input plus
    /// the credits in use downstream. Equal occupancies are broken by the packet's routing draw
    /// `draw`, uniformly among them.
    pub(super) fn least_occupied(
        &self,
        first: usize,
        candidates: u64,
        class: u8,
        sl: u8,
        draw: u32,
    ) -> u8 {
        let occupancy = |local: usize| {
            let lane = self.lanes.lane(first + local, class, sl);
            self.port_vl_occupancy(self.slots.port_vc(first + local, lane as usize))
        };
        // The least occupancy so far, and the candidates that have it.
        let (mut least, mut tied) = (u32::MAX, 0u64);
        for local in bits64(candidates) {
            let o = occupancy(local);
            if o < least {
                (least, tied) = (o, 0);
            }
            if o == least {
                tied |= 1 << local;
            }
        }
        let pick = draw % tied.count_ones();
        bits64(tied).nth(pick as usize).unwrap_or(0) as u8
    }

    /// Where `queued_for` counts the blocks of input VC slot `slot` queued for local output
    /// `out` on lane `lane`.
    #[inline(always)]
    pub(super) fn queued_index(&self, slot: usize, out: u8, lane: u8) -> usize {
        let per_lane = if self.lanes_change() {
            lane as usize
        } else {
            0
        };
        (slot * self.max_ports + out as usize) * self.queued_lanes + per_lane
    }

    /// The occupancy of the Port VL of output VC slot `out_slot`: the blocks queued for it at
    /// every input of its switch plus the credits in use downstream.
    #[inline]
    fn port_vl_occupancy(&self, out_slot: usize) -> u32 {
        self.port_vl_blocks[out_slot] + (self.capacity - self.credits[out_slot])
    }

    /// The Port VL of local output `out` on lane `lane`, as the input of VC slot `slot` sees
    /// it.
    fn port_vl_event(&self, slot: usize, out: u8, lane: u8, now: u64) -> PortVlEvent {
        let slots = self.slots;
        let in_port = slots.owner(slot);
        let first = self.ports[in_port].first as usize;
        let out_port = first + out as usize;
        let vl = lane as usize;
        let out_slot = slots.port_vc(out_port, vl);
        PortVlEvent {
            port: PortId::new(out_port),
            vl: vl as u8,
            input: (in_port - first) as u8,
            input_blocks: self.queued_for[self.queued_index(slot, out, lane)],
            blocks: self.port_vl_blocks[out_slot],
            contributors: self.port_vl_inputs[out_slot],
            credits: self.credits[out_slot],
            to_node: !slots.is_router(self.ports[out_port].downstream as usize),
            chosen: false,
            now,
        }
    }

    /// The last block of output `out`'s packet has left: the output goes idle (until its link
    /// is free), the packet's room in its pool is freed and its credits go back upstream, the
    /// next packet of its queue requests its output, and a freed read port wakes the outputs
    /// that were waiting for it.
    fn finish<C: CongestionControl>(&mut self, out: usize, cx: &mut StepContext<'_, C>) {
        let port = &mut self.ports[out];
        let (resident, from) = (port.stream, port.stream_from as usize);
        port.stream = NONE;
        port.stream_from = NONE;
        let first = port.first as usize;
        if C::NOTICES && from == FROM_SWITCH as usize {
            // A notice: no pool, queue or read port to release.
            self.residents.remove(resident);
            return;
        }
        let r = self.residents[resident as usize];
        self.pools[from] -= r.blocks;
        if S::OWN_ROOM {
            self.room_returns.push_back(RoomReturn {
                due: cx.now + self.credit_latency,
                slot: from as u32,
                dst: r.dst,
                blocks: r.blocks,
            });
        }
        let in_port = self.slots.owner(from);
        let upstream = self.ports[in_port].upstream + self.slots.vc(from) as u32;
        match &mut self.pfc {
            Some(pfc) if pfc.paces_in(from) => {
                if pfc.left(from, self.pools[from]) {
                    cx.frames.schedule(
                        cx.now,
                        u64::from(self.ports[in_port].link_delay),
                        PfcFrame {
                            to: upstream,
                            pause: false,
                        },
                    );
                }
            }
            _ => cx.credit_batches.schedule(
                cx.now,
                self.credit_latency,
                CreditBatch {
                    to: upstream,
                    count: r.blocks,
                },
            ),
        }
        let q = r.queue as usize;
        let qi = self.queue_index(from, q);
        self.queues[qi].head = r.next;
        if r.next == NONE {
            self.queues[qi].tail = NONE;
        }
        // The queue's line counts the packet until now (before its next head may move on).
        if S::ISOLATION
            && let Some(line) = Self::queue_line(q)
        {
            self.shrink(from, line, r.blocks, cx.now);
        }
        if r.next != NONE {
            if S::ISOLATION && self.is_normal(q) {
                self.settle(from, q, cx);
            } else {
                let next_out = self.residents[r.next as usize].out;
                self.make_ready(from, q, next_out);
            }
        }
        self.residents.remove(resident);
        let reading = &mut self.ports[in_port].reading;
        let was_full = *reading >= self.read_ports;
        *reading -= 1;
        if was_full {
            let end = self.first_port[self.ports[in_port].router as usize + 1] as usize;
            for o in first..end {
                let p = &self.ports[o];
                if p.stream == NONE && p.requested_vls != 0 {
                    self.active.insert(o);
                }
            }
        }
    }
}

/// UGAL's, PAR's and DAL's choices on the buffered fabric: a port's queue is the occupancy of
/// its Port VLs, summed over its lanes (blocks queued for the port at every input of its
/// switch plus credits in use downstream); with isolation under our tree-aware routing, a
/// known congestion tree of `tree_dst` downstream of the minimal route or the detour first.
pub(super) struct PortWeights<'a, S> {
    pub(super) switches: &'a BufferedSwitches<S>,
    pub(super) tree_dst: Option<u32>,
}

impl<S: QueueScheme> Decide for PortWeights<'_, S> {
    #[inline]
    fn stay_minimal(&mut self, minimal: PortId, detour: PortId) -> bool {
        let (minimal, detour) = (self.queue(minimal), self.queue(detour));
        ugal_stays_minimal(minimal, detour, self.switches.ugal_threshold)
    }

    #[inline]
    fn queue(&mut self, port: PortId) -> u32 {
        let s = self.switches;
        (0..s.vls)
            .map(|lane| s.port_vl_occupancy(s.slots.port_vc(port.index(), lane)))
            .sum()
    }

    fn by_tree(&mut self, first: impl FnOnce() -> (PortId, PortId)) -> Option<bool> {
        let dst = self.tree_dst?;
        let s = self.switches;
        let (minimal, detour) = first();
        let ports = [minimal, detour];
        // Candidate 0 is the minimal route (the deterministic one), 1 the detour.
        match s.tree_rule(0b11, 0, |c| s.leads_to_tree(ports[c].index(), dst)) {
            0b01 => Some(true),
            0b10 => Some(false),
            _ => None,
        }
    }
}
