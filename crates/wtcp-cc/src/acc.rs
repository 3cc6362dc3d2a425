//! TCP-ACC and TCP-CLAP: P. D. Dalal, K. S. Dasgupta, "TCP Cross Layer Adaptive Policy:
//! Throughput Optimization over Wireless Links" (paper text in `shared/papers/tcp-clap.txt`;
//! TCP-ACC first in P. Dalal, "Adaptive TCP: Enhancing Performance over Heterogeneous
//! Networks", ICOICT 2009).
//!
//! ACC is NewReno with a host-wide window nvar0 = int(0.4*ssthresh + 0.6*nvar0), learned from
//! every loss of every connection of the host, used as a new connection's initial window and
//! as nvar0/2 after a timeout. CLAP adds a MAC-layer hint: a fast retransmit whose window
//! holds a segment that hit the MAC retry limit is judged a wireless loss and leaves cwnd alone.
//!
//! Deviations and ambiguities resolved:
//! - Units: the paper's code is ns-2, where ssthresh_ and cwnd are in packets, so nvar0 is in
//!   segments and `int()` truncates segments (`integer_segments`, default true). The host
//!   keeps nvar0 in bytes (`HostShared::initial_cwnd` = nvar0 * MSS), floored at 1 segment
//!   ("for poor link conditions nvar0 is set to its minimum value 1").
//! - Fig. 1's SETWNDINIT gives every new connection cwnd = nvar0 ("if (new TCP connection
//!   establishes and modification = 1) then cwnd = nvar0 else cwnd = 1", l. 72-75), so the
//!   value nvar0 holds before the host's first loss seeds the first connection's window. The
//!   paper does not state it (a C global would be 0; the text names 1 as its minimum, l. 61).
//!   `nvar0_initial_segments` sets it; by default it is the configured initial window, so the
//!   host's first connection starts as the NewReno it modifies ("instead of starting from
//!   cwnd = 1, we start using cwnd = nvar0", l. 61; ns-2's default windowInit_ is 2, the
//!   clap scenarios set 1). The
//!   seed is floored at 1 segment and not truncated (int() belongs to the update).
//! - "Whenever any ongoing connection detects a packet loss on the network, its ssthresh
//!   value is used to recalculate nvar0" (l. 61) and
//!   Fig. 1 updates nvar0 "IN SLOWDOWN()" (l. 66), ns-2's loss response, which halves the
//!   window min(cwnd_, window_) (the paper's runs are ns-2, l. 104). So ssthresh here is the
//!   one NewReno sets with `halve = "cwnd"` (default): half the congestion window without the
//!   sender's fast-recovery inflation. `halve = "flight_size"` (RFC 5681, the earlier
//!   default) feeds nvar0 from FlightSize, which after a long inflated recovery can hold
//!   hundreds of segments. "its ssthresh value" is the value after this loss's cut (before
//!   the first cut ssthresh is the initial one: ns-2's window_, unlimited in the `rfc`
//!   profile). ns-2 also truncates that ssthresh to whole
//!   packets; here only nvar0 is truncated (`integer_segments`).
//! - Repeated timeouts of the same data: ns-2's timeout() calls slowdown() on every expiry,
//!   so ssthresh = max(cwnd/2, 2 segments) of the restart window and nvar0 is updated again
//!   each time, so on a poor link nvar0 falls to 2: each expiry takes n to
//!   int(0.4 * max(int(n/2)/2, 2) + 0.6 * n) (ssthresh of the restart window int(n/2)),
//!   which is below n for every n > 2 and 2 at n = 2 (10 -> 7 -> 5 -> 3 -> 2; a test shows 2
//!   after ten repeated expiries). The
//!   paper's "for poor link conditions nvar0 is set to its minimum value 1" (l. 61) is
//!   reached only from a seed of 1, not by repeated expiries; the default rests on ns-2's
//!   timeout(), not on that sentence. `repeated_timeouts = "ns2"` (default) does so;
//!   `"rfc5681"` (the earlier default) leaves ssthresh and nvar0 alone after the first
//!   expiry (RFC 5681 §3.1). ECN echoes are not losses: they get NewReno's RFC 3168 response
//!   and do not update nvar0.
//! - Timeout (Fig. 2): cwnd = int(nvar0/2) segments with the nvar0 that includes this loss,
//!   on every expiry; at least 1 segment. ssthresh follows NewReno. So a timeout need not
//!   collapse the window (`timeout_collapses_window = false`).
//! - A new connection (Fig. 1) starts with cwnd = nvar0 in `init`; ssthresh stays as
//!   configured.
//! - CLAP (Figs. 5-7): "a segment of the current window hit the retry limit" = a
//!   `Signal::MacRetryLimit { seq }` received since the last loss episode with
//!   SND.UNA <= seq < SND.MAX at the third duplicate ACK. Then "cwnd is not reduced" and the
//!   "congestion control algorithm in TCP ACC" is not triggered: cwnd, ssthresh and nvar0
//!   are unchanged, the verdict is `Wireless`, and at the end of fast recovery cwnd returns
//!   to its value at the loss (not to ssthresh). Otherwise the ACC response, verdict
//!   `Congestion`. An ECN response during such a recovery cancels the hold. The hint is
//!   consulted on three duplicate ACKs only (the paper's LDA); a timeout gets ACC's response
//!   and verdict `None`. ACC itself makes no distinction (verdict `None`).

use serde::Deserialize;

use crate::api::{AckSample, CongestionControl, Ctx, Loss, RecoveryStyle, Signal, Verdict, Window};
use crate::registry::{AlgorithmInfo, ParamInfo, Range, MAX_SEGMENTS};
use crate::reno::{self, HalveOf, Reno, RenoParams};

const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "ssthresh_weight",
        unit: "ratio",
        default: "0.4",
        doc: "weight of the new ssthresh in nvar0 = int(w*ssthresh + (1-w)*nvar0) (paper: 0.4)",
        range: Range::closed(0.0, 1.0),
    },
    ParamInfo {
        name: "nvar0_initial_segments",
        unit: "segments",
        default: "initial_window",
        doc: "nvar0 before the host's first loss, in segments or \"initial_window\": the first connection's cwnd (Fig. 1) and the first update's previous value (paper: unstated)",
        range: Range::closed(1.0, MAX_SEGMENTS),
    },
    ParamInfo {
        name: "integer_segments",
        unit: "bool",
        default: "true",
        doc: "truncate nvar0 and nvar0/2 to whole segments, as the paper's int() in ns-2 packets",
        range: Range::Any,
    },
    reno::BYTE_COUNTING,
    reno::ABC_LIMIT,
    ParamInfo {
        name: "repeated_timeouts",
        unit: "ns2|rfc5681",
        default: "ns2",
        doc: "a repeated timeout of the same data: ns2 halves the restart window into ssthresh and updates nvar0 again (ns-2's slowdown() on every expiry); rfc5681 leaves both alone",
        range: Range::Any,
    },
    ParamInfo {
        name: "halve",
        unit: "flight_size|cwnd|pipe",
        default: "cwnd",
        doc: "quantity a loss halves into the ssthresh that feeds nvar0: cwnd without recovery inflation (ns-2's slowdown(), the paper's Fig. 1), flight_size (RFC 5681) or pipe (ns-3)",
        range: Range::Any,
    },
];

pub const ACC_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "acc",
    summary: "NewReno with a host-wide window learned from every loss (nvar0 = int(0.4*ssthresh + 0.6*nvar0)), used as the initial window and as nvar0/2 after a timeout.",
    reference: "P. D. Dalal, K. S. Dasgupta, TCP Cross Layer Adaptive Policy: Throughput Optimization over Wireless Links (TCP-ACC part); P. Dalal, ICOICT 2009",
    params: PARAMS,
    timeout_collapses_window: false,
    constraints: &[],
};

pub const CLAP_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "clap",
    summary: "TCP-ACC plus a MAC retry-limit hint: a fast retransmit whose window holds a segment the MAC gave up on keeps cwnd (wireless loss).",
    reference: "P. D. Dalal, K. S. Dasgupta, TCP Cross Layer Adaptive Policy: Throughput Optimization over Wireless Links",
    params: PARAMS,
    timeout_collapses_window: false,
    constraints: &[],
};

/// Parameters of TCP-ACC and TCP-CLAP.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AccParams {
    /// Weight of the new ssthresh in the nvar0 average, in [0, 1] (paper: 0.4).
    pub ssthresh_weight: f64,
    /// nvar0 in segments before the host's first loss, the first connection's window
    /// (paper: unstated; default `"initial_window"`, the configured initial window).
    pub nvar0_initial_segments: Nvar0Seed,
    /// Truncate nvar0 and nvar0/2 to whole segments (the paper's `int()`; default true).
    pub integer_segments: bool,
    /// NewReno: RFC 3465 byte counting (default off, as ns-2 and ns-3).
    pub byte_counting: bool,
    /// NewReno: byte-counting limit L in segments (RFC 3465 §2.2: 2).
    pub abc_limit: u32,
    /// Repeated timeouts: `ns2` (ssthresh and nvar0 updated on every expiry, default) or
    /// `rfc5681` (first expiry only).
    pub repeated_timeouts: RepeatedTimeouts,
    /// NewReno: what a loss halves: `cwnd` (ns-2's slowdown(), default), `flight_size`
    /// (RFC 5681) or `pipe` (ns-3).
    pub halve: HalveOf,
}

impl Default for AccParams {
    fn default() -> Self {
        AccParams {
            ssthresh_weight: 0.4,
            nvar0_initial_segments: Nvar0Seed::InitialWindow,
            integer_segments: true,
            byte_counting: false,
            abc_limit: 2,
            repeated_timeouts: RepeatedTimeouts::Ns2,
            halve: HalveOf::Cwnd,
        }
    }
}

/// What a repeated timeout of the same data does to ssthresh and nvar0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RepeatedTimeouts {
    /// ns-2's slowdown() on every expiry: ssthresh = max(cwnd/2, 2 segments), nvar0 updated.
    Ns2,
    /// RFC 5681 §3.1: ssthresh and nvar0 are left as the first expiry set them.
    Rfc5681,
}

/// nvar0 before the host's first loss.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Nvar0Seed {
    /// The configured initial window (`"initial_window"`).
    InitialWindow,
    /// A number of segments.
    Segments(f64),
}

impl<'de> Deserialize<'de> for Nvar0Seed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Seed;
        impl serde::de::Visitor<'_> for Seed {
            type Value = Nvar0Seed;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number of segments or \"initial_window\"")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Nvar0Seed, E> {
                Ok(Nvar0Seed::Segments(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Nvar0Seed, E> {
                Ok(Nvar0Seed::Segments(v as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Nvar0Seed, E> {
                Ok(Nvar0Seed::Segments(v as f64))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Nvar0Seed, E> {
                match v {
                    "initial_window" => Ok(Nvar0Seed::InitialWindow),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(Seed)
    }
}

impl AccParams {
    fn reno(&self) -> RenoParams {
        RenoParams { byte_counting: self.byte_counting, abc_limit: self.abc_limit, halve: self.halve, ..RenoParams::default() }
    }
}

pub fn build(p: &AccParams) -> Box<dyn CongestionControl> {
    Box::new(Acc::new(*p, false))
}

pub fn build_clap(p: &AccParams) -> Box<dyn CongestionControl> {
    Box::new(Acc::new(*p, true))
}

/// All mutable ACC/CLAP state.
#[derive(Clone, Debug)]
struct State {
    /// The NewReno machine (growth, loss response, ECN response).
    base: Reno,
    /// CLAP: highest sequence number the MAC gave up on since the last loss episode.
    mac_flag: Option<u64>,
    /// CLAP: cwnd (bytes) held through a fast recovery judged wireless.
    held_cwnd: Option<f64>,
    /// nvar0 (segments) as last read or written, for traces.
    nvar0: f64,
}

/// TCP-ACC (`clap = false`) or TCP-CLAP (`clap = true`).
#[derive(Clone, Debug)]
pub struct Acc {
    params: AccParams,
    clap: bool,
    state: State,
}

impl Acc {
    pub fn new(params: AccParams, clap: bool) -> Self {
        Acc {
            params,
            clap,
            state: State { base: Reno::new(params.reno(), RecoveryStyle::NewReno), mac_flag: None, held_cwnd: None, nvar0: f64::NAN },
        }
    }

    fn truncate(&self, segments: f64) -> f64 {
        if self.params.integer_segments {
            segments.floor()
        } else {
            segments
        }
    }

    /// Fig. 1: nvar0 = int(0.4*ssthresh + 0.6*nvar0), in segments; stored host-wide in bytes.
    fn update_nvar0(&mut self, ssthresh: f64, cx: &mut Ctx) -> f64 {
        let mss = cx.mss_f();
        let prev = cx.host.initial_cwnd.map_or(1.0, |b| b / mss);
        let wt = self.params.ssthresh_weight;
        let nvar0 = self.truncate(wt * (ssthresh / mss) + (1.0 - wt) * prev).max(1.0);
        cx.host.initial_cwnd = Some(nvar0 * mss);
        self.state.nvar0 = nvar0;
        nvar0
    }

    /// CLAP: a segment of the current window hit the MAC retry limit.
    fn window_flagged(&self, cx: &Ctx) -> bool {
        self.state.mac_flag.is_some_and(|seq| seq >= cx.snd_una && seq < cx.snd_max)
    }
}

impl CongestionControl for Acc {
    fn name(&self) -> &'static str {
        if self.clap {
            "clap"
        } else {
            "acc"
        }
    }

    fn recovery_style(&self) -> RecoveryStyle {
        RecoveryStyle::NewReno
    }

    fn init(&mut self, w: &mut Window, cx: &mut Ctx) {
        let mss = cx.mss_f();
        // The host's nvar0 before its first loss: the seed, or this initial window.
        let seed = match self.params.nvar0_initial_segments {
            Nvar0Seed::InitialWindow => w.cwnd,
            Nvar0Seed::Segments(s) => s * mss,
        }
        .max(mss);
        let nvar0 = *cx.host.initial_cwnd.get_or_insert(seed);
        // Fig. 1 (SETWNDINIT): a new connection starts with cwnd = nvar0.
        w.cwnd = nvar0.max(mss);
        self.state.nvar0 = nvar0 / mss;
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        self.state.base.on_ack(ack, w, cx);
    }

    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
        let flagged = self.window_flagged(cx);
        // A loss episode consumes the hints received before it.
        self.state.mac_flag = None;
        self.state.held_cwnd = None;
        match loss {
            Loss::FastRetransmit => {
                if self.clap && flagged {
                    // CLAP (Fig. 7): Flag = 1 prevents ACC's congestion control; cwnd is kept.
                    self.state.held_cwnd = Some(w.cwnd);
                    return Verdict::Wireless;
                }
                // NewReno (RFC 6582): ssthresh = max(half of `halve`'s quantity, 2*SMSS) (cwnd by
                // default, as ns-2's slowdown()), cwnd = ssthresh.
                self.state.base.on_loss(loss, w, cx);
                self.update_nvar0(w.ssthresh, cx);
                if self.clap {
                    Verdict::Congestion
                } else {
                    Verdict::None
                }
            }
            Loss::Timeout { consecutive } => {
                let mss = cx.mss_f();
                let nvar0 = if consecutive <= 1 {
                    // NewReno's cut (of cwnd by default, as ns-2's slowdown()).
                    self.state.base.on_loss(loss, w, cx);
                    self.update_nvar0(w.ssthresh, cx)
                } else if self.params.repeated_timeouts == RepeatedTimeouts::Ns2 {
                    // ns-2 slowdown() again: ssthresh = max(window/2, 2) of the restart window.
                    w.ssthresh = (w.cwnd / 2.0).max(2.0 * mss);
                    w.cwnd = mss;
                    self.update_nvar0(w.ssthresh, cx)
                } else {
                    self.state.base.on_loss(loss, w, cx);
                    cx.host.initial_cwnd.map_or(1.0, |b| b / mss)
                };
                // Fig. 2: wnd_restart_ = nvar0/2; cwnd = int(wnd_restart_).
                w.cwnd = self.truncate(nvar0 / 2.0).max(1.0) * cx.mss_f();
                Verdict::None
            }
        }
    }

    fn on_recovery_exit(&mut self, w: &mut Window, _cx: &mut Ctx) {
        // CLAP: a wireless episode ends with the window it started with; else RFC 6582 deflation.
        w.cwnd = self.state.held_cwnd.take().unwrap_or(w.ssthresh);
    }

    fn on_signal(&mut self, signal: Signal, w: &mut Window, cx: &mut Ctx) {
        match signal {
            Signal::CongestionMark => {
                let before = *w;
                self.state.base.on_signal(signal, w, cx);
                if *w != before {
                    self.state.held_cwnd = None;
                }
            }
            Signal::MacRetryLimit { seq } => {
                if seq < cx.snd_max {
                    self.state.mac_flag = Some(self.state.mac_flag.map_or(seq, |s| s.max(seq)));
                }
            }
        }
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("nvar0_segments", self.state.nvar0));
        if self.clap {
            out.push(("mac_flag_seq", self.state.mac_flag.map_or(f64::NAN, |s| s as f64)));
            out.push(("held_cwnd_bytes", self.state.held_cwnd.unwrap_or(f64::NAN)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Harness, MSS};

    const MS: u64 = 1_000_000;
    const SEG: f64 = MSS as f64;

    /// Fig. 1 recomputed: int(0.4*ssthresh + 0.6*nvar0), segments, at least 1.
    fn nvar0(ssthresh_segments: f64, prev: f64) -> f64 {
        (0.4 * ssthresh_segments + 0.6 * prev).floor().max(1.0)
    }

    /// A harness with `segments` outstanding and cwnd as large.
    fn with_flight(cc: Box<dyn CongestionControl>, segments: u64) -> Harness {
        let mut h = Harness::new(cc);
        h.w.cwnd = segments as f64 * SEG;
        h.snd_max = h.snd_una + segments * u64::from(MSS);
        h
    }

    #[test]
    fn nvar0_averages_the_ssthresh_of_every_loss_on_the_host() {
        let p = AccParams::default();
        let mut a = with_flight(build(&p), 20);
        let mut b = with_flight(build(&p), 14);
        // Before any loss nvar0 is the initial window (10 segments).
        assert_eq!(a.host.initial_cwnd, Some(10.0 * SEG));

        // Connection A: fast retransmit, ssthresh = cwnd/2 = 10 segments.
        a.loss(Loss::FastRetransmit);
        let n1 = nvar0(10.0, 10.0);
        assert_eq!(n1, 10.0);
        assert_eq!(a.host.initial_cwnd, Some(n1 * SEG));

        // Connection B on the same host: ssthresh = 14/2 = 7 segments.
        b.host = a.host.clone();
        b.loss(Loss::FastRetransmit);
        let n2 = nvar0(7.0, n1);
        assert_eq!(n2, 8.0);
        assert_eq!(b.host.initial_cwnd, Some(n2 * SEG));

        // Connection A times out with cwnd = 30 segments: ssthresh = 15, then cwnd =
        // int(nvar0/2) with the nvar0 that includes this loss.
        a.host = b.host.clone();
        a.w.cwnd = 30.0 * SEG;
        a.loss(Loss::Timeout { consecutive: 1 });
        let n3 = nvar0(15.0, n2);
        assert_eq!(n3, 10.0);
        assert_eq!(a.host.initial_cwnd, Some(n3 * SEG));
        assert_eq!(a.w.ssthresh, 15.0 * SEG);
        assert_eq!(a.w.cwnd, (n3 / 2.0).floor() * SEG);

        // A repeated timeout (ns-2): ssthresh = max(5/2, 2) = 2.5 segments of the restart
        // window, nvar0 = int(0.4*2.5 + 0.6*10) = 7, restart at int(7/2) = 3.
        let mut rfc = Harness::new(build(&AccParams { repeated_timeouts: RepeatedTimeouts::Rfc5681, ..p }));
        rfc.host = a.host.clone();
        rfc.w = a.w;
        a.loss(Loss::Timeout { consecutive: 2 });
        let n4 = nvar0(2.5, n3);
        assert_eq!(n4, 7.0);
        assert_eq!(a.w.ssthresh, 2.5 * SEG);
        assert_eq!(a.host.initial_cwnd, Some(n4 * SEG));
        assert_eq!(a.w.cwnd, 3.0 * SEG);
        // ... falling to 2 segments, int(0.4 * 2 + 0.6 * n) with ssthresh at its floor.
        for k in 3..12 {
            a.loss(Loss::Timeout { consecutive: k });
        }
        assert_eq!(a.host.initial_cwnd, Some(2.0 * SEG));
        assert_eq!(a.w.cwnd, SEG);
        // RFC 5681: ssthresh and nvar0 stay; restart at nvar0/2 again.
        rfc.loss(Loss::Timeout { consecutive: 2 });
        assert_eq!(rfc.host.initial_cwnd, Some(n3 * SEG));
        assert_eq!(rfc.w.ssthresh, 15.0 * SEG);
        assert_eq!(rfc.w.cwnd, 5.0 * SEG);

        // A new connection of the host starts with cwnd = nvar0.
        let mut c = Harness::new(build(&p));
        c.host = a.host.clone();
        c.call(|cc, w, cx| cc.init(w, cx));
        assert_eq!(c.w.cwnd, 2.0 * SEG);
    }

    #[test]
    fn a_timeout_inside_an_inflated_recovery_feeds_nvar0_half_the_uninflated_window() {
        // A fast retransmit at cwnd = 20 segments: ssthresh = cwnd = 10. The recovery then
        // runs long: 470 segments outstanding (the sender's inflation is not in w.cwnd).
        let mut h = with_flight(build(&AccParams::default()), 20);
        h.loss(Loss::FastRetransmit);
        let n1 = nvar0(10.0, 10.0);
        h.snd_max = h.snd_una + 470 * u64::from(MSS);
        h.loss(Loss::Timeout { consecutive: 1 });
        // ns-2 slowdown(): ssthresh = cwnd/2 = 5 segments; nvar0 = int(0.4*5 + 0.6*10) = 8.
        assert_eq!(h.w.ssthresh, 5.0 * SEG);
        assert_eq!(h.host.initial_cwnd, Some(nvar0(5.0, n1) * SEG));
        assert_eq!(h.w.cwnd, 4.0 * SEG);
        // With halve = "flight_size": ssthresh = 235 segments and nvar0 jumps to 100.
        let p = AccParams { halve: HalveOf::FlightSize, ..AccParams::default() };
        let mut h = with_flight(build(&p), 20);
        h.loss(Loss::FastRetransmit);
        h.snd_max = h.snd_una + 470 * u64::from(MSS);
        h.loss(Loss::Timeout { consecutive: 1 });
        assert_eq!(h.w.ssthresh, 235.0 * SEG);
        assert_eq!(h.host.initial_cwnd, Some(nvar0(235.0, n1) * SEG));
        assert_eq!(nvar0(235.0, n1), 100.0);
    }

    #[test]
    fn the_initial_nvar0_seeds_the_first_connections_window() {
        // Default: the configured initial window (the harness's 10 segments).
        let h = Harness::new(build(&AccParams::default()));
        assert_eq!(h.w.cwnd, 10.0 * SEG);
        assert_eq!(h.host.initial_cwnd, Some(10.0 * SEG));
        // A given seed is the first connection's cwnd and the first update's nvar0.
        let p = AccParams { nvar0_initial_segments: Nvar0Seed::Segments(3.0), ..AccParams::default() };
        let mut h = Harness::new(build(&p));
        assert_eq!(h.w.cwnd, 3.0 * SEG);
        h.w.cwnd = 20.0 * SEG;
        h.fill_window();
        h.loss(Loss::FastRetransmit);
        assert_eq!(h.host.initial_cwnd, Some(nvar0(10.0, 3.0) * SEG));
        // A second connection of a host that has a value does not re-seed it.
        let mut c = Harness::new(build(&AccParams { nvar0_initial_segments: Nvar0Seed::Segments(40.0), ..AccParams::default() }));
        c.host = h.host.clone();
        c.call(|cc, w, cx| cc.init(w, cx));
        assert_eq!(c.w.cwnd, nvar0(10.0, 3.0) * SEG);
    }

    #[test]
    fn the_seed_is_a_number_of_segments_or_initial_window() {
        let p: AccParams = serde_json::from_value(serde_json::json!({"nvar0_initial_segments": 4})).unwrap();
        assert_eq!(p.nvar0_initial_segments, Nvar0Seed::Segments(4.0));
        let p: AccParams = serde_json::from_value(serde_json::json!({"nvar0_initial_segments": "initial_window"})).unwrap();
        assert_eq!(p.nvar0_initial_segments, Nvar0Seed::InitialWindow);
        let err = serde_json::from_value::<AccParams>(serde_json::json!({"nvar0_initial_segments": "ten"})).unwrap_err();
        assert!(err.to_string().contains("a number of segments or \"initial_window\""), "{err}");
    }

    #[test]
    fn nvar0_never_falls_below_one_segment() {
        let p = AccParams { nvar0_initial_segments: Nvar0Seed::Segments(0.0), ..AccParams::default() };
        let mut h = with_flight(build(&p), 2);
        assert_eq!(h.host.initial_cwnd, Some(SEG));
        h.loss(Loss::FastRetransmit);
        // int(0.4*1 + 0.6*1) = 1: at least 1 segment.
        assert_eq!(h.host.initial_cwnd, Some(SEG));
    }

    #[test]
    fn clap_keeps_cwnd_on_a_loss_flagged_by_the_mac_and_cuts_it_otherwise() {
        let mut h = Harness::new(build_clap(&AccParams::default()));
        for _ in 0..20 {
            h.ack(1, 50 * MS);
        }
        h.w.ssthresh = 20.0 * SEG;
        h.fill_window();
        let cwnd = h.w.cwnd;
        // The MAC gave up on the segment at SND.UNA.
        h.signal(Signal::MacRetryLimit { seq: h.snd_una });
        let v = h.loss(Loss::FastRetransmit);
        assert_eq!(v, Verdict::Wireless);
        assert_eq!((h.w.cwnd, h.w.ssthresh), (cwnd, 20.0 * SEG));
        assert_eq!(h.host.initial_cwnd, Some(10.0 * SEG), "no congestion response, no nvar0 update");
        h.in_recovery = true;
        h.ack(1, 50 * MS);
        h.exit_recovery();
        assert_eq!(h.w.cwnd, cwnd);

        // The flag was consumed: the next loss, unflagged, gets ACC's NewReno response.
        h.fill_window();
        let flight = (h.snd_max - h.snd_una) as f64;
        let v = h.loss(Loss::FastRetransmit);
        assert_eq!(v, Verdict::Congestion);
        assert_eq!(h.w.cwnd, (flight / 2.0).max(2.0 * SEG));
        assert_eq!(h.host.initial_cwnd, Some(nvar0(flight / 2.0 / SEG, 10.0) * SEG));
    }

    #[test]
    fn clap_ignores_a_flag_outside_the_current_window() {
        let mut h = Harness::new(build_clap(&AccParams::default()));
        h.fill_window();
        h.signal(Signal::MacRetryLimit { seq: 0 });
        // The flagged segment was delivered anyway (acknowledged): not in [SND.UNA, SND.MAX).
        h.ack(2, 50 * MS);
        h.fill_window();
        let flight = (h.snd_max - h.snd_una) as f64;
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Congestion);
        assert_eq!(h.w.cwnd, flight / 2.0);
    }

    #[test]
    fn acc_ignores_mac_hints() {
        let mut h = Harness::new(build(&AccParams::default()));
        h.fill_window();
        h.signal(Signal::MacRetryLimit { seq: h.snd_una });
        let flight = (h.snd_max - h.snd_una) as f64;
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::None);
        assert_eq!(h.w.cwnd, flight / 2.0);
    }

    #[test]
    fn duplicate_acks_do_not_grow_the_window() {
        let mut h = Harness::new(build_clap(&AccParams::default()));
        let before = h.w.cwnd;
        h.dup_ack();
        h.dup_ack();
        assert_eq!(h.w.cwnd, before);
    }
}
