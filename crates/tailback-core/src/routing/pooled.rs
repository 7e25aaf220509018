//! Expected channel loads of random-up routing without routing every pair: a source's packets
//! climb together, sharing each level's up ports evenly, until their destinations' subtrees;
//! there the sources whose packets are spread alike over the turning routers pool their
//! destinations' shares, and each destination's pool descends once. Exact (the same sums as
//! following every route of every pair; a test compares them) at a cost that grows with the
//! pairs, not with the pairs times the routes. [`Routing::spread`](super::Routing::spread)
//! uses it for a single pair.

use super::UpDown;
use crate::bitset::bits64;
use crate::ids::{NodeId, PortId};
use crate::topology::{Link, Topology};

/// Pools of random-up routes on one tree, filled by [`climb`](Self::climb) and emptied by
/// [`descend`](Self::descend).
pub(crate) struct PooledTree<'a> {
    tree: &'a UpDown,
    /// Per turning level: the distinct spreads over that level's routers.
    pools: Vec<Vec<Pool>>,
}

/// Packets held at the input ports `at` (with probabilities), and the shares of the
/// destinations they turn down to, indexed from node `first`.
struct Pool {
    at: Vec<(PortId, f64)>,
    first: usize,
    shares: Vec<f64>,
}

/// Called with (output port, input port it was reached through, expected packets).
pub(crate) type Visit<'v> = dyn FnMut(PortId, PortId, f64) + 'v;

impl<'a> PooledTree<'a> {
    pub(crate) fn new(tree: &'a UpDown) -> PooledTree<'a> {
        PooledTree {
            tree,
            pools: Vec::new(),
        }
    }

    /// Climbs from node `src` with packets to each destination `mass` (by node): visits the up
    /// channels with what crosses them and pools each destination's share at the level where
    /// it turns down.
    pub(crate) fn climb(
        &mut self,
        topology: &Topology,
        src: NodeId,
        mass: &[f64],
        visit: &mut Visit<'_>,
    ) {
        let ports = topology.ports();
        let mut at = vec![(topology.injection_port(src), 1.0)];
        let mut next = Vec::new();
        let mut turned = 0..0;
        for level in 0.. {
            let (first, span) = self.tree.subtree(ports[at[0].0.index()].router.index());
            // The destinations below these routers turn here, but for those that turned below.
            let below = first..first + span;
            let climbs: f64 = mass[..first].iter().chain(&mass[below.end..]).sum();
            if self.pools.len() <= level {
                self.pools.push(Vec::new());
            }
            let pools = &mut self.pools[level];
            let pool = match pools.iter().position(|p| p.at == at) {
                Some(i) => i,
                None => {
                    pools.push(Pool {
                        at: at.clone(),
                        first,
                        shares: vec![0.0; span],
                    });
                    pools.len() - 1
                }
            };
            let shares = &mut pools[pool].shares;
            for d in below.clone().filter(|d| !turned.contains(d)) {
                shares[d - first] += mass[d];
            }
            turned = below;
            if climbs == 0.0 {
                return;
            }
            for &(input, p) in &at {
                let router = ports[input.index()].router;
                let up = self.tree.up_ports(router.index());
                let share = p / f64::from(up.count_ones());
                let start = topology.router_ports(router).start;
                for local in bits64(up) {
                    let port = PortId::new(start + local);
                    visit(port, input, share * climbs);
                    if let Link::Router(into) = ports[port.index()].output {
                        next.push((into, share));
                    }
                }
            }
            merge(&mut next, &mut at);
        }
    }

    /// Takes every pooled destination share down from where it turned, visiting the down
    /// channels (the ejection ports included) with what crosses them.
    pub(crate) fn descend(self, topology: &Topology, visit: &mut Visit<'_>) {
        let ports = topology.ports();
        let (mut at, mut next) = (Vec::new(), Vec::new());
        for pool in self.pools.iter().flatten() {
            for (i, &m) in pool.shares.iter().enumerate() {
                if m <= 0.0 {
                    continue;
                }
                let d = pool.first + i;
                at.clear();
                at.extend(pool.at.iter().map(|&(input, p)| (input, p * m)));
                while !at.is_empty() {
                    for &(input, p) in &at {
                        let router = ports[input.index()].router;
                        let hop = self.tree.route(router.index(), d, 0);
                        let port =
                            PortId::new(topology.router_ports(router).start + hop.port as usize);
                        visit(port, input, p);
                        if let Link::Router(into) = ports[port.index()].output {
                            next.push((into, p));
                        }
                    }
                    merge(&mut next, &mut at);
                }
            }
        }
    }
}

/// Moves `next` into `at` with the probabilities of one input port summed, sorted by port.
fn merge(next: &mut Vec<(PortId, f64)>, at: &mut Vec<(PortId, f64)>) {
    next.sort_unstable_by_key(|&(input, _)| input);
    at.clear();
    for &(input, p) in next.iter() {
        match at.last_mut() {
            Some((last, q)) if *last == input => *q += p,
            _ => at.push((input, p)),
        }
    }
    next.clear();
}
