//! TCP Vegas.
//!
//! L. S. Brakmo and L. L. Peterson, "TCP Vegas: End to End Congestion Avoidance on a
//! Global Internet", IEEE JSAC 13(8):1465-1480, Oct. 1995; ns-2 `Agent/TCP/Vegas`
//! (tcp/tcp-vegas.cc); Linux `net/ipv4/tcp_vegas.c`.
//!
//! Once per round trip Vegas compares the expected rate cwnd/BaseRTT with the actual rate
//! cwnd/RTT; their difference times BaseRTT (Diff, segments queued in the network) keeps
//! cwnd between alpha and beta extra segments. Slow start doubles only every other RTT.
//!
//! Deviations and ambiguities resolved:
//! - Actual = cwnd/RTT: the paper's own simplification "WindowSize equals the bytes in
//!   transit", so Diff = cwnd * (1 - BaseRTT/RTT) segments. The paper measures Actual from
//!   the bytes sent during the timed RTT; ns-2 uses segments sent and outstanding; Linux
//!   computes cwnd * (RTT - BaseRTT)/BaseRTT (larger by RTT/BaseRTT). Diff is compared as
//!   a real number (ns-2 rounds it to an integer).
//! - A round ends on the first new ACK above the SND.MAX recorded at the previous round's
//!   end (Linux `beg_snd_nxt`). The round's RTT is the mean (ns-2, default) or the minimum
//!   (Linux) of the RTT samples taken during the round, exposed as `round_rtt`; the paper
//!   times one distinguished segment. A round without samples uses the time since the
//!   round began (ns-2). Linux's "fewer than 3 samples: behave as Reno" rule is not used:
//!   without timestamps a sender may take one sample per RTT.
//! - BaseRTT is the minimum RTT ever seen (paper, ns-2); it is never reset (Linux resets it
//!   on idle restart, which this interface does not signal).
//! - Congestion avoidance adjusts cwnd by one whole segment at the end of the round (Linux).
//!   The paper spreads the change linearly over the next RTT; ns-2 decreases at once and
//!   increases by 1/cwnd per ACK. A decrease also sets ssthresh = min(ssthresh, cwnd) so
//!   that Vegas stays out of slow start (Linux; ns-2 sets ssthresh = 2). Decreases stop at
//!   2 segments (ns-2, Linux).
//! - Modified slow start: a growth round (Reno slow start, +1 SMSS per ACK) alternates with
//!   a frozen round. Diff is compared with gamma only at the end of a frozen round, where
//!   the window was constant (ns-2). On Diff > gamma cwnd is cut by 1/8 (paper, ns-2) and
//!   ssthresh = cwnd ends slow start (Linux instead sets cwnd = target + 1). The first round
//!   after start or after a loss is a growth round.
//! - Increases (slow start and avoidance) apply only while the window is in use: cwnd minus
//!   the data outstanding before this ACK is at most 2 segments (ns-2 tests the data
//!   outstanding after the ACK, which lets stretch ACKs suppress growth).
//! - Loss: Reno's response (`Reno::respond`) on fast retransmit and timeout, as Linux
//!   does; the quantity halved is `halve` (default cwnd, as ns-2 and Linux; ns-3's
//!   TcpVegas halves nothing: ssthresh = max(min(ssthresh, cwnd - 1 segment), 2). The
//!   paper cuts cwnd to 3/4 on a fine-grained-timer retransmit, only for a segment sent
//!   after the last cut, and ns-2 restarts from 2 segments after a timeout; neither is used.
//!   The paper's fine-grained retransmit on the first or second duplicate ACK is a sender
//!   mechanism this interface does not offer. Vegas makes no loss classification: the
//!   verdict is always `None`.
//! - ns-3.44's TcpVegas, for comparison with ns-3 (the `ns3` profile), is `model = "ns3"`
//!   (`vegas_ns3.rs`): Linux's structure with ns-3's smoothed RTT and loss response, integer
//!   Diff, slow start every round with its exit to the target window plus one, NewReno
//!   growth while a round has at most 2 RTT reports and during CA_LOSS, Vegas off from the
//!   first duplicate ACK to the next new ACK. With the `paper` model, `rtt = "smoothed"`
//!   and `loss_response = "one_segment"` give the paper's structure ns-3's inputs alone.
//! - Fast recovery: NewReno (RFC 6582), as Linux recovers; ns-2 Vegas runs its own
//!   Reno-like recovery. Vegas is suspended during recovery (Linux); after a loss or the
//!   end of recovery the round restarts on the next new ACK.

use serde::Deserialize;

use crate::api::{AckSample, CongestionControl, Ctx, Loss, RecoveryStyle, Time, Verdict, Window, NS_PER_SEC};
use crate::filters::MinTracker;
use crate::registry::{AlgorithmInfo, Order, ParamInfo, Range, MAX_SEGMENTS};
use crate::reno::{slow_start, HalveOf, Reno, RenoParams};

const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "alpha",
        unit: "segments",
        default: "1",
        doc: "Diff below alpha: cwnd += 1 segment per RTT (paper and ns-2: 1; Linux: 2)",
        range: Range::closed(0.0, MAX_SEGMENTS),
    },
    ParamInfo {
        name: "beta",
        unit: "segments",
        default: "3",
        doc: "Diff above beta: cwnd -= 1 segment per RTT (paper and ns-2: 3; Linux: 4)",
        range: Range::closed(0.0, MAX_SEGMENTS),
    },
    ParamInfo {
        name: "gamma",
        unit: "segments",
        default: "1",
        doc: "slow start ends when Diff exceeds gamma (paper, ns-2 and Linux: 1)",
        range: Range::closed(0.0, MAX_SEGMENTS),
    },
    ParamInfo {
        name: "round_rtt",
        unit: "mean|min",
        default: "mean",
        doc: "RTT of a round: mean of its samples (ns-2) or minimum (Linux)",
        range: Range::Any,
    },
    ParamInfo {
        name: "halve",
        unit: "flight_size|cwnd|pipe",
        default: "cwnd",
        doc: "quantity halved by Reno's loss response: cwnd (ns-2, Linux), FlightSize (RFC 5681) or the RFC 6675 pipe",
        range: Range::Any,
    },
    ParamInfo {
        name: "rtt",
        unit: "sample|smoothed",
        default: "sample",
        doc: "RTT fed to BaseRTT and the round: each ACK's sample (paper, ns-2, Linux) or SRTT (ns-3's TcpSocketBase passes m_srtt to PktsAcked)",
        range: Range::Any,
    },
    ParamInfo {
        name: "model",
        unit: "paper|ns3",
        default: "paper",
        doc: "structure: the paper's and ns-2's (real Diff, frozen slow-start rounds) or ns-3.44's TcpVegas (integer Diff, NewReno growth in rounds with under 3 RTT reports; vegas_ns3.rs)",
        range: Range::Any,
    },
    ParamInfo {
        name: "loss_response",
        unit: "halve|one_segment",
        default: "halve",
        doc: "loss: Reno's halving (paper, ns-2, Linux) or ns-3's TcpVegas: ssthresh = max(min(ssthresh, cwnd - 1 segment), 2 segments) with ssthresh >= 3/4 cwnd after each round",
        range: Range::Any,
    },
];

pub const VEGAS_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "vegas",
    summary: "Delay-based: once per RTT keeps Diff = cwnd*(1 - BaseRTT/RTT) between alpha and beta segments; slow start doubles every other RTT; Reno on loss.",
    reference: "Brakmo & Peterson, IEEE JSAC 13(8), 1995; ns-2 Agent/TCP/Vegas; Linux tcp_vegas.c",
    params: PARAMS,
    timeout_collapses_window: true,
    constraints: &[Order { low: "alpha", high: "beta", why: "Brakmo & Peterson: cwnd grows while Diff < alpha and shrinks while Diff > beta, so alpha must not exceed beta" }],
};

/// Which RTT of a round enters Actual.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoundRtt {
    /// Mean of the round's samples (ns-2).
    #[default]
    Mean,
    /// Minimum of the round's samples, which filters delayed ACKs (Linux).
    Min,
}

/// Which RTT Vegas takes from an ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VegasRtt {
    /// The ACK's RTT sample (paper, ns-2, Linux).
    #[default]
    Sample,
    /// The sender's SRTT after this ACK (ns-3.44 tcp-socket-base.cc ProcessAck passes
    /// `m_tcb->m_srtt` to PktsAcked, tcp-vegas.cc:91-110 takes it as the RTT).
    Smoothed,
}

/// How Vegas answers a loss.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VegasLoss {
    /// Reno's response, halving `halve` (paper's Reno, ns-2, Linux).
    #[default]
    Halve,
    /// ns-3.44's TcpVegas: ssthresh = max(min(ssthresh, cwnd - 1 segment), 2 segments)
    /// (tcp-vegas.cc GetSsThresh), cwnd = ssthresh on fast retransmit and 1 segment on a
    /// timeout, and ssthresh >= 3/4 cwnd after every round's decision (IncreaseWindow), so
    /// that in congestion avoidance a loss cuts one segment or at most a quarter.
    OneSegment,
}

/// Which structure of Vegas runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VegasModel {
    /// The paper's and ns-2's (this module).
    #[default]
    Paper,
    /// ns-3.44's TcpVegas ([`crate::vegas_ns3`]).
    Ns3,
}

/// Parameters of Vegas.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VegasParams {
    /// Lower bound on Diff in segments: below it cwnd grows by one segment per RTT.
    /// Paper ("Vegas-1,3") and ns-2 `v_alpha_`: 1; Linux module parameter `alpha`: 2.
    pub alpha: f64,
    /// Upper bound on Diff in segments: above it cwnd shrinks by one segment per RTT.
    /// Paper and ns-2 `v_beta_`: 3; Linux `beta`: 4.
    pub beta: f64,
    /// Slow-start exit threshold on Diff in segments. Paper, ns-2 `v_gamma_` and Linux
    /// `gamma`: 1.
    pub gamma: f64,
    /// RTT of a round: `mean` of its samples (ns-2) or `min` (Linux).
    pub round_rtt: RoundRtt,
    /// What Reno's loss response halves: `cwnd` (ns-2, Linux), `flight_size` (RFC 5681
    /// eq. 4) or `pipe` (the RFC 6675 pipe).
    pub halve: HalveOf,
    /// RTT taken from an ACK: `sample` or `smoothed` (ns-3).
    pub rtt: VegasRtt,
    /// Loss response: `halve` (Reno) or `one_segment` (ns-3).
    pub loss_response: VegasLoss,
    /// Structure: `paper` or `ns3`.
    pub model: VegasModel,
}

impl Default for VegasParams {
    fn default() -> Self {
        VegasParams {
            alpha: 1.0,
            beta: 3.0,
            gamma: 1.0,
            round_rtt: RoundRtt::Mean,
            halve: HalveOf::Cwnd,
            rtt: VegasRtt::Sample,
            loss_response: VegasLoss::Halve,
            model: VegasModel::Paper,
        }
    }
}

/// The mutable state of one Vegas sender.
#[derive(Clone, Debug)]
struct VegasState {
    /// BaseRTT: the minimum RTT ever seen, ns.
    base_rtt: MinTracker,
    /// SND.MAX at the start of the current round; `None` until a new ACK starts one.
    round_end: Option<u64>,
    /// Time the current round started, ns.
    round_start: Time,
    /// Sum, count and minimum of the RTT samples of the current round, ns.
    rtt_sum: u64,
    rtt_count: u64,
    rtt_min: Time,
    /// In slow start: the current round grows cwnd (else it is frozen).
    ss_grow: bool,
    /// RTT of the last completed round, ns.
    last_round_rtt: Option<Time>,
    /// Diff at the end of the last completed round, segments.
    diff: f64,
}

impl VegasState {
    fn new() -> Self {
        VegasState {
            base_rtt: MinTracker::default(),
            round_end: None,
            round_start: 0,
            rtt_sum: 0,
            rtt_count: 0,
            rtt_min: Time::MAX,
            ss_grow: true,
            last_round_rtt: None,
            diff: 0.0,
        }
    }

    fn start_round(&mut self, snd_max: u64, now: Time) {
        self.round_end = Some(snd_max);
        self.round_start = now;
        self.rtt_sum = 0;
        self.rtt_count = 0;
        self.rtt_min = Time::MAX;
    }

    /// Forget the round in progress (after a loss or recovery; Linux `vegas_enable`).
    fn restart(&mut self) {
        self.round_end = None;
        self.ss_grow = true;
    }
}

/// The Vegas state machine.
#[derive(Clone, Debug)]
pub struct Vegas {
    params: VegasParams,
    reno: RenoParams,
    state: VegasState,
}

impl Vegas {
    pub fn new(params: VegasParams) -> Self {
        Vegas { params, reno: RenoParams { halve: params.halve, ..RenoParams::default() }, state: VegasState::new() }
    }

    /// The once-per-RTT decision at the end of a round.
    fn end_of_round(&mut self, w: &mut Window, now: Time, mss: f64, in_use: bool) {
        let p = &self.params;
        let s = &mut self.state;
        let rtt = match p.round_rtt {
            RoundRtt::Mean => s.rtt_sum.checked_div(s.rtt_count),
            RoundRtt::Min => (s.rtt_count > 0).then_some(s.rtt_min),
        }
        // No sample in this round: the time since it began (ns-2).
        .unwrap_or_else(|| now.saturating_sub(s.round_start).max(1));
        let base = s.base_rtt.update(rtt);
        // Expected = cwnd / BaseRTT; Actual = cwnd / RTT;
        // Diff = (Expected - Actual) * BaseRTT = cwnd * (1 - BaseRTT / RTT) segments.
        let diff = (w.cwnd / mss) * (1.0 - base as f64 / rtt as f64);
        s.diff = diff;
        s.last_round_rtt = Some(rtt);
        let floor = (2.0 * mss).min(w.cwnd);
        if w.cwnd < w.ssthresh {
            if s.ss_grow {
                // A growth round ended: freeze the next so Expected and Actual compare.
                s.ss_grow = false;
            } else if diff > p.gamma {
                // Leave slow start when Diff > gamma; cwnd -= cwnd/8 (paper, ns-2).
                w.cwnd = (w.cwnd - w.cwnd / 8.0).max(floor);
                w.ssthresh = w.ssthresh.min(w.cwnd);
            } else {
                s.ss_grow = true;
            }
        } else if diff > p.beta {
            // Diff > beta: cwnd -= 1 segment.
            w.cwnd = (w.cwnd - mss).max(floor);
            w.ssthresh = w.ssthresh.min(w.cwnd);
        } else if diff < p.alpha && in_use {
            // Diff < alpha: cwnd += 1 segment.
            w.cwnd += mss;
        }
        if p.loss_response == VegasLoss::OneSegment {
            // ns-3 tcp-vegas.cc IncreaseWindow: ssthresh = max(ssthresh, 3/4 cwnd).
            w.ssthresh = w.ssthresh.max(0.75 * w.cwnd);
        }
    }
}

/// ns-3.44's TcpVegas::GetSsThresh (tcp-vegas.cc:279-283): max(min(ssthresh, cwnd - 1
/// segment), 2 segments); ssthresh starts unlimited.
pub(crate) fn ns3_get_ssthresh(w: &Window, mss: f64) -> f64 {
    w.ssthresh.min(w.cwnd - mss).max(2.0 * mss)
}

/// A loss as ns-3.44's TcpSocketBase answers it for TcpVegas: ssthresh = `ssthresh(w, mss)`,
/// then cwnd = ssthresh on fast retransmit (the sender's recovery runs on) and one segment on
/// a timeout. A later timeout of a series keeps ssthresh (RFC 5681 §3.1); ns-3 recomputes it
/// on every timeout, which the sender's `tcp.timeout_count_reset = "every_timeout"` (ns3
/// profile) expresses by reporting each one as the first.
pub(crate) fn ns3_loss_response(loss: Loss, w: &mut Window, mss: f64, ssthresh: impl FnOnce(&Window, f64) -> f64) {
    if !matches!(loss, Loss::Timeout { consecutive } if consecutive > 1) {
        w.ssthresh = ssthresh(w, mss);
    }
    w.cwnd = if loss == Loss::FastRetransmit { w.ssthresh } else { mss };
}

pub fn build(p: &VegasParams) -> Box<dyn CongestionControl> {
    match p.model {
        VegasModel::Paper => Box::new(Vegas::new(*p)),
        VegasModel::Ns3 => Box::new(crate::vegas_ns3::Ns3Vegas::new(*p)),
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        VEGAS_INFO.name
    }

    fn recovery_style(&self) -> RecoveryStyle {
        RecoveryStyle::NewReno
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        let s = &mut self.state;
        let rtt = match self.params.rtt {
            VegasRtt::Sample => ack.rtt,
            // ns-3 calls PktsAcked(srtt) on every ACK, duplicates included.
            VegasRtt::Smoothed => cx.rtt.srtt(),
        };
        if let Some(r) = rtt {
            let r = r.max(1);
            // BaseRTT = min over all RTT samples.
            s.base_rtt.update(r);
            s.rtt_sum = s.rtt_sum.saturating_add(r);
            s.rtt_count += 1;
            s.rtt_min = s.rtt_min.min(r);
        }
        if ack.dup || ack.in_recovery || ack.acked_bytes == 0 {
            return;
        }
        let mss = cx.mss_f();
        // The window was in use if the data outstanding before this ACK filled it to
        // within 2 segments (ns-2).
        let outstanding_before = cx.flight_size.saturating_add(ack.acked_bytes) as f64;
        let in_use = w.cwnd - outstanding_before <= 2.0 * mss;
        match s.round_end {
            None => s.start_round(cx.snd_max, cx.now),
            Some(end) if ack.ack > end => {
                self.end_of_round(w, cx.now, mss, in_use);
                self.state.start_round(cx.snd_max, cx.now);
            }
            Some(_) => {}
        }
        if w.cwnd < w.ssthresh && self.state.ss_grow && in_use {
            // Growth round of the modified slow start: Reno slow start (RFC 5681 eq. 2).
            slow_start(w, ack.acked_bytes, mss);
        }
    }

    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
        match self.params.loss_response {
            VegasLoss::Halve => Reno::respond(&self.reno, loss, w, cx),
            VegasLoss::OneSegment => ns3_loss_response(loss, w, cx.mss_f(), ns3_get_ssthresh),
        }
        self.state.restart();
        Verdict::None
    }

    // No `on_recovery_exit_growth`: ns-3.44's TcpVegas, re-enabled at the exit with the
    // round's end at SND.NXT (tcp-vegas.cc:113-121), grows on that ACK only if nothing was
    // sent beyond it (IncreaseWindow:158), which leaves cwnd = ssthresh nearly always.

    fn on_recovery_exit(&mut self, w: &mut Window, _cx: &mut Ctx) {
        // RFC 6582 §3.2 step 3: deflate to ssthresh; Vegas measures afresh.
        w.cwnd = w.ssthresh;
        self.state.restart();
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        let s = &self.state;
        let secs = |t: Option<Time>| t.map_or(f64::NAN, |v| v as f64 / NS_PER_SEC);
        out.push(("base_rtt_s", secs(s.base_rtt.value())));
        out.push(("round_rtt_s", secs(s.last_round_rtt)));
        out.push(("diff_segments", s.diff));
        out.push(("ss_grow", if s.ss_grow { 1.0 } else { 0.0 }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Harness, MSS};

    const MS: u64 = 1_000_000;
    const SEG: f64 = MSS as f64;

    /// ACK one segment at a time until the round in progress ends; returns cwnd (segments)
    /// just before the ACK that ends it. The round ends on the first ACK above the SND.MAX
    /// the harness held when the round began.
    fn run_round(h: &mut Harness, rtt: Time) -> f64 {
        let end = h.snd_max;
        let mut before = h.cwnd_segments();
        while h.snd_una + u64::from(MSS) <= end {
            h.ack(1, rtt);
            before = h.cwnd_segments();
        }
        h.ack(1, rtt);
        before
    }

    fn diff_of(h: &Harness) -> f64 {
        let mut v = Vec::new();
        h.cc.trace_vars(&mut v);
        v.iter().find(|(n, _)| *n == "diff_segments").map_or(f64::NAN, |(_, x)| *x)
    }

    /// A Vegas sender in congestion avoidance with `cwnd` segments whose first round (RTT
    /// 100 ms everywhere) has just ended.
    fn in_avoidance(params: VegasParams, cwnd: f64) -> Harness {
        let mut h = Harness::new(build(&params));
        h.w = Window::new(cwnd * SEG, 5.0 * SEG);
        h.ack(1, 100 * MS); // starts the first round
        run_round(&mut h, 100 * MS);
        h
    }

    #[test]
    fn a_round_without_queueing_adds_one_segment() {
        let h = in_avoidance(VegasParams::default(), 19.0);
        // Diff = 19 * (1 - 100/100) = 0 < alpha = 1: cwnd += 1.
        assert_eq!(h.cwnd_segments(), 20.0);
        assert_eq!(diff_of(&h), 0.0);
    }

    #[test]
    fn diff_above_beta_removes_one_segment_at_the_end_of_the_round() {
        let mut h = in_avoidance(VegasParams::default(), 19.0);
        assert_eq!(h.cwnd_segments(), 20.0);
        let before = run_round(&mut h, 150 * MS);
        assert_eq!(before, 20.0, "cwnd is held during the round");
        let expected_diff = 20.0 * (1.0 - 100.0 / 150.0);
        assert!((diff_of(&h) - expected_diff).abs() < 1e-9, "{}", diff_of(&h));
        assert!(expected_diff > 3.0);
        assert_eq!(h.cwnd_segments(), 19.0);
        assert_eq!(h.w.ssthresh, 5.0 * SEG, "ssthresh only follows cwnd down to it");
    }

    #[test]
    fn diff_below_alpha_adds_one_segment_at_the_end_of_the_round() {
        let mut h = in_avoidance(VegasParams::default(), 19.0);
        let before = run_round(&mut h, 104 * MS);
        assert_eq!(before, 20.0);
        let expected_diff = 20.0 * (1.0 - 100.0 / 104.0);
        assert!((diff_of(&h) - expected_diff).abs() < 1e-9);
        assert!(expected_diff < 1.0);
        assert_eq!(h.cwnd_segments(), 21.0);
    }

    #[test]
    fn diff_between_alpha_and_beta_holds_the_window() {
        let mut h = in_avoidance(VegasParams::default(), 19.0);
        run_round(&mut h, 110 * MS);
        let expected_diff = 20.0 * (1.0 - 100.0 / 110.0);
        assert!(expected_diff > 1.0 && expected_diff < 3.0);
        assert!((diff_of(&h) - expected_diff).abs() < 1e-9);
        assert_eq!(h.cwnd_segments(), 20.0);
    }

    #[test]
    fn linux_thresholds_hold_where_the_paper_ones_shrink() {
        // RTT 118 ms: Diff = 20 * (1 - 100/118) = 3.05, above the paper's beta = 3 but
        // inside Linux's [alpha, beta] = [2, 4].
        let diff = 20.0 * (1.0 - 100.0 / 118.0);
        assert!(diff > 3.0 && diff < 4.0);
        let mut paper = in_avoidance(VegasParams::default(), 19.0);
        run_round(&mut paper, 118 * MS);
        assert_eq!(paper.cwnd_segments(), 19.0);
        let linux = VegasParams { alpha: 2.0, beta: 4.0, gamma: 1.0, ..VegasParams::default() };
        let mut lx = in_avoidance(linux, 19.0);
        run_round(&mut lx, 118 * MS);
        assert_eq!(lx.cwnd_segments(), 20.0);
    }

    #[test]
    fn min_round_rtt_ignores_a_delayed_sample() {
        // One 300 ms sample in an otherwise 100 ms round: the mean rises, the minimum not.
        let run = |round_rtt| {
            let mut h = in_avoidance(VegasParams { round_rtt, ..VegasParams::default() }, 19.0);
            let end = h.snd_max;
            let mut samples = vec![300 * MS];
            h.ack(1, 300 * MS);
            while h.snd_una <= end {
                h.ack(1, 100 * MS);
                samples.push(100 * MS);
            }
            (h.cwnd_segments(), diff_of(&h), samples)
        };
        let (cwnd, diff, samples) = run(RoundRtt::Mean);
        let mean = samples.iter().sum::<u64>() as f64 / samples.len() as f64;
        let expected = 20.0 * (1.0 - 100.0 * MS as f64 / mean);
        assert!((diff - expected).abs() < 1e-6, "{diff} vs {expected}");
        assert!(expected > 1.0 && expected < 3.0);
        assert_eq!(cwnd, 20.0, "held");
        let (cwnd, diff, _) = run(RoundRtt::Min);
        assert_eq!(diff, 0.0);
        assert_eq!(cwnd, 21.0, "grown");
    }

    #[test]
    fn slow_start_grows_only_every_other_round() {
        let mut h = Harness::new(build(&VegasParams::default()));
        assert_eq!(h.cwnd_segments(), 10.0);
        h.ack(1, 100 * MS); // starts the first (growth) round
        let before = run_round(&mut h, 100 * MS);
        // Growth round: +1 SMSS per ACK over the 10 ACKs of the initial window.
        assert_eq!(before, 20.0);
        assert_eq!(h.cwnd_segments(), 20.0, "the ACK ending a growth round starts a frozen one");
        let before = run_round(&mut h, 100 * MS);
        assert_eq!(before, 20.0, "frozen round");
        // Diff = 0 <= gamma at the end of the frozen round: the ending ACK grows again.
        assert_eq!(h.cwnd_segments(), 21.0);
    }

    #[test]
    fn slow_start_ends_with_a_one_eighth_cut_when_diff_exceeds_gamma() {
        let mut h = Harness::new(build(&VegasParams::default()));
        h.ack(1, 100 * MS);
        run_round(&mut h, 100 * MS); // growth round: cwnd 20
        assert_eq!(h.cwnd_segments(), 20.0);
        // Frozen round at 120 ms: Diff = 20 * (1 - 100/120) = 3.33 > gamma = 1.
        run_round(&mut h, 120 * MS);
        let expected = 20.0 - 20.0 / 8.0;
        assert_eq!(h.cwnd_segments(), expected);
        assert_eq!(h.w.ssthresh, expected * SEG);
        // Now in congestion avoidance: ACKs within a round do not grow cwnd.
        h.ack(1, 120 * MS);
        assert_eq!(h.cwnd_segments(), expected);
    }

    #[test]
    fn a_growth_round_does_not_end_slow_start_even_with_queueing() {
        let mut h = Harness::new(build(&VegasParams::default()));
        h.ack(1, 100 * MS);
        run_round(&mut h, 300 * MS);
        // Diff is large but measured while cwnd grew; only the frozen round decides.
        assert_eq!(h.cwnd_segments(), 20.0);
        assert!(h.w.ssthresh.is_infinite());
    }

    #[test]
    fn loss_uses_renos_response_and_makes_no_verdict() {
        let mut h = in_avoidance(VegasParams::default(), 19.0);
        let v = h.loss(Loss::FastRetransmit);
        assert_eq!(v, Verdict::None);
        // Reno with halve = cwnd: ssthresh = max(20/2, 2) segments.
        assert_eq!(h.w.ssthresh, 10.0 * SEG);
        assert_eq!(h.w.cwnd, 10.0 * SEG);
        h.exit_recovery();
        let v = h.loss(Loss::Timeout { consecutive: 1 });
        assert_eq!(v, Verdict::None);
        assert_eq!(h.w.cwnd, SEG);
        assert_eq!(h.w.ssthresh, 5.0 * SEG);
        h.loss(Loss::Timeout { consecutive: 2 });
        assert_eq!(h.w.ssthresh, 5.0 * SEG);
    }

    #[test]
    fn rounds_restart_after_recovery() {
        let mut h = in_avoidance(VegasParams::default(), 19.0);
        h.loss(Loss::FastRetransmit);
        h.exit_recovery();
        // The first new ACK starts a round; within it cwnd is not adjusted even though the
        // RTT is high, and the decision comes at its end: Diff = 10*(1 - 100/150) = 3.33.
        h.ack(1, 150 * MS);
        assert_eq!(h.cwnd_segments(), 10.0);
        run_round(&mut h, 150 * MS);
        assert_eq!(h.cwnd_segments(), 9.0);
    }

    #[test]
    fn duplicate_acks_do_not_grow_the_window() {
        let mut h = Harness::new(build(&VegasParams::default()));
        h.ack(1, 100 * MS);
        let before = h.w.cwnd;
        h.dup_ack();
        h.dup_ack();
        assert_eq!(h.w.cwnd, before);
    }

    #[test]
    fn an_unused_window_does_not_grow() {
        let mut h = in_avoidance(VegasParams::default(), 19.0);
        assert_eq!(h.cwnd_segments(), 20.0);
        // The application limits the sender: it sent only 5 segments beyond the round's
        // end, in a 20-segment window. The ACK of the first of them ends the round with
        // Diff = 0, yet cwnd stays.
        let end = h.snd_max;
        h.snd_una = end;
        h.snd_max = end + 5 * u64::from(MSS);
        h.snd_una += u64::from(MSS);
        let s = AckSample { ack: h.snd_una, acked_bytes: u64::from(MSS), rtt: Some(100 * MS), ..AckSample::default() };
        h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
        assert_eq!(diff_of(&h), 0.0);
        assert_eq!(h.cwnd_segments(), 20.0);
    }
}
