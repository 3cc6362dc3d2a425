//! The TCP sender: sequence space, RFC 6298 retransmission timer, RFC 5681 fast
//! retransmit / fast recovery with window inflation (or fast retransmit alone, for
//! algorithms that forgo fast recovery), RFC 6582 partial ACKs, RFC 3042 limited
//! transmit, go-back-N after a timeout. The congestion-control algorithm owns
//! cwnd and ssthresh; this module calls its hooks from exactly one place per event.
//!
//! With `sack = true`: a scoreboard of the receiver's RFC 2018 blocks, RFC 6675 loss
//! recovery (the duplicate-ACK count or IsLost(SND.UNA) starts it; NextSeg picks what
//! to send while cwnd - pipe allows) or RFC 6937 PRR over the same pipe, and RFC 2883
//! D-SACKs counted. After a timeout the SACK information is kept and go-back-N skips
//! SACKed segments (as Linux does). With `tail_loss_probe = true` the RFC 8985 §7 probe
//! timeout shares the retransmission timer's slot (`sender/probe.rs`, `tlp.rs`).
//!
//! With `handshake = true` the sender first sends a SYN, retransmitted with the backed-off
//! initial RTO until the SYN-ACK arrives (RFC 6298 §2.1, §5.7); the SYN-ACK gives the
//! first RTT sample unless the SYN was resent, and data follows at once: after a pure ACK
//! with `handshake_ack` (ns-3, Linux), else the first data segment acknowledges the SYN-ACK.
//!
//! With `sack = false` and `reno_sack = true` (the `ns3` profile) an algorithm with NewReno
//! recovery recovers as ns-3.44's TcpSocketBase does without SACK: invented SACKs from
//! duplicate ACKs (`reno_sack.rs`) give the pipe, cwnd = ssthresh through recovery (no
//! inflation), the head is resent on every partial ACK, and after a timeout everything
//! sent is presumed lost and resent in order (CA_LOSS), with duplicate ACKs ignored until
//! the ACK reaches the timeout's SND.MAX (tcp-socket-base.cc:1745-1748); the ACK that
//! reaches it is credited to the algorithm only above that point (2219-2233). Not
//! reproduced (an independent reading of the source; effects untested): ns-3 tells the
//! algorithm of a duplicate ACK after its recovery bookkeeping and of a partial ACK as one
//! segment after the retransmission, wtcp before and with the ACK's bytes; in CA_DISORDER
//! ns-3 credits the segments less the duplicates counted; NextSeg sends a segment cut to the
//! receive window where wtcp waits for a whole one.
//!
//! Simplifications (documented in docs/model.md): without the handshake data starts at the
//! flow's start time with the initial window; segments always start at multiples of the
//! MSS; no zero-window probing (the receive buffer is consumed at once).

use std::collections::VecDeque;

use wtcp_cc::{AckSample, CongestionControl, Ctx, HostShared, Loss, RecoveryStyle, Requests, RttEstimator, Signal, Verdict, Window};

use super::cwnd_use::CwndUse;
use super::prr::{Prr, ReductionBound};
use super::rack::{Entry, Rack};
use super::rate::{AckRate, RateEstimator, SentSnapshot};
use super::reno_sack::RenoSack;
use super::scoreboard::{Scoreboard, SackUpdate};
use super::tlp::Tlp;
use crate::events::{Event, EventQueue, LazyTimer};
use crate::metrics::{LossCause, Oracle, TcpCounters};
use crate::packet::{Packet, PacketKind};
use crate::scenario::{BackoffReset, LossDetection, LossExitCredit, PartialAckTimer, PrrExtraSegment, RecoverFs, Recovery, RttSampling, TcpConfig, TimeoutCountReset, TimeoutInRecovery};
use crate::time::Time;

mod probe;

/// What an ACK is to PRR (`sack_send`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckKind {
    /// A duplicate ACK (SND.UNA unchanged).
    Duplicate,
    /// It covers retransmitted data during recovery.
    RetransmissionAcked,
    /// Anything else (a new ACK of original data; a pacing tick).
    None,
}

/// Per-segment transmit record, from SND.UNA up (Karn's rule needs it).
#[derive(Clone, Copy, Debug, Default)]
struct SegTx {
    sent_at: Time,
    tx_count: u32,
    /// Delivery state at the last send, for the rate sample of the ACK that delivers it.
    rate: SentSnapshot,
}

/// Which rule of RFC 6675's NextSeg() chose a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NextSeg {
    /// (1) a lost segment above HighRxt.
    Lost,
    /// (2) new data.
    NewData,
    /// (3) an unSACKed, not yet lost segment below the highest SACKed byte.
    Unlost,
    /// (4) the rescue retransmission.
    Rescue,
}

/// F-RTO (RFC 5682 §2) progress after a timeout.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Frto {
    Off,
    /// Step 2: waiting for the first ACK after the timeout's retransmission.
    AwaitFirst { prior: Window },
    /// Step 3: two new segments were sent; waiting for the next ACK.
    AwaitSecond { prior: Window },
}

/// A loss event the sender reports for traces.
#[derive(Clone, Copy, Debug)]
pub struct LossEvent {
    pub timeout: bool,
    pub seq: u64,
    pub cause: LossCause,
    pub verdict: Verdict,
}

/// What a sender hook may touch besides the sender itself.
pub struct SenderIo<'a> {
    pub now: Time,
    pub ev: &'a mut EventQueue,
    pub out: &'a mut Vec<Packet>,
    pub host: &'a mut HostShared,
    pub oracle: &'a mut Oracle,
    pub counters: &'a mut TcpCounters,
    pub losses: &'a mut Vec<LossEvent>,
}

#[derive(Debug)]
pub struct Sender {
    flow: u32,
    src: u32,
    dst: u32,
    cfg: TcpConfig,
    mss: u64,
    cc: Box<dyn CongestionControl>,
    pub win: Window,
    pub rtt: RttEstimator,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    /// Bytes the application has handed over (`u64::MAX`: unlimited).
    data_end: u64,
    /// Total bytes of the transfer, if limited.
    total: Option<u64>,
    started: bool,
    dupacks: u32,
    pub in_recovery: bool,
    /// RFC 6582 `recover` + 1: SND.MAX when the last recovery or timeout began.
    recover: Option<u64>,
    partial_acks: u32,
    /// Fast-recovery inflation added on top of cwnd (RFC 5681 §3.2 steps 3-4).
    pub inflation: f64,
    rwnd: u64,
    consecutive_rto: u32,
    /// SND.MAX when the current run of duplicate ACKs began (limited transmit excluded
    /// from FlightSize, RFC 5681 §3.2 step 2).
    snd_max_at_first_dup: u64,
    segs: VecDeque<SegTx>,
    /// Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation, Linux tcp_rate.c).
    rate: RateEstimator,
    /// The segments the ACK being processed delivered, until its sample is generated.
    ack_rate: Option<AckRate>,
    /// Without SACK: bytes credited as delivered by duplicate ACKs (Linux `sacked_out`).
    reno_dup_credit: u64,
    /// RFC 8985 RACK loss detection (`tcp.loss_detection = "rack"`) and its timer.
    rack: Option<Rack>,
    rack_timer: LazyTimer,
    /// One timed segment per RTT: (end sequence, send time).
    timed: Option<(u64, Time)>,
    /// `rtt_sampling = "ns3"`: SND.MAX at the last timeout; data below it has no
    /// transmission record to time (ns-3 clears its RTT history at a timeout).
    rtt_records_from: u64,
    rto_timer: LazyTimer,
    /// The retransmission timer holds the tail loss probe's timeout (Linux
    /// `icsk_pending == ICSK_TIME_LOSS_PROBE`, `tlp.rs`).
    probe_armed: bool,
    /// The tail loss probe's episode (`tcp.tail_loss_probe` with SACK).
    tlp: Option<Tlp>,
    /// The ACK being processed showed that the probe repaired a loss (`probe_repair`).
    probe_repair_pending: bool,
    /// The recovery point of the timeout F-RTO last found spurious (`past_recovery_point`).
    frto_undone: Option<u64>,
    requests: Requests,
    frto: Frto,
    /// New segments F-RTO may send beyond the window (RFC 5682 §2 step 2b).
    frto_allowance: u64,
    /// End of the segment the last timeout retransmitted.
    rto_head_end: u64,
    /// Pacing: the earliest time the next segment may leave, and its timer.
    next_send_at: Time,
    pace_timer: LazyTimer,
    /// An ECN echo was answered; the next new segment carries CWR (RFC 3168 §6.1.2).
    cwr_pending: bool,
    /// Last time SRTT was integrated (for the time-averaged SRTT).
    srtt_since: Option<Time>,
    /// RFC 7323 §4.3 TS.Recent: the latest TSval of the peer's ACKs, echoed as TSecr.
    ts_recent: Time,
    /// The SACK scoreboard (RFC 6675), when SACK is on.
    sb: Option<Scoreboard>,
    /// PRR state of the current recovery (RFC 6937), with `recovery = "prr"`.
    prr: Option<Prr>,
    /// The fast retransmission that opened this recovery, not yet counted in PRR's
    /// prr_out: the ACK that entered recovery computes its sending allowance first.
    prr_entry_retransmission: u64,
    /// Whether the flow is cwnd-limited (`tcp.cwnd_limited`, `cwnd_use.rs`).
    cwnd_use: CwndUse,
    /// ns-3's scoreboard without SACK (`reno_sack`), for NewReno-style recovery.
    reno: Option<RenoSack>,
    /// After a timeout, until the ACK reaches `recover` (ns-3's CA_LOSS): with `reno_sack`,
    /// or with SACK and `loss_exit_credit = "above_recovery_point"`.
    in_loss: bool,
    /// `reno_sack`: bytes added to the pipe the algorithm sees when recovery starts (ns-3's
    /// EnterRecovery passes BytesInFlight + one segment, tcp-socket-base.cc:1714-1717).
    pipe_bonus: u64,
    /// The SYN-ACK has arrived (always true without the handshake).
    established: bool,
    /// When the first SYN left and how many were sent.
    syn_sent_at: Time,
    syns_sent: u32,
}

impl Sender {
    pub fn new(flow: u32, src: u32, dst: u32, cfg: TcpConfig, cc: Box<dyn CongestionControl>, total: Option<u64>) -> Self {
        let mss = u64::from(cfg.mss);
        let (cfg_sack, dupack_threshold, handshake, cfg_cwnd_limited) = (cfg.sack, cfg.dupack_threshold, cfg.handshake, cfg.cwnd_limited);
        let tlp = cfg.sack && cfg.tail_loss_probe;
        let reno = (cfg.reno_sack && !cfg.sack && cc.recovery_style() == RecoveryStyle::NewReno).then(|| RenoSack::new(mss));
        // RACK judges SACKed data: without SACK the duplicate-ACK rule (as Linux). An
        // algorithm without fast recovery keeps it too (no recovery episode bounds RACK's
        // marks there).
        let rack = cfg.sack && cfg.loss_detection == LossDetection::Rack && cc.recovery_style() != RecoveryStyle::FastRetransmitOnly;
        Sender {
            flow,
            src,
            dst,
            rtt: RttEstimator::new(cfg.rtt),
            win: Window::new(cfg.initial_cwnd_segments * mss as f64, f64::INFINITY),
            cfg,
            mss,
            cc,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            data_end: 0,
            total,
            started: false,
            dupacks: 0,
            in_recovery: false,
            recover: None,
            partial_acks: 0,
            inflation: 0.0,
            rwnd: u64::MAX,
            consecutive_rto: 0,
            snd_max_at_first_dup: 0,
            segs: VecDeque::new(),
            rate: RateEstimator::default(),
            ack_rate: None,
            reno_dup_credit: 0,
            rack: rack.then(Rack::default),
            rack_timer: LazyTimer::default(),
            timed: None,
            rtt_records_from: 0,
            rto_timer: LazyTimer::default(),
            probe_armed: false,
            tlp: tlp.then(Tlp::default),
            probe_repair_pending: false,
            frto_undone: None,
            requests: Requests::default(),
            srtt_since: None,
            ts_recent: 0,
            cwr_pending: false,
            frto: Frto::Off,
            frto_allowance: 0,
            rto_head_end: 0,
            next_send_at: 0,
            pace_timer: LazyTimer::default(),
            sb: cfg_sack.then(|| {
                let sb = Scoreboard::new(mss, dupack_threshold);
                if rack { sb.with_rack() } else { sb }
            }),
            prr: None,
            prr_entry_retransmission: 0,
            cwnd_use: CwndUse::new(cfg_cwnd_limited),
            reno,
            in_loss: false,
            pipe_bonus: 0,
            established: !handshake,
            syn_sent_at: 0,
            syns_sent: 0,
        }
    }

    /// Bytes of a finite transfer (`None`: unlimited).
    pub fn total(&self) -> Option<u64> {
        self.total
    }

    pub fn cc(&self) -> &dyn CongestionControl {
        self.cc.as_ref()
    }
    /// Bytes in flight (RFC 6675 §4 SetPipe): with SACK from the scoreboard; without it
    /// each duplicate ACK since the last new ACK reports one segment gone, and at the fast
    /// retransmit the head is presumed lost (not yet resent).
    fn pipe(&self) -> u64 {
        let outstanding = self.snd_max - self.snd_una;
        match (&self.sb, &self.reno) {
            (Some(sb), _) => sb.pipe(self.snd_una, self.snd_max),
            (None, Some(rs)) => rs.in_flight(self.snd_una, self.snd_max) + self.pipe_bonus,
            (None, None) => {
                let head_lost = self.dupacks >= self.cfg.dupack_threshold && !self.in_recovery;
                outstanding.saturating_sub((u64::from(self.dupacks) + u64::from(head_lost)) * self.mss)
            }
        }
    }

    /// The window the sender sends under: PRR's during a PRR recovery, else cwnd with any
    /// RFC 5681 inflation.
    fn window_in_force(&self) -> f64 {
        match self.prr.as_ref().and_then(Prr::window) {
            Some(w) => w as f64,
            None => self.win.cwnd + self.inflation,
        }
    }

    /// The end of a send pass (`cwnd_use.rs`, Linux's tcp_cwnd_validate), one that began
    /// with unsent data (tcp_push_pending_frames calls tcp_write_xmit only then).
    fn end_send_pass(&mut self, snd_max_before: u64) {
        if !self.cwnd_use.needs_passes() || snd_max_before >= self.data_end {
            return;
        }
        let (window, pipe) = (self.window_in_force(), self.pipe());
        self.cwnd_use.on_pass_end(self.snd_max > snd_max_before, window, pipe, self.mss, self.snd_una, self.snd_max);
    }

    /// Calls an algorithm hook with a context built from the sender's state, then
    /// applies the hook's requests.
    fn call_cc<R>(&mut self, io: &mut SenderIo, f: impl FnOnce(&mut dyn CongestionControl, &mut Window, &mut Ctx) -> R) -> R {
        let outstanding = self.snd_max - self.snd_una;
        let flight_size = if self.dupacks > 0 && !self.in_recovery { self.snd_max_at_first_dup - self.snd_una } else { outstanding };
        let pipe = self.pipe();
        let mut cx = Ctx {
            now: io.now,
            mss: self.cfg.mss,
            flight_size,
            pipe,
            snd_una: self.snd_una,
            snd_max: self.snd_max,
            segments_sent: io.counters.segments_sent,
            cwnd_limited: self.cwnd_use.limited(self.win.cwnd, self.win.ssthresh),
            rtt: &self.rtt,
            host: io.host,
            requests: &mut self.requests,
        };
        let r = f(self.cc.as_mut(), &mut self.win, &mut cx);
        // Contract: the window never falls below one segment.
        self.win.cwnd = self.win.cwnd.max(self.mss as f64);
        let requests = std::mem::take(&mut self.requests);
        if requests.reset_rto_backoff {
            self.rtt.reset_backoff();
            if self.rto_timer.is_armed() {
                self.restart_rto(io);
            }
        }
        if requests.mark_app_limited {
            self.rate.on_app_limited(pipe);
        }
        r
    }

    // ---- application ----

    /// The application starts: RFC 5681 §3.1 initial window and ssthresh, then send.
    pub fn start(&mut self, io: &mut SenderIo) {
        if !self.established {
            if self.syns_sent == 0 {
                self.send_syn(io);
            }
            return; // the window is set up when the SYN-ACK arrives
        }
        self.started = true;
        self.data_end = self.total.unwrap_or(u64::MAX);
        self.win.cwnd = self.cfg.initial_cwnd_segments * self.mss as f64;
        self.win.ssthresh = self.cfg.initial_ssthresh_segments.map_or(f64::INFINITY, |s| s * self.mss as f64);
        self.call_cc(io, |cc, w, cx| cc.init(w, cx));
        if self.syns_sent > 1 {
            // RFC 5681 §3.1: after a lost SYN or SYN-ACK the initial window "MUST" be one
            // segment, whatever the algorithm's own initial window.
            self.win.cwnd = self.mss as f64;
        }
        let snd_max_before = self.snd_max;
        self.send_available(io);
        self.end_send_pass(snd_max_before);
    }

    /// The application stops supplying data (already-sent data is still recovered).
    pub fn stop_supply(&mut self) {
        self.data_end = self.data_end.min(self.snd_max);
    }

    /// The application supplies data again (on/off patterns).
    pub fn resume_supply(&mut self, io: &mut SenderIo) {
        if self.started {
            self.data_end = self.total.unwrap_or(u64::MAX);
            let snd_max_before = self.snd_max;
            self.send_available(io);
            self.end_send_pass(snd_max_before);
        }
    }

    // ---- connection set-up ----

    /// Send (or resend) the SYN and arm the timer with the (backed-off) initial RTO.
    fn send_syn(&mut self, io: &mut SenderIo) {
        if self.syns_sent == 0 {
            self.syn_sent_at = io.now;
        }
        self.syns_sent += 1;
        io.counters.syns_sent += 1;
        let mut p = Packet::new(PacketKind::Syn, self.flow, self.src, self.dst, self.cfg.syn_size(), io.now);
        p.ts_val = io.now;
        io.out.push(p);
        self.restart_rto(io);
    }

    /// The SYN-ACK arrived: the connection is open and data may flow.
    pub fn on_syn_ack(&mut self, p: &Packet, io: &mut SenderIo) {
        if self.established {
            return; // a duplicate SYN-ACK
        }
        self.established = true;
        self.stop_rto(io);
        if self.cfg.timestamps {
            self.ts_recent = p.ts_val;
        }
        if self.cfg.rtt_sampling == RttSampling::Ns3 {
            // ns-3.44 times the SYN's record even after a resent SYN (a record of no length
            // is never marked resent, tcp-socket-base.cc:2878-2882, 3371-3379): from the
            // first SYN, or the echoed TSval in milliseconds.
            let sample = if self.cfg.timestamps { ns3_timestamp_rtt(io.now, p.ts_ecr) } else { io.now - self.syn_sent_at };
            self.rtt.on_sample(sample);
            self.srtt_since = Some(io.now);
        } else if self.syns_sent == 1 {
            // Karn: only an unambiguous SYN gives a sample (RFC 6298 §3).
            self.rtt.on_sample(io.now - self.syn_sent_at);
            self.srtt_since = Some(io.now);
        } else {
            // RFC 6298 §5.7: the SYN was resent, so the RTO restarts at 3 s.
            self.rtt.reinitialise_after_syn_loss(3_000_000_000);
        }
        io.counters.handshake_s = Some((io.now - self.syn_sent_at) as f64 / 1e9);
        if self.cfg.handshake_ack {
            // RFC 9293 §3.5: the handshake's third segment, a pure ACK ahead of the data
            // (ns-3 ProcessSynSent, tcp-socket-base.cc:2373 then 2389; Linux tcp_rcv_synsent_state_process).
            let mut a = Packet::new(PacketKind::HandshakeAck, self.flow, self.src, self.dst, self.cfg.packet_overhead(), io.now);
            a.ts_val = io.now;
            a.ts_ecr = p.ts_val;
            io.out.push(a);
        }
        self.start(io);
    }

    // ---- transmission ----

    fn send_window(&self) -> u64 {
        let mut w = self.win.cwnd + self.inflation;
        // RFC 3042: the 1st and 2nd duplicate ACKs each allow one new segment.
        if self.cfg.limited_transmit && !self.in_recovery && self.dupacks > 0 && self.dupacks < self.cfg.dupack_threshold {
            w += (self.dupacks.min(2) as u64 * self.mss) as f64;
        }
        (w.max(0.0) as u64).min(self.rwnd)
    }

    /// Send new data while the window, the receive window and the send buffer allow.
    fn send_available(&mut self, io: &mut SenderIo) {
        if self.reno.is_some() {
            return self.reno_send(io);
        }
        if !self.started || (self.in_recovery && self.sb.is_some()) {
            return; // RFC 6675 recovery sends through `sack_send`
        }
        let window = self.send_window();
        self.rack_resend_below_nxt(window, io);
        let snd_max_before = self.snd_max;
        while self.snd_nxt < self.data_end {
            let len = self.mss.min(self.data_end - self.snd_nxt);
            let mut outstanding = self.snd_nxt - self.snd_una;
            if let Some(sb) = self.sb.as_ref().filter(|_| self.snd_nxt < self.snd_max) {
                // Going back N after a timeout: SACKed segments are skipped and not in flight.
                if sb.sacked().covers(self.snd_nxt, self.snd_nxt + len) {
                    self.snd_nxt += len;
                    continue;
                }
                outstanding -= sb.sacked().bytes_above(self.snd_una) - sb.sacked().bytes_above(self.snd_nxt);
            }
            if outstanding + len > window || outstanding + len > self.cfg.send_buffer_bytes {
                // F-RTO step 2b may send new data beyond the window.
                if self.frto_allowance == 0 || self.snd_nxt < self.snd_max {
                    break;
                }
                self.frto_allowance -= 1;
            }
            if self.pace_blocked(io) {
                break;
            }
            self.pace_sent(len, io);
            self.transmit(self.snd_nxt, len, io);
            if self.snd_nxt < self.snd_max {
                if let Some(sb) = self.sb.as_mut() {
                    sb.forget_lost(self.snd_nxt, len); // going back N: in flight again
                }
            }
            self.snd_nxt += len;
            self.snd_max = self.snd_max.max(self.snd_nxt);
        }
        if self.snd_nxt >= self.data_end {
            self.check_app_limited();
        }
        if self.snd_max > snd_max_before {
            self.probe_after_new_data(io);
        }
    }

    /// Out of data: if the window has room, the application limits the sending rate and
    /// the rate samples until this flight is delivered say so (Linux
    /// `tcp_rate_check_app_limited`: cwnd not full, no lost segment waiting).
    fn check_app_limited(&mut self) {
        let sacked = self.sb.as_ref().map_or(0, |sb| sb.sacked().bytes_above(self.snd_una));
        let in_flight = (self.snd_max - self.snd_una).saturating_sub(sacked);
        if !self.in_recovery && (in_flight as f64) < self.win.cwnd {
            self.rate.on_app_limited(in_flight);
        }
    }

    pub fn on_pace_event(&mut self, io: &mut SenderIo) {
        if self.pace_timer.fire(io.now, io.ev, Event::Pace { flow: self.flow }) {
            let snd_max_before = self.snd_max;
            if self.in_recovery && self.sb.is_some() {
                self.sack_send(0, AckKind::None, io);
            }
            self.send_available(io);
            self.end_send_pass(snd_max_before);
        }
    }

    /// Pacing: the next segment may not leave yet (the timer is armed for it).
    fn pace_blocked(&mut self, io: &mut SenderIo) -> bool {
        let paced = self.win.pacing_rate.is_some_and(|r| r > 0.0);
        if paced && io.now < self.next_send_at {
            self.pace_timer.set(Some(self.next_send_at), io.ev, Event::Pace { flow: self.flow });
            return true;
        }
        false
    }

    /// Pacing: a segment of `len` payload bytes leaves now; the next no earlier than its
    /// wire size / rate later.
    fn pace_sent(&mut self, len: u64, io: &SenderIo) {
        if let Some(rate) = self.win.pacing_rate.filter(|r| *r > 0.0) {
            let size = len as f64 + f64::from(self.cfg.packet_overhead());
            // Saturating: a rate near zero means "never", not a time that wraps to the past.
            self.next_send_at = io.now.saturating_add((size / rate * 1e9) as Time);
        }
    }

    /// Retransmit the segment at SND.UNA (fast retransmit, partial ACK, timeout).
    fn retransmit_head(&mut self, io: &mut SenderIo) {
        let len = self.mss.min(self.snd_max - self.snd_una);
        if len > 0 {
            self.transmit(self.snd_una, len, io);
        }
    }

    fn transmit(&mut self, seq: u64, len: u64, io: &mut SenderIo) {
        self.transmit_copy(seq, len, true, io);
    }

    /// Send `len` bytes at `seq`; a retransmission counts as lost for the delivery rate
    /// when `presumed_lost` (not a tail loss probe's).
    fn transmit_copy(&mut self, seq: u64, len: u64, presumed_lost: bool, io: &mut SenderIo) {
        let idx = ((seq - self.snd_una) / self.mss) as usize;
        // New data is the next segment: one push (VecDeque::resize's general path cost 75
        // instructions a segment on reference-simple2).
        if idx == self.segs.len() {
            self.segs.push_back(SegTx::default());
        } else if idx > self.segs.len() {
            self.segs.resize(idx + 1, SegTx::default());
        }
        let outstanding = self.snd_max - self.snd_una;
        let retransmission = seq < self.snd_max;
        if retransmission && presumed_lost {
            self.rate.on_lost(len);
        }
        // Linux tx.in_flight: the pipe with this segment counted once.
        let counted = retransmission
            && match (&self.sb, &self.reno) {
                (Some(sb), _) => sb.counts_in_pipe(seq, len),
                (None, Some(_)) => false,
                (None, None) => true,
            };
        let in_flight = self.pipe() + if counted { 0 } else { len };
        self.cwnd_use.on_send(self.window_in_force(), in_flight, self.mss);
        let seg = &mut self.segs[idx];
        self.rate.on_sent(&mut seg.rate, io.now, outstanding, in_flight);
        if let Some(rack) = self.rack.as_mut() {
            rack.on_sent(seq, io.now);
        }
        seg.tx_count += 1;
        seg.sent_at = io.now;
        let tx_no = seg.tx_count;
        if retransmission {
            io.counters.retransmitted_segments += 1;
            if let Some(rs) = self.reno.as_mut() {
                rs.on_retransmit(self.snd_una, seq, len);
            }
            if self.timed.is_some_and(|(end, _)| seq < end) {
                self.timed = None; // Karn: the timed segment is ambiguous now
            }
        } else if self.timed.is_none() && self.cfg.rtt_sampling == RttSampling::OnePerRtt {
            self.timed = Some((seq + len, io.now));
        }
        if retransmission && seq == self.snd_una && self.cfg.rearm_rto_on_head_retransmit {
            self.restart_rto(io); // Linux tcp_xmit_retransmit_queue: the head resent
        }
        if io.oracle.on_send(seq, tx_no) {
            io.counters.unnecessary_retransmissions += 1;
        }
        let size = len as u32 + self.cfg.packet_overhead();
        io.counters.segments_sent += 1;
        let mut p = Packet::new(PacketKind::Data, self.flow, self.src, self.dst, size, io.now);
        p.seq = seq;
        p.len = len as u32;
        p.tx_no = tx_no;
        p.ts_val = io.now;
        if self.cfg.timestamps {
            p.ts_ecr = self.ts_recent;
        }
        p.ect = self.cfg.ecn;
        if !retransmission && self.cwr_pending {
            p.cwr = true;
            self.cwr_pending = false;
        }
        io.out.push(p);
        // RFC 6298 §5.1: start the timer when data is sent and it is not running.
        if !self.rto_timer.is_armed() {
            self.restart_rto(io);
        }
    }

    fn restart_rto(&mut self, io: &mut SenderIo) {
        let at = io.now + self.rtt.rto();
        self.probe_armed = false;
        self.rto_timer.set(Some(at), io.ev, Event::Rto { flow: self.flow });
    }

    fn stop_rto(&mut self, io: &mut SenderIo) {
        self.probe_armed = false;
        self.rto_timer.set(None, io.ev, Event::Rto { flow: self.flow });
    }

    // ---- ACK processing ----

    /// Fold SRTT into the time-averaged SRTT up to `now`.
    fn integrate_srtt(&mut self, now: Time, counters: &mut TcpCounters) {
        if let (Some(since), Some(srtt)) = (self.srtt_since, self.rtt.srtt()) {
            let dt = now - since;
            counters.srtt_area += srtt as f64 * dt as f64;
            counters.srtt_span += dt;
        }
        if self.rtt.srtt().is_some() {
            self.srtt_since = Some(now);
        }
    }

    /// ns-3.44's EstimateRtt (tcp-socket-base.cc:3717-3807): the oldest transmission record
    /// must be covered by the ACK; the records start at the data first sent after the last
    /// timeout. With timestamps the sample is the echo's age in whole milliseconds (TSval
    /// counts milliseconds, tcp-option-ts.cc:123-146; 0 becomes 1 us), otherwise the
    /// record's age if it was never retransmitted (RFC 6298 §3, Karn).
    fn ns3_rtt_sample(&self, p: &Packet, now: Time) -> Option<Time> {
        let first = self.snd_una.max(self.rtt_records_from);
        if first >= self.snd_max {
            return None; // no record: nothing first sent since the timeout (or nothing left)
        }
        let oldest = first / self.mss;
        // The record ends at the segment's end, or at the end of the data for a short last one.
        if p.ack < ((oldest + 1) * self.mss).min(self.snd_max) {
            return None;
        }
        let record = self.segs.get((oldest - self.snd_una / self.mss) as usize)?;
        if self.cfg.timestamps {
            return Some(ns3_timestamp_rtt(now, p.ts_ecr));
        }
        (record.tx_count == 1).then(|| now - record.sent_at)
    }

    /// Account SRTT up to the end of the run.
    pub fn finish(&mut self, now: Time, counters: &mut TcpCounters) {
        self.integrate_srtt(now, counters);
    }

    /// An RTT sample from an ACK that newly acknowledges data up to `ack`.
    fn rtt_sample(&mut self, p: &Packet, now: Time) -> Option<Time> {
        match self.cfg.rtt_sampling {
            RttSampling::Ns3 => self.ns3_rtt_sample(p, now),
            // RFC 7323 §4.1: RTT = now - TSecr; valid for retransmissions too.
            _ if self.cfg.timestamps => Some(now.saturating_sub(p.ts_ecr)),
            RttSampling::OnePerRtt => match self.timed {
                Some((end, at)) if p.ack >= end => {
                    self.timed = None;
                    Some(now - at)
                }
                _ => None,
            },
            RttSampling::EveryAck => {
                // The oldest segment this ACK covers (as BSD and ns-3 do, and as the
                // RFC 7323 echo of a delayed ACK does); Karn's rule (RFC 6298 §3): only
                // if it was sent once. Timing a later segment instead would count the
                // time it waited behind a retransmitted hole as RTT.
                self.segs.front().filter(|s| s.tx_count == 1).map(|s| now - s.sent_at)
            }
        }
    }

    pub fn on_ack(&mut self, p: &Packet, io: &mut SenderIo) {
        let ack = p.ack;
        if ack > self.snd_max {
            return; // acknowledges data never sent: ignore (RFC 793)
        }
        let window_grew = p.rwnd > self.rwnd;
        self.rwnd = p.rwnd;
        let mut s = AckSample::default();
        s.ack = ack;
        s.marked = p.ece;
        s.adv_cwnd = (p.adv_cwnd > 0).then_some(p.adv_cwnd);
        if self.cfg.timestamps {
            s.rx_arrival = Some(p.rx_arrival);
            s.rx_bytes = Some(p.rx_bytes);
            s.ts_echo = Some(p.ts_ecr);
            self.ts_recent = self.ts_recent.max(p.ts_val);
        }
        let frto = self.frto;
        let una_before = self.snd_una;
        let snd_max_before = self.snd_max;
        // RFC 6675 §5 Update(): every ACK's SACK blocks go into the scoreboard first.
        // RFC 6937 §3: DeliveredData = change in snd.una + (signed) change in SACKed bytes.
        let mut delivered = ack.saturating_sub(una_before);
        let sacked = match self.sb.as_mut() {
            Some(sb) => {
                let before = sb.sacked().bytes();
                let u = sb.update(ack, p.sack.as_slice());
                io.counters.dsacks += u64::from(u.dsack);
                delivered = (delivered + sb.sacked().bytes()).saturating_sub(before);
                Some(u)
            }
            None => None,
        };
        s.delivered_bytes = delivered;
        let ts_ecr = self.cfg.timestamps.then_some(p.ts_ecr);
        self.count_delivered(una_before, ack, io.now, ts_ecr);
        s.delivered_total = self.rate.delivered_total();
        let dsack_of_probe = self.dsack_of_probe(p);
        if let (Some(rack), Some(u)) = (self.rack.as_mut(), sacked) {
            // Linux `tcp_dsack_seen`: a D-SACK of the tail loss probe is no reordering.
            if u.dsack && !dsack_of_probe {
                rack.on_dsack(ack, self.snd_nxt);
            }
        }
        self.rack_detect(una_before, ack.max(una_before), io);
        // What the ACK is for PRR: a duplicate, or (ns-3's m_isRetransDataAcked) a partial
        // ACK in recovery that covers a retransmitted segment (an old ACK is neither).
        let kind = if ack == una_before {
            AckKind::Duplicate
        } else if ack > una_before && self.in_recovery && self.covers_retransmission(ack) {
            AckKind::RetransmissionAcked
        } else {
            AckKind::None
        };
        self.probe_ack(p, ack > una_before, sacked, window_grew, dsack_of_probe);
        if self.reno.is_some() {
            if ack > self.snd_una {
                self.reno_new_ack(p, s, io);
            } else if ack == self.snd_una && self.snd_max > self.snd_una {
                self.reno_dup_ack(s, io);
            }
            self.take_rate_sample(io.now);
            self.reno_send(io);
            return self.end_send_pass(snd_max_before);
        }
        if ack > self.snd_una {
            self.on_new_ack(p, s, sacked, io);
        } else if ack == self.snd_una && self.snd_max > self.snd_una {
            self.on_dup_ack(s, sacked, io);
        }
        // F-RTO first: an ACK that finds the timeout spurious may start a fast recovery for
        // what RACK marked (Linux: tcp_process_loss undoes, then the same ACK's
        // tcp_time_to_recover runs in CA_Open).
        if frto != Frto::Off {
            self.frto_step(frto, ack > una_before, io);
        }
        self.rack_act(io);
        if self.in_recovery && self.sb.is_some() {
            self.sack_send(delivered, kind, io);
        }
        self.probe_state_check(io);
        self.take_rate_sample(io.now);
        self.send_available(io);
        self.end_send_pass(snd_max_before);
    }

    /// Count the segments this ACK delivers, cumulatively (`una_before..ack`) or by SACK,
    /// into the rate estimator; the sample is generated once the ACK's RTT sample is in.
    /// RACK (RFC 8985 §6.2 steps 2-3) sees the same segments.
    fn count_delivered(&mut self, una_before: u64, ack: u64, now: Time, ts_ecr: Option<Time>) {
        let mut acc = AckRate::default();
        let (mss, snd_max, min_rtt) = (self.mss, self.snd_max, self.rtt.min_rtt());
        if let Some(rack) = self.rack.as_mut() {
            rack.begin_ack();
        }
        let mut deliver = |segs: &mut VecDeque<SegTx>, rate: &mut RateEstimator, mut rack: Option<&mut Rack>, start: u64, end: u64, sacked: bool| {
            // An old ACK's SACK blocks may reach below SND.UNA: those bytes were counted.
            let start = start.max(una_before);
            if end <= start {
                return;
            }
            let first = ((start - una_before) / mss) as usize;
            let last = (end.saturating_sub(una_before).div_ceil(mss) as usize).min(segs.len());
            for (i, seg) in segs.range_mut(first.min(last)..last).enumerate() {
                let seq = una_before + (first + i) as u64 * mss;
                let len = mss.min(snd_max - seq);
                // SACKed by an earlier ACK: delivered then, nothing new for RACK either.
                let newly = !seg.rate.counted();
                rate.on_delivered(&mut seg.rate, &mut acc, len, seq + len, seg.sent_at, seg.tx_count > 1, sacked);
                if let Some(r) = rack.as_deref_mut().filter(|_| newly) {
                    // Linux judges a retransmission by TSecr only when cumulatively acknowledged
                    // (the receiver echoes an older TS.Recent for out-of-order data).
                    let ecr = if sacked { None } else { ts_ecr };
                    r.on_delivered(seq + len, seg.sent_at, seg.tx_count > 1, now, min_rtt, ecr);
                }
            }
        };
        if ack > una_before {
            deliver(&mut self.segs, &mut self.rate, self.rack.as_mut(), una_before, ack, false);
        }
        match self.sb.as_ref() {
            Some(sb) => {
                for &(start, end) in sb.newly_sacked() {
                    deliver(&mut self.segs, &mut self.rate, self.rack.as_mut(), start, end, true);
                }
            }
            // Without SACK (Linux tcp_add_reno_sack / tcp_remove_reno_sacks): a duplicate
            // credits one segment, at most all but one outstanding; the cumulative ACK
            // that covers them counts at least one segment.
            None if ack == una_before => {
                if self.reno_dup_credit + 2 * mss <= snd_max - una_before {
                    self.reno_dup_credit += mss;
                    self.rate.credit(&mut acc, mss);
                }
            }
            // An old ACK (below SND.UNA) changes nothing (Linux `old_ack`).
            None if ack < una_before => {}
            None => {
                let eaten = self.reno_dup_credit.min((ack - una_before).saturating_sub(mss));
                self.reno_dup_credit -= eaten;
                self.rate.debit(&mut acc, eaten);
            }
        }
        self.ack_rate = Some(acc);
        if let Some(rack) = self.rack.as_mut() {
            rack.finish_ack();
        }
    }

    /// RFC 8985 §6.2 steps 4-5: the reordering window, the segments whose time is up
    /// marked lost on the scoreboard, the RACK timer for the next. `una_before` indexes
    /// `segs`; data below `una` is acknowledged.
    fn rack_detect(&mut self, una_before: u64, una: u64, io: &mut SenderIo) {
        // Linux: "in recovery" covers the loss state after a timeout (icsk_ca_state >= Recovery).
        let recovering = self.in_recovery || !self.past_recovery_point(una);
        let (Some(rack), Some(sb)) = (self.rack.as_mut(), self.sb.as_mut()) else { return };
        let mss = self.mss;
        let segs_sacked = sb.sacked().bytes_above(una) / mss;
        let min_rtt = self.rtt.min_rtt().unwrap_or(0);
        let srtt = self.rtt.srtt().unwrap_or(min_rtt);
        let reo_wnd = rack.reo_wnd(recovering, segs_sacked, u64::from(self.cfg.dupack_threshold), min_rtt, srtt);
        let (segs, snd_max) = (&self.segs, self.snd_max);
        let timeout = rack.detect_loss(io.now, reo_wnd, |seq, ts| {
            let len = mss.min(snd_max.saturating_sub(seq));
            let current = seq >= una && segs.get(((seq - una_before) / mss) as usize).is_some_and(|s| s.sent_at == ts);
            if current && !sb.sacked().covers(seq, seq + len) && !sb.awaits_retransmission(seq, len) {
                Entry::Outstanding
            } else {
                Entry::Gone
            }
        });
        for &seq in rack.lost() {
            sb.mark_lost(seq, mss.min(snd_max - seq));
        }
        let at = timeout.map(|t| io.now + t);
        self.rack_timer.set(at, io.ev, Event::Rack { flow: self.flow });
    }

    /// The RACK timer: the segments whose reordering window has passed are lost.
    pub fn on_rack_timer(&mut self, io: &mut SenderIo) {
        if !self.rack_timer.fire(io.now, io.ev, Event::Rack { flow: self.flow }) {
            return;
        }
        let una = self.snd_una;
        self.rack_detect(una, una, io);
        self.rack_act(io);
        if self.in_recovery {
            self.sack_send(0, AckKind::None, io);
        }
        self.send_available(io);
    }

    /// What RACK's marks start: a fast recovery (Linux tcp_time_to_recover: "the loss is
    /// proven"). Not while F-RTO judges a timeout (RFC 5682 §2: its next segments are new
    /// data); after a timeout `send_available` resends what RACK marks.
    fn rack_act(&mut self, io: &mut SenderIo) {
        let marked = self.sb.as_ref().filter(|_| self.rack.is_some()).is_some_and(|sb| sb.next_lost(self.snd_una).is_some());
        if marked && !self.in_recovery && self.frto == Frto::Off {
            self.maybe_enter_recovery(io);
        }
    }

    /// Going back N after a timeout: a segment RACK marked lost below SND.NXT (a lost
    /// retransmission) is resent before anything else, while the window has room for it
    /// (Linux resends only what is marked lost, tcp_xmit_retransmit_queue).
    fn rack_resend_below_nxt(&mut self, window: u64, io: &mut SenderIo) {
        if self.rack.is_none() || self.frto != Frto::Off {
            return;
        }
        while let Some(sb) = self.sb.as_ref() {
            let Some(seq) = sb.next_lost(self.snd_una).filter(|&s| s < self.snd_nxt) else { return };
            let len = self.mss.min(self.snd_max - seq);
            if sb.pipe_between(self.snd_una, self.snd_nxt) + len > window || self.pace_blocked(io) {
                return;
            }
            if let Some(sb) = self.sb.as_mut() {
                sb.on_retransmit(seq, len);
            }
            self.pace_sent(len, io);
            self.transmit(seq, len, io);
        }
    }

    /// The rate sample of the ACK being processed (once per ACK: later calls give `None`).
    fn take_rate_sample(&mut self, now: Time) -> Option<wtcp_cc::RateSample> {
        let acc = self.ack_rate.take()?;
        self.rate.generate(&acc, now, self.rtt.min_rtt())
    }

    /// RFC 5682 §2 steps 2 and 3, on the ACKs after a timeout; `advanced`: this ACK moved
    /// SND.UNA (with SACK an ACK that does not, e.g. a D-SACK alone, is a duplicate here).
    fn frto_step(&mut self, state: Frto, advanced: bool, io: &mut SenderIo) {
        let ack = self.snd_una;
        let recover = self.recover.unwrap_or(0);
        match state {
            Frto::AwaitFirst { prior } => {
                if advanced && ack < recover && self.snd_max < self.data_end {
                    // Step 2b: send up to two new segments, whatever cwnd says.
                    self.frto_allowance = 2;
                    self.frto = Frto::AwaitSecond { prior };
                } else {
                    // Step 2a: conventional recovery (go-back-N).
                    self.frto_conventional();
                }
            }
            Frto::AwaitSecond { prior } => {
                self.frto_allowance = 0;
                if advanced {
                    // Step 3b: new, never-retransmitted data acknowledged: spurious.
                    io.counters.frto_spurious += 1;
                    self.frto = Frto::Off;
                    self.frto_undone = self.recover;
                    self.in_loss = false; // the window is restored: no CA_LOSS exit to credit
                    self.call_cc(io, |cc, w, cx| cc.on_spurious_timeout(&prior, w, cx));
                } else {
                    // Step 3a: a duplicate ACK: the timeout was real.
                    self.win.cwnd = self.win.cwnd.min(3.0 * self.mss as f64);
                    self.frto_conventional();
                }
            }
            Frto::Off => {}
        }
    }

    /// Fall back to go-back-N from the first segment not already resent.
    fn frto_conventional(&mut self) {
        self.frto = Frto::Off;
        self.frto_allowance = 0;
        self.snd_nxt = self.snd_una.max(self.rto_head_end);
    }

    /// SND.UNA `una` is past the last recovery's or timeout's recovery point, or F-RTO found
    /// that timeout spurious (RFC 5682 §2 step 3b; Linux `tcp_try_undo_loss` returns to
    /// CA_Open, where a new loss starts a fast recovery at once).
    fn past_recovery_point(&self, una: u64) -> bool {
        self.recover.is_none_or(|r| una >= r || self.frto_undone == Some(r))
    }

    /// Recovery ends on the first new ACK only for Reno-style algorithms without SACK; with
    /// SACK every algorithm recovers to RecoveryPoint (RFC 6675 §5 (4.1), §5.1).
    fn reno_exit(&self) -> bool {
        self.sb.is_none() && self.cc.recovery_style() == RecoveryStyle::Reno
    }

    /// What every ACK of new data does first: RTT sample, SND.UNA, timer backoff, the
    /// sample's fields, an ECN echo.
    fn accept_new_ack(&mut self, p: &Packet, mut s: AckSample, io: &mut SenderIo) -> AckSample {
        let ack = p.ack;
        let acked = ack - self.snd_una;
        let sample = self.rtt_sample(p, io.now);
        self.segs.drain(..self.segments_below(ack).min(self.segs.len()));
        io.oracle.advance(ack);
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.dupacks = 0;
        // RFC 5681 §3.1: a new ACK ends the run of timeouts of one segment.
        self.consecutive_rto = 0;
        if self.cfg.backoff_reset == BackoffReset::NewAck && self.rtt.backoff() > 0 {
            // As ns-3 (the RTO is recomputed from the estimator on every new ACK): new data
            // acknowledged ends the backoff even without a valid RTT sample. (Linux clears it
            // on every valid RTT measurement, nearly every ACK with its default timestamps.)
            self.rtt.reset_backoff();
        }
        if let Some(r) = sample {
            if io.counters.measuring {
                io.counters.rtt.record(r);
            }
            self.integrate_srtt(io.now, io.counters);
            // Linux's estimator steps once per round trip: SND.NXT is its SND.MAX (Linux
            // resends below it without moving SND.NXT back).
            self.rtt.on_sample_at(r, self.snd_una, self.snd_max);
            self.srtt_since = Some(io.now);
        }
        self.probe_repair(io);
        s.acked_bytes = acked;
        s.rtt = sample;
        s.delivered = ack;
        s.rate = self.take_rate_sample(io.now);
        if s.marked {
            self.probe_on_congestion_mark();
            self.call_cc(io, |cc, w, cx| cc.on_signal(Signal::CongestionMark, w, cx));
            self.cwr_pending = true;
        }
        s
    }

    fn on_new_ack(&mut self, p: &Packet, s: AckSample, sacked: Option<SackUpdate>, io: &mut SenderIo) {
        let ack = p.ack;
        let acked = ack - self.snd_una;
        let mut s = self.accept_new_ack(p, s, io);
        if self.in_recovery {
            let full = self.reno_exit() || self.recover.is_none_or(|r| ack >= r);
            if full {
                self.leave_recovery(&s, io);
            } else if self.sb.is_some() {
                // RFC 6675: a partial ACK; `sack_send` decides what goes out. The timer
                // restarts on every ACK of new data (RFC 6298 §5.3).
                s.in_recovery = true;
                self.call_cc(io, |cc, w, cx| cc.on_ack(&s, w, cx));
                self.restart_rto(io);
            } else {
                // RFC 6582 §3.2 step 5: partial ACK.
                s.in_recovery = true;
                self.call_cc(io, |cc, w, cx| cc.on_ack(&s, w, cx));
                self.retransmit_head(io);
                // Deflate by the amount acknowledged, add back one SMSS if >= SMSS. The
                // deflated window stops at zero (a window is unsigned: ns-3's
                // SafeSubtraction, Linux's u32), so the SMSS added back is sendable.
                self.inflation = (self.inflation - acked as f64).max(-self.win.cwnd);
                if acked >= self.mss {
                    self.inflation += self.mss as f64;
                }
                self.partial_ack_rearm(io);
            }
        } else {
            // `loss_exit_credit = "above_recovery_point"` (ns-3.44 tcp-socket-base.cc:
            // 2219-2233): the ACK that leaves CA_LOSS is credited only above the recovery
            // point; ACKs below it grow as usual (2134-2137). Not for a paced flow: its
            // model takes every ACK whole (ns-3's TcpBbr has its own CongControl, which
            // sees the rate sample, not segsAcked), as PRR leaves it alone too.
            if self.in_loss && self.recover.is_none_or(|r| ack >= r) {
                if self.win.pacing_rate.is_none() {
                    self.credit_above_recovery_point(&mut s, ack);
                }
                self.in_loss = false;
            }
            self.call_cc(io, |cc, w, cx| cc.on_ack(&s, w, cx));
            self.rearm_after_new_ack(io);
            // RFC 6675 §2: an ACK that SACKs new data counts as a duplicate even when it also
            // moves the cumulative point; recovery may start at once if SND.UNA is lost.
            if sacked.is_some_and(|u| u.newly_sacked > 0) && self.frto == Frto::Off {
                self.snd_max_at_first_dup = self.snd_max;
                self.dupacks = 1;
                self.maybe_enter_recovery(io);
            }
        }
    }

    /// The ACK `ack` leaving ns-3's CA_LOSS is credited only with its part above the
    /// recovery point (tcp-socket-base.cc:2219-2233: segsAcked = (ack - m_recover) / MSS).
    fn credit_above_recovery_point(&self, s: &mut AckSample, ack: u64) {
        let above = ack - self.recover.unwrap_or(ack);
        s.acked_bytes = above;
        s.delivered_bytes = above;
    }

    /// RFC 6582 §3.2 step 3 / RFC 5681 §3.2 step 6 / RFC 6675 §5: leave recovery on `s`.
    fn leave_recovery(&mut self, s: &AckSample, io: &mut SenderIo) {
        self.in_recovery = false;
        self.in_loss = false;
        self.inflation = 0.0;
        self.prr = None;
        if let Some(rack) = self.rack.as_mut() {
            rack.on_recovery_exit();
        }
        self.call_cc(io, |cc, w, cx| cc.on_recovery_exit(w, cx));
        if self.cfg.recovery_exit_growth {
            // ns-3.44 tcp-socket-base.cc ProcessAck: IncreaseWindow on the exit ACK.
            self.call_cc(io, |cc, w, cx| cc.on_recovery_exit_growth(s, w, cx));
        }
        self.call_cc(io, |cc, w, cx| cc.on_recovery_exit_ack(s, w, cx));
        self.rearm_after_new_ack(io);
    }

    /// The partial-ACK timer rule of RFC 6582 §4: Impatient restarts the timer on the first
    /// partial ACK only, Slow-but-Steady on every one.
    fn partial_ack_rearm(&mut self, io: &mut SenderIo) {
        self.partial_acks += 1;
        if self.partial_acks == 1 || self.cfg.partial_ack_timer == PartialAckTimer::SlowButSteady {
            self.restart_rto(io);
        }
    }

    // ---- ns-3's recovery without SACK (`reno_sack`) ----

    /// An ACK of new data (tcp-socket-base.cc ProcessAck, its new-ACK branch 2040-2257).
    fn reno_new_ack(&mut self, p: &Packet, s: AckSample, io: &mut SenderIo) {
        let ack = p.ack;
        if let Some(rs) = self.reno.as_mut() {
            rs.discard(self.snd_una, ack, self.snd_max);
        }
        let mut s = self.accept_new_ack(p, s, io);
        let below_recover = self.recover.is_some_and(|r| ack < r);
        if self.in_recovery && below_recover {
            // A partial ACK (2082-2131): the head is presumed lost and resent; the
            // algorithm does not grow.
            s.in_recovery = true;
            self.call_cc(io, |cc, w, cx| cc.on_ack(&s, w, cx));
            if let Some(rs) = self.reno.as_mut() {
                rs.mark_head_lost();
            }
            self.retransmit_head(io);
            self.partial_ack_rearm(io);
        } else if self.in_recovery {
            self.leave_recovery(&s, io);
        } else {
            // CA_LOSS below its recovery point grows as usual (2134-2148); the ACK that
            // leaves it is credited only above the recovery point (2219-2233).
            if self.in_loss && !below_recover {
                self.credit_above_recovery_point(&mut s, ack);
            }
            self.in_loss &= below_recover;
            self.call_cc(io, |cc, w, cx| cc.on_ack(&s, w, cx));
            self.rearm_after_new_ack(io);
        }
    }

    /// A duplicate ACK (tcp-socket-base.cc DupAck, 1738-1840).
    fn reno_dup_ack(&mut self, s: AckSample, io: &mut SenderIo) {
        self.report_dup_ack(s, io);
        if self.in_loss {
            return; // "We do not count the DupAcks received in CA_LOSS" (1740-1748)
        }
        let (una, max) = (self.snd_una, self.snd_max);
        if self.in_recovery {
            if let Some(rs) = self.reno.as_mut() {
                rs.add(una, max); // one segment has left the network (1772-1779)
            }
            return;
        }
        if self.dupacks == 0 {
            self.snd_max_at_first_dup = self.snd_max;
        }
        self.dupacks += 1;
        let recover_passed = self.recover.is_none_or(|r| una >= r);
        let head_lost = self.reno.as_ref().is_some_and(|rs| rs.head_is_lost(una));
        if (self.dupacks == self.cfg.dupack_threshold && recover_passed) || head_lost {
            self.enter_fast_retransmit(io); // 1811-1827
        } else if self.cfg.limited_transmit {
            if let Some(rs) = self.reno.as_mut() {
                rs.add(una, max); // limited transmit: a SACK that frees one segment (1834-1837)
            }
        }
    }

    /// ns-3's SendPendingData (3400-3540): while cwnd - BytesInFlight has room for a
    /// segment, send what NextSeg names: a lost segment (rule 1) or new data (rule 2).
    fn reno_send(&mut self, io: &mut SenderIo) {
        if !self.started {
            return;
        }
        let window = (self.win.cwnd.max(0.0) as u64).min(self.rwnd);
        while let Some(rs) = self.reno.as_ref() {
            let (una, max) = (self.snd_una, self.snd_max);
            let lost = rs.next_lost(una, max);
            let (seq, end) = match lost {
                Some(seq) => (seq, max),
                None if max < self.data_end => (max, self.data_end),
                None => break,
            };
            let len = self.mss.min(end - seq);
            if rs.in_flight(una, max) + len > window {
                break;
            }
            if lost.is_none() {
                let span = max + len - una;
                if span > self.rwnd || span > self.cfg.send_buffer_bytes {
                    break;
                }
            }
            if self.pace_blocked(io) {
                break;
            }
            self.pace_sent(len, io);
            self.transmit(seq, len, io);
            if lost.is_none() {
                self.snd_max += len;
            }
            self.snd_nxt = self.snd_max;
        }
    }

    /// RFC 6298 §5.2-5.3: stop the timer when all data is acked, else restart it (or arm
    /// the tail loss probe in its place).
    fn rearm_after_new_ack(&mut self, io: &mut SenderIo) {
        if self.snd_una >= self.snd_max {
            self.stop_rto(io);
        } else {
            self.rearm_probe_or_rto(io);
        }
    }

    fn on_dup_ack(&mut self, s: AckSample, sacked: Option<SackUpdate>, io: &mut SenderIo) {
        // RFC 6675 §2: with SACK a duplicate ACK is one that SACKs data not SACKed before.
        let counts = sacked.is_none_or(|u| u.newly_sacked > 0);
        if self.dupacks == 0 && counts {
            self.snd_max_at_first_dup = self.snd_max;
        }
        self.dupacks += u32::from(counts);
        self.report_dup_ack(s, io);
        if self.in_recovery {
            if self.sb.is_none() {
                // RFC 5681 §3.2 step 4: inflate by one SMSS per further duplicate.
                self.inflation += self.mss as f64;
            }
        } else {
            self.maybe_enter_recovery(io);
        }
    }

    /// Tell the algorithm of a duplicate ACK (and of the congestion mark it echoes).
    fn report_dup_ack(&mut self, mut s: AckSample, io: &mut SenderIo) {
        s.dup = true;
        s.in_recovery = self.in_recovery;
        s.delivered = self.snd_una;
        s.rate = self.take_rate_sample(io.now);
        if s.marked {
            self.probe_on_congestion_mark();
            self.call_cc(io, |cc, w, cx| cc.on_signal(Signal::CongestionMark, w, cx));
            self.cwr_pending = true;
        }
        self.call_cc(io, |cc, w, cx| cc.on_ack(&s, w, cx));
    }

    /// RFC 5681 §3.2 / RFC 6675 §5 (4): the DupThresh-th duplicate, or with SACK
    /// IsLost(HighACK + 1), starts a recovery if the cumulative ACK covers `recover`.
    fn maybe_enter_recovery(&mut self, io: &mut SenderIo) {
        if self.snd_max <= self.snd_una {
            return;
        }
        let head_lost = self.sb.as_ref().is_some_and(|sb| sb.is_lost(self.snd_una, self.mss.min(self.snd_max - self.snd_una)));
        let triggered = match (&self.rack, &self.sb) {
            // RACK (Linux tcp_time_to_recover): a segment it marked lost, nothing else.
            (Some(_), Some(sb)) => sb.next_lost(self.snd_una).is_some(),
            _ => self.dupacks == self.cfg.dupack_threshold || (head_lost && self.dupacks > 0 && self.dupacks < self.cfg.dupack_threshold),
        };
        if triggered {
            // RFC 6582 §3.2 step 2: a new recovery only if the ACK covers `recover` (set by
            // timeouts only under FastRetransmitOnly).
            let allowed = self.reno_exit() || self.past_recovery_point(self.snd_una);
            if allowed {
                self.enter_fast_retransmit(io);
            }
        }
    }

    fn enter_fast_retransmit(&mut self, io: &mut SenderIo) {
        self.end_probe_episode(io);
        // RFC 6675 §5 (4.3) / RFC 5681 §3.2 step 3: retransmit HighACK + 1 (with RACK the
        // first segment it marked lost, Linux tcp_xmit_retransmit_queue).
        let rack_first = self.sb.as_ref().filter(|_| self.rack.is_some()).and_then(|sb| sb.next_lost(self.snd_una));
        let seq = rack_first.unwrap_or(self.snd_una);
        let cause = io.oracle.cause_of(seq);
        io.counters.fast_retransmits += 1;
        io.counters.fast_retransmit_causes.add(cause);
        if let Some(rs) = self.reno.as_mut() {
            // ns-3 EnterRecovery (1686-1690): one more segment left, the head is lost; the
            // algorithm halves BytesInFlight + one segment (1714-1717).
            rs.add(self.snd_una, self.snd_max);
            rs.mark_head_lost();
            self.pipe_bonus = self.mss;
        }
        let verdict = self.call_cc(io, |cc, w, cx| cc.on_loss(Loss::FastRetransmit, w, cx));
        self.pipe_bonus = 0;
        io.counters.verdicts.add(cause, verdict);
        io.losses.push(LossEvent { timeout: false, seq, cause, verdict });
        if self.cc.recovery_style() != RecoveryStyle::FastRetransmitOnly {
            self.in_recovery = true;
            self.recover = Some(self.snd_max);
            self.frto_undone = None;
            self.partial_acks = 0;
            if let Some(sb) = self.sb.as_mut() {
                // RFC 6675 §5 (4.1): RecoveryPoint = HighData; no inflation (pipe instead).
                sb.start_recovery(self.snd_una);
                // RFC 6937 §3: RecoverFS = snd.nxt - snd.una, or the pipe before the
                // retransmission (`prr_recover_fs = "pipe"`: ns-3.44 tcp-prr-recovery.cc
                // EnterRecovery takes tcb->m_bytesInFlight). An algorithm that paces sets its
                // own window through recovery (BBR), as Linux runs PRR only for the others.
                if self.cfg.recovery == Recovery::Prr && self.win.pacing_rate.is_none() {
                    let recover_fs = match self.cfg.prr_recover_fs {
                        RecoverFs::FlightSize => self.snd_max - self.snd_una,
                        RecoverFs::Pipe => sb.pipe(self.snd_una, self.snd_max),
                    };
                    self.prr = Some(Prr::start(recover_fs).with_dupack_credit(self.cfg.prr_dupack_credit));
                }
            } else if self.reno.is_none() {
                // RFC 5681 §3.2 step 3: inflate by the segments that left the network.
                self.inflation = f64::from(self.cfg.dupack_threshold) * self.mss as f64;
            }
        }
        let len = self.mss.min(self.snd_max - seq);
        self.transmit(seq, len, io);
        if let Some(sb) = self.sb.as_mut() {
            // RFC 6675 (4.3): HighRxt and RescueRxt at the retransmitted segment.
            sb.on_first_retransmit(seq, len);
        }
        if self.prr.is_some() {
            self.prr_entry_retransmission = len;
        }
    }

    /// Segments (from SND.UNA up) below `ack`, for `ack` >= SND.UNA.
    fn segments_below(&self, ack: u64) -> usize {
        (ack.div_ceil(self.mss) - self.snd_una / self.mss) as usize
    }

    /// Whether `ack` covers a segment that was retransmitted.
    fn covers_retransmission(&self, ack: u64) -> bool {
        self.segs.iter().take(self.segments_below(ack)).any(|s| s.tx_count > 1)
    }

    /// RFC 6675 §5 step (C) (or RFC 6937 with PRR): while the window minus pipe has room
    /// for a segment, send what NextSeg() names.
    fn sack_send(&mut self, delivered: u64, kind: AckKind, io: &mut SenderIo) {
        let Some(sb) = self.sb.as_ref() else { return };
        let mss = self.mss;
        let mut pipe = sb.pipe(self.snd_una, self.snd_max);
        let entry = std::mem::take(&mut self.prr_entry_retransmission);
        let window = match self.prr.as_mut() {
            Some(prr) => {
                // RFC 9937 (Linux tcp_cwnd_reduction, ns-3 EnterRecovery): the ACK that
                // enters recovery computes SndCnt on the pipe before the fast retransmission
                // (prr_out = 0); the retransmission then counts as sent.
                // PRR-SSRB; ns-3 adds its extra segment only on an ACK of
                // retransmitted data (`prr_extra_segment`).
                let bound = match self.cfg.prr_extra_segment {
                    PrrExtraSegment::EveryAck => ReductionBound::SlowStart,
                    PrrExtraSegment::RetransmissionAcked if kind == AckKind::RetransmissionAcked => ReductionBound::SlowStart,
                    PrrExtraSegment::RetransmissionAcked => ReductionBound::Delivered,
                };
                let window = prr.on_ack(delivered, kind == AckKind::Duplicate, pipe.saturating_sub(entry), self.win.ssthresh.max(0.0) as u64, mss, bound);
                prr.on_sent(entry);
                window
            }
            None => self.win.cwnd.max(0.0) as u64,
        };
        while pipe + mss <= window {
            if self.pace_blocked(io) {
                break;
            }
            let Some(sb) = self.sb.as_mut() else { return };
            let rack = self.rack.is_some();
            // NextSeg (1): a lost segment above HighRxt; with RACK the first one it marked
            // lost and not retransmitted since (a lost retransmission included).
            let mut pick = if rack { sb.next_lost(self.snd_una) } else { sb.next_retransmission(self.snd_una, self.snd_max, false) }.map(|s| (s, NextSeg::Lost));
            if pick.is_none() && self.snd_max < self.data_end {
                // NextSeg (2): new data, within the receive window and the send buffer.
                let len = mss.min(self.data_end - self.snd_max);
                let in_flight_span = self.snd_max + len - self.snd_una;
                if in_flight_span <= self.rwnd && in_flight_span <= self.cfg.send_buffer_bytes {
                    pick = Some((self.snd_max, NextSeg::NewData));
                }
            }
            // NextSeg (3): an unSACKed hole below the highest SACKed byte; (4) the rescue.
            // RACK resends only what it marked lost (Linux).
            let pick = pick
                .or_else(|| (!rack).then(|| sb.next_retransmission(self.snd_una, self.snd_max, true)).flatten().map(|s| (s, NextSeg::Unlost)))
                .or_else(|| (!rack).then(|| sb.rescue(self.snd_una, self.snd_max)).flatten().map(|s| (s, NextSeg::Rescue)));
            let Some((seq, rule)) = pick else { break };
            let new_data = rule == NextSeg::NewData;
            let end = if new_data { self.data_end } else { self.snd_max };
            let len = mss.min(end - seq);
            match rule {
                NextSeg::Lost | NextSeg::Unlost => sb.on_retransmit(seq, len),
                // "HighRxt MUST NOT be updated" by the rescue (RFC 6675 §4).
                NextSeg::Rescue => sb.on_rescue(seq, len),
                NextSeg::NewData => {}
            }
            self.pace_sent(len, io);
            self.transmit(seq, len, io);
            if new_data {
                self.snd_max += len;
                self.snd_nxt = self.snd_max;
            }
            if let Some(prr) = self.prr.as_mut() {
                prr.on_sent(len);
            }
            pipe += len;
        }
    }

    /// The link layer gave up on a frame of this flow (RFC-less cross-layer hint, as
    /// TCP-CLAP uses it): pass it to the algorithm.
    pub fn on_mac_hint(&mut self, seq: u64, io: &mut SenderIo) {
        self.call_cc(io, |cc, w, cx| cc.on_signal(Signal::MacRetryLimit { seq }, w, cx));
        self.send_available(io);
    }

    // ---- timers ----

    pub fn on_rto_event(&mut self, io: &mut SenderIo) {
        if !self.rto_timer.fire(io.now, io.ev, Event::Rto { flow: self.flow }) {
            return;
        }
        if std::mem::take(&mut self.probe_armed) {
            return self.on_probe_timeout(io);
        }
        if let Some(tlp) = self.tlp.as_mut() {
            tlp.reset(); // Linux tcp_enter_loss
        }
        if !self.established {
            // RFC 6298 §5.5-5.6 for the SYN: back off and resend.
            self.rtt.on_timeout();
            io.counters.max_backoff = io.counters.max_backoff.max(self.rtt.backoff());
            self.send_syn(io);
            return;
        }
        if self.snd_una >= self.snd_max {
            return;
        }
        self.consecutive_rto += 1;
        if self.cfg.rtt_sampling == RttSampling::Ns3 {
            self.rtt_records_from = self.snd_max; // ReTxTimeout: m_history.clear() (3954)
        }
        // RFC 6298 §5.5: back off the timer.
        self.rtt.on_timeout();
        io.counters.max_backoff = io.counters.max_backoff.max(self.rtt.backoff());
        let cause = io.oracle.cause_of(self.snd_una);
        io.counters.timeouts += 1;
        io.counters.timeout_causes.add(cause);
        // Linux tcp_enter_loss: the duplicate-ACK credit is forgotten (tcp_reset_reno_sack).
        self.reno_dup_credit = 0;
        // `timeout_count_reset = "every_timeout"`: ns-3.44's ReTxTimeout clears every
        // retransmitted flag (SetSentListLost, tcp-tx-buffer.cc:1299) before it asks
        // IsHeadRetransmitted (tcp-socket-base.cc:3939, 3961), so each timeout cuts ssthresh
        // again from what was in flight: the algorithm sees every timeout as a first one.
        let consecutive = match self.cfg.timeout_count_reset {
            TimeoutCountReset::NewAck => self.consecutive_rto,
            TimeoutCountReset::EveryTimeout => 1,
        };
        let prior = self.win;
        let verdict = self.call_cc(io, |cc, w, cx| cc.on_loss(Loss::Timeout { consecutive }, w, cx));
        // `timeout_in_recovery = "keep"`: Linux's tcp_enter_loss leaves ssthresh alone in
        // CA_Recovery while high_seq is above SND.UNA (the recovery's reduction stands; a
        // recovery here ends once SND.UNA reaches `recover`, so being in one implies it).
        // Not reproduced: the same in CA_CWR after an ECN echo (wtcp's ECN reduction is no
        // recovery); Linux then also skips F-RTO and BBR's saved window (bbr_ssthresh),
        // which wtcp's timeout response still runs.
        if self.cfg.timeout_in_recovery == TimeoutInRecovery::Keep && self.in_recovery {
            self.win.ssthresh = prior.ssthresh;
        }
        io.counters.verdicts.add(cause, verdict);
        io.losses.push(LossEvent { timeout: true, seq: self.snd_una, cause, verdict });
        // RFC 6582 §3.2 step 1 on timeout: recover = highest sequence sent; leave recovery
        // (RFC 6675 §5.1: RecoveryPoint = HighData, the SACK recovery ends).
        self.recover = Some(self.snd_max);
        self.frto_undone = None;
        self.in_recovery = false;
        self.inflation = 0.0;
        self.prr = None;
        if let Some(sb) = self.sb.as_mut() {
            sb.on_timeout(self.snd_una);
        }
        if let Some(rs) = self.reno.as_mut() {
            // ns-3 ReTxTimeout (3917-3925 ResetRenoSack, 3939 SetSentListLost): forget the invented SACKs, everything sent is
            // lost; CA_LOSS resends it in order through NextSeg.
            rs.on_timeout(self.snd_max);
            self.in_loss = true;
        }
        if self.sb.is_some() && self.cfg.loss_exit_credit == LossExitCredit::AboveRecoveryPoint {
            self.in_loss = true;
        }
        self.dupacks = 0;
        self.timed = None;
        // RFC 5682 §2 step 1: F-RTO runs on the first timeout of an episode; it resends
        // only the head and waits for the next ACKs before going back.
        let frto = self.cfg.frto && consecutive == 1 && self.frto == Frto::Off;
        self.frto = if frto { Frto::AwaitFirst { prior } } else { Frto::Off };
        self.frto_allowance = 0;
        let len = self.mss.min(self.snd_max - self.snd_una);
        self.rto_head_end = self.snd_una + len;
        if self.reno.is_some() {
            self.reno_send(io);
        } else if frto {
            self.transmit(self.snd_una, len, io);
        } else {
            // Go-back-N: resend from SND.UNA (RFC 6298 §5.4 retransmits the earliest segment).
            self.snd_nxt = self.snd_una;
            self.transmit(self.snd_una, len, io);
            self.snd_nxt += len;
        }
        // RFC 6298 §5.6: restart the timer with the backed-off RTO.
        self.restart_rto(io);
        self.send_available(io);
    }

    /// Variables for traces.
    pub fn trace_row(&self) -> [f64; 11] {
        let ns = |t: Option<Time>| t.map_or(f64::NAN, |v| v as f64 / 1e9);
        [
            self.win.cwnd + self.inflation,
            self.win.cwnd,
            self.win.ssthresh,
            ns(self.rtt.srtt()),
            ns(self.rtt.latest()),
            self.rtt.rto() as f64 / 1e9,
            self.snd_una as f64,
            self.snd_nxt as f64,
            self.snd_max as f64,
            f64::from(u8::from(self.in_recovery)),
            f64::from(self.rtt.backoff()),
        ]
    }
}

/// Column names of [`Sender::trace_row`].
pub const SENDER_TRACE_COLUMNS: [&str; 11] =
    ["cwnd", "cwnd_base", "ssthresh", "srtt", "rtt", "rto", "snd_una", "snd_nxt", "snd_max", "in_recovery", "backoff"];

/// ns-3.44's RTT from a timestamp echo (tcp-option-ts.cc:123-146, tcp-socket-base.cc:
/// 3733-3744): TSval counts whole milliseconds of simulated time; a zero age reads 1 us.
fn ns3_timestamp_rtt(now: Time, ts_ecr: Time) -> Time {
    const MS: Time = 1_000_000;
    match (now / MS).saturating_sub(ts_ecr / MS) {
        0 => 1_000,
        ms => ms * MS,
    }
}
