//! Simulator and stack profiles: whose defaults a scenario runs with.
//!
//! `profile = "ns2"` (or `--profile ns2`) fills every default that ns-2.35 fixes and wtcp
//! can express into the scenario document before it is checked, wherever the scenario
//! leaves the field out. A value the scenario states always wins. The filled document is
//! the one that is run and stored, so a result carries every value it ran with.
//!
//! `rfc` is the default and fills nothing: its table lists wtcp's built-in defaults (a
//! test resolves a scenario with and without them stated and requires the same result).
//!
//! Where a setting applies:
//! - `tcp.KEY`: the scenario's `[tcp]` table (every flow's default; a flow's own `tcp`
//!   table still overrides it). `send_buffer_bytes` given as segments is the segment count
//!   times the MSS of the table it lands in (ns-2's `window_` counts packets), also for a
//!   flow that states its own `mss_bytes`.
//! - `links.KEY`: each link that leaves the field out.
//! - `links.queue.KEY`: each link's queue that states neither `limit_packets` nor
//!   `limit_bytes`.
//! - `wifi.KEY`: each `[[wifi]]` channel (`queue_packets`: unless its `queue` table states
//!   a limit; a `queue` table without one takes it).
//! - `cc.ALGO.KEY`: `cc_params.KEY` of each TCP flow whose algorithm is ALGO.
//!
//! Every value's source is in the table and in `docs/profiles.md` (generated from it).

use toml::Value;

use super::ScenarioError;

/// A profile value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Setting {
    Bool(bool),
    Int(i64),
    Float(f64),
    Name(&'static str),
    /// A byte count given in segments of the table's MSS (ns-2's `window_`).
    Segments(f64),
    /// The table's send window (`send_buffer_bytes`) in segments (ns-2's initial
    /// `ssthresh_ = window_`).
    WindowSegments,
}

/// One default of a profile: where it applies, its value, where the value comes from.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub key: &'static str,
    pub value: Setting,
    pub source: &'static str,
}

/// A simulator's or a stack's defaults.
#[derive(Debug)]
pub struct Profile {
    pub name: &'static str,
    pub title: &'static str,
    /// What the profile leaves to wtcp's built-in defaults, and why.
    pub note: &'static str,
    pub entries: &'static [Entry],
    /// `false` for `rfc`: its entries document the built-in defaults and are not filled in.
    pub fills: bool,
}

const fn e(key: &'static str, value: Setting, source: &'static str) -> Entry {
    Entry { key, value, source }
}

use Setting::{Bool as B, Float as F, Int as I, Name as N, Segments as Seg};

/// Every profile, `rfc` first (the default).
pub const PROFILES: &[Profile] = &[RFC, NS2, NS3, QUALNET, LINUX];

/// The default profile's name.
pub const DEFAULT_PROFILE: &str = "rfc";

const RFC: Profile = Profile {
    name: "rfc",
    title: "The IETF specifications (wtcp's built-in defaults)",
    note: "The default. Where an RFC leaves a value open (MSS, buffers, queue limits) wtcp's own choice is listed as such.",
    fills: false,
    entries: &[
        e("tcp.mss_bytes", I(1000), "wtcp's choice (RFC 879 leaves it to the path; ns-2's packetSize_)"),
        e("tcp.header_bytes", I(40), "RFC 791 + RFC 793: 20-byte IPv4 and TCP headers without options"),
        e("tcp.timestamps", B(false), "RFC 7323 is optional"),
        e("tcp.initial_cwnd_segments", F(10.0), "RFC 6928 §2"),
        e("tcp.initial_ssthresh_segments", F(f64::INFINITY), "RFC 5681 §3.1: \"arbitrarily high\""),
        e("tcp.rto_initial_s", F(1.0), "RFC 6298 §2.1"),
        e("tcp.rto_min_s", F(1.0), "RFC 6298 §2.4"),
        e("tcp.rto_max_s", F(60.0), "RFC 6298 §2.5 (at least 60 s)"),
        e("tcp.clock_granularity_s", F(0.001), "RFC 6298 §4 (finer is better)"),
        e("tcp.max_backoff", I(16), "wtcp's choice (RFC 6298 §5.5 sets no count; the 60 s cap binds first)"),
        e("tcp.rto_estimator", N("rfc6298"), "RFC 6298 §2.2-2.5"),
        e("tcp.rtt_sampling", N("every_ack"), "RFC 6298 §3 (at least one sample per RTT; Karn's rule)"),
        e("tcp.dupack_threshold", I(3), "RFC 5681 §3.2"),
        e("tcp.limited_transmit", B(true), "RFC 3042 §2"),
        e("tcp.delayed_ack", B(true), "RFC 1122 §4.2.3.2, RFC 5681 §4.2"),
        e("tcp.delayed_ack_count", I(2), "RFC 5681 §4.2 (an ACK for at least every second full-sized segment)"),
        e("tcp.delayed_ack_timeout_s", F(0.2), "RFC 1122 §4.2.3.2 (< 0.5 s; 200 ms as BSD)"),
        e("tcp.send_buffer_bytes", I(1 << 20), "wtcp's choice (never limiting on the scenarios shipped)"),
        e("tcp.recv_buffer_bytes", I(1 << 20), "wtcp's choice (never limiting on the scenarios shipped)"),
        e("tcp.ecn", B(false), "RFC 3168 is optional"),
        e("tcp.ecn_echo", N("per_packet"), "wtcp's choice (what TCP-Jersey's congestion warning needs; RFC 3168 §6.1.3 is `latched`)"),
        e("tcp.frto", B(false), "RFC 5682 is experimental"),
        e("tcp.partial_ack_timer", N("impatient"), "RFC 6582 §4 (Impatient variant)"),
        e("tcp.sack", B(false), "RFC 2018 is optional"),
        e("tcp.recovery", N("classic"), "RFC 6582 (RFC 6675 with SACK)"),
        e("tcp.loss_detection", N("dupack"), "RFC 5681 §3.2 DupThresh (RFC 6675 §4 IsLost with SACK); RFC 8985 RACK is a later standard"),
        e("tcp.tail_loss_probe", B(false), "RFC 5681 §3.1, RFC 6298: a lost tail waits for the retransmission timer; RFC 8985 §7 TLP is a later standard"),
        e("tcp.rearm_rto_on_head_retransmit", B(false), "RFC 6298 §5.3: the timer restarts when an ACK acknowledges new data"),
        e("tcp.backoff_reset", N("rtt_sample"), "RFC 6298 §5.7 with Karn's rule (§3)"),
        e("tcp.handshake", B(false), "wtcp's choice (data from the first instant)"),
        e("tcp.prr_recover_fs", N("flight_size"), "RFC 6937 §3: RecoverFS = snd.nxt - snd.una"),
        e("tcp.prr_dupack_credit", B(false), "RFC 6937 §3: prr_delivered counts DeliveredData only"),
        e("tcp.prr_extra_segment", N("every_ack"), "RFC 6937 §3 PRR-SSRB: MAX(prr_delivered - prr_out, DeliveredData) + MSS"),
        e("tcp.timeout_count_reset", N("new_ack"), "RFC 5681 §3.1: ssthresh kept only while the same segment is retransmitted by the timer again"),
        e("tcp.recovery_exit_growth", B(false), "RFC 5681 §3.2 step 6, RFC 6582 §3.2 step 3: the ACK that ends recovery only deflates"),
        e("tcp.loss_exit_credit", N("delivered"), "RFC 5681 §3.1: the window grows by the data an ACK acknowledges, the ACK that ends the timeout's recovery included"),
        e("tcp.reno_sack", B(false), "RFC 5681 §3.2 steps 3-4 and RFC 6582: without SACK, window inflation by one SMSS per duplicate ACK"),
        e("tcp.cwnd_limited", N("assumed"), "RFC 5681 §3.1 grows cwnd on every ACK of new data, with no test of whether the window is used"),
        e("tcp.timeout_in_recovery", N("cut"), "RFC 5681 §3.1: a timeout sets ssthresh by eq. 4 (unless the segment was already retransmitted by the timer)"),
        e("tcp.quick_acks_at_start", I(0), "RFC 5681 §4.2 and RFC 1122 §4.2.3.2: delayed ACKs from the first segment"),
        e("tcp.receive_window", N("free_space"), "RFC 9293 §3.8.6.2.2 leaves the window to the receiver; wtcp advertises the buffer less the out-of-order data it holds"),
        e("tcp.handshake_ack", B(false), "wtcp's simplification: the first data segment acknowledges the SYN-ACK (RFC 9293 §3.5 lets the third segment carry data)"),
        e("tcp.ts_recent", N("rfc7323"), "RFC 7323 §5.3 R2-R3: a segment in the window with SEG.TSval >= TS.Recent and SEG.SEQ <= Last.ACK.sent sets TS.Recent"),
        e("links.queue.limit_packets", I(100), "wtcp's choice (no RFC sets a queue limit)"),
        e("links.link_header_bytes", I(0), "wtcp's choice (IP packets, no link layer)"),
        e("wifi.short_retry_limit", I(7), "IEEE 802.11-2012 dot11ShortRetryLimit"),
        e("wifi.long_retry_limit", I(4), "IEEE 802.11-2012 dot11LongRetryLimit"),
        e("wifi.queue_packets", I(50), "wtcp's choice (ns-2's interface queue in its wireless examples)"),
        e("wifi.eifs", N("lowest_mandatory"), "IEEE 802.11-2007 9.2.3.4: the ACK at the PHY's lowest mandatory rate"),
        e("wifi.backoff_rule", N("busy_slot_counts"), "wtcp's choice (Bianchi's chain and the EDCA slot-boundary rule, 802.11-2012 9.19.2.5); DCF 9.3.4.3 is `idle_slots_only`"),
        e("wifi.eifs_trigger", N("any_error"), "wtcp's choice (ns-2's); 802.11-2007 9.2.3.4 starts EIFS only after a frame whose start the PHY indicated: `header_received`"),
        e("wifi.cw_after_give_up", N("reset"), "IEEE 802.11-2012 9.3.3: CW reset to aCWmin when SSRC or SLRC reaches its limit"),
        e("wifi.arrival_backoff", N("unless_idle_ifs"), "IEEE 802.11-2012 9.3.4.2-9.3.4.3: a frame may go at once after DIFS of idle medium, else the backoff procedure"),
        e("wifi.after_timeout", N("slot_grid"), "wtcp's choice: the countdown resumes on the slot grid of the idle period that began with the station's frame"),
        e("wifi.short_gi_txtime", N("standard"), "IEEE 802.11-2012 20.4.3 Equation 20-92: 802.11n's short-GI data symbols end on the 4 us symbol grid"),
        e("wifi.vht_sig_b", N("sent"), "IEEE 802.11-2016 21.4.3 Equation 21-105: a VHT PPDU's TXTIME holds T_VHT-SIG-B = 4 us"),
        e("wifi.retry_count", N("separate"), "IEEE 802.11-2012 9.3.4.4: short (SSRC, reset by a CTS) and long (SLRC) retry counts"),
        e("wifi.llc_snap_bytes", I(0), "wtcp's choice (IP packets straight after the MAC header); IP over 802.11 carries an 8-byte LLC/SNAP header (IEEE 802.2, RFC 1042)"),
        e("wifi.ack_timeout", N("response_end"), "wtcp's choice (the response's end); 802.11's ACKTimeout is SIFS + aSlotTime + aPHY-RX-START-Delay: `rx_start`"),
        e("cc.reno.ecn", B(true), "RFC 3168 §6.1.2"),
        e("cc.newreno.ecn", B(true), "RFC 3168 §6.1.2"),
    ],
};

const NS2: Profile = Profile {
    name: "ns2",
    title: "ns-2.35 (tcl/lib/ns-default.tcl; Agent/TCP/Newreno with the default Agent/TCPSink)",
    note: "Line numbers are ns-2.35's. Not set: send buffer (an FTP source is unlimited), handshake (ns-2 sends a 40-byte SYN-sized segment 0 with cwnd 1, tcp.cc:699-705, which wtcp does not model), the EIFS (ns-2 sets a NAV of SIFS + DIFS + an ACK at 1 Mb/s and then waits another DIFS, mac-802_11.cc:1655-1667; neither wtcp rule is that).",
    fills: true,
    entries: &[
        e("tcp.mss_bytes", I(1000), "ns-default.tcl:936 Agent/TCP set packetSize_ 1000"),
        e("tcp.header_bytes", I(40), "ns-default.tcl:937 Agent/TCP set tcpip_base_hdr_size_ 40"),
        e("tcp.timestamps", B(false), "ns-default.tcl:946 Agent/TCP set timestamps_ false"),
        e("tcp.initial_cwnd_segments", F(2.0), "ns-default.tcl:920-922 windowInit_ 2, windowInitOption_ 1; tcp.cc:425-430"),
        e("tcp.send_buffer_bytes", Seg(20.0), "ns-default.tcl:919 Agent/TCP set window_ 20 (packets): tcp.cc:888-901 sends while outstanding data fits min(cwnd_, window_), whatever the receiver holds (wtcp's send-buffer cap; the receive window stays wtcp's)"),
        e("tcp.initial_ssthresh_segments", Setting::WindowSegments, "tcp.cc:462 TcpAgent::reset: ssthresh_ = int(wnd_), the window_ in packets"),
        e("tcp.rto_initial_s", F(3.0), "ns-default.tcl:961 Agent/TCP set rtxcur_init_ 3.0"),
        e("tcp.rto_min_s", F(0.2), "ns-default.tcl:956 Agent/TCP set minrto_ 0.2 (before the backoff, rfc2988_ true: tcp.cc:533-537)"),
        e("tcp.rto_max_s", F(60.0), "ns-default.tcl:954 Agent/TCP set maxrto_ 60"),
        e("tcp.clock_granularity_s", F(0.01), "ns-default.tcl:952 Agent/TCP set tcpTick_ 0.01"),
        e("tcp.max_backoff", I(16), "tcp.cc:611-627: with rfc2988_ the backoff doubles while the RTO is below maxrto_ (the 60 s cap binds first)"),
        e("tcp.rtt_sampling", N("one_per_rtt"), "tcp.cc:779-786, 1390-1402: one timed segment (rtt_active_, rtt_seq_) without timestamps_"),
        e("tcp.ts_recent", N("ns2"), "tcp-sink.cc Acker::update_ts with ns-default.tcl's Agent/TCPSink ts_echo_rfc1323_ false, ts_echo_bugfix_ true: ts_to_echo_ = ts if ts >= ts_to_echo_ and seqno <= last_ack_sent_ + 1 (old duplicates included)"),
        e("tcp.dupack_threshold", I(3), "ns-default.tcl:909 Agent/TCP set numdupacks_ 3"),
        e("tcp.limited_transmit", B(true), "ns-default.tcl:987 Agent/TCP set singledup_ 1"),
        e("tcp.delayed_ack", B(false), "ns-default.tcl:1051-1066, tcp-sink.cc: Agent/TCPSink acknowledges every packet (Agent/TCPSink/DelAck is another agent)"),
        e("tcp.ecn", B(false), "ns-default.tcl:933 Agent/TCP set ecn_ 0"),
        e("tcp.frto", B(false), "ns-default.tcl:1047-1048 frto_enabled_ 0, sfrto_enabled_ 0"),
        e("tcp.partial_ack_timer", N("impatient"), "ns-default.tcl:1076-1084 Agent/TCP/Newreno set newreno_changes1_ 1; tcp-newreno.cc:93-101 resets the timer on the first partial ACK only"),
        e("tcp.sack", B(false), "ns-default.tcl:1056: SACK is Agent/TCP/Sack1 with Agent/TCPSink/Sack1, not the default agents"),
        e("tcp.recovery", N("classic"), "tcp-newreno.cc: RFC 3782 recovery with window inflation"),
        e("tcp.backoff_reset", N("rtt_sample"), "tcp.cc:1376-1397: t_backoff_ = 1 when the timed segment is acknowledged"),
        e("links.queue.limit_packets", I(50), "ns-default.tcl:86 Queue set limit_ 50 (packets; DropTail queue_in_bytes_ false, :104)"),
        e("wifi.rts_threshold_bytes", I(0), "ns-default.tcl:691 Mac/802_11 set RTSThreshold_ 0 (RTS/CTS before every unicast frame, mac-802_11.cc:1075)"),
        e("wifi.short_retry_limit", I(7), "ns-default.tcl:692 Mac/802_11 set ShortRetryLimit_ 7"),
        e("wifi.long_retry_limit", I(4), "ns-default.tcl:693 Mac/802_11 set LongRetryLimit_ 4"),
        e("wifi.queue_packets", I(50), "ns-default.tcl:86 Queue set limit_ 50, the interface queue unless -ifqLen is given (ns-mobilenode.tcl:454-468)"),
        e("wifi.backoff_rule", N("idle_slots_only"), "mac-timers.cc:320-340 BackoffTimer::pause subtracts whole idle slots only"),
        e("wifi.eifs_trigger", N("any_error"), "mac-802_11.cc Mac802_11::recv_timer sets the NAV to EIFS after a collision (MAC_COLL) or a packet in error, including one that began while transmitting (recv flags it when tx_active_); it drops silently one whose reception ends while transmitting (wtcp: EIFS)"),
        e("cc.reno.ecn", B(false), "ns-default.tcl:933 Agent/TCP set ecn_ 0: ECN echoes are not acted on"),
        e("cc.newreno.ecn", B(false), "ns-default.tcl:933 Agent/TCP set ecn_ 0: ECN echoes are not acted on"),
        e("cc.reno.halve", N("cwnd"), "tcp.cc TcpAgent::slowdown: ssthresh_ from the window (CLOSE_SSTHRESH_HALF), not FlightSize"),
        e("cc.newreno.halve", N("cwnd"), "tcp.cc TcpAgent::slowdown: ssthresh_ from the window (CLOSE_SSTHRESH_HALF), not FlightSize"),
    ],
};

const NS3: Profile = Profile {
    name: "ns3",
    title: "ns-3.44 (TcpSocket, TcpSocketBase, point-to-point and Wi-Fi attributes)",
    note: "Line numbers are tag ns-3.44's (attribute values also read from the 3.44 wheel). ns-3 has one FrameRetryLimit for every frame and no F-RTO. The ns-3 engine builds device queues, and a queue disc only where a scenario puts FQ-CoDel on an 802.11 interface queue: the FqCoDel queue disc Ipv4AddressHelper would add is not installed.",
    fills: true,
    entries: &[
        e("tcp.mss_bytes", I(536), "tcp-socket.cc:61 ns3::TcpSocket::SegmentSize"),
        e("tcp.timestamps", B(true), "tcp-socket-base.cc:137 ns3::TcpSocketBase::Timestamp"),
        e("tcp.initial_cwnd_segments", F(10.0), "tcp-socket.cc:73 ns3::TcpSocket::InitialCwnd"),
        e("tcp.rto_initial_s", F(1.0), "rtt-estimator.cc:40 ns3::RttEstimator::InitialEstimation (the SYN uses ConnTimeout 3 s, tcp-socket.cc:79)"),
        e("tcp.rto_min_s", F(1.0), "tcp-socket-base.cc:142 ns3::TcpSocketBase::MinRto"),
        e("tcp.rto_max_s", F(60.0), "tcp-socket-base.cc:3950-3951 ReTxTimeout: Min(2 * m_rto, 60 s)"),
        e("tcp.clock_granularity_s", F(0.001), "tcp-socket-base.cc:149 ns3::TcpSocketBase::ClockGranularity"),
        e("tcp.rtt_sampling", N("ns3"), "tcp-socket-base.cc:3717-3807 EstimateRtt on every ACK from the oldest RttHistory record; 3954 ReTxTimeout clears the history, 3360-3366 records only new data; tcp-option-ts.cc:123-146 TSval in milliseconds"),
        e("tcp.dupack_threshold", I(3), "tcp-socket-base.cc:176 ns3::TcpSocketBase::ReTxThreshold"),
        e("tcp.limited_transmit", B(true), "tcp-socket-base.cc:182 ns3::TcpSocketBase::LimitedTransmit"),
        e("tcp.delayed_ack", B(true), "tcp-socket.cc:97 ns3::TcpSocket::DelAckCount 2"),
        e("tcp.delayed_ack_count", I(2), "tcp-socket.cc:97 ns3::TcpSocket::DelAckCount"),
        e("tcp.delayed_ack_timeout_s", F(0.2), "tcp-socket.cc:103 ns3::TcpSocket::DelAckTimeout"),
        e("tcp.send_buffer_bytes", I(131072), "tcp-socket.cc:49 ns3::TcpSocket::SndBufSize"),
        e("tcp.recv_buffer_bytes", I(131072), "tcp-socket.cc:55 ns3::TcpSocket::RcvBufSize"),
        e("tcp.ecn", B(false), "tcp-socket-base.cc:187 ns3::TcpSocketBase::UseEcn Off"),
        e("tcp.frto", B(false), "ns-3.44 has no F-RTO"),
        e("tcp.partial_ack_timer", N("impatient"), "tcp-socket-base.cc TcpSocketBase::ProcessAck: the RTO restarts on the first partial ACK (the translator's reading)"),
        e("tcp.sack", B(true), "tcp-socket-base.cc:132 ns3::TcpSocketBase::Sack"),
        e("tcp.recovery", N("prr"), "tcp-l4-protocol.cc:67-79 ns3::TcpL4Protocol::RecoveryType ns3::TcpPrrRecovery"),
        e("tcp.loss_detection", N("dupack"), "ns-3.44 has no RACK (tcp-recovery-ops.cc: classic, tcp-prr-recovery.cc: PRR; loss by TcpTxBuffer::IsLost)"),
        e("tcp.tail_loss_probe", B(false), "ns-3.44 has no tail loss probe (TcpSocketBase's only retransmission timer is m_retxEvent)"),
        e("tcp.rearm_rto_on_head_retransmit", B(false), "tcp-socket-base.cc SendDataPacket schedules the retransmission timer only when it has expired"),
        e("tcp.backoff_reset", N("new_ack"), "tcp-socket-base.cc:3813-3834 NewAck recomputes the RTO from SRTT and RTTVAR"),
        e("tcp.handshake", B(true), "tcp-socket-base.cc:2860-2878 Connect: SYN / SYN-ACK"),
        e("tcp.prr_recover_fs", N("pipe"), "tcp-prr-recovery.cc:64 EnterRecovery: m_recoveryFlightSize = tcb->m_bytesInFlight (the RFC 6675 pipe)"),
        e("tcp.prr_dupack_credit", B(true), "tcp-prr-recovery.cc:74-77 DoRecovery: deliveredBytes += SMSS on a duplicate ACK while m_prrDelivered < m_recoveryFlightSize"),
        e("tcp.prr_extra_segment", N("retransmission_acked"), "tcp-prr-recovery.cc:93-106: the + MSS of SSRB only if tcb->m_isRetransDataAcked (tcp-socket-base.cc:1876-1887: a partial ACK covering a retransmission)"),
        e("tcp.timeout_count_reset", N("every_timeout"), "tcp-socket-base.cc:3939 ReTxTimeout calls SetSentListLost, which clears every m_retrans (tcp-tx-buffer.cc:1299), so the test at 3961 (CA_LOSS and head retransmitted: keep ssthresh) never holds: GetSsThresh(inFlightBeforeRto) on every timeout"),
        e("tcp.recovery_exit_growth", B(true), "tcp-socket-base.cc:2207-2254 ProcessAck: the ACK that leaves CA_RECOVERY sets cwnd = ssthresh, then IncreaseWindow(segsAcked = (ack - old head) / MSS)"),
        e("tcp.loss_exit_credit", N("above_recovery_point"), "tcp-socket-base.cc:2219-2233 ProcessAck: leaving CA_LOSS, segsAcked = (ack - m_recover) / segmentSize goes to PktsAcked and IncreaseWindow"),
        e("tcp.reno_sack", B(true), "tcp-tx-buffer.cc:1368-1409 AddRenoSack on every duplicate ACK (tcp-socket-base.cc:1686-1690, 1774-1779, 1834-1837), kept after recovery; tcp-tx-buffer.cc:735-749 an ACK into the marks presumes the head lost; tcp-socket-base.cc:3917-3925, 3939 a timeout forgets them and marks all sent data lost (go-back-N resends what the receiver holds); 1745-1748 duplicate ACKs ignored in CA_LOSS"),
        e("tcp.timeout_in_recovery", N("cut"), "tcp-socket-base.cc:3939-3975 ReTxTimeout: GetSsThresh(inFlightBeforeRto) in every state but CA_LOSS (with the head retransmitted), CA_RECOVERY included"),
        e("tcp.receive_window", N("whole_buffer"), "tcp-socket-base.cc:3593 AdvertisedWindowSize = MaxRxSequence - NextRxSequence; tcp-rx-buffer.cc:101-114 MaxRxSequence = NextRxSequence + RcvBufSize while no in-order data waits (the application reads at once): out-of-order data does not shrink it"),
        e("tcp.handshake_ack", B(true), "tcp-socket-base.cc:2373 ProcessSynSent: SendEmptyPacket(ACK), then SendPendingData (2389)"),
        e("tcp.quick_acks_at_start", I(1), "tcp-socket-base.cc:2445-2447 ProcessSynRcvd: m_delAckCount = m_delAckMaxCount (\"Always respond to first data packet\"), so ReceivedData (3681) acknowledges the first in-order segment at once; any ACK sent resets the count (2892)"),
        e("tcp.ts_recent", N("ns3"), "tcp-socket-base.cc:4459-4481 ProcessOptionTimestamp: a TSval below the largest seen is ignored; m_timestampToEcho only from the segment at NextRxSequence, at or below m_highTxAck"),
        e("tcp.cwnd_limited", N("ns3"), "tcp-socket-base.cc:3336 SendDataPacket: m_isCwndLimited = cwnd < BytesInFlight + segmentSize after every data segment; tested by tcp-cubic.cc:187-192 and tcp-linux-reno.cc:71 (SuppressIncreaseIfCwndLimited, default true)"),
        e("links.queue.limit_packets", I(100), "drop-tail-queue.h:66-68 DropTailQueue<Packet>::MaxSize 100p (point-to-point-helper.cc:36)"),
        e("links.link_header_bytes", I(2), "point-to-point-net-device.cc:181-186 AddHeader: a 2-byte PppHeader on every frame"),
        e("wifi.rts_threshold_bytes", I(4_692_480), "wifi-remote-station-manager.cc:77-83 RtsCtsThreshold 4692480 (RTS/CTS never used)"),
        e("wifi.short_retry_limit", I(7), "wifi-mac.cc:150-156 ns3::WifiMac::FrameRetryLimit 7"),
        e("wifi.long_retry_limit", I(7), "wifi-mac.cc:150-156 ns3::WifiMac::FrameRetryLimit 7 (MaxSlrc is obsolete)"),
        e("wifi.queue_packets", I(499), "wifi-mac-queue.cc:37-41 ns3::WifiMacQueue::MaxSize 500p, which counts the MPDU in service until it is acknowledged or given up (frame-exchange-manager.cc:1514 DequeueMpdu; fcfs-wifi-queue-scheduler.cc:84): 499 wait behind it"),
        e("wifi.backoff_rule", N("idle_slots_only"), "channel-access-manager.cc:744-758: whole idle slots only for DCF (QosSupported false)"),
        e("wifi.eifs_trigger", N("header_received"), "channel-access-manager.cc:664-666, 935-941: EIFS only after NotifyRxEndErrorNow, a reception whose header succeeded; phy-entity.cc:462-464 drops a preamble arriving while transmitting; an OFDM header lost to an equal-power overlap ends without it (ofdm-phy.cc L-SIG failure); a DSSS header may survive (SINR-dependent)"),
        e("wifi.eifs", N("lowest_mandatory_dsss"), "wifi-phy.cc:903-913 Configure80211g keeps 802.11b's ACK time (1 Mb/s DSSS, 304 us); channel-access-manager.cc:364-367 EIFS = SIFS + that ACK + DIFS"),
        e("wifi.cw_after_give_up", N("kept"), "txop.cc:377-399 UpdateFailedCw: a station retry count, incremented by every failure up to FrameRetryLimit and reset by the failure after it (or by a success, frame-exchange-manager.cc:1503 ResetCw), sets CW = min(CWmax, 2^count (CWmin + 1) - 1); a frame given up leaves its CW to the next"),
        e("wifi.arrival_backoff", N("if_busy"), "channel-access-manager.cc:471-527 NeedBackoffUponAccess, txop.cc:705-734: a frame reaching a station with no backoff pending and the medium not busy goes without a backoff, a DIFS after the later of its arrival and the last busy end (its own pending ACK included); a QoS station (802.11n/ac) AIFS after the last busy end or, if later, at the first slot boundary after its arrival (507-519, RequestAccess 544-557)"),
        e("wifi.after_timeout", N("difs"), "channel-access-manager.cc:669-687 GetAccessGrantStart: the end of an ACK or CTS timeout (frame-exchange-manager.cc:589, 832) starts a DIFS like the end of a busy period"),
        e("wifi.short_gi_txtime", N("unrounded"), "ht-phy.cc:339-340 HtPhy::GetPayloadDuration: N_SYM x the 3.6 us short-GI symbol, not rounded to the 4 us grid"),
        e("wifi.vht_sig_b", N("omitted"), "vht-phy.cc VhtPhy::GetSigBDuration: VHT-SIG-B (4 us) only in a multi-user PPDU, none in a single-user one"),
        e("wifi.retry_count", N("combined"), "wifi-remote-station-manager.cc:1152-1170: one retry count per MPDU, incremented by every failed RTS and data frame, against WifiMac::FrameRetryLimit; a CTS resets only statistics (frame-exchange-manager.cc:1396-1416)"),
        e("wifi.llc_snap_bytes", I(8), "wifi-net-device.cc:587-589 WifiNetDevice::Send adds an LlcSnapHeader (8 bytes) to every packet"),
        e("wifi.ack_timeout", N("rx_start"), "frame-exchange-manager.cc:578-580 timeout = txDuration + SIFS + slot + PHY preamble and header of the ACK (819-823 for the CTS); RxStartIndication (290-305) reschedules it to the PSDU's end"),
        e("cc.newreno.halve", N("pipe"), "tcp-congestion-ops.cc TcpNewReno::GetSsThresh halves BytesInFlight"),
        e("cc.westwoodplus.accounting", N("ns3_literal"), "tcp-socket-base.cc ProcessAck: PktsAcked gets (ACK - old head) when leaving recovery (2209), bytes duplicates already counted included, and elsewhere the bytes its rate sampler newly delivered (currentDelivered, 1892, 2044)"),
        e("cc.cubic.hystart", B(false), "ns-3.44's TcpCubic HyStart is the 2011 one, not RFC 9406's; off in both engines"),
        e("cc.cubic.reduce", N("cwnd"), "tcp-cubic.cc TcpCubic::GetSsThresh multiplies cwnd by beta"),
        e("cc.cubic.arithmetic", N("ns3"), "tcp-cubic.cc IncreaseWindow, Update, GetSsThresh, CubicReset: whole segments, a growth counter m_cWndCnt never reset, uint32 target and ssthresh, W_max kept over a timeout"),
        e("cc.cubic.alpha_switch", B(false), "tcp-cubic.cc:326-343 TcpFriendliness (default true): m_tcpCwnd + 1 per (segCwnd * scale >> 3) ACKs, scale = 8 (1024 + 1024 beta) / 3 / (1024 - 1024 beta): alpha fixed, no switch to 1"),
        e("cc.cubic.growth_unit", N("segment"), "tcp-cubic.cc:218-230 IncreaseWindow: m_cWndCnt += segmentsAcked, cwnd + 1 segment once it reaches cnt = segCwnd / (target - segCwnd)"),
        e("cc.cubic.slow_start", N("segments_acked"), "tcp-cubic.cc:194-214 IncreaseWindow: cwnd += segmentsAcked * segmentSize in slow start, not capped at ssthresh (ABC standing in for Linux's QUICKACK)"),
        e("cc.vegas.model", N("ns3"), "tcp-vegas.cc:146-267 IncreaseWindow (Linux's structure: integer diff, NewReno growth with m_cntRtt <= 2), 112-144 Vegas only in CA_OPEN"),
        e("cc.vegas.alpha", F(2.0), "tcp-vegas.cc:34-36 ns3::TcpVegas::Alpha 2"),
        e("cc.vegas.beta", F(4.0), "tcp-vegas.cc:39-41 ns3::TcpVegas::Beta 4"),
        e("cc.vegas.gamma", F(1.0), "tcp-vegas.cc:44-46 ns3::TcpVegas::Gamma 1"),
        e("cc.vegas.rtt", N("smoothed"), "tcp-socket-base.cc:2038,2108 PktsAcked(m_tcb, n, m_tcb->m_srtt); tcp-vegas.cc:92-108 takes it as the RTT"),
        e("cc.vegas.round_rtt", N("min"), "tcp-vegas.cc:101 m_minRtt = min(m_minRtt, rtt), reset each round (264) and on re-entering CA_OPEN (120)"),
        e("cc.vegas.loss_response", N("one_segment"), "tcp-vegas.cc:279-283 GetSsThresh = max(min(ssthresh, cwnd - 1 segment), 2 segments); 258 ssthresh >= 3/4 cwnd"),
        e("cc.veno.rtt", N("smoothed"), "tcp-socket-base.cc:2038,2108 PktsAcked(m_tcb, n, m_tcb->m_srtt); tcp-veno.cc:82-98"),
        e("cc.veno.backlog", N("whole_segments"), "tcp-veno.cc:153-158 targetCwnd = (uint32_t)(segCwnd * BaseRTT / minRtt), m_diff = segCwnd - targetCwnd"),
        e("cc.veno.cut_of", N("pipe"), "tcp-veno.cc:229-248 GetSsThresh multiplies bytesInFlight (tcp-socket-base.cc EnterRecovery: BytesInFlight())"),
        e("cc.veno.growth", N("reno"), "tcp-veno.cc:165-218 m_cntRtt = 0 on every IncreaseWindow, so on ordinary ACKs m_cntRtt <= 2 selects TcpNewReno::IncreaseWindow"),
        e("cc.veno.timeout_cut", N("veno"), "tcp-socket-base.cc:3916,3963 ReTxTimeout: ssthresh = GetSsThresh(inFlightBeforeRto)"),
        e("cc.veno.recovery", N("newreno"), "tcp-socket-base.cc ProcessAck: partial ACKs keep CA_RECOVERY for every congestion control"),
    ],
};

const QUALNET: Profile = Profile {
    name: "qualnet",
    title: "QualNet (TCP variant RENO; values read in the QualNet 5.0 source)",
    note: "No QualNet 4.5 source was available; the values are QualNet 5.0's FreeBSD-derived TCP (libraries/developer/src/transport_tcp*), which 4.5 is believed to share (unverified). QualNet's default variant is LITE; RENO is what the Dynamic paper names. Its 500 ms slow-timer RTT estimator is approximated by the 0.5 s clock granularity only.",
    fills: true,
    entries: &[
        e("tcp.mss_bytes", I(512), "transport_tcp.cpp:48 TCP-MSS 512"),
        e("tcp.timestamps", B(false), "transport_tcp.cpp:3288-3320: RFC 1323 options are never used by TAHOE/RENO"),
        e("tcp.initial_cwnd_segments", F(1.0), "transport_tcp_input.cpp:603-604 tcp_mss: snd_cwnd = mss"),
        e("tcp.rto_initial_s", F(6.0), "transport_tcp_subr.cpp:508 t_rxtcur = TCPTV_RTOBASE * 2 (12 ticks of 500 ms)"),
        e("tcp.rto_min_s", F(1.0), "transport_tcp_timer.h:122 TCPTV_MIN 2 ticks"),
        e("tcp.rto_max_s", F(64.0), "transport_tcp_timer.h:123 TCPTV_REXMTMAX 128 ticks"),
        e("tcp.clock_granularity_s", F(0.5), "transport_tcp.cpp:45-46 slow timer 500 ms (PR_SLOWHZ 2)"),
        e("tcp.max_backoff", I(6), "transport_tcp_timer.h:141-142 backoff table up to x64"),
        e("tcp.rtt_sampling", N("one_per_rtt"), "transport_tcp_output.cpp:886-893 one timed segment (t_rtt, t_rtseq)"),
        e("tcp.limited_transmit", B(false), "not implemented in QualNet's TCP"),
        e("tcp.delayed_ack", B(true), "transport_tcp.cpp:78-104 TCP-DELAY-ACKS YES"),
        e("tcp.delayed_ack_count", I(2), "transport_tcp_output.cpp:545: an ACK once the window update reaches 2 MSS"),
        e("tcp.delayed_ack_timeout_s", F(0.2), "transport_tcp.cpp:45 fast timer 200 ms flushes TF_DELACK"),
        e("tcp.send_buffer_bytes", I(16384), "transport_tcp.cpp:49 TCP-SEND-BUFFER 16384"),
        e("tcp.recv_buffer_bytes", I(16384), "transport_tcp.cpp:50 TCP-RECEIVE-BUFFER 16384"),
        e("tcp.ecn", B(false), "transport_tcp.cpp:545-549 ECN NO"),
        e("tcp.partial_ack_timer", N("impatient"), "transport_tcp_input.cpp:2045-2047 timer reset on the first partial ACK only"),
        e("tcp.sack", B(false), "transport_tcp.cpp:3150-3157: SACK is its own variant"),
        e("tcp.recovery", N("classic"), "transport_tcp_input.cpp:1926-2100 BSD fast recovery"),
        e("tcp.backoff_reset", N("rtt_sample"), "transport_tcp_input.cpp:268 tcp_xmit_timer: t_rxtshift = 0"),
        e("tcp.handshake", B(true), "BSD three-way handshake"),
        e("links.queue.limit_bytes", I(150_000), "include/network.h:40 DEFAULT_NETWORK_OUTPUT_QUEUE_SIZE 150000 (IP-QUEUE-PRIORITY-QUEUE-SIZE)"),
        e("wifi.rts_threshold_bytes", I(0), "mac_dot11.h:118-121 DOT11_RTS_THRESH 0"),
        e("wifi.short_retry_limit", I(7), "mac_dot11.h:124 MAC-DOT11-SHORT-PACKET-TRANSMIT-LIMIT 7"),
        e("wifi.long_retry_limit", I(4), "mac_dot11.h:125 MAC-DOT11-LONG-PACKET-TRANSMIT-LIMIT 4"),
        e("wifi.backoff_rule", N("idle_slots_only"), "mac_dot11-sta.h:2405-2412: the paused backoff keeps whole idle slots only"),
    ],
};

const LINUX: Profile = Profile {
    name: "linux",
    title: "Linux 6.x TCP (sysctl defaults; line numbers of 6.1.192)",
    note: "Not modelled, so the closest wtcp value is listed: the adaptive delayed ACK (40-200 ms, quick-ACK mode), buffer auto-tuning, undo on D-SACK or timestamps, RACK's marking after a timeout (RFC 8985 §6.3), and CUBIC as the default algorithm (a flow's cc is its own).",
    fills: true,
    entries: &[
        e("tcp.mss_bytes", I(1448), "include/net/tcp.h:73: a 1500-byte MTU less 40 bytes of headers and 12 of timestamps"),
        e("tcp.timestamps", B(true), "tcp_ipv4.c:3336 net.ipv4.tcp_timestamps = 1"),
        e("tcp.initial_cwnd_segments", F(10.0), "include/net/tcp.h:236 TCP_INIT_CWND 10"),
        e("tcp.rto_initial_s", F(1.0), "include/net/tcp.h:149 TCP_TIMEOUT_INIT (1 s)"),
        e("tcp.rto_min_s", F(0.2), "include/net/tcp.h:144 TCP_RTO_MIN (HZ/5)"),
        e("tcp.rto_max_s", F(120.0), "include/net/tcp.h:143 TCP_RTO_MAX (120 s)"),
        e("tcp.rto_estimator", N("linux"), "tcp_input.c tcp_rtt_estimator (rttvar_us at least tcp_rto_min_us, held at each round trip's largest mdev_max_us; a falling RTT's error weighted 1/32), include/net/tcp.h __tcp_set_rto (RTO = srtt + rttvar_us)"),
        e("tcp.clock_granularity_s", F(0.001), "include/net/tcp.h:727: RTT kept in microseconds, RTO in jiffies"),
        e("tcp.rtt_sampling", N("every_ack"), "tcp_input.c:3165-3211 tcp_ack_update_rtt"),
        e("tcp.dupack_threshold", I(3), "tcp_ipv4.c:3322 net.ipv4.tcp_reordering = 3"),
        e("tcp.limited_transmit", B(true), "implicit: dup-ACKed and SACKed segments leave packets_in_flight"),
        e("tcp.delayed_ack", B(true), "tcp_input.c:5645-5665 __tcp_ack_snd_check"),
        e("tcp.delayed_ack_count", I(2), "tcp_input.c:5645-5665: an ACK once more than one full-sized segment is unacknowledged"),
        e("tcp.delayed_ack_timeout_s", F(0.04), "include/net/tcp.h:135-138 TCP_DELACK_MIN (HZ/25)"),
        e("tcp.quick_acks_at_start", I(16), "tcp_input.c tcp_event_data_recv: the first data segment calls tcp_incr_quickack(sk, TCP_MAX_QUICKACKS = 16) after tcp_measure_rcv_mss: min(rcv_wnd / (2 x that segment's length), 16), 16 for an initial receive window of 32 segments or more (Linux's default, 64 kB; fewer below, e.g. with an initial window above 10, which the linux engine passes as initrwnd, or a small tcp.recv_buffer_bytes); include/net/tcp.h tcp_dec_quickack_mode: one fewer per ACK of new data (6.12)"),
        e("tcp.send_buffer_bytes", I(4_194_304), "tcp.c:4904-4906 net.ipv4.tcp_wmem[2]"),
        e("tcp.recv_buffer_bytes", I(6_291_456), "tcp.c:4908-4910 net.ipv4.tcp_rmem[2] (auto-tuning's ceiling)"),
        e("tcp.ecn", B(false), "tcp_ipv4.c:3306 net.ipv4.tcp_ecn = 2 (accept ECN when asked, never ask)"),
        e("tcp.frto", B(true), "tcp_ipv4.c:3345 net.ipv4.tcp_frto = 2"),
        e("tcp.partial_ack_timer", N("slow_but_steady"), "tcp_input.c tcp_ack: the RTO is re-armed on every ACK of new data"),
        e("tcp.sack", B(true), "tcp_ipv4.c:3334 net.ipv4.tcp_sack = 1"),
        e("tcp.recovery", N("prr"), "tcp_input.c:2660-2683 tcp_cwnd_reduction (RFC 6937 PRR)"),
        e("tcp.loss_detection", N("rack"), "tcp_recovery.c tcp_rack_mark_lost, tcp_input.c tcp_identify_packet_loss; net.ipv4.tcp_recovery = 1 (TCP_RACK_LOSS_DETECTION, tcp_ipv4.c)"),
        e("tcp.tail_loss_probe", B(true), "net.ipv4.tcp_early_retrans = 3 (tcp_ipv4.c); tcp_output.c tcp_schedule_loss_probe, tcp_send_loss_probe; tcp_input.c tcp_process_tlp_ack (6.12)"),
        e("tcp.rearm_rto_on_head_retransmit", B(true), "tcp_output.c tcp_xmit_retransmit_queue: rearm_timer when the retransmitted skb is the head of the retransmission queue"),
        e("tcp.backoff_reset", N("new_ack"), "tcp_input.c:3205-3209: icsk_backoff = 0 on a valid RTT measurement, which timestamps give on every ACK of new data"),
        e("tcp.handshake", B(true), "a connect()ed socket (include/net/tcp.h:109 tcp_syn_retries)"),
        e("tcp.recovery_exit_growth", B(true), "tcp_input.c tcp_ack: tcp_fastretrans_alert leaves CA_Recovery (tcp_end_cwnd_reduction: cwnd = ssthresh), then tcp_cong_control in CA_Open grows cwnd by the ACK's acked_sacked (tcp_may_raise_cwnd: FLAG_DATA_ACKED); without SACK Linux holds Recovery while SND.UNA is exactly high_seq (tcp_try_undo_recovery)"),
        e("tcp.timeout_in_recovery", N("keep"), "tcp_input.c tcp_enter_loss: prior_ssthresh and snd_ssthresh = ca_ops->ssthresh() only if icsk_ca_state <= TCP_CA_Disorder, or !after(high_seq, snd_una), or a first timeout in CA_Loss"),
        e("tcp.handshake_ack", B(true), "tcp_input.c tcp_rcv_synsent_state_process: tcp_send_ack(sk) unless a write is pending, defer-accept or ping-pong mode (a connect()ed socket written after connect returns)"),
        e("tcp.ts_recent", N("rfc7323"), "tcp_input.c tcp_rcv_established: tcp_sequence drops a segment wholly below rcv_wup, then tcp_replace_ts_recent: ts_recent = rcv_tsval if !after(seq, rcv_wup) and tcp_paws_check (TSval not below ts_recent); Linux also drops a segment PAWS rejects, wtcp only keeps the echo"),
        e("tcp.cwnd_limited", N("linux"), "tcp_output.c tcp_write_xmit -> tcp_cwnd_validate (is_cwnd_limited, max_packets_out, cwnd_usage_seq), include/net/tcp.h tcp_is_cwnd_limited; tested by tcp_cong.c tcp_reno_cong_avoid and tcp_cubic.c cubictcp_cong_avoid"),
        e("links.queue.limit_packets", I(1000), "txqueuelen 1000 (DEFAULT_TX_QUEUE_LEN, pfifo_fast)"),
        e("cc.reno.halve", N("cwnd"), "tcp_cong.c tcp_reno_ssthresh: max(cwnd >> 1, 2)"),
        e("cc.newreno.halve", N("cwnd"), "tcp_cong.c tcp_reno_ssthresh: max(cwnd >> 1, 2)"),
        e("cc.reno.growth", N("linux"), "tcp_cong.c tcp_reno_cong_avoid: tcp_slow_start and tcp_cong_avoid_ai count acknowledged segments"),
        e("cc.newreno.growth", N("linux"), "tcp_cong.c tcp_reno_cong_avoid: tcp_slow_start and tcp_cong_avoid_ai count acknowledged segments"),
        e("cc.cubic.reduce", N("cwnd"), "tcp_cubic.c cubictcp_recalc_ssthresh: max(cwnd * beta / BICTCP_BETA_SCALE, 2)"),
        e("cc.cubic.growth_unit", N("segment"), "tcp_cubic.c cubictcp_cong_avoid: tcp_cong_avoid_ai(tp, ca->cnt, acked), cwnd + 1 per ca->cnt acknowledged segments"),
        e("cc.cubic.beta", F(0.7001953125), "tcp_cubic.c: beta = 717 (/BICTCP_BETA_SCALE 1024)"),
        e("cc.cubic.alpha_switch", B(false), "tcp_cubic.c bictcp_update, tcp_friendliness: tcp_cwnd + 1 per (cwnd * beta_scale >> 3) packets acknowledged, beta_scale = 8 * (1024 + 717) / 3 / (1024 - 717): alpha fixed, no switch to 1"),
        e("cc.cubic.arithmetic", N("linux"), "tcp_cubic.c bictcp_update, cubictcp_cong_avoid, cubictcp_recalc_ssthresh, cubictcp_state, cubictcp_acked; tcp_cong.c tcp_slow_start, tcp_cong_avoid_ai: whole segments, integer counters, time in jiffies"),
        e("cc.cubic.hystart_variant", N("linux"), "tcp_cubic.c: hystart = 1, hystart_detect = HYSTART_ACK_TRAIN | HYSTART_DELAY, hystart_low_window = 16, hystart_ack_delta_us = 2000; cubictcp_acked -> hystart_update sets snd_ssthresh = cwnd"),
        e("cc.cubic.hz", I(250), "CONFIG_HZ, a kernel build option (100, 250, 300 or 1000): 250 in Debian's kernels and in the 6.18 kernel the linux engine was validated on (/proc/config.gz)"),
    ],
};

/// The profile called `name`.
pub fn find(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}

/// The names of every profile, for messages.
pub fn names() -> String {
    PROFILES.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
}

impl Setting {
    /// The value as TOML, with `mss` for a value in segments and `window` (bytes) for the
    /// send window.
    pub fn to_value(self, mss: i64, window: i64) -> Value {
        match self {
            Setting::WindowSegments => Value::Float((window / mss.max(1)) as f64),
            Setting::Bool(b) => Value::Boolean(b),
            Setting::Int(i) => Value::Integer(i),
            Setting::Float(f) => Value::Float(f),
            Setting::Name(s) => Value::String(s.to_string()),
            Setting::Segments(n) => Value::Integer((n * mss as f64).round() as i64),
        }
    }

    /// The value as a reader sees it (`20 segments`, `0.2`, `"prr"`).
    pub fn text(self) -> String {
        match self {
            Setting::Bool(b) => b.to_string(),
            Setting::Int(i) => i.to_string(),
            Setting::Float(f) if f.is_infinite() => "inf".to_string(),
            Setting::Float(f) => wtcp_cc::registry::fmt_num(f),
            Setting::Name(s) => format!("\"{s}\""),
            Setting::Segments(n) => format!("{} segments", wtcp_cc::registry::fmt_num(n)),
            Setting::WindowSegments => "the send window in segments".to_string(),
        }
    }
}

/// The profile the document names (`profile = "..."`), `rfc` when it names none.
pub fn of_document(doc: &Value) -> Result<&'static Profile, ScenarioError> {
    match doc.get("profile") {
        None => Ok(find(DEFAULT_PROFILE).expect("the default profile exists")),
        Some(Value::String(name)) => find(name).ok_or_else(|| ScenarioError::new("profile", format!("unknown profile `{name}`; allowed: {}", names()))),
        Some(other) => Err(ScenarioError::new("profile", format!("is {other}; allowed: a profile name ({})", names()))),
    }
}

/// Fill the document's profile into it where the document leaves a field out. Fields of
/// the wrong type are left for the schema check to report.
pub fn apply(doc: &mut Value) -> Result<&'static Profile, ScenarioError> {
    let profile = of_document(doc)?;
    if !profile.fills {
        return Ok(profile);
    }
    let Some(root) = doc.as_table_mut() else { return Ok(profile) };
    let builtin = super::TcpConfig::default();
    let builtin_mss = i64::from(builtin.mss);
    let builtin_window = builtin.send_buffer_bytes as i64;
    let value = |s: Setting| s.to_value(builtin_mss, builtin_window);
    for entry in profile.entries {
        let (scope, rest) = entry.key.split_once('.').expect("profile keys are dotted");
        match scope {
            "tcp" => fill_tcp(root, rest, entry.value, (builtin_mss, builtin_window)),
            "links" => match rest.strip_prefix("queue.") {
                Some(limit) => {
                    for link in tables_of(root, "links") {
                        let queue = link.entry("queue").or_insert_with(|| Value::Table(Default::default()));
                        if let Some(q) = queue.as_table_mut() {
                            if !q.contains_key("limit_packets") && !q.contains_key("limit_bytes") {
                                q.insert(limit.to_string(), value(entry.value));
                            }
                        }
                    }
                }
                // A link field (`links.KEY`), filled where the link leaves it out.
                None => {
                    for link in tables_of(root, "links") {
                        link.entry(rest).or_insert_with(|| value(entry.value));
                    }
                }
            },
            "wifi" => {
                for channel in tables_of(root, "wifi") {
                    // The interface queue's limit: not where the channel's `queue` table states one.
                    let queue_limit_stated = channel.get("queue").and_then(Value::as_table).is_some_and(|q| q.contains_key("limit_packets") || q.contains_key("limit_bytes"));
                    if rest == "queue_packets" && queue_limit_stated {
                        continue;
                    }
                    channel.entry(rest).or_insert_with(|| value(entry.value));
                }
            }
            "cc" => {
                let (algorithm, param) = rest.split_once('.').expect("cc settings are cc.ALGO.PARAM");
                for flow in tables_of(root, "flows") {
                    let is_tcp = flow.get("kind").is_none_or(|k| k.as_str() == Some("tcp"));
                    let cc = flow.get("cc").map_or(Some(super::DEFAULT_CC), Value::as_str);
                    if is_tcp && cc == Some(algorithm) {
                        let params = flow.entry("cc_params").or_insert_with(|| Value::Table(Default::default()));
                        if let Some(p) = params.as_table_mut() {
                            p.entry(param).or_insert_with(|| value(entry.value));
                        }
                    }
                }
            }
            _ => unreachable!("profile key {} has an unknown scope", entry.key),
        }
    }
    Ok(profile)
}

/// The tables of the array `key` of the document (none if it is not an array of tables).
fn tables_of<'a>(root: &'a mut toml::Table, key: &str) -> impl Iterator<Item = &'a mut toml::Table> {
    root.get_mut(key).and_then(Value::as_array_mut).into_iter().flatten().filter_map(Value::as_table_mut)
}

fn int_of(table: &toml::Table, key: &str) -> Option<i64> {
    table.get(key).and_then(Value::as_integer)
}

/// `[tcp]`'s `key`, if left out. A value derived from the MSS or the send window also
/// goes to every flow whose own `tcp` table states either and not the key.
fn fill_tcp(root: &mut toml::Table, key: &str, value: Setting, (builtin_mss, builtin_window): (i64, i64)) {
    let tcp = root.entry("tcp").or_insert_with(|| Value::Table(Default::default()));
    let Some(tcp) = tcp.as_table_mut() else { return };
    if tcp.contains_key(key) {
        return;
    }
    let mss = int_of(tcp, "mss_bytes").unwrap_or(builtin_mss);
    let window = int_of(tcp, "send_buffer_bytes").unwrap_or(builtin_window);
    tcp.insert(key.to_string(), value.to_value(mss, window));
    if matches!(value, Setting::Segments(_) | Setting::WindowSegments) {
        for flow in tables_of(root, "flows") {
            if let Some(own) = flow.get_mut("tcp").and_then(Value::as_table_mut) {
                let (own_mss, own_window) = (int_of(own, "mss_bytes"), int_of(own, "send_buffer_bytes"));
                if (own_mss.is_some() || own_window.is_some()) && !own.contains_key(key) {
                    // A window in segments follows the flow's MSS; an inherited byte count does not.
                    own.insert(key.to_string(), value.to_value(own_mss.unwrap_or(mss), own_window.unwrap_or(window)));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_has_a_known_scope_and_no_profile_repeats_a_key() {
        for p in PROFILES {
            let mut seen = std::collections::HashSet::new();
            for e in p.entries {
                assert!(seen.insert(e.key), "{}: {} twice", p.name, e.key);
                let scope = e.key.split('.').next().unwrap();
                assert!(["tcp", "links", "wifi", "cc"].contains(&scope), "{}: {}", p.name, e.key);
                assert!(!e.source.is_empty());
            }
        }
    }

    #[test]
    fn ns2_window_counts_segments_of_each_table() {
        let mut doc: Value = toml::from_str(
            "profile = \"ns2\"\n[tcp]\nmss_bytes = 726\n[[flows]]\nsrc = \"a\"\ndst = \"b\"\n[[flows]]\nsrc = \"a\"\ndst = \"b\"\ntcp = { mss_bytes = 1460 }\n",
        )
        .unwrap();
        apply(&mut doc).unwrap();
        assert_eq!(doc["tcp"]["send_buffer_bytes"].as_integer(), Some(20 * 726));
        assert_eq!(doc["flows"][1]["tcp"]["send_buffer_bytes"].as_integer(), Some(20 * 1460));
        assert!(doc["flows"][0].get("tcp").is_none());
        // ns-2's initial ssthresh_ is window_ (packets), per table.
        assert_eq!(doc["tcp"]["initial_ssthresh_segments"].as_float(), Some(20.0));
        assert_eq!(doc["flows"][1]["tcp"]["initial_ssthresh_segments"].as_float(), Some(20.0));
    }

    #[test]
    fn ns2_initial_ssthresh_follows_a_stated_window() {
        let mut doc: Value = toml::from_str("profile = \"ns2\"\n[tcp]\nmss_bytes = 1000\nsend_buffer_bytes = 262144\n").unwrap();
        apply(&mut doc).unwrap();
        assert_eq!(doc["tcp"]["initial_ssthresh_segments"].as_float(), Some(262.0));
    }

    #[test]
    fn a_stated_value_wins_and_cc_settings_reach_only_their_algorithm() {
        let mut doc: Value = toml::from_str(
            "profile = \"ns2\"\n[tcp]\nrto_min_s = 1.0\n[[links]]\nqueue = { limit_bytes = 9000 }\n[[links]]\n[[flows]]\ncc = \"cubic\"\n[[flows]]\ncc_params = { halve = \"flight_size\" }\n[[flows]]\ncc = \"reno\"\n",
        )
        .unwrap();
        apply(&mut doc).unwrap();
        assert_eq!(doc["tcp"]["rto_min_s"].as_float(), Some(1.0));
        assert_eq!(doc["tcp"]["rto_initial_s"].as_float(), Some(3.0));
        assert!(doc["links"][0]["queue"].get("limit_packets").is_none());
        assert_eq!(doc["links"][1]["queue"]["limit_packets"].as_integer(), Some(50));
        assert!(doc["flows"][0].get("cc_params").is_none());
        assert_eq!(doc["flows"][1]["cc_params"]["halve"].as_str(), Some("flight_size"));
        assert_eq!(doc["flows"][1]["cc_params"]["ecn"].as_bool(), Some(false));
        assert_eq!(doc["flows"][2]["cc_params"]["halve"].as_str(), Some("cwnd"));
    }

    #[test]
    fn an_unknown_profile_names_the_known_ones() {
        let mut doc: Value = toml::from_str("profile = \"ns4\"").unwrap();
        let e = apply(&mut doc).unwrap_err();
        assert_eq!(e.path, "profile");
        assert!(e.message.contains("rfc, ns2, ns3, qualnet, linux"), "{}", e.message);
    }
}
