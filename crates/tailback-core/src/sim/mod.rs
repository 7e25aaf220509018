//! The simulation loop and the warm-up / measurement / drain methodology.
//!
//! Each cycle: flits and credits due this cycle arrive; sources create packets into their NICs'
//! source queues; NICs consume received flits and inject; routers holding flits route, allocate
//! and switch; the mechanism's end-of-cycle hook runs. Because every channel takes at least one
//! cycle, the order in which components are evaluated within a cycle does not matter. When
//! nothing is in flight and no mechanism needs every cycle, the clock jumps to the next packet
//! creation.

mod footprint;
mod invariants;
mod recorder;

pub use footprint::estimated_bytes;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

use std::path::Path;

use crate::config::{
    BLOCK_BYTES, Choice, Config, ConfigError, ConfigIssue, FabricKind, ProcessConfig, ProcessKind,
    TopologyKind, TraceReplay,
};
use crate::event::{CreditBatch, FlitArrival, PfcFrame, VcSlots, Wheel};
use crate::fabric::{Fabric, StepContext};
use crate::hooks::{Arrivals, BufferEvent, CongestionControl, HookState, NoControl};
use crate::ids::{NodeId, PortId, RouterId};
use crate::nic::{NicContext, NicSet};
use crate::packet::{LogicalNetwork, PacketSlab};
use crate::processor::{ProcessorContext, ProcessorSet};
use crate::router::RouterSet;
use crate::routing::Routing;
use crate::spec::Spec;
use crate::stats::{Collector, Gauges, PauseMap, RunReport, RunSummary, SeriesRow};
use crate::topology::Topology;
use crate::trace::{TraceRecord, TraceSink};
use crate::traffic::{Backlog, NEVER, Offered, Program, Workload};
use crate::view::NetworkView;

/// Totals over the run so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Current cycle.
    pub cycle: u64,
    /// Packets created by all sources (refused ones included).
    pub created_packets: u64,
    /// Packets refused by a full source queue.
    pub refused_packets: u64,
    /// Packets delivered to their destinations.
    pub delivered_packets: u64,
    /// Flits consumed by destination NICs.
    pub delivered_flits: u64,
    /// Packets injected and not yet delivered.
    pub in_flight_packets: u64,
    /// Packets waiting in source queues.
    pub queued_packets: u64,
    /// Router-to-router flit traversals.
    pub flit_hops: u64,
    /// Deadlock recoveries started (Disha).
    pub deadlock_recoveries: u64,
}

/// Why a scripted packet was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OfferError {
    /// A node index beyond the network.
    #[error("node {node} does not exist; the network has nodes 0 to {}", nodes - 1)]
    NoSuchNode {
        /// The node asked for.
        node: NodeId,
        /// Number of nodes.
        nodes: usize,
    },
    /// A packet needs at least one flit.
    #[error("a packet needs at least one flit")]
    EmptyPacket,
    /// Under virtual cut-through a packet must fit in one VC buffer.
    #[error(
        "a {flits}-flit packet does not fit the {buffer}-flit VC buffers whole-packet switching needs"
    )]
    LongerThanBuffer {
        /// Packet length.
        flits: u32,
        /// VC buffer size.
        buffer: u32,
    },
    /// A reply-network packet on a network with one logical network.
    #[error("there is no reply network: set router.logical_networks = 2")]
    NoReplyNetwork,
}

/// One simulation: a built network, its workload and a congestion mechanism, over a fabric of
/// switches (the virtual-channel routers; the fabric boundary is internal, so users name only
/// the mechanism).
#[allow(private_bounds, private_interfaces)]
pub struct Simulation<C: CongestionControl = NoControl, F: Fabric = RouterSet> {
    config: Config,
    topology: Topology,
    routing: Routing,
    workload: Workload,
    /// The switches, their buffers and credits.
    fabric: F,
    /// Numbering of the channel ends flits and credits travel between.
    slots: VcSlots,
    nics: NicSet,
    /// The processors behind the NICs, when modelled.
    processors: Option<ProcessorSet>,
    /// What the mechanism's hooks act on: control packets it sent that the NICs have not
    /// taken yet, its wake-up calls, and the processors' arrivals queues.
    hooks: HookState,
    packets: PacketSlab,
    flit_wheel: Wheel<FlitArrival>,
    credit_wheel: Wheel<u32>,
    /// Credits returned a packet at a time (fabrics that move packets as trains).
    credit_batches: Wheel<CreditBatch>,
    /// Priority flow control's frames (empty without it).
    frames: Wheel<PfcFrame>,
    /// Whether priority flow control paces any lane (frames travel).
    paced: bool,
    /// Next creation time of every source that will create another packet.
    creations: BinaryHeap<Reverse<(u64, u32)>>,
    control: C,
    stats: Collector,
    flit_hops: u64,
    recorder: recorder::Recorder,
    /// Where delivered packets are written, when a trace is.
    trace: Option<TraceSink>,
    now: u64,
}

impl Simulation<NoControl> {
    /// A simulation without congestion management.
    pub fn new(spec: &Spec) -> Result<Self, ConfigError> {
        Simulation::with_control(spec, NoControl)
    }
}

impl<C: CongestionControl> Simulation<C> {
    /// A simulation steered by `control`.
    pub fn with_control(spec: &Spec, control: C) -> Result<Self, ConfigError> {
        Simulation::build(spec, |_, _| control)
    }

    /// A simulation steered by the mechanism `make` builds for the network, over
    /// virtual-channel routers: a configuration of another fabric runs through
    /// [`crate::run`].
    pub fn build(
        spec: &Spec,
        make: impl FnOnce(&Topology, &Routing) -> C,
    ) -> Result<Self, ConfigError> {
        if spec.fabric.kind() != FabricKind::Vc {
            return Err(ConfigError::Invalid(vec![ConfigIssue {
                path: "fabric.kind".into(),
                value: Some(format!("{:?}", spec.fabric.kind().name())),
                message: "a Simulation built in code has virtual-channel routers; run other \
                          fabrics through tailback_core::run"
                    .into(),
            }]));
        }
        Simulation::build_on(spec, make)
    }
}

#[allow(private_bounds)]
impl<C: CongestionControl, F: Fabric> Simulation<C, F> {
    /// A simulation over fabric `F`, steered by the mechanism `make` builds for the network.
    pub(crate) fn build_on(
        spec: &Spec,
        make: impl FnOnce(&Topology, &Routing) -> C,
    ) -> Result<Self, ConfigError> {
        let cfg = spec.config();
        let topology = Topology::from_config(cfg);
        let routing = Routing::new(&cfg.routing, &topology, cfg.router.network_vcs());
        let control = make(&topology, &routing);
        let mut workload = Workload::new(&cfg.traffic, topology.addresses(), cfg.seed);
        let mut traced = 0;
        if let Some(trace) = replayed_trace(cfg) {
            let records = load_trace(cfg, &trace.file, topology.node_count(), trace.time_scale)?;
            traced = records.len() as u64;
            workload = workload.replaying(&records, trace.time_scale);
        }
        match &cfg.traffic.process {
            ProcessConfig::Flows(flows) => {
                let groups = (cfg.topology.kind == TopologyKind::Dragonfly)
                    .then(|| (cfg.topology.dims[0], cfg.topology.dims[1]));
                workload = workload.flowing(flows, groups, cfg.seed, |node| {
                    node_rate(&topology, cfg, node)
                });
            }
            ProcessConfig::Forest(forest) => {
                workload =
                    workload.foresting(forest, cfg.seed, |node| node_rate(&topology, cfg, node));
            }
            _ => {}
        }
        let fabric = F::build(
            spec,
            &topology,
            &routing,
            C::PORT_VL_EVENTS || cfg.record.congested_port_vls,
        );
        let flows = C::FLOWS.then(|| control.flow_capacity(cfg.nic.source_queue_packets));
        let mut nics = NicSet::new(
            &cfg.nic,
            &cfg.router,
            cfg.processor.is_some(),
            &topology,
            flows,
            fabric.room_per_destination(),
            F::trains(),
        );
        if let Some(lane) = spec.priority_lane() {
            nics.reserve_control_lane(lane);
        }
        nics.keep_to_lanes(fabric.injection_lanes());
        let paced = spec.pfc_lanes();
        if paced != 0 {
            nics.pace_lanes(paced);
        }
        if workload.closed_loop() {
            nics.report_starts();
        }
        if routing.draws() || fabric.draws_ties() {
            nics.draw_routes(cfg.seed);
        }
        let program = cfg.traffic.process.program().map(|p| {
            Program::new(
                p,
                cfg.traffic.process.kind() == ProcessKind::Cshift,
                topology.node_count(),
                cfg.traffic.packet_flits,
                cfg.seed,
            )
        });
        let arrivals = cfg.processor.as_ref().map_or_else(Arrivals::default, |p| {
            Arrivals::new(
                topology.node_count(),
                control.arrivals_capacity(p.arrivals_packets) as usize,
            )
        });
        let processors = cfg.processor.as_ref().map(|p| {
            ProcessorSet::new(
                p,
                topology.node_count(),
                cfg.nic.source_queue_packets,
                cfg.seed,
                program,
            )
        });
        let r = &cfg.router;
        // Channels differ in latency only in topology files; take the slowest.
        let max_channel = topology
            .ports()
            .iter()
            .map(|p| p.output_latency)
            .max()
            .unwrap_or(1);
        let max_flit_delay = [
            (r.switch_alloc_delay + r.crossbar_delay + max_channel) as u64,
            cfg.nic.injection_latency as u64,
        ]
        .into_iter()
        .max()
        .unwrap_or(1);
        // Each router port and each NIC sends at most one flit and one credit per cycle, and
        // the recovery lane carries at most one flit per cycle.
        let channel_ends = topology.ports().len() + topology.node_count() + 1;
        let max_flit_delay = max_flit_delay.max(fabric.max_lane_delay(routing.diameter()));
        let max_credit_delay = u64::from(topology.max_credit_delay(r.credit_latency));
        let creations = (0..topology.node_count())
            .filter(|&n| workload.next_time(n) != NEVER)
            .map(|n| Reverse((workload.next_time(n), n as u32)))
            .collect();
        let (window_start, window_end) = measurement_window(cfg);
        let mut stats = Collector::new(topology.node_count(), window_start, window_end);
        stats.expect_traced(traced);
        if cfg.record.series_window > 0 {
            stats.watch_hot(&hot_nodes(&workload, cfg));
        }
        stats.zero_load = Some(crate::analysis::ZeroLoad::new(cfg, &topology));
        if cfg.routing.algorithm.detours() {
            stats.detoured = Some(0);
        }
        if cfg.record.flows {
            let windows = if cfg.record.flow_totals_only {
                0
            } else {
                cfg.record.series_window
            };
            stats.flows = Some(crate::stats::FlowLog::new(windows));
        }
        let watch = cfg.record.congested_port_vls.then(|| {
            let from = match cfg.record.port_vl_span {
                crate::config::PortVlSpan::SecondHalf => (window_start + window_end) / 2,
                crate::config::PortVlSpan::Run => 0,
            };
            crate::stats::PortVlWatch::new(
                from,
                window_end.saturating_sub(1),
                topology.ports().len(),
                cfg.router.vcs as usize,
                cfg.router.vc_buffer_flits,
            )
        });
        let pauses = cfg
            .pfc_thresholds()
            .map(|_| recorder::PauseWindows::new(&topology, cfg.router.vcs as usize));
        let recorder = recorder::Recorder::new(&cfg.record, &topology, watch, pauses);
        Ok(Simulation {
            config: cfg.clone(),
            topology,
            routing,
            workload,
            slots: nics.slots(),
            fabric,
            hooks: HookState {
                arrivals,
                ..HookState::default()
            },
            nics,
            processors,
            packets: PacketSlab::default(),
            flit_wheel: Wheel::new(max_flit_delay, channel_ends),
            credit_wheel: Wheel::new(max_credit_delay, channel_ends),
            credit_batches: Wheel::new(
                r.credit_latency as u64,
                if F::trains() { channel_ends } else { 0 },
            ),
            // A port raises at most a PAUSE and a RESUME a cycle, over its link's latency.
            frames: Wheel::new(
                max_flit_delay,
                if paced != 0 { 2 * channel_ends } else { 0 },
            ),
            paced: paced != 0,
            creations,
            control,
            stats,
            flit_hops: 0,
            recorder,
            trace: None,
            now: 0,
        })
    }

    /// The current cycle (the next one [`step`](Self::step) simulates).
    pub fn now(&self) -> u64 {
        self.now
    }

    /// The network.
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// The routing function.
    pub fn routing(&self) -> &Routing {
        &self.routing
    }

    /// The congestion mechanism.
    pub fn control(&self) -> &C {
        &self.control
    }

    /// Totals so far.
    pub fn progress(&self) -> Progress {
        Progress {
            cycle: self.now,
            created_packets: self.stats.created_packets,
            refused_packets: self.stats.refused_packets,
            delivered_packets: self.stats.delivered_packets,
            delivered_flits: self.stats.delivered_flits,
            in_flight_packets: self.packets.live() as u64,
            queued_packets: self.queued_packets(),
            flit_hops: self.flit_hops,
            deadlock_recoveries: self.fabric.recoveries(),
        }
    }

    /// Simulates one cycle.
    pub fn step(&mut self) {
        let now = self.now;
        self.deliver_arrivals(now);
        self.create_packets(now);
        self.hooks.outbox.now = now;
        if self.hooks.timers.next_due() <= now {
            self.fire_timers(now);
        }
        if let Some(processors) = &mut self.processors {
            processors.step_all(&mut ProcessorContext {
                now,
                nics: &mut self.nics,
                packets: &mut self.packets,
                stats: &mut self.stats,
                control: &mut self.control,
                hooks: &mut self.hooks,
            });
            self.post_control_packets();
        }
        self.nics.wake_due(now);
        if self.nics.any_active() {
            let view = NetworkView::new(&self.fabric, &self.topology, &self.routing, now);
            self.nics.step_all(&mut NicContext {
                now,
                view: &view,
                packets: &mut self.packets,
                flits: &mut self.flit_wheel,
                credits: &mut self.credit_wheel,
                credit_batches: &mut self.credit_batches,
                control: &mut self.control,
                stats: &mut self.stats,
                hooks: &mut self.hooks,
            });
            self.hand_control_packets(now);
            self.post_control_packets();
            self.wake_sources(now);
        }
        if self.fabric.any_active() {
            let mut cx = StepContext {
                now,
                routing: &self.routing,
                packets: &mut self.packets,
                flits: &mut self.flit_wheel,
                credits: &mut self.credit_wheel,
                credit_batches: &mut self.credit_batches,
                frames: &mut self.frames,
                control: &mut self.control,
                flit_hops: &mut self.flit_hops,
                hooks: &mut self.hooks,
            };
            self.fabric.step(&mut cx);
            let nics = &mut self.nics;
            self.fabric.wake_adapters(&mut |node| nics.wake(node));
            self.post_control_packets();
        }
        if C::PER_CYCLE {
            let view = NetworkView::new(&self.fabric, &self.topology, &self.routing, now);
            let mut cx = self.hooks.context(now);
            self.control.end_of_cycle(&mut cx, &view);
            self.post_control_packets();
        }
        if now == self.recorder.next_due() {
            self.record(now);
        }
        if self.config.sim.check_invariants {
            invariants::check(self);
        }
        if let (Some(trace), Some(log)) = (&mut self.trace, &mut self.stats.deliveries)
            && !log.is_empty()
        {
            trace.write(log);
            log.clear();
        }
        self.now += 1;
    }

    /// Simulates until cycle `end` (exclusive), skipping idle stretches.
    pub fn run_until(&mut self, end: u64) {
        self.run_until_or(end, false);
    }

    /// Runs until cycle `end`, or (with `trace_ends`) until the replayed trace's last packet
    /// has arrived.
    fn run_until_or(&mut self, end: u64, trace_ends: bool) {
        while self.now < end && !(trace_ends && self.stats.trace_done()) {
            self.skip_idle(end);
            if self.now < end {
                self.step();
            }
        }
    }

    /// Runs the configured methodology and reports on the measured packets: warm-up,
    /// measurement and drain; a collective until every packet is delivered; or a ramp to its
    /// top load.
    pub fn run(self) -> RunReport {
        self.run_observed(u64::MAX, |_| {})
    }

    /// Like [`run`](Self::run), calling `observer` about every `every` simulated cycles (for
    /// progress display).
    pub fn run_observed(self, every: u64, observer: impl FnMut(&Progress)) -> RunReport {
        self.run_inner(every, observer).0
    }

    /// Like [`run_observed`](Self::run_observed), writing every delivered workload packet to
    /// `out` as a trace line ([`crate::trace`]) as it is delivered; returns the report and the
    /// number of packets written (or the first write error).
    pub fn run_traced(
        mut self,
        every: u64,
        observer: impl FnMut(&Progress),
        out: Box<dyn std::io::Write + Send>,
    ) -> (RunReport, std::io::Result<u64>) {
        self.trace = Some(TraceSink::new(out));
        self.stats.deliveries = Some(Vec::new());
        let (report, trace) = self.run_inner(every, observer);
        let written = trace.map_or(Ok(0), TraceSink::finish);
        (report, written)
    }

    /// Runs the methodology; returns the report and the trace sink, if any.
    fn run_inner(
        mut self,
        every: u64,
        mut observer: impl FnMut(&Progress),
    ) -> (RunReport, Option<TraceSink>) {
        let started = Instant::now();
        let every = every.max(1);
        let (window_start, window_end) = measurement_window(&self.config);
        let process = self.config.traffic.process.kind();
        let mut sent_at_start = None;
        let mut utilisation = Default::default();
        // Runs that last until their packets are delivered (a collective, a cyclic shift, a
        // trace) end by `drain_cycles_max` (after the trace's last packet); ramps and
        // bulk-synchronous runs at the window's end.
        let until_delivered = process.until_delivered();
        let drain = self.config.sim.drain_cycles_max;
        let mut drain_end = match process {
            ProcessKind::Ramp | ProcessKind::Bsp => window_end,
            ProcessKind::Trace => self.last_creation().saturating_add(drain).max(1),
            _ if until_delivered => drain.max(1),
            _ => window_end + drain,
        };
        if process == ProcessKind::Collective {
            // All packets are created in cycle 0; then wait for the last delivery.
            self.step();
        } else if !until_delivered {
            // A trace beside flows ends the run when its last packet arrives.
            let beside = process == ProcessKind::Flows && self.stats.replays_trace();
            // The channels' flits at the window's start and end, for their utilisation.
            for end in [window_start, window_end] {
                while self.now < end && !(beside && self.stats.trace_done()) {
                    self.run_until_or(end.min(self.now.saturating_add(every)), beside);
                    observer(&self.progress());
                }
                if end == window_start && self.now == window_start {
                    sent_at_start = self.fabric.port_flits();
                }
            }
            if let (Some(before), Some(after)) = (&sent_at_start, self.fabric.port_flits()) {
                utilisation = crate::stats::utilisation(
                    &self.topology,
                    before,
                    &after,
                    self.now - window_start,
                );
            }
            if self.now < window_end {
                self.stats.close_window(self.now);
                drain_end = self.now;
            }
        }
        while (self.stats.measured_outstanding > 0 || !self.workload_finished())
            && self.now < drain_end
        {
            self.skip_idle(drain_end);
            if self.now < drain_end {
                self.step();
            }
            if self.now.is_multiple_of(every) {
                observer(&self.progress());
            }
        }
        let drain_cap_hit = (self.stats.measured_outstanding > 0 || !self.workload_finished())
            && !matches!(process, ProcessKind::Ramp | ProcessKind::Bsp);
        if until_delivered {
            self.stats.close_window(self.now);
        }
        let wall = started.elapsed().as_secs_f64();
        let sim = &self.config.sim;
        let limits = crate::stats::Limits {
            tolerance: sim.stability_tolerance,
            latency_factor: sim.stability_latency_factor,
            queue_growth: sim.stability_queue_growth,
            steady: matches!(process, ProcessKind::Bernoulli | ProcessKind::Periodic),
        };
        let mut summary = self.stats.summary(self.now, drain_cap_hit, &limits);
        summary.flit_hops = self.flit_hops;
        summary.utilisation = utilisation;
        summary.deadlock_recoveries = self.fabric.recoveries();
        summary.wall_seconds = wall;
        summary.node_cycles_per_second =
            self.topology.node_count() as f64 * self.now as f64 / wall.max(1e-9);
        let series = std::mem::take(&mut self.recorder.series);
        let accepted_per_node = self.stats.accepted_per_node();
        let hot = hot_nodes(&self.workload, &self.config);
        summary.receive_by_class = crate::stats::ReceiveByClass::new(
            &accepted_per_node,
            &self.stats.accepted_halves(),
            &hot,
        );
        summary.mechanism_counts = self
            .control
            .counts()
            .into_iter()
            .chain(self.fabric.counts())
            .map(|(name, count)| (name.to_string(), count))
            .collect();
        let traffic = &self.config.traffic;
        let payload_share = traffic
            .packet_bytes
            .map(|bytes| f64::from(bytes) / f64::from(traffic.packet_flits * BLOCK_BYTES));
        summary.units = self
            .config
            .fabric
            .units()
            .map(|units| crate::stats::UnitSummary::new(&summary, units, payload_share));
        match process {
            _ if until_delivered => {
                summary.duration_cycles = (!drain_cap_hit).then_some(self.now);
            }
            ProcessKind::Ramp => self.conclude_ramp(&mut summary, &series),
            _ => {}
        }
        let flows = self.stats.flow_report(series.len());
        let port_vls = self.recorder.port_vls.report(series.len());
        let (congested_port_vls, port_vl_map) = match &self.recorder.watch {
            Some(watch) => {
                let owners: Vec<(u32, u8)> = self
                    .topology
                    .ports()
                    .iter()
                    .map(|p| (p.router.index() as u32, p.local))
                    .collect();
                let ports = (0..self.topology.router_count())
                    .map(|r| self.topology.router_ports(RouterId::new(r)).len() as u8)
                    .collect();
                (watch.congested(&owners), Some(watch.map(&owners, ports)))
            }
            None => (Vec::new(), None),
        };
        let report = RunReport {
            summary,
            latency_cdf: self.stats.latency_cdf(),
            accepted_per_node,
            series,
            occupancy: std::mem::take(&mut self.recorder.occupancy),
            pending: std::mem::take(&mut self.recorder.pending),
            flow_gauge: (!flows.is_empty())
                .then_some(C::FLOW_GAUGE)
                .flatten()
                .map(str::to_string),
            flows,
            port_vls,
            congested_port_vls,
            port_vl_map,
            hot_nodes: hot,
            pauses: self.pause_map(),
        };
        (report, self.trace.take())
    }

    /// Priority flow control's pauses over the run (`None` without it).
    fn pause_map(&mut self) -> Option<PauseMap> {
        let recorded = self.recorder.pauses.take()?;
        let (now, vls) = (self.now, self.config.router.vcs as usize);
        let topo_ports = self.topology.ports();
        let ports: Vec<(u32, u32, u8)> = recorded
            .ports
            .iter()
            .map(|&i| {
                (
                    i as u32,
                    topo_ports[i].router.index() as u32,
                    topo_ports[i].local,
                )
            })
            .collect();
        let paused_cycles = ports
            .iter()
            .map(|&(port, _, _)| {
                (0..vls)
                    .map(|vl| {
                        self.fabric
                            .paused_cycles(PortId::new(port as usize), vl, now)
                            .unwrap_or(0)
                    })
                    .collect()
            })
            .collect();
        let pauses = &self.nics.pauses;
        let adapters = (0..self.topology.node_count())
            .map(|node| {
                (0..vls)
                    .map(|vl| {
                        if pauses.paces(vl) {
                            pauses.clocks.paused_cycles(self.nics.local(node, vl), now)
                        } else {
                            0
                        }
                    })
                    .collect()
            })
            .collect();
        Some(PauseMap {
            ports,
            paused_cycles,
            windows: recorded.windows,
            adapters,
            cycles: now,
            peak_pool_blocks: self.fabric.peak_paced_pool(),
        })
    }

    /// Finds a ramp's critical load in its series and words its saturation accordingly.
    fn conclude_ramp(&self, summary: &mut RunSummary, series: &[SeriesRow]) {
        let ProcessConfig::Ramp(ramp) = &self.config.traffic.process else {
            return;
        };
        let window = self.config.record.series_window;
        let offered = crate::ramp::nominal_offered(series, window, ramp.slope);
        let throughput: Vec<f64> = series.iter().map(|row| row.delivered).collect();
        summary.critical_load =
            crate::ramp::critical_load(&offered, &throughput, ramp.smoothing as usize, ramp.drop);
        summary.saturated = summary.critical_load.is_some();
        summary.saturation_cause = summary
            .critical_load
            .map(|_| crate::stats::SaturationCause::Ramp);
        summary.saturation_reason = summary.critical_load.map(|load| {
            format!(
                "smoothed throughput fell {:.0}% below the ramp's offered load at {load:.4} \
                 flits/node/cycle",
                ramp.drop * 100.0
            )
        });
    }

    /// Adds a packet of `flits` flits from `src` to `dst`, created now, to the back of `src`'s
    /// source queue (whatever its limit; with a processor model, its software queue), besides
    /// the configured workload. Use it to script
    /// traffic in tests and tools; [`step`](Self::step) then moves it like any other packet.
    pub fn offer(&mut self, src: NodeId, dst: NodeId, flits: u32) -> Result<(), OfferError> {
        self.offer_on(LogicalNetwork::Request, src, dst, flits)
    }

    /// Like [`offer`](Self::offer), on logical network `network`: a reply-network packet waits
    /// in the NIC's reply queue, goes before its requests, uses the reply VCs and is not counted
    /// as offered load or measured (its flits do count as accepted).
    pub fn offer_on(
        &mut self,
        network: LogicalNetwork,
        src: NodeId,
        dst: NodeId,
        flits: u32,
    ) -> Result<(), OfferError> {
        if network == LogicalNetwork::Reply && self.config.router.logical_networks < 2 {
            return Err(OfferError::NoReplyNetwork);
        }
        let nodes = self.topology.node_count();
        for node in [src, dst] {
            if node.index() >= nodes {
                return Err(OfferError::NoSuchNode { node, nodes });
            }
        }
        if flits == 0 {
            return Err(OfferError::EmptyPacket);
        }
        if self.config.router.switching.whole_packets()
            && flits > self.config.router.vc_buffer_flits
        {
            return Err(OfferError::LongerThanBuffer {
                flits,
                buffer: self.config.router.vc_buffer_flits,
            });
        }
        let packet = Offered {
            created: self.now,
            dst: dst.index() as u32,
            flits,
            network,
            message_rest: 0,
            header: 0,
            control: false,
            traced: false,
        };
        match (network, &mut self.processors) {
            // The application's packets go through the processor when there is one.
            (LogicalNetwork::Request, Some(processors)) => {
                self.stats.on_created(src.index(), &packet, true);
                processors.enqueue(src.index(), packet);
            }
            (LogicalNetwork::Request, None) => {
                self.stats.on_created(src.index(), &packet, true);
                self.nics.enqueue(src.index(), packet);
            }
            (LogicalNetwork::Reply, _) => self.nics.enqueue(src.index(), packet),
        }
        Ok(())
    }

    /// Whether the workload has created all its packets: a closed-loop workload has sent them
    /// all; a trace has none left.
    fn workload_finished(&self) -> bool {
        let replayed =
            self.config.traffic.process.kind() != ProcessKind::Trace || self.creations.is_empty();
        replayed
            && self
                .processors
                .as_ref()
                .is_none_or(ProcessorSet::program_finished)
    }

    /// The creation time of the workload's last packet (a trace's; 0 when there is none).
    fn last_creation(&self) -> u64 {
        (0..self.topology.node_count())
            .filter_map(|n| self.workload.last_time(n))
            .max()
            .unwrap_or(0)
    }

    /// Records the time series, snapshots and per-flow values due at the end of cycle `now`.
    fn record(&mut self, now: u64) {
        let window_ends = self.recorder.window_ends(now);
        let mut port_vls = Vec::new();
        if window_ends {
            self.control.port_vl_totals(now + 1, &mut port_vls);
            if let (Some(log), Some(_)) = (&mut self.stats.flows, C::FLOW_GAUGE) {
                let control = &self.control;
                log.sample(self.recorder.series.len(), |src, dst| {
                    control.flow_gauge(NodeId::new(src as usize), dst, now + 1)
                });
            }
        }
        self.recorder.record(
            now,
            &recorder::Sample {
                fabric: &self.fabric,
                stats: &self.stats,
                in_flight_packets: self.packets.live() as u64,
                queued_packets: self.queued_packets(),
                throttled_node_cycles: self.control.throttled_node_cycles(),
                gauges: self.gauges(),
                port_vls,
            },
        );
    }

    /// The mechanism's named values now.
    fn gauges(&self) -> Gauges {
        let mut values = vec![None; C::GAUGES.len()];
        self.control.gauges(self.now, &mut values);
        let fabric = self.fabric.gauges();
        let names: Vec<&str> = C::GAUGES
            .iter()
            .copied()
            .chain(fabric.iter().map(|&(name, _)| name))
            .collect();
        values.extend(fabric.iter().map(|&(_, value)| Some(value)));
        Gauges::new(&names, &values)
    }

    /// Packets created and not yet injected: in NIC queues and processors' software queues.
    fn queued_packets(&self) -> u64 {
        let software = self
            .processors
            .as_ref()
            .map_or(0, ProcessorSet::queued_packets);
        (self.nics.queued_packets() + software) as u64
    }

    /// Runs the mechanism's timers due by `now`; each wakes its node's NIC.
    fn fire_timers(&mut self, now: u64) {
        let view = NetworkView::new(&self.fabric, &self.topology, &self.routing, now);
        while let Some(node) = self.hooks.timers.pop_due(now) {
            let mut cx = self.hooks.context(now);
            self.control.on_timer(&mut cx, &view, NodeId::new(node));
            self.nics.wake(node);
        }
        self.post_control_packets();
    }

    /// Moves the control packets the mechanism sent into their source NICs.
    fn post_control_packets(&mut self) {
        for sent in self.hooks.outbox.packets.drain(..) {
            self.nics.enqueue(sent.src.index(), sent.packet);
        }
    }

    /// Hands the control packets that reached their destinations this cycle to the mechanism.
    fn hand_control_packets(&mut self, now: u64) {
        if self.nics.control_inbox.is_empty() {
            return;
        }
        let mut inbox = std::mem::take(&mut self.nics.control_inbox);
        for &(node, slot) in &inbox {
            let packet = self.packets.remove(slot);
            let mut cx = self.hooks.context(now);
            self.control
                .on_control(&mut cx, NodeId::new(node as usize), &packet);
        }
        inbox.clear();
        self.nics.control_inbox = inbox;
    }

    /// Jumps the clock to the next packet creation (at most `limit`) when nothing is moving.
    fn skip_idle(&mut self, limit: u64) {
        if C::PER_CYCLE
            || self.processors.is_some()
            || self.config.sim.check_invariants
            || self.flit_wheel.pending() > 0
            || self.credit_wheel.pending() > 0
            || (F::trains() && self.credit_batches.pending() > 0)
            || (self.paced && self.frames.pending() > 0)
            || self.fabric.any_active()
            || self.nics.any_active()
        {
            return;
        }
        let next = self
            .creations
            .peek()
            .map_or(NEVER, |Reverse((t, _))| *t)
            .min(self.hooks.timers.next_due())
            .min(self.nics.next_wake());
        if next > self.now {
            self.now = next.min(limit).min(self.recorder.next_due());
        }
    }

    fn deliver_arrivals(&mut self, now: u64) {
        let slots = self.slots;
        for &FlitArrival { to, flit } in self.flit_wheel.due(now) {
            let to = to as usize;
            // A train brings its whole packet.
            let blocks = if F::trains() {
                self.packets.get(flit.packet()).flits
            } else {
                1
            };
            if slots.is_router(to) {
                let at = self.fabric.accept_flit(to, flit, blocks);
                if C::BUFFER_EVENTS {
                    let event = BufferEvent {
                        router: RouterId::new(at.router),
                        port: at.port,
                        vc: slots.vc(to) as u8,
                        occupancy: at.occupancy,
                        capacity: self.fabric.buffer_credits(),
                        out_port: None,
                    };
                    let mut cx = self.hooks.context(now);
                    self.control.on_enqueue(&mut cx, event);
                }
            } else if to < slots.recovery_base as usize {
                let nic = to - slots.nic_base as usize;
                let (node, vc) = (slots.owner(nic), slots.vc(nic) as u8);
                if F::trains() {
                    self.nics.receive_train(node, vc, flit, blocks, now);
                } else {
                    self.nics.receive(node, vc, flit);
                }
            } else {
                self.nics
                    .receive_recovered(to - slots.recovery_base as usize, flit);
            }
        }
        self.flit_wheel.clear(now);
        for &to in self.credit_wheel.due(now) {
            let to = to as usize;
            if slots.is_router(to) {
                self.fabric.add_credit(to);
            } else {
                let nic = to - slots.nic_base as usize;
                self.nics
                    .add_credits(slots.owner(nic), slots.vc(nic) as u8, 1);
            }
        }
        self.credit_wheel.clear(now);
        if F::trains() {
            for &CreditBatch { to, count } in self.credit_batches.due(now) {
                let to = to as usize;
                if slots.is_router(to) {
                    self.fabric.add_credits(to, count);
                } else {
                    let nic = to - slots.nic_base as usize;
                    self.nics
                        .add_credits(slots.owner(nic), slots.vc(nic) as u8, count as u16);
                }
            }
            self.credit_batches.clear(now);
            self.fabric.credits_delivered(now);
        }
        if self.paced {
            for &PfcFrame { to, pause } in self.frames.due(now) {
                let to = to as usize;
                if slots.is_router(to) {
                    self.fabric.pause_frame(to, pause, now);
                } else {
                    let nic = to - slots.nic_base as usize;
                    self.nics
                        .pause_frame(slots.owner(nic), slots.vc(nic), pause, now);
                }
            }
            self.frames.clear(now);
        }
    }

    fn create_packets(&mut self, now: u64) {
        while let Some(&Reverse((t, node))) = self.creations.peek() {
            if t > now {
                break;
            }
            self.creations.pop();
            let node = node as usize;
            if self.workload.next_time(node) != t {
                // A stale entry: a source that waited for its adapter was scheduled again.
                continue;
            }
            let adapters = Adapters {
                nics: &self.nics,
                control: &self.control,
                now,
            };
            let Some(packet) = self.workload.take_at(node, &adapters) else {
                self.schedule_creation(node);
                continue;
            };
            if let Some(processors) = &mut self.processors {
                // The application's packets wait for the processor to send them.
                self.stats.on_created(node, &packet, true);
                processors.enqueue(node, packet);
            } else {
                let queued =
                    self.nics
                        .has_room_for(node, packet.dst, self.config.nic.source_queue_packets);
                self.stats.on_created(node, &packet, queued);
                if queued {
                    self.nics.enqueue(node, packet);
                }
            }
            self.schedule_creation(node);
        }
    }

    /// Puts `node`'s next creation, if any, on the calendar.
    fn schedule_creation(&mut self, node: usize) {
        let next = self.workload.next_time(node);
        if next != NEVER {
            self.creations.push(Reverse((next, node as u32)));
        }
    }

    /// Sources that waited for their adapters and may create messages again, after the NICs
    /// started requests.
    fn wake_sources(&mut self, now: u64) {
        let Some(mut started) = self.nics.started.take() else {
            return;
        };
        for &node in &started {
            let adapters = Adapters {
                nics: &self.nics,
                control: &self.control,
                now,
            };
            if self.workload.started(node as usize, now, &adapters) {
                self.schedule_creation(node as usize);
            }
        }
        started.clear();
        self.nics.started = Some(started);
    }
}

/// The channel adapters as the workload's closed-loop sources see them at `now`: the requests
/// waiting there, and which queues congestion control holds back.
struct Adapters<'a, C> {
    nics: &'a NicSet,
    control: &'a C,
    now: u64,
}

impl<C: CongestionControl> Backlog for Adapters<'_, C> {
    fn queued_for(&self, node: usize, dst: u32) -> usize {
        self.nics.queued_for(node, dst)
    }

    fn queued(&self, node: usize) -> usize {
        self.nics.queued(node)
    }

    fn has_unheld(&self, node: usize) -> bool {
        let held = |dst| self.control.send_time(NodeId::new(node), dst, self.now) > self.now;
        if C::PACING {
            self.nics.waiting(node).any(|dst| !held(dst))
        } else {
            self.nics.queued(node) > 0
        }
    }
}

/// The workload's hot destinations, sorted: a forest's hot spots, else those of the traffic
/// (a hot-spot pattern's, or the destinations of two or more flows).
fn hot_nodes(workload: &Workload, cfg: &Config) -> Vec<u32> {
    workload
        .forest_hotspots()
        .unwrap_or_else(|| crate::stats::hot_destinations(&cfg.traffic))
}

/// The fastest `node` may send, flits per cycle: its injection cap, or its link's rate.
fn node_rate(topology: &Topology, cfg: &Config, node: usize) -> f64 {
    let port = topology.ejection_port(NodeId::new(node));
    let link = 1.0 / f64::from(topology.ports()[port.index()].output_period);
    cfg.nic.inject_rate.map_or(link, |rate| rate.min(link))
}

/// Reads the packet trace `spec` replays (alone or beside flows), as a run would, refusing what
/// a run refuses; without a trace, nothing to read. For `tailback check`, which otherwise only
/// validates the configuration.
pub fn check_trace(spec: &Spec) -> Result<(), ConfigError> {
    let cfg = spec.config();
    if let Some(trace) = replayed_trace(cfg) {
        load_trace(cfg, &trace.file, spec.node_count(), trace.time_scale)?;
    }
    Ok(())
}

/// The trace `cfg` replays, alone (`process = "trace"`) or beside its flows.
fn replayed_trace(cfg: &Config) -> Option<&TraceReplay> {
    match &cfg.traffic.process {
        ProcessConfig::Trace(trace) => Some(trace),
        ProcessConfig::Flows(flows) => flows.trace.as_ref(),
        _ => None,
    }
}

/// The packets of the trace at `path` with creation times to be scaled by `time_scale`, as a
/// problem with `traffic.trace_file` if the file is unreadable or a packet does not fit the
/// network or the run's time.
fn load_trace(
    cfg: &Config,
    path: &str,
    nodes: usize,
    time_scale: f64,
) -> Result<Vec<TraceRecord>, ConfigError> {
    let problem = |message: String| {
        ConfigError::Invalid(vec![ConfigIssue {
            path: "traffic.trace_file".into(),
            value: Some(format!("{path:?}")),
            message,
        }])
    };
    let records = crate::trace::read(Path::new(path), nodes).map_err(|e| problem(e.to_string()))?;
    crate::trace::check_times(&records, time_scale).map_err(problem)?;
    let buffer = cfg.router.vc_buffer_flits;
    if cfg.router.switching.whole_packets()
        && let Some(long) = records.iter().find(|r| r.flits > buffer)
    {
        return Err(problem(format!(
            "a {}-flit packet (created at cycle {}) does not fit the {buffer}-flit VC buffers \
             {} needs",
            long.flits,
            long.created,
            cfg.router.switching.name().replace('_', " ")
        )));
    }
    Ok(records)
}

/// The cycles whose packets are measured: after the warm-up for the measurement window; every
/// packet of a collective; the whole ramp.
fn measurement_window(cfg: &Config) -> (u64, u64) {
    match cfg.traffic.process.kind() {
        ProcessKind::Collective | ProcessKind::Cshift | ProcessKind::Trace => (0, NEVER),
        ProcessKind::Ramp => (0, cfg.traffic.ramp_cycles().unwrap_or(1)),
        _ => (
            cfg.sim.warmup_cycles,
            cfg.sim.warmup_cycles + cfg.sim.measure_cycles,
        ),
    }
}
