//! TCP Prairie: Westwood-style bandwidth-estimation congestion control whose bandwidth
//! sample spreads each burst of ACKs over part of the following off period.
//!
//! Reference: N. Parvez, E. Hossain, "TCP Prairie: a sender-only TCP modification based on
//! adaptive bandwidth estimation in wired-wireless networks", Computer Communications
//! 28(2):246-256, 2005. Only the abstract was available; this module implements the
//! parameterised reading of /work/shared/reference/algorithms.md §6, whose details are
//! [UNCONF]. Treat results as approximate.
//!
//! The available-bandwidth estimate (ABW) is measured from the rate of returning ACKs and
//! the RTT; after three duplicate ACKs or a timeout, ssthresh = ABW * RTTmin (as Westwood).
//! The estimator is [`PrairieAbw`], also used by Dynamic Responding TCP (`dynamic`).
//!
//! Deviations and ambiguities resolved (all estimator choices are parameters of
//! [`PrairieAbwParams`], nested as `abw` in the parameter table):
//! - Bursts: an ACK closer than delta_burst = `burst_factor` * SRTT / (cwnd / MSS) to the
//!   previous ACK joins its burst (0.1 in the reference's example); ACKs at the same instant
//!   always do. Before an SRTT exists delta_burst = 0. The estimator therefore takes the
//!   window as an argument (`on_ack(ack, w, cx)`), not only the context.
//! - A burst of D_b bytes spanning T_on ends when the next ACK arrives after a gap T_off
//!   (the off period); its sample is D_b / (T_on + c' * T_off). A burst is sampled only when
//!   its off period ends, so the burst before a silence is sampled at the next ACK.
//! - Degree of congestion c = (SRTT - RTTmin) / SRTT in [0, 1], from the sender's RTT
//!   estimator (RTTmin = minimum raw sample); 0 before both exist.
//! - c' (`off_weight`): `full` (c' = 1: the average rate over burst and off period,
//!   default), `congestion` (c' = c) or `one_minus_congestion` (c' = 1 - c, the reference's
//!   "natural choice"). The default follows the paper's abstract, which says the estimator
//!   measures "the bandwidth used by the flow" (algorithms.md §6), and Dynamic Responding
//!   TCP's description of it as "more stable and accurate than TCP Westwood's" (dynamic
//!   paper l. 95): any c' < 1 divides a burst by less than the time in which its bytes were
//!   delivered, so an ACK-clocked stream (every ACK its own burst, T_on = 0) gives samples
//!   of rate / c' — above the bottleneck's rate on a path with no other traffic. Measured on
//!   `two-hop-wireless` (2 Mb/s bottleneck, 5 seeds, median of `abw_bps` after 35 s):
//!   c' = c reads 2.25 / 3.51 / 4.04 Mb/s at 0 / 1 / 5 % loss, c' = 1 reads 1.90 / 1.87 /
//!   1.30 Mb/s. Plainly: with c' = 1 the degree of congestion no longer enters the sample
//!   (it is computed for traces only), so the default drops the feature the abstract names
//!   ("based on degree of congestion and burstiness"); the estimator is then a per-burst
//!   average delivery rate, close to Westwood's. The abstract's formula is not known, and no
//!   known weight c' < 1 keeps the sample at or below the rate the flow obtains, which the
//!   abstract says it measures. The earlier default c' = c (an estimate of spare capacity)
//!   stays available:
//!   with it a burst on a path without a queue counts at nearly its own rate, and on a
//!   congested path it is spread over the whole off period. With c' = 1 - c a standing queue
//!   (c near 1) gives samples up to 1/(1 - c) times the delivery rate (in the ns-3 "simple2"
//!   scenario without random loss: 26 timeouts and a mean SRTT of 0.42 s with 1 - c, against
//!   1 timeout and 0.30 s with c or with Westwood+).
//! - With c' < 1 and T_on = 0 the sample is unbounded as c' -> 0; when the denominator is 0
//!   (c' = c and SRTT equal to RTTmin) the burst gives no sample. Until a first sample
//!   exists, the loss response falls back to Reno.
//! - `max_off_srtt` > 0 caps T_off at that many SRTTs (our guard against idle periods such
//!   as an RTO; off by default).
//! - Filter (`filter`): `tustin` est = g*est + (1-g)*(s + s_prev)/2 (Westwood-style,
//!   default, g = `filter_gain` = 0.9 as ns-3's Westwood+) or `ewma` est = g*est + (1-g)*s;
//!   both start at the first sample (not at zero).
//! - Delivered bytes per ACK follow Westwood's accounting (a duplicate ACK counts one
//!   segment, a later cumulative jump is credited net of those, see `westwood`). The ACK
//!   that ends recovery is not passed to `on_ack`; its bytes are credited in
//!   `on_recovery_exit` from SND.UNA, at that hook's time.
//! - Loss response (reference reading): on 3 dupacks ssthresh = max(ABW * RTT, 2 MSS) and
//!   cwnd = min(cwnd, ssthresh), NewReno recovery, cwnd = ssthresh at exit; on the first
//!   RTO the same ssthresh and cwnd = 1 MSS; repeated RTOs leave ssthresh alone
//!   (RFC 5681 §3.1; a departure from the reference reading, which sets it on every RTO). RTT = RTTmin by default (`window_rtt = "srtt"` uses SRTT). Without an
//!   estimate yet, Reno's max(FlightSize/2, 2 MSS) is used.
//! - Verdict: none (Prairie does not classify losses).

use serde::Deserialize;

use crate::api::{AckSample, CongestionControl, Ctx, Loss, RecoveryStyle, Time, Verdict, Window, NS_PER_SEC};
use crate::filters::Ewma;
use crate::registry::{AlgorithmInfo, ParamInfo, Range, MAX_RTTS};
use crate::reno::{self, halved_ssthresh, Reno, RenoParams};
use crate::westwood::{Accounting, DeliveryCounter};

/// The weight c' of the off period in the bandwidth sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OffWeight {
    /// c' = 1 - c (algorithms.md §6 "natural choice").
    OneMinusCongestion,
    /// c' = c: spread over more of the off period the more congested the path.
    Congestion,
    /// c' = 1: the average rate over burst plus off period (default).
    Full,
}

/// The low-pass filter of the ABW samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AbwFilter {
    /// est = g*est + (1-g)*(s + s_prev)/2.
    Tustin,
    /// est = g*est + (1-g)*s.
    Ewma,
}

/// The RTT that turns a rate into a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowRtt {
    /// The minimum RTT sample (Westwood's RTTmin; algorithms.md §6).
    MinRtt,
    /// The smoothed RTT.
    Srtt,
}

impl WindowRtt {
    /// The chosen RTT in nanoseconds, if the sender has one.
    pub fn of(self, cx: &Ctx) -> Option<Time> {
        match self {
            WindowRtt::MinRtt => cx.rtt.min_rtt(),
            WindowRtt::Srtt => cx.rtt.srtt(),
        }
    }
}

/// Parameters of Prairie's available-bandwidth estimator.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PrairieAbwParams {
    /// ACKs closer than `burst_factor` * SRTT / cwnd (cwnd in segments) form a burst
    /// (dimensionless; reference example 0.1 [UNCONF]).
    pub burst_factor: f64,
    /// Weight c' of the off period: `full` (c' = 1, default: the rate the flow obtained),
    /// `congestion` (c' = c) or `one_minus_congestion` (c' = 1 - c, the reference's
    /// suggestion) [UNCONF].
    pub off_weight: OffWeight,
    /// Cap on the off period, in SRTTs; 0 = no cap (our guard, not in the reference).
    pub max_off_srtt: f64,
    /// Filter of the samples: `tustin` (default) or `ewma` [UNCONF].
    pub filter: AbwFilter,
    /// Weight g of the previous estimate, in [0, 1] (0.9 as ns-3's Westwood+ [UNCONF]).
    pub filter_gain: f64,
}

impl Default for PrairieAbwParams {
    fn default() -> Self {
        PrairieAbwParams {
            burst_factor: 0.1,
            off_weight: OffWeight::Full,
            max_off_srtt: 0.0,
            filter: AbwFilter::Tustin,
            filter_gain: 0.9,
        }
    }
}

/// The documented default of a nested `abw` table (JSON), shared with `dynamic`.
pub const ABW_PARAM_DEFAULT: &str =
    r#"{"burst_factor":0.1,"off_weight":"full","max_off_srtt":0.0,"filter":"tustin","filter_gain":0.9}"#;

/// The parameters of the nested `abw` table, with their ranges.
pub const ABW_PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "burst_factor",
        unit: "ratio",
        default: "0.1",
        doc: "ACKs closer than burst_factor*SRTT/cwnd form a burst; at most 1, where every ACK at the flow's own rate (SRTT/cwnd apart) would be one",
        range: Range::closed(0.0, 1.0),
    },
    ParamInfo { name: "off_weight", unit: "congestion|one_minus_congestion|full", default: "full", doc: "c' in sample = D/(T_on + c'*T_off)", range: Range::Any },
    ParamInfo { name: "max_off_srtt", unit: "SRTTs", default: "0.0", doc: "cap on T_off in SRTTs, 0 = none", range: Range::closed(0.0, MAX_RTTS) },
    ParamInfo { name: "filter", unit: "tustin|ewma", default: "tustin", doc: "filter of the samples", range: Range::Any },
    ParamInfo { name: "filter_gain", unit: "ratio", default: "0.9", doc: "weight of the previous estimate, a weight of an average", range: Range::closed(0.0, 1.0) },
];

/// Documentation of the nested `abw` table.
pub const ABW_PARAM_DOC: &str = "Prairie ABW estimator: burst_factor (ACKs closer than burst_factor*SRTT/cwnd form a burst), off_weight (congestion|one_minus_congestion|full: c' = c, 1 - c or 1 in sample = D/(T_on + c'*T_off), c = (SRTT - RTTmin)/SRTT), max_off_srtt (cap on T_off in SRTTs, 0 = none), filter (tustin|ewma), filter_gain (weight of the previous estimate)";

/// Parameters of TCP Prairie.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PrairieParams {
    /// The ABW estimator (nested table).
    pub abw: PrairieAbwParams,
    /// RTT turning ABW into ssthresh: `min_rtt` (reference, Westwood) or `srtt`.
    pub window_rtt: WindowRtt,
    /// RFC 3465 byte counting in Reno growth (off: RFC 5681 per-ACK increase).
    pub byte_counting: bool,
    /// Byte-counting limit L in segments (RFC 3465 §2.2: 2).
    pub abc_limit: u32,
}

impl Default for PrairieParams {
    fn default() -> Self {
        PrairieParams {
            abw: PrairieAbwParams::default(),
            window_rtt: WindowRtt::MinRtt,
            byte_counting: false,
            abc_limit: 2,
        }
    }
}

pub const PRAIRIE_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "prairie",
    summary: "Bandwidth estimate from ACK bursts, each spread over its following off period (weighted by the degree of congestion when configured); after a loss ssthresh = ABW * RTTmin (paper only partly specified).",
    reference: "Parvez, Hossain, Computer Communications 28(2):246-256, 2005 (reading of algorithms.md §6)",
    params: &[
        ParamInfo { name: "abw", unit: "table", default: ABW_PARAM_DEFAULT, doc: ABW_PARAM_DOC, range: Range::Table(ABW_PARAMS) },
        ParamInfo { name: "window_rtt", unit: "min_rtt|srtt", default: "min_rtt", doc: "RTT turning ABW into ssthresh", range: Range::Any },
        reno::BYTE_COUNTING,
        reno::ABC_LIMIT,
    ],
    timeout_collapses_window: true,
    constraints: &[],
};

pub fn build(p: &PrairieParams) -> Box<dyn CongestionControl> {
    Box::new(Prairie {
        reno: RenoParams { byte_counting: p.byte_counting, abc_limit: p.abc_limit, ..RenoParams::default() },
        window_rtt: p.window_rtt,
        abw: PrairieAbw::new(p.abw),
    })
}

/// A burst of ACKs being collected.
#[derive(Clone, Copy, Debug)]
struct Burst {
    first: Time,
    last: Time,
    bytes: u64,
}

/// Prairie's available-bandwidth estimator (ABW), usable by other algorithms.
#[derive(Clone, Debug)]
pub struct PrairieAbw {
    p: PrairieAbwParams,
    counter: DeliveryCounter,
    burst: Option<Burst>,
    /// Tustin state: estimate and previous sample, bytes/s.
    tustin: Option<(f64, f64)>,
    ewma: Ewma,
    /// The last sample's components, for traces: (sample bytes/s, T_on s, T_off s, c).
    last: Option<(f64, f64, f64, f64)>,
}

impl PrairieAbw {
    pub fn new(p: PrairieAbwParams) -> Self {
        let g = p.filter_gain.clamp(0.0, 1.0);
        let p = PrairieAbwParams { filter_gain: g, burst_factor: p.burst_factor.max(0.0), ..p };
        PrairieAbw {
            p,
            counter: DeliveryCounter::new(Accounting::Linux),
            burst: None,
            tustin: None,
            ewma: Ewma::new(1.0 - g),
            last: None,
        }
    }

    /// Call from `init`: remembers SND.UNA for the recovery-exit accounting.
    pub fn start(&mut self, cx: &Ctx) {
        self.counter.start(cx.snd_una);
    }

    /// Every ACK (duplicates included).
    pub fn on_ack(&mut self, ack: &AckSample, w: &Window, cx: &Ctx) {
        let credit = self.counter.on_ack(ack, u64::from(cx.mss));
        self.on_delivery(credit, w, cx);
    }

    /// The ACK that ended fast recovery (the sender does not pass it to `on_ack`).
    pub fn on_recovery_exit(&mut self, w: &Window, cx: &Ctx) {
        let credit = self.counter.on_recovery_exit(cx.snd_una, u64::from(cx.mss));
        self.on_delivery(credit, w, cx);
    }

    /// The filtered ABW in bytes per second, once a sample exists.
    pub fn estimate_bytes_per_s(&self) -> Option<f64> {
        match self.p.filter {
            AbwFilter::Tustin => self.tustin.map(|(e, _)| e),
            AbwFilter::Ewma => self.ewma.value(),
        }
    }

    /// The filtered ABW in bits per second.
    pub fn estimate_bps(&self) -> Option<f64> {
        self.estimate_bytes_per_s().map(|b| b * 8.0)
    }

    /// ABW as a window in bytes: ABW (bytes/s) * RTT (s); `None` without both.
    pub fn window_bytes(&self, rtt: WindowRtt, cx: &Ctx) -> Option<f64> {
        let abw = self.estimate_bytes_per_s()?;
        let r = rtt.of(cx)?;
        Some(abw * r as f64 / NS_PER_SEC)
    }

    /// Degree of congestion c = (SRTT - RTTmin) / SRTT, in [0, 1].
    pub fn congestion_degree(cx: &Ctx) -> f64 {
        match (cx.rtt.srtt(), cx.rtt.min_rtt()) {
            (Some(s), Some(m)) if s > 0 => (s.saturating_sub(m) as f64 / s as f64).clamp(0.0, 1.0),
            _ => 0.0,
        }
    }

    /// Variables for traces: "abw_bps", "abw_sample_bps", "t_on_s", "t_off_s", "congestion_degree".
    pub fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        let (s, on, off, c) = self.last.unwrap_or((f64::NAN, f64::NAN, f64::NAN, f64::NAN));
        out.push(("abw_bps", self.estimate_bps().unwrap_or(f64::NAN)));
        out.push(("abw_sample_bps", s * 8.0));
        out.push(("t_on_s", on));
        out.push(("t_off_s", off));
        out.push(("congestion_degree", c));
    }

    fn on_delivery(&mut self, bytes: u64, w: &Window, cx: &Ctx) {
        if bytes == 0 {
            return;
        }
        let now = cx.now;
        let srtt = cx.rtt.srtt();
        let mss = cx.mss_f();
        // delta_burst = burst_factor * SRTT / cwnd (cwnd in segments).
        let delta_burst = srtt.map_or(0.0, |s| self.p.burst_factor * s as f64 / (w.cwnd / mss).max(1.0));
        let Some(mut b) = self.burst else {
            self.burst = Some(Burst { first: now, last: now, bytes });
            return;
        };
        let gap = now.saturating_sub(b.last);
        if gap == 0 || (gap as f64) < delta_burst {
            b.last = now;
            b.bytes += bytes;
            self.burst = Some(b);
            return;
        }
        // The burst's off period ended: sample = D_b / (T_on + c' * T_off).
        let c = Self::congestion_degree(cx);
        let weight = match self.p.off_weight {
            OffWeight::OneMinusCongestion => 1.0 - c,
            OffWeight::Congestion => c,
            OffWeight::Full => 1.0,
        };
        let mut t_off = gap as f64;
        if let (true, Some(s)) = (self.p.max_off_srtt > 0.0, srtt) {
            t_off = t_off.min(self.p.max_off_srtt * s as f64);
        }
        let t_on = b.last.saturating_sub(b.first) as f64;
        let denom_s = (t_on + weight * t_off) / NS_PER_SEC;
        // No time to spread the burst over (c' = 0 and T_on = 0): no sample.
        if denom_s > 0.0 {
            let sample = b.bytes as f64 / denom_s;
            self.filter(sample);
            self.last = Some((sample, t_on / NS_PER_SEC, t_off / NS_PER_SEC, c));
        }
        self.burst = Some(Burst { first: now, last: now, bytes });
    }

    fn filter(&mut self, sample: f64) {
        let g = self.p.filter_gain;
        match self.p.filter {
            AbwFilter::Tustin => {
                self.tustin = Some(match self.tustin {
                    None => (sample, sample),
                    Some((est, prev)) => (g * est + (1.0 - g) * (sample + prev) / 2.0, sample),
                });
            }
            AbwFilter::Ewma => {
                self.ewma.update(sample);
            }
        }
    }
}

/// TCP Prairie: all mutable state.
#[derive(Clone, Debug)]
pub struct Prairie {
    reno: RenoParams,
    window_rtt: WindowRtt,
    abw: PrairieAbw,
}

impl Prairie {
    /// ssthresh = max(ABW * RTT, 2 MSS), or Reno's halving before any estimate.
    fn ssthresh(&self, cx: &Ctx) -> f64 {
        let mss = cx.mss_f();
        match self.abw.window_bytes(self.window_rtt, cx) {
            Some(win) => win.max(2.0 * mss),
            None => halved_ssthresh(cx.flight_size as f64, mss),
        }
    }
}

impl CongestionControl for Prairie {
    fn name(&self) -> &'static str {
        "prairie"
    }

    fn recovery_style(&self) -> RecoveryStyle {
        RecoveryStyle::NewReno
    }

    fn init(&mut self, _w: &mut Window, cx: &mut Ctx) {
        self.abw.start(cx);
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        self.abw.on_ack(ack, w, cx);
        Reno::grow(&self.reno, ack, w, cx.mss_f());
    }

    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
        match loss {
            Loss::FastRetransmit => {
                // ssthresh = max(ABW * RTTmin / MSS, 2) segments; cwnd = min(cwnd, ssthresh).
                w.ssthresh = self.ssthresh(cx);
                w.cwnd = w.cwnd.min(w.ssthresh);
            }
            Loss::Timeout { consecutive } => {
                if consecutive <= 1 {
                    w.ssthresh = self.ssthresh(cx);
                }
                w.cwnd = cx.mss_f();
            }
        }
        Verdict::None
    }

    fn on_recovery_exit(&mut self, w: &mut Window, cx: &mut Ctx) {
        self.abw.on_recovery_exit(w, cx);
        w.cwnd = w.ssthresh;
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        self.abw.trace_vars(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Harness, MSS, var, approx, ack_timed};

    const MS: Time = 1_000_000;
    const M: f64 = MSS as f64;

    /// An ACK of `segments` new segments `gap` ns after the previous event, with RTT sample `rtt`.
    fn ack_at(h: &mut Harness, segments: u64, gap: Time, rtt: Time) {
        ack_timed(h, segments, gap, rtt, None, false);
    }

    fn harness(abw: PrairieAbwParams) -> Harness {
        Harness::new(build(&PrairieParams { abw, ..PrairieParams::default() }))
    }

    #[test]
    fn a_burst_is_spread_over_one_minus_the_congestion_degree_of_its_off_period() {
        let mut h =
            harness(PrairieAbwParams { off_weight: OffWeight::OneMinusCongestion, ..PrairieAbwParams::default() });
        // RTT samples: 40 ms once (RTTmin), then 80 ms; SRTT after the two = 45 ms.
        ack_at(&mut h, 1, 10 * MS, 40 * MS); // starts burst 1 at t=10
                                             // Burst 2 at t=30 (gap 20 ms > delta_burst) ends burst 1.
        ack_at(&mut h, 1, 20 * MS, 80 * MS);
        let srtt = h.rtt.srtt().unwrap() as f64 / 1e9;
        let c = (srtt - 0.040) / srtt;
        let s1 = M / (0.0 + (1.0 - c) * 0.020);
        assert!(approx(var(&h, "congestion_degree"), c));
        assert!(approx(var(&h, "abw_bps") / 8.0, s1), "{} vs {s1}", var(&h, "abw_bps") / 8.0);
        // Two ACKs 0.1 ms apart join burst 2 (delta_burst = 0.1 * SRTT / cwnd >= 0.1 ms).
        let cwnd_segs = h.w.cwnd / M;
        let delta = 0.1 * h.rtt.srtt().unwrap() as f64 / cwnd_segs;
        assert!(delta > 0.1 * MS as f64);
        ack_at(&mut h, 2, MS / 10, 80 * MS);
        ack_at(&mut h, 1, MS / 10, 80 * MS);
        // Burst 2 = 1 + 2 + 1 segments over T_on = 0.2 ms; off period of 30 ms.
        ack_at(&mut h, 1, 30 * MS, 80 * MS);
        let srtt2 = h.rtt.srtt().unwrap() as f64 / 1e9;
        let c2 = (srtt2 - 0.040) / srtt2;
        let s2 = 4.0 * M / (0.0002 + (1.0 - c2) * 0.030);
        let est = 0.9 * s1 + 0.1 * (s2 + s1) / 2.0;
        assert!(approx(var(&h, "abw_sample_bps") / 8.0, s2));
        assert!(approx(var(&h, "abw_bps") / 8.0, est));
        assert!(approx(var(&h, "t_on_s"), 0.0002));
    }

    #[test]
    fn off_weight_choices_change_the_sample() {
        type Weight = fn(f64) -> f64;
        let cases: [(OffWeight, Weight); 2] = [(OffWeight::Congestion, |c| c), (OffWeight::Full, |_| 1.0)];
        for (w, f) in cases {
            let mut h = harness(PrairieAbwParams { off_weight: w, ..PrairieAbwParams::default() });
            ack_at(&mut h, 1, 10 * MS, 40 * MS);
            ack_at(&mut h, 1, 20 * MS, 80 * MS);
            let srtt = h.rtt.srtt().unwrap() as f64 / 1e9;
            let c = (srtt - 0.040) / srtt;
            assert!(approx(var(&h, "abw_bps") / 8.0, M / (f(c) * 0.020)), "{w:?}");
        }
    }

    #[test]
    fn ewma_filter_and_off_period_cap() {
        let p = PrairieAbwParams {
            filter: AbwFilter::Ewma,
            off_weight: OffWeight::Full,
            max_off_srtt: 1.0,
            ..PrairieAbwParams::default()
        };
        let mut h = harness(p);
        ack_at(&mut h, 1, 10 * MS, 40 * MS);
        ack_at(&mut h, 1, 20 * MS, 40 * MS); // sample 1000 B / 20 ms
        let s1 = M / 0.020;
        // 500 ms of silence: capped at one SRTT (40 ms).
        ack_at(&mut h, 1, 500 * MS, 40 * MS);
        let s2 = M / 0.040;
        assert!(approx(var(&h, "abw_bps") / 8.0, 0.9 * s1 + 0.1 * s2));
    }

    #[test]
    fn fast_retransmit_sets_ssthresh_to_abw_times_min_rtt_and_caps_cwnd() {
        let p = PrairieAbwParams { off_weight: OffWeight::Full, ..PrairieAbwParams::default() };
        let mut h = harness(p);
        // Regular ACKs: 1 segment every 5 ms, RTT 50 ms: samples of 200 kB/s exactly.
        for _ in 0..50 {
            ack_at(&mut h, 1, 5 * MS, 50 * MS);
        }
        let abw = var(&h, "abw_bps") / 8.0;
        assert!(approx(abw, 200_000.0), "{abw}");
        h.w.cwnd = 30.0 * M;
        h.loss(Loss::FastRetransmit);
        let ssthresh = (200_000.0 * 0.05_f64).max(2.0 * M);
        assert!(approx(h.w.ssthresh, ssthresh));
        assert_eq!(h.w.cwnd, h.w.ssthresh);
        // A small cwnd is not raised.
        h.exit_recovery();
        h.w.cwnd = 4.0 * M;
        h.loss(Loss::FastRetransmit);
        assert_eq!(h.w.cwnd, 4.0 * M);
    }

    #[test]
    fn the_default_weight_reads_the_delivery_rate_of_an_ack_clocked_stream() {
        // One segment every 5 ms (200 kB/s), each ACK its own burst (T_on = 0); RTT samples
        // alternating 50 and 130 ms make c > 0. With c' = 1 every sample is D / T_off, the
        // rate the flow obtained, never more.
        let mut h = harness(PrairieAbwParams::default());
        for i in 0..40 {
            ack_at(&mut h, 1, 5 * MS, if i % 2 == 0 { 50 * MS } else { 130 * MS });
            let abw = var(&h, "abw_bps") / 8.0;
            assert!(abw.is_nan() || approx(abw, M / 0.005), "{abw}");
        }
        assert!(var(&h, "congestion_degree") > 0.1, "{}", var(&h, "congestion_degree"));
    }

    #[test]
    fn with_the_congestion_weight_a_path_without_queueing_gives_no_sample() {
        // Constant RTT: c = 0, c' = c = 0 and single-ACK bursts (T_on = 0) give no sample.
        let mut h = harness(PrairieAbwParams { off_weight: OffWeight::Congestion, ..PrairieAbwParams::default() });
        for _ in 0..20 {
            ack_at(&mut h, 1, 5 * MS, 50 * MS);
        }
        assert!(var(&h, "abw_bps").is_nan());
        // Once a queue shows (SRTT > RTTmin) c' = c spreads over c * T_off: a sample of
        // rate / c, above the rate the flow obtains.
        // One ACK whose RTT sample (130 ms) lifts SRTT to 60 ms: the first sample.
        ack_at(&mut h, 1, 5 * MS, 130 * MS);
        let srtt = h.rtt.srtt().unwrap() as f64 / 1e9;
        let c = (srtt - 0.050) / srtt;
        assert!(approx(var(&h, "abw_bps") / 8.0, M / (c * 0.005)));
    }

    #[test]
    fn without_an_estimate_the_loss_response_is_reno_halving() {
        let mut h = harness(PrairieAbwParams::default());
        h.snd_max = 12_000;
        h.loss(Loss::FastRetransmit);
        assert_eq!(h.w.ssthresh, 6.0 * M);
    }

    #[test]
    fn a_timeout_sets_one_segment_and_only_the_first_sets_ssthresh() {
        let p = PrairieAbwParams { off_weight: OffWeight::Full, ..PrairieAbwParams::default() };
        let mut h = harness(p);
        for _ in 0..50 {
            ack_at(&mut h, 1, 5 * MS, 50 * MS);
        }
        h.loss(Loss::Timeout { consecutive: 1 });
        assert_eq!(h.w.cwnd, M);
        assert!(approx(h.w.ssthresh, 10.0 * M));
        h.loss(Loss::Timeout { consecutive: 2 });
        assert!(approx(h.w.ssthresh, 10.0 * M));
    }

}
