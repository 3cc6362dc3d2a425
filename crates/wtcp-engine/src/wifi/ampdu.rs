//! 802.11n and 802.11ac A-MPDU aggregation under an HT-immediate Block Ack agreement: the
//! framing of an A-MPDU, and the originator's transmit window with the recipient's
//! reordering.
//!
//! Framing (IEEE 802.11-2012 8.6.1): every MPDU of an A-MPDU follows a 4-octet MPDU
//! delimiter, and every subframe but the last is padded to a multiple of 4 octets; the
//! PSDU is the whole A-MPDU, and its TXTIME is that of one PPDU of that length. An
//! aggregate of one MPDU goes as a plain MPDU with a normal ACK (HT; ns-3.44
//! `mpdu-aggregator.cc:295-299`, `ht-frame-exchange-manager.cc:771-775`), or under VHT
//! as an S-MPDU, with its delimiter (802.11-2016 10.13.8). The response
//! to an A-MPDU is a compressed BlockAck, 32 octets (8.3.1.9: frame control, duration,
//! RA, TA, BA control, starting sequence control, 8-octet bitmap, FCS), at the control
//! response rate SIFS after the A-MPDU, sent only if at least one MPDU was received.
//!
//! The window (9.21.7, 9.21.10): the MPDUs the originator holds, in sequence order, from
//! the oldest not yet acknowledged; new MPDUs join only while the window spans fewer than
//! the 64 of the compressed bitmap. The recipient hands MPDUs up in order: one received
//! after a gap waits in its reordering buffer until the gap is received or given up.
//!
//! Deviations and ambiguities resolved:
//! - The recipient's scoreboard is the originator's ground truth (`Head::delivered`), as
//!   in the single-MPDU MAC's duplicate filter; a Block Ack reports every MPDU of the
//!   window received so far.
//! - The Block Ack agreement exists from the start: no ADDBA request/response exchange
//!   (ns-3.44 makes one before the first A-MPDU, `ht-frame-exchange-manager.cc:440-450`,
//!   then sends single MPDUs while it waits).
//! - An MPDU given up moves both windows at once: the recipient releases what waited
//!   behind it when the originator gives up, not when a BlockAckReq reaches it.
//! - After a missed Block Ack the MPDUs go again in the next A-MPDU (802.11 allows this or
//!   a BlockAckReq first; ns-3.44 sends a BlockAckReq by default,
//!   `QosTxop::UseExplicitBarAfterMissedBlockAck`).
//! - Every transmission of an MPDU counts against `short_retry_limit`, and the MPDU is
//!   given up when they reach it: 802.11-2012's retry limit read per MPDU (a reading).
//!   802.11-2020, as ns-3.44 quotes it (`wifi-remote-station-manager.cc:66-76`), counts
//!   no retries for frames under a Block Ack agreement and leaves them to their lifetime;
//!   ns-3.44 does so by default and then drops at its 500 ms queue lifetime. Neither
//!   lifetime is modelled here.
//! - A transmission overlapping any part of an A-MPDU at its receiver destroys every MPDU
//!   in it, as for any frame here; ns-3 decides each MPDU by the interference during its
//!   own airtime, so MPDUs that end before a hidden station starts still arrive.
//! - An MPDU taken from the queue that did not fit the A-MPDU (`spare`) has left the
//!   queue discipline: the MAC holds the queue's limit, the window (up to 64) and it.
//! - One window per station: an A-MPDU carries MPDUs for one receiver, taken in queue
//!   order; a queued MPDU for another receiver waits until the window has emptied (ns-3
//!   and Linux keep a queue per receiver and aggregate each apart).

use std::collections::VecDeque;

use super::dcf::Head;
use super::WifiOutcome;
use crate::time::Time;

/// 8.6.1: the MPDU delimiter in front of every MPDU of an A-MPDU.
pub const DELIMITER_BYTES: u32 = 4;
/// 8.3.1.9: a compressed BlockAck frame.
pub const BLOCK_ACK_BYTES: u32 = 32;
/// The compressed Block Ack bitmap's 64 MPDUs: the span of the transmit window.
pub const WINDOW: usize = 64;
/// The longest HT-mixed PPDU: its L-SIG LENGTH (12 bits, at most 4095 octets) read at 6
/// Mb/s (802.11-2012 20.3.9.3.5) gives 20 us + 4 us x ceil((16 + 8 x 4095 + 6) / 24) =
/// 5484 us (ns-3.44 `wifi-phy-common.cc:151-174`).
pub const HT_PPDU_MAX: Time = 5_484_000;

/// How a station aggregates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aggregation {
    /// The largest A-MPDU, octets (delimiters and padding included; an HT receiver takes
    /// up to 65535, 8.4.2.58.3, a VHT one up to 1048575, 802.11-2016 9.4.2.158.2).
    pub max_bytes: u32,
    /// The most MPDUs in one A-MPDU (1..=64).
    pub max_frames: u32,
}

impl Default for Aggregation {
    /// ns-3.44's `BE_MaxAmpduSize` (65535) and the 64-MPDU bitmap.
    fn default() -> Self {
        Aggregation { max_bytes: 65_535, max_frames: WINDOW as u32 }
    }
}

/// The A-MPDU length after a subframe of `mpdu` octets joins one of `len` octets (0: an
/// empty aggregate): the previous subframe padded to 4 octets, a delimiter, the MPDU.
pub fn with_subframe(len: u32, mpdu: u32) -> u32 {
    len.next_multiple_of(4) + DELIMITER_BYTES + mpdu
}

/// One MPDU in the transmit window.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mpdu {
    pub h: Head,
    /// A Block Ack (or ACK) reported it received.
    pub acked: bool,
    /// Given up at the retry limit.
    pub gone: bool,
    /// Handed up by the recipient (a `Delivered` outcome was made).
    pub up: bool,
    /// Part of the PPDU in flight.
    pub in_ppdu: bool,
}

impl Mpdu {
    pub fn new(h: Head) -> Mpdu {
        Mpdu { h, acked: false, gone: false, up: false, in_ppdu: false }
    }

    /// Still to be sent (or sent again).
    pub fn pending(&self) -> bool {
        !self.acked && !self.gone
    }
}

/// The originator's window of one station and, by ground truth, its recipient's
/// reordering buffer. Holds at most [`WINDOW`] MPDUs (allocated once).
#[derive(Debug)]
pub(crate) struct Window {
    pub q: VecDeque<Mpdu>,
}

impl Default for Window {
    fn default() -> Self {
        Window { q: VecDeque::with_capacity(WINDOW) }
    }
}

impl Window {
    /// The first MPDU still to be sent.
    pub fn first_pending(&self) -> Option<Head> {
        self.q.iter().find(|e| e.pending()).map(|e| e.h)
    }

    /// The receiver of the MPDUs in the window, if any.
    pub fn dst(&self) -> Option<u32> {
        self.q.front().map(|e| e.h.dst)
    }

    /// The recipient hands up, in sequence order, every received MPDU not preceded by a
    /// gap (an MPDU neither received nor given up), from `from`; then the originator's
    /// window start moves past what is acknowledged or given up.
    pub fn advance(&mut self, from: u32, out: &mut Vec<WifiOutcome>) {
        for e in self.q.iter_mut() {
            if e.up || (e.gone && !e.h.delivered) {
                continue;
            }
            if !e.h.delivered {
                break;
            }
            e.up = true;
            out.push(WifiOutcome::Delivered { station: e.h.dst, from, packet: e.h.packet });
        }
        while self.q.front().is_some_and(|e| !e.pending()) {
            self.q.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(i: u32) -> Head {
        Head { packet: i, dst: 1, size: 1500, attempts: 1, delivered: false, flow: 0, seq: u64::from(i), data: true }
    }

    fn delivered(out: &[WifiOutcome]) -> Vec<u32> {
        out.iter()
            .map(|o| match o {
                WifiOutcome::Delivered { packet, .. } => *packet,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn subframes_are_padded_to_four_octets_except_the_last() {
        // 8.6.1; ns-3.44 gives 3106 octets for three 1030-octet MPDUs (1036 + 1036 + 1034).
        let len = [1030, 1030, 1030].into_iter().fold(0, with_subframe);
        assert_eq!(len, 3106);
        assert_eq!(with_subframe(0, 1537), 1541);
        assert_eq!(with_subframe(1541, 100), 1544 + 4 + 100);
    }

    #[test]
    fn the_longest_ht_mixed_ppdu_follows_from_the_l_sig_length() {
        let symbols = (16 + 8 * 4095 + 6_u64).div_ceil(24);
        assert_eq!(20_000 + 4_000 * symbols, HT_PPDU_MAX);
    }

    #[test]
    fn an_mpdu_received_after_a_gap_waits_for_the_gap() {
        let mut w = Window::default();
        for i in 0..4 {
            w.q.push_back(Mpdu::new(head(i)));
        }
        let mut out = Vec::new();
        // MPDUs 1 and 3 arrive, 0 and 2 are lost: nothing goes up, nothing leaves.
        for i in [1, 3] {
            w.q[i].h.delivered = true;
            w.q[i].acked = true;
        }
        w.advance(0, &mut out);
        assert!(out.is_empty());
        assert_eq!(w.q.len(), 4);
        // 0 arrives: 0 and 1 go up in order, 2 still holds 3 back.
        w.q[0].h.delivered = true;
        w.q[0].acked = true;
        w.advance(0, &mut out);
        assert_eq!(delivered(&out), [0, 1]);
        assert_eq!(w.first_pending().map(|h| h.packet), Some(2));
        // 2 is given up: 3 goes up, the window empties.
        out.clear();
        w.q[0].gone = true;
        w.advance(0, &mut out);
        assert_eq!(delivered(&out), [3]);
        assert!(w.q.is_empty());
    }

    #[test]
    fn a_copy_received_but_never_acknowledged_goes_up_once_and_stays_to_be_resent() {
        let mut w = Window::default();
        w.q.push_back(Mpdu::new(head(7)));
        w.q[0].h.delivered = true; // the Block Ack was lost
        let mut out = Vec::new();
        w.advance(0, &mut out);
        w.advance(0, &mut out);
        assert_eq!(delivered(&out), [7]);
        assert_eq!(w.first_pending().map(|h| h.packet), Some(7));
    }
}
