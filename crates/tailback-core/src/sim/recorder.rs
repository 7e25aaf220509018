//! Time series and occupancy snapshots (`[record]`).

use crate::config::RecordConfig;
use crate::fabric::Fabric;
use crate::hooks::PortVlTotals;
use crate::ids::PortId;
use crate::stats::{Collector, Gauges, Occupancy, Pending, PortVlLog, PortVlWatch, SeriesRow};
use crate::topology::{Link, Topology};

/// Cumulative counters at the start of the current window.
#[derive(Debug, Clone, Copy, Default)]
struct Totals {
    created_flits: u64,
    delivered_flits: u64,
    hot_delivered_flits: u64,
    delivered_packets: u64,
    delivered_latency_sum: u64,
    throttled_node_cycles: u64,
    recoveries: u64,
}

/// What the recorder reads at the end of a cycle.
pub(super) struct Sample<'a> {
    pub(super) fabric: &'a dyn Fabric,
    pub(super) stats: &'a Collector,
    pub(super) in_flight_packets: u64,
    pub(super) queued_packets: u64,
    /// The mechanism's refused node-cycles since the start.
    pub(super) throttled_node_cycles: u64,
    pub(super) gauges: Gauges,
    /// The mechanism's Port VL records (empty without).
    pub(super) port_vls: Vec<PortVlTotals>,
}

/// Records the time series and the occupancy snapshots of a run.
#[derive(Debug)]
pub(super) struct Recorder {
    window: u64,
    /// Whether each series row comes with the pending packets per receiver.
    pending_per_receiver: bool,
    /// Snapshot cycles still to come, latest first.
    snapshots_due: Vec<u64>,
    nodes: usize,
    /// Router input VC buffers of network ports, by router: (router, port) pairs.
    network_ports: Vec<(usize, usize)>,
    routers: usize,
    /// The next cycle at whose end something is recorded ([`u64::MAX`]: nothing more).
    next: u64,
    totals: Totals,
    pub(super) series: Vec<SeriesRow>,
    pub(super) occupancy: Vec<Occupancy>,
    pub(super) pending: Vec<Pending>,
    pub(super) port_vls: PortVlLog,
    /// The Port VLs' congestion over the second half of the measurement window, when asked.
    pub(super) watch: Option<PortVlWatch>,
    /// With priority flow control: the paused share of each window per switch output port
    /// toward a switch.
    pub(super) pauses: Option<PauseWindows>,
}

/// The paused share of each window of the ports priority flow control paces.
#[derive(Debug)]
pub(super) struct PauseWindows {
    /// Output ports toward switches, and their lanes.
    pub(super) ports: Vec<usize>,
    vls: usize,
    /// Per port: paused cycles summed over its paced lanes at the last window's end.
    last: Vec<u64>,
    pub(super) windows: Vec<Vec<f64>>,
}

impl PauseWindows {
    /// Watches the output ports of `topology` that lead to switches, on `vls` lanes.
    pub(super) fn new(topology: &Topology, vls: usize) -> PauseWindows {
        let ports: Vec<usize> = topology
            .ports()
            .iter()
            .enumerate()
            .filter(|(_, p)| matches!(p.output, Link::Router(_)))
            .map(|(i, _)| i)
            .collect();
        PauseWindows {
            last: vec![0; ports.len()],
            ports,
            vls,
            windows: Vec::new(),
        }
    }

    /// The window of `window` cycles ending before cycle `end`.
    fn sample(&mut self, fabric: &dyn Fabric, end: u64, window: u64) {
        let row = self
            .ports
            .iter()
            .zip(&mut self.last)
            .map(|(&port, last)| {
                let (mut cycles, mut lanes) = (0, 0);
                for vl in 0..self.vls {
                    if let Some(c) = fabric.paused_cycles(PortId::new(port), vl, end) {
                        cycles += c;
                        lanes += 1;
                    }
                }
                let share = (cycles - *last) as f64 / (window * lanes.max(1)) as f64;
                *last = cycles;
                share
            })
            .collect();
        self.windows.push(row);
    }
}

impl Recorder {
    pub(super) fn new(
        cfg: &RecordConfig,
        topology: &Topology,
        watch: Option<PortVlWatch>,
        pauses: Option<PauseWindows>,
    ) -> Recorder {
        let mut snapshots_due = cfg.occupancy_at.clone();
        snapshots_due.sort_unstable_by(|a, b| b.cmp(a));
        snapshots_due.dedup();
        let mut recorder = Recorder {
            window: cfg.series_window,
            pending_per_receiver: cfg.pending_per_receiver,
            snapshots_due,
            nodes: topology.node_count(),
            network_ports: topology
                .ports()
                .iter()
                .enumerate()
                .filter(|(_, p)| matches!(p.input, Link::Router(_)))
                .map(|(i, p)| (p.router.index(), i))
                .collect(),
            routers: topology.router_count(),
            next: 0,
            totals: Totals::default(),
            series: Vec::new(),
            occupancy: Vec::new(),
            pending: Vec::new(),
            port_vls: PortVlLog::new(
                cfg.series_window,
                topology
                    .ports()
                    .iter()
                    .map(|p| (p.router.index() as u32, p.local))
                    .collect(),
            ),
            watch,
            pauses,
        };
        recorder.next = recorder.first_due(0);
        recorder
    }

    /// The next cycle at whose end something is recorded: the simulation calls
    /// [`record`](Self::record) then, and never skips past it.
    #[inline]
    pub(super) fn next_due(&self) -> u64 {
        self.next
    }

    /// The first cycle from `from` on at whose end something is recorded.
    fn first_due(&self, from: u64) -> u64 {
        let window_end = from
            .checked_div(self.window)
            .map_or(u64::MAX, |windows| (windows + 1) * self.window - 1);
        let snapshot = self.snapshots_due.last().copied().unwrap_or(u64::MAX);
        let sample = self
            .watch
            .as_ref()
            .map_or(u64::MAX, |w| w.next_sample(from));
        window_end.min(snapshot.max(from)).min(sample)
    }

    /// Whether a series window ends with cycle `now`.
    pub(super) fn window_ends(&self, now: u64) -> bool {
        self.window > 0 && (now + 1).is_multiple_of(self.window)
    }

    /// Records what is due at the end of cycle `now` (the [`next_due`](Self::next_due) cycle).
    pub(super) fn record(&mut self, now: u64, sample: &Sample<'_>) {
        if self.window_ends(now) {
            self.record_row(now + 1, sample);
        }
        while self.snapshots_due.last().is_some_and(|&c| c <= now) {
            let cycle = self.snapshots_due.pop().unwrap_or(now);
            self.record_occupancy(cycle, sample.fabric);
        }
        if let Some(watch) = &mut self.watch {
            let fabric = sample.fabric;
            watch.sample(now, |port, lane| {
                fabric.port_vl_queued(PortId::new(port), lane)
            });
        }
        self.next = self.first_due(now + 1);
    }

    fn record_row(&mut self, end: u64, sample: &Sample<'_>) {
        let now = Totals {
            created_flits: sample.stats.created_flits,
            delivered_flits: sample.stats.delivered_flits,
            hot_delivered_flits: sample.stats.hot_delivered_flits,
            delivered_packets: sample.stats.delivered_packets,
            delivered_latency_sum: sample.stats.delivered_latency_sum,
            throttled_node_cycles: sample.throttled_node_cycles,
            recoveries: sample.fabric.recoveries(),
        };
        let node_cycles = (self.nodes as u64 * self.window) as f64;
        let full_buffers = self
            .network_ports
            .iter()
            .map(|&(_, port)| u64::from(sample.fabric.full_buffers(PortId::new(port))))
            .sum();
        self.series.push(SeriesRow {
            cycle: end,
            offered: (now.created_flits - self.totals.created_flits) as f64 / node_cycles,
            delivered: (now.delivered_flits - self.totals.delivered_flits) as f64 / node_cycles,
            delivered_hot: match sample.stats.hot_count() {
                0 => None,
                hot => Some(
                    (now.hot_delivered_flits - self.totals.hot_delivered_flits) as f64
                        / (hot as u64 * self.window) as f64,
                ),
            },
            in_flight_packets: sample.in_flight_packets,
            queued_packets: sample.queued_packets,
            full_buffers,
            throttled_fraction: (now.throttled_node_cycles - self.totals.throttled_node_cycles)
                as f64
                / node_cycles,
            deadlock_recoveries: now.recoveries - self.totals.recoveries,
            latency: (now.delivered_packets > self.totals.delivered_packets).then(|| {
                (now.delivered_latency_sum - self.totals.delivered_latency_sum) as f64
                    / (now.delivered_packets - self.totals.delivered_packets) as f64
            }),
            gauges: sample.gauges.clone(),
        });
        if !sample.port_vls.is_empty() {
            self.port_vls
                .record(self.series.len() - 1, &sample.port_vls);
        }
        if let Some(pauses) = &mut self.pauses {
            pauses.sample(sample.fabric, end, self.window);
        }
        if self.pending_per_receiver {
            self.pending.push(Pending {
                cycle: end,
                per_receiver: sample.stats.pending.clone(),
            });
        }
        self.totals = now;
    }

    fn record_occupancy(&mut self, cycle: u64, fabric: &dyn Fabric) {
        let mut flits = vec![0u64; self.routers];
        let mut capacity = vec![0u64; self.routers];
        for &(router, port) in &self.network_ports {
            let (held, room) = fabric.port_occupancy(PortId::new(port));
            flits[router] += held;
            capacity[router] += room;
        }
        let per_router = flits
            .iter()
            .zip(&capacity)
            .map(|(&f, &c)| if c == 0 { 0.0 } else { f as f64 / c as f64 })
            .collect();
        self.occupancy.push(Occupancy { cycle, per_router });
    }
}
