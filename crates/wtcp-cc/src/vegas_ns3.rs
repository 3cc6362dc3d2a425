//! ns-3.44's TcpVegas as a model of Vegas: `cc = "vegas"` with `model = "ns3"` (set by the
//! `ns3` profile), for comparing wtcp with ns-3 on equal terms.
//!
//! Source: ns-3.44 `src/internet/model/tcp-vegas.cc` (IncreaseWindow 146-267, PktsAcked
//! 91-110, EnableVegas/DisableVegas/CongestionStateSet 112-144, GetSsThresh 279-283),
//! `tcp-congestion-ops.cc` (TcpNewReno::SlowStart 152-165, CongestionAvoidance 177-190,
//! IncreaseWindow 202-224) and the calls `tcp-socket-base.cc` makes into them (ProcessAck
//! 2000-2257, DupAck 1738-1840, ReTxTimeout 3916-3969). It is the structure of Linux's
//! `tcp_vegas.c`, not the paper's or ns-2's (the `paper` model, `vegas.rs`):
//! - Every ACK reports an RTT (PktsAcked, with the smoothed RTT): BaseRTT is the minimum
//!   ever reported, and the round's minimum and count restart at each round's end and each
//!   return to CA_OPEN.
//! - A round ends on the ACK at or above the SND.NXT recorded when the last one ended. With
//!   at most 2 reports in the round the window grows as NewReno's; otherwise, in whole
//!   segments, target = floor(cwnd * BaseRTT / minRTT), diff = cwnd - target: in slow start
//!   diff > gamma sets cwnd = min(cwnd, target + 1) and ssthresh = GetSsThresh, else
//!   NewReno's slow start; in avoidance diff > beta takes one segment off (and ssthresh =
//!   GetSsThresh), diff < alpha adds one; then ssthresh = max(ssthresh, 3/4 cwnd).
//!   Between round ends, slow start grows one segment per ACK of at least a segment.
//! - Vegas runs only in CA_OPEN. The first duplicate ACK (CA_DISORDER), fast recovery and a
//!   timeout (CA_LOSS) turn it off; ACKs in CA_LOSS below its recovery point grow as
//!   NewReno's; the return to CA_OPEN starts a new round.
//! - Loss: ssthresh = GetSsThresh = max(min(ssthresh, cwnd - 1 segment), 2 segments), on
//!   every timeout too (the sender reports each as the first with the ns3 profile's
//!   `tcp.timeout_count_reset`); cwnd = ssthresh on fast retransmit (the sender's recovery
//!   then runs), one segment on a timeout.
//!
//! Deviations and ambiguities resolved:
//! - SND.NXT at a round's end or a return to CA_OPEN is SND.MAX: the two differ only while
//!   a timeout's go-back resends data, and ns-3 leaves CA_LOSS only once that data is
//!   acknowledged.
//! - CA_DISORDER starts on a duplicate ACK in the RFC 5681 sense; with SACK, ns-3 also
//!   enters it on a cumulative ACK that carries new SACK information (tcp-socket-base.cc
//!   2003-2004), which this model sees as an ordinary new ACK.
//! - The window is kept in bytes as ns-3's uint32 is: whole segments after every Vegas
//!   decision, whole bytes after NewReno's avoidance step (max(1, SMSS^2 / cwnd) bytes).
//!   A Vegas decision stops at 1 segment, the sender's floor (ns-3's could reach 0 with
//!   beta below 1).
//! - A duplicate ACK turns Vegas off whether or not it carries new SACK information (ns-3
//!   calls DupAck only when the scoreboard changed, 2001-2003); with SACK, a cumulative ACK
//!   carrying new SACK information grows the window and, in CA_DISORDER, turns Vegas back
//!   on, where ns-3 stays in CA_DISORDER without growth (2175-2188).
//! - A timeout during fast recovery takes GetSsThresh of the window set at recovery entry:
//!   wtcp's PRR limits what is sent without writing cwnd, where ns-3's PRR writes
//!   m_cWnd (tcp-prr-recovery.cc DoRecovery), so ns-3's cut there starts from PRR's
//!   window (2 segments when it is small). Effect untested.
//! - The parameters the validation ablations switch apply here too: `rtt = "sample"` (each
//!   ACK's sample for the smoothed RTT), `loss_response = "halve"` (GetSsThresh =
//!   max(cwnd / 2, 2 segments), wherever ns-3 calls it) and `round_rtt = "mean"` (the
//!   round's mean report for its minimum).

use crate::api::{AckSample, CongestionControl, Ctx, Loss, RecoveryStyle, Time, Verdict, Window, NS_PER_SEC};
use crate::vegas::{ns3_get_ssthresh, ns3_loss_response, RoundRtt, VegasLoss, VegasParams, VegasRtt, VEGAS_INFO};

/// ns-3's congestion states as far as Vegas sees them (tcp-socket-state.h TcpCongState_t).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CaState {
    Open,
    Disorder,
    Recovery,
    /// After a timeout, until an ACK reaches `recover` (SND.MAX at the timeout).
    Loss { recover: u64 },
}

/// ns-3.44's TcpVegas (see the module documentation).
#[derive(Clone, Debug)]
pub struct Ns3Vegas {
    params: VegasParams,
    state: CaState,
    /// m_baseRtt: the minimum RTT ever reported, ns.
    base_rtt: Time,
    /// m_minRtt and m_cntRtt: minimum, sum and count of the reports since the round began.
    min_rtt: Time,
    sum_rtt: u64,
    cnt_rtt: u64,
    /// m_begSndNxt: the round ends on an ACK at or above it.
    beg_snd_nxt: u64,
    /// Diff at the last round decision, segments (trace only).
    diff: f64,
}

impl Ns3Vegas {
    pub fn new(params: VegasParams) -> Self {
        Ns3Vegas { params, state: CaState::Open, base_rtt: Time::MAX, min_rtt: Time::MAX, sum_rtt: 0, cnt_rtt: 0, beg_snd_nxt: 0, diff: 0.0 }
    }

    /// PktsAcked (tcp-vegas.cc 91-110): one RTT report.
    fn report(&mut self, ack: Option<&AckSample>, cx: &Ctx) {
        let rtt = match (self.params.rtt, ack) {
            (VegasRtt::Sample, Some(a)) => a.rtt,
            (VegasRtt::Sample, None) => cx.rtt.latest(),
            (VegasRtt::Smoothed, _) => cx.rtt.srtt(),
        };
        let Some(r) = rtt.filter(|&r| r > 0) else { return };
        self.base_rtt = self.base_rtt.min(r);
        self.min_rtt = self.min_rtt.min(r);
        self.sum_rtt = self.sum_rtt.saturating_add(r);
        self.cnt_rtt += 1;
    }

    fn reset_round(&mut self) {
        self.cnt_rtt = 0;
        self.sum_rtt = 0;
        self.min_rtt = Time::MAX;
    }

    /// EnableVegas (tcp-vegas.cc 112-121), on every return to CA_OPEN.
    fn enable(&mut self, cx: &Ctx) {
        self.state = CaState::Open;
        self.beg_snd_nxt = cx.snd_max;
        self.reset_round();
    }

    /// GetSsThresh (tcp-vegas.cc 279-283), or the halving of `loss_response = "halve"`, for
    /// every place ns-3 calls it: a loss and a round's decrease.
    fn ssthresh(&self, w: &Window, mss: f64) -> f64 {
        (self.get_ssthresh())(w, mss)
    }

    fn get_ssthresh(&self) -> fn(&Window, f64) -> f64 {
        match self.params.loss_response {
            VegasLoss::OneSegment => ns3_get_ssthresh,
            VegasLoss::Halve => halved_uint32,
        }
    }

    /// TcpNewReno::SlowStart: one segment for an ACK of at least one.
    fn slow_start(w: &mut Window, segs: u64, mss: f64) {
        if segs >= 1 {
            w.cwnd += mss;
        }
    }

    /// TcpNewReno::IncreaseWindow.
    fn newreno_increase(w: &mut Window, mut segs: u64, mss: f64) {
        if w.cwnd < w.ssthresh && segs >= 1 {
            Self::slow_start(w, segs, mss);
            segs -= 1;
        }
        if w.cwnd >= w.ssthresh && segs > 0 {
            w.cwnd += (mss * mss / w.cwnd).max(1.0).floor();
        }
    }

    /// TcpVegas::IncreaseWindow with Vegas on (CA_OPEN) for an ACK up to `ack` of `segs`
    /// segments.
    fn increase(&mut self, ack: u64, segs: u64, w: &mut Window, cx: &Ctx) {
        let mss = cx.mss_f();
        if ack < self.beg_snd_nxt {
            if w.cwnd < w.ssthresh {
                Self::slow_start(w, segs, mss);
            }
            return;
        }
        // A round has ended.
        self.beg_snd_nxt = cx.snd_max;
        if self.cnt_rtt <= 2 {
            // "not enough RTT samples ... behave like NewReno"
            Self::newreno_increase(w, segs, mss);
        } else {
            let round = match self.params.round_rtt {
                RoundRtt::Min => self.min_rtt,
                RoundRtt::Mean => self.sum_rtt / self.cnt_rtt,
            };
            let seg_cwnd = (w.cwnd / mss).floor();
            let target = (seg_cwnd * self.base_rtt as f64 / round as f64).floor();
            let diff = (seg_cwnd - target).max(0.0);
            self.diff = diff;
            if diff > self.params.gamma && w.cwnd < w.ssthresh {
                // Too fast in slow start: to the target (+1 for the truncation), then avoidance.
                w.cwnd = seg_cwnd.min(target + 1.0).max(1.0) * mss;
                w.ssthresh = self.ssthresh(w, mss);
            } else if w.cwnd < w.ssthresh {
                Self::slow_start(w, segs, mss);
            } else if diff > self.params.beta {
                w.cwnd = (seg_cwnd - 1.0).max(1.0) * mss;
                w.ssthresh = self.ssthresh(w, mss);
            } else if diff < self.params.alpha {
                w.cwnd = (seg_cwnd + 1.0) * mss;
            }
            w.ssthresh = w.ssthresh.max((3.0 * w.cwnd / 4.0).floor());
        }
        self.reset_round();
    }
}

/// wtcpval::VegasHalving's GetSsThresh: max(cwnd / 2, 2 segments), cwnd / 2 in whole bytes.
fn halved_uint32(w: &Window, mss: f64) -> f64 {
    (w.cwnd / 2.0).floor().max(2.0 * mss)
}

impl CongestionControl for Ns3Vegas {
    fn name(&self) -> &'static str {
        VEGAS_INFO.name
    }

    fn recovery_style(&self) -> RecoveryStyle {
        RecoveryStyle::NewReno
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        if ack.dup {
            // DupAck first (CA_OPEN -> CA_DISORDER turns Vegas off), then PktsAcked(1).
            if self.state == CaState::Open {
                self.state = CaState::Disorder;
            }
            self.report(Some(ack), cx);
            return;
        }
        self.report(Some(ack), cx);
        if ack.in_recovery {
            return; // a partial ACK: PktsAcked only
        }
        if let CaState::Loss { recover } = self.state {
            if ack.ack >= recover {
                // Leaving CA_LOSS, even on an ACK credited with nothing: only the part above
                // the recovery point counts (2219-2233).
                self.enable(cx);
                let above = (ack.ack - recover) / u64::from(cx.mss);
                self.increase(ack.ack, above, w, cx);
                return;
            }
        }
        if ack.acked_bytes == 0 {
            return;
        }
        let mss = cx.mss_f();
        let segs = ack.acked_bytes / u64::from(cx.mss);
        match self.state {
            CaState::Loss { .. } => Self::newreno_increase(w, segs, mss),
            CaState::Disorder | CaState::Recovery => {
                self.enable(cx);
                self.increase(ack.ack, segs, w, cx);
            }
            CaState::Open => self.increase(ack.ack, segs, w, cx),
        }
    }

    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
        ns3_loss_response(loss, w, cx.mss_f(), self.get_ssthresh());
        self.state = match loss {
            Loss::FastRetransmit => CaState::Recovery,
            Loss::Timeout { .. } => CaState::Loss { recover: cx.snd_max },
        };
        Verdict::None
    }

    fn on_recovery_exit(&mut self, w: &mut Window, cx: &mut Ctx) {
        // ProcessAck leaving CA_RECOVERY: PktsAcked, CA_OPEN (EnableVegas), cwnd = ssthresh.
        self.report(None, cx);
        self.enable(cx);
        w.cwnd = w.ssthresh;
    }

    fn on_recovery_exit_growth(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        // Then IncreaseWindow with the ACK's whole span (tcp.recovery_exit_growth).
        let segs = ack.acked_bytes / u64::from(cx.mss);
        self.increase(ack.ack, segs, w, cx);
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        let secs = |t: Time| if t == Time::MAX { f64::NAN } else { t as f64 / NS_PER_SEC };
        out.push(("base_rtt_s", secs(self.base_rtt)));
        out.push(("round_rtt_s", secs(self.min_rtt)));
        out.push(("diff_segments", self.diff));
        out.push(("vegas_on", if self.state == CaState::Open { 1.0 } else { 0.0 }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{var, Harness, MSS};
    use crate::vegas::{build, VegasModel};

    const MS: Time = 1_000_000;
    const SEG: f64 = MSS as f64;

    fn ns3() -> VegasParams {
        VegasParams { alpha: 2.0, beta: 4.0, gamma: 1.0, round_rtt: RoundRtt::Min, rtt: VegasRtt::Smoothed, loss_response: VegasLoss::OneSegment, model: VegasModel::Ns3, ..VegasParams::default() }
    }

    /// ACK one segment at a time until SND.UNA reaches the SND.MAX held now, then one more.
    fn finish_round(h: &mut Harness, rtt: Time) {
        let end = h.snd_max;
        while h.snd_una < end {
            h.ack(1, rtt);
        }
        h.ack(1, rtt);
    }

    #[test]
    fn slow_start_grows_one_segment_per_ack_every_round_until_diff_exceeds_gamma() {
        let mut h = Harness::new(build(&ns3()));
        // No queueing: diff stays 0, so slow start continues through round ends.
        let before = h.cwnd_segments();
        for _ in 0..5 {
            h.ack(1, 100 * MS);
        }
        assert_eq!(h.cwnd_segments(), before + 5.0);
        // Queueing: the RTT doubles, the smoothed RTT follows, and once diff > gamma a round
        // ends slow start with cwnd = target + 1 = cwnd - diff + 1 (target = floor(cwnd *
        // BaseRTT / minRTT)), a cut, not growth.
        let mut acks = 0;
        while h.w.ssthresh == f64::INFINITY {
            let seg = h.cwnd_segments();
            h.ack(1, 200 * MS);
            acks += 1;
            assert!(acks < 1000, "slow start never ended");
            if h.w.ssthresh < f64::INFINITY {
                let diff = var(&h, "diff_segments");
                assert!(diff > 1.0);
                assert_eq!(h.cwnd_segments(), seg - diff + 1.0);
            } else {
                assert_eq!(h.cwnd_segments(), seg + 1.0, "one segment per ACK until then");
            }
        }
    }

    #[test]
    fn avoidance_moves_one_whole_segment_per_round_by_integer_diff() {
        let mut h = Harness::new(build(&ns3()));
        h.w.ssthresh = 5.0 * SEG;
        h.w.cwnd = 20.0 * SEG;
        // The first ACK ends a round of one report: NewReno's avoidance step (SMSS^2 / cwnd).
        h.ack(1, 100 * MS);
        assert_eq!(h.w.cwnd, 20.0 * SEG + (SEG / 20.0).floor());
        // BaseRTT 100 ms; rounds at 100 ms: diff 0 < alpha, +1 whole segment per round.
        finish_round(&mut h, 100 * MS);
        let a = h.cwnd_segments();
        assert_eq!(a, 21.0);
        finish_round(&mut h, 100 * MS);
        assert_eq!(h.cwnd_segments(), a + 1.0);
        // Rounds at 150 ms: the smoothed RTT climbs; once diff > beta a segment goes.
        let mut after = Vec::new();
        for _ in 0..12 {
            finish_round(&mut h, 150 * MS);
            after.push(h.cwnd_segments());
        }
        // target = floor(cwnd * 100 / 150): diff about cwnd / 3 > beta, one segment a round.
        assert_eq!(after[11], after[10] - 1.0);
        assert_eq!(after[10], after[9] - 1.0);
        let d = var(&h, "diff_segments");
        assert_eq!(d, d.floor(), "diff is whole segments");
        assert!(h.w.ssthresh >= (0.75 * h.w.cwnd).floor(), "ssthresh >= 3/4 cwnd after a round");
    }

    #[test]
    fn a_duplicate_ack_turns_vegas_off_until_the_next_new_ack_starts_a_round() {
        let mut h = Harness::new(build(&ns3()));
        h.ack(1, 100 * MS);
        h.dup_ack();
        assert_eq!(var(&h, "vegas_on"), 0.0);
        h.ack(1, 100 * MS);
        assert_eq!(var(&h, "vegas_on"), 1.0);
    }

    #[test]
    fn loss_cuts_one_segment_and_a_timeout_restarts_from_one_segment_with_newreno_growth() {
        let mut h = Harness::new(build(&ns3()));
        h.w.cwnd = 20.0 * SEG;
        h.w.ssthresh = 30.0 * SEG;
        h.ack(1, 100 * MS);
        let cwnd = h.w.cwnd;
        h.loss(Loss::FastRetransmit);
        assert_eq!(h.w.ssthresh, cwnd - SEG);
        assert_eq!(h.w.cwnd, h.w.ssthresh);
        h.exit_recovery();
        let ss = h.w.ssthresh;
        h.fill_window();
        h.loss(Loss::Timeout { consecutive: 1 });
        assert_eq!(h.w.ssthresh, ss - SEG, "GetSsThresh on the timeout too");
        assert_eq!(h.w.cwnd, SEG);
        assert_eq!(var(&h, "vegas_on"), 0.0);
        // Below the recovery point: NewReno's slow start, one segment per ACK.
        h.ack(1, 100 * MS);
        assert_eq!(h.w.cwnd, 2.0 * SEG);
        assert_eq!(var(&h, "vegas_on"), 0.0);
        // The ACK reaching the recovery point leaves CA_LOSS even when the sender credits it
        // with nothing above that point (tcp-socket-base.cc 2219-2233).
        let recover = h.snd_max;
        h.snd_una = recover;
        let mut s = AckSample::default();
        s.ack = recover;
        h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
        assert_eq!(var(&h, "vegas_on"), 1.0);
        assert_eq!(h.w.cwnd, 2.0 * SEG, "no segment above the recovery point: no growth");
    }
}
