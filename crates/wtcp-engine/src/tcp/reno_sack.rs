//! ns-3.44's scoreboard without SACK (`tcp.reno_sack = true`): the sender invents a SACK
//! for every duplicate ACK and keeps per-segment lost and retransmitted flags, as
//! `TcpTxBuffer` does when `TcpSocketBase::Sack` is false. The sender's pipe and NextSeg
//! come from these flags instead of RFC 5681 window inflation.
//!
//! Read from ns-3.44 `src/internet/model/tcp-tx-buffer.cc` (TcpTxBuffer) and
//! `tcp-socket-base.cc` (TcpSocketBase):
//! - `AddRenoSack` (tx-buffer 1368-1409) marks the first unmarked segment after the head
//!   as SACKed, so the marks always form one run starting at the second segment; here
//!   they are a count `k` (segments 1..=k SACKed). The highest mark is the highest SACK
//!   (`m_highestSack`).
//! - The marks are cleared only by a timeout (`ResetRenoSack`, socket-base 3922-3925) or
//!   when a cumulative ACK passes them, not when recovery ends: an ACK that lands inside
//!   the run makes the new head a marked segment, which `DiscardUpTo` (tx-buffer 735-749)
//!   unmarks, marks the next one instead and marks the head lost, so the head is
//!   retransmitted though it may still be in flight.
//! - `MarkHeadAsLost` (tx-buffer 1339-1366) sets the head's lost flag and clears its
//!   retransmitted flag; `SetSentListLost(true)` after a timeout (tx-buffer 1260-1306)
//!   marks everything sent as lost and clears every retransmitted flag.
//! - `BytesInFlight` (tx-buffer 1055-1074) = sent - SACKed - lost + retransmitted.
//! - `NextSeg` (tx-buffer 949-1053), rule (1): the first segment neither retransmitted
//!   nor SACKed, below the highest SACK when a SACK was seen, and lost. Rule (3) is off
//!   without SACK (socket-base 3432) and rule (4) is not implemented.
//! - `IsLost` (tx-buffer 915-947): false at or above the highest SACK, else the flag.
//!
//! Segments are MSS-aligned from SND.UNA (the sender's own simplification); the last one
//! may be short. Nothing here allocates per packet once the flag queue has grown to the
//! window.

use std::collections::VecDeque;

#[derive(Debug, Clone)]
pub struct RenoSack {
    mss: u64,
    /// Segments 1..=k after the head carry an invented SACK.
    k: u64,
    /// The head segment's lost flag (`MarkHeadAsLost`).
    head_lost: bool,
    /// Everything below this sequence number that was sent before the last timeout is
    /// lost (`SetSentListLost`); at most SND.MAX of that timeout.
    lost_end: u64,
    /// Per segment from SND.UNA: the retransmitted flag, as the bytes retransmitted (0: none).
    retrans: VecDeque<u32>,
    retrans_bytes: u64,
}

impl RenoSack {
    pub fn new(mss: u64) -> Self {
        RenoSack { mss, k: 0, head_lost: false, lost_end: 0, retrans: VecDeque::new(), retrans_bytes: 0 }
    }

    /// Segments outstanding between `una` and `max`.
    fn segments(&self, una: u64, max: u64) -> u64 {
        (max - una).div_ceil(self.mss)
    }

    /// Bytes of the segments `from..to` (indices from the head).
    fn span(&self, una: u64, max: u64, from: u64, to: u64) -> u64 {
        (una + to * self.mss).min(max).saturating_sub((una + from * self.mss).min(max))
    }

    /// `AddRenoSack`: a duplicate ACK reports one more segment gone.
    pub fn add(&mut self, una: u64, max: u64) {
        if self.k + 1 < self.segments(una, max) {
            self.k += 1;
        }
    }

    /// `MarkHeadAsLost`.
    pub fn mark_head_lost(&mut self) {
        self.head_lost = true;
        self.clear_retrans(0);
    }

    /// The cumulative ACK moved SND.UNA from `una` to `ack` (`DiscardUpTo`); `max` is
    /// SND.MAX. Returns whether the new head had been marked SACKed (then it is marked lost).
    pub fn discard(&mut self, una: u64, ack: u64, max: u64) -> bool {
        let whole = (ack - una) / self.mss;
        let gone = (ack - una).div_ceil(self.mss) as usize;
        for _ in 0..gone.min(self.retrans.len()) {
            self.retrans_bytes -= u64::from(self.retrans.pop_front().unwrap_or(0));
        }
        if whole == 0 {
            return false; // the ACK ends inside the head segment: the same head
        }
        self.head_lost = false;
        if whole > self.k {
            self.k = 0; // the ACK passed every mark
            return false;
        }
        // The new head was the `whole`-th mark: unmark it, mark the next segment instead
        // and presume the head lost (tx-buffer 735-749).
        self.k -= whole;
        self.add(ack, max);
        self.mark_head_lost();
        true
    }

    /// A timeout: `ResetRenoSack` then `SetSentListLost(true)`.
    pub fn on_timeout(&mut self, max: u64) {
        self.k = 0;
        self.head_lost = false;
        self.lost_end = max;
        for r in self.retrans.iter_mut() {
            *r = 0;
        }
        self.retrans_bytes = 0;
    }

    /// Whether the segment at index `i` is lost.
    fn lost(&self, una: u64, i: u64) -> bool {
        (i == 0 && self.head_lost) || una + i * self.mss < self.lost_end
    }

    fn lost_bytes(&self, una: u64, max: u64) -> u64 {
        let range = self.lost_end.min(max).saturating_sub(una);
        let head = if self.head_lost && range == 0 { self.mss.min(max - una) } else { 0 };
        range + head
    }

    /// `BytesInFlight`: sent - SACKed - lost + retransmitted.
    pub fn in_flight(&self, una: u64, max: u64) -> u64 {
        let sacked = self.span(una, max, 1, self.k + 1);
        (max - una + self.retrans_bytes).saturating_sub(sacked + self.lost_bytes(una, max))
    }

    /// `IsLost(SND.UNA)`: only below the highest SACK.
    pub fn head_is_lost(&self, una: u64) -> bool {
        self.k > 0 && self.lost(una, 0)
    }

    /// NextSeg rule (1): the first lost segment neither retransmitted nor SACKed, below
    /// the highest SACK if there is one.
    pub fn next_lost(&self, una: u64, max: u64) -> Option<u64> {
        if self.k > 0 {
            // Only the head lies below the highest SACK without being SACKed.
            return (self.lost(una, 0) && self.retrans(0) == 0).then_some(una);
        }
        // Lost segments are the head or lie below the last timeout's SND.MAX.
        let lost = self.lost_end.min(max).saturating_sub(una).div_ceil(self.mss).max(u64::from(self.head_lost));
        (0..lost).find(|&i| self.lost(una, i) && self.retrans(i) == 0).map(|i| una + i * self.mss)
    }

    fn retrans(&self, i: u64) -> u32 {
        self.retrans.get(i as usize).copied().unwrap_or(0)
    }

    fn clear_retrans(&mut self, i: usize) {
        if let Some(r) = self.retrans.get_mut(i) {
            self.retrans_bytes -= u64::from(std::mem::take(r));
        }
    }

    /// A segment of `len` bytes at `seq` was retransmitted (`GetTransmittedSegment`).
    pub fn on_retransmit(&mut self, una: u64, seq: u64, len: u64) {
        let i = ((seq - una) / self.mss) as usize;
        if self.retrans.len() <= i {
            self.retrans.resize(i + 1, 0);
        }
        if self.retrans[i] == 0 {
            self.retrans[i] = len as u32;
            self.retrans_bytes += len;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u64 = 1000;

    #[test]
    fn duplicate_acks_mark_from_the_second_segment_and_reduce_the_pipe() {
        let mut r = RenoSack::new(M);
        assert_eq!(r.in_flight(0, 10 * M), 10 * M);
        r.add(0, 10 * M);
        r.add(0, 10 * M);
        r.add(0, 10 * M);
        r.mark_head_lost();
        // sent 10 - 3 SACKed - 1 lost (ns-3 EnterRecovery then adds one segment back).
        assert_eq!(r.in_flight(0, 10 * M), 6 * M);
        assert!(r.head_is_lost(0));
        assert_eq!(r.next_lost(0, 10 * M), Some(0));
        r.on_retransmit(0, 0, M);
        assert_eq!(r.in_flight(0, 10 * M), 7 * M);
        assert_eq!(r.next_lost(0, 10 * M), None);
    }

    #[test]
    fn no_mark_beyond_the_last_segment_sent() {
        let mut r = RenoSack::new(M);
        for _ in 0..5 {
            r.add(0, 3 * M);
        }
        assert_eq!(r.k, 2);
    }

    #[test]
    fn an_ack_inside_the_marks_moves_one_mark_and_presumes_the_head_lost() {
        let mut r = RenoSack::new(M);
        for _ in 0..4 {
            r.add(0, 20 * M); // segments 1-4 marked
        }
        // Recovery ended earlier; an ACK of two segments lands on mark 2.
        assert!(r.discard(0, 2 * M, 20 * M));
        // Marks were old 3, 4 (now 1, 2); one more is added: 1..=3.
        assert_eq!(r.k, 3);
        assert!(r.head_is_lost(2 * M));
        assert_eq!(r.next_lost(2 * M, 20 * M), Some(2 * M));
        // An ACK past every mark clears them.
        assert!(!r.discard(2 * M, 7 * M, 20 * M));
        assert_eq!(r.k, 0);
        assert!(!r.head_is_lost(7 * M));
        assert_eq!(r.in_flight(7 * M, 20 * M), 13 * M);
    }

    #[test]
    fn a_timeout_marks_everything_sent_lost_and_goes_back_in_order() {
        let mut r = RenoSack::new(M);
        r.add(0, 8 * M);
        r.on_retransmit(0, 0, M);
        r.on_timeout(8 * M);
        assert_eq!(r.in_flight(0, 8 * M), 0);
        assert!(!r.head_is_lost(0), "IsLost is false without a SACK seen");
        for i in 0..8 {
            assert_eq!(r.next_lost(0, 8 * M), Some(i * M));
            r.on_retransmit(0, i * M, M);
        }
        assert_eq!(r.next_lost(0, 8 * M), None);
        assert_eq!(r.in_flight(0, 8 * M), 8 * M);
        // New data beyond the timeout's SND.MAX is not lost.
        assert_eq!(r.in_flight(0, 10 * M), 10 * M);
        r.discard(0, 3 * M, 10 * M);
        assert_eq!(r.in_flight(3 * M, 10 * M), 7 * M);
    }

    #[test]
    fn a_short_last_segment_counts_its_own_bytes() {
        let mut r = RenoSack::new(M);
        r.add(0, 2 * M + 300);
        r.add(0, 2 * M + 300);
        assert_eq!(r.in_flight(0, 2 * M + 300), M);
    }
}
