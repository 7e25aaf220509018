//! `[fabric]`: which switch model carries the packets.

use serde::Serialize;

use super::MAX_LATENCY;
use super::reader::{Section, choice_enum};
use super::units::{ROCEV2_OVERHEAD_BYTES, Units, read_rate};

choice_enum! {
    /// The switch model.
    pub enum FabricKind {
        /// Input-queued virtual-channel routers (`[router]`), flit by flit.
        Vc = "vc",
        /// InfiniBand-style buffered switches: per input port and virtual lane one shared pool
        /// of blocks, sorted into queues by a queue scheme; virtual cut-through.
        Buffered = "buffered",
    }
}

choice_enum! {
    /// How a buffered switch sorts the packets of one input pool into queues.
    pub enum QueueKind {
        /// A virtual output queue per output port (the InfiniBand switch).
        Voq = "voq",
        /// One first-in first-out queue (head-of-line blocking).
        Fifo = "fifo",
        /// A queue per destination node with room of its own, respected upstream (VOQnet).
        VoqNet = "voqnet",
        /// A normal flow queue and a few congested-flow queues claimed for congestion trees
        /// as they are detected, with a control plane between neighbours (FBICM; CCFIT with
        /// InfiniBand congestion control): `[fabric.isolation]`.
        NfqCfq = "nfq_cfq",
        /// A virtual output queue per output and a few hot-packet queues claimed for
        /// congestion trees, whose roots the output queues detect exactly (HFDI; EcoCC with
        /// InfiniBand congestion control): `[fabric.isolation]`.
        VoqHpq = "voq_hpq",
    }
}

choice_enum! {
    /// How a buffered switch keeps its input pools from overflowing.
    pub enum FlowControl {
        /// InfiniBand's credits: a sender starts a packet only with credits for all its blocks.
        Credits = "credits",
        /// Ethernet's priority flow control (IEEE 802.1Qbb): a pool past its XOFF threshold
        /// sends its sender a PAUSE, and a RESUME once back at XON (`[fabric.pfc]`).
        Pfc = "pfc",
    }
}

choice_enum! {
    /// When a congested-flow queue tells the sender upstream of its tree.
    pub enum Propagate {
        /// As soon as it is claimed.
        OnAllocate = "on_allocate",
        /// When it first passes the Stop threshold.
        OnStop = "on_stop",
    }
}

choice_enum! {
    /// Which packet at the head of a normal queue over the detection threshold names a tree.
    pub enum Detection {
        /// The head packet, if its output holds it back (busy, or without credits for it): an
        /// output that could take it is not congested.
        BlockedHead = "blocked_head",
        /// The head packet, whatever its output is doing.
        Head = "head",
    }
}

choice_enum! {
    /// How an isolating switch's output chooses, at one input, between its normal queue and
    /// the isolating queues (CFQs or HPQs) whose heads it could start.
    #[derive(Default)]
    pub enum Arbitration {
        /// In the order the queues became ready: a queue served goes to the back when its
        /// next packet comes up (FBICM's, CCFIT's and EcoCC's papers say no more).
        #[default]
        ReadyOrder = "ready_order",
        /// The normal queue whenever it can send, isolating queues only when it cannot: no
        /// head-of-line blocking from isolated trees, which may starve.
        NormalFirst = "normal_first",
        /// The normal queue and the isolating queues take turns, one packet each (ours).
        RoundRobin = "round_robin",
        /// Isolating queues get the share of turns their tree drains at its root: each root
        /// line measures the blocks its queue sent per `rate_interval` over what its output
        /// could send and tells the tree upstream, branch by branch (ours).
        RootWeighted = "root_weighted",
    }
}

choice_enum! {
    /// Under routing that chooses among output ports (`adaptive_up`, `adaptive`), how a packet
    /// whose destination a congestion tree downstream lists is routed.
    #[derive(Default)]
    pub enum TreeRouting {
        /// As any other packet: the routing's choice, whatever trees lie downstream (naive
        /// adaptivity; a tree's packets may spread over every port).
        #[default]
        Free = "free",
        /// Along a known tree: among its candidate ports, only those whose downstream CAM
        /// lists its destination (congestion-aware adaptive routing, ours).
        Follow = "follow",
        /// Along the deterministic route: a packet whose destination a tree downstream of any
        /// candidate port lists takes the routing's deterministic port (`d_mod_k`'s), so that
        /// its tree gathers on the deterministic tree (ours).
        Deterministic = "deterministic",
    }
}

choice_enum! {
    /// Which congestion trees downstream `tree_routing` heeds, by where their root is.
    #[derive(Default)]
    pub enum TreeRoots {
        /// Every tree told upstream, wherever its root.
        #[default]
        Any = "any",
        /// Only trees rooted at an adapter's link (a destination's own link: congestion no
        /// route avoids), not trees rooted at a link between switches, which a detour may
        /// avoid (ours).
        Endpoint = "endpoint",
    }
}

/// Blocks of a 2048-byte packet, the unit the isolation defaults are given in.
const MTU_BLOCKS: u32 = 32;

/// `[fabric.isolation]`: congested-flow isolation (`queues = "nfq_cfq"` or `"voq_hpq"`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IsolationConfig {
    /// The queues that isolate trees and their thresholds.
    #[serde(flatten)]
    pub queues: IsolatingQueues,
    /// Destinations one CAM line may hold.
    pub cam_destinations: u32,
    /// Cycles a control message takes beyond the link's latency.
    pub control_delay: u32,
    /// Whether a control message takes a block's time on the link it crosses (otherwise it
    /// travels out of band).
    pub control_in_band: bool,
    /// How an output chooses between an input's normal and isolating queues.
    #[serde(skip_serializing_if = "super::is_default")]
    pub arbitration: Arbitration,
    /// `root_weighted`: cycles over which a root line measures its drain rate (`None` for
    /// the other policies).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_interval: Option<u32>,
    /// Under port-choosing routing, how packets of a known tree are routed.
    #[serde(skip_serializing_if = "super::is_default")]
    pub tree_routing: TreeRouting,
    /// Which trees `tree_routing` heeds.
    #[serde(skip_serializing_if = "super::is_default")]
    pub tree_roots: TreeRoots,
}

/// The queues that isolate congestion trees, by queue scheme.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum IsolatingQueues {
    /// `nfq_cfq` (FBICM, CCFIT): congested-flow queues beside one normal queue.
    Cfqs {
        /// Congested-flow queues (and CAM lines) per input pool.
        cfqs: u32,
        /// A normal queue holding more blocks than this after an arrival declares congestion
        /// at the output its head packet asks for.
        detect_blocks: u32,
        /// Which head packet names the tree.
        detection: Detection,
        /// A congested-flow queue above this many blocks stops its tree's queue upstream...
        stop_blocks: u32,
        /// ...and lets it go again below this many.
        go_blocks: u32,
        /// When a queue tells its upstream neighbour of its tree.
        propagate: Propagate,
    },
    /// `voq_hpq` (HFDI, EcoCC): hot-packet queues beside a virtual output queue per output.
    Hpqs {
        /// Hot-packet queues per input pool.
        hpqs: u32,
        /// A queue above this many blocks: a virtual output queue detects its output as a
        /// root; a queue that has told upstream stops its tree there (HTh)...
        high_blocks: u32,
        /// ...and lets it go below this many, where a root also stops marking (LTh).
        low_blocks: u32,
        /// Whether a virtual output queue names its output a root only while that output
        /// has credits downstream or faces an adapter (InfiniBand's root test; Paper VI does
        /// not say, so off by default): a queue filled by backpressure alone claims nothing.
        root_needs_credits: bool,
    },
}

impl IsolationConfig {
    /// Most destinations a CAM line can hold.
    pub const MAX_DESTINATIONS: u32 = 32;

    /// `root_weighted`'s default measuring interval: ten 2048-byte packets' time, in cycles.
    pub const DEFAULT_RATE_INTERVAL: u32 = 10 * MTU_BLOCKS;

    /// Queues per input pool that isolate trees (CFQs or HPQs).
    pub fn isolating_queues(&self) -> u32 {
        match self.queues {
            IsolatingQueues::Cfqs { cfqs, .. } => cfqs,
            IsolatingQueues::Hpqs { hpqs, .. } => hpqs,
        }
    }

    /// The threshold above which a queue stops its tree upstream, and the one below which it
    /// lets it go.
    pub fn stop_go(&self) -> (u32, u32) {
        match self.queues {
            IsolatingQueues::Cfqs {
                stop_blocks,
                go_blocks,
                ..
            } => (stop_blocks, go_blocks),
            IsolatingQueues::Hpqs {
                high_blocks,
                low_blocks,
                ..
            } => (high_blocks, low_blocks),
        }
    }

    fn read(s: Section<'_>, units: Option<Units>, kind: QueueKind) -> IsolationConfig {
        const CFQ_KEYS: [&str; 6] = [
            "cfqs",
            "detect_blocks",
            "detection",
            "stop_blocks",
            "go_blocks",
            "propagate",
        ];
        const HPQ_KEYS: [&str; 4] = ["hpqs", "high_blocks", "low_blocks", "root_needs_credits"];
        let hpq = kind == QueueKind::VoqHpq;
        let (others, other_kind) = if hpq {
            (&CFQ_KEYS[..], "nfq_cfq")
        } else {
            (&HPQ_KEYS[..], "voq_hpq")
        };
        for &key in others {
            if s.value(key).is_some() {
                s.problem(
                    key,
                    format!("only applies when fabric.queues = \"{other_kind}\""),
                );
            }
        }
        let queues = if hpq {
            IsolatingQueues::Hpqs {
                hpqs: s.int("hpqs", 2, 1, 8),
                high_blocks: s.int("high_blocks", 4 * MTU_BLOCKS, 1, 1 << 20),
                low_blocks: s.int("low_blocks", 2 * MTU_BLOCKS, 0, 1 << 20),
                root_needs_credits: s.boolean("root_needs_credits", false),
            }
        } else {
            IsolatingQueues::Cfqs {
                cfqs: s.int("cfqs", 2, 1, 8),
                detect_blocks: s.int("detect_blocks", 8 * MTU_BLOCKS, 1, 1 << 20),
                detection: s.choice("detection", Detection::BlockedHead),
                stop_blocks: s.int("stop_blocks", 10 * MTU_BLOCKS, 1, 1 << 20),
                go_blocks: s.int("go_blocks", 4 * MTU_BLOCKS, 0, 1 << 20),
                propagate: s.choice("propagate", Propagate::OnAllocate),
            }
        };
        let arbitration = s.choice("arbitration", Arbitration::ReadyOrder);
        let rate_interval = if arbitration == Arbitration::RootWeighted {
            Some(s.duration(
                "rate_interval",
                "rate_interval_ns",
                u64::from(Self::DEFAULT_RATE_INTERVAL),
                (1, u64::from(MAX_LATENCY)),
                units,
            ) as u32)
        } else {
            for key in ["rate_interval", "rate_interval_ns"] {
                if s.value(key).is_some() {
                    s.problem(key, "only applies when arbitration = \"root_weighted\"");
                }
            }
            None
        };
        let cfg = IsolationConfig {
            queues,
            cam_destinations: s.int("cam_destinations", 8, 1, Self::MAX_DESTINATIONS),
            control_delay: s.duration(
                "control_delay",
                "control_delay_ns",
                0,
                (0, u64::from(MAX_LATENCY)),
                units,
            ) as u32,
            control_in_band: s.boolean("control_in_band", false),
            arbitration,
            rate_interval,
            tree_routing: s.choice("tree_routing", TreeRouting::Free),
            tree_roots: s.choice("tree_roots", TreeRoots::Any),
        };
        let (high, low) = cfg.stop_go();
        if low >= high {
            let (high_key, low_key) = if hpq {
                ("high_blocks", "low_blocks")
            } else {
                ("stop_blocks", "go_blocks")
            };
            s.problem(
                low_key,
                format!(
                    "must be below {high_key} ({high}): a stopped queue must be able to go again"
                ),
            );
        }
        s.finish();
        cfg
    }
}

/// `[fabric]`: the switch model, with the settings of the buffered switch.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(tag = "kind")]
pub enum FabricConfig {
    /// The virtual-channel routers of `[router]`.
    #[default]
    #[serde(rename = "vc")]
    Vc,
    /// Buffered switches.
    #[serde(rename = "buffered")]
    Buffered(BufferedConfig),
}

/// The buffered switch's settings. Its virtual lanes are `router.vcs`, the blocks of each input
/// pool `router.vc_buffer_flits` (a flit is one block) and its credits return after
/// `router.credit_latency`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BufferedConfig {
    /// Queue scheme of the input pools.
    pub queues: QueueKind,
    /// Packets an input port may send at once, to different outputs (`None`: no limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_ports: Option<u32>,
    /// Cycles from a packet's head arriving to the earliest cycle it may leave.
    pub switch_latency: u32,
    /// Blocks each destination's queue may hold (`voqnet` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub voqnet_queue_blocks: Option<u32>,
    /// iSLIP iterations per cycle for switches with a single read port (`None`: each output
    /// picks on its own, round robin).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub islip_iterations: Option<u32>,
    /// Congested-flow isolation (`nfq_cfq` and `voq_hpq` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub isolation: Option<IsolationConfig>,
    /// Data rate of the fastest links in Gbit/s, which fixes the time unit (`None`: times and
    /// rates in cycles and blocks only). Written as its key, `link`.
    #[serde(rename = "link", skip_serializing_if = "Option::is_none")]
    pub link_gbps: Option<f64>,
    /// How the input pools are kept from overflowing.
    #[serde(skip_serializing_if = "FlowControl::is_credits")]
    pub flow_control: FlowControl,
    /// Priority flow control's thresholds (with `flow_control = "pfc"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pfc: Option<PfcConfig>,
    /// Bytes each packet carries on the wire besides its payload (with `link`; `None`: RoCEv2's
    /// [`ROCEV2_OVERHEAD_BYTES`]), counted when packet sizes are given in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_overhead_bytes: Option<u32>,
}

/// `[fabric.pfc]`: when an input pool pauses its sender and resumes it, per input port and
/// lane; left out, the largest XOFF the headroom leaves and XON two packets below it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct PfcConfig {
    /// Blocks in the pool at or above which it sends a PAUSE.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xoff_blocks: Option<u32>,
    /// Blocks in the pool at or below which a paused sender gets a RESUME.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xon_blocks: Option<u32>,
}

impl PfcConfig {
    fn read(s: Section<'_>) -> PfcConfig {
        let cfg = PfcConfig {
            xoff_blocks: s.opt_int("xoff_blocks", 1, 1 << 20),
            xon_blocks: s.opt_int("xon_blocks", 0, 1 << 20),
        };
        s.finish();
        cfg
    }
}

impl FlowControl {
    fn is_credits(&self) -> bool {
        *self == FlowControl::Credits
    }
}

impl FabricConfig {
    /// Which switch model.
    pub fn kind(&self) -> FabricKind {
        match self {
            FabricConfig::Vc => FabricKind::Vc,
            FabricConfig::Buffered(_) => FabricKind::Buffered,
        }
    }

    /// The time and rate units, when `link` sets them.
    pub fn units(&self) -> Option<Units> {
        match self {
            FabricConfig::Buffered(BufferedConfig {
                link_gbps: Some(gbps),
                ..
            }) => Some(Units::new(*gbps)),
            _ => None,
        }
    }

    /// Bytes of framing per packet beside its payload, when `link` sets the units.
    pub fn frame_overhead(&self) -> Option<u32> {
        match self {
            FabricConfig::Buffered(b) if b.link_gbps.is_some() => {
                Some(b.frame_overhead_bytes.unwrap_or(ROCEV2_OVERHEAD_BYTES))
            }
            _ => None,
        }
    }

    /// Whether this is the default fabric (left out of serialized configs).
    pub(crate) fn is_default(&self) -> bool {
        *self == FabricConfig::Vc
    }

    /// Reads `[fabric]`, and the cycles of `cable_ns` (a time needing `link`), which the
    /// caller applies to the links.
    pub(crate) fn read(s: Section<'_>) -> (Self, Option<u32>) {
        let kind = s.choice("kind", FabricKind::Vc);
        const BUFFERED_KEYS: [&str; 12] = [
            "queues",
            "voqnet_queue_blocks",
            "isolation",
            "read_ports",
            "islip_iterations",
            "switch_latency",
            "switch_latency_ns",
            "link",
            "frame_overhead_bytes",
            "cable_ns",
            "flow_control",
            "pfc",
        ];
        let mut cable = None;
        let cfg = match kind {
            FabricKind::Vc => {
                // Known keys, reported once as misplaced (not also as unknown).
                for key in BUFFERED_KEYS {
                    if s.value(key).is_some() {
                        s.problem(key, "only applies when fabric.kind = \"buffered\"");
                    }
                }
                FabricConfig::Vc
            }
            FabricKind::Buffered => {
                let link_gbps = read_rate(&s, "link");
                let units = link_gbps.map(Units::new);
                let latency = (0, u64::from(MAX_LATENCY));
                let read_ports = read_ports(&s);
                let islip_iterations = s.opt_int("islip_iterations", 1, 16);
                if islip_iterations.is_some() && read_ports != Some(1) {
                    s.problem(
                        "islip_iterations",
                        "iSLIP matches each input port to one output: set fabric.read_ports = 1",
                    );
                }
                let queues = s.choice("queues", QueueKind::Voq);
                let voqnet = queues == QueueKind::VoqNet;
                if s.has("voqnet_queue_blocks") && !voqnet {
                    s.problem(
                        "voqnet_queue_blocks",
                        "only applies when fabric.queues = \"voqnet\"",
                    );
                }
                let queue_blocks = s.int("voqnet_queue_blocks", 64, 1, 1 << 20);
                let isolating = matches!(queues, QueueKind::NfqCfq | QueueKind::VoqHpq);
                if s.value("isolation").is_some() && !isolating {
                    s.problem(
                        "isolation",
                        "only applies when fabric.queues = \"nfq_cfq\" or \"voq_hpq\"",
                    );
                }
                let isolation =
                    isolating.then(|| IsolationConfig::read(s.section("isolation"), units, queues));
                let frame_overhead_bytes = s.opt_int("frame_overhead_bytes", 0, 1024);
                if frame_overhead_bytes.is_some() && units.is_none() {
                    s.problem(
                        "frame_overhead_bytes",
                        "counts bytes on a link of known rate: set fabric.link",
                    );
                }
                cable = read_cable(&s, units);
                let flow_control = s.choice("flow_control", FlowControl::Credits);
                let pfc =
                    (flow_control == FlowControl::Pfc).then(|| PfcConfig::read(s.section("pfc")));
                if pfc.is_none() && s.value("pfc").is_some() {
                    s.problem("pfc", "only applies when fabric.flow_control = \"pfc\"");
                }
                FabricConfig::Buffered(BufferedConfig {
                    queues,
                    voqnet_queue_blocks: voqnet.then_some(queue_blocks),
                    isolation,
                    read_ports,
                    islip_iterations,
                    switch_latency: s.duration(
                        "switch_latency",
                        "switch_latency_ns",
                        1,
                        latency,
                        units,
                    ) as u32,
                    link_gbps,
                    flow_control,
                    pfc,
                    frame_overhead_bytes,
                })
            }
        };
        s.finish();
        (cfg, cable)
    }
}

/// `cable_ns`: the cables' delay in cycles of `units` (at least 1), or `None` when not given.
fn read_cable(s: &Section<'_>, units: Option<Units>) -> Option<u32> {
    let ns = s.opt_float("cable_ns", |x| x >= 0.0, "of at least 0")?;
    let Some(units) = units else {
        s.problem(
            "cable_ns",
            "a time needs the time unit: set fabric.link (the cycle is one 64-byte block on \
             the fastest links)",
        );
        return None;
    };
    let cycles = units.cycles(ns).max(1.0);
    if cycles > f64::from(MAX_LATENCY) {
        s.problem(
            "cable_ns",
            format!(
                "is {cycles} cycles of {} ns; must be at most {MAX_LATENCY} cycles",
                units.cycle_ns
            ),
        );
        return None;
    }
    Some(cycles as u32)
}

/// `read_ports`: an integer from 1 to 64, or `"unlimited"` (the default).
fn read_ports(s: &Section<'_>) -> Option<u32> {
    match s.value("read_ports") {
        None => None,
        Some(toml::Value::String(text)) if text == "unlimited" => None,
        Some(toml::Value::Integer(n)) if (1..=64).contains(n) => Some(*n as u32),
        Some(_) => {
            s.problem(
                "read_ports",
                "must be an integer from 1 to 64 or \"unlimited\"",
            );
            None
        }
    }
}
