//! Destination patterns.
//!
//! Bit patterns act on the node index `w` with `b = log2(N)` bits, dimension 0 in the least
//! significant bits. Coordinate patterns act on the k-ary n-cube coordinates.

use rand::RngExt;
use rand::seq::SliceRandom;

use crate::config::{Choice, PatternKind, TopologyConfig, TopologyKind, TrafficConfig};
use crate::rng::{self, Purpose, StreamRng};
use crate::topology::CubeShape;

/// A built destination pattern.
#[derive(Debug, Clone)]
pub enum Destinations {
    /// Uniformly random destination.
    Uniform {
        /// Number of nodes.
        nodes: u32,
        /// Whether the source itself may be chosen.
        include_self: bool,
    },
    /// A fixed destination per source.
    Fixed(Vec<u32>),
    /// A uniformly drawn node of the next group: nodes `g·group .. (g + 1)·group` form group
    /// `g` of `groups`.
    NextGroup {
        /// Nodes per group.
        group: u32,
        /// Number of groups.
        groups: u32,
    },
    /// With probability `fraction` a hot node other than the source, otherwise uniform
    /// (excluding the source). A source that is the only hot node always sends uniformly.
    Hotspot {
        /// Number of nodes.
        nodes: u32,
        /// The hot nodes.
        hot: Vec<u32>,
        /// Fraction of packets aimed at hot nodes.
        fraction: f64,
    },
}

impl Destinations {
    /// Builds `cfg.pattern` (with phases: the first phase's pattern) for `shape`; the random
    /// permutation and pairing use the run seed.
    pub fn new(cfg: &TrafficConfig, shape: &CubeShape, seed: u64) -> Destinations {
        Destinations::build(
            cfg.pattern,
            cfg,
            shape,
            &mut rng::stream(seed, 0, Purpose::Pattern),
        )
    }

    /// Builds pattern `kind` for `shape`, with the pattern-specific settings of `cfg`
    /// (`include_self`, `hotspot_*`). A random permutation or pairing draws one shuffle from
    /// `pattern_rng` (the run's pattern stream); other patterns do not touch it.
    pub fn build(
        kind: PatternKind,
        cfg: &TrafficConfig,
        shape: &CubeShape,
        pattern_rng: &mut StreamRng,
    ) -> Destinations {
        let nodes = shape.nodes() as u32;
        match kind {
            PatternKind::Uniform => Destinations::Uniform {
                nodes,
                include_self: cfg.include_self.unwrap_or(false),
            },
            // A dragonfly's addresses are (node in group, group).
            PatternKind::GroupShift => Destinations::NextGroup {
                group: shape.dims()[0],
                groups: shape.dims().get(1).copied().unwrap_or(1),
            },
            PatternKind::Hotspot => Destinations::Hotspot {
                nodes,
                hot: cfg.hotspot_nodes.clone().unwrap_or_default(),
                fraction: cfg.hotspot_fraction.unwrap_or(0.0),
            },
            PatternKind::RandomPermutation | PatternKind::RandomPair => {
                let mut order: Vec<u32> = (0..nodes).collect();
                order.shuffle(pattern_rng);
                let mut table = vec![0; nodes as usize];
                if kind == PatternKind::RandomPermutation {
                    for (s, &d) in order.iter().enumerate() {
                        table[s] = d;
                    }
                } else {
                    for pair in order.chunks_exact(2) {
                        table[pair[0] as usize] = pair[1];
                        table[pair[1] as usize] = pair[0];
                    }
                }
                Destinations::Fixed(table)
            }
            kind => Destinations::Fixed(
                (0..shape.nodes())
                    .map(|s| fixed_destination(kind, shape, s) as u32)
                    .collect(),
            ),
        }
    }

    /// Draws the destination of a packet from `src`.
    #[inline]
    pub fn pick(&self, src: u32, rng: &mut StreamRng) -> u32 {
        match self {
            Destinations::Fixed(table) => table[src as usize],
            Destinations::NextGroup { group, groups } => {
                (src / group + 1) % groups * group + rng.random_range(0..*group)
            }
            Destinations::Uniform {
                nodes,
                include_self,
            } => uniform(*nodes, src, *include_self, rng),
            Destinations::Hotspot {
                nodes,
                hot,
                fraction,
            } => {
                let others = hot.iter().filter(|&&h| h != src).count();
                if others > 0 && rng.random::<f64>() < *fraction {
                    let pick = rng.random_range(0..others);
                    *hot.iter()
                        .filter(|&&h| h != src)
                        .nth(pick)
                        .unwrap_or(&hot[0])
                } else {
                    uniform(*nodes, src, false, rng)
                }
            }
        }
    }

    /// Whether every packet of `src` is addressed to `src` itself.
    pub fn only_to_self(&self, src: u32) -> bool {
        match self {
            Destinations::Fixed(table) => table[src as usize] == src,
            Destinations::NextGroup { groups, .. } => *groups == 1,
            Destinations::Uniform { nodes, .. } | Destinations::Hotspot { nodes, .. } => {
                *nodes == 1
            }
        }
    }

    /// The most destinations a source's distribution visits (the cost of routing it).
    pub fn fanout(&self) -> usize {
        match self {
            Destinations::Fixed(_) => 1,
            Destinations::NextGroup { group, .. } => *group as usize,
            Destinations::Uniform { nodes, .. } => *nodes as usize,
            Destinations::Hotspot { nodes, hot, .. } => *nodes as usize + hot.len(),
        }
    }

    /// The probability that a packet of `src` goes to `dst`: what
    /// [`distribution`](Self::distribution) gives `dst`, summed.
    pub fn probability(&self, src: u32, dst: u32) -> f64 {
        let (each, hot_each) = self.shares(src);
        match self {
            Destinations::Fixed(table) => f64::from(u8::from(table[src as usize] == dst)),
            Destinations::NextGroup { group, groups } => {
                f64::from(u8::from(dst / group == (src / group + 1) % groups)) * each
            }
            Destinations::Uniform { include_self, .. } if *include_self || dst != src => each,
            Destinations::Hotspot { hot, .. } if dst != src => {
                hot.iter().filter(|&&h| h == dst).count() as f64 * hot_each + each
            }
            Destinations::Uniform { .. } | Destinations::Hotspot { .. } => 0.0,
        }
    }

    /// Calls `visit(destination, probability)` for every destination `src` may send to.
    pub fn distribution(&self, src: u32, mut visit: impl FnMut(u32, f64)) {
        let (each, hot_each) = self.shares(src);
        match self {
            Destinations::Fixed(table) => visit(table[src as usize], 1.0),
            Destinations::NextGroup { group, groups } => {
                let first = (src / group + 1) % groups * group;
                for d in first..first + group {
                    visit(d, each);
                }
            }
            Destinations::Uniform {
                nodes,
                include_self,
            } => {
                for d in (0..*nodes).filter(|&d| *include_self || d != src) {
                    visit(d, each);
                }
            }
            Destinations::Hotspot { nodes, hot, .. } => {
                for &h in hot.iter().filter(|&&h| h != src) {
                    visit(h, hot_each);
                }
                for d in (0..*nodes).filter(|&d| d != src) {
                    visit(d, each);
                }
            }
        }
    }

    /// For source `src` of a random pattern: the probability of each destination it may draw
    /// uniformly, and the extra probability of each hot node other than itself (0 for a fixed
    /// pattern).
    fn shares(&self, src: u32) -> (f64, f64) {
        match self {
            Destinations::Fixed(_) => (0.0, 0.0),
            Destinations::NextGroup { group, .. } => (1.0 / f64::from(*group), 0.0),
            Destinations::Uniform {
                nodes,
                include_self,
            } => {
                let choices = if *include_self { *nodes } else { *nodes - 1 };
                (1.0 / choices as f64, 0.0)
            }
            Destinations::Hotspot {
                nodes,
                hot,
                fraction,
            } => {
                let others = hot.iter().filter(|&&h| h != src).count();
                let hot_share = if others > 0 { *fraction } else { 0.0 };
                (
                    (1.0 - hot_share) / (*nodes - 1) as f64,
                    hot_share / others.max(1) as f64,
                )
            }
        }
    }
}

#[inline]
fn uniform(nodes: u32, src: u32, include_self: bool, rng: &mut StreamRng) -> u32 {
    if include_self || nodes == 1 {
        rng.random_range(0..nodes)
    } else {
        let d = rng.random_range(0..nodes - 1);
        if d >= src { d + 1 } else { d }
    }
}

/// Destination of `src` under a deterministic pattern.
fn fixed_destination(kind: PatternKind, shape: &CubeShape, src: usize) -> usize {
    let bits = shape.nodes().trailing_zeros();
    let mask = shape.nodes() - 1;
    let bit = |i: u32| (src >> i) & 1;
    match kind {
        PatternKind::BitComplement => !src & mask,
        PatternKind::BitReverse => (0..bits).fold(0, |d, i| d | (bit(i) << (bits - 1 - i))),
        PatternKind::BitRotation => (src >> 1) | (bit(0) << (bits - 1)),
        PatternKind::PerfectShuffle => ((src << 1) & mask) | bit(bits - 1),
        PatternKind::Butterfly => {
            let (lo, hi) = (bit(0), bit(bits - 1));
            (src & !(1 | (1 << (bits - 1)))) | (lo << (bits - 1)) | hi
        }
        PatternKind::Transpose => {
            let c = shape.coords(src);
            let n = c.len();
            let rotated: Vec<u32> = (0..n).map(|j| c[(j + n / 2) % n]).collect();
            shape.index(&rotated)
        }
        PatternKind::Tornado | PatternKind::Neighbor => {
            let c = shape.coords(src);
            let moved: Vec<u32> = c
                .iter()
                .zip(shape.dims())
                .map(|(&x, &k)| {
                    let step = if kind == PatternKind::Tornado {
                        k.div_ceil(2) - 1
                    } else {
                        1
                    };
                    (x + step) % k
                })
                .collect();
            shape.index(&moved)
        }
        PatternKind::TornadoIndex => (src + (shape.dims()[0] / 2) as usize) % shape.nodes(),
        // A HyperX's addresses are (terminal, switch coordinates): one step along dimension 0.
        PatternKind::HyperxShift => shape.offset(src, 1, 1),
        PatternKind::Uniform
        | PatternKind::Hotspot
        | PatternKind::RandomPermutation
        | PatternKind::RandomPair
        | PatternKind::GroupShift => unreachable!("{kind} is not a fixed pattern"),
    }
}

/// Checks that pattern `kind` can be built on the network `topology` (its address grid
/// `dims`).
pub(crate) fn check_pattern(kind: PatternKind, topology: &TopologyConfig) -> Result<(), String> {
    let dims = topology.dims.as_slice();
    let nodes: u64 = dims.iter().map(|&k| k as u64).product();
    match kind {
        PatternKind::GroupShift if topology.kind != TopologyKind::Dragonfly => Err(format!(
            "group_shift sends each group's traffic to the next group of a dragonfly; \
             topology.kind = \"{}\"",
            topology.kind.name()
        )),
        PatternKind::HyperxShift if topology.kind != TopologyKind::Hyperx => Err(format!(
            "hyperx_shift moves one switch along dimension 0 of a HyperX; topology.kind = \"{}\"",
            topology.kind.name()
        )),
        PatternKind::BitComplement
        | PatternKind::BitReverse
        | PatternKind::BitRotation
        | PatternKind::PerfectShuffle
        | PatternKind::Butterfly
            if !nodes.is_power_of_two() =>
        {
            Err(format!(
                "bit-permutation patterns need a power-of-two node count; the network has {nodes}"
            ))
        }
        PatternKind::Transpose
            if !dims.len().is_multiple_of(2) || dims.iter().any(|&k| k != dims[0]) =>
        {
            Err(format!(
                "transpose needs an even number of dimensions with equal radices; dims = {dims:?}"
            ))
        }
        PatternKind::RandomPair if !nodes.is_multiple_of(2) => Err(format!(
            "random_pair needs an even node count; the network has {nodes}"
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(kind: PatternKind, dims: Vec<u32>) -> Vec<usize> {
        let shape = CubeShape::new(dims, true);
        (0..shape.nodes())
            .map(|s| fixed_destination(kind, &shape, s))
            .collect()
    }

    #[test]
    fn bit_patterns_on_16_nodes() {
        // s = 0b0001
        assert_eq!(table(PatternKind::BitComplement, vec![4, 4])[1], 0b1110);
        assert_eq!(table(PatternKind::BitReverse, vec![4, 4])[1], 0b1000);
        assert_eq!(table(PatternKind::BitRotation, vec![4, 4])[1], 0b1000);
        assert_eq!(table(PatternKind::PerfectShuffle, vec![4, 4])[1], 0b0010);
        assert_eq!(
            table(PatternKind::PerfectShuffle, vec![4, 4])[0b1000],
            0b0001
        );
        assert_eq!(table(PatternKind::Butterfly, vec![4, 4])[0b0001], 0b1000);
        assert_eq!(table(PatternKind::Butterfly, vec![4, 4])[0b0110], 0b0110);
        assert_eq!(table(PatternKind::Butterfly, vec![4, 4])[0b1001], 0b1001);
    }

    #[test]
    fn permutations_are_bijections() {
        for kind in [
            PatternKind::BitComplement,
            PatternKind::BitReverse,
            PatternKind::BitRotation,
            PatternKind::PerfectShuffle,
            PatternKind::Butterfly,
            PatternKind::Transpose,
            PatternKind::Tornado,
            PatternKind::TornadoIndex,
            PatternKind::Neighbor,
        ] {
            let mut t = table(kind, vec![8, 8]);
            t.sort_unstable();
            assert_eq!(t, (0..64).collect::<Vec<_>>(), "{kind}");
        }
    }

    #[test]
    fn coordinate_patterns() {
        let shape = CubeShape::new(vec![8, 8], true);
        let at = |x, y| shape.index(&[x, y]);
        assert_eq!(
            table(PatternKind::Transpose, vec![8, 8])[at(1, 5)],
            at(5, 1)
        );
        assert_eq!(table(PatternKind::Tornado, vec![8, 8])[at(1, 5)], at(4, 0));
        assert_eq!(table(PatternKind::Neighbor, vec![8, 8])[at(7, 5)], at(0, 6));
        // The index tornado moves x by k/2 and carries into y.
        let index = table(PatternKind::TornadoIndex, vec![8, 8]);
        assert_eq!((index[at(1, 5)], index[at(6, 5)]), (at(5, 5), at(2, 6)));
        assert_eq!(index[at(7, 7)], at(3, 0));
    }

    #[test]
    fn random_pair_is_an_involution_without_fixed_points() {
        let cfg = TrafficConfig {
            pattern: PatternKind::RandomPair,
            ..crate::config::Config::default().traffic
        };
        let Destinations::Fixed(t) = Destinations::new(&cfg, &CubeShape::new(vec![4, 4], true), 9)
        else {
            panic!("random_pair is a fixed pattern")
        };
        for (s, &d) in t.iter().enumerate() {
            assert_ne!(s, d as usize);
            assert_eq!(t[d as usize] as usize, s);
        }
    }

    #[test]
    fn distributions_sum_to_one() {
        let base = crate::config::Config::default().traffic;
        let shape = CubeShape::new(vec![4, 4], true);
        let hotspot = TrafficConfig {
            pattern: PatternKind::Hotspot,
            hotspot_nodes: Some(vec![3, 5]),
            hotspot_fraction: Some(0.3),
            ..base.clone()
        };
        for cfg in [base, hotspot] {
            let dests = Destinations::new(&cfg, &shape, 1);
            for src in [0, 3] {
                let mut total = 0.0;
                dests.distribution(src, |d, p| {
                    assert_ne!(d, src);
                    total += p;
                });
                assert!((total - 1.0).abs() < 1e-12);
            }
        }
    }
}
