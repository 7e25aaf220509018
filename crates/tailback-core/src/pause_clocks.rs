//! How long each of a set of senders (switch outputs or adapters, by VC slot) has been paused
//! by priority flow control's PAUSE and RESUME frames.

use crate::table::Table;

/// Marks a sender that is not paused.
const RUNNING: u64 = u64::MAX;

/// Per sender: the cycle its pause began ([`RUNNING`]: not paused), and the cycles of its
/// pauses that ended.
#[derive(Debug, Default)]
pub(crate) struct PauseClocks {
    since: Table<u64>,
    cycles: Table<u64>,
}

impl PauseClocks {
    /// Clocks for `senders` senders, none paused.
    pub(crate) fn new(senders: usize) -> PauseClocks {
        PauseClocks {
            since: Table::filled(RUNNING, senders),
            cycles: Table::filled(0, senders),
        }
    }

    /// Whether sender `i` is paused.
    #[inline(always)]
    pub(crate) fn paused(&self, i: usize) -> bool {
        self.since[i] != RUNNING
    }

    /// A PAUSE (`pause`) or RESUME reaches sender `i` at cycle `now`: whether it resumed.
    pub(crate) fn received(&mut self, i: usize, pause: bool, now: u64) -> bool {
        let since = &mut self.since[i];
        match (pause, *since == RUNNING) {
            (true, true) => {
                *since = now;
                false
            }
            (false, false) => {
                self.cycles[i] += now - *since;
                *since = RUNNING;
                true
            }
            _ => false,
        }
    }

    /// Cycles sender `i` has been paused up to cycle `now`.
    pub(crate) fn paused_cycles(&self, i: usize, now: u64) -> u64 {
        let since = self.since[i];
        self.cycles[i] + if since == RUNNING { 0 } else { now - since }
    }
}
