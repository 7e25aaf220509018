//! Routing functions: given a head flit's router, source, destination and VC class, the output
//! ports and VCs it may take next.
//!
//! - `dor`: dimension-order routing with dateline VC classes on tori (deterministic).
//! - `duato`: Duato's protocol. The first `C` VCs (one per DOR class) form the escape network,
//!   routed by DOR with classes computed from the current router; the other VCs are fully
//!   adaptive over every minimal direction. A packet may always take the escape VC of its DOR
//!   hop, and may return to adaptive VCs at the next router. Deadlock-free because the escape
//!   network's extended channel dependency graph (direct and indirect dependencies) is acyclic
//!   (`analysis::escape_dependency_graph`).
//! - `disha`: fully adaptive over every minimal direction on every VC; deadlocks are possible
//!   and are recovered (see `docs/deadlock-recovery.md`).
//! - `d_mod_k`, `adaptive_up` and `random_up` on fat trees: up/down routing (`updown`), with
//!   the up port fixed by the destination, free to choose, or drawn per packet.
//! - `destination_tag` on butterflies (`tag`): each stage's output group is a destination
//!   digit; any port of a dilated group.
//! - `table` on topology files (`table`): the file's forwarding tables or shortest paths.
//! - `min`, `valiant`, `ugal_l`, `ugal_g` and `par` on dragonflies (`dragonfly`): minimal,
//!   through an intermediate group, or choosing between the two by queue lengths.
//! - `dor`, `valiant`, `ugal_l` and `dal` on HyperX (`hyperx`): one hop per differing
//!   dimension, lowest first, directly or through an intermediate switch; or DAL's dimensions
//!   in any order, each derouted at most once, chosen hop by hop by the queues.
//!
//! The selection among adaptive candidates happens in VC allocation (`router/alloc.rs`): the free
//! adaptive VC with the most credits, else the escape VC.
//!
//! Random choices (`random_up`, `tie_break = "random"`, intermediate groups) come from a
//! *routing draw*: 32 random
//! bits each packet takes from its source's routing stream at injection
//! ([`Packet::route_draw`](crate::packet::Packet)). Every routing call gets the draw, so all
//! hops of a route agree; analyses weigh each possible route by its probability
//! ([`Routing::spread`]).

mod dor;
mod dragonfly;
mod hyperx;
mod pooled;
mod table;
mod tag;
mod updown;

pub(crate) use dor::vc_mask;
pub use dor::{Dor, Hop};
pub use dragonfly::Dragonfly;
pub use hyperx::HyperX;
pub(crate) use pooled::PooledTree;
pub use table::TableRouting;
pub use tag::DestinationTag;
pub use updown::{UpChoice, UpDown};

use crate::config::{Config, RoutingAlgorithm, RoutingConfig, TopologyConfig, TopologyKind};
use crate::ids::{NodeId, PortId, RouterId};
use crate::packet::Packet;
use crate::topology::{Layout, Link, Topology};

/// The output channels a head flit may take at one router.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    /// The deterministic hop: the DOR hop, or Duato's escape hop. Its `vcs` is empty under
    /// fully adaptive routing (Disha), except for the ejection hop at the destination.
    pub escape: Hop,
    /// Local ports of the minimal adaptive hops (empty for deterministic routing and at the
    /// destination).
    pub adaptive_ports: u64,
    /// VCs adaptive hops may use.
    pub adaptive_vcs: u32,
    /// Whether the packet's route is a detour from here on (Valiant, or UGAL or PAR chose it).
    pub detoured: bool,
}

/// What routing reads of a packet whose head is at a router.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head {
    /// Source node.
    pub src: NodeId,
    /// Destination node.
    pub dst: NodeId,
    /// The VC class of its last hop (0 at injection).
    pub class: u8,
    /// Its routing draw.
    pub draw: u32,
    /// Whether its route detours (through an intermediate group or switch).
    pub detoured: bool,
}

impl Head {
    /// A packet from `src` to `dst` with routing draw `draw`, at injection.
    pub fn new(src: NodeId, dst: NodeId, draw: u32) -> Head {
        Head {
            src,
            dst,
            class: 0,
            draw,
            detoured: false,
        }
    }

    /// The head of `packet`.
    #[inline]
    pub(crate) fn of(packet: &Packet) -> Head {
        Head {
            src: NodeId::new(packet.src as usize),
            dst: NodeId::new(packet.dst as usize),
            class: packet.class,
            draw: packet.route_draw,
            detoured: packet.detoured,
        }
    }
}

/// Chooses where a routing function may leave the minimal route (UGAL, PAR, DAL).
pub trait Decide {
    /// Whether a packet stays minimal, given the ports (global indices) whose queues weigh each
    /// choice: the minimal route's and the detour's.
    fn stay_minimal(&mut self, minimal: PortId, detour: PortId) -> bool;

    /// The queue of output port `port` (global index), in flits: what ranks the candidates of
    /// one kind (DAL's minimal hops, its deroutes) before the minimal one and the detour are
    /// weighed.
    fn queue(&mut self, port: PortId) -> u32;

    /// Whether a known congestion tree of the packet's destination decides instead, given the
    /// first ports of the minimal route and of the detour (`first`, asked only by a decider
    /// that heeds trees): `Some(stay)`, or `None` to let the queues decide (ours:
    /// `fabric.isolation.tree_routing`; none by default).
    fn by_tree(&mut self, _first: impl FnOnce() -> (PortId, PortId)) -> Option<bool> {
        None
    }
}

/// Whether a packet stays minimal: as a known congestion tree says ([`Decide::by_tree`], on
/// the routes' first ports), else by the queues of the ports that weigh each route.
#[inline]
fn stays_minimal(
    decide: &mut impl Decide,
    first: impl FnOnce() -> (PortId, PortId),
    (minimal, detour): (PortId, PortId),
) -> bool {
    decide
        .by_tree(first)
        .unwrap_or_else(|| decide.stay_minimal(minimal, detour))
}

/// UGAL's rule: stay minimal if the minimal route's queue is at most twice the detour's (which
/// is about twice as long) plus `threshold` flits.
#[inline]
pub fn ugal_stays_minimal(minimal: u32, detour: u32, threshold: u32) -> bool {
    minimal <= 2 * detour + threshold
}

/// Always stays minimal: UGAL's choice at zero load, where every queue is empty.
#[derive(Debug, Clone, Copy)]
pub struct StayMinimal;

impl Decide for StayMinimal {
    fn stay_minimal(&mut self, _: PortId, _: PortId) -> bool {
        true
    }

    fn queue(&mut self, _: PortId) -> u32 {
        0
    }
}

/// Decisions in a fixed order: the `k`-th stays minimal if bit `k` is set. Walking every
/// script up to [`Routing::decisions`] bits walks every route an adaptive choice may give.
#[derive(Debug, Clone, Copy)]
pub struct Scripted(pub u32);

impl Decide for Scripted {
    fn stay_minimal(&mut self, _: PortId, _: PortId) -> bool {
        let stay = self.0 & 1 == 1;
        self.0 >>= 1;
        stay
    }

    fn queue(&mut self, _: PortId) -> u32 {
        0
    }
}

/// How a routing function copes with deadlock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeadlockHandling {
    /// By construction: the (escape) channel dependency graph is acyclic.
    Avoidance,
    /// Deadlocks may form and are detected and recovered.
    Recovery,
}

/// Minimal adaptive routing on a k-ary n-cube with a DOR function for escape or recovery paths.
#[derive(Debug, Clone)]
pub struct Adaptive {
    dor: Dor,
    adaptive_vcs: u32,
    /// Whether adaptive hops may take either direction of a ring at distance k/2. Duato with
    /// dateline classes may not: going the other way than the escape route would change the
    /// datelines the rest of the route crosses, and so lower the class of a later escape hop,
    /// which closes cycles in the extended dependency graph.
    ties_both_ways: bool,
}

/// A built routing function.
#[derive(Debug, Clone)]
pub enum Routing {
    /// Dimension-order routing.
    Dor(Dor),
    /// Duato's protocol: adaptive VCs plus DOR escape VCs.
    Duato(Adaptive),
    /// Fully adaptive on all VCs, with deadlock recovery.
    Disha(Adaptive),
    /// Up/down routing on a fat tree.
    UpDown(UpDown),
    /// Destination-tag routing on a butterfly.
    Tag(DestinationTag),
    /// Forwarding tables of a topology file.
    Table(TableRouting),
    /// Minimal, Valiant, UGAL or PAR routing on a dragonfly.
    Dragonfly(Dragonfly),
    /// Dimension-order routing on a HyperX.
    HyperX(HyperX),
}

impl Adaptive {
    #[inline]
    fn minimal_ports(&self, router: usize, dst: usize, draw: u32) -> u64 {
        self.dor
            .minimal_ports(router, dst, self.ties_both_ways, draw)
    }
}

impl Routing {
    /// The routing function `[routing]` describes on `topology`, over `vcs` VCs per port.
    pub fn new(section: &RoutingConfig, topology: &Topology, vcs: u32) -> Routing {
        let shape = match topology.layout() {
            Layout::Cube(shape) => shape,
            Layout::Tree(tree) => {
                let up = match section.algorithm {
                    RoutingAlgorithm::AdaptiveUp => UpChoice::Adaptive,
                    RoutingAlgorithm::RandomUp => UpChoice::Random,
                    _ => UpChoice::Destination,
                };
                return Routing::UpDown(UpDown::new(tree, vcs, up));
            }
            Layout::Fly(fly) => return Routing::Tag(DestinationTag::new(fly, vcs)),
            Layout::File(file) => {
                let adaptive = section.algorithm == RoutingAlgorithm::Adaptive;
                return Routing::Table(TableRouting::new(file, topology, vcs, adaptive));
            }
            Layout::Dragonfly(fly) => {
                return Routing::Dragonfly(Dragonfly::new(section.algorithm, fly, topology, vcs));
            }
            Layout::HyperX(x) => return Routing::HyperX(HyperX::new(section.algorithm, x, vcs)),
        };
        match section.algorithm {
            RoutingAlgorithm::Duato => {
                let dor = Dor::escape(shape, section, vcs);
                let escape_vcs = (1u32 << dor.classes()) - 1;
                Routing::Duato(Adaptive {
                    adaptive_vcs: dor.all_vcs() & !escape_vcs,
                    ties_both_ways: !dor.counts_crossings(),
                    dor,
                })
            }
            RoutingAlgorithm::Disha => {
                let dor = Dor::escape(shape, section, vcs);
                Routing::Disha(Adaptive {
                    adaptive_vcs: dor.all_vcs(),
                    ties_both_ways: true,
                    dor,
                })
            }
            // Validation pairs the other algorithms with their topologies.
            _ => Routing::Dor(Dor::new(shape, section, vcs)),
        }
    }

    /// The routing function a configuration describes: [`Routing::new`] over the VCs of one
    /// logical network (each routes on its own share).
    pub fn from_config(cfg: &Config, topology: &Topology) -> Routing {
        Routing::new(&cfg.routing, topology, cfg.router.network_vcs())
    }

    /// The channels the packet `head` describes, whose head is at `router`, may take next.
    /// Where the routing may leave the minimal route (UGAL, PAR), `decide` chooses.
    #[inline(always)]
    pub fn route(&self, router: RouterId, head: &Head, decide: &mut impl Decide) -> Route {
        let (r, d, draw) = (router.index(), head.dst.index(), head.draw);
        let deterministic = |escape| Route {
            escape,
            adaptive_ports: 0,
            adaptive_vcs: 0,
            detoured: false,
        };
        match self {
            Routing::Dor(dor) => deterministic(dor.route(r, head.src.index(), d, head.class, draw)),
            Routing::Duato(a) => Route {
                escape: a.dor.escape_hop(r, d, draw),
                adaptive_ports: a.minimal_ports(r, d, draw),
                adaptive_vcs: a.adaptive_vcs,
                detoured: false,
            },
            Routing::UpDown(u) => {
                let escape = u.route(r, d, draw);
                let adaptive = u.is_adaptive() && escape.port as u32 >= u.down_ports(r);
                Route {
                    escape,
                    adaptive_ports: if adaptive { u.minimal_ports(r, d) } else { 0 },
                    adaptive_vcs: if adaptive { u.all_vcs() } else { 0 },
                    detoured: false,
                }
            }
            Routing::Table(t) => {
                let adaptive_ports = t.adaptive_ports(r, head.dst);
                Route {
                    adaptive_vcs: if adaptive_ports != 0 { t.all_vcs() } else { 0 },
                    adaptive_ports,
                    ..deterministic(t.route(r, head.dst))
                }
            }
            Routing::Dragonfly(f) => {
                let (escape, detoured) = f.route(r, head, decide);
                Route {
                    detoured,
                    ..deterministic(escape)
                }
            }
            Routing::HyperX(x) => {
                let (escape, detoured) = x.route(r, head, decide);
                Route {
                    detoured,
                    ..deterministic(escape)
                }
            }
            Routing::Tag(t) => {
                let adaptive = t.is_adaptive();
                Route {
                    escape: t.route(r, head.src.index(), d),
                    adaptive_ports: if adaptive { t.minimal_ports(r, d) } else { 0 },
                    adaptive_vcs: if adaptive { t.all_vcs() } else { 0 },
                    detoured: false,
                }
            }
            Routing::Disha(a) => {
                let adaptive_ports = a.minimal_ports(r, d, draw);
                let escape = if adaptive_ports == 0 {
                    a.dor.escape_hop(r, d, draw)
                } else {
                    Hop {
                        port: 0,
                        vcs: 0,
                        class: 0,
                    }
                };
                Route {
                    escape,
                    adaptive_ports,
                    adaptive_vcs: a.adaptive_vcs,
                    detoured: false,
                }
            }
        }
    }

    /// Whether queue-weighing routing chose the route through `hop`, the hop from `router` of
    /// the packet `head` describes, among others: on a dragonfly under UGAL or PAR, every hop
    /// of a packet in its source group bound elsewhere (the routes its source router chose
    /// between part there); on a HyperX, UGAL-L's hop from the source switch and every DAL hop
    /// with more than one candidate. Asked only where it matters (marking unchosen hops).
    pub fn chose(&self, router: RouterId, head: &Head, hop: &Hop) -> bool {
        match self {
            Routing::Dragonfly(f) => f.chose(hop.class),
            Routing::HyperX(x) => x.chose(router.index(), head),
            _ => false,
        }
    }

    /// The deterministic hop from `router` of the packet `head` describes (DOR; for adaptive
    /// routing the escape or recovery path), and whether its route detours from there on.
    /// Where the routing may leave the minimal route (UGAL, PAR), `decide` chooses.
    #[inline]
    pub fn deterministic_hop(
        &self,
        router: RouterId,
        head: &Head,
        decide: &mut impl Decide,
    ) -> (Hop, bool) {
        let (r, src, dst, draw) = (router.index(), head.src.index(), head.dst, head.draw);
        let hop = match self {
            Routing::Dor(dor) => dor.route(r, src, dst.index(), head.class, draw),
            Routing::Duato(a) | Routing::Disha(a) => a.dor.escape_hop(r, dst.index(), draw),
            Routing::UpDown(u) => u.route(r, dst.index(), draw),
            Routing::Tag(t) => t.route(r, src, dst.index()),
            Routing::Table(t) => t.route(r, dst),
            Routing::Dragonfly(f) => return f.route(r, head, decide),
            Routing::HyperX(x) => return x.route(r, head, decide),
        };
        (hop, false)
    }

    /// Local ports of every minimal hop from `router` towards node `dst` (empty there) of a
    /// packet with routing draw `draw`: the hops adaptive routing may take (for DOR, every
    /// minimal hop).
    pub fn minimal_ports(&self, router: RouterId, dst: usize, draw: u32) -> u64 {
        match self {
            Routing::Dor(dor) => dor.minimal_ports(router.index(), dst, true, draw),
            Routing::Duato(a) | Routing::Disha(a) => a.minimal_ports(router.index(), dst, draw),
            Routing::UpDown(u) => u.minimal_ports(router.index(), dst),
            Routing::Tag(t) => t.minimal_ports(router.index(), dst),
            Routing::Table(t) => t.listed_ports(router.index(), NodeId::new(dst)),
            Routing::Dragonfly(f) => f.minimal_ports(router.index(), dst),
            Routing::HyperX(x) => x.minimal_ports(router.index(), dst),
        }
    }

    /// Minimal number of hops from `router` to node `dst`.
    pub fn distance(&self, router: RouterId, dst: usize) -> u32 {
        match self {
            Routing::Dor(dor) => dor.distance(router.index(), dst),
            Routing::Duato(a) | Routing::Disha(a) => a.dor.distance(router.index(), dst),
            Routing::UpDown(u) => u.distance(router.index(), dst),
            Routing::Tag(t) => t.distance(router.index()),
            Routing::Table(t) => t.distance(router.index(), dst),
            Routing::Dragonfly(f) => f.distance(router.index(), dst),
            Routing::HyperX(x) => x.distance(router.index(), dst),
        }
    }

    /// The largest minimal distance between two nodes.
    pub fn diameter(&self) -> u32 {
        match self {
            Routing::Dor(dor) => dor.diameter(),
            Routing::Duato(a) | Routing::Disha(a) => a.dor.diameter(),
            Routing::UpDown(u) => u.diameter(),
            Routing::Tag(t) => t.diameter(),
            Routing::Table(t) => t.diameter(),
            Routing::Dragonfly(f) => f.diameter(),
            Routing::HyperX(x) => x.diameter(),
        }
    }

    fn dor(&self) -> Option<&Dor> {
        match self {
            Routing::Dor(dor) => Some(dor),
            Routing::Duato(a) | Routing::Disha(a) => Some(&a.dor),
            _ => None,
        }
    }

    /// Number of VC classes of the deterministic (escape) routing.
    pub fn classes(&self) -> usize {
        match self {
            Routing::Dragonfly(f) => f.classes(),
            Routing::HyperX(x) => x.classes(),
            _ => self.dor().map_or(1, Dor::classes),
        }
    }

    /// The VCs of VC class `class` (of the escape classes, for Duato's protocol; every VC for
    /// routings with one class).
    pub fn class_vcs(&self, class: usize) -> u32 {
        match self {
            Routing::Dor(dor) => dor.class_vcs(class),
            Routing::Duato(a) | Routing::Disha(a) => a.dor.class_vcs(class),
            Routing::Dragonfly(f) => f.class_vcs(class),
            Routing::HyperX(x) => x.class_vcs(class),
            Routing::UpDown(u) => u.all_vcs(),
            Routing::Tag(t) => t.all_vcs(),
            Routing::Table(t) => t.all_vcs(),
        }
    }

    /// How the routing function copes with deadlock.
    pub fn deadlock_handling(&self) -> DeadlockHandling {
        match self {
            Routing::Dor(_)
            | Routing::Duato(_)
            | Routing::UpDown(_)
            | Routing::Tag(_)
            | Routing::Table(_)
            | Routing::Dragonfly(_)
            | Routing::HyperX(_) => DeadlockHandling::Avoidance,
            Routing::Disha(_) => DeadlockHandling::Recovery,
        }
    }

    /// Whether packets draw random choices (random up ports, drawn ties) at injection.
    pub fn draws(&self) -> bool {
        match self {
            Routing::UpDown(u) => u.draws(),
            Routing::Dragonfly(f) => f.draws(),
            Routing::HyperX(x) => x.draws(),
            _ => self.dor().is_some_and(Dor::draws),
        }
    }

    /// Whether routes may leave the minimal path (Valiant, UGAL, PAR): a route then depends on
    /// its source's group and on the decisions on the way, not only on where it is.
    pub fn detours(&self) -> bool {
        match self {
            Routing::Dragonfly(f) => f.detours(),
            Routing::HyperX(x) => x.detours(),
            _ => false,
        }
    }

    /// How many choices between the minimal route and a detour a route may meet (UGAL one,
    /// PAR two, DAL one per dimension; none for oblivious routing).
    pub fn decisions(&self) -> u32 {
        match self {
            Routing::Dragonfly(f) => f.decisions(),
            Routing::HyperX(x) => x.decisions(),
            _ => 0,
        }
    }

    /// Whether the routing chooses among ports hop by hop (DAL): its routes are walked through
    /// [`choices`](Self::choices).
    pub fn adapts_hop_by_hop(&self) -> bool {
        matches!(self, Routing::HyperX(x) if x.adapts())
    }

    /// Every hop a routing that chooses among ports hop by hop (DAL) may take from `router`
    /// next: its local ports (ejection excluded) and the class they are taken in. `None` for
    /// routings whose routes follow from the draw and the choices between minimal and detour.
    pub fn choices(&self, router: RouterId, head: &Head) -> Option<(u64, u8)> {
        match self {
            Routing::HyperX(x) => x.choices(router.index(), head),
            _ => None,
        }
    }

    /// Every routing draw that makes a difference to some minimal route: on a torus with drawn
    /// ties, on a dragonfly with parallel global links, on a HyperX with trunks (a draw of 0
    /// alone for every other routing). Detours draw more: see
    /// [`draws_between`](Self::draws_between).
    pub fn distinct_draws(&self) -> Vec<u32> {
        match self {
            Routing::Dragonfly(f) => (0..f.most_parallel_links()).collect(),
            Routing::HyperX(x) => (0..x.trunk_combinations()).collect(),
            _ => subsets(self.dor().map_or(0, Dor::tie_mask)).collect(),
        }
    }

    /// Calls `visit(draw, probability)` for routing draws that between them give every route
    /// a packet from `src` to `dst` may take on a torus with drawn ties, a dragonfly's parallel
    /// global links and intermediate groups or a HyperX's trunks, each with its probability (a
    /// single draw of probability 1 for deterministic routing). Random-up routes are spread by
    /// [`spread`](Self::spread) instead.
    pub fn draws_between(&self, src: NodeId, dst: NodeId, mut visit: impl FnMut(u32, f64)) {
        match self {
            Routing::Dragonfly(f) => {
                let (a, b) = (f.router_of(src.index()), f.router_of(dst.index()));
                return f.draws_between(a, b, &mut visit);
            }
            Routing::HyperX(x) => {
                let (a, b) = (x.switch_of(src.index()), x.switch_of(dst.index()));
                return x.draws_between(a, b, &mut visit);
            }
            _ => {}
        }
        let tied = self
            .dor()
            .map_or(0, |dor| dor.tied_dimensions(src.index(), dst.index()));
        let p = 0.5f64.powi(tied.count_ones() as i32);
        for draw in subsets(tied) {
            visit(draw, p);
        }
    }

    /// Calls `visit(output port, input port, probability)` for every output port a packet from
    /// `src` to `dst` may take on its deterministic route (for adaptive routing: the escape or
    /// recovery path), the ejection port included, with the input port it came in through (the
    /// injection port at the first router) and the probability that its route takes both: 1
    /// for deterministic routing; for random-up the up ports of each level share the packet
    /// evenly, and drawn ties send half of it each way.
    pub fn spread(
        &self,
        topology: &Topology,
        src: NodeId,
        dst: NodeId,
        mut visit: impl FnMut(PortId, PortId, f64),
    ) {
        if let Some(mut tree) = self.pooled_tree() {
            let mut mass = vec![0.0; topology.node_count()];
            mass[dst.index()] = 1.0;
            tree.climb(topology, src, &mass, &mut visit);
            tree.descend(topology, &mut visit);
            return;
        }
        let ports = topology.ports();
        self.draws_between(src, dst, |draw, p| {
            let mut input = topology.injection_port(src);
            self.walk(topology, src, dst, draw, |port, _| {
                visit(port, input, p);
                if let Link::Router(next) = ports[port.index()].output {
                    input = next;
                }
            });
        });
    }

    /// Pools for the expected loads of random-up routing ([`PooledTree`]); `None` for every
    /// other routing, whose pairs are cheap to [`spread`](Self::spread) one by one.
    pub(crate) fn pooled_tree(&self) -> Option<PooledTree<'_>> {
        match self {
            Routing::UpDown(u) if u.draws() => Some(PooledTree::new(u)),
            _ => None,
        }
    }

    /// Whether every node's routes are its router's (routes depend on the source only through
    /// the router it injects into): all but destination-tag routing, which spreads dilated
    /// groups by source.
    pub fn routes_by_router(&self) -> bool {
        !matches!(self, Routing::Tag(_))
    }

    /// Calls `visit(output port, class)` for every output port the deterministic route from
    /// `src` to `dst` of a packet with routing draw `draw` takes (for adaptive routing: the
    /// escape or recovery path), the final ejection port included.
    pub fn walk(
        &self,
        topology: &Topology,
        src: NodeId,
        dst: NodeId,
        draw: u32,
        mut visit: impl FnMut(PortId, u8),
    ) {
        self.walk_while(topology, src, dst, draw, |port, class| {
            visit(port, class);
            true
        });
    }

    /// As [`walk`](Self::walk), but stops after the first port for which `visit` returns
    /// `false`.
    pub fn walk_while(
        &self,
        topology: &Topology,
        src: NodeId,
        dst: NodeId,
        draw: u32,
        visit: impl FnMut(PortId, u8) -> bool,
    ) {
        self.walk_deciding(topology, src, dst, draw, &mut StayMinimal, visit);
    }

    /// As [`walk_while`](Self::walk_while), with `decide` choosing where the routing may leave
    /// the minimal route (UGAL, PAR).
    pub fn walk_deciding(
        &self,
        topology: &Topology,
        src: NodeId,
        dst: NodeId,
        draw: u32,
        decide: &mut impl Decide,
        mut visit: impl FnMut(PortId, u8) -> bool,
    ) {
        let mut router = topology.ports()[topology.injection_port(src).index()].router;
        let mut head = Head::new(src, dst, draw);
        // A route never visits more routers than exist (a detour at most every one twice).
        for _ in 0..=2 * topology.router_count() {
            let (hop, detoured) = self.deterministic_hop(router, &head, decide);
            let port = PortId::new(topology.router_ports(router).start + hop.port as usize);
            if !visit(port, hop.class) {
                return;
            }
            match topology.ports()[port.index()].output {
                Link::Router(next) => {
                    router = topology.ports()[next.index()].router;
                    (head.class, head.detoured) = (hop.class, detoured);
                }
                Link::Node(_) => return,
                Link::None => panic!("routing chose unconnected port {port} towards node {dst}"),
            }
        }
        panic!("route from node {src} to node {dst} does not terminate");
    }
}

/// The `i`-th value outside `excluded` (sorted, distinct): `i` skips past each excluded value
/// it reaches, lowest first (an intermediate group or switch drawn among the others).
fn nth_outside(mut i: usize, excluded: &[usize]) -> usize {
    for &skip in excluded {
        if i >= skip {
            i += 1;
        }
    }
    i
}

/// Every subset of the bits of `mask`, the empty one first.
fn subsets(mask: u32) -> impl Iterator<Item = u32> {
    let mut next = Some(0u32);
    std::iter::from_fn(move || {
        let this = next?;
        let after = this.wrapping_sub(mask) & mask;
        next = (after != 0).then_some(after);
        Some(this)
    })
}

/// Number of VCs per port the configured routing needs (checked against `router.vcs`).
pub(crate) fn vcs_needed(topology: &TopologyConfig, routing: &RoutingConfig) -> usize {
    match topology.kind {
        TopologyKind::Dragonfly => return dragonfly::classes_needed(routing.algorithm) as usize,
        TopologyKind::Hyperx => {
            return hyperx::classes_needed(routing.algorithm, hyperx_dimensions(topology)) as usize;
        }
        _ => {}
    }
    if !topology.kind.is_cube() {
        return 1;
    }
    let classes = dor::classes_needed(
        &topology.dims,
        topology.kind == TopologyKind::Torus,
        routing,
    );
    match routing.algorithm {
        RoutingAlgorithm::Dor => classes,
        RoutingAlgorithm::Duato => classes + 1,
        RoutingAlgorithm::Disha
        | RoutingAlgorithm::DModK
        | RoutingAlgorithm::AdaptiveUp
        | RoutingAlgorithm::RandomUp
        | RoutingAlgorithm::DestinationTag
        | RoutingAlgorithm::Table
        | RoutingAlgorithm::Adaptive
        | RoutingAlgorithm::Min
        | RoutingAlgorithm::Valiant
        | RoutingAlgorithm::UgalL
        | RoutingAlgorithm::UgalG
        | RoutingAlgorithm::Par
        | RoutingAlgorithm::Dal => 1,
    }
}

/// Dimensions of a configured HyperX (0 for other topologies).
fn hyperx_dimensions(topology: &TopologyConfig) -> usize {
    match &topology.layout {
        Layout::HyperX(x) => x.dims().len(),
        _ => 0,
    }
}

/// A phrase naming what the configured routing needs VCs for, for messages.
pub(crate) fn vc_need_description(topology: &TopologyConfig, routing: &RoutingConfig) -> String {
    let classes = match (&routing.datelines, topology.kind) {
        (None, TopologyKind::Torus) => {
            "default dateline scheme (upper VC class for a dimension whose route wraps)".into()
        }
        (Some(lines), TopologyKind::Torus) => {
            format!("dateline scheme with datelines at {lines:?} (one more VC class per crossing)")
        }
        (_, TopologyKind::Hyperx) => "single class of dimension-order routing on a HyperX".into(),
        _ => "single class of dimension-order routing on a mesh".to_string(),
    };
    match routing.algorithm {
        RoutingAlgorithm::Dor => format!("the {classes} needs one VC per class"),
        RoutingAlgorithm::Duato => format!(
            "Duato's protocol needs an escape VC per class of the {classes}, plus an adaptive VC"
        ),
        RoutingAlgorithm::Disha => "fully adaptive routing needs a VC".to_string(),
        RoutingAlgorithm::DModK | RoutingAlgorithm::AdaptiveUp | RoutingAlgorithm::RandomUp => {
            "up/down routing needs a VC".to_string()
        }
        RoutingAlgorithm::DestinationTag => "destination-tag routing needs a VC".to_string(),
        RoutingAlgorithm::Table | RoutingAlgorithm::Adaptive => {
            "table routing needs a VC".to_string()
        }
        RoutingAlgorithm::Min => {
            "minimal dragonfly routing needs a VC class before and one after the global hop"
                .to_string()
        }
        RoutingAlgorithm::Valiant | RoutingAlgorithm::UgalL
            if topology.kind == TopologyKind::Hyperx =>
        {
            "routing through an intermediate switch needs a VC class before it and one after"
                .to_string()
        }
        RoutingAlgorithm::Valiant | RoutingAlgorithm::UgalL | RoutingAlgorithm::UgalG => {
            "routing through an intermediate group needs a VC class for the source, the \
             intermediate and the destination group"
                .to_string()
        }
        RoutingAlgorithm::Par => {
            "progressive adaptive routing needs a VC class for the source, the intermediate and \
             the destination group, and one for the tentative minimal hop"
                .to_string()
        }
        RoutingAlgorithm::Dal => format!(
            "DAL needs a VC class per hop: a deroute and a correcting hop in each of the {} \
             dimensions",
            hyperx_dimensions(topology)
        ),
    }
}
