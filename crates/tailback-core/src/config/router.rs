//! `[router]`: the input-queued virtual-channel router.

use serde::Serialize;

use super::reader::{Section, choice_enum};
use super::{MAX_LATENCY, MAX_VCS, is_one};

choice_enum! {
    /// Flow control of router buffers.
    pub enum Switching {
        /// Per-flit credits; a packet may span several routers.
        Wormhole = "wormhole",
        /// A VC is granted only when the downstream buffer has room for the whole packet.
        VirtualCutThrough = "virtual_cut_through",
        /// Like virtual cut-through, and a packet leaves a router only once all of it has
        /// arrived there.
        StoreAndForward = "store_and_forward",
    }
}

impl Switching {
    /// Whether an output VC is granted only with room downstream for the whole packet.
    pub fn whole_packets(self) -> bool {
        self != Switching::Wormhole
    }
}

choice_enum! {
    /// Switch allocator.
    pub enum AllocatorKind {
        /// Separable input-first allocation with round-robin arbiters.
        Separable = "separable",
        /// iSLIP: iterative request/grant/accept with round-robin pointers.
        Islip = "islip",
    }
}

/// `[router]`: the input-queued virtual-channel router.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RouterConfig {
    /// Virtual channels per port.
    pub vcs: u32,
    /// Flits per VC buffer.
    pub vc_buffer_flits: u32,
    /// Wormhole or virtual cut-through.
    pub switching: Switching,
    /// Switch allocator.
    pub allocator: AllocatorKind,
    /// iSLIP iterations per cycle (present only with the iSLIP allocator).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub islip_iterations: Option<u32>,
    /// Cycles from a head flit reaching the front of its VC to its route being known.
    pub routing_delay: u32,
    /// Cycles from winning VC allocation to being eligible for switch allocation.
    pub vc_alloc_delay: u32,
    /// Cycles from winning switch allocation to entering the crossbar.
    pub switch_alloc_delay: u32,
    /// Cycles to cross the crossbar.
    pub crossbar_delay: u32,
    /// Cycles for a credit to travel back upstream.
    pub credit_latency: u32,
    /// Logical networks sharing the links: 1, or 2 (request and reply, each with half the
    /// VCs).
    #[serde(skip_serializing_if = "is_one")]
    pub logical_networks: u32,
    /// How two logical networks share a link (present with two networks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multiplexing: Option<Multiplexing>,
}

choice_enum! {
    /// How the request and reply networks share the physical links.
    pub enum Multiplexing {
        /// Either network's flits may use any cycle (VC and switch arbitration decide).
        Demand = "demand",
        /// Request flits cross links in even cycles, reply flits in odd ones.
        Time = "time",
    }
}

impl RouterConfig {
    /// VCs of each logical network.
    pub fn network_vcs(&self) -> u32 {
        self.vcs / self.logical_networks
    }

    /// The VC masks of the request and reply networks: all VCs and none with one network, the
    /// lower and upper halves with two.
    pub fn network_vc_masks(&self) -> [u32; 2] {
        let per = self.network_vcs();
        let low = if per >= 32 {
            u32::MAX
        } else {
            (1u32 << per) - 1
        };
        let reply = if self.logical_networks == 2 {
            low << per
        } else {
            0
        };
        [low, reply]
    }

    pub(crate) fn read(s: Section<'_>) -> Self {
        let allocator = s.choice("allocator", AllocatorKind::Separable);
        if s.has("islip_iterations") && allocator != AllocatorKind::Islip {
            s.problem(
                "islip_iterations",
                "only applies when router.allocator = \"islip\"",
            );
        }
        let logical_networks = s.int("logical_networks", 1, 1, 2);
        if s.has("multiplexing") && logical_networks == 1 {
            s.problem(
                "multiplexing",
                "only applies when router.logical_networks = 2",
            );
        }
        let cfg = RouterConfig {
            vcs: s.int("vcs", 4, 1, MAX_VCS),
            vc_buffer_flits: s.int("vc_buffer_flits", 8, 1, 4096),
            switching: s.choice("switching", Switching::Wormhole),
            allocator,
            islip_iterations: Some(s.int("islip_iterations", 1, 1, 16))
                .filter(|_| allocator == AllocatorKind::Islip),
            routing_delay: s.int("routing_delay", 1, 0, 64),
            vc_alloc_delay: s.int("vc_alloc_delay", 1, 0, 64),
            switch_alloc_delay: s.int("switch_alloc_delay", 1, 0, 64),
            crossbar_delay: s.int("crossbar_delay", 1, 0, 64),
            credit_latency: s.int("credit_latency", 1, 1, MAX_LATENCY),
            logical_networks,
            multiplexing: Some(s.choice("multiplexing", Multiplexing::Demand))
                .filter(|_| logical_networks == 2),
        };
        if !cfg.vcs.is_multiple_of(cfg.logical_networks) {
            s.problem(
                "vcs",
                format!(
                    "must split evenly between the {} logical networks",
                    cfg.logical_networks
                ),
            );
        }
        s.finish();
        cfg
    }
}
