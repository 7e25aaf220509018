//! Static analysis of a network under a routing function and traffic pattern: channel loads and
//! the ideal throughput they bound, mean hop count, and the channel dependency graph.

use petgraph::algo::is_cyclic_directed;
use petgraph::graphmap::DiGraphMap;

use crate::ids::{NodeId, PortId};
use crate::routing::Routing;
use crate::topology::{Link, Topology};
use crate::traffic::Destinations;

/// Channel loads of a pattern, per unit of injection rate.
#[derive(Debug, Clone, PartialEq)]
pub struct ChannelLoad {
    /// Load of the busiest channel (injection and ejection channels included) when every node
    /// injects one flit per cycle.
    pub max_load: f64,
    /// The output port of the busiest channel (`None` when the busiest is an injection channel).
    pub bottleneck: Option<PortId>,
    /// Throughput bound in flits/node/cycle: `1 / max_load` (at most 1, the injection rate).
    pub ideal_throughput: f64,
    /// Mean router-to-router hops per packet.
    pub mean_hops: f64,
}

/// Routes every (source, destination) pair the pattern uses, weighted by its probability.
pub fn channel_load(topology: &Topology, routing: &Routing, pattern: &Destinations) -> ChannelLoad {
    let nodes = topology.node_count();
    let mut load = vec![0.0f64; topology.ports().len()];
    let mut hops = 0.0;
    for src in 0..nodes {
        pattern.distribution(src as u32, |dst, p| {
            routing.walk(
                topology,
                NodeId::new(src),
                NodeId::new(dst as usize),
                |port, _| {
                    load[port.index()] += p;
                    if matches!(topology.ports()[port.index()].output, Link::Router(_)) {
                        hops += p;
                    }
                },
            );
        });
    }
    // Each injection channel carries exactly the node's own load of 1.
    let (bottleneck, max_load) =
        load.iter()
            .enumerate()
            .fold((None, 1.0), |(best, max), (i, &l)| {
                if l > max + 1e-12 {
                    (Some(PortId::new(i)), l)
                } else {
                    (best, max)
                }
            });
    ChannelLoad {
        max_load,
        bottleneck,
        ideal_throughput: 1.0 / max_load,
        mean_hops: hops / nodes as f64,
    }
}

/// The channel dependency graph of `routing` over all source/destination pairs: vertices are
/// (router output port, VC class) of router-to-router channels, and an edge joins consecutive
/// channels of some route.
pub fn dependency_graph(topology: &Topology, routing: &Routing) -> DiGraphMap<(u32, u8), ()> {
    let mut graph = DiGraphMap::new();
    let nodes = topology.node_count();
    for src in 0..nodes {
        for dst in 0..nodes {
            let mut previous: Option<(u32, u8)> = None;
            routing.walk(
                topology,
                NodeId::new(src),
                NodeId::new(dst),
                |port, class| {
                    if !matches!(topology.ports()[port.index()].output, Link::Router(_)) {
                        return;
                    }
                    let channel = (port.index() as u32, class);
                    graph.add_node(channel);
                    if let Some(prev) = previous {
                        graph.add_edge(prev, channel, ());
                    }
                    previous = Some(channel);
                },
            );
        }
    }
    graph
}

/// Whether the routing function's channel dependency graph is acyclic (Dally and Seitz's
/// sufficient condition for deadlock freedom of deterministic routing).
pub fn is_deadlock_free(topology: &Topology, routing: &Routing) -> bool {
    !is_cyclic_directed(&dependency_graph(topology, routing))
}
