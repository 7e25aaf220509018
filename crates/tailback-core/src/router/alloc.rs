//! VC allocation and switch allocation (separable round-robin, iSLIP).
//!
//! **VC allocation** is separable and input-first: each requesting input VC picks one free
//! output VC among those its route allows (round-robin from the one it got last), then each
//! output VC grants one of the input VCs that picked it (round-robin from the last grantee).
//! Under virtual cut-through an output VC is only free for a packet if its credits cover the
//! whole packet.
//!
//! **Separable switch allocation** (input-first, one iteration): each input port picks one of its
//! eligible VCs round-robin; each output port grants one requesting input port round-robin.
//! **iSLIP**: inputs request every output one of their eligible VCs needs; outputs grant
//! round-robin; inputs accept round-robin; pointers move only on first-iteration accepts;
//! unmatched ports retry in later iterations. A matched input then picks its VC round-robin.

use super::RouterSet;
use super::step::At;
use super::{Ready, Stage};
use crate::bitset::{bits32, bits64, next_after_32, next_after_64};
use crate::config::AllocatorKind;
use crate::fabric::StepContext;
use crate::hooks::CongestionControl;

const NONE: u32 = u32::MAX;

/// Most ports a router may have (port masks are 64-bit).
pub(crate) const MAX_PORTS: usize = 64;
/// Most VC slots a router may have (64 ports of 32 VCs).
const MAX_LOCAL_SLOTS: usize = MAX_PORTS * 32;

/// A fixed-size array indexed modulo its power-of-two length, so that indexing needs no bounds
/// check. Indices are local port or VC-slot numbers, which are below the length by construction.
#[derive(Debug, Clone)]
pub(crate) struct Local<T, const N: usize>(Box<[T; N]>);

impl<T: Copy, const N: usize> Local<T, N> {
    fn filled(value: T) -> Self {
        Local(Box::new([value; N]))
    }
}

impl<T, const N: usize> std::ops::Index<usize> for Local<T, N> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        debug_assert!(i < N);
        &self.0[i & (N - 1)]
    }
}

impl<T, const N: usize> std::ops::IndexMut<usize> for Local<T, N> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        debug_assert!(i < N);
        &mut self.0[i & (N - 1)]
    }
}

/// Per-cycle working storage of the allocators, indexed by a router's local ports and slots.
#[derive(Debug)]
pub(crate) struct Scratch {
    /// Switch candidates: eligible VCs per local input port.
    pub(crate) sa_cand: Local<u32, MAX_PORTS>,
    /// Local input ports with at least one switch candidate.
    pub(crate) cand_ports: u64,
    /// Local input ports that won a VC or the switch this cycle.
    pub(crate) touched_ports: u64,
    /// Input VCs (global slots) bidding for an output VC.
    pub(crate) va_requests: Vec<u32>,
    /// Per local output VC slot: best requesting input VC and its round-robin distance.
    va_best: Local<u32, MAX_LOCAL_SLOTS>,
    va_best_prio: Local<u32, MAX_LOCAL_SLOTS>,
    va_touched: Vec<u32>,
    /// Per local output port: requesting input ports.
    out_req: Local<u64, MAX_PORTS>,
    /// Separable: input ports that bid, the requested output ports, and per input port the VC
    /// it bids with and that VC's output.
    pub(crate) bidders: u64,
    pub(crate) outputs: u64,
    chosen: Local<u8, MAX_PORTS>,
    chosen_out: Local<u8, MAX_PORTS>,
    /// iSLIP, per local input port: outputs it requests and outputs granting it.
    req_out: Local<u64, MAX_PORTS>,
    grants: Local<u64, MAX_PORTS>,
    /// Switch winners: (local input port, VC).
    pub(crate) winners: Vec<(u8, u8)>,
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch {
            sa_cand: Local::filled(0),
            cand_ports: 0,
            touched_ports: 0,
            va_requests: Vec::with_capacity(MAX_LOCAL_SLOTS),
            va_best: Local::filled(NONE),
            va_best_prio: Local::filled(NONE),
            va_touched: Vec::with_capacity(MAX_LOCAL_SLOTS),
            out_req: Local::filled(0),
            bidders: 0,
            outputs: 0,
            chosen: Local::filled(0),
            chosen_out: Local::filled(0),
            req_out: Local::filled(0),
            grants: Local::filled(0),
            winners: Vec::with_capacity(MAX_PORTS),
        }
    }
}

impl RouterSet {
    /// Separable input-first VC allocation for the requests in `sc.va_requests`.
    pub(super) fn allocate_vcs<C: CongestionControl>(
        &mut self,
        at: At,
        sc: &mut Scratch,
        cx: &StepContext<'_, C>,
    ) {
        let slots = self.slots;
        let first = at.first;
        let base = slots.port_vc(first, 0);
        // Round-robin distances run over the router's local VC slots.
        let span = (slots.port_vc(at.end, 0) - base) as u32;
        for i in 0..sc.va_requests.len() {
            let ivc = sc.va_requests[i] as usize;
            let need = self
                .cut_through
                .then(|| cx.packets.get(self.front(ivc).packet()).flits);
            let Some(ovc) = self.select_output_vc(ivc, first, need) else {
                continue;
            };
            let local_ovc = ovc - base;
            let local_ivc = (ivc - base) as u32;
            // Distance after the last grantee, in 0..span.
            let mut prio = local_ivc + span - self.ovc[ovc].grant_ptr as u32 - 1;
            if prio >= span {
                prio -= span;
            }
            if sc.va_best_prio[local_ovc] == NONE {
                sc.va_touched.push(local_ovc as u32);
            }
            if prio < sc.va_best_prio[local_ovc] {
                sc.va_best_prio[local_ovc] = prio;
                sc.va_best[local_ovc] = ivc as u32;
            }
        }
        let now = cx.now;
        for i in 0..sc.va_touched.len() {
            let local_ovc = sc.va_touched[i] as usize;
            let ivc = sc.va_best[local_ovc] as usize;
            sc.va_best_prio[local_ovc] = NONE;
            let ovc = base + local_ovc;
            let out_vc = slots.vc(ovc);
            let out = slots.owner(ovc);
            let state = &mut self.ivc[ivc];
            state.out_port = (out - first) as u8;
            state.stage = Stage::Active;
            state.out_vc = out_vc as u8;
            state.ready = Ready::at(now + self.timing.vc_alloc);
            self.ports[out].out_free &= !(1 << out_vc);
            self.ovc[ovc].owner = ivc as u32;
            self.ovc[ovc].grant_ptr = (ivc - base) as u16;
            self.va_pick_ptr[ivc] = out_vc as u8;
            let port = slots.owner(ivc);
            let bit = 1 << slots.vc(ivc);
            sc.touched_ports |= 1 << (port - first);
            let work = &mut self.ports[port].work;
            work.va_pending &= !bit;
            // Mark the VC as warming even without a credit: a credit returning before the
            // VC-allocation delay has elapsed makes it a switch candidate (in `add_credit`), and
            // only the `warming` bit makes the switch allocator wait for `ready`.
            if self.timing.vc_alloc > 0 {
                work.warming |= bit;
            }
            if self.ovc[ovc].credits > 0 {
                work.sa_ready |= bit;
                if self.timing.vc_alloc == 0 {
                    let local = port - first;
                    // Candidate masks are only valid for ports in `cand_ports`.
                    if sc.cand_ports & (1 << local) == 0 {
                        sc.sa_cand[local] = 0;
                    }
                    sc.sa_cand[local] |= bit;
                    sc.cand_ports |= 1 << local;
                    if self.allocator == AllocatorKind::Separable {
                        self.withdraw_bid(local, sc);
                        self.bid(first, local, sc);
                    }
                }
            }
        }
        sc.va_touched.clear();
    }

    /// The output VC a waiting head bids for (its slot), if any is free. Adaptive candidates
    /// first: a free adaptive VC with an empty downstream buffer, on the candidate port whose
    /// adaptive VCs hold the most credits (ties: lowest port; within the port, lowest VC).
    /// Failing that, the deterministic (escape) hop's next free VC after the one it got last
    /// (under virtual cut-through only with `need` credits).
    #[inline]
    fn select_output_vc(&self, ivc: usize, first: usize, need: Option<u32>) -> Option<usize> {
        let slots = self.slots;
        let eligible = |out: usize, allowed: u32| {
            let free = self.ports[out].out_free & allowed;
            match need {
                None => free,
                Some(need) => bits32(free)
                    .filter(|&v| self.ovc[slots.port_vc(out, v)].credits as u32 >= need)
                    .fold(0, |m, v| m | (1 << v)),
            }
        };
        if self.adaptive {
            // Adaptive VCs are allocated atomically: only with their downstream buffer empty
            // (all credits home), so a packet never queues behind one that may be deadlocked
            // among adaptive channels (Duato's condition for wormhole switching). Among the
            // ports offering one, prefer the port whose adaptive VCs hold the most credits in
            // total: the least occupied downstream.
            let empty = self.capacity as u16;
            let hops = self.adaptive_hops[ivc];
            let mut best: Option<(usize, u32)> = None;
            for port in bits64(hops.ports) {
                let out = first + port;
                let mut candidate = None;
                let mut credits = 0u32;
                for v in bits32(hops.vcs) {
                    let ovc = slots.port_vc(out, v);
                    let c = self.ovc[ovc].credits;
                    credits += c as u32;
                    if candidate.is_none() && c == empty && self.ports[out].out_free & (1 << v) != 0
                    {
                        candidate = Some(ovc);
                    }
                }
                if let Some(ovc) = candidate
                    && best.is_none_or(|(_, most)| credits > most)
                {
                    best = Some((ovc, credits));
                }
            }
            if let Some((ovc, _)) = best {
                return Some(ovc);
            }
        }
        let state = &self.ivc[ivc];
        let out = first + state.out_port as usize;
        let free = eligible(out, state.allowed);
        (free != 0).then(|| {
            let vc = next_after_32(free, self.va_pick_ptr[ivc] as u32) as usize;
            slots.port_vc(out, vc)
        })
    }

    /// Local output port the switch candidate `vc` of local input `local` wants.
    #[inline]
    fn wanted_output(&self, first: usize, local: usize, vc: usize) -> usize {
        self.ivc[self.slots.port_vc(first + local, vc)].out_port as usize
    }

    /// Separable allocation: withdraws the bid of input port `local`, if it made one (its
    /// candidates grew during VC allocation, so it must choose again).
    fn withdraw_bid(&self, local: usize, sc: &mut Scratch) {
        let bit = 1u64 << local;
        if sc.bidders & bit != 0 {
            let out = sc.chosen_out[local] as usize;
            sc.out_req[out] &= !bit;
            if sc.out_req[out] == 0 {
                sc.outputs &= !(1 << out);
            }
        }
    }

    /// Separable allocation, input stage: local input port `local` picks one of its switch
    /// candidates round-robin and requests that VC's output port.
    #[inline]
    pub(super) fn bid(&self, first: usize, local: usize, sc: &mut Scratch) {
        let bit = 1u64 << local;
        let vc = next_after_32(
            sc.sa_cand[local],
            self.ports[first + local].sa_in_ptr as u32,
        );
        let out = self.wanted_output(first, local, vc as usize);
        sc.chosen[local] = vc as u8;
        sc.chosen_out[local] = out as u8;
        sc.bidders |= bit;
        if sc.outputs & (1 << out) == 0 {
            sc.outputs |= 1 << out;
            sc.out_req[out] = 0;
        }
        sc.out_req[out] |= bit;
    }

    /// Separable allocation, output stage: each requested output port grants one input
    /// round-robin, and the granted flit crosses the switch at once.
    pub(super) fn grant_separable<C: CongestionControl>(
        &mut self,
        at: At,
        sc: &mut Scratch,
        cx: &mut StepContext<'_, C>,
    ) {
        let first = at.first;
        for out in bits64(sc.outputs) {
            let local =
                next_after_64(sc.out_req[out], self.ports[first + out].sa_out_ptr as u32) as usize;
            let vc = sc.chosen[local];
            self.ports[first + out].sa_out_ptr = local as u8;
            self.ports[first + local].sa_in_ptr = vc;
            sc.touched_ports |= 1 << local;
            self.traverse(at, local, vc as usize, cx);
        }
    }

    /// iSLIP switch allocation with `iterations` request/grant/accept rounds; fills `sc.winners`.
    pub(super) fn allocate_switch_islip(&mut self, at: At, sc: &mut Scratch, iterations: u32) {
        let first = at.first;
        sc.winners.clear();
        for local in bits64(sc.cand_ports) {
            sc.req_out[local] = bits32(sc.sa_cand[local])
                .fold(0, |m, vc| m | 1 << self.wanted_output(first, local, vc));
        }
        let (mut inputs_matched, mut outputs_matched) = (0u64, 0u64);
        for iteration in 0..iterations {
            let open_inputs = sc.cand_ports & !inputs_matched;
            let mut outputs = 0u64;
            for local in bits64(open_inputs) {
                for out in bits64(sc.req_out[local] & !outputs_matched) {
                    if outputs & (1 << out) == 0 {
                        outputs |= 1 << out;
                        sc.out_req[out] = 0;
                    }
                    sc.out_req[out] |= 1 << local;
                }
                sc.grants[local] = 0;
            }
            for out in bits64(outputs) {
                let local =
                    next_after_64(sc.out_req[out], self.ports[first + out].sa_out_ptr as u32);
                sc.grants[local as usize] |= 1 << out;
            }
            let mut matched_any = false;
            for local in bits64(open_inputs) {
                if sc.grants[local] == 0 {
                    continue;
                }
                let out = next_after_64(
                    sc.grants[local],
                    self.ports[first + local].accept_ptr as u32,
                );
                inputs_matched |= 1 << local;
                outputs_matched |= 1 << out;
                matched_any = true;
                if iteration == 0 {
                    self.ports[first + out as usize].sa_out_ptr = local as u8;
                    self.ports[first + local].accept_ptr = out as u8;
                }
                let vcs = bits32(sc.sa_cand[local])
                    .filter(|&vc| self.wanted_output(first, local, vc) == out as usize)
                    .fold(0u32, |m, vc| m | 1 << vc);
                let vc = next_after_32(vcs, self.ports[first + local].sa_in_ptr as u32);
                self.ports[first + local].sa_in_ptr = vc as u8;
                sc.winners.push((local as u8, vc as u8));
                sc.touched_ports |= 1 << local;
            }
            if !matched_any {
                break;
            }
        }
    }
}
