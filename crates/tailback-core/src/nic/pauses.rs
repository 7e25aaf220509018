//! The adapters' side of priority flow control: their injection lanes paused and resumed by
//! the switch they send to, in place of credits.

/// Marks a lane that is not paused.
const RUNNING: u64 = u64::MAX;

/// Which injection lanes priority flow control paces, and their pauses.
#[derive(Debug, Default)]
pub(crate) struct InjectionPauses {
    /// Paced lanes (a mask; 0 without priority flow control).
    lanes: u32,
    /// Per injection slot (node, lane): the cycle its pause began ([`RUNNING`]: not paused),
    /// and the cycles of its pauses that ended.
    since: Vec<u64>,
    cycles: Vec<u64>,
}

impl InjectionPauses {
    /// Paces the lanes of `lanes` on `slots` injection slots.
    pub(crate) fn new(lanes: u32, slots: usize) -> InjectionPauses {
        InjectionPauses {
            lanes,
            since: vec![RUNNING; slots],
            cycles: vec![0; slots],
        }
    }

    /// Whether lane `vc` is paced.
    #[inline(always)]
    pub(crate) fn paces(&self, vc: usize) -> bool {
        self.lanes >> vc & 1 == 1
    }

    /// Whether injection slot `slot` on lane `vc` may start a packet of `need` blocks, with
    /// `credits` credits: not paused where paced, else with the credits.
    #[inline(always)]
    pub(crate) fn may_start(&self, slot: usize, vc: usize, credits: u16, need: u32) -> bool {
        if self.paces(vc) {
            self.since[slot] == RUNNING
        } else {
            u32::from(credits) >= need
        }
    }

    /// A PAUSE (`pause`) or RESUME reaches injection slot `slot` at cycle `now`: whether it
    /// resumed.
    pub(crate) fn received(&mut self, slot: usize, pause: bool, now: u64) -> bool {
        let since = &mut self.since[slot];
        match (pause, *since == RUNNING) {
            (true, true) => {
                *since = now;
                false
            }
            (false, false) => {
                self.cycles[slot] += now - *since;
                *since = RUNNING;
                true
            }
            _ => false,
        }
    }

    /// Whether injection slot `slot` is paused.
    pub(crate) fn paused(&self, slot: usize) -> bool {
        self.since.get(slot).is_some_and(|&s| s != RUNNING)
    }

    /// Cycles injection slot `slot` has been paused up to cycle `now`.
    pub(crate) fn paused_cycles(&self, slot: usize, now: u64) -> u64 {
        let since = self.since[slot];
        self.cycles[slot] + if since == RUNNING { 0 } else { now - since }
    }
}
