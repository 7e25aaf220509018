//! What each all-pairs analysis costs, estimated from the network's size before running it, so
//! that a caller can skip the ones a network makes too expensive and say so. Costs are in
//! steps (a route hop, a dependency, a router visited): a few nanoseconds each, about ten on the
//! reference machine.

use crate::bitset::bits64;
use crate::ids::{NodeId, RouterId};
use crate::rng::splitmix64;
use crate::routing::Routing;
use crate::topology::{Link, Topology};
use crate::traffic::Destinations;

use super::load::LoadMethod;

/// Estimated steps of [`channel_load`](super::channel_load) under `pattern`.
pub fn channel_load_steps(topology: &Topology, routing: &Routing, pattern: &Destinations) -> f64 {
    LoadMethod::cheapest(topology, routing, pattern).1
}

/// Estimated steps of [`dependency_graph`](super::dependency_graph) (and so of the deadlock
/// test).
pub fn dependency_graph_steps(topology: &Topology, routing: &Routing) -> f64 {
    let nodes = topology.node_count() as f64;
    let routers = topology.router_count() as f64;
    let ports = topology.ports().len() as f64;
    let draws = routing.distinct_draws().len() as f64;
    match routing {
        // Per draw and destination: each router's escape channel, then every router a minimal
        // path reaches from where it leads, each costing about ten steps (its minimal ports,
        // their routers, the dependency).
        Routing::Duato(_) => 10.0 * draws * nodes * routers * (1.0 + mean_reach(topology, routing)),
        // Per pair of routers and draw: every channel a route may take (DAL's candidates from
        // every router a route reaches: about every router, in one class per hop).
        _ if routing.adapts_hop_by_hop() => {
            let degree = ports / routers;
            routers * routers * draws * routers * degree * routing.classes() as f64
        }
        // Per pair of routers, draw and sequence of choices: every hop of the route (at most
        // six on a dragonfly's detour; up to twice the dimensions on a HyperX's).
        _ if routing.detours() => {
            let pair = (
                NodeId::new(0),
                NodeId::new(topology.node_count().saturating_sub(1)),
            );
            let mut pair_draws = 0.0;
            routing.draws_between(pair.0, pair.1, |_, _| pair_draws += 1.0);
            6.0 * routers * routers * pair_draws * f64::from(1u32 << routing.decisions())
        }
        // Per draw and destination: each source's first hop, then each channel once.
        Routing::Dor(_)
        | Routing::Disha(_)
        | Routing::Table(_)
        | Routing::Dragonfly(_)
        | Routing::HyperX(_) => draws * nodes * (nodes + ports * routing.classes() as f64),
        // Per destination: each router's minimal ports.
        Routing::UpDown(_) | Routing::Tag(_) => nodes * ports,
    }
}

/// Mean number of routers minimal paths reach from a router towards a destination, over 32
/// pseudo-random pairs (the routers themselves when there are too many to search cheaply: the
/// estimate is then far over any budget anyway).
fn mean_reach(topology: &Topology, routing: &Routing) -> f64 {
    const SAMPLES: u64 = 32;
    let (nodes, routers) = (topology.node_count(), topology.router_count());
    if nodes == 0 || routers > 1 << 16 {
        return routers as f64;
    }
    let mut reached = vec![false; routers];
    let mut stack = Vec::new();
    let total: usize = (0..SAMPLES)
        .map(|i| {
            let draw = splitmix64(i);
            let dst = (draw % nodes as u64) as usize;
            let from = RouterId::new(((draw >> 32) % routers as u64) as usize);
            reached.fill(false);
            reached[from.index()] = true;
            stack.push(from);
            let mut count = 0;
            while let Some(at) = stack.pop() {
                count += 1;
                let start = topology.router_ports(at).start;
                for port in bits64(routing.minimal_ports(at, dst, 0)) {
                    if let Link::Router(peer) = topology.ports()[start + port].output {
                        let next = topology.ports()[peer.index()].router;
                        if !std::mem::replace(&mut reached[next.index()], true) {
                            stack.push(next);
                        }
                    }
                }
            }
            count
        })
        .sum();
    total as f64 / SAMPLES as f64
}
