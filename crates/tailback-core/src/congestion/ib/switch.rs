//! The switch side of InfiniBand congestion control: each Port VL (output port and virtual
//! lane) enters the congestion state when the traffic queued for it passes the upper threshold
//! while it is a root (it has credits, or its port is in the Victim_Mask), and leaves it below
//! the lower threshold; packets leaving a congested Port VL are marked at the Marking_Rate,
//! unless shorter than Packet_Size or a notification themselves.

use rand::RngExt;

use crate::config::{
    Detect, Feedback, IbCcConfig, MarkHops, Marking, RootTest, Threshold, VictimMask,
};
use crate::congestion::notify::quantized_feedback;
use crate::hooks::{PortVlEvent, PortVlTotals};
use crate::ids::PortId;
use crate::packet::Packet;
use crate::rng::{Purpose, StreamRng, stream};

/// Congestion detection and marking at every switch output.
#[derive(Debug)]
pub(super) struct SwitchSide {
    vls: usize,
    max_ports: usize,
    /// Upper and lower thresholds, blocks (`None`: the weight is 0, nothing is marked).
    thresholds: Option<(u32, u32)>,
    detect: Detect,
    /// Credits a Port VL needs to count as a root.
    root_credits: u32,
    victim_mask: VictimMask,
    /// Packets of fewer blocks are not marked, nor (`mark_hops = "unchosen"`) packets sent
    /// to the Port VL by choice.
    min_blocks: u32,
    skip_chosen: bool,
    marking: Marking,
    probability: f64,
    period: u32,
    /// Per Port VL: in the congestion state; eligible packets since the last mark (counter
    /// marking); with `per_voq`, the inputs whose queue is above the threshold.
    congested: Vec<bool>,
    since_mark: Vec<u32>,
    voq_above: Vec<bool>,
    voqs_above: Vec<u32>,
    /// Per Port VL: the cycle it last entered the congestion state, cycles spent in it before
    /// that, and packets marked.
    entered: Vec<u64>,
    congested_cycles: Vec<u64>,
    port_vl_marks: Vec<u64>,
    /// Per output port: its marking stream.
    rngs: Vec<StreamRng>,
    /// With quantized feedback, the weight of the queue's growth, and per Port VL the blocks
    /// queued for it at its last mark (`None`: binary feedback).
    quantized: Option<(u32, Vec<u32>)>,
}

impl SwitchSide {
    /// Detection on `ports` output ports of `vls` lanes, switches of at most `max_ports`
    /// ports, input pools of `pool_blocks` blocks, packets of at most `mtu_blocks`.
    pub(super) fn new(
        settings: &IbCcConfig,
        seed: u64,
        ports: usize,
        vls: usize,
        max_ports: usize,
        pool_blocks: u32,
        mtu_blocks: u32,
    ) -> SwitchSide {
        let port_vls = ports * vls;
        SwitchSide {
            vls,
            max_ports,
            thresholds: thresholds(settings, pool_blocks, mtu_blocks),
            detect: settings.detect,
            root_credits: match settings.root_test {
                RootTest::AnyCredit => 1,
                RootTest::PacketCredits => mtu_blocks,
            },
            victim_mask: settings.victim_mask,
            min_blocks: settings
                .packet_size_bytes
                .div_ceil(crate::config::BLOCK_BYTES),
            skip_chosen: settings.mark_hops == MarkHops::Unchosen,
            marking: settings.marking,
            probability: settings.marking_rate.probability(),
            period: settings.marking_rate.period(),
            congested: vec![false; port_vls],
            since_mark: vec![0; port_vls],
            voq_above: if settings.detect == Detect::PerVoq {
                vec![false; port_vls * max_ports]
            } else {
                Vec::new()
            },
            voqs_above: vec![0; port_vls],
            entered: vec![0; port_vls],
            congested_cycles: vec![0; port_vls],
            port_vl_marks: vec![0; port_vls],
            rngs: (0..ports)
                .map(|p| stream(seed, p as u64, Purpose::Marking))
                .collect(),
            quantized: (settings.feedback == Feedback::Quantized)
                .then(|| (settings.feedback_weight, vec![0; port_vls])),
        }
    }

    /// Re-evaluates the Port VL of `e`.
    #[inline]
    pub(super) fn update(&mut self, e: &PortVlEvent) {
        let Some((hi, lo)) = self.thresholds else {
            return;
        };
        let i = e.port.index() * self.vls + e.vl as usize;
        let was = self.congested[i];
        self.detect(i, e, hi, lo);
        match (was, self.congested[i]) {
            (false, true) => self.entered[i] = e.now,
            (true, false) => self.congested_cycles[i] += e.now - self.entered[i],
            _ => {}
        }
    }

    /// Applies the detector to Port VL `i` after event `e`.
    #[inline]
    fn detect(&mut self, i: usize, e: &PortVlEvent, hi: u32, lo: u32) {
        let root = e.credits >= self.root_credits
            || match self.victim_mask {
                VictimMask::CaPorts => e.to_node,
                VictimMask::All => true,
                VictimMask::None => false,
            };
        match self.detect {
            Detect::Sum => step(&mut self.congested[i], e.blocks, hi, lo, root),
            // blocks > threshold / inputs, in integers.
            Detect::SumPerPort => {
                let weighted = e.blocks.saturating_mul(e.contributors.max(1));
                step(&mut self.congested[i], weighted, hi, lo, root);
            }
            Detect::PerVoq => {
                let v = i * self.max_ports + e.input as usize;
                let was = self.voq_above[v];
                step(&mut self.voq_above[v], e.input_blocks, hi, lo, root);
                match (was, self.voq_above[v]) {
                    (false, true) => self.voqs_above[i] += 1,
                    (true, false) => self.voqs_above[i] -= 1,
                    _ => {}
                }
                self.congested[i] = self.voqs_above[i] > 0;
            }
        }
    }

    /// Re-evaluates the Port VL `packet` leaves by; returns the feedback if the packet is
    /// marked (it is eligible and the marking rate picks it): 0 with binary feedback, else the
    /// quantized feedback of the Port VL against its upper threshold (a packet whose feedback
    /// says no congestion is not marked).
    #[inline]
    pub(super) fn depart(&mut self, e: &PortVlEvent, packet: &Packet) -> Option<u32> {
        self.update(e);
        let i = e.port.index() * self.vls + e.vl as usize;
        if !self.congested[i]
            || packet.control
            || packet.flits < self.min_blocks
            || (self.skip_chosen && e.chosen)
        {
            return None;
        }
        let mark = match self.marking {
            Marking::Random => {
                self.probability >= 1.0
                    || self.rngs[e.port.index()].random::<f64>() < self.probability
            }
            Marking::Counter => {
                self.since_mark[i] += 1;
                let due = self.since_mark[i] >= self.period;
                if due {
                    self.since_mark[i] = 0;
                }
                due
            }
        };
        if !mark {
            return None;
        }
        let feedback = match &mut self.quantized {
            None => 0,
            Some((w, q_old)) => {
                let q_eq = self.thresholds.map_or(0, |(hi, _)| hi);
                let fb = quantized_feedback(e.blocks, q_eq, q_old[i], *w);
                q_old[i] = e.blocks;
                if fb == 0 {
                    return None;
                }
                fb
            }
        };
        self.port_vl_marks[i] += 1;
        Some(feedback)
    }

    /// Packets marked so far.
    pub(super) fn marks(&self) -> u64 {
        self.port_vl_marks.iter().sum()
    }

    /// Port VLs in the congestion state now.
    pub(super) fn congested_count(&self) -> usize {
        self.congested.iter().filter(|&&c| c).count()
    }

    /// Appends the record at `now` of every Port VL that has been congested or marked.
    pub(super) fn totals(&self, now: u64, out: &mut Vec<PortVlTotals>) {
        for i in 0..self.congested.len() {
            let congested_cycles = self.congested_cycles[i]
                + if self.congested[i] {
                    now - self.entered[i]
                } else {
                    0
                };
            if congested_cycles > 0 || self.congested[i] || self.port_vl_marks[i] > 0 {
                out.push(PortVlTotals {
                    port: PortId::new(i / self.vls),
                    vl: (i % self.vls) as u8,
                    congested_cycles,
                    marks: self.port_vl_marks[i],
                });
            }
        }
    }
}

/// The upper and lower thresholds in blocks: `⌊C · (16 − w) / 16⌋` for weight `w` on the
/// `pool_blocks` a Port VL's occupancy is measured against (or `threshold_blocks`), raised to
/// the hysteresis plus an MTU when it is lower (so that the lower threshold can be reached),
/// and the lower one `hysteresis_blocks` below it. `None` for weight 0.
pub(super) fn thresholds(
    settings: &IbCcConfig,
    pool_blocks: u32,
    mtu_blocks: u32,
) -> Option<(u32, u32)> {
    let mut hi = match settings.threshold {
        Threshold::Weight(0) => return None,
        Threshold::Weight(w) => (u64::from(pool_blocks) * u64::from(16 - w) / 16) as u32,
        Threshold::Blocks(blocks) => blocks,
    };
    let gap = settings.hysteresis_blocks;
    if gap > 0 {
        hi = hi.max(gap + mtu_blocks);
    }
    Some((hi, hi - gap.min(hi)))
}

/// One detector: enter the congestion state above `hi` as a root, leave it below `lo`.
#[inline]
fn step(state: &mut bool, occupancy: u32, hi: u32, lo: u32, root: bool) {
    if !*state {
        *state = occupancy > hi && root;
    } else if occupancy < lo {
        *state = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::MarkingRate;

    #[test]
    fn hysteresis_enters_above_the_high_and_leaves_below_the_low_threshold() {
        let mut state = false;
        let trace: Vec<bool> = [50, 129, 130, 100, 40, 33, 32, 31, 100, 130]
            .into_iter()
            .map(|occ| {
                step(&mut state, occ, 129, 32, true);
                state
            })
            .collect();
        assert_eq!(
            trace,
            [
                false, false, true, true, true, true, true, false, false, true
            ]
        );
    }

    #[test]
    fn a_victim_never_enters_the_congestion_state() {
        let mut state = false;
        step(&mut state, 1000, 129, 32, false);
        assert!(!state);
    }

    fn event(blocks: u32, credits: u32, to_node: bool) -> PortVlEvent {
        PortVlEvent {
            port: crate::ids::PortId::new(3),
            vl: 0,
            input: 1,
            input_blocks: blocks,
            blocks,
            contributors: 1,
            credits,
            to_node,
            chosen: false,
            now: 0,
        }
    }

    fn switches(settings: &IbCcConfig) -> SwitchSide {
        SwitchSide::new(settings, 1, 8, 1, 4, 1000, 32)
    }

    fn packet(flits: u32, control: bool) -> Packet {
        let mut p = Packet::new(
            0,
            1,
            0,
            0,
            flits,
            true,
            crate::packet::LogicalNetwork::Request,
        );
        p.control = control;
        p
    }

    #[test]
    fn marks_follow_the_marking_rate_and_spare_short_packets_and_notifications() {
        for (rate, marking) in [
            (0, Marking::Random),
            (1, Marking::Random),
            (10, Marking::Random),
            (10, Marking::Counter),
        ] {
            let settings = IbCcConfig {
                marking_rate: MarkingRate::Rate(rate),
                marking,
                ..IbCcConfig::default()
            };
            let mut sw = switches(&settings);
            let congested = event(500, 40, false);
            let n = 100_000;
            let marked = (0..n)
                .filter(|_| sw.depart(&congested, &packet(32, false)).is_some())
                .count();
            let expected = 1.0 / f64::from(rate + 1);
            let share = marked as f64 / n as f64;
            assert!((share / expected - 1.0).abs() < 0.01, "MR {rate}: {share}");
            // Packet_Size is 512 bytes: 7 blocks are never marked; a CNP never.
            for p in [packet(7, false), packet(32, true)] {
                assert!((0..100).all(|_| sw.depart(&congested, &p).is_none()));
            }
        }
    }

    #[test]
    fn unchosen_marking_spares_packets_routed_here_by_choice() {
        for (mark_hops, marks_chosen) in [(MarkHops::All, true), (MarkHops::Unchosen, false)] {
            let settings = IbCcConfig {
                marking_rate: MarkingRate::Rate(0),
                mark_hops,
                ..IbCcConfig::default()
            };
            let mut sw = switches(&settings);
            for chosen in [false, true] {
                let e = PortVlEvent {
                    chosen,
                    ..event(500, 40, false)
                };
                let marked = sw.depart(&e, &packet(32, false)).is_some();
                assert_eq!(
                    marked,
                    !chosen || marks_chosen,
                    "{mark_hops:?}, chosen {chosen}"
                );
            }
        }
    }

    #[test]
    fn quantized_marks_carry_the_feedback_and_remember_the_queue() {
        let settings = IbCcConfig {
            marking_rate: MarkingRate::Rate(0),
            feedback: Feedback::Quantized,
            ..IbCcConfig::default()
        };
        let mut sw = switches(&settings);
        // The threshold is 129 blocks (see below); the first mark sees Q_old = 0.
        let p = packet(32, false);
        assert_eq!(
            sw.depart(&event(500, 40, false), &p),
            Some(quantized_feedback(500, 129, 0, 2))
        );
        // Steady at 500: only the offset counts now.
        assert_eq!(
            sw.depart(&event(500, 40, false), &p),
            Some(quantized_feedback(500, 129, 500, 2))
        );
        // Still congested (above the lower threshold) but falling fast: no mark.
        assert_eq!(sw.depart(&event(140, 40, false), &p), None);
        assert_eq!(sw.marks(), 2);
    }

    #[test]
    fn a_port_without_credits_is_a_victim_unless_masked() {
        let settings = IbCcConfig::default();
        let mut sw = switches(&settings);
        sw.update(&event(500, 0, false));
        assert_eq!(sw.congested_count(), 0, "a switch port without credits");
        sw.update(&event(500, 0, true));
        assert_eq!(
            sw.congested_count(),
            1,
            "the port of a channel adapter (Victim_Mask)"
        );
        let none = IbCcConfig {
            victim_mask: VictimMask::None,
            ..IbCcConfig::default()
        };
        let mut sw = switches(&none);
        sw.update(&event(500, 0, true));
        assert_eq!(sw.congested_count(), 0);
    }

    #[test]
    fn the_weight_maps_to_blocks_and_leaves_room_for_the_gap() {
        let d = IbCcConfig::default();
        // 1,000 blocks at weight 15: 62, raised to the 97-block gap plus an MTU.
        assert_eq!(thresholds(&d, 1000, 32), Some((129, 32)));
        let single = IbCcConfig {
            hysteresis_blocks: 0,
            threshold: Threshold::Weight(8),
            ..d.clone()
        };
        assert_eq!(thresholds(&single, 1000, 32), Some((500, 500)));
        let off = IbCcConfig {
            threshold: Threshold::Weight(0),
            ..d
        };
        assert_eq!(thresholds(&off, 1000, 32), None);
    }
}
