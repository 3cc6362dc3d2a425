//! TCP NJ+.
//!
//! J. Lee, J. Kim, M. Park, J. Koo, H. Choo, "NJ+: An Efficient Congestion Control
//! Mechanism for Wireless Networks", KSII Transactions on Internet and Information Systems
//! 2(6), Dec. 2008 (DOI 10.3837/tiis.2008.06.004; the venue from the DOI, not printed in
//! the text), §3 and Figs. 2-3.
//!
//! TCP New Jersey with three changes: MABE takes the larger of the ACK-timed and the
//! receiver-timed bandwidth estimates; EASR restarts an unwarned timeout from the mean of
//! ownd_n and ownd_{n-1}, the optimal window measured before the loss episode; BERR raises
//! cwnd by one segment on an unwarned fast retransmit.
//!
//! Deviations and ambiguities resolved:
//! - Built on [`Jersey`] (New Jersey): the estimators, congestion-warning bookkeeping, growth,
//!   rate control on marked ACKs and the warned loss responses are New Jersey's, with its
//!   parameters (`new_jersey`). NJ+ only supplies the rate (MABE) and the unwarned loss
//!   responses (EASR, BERR); New Jersey's `timeout_without_warning` is therefore unused.
//! - MABE (Fig. 2): R_n = max(R_sn, R_rn), where R_sn (ABE, sender's ACK arrival times) and
//!   R_rn (TABE, receiver's data arrival times) each run their own Eq. 1 recursion; the
//!   maximum is not fed back. Without timestamps R_rn stays 0, so R_n = R_sn (Fig. 2's
//!   "if (timestamp)" wraps both recursions; running R_sn without timestamps is our
//!   reading, the paper is silent).
//! - L_n (Fig. 2, l.105 and l.109): each recursion keeps the L_n of the method
//!   it comes from. NJ+ "compares the two methods shown above and selects a higher value"
//!   (l.88), the methods being Jersey's ABE and New Jersey's TABE as l.86-88 define them;
//!   R_sn is the "ABE based on ACK packet inter arrival time" (l.107), "measured based on the
//!   ACK receiving rate" (l.124), and Jersey's L_n is "the size of the data packet
//!   acknowledged by the nth ACK" (l.86). l.124 words the two L_n differently: "the length
//!   of the data packet referenced by the nth ACK" for R_sn, "the length of the n-th data
//!   packet" for R_rn. So R_sn takes what the n-th ACK acknowledges as the sender sees it
//!   (`new_jersey.abe_bytes = "cumulative_ack"`, New Jersey's own default): one data packet
//!   per ACK, a duplicate counting its segment and a cumulative ACK its advance less what
//!   duplicates counted (`new_jersey.dupack_credit = true`, see `jersey`; the earlier
//!   `false` took the whole advance, 0 for a duplicate); and R_rn every data segment that
//!   reached the receiver (`tabe_bytes = "received"`, see `jersey`). That Fig. 2 writes one symbol L_n in both lines does not
//!   make them one quantity: Formula (1) (l.83) also serves Jersey and New Jersey with one
//!   L_n, and l.124 defines each. `new_jersey.abe_bytes = "received"` gives R_sn the
//!   receiver's count instead (reading "referenced by" as the segment whose arrival sent the
//!   ACK); that count is carried with the receiver's timestamp here, is not part of the
//!   RFC 7323 option, and is not information an ACK-timed ABE has. For a duplicate ACK the
//!   default already credits that segment, inferred by the sender; the two differ where
//!   the sender cannot see arrivals (a lost duplicate ACK, whose credit then comes late
//!   with the covering cumulative ACK; a segment that arrives twice; the ACK that ends
//!   recovery). What the choice does on
//!   the NJ+ two-hop path (`faithful_jersey.rs`, 1 % loss): with the whole cumulative
//!   advance (`dupack_credit = false`) R_sn jumps on the ACK that fills a hole and the
//!   maximum takes the jump, far above the bottleneck's payload rate; one packet per ACK and
//!   the received count stay near or below that rate (`estimator_bounds.rs`).
//! - ownd_{n-1} in EASR (`previous_ownd = "before_event"`): ownd after the last ACK before
//!   the loss episode that ends in the RTO, i.e. the last new ACK outside fast recovery and
//!   outside an earlier RTO's recovery; the first duplicate ACK (or the RTO itself, when no
//!   duplicate came) freezes it, and consecutive RTOs of one episode use the same value. The
//!   paper: "the ownd_n value at the time of the high BER does not actually mean the
//!   optimum congestion window value ... takes into account the conditions existing prior to
//!   the high BER" (l.179); "For this reason, TCP NJ+ considers ownd_{n-1}, the value
//!   effective immediately prior to the RTO occurrence, and thereby ensures a higher
//!   transfer rate" and "The ownd_{n-1} value is measured before the network event where
//!   the current link error causes the RTO, and therefore is higher than ownd_n" (l.181).
//!   "Immediately prior to the RTO occurrence" is read with the next sentence: prior to the
//!   event that leads to the RTO. What this reading implies: an RTO with no duplicate or
//!   partial ACK before it (the last ACK was a clean new ACK) has ownd_{n-1} = ownd_n, and
//!   EASR then gives New Jersey's cwnd = ownd_n; EASR's cwnd differs from ownd_n only when
//!   duplicate or partial ACKs (or an earlier RTO) moved the estimate between the last clean
//!   ACK and the RTO. The per-ACK index read literally (`"previous_ack"`: ownd after the ACK
//!   before the last one, the value "immediately prior" in the narrowest sense) is measured
//!   inside the event, one ACK before ownd_n. `"previous_round"` takes ownd as it stood
//!   when the current round trip began. When nothing was measured before the event (an RTO
//!   before any clean ACK), ownd_{n-1} = ownd_n under `"before_event"`; under
//!   `"previous_ack"` or `"previous_round"` it is then 0, so cwnd = ownd_n / 2. The paper's "therefore is higher" is an
//!   expectation, not a rule: the mean is taken as measured.
//! - EASR (Fig. 3b): an unwarned timeout sets ssthresh = ownd_n and cwnd = (ownd_n +
//!   ownd_{n-1}) / 2, at least one MSS (the floor is not in the paper); a warned timeout is New Jersey's: cwnd = 1 segment, ssthresh =
//!   ownd_n. Both on every expiry, repeated ones included (Fig. 3b lines 05 and 09 have no
//!   exception; `new_jersey.timeout_ssthresh = "first_expiry"` keeps ssthresh after the
//!   first, RFC 5681 §3.1). A timeout therefore does not collapse an unwarned window
//!   (`timeout_collapses_window = false`).
//! - BERR (§3.3): an unwarned fast retransmit sets ssthresh = ownd_n and cwnd = cwnd + 1 MSS;
//!   fast recovery (NewReno) ends at that cwnd. A warned one is New Jersey's: ssthresh =
//!   ownd_n, cwnd = min(cwnd, ownd_n).
//! - "Warned" is New Jersey's rule: a congestion mark within `new_jersey.warning_window_rtts`
//!   SRTTs before the last ACK that preceded the loss (see `jersey`).
//! - The comparison baseline "TCP Westwood" (§2.3, [11]): we use `westwood` with `flavour =
//!   "ns2"` (UCLA's ns-2 TCPW-NR; see `westwood`); which agent the authors ran is not
//!   stated (the paper cites only Casetti et al. [11], l.29, l.333).

use serde::Deserialize;

use crate::api::{AckSample, CongestionControl, Ctx, Loss, RecoveryStyle, Signal, Verdict, Window};
use crate::jersey::{Estimators, Jersey, JerseyParams};
use crate::registry::{AlgorithmInfo, ParamInfo, Range};

const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "new_jersey",
        unit: "table",
        default: r#"{"window_rtts":1.0,"rtt":"srtt","ownd_floor_segments":2.0,"warning_window_rtts":1.0,"mark_response":"once_per_window","cwnd_cut":"min","grow_on_marked_acks":false,"timeout_without_warning":"ownd","timeout_ssthresh":"every_expiry","abe_bytes":"cumulative_ack","tabe_bytes":"received","dupack_credit":true}"#,
        doc: "parameters of the underlying New Jersey (see `newjersey`), its defaults: R_sn's L_n (abe_bytes, dupack_credit) is one data packet per ACK (l.86, l.124), R_rn's (tabe_bytes) the data the receiver got; abe_bytes = received feeds R_sn the receiver's count; timeout_without_warning is replaced by EASR",
        range: Range::Table(crate::jersey::PARAMS),
    },
    ParamInfo {
        name: "previous_ownd",
        unit: "before_event|previous_ack|previous_round",
        default: "before_event",
        doc: "ownd_{n-1} in EASR: ownd after the last ACK before the loss episode that ends in the RTO (l.181), after the previous ACK, or at the start of the current round trip",
        range: Range::Any,
    },
];

pub const NJPLUS_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "njplus",
    summary: "New Jersey with the larger of the ACK- and receiver-timed bandwidth estimates (MABE), cwnd = mean of ownd_n and the ownd measured before the loss episode after an unwarned timeout (EASR) and +1 MSS on an unwarned fast retransmit (BERR).",
    reference: "Lee, Kim, Park, Koo, Choo, KSII TIIS 2(6), 2008",
    params: PARAMS,
    timeout_collapses_window: false,
    constraints: &[],
};

/// Which value EASR takes as ownd_{n-1}.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PreviousOwnd {
    /// ownd after the last ACK before the loss episode that ends in this RTO: the last new
    /// ACK outside fast recovery and outside an earlier RTO's recovery, before the first
    /// duplicate ACK (NJ+ l.181, "measured before the network event").
    #[default]
    BeforeEvent,
    /// ownd after the ACK before the last one (the paper's per-ACK index n, taken literally).
    PreviousAck,
    /// ownd when the current round trip began.
    PreviousRound,
}

/// Parameters of NJ+.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NjPlusParams {
    /// The underlying New Jersey's parameters (estimator window, RTT, ownd floor, warning
    /// window, mark response, rate-control cut, the L_n of R_sn and R_rn). The paper does
    /// not change them; a partial table keeps New Jersey's defaults for the rest.
    pub new_jersey: JerseyParams,
    /// ownd_{n-1} of EASR: `before_event` (l.181), `previous_ack` (the per-ACK index taken
    /// literally) or `previous_round`.
    pub previous_ownd: PreviousOwnd,
}

impl Default for NjPlusParams {
    fn default() -> Self {
        // R_sn is Jersey's ABE and R_rn New Jersey's TABE, each with its own L_n (l.86-88,
        // l.124): New Jersey's defaults.
        NjPlusParams { new_jersey: JerseyParams::default(), previous_ownd: PreviousOwnd::BeforeEvent }
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
    /// ownd (bytes) after the last ACK that preceded the current loss episode (`None`
    /// before the first such ACK).
    pre_event_ownd: Option<f64>,
    /// SND.MAX at the last RTO: ACKs below it belong to that RTO's recovery.
    timeout_recover: Option<u64>,
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
            s: NjPlusState { round_end: 0, round_ownd: 0.0, pre_event_ownd: None, timeout_recover: None },
        }
    }

    /// ownd_{n-1} in bytes, as `previous_ownd` selects; `ownd_n` when nothing was measured
    /// before the event.
    fn ownd_prev(&self, ownd_n: f64) -> f64 {
        match self.previous_ownd {
            PreviousOwnd::BeforeEvent => self.s.pre_event_ownd.unwrap_or(ownd_n),
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
        // An ACK outside any loss episode: new data, not in fast recovery, not below the
        // recovery point of an RTO. The first duplicate ACK or the RTO freezes the value.
        let clean = !ack.dup && !ack.in_recovery && self.s.timeout_recover.is_none_or(|r| ack.ack >= r);
        self.base.on_ack(ack, w, cx);
        if clean {
            self.s.timeout_recover = None;
            self.s.pre_event_ownd = Some(self.base.ownd_history().0);
        }
    }

    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
        if let Loss::Timeout { .. } = loss {
            self.s.timeout_recover = Some(cx.snd_max);
        }
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
                if self.base.timeout_sets_ssthresh(consecutive) {
                    w.ssthresh = ownd_n;
                }
                w.cwnd = ((ownd_n + self.ownd_prev(ownd_n)) / 2.0).max(mss);
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
        out.push(("pre_event_ownd_segments", self.s.pre_event_ownd.map_or(f64::NAN, |o| o / mss)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jersey::LnBytes;
    use crate::testing::{Harness, MSS, var as trace, ack_timed, approx};

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

    /// Eq. 1 recomputed independently, seconds and bytes.
    fn tsw(r: f64, l: f64, dt_s: f64, tw_s: f64) -> f64 {
        (tw_s * r + l) / (dt_s + tw_s)
    }

    /// Receiver time of the last arrival of `steady`.
    const STEADY_RX_END: u64 = 1_000 * MS + 300 * 10 * MS;

    /// A cumulative ACK of `segments` segments sent by one segment (a retransmission filling
    /// a hole) that reached the receiver at `rx`, `gap` after the previous event; RTT 100 ms.
    fn hole_filling_ack(h: &mut Harness, segments: u64, gap: u64, rx: u64) {
        h.fill_window();
        h.now += gap;
        h.dupacks = 0;
        h.snd_una += segments * u64::from(MSS);
        h.rx_bytes += u64::from(MSS);
        h.rtt.on_sample(100 * MS);
        let s = AckSample {
            ack: h.snd_una,
            acked_bytes: segments * u64::from(MSS),
            rtt: Some(100 * MS),
            rx_arrival: Some(rx),
            rx_bytes: Some(h.rx_bytes),
            delivered: h.snd_una,
            ..AckSample::default()
        };
        h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
    }

    #[test]
    fn mabe_runs_jerseys_abe_and_new_jerseys_tabe_each_with_its_own_l_n() {
        // R_sn: one data packet per ACK (l.86, l.124): a duplicate counts its segment, the
        // hole-filling ACK its advance less the duplicates' segments; R_rn: every data
        // segment that reached the receiver (l.124). Here they agree.
        let mut h = njplus();
        steady(&mut h, 10 * MS);
        let (mut rs, mut rr) = (trace(&h, "abe_bps"), trace(&h, "tabe_bps"));
        for k in 1..=8 {
            // Duplicate ACKs 10 ms apart at the sender, their segments 10 ms apart at the
            // receiver.
            h.dup_ack_rx(10 * MS, STEADY_RX_END + k * 10 * MS);
            rs = tsw(rs, M, 0.010, 0.100);
            rr = tsw(rr, M, 0.010, 0.100);
            assert!(approx(trace(&h, "abe_bps"), rs), "{} vs {rs}", trace(&h, "abe_bps"));
            assert!(approx(trace(&h, "tabe_bps"), rr), "{} vs {rr}", trace(&h, "tabe_bps"));
            assert_eq!(trace(&h, "rate_bps"), rs.max(rr));
        }
        hole_filling_ack(&mut h, 9, 10 * MS, STEADY_RX_END + 90 * MS);
        rs = tsw(rs, M, 0.010, 0.100);
        rr = tsw(rr, M, 0.010, 0.100);
        assert!(approx(trace(&h, "abe_bps"), rs) && approx(trace(&h, "tabe_bps"), rr));

        // The earlier reading (`dupack_credit = false`): nothing for a duplicate, and the
        // ACK that fills the hole acknowledges nine segments, the receiver got one. R_sn
        // jumps above R_rn and the maximum takes it.
        let p = NjPlusParams { new_jersey: JerseyParams { dupack_credit: false, ..JerseyParams::default() }, ..NjPlusParams::default() };
        let mut h = Harness::new(build(&p));
        steady(&mut h, 10 * MS);
        let (mut rs, mut rr) = (trace(&h, "abe_bps"), trace(&h, "tabe_bps"));
        for k in 1..=8 {
            h.dup_ack_rx(10 * MS, STEADY_RX_END + k * 10 * MS);
            rs = tsw(rs, 0.0, 0.010, 0.100);
            rr = tsw(rr, M, 0.010, 0.100);
        }
        hole_filling_ack(&mut h, 9, 10 * MS, STEADY_RX_END + 90 * MS);
        rs = tsw(rs, 9.0 * M, 0.010, 0.100);
        rr = tsw(rr, M, 0.010, 0.100);
        assert!(approx(trace(&h, "abe_bps"), rs) && approx(trace(&h, "tabe_bps"), rr));
        assert!(rs > 1.1 * rr, "{rs} vs {rr}");
        assert_eq!(trace(&h, "rate_bps"), rs);

        // `abe_bytes = "received"`: R_sn counts the receiver's segments too.
        let p = NjPlusParams { new_jersey: JerseyParams { abe_bytes: LnBytes::Received, ..JerseyParams::default() }, ..NjPlusParams::default() };
        let mut h = Harness::new(build(&p));
        steady(&mut h, 10 * MS);
        let mut rs = trace(&h, "abe_bps");
        for k in 1..=8 {
            h.dup_ack_rx(10 * MS, STEADY_RX_END + k * 10 * MS);
            rs = tsw(rs, M, 0.010, 0.100);
        }
        hole_filling_ack(&mut h, 9, 10 * MS, STEADY_RX_END + 90 * MS);
        rs = tsw(rs, M, 0.010, 0.100);
        assert!(approx(trace(&h, "abe_bps"), rs), "{} vs {rs}", trace(&h, "abe_bps"));
        assert!((rs - 100_000.0).abs() < 1.0, "{rs}");
    }

    #[test]
    fn without_timestamps_the_rate_is_r_sn_on_the_cumulative_ack() {
        // Fig. 2 line 2 applies MABE "if (timestamp)": without timestamps R_rn is never
        // sampled and R_n = R_sn, whose L_n is one segment per ACK even with
        // `abe_bytes = "received"` (there is no receiver count to read).
        let received = NjPlusParams { new_jersey: JerseyParams { abe_bytes: LnBytes::Received, ..JerseyParams::default() }, ..NjPlusParams::default() };
        for p in [NjPlusParams::default(), received] {
            let mut h = Harness::new(build(&p));
            let mut r = 0.0;
            // The first ACK starts the clock; then one segment every 10 ms, Tw = 100 ms.
            ack_at(&mut h, 1, 10 * MS, 100 * MS, None, false);
            for _ in 0..50 {
                ack_at(&mut h, 1, 10 * MS, 100 * MS, None, false);
                r = tsw(r, M, 0.010, 0.100);
            }
            h.now += 20 * MS;
            h.dup_ack();
            r = tsw(r, M, 0.021, 0.100);
            assert_eq!(trace(&h, "tabe_bps"), 0.0);
            assert!(approx(trace(&h, "abe_bps"), r), "{} vs {r}", trace(&h, "abe_bps"));
            assert_eq!(trace(&h, "rate_bps"), trace(&h, "abe_bps"));
        }
    }

    #[test]
    fn a_partial_new_jersey_table_keeps_the_other_defaults() {
        let p: NjPlusParams = serde_json::from_str(r#"{"new_jersey": {"window_rtts": 1.0}}"#).unwrap();
        assert_eq!(p, NjPlusParams::default());
        assert_eq!(p.new_jersey.abe_bytes, LnBytes::CumulativeAck);
        assert_eq!(p.new_jersey.tabe_bytes, LnBytes::Received);
        let p: NjPlusParams = serde_json::from_str(r#"{"new_jersey": {"window_rtts": 2.0}}"#).unwrap();
        assert_eq!(p.new_jersey, JerseyParams { window_rtts: 2.0, ..JerseyParams::default() });
    }

    #[test]
    fn easr_takes_ownd_measured_before_the_loss_episode() {
        let mut h = njplus();
        steady(&mut h, 10 * MS);
        let before = trace(&h, "ownd_segments") * M;
        assert!(approx(trace(&h, "pre_event_ownd_segments") * M, before));
        // The link deteriorates: out-of-order segments reach the receiver 30 ms apart, their
        // duplicate ACKs the sender 60 ms apart; both estimates fall (Eq. 1).
        for k in 1..=3 {
            h.dup_ack_rx(60 * MS, STEADY_RX_END + k * 30 * MS);
        }
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Wireless);
        h.in_recovery = true;
        for k in 4..=6 {
            h.dup_ack_rx(60 * MS, STEADY_RX_END + k * 30 * MS);
        }
        // The retransmission is lost as well: the timer expires.
        let ownd_n = (trace(&h, "abe_bps").max(trace(&h, "tabe_bps")) * h.rtt.srtt().unwrap() as f64 / 1e9).max(2.0 * M);
        assert!(ownd_n < 0.8 * before, "{ownd_n} vs {before}");
        assert!(approx(trace(&h, "pre_event_ownd_segments") * M, before), "the episode froze it");
        h.now += 400 * MS;
        h.in_recovery = false;
        assert_eq!(h.loss(Loss::Timeout { consecutive: 1 }), Verdict::Wireless);
        // Fig. 3b: ssthresh = ownd_n, cwnd = (ownd_n + ownd_{n-1}) / 2.
        assert!(approx(h.w.ssthresh, ownd_n), "{} vs {ownd_n}", h.w.ssthresh);
        assert!(approx(h.w.cwnd, (ownd_n + before) / 2.0), "{} vs {}", h.w.cwnd, (ownd_n + before) / 2.0);
        // Duplicate ACKs between the expiries (more out-of-order segments reach the
        // receiver, 30 ms apart): both estimates fall further (Eq. 1; ABE's clock last
        // ticked at the sixth duplicate, 400 ms before the expiry).
        let (rs, rr) = (trace(&h, "abe_bps"), trace(&h, "tabe_bps"));
        h.dup_ack_rx(60 * MS, STEADY_RX_END + 7 * 30 * MS);
        h.dup_ack_rx(60 * MS, STEADY_RX_END + 8 * 30 * MS);
        let rs = tsw(tsw(rs, M, 0.460, 0.100), M, 0.060, 0.100);
        let rr = tsw(tsw(rr, M, 0.030, 0.100), M, 0.030, 0.100);
        assert!(approx(trace(&h, "abe_bps"), rs), "{} vs {rs}", trace(&h, "abe_bps"));
        let ownd_n2 = (rs.max(rr) * 0.100).max(2.0 * M);
        assert!(ownd_n2 < 0.95 * ownd_n && ownd_n2 > 2.0 * M, "precondition: {ownd_n2} vs {ownd_n}");
        // The second expiry of the episode: the same ownd_{n-1}; ssthresh = the new ownd_n
        // (Fig. 3b line 09 on every expiry).
        h.now += 800 * MS;
        assert_eq!(h.loss(Loss::Timeout { consecutive: 2 }), Verdict::Wireless);
        assert!(approx(h.w.ssthresh, ownd_n2), "{} vs {ownd_n2}", h.w.ssthresh);
        assert!(approx(h.w.cwnd, (ownd_n2 + before) / 2.0), "{} vs {}", h.w.cwnd, (ownd_n2 + before) / 2.0);
        // ACKs below the RTO's recovery point belong to the episode: the value stays while
        // ownd follows the new rate (one segment per 20 ms).
        let recover = h.snd_max;
        let mut rx = STEADY_RX_END + 9 * 60 * MS;
        while h.snd_una + u64::from(MSS) < recover {
            rx += 20 * MS;
            ack_at(&mut h, 1, 20 * MS, 100 * MS, Some(rx), false);
            assert!(approx(trace(&h, "pre_event_ownd_segments") * M, before));
        }
        // The ACK that covers it ends the episode: ownd is followed again.
        ack_at(&mut h, 1, 20 * MS, 100 * MS, Some(rx + 20 * MS), false);
        let now = trace(&h, "ownd_segments") * M;
        assert!(now < 0.9 * before, "{now} vs {before}");
        assert!(approx(trace(&h, "pre_event_ownd_segments") * M, now));
    }

    /// After `steady` (receiver spacing 10 ms), one last ACK 40 ms after the previous one
    /// whose segment arrived 30 ms after the previous one. Returns (ownd before that ACK,
    /// ownd_n after it), both from Eq. 1 and Eq. 2 with SRTT = Tw = 100 ms.
    fn slower_last_ack(h: &mut Harness) -> (f64, f64) {
        let (rs, rr) = (trace(h, "abe_bps"), trace(h, "tabe_bps"));
        let before = (rs.max(rr) * 0.100).max(2.0 * M);
        ack_at(h, 1, 40 * MS, 100 * MS, Some(STEADY_RX_END + 30 * MS), false);
        let (rs, rr) = (tsw(rs, M, 0.040, 0.100), tsw(rr, M, 0.030, 0.100));
        let ownd_n = (rs.max(rr) * 0.100).max(2.0 * M);
        assert!(before > 1.05 * ownd_n, "precondition: {before} > {ownd_n}");
        (before, ownd_n)
    }

    #[test]
    fn previous_ack_reading_takes_ownd_one_ack_before_the_rto() {
        let p = NjPlusParams { previous_ownd: PreviousOwnd::PreviousAck, ..NjPlusParams::default() };
        let mut h = Harness::new(build(&p));
        steady(&mut h, 10 * MS);
        let (ownd_prev, ownd_n) = slower_last_ack(&mut h);
        assert_eq!(h.loss(Loss::Timeout { consecutive: 1 }), Verdict::Wireless);
        assert!(approx(h.w.ssthresh, ownd_n), "{} vs {ownd_n}", h.w.ssthresh);
        assert!(approx(h.w.cwnd, (ownd_n + ownd_prev) / 2.0), "{} vs {}", h.w.cwnd, (ownd_n + ownd_prev) / 2.0);
    }

    #[test]
    fn before_event_without_a_duplicate_before_the_rto_restarts_from_ownd_n() {
        // No duplicate or partial ACK preceded the RTO: the last ACK before the event is
        // the last ACK, so ownd_{n-1} = ownd_n and EASR gives New Jersey's cwnd = ownd_n.
        let mut h = njplus();
        steady(&mut h, 10 * MS);
        let (_, ownd_n) = slower_last_ack(&mut h);
        assert_eq!(h.loss(Loss::Timeout { consecutive: 1 }), Verdict::Wireless);
        assert!(approx(h.w.ssthresh, ownd_n) && approx(h.w.cwnd, ownd_n), "{} vs {ownd_n}", h.w.cwnd);
    }

    #[test]
    fn first_expiry_option_keeps_ssthresh_on_a_repeated_expiry() {
        use crate::jersey::TimeoutSsthresh;
        let nj = JerseyParams { timeout_ssthresh: TimeoutSsthresh::FirstExpiry, ..JerseyParams::default() };
        let mut h = Harness::new(build(&NjPlusParams { new_jersey: nj, ..NjPlusParams::default() }));
        steady(&mut h, 10 * MS);
        let (_, ownd_n) = slower_last_ack(&mut h);
        h.loss(Loss::Timeout { consecutive: 1 });
        assert!(approx(h.w.ssthresh, ownd_n));
        // Two duplicate ACKs between the expiries lower ownd_n (Eq. 1).
        let (rs, rr) = (trace(&h, "abe_bps"), trace(&h, "tabe_bps"));
        h.dup_ack_rx(60 * MS, STEADY_RX_END + 60 * MS);
        h.dup_ack_rx(60 * MS, STEADY_RX_END + 90 * MS);
        let rs = tsw(tsw(rs, M, 0.060, 0.100), M, 0.060, 0.100);
        let rr = tsw(tsw(rr, M, 0.030, 0.100), M, 0.030, 0.100);
        assert!(approx(trace(&h, "abe_bps"), rs), "{} vs {rs}", trace(&h, "abe_bps"));
        let ownd_n2 = (rs.max(rr) * 0.100).max(2.0 * M);
        assert!(ownd_n2 < 0.95 * ownd_n, "precondition: {ownd_n2} vs {ownd_n}");
        h.now += 600 * MS;
        h.loss(Loss::Timeout { consecutive: 2 });
        assert!(approx(h.w.ssthresh, ownd_n), "{} vs {ownd_n}", h.w.ssthresh);
        // ownd_{n-1} (before the episode) is the first expiry's ownd_n: no duplicate came
        // before it.
        assert!(approx(h.w.cwnd, (ownd_n2 + ownd_n) / 2.0), "{} vs {}", h.w.cwnd, (ownd_n2 + ownd_n) / 2.0);
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
        // Congestion avoidance from 4 segments, so a round trip is a few ACKs; the ACKs (and
        // the arrivals at the receiver) come 10, 12, 14, ... ms apart, so ownd changes on
        // every ACK.
        h.w.cwnd = 4.0 * M;
        h.w.ssthresh = 4.0 * M;
        // A round trip begins with the first ACK at or above SND.MAX as it stood when the
        // previous one began; ownd "at its start" is ownd before that ACK.
        let (mut round_end, mut round_start_ownd, mut ownd_before) = (0u64, 0.0, 0.0);
        let mut rx = 1_000 * MS;
        for k in 0..23u64 {
            let gap = (10 + 2 * k) * MS;
            rx += gap;
            let snd_max = h.snd_max.max(h.snd_una + h.w.cwnd.max(M) as u64);
            let ack = h.snd_una + u64::from(MSS);
            if ack >= round_end {
                round_start_ownd = ownd_before;
                round_end = snd_max.max(ack + 1);
            }
            let before = ownd_before;
            ack_at(&mut h, 1, gap, 100 * MS, Some(rx), false);
            ownd_before = trace(&h, "ownd_segments") * M;
            if k == 22 {
                // The readings differ here: ownd_n, ownd before the last ACK, and at the
                // start of the round.
                let ownd_n = ownd_before;
                assert!((round_start_ownd - ownd_n).abs() > 0.05 * ownd_n, "{round_start_ownd} vs {ownd_n}");
                assert!((round_start_ownd - before).abs() > 0.05 * before, "{round_start_ownd} vs {before}");
                h.loss(Loss::Timeout { consecutive: 1 });
                assert!(approx(h.w.cwnd, (ownd_n + round_start_ownd) / 2.0), "{} vs {}", h.w.cwnd, (ownd_n + round_start_ownd) / 2.0);
            }
        }
    }

}
