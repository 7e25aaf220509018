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
//! The pool is the NIC's per-destination flows ([`CongestionControl::FLOWS`]): the packets at
//! the heads of the flows are exactly the rank-0 packets, and [`next_packet`] takes the oldest
//! eligible one. Acks are control packets on the reply network ([`Outbox`]), and a node's NIC
//! looks at its flows again the cycle after an ack arrives ([`Timers`]).
//!
//! [`next_packet`]: CongestionControl::next_packet
//!
//! In buffers-only mode the protocol is off: the pool is a plain first-in first-out queue and
//! the unit's buffers, together with the arrivals queue, are split evenly between the pool and
//! a larger arrivals queue (the same total buffering).

mod header;
mod receiver;
mod sender;

use super::registry::Registered;
use crate::config::{Config, CongestionConfig, NifdyConfig};
use crate::hooks::{Arrived, CongestionControl, Context, Flows, Inspection};
#[cfg(doc)]
use crate::hooks::{Outbox, Timers};
use crate::ids::NodeId;
use crate::packet::{LogicalNetwork, Packet};
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
    pool: u32,
    /// Packets an arrivals queue holds.
    arrivals: u32,
}

/// Every node's NIFDY unit (or, in buffers-only mode, the same buffers without the protocol).
#[derive(Debug)]
pub struct Nifdy {
    /// Whether the protocol runs (otherwise: buffers only).
    protocol: bool,
    settings: Settings,
    senders: Vec<Sender>,
    receivers: Vec<Receiver>,
}

impl Nifdy {
    /// The units of `cfg`'s NIFDY mechanism (`nifdy` or `nifdy_buffers_only`, with its
    /// settings and a processor model) for `nodes` nodes; `None` for another mechanism.
    pub fn from_config(cfg: &Config, nodes: usize) -> Option<Nifdy> {
        match &cfg.congestion {
            CongestionConfig::Nifdy(n) => Some(Nifdy::new(n, true, cfg, nodes)),
            CongestionConfig::NifdyBuffersOnly(n) => Some(Nifdy::new(n, false, cfg, nodes)),
            _ => None,
        }
    }

    /// The units for `nodes` nodes with settings `n`, running the protocol or (`protocol`
    /// false) only its buffers; the arrivals queues come from `cfg`'s processor model.
    fn new(n: &NifdyConfig, protocol: bool, cfg: &Config, nodes: usize) -> Nifdy {
        let arrivals = cfg.processor.as_ref().map_or(0, |p| p.arrivals_packets);
        // Buffers only: the pool's share of the split, the arrivals queue the rest.
        let (pool, arrivals) = if protocol {
            (n.b, arrivals)
        } else {
            n.buffers_only_split(arrivals)
        };
        let settings = Settings {
            o: n.o.unwrap_or(0),
            d: n.d,
            w: n.w,
            bulk_request_packets: n.bulk_request_packets,
            ack_flits: n.ack_flits,
            pool: pool.max(1),
            arrivals,
        };
        Nifdy {
            protocol,
            settings,
            senders: (0..nodes).map(|_| Sender::default()).collect(),
            receivers: (0..nodes).map(|_| Receiver::new(&settings)).collect(),
        }
    }
}

impl Registered for Nifdy {
    type Settings = NifdyConfig;
    type Control = Nifdy;

    fn describe(n: &NifdyConfig, _: &str) -> Option<String> {
        Some(describe(n, true))
    }

    fn build(n: &NifdyConfig, cfg: &Config, topology: &crate::topology::Topology) -> Nifdy {
        Nifdy::new(n, true, cfg, topology.node_count())
    }
}

/// NIFDY's buffers with the protocol off (`mechanism = "nifdy_buffers_only"`).
pub struct BuffersOnly;

impl Registered for BuffersOnly {
    type Settings = NifdyConfig;
    type Control = Nifdy;

    fn describe(n: &NifdyConfig, _: &str) -> Option<String> {
        Some(describe(n, false))
    }

    fn build(n: &NifdyConfig, cfg: &Config, topology: &crate::topology::Topology) -> Nifdy {
        Nifdy::new(n, false, cfg, topology.node_count())
    }
}

/// NIFDY's parameters in words (`protocol`: NIFDY itself, else its buffers only).
fn describe(n: &NifdyConfig, protocol: bool) -> String {
    if protocol {
        format!(
            "NIFDY: o = {}, b = {}, d = {}, w = {}, {}-flit acks",
            n.o.unwrap_or(0),
            n.b,
            n.d,
            n.w,
            n.ack_flits
        )
    } else {
        format!(
            "NIFDY buffers only: the buffers of b = {}, d = {}, w = {}, protocol off",
            n.b, n.d, n.w
        )
    }
}

impl CongestionControl for Nifdy {
    const FLOWS: bool = true;

    fn flow_capacity(&self, _configured: Option<u32>) -> Option<u32> {
        Some(self.settings.pool)
    }

    fn arrivals_capacity(&self, _configured: u32) -> u32 {
        self.settings.arrivals
    }

    /// The oldest eligible packet, with the header the protocol gives it (buffers only: the
    /// oldest packet).
    fn next_packet(
        &mut self,
        _cx: &mut Context<'_>,
        node: NodeId,
        flows: &mut Flows,
    ) -> Option<Offered> {
        if !self.protocol {
            return flows.pop_oldest();
        }
        let sender = &mut self.senders[node.index()];
        let dst = flows.oldest_where(|p| sender.eligible(p.dst, &self.settings))?;
        let packet = flows.pop(dst)?;
        Some(sender.send(packet, &self.settings))
    }

    /// Bulk packets wait in their dialog's reorder buffer; scalar packets go to the arrivals
    /// queue.
    fn on_arrival(
        &mut self,
        cx: &mut Context<'_>,
        node: NodeId,
        packet: &Packet,
        id: Arrived,
    ) -> bool {
        let header = Header(packet.header);
        if !self.protocol || !header.is_bulk() {
            return true;
        }
        let receiver = &mut self.receivers[node.index()];
        receiver.on_bulk(id, packet.src, header);
        receiver.release(node, cx.arrivals);
        false
    }

    /// The processor took `packet`: acknowledge it if due, and let in-order packets follow
    /// from the reorder buffers.
    fn on_delivered(&mut self, cx: &mut Context<'_>, node: NodeId, packet: &Packet) {
        if !self.protocol {
            return;
        }
        let receiver = &mut self.receivers[node.index()];
        if let Some(header) = receiver.on_accepted(packet, &self.settings) {
            cx.outbox.send(
                node,
                NodeId::new(packet.src as usize),
                self.settings.ack_flits,
                LogicalNetwork::Reply,
                header.0,
            );
        }
        receiver.release(node, cx.arrivals);
    }

    /// An ack: its sender side frees the table entry or window slots, and the NIC looks at its
    /// flows again next cycle.
    fn on_control(&mut self, cx: &mut Context<'_>, node: NodeId, packet: &Packet) {
        let header = Header(packet.header);
        debug_assert!(header.is_ack(), "NIFDY sends only acks");
        self.senders[node.index()].on_ack(packet.src, header);
        cx.timers.wake(node, cx.now + 1);
    }

    /// Checks every sender's outstanding packet table and bulk window against the packets and
    /// acks on their way: its scalar packets not yet acknowledged (data in the NIC or the
    /// network or not yet taken by the processor, and acks on their way back) are exactly its
    /// table entries, at most `o`, at most one per destination; its dialog's unacknowledged
    /// packets are at most `w` and exactly those in flight, taken without an ack, or covered by
    /// acks on their way back.
    fn check(&self, state: &Inspection<'_>) -> Result<(), String> {
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
        for p in state.packets() {
            let data = p.network == LogicalNetwork::Request;
            let (owner, peer) = if data { (p.src, p.dst) } else { (p.dst, p.src) };
            count(owner, peer, Header(p.header), data);
        }
        for node in 0..nodes {
            for q in state.committed(NodeId::new(node)) {
                match q.network {
                    LogicalNetwork::Request => count(node as u32, q.dst, Header(q.header), true),
                    LogicalNetwork::Reply => count(q.dst, node as u32, Header(q.header), false),
                }
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
}
