//! Channel-load bounds in closed form: a dragonfly's global channels and a HyperX's channels
//! under uniform traffic and their adversarial shifts, for minimal (dimension-order) and Valiant
//! routing. They need no route walking, so they hold at any size; a test checks them against
//! the walked loads.
//!
//! A bound is the injection rate (flits/node/cycle) at which the busiest channel of the kind
//! named is busy every cycle. Routing draws spread a pair of groups' traffic evenly over their
//! parallel links, so the busiest links are those of the pairs with the fewest among the pairs
//! the pattern loads.

use crate::config::PatternKind;
use crate::topology::{DragonflyShape, HyperXShape, Layout, Topology};

/// One closed-form bound.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ClosedForm {
    /// The routing it holds for (`"minimal"`, `"Valiant"`, `"dimension order"`).
    pub routing: &'static str,
    /// The channels it bounds.
    pub channels: &'static str,
    /// The formula, in the topology's own letters.
    pub formula: &'static str,
    /// The bound, flits/node/cycle (may exceed the injection rate of 1).
    pub value: f64,
}

/// The closed-form bounds of `pattern` on `topology` (`include_self`: uniform traffic may pick
/// the source itself), for minimal and Valiant routing; empty where none is known.
pub fn closed_forms(
    topology: &Topology,
    pattern: PatternKind,
    include_self: bool,
) -> Vec<ClosedForm> {
    match topology.layout() {
        Layout::Dragonfly(fly) => {
            dragonfly(fly, &links_between(fly, topology), pattern, include_self)
        }
        Layout::HyperX(x) => hyperx(x, pattern, include_self),
        _ => Vec::new(),
    }
}

/// The global links from each group to each other group of the dragonfly `topology`: entry
/// `g·groups + t`.
fn links_between(fly: &DragonflyShape, topology: &Topology) -> Vec<u32> {
    let groups = fly.groups() as usize;
    let mut links = vec![0; groups * groups];
    for (port, far_router) in fly.global_channels(topology) {
        let (from, to) = (fly.group(port.router.index()), fly.group(far_router));
        links[from as usize * groups + to as usize] += 1;
    }
    links
}

/// A dragonfly's global channels. With `A = a·p` nodes per group, `N = A·g` nodes, `M`
/// destinations per source (`N − 1`, or `N` with the source itself) and `q` the fewest links
/// between two groups the pattern loads (`links`: entry `g·groups + t`):
/// - uniform, minimal: a group sends `A·λ·A/M` to each other group, `λ ≤ q·M/A²`;
/// - group shift, minimal: a group sends all `A·λ` to the next, `λ ≤ q/A`;
/// - uniform, Valiant: a pair of groups carries first hops of the traffic between other groups
///   `A·λ·A/M` and of the source group's own (other routers) `A·λ·(A − p)/(M·(g − 1))`, and
///   as many second hops: `λ ≤ q·M·(g − 1) / (2A·(A·g − p))`;
/// - group shift, Valiant: `2·A·λ/(g − 2)` on every pair but the shift's own, `λ ≤ q·(g − 2)/(2A)`.
fn dragonfly(
    fly: &DragonflyShape,
    links: &[u32],
    pattern: PatternKind,
    include_self: bool,
) -> Vec<ClosedForm> {
    let groups = fly.groups();
    let g = f64::from(groups);
    let p = f64::from(fly.p());
    let big_a = f64::from(fly.a() * fly.p());
    let m = destinations(fly.nodes(), include_self);
    // The fewest links over the pairs of groups `(s, t)` that `loaded` keeps.
    let fewest = |loaded: &dyn Fn(u32, u32) -> bool| {
        let pairs = (0..groups).flat_map(|s| (0..groups).map(move |t| (s, t)));
        f64::from(
            pairs
                .filter(|&(s, t)| s != t && loaded(s, t))
                .map(|(s, t)| links[(s * groups + t) as usize])
                .min()
                .unwrap_or(0),
        )
    };
    let next = |s: u32| (s + 1) % groups;
    let (minimal, valiant) = match pattern {
        PatternKind::Uniform => {
            let q = fewest(&|_, _| true);
            (
                ("q·M/(a·p)²", q * m / (big_a * big_a)),
                (
                    "q·M·(g − 1)/(2·a·p·(a·p·g − p))",
                    q * m * (g - 1.0) / (2.0 * big_a * (big_a * g - p)),
                ),
            )
        }
        PatternKind::GroupShift => (
            ("q/(a·p)", fewest(&|s, t| t == next(s)) / big_a),
            (
                "q·(g − 2)/(2·a·p)",
                fewest(&|s, t| t != next(s)) * (g - 2.0) / (2.0 * big_a),
            ),
        ),
        _ => return Vec::new(),
    };
    let mut bounds = vec![ClosedForm {
        routing: "minimal",
        channels: "global",
        formula: minimal.0,
        value: minimal.1,
    }];
    if fly.groups() >= 3 {
        bounds.push(ClosedForm {
            routing: "Valiant",
            channels: "global",
            formula: valiant.0,
            value: valiant.1,
        });
    }
    bounds
}

/// A HyperX's switch-to-switch channels, with `T` terminals per switch, `S_d` switches and
/// `K_d` links per pair in dimension `d`, `S` switches, `N` nodes and `M` destinations per
/// source. Dimension order:
/// - uniform: a dimension-`d` link carries the pairs whose source agrees with its switch above
///   `d` and whose destination agrees below, `T²·N/(T·S_d)` of them over `K_d` links,
///   `λ ≤ min_d S_d·K_d·M/(T·N)`;
/// - HyperX shift: a switch's `T` nodes share the `K_0` links to the next switch, `λ ≤ K_0/T`.
///
/// Valiant (intermediate switch uniform among the `S − 2` others; packets within a switch stay):
/// - uniform: over a source's destinations the two phases cross dimension `d` `2T·(S − S/S_d)`
///   times in all (the intermediate's exclusions cancel), spread evenly over the `S·(S_d − 1)·K_d`
///   links of the dimension: `λ ≤ min_d S_d·K_d·M/(2T·N)`, half of dimension order's;
/// - HyperX shift: a dimension-`d` link from coordinate `x` to `y` carries first hops of the
///   switch at `x` to intermediates at `y` and second hops of intermediates at `x` towards
///   `y`, `2T·λ·(S/S_d − [d = 0 and y = x + 1])/(S − 2)`, so `λ ≤ min_d S_d·K_d·(S − 2)/(2T·S)`
///   (dimension 0 of 2 switches has only the shift's own channel: `K_0·(S − 2)/(T·(S − 2))`).
fn hyperx(x: &HyperXShape, pattern: PatternKind, include_self: bool) -> Vec<ClosedForm> {
    let t = f64::from(x.terminals());
    let switches = x.switches() as f64;
    let dims = || {
        x.dims()
            .iter()
            .zip(x.trunking())
            .map(|(&s, &k)| (f64::from(s), f64::from(k)))
    };
    let (minimal, valiant) = match pattern {
        PatternKind::Uniform => {
            let n = x.nodes() as f64;
            let m = destinations(x.nodes(), include_self);
            let dor = least(dims().map(|(s, k)| s * k * m / (t * n)));
            (
                ("min over d of S_d·K_d·M/(T·N)", dor),
                ("min over d of S_d·K_d·M/(2·T·N)", dor / 2.0),
            )
        }
        PatternKind::HyperxShift => {
            let valiant = least(dims().enumerate().map(|(d, (s, k))| {
                // A link's share of the detours: `S/S_d` per phase, less the shift's own
                // switch where dimension 0 has no other coordinate to go through.
                let per_phase = switches / s - if d == 0 && s < 3.0 { 1.0 } else { 0.0 };
                k * (switches - 2.0) / (2.0 * t * per_phase)
            }));
            (
                ("K_0/T", f64::from(x.trunking()[0]) / t),
                ("min over d of S_d·K_d·(S − 2)/(2·T·S)", valiant),
            )
        }
        _ => return Vec::new(),
    };
    let mut bounds = vec![ClosedForm {
        routing: "dimension order",
        channels: "switch-to-switch",
        formula: minimal.0,
        value: minimal.1,
    }];
    if x.switches() >= 3 {
        bounds.push(ClosedForm {
            routing: "Valiant",
            channels: "switch-to-switch",
            formula: valiant.0,
            value: valiant.1,
        });
    }
    bounds
}

/// The least of `bounds` (infinite for none).
fn least(bounds: impl Iterator<Item = f64>) -> f64 {
    bounds.fold(f64::INFINITY, f64::min)
}

/// Destinations uniform traffic spreads a source's packets over.
fn destinations(nodes: usize, include_self: bool) -> f64 {
    (nodes - usize::from(!include_self)) as f64
}
