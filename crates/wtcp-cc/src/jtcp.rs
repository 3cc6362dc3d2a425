//! JTCP: jitter-based TCP.
//!
//! E. H.-K. Wu and M.-Z. Chen, "JTCP: Jitter-Based TCP for Heterogeneous Wireless
//! Networks", IEEE JSAC 22(4):757-766, May 2004. Specification: a summary of that paper
//! that could be only partly confirmed against its full text (which is not shipped here);
//! this module implements the parameterised reading of that summary and exposes each
//! uncertain choice as a parameter.
//!
//! JTCP compares the spacing of data segments at the receiver with their spacing at the
//! sender (the jitter ratio); at a loss, a ratio above 1/cwnd means the queue grows faster
//! than the flow's own additive increase (congestion, Reno's cut), otherwise the loss is taken
//! as a wireless loss and the window is kept.
//!
//! Deviations and ambiguities resolved (all [UNCONF] in the specification):
//! - Timing: S_i = the send time echoed on the ACK (`ts_echo`, TSecr), R_i = the receiver's
//!   arrival time of the segment that triggered it (`rx_arrival`); only differences are used.
//!   Duplicate ACKs and ACKs in fast recovery are not sampled (their TSecr does not advance and
//!   they concern retransmissions, Karn-like), and the sample history is cleared at every
//!   loss, so no interval spans a loss episode.
//! - Per-sample jitter ratio (§7): J_i = ((R_i - R_{i-1}) - (S_i - S_{i-1})) / (S_i - S_{i-1}).
//!   The averaged ratio Jr over the last window of data (the samples whose ACKs lie within
//!   cwnd bytes of the last one, k ~ packets in a window) is by default the ratio of sums,
//!   Jr = ((R_n - R_m) - (S_n - S_m)) / (S_n - S_m) (`average = "window_ratio"`): the sum of
//!   the spacing changes over the window divided by the window's send duration. This is the
//!   quantity the 1/cwnd rationale measures (one extra packet time per window), and it is not
//!   dominated by segments sent back to back (S_i - S_{i-1} near 0), which the arithmetic
//!   mean of J_i (`"mean_of_ratios"`, algorithms.md's formula, samples with S_i = S_{i-1}
//!   skipped) is. `"ewma"` averages J_i with gain `ewma_gain` instead.
//! - History: at most `history` ACK samples are kept (allocated once); a window longer than
//!   that is measured over the samples kept.
//! - Classification at a fast retransmit or a timeout: congestion if Jr > `threshold_scale` /
//!   cwnd (cwnd in segments; scale 1 as in §7), else wireless. With no usable interval
//!   (timestamps off, or fewer than two samples since the last loss) the loss is congestion,
//!   so JTCP degrades to NewReno rather than to a sender that never backs off.
//! - Congestion: Reno's response (`Reno::respond`, the quantity halved is `halve`).
//!   Wireless fast retransmit: ssthresh = max(`wireless_factor` * cwnd, 2 SMSS), cwnd =
//!   ssthresh (factor 1: the window is kept; the loss still ends slow start). Wireless
//!   timeout: ssthresh likewise, cwnd = 1 segment (go-back-N restarts in slow start back to
//!   the old window). A repeated expiry keeps ssthresh (RFC 5681 §3.1).
//! - Growth: Reno's (RFC 5681 per ACK). `hold_growth_above_threshold` (off by default; the
//!   paper "may also use Jr to moderate the CA increase") freezes congestion avoidance while
//!   the EWMA of J_i exceeds the threshold.
//! - Fast recovery: NewReno (RFC 6582).

use serde::Deserialize;

use crate::api::{AckSample, CongestionControl, Ctx, Loss, RecoveryStyle, Time, Verdict, Window};
use crate::filters::Ewma;
use crate::registry::{AlgorithmInfo, ParamInfo, Range, MAX_SEGMENTS};
use crate::reno::{HalveOf, Reno, RenoParams};

const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "average",
        unit: "window_ratio|mean_of_ratios|ewma",
        default: "window_ratio",
        doc: "Jr over the last window: ratio of summed spacing changes to send duration, mean of per-ACK J_i (algorithms.md), or an EWMA of J_i",
        range: Range::Any,
    },
    ParamInfo {
        name: "ewma_gain",
        unit: "fraction",
        default: "0.125",
        doc: "gain of the EWMA of J_i (average = ewma, and hold_growth_above_threshold)",
        range: Range::above(0.0, 1.0),
    },
    ParamInfo {
        name: "threshold_scale",
        unit: "segments",
        default: "1.0",
        doc: "a loss is congestion when Jr > threshold_scale / cwnd (cwnd in segments; algorithms.md: 1)",
        range: Range::closed(0.0, MAX_SEGMENTS),
    },
    ParamInfo {
        name: "wireless_factor",
        unit: "fraction",
        default: "1.0",
        doc: "on a wireless loss ssthresh = max(factor*cwnd, 2 SMSS) (1: no reduction)",
        range: Range::closed(0.0, 1.0),
    },
    ParamInfo {
        name: "history",
        unit: "ACKs",
        default: "256",
        doc: "most ACK samples kept for Jr",
        range: Range::closed(2.0, MAX_HISTORY as f64),
    },
    ParamInfo {
        name: "hold_growth_above_threshold",
        unit: "bool",
        default: "false",
        doc: "freeze congestion avoidance while the EWMA of J_i exceeds the threshold",
        range: Range::Any,
    },
    ParamInfo {
        name: "halve",
        unit: "flight_size|cwnd|pipe",
        default: "flight_size",
        doc: "quantity Reno's congestion response halves: FlightSize (RFC 5681), cwnd (ns-2, Linux) or pipe (ns-3)",
        range: Range::Any,
    },
];

pub const JTCP_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "jtcp",
    summary: "Jitter ratio from receiver timestamps classifies each loss: above 1/cwnd congestion (Reno's cut), else wireless (window kept).",
    reference: "Wu & Chen, IEEE JSAC 22(4):757-766, 2004",
    params: PARAMS,
    timeout_collapses_window: true,
    constraints: &[],
};

/// How the per-ACK jitter ratios are averaged into Jr.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JitterAverage {
    /// Sum of spacing changes over the last window divided by its send duration.
    #[default]
    WindowRatio,
    /// Arithmetic mean of J_i over the last window (algorithms.md §7).
    MeanOfRatios,
    /// EWMA of J_i with `ewma_gain`.
    Ewma,
}

/// Most ACK samples `history` may keep: 2^20, the segments of a 2^30-byte window (RFC 7323
/// §2.3's largest) at 1024-byte segments; 24 MiB of samples per flow.
pub const MAX_HISTORY: usize = 1 << 20;

/// Bytes of the sample history `p` allocates (for the resource estimate of a run).
pub fn history_bytes(p: &JtcpParams) -> u64 {
    (p.history.max(2) * std::mem::size_of::<Sample>()) as u64
}

/// Parameters of JTCP.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JtcpParams {
    /// Averaging of J_i into Jr: `window_ratio` (default), `mean_of_ratios` (algorithms.md's
    /// (1/k) sum J_i), `ewma`. Paper: not confirmed.
    pub average: JitterAverage,
    /// EWMA gain for `average = "ewma"` and for the growth hold, fraction. Not in the paper: 1/8.
    pub ewma_gain: f64,
    /// Congestion when Jr > threshold_scale / cwnd (segments). algorithms.md §7: 1.
    pub threshold_scale: f64,
    /// Wireless loss: ssthresh = max(wireless_factor * cwnd, 2 SMSS). algorithms.md §7: no
    /// reduction (1); "or a mild reduction, configurable".
    pub wireless_factor: f64,
    /// ACK samples kept for Jr (allocated once). 256.
    pub history: usize,
    /// Freeze congestion avoidance while the EWMA of J_i is above the threshold. Off
    /// (algorithms.md: "may also use Jr to moderate the CA increase", unconfirmed).
    pub hold_growth_above_threshold: bool,
    /// Quantity Reno's congestion response halves: `flight_size` (RFC 5681), `cwnd` (ns-2,
    /// Linux) or `pipe` (ns-3).
    pub halve: HalveOf,
}

impl Default for JtcpParams {
    fn default() -> Self {
        JtcpParams {
            average: JitterAverage::WindowRatio,
            ewma_gain: 0.125,
            threshold_scale: 1.0,
            wireless_factor: 1.0,
            history: 256,
            hold_growth_above_threshold: false,
            halve: HalveOf::FlightSize,
        }
    }
}

/// One timed ACK: cumulative ACK, echoed send time S_i, receiver arrival time R_i (ns).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Sample {
    ack: u64,
    sent: Time,
    arrived: Time,
}

/// The mutable state of one JTCP sender.
#[derive(Clone, Debug)]
struct JtcpState {
    /// Ring buffer of the latest samples since the last loss.
    ring: Vec<Sample>,
    /// Index of the oldest sample and number held.
    head: usize,
    len: usize,
    /// EWMA of J_i since the last loss.
    ewma: Ewma,
    /// Jr at the last loss, for traces.
    last_jr: Option<f64>,
    /// Threshold 1/cwnd at the last loss, for traces.
    last_threshold: f64,
}

impl JtcpState {
    fn get(&self, i: usize) -> Sample {
        self.ring[(self.head + i) % self.ring.len()]
    }

    fn push(&mut self, s: Sample) {
        let cap = self.ring.len();
        if self.len < cap {
            self.ring[(self.head + self.len) % cap] = s;
            self.len += 1;
        } else {
            self.ring[self.head] = s;
            self.head = (self.head + 1) % cap;
        }
    }

    fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
        self.ewma.reset();
    }
}

/// Per-sample jitter ratio J_i, `None` when S_i <= S_{i-1}.
fn jitter(prev: Sample, cur: Sample) -> Option<f64> {
    let ds = cur.sent.checked_sub(prev.sent).filter(|&d| d > 0)? as f64;
    let dr = cur.arrived as f64 - prev.arrived as f64;
    // §7: J_i = ((R_i - R_{i-1}) - (S_i - S_{i-1})) / (S_i - S_{i-1})
    Some((dr - ds) / ds)
}

/// JTCP sender.
#[derive(Clone, Debug)]
pub struct Jtcp {
    params: JtcpParams,
    reno: RenoParams,
    s: JtcpState,
}

impl Jtcp {
    pub fn new(params: JtcpParams) -> Self {
        Jtcp {
            params,
            reno: RenoParams { halve: params.halve, ..RenoParams::default() },
            s: JtcpState {
                ring: vec![Sample::default(); params.history.max(2)],
                head: 0,
                len: 0,
                ewma: Ewma::new(params.ewma_gain.clamp(f64::MIN_POSITIVE, 1.0)),
                last_jr: None,
                last_threshold: 0.0,
            },
        }
    }

    /// Jr over the last `window` bytes of acknowledged data; `None` without an interval.
    pub fn jitter_ratio(&self, window: f64) -> Option<f64> {
        if self.params.average == JitterAverage::Ewma {
            return self.s.ewma.value();
        }
        if self.s.len < 2 {
            return None;
        }
        let last = self.s.get(self.s.len - 1);
        // The oldest sample within one window of data of the last one (at least one interval).
        let mut first = self.s.len - 2;
        while first > 0 && (last.ack.saturating_sub(self.s.get(first - 1).ack) as f64) <= window {
            first -= 1;
        }
        match self.params.average {
            JitterAverage::WindowRatio => {
                let m = self.s.get(first);
                let ds = last.sent.checked_sub(m.sent).filter(|&d| d > 0)? as f64;
                let dr = last.arrived as f64 - m.arrived as f64;
                // Jr = (sum (dR_i - dS_i)) / (sum dS_i) over the window.
                Some((dr - ds) / ds)
            }
            _ => {
                // Jr = (1/k) sum J_i over the window's intervals with S_i > S_{i-1}.
                let (mut sum, mut k) = (0.0, 0u32);
                for i in first + 1..self.s.len {
                    if let Some(j) = jitter(self.s.get(i - 1), self.s.get(i)) {
                        sum += j;
                        k += 1;
                    }
                }
                (k > 0).then(|| sum / f64::from(k))
            }
        }
    }

    /// The classification threshold threshold_scale / cwnd (cwnd in segments).
    fn threshold(&self, w: &Window, mss: f64) -> f64 {
        self.params.threshold_scale / (w.cwnd / mss).max(1.0)
    }

    /// Verdict for a loss now: congestion when Jr > threshold or Jr is unknown.
    fn classify(&mut self, w: &Window, mss: f64) -> Verdict {
        let threshold = self.threshold(w, mss);
        let jr = self.jitter_ratio(w.cwnd);
        self.s.last_jr = jr;
        self.s.last_threshold = threshold;
        match jr {
            Some(j) if j <= threshold => Verdict::Wireless,
            _ => Verdict::Congestion,
        }
    }
}

pub fn build(p: &JtcpParams) -> Box<dyn CongestionControl> {
    Box::new(Jtcp::new(*p))
}

impl CongestionControl for Jtcp {
    fn name(&self) -> &'static str {
        JTCP_INFO.name
    }

    fn recovery_style(&self) -> RecoveryStyle {
        RecoveryStyle::NewReno
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        let mss = cx.mss_f();
        if ack.dup || ack.in_recovery || ack.acked_bytes == 0 {
            return;
        }
        if let (Some(sent), Some(arrived)) = (ack.ts_echo, ack.rx_arrival) {
            let cur = Sample { ack: ack.ack, sent, arrived };
            if self.s.len > 0 {
                if let Some(j) = jitter(self.s.get(self.s.len - 1), cur) {
                    self.s.ewma.update(j);
                }
            }
            self.s.push(cur);
        }
        if self.params.hold_growth_above_threshold && w.cwnd >= w.ssthresh {
            if let Some(j) = self.s.ewma.value() {
                if j > self.threshold(w, mss) {
                    return;
                }
            }
        }
        Reno::grow(&self.reno, ack, w, mss);
    }

    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
        let mss = cx.mss_f();
        // Repeated expiries keep the first one's classification and ssthresh.
        let verdict = match loss {
            Loss::Timeout { consecutive } if consecutive > 1 => {
                w.cwnd = mss;
                return if self.s.last_jr.is_some_and(|j| j <= self.s.last_threshold) {
                    Verdict::Wireless
                } else {
                    Verdict::Congestion
                };
            }
            _ => self.classify(w, mss),
        };
        match verdict {
            Verdict::Wireless => {
                // Wireless loss: no reduction (or the mild one `wireless_factor` gives).
                w.ssthresh = (self.params.wireless_factor * w.cwnd).max(2.0 * mss);
                w.cwnd = match loss {
                    Loss::FastRetransmit => w.ssthresh,
                    Loss::Timeout { .. } => mss,
                };
            }
            _ => Reno::respond(&self.reno, loss, w, cx),
        }
        self.s.clear();
        verdict
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("jitter_ratio_ewma", self.s.ewma.value().unwrap_or(f64::NAN)));
        out.push(("loss_jitter_ratio", self.s.last_jr.unwrap_or(f64::NAN)));
        out.push(("loss_threshold", self.s.last_threshold));
        out.push(("samples", self.s.len as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Harness, MSS};

    const MS: u64 = 1_000_000;
    const M: f64 = MSS as f64;

    /// An ACK of one segment arriving `gap` after the last event; the segment it acknowledges
    /// was sent at `sent` and reached the receiver at `arrived`.
    fn timed_ack(h: &mut Harness, gap: u64, sent: Time, arrived: Time) {
        h.fill_window();
        h.now += gap;
        let bytes = u64::from(MSS).min(h.snd_max - h.snd_una);
        h.snd_una += bytes;
        h.dupacks = 0;
        h.rtt.on_sample(100 * MS);
        let s = AckSample {
            ack: h.snd_una,
            acked_bytes: bytes,
            rtt: Some(100 * MS),
            rx_arrival: Some(arrived),
            ts_echo: Some(sent),
            delivered: h.snd_una,
            ..AckSample::default()
        };
        h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
    }

    /// Segments sent every 10 ms; the receiver sees them `10 ms + stretch` apart.
    fn run(h: &mut Harness, n: u64, stretch: u64) -> Vec<(Time, Time)> {
        let mut v = Vec::new();
        for i in 1..=n {
            let sent = 1_000 * MS + i * 10 * MS;
            let arrived = 2_000 * MS + i * (10 * MS + stretch);
            timed_ack(h, 10 * MS, sent, arrived);
            v.push((sent, arrived));
        }
        v
    }

    fn with_window(p: JtcpParams, cwnd_segments: f64) -> Harness {
        let mut h = Harness::new(build(&p));
        h.w = Window::new(cwnd_segments * M, 5.0 * M);
        h
    }

    #[test]
    fn jitter_sample_is_the_relative_change_of_spacing() {
        let a = Sample { ack: 1000, sent: 100, arrived: 1_000 };
        let b = Sample { ack: 2000, sent: 110, arrived: 1_013 };
        assert_eq!(jitter(a, b), Some((13.0 - 10.0) / 10.0));
        assert_eq!(jitter(b, Sample { sent: 110, ..b }), None);
    }

    #[test]
    fn constant_spacing_makes_a_loss_wireless_and_keeps_the_window() {
        let mut h = with_window(JtcpParams::default(), 20.0);
        run(&mut h, 30, 0);
        let cwnd = h.w.cwnd;
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Wireless);
        assert_eq!((h.w.cwnd, h.w.ssthresh), (cwnd, cwnd));
    }

    #[test]
    fn growing_spacing_above_one_over_cwnd_makes_a_loss_congestion() {
        // Receiver spacing stretched by 2 ms per 10 ms: Jr = 0.2 > 1/cwnd.
        let mut h = with_window(JtcpParams::default(), 20.0);
        let v = run(&mut h, 30, 2 * MS);
        let cwnd = h.w.cwnd;
        // Recompute Jr over the window: the samples within cwnd bytes of the last ACK.
        let k = (cwnd / M) as usize; // one segment per ACK
        let (s0, r0) = v[v.len() - 1 - k];
        let (s1, r1) = v[v.len() - 1];
        let jr = ((r1 - r0) as f64 - (s1 - s0) as f64) / (s1 - s0) as f64;
        assert!(jr > M / cwnd);
        h.fill_window();
        let flight = (h.snd_max - h.snd_una) as f64;
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Congestion);
        assert_eq!(h.w.ssthresh, (flight / 2.0).max(2.0 * M), "RFC 5681 eq. 4");
        let mut vars = Vec::new();
        h.cc.trace_vars(&mut vars);
        let traced = vars.iter().find(|(n, _)| *n == "loss_jitter_ratio").map(|p| p.1).unwrap_or(f64::NAN);
        assert!((traced - jr).abs() < 1e-12, "{traced} vs {jr}");
    }

    #[test]
    fn the_threshold_scales_with_one_over_cwnd() {
        // Stretch 0.3 ms per 10 ms: Jr = 0.03, below 1/cwnd for about 20-24 segments, above it
        // for about 50-52.
        let mut small = with_window(JtcpParams::default(), 20.0);
        run(&mut small, 80, 300_000);
        assert_eq!(small.loss(Loss::FastRetransmit), Verdict::Wireless);
        let mut large = with_window(JtcpParams::default(), 50.0);
        run(&mut large, 80, 300_000);
        assert_eq!(large.loss(Loss::FastRetransmit), Verdict::Congestion);
    }

    #[test]
    fn mean_of_ratios_averages_the_per_ack_samples() {
        let p = JtcpParams { average: JitterAverage::MeanOfRatios, ..JtcpParams::default() };
        let mut h = with_window(p, 4.0);
        // Stretches of 1, 3, 2, 6 and 4 ms per 10 ms.
        let stretches = [1u64, 3, 2, 6, 4];
        let mut sent = 1_000 * MS;
        let mut arrived = 2_000 * MS;
        timed_ack(&mut h, 10 * MS, sent, arrived);
        for s in stretches {
            sent += 10 * MS;
            arrived += 10 * MS + s * MS;
            timed_ack(&mut h, 10 * MS, sent, arrived);
        }
        // A 4-segment window covers the last four intervals.
        h.w.cwnd = 4.0 * M;
        let jr = (3.0 + 2.0 + 6.0 + 4.0) / 10.0 / 4.0;
        let jtcp = Jtcp::new(p);
        assert_eq!(jtcp.jitter_ratio(4.0 * M), None, "no samples yet");
        // Jr = 0.375 > 1/4: congestion.
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Congestion);
        let mut vars = Vec::new();
        h.cc.trace_vars(&mut vars);
        let traced = vars.iter().find(|(n, _)| *n == "loss_jitter_ratio").map(|p| p.1).unwrap_or(f64::NAN);
        assert!((traced - jr).abs() < 1e-12, "{traced} vs {jr}");
    }

    #[test]
    fn without_timestamps_every_loss_is_congestion() {
        let mut h = Harness::new(build(&JtcpParams::default()));
        let mut s = AckSample::default();
        for _ in 0..20 {
            h.fill_window();
            h.now += 10 * MS;
            h.snd_una += u64::from(MSS);
            s.ack = h.snd_una;
            s.acked_bytes = u64::from(MSS);
            h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
        }
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Congestion);
    }

    #[test]
    fn a_wireless_timeout_restarts_from_one_segment_but_keeps_ssthresh_at_the_window() {
        let mut h = with_window(JtcpParams::default(), 20.0);
        run(&mut h, 30, 0);
        let cwnd = h.w.cwnd;
        assert_eq!(h.loss(Loss::Timeout { consecutive: 1 }), Verdict::Wireless);
        assert_eq!((h.w.cwnd, h.w.ssthresh), (M, cwnd));
        assert_eq!(h.loss(Loss::Timeout { consecutive: 2 }), Verdict::Wireless);
        assert_eq!((h.w.cwnd, h.w.ssthresh), (M, cwnd));
    }

    #[test]
    fn a_mild_wireless_reduction_is_available() {
        let p = JtcpParams { wireless_factor: 0.8, ..JtcpParams::default() };
        let mut h = with_window(p, 20.0);
        run(&mut h, 30, 0);
        let cwnd = h.w.cwnd;
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Wireless);
        assert_eq!(h.w.cwnd, 0.8 * cwnd);
    }

    #[test]
    fn history_is_cleared_at_a_loss() {
        let mut h = with_window(JtcpParams::default(), 20.0);
        run(&mut h, 30, 0);
        h.loss(Loss::FastRetransmit);
        h.exit_recovery();
        // Only one sample since the loss: no interval, so congestion.
        timed_ack(&mut h, 10 * MS, 5_000 * MS, 6_000 * MS);
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Congestion);
    }

}
