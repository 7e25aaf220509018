//! `[nic]`: the network interface of every node.

use serde::Serialize;

use super::reader::Section;
use super::{MAX_LATENCY, MAX_PERIOD, is_one};

/// `[nic]`: the network interface of every node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NicConfig {
    /// Latency of the injection channel (NIC to router), cycles.
    pub injection_latency: u32,
    /// Latency of the ejection channel (router to NIC), cycles.
    pub ejection_latency: u32,
    /// Flits per cycle the NIC consumes from the network, in (0, 1].
    pub ejection_rate: f64,
    /// Most packets waiting in the source queue for injection to start (the one being
    /// injected is not counted); a packet created when it is full is refused. Absent: unbounded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_queue_packets: Option<u32>,
    /// Cycles per flit on the injection and ejection channels (1: a flit every cycle).
    #[serde(skip_serializing_if = "is_one")]
    pub link_period: u32,
}

impl NicConfig {
    pub(crate) fn read(s: Section<'_>) -> Self {
        let cfg = NicConfig {
            injection_latency: s.int("injection_latency", 1, 1, MAX_LATENCY),
            ejection_latency: s.int("ejection_latency", 1, 1, MAX_LATENCY),
            ejection_rate: s.float(
                "ejection_rate",
                1.0,
                |x| x > 0.0 && x <= 1.0,
                "greater than 0 and at most 1 (flits/cycle)",
            ),
            source_queue_packets: s.opt_int("source_queue_packets", 1, 1 << 20),
            link_period: s.int("link_period", 1, 1, MAX_PERIOD),
        };
        s.finish();
        cfg
    }
}
