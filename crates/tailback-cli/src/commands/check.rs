//! `tailback check`: validate a configuration and describe the network it builds.

use serde::Serialize;
use tailback_core::analysis::{
    ClosedForm, OverBudget, ZeroLoad, bisection_links_within, channel_load, channel_load_steps,
    closed_forms, deadlock_cycle, dependency_graph_steps,
};
use tailback_core::cam_cost::CamCost;
use tailback_core::config::{
    BLOCK_BYTES, BufferedConfig, Config, FabricConfig, IsolatingQueues, IsolationConfig,
    PfcThresholds, RoutingAlgorithm,
};
use tailback_core::ids::PortId;
use tailback_core::routing::Routing;
use tailback_core::topology::{Link, Topology};
use tailback_core::traffic::Workload;

use crate::cli::{CheckArgs, Format};
use crate::describe;
use crate::error::CliResult;
use crate::input::load_config;

/// Analyses estimated to take more steps than this are skipped unless `--full` asks for them
/// (a step is a route hop or a dependency: a few nanoseconds).
const ANALYSIS_BUDGET: f64 = 2e9;

/// An analysis left out because of its cost.
#[derive(Serialize)]
struct Skipped {
    /// `channel_load` (the bound, bottleneck, mean hops and zero-load latency),
    /// `dependency_graph` (the deadlock test) or `bisection`.
    analysis: &'static str,
    /// Estimated steps (for `bisection`, the steps taken when it gave up).
    steps: f64,
}

#[derive(Serialize)]
struct Channels {
    router_to_router: usize,
    injection: usize,
    ejection: usize,
}

#[derive(Serialize)]
struct Buffers {
    input_vcs: usize,
    flits_each: u32,
    total_flits: usize,
}

/// What `check` reports.
#[derive(Serialize)]
struct NetworkReport {
    network: String,
    traffic: String,
    /// The buffered (InfiniBand-style) switch rather than virtual-channel routers.
    buffered: bool,
    nodes: usize,
    routers: usize,
    ports_per_router: usize,
    channels: Channels,
    vc_buffers: Buffers,
    vc_classes: usize,
    /// On the buffered fabric with several VC classes: the lanes (a mask) each class takes
    /// in the derived SL-to-VL tables.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    class_lanes: Vec<u32>,
    /// Output ports whose SL-to-VL table the topology file gives.
    #[serde(skip_serializing_if = "is_zero")]
    file_lane_tables: usize,
    /// Fewest links separating the first half of the nodes from the second (`None`: too
    /// large to analyse, or a router holds nodes of both halves).
    bisection_links: Option<usize>,
    /// How stale the global view of a global congestion mechanism can be, cycles: the
    /// self-tuned side-band's gather duration, or the entropy circuit's worst-case refresh.
    #[serde(skip_serializing_if = "Option::is_none")]
    global_view_delay: Option<(String, u64)>,
    /// The routing algorithm (`dor`, `duato`, `disha`, `d_mod_k`, `adaptive_up`).
    routing: RoutingAlgorithm,
    /// Free of permanent deadlock by the dependency graph: DOR's acyclic, Duato's extended
    /// escape graph acyclic, Disha's recovery path acyclic (`None`: network too large to
    /// analyse).
    deadlock_free: Option<bool>,
    /// The channels of a cycle of that graph, in order (output port and VC class), when it
    /// has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    deadlock_cycle: Option<Vec<String>>,
    /// Whether the channel-load rows below are for the workload's own pattern; `false` for a
    /// workload without one (flows, forests, traces, programs), analysed under uniform traffic.
    workload_pattern: bool,
    /// Channel-load bound on throughput for the configured pattern (the first phase's, for a
    /// phased workload), flits/node/cycle.
    ideal_throughput: Option<f64>,
    /// The bound for each phase of a phased workload.
    #[serde(skip_serializing_if = "Option::is_none")]
    phase_ideal_throughput: Option<Vec<f64>>,
    /// The channel that sets the bound.
    bottleneck: Option<String>,
    /// Bounds of a dragonfly's global channels or a HyperX's channels in closed form, for
    /// minimal and Valiant routing (computed at any size).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    closed_forms: Vec<ClosedForm>,
    /// Whether routing chooses by queue lengths (UGAL, PAR): the loads are then those of the
    /// minimal routes, its choice on an empty network.
    adaptive_detours: bool,
    mean_hops: Option<f64>,
    /// Whether packets draw random routing choices, so that the loads, the bound and the mean
    /// hops are expectations over the draws.
    routing_draws: bool,
    /// Latency of a packet over the mean hop count in an empty network, cycles.
    zero_load_latency: Option<f64>,
    /// Analyses skipped for their cost (without `--full`).
    skipped: Vec<Skipped>,
    /// Estimated bytes a run allocates (at light load; `run` and `sweep` refuse runs that do
    /// not fit the machine's available memory).
    memory_bytes: f64,
    /// The channels by cycles per flit (block), with their rates when `fabric.link` sets the
    /// time unit.
    link_rates: Vec<LinkRate>,
    /// Nanoseconds per cycle (with `fabric.link`).
    #[serde(skip_serializing_if = "Option::is_none")]
    cycle_ns: Option<f64>,
    /// Priority flow control's thresholds and headroom (with `fabric.flow_control = "pfc"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pfc: Option<PfcThresholds>,
    /// How a packet given in bytes fills blocks on the wire (with `traffic.packet_bytes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    framing: Option<Framing>,
    /// The CAM storage of each port, with congested-flow isolation: a line per
    /// congested-flow queue at the input and one for each downstream line at the output.
    #[serde(skip_serializing_if = "Option::is_none")]
    cam_per_port: Option<CamCost>,
}

/// A packet's bytes on the wire: its payload, the fabric's framing and the rounding up to whole
/// blocks.
#[derive(Serialize)]
struct Framing {
    payload_bytes: u32,
    overhead_bytes: u32,
    blocks: u32,
    /// Bytes of the last block the frame leaves unused (wire time the model spends and a real
    /// link does not).
    rounding_bytes: u32,
    /// Share of the line rate the payload gets.
    payload_share: f64,
}

impl Framing {
    fn new(cfg: &Config) -> Option<Framing> {
        let payload_bytes = cfg.traffic.packet_bytes?;
        let overhead_bytes = cfg.fabric.frame_overhead()?;
        let blocks = cfg.traffic.packet_flits;
        let wire = blocks * BLOCK_BYTES;
        Some(Framing {
            payload_bytes,
            overhead_bytes,
            blocks,
            rounding_bytes: wire - payload_bytes - overhead_bytes,
            payload_share: f64::from(payload_bytes) / f64::from(wire),
        })
    }

    fn text(&self) -> String {
        format!(
            "{} bytes of payload + {} of framing = {} bytes on the wire, sent as {} blocks ({} \
             bytes of rounding): the payload is {:.1} % of the line rate",
            self.payload_bytes,
            self.overhead_bytes,
            self.payload_bytes + self.overhead_bytes,
            self.blocks,
            self.rounding_bytes,
            100.0 * self.payload_share
        )
    }
}

/// Priority flow control's thresholds and headroom in words.
fn pfc_text(t: PfcThresholds) -> String {
    let h = t.headroom;
    format!(
        "priority flow control: PAUSE at {} blocks, RESUME at {}; headroom {} blocks (twice \
         the longest cable, {} cycles, plus a packet of {} blocks)",
        t.xoff, t.xon, h.blocks, h.cable_cycles, h.packet_blocks
    )
}

/// Channels (router outputs, injection and ejection channels) of one speed.
#[derive(Serialize)]
struct LinkRate {
    /// Cycles per flit (block).
    period: u32,
    channels: usize,
    /// Data rate, Gbit/s (with `fabric.link`).
    #[serde(skip_serializing_if = "Option::is_none")]
    gbps: Option<f64>,
}

/// The channels of `topology` grouped by speed, fastest first (a node's injection channel runs
/// at its ejection channel's speed).
fn link_rates(cfg: &Config, topology: &Topology) -> Vec<LinkRate> {
    let mut by_period: std::collections::BTreeMap<u32, usize> = Default::default();
    for p in topology.ports().iter().filter(|p| p.output != Link::None) {
        // An ejection channel stands for its node's injection channel too.
        let channels = if matches!(p.output, Link::Node(_)) {
            2
        } else {
            1
        };
        *by_period.entry(p.output_period).or_default() += channels;
    }
    let units = cfg.fabric.units();
    by_period
        .into_iter()
        .map(|(period, channels)| LinkRate {
            period,
            channels,
            gbps: units.map(|u| u.link_gbps / f64::from(period)),
        })
        .collect()
}

pub fn run(args: CheckArgs) -> CliResult {
    let cfg = load_config(args.config.as_deref(), &args.source)?;
    // A replayed trace is read whole, so that `check` refuses what `run` would.
    tailback_core::sim::check_trace(&cfg)?;
    let budget = if args.full {
        f64::INFINITY
    } else {
        ANALYSIS_BUDGET
    };
    if let Some(shortfall) = crate::budget::memory_shortfall([&*cfg], 1, None) {
        eprintln!("warning: `run` and `sweep` would refuse this configuration: {shortfall}");
    }
    let report = analyse(&cfg, budget);
    match args.format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(anyhow::Error::from)?
        ),
        Format::Table => {
            let source = args.config.as_deref().map_or_else(
                || "the built-in default".to_string(),
                |path| path.display().to_string(),
            );
            print_table(&source, &report)
        }
    }
    Ok(())
}

/// Describes and analyses `cfg`'s network, skipping analyses estimated at more than `budget`
/// steps.
fn analyse(cfg: &Config, budget: f64) -> NetworkReport {
    let topology = Topology::from_config(cfg);
    let routing = Routing::from_config(cfg, &topology);
    let nodes = topology.node_count();
    let workload = Workload::new(&cfg.traffic, topology.addresses(), cfg.seed);
    let patterns: Vec<_> = (0..workload.phase_count())
        .map(|i| workload.phase_destinations(i))
        .collect();
    let mut skipped = Vec::new();
    let mut affordable = |analysis, steps: f64| {
        let within = steps <= budget;
        if !within {
            skipped.push(Skipped { analysis, steps });
        }
        within
    };
    let load_steps = patterns
        .iter()
        .map(|pattern| channel_load_steps(&topology, &routing, pattern))
        .sum();
    // One channel-load analysis per traffic phase (one for an unphased workload).
    let loads: Vec<_> = if affordable("channel_load", load_steps) {
        patterns
            .iter()
            .map(|pattern| channel_load(&topology, &routing, pattern))
            .collect()
    } else {
        Vec::new()
    };
    let cycle = affordable(
        "dependency_graph",
        dependency_graph_steps(&topology, &routing),
    )
    .then(|| deadlock_cycle(&topology, &routing));
    // The bisection's cost depends on the cut it finds, so it runs until it passes the budget.
    let bisection = match bisection_links_within(&topology, budget.min(u64::MAX as f64) as u64) {
        Ok(links) => links,
        Err(OverBudget { steps }) => {
            affordable("bisection", steps as f64);
            None
        }
    };
    let load = loads.first();
    let inputs = topology
        .ports()
        .iter()
        .filter(|p| p.input != Link::None)
        .count();
    let vcs = cfg.router.vcs as usize;
    let r = &cfg.router;
    NetworkReport {
        network: describe::network(cfg),
        traffic: describe::traffic(cfg),
        buffered: cfg.fabric.kind() == tailback_core::config::FabricKind::Buffered,
        nodes,
        routers: topology.router_count(),
        ports_per_router: topology.max_ports(),
        channels: Channels {
            router_to_router: topology.channel_count(),
            injection: nodes,
            ejection: nodes,
        },
        vc_buffers: Buffers {
            input_vcs: inputs * vcs,
            flits_each: r.vc_buffer_flits,
            total_flits: inputs * vcs * r.vc_buffer_flits as usize,
        },
        vc_classes: routing.classes(),
        file_lane_tables: match topology.layout() {
            tailback_core::topology::Layout::File(file) => file.lane_tables().count(),
            _ => 0,
        },
        class_lanes: if cfg.fabric.kind() == tailback_core::config::FabricKind::Buffered
            && routing.classes() > 1
        {
            (0..routing.classes())
                .map(|k| routing.class_vcs(k))
                .collect()
        } else {
            Vec::new()
        },
        bisection_links: bisection,
        global_view_delay: tailback_core::congestion::view_staleness(&cfg.congestion, &topology),
        routing: cfg.routing.algorithm,
        deadlock_free: cycle.as_ref().map(Option::is_none),
        deadlock_cycle: cycle.flatten().map(|channels| {
            channels
                .iter()
                .map(|&(port, class)| {
                    let name = describe::port_name(&topology, PortId::new(port as usize));
                    format!("{name} (class {class})")
                })
                .collect()
        }),
        workload_pattern: cfg.traffic.process.kind().has_pattern(),
        phase_ideal_throughput: (loads.len() > 1)
            .then(|| loads.iter().map(|l| l.ideal_throughput).collect()),
        ideal_throughput: load.map(|l| l.ideal_throughput),
        bottleneck: load.map(|l| match l.bottleneck {
            Some(port) => describe::port_name(&topology, port),
            None => "the injection channels".to_string(),
        }),
        closed_forms: closed_forms(
            &topology,
            cfg.traffic.pattern,
            cfg.traffic.include_self.unwrap_or(false),
        ),
        adaptive_detours: routing.decisions() > 0,
        mean_hops: load.map(|l| l.mean_hops),
        routing_draws: routing.draws(),
        zero_load_latency: load.map(|l| {
            ZeroLoad::new(cfg, &topology).latency_over(
                l.mean_hops,
                l.mean_link_cycles,
                cfg.traffic.packet_flits,
            )
        }),
        skipped,
        memory_bytes: tailback_core::sim::estimated_bytes(cfg),
        link_rates: link_rates(cfg, &topology),
        cycle_ns: cfg.fabric.units().map(|u| u.cycle_ns),
        framing: Framing::new(cfg),
        pfc: cfg.pfc_thresholds(),
        cam_per_port: match &cfg.fabric {
            FabricConfig::Buffered(BufferedConfig {
                isolation: Some(isolation),
                ..
            }) => Some(CamCost::new(
                topology.node_count() as u32,
                isolation.cam_destinations,
                cam_lines(isolation, topology.max_ports() as u32),
            )),
            _ => None,
        },
    }
}

/// CAM lines per port: with `nfq_cfq` one per CFQ at the input and one per downstream line at
/// the output; with `voq_hpq` one per virtual output queue (the other outputs) and one per HPQ,
/// as EcoCC counts them.
fn cam_lines(isolation: &IsolationConfig, ports: u32) -> u32 {
    match isolation.queues {
        IsolatingQueues::Cfqs { cfqs, .. } => 2 * cfqs,
        IsolatingQueues::Hpqs { hpqs, .. } => ports - 1 + hpqs,
    }
}

/// The channels by speed in words: "18 at 1 cycle per flit (32 Gbit/s), 14 at 2 (16 Gbit/s);
/// The derived SL-to-VL tables: the lanes of each VC class and the service levels they give
/// (empty when packets keep their lane).
fn lane_tables(class_lanes: &[u32]) -> String {
    if class_lanes.is_empty() {
        return String::new();
    }
    let classes: Vec<String> = class_lanes
        .iter()
        .enumerate()
        .map(|(class, &mask)| {
            let lanes: Vec<String> = (0..32)
                .filter(|l| mask >> l & 1 == 1)
                .map(|l| l.to_string())
                .collect();
            format!("class {class} on lane {}", lanes.join("/"))
        })
        .collect();
    let sls = class_lanes
        .iter()
        .map(|m| m.count_ones())
        .min()
        .unwrap_or(1);
    format!(
        "SL-to-VL tables from the routing's classes: {}; {sls} service level(s), each keeping \
         the same place among its class's lanes",
        classes.join(", ")
    )
}

/// a cycle is 16 ns".
fn link_speeds(r: &NetworkReport) -> String {
    let groups: Vec<String> = r
        .link_rates
        .iter()
        .map(|l| {
            let rate = l
                .gbps
                .map_or_else(String::new, |g| format!(" ({g} Gbit/s)"));
            format!("{} at {} cycle(s) per flit{rate}", l.channels, l.period)
        })
        .collect();
    let unit = r.cycle_ns.map_or_else(String::new, |ns| {
        format!("; a cycle is {ns} ns (one 64-byte block on the fastest links)")
    });
    format!("{}{unit}", groups.join(", "))
}

fn print_table(source: &str, r: &NetworkReport) {
    let skipped = |analysis: &str| {
        r.skipped
            .iter()
            .find(|s| s.analysis == analysis)
            .map_or_else(String::new, |s| {
                format!(
                    "skipped: about {:.1e} steps, over the {ANALYSIS_BUDGET:.0e} budget \
                     (--full runs it)",
                    s.steps
                )
            })
    };
    let rows = [
        ("config", format!("{source}: valid")),
        ("network", r.network.clone()),
        ("traffic", r.traffic.clone()),
        (
            "nodes",
            format!(
                "{} nodes, {} routers of {} ports",
                r.nodes, r.routers, r.ports_per_router
            ),
        ),
        (
            "channels",
            format!(
                "{} router-to-router, {} injection, {} ejection",
                r.channels.router_to_router, r.channels.injection, r.channels.ejection
            ),
        ),
        if r.buffered {
            (
                "input pools",
                format!(
                    "{} input lanes x {} blocks = {} blocks; credits per link and lane, one \
                     per block",
                    r.vc_buffers.input_vcs, r.vc_buffers.flits_each, r.vc_buffers.total_flits
                ),
            )
        } else {
            (
                "VC buffers",
                format!(
                    "{} input VCs x {} flits = {} flits",
                    r.vc_buffers.input_vcs, r.vc_buffers.flits_each, r.vc_buffers.total_flits
                ),
            )
        },
        (
            "lanes",
            if r.file_lane_tables > 0 {
                format!(
                    "SL-to-VL tables given by the file for {} output port{} (the others keep \
                     each SL on its own lane)",
                    r.file_lane_tables,
                    if r.file_lane_tables == 1 { "" } else { "s" }
                )
            } else {
                lane_tables(&r.class_lanes)
            },
        ),
        ("link speeds", link_speeds(r)),
        (
            "packets",
            r.framing.as_ref().map_or_else(String::new, Framing::text),
        ),
        ("flow control", r.pfc.map_or_else(String::new, pfc_text)),
        (
            "memory",
            format!(
                "about {} to simulate (estimate, at light load)",
                crate::budget::size(r.memory_bytes)
            ),
        ),
        (
            "CAM per port",
            r.cam_per_port.map_or_else(String::new, |c| {
                format!(
                    "{} lines x ({} CAM + {} SRAM cells) = {} cells, {} bytes (EcoCC's field \
                     widths)",
                    c.lines, c.cam_cells_per_line, c.sram_cells_per_line, c.cells, c.bytes
                )
            }),
        ),
        (
            "bisection",
            match r.bisection_links {
                Some(links) => format!(
                    "{links} link{} between the two halves of the nodes ({:.3} per node)",
                    if links == 1 { "" } else { "s" },
                    links as f64 / r.nodes as f64
                ),
                None if r.skipped.iter().any(|s| s.analysis == "bisection") => skipped("bisection"),
                None => "not defined (a router holds nodes of both halves)".to_string(),
            },
        ),
        (
            "global view",
            match &r.global_view_delay {
                Some((what, cycles)) => format!("{cycles} cycles ({what})"),
                None => String::new(),
            },
        ),
        (
            "deadlock",
            match (r.deadlock_free, r.routing) {
                (Some(true), RoutingAlgorithm::Dor | RoutingAlgorithm::Min) => format!(
                    "free: channel dependency graph over {} VC classes is acyclic",
                    r.vc_classes
                ),
                (
                    Some(true),
                    RoutingAlgorithm::Valiant
                    | RoutingAlgorithm::UgalL
                    | RoutingAlgorithm::UgalG
                    | RoutingAlgorithm::Par,
                ) => format!(
                    "free: the channel dependency graph of every route (each intermediate, \
                     each choice) over {} VC classes is acyclic",
                    r.vc_classes
                ),
                (Some(true), RoutingAlgorithm::Dal) => format!(
                    "free: the channel dependency graph of every route (each hop's every \
                     candidate) over {} VC classes, one per hop, is acyclic",
                    r.vc_classes
                ),
                (Some(true), RoutingAlgorithm::Duato) => format!(
                    "free: the extended dependency graph of the escape channels ({} DOR \
                     classes; direct and indirect dependencies) is acyclic",
                    r.vc_classes
                ),
                (Some(true), RoutingAlgorithm::Table) => {
                    "free: the routes' channel dependency graph is acyclic".to_string()
                }
                (Some(true), RoutingAlgorithm::Adaptive) => "free: the channel dependency \
                     graph over every port the routes list is acyclic"
                    .to_string(),
                (Some(true), RoutingAlgorithm::DestinationTag) => {
                    "free: every route runs forward through the stages, so the dependency \
                     graph is acyclic"
                        .to_string()
                }
                (
                    Some(true),
                    RoutingAlgorithm::DModK
                    | RoutingAlgorithm::AdaptiveUp
                    | RoutingAlgorithm::RandomUp,
                ) => "free: up/down routes never turn from down to up, so the dependency graph \
                     of every minimal hop is acyclic"
                    .to_string(),
                (Some(true), RoutingAlgorithm::Disha) => "recovered: adaptive channels may \
                     deadlock; blocked packets time out and leave one at a time over the \
                     recovery path, whose dependency graph is acyclic"
                    .to_string(),
                (Some(false), _) => {
                    let cycle = r.deadlock_cycle.as_deref().unwrap_or_default();
                    format!(
                        "POSSIBLE: the channel dependency graph has a cycle: {} -> {}",
                        cycle.join(" -> "),
                        cycle.first().map_or("", String::as_str)
                    )
                }
                (None, _) => skipped("dependency_graph"),
            },
        ),
        (
            "load analysis",
            if r.workload_pattern || r.ideal_throughput.is_none() {
                String::new()
            } else {
                "under uniform traffic (the workload has no destination pattern of its own)"
                    .to_string()
            },
        ),
        (
            "ideal throughput",
            match (r.ideal_throughput, &r.bottleneck) {
                (Some(t), Some(b)) => {
                    format!("{t:.4} flits/node/cycle (channel-load bound; busiest: {b})")
                }
                _ => skipped("channel_load"),
            },
        ),
        (
            "",
            if r.adaptive_detours && r.ideal_throughput.is_some() {
                "(over the minimal routes: UGAL, PAR and DAL take them on an empty network)"
                    .to_string()
            } else {
                String::new()
            },
        ),
        ("closed form", closed_form_line(&r.closed_forms)),
        (
            "per phase",
            r.phase_ideal_throughput
                .as_ref()
                .map_or_else(String::new, |bounds| {
                    let listed: Vec<String> = bounds.iter().map(|b| format!("{b:.4}")).collect();
                    format!("ideal throughput {}", listed.join(", "))
                }),
        ),
        (
            "mean hops",
            // Left out with the bound when skipped (its row says so).
            r.mean_hops.map_or_else(String::new, |h| format!("{h:.3}")),
        ),
        (
            "zero-load latency",
            r.zero_load_latency.map_or_else(String::new, |l| {
                format!("{l:.1} cycles at the mean hop count")
            }),
        ),
        (
            "random routing",
            if r.routing_draws && r.ideal_throughput.is_some() {
                "loads and hops are expectations over each packet's random routing choices"
                    .to_string()
            } else {
                String::new()
            },
        ),
    ];
    for (label, value) in rows.iter().filter(|(_, v)| !v.is_empty()) {
        println!("  {label:<19}{value}");
    }
}

/// The closed-form bounds in one line: each routing's value, then the channels and formulas.
fn closed_form_line(forms: &[ClosedForm]) -> String {
    let Some(first) = forms.first() else {
        return String::new();
    };
    let values: Vec<String> = forms
        .iter()
        .map(|f| format!("{} {:.4}", f.routing, f.value))
        .collect();
    let formulas: Vec<&str> = forms.iter().map(|f| f.formula).collect();
    format!(
        "{} flits/node/cycle on the {} channels ({})",
        values.join(", "),
        first.channels,
        formulas.join("; ")
    )
}

/// Whether a count is zero (for skipping it in JSON).
fn is_zero(n: &usize) -> bool {
    *n == 0
}
