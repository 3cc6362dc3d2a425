//! RACK: time-based loss detection (RFC 8985 §6), with `tcp.loss_detection = "rack"`.
//!
//! A segment is lost once a segment sent after it has been delivered (cumulatively ACKed
//! or SACKed) and a reordering window has passed since: `xmit_ts + RACK.rtt + reo_wnd <=
//! now`. Unlike RFC 6675's three-duplicate rule this applies to retransmissions too (a lost
//! retransmission is found without a timeout) and to a single SACKed segment after the
//! reordering window (the timer). With no reordering seen, the window is 0 in recovery
//! and once DupThresh segments are SACKed (RFC 8985 §6.2 step 4), which makes RACK at
//! least as fast as the duplicate-ACK rule.
//!
//! Deviations and ambiguities resolved:
//! - Segments are scanned in transmission order (RFC 8985 §6.2 step 5 "for each segment
//!   not acknowledged"): a list of (seq, send time) per transmission in send order, as
//!   Linux's `tsorted_sent_queue`; a retransmission appends a new entry and the older
//!   one is dropped when the scan meets it. The scan stops at the first segment not sent
//!   before RACK's (Linux `tcp_rack_detect_loss`).
//! - RACK.rtt and RACK.xmit_ts take, of the segments one ACK delivers, the most recently
//!   sent that passes the retransmission filter (§6.2 step 2 processes them in ascending
//!   send time, so the last one sets RACK.rtt). The filter: a retransmitted segment whose
//!   RTT is below the minimum RTT, or whose send time is after the ACK's TSecr, may have
//!   been delivered by its earlier copy, and is skipped.
//! - Reordering (§6.2 step 3) is judged per ACK: a newly delivered segment that was never
//!   retransmitted and ends below the highest end delivered by earlier ACKs (RACK.fack).
//! - The reordering window's D-SACK adaptation (§6.2 step 4) is kept: `reo_wnd_mult` + 1
//!   at most once per round trip on a D-SACK, back to 1 after 16 recoveries without one.
//! - Time-based loss detection after a timeout (§6.3) is in the sender, which goes back
//!   to SND.UNA (skipping SACKed data) rather than marking every segment lost; a segment
//!   RACK finds lost below SND.NXT in that phase (a lost retransmission) is resent first.
//!   While F-RTO judges the timeout, RACK's marks start nothing.
//! - Only SACKed or cumulatively acknowledged segments not delivered before feed steps 2-3
//!   (Linux skips TCPCB_SACKED_ACKED ones in tcp_clean_rtx_queue); the TSecr test of step 2
//!   applies to cumulatively acknowledged segments only (Linux: tcp_sacktag_one uses the
//!   min-RTT test alone, the receiver echoing an older TS.Recent for out-of-order data).
//! - In recovery only segments RACK marked are resent: RFC 6675's NextSeg rules 3 and 4
//!   (the rescue) are off, as in Linux; the tail loss probe (§7) is not modelled.
//! - The RACK timer is its own timer beside the RTO (Linux shares one slot); the scan runs
//!   on every ACK (Linux only when RACK.xmit_ts advanced); `reo_wnd_persist` counts down on
//!   fast-recovery exits only (the RFC also on RTO recovery); DupThresh is fixed (Linux's
//!   `tp->reordering` adapts).
//! - Algorithms without fast recovery (`RecoveryStyle::FastRetransmitOnly`, EWR) keep the
//!   duplicate-ACK rule: no recovery episode bounds RACK's marks there.

use std::collections::VecDeque;

use crate::time::Time;

/// RFC 8985 §6.2 step 4: "RACK.reo_wnd_persist" recoveries before the multiplier resets.
const REO_WND_PERSIST: u32 = 16;

/// What the sender knows of a transmission in the scan (`classify`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// Acknowledged, SACKed, sent again later, or already lost and awaiting retransmission:
    /// nothing to decide.
    Gone,
    /// Outstanding: lost or not, by time.
    Outstanding,
}

#[derive(Clone, Copy, Debug)]
struct Candidate {
    xmit_ts: Time,
    end_seq: u64,
    rtt: Time,
}

/// The RACK state of one sender.
#[derive(Clone, Debug)]
pub struct Rack {
    /// Send time and end of the most recently sent segment delivered so far.
    xmit_ts: Option<Time>,
    end_seq: u64,
    /// RTT of that segment's delivery (RACK.rtt).
    rtt: Time,
    /// Highest end sequence delivered (RACK.fack).
    fack: u64,
    reordering_seen: bool,
    reo_wnd_mult: u32,
    reo_wnd_persist: u32,
    /// D-SACK adaptation at most once per round: the SND.NXT of the last increase.
    dsack_round: Option<u64>,
    /// Transmissions in send order: (seq, send time).
    sent: VecDeque<(u64, Time)>,
    /// The ACK being processed: its best candidate and the RACK.fack before it.
    candidate: Option<Candidate>,
    fack_before: u64,
    /// Segments the last scan found lost (reused, never shrunk).
    lost: Vec<u64>,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            xmit_ts: None,
            end_seq: 0,
            rtt: 0,
            fack: 0,
            reordering_seen: false,
            reo_wnd_mult: 1,
            reo_wnd_persist: REO_WND_PERSIST,
            dsack_round: None,
            sent: VecDeque::new(),
            candidate: None,
            fack_before: 0,
            lost: Vec::new(),
        }
    }
}

/// RFC 8985 `RACK_sent_after(t1, seq1, t2, seq2)`.
fn sent_after(t1: Time, seq1: u64, t2: Time, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

impl Rack {
    /// §6.1: a segment starting at `seq` leaves at `now`.
    pub fn on_sent(&mut self, seq: u64, now: Time) {
        self.sent.push_back((seq, now));
    }

    /// An ACK starts: its delivered segments follow (`on_delivered`), then `finish_ack`.
    pub fn begin_ack(&mut self) {
        self.candidate = None;
        self.fack_before = self.fack;
    }

    /// §6.2 steps 2-3 for one segment `[.., end_seq)` this ACK delivered.
    /// `ts_ecr`: the ACK's TSecr (timestamps on).
    pub fn on_delivered(&mut self, end_seq: u64, xmit_ts: Time, retransmitted: bool, now: Time, min_rtt: Option<Time>, ts_ecr: Option<Time>) {
        // Step 3: delivered below the highest delivered, never retransmitted: reordering.
        if !retransmitted && end_seq < self.fack_before {
            self.reordering_seen = true;
        }
        self.fack = self.fack.max(end_seq);
        // Step 2: a retransmission may have been delivered by its earlier copy.
        let rtt = now.saturating_sub(xmit_ts);
        if retransmitted && (min_rtt.is_some_and(|m| rtt < m) || ts_ecr.is_some_and(|e| e < xmit_ts)) {
            return;
        }
        if self.candidate.is_none_or(|c| sent_after(xmit_ts, end_seq, c.xmit_ts, c.end_seq)) {
            self.candidate = Some(Candidate { xmit_ts, end_seq, rtt });
        }
    }

    /// §6.2 step 2 for the ACK: RACK.rtt from its most recently sent delivered segment,
    /// RACK.xmit_ts/end_seq advanced if that segment was sent after RACK's.
    pub fn finish_ack(&mut self) {
        let Some(c) = self.candidate.take() else { return };
        self.rtt = c.rtt;
        if self.xmit_ts.is_none_or(|t| sent_after(c.xmit_ts, c.end_seq, t, self.end_seq)) {
            self.xmit_ts = Some(c.xmit_ts);
            self.end_seq = c.end_seq;
        }
    }

    /// §6.2 step 4: a D-SACK arrived; `snd_una`, `snd_nxt` now.
    pub fn on_dsack(&mut self, snd_una: u64, snd_nxt: u64) {
        if self.dsack_round.is_none_or(|r| snd_una >= r) {
            self.dsack_round = Some(snd_nxt);
            self.reo_wnd_mult += 1;
            self.reo_wnd_persist = REO_WND_PERSIST;
        }
    }

    /// §6.2 step 4: a loss recovery ended.
    pub fn on_recovery_exit(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
        if self.reo_wnd_persist == 0 {
            self.reo_wnd_mult = 1;
            self.reo_wnd_persist = REO_WND_PERSIST;
        }
    }

    /// §6.2 step 4, RACK.reo_wnd: 0 without reordering seen in recovery or once
    /// `segs_sacked` >= DupThresh; else reo_wnd_mult * min_RTT / 4, at most SRTT.
    pub fn reo_wnd(&self, in_recovery: bool, segs_sacked: u64, dup_thresh: u64, min_rtt: Time, srtt: Time) -> Time {
        if !self.reordering_seen && (in_recovery || segs_sacked >= dup_thresh) {
            return 0;
        }
        (u64::from(self.reo_wnd_mult) * min_rtt / 4).min(srtt)
    }

    /// §6.2 step 5: scan the outstanding segments sent before RACK's; those whose time
    /// is up are in `lost()` afterwards. Returns the time until the next one would be
    /// (arm the RACK timer), if any.
    pub fn detect_loss(&mut self, now: Time, reo_wnd: Time, mut classify: impl FnMut(u64, Time) -> Entry) -> Option<Time> {
        self.lost.clear();
        let Some(rack_ts) = self.xmit_ts else { return None };
        let mut timeout: Option<Time> = None;
        let (mut kept, mut i) = (0, 0);
        while i < self.sent.len() {
            let (seq, ts) = self.sent[i];
            if classify(seq, ts) == Entry::Outstanding {
                if !sent_after(rack_ts, self.end_seq, ts, seq) {
                    break; // sent at or after RACK's segment: not yet decidable
                }
                let deadline = ts + self.rtt + reo_wnd;
                if deadline <= now {
                    self.lost.push(seq);
                } else {
                    timeout = Some(timeout.map_or(deadline - now, |t| t.max(deadline - now)));
                    self.sent[kept] = (seq, ts);
                    kept += 1;
                }
            }
            i += 1;
        }
        // The scanned prefix keeps only the undecided entries.
        self.sent.drain(kept..i);
        timeout
    }

    /// The segments (start sequence) the last `detect_loss` found lost.
    pub fn lost(&self) -> &[u64] {
        &self.lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    /// Segments 0..5 (1000 bytes) sent 1 ms apart; `outstanding` decides which are.
    fn five_sent() -> Rack {
        let mut r = Rack::default();
        for i in 0..5 {
            r.on_sent(i * 1000, i * MS);
        }
        r
    }

    #[test]
    fn a_segment_sent_before_a_delivered_one_is_lost_once_the_window_has_passed() {
        let mut r = five_sent();
        // Segment 2 (sent at 2 ms) is SACKed at 102 ms: RACK.rtt = 100 ms.
        r.begin_ack();
        r.on_delivered(3000, 2 * MS, false, 102 * MS, None, None);
        r.finish_ack();
        let outstanding = |s: u64, _| if s == 2000 { Entry::Gone } else { Entry::Outstanding };
        // With a 25 ms window nothing is lost yet: segment 0 is due at 0 + 100 + 25 ms,
        // segment 1 at 126 ms; the timer waits for the later (RFC 8985: the maximum).
        assert_eq!(r.detect_loss(102 * MS, 25 * MS, outstanding), Some(24 * MS));
        assert!(r.lost().is_empty());
        // The timer fires at 125 ms: segment 0 is lost, segment 1 (due at 126 ms) not yet.
        assert_eq!(r.detect_loss(125 * MS, 25 * MS, outstanding), Some(MS));
        assert_eq!(r.lost(), &[0]);
        assert_eq!(r.detect_loss(126 * MS, 25 * MS, outstanding), None);
        assert_eq!(r.lost(), &[1000]);
        // Segments 3 and 4 were sent after RACK's segment: never judged by it.
        assert_eq!(r.detect_loss(500 * MS, 25 * MS, outstanding), None);
        assert!(r.lost().is_empty());
    }

    #[test]
    fn a_lost_retransmission_is_found_when_later_data_is_delivered() {
        let mut r = five_sent();
        // Segment 0 retransmitted at 110 ms (a new entry), new data 5000 sent at 111 ms and
        // SACKed at 211 ms: the retransmission, still outstanding, is lost.
        r.on_sent(0, 110 * MS);
        r.on_sent(5000, 111 * MS);
        r.begin_ack();
        r.on_delivered(6000, 111 * MS, false, 211 * MS, Some(100 * MS), None);
        r.finish_ack();
        // The first entry of segment 0 is stale (sent again at 110 ms).
        let classify = |s: u64, ts: Time| if s == 0 && ts == 110 * MS { Entry::Outstanding } else { Entry::Gone };
        assert_eq!(r.detect_loss(211 * MS, 0, classify), None);
        assert_eq!(r.lost(), &[0]);
    }

    #[test]
    fn a_retransmission_acked_too_soon_does_not_move_rack() {
        let mut r = five_sent();
        r.begin_ack();
        // Retransmitted at 100 ms, acknowledged at 101 ms: RTT 1 ms < min RTT 50 ms.
        r.on_delivered(1000, 100 * MS, true, 101 * MS, Some(50 * MS), None);
        r.finish_ack();
        assert_eq!(r.detect_loss(200 * MS, 0, |_, _| Entry::Outstanding), None);
        assert!(r.lost().is_empty(), "no RACK segment yet");
    }

    #[test]
    fn the_window_is_zero_without_reordering_once_dupthresh_segments_are_sacked() {
        let mut r = Rack::default();
        assert_eq!(r.reo_wnd(false, 1, 3, 80 * MS, 100 * MS), 20 * MS);
        assert_eq!(r.reo_wnd(false, 3, 3, 80 * MS, 100 * MS), 0);
        assert_eq!(r.reo_wnd(true, 0, 3, 80 * MS, 100 * MS), 0);
        // Reordering: a never-retransmitted segment delivered below RACK.fack.
        r.begin_ack();
        r.on_delivered(5000, 4 * MS, false, 104 * MS, None, None);
        r.finish_ack();
        r.begin_ack();
        r.on_delivered(1000, 0, false, 105 * MS, None, None);
        r.finish_ack();
        assert_eq!(r.reo_wnd(true, 3, 3, 80 * MS, 100 * MS), 20 * MS);
        // A D-SACK widens it, once per round, up to SRTT.
        r.on_dsack(0, 10_000);
        r.on_dsack(5000, 10_000);
        assert_eq!(r.reo_wnd(true, 3, 3, 80 * MS, 100 * MS), 40 * MS);
        for _ in 0..10 {
            r.on_dsack(20_000, 20_000);
        }
        assert_eq!(r.reo_wnd(true, 3, 3, 80 * MS, 30 * MS), 30 * MS);
    }
}
