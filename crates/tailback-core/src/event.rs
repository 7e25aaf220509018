//! Timing wheels that carry flits and credits across channels.
//!
//! Every channel has a latency of at least one cycle, so nothing scheduled during cycle `t` is due
//! before `t + 1`: components can be evaluated in any order within a cycle.
//!
//! Channel ends are numbered in one space of *VC slots*: slot `port << shift | vc` is VC `vc` of
//! router port `port` (its input side for flits, its output side for credits), and slots from
//! [`VcSlots::nic_base`] on are the NICs' VCs (`nic_base + (node << shift | vc)`: the receive side
//! for flits, the injection side for credits), and slots from [`VcSlots::recovery_base`] on (one
//! per node) receive flits from the deadlock-recovery lane. `shift` makes the per-port stride a
//! power of two.

use crate::flit::Flit;

/// Numbering of VC slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct VcSlots {
    pub(crate) shift: u32,
    /// First NIC slot (= number of router VC slots).
    pub(crate) nic_base: u32,
    /// First deadlock-recovery delivery slot (one per node, after the NIC slots).
    pub(crate) recovery_base: u32,
}

impl VcSlots {
    pub(crate) fn new(vcs: usize, ports: usize, nodes: usize) -> VcSlots {
        let shift = vcs.next_power_of_two().trailing_zeros();
        let nic_base = ports << shift;
        VcSlots {
            shift,
            nic_base: nic_base as u32,
            recovery_base: (nic_base + (nodes << shift)) as u32,
        }
    }

    /// Slot where the recovery lane delivers flits to `node`'s NIC.
    #[inline]
    pub(crate) fn recovery_slot(self, node: usize) -> usize {
        self.recovery_base as usize + node
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct FlitArrival {
    pub(crate) to: u32,
    pub(crate) flit: Flit,
}

/// Credits for `count` blocks on their way back to VC slot `to` (packet trains return a
/// packet's credits together).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct CreditBatch {
    pub(crate) to: u32,
    pub(crate) count: u32,
}

/// A priority flow control frame on its way to the sender at output VC slot `to` (a switch's,
/// or an adapter's injection slot): PAUSE (`pause`) or RESUME.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct PfcFrame {
    pub(crate) to: u32,
    pub(crate) pause: bool,
}

/// A circular array of per-cycle buckets of bounded size.
///
/// Every channel end schedules at most one item per cycle over a fixed latency, so no bucket
/// ever holds more items than there are channel ends; buckets are fixed slices of one array.
#[derive(Debug)]
pub(crate) struct Wheel<T> {
    items: Vec<T>,
    lens: Vec<u32>,
    bucket_capacity: usize,
    mask: u64,
}

impl<T: Copy + Default> Wheel<T> {
    /// A wheel for delays of 1 up to `max_delay` cycles and at most `bucket_capacity` items due
    /// in any one cycle.
    pub(crate) fn new(max_delay: u64, bucket_capacity: usize) -> Wheel<T> {
        let size = (max_delay + 1).next_power_of_two();
        Wheel {
            items: vec![T::default(); size as usize * bucket_capacity],
            lens: vec![0; size as usize],
            bucket_capacity,
            mask: size - 1,
        }
    }

    #[inline]
    pub(crate) fn schedule(&mut self, now: u64, delay: u64, item: T) {
        debug_assert!(
            delay >= 1 && delay <= self.mask,
            "delay {delay} outside the wheel"
        );
        let bucket = ((now + delay) & self.mask) as usize;
        let len = self.lens[bucket] as usize;
        // Holds by construction (see the type's documentation); an overflow would spill into
        // the next bucket, never outside the array.
        debug_assert!(
            len < self.bucket_capacity,
            "more items due in one cycle than channel ends"
        );
        self.items[bucket * self.bucket_capacity + len] = item;
        self.lens[bucket] += 1;
    }

    /// The items due at `now`; call [`Wheel::clear`] once they are handled.
    #[inline]
    pub(crate) fn due(&self, now: u64) -> &[T] {
        let bucket = (now & self.mask) as usize;
        let start = bucket * self.bucket_capacity;
        &self.items[start..start + self.lens[bucket] as usize]
    }

    /// Empties the bucket of `now`.
    #[inline]
    pub(crate) fn clear(&mut self, now: u64) {
        self.lens[(now & self.mask) as usize] = 0;
    }

    /// Items scheduled but not yet cleared.
    pub(crate) fn pending(&self) -> usize {
        self.lens.iter().map(|&len| len as usize).sum()
    }

    /// Every scheduled item (for the invariant checker).
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.lens.iter().enumerate().flat_map(move |(b, &len)| {
            let start = b * self.bucket_capacity;
            &self.items[start..start + len as usize]
        })
    }
}
