//! Channel loads of a traffic pattern and the throughput bound they set, routed source by
//! source or, for deterministic routes under many-to-many patterns, destination by
//! destination.

use std::ops::Range;

use crate::ids::{NodeId, PortId};
use crate::routing::Routing;
use crate::topology::{Link, Topology};
use crate::traffic::Destinations;

/// Channel loads of a pattern, per unit of injection rate.
#[derive(Debug, Clone, PartialEq)]
pub struct ChannelLoad {
    /// Cycles the busiest channel (injection and ejection channels included) is busy per cycle
    /// when every node injects one flit per cycle: flits it carries times its cycles per flit.
    pub max_load: f64,
    /// The output port of the busiest channel (`None` when the busiest is an injection channel).
    pub bottleneck: Option<PortId>,
    /// Throughput bound in flits/node/cycle: `1 / max_load` (at most the node channels' rate).
    pub ideal_throughput: f64,
    /// Mean router-to-router hops per packet.
    pub mean_hops: f64,
    /// Mean cycles per packet on router-to-router channels (the sum of their latencies).
    pub mean_link_cycles: f64,
}

/// Routes every (source, destination) pair the pattern uses, weighted by its probability and,
/// where routing draws random choices, by the probability of each route.
pub fn channel_load(topology: &Topology, routing: &Routing, pattern: &Destinations) -> ChannelLoad {
    summarize(topology, port_loads(topology, routing, pattern))
}

/// The flits per cycle each output port carries when every node injects one flit per cycle
/// (as [`channel_load`] routes them), indexed by port.
pub fn port_loads(topology: &Topology, routing: &Routing, pattern: &Destinations) -> Vec<f64> {
    let mut load = vec![0.0f64; topology.ports().len()];
    match LoadMethod::cheapest(topology, routing, pattern).0 {
        LoadMethod::BySource => by_source(topology, routing, pattern, &mut load),
        LoadMethod::ByDestination => by_destination(topology, routing, pattern, &mut load),
    }
    load
}

/// How [`channel_load`] routes the pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LoadMethod {
    /// Each source router routes to each of its destinations.
    BySource,
    /// Each destination gathers the flows of every source router along its deterministic
    /// routes, following each channel once.
    ByDestination,
}

impl LoadMethod {
    /// The cheaper method for `pattern` and its estimated steps (see
    /// [`channel_load_steps`](super::channel_load_steps)).
    pub(super) fn cheapest(
        topology: &Topology,
        routing: &Routing,
        pattern: &Destinations,
    ) -> (LoadMethod, f64) {
        let nodes = topology.node_count() as f64;
        let groups = source_groups(topology, routing).len() as f64;
        let draws = routing.distinct_draws().len() as f64;
        let fanout = pattern.fanout() as f64;
        let hops = mean_distance(topology, routing);
        let by_source = nodes * fanout + groups * fanout * hops * draws;
        // Routes are followed by destination only when they are one per router and draw, and
        // a route's remainder depends only on where it is (not so for detours).
        if !routing.routes_by_router() || routing.pooled_tree().is_some() || routing.detours() {
            return (LoadMethod::BySource, by_source);
        }
        // Routes towards one destination leave each router by one port per class.
        let reached = topology.router_count() as f64 * routing.classes() as f64;
        // Each source's probability, each source router's first hop, then each channel once
        // (and its place in the order).
        let by_destination = draws * nodes * (nodes + groups + 2.0 * reached);
        if by_destination < by_source {
            (LoadMethod::ByDestination, by_destination)
        } else {
            (LoadMethod::BySource, by_source)
        }
    }
}

/// Mean router-to-router hops plus the ejection hop, over up to 64 source/destination pairs
/// spread across the network.
fn mean_distance(topology: &Topology, routing: &Routing) -> f64 {
    let nodes = topology.node_count();
    if nodes == 0 {
        return 1.0;
    }
    let samples = nodes.min(64);
    let total: f64 = (0..samples)
        .map(|i| {
            let src = i * nodes / samples;
            let dst = (src + nodes / 2 + i) % nodes;
            let port = topology.injection_port(NodeId::new(src));
            let router = topology.ports()[port.index()].router;
            f64::from(routing.distance(router, dst))
        })
        .sum();
    1.0 + total / samples as f64
}

/// The nodes in runs that inject into one router, when routes depend on the source only
/// through its router; one node each otherwise.
pub(super) fn source_groups(topology: &Topology, routing: &Routing) -> Vec<Range<usize>> {
    let nodes = topology.node_count();
    let router_of =
        |n: usize| topology.ports()[topology.injection_port(NodeId::new(n)).index()].router;
    let by_router = routing.routes_by_router();
    let mut groups = Vec::new();
    let mut start = 0;
    while start < nodes {
        let mut end = start + 1;
        while by_router && end < nodes && router_of(end) == router_of(start) {
            end += 1;
        }
        groups.push(start..end);
        start = end;
    }
    groups
}

/// Adds each source router's flows to `load`, destination by destination (random-up routes
/// through the pooled tree).
fn by_source(topology: &Topology, routing: &Routing, pattern: &Destinations, load: &mut [f64]) {
    let mut pooled = routing.pooled_tree();
    let mut mass = vec![0.0f64; topology.node_count()];
    let mut add = |port: PortId, p: f64| load[port.index()] += p;
    for group in source_groups(topology, routing) {
        mass.fill(0.0);
        for s in group.clone() {
            pattern.distribution(s as u32, |dst, p| mass[dst as usize] += p);
        }
        let from = NodeId::new(group.start);
        if let Some(tree) = &mut pooled {
            tree.climb(topology, from, &mass, &mut |port, _, p| add(port, p));
        } else {
            for (dst, &p) in mass.iter().enumerate().filter(|&(_, &p)| p > 0.0) {
                routing.spread(topology, from, NodeId::new(dst), |port, _, q| {
                    add(port, p * q)
                });
            }
        }
    }
    if let Some(tree) = pooled {
        tree.descend(topology, &mut |port, _, p| add(port, p));
    }
}

/// Adds the flows towards each destination to `load`, for routing whose routes depend on the
/// source only through its router and whose remainder from a channel depends only on the
/// channel, its class, the destination and the draw. Per destination and draw, each source
/// router's route is followed until it joins a channel an earlier route took; the sources'
/// flows then run down the joined routes, upstream channels first. A draw's bits for
/// dimensions that do not tie are ignored, so giving every distinct draw an equal share gives
/// each pair's routes the probabilities its own draws would.
fn by_destination(
    topology: &Topology,
    routing: &Routing,
    pattern: &Destinations,
    load: &mut [f64],
) {
    const END: u32 = u32::MAX;
    let classes = routing.classes();
    let states = topology.ports().len() * classes;
    let groups = source_groups(topology, routing);
    let draws = routing.distinct_draws();
    let share = 1.0 / draws.len() as f64;
    // Per (port, class): the round that reached it, the state after it, the hops left after
    // it, and the flow through it.
    let mut round_of = vec![0u64; states];
    let mut next = vec![END; states];
    let mut left = vec![0u32; states];
    let mut flow = vec![0.0f64; states];
    let (mut reached, mut path) = (Vec::new(), Vec::new());
    let mut round = 0;
    for &draw in &draws {
        for dst in 0..topology.node_count() {
            round += 1;
            reached.clear();
            for group in &groups {
                let p: f64 = group
                    .clone()
                    .map(|s| pattern.probability(s as u32, dst as u32))
                    .sum();
                if p == 0.0 {
                    continue;
                }
                path.clear();
                let mut joined = END;
                let (from, to) = (NodeId::new(group.start), NodeId::new(dst));
                routing.walk_while(topology, from, to, draw, |port, class| {
                    let s = port.index() * classes + usize::from(class);
                    if round_of[s] == round {
                        joined = s as u32;
                        return false;
                    }
                    round_of[s] = round;
                    flow[s] = 0.0;
                    path.push(s as u32);
                    true
                });
                let mut hops = if joined == END {
                    0
                } else {
                    left[joined as usize] + 1
                };
                let mut after = joined;
                for &s in path.iter().rev() {
                    (left[s as usize], next[s as usize]) = (hops, after);
                    (hops, after) = (hops + 1, s);
                }
                flow[after as usize] += p * share;
                reached.extend_from_slice(&path);
            }
            reached.sort_unstable_by_key(|&s| std::cmp::Reverse(left[s as usize]));
            for &s in &reached {
                let s = s as usize;
                load[s / classes] += flow[s];
                if next[s] != END {
                    flow[next[s] as usize] += flow[s];
                }
            }
        }
    }
}

/// The bound and the mean hops from the flits each port carries per unit of injection.
fn summarize(topology: &Topology, mut load: Vec<f64>) -> ChannelLoad {
    let nodes = topology.node_count();
    let links = || {
        load.iter()
            .zip(topology.ports())
            .filter(|(_, port)| matches!(port.output, Link::Router(_)))
    };
    let hops: f64 = links().map(|(l, _)| l).sum();
    let link_cycles: f64 = links()
        .map(|(l, port)| l * f64::from(port.output_latency))
        .sum();
    // A channel taking P cycles per flit is busy P cycles per flit it carries.
    for (l, port) in load.iter_mut().zip(topology.ports()) {
        *l *= f64::from(port.output_period);
    }
    // Each injection channel carries exactly the node's own load of 1 (at the node channels'
    // period, which the ejection ports carry).
    let injection = (0..nodes)
        .map(|n| topology.ports()[topology.ejection_port(NodeId::new(n)).index()].output_period)
        .max()
        .map_or(1.0, f64::from);
    let (bottleneck, max_load) =
        load.iter()
            .enumerate()
            .fold((None, injection), |(best, max), (i, &l)| {
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
        mean_link_cycles: link_cycles / nodes as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Spec;

    /// Both methods on `toml`'s network under its pattern, loads compared port by port.
    fn methods_agree(toml: &str) {
        let cfg = Spec::from_toml_str(toml, "<test>").unwrap_or_else(|e| panic!("{toml}: {e}"));
        let topology = Topology::from_config(&cfg);
        let routing = Routing::from_config(&cfg, &topology);
        let workload = crate::traffic::Workload::new(&cfg.traffic, topology.addresses(), cfg.seed);
        let pattern = workload.phase_destinations(0);
        let (mut a, mut b) = (
            vec![0.0; topology.ports().len()],
            vec![0.0; topology.ports().len()],
        );
        by_source(&topology, &routing, pattern, &mut a);
        by_destination(&topology, &routing, pattern, &mut b);
        for (port, (x, y)) in a.iter().zip(&b).enumerate() {
            assert!((x - y).abs() < 1e-9, "{toml}: port {port}: {x} vs {y}");
        }
    }

    #[test]
    fn routing_by_destination_gives_the_loads_of_routing_by_source() {
        let cases = [
            "[topology]\nkind = \"torus\"\nk = 6\nn = 2",
            "[topology]\nkind = \"torus\"\nk = 6\nn = 2\n[routing]\ntie_break = \"random\"",
            "[topology]\nkind = \"torus\"\nk = 4\nn = 3\n[routing]\ntie_break = \"random\"\nalgorithm = \"duato\"\n[router]\nvcs = 3",
            "[topology]\nkind = \"torus\"\nk = 8\nn = 1\n[routing]\ndatelines = [3]",
            "[topology]\nkind = \"mesh\"\nk = 5\nn = 2\n[traffic]\npattern = \"hotspot\"\nhotspot_nodes = [3, 12]\nhotspot_fraction = 0.3",
            "[topology]\nkind = \"torus\"\nk = 4\nn = 2\n[routing]\nalgorithm = \"disha\"\n[traffic]\npattern = \"transpose\"",
            "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 2\n[routing]\nalgorithm = \"d_mod_k\"",
        ];
        for case in cases {
            methods_agree(case);
        }
    }
}
