//! Dimension-order routing on k-ary n-cubes with dateline VC classes on tori.
//!
//! A packet corrects dimension 0 first, then 1, and so on, always along a minimal direction. On a
//! ring where both directions are equally short (distance k/2) the [`TieBreak`] rule decides;
//! under [`TieBreak::Random`] bit `d` of the packet's routing draw picks dimension `d`'s
//! direction (0: positive), so every hop of the route agrees on it.
//!
//! VC classes keep the rings deadlock-free:
//! - **wrap scheme** (default on tori): two classes; in each dimension a packet whose route in that
//!   dimension crosses the wrap-around link uses the upper class for the whole dimension, other
//!   packets the lower one. Because DOR leaves a coordinate untouched until its dimension is
//!   routed, "wraps" is a function of the source and destination coordinates.
//! - **crossing scheme** (`routing.datelines`): a packet starts in class 0 and moves to the next
//!   class on every link that crosses a dateline, across all dimensions. A dateline at coordinate
//!   `p` sits on the link between `p - 1` and `p`; the crossing link itself is in the new class.
//!
//! Class `c` of `C` owns VCs `c*V/C .. (c+1)*V/C`.

use crate::config::{RoutingConfig, TieBreak};
use crate::topology::CubeShape;

/// Where a head flit goes next: an output port and the VCs it may take there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    /// Local output port.
    pub port: u8,
    /// Bit mask of allowed output VCs.
    pub vcs: u32,
    /// VC class the packet is in after this hop.
    pub class: u8,
}

#[derive(Debug, Clone)]
enum ClassScheme {
    /// Mesh: one class.
    Single,
    /// Upper class for a dimension whose route wraps.
    Wrap,
    /// Next class at every dateline crossing; `crosses[d][2c + dir]` for the link leaving
    /// coordinate `c` in direction `dir` (0 positive, 1 negative).
    Datelines { crosses: Vec<Vec<bool>> },
}

/// Dimension-order routing on a k-ary n-cube.
#[derive(Debug, Clone)]
pub struct Dor {
    dims: Vec<u32>,
    wrap: bool,
    tie: TieBreak,
    scheme: ClassScheme,
    /// Coordinates of every router, `n` per router.
    coords: Vec<u32>,
    class_vcs: Vec<u32>,
    all_vcs: u32,
    terminal: u8,
}

impl Dor {
    /// Builds DOR for `shape` with `vcs` VCs per port (enough for the scheme's classes), class
    /// `c` of `C` owning VCs `c*V/C .. (c+1)*V/C`.
    pub fn new(shape: &CubeShape, cfg: &RoutingConfig, vcs: u32) -> Dor {
        let classes = classes_needed(shape.dims(), shape.wraps(), cfg) as u32;
        let class_vcs = (0..classes)
            .map(|c| vc_mask(c * vcs / classes, (c + 1) * vcs / classes))
            .collect();
        Dor::with_class_vcs(shape, cfg, class_vcs, vc_mask(0, vcs))
    }

    /// Builds DOR as the escape function of adaptive routing: class `c` owns VC `c` alone, and
    /// the ejection hop may use every VC of `vcs`.
    pub fn escape(shape: &CubeShape, cfg: &RoutingConfig, vcs: u32) -> Dor {
        let classes = classes_needed(shape.dims(), shape.wraps(), cfg) as u32;
        let class_vcs = (0..classes).map(|c| 1 << c).collect();
        Dor::with_class_vcs(shape, cfg, class_vcs, vc_mask(0, vcs))
    }

    fn with_class_vcs(
        shape: &CubeShape,
        cfg: &RoutingConfig,
        class_vcs: Vec<u32>,
        all_vcs: u32,
    ) -> Dor {
        let scheme = if !shape.wraps() {
            ClassScheme::Single
        } else if let Some(lines) = &cfg.datelines {
            ClassScheme::Datelines {
                crosses: shape
                    .dims()
                    .iter()
                    .zip(lines)
                    .map(|(&k, coords)| crossing_table(k, coords))
                    .collect(),
            }
        } else {
            ClassScheme::Wrap
        };
        let coords = (0..shape.nodes()).flat_map(|i| shape.coords(i)).collect();
        Dor {
            dims: shape.dims().to_vec(),
            wrap: shape.wraps(),
            tie: cfg.tie_break.unwrap_or(TieBreak::Balanced),
            scheme,
            coords,
            class_vcs,
            all_vcs,
            terminal: shape.terminal_port(),
        }
    }

    /// Whether the classes count dateline crossings (`routing.datelines`), which makes an
    /// escape hop's class depend on the direction the rest of the route takes around each ring.
    pub fn counts_crossings(&self) -> bool {
        matches!(self.scheme, ClassScheme::Datelines { .. })
    }

    /// Number of VC classes the scheme uses.
    pub fn classes(&self) -> usize {
        self.class_vcs.len()
    }

    /// The VCs of VC class `class`.
    pub fn class_vcs(&self, class: usize) -> u32 {
        self.class_vcs[class]
    }

    /// Whether packets draw their tied directions at random.
    pub fn draws(&self) -> bool {
        self.wrap && self.tie == TieBreak::Random
    }

    /// Dimensions in which a packet from `src` to `dst` is at distance exactly k/2: the bits of
    /// a routing draw its route depends on (none unless ties are drawn).
    pub fn tied_dimensions(&self, src: usize, dst: usize) -> u32 {
        if !self.draws() {
            return 0;
        }
        let n = self.dims.len();
        (0..n)
            .filter(|&d| {
                let (c, t, k) = (
                    self.coords[src * n + d],
                    self.coords[dst * n + d],
                    self.dims[d],
                );
                2 * ((t + k - c) % k) == k
            })
            .fold(0, |m, d| m | 1 << d)
    }

    /// Dimensions whose rings may tie (even radix) when ties are drawn: the bits any routing
    /// draw is read at (a torus has at most 16 dimensions, so they fit).
    pub fn tie_mask(&self) -> u32 {
        if !self.draws() {
            return 0;
        }
        (0..self.dims.len())
            .filter(|&d| self.dims[d].is_multiple_of(2))
            .fold(0, |m, d| m | 1 << d)
    }

    /// The next hop of a packet from `src` to `dst` whose head is at `router` in `class`, with
    /// routing draw `draw`.
    #[inline]
    pub fn route(&self, router: usize, src: usize, dst: usize, class: u8, draw: u32) -> Hop {
        let n = self.dims.len();
        let here = &self.coords[router * n..router * n + n];
        let there = &self.coords[dst * n..dst * n + n];
        for d in 0..n {
            let (c, t) = (here[d], there[d]);
            if c == t {
                continue;
            }
            let positive = self.positive(d, c, t, draw);
            let class = match &self.scheme {
                ClassScheme::Single => 0,
                ClassScheme::Wrap => {
                    let s = self.coords[src * n + d];
                    u8::from(if positive { t < s } else { t > s })
                }
                ClassScheme::Datelines { crosses } => {
                    class + u8::from(crosses[d][2 * c as usize + usize::from(!positive)])
                }
            };
            return Hop {
                port: CubeShape::port_toward(d, positive),
                vcs: self.class_vcs[class as usize],
                class,
            };
        }
        Hop {
            port: self.terminal,
            vcs: self.all_vcs,
            class,
        }
    }

    /// The DOR hop from `router` towards `dst` with its class computed from the current
    /// position only, as the escape function of adaptive routing must be: under the wrap scheme
    /// the upper class while the rest of the route in this dimension crosses the wrap-around
    /// link; under datelines, class `C - 1 - (datelines the rest of the DOR route crosses after
    /// this link)`, which rises by one at each crossing like the packet-state scheme and ends in
    /// the top class. `draw` is the packet's routing draw.
    #[inline]
    pub fn escape_hop(&self, router: usize, dst: usize, draw: u32) -> Hop {
        let n = self.dims.len();
        let here = &self.coords[router * n..router * n + n];
        let there = &self.coords[dst * n..dst * n + n];
        let Some(d) = (0..n).find(|&d| here[d] != there[d]) else {
            return Hop {
                port: self.terminal,
                vcs: self.all_vcs,
                class: 0,
            };
        };
        let (c, t) = (here[d], there[d]);
        let positive = self.positive(d, c, t, draw);
        let class = match &self.scheme {
            ClassScheme::Single => 0,
            ClassScheme::Wrap => u8::from(if positive { t < c } else { t > c }),
            ClassScheme::Datelines { crosses } => {
                let this_link = usize::from(crosses[d][2 * c as usize + usize::from(!positive)]);
                let after: usize = (d..n)
                    .map(|e| self.crossings(crosses, e, here[e], there[e], draw))
                    .sum::<usize>()
                    - this_link;
                (self.classes() - 1 - after) as u8
            }
        };
        Hop {
            port: CubeShape::port_toward(d, positive),
            vcs: self.class_vcs[class as usize],
            class,
        }
    }

    /// Datelines crossed by the DOR route from `c` to `t` along dimension `d`.
    fn crossings(&self, crosses: &[Vec<bool>], d: usize, c: u32, t: u32, draw: u32) -> usize {
        if c == t {
            return 0;
        }
        let (k, positive) = (self.dims[d], self.positive(d, c, t, draw));
        let (mut at, mut count) = (c, 0);
        while at != t {
            count += usize::from(crosses[d][2 * at as usize + usize::from(!positive)]);
            at = if positive {
                (at + 1) % k
            } else {
                (at + k - 1) % k
            };
        }
        count
    }

    /// Local ports of every minimal hop from `router` towards `dst`; empty at the destination.
    /// On a ring at distance exactly k/2 both directions are minimal; with `ties_both_ways`
    /// false only the one the tie rule (or the packet's draw `draw`) picks counts.
    #[inline]
    pub fn minimal_ports(&self, router: usize, dst: usize, ties_both_ways: bool, draw: u32) -> u64 {
        let n = self.dims.len();
        let here = &self.coords[router * n..router * n + n];
        let there = &self.coords[dst * n..dst * n + n];
        let mut ports = 0u64;
        for d in 0..n {
            let (c, t) = (here[d], there[d]);
            if c == t {
                continue;
            }
            let k = self.dims[d];
            let forward = (t + k - c) % k;
            let (plus, minus) = if !self.wrap {
                (t > c, t < c)
            } else if 2 * forward == k && !ties_both_ways {
                let positive = self.positive(d, c, t, draw);
                (positive, !positive)
            } else {
                (2 * forward <= k, 2 * forward >= k)
            };
            if plus {
                ports |= 1 << CubeShape::port_toward(d, true);
            }
            if minus {
                ports |= 1 << CubeShape::port_toward(d, false);
            }
        }
        ports
    }

    /// Minimal number of hops from `router` to `dst`.
    pub fn distance(&self, router: usize, dst: usize) -> u32 {
        let n = self.dims.len();
        let here = &self.coords[router * n..router * n + n];
        let there = &self.coords[dst * n..dst * n + n];
        (0..n)
            .map(|d| {
                let (c, t, k) = (here[d], there[d], self.dims[d]);
                let forward = (t + k - c) % k;
                if self.wrap {
                    forward.min(k - forward)
                } else {
                    c.abs_diff(t)
                }
            })
            .sum()
    }

    /// The largest minimal distance between two nodes.
    pub fn diameter(&self) -> u32 {
        self.dims
            .iter()
            .map(|&k| if self.wrap { k / 2 } else { k - 1 })
            .sum()
    }

    /// Local port of the terminal (ejection) port.
    pub fn terminal_port(&self) -> u8 {
        self.terminal
    }

    /// Mask of every VC.
    pub fn all_vcs(&self) -> u32 {
        self.all_vcs
    }

    /// Whether to travel in the positive direction from `c` to `t` in dimension `d` with
    /// routing draw `draw`.
    #[inline]
    fn positive(&self, d: usize, c: u32, t: u32, draw: u32) -> bool {
        direction(self.dims[d], self.wrap, self.tie, c, t, draw >> d & 1 == 0)
    }
}

/// Direction (true = positive) from `c` to `t` on a ring (or line) of radix `k`; at a tie
/// under [`TieBreak::Random`], `drawn`.
#[inline]
pub(crate) fn direction(k: u32, wrap: bool, tie: TieBreak, c: u32, t: u32, drawn: bool) -> bool {
    if !wrap {
        return t > c;
    }
    let forward = (t + k - c) % k;
    let backward = k - forward;
    if forward != backward {
        forward < backward
    } else {
        match tie {
            TieBreak::Positive => true,
            TieBreak::Balanced => c.is_multiple_of(2),
            TieBreak::Random => drawn,
        }
    }
}

fn crossing_table(k: u32, datelines: &[u32]) -> Vec<bool> {
    let is_line = |p: u32| datelines.contains(&p);
    (0..k)
        .flat_map(|c| [is_line((c + 1) % k), is_line(c)])
        .collect()
}

pub(crate) fn vc_mask(lo: u32, hi: u32) -> u32 {
    (lo..hi).fold(0, |m, v| m | (1 << v))
}

/// Number of VC classes DOR needs on this cube with this routing config.
pub(crate) fn classes_needed(dims: &[u32], wrap: bool, cfg: &RoutingConfig) -> usize {
    match (&cfg.datelines, wrap) {
        (_, false) => 1,
        (None, true) => 2,
        (Some(lines), true) => {
            1 + dims
                .iter()
                .zip(lines)
                .map(|(&k, l)| max_crossings(k, l, cfg.tie_break.unwrap_or(TieBreak::Balanced)))
                .sum::<usize>()
        }
    }
}

/// Largest number of datelines a minimal route crosses on one ring.
fn max_crossings(k: u32, datelines: &[u32], tie: TieBreak) -> usize {
    let table = crossing_table(k, datelines);
    let mut worst = 0;
    for s in 0..k {
        for positive in [true, false] {
            let (mut c, mut crossed) = (s, 0);
            for _ in 0..k / 2 + 1 {
                let next = if positive {
                    (c + 1) % k
                } else {
                    (c + k - 1) % k
                };
                crossed += usize::from(table[2 * c as usize + usize::from(!positive)]);
                c = next;
                // Drawn ties may go either way at distance k/2.
                if c == s || direction(k, true, tie, s, c, positive) != positive {
                    break;
                }
                worst = worst.max(crossed);
            }
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(datelines: Option<Vec<Vec<u32>>>, tie: TieBreak) -> RoutingConfig {
        RoutingConfig {
            algorithm: crate::config::RoutingAlgorithm::Dor,
            datelines,
            tie_break: Some(tie),
            disha_timeout: None,
            disha_token_hop: None,
            ugal_threshold: None,
        }
    }

    #[test]
    fn entropy_paper_datelines_need_three_classes_in_2d() {
        let c = cfg(Some(vec![vec![0, 16]; 2]), TieBreak::Positive);
        assert_eq!(classes_needed(&[32, 32], true, &c), 3);
        let one = cfg(Some(vec![vec![0]; 2]), TieBreak::Positive);
        assert_eq!(classes_needed(&[8, 8], true, &one), 3);
        assert_eq!(classes_needed(&[8, 8], false, &one), 1);
        assert_eq!(
            classes_needed(&[8, 8], true, &cfg(None, TieBreak::Positive)),
            2
        );
    }

    #[test]
    fn escape_classes_depend_on_the_current_position() {
        let shape = CubeShape::new(vec![8], true);
        let wrap = Dor::escape(&shape, &cfg(None, TieBreak::Positive), 3);
        // 6 -> 1 wraps: upper class (VC 1) until the wrap link is crossed, then VC 0.
        assert_eq!(
            (wrap.escape_hop(6, 1, 0).class, wrap.escape_hop(6, 1, 0).vcs),
            (1, 0b10)
        );
        assert_eq!(wrap.escape_hop(7, 1, 0).class, 1);
        assert_eq!(
            (wrap.escape_hop(0, 1, 0).class, wrap.escape_hop(0, 1, 0).vcs),
            (0, 0b01)
        );
        // Datelines at 0 and 4: the class rises at each crossing and ends in the top class.
        let lines = Dor::escape(&shape, &cfg(Some(vec![vec![0, 4]]), TieBreak::Positive), 3);
        assert_eq!(lines.classes(), 2);
        assert_eq!(lines.escape_hop(2, 5, 0).class, 0); // crosses 4 later
        assert_eq!(lines.escape_hop(3, 5, 0).class, 1); // this link crosses 4
        assert_eq!(lines.escape_hop(4, 5, 0).class, 1);
        assert_eq!(lines.escape_hop(5, 5, 0).port, shape.terminal_port());
    }

    #[test]
    fn minimal_ports_and_distances() {
        let torus = Dor::new(
            &CubeShape::new(vec![8, 8], true),
            &cfg(None, TieBreak::Balanced),
            2,
        );
        // From (1,0) to (5,2): distance 4 in x is a tie (both x ports), y goes positive.
        let ports = torus.minimal_ports(1, 5 + 2 * 8, true, 0);
        assert_eq!(ports, 0b0111);
        // Following the balanced tie rule, odd coordinates take the tie the negative way.
        assert_eq!(torus.minimal_ports(1, 5 + 2 * 8, false, 0), 0b0110);
        assert_eq!(torus.distance(1, 5 + 2 * 8), 6);
        assert_eq!(torus.minimal_ports(9, 9, true, 0), 0);
        assert_eq!(torus.diameter(), 8);
        let mesh = Dor::new(
            &CubeShape::new(vec![4, 3], false),
            &cfg(None, TieBreak::Balanced),
            1,
        );
        assert_eq!(mesh.minimal_ports(11, 0, true, 0), 0b1010);
        assert_eq!(mesh.distance(11, 0), 5);
        assert_eq!(mesh.diameter(), 5);
    }

    #[test]
    fn ties_follow_the_rule() {
        assert!(direction(8, true, TieBreak::Positive, 3, 7, true));
        assert!(!direction(8, true, TieBreak::Balanced, 3, 7, true));
        assert!(direction(8, true, TieBreak::Balanced, 2, 6, true));
        assert!(!direction(8, true, TieBreak::Positive, 1, 7, true));
        assert!(!direction(8, false, TieBreak::Positive, 7, 1, true));
        // A drawn tie goes the drawn way; a route without a tie ignores the draw.
        assert!(direction(8, true, TieBreak::Random, 3, 7, true));
        assert!(!direction(8, true, TieBreak::Random, 3, 7, false));
        assert!(!direction(8, true, TieBreak::Random, 1, 7, true));
    }

    #[test]
    fn wrap_scheme_uses_upper_class_for_the_whole_wrapping_dimension() {
        let shape = CubeShape::new(vec![8], true);
        let dor = Dor::new(&shape, &cfg(None, TieBreak::Positive), 4);
        // 6 -> 1 goes positive through the wrap link: upper class (VCs 2 and 3) at every hop.
        for at in [6, 7, 0] {
            let hop = dor.route(at, 6, 1, 0, 0);
            assert_eq!((hop.port, hop.vcs, hop.class), (0, 0b1100, 1));
        }
        // 1 -> 3 does not wrap: lower class.
        assert_eq!(dor.route(1, 1, 3, 0, 0).vcs, 0b0011);
        assert_eq!(dor.route(1, 6, 1, 1, 0).port, shape.terminal_port());
    }

    #[test]
    fn crossing_scheme_moves_up_a_class_on_the_dateline_link() {
        let shape = CubeShape::new(vec![8, 8], true);
        let dor = Dor::new(
            &shape,
            &cfg(Some(vec![vec![0, 4]; 2]), TieBreak::Positive),
            3,
        );
        // Along x from 2 to 5: link 3 -> 4 crosses the dateline at 4.
        assert_eq!(dor.route(2, 2, 5, 0, 0).class, 0);
        assert_eq!(dor.route(3, 2, 5, 0, 0).class, 1);
        assert_eq!(dor.route(3, 2, 5, 0, 0).vcs, 0b010);
        assert_eq!(dor.route(4, 2, 5, 1, 0).class, 1);
        // Negative direction: the link leaving 0 towards 7 crosses the dateline at 0.
        assert_eq!(dor.route(0, 1, 6, 0, 0).class, 1);
    }
}
