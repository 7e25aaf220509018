//! k-ary n-cubes: tori and meshes with one terminal per router and per-dimension radices.
//!
//! Node (and router) `i` has coordinates `c_d = (i / stride_d) mod k_d` with dimension 0 least
//! significant. Router ports: `2d` leads to the neighbour in the positive direction of dimension
//! `d`, `2d + 1` to the negative one, and port `2n` is the terminal port.

use super::{Link, Port, Topology};
use crate::ids::{NodeId, PortId, RouterId};

/// The shape of a k-ary n-cube.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CubeShape {
    dims: Vec<u32>,
    strides: Vec<u32>,
    wrap: bool,
}

impl CubeShape {
    /// A torus (`wrap`) or mesh with radix `dims[d]` in dimension `d`.
    pub fn new(dims: Vec<u32>, wrap: bool) -> CubeShape {
        let mut strides = Vec::with_capacity(dims.len());
        let mut s = 1u32;
        for &k in &dims {
            strides.push(s);
            s *= k;
        }
        CubeShape {
            dims,
            strides,
            wrap,
        }
    }

    /// Radix of every dimension.
    pub fn dims(&self) -> &[u32] {
        &self.dims
    }

    /// Number of dimensions.
    pub fn n(&self) -> usize {
        self.dims.len()
    }

    /// Whether rings wrap around (torus) or not (mesh).
    pub fn wraps(&self) -> bool {
        self.wrap
    }

    /// Number of nodes (= routers).
    pub fn nodes(&self) -> usize {
        self.dims.iter().map(|&k| k as usize).product()
    }

    /// Coordinate of node `index` in dimension `d`.
    #[inline]
    pub fn coord(&self, index: usize, d: usize) -> u32 {
        (index as u32 / self.strides[d]) % self.dims[d]
    }

    /// All coordinates of node `index`.
    pub fn coords(&self, index: usize) -> Vec<u32> {
        (0..self.n()).map(|d| self.coord(index, d)).collect()
    }

    /// Node index of a coordinate vector.
    pub fn index(&self, coords: &[u32]) -> usize {
        coords
            .iter()
            .zip(&self.strides)
            .map(|(&c, &s)| (c * s) as usize)
            .sum()
    }

    /// The node `steps` hops from `index` along dimension `d` (wrapping modulo k).
    pub fn offset(&self, index: usize, d: usize, steps: i64) -> usize {
        let k = self.dims[d] as i64;
        let c = self.coord(index, d) as i64;
        let moved = (c + steps).rem_euclid(k);
        (index as i64 + (moved - c) * self.strides[d] as i64) as usize
    }

    /// Local index of the terminal port.
    pub fn terminal_port(&self) -> u8 {
        (2 * self.n()) as u8
    }

    /// Local index of the port leading along dimension `d` in the given direction.
    #[inline]
    pub fn port_toward(d: usize, positive: bool) -> u8 {
        (2 * d + usize::from(!positive)) as u8
    }

    /// Dimension and direction (true = positive) of a network port.
    #[inline]
    pub fn port_direction(port: u8) -> (usize, bool) {
        ((port / 2) as usize, port.is_multiple_of(2))
    }

    /// Wires routers, channels and terminals.
    pub(super) fn build(self, link_latency: u32, ejection_latency: u32) -> Topology {
        let nodes = self.nodes();
        let per_router = 2 * self.n() + 1;
        let mut ports = Vec::with_capacity(nodes * per_router);
        let port_id = |router: usize, local: u8| PortId::new(router * per_router + local as usize);
        for r in 0..nodes {
            for d in 0..self.n() {
                for positive in [true, false] {
                    let local = Self::port_toward(d, positive);
                    let at_edge = if positive {
                        self.coord(r, d) + 1 == self.dims[d]
                    } else {
                        self.coord(r, d) == 0
                    };
                    let (output, input) = if at_edge && !self.wrap {
                        (Link::None, Link::None)
                    } else {
                        let neighbour = self.offset(r, d, if positive { 1 } else { -1 });
                        // The neighbour reaches us through its port facing the other way.
                        let facing = Self::port_toward(d, !positive);
                        (
                            Link::Router(port_id(neighbour, facing)),
                            Link::Router(port_id(neighbour, facing)),
                        )
                    };
                    ports.push(Port {
                        router: RouterId::new(r),
                        local,
                        output,
                        output_latency: link_latency,
                        output_period: 1,
                        input,
                    });
                }
            }
            ports.push(Port {
                router: RouterId::new(r),
                local: self.terminal_port(),
                output: Link::Node(NodeId::new(r)),
                output_latency: ejection_latency,
                output_period: 1,
                input: Link::Node(NodeId::new(r)),
            });
        }
        let router_first_port = (0..=nodes).map(|r| (r * per_router) as u32).collect();
        let injection_port = (0..nodes)
            .map(|r| port_id(r, self.terminal_port()))
            .collect();
        Topology::from_parts(
            super::Layout::Cube(self),
            router_first_port,
            ports,
            injection_port,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_round_trip_with_mixed_radices() {
        let s = CubeShape::new(vec![8, 4, 3], true);
        assert_eq!(s.nodes(), 96);
        for i in 0..s.nodes() {
            assert_eq!(s.index(&s.coords(i)), i);
        }
        assert_eq!(s.coords(8 + 2 * 32), vec![0, 1, 2]);
        assert_eq!(s.offset(7, 0, 1), 0);
        assert_eq!(s.offset(0, 1, -1), 24);
    }

    #[test]
    fn torus_wiring_is_symmetric() {
        let topo = CubeShape::new(vec![4, 3], true).build(2, 1);
        assert_eq!(topo.router_count(), 12);
        assert_eq!(topo.channel_count(), 12 * 4);
        for (i, p) in topo.ports().iter().enumerate() {
            if let Link::Router(peer) = p.output {
                // Our output feeds the peer's input, and the peer's output feeds ours.
                assert_eq!(
                    topo.ports()[peer.index()].input,
                    Link::Router(PortId::new(i))
                );
                assert_eq!(p.output_latency, 2);
            }
        }
    }

    #[test]
    fn mesh_edges_are_unconnected() {
        let topo = CubeShape::new(vec![3, 3], false).build(1, 1);
        // 2 * k * (k - 1) links per dimension pair, each with two channels.
        assert_eq!(topo.channel_count(), 2 * 2 * 3 * 2);
        let corner = topo.router_ports(RouterId::new(0));
        let unconnected = topo.ports()[corner]
            .iter()
            .filter(|p| p.output == Link::None)
            .count();
        assert_eq!(unconnected, 2);
    }
}
