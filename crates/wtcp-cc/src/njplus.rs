//! TCP NJ+.
//!
//! J. Lee, J. Kim, M. Park, J. Koo, H. Choo, "NJ+: An Efficient Congestion Control
//! Mechanism for Wireless Networks", KSII Transactions on Internet and Information Systems
//! 2(6), Dec. 2008 (DOI 10.3837/tiis.2008.06.004), §3 and Figs. 2-3.
//!
//! TCP New Jersey with three changes: MABE takes the larger of the ACK-timed and the
//! receiver-timed bandwidth estimates; EASR restarts an unwarned timeout from the mean of the
//! last two optimal windows; BERR raises cwnd by one segment on an unwarned fast retransmit.
//!
//! Deviations and ambiguities resolved:
//! - Built on [`Jersey`] (New Jersey): the estimators, congestion-warning bookkeeping, growth,
//!   rate control on marked ACKs and the warned loss responses are New Jersey's, with its
//!   parameters (`new_jersey`). NJ+ only supplies the rate (MABE) and the unwarned loss
//!   responses (EASR, BERR); New Jersey's `timeout_without_warning` is therefore unused.
//! - MABE (Fig. 2): R_n = max(R_sn, R_rn), where R_sn (ABE, sender's ACK arrival times) and
//!   R_rn (TABE, receiver's data arrival times) each run their own Eq. 1 recursion; the
//!   maximum is not fed back. Without timestamps R_rn stays 0, so R_n = R_sn (Fig. 2 line 2
//!   applies MABE only "if (timestamp)").
//! - ownd_{n-1} in EASR: the paper indexes R_n and ownd_n by ACK, so by default ownd_{n-1} is
//!   ownd after the ACK before the last one (`previous_ownd = "previous_ack"`). The text also
//!   reads it as "the value measured before the network event"; `"previous_round"` takes ownd
//!   as it stood when the current round trip began (the first ACK at or above the SND.MAX of
//!   the previous round's start).
//! - EASR (Fig. 3b): an unwarned timeout sets ssthresh = ownd_n (first expiry only, RFC 5681
//!   §3.1) and cwnd = (ownd_n + ownd_{n-1}) / 2, on every expiry; a warned timeout is New
//!   Jersey's: cwnd = 1 segment, ssthresh = ownd_n. A timeout therefore does not collapse an
//!   unwarned window (`timeout_collapses_window = false`).
//! - BERR (§3.3): an unwarned fast retransmit sets ssthresh = ownd_n and cwnd = cwnd + 1 MSS;
//!   fast recovery (NewReno) ends at that cwnd. A warned one is New Jersey's: ssthresh =
//!   ownd_n, cwnd = min(cwnd, ownd_n).
//! - "Warned" is New Jersey's rule: a congestion mark within `new_jersey.warning_window_rtts`
//!   SRTTs before the last ACK that preceded the loss (see `jersey`).

use serde::Deserialize;

use crate::api::{AckSample, CongestionControl, Ctx, Loss, RecoveryStyle, Signal, Verdict, Window};
use crate::jersey::{Estimators, Jersey, JerseyParams};
use crate::registry::{AlgorithmInfo, ParamInfo};

const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "new_jersey",
        unit: "table",
        default: r#"{"window_rtts":1.0,"rtt":"srtt","ownd_floor_segments":2.0,"warning_window_rtts":1.0,"mark_response":"once_per_window","cwnd_cut":"min","grow_on_marked_acks":false,"timeout_without_warning":"ownd","dupack_credit":false}"#,
        doc: "parameters of the underlying New Jersey (see `newjersey`); its timeout_without_warning is replaced by EASR",
    },
    ParamInfo {
        name: "previous_ownd",
        unit: "previous_ack|previous_round",
        default: "previous_ack",
        doc: "ownd_{n-1} in EASR: ownd after the previous ACK (the paper's index) or at the start of the current round trip",
    },
];

pub const NJPLUS_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "njplus",
    summary: "New Jersey with the larger of the ACK- and receiver-timed bandwidth estimates (MABE), cwnd = mean of the last two ownd after an unwarned timeout (EASR) and +1 MSS on an unwarned fast retransmit (BERR).",
    reference: "Lee, Kim, Park, Koo, Choo, KSII TIIS 2(6), 2008",
    params: PARAMS,
    timeout_collapses_window: false,
};

/// Which value EASR takes as ownd_{n-1}.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PreviousOwnd {
    /// ownd after the ACK before the last one (the paper's per-ACK index n).
    #[default]
    PreviousAck,
    /// ownd when the current round trip began.
    PreviousRound,
}

/// Parameters of NJ+.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NjPlusParams {
    /// The underlying New Jersey's parameters (estimator window, RTT, ownd floor, warning
    /// window, mark response, rate-control cut). The paper does not change them.
    pub new_jersey: JerseyParams,
    /// ownd_{n-1} of EASR: `previous_ack` (the paper's per-ACK index) or `previous_round`.
    pub previous_ownd: PreviousOwnd,
}

impl Default for NjPlusParams {
    fn default() -> Self {
        NjPlusParams { new_jersey: JerseyParams::default(), previous_ownd: PreviousOwnd::PreviousAck }
    }
}

/// MABE (Fig. 2 line 7): R_n = max(R_sn, R_rn).
pub fn mabe_rate(e: &Estimators) -> f64 {
    e.abe.rate_bps().max(e.tabe.rate_bps())
}

/// NJ+'s own state; everything else lives in the embedded New Jersey.
#[derive(Clone, Debug)]
struct NjPlusState {
    /// SND.MAX when the current round trip began; the round ends on an ACK at or above it.
    round_end: u64,
    /// ownd (bytes) when the current round trip began.
    round_ownd: f64,
}

/// TCP NJ+: New Jersey with MABE, EASR and BERR.
#[derive(Clone, Debug)]
pub struct NjPlus {
    base: Jersey,
    previous_ownd: PreviousOwnd,
    s: NjPlusState,
}

impl NjPlus {
    pub fn new(p: &NjPlusParams) -> Self {
        NjPlus {
            base: Jersey::new(p.new_jersey, NJPLUS_INFO.name, mabe_rate),
            previous_ownd: p.previous_ownd,
            s: NjPlusState { round_end: 0, round_ownd: 0.0 },
        }
    }

    /// ownd_{n-1} in bytes, as `previous_ownd` selects.
    fn ownd_prev(&self) -> f64 {
        match self.previous_ownd {
            PreviousOwnd::PreviousAck => self.base.ownd_history().1,
            PreviousOwnd::PreviousRound => self.s.round_ownd,
        }
    }
}

pub fn build(p: &NjPlusParams) -> Box<dyn CongestionControl> {
    Box::new(NjPlus::new(p))
}

impl CongestionControl for NjPlus {
    fn name(&self) -> &'static str {
        NJPLUS_INFO.name
    }

    fn recovery_style(&self) -> RecoveryStyle {
        self.base.recovery_style()
    }

    fn init(&mut self, w: &mut Window, cx: &mut Ctx) {
        self.base.init(w, cx);
        self.s.round_end = cx.snd_max;
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        // Round bookkeeping for `previous_round`: ownd as the new round begins, before this
        // ACK's sample enters the estimate.
        if !ack.dup && ack.ack >= self.s.round_end {
            self.s.round_ownd = self.base.ownd_history().0;
            self.s.round_end = cx.snd_max.max(ack.ack + 1);
        }
        self.base.on_ack(ack, w, cx);
    }

    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
        if self.base.warned(cx) {
            // Congestion (warned) losses: New Jersey's response (Fig. 3a/3b lines 2-5).
            return self.base.on_loss(loss, w, cx);
        }
        let mss = cx.mss_f();
        // Eq. 2 with the MABE rate.
        let ownd_n = self.base.ownd(cx);
        match loss {
            Loss::FastRetransmit => {
                // BERR (§3.3): ssthresh = ownd_n; cwnd = cwnd + 1 MSS.
                w.ssthresh = ownd_n;
                w.cwnd += mss;
                self.base.begin_loss_episode(Some(w.cwnd), cx);
            }
            Loss::Timeout { consecutive } => {
                // EASR (Fig. 3b lines 7-9): cwnd = (ownd_n + ownd_{n-1}) / 2; ssthresh = ownd_n.
                self.base.begin_loss_episode(None, cx);
                if consecutive <= 1 {
                    w.ssthresh = ownd_n;
                }
                w.cwnd = ((ownd_n + self.ownd_prev()) / 2.0).max(mss);
            }
        }
        Verdict::Wireless
    }

    fn on_recovery_exit(&mut self, w: &mut Window, cx: &mut Ctx) {
        self.base.on_recovery_exit(w, cx);
    }

    fn on_signal(&mut self, signal: Signal, w: &mut Window, cx: &mut Ctx) {
        self.base.on_signal(signal, w, cx);
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        self.base.trace_vars(out);
        let ownd_prev = self.base.ownd_history().1;
        let mss = if self.base.mss() > 0.0 { self.base.mss() } else { 1.0 };
        out.push(("ownd_prev_segments", ownd_prev / mss));
        out.push(("round_ownd_segments", self.s.round_ownd / mss));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Harness, MSS, var as trace, ack_timed};

    const MS: u64 = 1_000_000;
    const M: f64 = MSS as f64;

    fn njplus() -> Harness {
        Harness::new(build(&NjPlusParams::default()))
    }

    fn ack_at(h: &mut Harness, segments: u64, gap: u64, rtt: u64, rx: Option<u64>, marked: bool) {
        ack_timed(h, segments, gap, rtt, rx, marked);
    }

    /// 300 ACKs 10 ms apart at the sender; the receiver saw the data `rx_gap` apart.
    fn steady(h: &mut Harness, rx_gap: u64) {
        let mut rx = 1_000 * MS;
        for _ in 0..300 {
            rx += rx_gap;
            ack_at(h, 1, 10 * MS, 100 * MS, Some(rx), false);
        }
        h.fill_window();
    }

    #[test]
    fn mabe_takes_the_larger_of_the_ack_and_receiver_estimates() {
        // Receiver timing faster than the ACK clock (reverse-path delay spreads the ACKs).
        let mut h = njplus();
        steady(&mut h, 5 * MS);
        let (abe, tabe) = (trace(&h, "abe_bps"), trace(&h, "tabe_bps"));
        assert!(tabe > 1.5 * abe, "abe {abe} tabe {tabe}");
        assert_eq!(trace(&h, "rate_bps"), tabe);
        // ACK clock faster than the receiver timing: ABE wins.
        let mut h = njplus();
        steady(&mut h, 20 * MS);
        let (abe, tabe) = (trace(&h, "abe_bps"), trace(&h, "tabe_bps"));
        assert!(abe > 1.5 * tabe, "abe {abe} tabe {tabe}");
        assert_eq!(trace(&h, "rate_bps"), abe);
        assert_eq!(mabe_rate(&Estimators::default()), 0.0);
    }

    #[test]
    fn berr_sets_ssthresh_to_ownd_and_adds_one_segment_on_an_unwarned_fast_retransmit() {
        let mut h = njplus();
        steady(&mut h, 10 * MS);
        for _ in 0..3 {
            h.dup_ack();
        }
        let cwnd = h.w.cwnd;
        // ownd_n = max(R_s, R_r) * SRTT, recomputed from the traced estimates.
        let ownd = trace(&h, "abe_bps").max(trace(&h, "tabe_bps")) * h.rtt.srtt().unwrap() as f64 / 1e9;
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Wireless);
        assert!((h.w.ssthresh - ownd.max(2.0 * M)).abs() < 1e-6, "{} vs {ownd}", h.w.ssthresh);
        assert_eq!(h.w.cwnd, cwnd + M);
        h.exit_recovery();
        assert_eq!(h.w.cwnd, cwnd + M);
    }

    #[test]
    fn a_warned_fast_retransmit_is_new_jerseys_cut_to_ownd() {
        let mut h = njplus();
        steady(&mut h, 10 * MS);
        let cwnd = h.w.cwnd;
        h.now += MS;
        h.dupacks += 1;
        let s = AckSample { ack: h.snd_una, dup: true, marked: true, delivered: h.snd_una, ..AckSample::default() };
        h.signal(Signal::CongestionMark);
        h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
        h.dup_ack();
        h.dup_ack();
        let ownd = trace(&h, "rate_bps") * h.rtt.srtt().unwrap() as f64 / 1e9;
        assert!(cwnd > ownd);
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Congestion);
        assert!((h.w.ssthresh - ownd).abs() < 1e-6 && (h.w.cwnd - ownd).abs() < 1e-6);
    }

    #[test]
    fn easr_restarts_an_unwarned_timeout_from_the_mean_of_the_last_two_ownd() {
        let mut h = njplus();
        steady(&mut h, 10 * MS);
        // A slower last ACK lowers ownd_n below ownd_{n-1}.
        ack_at(&mut h, 1, 40 * MS, 100 * MS, Some(1_000 * MS + 301 * 10 * MS + 30 * MS), false);
        let ownd_n = trace(&h, "ownd_segments") * M;
        let ownd_prev = trace(&h, "ownd_prev_segments") * M;
        assert!(ownd_prev > ownd_n, "{ownd_prev} > {ownd_n}");
        assert_eq!(h.loss(Loss::Timeout { consecutive: 1 }), Verdict::Wireless);
        assert!((h.w.ssthresh - ownd_n).abs() < 1e-6);
        assert!((h.w.cwnd - (ownd_n + ownd_prev) / 2.0).abs() < 1e-6, "{} vs {}", h.w.cwnd, (ownd_n + ownd_prev) / 2.0);
        // A repeated expiry keeps ssthresh.
        let first = h.w.ssthresh;
        h.loss(Loss::Timeout { consecutive: 2 });
        assert_eq!(h.w.ssthresh, first);
    }

    #[test]
    fn a_warned_timeout_collapses_to_one_segment_with_ssthresh_ownd() {
        let mut h = njplus();
        steady(&mut h, 10 * MS);
        ack_at(&mut h, 1, 10 * MS, 100 * MS, Some(5_000 * MS), true);
        let ownd_n = trace(&h, "ownd_segments") * M;
        h.now += 1_000 * MS;
        assert_eq!(h.loss(Loss::Timeout { consecutive: 1 }), Verdict::Congestion);
        assert_eq!(h.w.cwnd, M);
        assert!((h.w.ssthresh - ownd_n).abs() < 1e-6);
    }

    #[test]
    fn previous_round_reading_takes_ownd_at_the_start_of_the_round() {
        let p = NjPlusParams { previous_ownd: PreviousOwnd::PreviousRound, ..NjPlusParams::default() };
        let mut h = Harness::new(build(&p));
        steady(&mut h, 10 * MS);
        let round_ownd = trace(&h, "round_ownd_segments") * M;
        let ownd_n = trace(&h, "ownd_segments") * M;
        assert!(round_ownd >= 2.0 * M);
        h.loss(Loss::Timeout { consecutive: 1 });
        assert!((h.w.cwnd - (ownd_n + round_ownd) / 2.0).abs() < 1e-6);
    }

}
