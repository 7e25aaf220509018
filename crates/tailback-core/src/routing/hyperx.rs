//! Routing on a HyperX: dimension order, Valiant, UGAL choosing between them, and DAL.
//!
//! - **Dimension order** corrects, lowest dimension first, each dimension where the switch's
//!   coordinate differs from the destination's, one hop straight to the destination's
//!   coordinate. Where trunking gives several parallel links, the packet's routing draw picks
//!   one per dimension, so every hop of its route agrees. One VC class: the channels are used in
//!   dimension order, so their dependencies are acyclic.
//! - **Valiant** goes in dimension order to an intermediate switch, drawn uniformly among the
//!   switches other than the source's and the destination's, in VC class 0, then in dimension
//!   order to the destination in class 1 (each class acyclic, and class 0 only leads to 1).
//! - **UGAL-L** chooses at the source switch between dimension order in class 1 and the Valiant
//!   route, by the dragonfly's rule: minimal if `q_min ≤ 2·q_valiant + threshold`, `q` the
//!   credits in use over every VC of the output port each leaves through.
//! - **DAL** (dimension-adaptive, load-balanced; Ahn et al., SC 2009) may correct any dimension
//!   still unaligned, in any order, and may *deroute* once in each: one hop to another
//!   coordinate of that dimension (neither the current one nor the destination's), after which
//!   that dimension is only corrected. At every switch the least-queued minimal hop and the
//!   least-queued deroute are weighed by UGAL's rule (a deroute costs two hops where the
//!   minimal hop costs one). Whether a dimension was derouted needs no state in the packet: a
//!   coordinate that is neither the source's nor the destination's is a deroute's. Each hop
//!   rises one VC class (as SuperSim's DAL does; the paper leaves the scheme open), so a route
//!   of at most two hops per dimension needs `2·dims` classes and cannot close a cycle.
//!
//! The routing draw's digits: one trunk per dimension (both phases of a detour use the same),
//! then the intermediate switch (for DAL: where the scan of equally queued deroutes starts).

use super::dor::vc_mask;
use super::{Decide, Head, Hop, nth_outside, stays_minimal};
use crate::config::RoutingAlgorithm;
use crate::ids::PortId;
use crate::topology::{CubeShape, HyperXShape};

/// Routing on a HyperX.
#[derive(Debug, Clone)]
pub struct HyperX {
    shape: HyperXShape,
    /// The product of the trunking of the dimensions below each: the draw's digit base.
    trunk_base: Vec<u32>,
    /// The product of every dimension's trunking: the intermediate's digit base.
    trunk_combinations: u32,
    /// Ports of every switch (switch `r`'s are `r·radix ..`).
    radix: u32,
    algorithm: Algorithm,
    /// VCs of each class: for Valiant and UGAL class 0 leads to the intermediate and class 1
    /// to the destination; for DAL class `k` is the `k`-th hop.
    class_vcs: Vec<u32>,
    all_vcs: u32,
}

/// The routing algorithms of a HyperX.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Algorithm {
    Dor,
    Valiant,
    UgalLocal,
    Dal,
}

/// VC classes `algorithm` needs on a HyperX of `dims` dimensions: 1 dimension order, 2 Valiant
/// and UGAL-L, one per hop (two per dimension) DAL.
pub fn classes_needed(algorithm: RoutingAlgorithm, dims: usize) -> u32 {
    match algorithm {
        RoutingAlgorithm::Dal => 2 * dims as u32,
        a if a.through_intermediate() => 2,
        _ => 1,
    }
}

impl HyperX {
    /// `algorithm` on `shape` over `vcs` VCs per port (at least [`classes_needed`]).
    pub fn new(algorithm: RoutingAlgorithm, shape: &HyperXShape, vcs: u32) -> HyperX {
        let mut base = 1u32;
        let trunk_base = shape
            .trunking()
            .iter()
            .map(|&k| {
                let b = base;
                base = base.saturating_mul(k);
                b
            })
            .collect();
        let classes = classes_needed(algorithm, shape.dims().len());
        let algorithm = match algorithm {
            RoutingAlgorithm::Valiant => Algorithm::Valiant,
            RoutingAlgorithm::UgalL => Algorithm::UgalLocal,
            RoutingAlgorithm::Dal => Algorithm::Dal,
            _ => Algorithm::Dor,
        };
        // Class `k` of `C` owns VCs `k·V/C .. (k + 1)·V/C`, as on a dragonfly.
        let class_vcs = (0..classes)
            .map(|k| vc_mask(k * vcs / classes, (k + 1) * vcs / classes))
            .collect();
        HyperX {
            shape: shape.clone(),
            trunk_base,
            trunk_combinations: base,
            radix: shape.ports_per_switch(),
            class_vcs,
            algorithm,
            all_vcs: vc_mask(0, vcs),
        }
    }

    /// Number of VC classes the routing uses.
    pub fn classes(&self) -> usize {
        self.class_vcs.len()
    }

    /// The VCs of VC class `class`.
    pub fn class_vcs(&self, class: usize) -> u32 {
        self.class_vcs[class]
    }

    /// Whether the routing chooses among ports hop by hop (DAL): its routes are walked through
    /// [`choices`](Self::choices), not routing draws and scripts.
    pub fn adapts(&self) -> bool {
        self.algorithm == Algorithm::Dal
    }

    /// Whether routes may go through an intermediate switch.
    pub fn detours(&self) -> bool {
        self.algorithm != Algorithm::Dor
    }

    /// How many choices between the minimal route and a detour a route meets (DAL: at most
    /// one per dimension).
    pub fn decisions(&self) -> u32 {
        match self.algorithm {
            Algorithm::UgalLocal => 1,
            Algorithm::Dal => self.shape.dims().len() as u32,
            Algorithm::Dor | Algorithm::Valiant => 0,
        }
    }

    /// The intermediate switch of a packet from switch `source` to switch `target` with
    /// routing draw `draw`.
    #[inline]
    fn intermediate(&self, source: usize, target: usize, draw: u32) -> usize {
        let choices = self.shape.switches() - 2;
        let i = (draw / self.trunk_combinations) as usize % choices;
        nth_outside(i, &[source.min(target), source.max(target)])
    }

    /// The hop from switch `router` of the packet `head` describes, and whether its route
    /// detours from there on; where UGAL-L may leave the minimal route, `decide` chooses.
    // Out of line: keeps the other topologies' inlined routing as it was.
    #[inline(never)]
    pub fn route(&self, router: usize, head: &Head, decide: &mut impl Decide) -> (Hop, bool) {
        let draw = head.draw;
        match self.algorithm {
            Algorithm::Dor => {
                return (
                    self.dimension_order(router, head.dst.index(), draw, 0),
                    false,
                );
            }
            Algorithm::Dal => return self.dal(router, head, decide),
            Algorithm::Valiant | Algorithm::UgalLocal => {}
        }
        let t = self.shape.terminals() as usize;
        let (source, target) = (head.src.index() / t, head.dst.index() / t);
        if head.detoured && head.class == 0 {
            let intermediate = self.intermediate(source, target, draw);
            if router != intermediate {
                return (self.towards(router, intermediate, draw, 0), true);
            }
        } else if head.class == 0 && router == source && source != target {
            let intermediate = self.intermediate(source, target, draw);
            let detour = match self.algorithm {
                Algorithm::UgalLocal => {
                    let port = |hop: Hop| {
                        PortId::new(router * self.radix as usize + usize::from(hop.port))
                    };
                    let minimal = self.towards(router, target, draw, 1);
                    let detour = self.towards(router, intermediate, draw, 0);
                    let ports = (port(minimal), port(detour));
                    !stays_minimal(decide, || ports, ports)
                }
                _ => true,
            };
            if detour {
                return (self.towards(router, intermediate, draw, 0), true);
            }
        }
        (
            self.dimension_order(router, head.dst.index(), draw, 1),
            head.detoured,
        )
    }

    /// DAL's hop from switch `router`: the least-queued minimal hop, or the least-queued
    /// deroute where UGAL's rule prefers it (`decide` weighs them).
    fn dal(&self, router: usize, head: &Head, decide: &mut impl Decide) -> (Hop, bool) {
        let t = self.shape.terminals() as usize;
        if router == head.dst.index() / t {
            let hop = self.dimension_order(router, head.dst.index(), head.draw, 0);
            return (hop, head.detoured);
        }
        let first = router * self.radix as usize;
        let port = |local: u32| PortId::new(first + local as usize);
        // (local port, queue) of the least-queued candidate of each kind; ties keep the first.
        let mut minimal: Option<(u32, u32)> = None;
        let mut deroute: Option<(u32, u32)> = None;
        self.choices_from(router, head, |local, derouting| {
            let best = if derouting {
                &mut deroute
            } else {
                &mut minimal
            };
            let queue = decide.queue(port(local));
            if best.is_none_or(|(_, q)| queue < q) {
                *best = Some((local, queue));
            }
        });
        let (minimal, _) = minimal.expect("an unaligned dimension has a minimal hop");
        let derouted = deroute.and_then(|(d, _)| {
            let ports = (port(minimal), port(d));
            (!stays_minimal(decide, || ports, ports)).then_some(d)
        });
        let (local, derouted) = derouted.map_or((minimal, false), |d| (d, true));
        let class = self.dal_class(router, head);
        let hop = Hop {
            port: local as u8,
            vcs: self.class_vcs[class as usize],
            class,
        };
        (hop, head.detoured || derouted)
    }

    /// The class of DAL's next hop from `router`: 0 from the source switch (which a route never
    /// revisits: every coordinate it leaves stays left), else one above the last hop's.
    #[inline]
    fn dal_class(&self, router: usize, head: &Head) -> u8 {
        let t = self.shape.terminals() as usize;
        if router == head.src.index() / t {
            0
        } else {
            head.class + 1
        }
    }

    /// Calls `visit(local port, derouting)` for every hop DAL may take from `router` (not the
    /// destination's switch): in each unaligned dimension the minimal hop, and where the
    /// dimension still has its source coordinate, a deroute to each coordinate other than the
    /// current and the destination's (trunks picked by the draw; deroutes scanned from a drawn
    /// start, so equally queued ones share the load).
    #[inline]
    fn choices_from(&self, router: usize, head: &Head, mut visit: impl FnMut(u32, bool)) {
        let t = self.shape.terminals() as usize;
        let (source, target, draw) = (head.src.index() / t, head.dst.index() / t, head.draw);
        let start = draw / self.trunk_combinations;
        for (d, &width) in self.shape.dims().iter().enumerate() {
            let (c, to) = (self.grid().coord(router, d), self.grid().coord(target, d));
            if c == to {
                continue;
            }
            let trunk = self.trunk(d, draw);
            visit(self.shape.port_towards(d, c, to) + trunk, false);
            if c != self.grid().coord(source, d) || width < 3 {
                continue;
            }
            let others = width as usize - 2;
            let excluded = [c.min(to) as usize, c.max(to) as usize];
            for i in 0..others {
                let x = nth_outside((start as usize + i) % others, &excluded) as u32;
                visit(self.shape.port_towards(d, c, x) + trunk, true);
            }
        }
    }

    /// Every hop DAL may take from `router` (ejection excluded): the local ports and the class
    /// they are taken in. `None` for the other algorithms, whose routes follow from the draw
    /// and the choices between minimal and detour.
    pub fn choices(&self, router: usize, head: &Head) -> Option<(u64, u8)> {
        if !self.adapts() {
            return None;
        }
        let mut ports = 0u64;
        self.choices_from(router, head, |local, _| ports |= 1 << local);
        Some((ports, self.dal_class(router, head)))
    }

    /// The dimension-order hop from switch `router` towards switch `to` (which it is not), in
    /// `class`.
    #[inline]
    fn towards(&self, router: usize, to: usize, draw: u32, class: u8) -> Hop {
        let t = self.shape.terminals() as usize;
        self.dimension_order(router, to * t, draw, class)
    }

    /// Calls `visit(draw, probability)` for routing draws that between them give every route a
    /// packet from switch `router` to switch `target` may take, with their probabilities (for
    /// DAL, every route it takes on an empty network: dimension order).
    pub fn draws_between(&self, router: usize, target: usize, visit: &mut dyn FnMut(u32, f64)) {
        let trunks = self.distinct_draws(router, target);
        // DAL's route on an empty network is dimension order: only the trunks differ.
        if !self.detours() || self.adapts() || router == target {
            for draw in 0..trunks {
                visit(draw, 1.0 / f64::from(trunks));
            }
            return;
        }
        // Every trunk combination: a detour's two phases cross different dimensions.
        let (all, choices) = (self.trunk_combinations, self.shape.switches() as u32 - 2);
        for i in 0..choices {
            for trunk in 0..all {
                visit(trunk + all * i, 1.0 / f64::from(all * choices));
            }
        }
    }

    fn grid(&self) -> &CubeShape {
        self.shape.grid()
    }

    /// The parallel link of dimension `d` a packet with routing draw `draw` takes.
    #[inline]
    fn trunk(&self, d: usize, draw: u32) -> u32 {
        (draw / self.trunk_base[d]) % self.shape.trunking()[d]
    }

    /// The dimension-order hop from switch `router` towards node `dst` of a packet with routing
    /// draw `draw`, in `class`.
    #[inline]
    fn dimension_order(&self, router: usize, dst: usize, draw: u32, class: u8) -> Hop {
        let t = self.shape.terminals() as usize;
        let target = dst / t;
        for d in 0..self.shape.dims().len() {
            let (c, to) = (self.grid().coord(router, d), self.grid().coord(target, d));
            if c != to {
                return Hop {
                    port: (self.shape.port_towards(d, c, to) + self.trunk(d, draw)) as u8,
                    vcs: self.class_vcs[class as usize],
                    class,
                };
            }
        }
        Hop {
            port: (dst % t) as u8,
            vcs: self.all_vcs,
            class,
        }
    }

    /// Whether the hop from `router` of the packet `head` describes was chosen by the queues:
    /// UGAL-L's hop from the source switch (minimal against the detour), and a DAL hop with
    /// more than one candidate.
    pub fn chose(&self, router: usize, head: &Head) -> bool {
        let t = self.shape.terminals() as usize;
        let (source, target) = (head.src.index() / t, head.dst.index() / t);
        match self.algorithm {
            Algorithm::UgalLocal => {
                head.class == 0 && !head.detoured && router == source && source != target
            }
            Algorithm::Dal if router != target => {
                let mut candidates = 0;
                self.choices_from(router, head, |_, _| candidates += 1);
                candidates > 1
            }
            _ => false,
        }
    }

    /// Local ports of every minimal hop from `router` towards node `dst`: every parallel link
    /// of every dimension still to correct (the ejection port at the destination).
    pub fn minimal_ports(&self, router: usize, dst: usize) -> u64 {
        let t = self.shape.terminals() as usize;
        let target = dst / t;
        let mut ports = 0u64;
        for d in 0..self.shape.dims().len() {
            let (c, to) = (self.grid().coord(router, d), self.grid().coord(target, d));
            if c != to {
                let first = self.shape.port_towards(d, c, to);
                for k in 0..self.shape.trunking()[d] {
                    ports |= 1 << (first + k);
                }
            }
        }
        if ports == 0 { 1 << (dst % t) } else { ports }
    }

    /// Hops from `router` to node `dst`: the coordinates that differ.
    pub fn distance(&self, router: usize, dst: usize) -> u32 {
        let target = dst / self.shape.terminals() as usize;
        (0..self.shape.dims().len())
            .filter(|&d| self.grid().coord(router, d) != self.grid().coord(target, d))
            .count() as u32
    }

    /// The largest distance: one hop per dimension.
    pub fn diameter(&self) -> u32 {
        self.shape.dims().len() as u32
    }

    /// How many routing draws give different routes from `router` to router `target`: the
    /// product of the trunking of the dimensions that differ (draws `0..count`).
    pub fn distinct_draws(&self, router: usize, target: usize) -> u32 {
        (0..self.shape.dims().len())
            .filter(|&d| self.grid().coord(router, d) != self.grid().coord(target, d))
            .map(|d| self.shape.trunking()[d] * self.trunk_base[d])
            .max()
            .unwrap_or(1)
    }

    /// The combinations of one trunk per dimension: draws `0..` that give every route.
    pub fn trunk_combinations(&self) -> u32 {
        self.shape.trunking().iter().product()
    }

    /// The switch node `node` is attached to.
    pub fn switch_of(&self, node: usize) -> usize {
        node / self.shape.terminals() as usize
    }

    /// Whether routes draw: some dimension has parallel links, or routes detour.
    pub fn draws(&self) -> bool {
        self.detours() || self.shape.trunking().iter().any(|&k| k > 1)
    }
}
