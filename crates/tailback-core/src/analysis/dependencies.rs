//! Channel dependency graphs, and the deadlock-freedom test built on them.

use petgraph::Direction;
use petgraph::graphmap::{DiGraphMap, NodeTrait};
use rustc_hash::{FxHashMap, FxHashSet};

use super::load::source_groups;
use crate::bitset::bits64;
use crate::ids::{NodeId, PortId, RouterId};
use crate::routing::{Head, Routing, Scripted, StayMinimal, TableRouting};
use crate::topology::{CustomShape, Link, Topology};

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
    let mut dependencies = Dependencies::new(topology, routing.classes());
    match routing {
        Routing::Duato(_) => extended_escape(&mut dependencies, routing),
        _ if routing.adapts_hop_by_hop() => hop_by_hop(&mut dependencies, routing),
        _ if routing.detours() => detouring(&mut dependencies, routing),
        Routing::Table(t) if t.is_adaptive() => minimal(&mut dependencies, routing),
        Routing::Dor(_)
        | Routing::Disha(_)
        | Routing::Table(_)
        | Routing::Dragonfly(_)
        | Routing::HyperX(_) => deterministic(&mut dependencies, routing),
        Routing::UpDown(_) | Routing::Tag(_) => minimal(&mut dependencies, routing),
    }
    dependencies.into_graph()
}

/// Dependencies gathered as bit masks, which routes repeating the same dependency set again
/// at the cost of an OR: for each held channel and requested class, the local ports of the
/// next router that may be requested. Dependencies on channels further away (Duato's indirect
/// ones) are kept as a set.
struct Dependencies<'a> {
    topology: &'a Topology,
    classes: usize,
    /// Whether each (port, class) is a vertex.
    vertex: Vec<bool>,
    /// Requested local ports per (held port, held class, requested class).
    requests: Vec<u64>,
    /// Dependencies on channels out of routers other than the next.
    far: FxHashSet<(Channel, Channel)>,
}

impl<'a> Dependencies<'a> {
    fn new(topology: &'a Topology, classes: usize) -> Self {
        let channels = topology.ports().len() * classes;
        Dependencies {
            topology,
            classes,
            vertex: vec![false; channels],
            requests: vec![0; channels * classes],
            far: FxHashSet::default(),
        }
    }

    fn index(&self, (port, class): Channel) -> usize {
        port as usize * self.classes + usize::from(class)
    }

    /// The router a router-to-router output port leads to.
    fn next_router(&self, port: usize) -> Option<RouterId> {
        match self.topology.ports()[port].output {
            Link::Router(peer) => Some(self.topology.ports()[peer.index()].router),
            _ => None,
        }
    }

    /// The local ports of `router` that lead to another router.
    fn onward_ports(&self, router: RouterId) -> u64 {
        let ports = self.topology.router_ports(router);
        let first = ports.start;
        ports
            .filter(|&p| self.next_router(p).is_some())
            .fold(0, |mask, p| mask | 1 << (p - first))
    }

    fn add_vertex(&mut self, channel: Channel) {
        let i = self.index(channel);
        self.vertex[i] = true;
    }

    /// Adds the dependencies of `held` on the channels of class `class` out of the `ports`
    /// (local ports) of the router `held` leads to.
    fn add_requests(&mut self, held: Channel, ports: u64, class: u8) {
        self.add_vertex(held);
        let i = self.index(held) * self.classes + usize::from(class);
        self.requests[i] |= ports;
    }

    /// Adds the dependency of `held` on `requested`, a channel out of the router `held` leads
    /// to.
    fn add_edge(&mut self, held: Channel, requested: Channel) {
        let router = self.topology.ports()[requested.0 as usize].router;
        let local = requested.0 as usize - self.topology.router_ports(router).start;
        self.add_requests(held, 1 << local, requested.1);
    }

    /// Follows a route onto `port` in `class` after the channel `previous` (`None` at the first
    /// router): adds the dependency, and returns the channel (`None` at the ejection port, where
    /// the route leaves the network).
    fn follow(
        &mut self,
        previous: &mut Option<Channel>,
        port: PortId,
        class: u8,
    ) -> Option<Channel> {
        self.next_router(port.index())?;
        let channel = (port.index() as u32, class);
        match *previous {
            Some(held) => self.add_edge(held, channel),
            None => self.add_vertex(channel),
        }
        *previous = Some(channel);
        Some(channel)
    }

    /// Adds the dependency of `held` on `requested`, a channel out of any router.
    fn add_far_edge(&mut self, held: Channel, requested: Channel) {
        self.add_vertex(held);
        self.far.insert((held, requested));
    }

    fn into_graph(self) -> DiGraphMap<Channel, ()> {
        let mut graph = DiGraphMap::new();
        // In a fixed order, so that the graph's own order does not depend on hashing.
        let mut far: Vec<_> = self.far.iter().copied().collect();
        far.sort_unstable();
        for (held, requested) in far {
            graph.add_edge(held, requested, ());
        }
        for (i, _) in self.vertex.iter().enumerate().filter(|&(_, &v)| v) {
            let held = ((i / self.classes) as u32, (i % self.classes) as u8);
            graph.add_node(held);
            let Some(next) = self.next_router(held.0 as usize) else {
                continue;
            };
            let first = self.topology.router_ports(next).start;
            for class in 0..self.classes {
                for local in bits64(self.requests[i * self.classes + class]) {
                    graph.add_edge(held, ((first + local) as u32, class as u8), ());
                }
            }
        }
        graph
    }
}

/// Dependencies between every pair of channels a packet may take in a row towards some
/// destination, over all minimal hops (a superset of what adaptive-up routing can use).
fn minimal(dependencies: &mut Dependencies, routing: &Routing) {
    let topology = dependencies.topology;
    let routers = topology.router_count();
    let onward: Vec<u64> = (0..routers)
        .map(|r| dependencies.onward_ports(RouterId::new(r)))
        .collect();
    let mut minimal = vec![0u64; routers];
    for dst in 0..topology.node_count() {
        for (r, ports) in minimal.iter_mut().enumerate() {
            *ports = routing.minimal_ports(RouterId::new(r), dst, 0) & onward[r];
        }
        for (r, &ports) in minimal.iter().enumerate() {
            let first = topology.router_ports(RouterId::new(r)).start;
            for local in bits64(ports) {
                let port = first + local;
                let next = dependencies.next_router(port).expect("an onward port");
                dependencies.add_requests((port as u32, 0), minimal[next.index()], 0);
            }
        }
    }
}

/// Dependencies between consecutive channels of the deterministic routes (of every route a
/// routing draw may give).
///
/// A route's remainder from a channel depends only on the channel, its class, the destination
/// and the draw (the source enters only through the class it gave the packet), so for each
/// destination and draw a route is followed only up to the first channel an earlier route
/// already took: the cost grows with nodes × (nodes + channels), not with every route's hops.
/// A draw's bits for dimensions that do not tie are ignored, so walking every pair with every
/// distinct draw covers exactly the routes the pairs' own draws give.
fn deterministic(dependencies: &mut Dependencies, routing: &Routing) {
    let topology = dependencies.topology;
    let nodes = topology.node_count();
    // The (draw, destination) round that last followed each channel.
    let mut followed = vec![0u64; dependencies.vertex.len()];
    let mut round = 0u64;
    for draw in routing.distinct_draws() {
        for dst in 0..nodes {
            round += 1;
            for src in 0..nodes {
                let mut previous: Option<Channel> = None;
                let (src, dst) = (NodeId::new(src), NodeId::new(dst));
                routing.walk_while(topology, src, dst, draw, |port, class| {
                    let Some(channel) = dependencies.follow(&mut previous, port, class) else {
                        return false;
                    };
                    let seen = &mut followed[dependencies.index(channel)];
                    std::mem::replace(seen, round) != round
                });
            }
        }
    }
}

/// Dependencies between consecutive channels of every route a detouring routing (Valiant, UGAL,
/// PAR) may give: from each router to each router, with every routing draw and every sequence
/// of choices between the minimal route and the detour. A route depends on its source's group
/// and on its choices, so routes are not cut short where they join an earlier one; routers, not
/// nodes, are paired (a route leaves a router's nodes alike and reaches them alike).
fn detouring(dependencies: &mut Dependencies, routing: &Routing) {
    let topology = dependencies.topology;
    let ends = route_ends(topology, routing);
    let mut draws = Vec::new();
    for &src in &ends {
        for &dst in &ends {
            draws.clear();
            routing.draws_between(src, dst, |draw, _| draws.push(draw));
            for &draw in &draws {
                for script in 0..1u32 << routing.decisions() {
                    let mut previous: Option<Channel> = None;
                    let mut decide = Scripted(script);
                    routing.walk_deciding(topology, src, dst, draw, &mut decide, |port, class| {
                        dependencies.follow(&mut previous, port, class).is_some()
                    });
                }
            }
        }
    }
}

/// One node of each group of sources whose routes are alike (of every router where routes
/// depend on a source only through its router): the ends routes are paired between.
fn route_ends(topology: &Topology, routing: &Routing) -> Vec<NodeId> {
    source_groups(topology, routing)
        .into_iter()
        .map(|nodes| NodeId::new(nodes.start))
        .collect()
}

/// Dependencies between consecutive channels of every route a routing that chooses among
/// ports hop by hop (DAL) may take: from each router to each router, with every routing draw
/// that picks different trunks, every candidate at every router a route reaches. A route's
/// continuation from a channel depends only on the pair, the draw and the channel (its class
/// included), so each is followed once per pair and draw.
fn hop_by_hop(dependencies: &mut Dependencies, routing: &Routing) {
    let topology = dependencies.topology;
    let ends = route_ends(topology, routing);
    let mut followed = vec![0u64; dependencies.vertex.len()];
    let mut round = 0u64;
    let (mut draws, mut stack) = (Vec::new(), Vec::new());
    for &src in &ends {
        let first_router = topology.ports()[topology.injection_port(src).index()].router;
        for &dst in &ends {
            draws.clear();
            routing.draws_between(src, dst, |draw, _| draws.push(draw));
            for &draw in &draws {
                round += 1;
                stack.push((first_router, None, 0u8));
                while let Some((router, previous, class)) = stack.pop() {
                    let head = Head {
                        class,
                        ..Head::new(src, dst, draw)
                    };
                    let (ports, next_class) = routing
                        .choices(router, &head)
                        .expect("a routing that chooses hop by hop");
                    let start = topology.router_ports(router).start;
                    for local in bits64(ports) {
                        let mut held = previous;
                        let port = PortId::new(start + local);
                        let Some(channel) = dependencies.follow(&mut held, port, next_class) else {
                            continue;
                        };
                        let seen = &mut followed[dependencies.index(channel)];
                        if std::mem::replace(seen, round) != round {
                            let next = dependencies.next_router(port.index()).expect("onward");
                            stack.push((next, Some(channel), next_class));
                        }
                    }
                }
            }
        }
    }
}

/// Direct and indirect dependencies between escape channels (see [`dependency_graph`]). The
/// escape hop depends only on the current router and the destination, so for each destination
/// an escape channel into router `v` depends on the escape channel out of every router a
/// minimal path leads to from `v` (`v` included).
fn extended_escape(dependencies: &mut Dependencies, routing: &Routing) {
    let topology = dependencies.topology;
    let routers = topology.router_count();
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
                    let head = Head::new(to, to, draw);
                    let (hop, _) = routing.deterministic_hop(router, &head, &mut StayMinimal);
                    let port = topology.router_ports(router).start + hop.port as usize;
                    dependencies
                        .next_router(port)
                        .map(|next| ((port as u32, hop.class), next))
                })
                .collect();
            for &(held, into) in escape.iter().flatten() {
                dependencies.add_vertex(held);
                reached.fill(false);
                reached[into.index()] = true;
                stack.push(into);
                while let Some(at) = stack.pop() {
                    if let Some((requested, _)) = escape[at.index()] {
                        dependencies.add_far_edge(held, requested);
                    }
                    let start = topology.router_ports(at).start;
                    for port in bits64(routing.minimal_ports(at, dst, draw)) {
                        if let Some(next) = dependencies.next_router(start + port)
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
}

/// Whether the routing function is free of permanent deadlock by its dependency graph
/// ([`dependency_graph`]): acyclic for DOR (Dally and Seitz's condition) and for Duato's escape
/// channels (Duato's condition). Under Disha the adaptive channels may deadlock and are
/// recovered; the answer is then whether the recovery path is acyclic.
pub fn is_deadlock_free(topology: &Topology, routing: &Routing) -> bool {
    deadlock_cycle(topology, routing).is_none()
}

/// A cycle of the dependency graph ([`dependency_graph`]), its channels in order, when the
/// routing function is not free of deadlock by it (see [`is_deadlock_free`]).
pub fn deadlock_cycle(topology: &Topology, routing: &Routing) -> Option<Vec<Channel>> {
    find_cycle(&dependency_graph(topology, routing))
}

/// A cycle of the dependency graph of a topology file's routes (their packets can deadlock),
/// its switch-to-switch channels in order as `SWITCH.PORT`; with `adaptive`, of every port the
/// routes list.
pub fn file_cycle(file: &CustomShape, adaptive: bool) -> Option<Vec<String>> {
    // Built ports are numbered as the file's, switch after switch.
    let topology = file.build(1, 1);
    let routing = Routing::Table(TableRouting::new(file, &topology, 1, adaptive));
    let cycle = deadlock_cycle(&topology, &routing)?;
    Some(
        cycle
            .into_iter()
            .map(|(port, _)| file.channel_name(port))
            .collect(),
    )
}

/// Whether `graph` has a directed cycle.
pub fn has_cycle<N: NodeTrait>(graph: &DiGraphMap<N, ()>) -> bool {
    find_cycle(graph).is_some()
}

/// A directed cycle of `graph`, its vertices in order, if it has one. By Kahn's algorithm:
/// vertices without predecessors are taken away until none is left (acyclic) or every
/// remaining vertex has a remaining predecessor, so that walking back from any of them must
/// close a cycle. Iterative, so a graph as deep as a line of 100,000 switches does not exhaust
/// the stack as a recursive search would.
pub fn find_cycle<N: NodeTrait>(graph: &DiGraphMap<N, ()>) -> Option<Vec<N>> {
    let mut waiting: FxHashMap<N, usize> = graph
        .nodes()
        .map(|n| (n, graph.neighbors_directed(n, Direction::Incoming).count()))
        .collect();
    // In the graph's own order, so that the cycle reported does not depend on hashing.
    let mut free: Vec<N> = graph.nodes().filter(|n| waiting[n] == 0).collect();
    while let Some(n) = free.pop() {
        waiting.remove(&n);
        for next in graph.neighbors_directed(n, Direction::Outgoing) {
            let count = waiting
                .get_mut(&next)
                .expect("every remaining vertex is counted");
            *count -= 1;
            if *count == 0 {
                free.push(next);
            }
        }
    }
    let start = graph.nodes().find(|n| waiting.contains_key(n))?;
    // Walk back through remaining predecessors until a vertex repeats.
    let mut path = vec![start];
    let mut position: FxHashMap<N, usize> = FxHashMap::default();
    position.insert(start, 0);
    loop {
        let at = *path.last().expect("the path starts with a vertex");
        let before = graph
            .neighbors_directed(at, Direction::Incoming)
            .find(|p| waiting.contains_key(p))
            .expect("a remaining vertex has a remaining predecessor");
        if let Some(&i) = position.get(&before) {
            let mut cycle = path.split_off(i);
            cycle.reverse();
            return Some(cycle);
        }
        position.insert(before, path.len());
        path.push(before);
    }
}
