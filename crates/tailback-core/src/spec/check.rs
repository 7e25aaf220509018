//! The cross-section checks: values of different sections against each other and against
//! what the network's parts can do (routing's VC classes, traffic patterns on the node count,
//! a topology file's routes, the buffered fabric's limits).

use crate::analysis::file_cycle;
use crate::config::reader::Issues;
use crate::config::{
    BufferedConfig, Choice, Config, DeadlockCheck, FabricConfig, FlowDst, IsolatingQueues,
    IsolationConfig, Mechanism, NicQueues, PatternKind, ProcessConfig, RoutingAlgorithm, Switching,
    TopologyKind, TreeRoots, TreeRouting,
};
use crate::routing::{vc_need_description, vcs_needed};
use crate::topology::{CustomShape, Layout};
use crate::traffic::check_pattern;

/// Refuses a topology file whose routes can deadlock, unless `topology.deadlock_check` lets
/// it run.
fn check_topology_file(cfg: &Config, issues: &Issues) {
    let topology = &cfg.topology;
    if let (Layout::File(shape), Some(path)) = (&topology.layout, &topology.file)
        && topology.deadlock_check == DeadlockCheck::Refuse
        && let Some(cycle) = file_cycle(shape, cfg.routing.algorithm == RoutingAlgorithm::Adaptive)
    {
        issues.push(
            "topology.file".into(),
            Some(&toml::Value::String(path.clone())),
            format!(
                "{path}: the routes' channel dependency graph{} has a cycle ({} -> {}), so \
                 packets can deadlock; add `route` lines that break it, or set \
                 topology.deadlock_check = \"warn\" to run anyway",
                if cfg.routing.algorithm == RoutingAlgorithm::Adaptive {
                    " (over every port the routes list)"
                } else {
                    ""
                },
                cycle.join(" -> "),
                cycle[0]
            ),
        );
    }
    if let (Layout::File(shape), Some(path)) = (&topology.layout, &topology.file)
        && let Some((line, problem)) = lane_table_problem(cfg, shape)
    {
        issues.push(
            "topology.file".into(),
            Some(&toml::Value::String(path.clone())),
            format!("{path}: line {line}: {problem}"),
        );
    }
}

/// The first problem of a topology file's SL-to-VL tables, with its line: tables on the
/// virtual-channel fabric, more service levels than lanes, or a lane beyond `router.vcs`.
fn lane_table_problem(cfg: &Config, shape: &CustomShape) -> Option<(usize, String)> {
    let vcs = cfg.router.vcs;
    let buffered = matches!(cfg.fabric, FabricConfig::Buffered(_));
    shape.lane_tables().find_map(|(_, line, lanes)| {
        let problem = if !buffered {
            Some(
                "SL-to-VL tables (`sl2vl`) need fabric.kind = \"buffered\"; virtual-channel \
                 routers choose a free VC at every hop"
                    .to_string(),
            )
        } else if lanes.len() > vcs as usize {
            Some(format!(
                "{} service levels listed, but router.vcs = {vcs} gives {vcs} (one per lane)",
                lanes.len()
            ))
        } else {
            lanes.iter().find(|&&l| u32::from(l) >= vcs).map(|l| {
                format!(
                    "lane {l} does not exist: router.vcs = {vcs} gives lanes 0 to {}",
                    vcs - 1
                )
            })
        };
        problem.map(|p| (line, p))
    })
}

/// Checks values of different sections against each other, every problem into `issues`:
/// each check is skipped when a key it compares had a problem (its value was then replaced by
/// the default).
pub(super) fn check_consistency(cfg: &Config, issues: &Issues) {
    check_topology_file(cfg, issues);
    cfg.congestion.check(cfg, issues);
    let report = |path: &str, value: Option<toml::Value>, message: String| {
        issues.push(path.to_string(), value.as_ref(), message)
    };
    let clean = |keys: &[&str]| !keys.iter().any(|key| issues.touches(key));
    let shape = clean(&["topology.kind", "topology.k", "topology.n", "topology.dims"]);
    let check_classes = shape && clean(&["routing", "router.vcs"]);
    let check_cut_through = clean(&[
        "router.switching",
        "router.vc_buffer_flits",
        "traffic.packet_flits",
    ]);
    let check_hotspots = shape && clean(&["traffic.hotspot_nodes"]);
    let needed = vcs_needed(&cfg.topology, &cfg.routing);
    let networks = cfg.router.logical_networks as usize;
    if check_classes && needed * networks > cfg.router.vcs as usize {
        let per_network = if networks > 1 {
            format!(" in each of the {networks} logical networks")
        } else {
            String::new()
        };
        report(
            "router.vcs",
            Some(toml::Value::Integer(cfg.router.vcs.into())),
            format!(
                "needs at least {} VCs per port: {}{per_network}",
                needed * networks,
                vc_need_description(&cfg.topology, &cfg.routing)
            ),
        );
    }
    if matches!(cfg.fabric, FabricConfig::Buffered(_)) {
        check_buffered(cfg, issues);
        check_pfc(cfg, issues);
    } else if cfg.record.congested_port_vls {
        issues.push(
            "record.congested_port_vls".into(),
            Some(&toml::Value::Boolean(true)),
            "needs fabric.kind = \"buffered\" (it reads the buffered switches' Port VLs)"
                .to_string(),
        );
    }
    if cfg.nic.queues == NicQueues::PerDestination {
        let mechanism = cfg.congestion.mechanism();
        let clash = if cfg.processor.is_some() {
            Some("a [processor] (it hands the NIC one packet at a time)".to_string())
        } else if !matches!(
            mechanism,
            Mechanism::None | Mechanism::IbCc | Mechanism::Qcn
        ) {
            Some(format!(
                "congestion.mechanism = \"{}\" (mechanisms keep their own queues)",
                mechanism.name()
            ))
        } else {
            None
        };
        if let Some(clash) = clash {
            report(
                "nic.queues",
                Some(toml::Value::String("per_destination".into())),
                format!("cannot be combined with {clash}"),
            );
        }
    }
    if let ProcessConfig::Forest(forest) = &cfg.traffic.process {
        if cfg.nic.queues != NicQueues::PerDestination {
            report(
                "nic.queues",
                Some(toml::Value::String(cfg.nic.queues.name().into())),
                "traffic.process = \"forest\" needs nic.queues = \"per_destination\" (a \
                     destination held back must not block the others)"
                    .to_string(),
            );
        }
        let nodes = cfg.node_count();
        if shape && forest.hotspots as usize >= nodes {
            report(
                "traffic.forest.hotspots",
                Some(toml::Value::Integer(forest.hotspots.into())),
                format!("must be fewer than the network's {nodes} nodes"),
            );
        }
    }
    if networks > 1 && cfg.routing.algorithm == RoutingAlgorithm::Disha {
        report(
            "router.logical_networks",
            Some(toml::Value::Integer(networks as i64)),
            "Disha's recovery lane serves one network; use one logical network with \
                 routing.algorithm = \"disha\""
                .to_string(),
        );
    }
    if check_cut_through
        && cfg.router.switching.whole_packets()
        && cfg.router.vc_buffer_flits < cfg.traffic.packet_flits
    {
        report(
            "router.vc_buffer_flits",
            Some(toml::Value::Integer(cfg.router.vc_buffer_flits.into())),
            format!(
                "{} needs a VC buffer that holds a whole packet ({})",
                cfg.router.switching.name().replace('_', " "),
                cfg.traffic.packet_size()
            ),
        );
    }
    // Every pattern in use must fit the network: the single pattern, or each phase's.
    let patterns: Vec<(String, PatternKind)> = match &cfg.traffic.phases {
        None => vec![("traffic.pattern".into(), cfg.traffic.pattern)],
        Some(phases) => phases
            .iter()
            .enumerate()
            .map(|(i, p)| (format!("traffic.phases[{i}].pattern"), p.pattern))
            .collect(),
    };
    for (path, kind) in patterns {
        if shape
            && clean(&[path.as_str()])
            && let Err(message) = check_pattern(kind, &cfg.topology)
        {
            report(
                &path,
                Some(toml::Value::String(kind.name().into())),
                message,
            );
        }
    }
    let nodes = cfg.node_count();
    let hot = match &cfg.traffic.hotspot_nodes {
        Some(hot) if check_hotspots => hot.as_slice(),
        _ => &[],
    };
    if let ProcessConfig::Flows(flows) = &cfg.traffic.process
        && shape
    {
        for (i, flow) in flows.flows.iter().enumerate() {
            if flow.dst == FlowDst::NextGroup && cfg.topology.kind != TopologyKind::Dragonfly {
                report(
                    &format!("traffic.flows[{i}].dst"),
                    Some(toml::Value::String("next_group".into())),
                    format!(
                        "next_group sends to the next group of a dragonfly; topology.kind = \"{}\"",
                        cfg.topology.kind.name()
                    ),
                );
            }
            let ends = [("src", Some(flow.src)), ("dst", flow.dst.node())];
            for (key, node) in ends.into_iter().filter_map(|(k, n)| Some((k, n?))) {
                if node as usize >= nodes {
                    report(
                        &format!("traffic.flows[{i}].{key}"),
                        Some(toml::Value::Integer(node.into())),
                        format!(
                            "node index out of range; the network has nodes 0 to {}",
                            nodes - 1
                        ),
                    );
                }
            }
        }
    }
    for (i, &h) in hot.iter().enumerate() {
        if h as usize >= nodes {
            report(
                &format!("traffic.hotspot_nodes[{i}]"),
                Some(toml::Value::Integer(h.into())),
                format!(
                    "node index out of range; the network has nodes 0 to {}",
                    nodes - 1
                ),
            );
        }
    }
    if cfg.traffic.process.kind().is_program() && cfg.processor.is_none() {
        report(
            "traffic.process",
            Some(toml::Value::String(
                cfg.traffic.process.kind().name().into(),
            )),
            "needs a [processor] section: its nodes send as fast as their processors can"
                .to_string(),
        );
    }
    // A snapshot after the last cycle the run can reach would silently never be taken.
    let sim = &cfg.sim;
    let last = sim
        .warmup_cycles
        .saturating_add(sim.measure_cycles)
        .saturating_add(sim.drain_cycles_max)
        .saturating_sub(1);
    if clean(&["sim", "record.occupancy_at"]) {
        for (i, &cycle) in cfg.record.occupancy_at.iter().enumerate() {
            if cycle > last {
                report(
                    &format!("record.occupancy_at[{i}]"),
                    Some(toml::Value::Integer(cycle as i64)),
                    format!(
                        "after the end of the run: it ends by cycle {last} (warm-up, \
                             measurement and the longest drain)"
                    ),
                );
            }
        }
    }
}

/// What congested-flow isolation needs: adapters that hold back one destination without
/// blocking the others, and thresholds that fit the input pool.
fn check_isolation(cfg: &Config, isolation: &IsolationConfig, issues: &Issues) {
    if cfg.nic.queues != NicQueues::PerDestination {
        issues.push(
            "nic.queues".into(),
            Some(&toml::Value::String(cfg.nic.queues.name().into())),
            "congested-flow isolation (fabric.queues = \"nfq_cfq\" or \"voq_hpq\") needs \
                 nic.queues = \"per_destination\" (an adapter stops the destinations of a \
                 stopped tree, not the others)"
                .to_string(),
        );
    }
    if matches!(isolation.queues, IsolatingQueues::Hpqs { .. })
        && vcs_needed(&cfg.topology, &cfg.routing) > 1
    {
        issues.push(
            "routing.algorithm".into(),
            Some(&toml::Value::String(cfg.routing.algorithm.name().into())),
            format!(
                "fabric.queues = \"voq_hpq\" names an output a root by its cold-packet queue, \
                 which holds the packets of every lane leaving by it, but this routing changes \
                 lanes hop by hop ({}); \"nfq_cfq\" follows trees by output and lane",
                vc_need_description(&cfg.topology, &cfg.routing)
            ),
        );
    }
    let algorithm = cfg.routing.algorithm;
    if isolation.tree_routing != TreeRouting::Free
        && !algorithm.chooses_ports()
        && !algorithm.weighs_queues()
    {
        issues.push(
            "fabric.isolation.tree_routing".into(),
            Some(&toml::Value::String(isolation.tree_routing.name().into())),
            format!(
                "only applies to routing that chooses among output ports (\"adaptive_up\", \
                 \"adaptive\") or between the minimal route and a detour (\"ugal_l\", \
                 \"ugal_g\", \"par\", \"dal\"); routing.algorithm = \"{}\" gives each packet \
                 one route",
                algorithm.name()
            ),
        );
    }
    if isolation.tree_roots != TreeRoots::Any && isolation.tree_routing == TreeRouting::Free {
        issues.push(
            "fabric.isolation.tree_roots".into(),
            Some(&toml::Value::String(isolation.tree_roots.name().into())),
            "only applies when fabric.isolation.tree_routing is \"follow\" or \"deterministic\""
                .to_string(),
        );
    }
    let pool = cfg.router.vc_buffer_flits;
    let thresholds = match isolation.queues {
        IsolatingQueues::Cfqs {
            detect_blocks,
            stop_blocks,
            ..
        } => vec![
            ("detect_blocks", detect_blocks),
            ("stop_blocks", stop_blocks),
        ],
        IsolatingQueues::Hpqs { high_blocks, .. } => vec![("high_blocks", high_blocks)],
    };
    for (key, blocks) in thresholds {
        if blocks >= pool && !issues.touches("router.vc_buffer_flits") {
            issues.push(
                format!("fabric.isolation.{key}"),
                Some(&toml::Value::Integer(blocks.into())),
                format!("must be below the input pool's {pool} blocks (router.vc_buffer_flits)"),
            );
        }
    }
}

/// What the buffered fabric cannot do: it switches whole packets on one logical network,
/// follows one route per packet and runs without a congestion mechanism.
/// Priority flow control: pools that hold XOFF plus the headroom, XON at most XOFF, and the
/// workloads and queue schemes it runs with.
fn check_pfc(cfg: &Config, issues: &Issues) {
    let (Some(t), FabricConfig::Buffered(b)) = (cfg.pfc_thresholds(), &cfg.fabric) else {
        return;
    };
    let int = |x: u32| Some(toml::Value::Integer(x.into()));
    let pfc = b.pfc.unwrap_or_default();
    if b.isolation.is_some() {
        issues.push(
            "fabric.flow_control".into(),
            Some(&toml::Value::String("pfc".into())),
            "congested-flow isolation (fabric.queues = \"nfq_cfq\" or \"voq_hpq\") is modelled \
             with credits only: use fabric.queues = \"voq\", \"fifo\" or \"voqnet\""
                .into(),
        );
    }
    if matches!(cfg.traffic.process, ProcessConfig::Trace(_)) {
        issues.push(
            "fabric.flow_control".into(),
            Some(&toml::Value::String("pfc".into())),
            "the headroom needs the longest packet, which a trace's packets do not bound: \
             use credits with traffic.process = \"trace\""
                .into(),
        );
    }
    let capacity = cfg.router.vc_buffer_flits;
    let h = t.headroom;
    if t.xoff + h.blocks > capacity {
        let (path, value) = match pfc.xoff_blocks {
            Some(x) => ("fabric.pfc.xoff_blocks", int(x)),
            None => ("router.vc_buffer_flits", int(capacity)),
        };
        issues.push(
            path.into(),
            value.as_ref(),
            format!(
                "an input pool of {capacity} blocks cannot hold XOFF ({} blocks) plus the \
                 headroom ({} blocks: twice the longest cable, {} cycles, at a block per cycle, \
                 plus a packet of {} blocks): {} blocks short",
                t.xoff,
                h.blocks,
                h.cable_cycles,
                h.packet_blocks,
                t.xoff + h.blocks - capacity
            ),
        );
    }
    if t.xon > t.xoff {
        issues.push(
            "fabric.pfc.xon_blocks".into(),
            int(t.xon).as_ref(),
            format!("must be at most XOFF ({} blocks)", t.xoff),
        );
    }
}

fn check_buffered(cfg: &Config, issues: &Issues) {
    let buffered = "with fabric.kind = \"buffered\"";
    let string = |text: &str| Some(toml::Value::String(text.into()));
    if cfg.router.switching != Switching::VirtualCutThrough {
        issues.push(
            "router.switching".into(),
            string(cfg.router.switching.name()).as_ref(),
            format!(
                "must be \"virtual_cut_through\" {buffered}: its switches forward whole packets"
            ),
        );
    }
    if cfg.router.logical_networks > 1 {
        issues.push(
            "router.logical_networks".into(),
            Some(&toml::Value::Integer(cfg.router.logical_networks.into())),
            format!("must be 1 {buffered}"),
        );
    }
    if cfg.routing.algorithm == RoutingAlgorithm::Duato {
        issues.push(
            "routing.algorithm".into(),
            string("duato").as_ref(),
            format!(
                "Duato's protocol chooses at every hop between adaptive and escape virtual \
                 channels; {buffered} a packet's lane comes from its SL-to-VL table"
            ),
        );
    }
    let classes = vcs_needed(&cfg.topology, &cfg.routing);
    if classes > 1
        && cfg.routing.algorithm != RoutingAlgorithm::Duato
        && let Some(lane) = super::priority_lane(cfg)
    {
        issues.push(
            "congestion.cnp_vl".into(),
            string("priority").as_ref(),
            format!(
                "keeps notifications on lane {lane}, outside the lanes this routing raises \
                 packets through hop by hop ({}); use \"data\"",
                vc_need_description(&cfg.topology, &cfg.routing)
            ),
        );
    }
    if cfg.routing.algorithm == RoutingAlgorithm::Disha {
        issues.push(
            "routing.algorithm".into(),
            string("disha").as_ref(),
            format!(
                "Disha's recovery lane is a virtual-channel router's; not available {buffered}"
            ),
        );
    }
    if let FabricConfig::Buffered(BufferedConfig {
        voqnet_queue_blocks: Some(blocks),
        ..
    }) = &cfg.fabric
        && *blocks < cfg.traffic.packet_flits
        && !issues.touches("traffic.packet_flits")
    {
        issues.push(
            "fabric.voqnet_queue_blocks".into(),
            Some(&toml::Value::Integer((*blocks).into())),
            format!(
                "a destination's queue must hold a whole packet ({})",
                cfg.traffic.packet_size()
            ),
        );
    }
    if let FabricConfig::Buffered(BufferedConfig {
        isolation: Some(isolation),
        ..
    }) = &cfg.fabric
    {
        check_isolation(cfg, isolation, issues);
    }
    if cfg.processor.is_some() {
        issues.push(
            "processor".into(),
            None,
            format!(
                "the processor model is not available {buffered}: its channel adapters \
                     deliver whole packets to the host"
            ),
        );
    }
    let mechanism = cfg.congestion.mechanism();
    if !matches!(
        mechanism,
        Mechanism::None | Mechanism::IbCc | Mechanism::Qcn
    ) {
        issues.push(
            "congestion.mechanism".into(),
            string(mechanism.name()).as_ref(),
            format!(
                "must be \"none\", \"ib_cc\" or \"qcn\" {buffered}: the other mechanisms act \
                 on virtual-channel routers"
            ),
        );
    }
}
