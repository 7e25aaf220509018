//! The analytical congestion predictor (Heirman, Dambre and Van Campenhout, Ghent University): packet
//! latency from queueing theory instead of simulation.
//!
//! Every channel (each node's injection channel and each router output port, ejection ports
//! included) is a queue whose server is the link: a packet of `F` flits occupies a channel of
//! `P` cycles per flit for `S = F·P` cycles. Routing every packet of the workload along its
//! deterministic route gives, per channel and per time interval of length `T`, the arrival
//! rate `λ`, the utilisation `ρ = Σ S / T` and `E[S²]`, and the Pollaczek–Khinchin mean wait of
//! an M/G/1 queue,
//!
//! ```text
//! E[W] = λ E[S²] / (2 (1 − ρ))
//! ```
//!
//! With the *incoming-link correction* a packet arriving through input port `i` of a router
//! cannot queue behind packets from the same input (a link delivers one packet at a time), so
//! its wait at an output is computed from the traffic of the other inputs only. A packet's
//! latency is the sum of its waits plus the zero-load latency of its route ([`ZeroLoad`]); the
//! prediction is the mean over packets. A channel with `ρ ≥ 1`
//! cannot carry its load: no finite latency is predicted for the interval, and the channel is
//! reported; channels with `ρ > 0.9` are flagged as highly utilised, where the model is least
//! reliable.
//!
//! The workload is either a pattern at a rate (one stationary interval: `λ` per pair from the
//! pattern's distribution) or a packet trace cut into intervals by creation time.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::analysis::ZeroLoad;
use crate::config::{Config, ConfigError, ProcessConfig};
use crate::ids::{NodeId, PortId};
use crate::routing::Routing;
use crate::spec::Spec;
use crate::topology::{Link, Topology};
use crate::trace::{TraceError, TraceRecord};
use crate::traffic::{Destinations, Workload};

/// Utilisation above which a channel counts as highly utilised.
pub const BUSY_RHO: f64 = 0.9;

/// A channel of the queueing model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// The injection channel of a node.
    Injection(u32),
    /// A router output port (a link to another router, or an ejection channel).
    Output(u32),
}

/// The load of one channel in one interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LinkLoad {
    /// The channel.
    pub channel: Channel,
    /// Index of the interval.
    pub interval: usize,
    /// Packets per cycle.
    pub lambda: f64,
    /// Utilisation: busy cycles per cycle.
    pub rho: f64,
}

/// The queueing model of one channel in one interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ChannelModel {
    /// The channel.
    pub channel: Channel,
    /// Packets per cycle (λ).
    pub lambda: f64,
    /// Utilisation (ρ).
    pub rho: f64,
    /// Mean squared service time, cycles² (E[S²]).
    pub service_square: f64,
    /// Pollaczek–Khinchin mean wait of a packet arriving from anywhere, cycles (`None` when
    /// saturated); with the correction each input sees less.
    pub wait: Option<f64>,
}

/// The prediction for one interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IntervalPrediction {
    /// First cycle of the interval.
    pub start: u64,
    /// Length of the interval, cycles.
    pub cycles: u64,
    /// Packets created in the interval (packets per cycle for a pattern).
    pub packets: f64,
    /// Mean packet latency, cycles (`None`: some channel is saturated).
    pub latency: Option<f64>,
    /// Mean queueing wait per packet, cycles.
    pub waiting: Option<f64>,
    /// The highest channel utilisation.
    pub max_rho: f64,
    /// Every channel carrying traffic in the interval (only when asked for:
    /// [`PredictOptions::channels`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub channels: Vec<ChannelModel>,
}

/// How to predict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PredictOptions {
    /// Apply the incoming-link correction.
    pub correction: bool,
    /// Cut a trace into intervals of this many cycles (`None`: one interval).
    pub interval: Option<u64>,
    /// Report every channel's model in every interval.
    pub channels: bool,
}

impl PredictOptions {
    /// One interval, no per-channel detail; the correction if `correction`.
    pub fn new(correction: bool) -> PredictOptions {
        PredictOptions {
            correction,
            interval: None,
            channels: false,
        }
    }

    /// Intervals of `cycles` cycles for a trace.
    pub fn interval(mut self, cycles: Option<u64>) -> PredictOptions {
        self.interval = cycles;
        self
    }

    /// Every channel's model in the result.
    pub fn channels(mut self, channels: bool) -> PredictOptions {
        self.channels = channels;
        self
    }
}

/// Mean latencies over all packets and intervals.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PredictedLatency {
    /// Mean packet latency, cycles (`None` when a channel any packet uses is saturated).
    pub mean: Option<f64>,
    /// Mean queueing wait, cycles.
    pub waiting: Option<f64>,
    /// Mean zero-load latency of the packets' routes, cycles.
    pub zero_load: f64,
}

/// What the predictor says about a workload on a network.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prediction {
    /// Packet latency.
    pub latency: PredictedLatency,
    /// The highest channel utilisation over all intervals, but for a last interval shorter
    /// than half the first (a trace's tail, where a few packets over a few cycles inflate the
    /// figure) when there are others.
    pub max_link_rho: f64,
    /// The cycles of the short last interval left out of `max_link_rho`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub short_tail_cycles: Option<u64>,
    /// Channels with `ρ ≥ 1` in some interval, most loaded first.
    pub saturated: Vec<LinkLoad>,
    /// Channels with `0.9 < ρ < 1` in some interval, most loaded first.
    pub busy: Vec<LinkLoad>,
    /// Per interval.
    pub intervals: Vec<IntervalPrediction>,
    /// Whether the incoming-link correction was applied.
    pub correction: bool,
}

/// Why there is no prediction.
#[derive(Debug, thiserror::Error)]
pub enum PredictError {
    /// The configuration is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The trace could not be read.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// The workload is not one the predictor models.
    #[error("{0}")]
    Workload(String),
}

/// A group of identical packets of one interval: `count` packets (or packets per cycle) of
/// `flits` flits from `src` to `dst`.
#[derive(Debug, Clone, Copy)]
struct Flow {
    src: u32,
    dst: u32,
    flits: u32,
    count: f64,
}

/// The flows of one interval: listed (a trace's), or a pattern's from every source at a rate,
/// made a block of sources at a time so that an all-to-all pattern on a large network never
/// holds all its node² flows at once.
enum Flows<'a> {
    Listed(Vec<Flow>),
    Pattern {
        destinations: &'a Destinations,
        nodes: usize,
        flits: u32,
        /// Packets per node per cycle.
        rate: f64,
    },
}

impl Flows<'_> {
    /// Sources per block of a pattern's flows.
    const BLOCK: usize = 64;

    /// Calls `visit` with the flows, a block at a time.
    fn each_block(&self, mut visit: impl FnMut(&[Flow])) {
        match self {
            Flows::Listed(flows) => visit(flows),
            Flows::Pattern {
                destinations,
                nodes,
                flits,
                rate,
            } => {
                let mut block = Vec::new();
                for first in (0..*nodes).step_by(Self::BLOCK) {
                    block.clear();
                    for src in first..(first + Self::BLOCK).min(*nodes) {
                        destinations.distribution(src as u32, |dst, p| {
                            block.push(Flow {
                                src: src as u32,
                                dst,
                                flits: *flits,
                                count: rate * p,
                            });
                        });
                    }
                    visit(&block);
                }
            }
        }
    }
}

/// Per-channel sums of one interval: packets, service time and squared service time, in
/// total and per router input port the packets came through.
struct Sums {
    /// Ports per router (the width of the per-input tables).
    radix: usize,
    total: Vec<[f64; 3]>,
    by_input: Vec<[f64; 3]>,
}

impl Sums {
    fn new(channels: usize, radix: usize) -> Sums {
        Sums {
            radix,
            total: vec![[0.0; 3]; channels],
            by_input: vec![[0.0; 3]; channels * radix],
        }
    }

    fn clear(&mut self) {
        self.total.fill([0.0; 3]);
        self.by_input.fill([0.0; 3]);
    }

    fn add(&mut self, channel: usize, input: Option<usize>, count: f64, service: f64) {
        let add = |s: &mut [f64; 3]| {
            s[0] += count;
            s[1] += count * service;
            s[2] += count * service * service;
        };
        add(&mut self.total[channel]);
        if let Some(input) = input {
            add(&mut self.by_input[channel * self.radix + input]);
        }
    }
}

/// The predictor for one network: its topology and routing.
pub struct Predictor<'a> {
    zero_load: ZeroLoad,
    topology: &'a Topology,
    routing: &'a Routing,
    correction: bool,
    /// Report every channel's model.
    detail: bool,
}

impl<'a> Predictor<'a> {
    /// A predictor for `topology` routed by `routing` with `cfg`'s router and NIC timing;
    /// `correction` applies the incoming-link correction.
    pub fn new(
        cfg: &'a Config,
        topology: &'a Topology,
        routing: &'a Routing,
        correction: bool,
    ) -> Predictor<'a> {
        Predictor {
            zero_load: ZeroLoad::new(cfg, topology),
            topology,
            routing,
            correction,
            detail: false,
        }
    }

    /// Reports every channel's model in every interval.
    pub fn with_channels(mut self) -> Predictor<'a> {
        self.detail = true;
        self
    }

    /// Predicts the packets of a trace (sorted by creation time), cut into intervals of
    /// `interval` cycles (`None`: one interval spanning the trace).
    pub fn predict_trace(&self, records: &[TraceRecord], interval: Option<u64>) -> Prediction {
        let last = records.last().map_or(0, |r| r.created);
        let first = records.first().map_or(0, |r| r.created);
        let length = interval.unwrap_or(last - first + 1).max(1);
        let mut groups: Vec<(u64, u64, Flows)> = Vec::new();
        let mut start = 0;
        while start < records.len() {
            let begin = first + (records[start].created - first) / length * length;
            let end = records[start..]
                .partition_point(|r| r.created < begin.saturating_add(length))
                + start;
            let mut keys: Vec<(u32, u32, u32)> = records[start..end]
                .iter()
                .map(|r| (r.src, r.dst, r.flits))
                .collect();
            keys.sort_unstable();
            let mut flows: Vec<Flow> = Vec::new();
            for (src, dst, flits) in keys {
                match flows.last_mut() {
                    Some(f) if (f.src, f.dst, f.flits) == (src, dst, flits) => f.count += 1.0,
                    _ => flows.push(Flow {
                        src,
                        dst,
                        flits,
                        count: 1.0,
                    }),
                }
            }
            // The last interval ends with the trace.
            let cycles = length.min(last + 1 - begin);
            groups.push((begin, cycles, Flows::Listed(flows)));
            start = end;
        }
        self.predict_intervals(&groups)
    }

    /// Predicts a stationary workload: `flows` of packets per cycle.
    fn predict_rates(&self, flows: Flows) -> Prediction {
        self.predict_intervals(&[(0, 1, flows)])
    }

    fn predict_intervals(&self, groups: &[(u64, u64, Flows)]) -> Prediction {
        let ports = self.topology.ports().len();
        let nodes = self.topology.node_count();
        let mut sums = Sums::new(ports + nodes, self.topology.max_ports());
        let mut intervals = Vec::with_capacity(groups.len());
        let mut loads: Vec<LinkLoad> = Vec::new();
        let (mut packets, mut latency_sum, mut wait_sum, mut zero_sum) = (0.0, 0.0, 0.0, 0.0);
        let mut saturated_any = false;
        // Packets and expected router-to-router hops by packet length.
        let mut lengths: BTreeMap<u32, (f64, f64, f64)> = BTreeMap::new();
        for (index, (start, cycles, flows)) in groups.iter().enumerate() {
            let t = *cycles as f64;
            sums.clear();
            lengths.clear();
            flows.each_block(|block| self.load(block, &mut sums, &mut lengths));
            let mut max_rho: f64 = 0.0;
            let mut channels = Vec::new();
            for (channel, s) in sums.total.iter().enumerate() {
                let rho = s[1] / t;
                max_rho = max_rho.max(rho);
                if self.detail && s[0] > 0.0 {
                    channels.push(ChannelModel {
                        channel: self.channel(channel),
                        lambda: s[0] / t,
                        rho,
                        service_square: s[2] / s[0],
                        wait: (rho < 1.0).then(|| s[2] / t / (2.0 * (1.0 - rho))),
                    });
                }
                if rho > BUSY_RHO {
                    loads.push(LinkLoad {
                        channel: self.channel(channel),
                        interval: index,
                        lambda: s[0] / t,
                        rho,
                    });
                }
            }
            let saturated = max_rho >= 1.0;
            saturated_any |= saturated;
            // Each channel's packets wait its wait (the zero-load latency is linear in the hops
            // and channel cycles, so each length's means give its packets' total).
            let wait = self.total_wait(&sums, t);
            let (mut n, mut zero) = (0.0, 0.0);
            for (&flits, &(count, hops, cycles)) in &lengths {
                n += count;
                zero += count
                    * self
                        .zero_load
                        .latency_over(hops / count, cycles / count, flits);
            }
            let lat = wait + zero;
            zero_sum += zero;
            packets += n;
            latency_sum += lat;
            wait_sum += wait;
            let mean = |x: f64| (n > 0.0 && !saturated).then(|| x / n);
            intervals.push(IntervalPrediction {
                start: *start,
                cycles: *cycles,
                packets: n,
                latency: mean(lat),
                waiting: mean(wait),
                max_rho,
                channels,
            });
        }
        loads.sort_by(|a, b| b.rho.total_cmp(&a.rho));
        let (saturated, busy): (Vec<LinkLoad>, Vec<LinkLoad>) =
            loads.into_iter().partition(|l| l.rho >= 1.0);
        let overall = |x: f64| (packets > 0.0 && !saturated_any).then(|| x / packets);
        let short_tail = match &intervals[..] {
            [first, .., last] if 2 * last.cycles < first.cycles => Some(last.cycles),
            _ => None,
        };
        Prediction {
            latency: PredictedLatency {
                mean: overall(latency_sum),
                waiting: overall(wait_sum),
                zero_load: if packets > 0.0 {
                    zero_sum / packets
                } else {
                    0.0
                },
            },
            max_link_rho: intervals[..intervals.len() - usize::from(short_tail.is_some())]
                .iter()
                .map(|i| i.max_rho)
                .fold(0.0, f64::max),
            short_tail_cycles: short_tail,
            saturated,
            busy,
            intervals,
            correction: self.correction,
        }
    }

    /// The mean wait on `channel` of packets that came in through local input `input` (`None`:
    /// an injection channel) in an interval of `t` cycles with sums `sums` (infinite on a
    /// saturated channel).
    fn wait(&self, sums: &Sums, channel: usize, input: Option<usize>, t: f64) -> f64 {
        let total = sums.total[channel];
        if total[1] / t >= 1.0 {
            return f64::INFINITY;
        }
        let [_, busy, square] = match (self.correction, input) {
            (true, Some(input)) => {
                let mine = sums.by_input[channel * sums.radix + input];
                [total[0] - mine[0], total[1] - mine[1], total[2] - mine[2]]
            }
            _ => total,
        };
        // λ E[S²] = Σ S² / T.
        let rho = (busy / t).max(0.0);
        (square / t).max(0.0) / (2.0 * (1.0 - rho))
    }

    /// The waits of every packet of an interval of `t` cycles with sums `sums`, summed: each
    /// channel's packets by the input they came in through, times their wait.
    fn total_wait(&self, sums: &Sums, t: f64) -> f64 {
        let outputs = self.topology.ports().len();
        let mut total = 0.0;
        for (channel, s) in sums.total.iter().enumerate().filter(|(_, s)| s[0] > 0.0) {
            if channel >= outputs {
                total += s[0] * self.wait(sums, channel, None, t);
                continue;
            }
            for input in 0..sums.radix {
                let n = sums.by_input[channel * sums.radix + input][0];
                if n > 0.0 {
                    total += n * self.wait(sums, channel, Some(input), t);
                }
            }
        }
        total
    }

    /// Adds the packets of `flows` to the channels of their routes (each route weighted by its
    /// probability), and to `lengths` their number, expected router-to-router hops and cycles
    /// on those channels by packet length.
    fn load(&self, flows: &[Flow], sums: &mut Sums, lengths: &mut BTreeMap<u32, (f64, f64, f64)>) {
        let topology = self.topology;
        let ports = topology.ports();
        for f in flows {
            let src = NodeId::new(f.src as usize);
            let period = f64::from(ports[topology.ejection_port(src).index()].output_period);
            sums.add(
                ports.len() + src.index(),
                None,
                f.count,
                f64::from(f.flits) * period,
            );
            lengths.entry(f.flits).or_default().0 += f.count;
        }
        let mut add = |flits: u32, port: PortId, input: PortId, count: f64| {
            let p = &ports[port.index()];
            let first = topology.router_ports(p.router).start;
            let service = f64::from(flits) * f64::from(p.output_period);
            sums.add(port.index(), Some(input.index() - first), count, service);
            if matches!(p.output, Link::Router(_)) {
                let length = lengths.entry(flits).or_default();
                length.1 += count;
                length.2 += count * f64::from(p.output_latency);
            }
        };
        if self.routing.pooled_tree().is_none() {
            for f in flows {
                let (src, dst) = (NodeId::new(f.src as usize), NodeId::new(f.dst as usize));
                self.routing
                    .spread(topology, src, dst, |port, input, share| {
                        add(f.flits, port, input, f.count * share);
                    });
            }
            return;
        }
        // Random up ports: per packet length, each source's packets climb together and each
        // destination's descend once.
        let mut order: Vec<&Flow> = flows.iter().collect();
        order.sort_by_key(|f| (f.flits, f.src));
        let mut mass = vec![0.0f64; topology.node_count()];
        for group in order.chunk_by(|a, b| a.flits == b.flits) {
            let flits = group[0].flits;
            let mut tree = self.routing.pooled_tree().expect("random-up routing");
            for source in group.chunk_by(|a, b| a.src == b.src) {
                for f in source {
                    mass[f.dst as usize] += f.count;
                }
                let src = NodeId::new(source[0].src as usize);
                tree.climb(topology, src, &mass, &mut |port, input, n| {
                    add(flits, port, input, n)
                });
                for f in source {
                    mass[f.dst as usize] = 0.0;
                }
            }
            tree.descend(topology, &mut |port, input, n| add(flits, port, input, n));
        }
    }

    fn channel(&self, index: usize) -> Channel {
        let ports = self.topology.ports().len();
        if index < ports {
            Channel::Output(index as u32)
        } else {
            Channel::Injection((index - ports) as u32)
        }
    }
}

/// Predicts `cfg`'s workload on `cfg`'s network: a pattern at a rate (Bernoulli or periodic,
/// one phase) or a trace (`traffic.process = "trace"`, cut into intervals as `options` say).
pub fn predict(spec: &Spec, options: &PredictOptions) -> Result<Prediction, PredictError> {
    let cfg = spec.config();
    let topology = Topology::from_config(cfg);
    let routing = Routing::from_config(cfg, &topology);
    let mut predictor = Predictor::new(cfg, &topology, &routing, options.correction);
    if options.channels {
        predictor = predictor.with_channels();
    }
    let interval = options.interval;
    let t = &cfg.traffic;
    match (&t.process, &t.phases) {
        (ProcessConfig::Trace(trace), _) => {
            let mut records =
                crate::trace::read(std::path::Path::new(&trace.file), topology.node_count())?;
            crate::trace::check_times(&records, trace.time_scale).map_err(|message| {
                PredictError::Workload(format!("traffic.trace_file = {:?}: {message}", trace.file))
            })?;
            if records.is_empty() {
                return Err(PredictError::Workload(format!(
                    "traffic.trace_file = {:?} holds no packets: there is nothing to predict",
                    trace.file
                )));
            }
            for r in &mut records {
                r.created = (r.created as f64 * trace.time_scale).round() as u64;
            }
            Ok(predictor.predict_trace(&records, interval))
        }
        (ProcessConfig::Bernoulli | ProcessConfig::Periodic { .. }, None) => {
            let workload = Workload::new(t, topology.addresses(), cfg.seed);
            Ok(predictor.predict_rates(Flows::Pattern {
                destinations: workload.destinations(),
                nodes: topology.node_count(),
                flits: t.packet_flits,
                rate: t.rate / f64::from(t.packet_flits),
            }))
        }
        _ => Err(PredictError::Workload(format!(
            "the predictor models open-loop traffic: a pattern at a rate (traffic.process = \
             \"bernoulli\" or \"periodic\", without phases) or a trace (traffic.process = \
             \"trace\"); traffic.process = \"{}\"{}",
            t.process.kind(),
            if t.phases.is_some() {
                " with phases"
            } else {
                ""
            }
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pattern's flows made a block of sources at a time predict what the whole list does.
    #[test]
    fn pattern_flows_in_blocks_predict_what_the_listed_flows_do() {
        for routing in ["", "[routing]\nalgorithm = \"random_up\"\n"] {
            let kind = if routing.is_empty() {
                "[topology]\nk = 16\n"
            } else {
                "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 4\n"
            };
            let text = format!("{kind}{routing}[traffic]\nrate = 0.2\n");
            let spec = Spec::from_toml_str(&text, "<test>").unwrap();
            let cfg = spec.config();
            let topology = Topology::from_config(cfg);
            assert!(topology.node_count() > 2 * Flows::BLOCK);
            let routing = Routing::from_config(cfg, &topology);
            let predictor = Predictor::new(cfg, &topology, &routing, true).with_channels();
            let workload = Workload::new(&cfg.traffic, topology.addresses(), cfg.seed);
            let pattern = Flows::Pattern {
                destinations: workload.destinations(),
                nodes: topology.node_count(),
                flits: cfg.traffic.packet_flits,
                rate: 0.2 / f64::from(cfg.traffic.packet_flits),
            };
            let mut listed = Vec::new();
            pattern.each_block(|block| listed.extend_from_slice(block));
            let blocks = predictor.predict_rates(pattern);
            let whole = predictor.predict_rates(Flows::Listed(listed));
            let (a, b) = (blocks.latency.mean.unwrap(), whole.latency.mean.unwrap());
            assert!((a - b).abs() < 1e-9, "{text}: {a} vs {b}");
            assert!(
                (blocks.max_link_rho - whole.max_link_rho).abs() < 1e-12,
                "{text}"
            );
        }
    }
}
