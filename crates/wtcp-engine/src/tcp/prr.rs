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
}

impl Prr {
    /// RFC 6937 §3: at the start of recovery.
    pub fn start(recover_fs: u64) -> Self {
        Prr { recover_fs: recover_fs.max(1), prr_delivered: 0, prr_out: 0 }
    }

    /// Every ACK during recovery: `delivered` = the change in SND.UNA plus the change in
    /// SACKed bytes. Returns the window the sender may fill: pipe + sndcnt.
    pub fn on_ack(&mut self, delivered: u64, pipe: u64, ssthresh: u64, mss: u64, bound: ReductionBound) -> u64 {
        self.prr_delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            // Proportional rate reduction: sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out.
            let target = (u128::from(self.prr_delivered) * u128::from(ssthresh)).div_ceil(u128::from(self.recover_fs));
            (target as u64).saturating_sub(self.prr_out)
        } else {
            let limit = match bound {
                ReductionBound::Conservative => self.prr_delivered.saturating_sub(self.prr_out),
                ReductionBound::SlowStart => self.prr_delivered.saturating_sub(self.prr_out).max(delivered) + mss,
            };
            // Attempt to catch up to ssthresh, as permitted by the limit.
            (ssthresh - pipe).min(limit)
        };
        pipe + sndcnt
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
            let cwnd = prr.on_ack(M, pipe, ssthresh, M, ReductionBound::SlowStart);
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
        assert_eq!(a.on_ack(M, 4 * M, 10 * M, M, ReductionBound::SlowStart), 6 * M);
        assert_eq!(b.on_ack(M, 4 * M, 10 * M, M, ReductionBound::Conservative), 5 * M);
        // Never beyond ssthresh.
        let mut c = Prr::start(20 * M);
        assert_eq!(c.on_ack(8 * M, 9 * M, 10 * M, M, ReductionBound::SlowStart), 10 * M);
    }
}
