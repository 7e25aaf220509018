//! `[topology]`: the network's shape, from its kind's keys or a topology file.

use serde::Serialize;

use super::Choice;
use super::reader::{Section, choice_enum};
use super::{Config, MAX_LATENCY, MAX_NODES, MAX_PERIOD};
use crate::topology::{
    Arrangement, CubeShape, CustomShape, DragonflyShape, FlyShape, HyperXShape, Layout, Timing,
    Topology, TreeShape, hyperx_ports,
};

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
        /// Dragonfly: `groups` groups of `a` all-to-all routers with `p` terminals and `h`
        /// global links each.
        Dragonfly = "dragonfly",
        /// HyperX: switches on a grid (`dims` switches per dimension), each linked to every
        /// switch that differs in one coordinate, with `terminals` nodes each.
        Hyperx = "hyperx",
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
    /// The grid of node addresses: the radix of every dimension of a torus or mesh, dimension 0
    /// first (`k` repeated `n` times unless `dims` is given); (nodes per group, groups) on a
    /// dragonfly; (terminals, then switches per dimension) on a HyperX; for other kinds, the
    /// node count (a line of node addresses).
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
    /// The file `layout` was parsed from, so that a config edited in code keeps it only while
    /// `file` still names it.
    parsed_file: Option<String>,
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
            (Layout::Dragonfly(fly), _) => {
                out.serialize_field("p", &fly.p())?;
                out.serialize_field("a", &fly.a())?;
                out.serialize_field("h", &fly.h())?;
                out.serialize_field("groups", &fly.groups())?;
                out.serialize_field("arrangement", fly.arrangement().name())?;
                out.serialize_field("local_latency", &fly.local_latency())?;
                out.serialize_field("global_latency", &fly.global_latency())?;
            }
            (Layout::HyperX(x), _) => {
                out.serialize_field("dims", x.dims())?;
                out.serialize_field("terminals", &x.terminals())?;
                out.serialize_field("trunking", x.trunking())?;
            }
            (Layout::Fly(fly), kind) => {
                out.serialize_field("k", &fly.k())?;
                out.serialize_field("n", &fly.stages())?;
                if kind == TopologyKind::Multibutterfly {
                    out.serialize_field("dilation", &fly.dilation())?;
                }
            }
        }
        if !matches!(self.layout, Layout::Dragonfly(_)) {
            out.serialize_field("link_latency", &self.link_latency)?;
        }
        if self.link_period != 1 {
            out.serialize_field("link_period", &self.link_period)?;
        }
        out.end()
    }
}

impl Choice for Arrangement {
    const CHOICES: &'static [(&'static str, Self)] = &Arrangement::NAMED;

    fn name(self) -> &'static str {
        Arrangement::name(self)
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
        TopologyKind::Dragonfly => &[
            "p",
            "a",
            "h",
            "groups",
            "arrangement",
            "local_latency",
            "global_latency",
        ],
        TopologyKind::Hyperx => &["dims", "terminals", "trunking"],
    }
}

/// Every key some topology kind reads besides `kind` and `link_latency`, each once, in the
/// order of the kinds.
fn all_shape_keys() -> Vec<&'static str> {
    let mut keys: Vec<&'static str> = Vec::new();
    for (_, kind) in TopologyKind::CHOICES {
        for key in shape_keys(*kind) {
            if !keys.contains(key) {
                keys.push(key);
            }
        }
    }
    keys
}

impl TopologyConfig {
    /// Reads `[topology]`; a topology file is parsed unless `known` (a section read before)
    /// already holds the same file.
    pub(crate) fn read(s: Section<'_>, known: Option<&TopologyConfig>) -> Self {
        let kind = s.choice("kind", TopologyKind::Torus);
        for key in all_shape_keys() {
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
        let known_file = known.filter(|k| k.parsed_file.is_some() && k.parsed_file == file);
        let layout = match (&file, known_file) {
            (Some(_), Some(known)) => known.layout.clone(),
            (Some(path), None) => read_file(&s, path),
            (None, _) => read_layout(&s, kind),
        };
        let dims = layout.addresses().dims().to_vec();
        let link_latency = match &layout {
            Layout::Dragonfly(fly) => {
                if s.has("link_latency") {
                    s.value("link_latency");
                    s.problem(
                        "link_latency",
                        "a dragonfly times its local and global links apart: give \
                         `local_latency` and `global_latency` instead",
                    );
                }
                fly.local_latency()
            }
            _ => s.int("link_latency", 1, 1, MAX_LATENCY),
        };
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
            parsed_file: file.clone(),
            file,
            deadlock_check,
        }
    }

    /// Number of terminal nodes.
    pub fn nodes(&self) -> usize {
        self.dims.iter().map(|&k| k as usize).product()
    }
}

impl Topology {
    /// The network a configuration describes: its `[topology]`, with the terminal channels of
    /// its `[nic]`.
    pub fn from_config(cfg: &Config) -> Topology {
        let (section, nic) = (&cfg.topology, &cfg.nic);
        let links = Timing {
            latency: section.link_latency,
            period: section.link_period,
        };
        let terminals = Timing {
            latency: nic.ejection_latency,
            period: nic.link_period,
        };
        Topology::new(&section.layout, links, terminals, cfg.seed)
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

/// The topology file at `path`. A problem with it (an empty path, a file that is missing, not
/// a regular file, over [`MAX_TOPOLOGY_BYTES`](crate::files::MAX_TOPOLOGY_BYTES) or not a
/// topology) is reported on `file`, naming its line; the section is then invalid, and the
/// layout returned only lets the remaining keys be checked: it is never simulated. Whether its
/// routes can deadlock is checked by the [`Spec`](crate::spec::Spec).
fn read_file(s: &Section<'_>, path: &str) -> Layout {
    let parsed = if path.is_empty() {
        Err("an empty path names no topology file".to_string())
    } else {
        crate::files::read_text(std::path::Path::new(path), crate::files::MAX_TOPOLOGY_BYTES)
            .map_err(|why| format!("cannot read {path}: {why}"))
            .and_then(|text| CustomShape::parse(&text).map_err(|e| format!("{path}: {e}")))
    };
    match parsed {
        Ok(shape) => Layout::File(shape),
        Err(message) => {
            s.problem("file", message);
            Layout::File(CustomShape::parse(PLACEHOLDER).expect("the placeholder is a topology"))
        }
    }
}

/// The smallest topology, standing in for a topology file that could not be read while the
/// section's other keys are checked; the section has a problem recorded, so it never runs.
const PLACEHOLDER: &str = "switch s ports 2\nnode a s.0\nnode b s.1\n";

/// The shape of `kind` from its keys; a network over [`MAX_NODES`] is reported (on `key`) and
/// replaced by the smallest of its kind.
fn read_layout(s: &Section<'_>, kind: TopologyKind) -> Layout {
    let fits = |key: &str, nodes: u64| {
        let ok = nodes <= MAX_NODES;
        if !ok {
            // Counts are multiplied saturating: the largest means the product overflowed.
            let count = match nodes {
                u64::MAX => "more than 2^64".to_string(),
                n => n.to_string(),
            };
            s.problem(
                key,
                format!("the network would have {count} nodes; at most {MAX_NODES} are supported"),
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
        TopologyKind::Dragonfly => read_dragonfly(s, &fits),
        TopologyKind::Hyperx => read_hyperx(s, &fits),
        TopologyKind::File => unreachable!("topology files are read by `read_file`"),
    }
}

/// Ports a VC router can have (port sets are 64-bit masks).
const MAX_ROUTER_PORTS: u32 = 64;

/// A dragonfly from `p`, `a`, `h`, `groups` and `arrangement`; one over 64 ports per router,
/// or over [`MAX_NODES`] (`fits`), is reported and replaced by the smallest.
fn read_dragonfly(s: &Section<'_>, fits: &dyn Fn(&str, u64) -> bool) -> Layout {
    let p: u32 = s.int("p", 4, 1, MAX_ROUTER_PORTS);
    let a: u32 = s.int("a", 8, 2, MAX_ROUTER_PORTS);
    let h: u32 = s.int("h", 4, 1, MAX_ROUTER_PORTS);
    let most = a * h + 1;
    let groups: u32 = match s.opt_int::<u32>("groups", 2, 1 << 20) {
        Some(g) if g > most => {
            s.problem(
                "groups",
                format!(
                    "at most a·h + 1 = {most} groups (each pair of groups needs a global link)"
                ),
            );
            most
        }
        Some(g) => g,
        None => most,
    };
    let arrangement = s.choice("arrangement", Arrangement::Consecutive);
    let local_latency = s.int("local_latency", 1, 1, MAX_LATENCY);
    let global_latency = s.int("global_latency", 1, 1, MAX_LATENCY);
    let ports = p + a - 1 + h;
    let small = (1, 2, 1, 2);
    let shape = if ports > MAX_ROUTER_PORTS {
        s.problem(
            "a",
            format!(
                "p + a − 1 + h = {ports} ports per router; VC routers have at most \
                 {MAX_ROUTER_PORTS}"
            ),
        );
        small
    } else if !fits("groups", u64::from(p) * u64::from(a) * u64::from(groups)) {
        small
    } else {
        (p, a, h, groups)
    };
    Layout::Dragonfly(DragonflyShape::new(
        shape,
        arrangement,
        local_latency,
        global_latency,
    ))
}

/// A HyperX from `dims` (switches per dimension), `terminals` and `trunking`; one over 64
/// ports per switch, or over [`MAX_NODES`] (`fits`), is reported and replaced by the smallest.
fn read_hyperx(s: &Section<'_>, fits: &dyn Fn(&str, u64) -> bool) -> Layout {
    let small = || HyperXShape::new(vec![2], 1, vec![1]);
    let dims: Vec<u32> = match s.opt_int_list("dims", 2, i64::from(MAX_ROUTER_PORTS) + 1) {
        Some(d) if !d.is_empty() && d.len() <= 16 => d.into_iter().map(|x| x as u32).collect(),
        Some(_) => {
            s.problem(
                "dims",
                "must list between 1 and 16 dimensions (switches in each)",
            );
            return Layout::HyperX(small());
        }
        None => vec![4, 4],
    };
    let terminals: u32 = s.int("terminals", 4, 1, MAX_ROUTER_PORTS);
    let trunking: Vec<u32> = match s.opt_int_list("trunking", 1, i64::from(MAX_ROUTER_PORTS)) {
        Some(t) if t.len() == dims.len() => t.into_iter().map(|x| x as u32).collect(),
        Some(t) => {
            s.problem(
                "trunking",
                format!(
                    "gives {} links per dimension for {} dimensions",
                    t.len(),
                    dims.len()
                ),
            );
            vec![1; dims.len()]
        }
        None => vec![1; dims.len()],
    };
    // At most 64 + 16 · 64 · 64: no overflow.
    let ports = hyperx_ports(&dims, terminals, &trunking);
    if ports > MAX_ROUTER_PORTS {
        s.problem(
            "dims",
            format!(
                "terminals + Σ (dims[d] − 1)·trunking[d] = {ports} ports per switch; VC routers \
                 have at most {MAX_ROUTER_PORTS}"
            ),
        );
        return Layout::HyperX(small());
    }
    let nodes = dims
        .iter()
        .fold(u64::from(terminals), |n, &d| n.saturating_mul(u64::from(d)));
    if !fits("dims", nodes) {
        return Layout::HyperX(small());
    }
    Layout::HyperX(HyperXShape::new(dims, terminals, trunking))
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
