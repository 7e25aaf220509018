//! Flits: a packet reference and head/tail flags packed into 32 bits.

/// One flit in a buffer or on a channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Flit(u32);

impl Flit {
    const HEAD: u32 = 1 << 31;
    const TAIL: u32 = 1 << 30;
    const PACKET: u32 = Self::TAIL - 1;
    /// Largest packet slot a flit can reference.
    pub(crate) const MAX_PACKETS: usize = Self::PACKET as usize + 1;

    #[inline]
    pub(crate) fn new(packet: u32, head: bool, tail: bool) -> Flit {
        debug_assert!(packet <= Self::PACKET);
        Flit(packet | if head { Self::HEAD } else { 0 } | if tail { Self::TAIL } else { 0 })
    }

    /// Slot of the packet in the packet slab.
    #[inline]
    pub(crate) fn packet(self) -> u32 {
        self.0 & Self::PACKET
    }

    #[inline]
    pub(crate) fn is_head(self) -> bool {
        self.0 & Self::HEAD != 0
    }

    #[inline]
    pub(crate) fn is_tail(self) -> bool {
        self.0 & Self::TAIL != 0
    }

    /// A placeholder for empty buffer slots.
    pub(crate) const EMPTY: Flit = Flit(0);
}
