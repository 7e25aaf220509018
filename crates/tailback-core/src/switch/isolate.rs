//! What a buffered switch with congested-flow isolation does. Two layouts of an input pool's
//! queues (see [`super::cam`] for the lines):
//!
//! - [`NfqCfq`](super::NfqCfq) (FBICM, CCFIT): queue 0 is the normal flow queue (NFQ), queue
//!   `1 + l` the congested-flow queue (CFQ) of line `l`. After every arrival an NFQ over the
//!   detection threshold names a root from its head packet and claims a line with a CFQ.
//! - [`VoqHpq`](super::VoqHpq) (HFDI, EcoCC): queue `o < ports` is the virtual output queue
//!   (cold-packet queue, CPQ) of output `o` and line `o` its root line, claimed when the CPQ
//!   passes the upper threshold (its output is certainly the root: exact detection), with no
//!   queue of its own; queues and lines from `ports` on are hot-packet queues (HPQs).
//!
//! A routed packet joins its normal queue. When a packet reaches a normal queue's head it is
//! *post-processed*: if an isolating line matches its destination (or its output's CAM lists
//! the destination and such a line is free to claim for that tree) it moves to that line's
//! queue, and the next head is looked at; otherwise it asks for its output. Control messages
//! travel upstream, one link's latency plus the configured delay, out of band unless
//! configured in band.

use std::ops::Range;

use super::cam::{Claim, DestSet, Line, SHARE_HALF, Say, Telling};
use super::{BufferedSwitches, NONE, QueueScheme};
use crate::bitset::bits64;
use crate::config::TreeRouting;
use crate::fabric::StepContext;
use crate::hooks::CongestionControl;

impl<S: QueueScheme> BufferedSwitches<S> {
    /// The normal queue a packet for local output `out` joins.
    #[inline]
    fn normal_queue(out: u8) -> usize {
        if S::NORMAL_VOQS { out as usize } else { 0 }
    }

    /// Whether queue `q` is a normal queue (the NFQ, or a CPQ).
    #[inline]
    pub(super) fn is_normal(&self, q: usize) -> bool {
        if S::NORMAL_VOQS {
            q < self.cams.first_isolating
        } else {
            q == 0
        }
    }

    /// The queue of line `line`.
    #[inline]
    fn line_queue(line: usize) -> usize {
        if S::NORMAL_VOQS { line } else { 1 + line }
    }

    /// The line of queue `q`, if it has one.
    #[inline]
    pub(super) fn queue_line(q: usize) -> Option<usize> {
        if S::NORMAL_VOQS {
            Some(q)
        } else {
            q.checked_sub(1)
        }
    }

    /// The lines that own an isolating queue (CFQ or HPQ).
    #[inline]
    fn isolating_lines(&self) -> Range<usize> {
        self.cams.first_isolating..self.cams.per_pool
    }

    /// The input VC slot downstream of local output `out`, lane `vl`, of the switch of the
    /// pool in `slot` (`None`: the output leads to an adapter or nowhere, which keep no CAM).
    #[inline]
    fn downstream_of(&self, slot: usize, out: u8, vl: u8) -> Option<usize> {
        let first = self.ports[self.slots.owner(slot)].first as usize;
        let down = self.ports[first + out as usize].downstream;
        (down != NONE && self.slots.is_router(down as usize)).then(|| down as usize + vl as usize)
    }

    /// Whether a CAM downstream of output port `port` (global index), on any lane, lists `dst`
    /// in a tree that tree routing heeds: the port leads into a known congestion tree of that
    /// destination.
    pub(super) fn leads_to_tree(&self, port: usize, dst: u32) -> bool {
        let down = self.ports[port].downstream;
        down != NONE
            && self.slots.is_router(down as usize)
            && (0..self.vls).any(|vl| self.cams.heeded_tree_lists(down as usize + vl, dst))
    }

    /// The candidates (a bit each) a packet may take under `tree_routing`, given which of them
    /// lead into a known tree of its destination (`towards`): all of them (`free`, or none
    /// does); those that do (`follow`); the deterministic one, `escape` (`deterministic`).
    pub(super) fn tree_rule(
        &self,
        candidates: u64,
        escape: u32,
        towards: impl Fn(usize) -> bool,
    ) -> u64 {
        match self.cams.tree_routing {
            TreeRouting::Free => candidates,
            TreeRouting::Follow => match bits64(candidates)
                .filter(|&c| towards(c))
                .fold(0, |set, c| set | 1 << c)
            {
                0 => candidates,
                known => known,
            },
            TreeRouting::Deterministic if bits64(candidates).any(towards) => 1 << escape,
            TreeRouting::Deterministic => candidates,
        }
    }

    /// The ports (local outputs of the switch whose first port is `first`, a bit each) a
    /// packet for `dst` may take among `candidates` under `tree_routing`; `escape` is the
    /// deterministic port.
    pub(super) fn tree_candidates(
        &self,
        first: usize,
        candidates: u64,
        escape: u8,
        dst: u32,
    ) -> u64 {
        self.tree_rule(candidates, u32::from(escape), |out| {
            self.leads_to_tree(first + out, dst)
        })
    }

    /// The routed resident `resident` joins its normal queue in `slot`; an NFQ over the
    /// detection threshold declares congestion, a CPQ over the upper threshold is a root.
    pub(super) fn arrive_isolated<C: CongestionControl>(
        &mut self,
        slot: usize,
        resident: u32,
        cx: &mut StepContext<'_, C>,
    ) {
        let r = self.residents[resident as usize];
        let q = Self::normal_queue(r.out);
        if S::NORMAL_VOQS {
            // The CPQ counts for its Port VL as a virtual output queue does, and detects.
            if C::PORT_VL_EVENTS || self.watched {
                self.port_vl_change(slot, r.out, r.out_vl, r.blocks, true, cx);
            }
            self.grow(slot, q, r.blocks, cx.now);
            self.cpq_root(slot, q, r.dst, r.out_vl, cx.now);
        }
        if self.append(slot, q, resident) {
            self.settle(slot, q, cx);
        }
        if !S::NORMAL_VOQS
            && self.pools[slot] - self.cams.isolating_blocks(slot) > self.cams.detect_blocks
        {
            self.detect(slot, cx);
        }
    }

    /// Post-processes the head of normal queue `q` of `slot`: moves it to an isolating queue
    /// while a line matches it, and lets the first head that stays ask for its output.
    pub(super) fn settle<C: CongestionControl>(
        &mut self,
        slot: usize,
        q: usize,
        cx: &mut StepContext<'_, C>,
    ) {
        loop {
            let head = self.queues[self.queue_index(slot, q)].head;
            if head == NONE {
                return;
            }
            match self.matching_line(slot, head, cx) {
                Some(line) => self.isolate_head(slot, q, line, cx),
                None => {
                    let out = self.residents[head as usize].out;
                    self.make_ready(slot, q, out);
                    return;
                }
            }
        }
    }

    /// The isolating line of `slot` whose queue the resident belongs in: one whose tree lists
    /// its destination, or a free one claimed for the tree of its output's CAM that does. With
    /// `nfq_cfq`, a root line whose destinations the output's CAM lists becomes a branch of
    /// that tree: the root is further downstream.
    fn matching_line<C: CongestionControl>(
        &mut self,
        slot: usize,
        resident: u32,
        cx: &mut StepContext<'_, C>,
    ) -> Option<usize> {
        let r = self.residents[resident as usize];
        let down = self.downstream_of(slot, r.out, r.out_vl);
        let cams = &self.cams;
        // The line of the output's CAM listing the destination.
        let tree = down.and_then(|down| cams.copy_where(down, |c| c.contains(r.dst)));
        let mut free = None;
        for l in self.isolating_lines() {
            let i = cams.at(slot, l);
            let dests = &cams.line_dests[i];
            match cams.lines[i].claim {
                Claim::Free => free = free.or(Some(l)),
                Claim::Root { out, vl }
                    if (out, vl) == (r.out, r.out_vl) && dests.contains(r.dst) =>
                {
                    if let (Some(down), Some(m)) = (down, tree)
                        && dests.within(&cams.copies[cams.at(down, m)])
                    {
                        self.root_to_branch(slot, l, m, cx);
                    }
                    return Some(l);
                }
                Claim::Branch { out, vl, line: m }
                    if (out, vl) == (r.out, r.out_vl)
                        && down.is_some_and(|d| {
                            cams.copies[cams.at(d, m as usize)].contains(r.dst)
                        }) =>
                {
                    return Some(l);
                }
                // Its packets keep following it while it drains: nothing overtakes them.
                Claim::Orphan { out, vl }
                    if (out, vl) == (r.out, r.out_vl) && dests.contains(r.dst) =>
                {
                    return Some(l);
                }
                _ => {}
            }
        }
        let tree = tree?;
        let Some(l) = free else {
            self.cams.totals.claims_refused += 1;
            return None;
        };
        let i = self.cams.at(slot, l);
        self.cams.lines[i].claim = Claim::Branch {
            out: r.out,
            vl: r.out_vl,
            line: tree as u8,
        };
        self.cams.totals.branch_claims += 1;
        if self.cams.telling == Telling::OnClaim {
            self.tell_tree(slot, l, cx.now);
        }
        Some(l)
    }

    /// Root line `line` of `slot` (with its own CFQ) joins the tree of line `tree` of its
    /// output's CAM: it no longer counts towards its output's congestion (its packets not yet
    /// started leave the Port VL's count), follows that tree's Stop and Go, and tells upstream
    /// of the tree.
    fn root_to_branch<C: CongestionControl>(
        &mut self,
        slot: usize,
        line: usize,
        tree: usize,
        cx: &mut StepContext<'_, C>,
    ) {
        let i = self.cams.at(slot, line);
        let Claim::Root { out, vl } = self.cams.lines[i].claim else {
            return;
        };
        if C::PORT_VL_EVENTS || self.watched {
            let q = Self::line_queue(line);
            let head = self.queues[self.queue_index(slot, q)].head;
            let mut waiting = self.cams.lines[i].blocks;
            if head != NONE && self.listed_after(slot, q, out).is_none() {
                // The head is being sent: it left the count when it started.
                waiting -= self.residents[head as usize].blocks;
            }
            if waiting > 0 {
                self.port_vl_change(slot, out, vl, waiting, false, cx);
            }
        }
        self.cams.lines[i].claim = Claim::Branch {
            out,
            vl,
            line: tree as u8,
        };
        self.cams.totals.root_merges += 1;
        if self.cams.lines[i].told {
            self.tell_tree(slot, line, cx.now);
        }
    }

    /// Where queue `q` of `slot` is in the ready list of local output `out`: the queue before
    /// it ([`NONE`]: it is first), or `None` if it is not listed (its head is being sent).
    fn listed_after(&self, slot: usize, q: usize, out: u8) -> Option<u32> {
        let (mut prev, mut at) = (NONE, self.ready[self.ready_list(slot, out as usize)].head);
        while at != NONE {
            if at as usize == q {
                return Some(prev);
            }
            prev = at;
            at = self.ready_next[self.queue_index(slot, at as usize)];
        }
        None
    }

    /// Moves the head of normal queue `from` of `slot` to the queue of isolating line `line`.
    fn isolate_head<C: CongestionControl>(
        &mut self,
        slot: usize,
        from: usize,
        line: usize,
        cx: &mut StepContext<'_, C>,
    ) {
        let fi = self.queue_index(slot, from);
        let resident = self.queues[fi].head;
        let r = self.residents[resident as usize];
        self.queues[fi].head = r.next;
        if r.next == NONE {
            self.queues[fi].tail = NONE;
        }
        let q = Self::line_queue(line);
        let (out, blocks) = (r.out, r.blocks);
        if self.append(slot, q, resident) {
            self.make_ready(slot, q, out);
        }
        if S::NORMAL_VOQS {
            // It leaves its CPQ (and the Port VL's count) for an HPQ.
            if C::PORT_VL_EVENTS || self.watched {
                self.port_vl_change(slot, out, r.out_vl, blocks, false, cx);
            }
            self.shrink(slot, from, blocks, cx.now);
        } else if (C::PORT_VL_EVENTS || self.watched)
            && matches!(
                self.cams.lines[self.cams.at(slot, line)].claim,
                Claim::Root { .. }
            )
        {
            self.port_vl_change(slot, out, r.out_vl, blocks, true, cx);
        }
        self.grow(slot, line, blocks, cx.now);
    }

    /// The queue of line `line` of `slot` took `blocks` more: a queue over the upper threshold
    /// stops its tree upstream (telling upstream first if it has not; with `voq_hpq`, the
    /// first time over only tells, and a Stop follows at the next arrival still over).
    fn grow(&mut self, slot: usize, line: usize, blocks: u32, now: u64) {
        let i = self.cams.at(slot, line);
        self.cams.lines[i].blocks += blocks;
        let l = self.cams.lines[i];
        if line >= self.cams.first_isolating {
            let most = &mut self.cams.totals.max_cfq_blocks;
            *most = (*most).max(l.blocks);
        }
        if l.claim == Claim::Free || l.stopping || l.blocks <= self.cams.stop_blocks {
            return;
        }
        if self.cams.telling == Telling::FirstPass && !l.told {
            // Told at the first pass; a Stop follows if it is still over at the next arrival.
            self.tell_tree(slot, line, now);
        } else {
            if !l.told {
                self.tell_tree(slot, line, now);
            }
            self.send(slot, line, Say::Stop, now);
            self.cams.lines[i].stopping = true;
        }
    }

    /// CPQ `q` of `slot` took a packet for `dst` leaving on lane `vl`: over the upper
    /// threshold without a line, its output is a root (exact detection): the line is claimed
    /// for `dst` and upstream told at once; a root line takes in the destinations of later
    /// packets while it has room.
    fn cpq_root(&mut self, slot: usize, q: usize, dst: u32, vl: u8, now: u64) {
        let i = self.cams.at(slot, q);
        let (l, dests) = (self.cams.lines[i], &self.cams.line_dests[i]);
        match l.claim {
            Claim::Free if l.blocks > self.cams.stop_blocks && self.may_be_root(slot, q, vl) => {
                self.claim_root(slot, q, (q as u8, vl), dst, now);
            }
            Claim::Root { .. } if !dests.contains(dst) && dests.len() < self.cams.max_dests => {
                self.add_destination(slot, q, dst, now);
            }
            _ => {}
        }
    }

    /// Whether local output `out` of the input of `slot` may be named a root: always, or with
    /// `root_needs_credits` while it has credits on lane `vl` or faces an adapter.
    fn may_be_root(&self, slot: usize, out: usize, vl: u8) -> bool {
        if !self.cams.root_needs_credits {
            return true;
        }
        let port = self.ports[self.slots.owner(slot)].first as usize + out;
        !self.slots.is_router(self.ports[port].downstream as usize)
            || self.credits[self.slots.port_vc(port, vl as usize)] > 0
    }

    /// The NFQ of `slot` is over the detection threshold: if its head packet is held back by
    /// its output (busy, or without credits for it; any head with `detection = "head"`), its
    /// destination is taken as a tree rooted at that output, and joins the root line of that
    /// output (while it has room for another destination) or claims a free one. The head then
    /// moves to that line's CFQ. Nothing happens while the head is being sent.
    fn detect<C: CongestionControl>(&mut self, slot: usize, cx: &mut StepContext<'_, C>) {
        let head = self.queues[self.queue_index(slot, 0)].head;
        if head == NONE {
            return;
        }
        let r = self.residents[head as usize];
        if !self.cams.any_head && !self.output_blocks(slot, r.out, r.out_vl, r.blocks) {
            return;
        }
        let cams = &self.cams;
        let lines = self
            .isolating_lines()
            .map(|l| (l, &cams.lines[cams.at(slot, l)]));
        let grow = lines.clone().find(|&(l, line)| {
            line.claim
                == Claim::Root {
                    out: r.out,
                    vl: r.out_vl,
                }
                && cams.line_dests[cams.at(slot, l)].len() < cams.max_dests
        });
        let target = grow
            .or_else(|| lines.clone().find(|(_, line)| line.claim == Claim::Free))
            .map(|(l, line)| (l, line.claim == Claim::Free));
        let Some((line, claim)) = target else {
            self.cams.totals.claims_refused += 1;
            return;
        };
        if !self.unready(slot, 0, r.out) {
            return;
        }
        if claim {
            self.claim_root(slot, line, (r.out, r.out_vl), r.dst, cx.now);
        } else {
            self.add_destination(slot, line, r.dst, cx.now);
        }
        self.settle(slot, 0, cx);
    }

    /// Line `line` of `slot` becomes the root line of local output and lane `(out, vl)` for
    /// `dst`, and tells upstream unless the scheme waits for its first Stop (a CPQ's claim is
    /// its first pass).
    fn claim_root(&mut self, slot: usize, line: usize, (out, vl): (u8, u8), dst: u32, now: u64) {
        let i = self.cams.at(slot, line);
        self.cams.lines[i].claim = Claim::Root { out, vl };
        self.cams.line_dests.set(i, DestSet::of(dst));
        self.cams.totals.root_claims += 1;
        self.cams.restart_drain(i, now);
        if self.cams.telling != Telling::WithFirstStop {
            self.tell_tree(slot, line, now);
        }
    }

    /// Root line `line` of `slot` takes in `dst` (the caller checks there is room), and tells
    /// upstream of its grown tree if it had told it of the tree.
    fn add_destination(&mut self, slot: usize, line: usize, dst: u32, now: u64) {
        let i = self.cams.at(slot, line);
        self.cams.line_dests.insert(i, dst);
        if self.cams.lines[i].told {
            self.tell_tree(slot, line, now);
        }
    }

    /// Whether local output `out` of the switch of input VC slot `slot` holds back a packet of
    /// `blocks` blocks leaving on lane `vl`: it is sending another packet or lacks the credits.
    fn output_blocks(&self, slot: usize, out: u8, vl: u8, blocks: u32) -> bool {
        let first = self.ports[self.slots.owner(slot)].first as usize;
        let o = first + out as usize;
        self.ports[o].stream != NONE || self.credits[self.slots.port_vc(o, vl as usize)] < blocks
    }

    /// Takes queue `q` of `slot` out of the ready list of local output `out`; `false` if it
    /// was not there (its head is being sent).
    fn unready(&mut self, slot: usize, q: usize, out: u8) -> bool {
        let Some(prev) = self.listed_after(slot, q, out) else {
            return false;
        };
        self.unlink(slot, out, prev, q as u32);
        true
    }

    /// `blocks` blocks left the queue of line `line` of `slot` (their last block left, or
    /// they moved on to an HPQ): below the lower threshold the tree goes again upstream; a
    /// claimed line whose queue is empty and not stopped is freed.
    pub(super) fn shrink(&mut self, slot: usize, line: usize, blocks: u32, now: u64) {
        let i = self.cams.at(slot, line);
        self.cams.lines[i].blocks -= blocks;
        let l = self.cams.lines[i];
        if l.stopping && l.blocks < self.cams.go_blocks {
            self.send(slot, line, Say::Go, now);
            self.cams.lines[i].stopping = false;
        }
        self.release_if_drained(slot, line, now);
    }

    /// Frees line `line` of `slot` if it is claimed and its queue is empty and not stopped,
    /// telling upstream if it had been told of the tree.
    fn release_if_drained(&mut self, slot: usize, line: usize, now: u64) {
        let i = self.cams.at(slot, line);
        let l = self.cams.lines[i];
        let q = Self::line_queue(line);
        if l.claim == Claim::Free || self.queues[self.queue_index(slot, q)].head != NONE {
            return;
        }
        if let Some(down) = l
            .claim
            .exit()
            .and_then(|(out, vl)| self.downstream_of(slot, out, vl))
            && self.cams.is_stopped(&l, down)
        {
            return;
        }
        if l.told {
            self.send(slot, line, Say::Deallocate, now);
        }
        self.cams.lines[i] = Line::FREE;
        self.cams.line_dests.set(i, DestSet::EMPTY);
    }

    /// Tells upstream the destinations of line `line` of `slot` (its own for a root line, its
    /// output CAM copy's for a branch) and whether the tree is rooted at an adapter's link (a
    /// root line's output faces an adapter; a branch's copy says so; an orphan does not know).
    fn tell_tree(&mut self, slot: usize, line: usize, now: u64) {
        let i = self.cams.at(slot, line);
        let l = self.cams.lines[i];
        let (dests, at_adapter) = match l.claim {
            Claim::Branch { out, vl, line: m } => match self.downstream_of(slot, out, vl) {
                Some(down) => (
                    self.cams.copies[self.cams.at(down, m as usize)],
                    self.cams.copy_at_adapter(down, m as usize),
                ),
                None => return,
            },
            Claim::Root { out, vl } => (
                self.cams.line_dests[i],
                self.downstream_of(slot, out, vl).is_none(),
            ),
            _ => (self.cams.line_dests[i], false),
        };
        self.cams.lines[i].told = true;
        self.send(slot, line, Say::Allocate { dests, at_adapter }, now);
    }

    /// Sends `say` from line `line` of input VC slot `slot` to its upstream neighbour, over
    /// the reverse direction of the input's link: due after that link's latency plus the
    /// control delay; in band, it also waits for the link and takes a block's time on it.
    fn send(&mut self, slot: usize, line: usize, say: Say, now: u64) {
        let in_port = self.slots.owner(slot);
        let port = &mut self.ports[in_port];
        if port.upstream == NONE {
            return;
        }
        let mut depart = now;
        if self.cams.in_band {
            depart = if port.stream != NONE {
                port.free_at
            } else {
                now.max(port.free_at)
            };
            port.free_at = depart + u64::from(port.period);
        }
        let due = depart + u64::from(port.link_delay) + self.cams.control_delay;
        self.cams.post(due, slot, line, say);
    }

    /// Delivers the control messages due now to the copies upstream.
    pub(super) fn deliver_control<C: CongestionControl>(&mut self, cx: &mut StepContext<'_, C>) {
        while let Some(m) = self.cams.next_due(cx.now) {
            let (slot, line) = (m.slot as usize, m.line as usize);
            // The destinations the copy listed before this message.
            let listed = self.cams.apply(slot, line, m.say);
            let up = self.ports[self.slots.owner(slot)].upstream as usize;
            if self.slots.is_router(up) {
                self.update_branches(up + self.slots.vc(slot), line, m.say, listed, cx);
            } else if matches!(m.say, Say::Go | Say::Deallocate) {
                self.cams
                    .woken_nics
                    .push((up - self.slots.nic_base as usize) as u32);
            }
        }
    }

    /// The copy of line `line` held for output VC slot `out_slot` changed by `say` (it listed
    /// `dests` before): the branches tied to it at that switch pass a grown tree on, are
    /// orphaned with it (keeping its destinations while they drain), free themselves if
    /// drained, and the output looks for work again.
    fn update_branches<C: CongestionControl>(
        &mut self,
        out_slot: usize,
        line: usize,
        say: Say,
        dests: DestSet,
        cx: &mut StepContext<'_, C>,
    ) {
        let now = cx.now;
        let out = self.slots.owner(out_slot);
        let vl = self.slots.vc(out_slot);
        let (router, first) = (
            self.ports[out].router as usize,
            self.ports[out].first as usize,
        );
        let exit = ((out - first) as u8, vl as u8);
        let down = self.ports[out].downstream as usize + vl;
        let tied = Claim::Branch {
            out: exit.0,
            vl: exit.1,
            line: line as u8,
        };
        // Packets keep their lane, or change it hop by hop: then any input lane may feed it.
        let in_lanes = if self.lanes_change() {
            0..self.vls
        } else {
            vl..vl + 1
        };
        let slots = self.slots;
        let inputs = first..self.first_port[router + 1] as usize;
        for slot in inputs.flat_map(|port| in_lanes.clone().map(move |v| slots.port_vc(port, v))) {
            for l in self.isolating_lines() {
                let i = self.cams.at(slot, l);
                let claim = self.cams.lines[i].claim;
                if let Say::Allocate { dests: set, .. } = say
                    && matches!(claim, Claim::Root { .. } | Claim::Orphan { .. })
                    && claim.exit() == Some(exit)
                    && self.cams.line_dests[i].within(&set)
                {
                    // A tree found further downstream takes in a line of this switch's own, or
                    // one left over from its earlier life: its packets obey its Stop and Go.
                    match claim {
                        Claim::Root { .. } => self.root_to_branch(slot, l, line, cx),
                        _ => self.cams.lines[i].claim = tied,
                    }
                    continue;
                }
                if claim != tied {
                    continue;
                }
                match say {
                    Say::Allocate { .. } if self.cams.lines[i].told => {
                        self.tell_tree(slot, l, now);
                    }
                    Say::Deallocate => {
                        // A live tree downstream that lists its destinations takes it in (its
                        // packets obey that tree's Stop and Go); otherwise it drains on its
                        // own.
                        let live = self.cams.copy_where(down, |c| dests.within(c));
                        self.cams.lines[i].claim = match live {
                            Some(m) => Claim::Branch {
                                out: exit.0,
                                vl: exit.1,
                                line: m as u8,
                            },
                            None => Claim::Orphan {
                                out: exit.0,
                                vl: exit.1,
                            },
                        };
                        self.cams.line_dests.set(i, dests);
                        self.release_if_drained(slot, l, now);
                    }
                    Say::Go => self.release_if_drained(slot, l, now),
                    Say::Rate(share) if self.cams.lines[i].told => {
                        self.send(slot, l, Say::Rate(share), now);
                    }
                    _ => {}
                }
            }
        }
        let p = &self.ports[out];
        if p.stream == NONE && p.requested_vls != 0 {
            self.active.insert(out);
        }
    }

    /// `root_weighted`: the share of contested turns isolating queue `q` of `slot` gets: its
    /// tree's share at the root as last told (a branch), or half (a root line, an orphan, a
    /// tree not yet measured).
    pub(super) fn isolating_share(&self, slot: usize, q: usize) -> u16 {
        let Some(line) = Self::queue_line(q) else {
            return SHARE_HALF;
        };
        match self.cams.lines[self.cams.at(slot, line)].claim {
            Claim::Branch { out, vl, line: m } => self
                .downstream_of(slot, out, vl)
                .map_or(SHARE_HALF, |down| self.cams.copy_share(down, m as usize)),
            _ => SHARE_HALF,
        }
    }

    /// `root_weighted`: queue `q` of `slot` starts a packet of `blocks` blocks on an output
    /// that sends a block every `period` cycles; a root line's queue tells upstream the share
    /// of that output it drained over each interval, when it changed.
    #[inline]
    pub(super) fn measure_drain(
        &mut self,
        slot: usize,
        q: usize,
        blocks: u32,
        period: u32,
        now: u64,
    ) {
        if !self.cams.weighs() {
            return;
        }
        let Some(line) = Self::queue_line(q) else {
            return;
        };
        let i = self.cams.at(slot, line);
        let l = self.cams.lines[i];
        if matches!(l.claim, Claim::Root { .. })
            && let Some(share) = self.cams.drained(i, blocks, period, now)
            && l.told
        {
            self.send(slot, line, Say::Rate(share), now);
        }
    }

    /// Whether queue `q` of `slot` may not send because its tree is stopped downstream
    /// (`down`: the input VC slot its output leads to).
    #[inline]
    pub(super) fn queue_stopped(&self, slot: usize, q: usize, down: usize) -> bool {
        self.slots.is_router(down)
            && Self::queue_line(q).is_some_and(|l| {
                self.cams
                    .is_stopped(&self.cams.lines[self.cams.at(slot, l)], down)
            })
    }

    /// Whether queue `q` of `slot` counts for its Port VL: every queue without isolation;
    /// with `nfq_cfq` only root CFQs (they decide whether the output is congested), with
    /// `voq_hpq` only the CPQs.
    #[inline]
    pub(super) fn counts_for_port_vl(&self, slot: usize, q: usize) -> bool {
        if !S::ISOLATION {
            true
        } else if S::NORMAL_VOQS {
            self.is_normal(q)
        } else {
            Self::queue_line(q).is_some_and(|l| {
                matches!(
                    self.cams.lines[self.cams.at(slot, l)].claim,
                    Claim::Root { .. }
                )
            })
        }
    }
}
