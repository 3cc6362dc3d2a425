//! Retransmission timer arithmetic: RFC 6298.
//!
//! The sender feeds only valid samples (Karn's rule, RFC 6298 §3, is the sender's job:
//! it knows which segments were retransmitted). All times are integer nanoseconds.

use crate::api::Time;

/// Timer parameters. Defaults follow RFC 6298 (initial 1 s, minimum 1 s, maximum 60 s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RttConfig {
    /// RTO before the first sample (RFC 6298 §2.1: 1 s).
    pub initial_rto: Time,
    /// Lower bound on the RTO (RFC 6298 §2.4: 1 s; Linux and ns-2 use 200 ms).
    pub min_rto: Time,
    /// Upper bound on the RTO, backoff included (RFC 6298 §2.5: at least 60 s).
    pub max_rto: Time,
    /// Clock granularity G (RFC 6298 §4).
    pub granularity: Time,
    /// Largest backoff exponent (the RTO doubles at most this many times).
    pub max_backoff: u32,
    /// Linux's estimator instead of RFC 6298's (false): tcp_input.c `tcp_rtt_estimator`
    /// (6.12, lines 884-946) and include/net/tcp.h `__tcp_set_rto`, RTO = SRTT +
    /// `rttvar_us` (no clock granularity term), where, with mdev the smoothed deviation:
    /// - a sample below SRTT whose error exceeds mdev moves mdev by 1/32 of the excess,
    ///   not 1/4 (`m < 0` branch: `m >>= 3` on the 4x scale), so a falling RTT after a
    ///   queue drains does not inflate the RTO;
    /// - `rttvar_us` (4 RTTVAR) rises at once to the largest 4 mdev of the current round
    ///   trip (`mdev_max_us`), and once per round trip (the first sample after SND.UNA
    ///   passes SND.NXT of the last such step) falls by a quarter of its excess over that
    ///   largest value, which then restarts at the minimum RTO: the minimum bounds the
    ///   variance term (RTO = SRTT + max(4 RTTVAR, min)), where RFC 6298 §2.4 bounds the
    ///   whole RTO. The first sample gives mdev = R/2 (RTO = 3R) and `rttvar_us` =
    ///   max(2R, min).
    ///
    /// The round trips need the sender's SND.UNA and SND.NXT (`on_sample_at`); samples
    /// given without them (`on_sample`) never end one.
    pub linux_estimator: bool,
}

impl Default for RttConfig {
    fn default() -> Self {
        RttConfig {
            initial_rto: 1_000_000_000,
            min_rto: 1_000_000_000,
            max_rto: 60_000_000_000,
            granularity: 1_000_000,
            max_backoff: 16,
            linux_estimator: false,
        }
    }
}

/// Linux's variance state (`tcp_rtt_estimator`), in ns on Linux's 4x scale.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct LinuxVariance {
    /// 4 x the smoothed mean deviation (`mdev_us`).
    mdev4: Time,
    /// The largest `mdev4` of this round trip, at least the minimum RTO (`mdev_max_us`).
    mdev_max4: Time,
    /// The variance term of the RTO (`rttvar_us`).
    rttvar4: Time,
    /// SND.NXT when this round trip's step was taken (`rtt_seq`).
    rtt_seq: u64,
}

/// SRTT/RTTVAR/RTO state of one sender.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RttEstimator {
    cfg: RttConfig,
    srtt: Option<Time>,
    rttvar: Time,
    linux: LinuxVariance,
    latest: Option<Time>,
    min_rtt: Option<Time>,
    /// The un-backed-off RTO from the last computation.
    base_rto: Time,
    backoff: u32,
}

impl RttEstimator {
    pub fn new(cfg: RttConfig) -> Self {
        RttEstimator {
            cfg,
            srtt: None,
            rttvar: 0,
            linux: LinuxVariance::default(),
            latest: None,
            min_rtt: None,
            // RFC 6298 §2.1: RTO <- 1 s until a sample arrives (configurable).
            base_rto: cfg.initial_rto.clamp(cfg.min_rto.min(cfg.initial_rto), cfg.max_rto),
            backoff: 0,
        }
    }

    /// Fold in one valid RTT measurement (see `on_sample_at`).
    pub fn on_sample(&mut self, r: Time) {
        self.on_sample_at(r, 0, 0);
    }

    /// Fold in one valid RTT measurement taken when SND.UNA and SND.NXT were `snd_una`
    /// and `snd_nxt` (Linux's estimator counts round trips by them).
    pub fn on_sample_at(&mut self, r: Time, snd_una: u64, snd_nxt: u64) {
        if self.cfg.linux_estimator {
            self.linux_sample(r, snd_una, snd_nxt);
        } else {
            self.rfc6298_sample(r);
        }
        self.latest = Some(r);
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        // A fresh sample gives a fresh RTO: the backed-off value is dropped (RFC 6298 §5).
        self.backoff = 0;
    }

    fn rfc6298_sample(&mut self, r: Time) {
        match self.srtt {
            None => {
                // RFC 6298 §2.2: SRTT <- R, RTTVAR <- R/2.
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                // RFC 6298 §2.3: RTTVAR first (beta = 1/4), with the old SRTT ...
                self.rttvar = self.rttvar - self.rttvar / 4 + srtt.abs_diff(r) / 4;
                // ... then SRTT (alpha = 1/8).
                self.srtt = Some(srtt - srtt / 8 + r / 8);
            }
        }
        // RFC 6298 §2.2/2.3: RTO <- SRTT + max(G, K*RTTVAR), K = 4; §2.4 floor; §2.5 cap.
        let srtt = self.srtt.unwrap_or(r);
        let variance = self.cfg.granularity.max(4 * self.rttvar);
        self.base_rto = (srtt + variance).max(self.cfg.min_rto).min(self.cfg.max_rto);
    }

    /// Linux `tcp_rtt_estimator` (see `RttConfig::linux_estimator`).
    fn linux_sample(&mut self, r: Time, snd_una: u64, snd_nxt: u64) {
        let min = self.cfg.min_rto;
        let v = &mut self.linux;
        match self.srtt {
            None => {
                self.srtt = Some(r);
                v.mdev4 = 2 * r; // "make sure rto = 3*rtt"
                v.rttvar4 = v.mdev4.max(min);
                v.mdev_max4 = v.rttvar4;
                v.rtt_seq = snd_nxt;
            }
            Some(srtt) => {
                let quarter = v.mdev4 / 4;
                if r < srtt {
                    // A falling RTT: its error's excess over mdev counts 1/8 on this scale.
                    let err = srtt - r;
                    v.mdev4 = if err > quarter { v.mdev4 + (err - quarter) / 8 } else { v.mdev4 - (quarter - err) };
                } else {
                    v.mdev4 = v.mdev4 - quarter + (r - srtt);
                }
                self.srtt = Some(srtt - srtt / 8 + r / 8);
                if v.mdev4 > v.mdev_max4 {
                    v.mdev_max4 = v.mdev4;
                    v.rttvar4 = v.rttvar4.max(v.mdev_max4);
                }
                if snd_una > v.rtt_seq {
                    // Once per round trip: the variance falls towards this trip's largest.
                    if v.mdev_max4 < v.rttvar4 {
                        v.rttvar4 -= (v.rttvar4 - v.mdev_max4) / 4;
                    }
                    v.rtt_seq = snd_nxt;
                    v.mdev_max4 = min;
                }
            }
        }
        self.rttvar = v.rttvar4 / 4;
        self.base_rto = (self.srtt.unwrap_or(r) + v.rttvar4).min(self.cfg.max_rto);
    }

    /// RFC 6298 §5.5: on expiry RTO <- 2 * RTO (bounded by the maximum).
    pub fn on_timeout(&mut self) {
        if self.backoff < self.cfg.max_backoff {
            self.backoff += 1;
        }
    }

    /// RFC 6298 §5.7: with no RTT sample after a retransmitted SYN (or SYN-ACK), the RTO is
    /// re-initialised to 3 s (`rto`) when data transmission begins.
    pub fn reinitialise_after_syn_loss(&mut self, rto: Time) {
        // "if ... using an RTO less than 3 seconds, the RTO MUST be re-initialized to 3 s".
        if self.srtt.is_none() && self.base_rto < rto {
            self.base_rto = rto.min(self.cfg.max_rto);
        }
        self.backoff = 0;
    }

    /// Forget the backoff (an algorithm's request, or a new valid sample).
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }

    /// The timeout to arm now: the RTO times 2^backoff, capped at the maximum RTO.
    pub fn rto(&self) -> Time {
        let factor = 1u64.checked_shl(self.backoff).unwrap_or(u64::MAX);
        self.base_rto.saturating_mul(factor).min(self.cfg.max_rto)
    }

    /// The RTO without backoff.
    pub fn base_rto(&self) -> Time {
        self.base_rto
    }
    pub fn backoff(&self) -> u32 {
        self.backoff
    }
    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }
    pub fn rttvar(&self) -> Time {
        self.rttvar
    }
    pub fn latest(&self) -> Option<Time> {
        self.latest
    }
    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt
    }
    pub fn config(&self) -> &RttConfig {
        &self.cfg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    fn est(min_rto: Time) -> RttEstimator {
        RttEstimator::new(RttConfig { min_rto, ..RttConfig::default() })
    }

    #[test]
    fn initial_rto_is_one_second_before_any_sample() {
        // RFC 6298 §2.1
        assert_eq!(est(200 * MS).rto(), 1000 * MS);
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        // RFC 6298 §2.2: SRTT = R, RTTVAR = R/2, RTO = R + 4*R/2 = 3R.
        let mut e = est(0);
        e.on_sample(100 * MS);
        assert_eq!(e.srtt(), Some(100 * MS));
        assert_eq!(e.rttvar(), 50 * MS);
        assert_eq!(e.rto(), 300 * MS);
    }

    #[test]
    fn later_samples_update_rttvar_before_srtt() {
        // RFC 6298 §2.3 with alpha 1/8, beta 1/4, computed independently.
        let mut e = est(0);
        e.on_sample(100 * MS);
        e.on_sample(200 * MS);
        let rttvar = 0.75 * 50.0 + 0.25 * (100.0f64 - 200.0).abs(); // uses old SRTT
        let srtt = 0.875 * 100.0 + 0.125 * 200.0;
        assert_eq!(e.rttvar(), (rttvar * MS as f64) as Time);
        assert_eq!(e.srtt(), Some((srtt * MS as f64) as Time));
        assert_eq!(e.rto(), ((srtt + 4.0 * rttvar) * MS as f64) as Time);
    }

    #[test]
    fn rto_is_rounded_up_to_the_minimum() {
        // RFC 6298 §2.4
        let mut e = est(1000 * MS);
        e.on_sample(10 * MS);
        assert_eq!(e.rto(), 1000 * MS);
    }

    #[test]
    fn granularity_bounds_the_variance_term() {
        // RFC 6298 §2.3: RTO = SRTT + max(G, K*RTTVAR); identical samples drive RTTVAR towards 0.
        let mut e = RttEstimator::new(RttConfig { min_rto: 0, granularity: 100 * MS, ..RttConfig::default() });
        for _ in 0..200 {
            e.on_sample(40 * MS);
        }
        // RTTVAR decays to a few ns (integer arithmetic), far below G.
        assert!(e.rttvar() < 10);
        assert_eq!(e.rto(), 140 * MS);
    }

    #[test]
    fn timeouts_double_the_rto_up_to_the_cap() {
        // RFC 6298 §5.5 and §2.5.
        let mut e = est(1000 * MS);
        e.on_timeout();
        assert_eq!(e.rto(), 2000 * MS);
        e.on_timeout();
        assert_eq!(e.rto(), 4000 * MS);
        for _ in 0..20 {
            e.on_timeout();
        }
        assert_eq!(e.rto(), 60_000 * MS);
    }

    #[test]
    fn a_new_sample_clears_the_backoff() {
        // RFC 6298 §5: the backed-off RTO is kept until a valid sample yields a fresh one.
        let mut e = est(1000 * MS);
        e.on_timeout();
        e.on_timeout();
        assert_eq!(e.backoff(), 2);
        e.on_sample(100 * MS);
        assert_eq!(e.backoff(), 0);
        assert_eq!(e.rto(), 1000 * MS);
    }

    /// A Linux estimator fed one sample per round trip (SND.UNA passes the last step's
    /// SND.NXT each time).
    struct Trips {
        e: RttEstimator,
        una: u64,
        nxt: u64,
    }

    impl Trips {
        fn new(min_rto: Time) -> Self {
            Trips { e: RttEstimator::new(RttConfig { min_rto, linux_estimator: true, ..RttConfig::default() }), una: 0, nxt: 0 }
        }
        /// A sample in a new round trip: SND.UNA passes the SND.NXT of the last one.
        fn next_trip(&mut self, r: Time) {
            self.una = self.nxt + 1;
            self.nxt = self.una + 10;
            self.e.on_sample_at(r, self.una, self.nxt);
        }
        /// A sample in the same round trip.
        fn same_trip(&mut self, r: Time) {
            self.e.on_sample_at(r, self.una, self.nxt);
        }
    }

    #[test]
    fn linux_floors_the_variance_term_rfc_6298_the_whole_rto() {
        let cfg = RttConfig { min_rto: 200 * MS, ..RttConfig::default() };
        // A first sample of 50 ms: RFC 6298 50 + 100 -> the 200 ms floor; Linux 50 +
        // max(2 x 50, 200) = 250 ms (tcp_rtt_estimator's first branch).
        let mut rfc = RttEstimator::new(cfg);
        let mut linux = Trips::new(200 * MS);
        rfc.on_sample(50 * MS);
        linux.next_trip(50 * MS);
        assert_eq!((rfc.base_rto(), linux.e.base_rto()), (200 * MS, 250 * MS));
        // A steady 100 ms: the deviation decays to almost 0; RFC 200 ms, Linux SRTT + the
        // minimum, 300 ms.
        for _ in 0..60 {
            rfc.on_sample(100 * MS);
            linux.next_trip(100 * MS);
        }
        assert_eq!(rfc.base_rto(), 200 * MS);
        assert!(linux.e.base_rto().abs_diff(300 * MS) < MS, "{}", linux.e.base_rto());
        // Above the floor: a first sample of 1 s gives 1 s + 2 x 1 s = 3 s in both.
        let mut a = RttEstimator::new(cfg);
        let mut b = Trips::new(200 * MS);
        a.on_sample(1000 * MS);
        b.next_trip(1000 * MS);
        assert_eq!((a.base_rto(), b.e.base_rto()), (3000 * MS, 3000 * MS));
        // The cap binds.
        let mut c = RttEstimator::new(RttConfig { max_rto: 2000 * MS, linux_estimator: true, ..cfg });
        c.on_sample(1000 * MS);
        assert_eq!(c.base_rto(), 2000 * MS);
    }

    #[test]
    fn linux_weighs_a_falling_rtts_excess_error_by_1_32() {
        // SRTT 200 ms with no deviation, then a sample of 100 ms: mdev (4x scale) moves by
        // (100 ms - mdev/4) / 8, where RFC 6298 takes a quarter of the error.
        let mut linux = Trips::new(0);
        for _ in 0..200 {
            linux.next_trip(200 * MS);
        }
        let mdev4 = linux.e.linux.mdev4;
        linux.same_trip(100 * MS);
        assert_eq!(linux.e.linux.mdev4, mdev4 + (100 * MS - mdev4 / 4) / 8);
        // A rising RTT is weighed as RFC 6298's: 3/4 of mdev plus the error.
        let mdev4 = linux.e.linux.mdev4;
        let srtt = linux.e.srtt().unwrap();
        linux.same_trip(srtt + 40 * MS);
        assert_eq!(linux.e.linux.mdev4, mdev4 - mdev4 / 4 + 40 * MS);
    }

    #[test]
    fn linux_holds_a_round_trips_largest_variance_and_lets_it_fall_a_quarter_per_trip() {
        let mut l = Trips::new(200 * MS);
        for _ in 0..100 {
            l.next_trip(100 * MS);
        }
        assert_eq!(l.e.linux.rttvar4, 200 * MS, "settled at the minimum");
        // A 500 ms sample: mdev (4x) jumps by the 400 ms error; the RTO's term follows at once.
        l.same_trip(500 * MS);
        let peak = l.e.linux.rttvar4;
        assert!(peak >= 400 * MS, "{peak}");
        // More samples of the same round trip, back at 100 ms, change nothing of it.
        for _ in 0..5 {
            l.same_trip(100 * MS);
        }
        assert_eq!(l.e.linux.rttvar4, peak);
        // SND.UNA reaching the last step's SND.NXT is not past it (Linux `after()`): no step.
        l.e.on_sample_at(100 * MS, l.nxt, l.nxt + 10);
        assert_eq!(l.e.linux.rttvar4, peak);
        // The next round trip: a quarter of the excess over that trip's largest mdev goes.
        let largest = l.e.linux.mdev_max4;
        l.next_trip(100 * MS);
        let mdev4 = l.e.linux.mdev4;
        assert!(mdev4 <= largest);
        assert_eq!(l.e.linux.rttvar4, peak - (peak - largest) / 4);
        // RFC 6298 in its place would have let it fall with every sample.
        let rfc_like = {
            let mut e = RttEstimator::new(RttConfig { min_rto: 200 * MS, ..RttConfig::default() });
            for _ in 0..100 {
                e.on_sample(100 * MS);
            }
            e.on_sample(500 * MS);
            for _ in 0..6 {
                e.on_sample(100 * MS);
            }
            4 * e.rttvar()
        };
        assert!(rfc_like < l.e.linux.rttvar4, "{rfc_like} vs {}", l.e.linux.rttvar4);
    }
}
