//! Dimension-order routing on a HyperX: in each dimension where the switch's coordinate
//! differs from the destination's, lowest dimension first, one hop straight to the
//! destination's coordinate. Where trunking gives several parallel links, the packet's
//! routing draw picks one per dimension, so every hop of its route agrees. One VC class: the
//! channels are used in dimension order, so their dependencies are acyclic.

use super::Hop;
use super::dor::vc_mask;
use crate::topology::{CubeShape, HyperXShape};

/// Dimension-order routing on a HyperX.
#[derive(Debug, Clone)]
pub struct HyperXDor {
    shape: HyperXShape,
    /// The product of the trunking of the dimensions below each: the draw's digit base.
    trunk_base: Vec<u32>,
    all_vcs: u32,
}

impl HyperXDor {
    /// DOR on `shape` over `vcs` VCs per port.
    pub fn new(shape: &HyperXShape, vcs: u32) -> HyperXDor {
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
        HyperXDor {
            shape: shape.clone(),
            trunk_base,
            all_vcs: vc_mask(0, vcs),
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

    /// The hop from switch `router` towards node `dst` of a packet with routing draw `draw`.
    // Out of line: keeps the other topologies' inlined routing as it was.
    #[inline(never)]
    pub fn route(&self, router: usize, dst: usize, draw: u32) -> Hop {
        let t = self.shape.terminals() as usize;
        let target = dst / t;
        for d in 0..self.shape.dims().len() {
            let (c, to) = (self.grid().coord(router, d), self.grid().coord(target, d));
            if c != to {
                return Hop {
                    port: (self.shape.port_towards(d, c, to) + self.trunk(d, draw)) as u8,
                    vcs: self.all_vcs,
                    class: 0,
                };
            }
        }
        Hop {
            port: (dst % t) as u8,
            vcs: self.all_vcs,
            class: 0,
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

    /// Whether some dimension has parallel links (routes then draw one).
    pub fn draws(&self) -> bool {
        self.shape.trunking().iter().any(|&k| k > 1)
    }

    /// Every VC of a port.
    pub fn all_vcs(&self) -> u32 {
        self.all_vcs
    }
}
