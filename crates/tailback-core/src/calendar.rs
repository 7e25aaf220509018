//! A calendar of wake-up cycles: components that know the cycle they next have work (a link
//! free again, the last block of a packet leaving, a received packet consumed) sleep until
//! then instead of being looked at every cycle.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A cycle that never comes.
pub const NEVER: u64 = u64::MAX;

/// Ids (nodes, output ports) to wake at given cycles. Wake-ups less than a horizon ahead of
/// the calendar's cursor wait in per-cycle buckets (a push and a visit each); later ones wait
/// in a heap until they come within the horizon. The order of the ids woken in one cycle is
/// unspecified: callers collect them in a set.
#[derive(Debug)]
pub(crate) struct Calendar {
    buckets: Vec<Vec<u32>>,
    mask: u64,
    /// The first cycle not yet taken out: every bucketed wake-up is in
    /// `cursor..cursor + buckets.len()`.
    cursor: u64,
    /// Wake-ups in the buckets.
    bucketed: usize,
    /// Wake-ups beyond the horizon when they were scheduled.
    later: BinaryHeap<Reverse<(u64, u32)>>,
}

impl Calendar {
    /// A calendar with per-cycle buckets for wake-ups up to `horizon` cycles ahead (rounded up
    /// to a power of two).
    pub(crate) fn new(horizon: u64) -> Calendar {
        let size = horizon.max(1).next_power_of_two();
        Calendar {
            buckets: vec![Vec::new(); size as usize],
            mask: size - 1,
            cursor: 0,
            bucketed: 0,
            later: BinaryHeap::new(),
        }
    }

    fn size(&self) -> u64 {
        self.mask + 1
    }

    /// Wakes `id` at cycle `at`, or at the first cycle not yet taken out if `at` is earlier.
    #[inline]
    pub(crate) fn schedule(&mut self, at: u64, id: u32) {
        let at = at.max(self.cursor);
        if at - self.cursor < self.size() {
            self.buckets[(at & self.mask) as usize].push(id);
            self.bucketed += 1;
        } else {
            self.later.push(Reverse((at, id)));
        }
    }

    /// Calls `wake` with every id due by `now` and not yet taken out.
    #[inline]
    pub(crate) fn take_due(&mut self, now: u64, mut wake: impl FnMut(usize)) {
        if self.bucketed == 0 && self.later.peek().is_none_or(|Reverse((t, _))| *t > now) {
            self.cursor = self.cursor.max(now + 1);
            return;
        }
        while self.cursor <= now {
            self.bring_in_later();
            let bucket = &mut self.buckets[(self.cursor & self.mask) as usize];
            self.bucketed -= bucket.len();
            for id in bucket.drain(..) {
                wake(id as usize);
            }
            self.cursor += 1;
        }
    }

    /// Moves the wake-ups that have come within the horizon into their buckets.
    fn bring_in_later(&mut self) {
        while let Some(&Reverse((at, id))) = self.later.peek() {
            if at >= self.cursor + self.size() {
                break;
            }
            self.later.pop();
            let at = at.max(self.cursor);
            self.buckets[(at & self.mask) as usize].push(id);
            self.bucketed += 1;
        }
    }

    /// Whether any wake-up is pending.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.bucketed == 0 && self.later.is_empty()
    }

    /// The first cycle with a wake-up ([`NEVER`]: none).
    pub(crate) fn next_due(&self) -> u64 {
        let bucketed = if self.bucketed == 0 {
            NEVER
        } else {
            (self.cursor..self.cursor + self.size())
                .find(|&t| !self.buckets[(t & self.mask) as usize].is_empty())
                .unwrap_or(NEVER)
        };
        let later = self.later.peek().map_or(NEVER, |Reverse((t, _))| *t);
        bucketed.min(later)
    }

    /// Whether `id` is to be woken at some cycle (for the invariant checker).
    pub(crate) fn holds(&self, id: usize) -> bool {
        self.buckets.iter().flatten().any(|&i| i as usize == id)
            || self.later.iter().any(|Reverse((_, i))| *i as usize == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ids woken at each cycle up to `end`.
    fn woken(calendar: &mut Calendar, from: u64, end: u64) -> Vec<(u64, Vec<usize>)> {
        (from..end)
            .filter_map(|now| {
                let mut ids = Vec::new();
                calendar.take_due(now, |id| ids.push(id));
                ids.sort_unstable();
                (!ids.is_empty()).then_some((now, ids))
            })
            .collect()
    }

    #[test]
    fn wakes_each_id_at_its_cycle_near_and_beyond_the_horizon() {
        let mut calendar = Calendar::new(8);
        for (at, id) in [(3, 1), (3, 2), (7, 3), (8, 4), (20, 5), (9, 6), (100, 7)] {
            calendar.schedule(at, id);
        }
        assert_eq!(calendar.next_due(), 3);
        assert_eq!(
            woken(&mut calendar, 0, 200),
            [
                (3, vec![1, 2]),
                (7, vec![3]),
                (8, vec![4]),
                (9, vec![6]),
                (20, vec![5]),
                (100, vec![7])
            ]
        );
        assert!(calendar.is_empty());
        assert_eq!(calendar.next_due(), NEVER);
    }

    #[test]
    fn a_past_cycle_wakes_at_the_next_one_and_skipped_cycles_are_caught_up() {
        let mut calendar = Calendar::new(16);
        calendar.take_due(10, |_| panic!("nothing is due"));
        calendar.schedule(4, 1);
        assert_eq!(calendar.next_due(), 11);
        calendar.schedule(13, 2);
        calendar.schedule(40, 3);
        assert!(calendar.holds(3) && !calendar.holds(4));
        // The clock jumps to 13 (as when idle cycles are skipped): 11 and 12 are taken too.
        let mut ids = Vec::new();
        calendar.take_due(13, |id| ids.push(id));
        ids.sort_unstable();
        assert_eq!(ids, [1, 2]);
        assert_eq!(calendar.next_due(), 40);
        // Nothing bucketed: the cursor jumps and the heap's wake-up still comes on time.
        assert_eq!(woken(&mut calendar, 30, 50), [(40, vec![3])]);
    }
}
