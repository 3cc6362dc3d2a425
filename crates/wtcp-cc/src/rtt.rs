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
    /// Where the minimum applies: false, to the whole RTO (RFC 6298 §2.4, RTO = max(SRTT +
    /// max(G, 4 RTTVAR), min)); true, to the variance term, as Linux (RTO = SRTT +
    /// max(G, 4 RTTVAR, min): tcp_input.c tcp_rtt_estimator floors `rttvar_us` at
    /// `tcp_rto_min_us`, `__tcp_set_rto` adds it to SRTT).
    pub min_on_variance: bool,
}

impl Default for RttConfig {
    fn default() -> Self {
        RttConfig {
            initial_rto: 1_000_000_000,
            min_rto: 1_000_000_000,
            max_rto: 60_000_000_000,
            granularity: 1_000_000,
            max_backoff: 16,
            min_on_variance: false,
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
                self.rttvar = self.rttvar - self.rttvar / 4 + err / 4;
                // ... then SRTT (alpha = 1/8).
                self.srtt = Some(srtt - srtt / 8 + r / 8);
            }
        }
        self.latest = Some(r);
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        // RFC 6298 §2.2/2.3: RTO <- SRTT + max(G, K*RTTVAR), K = 4; §2.4 floor; §2.5 cap.
        let srtt = self.srtt.unwrap_or(r);
        let variance = self.cfg.granularity.max(4 * self.rttvar);
        self.base_rto = if self.cfg.min_on_variance {
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
        // SRTT 100 ms, RTTVAR 10 ms after two equal samples... use one sample: RTTVAR = R/2.
        let cfg = RttConfig { min_rto: 200_000_000, ..RttConfig::default() };
        let mut rfc = RttEstimator::new(cfg);
        let mut linux = RttEstimator::new(RttConfig { min_on_variance: true, ..cfg });
        for _ in 0..40 {
            rfc.on_sample(100_000_000);
            linux.on_sample(100_000_000);
        }
        // RTTVAR has decayed to almost 0: RFC 6298 gives the floor, 200 ms; Linux SRTT + 200 ms.
        assert_eq!(rfc.base_rto(), 200_000_000);
        assert_eq!(linux.base_rto(), 100_000_000 + 200_000_000);
        // Above the floor both agree: a first sample of 1 s gives 1 s + 4 x 0.5 s.
        let mut a = RttEstimator::new(cfg);
        let mut b = RttEstimator::new(RttConfig { min_on_variance: true, ..cfg });
        a.on_sample(1_000_000_000);
        b.on_sample(1_000_000_000);
        assert_eq!(a.base_rto(), b.base_rto());
    }
}
