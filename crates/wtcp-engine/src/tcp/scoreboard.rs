//! The sender's SACK scoreboard and RFC 6675's conservative loss-recovery rules.
//!
//! RFC 2018 SACK blocks from each ACK are folded into a set of SACKed ranges above
//! SND.UNA; from it follow RFC 6675's `IsLost`, `SetPipe` and `NextSeg` (§4), the DSACK
//! test of RFC 2883 §4, and the bookkeeping of retransmissions (HighRxt, RescueRxt).
//!
//! Data is sent in segments of at most SMSS starting at multiples of SMSS (wtcp's sender
//! never re-packetises), so every rule works on whole segments: a segment is SACKed or
//! not, lost or not, retransmitted or not. Ranges are kept as sorted disjoint `[start, end)`
//! vectors; the work per ACK is linear in the number of holes, not in the window.

/// A SACK block (RFC 2018 §3): `[start, end)` of received bytes.
pub type Block = (u64, u64);

/// Sorted disjoint `[start, end)` ranges with a running byte count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeSet {
    ranges: Vec<Block>,
    bytes: u64,
}

impl RangeSet {
    pub fn ranges(&self) -> &[Block] {
        &self.ranges
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    pub fn clear(&mut self) {
        self.ranges.clear();
        self.bytes = 0;
    }

    /// Add `[start, end)`, merging with touching neighbours. Returns the bytes that were new.
    pub fn insert(&mut self, start: u64, end: u64) -> u64 {
        if start >= end {
            return 0;
        }
        let before = self.bytes;
        // First range that ends at or after `start` (touching ranges merge).
        let i = self.ranges.partition_point(|&(_, e)| e < start);
        let mut j = i;
        let (mut s, mut e) = (start, end);
        let mut removed = 0;
        while j < self.ranges.len() && self.ranges[j].0 <= e {
            s = s.min(self.ranges[j].0);
            e = e.max(self.ranges[j].1);
            removed += self.ranges[j].1 - self.ranges[j].0;
            j += 1;
        }
        self.ranges.splice(i..j, std::iter::once((s, e)));
        self.bytes = self.bytes - removed + (e - s);
        self.bytes - before
    }

    /// Remove `[start, end)` from the set (splitting a range that contains it).
    pub fn remove(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        let mut i = self.ranges.partition_point(|&(_, e)| e <= start);
        while i < self.ranges.len() && self.ranges[i].0 < end {
            let (s, e) = self.ranges[i];
            let (cut_s, cut_e) = (s.max(start), e.min(end));
            self.bytes -= cut_e - cut_s;
            match (s < start, e > end) {
                (true, true) => {
                    // The removed part is inside: split in two.
                    self.ranges[i] = (s, start);
                    self.ranges.insert(i + 1, (end, e));
                    return;
                }
                (true, false) => {
                    self.ranges[i].1 = start;
                    i += 1;
                }
                (false, true) => {
                    self.ranges[i].0 = end;
                    return;
                }
                (false, false) => {
                    self.ranges.remove(i);
                }
            }
        }
    }

    /// Append to `out` the parts of `[start, end)` not in the set (before an `insert`,
    /// the bytes it will add).
    pub fn gaps(&self, start: u64, end: u64, out: &mut Vec<Block>) {
        let mut at = start;
        let i = self.ranges.partition_point(|&(_, e)| e <= start);
        for &(s, e) in &self.ranges[i..] {
            if s >= end {
                break;
            }
            if s > at {
                out.push((at, s));
            }
            at = at.max(e);
        }
        if at < end {
            out.push((at, end));
        }
    }

    /// The first byte of `[start, end)` not in the set.
    pub fn first_gap(&self, start: u64, end: u64) -> Option<u64> {
        let i = self.ranges.partition_point(|&(_, e)| e <= start);
        match self.ranges.get(i) {
            Some(&(s, e)) if s <= start => (e < end).then_some(e),
            _ => (start < end).then_some(start),
        }
    }

    /// Forget everything below `seq`.
    pub fn trim_below(&mut self, seq: u64) {
        let n = self.ranges.partition_point(|&(_, e)| e <= seq);
        for &(s, e) in &self.ranges[..n] {
            self.bytes -= e - s;
        }
        self.ranges.drain(..n);
        if let Some(first) = self.ranges.first_mut() {
            if first.0 < seq {
                self.bytes -= seq - first.0;
                first.0 = seq;
            }
        }
    }

    /// Whether every byte of `[start, end)` is in the set.
    pub fn covers(&self, start: u64, end: u64) -> bool {
        let i = self.ranges.partition_point(|&(_, e)| e <= start);
        self.ranges.get(i).is_some_and(|&(s, e)| s <= start && end <= e)
    }

    /// Bytes of the set at or above `seq`.
    pub fn bytes_above(&self, seq: u64) -> u64 {
        let mut total = 0;
        for &(s, e) in self.ranges.iter().rev() {
            if e <= seq {
                break;
            }
            total += e - s.max(seq);
        }
        total
    }

    /// Bytes of the set in `[a, b)`, for `a <= b`.
    pub fn bytes_between(&self, a: u64, b: u64) -> u64 {
        self.bytes_above(a) - self.bytes_above(b)
    }

    /// The highest byte + 1 in the set.
    pub fn high(&self) -> Option<u64> {
        self.ranges.last().map(|r| r.1)
    }
}

/// What one ACK's SACK option told the scoreboard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackUpdate {
    /// Bytes newly SACKed by this ACK (RFC 6675 "DeliveredData" beyond the cumulative ACK).
    pub newly_sacked: u64,
    /// The first block reported a duplicate (RFC 2883 §4).
    pub dsack: bool,
}

/// RFC 6675's sender state.
#[derive(Clone, Debug)]
pub struct Scoreboard {
    smss: u64,
    dup_thresh: u64,
    sacked: RangeSet,
    /// Bytes retransmitted in the current recovery that are neither acknowledged nor SACKed.
    retransmitted: RangeSet,
    /// HighRxt: the highest byte + 1 retransmitted in this recovery.
    pub high_rxt: u64,
    /// The ranges the last `update` SACKed for the first time (reused, never shrunk).
    newly: Vec<Block>,
    /// RFC 8985 RACK decides what is lost (`tcp.loss_detection = "rack"`): the segments it
    /// marked, neither acknowledged nor SACKed, take the place of RFC 6675's IsLost.
    rack: bool,
    lost: RangeSet,
    /// RescueRxt (RFC 6675 §4, NextSeg (4)): set to HighData at the rescue retransmission.
    pub rescue_rxt: Option<u64>,
}

impl Scoreboard {
    pub fn new(smss: u64, dup_thresh: u32) -> Self {
        Scoreboard {
            smss,
            dup_thresh: u64::from(dup_thresh.max(1)),
            sacked: RangeSet::default(),
            retransmitted: RangeSet::default(),
            high_rxt: 0,
            newly: Vec::new(),
            rack: false,
            lost: RangeSet::default(),
            rescue_rxt: None,
        }
    }

    /// Loss is what RACK marks (`mark_lost`), not RFC 6675's IsLost.
    pub fn with_rack(mut self) -> Self {
        self.rack = true;
        self
    }

    /// RACK: `[seq, seq + len)` is lost; a retransmission of it is no longer in flight
    /// (Linux `tcp_mark_skb_lost`). Returns false if it was already awaiting retransmission.
    pub fn mark_lost(&mut self, seq: u64, len: u64) -> bool {
        let awaiting = self.awaits_retransmission(seq, len);
        self.lost.insert(seq, seq + len);
        self.retransmitted.remove(seq, seq + len);
        !awaiting
    }

    /// RACK: the first segment marked lost and not retransmitted since, at or above
    /// `snd_una` (what Linux's `tcp_xmit_retransmit_queue` resends first).
    pub fn next_lost(&self, snd_una: u64) -> Option<u64> {
        let from = self.lost.ranges().partition_point(|&(_, e)| e <= snd_una);
        self.lost.ranges()[from..].iter().find_map(|&(s, e)| self.retransmitted.first_gap(s.max(snd_una), e))
    }

    /// RACK: `[seq, seq + len)` is marked lost and not retransmitted since.
    pub fn awaits_retransmission(&self, seq: u64, len: u64) -> bool {
        self.lost.covers(seq, seq + len) && !self.retransmitted.covers(seq, seq + len)
    }

    /// `SetPipe` already counts a resend of `[seq, seq + len)` about to leave: it was
    /// recorded as retransmitted, or it is neither lost nor SACKed (going back N).
    pub fn counts_in_pipe(&self, seq: u64, len: u64) -> bool {
        let lost = if self.rack { self.lost.covers(seq, seq + len) } else { self.is_lost(seq, len) };
        self.retransmitted.covers(seq, seq + len) || !(lost || self.sacked.covers(seq, seq + len))
    }

    /// RACK's pipe over `[a, b)`: bytes neither SACKed nor marked lost, plus those
    /// retransmitted and still out.
    pub fn pipe_between(&self, a: u64, b: u64) -> u64 {
        (b - a) - self.sacked.bytes_between(a, b) - self.lost.bytes_between(a, b) + self.retransmitted.bytes_between(a, b)
    }

    /// RACK, going back N after a timeout: `[seq, seq + len)` is sent again, in flight.
    pub fn forget_lost(&mut self, seq: u64, len: u64) {
        self.lost.remove(seq, seq + len);
    }

    pub fn sacked(&self) -> &RangeSet {
        &self.sacked
    }

    /// RFC 6675 §5 "Update()": fold one ACK into the scoreboard. `blocks` are in the
    /// order the receiver sent them (the first may be a DSACK).
    pub fn update(&mut self, ack: u64, blocks: &[Block]) -> SackUpdate {
        self.newly.clear();
        self.sacked.trim_below(ack);
        self.lost.trim_below(ack);
        self.retransmitted.trim_below(ack);
        let mut u = SackUpdate::default();
        for (i, &(s, e)) in blocks.iter().enumerate() {
            // RFC 2883 §4: a first block below the cumulative ACK, or inside the second
            // block, reports a duplicate segment.
            if i == 0 && (e <= ack || blocks.get(1).is_some_and(|&(s2, e2)| s2 <= s && e <= e2)) {
                u.dsack = true;
                continue;
            }
            let (s, e) = (s.max(ack), e);
            if s < e {
                self.sacked.gaps(s, e, &mut self.newly);
                u.newly_sacked += self.sacked.insert(s, e);
                self.lost.remove(s, e);
                // SetPipe (b) counts retransmitted octets that are not SACKed: a SACKed
                // retransmission (or part of one) is no longer in flight twice.
                self.retransmitted.remove(s, e);
            }
        }
        u
    }

    /// The byte ranges the last `update` SACKed that no earlier ACK had SACKed.
    pub fn newly_sacked(&self) -> &[Block] {
        &self.newly
    }

    /// RFC 6675 §4 "IsLost(SeqNum)" for the segment `[seq, seq + len)`: more than
    /// (DupThresh - 1) * SMSS bytes above it have been SACKed (with whole-segment SACKs this
    /// is also "DupThresh discontiguous SACKed sequences").
    pub fn is_lost(&self, seq: u64, len: u64) -> bool {
        self.sacked.bytes_above(seq + len) > (self.dup_thresh - 1) * self.smss
    }

    /// RFC 6675 §4 "SetPipe()": bytes in flight between SND.UNA and SND.MAX.
    pub fn pipe(&self, snd_una: u64, snd_max: u64) -> u64 {
        if self.rack {
            // Linux tcp_packets_in_flight: out - SACKed - lost + retransmitted.
            return self.pipe_between(snd_una, snd_max.max(snd_una));
        }
        // IsLost is monotonic in seq (bytes SACKed above fall as seq grows): every segment
        // below `lost_end` is lost, none at or above it.
        let lost_end = self.lost_end(snd_una, snd_max);
        let outstanding = snd_max.saturating_sub(snd_una);
        let sacked = self.sacked.bytes_above(snd_una).min(outstanding);
        let lost_unsacked = lost_end.saturating_sub(snd_una) - self.sacked.bytes_between(snd_una, lost_end);
        // (a) every unSACKed byte not lost, (b) every retransmitted byte still out.
        outstanding - sacked - lost_unsacked + self.retransmitted.bytes_above(snd_una)
    }

    /// The end of the lost prefix: the first segment boundary at or above SND.UNA whose
    /// segment is not lost (SND.UNA itself when nothing is).
    fn lost_end(&self, snd_una: u64, snd_max: u64) -> u64 {
        let limit = (self.dup_thresh - 1) * self.smss;
        if self.sacked.bytes_above(snd_una) <= limit {
            return snd_una;
        }
        // Walk down from the top until more than `limit` bytes lie above.
        let mut above = 0;
        for &(s, e) in self.sacked.ranges().iter().rev() {
            if above + (e - s) > limit {
                // The boundary falls inside this range: the last byte b with
                // bytes_above(b) > limit is e - (limit - above) - 1.
                let b = e - (limit - above) - 1;
                // Segments whose end is at most b are lost.
                let seg_end = snd_una + b.saturating_sub(snd_una) / self.smss * self.smss;
                return seg_end.min(snd_max);
            }
            above += e - s;
        }
        snd_una
    }

    /// RFC 6675 §4 "NextSeg()" rules (1) and (3): the first unSACKed segment above HighRxt
    /// that is lost (rule 1), or, with `allow_unlost`, any unSACKed one below the highest
    /// SACKed byte (rule 3). `None` means: send new data if possible (rule 2), else rule 4.
    pub fn next_retransmission(&self, snd_una: u64, snd_max: u64, allow_unlost: bool) -> Option<u64> {
        let high_sacked = self.sacked.high()?;
        let mut seq = snd_una.max(self.high_rxt);
        // Segment-align (HighRxt is always a segment end).
        while seq < high_sacked.min(snd_max) {
            let len = self.smss.min(snd_max - seq);
            if !self.sacked.covers(seq, seq + len) {
                if self.is_lost(seq, len) || allow_unlost {
                    return Some(seq);
                }
                return None; // later holes are not lost either (monotonic)
            }
            // Skip the SACKed range that starts here.
            let i = self.sacked.ranges().partition_point(|&(_, e)| e <= seq);
            seq = self.sacked.ranges()[i].1;
            // Back to a segment boundary.
            seq = snd_una + (seq - snd_una).div_ceil(self.smss) * self.smss;
        }
        None
    }

    /// RFC 6675 §4 NextSeg (4), the rescue retransmission: "(4.a) HighACK > RescueRxt (or
    /// RescueRxt is undefined)", one segment holding the highest outstanding unSACKed
    /// byte, then "RescueRxt = RecoveryPoint" (here HighData, at or above it): at most one
    /// per recovery.
    pub fn rescue(&mut self, snd_una: u64, snd_max: u64) -> Option<u64> {
        if self.rescue_rxt.is_some_and(|r| snd_una <= r) || snd_max <= snd_una {
            return None;
        }
        let mut last = snd_una + (snd_max - 1 - snd_una) / self.smss * self.smss;
        loop {
            let len = self.smss.min(snd_max - last);
            if !self.sacked.covers(last, last + len) {
                self.rescue_rxt = Some(snd_max);
                return Some(last);
            }
            if last < snd_una + self.smss {
                return None;
            }
            last -= self.smss;
        }
    }

    /// Record a retransmission of `[seq, seq + len)` (RFC 6675 §5 step C: HighRxt).
    pub fn on_retransmit(&mut self, seq: u64, len: u64) {
        self.retransmitted.insert(seq, seq + len);
        self.high_rxt = self.high_rxt.max(seq + len);
    }

    /// Record the rescue retransmission (NextSeg (4)): in flight again, but "HighRxt MUST
    /// NOT be updated" (RFC 6675 §4).
    pub fn on_rescue(&mut self, seq: u64, len: u64) {
        self.retransmitted.insert(seq, seq + len);
    }

    /// RFC 6675 §5 (4.3): after the first retransmission of a recovery, "set both HighRxt
    /// and RescueRxt to the highest sequence number in the retransmitted segment".
    pub fn on_first_retransmit(&mut self, seq: u64, len: u64) {
        self.on_retransmit(seq, len);
        // The highest sequence number in the segment is its last byte.
        self.rescue_rxt = Some(seq + len - 1);
    }

    /// A new recovery starts: retransmission bookkeeping restarts from SND.UNA (with RACK a
    /// retransmission still in flight stays so, Linux's TCPCB_SACKED_RETRANS).
    pub fn start_recovery(&mut self, snd_una: u64) {
        if !self.rack {
            self.retransmitted.clear();
        }
        self.high_rxt = snd_una;
        self.rescue_rxt = None;
    }

    /// RFC 6675 §5.1 ("SHOULD utilize all SACK information" after an RTO, rather than RFC
    /// 2018 §8's clearing of the SACKed bits): the SACK information is kept, nothing counts
    /// as retransmitted any more.
    pub fn on_timeout(&mut self, snd_una: u64) {
        self.start_recovery(snd_una);
        // RACK: going back N resends every unSACKed segment; RACK marks again what is lost.
        self.lost.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u64 = 1000;

    #[test]
    fn ranges_merge_touching_and_overlapping_blocks_and_count_bytes() {
        let mut r = RangeSet::default();
        assert_eq!(r.insert(3000, 4000), 1000);
        assert_eq!(r.insert(5000, 6000), 1000);
        assert_eq!(r.insert(4000, 5000), 1000);
        assert_eq!(r.ranges(), &[(3000, 6000)]);
        assert_eq!(r.insert(2500, 3500), 500);
        assert_eq!(r.insert(8000, 9000), 1000);
        assert_eq!(r.ranges(), &[(2500, 6000), (8000, 9000)]);
        assert_eq!(r.bytes(), 4500);
        assert_eq!(r.bytes_above(5500), 1500);
        r.trim_below(3000);
        assert_eq!((r.ranges(), r.bytes()), (&[(3000, 6000), (8000, 9000)][..], 4000));
        assert!(r.covers(3000, 6000) && !r.covers(5000, 8500));
    }

    #[test]
    fn newly_sacked_ranges_are_the_gaps_each_block_fills_and_nothing_twice() {
        let mut sb = Scoreboard::new(M, 3);
        sb.update(0, &[(2000, 4000)]);
        assert_eq!(sb.newly_sacked(), &[(2000, 4000)]);
        // The same block again, one extending it on both sides, an overlapping second block.
        sb.update(0, &[(1000, 6000), (2000, 4000), (5000, 7000)]);
        assert_eq!(sb.newly_sacked(), &[(1000, 2000), (4000, 6000), (6000, 7000)]);
        // A D-SACK below the cumulative ACK adds nothing.
        sb.update(1000, &[(0, 1000), (1000, 7000)]);
        assert!(sb.newly_sacked().is_empty());
    }

    #[test]
    fn rack_marks_drive_pipe_and_the_next_retransmission() {
        let mut sb = Scoreboard::new(M, 3).with_rack();
        // Segments 0..10 outstanding, 2 and 3 SACKed: nothing lost until RACK says so.
        sb.update(0, &[(2000, 4000)]);
        assert_eq!(sb.pipe(0, 10 * M), 8 * M);
        assert_eq!(sb.next_lost(0), None);
        assert!(sb.mark_lost(0, M) && sb.mark_lost(M, M));
        assert_eq!(sb.pipe(0, 10 * M), 6 * M);
        assert_eq!(sb.next_lost(0), Some(0));
        // Retransmitted: in flight again; the next lost one is segment 1.
        sb.on_retransmit(0, M);
        assert_eq!((sb.pipe(0, 10 * M), sb.next_lost(0)), (7 * M, Some(M)));
        // The retransmission is lost too: out of flight, awaiting retransmission again.
        assert!(sb.mark_lost(0, M));
        assert!(!sb.mark_lost(0, M), "already awaiting");
        assert_eq!((sb.pipe(0, 10 * M), sb.next_lost(0)), (6 * M, Some(0)));
        // A cumulative ACK past it and a SACK of segment 1 clear both marks.
        sb.update(M, &[(M, 4000)]);
        assert_eq!((sb.pipe(4000, 10 * M), sb.next_lost(M)), (6 * M, None));
    }

    /// RFC 6675 §4 with DupThresh 3, SMSS 1000: segments 1..10 sent (bytes 0..10000),
    /// segment 1 (bytes 0..1000) lost, 2..10 SACKed one by one.
    #[test]
    fn a_segment_is_lost_once_more_than_two_segments_above_it_are_sacked() {
        let mut sb = Scoreboard::new(M, 3);
        sb.update(0, &[(1000, 2000)]);
        assert!(!sb.is_lost(0, M));
        sb.update(0, &[(2000, 3000), (1000, 2000)]);
        assert!(!sb.is_lost(0, M));
        assert_eq!(sb.pipe(0, 10_000), 8000);
        sb.update(0, &[(3000, 4000), (1000, 3000)]);
        assert!(sb.is_lost(0, M));
        // Pipe: 10 segments out, 3 SACKed, 1 lost: 6 in flight.
        assert_eq!(sb.pipe(0, 10_000), 6000);
        assert_eq!(sb.next_retransmission(0, 10_000, false), Some(0));
        // After the retransmission the segment is in flight again (SetPipe (b)).
        sb.on_retransmit(0, M);
        assert_eq!(sb.pipe(0, 10_000), 7000);
        assert_eq!(sb.next_retransmission(0, 10_000, false), None);
    }

    #[test]
    fn several_holes_in_one_window_are_all_found_in_order() {
        // Lost: segments at 0, 2000, 5000; everything else up to 10000 SACKed.
        let mut sb = Scoreboard::new(M, 3);
        sb.update(0, &[(6000, 10_000), (3000, 5000), (1000, 2000)]);
        for expect in [0, 2000, 5000] {
            let s = sb.next_retransmission(0, 10_000, false).unwrap();
            assert_eq!(s, expect);
            sb.on_retransmit(s, M);
        }
        assert_eq!(sb.next_retransmission(0, 10_000, false), None);
        // 3 holes lost and retransmitted, 7 segments SACKed: pipe = the 3 retransmissions.
        assert_eq!(sb.pipe(0, 10_000), 3000);
        // The cumulative ACK jumps over the first repaired hole.
        sb.update(2000, &[(6000, 10_000), (3000, 5000)]);
        assert_eq!(sb.pipe(2000, 10_000), 2000);
    }

    #[test]
    fn a_hole_with_too_few_sacks_above_is_not_lost_but_rule_3_may_resend_it() {
        let mut sb = Scoreboard::new(M, 3);
        // Segment 0 lost, 1 SACKed, 2..4 in flight.
        sb.update(0, &[(1000, 2000)]);
        assert_eq!(sb.next_retransmission(0, 5000, false), None);
        assert_eq!(sb.next_retransmission(0, 5000, true), Some(0));
        // Pipe: 5 out - 1 SACKed, none lost = 4.
        assert_eq!(sb.pipe(0, 5000), 4000);
    }

    #[test]
    fn dsack_is_a_first_block_below_the_ack_or_inside_the_second() {
        let mut sb = Scoreboard::new(M, 3);
        // RFC 2883 §4.1.1: a duplicate of an acknowledged segment.
        let u = sb.update(4000, &[(2000, 3000)]);
        assert!(u.dsack);
        assert_eq!(u.newly_sacked, 0);
        // RFC 2883 §4.1.3-style: first block inside the second (a duplicate of a SACKed one).
        let u = sb.update(4000, &[(6000, 7000), (5000, 8000)]);
        assert!(u.dsack);
        assert_eq!(u.newly_sacked, 3000);
        // RFC 2883 §4.1.3 exactly: the duplicate is the whole second block.
        let u = sb.update(4000, &[(11_000, 12_000), (11_000, 12_000)]);
        assert!(u.dsack);
        // An ordinary first block is not a DSACK.
        let u = sb.update(4000, &[(9000, 10_000), (5000, 8000)]);
        assert!(!u.dsack);
        assert_eq!(u.newly_sacked, 1000);
    }

    #[test]
    fn the_rescue_retransmission_is_the_highest_unsacked_segment_once_per_recovery() {
        let mut sb = Scoreboard::new(M, 3);
        sb.update(0, &[(1000, 2000)]);
        // Segments 0, 2, 3, 4 unSACKed; the highest is 4000.
        assert_eq!(sb.rescue(0, 5000), Some(4000));
        assert_eq!(sb.rescue(0, 5000), None);
        // A partial ACK below RescueRxt allows none.
        sb.update(2000, &[]);
        assert_eq!(sb.rescue(2000, 5000), None);
        // A new recovery may rescue again.
        sb.start_recovery(2000);
        assert_eq!(sb.rescue(2000, 5000), Some(4000));
    }

    #[test]
    fn sacked_retransmissions_leave_the_pipe() {
        // Segments 0, 1 lost (2..5 SACKed); both retransmitted: [0, 2000) in flight twice? No:
        // once each (they are lost), so pipe = 2000.
        let mut sb = Scoreboard::new(M, 3);
        sb.update(0, &[(2000, 6000)]);
        sb.start_recovery(0);
        sb.on_retransmit(0, M);
        sb.on_retransmit(1000, M);
        assert_eq!(sb.pipe(0, 6000), 2000);
        // The retransmission of segment 1 is SACKed, segment 0's is lost again: only 1000
        // bytes are in flight (SetPipe counts retransmitted octets that are not SACKed).
        sb.update(0, &[(1000, 6000)]);
        assert_eq!(sb.pipe(0, 6000), 1000);
        // The cumulative ACK covers everything.
        sb.update(6000, &[]);
        assert_eq!(sb.pipe(6000, 6000), 0);
    }

    #[test]
    fn the_rescue_does_not_move_high_rxt_so_rule_3_still_reaches_lower_holes() {
        // Segment 0 lost, 1..4 SACKed, 5..7 at the tail unSACKed (not lost: too few above).
        let mut sb = Scoreboard::new(M, 3);
        sb.update(0, &[(1000, 5000)]);
        sb.start_recovery(0);
        sb.on_first_retransmit(0, M);
        assert_eq!(sb.rescue_rxt, Some(999));
        // No rescue before HighACK passes RescueRxt (RFC 6675 (4.3)).
        assert_eq!(sb.rescue(0, 8000), None);
        sb.update(1000, &[(1000, 5000)]);
        let r = sb.rescue(1000, 8000).unwrap();
        assert_eq!(r, 7000);
        sb.on_rescue(r, M);
        assert_eq!(sb.high_rxt, 1000);
        // 6 and 7 SACKed later: rule 3 offers the unSACKed 5000 below the highest SACK.
        sb.update(5000, &[(6000, 8000)]);
        assert_eq!(sb.next_retransmission(5000, 8000, true), Some(5000));
    }

    #[test]
    fn range_removal_splits_and_trims() {
        let mut r = RangeSet::default();
        r.insert(0, 10_000);
        r.remove(2000, 3000);
        assert_eq!((r.ranges(), r.bytes()), (&[(0, 2000), (3000, 10_000)][..], 9000));
        r.remove(1000, 4000);
        assert_eq!((r.ranges(), r.bytes()), (&[(0, 1000), (4000, 10_000)][..], 7000));
        r.remove(0, 20_000);
        assert_eq!((r.ranges(), r.bytes()), (&[][..], 0));
    }

    /// RFC 6675 §4 SetPipe and IsLost written literally, segment by segment.
    fn naive_pipe(sacked: &[bool], retx: &[bool], dup_thresh: usize) -> u64 {
        let n = sacked.len();
        let mut pipe = 0;
        for i in 0..n {
            if sacked[i] {
                continue;
            }
            let above = sacked[i + 1..].iter().filter(|&&x| x).count();
            if above < dup_thresh {
                pipe += M;
            }
            if retx[i] {
                pipe += M;
            }
        }
        pipe
    }

    proptest::proptest! {
        #[test]
        fn pipe_and_next_seg_agree_with_the_rfc_written_segment_by_segment(
            pattern in proptest::collection::vec((proptest::bool::ANY, proptest::bool::ANY), 1..40),
            una_segs in 0usize..3,
        ) {
            let n = pattern.len();
            let una = (una_segs.min(n - 1) as u64) * M;
            let mut sb = Scoreboard::new(M, 3);
            let mut blocks = Vec::new();
            let mut sacked = vec![false; n];
            let mut retx = vec![false; n];
            for (i, &(s, r)) in pattern.iter().enumerate() {
                let seq = i as u64 * M;
                if seq < una { continue; }
                if s { blocks.push((seq, seq + M)); sacked[i] = true; }
                else if r { retx[i] = true; }
            }
            sb.update(una, &blocks);
            for (i, &r) in retx.iter().enumerate() {
                if r { sb.on_retransmit(i as u64 * M, M); }
            }
            // Every other retransmission is then SACKed (its copy arrived).
            let mut later = Vec::new();
            for (i, r) in retx.iter_mut().enumerate() {
                if *r && i % 2 == 0 {
                    later.push((i as u64 * M, i as u64 * M + M));
                    sacked[i] = true;
                    *r = false;
                }
            }
            sb.update(una, &later);
            let first = (una / M) as usize;
            let expect = naive_pipe(&sacked[first..], &retx[first..], 3);
            proptest::prop_assert_eq!(sb.pipe(una, n as u64 * M), expect);
            // NextSeg (1): the first unSACKed, lost segment at or above HighRxt.
            let high_rxt = sb.high_rxt.max(una);
            let expect_next = (first..n).find(|&i| {
                let seq = i as u64 * M;
                seq >= high_rxt && !sacked[i] && sacked[i + 1..].iter().filter(|&&x| x).count() >= 3
            });
            proptest::prop_assert_eq!(sb.next_retransmission(una, n as u64 * M, false), expect_next.map(|i| i as u64 * M));
        }
    }
}
