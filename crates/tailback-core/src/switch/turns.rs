//! How an isolating switch's output chooses, at one input, between the normal queue and the
//! isolating queues whose head packets it could start (`fabric.isolation.arbitration`).

use super::cam::SHARE_ONE;
use crate::bitset::BitSet;
use crate::config::Arbitration;
use crate::table::Table;

/// Which class of queue an input's ready list serves first when both could send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Prefer {
    /// Whichever queue became ready first.
    First,
    /// The normal queue (`true`) or an isolating one.
    Class(bool),
    /// By the isolating queue's share of turns ([`ClassTurns::isolating_due`]).
    Weigh,
}

/// The arbitration policy and its state per ready list (an input pool's list for one
/// output).
#[derive(Debug)]
pub(super) struct ClassTurns {
    policy: Arbitration,
    /// `round_robin`: whether the list's last packet came from an isolating queue.
    isolating_served: BitSet,
    /// `root_weighted`: turns owed to isolating queues, in [`SHARE_ONE`]ths (below one).
    owed: Table<u16>,
}

impl ClassTurns {
    /// The state of `policy` for `lists` ready lists.
    pub(super) fn new(policy: Arbitration, lists: usize) -> ClassTurns {
        let sized = |p| if policy == p { lists } else { 0 };
        ClassTurns {
            policy,
            isolating_served: BitSet::new(sized(Arbitration::RoundRobin)),
            owed: Table::filled(0, sized(Arbitration::RootWeighted)),
        }
    }

    /// Which class ready list `list` serves first.
    #[inline(always)]
    pub(super) fn prefer(&self, list: usize) -> Prefer {
        match self.policy {
            Arbitration::ReadyOrder => Prefer::First,
            Arbitration::NormalFirst => Prefer::Class(true),
            Arbitration::RoundRobin => Prefer::Class(self.isolating_served.contains(list)),
            Arbitration::RootWeighted => Prefer::Weigh,
        }
    }

    /// `root_weighted`: whether an isolating queue whose tree drains `share` at its root wins
    /// the contest at `list` (a weighted round robin: it wins that share of contests).
    #[inline(always)]
    pub(super) fn isolating_due(&self, list: usize, share: u16) -> bool {
        self.owed[list] + share >= SHARE_ONE
    }

    /// List `list` gave a packet of a normal queue or not; `contest` is the losing or winning
    /// isolating queue's share when `root_weighted` weighed both classes.
    #[inline]
    pub(super) fn served(&mut self, list: usize, normal: bool, contest: Option<u16>) {
        match self.policy {
            Arbitration::RoundRobin if normal => self.isolating_served.remove(list),
            Arbitration::RoundRobin => {
                self.isolating_served.insert(list);
            }
            Arbitration::RootWeighted => {
                if let Some(share) = contest {
                    let owed = self.owed[list] + share;
                    self.owed[list] = if normal { owed } else { owed - SHARE_ONE };
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Contests at one list, the isolating queue's share fixed: how many it wins.
    fn isolating_wins(share: u16, contests: usize) -> usize {
        let mut turns = ClassTurns::new(Arbitration::RootWeighted, 1);
        (0..contests)
            .filter(|_| {
                let wins = turns.isolating_due(0, share);
                turns.served(0, !wins, Some(share));
                wins
            })
            .count()
    }

    #[test]
    fn a_weighted_isolating_queue_wins_its_share_of_contests() {
        assert_eq!(isolating_wins(SHARE_ONE / 4, 400), 100);
        assert_eq!(isolating_wins(SHARE_ONE / 2, 400), 200);
        assert_eq!(isolating_wins(SHARE_ONE, 400), 400);
        assert_eq!(isolating_wins(0, 400), 0);
    }

    #[test]
    fn uncontested_grants_and_other_policies_leave_the_owed_turns_alone() {
        let mut turns = ClassTurns::new(Arbitration::RootWeighted, 2);
        turns.served(1, true, None);
        assert!(!turns.isolating_due(1, SHARE_ONE - 1));
        let mut rr = ClassTurns::new(Arbitration::RoundRobin, 2);
        assert_eq!(rr.prefer(0), Prefer::Class(false));
        rr.served(0, false, None);
        assert_eq!(
            (rr.prefer(0), rr.prefer(1)),
            (Prefer::Class(true), Prefer::Class(false))
        );
    }
}
