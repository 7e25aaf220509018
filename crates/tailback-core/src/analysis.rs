//! Static analysis of a network under a routing function and traffic pattern: channel loads and
//! the ideal throughput they bound, mean hop count, and the channel dependency graph.

use petgraph::Direction;
use petgraph::graphmap::{DiGraphMap, NodeTrait};

use crate::bitset::bits64;
use crate::config::{Config, FabricConfig, Switching};
use crate::ids::{NodeId, PortId, RouterId};
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
}

/// Routes every (source, destination) pair the pattern uses, weighted by its probability and,
/// where routing draws random choices, by the probability of each route.
pub fn channel_load(topology: &Topology, routing: &Routing, pattern: &Destinations) -> ChannelLoad {
    let nodes = topology.node_count();
    let mut load = vec![0.0f64; topology.ports().len()];
    let mut hops = 0.0;
    // The nodes of one router share their routes where routing allows: route each destination
    // once per router, with the router's nodes' probabilities summed.
    let router_of =
        |n: usize| topology.ports()[topology.injection_port(NodeId::new(n)).index()].router;
    let by_router = routing.routes_by_router();
    let mut pooled = routing.pooled_tree();
    let mut mass = vec![0.0f64; nodes];
    let mut add = |port: PortId, p: f64| {
        load[port.index()] += p;
        if matches!(topology.ports()[port.index()].output, Link::Router(_)) {
            hops += p;
        }
    };
    let mut src = 0;
    while src < nodes {
        let mut end = src + 1;
        while by_router && end < nodes && router_of(end) == router_of(src) {
            end += 1;
        }
        mass.fill(0.0);
        for s in src..end {
            pattern.distribution(s as u32, |dst, p| mass[dst as usize] += p);
        }
        let from = NodeId::new(src);
        if let Some(tree) = &mut pooled {
            tree.climb(topology, from, &mass, &mut |port, _, p| add(port, p));
        } else {
            for (dst, &p) in mass.iter().enumerate().filter(|&(_, &p)| p > 0.0) {
                routing.spread(topology, from, NodeId::new(dst), |port, _, q| {
                    add(port, p * q)
                });
            }
        }
        src = end;
    }
    if let Some(tree) = pooled {
        tree.descend(topology, &mut |port, _, p| add(port, p));
    }
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
    }
}

/// The latency of a lone packet on a network: injection, every router's pipeline, the links,
/// ejection, and the tail trailing the head by the slowest channel's cycles per flit — at every
/// router too under store-and-forward.
#[derive(Debug, Clone, Copy)]
pub struct ZeroLoad {
    /// Injection and ejection latency.
    ends: f64,
    /// Pipeline cycles per router.
    per_router: f64,
    /// Cycles per router-to-router link.
    link: f64,
    /// The slowest channel's cycles per flit.
    slowest: f64,
    store_and_forward: bool,
}

impl ZeroLoad {
    /// The zero-load timing of `topology` with `cfg`'s switch and NIC delays (a buffered
    /// switch's head waits `switch_latency` cycles; a router's goes through its pipeline).
    pub fn new(cfg: &Config, topology: &Topology) -> ZeroLoad {
        let r = &cfg.router;
        let per_router = match &cfg.fabric {
            FabricConfig::Vc => {
                r.routing_delay + r.vc_alloc_delay + r.switch_alloc_delay + r.crossbar_delay
            }
            FabricConfig::Buffered(b) => b.switch_latency,
        };
        ZeroLoad {
            ends: f64::from(cfg.nic.injection_latency + cfg.nic.ejection_latency),
            per_router: f64::from(per_router),
            link: f64::from(cfg.topology.link_latency),
            slowest: f64::from(
                topology
                    .ports()
                    .iter()
                    .map(|p| p.output_period)
                    .max()
                    .unwrap_or(1),
            ),
            store_and_forward: r.switching == Switching::StoreAndForward,
        }
    }

    /// The latency of a `flits`-flit packet crossing `hops` router-to-router channels (a mean
    /// hop count may be fractional).
    pub fn latency(&self, hops: f64, flits: u32) -> f64 {
        let serialization = f64::from(flits - 1) * self.slowest;
        let stores = if self.store_and_forward {
            hops + 1.0
        } else {
            0.0
        };
        self.ends
            + (hops + 1.0) * self.per_router
            + hops * self.link
            + (1.0 + stores) * serialization
    }
}

/// A channel of a dependency graph: (router output port, VC class).
pub type Channel = (u32, u8);

/// The channel dependency graph of `routing` over all source/destination pairs: vertices are
/// (router output port, VC class) of router-to-router channels, and an edge joins channels a
/// packet may hold and request at the same time.
///
/// For dimension-order routing (and Disha's recovery path) the edges join consecutive channels
/// of the deterministic routes. For Duato's protocol the graph is the *extended* dependency
/// graph of the escape channels: besides the direct dependencies between consecutive escape
/// hops it has the indirect ones, from an escape channel to every escape channel the packet may
/// request after any number of minimal adaptive hops — Duato's condition for deadlock freedom
/// is that this graph is acyclic.
pub fn dependency_graph(topology: &Topology, routing: &Routing) -> DiGraphMap<Channel, ()> {
    match routing {
        Routing::Duato(_) => extended_escape_graph(topology, routing),
        Routing::Dor(_) | Routing::Disha(_) | Routing::Table(_) => {
            deterministic_graph(topology, routing)
        }
        Routing::UpDown(_) | Routing::Tag(_) => minimal_graph(topology, routing),
    }
}

/// Dependencies between every pair of channels a packet may take in a row towards some
/// destination, over all minimal hops (a superset of what adaptive-up routing can use).
fn minimal_graph(topology: &Topology, routing: &Routing) -> DiGraphMap<Channel, ()> {
    let mut graph = DiGraphMap::new();
    let next_router = |port: usize| match topology.ports()[port].output {
        Link::Router(peer) => Some(topology.ports()[peer.index()].router),
        _ => None,
    };
    for dst in 0..topology.node_count() {
        for r in 0..topology.router_count() {
            let router = RouterId::new(r);
            let first = topology.router_ports(router).start;
            for local in bits64(routing.minimal_ports(router, dst, 0)) {
                let Some(next) = next_router(first + local) else {
                    continue;
                };
                let channel = ((first + local) as u32, 0);
                graph.add_node(channel);
                let next_first = topology.router_ports(next).start;
                for q in bits64(routing.minimal_ports(next, dst, 0)) {
                    if next_router(next_first + q).is_some() {
                        graph.add_edge(channel, ((next_first + q) as u32, 0), ());
                    }
                }
            }
        }
    }
    graph
}

/// Dependencies between consecutive channels of the deterministic routes (of every route a
/// routing draw may give).
fn deterministic_graph(topology: &Topology, routing: &Routing) -> DiGraphMap<Channel, ()> {
    let mut graph = DiGraphMap::new();
    let nodes = topology.node_count();
    for src in 0..nodes {
        for dst in 0..nodes {
            let (src, dst) = (NodeId::new(src), NodeId::new(dst));
            routing.draws_between(src, dst, |draw, _| {
                let mut previous: Option<Channel> = None;
                routing.walk(topology, src, dst, draw, |port, class| {
                    if !matches!(topology.ports()[port.index()].output, Link::Router(_)) {
                        return;
                    }
                    let channel = (port.index() as u32, class);
                    graph.add_node(channel);
                    if let Some(prev) = previous {
                        graph.add_edge(prev, channel, ());
                    }
                    previous = Some(channel);
                });
            });
        }
    }
    graph
}

/// Direct and indirect dependencies between escape channels (see [`dependency_graph`]). The
/// escape hop depends only on the current router and the destination, so for each destination
/// an escape channel into router `v` depends on the escape channel out of every router a
/// minimal path leads to from `v` (`v` included).
fn extended_escape_graph(topology: &Topology, routing: &Routing) -> DiGraphMap<Channel, ()> {
    let routers = topology.router_count();
    let next_router = |port: usize| match topology.ports()[port].output {
        Link::Router(input) => Some(topology.ports()[input.index()].router),
        _ => None,
    };
    let mut graph = DiGraphMap::new();
    let mut reached = vec![false; routers];
    let mut stack = Vec::new();
    // A packet keeps its draw, so each draw has its own escape function; the graph is the
    // union of theirs.
    for draw in routing.distinct_draws() {
        for dst in 0..topology.node_count() {
            let to = NodeId::new(dst);
            // The escape channel out of each router towards `dst` and the router it leads to.
            let escape: Vec<Option<(Channel, RouterId)>> = (0..routers)
                .map(|r| {
                    let router = RouterId::new(r);
                    let hop = routing.deterministic_hop(router, to, to, 0, draw);
                    let port = topology.router_ports(router).start + hop.port as usize;
                    next_router(port).map(|next| ((port as u32, hop.class), next))
                })
                .collect();
            for &(held, into) in escape.iter().flatten() {
                graph.add_node(held);
                reached.fill(false);
                reached[into.index()] = true;
                stack.push(into);
                while let Some(at) = stack.pop() {
                    if let Some((requested, _)) = escape[at.index()] {
                        graph.add_edge(held, requested, ());
                    }
                    let start = topology.router_ports(at).start;
                    let mut ports = routing.minimal_ports(at, dst, draw);
                    while ports != 0 {
                        let port = ports.trailing_zeros() as usize;
                        ports &= ports - 1;
                        if let Some(next) = next_router(start + port)
                            && !reached[next.index()]
                        {
                            reached[next.index()] = true;
                            stack.push(next);
                        }
                    }
                }
            }
        }
    }
    graph
}

/// Whether the routing function is free of permanent deadlock by its dependency graph
/// ([`dependency_graph`]): acyclic for DOR (Dally and Seitz's condition) and for Duato's escape
/// channels (Duato's condition). Under Disha the adaptive channels may deadlock and are
/// recovered; the answer is then whether the recovery path is acyclic.
pub fn is_deadlock_free(topology: &Topology, routing: &Routing) -> bool {
    !has_cycle(&dependency_graph(topology, routing))
}

/// Whether `graph` has a directed cycle, by Kahn's algorithm: vertices without predecessors
/// are taken away until none is left (acyclic) or every remaining vertex has one (a cycle).
/// Iterative, so a graph as deep as a line of 100,000 switches does not exhaust the stack as a
/// recursive search would.
pub fn has_cycle<N: NodeTrait>(graph: &DiGraphMap<N, ()>) -> bool {
    let mut waiting: std::collections::HashMap<N, usize> = graph
        .nodes()
        .map(|n| (n, graph.neighbors_directed(n, Direction::Incoming).count()))
        .collect();
    let mut free: Vec<N> = waiting
        .iter()
        .filter(|&(_, &count)| count == 0)
        .map(|(&n, _)| n)
        .collect();
    let mut taken = 0;
    while let Some(n) = free.pop() {
        taken += 1;
        for next in graph.neighbors_directed(n, Direction::Outgoing) {
            let count = waiting.get_mut(&next).expect("every vertex is counted");
            *count -= 1;
            if *count == 0 {
                free.push(next);
            }
        }
    }
    taken < graph.node_count()
}

/// The fewest links (router-to-router channels; the two channels of a bidirectional link count
/// once) whose removal separates the first half of the nodes from the second, each node with
/// the routers it injects into and ejects from: the bisection the natural node halves see, by
/// max-flow/min-cut. `None` with fewer than two nodes or when a router holds nodes of both
/// halves.
pub fn bisection_links(topology: &Topology) -> Option<usize> {
    let nodes = topology.node_count();
    let routers = topology.router_count();
    let (source, sink) = (routers, routers + 1);
    // Residual capacities per arc: each link is an edge of capacity 1 either way (a channel
    // whose opposite channel exists is one link with it); terminal arcs are effectively
    // unbounded.
    let mut head: Vec<usize> = Vec::new();
    let mut cap: Vec<usize> = Vec::new();
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); routers + 2];
    let mut arc = |from: usize, to: usize, c: usize, back: usize| {
        out[from].push(head.len());
        head.push(to);
        cap.push(c);
        out[to].push(head.len());
        head.push(from);
        cap.push(back);
    };
    for (i, port) in topology.ports().iter().enumerate() {
        if let Link::Router(peer) = port.output
            && (i < peer.index()
                || topology.ports()[peer.index()].output != Link::Router(PortId::new(i)))
        {
            let to = topology.ports()[peer.index()].router.index();
            arc(port.router.index(), to, 1, 1);
        }
    }
    // A router is on the side of the nodes it injects from or ejects to.
    let mut side = vec![None; routers];
    for port in topology.ports() {
        for link in [port.input, port.output] {
            if let Link::Node(n) = link {
                let left = n.index() < nodes / 2;
                match side[port.router.index()] {
                    Some(s) if s != left => return None,
                    _ => side[port.router.index()] = Some(left),
                }
            }
        }
    }
    if nodes < 2 {
        return None;
    }
    for (r, s) in side.iter().enumerate() {
        match s {
            Some(true) => arc(source, r, usize::MAX / 2, 0),
            Some(false) => arc(r, sink, usize::MAX / 2, 0),
            None => {}
        }
    }
    let mut flow = 0;
    let mut via = vec![usize::MAX; routers + 2];
    loop {
        // Breadth-first search for an augmenting path of unit capacity.
        via.fill(usize::MAX);
        let mut queue = std::collections::VecDeque::from([source]);
        while let Some(v) = queue.pop_front() {
            for &a in &out[v] {
                let w = head[a];
                if cap[a] > 0 && w != source && via[w] == usize::MAX {
                    via[w] = a;
                    queue.push_back(w);
                }
            }
        }
        if via[sink] == usize::MAX {
            return Some(flow);
        }
        let mut v = sink;
        while v != source {
            let a = via[v];
            cap[a] -= 1;
            cap[a ^ 1] += 1;
            v = head[a ^ 1];
        }
        flow += 1;
    }
}
