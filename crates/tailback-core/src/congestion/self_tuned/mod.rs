//! Self-tuned global source throttling (Thottethodi, Lebeck and Mukherjee, HPCA 2001).
//!
//! - **Congestion estimate**: the number of full VC buffers in the network (network input ports
//!   only; `full_buffer` chooses "full" or "non-empty"), learnt through the side-band. Between
//!   snapshots it is extrapolated linearly from the last two (or the last one is held).
//! - **Throttle**: while the estimate exceeds the threshold no node may start a new packet (a
//!   packet already being injected finishes).
//! - **Tuning** (hill climbing), at the end of every tuning period, on the throughput the
//!   side-band reported during the period: a *drop* is a period with less than `drop_fraction`
//!   (75%) of the previous period's throughput. Drop: decrement the threshold; no drop while
//!   throttling (in any cycle of the period): increment; otherwise keep it. Increments and
//!   decrements are fractions (1%, 4%) of all network VC buffers; the threshold starts at 1%.
//!   "Throttling" means some node was refused injection during the period.
//! - **Local-maximum avoidance**: remember the best period throughput `max` with the full-buffer
//!   count `N_max` (the period's last snapshot) and the threshold `T_max` in force during it. A
//!   period below `drop_fraction` of `max` resets the threshold to `min(T_max, N_max)` instead of
//!   applying the table; `r` resets in a row forget `max`, and the search starts over.
//! - **Static mode** (`static_threshold`): a fixed threshold, no tuning.

use super::registry::Registered;
use super::sideband::{SideBand, Snapshot};
use crate::config::Config;
use crate::config::{Estimate, FullBuffer, SelfTunedConfig, SidebandKind};
use crate::hooks::{BufferEvent, CongestionControl, Context};
use crate::ids::NodeId;
use crate::packet::Packet;
use crate::topology::{Link, Topology};
use crate::traffic::Offered;
use crate::view::NetworkView;

/// The hill-climbing tuner's memory.
#[derive(Debug, Clone, Default)]
struct Tuner {
    /// Throughput (flits) of the period in progress and of the previous one.
    period_flits: u64,
    previous_flits: Option<u64>,
    /// Some node was refused injection during the period in progress.
    throttled_in_period: bool,
    /// Best period throughput so far, with the full buffers and threshold then.
    max_flits: u64,
    n_max: f64,
    t_max: f64,
    /// Consecutive local-maximum resets.
    resets_in_row: u32,
}

/// Self-tuned (or static-threshold) global throttling.
#[derive(Debug, Clone)]
pub struct SelfTuned {
    settings: SelfTunedConfig,
    sideband: SideBand,
    /// Network VC buffers in the whole network (the unit of increments and decrements).
    buffers: f64,
    /// Local index of the routers' terminal port (its input VCs are not network buffers).
    terminal_port: u8,
    /// Full network buffers per router, kept up to date from buffer events.
    full_buffers: Vec<u32>,
    /// Flits delivered per node since the last side-band sample.
    delivered: Vec<u64>,
    /// The last two snapshots received, newest last.
    snapshots: [Option<Snapshot>; 2],
    tuning_period: u64,
    threshold: f64,
    estimate: f64,
    tuner: Tuner,
    throttled_node_cycles: u64,
}

/// The side-band's gather duration `g`: how old the totals a node learns can be (none with the
/// ideal view).
impl Registered for SelfTuned {
    type Settings = SelfTunedConfig;
    type Control = SelfTuned;

    fn staleness(tuned: &SelfTunedConfig, topology: &Topology) -> Option<(String, u64)> {
        let cube = topology.cube()?;
        (tuned.sideband == SidebandKind::Dimensionwise).then(|| {
            (
                "side-band gather duration g".into(),
                SideBand::gather_duration(cube, tuned.hop_delay),
            )
        })
    }

    fn build(tuned: &SelfTunedConfig, cfg: &Config, topology: &Topology) -> SelfTuned {
        SelfTuned::new(tuned, topology, cfg.router.vcs)
    }
}

impl SelfTuned {
    /// Throttling for `topology` with `vcs` VCs per port.
    pub fn new(settings: &SelfTunedConfig, topology: &Topology, vcs: u32) -> SelfTuned {
        let shape = topology
            .cube()
            .expect("validation allows self-tuned throttling on k-ary n-cubes only");
        let sideband = SideBand::new(settings.sideband, shape, settings.hop_delay);
        let network_inputs = topology
            .ports()
            .iter()
            .filter(|p| matches!(p.input, Link::Router(_)))
            .count();
        let buffers = (network_inputs * vcs as usize) as f64;
        let gather = SideBand::gather_duration(shape, settings.hop_delay);
        SelfTuned {
            sideband,
            buffers,
            terminal_port: shape.terminal_port(),
            full_buffers: vec![0; topology.router_count()],
            delivered: vec![0; topology.node_count()],
            snapshots: [None, None],
            tuning_period: settings.tuning_period.map_or(3 * gather, u64::from).max(1),
            threshold: match settings.static_threshold {
                Some(fixed) => fixed as f64,
                None => settings.initial_threshold * buffers,
            },
            estimate: 0.0,
            tuner: Tuner::default(),
            throttled_node_cycles: 0,
            settings: settings.clone(),
        }
    }

    /// The current threshold, in full buffers.
    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// Whether a buffer with `occupancy` flits of `capacity` counts as full.
    fn is_full(&self, occupancy: u32, capacity: u32) -> bool {
        match self.settings.full_buffer {
            FullBuffer::Full => occupancy == capacity,
            FullBuffer::Nonempty => occupancy > 0,
        }
    }

    /// Tracks the full-buffer count of a network input buffer going from `before` to `after`.
    fn track(&mut self, event: BufferEvent, before: u32) {
        if event.port == self.terminal_port {
            return;
        }
        let was = self.is_full(before, event.capacity);
        let is = self.is_full(event.occupancy, event.capacity);
        let count = &mut self.full_buffers[event.router.index()];
        match (was, is) {
            (false, true) => *count += 1,
            (true, false) => *count -= 1,
            _ => {}
        }
    }

    /// The congestion estimate for cycle `now` from the snapshots received so far.
    fn estimate_at(&self, now: u64) -> f64 {
        match self.snapshots {
            [_, None] => 0.0,
            [Some(older), Some(newer)] if self.settings.estimate == Estimate::Extrapolate => {
                let slope = (newer.full_buffers as f64 - older.full_buffers as f64)
                    / (newer.taken - older.taken) as f64;
                (newer.full_buffers as f64 + slope * (now - newer.taken) as f64).max(0.0)
            }
            [_, Some(newer)] => newer.full_buffers as f64,
        }
    }

    /// A tuning decision at the end of a tuning period.
    fn tune(&mut self) {
        let s = &self.settings;
        let t = &mut self.tuner;
        let flits = std::mem::take(&mut t.period_flits);
        let throttled = std::mem::take(&mut t.throttled_in_period);
        let in_force = self.threshold;
        let below = |reference: u64| (flits as f64) < s.drop_fraction * reference as f64;
        if s.local_max_avoidance && t.max_flits > 0 && below(t.max_flits) {
            self.threshold = t.t_max.min(t.n_max);
            t.resets_in_row += 1;
            if t.resets_in_row >= s.reset_limit {
                t.max_flits = 0;
                t.resets_in_row = 0;
            }
        } else {
            t.resets_in_row = 0;
            if t.previous_flits.is_some_and(below) {
                self.threshold = (self.threshold - s.decrement * self.buffers).max(0.0);
            } else if throttled {
                self.threshold += s.increment * self.buffers;
            }
        }
        if flits > t.max_flits {
            t.max_flits = flits;
            t.n_max = self.snapshots[1].map_or(0.0, |snap| snap.full_buffers as f64);
            t.t_max = in_force;
        }
        t.previous_flits = Some(flits);
    }
}

impl CongestionControl for SelfTuned {
    const BUFFER_EVENTS: bool = true;
    const PER_CYCLE: bool = true;
    const GAUGES: &'static [&'static str] = &["threshold", "estimate"];

    fn may_start_injection(
        &mut self,
        _cx: &mut Context<'_>,
        _view: &NetworkView<'_>,
        _node: NodeId,
        _packet: &Offered,
    ) -> bool {
        let allowed = self.estimate <= self.threshold;
        if !allowed {
            self.throttled_node_cycles += 1;
            self.tuner.throttled_in_period = true;
        }
        allowed
    }

    fn on_delivered(&mut self, _cx: &mut Context<'_>, node: NodeId, packet: &Packet) {
        self.delivered[node.index()] += packet.flits as u64;
    }

    fn on_enqueue(&mut self, _cx: &mut Context<'_>, event: BufferEvent) {
        self.track(event, event.occupancy - 1);
    }

    fn on_dequeue(&mut self, _cx: &mut Context<'_>, event: BufferEvent) {
        self.track(event, event.occupancy + 1);
    }

    fn end_of_cycle(&mut self, cx: &mut Context<'_>, _view: &NetworkView<'_>) {
        let now = cx.now;
        if let Some(snapshot) =
            self.sideband
                .end_of_cycle(now, &self.full_buffers, &mut self.delivered)
        {
            self.snapshots = [self.snapshots[1], Some(snapshot)];
            self.tuner.period_flits += snapshot.delivered_flits;
        }
        if self.settings.static_threshold.is_none() && (now + 1).is_multiple_of(self.tuning_period)
        {
            self.tune();
        }
        self.estimate = self.estimate_at(now + 1);
    }

    fn throttled_node_cycles(&self) -> u64 {
        self.throttled_node_cycles
    }

    fn gauges(&self, _now: u64, values: &mut [Option<f64>]) {
        values.copy_from_slice(&[Some(self.threshold), Some(self.estimate)]);
    }
}
