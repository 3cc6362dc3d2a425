//! PIE, Proportional Integral controller Enhanced (R. Pan, P. Natarajan, F. Baker,
//! G. White, RFC 8033, February 2017): drop (or ECN-mark) arriving packets at random with
//! a probability that a PI controller on the queueing delay adjusts every T_UPDATE.
//!
//! Follows RFC 8033 §4 and its pseudo-code (Appendix A):
//! - on arrival (§4.1, `enque`): no drop while the burst allowance lasts (§4.4), or while
//!   the delay is under half the target and the probability under 0.2, or with at most two
//!   mean-size packets queued (the safeguards of §4.1); else drop with `drop_prob`;
//! - every T_UPDATE (§4.2, `calculate_drop_prob`): p = alpha (qdelay - QDELAY_REF) +
//!   beta (qdelay - qdelay_old), scaled down while drop_prob is small (the auto-tuning of
//!   §4.2: /2048 below 1e-6, /512 below 1e-5, /128 below 1e-4, /32 below 1e-3, /8 below
//!   1e-2, /2 below 0.1), at most +0.02 per update once drop_prob >= 0.1 (§5.5); drop_prob
//!   decays by 2 % per update while both delays are 0; the burst allowance shrinks by
//!   T_UPDATE and is restored to MAX_BURST once drop_prob is 0 and both delays are under
//!   half the target.
//!
//! Deviations and ambiguities resolved:
//! - The queueing delay is measured with timestamps (§4.3 allows it; Linux's default): the
//!   sojourn of the last packet that left, 0 once the queue is empty.
//! - The T_UPDATE timer runs lazily: the updates due since the last arrival or departure
//!   are applied when the next one happens, each with the delay as it then stands (the
//!   queue does not change between events, so only an idle stretch differs: there the
//!   delay is 0 throughout, as it is here).
//! - The burst allowance is restored inside the update, as Linux does; Appendix A restores
//!   it at the next arrival, so it may come up to one T_UPDATE later here.
//! - ECN (§5.1): with `ecn = true` an ECN-capable packet chosen for dropping is marked
//!   instead while drop_prob is under 0.1 (Linux's default `mark_ecnth`), dropped above.
//! - MEAN_PKTSIZE is 1500 bytes (the "two packets" safeguard is 3000 bytes); the
//!   de-randomization of §5.4 (optional) is not used.

use crate::rng::{unit, SimRng};
use crate::time::Time;

/// RFC 8033 §5 defaults.
pub const DEFAULT_TARGET: Time = 15_000_000;
pub const DEFAULT_T_UPDATE: Time = 15_000_000;
pub const DEFAULT_MAX_BURST: Time = 150_000_000;
const ALPHA: f64 = 0.125;
const BETA: f64 = 1.25;
const MEAN_PKTSIZE: u64 = 1500;
/// Above this probability ECN-capable packets are dropped, not marked.
const MARK_ECN_TH: f64 = 0.1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieCfg {
    pub target: Time,
    pub t_update: Time,
    pub max_burst: Time,
    pub ecn: bool,
}

/// What PIE does with an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PieVerdict {
    Accept,
    Mark,
    Drop,
}

#[derive(Debug)]
pub struct Pie {
    cfg: PieCfg,
    pub drop_prob: f64,
    qdelay: Time,
    qdelay_old: Time,
    burst_allow: Time,
    next_update: Time,
    rng: SimRng,
}

impl Pie {
    pub fn new(cfg: PieCfg, rng: SimRng) -> Self {
        Pie { cfg, drop_prob: 0.0, qdelay: 0, qdelay_old: 0, burst_allow: cfg.max_burst, next_update: cfg.t_update, rng }
    }

    /// Apply the T_UPDATE updates due by `now`.
    fn catch_up(&mut self, now: Time) {
        if now >= self.next_update && self.qdelay == 0 && self.qdelay_old == 0 && self.drop_prob == 0.0 && self.burst_allow == self.cfg.max_burst {
            // At rest every update leaves the state as it is: skip to the last one due.
            self.next_update += (now - self.next_update) / self.cfg.t_update * self.cfg.t_update;
        }
        while now >= self.next_update {
            self.update();
            self.next_update += self.cfg.t_update;
        }
    }

    /// §5.2 `calculate_drop_prob` and the burst allowance.
    fn update(&mut self) {
        let s = |t: Time| t as f64 / 1e9;
        let (q, q_old, target) = (s(self.qdelay), s(self.qdelay_old), s(self.cfg.target));
        let mut p = ALPHA * (q - target) + BETA * (q - q_old);
        let dp = self.drop_prob;
        p /= if dp < 1e-6 {
            2048.0
        } else if dp < 1e-5 {
            512.0
        } else if dp < 1e-4 {
            128.0
        } else if dp < 1e-3 {
            32.0
        } else if dp < 1e-2 {
            8.0
        } else if dp < 0.1 {
            2.0
        } else {
            1.0
        };
        if dp >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        self.drop_prob += p;
        if self.qdelay == 0 && self.qdelay_old == 0 {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        self.burst_allow = self.burst_allow.saturating_sub(self.cfg.t_update);
        let half = self.cfg.target / 2;
        if self.drop_prob == 0.0 && self.qdelay < half && self.qdelay_old < half {
            self.burst_allow = self.cfg.max_burst;
        }
        self.qdelay_old = self.qdelay;
    }

    /// §5.1: the fate of a packet arriving at a queue of `queue_bytes` bytes.
    pub fn on_arrival(&mut self, now: Time, queue_bytes: u64, ect: bool) -> PieVerdict {
        self.catch_up(now);
        if self.burst_allow > 0 {
            return PieVerdict::Accept;
        }
        if (self.qdelay_old < self.cfg.target / 2 && self.drop_prob < 0.2) || queue_bytes <= 2 * MEAN_PKTSIZE {
            return PieVerdict::Accept;
        }
        if unit(&mut self.rng) >= self.drop_prob {
            return PieVerdict::Accept;
        }
        if self.cfg.ecn && ect && self.drop_prob < MARK_ECN_TH {
            PieVerdict::Mark
        } else {
            PieVerdict::Drop
        }
    }

    /// A packet that waited `sojourn` left; `queue_empty`: nothing is left behind it.
    pub fn on_departure(&mut self, now: Time, sojourn: Time, queue_empty: bool) {
        self.catch_up(now);
        self.qdelay = if queue_empty { 0 } else { sojourn };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    const MS: Time = 1_000_000;

    fn pie() -> Pie {
        Pie::new(PieCfg { target: DEFAULT_TARGET, t_update: DEFAULT_T_UPDATE, max_burst: DEFAULT_MAX_BURST, ecn: false }, stream(1, 0, "pie"))
    }

    /// A 40 ms standing delay (a departure and an arrival to a 100-packet queue every
    /// millisecond, for `ms` ms): the first drop, if any.
    fn first_drop_under_standing_delay(p: &mut Pie, ms: u64) -> Option<Time> {
        let mut first = None;
        for k in 1..=ms {
            let t = k * MS;
            p.on_departure(t, 40 * MS, false);
            if p.on_arrival(t, 100 * 1500, false) == PieVerdict::Drop && first.is_none() {
                first = Some(t);
            }
        }
        first
    }

    #[test]
    fn nothing_is_dropped_while_the_burst_allowance_lasts() {
        let mut p = pie();
        p.drop_prob = 0.5;
        // 150 ms: ten updates of 15 ms use the allowance up; then about every other packet.
        let first = first_drop_under_standing_delay(&mut p, 400).unwrap();
        assert!((150 * MS..=155 * MS).contains(&first), "{first}");
    }

    #[test]
    fn a_standing_delay_above_target_raises_the_probability_after_the_burst_allowance() {
        let mut p = pie();
        let first_drop = first_drop_under_standing_delay(&mut p, 2000);
        // No drop before the 150 ms burst allowance has run out (at the 10th update).
        assert!(first_drop.unwrap() >= 150 * MS, "{first_drop:?}");
        // The integral term keeps raising drop_prob while the delay stays above target.
        assert!(p.drop_prob > 0.1, "{}", p.drop_prob);
    }

    #[test]
    fn the_first_update_follows_the_auto_tuned_control_law() {
        let mut p = pie();
        p.burst_allow = 0;
        p.on_departure(1, 25 * MS, false);
        p.catch_up(DEFAULT_T_UPDATE);
        // p = 0.125 (0.025 - 0.015) + 1.25 (0.025 - 0) = 0.03250, scaled by 1/2048
        // while drop_prob < 1e-6.
        let expect = (0.125 * 0.010 + 1.25 * 0.025) / 2048.0;
        assert!((p.drop_prob - expect).abs() < 1e-15, "{} vs {expect}", p.drop_prob);
    }

    #[test]
    fn a_short_queue_is_never_dropped_and_an_idle_one_decays() {
        let mut p = pie();
        p.burst_allow = 0;
        p.drop_prob = 0.5;
        p.qdelay_old = 30 * MS;
        // Two packets or fewer queued: the safeguard accepts whatever the probability.
        assert!((0..100).all(|_| p.on_arrival(0, 2 * 1500, false) == PieVerdict::Accept));
        // Idle (no delay, none before): one update gives the controller's step and the 2 %
        // decay: (0.5 + 0.125 (0 - 0.015)) * 0.98.
        p.qdelay_old = 0;
        p.on_departure(1, 0, true);
        p.catch_up(DEFAULT_T_UPDATE);
        let expect = (0.5 - 0.125 * 0.015) * 0.98;
        assert!((p.drop_prob - expect).abs() < 1e-12, "{} vs {expect}", p.drop_prob);
    }
}
