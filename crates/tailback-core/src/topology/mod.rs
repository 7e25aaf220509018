//! Network topologies as a generic graph of routers, ports, channels and terminal nodes.
//!
//! Every router port has an input side and an output side. The output side of a port feeds one
//! channel to another router's port (or to a node, for ejection); the input side is fed by one
//! channel. Topology kinds only decide the wiring and the coordinates routing needs.

mod cube;
mod dragonfly;
mod file;
mod fly;
mod hyperx;
mod tree;

pub use cube::CubeShape;
pub use dragonfly::{Arrangement, DragonflyShape};
pub use file::{CustomShape, FileError};
pub use fly::FlyShape;
pub use hyperx::{HyperXShape, ports_per_switch as hyperx_ports};
pub use tree::TreeShape;

use crate::ids::{NodeId, PortId, RouterId};

/// What one side of a port is connected to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// Nothing (a mesh edge).
    None,
    /// A port of another router (its input side for an output link, its output side for an
    /// input link).
    Router(PortId),
    /// A terminal node (injection into the input side, ejection from the output side).
    Node(NodeId),
}

/// One router port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Port {
    /// The router that owns the port.
    pub router: RouterId,
    /// Index of the port within its router.
    pub local: u8,
    /// Where the output side sends flits.
    pub output: Link,
    /// Latency of the output channel in cycles.
    pub output_latency: u32,
    /// Cycles per flit on the output channel (1: a flit every cycle).
    pub output_period: u32,
    /// Where the input side receives flits from.
    pub input: Link,
}

/// The family of a network, with what routing needs to know of its shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// A k-ary n-cube (torus or mesh): one router per node.
    Cube(CubeShape),
    /// A fat tree of switches with the nodes at the leaves.
    Tree(TreeShape),
    /// A butterfly: nodes inject at the first stage and eject at the last.
    Fly(FlyShape),
    /// A topology file: any wiring, with its own routes.
    File(CustomShape),
    /// A dragonfly: groups of all-to-all routers joined by global links.
    Dragonfly(DragonflyShape),
    /// A HyperX: switches linked to all others along each dimension of a grid.
    HyperX(HyperXShape),
}

impl Layout {
    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        match self {
            Layout::Cube(cube) => cube.nodes(),
            Layout::Tree(tree) => tree.nodes(),
            Layout::Fly(fly) => fly.nodes(),
            Layout::File(file) => file.nodes(),
            Layout::Dragonfly(fly) => fly.nodes(),
            Layout::HyperX(x) => x.nodes(),
        }
    }

    /// The grid coordinate patterns see the nodes on: the cube itself; (node in group, group)
    /// on a dragonfly; (terminal, switch coordinates) on a HyperX; a line of nodes otherwise.
    pub fn addresses(&self) -> CubeShape {
        match self {
            Layout::Cube(cube) => cube.clone(),
            Layout::Dragonfly(fly) => CubeShape::new(vec![fly.a() * fly.p(), fly.groups()], false),
            Layout::HyperX(x) => {
                let mut dims = vec![x.terminals()];
                dims.extend_from_slice(x.dims());
                CubeShape::new(dims, false)
            }
            other => CubeShape::new(vec![other.nodes() as u32], false),
        }
    }

    /// Routers and router ports (terminal ports included) the built network has: known
    /// before building it, to estimate what a simulation needs.
    pub fn size(&self) -> (usize, usize) {
        match self {
            Layout::Cube(cube) => (cube.nodes(), cube.nodes() * (2 * cube.n() + 1)),
            Layout::Tree(tree) => tree.size(),
            Layout::Fly(fly) => {
                let switches = fly.stages() as usize * fly.switches_per_stage();
                (switches, switches * fly.ports_per_switch())
            }
            Layout::File(file) => (file.switches(), file.ports()),
            Layout::Dragonfly(fly) => (
                fly.routers(),
                fly.routers() * fly.ports_per_router() as usize,
            ),
            Layout::HyperX(x) => (x.switches(), x.switches() * x.ports_per_switch() as usize),
        }
    }
}

/// The ports of `routers` routers of `width` ports each, not yet wired, their outputs
/// `latency` cycles long.
fn unwired_ports(routers: usize, width: usize, latency: u32) -> Vec<Port> {
    (0..routers * width)
        .map(|i| Port {
            router: RouterId::new(i / width),
            local: (i % width) as u8,
            output: Link::None,
            output_latency: latency,
            output_period: 1,
            input: Link::None,
        })
        .collect()
}

/// Wires node `i` to port `i mod per_router` of router `i / per_router` (both ways, the
/// ejection channel `ejection_latency` long) for every node; returns the injection ports.
fn attach_nodes(
    ports: &mut [Port],
    width: usize,
    per_router: usize,
    nodes: usize,
    ejection_latency: u32,
) -> Vec<PortId> {
    (0..nodes)
        .map(|node| {
            let port = PortId::new(node / per_router * width + node % per_router);
            let side = &mut ports[port.index()];
            side.input = Link::Node(NodeId::new(node));
            side.output = Link::Node(NodeId::new(node));
            side.output_latency = ejection_latency;
            port
        })
        .collect()
}

/// Latency and period of a kind of channel, in cycles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// Cycles from sending a flit to its arrival.
    pub latency: u32,
    /// Cycles per flit (1: a flit every cycle).
    pub period: u32,
}

/// A built network: routers, their ports and channels, and the terminal nodes.
#[derive(Debug, Clone)]
pub struct Topology {
    layout: Layout,
    /// Node addresses as a grid: the cube itself, or a line of nodes for other layouts
    /// (coordinate traffic patterns use it).
    addresses: CubeShape,
    router_first_port: Vec<u32>,
    ports: Vec<Port>,
    injection_port: Vec<PortId>,
    ejection_port: Vec<PortId>,
}

impl Topology {
    /// The network of `layout`, its router-to-router channels timed as `links` (a dragonfly's
    /// latencies are its shape's) and its terminal channels as `terminals` (the ejection
    /// latency); `seed` wires random networks (multibutterflies, random dragonflies).
    pub fn new(layout: &Layout, links: Timing, terminals: Timing, seed: u64) -> Topology {
        let (link, ejection) = (links.latency, terminals.latency);
        let mut topology = match layout {
            Layout::Cube(cube) => cube.clone().build(link, ejection),
            Layout::Tree(tree) => tree.build(link, ejection),
            Layout::Fly(fly) => fly.build(link, ejection, seed),
            Layout::Dragonfly(fly) => fly.build(ejection, seed),
            Layout::HyperX(x) => x.build(link, ejection),
            // The file sets its own link speeds.
            Layout::File(file) => return file.build(link, ejection),
        };
        for port in &mut topology.ports {
            port.output_period = match port.output {
                Link::Node(_) => terminals.period,
                _ => links.period,
            };
        }
        topology
    }

    /// The network's family and shape.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The k-ary n-cube shape (coordinates and port numbering), if the network is one.
    pub fn cube(&self) -> Option<&CubeShape> {
        match &self.layout {
            Layout::Cube(shape) => Some(shape),
            _ => None,
        }
    }

    /// Node addresses as a grid: the cube's coordinates, or one line of nodes.
    pub fn addresses(&self) -> &CubeShape {
        &self.addresses
    }

    /// Number of routers.
    pub fn router_count(&self) -> usize {
        self.router_first_port.len() - 1
    }

    /// Number of terminal nodes.
    pub fn node_count(&self) -> usize {
        self.injection_port.len()
    }

    /// Every port of every router, routers in order.
    pub fn ports(&self) -> &[Port] {
        &self.ports
    }

    /// The ports of one router.
    pub fn router_ports(&self, router: RouterId) -> std::ops::Range<usize> {
        let r = router.index();
        self.router_first_port[r] as usize..self.router_first_port[r + 1] as usize
    }

    /// The largest number of ports on any router.
    pub fn max_ports(&self) -> usize {
        self.router_first_port
            .windows(2)
            .map(|w| (w[1] - w[0]) as usize)
            .max()
            .unwrap_or(0)
    }

    /// Cycles a credit takes back over the channel into router port `port`: the channel's own
    /// latency on a dragonfly (whose local and global channels differ), `credit_latency`
    /// elsewhere and on terminal channels.
    pub fn credit_delay(&self, port: PortId, credit_latency: u32) -> u32 {
        match (&self.layout, self.ports[port.index()].input) {
            (Layout::Dragonfly(_), Link::Router(up)) => self.ports[up.index()].output_latency,
            _ => credit_latency,
        }
    }

    /// The class of the channel out of router port `port`, for utilisation by class:
    /// `"terminal"` to a node, `"local"` or `"global"` between a dragonfly's routers,
    /// `"router"` between other routers (`None` when unconnected).
    pub fn channel_class(&self, port: PortId) -> Option<&'static str> {
        let p = &self.ports[port.index()];
        match (p.output, &self.layout) {
            (Link::None, _) => None,
            (Link::Node(_), _) => Some("terminal"),
            (Link::Router(_), Layout::Dragonfly(fly)) => {
                Some(if u32::from(p.local) >= fly.first_global_port() {
                    "global"
                } else {
                    "local"
                })
            }
            (Link::Router(_), _) => Some("router"),
        }
    }

    /// The longest [`credit_delay`](Self::credit_delay) of any port.
    pub fn max_credit_delay(&self, credit_latency: u32) -> u32 {
        (0..self.ports.len())
            .map(|p| self.credit_delay(PortId::new(p), credit_latency))
            .max()
            .unwrap_or(credit_latency)
    }

    /// The router port a node injects into (its input side is fed by the node).
    pub fn injection_port(&self, node: NodeId) -> PortId {
        self.injection_port[node.index()]
    }

    /// The router port a node ejects from (its output side feeds the node): the injection port,
    /// except in butterflies.
    pub fn ejection_port(&self, node: NodeId) -> PortId {
        self.ejection_port[node.index()]
    }

    /// Assembles a topology; the ejection ports are found from the wiring.
    fn from_parts(
        layout: Layout,
        router_first_port: Vec<u32>,
        ports: Vec<Port>,
        injection_port: Vec<PortId>,
    ) -> Topology {
        let addresses = layout.addresses();
        let mut ejection_port = vec![PortId::new(0); injection_port.len()];
        for (i, port) in ports.iter().enumerate() {
            if let Link::Node(n) = port.output {
                ejection_port[n.index()] = PortId::new(i);
            }
        }
        Topology {
            layout,
            addresses,
            router_first_port,
            ports,
            injection_port,
            ejection_port,
        }
    }

    /// Assembles a topology whose routers all have `width` ports.
    fn from_uniform(
        layout: Layout,
        width: usize,
        ports: Vec<Port>,
        injection_port: Vec<PortId>,
    ) -> Topology {
        let routers = ports.len() / width;
        let router_first_port = (0..=routers).map(|r| (r * width) as u32).collect();
        Topology::from_parts(layout, router_first_port, ports, injection_port)
    }

    /// Number of router-to-router channels.
    pub fn channel_count(&self) -> usize {
        self.ports
            .iter()
            .filter(|p| matches!(p.output, Link::Router(_)))
            .count()
    }
}
