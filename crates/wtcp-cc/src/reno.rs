//! TCP Reno (RFC 5681) and NewReno (RFC 6582), and the Reno toolkit the other
//! window-based algorithms build on.
//!
//! Reno and NewReno share one congestion-control state machine; they differ only in the
//! sender's fast-recovery mechanics (partial ACKs), selected by [`RecoveryStyle`].
//!
//! Deviations and ambiguities resolved:
//! - Congestion avoidance adds MSS*MSS/cwnd once per ACK (RFC 5681 eq. 3, as ns-3 does),
//!   not per acknowledged segment; with delayed ACKs cwnd then grows about half a segment
//!   per RTT. `byte_counting = true` selects RFC 3465 appropriate byte counting instead.
//! - Slow start adds min(N, SMSS) per ACK (RFC 5681 eq. 2); with byte counting, min(N, L*SMSS).
//! - ssthresh on loss is max(FlightSize/2, 2*SMSS) (RFC 5681 eq. 4); `halve = "cwnd"`
//!   halves cwnd instead, as ns-2 and Linux do.
//! - A congestion mark (ECN echo, or TCP-Jersey's congestion warning) halves the window
//!   once per window (RFC 3168 §6.1.2); `ecn = false` ignores marks, as ns-2's Agent/TCP
//!   does with its default `ecn_ 0` (the `ns2` profile sets it).

use serde::Deserialize;

use crate::api::{AckSample, CongestionControl, Ctx, Loss, RecoveryStyle, Signal, Verdict, Window};
use crate::registry::{AlgorithmInfo, ParamInfo, Range};

/// Reno growth's byte-counting switch, shared by every algorithm that grows like Reno.
pub const BYTE_COUNTING: ParamInfo = ParamInfo {
    name: "byte_counting",
    unit: "bool",
    default: "false",
    doc: "RFC 3465 appropriate byte counting in Reno growth; off = RFC 5681 per-ACK increase (ns-2, ns-3)",
    range: Range::Any,
};

/// Reno growth's byte-counting limit, shared like [`BYTE_COUNTING`].
pub const ABC_LIMIT: ParamInfo = ParamInfo {
    name: "abc_limit",
    unit: "segments",
    default: "2",
    doc: "byte-counting limit L per ACK in slow start (RFC 3465 §2.2)",
    range: Range::at_least(1.0),
};

const PARAMS: &[ParamInfo] = &[
    BYTE_COUNTING,
    ABC_LIMIT,
    ParamInfo {
        name: "halve",
        unit: "flight_size|cwnd|pipe",
        default: "flight_size",
        doc: "quantity halved on loss: FlightSize (RFC 5681 eq. 4), cwnd (ns-2, Linux) or the RFC 6675 pipe (ns-3)",
        range: Range::Any,
    },
    ParamInfo {
        name: "growth",
        unit: "rfc|linux_segments|linux",
        default: "rfc",
        doc: "window growth: RFC 5681 (or RFC 3465 with byte_counting); whole segments as ns-3's TcpLinuxReno (Linux tcp_slow_start / tcp_cong_avoid_ai with ns-3's counter kept across losses); or as Linux (the rest of a slow-start ACK carried into avoidance, the counter zeroed by a reduction)",
        range: Range::Any,
    },
    ParamInfo {
        name: "ecn",
        unit: "bool",
        default: "true",
        doc: "answer congestion marks (ECN echoes) by halving once per window (RFC 3168 §6.1.2); false ignores them, as ns-2's Agent/TCP with its default ecn_ 0",
        range: Range::Any,
    },
];

pub const RENO_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "reno",
    summary: "Slow start, congestion avoidance, fast retransmit and fast recovery; recovery ends on the first new ACK.",
    reference: "RFC 5681 (Allman, Paxson, Blanton, 2009)",
    params: PARAMS,
    timeout_collapses_window: true,
    constraints: &[],
};

pub const NEWRENO_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "newreno",
    summary: "Reno with partial-ACK handling: stays in fast recovery until all data outstanding at its start is acknowledged.",
    reference: "RFC 6582 (Henderson, Floyd, Gurtov, Nishida, 2012)",
    params: PARAMS,
    timeout_collapses_window: true,
    constraints: &[],
};

/// Which quantity a multiplicative decrease halves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HalveOf {
    /// RFC 5681 eq. 4: FlightSize (data outstanding).
    #[default]
    FlightSize,
    /// ns-2 / Linux: the congestion window.
    Cwnd,
    /// ns-3: the RFC 6675 pipe (bytes estimated in the network), which ns-3's NewReno
    /// passes to `GetSsThresh` ("BytesInFlight").
    Pipe,
}

/// How Reno's window grows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Growth {
    /// RFC 5681 eq. 2 and 3, or RFC 3465 with `byte_counting`.
    #[default]
    Rfc,
    /// ns-3.44 tcp-linux-reno.cc (Linux's tcp_slow_start and tcp_cong_avoid_ai in whole
    /// segments): slow start adds one MSS per acknowledged segment up to ssthresh (the
    /// rest of that ACK is not carried into avoidance, IncreaseWindow:110-124); avoidance
    /// counts acknowledged segments in an integer counter and adds one MSS per w =
    /// floor(cwnd / MSS) of them (CongestionAvoidance:67-107). The counter is kept across
    /// losses, as ns-3 keeps m_cWndCnt (Linux zeroes snd_cwnd_cnt when a reduction starts).
    LinuxSegments,
    /// Linux's tcp_reno_cong_avoid (net/ipv4/tcp_cong.c): tcp_slow_start adds one MSS per
    /// delivered segment (acked_sacked: cumulatively or newly SACKed) up to ssthresh and
    /// hands the rest of the ACK to tcp_cong_avoid_ai, which adds one MSS per w = cwnd/MSS
    /// delivered segments (snd_cwnd_cnt); a reduction zeroes the counter (tcp_input.c
    /// tcp_init_cwnd_reduction, tcp_enter_loss). The ACK that ends recovery counts its
    /// delivered segments too where the sender offers it (`tcp.recovery_exit_growth`).
    /// Growth waits while the flow is not cwnd-limited (`Ctx::cwnd_limited`; Linux's
    /// tcp_reno_cong_avoid returns first when !tcp_is_cwnd_limited); `LinuxSegments`
    /// waits in avoidance only (ns-3's TcpLinuxReno::CongestionAvoidance with its default
    /// SuppressIncreaseIfCwndLimited, tcp-linux-reno.cc:71).
    Linux,
}

/// Parameters of Reno and NewReno.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RenoParams {
    /// RFC 3465 appropriate byte counting (off: RFC 5681 per-ACK increase, as ns-3).
    pub byte_counting: bool,
    /// Byte-counting limit L in segments per ACK during slow start (RFC 3465 §2.2: 2).
    pub abc_limit: u32,
    /// What the loss response halves: `flight_size` (RFC 5681), `cwnd` (ns-2, Linux) or
    /// `pipe` (ns-3's BytesInFlight).
    pub halve: HalveOf,
    /// Answer congestion marks (RFC 3168 §6.1.2); off: ignore them (ns-2's `ecn_ 0`).
    pub ecn: bool,
    /// Window growth: `rfc` or `linux_segments` (ns-3's TcpLinuxReno).
    pub growth: Growth,
}

impl Default for RenoParams {
    fn default() -> Self {
        RenoParams { byte_counting: false, abc_limit: 2, halve: HalveOf::FlightSize, ecn: true, growth: Growth::Rfc }
    }
}

/// Growth in whole segments (`Growth::LinuxSegments`): the avoidance counter and the bytes
/// of ACKs not yet a whole segment (ns-3's m_cWndCnt and m_bytesAckedNotProcessed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct SegmentCounter {
    cwnd_cnt: u64,
    bytes_pending: u64,
}

impl SegmentCounter {
    /// `linux`: Linux's tcp_reno_cong_avoid, where the part of a slow-start ACK above
    /// ssthresh goes on into avoidance (ns-3 drops it) and an ACK counts the segments it
    /// newly delivered, cumulatively or by SACK (tcp_ack hands tcp_cong_control
    /// `acked_sacked`; RFC 6937 DeliveredData), where ns-3 counts its cumulative span.
    fn grow(&mut self, ack: &AckSample, w: &mut Window, mss: f64, linux: bool, cwnd_limited: bool) {
        if ack.dup || ack.in_recovery || ack.acked_bytes == 0 || (linux && !cwnd_limited) {
            return;
        }
        // tcp-socket-base.cc ProcessAck: segsAcked = bytes / MSS, the remainder kept.
        let mss_b = mss as u64;
        let counted = if linux { ack.delivered_bytes } else { ack.acked_bytes };
        let bytes = counted + self.bytes_pending;
        let mut segs = bytes / mss_b;
        self.bytes_pending = bytes % mss_b;
        if segs == 0 {
            return;
        }
        if w.cwnd < w.ssthresh {
            // SlowStart: cwnd = min(cwnd + segs * MSS, ssthresh).
            let grown = (w.cwnd + segs as f64 * mss).min(w.ssthresh);
            let used = (((grown - w.cwnd) / mss).ceil() as u64).min(segs);
            w.cwnd = grown;
            segs -= used;
            if !linux || segs == 0 {
                return;
            }
        }
        if !cwnd_limited {
            return; // ns-3: "No increase because current cwnd ... is not limiting the flow"
        }
        // CongestionAvoidance: one MSS per w acknowledged segments.
        let win = ((w.cwnd / mss).floor() as u64).max(1);
        if self.cwnd_cnt >= win {
            self.cwnd_cnt = 0;
            w.cwnd += mss;
        }
        self.cwnd_cnt += segs;
        if self.cwnd_cnt >= win {
            let delta = self.cwnd_cnt / win;
            self.cwnd_cnt -= delta * win;
            w.cwnd += delta as f64 * mss;
        }
    }
}

/// RFC 3168 §6.1.2: a window reduction answers at most one ECN echo per window of data.
/// Any reduction (a loss response too) starts a new window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OncePerWindow {
    /// SND.MAX at the last reduction.
    recover: u64,
}

impl OncePerWindow {
    /// The window was just reduced: the next response waits until SND.MAX is acknowledged.
    pub fn reduced(&mut self, cx: &Ctx) {
        self.recover = cx.snd_max;
    }

    /// All data outstanding at the last reduction has been acknowledged.
    pub fn allows(&self, cx: &Ctx) -> bool {
        cx.snd_una >= self.recover
    }

    /// Something above the data outstanding at the last reduction has been acknowledged:
    /// the ACK covers data sent after the reduction (Linux `tcp_fastretrans_alert`: "CWR is
    /// to be held something *above* high_seq is ACKed"). An ACK ending exactly there can
    /// still echo the mark that caused the reduction (RFC 3168 §6.1.3: the receiver sets
    /// ECE until it sees CWR, which rides on data sent after the reduction).
    pub fn passed(&self, cx: &Ctx) -> bool {
        cx.snd_una > self.recover
    }
}

/// Slow start (RFC 5681 eq. 2): grow by min(acked, limit) bytes, never past ssthresh by
/// more than that step. Returns the acked bytes left over for congestion avoidance.
pub fn slow_start(w: &mut Window, acked: u64, limit: f64) -> u64 {
    let step = (acked as f64).min(limit);
    let room = (w.ssthresh - w.cwnd).max(0.0);
    if step <= room {
        w.cwnd += step;
        0
    } else {
        w.cwnd += room;
        ((step - room) as u64).min(acked)
    }
}

/// Congestion avoidance, one ACK (RFC 5681 eq. 3): cwnd += MSS*MSS/cwnd.
pub fn cong_avoid_per_ack(w: &mut Window, mss: f64) {
    w.cwnd += mss * mss / w.cwnd.max(mss);
}

/// Congestion avoidance with byte counting (RFC 3465 §2.1): cwnd += MSS*acked/cwnd.
pub fn cong_avoid_bytes(w: &mut Window, acked: u64, mss: f64) {
    w.cwnd += mss * acked as f64 / w.cwnd.max(mss);
}

/// RFC 5681 eq. 4: ssthresh = max(x/2, 2*SMSS).
pub fn halved_ssthresh(x: f64, mss: f64) -> f64 {
    (x / 2.0).max(2.0 * mss)
}

/// The Reno/NewReno congestion-control state machine.
#[derive(Clone, Debug)]
pub struct Reno {
    params: RenoParams,
    style: RecoveryStyle,
    ecn: OncePerWindow,
    segments: SegmentCounter,
}

impl Reno {
    pub fn new(params: RenoParams, style: RecoveryStyle) -> Self {
        Reno { params, style, ecn: OncePerWindow::default(), segments: SegmentCounter::default() }
    }

    pub fn boxed(params: RenoParams, style: RecoveryStyle) -> Box<dyn CongestionControl> {
        Box::new(Self::new(params, style))
    }

    /// The standard window growth on a new ACK outside recovery.
    pub fn grow(params: &RenoParams, ack: &AckSample, w: &mut Window, mss: f64) {
        if ack.dup || ack.in_recovery || ack.acked_bytes == 0 {
            return;
        }
        let mut acked = ack.acked_bytes;
        if w.cwnd < w.ssthresh {
            let limit = if params.byte_counting { f64::from(params.abc_limit) * mss } else { mss };
            acked = slow_start(w, acked, limit);
            if acked == 0 || !params.byte_counting {
                return;
            }
        }
        if params.byte_counting {
            cong_avoid_bytes(w, acked, mss);
        } else {
            cong_avoid_per_ack(w, mss);
        }
    }

    /// Reno's own growth, in whole segments when `growth = "linux_segments"`.
    fn grow_own(&mut self, ack: &AckSample, w: &mut Window, cx: &Ctx) {
        let mss = cx.mss_f();
        match self.params.growth {
            Growth::Rfc => Self::grow(&self.params, ack, w, mss),
            Growth::LinuxSegments => self.segments.grow(ack, w, mss, false, cx.cwnd_limited),
            Growth::Linux => self.segments.grow(ack, w, mss, true, cx.cwnd_limited),
        }
    }

    /// The quantity a loss halves.
    pub fn halve_base(params: &RenoParams, w: &Window, cx: &Ctx) -> f64 {
        match params.halve {
            HalveOf::FlightSize => cx.flight_size as f64,
            HalveOf::Cwnd => w.cwnd,
            HalveOf::Pipe => cx.pipe as f64,
        }
    }

    /// Reno's response to a loss event (RFC 5681 §3.1-3.2).
    pub fn respond(params: &RenoParams, loss: Loss, w: &mut Window, cx: &Ctx) {
        let mss = cx.mss_f();
        match loss {
            Loss::FastRetransmit => {
                // RFC 5681 §3.2 steps 2-3: ssthresh = max(FlightSize/2, 2*SMSS); the sender
                // adds the 3*SMSS inflation itself.
                w.ssthresh = halved_ssthresh(Self::halve_base(params, w, cx), mss);
                w.cwnd = w.ssthresh;
            }
            Loss::Timeout { consecutive } => {
                // RFC 5681 §3.1: cut ssthresh only when the segment was not already
                // retransmitted by the timer; cwnd = LW = 1 SMSS.
                if consecutive <= 1 {
                    w.ssthresh = halved_ssthresh(Self::halve_base(params, w, cx), mss);
                }
                w.cwnd = mss;
            }
        }
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        match self.style {
            // No registry entry builds Reno without fast recovery.
            RecoveryStyle::Reno | RecoveryStyle::FastRetransmitOnly => "reno",
            RecoveryStyle::NewReno => "newreno",
        }
    }
    fn recovery_style(&self) -> RecoveryStyle {
        self.style
    }
    fn on_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        self.grow_own(ack, w, cx);
    }
    fn on_recovery_exit_growth(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        self.grow_own(ack, w, cx);
    }
    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
        Self::respond(&self.params, loss, w, cx);
        self.ecn.reduced(cx);
        if self.params.growth == Growth::Linux {
            // tcp_init_cwnd_reduction / tcp_enter_loss: snd_cwnd_cnt = 0.
            self.segments.cwnd_cnt = 0;
        }
        Verdict::None
    }

    fn on_signal(&mut self, signal: Signal, w: &mut Window, cx: &mut Ctx) {
        // RFC 3168 §6.1.2: an ECN echo halves the window as a loss would, at most once
        // per window of data, without a retransmission.
        if signal == Signal::CongestionMark && self.params.ecn && self.ecn.allows(cx) {
            w.ssthresh = halved_ssthresh(cx.flight_size as f64, cx.mss_f());
            w.cwnd = w.ssthresh;
            self.ecn.reduced(cx);
            if self.params.growth == Growth::Linux {
                // tcp_enter_cwr -> tcp_init_cwnd_reduction: snd_cwnd_cnt = 0.
                self.segments.cwnd_cnt = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::api::{HostShared, Requests};
    use crate::rtt::{RttConfig, RttEstimator};

    const MSS: f64 = 1000.0;

    fn with_ctx<R>(flight: u64, f: impl FnOnce(&mut Ctx) -> R) -> R {
        let rtt = RttEstimator::new(RttConfig::default());
        let mut host = HostShared::default();
        let mut req = Requests::default();
        let mut cx = Ctx { now: 0, mss: 1000, flight_size: flight, pipe: flight.saturating_sub(4000), snd_una: 0, snd_max: flight, segments_sent: 0, cwnd_limited: true, rtt: &rtt, host: &mut host, requests: &mut req };
        f(&mut cx)
    }

    fn new_ack(bytes: u64) -> AckSample {
        AckSample { acked_bytes: bytes, delivered_bytes: bytes, ..AckSample::default() }
    }

    #[test]
    fn linux_growth_counts_delivered_segments_and_ns3s_the_cumulative_span() {
        // An ACK over 4 segments SACKed earlier and 1 new: Linux's acked_sacked is 1.
        let over_sacked = AckSample { acked_bytes: 5000, delivered_bytes: 1000, ..AckSample::default() };
        let mut linux = Reno::new(RenoParams { growth: Growth::Linux, ..RenoParams::default() }, RecoveryStyle::NewReno);
        let mut ns3 = Reno::new(RenoParams { growth: Growth::LinuxSegments, ..RenoParams::default() }, RecoveryStyle::NewReno);
        let (mut w, mut w3) = (Window::new(10.0 * MSS, 10.0 * MSS), Window::new(10.0 * MSS, 10.0 * MSS));
        with_ctx(0, |cx| linux.on_ack(&over_sacked, &mut w, cx));
        with_ctx(0, |cx| ns3.on_ack(&over_sacked, &mut w3, cx));
        assert_eq!((linux.segments.cwnd_cnt, ns3.segments.cwnd_cnt), (1, 5));
    }

    #[test]
    fn linux_growth_carries_the_slow_start_excess_and_a_reduction_zeroes_the_counter() {
        let linux = RenoParams { growth: Growth::Linux, ..RenoParams::default() };
        let mut r = Reno::new(linux, RecoveryStyle::NewReno);
        let mut w = Window::new(9.0 * MSS, 10.0 * MSS);
        // An ACK of 4 segments at cwnd 9: one reaches ssthresh (10), three go on into
        // avoidance (w = 10: the counter holds 3); ns-3's reading drops them.
        with_ctx(0, |cx| r.on_ack(&new_ack(4000), &mut w, cx));
        assert_eq!((w.cwnd, r.segments.cwnd_cnt), (10.0 * MSS, 3));
        let mut ns3 = Reno::new(RenoParams { growth: Growth::LinuxSegments, ..RenoParams::default() }, RecoveryStyle::NewReno);
        let mut w3 = Window::new(9.0 * MSS, 10.0 * MSS);
        with_ctx(0, |cx| ns3.on_ack(&new_ack(4000), &mut w3, cx));
        assert_eq!((w3.cwnd, ns3.segments.cwnd_cnt), (10.0 * MSS, 0));
        // 7 more segments complete w = 10: one MSS more.
        with_ctx(0, |cx| r.on_ack(&new_ack(7000), &mut w, cx));
        assert_eq!((w.cwnd, r.segments.cwnd_cnt), (11.0 * MSS, 0));
        with_ctx(0, |cx| r.on_ack(&new_ack(5000), &mut w, cx));
        assert_eq!(r.segments.cwnd_cnt, 5);
        // A fast retransmit zeroes Linux's counter (tcp_init_cwnd_reduction), not ns-3's.
        with_ctx(11_000, |cx| r.on_loss(Loss::FastRetransmit, &mut w, cx));
        assert_eq!(r.segments.cwnd_cnt, 0);
        with_ctx(0, |cx| ns3.on_ack(&new_ack(5000), &mut w3, cx));
        with_ctx(11_000, |cx| ns3.on_loss(Loss::FastRetransmit, &mut w3, cx));
        assert_eq!(ns3.segments.cwnd_cnt, 5);
    }

    #[test]
    fn slow_start_adds_one_segment_per_ack() {
        let mut r = Reno::new(RenoParams::default(), RecoveryStyle::NewReno);
        let mut w = Window::new(2.0 * MSS, f64::INFINITY);
        with_ctx(0, |cx| {
            // A delayed ACK covering two segments still adds one SMSS (RFC 5681 eq. 2).
            r.on_ack(&new_ack(2000), &mut w, cx);
        });
        assert_eq!(w.cwnd, 3.0 * MSS);
    }

    #[test]
    fn byte_counting_adds_up_to_l_segments_per_ack() {
        let p = RenoParams { byte_counting: true, ..RenoParams::default() };
        let mut r = Reno::new(p, RecoveryStyle::NewReno);
        let mut w = Window::new(2.0 * MSS, f64::INFINITY);
        with_ctx(0, |cx| r.on_ack(&new_ack(3000), &mut w, cx));
        assert_eq!(w.cwnd, 4.0 * MSS);
    }

    #[test]
    fn congestion_avoidance_adds_mss_squared_over_cwnd() {
        let mut r = Reno::new(RenoParams::default(), RecoveryStyle::NewReno);
        let mut w = Window::new(10.0 * MSS, 5.0 * MSS);
        with_ctx(0, |cx| r.on_ack(&new_ack(1000), &mut w, cx));
        assert_eq!(w.cwnd, 10.0 * MSS + MSS * MSS / (10.0 * MSS));
    }

    #[test]
    fn slow_start_stops_at_ssthresh() {
        let mut r = Reno::new(RenoParams::default(), RecoveryStyle::NewReno);
        let mut w = Window::new(4.5 * MSS, 5.0 * MSS);
        with_ctx(0, |cx| r.on_ack(&new_ack(1000), &mut w, cx));
        assert_eq!(w.cwnd, 5.0 * MSS);
    }

    #[test]
    fn fast_retransmit_halves_flight_size_with_two_segment_floor() {
        let mut r = Reno::new(RenoParams::default(), RecoveryStyle::NewReno);
        let mut w = Window::new(20.0 * MSS, f64::INFINITY);
        with_ctx(12_000, |cx| r.on_loss(Loss::FastRetransmit, &mut w, cx));
        assert_eq!(w.ssthresh, 6.0 * MSS);
        assert_eq!(w.cwnd, 6.0 * MSS);
        with_ctx(1_000, |cx| r.on_loss(Loss::FastRetransmit, &mut w, cx));
        assert_eq!(w.ssthresh, 2.0 * MSS);
    }

    #[test]
    fn repeated_timeouts_hold_ssthresh() {
        let mut r = Reno::new(RenoParams::default(), RecoveryStyle::Reno);
        let mut w = Window::new(20.0 * MSS, f64::INFINITY);
        with_ctx(16_000, |cx| r.on_loss(Loss::Timeout { consecutive: 1 }, &mut w, cx));
        assert_eq!((w.cwnd, w.ssthresh), (MSS, 8.0 * MSS));
        with_ctx(16_000, |cx| r.on_loss(Loss::Timeout { consecutive: 2 }, &mut w, cx));
        assert_eq!((w.cwnd, w.ssthresh), (MSS, 8.0 * MSS));
    }

    #[test]
    fn duplicate_acks_do_not_grow_the_window() {
        let mut r = Reno::new(RenoParams::default(), RecoveryStyle::NewReno);
        let mut w = Window::new(10.0 * MSS, f64::INFINITY);
        let dup = AckSample { dup: true, ..AckSample::default() };
        with_ctx(10_000, |cx| r.on_ack(&dup, &mut w, cx));
        assert_eq!(w.cwnd, 10.0 * MSS);
    }

    #[test]
    fn halving_the_pipe_is_available_for_ns3_style_runs() {
        let p = RenoParams { halve: HalveOf::Pipe, ..RenoParams::default() };
        let mut r = Reno::new(p, RecoveryStyle::NewReno);
        let mut w = Window::new(20.0 * MSS, f64::INFINITY);
        with_ctx(14_000, |cx| r.on_loss(Loss::FastRetransmit, &mut w, cx));
        assert_eq!(w.ssthresh, 5.0 * MSS);
    }

    #[test]
    fn an_ecn_echo_halves_the_window_once_per_window() {
        let mut h = crate::testing::Harness::new(Reno::boxed(RenoParams::default(), RecoveryStyle::NewReno));
        for _ in 0..20 {
            h.ack(1, 50_000_000);
        }
        h.fill_window();
        let flight = (h.snd_max - h.snd_una) as f64;
        h.signal(Signal::CongestionMark);
        assert_eq!(h.w.cwnd, flight / 2.0);
        h.signal(Signal::CongestionMark);
        assert_eq!(h.w.cwnd, flight / 2.0);
    }

    #[test]
    fn with_ecn_off_a_mark_leaves_the_window_alone_as_ns2s_default_sender() {
        let p = RenoParams { ecn: false, ..RenoParams::default() };
        let mut h = crate::testing::Harness::new(Reno::boxed(p, RecoveryStyle::NewReno));
        for _ in 0..20 {
            h.ack(1, 50_000_000);
        }
        h.fill_window();
        let (cwnd, ssthresh) = (h.w.cwnd, h.w.ssthresh);
        h.signal(Signal::CongestionMark);
        assert_eq!((h.w.cwnd, h.w.ssthresh), (cwnd, ssthresh));
    }

    #[test]
    fn halving_cwnd_is_available_for_ns2_style_runs() {
        let p = RenoParams { halve: HalveOf::Cwnd, ..RenoParams::default() };
        let mut r = Reno::new(p, RecoveryStyle::NewReno);
        let mut w = Window::new(20.0 * MSS, f64::INFINITY);
        with_ctx(4_000, |cx| r.on_loss(Loss::FastRetransmit, &mut w, cx));
        assert_eq!(w.ssthresh, 10.0 * MSS);
    }
}
