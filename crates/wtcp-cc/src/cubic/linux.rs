//! CUBIC in Linux's integer arithmetic (`arithmetic = "linux"`, the `linux` profile):
//! net/ipv4/tcp_cubic.c ("v2.3", Linux 6.x) `bictcp_update`, `cubictcp_cong_avoid`,
//! `cubictcp_recalc_ssthresh`, `cubictcp_state` and `cubictcp_acked`, with tcp_cong.c's
//! `tcp_slow_start` and `tcp_cong_avoid_ai` and tcp_input.c's resets of `snd_cwnd_cnt`,
//! restated from their text, in whole segments and jiffies.
//!
//! What differs from RFC 9438's real-valued window:
//! - time is counted in jiffies (`hz` per second, 250 on the kernel the linux engine ran
//!   on): t = jiffies since the epoch + the minimum RTT rounded up to jiffies
//!   (`usecs_to_jiffies(delay_min)`), in units of 1/1024 s; K likewise, the cube root of
//!   `cube_factor * (W_max - cwnd)` with cube_factor = 2^40 / (bic_scale * 10);
//! - the target is `origin +/- ((bic_scale * 10 * |t - K|^3) >> 40)` in u32, and cnt =
//!   cwnd / (target - cwnd) (100 cwnd at or above the target), at most 20 while W_max is
//!   0 (before the first loss and after a timeout), at least 2; the cubic part is
//!   recomputed at most once per jiffy, and while cwnd is unchanged only after more than
//!   HZ/32 jiffies (8 at HZ 250, 32 ms);
//! - growth is `tcp_cong_avoid_ai(cnt, acked)`: a counter of delivered segments
//!   (`snd_cwnd_cnt`) that grows cwnd by counter / cnt segments; a counter already at or
//!   above cnt (banked while cnt was larger) gives one segment and restarts from 0; the
//!   counter is zeroed when a reduction starts (tcp_init_cwnd_reduction) and at a timeout
//!   (tcp_enter_loss); an ACK that delivers nothing new in avoidance (SND.UNA over SACKed
//!   data) still runs bictcp_update and the banked-credit step, as Linux's cong_avoid with
//!   acked = 0 does;
//! - the Reno-friendly window counts delivered segments: one segment per
//!   `(cwnd * beta_scale) >> 3` of them, beta_scale = 8 (1024 + beta) / 3 / (1024 - beta) in
//!   integers (15 for beta 717), alpha fixed;
//! - slow start adds every delivered segment up to ssthresh and hands the rest of the ACK
//!   to congestion avoidance (tcp_slow_start);
//! - ssthresh = max(cwnd * beta / 1024, 2) and W_max = cwnd (1024 + beta) / 2048 under fast
//!   convergence, in whole segments; a timeout (TCP_CA_Loss) clears everything, W_max and
//!   the minimum RTT included (bictcp_reset); ssthresh is cut here, and inside a fast
//!   recovery the sender puts the recovery's back (`tcp.timeout_in_recovery = "keep"`,
//!   the linux profile: tcp_enter_loss keeps the one set at CA_Recovery's start);
//! - the minimum RTT is the least RTT sample handed to it (cubictcp_acked), samples within
//!   one second (HZ jiffies) of an epoch's start discarded.
//! Deviations and ambiguities resolved (effects untested unless a number is given):
//! - the RTT samples are wtcp's per-ACK sample (the timestamp echo's: with delayed ACKs the
//!   older of the two segments, one segment's spacing longer), on ACKs of new data and on
//!   the ACK that ends recovery where the sender offers it; Linux's `ca_rtt_us` is the
//!   newest newly (S)ACKed segment's, duplicates that SACK new data included;
//! - the ACK that ends recovery reaches this arithmetic only when the sender runs with
//!   `tcp.recovery_exit_growth` (Linux grows on it by its acked_sacked after leaving
//!   CA_Recovery: tcp_ack -> tcp_cong_control); see docs/linux-engine.md for the profile;
//! - the cube root is exact (the integer part); Linux's `cubic_root` (a table lookup and
//!   one Newton step, within 0.2 % on average) is biased low: K = 9294 against 9300
//!   (2^-10 s) at W_max - cwnd = 300 segments, equal at 30;
//! - jiffies count from 0 at the start of the run; Linux's start from an arbitrary value,
//!   which only shifts the instants at which a jiffy ticks;
//! - growth waits while the sender's `Ctx::cwnd_limited` is false (cubictcp_cong_avoid
//!   returns first when !tcp_is_cwnd_limited; the `linux` profile's `tcp.cwnd_limited =
//!   "linux"` keeps tcp_cwnd_validate's memory); the epoch shift after an idle period
//!   (CA_EVENT_TX_START) is not reproduced: wtcp's flows here are bulk transfers;
//! - ECN's CWR state (one window of PRR without growth after an ECE, no second reduction
//!   in it) is not reproduced: an ECN echo reduces as `cubic.rs` does (the `linux`
//!   profile leaves ECN off);
//! - Linux's HyStart (ACK train and delay, re-armed after each timeout) is not
//!   reproduced: with `hystart = true` the initial slow start runs RFC 9406 HyStart++ in
//!   its place (at most L = 8 segments per ACK, a quarter of that for up to 5 rounds of
//!   CSS, counted on acknowledged bytes), and later slow starts are tcp_slow_start;
//! - after a timeout cwnd is one segment (the sender's rule); Linux's is
//!   packets_in_flight + 1, which with RACK can be more.

use crate::api::{Time, NS_PER_SEC};

/// `BICTCP_HZ`: K and t in units of 2^-10 s.
const BICTCP_HZ: u32 = 10;
/// `BICTCP_BETA_SCALE`.
const BETA_SCALE: u64 = 1024;

/// Linux's CUBIC state (`struct bictcp`) and the socket's `snd_cwnd_cnt`.
#[derive(Clone, Debug, Default)]
pub(super) struct LinuxCubic {
    cnt: u32,
    /// last_max_cwnd (segments).
    last_max: u32,
    last_cwnd: u32,
    /// last_time (jiffies).
    last_time: u64,
    /// bic_origin_point (segments) and bic_K (2^-10 s).
    origin: u32,
    k: u32,
    /// delay_min (us; 0: none yet).
    delay_min_us: u32,
    /// epoch_start (jiffies; None where Linux has 0).
    epoch_start: Option<u64>,
    ack_cnt: u32,
    tcp_cwnd: u32,
    /// tp->snd_cwnd_cnt: acknowledged segments toward the next growth.
    cwnd_cnt: u32,
}

/// Linux's constants from the algorithm's parameters (C = bic_scale * 10 / 1024, beta =
/// beta_int / 1024) and the factors cubictcp_register precomputes from them.
#[derive(Clone, Copy, Debug)]
pub(super) struct Consts {
    hz: u64,
    bic_scale: u64,
    beta: u64,
    friendly: bool,
    fast_convergence: bool,
    /// 2^40 / (bic_scale * 10).
    cube_factor: u64,
    /// 8 (1024 + beta) / 3 / (1024 - beta), in integers.
    beta_scale: u32,
}

impl Consts {
    pub(super) fn new(hz: u32, c: f64, beta: f64, friendly: bool, fast_convergence: bool) -> Self {
        // bic_scale 41 is C = 0.4004 (tcp_cubic.c); beta 717 is 0.7002.
        let bic_scale = (c * 1024.0 / 10.0).round().max(1.0) as u64;
        let beta = (beta * 1024.0).round().clamp(1.0, 1023.0) as u64;
        Consts {
            hz: u64::from(hz.max(1)),
            bic_scale,
            beta,
            friendly,
            fast_convergence,
            cube_factor: (1u64 << (10 + 3 * BICTCP_HZ)) / (bic_scale * 10),
            beta_scale: (8 * (BETA_SCALE + beta) / 3 / (BETA_SCALE - beta)) as u32,
        }
    }

    fn jiffies(&self, now: Time) -> u64 {
        (u128::from(now) * u128::from(self.hz) / u128::from(NS_PER_SEC as u64)) as u64
    }

    /// usecs_to_jiffies: rounded up.
    fn usecs_to_jiffies(&self, us: u32) -> u64 {
        (u64::from(us) * self.hz).div_ceil(1_000_000)
    }
}

/// The integer cube root (floor).
fn icbrt(a: u64) -> u32 {
    let mut x = (a as f64).cbrt() as u64;
    while x.pow(3) > a {
        x -= 1;
    }
    while (x + 1).checked_pow(3).is_some_and(|c| c <= a) {
        x += 1;
    }
    x as u32
}

impl LinuxCubic {
    /// Within one HZ of the epoch's start (cubictcp_acked discards such samples).
    pub(super) fn fresh_epoch(&self, k: &Consts, now: Time) -> bool {
        self.epoch_start.is_some_and(|e| k.jiffies(now).saturating_sub(e) < k.hz)
    }

    /// cubictcp_acked: an ACK's RTT sample.
    pub(super) fn on_rtt(&mut self, k: &Consts, now: Time, rtt: Time) {
        // Samples within a second of an epoch's start are discarded (after a recovery).
        if self.fresh_epoch(k, now) {
            return;
        }
        let us = ((rtt / 1000).max(1)).min(u64::from(u32::MAX)) as u32;
        if self.delay_min_us == 0 || us < self.delay_min_us {
            self.delay_min_us = us;
        }
    }

    /// tcp_slow_start: cwnd grows by the acknowledged segments up to `ssthresh`; returns
    /// the new cwnd and the segments left for congestion avoidance.
    pub(super) fn slow_start(cwnd: u32, ssthresh: u32, acked: u32) -> (u32, u32) {
        let grown = cwnd.saturating_add(acked).min(ssthresh.max(cwnd));
        (grown, acked - (grown - cwnd))
    }

    /// cubictcp_cong_avoid past slow start: `acked` segments at a cwnd of `cwnd`
    /// segments; returns the segments cwnd grows by.
    pub(super) fn congestion_avoidance(&mut self, k: &Consts, now: Time, cwnd: u32, acked: u32) -> u32 {
        self.update(k, now, cwnd, acked);
        self.cong_avoid_ai(self.cnt, acked)
    }

    /// tcp_cong_avoid_ai(tp, w, acked).
    fn cong_avoid_ai(&mut self, w: u32, acked: u32) -> u32 {
        let w = w.max(1);
        let mut grow = 0;
        // Credits banked at a higher w are applied gently: one segment, the counter restarts.
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            grow += 1;
        }
        self.cwnd_cnt = self.cwnd_cnt.saturating_add(acked);
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            grow += delta;
        }
        grow
    }

    /// bictcp_update: ca->cnt for a cwnd of `cwnd` segments.
    fn update(&mut self, k: &Consts, now: Time, cwnd: u32, acked: u32) {
        self.ack_cnt = self.ack_cnt.saturating_add(acked);
        let j = k.jiffies(now);
        if self.last_cwnd == cwnd && j.saturating_sub(self.last_time) <= k.hz / 32 {
            return;
        }
        // The cubic function updates cnt at most once per jiffy; a reduction clears the
        // epoch, which forces it.
        if !(self.epoch_start.is_some() && j == self.last_time) {
            self.last_cwnd = cwnd;
            self.last_time = j;
            let epoch = match self.epoch_start {
                Some(e) => e,
                None => {
                    self.epoch_start = Some(j);
                    self.ack_cnt = acked;
                    self.tcp_cwnd = cwnd;
                    if self.last_max <= cwnd {
                        self.k = 0;
                        self.origin = cwnd;
                    } else {
                        self.k = icbrt(k.cube_factor.wrapping_mul(u64::from(self.last_max - cwnd)));
                        self.origin = self.last_max;
                    }
                    j
                }
            };
            let t = ((j - epoch + k.usecs_to_jiffies(self.delay_min_us)) << BICTCP_HZ) / k.hz;
            let below = t < u64::from(self.k);
            let offs = if below { u64::from(self.k) - t } else { t - u64::from(self.k) };
            let delta = ((k.bic_scale * 10).wrapping_mul(offs).wrapping_mul(offs).wrapping_mul(offs) >> (10 + 3 * BICTCP_HZ)) as u32;
            let target = if below { self.origin.wrapping_sub(delta) } else { self.origin.wrapping_add(delta) };
            self.cnt = if target > cwnd { cwnd / (target - cwnd) } else { 100u32.wrapping_mul(cwnd) };
            // "increase cwnd 5% per RTT" while the bandwidth is unknown.
            if self.last_max == 0 && self.cnt > 20 {
                self.cnt = 20;
            }
        }
        if k.friendly {
            let per = (cwnd.saturating_mul(k.beta_scale)) >> 3;
            while per > 0 && self.ack_cnt > per {
                self.ack_cnt -= per;
                self.tcp_cwnd = self.tcp_cwnd.saturating_add(1);
            }
            if self.tcp_cwnd > cwnd {
                self.cnt = self.cnt.min(cwnd / (self.tcp_cwnd - cwnd));
            }
        }
        self.cnt = self.cnt.max(2);
    }

    /// cubictcp_recalc_ssthresh at a cwnd of `cwnd` segments (a reduction starts:
    /// tcp_init_cwnd_reduction also zeroes snd_cwnd_cnt): the new ssthresh in segments.
    pub(super) fn ssthresh(&mut self, k: &Consts, cwnd: u32) -> u32 {
        self.epoch_start = None;
        self.last_max = if cwnd < self.last_max && k.fast_convergence { (u64::from(cwnd) * (BETA_SCALE + k.beta) / (2 * BETA_SCALE)) as u32 } else { cwnd };
        self.cwnd_cnt = 0;
        ((u64::from(cwnd) * k.beta / BETA_SCALE) as u32).max(2)
    }

    /// A timeout: cubictcp_state(TCP_CA_Loss) clears the state (bictcp_reset);
    /// tcp_enter_loss zeroes snd_cwnd_cnt.
    pub(super) fn reset(&mut self) {
        *self = LinuxCubic::default();
    }

    pub(super) fn last_max(&self) -> u32 {
        self.last_max
    }

    /// K in seconds.
    pub(super) fn k_s(&self) -> f64 {
        f64::from(self.k) / 1024.0
    }

    /// Linux's state for traces: the origin, cnt, the Reno-friendly window, the minimum
    /// RTT and the growth counter.
    pub(super) fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("origin_segments", f64::from(self.origin)));
        out.push(("cnt", f64::from(self.cnt)));
        out.push(("tcp_cwnd_segments", f64::from(self.tcp_cwnd)));
        out.push(("delay_min_s", f64::from(self.delay_min_us) / 1e6));
        out.push(("cwnd_cnt", f64::from(self.cwnd_cnt)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    fn consts() -> Consts {
        Consts::new(250, 0.4, 0.7001953125, true, true)
    }

    #[test]
    fn linux_constants_from_the_parameters() {
        let k = consts();
        assert_eq!((k.bic_scale, k.beta, k.beta_scale), (41, 717, 15));
        assert_eq!(k.cube_factor, (1u64 << 40) / 410);
        // usecs_to_jiffies rounds up: 1 us is one 4 ms jiffy, 4000 us exactly one.
        assert_eq!((k.usecs_to_jiffies(1), k.usecs_to_jiffies(4000), k.usecs_to_jiffies(4001)), (1, 1, 2));
    }

    #[test]
    fn ssthresh_and_w_max_in_whole_segments() {
        let k = consts();
        let mut c = LinuxCubic::default();
        assert_eq!(c.ssthresh(&k, 100), 70, "100 * 717 / 1024 = 70.02");
        assert_eq!(c.last_max(), 100);
        assert_eq!(c.ssthresh(&k, 70), 49);
        assert_eq!(c.last_max(), 59, "fast convergence: 70 * 1741 / 2048 = 59.5");
        assert_eq!(c.ssthresh(&k, 2), 2, "floor of 2 segments");
    }

    #[test]
    fn k_is_the_time_to_regain_w_max() {
        // W_max 100, cwnd 70: K = cbrt(30 / 0.4004) = 4.216 s, in 2^-10 s units.
        let k = consts();
        let mut c = LinuxCubic { last_max: 100, ..LinuxCubic::default() };
        c.congestion_avoidance(&k, 1000 * MS, 70, 1);
        assert_eq!(c.origin, 100);
        assert!((c.k_s() - (30.0f64 / (410.0 / 1024.0)).cbrt()).abs() < 0.002, "{}", c.k_s());
    }

    #[test]
    fn banked_credits_give_one_segment_and_the_counter_restarts() {
        let mut c = LinuxCubic { cwnd_cnt: 50, ..LinuxCubic::default() };
        assert_eq!(c.cong_avoid_ai(10, 1), 1, "50 >= 10: one segment, not five");
        assert_eq!(c.cwnd_cnt, 1);
        assert_eq!(c.cong_avoid_ai(2, 5), 3, "1 >= 2 is false; 6 / 2 = 3 segments");
        assert_eq!(c.cwnd_cnt, 0);
    }

    #[test]
    fn slow_start_stops_at_ssthresh_and_hands_on_the_rest() {
        assert_eq!(LinuxCubic::slow_start(8, 10, 4), (10, 2));
        assert_eq!(LinuxCubic::slow_start(8, 100, 4), (12, 0));
    }

    #[test]
    fn cnt_from_the_concave_target_by_hand() {
        // W_max 100, cwnd 70: K = 4316 (2^-10 s); at t = 0 delta = 410 * 4316^3 >> 40 = 29,
        // the target 71, cnt = 70 / 1 = 70.
        let k = consts();
        let mut c = LinuxCubic { last_max: 100, ..LinuxCubic::default() };
        c.congestion_avoidance(&k, 0, 70, 1);
        assert_eq!((c.k, c.origin, c.cnt), (4316, 100, 70));
        // 2 s later (500 jiffies, t = 2048): delta = 410 * 2268^3 >> 40 = 4, target 96,
        // cnt = 70 / 26 = 2.
        c.congestion_avoidance(&k, 2_000 * MS, 70, 1);
        assert_eq!(c.cnt, 2);
    }

    #[test]
    fn cnt_is_kept_within_a_jiffy_even_when_cwnd_changes() {
        let k = consts();
        let mut c = LinuxCubic { last_max: 100, ..LinuxCubic::default() };
        c.congestion_avoidance(&k, 40 * MS, 70, 1);
        c.cnt = 999;
        c.congestion_avoidance(&k, 41 * MS, 71, 1);
        assert_eq!(c.cnt, 999, "same jiffy: only the Reno-friendly part runs");
    }

    #[test]
    fn the_reno_friendly_window_caps_cnt() {
        // tcp_cwnd 80 over a cwnd of 70: cnt at most 70 / 10 = 7.
        let k = consts();
        let mut c = LinuxCubic { last_max: 70, tcp_cwnd: 80, epoch_start: Some(0), ..LinuxCubic::default() };
        c.congestion_avoidance(&k, 400 * MS, 70, 1);
        assert_eq!(c.cnt, 7);
        // And it grows one segment per (cwnd * 15) >> 3 = 131 acknowledged segments.
        let mut d = LinuxCubic { last_max: 70, tcp_cwnd: 70, ack_cnt: 131, epoch_start: Some(0), ..LinuxCubic::default() };
        d.congestion_avoidance(&k, 400 * MS, 70, 1);
        assert_eq!((d.tcp_cwnd, d.ack_cnt), (71, 1));
    }

    #[test]
    fn after_a_loss_cnt_is_not_clamped_to_20() {
        let k = consts();
        let mut c = LinuxCubic { last_max: 40, ..LinuxCubic::default() };
        c.congestion_avoidance(&k, 0, 40, 1);
        assert_eq!(c.cnt, 100 * 40, "at the origin: a very small increment");
    }

    #[test]
    fn before_any_loss_cnt_is_at_most_20() {
        // W_max 0: the target starts at cwnd, cnt = 100 cwnd, clamped to 20 (5 % per RTT).
        let k = consts();
        let mut c = LinuxCubic::default();
        let grown: u32 = (0..40).map(|i| c.congestion_avoidance(&k, i * MS, 40, 1)).sum();
        assert_eq!(c.cnt, 20);
        assert_eq!(grown, 2, "40 acknowledged segments at cnt 20");
    }

    #[test]
    fn cnt_is_recomputed_at_most_every_hz_over_32_jiffies_while_cwnd_is_unchanged() {
        let k = consts();
        let mut c = LinuxCubic { last_max: 100, ..LinuxCubic::default() };
        c.congestion_avoidance(&k, 0, 70, 1);
        let first = c.cnt;
        // 7 jiffies (28 ms) later the concave curve has moved, but cnt is kept.
        c.cnt = 999;
        c.congestion_avoidance(&k, 28 * MS, 70, 1);
        assert_eq!(c.cnt, 999);
        c.congestion_avoidance(&k, 32 * MS, 70, 1);
        assert_eq!((first, c.cnt), (70, 70));
    }

    #[test]
    fn rtt_samples_within_a_second_of_an_epoch_are_discarded() {
        let k = consts();
        let mut c = LinuxCubic::default();
        c.on_rtt(&k, 0, 50 * MS);
        assert_eq!(c.delay_min_us, 50_000);
        c.congestion_avoidance(&k, 2000 * MS, 20, 1);
        c.on_rtt(&k, 2500 * MS, 30 * MS);
        assert_eq!(c.delay_min_us, 50_000);
        c.on_rtt(&k, 3000 * MS, 30 * MS);
        assert_eq!(c.delay_min_us, 30_000);
    }

    #[test]
    fn a_reduction_zeroes_the_growth_counter_and_ends_the_epoch() {
        let k = consts();
        let mut c = LinuxCubic { cwnd_cnt: 9, epoch_start: Some(3), ..LinuxCubic::default() };
        c.ssthresh(&k, 40);
        assert_eq!((c.cwnd_cnt, c.epoch_start), (0, None));
    }

    #[test]
    fn integer_cube_root_is_the_floor() {
        for a in [0u64, 1, 7, 8, 26, 27, 1_000_000, 999_999, u64::MAX] {
            let x = u64::from(icbrt(a));
            assert!(x.pow(3) <= a && (x + 1).checked_pow(3).is_none_or(|c| c > a), "{a}");
        }
    }
}
