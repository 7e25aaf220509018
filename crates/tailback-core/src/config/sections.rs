//! The sections of a configuration file: one struct per TOML table, each read by `read`.

use serde::Serialize;

use super::Choice;
use super::ProgramConfig;
use super::reader::{Section, choice_enum};
use crate::topology::{CubeShape, CustomShape, FlyShape, Layout, TreeShape};

/// Largest number of terminal nodes a network may have.
pub const MAX_NODES: u64 = 1 << 22;
/// Largest number of virtual channels per port.
pub const MAX_VCS: u32 = 32;
/// Largest channel or credit latency, in cycles.
pub const MAX_LATENCY: u32 = 1024;
/// Largest number of cycles per flit on a channel.
pub const MAX_PERIOD: u32 = 64;

choice_enum! {
    /// The network family.
    pub enum TopologyKind {
        /// k-ary n-cube with rings in every dimension (wrap-around links).
        Torus = "torus",
        /// k-ary n-cube without wrap-around links.
        Mesh = "mesh",
        /// k-ary n-tree fat tree: `k^n` nodes, `n` levels of switches with `k` ports down and
        /// `k` up.
        KaryNtree = "kary_ntree",
        /// Two- or three-level folded Clos network of `radix`-port switches.
        FoldedClos = "folded_clos",
        /// The CM-5's fat tree: 4-ary, with 2 parents per switch on the first two levels.
        Cm5Fattree = "cm5_fattree",
        /// k-ary n-fly: `n` stages of `k^(n-1)` switches between injection and ejection.
        Butterfly = "butterfly",
        /// k-ary n-stage multibutterfly: output groups `dilation` ports wide, wired at random.
        Multibutterfly = "multibutterfly",
        /// A topology file (`file`): switches, nodes, links and optional routes.
        File = "file",
    }
}

choice_enum! {
    /// What to do when a topology file's routes can deadlock.
    pub enum DeadlockCheck {
        /// Refuse the configuration.
        Refuse = "refuse",
        /// Accept it; `tailback check` and `run` warn.
        Warn = "warn",
    }
}

impl TopologyKind {
    /// Whether the network is a k-ary n-cube (torus or mesh).
    pub fn is_cube(self) -> bool {
        matches!(self, TopologyKind::Torus | TopologyKind::Mesh)
    }
}

/// `[topology]`: the network shape.
#[derive(Debug, Clone, PartialEq)]
pub struct TopologyConfig {
    /// The network family.
    pub kind: TopologyKind,
    /// Radix of every dimension of a torus or mesh, dimension 0 first (`k` repeated `n` times
    /// unless `dims` is given); for other kinds, the node count (the line of node addresses).
    pub dims: Vec<u32>,
    /// The shape the kind's keys describe.
    pub layout: Layout,
    /// Router-to-router link latency in cycles.
    pub link_latency: u32,
    /// Cycles per flit on router-to-router links (1: a flit every cycle).
    pub link_period: u32,
    /// The topology file's path (`kind = "file"`).
    pub file: Option<String>,
    /// What to do when a topology file's routes can deadlock.
    pub deadlock_check: DeadlockCheck,
}

/// Written with the keys the reader takes, so a serialized config reads back the same.
impl Serialize for TopologyConfig {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = s.serialize_struct("TopologyConfig", 6)?;
        out.serialize_field("kind", &self.kind)?;
        match (&self.layout, self.kind) {
            (Layout::Cube(_), _) => out.serialize_field("dims", &self.dims)?,
            (Layout::Tree(tree), TopologyKind::KaryNtree) => {
                out.serialize_field("k", &tree.down(0))?;
                out.serialize_field("n", &tree.levels())?;
            }
            (Layout::Tree(tree), TopologyKind::FoldedClos) => {
                out.serialize_field("radix", &tree.radix())?;
                out.serialize_field("levels", &tree.levels())?;
            }
            (Layout::Tree(tree), _) => out.serialize_field("nodes", &tree.nodes())?,
            (Layout::File(_), _) => {
                out.serialize_field("file", &self.file)?;
                out.serialize_field("deadlock_check", &self.deadlock_check)?;
            }
            (Layout::Fly(fly), kind) => {
                out.serialize_field("k", &fly.k())?;
                out.serialize_field("n", &fly.stages())?;
                if kind == TopologyKind::Multibutterfly {
                    out.serialize_field("dilation", &fly.dilation())?;
                }
            }
        }
        out.serialize_field("link_latency", &self.link_latency)?;
        if self.link_period != 1 {
            out.serialize_field("link_period", &self.link_period)?;
        }
        out.end()
    }
}

/// The keys each topology kind reads besides `kind` and `link_latency`.
fn shape_keys(kind: TopologyKind) -> &'static [&'static str] {
    match kind {
        TopologyKind::Torus | TopologyKind::Mesh => &["k", "n", "dims"],
        TopologyKind::KaryNtree | TopologyKind::Butterfly => &["k", "n"],
        TopologyKind::FoldedClos => &["radix", "levels"],
        TopologyKind::Cm5Fattree => &["nodes"],
        TopologyKind::Multibutterfly => &["k", "n", "dilation"],
        TopologyKind::File => &["file", "deadlock_check"],
    }
}

/// Every key some topology kind reads besides `kind` and `link_latency`.
const SHAPE_KEYS: [&str; 9] = [
    "k",
    "n",
    "dims",
    "radix",
    "levels",
    "nodes",
    "dilation",
    "file",
    "deadlock_check",
];

impl TopologyConfig {
    pub(crate) fn read(s: Section<'_>) -> Self {
        let kind = s.choice("kind", TopologyKind::Torus);
        for key in SHAPE_KEYS {
            if !shape_keys(kind).contains(&key) && s.has(key) {
                s.value(key); // Known key, wrong kind: reported here, not as unknown.
                let kinds: Vec<String> = TopologyKind::CHOICES
                    .iter()
                    .map(|(_, k)| *k)
                    .filter(|k| shape_keys(*k).contains(&key))
                    .map(|k| format!("\"{}\"", k.name()))
                    .collect();
                s.problem(
                    key,
                    format!(
                        "only applies to topology.kind = {}; kind = \"{}\"",
                        kinds.join(" or "),
                        kind.name()
                    ),
                );
            }
        }
        let (file, deadlock_check) = match kind {
            TopologyKind::File => (
                Some(read_path(&s)),
                s.choice("deadlock_check", DeadlockCheck::Refuse),
            ),
            _ => (None, DeadlockCheck::Refuse),
        };
        let layout = match &file {
            Some(path) => read_file(&s, path, deadlock_check),
            None => read_layout(&s, kind),
        };
        let dims = match &layout {
            Layout::Cube(cube) => cube.dims().to_vec(),
            other => vec![other.nodes() as u32],
        };
        let link_latency = s.int("link_latency", 1, 1, MAX_LATENCY);
        let link_period = s.int("link_period", 1, 1, MAX_PERIOD);
        if file.is_some() && link_period != 1 {
            s.problem(
                "link_period",
                "link speeds of a topology file are set in the file",
            );
        }
        s.finish();
        TopologyConfig {
            kind,
            dims,
            layout,
            link_latency,
            link_period,
            file,
            deadlock_check,
        }
    }

    /// Number of terminal nodes.
    pub fn nodes(&self) -> usize {
        self.dims.iter().map(|&k| k as usize).product()
    }
}

/// The required `file` key.
fn read_path(s: &Section<'_>) -> String {
    match s.value("file") {
        Some(toml::Value::String(path)) => path.clone(),
        Some(_) => {
            s.problem("file", "expected the path of a topology file (a string)");
            String::new()
        }
        None => {
            s.problem(
                "file",
                "topology.kind = \"file\" needs `file`, the topology file's path",
            );
            String::new()
        }
    }
}

/// The topology file at `path`; a problem with it is reported on `file` (naming its line) and
/// replaced by two nodes on one switch.
fn read_file(s: &Section<'_>, path: &str, deadlock: DeadlockCheck) -> Layout {
    let fallback = || {
        CustomShape::parse("switch s ports 2\nnode a s.0\nnode b s.1\n")
            .expect("the fallback topology is valid")
    };
    if path.is_empty() {
        return Layout::File(fallback());
    }
    let parsed = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {path}: {e}"))
        .and_then(|text| CustomShape::parse(&text).map_err(|e| format!("{path}: {e}")));
    match parsed {
        Ok(shape) if shape.is_cyclic() && deadlock == DeadlockCheck::Refuse => {
            s.problem(
                "file",
                format!(
                    "{path}: the routes' channel dependency graph has a cycle, so packets can \
                     deadlock; add `route` lines that break it, or set \
                     topology.deadlock_check = \"warn\" to run anyway"
                ),
            );
            Layout::File(shape)
        }
        Ok(shape) => Layout::File(shape),
        Err(message) => {
            s.problem("file", message);
            Layout::File(fallback())
        }
    }
}

/// The shape of `kind` from its keys; a network over [`MAX_NODES`] is reported (on `key`) and
/// replaced by the smallest of its kind.
fn read_layout(s: &Section<'_>, kind: TopologyKind) -> Layout {
    let fits = |key: &str, nodes: u64| {
        let ok = nodes <= MAX_NODES;
        if !ok {
            s.problem(
                key,
                format!("the network would have {nodes} nodes; at most {MAX_NODES} are supported"),
            );
        }
        ok
    };
    // `k` and `n` of trees and butterflies: ports per switch are at most 64.
    let k_n = |max_k: u32| -> Option<(u32, u32)> {
        let k: u32 = s.int("k", 4, 2, max_k);
        let n: u32 = s.int("n", 3, 1, 22);
        fits("k", u64::from(k).saturating_pow(n)).then_some((k, n))
    };
    match kind {
        TopologyKind::Torus | TopologyKind::Mesh => {
            let mut dims = read_dims(s);
            let nodes = dims.iter().fold(1u64, |p, &x| p.saturating_mul(x as u64));
            if !fits(if s.has("dims") { "dims" } else { "k" }, nodes) {
                dims = vec![2];
            }
            Layout::Cube(CubeShape::new(dims, kind == TopologyKind::Torus))
        }
        TopologyKind::KaryNtree => {
            let (k, n) = k_n(32).unwrap_or((2, 1));
            Layout::Tree(TreeShape::kary_ntree(k, n))
        }
        TopologyKind::FoldedClos => {
            let radix: u32 = s.int("radix", 36, 4, 64);
            if !radix.is_multiple_of(2) {
                s.problem("radix", "must be even (half the ports lead down, half up)");
            }
            let levels: u32 = s.int("levels", 2, 2, 3);
            Layout::Tree(TreeShape::folded_clos(radix & !1, levels))
        }
        TopologyKind::Cm5Fattree => {
            let nodes: u32 = s.int("nodes", 64, 8, 1 << 22);
            if !nodes.is_power_of_two() {
                s.problem("nodes", "must be a power of two");
            }
            Layout::Tree(TreeShape::cm5(nodes.next_power_of_two()))
        }
        TopologyKind::Butterfly => {
            let (k, n) = k_n(64).unwrap_or((2, 1));
            Layout::Fly(FlyShape::butterfly(k, n))
        }
        TopologyKind::Multibutterfly => {
            let (k, n) = k_n(32).unwrap_or((2, 1));
            let dilation: u32 = s.int("dilation", 2, 1, 32);
            if k * dilation > 64 {
                s.problem(
                    "dilation",
                    format!(
                        "k * dilation = {} ports per switch; at most 64",
                        k * dilation
                    ),
                );
            }
            Layout::Fly(FlyShape::multibutterfly(k, n, dilation.min(64 / k)))
        }
        TopologyKind::File => unreachable!("topology files are read by `read_file`"),
    }
}

/// The radices of a torus or mesh: `dims`, or `k` repeated `n` times.
fn read_dims(s: &Section<'_>) -> Vec<u32> {
    let k: u32 = s.int("k", 8, 2, 4096);
    let n: u32 = s.int("n", 2, 1, 16);
    match s.opt_int_list("dims", 2, 4096) {
        Some(_) if s.has("k") || s.has("n") => {
            s.problem("dims", "give either `dims` or `k` and `n`, not both");
            vec![k; n as usize]
        }
        Some(d) if d.is_empty() || d.len() > 16 => {
            s.problem("dims", "must list between 1 and 16 radices");
            vec![k; n as usize]
        }
        Some(d) => d.into_iter().map(|x| x as u32).collect(),
        None => vec![k; n as usize],
    }
}

choice_enum! {
    /// Flow control of router buffers.
    pub enum Switching {
        /// Per-flit credits; a packet may span several routers.
        Wormhole = "wormhole",
        /// A VC is granted only when the downstream buffer has room for the whole packet.
        VirtualCutThrough = "virtual_cut_through",
        /// Like virtual cut-through, and a packet leaves a router only once all of it has
        /// arrived there.
        StoreAndForward = "store_and_forward",
    }
}

impl Switching {
    /// Whether an output VC is granted only with room downstream for the whole packet.
    pub fn whole_packets(self) -> bool {
        self != Switching::Wormhole
    }
}

choice_enum! {
    /// Switch allocator.
    pub enum AllocatorKind {
        /// Separable input-first allocation with round-robin arbiters.
        Separable = "separable",
        /// iSLIP: iterative request/grant/accept with round-robin pointers.
        Islip = "islip",
    }
}

/// `[router]`: the input-queued virtual-channel router.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RouterConfig {
    /// Virtual channels per port.
    pub vcs: u32,
    /// Flits per VC buffer.
    pub vc_buffer_flits: u32,
    /// Wormhole or virtual cut-through.
    pub switching: Switching,
    /// Switch allocator.
    pub allocator: AllocatorKind,
    /// iSLIP iterations per cycle (present only with the iSLIP allocator).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub islip_iterations: Option<u32>,
    /// Cycles from a head flit reaching the front of its VC to its route being known.
    pub routing_delay: u32,
    /// Cycles from winning VC allocation to being eligible for switch allocation.
    pub vc_alloc_delay: u32,
    /// Cycles from winning switch allocation to entering the crossbar.
    pub switch_alloc_delay: u32,
    /// Cycles to cross the crossbar.
    pub crossbar_delay: u32,
    /// Cycles for a credit to travel back upstream.
    pub credit_latency: u32,
    /// Logical networks sharing the links: 1, or 2 (request and reply, each with half the
    /// VCs).
    #[serde(skip_serializing_if = "is_one")]
    pub logical_networks: u32,
    /// How two logical networks share a link (present with two networks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multiplexing: Option<Multiplexing>,
}

choice_enum! {
    /// How the request and reply networks share the physical links.
    pub enum Multiplexing {
        /// Either network's flits may use any cycle (VC and switch arbitration decide).
        Demand = "demand",
        /// Request flits cross links in even cycles, reply flits in odd ones.
        Time = "time",
    }
}

impl RouterConfig {
    /// VCs of each logical network.
    pub fn network_vcs(&self) -> u32 {
        self.vcs / self.logical_networks
    }

    /// The VC masks of the request and reply networks: all VCs and none with one network, the
    /// lower and upper halves with two.
    pub fn network_vc_masks(&self) -> [u32; 2] {
        let per = self.network_vcs();
        let low = if per >= 32 {
            u32::MAX
        } else {
            (1u32 << per) - 1
        };
        let reply = if self.logical_networks == 2 {
            low << per
        } else {
            0
        };
        [low, reply]
    }

    pub(crate) fn read(s: Section<'_>) -> Self {
        let allocator = s.choice("allocator", AllocatorKind::Separable);
        if s.has("islip_iterations") && allocator != AllocatorKind::Islip {
            s.problem(
                "islip_iterations",
                "only applies when router.allocator = \"islip\"",
            );
        }
        let logical_networks = s.int("logical_networks", 1, 1, 2);
        if s.has("multiplexing") && logical_networks == 1 {
            s.problem(
                "multiplexing",
                "only applies when router.logical_networks = 2",
            );
        }
        let cfg = RouterConfig {
            vcs: s.int("vcs", 4, 1, MAX_VCS),
            vc_buffer_flits: s.int("vc_buffer_flits", 8, 1, 4096),
            switching: s.choice("switching", Switching::Wormhole),
            allocator,
            islip_iterations: Some(s.int("islip_iterations", 1, 1, 16))
                .filter(|_| allocator == AllocatorKind::Islip),
            routing_delay: s.int("routing_delay", 1, 0, 64),
            vc_alloc_delay: s.int("vc_alloc_delay", 1, 0, 64),
            switch_alloc_delay: s.int("switch_alloc_delay", 1, 0, 64),
            crossbar_delay: s.int("crossbar_delay", 1, 0, 64),
            credit_latency: s.int("credit_latency", 1, 1, MAX_LATENCY),
            logical_networks,
            multiplexing: Some(s.choice("multiplexing", Multiplexing::Demand))
                .filter(|_| logical_networks == 2),
        };
        if !cfg.vcs.is_multiple_of(cfg.logical_networks) {
            s.problem(
                "vcs",
                format!(
                    "must split evenly between the {} logical networks",
                    cfg.logical_networks
                ),
            );
        }
        s.finish();
        cfg
    }
}

choice_enum! {
    /// Routing algorithm.
    pub enum RoutingAlgorithm {
        /// Dimension-order routing (lowest dimension first), minimal.
        Dor = "dor",
        /// Duato's protocol: DOR escape VCs (one per dateline class), the other VCs minimal
        /// fully adaptive.
        Duato = "duato",
        /// Minimal fully adaptive on every VC, with Disha-style deadlock recovery.
        Disha = "disha",
        /// Fat trees: up to a common ancestor, then down; the up port is chosen by the
        /// destination (destination-mod-k), so every route is fixed.
        DModK = "d_mod_k",
        /// Fat trees: like `d_mod_k`, but any up port may be taken (the free VC with the most
        /// credits; the destination-mod-k port when none is free).
        AdaptiveUp = "adaptive_up",
        /// Butterflies: each stage's output group is the next destination digit; in a dilated
        /// group, the free port with the most credits (else one picked at random per packet).
        DestinationTag = "destination_tag",
        /// Topology files: the file's forwarding tables, shortest paths where it has none.
        Table = "table",
    }
}

impl RoutingAlgorithm {
    /// The algorithms that route on `kind`, the default first.
    pub fn for_topology(kind: TopologyKind) -> &'static [RoutingAlgorithm] {
        match kind {
            TopologyKind::Torus | TopologyKind::Mesh => &[
                RoutingAlgorithm::Dor,
                RoutingAlgorithm::Duato,
                RoutingAlgorithm::Disha,
            ],
            TopologyKind::KaryNtree | TopologyKind::FoldedClos | TopologyKind::Cm5Fattree => {
                &[RoutingAlgorithm::DModK, RoutingAlgorithm::AdaptiveUp]
            }
            TopologyKind::Butterfly | TopologyKind::Multibutterfly => {
                &[RoutingAlgorithm::DestinationTag]
            }
            TopologyKind::File => &[RoutingAlgorithm::Table],
        }
    }
}

choice_enum! {
    /// Which way a packet goes around a ring when both directions are equally short.
    pub enum TieBreak {
        /// Always the positive direction.
        Positive = "positive",
        /// Positive from even coordinates, negative from odd ones (balances the two directions).
        Balanced = "balanced",
    }
}

/// `[routing]`: the routing function and its deadlock-avoidance VC classes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoutingConfig {
    /// The routing algorithm.
    pub algorithm: RoutingAlgorithm,
    /// Dateline coordinates per dimension (torus only). `None` selects the default scheme: the
    /// upper VC class for a whole dimension when the route wraps around that ring.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub datelines: Option<Vec<Vec<u32>>>,
    /// Rule for direction ties at distance k/2.
    pub tie_break: TieBreak,
    /// Disha only: cycles a head may wait for an output VC before it is presumed deadlocked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disha_timeout: Option<u32>,
    /// Disha only: cycles the recovery token takes from one router to the next.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disha_token_hop: Option<u32>,
}

impl RoutingConfig {
    pub(crate) fn read(s: Section<'_>, topology: &TopologyConfig) -> Self {
        let fitting = RoutingAlgorithm::for_topology(topology.kind);
        let algorithm = s.choice("algorithm", fitting[0]);
        if !fitting.contains(&algorithm) {
            let names: Vec<String> = fitting.iter().map(|a| format!("\"{a}\"")).collect();
            s.problem(
                "algorithm",
                format!(
                    "does not route on topology.kind = \"{}\"; use {}",
                    topology.kind.name(),
                    names.join(" or ")
                ),
            );
        }
        let tie_break = s.choice("tie_break", TieBreak::Balanced);
        let datelines = s
            .value("datelines")
            .and_then(|v| read_datelines(&s, v, topology));
        let disha = algorithm == RoutingAlgorithm::Disha;
        for key in ["disha_timeout", "disha_token_hop"] {
            if s.has(key) && !disha {
                s.problem(key, "only applies when routing.algorithm = \"disha\"");
            }
        }
        let cfg = RoutingConfig {
            algorithm,
            datelines,
            tie_break,
            disha_timeout: Some(s.int("disha_timeout", 8, 1, 1_000_000)).filter(|_| disha),
            disha_token_hop: Some(s.int("disha_token_hop", 1, 1, 1_000)).filter(|_| disha),
        };
        s.finish();
        cfg
    }
}

/// Accepts `[0, 8]` (the same coordinates in every dimension) or `[[0, 8], [0, 4]]` (per
/// dimension); every ring needs at least one dateline.
fn read_datelines(
    s: &Section<'_>,
    value: &toml::Value,
    topology: &TopologyConfig,
) -> Option<Vec<Vec<u32>>> {
    const SHAPE: &str = "an array of coordinates, or one such array per dimension";
    if topology.kind != TopologyKind::Torus {
        s.problem(
            "datelines",
            "datelines only apply to topology.kind = \"torus\"",
        );
        return None;
    }
    let Some(items) = value.as_array() else {
        s.problem("datelines", format!("expected {SHAPE}"));
        return None;
    };
    let ints = |v: &toml::Value| -> Option<Vec<u32>> {
        v.as_array()?
            .iter()
            .map(|x| x.as_integer().and_then(|i| u32::try_from(i).ok()))
            .collect()
    };
    let per_dim: Vec<Vec<u32>> = if items.iter().all(|x| x.is_integer()) {
        vec![ints(value)?; topology.dims.len()]
    } else if items.iter().all(|x| x.is_array()) {
        match items.iter().map(ints).collect::<Option<Vec<_>>>() {
            Some(d) if d.len() == topology.dims.len() => d,
            Some(d) => {
                s.problem(
                    "datelines",
                    format!(
                        "gives {} dimensions but the torus has {}",
                        d.len(),
                        topology.dims.len()
                    ),
                );
                return None;
            }
            None => {
                s.problem("datelines", format!("expected {SHAPE}"));
                return None;
            }
        }
    } else {
        s.problem("datelines", format!("expected {SHAPE}"));
        return None;
    };
    let mut out = Vec::with_capacity(per_dim.len());
    for (d, (mut coords, &k)) in per_dim.into_iter().zip(&topology.dims).enumerate() {
        coords.sort_unstable();
        coords.dedup();
        if coords.is_empty() {
            s.problem(
                "datelines",
                format!("dimension {d} has no dateline; every ring needs at least one"),
            );
            return None;
        }
        if let Some(&bad) = coords.iter().find(|&&c| c >= k) {
            s.problem(
                "datelines",
                format!("coordinate {bad} is outside dimension {d} (0 to {})", k - 1),
            );
            return None;
        }
        out.push(coords);
    }
    Some(out)
}

/// `[nic]`: the network interface of every node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NicConfig {
    /// Latency of the injection channel (NIC to router), cycles.
    pub injection_latency: u32,
    /// Latency of the ejection channel (router to NIC), cycles.
    pub ejection_latency: u32,
    /// Flits per cycle the NIC consumes from the network, in (0, 1].
    pub ejection_rate: f64,
    /// Most packets waiting in the source queue for injection to start (the one being
    /// injected is not counted); a packet created when it is full is refused. Absent: unbounded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_queue_packets: Option<u32>,
    /// Cycles per flit on the injection and ejection channels (1: a flit every cycle).
    #[serde(skip_serializing_if = "is_one")]
    pub link_period: u32,
}

/// Whether a period is the default of one cycle per flit (left out of serialized configs).
fn is_one(period: &u32) -> bool {
    *period == 1
}

impl NicConfig {
    pub(crate) fn read(s: Section<'_>) -> Self {
        let cfg = NicConfig {
            injection_latency: s.int("injection_latency", 1, 1, MAX_LATENCY),
            ejection_latency: s.int("ejection_latency", 1, 1, MAX_LATENCY),
            ejection_rate: s.float(
                "ejection_rate",
                1.0,
                |x| x > 0.0 && x <= 1.0,
                "greater than 0 and at most 1 (flits/cycle)",
            ),
            source_queue_packets: s.opt_int("source_queue_packets", 1, 1 << 20),
            link_period: s.int("link_period", 1, 1, MAX_PERIOD),
        };
        s.finish();
        cfg
    }
}

choice_enum! {
    /// Destination pattern. Bit patterns act on the node index (dimension 0 least significant).
    pub enum PatternKind {
        /// Uniformly random destination (excluding the source unless `include_self`).
        Uniform = "uniform",
        /// Every address bit inverted.
        BitComplement = "bit_complement",
        /// Address bits in reverse order.
        BitReverse = "bit_reverse",
        /// Address rotated right by one bit.
        BitRotation = "bit_rotation",
        /// Address rotated left by one bit.
        PerfectShuffle = "perfect_shuffle",
        /// Most and least significant address bits swapped.
        Butterfly = "butterfly",
        /// Coordinates rotated by n/2 dimensions ((x, y) -> (y, x) in 2-D).
        Transpose = "transpose",
        /// Every coordinate advanced by ceil(k/2) - 1.
        Tornado = "tornado",
        /// The node index advanced by half the first radix, W -> (W + k/2) mod N (the tornado
        /// of the entropy-throttling paper: on a k x k torus, half the rows move k/2 along x,
        /// the others wrap into the next row).
        TornadoIndex = "tornado_index",
        /// Every coordinate advanced by one.
        Neighbor = "neighbor",
        /// A fixed random permutation (seeded).
        RandomPermutation = "random_permutation",
        /// Nodes paired at random (seeded); each sends to its partner.
        RandomPair = "random_pair",
        /// A fraction of packets goes to a set of hot nodes, the rest is uniform.
        Hotspot = "hotspot",
    }
}

choice_enum! {
    /// What happens to a packet whose destination is its own source.
    pub enum SelfPackets {
        /// Created and delivered through the source's own router (zero hops).
        Deliver = "deliver",
        /// Not created: the source leaves that creation slot empty.
        Skip = "skip",
    }
}

choice_enum! {
    /// When a source creates packets.
    pub enum ProcessKind {
        /// Each cycle, a packet with probability rate / packet_flits.
        Bernoulli = "bernoulli",
        /// One packet every packet_flits / rate cycles, optionally jittered.
        Periodic = "periodic",
        /// Collective communication: every node has `packets_per_node` packets at cycle 0 and
        /// the run lasts until all are delivered.
        Collective = "collective",
        /// Ramp load: a Bernoulli process whose load rises from 0 by `ramp_slope` per cycle up
        /// to `rate`.
        Ramp = "ramp",
        /// Bulk-synchronous phases: nodes send as fast as their processors can, messages to
        /// random destinations, and wait at a barrier after each phase (needs `[processor]`).
        Bsp = "bsp",
        /// Cyclic shift: in phase p of P - 1, node i sends to (i + p) mod P (needs `[processor]`).
        Cshift = "cshift",
        /// Replay of a packet trace (`trace_file`): each packet created at its (scaled) time.
        Trace = "trace",
    }
}

/// Longest traffic phase, in cycles.
pub const MAX_PHASE_CYCLES: u64 = 1 << 40;

/// One `[[traffic.phases]]` entry: a stretch of the schedule with its own pattern and rate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PhaseConfig {
    /// Length of the phase in cycles.
    pub cycles: u64,
    /// Destination pattern of the packets created during the phase.
    pub pattern: PatternKind,
    /// Offered load during the phase, flits/node/cycle (0 to `packet_flits`).
    pub rate: f64,
}

/// `[traffic]`: the offered workload.
///
/// Either one `pattern` at one `rate` for the whole run, or a schedule of `phases`, each with
/// its own length, pattern and rate (the schedule starts at cycle 0 and, unless
/// `repeat_phases = false`, starts over after its last phase).
#[derive(Debug, Clone, PartialEq)]
pub struct TrafficConfig {
    /// Destination pattern. With `phases`: the first phase's pattern (derived, not written out).
    pub pattern: PatternKind,
    /// Uniform only: whether a node may send to itself.
    pub include_self: Option<bool>,
    /// Hotspot only: the hot nodes.
    pub hotspot_nodes: Option<Vec<u32>>,
    /// Hotspot only: fraction of packets sent to a hot node.
    pub hotspot_fraction: Option<f64>,
    /// Offered load in flits/node/cycle, from 0 to `packet_flits` (one packet per node per
    /// cycle). With `phases`: the mean rate over one pass of the schedule (derived, not written
    /// out).
    pub rate: f64,
    /// Packet length in flits.
    pub packet_flits: u32,
    /// Injection process (of every phase).
    pub process: ProcessKind,
    /// Periodic only: each packet is delayed by up to this fraction of the interval.
    pub jitter: Option<f64>,
    /// Packets addressed to their own source: delivered locally or not created.
    pub self_packets: SelfPackets,
    /// A schedule of phases replacing `pattern` and `rate`.
    pub phases: Option<Vec<PhaseConfig>>,
    /// With `phases` only: whether the schedule starts over after its last phase (otherwise
    /// sources stop creating packets).
    pub repeat_phases: Option<bool>,
    /// Collective only: packets every node sends.
    pub packets_per_node: Option<u32>,
    /// Ramp only: load increase per cycle, flits/node/cycle per cycle.
    pub ramp_slope: Option<f64>,
    /// Ramp only: samples in the moving average that smooths the ramp curves.
    pub ramp_smoothing: Option<u32>,
    /// Ramp only: the critical load is where smoothed throughput falls this fraction below the
    /// offered load.
    pub ramp_drop: Option<f64>,
    /// The closed-loop workloads (`bsp`, `cshift`) only: their phases.
    pub program: Option<ProgramConfig>,
    /// Trace replay only: the trace file.
    pub trace_file: Option<String>,
    /// Trace replay only: creation times are multiplied by this (2: half the load).
    pub trace_time_scale: Option<f64>,
}

impl ProcessKind {
    /// Whether nodes send as fast as their processors can (the workload is a program), rather
    /// than at an offered rate.
    pub fn is_program(self) -> bool {
        matches!(self, ProcessKind::Bsp | ProcessKind::Cshift)
    }

    /// Whether the workload's destinations come from `traffic.pattern`.
    pub fn has_pattern(self) -> bool {
        !self.is_program() && self != ProcessKind::Trace
    }

    /// Whether the offered load is `traffic.rate`.
    pub fn has_rate(self) -> bool {
        self.has_pattern() && self != ProcessKind::Collective
    }

    /// Whether the run lasts until the workload's last packet is delivered (cut off by
    /// `sim.drain_cycles_max`) rather than for a measurement window.
    pub fn until_delivered(self) -> bool {
        matches!(
            self,
            ProcessKind::Collective | ProcessKind::Cshift | ProcessKind::Trace
        )
    }
}

/// The ramp's default load increase per cycle: 0.1 flits/node/cycle every million cycles.
pub const DEFAULT_RAMP_SLOPE: f64 = 1e-7;

impl TrafficConfig {
    /// Cycles the ramp takes to reach `rate` (ramp load only).
    pub fn ramp_cycles(&self) -> Option<u64> {
        self.ramp_slope
            .map(|slope| (self.rate / slope).ceil().max(1.0) as u64)
    }
}

impl Serialize for TrafficConfig {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        /// The keys as a user writes them: `pattern` and `rate` only without `phases`.
        #[derive(Serialize)]
        struct Written<'a> {
            #[serde(skip_serializing_if = "Option::is_none")]
            pattern: Option<PatternKind>,
            #[serde(skip_serializing_if = "Option::is_none")]
            include_self: Option<bool>,
            #[serde(skip_serializing_if = "Option::is_none")]
            hotspot_nodes: Option<&'a Vec<u32>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            hotspot_fraction: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            rate: Option<f64>,
            packet_flits: u32,
            process: ProcessKind,
            #[serde(skip_serializing_if = "Option::is_none")]
            jitter: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            self_packets: Option<SelfPackets>,
            #[serde(skip_serializing_if = "Option::is_none")]
            phases: Option<&'a Vec<PhaseConfig>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            repeat_phases: Option<bool>,
            #[serde(skip_serializing_if = "Option::is_none")]
            packets_per_node: Option<u32>,
            #[serde(skip_serializing_if = "Option::is_none")]
            ramp_slope: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            ramp_smoothing: Option<u32>,
            #[serde(skip_serializing_if = "Option::is_none")]
            ramp_drop: Option<f64>,
            #[serde(flatten, skip_serializing_if = "Option::is_none")]
            program: Option<&'a ProgramConfig>,
            #[serde(skip_serializing_if = "Option::is_none")]
            trace_file: Option<&'a String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            trace_time_scale: Option<f64>,
        }
        let single = self.phases.is_none();
        let rated = single && self.process.has_rate();
        Written {
            pattern: Some(self.pattern).filter(|_| single && self.process.has_pattern()),
            include_self: self.include_self,
            hotspot_nodes: self.hotspot_nodes.as_ref(),
            hotspot_fraction: self.hotspot_fraction,
            rate: Some(self.rate).filter(|_| rated),
            packet_flits: self.packet_flits,
            process: self.process,
            jitter: self.jitter,
            self_packets: Some(self.self_packets).filter(|&x| x != SelfPackets::Deliver),
            phases: self.phases.as_ref(),
            repeat_phases: self.repeat_phases,
            packets_per_node: self.packets_per_node,
            ramp_slope: self.ramp_slope,
            ramp_smoothing: self.ramp_smoothing,
            ramp_drop: self.ramp_drop,
            program: self.program.as_ref(),
            trace_file: self.trace_file.as_ref(),
            trace_time_scale: self.trace_time_scale,
        }
        .serialize(ser)
    }
}

/// The allowed range of an offered rate: 0 to one packet per node per cycle.
struct RateBound {
    /// `packet_flits`, or `None` when the packet length was rejected (no upper bound is then
    /// checked: it would be about a value the user did not write).
    max: Option<f64>,
    /// The range in words.
    allowed: String,
}

impl RateBound {
    fn new(packet_flits: Option<u32>) -> Self {
        match packet_flits {
            Some(f) => RateBound {
                max: Some(f as f64),
                allowed: format!(
                    "from 0 to {f} (flits/node/cycle; at most one {f}-flit packet per node per \
                     cycle)"
                ),
            },
            None => RateBound {
                max: None,
                allowed: "of at least 0 (flits/node/cycle)".into(),
            },
        }
    }

    fn allows(&self, x: f64) -> bool {
        x >= 0.0 && self.max.is_none_or(|max| x <= max)
    }
}

/// The keys of a `[[traffic.phases]]` entry, all required.
const PHASE_KEYS: [&str; 3] = ["cycles", "pattern", "rate"];

/// Reads `traffic.phases`. Each phase is read with its own [`Section`]; its problems are
/// reported at `traffic.phases[i].key` (the value given is appended to the message, as the
/// path does not name a key of `[traffic]`). Returns the phases, an invalid value replaced by
/// its default so that phase `i` stays at index `i`, and whether every phase's pattern was read.
fn read_phases(s: &Section<'_>, bound: &RateBound) -> Option<(Vec<PhaseConfig>, bool)> {
    const SHAPE: &str = "an array of tables (`[[traffic.phases]]` entries) with keys cycles, \
                         pattern and rate";
    let value = s.value("phases")?;
    let Some(items) = value.as_array() else {
        s.problem("phases", format!("expected {SHAPE}"));
        return None;
    };
    if items.is_empty() {
        s.problem("phases", "needs at least one phase");
        return None;
    }
    let mut phases = Vec::with_capacity(items.len());
    let mut patterns_known = true;
    for (i, item) in items.iter().enumerate() {
        let here = format!("phases[{i}]");
        let Some(table) = item.as_table() else {
            s.problem(
                &here,
                format!(
                    "expected a table with keys cycles, pattern and rate; given: {}",
                    super::reader::render(item)
                ),
            );
            patterns_known = false;
            phases.push(PhaseConfig {
                cycles: 1,
                pattern: PatternKind::Uniform,
                rate: 0.0,
            });
            continue;
        };
        let p = s.element("phases", i, table);
        for key in PHASE_KEYS {
            if !p.has(key) {
                p.problem(key, "missing; every phase needs cycles, pattern and rate");
            }
        }
        let cycles = p.int("cycles", 1, 1, MAX_PHASE_CYCLES);
        let pattern = p.opt_choice("pattern");
        patterns_known &= pattern.is_some();
        phases.push(PhaseConfig {
            cycles,
            pattern: pattern.unwrap_or(PatternKind::Uniform),
            rate: p.float("rate", 0.0, |x| bound.allows(x), &bound.allowed),
        });
        p.finish();
    }
    Some((phases, patterns_known))
}

impl TrafficConfig {
    pub(crate) fn read(s: Section<'_>) -> Self {
        let given_flits = s.opt_int("packet_flits", 1u32, 4096);
        let packet_flits = given_flits.unwrap_or(8);
        let bound = RateBound::new(if s.has("packet_flits") {
            given_flits
        } else {
            Some(packet_flits)
        });
        let process = s.choice("process", ProcessKind::Bernoulli);
        let program = ProgramConfig::read(&s, process);
        let phased = s.has("phases");
        let (pattern, rate, phases, patterns_known) = if phased {
            for key in ["pattern", "rate"] {
                if s.value(key).is_some() {
                    s.problem(
                        key,
                        "give either `traffic.pattern` and `traffic.rate` or `traffic.phases` \
                         (each phase has its own pattern and rate), not both",
                    );
                }
            }
            match read_phases(&s, &bound) {
                Some((phases, known)) => {
                    let cycles: f64 = phases.iter().map(|p| p.cycles as f64).sum();
                    let flits: f64 = phases.iter().map(|p| p.cycles as f64 * p.rate).sum();
                    (phases[0].pattern, flits / cycles, Some(phases), known)
                }
                None => (PatternKind::Uniform, 0.0, None, false),
            }
        } else if !process.has_pattern() {
            let why = if process.is_program() {
                "nodes send as fast as their processors can, to the destinations the workload \
                 defines"
            } else {
                "the trace gives every packet's time, source, destination and length"
            };
            for key in ["pattern", "rate"] {
                if s.value(key).is_some() {
                    s.problem(
                        key,
                        format!("does not apply to traffic.process = \"{process}\" ({why})"),
                    );
                }
            }
            (PatternKind::Uniform, 0.0, None, true)
        } else {
            let pattern = s.opt_choice("pattern");
            let rate = s.float("rate", 0.2, |x| bound.allows(x), &bound.allowed);
            (
                pattern.unwrap_or(PatternKind::Uniform),
                rate,
                None,
                pattern.is_some() || !s.has("pattern"),
            )
        };
        let used: Vec<PatternKind> = match &phases {
            Some(phases) => phases.iter().map(|p| p.pattern).collect(),
            None => vec![pattern],
        };
        let uses = |kind: PatternKind| used.contains(&kind);
        let only_for_pattern = |key: &str, kind: PatternKind| {
            if s.has(key) && patterns_known && !uses(kind) {
                s.problem(
                    key,
                    if phased {
                        format!("only applies when a phase has pattern = \"{kind}\"")
                    } else {
                        format!("only applies when traffic.pattern = \"{kind}\"")
                    },
                );
            }
        };
        only_for_pattern("include_self", PatternKind::Uniform);
        only_for_pattern("hotspot_nodes", PatternKind::Hotspot);
        only_for_pattern("hotspot_fraction", PatternKind::Hotspot);
        let collective = process == ProcessKind::Collective;
        let ramp = process == ProcessKind::Ramp;
        for (key, applies, when) in [
            (
                "jitter",
                process == ProcessKind::Periodic,
                "traffic.process = \"periodic\"",
            ),
            ("repeat_phases", phased, "traffic.phases is given"),
            (
                "packets_per_node",
                collective,
                "traffic.process = \"collective\"",
            ),
            ("ramp_slope", ramp, "traffic.process = \"ramp\""),
            ("ramp_smoothing", ramp, "traffic.process = \"ramp\""),
            ("ramp_drop", ramp, "traffic.process = \"ramp\""),
        ] {
            if s.has(key) && !applies {
                s.problem(key, format!("only applies when {when}"));
            }
        }
        let hotspot_nodes: Vec<u32> = s
            .opt_int_list("hotspot_nodes", 0, u32::MAX as i64)
            .unwrap_or_default()
            .into_iter()
            .map(|x| x as u32)
            .collect();
        let uniform = uses(PatternKind::Uniform);
        let hotspot = uses(PatternKind::Hotspot);
        if hotspot && hotspot_nodes.is_empty() {
            s.problem(
                "hotspot_nodes",
                "the hotspot pattern needs at least one hot node",
            );
        }
        let cfg = TrafficConfig {
            pattern,
            include_self: Some(s.boolean("include_self", false)).filter(|_| uniform),
            hotspot_nodes: Some(hotspot_nodes).filter(|_| hotspot),
            hotspot_fraction: Some(s.float(
                "hotspot_fraction",
                0.5,
                |x| (0.0..=1.0).contains(&x),
                "from 0 to 1",
            ))
            .filter(|_| hotspot),
            rate,
            packet_flits,
            process,
            jitter: Some(s.float("jitter", 0.0, |x| (0.0..=1.0).contains(&x), "from 0 to 1"))
                .filter(|_| process == ProcessKind::Periodic),
            self_packets: s.choice("self_packets", SelfPackets::Deliver),
            repeat_phases: Some(s.boolean("repeat_phases", true)).filter(|_| phases.is_some()),
            phases,
            packets_per_node: Some(s.int("packets_per_node", 10, 1, 1_000_000))
                .filter(|_| collective),
            ramp_slope: Some(s.float(
                "ramp_slope",
                DEFAULT_RAMP_SLOPE,
                |x| x > 0.0 && x <= 1.0,
                "greater than 0 and at most 1 (flits/node/cycle per cycle)",
            ))
            .filter(|_| ramp),
            ramp_smoothing: Some(s.int("ramp_smoothing", 400, 1, 1_000_000)).filter(|_| ramp),
            ramp_drop: Some(s.float(
                "ramp_drop",
                0.1,
                |x| x > 0.0 && x < 1.0,
                "between 0 and 1 (exclusive)",
            ))
            .filter(|_| ramp),
            program,
            trace_file: read_trace_file(&s, process),
            trace_time_scale: Some(s.float(
                "trace_time_scale",
                1.0,
                |x| x > 0.0 && x <= 1e6,
                "greater than 0 and at most 10^6",
            ))
            .filter(|_| process == ProcessKind::Trace),
        };
        if (collective || ramp || !process.has_pattern()) && phased {
            s.problem(
                "phases",
                format!("cannot be combined with traffic.process = \"{process}\""),
            );
        }
        if collective && s.has("rate") {
            s.problem(
                "rate",
                "does not apply to traffic.process = \"collective\" (nodes send \
                 packets_per_node packets as fast as the network takes them)",
            );
        }
        if let Some(cycles) = cfg.ramp_cycles()
            && cycles > MAX_PHASE_CYCLES
        {
            s.problem(
                "ramp_slope",
                format!("the ramp to rate {} would take {cycles} cycles", cfg.rate),
            );
        }
        s.finish();
        cfg
    }
}

/// Reads `trace_file` (required with `process = "trace"`, refused otherwise); the file must
/// exist.
fn read_trace_file(s: &Section<'_>, process: ProcessKind) -> Option<String> {
    let replay = process == ProcessKind::Trace;
    if !replay {
        for key in ["trace_file", "trace_time_scale"] {
            if s.has(key) {
                s.problem(key, "only applies when traffic.process = \"trace\"");
            }
        }
        s.value("trace_file");
        return None;
    }
    match s.value("trace_file") {
        None => {
            s.problem(
                "trace_file",
                "missing; traffic.process = \"trace\" replays the packet trace in this file",
            );
            None
        }
        Some(toml::Value::String(path)) => {
            if !std::path::Path::new(path).is_file() {
                s.problem("trace_file", "no such file");
            }
            Some(path.clone())
        }
        Some(_) => {
            s.problem(
                "trace_file",
                "expected the path of a packet trace (a string)",
            );
            None
        }
    }
}

/// `[sim]`: warm-up, measurement window and drain.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimConfig {
    /// Cycles simulated before measurement starts.
    pub warmup_cycles: u64,
    /// Length of the measurement window; packets created in it are measured.
    pub measure_cycles: u64,
    /// Cycles after the window to wait for measured packets; hitting it marks the run saturated.
    pub drain_cycles_max: u64,
    /// The run is declared unstable (saturated) when accepted throughput falls more than this
    /// fraction below offered throughput.
    pub stability_tolerance: f64,
    /// Check flit and credit conservation every cycle (slow; for tests and debugging).
    pub check_invariants: bool,
}

impl SimConfig {
    pub(crate) fn read(s: Section<'_>) -> Self {
        const MAX_CYCLES: u64 = 1 << 40;
        let cfg = SimConfig {
            warmup_cycles: s.int("warmup_cycles", 10_000, 0, MAX_CYCLES),
            measure_cycles: s.int("measure_cycles", 20_000, 1, MAX_CYCLES),
            drain_cycles_max: s.int("drain_cycles_max", 20_000, 0, MAX_CYCLES),
            stability_tolerance: s.float(
                "stability_tolerance",
                0.05,
                |x| (0.0..1.0).contains(&x),
                "from 0 up to (not including) 1",
            ),
            check_invariants: s.boolean("check_invariants", false),
        };
        s.finish();
        cfg
    }
}
