//! Minimal routing on a dragonfly: a local hop to the router that owns a global link to the
//! destination's group, the global hop, a local hop to the destination's router (each hop left
//! out where it is not needed).
//!
//! Where a pair of groups shares several global links, the packet's routing draw picks one
//! (`draw mod links`), so every hop of its route agrees. VC classes: class 0 up to and
//! including the global hop, class 1 after it; the channel dependencies (local 0 → global 0 →
//! local 1) are acyclic.

use super::Hop;
use super::dor::vc_mask;
use crate::topology::{DragonflyShape, Link, Topology};

/// Minimal (local–global–local) routing on a dragonfly.
#[derive(Debug, Clone)]
pub struct DragonflyMin {
    p: u32,
    a: u32,
    groups: u32,
    /// The global links from group `g` to group `t`, entry `g·groups + t`, in link order.
    links: Vec<Vec<GlobalLink>>,
    /// VCs of each class.
    class_vcs: [u32; 2],
    all_vcs: u32,
}

/// One global link from a group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct GlobalLink {
    /// The router (index within its group) that owns it.
    owner: u32,
    /// Its port there.
    port: u8,
    /// The router (index within its group) at its far end.
    far: u32,
}

/// VC classes minimal routing needs.
pub const MIN_CLASSES: u32 = 2;

impl DragonflyMin {
    /// Minimal routing on the built dragonfly `topology` of `shape`, over `vcs` VCs per port
    /// (at least [`MIN_CLASSES`]), class `c` owning VCs `c·V/2 .. (c + 1)·V/2`.
    pub fn new(shape: &DragonflyShape, topology: &Topology, vcs: u32) -> DragonflyMin {
        let groups = shape.groups();
        // Ports come router by router, in port order: each list fills in link order.
        let mut links = vec![Vec::new(); (groups * groups) as usize];
        let ports = topology.ports();
        let first_global = shape.first_global_port();
        for port in ports {
            let Link::Router(far) = port.output else {
                continue;
            };
            if u32::from(port.local) < first_global {
                continue;
            }
            let far_router = ports[far.index()].router.index();
            let (from, to) = (shape.group(port.router.index()), shape.group(far_router));
            links[(from * groups + to) as usize].push(GlobalLink {
                owner: port.router.index() as u32 % shape.a(),
                port: port.local,
                far: far_router as u32 % shape.a(),
            });
        }
        let half = vcs / MIN_CLASSES;
        DragonflyMin {
            p: shape.p(),
            a: shape.a(),
            groups,
            links,
            class_vcs: [vc_mask(0, half), vc_mask(half, vcs)],
            all_vcs: vc_mask(0, vcs),
        }
    }

    /// The global links from group `from` to group `to`.
    #[inline]
    fn between(&self, from: u32, to: u32) -> &[GlobalLink] {
        &self.links[(from * self.groups + to) as usize]
    }

    /// The hop from router `router` towards node `dst` of a packet with routing draw `draw`
    /// (its class is fixed by where the hop goes).
    // Out of line: keeps the other topologies' inlined routing as it was.
    #[inline(never)]
    pub fn route(&self, router: usize, dst: usize, draw: u32) -> Hop {
        let target = dst / self.p as usize;
        if router == target {
            return Hop {
                port: (dst % self.p as usize) as u8,
                vcs: self.all_vcs,
                class: 1,
            };
        }
        let (g, r) = (router as u32 / self.a, router as u32 % self.a);
        let (gd, rd) = (target as u32 / self.a, target as u32 % self.a);
        if g == gd {
            return self.local(r, rd, 1);
        }
        let links = self.between(g, gd);
        let link = links[draw as usize % links.len()];
        if link.owner == r {
            Hop {
                port: link.port,
                vcs: self.class_vcs[0],
                class: 0,
            }
        } else {
            self.local(r, link.owner, 0)
        }
    }

    /// The local hop from router `from` to router `to` of the same group, in `class`.
    #[inline]
    fn local(&self, from: u32, to: u32, class: u8) -> Hop {
        Hop {
            port: (self.p + if to < from { to } else { to - 1 }) as u8,
            vcs: self.class_vcs[class as usize],
            class,
        }
    }

    /// Local ports of the minimal hops from `router` towards node `dst`: every global link to
    /// its group (or the local hop to its owner), or the one local or ejection hop.
    pub fn minimal_ports(&self, router: usize, dst: usize) -> u64 {
        let target = dst / self.p as usize;
        let (g, gd) = (router as u32 / self.a, target as u32 / self.a);
        if g == gd {
            return 1 << self.route(router, dst, 0).port;
        }
        let r = router as u32 % self.a;
        self.between(g, gd)
            .iter()
            .map(|link| {
                if link.owner == r {
                    link.port
                } else {
                    self.local(r, link.owner, 0).port
                }
            })
            .fold(0, |m, p| m | (1 << p))
    }

    /// Router-to-router hops of the minimal route from `router` to node `dst` (the shortest
    /// over the parallel global links).
    pub fn distance(&self, router: usize, dst: usize) -> u32 {
        let target = dst / self.p as usize;
        if router == target {
            return 0;
        }
        let (g, r) = (router as u32 / self.a, router as u32 % self.a);
        let (gd, rd) = (target as u32 / self.a, target as u32 % self.a);
        if g == gd {
            return 1;
        }
        self.shortest_between(g, r, gd, rd)
    }

    /// Router-to-router hops from router `r` of group `g` to router `rd` of another group
    /// `gd`, through the nearest of their global links.
    fn shortest_between(&self, g: u32, r: u32, gd: u32, rd: u32) -> u32 {
        self.between(g, gd)
            .iter()
            .map(|link| u32::from(link.owner != r) + 1 + u32::from(link.far != rd))
            .min()
            .unwrap_or(u32::MAX)
    }

    /// The largest minimal distance between two routers (nodes on the same router are 0 hops
    /// apart).
    pub fn diameter(&self) -> u32 {
        let mut diameter = u32::from(self.a > 1);
        for g in 0..self.groups {
            for gd in (0..self.groups).filter(|&t| t != g) {
                for r in 0..self.a {
                    for rd in 0..self.a {
                        diameter = diameter.max(self.shortest_between(g, r, gd, rd));
                    }
                }
            }
        }
        diameter
    }

    /// How many parallel global links join the groups of routers `router` and `target`
    /// (1 within a group): the draws that give every route, `0..count`.
    pub fn parallel_links(&self, router: usize, target: usize) -> u32 {
        let (g, gd) = (router as u32 / self.a, target as u32 / self.a);
        if g == gd {
            1
        } else {
            self.between(g, gd).len() as u32
        }
    }

    /// The most global links any pair of groups shares: draws `0..` that give every route.
    pub fn most_parallel_links(&self) -> u32 {
        self.links.iter().map(|l| l.len() as u32).max().unwrap_or(1)
    }

    /// The router node `node` is attached to.
    pub fn router_of(&self, node: usize) -> usize {
        node / self.p as usize
    }

    /// Whether some pair of groups shares several global links (routes then draw one).
    pub fn draws(&self) -> bool {
        self.links.iter().any(|l| l.len() > 1)
    }

    /// Every VC of a port.
    pub fn all_vcs(&self) -> u32 {
        self.all_vcs
    }
}
