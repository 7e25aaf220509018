//! Typed simulation configuration, read from TOML (or JSON) with every problem reported at once.
//!
//! The text is parsed into a TOML tree, command-line overrides (`key=value`) are applied to the
//! tree, and the tree is read once into a [`Spec`], the validated [`Config`] that runs are built
//! from. Reading checks types and ranges, then values against each other (a dateline scheme
//! against the VC count, a cut-through buffer against the packet size, a bit-permutation pattern
//! against the node count). Every key is documented in `docs/config.md`.

mod congestion;
mod error;
mod fabric;
mod flows;
mod forest;
mod nic;
mod overrides;
mod processor;
mod program;
pub(crate) mod reader;
mod record;
mod router;
mod routing;
mod sim;
mod spec;
mod topology;
mod traffic;
mod units;

pub use congestion::*;
pub use error::{ConfigError, ConfigIssue};
pub use fabric::{
    BufferedConfig, Detection, FabricConfig, FabricKind, IsolatingQueues, IsolationConfig,
    Propagate, QueueKind,
};
pub use flows::{FlowConfig, FlowDst, FlowsConfig, MAX_FLOWS};
pub use forest::{ForestConfig, ForestPosting};
pub use nic::{NicConfig, NicQueues};
pub use overrides::{merge_tables, parse_assignment, set_path, unset_path};
pub use processor::ProcessorConfig;
pub use program::{BspLoad, HEAVY_MESSAGE_PACKETS, LIGHT_MESSAGE_PACKETS, ProgramConfig};
pub use reader::Choice;
pub use record::RecordConfig;
pub use router::*;
pub use routing::*;
pub use sim::SimConfig;
pub use spec::Spec;
pub use topology::*;
pub use traffic::*;
pub use units::{BLOCK_BYTES, NAMED_RATES, Units};

use reader::{Issues, Section};
use serde::Serialize;

/// Largest number of terminal nodes a network may have.
pub const MAX_NODES: u64 = 1 << 22;
/// Largest number of virtual channels per port.
pub const MAX_VCS: u32 = 32;
/// Largest channel or credit latency, in cycles.
pub const MAX_LATENCY: u32 = 1024;
/// Largest number of cycles per flit on a channel.
pub const MAX_PERIOD: u32 = 64;

/// The default of `nic.source_queue_packets` with `traffic.process = "flows"`.
pub const FLOW_BACKLOG_PACKETS: u32 = 64;

/// Whether a period is the default of one cycle per flit (left out of serialized configs).
fn is_one(period: &u32) -> bool {
    *period == 1
}

/// A complete simulation configuration, one field per section. Read from text it is valid
/// (and held as a [`Spec`]); edited in code, [`Spec::new`] checks it again.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Config {
    /// Master seed; every random stream is derived from it.
    pub seed: u64,
    /// Network shape.
    pub topology: TopologyConfig,
    /// Router microarchitecture.
    pub router: RouterConfig,
    /// The switch model (the virtual-channel routers unless set).
    #[serde(skip_serializing_if = "FabricConfig::is_default")]
    pub fabric: FabricConfig,
    /// Routing function and deadlock-avoidance VC classes.
    pub routing: RoutingConfig,
    /// Network interface (injection and ejection).
    pub nic: NicConfig,
    /// The processor behind each NIC (`None`: not modelled; the workload feeds the NIC).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub processor: Option<ProcessorConfig>,
    /// Offered workload.
    pub traffic: TrafficConfig,
    /// Congestion management mechanism.
    pub congestion: CongestionConfig,
    /// Measurement methodology.
    pub sim: SimConfig,
    /// Time series and snapshots to record.
    pub record: RecordConfig,
}

impl Default for Config {
    fn default() -> Self {
        Spec::default().into_config()
    }
}

impl Config {
    /// Reads and checks a TOML tree: types and ranges key by key, then the cross-checks, every
    /// problem reported at once. `known` is a configuration read before whose topology file
    /// need not be parsed again.
    fn read(table: &toml::Table, known: Option<&Config>) -> Result<Config, ConfigError> {
        let issues = Issues::default();
        let root = Section::root(table, &issues);
        let seed = root.int("seed", 1u64, 0, i64::MAX as u64);
        let topology = TopologyConfig::read(root.section("topology"), known.map(|k| &k.topology));
        let router = RouterConfig::read(root.section("router"));
        let fabric = FabricConfig::read(root.section("fabric"));
        let units = fabric.units();
        let routing = RoutingConfig::read(root.section("routing"), &topology);
        let mut nic = NicConfig::read(root.section("nic"), units);
        // An empty `[processor]` table still turns the model on.
        let modelled = root.has("processor");
        let section = root.section("processor");
        let processor = modelled.then(|| ProcessorConfig::read(section));
        let traffic = TrafficConfig::read(root.section("traffic"), units);
        if traffic.process.kind() == ProcessKind::Flows && nic.source_queue_packets.is_none() {
            // A flow offering more than the network carries would otherwise queue without
            // bound.
            nic.source_queue_packets = Some(FLOW_BACKLOG_PACKETS);
        }
        let congestion = CongestionConfig::read(root.section("congestion"));
        let sim = SimConfig::read(root.section("sim"), units);
        let mut record = RecordConfig::read(root.section("record"), units);
        if traffic.process.kind() == ProcessKind::Ramp && record.series_window == 0 {
            // The ramp is measured in windows: 100 cycles unless the user chose otherwise.
            record.series_window = 100;
        }
        root.finish();
        let config = Config {
            seed,
            topology,
            router,
            fabric,
            routing,
            nic,
            processor,
            traffic,
            congestion,
            sim,
            record,
        };
        // Cross-checks run on the values as given: each one is skipped when a key it compares
        // had a problem (its value was then replaced by the default).
        config.check_consistency(&issues);
        let issues = issues.into_vec();
        if issues.is_empty() {
            Ok(config)
        } else {
            Err(ConfigError::Invalid(issues))
        }
    }

    /// Number of terminal nodes.
    pub fn node_count(&self) -> usize {
        self.topology.nodes()
    }

    fn check_consistency(&self, issues: &Issues) {
        self.congestion.check(self, issues);
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
        let needed = crate::routing::vcs_needed(&self.topology, &self.routing);
        let networks = self.router.logical_networks as usize;
        if check_classes && needed * networks > self.router.vcs as usize {
            let per_network = if networks > 1 {
                format!(" in each of the {networks} logical networks")
            } else {
                String::new()
            };
            report(
                "router.vcs",
                Some(toml::Value::Integer(self.router.vcs.into())),
                format!(
                    "needs at least {} VCs per port: {}{per_network}",
                    needed * networks,
                    crate::routing::vc_need_description(&self.topology, &self.routing)
                ),
            );
        }
        if matches!(self.fabric, FabricConfig::Buffered(_)) {
            self.check_buffered(issues);
        }
        if self.nic.queues == NicQueues::PerDestination {
            let mechanism = self.congestion.mechanism();
            let clash = if self.processor.is_some() {
                Some("a [processor] (it hands the NIC one packet at a time)".to_string())
            } else if !matches!(mechanism, Mechanism::None | Mechanism::IbCc) {
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
        if let ProcessConfig::Forest(forest) = &self.traffic.process {
            if self.nic.queues != NicQueues::PerDestination {
                report(
                    "nic.queues",
                    Some(toml::Value::String(self.nic.queues.name().into())),
                    "traffic.process = \"forest\" needs nic.queues = \"per_destination\" (a \
                     destination held back must not block the others)"
                        .to_string(),
                );
            }
            let nodes = self.node_count();
            if shape && forest.hotspots as usize >= nodes {
                report(
                    "traffic.forest.hotspots",
                    Some(toml::Value::Integer(forest.hotspots.into())),
                    format!("must be fewer than the network's {nodes} nodes"),
                );
            }
        }
        if networks > 1 && self.routing.algorithm == RoutingAlgorithm::Disha {
            report(
                "router.logical_networks",
                Some(toml::Value::Integer(networks as i64)),
                "Disha's recovery lane serves one network; use one logical network with \
                 routing.algorithm = \"disha\""
                    .to_string(),
            );
        }
        if check_cut_through
            && self.router.switching.whole_packets()
            && self.router.vc_buffer_flits < self.traffic.packet_flits
        {
            report(
                "router.vc_buffer_flits",
                Some(toml::Value::Integer(self.router.vc_buffer_flits.into())),
                format!(
                    "{} needs a VC buffer that holds a whole packet (traffic.packet_flits = {})",
                    self.router.switching.name().replace('_', " "),
                    self.traffic.packet_flits
                ),
            );
        }
        // Every pattern in use must fit the network: the single pattern, or each phase's.
        let patterns: Vec<(String, PatternKind)> = match &self.traffic.phases {
            None => vec![("traffic.pattern".into(), self.traffic.pattern)],
            Some(phases) => phases
                .iter()
                .enumerate()
                .map(|(i, p)| (format!("traffic.phases[{i}].pattern"), p.pattern))
                .collect(),
        };
        for (path, kind) in patterns {
            if shape
                && clean(&[path.as_str()])
                && let Err(message) = crate::traffic::check_pattern(kind, &self.topology.dims)
            {
                report(
                    &path,
                    Some(toml::Value::String(kind.name().into())),
                    message,
                );
            }
        }
        let nodes = self.node_count();
        let hot = match &self.traffic.hotspot_nodes {
            Some(hot) if check_hotspots => hot.as_slice(),
            _ => &[],
        };
        if let ProcessConfig::Flows(flows) = &self.traffic.process
            && shape
        {
            for (i, flow) in flows.flows.iter().enumerate() {
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
        if self.traffic.process.kind().is_program() && self.processor.is_none() {
            report(
                "traffic.process",
                Some(toml::Value::String(
                    self.traffic.process.kind().name().into(),
                )),
                "needs a [processor] section: its nodes send as fast as their processors can"
                    .to_string(),
            );
        }
        // A snapshot after the last cycle the run can reach would silently never be taken.
        let sim = &self.sim;
        let last = sim
            .warmup_cycles
            .saturating_add(sim.measure_cycles)
            .saturating_add(sim.drain_cycles_max)
            .saturating_sub(1);
        if clean(&["sim", "record.occupancy_at"]) {
            for (i, &cycle) in self.record.occupancy_at.iter().enumerate() {
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
}

impl Config {
    /// The lane served before all others at every switch output and kept for control packets
    /// at the adapters (InfiniBand congestion control with `cnp_vl = "priority"`).
    pub(crate) fn priority_lane(&self) -> Option<usize> {
        match &self.congestion {
            CongestionConfig::IbCc(settings)
                if settings.cnp_vl == crate::congestion::ib_settings::CnpLane::Priority =>
            {
                Some(self.router.vcs as usize - 1)
            }
            _ => None,
        }
    }

    /// What congested-flow isolation needs: adapters that hold back one destination without
    /// blocking the others, and thresholds that fit the input pool.
    fn check_isolation(&self, isolation: &IsolationConfig, issues: &Issues) {
        if self.nic.queues != NicQueues::PerDestination {
            issues.push(
                "nic.queues".into(),
                Some(&toml::Value::String(self.nic.queues.name().into())),
                "congested-flow isolation (fabric.queues = \"nfq_cfq\" or \"voq_hpq\") needs \
                 nic.queues = \"per_destination\" (an adapter stops the destinations of a \
                 stopped tree, not the others)"
                    .to_string(),
            );
        }
        let pool = self.router.vc_buffer_flits;
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
                    format!(
                        "must be below the input pool's {pool} blocks (router.vc_buffer_flits)"
                    ),
                );
            }
        }
    }

    /// What the buffered fabric cannot do: it switches whole packets on one logical network,
    /// follows one route per packet and runs without a congestion mechanism.
    fn check_buffered(&self, issues: &Issues) {
        let buffered = "with fabric.kind = \"buffered\"";
        let string = |text: &str| Some(toml::Value::String(text.into()));
        if self.router.switching != Switching::VirtualCutThrough {
            issues.push(
                "router.switching".into(),
                string(self.router.switching.name()).as_ref(),
                format!(
                    "must be \"virtual_cut_through\" {buffered}: its switches forward whole packets"
                ),
            );
        }
        if self.router.logical_networks > 1 {
            issues.push(
                "router.logical_networks".into(),
                Some(&toml::Value::Integer(self.router.logical_networks.into())),
                format!("must be 1 {buffered}"),
            );
        }
        let classes = crate::routing::vcs_needed(&self.topology, &self.routing);
        if classes > 1 && !issues.touches("routing") {
            issues.push(
                "fabric.kind".into(),
                string("buffered").as_ref(),
                format!(
                    "keeps each packet on one virtual lane, but this routing changes VC class on \
                     the way ({})",
                    crate::routing::vc_need_description(&self.topology, &self.routing)
                ),
            );
        }
        if self.routing.algorithm == RoutingAlgorithm::Disha {
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
        }) = &self.fabric
            && *blocks < self.traffic.packet_flits
            && !issues.touches("traffic.packet_flits")
        {
            issues.push(
                "fabric.voqnet_queue_blocks".into(),
                Some(&toml::Value::Integer((*blocks).into())),
                format!(
                    "a destination's queue must hold a whole packet (traffic.packet_flits = {})",
                    self.traffic.packet_flits
                ),
            );
        }
        if let FabricConfig::Buffered(BufferedConfig {
            isolation: Some(isolation),
            ..
        }) = &self.fabric
        {
            self.check_isolation(isolation, issues);
        }
        if self.processor.is_some() {
            issues.push(
                "processor".into(),
                None,
                format!(
                    "the processor model is not available {buffered}: its channel adapters \
                     deliver whole packets to the host"
                ),
            );
        }
        let mechanism = self.congestion.mechanism();
        if !matches!(mechanism, Mechanism::None | Mechanism::IbCc) {
            issues.push(
                "congestion.mechanism".into(),
                string(mechanism.name()).as_ref(),
                format!(
                    "must be \"none\" or \"ib_cc\" {buffered}: the other mechanisms act on \
                     virtual-channel routers"
                ),
            );
        }
    }
}

/// Parses TOML (or, when it starts with `{`, JSON) text into a table.
pub fn parse_table(text: &str, source_name: &str) -> Result<toml::Table, ConfigError> {
    let syntax = |message: String| ConfigError::Syntax {
        source_name: source_name.to_string(),
        message,
    };
    if text.trim_start().starts_with('{') {
        let value: toml::Value =
            serde_json::from_str(text).map_err(|e| syntax(format!("JSON: {e}")))?;
        match value {
            toml::Value::Table(t) => Ok(t),
            _ => Err(syntax("the JSON document must be an object".into())),
        }
    } else {
        text.parse::<toml::Table>()
            .map_err(|e| syntax(e.to_string().trim_end().to_string()))
    }
}
