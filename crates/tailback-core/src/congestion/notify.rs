//! How a congestion point's feedback reaches the source of a packet, shared by InfiniBand
//! congestion control and QCN: forward, as a mark the packet carries to its destination, which
//! answers with a one-block congestion notification packet (CNP) echoing the feedback; or
//! backward, as a one-block notification the switch sends to the source itself
//! ([`Notice`]). Either way the source's mechanism receives a control packet whose `src` names
//! the flow's destination and whose header carries the feedback (0: binary).

use crate::config::Notification;
use crate::hooks::{Context, Notice};
use crate::ids::NodeId;
use crate::packet::{LogicalNetwork, Packet};

/// Blocks of a notification: a header without payload, one 64-byte block (InfiniBand's CNP;
/// 802.1Qau's congestion notification message fits in the 64 bytes of a minimal frame).
const NOTIFICATION_BLOCKS: u32 = 1;

/// The forward mark in [`Packet::marks`] (InfiniBand's FECN); the bits above it carry the
/// feedback (6 bits).
const FORWARD_MARK: u8 = 1;

/// Sends congestion points' feedback towards the sources and counts the notifications.
#[derive(Debug)]
pub(crate) struct Notifier {
    notification: Notification,
    sent: u64,
}

impl Notifier {
    /// Notifications sent as `notification` says.
    pub(crate) fn new(notification: Notification) -> Notifier {
        Notifier {
            notification,
            sent: 0,
        }
    }

    /// A congestion point gives `feedback` (at most 63; 0 for binary) for `packet`: forward,
    /// the packet is marked; backward, the returned notice goes to its source.
    #[inline]
    pub(crate) fn notify(&mut self, packet: &mut Packet, feedback: u32) -> Option<Notice> {
        debug_assert!(feedback < 64, "feedback {feedback} does not fit in 6 bits");
        match self.notification {
            Notification::Forward => {
                packet.marks |= FORWARD_MARK | (feedback as u8) << 1;
                None
            }
            Notification::Backward => {
                self.sent += 1;
                Some(Notice {
                    to: NodeId::new(packet.src as usize),
                    about: NodeId::new(packet.dst as usize),
                    blocks: NOTIFICATION_BLOCKS,
                    bits: feedback,
                })
            }
        }
    }

    /// `packet` was delivered at `node`: if it carries a forward mark, `node` answers its
    /// source with a notification echoing the feedback.
    pub(crate) fn echo(&mut self, cx: &mut Context<'_>, node: NodeId, packet: &Packet) {
        if packet.marks & FORWARD_MARK != 0 {
            self.sent += 1;
            cx.outbox.send(
                node,
                NodeId::new(packet.src as usize),
                NOTIFICATION_BLOCKS,
                LogicalNetwork::Request,
                u32::from(packet.marks >> 1),
            );
        }
    }

    /// Notifications sent so far (by destinations or by switches).
    pub(crate) fn sent(&self) -> u64 {
        self.sent
    }
}

/// The largest quantized feedback (6 bits).
pub(crate) const MAX_FEEDBACK: u32 = 63;

/// IEEE 802.1Qau's feedback for a queue of `q` blocks with set point `q_eq`, `q_old` blocks at
/// the last sample and weight `w`: `Fb = −(Q_off + w·Q_δ)` with `Q_off = Q − Q_eq` and
/// `Q_δ = Q − Q_old`, quantized to 6 bits as `−Fb · 63 / (Q_eq · (2w + 1))`, 63 beyond, 0 when
/// `Fb ≥ 0` (no congestion). Rounded up (ours), so that any negative `Fb` says so.
pub(crate) fn quantized_feedback(q: u32, q_eq: u32, q_old: u32, w: u32) -> u32 {
    let fb = -((i64::from(q) - i64::from(q_eq)) + i64::from(w) * (i64::from(q) - i64::from(q_old)));
    if fb >= 0 {
        return 0;
    }
    let full = u64::from(q_eq.max(1)) * (2 * u64::from(w) + 1);
    ((-fb) as u64 * u64::from(MAX_FEEDBACK))
        .div_ceil(full)
        .min(u64::from(MAX_FEEDBACK)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantized_feedback_follows_the_standards_formula() {
        // Q_eq = 100 blocks, w = 2: the scale is Q_eq · (2w + 1) = 500 blocks for 63.
        for (q, q_old, expected) in [
            (100, 100, 0),  // at the set point, steady
            (150, 300, 0),  // above it but draining fast: Fb = −(50 − 300) > 0
            (600, 600, 63), // Fb = −500: the largest
            (900, 100, 63), // beyond it
            (200, 200, 13), // Fb = −100: 12.6, rounded up
            (200, 100, 38), // Fb = −300: 37.8
            (101, 101, 1),  // the least congestion still says so
        ] {
            assert_eq!(
                quantized_feedback(q, 100, q_old, 2),
                expected,
                "Q {q}, Q_old {q_old}"
            );
        }
    }
}
