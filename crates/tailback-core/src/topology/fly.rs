//! Butterflies: `n` stages of `k^(n-1)` switches between the nodes' injection side (stage 0)
//! and their ejection side (stage `n - 1`); k-ary n-flies and dilated multibutterflies.
//!
//! Stage `s` fixes destination digit `n - 1 - s` (base `k`, most significant first): a switch
//! sends a packet out of output group `g` = that digit, each group `dilation` ports wide
//! (`g * dilation .. (g + 1) * dilation`). The switches that agree on the digits fixed so far
//! form a *splitter* of `M_s = k^(n-1-s)` switches; switch `i` of a stage is `prefix * M_s + q`
//! with `prefix` the fixed digits and `q` its place in the splitter. Group `g` of a splitter
//! feeds the sub-splitter of prefix `prefix * k + g` one stage on: its `M_s * dilation` links
//! are wired to the sub-splitter's `M_s / k` switches with `k * dilation` inputs each — in
//! order for the butterfly, by a seeded random permutation for the multibutterfly (the
//! expander wiring that gives it many paths). The last stage ejects to node `i * k + port`;
//! stage 0 takes node `i * k + port` on its input port `port`.

use rand::seq::SliceRandom;
use serde::Serialize;

use super::{Link, Topology};
use crate::ids::{NodeId, PortId};
use crate::rng::{self, Purpose};

/// The shape of a butterfly or multibutterfly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FlyShape {
    k: u32,
    n: u32,
    dilation: u32,
    /// Random wiring between stages (multibutterfly) instead of the butterfly's.
    random: bool,
}

impl FlyShape {
    /// The k-ary n-fly (butterfly): one path between every pair of nodes.
    pub fn butterfly(k: u32, n: u32) -> FlyShape {
        FlyShape {
            k,
            n,
            dilation: 1,
            random: false,
        }
    }

    /// The k-ary n-stage multibutterfly with `dilation` ports per output group, randomly wired.
    pub fn multibutterfly(k: u32, n: u32, dilation: u32) -> FlyShape {
        FlyShape {
            k,
            n,
            dilation,
            random: true,
        }
    }

    /// Switch radix (output directions).
    pub fn k(&self) -> u32 {
        self.k
    }

    /// Number of stages.
    pub fn stages(&self) -> u32 {
        self.n
    }

    /// Ports per output group.
    pub fn dilation(&self) -> u32 {
        self.dilation
    }

    /// Whether stages are wired at random (multibutterfly).
    pub fn is_random(&self) -> bool {
        self.random
    }

    /// Number of nodes, `k^n`.
    pub fn nodes(&self) -> usize {
        (self.k as usize).pow(self.n)
    }

    /// Switches per stage, `k^(n-1)`.
    pub fn switches_per_stage(&self) -> usize {
        (self.k as usize).pow(self.n - 1)
    }

    /// Ports of every switch: `k * dilation` (inputs and outputs share port numbers).
    pub fn ports_per_switch(&self) -> usize {
        (self.k * self.dilation) as usize
    }

    /// Switches per splitter at stage `s`.
    pub fn splitter(&self, s: u32) -> usize {
        (self.k as usize).pow(self.n - 1 - s)
    }

    /// Wires switches, channels and nodes; `seed` draws the multibutterfly's wiring.
    pub(crate) fn build(&self, link_latency: u32, ejection_latency: u32, seed: u64) -> Topology {
        let (k, d) = (self.k as usize, self.dilation as usize);
        let per_stage = self.switches_per_stage();
        let width = self.ports_per_switch();
        let port_id = |stage: usize, switch: usize, local: usize| {
            PortId::new((stage * per_stage + switch) * width + local)
        };
        let mut ports = super::unwired_ports(self.n as usize * per_stage, width, link_latency);
        let mut wiring = rng::stream(seed, 0, Purpose::Wiring);
        let mut order: Vec<usize> = Vec::new();
        for s in 0..self.n as usize - 1 {
            let m = self.splitter(s as u32);
            for prefix in 0..per_stage / m {
                for g in 0..k {
                    // The group's links, switch by switch, in order; then where each one lands.
                    order.clear();
                    order.extend(0..m * d);
                    if self.random {
                        order.shuffle(&mut wiring);
                    }
                    let sub = (prefix * k + g) * (m / k);
                    for (link, &target) in order.iter().enumerate() {
                        let from = port_id(s, prefix * m + link / d, g * d + link % d);
                        let to = port_id(s + 1, sub + target / (k * d), target % (k * d));
                        ports[from.index()].output = Link::Router(to);
                        ports[to.index()].input = Link::Router(from);
                    }
                }
            }
        }
        let last = self.n as usize - 1;
        let mut injection_port = Vec::with_capacity(self.nodes());
        for node in 0..self.nodes() {
            let (switch, local) = (node / k, node % k);
            let inject = port_id(0, switch, local);
            ports[inject.index()].input = Link::Node(NodeId::new(node));
            injection_port.push(inject);
            let eject = &mut ports[port_id(last, switch, local).index()];
            eject.output = Link::Node(NodeId::new(node));
            eject.output_latency = ejection_latency;
        }
        Topology::from_uniform(
            super::Layout::Fly(self.clone()),
            width,
            ports,
            injection_port,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every router-to-router output feeds an input that names it back, and every input side
    /// of a non-first stage is fed.
    fn check_wiring(shape: &FlyShape, topo: &Topology) {
        for (i, p) in topo.ports().iter().enumerate() {
            if let Link::Router(peer) = p.output {
                assert_eq!(
                    topo.ports()[peer.index()].input,
                    Link::Router(PortId::new(i))
                );
            }
        }
        let fed = topo
            .ports()
            .iter()
            .filter(|p| p.input != Link::None)
            .count();
        let links = (shape.stages() as usize - 1) * shape.nodes() * shape.dilation() as usize;
        assert_eq!(fed, links + shape.nodes());
        assert_eq!(topo.channel_count(), links);
    }

    #[test]
    fn butterfly_and_multibutterfly_sizes() {
        let fly = FlyShape::butterfly(4, 3);
        assert_eq!((fly.nodes(), fly.switches_per_stage()), (64, 16));
        let topo = fly.build(1, 1, 7);
        assert_eq!(topo.router_count(), 48);
        check_wiring(&fly, &topo);
        let multi = FlyShape::multibutterfly(4, 3, 2);
        let topo = multi.build(1, 1, 7);
        assert_eq!((topo.router_count(), topo.max_ports()), (48, 8));
        check_wiring(&multi, &topo);
        // The wiring is the seed's: the same seed gives the same network, another seed another.
        assert_eq!(multi.build(1, 1, 7).ports(), topo.ports());
        assert_ne!(multi.build(1, 1, 8).ports(), topo.ports());
    }
}
