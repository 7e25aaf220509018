//! Packets in flight, kept in a slab whose slots are reused after delivery.

use crate::flit::Flit;

/// The logical network a packet travels on. With two logical networks (request and reply,
/// `router.logical_networks = 2`) each has its own VCs, so replies never wait behind requests;
/// with one, every packet is a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogicalNetwork {
    /// The request network (the workload's packets).
    #[default]
    Request = 0,
    /// The reply network (replies and acknowledgements).
    Reply = 1,
}

/// A packet between injection and delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet {
    /// Source node.
    pub src: u32,
    /// Destination node.
    pub dst: u32,
    /// Cycle the source created the packet.
    pub created: u64,
    /// Cycle the head flit left the NIC.
    pub injected: u64,
    /// Length in flits.
    pub flits: u32,
    /// Router-to-router channels crossed so far.
    pub hops: u32,
    /// Cycles of the router-to-router channels crossed so far (their latencies).
    pub link_cycles: u32,
    /// Flits the destination NIC has consumed.
    pub(crate) delivered_flits: u32,
    /// Current VC class (set by the routing function).
    pub class: u8,
    /// Service level: the lane it was injected on, by which the buffered fabric looks up its
    /// lane at every hop.
    pub sl: u8,
    /// Whether its route detours through an intermediate group (Valiant, or chosen by UGAL or
    /// PAR).
    pub detoured: bool,
    /// Bits a congestion mechanism may set on the way (e.g. a forward congestion mark).
    pub marks: u8,
    /// Created inside the measurement window.
    pub measured: bool,
    /// The logical network it travels on.
    pub network: LogicalNetwork,
    /// Header bits of a mechanism's protocol (NIFDY); 0 for plain packets.
    pub header: u32,
    /// A mechanism's control packet ([`Outbox`](crate::hooks::Outbox)).
    pub control: bool,
    /// Replayed from a packet trace (`traffic.trace_file`).
    pub traced: bool,
    /// Random bits for the routing function's choices (random up ports, drawn ties), taken
    /// from the source's routing stream at injection; 0 when routing draws nothing.
    pub route_draw: u32,
    alive: bool,
}

impl Packet {
    /// A packet about to be injected.
    pub(crate) fn new(
        src: u32,
        dst: u32,
        created: u64,
        injected: u64,
        flits: u32,
        measured: bool,
        network: LogicalNetwork,
    ) -> Packet {
        Packet {
            src,
            dst,
            created,
            injected,
            flits,
            hops: 0,
            link_cycles: 0,
            delivered_flits: 0,
            class: 0,
            sl: 0,
            detoured: false,
            marks: 0,
            measured,
            network,
            header: 0,
            control: false,
            traced: false,
            route_draw: 0,
            alive: true,
        }
    }
}

/// Storage for live packets.
#[derive(Debug, Default)]
pub(crate) struct PacketSlab {
    slots: Vec<Packet>,
    free: Vec<u32>,
}

impl PacketSlab {
    pub(crate) fn insert(&mut self, packet: Packet) -> u32 {
        if let Some(slot) = self.free.pop() {
            self.slots[slot as usize] = packet;
            slot
        } else {
            assert!(
                self.slots.len() < Flit::MAX_PACKETS,
                "more than {} packets in flight",
                Flit::MAX_PACKETS
            );
            self.slots.push(packet);
            (self.slots.len() - 1) as u32
        }
    }

    /// Frees a delivered packet's slot; freeing twice is an engine bug.
    pub(crate) fn remove(&mut self, slot: u32) -> Packet {
        let p = &mut self.slots[slot as usize];
        assert!(p.alive, "packet slot {slot} delivered twice");
        p.alive = false;
        self.free.push(slot);
        *p
    }

    #[inline]
    pub(crate) fn get(&self, slot: u32) -> &Packet {
        let p = &self.slots[slot as usize];
        debug_assert!(p.alive, "flit of a delivered packet (slot {slot})");
        p
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, slot: u32) -> &mut Packet {
        let p = &mut self.slots[slot as usize];
        assert!(p.alive, "flit of a delivered packet (slot {slot})");
        p
    }

    /// Whether `slot` holds an undelivered packet.
    pub(crate) fn is_live(&self, slot: u32) -> bool {
        self.slots.get(slot as usize).is_some_and(|p| p.alive)
    }

    /// Every packet in flight.
    pub(crate) fn iter_live(&self) -> impl Iterator<Item = &Packet> {
        self.slots.iter().filter(|p| p.alive)
    }

    /// Packets currently in flight.
    pub(crate) fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}
