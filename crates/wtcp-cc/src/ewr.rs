//! TCP EWR (transmission control for error-prone wireless regions).
//!
//! I. Ryoo and S. Kim, "Transmission Control for Future Internet including Error-prone
//! Wireless Region", Kyung Hee University (venue and year not printed; funded under
//! reference 20090724), §2, Eq. 1-5 and the pseudo-code.
//!
//! The receiver estimates the available bandwidth from data arrivals (Eq. 1-2) and
//! advertises the optimal window oCwnd = RTTmin * Bw / seg_size (Eq. 3) as its receive
//! window. On a loss the sender sets ssthresh = oCwnd and, by the Vegas-like backlog x
//! (Eq. 4-5), grows by 2 segments (x < alpha), holds (alpha <= x <= beta) or drops to one
//! segment (x > beta).
//!
//! Deviations and ambiguities resolved:
//! - Eq. 1: d_n is the size of the n-th arriving segment (every arrival counts,
//!   retransmissions and out-of-order segments included) and t_n - t_(n-1) the gap to the
//!   previous arrival. The first arrival only sets t_0; the first sample initialises
//!   Eq. 2 (the paper's delta_1 = 0). Arrivals at the same instant are merged into the
//!   next sample, so a zero gap never divides. Eq. 2 uses delta = 0.7 (`delta`).
//! - RTT at the receiver (Eq. 3): the receiver has no RTT sample of its own and the
//!   `ReceiverControl` hooks carry no timestamp echo. `receiver_rtt = "probe"` (default)
//!   measures it from sequence numbers against its own advertisements: a byte beyond
//!   every right edge advertised before time T cannot arrive before T + RTT, so the
//!   arrival time minus the time of the first advertisement covering that byte is an
//!   RTT sample that is never below the path's minimum; RTTmin is the smallest sample
//!   (Linux's receiver-side `tcp_rcv_rtt_measure` in its window-bounded form). Data up to
//!   the first advertised edge gives no sample (the sender may send its initial window
//!   before any ACK). The samples are tight only while the advertised window limits the
//!   sender; otherwise they overestimate and the cap is loose (safe, never throttling).
//!   `receiver_rtt = "fixed"` uses `receiver_rtt_ms` instead: the scenario's base RTT,
//!   for runs that reproduce the paper's receiver-bound window. Before the receiver has
//!   both a bandwidth estimate and an RTT it advertises the free buffer (plain TCP).
//! - "oCwnd_n is used as a receiver-advertised congestion window size": read as the
//!   receiver telling the sender the window to adopt (rule (b)), not as a flow-control
//!   cap (`receiver_caps_window = false`, default). As a cap, the window throttles itself:
//!   the arrival rate measured under a cap of RTTmin x rate is below capacity whenever
//!   arrivals are not perfectly paced (delayed ACKs release segments in pairs), the next
//!   cap is lower, and the flow settles far below the link (54 % of a 2 Mb/s hop at 0 %
//!   loss in `two-hop-wireless`), which contradicts the paper's results at low error
//!   rates. `receiver_caps_window = true` gives the literal cap.
//! - Units of Eq. 3: oCwnd is computed in segments (seg_size = the largest segment seen)
//!   and advertised in bytes, min(oCwnd, buffer_free). oCwnd is floored at
//!   `min_ocwnd_segments` = 2 (not in the paper): with one segment per RTT the arrival
//!   rate is one segment per RTT and Eq. 3 would hold the window at one segment forever;
//!   two back-to-back segments let the estimate see the bottleneck rate.
//! - Pseudo-code (b) "on ACK reception cwnd = oCwnd": the sender cannot read the
//!   advertised window (it only acts through the sender's min(cwnd, rwnd)). It keeps a
//!   mirror of Eq. 1-3: Eq. 1-2 over the receiver arrival times echoed in the timestamps
//!   (`rx_arrival`, one sample per ACK, d = newly delivered bytes, duplicates counting one
//!   segment each as in Westwood+), or over the ACK arrival times when timestamps are off;
//!   RTTmin is the sender's minimum RTT. Without timestamps the mirror sees only ACK
//!   arrivals, and ACK compression (ACKs queued behind reverse traffic leave back to
//!   back) inflates Eq. 1 many times over: run EWR with `tcp.timestamps = true`, the
//!   channel through which its receiver-side estimate reaches the sender here (in
//!   `ewr-dumbbell` with reverse FTP at 0.1 % loss: 6.4 Mb/s with them, 0.36 Mb/s
//!   without, cwnd pushed to 2600 segments). Rule (b) is then split in two halves: the
//!   receiver window enforces cwnd <= oCwnd, and the sender applies cwnd = max(cwnd,
//!   oCwnd_mirror) on each new ACK outside recovery (no slow start back to oCwnd after a
//!   loss). Between losses cwnd grows as NewReno's (RFC 5681 slow start and congestion
//!   avoidance, per-ACK counting): the per-ACK mirror measures the delivery rate, so a
//!   literal cwnd = oCwnd_mirror could never grow, and the pseudo-code's own tests
//!   "cwnd > ssthresh" presuppose a cwnd that differs from oCwnd.
//! - Pseudo-code (c) units: "cwnd = 1" is one segment, "cwnd + 2" is two segments. The
//!   rules run on the third duplicate ACK and on every RTO expiry (the paper's note: +2
//!   "after one RTO"); ssthresh = oCwnd each time, which does not change between
//!   consecutive expiries because the estimate moves only on ACKs.
//! - Eq. 4-5: WindowSize = min(cwnd, FlightSize) (the window actually in use: when the
//!   receiver window binds, cwnd may exceed what is in the network), RTT = SRTT,
//!   RTTmin = the sender's minimum RTT; x = (expected - actual) * RTTmin =
//!   WindowSize * (1 - RTTmin/SRTT) segments, computed at the loss.
//! - Verdict: the congestion state (x > beta) reports `Congestion`; the linear-increase
//!   and wait-and-see states report `Wireless`, as their response does not reduce the
//!   window (the paper calls the middle band "either"; the verdict follows the action).
//! - Recovery: NewReno (RFC 6582). The window set by (c) holds during recovery; at its
//!   end cwnd = max(cwnd, oCwnd_mirror), rule (b) applied to the ACK that ends it.
//! - Until the mirror has an estimate (no bandwidth sample or no RTT yet) a loss gets
//!   Reno's response with verdict `None`.
//! - ECN echo (not in the paper): treated as the paper's "sign of data loss" (RFC 3168
//!   §6.1.2), the same state rules as a fast retransmit, at most once per window.

use serde::Deserialize;

use crate::api::{
    AckSample, CongestionControl, Ctx, Loss, ReceiverControl, RecoveryStyle, Signal, Time, Verdict,
    Window, NS_PER_SEC,
};
use crate::filters::Ewma;
use crate::registry::{AlgorithmInfo, ParamInfo};
use crate::reno::{OncePerWindow, Reno, RenoParams};

const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "delta",
        unit: "ratio",
        default: "0.7",
        doc: "Eq. 2 filter gain delta: weight of the previous estimate (paper: 0.7)",
    },
    ParamInfo {
        name: "alpha",
        unit: "segments",
        default: "1.0",
        doc: "backlog below alpha: linear-increase state (paper: 1)",
    },
    ParamInfo {
        name: "beta",
        unit: "segments",
        default: "9.0",
        doc: "backlog above beta: congestion state, cwnd = 1 segment (paper: 9)",
    },
    ParamInfo {
        name: "linear_increase_segments",
        unit: "segments",
        default: "2.0",
        doc: "increase per loss event in the linear-increase state (paper: 2)",
    },
    ParamInfo {
        name: "min_ocwnd_segments",
        unit: "segments",
        default: "2.0",
        doc: "floor of oCwnd (not in the paper; 2 lets back-to-back segments reveal the bottleneck rate)",
    },
    ParamInfo {
        name: "receiver_rtt",
        unit: "probe|fixed",
        default: "probe",
        doc: "RTTmin at the receiver: measured from its own advertised edges, or receiver_rtt_ms",
    },
    ParamInfo {
        name: "receiver_rtt_ms",
        unit: "ms",
        default: "100.0",
        doc: "RTTmin the receiver uses when receiver_rtt = fixed (set it to the path's base RTT)",
    },
    ParamInfo {
        name: "receiver_caps_window",
        unit: "bool",
        default: "false",
        doc: "the receiver caps its advertised window at oCwnd (literal reading; throttles itself below capacity)",
    },
];

pub const EWR_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "ewr",
    summary: "Receiver estimates bandwidth from arrivals and advertises oCwnd = RTTmin*Bw; on loss ssthresh = oCwnd and a Vegas-like backlog picks +2 segments, hold, or 1 segment.",
    reference: "Ryoo & Kim, Transmission Control for Future Internet including Error-prone Wireless Region (TCP EWR), Kyung Hee University",
    params: PARAMS,
    // Pseudo-code (c): an RTO with a small backlog sets cwnd = oCwnd or cwnd + 2.
    timeout_collapses_window: false,
};

/// How the receiver learns the RTTmin of Eq. 3.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReceiverRtt {
    /// Measured from arrivals against the receiver's own advertised right edges.
    #[default]
    Probe,
    /// The configured `receiver_rtt_ms`.
    Fixed,
}

/// Parameters of TCP EWR.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EwrParams {
    /// Eq. 2 gain delta in [0, 1]: weight of the previous estimate. Paper: 0.7 (0 for the
    /// first sample).
    pub delta: f64,
    /// Backlog threshold alpha in segments ("a few data en route"). Paper: 1.
    pub alpha: f64,
    /// Backlog threshold beta in segments ("too many data en route"). Paper: 9.
    pub beta: f64,
    /// Segments added in the linear-increase state. Paper: 2.
    pub linear_increase_segments: f64,
    /// Floor of oCwnd in segments, at the receiver and in the sender's mirror. Not in
    /// the paper; 2 (RFC 5681's ssthresh floor).
    pub min_ocwnd_segments: f64,
    /// Receiver's RTTmin: `probe` (measured) or `fixed` (`receiver_rtt_ms`). The paper
    /// does not say how its receiver knows RTTmin.
    pub receiver_rtt: ReceiverRtt,
    /// RTTmin in milliseconds used by the receiver when `receiver_rtt = fixed`.
    pub receiver_rtt_ms: f64,
    /// The receiver also caps its advertised window at oCwnd (the literal reading; off by
    /// default, see the module header).
    pub receiver_caps_window: bool,
}

impl Default for EwrParams {
    fn default() -> Self {
        EwrParams {
            delta: 0.7,
            alpha: 1.0,
            beta: 9.0,
            linear_increase_segments: 2.0,
            min_ocwnd_segments: 2.0,
            receiver_rtt: ReceiverRtt::Probe,
            receiver_rtt_ms: 100.0,
            receiver_caps_window: false,
        }
    }
}

/// Eq. 1-2: the arrival-rate estimate, shared by the receiver and the sender's mirror.
#[derive(Clone, Copy, Debug)]
struct ArrivalRate {
    /// Eq. 2 with weight 1 - delta on the new sample; the first sample initialises it.
    filter: Ewma,
    /// t_(n-1), ns.
    last: Option<Time>,
    /// Bytes that arrived at the same instant as t_(n-1), carried into the next sample.
    pending: u64,
}

impl ArrivalRate {
    fn new(delta: f64) -> Self {
        ArrivalRate {
            filter: Ewma::new(1.0 - delta.clamp(0.0, 1.0)),
            last: None,
            pending: 0,
        }
    }

    /// `bytes` arrived at `t`.
    fn on_arrival(&mut self, bytes: u64, t: Time) {
        let Some(prev) = self.last else {
            // n = 1: no previous arrival, nothing to divide by.
            self.last = Some(t);
            return;
        };
        let d = self.pending + bytes;
        if t <= prev {
            self.pending = d;
            return;
        }
        // Eq. 1: Bw_sample(n) = d_n / (t_n - t_(n-1)), bytes/s.
        let sample = d as f64 * NS_PER_SEC / (t - prev) as f64;
        // Eq. 2: Bw_est(n) = Bw_est(n-1) * delta + Bw_sample(n) * (1 - delta).
        self.filter.update(sample);
        self.pending = 0;
        self.last = Some(t);
    }

    /// Bw_estimated in bytes/s.
    fn value(&self) -> Option<f64> {
        self.filter.value()
    }
}

/// Eq. 3: oCwnd = RTTmin * Bw_est / seg_size, in segments, with the floor applied after
/// the conversion.
fn ocwnd_segments(rtt_min: Time, bw: f64, seg_size: f64, floor: f64) -> f64 {
    (rtt_min as f64 / NS_PER_SEC * bw / seg_size).max(floor)
}

/// Right edges kept by the RTT probe; when full the newest entry is widened, which only
/// makes later samples larger (never below the true RTT).
const EDGES: usize = 64;

/// The receiver's RTT probe: (time, right edge) of its advertisements, edges increasing.
#[derive(Clone, Debug)]
struct EdgeProbe {
    edges: [(Time, u64); EDGES],
    head: usize,
    len: usize,
    /// The first advertised right edge: data up to it may precede any ACK.
    first_edge: Option<u64>,
    min_rtt: Option<Time>,
}

impl EdgeProbe {
    fn new() -> Self {
        EdgeProbe {
            edges: [(0, 0); EDGES],
            head: 0,
            len: 0,
            first_edge: None,
            min_rtt: None,
        }
    }

    fn last_edge(&self) -> Option<u64> {
        (self.len > 0).then(|| self.edges[(self.head + self.len - 1) % EDGES].1)
    }

    /// An advertisement at `t` allowing the sender up to `edge`.
    fn on_advertise(&mut self, t: Time, edge: u64) {
        let Some(first) = self.first_edge else {
            self.first_edge = Some(edge);
            return;
        };
        if edge <= self.last_edge().unwrap_or(first) {
            return;
        }
        if self.len == EDGES {
            let last = (self.head + self.len - 1) % EDGES;
            self.edges[last].1 = edge;
        } else {
            self.edges[(self.head + self.len) % EDGES] = (t, edge);
            self.len += 1;
        }
    }

    /// New data ending at `end` arrived at `t`.
    fn on_new_data(&mut self, end: u64, t: Time) {
        match self.first_edge {
            Some(first) if end > first => {}
            _ => return,
        }
        while self.len > 0 && self.edges[self.head].1 < end {
            self.head = (self.head + 1) % EDGES;
            self.len -= 1;
        }
        if self.len > 0 {
            // The first advertisement covering `end` was sent at edges[head].0; the data
            // left the sender after that ACK reached it.
            let sample = t.saturating_sub(self.edges[self.head].0);
            if sample > 0 {
                self.min_rtt = Some(self.min_rtt.map_or(sample, |m| m.min(sample)));
            }
        }
    }
}

/// The receiver half: Eq. 1-3 from arrivals, oCwnd advertised as the receive window.
#[derive(Clone, Debug)]
pub struct EwrReceiver {
    p: EwrParams,
    rate: ArrivalRate,
    /// seg_size of Eq. 3: the largest segment seen, bytes.
    seg_size: u32,
    /// Highest sequence number received + 1.
    highest: u64,
    probe: EdgeProbe,
}

impl EwrReceiver {
    pub fn new(p: EwrParams) -> Self {
        EwrReceiver {
            p,
            rate: ArrivalRate::new(p.delta),
            seg_size: 0,
            highest: 0,
            probe: EdgeProbe::new(),
        }
    }

    /// The RTTmin the receiver uses in Eq. 3, ns.
    pub fn rtt_min(&self) -> Option<Time> {
        match self.p.receiver_rtt {
            ReceiverRtt::Probe => self.probe.min_rtt,
            ReceiverRtt::Fixed => Some((self.p.receiver_rtt_ms.max(0.0) * 1e6) as Time),
        }
    }

    /// Bw_estimated(n), bytes/s.
    pub fn bandwidth(&self) -> Option<f64> {
        self.rate.value()
    }

    /// oCwnd_n in bytes (Eq. 3 in segments times seg_size).
    pub fn ocwnd_bytes(&self) -> Option<f64> {
        let bw = self.rate.value()?;
        let rtt = self.rtt_min()?;
        let seg = f64::from(self.seg_size.max(1));
        Some(ocwnd_segments(rtt, bw, seg, self.p.min_ocwnd_segments) * seg)
    }
}

impl ReceiverControl for EwrReceiver {
    fn on_segment(&mut self, seq: u64, len: u32, arrival: Time) {
        // (a) "When packets successfully arrive at the receiver": Eq. 1-2.
        self.seg_size = self.seg_size.max(len);
        self.rate.on_arrival(u64::from(len), arrival);
        let end = seq + u64::from(len);
        if end > self.highest {
            self.probe.on_new_data(end, arrival);
            self.highest = end;
        }
    }

    fn advertised_window(&mut self, buffer_free: u64, now: Time) -> u64 {
        // Eq. 3: oCwnd is the receiver-advertised window (capped by the free buffer).
        let win = match self.ocwnd_bytes() {
            Some(o) if self.p.receiver_caps_window => (o as u64).min(buffer_free),
            _ => buffer_free,
        };
        self.probe
            .on_advertise(now, self.highest.saturating_add(win));
        win
    }
}

/// Which branch of pseudo-code (c) the last loss took (for traces).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EerState {
    /// No loss handled by the EER rules yet.
    None,
    /// x < alpha.
    LinearIncrease,
    /// alpha <= x <= beta.
    WaitAndSee,
    /// x > beta.
    Congestion,
}

/// The sender half of TCP EWR.
#[derive(Clone, Debug)]
pub struct Ewr {
    p: EwrParams,
    /// The sender's mirror of Eq. 1-2 over echoed receiver arrival times.
    rate: ArrivalRate,
    /// Bytes already counted for duplicate ACKs (Westwood+ accounting).
    dup_counted: u64,
    /// The sender's RTTmin and MSS at the last hook (for traces).
    rtt_min: Option<Time>,
    mss: f64,
    /// Backlog x at the last loss, segments.
    last_x: f64,
    state: EerState,
    /// At most one ECN response per window (RFC 3168 §6.1.2).
    ecn: OncePerWindow,
}

impl Ewr {
    pub fn new(p: EwrParams) -> Self {
        Ewr {
            p,
            rate: ArrivalRate::new(p.delta),
            dup_counted: 0,
            rtt_min: None,
            mss: 0.0,
            last_x: 0.0,
            state: EerState::None,
            ecn: OncePerWindow::default(),
        }
    }

    /// Bytes reported delivered by this ACK: a duplicate reports one segment, a new ACK
    /// what it acknowledges minus what duplicates already reported (at least a segment).
    fn delivered_bytes(&mut self, ack: &AckSample, mss: u64) -> u64 {
        if ack.dup {
            self.dup_counted += mss;
            return mss;
        }
        if ack.acked_bytes == 0 {
            return 0;
        }
        if ack.acked_bytes > self.dup_counted {
            let d = ack.acked_bytes - self.dup_counted;
            self.dup_counted = 0;
            d
        } else {
            self.dup_counted -= ack.acked_bytes;
            mss
        }
    }

    /// The mirror's oCwnd in bytes.
    fn ocwnd_bytes(&self) -> Option<f64> {
        let bw = self.rate.value()?;
        let rtt = self.rtt_min?;
        Some(ocwnd_segments(rtt, bw, self.mss, self.p.min_ocwnd_segments) * self.mss)
    }

    /// Eq. 4-5: backlog x in segments.
    fn backlog(w: &Window, cx: &Ctx) -> f64 {
        let mss = cx.mss_f();
        let (Some(min), Some(srtt)) = (cx.rtt.min_rtt(), cx.rtt.srtt()) else {
            return 0.0;
        };
        if srtt == 0 {
            return 0.0;
        }
        let window = w.cwnd.min(cx.flight_size as f64) / mss;
        let (min_s, srtt_s) = (min as f64 / NS_PER_SEC, srtt as f64 / NS_PER_SEC);
        // Eq. 4: expected = WindowSize / RTTmin; Eq. 5: actual = WindowSize / RTT.
        let expected = window / min_s;
        let actual = window / srtt_s;
        // x = D * RTTmin, D = expected - actual.
        (expected - actual) * min_s
    }

    /// Pseudo-code (c): the enhanced error recovery on a sign of loss.
    fn respond(&mut self, loss: Loss, w: &mut Window, cx: &Ctx) -> Verdict {
        self.refresh(cx);
        let Some(ocwnd) = self.ocwnd_bytes() else {
            Reno::respond(&RenoParams::default(), loss, w, cx);
            return Verdict::None;
        };
        let mss = cx.mss_f();
        let x = Self::backlog(w, cx);
        self.last_x = x;
        // Every branch: ssthresh = oCwnd_n.
        w.ssthresh = ocwnd;
        self.state = if x < self.p.alpha {
            if w.cwnd > w.ssthresh {
                w.cwnd = ocwnd;
            } else {
                // Linear increase state: cwnd = cwnd + 2.
                w.cwnd += self.p.linear_increase_segments * mss;
            }
            EerState::LinearIncrease
        } else if x <= self.p.beta {
            if w.cwnd > w.ssthresh {
                w.cwnd = ocwnd;
            }
            // Wait-and-see state: cwnd is retained.
            EerState::WaitAndSee
        } else {
            // Congestion state: cwnd = 1.
            w.cwnd = mss;
            EerState::Congestion
        };
        match self.state {
            EerState::Congestion => Verdict::Congestion,
            _ => Verdict::Wireless,
        }
    }

    fn refresh(&mut self, cx: &Ctx) {
        self.rtt_min = cx.rtt.min_rtt();
        self.mss = cx.mss_f();
    }
}

impl CongestionControl for Ewr {
    fn name(&self) -> &'static str {
        "ewr"
    }

    fn recovery_style(&self) -> RecoveryStyle {
        RecoveryStyle::NewReno
    }

    fn init(&mut self, _w: &mut Window, cx: &mut Ctx) {
        self.refresh(cx);
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        self.refresh(cx);
        // Mirror of (a): Eq. 1-2 over the receiver's arrival times (ACK times without TS).
        let d = self.delivered_bytes(ack, u64::from(cx.mss));
        if d > 0 {
            self.rate.on_arrival(d, ack.rx_arrival.unwrap_or(cx.now));
        }
        if ack.dup || ack.in_recovery || ack.acked_bytes == 0 {
            return;
        }
        Reno::grow(&RenoParams::default(), ack, w, cx.mss_f());
        // (b) cwnd = oCwnd_n: the receiver window caps from above; here, no slower start.
        if let Some(o) = self.ocwnd_bytes() {
            w.cwnd = w.cwnd.max(o);
        }
    }

    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
        self.ecn.reduced(cx);
        self.respond(loss, w, cx)
    }

    fn on_recovery_exit(&mut self, w: &mut Window, cx: &mut Ctx) {
        self.refresh(cx);
        // (b) on the ACK that ends recovery.
        w.cwnd = match self.ocwnd_bytes() {
            Some(o) => w.cwnd.max(o),
            None => w.ssthresh,
        };
    }

    fn on_signal(&mut self, signal: Signal, w: &mut Window, cx: &mut Ctx) {
        if signal == Signal::CongestionMark && self.ecn.allows(cx) {
            self.respond(Loss::FastRetransmit, w, cx);
            self.ecn.reduced(cx);
        }
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("bwe_bytes_per_s", self.rate.value().unwrap_or(f64::NAN)));
        let seg = if self.mss > 0.0 { self.mss } else { f64::NAN };
        out.push((
            "ocwnd_segments",
            self.ocwnd_bytes().map_or(f64::NAN, |o| o / seg),
        ));
        out.push((
            "rtt_min_s",
            self.rtt_min.map_or(f64::NAN, |r| r as f64 / NS_PER_SEC),
        ));
        out.push(("backlog_segments", self.last_x));
        let state = match self.state {
            EerState::None => 0.0,
            EerState::LinearIncrease => 1.0,
            EerState::WaitAndSee => 2.0,
            EerState::Congestion => 3.0,
        };
        out.push(("eer_state", state));
    }
}

pub fn build(p: &EwrParams) -> Box<dyn CongestionControl> {
    Box::new(Ewr::new(*p))
}

pub fn build_receiver(p: &EwrParams) -> Option<Box<dyn ReceiverControl>> {
    Some(Box::new(EwrReceiver::new(*p)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Harness, MSS};

    const MS: Time = 1_000_000;
    const SEG: f64 = MSS as f64;

    /// A new ACK of one segment whose data reached the receiver at `rx`, with RTT `rtt`.
    fn ack_at(h: &mut Harness, rx: Time, rtt: Time) {
        h.fill_window();
        h.now = h.now.max(rx) + rtt / 2;
        h.snd_una += u64::from(MSS);
        h.rtt.on_sample(rtt);
        let s = AckSample {
            ack: h.snd_una,
            acked_bytes: u64::from(MSS),
            rtt: Some(rtt),
            rx_arrival: Some(rx),
            delivered: h.snd_una,
            ..AckSample::default()
        };
        h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
    }

    /// Twenty one-segment arrivals 1 ms apart (1 MB/s) with RTT 50 ms: the mirror's
    /// estimate is exactly 1e6 B/s and RTTmin 50 ms, so oCwnd = 50 segments.
    fn primed() -> Harness {
        let mut h = Harness::new(build(&EwrParams::default()));
        for i in 0..20 {
            ack_at(&mut h, i * MS, 50 * MS);
        }
        h
    }

    fn ocwnd_of_primed() -> f64 {
        // Eq. 3 recomputed: 0.050 s * 1e6 B/s / 1000 B = 50 segments.
        0.050 * 1e6 / SEG * SEG
    }

    /// Raise SRTT (RTTmin stays 50 ms) and send exactly `cwnd_segs` segments.
    fn set_backlog(h: &mut Harness, srtt_samples: &[Time], cwnd_segs: f64) -> f64 {
        for &r in srtt_samples {
            h.rtt.on_sample(r);
        }
        h.w.cwnd = cwnd_segs * SEG;
        h.snd_max = h.snd_una;
        h.fill_window();
        // Eq. 4-5 recomputed: x = W/RTTmin*RTTmin - W/SRTT*RTTmin.
        let min = h.rtt.min_rtt().unwrap() as f64;
        let srtt = h.rtt.srtt().unwrap() as f64;
        cwnd_segs - cwnd_segs * min / srtt
    }

    #[test]
    fn receiver_estimate_follows_eq_1_and_2_on_a_hand_made_arrival_sequence() {
        let p = EwrParams {
            receiver_rtt: ReceiverRtt::Fixed,
            receiver_rtt_ms: 100.0,
            receiver_caps_window: true,
            ..EwrParams::default()
        };
        let mut r = EwrReceiver::new(p);
        // Arrivals of 1000 B at 0, 10, 15 and 35 ms.
        for (i, t) in [0, 10, 15, 35].into_iter().enumerate() {
            r.on_segment(i as u64 * 1000, 1000, t * MS);
        }
        // Eq. 1: 1000/0.010 = 1e5, 1000/0.005 = 2e5, 1000/0.020 = 5e4 B/s.
        // Eq. 2 (delta 0.7, delta_1 = 0): 1e5, then 0.7*1e5 + 0.3*2e5, then ...
        let e2 = 0.7 * 1e5 + 0.3 * 2e5;
        let e3 = 0.7 * e2 + 0.3 * 5e4;
        let bw = r.bandwidth().unwrap();
        assert!((bw - e3).abs() < 1e-6, "{bw} vs {e3}");
        // Eq. 3: oCwnd = 0.1 s * Bw / 1000 B segments, advertised in bytes.
        let ocwnd = 0.1 * e3 / 1000.0 * 1000.0;
        let adv = r.advertised_window(1 << 20, 40 * MS) as f64;
        assert!((adv - ocwnd).abs() <= 1.0, "{adv} vs {ocwnd}");
        // min(oCwnd, buffer_free).
        assert_eq!(r.advertised_window(3000, 40 * MS), 3000);
    }

    #[test]
    fn receiver_merges_simultaneous_arrivals_and_advertises_the_buffer_before_an_estimate() {
        let mut r = EwrReceiver::new(EwrParams {
            receiver_rtt: ReceiverRtt::Fixed,
            ..EwrParams::default()
        });
        assert_eq!(r.advertised_window(65_536, 0), 65_536);
        r.on_segment(0, 1000, 5 * MS);
        r.on_segment(1000, 1000, 5 * MS);
        assert_eq!(r.bandwidth(), None);
        r.on_segment(2000, 1000, 7 * MS);
        // Two segments over the 2 ms gap: 2000 B / 0.002 s.
        assert!((r.bandwidth().unwrap() - 1e6).abs() < 1e-6);
    }

    #[test]
    fn receiver_rtt_probe_measures_from_the_first_advertisement_covering_the_data() {
        let mut r = EwrReceiver::new(EwrParams::default());
        // First ACK at 0 ms advertises up to 1000 + 5000: that data may precede any ACK.
        r.on_segment(0, 1000, 0);
        assert_eq!(r.advertised_window(5000, 0), 5000);
        r.on_segment(1000, 1000, MS);
        // Second advertisement at 1 ms: right edge 2000 + 5000 = 7000.
        r.advertised_window(5000, MS);
        for k in 2..6 {
            r.on_segment(k * 1000, 1000, (k + 1) * MS);
        }
        assert_eq!(
            r.rtt_min(),
            None,
            "data within the first edge gives no sample"
        );
        // Bytes 6000..7000 were allowed only by the ACK sent at 1 ms; they arrive at 81 ms.
        r.on_segment(6000, 1000, 81 * MS);
        assert_eq!(r.rtt_min(), Some(80 * MS));
        // A retransmission (no new data) is not a sample.
        r.on_segment(3000, 1000, 90 * MS);
        assert_eq!(r.rtt_min(), Some(80 * MS));
    }

    #[test]
    fn sender_mirror_gives_ocwnd_from_echoed_arrival_times_and_lifts_cwnd_to_it() {
        let mut h = primed();
        let mut v = Vec::new();
        h.cc.trace_vars(&mut v);
        let get = |n: &str| v.iter().find(|(k, _)| *k == n).unwrap().1;
        assert!((get("bwe_bytes_per_s") - 1e6).abs() < 1e-6);
        assert!((get("ocwnd_segments") - 50.0).abs() < 1e-9);
        // (b): after a collapse, the next new ACK restores cwnd to oCwnd, no slow start.
        h.w.cwnd = SEG;
        ack_at(&mut h, 20 * MS, 50 * MS);
        assert!((h.w.cwnd - ocwnd_of_primed()).abs() < 1e-6);
    }

    #[test]
    fn small_backlog_linear_increase_adds_two_segments_below_ocwnd() {
        let mut h = primed();
        let x = set_backlog(&mut h, &[], 20.0);
        assert!(x < 1.0);
        let v = h.loss(Loss::FastRetransmit);
        assert_eq!(v, Verdict::Wireless);
        assert!((h.w.ssthresh - ocwnd_of_primed()).abs() < 1e-6);
        assert_eq!(h.w.cwnd, 22.0 * SEG);
    }

    #[test]
    fn small_backlog_above_ocwnd_drops_to_ocwnd() {
        let mut h = primed();
        let x = set_backlog(&mut h, &[], 80.0);
        assert!(x < 1.0);
        assert_eq!(h.loss(Loss::Timeout { consecutive: 1 }), Verdict::Wireless);
        assert!((h.w.cwnd - ocwnd_of_primed()).abs() < 1e-6);
        assert!((h.w.ssthresh - ocwnd_of_primed()).abs() < 1e-6);
    }

    #[test]
    fn medium_backlog_wait_and_see_retains_cwnd() {
        let mut h = primed();
        // SRTT rises towards 100 ms: x = 10 * (1 - 50/SRTT) lies in [1, 9].
        let x = set_backlog(&mut h, &[100 * MS; 12], 10.0);
        assert!((1.0..=9.0).contains(&x), "x = {x}");
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Wireless);
        assert_eq!(h.w.cwnd, 10.0 * SEG);
        assert!((h.w.ssthresh - ocwnd_of_primed()).abs() < 1e-6);
    }

    #[test]
    fn large_backlog_congestion_state_collapses_to_one_segment() {
        let mut h = primed();
        let x = set_backlog(&mut h, &[100 * MS; 12], 40.0);
        assert!(x > 9.0, "x = {x}");
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Congestion);
        assert_eq!(h.w.cwnd, SEG);
        assert!((h.w.ssthresh - ocwnd_of_primed()).abs() < 1e-6);
        // Leaving recovery applies (b): cwnd = oCwnd.
        h.exit_recovery();
        assert!((h.w.cwnd - ocwnd_of_primed()).abs() < 1e-6);
    }

    #[test]
    fn repeated_timeouts_keep_ssthresh_and_keep_adding_two_segments() {
        let mut h = primed();
        set_backlog(&mut h, &[], 10.0);
        h.loss(Loss::Timeout { consecutive: 1 });
        let first = h.w.ssthresh;
        h.loss(Loss::Timeout { consecutive: 2 });
        assert_eq!(h.w.ssthresh, first);
        assert_eq!(h.w.cwnd, 14.0 * SEG);
    }

    #[test]
    fn before_any_estimate_a_loss_gets_renos_response() {
        let mut h = Harness::new(build(&EwrParams::default()));
        h.snd_max = h.snd_una;
        h.fill_window();
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::None);
        assert_eq!(h.w.ssthresh, 5.0 * SEG);
    }

    #[test]
    fn duplicate_acks_do_not_grow_the_window() {
        let mut h = primed();
        let before = h.w.cwnd;
        h.dup_ack();
        h.dup_ack();
        assert!(h.w.cwnd <= before);
    }

}
