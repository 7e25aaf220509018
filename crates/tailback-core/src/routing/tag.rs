//! Destination-tag routing on butterflies: stage `s` takes output group `g` = destination
//! digit `n - 1 - s` (base `k`); the last stage ejects on port `destination mod k`. In a
//! dilated group any of its ports leads on; the deterministic choice is a hash of source,
//! destination and stage (spread like a random pick, fixed per pair), and the router may take
//! any free one instead. Stages only lead forward, so no channel dependency cycle exists.

use super::Hop;
use crate::rng::splitmix64;
use crate::topology::FlyShape;

/// Destination-tag routing on a [`FlyShape`].
#[derive(Debug, Clone)]
pub struct DestinationTag {
    k: u32,
    stages: u32,
    dilation: u32,
    per_stage: u32,
    /// `k^(n-1-s)` per stage `s`: the weight of the digit stage `s` fixes.
    weights: Vec<u32>,
    vcs: u32,
}

impl DestinationTag {
    /// Routing on `fly` with `vcs` VCs per port.
    pub fn new(fly: &FlyShape, vcs: u32) -> DestinationTag {
        DestinationTag {
            k: fly.k(),
            stages: fly.stages(),
            dilation: fly.dilation(),
            per_stage: fly.switches_per_stage() as u32,
            weights: (0..fly.stages())
                .map(|s| fly.k().pow(fly.stages() - 1 - s))
                .collect(),
            vcs: if vcs >= 32 { u32::MAX } else { (1 << vcs) - 1 },
        }
    }

    /// The first port of the output group towards `dst` from router `r`, and the group's width.
    #[inline]
    fn group(&self, r: usize, dst: usize) -> (u32, u32) {
        let stage = r as u32 / self.per_stage;
        if stage + 1 == self.stages {
            (dst as u32 % self.k, 1)
        } else {
            let digit = (dst as u32 / self.weights[stage as usize]) % self.k;
            (digit * self.dilation, self.dilation)
        }
    }

    /// The deterministic hop from router `r` for a packet from `src` to `dst`.
    #[inline]
    pub fn route(&self, r: usize, src: usize, dst: usize) -> Hop {
        let (first, width) = self.group(r, dst);
        let pick = if width > 1 {
            let key = ((src as u64) << 32) | (dst as u64 ^ ((r as u64) << 20));
            (splitmix64(key) % u64::from(width)) as u32
        } else {
            0
        };
        Hop {
            port: (first + pick) as u8,
            vcs: self.vcs,
            class: 0,
        }
    }

    /// Local ports of every hop from router `r` towards `dst`: the output group.
    #[inline]
    pub fn minimal_ports(&self, r: usize, dst: usize) -> u64 {
        let (first, width) = self.group(r, dst);
        ((1u64 << width) - 1) << first
    }

    /// Whether output groups have several ports to choose from.
    pub fn is_adaptive(&self) -> bool {
        self.dilation > 1
    }

    /// Every VC.
    pub fn all_vcs(&self) -> u32 {
        self.vcs
    }

    /// Router-to-router hops from router `r` to the last stage.
    pub fn distance(&self, r: usize) -> u32 {
        self.stages - 1 - r as u32 / self.per_stage
    }

    /// Router-to-router hops of every route.
    pub fn diameter(&self) -> u32 {
        self.stages - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::NodeId;
    use crate::topology::Link;

    #[test]
    fn every_route_reaches_its_destination_in_one_pass_of_the_stages() {
        for fly in [
            FlyShape::butterfly(4, 3),
            FlyShape::butterfly(2, 5),
            FlyShape::multibutterfly(4, 3, 2),
            FlyShape::multibutterfly(2, 4, 3),
        ] {
            let topo = fly.build(1, 1, 3);
            let routing = DestinationTag::new(&fly, 2);
            let mut used = vec![0u32; topo.ports().len()];
            for src in 0..fly.nodes() {
                for dst in 0..fly.nodes() {
                    let mut router =
                        topo.ports()[topo.injection_port(NodeId::new(src)).index()].router;
                    let mut hops = 0;
                    loop {
                        assert_eq!(routing.distance(router.index()), fly.stages() - 1 - hops);
                        let hop = routing.route(router.index(), src, dst);
                        assert!(routing.minimal_ports(router.index(), dst) & (1 << hop.port) != 0);
                        let port = topo.router_ports(router).start + hop.port as usize;
                        used[port] += 1;
                        match topo.ports()[port].output {
                            Link::Router(next) => router = topo.ports()[next.index()].router,
                            Link::Node(n) => break assert_eq!(n.index(), dst),
                            Link::None => panic!("{fly:?}: unconnected port {port}"),
                        }
                        hops += 1;
                    }
                    assert_eq!(hops, fly.stages() - 1);
                }
            }
            // Every router-to-router channel of a butterfly carries some pair's route; in a
            // dilated group the hash spreads the pairs over most ports.
            let channels: Vec<u32> = topo
                .ports()
                .iter()
                .zip(&used)
                .filter(|(p, _)| matches!(p.output, Link::Router(_)))
                .map(|(_, &u)| u)
                .collect();
            let idle = channels.iter().filter(|&&u| u == 0).count();
            if fly.dilation() == 1 {
                assert_eq!(idle, 0, "{fly:?}");
            } else {
                assert!(idle * 10 < channels.len(), "{fly:?}: {idle} idle channels");
            }
        }
    }
}
