//! Out-of-order deliveries: a packet delivered after one its source injected later towards the
//! same destination (by another route, or past it in another VC).

use rustc_hash::FxHashMap;

/// The pairs of nodes with packets in flight: how many, and the injection cycle of the
/// latest-injected packet delivered so far. A pair is forgotten when its last packet arrives
/// (a later packet is injected later than every earlier one), so the map holds at most one
/// entry per packet in flight.
#[derive(Debug, Default)]
pub(crate) struct DeliveryOrder {
    pairs: FxHashMap<(u32, u32), InFlight>,
}

#[derive(Debug, Clone, Copy)]
struct InFlight {
    packets: u32,
    latest_delivered: Option<u64>,
}

impl DeliveryOrder {
    /// A packet from `src` to `dst` left its source.
    #[inline]
    pub(crate) fn injected(&mut self, src: u32, dst: u32) {
        self.pairs
            .entry((src, dst))
            .or_insert(InFlight {
                packets: 0,
                latest_delivered: None,
            })
            .packets += 1;
    }

    /// The packet from `src` to `dst` injected at `injected` arrived: whether out of order.
    #[inline]
    pub(crate) fn delivered(&mut self, src: u32, dst: u32, injected: u64) -> bool {
        let Some(pair) = self.pairs.get_mut(&(src, dst)) else {
            debug_assert!(false, "delivered a packet never injected");
            return false;
        };
        let late = pair.latest_delivered.is_some_and(|t| t > injected);
        if !late {
            pair.latest_delivered = Some(injected);
        }
        pair.packets -= 1;
        if pair.packets == 0 {
            self.pairs.remove(&(src, dst));
        }
        late
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_overtaken_by_a_later_one_is_out_of_order_and_pairs_are_forgotten() {
        let mut order = DeliveryOrder::default();
        for _ in 0..3 {
            order.injected(1, 2);
        }
        order.injected(2, 1);
        // Injected at 10, 20, 30; 20 arrives first, then 10 (late), then 30.
        assert!(!order.delivered(1, 2, 20));
        assert!(order.delivered(1, 2, 10));
        assert!(!order.delivered(2, 1, 5));
        assert!(!order.delivered(1, 2, 30));
        assert!(order.pairs.is_empty());
        // A later packet of a forgotten pair is in order.
        order.injected(1, 2);
        assert!(!order.delivered(1, 2, 40));
    }
}
