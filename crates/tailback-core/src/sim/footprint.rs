//! What a simulation allocates, estimated from the configuration before anything is built, so
//! that a run too large for the machine is refused up front instead of failing halfway.
//!
//! The coefficients were measured (peak heap, by a counting allocator and by Valgrind's
//! massif) on tori, meshes, fat trees, butterflies, topology files and the buffered switch
//! (every queue scheme, with and without InfiniBand congestion control) at light load; a test
//! holds the estimate within 30 % of what runs allocate.
//!
//! Nothing grows with the square of the nodes unless the configuration asks for it (VOQnet's
//! queue per port and destination, a topology file's routes): adapters keep a queue only for
//! destinations with packets waiting, InfiniBand congestion control keeps a queue pair's
//! state only while it differs from a fresh one, and a CAM line of isolation keeps its
//! destinations only while claimed.

use crate::config::CongestionConfig;
use crate::config::{Config, FabricConfig, NicQueues, QueueKind};

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
/// Extra bytes per input lane of the buffered (InfiniBand-style) switch: its pool, credits,
/// arbiters and wiring, besides its queues.
const PER_BUFFERED_LANE: f64 = 109.0;
/// Bytes per queue of a buffered switch's input lane (its list and ready-list link).
const PER_QUEUE: f64 = 12.0;
/// Bytes per (input lane, output port) of a buffered switch: the ready lists.
const PER_READY_LIST: f64 = 8.0;
/// Bytes per (input lane, destination) of VOQnet besides its queue: the room reserved.
const PER_VOQNET_ROOM: f64 = 4.0;
/// Bytes per CAM line of an input lane with isolation (`nfq_cfq`, `voq_hpq`): the line (its
/// destinations and the upstream copy's are kept only while claimed, few at light load).
const PER_CAM_LINE: f64 = 12.0;
/// Bytes per input lane with isolation besides its lines: the masks of copies in use and
/// stopped.
const PER_CAM_LANE: f64 = 32.0;
/// Bytes per input lane with InfiniBand congestion control on buffered switches (the Port VL
/// state), and per (input lane, output port) (the blocks queued for each output).
const PER_IB_CC_LANE: f64 = 79.0;
const PER_IB_CC_READY: f64 = 4.0;
/// Bytes per node of adapters with a queue per destination (`nic.queues = "per_destination"`):
/// the queues of the destinations with packets waiting, at light load.
const PER_QUEUE_PAIRS: f64 = 330.0;
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
            // The widest switch, taken as the mean rounded up (the stride of per-output state).
            let max_ports = (ports / routers.max(1.0)).ceil();
            let isolating = buffered
                .isolation
                .as_ref()
                .map_or(0.0, |i| f64::from(i.isolating_queues()));
            let (queues, lines) = match buffered.queues {
                QueueKind::Voq => (max_ports, 0.0),
                QueueKind::Fifo => (1.0, 0.0),
                QueueKind::VoqNet => (nodes, 0.0),
                QueueKind::NfqCfq => (1.0 + isolating, isolating),
                QueueKind::VoqHpq => (max_ports + isolating, max_ports + isolating),
            };
            let mut lane = PER_BUFFERED_LANE + PER_QUEUE * queues + PER_READY_LIST * max_ports;
            if buffered.queues == QueueKind::VoqNet {
                lane += PER_VOQNET_ROOM * nodes;
            }
            if lines > 0.0 {
                lane += PER_CAM_LANE + PER_CAM_LINE * lines;
            }
            if let CongestionConfig::IbCc(_) | CongestionConfig::Qcn(_) = cfg.congestion {
                lane += PER_IB_CC_LANE + PER_IB_CC_READY * max_ports;
            }
            bytes += lane * vcs;
        }
    }
    if cfg.nic.queues == NicQueues::PerDestination {
        bytes += PER_QUEUE_PAIRS * nodes;
    }
    if let crate::topology::Layout::File(_) = layout {
        bytes += PER_ROUTE_ENTRY * routers * nodes;
    }
    bytes
}
