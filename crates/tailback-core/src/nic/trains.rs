//! The NICs when packets move as trains (the buffered fabric): a packet is injected as one
//! event, its blocks following back to back at the node link's period; a received packet is
//! consumed at the ejection rate in arrival order and delivered, its credits returned
//! together, in the cycle its last block is consumed. Between these known cycles a NIC sleeps.

use super::{Injection, NicContext, NicSet};
use crate::bitset::BitSet;
use crate::event::CreditBatch;
use crate::flit::Flit;
use crate::hooks::CongestionControl;
use crate::traffic::NEVER;

/// A packet received as a train, waiting to be consumed.
#[derive(Debug, Clone, Copy)]
pub(super) struct Received {
    /// The ejection VC it arrived on.
    vc: u8,
    /// Its slot in the packet slab.
    packet: u32,
    blocks: u32,
    /// The cycle its last block is consumed.
    pub(super) due: u64,
}

impl NicSet {
    /// Steps the NICs in `active` when packets move as trains: each delivers what is consumed
    /// and injects; then it sleeps until its link is free (if it has more to send), until its
    /// next received packet is consumed, or until credits or a packet arrive.
    pub(super) fn step_trains<C: CongestionControl>(
        &mut self,
        active: &mut BitSet,
        cx: &mut NicContext<'_, C>,
    ) {
        active.retain(|node| {
            self.consume_trains(node, cx);
            let injection = self.inject(node, cx);
            let nic = &self.nics[node];
            let mut wake = match injection {
                Injection::Wait(t) => t,
                _ => NEVER,
            };
            if injection == Injection::Sent && self.has_more(nic, C::FLOWS) {
                wake = wake.min(nic.link_free_at);
            }
            if let Some(next) = nic.rx_trains.front() {
                wake = wake.min(next.due);
            }
            if wake != NEVER {
                self.sleepers.schedule(wake, node as u32);
            }
            matches!(injection, Injection::Held | Injection::Busy)
        });
    }

    /// The head of a packet of `blocks` blocks arrives at `node` on ejection VC `vc` at cycle
    /// `now`: the receiver consumes its blocks at the ejection rate, from when the head
    /// arrives or the previous packet is consumed, and never before they arrive.
    pub(crate) fn receive_train(&mut self, node: usize, vc: u8, flit: Flit, blocks: u32, now: u64) {
        debug_assert!(
            flit.is_head() && flit.is_tail(),
            "a train is a whole packet"
        );
        let held = &mut self.rx_held[self.slots.port_vc(node, vc as usize)];
        assert!(
            u32::from(*held) + blocks <= self.capacity,
            "NIC {node} receive buffer overflow on VC {vc}: credit protocol violated"
        );
        *held += blocks as u16;
        let nic = &mut self.nics[node];
        let rest = f64::from(blocks - 1);
        let tail_arrives = now + u64::from(blocks - 1) * nic.link_period;
        let start = nic.rx_free_at.max(now as f64);
        let done = (start + rest / self.ejection_rate).max(tail_arrives as f64);
        nic.rx_free_at = done + 1.0 / self.ejection_rate;
        // Tolerate rounding, so that exact multiples of the rate are on time.
        let due = ((done - 1e-9).ceil() as u64).max(now);
        nic.rx_trains.push_back(Received {
            vc,
            packet: flit.packet(),
            blocks,
            due,
        });
        self.active.insert(node);
    }

    /// Delivers `node`'s received packets whose last block is consumed by now, returning their
    /// credits to the ejection port together.
    pub(super) fn consume_trains<C: CongestionControl>(
        &mut self,
        node: usize,
        cx: &mut NicContext<'_, C>,
    ) {
        let now = cx.now;
        while let Some(&Received {
            vc,
            packet,
            blocks,
            due,
        }) = self.nics[node].rx_trains.front()
        {
            if due > now {
                return;
            }
            self.nics[node].rx_trains.pop_front();
            self.rx_held[self.slots.port_vc(node, vc as usize)] -= blocks as u16;
            cx.credit_batches.schedule(
                now,
                self.credit_latency,
                CreditBatch {
                    to: self.nics[node].ejection_slot + u32::from(vc),
                    count: blocks,
                },
            );
            cx.stats.on_flits_accepted(node, now, blocks);
            let p = cx.packets.get_mut(packet);
            assert_eq!(
                p.dst as usize, node,
                "packet from {} for {} delivered to node {node}",
                p.src, p.dst
            );
            p.delivered_flits = p.flits;
            self.deliver(node, packet, cx);
        }
    }

    /// Blocks received as trains and not yet consumed at `node` (for the invariant checker).
    pub(crate) fn train_blocks_held(&self, node: usize) -> u64 {
        self.nics[node]
            .rx_trains
            .iter()
            .map(|r| u64::from(r.blocks))
            .sum()
    }
}
