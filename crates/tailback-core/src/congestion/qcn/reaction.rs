//! QCN's reaction points: a rate limiter per queue pair (source adapter, destination), created
//! by the pair's first notification at the line rate and released when its rate is back there.
//!
//! A notification with quantized feedback `Fb` remembers the current rate as the target (unless
//! no cycle has ended since the previous one) and cuts the current rate by `G_d · Fb` (at most
//! down to the minimum decrease factor and never below the minimum rate); both stages start
//! again at 0. A cycle ends each time the pair has sent the byte counter's bytes, and each time
//! its timer expires; at each end the rate climbs: in fast recovery (both stages up to the
//! threshold) the current rate halves its distance to the target; in active increase (either
//! stage past it) the target first rises by `R_AI`, in hyper-active increase (both past it) by
//! `R_HAI` times the lesser stage's excess. At the end of a first cycle a target more than ten
//! times the current rate is divided by 8 instead. Past fast recovery a stage's cycles are half
//! as long. Packets of a limited pair start no closer than their length at the current rate.
//!
//! Timers are lazy, as InfiniBand congestion control's: a limiter's expiries are applied when
//! it is next looked at, so no event is scheduled per pair.

use rustc_hash::FxHashMap;

use crate::config::{BLOCK_BYTES, QcnConfig};
use crate::ids::NodeId;

/// One queue pair's rate limiter. Rates are in blocks per cycle, times in (fractional) cycles.
#[derive(Debug, Clone, Copy)]
struct Limiter {
    current: f64,
    target: f64,
    /// Stages of the byte counter and of the timer: cycles ended since the last notification.
    byte_stage: u32,
    timer_stage: u32,
    /// Blocks left to send before the byte counter's cycle ends.
    blocks_left: f64,
    /// The cycle the timer next expires.
    timer_at: f64,
    /// The start of the pair's last packet and its blocks: the next may start `blocks /
    /// current` later (negative infinity before the first).
    anchor: f64,
    blocks: f64,
}

/// The parameters every limiter shares, in blocks and cycles.
#[derive(Debug, Clone, Copy)]
struct Law {
    gd: f64,
    min_factor: f64,
    min_rate: f64,
    byte_counter: f64,
    timer: f64,
    threshold: u32,
    ai: f64,
    hai: f64,
}

impl Law {
    /// A cycle of the byte counter or the timer ended (the stage is already counted): the
    /// target and the current rate climb. Returns whether the limiter reached `line` (it is
    /// released).
    fn climb(&self, l: &mut Limiter, line: f64) -> bool {
        let (b, t, th) = (l.byte_stage, l.timer_stage, self.threshold);
        if (b == 1 || t == 1) && l.target > 10.0 * l.current {
            l.target /= 8.0;
        } else if b > th && t > th {
            l.target += self.hai * f64::from(b.min(t) - th);
        } else if b > th || t > th {
            l.target += self.ai;
        }
        l.target = l.target.min(line);
        l.current = ((l.current + l.target) / 2.0).min(line);
        l.current >= line * (1.0 - 1e-9)
    }

    /// The byte counter's or the timer's cycle at `stage`: half as long past fast recovery.
    fn cycle(&self, full: f64, stage: u32) -> f64 {
        if stage > self.threshold {
            full / 2.0
        } else {
            full
        }
    }

    /// Applies the timer expiries of `l` up to cycle `t`; returns whether it was released.
    fn expire(&self, l: &mut Limiter, t: f64, line: f64) -> bool {
        while l.timer_at <= t {
            l.timer_stage += 1;
            let at = l.timer_at;
            if self.climb(l, line) {
                return true;
            }
            l.timer_at = at + self.cycle(self.timer, l.timer_stage);
        }
        false
    }
}

/// The rate limiters of every adapter.
#[derive(Debug)]
pub(super) struct ReactionPoints {
    nodes: usize,
    law: Law,
    /// Per node: its link's rate, blocks per cycle (the line rate).
    line: Vec<f64>,
    /// Per queue pair (node · nodes + destination): its limiter, while it limits.
    limiters: FxHashMap<usize, Limiter>,
}

impl ReactionPoints {
    /// Rate limiters for nodes whose links take `link_period` cycles per block, with cycles of
    /// `cycle_ns`.
    pub(super) fn new(settings: &QcnConfig, link_period: &[u64], cycle_ns: f64) -> Self {
        // Mbit/s to blocks per cycle, ms to cycles.
        let rate = |mbps: f64| mbps * 1e6 / 8.0 / f64::from(BLOCK_BYTES) * cycle_ns * 1e-9;
        ReactionPoints {
            nodes: link_period.len(),
            law: Law {
                gd: settings.gd,
                min_factor: settings.min_decrease_factor,
                min_rate: rate(settings.min_rate_mbps),
                byte_counter: f64::from(settings.byte_counter_bytes) / f64::from(BLOCK_BYTES),
                timer: settings.timer_ms * 1e6 / cycle_ns,
                threshold: settings.fast_recovery_cycles,
                ai: rate(settings.ai_rate_mbps),
                hai: rate(settings.hai_rate_mbps),
            },
            line: link_period.iter().map(|&p| 1.0 / p as f64).collect(),
            limiters: FxHashMap::default(),
        }
    }

    /// Index of `node`'s queue pair to `dst`.
    fn pair(&self, node: NodeId, dst: u32) -> usize {
        node.index() * self.nodes + dst as usize
    }

    /// A notification with quantized feedback `feedback` for `node`'s pair to `dst` arrived at
    /// `now`: the pair's rate is cut (a limiter starts at the line rate).
    pub(super) fn notified(&mut self, node: NodeId, dst: u32, feedback: u32, now: u64) {
        let (law, line) = (self.law, self.line[node.index()]);
        let i = self.pair(node, dst);
        let t = now as f64;
        let kept = self.limiters.get(&i).copied().and_then(|mut l| {
            (!law.expire(&mut l, t, line)).then(|| {
                if l.byte_stage != 0 {
                    l.target = l.current;
                }
                l
            })
        });
        let mut l = match kept {
            Some(l) => l,
            None => Limiter {
                current: line,
                target: line,
                byte_stage: 0,
                timer_stage: 0,
                blocks_left: 0.0,
                timer_at: 0.0,
                anchor: f64::NEG_INFINITY,
                blocks: 0.0,
            },
        };
        let factor = (1.0 - law.gd * f64::from(feedback)).max(law.min_factor);
        l.current = (l.current * factor).max(law.min_rate);
        l.byte_stage = 0;
        l.timer_stage = 0;
        l.blocks_left = law.byte_counter;
        l.timer_at = t + law.timer;
        self.limiters.insert(i, l);
    }

    /// The earliest (fractional) cycle, not before `t`, at which limiter `l`'s next packet may
    /// start, its rate climbing with each timer expiry on the way (`None`: it is released
    /// first, and the packet may start at `t`).
    fn due(&self, mut l: Limiter, t: f64, line: f64) -> Option<f64> {
        let mut at = t;
        loop {
            if self.law.expire(&mut l, at, line) {
                return None;
            }
            let due = l.anchor + l.blocks / l.current;
            if due <= at {
                return Some(at);
            }
            if l.timer_at >= due {
                return Some(due);
            }
            at = l.timer_at;
        }
    }

    /// The first cycle `node` may start a packet to `dst`, at or after `now`.
    #[inline]
    pub(super) fn send_time(&self, node: NodeId, dst: u32, now: u64) -> u64 {
        let Some(&l) = self.limiters.get(&self.pair(node, dst)) else {
            return now;
        };
        match self.due(l, now as f64, self.line[node.index()]) {
            // Tolerate rounding, so that a start due on a cycle is on time.
            Some(due) => ((due - 1e-9).ceil() as u64).max(now),
            None => now,
        }
    }

    /// `node` started a packet of `blocks` blocks to `dst` at `now`: the next start counts from
    /// it (from the cycle it became due, so fractions of a cycle carry over), and the byte
    /// counter counts its blocks.
    pub(super) fn sent(&mut self, node: NodeId, dst: u32, blocks: u32, now: u64) {
        let i = self.pair(node, dst);
        let Some(&l) = self.limiters.get(&i) else {
            return;
        };
        let (law, line) = (self.law, self.line[node.index()]);
        let t = now as f64;
        let start = match self.due(l, t - 1.0, line) {
            Some(due) if due > t - 1.0 => due.min(t),
            _ => t,
        };
        let mut l = l;
        if law.expire(&mut l, t, line) {
            self.limiters.remove(&i);
            return;
        }
        (l.anchor, l.blocks) = (start, f64::from(blocks));
        l.blocks_left -= f64::from(blocks);
        while l.blocks_left <= 0.0 {
            l.byte_stage += 1;
            if law.climb(&mut l, line) {
                self.limiters.remove(&i);
                return;
            }
            l.blocks_left += law.cycle(law.byte_counter, l.byte_stage);
        }
        self.limiters.insert(i, l);
    }

    /// The current rate of `node`'s pair to `dst` at `now`, as a fraction of its line rate.
    pub(super) fn rate(&self, node: NodeId, dst: u32, now: u64) -> f64 {
        let line = self.line[node.index()];
        self.limiters.get(&self.pair(node, dst)).map_or(1.0, |&l| {
            let mut l = l;
            if self.law.expire(&mut l, now as f64, line) {
                1.0
            } else {
                l.current / line
            }
        })
    }

    /// Pairs with a limiter (one whose timer has already brought it back to the line rate
    /// counts until the pair is next looked at: expiries are lazy).
    pub(super) fn limited(&self) -> usize {
        self.limiters.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One node on a link of 2 cycles per block, 16 ns cycles (8 Gbit/s at 64-byte blocks;
    /// the line rate is 0.5 blocks per cycle), and a second node.
    fn points(settings: &QcnConfig) -> ReactionPoints {
        ReactionPoints::new(settings, &[2, 2], 16.0)
    }

    /// Sends MTU packets back to back as the limiter allows, from `from` to `until`; returns
    /// the blocks sent.
    fn send(rp: &mut ReactionPoints, from: u64, until: u64) -> u64 {
        let node = NodeId::new(0);
        let (mut now, mut blocks) = (from, 0);
        while now < until {
            now = rp.send_time(node, 1, now);
            rp.sent(node, 1, 32, now);
            blocks += 32;
            // The link is busy for the packet.
            now += 64;
        }
        blocks
    }

    #[test]
    fn the_largest_feedback_halves_the_rate_and_smaller_ones_cut_less() {
        let rp_for = |feedback: u32| {
            let mut rp = points(&QcnConfig::default());
            rp.notified(NodeId::new(0), 1, feedback, 0);
            rp.rate(NodeId::new(0), 1, 0)
        };
        assert!((rp_for(63) - (1.0 - 63.0 / 128.0)).abs() < 1e-12);
        assert!((rp_for(16) - (1.0 - 16.0 / 128.0)).abs() < 1e-12);
        // The minimum decrease factor bounds a single cut.
        let settings = QcnConfig {
            gd: 1.0 / 64.0,
            ..QcnConfig::default()
        };
        let mut rp = points(&settings);
        rp.notified(NodeId::new(0), 1, 63, 0);
        assert!((rp.rate(NodeId::new(0), 1, 0) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn a_limited_pair_sends_at_its_rate_and_recovers_to_the_line_rate() {
        let settings = QcnConfig {
            timer_ms: 1e4,
            ..QcnConfig::default()
        };
        let mut rp = points(&settings);
        let node = NodeId::new(0);
        rp.notified(node, 1, 63, 0);
        let rate = rp.rate(node, 1, 0);
        // Until the first byte-counter cycle ends (150,000 bytes, 2,344 blocks), packets start
        // 32 / (0.5 · rate) cycles apart: 2,352 blocks (74 packets) take 73 gaps.
        let node_gap = 32.0 / (0.5 * rate);
        let mut now = 0;
        for _ in 0..74 {
            let at = rp.send_time(node, 1, now);
            if now > 0 {
                assert!(
                    (at as f64 - (now - 64) as f64 - node_gap).abs() <= 1.0,
                    "{at}"
                );
            }
            rp.sent(node, 1, 32, at);
            now = at + 64;
        }
        // Fast recovery halves the distance to the target (the line rate) at each cycle's
        // end: the rate climbs monotonically and the limiter is released within a few dozen
        // cycles, after which packets go back to back.
        let mut last = rate;
        while rp.limited() > 0 {
            send(&mut rp, now, now + 10_000);
            now += 10_000;
            let r = rp.rate(node, 1, now);
            assert!(r >= last - 1e-12, "{r} after {last}");
            last = r;
            assert!(now < 10_000_000, "never released");
        }
        let free = send(&mut rp, now, now + 64_000);
        assert_eq!(free, 32_000);
    }

    #[test]
    fn the_timer_raises_an_idle_pair_without_traffic() {
        let settings = QcnConfig {
            timer_ms: 0.01,
            ..QcnConfig::default()
        };
        let mut rp = points(&settings);
        let node = NodeId::new(0);
        rp.notified(node, 1, 63, 0);
        let cut = rp.rate(node, 1, 0);
        // 10 µs = 625 cycles per timer cycle: after 2,000 cycles three cycles ended.
        let later = rp.rate(node, 1, 2_000);
        let expected = 1.0 - (1.0 - cut) / 8.0;
        assert!(
            (later - expected).abs() < 1e-9,
            "{later} against {expected}"
        );
        // Lazy expiries are applied when the pair is next notified: a second cut starts from
        // the climbed rate.
        rp.notified(node, 1, 63, 2_000);
        let again = rp.rate(node, 1, 2_000);
        assert!((again - later * (1.0 - 63.0 / 128.0)).abs() < 1e-9);
    }
}
