//! Delivery-rate estimation: one rate sample per ACK from per-segment send state.
//!
//! draft-cheng-iccrg-delivery-rate-estimation-02 as Linux implements it in
//! `net/ipv4/tcp_rate.c` (`tcp_rate_skb_sent`, `tcp_rate_skb_delivered`, `tcp_rate_gen`,
//! `tcp_rate_check_app_limited`). Every transmission snapshots the connection's delivery
//! state into the segment; when an ACK delivers segments (cumulatively or by SACK), the
//! snapshot of the most recently sent of them gives the sample: the bytes delivered since,
//! over the longer of its send phase and its ACK phase.
//!
//! Deviations and ambiguities resolved:
//! - Counts are bytes, not packets (the draft allows either; Linux counts packets).
//! - Without SACK each duplicate ACK counts one segment delivered (at most all but one of
//!   those outstanding) and the cumulative ACK that covers them counts the rest, at least
//!   one segment (Linux `tcp_add_reno_sack`, `tcp_remove_reno_sacks`). Without that credit,
//!   segments sent during a recovery carry the delivered count of its start, and the ACK
//!   that ends it samples a whole window's delivery over too short a time (measured: BBR's
//!   BtlBw doubled after each recovery on a 2 Mb/s path).
//! - Application-limited: the sender marks the connection when it stops for want of data
//!   with room left in the window (the draft's "no data ready to send", Linux's check when
//!   the application writes); with an unlimited bulk source no sample is app-limited.
//! - The minimum RTT that rejects short intervals is the sender's lifetime minimum (Linux:
//!   a 300 s windowed minimum, `tcp_min_rtt_wlen`); before the first RTT sample every
//!   interval is accepted (Linux's `tcp_min_rtt` is then ~0U and rejects all).
//! - Without SACK, duplicate ACKs after a timeout still credit a segment each (Linux marks
//!   everything lost and `tcp_limit_reno_sacked` leaves no room), and an advancing
//!   cumulative ACK outside recovery keeps the remaining credit (Linux clears it,
//!   `tcp_reset_reno_sack`).
//! - App-limited: `!in_recovery` stands for Linux's "all lost segments retransmitted"; the
//!   ns-3 recovery without SACK (`tcp.reno_sack`) never marks samples app-limited.
//! - An old ACK carrying SACK blocks generates a sample too (Linux's `old_ack` path tags
//!   the SACKs without `tcp_rate_gen`).
//! - Lost bytes (`RateSample::lost`, Linux `tp->lost` as BBRv3 reads it): a segment counts
//!   as lost when the sender retransmits it, whatever decided it (RFC 6675 IsLost, RACK,
//!   the retransmission timer, a partial ACK); Linux counts when it marks a segment lost,
//!   which after a timeout is every outstanding segment at once, here one by one as go-back-N
//!   resends them. `tx_in_flight` is the sender's pipe when the segment left, itself
//!   included (Linux `tx.in_flight`).

use wtcp_cc::RateSample;

use crate::time::Time;

/// The delivery state a segment carried when it was last sent (Linux `tcp_skb_cb.tx`).
#[derive(Clone, Copy, Debug, Default)]
pub struct SentSnapshot {
    /// `delivered_total` at the send.
    delivered: u64,
    /// When `delivered_total` last changed before the send.
    delivered_at: Time,
    /// Send time of the most recently delivered segment, at the send.
    first_tx: Time,
    app_limited: bool,
    /// `lost_total` at the send.
    lost: u64,
    /// Bytes in flight when it left, itself included.
    in_flight: u64,
    /// Delivered already (SACKed): not counted again (Linux zeroes `delivered_mstamp`).
    counted: bool,
}

/// The sample being assembled from the segments one ACK delivers.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckRate {
    /// Bytes this ACK newly delivered.
    pub bytes: u64,
    /// The snapshot's (delivered, delivered_at) of the chosen segment.
    prior: Option<(u64, Time)>,
    /// The chosen segment's (send time, end sequence).
    chosen: (Time, u64),
    send_interval: Time,
    app_limited: bool,
    retrans: bool,
    /// The chosen segment's (lost_total, in flight) at its send.
    tx_lost: u64,
    tx_in_flight: u64,
}

/// The connection's delivery state.
#[derive(Clone, Copy, Debug, Default)]
pub struct RateEstimator {
    /// Bytes delivered, each once (Linux `tp->delivered`).
    delivered_total: u64,
    delivered_at: Time,
    first_tx: Time,
    /// Non-zero: samples are app-limited until `delivered_total` passes this value.
    app_limited_until: u64,
    /// Bytes the sender has resent because it deemed them lost (Linux `tp->lost`).
    lost_total: u64,
}

impl SentSnapshot {
    /// Already delivered (SACKed) since its last send.
    pub fn counted(&self) -> bool {
        self.counted
    }
}

impl RateEstimator {
    pub fn delivered_total(&self) -> u64 {
        self.delivered_total
    }

    /// `bytes` are about to be resent: they count as lost (Linux `tcp_mark_skb_lost`).
    pub fn on_lost(&mut self, bytes: u64) {
        self.lost_total += bytes;
    }

    /// A segment leaves at `now`; `outstanding` is SND.MAX - SND.UNA before it (Linux
    /// `packets_out`: when nothing is outstanding, the sampling interval starts now);
    /// `in_flight` the pipe with it included.
    pub fn on_sent(&mut self, snap: &mut SentSnapshot, now: Time, outstanding: u64, in_flight: u64) {
        if outstanding == 0 {
            self.first_tx = now;
            self.delivered_at = now;
        }
        *snap = SentSnapshot {
            delivered: self.delivered_total,
            delivered_at: self.delivered_at,
            first_tx: self.first_tx,
            app_limited: self.app_limited_until != 0,
            lost: self.lost_total,
            in_flight,
            counted: false,
        };
    }

    /// A segment of `len` bytes, last sent at `sent_at` (`retrans`: not its first
    /// transmission), is delivered by this ACK; `sacked`: by SACK, so the cumulative ACK
    /// that covers it later counts nothing.
    #[allow(clippy::too_many_arguments)]
    pub fn on_delivered(
        &mut self,
        snap: &mut SentSnapshot,
        acc: &mut AckRate,
        len: u64,
        end_seq: u64,
        sent_at: Time,
        retrans: bool,
        sacked: bool,
    ) {
        if snap.counted {
            return;
        }
        snap.counted = sacked;
        self.delivered_total += len;
        acc.bytes += len;
        // The most recently sent segment wins, a tie to the higher end (Linux >= 5.18
        // tcp_rate_skb_delivered with tcp_skb_sent_after).
        let later = sent_at > acc.chosen.0 || (sent_at == acc.chosen.0 && end_seq > acc.chosen.1);
        if acc.prior.is_none() || later {
            acc.chosen = (sent_at, end_seq);
            acc.prior = Some((snap.delivered, snap.delivered_at));
            acc.send_interval = sent_at.saturating_sub(snap.first_tx);
            acc.app_limited = snap.app_limited;
            acc.retrans = retrans;
            acc.tx_lost = snap.lost;
            acc.tx_in_flight = snap.in_flight;
            self.first_tx = sent_at;
        }
    }

    /// Without SACK: a duplicate ACK reports one more segment delivered (`bytes`).
    pub fn credit(&mut self, acc: &mut AckRate, bytes: u64) {
        self.delivered_total += bytes;
        acc.bytes += bytes;
    }

    /// Without SACK: `bytes` of a cumulative ACK were already credited by duplicates.
    pub fn debit(&mut self, acc: &mut AckRate, bytes: u64) {
        self.delivered_total -= bytes;
        acc.bytes -= bytes;
    }

    /// Close the ACK: the sample, or `None` if it delivered nothing or its interval is
    /// shorter than `min_rtt` (Linux `tcp_rate_gen`).
    pub fn generate(
        &mut self,
        acc: &AckRate,
        now: Time,
        min_rtt: Option<Time>,
    ) -> Option<RateSample> {
        if self.app_limited_until != 0 && self.delivered_total > self.app_limited_until {
            self.app_limited_until = 0;
        }
        if acc.bytes > 0 {
            self.delivered_at = now;
        }
        let (prior_delivered, prior_at) = acc.prior?;
        // The longer of the send phase and the ACK phase (ACK compression, stretch ACKs).
        let interval = acc.send_interval.max(now.saturating_sub(prior_at));
        if interval == 0 || min_rtt.is_some_and(|m| interval < m) {
            return None;
        }
        Some(RateSample {
            delivered: self.delivered_total - prior_delivered,
            interval,
            prior_delivered,
            is_app_limited: acc.app_limited,
            is_retrans: acc.retrans,
            lost: self.lost_total - acc.tx_lost,
            tx_in_flight: acc.tx_in_flight,
        })
    }

    /// The sender stopped for want of data with room in the window (and no lost segment
    /// waiting): samples are app-limited until what is in flight now is delivered.
    pub fn on_app_limited(&mut self, in_flight: u64) {
        self.app_limited_until = (self.delivered_total + in_flight).max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    /// A window of 10 segments sent back to back at t = 0, delivered one per ms from 100 ms.
    #[test]
    fn a_flight_sent_at_once_is_sampled_over_its_ack_phase() {
        let mut r = RateEstimator::default();
        let mut snaps = [SentSnapshot::default(); 10];
        for (i, s) in snaps.iter_mut().enumerate() {
            r.on_sent(s, 0, i as u64 * 1000, i as u64 * 1000 + 1000);
        }
        let mut last = None;
        for (i, s) in snaps.iter_mut().enumerate() {
            let mut acc = AckRate::default();
            r.on_delivered(s, &mut acc, 1000, (i as u64 + 1) * 1000, 0, false, false);
            last = r.generate(&acc, 100 * MS + i as Time * MS, Some(100 * MS));
        }
        let s = last.expect("the last ACK's interval is 109 ms >= min RTT");
        // All 10 segments carried delivered = 0 at the send; prior_at = 0.
        assert_eq!(s.delivered, 10_000);
        assert_eq!(s.interval, 109 * MS);
        assert_eq!(s.prior_delivered, 0);
    }

    /// Two flights: 0 and 1 sent at 0 ms; 2 sent at 30 ms after 0 was delivered at 20 ms.
    /// One ACK then delivers 1 and 2: the latest sent (2) gives the prior, and its send
    /// phase (30 ms since the send of the last delivered segment, 0) is the interval when
    /// it is longer than the ACK phase.
    #[test]
    fn the_latest_sent_segment_gives_the_prior_and_the_longer_phase_the_interval() {
        let mut r = RateEstimator::default();
        let (mut a, mut b, mut c) = (SentSnapshot::default(), SentSnapshot::default(), SentSnapshot::default());
        r.on_sent(&mut a, 0, 0, 1000);
        r.on_sent(&mut b, 0, 1000, 2000);
        let mut acc = AckRate::default();
        r.on_delivered(&mut a, &mut acc, 1000, 1000, 0, false, false);
        r.generate(&acc, 20 * MS, None).unwrap();
        r.on_sent(&mut c, 30 * MS, 1000, 2000);
        // 1 and 2 arrive together at 35 ms: ACK phase 35 - 20 = 15 ms, send phase 30 ms.
        let mut acc = AckRate::default();
        r.on_delivered(&mut b, &mut acc, 1000, 2000, 0, false, false);
        r.on_delivered(&mut c, &mut acc, 1000, 3000, 30 * MS, false, false);
        let s = r.generate(&acc, 35 * MS, None).unwrap();
        assert_eq!((s.prior_delivered, s.delivered, s.interval), (1000, 2000, 30 * MS));
    }

    #[test]
    fn a_sacked_segment_is_counted_once_and_the_cumulative_ack_adds_nothing() {
        let mut r = RateEstimator::default();
        let mut a = SentSnapshot::default();
        let mut b = SentSnapshot::default();
        r.on_sent(&mut a, 0, 0, 1000);
        r.on_sent(&mut b, MS, 1000, 2000);
        let mut acc = AckRate::default();
        r.on_delivered(&mut b, &mut acc, 1000, 2000, MS, false, true);
        assert!(r.generate(&acc, 50 * MS, None).is_some());
        let mut acc = AckRate::default();
        r.on_delivered(&mut a, &mut acc, 1000, 1000, 0, false, false);
        r.on_delivered(&mut b, &mut acc, 1000, 2000, MS, false, false);
        assert_eq!(acc.bytes, 1000);
        assert_eq!(r.delivered_total(), 2000);
    }

    #[test]
    fn an_interval_below_the_minimum_rtt_gives_no_sample() {
        let mut r = RateEstimator::default();
        let mut a = SentSnapshot::default();
        r.on_sent(&mut a, 0, 0, 1000);
        let mut acc = AckRate::default();
        r.on_delivered(&mut a, &mut acc, 1000, 1000, 0, false, false);
        assert_eq!(r.generate(&acc, 5 * MS, Some(10 * MS)), None);
        // Nothing delivered: no sample either.
        assert_eq!(r.generate(&AckRate::default(), 50 * MS, None), None);
    }

    #[test]
    fn samples_are_app_limited_until_the_data_in_flight_at_the_gap_is_delivered() {
        let mut r = RateEstimator::default();
        let mut a = SentSnapshot::default();
        r.on_sent(&mut a, 0, 0, 1000);
        r.on_app_limited(1000);
        let mut b = SentSnapshot::default();
        r.on_sent(&mut b, MS, 1000, 2000);
        let mut acc = AckRate::default();
        r.on_delivered(&mut a, &mut acc, 1000, 1000, 0, false, false);
        assert!(!r.generate(&acc, 40 * MS, None).unwrap().is_app_limited);
        let mut acc = AckRate::default();
        r.on_delivered(&mut b, &mut acc, 1000, 2000, MS, false, false);
        assert!(r.generate(&acc, 41 * MS, None).unwrap().is_app_limited);
        let mut c = SentSnapshot::default();
        r.on_sent(&mut c, 42 * MS, 0, 1000);
        let mut acc = AckRate::default();
        r.on_delivered(&mut c, &mut acc, 1000, 3000, 42 * MS, false, false);
        assert!(!r.generate(&acc, 80 * MS, None).unwrap().is_app_limited);
    }

    /// Segments a, b, c leave with 1, 2, 3 segments in flight; a is then resent (lost).
    /// The ACK delivering c reports the loss that happened after c left and c's own
    /// in-flight; the ACK delivering a's retransmission reports none (it left after).
    #[test]
    fn a_sample_carries_the_losses_since_its_segment_left_and_its_in_flight() {
        let mut r = RateEstimator::default();
        let (mut a, mut b, mut c) = (SentSnapshot::default(), SentSnapshot::default(), SentSnapshot::default());
        r.on_sent(&mut a, 0, 0, 1000);
        r.on_sent(&mut b, 0, 1000, 2000);
        r.on_sent(&mut c, 0, 2000, 3000);
        r.on_lost(1000);
        r.on_sent(&mut a, 10 * MS, 3000, 3000);
        let mut acc = AckRate::default();
        r.on_delivered(&mut c, &mut acc, 1000, 3000, 0, false, true);
        let s = r.generate(&acc, 50 * MS, None).unwrap();
        assert_eq!((s.lost, s.tx_in_flight), (1000, 3000));
        let mut acc = AckRate::default();
        r.on_delivered(&mut a, &mut acc, 1000, 1000, 10 * MS, true, false);
        let s = r.generate(&acc, 60 * MS, None).unwrap();
        assert_eq!((s.lost, s.tx_in_flight, s.is_retrans), (0, 3000, true));
    }
}
