//! The state of congested-flow isolation (FBICM and CCFIT; HFDI and EcoCC): per input pool a
//! few CAM lines, each naming one congestion tree by its destinations (isolating lines own a
//! congested-flow or hot-packet queue; with `voq_hpq` each virtual output queue also has a
//! line, which only a root claims); the upstream neighbour's copy of each line (a line of its
//! output-port CAM, or of the adapter's CAM); and the control messages that keep the copies
//! in step.
//!
//! A line is claimed in one of two ways. *Detection*: a normal queue names its output a root
//! (a *root* line). *Propagation*: a packet at the head of a normal queue whose output's CAM
//! (the copy of a downstream line) lists its destination claims an isolating line tied to
//! that copy (a *branch* line). Packets whose destination a line matches move from the
//! normal queue's head into its queue, so they no longer block it. A queue over the Stop
//! threshold stops its tree upstream (Stop), below Go lets it go (Go); a line whose queue is
//! empty and not stopped is released, and tells upstream (Deallocate) if it had told it of
//! the tree.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;

use crate::config::{Detection, IsolatingQueues, IsolationConfig, Propagate, TreeRoots};
use crate::table::Table;

/// At most this many destinations per CAM line.
pub(super) const MAX_DESTINATIONS: usize = IsolationConfig::MAX_DESTINATIONS as usize;

/// The destinations a CAM line matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct DestSet {
    len: u8,
    dests: [u32; MAX_DESTINATIONS],
}

impl DestSet {
    pub(super) const EMPTY: DestSet = DestSet {
        len: 0,
        dests: [0; MAX_DESTINATIONS],
    };

    /// The set holding only `dst`.
    pub(super) fn of(dst: u32) -> DestSet {
        let mut set = DestSet::EMPTY;
        set.dests[0] = dst;
        set.len = 1;
        set
    }

    #[inline]
    pub(super) fn contains(&self, dst: u32) -> bool {
        self.dests[..self.len as usize].contains(&dst)
    }

    pub(super) fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether every destination of this set is in `other`.
    pub(super) fn within(&self, other: &DestSet) -> bool {
        self.dests[..self.len as usize]
            .iter()
            .all(|&d| other.contains(d))
    }

    /// Adds `dst` (the caller checks there is room).
    pub(super) fn insert(&mut self, dst: u32) {
        if !self.contains(dst) {
            self.dests[self.len as usize] = dst;
            self.len += 1;
        }
    }
}

/// Destination sets by CAM line (an index of [`Cams::at`]), kept only for the lines that hold
/// some: most lines are free most of the time, and a dense table took 132 bytes per line and
/// input lane (most of a `voq_hpq` run's memory).
#[derive(Debug, Clone, Default)]
pub(super) struct SparseSets(FxHashMap<usize, DestSet>);

impl SparseSets {
    /// Sets the destinations of line `i` (an empty set is dropped).
    pub(super) fn set(&mut self, i: usize, dests: DestSet) {
        if dests.len() == 0 {
            self.0.remove(&i);
        } else {
            self.0.insert(i, dests);
        }
    }

    /// Adds `dst` to the destinations of line `i` (the caller checks there is room).
    pub(super) fn insert(&mut self, i: usize, dst: u32) {
        self.0.entry(i).or_insert(DestSet::EMPTY).insert(dst);
    }
}

impl std::ops::Index<usize> for SparseSets {
    type Output = DestSet;

    /// The destinations of line `i` (empty if it holds none).
    #[inline]
    fn index(&self, i: usize) -> &DestSet {
        self.0.get(&i).unwrap_or(&DestSet::EMPTY)
    }
}

/// How a CAM line of an input pool is held. Every claimed line names the local output and the
/// lane its packets leave by (routing that raises packets through lanes hop by hop may send
/// one input lane's packets to several), and so the input VC slot downstream whose CAM it
/// follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Claim {
    Free,
    /// Claimed by detection: the tree's root is local output `out` on lane `vl`; the line's
    /// own destinations match.
    Root {
        out: u8,
        vl: u8,
    },
    /// Claimed for the tree of line `line` of the CAM of local output `out` on lane `vl` (the
    /// copy of the downstream line): that copy's destinations match, and its Stop/Go state
    /// rules the CFQ.
    Branch {
        out: u8,
        vl: u8,
        line: u8,
    },
    /// A branch whose output CAM line was released: it keeps matching the tree's
    /// destinations (its own copy of them), so that no packet overtakes its packets, and frees
    /// itself once its CFQ drains.
    Orphan {
        out: u8,
        vl: u8,
    },
}

impl Claim {
    /// The local output and lane the line's packets leave by (`None`: free).
    pub(super) fn exit(self) -> Option<(u8, u8)> {
        match self {
            Claim::Free => None,
            Claim::Root { out, vl } | Claim::Branch { out, vl, .. } | Claim::Orphan { out, vl } => {
                Some((out, vl))
            }
        }
    }
}

/// A CAM line of an input pool and its queue (a root or orphaned line's destinations are
/// kept apart, in [`Cams::line_dests`], so that the lines touched per packet stay small).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Line {
    pub(super) claim: Claim,
    /// Blocks in its queue, from a packet's arrival (or move in) until its last block leaves
    /// (or it moves on).
    pub(super) blocks: u32,
    /// Whether upstream has been told of the tree (an Allocate sent), and whether it is
    /// stopped (a Stop sent, no Go since).
    pub(super) told: bool,
    pub(super) stopping: bool,
}

impl Line {
    pub(super) const FREE: Line = Line {
        claim: Claim::Free,
        blocks: 0,
        told: false,
        stopping: false,
    };
}

/// What a control message says about the sender's line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Say {
    /// The line holds a tree with these destinations (new, or grown), rooted at an adapter's
    /// link or not (told again if that changes).
    Allocate {
        dests: DestSet,
        at_adapter: bool,
    },
    Stop,
    Go,
    Deallocate,
    /// `root_weighted`: the share of its output's capacity the tree's branch drains at its
    /// root, in [`SHARE_ONE`]ths.
    Rate(u16),
}

/// A whole share of turns, or of a link's capacity.
pub(super) const SHARE_ONE: u16 = 1024;
/// The share a tree gets before its root has measured one (and a root line's own): half
/// the contested turns, as `round_robin` gives.
pub(super) const SHARE_HALF: u16 = SHARE_ONE / 2;

/// `root_weighted`: the blocks a root line's queue has sent since its interval began.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Drain {
    since: u64,
    sent: u32,
    /// The share last told upstream.
    told: u16,
}

/// A control message from line `line` of input VC slot `slot` to the copy upstream, due at
/// `due`; `seq` orders messages due in the same cycle as they were sent.
#[derive(Debug, Clone, Copy)]
pub(super) struct Message {
    pub(super) due: u64,
    pub(super) seq: u64,
    pub(super) slot: u32,
    pub(super) line: u8,
    pub(super) say: Say,
}

impl PartialEq for Message {
    fn eq(&self, other: &Self) -> bool {
        (self.due, self.seq) == (other.due, other.seq)
    }
}
impl Eq for Message {}
impl PartialOrd for Message {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Message {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.due, self.seq).cmp(&(other.due, other.seq))
    }
}

/// Counts of what isolation did over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct IsolationTotals {
    /// Lines claimed by detection (roots), and by propagation (branches).
    pub(super) root_claims: u64,
    pub(super) branch_claims: u64,
    /// Root lines that became branches of a tree found further downstream.
    pub(super) root_merges: u64,
    /// Claims that found every isolating line of the input pool taken (the packet stayed in
    /// its normal queue).
    pub(super) claims_refused: u64,
    /// The most blocks an isolating queue held.
    pub(super) max_cfq_blocks: u32,
    /// Control messages sent, by kind.
    pub(super) allocates: u64,
    pub(super) stops: u64,
    pub(super) goes: u64,
    pub(super) deallocates: u64,
    pub(super) rates: u64,
}

/// When a line tells its upstream neighbour of its tree (Allocate).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum Telling {
    /// As soon as it is claimed (FBICM's and CCFIT's default).
    #[default]
    OnClaim,
    /// With its first Stop.
    WithFirstStop,
    /// The first time its queue is over the upper threshold; Stop follows (HFDI and EcoCC).
    FirstPass,
}

/// Every CAM of the network and the control messages in flight (none by default).
#[derive(Debug, Default)]
pub(super) struct Cams {
    /// Lines per input pool: first those of the normal queues (the virtual output queues of
    /// `voq_hpq`, which only roots claim; none with `nfq_cfq`), then those owning an isolating
    /// queue (CFQ or HPQ).
    pub(super) per_pool: usize,
    pub(super) first_isolating: usize,
    /// `nfq_cfq`: the normal queue's detection threshold, and whether any head packet names
    /// a tree (not only one its output holds back).
    pub(super) detect_blocks: u32,
    pub(super) any_head: bool,
    /// A queue above `stop_blocks` stops its tree upstream and lets it go below `go_blocks`
    /// (`voq_hpq`: HTh and LTh, also the roots' detection thresholds).
    pub(super) stop_blocks: u32,
    pub(super) go_blocks: u32,
    /// `voq_hpq`: a virtual output queue names its output a root only while the output has
    /// credits or faces an adapter.
    pub(super) root_needs_credits: bool,
    pub(super) max_dests: usize,
    pub(super) telling: Telling,
    pub(super) control_delay: u64,
    pub(super) in_band: bool,
    /// Under port-choosing routing, how a packet whose destination a tree downstream lists
    /// is routed.
    pub(super) tree_routing: crate::config::TreeRouting,
    /// Which trees `tree_routing` heeds.
    tree_roots: TreeRoots,
    /// Per input VC slot and line: the line and its destinations.
    pub(super) lines: Table<Line>,
    pub(super) line_dests: SparseSets,
    /// Per input VC slot and line, the upstream neighbour's copy of the line (a line of an
    /// output port's CAM, or of the CAM of the adapter that feeds the input): the
    /// destinations it lists, and per slot a bit per line for the copies in use and those
    /// stopped, so that lookups read only those copies.
    pub(super) copies: SparseSets,
    copies_in_use: Table<u128>,
    copies_stopped: Table<u128>,
    /// Per slot a bit per line for the copies whose tree is rooted at an adapter's link.
    copies_at_adapter: Table<u128>,
    /// `root_weighted` (empty otherwise): the interval a root line measures its drain over,
    /// each line's drain, and each copy's share (the last [`Say::Rate`] it heard).
    rate_interval: u64,
    drains: Table<Drain>,
    copy_shares: Table<u16>,
    messages: BinaryHeap<Reverse<Message>>,
    seq: u64,
    /// Adapters (their VC slots) that a Go or Deallocate may have made able to send.
    pub(super) woken_nics: Vec<u32>,
    pub(super) totals: IsolationTotals,
}

impl Cams {
    /// CAMs for `slots` input VC slots with `normal_lines` lines of normal queues before the
    /// isolating ones (none without `settings`).
    pub(super) fn new(
        settings: Option<&IsolationConfig>,
        slots: usize,
        normal_lines: usize,
    ) -> Cams {
        let Some(s) = settings else {
            return Cams::default();
        };
        let per_pool = normal_lines + s.isolating_queues() as usize;
        // A table per line that only `root_weighted` keeps.
        let weighed_lines = if s.rate_interval.is_some() {
            slots * per_pool
        } else {
            0
        };
        assert!(
            per_pool <= 128,
            "{per_pool} CAM lines per pool do not fit a 128-bit mask"
        );
        let (stop_blocks, go_blocks) = s.stop_go();
        let root_needs_credits = matches!(
            s.queues,
            IsolatingQueues::Hpqs {
                root_needs_credits: true,
                ..
            }
        );
        let (detect_blocks, any_head, telling) = match s.queues {
            IsolatingQueues::Cfqs {
                detect_blocks,
                detection,
                propagate,
                ..
            } => (
                detect_blocks,
                detection == Detection::Head,
                match propagate {
                    Propagate::OnAllocate => Telling::OnClaim,
                    Propagate::OnStop => Telling::WithFirstStop,
                },
            ),
            IsolatingQueues::Hpqs { high_blocks, .. } => (high_blocks, false, Telling::FirstPass),
        };
        Cams {
            per_pool,
            first_isolating: normal_lines,
            detect_blocks,
            any_head,
            stop_blocks,
            go_blocks,
            root_needs_credits,
            max_dests: s.cam_destinations as usize,
            telling,
            control_delay: u64::from(s.control_delay),
            in_band: s.control_in_band,
            tree_routing: s.tree_routing,
            tree_roots: s.tree_roots,
            lines: Table::filled(Line::FREE, slots * per_pool),
            line_dests: SparseSets::default(),
            copies: SparseSets::default(),
            copies_in_use: Table::filled(0, slots),
            copies_stopped: Table::filled(0, slots),
            copies_at_adapter: Table::filled(0, slots),
            rate_interval: s.rate_interval.map_or(0, u64::from),
            drains: Table::filled(Drain::default(), weighed_lines),
            copy_shares: Table::filled(SHARE_HALF, weighed_lines),
            ..Cams::default()
        }
    }

    /// Index of line `line` of input VC slot `slot`.
    #[inline(always)]
    pub(super) fn at(&self, slot: usize, line: usize) -> usize {
        slot * self.per_pool + line
    }

    /// Blocks in the isolating queues of input VC slot `slot`.
    #[inline]
    pub(super) fn isolating_blocks(&self, slot: usize) -> u32 {
        (self.first_isolating..self.per_pool)
            .map(|l| self.lines[self.at(slot, l)].blocks)
            .sum()
    }

    /// Whether line `line` of `slot` is stopped by the line downstream of it: a branch whose
    /// output CAM copy says Stop.
    #[inline]
    pub(super) fn is_stopped(&self, line: &Line, downstream: usize) -> bool {
        match line.claim {
            Claim::Branch { line: l, .. } => self.copies_stopped[downstream] >> l & 1 != 0,
            _ => false,
        }
    }

    /// Whether the copies held for input VC slot `slot` stop destination `dst` (an adapter
    /// sending to that input must hold it back).
    #[inline]
    pub(super) fn stops(&self, slot: usize, dst: u32) -> bool {
        lines_in(self.copies_stopped[slot]).any(|l| self.copies[self.at(slot, l)].contains(dst))
    }

    /// Whether a copy held for input VC slot `slot` that tree routing heeds lists `dst`: any
    /// in use, or with `tree_roots = "endpoint"` only those of trees rooted at an adapter's
    /// link.
    #[inline]
    pub(super) fn heeded_tree_lists(&self, slot: usize, dst: u32) -> bool {
        let mut heeded = self.copies_in_use[slot];
        if self.tree_roots == TreeRoots::Endpoint {
            heeded &= self.copies_at_adapter[slot];
        }
        lines_in(heeded).any(|l| self.copies[self.at(slot, l)].contains(dst))
    }

    /// Whether the copy of line `line` of `slot` is of a tree rooted at an adapter's link.
    #[inline]
    pub(super) fn copy_at_adapter(&self, slot: usize, line: usize) -> bool {
        self.copies_at_adapter[slot] >> line & 1 != 0
    }

    /// The first line of input VC slot `slot` whose copy is in use and whose destinations
    /// satisfy `lists`.
    #[inline]
    pub(super) fn copy_where(
        &self,
        slot: usize,
        lists: impl Fn(&DestSet) -> bool,
    ) -> Option<usize> {
        lines_in(self.copies_in_use[slot]).find(|&l| lists(&self.copies[self.at(slot, l)]))
    }

    /// Applies `say` to the copy of line `line` of `slot`; returns the destinations the copy
    /// listed before.
    pub(super) fn apply(&mut self, slot: usize, line: usize, say: Say) -> DestSet {
        let i = self.at(slot, line);
        let listed = self.copies[i];
        let bit = 1u128 << line;
        match say {
            Say::Allocate { dests, at_adapter } => {
                self.copies.set(i, dests);
                self.copies_in_use[slot] |= bit;
                if at_adapter {
                    self.copies_at_adapter[slot] |= bit;
                } else {
                    self.copies_at_adapter[slot] &= !bit;
                }
            }
            Say::Stop => self.copies_stopped[slot] |= bit,
            Say::Go => self.copies_stopped[slot] &= !bit,
            Say::Deallocate => {
                self.copies.set(i, DestSet::EMPTY);
                self.copies_in_use[slot] &= !bit;
                self.copies_stopped[slot] &= !bit;
                self.copies_at_adapter[slot] &= !bit;
                if self.weighs() {
                    self.copy_shares[i] = SHARE_HALF;
                }
            }
            Say::Rate(share) => self.copy_shares[i] = share,
        }
        listed
    }

    /// Whether roots measure their drain (`root_weighted`).
    #[inline(always)]
    pub(super) fn weighs(&self) -> bool {
        self.rate_interval != 0
    }

    /// `root_weighted`: the share of contested turns an isolating queue tied to the copy of
    /// line `line` of `slot` gets (the tree's share at its root, half until told).
    #[inline]
    pub(super) fn copy_share(&self, slot: usize, line: usize) -> u16 {
        self.copy_shares[self.at(slot, line)]
    }

    /// `root_weighted`: root line `i` (an index of [`Cams::at`]) begins measuring its drain.
    pub(super) fn restart_drain(&mut self, i: usize, now: u64) {
        if self.weighs() {
            self.drains[i] = Drain {
                since: now,
                sent: 0,
                told: SHARE_HALF,
            };
        }
    }

    /// `root_weighted`: root line `i`'s queue starts a packet of `blocks` blocks at `now` on
    /// an output that sends a block every `period` cycles. Once an interval has passed, the
    /// share of that output's capacity the queue used over it (before this packet), if it
    /// differs from the one last told; a new interval begins with this packet.
    pub(super) fn drained(&mut self, i: usize, blocks: u32, period: u32, now: u64) -> Option<u16> {
        let d = &mut self.drains[i];
        let elapsed = now - d.since;
        if elapsed < self.rate_interval {
            d.sent += blocks;
            return None;
        }
        let share = (u64::from(d.sent) * u64::from(period) * u64::from(SHARE_ONE) / elapsed)
            .min(u64::from(SHARE_ONE)) as u16;
        let changed = share != d.told;
        *d = Drain {
            since: now,
            sent: blocks,
            told: share,
        };
        changed.then_some(share)
    }

    /// Queues `say` from line `line` of `slot`, due at `due`.
    pub(super) fn post(&mut self, due: u64, slot: usize, line: usize, say: Say) {
        match say {
            Say::Allocate { .. } => self.totals.allocates += 1,
            Say::Stop => self.totals.stops += 1,
            Say::Go => self.totals.goes += 1,
            Say::Deallocate => self.totals.deallocates += 1,
            Say::Rate(_) => self.totals.rates += 1,
        }
        self.seq += 1;
        self.messages.push(Reverse(Message {
            due,
            seq: self.seq,
            slot: slot as u32,
            line: line as u8,
            say,
        }));
    }

    /// The next message due at or before `now`.
    #[inline]
    pub(super) fn next_due(&mut self, now: u64) -> Option<Message> {
        match self.messages.peek() {
            Some(Reverse(m)) if m.due <= now => self.messages.pop().map(|Reverse(m)| m),
            _ => None,
        }
    }

    /// Whether messages are in flight.
    pub(super) fn in_flight(&self) -> bool {
        !self.messages.is_empty()
    }

    /// Isolating queues claimed now, input pools with none free, and copies held upstream.
    pub(super) fn occupancy(&self) -> (u64, u64, u64) {
        if self.per_pool == 0 {
            return (0, 0, 0);
        }
        let copies = self
            .copies_in_use
            .iter()
            .map(|m| u64::from(m.count_ones()))
            .sum();
        let isolating = self.per_pool - self.first_isolating;
        let mut claimed = 0;
        let mut full = 0;
        for slot in 0..self.lines.len() / self.per_pool {
            let used = (self.first_isolating..self.per_pool)
                .filter(|&l| self.lines[self.at(slot, l)].claim != Claim::Free)
                .count();
            claimed += used as u64;
            full += u64::from(used == isolating);
        }
        (claimed, full, copies)
    }
}

/// The lines whose bits `mask` sets, lowest first.
#[inline]
fn lines_in(mut mask: u128) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let line = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            line
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_destination_set_holds_each_destination_once() {
        let mut set = DestSet::of(7);
        set.insert(3);
        set.insert(7);
        assert_eq!(set.len(), 2);
        assert!(set.contains(3) && set.contains(7) && !set.contains(4));
    }

    fn hpq_settings() -> IsolationConfig {
        IsolationConfig {
            queues: IsolatingQueues::Hpqs {
                hpqs: 2,
                high_blocks: 128,
                low_blocks: 64,
                root_needs_credits: false,
            },
            cam_destinations: 8,
            control_delay: 0,
            control_in_band: false,
            arbitration: crate::config::Arbitration::ReadyOrder,
            rate_interval: None,
            tree_routing: crate::config::TreeRouting::Free,
            tree_roots: TreeRoots::Endpoint,
        }
    }

    #[test]
    fn copies_follow_their_messages_and_only_stopped_copies_stop() {
        let mut cams = Cams::new(Some(&hpq_settings()), 2, 8);
        let mut set = DestSet::of(5);
        set.insert(9);
        let allocate = |dests, at_adapter| Say::Allocate { dests, at_adapter };
        assert_eq!(cams.apply(1, 9, allocate(set, false)), DestSet::EMPTY);
        cams.apply(1, 3, allocate(DestSet::of(9), true));
        // The lowest line listing a destination answers; other slots hold nothing.
        assert_eq!(cams.copy_where(1, |c| c.contains(9)), Some(3));
        assert_eq!(cams.copy_where(1, |c| set.within(c)), Some(9));
        assert_eq!(cams.copy_where(0, |c| c.contains(9)), None);
        assert!(!cams.stops(1, 5));
        cams.apply(1, 9, Say::Stop);
        assert!(cams.stops(1, 5) && cams.stops(1, 9) && !cams.stops(1, 4) && !cams.stops(0, 5));
        let stopped_branch = Line {
            claim: Claim::Branch {
                out: 0,
                vl: 0,
                line: 9,
            },
            ..Line::FREE
        };
        assert!(cams.is_stopped(&stopped_branch, 1) && !cams.is_stopped(&stopped_branch, 0));
        cams.apply(1, 9, Say::Go);
        assert!(!cams.stops(1, 5) && !cams.is_stopped(&stopped_branch, 1));
        assert_eq!(cams.occupancy().2, 2);
        cams.apply(1, 9, Say::Stop);
        assert_eq!(cams.apply(1, 9, Say::Deallocate), set);
        assert!(!cams.stops(1, 5));
        assert_eq!(cams.copy_where(1, |c| c.contains(5)), None);
        assert_eq!(cams.occupancy().2, 1);
    }

    #[test]
    fn messages_come_out_by_due_cycle_then_in_the_order_sent() {
        let mut cams = Cams::new(Some(&hpq_settings()), 4, 8);
        cams.post(10, 0, 0, Say::Stop);
        cams.post(5, 1, 0, Say::Go);
        cams.post(10, 2, 0, Say::Deallocate);
        assert!(cams.next_due(4).is_none());
        let order: Vec<u32> = std::iter::from_fn(|| cams.next_due(10))
            .map(|m| m.slot)
            .collect();
        assert_eq!(order, [1, 0, 2]);
        assert!(!cams.in_flight());
        assert_eq!((cams.totals.stops, cams.totals.goes), (1, 1));
    }
}
