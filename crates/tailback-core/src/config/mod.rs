//! Typed simulation configuration, read from TOML (or JSON) with every problem reported at once.
//!
//! The text is parsed into a TOML tree, command-line overrides (`key=value`) are applied to the
//! tree, and the tree is read once into a [`Config`], checking types and ranges key by key.
//! Configuration is data at the bottom of the crate: the checks of values against each other
//! (a mechanism's settings against the rest, a dateline scheme against the VC count, a
//! bit-permutation pattern against the node count) run in the [`Spec`](crate::spec::Spec)
//! stage, which turns a tree into the validated configuration runs are built from. Every key is
//! documented in `docs/config.md`.

mod congestion;
mod error;
mod fabric;
mod flows;
mod forest;
mod nic;
mod overrides;
mod pfc;
mod processor;
mod program;
pub(crate) mod reader;
mod record;
mod router;
mod routing;
mod sim;
mod topology;
mod traffic;
mod units;

pub use congestion::*;
pub use error::{ConfigError, ConfigIssue, abbreviated};
pub use fabric::{
    Arbitration, BufferedConfig, Detection, FabricConfig, FabricKind, FlowControl, IsolatingQueues,
    IsolationConfig, PfcConfig, Propagate, QueueKind, TreeRoots, TreeRouting,
};
pub use flows::{FlowConfig, FlowDst, FlowsConfig, MAX_FLOWS};
pub use forest::{ForestConfig, ForestPosting};
pub use nic::{NicConfig, NicQueues};
pub use overrides::{merge_tables, parse_assignment, set_path, unset_path};
pub use pfc::{Headroom, PfcThresholds};
pub use processor::ProcessorConfig;
pub use program::{BspLoad, HEAVY_MESSAGE_PACKETS, LIGHT_MESSAGE_PACKETS, ProgramConfig};
pub use reader::Choice;
pub use record::{PortVlSpan, RecordConfig};
pub use router::*;
pub use routing::*;
pub use sim::SimConfig;
pub use topology::*;
pub use traffic::*;
pub use units::{BLOCK_BYTES, NAMED_RATES, ROCEV2_OVERHEAD_BYTES, Units, frame_blocks};

use crate::topology::Layout;
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

/// Whether a setting is its default (left out of serialized configs).
fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// A complete simulation configuration, one field per section. Read from text it is valid
/// (and held as a [`Spec`](crate::spec::Spec)); edited in code,
/// [`Spec::new`](crate::spec::Spec::new) checks it again.
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
    /// Every setting at its default: the 8x8 torus under uniform traffic.
    fn default() -> Self {
        Config::read(&toml::Table::new(), None, &Issues::default())
    }
}

impl Config {
    /// Reads a TOML tree, types and ranges key by key, every problem into `issues` (the
    /// cross-section checks are the [`Spec`](crate::spec::Spec)'s). `known` is a configuration
    /// read before whose topology file need not be parsed again.
    pub(crate) fn read(table: &toml::Table, known: Option<&Config>, issues: &Issues) -> Config {
        let root = Section::root(table, issues);
        let seed = root.int("seed", 1u64, 0, i64::MAX as u64);
        let mut topology =
            TopologyConfig::read(root.section("topology"), known.map(|k| &k.topology));
        let router = RouterConfig::read(root.section("router"));
        let (fabric, cable) = FabricConfig::read(root.section("fabric"));
        let units = fabric.units();
        let routing = RoutingConfig::read(root.section("routing"), &topology);
        let mut nic = NicConfig::read(root.section("nic"), units);
        // An empty `[processor]` table still turns the model on.
        let modelled = root.has("processor");
        let section = root.section("processor");
        let processor = modelled.then(|| ProcessorConfig::read(section));
        let traffic = TrafficConfig::read(root.section("traffic"), units, fabric.frame_overhead());
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
        if let Some(cycles) = cable {
            apply_cable(&root, cycles, &mut topology, &mut nic);
        }
        root.finish();
        Config {
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
        }
    }

    /// Number of terminal nodes.
    pub fn node_count(&self) -> usize {
        self.topology.nodes()
    }
}

/// `fabric.cable_ns`, in `cycles`, becomes the latency of every link: the topology's and the
/// adapters' (refused beside the keys it replaces, and on a dragonfly, whose local and global
/// links are timed apart).
fn apply_cable(
    root: &Section<'_>,
    cycles: u32,
    topology: &mut TopologyConfig,
    nic: &mut NicConfig,
) {
    let fabric = root.section("fabric");
    if matches!(topology.layout, Layout::Dragonfly(_)) {
        fabric.problem(
            "cable_ns",
            "a dragonfly times its local and global links apart: give \
             topology.local_latency and topology.global_latency",
        );
        return;
    }
    let replaced = [
        ("topology", "link_latency"),
        ("nic", "injection_latency"),
        ("nic", "ejection_latency"),
    ];
    for (section, key) in replaced {
        if root.section(section).has(key) {
            fabric.problem(
                "cable_ns",
                format!("sets {section}.{key} too: give one of them"),
            );
            return;
        }
    }
    topology.link_latency = cycles;
    nic.injection_latency = cycles;
    nic.ejection_latency = cycles;
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
