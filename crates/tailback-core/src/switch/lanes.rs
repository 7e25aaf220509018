//! SL-to-VL tables: the lane a packet takes on each link.
//!
//! A packet keeps the service level (SL) it was injected with; at every switch output port the
//! lane it takes on the link is looked up by its SL and the VC class its routing gives the hop
//! (the phase of its route: past a dateline, a global hop, a deroute). InfiniBand indexes its
//! tables by input port, output port and SL, and subnet managers encode a route's phase in the
//! SLs they hand out; here the routing's class stands for that phase, so one table per output
//! port suffices (a simplification of ours: the class travels with the packet as the routing
//! computes it, as on the virtual-channel routers).
//!
//! A topology file may give an output port's table (`sl2vl` lines; its routes have one class):
//! the lane of each SL there, so SLs may share a lane on some links and not on others. Routes do
//! not depend on the SL, so a file's dependency graph over lanes is the one over ports, copied
//! per SL and merged where SLs share a lane: acyclic if and only if the ports' is.
//!
//! Derived tables give class `k` the lanes the routing gives it on the virtual-channel routers
//! (`k·V/C` up to `(k+1)·V/C` of `V` lanes and `C` classes) and SL `s` the `s`-th of them, so
//! there are as many SLs as the smallest class has lanes. Different classes never share a lane,
//! so a routing whose (port, class) dependency graph is acyclic is deadlock-free on the lanes
//! too.

use crate::bitset::bits32;
use crate::routing::Routing;
use crate::table::Table;
use crate::topology::{Layout, Topology};

/// Per output port, VC class and SL: the lane on the link.
#[derive(Debug, Clone)]
pub(crate) struct LaneTables {
    classes: usize,
    sls: usize,
    lanes: Table<u8>,
}

impl LaneTables {
    /// Tables for `topology`'s output ports derived from `routing`'s VC classes, with those a
    /// topology file gives in their place.
    pub(crate) fn new(routing: &Routing, topology: &Topology) -> LaneTables {
        let mut tables = LaneTables::derive(routing, topology.ports().len());
        if let Layout::File(file) = topology.layout() {
            for (port, _, lanes) in file.lane_tables() {
                for (sl, &lane) in lanes.iter().enumerate().take(tables.sls) {
                    let at = tables.index(port, 0, sl as u8);
                    tables.lanes[at] = lane;
                }
            }
        }
        tables
    }

    /// Tables for `ports` output ports derived from `routing`'s VC classes.
    fn derive(routing: &Routing, ports: usize) -> LaneTables {
        let classes = routing.classes();
        let sls = (0..classes)
            .map(|class| routing.class_vcs(class).count_ones() as usize)
            .min()
            .unwrap_or(1);
        let row: Vec<u8> = (0..classes)
            .flat_map(|class| bits32(routing.class_vcs(class)).take(sls))
            .map(|lane| lane as u8)
            .collect();
        let lanes: Vec<u8> = (0..ports).flat_map(|_| row.iter().copied()).collect();
        LaneTables {
            classes,
            sls,
            lanes: lanes.into(),
        }
    }

    /// Whether every packet leaves each switch on the lane it arrived on (one class, and every
    /// SL on its own lane everywhere).
    pub(crate) fn keeps_lanes(&self) -> bool {
        self.classes == 1
            && self
                .lanes
                .iter()
                .enumerate()
                .all(|(i, &lane)| lane as usize == i % self.sls)
    }

    /// Number of service levels: the lanes a packet may be injected on (lanes `0..sls`).
    pub(crate) fn sls(&self) -> usize {
        self.sls
    }

    /// The lane on output port `port` (global index) of a packet of service level `sl` whose
    /// hop is in VC class `class`.
    #[inline(always)]
    pub(crate) fn lane(&self, port: usize, class: u8, sl: u8) -> u8 {
        self.lanes[self.index(port, class, sl)]
    }

    /// Where the lane of (`port`, `class`, `sl`) is kept.
    #[inline(always)]
    fn index(&self, port: usize, class: u8, sl: u8) -> usize {
        debug_assert!((class as usize) < self.classes && (sl as usize) < self.sls);
        (port * self.classes + class as usize) * self.sls + sl as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::dependency_graph;
    use crate::spec::Spec;
    use crate::topology::Topology;
    use petgraph::algo::is_cyclic_directed;
    use petgraph::graphmap::DiGraphMap;

    /// Derived tables for every routing that raises its class hop by hop: each SL takes a
    /// different lane in each class (lanes within the port's), is injected on its own lane,
    /// and the dependency graph over (port, lane) — every (port, class) dependency mapped
    /// through the tables for each SL — is acyclic.
    #[test]
    fn derived_tables_keep_classes_apart_and_lanes_acyclic() {
        let networks = [
            ("kind = \"torus\"\nk = 4\nn = 2", "dor", "", 2),
            (
                "kind = \"torus\"\nk = 4\nn = 2",
                "dor",
                "datelines = [0, 2]",
                3,
            ),
            ("kind = \"torus\"\nk = 5\nn = 1", "dor", "", 5),
            ("kind = \"dragonfly\"\np = 1\na = 3\nh = 1", "min", "", 2),
            (
                "kind = \"dragonfly\"\np = 1\na = 3\nh = 1",
                "valiant",
                "",
                3,
            ),
            ("kind = \"dragonfly\"\np = 1\na = 3\nh = 1", "ugal_g", "", 7),
            ("kind = \"dragonfly\"\np = 1\na = 3\nh = 1", "par", "", 8),
            (
                "kind = \"hyperx\"\ndims = [3, 3]\nterminals = 1",
                "valiant",
                "",
                4,
            ),
            (
                "kind = \"hyperx\"\ndims = [3, 3]\nterminals = 1",
                "ugal_l",
                "",
                4,
            ),
            (
                "kind = \"hyperx\"\ndims = [2, 3, 2]\nterminals = 1",
                "valiant",
                "",
                7,
            ),
            (
                "kind = \"hyperx\"\ndims = [3, 3]\nterminals = 1",
                "dal",
                "",
                9,
            ),
        ];
        for (topology, algorithm, extra, vcs) in networks {
            let text = format!(
                "[topology]\n{topology}\n[routing]\nalgorithm = \"{algorithm}\"\n{extra}\n\
                 [router]\nswitching = \"virtual_cut_through\"\nvcs = {vcs}\n\
                 [fabric]\nkind = \"buffered\"\n"
            );
            let spec = Spec::from_toml_str(&text, "<test>").unwrap();
            let topology = Topology::from_config(spec.config());
            let routing = Routing::from_config(spec.config(), &topology);
            let ports = topology.ports().len();
            let tables = LaneTables::derive(&routing, ports);
            let classes = routing.classes();
            assert!(classes > 1, "{text}");
            assert!(tables.sls() >= 1 && tables.sls() * classes <= vcs, "{text}");
            for port in 0..ports {
                for sl in 0..tables.sls() as u8 {
                    assert_eq!(tables.lane(port, 0, sl), sl, "{text}");
                    let mut lanes: Vec<u8> = (0..classes as u8)
                        .map(|class| tables.lane(port, class, sl))
                        .collect();
                    assert!(lanes.iter().all(|&l| (l as usize) < vcs), "{text}");
                    lanes.sort_unstable();
                    lanes.dedup();
                    assert_eq!(lanes.len(), classes, "{text}: classes share a lane");
                }
            }
            let by_class = dependency_graph(&topology, &routing);
            assert!(by_class.edge_count() > 0, "{text}");
            for sl in 0..tables.sls() as u8 {
                let lane = |(port, class): (u32, u8)| (port, tables.lane(port as usize, class, sl));
                let mut by_lane = DiGraphMap::<(u32, u8), ()>::new();
                for (from, to, ()) in by_class.all_edges() {
                    by_lane.add_edge(lane(from), lane(to), ());
                }
                assert!(!is_cyclic_directed(&by_lane), "{text}: SL {sl}");
            }
        }
    }
}
