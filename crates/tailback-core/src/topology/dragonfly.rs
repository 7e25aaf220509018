//! Dragonflies (Kim, Dally, Scott and Abts, ISCA 2008): `groups` groups of `a` routers, the
//! routers of a group linked all to all, `h` global links per router between groups, `p`
//! terminals per router.
//!
//! Numbering is group-major: router `g·a + r` is router `r` of group `g`, and node
//! `(g·a + r)·p + t` its terminal `t`. A router's ports are its terminals (`0..p`), then its
//! local ports (`p + i` leads to router `i` of the group if `i < r`, else to router `i + 1`),
//! then its global ports: global link `j` of a group (`0 ≤ j < a·h`) is port `p + a − 1 + j mod h`
//! of router `⌊j/h⌋`.
//!
//! Which group each global link reaches is the [`Arrangement`]. With `a·h + 1` groups every pair
//! of groups shares one link; with fewer, `a·h = q·(groups − 1) + r` and every pair shares `q`
//! links, and `r` more links per group go to the groups at the offsets ±1, ±2, … (and the
//! opposite group, when `groups` is even and `r` odd), so that pairs get `q` or `q + 1` links and
//! every link has a far end. When `groups` and `r` are both odd, one link per group stays
//! unconnected (a pairing would need an odd number of link ends).

use rand::seq::SliceRandom;

use super::{Link, Port, Topology};
use crate::ids::PortId;
use crate::rng::{self, Purpose};

/// How global links are laid out between groups (read by name as `topology.arrangement`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Arrangement {
    /// Link `j` of group `g` reaches the `(j mod (groups − 1))`-th other group in increasing
    /// order (with `a·h + 1` groups: group `j` if `j < g`, else `j + 1`; BookSim2's
    /// `dragonflynew`).
    Consecutive,
    /// Link `j` of group `g` reaches group `g + (j mod (groups − 1)) + 1` (modulo `groups`):
    /// with `a·h + 1` groups, its far end is link `a·h − 1 − j` (the palm-tree arrangement of
    /// Camarero, Vallejo and Beivide, ACM TACO 2015).
    Palmtree,
    /// The consecutive pairs of groups, each group's links placed on its routers' global ports
    /// in an order drawn from the topology's own stream of the seed.
    Random,
}

impl Arrangement {
    /// Every arrangement and its name in a config file.
    pub const NAMED: [(&'static str, Arrangement); 3] = [
        ("consecutive", Arrangement::Consecutive),
        ("palmtree", Arrangement::Palmtree),
        ("random", Arrangement::Random),
    ];

    /// Its name in a config file.
    pub fn name(self) -> &'static str {
        Self::NAMED
            .iter()
            .find(|(_, a)| *a == self)
            .map_or("", |(name, _)| name)
    }
}

impl std::fmt::Display for Arrangement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The shape of a dragonfly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DragonflyShape {
    p: u32,
    a: u32,
    h: u32,
    groups: u32,
    arrangement: Arrangement,
    local_latency: u32,
    global_latency: u32,
}

/// The far end of a global link: the group and its link index there.
pub type FarEnd = Option<(u32, u32)>;

impl DragonflyShape {
    /// The dragonfly of `groups` groups (2 to `a·h + 1`) of `a` routers with `p` terminals and
    /// `h` global links each, arranged as `arrangement`, its local and global channels
    /// `local_latency` and `global_latency` cycles long.
    pub fn new(
        (p, a, h, groups): (u32, u32, u32, u32),
        arrangement: Arrangement,
        local_latency: u32,
        global_latency: u32,
    ) -> DragonflyShape {
        assert!(
            (2..=a * h + 1).contains(&groups),
            "a dragonfly has 2 to a·h + 1 groups"
        );
        DragonflyShape {
            p,
            a,
            h,
            groups,
            arrangement,
            local_latency,
            global_latency,
        }
    }

    /// Terminals per router.
    pub fn p(&self) -> u32 {
        self.p
    }

    /// Routers per group.
    pub fn a(&self) -> u32 {
        self.a
    }

    /// Global links per router.
    pub fn h(&self) -> u32 {
        self.h
    }

    /// Number of groups.
    pub fn groups(&self) -> u32 {
        self.groups
    }

    /// How global links are laid out.
    pub fn arrangement(&self) -> Arrangement {
        self.arrangement
    }

    /// Cycles of a local (intra-group) channel.
    pub fn local_latency(&self) -> u32 {
        self.local_latency
    }

    /// Cycles of a global (inter-group) channel.
    pub fn global_latency(&self) -> u32 {
        self.global_latency
    }

    /// Number of routers.
    pub fn routers(&self) -> usize {
        (self.groups * self.a) as usize
    }

    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.routers() * self.p as usize
    }

    /// Ports of every router: terminals, local and global.
    pub fn ports_per_router(&self) -> u32 {
        self.p + self.a - 1 + self.h
    }

    /// The first global port of a router.
    pub fn first_global_port(&self) -> u32 {
        self.p + self.a - 1
    }

    /// The global channels of the built dragonfly `topology`, in port order: each one's port
    /// and the router at its far end.
    pub fn global_channels<'a>(
        &self,
        topology: &'a Topology,
    ) -> impl Iterator<Item = (&'a Port, usize)> + 'a {
        let (ports, first_global) = (topology.ports(), self.first_global_port());
        ports.iter().filter_map(move |port| match port.output {
            Link::Router(far) if u32::from(port.local) >= first_global => {
                Some((port, ports[far.index()].router.index()))
            }
            _ => None,
        })
    }

    /// The group of router `r`.
    #[inline]
    pub fn group(&self, router: usize) -> u32 {
        router as u32 / self.a
    }

    /// The router node `node` is attached to.
    #[inline]
    pub fn router_of(&self, node: usize) -> usize {
        node / self.p as usize
    }

    /// The local port of router `from` leading to router `to` of the same group (indices
    /// within the group, `from ≠ to`).
    #[inline]
    pub fn local_port(&self, from: u32, to: u32) -> u32 {
        self.p + if to < from { to } else { to - 1 }
    }

    /// The router (index within its group) and port of global link `j` of a group.
    #[inline]
    pub fn global_port(&self, link: u32) -> (u32, u32) {
        (link / self.h, self.first_global_port() + link % self.h)
    }

    /// Global links per group.
    fn links(&self) -> u32 {
        self.a * self.h
    }

    /// The far end of every global link: entry `g·a·h + j` for link `j` of group `g`.
    pub fn far_ends(&self, seed: u64) -> Vec<FarEnd> {
        let (groups, links) = (self.groups, self.links());
        let others = groups - 1;
        let (q, r) = (links / others, links % others);
        let mut ends = vec![None; (groups * links) as usize];
        let offset_order = matches!(self.arrangement, Arrangement::Palmtree);
        // The `q` full rounds: the m-th link of `g` to `t` meets the m-th of `t` to `g`.
        let other = |g: u32, o: u32| -> u32 {
            if offset_order {
                (g + o + 1) % groups
            } else if o < g {
                o
            } else {
                o + 1
            }
        };
        let index_of = |g: u32, t: u32| -> u32 {
            if offset_order {
                (g + groups - t) % groups - 1
            } else if g < t {
                g
            } else {
                g - 1
            }
        };
        for g in 0..groups {
            for j in 0..q * others {
                let (m, o) = (j / others, j % others);
                let t = other(g, o);
                ends[(g * links + j) as usize] = Some((t, m * others + index_of(g, t)));
            }
        }
        // The remaining `r` links of each group: a symmetric set of offsets, so that `t` is
        // among `g`'s targets exactly when `g` is among `t`'s.
        let offsets = remainder_offsets(groups, r);
        let targets = |g: u32| -> Vec<u32> {
            let mut t: Vec<u32> = offsets.iter().map(|d| (g + d) % groups).collect();
            if !offset_order {
                t.sort_unstable();
            }
            t
        };
        for g in 0..groups {
            for (i, &t) in targets(g).iter().enumerate() {
                let back = targets(t).iter().position(|&x| x == g).expect("symmetric");
                ends[(g * links + q * others + i as u32) as usize] =
                    Some((t, q * others + back as u32));
            }
        }
        if self.arrangement == Arrangement::Random {
            // Each group's links placed on its global ports in a drawn order.
            let mut wiring = rng::stream(seed, 0, Purpose::Wiring);
            let places: Vec<Vec<u32>> = (0..groups)
                .map(|_| {
                    let mut order: Vec<u32> = (0..links).collect();
                    order.shuffle(&mut wiring);
                    order
                })
                .collect();
            let mut placed = vec![None; ends.len()];
            for g in 0..groups {
                for j in 0..links {
                    placed[(g * links + places[g as usize][j as usize]) as usize] = ends
                        [(g * links + j) as usize]
                        .map(|(t, back)| (t, places[t as usize][back as usize]));
                }
            }
            ends = placed;
        }
        ends
    }

    /// The built network: terminal channels `ejection_latency` long, random arrangements drawn
    /// from `seed`.
    pub fn build(&self, ejection_latency: u32, seed: u64) -> Topology {
        let (p, a) = (self.p, self.a);
        let width = self.ports_per_router() as usize;
        let port_id =
            |router: u32, local: u32| PortId::new(router as usize * width + local as usize);
        let mut ports = super::unwired_ports(self.routers(), width, self.local_latency);
        let mut connect = |from: PortId, to: PortId, latency: u32| {
            ports[from.index()].output = Link::Router(to);
            ports[from.index()].output_latency = latency;
            ports[to.index()].input = Link::Router(from);
        };
        for g in 0..self.groups {
            for r in 0..a {
                for other in (0..a).filter(|&o| o != r) {
                    connect(
                        port_id(g * a + r, self.local_port(r, other)),
                        port_id(g * a + other, self.local_port(other, r)),
                        self.local_latency,
                    );
                }
            }
        }
        let links = self.links();
        for (i, end) in self.far_ends(seed).into_iter().enumerate() {
            let Some((t, back)) = end else { continue };
            let (g, j) = (i as u32 / links, i as u32 % links);
            let (r, port) = self.global_port(j);
            let (far_r, far_port) = self.global_port(back);
            connect(
                port_id(g * a + r, port),
                port_id(t * a + far_r, far_port),
                self.global_latency,
            );
        }
        let injection_port = super::attach_nodes(
            &mut ports,
            width,
            p as usize,
            self.nodes(),
            ejection_latency,
        );
        Topology::from_uniform(
            super::Layout::Dragonfly(self.clone()),
            width,
            ports,
            injection_port,
        )
    }
}

/// A symmetric set of `r` offsets (or `r − 1` when `groups` and `r` are both odd) among
/// `1..groups`: ±1, ±2, …, and `groups / 2` once when `groups` is even and `r` odd.
fn remainder_offsets(groups: u32, r: u32) -> Vec<u32> {
    let mut offsets = Vec::with_capacity(r as usize);
    let pairs = r / 2;
    for d in 1..=pairs {
        offsets.push(d);
        offsets.push(groups - d);
    }
    if r % 2 == 1 && groups.is_multiple_of(2) {
        offsets.push(groups / 2);
    }
    offsets
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustc_hash::FxHashMap;

    fn shape(p: u32, a: u32, h: u32, groups: u32, arrangement: Arrangement) -> DragonflyShape {
        DragonflyShape::new((p, a, h, groups), arrangement, 2, 10)
    }

    /// Every global link's far end names it back, and the links per pair of groups are
    /// `q` or `q + 1`, with at most one link per group unconnected (when none can pair it).
    fn check_arrangement(s: &DragonflyShape) {
        let links = s.a() * s.h();
        let ends = s.far_ends(7);
        let mut pairs: FxHashMap<(u32, u32), u32> = FxHashMap::default();
        let mut unconnected = vec![0; s.groups() as usize];
        for (i, end) in ends.iter().enumerate() {
            let (g, j) = (i as u32 / links, i as u32 % links);
            let Some((t, back)) = *end else {
                unconnected[g as usize] += 1;
                continue;
            };
            assert!(
                t < s.groups() && back < links,
                "{s:?}: link {g}.{j} out of range"
            );
            assert_ne!(t, g, "{s:?}: link {g}.{j} loops back");
            assert_eq!(
                ends[(t * links + back) as usize],
                Some((g, j)),
                "{s:?}: not an involution at {g}.{j}"
            );
            *pairs.entry((g, t)).or_default() += 1;
        }
        let others = s.groups() - 1;
        let (q, r) = (links / others, links % others);
        for g in 0..s.groups() {
            let odd = r % 2 == 1 && s.groups() % 2 == 1;
            assert_eq!(unconnected[g as usize], u32::from(odd), "{s:?}: group {g}");
            for t in (0..s.groups()).filter(|&t| t != g) {
                let n = pairs.get(&(g, t)).copied().unwrap_or(0);
                assert!(n == q || n == q + 1, "{s:?}: {n} links between {g} and {t}");
            }
        }
    }

    #[test]
    fn every_arrangement_pairs_links_with_balanced_trunks() {
        for arrangement in [
            Arrangement::Consecutive,
            Arrangement::Palmtree,
            Arrangement::Random,
        ] {
            for (p, a, h) in [(1, 2, 1), (2, 4, 2), (4, 8, 4), (1, 3, 2)] {
                for groups in 2..=a * h + 1 {
                    check_arrangement(&shape(p, a, h, groups, arrangement));
                }
            }
        }
    }

    #[test]
    fn full_arrangements_follow_their_definitions() {
        let (a, h) = (4, 2);
        let links = a * h;
        let groups = links + 1;
        let consecutive = shape(2, a, h, groups, Arrangement::Consecutive).far_ends(0);
        let palmtree = shape(2, a, h, groups, Arrangement::Palmtree).far_ends(0);
        for g in 0..groups {
            for j in 0..links {
                let i = (g * links + j) as usize;
                let t = if j < g { j } else { j + 1 };
                assert_eq!(consecutive[i].unwrap().0, t);
                assert_eq!(
                    palmtree[i],
                    Some(((g + j + 1) % groups, links - 1 - j)),
                    "palm tree at {g}.{j}"
                );
            }
        }
    }

    #[test]
    fn the_random_arrangement_depends_on_the_seed_only() {
        let s = shape(2, 4, 2, 9, Arrangement::Random);
        assert_eq!(s.far_ends(3), s.far_ends(3));
        assert_ne!(s.far_ends(3), s.far_ends(4));
    }

    #[test]
    fn the_built_network_is_wired_both_ways_with_its_latencies() {
        let s = shape(2, 4, 2, 9, Arrangement::Consecutive);
        let topo = s.build(1, 0);
        assert_eq!(topo.node_count(), 2 * 4 * 9);
        assert_eq!(topo.router_count(), 36);
        for (i, port) in topo.ports().iter().enumerate() {
            match port.output {
                Link::Router(peer) => {
                    assert_eq!(
                        topo.ports()[peer.index()].input,
                        Link::Router(PortId::new(i))
                    );
                    let global = u32::from(port.local) >= s.first_global_port();
                    let same_group = s.group(port.router.index())
                        == s.group(topo.ports()[peer.index()].router.index());
                    assert_eq!(global, !same_group, "port {i}");
                    assert_eq!(port.output_latency, if global { 10 } else { 2 });
                }
                Link::Node(n) => assert_eq!(topo.injection_port(n), PortId::new(i)),
                Link::None => panic!("port {i} unconnected"),
            }
        }
    }
}
