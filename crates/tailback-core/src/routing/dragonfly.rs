//! Routing on a dragonfly: minimal, Valiant, UGAL (weighing local or global queues) and
//! progressive adaptive (PAR).
//!
//! - A **minimal** route takes a local hop to the router owning a global link to the
//!   destination's group, the global hop, and a local hop to the destination's router (each
//!   left out where it is not needed).
//! - A **Valiant** route goes minimally to an intermediate group, drawn uniformly among the
//!   groups other than the source's and the destination's, and on minimally from the router it
//!   enters that group at. Only the group is drawn: walking on to a drawn router inside it, as
//!   BookSim2's dragonfly does, adds a local hop and, on three VC classes, a cyclic channel
//!   dependency in the intermediate group.
//! - **UGAL** chooses at the source router between the minimal route and a Valiant route: it
//!   stays minimal if `q_min ≤ 2·q_valiant + threshold`, where `q` is the credits in use over
//!   every VC of the output port each route leaves the router through (UGAL-L, BookSim2's rule)
//!   or of the global channel each route takes (UGAL-G: an ideal bound that reads other
//!   routers' state). Packets within a group stay minimal.
//! - **PAR** decides as UGAL-L at the source router, and a packet that stayed minimal decides
//!   once more at the router owning its minimal global link, if that is another router of the
//!   source group.
//!
//! Every random choice comes from the packet's routing draw, as digits of mixed radix: the
//! minimal route's global link (`draw mod n₀`, `n₀` the links between source and destination
//! groups), then the intermediate group, then its link from the source group, then its link to
//! the destination group. So every hop of a route agrees, and packets that differ only in the
//! routing algorithm draw the same routes.
//!
//! VC classes rise with each phase: minimal routing uses class 0 up to and including the global
//! hop and class 1 after it; Valiant and UGAL use class 0 in the source group and on the first
//! global hop, 1 in the intermediate group and on the second, 2 in the destination group; PAR
//! adds a class below them for a packet's tentative minimal local hop in the source group (its
//! second decision may send it on a local hop again). Channel dependencies only ever go from a
//! class to a higher one, or from a local to a global channel of the same class, so they are
//! acyclic.

use super::dor::vc_mask;
use super::{Decide, Head, Hop, nth_outside, stays_minimal};
use crate::config::RoutingAlgorithm;
use crate::ids::PortId;
use crate::topology::{DragonflyShape, Topology};

/// Routing on a dragonfly.
#[derive(Debug, Clone)]
pub struct Dragonfly {
    algorithm: Algorithm,
    p: u32,
    a: u32,
    groups: u32,
    /// Ports of every router (router `r`'s are `r·radix ..`).
    radix: u32,
    /// The global links from group `g` to group `t`, entry `g·groups + t`, in link order.
    links: Vec<Vec<GlobalLink>>,
    /// The class of each phase of a route.
    classes: Classes,
    /// VCs of each class.
    class_vcs: [u32; MAX_CLASSES as usize],
    all_vcs: u32,
}

/// The routing algorithms of a dragonfly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Algorithm {
    Min,
    Valiant,
    UgalLocal,
    UgalGlobal,
    Progressive,
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

/// The VC class of each phase of a route.
#[derive(Debug, Clone, Copy)]
struct Classes {
    /// A PAR packet's minimal local hop in the source group, before its second decision.
    tentative: u8,
    /// The source group's hops and the first global hop.
    source: u8,
    /// The intermediate group's hops and the second global hop.
    intermediate: u8,
    /// The destination group's hops.
    destination: u8,
}

/// Where a packet is on its route.
enum Phase {
    Source,
    Intermediate,
    Destination,
}

/// The most VC classes a dragonfly routing needs (PAR's).
pub const MAX_CLASSES: u32 = 4;

/// VC classes `algorithm` needs on a dragonfly: 2 minimal, 3 Valiant and UGAL, 4 PAR.
pub fn classes_needed(algorithm: RoutingAlgorithm) -> u32 {
    match algorithm {
        RoutingAlgorithm::Valiant | RoutingAlgorithm::UgalL | RoutingAlgorithm::UgalG => 3,
        RoutingAlgorithm::Par => MAX_CLASSES,
        _ => 2,
    }
}

impl Dragonfly {
    /// `algorithm` on the built dragonfly `topology` of `shape`, over `vcs` VCs per port (at
    /// least [`classes_needed`]), class `c` of `C` owning VCs `c·V/C .. (c + 1)·V/C`.
    pub fn new(
        algorithm: RoutingAlgorithm,
        shape: &DragonflyShape,
        topology: &Topology,
        vcs: u32,
    ) -> Dragonfly {
        let groups = shape.groups();
        // Ports come router by router, in port order: each list fills in link order.
        let mut links = vec![Vec::new(); (groups * groups) as usize];
        for (port, far_router) in shape.global_channels(topology) {
            let (from, to) = (shape.group(port.router.index()), shape.group(far_router));
            links[(from * groups + to) as usize].push(GlobalLink {
                owner: port.router.index() as u32 % shape.a(),
                port: port.local,
                far: far_router as u32 % shape.a(),
            });
        }
        let radix = shape.ports_per_router();
        assert!(
            topology.ports().iter().enumerate().all(
                |(i, port)| i == port.router.index() * radix as usize + usize::from(port.local)
            ),
            "a dragonfly's ports come router by router"
        );
        let (algorithm, classes) = match algorithm {
            RoutingAlgorithm::Valiant => (Algorithm::Valiant, Classes::detouring()),
            RoutingAlgorithm::UgalL => (Algorithm::UgalLocal, Classes::detouring()),
            RoutingAlgorithm::UgalG => (Algorithm::UgalGlobal, Classes::detouring()),
            RoutingAlgorithm::Par => (Algorithm::Progressive, Classes::progressive()),
            _ => (Algorithm::Min, Classes::minimal()),
        };
        let count = u32::from(classes.destination) + 1;
        let mut class_vcs = [0; MAX_CLASSES as usize];
        for (c, mask) in class_vcs.iter_mut().take(count as usize).enumerate() {
            let c = c as u32;
            *mask = vc_mask(c * vcs / count, (c + 1) * vcs / count);
        }
        Dragonfly {
            algorithm,
            p: shape.p(),
            a: shape.a(),
            groups,
            radix,
            links,
            classes,
            class_vcs,
            all_vcs: vc_mask(0, vcs),
        }
    }

    /// Number of VC classes the routing uses.
    pub fn classes(&self) -> usize {
        usize::from(self.classes.destination) + 1
    }

    /// The VCs of VC class `class`.
    pub fn class_vcs(&self, class: usize) -> u32 {
        self.class_vcs[class]
    }

    /// The global links from group `from` to group `to`.
    #[inline]
    fn between(&self, from: u32, to: u32) -> &[GlobalLink] {
        &self.links[(from * self.groups + to) as usize]
    }

    /// The hop from router `router` of the packet `head` describes, and whether its route is a
    /// detour from there on. Where UGAL or PAR may leave the minimal route, `decide` chooses.
    // Out of line: keeps the other topologies' inlined routing as it was.
    #[inline(never)]
    pub fn route(&self, router: usize, head: &Head, decide: &mut impl Decide) -> (Hop, bool) {
        let (dst, draw, c) = (head.dst.index(), head.draw, self.classes);
        let target = dst / self.p as usize;
        let source = head.src.index() / self.p as usize;
        let gs = source as u32 / self.a;
        // A detour within a group passes its destination's router on the way out.
        let leaving = head.detoured && head.class == c.source && target as u32 / self.a == gs;
        if router == target && !leaving {
            let eject = Hop {
                port: (dst % self.p as usize) as u8,
                vcs: self.all_vcs,
                class: c.destination,
            };
            return (eject, head.detoured);
        }
        let (g, r) = (router as u32 / self.a, router as u32 % self.a);
        let (gd, rd) = (target as u32 / self.a, target as u32 % self.a);
        let phase = if head.class == c.destination {
            Phase::Destination
        } else if head.class == c.intermediate {
            if g == gd {
                Phase::Destination
            } else {
                Phase::Intermediate
            }
        } else if g == gs {
            Phase::Source
        } else if head.detoured {
            Phase::Intermediate
        } else {
            Phase::Destination
        };
        match phase {
            Phase::Destination => (self.local(r, rd, c.destination), head.detoured),
            Phase::Intermediate => {
                let link = self.detour(gs, gd, draw).1;
                (self.towards(r, link, c.intermediate, c.intermediate), true)
            }
            Phase::Source => self.in_source_group(router, head, decide),
        }
    }

    /// The hop from `router`, in the source group, of the packet `head` describes.
    fn in_source_group(&self, router: usize, head: &Head, decide: &mut impl Decide) -> (Hop, bool) {
        let c = self.classes;
        let (g, r) = (router as u32 / self.a, router as u32 % self.a);
        let target = head.dst.index() / self.p as usize;
        let (gd, rd) = (target as u32 / self.a, target as u32 % self.a);
        let fresh = head.class == 0 && !head.detoured;
        let at_source = fresh && router == head.src.index() / self.p as usize;
        if g == gd && !(head.detoured || self.algorithm == Algorithm::Valiant && at_source) {
            return (self.local(r, rd, c.destination), false);
        }
        let detour = || self.detour(g, gd, head.draw).0;
        let minimal = || {
            let links = self.between(g, gd);
            links[head.draw as usize % links.len()]
        };
        let deciding = match self.algorithm {
            Algorithm::Min | Algorithm::Valiant => false,
            Algorithm::UgalLocal | Algorithm::UgalGlobal => at_source,
            Algorithm::Progressive => fresh,
        };
        // UGAL-G weighs the global channels, the others the ports out of this router.
        let weighed = |link| match self.algorithm {
            Algorithm::UgalGlobal => self.global_port(g, link),
            _ => self.first_port(router, r, link),
        };
        let first = |link| self.first_port(router, r, link);
        let detoured = head.detoured
            || self.algorithm == Algorithm::Valiant
            || deciding
                && !stays_minimal(
                    decide,
                    || (first(minimal()), first(detour())),
                    (weighed(minimal()), weighed(detour())),
                );
        if detoured {
            (self.towards(r, detour(), c.source, c.source), true)
        } else {
            (self.towards(r, minimal(), c.tentative, c.source), false)
        }
    }

    /// The hop from router `r` (index in its group) towards global `link` of its group: the
    /// link itself in class `global`, else a local hop to its owner in class `local`.
    #[inline]
    fn towards(&self, r: u32, link: GlobalLink, local: u8, global: u8) -> Hop {
        if link.owner == r {
            Hop {
                port: link.port,
                vcs: self.class_vcs[global as usize],
                class: global,
            }
        } else {
            self.local(r, link.owner, local)
        }
    }

    /// The port (global index) a route towards `link` leaves router `router` (index `r` in its
    /// group) through.
    fn first_port(&self, router: usize, r: u32, link: GlobalLink) -> PortId {
        let local = self.towards(r, link, 0, 0).port;
        PortId::new(router * self.radix as usize + usize::from(local))
    }

    /// The port (global index) of `link` of group `g`.
    fn global_port(&self, g: u32, link: GlobalLink) -> PortId {
        let owner = (g * self.a + link.owner) as usize;
        PortId::new(owner * self.radix as usize + usize::from(link.port))
    }

    /// The detour of a packet with routing draw `draw` from group `gs` to group `gd`: its link
    /// out of `gs` and its link from the intermediate group to `gd`.
    #[inline]
    fn detour(&self, gs: u32, gd: u32, draw: u32) -> (GlobalLink, GlobalLink) {
        let digits = self.digits(gs, gd, draw);
        let first = self.between(gs, digits.group);
        let second = self.between(digits.group, gd);
        (
            first[(digits.rest % first.len() as u32) as usize],
            second[(digits.rest / first.len() as u32 % second.len() as u32) as usize],
        )
    }

    /// The intermediate group a routing draw picks, and the digits left for its links.
    #[inline]
    fn digits(&self, gs: u32, gd: u32, draw: u32) -> Digits {
        let minimal = self.minimal_links(gs, gd);
        let choices = self.intermediates(gs, gd);
        let q = draw / minimal;
        let (lo, hi) = (gs.min(gd) as usize, gs.max(gd) as usize);
        let excluded: &[usize] = if gs == gd { &[lo] } else { &[lo, hi] };
        Digits {
            group: nth_outside((q % choices) as usize, excluded) as u32,
            rest: q / choices,
        }
    }

    /// The minimal routes' choices of global link from group `gs` to group `gd` (one within a
    /// group): the base of a routing draw's first digit.
    fn minimal_links(&self, gs: u32, gd: u32) -> u32 {
        if gs == gd {
            1
        } else {
            self.between(gs, gd).len() as u32
        }
    }

    /// How many intermediate groups a packet from group `gs` to group `gd` may draw.
    fn intermediates(&self, gs: u32, gd: u32) -> u32 {
        self.groups - if gs == gd { 1 } else { 2 }
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

    /// Calls `visit(draw, probability)` for routing draws that between them give every route a
    /// packet from router `router` to router `target` may take, with their probabilities.
    pub fn draws_between(&self, router: usize, target: usize, visit: &mut dyn FnMut(u32, f64)) {
        let (gs, gd) = (router as u32 / self.a, target as u32 / self.a);
        let minimal = self.minimal_links(gs, gd);
        let detours = match self.algorithm {
            Algorithm::Min => false,
            Algorithm::Valiant => router != target,
            _ => gs != gd,
        };
        if !detours {
            for draw in 0..minimal {
                visit(draw, 1.0 / f64::from(minimal));
            }
            return;
        }
        // Valiant routes ignore the minimal digit.
        let minimal_digits = if self.algorithm == Algorithm::Valiant {
            1
        } else {
            minimal
        };
        let choices = self.intermediates(gs, gd);
        for m in 0..minimal_digits {
            for i in 0..choices {
                let group = self.digits(gs, gd, i * minimal).group;
                let (n1, n2) = (
                    self.between(gs, group).len() as u32,
                    self.between(group, gd).len() as u32,
                );
                let p = 1.0 / f64::from(minimal_digits * choices * n1 * n2);
                for rest in 0..n1 * n2 {
                    visit(m + minimal * (i + choices * rest), p);
                }
            }
        }
    }

    /// Whether routes may leave the minimal path.
    pub fn detours(&self) -> bool {
        self.algorithm != Algorithm::Min
    }

    /// How many decisions a route may take (UGAL one, PAR two).
    pub fn decisions(&self) -> u32 {
        match self.algorithm {
            Algorithm::Min | Algorithm::Valiant => 0,
            Algorithm::UgalLocal | Algorithm::UgalGlobal => 1,
            Algorithm::Progressive => 2,
        }
    }

    /// Whether a hop in class `class` lies on a route its source router chose by the queues:
    /// under UGAL and PAR, a hop in the source group of a packet leaving it (classes up to the
    /// source group's; a packet bound within its group stays minimal in the destination's).
    pub fn chose(&self, class: u8) -> bool {
        self.decisions() > 0 && class <= self.classes.source
    }

    /// Local ports of the minimal hops from `router` towards node `dst`: every global link to
    /// its group (or the local hop to its owner), or the one local or ejection hop.
    pub fn minimal_ports(&self, router: usize, dst: usize) -> u64 {
        let target = dst / self.p as usize;
        let (g, gd) = (router as u32 / self.a, target as u32 / self.a);
        let r = router as u32 % self.a;
        if router == target {
            return 1 << (dst % self.p as usize);
        }
        if g == gd {
            return 1 << self.local(r, target as u32 % self.a, 0).port;
        }
        self.between(g, gd)
            .iter()
            .map(|&link| self.towards(r, link, 0, 0).port)
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

    /// The most global links any pair of groups shares: draws `0..` that give every minimal
    /// route.
    pub fn most_parallel_links(&self) -> u32 {
        self.links.iter().map(|l| l.len() as u32).max().unwrap_or(1)
    }

    /// The router node `node` is attached to.
    pub fn router_of(&self, node: usize) -> usize {
        node / self.p as usize
    }

    /// Whether routes draw: some pair of groups shares several global links, or routes detour.
    pub fn draws(&self) -> bool {
        self.detours() || self.links.iter().any(|l| l.len() > 1)
    }
}

/// A routing draw read past its minimal digit.
struct Digits {
    /// The intermediate group.
    group: u32,
    /// The digits of its links.
    rest: u32,
}

impl Classes {
    fn minimal() -> Classes {
        Classes {
            tentative: 0,
            source: 0,
            intermediate: 1,
            destination: 1,
        }
    }

    fn detouring() -> Classes {
        Classes {
            tentative: 0,
            source: 0,
            intermediate: 1,
            destination: 2,
        }
    }

    fn progressive() -> Classes {
        Classes {
            tentative: 0,
            source: 1,
            intermediate: 2,
            destination: 3,
        }
    }
}
