//! TCP-Taichung: B.-J. Chang, S.-Y. Lin, Y.-H. Liang, "TCP-Taichung: A RTT-based Predictive
//! Bandwidth Based with Optimal Shrink Factor for TCP Congestion Control in Heterogeneous
//! Wired and Wireless Networks" (paper text in `shared/papers/tcp-taichung.txt`).
//!
//! NewReno whose slow start ends at an estimated path capacity (Eq. 6, ideal ssthresh =
//! RTTmin/InterACK + 1, shrunk by RTTmin/RTT into Eq. 10's network ssthresh), and whose loss
//! response multiplies cwnd by the shrink factor RTTmin/RTT instead of halving it (Fig. 4).
//!
//! Deviations and ambiguities resolved:
//! - Fig. 2's filter and EWMA (l. 116-118) are read with InterACK = the fresh gap between
//!   two ACKs and InterACK_org = the stored (original) average, because that makes Fig. 2's
//!   update (l. 118) "InterACK = (alpha) * InterACK_org + (1 - alpha)InterACK" the same formula as
//!   Eq. 5 (l. 74-76: "InterACK_new = alpha * InterACK_avg + (1 - alpha) * InterACK_old, where
//!   InterACK_avg denotes the average inter-ACK time of the connection, InterACK_old is the
//!   inter-ACK time between current and previous ACKs"): alpha weights the average, 1 - alpha
//!   the fresh gap. The filter (l. 116) "InterACK/InterACK_min < cwnd || InterACK_org > InterACK" then
//!   takes a gap shorter than a window's worth of the smallest gaps, or one shorter than the
//!   average, and drops a gap that is neither (expected to be idle time between flights, or a recovery
//!   pause; untested):
//!   `interack_filter = "fig2"` (default). The earlier implementation (accept a gap if
//!   gap/InterACK_min < cwnd or gap > average; it rejects only gaps that are both long and
//!   below the average, expected to be rare; untested) is `"ratio_or_above_average"`; `"ratio"` keeps
//!   only the first clause; `"none"` takes every sample. The first sample always initialises
//!   the EWMA.
//! - InterACK_min (not defined in the paper) is the smallest gap seen, rejected gaps
//!   included.
//! - The paper gives no alpha. `interack_gain` is 1 - alpha, the weight of the fresh gap,
//!   default 1/8 (the RFC 6298 SRTT gain, i.e. alpha = 7/8).
//! - Inter-ACK samples are the gaps between consecutive ACKs that advance SND.UNA (duplicate
//!   ACKs are not "continuous ACKs" of new data); a loss forgets the last ACK time, so the
//!   gap across the loss is not a sample (gaps between partial ACKs during recovery are); ACKs in the same nanosecond give no sample. With
//!   `per_segment_interack = true` a gap is divided by the segments the ACK covers (delayed
//!   ACKs); default false, the paper's raw gap.
//! - Eq. 10 vs Fig. 2: Eq. 10 multiplies ssthresh_ideal by the shrink factor (derived from
//!   Eqs. 7-9), Fig. 2 prints "+". `ssthresh_net = "product"` (default, Eq. 10) or `"sum"`.
//!   With the product Fig. 2's test reduces to cwnd < ssthresh_net; with the sum to
//!   cwnd < ssthresh_ideal.
//! - RTT in Eqs. 7-12: "the round-trip time of the last received ACK", i.e. the latest
//!   sample (`rtt = "latest"`, default); `"srtt"` uses the smoothed RTT. RTTmin is the
//!   sender's minimum RTT sample.
//! - Fig. 2 recomputes ssthresh_net on every ACK while Fig. 4 assigns it on a loss, so the
//!   loss value would be overwritten by the next ACK. We keep both: Fig. 4's value is the
//!   sender's ssthresh, Fig. 2's estimate is recomputed per ACK, and the exponential phase
//!   (cwnd++ per ACK) needs cwnd below ssthresh, ssthresh_net and ssthresh_ideal; otherwise
//!   cwnd += 1/cwnd (`slow_start_bound = "all"`, default: l. 104, "the value of ssthresh
//!   in the Congestion Avoidance phase ... is also determined based on the shrink factor
//!   ... when three duplicate ACKs received or timeout occurs", which only has an effect if
//!   Fig. 4's value is kept; l. 82 calls ssthresh_ideal "the first ssthresh in the Slow
//!   Start phase", i.e. not the only bound of later ones). `"fig2"` takes Fig. 2 literally: once both
//!   estimates are known, only ssthresh_net and ssthresh_ideal bound slow start, so after
//!   a loss it slow-starts back to the estimated share. Until both an inter-ACK estimate and an RTT exist, Fig. 2's thresholds
//!   are unknown and only the sender's ssthresh bounds slow start. l. 110 ("When cwnd
//!   exceeds ssthresh_net and ssthresh_ideal, sender enters into the Congestion Avoidance
//!   phase") would need both exceeded; Fig. 2's `&&` (and l. 104, "when cwnd >= ssthresh_net,
//!   sender will enter into the Congestion Avoidance phase") leave slow start when either
//!   is reached, which is what is implemented.
//! - Fig. 4 on three duplicate ACKs: ssthresh = cwnd*RTTmin/RTT and cwnd = cwnd_opt = that
//!   (Eq. 12); on a timeout ssthresh = cwnd*RTTmin/RTT and cwnd = 1 segment, on every
//!   expiry as Fig. 4's timeout branch has it (`timeout_shrink = "every"`, default; a
//!   repeated timeout, from cwnd = 1, takes ssthresh to the 2-segment floor).
//!   `"first"` keeps ssthresh on repeated timeouts (RFC 5681 §3.1; the earlier reading).
//!   With the default `slow_start_bound = "all"` a double timeout therefore leaves 2
//!   segments of ssthresh and a linear climb (the paper does not consider the case); with
//!   `"fig2"` Fig. 2's estimates take over at the next ACK. The paper's comparator, ns-2's
//!   NewReno, also cuts ssthresh on every expiry (ns-2.35 tcp-newreno.cc, [UNCONF] here: its
//!   timeout() calls slowdown(), as `acc.rs`'s header records), but wtcp's `newreno` keeps it after the first (RFC 5681 §3.1) unless
//!   `tcp.timeout_count_reset = "every_timeout"`, which the `ns2` profile does not set (it
//!   would also change `westwoodplus` in the same runs), so in `wtcp reproduce taichung`
//!   the two follow different rules on repeated timeouts; the effect is untested.
//!   ssthresh is floored at 2 segments (RFC 5681 eq. 4; the paper gives no floor), and so
//!   is cwnd after three duplicate ACKs, which is set to ssthresh. With no RTT sample yet the shrink factor is unknown
//!   and the NewReno halving of FlightSize is used.
//! - ECN (not in the paper): an echo applies the three-duplicate-ACK response, once per
//!   window of data (RFC 3168 §6.1.2).
//! - Fast recovery is the sender's NewReno ("impatient" variant, l. 167: "Impatient variant is adopted for responding partial ACKs
//!   for all TCP connections").

use serde::Deserialize;

use crate::api::{AckSample, CongestionControl, Ctx, Loss, Signal, Time, Verdict, Window, NS_PER_SEC};
use crate::filters::{Ewma, MinTracker};
use crate::registry::{AlgorithmInfo, ParamInfo, Range};
use crate::reno::{cong_avoid_per_ack, halved_ssthresh, slow_start, OncePerWindow};

const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "interack_gain",
        unit: "ratio",
        default: "0.125",
        doc: "weight of a fresh inter-ACK gap in the EWMA (1 - alpha of Eq. 5 / Fig. 2; the paper gives no value)",
        range: Range::above(0.0, 1.0),
    },
    ParamInfo {
        name: "interack_filter",
        unit: "fig2|ratio_or_above_average|ratio|none",
        default: "fig2",
        doc: "which inter-ACK gaps enter the EWMA: Fig. 2's test read as Eq. 5 (gap/min < cwnd or gap < average), the earlier reading (gap/min < cwnd or gap > average), only the gap/min < cwnd clause, or all",
        range: Range::Any,
    },
    ParamInfo {
        name: "ssthresh_net",
        unit: "product|sum",
        default: "product",
        doc: "how ssthresh_ideal and RTTmin/RTT combine: Eq. 10's product or Fig. 2's printed sum",
        range: Range::Any,
    },
    ParamInfo { name: "rtt", unit: "latest|srtt", default: "latest", doc: "RTT in the shrink factor RTTmin/RTT: the last sample (paper) or SRTT", range: Range::Any },
    ParamInfo {
        name: "slow_start_bound",
        unit: "all|fig2",
        default: "all",
        doc: "what ends slow start: the sender's ssthresh and both of Fig. 2's estimates, or (fig2, literal) the two estimates alone once known",
        range: Range::Any,
    },
    ParamInfo {
        name: "timeout_shrink",
        unit: "every|first",
        default: "every",
        doc: "which timeouts set ssthresh = cwnd*RTTmin/RTT: every expiry (Fig. 4) or the first of a series (RFC 5681 §3.1)",
        range: Range::Any,
    },
    ParamInfo {
        name: "per_segment_interack",
        unit: "bool",
        default: "false",
        doc: "divide each inter-ACK gap by the segments the ACK covers (delayed ACKs); off = the paper's raw gap",
        range: Range::Any,
    },
];

pub const TAICHUNG_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "taichung",
    summary: "NewReno with slow start ended at an inter-ACK/RTT capacity estimate and losses answered by shrinking cwnd by RTTmin/RTT.",
    reference: "B.-J. Chang, S.-Y. Lin, Y.-H. Liang, TCP-Taichung: RTT-based predictive bandwidth with optimal shrink factor (heterogeneous wired/wireless networks)",
    params: PARAMS,
    timeout_collapses_window: true,
    constraints: &[],
};

/// Which inter-ACK samples enter the EWMA.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterAckFilter {
    /// Fig. 2 with InterACK = the fresh gap and InterACK_org = the average (Eq. 5):
    /// gap/InterACK_min < cwnd, or gap < average.
    #[default]
    Fig2,
    /// The earlier implementation: gap/InterACK_min < cwnd, or gap > average (rejects
    /// almost nothing).
    RatioOrAboveAverage,
    /// Only sample/InterACK_min < cwnd.
    Ratio,
    /// Every sample.
    None,
}

/// How Eq. 10 combines the ideal ssthresh with the shrink factor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Combine {
    /// Eq. 10: (RTTmin/InterACK + 1) * (RTTmin/RTT).
    #[default]
    Product,
    /// Fig. 2 as printed: (RTTmin/InterACK + 1) + (RTTmin/RTT).
    Sum,
}

/// Which RTT the shrink factor divides by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RttChoice {
    /// The latest sample ("the round-trip time of the last received ACK", Eq. 7).
    #[default]
    Latest,
    /// The smoothed RTT (RFC 6298 SRTT).
    Srtt,
}

/// What bounds the exponential phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SlowStartBound {
    /// The sender's ssthresh (Fig. 4's loss value) and Fig. 2's two estimates.
    #[default]
    All,
    /// Fig. 2 literally: the two estimates alone once both are known.
    Fig2,
}

/// Which timeouts shrink ssthresh.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutShrink {
    /// Fig. 4: every expiry.
    #[default]
    Every,
    /// RFC 5681 §3.1: the first of a series.
    First,
}

/// Parameters of TCP-Taichung.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TaichungParams {
    /// Weight of a fresh inter-ACK gap in the EWMA, in (0, 1]: 1 - alpha of Eq. 5 and
    /// Fig. 2 (the paper gives no value; default 1/8 as the RFC 6298 SRTT gain).
    pub interack_gain: f64,
    /// Inter-ACK sample filter: `fig2` (Fig. 2 read as Eq. 5), `ratio_or_above_average`,
    /// `ratio`, `none`.
    pub interack_filter: InterAckFilter,
    /// `product` (Eq. 10) or `sum` (Fig. 2 as printed).
    pub ssthresh_net: Combine,
    /// RTT of the shrink factor: `latest` (paper) or `srtt`.
    pub rtt: RttChoice,
    /// Divide each inter-ACK gap by the segments the ACK covers (paper: no).
    pub per_segment_interack: bool,
    /// `all` (default) or `fig2`: what bounds slow start.
    pub slow_start_bound: SlowStartBound,
    /// `every` (Fig. 4, default) or `first`: which timeouts shrink ssthresh.
    pub timeout_shrink: TimeoutShrink,
}

impl Default for TaichungParams {
    fn default() -> Self {
        TaichungParams {
            interack_gain: 0.125,
            interack_filter: InterAckFilter::Fig2,
            ssthresh_net: Combine::Product,
            rtt: RttChoice::Latest,
            per_segment_interack: false,
            slow_start_bound: SlowStartBound::All,
            timeout_shrink: TimeoutShrink::Every,
        }
    }
}

pub fn build(p: &TaichungParams) -> Box<dyn CongestionControl> {
    Box::new(Taichung::new(*p))
}

/// All mutable TCP-Taichung state.
#[derive(Clone, Debug)]
struct State {
    /// Arrival time of the last ACK of new data (None after a loss).
    last_ack_at: Option<Time>,
    /// Smoothed InterACK (ns).
    interack: Ewma,
    /// InterACK_min: the smallest inter-ACK sample (ns).
    interack_min: MinTracker,
    /// Eq. 6 ssthresh_ideal (segments; NaN until known).
    ssthresh_ideal: f64,
    /// Eq. 10 ssthresh_net (segments; NaN until known).
    ssthresh_net: f64,
    /// The last shrink factor RTTmin/RTT (NaN until known).
    shrink: f64,
    /// At most one ECN response per window (RFC 3168 §6.1.2).
    ecn: OncePerWindow,
}

/// The TCP-Taichung state machine.
#[derive(Clone, Debug)]
pub struct Taichung {
    params: TaichungParams,
    state: State,
}

impl Taichung {
    pub fn new(params: TaichungParams) -> Self {
        Taichung {
            params,
            state: State {
                last_ack_at: None,
                interack: Ewma::new(params.interack_gain),
                interack_min: MinTracker::default(),
                ssthresh_ideal: f64::NAN,
                ssthresh_net: f64::NAN,
                shrink: f64::NAN,
                ecn: OncePerWindow::default(),
            },
        }
    }

    /// The shrink factor RTTmin/RTT, if the sender has RTT samples.
    fn shrink_factor(&self, cx: &Ctx) -> Option<f64> {
        let rtt = match self.params.rtt {
            RttChoice::Latest => cx.rtt.latest(),
            RttChoice::Srtt => cx.rtt.srtt(),
        }?;
        let min = cx.rtt.min_rtt()?;
        (rtt > 0).then(|| min as f64 / rtt as f64)
    }

    /// Fold one inter-ACK sample (ns) into the EWMA, through Fig. 2's filter.
    fn interack_sample(&mut self, sample: u64, cwnd_segments: f64) {
        let s = &mut self.state;
        let min = s.interack_min.update(sample) as f64;
        let x = sample as f64;
        let accept = match (s.interack.value(), self.params.interack_filter) {
            (None, _) | (_, InterAckFilter::None) => true,
            // Fig. 2: InterACK/InterACK_min < cwnd || InterACK_org > InterACK, with
            // InterACK the fresh gap and InterACK_org the average.
            (Some(avg), InterAckFilter::Fig2) => x / min < cwnd_segments || avg > x,
            (Some(avg), InterAckFilter::RatioOrAboveAverage) => x / min < cwnd_segments || x > avg,
            (Some(_), InterAckFilter::Ratio) => x / min < cwnd_segments,
        };
        if accept {
            // Fig. 2 / Eq. 5: InterACK = alpha*InterACK_org + (1 - alpha)*InterACK, alpha on
            // the average.
            s.interack.update(x);
        }
    }

    /// Eq. 6 and Eq. 10 from the current estimates.
    fn update_thresholds(&mut self, cx: &Ctx) {
        let shrink = self.shrink_factor(cx);
        self.state.shrink = shrink.unwrap_or(f64::NAN);
        let (Some(interack), Some(rtt_min), Some(shrink)) = (self.state.interack.value(), cx.rtt.min_rtt(), shrink) else {
            return;
        };
        if interack <= 0.0 {
            return;
        }
        // Eq. 6: ssthresh_ideal = RTTmin/InterACK + 1 (segments).
        let ideal = rtt_min as f64 / interack + 1.0;
        self.state.ssthresh_ideal = ideal;
        self.state.ssthresh_net = match self.params.ssthresh_net {
            // Eq. 10: ssthresh_net = (RTTmin/InterACK + 1) * (RTTmin/RTT).
            Combine::Product => ideal * shrink,
            // Fig. 2 as printed: (RTTmin/InterACK + 1) + (RTTmin/RTT).
            Combine::Sum => ideal + shrink,
        };
    }

    /// Fig. 4: ssthresh = cwnd * RTTmin/RTT (>= 2 segments), NewReno halving without RTT.
    fn shrunk_ssthresh(&self, w: &Window, cx: &Ctx) -> f64 {
        let mss = cx.mss_f();
        match self.shrink_factor(cx) {
            Some(shrink) => (w.cwnd * shrink).max(2.0 * mss),
            None => halved_ssthresh(cx.flight_size as f64, mss),
        }
    }

    /// Fig. 4, three duplicate ACKs: ssthresh_net = cwnd*RTTmin/RTT; cwnd = cwnd_opt.
    fn shrink_window(&mut self, w: &mut Window, cx: &Ctx) {
        // Eq. 12: cwnd_opt = cwnd * RTTmin/RTT.
        let ssthresh = self.shrunk_ssthresh(w, cx);
        w.ssthresh = ssthresh;
        w.cwnd = ssthresh;
        self.state.ecn.reduced(cx);
    }
}

impl CongestionControl for Taichung {
    fn name(&self) -> &'static str {
        "taichung"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        if ack.dup || ack.acked_bytes == 0 {
            return;
        }
        let mss = cx.mss_f();
        if let Some(prev) = self.state.last_ack_at {
            let mut gap = cx.now.saturating_sub(prev);
            if self.params.per_segment_interack {
                gap /= ack.acked_bytes.div_ceil(u64::from(cx.mss)).max(1);
            }
            if gap > 0 {
                self.interack_sample(gap, w.cwnd / mss);
            }
        }
        self.state.last_ack_at = Some(cx.now);
        self.update_thresholds(cx);
        if ack.in_recovery {
            return;
        }
        let cwnd = w.cwnd / mss;
        // Unknown thresholds (NaN) do not bound slow start.
        let below = |x: f64| x.is_nan() || cwnd < x;
        let (net, ideal) = (self.state.ssthresh_net, self.state.ssthresh_ideal);
        let estimates_known = !net.is_nan() && !ideal.is_nan();
        let sender_bound = self.params.slow_start_bound == SlowStartBound::All || !estimates_known;
        if (!sender_bound || w.cwnd < w.ssthresh) && below(net) && below(ideal) {
            // Fig. 2: cwnd++ (exponential increasing phase), up to the sender's ssthresh
            // unless Fig. 2's estimates alone bound it.
            if sender_bound {
                slow_start(w, ack.acked_bytes, mss);
            } else {
                w.cwnd += (ack.acked_bytes as f64).min(mss);
            }
        } else {
            // Fig. 2: cwnd += 1/cwnd (linear increasing phase).
            cong_avoid_per_ack(w, mss);
        }
    }

    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
        self.state.last_ack_at = None;
        match loss {
            Loss::FastRetransmit => self.shrink_window(w, cx),
            Loss::Timeout { consecutive } => {
                if consecutive <= 1 || self.params.timeout_shrink == TimeoutShrink::Every {
                    // Fig. 4, timeout: ssthresh_net = cwnd * RTTmin/RTT.
                    w.ssthresh = self.shrunk_ssthresh(w, cx);
                }
                // Fig. 4: cwnd = 1.
                w.cwnd = cx.mss_f();
                self.state.ecn.reduced(cx);
            }
        }
        Verdict::None
    }

    fn on_signal(&mut self, signal: Signal, w: &mut Window, cx: &mut Ctx) {
        if signal == Signal::CongestionMark && self.state.ecn.allows(cx) {
            self.shrink_window(w, cx);
        }
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        let s = &self.state;
        out.push(("interack_s", s.interack.value().map_or(f64::NAN, |v| v / NS_PER_SEC)));
        out.push(("interack_min_s", s.interack_min.value().map_or(f64::NAN, |v| v as f64 / NS_PER_SEC)));
        out.push(("ssthresh_ideal_segments", s.ssthresh_ideal));
        out.push(("ssthresh_net_segments", s.ssthresh_net));
        out.push(("shrink", s.shrink));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Harness, MSS, var};

    const MS: u64 = 1_000_000;
    const SEG: f64 = MSS as f64;

    /// One ACK of one new segment at time `at` carrying the RTT sample `rtt`.
    fn ack_at(h: &mut Harness, at: u64, rtt: u64) {
        h.fill_window();
        h.now = at;
        let bytes = u64::from(MSS).min(h.snd_max - h.snd_una);
        h.snd_una += bytes;
        h.rtt.on_sample(rtt);
        let s = AckSample { ack: h.snd_una, acked_bytes: bytes, rtt: Some(rtt), in_recovery: h.in_recovery, ..AckSample::default() };
        h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
    }

    /// RTTmin 40 ms (first sample), then ACKs every 2 ms with RTT 60 ms.
    fn steady(p: TaichungParams) -> Harness {
        let mut h = Harness::new(build(&p));
        let mut at = 1000 * MS;
        ack_at(&mut h, at, 40 * MS);
        for _ in 0..20 {
            at += 2 * MS;
            ack_at(&mut h, at, 60 * MS);
        }
        h
    }

    #[test]
    fn ssthresh_net_is_the_ideal_ssthresh_shrunk_by_rttmin_over_rtt() {
        let h = steady(TaichungParams::default());
        // Eq. 6: 40/2 + 1 = 21; Eq. 10: 21 * 40/60 = 14 segments.
        let ideal = 40.0 / 2.0 + 1.0;
        let net = ideal * (40.0 / 60.0);
        assert!((var(&h, "interack_s") - 0.002).abs() < 1e-15);
        assert!((var(&h, "ssthresh_ideal_segments") - ideal).abs() < 1e-12);
        assert!((var(&h, "ssthresh_net_segments") - net).abs() < 1e-12);
        assert!((var(&h, "shrink") - 40.0 / 60.0).abs() < 1e-15);
    }

    #[test]
    fn the_printed_sum_of_fig_2_is_available() {
        let p = TaichungParams { ssthresh_net: Combine::Sum, ..TaichungParams::default() };
        let h = steady(p);
        let net = (40.0 / 2.0 + 1.0) + 40.0 / 60.0;
        assert!((var(&h, "ssthresh_net_segments") - net).abs() < 1e-12);
    }

    #[test]
    fn interack_is_an_ewma_of_the_gaps_between_new_acks() {
        let mut h = Harness::new(build(&TaichungParams::default()));
        ack_at(&mut h, 100 * MS, 40 * MS);
        ack_at(&mut h, 102 * MS, 40 * MS);
        ack_at(&mut h, 106 * MS, 40 * MS);
        // First sample 2 ms initialises; 4 ms / 2 ms < cwnd passes Fig. 2's filter (Eq. 5).
        let expect = 0.875 * 0.002 + 0.125 * 0.004;
        assert!((var(&h, "interack_s") - expect).abs() < 1e-15);
        assert_eq!(var(&h, "interack_min_s"), 0.002);
        // Duplicate ACKs are not samples.
        h.now += 5 * MS;
        h.dup_ack();
        assert!((var(&h, "interack_s") - expect).abs() < 1e-15);
    }

    /// The smoothed InterACK after ACKs at `times` (ms), cwnd held at 10 segments.
    fn interack_after(filter: InterAckFilter, times: &[u64]) -> f64 {
        let mut h = Harness::new(build(&TaichungParams { interack_filter: filter, ..TaichungParams::default() }));
        for &at in times {
            h.w = Window::new(10.0 * SEG, 10.0 * SEG);
            ack_at(&mut h, at * MS, 40 * MS);
        }
        var(&h, "interack_s")
    }

    #[test]
    fn fig_2_filter_drops_a_gap_longer_than_both_cwnd_minimum_gaps_and_the_average() {
        // Eq. 5 recomputed: new = alpha*avg + (1 - alpha)*gap, alpha = 7/8.
        let eq5 = |avg: f64, gap: f64| 0.875 * avg + 0.125 * gap;
        // Gaps 2, 1 ms: average eq5(2, 1) = 1.875 ms, minimum 1 ms.
        let avg = eq5(0.002, 0.001);
        assert!((interack_after(InterAckFilter::Fig2, &[100, 102, 103]) - avg).abs() < 1e-15);
        // A 30 ms gap (idle between flights): 30/1 >= cwnd = 10 and 30 > 1.875: dropped.
        assert!((interack_after(InterAckFilter::Fig2, &[100, 102, 103, 133]) - avg).abs() < 1e-15);
        // ... and taken by the earlier reading (gap > average) and with no filter.
        for f in [InterAckFilter::RatioOrAboveAverage, InterAckFilter::None] {
            assert!((interack_after(f, &[100, 102, 103, 133]) - eq5(avg, 0.030)).abs() < 1e-15, "{f:?}");
        }
        // Gaps 20, 1 ms: average eq5(20, 1) = 17.625 ms. A 15 ms gap is >= cwnd * 1 ms but
        // below the average: taken ("InterACK_org > InterACK"); the earlier reading drops it.
        let avg = eq5(0.020, 0.001);
        let times = [100, 120, 121, 136];
        assert!((interack_after(InterAckFilter::Fig2, &times) - eq5(avg, 0.015)).abs() < 1e-15);
        assert!((interack_after(InterAckFilter::RatioOrAboveAverage, &times) - avg).abs() < 1e-15);
        // "ratio" keeps only the first clause: the 15 ms gap is dropped.
        assert!((interack_after(InterAckFilter::Ratio, &times) - avg).abs() < 1e-15);
    }

    #[test]
    fn slow_start_is_exponential_below_ssthresh_net_and_linear_above() {
        let mut h = steady(TaichungParams::default());
        // ssthresh_net = 14 segments.
        h.w = Window::new(10.0 * SEG, f64::INFINITY);
        let at = h.now + 2 * MS;
        ack_at(&mut h, at, 60 * MS);
        assert_eq!(h.w.cwnd, 11.0 * SEG);
        h.w = Window::new(20.0 * SEG, f64::INFINITY);
        let at = h.now + 2 * MS;
        ack_at(&mut h, at, 60 * MS);
        assert_eq!(h.w.cwnd, 20.0 * SEG + SEG / 20.0);
    }

    #[test]
    fn three_duplicate_acks_shrink_cwnd_by_rttmin_over_rtt() {
        let mut h = steady(TaichungParams::default());
        h.w = Window::new(30.0 * SEG, f64::INFINITY);
        let v = h.loss(Loss::FastRetransmit);
        // Fig. 4 / Eq. 12: cwnd_opt = 30 * 40/60 = 20 segments = ssthresh.
        assert_eq!(v, Verdict::None);
        assert!((h.w.cwnd - 20.0 * SEG).abs() < 1e-9);
        assert!((h.w.ssthresh - 20.0 * SEG).abs() < 1e-9);
    }

    #[test]
    fn every_timeout_shrinks_ssthresh_as_fig4_and_collapses_cwnd() {
        let mut h = steady(TaichungParams::default());
        h.w = Window::new(30.0 * SEG, f64::INFINITY);
        h.loss(Loss::Timeout { consecutive: 1 });
        assert_eq!(h.w.cwnd, SEG);
        assert!((h.w.ssthresh - 20.0 * SEG).abs() < 1e-9);
        // Fig. 4 again from cwnd = 1: 1 * 40/60, floored at 2 segments.
        h.loss(Loss::Timeout { consecutive: 2 });
        assert_eq!(h.w.ssthresh, 2.0 * SEG);
    }

    #[test]
    fn with_timeout_shrink_first_a_repeated_timeout_keeps_ssthresh() {
        let mut h = steady(TaichungParams { timeout_shrink: TimeoutShrink::First, ..TaichungParams::default() });
        h.w = Window::new(30.0 * SEG, f64::INFINITY);
        h.loss(Loss::Timeout { consecutive: 1 });
        h.loss(Loss::Timeout { consecutive: 2 });
        assert!((h.w.ssthresh - 20.0 * SEG).abs() < 1e-9);
    }

    #[test]
    fn the_literal_fig2_bound_stops_at_ssthresh_net_whatever_the_senders_ssthresh() {
        // Estimates: ssthresh_net 14 segments; the sender's ssthresh is unlimited.
        let p = TaichungParams { slow_start_bound: SlowStartBound::Fig2, ..TaichungParams::default() };
        for (cwnd, growth) in [(13.0, SEG), (14.5, SEG / 14.5)] {
            let mut h = steady(p);
            h.w = Window::new(cwnd * SEG, f64::INFINITY);
            let at = h.now + 2 * MS;
            ack_at(&mut h, at, 60 * MS);
            assert!((h.w.cwnd - (cwnd * SEG + growth)).abs() < 1e-9, "cwnd {cwnd}: {}", h.w.cwnd);
        }
    }

    #[test]
    fn after_a_loss_only_the_literal_fig2_bound_slow_starts_back_to_the_estimates() {
        // Estimates: ssthresh_ideal 21, ssthresh_net 14 segments; the loss sets 10.
        for (bound, growth) in [(SlowStartBound::All, SEG / 10.0), (SlowStartBound::Fig2, SEG)] {
            let mut h = steady(TaichungParams { slow_start_bound: bound, ..TaichungParams::default() });
            h.w = Window::new(15.0 * SEG, f64::INFINITY);
            h.loss(Loss::FastRetransmit);
            assert!((h.w.cwnd - 10.0 * SEG).abs() < 1e-9);
            let at = h.now + 2 * MS;
            ack_at(&mut h, at, 60 * MS);
            assert!((h.w.cwnd - (10.0 * SEG + growth)).abs() < 1e-9, "{bound:?}: {}", h.w.cwnd);
        }
    }

    #[test]
    fn a_loss_before_any_rtt_sample_halves_flight_size() {
        let mut h = Harness::new(build(&TaichungParams::default()));
        h.fill_window();
        h.loss(Loss::FastRetransmit);
        assert_eq!(h.w.ssthresh, 5.0 * SEG);
    }

    #[test]
    fn duplicate_acks_do_not_grow_the_window() {
        let mut h = steady(TaichungParams::default());
        let before = h.w.cwnd;
        h.dup_ack();
        h.dup_ack();
        assert_eq!(h.w.cwnd, before);
    }
}
