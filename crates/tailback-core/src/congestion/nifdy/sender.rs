//! The outgoing side of a NIFDY unit: the outstanding packet table and the node's outgoing
//! bulk dialog (the pool is the NIC's flows).

use super::Settings;
use super::header::Header;
use crate::traffic::Offered;

/// A bulk dialog this node holds with a receiver.
#[derive(Debug, Clone, Copy)]
pub(super) struct OutDialog {
    pub(super) dst: u32,
    /// The number the receiver gave the dialog.
    id: u8,
    /// Packets sent in the dialog so far (their sequence numbers count from 0).
    sent: u32,
    /// Packets sent and not acknowledged yet.
    pub(super) unacked: u32,
    /// The last packet (bulk exit) has gone.
    exited: bool,
}

/// One node's outgoing side.
#[derive(Debug, Default)]
pub(super) struct Sender {
    /// Outstanding packet table: the destination of every unacknowledged scalar packet.
    pub(super) opt: Vec<u32>,
    pub(super) dialog: Option<OutDialog>,
    /// The receiver a bulk request is pending with.
    requested: Option<u32>,
}

impl Sender {
    /// Whether the first pooled packet to `dst` (rank 0 among the waiting packets) is
    /// eligible: inside an open bulk dialog with room in the window, or scalar with a free
    /// table entry and nothing outstanding to its destination.
    pub(super) fn eligible(&self, dst: u32, s: &Settings) -> bool {
        match self.dialog {
            // After the bulk exit, the next packet waits for the dialog's last ack.
            Some(d) if d.dst == dst => !d.exited && d.unacked < s.w,
            _ => self.opt.len() < s.o as usize && !self.opt.contains(&dst),
        }
    }

    /// Sends eligible `packet`, with the header the protocol gives it.
    pub(super) fn send(&mut self, mut packet: Offered, s: &Settings) -> Offered {
        let header = match &mut self.dialog {
            Some(d) if d.dst == packet.dst => {
                d.exited = packet.message_rest == 0;
                let header = Header::bulk(d.id, d.sent % s.w, d.exited);
                d.sent += 1;
                d.unacked += 1;
                header
            }
            _ => {
                let request = s.d > 0
                    && self.dialog.is_none()
                    && self.requested.is_none()
                    && packet.message_rest >= s.bulk_request_packets;
                if request {
                    self.requested = Some(packet.dst);
                }
                self.opt.push(packet.dst);
                Header::scalar(request)
            }
        };
        packet.header = header.0;
        packet
    }

    /// An ack from node `from` arrived.
    pub(super) fn on_ack(&mut self, from: u32, header: Header) {
        if header.is_bulk() {
            let d = self
                .dialog
                .as_mut()
                .filter(|d| d.dst == from && d.id == header.dialog())
                .expect("a bulk ack belongs to the sender's dialog");
            d.unacked -= header.number();
            if d.exited && d.unacked == 0 {
                self.dialog = None;
            }
            return;
        }
        let entry = self
            .opt
            .iter()
            .position(|&dst| dst == from)
            .expect("a scalar ack answers an outstanding packet");
        self.opt.swap_remove(entry);
        match header.answer() {
            Some(Ok(id)) => {
                self.requested = None;
                self.dialog = Some(OutDialog {
                    dst: from,
                    id,
                    sent: 0,
                    unacked: 0,
                    exited: false,
                });
            }
            Some(Err(())) => self.requested = None,
            None => {}
        }
    }
}
