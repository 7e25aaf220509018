//! The channel-adapter side of InfiniBand congestion control: each flow (a queue pair, or the
//! adapter's service level) has a congestion control table index (CCTI) that every BECN raises
//! and a CCTI timer lowers, and may start its next packet only once the injection rate delay
//! CCT[CCTI] has passed. Timers are lazy: an index is computed from the time of its last BECN
//! and the timer's period, so no event is scheduled per flow; delays keep fractions of a cycle,
//! so that delays below a cycle add up instead of vanishing.

use rustc_hash::FxHashMap;

use crate::config::{CctKind, IbCcConfig, Ird, Level, QCN_GD, TimerKind};
use crate::ids::NodeId;

/// Queue-pair flows kept before the first sweep for flows back at rest.
const FIRST_SWEEP: usize = 4096;

/// One flow's congestion control state.
#[derive(Debug, Clone, Copy)]
struct Flow {
    /// The index as of `since`.
    ccti: u32,
    /// The cycle `ccti` was set (its last BECN).
    since: u64,
    /// The (fractional) cycle the delay counts from: the ideal start of the last packet, or
    /// the end of its serialization; negative before the first packet.
    anchor: f64,
    /// The last packet's length over the MTU (the delay's scale with `gap_after`).
    scale: f64,
}

/// Injection throttling at every channel adapter.
#[derive(Debug)]
pub(super) struct AdapterSide {
    nodes: usize,
    level: Level,
    /// The delay of each index, cycles.
    cct: Vec<f64>,
    increase: u32,
    limit: u32,
    min: u32,
    /// Cycles per timer period.
    period: f64,
    timer: TimerKind,
    ird: Ird,
    mtu_blocks: u32,
    /// Cycles per block on each node's link.
    link_period: Vec<u64>,
    /// The largest delay of the table, cycles.
    cct_max: f64,
    /// A flow that never had a packet or a BECN.
    fresh: Flow,
    /// Per service level: every adapter's flow (empty at the queue-pair level).
    flows: Vec<Flow>,
    /// Per queue pair (node, destination), only the flows not at rest (a flow at rest behaves
    /// as a fresh one from then on); a dense table, a flow per node pair, would take nodes²
    /// flows (8.6 GB at 16,384 nodes). Flows at rest are swept out whenever the map has doubled
    /// since the last sweep.
    pairs: FxHashMap<usize, Flow>,
    sweep_at: usize,
}

impl AdapterSide {
    /// Throttling for `nodes` adapters whose links take `link_period` cycles per block, with
    /// cycles of `cycle_ns` and MTU packets of `mtu_blocks` blocks.
    pub(super) fn new(
        settings: &IbCcConfig,
        link_period: Vec<u64>,
        cycle_ns: f64,
        mtu_blocks: u32,
    ) -> AdapterSide {
        let nodes = link_period.len();
        let cycles = |us: f64| us * 1000.0 / cycle_ns;
        let limit = settings.ccti_limit;
        let cct: Vec<f64> = (0..=limit).map(|i| cycles(cct_us(settings, i))).collect();
        let cct_max = cct.iter().copied().fold(0.0, f64::max);
        let fresh = Flow {
            ccti: settings.ccti_min,
            since: 0,
            anchor: f64::NEG_INFINITY,
            scale: 1.0,
        };
        let flows = match settings.level {
            Level::Qp => 0,
            Level::Sl => nodes,
        };
        AdapterSide {
            nodes,
            level: settings.level,
            cct,
            increase: settings.ccti_increase,
            limit,
            min: settings.ccti_min,
            period: cycles(settings.ccti_timer * settings.timer_unit_us),
            timer: settings.timer,
            ird: settings.ird,
            mtu_blocks,
            link_period,
            cct_max,
            fresh,
            flows: vec![fresh; flows],
            pairs: FxHashMap::default(),
            sweep_at: FIRST_SWEEP,
        }
    }

    /// The state of flow `i` (see [`flow`](Self::flow)).
    #[inline]
    fn get(&self, i: usize) -> Flow {
        match self.level {
            Level::Qp => self.pairs.get(&i).copied().unwrap_or(self.fresh),
            Level::Sl => self.flows[i],
        }
    }

    /// The state of flow `i` to change at cycle `now` (a queue pair's is kept from now on).
    #[inline]
    fn get_mut(&mut self, i: usize, now: u64) -> &mut Flow {
        match self.level {
            Level::Qp => {
                if self.pairs.len() >= self.sweep_at && !self.pairs.contains_key(&i) {
                    self.sweep(now);
                }
                self.pairs.entry(i).or_insert(self.fresh)
            }
            Level::Sl => &mut self.flows[i],
        }
    }

    /// Drops the queue-pair flows at rest by cycle `now`; the next sweep comes when the map
    /// has doubled.
    #[cold]
    fn sweep(&mut self, now: u64) {
        let mut pairs = std::mem::take(&mut self.pairs);
        pairs.retain(|_, flow| !self.at_rest(flow, now));
        self.pairs = pairs;
        self.sweep_at = (2 * self.pairs.len()).max(FIRST_SWEEP);
    }

    /// Whether `flow` behaves as a fresh flow from a cycle before `now` on: its index has
    /// fallen to the minimum (it only falls until a BECN), and even the largest delay since
    /// its last packet has passed, so that no index it may reach holds a packet back. (One
    /// cycle of margin: a packet sent at `now` looks at the delay as of `now - 1`.)
    fn at_rest(&self, flow: &Flow, now: u64) -> bool {
        let t = now.saturating_sub(2) as f64;
        self.ccti_at(flow, t) == self.min && flow.anchor + self.cct_max * flow.scale <= t
    }

    /// Index of the flow of `node`'s packets to `dst`.
    #[inline]
    fn flow(&self, node: NodeId, dst: u32) -> usize {
        match self.level {
            Level::Qp => node.index() * self.nodes + dst as usize,
            Level::Sl => node.index(),
        }
    }

    /// Timer expiries of a flow set at `since`, by cycle `t`.
    #[inline]
    fn expiries(&self, since: u64, t: f64) -> u64 {
        match self.timer {
            TimerKind::PerSl => {
                ((t / self.period).floor() - (since as f64 / self.period).floor()).max(0.0) as u64
            }
            TimerKind::PerFlowRestart => ((t - since as f64) / self.period).floor().max(0.0) as u64,
        }
    }

    /// The first timer expiry of a flow set at `since` after cycle `t`.
    #[inline]
    fn next_expiry(&self, since: u64, t: f64) -> f64 {
        match self.timer {
            TimerKind::PerSl => ((t / self.period).floor() + 1.0) * self.period,
            TimerKind::PerFlowRestart => {
                let k = ((t - since as f64) / self.period).floor() + 1.0;
                since as f64 + k * self.period
            }
        }
    }

    /// A flow's index at cycle `t`.
    #[inline]
    fn ccti_at(&self, flow: &Flow, t: f64) -> u32 {
        let down = self
            .expiries(flow.since, t)
            .min(u64::from(flow.ccti - self.min)) as u32;
        flow.ccti - down
    }

    /// The index of `node`'s flow to `dst` at cycle `now`.
    pub(super) fn ccti(&self, node: NodeId, dst: u32, now: u64) -> u32 {
        let flow = self.get(self.flow(node, dst));
        self.ccti_at(&flow, now as f64)
    }

    /// The earliest (fractional) cycle, not before `now`, at which the flow's delay since its
    /// last packet has passed, the index falling with each timer expiry on the way.
    fn due(&self, flow: &Flow, now: f64) -> f64 {
        let mut t = now;
        loop {
            let ccti = self.ccti_at(flow, t);
            let due = flow.anchor + self.cct[ccti as usize] * flow.scale;
            if due <= t {
                return t;
            }
            if ccti == self.min {
                return due;
            }
            let expiry = self.next_expiry(flow.since, t);
            if expiry >= due {
                return due;
            }
            t = expiry;
        }
    }

    /// The first cycle `node` may start a packet to `dst`, at or after `now`.
    #[inline]
    pub(super) fn send_time(&self, node: NodeId, dst: u32, now: u64) -> u64 {
        let flow = self.get(self.flow(node, dst));
        // Tolerate rounding, so that a delay ending on a cycle is on time.
        (self.due(&flow, now as f64) - 1e-9).ceil().max(now as f64) as u64
    }

    /// `node` started a packet of `blocks` blocks to `dst` at `now`: the next delay counts from
    /// it (from the cycle it became due, when it left in that cycle, so fractions of a cycle
    /// carry over).
    pub(super) fn sent(&mut self, node: NodeId, dst: u32, blocks: u32, now: u64) {
        let i = self.flow(node, dst);
        let due = self.due(&self.get(i), now as f64 - 1.0);
        let start = if due > now as f64 - 1.0 {
            due.min(now as f64)
        } else {
            now as f64
        };
        let wire = (u64::from(blocks) * self.link_period[node.index()]) as f64;
        let (anchor, scale) = match self.ird {
            Ird::GapAfter => (start + wire, f64::from(blocks) / f64::from(self.mtu_blocks)),
            Ird::StartToStart => (start, 1.0),
        };
        let flow = self.get_mut(i, now);
        (flow.anchor, flow.scale) = (anchor, scale);
    }

    /// A BECN carrying `feedback` for `node`'s flow to `dst` arrived at `now`: its index rises
    /// by CCTI_Increase for binary feedback (0), or as far as the quantized feedback asks
    /// ([`quantized_step`](Self::quantized_step)), at most to CCTI_Limit; its timer starts
    /// again if timers restart.
    pub(super) fn becn(&mut self, node: NodeId, dst: u32, feedback: u32, now: u64) {
        let i = self.flow(node, dst);
        let current = self.ccti_at(&self.get(i), now as f64);
        let ccti = if feedback == 0 {
            (current + self.increase).min(self.limit)
        } else {
            self.quantized_step(node, current, feedback)
        };
        let flow = self.get_mut(i, now);
        flow.ccti = ccti;
        flow.since = now;
    }

    /// The index quantized `feedback` raises `node`'s index `current` to (ours): the first
    /// whose rate for MTU packets is at most `1 − G_d · feedback` times the current one, with
    /// 802.1Qau's `G_d` = 1/128 (the largest feedback, 63, about halves the rate, as it halves
    /// a QCN source's), at least one step up and at most CCTI_Limit.
    fn quantized_step(&self, node: NodeId, current: u32, feedback: u32) -> u32 {
        let wire = (u64::from(self.mtu_blocks) * self.link_period[node.index()]) as f64;
        let period = |i: u32| {
            let delay = self.cct[i as usize];
            match self.ird {
                Ird::GapAfter => wire + delay,
                Ird::StartToStart => wire.max(delay),
            }
        };
        let target = period(current) / (1.0 - QCN_GD * f64::from(feedback));
        (current + 1..=self.limit)
            .find(|&i| period(i) >= target)
            .unwrap_or(self.limit)
    }

    /// The highest index of any flow at `now`.
    pub(super) fn max_ccti(&self, now: u64) -> u32 {
        self.flows
            .iter()
            .chain(self.pairs.values())
            .map(|f| self.ccti_at(f, now as f64))
            .max()
            .unwrap_or(self.min)
    }
}

/// The delay of index `i`, µs.
fn cct_us(settings: &IbCcConfig, i: u32) -> f64 {
    let i2 = f64::from(i) * f64::from(i);
    match settings.cct {
        CctKind::Paper3 => i2 * 7.0 / (106.0 * 106.0),
        CctKind::Vendor => i2 * 7.0 / (95.0 * 95.0),
        CctKind::Quadratic => {
            let top = f64::from(settings.ccti_limit.max(1));
            i2 * settings.cct_top_us / (top * top)
        }
        CctKind::Table => settings
            .cct_table_us
            .as_ref()
            .and_then(|t| t.get(i as usize).copied())
            .unwrap_or(0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    /// Two nodes on links of 2 cycles per block, 16 ns cycles (the testbed's DDR hosts).
    fn adapters(settings: &IbCcConfig) -> AdapterSide {
        AdapterSide::new(settings, vec![2, 2], 16.0, 32)
    }

    /// The index by an eager reference: every timer expiry up to `t` applied one by one.
    fn eager(settings: &IbCcConfig, becns: &[u64], t: u64, period: f64) -> u32 {
        let (mut ccti, mut since) = (settings.ccti_min, 0u64);
        let expiries = |from: u64, to: u64| -> u32 {
            let ticks = (1..)
                .map(|k| match settings.timer {
                    TimerKind::PerSl => k as f64 * period,
                    TimerKind::PerFlowRestart => from as f64 + k as f64 * period,
                })
                .skip_while(|&x| x <= from as f64 && settings.timer == TimerKind::PerSl)
                .take_while(|&x| x <= to as f64)
                .count();
            ticks as u32
        };
        for &b in becns.iter().filter(|&&b| b <= t) {
            ccti = ccti
                .saturating_sub(expiries(since, b))
                .max(settings.ccti_min);
            ccti = (ccti + settings.ccti_increase).min(settings.ccti_limit);
            since = b;
        }
        ccti.saturating_sub(expiries(since, t))
            .max(settings.ccti_min)
    }

    #[test]
    fn lazy_timers_match_an_eager_reference_and_stay_within_min_and_limit() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        for timer in [TimerKind::PerSl, TimerKind::PerFlowRestart] {
            for _ in 0..50 {
                let settings = IbCcConfig {
                    timer,
                    ccti_min: rng.random_range(0..4),
                    ccti_limit: rng.random_range(4..20),
                    ccti_increase: rng.random_range(1..4),
                    ccti_timer: rng.random_range(0.05..2.0),
                    ..IbCcConfig::default()
                };
                let mut a = adapters(&settings);
                let mut becns: Vec<u64> = (0..rng.random_range(1..40))
                    .map(|_| rng.random_range(0..20_000))
                    .collect();
                becns.sort_unstable();
                becns.dedup();
                let mut next = 0;
                for t in (0..25_000).step_by(37) {
                    while next < becns.len() && becns[next] <= t {
                        a.becn(NodeId::new(0), 1, 0, becns[next]);
                        next += 1;
                    }
                    let lazy = a.ccti(NodeId::new(0), 1, t);
                    assert!((settings.ccti_min..=settings.ccti_limit).contains(&lazy));
                    assert_eq!(
                        lazy,
                        eager(&settings, &becns, t, a.period),
                        "{timer:?} at {t}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_flow_pinned_at_an_index_sends_at_the_mtu_over_wire_time_plus_its_delay() {
        for ird in [Ird::GapAfter, Ird::StartToStart] {
            let settings = IbCcConfig {
                ird,
                ccti_timer: 1e7,
                ..IbCcConfig::default()
            };
            let mut a = adapters(&settings);
            let node = NodeId::new(0);
            for _ in 0..80 {
                a.becn(node, 1, 0, 0);
            }
            // CCT[80] = 80² · 7 / 106² µs = 3.987 µs = 249.2 cycles; a packet takes 64 cycles.
            let delay: f64 = 80.0 * 80.0 * 7.0 / (106.0 * 106.0) * 1000.0 / 16.0;
            let (mut now, mut sent) = (0u64, 0u64);
            while now < 1_000_000 {
                now = a.send_time(node, 1, now);
                a.sent(node, 1, 32, now);
                sent += 1;
                // The link is busy for the packet.
                now += 64;
            }
            let per_packet = now as f64 / sent as f64;
            let expected = match ird {
                Ird::GapAfter => 64.0 + delay,
                Ird::StartToStart => delay.max(64.0),
            };
            assert!(
                (per_packet / expected - 1.0).abs() < 0.005,
                "{ird:?}: {per_packet} cycles per packet, expected {expected}"
            );
        }
    }

    #[test]
    fn sweeping_queue_pairs_at_rest_changes_no_send_time() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
        for timer in [TimerKind::PerSl, TimerKind::PerFlowRestart] {
            let settings = IbCcConfig {
                timer,
                ccti_timer: 0.5,
                ..IbCcConfig::default()
            };
            let mut swept = AdapterSide::new(&settings, vec![2; 200], 16.0, 32);
            let mut kept = AdapterSide::new(&settings, vec![2; 200], 16.0, 32);
            kept.sweep_at = usize::MAX;
            let mut now = 0;
            for _ in 0..200_000 {
                now += rng.random_range(0..3);
                let (node, dst) = (
                    NodeId::new(rng.random_range(0..200)),
                    rng.random_range(0..200),
                );
                let at = swept.send_time(node, dst, now);
                assert_eq!(at, kept.send_time(node, dst, now), "{timer:?} at {now}");
                assert_eq!(swept.ccti(node, dst, now), kept.ccti(node, dst, now));
                if rng.random_bool(0.1) {
                    swept.becn(node, dst, 0, now);
                    kept.becn(node, dst, 0, now);
                } else if at == now {
                    let blocks = rng.random_range(1..=32);
                    swept.sent(node, dst, blocks, now);
                    kept.sent(node, dst, blocks, now);
                }
            }
            assert_eq!(swept.max_ccti(now), kept.max_ccti(now));
            // The swept map holds the flows not at rest, not every pair that ever sent.
            assert!(
                swept.pairs.len() < kept.pairs.len() / 2,
                "{}",
                swept.pairs.len()
            );
        }
    }

    #[test]
    fn delays_below_a_cycle_accumulate() {
        let settings = IbCcConfig {
            ird: Ird::StartToStart,
            cct: CctKind::Table,
            cct_table_us: Some(vec![0.0, 0.0304]),
            ccti_limit: 1,
            ccti_timer: 1e7,
            ..IbCcConfig::default()
        };
        let mut a = AdapterSide::new(&settings, vec![1], 16.0, 1);
        let node = NodeId::new(0);
        a.becn(node, 0, 0, 0);
        // 30.4 ns = 1.9 cycles between starts: 1,000 packets in 1,900 cycles, not 2,000.
        let mut now = 0;
        for _ in 0..1000 {
            now = a.send_time(node, 0, now);
            a.sent(node, 0, 1, now);
        }
        assert!((1898..=1901).contains(&now), "{now}");
    }

    #[test]
    fn quantized_feedback_cuts_the_rate_as_a_qcn_source_would() {
        let settings = IbCcConfig::default();
        let a = adapters(&settings);
        let node = NodeId::new(0);
        // A packet takes 64 cycles; the rate of index i is 1 / (64 + CCT[i]).
        let period = |i: u32| 64.0 + a.cct[i as usize];
        for current in [0, 10, 40, 80] {
            let mut last = current;
            for feedback in [1, 8, 16, 32, 63] {
                let next = a.quantized_step(node, current, feedback);
                assert!(next > current && next >= last, "{current}, {feedback}");
                last = next;
                let cut = period(current) / period(next);
                let wanted = 1.0 - f64::from(feedback) / 128.0;
                // The first index at or below the wanted rate; the one before is above it.
                if next > current + 1 {
                    assert!(cut <= wanted + 1e-12, "{current}, {feedback}: {cut}");
                    assert!(period(current) / period(next - 1) > wanted);
                }
            }
        }
        // The largest feedback at index 40 halves the rate: 64 + CCT grows twofold.
        let next = a.quantized_step(node, 40, 63);
        assert!(period(next) / period(40) >= 1.0 / (1.0 - 63.0 / 128.0) - 1e-9);
        assert_eq!(
            a.quantized_step(node, settings.ccti_limit, 63),
            settings.ccti_limit
        );
    }
}
