//! The incoming side of a NIFDY unit: bulk dialogs granted to senders, their reorder buffers,
//! and the acks owed when the processor takes packets.

use super::Settings;
use super::header::Header;
use crate::hooks::{Arrivals, Arrived};
use crate::ids::NodeId;
use crate::packet::Packet;

/// A bulk dialog granted to a sender.
#[derive(Debug)]
struct InDialog {
    src: u32,
    /// Sequence number (counted from 0) of the next packet due to the processor.
    next: u32,
    /// Reorder buffers: packets by sequence number modulo the window.
    buffers: Vec<Option<Arrived>>,
    /// Packets the processor took since the last ack.
    unacked: u32,
}

/// One node's incoming side.
#[derive(Debug)]
pub(super) struct Receiver {
    /// Dialog slots (D of them).
    dialogs: Vec<Option<InDialog>>,
}

impl Receiver {
    pub(super) fn new(s: &Settings) -> Receiver {
        Receiver {
            dialogs: (0..s.d).map(|_| None).collect(),
        }
    }

    /// Packets of `src`'s dialog the processor took and no ack has covered yet.
    pub(super) fn unacked_from(&self, src: u32) -> u32 {
        self.dialogs
            .iter()
            .flatten()
            .find(|d| d.src == src)
            .map_or(0, |d| d.unacked)
    }

    /// Bulk packet `packet` (of `header`) arrived: it waits in its dialog's reorder buffer.
    pub(super) fn on_bulk(&mut self, packet: Arrived, src: u32, header: Header) {
        let d = self.dialogs[header.dialog() as usize]
            .as_mut()
            .filter(|d| d.src == src)
            .expect("a bulk packet belongs to a dialog granted to its sender");
        let buffer = &mut d.buffers[header.number() as usize];
        assert!(buffer.is_none(), "a bulk packet overran the window");
        *buffer = Some(packet);
    }

    /// Moves in-order packets from the reorder buffers to the arrivals queue while it has room.
    pub(super) fn release(&mut self, node: NodeId, arrivals: &mut Arrivals) {
        for d in self.dialogs.iter_mut().flatten() {
            let window = d.buffers.len() as u32;
            while arrivals.has_room(node)
                && let Some(packet) = d.buffers[(d.next % window) as usize].take()
            {
                arrivals.hand_over(node, packet);
                d.next += 1;
            }
        }
    }

    /// The processor took `packet`: the header of the ack owed to its sender, if one is due.
    pub(super) fn on_accepted(&mut self, packet: &Packet, s: &Settings) -> Option<Header> {
        let header = Header(packet.header);
        if !header.is_bulk() {
            let answer = header.requests_bulk().then(|| self.grant(packet.src, s));
            return Some(Header::scalar_ack(answer));
        }
        let id = header.dialog();
        let slot = &mut self.dialogs[id as usize];
        let d = slot.as_mut().expect("a bulk packet belongs to a dialog");
        d.unacked += 1;
        // One combined ack per half window, and a last one at the bulk exit.
        if header.is_exit() {
            let count = d.unacked;
            *slot = None;
            Some(Header::bulk_ack(id, count, true))
        } else if d.unacked >= (s.w / 2).max(1) {
            let count = std::mem::take(&mut d.unacked);
            Some(Header::bulk_ack(id, count, false))
        } else {
            None
        }
    }

    /// Grants `src` a free dialog slot, or rejects its request.
    fn grant(&mut self, src: u32, s: &Settings) -> Result<u8, ()> {
        let free = self.dialogs.iter().position(Option::is_none).ok_or(())?;
        self.dialogs[free] = Some(InDialog {
            src,
            next: 0,
            buffers: vec![None; s.w as usize],
            unacked: 0,
        });
        Ok(free as u8)
    }
}
