//! `[processor]`: the processor behind each network interface (present: modelled).

use serde::Serialize;

use super::reader::Section;

/// The software overheads of a node's processor, after the CM-5's active messages (Callahan
/// and Goldstein, Table 2). With a processor, the workload's packets wait in its software
/// queue and enter the NIC one per `send_overhead` cycles; arriving packets wait in the NIC's
/// arrivals queue until the processor takes them, one per `receive_overhead` cycles, and are
/// delivered then. An idle processor polls, noticing arrivals only between polls.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProcessorConfig {
    /// Cycles to hand a packet to the NIC.
    pub send_overhead: u32,
    /// Cycles to take a packet from the NIC and run its handler.
    pub receive_overhead: u32,
    /// Cycles of a poll that finds nothing.
    pub poll_overhead: u32,
    /// Packets the arrivals queue holds; when it is full the NIC takes no more flits from the
    /// network.
    pub arrivals_packets: u32,
    /// Chance, each time the processor is free (every send, receive or poll), that it stops
    /// responding: it neither sends nor takes packets from the NIC for a while.
    pub nonresponsive_rate: f64,
    /// Mean length of a non-responsive period, cycles (uniform from 1 to twice this).
    pub nonresponsive_cycles: u32,
}

impl ProcessorConfig {
    pub(crate) fn read(s: Section<'_>) -> Self {
        let cfg = ProcessorConfig {
            send_overhead: s.int("send_overhead", 46, 1, 1 << 20),
            receive_overhead: s.int("receive_overhead", 56, 1, 1 << 20),
            poll_overhead: s.int("poll_overhead", 22, 1, 1 << 20),
            arrivals_packets: s.int("arrivals_packets", 2, 1, 1 << 16),
            nonresponsive_rate: s.float(
                "nonresponsive_rate",
                0.0,
                |x| (0.0..1.0).contains(&x),
                "from 0 to below 1 (chance each time the processor is free)",
            ),
            nonresponsive_cycles: s.int("nonresponsive_cycles", 1000, 1, 1 << 30),
        };
        s.finish();
        cfg
    }
}
