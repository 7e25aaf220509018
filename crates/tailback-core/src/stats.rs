//! Measurement: counters gathered during a run and the summary it produces.
//!
//! Packets created inside the measurement window are *measured*: their latencies and hops are
//! recorded when they are delivered, however long the drain takes. Throughput counts every flit
//! created (offered) or consumed by a NIC (accepted) inside the window, per node.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

mod classes;
mod flows;
mod gauges;
mod order;
mod port_vl_watch;
mod port_vls;
mod stability;

pub(crate) use classes::hot_destinations;
pub use classes::{ClassRate, ReceiveByClass};
pub(crate) use flows::FlowLog;
pub use flows::{FlowStats, jain_index, shares, treatment_variation};
pub use gauges::Gauges;
pub(crate) use port_vl_watch::PortVlWatch;
pub use port_vl_watch::{PortVl, PortVlLoad, PortVlMap};
pub(crate) use port_vls::PortVlLog;
pub use port_vls::PortVlSeries;
pub(crate) use stability::Limits;
pub use stability::SaturationCause;

use crate::analysis::ZeroLoad;
use crate::config::Units;
use crate::packet::{LogicalNetwork, Packet};
use crate::trace::TraceRecord;
use crate::traffic::Offered;

/// Smallest and largest value over nodes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Minimum over nodes.
    pub min: f64,
    /// Maximum over nodes.
    pub max: f64,
}

/// Packet latency statistics in cycles (absent when no measured packet was delivered).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatencyStats {
    /// Mean.
    pub mean: Option<f64>,
    /// Median.
    pub p50: Option<u64>,
    /// 99th percentile.
    pub p99: Option<u64>,
    /// Maximum.
    pub max: Option<u64>,
}

/// A mean over measured packets (absent when none was delivered).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Mean {
    /// Mean.
    pub mean: Option<f64>,
}

/// The result of one simulation run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// Offered load in the window, flits/node/cycle (mean over nodes).
    pub offered: f64,
    /// Offered load per node.
    pub offered_per_node: Spread,
    /// Accepted throughput in the window, flits/node/cycle (mean over nodes).
    pub accepted: f64,
    /// Accepted throughput per node.
    pub accepted_per_node: Spread,
    /// Creation to tail delivery.
    pub latency: LatencyStats,
    /// Head injection to tail delivery.
    pub network_latency: Mean,
    /// Creation to head injection (time in the source queue).
    pub source_queue_latency: Mean,
    /// Router-to-router channels crossed.
    pub hops: Mean,
    /// Packets created in the window.
    pub packets_measured: u64,
    /// Measured packets delivered (all of them unless the drain cap was hit).
    pub packets_delivered: u64,
    /// Workload packets delivered during the measurement window, whenever created: the metric
    /// of the closed-loop workloads (packets delivered in a fixed number of cycles).
    #[serde(default)]
    pub delivered_packets: u64,
    /// Packets created in the window but refused by a full source queue
    /// (`nic.source_queue_packets`); they count as offered, not as measured.
    #[serde(default)]
    pub packets_refused: u64,
    /// The run failed a stability test (see [`SaturationCause`]): the network is past
    /// saturation and its latency figures grow with the run's length (and describe only the
    /// delivered packets when the drain cap was hit).
    pub saturated: bool,
    /// Why the run counts as saturated, as a sentence.
    pub saturation_reason: Option<String>,
    /// Which stability test the run failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saturation_cause: Option<SaturationCause>,
    /// Fraction of the delivered measured packets whose routes detoured through an
    /// intermediate group (routing that may detour only: Valiant, UGAL, PAR).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detoured: Option<f64>,
    /// Measured packets delivered after a packet their source injected later towards the same
    /// destination (overtaken on another route, or in another VC).
    #[serde(default)]
    pub out_of_order: u64,
    /// Mean zero-load latency of the delivered measured packets' routes (with their hops and
    /// lengths, on an empty network), cycles: the yardstick of the latency test.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zero_load_latency: Option<f64>,
    /// Cycles simulated.
    pub cycles: u64,
    /// Router-to-router flit traversals over the whole run.
    pub flit_hops: u64,
    /// Packets moved out of a presumed deadlock by the recovery lane (Disha routing).
    #[serde(default)]
    pub deadlock_recoveries: u64,
    /// Collective communication: cycles from the start until the last packet was delivered
    /// (absent if the run was cut off first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_cycles: Option<u64>,
    /// A trace replayed beside flows (or alone): cycles from the start until its last packet
    /// was delivered (absent while any of its packets was undelivered at the end of the run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_done_cycles: Option<u64>,
    /// Ramp load: the offered load (flits/node/cycle) at which smoothed throughput fell below
    /// the ideal line by `traffic.ramp_drop` (absent if it never did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub critical_load: Option<f64>,
    /// Wall-clock time of the run.
    pub wall_seconds: f64,
    /// Simulation speed: nodes times cycles per wall-clock second.
    pub node_cycles_per_second: f64,
    /// The congestion mechanism's totals over the whole run (InfiniBand congestion control:
    /// `marks`, `cnps`, `becns`); empty for mechanisms without any.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub mechanism_counts: std::collections::BTreeMap<String, u64>,
    /// Receive rate of the workload's hot destinations against the other nodes (absent when
    /// the workload has no hot destinations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receive_by_class: Option<ReceiveByClass>,
    /// Share of the measurement window's cycles the channels of each class were busy, by
    /// class: `terminal` (router to node), and `local` and `global` on a dragonfly, `router`
    /// (router to router) elsewhere. Virtual-channel routers under steady traffic only.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub utilisation: std::collections::BTreeMap<String, f64>,
    /// The headline numbers in time and data-rate units (with `fabric.link`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub units: Option<UnitSummary>,
}

/// A run's headline numbers in Gbit/s and µs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct UnitSummary {
    /// Nanoseconds per cycle (one 64-byte block on the fastest links).
    pub cycle_ns: f64,
    /// Data rate of the fastest links, Gbit/s.
    pub link_gbps: f64,
    /// Offered load per node, Gbit/s.
    pub offered_gbps: f64,
    /// Accepted throughput per node, Gbit/s: every block on the wire, framing and the rounding
    /// of packets to whole blocks included.
    pub accepted_gbps: f64,
    /// The payload of the accepted throughput per node, Gbit/s (with `traffic.packet_bytes`;
    /// exact when every packet is full-size, as a message's last packet may not be).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goodput_gbps: Option<f64>,
    /// Mean packet latency, µs.
    pub latency_mean_us: Option<f64>,
    /// 99th percentile of packet latency, µs.
    pub latency_p99_us: Option<f64>,
    /// Simulated time, µs.
    pub simulated_us: f64,
    /// Mean receive rate per node of the hot destinations, of the other nodes and of all
    /// nodes, Gbit/s (with hot destinations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receive_gbps: Option<ClassGbps>,
}

/// A per-node rate by class of destination, Gbit/s.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClassGbps {
    /// The hot destinations.
    pub hot: f64,
    /// The other nodes.
    pub others: Option<f64>,
    /// All nodes.
    pub all: f64,
}

impl UnitSummary {
    /// `summary` in `units`; `payload_share` is the share of a packet's blocks its payload
    /// fills (with packet sizes in bytes).
    pub fn new(summary: &RunSummary, units: Units, payload_share: Option<f64>) -> UnitSummary {
        let accepted_gbps = units.gbps(summary.accepted);
        UnitSummary {
            cycle_ns: units.cycle_ns,
            link_gbps: units.link_gbps,
            offered_gbps: units.gbps(summary.offered),
            accepted_gbps,
            goodput_gbps: payload_share.map(|share| accepted_gbps * share),
            latency_mean_us: summary.latency.mean.map(|c| units.micros(c)),
            latency_p99_us: summary.latency.p99.map(|c| units.micros(c as f64)),
            simulated_us: units.micros(summary.cycles as f64),
            receive_gbps: summary.receive_by_class.map(|classes| ClassGbps {
                hot: units.gbps(classes.hot.mean),
                others: classes.others.map(|c| units.gbps(c.mean)),
                all: units.gbps(classes.all.mean),
            }),
        }
    }
}

/// One row of a run's time series: what happened during a window of `record.series_window`
/// cycles ending at `cycle`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesRow {
    /// End of the window (exclusive).
    pub cycle: u64,
    /// Flits created by the sources, per node per cycle.
    pub offered: f64,
    /// Flits consumed by destination NICs, per node per cycle.
    pub delivered: f64,
    /// Flits consumed by the hot destinations (the report's `hot_nodes`), per hot node per
    /// cycle; absent without hot destinations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivered_hot: Option<f64>,
    /// Packets in the network at the end of the window.
    pub in_flight_packets: u64,
    /// Packets waiting in source queues at the end of the window.
    pub queued_packets: u64,
    /// Router input VC buffers of network ports with no free slot, at the end of the window.
    pub full_buffers: u64,
    /// Fraction of node-cycles in which a node with a waiting packet was throttled.
    pub throttled_fraction: f64,
    /// Deadlock recoveries started during the window.
    pub deadlock_recoveries: u64,
    /// Mean latency (creation to delivery) of the packets delivered during the window.
    #[serde(default)]
    pub latency: Option<f64>,
    /// The congestion mechanism's named values at the end of the window (self-tuned: its
    /// `threshold` and `estimate`; entropy throttling: also `valid_per_router` and
    /// `throttled_nodes`), written as further fields of the row.
    #[serde(flatten)]
    pub gauges: Gauges,
}

/// Injection waves in a time series: rows in which the packets in flight rose by more than a
/// quarter of the `nodes` (at the start of a collective, every node starting a packet at once).
pub fn injection_waves(rows: &[SeriesRow], nodes: u64) -> usize {
    let mut last = 0;
    let mut waves = 0;
    for row in rows {
        if row.in_flight_packets > last + nodes / 4 {
            waves += 1;
        }
        last = row.in_flight_packets;
    }
    waves
}

/// Buffer occupancy of every router at the end of a cycle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Occupancy {
    /// The cycle.
    pub cycle: u64,
    /// Per router (by index): flits in its network input VC buffers over their capacity.
    pub per_router: Vec<f64>,
}

/// Packets on their way to each node at the end of a series window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pending {
    /// End of the window (exclusive).
    pub cycle: u64,
    /// Per destination node: workload packets injected and not yet delivered.
    pub per_receiver: Vec<u32>,
}

/// A run's summary plus the distributions behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// The headline numbers.
    pub summary: RunSummary,
    /// Cumulative distribution of measured packet latency: (latency in cycles, fraction of
    /// packets with at most that latency), in increasing order; empty when nothing was measured.
    pub latency_cdf: Vec<(u64, f64)>,
    /// Accepted throughput of every node in the window, flits/cycle, by node index.
    pub accepted_per_node: Vec<f64>,
    /// Time series (empty unless `record.series_window` is set).
    pub series: Vec<SeriesRow>,
    /// Occupancy snapshots at the cycles of `record.occupancy_at`.
    pub occupancy: Vec<Occupancy>,
    /// Pending packets per receiver every series window (with `record.pending_per_receiver`).
    #[serde(default)]
    pub pending: Vec<Pending>,
    /// Throughput per flow (with `record.flows`), by source then destination.
    #[serde(default)]
    pub flows: Vec<FlowStats>,
    /// The name of the mechanism's per-flow value in [`FlowStats::gauge`] (IB CC: `ccti`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow_gauge: Option<String>,
    /// Congestion per Port VL every series window (buffered switches whose mechanism detects
    /// congestion, e.g. IB CC), for the Port VLs ever congested, by switch, port and lane.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub port_vls: Vec<PortVlSeries>,
    /// The Port VLs congested over the second half of the measurement window (with
    /// `record.congested_port_vls`): their queued blocks at least half an input pool at every
    /// sample.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub congested_port_vls: Vec<PortVl>,
    /// The load of every Port VL over the same span (with `record.congested_port_vls`): the
    /// map of the congestion trees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port_vl_map: Option<PortVlMap>,
    /// The hot destinations the receive rates by class are split by (a forest's hot spots
    /// for the whole run, or the destinations of two or more flows), sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hot_nodes: Vec<u32>,
    /// Priority flow control's pauses (with `fabric.flow_control = "pfc"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pauses: Option<PauseMap>,
}

/// Where and when priority flow control paused senders: the switch output ports toward other
/// switches (the senders a PAUSE stops), each window of the time series, and the adapters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PauseMap {
    /// The ports: (global port index, switch, local port).
    pub ports: Vec<(u32, u32, u8)>,
    /// Per port and lane: the cycles it was paused over the run (0 on a lane not paced).
    pub paused_cycles: Vec<Vec<u64>>,
    /// Per window of the time series: per port, the share of the window its paced lanes were
    /// paused (their mean).
    pub windows: Vec<Vec<f64>>,
    /// Per node and lane: the cycles its adapter's injection was paused.
    pub adapters: Vec<Vec<u64>>,
    /// Cycles simulated (what the totals are shares of).
    pub cycles: u64,
    /// The most blocks a paced input pool held past XOFF (0 if none reached it): how much of
    /// the headroom the run used.
    pub peak_pool_blocks: u32,
}

/// How far a replayed trace has got.
#[derive(Debug, Default)]
struct TraceProgress {
    /// Packets in the trace.
    packets: u64,
    /// Packets of it delivered.
    delivered: u64,
    /// The cycle after the last delivery.
    done_at: u64,
}

/// Counters updated while the simulation runs.
#[derive(Debug)]
pub(crate) struct Collector {
    window_start: u64,
    window_end: u64,
    /// The first cycle of the window's second half.
    window_mid: u64,
    offered_flits: Vec<u64>,
    accepted_flits: Vec<u64>,
    /// Flits consumed in the first half of the window, per node.
    accepted_first_half: Vec<u64>,
    latency: Histogram<u64>,
    latency_sum: u128,
    network_latency_sum: u128,
    /// Source-queue waits of the measured packets created in the window's first and second
    /// halves: sum and count (together, every delivered measured packet's).
    queue_wait_halves: [(u128, u64); 2],
    hops_sum: u64,
    /// Packets in flight per pair of nodes, for out-of-order deliveries.
    order: order::DeliveryOrder,
    /// Measured packets delivered out of order.
    out_of_order: u64,
    /// Delivered measured packets whose routes detoured, when routing may detour.
    pub(crate) detoured: Option<u64>,
    /// The zero-load timing of the network, when known.
    pub(crate) zero_load: Option<ZeroLoad>,
    /// Sum of the zero-load latencies of the delivered measured packets.
    zero_load_sum: f64,
    measured_created: u64,
    measured_delivered: u64,
    /// Packets created in the window and refused by a full source queue.
    window_refused: u64,
    /// Measured packets not yet delivered.
    pub(crate) measured_outstanding: u64,
    /// Packets delivered over the whole run.
    pub(crate) delivered_packets: u64,
    /// Sum of the latencies of all packets delivered over the whole run.
    pub(crate) delivered_latency_sum: u64,
    /// Flits consumed by NICs over the whole run.
    pub(crate) delivered_flits: u64,
    /// Whether each node is a hot destination (empty: the workload has none).
    hot: Vec<bool>,
    /// How many nodes are.
    hot_count: usize,
    /// Flits consumed by the hot destinations over the whole run.
    pub(crate) hot_delivered_flits: u64,
    /// Workload packets delivered in the window.
    window_delivered: u64,
    /// Workload packets injected and not yet delivered, by destination.
    pub(crate) pending: Vec<u32>,
    /// Packets delivered since the trace was last written (when a trace is written).
    pub(crate) deliveries: Option<Vec<TraceRecord>>,
    /// Packets created over the whole run.
    pub(crate) created_packets: u64,
    /// Flits created over the whole run.
    pub(crate) created_flits: u64,
    /// Packets refused by a full source queue over the whole run.
    pub(crate) refused_packets: u64,
    /// Flits delivered per flow (with `record.flows`).
    pub(crate) flows: Option<FlowLog>,
    /// The replayed trace's progress.
    traced: TraceProgress,
}

impl Collector {
    pub(crate) fn new(nodes: usize, window_start: u64, window_end: u64) -> Collector {
        Collector {
            window_start,
            window_end,
            window_mid: window_start + (window_end - window_start) / 2,
            offered_flits: vec![0; nodes],
            accepted_flits: vec![0; nodes],
            accepted_first_half: vec![0; nodes],
            latency: Histogram::new(3).expect("3 significant digits is a valid precision"),
            latency_sum: 0,
            network_latency_sum: 0,
            queue_wait_halves: [(0, 0); 2],
            hops_sum: 0,
            order: order::DeliveryOrder::default(),
            out_of_order: 0,
            detoured: None,
            zero_load: None,
            zero_load_sum: 0.0,
            measured_created: 0,
            measured_delivered: 0,
            window_refused: 0,
            measured_outstanding: 0,
            delivered_packets: 0,
            delivered_latency_sum: 0,
            delivered_flits: 0,
            hot: Vec::new(),
            hot_count: 0,
            hot_delivered_flits: 0,
            window_delivered: 0,
            pending: vec![0; nodes],
            deliveries: None,
            created_packets: 0,
            refused_packets: 0,
            created_flits: 0,
            flows: None,
            traced: TraceProgress::default(),
        }
    }

    /// The run replays a trace of `packets` packets.
    pub(crate) fn expect_traced(&mut self, packets: u64) {
        self.traced.packets = packets;
    }

    /// Whether the run replays a trace.
    pub(crate) fn replays_trace(&self) -> bool {
        self.traced.packets > 0
    }

    /// Whether every packet of the replayed trace has arrived.
    #[inline]
    pub(crate) fn trace_done(&self) -> bool {
        self.traced.delivered == self.traced.packets
    }

    /// Whether cycle `t` lies in the measurement window.
    #[inline]
    pub(crate) fn in_window(&self, t: u64) -> bool {
        (self.window_start..self.window_end).contains(&t)
    }

    /// Counts what the hot destinations `hot` consume apart, for the time series.
    pub(crate) fn watch_hot(&mut self, hot: &[u32]) {
        self.hot = vec![false; self.offered_flits.len()];
        for &node in hot {
            self.hot[node as usize] = true;
        }
        self.hot_count = self.hot.iter().filter(|&&h| h).count();
    }

    /// How many hot destinations are watched.
    pub(crate) fn hot_count(&self) -> usize {
        self.hot_count
    }

    /// A source created `packet`; `queued` is false when its full source queue refused it
    /// (its flits still count as offered, but it is not measured).
    pub(crate) fn on_created(&mut self, node: usize, packet: &Offered, queued: bool) {
        self.created_packets += 1;
        self.created_flits += packet.flits as u64;
        let in_window = self.in_window(packet.created);
        if in_window {
            self.offered_flits[node] += packet.flits as u64;
        }
        if !queued {
            self.refused_packets += 1;
            self.window_refused += u64::from(in_window);
        } else if in_window {
            self.measured_created += 1;
            self.measured_outstanding += 1;
        }
    }

    #[inline]
    pub(crate) fn on_flit_accepted(&mut self, node: usize, now: u64) {
        self.on_flits_accepted(node, now, 1);
    }

    /// `node` consumed `flits` flits at `now` (a whole packet, when packets move as trains).
    #[inline]
    pub(crate) fn on_flits_accepted(&mut self, node: usize, now: u64, flits: u32) {
        self.delivered_flits += u64::from(flits);
        if self.hot.get(node) == Some(&true) {
            self.hot_delivered_flits += u64::from(flits);
        }
        if self.in_window(now) {
            self.accepted_flits[node] += u64::from(flits);
            if now < self.window_mid {
                self.accepted_first_half[node] += u64::from(flits);
            }
        }
    }

    /// A packet's head flit left its source NIC.
    #[inline]
    pub(crate) fn on_injected(&mut self, packet: &Packet) {
        if packet.network == LogicalNetwork::Request {
            self.pending[packet.dst as usize] += 1;
            self.order.injected(packet.src, packet.dst);
        }
    }

    /// A packet reached its destination (its handler starts, with a processor model).
    pub(crate) fn on_delivered(&mut self, packet: &Packet, now: u64) {
        self.delivered_packets += 1;
        if packet.traced {
            self.traced.delivered += 1;
            self.traced.done_at = now + 1;
        }
        if packet.network == LogicalNetwork::Request {
            self.pending[packet.dst as usize] -= 1;
            let late = self
                .order
                .delivered(packet.src, packet.dst, packet.injected)
                && packet.measured;
            self.out_of_order += u64::from(late);
            let in_window = self.in_window(now);
            self.window_delivered += u64::from(in_window);
            if let Some(flows) = &mut self.flows {
                flows.add(packet.src, packet.dst, packet.flits, now, in_window, late);
            }
            if let Some(log) = &mut self.deliveries {
                log.push(TraceRecord {
                    created: packet.created,
                    src: packet.src,
                    dst: packet.dst,
                    flits: packet.flits,
                    injected: packet.injected,
                    delivered: now,
                });
            }
        }
        self.delivered_latency_sum += now - packet.created;
        if packet.measured {
            let latency = now - packet.created;
            // `record` grows the auto-resizing histogram; `saturating_record` would clamp to its
            // current range. Cycle counts are far below the largest trackable value.
            if self.latency.record(latency).is_err() {
                self.latency.saturating_record(latency);
            }
            self.latency_sum += latency as u128;
            self.network_latency_sum += (now - packet.injected) as u128;
            let wait = packet.injected - packet.created;
            let half = &mut self.queue_wait_halves[usize::from(packet.created >= self.window_mid)];
            half.0 += wait as u128;
            half.1 += 1;
            self.hops_sum += packet.hops as u64;
            if let Some(detoured) = &mut self.detoured {
                *detoured += u64::from(packet.detoured);
            }
            if let Some(zero_load) = &self.zero_load {
                self.zero_load_sum += zero_load.latency_over(
                    f64::from(packet.hops),
                    f64::from(packet.link_cycles),
                    packet.flits,
                );
            }
            self.measured_delivered += 1;
            self.measured_outstanding -= 1;
        }
    }

    /// The latency CDF at up to ~100 points (every distinct recorded value for short runs).
    pub(crate) fn latency_cdf(&self) -> Vec<(u64, f64)> {
        let total = self.latency.len();
        if total == 0 {
            return Vec::new();
        }
        let mut cdf = Vec::new();
        let mut seen = 0u64;
        for step in self.latency.iter_recorded() {
            seen += step.count_at_value();
            cdf.push((step.value_iterated_to(), seen as f64 / total as f64));
        }
        if cdf.len() > 100 {
            let stride = cdf.len().div_ceil(100);
            let last = *cdf.last().expect("non-empty");
            cdf = cdf.into_iter().step_by(stride).collect();
            if cdf.last() != Some(&last) {
                cdf.push(last);
            }
        }
        cdf
    }

    /// Ends an open-ended window (a collective's) at `end`, so rates are per cycle of the run.
    pub(crate) fn close_window(&mut self, end: u64) {
        self.window_end = end.max(self.window_start + 1);
        self.window_mid = self.window_start + (self.window_end - self.window_start) / 2;
    }

    /// Throughput per flow (empty without `record.flows`); the run covered `windows` series
    /// windows.
    pub(crate) fn flow_report(&self, windows: usize) -> Vec<FlowStats> {
        self.flows.as_ref().map_or_else(Vec::new, |log| {
            log.report(self.window_end - self.window_start, windows)
        })
    }

    /// Accepted throughput of every node in the window.
    pub(crate) fn accepted_per_node(&self) -> Vec<f64> {
        let window = (self.window_end - self.window_start) as f64;
        self.accepted_flits
            .iter()
            .map(|&f| f as f64 / window)
            .collect()
    }

    /// Accepted throughput of every node in the first and in the second half of the window.
    pub(crate) fn accepted_halves(&self) -> [Vec<f64>; 2] {
        let first = self.window_mid - self.window_start;
        let second = self.window_end - self.window_mid;
        let rate = |flits: u64, cycles: u64| flits as f64 / cycles.max(1) as f64;
        [
            self.accepted_first_half
                .iter()
                .map(|&f| rate(f, first))
                .collect(),
            self.accepted_flits
                .iter()
                .zip(&self.accepted_first_half)
                .map(|(&all, &f)| rate(all - f, second))
                .collect(),
        ]
    }

    /// The summary of a run that ended at `cycles`, judged stable or not within `limits`.
    pub(crate) fn summary(&self, cycles: u64, drain_cap_hit: bool, limits: &Limits) -> RunSummary {
        let window = (self.window_end - self.window_start) as f64;
        let per_node = |flits: &[u64]| {
            let rate = |f: u64| f as f64 / window;
            let mean = flits.iter().sum::<u64>() as f64 / (flits.len() as f64 * window);
            let spread = Spread {
                min: flits
                    .iter()
                    .copied()
                    .map(rate)
                    .fold(f64::INFINITY, f64::min),
                max: flits.iter().copied().map(rate).fold(0.0, f64::max),
            };
            (mean, spread)
        };
        let (offered, offered_per_node) = per_node(&self.offered_flits);
        let (accepted, accepted_per_node) = per_node(&self.accepted_flits);
        let delivered = self.measured_delivered;
        let mean = |sum: u128| (delivered > 0).then(|| sum as f64 / delivered as f64);
        let quantile = |q: f64| (delivered > 0).then(|| self.latency.value_at_quantile(q));
        let zero_load_latency = self
            .zero_load
            .and((delivered > 0).then(|| self.zero_load_sum / delivered as f64));
        let observed = stability::Observed {
            undrained: drain_cap_hit.then_some((self.measured_outstanding, self.measured_created)),
            offered,
            accepted,
            latency: mean(self.latency_sum),
            zero_load: zero_load_latency,
            queue_wait: self
                .queue_wait_halves
                .map(|(sum, count)| (count > 0).then(|| sum as f64 / count as f64)),
        };
        let judged = stability::judge(&observed, limits);
        let (saturation_cause, saturation_reason) =
            judged.map_or((None, None), |(c, r)| (Some(c), Some(r)));
        RunSummary {
            offered,
            offered_per_node,
            accepted,
            accepted_per_node,
            latency: LatencyStats {
                mean: mean(self.latency_sum),
                p50: quantile(0.5),
                p99: quantile(0.99),
                max: (delivered > 0).then(|| self.latency.max()),
            },
            network_latency: Mean {
                mean: mean(self.network_latency_sum),
            },
            source_queue_latency: Mean {
                mean: mean(self.queue_wait_halves[0].0 + self.queue_wait_halves[1].0),
            },
            hops: Mean {
                mean: (delivered > 0).then(|| self.hops_sum as f64 / delivered as f64),
            },
            packets_measured: self.measured_created,
            packets_delivered: delivered,
            delivered_packets: self.window_delivered,
            packets_refused: self.window_refused,
            saturated: saturation_reason.is_some(),
            saturation_reason,
            saturation_cause,
            detoured: self
                .detoured
                .and_then(|d| (delivered > 0).then(|| d as f64 / delivered as f64)),
            out_of_order: self.out_of_order,
            zero_load_latency,
            cycles,
            flit_hops: 0,
            deadlock_recoveries: 0,
            duration_cycles: None,
            trace_done_cycles: (self.replays_trace() && self.trace_done())
                .then_some(self.traced.done_at),
            critical_load: None,
            wall_seconds: 0.0,
            node_cycles_per_second: 0.0,
            mechanism_counts: std::collections::BTreeMap::new(),
            receive_by_class: None,
            utilisation: std::collections::BTreeMap::new(),
            units: None,
        }
    }
}

/// The share of `cycles` the channels of each class of `topology` were busy, from the flits
/// each port had sent at the start (`before`) and the end (`after`): flits times the channel's
/// cycles per flit, over the class's channels.
pub(crate) fn utilisation(
    topology: &crate::topology::Topology,
    before: &[u64],
    after: &[u64],
    cycles: u64,
) -> std::collections::BTreeMap<String, f64> {
    let mut busy: std::collections::BTreeMap<String, (f64, f64)> = Default::default();
    for (i, port) in topology.ports().iter().enumerate() {
        let Some(class) = topology.channel_class(crate::ids::PortId::new(i)) else {
            continue;
        };
        let entry = busy.entry(class.to_string()).or_default();
        entry.0 += (after[i] - before[i]) as f64 * f64::from(port.output_period);
        entry.1 += 1.0;
    }
    busy.into_iter()
        .map(|(class, (cycles_busy, channels))| {
            (class, cycles_busy / (channels * cycles.max(1) as f64))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delivered(created: u64) -> Packet {
        Packet::new(0, 1, created, created, 4, true, LogicalNetwork::Request)
    }

    #[test]
    fn percentiles_track_long_latencies() {
        let mut c = Collector::new(2, 0, 100);
        for created in 0..100 {
            c.on_created(
                0,
                &Offered {
                    created,
                    dst: 1,
                    flits: 4,
                    network: LogicalNetwork::Request,
                    message_rest: 0,
                    header: 0,
                    control: false,
                    traced: false,
                },
                true,
            );
            c.on_injected(&delivered(created));
        }
        // Latencies 30_000 to 30_099 cycles, far beyond the histogram's initial range.
        for created in 0..100 {
            c.on_delivered(&delivered(created), 30_000 + 2 * created);
        }
        let limits = Limits {
            tolerance: 0.05,
            latency_factor: 10.0,
            queue_growth: 1.0,
            steady: false,
        };
        let s = c.summary(40_000, false, &limits);
        let (p50, p99, max) = (
            s.latency.p50.unwrap(),
            s.latency.p99.unwrap(),
            s.latency.max.unwrap(),
        );
        let mean = s.latency.mean.unwrap();
        // Three significant digits: quantiles within 0.1% of the exact order statistics.
        assert!((p50 as f64 - 30_049.0).abs() < 31.0, "{p50}");
        assert!((p99 as f64 - 30_098.0).abs() < 31.0, "{p99}");
        assert!(p50 <= p99 && p99 <= max && mean <= max as f64 + 31.0);
        assert_eq!(c.latency_cdf().last().map(|&(_, f)| f), Some(1.0));
    }
}
