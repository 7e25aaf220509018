//! Priority flow control (IEEE 802.1Qbb) on the buffered switches (`fabric.flow_control =
//! "pfc"`).
//!
//! Priorities are the lanes. Each input pool on a paced lane sends its sender a PAUSE when a
//! packet's arrival brings it to XOFF blocks or more, and a RESUME when departures bring it back
//! to XON or fewer (XOFF/XON semantics: a frame holds until the next, no pause timer). A frame
//! leaves when it is raised and crosses the link back with the link's latency, ahead of any data
//! (a switch sends it between packets at once). A paused sender starts no packet on that lane
//! and finishes the one it is sending. Senders on paced lanes keep no credits; the pool's
//! headroom above XOFF (checked when the configuration is read) takes what is on its way when
//! the PAUSE arrives, so pools never overflow, which the pool's overflow assertion proves.
//!
//! Not paced: the priority lane of congestion notifications (it keeps credits, so control is
//! never paused and never lost), and links into adapters (an adapter takes every block as it
//! arrives, so credits toward it never run short; a real adapter's PAUSE for a slow host bus is
//! not modelled).

use crate::bitset::BitSet;
use crate::config::PfcThresholds;
use crate::pause_clocks::PauseClocks;

/// The pause state of every paced pool and sender, and its counts.
#[derive(Debug)]
pub(super) struct Pfc {
    xoff: u32,
    xon: u32,
    /// Input VC slots whose pools are paced (a paced lane, with a sender).
    paced_in: BitSet,
    /// Output VC slots whose senders obey PAUSE (a paced lane, with a switch at the far end).
    paced_out: BitSet,
    /// Input VC slots whose last frame upstream was a PAUSE.
    xoff_sent: BitSet,
    /// Input VC slots whose pools reached XOFF on arrivals this cycle: their PAUSEs leave when
    /// the switches step.
    pub(super) raised: Vec<u32>,
    /// Per output VC slot: its pauses.
    clocks: PauseClocks,
    /// The most blocks a paced pool held.
    pub(super) peak: u32,
    /// Frames sent.
    pub(super) pauses: u64,
    pub(super) resumes: u64,
}

impl Pfc {
    /// Pause state for `slots` VC slots with `t`'s thresholds; `paced_in(slot)` and
    /// `paced_out(slot)` say which input pools and which senders it paces.
    pub(super) fn new(
        t: PfcThresholds,
        slots: usize,
        paced_in: impl Fn(usize) -> bool,
        paced_out: impl Fn(usize) -> bool,
    ) -> Pfc {
        let mut ins = BitSet::new(slots);
        let mut outs = BitSet::new(slots);
        for slot in 0..slots {
            if paced_in(slot) {
                ins.insert(slot);
            }
            if paced_out(slot) {
                outs.insert(slot);
            }
        }
        Pfc {
            xoff: t.xoff,
            xon: t.xon,
            paced_in: ins,
            paced_out: outs,
            xoff_sent: BitSet::new(slots),
            raised: Vec::new(),
            clocks: PauseClocks::new(slots),
            peak: 0,
            pauses: 0,
            resumes: 0,
        }
    }

    /// Whether the sender of output VC slot `slot` obeys PAUSE (and keeps no credits).
    #[inline(always)]
    pub(super) fn paces_out(&self, slot: usize) -> bool {
        self.paced_out.contains(slot)
    }

    /// Whether the pool of input VC slot `slot` sends PAUSE and RESUME (and returns no
    /// credits).
    #[inline(always)]
    pub(super) fn paces_in(&self, slot: usize) -> bool {
        self.paced_in.contains(slot)
    }

    /// Whether the sender of output VC slot `slot` is paused.
    #[inline(always)]
    pub(super) fn paused(&self, slot: usize) -> bool {
        self.clocks.paused(slot)
    }

    /// Whether the pool of input VC slot `slot` has paused its sender.
    pub(super) fn xoff_sent(&self, slot: usize) -> bool {
        self.xoff_sent.contains(slot)
    }

    /// A packet arrived at the pool of input VC slot `slot`, which now holds `occupancy`
    /// blocks: a PAUSE is raised when that reaches XOFF.
    #[inline(always)]
    pub(super) fn arrived(&mut self, slot: usize, occupancy: u32) {
        if occupancy >= self.xoff && self.paced_in.contains(slot) {
            self.peak = self.peak.max(occupancy);
            if self.xoff_sent.insert(slot) {
                self.raised.push(slot as u32);
                self.pauses += 1;
            }
        }
    }

    /// A packet left the pool of input VC slot `slot`, which now holds `occupancy` blocks:
    /// whether a RESUME leaves for its sender.
    #[inline(always)]
    pub(super) fn left(&mut self, slot: usize, occupancy: u32) -> bool {
        if occupancy <= self.xon && self.xoff_sent.contains(slot) {
            self.xoff_sent.remove(slot);
            self.resumes += 1;
            true
        } else {
            false
        }
    }

    /// A PAUSE (`pause`) or RESUME reached the sender of output VC slot `slot` at cycle `now`:
    /// whether it resumed.
    pub(super) fn received(&mut self, slot: usize, pause: bool, now: u64) -> bool {
        self.clocks.received(slot, pause, now)
    }

    /// Cycles the sender of output VC slot `slot` has been paused up to cycle `now`.
    pub(super) fn paused_cycles(&self, slot: usize, now: u64) -> u64 {
        self.clocks.paused_cycles(slot, now)
    }
}
