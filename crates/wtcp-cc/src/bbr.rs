//! BBR v1: congestion control from a model of bottleneck bandwidth and round-trip
//! propagation time.
//!
//! N. Cardwell, Y. Cheng, C. S. Gunn, S. H. Yeganeh, V. Jacobson, "BBR: Congestion-Based
//! Congestion Control", ACM Queue 14(5), 2016; constants and state machine of Linux
//! `net/ipv4/tcp_bbr.c` (v1).
//!
//! BtlBw is the windowed maximum of delivery-rate samples over 10 round trips and RTprop
//! the minimum RTT over 10 s; BBR paces at pacing_gain * BtlBw and caps cwnd at
//! cwnd_gain * BtlBw * RTprop, cycling STARTUP, DRAIN, PROBE_BW (gains 1.25, 0.75, 1 x6) and
//! PROBE_RTT (cwnd 4 segments for 200 ms every 10 s). Loss does not enter the model.
//!
//! Deviations and ambiguities resolved:
//! - Delivery-rate samples come from the sender's per-segment estimator
//!   (`AckSample::rate`: draft-cheng-iccrg-delivery-rate-estimation as Linux `tcp_rate.c`,
//!   in bytes; its own deviations are listed in the engine's `tcp/rate.rs`). A round ends
//!   on the first sample whose `prior_delivered` reaches the delivered count recorded when
//!   the round began (Linux `next_rtt_delivered`), so rounds and samples continue through
//!   loss recovery on SACKed data. cwnd grows by the bytes each ACK delivers, cumulatively
//!   or by SACK (Linux `rs->acked_sacked`). (Before this estimator, one sample per round of
//!   cumulatively acknowledged bytes stalled rounds during recovery and inflated samples
//!   after it; on a 2 Mb/s path with a 20-packet queue that kept BBR in STARTUP for 18 s.)
//! - The max filter is exact over the last 10 rounds, a sample expiring when it is more
//!   than 10 rounds old (Linux's `minmax` window rule; Linux keeps 3 candidates).
//! - App-limited samples enter the max filter only when they do not lower it and do not
//!   count for the full-pipe test (Linux); in PROBE_RTT BBR asks the sender to mark them
//!   app-limited (Linux `tp->app_limited`). The ACK that ends fast recovery reaches the
//!   model too (`on_recovery_exit_ack`, after the window is restored). Idle restart is not
//!   handled. The long-term
//!   ("policer") bandwidth mode of Linux is not implemented.
//! - PROBE_BW starting phase: Linux picks one of the phases other than 0.75 at random on
//!   every entry; here it is the parameter `probe_bw_start_phase` (default 2, a cruise
//!   phase), the same at every entry.
//! - cwnd target = ceil(cwnd_gain * BtlBw * RTprop) in whole segments, at least 4 segments;
//!   Linux's TSO quantisation budget (3 TSO goals, rounding to even, +2 in the 1.25 phase)
//!   and the later ACK-aggregation allowance are not added (no TSO here). Before an RTT
//!   sample the BDP is the initial window. Pacing rate = pacing_gain * BtlBw * (1 -
//!   `pacing_margin_percent`/100) in bytes/s (v1 as published: no margin; Linux >= 4.20: 1 %).
//!   Until the pipe is full the pacing rate never decreases; the initial rate is
//!   high_gain * initial cwnd / SRTT (1 ms nominal before an RTT sample), as Linux.
//! - Loss (Linux v1 `bbr_set_cwnd_to_recover_or_restore`): at fast retransmit the window is
//!   saved and cwnd = pipe + the bytes that ACK delivered, at least one segment (Linux:
//!   packets in flight + packets acked); for one round (packet conservation) each ACK
//!   sets cwnd = max(cwnd, pipe + delivered bytes), as Linux. Without SACK duplicate ACKs
//!   deliver nothing to `delivered_bytes`, so cwnd stays and the sender's dupack inflation
//!   sends one segment per duplicate; later rounds grow as usual. On recovery exit cwnd =
//!   max(cwnd, saved, 4 segments). On RTO: window saved, cwnd = 1 segment (Linux core: in flight + 1 after marking all lost), the full-pipe
//!   reference bandwidth reset; when SND.UNA passes the SND.MAX of the RTO, cwnd =
//!   max(cwnd, saved). Linux's per-ACK "cwnd -= newly lost packets" is not applied (loss
//!   counts are not reported per ACK).
//! - Without SACK, after a timeout the cumulative ACK over data the receiver had buffered
//!   delivers a whole window at once, and the rate sample takes its interval from a
//!   go-back-N retransmission sent less than an RTT before: BtlBw can jump far above the
//!   path (measured: 2.39 MB/s on a 2 Mb/s link, 2 % loss, the test path of
//!   `tests/engine/algorithms.rs`; with SACK the receiver's blocks keep those segments from being
//!   resent). Whether Linux's reno path samples the same is untested.
//! - ssthresh is not part of BBR (Linux returns "infinite"). It is set to the saved window
//!   at each loss (so it is finite after a timeout and unchanged by repeated ones) and to
//!   the BDP on entering DRAIN (as Linux does); nothing reads it.
//! - ECN marks and cross-layer signals are ignored (BBR v1 ignores ECN). Verdict: `None`.

use std::f64::consts::LN_2;

use serde::Deserialize;

use crate::api::{
    AckSample, CongestionControl, Ctx, Loss, RecoveryStyle, Time, Verdict, Window, NS_PER_SEC,
};
use crate::registry::{AlgorithmInfo, ParamInfo, Range, MAX_GAIN, MAX_SECONDS, MAX_SEGMENTS};

const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "high_gain",
        unit: "ratio",
        default: "2.8853900817779268",
        doc: "STARTUP pacing and cwnd gain 2/ln 2; DRAIN paces at its inverse (Linux bbr_high_gain 2885/1000)",
        range: Range::above(1.0, MAX_GAIN),
    },
    ParamInfo {
        name: "cwnd_gain",
        unit: "ratio",
        default: "2.0",
        doc: "PROBE_BW cwnd gain over the BDP (Linux bbr_cwnd_gain: 2)",
        range: Range::above(0.0, MAX_GAIN),
    },
    ParamInfo {
        name: "probe_up_gain",
        unit: "ratio",
        default: "1.25",
        doc: "pacing gain of PROBE_BW phase 0 (paper, Linux: 5/4)",
        range: Range::closed(1.0, MAX_GAIN),
    },
    ParamInfo {
        name: "probe_down_gain",
        unit: "ratio",
        default: "0.75",
        doc: "pacing gain of PROBE_BW phase 1 (paper, Linux: 3/4)",
        range: Range::above(0.0, 1.0),
    },
    ParamInfo {
        name: "probe_bw_start_phase",
        unit: "phase 0-7",
        default: "2",
        doc: "PROBE_BW phase on entry (Linux: random, never 1)",
        range: Range::closed(0.0, 7.0),
    },
    ParamInfo {
        name: "full_bw_threshold",
        unit: "ratio",
        default: "1.25",
        doc: "BtlBw growth per round that keeps STARTUP going (Linux bbr_full_bw_thresh: 5/4)",
        range: Range::above(1.0, MAX_GAIN),
    },
    ParamInfo {
        name: "full_bw_rounds",
        unit: "rounds",
        default: "3",
        doc: "rounds without that growth that end STARTUP (Linux bbr_full_bw_cnt: 3)",
        range: Range::at_least(1.0),
    },
    ParamInfo {
        name: "min_rtt_window_s",
        unit: "s",
        default: "10.0",
        doc: "RTprop filter window; PROBE_RTT when it expires (Linux bbr_min_rtt_win_sec: 10)",
        range: Range::above(0.0, MAX_SECONDS),
    },
    ParamInfo {
        name: "probe_rtt_ms",
        unit: "ms",
        default: "200.0",
        doc: "time in PROBE_RTT at the minimum window, at least one round (Linux bbr_probe_rtt_mode_ms: 200)",
        range: Range::closed(0.0, MAX_SECONDS * 1e3),
    },
    ParamInfo {
        name: "min_cwnd_segments",
        unit: "segments",
        default: "4.0",
        doc: "cwnd floor and PROBE_RTT window (Linux bbr_cwnd_min_target: 4)",
        range: Range::closed(1.0, MAX_SEGMENTS),
    },
    ParamInfo {
        name: "pacing_margin_percent",
        unit: "%",
        default: "0.0",
        doc: "pacing below the model rate (v1 as published: 0; Linux >= 4.20: 1)",
        range: Range::below(0.0, 100.0),
    },
];

pub const BBR_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "bbr",
    summary: "Model-based: paces at gain*BtlBw (windowed max delivery rate) with cwnd = 2*BtlBw*RTprop; STARTUP, DRAIN, PROBE_BW gain cycling and PROBE_RTT; loss is not a model input.",
    reference: "Cardwell, Cheng, Gunn, Yeganeh, Jacobson, BBR: Congestion-Based Congestion Control, ACM Queue 14(5), 2016; Linux tcp_bbr.c",
    params: PARAMS,
    // Linux: an RTO leaves cwnd = packets in flight + 1 = 1 after all are marked lost.
    timeout_collapses_window: true,
    constraints: &[],
};

/// Parameters of BBR v1.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BbrParams {
    /// STARTUP pacing and cwnd gain: 2/ln 2 = 2.885, the smallest gain that doubles the
    /// delivery rate each round (paper); Linux `bbr_high_gain` = 2885/1000 + 1/256.
    /// DRAIN paces at 1/high_gain (Linux `bbr_drain_gain` = 1000/2885).
    pub high_gain: f64,
    /// cwnd gain in PROBE_BW (multiple of the BDP). Paper, Linux `bbr_cwnd_gain`: 2.
    pub cwnd_gain: f64,
    /// Pacing gain of the probing phase 0 of PROBE_BW. Paper, Linux: 1.25.
    pub probe_up_gain: f64,
    /// Pacing gain of the draining phase 1 of PROBE_BW. Paper, Linux: 0.75.
    pub probe_down_gain: f64,
    /// PROBE_BW phase (0-7) entered from DRAIN or PROBE_RTT. Linux draws
    /// it at random among all but phase 1; default 2.
    pub probe_bw_start_phase: u8,
    /// STARTUP continues while BtlBw grows by this factor per round. Linux: 1.25.
    pub full_bw_threshold: f64,
    /// Rounds without that growth after which the pipe is full. Linux: 3.
    pub full_bw_rounds: u32,
    /// RTprop filter window in seconds. Paper, Linux `bbr_min_rtt_win_sec`: 10.
    pub min_rtt_window_s: f64,
    /// Duration of PROBE_RTT in milliseconds (and at least one round); 0 disables
    /// PROBE_RTT. Paper, Linux `bbr_probe_rtt_mode_ms`: 200.
    pub probe_rtt_ms: f64,
    /// Minimum cwnd in segments, also the PROBE_RTT window. Linux
    /// `bbr_cwnd_min_target`: 4.
    pub min_cwnd_segments: f64,
    /// Pacing margin in percent below the model rate. Published v1: 0; Linux >= 4.20
    /// `bbr_pacing_margin_percent`: 1.
    pub pacing_margin_percent: f64,
}

impl Default for BbrParams {
    fn default() -> Self {
        BbrParams {
            high_gain: 2.0 / LN_2,
            cwnd_gain: 2.0,
            probe_up_gain: 1.25,
            probe_down_gain: 0.75,
            probe_bw_start_phase: 2,
            full_bw_threshold: 1.25,
            full_bw_rounds: 3,
            min_rtt_window_s: 10.0,
            probe_rtt_ms: 200.0,
            min_cwnd_segments: 4.0,
            pacing_margin_percent: 0.0,
        }
    }
}

/// Length of the PROBE_BW gain cycle (Linux `CYCLE_LEN`).
const CYCLE_LEN: usize = 8;
/// Bandwidth filter window in rounds (Linux `bbr_bw_rtts` = CYCLE_LEN + 2).
const BW_WINDOW_ROUNDS: u64 = CYCLE_LEN as u64 + 2;
/// Slots of the max filter: rounds r with now - r <= BW_WINDOW_ROUNDS.
const BW_SLOTS: usize = BW_WINDOW_ROUNDS as usize + 1;
/// Linux `TCP_INIT_CWND`: cwnd grows freely until this many segments are delivered.
const INIT_CWND_SEGMENTS: f64 = 10.0;
/// Nominal RTT for the initial pacing rate before any sample (Linux: 1 ms).
const NOMINAL_RTT: Time = 1_000_000;

/// Windowed maximum of one sample per round over the last `BW_WINDOW_ROUNDS` rounds.
#[derive(Clone, Copy, Debug)]
struct MaxFilter {
    /// (round, maximum sample of that round), indexed by round modulo the slot count.
    slots: [(u64, f64); BW_SLOTS],
}

impl MaxFilter {
    fn new() -> Self {
        MaxFilter {
            slots: [(0, 0.0); BW_SLOTS],
        }
    }

    fn update(&mut self, round: u64, v: f64) {
        let slot = &mut self.slots[(round % BW_SLOTS as u64) as usize];
        if slot.0 == round {
            slot.1 = slot.1.max(v);
        } else {
            *slot = (round, v);
        }
    }

    fn get(&self, round: u64) -> f64 {
        self.slots
            .iter()
            .filter(|(r, _)| *r <= round && round - r <= BW_WINDOW_ROUNDS)
            .fold(0.0, |m, &(_, v)| m.max(v))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// Loss recovery as BBR sees it (Linux `prev_ca_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Recovery {
    Open,
    /// Fast recovery (ends with `on_recovery_exit`).
    Fast,
    /// After an RTO, until SND.UNA reaches `high_seq` (Linux TCP_CA_Loss).
    Timeout {
        high_seq: u64,
    },
}

/// The BBR v1 state machine.
#[derive(Clone, Debug)]
pub struct Bbr {
    p: BbrParams,
    mode: Mode,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// Rounds completed (Linux `rtt_cnt`).
    round_count: u64,
    /// The round ends on a sample of data sent after `delivered_total` reached this
    /// (Linux `next_rtt_delivered`).
    next_rtt_delivered: u64,
    /// This ACK ended a round.
    round_start: bool,
    /// `AckSample::delivered_total` of the latest ACK (Linux `tp->delivered`).
    delivered_total: u64,
    /// Bytes the latest ACK delivered (Linux `rs->acked_sacked`).
    last_acked: u64,
    /// The latest delivery-rate sample, bytes/s.
    last_sample: f64,
    /// BtlBw filter, bytes/s.
    bw: MaxFilter,
    /// Full-pipe detection (STARTUP exit).
    full_bw: f64,
    full_bw_count: u32,
    full_bw_reached: bool,
    /// RTprop and when it was last set.
    min_rtt: Option<Time>,
    min_rtt_stamp: Time,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    /// PROBE_BW phase and its start time.
    cycle_idx: usize,
    cycle_stamp: Time,
    /// Window saved at a loss or on entering PROBE_RTT, bytes.
    prior_cwnd: f64,
    recovery: Recovery,
    packet_conservation: bool,
    /// A loss was detected since the last ACK (Linux `rs->losses`).
    loss_pending: bool,
    /// cwnd at `init`, bytes: the BDP before an RTT sample.
    init_cwnd: f64,
    has_seen_rtt: bool,
    mss: f64,
}

impl Bbr {
    pub fn new(p: BbrParams) -> Self {
        Bbr {
            p,
            mode: Mode::Startup,
            pacing_gain: p.high_gain,
            cwnd_gain: p.high_gain,
            round_count: 0,
            next_rtt_delivered: 0,
            round_start: false,
            delivered_total: 0,
            last_acked: 0,
            last_sample: 0.0,
            bw: MaxFilter::new(),
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_reached: false,
            min_rtt: None,
            min_rtt_stamp: 0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            cycle_idx: 0,
            cycle_stamp: 0,
            prior_cwnd: 0.0,
            recovery: Recovery::Open,
            packet_conservation: false,
            loss_pending: false,
            init_cwnd: 0.0,
            has_seen_rtt: false,
            mss: 0.0,
        }
    }

    /// BtlBw, bytes/s.
    fn btl_bw(&self) -> f64 {
        self.bw.get(self.round_count)
    }

    fn cycle_gain(&self, idx: usize) -> f64 {
        match idx {
            0 => self.p.probe_up_gain,
            1 => self.p.probe_down_gain,
            _ => 1.0,
        }
    }

    /// gain * BDP in bytes, rounded up to whole segments (Linux `bbr_bdp`); the initial
    /// window before an RTT sample.
    fn bdp(&self, gain: f64) -> f64 {
        match self.min_rtt {
            None => self.init_cwnd,
            Some(rtt) => {
                let bytes = gain * self.btl_bw() * rtt as f64 / NS_PER_SEC;
                (bytes / self.mss).ceil() * self.mss
            }
        }
    }

    fn min_cwnd(&self) -> f64 {
        self.p.min_cwnd_segments * self.mss
    }

    fn pacing_rate(&self, bw: f64, gain: f64) -> f64 {
        gain * bw * (1.0 - self.p.pacing_margin_percent / 100.0)
    }

    /// Linux `bbr_save_cwnd`.
    fn save_cwnd(&mut self, w: &Window) {
        if self.recovery == Recovery::Open && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = w.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(w.cwnd);
        }
    }

    /// Start a new round now (Linux `next_rtt_delivered = tp->delivered`).
    fn restart_round(&mut self) {
        self.next_rtt_delivered = self.delivered_total;
    }

    /// Round accounting and the BtlBw filter from the ACK's delivery-rate sample (Linux
    /// `bbr_update_bw`).
    fn update_bw(&mut self, ack: &AckSample) {
        self.round_start = false;
        let Some(rs) = ack.rate.filter(|r| r.interval > 0) else {
            return; // not a valid observation
        };
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = ack.delivered_total;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        let bw = rs.bytes_per_sec();
        self.last_sample = bw;
        // An app-limited sample enters only if it does not lower the estimate.
        if !rs.is_app_limited || bw >= self.btl_bw() {
            self.bw.update(self.round_count, bw);
        }
    }

    fn reset_probe_bw(&mut self, now: Time) {
        self.mode = Mode::ProbeBw;
        self.cwnd_gain = self.p.cwnd_gain;
        self.cycle_idx = usize::from(self.p.probe_bw_start_phase) % CYCLE_LEN;
        self.cycle_stamp = now;
        self.pacing_gain = self.cycle_gain(self.cycle_idx);
    }

    /// Linux `bbr_reset_mode`: STARTUP if the pipe was never full, else PROBE_BW.
    fn reset_mode(&mut self, now: Time) {
        if self.full_bw_reached {
            self.reset_probe_bw(now);
        } else {
            self.mode = Mode::Startup;
            self.pacing_gain = self.p.high_gain;
            self.cwnd_gain = self.p.high_gain;
        }
    }

    /// Linux `bbr_update_cycle_phase` / `bbr_is_next_cycle_phase`.
    fn update_cycle_phase(&mut self, ack: &AckSample, cx: &Ctx) {
        if self.mode != Mode::ProbeBw {
            return;
        }
        let full_length = self
            .min_rtt
            .is_some_and(|r| cx.now.saturating_sub(self.cycle_stamp) > r);
        let prior_inflight = (cx.pipe + ack.delivered_bytes) as f64;
        let next = if self.pacing_gain == 1.0 {
            full_length
        } else if self.pacing_gain > 1.0 {
            // Probe until a loss or until inflight reaches pacing_gain * BDP.
            full_length && (self.loss_pending || prior_inflight >= self.bdp(self.pacing_gain))
        } else {
            // Drain until inflight falls to the BDP, or one RTprop.
            full_length || prior_inflight <= self.bdp(1.0)
        };
        if next {
            self.cycle_idx = (self.cycle_idx + 1) % CYCLE_LEN;
            self.cycle_stamp = cx.now;
            self.pacing_gain = self.cycle_gain(self.cycle_idx);
        }
    }

    /// Linux `bbr_check_full_bw_reached`: 3 rounds without 25 % growth (app-limited
    /// rounds do not count).
    fn check_full_bw(&mut self, ack: &AckSample) {
        let app_limited = ack.rate.is_some_and(|r| r.is_app_limited);
        if self.full_bw_reached || !self.round_start || app_limited {
            return;
        }
        let bw = self.btl_bw();
        if bw >= self.full_bw * self.p.full_bw_threshold {
            self.full_bw = bw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_reached = self.full_bw_count >= self.p.full_bw_rounds;
    }

    /// Linux `bbr_check_drain`.
    fn check_drain(&mut self, w: &mut Window, cx: &Ctx) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.pacing_gain = 1.0 / self.p.high_gain;
            self.cwnd_gain = self.p.high_gain;
            w.ssthresh = self.bdp(1.0);
        }
        if self.mode == Mode::Drain && cx.pipe as f64 <= self.bdp(1.0) {
            self.reset_probe_bw(cx.now);
        }
    }

    /// Linux `bbr_update_min_rtt`: RTprop filter and PROBE_RTT.
    fn update_min_rtt(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        let window = (self.p.min_rtt_window_s.max(0.0) * NS_PER_SEC) as Time;
        let expired = cx.now > self.min_rtt_stamp.saturating_add(window);
        if let Some(r) = ack.rtt {
            if self.min_rtt.is_none_or(|m| r <= m) || expired {
                self.min_rtt = Some(r);
                self.min_rtt_stamp = cx.now;
            }
        }
        if self.p.probe_rtt_ms > 0.0 && expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.save_cwnd(w);
            self.probe_rtt_done = None;
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        // Linux: "Ignore low rate samples during this mode" (tp->app_limited).
        cx.mark_app_limited();
        match self.probe_rtt_done {
            None if cx.pipe as f64 <= self.min_cwnd() => {
                // Inflight reached the minimum: hold it for 200 ms and one round.
                self.probe_rtt_done = Some(cx.now + (self.p.probe_rtt_ms * 1e6) as Time);
                self.probe_rtt_round_done = false;
                self.restart_round();
            }
            None => {}
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && cx.now > done {
                    self.min_rtt_stamp = cx.now;
                    w.cwnd = w.cwnd.max(self.prior_cwnd);
                    self.reset_mode(cx.now);
                }
            }
        }
    }

    /// Linux `bbr_set_pacing_rate`.
    fn set_pacing(&mut self, w: &mut Window, cx: &Ctx) {
        if !self.has_seen_rtt {
            if let Some(srtt) = cx.rtt.srtt() {
                self.init_pacing(w, srtt);
                self.has_seen_rtt = true;
            }
        }
        let bw = self.btl_bw();
        if bw <= 0.0 {
            return;
        }
        let rate = self.pacing_rate(bw, self.pacing_gain);
        if self.full_bw_reached || w.pacing_rate.is_none_or(|r| rate > r) {
            w.pacing_rate = Some(rate);
        }
    }

    /// Linux `bbr_init_pacing_rate_from_rtt`: high_gain * cwnd / RTT.
    fn init_pacing(&self, w: &mut Window, rtt: Time) {
        let bw = w.cwnd * NS_PER_SEC / rtt.max(1) as f64;
        w.pacing_rate = Some(self.pacing_rate(bw, self.p.high_gain));
    }

    /// Linux `bbr_set_cwnd`, growing by the bytes each ACK delivers (`rs->acked_sacked`).
    fn set_cwnd(&mut self, ack: &AckSample, w: &mut Window, cx: &Ctx) {
        let acked = ack.delivered_bytes;
        if acked > 0 {
            if let Recovery::Timeout { high_seq } = self.recovery {
                if cx.snd_una >= high_seq {
                    // Leaving the RTO loss state: restore the saved window.
                    self.recovery = Recovery::Open;
                    w.cwnd = w.cwnd.max(self.prior_cwnd);
                }
            }
            let acked = acked as f64;
            if ack.in_recovery && self.packet_conservation {
                // Packet conservation: in flight + what this ACK delivered.
                w.cwnd = w.cwnd.max(cx.pipe as f64 + acked);
            } else {
                // target = cwnd_gain * BDP.
                let target = self.bdp(self.cwnd_gain);
                if self.full_bw_reached {
                    w.cwnd = (w.cwnd + acked).min(target);
                } else if w.cwnd < target
                    || (ack.delivered_total as f64) < INIT_CWND_SEGMENTS * self.mss
                {
                    w.cwnd += acked;
                }
                w.cwnd = w.cwnd.max(self.min_cwnd());
            }
        }
        if self.mode == Mode::ProbeRtt {
            w.cwnd = w.cwnd.min(self.min_cwnd());
        }
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    fn recovery_style(&self) -> RecoveryStyle {
        RecoveryStyle::NewReno
    }

    fn init(&mut self, w: &mut Window, cx: &mut Ctx) {
        self.mss = cx.mss_f();
        self.init_cwnd = w.cwnd;
        self.min_rtt_stamp = cx.now;
        self.cycle_stamp = cx.now;
        match cx.rtt.srtt() {
            Some(srtt) => {
                self.init_pacing(w, srtt);
                self.has_seen_rtt = true;
            }
            None => self.init_pacing(w, NOMINAL_RTT),
        }
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        self.mss = cx.mss_f();
        self.delivered_total = ack.delivered_total;
        self.last_acked = ack.delivered_bytes;
        // bbr_update_model.
        self.update_bw(ack);
        self.update_cycle_phase(ack, cx);
        self.check_full_bw(ack);
        self.check_drain(w, cx);
        self.update_min_rtt(ack, w, cx);
        // pacing_rate = pacing_gain * BtlBw; cwnd towards cwnd_gain * BDP.
        self.set_pacing(w, cx);
        self.set_cwnd(ack, w, cx);
        self.loss_pending = false;
    }

    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
        self.mss = cx.mss_f();
        self.save_cwnd(w);
        w.ssthresh = self.prior_cwnd;
        self.loss_pending = true;
        match loss {
            Loss::FastRetransmit => {
                // Entering recovery: packet conservation for one round, starting now.
                self.recovery = Recovery::Fast;
                self.packet_conservation = true;
                self.restart_round();
                // Linux: packets in flight + packets this ACK delivered (without SACK a
                // duplicate ACK counts as one delivered packet, `tcp_add_reno_sack`).
                w.cwnd = (cx.pipe + self.last_acked.max(cx.mss.into())) as f64;
            }
            Loss::Timeout { .. } => {
                self.recovery = Recovery::Timeout {
                    high_seq: cx.snd_max,
                };
                self.packet_conservation = false;
                self.full_bw = 0.0;
                w.cwnd = self.mss;
            }
        }
        if self.mode == Mode::ProbeRtt {
            w.cwnd = w.cwnd.min(self.min_cwnd());
        }
        Verdict::None
    }

    fn on_recovery_exit_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        // Linux runs bbr_main on this ACK too, after leaving recovery.
        self.on_ack(ack, w, cx);
    }

    fn on_recovery_exit(&mut self, w: &mut Window, cx: &mut Ctx) {
        self.mss = cx.mss_f();
        self.recovery = Recovery::Open;
        self.packet_conservation = false;
        w.cwnd = w.cwnd.max(self.prior_cwnd).max(self.min_cwnd());
        if self.mode == Mode::ProbeRtt {
            w.cwnd = w.cwnd.min(self.min_cwnd());
        }
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        let mode = match self.mode {
            Mode::Startup => 0.0,
            Mode::Drain => 1.0,
            Mode::ProbeBw => 2.0,
            Mode::ProbeRtt => 3.0,
        };
        out.push(("mode", mode));
        out.push(("btl_bw_bytes_per_s", self.btl_bw()));
        out.push(("rate_sample_bytes_per_s", self.last_sample));
        out.push((
            "min_rtt_s",
            self.min_rtt.map_or(f64::NAN, |r| r as f64 / NS_PER_SEC),
        ));
        out.push(("pacing_gain", self.pacing_gain));
        out.push(("cwnd_gain", self.cwnd_gain));
        out.push(("cycle_idx", self.cycle_idx as f64));
        out.push(("round_count", self.round_count as f64));
        out.push(("full_bw_count", f64::from(self.full_bw_count)));
        out.push((
            "bdp_bytes",
            if self.mss > 0.0 {
                self.bdp(1.0)
            } else {
                f64::NAN
            },
        ));
    }
}

pub fn build(p: &BbrParams) -> Box<dyn CongestionControl> {
    Box::new(Bbr::new(*p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::RateSample;
    use crate::testing::{Harness, MSS, var};

    const MS: Time = 1_000_000;
    const SEG: f64 = MSS as f64;

    /// One ACK of `bytes` new bytes `dt` after the previous one, RTT sample `rtt`. At the
    /// hook `flight` minus one segment is outstanding; the sender then sends one more
    /// segment in response, so the next ACK of `flight` bytes ends the round. The rate
    /// sample is the sender's for a flight sent right after the previous ACK: `bytes`
    /// over `dt`, sent when `snd_una` bytes had been delivered.
    fn deliver(h: &mut Harness, bytes: u64, dt: Time, rtt: Time, flight: u64) {
        h.now += dt;
        let rate = RateSample {
            delivered: bytes,
            interval: dt,
            prior_delivered: h.snd_una,
            ..RateSample::default()
        };
        h.snd_una += bytes;
        h.snd_max = h
            .snd_max
            .max(h.snd_una + flight.saturating_sub(u64::from(MSS)));
        h.rtt.on_sample(rtt);
        let s = AckSample {
            ack: h.snd_una,
            acked_bytes: bytes,
            rtt: Some(rtt),
            delivered: h.snd_una,
            delivered_bytes: bytes,
            delivered_total: h.snd_una,
            rate: Some(rate),
            ..AckSample::default()
        };
        h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
        h.snd_max = h.snd_max.max(h.snd_una + flight);
    }

    /// One ACK that acknowledges everything outstanding (and so ends a round), leaving
    /// `flight` bytes outstanding afterwards.
    fn round(h: &mut Harness, dt: Time, rtt: Time, flight: u64) {
        let bytes = (h.snd_max - h.snd_una).max(1);
        h.snd_max = h.snd_max.max(h.snd_una + bytes);
        deliver(h, bytes, dt, rtt, flight);
    }

    /// A delivery rate computed as the sampler does: bytes * 1e9 / interval_ns.
    fn rate(segments: f64, dt: Time) -> f64 {
        segments * SEG * NS_PER_SEC / dt as f64
    }

    fn fresh() -> Harness {
        let mut h = Harness::new(build(&BbrParams::default()));
        h.snd_max = 10 * u64::from(MSS);
        h
    }

    #[test]
    fn startup_grows_cwnd_by_the_acked_bytes_and_paces_at_high_gain() {
        let mut h = fresh();
        let high = 2.0 / LN_2;
        // Rounds delivering 10, 20, 40, 80 segments in 50 ms each: rates double.
        let mut flight = 20 * u64::from(MSS);
        for _ in 0..4 {
            let before = h.w.cwnd;
            let acked = (h.snd_max - h.snd_una) as f64;
            round(&mut h, 50 * MS, 50 * MS, flight);
            assert_eq!(var(&h, "mode"), 0.0);
            assert_eq!(var(&h, "pacing_gain"), high);
            // Below the target 2.885 * BDP cwnd grows by the bytes acked.
            let bw = rate(acked / SEG, 50 * MS);
            assert_eq!(var(&h, "btl_bw_bytes_per_s"), bw);
            let target = (high * bw * 0.050 / SEG).ceil() * SEG;
            assert!(before < target);
            assert_eq!(h.w.cwnd, before + acked);
            // Pacing never decreases in STARTUP: high_gain * BtlBw once that exceeds the
            // initial high_gain * cwnd / SRTT.
            let init = high * rate(10.0, 50 * MS);
            assert_eq!(h.w.pacing_rate, Some((high * bw).max(init)));
            flight *= 2;
        }
    }

    #[test]
    fn a_bandwidth_plateau_of_three_rounds_switches_to_drain() {
        let mut h = fresh();
        let flight = 20 * u64::from(MSS);
        // Rounds of 100 ms with RTprop 50 ms: the pipe (20 segments) stays above one BDP
        // (10 segments), so DRAIN is observable. Round 1 delivers the 10 initial segments,
        // round 2 sets full_bw at 20 segments per round, then BtlBw stops growing.
        round(&mut h, 100 * MS, 50 * MS, flight);
        round(&mut h, 100 * MS, 50 * MS, flight);
        assert_eq!(var(&h, "full_bw_count"), 0.0);
        for n in 1..=3 {
            assert_eq!(
                var(&h, "mode"),
                0.0,
                "still STARTUP before plateau round {n}"
            );
            round(&mut h, 100 * MS, 50 * MS, flight);
            assert_eq!(var(&h, "full_bw_count"), n as f64);
        }
        assert_eq!(
            var(&h, "mode"),
            1.0,
            "DRAIN after three rounds without 25 % growth"
        );
        let drain_gain = 1.0 / (2.0 / LN_2);
        assert_eq!(var(&h, "pacing_gain"), drain_gain);
        assert_eq!(h.w.pacing_rate, Some(drain_gain * rate(20.0, 100 * MS)));
        // DRAIN ends when inflight falls to one BDP: then PROBE_BW at the start phase.
        round(&mut h, 100 * MS, 50 * MS, 0);
        assert_eq!(var(&h, "mode"), 2.0);
        assert_eq!(var(&h, "cycle_idx"), 2.0);
    }

    #[test]
    fn probe_bw_paces_at_the_phase_gain_times_the_windowed_max_rate() {
        let p = BbrParams {
            probe_bw_start_phase: 0,
            ..BbrParams::default()
        };
        let mut h = Harness::new(build(&p));
        h.snd_max = 10 * u64::from(MSS);
        // Plateau to reach PROBE_BW: 20 segments per round.
        let flight = 20 * u64::from(MSS);
        for _ in 0..5 {
            round(&mut h, 50 * MS, 50 * MS, flight);
        }
        round(&mut h, 50 * MS, 50 * MS, 0);
        assert_eq!(var(&h, "mode"), 2.0);
        // Samples of every round so far, bytes/s, computed independently.
        let mut samples: Vec<f64> = vec![rate(10.0, 50 * MS)];
        samples.extend([rate(20.0, 50 * MS); 5]);
        // One high round (30 segments in 50 ms), then ten rounds of 10 segments.
        h.snd_max = h.snd_una + 30 * u64::from(MSS);
        round(&mut h, 50 * MS, 50 * MS, 10 * u64::from(MSS));
        samples.push(rate(30.0, 50 * MS));
        for _ in 0..12 {
            round(&mut h, 50 * MS, 50 * MS, 10 * u64::from(MSS));
            samples.push(rate(10.0, 50 * MS));
            // The max over the rounds within the window: now - r <= 10.
            let n = samples.len();
            let expect = samples[n.saturating_sub(11)..]
                .iter()
                .cloned()
                .fold(0.0, f64::max);
            assert_eq!(var(&h, "btl_bw_bytes_per_s"), expect);
            let gain = var(&h, "pacing_gain");
            assert!([1.25, 0.75, 1.0].contains(&gain));
            assert_eq!(h.w.pacing_rate, Some(gain * expect));
        }
        // The 30-segment round has aged out.
        assert_eq!(var(&h, "btl_bw_bytes_per_s"), rate(10.0, 50 * MS));
    }

    #[test]
    fn probe_bw_cycles_through_the_eight_gains() {
        let p = BbrParams {
            probe_bw_start_phase: 0,
            ..BbrParams::default()
        };
        let mut h = Harness::new(build(&p));
        h.snd_max = 10 * u64::from(MSS);
        for _ in 0..5 {
            round(&mut h, 50 * MS, 50 * MS, 20 * u64::from(MSS));
        }
        round(&mut h, 50 * MS, 50 * MS, 0);
        let mut gains = vec![var(&h, "pacing_gain")];
        // Each ACK 60 ms after the last (> RTprop = 50 ms) with a large inflight: every
        // phase lasts exactly one ACK (1.25 ends because inflight >= 1.25 BDP).
        for _ in 0..8 {
            round(&mut h, 60 * MS, 50 * MS, 100 * u64::from(MSS));
            gains.push(var(&h, "pacing_gain"));
        }
        assert_eq!(gains, vec![1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.25]);
    }

    #[test]
    fn probe_rtt_after_ten_seconds_without_a_lower_rtt_holds_four_segments() {
        let mut h = fresh();
        round(&mut h, 50 * MS, 50 * MS, 20 * u64::from(MSS));
        // RTT samples above the minimum for more than 10 s.
        for _ in 0..210 {
            round(&mut h, 50 * MS, 60 * MS, 20 * u64::from(MSS));
            if var(&h, "mode") == 3.0 {
                break;
            }
        }
        assert_eq!(var(&h, "mode"), 3.0);
        assert!(h.now > 10_000 * MS);
        assert_eq!(h.w.cwnd, 4.0 * SEG);
        assert_eq!(var(&h, "pacing_gain"), 1.0);
        // Inflight at 4 segments, then 200 ms and a round later PROBE_RTT ends.
        let entered = h.now;
        while var(&h, "mode") == 3.0 {
            round(&mut h, 50 * MS, 60 * MS, 4 * u64::from(MSS));
            assert!(h.now < entered + 1000 * MS);
        }
        assert!(h.now > entered + 200 * MS);
        assert!(h.w.cwnd > 4.0 * SEG, "the saved window is restored");
    }

    #[test]
    fn fast_retransmit_conserves_packets_and_recovery_exit_restores_the_window() {
        let mut h = fresh();
        for _ in 0..3 {
            round(&mut h, 50 * MS, 50 * MS, 20 * u64::from(MSS));
        }
        let saved = h.w.cwnd;
        // Three duplicate ACKs without SACK: each delivers nothing, cwnd stays.
        for _ in 0..3 {
            h.dup_ack();
        }
        assert_eq!(h.w.cwnd, saved);
        let pipe = (h.snd_max - h.snd_una) - 3 * u64::from(MSS);
        let v = h.loss(Loss::FastRetransmit);
        assert_eq!(v, Verdict::None);
        // cwnd = packets in flight + 1 acked (Linux); ssthresh reports the saved window.
        assert_eq!(h.w.cwnd, pipe as f64 + SEG);
        assert_eq!(h.w.ssthresh, saved);
        h.dupacks = 0;
        h.exit_recovery();
        assert_eq!(h.w.cwnd, saved.max(pipe as f64 + SEG));
    }

    #[test]
    fn rounds_and_rate_samples_continue_on_sacked_data_during_recovery() {
        // STARTUP, three rounds of growth, then a loss: the cumulative ACK stalls, but
        // duplicate ACKs that SACK data sent after the round began end rounds, and three
        // rounds at the same rate fill the pipe (Linux: rounds count delivered packets).
        let mut h = fresh();
        for _ in 0..3 {
            round(&mut h, 50 * MS, 50 * MS, 20 * u64::from(MSS));
        }
        h.loss(Loss::FastRetransmit);
        h.in_recovery = true;
        let seg = u64::from(MSS);
        let mut total = h.snd_una;
        for _ in 0..4 {
            // One round: 20 segments SACKed over 50 ms, each sample 20 segments / 50 ms.
            let round_start = total;
            for _ in 0..20 {
                h.now += 50 * MS / 20;
                total += seg;
                let s = AckSample {
                    ack: h.snd_una,
                    dup: true,
                    in_recovery: true,
                    delivered: h.snd_una,
                    delivered_bytes: seg,
                    delivered_total: total,
                    rate: Some(RateSample {
                        delivered: 20 * seg,
                        interval: 50 * MS,
                        prior_delivered: round_start,
                        ..RateSample::default()
                    }),
                    ..AckSample::default()
                };
                h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
            }
        }
        assert_eq!(var(&h, "round_count"), 7.0);
        assert_ne!(var(&h, "mode"), 0.0, "STARTUP ended while the cumulative ACK stalled");
    }

    #[test]
    fn a_timeout_sets_one_segment_and_the_window_returns_after_the_loss_is_repaired() {
        let mut h = fresh();
        for _ in 0..3 {
            round(&mut h, 50 * MS, 50 * MS, 20 * u64::from(MSS));
        }
        let saved = h.w.cwnd;
        h.loss(Loss::Timeout { consecutive: 1 });
        assert_eq!(h.w.cwnd, SEG);
        assert_eq!(h.w.ssthresh, saved);
        h.loss(Loss::Timeout { consecutive: 2 });
        assert_eq!(h.w.ssthresh, saved);
        // The ACK covering everything sent before the RTO restores the saved window.
        round(&mut h, 50 * MS, 50 * MS, 0);
        assert!(h.w.cwnd >= saved, "{} < {saved}", h.w.cwnd);
    }

}
