//! TCP-Jersey and TCP New Jersey.
//!
//! K. Xu, Y. Tian, N. Ansari, "TCP-Jersey for wireless IP communications", IEEE JSAC
//! 22(4):747-756, May 2004; K. Xu, Y. Tian, N. Ansari, "Improving TCP performance in
//! integrated wireless communications networks", Computer Networks 47:219-237, 2005 (New
//! Jersey). Specification: the two papers' ABE, congestion-warning and TABE descriptions
//! (the papers themselves are not shipped here); the loss responses are checked
//! against the description of both in the NJ+ paper (Lee et al., 2008, the venue from outside the papers; §2.4,
//! §3.2-3.3, Fig. 3a).
//!
//! Jersey estimates the rate the connection achieves from the ACK stream (ABE, a
//! time-sliding-window estimator) and turns it into an optimal window ownd = R * RTT; when
//! routers' congestion warning (CW) marks say the path is congested it cuts the window to
//! ownd, and a loss without a warning is taken as a wireless loss: the segment is resent and
//! the window kept. New Jersey is the same with the rate measured on the receiver's clock
//! (TABE: the arrival times of the data segments, carried back in the timestamps option).
//!
//! Deviations and ambiguities resolved:
//! - ABE/TABE (NJ+ paper Eq. 1): R_n = (Tw * R_{n-1} + L_n) / ((t_n - t_{n-1}) + Tw), per
//!   ACK, with Tw = K * RTT (`window_rtts` = K, 1 as in the paper and the ns-3 port).
//!   R_0 = 0, but the first ACK only starts the clock: its time becomes t_0 and its bytes
//!   are not counted. NJ+ Fig. 2's (MABE, l. 101) initialisation sets the times to 0 as well ("R_{s0}, R_{r0},
//!   t_{s0}, t_{r0} <- 0", l.101), which would make the first sample L_1 / (t_1 + RTT) with
//!   t_1 measured from the clock's origin: the start of the simulation for ABE, an origin
//!   of the receiver's clock the sender does not know for TABE. Eq. 1 multiplies what the
//!   start contributes by Tw / (t_n - t_{n-1} + Tw) at every later ACK, so the difference
//!   between the two starts shrinks ACK by ACK (its effect on a run is not measured). The
//!   ns-3 port's per-RTT update is not used
//!   (algorithms.md §5.1 calls it a port artefact).
//! - TABE's L_n (`tabe_bytes = "received"`, default): the payload of the data segments that
//!   reached the receiver since the previous ACK, from the receiver's running byte count
//!   (`AckSample::rx_bytes`). The paper times R_rn by data arrivals, "the time at which the
//!   receiver received the nth data packet and the time at which it received the (n-1)th"
//!   (l.88), and "L_n means the length of the n-th data packet" (l.124): every arriving
//!   segment counts, so an out-of-order segment's duplicate ACK counts it and the ACK that
//!   fills a hole counts only the segment that filled it. The other reading, L_n = the
//!   cumulative-ACK advance (`tabe_bytes = "cumulative_ack"`, algorithms.md §5.4 [REC]),
//!   is shaped by `dupack_credit` as ABE's is (next item). With `dupack_credit = false`
//!   as well, the estimate sags through recovery and jumps on the hole-filling ACK: it
//!   read up to 2.8x the bottleneck's payload rate on the NJ+ two-hop path at 1 % loss and
//!   1.7x at 5 % (one 60 s run each, traced every 2 ms, the settings of
//!   `faithful_jersey.rs`, which asserts more than 1.3x), where the received count stays at
//!   or below 1.0x. With the default `dupack_credit` it peaked at 1.00x / 0.98x at 1 / 5 %
//!   loss (the same runs). A lost ACK's data is counted by the next one, so TABE
//!   is immune to ACK loss by construction (its effect on the estimate untested).
//! - ABE's L_n (`abe_bytes = "cumulative_ack"`, default): what the sender knows, "the size
//!   of the data packet acknowledged by the nth ACK" (NJ+ l.86; l.124 "the length of the
//!   data packet referenced by the nth ACK"): one data packet per ACK. Read strictly, a
//!   duplicate ACK acknowledges no data packet; the credit rests on l.86's premise that
//!   "the pattern of an ACK returning to the sender is identical to the pattern of a data
//!   packet reaching the receiver" (l.88's MABE takes the larger of R_sn and R_rn, which
//!   the paper expects to differ with each link's traffic, l.90 and l.124; on the two-hop
//!   path they agree with the credit, and without it R_sn peaked at 3.4x and MABE picked
//!   it, in the same `faithful_jersey.rs` runs). A duplicate ACK
//!   counts the segment whose arrival it reports, and a cumulative ACK its advance less what
//!   duplicates already counted, at least one segment (`dupack_credit = true`, default; the
//!   shared accounting of `westwood::net_of_duplicates`). The earlier reading,
//!   `dupack_credit = false`, took the whole cumulative advance and 0 for a duplicate: the
//!   ACK that fills a hole then counted every segment above it at once, and ABE read up to
//!   55x the bottleneck over an RTT (NJ+'s rate, max(R_sn, R_rn), 18x) in one survey of random set-ups and
//!   26.7x / 16.3x in another (N, timestamps and code version not recorded; `survey()` in
//!   `estimator_bounds.rs` covers Jersey's `dupack_credit = false` only; the test there
//!   asserts more than 2x), spikes that
//!   NJ+'s max(R_sn, R_rn) adopted. "One packet per ACK" is not strict: with no duplicate
//!   credit pending a cumulative ACK counts its whole advance (a delayed ACK, the ACK after
//!   a lost one). After a timeout, the go-back-N resend of segments the receiver already
//!   holds draws duplicates that are credited although nothing new arrived (a short
//!   over-read; the leftover credit later cuts a hole-filling ACK to one segment); its
//!   effect is untested. `abe_bytes = "received"` takes the receiver's count as
//!   TABE does (an option, also for NJ+'s R_sn; see `njplus`).
//! - An ACK that cannot be timed (no RTT yet, or for TABE no receiver timestamp) carries its
//!   cumulative bytes to the next timed sample, so no delivered byte is lost. The ACK that
//!   ends fast recovery, which the sender gives to `on_recovery_exit` instead of `on_ack`,
//!   is folded in the same way on the cumulative ACK (ABE at the time of the hook, TABE at
//!   the next receiver timestamp); on the received count it is left out like a lost ACK and
//!   the next ACK's count includes its data. A congestion mark on that ACK (signalled just
//!   before the hook) is answered in the hook as on any marked new ACK: rate control if
//!   due, after recovery's cwnd is restored; no mark is carried to a later ACK or past a
//!   loss.
//! - RTT in Tw and in ownd (Eq. 2: ownd = RTT * R / seg_size) is SRTT by default; `rtt`
//!   selects the latest sample (ns-3 port) or the minimum. ownd is kept in bytes and floored
//!   at `ownd_floor_segments` (2, as the ns-3 port and algorithms.md §5.2 "max(ownd, 2)";
//!   the papers give no floor). Before any estimate or RTT sample ownd is that floor, so a
//!   loss in the first RTT sets ssthresh to 2 segments and an unwarned timeout cwnd too.
//! - New Jersey uses TABE; when the scenario turns timestamps off (no receiver arrival time
//!   ever seen) it falls back to ABE rather than run with no estimate.
//! - "A mark for this loss": a loss is warned when a congestion mark (an ACK with
//!   `marked`, or `Signal::CongestionMark`) arrived no more than `warning_window_rtts` RTTs
//!   (SRTT, default 1) before the last ACK that preceded the loss event. For a fast
//!   retransmit the last ACK is the third duplicate, so marks on the duplicates themselves
//!   (the segments sent after the lost one crossed the warning queue) or on the ACKs of the
//!   same window decide; for a timeout the reference is the last ACK before the silence, not
//!   the expiry time (otherwise a timeout, at least one RTO after the last ACK, could never
//!   be warned). Before any RTT sample every mark counts.
//! - Marked ACK without loss (rate control, algorithms.md §5.2 [REC]): ssthresh = ownd and
//!   cwnd = min(cwnd, ownd) (`cwnd_cut = "min"`; `"assign"`: cwnd = ownd), at most once per
//!   window of data like an RFC 3168 response (ns-3 port), or on every marked ACK
//!   (`mark_response`). The NJ+ paper gives the min rule only for New Jersey's warned
//!   three duplicate ACKs (its "if the cause is congestion", l.185, read as warned: our
//!   reading, after l.69; "reduces ssthresh to ownd_n and compares cwnd with ssthresh to
//!   adjust it ... the current cwnd value is maintained if cwnd is lower than ssthresh, or
//!   the ownd_n value is used to cwnd if it is higher than ssthresh", l.185); for a marked ACK without
//!   loss it says only that the sender "decreases its cwnd" (l.65). Using the same rule
//!   there is an extension.
//! - No marked ACK grows the window (`grow_on_marked_acks = false`). The NJ+ paper says
//!   only "The sender who receives the marked packets decreases its cwnd, otherwise it
//!   maintains the current cwnd" (l.65), but it introduces CW as "an intermediate
//!   router mechanism based on explicit congestion notification (ECN) scheme [18]"
//!   (l.65), and ECN's sender "SHOULD NOT increase the congestion window in response to
//!   the receipt of an ECN-Echo ACK packet" (RFC 3168 §6.1.2); ns-2, where NJ+ was simulated
//!   (l. 201; the Jersey paper is not here), opens cwnd only on ACKs without ECN-Echo (`TcpAgent::
//!   recv_newack_helper`, ns-2.35). The paper also relies on CW to bound the queue:
//!   "The buffer of the router is also controlled by the CW mechanism" (l.190). With
//!   `grow_on_marked_acks = true` (the ns-3 port, which calls IncreaseWindow on every
//!   new ACK and cuts once per window) marked ACKs grow between cuts, and the ACK that
//!   cuts does not grow. Measured with ten New Jersey flows on the NJ+ two-hop path (CW
//!   queue, no random loss, 0.1 s apart, 100 s): without growth the flows that start
//!   after the queue average passed the threshold are cut to the ownd floor and stay
//!   there (9 of 10 never above 2.5 segments, 15 queue drops, all in the first 1.3 s);
//!   with growth none stays there, yet most flows still sit at 2 segments half of the
//!   time and the queue overflows (1322 drops, 248 timeouts). Ablation (one run): with
//!   growth and `mark_response = "ignore"` the same flows average about 5 segments
//!   instead of about 2, which suggests (one run) that the once-per-window cut to ownd (measured over the
//!   last RTT, about the window itself) takes the growth back (mechanism untested).
//! - Three duplicate ACKs with a warning: the same rate control, Verdict::Congestion, NewReno
//!   fast recovery; recovery ends at the reduced cwnd (not at ssthresh, which may be higher
//!   under `cwnd_cut = "min"`). Without a warning: cwnd and ssthresh unchanged ("explicit
//!   retransmit", algorithms.md §5.2, NJ+ §3.3, the ns-3 port), Verdict::Wireless; recovery
//!   ends at the cwnd held at the loss. NJ+ l.185 gives both three-duplicate-ACK rules for
//!   New Jersey; applying them to Jersey too is an extension.
//! - Timeout (NJ+ paper Fig. 3a and §3.2, which gives it for Jersey and New Jersey alike):
//!   ssthresh = ownd; cwnd = 1 segment when warned, cwnd = ownd when not
//!   (`timeout_without_warning = "ownd"`). algorithms.md §5.2 [REC] and the ns-3 port set
//!   cwnd = 1 segment in both cases: `timeout_without_warning = "one_segment"`.
//! - Repeated expiries (`timeout_ssthresh = "every_expiry"`, default): Fig. 3 sets
//!   "ssthresh = ownd_n;" under "if (RTO expired)" (lines 05 and 09) with no exception for a
//!   repeated expiry, and §3.2 says the same ("an RTO", l.132; "If RTO occurs", l.181), so every expiry
//!   sets ssthresh = ownd_n and cwnd by the rule above. ownd_n moves between expiries only
//!   if ACKs (duplicates) arrive between them. `"first_expiry"` keeps ssthresh after the
//!   first expiry of the same data, as RFC 5681 §3.1 does for its FlightSize/2 (whose
//!   FlightSize has collapsed after an RTO; ownd_n is an estimate of the rate, not of the
//!   flight).
//! - Slow start and congestion avoidance are Reno's (RFC 5681 per-ACK increase) via
//!   `Reno::grow`; fast recovery is NewReno's (RFC 6582).

use serde::Deserialize;

use crate::api::{AckSample, CongestionControl, Ctx, Loss, RecoveryStyle, Signal, Time, Verdict, Window, NS_PER_SEC};
use crate::registry::{AlgorithmInfo, ParamInfo, Range, MAX_RTTS, MAX_SEGMENTS};
use crate::reno::{OncePerWindow, Reno, RenoParams};

/// New Jersey's parameters (also the nested `new_jersey` table of `njplus`).
pub(crate) const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "window_rtts",
        unit: "RTTs",
        default: "1.0",
        doc: "K: the estimator's averaging window Tw = K*RTT (paper and ns-3 port: 1)",
        range: Range::above(0.0, MAX_RTTS),
    },
    ParamInfo {
        name: "rtt",
        unit: "srtt|latest|min",
        default: "srtt",
        doc: "RTT in Tw and in ownd = R*RTT: SRTT (default), the latest sample (ns-3 port) or the minimum",
        range: Range::Any,
    },
    ParamInfo {
        name: "ownd_floor_segments",
        unit: "segments",
        default: "2.0",
        doc: "lower bound on ownd (ns-3 port: 2 segments)",
        range: Range::closed(1.0, MAX_SEGMENTS),
    },
    ParamInfo {
        name: "warning_window_rtts",
        unit: "RTTs",
        default: "1.0",
        doc: "a loss is warned if a mark arrived within this many SRTTs before the last ACK preceding it",
        range: Range::closed(0.0, MAX_RTTS),
    },
    ParamInfo {
        name: "mark_response",
        unit: "once_per_window|every_mark|ignore",
        default: "once_per_window",
        doc: "rate control on a marked ACK without loss: once per window (ns-3 port, RFC 3168 style), on every marked ACK, or never",
        range: Range::Any,
    },
    ParamInfo {
        name: "cwnd_cut",
        unit: "min|assign",
        default: "min",
        doc: "rate control sets cwnd = min(cwnd, ownd) (the NJ+ paper's warned 3-dupack rule, l.185, extended to marked ACKs) or cwnd = ownd",
        range: Range::Any,
    },
    ParamInfo {
        name: "grow_on_marked_acks",
        unit: "bool",
        default: "false",
        doc: "false: no marked ACK grows the window (RFC 3168 §6.1.2, ns-2 TcpAgent); true: marked ACKs grow between the rate-control cuts (ns-3 port)",
        range: Range::Any,
    },
    ParamInfo {
        name: "timeout_without_warning",
        unit: "ownd|one_segment",
        default: "ownd",
        doc: "cwnd after an unwarned timeout: ownd (NJ+ paper Fig. 3a) or 1 segment (algorithms.md [REC], ns-3 port)",
        range: Range::Any,
    },
    ParamInfo {
        name: "timeout_ssthresh",
        unit: "every_expiry|first_expiry",
        default: "every_expiry",
        doc: "ssthresh = ownd_n on every RTO (NJ+ paper Fig. 3 lines 05/09) or on the first expiry of the same data only (RFC 5681 §3.1)",
        range: Range::Any,
    },
    ParamInfo {
        name: "abe_bytes",
        unit: "cumulative_ack|received",
        default: "cumulative_ack",
        doc: "ABE's L_n: what the ACK acknowledges as the sender sees it (one packet per ACK with dupack_credit, else the cumulative advance) or the data that reached the receiver since the previous ACK (needs timestamps)",
        range: Range::Any,
    },
    ParamInfo {
        name: "tabe_bytes",
        unit: "received|cumulative_ack",
        default: "received",
        doc: "TABE's L_n: the data segments that reached the receiver since the previous ACK (NJ+ l.124; duplicate ACKs count their segment) or the cumulative-ACK advance",
        range: Range::Any,
    },
    ParamInfo {
        name: "dupack_credit",
        unit: "bool",
        default: "true",
        doc: "L_n is one segment per ACK (l.86: the ACK pattern mirrors the data arrivals): a duplicate counts its segment, taken back from the covering cumulative ACK; off: L_n = the cumulative advance, 0 for a duplicate",
        range: Range::Any,
    },
];

pub const JERSEY_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "jersey",
    summary: "ACK-rate bandwidth estimate (ABE) sets ownd = R*RTT; routers' congestion warning marks make a loss a congestion loss (cut to ownd), unmarked losses keep the window.",
    reference: "Xu, Tian, Ansari, IEEE JSAC 22(4):747-756, 2004",
    params: PARAMS,
    timeout_collapses_window: false,
    constraints: &[],
};

pub const NEWJERSEY_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "newjersey",
    summary: "TCP-Jersey with the bandwidth estimate timed by the receiver's arrival timestamps (TABE), immune to ACK loss and ACK compression.",
    reference: "Xu, Tian, Ansari, Computer Networks 47:219-237, 2005",
    params: PARAMS,
    timeout_collapses_window: false,
    constraints: &[],
};

/// Which RTT enters the estimator window and ownd.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RttSource {
    /// The RFC 6298 smoothed RTT.
    #[default]
    Srtt,
    /// The latest RTT sample (the ns-3 port).
    Latest,
    /// The minimum RTT seen.
    Min,
}

/// What a marked ACK without a loss does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkResponse {
    /// Rate control at most once per window of data (ns-3 port; RFC 3168 §6.1.2 style).
    #[default]
    OncePerWindow,
    /// Rate control on every marked ACK.
    EveryMark,
    /// No rate control; marks only classify losses.
    Ignore,
}

/// How rate control sets cwnd.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CwndCut {
    /// cwnd = min(cwnd, ownd) (NJ+ paper l.185 for New Jersey's warned 3 duplicate ACKs;
    /// applied to marked ACKs without loss as an extension).
    #[default]
    Min,
    /// cwnd = ownd.
    Assign,
}

/// cwnd after a timeout without a congestion warning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutResponse {
    /// cwnd = ownd (NJ+ paper Fig. 3a).
    #[default]
    Ownd,
    /// cwnd = 1 segment (algorithms.md §5.2 [REC], the ns-3 port).
    OneSegment,
}

/// Which timeouts set ssthresh = ownd_n.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutSsthresh {
    /// Every expiry (NJ+ paper Fig. 3 lines 05 and 09).
    #[default]
    EveryExpiry,
    /// The first expiry of the same data only (RFC 5681 §3.1).
    FirstExpiry,
}

/// What an estimator counts as L_n, the bytes of one sample (Eq. 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LnBytes {
    /// The payload of the data segments that reached the receiver since the previous ACK
    /// (the difference of `AckSample::rx_bytes`): NJ+ paper l.124, "L_n means the length of
    /// the n-th data packet"; an out-of-order segment's duplicate ACK counts its segment.
    /// Needs timestamps; without them the cumulative-ACK advance is used.
    #[default]
    Received,
    /// What the ACK acknowledges as the sender sees it: one data packet per ACK with
    /// `dupack_credit` (default), else the cumulative-ACK advance, 0 for a duplicate.
    CumulativeAck,
}

/// Parameters of TCP-Jersey and TCP New Jersey (the same for both).
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JerseyParams {
    /// K, in RTTs: the estimator window Tw = K * RTT. Paper: 1; ns-3 port attribute `K`: 1.
    pub window_rtts: f64,
    /// RTT used in Tw and ownd: `srtt` (algorithms.md §5.1), `latest` (ns-3 port) or `min`.
    pub rtt: RttSource,
    /// Floor on ownd, in segments. ns-3 port: 2; algorithms.md §5.2: max(ownd, 2).
    pub ownd_floor_segments: f64,
    /// In RTTs (SRTT): a loss is warned if a mark arrived this long or less before the last
    /// ACK that preceded it; 1. Not in the NJ+ paper; algorithms.md §5.2 [REC] asks whether
    /// "the dupacks (or the ACKs of the current window) carry a CW mark".
    pub warning_window_rtts: f64,
    /// Rate control on a marked ACK: `once_per_window` (ns-3 port), `every_mark`, `ignore`.
    pub mark_response: MarkResponse,
    /// Rate control's cwnd: `min` = min(cwnd, ownd) (NJ+ l.185's warned 3-dupack rule,
    /// extended to marked ACKs) or `assign`.
    pub cwnd_cut: CwndCut,
    /// Whether marked ACKs grow the window between rate-control cuts (the ACK that cuts
    /// never grows). Default false: RFC 3168 §6.1.2 and ns-2's TcpAgent do not grow on an
    /// ECN-Echo ACK (algorithms.md §5.2 [REC]); true is the ns-3 port.
    pub grow_on_marked_acks: bool,
    /// cwnd after an unwarned timeout: `ownd` (NJ+ paper Fig. 3a) or `one_segment`
    /// (algorithms.md §5.2 [REC], ns-3 port).
    pub timeout_without_warning: TimeoutResponse,
    /// Which timeouts set ssthresh = ownd_n: `every_expiry` (Fig. 3 lines 05/09) or
    /// `first_expiry` (RFC 5681 §3.1).
    pub timeout_ssthresh: TimeoutSsthresh,
    /// ABE's L_n: `cumulative_ack` (the cumulative-ACK advance, what a sender knows; NJ+
    /// l.86 "the size of the data packet acknowledged by the nth ACK") or `received`.
    pub abe_bytes: LnBytes,
    /// TABE's L_n: `received` (the receiver's count of arrived data, NJ+ l.124) or
    /// `cumulative_ack` (the cumulative-ACK advance, algorithms.md §5.4).
    pub tabe_bytes: LnBytes,
    /// Credit one SMSS per duplicate ACK in ABE's L_n and take it back from the cumulative
    /// ACK that covers it (default; also TABE's with `tabe_bytes = "cumulative_ack"`);
    /// off: the cumulative advance, 0 for a duplicate (the earlier reading).
    pub dupack_credit: bool,
}

impl Default for JerseyParams {
    fn default() -> Self {
        JerseyParams {
            window_rtts: 1.0,
            rtt: RttSource::Srtt,
            ownd_floor_segments: 2.0,
            warning_window_rtts: 1.0,
            mark_response: MarkResponse::OncePerWindow,
            cwnd_cut: CwndCut::Min,
            grow_on_marked_acks: false,
            timeout_without_warning: TimeoutResponse::Ownd,
            timeout_ssthresh: TimeoutSsthresh::EveryExpiry,
            abe_bytes: LnBytes::CumulativeAck,
            tabe_bytes: LnBytes::Received,
            dupack_credit: true,
        }
    }
}

/// The time-sliding-window rate estimator of ABE and TABE (NJ+ paper Eq. 1):
/// R_n = (Tw * R_{n-1} + L_n) / ((t_n - t_{n-1}) + Tw). The clock of `t` is the caller's:
/// the sender's for ABE, the receiver's for TABE (only differences are used).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TswRate {
    /// R_{n-1}, bytes per second.
    rate: f64,
    /// t_{n-1}, ns on this estimator's clock; `None` until the first sample.
    last: Option<Time>,
    /// Bytes acknowledged by ACKs that could not be timed, added to the next L_n.
    pending: u64,
    /// Samples folded in.
    samples: u64,
}

impl TswRate {
    /// The current estimate R_n in bytes per second.
    pub fn rate_bps(&self) -> f64 {
        self.rate
    }

    /// Samples taken so far (the first ACK only starts the clock and is not counted).
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Bytes acknowledged by an ACK this clock cannot time; they join the next sample's L_n.
    pub fn defer(&mut self, bytes: u64) {
        if self.last.is_some() {
            self.pending += bytes;
        }
    }

    /// One ACK at time `t` acknowledging `bytes`; `window` is Tw in ns (`None`: no RTT
    /// estimate yet, the bytes wait for the next sample). Returns R_n.
    pub fn update(&mut self, t: Time, bytes: u64, window: Option<Time>) -> f64 {
        let Some(last) = self.last else {
            // R_0 = 0; the first ACK starts the clock.
            self.last = Some(t);
            return self.rate;
        };
        let Some(tw) = window else {
            self.defer(bytes);
            return self.rate;
        };
        let tw = tw.max(1) as f64 / NS_PER_SEC;
        let dt = t.saturating_sub(last) as f64 / NS_PER_SEC;
        let l = (bytes + self.pending) as f64;
        // Eq. 1: R_n = (Tw * R_{n-1} + L_n) / ((t_n - t_{n-1}) + Tw)
        self.rate = (tw * self.rate + l) / (dt + tw);
        self.last = Some(last.max(t));
        self.pending = 0;
        self.samples += 1;
        self.rate
    }
}

/// Both of Jersey's estimators, fed by every ACK: ABE on the sender's ACK arrival times,
/// TABE on the receiver's arrival times of the data segments (`AckSample::rx_arrival`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Estimators {
    /// ABE (Jersey): t_n = time the n-th ACK reached the sender.
    pub abe: TswRate,
    /// TABE (New Jersey): t_n = time the n-th data segment reached the receiver.
    pub tabe: TswRate,
    /// What ABE's L_n is.
    abe_bytes: LnBytes,
    /// What TABE's L_n is.
    tabe_bytes: LnBytes,
    /// The receiver's running byte count (`AckSample::rx_bytes`) at the last ACK.
    rx_seen: Option<u64>,
}

impl Estimators {
    /// Estimators whose L_n are taken as `abe_bytes` and `tabe_bytes` say.
    pub fn new(abe_bytes: LnBytes, tabe_bytes: LnBytes) -> Self {
        Estimators { abe_bytes, tabe_bytes, ..Estimators::default() }
    }

    /// One ACK received at `now` that newly acknowledges `acked` bytes (after any duplicate
    /// credit); `rx_arrival` and `rx_bytes` are the receiver's arrival time of the data and
    /// its running byte count; `window` is Tw in ns.
    pub fn on_ack(&mut self, now: Time, acked: u64, rx_arrival: Option<Time>, rx_bytes: Option<u64>, window: Option<Time>) {
        // NJ+ l.124 and Fig. 2: L_n is the length of the data packet(s) the ACK reports,
        // every segment that reached the receiver counted once (duplicate ACKs included).
        let received = rx_bytes.map(|total| {
            let l = total.saturating_sub(self.rx_seen.unwrap_or(total));
            self.rx_seen = Some(self.rx_seen.map_or(total, |s| s.max(total)));
            l
        });
        let l_n = |mode: LnBytes| match (mode, received) {
            (LnBytes::Received, Some(l)) => l,
            _ => acked,
        };
        self.abe.update(now, l_n(self.abe_bytes), window);
        match rx_arrival {
            Some(t) => {
                self.tabe.update(t, l_n(self.tabe_bytes), window);
            }
            None => self.tabe.defer(acked),
        }
    }

    /// The ACK that ended fast recovery (seen only through `on_recovery_exit`, without its
    /// receiver timestamp). On the cumulative ACK: ABE times it now and TABE carries its
    /// bytes to its next sample. On the received bytes it is left out, as a lost ACK would
    /// be: the next ACK's running count includes its data.
    pub fn on_unsampled_ack(&mut self, now: Time, acked: u64, window: Option<Time>) {
        let counted = |mode: LnBytes| mode == LnBytes::Received && self.rx_seen.is_some();
        if !counted(self.abe_bytes) {
            self.abe.update(now, acked, window);
        }
        if !counted(self.tabe_bytes) {
            self.tabe.defer(acked);
        }
    }
}

/// Picks the rate (bytes/s) that ownd is made of from the estimators.
pub type RateOf = fn(&Estimators) -> f64;

/// Jersey: the ACK-based estimate (ABE).
pub fn abe_rate(e: &Estimators) -> f64 {
    e.abe.rate_bps()
}

/// New Jersey: the receiver-timestamp estimate (TABE); ABE while no receiver timestamp has
/// been seen (timestamps off in the scenario).
pub fn tabe_rate(e: &Estimators) -> f64 {
    if e.tabe.samples() > 0 {
        e.tabe.rate_bps()
    } else {
        e.abe.rate_bps()
    }
}

/// Eq. 2 in bytes: ownd = RTT * R, floored at `floor_segments` segments (after the
/// conversion, algorithms.md §0.3). Without an RTT the floor.
pub fn ownd_bytes(rate_bps: f64, rtt: Option<Time>, mss: f64, floor_segments: f64) -> f64 {
    let raw = rtt.map_or(0.0, |r| rate_bps * r as f64 / NS_PER_SEC);
    raw.max(floor_segments * mss)
}

/// Congestion-warning bookkeeping: when marks and ACKs arrived.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CongestionWarning {
    /// Arrival time of the last marked ACK.
    last_mark: Option<Time>,
    /// Arrival time of the last ACK (new or duplicate).
    last_ack: Option<Time>,
    /// Marked ACKs seen (for traces).
    marked_acks: u64,
}

impl CongestionWarning {
    /// An ACK arrived at `now`.
    pub fn on_ack(&mut self, now: Time) {
        self.last_ack = Some(now);
    }

    /// A mark arrived at `now`.
    pub fn on_mark(&mut self, now: Time) {
        self.last_mark = Some(now);
    }

    /// Whether a loss detected now is warned: a mark arrived no more than `window` ns
    /// before the last ACK (any mark when `window` is unknown).
    pub fn warned(&self, window: Option<Time>) -> bool {
        match (self.last_mark, window) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(m), Some(w)) => self.last_ack.unwrap_or(m).saturating_sub(m) <= w,
        }
    }

    pub fn marked_acks(&self) -> u64 {
        self.marked_acks
    }
}

/// The mutable state of one Jersey / New Jersey sender.
#[derive(Clone, Debug)]
struct JerseyState {
    est: Estimators,
    warning: CongestionWarning,
    /// A `Signal::CongestionMark` for the ACK about to reach `on_ack`.
    mark_pending: bool,
    /// Bytes credited to duplicate ACKs not yet covered by a cumulative ACK.
    credited: u64,
    /// Highest cumulative ACK given to the estimators.
    highest_ack: u64,
    /// ownd_n and ownd_{n-1} in bytes: ownd after the last ACK and after the one before.
    ownd: f64,
    ownd_prev: f64,
    /// cwnd to restore when the current fast recovery ends.
    exit_cwnd: Option<f64>,
    /// Rate control at most once per window of data (ns-3 port; RFC 3168 §6.1.2 style).
    rate_control: OncePerWindow,
    /// SMSS, for traces.
    mss: f64,
}

/// TCP-Jersey (with `abe_rate`) or TCP New Jersey (with `tabe_rate`). Public so that
/// variants (NJ+) can embed it and call its pieces.
#[derive(Clone, Debug)]
pub struct Jersey {
    params: JerseyParams,
    name: &'static str,
    rate_of: RateOf,
    s: JerseyState,
}

impl Jersey {
    /// A Jersey sender whose ownd is made of the rate `rate_of` picks.
    pub fn new(params: JerseyParams, name: &'static str, rate_of: RateOf) -> Self {
        Jersey {
            params,
            name,
            rate_of,
            s: JerseyState {
                est: Estimators::new(params.abe_bytes, params.tabe_bytes),
                warning: CongestionWarning::default(),
                mark_pending: false,
                credited: 0,
                highest_ack: 0,
                ownd: 0.0,
                ownd_prev: 0.0,
                exit_cwnd: None,
                rate_control: OncePerWindow::default(),
                mss: 0.0,
            },
        }
    }

    pub fn params(&self) -> &JerseyParams {
        &self.params
    }

    pub fn estimators(&self) -> &Estimators {
        &self.s.est
    }

    pub fn warning(&self) -> &CongestionWarning {
        &self.s.warning
    }

    /// The rate in use, bytes per second.
    pub fn rate_bps(&self) -> f64 {
        (self.rate_of)(&self.s.est)
    }

    /// The RTT the parameters select, ns.
    pub fn rtt(&self, cx: &Ctx) -> Option<Time> {
        match self.params.rtt {
            RttSource::Srtt => cx.rtt.srtt(),
            RttSource::Latest => cx.rtt.latest(),
            RttSource::Min => cx.rtt.min_rtt(),
        }
    }

    fn window(&self, cx: &Ctx, rtts: f64) -> Option<Time> {
        self.rtt(cx).map(|r| (r as f64 * rtts.max(0.0)) as Time)
    }

    /// ownd now, in bytes (Eq. 2).
    pub fn ownd(&self, cx: &Ctx) -> f64 {
        ownd_bytes(self.rate_bps(), self.rtt(cx), cx.mss_f(), self.params.ownd_floor_segments)
    }

    /// SMSS in bytes as last seen by a hook (0 before the first).
    pub fn mss(&self) -> f64 {
        self.s.mss
    }

    /// (ownd_n, ownd_{n-1}) in bytes: ownd after the last ACK and after the ACK before it.
    pub fn ownd_history(&self) -> (f64, f64) {
        (self.s.ownd, self.s.ownd_prev)
    }

    /// Whether a loss detected now is warned (see the module header).
    pub fn warned(&self, cx: &Ctx) -> bool {
        let window = cx.rtt.srtt().map(|r| (r as f64 * self.params.warning_window_rtts.max(0.0)) as Time);
        self.s.warning.warned(window)
    }

    /// L_n for an ACK: the cumulative-ACK advance; with `dupack_credit`, one SMSS per
    /// duplicate ACK, taken back from the cumulative ACK that covers it
    /// (`westwood::net_of_duplicates`).
    fn credited_bytes(&mut self, dup: bool, advance: u64, mss: f64) -> u64 {
        if !self.params.dupack_credit {
            return advance;
        }
        if dup {
            let m = mss as u64;
            self.s.credited += m;
            return m;
        }
        crate::westwood::net_of_duplicates(&mut self.s.credited, advance, mss as u64)
    }

    /// Rate control (§5.2): ssthresh = ownd; cwnd = min(cwnd, ownd) or ownd.
    pub fn rate_control(&mut self, ownd: f64, w: &mut Window, cx: &Ctx) {
        w.ssthresh = ownd;
        w.cwnd = match self.params.cwnd_cut {
            CwndCut::Min => w.cwnd.min(ownd),
            CwndCut::Assign => ownd,
        };
        self.s.rate_control.reduced(cx);
    }

    /// A marked new ACK outside recovery. NJ+ l.65: "The sender who receives the marked
    /// packets decreases its cwnd": rate control to ownd_n, at most once per window by
    /// default (`mark_response`). Returns whether it cut.
    fn answer_mark(&mut self, w: &mut Window, cx: &Ctx) -> bool {
        let due = match self.params.mark_response {
            MarkResponse::OncePerWindow => self.s.rate_control.allows(cx),
            MarkResponse::EveryMark => true,
            MarkResponse::Ignore => false,
        };
        if due {
            let ownd = self.s.ownd;
            self.rate_control(ownd, w, cx);
        }
        due
    }

    /// Whether the `consecutive`-th expiry of the same data sets ssthresh = ownd_n.
    pub fn timeout_sets_ssthresh(&self, consecutive: u32) -> bool {
        consecutive <= 1 || self.params.timeout_ssthresh == TimeoutSsthresh::EveryExpiry
    }

    /// Start a loss episode: the cwnd to restore at the end of fast recovery (`None` for a
    /// timeout, which leaves recovery), and marks of the current window will not cut again.
    pub fn begin_loss_episode(&mut self, exit_cwnd: Option<f64>, cx: &Ctx) {
        // A mark is answered on the ACK it came with; none is carried past a loss.
        self.s.mark_pending = false;
        self.s.exit_cwnd = exit_cwnd;
        self.s.rate_control.reduced(cx);
    }
}

/// TCP-Jersey with default parameters replaced by `p`.
pub fn build(p: &JerseyParams) -> Box<dyn CongestionControl> {
    Box::new(Jersey::new(*p, JERSEY_INFO.name, abe_rate))
}

/// TCP New Jersey.
pub fn build_new_jersey(p: &JerseyParams) -> Box<dyn CongestionControl> {
    Box::new(Jersey::new(*p, NEWJERSEY_INFO.name, tabe_rate))
}

impl CongestionControl for Jersey {
    fn name(&self) -> &'static str {
        self.name
    }

    fn recovery_style(&self) -> RecoveryStyle {
        RecoveryStyle::NewReno
    }

    fn init(&mut self, _w: &mut Window, cx: &mut Ctx) {
        self.s.mss = cx.mss_f();
        self.s.highest_ack = cx.snd_una;
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        let mss = cx.mss_f();
        self.s.mss = mss;
        // ABE / TABE (Eq. 1) on every ACK, duplicates included (L_n: `credited_bytes`).
        let window = self.window(cx, self.params.window_rtts);
        let bytes = self.credited_bytes(ack.dup, ack.acked_bytes, mss);
        self.s.est.on_ack(cx.now, bytes, ack.rx_arrival, ack.rx_bytes, window);
        self.s.highest_ack = self.s.highest_ack.max(ack.ack);
        // Eq. 2: ownd_n = RTT * R_n (bytes).
        self.s.ownd_prev = self.s.ownd;
        self.s.ownd = self.ownd(cx);

        self.s.warning.on_ack(cx.now);
        let marked = ack.marked || std::mem::take(&mut self.s.mark_pending);
        if marked {
            self.s.warning.on_mark(cx.now);
            self.s.warning.marked_acks += 1;
        }
        if ack.dup || ack.in_recovery {
            return;
        }
        if marked {
            if self.answer_mark(w, cx) {
                // The ACK that cuts does not also grow.
                return;
            }
            if !self.params.grow_on_marked_acks {
                return;
            }
        }
        Reno::grow(&RenoParams::default(), ack, w, mss);
    }

    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
        let ownd = self.ownd(cx);
        let warned = self.warned(cx);
        match loss {
            Loss::FastRetransmit => {
                if warned {
                    // Congestion loss: ssthresh = ownd, cwnd = min(cwnd, ownd) or ownd.
                    self.rate_control(ownd, w, cx);
                    self.begin_loss_episode(Some(w.cwnd), cx);
                    Verdict::Congestion
                } else {
                    // Wireless loss: explicit retransmit, cwnd and ssthresh unchanged.
                    self.begin_loss_episode(Some(w.cwnd), cx);
                    Verdict::Wireless
                }
            }
            Loss::Timeout { consecutive } => {
                self.begin_loss_episode(None, cx);
                // NJ+ paper Fig. 3a lines 05/09: ssthresh = ownd_n (every expiry by default).
                if self.timeout_sets_ssthresh(consecutive) {
                    w.ssthresh = ownd;
                }
                // Fig. 3a: cwnd = 1 if warned, else cwnd = ownd_n.
                w.cwnd = if warned || self.params.timeout_without_warning == TimeoutResponse::OneSegment {
                    cx.mss_f()
                } else {
                    ownd
                };
                if warned {
                    Verdict::Congestion
                } else {
                    Verdict::Wireless
                }
            }
        }
    }

    fn on_recovery_exit(&mut self, w: &mut Window, cx: &mut Ctx) {
        // The ACK ending recovery is not given to on_ack: fold its bytes into the estimators.
        let advance = cx.snd_una.saturating_sub(self.s.highest_ack);
        let bytes = self.credited_bytes(false, advance, cx.mss_f());
        let window = self.window(cx, self.params.window_rtts);
        self.s.est.on_unsampled_ack(cx.now, bytes, window);
        self.s.highest_ack = self.s.highest_ack.max(cx.snd_una);
        self.s.ownd_prev = self.s.ownd;
        self.s.ownd = self.ownd(cx);
        self.s.warning.on_ack(cx.now);
        w.cwnd = self.s.exit_cwnd.take().unwrap_or(w.ssthresh);
        // A mark on the ACK that ends recovery (signalled just before this hook) is the
        // mark of a new ACK outside recovery, answered on this ACK, not on the next one.
        if std::mem::take(&mut self.s.mark_pending) {
            self.s.warning.marked_acks += 1;
            self.answer_mark(w, cx);
        }
    }

    fn on_signal(&mut self, signal: Signal, _w: &mut Window, cx: &mut Ctx) {
        if signal == Signal::CongestionMark {
            // Acted on in on_ack, with this ACK's estimate.
            self.s.mark_pending = true;
            self.s.warning.on_mark(cx.now);
        }
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        let mss = if self.s.mss > 0.0 { self.s.mss } else { 1.0 };
        out.push(("rate_bps", self.rate_bps()));
        out.push(("abe_bps", self.s.est.abe.rate_bps()));
        out.push(("tabe_bps", self.s.est.tabe.rate_bps()));
        out.push(("ownd_segments", self.s.ownd / mss));
        out.push(("marked_acks", self.s.warning.marked_acks as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Harness, MSS, var as trace, ack_timed, approx};

    const MS: u64 = 1_000_000;
    const M: f64 = MSS as f64;

    fn jersey() -> Harness {
        Harness::new(build(&JerseyParams::default()))
    }

    fn new_jersey() -> Harness {
        Harness::new(build_new_jersey(&JerseyParams::default()))
    }

    fn ack_at(h: &mut Harness, segments: u64, gap: Time, rtt: Time, rx: Option<Time>, marked: bool) {
        ack_timed(h, segments, gap, rtt, rx, marked);
    }

    fn marked_dup_ack(h: &mut Harness) {
        h.now += MS;
        h.dupacks += 1;
        let s = AckSample { ack: h.snd_una, dup: true, marked: true, delivered: h.snd_una, ..AckSample::default() };
        h.signal(Signal::CongestionMark);
        h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
    }

    /// Eq. 1 recomputed independently, seconds and bytes.
    fn tsw(r: f64, l: f64, dt_s: f64, tw_s: f64) -> f64 {
        (tw_s * r + l) / (dt_s + tw_s)
    }

    #[test]
    fn abe_follows_the_time_sliding_window_recursion() {
        let mut e = TswRate::default();
        let tw = 100 * MS;
        assert_eq!(e.update(0, 1000, Some(tw)), 0.0, "the first ACK only starts the clock");
        let r1 = e.update(10 * MS, 1000, Some(tw));
        assert_eq!(r1, tsw(0.0, 1000.0, 0.010, 0.100));
        let r2 = e.update(30 * MS, 2000, Some(tw));
        assert!((r2 - tsw(r1, 2000.0, 0.020, 0.100)).abs() < 1e-9);
    }

    #[test]
    fn abe_converges_to_the_delivery_rate() {
        // One 1000-byte segment every 10 ms = 100 kB/s.
        let mut e = TswRate::default();
        for i in 0..500 {
            e.update(i * 10 * MS, 1000, Some(100 * MS));
        }
        assert!((e.rate_bps() - 100_000.0).abs() < 1.0, "{}", e.rate_bps());
    }

    #[test]
    fn bytes_of_untimed_acks_join_the_next_sample() {
        let mut e = TswRate::default();
        e.update(0, 0, Some(100 * MS));
        e.defer(3000);
        let r = e.update(20 * MS, 1000, Some(100 * MS));
        assert_eq!(r, tsw(0.0, 4000.0, 0.020, 0.100));
    }

    #[test]
    fn tabe_times_the_receiver_arrivals_and_ignores_ack_compression() {
        // Data reaches the receiver every 10 ms; the ACKs come back compressed, 1 ms apart.
        let mut h = new_jersey();
        let mut rx = 5_000 * MS;
        for _ in 0..400 {
            rx += 10 * MS;
            ack_at(&mut h, 1, MS, 100 * MS, Some(rx), false);
        }
        let tabe = trace(&h, "tabe_bps");
        let abe = trace(&h, "abe_bps");
        assert!((tabe - 100_000.0).abs() < 100.0, "tabe {tabe}");
        assert!(abe > 5.0 * tabe, "abe {abe} follows the compressed ACK clock");
        assert_eq!(trace(&h, "rate_bps"), tabe);
        // Eq. 2 with SRTT = 100 ms: ownd = 100 kB/s * 0.1 s = 10 segments.
        assert!((trace(&h, "ownd_segments") - 10.0).abs() < 0.01);
    }

    #[test]
    fn new_jersey_falls_back_to_abe_without_timestamps() {
        let mut h = new_jersey();
        for _ in 0..50 {
            ack_at(&mut h, 1, 10 * MS, 100 * MS, None, false);
        }
        assert!(trace(&h, "rate_bps") > 0.0);
        assert_eq!(trace(&h, "rate_bps"), trace(&h, "abe_bps"));
    }

    #[test]
    fn dupack_credit_counts_a_segment_per_duplicate_and_takes_it_back() {
        let mut j = Jersey::new(JerseyParams::default(), "jersey", abe_rate);
        assert_eq!(j.credited_bytes(true, 0, 1000.0), 1000);
        assert_eq!(j.credited_bytes(true, 0, 1000.0), 1000);
        // A cumulative ACK of 5000 bytes covers the two credited segments: L_n = 3000.
        assert_eq!(j.credited_bytes(false, 5000, 1000.0), 3000);
        assert_eq!(j.credited_bytes(false, 1000, 1000.0), 1000);
        // A hole-filling ACK of 62 segments after 61 duplicates: its own segment only.
        for _ in 0..61 {
            j.credited_bytes(true, 0, 1000.0);
        }
        assert_eq!(j.credited_bytes(false, 62_000, 1000.0), 1000);
        // Three duplicates, then an ACK of one segment (its own arrival) and one of four:
        // one segment each, then the four less the three duplicates.
        for _ in 0..3 {
            j.credited_bytes(true, 0, 1000.0);
        }
        assert_eq!(j.credited_bytes(false, 1000, 1000.0), 1000);
        assert_eq!(j.credited_bytes(false, 4000, 1000.0), 1000);
        // Off (the earlier reading): L_n is the cumulative advance, 0 for a duplicate.
        let p = JerseyParams { dupack_credit: false, ..JerseyParams::default() };
        let mut j = Jersey::new(p, "jersey", abe_rate);
        assert_eq!(j.credited_bytes(true, 0, 1000.0), 0);
        assert_eq!(j.credited_bytes(false, 5000, 1000.0), 5000);
    }

    #[test]
    fn ownd_is_rate_times_srtt_in_bytes_with_a_two_segment_floor() {
        assert_eq!(ownd_bytes(250_000.0, Some(80 * MS), 1000.0, 2.0), 20_000.0);
        assert_eq!(ownd_bytes(1_000.0, Some(80 * MS), 1000.0, 2.0), 2_000.0);
        assert_eq!(ownd_bytes(1e6, None, 1000.0, 2.0), 2_000.0);
    }

    /// Drive a Jersey harness to a steady 100 kB/s (10 segments per 100 ms RTT) and a big window.
    fn steady(h: &mut Harness) {
        for _ in 0..300 {
            ack_at(h, 1, 10 * MS, 100 * MS, None, false);
        }
        h.fill_window();
    }

    #[test]
    fn unmarked_triple_dupack_is_wireless_and_keeps_the_window() {
        let mut h = jersey();
        steady(&mut h);
        let (cwnd, ssthresh) = (h.w.cwnd, h.w.ssthresh);
        for _ in 0..3 {
            h.dup_ack();
        }
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Wireless);
        assert_eq!((h.w.cwnd, h.w.ssthresh), (cwnd, ssthresh));
        h.exit_recovery();
        assert_eq!(h.w.cwnd, cwnd, "recovery ends at the window held at the loss");
    }

    #[test]
    fn marked_triple_dupack_is_congestion_and_cuts_to_ownd() {
        let mut h = jersey();
        steady(&mut h);
        let cwnd = h.w.cwnd;
        marked_dup_ack(&mut h);
        h.dup_ack();
        h.dup_ack();
        let ownd = trace(&h, "rate_bps") * h.rtt.srtt().unwrap() as f64 / 1e9;
        assert!(cwnd > ownd, "precondition: window {cwnd} above ownd {ownd}");
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Congestion);
        assert!((h.w.ssthresh - ownd).abs() < 1e-6, "ssthresh {} ownd {ownd}", h.w.ssthresh);
        assert!((h.w.cwnd - ownd).abs() < 1e-6);
        h.exit_recovery();
        assert!((h.w.cwnd - ownd).abs() < 1e-6);
    }

    #[test]
    fn a_mark_older_than_the_warning_window_does_not_warn() {
        let mut h = jersey();
        steady(&mut h);
        ack_at(&mut h, 1, 10 * MS, 100 * MS, None, true);
        // 150 ms of unmarked ACKs: the mark is more than one SRTT (100 ms) old.
        for _ in 0..15 {
            ack_at(&mut h, 1, 10 * MS, 100 * MS, None, false);
        }
        for _ in 0..3 {
            h.dup_ack();
        }
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Wireless);
        // With a two-RTT warning window the same history is a congestion loss.
        let p = JerseyParams { warning_window_rtts: 2.0, ..JerseyParams::default() };
        let mut h = Harness::new(build(&p));
        steady(&mut h);
        ack_at(&mut h, 1, 10 * MS, 100 * MS, None, true);
        for _ in 0..15 {
            ack_at(&mut h, 1, 10 * MS, 100 * MS, None, false);
        }
        for _ in 0..3 {
            h.dup_ack();
        }
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Congestion);
    }

    #[test]
    fn a_marked_ack_cuts_to_ownd_once_per_window_and_does_not_grow() {
        let mut h = jersey();
        steady(&mut h);
        let ownd = trace(&h, "rate_bps") * 0.1;
        let before = h.w.cwnd;
        ack_at(&mut h, 1, 10 * MS, 100 * MS, None, true);
        // ownd after this ACK's estimator update (Eq. 1 then Eq. 2).
        let ownd_now = trace(&h, "ownd_segments") * M;
        assert!(before > ownd_now && (ownd - ownd_now).abs() < 0.02 * ownd);
        assert!((h.w.cwnd - ownd_now).abs() < 1e-9 && (h.w.ssthresh - ownd_now).abs() < 1e-9);
        // A further mark of the same window neither cuts nor grows the window.
        h.w.cwnd += 5.0 * M;
        let raised = h.w.cwnd;
        ack_at(&mut h, 1, 10 * MS, 100 * MS, None, true);
        assert_eq!(h.w.cwnd, raised);
    }

    #[test]
    fn with_growth_on_marked_acks_the_window_grows_between_once_per_window_cuts() {
        let p = JerseyParams { grow_on_marked_acks: true, ..JerseyParams::default() };
        let mut h = Harness::new(build(&p));
        steady(&mut h);
        // The first marked ACK cuts to ownd and does not grow.
        ack_at(&mut h, 1, 10 * MS, 100 * MS, None, true);
        let ownd = trace(&h, "ownd_segments") * M;
        assert!((h.w.cwnd - ownd).abs() < 1e-9 && (h.w.ssthresh - ownd).abs() < 1e-9);
        // SND.MAX at the cut: the next cut waits until it is acknowledged.
        let recover = h.snd_max;
        // Marked ACKs of the same window grow cwnd by RFC 5681 congestion avoidance
        // (cwnd = ssthresh after the cut): cwnd += SMSS*SMSS/cwnd per ACK.
        let mut expected = h.w.cwnd;
        let mut grown = 0;
        while h.snd_una + u64::from(MSS) < recover {
            ack_at(&mut h, 1, 10 * MS, 100 * MS, None, true);
            expected += M * M / expected;
            assert!(approx(h.w.cwnd, expected), "{} vs {expected}", h.w.cwnd);
            grown += 1;
        }
        assert!(grown >= 8, "{grown} growing ACKs");
        // The ACK that covers SND.MAX of the cut cuts again, to the ownd of that moment.
        ack_at(&mut h, 1, 10 * MS, 100 * MS, None, true);
        let ownd = trace(&h, "ownd_segments") * M;
        assert!(ownd < expected);
        assert!((h.w.cwnd - ownd).abs() < 1e-9, "{} vs {ownd}", h.w.cwnd);

        // Default: the same marked ACKs leave the window where the cut put it.
        let mut h = jersey();
        steady(&mut h);
        ack_at(&mut h, 1, 10 * MS, 100 * MS, None, true);
        let cut = h.w.cwnd;
        for _ in 0..5 {
            ack_at(&mut h, 1, 10 * MS, 100 * MS, None, true);
            assert_eq!(h.w.cwnd, cut);
        }
    }

    /// A cumulative ACK of `segments` segments triggered by one segment arriving at `rx`
    /// (a retransmission filling a hole), with RTT sample `rtt`.
    fn rx_filling_ack(h: &mut Harness, segments: u64, gap: Time, rx: Time, rtt: Time) {
        h.fill_window();
        h.now += gap;
        h.dupacks = 0;
        h.snd_una += segments * u64::from(MSS);
        h.rx_bytes += u64::from(MSS);
        h.rtt.on_sample(rtt);
        let s = AckSample {
            ack: h.snd_una,
            acked_bytes: segments * u64::from(MSS),
            rtt: Some(rtt),
            rx_arrival: Some(rx),
            rx_bytes: Some(h.rx_bytes),
            in_recovery: h.in_recovery,
            delivered: h.snd_una,
            ..AckSample::default()
        };
        h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
    }

    /// 300 one-segment ACKs, 10 ms apart at the sender and at the receiver (100 kB/s),
    /// RTT 100 ms; returns the receiver time of the last arrival.
    fn steady_rx(h: &mut Harness) -> Time {
        let mut rx = 1_000 * MS;
        for _ in 0..300 {
            rx += 10 * MS;
            ack_at(h, 1, 10 * MS, 100 * MS, Some(rx), false);
        }
        h.fill_window();
        rx
    }

    #[test]
    fn tabe_counts_every_segment_that_reaches_the_receiver() {
        // NJ+ l.124: L_n is the length of the n-th data packet. A loss: three out-of-order
        // segments arrive 10 ms apart (three duplicate ACKs), then the retransmission fills
        // the hole and the cumulative ACK jumps four segments. Tw = SRTT = 100 ms.
        let mut h = new_jersey();
        let rx = steady_rx(&mut h);
        let mut r = trace(&h, "tabe_bps");
        for k in 1..=3 {
            h.dup_ack_rx(10 * MS, rx + k * 10 * MS);
            r = tsw(r, M, 0.010, 0.100);
            assert!(approx(trace(&h, "tabe_bps"), r), "dupack {k}: {} vs {r}", trace(&h, "tabe_bps"));
        }
        rx_filling_ack(&mut h, 4, 10 * MS, rx + 40 * MS, 100 * MS);
        r = tsw(r, M, 0.010, 0.100);
        assert!(approx(trace(&h, "tabe_bps"), r));
        // Segments arrived every 10 ms throughout: the estimate stays at 100 kB/s.
        assert!((trace(&h, "tabe_bps") - 100_000.0).abs() < 1.0, "{}", trace(&h, "tabe_bps"));

        // On the whole cumulative advance (`dupack_credit = false`) the duplicates count
        // nothing and the jump four segments: the estimate sags, then overshoots the
        // arrival rate.
        let p = JerseyParams { tabe_bytes: LnBytes::CumulativeAck, dupack_credit: false, ..JerseyParams::default() };
        let mut h = Harness::new(build_new_jersey(&p));
        let rx = steady_rx(&mut h);
        let mut r = trace(&h, "tabe_bps");
        for k in 1..=3 {
            h.dup_ack_rx(10 * MS, rx + k * 10 * MS);
            r = tsw(r, 0.0, 0.010, 0.100);
        }
        rx_filling_ack(&mut h, 4, 10 * MS, rx + 40 * MS, 100 * MS);
        r = tsw(r, 4.0 * M, 0.010, 0.100);
        assert!(approx(trace(&h, "tabe_bps"), r));
        assert!(r > 104_000.0, "{r}");
    }

    #[test]
    fn the_ack_that_ends_recovery_is_counted_by_the_next_receiver_count() {
        // The sender gives the full ACK to on_recovery_exit, without its timestamp: its
        // segment is counted by the next ACK, over the time since the last timed arrival.
        let mut h = new_jersey();
        let rx = steady_rx(&mut h);
        let mut r = trace(&h, "tabe_bps");
        for k in 1..=3 {
            h.dup_ack_rx(10 * MS, rx + k * 10 * MS);
            r = tsw(r, M, 0.010, 0.100);
        }
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Wireless);
        h.in_recovery = true;
        // The retransmission arrives at rx + 40 ms; its full ACK ends recovery.
        h.now += 10 * MS;
        h.snd_una += 4 * u64::from(MSS);
        h.rx_bytes += u64::from(MSS);
        h.exit_recovery();
        assert!(approx(trace(&h, "tabe_bps"), r), "no TABE sample without a timestamp");
        // The next segment arrives at rx + 50 ms: L = 2 segments over 20 ms.
        ack_at(&mut h, 1, 10 * MS, 100 * MS, Some(rx + 50 * MS), false);
        r = tsw(r, 2.0 * M, 0.020, 0.100);
        assert!(approx(trace(&h, "tabe_bps"), r), "{} vs {r}", trace(&h, "tabe_bps"));
    }

    #[test]
    fn the_ack_that_ends_recovery_counts_only_what_the_duplicates_did_not() {
        // Three duplicates count a segment each; the retransmission's ACK ends recovery
        // advancing SND.UNA by four segments, three of which the duplicates counted.
        let mut h = jersey();
        steady(&mut h);
        let mut r = trace(&h, "abe_bps");
        for k in 1..=3 {
            h.dup_ack_rx(10 * MS, 5_000 * MS + k * 10 * MS);
            r = tsw(r, M, 0.010, 0.100);
        }
        h.loss(Loss::FastRetransmit);
        h.in_recovery = true;
        h.now += 10 * MS;
        h.snd_una += 4 * u64::from(MSS);
        h.exit_recovery();
        r = tsw(r, M, 0.010, 0.100);
        assert!(approx(trace(&h, "abe_bps"), r), "{} vs {r}", trace(&h, "abe_bps"));
    }

    #[test]
    fn abe_on_the_cumulative_ack_ignores_what_the_receiver_reports() {
        // New Jersey's ABE (default `abe_bytes`): a duplicate ACK counts the one segment
        // whose arrival it reports, whatever the receiver's count says.
        let mut h = new_jersey();
        let rx = steady_rx(&mut h);
        let r0 = trace(&h, "abe_bps");
        h.dup_ack_rx(10 * MS, rx + 10 * MS);
        assert!(approx(trace(&h, "abe_bps"), tsw(r0, M, 0.010, 0.100)));
        // The earlier reading (`dupack_credit = false`): it counts nothing.
        let p = JerseyParams { dupack_credit: false, ..JerseyParams::default() };
        let mut h = Harness::new(build_new_jersey(&p));
        let rx = steady_rx(&mut h);
        let r0 = trace(&h, "abe_bps");
        h.dup_ack_rx(10 * MS, rx + 10 * MS);
        assert!(approx(trace(&h, "abe_bps"), tsw(r0, 0.0, 0.010, 0.100)));
        // With `abe_bytes = "received"` it counts the reported segment.
        let p = JerseyParams { abe_bytes: LnBytes::Received, ..JerseyParams::default() };
        let mut h = Harness::new(build_new_jersey(&p));
        let rx = steady_rx(&mut h);
        let r0 = trace(&h, "abe_bps");
        h.dup_ack_rx(10 * MS, rx + 10 * MS);
        assert!(approx(trace(&h, "abe_bps"), tsw(r0, M, 0.010, 0.100)));
    }

    #[test]
    fn unwarned_timeout_restarts_from_ownd_and_warned_from_one_segment() {
        let mut h = jersey();
        steady(&mut h);
        let ownd = trace(&h, "ownd_segments") * M;
        assert_eq!(h.loss(Loss::Timeout { consecutive: 1 }), Verdict::Wireless);
        assert!((h.w.cwnd - ownd).abs() < 1e-6 && (h.w.ssthresh - ownd).abs() < 1e-6);

        let mut h = jersey();
        steady(&mut h);
        ack_at(&mut h, 1, 10 * MS, 100 * MS, None, true);
        let ownd = trace(&h, "ownd_segments") * M;
        // The RTO fires long after the last (marked) ACK: still warned.
        h.now += 1_000 * MS;
        assert_eq!(h.loss(Loss::Timeout { consecutive: 1 }), Verdict::Congestion);
        assert_eq!(h.w.cwnd, M);
        assert!((h.w.ssthresh - ownd).abs() < 1e-6);
    }

    #[test]
    fn a_mark_on_the_ack_that_ends_recovery_is_answered_on_that_ack() {
        // New Jersey: the ACK that ends recovery carries no receiver sample, so the rate is
        // the one the duplicates left.
        let mut h = new_jersey();
        let rx = steady_rx(&mut h);
        for k in 1..=3 {
            h.dup_ack_rx(10 * MS, rx + k * 10 * MS);
        }
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Wireless);
        let held = h.w.cwnd;
        h.in_recovery = true;
        h.dup_ack_rx(10 * MS, rx + 40 * MS);
        // The full ACK (everything outstanding at the loss) carries a mark.
        h.now += 10 * MS;
        h.snd_una = h.snd_max;
        h.signal(Signal::CongestionMark);
        h.exit_recovery();
        // Eq. 2 after that ACK's sample: ownd_n = R_n * SRTT.
        let ownd = trace(&h, "rate_bps") * h.rtt.srtt().unwrap() as f64 / 1e9;
        assert!(held > 2.0 * ownd, "precondition: held {held} ownd {ownd}");
        assert!(approx(h.w.cwnd, ownd), "{} vs {ownd}", h.w.cwnd);
        assert!(approx(h.w.ssthresh, ownd));
        assert_eq!(trace(&h, "marked_acks"), 1.0);
        // A timeout, then an unmarked ACK: it is not taken as marked (no count, no cut).
        h.now += 500 * MS;
        h.loss(Loss::Timeout { consecutive: 1 });
        let cwnd = h.w.cwnd;
        ack_at(&mut h, 1, 10 * MS, 100 * MS, None, false);
        assert_eq!(trace(&h, "marked_acks"), 1.0);
        assert!(h.w.cwnd >= cwnd, "{} vs {cwnd}", h.w.cwnd);

        // Unmarked, the same exit keeps the window held at the loss.
        let mut h = new_jersey();
        let rx = steady_rx(&mut h);
        for k in 1..=3 {
            h.dup_ack_rx(10 * MS, rx + k * 10 * MS);
        }
        h.loss(Loss::FastRetransmit);
        let held = h.w.cwnd;
        h.in_recovery = true;
        h.now += 10 * MS;
        h.snd_una = h.snd_max;
        h.exit_recovery();
        assert_eq!(h.w.cwnd, held);
        assert_eq!(trace(&h, "marked_acks"), 0.0);
    }

    /// A first RTO, two duplicate ACKs 50 ms apart, a second RTO; returns (ownd_n at the
    /// first expiry, ownd_n at the second), recomputed from Eq. 1 and Eq. 2.
    fn two_expiries_with_acks_between(h: &mut Harness) -> (f64, f64) {
        steady(h);
        let r = trace(h, "abe_bps");
        let first = ownd_bytes(r, h.rtt.srtt(), M, 2.0);
        h.loss(Loss::Timeout { consecutive: 1 });
        // ABE on the whole cumulative advance (the harness's `dupack_credit = false`): a
        // duplicate ACK counts nothing (L_n = 0); Tw = SRTT = 100 ms.
        let mut r = r;
        for k in 1..=2 {
            h.dup_ack_rx(50 * MS, 5_000 * MS + k * 50 * MS);
            r = tsw(r, 0.0, 0.050, 0.100);
        }
        h.now += 600 * MS;
        h.loss(Loss::Timeout { consecutive: 2 });
        let second = ownd_bytes(r, h.rtt.srtt(), M, 2.0);
        assert!(second < 0.5 * first && second > 2.0 * M, "precondition: {second} vs {first}");
        (first, second)
    }

    #[test]
    fn every_expiry_sets_ssthresh_to_ownd_n_as_fig_3_does() {
        let cumulative = JerseyParams { dupack_credit: false, ..JerseyParams::default() };
        let mut h = Harness::new(build(&cumulative));
        let (_, second) = two_expiries_with_acks_between(&mut h);
        assert!(approx(h.w.ssthresh, second), "{} vs {second}", h.w.ssthresh);
        assert!(approx(h.w.cwnd, second));
        // `first_expiry` (RFC 5681 §3.1): the second expiry keeps the first one's ssthresh.
        let p = JerseyParams { timeout_ssthresh: TimeoutSsthresh::FirstExpiry, ..cumulative };
        let mut h = Harness::new(build(&p));
        let (first, second) = two_expiries_with_acks_between(&mut h);
        assert!(approx(h.w.ssthresh, first), "{} vs {first}", h.w.ssthresh);
        assert!(approx(h.w.cwnd, second));
    }

    #[test]
    fn one_segment_timeout_option_collapses_the_window() {
        let p = JerseyParams { timeout_without_warning: TimeoutResponse::OneSegment, ..JerseyParams::default() };
        let mut h = Harness::new(build(&p));
        steady(&mut h);
        h.loss(Loss::Timeout { consecutive: 1 });
        assert_eq!(h.w.cwnd, M);
    }

}
