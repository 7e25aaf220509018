//! Queue schemes: how a buffered switch sorts the packets of one input pool into queues.
//!
//! A scheme decides the queue of a routed packet; the pool (and its credits) stays shared by
//! all queues of the input port's virtual lane. Each queue sends its packets in arrival order,
//! and only its head packet may be chosen by an output.

/// How the packets of an input pool are queued.
pub(crate) trait QueueScheme {
    /// Queues per input pool on switches of at most `ports` ports.
    fn queues(ports: usize) -> usize;

    /// The queue of a packet routed to local output `out`.
    fn queue_of(out: u8) -> usize;
}

/// A virtual output queue per output port: a packet waits only behind packets for its own
/// output (the InfiniBand switch).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Voq;

impl QueueScheme for Voq {
    #[inline]
    fn queues(ports: usize) -> usize {
        ports
    }

    #[inline(always)]
    fn queue_of(out: u8) -> usize {
        out as usize
    }
}

/// One queue per pool: a packet waits behind every earlier packet (head-of-line blocking).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fifo;

impl QueueScheme for Fifo {
    #[inline]
    fn queues(_ports: usize) -> usize {
        1
    }

    #[inline(always)]
    fn queue_of(_out: u8) -> usize {
        0
    }
}
