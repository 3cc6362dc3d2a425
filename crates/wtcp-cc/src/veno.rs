//! TCP Veno.
//!
//! C. P. Fu and S. C. Liew, "TCP Veno: TCP Enhancement for Transmission over Wireless
//! Access Networks", IEEE JSAC 21(2):216-228, Feb. 2003; Linux `net/ipv4/tcp_veno.c`.
//!
//! Reno whose additive increase and multiplicative decrease depend on the Vegas backlog
//! N = cwnd*(RTT - BaseRTT)/RTT: with N below beta a loss is judged random and ssthresh is
//! cut to 4/5 of cwnd, else to 1/2; in congestion avoidance with N >= beta cwnd grows at half
//! Reno's rate.
//!
//! Deviations and ambiguities resolved:
//! - N is recomputed on every ACK that carries an RTT sample outside recovery, from that
//!   ACK's sample (Linux: the minimum since the previous ACK) or, with `rtt = "smoothed"`,
//!   from SRTT (the paper's Vegas-style wording, "RTT is the smoothed round-trip time", as
//!   quoted by later papers; unconfirmed). cwnd is the window when the ACK arrives, before
//!   this ACK's growth. An ACK without a sample keeps the last N, so a loss is judged by the
//!   last N computed before it (Linux). Linux's "fewer than 3 samples: plain Reno" is not
//!   used; N is compared as a real number (Linux keeps one fractional bit).
//! - BaseRTT is the minimum RTT ever seen; it is never reset (Linux resets it on idle
//!   restart, which this interface does not signal).
//! - Congestion avoidance with N >= beta: Reno's per-ACK increase on every other new ACK
//!   (paper: "cwnd += 1/cwnd every other new ACK"); Linux counts the same per RTT with a
//!   toggle. With N < beta and in slow start: Reno (`Reno::grow`, RFC 5681 eq. 2 and 3).
//! - Fast retransmit: ssthresh = max(cwnd*4/5, 2*SMSS) when N < beta (verdict `Wireless`),
//!   else max(cwnd/2, 2*SMSS) (verdict `Congestion`); cwnd = ssthresh, then the sender's
//!   fast recovery adds its inflation. The 2-segment floor is Linux's.
//! - Timeout: Reno's response (`Reno::respond`, cwnd = 1 SMSS, ssthresh halved once per
//!   episode), halving `timeout_halve` (default cwnd, as the paper's Reno, ns-2 and Linux
//!   Reno); the verdict is given by the same backlog test. Linux applies Veno's 4/5 or 1/2
//!   ssthresh on a timeout too.
//! - ns-3.44's TcpVeno, for comparison with ns-3 only (the `ns3` profile sets them):
//!   `rtt = "smoothed"` (ns-3 passes SRTT to PktsAcked), `backlog = "whole_segments"`
//!   (tcp-veno.cc truncates the target window), `cut_of = "pipe"` (GetSsThresh gets
//!   BytesInFlight), `growth = "reno"` (m_cntRtt is zeroed on every ACK, so on ordinary ACKs
//!   outside recovery the half-rate branch never runs; it does after two or more duplicate
//!   ACKs and at recovery exits, which is not reproduced), `timeout_cut = "veno"` and
//!   `recovery = "newreno"` (TcpSocketBase). Also not reproduced: after a recovery or a
//!   timeout ns-3's backlog stays at cwnd (congestive) until the next ordinary ACK, so a
//!   loss found before one is halved there.
//! - Fast recovery: `recovery = "reno"` by default (the paper modifies Reno, whose recovery
//!   ends on the first new ACK); `"newreno"` selects RFC 6582 partial-ACK handling.

use serde::Deserialize;

use crate::api::{AckSample, CongestionControl, Ctx, Loss, RecoveryStyle, Time, Verdict, Window, NS_PER_SEC};
use crate::filters::MinTracker;
use crate::registry::{AlgorithmInfo, ParamInfo, Range, MAX_SEGMENTS};
use crate::reno::{halved_ssthresh, HalveOf, Reno, RenoParams};

const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "beta",
        unit: "segments",
        default: "3",
        doc: "backlog N below beta: non-congestive state, a loss is judged random (paper and Linux: 3)",
        range: Range::closed(0.0, MAX_SEGMENTS),
    },
    ParamInfo {
        name: "rtt",
        unit: "sample|smoothed",
        default: "sample",
        doc: "RTT in N: this ACK's sample (Linux) or SRTT",
        range: Range::Any,
    },
    ParamInfo {
        name: "timeout_halve",
        unit: "flight_size|cwnd|pipe",
        default: "cwnd",
        doc: "quantity halved by Reno's timeout response: cwnd (paper's Reno, ns-2, Linux), FlightSize (RFC 5681) or pipe (ns-3)",
        range: Range::Any,
    },
    ParamInfo {
        name: "recovery",
        unit: "reno|newreno",
        default: "reno",
        doc: "fast recovery: Reno (paper) or NewReno partial-ACK handling (RFC 6582)",
        range: Range::Any,
    },
    ParamInfo {
        name: "backlog",
        unit: "real|whole_segments",
        default: "real",
        doc: "N as a real number (paper, Linux keeps a fraction) or ns-3's whole segments (cwnd in segments minus the truncated target window)",
        range: Range::Any,
    },
    ParamInfo {
        name: "cut_of",
        unit: "cwnd|pipe|flight_size",
        default: "cwnd",
        doc: "what Veno's 4/5 or 1/2 multiplies: cwnd (paper, Linux) or the pipe (ns-3's BytesInFlight)",
        range: Range::Any,
    },
    ParamInfo {
        name: "growth",
        unit: "veno|reno",
        default: "veno",
        doc: "congestion avoidance: half Reno's rate with N >= beta (paper, Linux) or Reno's (ns-3, which zeroes its sample counter on every ACK)",
        range: Range::Any,
    },
    ParamInfo {
        name: "timeout_cut",
        unit: "reno|veno",
        default: "reno",
        doc: "ssthresh on a timeout: Reno's halving of timeout_halve (paper's Reno) or Veno's 4/5 or 1/2 of cut_of (Linux, ns-3)",
        range: Range::Any,
    },
];

pub const VENO_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "veno",
    summary: "Reno refined by the Vegas backlog N: a loss with N < beta is judged random and cuts ssthresh to 4/5 of cwnd, else 1/2; with N >= beta cwnd grows at half Reno's rate.",
    reference: "Fu & Liew, IEEE JSAC 21(2), 2003; Linux tcp_veno.c",
    params: PARAMS,
    timeout_collapses_window: true,
    constraints: &[],
};

/// Which RTT enters the backlog N.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VenoRtt {
    /// The RTT sample carried by this ACK (Linux).
    #[default]
    Sample,
    /// The sender's smoothed RTT (RFC 6298 SRTT).
    Smoothed,
}

/// Fast-recovery mechanics for Veno.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub enum VenoRecovery {
    /// RFC 5681 §3.2: recovery ends on the first new ACK (the paper's Reno).
    #[default]
    #[serde(rename = "reno")]
    Reno,
    /// RFC 6582: partial ACKs keep recovery going.
    #[serde(rename = "newreno")]
    NewReno,
}

/// How the backlog N is computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VenoBacklog {
    /// N = cwnd * (RTT - BaseRTT) / RTT as a real number of segments.
    #[default]
    Real,
    /// ns-3.44 tcp-veno.cc IncreaseWindow: segCwnd = cwnd in whole segments, targetCwnd =
    /// (uint32) (segCwnd * BaseRTT / RTT), N = segCwnd - targetCwnd.
    WholeSegments,
}

/// Congestion-avoidance growth.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VenoGrowth {
    /// Reno's rate with N < beta, half of it with N >= beta (paper, Linux).
    #[default]
    Veno,
    /// Always Reno's: ns-3.44's TcpVeno zeroes m_cntRtt on every IncreaseWindow call and
    /// grows as TcpNewReno while m_cntRtt <= 2 (tcp-veno.cc:165-218), which holds on every
    /// ordinary ACK (not after duplicate ACKs or at a recovery exit).
    Reno,
}

/// ssthresh on a retransmission timeout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VenoTimeout {
    /// Reno's halving of `timeout_halve` (the paper's Reno).
    #[default]
    Reno,
    /// Veno's 4/5 or 1/2 of `cut_of` (ns-3.44 ReTxTimeout calls GetSsThresh with the
    /// bytes in flight before the timeout; Linux calls tcp_veno_ssthresh).
    Veno,
}

/// Parameters of Veno.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VenoParams {
    /// Backlog threshold in segments: N < beta is the non-congestive state. Paper and
    /// Linux (`3 << V_PARAM_SHIFT`): 3.
    pub beta: f64,
    /// RTT in N: `sample` (this ACK's, as Linux) or `smoothed` (SRTT).
    pub rtt: VenoRtt,
    /// What Reno's timeout response halves: `cwnd` (paper's Reno, ns-2, Linux),
    /// `flight_size` (RFC 5681 eq. 4) or `pipe` (ns-3).
    pub timeout_halve: HalveOf,
    /// Fast recovery: `reno` (paper) or `newreno` (RFC 6582).
    pub recovery: VenoRecovery,
    /// N as a real number or ns-3's whole segments.
    pub backlog: VenoBacklog,
    /// What the 4/5 or 1/2 cut multiplies: `cwnd` (paper, Linux) or `pipe` (ns-3).
    pub cut_of: HalveOf,
    /// Congestion-avoidance growth: `veno` or always `reno` (ns-3).
    pub growth: VenoGrowth,
    /// ssthresh on a timeout: `reno` or `veno`.
    pub timeout_cut: VenoTimeout,
}

impl Default for VenoParams {
    fn default() -> Self {
        VenoParams {
            beta: 3.0,
            rtt: VenoRtt::Sample,
            timeout_halve: HalveOf::Cwnd,
            recovery: VenoRecovery::Reno,
            backlog: VenoBacklog::Real,
            cut_of: HalveOf::Cwnd,
            growth: VenoGrowth::Veno,
            timeout_cut: VenoTimeout::Reno,
        }
    }
}

/// The mutable state of one Veno sender.
#[derive(Clone, Debug)]
struct VenoState {
    /// BaseRTT: the minimum RTT ever seen, ns.
    base_rtt: MinTracker,
    /// RTT that entered the last N, ns.
    rtt: Option<Time>,
    /// Backlog N in segments, as last computed.
    backlog: f64,
    /// In the congestive state, the next new ACK grows cwnd (toggled per ACK).
    grow_next: bool,
}

/// The Veno state machine.
#[derive(Clone, Debug)]
pub struct Veno {
    params: VenoParams,
    reno: RenoParams,
    state: VenoState,
}

impl Veno {
    pub fn new(params: VenoParams) -> Self {
        Veno {
            params,
            reno: RenoParams { halve: params.timeout_halve, ..RenoParams::default() },
            state: VenoState { base_rtt: MinTracker::default(), rtt: None, backlog: 0.0, grow_next: true },
        }
    }

    /// N >= beta: the congestive state.
    fn congestive(&self) -> bool {
        self.state.backlog >= self.params.beta
    }

    /// Backlog N in segments for a window `cwnd` (bytes) and RTTs in ns.
    fn backlog(&self, cwnd: f64, mss: f64, rtt: Time, base: Time) -> f64 {
        match self.params.backlog {
            VenoBacklog::Real => (cwnd / mss) * (rtt.saturating_sub(base) as f64 / rtt as f64),
            VenoBacklog::WholeSegments => {
                let seg = (cwnd / mss).floor();
                seg - (seg * (base as f64 / rtt as f64)).floor()
            }
        }
    }

    /// Veno's decrease: 4/5 (random loss) or 1/2 (congestive) of `cut_of`, at least 2 SMSS.
    fn veno_ssthresh(&self, w: &Window, cx: &Ctx) -> f64 {
        let base = match self.params.cut_of {
            HalveOf::Cwnd => w.cwnd,
            HalveOf::Pipe => cx.pipe as f64,
            HalveOf::FlightSize => cx.flight_size as f64,
        };
        let mss = cx.mss_f();
        if self.congestive() {
            halved_ssthresh(base, mss)
        } else {
            (base * 4.0 / 5.0).max(2.0 * mss)
        }
    }
}

pub fn build(p: &VenoParams) -> Box<dyn CongestionControl> {
    Box::new(Veno::new(*p))
}

impl CongestionControl for Veno {
    fn name(&self) -> &'static str {
        VENO_INFO.name
    }

    fn recovery_style(&self) -> RecoveryStyle {
        match self.params.recovery {
            VenoRecovery::Reno => RecoveryStyle::Reno,
            VenoRecovery::NewReno => RecoveryStyle::NewReno,
        }
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        let mss = cx.mss_f();
        if let Some(r) = ack.rtt {
            let r = r.max(1);
            // The RTT this ACK reports: its sample, or SRTT (ns-3 passes m_srtt to PktsAcked,
            // and its BaseRTT is the minimum of those, tcp-veno.cc:92-96).
            let rtt = match self.params.rtt {
                VenoRtt::Sample => r,
                VenoRtt::Smoothed => cx.rtt.srtt().unwrap_or(r).max(1),
            };
            // BaseRTT = min over all RTTs taken.
            let base = self.state.base_rtt.update(rtt);
            if !ack.in_recovery {
                // Expected = cwnd/BaseRTT, Actual = cwnd/RTT;
                // N = Actual * (RTT - BaseRTT) = cwnd * (RTT - BaseRTT) / RTT segments.
                self.state.backlog = self.backlog(w.cwnd, mss, rtt, base);
                self.state.rtt = Some(rtt);
            }
        }
        if ack.dup || ack.in_recovery || ack.acked_bytes == 0 {
            return;
        }
        if w.cwnd < w.ssthresh || !self.congestive() || self.params.growth == VenoGrowth::Reno {
            // Slow start, and avoidance in the non-congestive state: Reno.
            Reno::grow(&self.reno, ack, w, mss);
        } else {
            // Congestive state (N >= beta): cwnd += 1/cwnd every other new ACK.
            if self.state.grow_next {
                Reno::grow(&self.reno, ack, w, mss);
            }
            self.state.grow_next = !self.state.grow_next;
        }
    }

    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
        let congestive = self.congestive();
        match loss {
            Loss::FastRetransmit => {
                // Congestive loss: ssthresh = cwnd/2, random loss (N < beta): cwnd * 4/5
                // (floor 2 SMSS, Linux).
                w.ssthresh = self.veno_ssthresh(w, cx);
                w.cwnd = w.ssthresh;
            }
            Loss::Timeout { consecutive } => match self.params.timeout_cut {
                VenoTimeout::Reno => Reno::respond(&self.reno, loss, w, cx),
                VenoTimeout::Veno => {
                    // Cut once per episode (RFC 5681 §3.1; ns-3 skips it while the head was
                    // already retransmitted in CA_LOSS); cwnd = 1 SMSS.
                    if consecutive <= 1 {
                        w.ssthresh = self.veno_ssthresh(w, cx);
                    }
                    w.cwnd = cx.mss_f();
                }
            },
        }
        if congestive {
            Verdict::Congestion
        } else {
            Verdict::Wireless
        }
    }

    fn on_recovery_exit_growth(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        // One NewReno step. (ns-3's TcpVeno, just re-enabled with m_minRtt reset, finds the
        // backlog at cwnd and takes its half-rate branch here, growing on every other
        // recovery exit: one step of MSS^2/cwnd per two recoveries, not reproduced.)
        Reno::grow(&self.reno, ack, w, cx.mss_f());
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        let s = &self.state;
        let secs = |t: Option<Time>| t.map_or(f64::NAN, |v| v as f64 / NS_PER_SEC);
        out.push(("base_rtt_s", secs(s.base_rtt.value())));
        out.push(("rtt_s", secs(s.rtt)));
        out.push(("backlog_segments", s.backlog));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Harness, MSS};

    const MS: u64 = 1_000_000;
    const SEG: f64 = MSS as f64;

    fn backlog_of(h: &Harness) -> f64 {
        let mut v = Vec::new();
        h.cc.trace_vars(&mut v);
        v.iter().find(|(n, _)| *n == "backlog_segments").map_or(f64::NAN, |(_, x)| *x)
    }

    /// A Veno sender in congestion avoidance (cwnd 20 segments) that has seen a 100 ms
    /// BaseRTT, then one ACK with RTT `rtt`. Returns the harness and cwnd (segments) just
    /// before that ACK.
    fn after_rtt(params: VenoParams, rtt: Time) -> (Harness, f64) {
        let mut h = Harness::new(build(&params));
        h.w = Window::new(20.0 * SEG, 10.0 * SEG);
        h.ack(1, 100 * MS);
        let cwnd = h.cwnd_segments();
        h.ack(1, rtt);
        (h, cwnd)
    }

    #[test]
    fn backlog_is_cwnd_times_queueing_delay_over_rtt() {
        let (h, cwnd) = after_rtt(VenoParams::default(), 150 * MS);
        // N = cwnd * (RTT - BaseRTT) / RTT.
        let expected = cwnd * (150.0 - 100.0) / 150.0;
        assert!((backlog_of(&h) - expected).abs() < 1e-9, "{} vs {expected}", backlog_of(&h));
    }

    #[test]
    fn small_backlog_means_random_loss_and_a_four_fifths_cut() {
        let (mut h, cwnd) = after_rtt(VenoParams::default(), 110 * MS);
        let n = cwnd * (110.0 - 100.0) / 110.0;
        assert!(n < 3.0, "{n}");
        let at_loss = h.w.cwnd;
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Wireless);
        assert!((h.w.ssthresh - at_loss * 4.0 / 5.0).abs() < 1e-9);
        assert_eq!(h.w.cwnd, h.w.ssthresh);
    }

    #[test]
    fn large_backlog_means_congestion_and_a_halving() {
        let (mut h, cwnd) = after_rtt(VenoParams::default(), 200 * MS);
        let n = cwnd * (200.0 - 100.0) / 200.0;
        assert!(n >= 3.0, "{n}");
        let at_loss = h.w.cwnd;
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Congestion);
        assert!((h.w.ssthresh - at_loss / 2.0).abs() < 1e-9);
        assert_eq!(h.w.cwnd, h.w.ssthresh);
    }

    #[test]
    fn backlog_of_exactly_beta_is_congestive() {
        // Measure N at RTT 120 ms, then run the same inputs with beta set to that N.
        let (h, cwnd) = after_rtt(VenoParams::default(), 120 * MS);
        let n = backlog_of(&h);
        assert!((n - cwnd * 20.0 / 120.0).abs() < 1e-9);
        let (mut h2, _) = after_rtt(VenoParams { beta: n, ..VenoParams::default() }, 120 * MS);
        assert_eq!(backlog_of(&h2), n);
        assert_eq!(h2.loss(Loss::FastRetransmit), Verdict::Congestion);
    }

    #[test]
    fn timeout_uses_renos_response_with_the_backlog_verdict() {
        let (mut h, _) = after_rtt(VenoParams::default(), 110 * MS);
        let at_loss = h.w.cwnd;
        assert_eq!(h.loss(Loss::Timeout { consecutive: 1 }), Verdict::Wireless);
        assert_eq!(h.w.cwnd, SEG);
        assert!((h.w.ssthresh - at_loss / 2.0).abs() < 1e-9);
        let first = h.w.ssthresh;
        h.loss(Loss::Timeout { consecutive: 2 });
        assert_eq!(h.w.ssthresh, first);

        let (mut h, _) = after_rtt(VenoParams::default(), 200 * MS);
        assert_eq!(h.loss(Loss::Timeout { consecutive: 1 }), Verdict::Congestion);
        assert_eq!(h.w.cwnd, SEG);
    }

    #[test]
    fn congestive_state_grows_on_every_other_ack() {
        // Non-congestive: every ACK adds MSS^2/cwnd (RFC 5681 eq. 3).
        let (mut h, _) = after_rtt(VenoParams::default(), 100 * MS);
        let mut expected = h.w.cwnd;
        for _ in 0..6 {
            h.ack(1, 100 * MS);
            expected += SEG * SEG / expected;
            assert!((h.w.cwnd - expected).abs() < 1e-9);
        }
        // Congestive (N = 20 * 100/200 = 10): only every other ACK grows.
        let (mut h, _) = after_rtt(VenoParams::default(), 200 * MS);
        assert!(backlog_of(&h) >= 3.0);
        // The ACK that measured N grew cwnd (first congestive ACK), the next one not.
        let mut expected = h.w.cwnd;
        for i in 0..6 {
            h.ack(1, 200 * MS);
            if i % 2 == 1 {
                expected += SEG * SEG / expected;
            }
            assert!((h.w.cwnd - expected).abs() < 1e-9, "ack {i}");
        }
    }

    #[test]
    fn slow_start_is_renos_even_with_a_backlog() {
        let mut h = Harness::new(build(&VenoParams::default()));
        h.ack(1, 100 * MS);
        h.ack(1, 300 * MS);
        assert!(backlog_of(&h) >= 3.0);
        assert_eq!(h.cwnd_segments(), 12.0);
        h.ack(1, 300 * MS);
        assert_eq!(h.cwnd_segments(), 13.0);
    }

    #[test]
    fn the_loss_is_judged_on_the_backlog_before_recovery() {
        let (mut h, _) = after_rtt(VenoParams::default(), 200 * MS);
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Congestion);
        // A partial ACK in recovery with a short RTT does not change N.
        h.in_recovery = true;
        let before = backlog_of(&h);
        h.ack(1, 100 * MS);
        assert_eq!(backlog_of(&h), before);
        h.exit_recovery();
        // Duplicate ACKs carry no sample either.
        h.dup_ack();
        assert_eq!(backlog_of(&h), before);
    }

    #[test]
    fn smoothed_rtt_enters_the_backlog_when_chosen() {
        let p = VenoParams { rtt: VenoRtt::Smoothed, ..VenoParams::default() };
        let (h, cwnd) = after_rtt(p, 200 * MS);
        // RFC 6298: SRTT = 100 then 7/8 * 100 + 1/8 * 200 = 112.5 ms.
        let srtt = 100.0 * 7.0 / 8.0 + 200.0 / 8.0;
        let expected = cwnd * (srtt - 100.0) / srtt;
        assert!((backlog_of(&h) - expected).abs() < 1e-9);
        assert!(expected < 3.0);
    }

    #[test]
    fn recovery_style_follows_the_parameter() {
        assert_eq!(build(&VenoParams::default()).recovery_style(), RecoveryStyle::Reno);
        let p = VenoParams { recovery: VenoRecovery::NewReno, ..VenoParams::default() };
        assert_eq!(build(&p).recovery_style(), RecoveryStyle::NewReno);
    }
}
