//! Human-readable descriptions of configurations and results.

use tailback_core::config::{
    Choice, Config, FabricConfig, ProcessConfig, RoutingAlgorithm, TopologyKind,
};
use tailback_core::ids::PortId;
use tailback_core::stats::RunSummary;
use tailback_core::topology::{CubeShape, Layout, Link, Topology};

/// "8x8 torus", "5x3x2 mesh", "4-ary 3-tree", "2-level folded Clos of 36-port switches",
/// "4-ary 3-fly".
pub fn shape(cfg: &Config) -> String {
    let dims: Vec<String> = cfg.topology.dims.iter().map(u32::to_string).collect();
    match (&cfg.topology.layout, cfg.topology.kind) {
        (Layout::Cube(_), TopologyKind::Mesh) => format!("{} mesh", dims.join("x")),
        (Layout::Cube(_), _) => format!("{} torus", dims.join("x")),
        (Layout::Tree(tree), TopologyKind::KaryNtree) => {
            format!("{}-ary {}-tree", tree.down(0), tree.levels())
        }
        (Layout::Tree(tree), TopologyKind::FoldedClos) => format!(
            "{}-level folded Clos of {}-port switches",
            tree.levels(),
            tree.radix()
        ),
        (Layout::Tree(tree), _) => format!("{}-node CM-5 fat tree", tree.nodes()),
        (Layout::Fly(fly), _) if fly.is_random() => format!(
            "{}-ary {}-stage multibutterfly, dilation {}",
            fly.k(),
            fly.stages(),
            fly.dilation()
        ),
        (Layout::Fly(fly), _) => format!("{}-ary {}-fly", fly.k(), fly.stages()),
        (Layout::Dragonfly(fly), _) => format!(
            "dragonfly of {} groups of {} routers (p = {}, h = {}, {} arrangement)",
            fly.groups(),
            fly.a(),
            fly.p(),
            fly.h(),
            fly.arrangement()
        ),
        (Layout::HyperX(x), _) => {
            let switches: Vec<String> = x.dims().iter().map(u32::to_string).collect();
            let trunks = if x.trunking().iter().all(|&k| k == 1) {
                String::new()
            } else {
                let t: Vec<String> = x.trunking().iter().map(u32::to_string).collect();
                format!(", trunking {}", t.join("x"))
            };
            format!(
                "{} HyperX, {} nodes per switch{trunks}",
                switches.join("x"),
                x.terminals()
            )
        }
        // The file's name, not its whole path: the shape titles plots.
        (Layout::File(file), _) => format!(
            "{} ({} switches, {} nodes)",
            cfg.topology
                .file
                .as_deref()
                .map(|path| std::path::Path::new(path)
                    .file_name()
                    .map_or(path.into(), |name| name.to_string_lossy()))
                .unwrap_or("topology file".into()),
            file.switches(),
            file.nodes()
        ),
    }
}

/// One line naming the network, router and routing.
pub fn network(cfg: &Config) -> String {
    let r = &cfg.router;
    let classes = match (&cfg.routing.datelines, cfg.topology.kind) {
        (None, TopologyKind::Torus) => ", wrap-around VC classes".into(),
        (Some(lines), TopologyKind::Torus) => format!(", datelines at {lines:?}"),
        _ => String::new(),
    };
    let switches = match &cfg.fabric {
        FabricConfig::Vc => format!(
            "{} VCs x {} flits, {}, {} allocator",
            r.vcs,
            r.vc_buffer_flits,
            r.switching.name().replace('_', " "),
            r.allocator.name(),
        ),
        FabricConfig::Buffered(b) => format!(
            "buffered switches ({} queues, {} read ports{}, {} lane{} x {} blocks per input, \
             latency {} cycles)",
            b.queues.name(),
            b.read_ports
                .map_or_else(|| "unlimited".to_string(), |n| n.to_string()),
            b.islip_iterations
                .map_or_else(String::new, |n| format!(", iSLIP x {n}")),
            r.vcs,
            if r.vcs == 1 { "" } else { "s" },
            r.vc_buffer_flits,
            b.switch_latency,
        ),
    };
    format!(
        "{}, {switches}, {}{classes}",
        shape(cfg),
        match cfg.routing.algorithm {
            RoutingAlgorithm::DModK => "destination-mod-k up/down routing".to_string(),
            RoutingAlgorithm::AdaptiveUp => "adaptive-up up/down routing".to_string(),
            RoutingAlgorithm::RandomUp => "random-up up/down routing".to_string(),
            RoutingAlgorithm::DestinationTag => "destination-tag routing".to_string(),
            RoutingAlgorithm::Table => "table routing".to_string(),
            other => other.name().to_uppercase(),
        },
    )
}

/// The congestion mechanism in words, with NIFDY's parameters (`None` without a mechanism).
pub fn mechanism(cfg: &Config) -> Option<String> {
    tailback_core::congestion::describe(&cfg.congestion)
}

/// The traffic pattern's name in words ("bit complement").
pub fn pattern(cfg: &Config) -> String {
    cfg.traffic.pattern.name().replace('_', " ")
}

/// A short plot title: "8x8 torus, uniform at 0.2" (or "8x8 torus, 6-phase schedule").
pub fn title(cfg: &Config) -> String {
    if let Some(workload) = program(cfg).or_else(|| replay(cfg)) {
        return format!("{}, {workload}", shape(cfg));
    }
    match &cfg.traffic.phases {
        Some(phases) => format!("{}, {}-phase schedule", shape(cfg), phases.len()),
        None => format!("{}, {} at {}", shape(cfg), pattern(cfg), cfg.traffic.rate),
    }
}

/// The closed-loop workload in words ("heavy bulk-synchronous", "cyclic shift with
/// barriers"), if the traffic is one.
fn program(cfg: &Config) -> Option<String> {
    let program = cfg.traffic.process.program()?;
    let barriers = if program.barriers {
        "with barriers"
    } else {
        "without barriers"
    };
    Some(match program.load {
        Some(load) => format!("{} bulk-synchronous", load.name()),
        None => format!("cyclic shift {barriers}"),
    })
}

/// A trace replay in words ("replay of run.trace at 2x time"), if the traffic is one.
fn replay(cfg: &Config) -> Option<String> {
    let ProcessConfig::Trace(trace) = &cfg.traffic.process else {
        return None;
    };
    let name = std::path::Path::new(&trace.file)
        .file_name()
        .map_or(trace.file.clone(), |n| n.to_string_lossy().into_owned());
    Some(match trace.time_scale {
        scale if scale != 1.0 => format!("replay of {name}, times x{scale}"),
        _ => format!("replay of {name}"),
    })
}

/// Flows or a congestion forest in words, if the traffic is one.
fn messages(cfg: &Config) -> Option<String> {
    let packets = cfg.traffic.packet_flits;
    match &cfg.traffic.process {
        ProcessConfig::Flows(f) => Some(format!(
            "{} flows, {}-flit messages in {packets}-flit packets",
            f.flows.len(),
            f.message_flits
        )),
        ProcessConfig::Forest(f) => {
            let percent = |x: f64| format!("{:.0} %", x * 100.0);
            let b = if f.b_nodes > 0.0 {
                format!(
                    "{} B nodes (hot share {}), ",
                    percent(f.b_nodes),
                    percent(f.b_share)
                )
            } else {
                String::new()
            };
            let moving = f
                .hotspot_lifetime
                .map_or(String::new(), |c| format!(", moving every {c} cycles"));
            let quiet = if f.hot_traffic {
                ""
            } else {
                ", hot sources off"
            };
            Some(format!(
                "congestion forest: {} hot spots{moving}, {b}the rest {} C / {} V{quiet}; \
                 {}-flit messages in {packets}-flit packets",
                f.hotspots,
                percent(f.contributors),
                percent(1.0 - f.contributors),
                f.message_flits
            ))
        }
        _ => None,
    }
}

/// One line naming the workload.
pub fn traffic(cfg: &Config) -> String {
    let t = &cfg.traffic;
    if let Some(replay) = replay(cfg) {
        return replay;
    }
    if let Some(messages) = messages(cfg) {
        return messages;
    }
    if let (Some(name), Some(p)) = (program(cfg), t.process.program()) {
        let [low, high] = p.phase_packets;
        let count = if low == high {
            low.to_string()
        } else {
            format!("{low} to {high}")
        };
        return format!(
            "{name}: {count} packets per node and phase, {}-flit packets",
            t.packet_flits
        );
    }
    let load = match &t.phases {
        Some(phases) => {
            let steps: Vec<String> = phases
                .iter()
                .map(|p| {
                    format!(
                        "{} at {} for {}",
                        p.pattern.name().replace('_', " "),
                        p.rate,
                        p.cycles
                    )
                })
                .collect();
            let repeat = if t.repeat_phases.unwrap_or(true) {
                ", repeated"
            } else {
                ""
            };
            format!("phases: {}{repeat}", steps.join("; "))
        }
        None => format!("{} traffic at {} flits/node/cycle", pattern(cfg), t.rate),
    };
    format!(
        "{load}, {}-flit packets, {} process",
        t.packet_flits,
        t.process.kind().name()
    )
}

fn opt(value: Option<f64>, decimals: usize) -> String {
    value.map_or_else(|| "-".to_string(), |v| format!("{v:.decimals$}"))
}

fn opt_int(value: Option<u64>) -> String {
    value.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// The summary of one run as aligned `label  value` lines.
pub fn summary_table(s: &RunSummary) -> String {
    let delivered = if s.packets_delivered == s.packets_measured {
        "all delivered".to_string()
    } else {
        format!("{} delivered", s.packets_delivered)
    };
    let rows = [
        (
            "offered",
            format!(
                "{:.4} flits/node/cycle (nodes {:.4} to {:.4})",
                s.offered, s.offered_per_node.min, s.offered_per_node.max
            ),
        ),
        (
            "accepted",
            format!(
                "{:.4} flits/node/cycle (nodes {:.4} to {:.4})",
                s.accepted, s.accepted_per_node.min, s.accepted_per_node.max
            ),
        ),
        (
            "packet latency",
            format!(
                "mean {}  p50 {}  p99 {}  max {} cycles",
                opt(s.latency.mean, 1),
                opt_int(s.latency.p50),
                opt_int(s.latency.p99),
                opt_int(s.latency.max)
            ),
        ),
        (
            "network latency",
            format!("mean {} cycles", opt(s.network_latency.mean, 1)),
        ),
        (
            "source queue",
            format!("mean {} cycles", opt(s.source_queue_latency.mean, 1)),
        ),
        ("hops", format!("mean {}", opt(s.hops.mean, 3))),
        (
            "packets measured",
            format!("{} ({delivered})", s.packets_measured),
        ),
        (
            "delivered",
            match s.duration_cycles {
                Some(duration) => format!(
                    "{} packets in the window; all in {duration} cycles",
                    s.delivered_packets
                ),
                None => format!("{} packets in the window", s.delivered_packets),
            },
        ),
        (
            "saturated",
            match &s.saturation_reason {
                Some(reason) => format!("yes: {reason}"),
                None => "no".to_string(),
            },
        ),
        (
            "simulated",
            format!(
                "{} cycles in {:.2} s ({:.2} M node-cycles/s)",
                s.cycles,
                s.wall_seconds,
                s.node_cycles_per_second / 1e6
            ),
        ),
    ];
    let mut rows = rows.to_vec();
    if let Some(u) = &s.units {
        let us = |x: Option<f64>| x.map_or_else(|| "-".to_string(), |x| format!("{x:.3}"));
        rows.insert(
            2,
            (
                "per node",
                format!(
                    "offered {:.3} Gbit/s, accepted {:.3} Gbit/s{}",
                    u.offered_gbps,
                    u.accepted_gbps,
                    u.goodput_gbps
                        .map(|g| format!(" on the wire, {g:.3} of payload"))
                        .unwrap_or_default()
                ),
            ),
        );
        rows.insert(
            4,
            (
                "",
                format!(
                    "mean {}  p99 {} µs",
                    us(u.latency_mean_us),
                    us(u.latency_p99_us)
                ),
            ),
        );
        rows.push((
            "time unit",
            format!(
                "a cycle is {} ns (one 64-byte block at {} Gbit/s); {:.1} µs simulated",
                u.cycle_ns, u.link_gbps, u.simulated_us
            ),
        ));
    }
    if let (Some(done), None) = (s.trace_done_cycles, s.duration_cycles) {
        let time = s.units.map_or_else(String::new, |u| {
            format!(" ({:.1} µs)", done as f64 * u.cycle_ns / 1000.0)
        });
        rows.push((
            "trace done",
            format!("all its packets in {done} cycles{time}"),
        ));
    }
    if !s.mechanism_counts.is_empty() {
        let counts: Vec<String> = s
            .mechanism_counts
            .iter()
            .map(|(name, count)| format!("{count} {name}"))
            .collect();
        rows.push(("mechanism", counts.join(", ")));
    }
    if let Some(classes) = &s.receive_by_class {
        let class = |name: &str, c: &tailback_core::stats::ClassRate, gbps: Option<f64>| {
            let gbps = gbps.map_or_else(String::new, |g| format!(" ({g:.3} Gbit/s)"));
            format!("{name} {:.4}{gbps} x {}", c.mean, c.nodes)
        };
        let gbps = s.units.and_then(|u| u.receive_gbps);
        let mut parts = vec![class("hot", &classes.hot, gbps.map(|g| g.hot))];
        if let Some(others) = &classes.others {
            parts.push(class("others", others, gbps.and_then(|g| g.others)));
        }
        let at = rows
            .iter()
            .position(|(label, _)| *label == "packet latency")
            .unwrap_or(rows.len());
        rows.insert(
            at,
            ("received", format!("{} flits/node/cycle", parts.join(", "))),
        );
    }
    rows.iter()
        .map(|(label, value)| format!("  {label:<17}{value}\n"))
        .collect()
}

/// "router 12, port +x" or "the ejection channel of node 3".
pub fn port_name(topology: &Topology, port: PortId) -> String {
    let p = topology.ports()[port.index()];
    match (p.output, topology.layout()) {
        (Link::Node(node), _) => format!("the ejection channel of node {node}"),
        (_, Layout::Tree(tree)) => {
            let (level, _) = tree.locate(p.router.index());
            let down = tree.down(level);
            let (way, index) = if u32::from(p.local) < down {
                ("down", u32::from(p.local))
            } else {
                ("up", u32::from(p.local) - down)
            };
            format!("switch {} (level {level}), {way} port {index}", p.router)
        }
        (_, Layout::File(file)) => format!(
            "switch {} (`{}`), port {}",
            p.router,
            file.switch_name(p.router.index()),
            p.local
        ),
        (_, Layout::Fly(fly)) => format!(
            "switch {} (stage {}), output {}",
            p.router,
            p.router.index() / fly.switches_per_stage(),
            p.local
        ),
        (_, Layout::Dragonfly(fly)) => {
            let router = p.router.index();
            let kind = if u32::from(p.local) >= fly.first_global_port() {
                "global"
            } else {
                "local"
            };
            format!(
                "router {router} (group {}), {kind} port {}",
                fly.group(router),
                p.local
            )
        }
        (_, Layout::HyperX(x)) => format!(
            "switch {} ({:?}), port {}",
            p.router,
            x.grid().coords(p.router.index()),
            p.local
        ),
        (_, Layout::Cube(_)) => {
            let (dim, positive) = CubeShape::port_direction(p.local);
            let axis = ["x", "y", "z"]
                .get(dim)
                .map_or_else(|| format!("d{dim}"), |a| a.to_string());
            format!(
                "router {}, port {}{axis}",
                p.router,
                if positive { '+' } else { '-' }
            )
        }
    }
}
