//! What a simulation allocates, estimated from the configuration before anything is built, so
//! that a run too large for the machine is refused up front instead of failing halfway.
//!
//! The coefficients were measured (peak heap, by a counting allocator and by Valgrind's
//! massif) on tori, meshes, fat trees, butterflies, topology files and the buffered switch at
//! light load; a test holds the estimate within 30 % of what runs allocate.

use crate::config::{Config, FabricConfig, QueueKind};

/// Bytes for the engine's fixed structures (statistics, histograms, wheels).
const FIXED: f64 = 200e3;
/// Bytes per node: its NIC, traffic source, random streams and statistics.
const PER_NODE: f64 = 1_320.0;
/// Bytes per router port besides its buffers.
const PER_PORT: f64 = 8.0;
/// Bytes per input virtual channel (or buffered lane) besides its flit slots.
const PER_VC: f64 = 42.0;
/// Bytes per flit slot of a virtual-channel router's input buffers.
const PER_FLIT_SLOT: f64 = 5.6;
/// Extra bytes per port of the buffered (InfiniBand-style) switch: its queues and arbiters.
const PER_BUFFERED_PORT: f64 = 620.0;
/// Bytes per (port, destination) queue of VOQnet.
const PER_VOQNET_QUEUE: f64 = 16.0;
/// Bytes per (switch, node) entry of a topology file's routes while they are checked.
const PER_ROUTE_ENTRY: f64 = 9.0;

/// Estimated bytes a run of `cfg` allocates at light load. Past saturation a run also holds
/// the packets waiting in unbounded source queues (`nic.source_queue_packets` bounds them).
pub fn estimated_bytes(cfg: &Config) -> f64 {
    let layout = &cfg.topology.layout;
    let nodes = layout.nodes() as f64;
    let (routers, ports) = layout.size();
    let (routers, ports) = (routers as f64, ports as f64);
    let vcs = ports * f64::from(cfg.router.vcs);
    let mut bytes = FIXED + PER_NODE * nodes + PER_PORT * ports + PER_VC * vcs;
    match &cfg.fabric {
        FabricConfig::Vc => bytes += PER_FLIT_SLOT * vcs * f64::from(cfg.router.vc_buffer_flits),
        FabricConfig::Buffered(buffered) => {
            bytes += PER_BUFFERED_PORT * ports;
            if buffered.queues == QueueKind::VoqNet {
                bytes += PER_VOQNET_QUEUE * ports * nodes;
            }
        }
    }
    if let crate::topology::Layout::File(_) = layout {
        bytes += PER_ROUTE_ENTRY * routers * nodes;
    }
    bytes
}
