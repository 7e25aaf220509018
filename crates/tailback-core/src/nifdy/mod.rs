//! NIFDY (Callahan and Goldstein, ISCA 1995): a unit between each processor and its network
//! interface that admits a packet into the network only when the destination has acknowledged
//! the previous one, and delivers packets in order.
//!
//! The processor hands packets to the unit's pool (`b` packets; it stalls while the pool is
//! full). A pooled packet is *eligible* when no earlier pooled or unacknowledged packet goes to
//! the same destination (rank 0) and the outstanding packet table has a free entry (`o`); when
//! the NIC has no request waiting, the oldest eligible packet goes to it and its destination
//! enters the table. The receiving unit acknowledges a packet when the processor takes it from
//! the arrivals queue; acks are real packets on the reply network, consumed by the sending unit.
//!
//! A packet with at least `bulk_request_packets` more packets of its message behind it asks for
//! a bulk dialog; a receiver with a free dialog slot (`d`) grants one in the ack, and the
//! sender then sends the rest of the message in the dialog: up to `w` unacknowledged packets
//! with sequence numbers, outside the table, reordered at the receiver in `w` buffers and
//! acknowledged once per `w / 2` packets the processor takes; the message's last packet exits
//! the dialog. A sender holds at most one dialog at a time.
//!
//! In buffers-only mode the protocol is off: the pool is a plain first-in first-out queue and
//! the unit's buffers, together with the arrivals queue, are split evenly between the pool and
//! a larger arrivals queue (the same total buffering).

mod header;
mod receiver;
mod sender;

use crate::bitset::BitSet;
use crate::config::{Config, Mechanism};
use crate::nic::NicSet;
use crate::packet::{LogicalNetwork, Packet, PacketSlab};
use crate::traffic::Offered;

use header::Header;
use receiver::Receiver;
use sender::Sender;

/// The parameters every unit shares.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    pub(crate) o: u32,
    pub(crate) d: u32,
    pub(crate) w: u32,
    pub(crate) bulk_request_packets: u32,
    ack_flits: u32,
    /// Packets the pool holds.
    pool: usize,
}

/// Every node's NIFDY unit.
#[derive(Debug)]
pub(crate) struct Nifdy {
    /// Whether the protocol runs (otherwise: buffers only).
    protocol: bool,
    settings: Settings,
    senders: Vec<Sender>,
    receivers: Vec<Receiver>,
    /// Nodes whose pool may hold a packet to send: left out while the pool is empty or none of
    /// its packets is eligible, until a new packet or an ack arrives (nothing else changes
    /// eligibility), so waiting pools cost nothing per cycle.
    ready: BitSet,
}

impl Nifdy {
    /// The units of `cfg`'s NIFDY mechanism for `nodes` nodes (`None` without one).
    pub(crate) fn from_config(cfg: &Config, nodes: usize) -> Option<Nifdy> {
        let n = cfg.congestion.nifdy.as_ref()?;
        let protocol = cfg.congestion.mechanism == Mechanism::Nifdy;
        let arrivals = cfg.processor.as_ref().map_or(0, |p| p.arrivals_packets);
        // Buffers only: the pool's share of the split (the NIC's arrivals queue has the rest).
        let pool = if protocol {
            n.b
        } else {
            n.buffers_only_split(arrivals).0
        };
        let settings = Settings {
            o: n.o.unwrap_or(0),
            d: n.d,
            w: n.w,
            bulk_request_packets: n.bulk_request_packets,
            ack_flits: n.ack_flits,
            pool: pool.max(1) as usize,
        };
        Some(Nifdy {
            protocol,
            settings,
            senders: (0..nodes).map(|_| Sender::default()).collect(),
            receivers: (0..nodes).map(|_| Receiver::new(&settings)).collect(),
            ready: BitSet::new(nodes),
        })
    }

    /// Whether `node`'s pool has room for another packet.
    pub(crate) fn has_room(&self, node: usize) -> bool {
        self.senders[node].pool.len() < self.settings.pool
    }

    /// The processor at `node` hands over `packet`.
    pub(crate) fn accept(&mut self, node: usize, packet: Offered) {
        debug_assert!(
            self.has_room(node),
            "the processor waits for room in the pool"
        );
        self.senders[node].pool.push(packet);
        self.ready.insert(node);
    }

    /// Hands each NIC without a waiting request the oldest eligible packet of its pool.
    pub(crate) fn send(&mut self, nics: &mut NicSet) {
        let Nifdy {
            protocol,
            settings,
            senders,
            ready,
            ..
        } = self;
        ready.retain(|node| {
            let sender = &mut senders[node];
            if !nics.request_queue_empty(node) {
                return true;
            }
            let packet = if *protocol {
                sender.eligible(settings).map(|i| sender.send(i, settings))
            } else {
                Some(sender.pool.remove(0))
            };
            match packet {
                Some(packet) => {
                    nics.enqueue(node, packet);
                    !sender.pool.is_empty()
                }
                None => false,
            }
        });
    }

    /// Sorts the packets the NICs completed this cycle: acks to their sender side, scalar
    /// packets to the arrivals queue, bulk packets to their reorder buffer.
    pub(crate) fn receive(&mut self, nics: &mut NicSet, packets: &mut PacketSlab) {
        let Some(mut inbox) = nics.inbox.take() else {
            return;
        };
        for &(node, slot) in &inbox {
            let node = node as usize;
            let packet = packets.get(slot);
            let header = Header(packet.header);
            if packet.network == LogicalNetwork::Reply {
                debug_assert!(header.is_ack(), "only acks travel on the reply network");
                self.senders[node].on_ack(packet.src, header);
                if !self.senders[node].pool.is_empty() {
                    self.ready.insert(node);
                }
                packets.remove(slot);
            } else if header.is_bulk() {
                self.receivers[node].on_bulk(slot, packet.src, header);
                self.receivers[node].release(node, nics);
            } else {
                nics.push_arrival(node, slot);
            }
        }
        inbox.clear();
        nics.inbox = Some(inbox);
    }

    /// The processor at `node` took `packet` from the arrivals queue: acknowledge it if due,
    /// and let in-order packets follow from the reorder buffers.
    pub(crate) fn on_accepted(
        &mut self,
        node: usize,
        packet: &Packet,
        now: u64,
        nics: &mut NicSet,
    ) {
        if !self.protocol {
            return;
        }
        let receiver = &mut self.receivers[node];
        if let Some(header) = receiver.on_accepted(packet, &self.settings) {
            nics.enqueue(
                node,
                Offered {
                    created: now,
                    dst: packet.src,
                    flits: self.settings.ack_flits,
                    network: LogicalNetwork::Reply,
                    message_rest: 0,
                    header: header.0,
                },
            );
        }
        receiver.release(node, nics);
    }

    /// Checks every sender's outstanding packet table and bulk window against the packets and
    /// acks on their way: its scalar packets not yet acknowledged (data in the NIC or the
    /// network or not yet taken by the processor, and acks on their way back) are exactly its
    /// table entries, at most `o`, at most one per destination; its dialog's unacknowledged
    /// packets are at most `w` and exactly those in flight, taken without an ack, or covered by
    /// acks on their way back.
    pub(crate) fn check(&self, packets: &PacketSlab, nics: &NicSet) -> Result<(), String> {
        if !self.protocol {
            return Ok(());
        }
        let nodes = self.senders.len();
        let mut scalar = vec![Vec::new(); nodes];
        let mut bulk = vec![0u32; nodes];
        let mut count =
            |owner: u32, peer: u32, header: Header, data: bool| match (header.is_bulk(), data) {
                (false, _) => scalar[owner as usize].push(peer),
                (true, true) => bulk[owner as usize] += 1,
                (true, false) => bulk[owner as usize] += header.number(),
            };
        for p in packets.iter_live() {
            let data = p.network == LogicalNetwork::Request;
            let (owner, peer) = if data { (p.src, p.dst) } else { (p.dst, p.src) };
            count(owner, peer, Header(p.header), data);
        }
        for (node, nic) in nics.nics.iter().enumerate() {
            for q in &nic.queue {
                count(node as u32, q.dst, Header(q.header), true);
            }
            for q in &nic.replies {
                count(q.dst, node as u32, Header(q.header), false);
            }
        }
        for (node, sender) in self.senders.iter().enumerate() {
            let mut table = sender.opt.clone();
            let mut seen = std::mem::take(&mut scalar[node]);
            table.sort_unstable();
            seen.sort_unstable();
            if table != seen {
                return Err(format!(
                    "NIFDY at node {node}: outstanding packet table {table:?}, but scalar packets \
                     or acks on their way for destinations {seen:?}"
                ));
            }
            if table.len() > self.settings.o as usize || table.windows(2).any(|w| w[0] == w[1]) {
                return Err(format!(
                    "NIFDY at node {node}: outstanding packet table {table:?} exceeds o = {} or \
                     repeats a destination",
                    self.settings.o
                ));
            }
            let (window, expected) = match sender.dialog {
                Some(d) => (
                    d.unacked,
                    bulk[node] + self.receivers[d.dst as usize].unacked_from(node as u32),
                ),
                None => (0, bulk[node]),
            };
            if window != expected || window > self.settings.w {
                return Err(format!(
                    "NIFDY at node {node}: {window} bulk packets unacknowledged (w = {}), but \
                     {expected} on their way, taken or covered by acks in flight",
                    self.settings.w
                ));
            }
        }
        Ok(())
    }

    /// Packets waiting in pools.
    pub(crate) fn pooled_packets(&self) -> usize {
        self.senders.iter().map(|s| s.pool.len()).sum()
    }
}
