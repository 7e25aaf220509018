//! `[nic]`: the network interface of every node.

use serde::Serialize;

use super::Units;
use super::reader::{Section, choice_enum};
use super::{MAX_LATENCY, MAX_PERIOD, is_one};

choice_enum! {
    /// How a NIC queues the requests it has to send.
    pub enum NicQueues {
        /// One source queue in creation order.
        Fifo = "fifo",
        /// A queue per destination (an InfiniBand channel adapter's queue pairs), served round
        /// robin: a packet waits only behind packets for its own destination.
        PerDestination = "per_destination",
    }
}

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
    /// How requests queue.
    pub queues: NicQueues,
    /// Most flits per cycle injected on average (a packet starts when a bucket filling at this
    /// rate holds all its flits, then goes out back to back); `None`: the link's rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inject_rate: Option<f64>,
}

impl NicConfig {
    /// Reads `[nic]`; with `units`, rates may be given in Gbit/s.
    pub(crate) fn read(s: Section<'_>, units: Option<Units>) -> Self {
        let receive = s.opt_rate("ejection_rate", "receive_gbps", units);
        let cfg = NicConfig {
            injection_latency: s.int("injection_latency", 1, 1, MAX_LATENCY),
            ejection_latency: s.int("ejection_latency", 1, 1, MAX_LATENCY),
            ejection_rate: receive.unwrap_or(1.0),
            source_queue_packets: s.opt_int("source_queue_packets", 1, 1 << 20),
            link_period: s.int("link_period", 1, 1, MAX_PERIOD),
            queues: s.choice("queues", NicQueues::Fifo),
            inject_rate: s.opt_rate("inject_rate", "inject_gbps", units),
        };
        s.finish();
        cfg
    }
}
