//! C2TCP: S. Abbasloo, Y. Xu, H. J. Chao, "C2TCP: A Flexible Cellular TCP to Meet Stringent
//! Delay Requirements", IEEE JSAC 37(4), 2019 (and S. Abbasloo, T. Li, Y. Xu, H. J. Chao,
//! "Cellular Controlled Delay TCP (C2TCP)", IFIP Networking 2018), on top of CUBIC.
//!
//! C2TCP keeps a loss-based TCP and adds a CoDel-like delay check at the sender: every RTT
//! sample is compared with a setpoint (`target` times the smallest RTT seen); while samples
//! stay above it for an `interval`, the window is reset to one segment (ssthresh as after
//! a congestion event), and again after interval * (1/sqrt(n)) while the n-th reset's bad
//! period goes on; a sample at or below the setpoint ends the bad period and adds extra
//! growth in proportion to setpoint/RTT.
//!
//! The papers' text is not among this project's sources; the module follows the authors'
//! own implementation, the C2TCP patch of Linux 4.13's `tcp_cubic.c` (github
//! soheil-ab/c2tcp, function `c2tcp_pkts_acked`, called from `cubictcp_acked`, Linux's
//! `pkts_acked` hook, for every ACK with an RTT sample, before CUBIC's `cong_avoid` on the
//! same ACK). Cited as "the kernel code" below.
//!
//! Deviations and ambiguities resolved:
//! - Setpoint and interval: the kernel code computes both as
//!   `min_rtt_ms * c2tcp_alpha / 100` with `TCP_C2TCP_ALPHA_INIT 200` (its comment says
//!   "Initial Alpha = 3", the value is 2): `target = 2.0` and `interval = 2.0` (ratios to the
//!   minimum RTT). `target_ms` / `interval_ms` (0 = off) give absolute values instead, the
//!   papers' application-chosen target (their text is not here to quote: untested against
//!   their figures).
//! - The kernel's `cubictcp_acked` returns before C2TCP for the first second of every CUBIC
//!   epoch ("Discard delay samples right after fast recovery": `epoch_start` and
//!   `tcp_jiffies32 - epoch_start < HZ`): no minimum, no check, no growth, no reset then
//!   (`epoch_gate_s = 1.0`; an epoch starts at the first congestion-avoidance ACK after a
//!   reduction, also after C2TCP's own reset). With the nested CUBIC's `arithmetic = "ns3"`
//!   there is no epoch to read and no gate.
//! - 1/sqrt(n) of the control law: the kernel code keeps CoDel's reciprocal square root
//!   with one Newton step per reset from the previous value (factors 1, 0.5, 0.5625,
//!   0.488, ... where the exact ones are 1, 0.707, 0.577, 0.5): `inv_sqrt = "newton"`
//!   (default) repeats those steps in floating point; `"exact"` takes the square root.
//! - Arithmetic: the kernel code works in whole milliseconds (setpoint truncated to ms, the
//!   extra growth `setpoint_ms / rtt_ms` an integer; `next_time` kept in µs and compared in
//!   ms, so a reset may come up to 1 ms early); here times are nanoseconds and the ratio is
//!   exact. With RTTs of a few ms the kernel's truncation is coarse; the effect is untested.
//! - Extra growth at or below the setpoint: the kernel code adds setpoint/RTT to
//!   `snd_cwnd_cnt`, the counter CUBIC's `tcp_cong_avoid_ai` spends against its own `cnt`
//!   on the same ACK, so the credit is spent at whichever rate `cnt` sets (faster than
//!   1/cwnd in the concave and convex regions, and C2TCP's check at cwnd also spends CUBIC's
//!   credit near W_max). Here cwnd += (setpoint/RTT) * MSS^2 / cwnd per ACK on top of CUBIC's
//!   own growth: slower than the kernel wherever CUBIC's cnt < cwnd; the size of the
//!   difference is untested.
//! - The minimum RTT is the smallest sample since the flow began (`c2tcp_min_urtt`, never
//!   aged in the kernel code).
//! - In fast recovery the kernel's PRR rewrites `snd_cwnd` on every ACK, so there a reset
//!   changes only ssthresh (and `prior_ssthresh`, which wtcp has no undo for) and the extra
//!   growth is lost: here the delay check keeps running in recovery, a reset applies CUBIC's
//!   reduction (ssthresh, W_max) without touching cwnd, and no extra growth is added. The
//!   ACK that ends recovery is checked too (`on_recovery_exit_ack`), as the kernel's
//!   `pkts_acked` sees it.
//! - The CUBIC underneath (`cubic`, nested) defaults to Linux's values where wtcp has them,
//!   the kernel code being Linux's tcp_cubic.c: `reduce = "cwnd"` (a reset's ssthresh is
//!   0.7 * cwnd, `cubictcp_recalc_ssthresh`), `growth_unit = "segment"`, `beta = 717/1024`,
//!   `alpha_switch = false`. Not Linux's: HyStart++ instead of Linux's HyStart, and RFC 5681
//!   slow start (one SMSS per ACK). Losses, timeouts and ECN echoes are CUBIC's; a reset
//!   counts as CUBIC's reduction for its once-per-window ECN response (the kernel, whose
//!   reset leaves the state Open, would still answer an echo in that window).
//! - RTT samples are wtcp's (the oldest segment an ACK covers, or the timestamp echo);
//!   Linux times the newest. Duplicate ACKs carry none here.

use serde::Deserialize;

use crate::api::{AckSample, CongestionControl, Ctx, Loss, Signal, Time, Verdict, Window};
use crate::cubic::{Cubic, CubicParams, GrowthUnit};
use crate::filters::MinTracker;
use crate::reno::HalveOf;
use crate::registry::{AlgorithmInfo, ParamInfo, Range, MAX_GAIN, MAX_SECONDS};

/// The nested CUBIC defaults, as JSON (the registry documents a table by its defaults).
const CUBIC_DEFAULT: &str = r#"{"c":0.4,"beta":0.7001953125,"fast_convergence":true,"reno_friendly":true,"alpha_switch":false,"hystart":true,"slow_start":"rfc5681","growth_unit":"segment","arithmetic":"real","reduce":"cwnd"}"#;

const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "target",
        unit: "x min RTT",
        default: "2.0",
        doc: "setpoint as a multiple of the minimum RTT (kernel code: c2tcp_alpha 200 / 100)",
        range: Range::closed(1.0, MAX_GAIN),
    },
    ParamInfo {
        name: "interval",
        unit: "x min RTT",
        default: "2.0",
        doc: "how long RTT samples must stay above the setpoint before the first reset, as a multiple of the minimum RTT (kernel code: the setpoint's value)",
        range: Range::above(0.0, MAX_GAIN),
    },
    ParamInfo {
        name: "target_ms",
        unit: "ms",
        default: "0.0",
        doc: "absolute setpoint in milliseconds, replacing `target` (0: off)",
        range: Range::closed(0.0, MAX_SECONDS * 1e3),
    },
    ParamInfo {
        name: "interval_ms",
        unit: "ms",
        default: "0.0",
        doc: "absolute interval in milliseconds, replacing `interval` (0: off)",
        range: Range::closed(0.0, MAX_SECONDS * 1e3),
    },
    ParamInfo {
        name: "epoch_gate_s",
        unit: "s",
        default: "1.0",
        doc: "no delay check for this long after a CUBIC epoch starts (kernel cubictcp_acked: HZ); 0: off",
        range: Range::closed(0.0, MAX_SECONDS),
    },
    ParamInfo {
        name: "inv_sqrt",
        unit: "newton|exact",
        default: "newton",
        doc: "1/sqrt(n) of the control law: CoDel's one Newton step per reset, as the kernel code, or exact",
        range: Range::Any,
    },
    ParamInfo { name: "cubic", unit: "table", default: CUBIC_DEFAULT, doc: "parameters of the underlying CUBIC (see `cubic`); defaults are Linux's where wtcp has them", range: Range::Table(crate::cubic::PARAMS) },
];

pub const C2TCP_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "c2tcp",
    summary: "CUBIC plus a sender-side CoDel: RTT samples above target x min RTT for an interval reset the window to one segment; samples below add growth in proportion to setpoint/RTT.",
    reference: "Abbasloo, Xu, Chao, IEEE JSAC 37(4), 2019; authors' Linux 4.13 tcp_cubic.c patch",
    params: PARAMS,
    timeout_collapses_window: true,
    constraints: &[],
};

/// Parameters of C2TCP.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct C2tcpParams {
    /// Setpoint / minimum RTT.
    pub target: f64,
    /// Interval / minimum RTT.
    pub interval: f64,
    /// Absolute setpoint, ms (0: use `target`).
    pub target_ms: f64,
    /// Absolute interval, ms (0: use `interval`).
    pub interval_ms: f64,
    /// No check this long after a CUBIC epoch starts, s (0: off).
    pub epoch_gate_s: f64,
    /// How 1/sqrt(n) is computed.
    pub inv_sqrt: InvSqrt,
    /// The CUBIC underneath.
    pub cubic: CubicParams,
}

/// 1/sqrt(n) in the control law.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InvSqrt {
    /// CoDel's Newton step per reset (`Newton_step`), as the kernel code.
    Newton,
    /// The square root.
    Exact,
}

impl Default for C2tcpParams {
    fn default() -> Self {
        // Linux 4.13 tcp_cubic.c where wtcp's CUBIC has the option.
        let cubic = CubicParams { reduce: HalveOf::Cwnd, growth_unit: GrowthUnit::Segment, beta: 717.0 / 1024.0, alpha_switch: false, ..CubicParams::default() };
        C2tcpParams { target: 2.0, interval: 2.0, target_ms: 0.0, interval_ms: 0.0, epoch_gate_s: 1.0, inv_sqrt: InvSqrt::Newton, cubic }
    }
}

pub fn build(p: &C2tcpParams) -> Box<dyn CongestionControl> {
    Box::new(C2tcp::new(*p))
}

/// C2TCP over CUBIC.
#[derive(Clone, Debug)]
pub struct C2tcp {
    params: C2tcpParams,
    cubic: Cubic,
    /// Smallest RTT sample so far.
    min_rtt: MinTracker,
    /// When the current bad period started plus the interval (`first_above_time`); None
    /// while samples are at or below the setpoint.
    first_above: Option<Time>,
    /// The next time a bad sample resets the window (`next_time`).
    next_reset: Time,
    /// Resets in the current bad period plus one (`cnt_rtt`).
    count: u32,
    /// 1/sqrt(count) as the control law uses it (`rec_inv_sqrt`).
    inv_sqrt: f64,
    /// Resets so far, for traces.
    resets: u64,
}

impl C2tcp {
    pub fn new(params: C2tcpParams) -> Self {
        C2tcp { params, cubic: Cubic::new(params.cubic), min_rtt: MinTracker::default(), first_above: None, next_reset: 0, count: 1, inv_sqrt: 1.0, resets: 0 }
    }

    fn ms(v: f64) -> Time {
        (v * 1e6).round() as Time
    }

    fn setpoint(&self, min_rtt: Time) -> Time {
        if self.params.target_ms > 0.0 { Self::ms(self.params.target_ms) } else { (min_rtt as f64 * self.params.target).round() as Time }
    }

    fn interval(&self, min_rtt: Time) -> Time {
        if self.params.interval_ms > 0.0 { Self::ms(self.params.interval_ms) } else { (min_rtt as f64 * self.params.interval).round() as Time }
    }

    /// CoDel's `Newton_step` for `count`: x' = x * (3 - count * x^2) / 2.
    fn step_inv_sqrt(&mut self) {
        self.inv_sqrt = match self.params.inv_sqrt {
            InvSqrt::Newton => self.inv_sqrt * (3.0 - f64::from(self.count) * self.inv_sqrt * self.inv_sqrt) / 2.0,
            InvSqrt::Exact => 1.0 / f64::from(self.count).sqrt(),
        };
    }

    /// The kernel code's `c2tcp_pkts_acked` for one RTT sample, behind `cubictcp_acked`'s
    /// gate.
    fn delay_check(&mut self, rtt: Time, ack: &AckSample, w: &mut Window, cx: &Ctx) {
        let gate = (self.params.epoch_gate_s * 1e9).round() as Time;
        if self.cubic.epoch_start().is_some_and(|start| cx.now < start + gate) {
            return;
        }
        let min_rtt = self.min_rtt.update(rtt);
        let setpoint = self.setpoint(min_rtt);
        let interval = self.interval(min_rtt);
        if rtt <= setpoint {
            // Good: the bad period ends; extra growth of setpoint/RTT per cwnd of ACKs.
            self.first_above = None;
            self.count = 1;
            if !ack.in_recovery {
                let mss = cx.mss_f();
                w.cwnd += setpoint as f64 / rtt.max(1) as f64 * mss * mss / w.cwnd.max(mss);
            }
        } else if self.first_above.is_none() {
            // The first sample above the setpoint: wait an interval.
            let at = cx.now + interval;
            self.first_above = Some(at);
            self.next_reset = at;
            self.count = 1;
            self.inv_sqrt = 1.0;
            self.step_inv_sqrt();
        } else if cx.now > self.next_reset {
            // Still above after the interval: CoDel's control law, then the reset.
            self.next_reset = cx.now + (interval as f64 * self.inv_sqrt).round() as Time;
            self.count += 1;
            self.step_inv_sqrt();
            self.resets += 1;
            if ack.in_recovery {
                let cwnd = w.cwnd;
                self.cubic.congestion_event(w, cx);
                w.cwnd = cwnd;
            } else {
                self.cubic.congestion_event(w, cx);
                w.cwnd = cx.mss_f();
            }
        }
    }
}

impl CongestionControl for C2tcp {
    fn name(&self) -> &'static str {
        "c2tcp"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        // cubictcp_acked (C2TCP) before cubictcp_cong_avoid on the same ACK.
        if let Some(rtt) = ack.rtt {
            self.delay_check(rtt, ack, w, cx);
        }
        self.cubic.on_ack(ack, w, cx);
    }

    fn on_recovery_exit_growth(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        self.cubic.on_recovery_exit_growth(ack, w, cx);
    }

    fn on_recovery_exit_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        // The kernel's pkts_acked sees the ACK that ends recovery.
        if let Some(rtt) = ack.rtt {
            self.delay_check(rtt, ack, w, cx);
        }
    }

    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
        self.cubic.on_loss(loss, w, cx)
    }

    fn on_signal(&mut self, signal: Signal, w: &mut Window, cx: &mut Ctx) {
        self.cubic.on_signal(signal, w, cx);
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        let min_rtt = self.min_rtt.value().unwrap_or(0);
        out.push(("min_rtt_ms", min_rtt as f64 / 1e6));
        out.push(("setpoint_ms", self.setpoint(min_rtt) as f64 / 1e6));
        out.push(("above_setpoint", f64::from(u8::from(self.first_above.is_some()))));
        out.push(("resets", self.resets as f64));
        self.cubic.trace_vars(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Harness, MSS};

    const MS: Time = 1_000_000;

    /// No epoch gate (the harness's ACKs start CUBIC's epoch at once): the check itself.
    fn ungated() -> C2tcpParams {
        C2tcpParams { epoch_gate_s: 0.0, ..C2tcpParams::default() }
    }

    fn harness(p: C2tcpParams) -> Harness {
        let mut h = Harness::new(Box::new(C2tcp::new(p)));
        // Out of slow start, so that CUBIC's own growth is small and known.
        h.w.ssthresh = 20.0 * f64::from(MSS);
        h.w.cwnd = 20.0 * f64::from(MSS);
        h
    }

    #[test]
    fn samples_above_the_setpoint_for_an_interval_reset_the_window_to_one_segment() {
        let mut h = harness(ungated());
        h.ack(1, 50 * MS); // min RTT 50 ms: setpoint and interval 100 ms
        let before = h.w.cwnd;
        h.ack(1, 150 * MS); // the first sample above: the interval starts (t = 200 ms)
        assert!(h.w.cwnd >= before, "no reset yet");
        let before = h.w.cwnd;
        // Harness::ack advances time by the RTT: t = 350 ms > 200 + 100.
        h.ack(1, 150 * MS);
        // Reset to one segment, then CUBIC's slow start adds one on the same ACK (the
        // kernel's cong_avoid after pkts_acked).
        assert_eq!(h.w.cwnd, 2.0 * f64::from(MSS));
        // ssthresh as Linux's cubictcp_recalc_ssthresh: cwnd * 717/1024.
        assert_eq!(h.w.ssthresh, before * 717.0 / 1024.0);
        assert_eq!(crate::testing::var(&h, "resets"), 1.0);
    }

    #[test]
    fn resets_in_one_bad_period_follow_codels_control_law() {
        let gaps = |inv_sqrt| {
            let mut h = harness(C2tcpParams { target_ms: 100.0, interval_ms: 100.0, inv_sqrt, ..ungated() });
            h.ack(1, 150 * MS); // t = 150: bad period starts, first reset possible after t = 250
            let mut resets_at = Vec::new();
            for _ in 0..400 {
                crate::testing::ack_timed(&mut h, 1, MS, 150 * MS, None, false);
                if crate::testing::var(&h, "resets") as usize > resets_at.len() {
                    resets_at.push(h.now / MS);
                }
            }
            assert_eq!(resets_at[0], 251);
            resets_at.windows(2).map(|p| p[1] - p[0]).take(4).collect::<Vec<u64>>()
        };
        // The next reset waits interval * 1/sqrt(n) after the n-th, ended by the first sample
        // (1 ms apart) strictly after it: with the kernel's Newton steps 1, 0.5, 0.5625,
        // 0.4878 ...
        assert_eq!(gaps(InvSqrt::Newton), [101, 51, 57, 49]);
        // ... and with the square root 1, 0.707, 0.577, 0.5.
        assert_eq!(gaps(InvSqrt::Exact), [101, 71, 58, 51]);
    }

    #[test]
    fn no_check_runs_in_the_first_second_of_a_cubic_epoch() {
        // Samples far above the setpoint in CUBIC's first epoch second: no reset.
        let mut h = harness(C2tcpParams::default());
        h.ack(1, 50 * MS);
        for _ in 0..5 {
            h.ack(1, 150 * MS); // t <= 800 ms
        }
        assert_eq!(crate::testing::var(&h, "resets"), 0.0);
        // Past it, the same samples reset the window.
        for _ in 0..6 {
            h.ack(1, 150 * MS);
        }
        assert!(crate::testing::var(&h, "resets") >= 1.0);
    }

    #[test]
    fn a_sample_at_the_setpoint_ends_the_bad_period() {
        let mut h = harness(ungated());
        h.ack(1, 50 * MS);
        h.ack(1, 150 * MS); // bad period starts
        h.ack(1, 100 * MS); // = setpoint: good
        assert_eq!(crate::testing::var(&h, "above_setpoint"), 0.0);
        h.ack(1, 150 * MS); // a new bad period: no reset on this sample
        assert_eq!(crate::testing::var(&h, "resets"), 0.0);
    }

    #[test]
    fn below_the_setpoint_growth_is_in_proportion_to_setpoint_over_rtt() {
        // 20 ACKs at 50 ms (min RTT 50 ms) with setpoints of 100 and 200 ms: C2TCP adds
        // (setpoint/RTT) * MSS^2 / cwnd per ACK, about 2 and 4 segments over a 20-segment
        // window, which carries cwnd above CUBIC's own Reno-friendly growth (one segment):
        // the two runs differ by about 2 segments.
        let grown = |target_ms: f64| {
            let mut h = harness(C2tcpParams { target_ms, ..ungated() });
            for _ in 0..20 {
                h.ack(1, 50 * MS);
            }
            h.w.cwnd / f64::from(MSS) - 20.0
        };
        let (two, four) = (grown(100.0), grown(200.0));
        assert!((1.8..2.0).contains(&two), "{two}");
        assert!((1.7..2.0).contains(&(four - two)), "{two} {four}");
    }
}
