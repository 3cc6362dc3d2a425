//! Dynamic Responding TCP: on every fast retransmit or timeout, ssthresh follows the
//! available bandwidth and cwnd is cut further as the measured loss rate grows.
//!
//! Reference: M.-Y. Park, S.-H. Chung, C.-W. Ahn, "TCP's dynamic adjustment of transmission
//! rate to packet losses in wireless networks", EURASIP J. Wireless Communications and
//! Networking 2012:304 ("Dynamic responding algorithm", Eqs. 2-5 and the two algorithm
//! boxes). Built on Reno (Reno growth, Reno fast recovery).
//!
//! On the k-th FRR/RTO: Loss_rate_k = 1 / (packets sent since the previous FRR/RTO) * 100
//! (Eq. 2), smoothed with the weight theta_k = interval_k / max interval (Eqs. 3-4);
//! ssthresh = ABW, cwnd = min(ssthresh/2, reduced_cwnd) with reduced_cwnd linear in the
//! smoothed loss rate (Eq. 5); on an RTO the backoff is reset when BDP > cwnd_max/2.
//!
//! Deviations and ambiguities resolved:
//! - ABW is TCP Prairie's estimate ([`PrairieAbw`], itself a reading of an only partly
//!   available paper; its parameters are the nested `abw` table), counting each
//!   acknowledged byte once (`westwood::net_of_duplicates`). Duplicates drawn by a
//!   go-back-N resend of data the receiver already holds are still credited (see
//!   `westwood`). Dynamic may draw more of them than Westwood or Prairie: with
//!   `ssthresh_from = "abw"` and ABW of at least 2 * beta per second it restarts at cwnd >= beta = 10 kB after an RTO rather than
//!   at 1 MSS, so more of the go-back-N resend leaves before the cumulative ACK jumps. How
//!   many more, and their effect, is untested.
//! - "ssthresh = ABW" (algorithm box line 1, l. 137; l. 155 "ssthresh is updated to the
//!   estimated available bandwidth (ABW) at line 1 instead of being halved") is taken
//!   literally by default (`ssthresh_from = "abw"`): ssthresh in bytes is ABW in bytes per
//!   second, i.e. ABW * 1 s. The paper's own worked numbers fix this reading: after an RTO on
//!   the 2 Mb/s simple topology at 5 % loss "our algorithm's ssthresh becomes 132811 at
//!   54.70 s by reflecting the available bandwidth. And, its cwnd becomes about 11024"
//!   (l. 243), and after an FRR cwnd stays "similar with the previous cwnd (12631)" (l. 263).
//!   132811 is ABW in bytes/s of a flow getting about 1.06 Mb/s, while ABW * RTT on that path
//!   (l. 209: 10 ms + 1 ms of propagation each way, RTT at least 22 ms; with the paper's
//!   50-packet window, l. 199, queueing can add up to about 200 ms) is roughly 3-26 kB (an
//!   estimate, untested), and then cwnd = ssthresh/2 would often fall below beta and hide
//!   Eq. 5; l. 157 ("Since cwnd is smaller than ssthresh, cwnd will increase
//!   exponentially until it reaches ssthresh") also needs ssthresh far above cwnd. The
//!   reading that ssthresh is a window is `ssthresh_from = "bdp"`: ABW * `window_rtt`
//!   (SRTT by default; `"min_rtt"` gives Westwood's ABW * RTTmin). Either way ssthresh is floored at 2 MSS (the
//!   paper states no floor). Before any estimate exists, Reno's max(FlightSize/2, 2 MSS)
//!   stands in for ssthresh (on the first expiry of a timeout only, RFC 5681 §3.1); line 2
//!   then halves it as it would an estimate, so cwnd ends at about FlightSize/4 or below
//!   (Eq. 5). This happens only for a loss before the first ABW sample (with
//!   `ssthresh_from = "bdp"` also before the first RTT sample).
//!   The Fig. 7 values do not fix the loss rate: cwnd "about 11024" at 54.75 s, 0.05 s after
//!   the RTO, fits Eq. 5 at SLoss = 0.466 %, and equally cwnd = beta = 10000 (SLoss >= alpha)
//!   plus one 1024-byte segment of slow start; l. 251 ("When the retransmissions end, cwnd of
//!   our scheme is set to 10000 at 54.82 s") suggests the second, with a further event at
//!   54.82 s. Both readings give ssthresh = ABW far above cwnd, which is what they decide.
//! - ssthresh = ABW is set at every FRR and every RTO expiry, repeated ones included (the
//!   algorithm box runs "when a fast recovery or a RTO is triggered", l. 133, 155); RFC 5681
//!   §3.1's rule for repeated expiries protects a halved FlightSize, not an estimate.
//! - BDP of the back-off box = ABW * RTT (l. 171: "calculated by the product of the
//!   available bandwidth and the round trip time (it is well known that TCP's performance is
//!   maximized when cwnd is equal to BDP)"). "The round trip time" is read as the measured
//!   one, SRTT (`window_rtt = "srtt"`, default): on the paper's own 2 Mb/s simple topology
//!   ABW * RTTmin is at most about 7 kB (250 kB/s x 22 ms of propagation + 5 ms of serialisation), below cwnd_max/2 = 12.5 kB, so with RTTmin the
//!   reset could never fire there, while the paper's back-off experiment on that topology
//!   (l. 271: back-off 8 against TCP's 32; l. 281: "This is why the back-off value of our
//!   scheme is lower") shows resets happening; an RTT that includes
//!   queueing reaches the threshold (untested: l. 271's ten-flow scenario was not run). `window_rtt = "min_rtt"` (the pipe size, as Westwood's
//!   ABW * RTTmin; the earlier default) is kept as an option. Without an estimate the
//!   backoff is never reset. Measured (`wtcp reproduce dynamic`, Table 2 at "5 %" faults,
//!   3 replications, before this default changed): with SRTT the reset fires (the largest
//!   back-off falls from 2.3 to 1.0) and Dynamic's RTO count barely moves (51.7 to 53.7);
//!   the ablation `backoff-reset-min-rtt` keeps that comparison. Against this reading:
//!   l. 171's aside ("TCP's performance is maximized when cwnd is equal to BDP") is the
//!   usual pipe-size statement, which uses RTTmin, and ABW * SRTT of a flow's own delivery
//!   rate approaches its bytes in flight, so the test passes more easily as queues grow,
//!   where l. 173 means the reset for a network that is not congested. With the default
//!   `ssthresh_from = "abw"` and ABW above 2 * beta per second, Dynamic restarts at
//!   cwnd = min(ABW/2, reduced_cwnd) >= beta = 10 kB after an FRR/RTO and slow-starts
//!   towards ssthresh = ABW; if that keeps ABW * SRTT (which approaches the bytes in
//!   flight) above 12.5 kB, the test holds at nearly every timeout of a single flow. The
//!   largest back-off of 1.0 above shows that the reset fired, not why (untested). `window_rtt` also sizes ssthresh under
//!   `ssthresh_from = "bdp"`, where ABW * SRTT is about the current flight and cuts little;
//!   the ablations that use `bdp` set `window_rtt = "min_rtt"` (Westwood's pipe size). The
//!   RTO counts above come from the reproduction before the change (51.7 -> 53.7); the
//!   reproduction after it reports 53.9 -> 51.9 for the reverse ablation (the 0.2 between
//!   the two runs is not explained, untested). The l. 271
//!   experiment itself (10 flows, 10 % loss) is not run, so which reading reproduces its
//!   back-off of 8 is untested.
//! - Eq. 2: partial_total_data_sent = the difference of `Ctx::segments_sent` (data segments
//!   sent, retransmissions included) between this event and the previous one, at least 1.
//!   The retransmission that the event itself triggers is sent after the hook, so it counts
//!   in the next interval. The first interval starts at `init` (connection start).
//! - Every fast retransmit and every RTO expiry, repeated ones included, is an event of
//!   Eqs. 2-4 (the paper: "when a kth FRR or RTO is triggered").
//! - Eq. 4: Interval_max includes the current interval, so theta is in [0, 1] and the first
//!   event has theta = 1; if every interval so far is 0, theta = 1. SLoss_0 = 0.
//! - Whether the response uses SLoss_k (this event included) or SLoss_{k-1} is not stated:
//!   the default uses SLoss_k; `sloss_before_event = true` uses SLoss_{k-1}, so the first
//!   response sees SLoss = 0 and keeps cwnd = ssthresh/2.
//! - Eq. 5 is applied as the algorithm box writes it (its if-block, lines 4-7; l. 159 places Eq. 5 at "lines from 5 to 6"): reduced_cwnd =
//!   max((beta - cwnd_max)/alpha * SLoss + cwnd_max, beta) when SLoss > 0, else
//!   reduced_cwnd = ssthresh/2 (no cap at exactly zero loss). With alpha <= 0,
//!   reduced_cwnd = beta. SLoss and alpha are in percent (Eq. 2 multiplies by 100; l. 120 has x
//!   "ranging from 0 to 1" and l. 177 says it "ranges from 0 to 1", which holds for loss
//!   rates up to 1 % (our reading: the paper's scenarios reach 15 % loss, l. 203, and its
//!   alpha runs from 0.1 to 10 %, l. 231); alpha = 0.5 % (l. 237) is on the same percent
//!   scale, so the line is the same either way).
//! - beta and cwnd_max are bytes as in the paper (whose packets were 1024 bytes); they do
//!   not scale with the MSS.
//! - Fast retransmit: the window is set when the FRR is triggered (algorithm box); the
//!   sender adds its dupack inflation on top during recovery, and at the first new ACK
//!   (Reno recovery exit) cwnd returns to min(ssthresh/2, reduced_cwnd) computed at the
//!   trigger, not to ssthresh (the paper: at the new ACK cwnd follows ABW and loss rate).
//! - Timeout: cwnd = min(ssthresh/2, reduced_cwnd), not one segment (the paper's Fig. 7a,b,
//!   l. 243: Dynamic's cwnd about 11 kB just after an RTO, TCP's one segment), hence `timeout_collapses_window = false`;
//!   the sender still goes back N.
//! - Backoff: checked on every RTO expiry, the first included (l. 171 says "when successive
//!   RTOs are triggered", l. 173 "when an RTO is triggered": the reading takes l. 173). The sender has already
//!   doubled the timer for this expiry; the request re-arms it with the un-backed-off RTO.
//! - Growth between losses is Reno's: the algorithm box sets cwnd only "when a fast
//!   recovery or a RTO is triggered" (l. 133), and l. 157 says "cwnd will increase
//!   exponentially until it reaches ssthresh". The sentence "if the loss rate is higher than
//!   zero, cwnd cannot be higher than 25000" (l. 237) explains what the chosen alpha, beta and
//!   cwnd_max mean for Eq. 5 ("while cwnd decreases linearly as the loss rate increases based
//!   on the equation, these parameters indicate that ..."), i.e. the range of reduced_cwnd,
//!   so growth is not capped by default. `cap_growth = true` (the earlier default) stops Reno
//!   growth at cwnd_max while SLoss > 0.
//! - Verdict: none (the scheme does not classify losses).

use serde::Deserialize;

use crate::api::{AckSample, CongestionControl, Ctx, Loss, RecoveryStyle, Time, Verdict, Window, NS_PER_SEC};
use crate::prairie::{PrairieAbw, PrairieAbwParams, WindowRtt, ABW_PARAM_DEFAULT, ABW_PARAM_DOC};
use crate::registry::{AlgorithmInfo, Order, ParamInfo, Range, MAX_WINDOW_BYTES};
use crate::reno::{self, halved_ssthresh, Reno, RenoParams};

/// Parameters of Dynamic Responding TCP.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DynamicParams {
    /// alpha of Eq. 5: the smoothed loss rate, in percent, at and above which
    /// reduced_cwnd = beta (paper: 0.5 %).
    pub alpha_pct: f64,
    /// beta of Eq. 5: the smallest reduced_cwnd, bytes (paper: 10000).
    pub beta_bytes: f64,
    /// cwnd_max of Eq. 5: reduced_cwnd just above zero loss, bytes (paper: 25000).
    pub cwnd_max_bytes: f64,
    /// What line 1 sets ssthresh to: `abw` (ABW in bytes/s as bytes, the paper's literal
    /// "ssthresh = ABW", default) or `bdp` (ABW * `window_rtt`).
    pub ssthresh_from: SsthreshFrom,
    /// RTT turning ABW into the BDP of the back-off box (and into ssthresh with
    /// `ssthresh_from = "bdp"`): `srtt` (default) or `min_rtt`.
    pub window_rtt: WindowRtt,
    /// Respond with SLoss_{k-1} (before this event) instead of SLoss_k (not stated in the
    /// paper; default false).
    pub sloss_before_event: bool,
    /// Prairie's ABW estimator (nested table, see `prairie`).
    pub abw: PrairieAbwParams,
    /// RFC 3465 byte counting in Reno growth (off: RFC 5681 per-ACK increase).
    pub byte_counting: bool,
    /// Byte-counting limit L in segments (RFC 3465 §2.2: 2).
    pub abc_limit: u32,
    /// While the smoothed loss rate is positive, cwnd does not grow past cwnd_max (default
    /// false: Eq. 5 applies only at FRR/RTO, as in the algorithm box).
    pub cap_growth: bool,
}

/// What "ssthresh = ABW" (algorithm box line 1) sets ssthresh to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshFrom {
    /// ssthresh (bytes) = ABW (bytes per second): the paper's line 1 and Fig. 7 values.
    Abw,
    /// ssthresh = ABW * RTT, a window as in Westwood.
    Bdp,
}

impl Default for DynamicParams {
    fn default() -> Self {
        DynamicParams {
            alpha_pct: 0.5,
            beta_bytes: 10_000.0,
            cwnd_max_bytes: 25_000.0,
            ssthresh_from: SsthreshFrom::Abw,
            window_rtt: WindowRtt::Srtt,
            sloss_before_event: false,
            abw: PrairieAbwParams::default(),
            byte_counting: false,
            abc_limit: 2,
            cap_growth: false,
        }
    }
}

pub const DYNAMIC_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "dynamic",
    summary: "Reno whose FRR/RTO response sets ssthresh to Prairie's ABW (bytes/s taken as bytes, as the paper's Fig. 7) and cwnd to min(ssthresh/2, a window falling linearly with the smoothed loss rate); resets the RTO backoff when BDP is large.",
    reference: "Park, Chung, Ahn, EURASIP J. Wireless Commun. Netw. 2012:304",
    params: &[
        ParamInfo { name: "alpha_pct", unit: "%", default: "0.5", doc: "Eq. 5 alpha: smoothed loss rate at which reduced_cwnd reaches beta (paper 0.5 %)", range: Range::closed(0.0, 100.0) },
        ParamInfo { name: "beta_bytes", unit: "bytes", default: "10000.0", doc: "Eq. 5 beta: smallest reduced_cwnd (paper 10000)", range: Range::closed(1.0, MAX_WINDOW_BYTES) },
        ParamInfo { name: "cwnd_max_bytes", unit: "bytes", default: "25000.0", doc: "Eq. 5 cwnd_max: reduced_cwnd just above zero loss (paper 25000)", range: Range::closed(1.0, MAX_WINDOW_BYTES) },
        ParamInfo { name: "ssthresh_from", unit: "abw|bdp", default: "abw", doc: "line 1 \"ssthresh = ABW\": abw sets ssthresh (bytes) to ABW in bytes/s (the paper's Fig. 7 values), bdp to ABW * window_rtt", range: Range::Any },
        ParamInfo { name: "window_rtt", unit: "min_rtt|srtt", default: "srtt", doc: "RTT turning ABW into the back-off box's BDP (l. 171, \"the round trip time\") and into ssthresh with ssthresh_from = bdp", range: Range::Any },
        ParamInfo { name: "sloss_before_event", unit: "bool", default: "false", doc: "respond with the smoothed loss rate before this event (SLoss_{k-1}) instead of SLoss_k", range: Range::Any },
        ParamInfo { name: "abw", unit: "table", default: ABW_PARAM_DEFAULT, doc: ABW_PARAM_DOC, range: Range::Table(crate::prairie::ABW_PARAMS) },
        reno::BYTE_COUNTING,
        reno::ABC_LIMIT,
        ParamInfo { name: "cap_growth", unit: "bool", default: "false", doc: "while the smoothed loss rate is positive, Reno growth stops at cwnd_max (not in the algorithm box)", range: Range::Any },
    ],
    timeout_collapses_window: false,
    constraints: &[Order { low: "beta_bytes", high: "cwnd_max_bytes", why: "Eq. 5: reduced_cwnd falls from cwnd_max at zero loss to beta at SLoss = alpha" }],
};

pub fn build(p: &DynamicParams) -> Box<dyn CongestionControl> {
    Box::new(Dynamic {
        p: *p,
        reno: RenoParams { byte_counting: p.byte_counting, abc_limit: p.abc_limit, ..RenoParams::default() },
        abw: PrairieAbw::new(p.abw),
        last_event_at: 0,
        segments_at_last_event: 0,
        interval_max: 0,
        loss_rate_pct: 0.0,
        sloss_pct: 0.0,
        theta: f64::NAN,
        reduced_cwnd: f64::NAN,
        target_cwnd: None,
        bdp: None,
    })
}

/// Dynamic Responding TCP: all mutable state.
#[derive(Clone, Debug)]
pub struct Dynamic {
    p: DynamicParams,
    reno: RenoParams,
    abw: PrairieAbw,
    /// Time of the previous FRR/RTO (connection start before the first).
    last_event_at: Time,
    /// `segments_sent` at the previous FRR/RTO.
    segments_at_last_event: u64,
    /// Interval_max of Eq. 4, ns.
    interval_max: Time,
    /// Loss_rate_k of Eq. 2, percent.
    loss_rate_pct: f64,
    /// SLoss_rate_k of Eq. 3, percent.
    sloss_pct: f64,
    /// theta_k of Eq. 4.
    theta: f64,
    /// reduced_cwnd of the last response, bytes.
    reduced_cwnd: f64,
    /// min(ssthresh/2, reduced_cwnd) of the last response, restored at recovery exit.
    target_cwnd: Option<f64>,
    /// BDP at the last event, bytes.
    bdp: Option<f64>,
}

impl Dynamic {
    /// Eqs. 2-4 at the k-th FRR/RTO.
    fn update_loss_rate(&mut self, cx: &Ctx) {
        // Eq. 2: Loss_rate_k = 1 / partial_total_data_sent * 100.
        let sent = cx.segments_sent.saturating_sub(self.segments_at_last_event).max(1);
        self.loss_rate_pct = 100.0 / sent as f64;
        // Eq. 4: theta_k = Interval_current / Interval_max.
        let interval = cx.now.saturating_sub(self.last_event_at);
        self.interval_max = self.interval_max.max(interval);
        self.theta = if self.interval_max == 0 { 1.0 } else { interval as f64 / self.interval_max as f64 };
        // Eq. 3: SLoss_k = SLoss_{k-1} * (1 - theta_k) + Loss_rate_k * theta_k.
        self.sloss_pct = self.sloss_pct * (1.0 - self.theta) + self.loss_rate_pct * self.theta;
        self.last_event_at = cx.now;
        self.segments_at_last_event = cx.segments_sent;
    }

    /// Algorithm box, lines 2-8: cwnd = min(ssthresh/2, reduced_cwnd).
    fn respond(&mut self, ssthresh: f64, sloss_pct: f64) -> f64 {
        let p = &self.p;
        // Line 2: cwnd = ssthresh / 2; line 3: reduced_cwnd = cwnd.
        let cwnd = ssthresh / 2.0;
        let mut reduced = cwnd;
        if sloss_pct > 0.0 {
            reduced = if p.alpha_pct > 0.0 {
                // Line 5 (Eq. 5): reduced_cwnd = (beta - cwnd_max)/alpha * SLoss + cwnd_max;
                // line 6: reduced_cwnd = max(reduced_cwnd, beta).
                ((p.beta_bytes - p.cwnd_max_bytes) / p.alpha_pct * sloss_pct + p.cwnd_max_bytes).max(p.beta_bytes)
            } else {
                p.beta_bytes
            };
        }
        self.reduced_cwnd = reduced;
        // Line 8: cwnd = min(cwnd, reduced_cwnd).
        cwnd.min(reduced)
    }
}

impl CongestionControl for Dynamic {
    fn name(&self) -> &'static str {
        "dynamic"
    }

    fn recovery_style(&self) -> RecoveryStyle {
        RecoveryStyle::Reno
    }

    fn init(&mut self, _w: &mut Window, cx: &mut Ctx) {
        self.abw.start(cx);
        self.last_event_at = cx.now;
        self.segments_at_last_event = cx.segments_sent;
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        self.abw.on_ack(ack, w, cx);
        let before = w.cwnd;
        Reno::grow(&self.reno, ack, w, cx.mss_f());
        // "If the loss rate is higher than zero, cwnd cannot be higher than cwnd_max."
        if self.p.cap_growth && self.sloss_pct > 0.0 && w.cwnd > self.p.cwnd_max_bytes {
            w.cwnd = before.max(self.p.cwnd_max_bytes).min(w.cwnd);
        }
    }

    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
        let mss = cx.mss_f();
        let before = self.sloss_pct;
        self.update_loss_rate(cx);
        let sloss = if self.p.sloss_before_event { before } else { self.sloss_pct };
        // BDP = ABW * RTT (bytes/s * s).
        self.bdp = self.abw.window_bytes(self.p.window_rtt, cx);
        // Line 1: ssthresh = ABW, at every FRR/RTO.
        let abw = match self.p.ssthresh_from {
            SsthreshFrom::Abw => self.abw.estimate_bytes_per_s(),
            SsthreshFrom::Bdp => self.bdp,
        };
        let first = !matches!(loss, Loss::Timeout { consecutive } if consecutive > 1);
        match abw {
            Some(a) => w.ssthresh = a.max(2.0 * mss),
            // No estimate yet: Reno's halving, once per timeout sequence (RFC 5681 §3.1).
            None if first => w.ssthresh = halved_ssthresh(cx.flight_size as f64, mss),
            None => {}
        }
        let cwnd = self.respond(w.ssthresh, sloss);
        w.cwnd = cwnd;
        self.target_cwnd = Some(cwnd);
        if let Loss::Timeout { .. } = loss {
            // Backoff box: if BDP > cwnd_max / 2, initialise the back-off value.
            if self.bdp.is_some_and(|bdp| bdp > self.p.cwnd_max_bytes / 2.0) {
                cx.reset_rto_backoff();
            }
        }
        Verdict::None
    }

    fn on_recovery_exit(&mut self, w: &mut Window, cx: &mut Ctx) {
        self.abw.on_recovery_exit(w, cx);
        w.cwnd = self.target_cwnd.unwrap_or(w.ssthresh);
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("abw_bps", self.abw.estimate_bps().unwrap_or(f64::NAN)));
        out.push(("loss_rate_pct", self.loss_rate_pct));
        out.push(("sloss_rate_pct", self.sloss_pct));
        out.push(("theta", self.theta));
        out.push(("reduced_cwnd", self.reduced_cwnd));
        out.push(("bdp_bytes", self.bdp.unwrap_or(f64::NAN)));
        out.push(("interval_max_s", self.interval_max as f64 / NS_PER_SEC));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prairie::OffWeight;
    use crate::testing::{Harness, MSS, var, approx, ack_timed};

    const MS: Time = 1_000_000;
    const M: f64 = MSS as f64;

    /// An ACK of `segments` new segments `gap` ns after the previous event, with RTT sample `rtt`.
    fn ack_at(h: &mut Harness, segments: u64, gap: Time, rtt: Time) {
        ack_timed(h, segments, gap, rtt, None, false);
    }

    /// Eq. 5 of the paper, written independently: y = (beta - cwnd_max)/alpha * x + cwnd_max
    /// for 0 <= x < alpha, beta for x >= alpha.
    fn eq5(x: f64) -> f64 {
        let (alpha, beta, cwnd_max) = (0.5, 10_000.0, 25_000.0);
        if x < alpha {
            (beta - cwnd_max) / alpha * x + cwnd_max
        } else {
            beta
        }
    }

    /// Default parameters except that ABW samples are the plain average rate (c' = 1), so
    /// that the constant-RTT ACK sequences below give round ABW values.
    fn params() -> DynamicParams {
        DynamicParams {
            abw: PrairieAbwParams { off_weight: OffWeight::Full, ..PrairieAbwParams::default() },
            ..DynamicParams::default()
        }
    }

    /// A sender whose ABW is 1 MB/s (2 segments every 2 ms, constant RTT 100 ms): ssthresh
    /// "= ABW" is 1 MB, and ABW * RTTmin = 100 kB.
    fn with_abw(p: DynamicParams) -> Harness {
        let mut h = Harness::new(build(&p));
        for _ in 0..10 {
            ack_at(&mut h, 2, 2 * MS, 100 * MS);
        }
        assert!(approx(var(&h, "abw_bps") / 8.0, 1e6), "{}", var(&h, "abw_bps"));
        h
    }

    #[test]
    fn reduced_cwnd_follows_eq5_at_zero_quarter_and_one_percent_loss() {
        let abw = 1e6;
        // SLoss = 0: the first response with SLoss_{k-1}; no cap, cwnd = ssthresh/2.
        let mut h = with_abw(DynamicParams { sloss_before_event: true, ..params() });
        h.snd_max = 400_000;
        h.loss(Loss::FastRetransmit);
        assert!(approx(h.w.ssthresh, abw));
        assert_eq!(h.w.cwnd, h.w.ssthresh / 2.0);
        assert_eq!(var(&h, "reduced_cwnd"), h.w.ssthresh / 2.0);
        // SLoss = 0.25 % (400 segments sent since the start) and 1 % (100 segments).
        for (segments, sloss) in [(400u64, 0.25), (100, 1.0)] {
            let mut h = with_abw(params());
            h.snd_max = segments * u64::from(MSS);
            h.loss(Loss::FastRetransmit);
            assert!(approx(var(&h, "sloss_rate_pct"), sloss));
            assert!(approx(h.w.ssthresh, abw));
            let reduced = eq5(sloss);
            assert!(approx(var(&h, "reduced_cwnd"), reduced), "{} vs {reduced}", var(&h, "reduced_cwnd"));
            assert!(approx(h.w.cwnd, (abw / 2.0).min(reduced)));
        }
        assert_eq!(eq5(0.25), 17_500.0);
        assert_eq!(eq5(1.0), 10_000.0);
    }

    #[test]
    fn the_papers_fig7_rto_values_ssthresh_is_abw_and_eq5_sets_cwnd() {
        // Fig. 7a (l. 243, 251): "ssthresh becomes 132811 ... its cwnd becomes about 11024"
        // 0.05 s later, and 10000 when the retransmissions end. An ABW of 132811 bytes/s (one
        // 1000-byte segment every 7.529497 ms) and SLoss >= alpha (100 segments sent before
        // the RTO, 1 %): ssthresh = 132811, cwnd = beta = 10000 (ssthresh/2 = 66405 does not
        // bind), and cwnd < ssthresh, so each ACK adds a segment (with the paper's 1024-byte
        // segments, 11024 after the first).
        let mut h = Harness::new(build(&params()));
        for _ in 0..10 {
            ack_at(&mut h, 1, 7_529_497, 30 * MS);
        }
        h.snd_max = 100_000;
        h.loss(Loss::Timeout { consecutive: 1 });
        assert!((h.w.ssthresh - 132_811.0).abs() < 1.0, "{}", h.w.ssthresh);
        assert_eq!(h.w.cwnd, 10_000.0);
        ack_at(&mut h, 1, 7_529_497, 30 * MS);
        assert_eq!(h.w.cwnd, 10_000.0 + M);
        // The window reading (ABW * RTTmin = 3984 bytes) would give cwnd = 1992 bytes.
        let mut h = Harness::new(build(&DynamicParams { ssthresh_from: SsthreshFrom::Bdp, ..params() }));
        for _ in 0..10 {
            ack_at(&mut h, 1, 7_529_497, 30 * MS);
        }
        h.snd_max = 100_000;
        h.loss(Loss::Timeout { consecutive: 1 });
        assert!((h.w.ssthresh - 132_811.0 * 0.03).abs() < 1.0, "{}", h.w.ssthresh);
        assert!(approx(h.w.cwnd, h.w.ssthresh / 2.0));
    }

    #[test]
    fn ssthresh_is_floored_at_two_segments_and_halves_flight_size_without_an_estimate() {
        // ABW 1000 bytes/s (one segment a second): ssthresh = max(1000, 2 MSS) = 2 MSS.
        let mut h = Harness::new(build(&params()));
        for _ in 0..5 {
            ack_at(&mut h, 1, 1000 * MS, 30 * MS);
        }
        h.loss(Loss::FastRetransmit);
        assert_eq!(h.w.ssthresh, 2.0 * M);
        // No estimate: RFC 5681 max(FlightSize/2, 2 MSS), kept on a repeated expiry.
        let mut h = Harness::new(build(&params()));
        h.snd_max = 30_000;
        h.loss(Loss::Timeout { consecutive: 1 });
        assert_eq!(h.w.ssthresh, 15_000.0);
        h.snd_max = 60_000;
        h.loss(Loss::Timeout { consecutive: 2 });
        assert_eq!(h.w.ssthresh, 15_000.0);
    }

    #[test]
    fn half_ssthresh_wins_when_it_is_below_reduced_cwnd() {
        // ssthresh_from = "bdp", ABW 200 kB/s, RTT 50 ms: ssthresh = 10 kB, half = 5 kB <
        // eq5(0.25 %) = 17.5 kB.
        let mut h = Harness::new(build(&DynamicParams { ssthresh_from: SsthreshFrom::Bdp, ..params() }));
        for _ in 0..10 {
            ack_at(&mut h, 1, 5 * MS, 50 * MS);
        }
        h.snd_max = 400_000;
        h.loss(Loss::FastRetransmit);
        assert!(approx(h.w.ssthresh, 10_000.0));
        assert!(approx(h.w.cwnd, 5_000.0));
    }

    #[test]
    fn loss_rate_is_smoothed_with_theta_equal_to_interval_over_the_largest_interval() {
        let mut h = Harness::new(build(&DynamicParams::default()));
        // (interval in ms, segments sent in the interval, event)
        let events =
            [(2000u64, 200u64, false), (1000, 100, false), (4000, 400, true), (2000, 50, false), (500, 1000, true)];
        let (mut sloss, mut max_iv, mut sent_total) = (0.0_f64, 0_u64, 0_u64);
        for (iv, sent, timeout) in events {
            h.now += iv * MS;
            sent_total += sent;
            h.snd_max = sent_total * u64::from(MSS);
            if timeout {
                h.loss(Loss::Timeout { consecutive: 1 });
            } else {
                h.loss(Loss::FastRetransmit);
                h.exit_recovery();
            }
            // Independent recomputation of Eqs. 2-4.
            let loss_rate = 100.0 / sent as f64;
            max_iv = max_iv.max(iv);
            let theta = iv as f64 / max_iv as f64;
            sloss = sloss * (1.0 - theta) + loss_rate * theta;
            assert!(approx(var(&h, "theta"), theta), "theta {} vs {theta}", var(&h, "theta"));
            assert!(approx(var(&h, "loss_rate_pct"), loss_rate));
            assert!(approx(var(&h, "sloss_rate_pct"), sloss), "sloss {} vs {sloss}", var(&h, "sloss_rate_pct"));
        }
        // The hand values: 0.5, 0.75, 0.25, 1.125, then theta = 1/8: 1.125*7/8 + 0.1/8.
        assert!(approx(sloss, 1.125 * 0.875 + 0.1 * 0.125));
    }

    #[test]
    fn by_default_the_backoff_box_uses_srtt_so_queueing_can_reach_half_cwnd_max() {
        assert_eq!(DynamicParams::default().window_rtt, WindowRtt::Srtt);
        // ABW = 1000 B / 20 ms = 50 kB/s; RTTmin 100 ms (BDP 5 kB < 12.5 kB), then RTT
        // samples of 400 ms lift SRTT towards 400 ms (BDP ~20 kB > 12.5 kB).
        for (window_rtt, resets) in [(WindowRtt::MinRtt, false), (WindowRtt::Srtt, true)] {
            let mut h = Harness::new(build(&DynamicParams { window_rtt, ..params() }));
            ack_at(&mut h, 1, 20 * MS, 100 * MS);
            for _ in 0..20 {
                ack_at(&mut h, 1, 20 * MS, 400 * MS);
            }
            h.loss(Loss::Timeout { consecutive: 1 });
            assert_eq!(h.requests.reset_rto_backoff, resets, "{window_rtt:?}: bdp {}", var(&h, "bdp_bytes"));
        }
    }

    #[test]
    fn a_timeout_resets_the_backoff_only_when_bdp_exceeds_half_cwnd_max() {
        // BDP = 1 MB/s * 100 ms = 100 kB > 12.5 kB: reset requested.
        let mut h = with_abw(params());
        h.loss(Loss::Timeout { consecutive: 1 });
        assert!(h.requests.reset_rto_backoff);
        assert!(approx(var(&h, "bdp_bytes"), 100_000.0));
        // A fast retransmit never asks.
        let mut h = with_abw(params());
        h.loss(Loss::FastRetransmit);
        assert!(!h.requests.reset_rto_backoff);
        // BDP = 1000 B / 20 ms * 50 ms = 2.5 kB < 12.5 kB: no reset.
        let mut h = Harness::new(build(&params()));
        for _ in 0..10 {
            ack_at(&mut h, 1, 20 * MS, 50 * MS);
        }
        h.loss(Loss::Timeout { consecutive: 1 });
        assert!(approx(var(&h, "bdp_bytes"), 2_500.0));
        assert!(!h.requests.reset_rto_backoff);
        // BDP = ABW * SRTT by default, ABW * RTTmin with window_rtt = "min_rtt": RTT samples
        // alternating 50 and 150 ms make SRTT differ from RTTmin.
        for (window_rtt, use_srtt) in [(WindowRtt::MinRtt, false), (WindowRtt::Srtt, true)] {
            let mut h = Harness::new(build(&DynamicParams { window_rtt, ..params() }));
            for i in 0..10 {
                ack_at(&mut h, 1, 20 * MS, if i % 2 == 0 { 50 * MS } else { 150 * MS });
            }
            h.loss(Loss::Timeout { consecutive: 1 });
            let abw = var(&h, "abw_bps") / 8.0;
            let srtt = h.rtt.srtt().unwrap() as f64 / 1e9;
            let rtt = if use_srtt { srtt } else { 0.05 };
            assert!(srtt > 0.06);
            assert!(approx(var(&h, "bdp_bytes"), abw * rtt), "{window_rtt:?}");
            assert_eq!(h.requests.reset_rto_backoff, abw * rtt > 12_500.0);
        }
        // Without an estimate there is no reset.
        let mut h = Harness::new(build(&DynamicParams::default()));
        h.loss(Loss::Timeout { consecutive: 1 });
        assert!(!h.requests.reset_rto_backoff);
    }

    #[test]
    fn every_timeout_sets_ssthresh_to_abw_and_cwnd_to_min_half_ssthresh_reduced() {
        let mut h = with_abw(params());
        h.snd_max = 400_000;
        h.loss(Loss::Timeout { consecutive: 1 });
        assert!(approx(h.w.ssthresh, 1e6));
        assert!(approx(h.w.cwnd, eq5(0.25)));
        // The repeated expiry: one segment sent since, loss rate 100 %, theta = 1 s / 1 s.
        h.now += 1000 * MS;
        h.snd_max += 1000;
        h.loss(Loss::Timeout { consecutive: 2 });
        assert!(approx(h.w.ssthresh, 1e6));
        assert!(approx(h.w.cwnd, 10_000.0));
        // A repeated expiry after the estimate moved takes the new ABW (every RTO, l. 133).
        for _ in 0..60 {
            ack_at(&mut h, 1, 2 * MS, 100 * MS);
        }
        let abw = var(&h, "abw_bps") / 8.0;
        assert!((abw - 1e6).abs() > 1e5, "{abw}");
        h.loss(Loss::Timeout { consecutive: 3 });
        assert!(approx(h.w.ssthresh, abw));
    }

    #[test]
    fn while_the_loss_rate_is_positive_growth_stops_at_cwnd_max() {
        for cap in [true, false] {
            let mut h = with_abw(DynamicParams { cap_growth: cap, ..params() });
            h.snd_max = 400_000;
            h.loss(Loss::Timeout { consecutive: 1 });
            assert!(h.w.cwnd <= 25_000.0);
            for _ in 0..2000 {
                ack_at(&mut h, 1, MS, 100 * MS);
            }
            if cap {
                assert_eq!(h.w.cwnd, 25_000.0);
            } else {
                assert!(h.w.cwnd > 25_000.0, "{}", h.w.cwnd);
            }
        }
    }

    #[test]
    fn recovery_exit_restores_the_dynamic_window_not_ssthresh() {
        let mut h = with_abw(params());
        h.snd_max = 400_000;
        h.loss(Loss::FastRetransmit);
        h.w.cwnd += 3.0 * M; // the sender's inflation
        h.in_recovery = true;
        h.dup_ack();
        h.exit_recovery();
        assert!(approx(h.w.cwnd, 17_500.0));
        assert!(approx(h.w.ssthresh, 1e6));
        assert_eq!(h.cc.recovery_style(), RecoveryStyle::Reno);
    }

}
