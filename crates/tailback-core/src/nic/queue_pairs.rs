//! Per-destination request queues served round robin (an InfiniBand channel adapter's queue
//! pairs): a packet waits only behind packets for its own destination.

use std::collections::{BTreeMap, VecDeque};

use crate::traffic::Offered;

/// A NIC's requests, one queue per destination, and the destinations with packets in
/// round-robin order.
#[derive(Debug, Clone, Default)]
pub(crate) struct QueuePairs {
    /// Packets by destination; a queue is kept once created, so steady traffic allocates
    /// nothing.
    queues: BTreeMap<u32, VecDeque<Offered>>,
    /// Destinations whose queue holds packets, next to serve first.
    ready: VecDeque<u32>,
    len: usize,
}

impl QueuePairs {
    /// Packets waiting in all queues.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Packets waiting for `dst`.
    pub(crate) fn queued(&self, dst: u32) -> usize {
        self.queues.get(&dst).map_or(0, VecDeque::len)
    }

    /// Whether the queue for `dst` holds fewer than `limit` packets (`None`: no limit).
    pub(crate) fn has_room(&self, dst: u32, limit: Option<u32>) -> bool {
        limit.is_none_or(|limit| self.queued(dst) < limit as usize)
    }

    /// The destinations with packets waiting, in round-robin order.
    pub(crate) fn waiting(&self) -> impl Iterator<Item = u32> + '_ {
        self.ready.iter().copied()
    }

    /// Appends a packet to its destination's queue.
    pub(crate) fn push(&mut self, packet: Offered) {
        let queue = self.queues.entry(packet.dst).or_default();
        if queue.is_empty() {
            self.ready.push_back(packet.dst);
        }
        queue.push_back(packet);
        self.len += 1;
    }

    /// Takes the first packet of the next destination in round-robin order whose first packet
    /// `sendable` accepts; that destination goes to the back of the order if it has more, the
    /// ones passed over keep their turn.
    pub(crate) fn pop_next(
        &mut self,
        mut sendable: impl FnMut(&Offered) -> bool,
    ) -> Option<Offered> {
        let turn = self.ready.iter().position(|dst| {
            let queue = &self.queues[dst];
            sendable(queue.front().expect("a ready queue holds a packet"))
        })?;
        let dst = self.ready.remove(turn).expect("the position is in range");
        let queue = self
            .queues
            .get_mut(&dst)
            .expect("a ready destination has a queue");
        let packet = queue.pop_front().expect("a ready queue holds a packet");
        if !queue.is_empty() {
            self.ready.push_back(dst);
        }
        self.len -= 1;
        Some(packet)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::LogicalNetwork;

    fn packet(dst: u32, created: u64) -> Offered {
        Offered {
            created,
            dst,
            flits: 1,
            network: LogicalNetwork::Request,
            message_rest: 0,
            header: 0,
            control: false,
        }
    }

    #[test]
    fn destinations_take_turns_and_keep_their_order() {
        let mut qp = QueuePairs::default();
        for (dst, t) in [(5, 0), (5, 1), (5, 2), (2, 3), (7, 4)] {
            qp.push(packet(dst, t));
        }
        assert!(!qp.has_room(5, Some(3)) && qp.has_room(5, Some(4)) && qp.has_room(2, Some(2)));
        let order: Vec<(u32, u64)> =
            std::iter::from_fn(|| qp.pop_next(|_| true).map(|p| (p.dst, p.created))).collect();
        assert_eq!(order, [(5, 0), (2, 3), (7, 4), (5, 1), (5, 2)]);
        assert_eq!(qp.len(), 0);
    }

    #[test]
    fn a_destination_that_cannot_send_keeps_its_turn_without_blocking_the_others() {
        let mut qp = QueuePairs::default();
        for (dst, t) in [(5, 0), (5, 1), (2, 2), (7, 3)] {
            qp.push(packet(dst, t));
        }
        let not_5 = |p: &Offered| p.dst != 5;
        assert_eq!(qp.pop_next(not_5).map(|p| p.dst), Some(2));
        assert_eq!(qp.pop_next(not_5).map(|p| p.dst), Some(7));
        assert!(qp.pop_next(not_5).is_none());
        assert_eq!(qp.len(), 2);
        assert_eq!(qp.pop_next(|_| true).map(|p| p.created), Some(0));
    }
}
