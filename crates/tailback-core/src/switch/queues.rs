//! Queue schemes: how a buffered switch sorts the packets of one input pool into queues.
//!
//! A scheme decides the queue of a routed packet; the pool (and its link credits) stays shared
//! by all queues of the input port's virtual lane. Each queue sends its packets in arrival
//! order, and only its head packet may be chosen by an output.

/// How the packets of an input pool are queued.
pub(crate) trait QueueScheme {
    /// Whether each queue has room of its own that the upstream sender respects (a packet
    /// starts only when its queue downstream can take all its blocks), besides the pool's
    /// credits.
    const OWN_ROOM: bool = false;

    /// Queues per input pool on switches of at most `ports` ports in a network of `nodes`
    /// nodes.
    fn queues(ports: usize, nodes: usize) -> usize;

    /// The queue of a packet for node `dst` routed to local output `out`.
    fn queue_of(out: u8, dst: u32) -> usize;
}

/// A virtual output queue per output port: a packet waits only behind packets for its own
/// output (the InfiniBand switch).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Voq;

impl QueueScheme for Voq {
    #[inline]
    fn queues(ports: usize, _nodes: usize) -> usize {
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
    fn queues(_ports: usize, _nodes: usize) -> usize {
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
    fn queues(_ports: usize, nodes: usize) -> usize {
        nodes
    }

    #[inline(always)]
    fn queue_of(_out: u8, dst: u32) -> usize {
        dst as usize
    }
}
