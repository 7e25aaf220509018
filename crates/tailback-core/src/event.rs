//! Timing wheels that carry flits and credits across channels.
//!
//! Every channel has a latency of at least one cycle, so nothing scheduled during cycle `t` is due
//! before `t + 1`: components can be evaluated in any order within a cycle.
//!
//! Channel ends are numbered in one space of *VC slots*: slot `port << shift | vc` is VC `vc` of
//! router port `port` (its input side for flits, its output side for credits), and slots from
//! [`VcSlots::nic_base`] on are the NICs' VCs (`nic_base + (node << shift | vc)`: the receive side
//! for flits, the injection side for credits). `shift` makes the per-port stride a power of two.

use crate::flit::Flit;

/// Numbering of VC slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct VcSlots {
    pub(crate) shift: u32,
    /// First NIC slot (= number of router VC slots).
    pub(crate) nic_base: u32,
}

impl VcSlots {
    pub(crate) fn new(vcs: usize, ports: usize) -> VcSlots {
        let shift = vcs.next_power_of_two().trailing_zeros();
        VcSlots {
            shift,
            nic_base: (ports << shift) as u32,
        }
    }

    /// Slot of VC `vc` of router port `port`.
    #[inline]
    pub(crate) fn port_vc(self, port: usize, vc: usize) -> usize {
        (port << self.shift) | vc
    }

    /// Slot of VC `vc` of `node`'s NIC.
    #[inline]
    pub(crate) fn nic_vc(self, node: usize, vc: usize) -> usize {
        self.nic_base as usize + ((node << self.shift) | vc)
    }

    /// Port (or node, for NIC slots relative to `nic_base`) of a slot.
    #[inline]
    pub(crate) fn owner(self, slot: usize) -> usize {
        slot >> self.shift
    }

    /// VC of a slot.
    #[inline]
    pub(crate) fn vc(self, slot: usize) -> usize {
        slot & ((1 << self.shift) - 1)
    }

    /// Whether a slot belongs to a router (not a NIC).
    #[inline]
    pub(crate) fn is_router(self, slot: usize) -> bool {
        slot < self.nic_base as usize
    }
}

/// A flit on its way to VC slot `to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FlitArrival {
    pub(crate) to: u32,
    pub(crate) flit: Flit,
}

/// A circular array of per-cycle buckets.
#[derive(Debug)]
pub(crate) struct Wheel<T> {
    buckets: Vec<Vec<T>>,
    mask: u64,
    pending: usize,
}

impl<T: Copy> Wheel<T> {
    /// A wheel for delays of 1 up to `max_delay` cycles.
    pub(crate) fn new(max_delay: u64) -> Wheel<T> {
        let size = (max_delay + 1).next_power_of_two();
        Wheel {
            buckets: (0..size).map(|_| Vec::new()).collect(),
            mask: size - 1,
            pending: 0,
        }
    }

    #[inline]
    pub(crate) fn schedule(&mut self, now: u64, delay: u64, item: T) {
        debug_assert!(delay >= 1 && delay <= self.mask, "delay {delay} outside the wheel");
        self.buckets[((now + delay) & self.mask) as usize].push(item);
        self.pending += 1;
    }

    /// Takes the items due at `now`; hand the vector back with [`Wheel::restore`].
    #[inline]
    pub(crate) fn take(&mut self, now: u64) -> Vec<T> {
        let due = std::mem::take(&mut self.buckets[(now & self.mask) as usize]);
        self.pending -= due.len();
        due
    }

    /// Returns a drained bucket so its allocation is reused.
    #[inline]
    pub(crate) fn restore(&mut self, now: u64, mut bucket: Vec<T>) {
        bucket.clear();
        self.buckets[(now & self.mask) as usize] = bucket;
    }

    /// Items scheduled but not yet taken.
    pub(crate) fn pending(&self) -> usize {
        self.pending
    }

    /// Every scheduled item (for the invariant checker).
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.buckets.iter().flatten()
    }
}
