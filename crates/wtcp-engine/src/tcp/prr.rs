//! Proportional Rate Reduction for TCP (RFC 6937 §3), the recovery that ns-3 (3.44) and
//! Linux use by default: during loss recovery the sender transmits in proportion to the
//! data delivered, so that at the end of recovery the data in flight is ssthresh, rather
//! than halving at once (RFC 5681/6675) and then waiting for half a window of ACKs.

/// The two reduction bounds of RFC 6937 §3.1 for when pipe falls below ssthresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReductionBound {
    /// PRR-CRB: never more than delivered (strict packet conservation).
    Conservative,
    /// PRR-SSRB: slow-start-like, one extra segment per ACK (RFC 6937's recommendation,
    /// Linux and ns-3).
    SlowStart,
    /// SSRB without its extra segment: MAX(prr_delivered - prr_out, DeliveredData), what
    /// ns-3.44's TcpPrrRecovery uses on an ACK that acknowledges no retransmitted data
    /// (tcp-prr-recovery.cc:93-106, `tcb->m_isRetransDataAcked`).
    Delivered,
}

/// PRR state for one recovery episode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    /// RecoverFS at the start of recovery: snd.nxt - snd.una (RFC 6937 §3) or the pipe
    /// (`tcp.prr_recover_fs`).
    recover_fs: u64,
    /// Bytes delivered to the receiver since recovery started.
    prr_delivered: u64,
    /// Bytes sent since recovery started.
    prr_out: u64,
    /// Credit one more SMSS for a duplicate ACK while less than RecoverFS was delivered
    /// (`tcp.prr_dupack_credit`: ns-3.44 tcp-prr-recovery.cc:74-77).
    dupack_credit: bool,
    /// The window the last ACK allowed (pipe + sndcnt: what ns-3's TcpPrrRecovery and
    /// Linux's tcp_cwnd_reduction write into cwnd).
    window: Option<u64>,
}

impl Prr {
    /// RFC 6937 §3: at the start of recovery.
    pub fn start(recover_fs: u64) -> Self {
        Prr { recover_fs: recover_fs.max(1), prr_delivered: 0, prr_out: 0, dupack_credit: false, window: None }
    }

    /// As `start`, with ns-3's extra SMSS per duplicate ACK (`dupack_credit`).
    pub fn with_dupack_credit(mut self, on: bool) -> Self {
        self.dupack_credit = on;
        self
    }

    /// Every ACK during recovery: `delivered` = the change in SND.UNA plus the change in
    /// SACKed bytes. Returns the window the sender may fill: pipe + sndcnt.
    pub fn on_ack(&mut self, delivered: u64, dup: bool, pipe: u64, ssthresh: u64, mss: u64, bound: ReductionBound) -> u64 {
        let delivered = if dup && self.dupack_credit && self.prr_delivered < self.recover_fs { delivered + mss } else { delivered };
        self.prr_delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            // Proportional rate reduction: sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out.
            let target = (u128::from(self.prr_delivered) * u128::from(ssthresh)).div_ceil(u128::from(self.recover_fs));
            (target as u64).saturating_sub(self.prr_out)
        } else {
            let limit = match bound {
                ReductionBound::Conservative => self.prr_delivered.saturating_sub(self.prr_out),
                ReductionBound::SlowStart => self.prr_delivered.saturating_sub(self.prr_out).max(delivered) + mss,
                ReductionBound::Delivered => self.prr_delivered.saturating_sub(self.prr_out).max(delivered),
            };
            // Attempt to catch up to ssthresh, as permitted by the limit.
            (ssthresh - pipe).min(limit)
        };
        // RFC 9937 (Linux tcp_cwnd_reduction, ns-3 DoRecovery): the ACK that enters
        // recovery, before anything was sent (prr_out = 0), allows at least the fast
        // retransmission.
        let sndcnt = if self.prr_out == 0 { sndcnt.max(mss) } else { sndcnt };
        self.window = Some(pipe + sndcnt);
        pipe + sndcnt
    }

    /// The window the last ACK allowed (None before the first).
    pub fn window(&self) -> Option<u64> {
        self.window
    }

    /// Any transmission or retransmission during recovery.
    pub fn on_sent(&mut self, bytes: u64) {
        self.prr_out += bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u64 = 1000;

    /// RFC 9937: the ACK that enters recovery computes SndCnt with prr_out = 0 on the pipe
    /// before the fast retransmission and allows at least that retransmission. Two segments
    /// in the pipe, ssthresh 2448 bytes (the case of `tests/engine/sack.rs`' Westwood+ run): PRR-CRB
    /// catches up only 448 bytes, raised to the one segment of the retransmission.
    #[test]
    fn the_entering_ack_allows_at_least_the_fast_retransmission() {
        let (pipe_before, ssthresh) = (2 * M, 2448);
        let mut prr = Prr::start(pipe_before).with_dupack_credit(true);
        assert_eq!(prr.on_ack(M, true, pipe_before, ssthresh, M, ReductionBound::Delivered), pipe_before + M);
        prr.on_sent(M);
        // Later ACKs get no floor: the next duplicate delivers a segment (pipe 2000) and
        // PRR-CRB allows only the 448 bytes up to ssthresh, less than a segment.
        assert_eq!(prr.on_ack(M, true, pipe_before, ssthresh, M, ReductionBound::Delivered), ssthresh);
    }

    /// One loss in a window of 20 segments, ssthresh = 10 (Reno's halving), one segment
    /// delivered per ACK (the set-up of RFC 6937 Appendix A's first example): PRR sends one
    /// new segment for every second ACK and ends recovery with 10 segments in flight.
    #[test]
    fn one_loss_halves_the_flight_by_sending_one_segment_per_two_acks() {
        let mut prr = Prr::start(20 * M);
        let (ssthresh, mut pipe) = (10 * M, 19 * M); // the lost segment left the pipe
        // The retransmission itself: sent by the fast retransmit.
        prr.on_sent(M);
        pipe += M;
        let mut sent = Vec::new();
        for _ in 0..19 {
            // A duplicate ACK (SACK) delivers one segment: it leaves the network.
            pipe -= M;
            let cwnd = prr.on_ack(M, false, pipe, ssthresh, M, ReductionBound::SlowStart);
            let mut n = 0;
            while cwnd >= pipe + M {
                prr.on_sent(M);
                pipe += M;
                n += 1;
            }
            sent.push(n);
        }
        // In bytes (RFC 6937 counts bytes): sndcnt = CEIL(k*1000 * 10/20) - prr_out at the
        // k-th ACK, the retransmission counted in prr_out, and only whole segments leave:
        // one segment on every even ACK from the 4th while pipe > ssthresh (to the 14th);
        // at the 15th and 16th pipe reaches ssthresh; from the 17th the reduction bound
        // refills it to ssthresh, one segment per ACK.
        let expect = vec![0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1];
        assert_eq!(sent, expect);
        assert_eq!(pipe, 10 * M);
    }

    #[test]
    fn below_ssthresh_ssrb_grows_by_delivered_plus_one_segment_and_crb_by_delivered() {
        // Heavy loss: pipe fell to 4 segments, ssthresh 10.
        let mut a = Prr::start(20 * M);
        let mut b = a;
        assert_eq!(a.on_ack(M, false, 4 * M, 10 * M, M, ReductionBound::SlowStart), 6 * M);
        assert_eq!(b.on_ack(M, false, 4 * M, 10 * M, M, ReductionBound::Conservative), 5 * M);
        // Never beyond ssthresh.
        let mut c = Prr::start(20 * M);
        assert_eq!(c.on_ack(8 * M, false, 9 * M, 10 * M, M, ReductionBound::SlowStart), 10 * M);
    }

    #[test]
    fn the_delivered_bound_is_ssrb_without_its_extra_segment() {
        // Below ssthresh (pipe 4, ssthresh 10): SSRB allows MAX(owed, delivered) + MSS,
        // ns-3 on an ACK of no retransmitted data MAX(owed, delivered).
        let mut a = Prr::start(20 * M);
        let mut b = Prr::start(20 * M);
        assert_eq!(a.on_ack(M, false, 4 * M, 10 * M, M, ReductionBound::SlowStart), 6 * M);
        assert_eq!(b.on_ack(M, false, 4 * M, 10 * M, M, ReductionBound::Delivered), 5 * M);
    }

    #[test]
    fn ns3s_duplicate_ack_credit_counts_one_more_segment_until_recover_fs_is_delivered() {
        // Above ssthresh (proportional part, ssthresh / RecoverFS = 1/2): after two
        // duplicate ACKs of one segment each and a third of none, prr_delivered is 2
        // segments without the credit (sndcnt 1) and 2 + 2 + 1 with it (sndcnt 2.5).
        let mut plain = Prr::start(20 * M);
        let mut ns3 = Prr::start(20 * M).with_dupack_credit(true);
        for _ in 0..2 {
            plain.on_ack(M, true, 15 * M, 10 * M, M, ReductionBound::SlowStart);
            ns3.on_ack(M, true, 15 * M, 10 * M, M, ReductionBound::SlowStart);
        }
        assert_eq!(plain.on_ack(0, true, 15 * M, 10 * M, M, ReductionBound::SlowStart), 16 * M);
        assert_eq!(ns3.on_ack(0, true, 15 * M, 10 * M, M, ReductionBound::SlowStart), 15 * M + 5 * M / 2);
        // Past RecoverFS delivered, no more credit.
        let mut full = Prr::start(2 * M).with_dupack_credit(true);
        full.on_ack(2 * M, true, 15 * M, 10 * M, M, ReductionBound::SlowStart);
        let before = full.prr_delivered;
        full.on_ack(M, true, 15 * M, 10 * M, M, ReductionBound::SlowStart);
        assert_eq!(full.prr_delivered - before, M);
    }
}
