//! Static analysis of a network under a routing function and traffic pattern: channel loads and
//! the ideal throughput they bound, mean hop count, the channel dependency graph, and what each
//! analysis costs.

mod closed_form;
mod dependencies;
mod load;
mod work;

pub use closed_form::{ClosedForm, closed_forms};
pub use dependencies::{
    Channel, deadlock_cycle, dependency_graph, file_cycle, find_cycle, has_cycle, is_deadlock_free,
};
pub use load::{ChannelLoad, channel_load, port_loads};
pub use work::{channel_load_steps, dependency_graph_steps};

use crate::config::{Config, FabricConfig, Switching};
use crate::ids::PortId;
use crate::topology::{Link, Topology};

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
        self.latency_over(hops, hops * self.link, flits)
    }

    /// The latency of a `flits`-flit packet crossing `hops` router-to-router channels whose
    /// latencies add up to `link_cycles` (channels of several latencies, as a dragonfly's).
    pub fn latency_over(&self, hops: f64, link_cycles: f64, flits: u32) -> f64 {
        let serialization = f64::from(flits - 1) * self.slowest;
        let stores = if self.store_and_forward {
            hops + 1.0
        } else {
            0.0
        };
        self.ends + (hops + 1.0) * self.per_router + link_cycles + (1.0 + stores) * serialization
    }
}

/// The fewest links (router-to-router channels; the two channels of a bidirectional link count
/// once) whose removal separates the first half of the nodes from the second, each node with
/// the routers it injects into and ejects from: the bisection the natural node halves see, by
/// max-flow/min-cut. `None` with fewer than two nodes or when a router holds nodes of both
/// halves.
pub fn bisection_links(topology: &Topology) -> Option<usize> {
    bisection_links_within(topology, u64::MAX).unwrap_or_else(|_| unreachable!("no budget"))
}

/// An analysis given up once it had taken more steps than it was allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverBudget {
    /// Steps taken when it gave up.
    pub steps: u64,
}

/// As [`bisection_links`], giving up once its searches have scanned more than `max_steps`
/// arcs (each augmenting path costs a breadth-first search of the network).
pub fn bisection_links_within(
    topology: &Topology,
    max_steps: u64,
) -> Result<Option<usize>, OverBudget> {
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
                    Some(s) if s != left => return Ok(None),
                    _ => side[port.router.index()] = Some(left),
                }
            }
        }
    }
    if nodes < 2 {
        return Ok(None);
    }
    for (r, s) in side.iter().enumerate() {
        match s {
            Some(true) => arc(source, r, usize::MAX / 2, 0),
            Some(false) => arc(r, sink, usize::MAX / 2, 0),
            None => {}
        }
    }
    let mut flow = 0;
    let mut steps = 0u64;
    let mut via = vec![usize::MAX; routers + 2];
    loop {
        // Breadth-first search for an augmenting path of unit capacity.
        via.fill(usize::MAX);
        steps += via.len() as u64;
        let mut queue = std::collections::VecDeque::from([source]);
        while let Some(v) = queue.pop_front() {
            steps += out[v].len() as u64;
            if steps > max_steps {
                return Err(OverBudget { steps });
            }
            for &a in &out[v] {
                let w = head[a];
                if cap[a] > 0 && w != source && via[w] == usize::MAX {
                    via[w] = a;
                    queue.push_back(w);
                }
            }
        }
        if via[sink] == usize::MAX {
            return Ok(Some(flow));
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
