//! Queue schemes: how a buffered switch sorts the packets of one input pool into queues.
//!
//! A scheme decides the queue of a routed packet; the pool (and its link credits) stays shared
//! by all queues of the input port's virtual lane. Each queue sends its packets in arrival
//! order, and only its head packet may be chosen by an output.

use crate::config::BufferedConfig;

/// How the packets of an input pool are queued.
pub(crate) trait QueueScheme {
    /// Whether each queue has room of its own that the upstream sender respects (a packet
    /// starts only when its queue downstream can take all its blocks), besides the pool's
    /// credits.
    const OWN_ROOM: bool = false;

    /// Whether the scheme isolates congested flows: queue 0 is the normal flow queue and the
    /// others are congested-flow queues claimed for trees as they are detected (see
    /// `switch::isolate`).
    const ISOLATION: bool = false;

    /// With isolation: whether the normal queues are virtual output queues (HFDI, EcoCC)
    /// rather than one normal queue (FBICM, CCFIT).
    const NORMAL_VOQS: bool = false;

    /// Queues per input pool on switches of at most `ports` ports in a network of `nodes`
    /// nodes, with the switches' `settings`.
    fn queues(ports: usize, nodes: usize, settings: &BufferedConfig) -> usize;

    /// The queue a packet for node `dst` routed to local output `out` joins.
    fn queue_of(out: u8, dst: u32) -> usize;
}

/// A virtual output queue per output port: a packet waits only behind packets for its own
/// output (the InfiniBand switch).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Voq;

impl QueueScheme for Voq {
    #[inline]
    fn queues(ports: usize, _nodes: usize, _settings: &BufferedConfig) -> usize {
        ports
    }

    #[inline(always)]
    fn queue_of(out: u8, _dst: u32) -> usize {
        out as usize
    }
}

/// One queue per pool: a packet waits behind every earlier packet (head-of-line blocking).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fifo;

impl QueueScheme for Fifo {
    #[inline]
    fn queues(_ports: usize, _nodes: usize, _settings: &BufferedConfig) -> usize {
        1
    }

    #[inline(always)]
    fn queue_of(_out: u8, _dst: u32) -> usize {
        0
    }
}

/// A queue per destination node with room of its own (VOQnet): a packet waits only behind
/// packets for its own destination, and a full queue stops only its destination's traffic
/// upstream — the idealised isolation the congestion-isolation schemes are measured against.
#[derive(Debug, Clone, Copy)]
pub(crate) struct VoqNet;

impl QueueScheme for VoqNet {
    const OWN_ROOM: bool = true;

    #[inline]
    fn queues(_ports: usize, nodes: usize, _settings: &BufferedConfig) -> usize {
        nodes
    }

    #[inline(always)]
    fn queue_of(_out: u8, dst: u32) -> usize {
        dst as usize
    }
}

/// A normal flow queue and `isolation.cfqs` congested-flow queues (FBICM; CCFIT with
/// InfiniBand congestion control): packets join the normal queue and move to a congested-flow
/// queue at its head when their destination belongs to an isolated tree.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NfqCfq;

impl QueueScheme for NfqCfq {
    const ISOLATION: bool = true;

    #[inline]
    fn queues(_ports: usize, _nodes: usize, settings: &BufferedConfig) -> usize {
        1 + isolating_queues(settings)
    }

    #[inline(always)]
    fn queue_of(_out: u8, _dst: u32) -> usize {
        0
    }
}

/// A virtual output queue per output (a cold-packet queue, CPQ) and `isolation.hpqs` hot-packet
/// queues (HFDI; EcoCC with InfiniBand congestion control): a CPQ over the upper threshold
/// makes its output a root, and packets for trees propagated from downstream move from the
/// CPQ heads to hot-packet queues.
#[derive(Debug, Clone, Copy)]
pub(crate) struct VoqHpq;

impl QueueScheme for VoqHpq {
    const ISOLATION: bool = true;
    const NORMAL_VOQS: bool = true;

    #[inline]
    fn queues(ports: usize, _nodes: usize, settings: &BufferedConfig) -> usize {
        ports + isolating_queues(settings)
    }

    #[inline(always)]
    fn queue_of(out: u8, _dst: u32) -> usize {
        out as usize
    }
}

/// The isolating queues (CFQs or HPQs) per input pool the settings ask for.
fn isolating_queues(settings: &BufferedConfig) -> usize {
    settings
        .isolation
        .as_ref()
        .map_or(0, |i| i.isolating_queues() as usize)
}
