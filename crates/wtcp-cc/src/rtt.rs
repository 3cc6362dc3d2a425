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
    /// Linux's estimator instead of RFC 6298's (false). Two of its rules:
    /// - the minimum bounds the variance term, RTO = SRTT + max(G, 4 RTTVAR, min), where
    ///   RFC 6298 §2.4 bounds the whole RTO (tcp_input.c tcp_rtt_estimator: the first
    ///   sample gives `max(mdev_us, tcp_rto_min_us)` and `mdev_max_us` restarts at
    ///   `tcp_rto_min_us` each RTT, so `rttvar_us`, 4 RTTVAR, is at least the minimum;
    ///   include/net/tcp.h `__tcp_set_rto`, called by tcp_input.c `tcp_set_rto`, adds it
    ///   to SRTT);
    /// - a sample below SRTT whose error exceeds RTTVAR moves RTTVAR by 1/32 of the
    ///   difference, not 1/4 (tcp_rtt_estimator's `m < 0` branch: `m >>= 3` on the 4x
    ///   scale), so a falling RTT after a queue drains does not inflate the RTO.
    ///
    /// Not reproduced: Linux keeps the largest variance of each RTT (`mdev_max_us`) and
    /// lets `rttvar_us` fall by a quarter of the gap once per RTT, not per sample.
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

/// SRTT/RTTVAR/RTO state of one sender.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RttEstimator {
    cfg: RttConfig,
    srtt: Option<Time>,
    rttvar: Time,
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
            latest: None,
            min_rtt: None,
            // RFC 6298 §2.1: RTO <- 1 s until a sample arrives (configurable).
            base_rto: cfg.initial_rto.clamp(cfg.min_rto.min(cfg.initial_rto), cfg.max_rto),
            backoff: 0,
        }
    }

    /// Fold in one valid RTT measurement.
    pub fn on_sample(&mut self, r: Time) {
        match self.srtt {
            None => {
                // RFC 6298 §2.2: SRTT <- R, RTTVAR <- R/2.
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                // RFC 6298 §2.3: RTTVAR first (beta = 1/4), with the old SRTT ...
                let err = srtt.abs_diff(r);
                if self.cfg.linux_estimator && r < srtt && err > self.rttvar {
                    // Linux: a falling RTT's excess error counts 1/32 (see RttConfig).
                    self.rttvar += (err - self.rttvar) / 32;
                } else {
                    self.rttvar = self.rttvar - self.rttvar / 4 + err / 4;
                }
                // ... then SRTT (alpha = 1/8).
                self.srtt = Some(srtt - srtt / 8 + r / 8);
            }
        }
        self.latest = Some(r);
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        // RFC 6298 §2.2/2.3: RTO <- SRTT + max(G, K*RTTVAR), K = 4; §2.4 floor; §2.5 cap.
        let srtt = self.srtt.unwrap_or(r);
        let variance = self.cfg.granularity.max(4 * self.rttvar);
        self.base_rto = if self.cfg.linux_estimator {
            (srtt + variance.max(self.cfg.min_rto)).min(self.cfg.max_rto)
        } else {
            (srtt + variance).max(self.cfg.min_rto).min(self.cfg.max_rto)
        };
        // A fresh sample gives a fresh RTO: the backed-off value is dropped (RFC 6298 §5).
        self.backoff = 0;
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

    #[test]
    fn linux_floors_the_variance_term_rfc_6298_the_whole_rto() {
        let cfg = RttConfig { min_rto: 200_000_000, ..RttConfig::default() };
        let linux_cfg = RttConfig { linux_estimator: true, ..cfg };
        // A first sample of 50 ms: RTTVAR 25 ms; RFC 6298 50 + 100 -> the 200 ms floor,
        // Linux 50 + max(100, 200) = 250 ms.
        let (mut rfc, mut linux) = (RttEstimator::new(cfg), RttEstimator::new(linux_cfg));
        rfc.on_sample(50_000_000);
        linux.on_sample(50_000_000);
        assert_eq!((rfc.base_rto(), linux.base_rto()), (200_000_000, 250_000_000));
        // A steady 100 ms: RTTVAR decays to almost 0; RFC 200 ms, Linux SRTT + 200 ms.
        for _ in 0..60 {
            rfc.on_sample(100_000_000);
            linux.on_sample(100_000_000);
        }
        assert_eq!(rfc.base_rto(), 200_000_000);
        assert!((linux.base_rto() as i64 - 300_000_000).abs() < 1_000_000, "{}", linux.base_rto());
        // Above the floor both agree: a first sample of 1 s gives 1 s + 4 x 0.5 s = 3 s.
        let (mut a, mut b) = (RttEstimator::new(cfg), RttEstimator::new(linux_cfg));
        a.on_sample(1_000_000_000);
        b.on_sample(1_000_000_000);
        assert_eq!((a.base_rto(), b.base_rto()), (3_000_000_000, 3_000_000_000));
        // The cap binds both.
        let capped = RttConfig { max_rto: 2_000_000_000, ..linux_cfg };
        let mut c = RttEstimator::new(capped);
        c.on_sample(1_000_000_000);
        assert_eq!(c.base_rto(), 2_000_000_000);
    }

    #[test]
    fn linux_weighs_a_falling_rtts_excess_error_by_1_32() {
        // SRTT 200 ms, RTTVAR 10 ms, then a sample of 100 ms (error 100 ms > RTTVAR).
        let cfg = RttConfig { min_rto: 200_000_000, ..RttConfig::default() };
        let settle = |mut e: RttEstimator| {
            e.on_sample(200_000_000);
            for _ in 0..200 {
                e.on_sample(200_000_000);
            }
            e
        };
        let mut rfc = settle(RttEstimator::new(cfg));
        let mut linux = settle(RttEstimator::new(RttConfig { linux_estimator: true, ..cfg }));
        let before = linux.rttvar();
        rfc.on_sample(100_000_000);
        linux.on_sample(100_000_000);
        // RFC 6298: 3/4 RTTVAR + 100/4 ms; Linux: RTTVAR + (100 ms - RTTVAR) / 32.
        assert_eq!(rfc.rttvar(), before - before / 4 + 25_000_000);
        assert_eq!(linux.rttvar(), before + (100_000_000 - before) / 32);
        // A rising RTT is weighted as RFC 6298 in both.
        let (mut r2, mut l2) = (settle(RttEstimator::new(cfg)), settle(RttEstimator::new(RttConfig { linux_estimator: true, ..cfg })));
        r2.on_sample(300_000_000);
        l2.on_sample(300_000_000);
        assert_eq!(r2.rttvar(), l2.rttvar());
    }
}
