//! The NIFDY bits of a packet header ([`Packet::header`](crate::packet::Packet::header)).

/// A packet header as NIFDY reads and writes it: flags in the low byte, the bulk dialog number
/// in the next byte, and a sequence number (data) or a packet count (acks) in the high half.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Header(pub(crate) u32);

const ACK: u32 = 1;
const BULK_REQUEST: u32 = 1 << 1;
const BULK: u32 = 1 << 2;
const BULK_EXIT: u32 = 1 << 3;
const GRANT: u32 = 1 << 4;
const REJECT: u32 = 1 << 5;

impl Header {
    /// A scalar data packet, asking for a bulk dialog if `request`.
    pub(crate) fn scalar(request: bool) -> Header {
        Header(if request { BULK_REQUEST } else { 0 })
    }

    /// A data packet of bulk dialog `dialog` with sequence number `seq` (modulo the window),
    /// the dialog's last if `exit`.
    pub(crate) fn bulk(dialog: u8, seq: u32, exit: bool) -> Header {
        Header(BULK | if exit { BULK_EXIT } else { 0 } | u32::from(dialog) << 8 | seq << 16)
    }

    /// The ack of a scalar packet, granting dialog `grant` or rejecting a request.
    pub(crate) fn scalar_ack(answer: Option<Result<u8, ()>>) -> Header {
        Header(
            ACK | match answer {
                None => 0,
                Some(Ok(dialog)) => GRANT | u32::from(dialog) << 8,
                Some(Err(())) => REJECT,
            },
        )
    }

    /// An ack of `count` packets of bulk dialog `dialog`, its last if `exit`.
    pub(crate) fn bulk_ack(dialog: u8, count: u32, exit: bool) -> Header {
        Header(ACK | BULK | if exit { BULK_EXIT } else { 0 } | u32::from(dialog) << 8 | count << 16)
    }

    pub(crate) fn is_ack(self) -> bool {
        self.0 & ACK != 0
    }

    pub(crate) fn is_bulk(self) -> bool {
        self.0 & BULK != 0
    }

    pub(crate) fn requests_bulk(self) -> bool {
        self.0 & BULK_REQUEST != 0
    }

    pub(crate) fn is_exit(self) -> bool {
        self.0 & BULK_EXIT != 0
    }

    /// A scalar ack's answer to a bulk request: the granted dialog, a rejection, or none.
    pub(crate) fn answer(self) -> Option<Result<u8, ()>> {
        if self.0 & GRANT != 0 {
            Some(Ok(self.dialog()))
        } else if self.0 & REJECT != 0 {
            Some(Err(()))
        } else {
            None
        }
    }

    pub(crate) fn dialog(self) -> u8 {
        (self.0 >> 8) as u8
    }

    /// Sequence number (bulk data) or acknowledged packets (bulk acks).
    pub(crate) fn number(self) -> u32 {
        self.0 >> 16
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        let h = Header::bulk(3, 7, true);
        assert!(h.is_bulk() && h.is_exit() && !h.is_ack() && !h.requests_bulk());
        assert_eq!((h.dialog(), h.number()), (3, 7));
        let a = Header::bulk_ack(2, 4, false);
        assert!(a.is_ack() && a.is_bulk() && !a.is_exit());
        assert_eq!((a.dialog(), a.number()), (2, 4));
        assert_eq!(Header::scalar_ack(Some(Ok(5))).answer(), Some(Ok(5)));
        assert_eq!(Header::scalar_ack(Some(Err(()))).answer(), Some(Err(())));
        assert_eq!(Header::scalar_ack(None).answer(), None);
        assert!(Header::scalar(true).requests_bulk() && !Header::scalar(false).requests_bulk());
    }
}
