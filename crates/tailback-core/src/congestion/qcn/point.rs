//! QCN's congestion points: every Port VL (switch output and lane) counts the bytes of the data
//! packets joining its queue and samples one every so many bytes; at a sample it computes the
//! feedback of its queue `Q` (blocks queued for it at all inputs) against the set point and
//! its `Q` at the previous sample, and asks for a notification when the feedback is positive.
//! The next sample comes sooner the larger the feedback (the sampling table of public
//! implementations of 802.1Qau), drawn within the jitter around it.

use rand::RngExt;

use crate::config::{BLOCK_BYTES, QcnConfig};
use crate::congestion::notify::quantized_feedback;
use crate::hooks::PortVlEvent;
use crate::rng::{Purpose, StreamRng, stream};

/// The sampling interval for quantized feedback `8k` to `8k + 7`, as a fraction of the base:
/// 150, 75, 50, 37.5, 30, 25, 21.5 and 18.5 KB for a base of 150 KB.
const INTERVALS: [f64; 8] = [
    1.0,
    1.0 / 2.0,
    1.0 / 3.0,
    1.0 / 4.0,
    1.0 / 5.0,
    1.0 / 6.0,
    21.5 / 150.0,
    18.5 / 150.0,
];

/// The congestion points of every Port VL.
#[derive(Debug)]
pub(super) struct CongestionPoints {
    vls: usize,
    /// The set point, blocks, and the weight of the queue's growth.
    set_point: u32,
    weight: u32,
    base_bytes: f64,
    jitter: f64,
    /// Per Port VL: bytes to arrive before the next sample, and `Q` at the last one.
    to_sample: Vec<f64>,
    q_old: Vec<u32>,
    /// Per output port: its sampling stream.
    rngs: Vec<StreamRng>,
    samples: u64,
}

impl CongestionPoints {
    /// Congestion points on `ports` output ports of `vls` lanes.
    pub(super) fn new(settings: &QcnConfig, seed: u64, ports: usize, vls: usize) -> Self {
        let base_bytes = f64::from(settings.sample_base_bytes);
        CongestionPoints {
            vls,
            set_point: settings.set_point_bytes.div_ceil(BLOCK_BYTES),
            weight: settings.feedback_weight,
            base_bytes,
            jitter: settings.sample_jitter,
            to_sample: vec![base_bytes; ports * vls],
            q_old: vec![0; ports * vls],
            rngs: (0..ports)
                .map(|p| stream(seed, p as u64, Purpose::Sampling))
                .collect(),
            samples: 0,
        }
    }

    /// A data packet of `blocks` blocks joined the Port VL of `e`: if it is sampled, the
    /// feedback when positive (quantized, 1 to 63).
    #[inline]
    pub(super) fn arrive(&mut self, e: &PortVlEvent, blocks: u32) -> Option<u32> {
        let i = e.port.index() * self.vls + e.vl as usize;
        self.to_sample[i] -= f64::from(blocks * BLOCK_BYTES);
        if self.to_sample[i] > 0.0 {
            return None;
        }
        self.samples += 1;
        let feedback = quantized_feedback(e.blocks, self.set_point, self.q_old[i], self.weight);
        self.q_old[i] = e.blocks;
        let interval = self.base_bytes * INTERVALS[(feedback / 8) as usize];
        let draw = if self.jitter > 0.0 {
            self.rngs[e.port.index()].random_range(1.0 - self.jitter..=1.0 + self.jitter)
        } else {
            1.0
        };
        self.to_sample[i] = interval * draw;
        (feedback > 0).then_some(feedback)
    }

    /// Packets sampled so far.
    pub(super) fn samples(&self) -> u64 {
        self.samples
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::PortId;

    fn event(blocks: u32) -> PortVlEvent {
        PortVlEvent {
            port: PortId::new(2),
            vl: 0,
            input: 0,
            input_blocks: blocks,
            blocks,
            contributors: 1,
            credits: 0,
            to_node: true,
            chosen: false,
            now: 0,
        }
    }

    /// Arrivals of 32-block (2,048-byte) packets until the first sample: its feedback.
    fn next_sample(cp: &mut CongestionPoints, q: u32) -> (u32, Option<u32>) {
        let mut packets = 0;
        loop {
            packets += 1;
            if cp.to_sample[2] - f64::from(32 * BLOCK_BYTES) <= 0.0 {
                return (packets, cp.arrive(&event(q), 32));
            }
            assert_eq!(cp.arrive(&event(q), 32), None);
        }
    }

    #[test]
    fn samples_come_every_base_bytes_and_faster_under_congestion() {
        let settings = QcnConfig {
            sample_jitter: 0.0,
            ..QcnConfig::default()
        };
        let mut cp = CongestionPoints::new(&settings, 1, 4, 1);
        // 150,000 bytes: the 74th packet of 2,048 bytes; below the set point (407 blocks)
        // the feedback is 0 and nothing is sent.
        assert_eq!(next_sample(&mut cp, 100), (74, None));
        assert_eq!(next_sample(&mut cp, 100), (74, None));
        // Far above the set point and growing: the largest feedback, then samples every
        // 18.5 KB (10 packets).
        let (_, fb) = next_sample(&mut cp, 3000);
        assert_eq!(fb, Some(63));
        let (packets, fb) = next_sample(&mut cp, 3000);
        assert_eq!(packets, 10);
        // Steady at 3,000 blocks: only the offset, 2,593 blocks of 407 · 5.
        assert_eq!(fb, Some(quantized_feedback(3000, 407, 3000, 2)));
        assert_eq!(cp.samples(), 4);
    }

    #[test]
    fn jittered_intervals_stay_within_the_jitter() {
        let mut cp = CongestionPoints::new(&QcnConfig::default(), 7, 4, 1);
        let counts: Vec<u32> = (0..200).map(|_| next_sample(&mut cp, 100).0).collect();
        // 150 KB ± 15 %: 63 to 85 packets of 2 KB, and not always the same.
        assert!(counts.iter().all(|c| (62..=85).contains(c)), "{counts:?}");
        assert!(counts.iter().any(|&c| c != counts[0]));
    }
}
