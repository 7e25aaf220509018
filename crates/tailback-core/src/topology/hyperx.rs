//! HyperX (Ahn, Binkert, Davis, McLaren and Schreiber, SC 2009): switches on a grid of
//! `dims[d]` switches per dimension, each linked to every other switch that differs from it in
//! one coordinate, by `trunking[d]` parallel links in dimension `d`, with `terminals` nodes per
//! switch (a flattened butterfly when every trunking is 1).
//!
//! Switch `i` has coordinates `c_d = (i / stride_d) mod dims[d]`, dimension 0 least significant;
//! node `i·terminals + t` is its terminal `t`. Ports: the terminals (`0..terminals`), then per
//! dimension, in order, `(dims[d] − 1)·trunking[d]` ports: the `k`-th link to the switch with
//! coordinate `c'` in dimension `d` is port `first_d + index·trunking[d] + k`, where `index` is
//! `c'` if `c' < c_d`, else `c' − 1`.

use super::{CubeShape, Link, Topology};
use crate::ids::PortId;

/// The shape of a HyperX.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HyperXShape {
    /// Switches per dimension, as a grid of switch coordinates.
    grid: CubeShape,
    terminals: u32,
    trunking: Vec<u32>,
    /// The first port of each dimension.
    first: Vec<u32>,
}

impl HyperXShape {
    /// The HyperX of `dims[d]` switches in dimension `d` (at least 2 each), `terminals` nodes
    /// per switch and `trunking[d]` links between two switches in dimension `d`.
    pub fn new(dims: Vec<u32>, terminals: u32, trunking: Vec<u32>) -> HyperXShape {
        assert_eq!(dims.len(), trunking.len(), "one trunking per dimension");
        let mut first = Vec::with_capacity(dims.len());
        let mut next = terminals;
        for (&s, &k) in dims.iter().zip(&trunking) {
            first.push(next);
            next += (s - 1) * k;
        }
        HyperXShape {
            grid: CubeShape::new(dims, false),
            terminals,
            trunking,
            first,
        }
    }

    /// Switches per dimension.
    pub fn dims(&self) -> &[u32] {
        self.grid.dims()
    }

    /// The switches as a grid of coordinates.
    pub fn grid(&self) -> &CubeShape {
        &self.grid
    }

    /// Nodes per switch.
    pub fn terminals(&self) -> u32 {
        self.terminals
    }

    /// Parallel links between two switches, per dimension.
    pub fn trunking(&self) -> &[u32] {
        &self.trunking
    }

    /// Number of switches.
    pub fn switches(&self) -> usize {
        self.grid.nodes()
    }

    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.switches() * self.terminals as usize
    }

    /// Ports of every switch, terminals included.
    pub fn ports_per_switch(&self) -> u32 {
        ports_per_switch(self.dims(), self.terminals, &self.trunking)
    }

    /// The first of the `k` ports of switch coordinate `from` towards coordinate `to` in
    /// dimension `d` (`from ≠ to`).
    #[inline]
    pub fn port_towards(&self, d: usize, from: u32, to: u32) -> u32 {
        let index = if to < from { to } else { to - 1 };
        self.first[d] + index * self.trunking[d]
    }

    /// The built network: terminal channels `ejection_latency` long, the others
    /// `link_latency`.
    pub fn build(&self, link_latency: u32, ejection_latency: u32) -> Topology {
        let width = self.ports_per_switch() as usize;
        let port_id = |switch: usize, local: u32| PortId::new(switch * width + local as usize);
        let mut ports = super::unwired_ports(self.switches(), width, link_latency);
        for switch in 0..self.switches() {
            for d in 0..self.dims().len() {
                let c = self.grid.coord(switch, d);
                for to in (0..self.dims()[d]).filter(|&x| x != c) {
                    let peer = self.grid.offset(switch, d, i64::from(to) - i64::from(c));
                    for k in 0..self.trunking[d] {
                        let from = port_id(switch, self.port_towards(d, c, to) + k);
                        let into = port_id(peer, self.port_towards(d, to, c) + k);
                        ports[from.index()].output = Link::Router(into);
                        ports[into.index()].input = Link::Router(from);
                    }
                }
            }
        }
        let injection_port = super::attach_nodes(
            &mut ports,
            width,
            self.terminals as usize,
            self.nodes(),
            ejection_latency,
        );
        Topology::from_uniform(
            super::Layout::HyperX(self.clone()),
            width,
            ports,
            injection_port,
        )
    }
}

/// Ports of a HyperX switch: its terminals and `(dims[d] − 1)·trunking[d]` per dimension.
pub fn ports_per_switch(dims: &[u32], terminals: u32, trunking: &[u32]) -> u32 {
    terminals
        + dims
            .iter()
            .zip(trunking)
            .map(|(&s, &k)| (s - 1) * k)
            .sum::<u32>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switches_differing_in_one_coordinate_are_linked_by_their_trunks() {
        let shape = HyperXShape::new(vec![3, 4], 2, vec![2, 1]);
        let topo = shape.build(3, 1);
        assert_eq!(topo.node_count(), 24);
        assert_eq!(shape.ports_per_switch(), 2 + 2 * 2 + 3);
        let grid = shape.grid();
        let mut links = vec![vec![0u32; 12]; 12];
        for (i, port) in topo.ports().iter().enumerate() {
            match port.output {
                Link::Router(peer) => {
                    assert_eq!(
                        topo.ports()[peer.index()].input,
                        Link::Router(PortId::new(i))
                    );
                    links[port.router.index()][topo.ports()[peer.index()].router.index()] += 1;
                    assert_eq!(port.output_latency, 3);
                }
                Link::Node(n) => assert_eq!(topo.injection_port(n), PortId::new(i)),
                Link::None => panic!("port {i} unconnected"),
            }
        }
        for (a, row) in links.iter().enumerate() {
            for (b, &count) in row.iter().enumerate() {
                let differ: Vec<usize> = (0..2)
                    .filter(|&d| grid.coord(a, d) != grid.coord(b, d))
                    .collect();
                let expected = match differ.as_slice() {
                    [d] => shape.trunking()[*d],
                    _ => 0,
                };
                assert_eq!(count, expected, "switches {a} and {b}");
            }
        }
    }
}
