//! CUBIC: L. Xu, S. Ha, I. Rhee, V. Goel, L. Eggert, "CUBIC for Fast and Long-Distance
//! Networks", RFC 9438, August 2023 (obsoletes RFC 8312).
//!
//! In congestion avoidance the window follows the cubic W_cubic(t) = C*(t-K)^3 + W_max of the
//! time since the last reduction (concave below W_max, convex above), never below the
//! Reno-friendly estimate W_est; a loss multiplies the window by beta_cubic = 0.7.
//!
//! Deviations and ambiguities resolved:
//! - Slow start (RFC 9438 §4.10): the initial slow start runs HyStart++ (RFC 9406,
//!   `hystart = true`, default): per ACK cwnd += min(N, L*SMSS) with L = 8 (unpaced; no
//!   limit when paced, §4.2); per round (a round ends when SND.NXT at its start is
//!   acknowledged) the minimum of the RTT samples, and after N_RTT_SAMPLE = 8 samples a
//!   rise of the round's minimum RTT by RttThresh = clamp(lastRoundMinRTT/8, 4 ms, 16 ms)
//!   enters Conservative Slow Start (growth divided by CSS_GROWTH_DIVISOR = 4); a round
//!   minimum below the CSS baseline resumes slow start; after CSS_ROUNDS = 5 rounds
//!   ssthresh = cwnd. Only while ssthresh is still unset (§4.3 SHOULD: the initial slow
//!   start); later slow starts, and all of them with `hystart = false`, are RFC 5681 slow
//!   start (`reno::slow_start`, one SMSS per ACK). Linux and ns-3 ship the older HyStart
//!   (Ha and Rhee 2011: ACK-train and delay detection); `hystart_variant = "linux"` (the
//!   `linux` profile) runs Linux's in its place: in slow start from 16 segments until it
//!   fires, again after a timeout (`cubic/hystart_linux.rs`); slow start itself is then
//!   RFC 5681's, or Linux's with `arithmetic = "linux"`. Under `arithmetic = "ns3"` no
//!   epoch is kept for its one-second discard of samples.
//! - `slow_start = "segments_acked"` (the `ns3` profile): slow start as ns-3.44's TcpCubic
//!   runs it (tcp-cubic.cc:194-214, approximating Linux's QUICKACK): cwnd grows by every
//!   whole segment the ACK newly delivers (RFC 6937 DeliveredData: with SACK, bytes SACKed
//!   before are not counted again; tcp-socket-base.cc ProcessAck's segsAcked from the rate
//!   sampler), the remainder kept for the next ACK, and not capped at ssthresh; nothing of
//!   that ACK goes to congestion avoidance. Without SACK, after a timeout an ACK that jumps
//!   over data the receiver held opens the window by the whole jump.
//! - Growth only while cwnd-limited: with `arithmetic = "ns3"` or `"linux"` every growth
//!   step waits while the sender's `Ctx::cwnd_limited` is false (tcp-cubic.cc:187-192
//!   `m_isCwndLimited`; tcp_cubic.c cubictcp_cong_avoid `tcp_is_cwnd_limited`), which
//!   matters when the receive window, send buffer or application limits the flow; RFC
//!   9438's real-valued arithmetic grows on every ACK (`tcp.cwnd_limited` decides how the
//!   sender judges it).
//! - The RFC works in segments: W_max, W_est, K and the cubic are kept in segments and
//!   seconds, cwnd is converted at the boundary (`cwnd_bytes / MSS`).
//! - §4.2 growth: cwnd += (target - cwnd)/cwnd once per new ACK (RFC 9438 §4.4 "for each
//!   received ACK"), with target = W_cubic(t + SRTT) clamped to [cwnd, 1.5*cwnd]; W_est
//!   (§4.3) grows by alpha*segments_acked/cwnd, so with delayed ACKs the cubic region grows
//!   per ACK and the Reno-friendly estimate per acknowledged segment, as written in the
//!   RFC. Parameter `growth_unit = "segment"` (the `ns3` and `linux` profiles) applies the
//!   increment once per acknowledged segment instead, as Linux (tcp_cubic.c
//!   cubictcp_cong_avoid: tcp_cong_avoid_ai(tp, ca->cnt, acked)) and ns-3.44
//!   (tcp-cubic.cc:218-230: m_cWndCnt += segmentsAcked against cnt) count: with an ACK
//!   every two segments, twice the RFC's per-RTT growth in the concave and convex regions.
//!   Not reproduced: the integer counters of both (ns-3 never resets m_cWndCnt, so ACKs
//!   banked while cnt is large are spent after a later reduction).
//! - Reno-friendly region (§4.3): cwnd = max(cwnd, W_est), so that an ACK never shrinks the
//!   window when the cubic had carried cwnd above W_est. Parameter `reno_friendly`.
//! - alpha_cubic switches to 1 once W_est >= cwnd_prior (§4.3 SHOULD; parameter
//!   `alpha_switch`). Before the first congestion event cwnd_prior is 0, so alpha is 1: with
//!   no reduction yet, the Reno reference grows one segment per RTT.
//! - A congestion avoidance stage entered with no congestion event behind it (slow start
//!   ended by a configured ssthresh) or with cwnd_epoch >= W_max starts with K = 0 and
//!   W_max = cwnd_epoch, as Linux does (the RFC's K would be the cube root of a negative
//!   number). After a timeout the first stage also uses K = 0 and W_max =
//!   cwnd_epoch (§4.8).
//! - The multiplicative decrease (§4.6) multiplies FlightSize by beta_cubic; parameter
//!   `reduce` selects cwnd (Linux, quinn, ns-3's TcpCubic::GetSsThresh) or the RFC 6675 pipe
//!   instead. ssthresh >= 2
//!   segments; cwnd >= 2 segments after a loss, >= 1 after an ECN echo (once per window).
//! - A timeout (§4.8) cuts ssthresh as §4.6 only on the first expiry, records cwnd_prior,
//!   and sets cwnd to 1 segment (RFC 5681); W_max is left to the next stage's start.
//! - `arithmetic = "ns3"` (the `ns3` profile) replaces congestion avoidance and the
//!   reduction by ns-3.44 TcpCubic's integer arithmetic (`cubic/ns3.rs`: whole segments,
//!   a growth counter never reset, W_max kept over a timeout); `alpha_switch`,
//!   `growth_unit` and `reduce` then have no effect (ns-3 fixes all three).
//! - `arithmetic = "linux"` (the `linux` profile) replaces slow start outside HyStart++,
//!   congestion avoidance, the reduction and the timeout by Linux tcp_cubic.c's integer
//!   arithmetic in jiffies (`cubic/linux.rs`, `hz` jiffies per second): tcp_slow_start and
//!   tcp_cong_avoid_ai's counter, cnt recomputed at most once per jiffy, W_max and the
//!   minimum RTT cleared by a timeout; `alpha_switch`, `growth_unit`, `slow_start` and
//!   `reduce` then have no effect (Linux fixes all four).
//! - Not implemented, for want of hooks: the spurious-event undo of §4.9 (all state is in
//!   one `Clone` struct, so it is a snapshot and a restore once the trait has an undo hook),
//!   and the app-limited epoch reset of §5.8 (the context does not say app-limited).

use serde::Deserialize;

use crate::api::{AckSample, CongestionControl, Ctx, Loss, Signal, Time, Verdict, Window, NS_PER_SEC};
use crate::registry::{AlgorithmInfo, ParamInfo, Range, MAX_GAIN};
use crate::reno::{slow_start, HalveOf, OncePerWindow, Reno, RenoParams};

mod hystart_linux;
mod linux;
mod ns3;

pub const PARAMS: &[ParamInfo] = &[
    ParamInfo { name: "c", unit: "segments/s^3", default: "0.4", doc: "cubic scaling constant C (RFC 9438 §4.1.1: 0.4; Linux 41*10/1024)", range: Range::above(0.0, MAX_GAIN) },
    ParamInfo {
        name: "beta",
        unit: "ratio",
        default: "0.7",
        doc: "multiplicative decrease factor beta_cubic (RFC 9438: 0.7; Linux 717/1024; ns-2.35's Linux 2.6.22 copy 819/1024)",
        range: Range::open(0.0, 1.0),
    },
    ParamInfo { name: "fast_convergence", unit: "bool", default: "true", doc: "RFC 9438 §4.7 fast convergence (Linux: on)", range: Range::Any },
    ParamInfo { name: "reno_friendly", unit: "bool", default: "true", doc: "RFC 9438 §4.3 Reno-friendly region (Linux tcp_friendliness: on)", range: Range::Any },
    ParamInfo { name: "alpha_switch", unit: "bool", default: "true", doc: "alpha_cubic becomes 1 once W_est >= cwnd_prior (RFC 9438 §4.3 SHOULD)", range: Range::Any },
    ParamInfo { name: "hystart", unit: "bool", default: "true", doc: "HyStart++ (RFC 9406) in the initial slow start; false: RFC 5681 slow start", range: Range::Any },
    ParamInfo {
        name: "hystart_variant",
        unit: "rfc9406|linux",
        default: "rfc9406",
        doc: "with hystart: HyStart++ (RFC 9406) in the initial slow start, or the HyStart of Linux's tcp_cubic.c (ACK train and delay increase from 16 segments, ssthresh = cwnd when it fires; re-armed by a timeout)",
        range: Range::Any,
    },
    ParamInfo {
        name: "slow_start",
        unit: "rfc5681|segments_acked",
        default: "rfc5681",
        doc: "slow start outside HyStart++: one SMSS per ACK at most, up to ssthresh (RFC 5681 eq. 2), or every whole segment acknowledged, uncapped (ns-3.44's TcpCubic)",
        range: Range::Any,
    },
    ParamInfo {
        name: "growth_unit",
        unit: "ack|segment",
        default: "ack",
        doc: "the cubic-region increment (target - cwnd)/cwnd is applied per received ACK (RFC 9438 §4.4-4.5) or per acknowledged segment (Linux tcp_cong_avoid_ai, ns-3.44 TcpCubic)",
        range: Range::Any,
    },
    ParamInfo {
        name: "arithmetic",
        unit: "real|ns3|linux",
        default: "real",
        doc: "congestion avoidance and the reduction in RFC 9438's real-valued segments, in ns-3.44 TcpCubic's integer segments and counters, or in Linux tcp_cubic.c's integer segments, counters and jiffies (then alpha_switch, growth_unit and reduce have no effect; linux also slow_start)",
        range: Range::Any,
    },
    ParamInfo {
        name: "hz",
        unit: "1/s",
        default: "250",
        doc: "jiffies per second of `arithmetic = \"linux\"` (the kernel's CONFIG_HZ: 100, 250, 300 or 1000; 250 on the kernel the linux engine was validated on)",
        range: Range::closed(1.0, 10_000.0),
    },
    ParamInfo {
        name: "reduce",
        unit: "flight_size|cwnd|pipe",
        default: "flight_size",
        doc: "quantity multiplied by beta on a congestion event: FlightSize (RFC 9438 §4.6), cwnd (Linux, quinn, ns-3) or the RFC 6675 pipe",
        range: Range::Any,
    },
];

pub const CUBIC_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "cubic",
    summary: "Window grows as a cubic function of the time since the last reduction, with a Reno-friendly floor; multiplicative decrease by 0.7.",
    reference: "RFC 9438 (Xu, Ha, Rhee, Goel, Eggert, 2023)",
    params: PARAMS,
    timeout_collapses_window: true,
    constraints: &[],
};

/// Parameters of CUBIC.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CubicParams {
    /// C in segments/s^3 (RFC 9438 §4.1.1: 0.4; Linux bic_scale 41 gives about 0.40).
    pub c: f64,
    /// beta_cubic, the window kept after a congestion event, in (0, 1) (RFC 9438: 0.7;
    /// Linux 717/1024; the Linux 2.6.22 copy in ns-2.35: 819/1024).
    pub beta: f64,
    /// Fast convergence, RFC 9438 §4.7 (RFC: SHOULD; Linux: on).
    pub fast_convergence: bool,
    /// The Reno-friendly region, RFC 9438 §4.3 (Linux `tcp_friendliness`: on).
    pub reno_friendly: bool,
    /// alpha_cubic becomes 1 once W_est reaches cwnd_prior (RFC 9438 §4.3 SHOULD; Linux and
    /// RFC 8312 keep alpha_cubic).
    pub alpha_switch: bool,
    /// What beta multiplies on a congestion event: `flight_size` (RFC 9438 §4.6), `cwnd`
    /// (Linux, quinn, ns-3) or `pipe` (the RFC 6675 pipe).
    pub reduce: HalveOf,
    /// HyStart++ (RFC 9406) in the initial slow start (default true).
    pub hystart: bool,
    /// Which HyStart `hystart` runs.
    pub hystart_variant: HyStartVariant,
    /// Slow start outside HyStart++.
    pub slow_start: SlowStart,
    /// What the §4.4-4.5 increment (target - cwnd)/cwnd is applied per.
    pub growth_unit: GrowthUnit,
    /// RFC 9438's real-valued window, ns-3.44's integer TcpCubic or Linux's tcp_cubic.c.
    pub arithmetic: Arithmetic,
    /// Jiffies per second of `Arithmetic::Linux` (CONFIG_HZ).
    pub hz: u32,
}

/// The arithmetic of congestion avoidance and the reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arithmetic {
    /// RFC 9438: windows in real segments.
    Real,
    /// ns-3.44 tcp-cubic.cc: whole segments and integer counters (`cubic/ns3.rs`).
    Ns3,
    /// Linux tcp_cubic.c: whole segments, integer counters, jiffies (`cubic/linux.rs`).
    Linux,
}

/// What the cubic-region increment is counted per.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrowthUnit {
    /// RFC 9438 §4.4-4.5: once per received ACK.
    Ack,
    /// Once per acknowledged segment (Linux tcp_cong_avoid_ai's `acked`, ns-3.44's segmentsAcked).
    Segment,
}

/// Which HyStart runs when `hystart` is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HyStartVariant {
    /// RFC 9406 HyStart++, in the initial slow start.
    Rfc9406,
    /// Linux tcp_cubic.c HyStart (`cubic/hystart_linux.rs`).
    Linux,
}

/// How slow start grows the window (outside HyStart++).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SlowStart {
    /// RFC 5681 eq. 2: cwnd += min(N, SMSS) per ACK, not beyond ssthresh by more than that.
    Rfc5681,
    /// ns-3.44 tcp-cubic.cc:209: cwnd += segmentsAcked * SMSS, whole segments (the
    /// remainder carried, as TcpSocketBase::ProcessAck does), no cap.
    SegmentsAcked,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            alpha_switch: true,
            reduce: HalveOf::FlightSize,
            hystart: true,
            hystart_variant: HyStartVariant::Rfc9406,
            slow_start: SlowStart::Rfc5681,
            growth_unit: GrowthUnit::Ack,
            arithmetic: Arithmetic::Real,
            hz: 250,
        }
    }
}

/// RFC 9406 §4.3 constants.
const MIN_RTT_THRESH: Time = 4_000_000;
const MAX_RTT_THRESH: Time = 16_000_000;
const MIN_RTT_DIVISOR: Time = 8;
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: f64 = 4.0;
const CSS_ROUNDS: u32 = 5;
/// L, in segments, when not paced.
const HYSTART_L: f64 = 8.0;

/// HyStart++ state (RFC 9406 §4.2).
#[derive(Clone, Copy, Debug, Default)]
struct HyStart {
    /// SND.NXT at the start of the current round.
    window_end: Option<u64>,
    last_round_min_rtt: Option<Time>,
    current_round_min_rtt: Option<Time>,
    rtt_sample_count: u32,
    /// In Conservative Slow Start, with this baseline.
    css_baseline_min_rtt: Option<Time>,
    /// Rounds completed in CSS.
    css_rounds: u32,
}

pub fn build(p: &CubicParams) -> Box<dyn CongestionControl> {
    Box::new(Cubic::new(*p))
}

/// Which part of the window function drove the last update (for traces).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Region {
    SlowStart,
    RenoFriendly,
    Concave,
    Convex,
}

/// All mutable CUBIC state (RFC 9438 §4.1.2 variables), in segments and seconds.
#[derive(Clone, Debug)]
struct State {
    /// W_max: window just before the last reduction (segments; 0 before any event).
    w_max: f64,
    /// K: time the cubic takes to climb from cwnd_epoch back to W_max (s).
    k: f64,
    /// Start of the current congestion avoidance stage (None: starts at the next CA ACK).
    epoch_start: Option<Time>,
    /// cwnd at the start of the current stage (segments).
    cwnd_epoch: f64,
    /// W_est: Reno-friendly window estimate (segments).
    w_est: f64,
    /// cwnd at the last time ssthresh was set (segments).
    cwnd_prior: f64,
    /// The next stage follows a timeout (§4.8: K = 0, W_max = cwnd_epoch).
    after_timeout: bool,
    /// At most one ECN response per window (RFC 3168 §6.1.2).
    ecn: OncePerWindow,
    /// W_cubic(t) at the last CA ACK (segments), for traces.
    w_cubic: f64,
    region: Region,
    hystart: HyStart,
    /// `HyStartVariant::Linux`.
    linux_hystart: hystart_linux::LinuxHyStart,
    /// `SlowStart::SegmentsAcked`, `Arithmetic::Ns3` and `Arithmetic::Linux`: acknowledged
    /// bytes short of a whole segment.
    ss_pending: u64,
    /// `Arithmetic::Ns3`: ns-3's integer state.
    ns3: ns3::Ns3Cubic,
    /// `Arithmetic::Linux`: Linux's integer state.
    linux: linux::LinuxCubic,
}

/// The CUBIC state machine.
#[derive(Clone, Debug)]
pub struct Cubic {
    params: CubicParams,
    /// `Arithmetic::Linux`: Linux's constants, from the parameters.
    linux: linux::Consts,
    state: State,
}

impl Cubic {
    pub fn new(params: CubicParams) -> Self {
        Cubic {
            params,
            linux: linux::Consts::new(params.hz, params.c, params.beta, params.reno_friendly, params.fast_convergence),
            state: State {
                w_max: 0.0,
                k: 0.0,
                epoch_start: None,
                cwnd_epoch: 0.0,
                w_est: 0.0,
                cwnd_prior: 0.0,
                after_timeout: false,
                ecn: OncePerWindow::default(),
                w_cubic: f64::NAN,
                region: Region::SlowStart,
                hystart: HyStart::default(),
                linux_hystart: hystart_linux::LinuxHyStart::default(),
                ss_pending: 0,
                ns3: ns3::Ns3Cubic::default(),
                linux: linux::LinuxCubic::default(),
            },
        }
    }

    /// RFC 9438 §4.2 eq. 1: W_cubic(t) = C*(t - K)^3 + W_max (segments, t in s).
    fn w_cubic(&self, t: f64) -> f64 {
        self.params.c * (t - self.state.k).powi(3) + self.state.w_max
    }

    /// alpha_cubic = 3*(1 - beta)/(1 + beta) (§4.3 eq. 4).
    fn alpha_cubic(&self) -> f64 {
        3.0 * (1.0 - self.params.beta) / (1.0 + self.params.beta)
    }

    /// The quantity beta multiplies, in bytes.
    fn reduce_base(&self, w: &Window, cx: &Ctx) -> f64 {
        let rp = RenoParams { halve: self.params.reduce, ..RenoParams::default() };
        Reno::halve_base(&rp, w, cx)
    }

    /// Start a congestion avoidance stage at `now` with cwnd = `cwnd` segments.
    fn start_epoch(&mut self, now: Time, cwnd: f64) {
        let c = self.params.c;
        let s = &mut self.state;
        s.epoch_start = Some(now);
        s.cwnd_epoch = cwnd;
        // §4.3: W_est = cwnd_epoch at the start of the stage.
        s.w_est = cwnd;
        if s.after_timeout || s.w_max <= cwnd {
            // §4.8 (after a timeout), and no plateau above us: K = 0, W_max = cwnd_epoch.
            s.w_max = cwnd;
            s.k = 0.0;
        } else {
            // §4.2 eq. 2: K = cbrt((W_max - cwnd_epoch)/C).
            s.k = ((s.w_max - cwnd) / c).cbrt();
        }
        s.after_timeout = false;
    }

    /// RFC 9406 §4.2: one ACK of the initial slow start, with HyStart++. `grow`: false
    /// while the flow is not cwnd-limited (`Ctx::cwnd_limited`, under the ns-3 or Linux
    /// arithmetic): the rounds and RTT samples still count, as Linux's HyStart runs in
    /// cubictcp_acked, outside the gate of cubictcp_cong_avoid.
    fn hystart_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &Ctx, grow: bool) {
        let mss = cx.mss_f();
        let hs = &mut self.state.hystart;
        // A round ends when the ACK covers SND.NXT at its start.
        if hs.window_end.is_none_or(|e| ack.ack >= e) {
            hs.last_round_min_rtt = hs.current_round_min_rtt;
            hs.current_round_min_rtt = None;
            hs.rtt_sample_count = 0;
            hs.window_end = Some(cx.snd_max);
            if hs.css_baseline_min_rtt.is_some() {
                hs.css_rounds += 1;
                if hs.css_rounds >= CSS_ROUNDS {
                    // CSS_ROUNDS rounds of CSS: enter congestion avoidance.
                    w.ssthresh = w.cwnd;
                    return;
                }
            }
        }
        // cwnd += min(N, L*SMSS) (divided by CSS_GROWTH_DIVISOR in CSS).
        let l = if w.pacing_rate.is_some() { f64::INFINITY } else { HYSTART_L * mss };
        let step = if grow { (ack.acked_bytes as f64).min(l) } else { 0.0 };
        w.cwnd += if hs.css_baseline_min_rtt.is_some() { step / CSS_GROWTH_DIVISOR } else { step };
        if let Some(rtt) = ack.rtt {
            hs.current_round_min_rtt = Some(hs.current_round_min_rtt.map_or(rtt, |m| m.min(rtt)));
            hs.rtt_sample_count += 1;
        }
        let (Some(cur), Some(last)) = (hs.current_round_min_rtt, hs.last_round_min_rtt) else { return };
        if hs.rtt_sample_count < N_RTT_SAMPLE {
            return;
        }
        match hs.css_baseline_min_rtt {
            None => {
                // RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT/MIN_RTT_DIVISOR, MAX_RTT_THRESH)).
                let thresh = (last / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                if cur >= last + thresh {
                    hs.css_baseline_min_rtt = Some(cur);
                    hs.css_rounds = 0;
                }
            }
            // A round minimum below the baseline: the exit was spurious, resume slow start.
            Some(base) if cur < base => hs.css_baseline_min_rtt = None,
            Some(_) => {}
        }
    }

    /// §4.6-4.7: W_max, cwnd_prior and ssthresh on a congestion event; cwnd floored at
    /// `cwnd_floor` segments.
    fn reduce(&mut self, w: &mut Window, cx: &Ctx, cwnd_floor: f64) {
        let mss = cx.mss_f();
        let cwnd = w.cwnd / mss;
        if self.params.arithmetic != Arithmetic::Real {
            // tcp-cubic.cc GetSsThresh (TcpSocketBase sets cwnd to ssthresh), or tcp_cubic.c
            // cubictcp_recalc_ssthresh (PRR, then cwnd = ssthresh at the end).
            let ssthresh = f64::from(match self.params.arithmetic {
                Arithmetic::Linux => self.state.linux.ssthresh(&self.linux, cwnd as u32),
                _ => self.state.ns3.ssthresh(cwnd as u32, self.params.beta, self.params.fast_convergence),
            });
            let s = &mut self.state;
            s.cwnd_prior = cwnd;
            s.epoch_start = None;
            s.ecn.reduced(cx);
            w.cwnd = ssthresh.max(cwnd_floor) * mss;
            w.ssthresh = ssthresh * mss;
            return;
        }
        let beta = self.params.beta;
        let ssthresh = self.reduce_base(w, cx) / mss * beta;
        let s = &mut self.state;
        // §4.7: W_max = cwnd*(1 + beta)/2 if cwnd < W_max (fast convergence), else cwnd.
        s.w_max = if self.params.fast_convergence && cwnd < s.w_max { cwnd * (1.0 + beta) / 2.0 } else { cwnd };
        s.cwnd_prior = cwnd;
        s.epoch_start = None;
        s.ecn.reduced(cx);
        // §4.6: ssthresh = flight_size*beta_cubic; cwnd = max(ssthresh, 2) (1 for ECN);
        // ssthresh = max(ssthresh, 2).
        w.cwnd = ssthresh.max(cwnd_floor) * mss;
        w.ssthresh = ssthresh.max(2.0) * mss;
    }
}

impl Cubic {
    /// A congestion event signalled by something other than a loss or an ECN echo (C2TCP's
    /// delay trigger): W_max, the epoch and ssthresh as §4.6-4.7 (Linux
    /// `icsk_ca_ops->ssthresh`, cubictcp_recalc_ssthresh); the caller sets cwnd.
    pub fn congestion_event(&mut self, w: &mut Window, cx: &Ctx) {
        self.reduce(w, cx, 1.0);
    }

    /// When the current congestion avoidance stage began (None: none running, or
    /// `arithmetic = "ns3"` or `"linux"`, which keep their own epoch).
    pub fn epoch_start(&self) -> Option<Time> {
        if self.params.arithmetic == Arithmetic::Real { self.state.epoch_start } else { None }
    }

    /// `bytes` acknowledged, in whole segments; the part short of a segment is carried to
    /// the next ACK (ns-3's m_bytesAckedNotProcessed, tcp-socket-base.cc:2046-2053).
    fn whole_segments(&mut self, bytes: u64, mss: u32) -> u64 {
        let total = bytes + self.state.ss_pending;
        self.state.ss_pending = total % u64::from(mss);
        total / u64::from(mss)
    }

    /// cubictcp_acked: an ACK's RTT sample, where the sender took one (ACKs of new data,
    /// in recovery too; Linux samples SACKing duplicates as well: linux.rs).
    fn linux_rtt(&mut self, ack: &AckSample, now: Time) {
        if let Some(rtt) = ack.rtt {
            self.state.linux.on_rtt(&self.linux, now, rtt);
        }
    }

    fn linux_hystart(&self) -> bool {
        self.params.hystart && self.params.hystart_variant == HyStartVariant::Linux
    }

    /// cubictcp_acked's HyStart part (Linux's HyStart): the ACK's RTT sample may end slow
    /// start (ssthresh = cwnd), before the ACK grows the window.
    fn linux_hystart_sample(&mut self, ack: &AckSample, w: &mut Window, cx: &Ctx) {
        let Some(rtt) = ack.rtt.filter(|_| self.linux_hystart()) else { return };
        let mss = cx.mss_f();
        // Within a second (one HZ) of a congestion-avoidance epoch's start.
        let fresh_epoch = match self.params.arithmetic {
            Arithmetic::Linux => self.state.linux.fresh_epoch(&self.linux, cx.now),
            _ => self.state.epoch_start.is_some_and(|e| cx.now.saturating_sub(e) < NS_PER_SEC as Time),
        };
        let sample = hystart_linux::Sample {
            now: cx.now,
            rtt,
            cwnd: w.cwnd / mss,
            ssthresh: w.ssthresh / mss,
            snd_una: cx.snd_una,
            snd_nxt: cx.snd_max,
            paced: w.pacing_rate.is_some(),
            srtt: cx.rtt.srtt(),
            mss,
            fresh_epoch,
        };
        if self.state.linux_hystart.on_rtt(&sample) {
            w.ssthresh = w.cwnd;
        }
    }

    /// tcp_cubic.c cubictcp_cong_avoid on an ACK that delivered `delivered` bytes (Linux's
    /// acked_sacked, whole segments, the remainder carried): tcp_slow_start below
    /// ssthresh, the rest to bictcp_update and tcp_cong_avoid_ai.
    fn linux_growth(&mut self, delivered: u64, w: &mut Window, cx: &Ctx) {
        let mut acked = self.whole_segments(delivered, cx.mss) as u32;
        let mut seg = (w.cwnd / cx.mss_f()) as u32;
        let ssthresh = if w.ssthresh.is_finite() { (w.ssthresh / cx.mss_f()) as u32 } else { u32::MAX };
        if seg < ssthresh {
            if acked == 0 {
                return;
            }
            (seg, acked) = linux::LinuxCubic::slow_start(seg, ssthresh, acked);
            self.state.region = Region::SlowStart;
            if acked == 0 {
                w.cwnd = f64::from(seg) * cx.mss_f();
                return;
            }
        }
        // In avoidance an ACK that delivers nothing new (SND.UNA over SACKed data) still runs
        // cubictcp_cong_avoid with acked = 0: bictcp_update, and banked credit.
        seg = seg.saturating_add(self.state.linux.congestion_avoidance(&self.linux, cx.now, seg, acked));
        self.state.region = if seg < self.state.linux.last_max() { Region::Concave } else { Region::Convex };
        w.cwnd = f64::from(seg) * cx.mss_f();
    }

    /// Congestion avoidance as ns-3.44's TcpCubic::IncreaseWindow: whole segments
    /// delivered (TcpSocketBase's segsAcked, the remainder carried), one segment of growth
    /// when the counter reaches Update's cnt.
    fn ns3_congestion_avoidance(&mut self, delivered: u64, w: &mut Window, cx: &Ctx) {
        let segments = self.whole_segments(delivered, cx.mss) as u32;
        if segments == 0 {
            return;
        }
        let seg_cwnd = (w.cwnd / cx.mss_f()) as u32;
        let p = self.params;
        if self.state.ns3.on_ca_ack(cx.now, segments, seg_cwnd, p.c, p.beta, p.reno_friendly) {
            w.cwnd += cx.mss_f();
        }
        self.state.region = if seg_cwnd < self.state.ns3.last_max() { Region::Concave } else { Region::Convex };
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn init(&mut self, _w: &mut Window, cx: &mut Ctx) {
        // cubictcp_init: bictcp_reset, then bictcp_hystart_reset.
        if self.linux_hystart() {
            self.state.linux_hystart.reset(cx.now, cx.snd_max);
        }
    }

    // ns-3.44's TcpCubic credits the span of the ACK that ends recovery to its integer
    // counters (m_cWndCnt, and m_ackCnt as a new epoch starts, tcp-cubic.cc IncreaseWindow
    // and Update): `arithmetic = "ns3"` does the same. RFC 9438's real-valued growth has no
    // counterpart: handing the span to `on_ack` instead was measured (validation simple2,
    // SACK, 5 % loss, seeds 1-3): +33.7 % against ns-3 where no growth gives +8.3 %.
    fn on_recovery_exit_growth(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        if self.params.arithmetic == Arithmetic::Linux {
            // tcp_ack: the ACK that leaves CA_Recovery (cwnd = ssthresh) then reaches
            // tcp_cong_control in CA_Open and cubictcp_cong_avoid with its acked_sacked,
            // after pkts_acked has seen its RTT sample.
            self.linux_rtt(ack, cx.now);
            self.linux_hystart_sample(ack, w, cx);
            if cx.cwnd_limited {
                self.linux_growth(ack.delivered_bytes, w, cx);
            }
            return;
        }
        if self.params.arithmetic == Arithmetic::Ns3 {
            // tcp-socket-base.cc:2209 PktsAcked(m_srtt) before IncreaseWindow (2254).
            if let Some(srtt) = cx.rtt.srtt() {
                self.state.ns3.on_rtt(cx.now, srtt);
            }
            if w.cwnd >= w.ssthresh && cx.cwnd_limited {
                self.ns3_congestion_avoidance(ack.acked_bytes, w, cx);
            } else if w.cwnd >= w.ssthresh {
                self.whole_segments(ack.acked_bytes, cx.mss);
            }
        }
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        if self.params.arithmetic == Arithmetic::Ns3 && !ack.dup && ack.acked_bytes > 0 {
            // PktsAcked with the smoothed RTT (tcp-socket-base.cc hands m_srtt).
            if let Some(srtt) = cx.rtt.srtt() {
                self.state.ns3.on_rtt(cx.now, srtt);
            }
        }
        if self.params.arithmetic == Arithmetic::Linux {
            self.linux_rtt(ack, cx.now);
        }
        self.linux_hystart_sample(ack, w, cx);
        if ack.dup || ack.in_recovery || ack.acked_bytes == 0 {
            return;
        }
        let mss = cx.mss_f();
        let plus_plus = self.params.hystart && self.params.hystart_variant == HyStartVariant::Rfc9406;
        let hystart_now = plus_plus && w.ssthresh.is_infinite() && w.cwnd < w.ssthresh;
        if self.params.arithmetic != Arithmetic::Real && !cx.cwnd_limited {
            // tcp-cubic.cc:187-192 and cubictcp_cong_avoid: no growth while the flow does
            // not use its window (`tcp.cwnd_limited`). HyStart still observes the ACK, and
            // ns-3 still carries the part of a segment (m_bytesAckedNotProcessed, 2046-2053).
            if hystart_now {
                self.hystart_ack(ack, w, cx, false);
            } else if self.params.arithmetic == Arithmetic::Ns3 {
                self.whole_segments(ack.delivered_bytes, cx.mss);
            }
            return;
        }
        if self.params.arithmetic == Arithmetic::Linux && !hystart_now {
            self.linux_growth(ack.delivered_bytes, w, cx);
            return;
        }
        if w.cwnd < w.ssthresh {
            if plus_plus && w.ssthresh.is_infinite() {
                // §4.10: the initial slow start with HyStart++ (RFC 9406).
                self.hystart_ack(ack, w, cx, true);
            } else if self.params.slow_start == SlowStart::SegmentsAcked {
                // TcpSocketBase::ProcessAck's segsAcked counts DeliveredData (the rate
                // sampler's delivered bytes): with SACK a jump over SACKed data adds little.
                w.cwnd += self.whole_segments(ack.delivered_bytes, cx.mss) as f64 * mss;
            } else {
                // §4.10: slow start per RFC 5681 eq. 2.
                slow_start(w, ack.acked_bytes, mss);
            }
            self.state.region = Region::SlowStart;
            return;
        }
        let cwnd = w.cwnd / mss;
        if self.params.arithmetic == Arithmetic::Ns3 {
            self.ns3_congestion_avoidance(ack.delivered_bytes, w, cx);
            return;
        }
        if self.state.epoch_start.is_none() {
            self.start_epoch(cx.now, cwnd);
        }
        let start = self.state.epoch_start.unwrap_or(cx.now);
        let t = cx.now.saturating_sub(start) as f64 / NS_PER_SEC;
        let rtt = cx.rtt.srtt().or(cx.rtt.latest()).unwrap_or(0) as f64 / NS_PER_SEC;

        // §4.3: W_est += alpha*segments_acked/cwnd; alpha = 1 once W_est >= cwnd_prior.
        let alpha = if self.params.alpha_switch && self.state.w_est >= self.state.cwnd_prior { 1.0 } else { self.alpha_cubic() };
        self.state.w_est += alpha * (ack.acked_bytes as f64 / mss) / cwnd;

        let w_cubic_t = self.w_cubic(t);
        self.state.w_cubic = w_cubic_t;
        let new_cwnd = if self.params.reno_friendly && w_cubic_t < self.state.w_est {
            // §4.3 Reno-friendly region: cwnd = W_est.
            self.state.region = Region::RenoFriendly;
            cwnd.max(self.state.w_est)
        } else {
            // §4.4 concave (cwnd < W_max) and §4.5 convex regions.
            self.state.region = if cwnd < self.state.w_max { Region::Concave } else { Region::Convex };
            // §4.2: target = W_cubic(t + RTT) clamped to [cwnd, 1.5*cwnd].
            let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
            // §4.4-4.5: cwnd += (target - cwnd)/cwnd per new ACK (or per segment it acknowledges).
            let per = match self.params.growth_unit {
                GrowthUnit::Ack => 1.0,
                GrowthUnit::Segment => ack.acked_bytes as f64 / mss,
            };
            cwnd + per * (target - cwnd) / cwnd
        };
        w.cwnd = new_cwnd * mss;
    }

    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
        let mss = cx.mss_f();
        match loss {
            Loss::FastRetransmit => self.reduce(w, cx, 2.0),
            Loss::Timeout { consecutive } => {
                if self.params.arithmetic == Arithmetic::Linux {
                    // tcp_enter_loss: ssthresh (once per window of data), then
                    // cubictcp_state(TCP_CA_Loss) -> bictcp_reset; snd_cwnd_cnt = 0. Inside
                    // a fast recovery Linux keeps the recovery's ssthresh: the sender's
                    // `tcp.timeout_in_recovery = "keep"` (the linux profile) restores it,
                    // and the reset erases what ssthresh() set here.
                    if consecutive <= 1 {
                        let seg = self.state.linux.ssthresh(&self.linux, (w.cwnd / mss) as u32);
                        w.ssthresh = f64::from(seg) * mss;
                    }
                    self.state.linux.reset();
                } else if self.params.arithmetic == Arithmetic::Ns3 {
                    // ReTxTimeout: GetSsThresh, then CongestionStateSet(CA_LOSS) -> CubicReset.
                    if consecutive <= 1 {
                        let seg = self.state.ns3.ssthresh((w.cwnd / mss) as u32, self.params.beta, self.params.fast_convergence);
                        w.ssthresh = f64::from(seg) * mss;
                    }
                    self.state.ns3.reset();
                } else if consecutive <= 1 {
                    // §4.8: ssthresh as in §4.6; RFC 5681 §3.1 cuts it on the first expiry only.
                    self.state.cwnd_prior = w.cwnd / mss;
                    w.ssthresh = (self.reduce_base(w, cx) / mss * self.params.beta).max(2.0) * mss;
                }
                // cubictcp_state(TCP_CA_Loss): bictcp_reset and bictcp_hystart_reset.
                if self.linux_hystart() {
                    self.state.linux_hystart.reset(cx.now, cx.snd_max);
                }
                // §4.8 / RFC 5681 §3.1: cwnd = 1 segment.
                w.cwnd = mss;
                self.state.epoch_start = None;
                self.state.after_timeout = true;
                self.state.ecn.reduced(cx);
                self.state.region = Region::SlowStart;
            }
        }
        Verdict::None
    }

    fn on_signal(&mut self, signal: Signal, w: &mut Window, cx: &mut Ctx) {
        // §4.6: an ECN echo is a congestion event with cwnd >= 1 segment; once per window.
        if signal == Signal::CongestionMark && self.state.ecn.allows(cx) {
            self.reduce(w, cx, 1.0);
        }
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        let s = &self.state;
        let (w_max, k) = match self.params.arithmetic {
            Arithmetic::Real => (s.w_max, s.k),
            Arithmetic::Ns3 => (f64::from(s.ns3.last_max()), s.ns3.k()),
            Arithmetic::Linux => (f64::from(s.linux.last_max()), s.linux.k_s()),
        };
        out.push(("w_max_segments", w_max));
        out.push(("k_s", k));
        if self.params.arithmetic == Arithmetic::Linux {
            // Linux's own state in place of the RFC's W_cubic, W_est and cwnd_epoch.
            s.linux.trace_vars(out);
        } else {
            out.push(("w_cubic_segments", s.w_cubic));
            out.push(("w_est_segments", s.w_est));
            out.push(("cwnd_prior_segments", s.cwnd_prior));
            out.push(("cwnd_epoch_segments", s.cwnd_epoch));
        }
        let region = match s.region {
            Region::SlowStart => 0.0,
            Region::RenoFriendly => 1.0,
            Region::Concave => 2.0,
            Region::Convex => 3.0,
        };
        out.push(("region", region));
        let hs = &s.hystart;
        out.push(("hystart_css", if hs.css_baseline_min_rtt.is_some() { 1.0 } else { 0.0 }));
        if self.linux_hystart() {
            out.push(("hystart_found", if s.linux_hystart.found() { 1.0 } else { 0.0 }));
            out.push(("hystart_delay_min_s", s.linux_hystart.delay_min_s()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::AckSample;
    use crate::testing::{Harness, MSS, var};

    fn linux_cubic() -> Harness {
        let p = CubicParams { arithmetic: Arithmetic::Linux, beta: 0.7001953125, hystart: false, ..CubicParams::default() };
        Harness::new(Box::new(Cubic::new(p)))
    }

    #[test]
    fn linux_timeout_cuts_from_the_window_it_finds_and_clears_w_max() {
        // Keeping a fast recovery's ssthresh at a timeout inside it is the sender's rule
        // (`tcp.timeout_in_recovery = "keep"`, tests/engine/tcp_behaviour.rs); the algorithm's
        // response is tcp_enter_loss's ssthresh() and cubictcp_state's reset.
        let mut h = linux_cubic();
        h.w.cwnd = 100.0 * SEG;
        h.loss(Loss::FastRetransmit);
        assert_eq!(h.w.ssthresh, 70.0 * SEG, "100 * 717 / 1024 = 70");
        h.exit_recovery();
        h.w.cwnd = 40.0 * SEG;
        h.loss(Loss::Timeout { consecutive: 1 });
        assert_eq!((h.w.ssthresh, h.cwnd_segments()), (28.0 * SEG, 1.0), "40 * 717 / 1024 = 28");
        assert_eq!(var(&h, "w_max_segments"), 0.0);
    }

    #[test]
    fn linux_slow_start_hands_the_rest_of_an_ack_to_avoidance_in_whole_segments() {
        let mut h = linux_cubic();
        h.w.ssthresh = 11.0 * SEG;
        h.ack(2, 50 * MS);
        // 10 + 1 reaches ssthresh; the second segment goes to tcp_cong_avoid_ai (cnt 20).
        assert_eq!(h.cwnd_segments(), 11.0);
        assert_eq!(var(&h, "cwnd_cnt"), 1.0);
        assert_eq!(var(&h, "cnt"), 20.0, "no loss yet: at most 20");
    }

    const MS: u64 = 1_000_000;
    const SEG: f64 = MSS as f64;

    /// One new ACK of `segments` at time `at`, with RTT sample `rtt`.
    fn ack_at(h: &mut Harness, at: u64, segments: u64, rtt: u64) {
        h.fill_window();
        h.now = at;
        let bytes = (segments * u64::from(MSS)).min(h.snd_max - h.snd_una);
        h.snd_una += bytes;
        h.rtt.on_sample(rtt);
        let s = AckSample { ack: h.snd_una, acked_bytes: bytes, rtt: Some(rtt), delivered: h.snd_una, ..AckSample::default() };
        h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
    }

    /// A harness in congestion avoidance at 100 segments with 100 segments in flight,
    /// then one fast retransmit and the end of recovery.
    fn after_loss_at_100(p: CubicParams) -> Harness {
        let mut h = Harness::new(build(&p));
        h.rtt.on_sample(100 * MS);
        h.w = Window::new(100.0 * SEG, 50.0 * SEG);
        h.fill_window();
        h.loss(Loss::FastRetransmit);
        h.exit_recovery();
        h
    }

    #[test]
    fn k_for_w_max_of_100_segments_is_the_cube_root_of_w_max_times_1_minus_beta_over_c() {
        let mut h = after_loss_at_100(CubicParams::default());
        assert_eq!(var(&h, "w_max_segments"), 100.0);
        // §4.6: cwnd = ssthresh = 0.7 * FlightSize.
        assert_eq!(h.w.cwnd, 70.0 * SEG);
        assert_eq!(h.w.ssthresh, 70.0 * SEG);
        let at = h.now + 10 * MS;
        ack_at(&mut h, at, 1, 100 * MS);
        let k = (100.0f64 * (1.0 - 0.7) / 0.4).cbrt();
        assert!((var(&h, "k_s") - k).abs() < 1e-12, "K {} vs {}", var(&h, "k_s"), k);
        assert!((k - 75.0f64.cbrt()).abs() < 1e-12);
    }

    #[test]
    fn window_after_a_loss_follows_the_rfc_cubic() {
        let mut h = after_loss_at_100(CubicParams::default());
        let rtt = 100 * MS;
        let epoch = h.now + MS;
        let (c, w_max) = (0.4f64, 100.0f64);
        let k = (w_max * (1.0 - 0.7) / c).cbrt();
        let w = |t: f64| c * (t - k).powi(3) + w_max;
        // ACKs spaced RTT/cwnd apart (an ACK clock), for 5 s: concave, then convex (W_est,
        // growing alpha_cubic = 0.53 segments per RTT from 70, stays below the cubic).
        let mut t_ns = epoch;
        while t_ns < epoch + 5_000 * MS {
            let cwnd_before = h.w.cwnd / SEG;
            ack_at(&mut h, t_ns, 1, rtt);
            let t = (t_ns - epoch) as f64 / 1e9;
            // The cubic itself, recomputed here.
            assert!((var(&h, "w_cubic_segments") - w(t)).abs() < 1e-9);
            if var(&h, "region") >= 2.0 {
                // One ACK: cwnd += (target - cwnd)/cwnd, target = W(t + SRTT) in [cwnd, 1.5 cwnd].
                let srtt = h.rtt.srtt().unwrap() as f64 / 1e9;
                let target = w(t + srtt).clamp(cwnd_before, 1.5 * cwnd_before);
                let expect = cwnd_before + (target - cwnd_before) / cwnd_before;
                assert!((h.w.cwnd / SEG - expect).abs() < 1e-9, "t {t}: {} vs {expect}", h.w.cwnd / SEG);
            }
            if t > 1.0 {
                // With an ACK clock the window tracks W_cubic(t) closely.
                assert!((h.w.cwnd / SEG - w(t)).abs() < 0.5, "t {t}: cwnd {} vs W_cubic {}", h.w.cwnd / SEG, w(t));
            }
            t_ns += (rtt as f64 / (h.w.cwnd / SEG)) as u64;
        }
        assert_eq!(var(&h, "region"), 3.0, "past K the cubic is convex");
    }

    #[test]
    fn growth_per_segment_applies_the_cubic_increment_once_per_acknowledged_segment() {
        // Linux's tcp_cong_avoid_ai(tp, cnt, acked) and ns-3's m_cWndCnt += segmentsAcked:
        // a delayed ACK of two segments grows the window by two per-ACK increments.
        let rtt = 100 * MS;
        let step = |unit: GrowthUnit| {
            let mut h = after_loss_at_100(CubicParams { growth_unit: unit, ..CubicParams::default() });
            // The first ACK starts the epoch; a second later the cubic is concave above W_est.
            let at = h.now + MS;
            ack_at(&mut h, at, 1, rtt);
            let before = h.w.cwnd / SEG;
            ack_at(&mut h, at + 1_000 * MS, 2, rtt);
            assert_eq!(var(&h, "region"), 2.0, "concave");
            h.w.cwnd / SEG - before
        };
        let (per_ack, per_segment) = (step(GrowthUnit::Ack), step(GrowthUnit::Segment));
        assert!(per_ack > 0.0);
        assert!((per_segment - 2.0 * per_ack).abs() < 1e-12, "{per_segment} vs 2 x {per_ack}");
    }

    #[test]
    fn the_window_is_at_w_max_after_k_seconds() {
        let mut h = after_loss_at_100(CubicParams::default());
        let rtt = 100 * MS;
        let epoch = h.now + MS;
        let k = 75.0f64.cbrt();
        let mut t_ns = epoch;
        let end = epoch + (k * 1e9) as u64;
        while t_ns < end {
            ack_at(&mut h, t_ns, 1, rtt);
            t_ns += (rtt as f64 / (h.w.cwnd / SEG)) as u64;
        }
        // The per-ACK step aims one RTT ahead, so cwnd is at W_max (100) within a segment.
        assert!((h.w.cwnd / SEG - 100.0).abs() < 1.0, "cwnd {}", h.w.cwnd / SEG);
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        for (fc, expect) in [(true, 80.0 * (1.0 + 0.7) / 2.0), (false, 80.0)] {
            let p = CubicParams { fast_convergence: fc, ..CubicParams::default() };
            let mut h = after_loss_at_100(p);
            h.w.cwnd = 80.0 * SEG;
            h.snd_max = h.snd_una + 80 * u64::from(MSS);
            h.loss(Loss::FastRetransmit);
            // §4.7: cwnd (80) < W_max (100): W_max = cwnd*(1 + beta)/2 = 68.
            assert!((var(&h, "w_max_segments") - expect).abs() < 1e-12, "fc {fc}");
            assert_eq!(h.w.cwnd, 0.7 * 80.0 * SEG);
        }
    }

    #[test]
    fn reno_friendly_region_holds_the_window_at_w_est_when_the_cubic_is_slower() {
        // A tiny C makes the cubic nearly flat at W_max after a loss; W_est must carry cwnd.
        let p = CubicParams { c: 1e-6, ..CubicParams::default() };
        let mut h = after_loss_at_100(p);
        let rtt = 100 * MS;
        let mut at = h.now;
        let mut w_est = 70.0;
        let alpha = 3.0 * (1.0 - 0.7) / (1.0 + 0.7);
        for _ in 0..200 {
            at += MS;
            let cwnd = h.w.cwnd / SEG;
            ack_at(&mut h, at, 1, rtt);
            // §4.3: W_est += alpha * segments_acked / cwnd (alpha while W_est < cwnd_prior = 100).
            w_est += alpha / cwnd;
            assert!((var(&h, "w_est_segments") - w_est).abs() < 1e-9);
        }
        // W_cubic starts at 70 and climbs 3*C*K^2 = 0.29 segments/s (K = cbrt(30/C) = 311 s)
        // while W_est climbs about 7 segments/s here: the Reno-friendly region rules.
        assert_eq!(var(&h, "region"), 1.0);
        assert!((h.w.cwnd / SEG - w_est).abs() < 1e-9);
    }

    #[test]
    fn alpha_becomes_one_once_w_est_reaches_cwnd_prior() {
        let p = CubicParams { c: 1e-6, ..CubicParams::default() };
        let mut h = after_loss_at_100(p);
        let mut at = h.now;
        while var(&h, "w_est_segments") < 100.0 {
            at += MS;
            ack_at(&mut h, at, 1, 100 * MS);
        }
        let (w_est, cwnd) = (var(&h, "w_est_segments"), h.w.cwnd / SEG);
        ack_at(&mut h, at + MS, 1, 100 * MS);
        // §4.3: W_est >= cwnd_prior (100), so W_est += 1 * segments_acked / cwnd.
        assert!((var(&h, "w_est_segments") - (w_est + 1.0 / cwnd)).abs() < 1e-12);
    }

    #[test]
    fn repeated_timeouts_hold_ssthresh_and_the_next_stage_starts_at_k_zero() {
        let mut h = after_loss_at_100(CubicParams::default());
        h.fill_window();
        let flight = (h.snd_max - h.snd_una) as f64;
        h.loss(Loss::Timeout { consecutive: 1 });
        assert_eq!(h.w.cwnd, SEG);
        assert_eq!(h.w.ssthresh, (flight * 0.7).max(2.0 * SEG));
        let first = h.w.ssthresh;
        h.loss(Loss::Timeout { consecutive: 2 });
        assert_eq!(h.w.ssthresh, first);
        // Slow start to ssthresh, then the first CA stage uses K = 0, W_max = cwnd_epoch.
        while h.w.cwnd < h.w.ssthresh {
            h.ack(1, 100 * MS);
        }
        let cwnd_epoch = h.w.cwnd / SEG;
        h.ack(1, 100 * MS);
        assert_eq!(var(&h, "k_s"), 0.0);
        assert_eq!(var(&h, "w_max_segments"), cwnd_epoch);
    }

    #[test]
    fn ns3_slow_start_adds_every_acknowledged_segment_past_ssthresh() {
        let p = CubicParams { hystart: false, ..CubicParams::default() };
        let run = |slow_start| {
            let mut h = Harness::new(build(&CubicParams { slow_start, ..p }));
            h.w.ssthresh = 13.0 * SEG;
            let start = h.w.cwnd;
            h.ack(2, 100 * MS); // a delayed ACK
            let after_two = h.w.cwnd - start;
            h.ack(11, 100 * MS); // a cumulative jump (after a timeout, a filled hole)
            (after_two, h.w.cwnd)
        };
        // RFC 5681 eq. 2: one SMSS per ACK, and the jump stops at ssthresh.
        assert_eq!(run(SlowStart::Rfc5681), (SEG, 12.0 * SEG));
        // ns-3.44's TcpCubic: every whole segment, uncapped: 10 + 2 + 11 segments.
        assert_eq!(run(SlowStart::SegmentsAcked), (2.0 * SEG, 23.0 * SEG));
    }

    #[test]
    fn congestion_avoidance_does_not_overflow_after_ten_lossless_days() {
        let mut h = after_loss_at_100(CubicParams::default());
        // Ten days of one-segment ACKs every 100 ms: t reaches 864000 s.
        for _ in 0..(10 * 24 * 3600 * 10) {
            h.ack(1, 100 * MS);
        }
        assert!(h.w.cwnd.is_finite() && h.w.cwnd >= SEG, "cwnd {}", h.w.cwnd);
        assert!(var(&h, "w_cubic_segments").is_finite());
        h.loss(Loss::FastRetransmit);
        h.exit_recovery();
        h.ack(1, 100 * MS);
        assert!(var(&h, "k_s").is_finite() && h.w.cwnd.is_finite());
    }

    #[test]
    fn an_ecn_echo_reduces_once_per_window_with_a_one_segment_floor() {
        let mut h = after_loss_at_100(CubicParams::default());
        for _ in 0..300 {
            h.ack(1, 100 * MS);
        }
        h.fill_window();
        let flight = (h.snd_max - h.snd_una) as f64;
        h.signal(Signal::CongestionMark);
        assert_eq!(h.w.cwnd, flight * 0.7);
        h.signal(Signal::CongestionMark);
        assert_eq!(h.w.cwnd, flight * 0.7);
    }

    #[test]
    fn slow_start_then_a_stage_without_loss_starts_at_its_own_window() {
        let mut h = Harness::new(build(&CubicParams::default()));
        h.w.ssthresh = 20.0 * SEG;
        while h.w.cwnd < h.w.ssthresh {
            h.ack(1, 50 * MS);
        }
        assert_eq!(h.w.cwnd, 20.0 * SEG);
        h.ack(1, 50 * MS);
        assert_eq!(var(&h, "k_s"), 0.0);
        assert_eq!(var(&h, "w_max_segments"), 20.0);
        assert!(h.w.cwnd > 20.0 * SEG);
    }

    /// A slow start driven ACK by ACK (two segments per ACK, delayed-ACK style) whose RTT
    /// samples come from `rtt_of(i)`; stops after `n` ACKs or when `stop` holds.
    fn slow_start_run(h: &mut Harness, n: usize, rtt_of: impl Fn(usize) -> u64, stop: impl Fn(&Harness) -> bool) -> usize {
        let mut at = 1000 * MS;
        for i in 0..n {
            at += MS;
            ack_at(h, at, 2, rtt_of(i));
            if stop(h) {
                return i;
            }
        }
        n
    }

    #[test]
    fn linux_hystart_ends_slow_start_on_an_ack_train_where_hystart_plus_plus_goes_on() {
        // One-segment ACKs 1 ms apart, each RTT sample 100 ms (no delay rise): only Linux's
        // ACK-train detector can end slow start, once a round's train outlasts
        // (delay_min + 1 ms) / 2; it then sets ssthresh = cwnd.
        for (variant, ends) in [(HyStartVariant::Linux, true), (HyStartVariant::Rfc9406, false)] {
            let p = CubicParams { arithmetic: Arithmetic::Linux, beta: 0.7001953125, hystart_variant: variant, ..CubicParams::default() };
            let mut h = Harness::new(build(&p));
            h.rtt.on_sample(100 * MS);
            let mut ended = None;
            for _ in 0..400 {
                h.fill_window();
                h.now += MS;
                h.snd_una += u64::from(MSS);
                let s = AckSample { ack: h.snd_una, acked_bytes: u64::from(MSS), delivered_bytes: u64::from(MSS), rtt: Some(100 * MS), ..AckSample::default() };
                let before = h.w.cwnd;
                h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
                if h.w.ssthresh.is_finite() {
                    ended = Some((before, h.w.ssthresh));
                    break;
                }
            }
            assert_eq!(ended.is_some(), ends, "{variant:?}");
            if let Some((cwnd, ssthresh)) = ended {
                assert_eq!(ssthresh, cwnd);
                assert!(cwnd >= 16.0 * SEG, "fired below hystart_low_window: {}", cwnd / SEG);
                assert_eq!(var(&h, "hystart_found"), 1.0);
            }
        }
    }

    #[test]
    fn with_linux_hystart_the_real_valued_slow_start_is_rfc5681s_not_hystart_plus_plus() {
        // An ACK of 2 segments: HyStart++ adds min(N, L*SMSS) = 2 segments, RFC 5681 slow
        // start min(N, SMSS) = 1.
        for (variant, per_ack) in [(HyStartVariant::Linux, 1.0), (HyStartVariant::Rfc9406, 2.0)] {
            let mut h = Harness::new(build(&CubicParams { hystart_variant: variant, ..CubicParams::default() }));
            let before = h.w.cwnd;
            for _ in 0..5 {
                h.ack(2, 50 * MS);
            }
            assert_eq!(h.w.cwnd - before, 5.0 * per_ack * SEG, "{variant:?}");
        }
    }

    #[test]
    fn hystart_plus_plus_grows_by_the_bytes_acked_up_to_l_segments_per_ack() {
        // RFC 9406 §4.2: cwnd += min(N, L*SMSS), L = 8: an ACK of 2 segments adds 2; RFC 5681
        // slow start (hystart = false) adds min(N, SMSS) = 1.
        for (hystart, per_ack) in [(true, 2.0), (false, 1.0)] {
            let mut h = Harness::new(build(&CubicParams { hystart, ..CubicParams::default() }));
            let before = h.w.cwnd;
            slow_start_run(&mut h, 20, |_| 100 * MS, |_| false);
            assert_eq!(h.w.cwnd - before, 20.0 * per_ack * SEG, "hystart {hystart}");
            assert_eq!(var(&h, "hystart_css"), 0.0);
            assert!(h.w.ssthresh.is_infinite());
        }
    }

    #[test]
    fn while_not_cwnd_limited_linux_and_ns3_cubic_hold_cwnd_but_hystart_still_watches() {
        // cubictcp_cong_avoid returns first when !tcp_is_cwnd_limited; HyStart runs in
        // cubictcp_acked, outside that gate; ns-3's TcpCubic::IncreaseWindow returns first.
        for arithmetic in [Arithmetic::Linux, Arithmetic::Ns3] {
            let mut h = Harness::new(build(&CubicParams { arithmetic, ..CubicParams::default() }));
            h.cwnd_limited = false;
            // 40 segments: rounds of 20 ACKs, enough for HyStart's 8 samples a round.
            h.w.cwnd = 40.0 * SEG;
            let before = h.w.cwnd;
            let rtt = |i: usize| if i < 60 { 100 * MS } else { 113 * MS };
            let i = slow_start_run(&mut h, 400, rtt, |h| var(h, "hystart_css") == 1.0);
            assert_eq!(h.w.cwnd, before, "{arithmetic:?}");
            assert!(i >= 60 && i < 400, "{arithmetic:?}: CSS entered at ACK {i}");
        }
        // RFC 9438's arithmetic has no such test.
        let mut h = Harness::new(build(&CubicParams { hystart: false, ..CubicParams::default() }));
        h.cwnd_limited = false;
        let before = h.w.cwnd;
        slow_start_run(&mut h, 10, |_| 100 * MS, |_| false);
        assert!(h.w.cwnd > before);
    }

    #[test]
    fn a_round_min_rtt_rise_of_rtt_thresh_enters_css_and_five_css_rounds_end_slow_start() {
        // RTT 100 ms, then 113 ms from the 60th ACK: RttThresh = clamp(100/8, 4, 16) = 12.5 ms,
        // 113 >= 100 + 12.5.
        let mut h = Harness::new(build(&CubicParams::default()));
        let rtt = |i: usize| if i < 60 { 100 * MS } else { 113 * MS };
        let i = slow_start_run(&mut h, 400, rtt, |h| var(h, "hystart_css") == 1.0);
        assert!(i >= 60 && i < 400, "CSS entered at ACK {i}");
        // In CSS an ACK of 2 segments adds 2/CSS_GROWTH_DIVISOR = 0.5 segment.
        let before = h.w.cwnd;
        let at = h.now + MS;
        ack_at(&mut h, at, 2, 113 * MS);
        assert_eq!(h.w.cwnd - before, 0.5 * SEG);
        // Five CSS rounds later slow start is over: ssthresh = cwnd.
        slow_start_run(&mut h, 5000, |_| 113 * MS, |h| h.w.ssthresh.is_finite());
        assert_eq!(h.w.ssthresh, h.w.cwnd);
        // ... and a rise of less than RttThresh (110 ms) never leaves slow start.
        let mut h = Harness::new(build(&CubicParams::default()));
        let rtt = |i: usize| if i < 60 { 100 * MS } else { 110 * MS };
        slow_start_run(&mut h, 400, rtt, |_| false);
        assert_eq!(var(&h, "hystart_css"), 0.0);
    }

    #[test]
    fn a_round_min_rtt_below_the_css_baseline_resumes_slow_start() {
        let mut h = Harness::new(build(&CubicParams::default()));
        let rtt = |i: usize| if i < 60 { 100 * MS } else { 120 * MS };
        slow_start_run(&mut h, 400, rtt, |h| var(h, "hystart_css") == 1.0);
        // A whole round of samples at 100 ms (< the 120 ms baseline): spurious exit.
        slow_start_run(&mut h, 400, |_| 100 * MS, |h| var(h, "hystart_css") == 0.0);
        assert_eq!(var(&h, "hystart_css"), 0.0);
        assert!(h.w.ssthresh.is_infinite());
    }

    #[test]
    fn after_a_loss_slow_start_is_rfc_5681() {
        let mut h = Harness::new(build(&CubicParams::default()));
        slow_start_run(&mut h, 10, |_| 100 * MS, |_| false);
        h.loss(Loss::Timeout { consecutive: 1 });
        let before = h.w.cwnd;
        let at = h.now + MS;
        ack_at(&mut h, at, 2, 100 * MS);
        assert!(h.w.cwnd < h.w.ssthresh);
        assert_eq!(h.w.cwnd - before, SEG);
    }
}
