//! Up/down routing on fat trees: up to the lowest level whose switches reach both ends, then
//! down the unique path. No route turns from down to up, so the channel dependency graph is
//! acyclic with one VC class and every VC may be used.
//!
//! The up port is the destination's (destination-mod-k), free (adaptive-up: the router picks),
//! or drawn (random-up: the packet's routing draw picks one uniformly at every level).

use super::Hop;
use crate::rng::splitmix64;
use crate::topology::TreeShape;

/// How a packet on its way up picks its up port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpChoice {
    /// The destination's port (destination-mod-k).
    Destination,
    /// Any up port; the router takes a free one (adaptive-up).
    Adaptive,
    /// One drawn uniformly at each level from the packet's routing draw (random-up).
    Random,
}

/// Up/down routing on a [`TreeShape`].
#[derive(Debug, Clone)]
pub struct UpDown {
    /// Per level: down ports, up ports, nodes below a switch, switches per group, first router.
    levels: Vec<Level>,
    /// Mask of every VC.
    vcs: u32,
    /// How packets pick their up ports.
    up: UpChoice,
}

#[derive(Debug, Clone, Copy)]
struct Level {
    down: u32,
    up: u32,
    span: u32,
    /// Nodes below a child switch (1 at the leaves).
    child_span: u32,
    replicas: u32,
    first_router: u32,
}

impl Level {
    /// Local ports of this level's switches that lead up.
    fn up_ports(&self) -> u64 {
        ((1u64 << self.up) - 1) << self.down
    }
}

impl UpDown {
    /// Routing on `tree` with `vcs` VCs per port, picking up ports by `up`.
    pub fn new(tree: &TreeShape, vcs: u32, up: UpChoice) -> UpDown {
        let mut first_router = 0;
        let levels = (0..tree.levels())
            .map(|l| {
                let level = Level {
                    down: tree.down(l),
                    up: tree.up(l),
                    span: tree.span(l) as u32,
                    child_span: if l == 0 { 1 } else { tree.span(l - 1) as u32 },
                    replicas: tree.replicas(l) as u32,
                    first_router,
                };
                first_router += tree.switches(l) as u32;
                level
            })
            .collect();
        UpDown {
            levels,
            vcs: if vcs >= 32 { u32::MAX } else { (1 << vcs) - 1 },
            up,
        }
    }

    /// Level of router `r` and the first node below it.
    #[inline]
    fn place(&self, r: usize) -> (usize, u32) {
        let r = r as u32;
        let l = self.levels.partition_point(|lv| lv.first_router <= r) - 1;
        let lv = &self.levels[l];
        let group = (r - lv.first_router) / lv.replicas;
        (l, group * lv.span)
    }

    /// The hop from router `r` towards node `dst` of a packet with routing draw `draw`: down
    /// when `dst` is below, otherwise up through the port the destination selects
    /// (destination-mod-k), or under random-up the one the draw picks at this level.
    #[inline]
    pub fn route(&self, r: usize, dst: usize, draw: u32) -> Hop {
        let (l, first) = self.place(r);
        let lv = &self.levels[l];
        let dst = dst as u32;
        let port = if dst.wrapping_sub(first) < lv.span {
            (dst - first) / lv.child_span
        } else if self.up == UpChoice::Random {
            lv.down + drawn_port(draw, l, lv.up)
        } else {
            lv.down + (dst / lv.replicas) % lv.up
        };
        Hop {
            port: port as u8,
            vcs: self.vcs,
            class: 0,
        }
    }

    /// Local ports of every minimal hop from router `r` towards `dst`: every up port on the
    /// way up, the one down port on the way down.
    #[inline]
    pub fn minimal_ports(&self, r: usize, dst: usize) -> u64 {
        let (l, first) = self.place(r);
        let lv = &self.levels[l];
        if (dst as u32).wrapping_sub(first) < lv.span {
            1 << ((dst as u32 - first) / lv.child_span)
        } else {
            lv.up_ports()
        }
    }

    /// The first node below router `r` and the number of nodes below it.
    pub fn subtree(&self, r: usize) -> (usize, usize) {
        let (l, first) = self.place(r);
        (first as usize, self.levels[l].span as usize)
    }

    /// Local ports of router `r` that lead up (none at the top).
    pub fn up_ports(&self, r: usize) -> u64 {
        self.levels[self.place(r).0].up_ports()
    }

    /// Down ports of router `r` (its up ports follow them).
    #[inline]
    pub fn down_ports(&self, r: usize) -> u32 {
        self.levels[self.place(r).0].down
    }

    /// Whether packets may take any up port the router finds free.
    pub fn is_adaptive(&self) -> bool {
        self.up == UpChoice::Adaptive
    }

    /// Whether packets draw their up ports.
    pub fn draws(&self) -> bool {
        self.up == UpChoice::Random
    }

    /// Every VC.
    pub fn all_vcs(&self) -> u32 {
        self.vcs
    }

    /// Router-to-router hops from router `r` to the leaf holding `dst`.
    pub fn distance(&self, r: usize, dst: usize) -> u32 {
        let (l, first) = self.place(r);
        let dst = dst as u32;
        // The lowest level whose group holds both the router's nodes and `dst`.
        let top = (l..self.levels.len())
            .find(|&t| first / self.levels[t].span == dst / self.levels[t].span)
            .unwrap_or(self.levels.len() - 1);
        (2 * top - l) as u32
    }

    /// The longest node-to-node route in router-to-router hops.
    pub fn diameter(&self) -> u32 {
        2 * (self.levels.len() as u32 - 1)
    }
}

/// The up port (of `up`) that routing draw `draw` picks at level `level`: a hash of the two,
/// scaled to the ports, so each level's pick is uniform and independent of the others'.
#[inline]
fn drawn_port(draw: u32, level: usize, up: u32) -> u32 {
    let bits = splitmix64(u64::from(draw) << 8 | level as u64) >> 32;
    ((bits * u64::from(up)) >> 32) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{NodeId, RouterId};
    use crate::topology::Link;

    /// Follows the deterministic route from `src` to `dst`; returns the router hops.
    fn walk(tree: &TreeShape, routing: &UpDown, src: usize, dst: usize) -> u32 {
        let topo = tree.build(1, 1);
        let mut router = topo.ports()[topo.injection_port(NodeId::new(src)).index()].router;
        let mut hops = 0;
        loop {
            let hop = routing.route(router.index(), dst, 0);
            let port = topo.router_ports(router).start + hop.port as usize;
            match topo.ports()[port].output {
                Link::Router(next) => {
                    router = topo.ports()[next.index()].router;
                    hops += 1;
                }
                Link::Node(n) => {
                    assert_eq!(n.index(), dst);
                    return hops;
                }
                Link::None => panic!("unconnected port"),
            }
            assert!(hops <= routing.diameter());
        }
    }

    #[test]
    fn routes_reach_every_destination_in_twice_the_common_level() {
        for tree in [
            TreeShape::kary_ntree(2, 4),
            TreeShape::kary_ntree(4, 3),
            TreeShape::folded_clos(8, 2),
            TreeShape::folded_clos(4, 3),
            TreeShape::cm5(32),
            TreeShape::cm5(64),
        ] {
            let routing = UpDown::new(&tree, 2, UpChoice::Destination);
            for src in 0..tree.nodes() {
                for dst in 0..tree.nodes() {
                    let hops = walk(&tree, &routing, src, dst);
                    assert_eq!(hops, 2 * tree.common_level(src, dst) as u32, "{tree:?}");
                    let leaf = RouterId::new(src / tree.down(0) as usize);
                    assert_eq!(routing.distance(leaf.index(), dst), hops);
                }
            }
        }
    }

    #[test]
    fn destination_mod_k_spreads_destinations_over_the_spines() {
        let tree = TreeShape::folded_clos(8, 2);
        let routing = UpDown::new(&tree, 1, UpChoice::Destination);
        // Leaf 0 sends to nodes of other leaves: up port = destination mod 4.
        for dst in 4..32 {
            assert_eq!(routing.route(0, dst, 0).port as usize, 4 + dst % 4);
        }
        assert_eq!(routing.minimal_ports(0, 9), 0b1111_0000);
        assert_eq!(routing.minimal_ports(0, 2), 0b100);
        // A spine reaches leaf 3's nodes through its down port 3.
        assert_eq!(routing.minimal_ports(8, 13), 1 << 3);
    }
}
