//! Routing functions: given a head flit's router, source, destination and VC class, the output
//! port and the set of VCs it may use there.

mod dor;

pub use dor::{Dor, Hop};

use crate::config::{Config, RoutingAlgorithm, RoutingConfig, TopologyConfig, TopologyKind};
use crate::ids::{NodeId, PortId, RouterId};
use crate::topology::{Link, Topology};

/// A built routing function.
#[derive(Debug, Clone)]
pub enum Routing {
    /// Dimension-order routing.
    Dor(Dor),
}

impl Routing {
    /// Builds the routing function a (valid) config describes.
    pub fn from_config(cfg: &Config, topology: &Topology) -> Routing {
        match cfg.routing.algorithm {
            RoutingAlgorithm::Dor => {
                Routing::Dor(Dor::new(topology.shape(), &cfg.routing, cfg.router.vcs))
            }
        }
    }

    /// The next hop of a packet from `src` to `dst` whose head is at `router` in VC `class`.
    #[inline]
    pub fn route(&self, router: RouterId, src: NodeId, dst: NodeId, class: u8) -> Hop {
        match self {
            Routing::Dor(dor) => dor.route(router.index(), src.index(), dst.index(), class),
        }
    }

    /// Number of VC classes the routing function uses.
    pub fn classes(&self) -> usize {
        match self {
            Routing::Dor(dor) => dor.classes(),
        }
    }

    /// Calls `visit(output port, class)` for every output port a packet from `src` to `dst`
    /// takes, the final ejection port included.
    pub fn walk(
        &self,
        topology: &Topology,
        src: NodeId,
        dst: NodeId,
        mut visit: impl FnMut(PortId, u8),
    ) {
        let mut router = topology.ports()[topology.node_port(src).index()].router;
        let mut class = 0;
        // A minimal route never visits more routers than exist.
        for _ in 0..=topology.router_count() {
            let hop = self.route(router, src, dst, class);
            let port = PortId::new(topology.router_ports(router).start + hop.port as usize);
            visit(port, hop.class);
            match topology.ports()[port.index()].output {
                Link::Router(next) => {
                    router = topology.ports()[next.index()].router;
                    class = hop.class;
                }
                Link::Node(_) => return,
                Link::None => panic!("routing chose unconnected port {port} towards node {dst}"),
            }
        }
        panic!("route from node {src} to node {dst} does not terminate");
    }
}

/// Number of VC classes the configured routing needs (checked against `router.vcs`).
pub(crate) fn vc_classes_needed(topology: &TopologyConfig, routing: &RoutingConfig) -> usize {
    dor::classes_needed(
        &topology.dims,
        topology.kind == TopologyKind::Torus,
        routing,
    )
}

/// A phrase naming the configured VC class scheme, for messages.
pub(crate) fn vc_scheme_description(topology: &TopologyConfig, routing: &RoutingConfig) -> String {
    match (&routing.datelines, topology.kind) {
        (_, TopologyKind::Mesh) => "dimension-order routing on a mesh".into(),
        (None, TopologyKind::Torus) => {
            "default dateline scheme (upper VC class for a dimension whose route wraps)".into()
        }
        (Some(lines), TopologyKind::Torus) => {
            format!("dateline scheme with datelines at {lines:?} (one more VC class per crossing)")
        }
    }
}
