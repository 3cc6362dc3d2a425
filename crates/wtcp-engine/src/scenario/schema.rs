//! The scenario file format (TOML), as serde structures. Unknown keys are rejected.
//!
//! Units are in the key names (`rate_mbps`, `delay_ms`, `duration_s`) so that a value
//! never needs a unit suffix and every number can be swept with `--set`.

use serde::{Deserialize, Serialize};

pub use crate::wifi::{AckTimeout, AfterTimeout, ArrivalBackoff, BackoffRule, CwAfterGiveUp, EifsRule, EifsTrigger, RetryCount};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// A short name for tables and reports.
    #[serde(default)]
    pub name: Option<String>,
    /// Free text: where the scenario comes from.
    #[serde(default)]
    pub description: Option<String>,
    /// Whose defaults fill what the scenario leaves out (`rfc`, `ns2`, `ns3`, `qualnet`,
    /// `linux`; see `profile.rs` and docs/profiles.md). Applied before this is read.
    #[serde(default)]
    pub profile: Option<String>,
    pub run: RunSection,
    /// Defaults for every TCP flow (a flow's own `tcp` table overrides them).
    #[serde(default)]
    pub tcp: TcpSection,
    pub nodes: Vec<NodeSpec>,
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// Shared 802.11 channels.
    #[serde(default)]
    pub wifi: Vec<WifiSpec>,
    pub flows: Vec<FlowSpec>,
    #[serde(default)]
    pub trace: TraceSection,
    #[serde(default)]
    pub metrics: MetricsSection,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    /// Simulated time of the run.
    pub duration_s: f64,
    /// Base seed of every random stream.
    #[serde(default = "one")]
    pub seed: u64,
    /// Replication index: a different, independent set of streams for the same seed.
    #[serde(default)]
    pub replication: u64,
    /// Start of the measurement window for goodput and throughput.
    #[serde(default)]
    pub measure_from_s: f64,
    /// End of the measurement window (default: the end of the run).
    #[serde(default)]
    pub measure_to_s: Option<f64>,
}

fn one() -> u64 {
    1
}

/// TCP options. Every field is optional so that the same table serves as global
/// defaults (`[tcp]`) and as a per-flow override (`[flows.tcp]`).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TcpSection {
    pub mss_bytes: Option<u32>,
    pub header_bytes: Option<u32>,
    pub timestamps: Option<bool>,
    pub initial_cwnd_segments: Option<f64>,
    pub initial_ssthresh_segments: Option<f64>,
    pub rto_initial_s: Option<f64>,
    pub rto_min_s: Option<f64>,
    pub rto_max_s: Option<f64>,
    pub clock_granularity_s: Option<f64>,
    pub max_backoff: Option<u32>,
    pub rto_estimator: Option<RtoEstimator>,
    pub rtt_sampling: Option<RttSampling>,
    pub dupack_threshold: Option<u32>,
    pub limited_transmit: Option<bool>,
    pub delayed_ack: Option<bool>,
    pub delayed_ack_count: Option<u32>,
    pub delayed_ack_timeout_s: Option<f64>,
    pub send_buffer_bytes: Option<u64>,
    pub recv_buffer_bytes: Option<u64>,
    pub ecn: Option<bool>,
    pub ecn_echo: Option<EcnEcho>,
    pub frto: Option<bool>,
    pub partial_ack_timer: Option<PartialAckTimer>,
    pub sack: Option<bool>,
    pub recovery: Option<Recovery>,
    pub loss_detection: Option<LossDetection>,
    pub rearm_rto_on_head_retransmit: Option<bool>,
    pub tail_loss_probe: Option<bool>,
    pub backoff_reset: Option<BackoffReset>,
    pub handshake: Option<bool>,
    pub prr_recover_fs: Option<RecoverFs>,
    pub prr_dupack_credit: Option<bool>,
    pub prr_extra_segment: Option<PrrExtraSegment>,
    pub recovery_exit_growth: Option<bool>,
    pub timeout_count_reset: Option<TimeoutCountReset>,
    pub reno_sack: Option<bool>,
    pub loss_exit_credit: Option<LossExitCredit>,
    pub cwnd_limited: Option<CwndLimited>,
    pub ts_recent: Option<TsRecent>,
    pub timeout_in_recovery: Option<TimeoutInRecovery>,
    pub quick_acks_at_start: Option<u32>,
    pub handshake_ack: Option<bool>,
    pub receive_window: Option<ReceiveWindow>,
}

/// What the receiver advertises as its window (the application reads in-order data at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReceiveWindow {
    /// The buffer less the out-of-order data it holds (Linux's free space, tcp_select_window).
    FreeSpace,
    /// The whole buffer from RCV.NXT, out-of-order data not counted: ns-3.44's
    /// TcpRxBuffer::MaxRxSequence (tcp-rx-buffer.cc:101-114) with nothing in order unread.
    WholeBuffer,
}

/// What a retransmission timeout during a fast recovery does to ssthresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutInRecovery {
    /// The algorithm's timeout response sets it again (RFC 5681 §3.1 eq. 4; ns-3.44's
    /// ReTxTimeout).
    Cut,
    /// The recovery's reduction stands (Linux's tcp_enter_loss recomputes ssthresh only in
    /// Open or Disorder, or once high_seq is acknowledged, tcp_input.c).
    Keep,
}

/// Which data segment's TSval the receiver echoes (RFC 7323 TS.Recent).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TsRecent {
    /// RFC 7323 §5.3 R2-R3: a segment in the window (not wholly below RCV.NXT) that starts
    /// at or below Last.ACK.sent, with a TSval not below TS.Recent.
    Rfc7323,
    /// ns-2.35's Acker::update_ts with its defaults (tcp-sink.cc, ts_echo_rfc1323_ false):
    /// a segment that starts at or below the last ACK sent with a TSval not below the echo,
    /// old duplicates included ("rfc1323-bis, update timestamps from duplicate segments").
    Ns2,
    /// ns-3.44's TcpSocketBase::ProcessOptionTimestamp (tcp-socket-base.cc:4459-4481):
    /// only the segment that starts exactly at RCV.NXT, at or below the highest ACK sent,
    /// and only if its TSval (whole milliseconds) is not below the largest TSval seen on
    /// any segment (which every segment not below it raises).
    Ns3,
}

/// When the sender counts the flow as limited by its congestion window, the test the
/// algorithms that grow only while cwnd-limited apply (ns-3's CUBIC and LinuxReno; Linux's
/// reno and cubic). RFC 5681 has no such test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CwndLimited {
    /// Always: growth is never held back (RFC 5681).
    Assumed,
    /// ns-3.44's m_isCwndLimited: after every data segment sent, cwnd < bytes in flight +
    /// one segment (tcp-socket-base.cc:3336, SendDataPacket).
    Ns3,
    /// Linux's tcp_is_cwnd_limited (include/net/tcp.h) over tcp_cwnd_validate's memory
    /// (tcp_output.c): the window was full at the end of a send pass in the current window
    /// of data, or in slow start cwnd < 2 * the most bytes outstanding in it.
    Linux,
}

/// With SACK, what the ACK that reaches the recovery point set by a timeout offers the
/// algorithm's window growth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LossExitCredit {
    /// Every byte it newly delivers (RFC 5681 §3.1 counts acknowledged data; Linux's
    /// tcp_cong_avoid gets every segment the ACK delivered).
    Delivered,
    /// Only the bytes above the recovery point (ns-3.44 tcp-socket-base.cc:2219-2233:
    /// leaving CA_LOSS, segsAcked = (ack - m_recover) / segmentSize).
    AboveRecoveryPoint,
}

/// When PRR-SSRB's extra segment (RFC 6937 §3) is allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PrrExtraSegment {
    /// On every ACK (RFC 6937 PRR-SSRB).
    EveryAck,
    /// Only on an ACK that acknowledges retransmitted data (ns-3.44
    /// tcp-prr-recovery.cc:93-106 with tcp-socket-base.cc:1876-1887).
    RetransmissionAcked,
}

/// When a run of consecutive timeouts (whose later ones keep ssthresh, RFC 5681 §3.1) ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutCountReset {
    /// On any ACK of new data: the next timeout retransmits another segment for the first
    /// time and cuts ssthresh again.
    NewAck,
    /// At every timeout: each one cuts ssthresh from what is in flight (ns-3.44: ReTxTimeout
    /// clears every retransmitted flag in SetSentListLost, tcp-tx-buffer.cc:1299, before
    /// the IsHeadRetransmitted test that would keep ssthresh, tcp-socket-base.cc:3939, 3961).
    EveryTimeout,
}

/// What PRR's RecoverFS holds at the start of recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RecoverFs {
    /// RFC 6937 §3: RecoverFS = snd.nxt - snd.una (FlightSize).
    FlightSize,
    /// The RFC 6675 pipe when recovery starts (outstanding minus SACKed minus lost), as
    /// ns-3.44's TcpPrrRecovery::EnterRecovery takes `tcb->m_bytesInFlight`.
    Pipe,
}

/// Loss recovery after a fast retransmit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Recovery {
    /// Without SACK RFC 5681 / RFC 6582 fast recovery with window inflation; with SACK
    /// RFC 6675's conservative recovery (cwnd - pipe).
    Classic,
    /// RFC 6937 Proportional Rate Reduction (PRR-SSRB) over RFC 6675's pipe; needs SACK.
    Prr,
}

/// How the sender decides a segment is lost before the retransmission timer does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LossDetection {
    /// RFC 5681 §3.2 DupThresh duplicate ACKs, with SACK RFC 6675 §4 IsLost.
    Dupack,
    /// RFC 8985 RACK (time-based, finds lost retransmissions); needs SACK.
    Rack,
}

/// When the exponential RTO backoff is cleared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BackoffReset {
    /// With the next valid RTT sample (RFC 6298 §5.7 with Karn's rule, §3): after a
    /// go-back-N without timestamps that can take many backed-off timeouts.
    RttSample,
    /// On every ACK that acknowledges new data (ns-3's TcpSocketBase recomputes the RTO from
    /// the estimator on new ACKs; Linux clears the backoff on every valid RTT measurement,
    /// which with its default timestamps is nearly every ACK).
    NewAck,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnEcho {
    /// Each ACK echoes whether a segment it acknowledges carried a mark (what
    /// TCP-Jersey's congestion warning needs).
    PerPacket,
    /// RFC 3168 §6.1.3: the receiver sets ECE on every ACK from a marked segment until a
    /// segment with CWR arrives.
    Latched,
    /// RFC 8257 §3.2 (DCTCP, as Linux's `dctcp_ece_ack_update`): ECE echoes the CE state
    /// of the last segment; a segment whose CE state differs from the one before sends the
    /// delayed ACK for the segments before it at once, with the old state, and is itself
    /// acknowledged at once, so every ACK covers segments of one state (what ABC's
    /// accelerate/brake count needs).
    StateChange,
}

/// RFC 6582 §4: when a partial ACK in NewReno fast recovery restarts the retransmission
/// timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PartialAckTimer {
    /// On the first partial ACK only: a recovery that needs more than about an RTO of
    /// partial ACKs ends in a timeout (ns-2's `newreno_changes1_ = 1`).
    Impatient,
    /// On every partial ACK: recovery continues one hole per RTT however long it takes
    /// (as Linux and ns-3 restart the timer on every ACK of new data).
    SlowButSteady,
}

/// The retransmission timer's estimator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoEstimator {
    /// RFC 6298: the minimum bounds the whole RTO.
    Rfc6298,
    /// Linux's: the minimum bounds the variance term, RTO = SRTT + max(4 RTTVAR, min), a
    /// falling RTT's excess error counts 1/32, and the variance term holds each round
    /// trip's largest deviation (wtcp-cc `RttConfig::linux_estimator`).
    Linux,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RttSampling {
    /// A sample from every ACK of new data (Karn-filtered), as ns-3 and Linux.
    EveryAck,
    /// One timed segment per RTT, as ns-2 and classic BSD without timestamps.
    OnePerRtt,
    /// Every ACK as ns-3.44 takes it (tcp-socket-base.cc:3717-3807 EstimateRtt): from the
    /// oldest transmission record the ACK covers, where a timeout forgets every record and
    /// only data first sent after it gets new ones (3954, 3360-3366); with timestamps, in
    /// whole milliseconds (tcp-option-ts.cc:123-146), a zero difference as 1 us.
    Ns3,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Defaults to `"A-B"`.
    #[serde(default)]
    pub name: Option<String>,
    pub a: String,
    pub b: String,
    pub rate_mbps: f64,
    pub delay_ms: f64,
    /// Per-packet link-layer header bytes added to the wire size.
    #[serde(default)]
    pub link_header_bytes: u32,
    /// Queue in each direction (default DropTail, 100 packets).
    #[serde(default)]
    pub queue: QueueSpec,
    /// Impairments of the direction a -> b.
    #[serde(default)]
    pub ab: DirectionSpec,
    /// Impairments of the direction b -> a.
    #[serde(default)]
    pub ba: DirectionSpec,
}

/// `[[wifi]] aggregation`: on or off, or on with limits.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum AggregationSpec {
    Switch(bool),
    Limits(AmpduLimits),
}

// By hand rather than `#[serde(untagged)]`, whose error names no allowed value.
impl<'de> Deserialize<'de> for AggregationSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = AggregationSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("true, false, or a table { ampdu_max_bytes = octets, ampdu_max_frames = 1..=64 }")
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<AggregationSpec, E> {
                Ok(AggregationSpec::Switch(v))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<AggregationSpec, A::Error> {
                AmpduLimits::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(AggregationSpec::Limits)
            }
        }
        d.deserialize_any(Visit)
    }
}

/// `[[wifi]] aggregation = { ... }`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AmpduLimits {
    /// The largest A-MPDU, octets (MPDU delimiters and padding included).
    #[serde(default)]
    pub ampdu_max_bytes: Option<u32>,
    /// The most MPDUs in one A-MPDU.
    #[serde(default)]
    pub ampdu_max_frames: Option<u32>,
}

/// One shared 802.11 channel (DCF) and its stations.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WifiSpec {
    /// Defaults to `"wifiN"`.
    #[serde(default)]
    pub name: Option<String>,
    /// `"b"` (802.11b DSSS, long preamble), `"g"` (802.11g ERP-OFDM), `"a"` (802.11a
    /// OFDM, 5 GHz), `"n"` (802.11n HT-mixed format, 5 GHz, best-effort EDCA, A-MPDU
    /// aggregation with Block Ack unless `aggregation = false`) or `"ac"` (802.11ac VHT
    /// single user, 5 GHz, as n).
    pub phy: WifiPhy,
    /// Rate of data frames (b: 1, 2, 5.5, 11; g: 6 .. 54). Default: 11 (b), 54 (g). Not
    /// for n (its `mcs` sets the rate).
    #[serde(default)]
    pub data_rate_mbps: Option<f64>,
    /// Rate of control frames (RTS, CTS, ACK). Default: 1 (b), 24 (g). Not for n (its
    /// ACKs follow 802.11's control response rule).
    #[serde(default)]
    pub basic_rate_mbps: Option<f64>,
    /// n: the HT MCS of data frames, 0-15 (8-15: two spatial streams); ac: the VHT MCS,
    /// 0-9. Default 7.
    #[serde(default)]
    pub mcs: Option<u8>,
    /// n: 20 or 40 (MHz); ac: 20, 40 or 80. Default 20.
    #[serde(default)]
    pub channel_width_mhz: Option<u16>,
    /// n, ac: how each data PPDU's MCS is chosen: `"constant"` (the default: `mcs`) or
    /// `"ideal"` (by the SNR the destination last reported; needs `channel.model =
    /// "log_distance"`, and no `mcs`).
    #[serde(default)]
    pub rate_control: Option<crate::wifi::RateControl>,
    /// n, ac: the 400 ns guard interval. Default false (800 ns).
    #[serde(default)]
    pub short_gi: Option<bool>,
    /// n, ac, short guard interval: `"standard"` (802.11's rounding to 4 us symbols, the
    /// default) or `"unrounded"` (ns-3's).
    #[serde(default)]
    pub short_gi_txtime: Option<crate::wifi::ShortGiTxtime>,
    /// ac: spatial streams, 1 or 2. Default 1.
    #[serde(default)]
    pub spatial_streams: Option<u8>,
    /// ac: whether a single-user PPDU holds the 4 us VHT-SIG-B: `"sent"` (802.11, the
    /// default) or `"omitted"` (ns-3's).
    #[serde(default)]
    pub vht_sig_b: Option<crate::wifi::VhtSigB>,
    /// n: A-MPDU aggregation under Block Ack (the default: A-MPDUs of up to 65535 octets
    /// and 64 MPDUs), as a table `{ ampdu_max_bytes = 1..=65535, ampdu_max_frames =
    /// 1..=64 }` (either key may be left out), `true`, or `false`: one MPDU per channel
    /// access, each acknowledged by an ACK.
    #[serde(default)]
    pub aggregation: Option<AggregationSpec>,
    /// The ACK in the EIFS: `"lowest_mandatory"` (default, the standard: 1 Mb/s for b, 6
    /// Mb/s for g) or `"basic_rate"` (at `basic_rate_mbps`).
    #[serde(default)]
    pub eifs: Option<EifsRule>,
    /// MPDUs longer than this use RTS/CTS (default: never).
    #[serde(default)]
    pub rts_threshold_bytes: Option<u32>,
    #[serde(default)]
    pub short_retry_limit: Option<u32>,
    #[serde(default)]
    pub long_retry_limit: Option<u32>,
    /// Interface queue per station, packets (default 50): a DropTail queue, or the limit
    /// of a `queue` table that states none.
    #[serde(default)]
    pub queue_packets: Option<u32>,
    /// Every station's interface queue: discipline, limit and options, as a link's
    /// `queue` (default: DropTail of `queue_packets`).
    #[serde(default)]
    pub queue: Option<QueueSpec>,
    /// What a busy period does to a counting backoff (default `"busy_slot_counts"`).
    #[serde(default)]
    pub backoff_rule: Option<BackoffRule>,
    /// Which frames make a station defer EIFS (default `"any_error"`: every frame sensed
    /// and not received; `"header_received"`: only one whose PLCP header was received,
    /// 802.11's reading and ns-3's).
    #[serde(default)]
    pub eifs_trigger: Option<EifsTrigger>,
    /// When a sender gives up on an ACK or CTS (default `"response_end"`: when the response
    /// would have ended; `"rx_start"`: 802.11's SIFS + slot + PHY RX start delay, ns-3's).
    #[serde(default)]
    pub ack_timeout: Option<AckTimeout>,
    /// The contention window after a frame given up at the retry limit (default
    /// `"reset"` to CWmin, 802.11; `"kept"`: ns-3's).
    #[serde(default)]
    pub cw_after_give_up: Option<CwAfterGiveUp>,
    /// When a frame reaching a station whose backoff has run out draws one (default
    /// `"unless_idle_ifs"`: 802.11; `"if_busy"`: only on a busy medium, else a DIFS wait,
    /// ns-3's).
    #[serde(default)]
    pub arrival_backoff: Option<ArrivalBackoff>,
    /// Where the countdown resumes after an ACK or CTS timeout (default `"slot_grid"`;
    /// `"difs"`: a DIFS after the timeout, ns-3's).
    #[serde(default)]
    pub after_timeout: Option<AfterTimeout>,
    /// What counts against the retry limits (default `"separate"`: 802.11's short and long
    /// counts; `"combined"`: every failure of a frame against `short_retry_limit`, ns-3's).
    #[serde(default)]
    pub retry_count: Option<RetryCount>,
    /// Bytes of an LLC/SNAP header (IEEE 802.2 + RFC 1042) carried in front of every IP
    /// packet in a data frame (default 0: none; ns-3's WifiNetDevice adds 8).
    #[serde(default)]
    pub llc_snap_bytes: Option<u32>,
    /// Bit error rate of every frame at its receiver (default 0).
    #[serde(default)]
    pub ber: Option<f64>,
    /// How frames reach the stations: `{ model = "range" }` (the default: the range disc of
    /// `tx_range_m` and `cs_range_m`) or `{ model = "log_distance", ... }` (received power,
    /// noise and SINR; a, g, n and ac).
    #[serde(default)]
    pub channel: Option<ChannelSpec>,
    /// Transmission and carrier-sense ranges, in the units of the positions (default
    /// 250 and 550).
    #[serde(default)]
    pub tx_range_m: Option<f64>,
    #[serde(default)]
    pub cs_range_m: Option<f64>,
    /// Delay of the retry-limit hint from a station's MAC to a TCP sender on the same node
    /// (default 0: an idealised cross-layer path inside the host).
    #[serde(default)]
    pub hint_delay_ms: f64,
    /// Whose retry-limit give-ups reach a TCP sender as the MAC hint (default `"own"`).
    #[serde(default)]
    pub mac_hint: Option<MacHint>,
    /// With `mac_hint = "relay"`: delay of the notification from a station that does not
    /// host the sender (an access point, a relay) to the sender (default 0).
    #[serde(default)]
    pub mac_hint_relay_delay_ms: Option<f64>,
    pub stations: Vec<StationSpec>,
}

/// Which MAC's retry-limit give-ups reach a TCP sender as `Signal::MacRetryLimit`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MacHint {
    /// TCP-CLAP's mechanism (Figs. 6-7): only the MAC of the station that hosts the
    /// sender, giving up on a frame that carries the flow's segment.
    #[default]
    Own,
    /// Also any other station of the channel that gives up on a frame of the flow (an
    /// access point in front of a wired sender, a relay of a chain): it notifies the
    /// sender after `mac_hint_relay_delay_ms`. Not in the paper; a what-if.
    Relay,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WifiPhy {
    B,
    G,
    A,
    /// 802.11n (HT) in the 5 GHz band.
    N,
    /// 802.11ac (VHT, single user) in the 5 GHz band.
    Ac,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StationSpec {
    pub node: String,
    /// Position at time 0, metres.
    #[serde(default)]
    pub x: f64,
    #[serde(default)]
    pub y: f64,
    /// Constant velocity `[vx, vy]`, metres per second, from (x, y) at time 0.
    #[serde(default)]
    pub velocity: Option<[f64; 2]>,
    /// Waypoints `[[t_s, x, y], ...]`, times increasing and after 0: the station moves in
    /// straight lines from (x, y) at time 0 through each and stays at the last.
    #[serde(default)]
    pub waypoints: Option<Vec<[f64; 3]>>,
    /// This station's interface queue, replacing the channel's (a limit it leaves out
    /// is the channel's).
    #[serde(default)]
    pub queue: Option<QueueSpec>,
}

/// `[[wifi]] channel`: the propagation and reception model.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ChannelSpec {
    pub model: ChannelModel,
    /// log_distance: path-loss exponent (default 3).
    #[serde(default)]
    pub exponent: Option<f64>,
    /// log_distance: reference distance d0, m (default 1).
    #[serde(default)]
    pub reference_distance_m: Option<f64>,
    /// log_distance: loss at d0, dB (default: free space at d0, at 2.412 GHz for g, 5.15 GHz
    /// for a, n and ac).
    #[serde(default)]
    pub reference_loss_db: Option<f64>,
    /// Transmit power, dBm (default 16.0206, 40 mW).
    #[serde(default)]
    pub tx_power_dbm: Option<f64>,
    /// Receiver noise figure, dB (default 7).
    #[serde(default)]
    pub noise_figure_db: Option<f64>,
    /// Frames below this power are neither sensed nor received, dBm (default -82).
    #[serde(default)]
    pub cca_threshold_dbm: Option<f64>,
    /// Log-normal shadowing per pair of stations, standard deviation in dB (default 0).
    #[serde(default)]
    pub shadowing_sigma_db: Option<f64>,
    /// Fading per frame and receiver: `"none"` (default), `"rayleigh"` or `"rician"`.
    #[serde(default)]
    pub fading: Option<FadingSpec>,
    /// Rician K factor, dB (required with fading = "rician").
    #[serde(default)]
    pub rician_k_db: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChannelModel {
    Range,
    LogDistance,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FadingSpec {
    None,
    Rayleigh,
    Rician,
}

/// A link queue's limit when nothing states one (no RFC sets one).
pub const DEFAULT_LINK_QUEUE_PACKETS: u32 = 100;
/// An 802.11 interface queue's limit when nothing states one (ns-2's in its wireless examples).
pub const DEFAULT_WIFI_QUEUE_PACKETS: u32 = 50;

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    #[serde(default)]
    pub discipline: Discipline,
    #[serde(default)]
    pub limit_packets: Option<u32>,
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    /// RED: average queue (packets) where early marking/dropping starts.
    #[serde(default)]
    pub min_th: Option<f64>,
    /// RED: average queue (packets) where the probability reaches max_p.
    #[serde(default)]
    pub max_th: Option<f64>,
    /// RED: marking/dropping probability at max_th.
    #[serde(default)]
    pub max_p: Option<f64>,
    /// RED and congestion warning: EWMA weight of the average queue.
    #[serde(default)]
    pub weight: Option<f64>,
    /// RED: probability rises from max_p to 1 between max_th and 2*max_th.
    #[serde(default)]
    pub gentle: Option<bool>,
    /// RED: mark ECN-capable packets instead of dropping them early.
    #[serde(default)]
    pub ecn: Option<bool>,
    /// Congestion warning: mark every packet while the average queue exceeds this.
    #[serde(default)]
    pub threshold: Option<f64>,
    /// RED and congestion warning: packet size used to age the average over idle time.
    #[serde(default)]
    pub mean_packet_bytes: Option<u32>,
    /// CoDel: the acceptable standing queue delay (RFC 8289 TARGET, default 5 ms).
    #[serde(default)]
    pub target_ms: Option<f64>,
    /// CoDel: the window over which the delay must stay above target (INTERVAL, 100 ms).
    #[serde(default)]
    pub interval_ms: Option<f64>,
    /// PIE: period of the drop-probability update (T_UPDATE, 15 ms).
    #[serde(default)]
    pub t_update_ms: Option<f64>,
    /// PIE: burst allowance (MAX_BURST, 150 ms).
    #[serde(default)]
    pub max_burst_ms: Option<f64>,
    /// FQ-CoDel: bytes a queue may send per round (default 1500, one MTU of IP bytes).
    #[serde(default)]
    pub quantum_bytes: Option<u32>,
    /// FQ-CoDel: number of per-flow queues packets are hashed into (default 1024).
    #[serde(default)]
    pub flows: Option<u32>,
    /// FQ-CoDel: most packets dropped from the fattest queue per overload (default 64).
    #[serde(default)]
    pub drop_batch: Option<u32>,
    /// ABC: target utilisation eta (default 0.98).
    #[serde(default)]
    pub eta: Option<f64>,
    /// ABC: delta, the time over which a queue above the threshold is drained (133 ms).
    #[serde(default)]
    pub delta_ms: Option<f64>,
    /// ABC: queueing delay d_t tolerated before braking (50 ms).
    #[serde(default)]
    pub delay_threshold_ms: Option<f64>,
    /// ABC: window of the dequeue-rate (and 802.11 link-rate) measurement (20 ms).
    #[serde(default)]
    pub rate_window_ms: Option<f64>,
    /// ABC: most accelerate tokens held (5).
    #[serde(default)]
    pub token_limit: Option<f64>,
    /// ABC: the queueing delay x(t) is the backlog over the link rate (`"backlog"`,
    /// default) or the departing packet's `"sojourn"` time.
    #[serde(default)]
    pub queue_delay: Option<AbcQueueDelay>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AbcQueueDelay {
    Backlog,
    Sojourn,
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec {
            discipline: Discipline::Droptail,
            limit_packets: Some(DEFAULT_LINK_QUEUE_PACKETS),
            limit_bytes: None,
            min_th: None,
            max_th: None,
            max_p: None,
            weight: None,
            gentle: None,
            ecn: None,
            threshold: None,
            mean_packet_bytes: None,
            target_ms: None,
            interval_ms: None,
            t_update_ms: None,
            max_burst_ms: None,
            quantum_bytes: None,
            flows: None,
            drop_batch: None,
            eta: None,
            delta_ms: None,
            delay_threshold_ms: None,
            rate_window_ms: None,
            token_limit: None,
            queue_delay: None,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Discipline {
    #[default]
    Droptail,
    /// Random Early Detection (Floyd & Jacobson 1993), optionally marking with ECN.
    Red,
    /// Congestion warning (TCP-Jersey): RED's average queue, every packet marked while it
    /// exceeds a threshold; drops only on overflow.
    Cw,
    /// CoDel (RFC 8289): drops (or marks) at dequeue when packets wait longer than a target.
    Codel,
    /// PIE (RFC 8033): random early drops (or marks) with a probability a PI controller
    /// keeps the queueing delay near its target with.
    Pie,
    /// FQ-CoDel (RFC 8290): per-flow queues served by deficit round robin, newly active
    /// ones first, CoDel on each.
    FqCodel,
    /// ABC (Goyal et al., NSDI 2020): every ECN-capable packet leaves as an accelerate or
    /// a brake (CE), the share of accelerates steering ABC senders to a target rate from
    /// the link's capacity and the queueing delay.
    Abc,
}

impl Discipline {
    /// The name a scenario gives it.
    pub fn name(self) -> &'static str {
        match self {
            Discipline::Droptail => "droptail",
            Discipline::Red => "red",
            Discipline::Cw => "cw",
            Discipline::Codel => "codel",
            Discipline::Pie => "pie",
            Discipline::FqCodel => "fq_codel",
            Discipline::Abc => "abc",
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DirectionSpec {
    #[serde(default)]
    pub loss: Option<LossSpec>,
    /// Which packets the loss model and outages apply to.
    #[serde(default)]
    pub loss_applies_to: AppliesTo,
    /// Scheduled outages: the direction drops everything for a while.
    #[serde(default)]
    pub outages: Vec<OutageSpec>,
    /// Outages at random times (a Poisson process).
    #[serde(default)]
    pub random_outages: Option<RandomOutageSpec>,
    /// Scheduled increases of the propagation delay.
    #[serde(default)]
    pub delay_spikes: Vec<DelaySpikeSpec>,
    /// Link-layer retransmission of frames hit by loss or outages.
    #[serde(default)]
    pub arq: Option<ArqSpec>,
    /// Capacity from a trace or a synthetic model instead of the link's `rate_mbps`.
    #[serde(default)]
    pub capacity: Option<super::traces::CapacitySpec>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ArqSpec {
    /// Retransmissions after the first attempt.
    pub retry_limit: u32,
    /// Delay of the retry-limit hint to the TCP sender (0: an idealised cross-layer path).
    #[serde(default)]
    pub hint_delay_ms: f64,
    /// Who hears that this link gave up on a frame: `own` (default) only a TCP sender on
    /// the link's transmitting node (its own MAC, as TCP-CLAP's Fig. 6); `relay` every TCP
    /// sender whose segment it was, wherever it sits (a notification the paper does not
    /// have; a what-if).
    #[serde(default)]
    pub mac_hint: MacHint,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AppliesTo {
    /// Data packets only (TCP segments with payload and UDP); ACKs pass.
    #[default]
    Data,
    /// Every packet, ACKs included.
    All,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum LossSpec {
    /// Independent per-packet loss with probability `rate`.
    Uniform { rate: f64 },
    /// Bit errors: a frame of `bits` bits is lost with probability 1-(1-ber)^bits.
    Ber { ber: f64 },
    /// Two-state Markov chain stepped once per packet (Gilbert-Elliott).
    GilbertElliott {
        /// P(good -> bad) per packet.
        p_good_to_bad: f64,
        /// P(bad -> good) per packet.
        p_bad_to_good: f64,
        /// Loss probability in the good state.
        #[serde(default)]
        loss_good: f64,
        /// Loss probability in the bad state.
        #[serde(default = "one_f")]
        loss_bad: f64,
    },
    /// Deterministic: lose exactly these packets, counted 1, 2, ... among the packets the
    /// model applies to on this direction (for tests and hand-placed losses).
    List { packets: Vec<u64> },
}

fn one_f() -> f64 {
    1.0
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OutageSpec {
    pub start_s: f64,
    pub duration_s: f64,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RandomOutageSpec {
    /// Mean number of outages per 200 s (the dynamic-responding paper's "fault" count).
    pub count_per_200s: f64,
    /// Outage length (constant, or the mean when `exponential`).
    pub duration_s: f64,
    #[serde(default)]
    pub exponential_duration: bool,
    /// Outages start no earlier than this.
    #[serde(default)]
    pub from_s: f64,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DelaySpikeSpec {
    pub start_s: f64,
    pub duration_s: f64,
    pub extra_delay_ms: f64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowKind {
    /// A bulk-transfer TCP connection.
    #[default]
    Tcp,
    /// Constant-bit-rate UDP.
    Cbr,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    #[serde(default)]
    pub kind: FlowKind,
    /// Defaults to `"flowN"` (N = index).
    #[serde(default)]
    pub name: Option<String>,
    pub src: String,
    pub dst: String,
    #[serde(default)]
    pub start_s: f64,
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// Identical copies of this flow (0 leaves it out); copies are named `name-1` ... `name-N`.
    #[serde(default = "one_copy")]
    pub count: u32,
    /// Copy k (0-based) starts at `start_s + k * start_stagger_s`.
    #[serde(default)]
    pub start_stagger_s: f64,
    /// On/off pattern of the application.
    #[serde(default)]
    pub on_off: Option<OnOffSpec>,
    // --- TCP only ---
    /// Congestion-control algorithm (see `wtcp algorithms`); TCP only.
    #[serde(default)]
    pub cc: Option<String>,
    /// Parameters of the algorithm; TCP only.
    #[serde(default)]
    pub cc_params: Option<toml::Table>,
    /// Total bytes to send (default: unlimited); TCP only.
    #[serde(default)]
    pub bytes: Option<u64>,
    /// Per-flow TCP options over the global `[tcp]`; TCP only.
    #[serde(default)]
    pub tcp: Option<TcpSection>,
    // --- CBR only ---
    /// Payload rate while on; CBR only.
    #[serde(default)]
    pub rate_mbps: Option<f64>,
    /// UDP payload bytes per packet (default 1000); CBR only.
    #[serde(default)]
    pub packet_bytes: Option<u32>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OnOffSpec {
    pub on_s: f64,
    pub off_s: f64,
    /// Draw period lengths from exponential distributions with these means.
    #[serde(default)]
    pub exponential: bool,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSection {
    #[serde(default)]
    pub enabled: bool,
    /// Sampling interval of the time series.
    #[serde(default = "ten")]
    pub interval_ms: f64,
}

impl Default for TraceSection {
    fn default() -> Self {
        TraceSection { enabled: false, interval_ms: 10.0 }
    }
}

fn ten() -> f64 {
    10.0
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsSection {
    /// Flows (by name) over which Jain's fairness index is computed (default: all TCP flows).
    #[serde(default)]
    pub fairness_flows: Option<Vec<String>>,
    /// Record delays: per flow one-way delay and RTT percentiles, per link direction the
    /// queueing delay (default false: they cost 10-25 % more time per event).
    #[serde(default)]
    pub delays: bool,
}

fn one_copy() -> u32 {
    1
}
