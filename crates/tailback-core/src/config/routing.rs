//! `[routing]`: the routing function and its deadlock-avoidance VC classes.

use serde::Serialize;

use super::reader::{Section, choice_enum};
use super::{Choice, TopologyConfig, TopologyKind};
use crate::topology::Layout;

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
        /// Fat trees: like `d_mod_k`, but each packet draws its up port at every level
        /// uniformly at random (oblivious load spreading, as BookSim2's nearest-common-ancestor
        /// routing), from its source's routing stream.
        RandomUp = "random_up",
        /// Butterflies: each stage's output group is the next destination digit; in a dilated
        /// group, the free port with the most credits (else one picked at random per packet).
        DestinationTag = "destination_tag",
        /// Topology files: the file's forwarding tables, shortest paths where it has none; the
        /// first port of a route that lists several.
        Table = "table",
        /// Topology files: as `table`, but any port a route lists, chosen per packet by the
        /// queues (the free VC with the most credits; on the buffered fabric the least occupied
        /// Port VL).
        Adaptive = "adaptive",
        /// Dragonflies: minimal (a local hop, the global hop, a local hop), parallel global
        /// links picked per packet.
        Min = "min",
        /// Dragonflies and HyperX: through an intermediate group (switch) drawn per packet
        /// (Valiant's algorithm).
        Valiant = "valiant",
        /// Dragonflies and HyperX: minimal or Valiant, chosen at the source router by the
        /// queues of the output ports each would leave through (UGAL-L).
        UgalL = "ugal_l",
        /// Dragonflies: minimal or Valiant, chosen at the source router by the queues of the
        /// global channels each would take, wherever they are (UGAL-G, an ideal bound).
        UgalG = "ugal_g",
        /// Dragonflies: as `ugal_l`, and a packet that stayed minimal chooses once more at the
        /// router of its global link (progressive adaptive routing).
        Par = "par",
        /// HyperX: dimension-adaptive, load-balanced routing (Ahn et al.): any dimension still
        /// to correct, each at most once through another coordinate of it, chosen hop by hop
        /// by the queues.
        Dal = "dal",
    }
}

impl RoutingAlgorithm {
    /// Whether routes may leave the minimal path (through an intermediate group or switch, or
    /// another coordinate of a dimension).
    pub fn detours(self) -> bool {
        self.through_intermediate() || self == RoutingAlgorithm::Dal
    }

    /// Whether routes may pass through an intermediate group (dragonflies) or switch (HyperX)
    /// drawn outside the source's and the destination's.
    pub fn through_intermediate(self) -> bool {
        matches!(
            self,
            RoutingAlgorithm::Valiant
                | RoutingAlgorithm::UgalL
                | RoutingAlgorithm::UgalG
                | RoutingAlgorithm::Par
        )
    }

    /// Whether routes choose between the minimal path and a detour by queue lengths (UGAL's
    /// rule, `routing.ugal_threshold`).
    pub fn weighs_queues(self) -> bool {
        matches!(
            self,
            RoutingAlgorithm::UgalL
                | RoutingAlgorithm::UgalG
                | RoutingAlgorithm::Par
                | RoutingAlgorithm::Dal
        )
    }

    /// Whether a head chooses among the output ports its route offers by their queues
    /// (adaptive up ports on trees, the listed ports of a topology file's routes).
    pub fn chooses_ports(self) -> bool {
        matches!(
            self,
            RoutingAlgorithm::AdaptiveUp | RoutingAlgorithm::Adaptive
        )
    }

    /// The algorithms that route on `kind`, the default first.
    pub fn for_topology(kind: TopologyKind) -> &'static [RoutingAlgorithm] {
        match kind {
            TopologyKind::Torus | TopologyKind::Mesh => &[
                RoutingAlgorithm::Dor,
                RoutingAlgorithm::Duato,
                RoutingAlgorithm::Disha,
            ],
            TopologyKind::KaryNtree | TopologyKind::FoldedClos | TopologyKind::Cm5Fattree => &[
                RoutingAlgorithm::DModK,
                RoutingAlgorithm::AdaptiveUp,
                RoutingAlgorithm::RandomUp,
            ],
            TopologyKind::Butterfly | TopologyKind::Multibutterfly => {
                &[RoutingAlgorithm::DestinationTag]
            }
            TopologyKind::File => &[RoutingAlgorithm::Table, RoutingAlgorithm::Adaptive],
            TopologyKind::Dragonfly => &[
                RoutingAlgorithm::Min,
                RoutingAlgorithm::Valiant,
                RoutingAlgorithm::UgalL,
                RoutingAlgorithm::UgalG,
                RoutingAlgorithm::Par,
            ],
            TopologyKind::Hyperx => &[
                RoutingAlgorithm::Dor,
                RoutingAlgorithm::Valiant,
                RoutingAlgorithm::UgalL,
                RoutingAlgorithm::Dal,
            ],
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
        /// Each packet draws the direction of every tied dimension at injection, from its
        /// source's routing stream (as BookSim2's dimension-order routing on even-radix tori).
        Random = "random",
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
    /// Rule for direction ties at distance k/2 (`None` on dragonflies and HyperX, which have no
    /// rings).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tie_break: Option<TieBreak>,
    /// Disha only: cycles a head may wait for an output VC before it is presumed deadlocked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disha_timeout: Option<u32>,
    /// Disha only: cycles the recovery token takes from one router to the next.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disha_token_hop: Option<u32>,
    /// UGAL, PAR and DAL only: flits the minimal route's queue may exceed twice the detour's
    /// by and still be taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ugal_threshold: Option<u32>,
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
        let ringless = matches!(
            topology.kind,
            TopologyKind::Dragonfly | TopologyKind::Hyperx
        );
        let tie_break = (!ringless).then(|| s.choice("tie_break", TieBreak::Balanced));
        if s.has("tie_break") && ringless {
            s.value("tie_break");
            s.problem(
                "tie_break",
                format!(
                    "breaks ties between the two ways around a ring; topology.kind = \"{}\" \
                     has no rings",
                    topology.kind.name()
                ),
            );
        }
        let datelines = s
            .value("datelines")
            .and_then(|v| read_datelines(&s, v, topology));
        let disha = algorithm == RoutingAlgorithm::Disha;
        for key in ["disha_timeout", "disha_token_hop"] {
            if s.has(key) && !disha {
                s.problem(key, "only applies when routing.algorithm = \"disha\"");
            }
        }
        let ugal = algorithm.weighs_queues();
        if s.has("ugal_threshold") && !ugal {
            s.problem(
                "ugal_threshold",
                "only applies when routing.algorithm = \"ugal_l\", \"ugal_g\", \"par\" or \"dal\"",
            );
        }
        let intermediates = match &topology.layout {
            Layout::HyperX(x) => Some((("switch", "switches"), x.switches(), "HyperX")),
            Layout::Dragonfly(fly) => {
                Some((("group", "groups"), fly.groups() as usize, "dragonfly"))
            }
            _ => None,
        };
        if let Some(((unit, units), count, kind)) = intermediates
            && algorithm.through_intermediate()
            && count < 3
        {
            s.problem(
                "algorithm",
                format!(
                    "\"{algorithm}\" detours through a {unit} other than the source's and the \
                     destination's; this {kind} has {count} {units}, and needs at least 3"
                ),
            );
        }
        let cfg = RoutingConfig {
            algorithm,
            datelines,
            tie_break,
            disha_timeout: Some(s.int("disha_timeout", 8, 1, 1_000_000)).filter(|_| disha),
            disha_token_hop: Some(s.int("disha_token_hop", 1, 1, 1_000)).filter(|_| disha),
            ugal_threshold: Some(s.int("ugal_threshold", 30, 0, 1_000_000)).filter(|_| ugal),
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
        let Some(coords) = ints(value) else {
            s.problem(
                "datelines",
                "coordinates must be integers from 0 to the radix minus one".to_string(),
            );
            return None;
        };
        vec![coords; topology.dims.len()]
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
                s.problem(
                    "datelines",
                    format!("expected {SHAPE}, of integers from 0 to the radix minus one"),
                );
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
