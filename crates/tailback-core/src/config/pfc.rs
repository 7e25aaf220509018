//! Priority flow control's headroom and thresholds, which depend on the whole configuration:
//! the pools, the cables and the packets.

use serde::Serialize;

use super::{BufferedConfig, Config, FabricConfig};
use crate::topology::Layout;

/// What an input pool must hold beyond XOFF: every block its sender may start before the PAUSE
/// reaches it. The PAUSE crosses the cable back while the blocks already sent cross it forward,
/// at most one block per cycle each way, and the sender finishes the packet it has started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Headroom {
    /// The longest cable (link latency) of the network, cycles.
    pub cable_cycles: u32,
    /// The longest packet, blocks.
    pub packet_blocks: u32,
    /// `2 × cable_cycles + packet_blocks`.
    pub blocks: u32,
}

/// Priority flow control's thresholds per input pool, resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PfcThresholds {
    /// Blocks at or above which a pool pauses its sender.
    pub xoff: u32,
    /// Blocks at or below which it resumes it.
    pub xon: u32,
    /// The headroom above XOFF.
    pub headroom: Headroom,
}

impl Config {
    /// The settings of the buffered fabric running priority flow control.
    fn pfc_fabric(&self) -> Option<&BufferedConfig> {
        match &self.fabric {
            FabricConfig::Buffered(b) if b.pfc.is_some() => Some(b),
            _ => None,
        }
    }

    /// The headroom each input pool needs under priority flow control (`None` without it).
    pub fn pfc_headroom(&self) -> Option<Headroom> {
        self.pfc_fabric()?;
        let topology = match &self.topology.layout {
            Layout::Dragonfly(fly) => fly.local_latency().max(fly.global_latency()),
            Layout::File(shape) => shape.max_latency().max(self.topology.link_latency),
            _ => self.topology.link_latency,
        };
        let cable_cycles = topology
            .max(self.nic.injection_latency)
            .max(self.nic.ejection_latency);
        let packet_blocks = self.traffic.packet_flits;
        Some(Headroom {
            cable_cycles,
            packet_blocks,
            blocks: 2 * cable_cycles + packet_blocks,
        })
    }

    /// XOFF and XON as given, or by default the largest XOFF the headroom leaves and XON two
    /// packets below it (`None` without priority flow control).
    pub fn pfc_thresholds(&self) -> Option<PfcThresholds> {
        let pfc = self.pfc_fabric()?.pfc?;
        let headroom = self.pfc_headroom()?;
        let capacity = self.router.vc_buffer_flits;
        let xoff = pfc
            .xoff_blocks
            .unwrap_or_else(|| capacity.saturating_sub(headroom.blocks).max(1));
        let xon = pfc
            .xon_blocks
            .unwrap_or_else(|| xoff.saturating_sub(2 * headroom.packet_blocks));
        Some(PfcThresholds {
            xoff,
            xon,
            headroom,
        })
    }
}
