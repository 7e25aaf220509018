//! Per-destination request queues served round robin (an InfiniBand channel adapter's queue
//! pairs): a packet waits only behind packets for its own destination.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use crate::traffic::Offered;

/// A NIC's requests, one queue per destination with packets waiting, and those queues in
/// round-robin order.
///
/// Only destinations with packets waiting hold a queue: a queue that empties goes back to a
/// free list (keeping its buffer) for the next destination, so a NIC holds as many queues as
/// destinations it had waiting at once, not one per destination it ever sent to (which over a
/// long run grows to one per node, nodes² in all), and steady traffic allocates nothing.
#[derive(Debug, Clone, Default)]
pub(crate) struct QueuePairs {
    /// The queue of each destination with packets waiting (an index into `queues`).
    index: FxHashMap<u32, u32>,
    /// Packets by queue.
    queues: Vec<VecDeque<Offered>>,
    /// Empty queues, free for the next destination.
    free: Vec<u32>,
    /// Queues holding packets, next to serve first.
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
        self.index
            .get(&dst)
            .map_or(0, |&q| self.queues[q as usize].len())
    }

    /// Whether the queue for `dst` holds fewer than `limit` packets (`None`: no limit).
    pub(crate) fn has_room(&self, dst: u32, limit: Option<u32>) -> bool {
        limit.is_none_or(|limit| self.queued(dst) < limit as usize)
    }

    /// The destinations with packets waiting, in round-robin order.
    pub(crate) fn waiting(&self) -> impl Iterator<Item = u32> + '_ {
        self.ready.iter().map(|&q| self.first(q).dst)
    }

    /// The first packet of ready queue `q`.
    fn first(&self, q: u32) -> &Offered {
        self.queues[q as usize]
            .front()
            .expect("a ready queue holds a packet")
    }

    /// Appends a packet to its destination's queue.
    pub(crate) fn push(&mut self, packet: Offered) {
        let (queues, free) = (&mut self.queues, &mut self.free);
        let q = *self.index.entry(packet.dst).or_insert_with(|| {
            free.pop().unwrap_or_else(|| {
                queues.push(VecDeque::new());
                (queues.len() - 1) as u32
            })
        });
        let queue = &mut self.queues[q as usize];
        if queue.is_empty() {
            self.ready.push_back(q);
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
        let turn = self.ready.iter().position(|&q| sendable(self.first(q)))?;
        let q = self.ready.remove(turn).expect("the position is in range");
        let queue = &mut self.queues[q as usize];
        let packet = queue.pop_front().expect("a ready queue holds a packet");
        if queue.is_empty() {
            self.index.remove(&packet.dst);
            self.free.push(q);
        } else {
            self.ready.push_back(q);
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
            traced: false,
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
    fn only_destinations_with_packets_waiting_hold_a_queue() {
        let mut qp = QueuePairs::default();
        for dst in 0..1000 {
            qp.push(packet(dst, u64::from(dst)));
            qp.push(packet(dst + 1, u64::from(dst)));
            assert!(qp.pop_next(|_| true).is_some() && qp.pop_next(|_| true).is_some());
        }
        // Two destinations at a time: two queues, reused; the emptied ones forgotten.
        assert_eq!((qp.queues.len(), qp.index.len(), qp.len()), (2, 0, 0));
        qp.push(packet(7, 0));
        assert_eq!((qp.queued(7), qp.queued(8)), (1, 0));
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
