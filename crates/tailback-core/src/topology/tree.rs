//! Fat trees: levels of switches with down ports towards the nodes and up ports towards the
//! roots (k-ary n-trees, folded Clos networks, the CM-5's thinned tree).
//!
//! A switch at level `l` reaches `span(l)` consecutive nodes below it: a *group*. Each group
//! has `replicas(l)` switches, each with one down link into every child group (the groups of
//! level `l - 1` inside it), so that `replicas(l + 1) = replicas(l) * up(l)`. Level 0 switches
//! (leaves) hold `down(0)` nodes each. Switch ports: `0..down(l)` lead down, in child order;
//! `down(l)..down(l) + up(l)` lead up. Routers are numbered level by level, leaves first, and
//! within a level by `group * replicas + replica`.

use serde::Serialize;

use super::{Link, Port, Topology};
use crate::ids::{NodeId, PortId, RouterId};

/// The levels of a fat tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TreeShape {
    /// Down ports of a switch at each level, leaves first.
    down: Vec<u32>,
    /// Up ports of a switch at each level (0 at the top).
    up: Vec<u32>,
}

impl TreeShape {
    /// A tree with `down[l]` down ports and `up[l]` up ports per switch at level `l`. The
    /// caller checks the sizes (the config does); the top level has no up ports.
    pub fn new(down: Vec<u32>, up: Vec<u32>) -> TreeShape {
        debug_assert_eq!(down.len(), up.len());
        debug_assert_eq!(up.last(), Some(&0));
        TreeShape { down, up }
    }

    /// The k-ary n-tree: `k^n` nodes, `n` levels of `k^(n-1)` switches with `k` ports down and
    /// `k` up (the top level's up ports unused, so left out).
    pub fn kary_ntree(k: u32, n: u32) -> TreeShape {
        let mut up = vec![k; n as usize];
        up[n as usize - 1] = 0;
        TreeShape::new(vec![k; n as usize], up)
    }

    /// The folded Clos network of `levels` (2 or 3) levels of `radix`-port switches: every
    /// switch below the top has half its ports down and half up, top switches all down
    /// (`radix^2 / 2` nodes for two levels, `radix^3 / 4` for three).
    pub fn folded_clos(radix: u32, levels: u32) -> TreeShape {
        let half = radix / 2;
        let mut down = vec![half; levels as usize];
        let mut up = vec![half; levels as usize];
        down[levels as usize - 1] = radix;
        up[levels as usize - 1] = 0;
        TreeShape::new(down, up)
    }

    /// The CM-5's data network for `nodes` (a power of two, at least 8): a 4-ary fat tree whose
    /// first two levels have 2 parents per switch instead of 4; the top level has 2 or 4
    /// children.
    pub fn cm5(nodes: u32) -> TreeShape {
        let mut down = Vec::new();
        let mut span = 1;
        while span * 4 <= nodes {
            down.push(4);
            span *= 4;
        }
        if span < nodes {
            down.push(nodes / span);
        }
        let levels = down.len();
        let up = (0..levels)
            .map(|l| match l {
                _ if l + 1 == levels => 0,
                0 | 1 => 2,
                _ => 4,
            })
            .collect();
        TreeShape::new(down, up)
    }

    /// Number of switch levels.
    pub fn levels(&self) -> usize {
        self.down.len()
    }

    /// Down ports of a level-`l` switch.
    pub fn down(&self, l: usize) -> u32 {
        self.down[l]
    }

    /// Up ports of a level-`l` switch.
    pub fn up(&self, l: usize) -> u32 {
        self.up[l]
    }

    /// Nodes below one level-`l` switch.
    pub fn span(&self, l: usize) -> usize {
        self.down[..=l].iter().map(|&d| d as usize).product()
    }

    /// Switches per group at level `l`.
    pub fn replicas(&self, l: usize) -> usize {
        self.up[..l].iter().map(|&u| u as usize).product()
    }

    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.span(self.levels() - 1)
    }

    /// Switches at level `l`.
    pub fn switches(&self, l: usize) -> usize {
        self.replicas(l) * self.nodes() / self.span(l)
    }

    /// Switches and their ports, over all levels.
    pub fn size(&self) -> (usize, usize) {
        (0..self.levels()).fold((0, 0), |(switches, ports), l| {
            let here = self.switches(l);
            (
                switches + here,
                ports + here * (self.down[l] + self.up[l]) as usize,
            )
        })
    }

    /// The largest port count of any switch.
    pub fn radix(&self) -> u32 {
        self.down
            .iter()
            .zip(&self.up)
            .map(|(d, u)| d + u)
            .max()
            .unwrap_or(0)
    }

    /// The lowest level whose switches reach both nodes (0 when they share a leaf).
    pub fn common_level(&self, a: usize, b: usize) -> usize {
        (0..self.levels())
            .find(|&l| a / self.span(l) == b / self.span(l))
            .unwrap_or(self.levels() - 1)
    }

    /// Wires switches, channels and nodes.
    pub(crate) fn build(&self, link_latency: u32, ejection_latency: u32) -> Topology {
        let levels = self.levels();
        // First router and first port of every level.
        let mut first_router = vec![0usize; levels + 1];
        let mut first_port = vec![0usize; levels + 1];
        for l in 0..levels {
            first_router[l + 1] = first_router[l] + self.switches(l);
            first_port[l + 1] =
                first_port[l] + self.switches(l) * (self.down[l] + self.up[l]) as usize;
        }
        let port_id = |l: usize, switch: usize, local: u32| {
            PortId::new(
                first_port[l] + switch * (self.down[l] + self.up[l]) as usize + local as usize,
            )
        };
        let mut ports = Vec::with_capacity(first_port[levels]);
        let mut router_first_port = Vec::with_capacity(first_router[levels] + 1);
        for (l, &first) in first_router[..levels].iter().enumerate() {
            let replicas = self.replicas(l);
            for s in 0..self.switches(l) {
                let router = RouterId::new(first + s);
                router_first_port.push(ports.len() as u32);
                let (group, replica) = (s / replicas, s % replicas);
                for p in 0..self.down[l] {
                    let (peer, latency) = if l == 0 {
                        let node = NodeId::new(group * self.down[0] as usize + p as usize);
                        (Link::Node(node), ejection_latency)
                    } else {
                        // The child group's replica that reaches us through one of its up ports.
                        let child_group = group * self.down[l] as usize + p as usize;
                        let up = self.up[l - 1] as usize;
                        let child = child_group * self.replicas(l - 1) + replica / up;
                        let local = self.down[l - 1] + (replica % up) as u32;
                        (Link::Router(port_id(l - 1, child, local)), link_latency)
                    };
                    ports.push(Port {
                        router,
                        local: p as u8,
                        output: peer,
                        output_latency: latency,
                        output_period: 1,
                        input: peer,
                    });
                }
                for u in 0..self.up[l] {
                    let parent_group = group / self.down[l + 1] as usize;
                    let parent = parent_group * self.replicas(l + 1)
                        + replica * self.up[l] as usize
                        + u as usize;
                    let local = (group % self.down[l + 1] as usize) as u32;
                    let peer = Link::Router(port_id(l + 1, parent, local));
                    ports.push(Port {
                        router,
                        local: (self.down[l] + u) as u8,
                        output: peer,
                        output_latency: link_latency,
                        output_period: 1,
                        input: peer,
                    });
                }
            }
        }
        router_first_port.push(ports.len() as u32);
        let injection_port = (0..self.nodes())
            .map(|n| {
                port_id(
                    0,
                    n / self.down[0] as usize,
                    (n % self.down[0] as usize) as u32,
                )
            })
            .collect();
        Topology::from_parts(
            super::Layout::Tree(self.clone()),
            router_first_port,
            ports,
            injection_port,
        )
    }

    /// Level and index within the level of router `r`.
    pub fn locate(&self, r: usize) -> (usize, usize) {
        let mut first = 0;
        for l in 0..self.levels() {
            let count = self.switches(l);
            if r < first + count {
                return (l, r - first);
            }
            first += count;
        }
        panic!("router {r} is not in the tree");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_symmetric(topo: &Topology) {
        for (i, p) in topo.ports().iter().enumerate() {
            if let Link::Router(peer) = p.output {
                assert_eq!(
                    topo.ports()[peer.index()].input,
                    Link::Router(PortId::new(i))
                );
                assert_eq!(
                    topo.ports()[peer.index()].output,
                    Link::Router(PortId::new(i))
                );
            }
        }
    }

    #[test]
    fn kary_ntree_counts_match_the_closed_forms() {
        for (k, n) in [(2, 3), (4, 3), (3, 2), (4, 1)] {
            let shape = TreeShape::kary_ntree(k, n);
            let nodes = k.pow(n) as usize;
            assert_eq!(shape.nodes(), nodes);
            for l in 0..n as usize {
                assert_eq!(
                    shape.switches(l),
                    (k as usize).pow(n - 1),
                    "k={k} n={n} l={l}"
                );
            }
            let topo = shape.build(1, 1);
            assert_eq!(topo.router_count(), n as usize * (k as usize).pow(n - 1));
            // k^n links between each pair of adjacent levels, two channels each.
            assert_eq!(topo.channel_count(), 2 * (n as usize - 1) * nodes);
            check_symmetric(&topo);
        }
    }

    #[test]
    fn folded_clos_of_36_port_switches_has_648_nodes_on_36_leaves_and_18_spines() {
        let shape = TreeShape::folded_clos(36, 2);
        assert_eq!(shape.nodes(), 648);
        assert_eq!((shape.switches(0), shape.switches(1)), (36, 18));
        assert_eq!(shape.radix(), 36);
        let topo = shape.build(1, 1);
        assert_eq!(topo.channel_count(), 2 * 36 * 18);
        check_symmetric(&topo);
        // Every leaf reaches every spine exactly once.
        for leaf in 0..36 {
            let mut spines: Vec<usize> = topo.ports()[topo.router_ports(RouterId::new(leaf))]
                .iter()
                .filter_map(|p| match p.output {
                    Link::Router(peer) => Some(topo.ports()[peer.index()].router.index()),
                    _ => None,
                })
                .collect();
            spines.sort_unstable();
            assert_eq!(spines, (36..54).collect::<Vec<_>>());
        }
        let three = TreeShape::folded_clos(8, 3);
        assert_eq!(three.nodes(), 128);
        assert_eq!(
            (three.switches(0), three.switches(1), three.switches(2)),
            (32, 32, 16)
        );
        check_symmetric(&three.build(1, 1));
    }

    #[test]
    fn cm5_tree_thins_the_first_two_levels() {
        let shape = TreeShape::cm5(64);
        assert_eq!((shape.levels(), shape.nodes()), (3, 64));
        assert_eq!(
            (shape.switches(0), shape.switches(1), shape.switches(2)),
            (16, 8, 4)
        );
        let small = TreeShape::cm5(32);
        assert_eq!((small.levels(), small.down(2), small.nodes()), (3, 2, 32));
        assert_eq!(small.switches(2), 4);
        let big = TreeShape::cm5(256);
        assert_eq!(
            (0..4).map(|l| big.switches(l)).collect::<Vec<_>>(),
            [64, 32, 16, 16]
        );
        for shape in [shape, small, big] {
            check_symmetric(&shape.build(1, 1));
        }
    }

    #[test]
    fn common_level_of_two_nodes() {
        let shape = TreeShape::kary_ntree(4, 3);
        assert_eq!(shape.common_level(5, 6), 0);
        assert_eq!(shape.common_level(3, 4), 1);
        assert_eq!(shape.common_level(0, 63), 2);
        assert_eq!(shape.locate(17), (1, 1));
    }
}
