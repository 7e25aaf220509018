//! The adapters' side of priority flow control: their injection lanes paused and resumed by
//! the switch they send to, in place of credits.

use crate::pause_clocks::PauseClocks;

/// Which injection lanes priority flow control paces, and their pauses by injection slot
/// (node, lane).
#[derive(Debug, Default)]
pub(crate) struct InjectionPauses {
    /// Paced lanes (a mask; 0 without priority flow control).
    lanes: u32,
    pub(crate) clocks: PauseClocks,
}

impl InjectionPauses {
    /// Paces the lanes of `lanes` on `slots` injection slots.
    pub(crate) fn new(lanes: u32, slots: usize) -> InjectionPauses {
        InjectionPauses {
            lanes,
            clocks: PauseClocks::new(slots),
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
            !self.clocks.paused(slot)
        } else {
            u32::from(credits) >= need
        }
    }
}
