//! The one interface between the TCP sender and a congestion-control algorithm.
//!
//! Call order, fixed by the sender (one call site per event):
//! 1. `init` once, before the first segment, after the sender has set the window to the
//!    configured initial window and initial ssthresh.
//! 2. For every ACK: the RTT estimator is updated first, then `on_signal` for a
//!    congestion mark carried by this ACK, then `on_ack` (duplicates included).
//! 3. `on_loss(FastRetransmit)` when the duplicate-ACK threshold is reached and the
//!    recovery rules allow a new recovery episode; `on_loss(Timeout)` on every RTO expiry.
//! 4. `on_recovery_exit` on the ACK that ends fast recovery (that ACK is not also given
//!    to `on_ack` as growth; with `tcp.recovery_exit_growth` it goes to
//!    `on_recovery_exit_growth` next; then always to `on_recovery_exit_ack`).
//! 5. `on_signal` for cross-layer hints whenever they arrive.
//!
//! Units: `cwnd` and `ssthresh` are **bytes** as `f64` (fractional growth per ACK is kept
//! exactly); sequence numbers and byte counts are `u64`; time is integer nanoseconds.

use crate::rtt::RttEstimator;

/// Simulation time in nanoseconds since the start of the run.
pub type Time = u64;

/// Nanoseconds per second, for rate conversions.
pub const NS_PER_SEC: f64 = 1e9;

/// The window the algorithm controls. Owned by the sender, lent to every hook.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    /// Congestion window in bytes (without the sender's fast-recovery inflation).
    pub cwnd: f64,
    /// Slow-start threshold in bytes; `f64::INFINITY` means "no threshold yet".
    pub ssthresh: f64,
    /// Pacing rate in bytes per second; `None` sends as fast as the window allows.
    pub pacing_rate: Option<f64>,
}

impl Window {
    /// A window without pacing.
    pub fn new(cwnd: f64, ssthresh: f64) -> Self {
        Window { cwnd, ssthresh, pacing_rate: None }
    }
}

/// State shared by all connections of one host (for example a learned initial window).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostShared {
    /// A host-wide initial congestion window in bytes, if an algorithm maintains one.
    pub initial_cwnd: Option<f64>,
}

/// What the sender learned from one ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct AckSample {
    /// Cumulative acknowledgement number carried by the ACK.
    pub ack: u64,
    /// Bytes newly acknowledged by this ACK (0 for a duplicate).
    pub acked_bytes: u64,
    /// RFC 6937 §3 DeliveredData: bytes this ACK newly acknowledged, cumulatively or by
    /// SACK, each byte once (bytes SACKed by an earlier ACK are not counted again when the
    /// cumulative ACK passes them). Without SACK, `acked_bytes` (both are the part above the
    /// recovery point on the ACK that ends ns-3's CA_LOSS, with `tcp.reno_sack`, or with
    /// SACK and `tcp.loss_exit_credit = "above_recovery_point"` for an unpaced flow).
    pub delivered_bytes: u64,
    /// A duplicate ACK in the RFC 5681 §2 sense.
    pub dup: bool,
    /// RTT sample taken from this ACK (Karn-filtered, or from the timestamp echo).
    pub rtt: Option<Time>,
    /// Receiver's arrival time of the data segment that triggered this ACK (carried in the
    /// timestamps option; `None` when timestamps are off).
    pub rx_arrival: Option<Time>,
    /// Payload bytes of every data segment the receiver had received when it sent this ACK
    /// (a running count carried with the receiver's timestamp: out-of-order, duplicate and
    /// retransmitted segments all count). The difference between two ACKs is the data that
    /// reached the receiver between their `rx_arrival` times, whatever the cumulative ACK
    /// did, and a lost ACK's data is still counted by the next one. `None` when timestamps
    /// are off.
    pub rx_bytes: Option<u64>,
    /// The sender's send time echoed by the receiver (TSecr); `None` when timestamps are off.
    pub ts_echo: Option<Time>,
    /// The sender is in fast recovery while processing this ACK.
    pub in_recovery: bool,
    /// The ACK echoes a congestion mark (ECN CE or congestion warning).
    pub marked: bool,
    /// Total bytes cumulatively acknowledged so far (after this ACK).
    pub delivered: u64,
    /// A congestion window the receiver's algorithm advertised on this ACK, bytes
    /// ([`ReceiverControl::advertised_cwnd`]); `None` if it advertises none.
    pub adv_cwnd: Option<u64>,
    /// Bytes delivered to the receiver so far, cumulatively acknowledged or SACKed, each
    /// byte counted once (Linux `tp->delivered`, in bytes; without SACK each duplicate ACK
    /// counts one segment, as Linux's `tcp_add_reno_sack`).
    pub delivered_total: u64,
    /// The delivery-rate sample of this ACK ([`RateSample`]); `None` when the ACK delivered
    /// nothing or its interval is shorter than the minimum RTT.
    pub rate: Option<RateSample>,
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation-02, Linux
/// `tcp_rate.c`): the data delivered between the send of the most recently sent segment
/// this ACK delivered and now, over the longer of that segment's send phase and ACK phase.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Bytes delivered over `interval` (`C.delivered - P.delivered`).
    pub delivered: u64,
    /// max(send interval, ACK interval), ns; at least the minimum RTT.
    pub interval: Time,
    /// `delivered_total` when that segment was sent (`P.delivered`): a round of BBR ends on
    /// the first sample whose `prior_delivered` reaches the total at the round's start.
    pub prior_delivered: u64,
    /// The sender had run out of data at some point while that segment was in flight
    /// (the draft's "application-limited" sample): it may understate the path's rate.
    pub is_app_limited: bool,
    /// That segment was a retransmission.
    pub is_retrans: bool,
    /// Bytes the sender deemed lost (and resent) between that segment's send and this ACK
    /// (`C.lost - P.lost`, Linux `rs->lost`).
    pub lost: u64,
    /// Bytes in flight when that segment was sent, itself included (Linux
    /// `rs->tx_in_flight`).
    pub tx_in_flight: u64,
}

impl RateSample {
    /// Delivery rate in bytes per second.
    pub fn bytes_per_sec(&self) -> f64 {
        self.delivered as f64 * NS_PER_SEC / self.interval.max(1) as f64
    }
}

/// A loss event, as the sender detected it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loss {
    /// The duplicate-ACK threshold was reached: fast retransmit (RFC 5681 §3.2).
    FastRetransmit,
    /// The retransmission timer expired (RFC 6298 §5.4-5.6).
    Timeout {
        /// Number of consecutive expiries for the same unacknowledged data, 1 for the
        /// first. RFC 5681 §3.1: ssthresh is cut only on the first.
        consecutive: u32,
    },
}

/// A signal from the network or another layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Signal {
    /// The ACK echoes a congestion mark (RFC 3168 ECE, or a router congestion warning).
    CongestionMark,
    /// The MAC gave up on a frame carrying the segment starting at `seq` (retry limit).
    MacRetryLimit { seq: u64 },
}

/// The algorithm's opinion of the cause of a loss, reported for traces and scorecards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The algorithm makes no such distinction.
    None,
    /// The algorithm judged the loss a sign of congestion.
    Congestion,
    /// The algorithm judged the loss a random (wireless) loss.
    Wireless,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::None => "none",
            Verdict::Congestion => "congestion",
            Verdict::Wireless => "wireless",
        }
    }
}

/// How the sender runs fast recovery for this algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryStyle {
    /// RFC 5681 §3.2: recovery ends on the first ACK of new data.
    Reno,
    /// RFC 6582: partial ACKs retransmit and keep recovery until `recover` is acked.
    NewReno,
    /// Fast retransmit without fast recovery (RFC 5681 §3.2 steps 1-2 and the
    /// retransmission of step 3, without step 3's inflation and steps 4-6): the
    /// duplicate-ACK threshold retransmits the segment at SND.UNA and calls
    /// `on_loss(FastRetransmit)`; the sender neither inflates nor deflates the window and
    /// has no recovery phase (no partial-ACK retransmissions, no `on_recovery_exit`;
    /// every ACK of new data goes to `on_ack` and restarts the timer, RFC 6298 §5.3).
    /// Another fast retransmit needs an ACK of new data or a timeout (either resets the
    /// duplicate count) and then three new duplicates, except for data sent before the
    /// last timeout (RFC 6582 §3.2 step 1: go-back-N's duplicates are not a new loss).
    FastRetransmitOnly,
}

/// Requests an algorithm makes of its sender; applied after the hook returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Requests {
    /// Reset the RTO backoff to 1 (the timer is re-armed with the un-backed-off RTO).
    pub reset_rto_backoff: bool,
    /// Mark the delivery-rate samples app-limited until what is in flight now is delivered
    /// (Linux BBR in PROBE_RTT sets `tp->app_limited`).
    pub mark_app_limited: bool,
}

/// The context lent to every hook: a read-only view of the sender plus requests.
pub struct Ctx<'a> {
    pub now: Time,
    /// Sender maximum segment size (payload bytes).
    pub mss: u32,
    /// RFC 5681 FlightSize in bytes: SND.MAX - SND.UNA, except that segments sent by
    /// limited transmit in the current duplicate-ACK episode are left out (RFC 5681 §3.2
    /// step 2: they "MUST NOT be included" when ssthresh is computed).
    pub flight_size: u64,
    /// RFC 6675 §4 "pipe" in bytes, estimated without SACK the way ns-3 does: SND.MAX -
    /// SND.UNA, minus one segment per duplicate ACK (each reports a segment that left the
    /// network), minus the segment presumed lost once fast retransmit is triggered.
    pub pipe: u64,
    pub snd_una: u64,
    pub snd_max: u64,
    /// Segments transmitted so far, retransmissions included.
    pub segments_sent: u64,
    /// The flow is limited by its congestion window, by the sender's `tcp.cwnd_limited`
    /// rule (always true by default). Algorithms whose source grows only while
    /// cwnd-limited (ns-3's CUBIC and LinuxReno, Linux's reno and cubic) test it.
    pub cwnd_limited: bool,
    /// The sender's RTT estimator (SRTT, RTTVAR, min RTT, RTO, backoff).
    pub rtt: &'a RttEstimator,
    /// State shared by all connections of this host.
    pub host: &'a mut HostShared,
    /// Requests to the sender.
    pub requests: &'a mut Requests,
}

impl Ctx<'_> {
    pub fn mss_f(&self) -> f64 {
        f64::from(self.mss)
    }
    /// Ask the sender to mark its delivery-rate samples app-limited for the data in flight.
    pub fn mark_app_limited(&mut self) {
        self.requests.mark_app_limited = true;
    }
    /// Ask the sender to reset its exponential RTO backoff.
    pub fn reset_rto_backoff(&mut self) {
        self.requests.reset_rto_backoff = true;
    }
}

/// A congestion-control algorithm (sender side).
pub trait CongestionControl: std::fmt::Debug + Send {
    /// The registry name, e.g. `"newreno"`.
    fn name(&self) -> &'static str;

    /// How the sender should run fast recovery.
    fn recovery_style(&self) -> RecoveryStyle {
        RecoveryStyle::NewReno
    }

    /// Once, before the first segment. The window already holds the configured initial
    /// window and ssthresh; an algorithm may replace them (e.g. a host-shared window).
    #[allow(unused_variables)]
    fn init(&mut self, w: &mut Window, cx: &mut Ctx) {}

    /// Every ACK, new or duplicate, after the RTT estimator has taken its sample.
    fn on_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx);

    /// A loss event. Sets ssthresh and cwnd for what follows and returns the verdict.
    /// After `FastRetransmit` the sender adds its own dupack inflation on top of `cwnd`
    /// (none under [`RecoveryStyle::FastRetransmitOnly`]).
    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict;

    /// Fast recovery ended (full ACK under NewReno, first new ACK under Reno).
    /// Default: deflate to ssthresh (RFC 5681 §3.2 step 6, RFC 6582 §3.2 step 3).
    #[allow(unused_variables)]
    fn on_recovery_exit(&mut self, w: &mut Window, cx: &mut Ctx) {
        w.cwnd = w.ssthresh;
    }

    /// The ACK that ended fast recovery, offered for window growth after
    /// `on_recovery_exit` when the sender runs with `tcp.recovery_exit_growth` (ns-3.44's
    /// TcpSocketBase::ProcessAck sets cwnd = ssthresh and then calls IncreaseWindow with the
    /// ACK's whole span, `(ack - old head) / MSS` segments). `ack.acked_bytes` is that span;
    /// estimators must not count it again (`on_recovery_exit` already saw it). Default: no
    /// growth (RFC 5681 §3.2 step 6, RFC 6582 §3.2 step 3); the algorithms that grow as ns-3's
    /// IncreaseWindow would implement it.
    #[allow(unused_variables)]
    fn on_recovery_exit_growth(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {}

    /// The ACK that ended fast recovery, for an algorithm whose model takes every ACK (Linux
    /// calls `cong_control` on it after the state returns to Open: BBR's rate sample and
    /// round). Called after `on_recovery_exit` (and `on_recovery_exit_growth`), with
    /// `ack.in_recovery` false. Default: nothing.
    #[allow(unused_variables)]
    fn on_recovery_exit_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {}

    /// The sender found its last timeout spurious (F-RTO, RFC 5682). `prior` is the window
    /// before that timeout's `on_loss`. Default: undo the reduction.
    #[allow(unused_variables)]
    fn on_spurious_timeout(&mut self, prior: &Window, w: &mut Window, cx: &mut Ctx) {
        w.cwnd = prior.cwnd;
        w.ssthresh = prior.ssthresh;
    }

    /// A signal: a congestion mark on an ACK, or a cross-layer hint.
    #[allow(unused_variables)]
    fn on_signal(&mut self, signal: Signal, w: &mut Window, cx: &mut Ctx) {}

    /// The algorithm's own variables, for traces: `(name, value)` pairs, stable order.
    #[allow(unused_variables)]
    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {}
}

/// The receiver half of an algorithm: it may shape the advertised window and advertise a
/// congestion window to the sender.
pub trait ReceiverControl: std::fmt::Debug + Send {
    /// A data segment arrived at the receiver; `ts_ecr` is its RFC 7323 TSecr (the time
    /// of the receiver's own ACK the sender echoes), `None` when timestamps are off or
    /// the sender has echoed nothing yet.
    #[allow(unused_variables)]
    fn on_segment(&mut self, seq: u64, len: u32, arrival: Time, ts_ecr: Option<Time>) {}
    /// The window to advertise; `buffer_free` is what plain TCP would advertise.
    #[allow(unused_variables)]
    fn advertised_window(&mut self, buffer_free: u64, now: Time) -> u64 {
        buffer_free
    }
    /// A congestion window for the sender, carried on the ACK being sent (after
    /// `advertised_window`) and handed to the sender's `on_ack` as `AckSample::adv_cwnd`;
    /// unlike the receive window it does not limit the sender by itself.
    fn advertised_cwnd(&mut self) -> Option<u64> {
        None
    }
}
