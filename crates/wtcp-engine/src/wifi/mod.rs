//! The 802.11 DCF MAC over a shared channel (IEEE 802.11-2007 clause 9.2).
//!
//! A [`WifiChannel`] is one shared medium with stations at positions (fixed, or moving:
//! [`motion`]). A station senses a transmission if it lies within the carrier-sense range
//! of the transmitter; a frame is received if the receiver lies within the transmission
//! range, nothing else it senses overlaps the frame, it is not itself transmitting, and the
//! frame-error draw (FER = 1 - (1 - BER)^bits) succeeds. Hidden terminals are thus
//! representable. Under the radio model ([`radio`], [`WifiConfig::radio`]) received power,
//! noise and SINR decide instead (`reception.rs`).
//!
//! Each station runs DCF: a DropTail interface queue, binary exponential backoff between
//! CWmin and CWmax with the counter frozen while the medium is busy and resumed after
//! DIFS (EIFS after an undecodable frame), MAC ACK after SIFS with a timeout, short/long
//! retry limits, and RTS/CTS with NAV above an RTS threshold.
//!
//! Engine style: every timer is a [`LazyTimer`](crate::events::LazyTimer) or a plain
//! scheduled [`Event::Wifi`](crate::events::Event::Wifi); packets stay in the caller's
//! pool and are named by id; outcomes go into a caller-provided reusable `Vec`; every
//! random draw (backoff, frame error) comes from the transmitting station's own stream.
//!
//! Deviations / simplifications (the review list):
//! - One constant propagation delay for every pair of stations (Bianchi's delta); it
//!   must be shorter than SIFS.
//! - ACK/CTS timeout: by default the station waits until the response would have ended
//!   (SIFS + response airtime + 2 delta, + 1 ns); 802.11's SIFS + slot + PHY-RX-START
//!   delay, then the response if it began, is [`AckTimeout::RxStart`].
//! - Frames overheard by third parties are decoded (for NAV and the EIFS decision) if in
//!   transmission range and not overlapped; no bit-error draw is made for them.
//! - EIFS follows every frame sensed and not received ([`EifsTrigger::AnyError`], ns-2's
//!   reading), a same-slot collision included; 802.11-2007 9.2.3.4 and ns-3 start it only
//!   after a frame whose PLCP header was received ([`EifsTrigger::HeaderReceived`], the
//!   ns3 profile's). Against ns-3's `wifi-bianchi.cc` tables (`tests/engine/wifi_ns3_gate.rs`):
//!   200 of 200 points within 1.5 % with `header_received`, 178 with `any_error`.
//! - A busy period decides the EIFS anew (a frame received correctly after an erroneous
//!   one ends it; its start is taken as the end of the busy period, as 802.11 words it,
//!   where ns-3 counts from the end of the failed reception); no capture effect (under
//!   the radio model, a stronger preamble within 4 us); no fragmentation, broadcast,
//!   beacons or power save; rate adaptation as [`RateControl::Ideal`] and [`RateControl::MinstrelHt`].
//! - The backoff counter also counts the slot in which the medium turns busy
//!   ([`BackoffRule::BusySlotCounts`], Bianchi's chain and the EDCA slot-boundary rule),
//!   where DCF (802.11-2012 9.3.4.3), ns-2, ns-3 and QualNet count whole idle slots only;
//!   `backoff_rule = "idle_slots_only"` (the ns2, ns3 and qualnet profiles) selects theirs.
//!   Measured on one 802.11g hop with 3 bulk flows: 1.5-2.5 % more goodput than idle-only.
//! - ns-3.44's channel access differs from 802.11's in four places, each an option that
//!   only the ns3 profile turns on, each measured against ns-3 in docs/model.md ("802.11 in
//!   the ns-3 engine"): [`ArrivalBackoff::IfBusy`] (no backoff for a frame that finds the
//!   medium not busy, a DIFS after its arrival), [`AfterTimeout::Difs`],
//!   [`CwAfterGiveUp::Kept`] (ns-3's station retry count) and [`RetryCount::Combined`];
//!   `llc_snap_bytes` and [`EifsRule::LowestMandatoryDsss`] match its framing and 802.11g
//!   EIFS.
//! - Duplicate detection uses the sender's ground truth (has a copy arrived?) instead of
//!   sequence numbers; an MSDU given up after a copy arrived (lost ACKs) is counted in
//!   `gave_up_after_delivery` and not reported as a drop.
//!
//! Retry limits (IEEE 802.11-2012 9.3.4.4, as quoted by the WARP 802.11 reference design;
//! 9.2.5.3 of the 1999/2007 editions, "Recovery procedures and retransmit limits"): every
//! failed transmission increments the short retry count (SRC/SSRC: RTS frames and data
//! frames up to dot11RTSThreshold) or the long one (LRC/SLRC: data frames above it), and
//! "retries for failed transmission attempts shall continue until the SRC for the MPDU ...
//! is equal to dot11ShortRetryLimit or until the LRC ... is equal to dot11LongRetryLimit.
//! When either of these limits is reached, retry attempts shall cease, and the MSDU ...
//! shall be discarded". So the limits count transmission attempts: with the defaults 7 /
//! 4, a frame that always fails is sent 7 times (under RTS/CTS an RTS never answered is
//! sent 7 times, and a data frame sent after a CTS and never acknowledged 4 times). ns-2
//! (`Mac802_11::RetransmitDATA`: `(*rcount)++; if (*rcount >= thresh)` discard, "IEEE
//! Spec section 9.2.3.5 says this should be greater than or equal") reads it the same way,
//! and so does ns-3.44's `WifiMac::FrameRetryLimit`: "The maximum number of transmission
//! attempts of a frame that are made before a failure condition is indicated. This
//! corresponds to the dot11ShortRetryLimit parameter in the standard." `retry_hist` bins
//! acknowledged MSDUs by retries (at most `limit - 1` without RTS/CTS).
//!
//! Deviation under RTS/CTS (only with `rts_threshold_bytes` set; off by default): a CTS
//! resets the station's SSRC, which here is also the count held against the limit, as in
//! ns-2 (`recvCTS` resets `ssrc_`). 802.11-2012 keeps a per-MSDU SRC that a CTS does not
//! reset ("If the RTS transmission fails, the SRC for the MSDU ... and the SSRC are
//! incremented"; only "The SSRC shall be reset to 0 when a CTS frame is received"), so
//! there an MSDU whose RTS exchanges keep failing between CTSs is discarded sooner.
//!
//! EIFS: "the length of time it takes to transmit an ACK Control frame at the PHY's lowest
//! mandatory rate" plus SIFS and DIFS (IEEE 802.11 9.2.10 as quoted in the 802.11e "EIFS
//! Correction" submission; 9.2.3.4: used after a frame not received correctly): a
//! property of the PHY, not of the BSS basic rate set. See [`PhyParams::eifs`];
//! [`EifsRule::BasicRate`] keeps the older reading.
//!
//! MAC hint (the engine's routing, `sim.rs`): a station that gives up on a frame carrying
//! a TCP segment raises `Signal::MacRetryLimit` at that flow's sender only when the
//! station is the sender's own node: TCP-CLAP (`shared/papers/tcp-clap.txt`) counts "the
//! number of MAC retransmissions for each of the n segments composing the current TCP
//! window" (line 141), in the transmitter's MAC ("when the 802.11 acknowledgement is not
//! received by the transmitter", line 141; Fig. 6, lines 161-172, sets `LDA_Estimator`
//! "at MAC layer" and Fig. 7, lines 178-190, reads it "at Transport Layer", "/* Calculated
//! at MAC Layer */"), with "NewReno at a Transport Layer and 802.11g at MAC layer" in one
//! host (line 200), and sets itself apart from schemes that "require TCP-specific actions
//! on the part of intermediate nodes on the path" (line 35). A wired sender behind an
//! access point therefore gets no hint by default; the scenario option `mac_hint =
//! "relay"` (with `mac_hint_relay_delay_ms`) lets any other station of the channel notify
//! the sender, as an explicit what-if.

pub mod ampdu;
mod channel;
mod dcf;
pub mod phy;
pub mod minstrel;
pub mod motion;
pub mod radio;
mod reception;

pub use ampdu::Aggregation;
pub use channel::WifiChannel;
pub use dcf::StationStats;
pub use phy::{HtMode, PhyKind, PhyParams, VhtSigB};

use crate::net::DropCause;
use crate::packet::PacketId;
use crate::time::Time;

/// How an 802.11n/ac station picks the MCS of its data frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RateControl {
    /// The channel's `mcs`, always.
    #[default]
    Constant,
    /// The fastest MCS whose SNR threshold (the SNR at which the NIST model's coded bit
    /// error rate is 1e-6) lies below the SNR the destination last reported for a data
    /// frame; MCS 0 until the first report and after a frame is given up (with aggregation:
    /// after a missed Block Ack whose MPDU reached its retry limit). ns-3.44's
    /// IdealWifiManager (ideal-wifi-manager.cc:55-59, 286-341, 376-466), the radio model only.
    Ideal,
    /// Linux's Minstrel-HT (`rc80211_minstrel_ht.c`, v6.18): throughput-ranked rates from
    /// each rate's filtered success ratio, a four-entry retry chain and sampling every 20 ms;
    /// per destination. See [`minstrel`].
    MinstrelHt,
}

impl RateControl {
    /// The scenario's name of it.
    pub fn name(self) -> &'static str {
        match self {
            RateControl::Constant => "constant",
            RateControl::Ideal => "ideal",
            RateControl::MinstrelHt => "minstrel_ht",
        }
    }
}

/// How a failed exchange is timed (what the test model calls Tc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollisionTiming {
    /// The standard: senders learn of a failure at the ACK/CTS timeout; stations that
    /// sensed an undecodable frame defer EIFS. Tc = H + P + SIFS + ACK + DIFS + delta.
    Standard,
    /// Bianchi's idealisation (JSAC 2000, eqs. 17-18): a sender learns of a failure as
    /// soon as the frame ends at the receiver and everyone defers DIFS only.
    /// Tc = H + P + DIFS + delta (basic), RTS + DIFS + delta (RTS/CTS).
    Bianchi,
}

/// What a busy period does to a counting backoff.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BackoffRule {
    /// Only fully idle slots decrement the counter: the DCF rule (IEEE 802.11-2012
    /// 9.3.4.3, a slot in which the medium turns busy is not counted) and ns-2's
    /// (`BackoffTimer::pause`).
    IdleSlotsOnly,
    /// The busy period that interrupts the countdown also decrements it once, as in
    /// Bianchi's Markov chain (the counter moves once per generic slot, idle or busy);
    /// equivalently, the counter decrements at the end of the DIFS that follows.
    BusySlotCounts,
}

/// How an 802.11n PPDU with the short guard interval is timed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ShortGiTxtime {
    /// 802.11-2012 Equation 20-92: the data symbols' 3.6 us each rounded up to whole 4 us
    /// symbols ([`HtMode::airtime`]).
    #[default]
    Standard,
    /// N_SYM x 3.6 us without the rounding, as ns-3.44 (ht-phy.cc:339-340
    /// `GetPayloadDuration`): 208.8 us where the standard gives 212 us for a 1530-byte MPDU
    /// at MCS 7. The ns3 profile's.
    Unrounded,
}

/// Which frames make a station defer EIFS instead of DIFS.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EifsTrigger {
    /// Any frame sensed and not received correctly: one overlapped by another frame, one
    /// that began while the station was sending, one from beyond transmission range.
    /// wtcp's default; close to ns-2's (`Mac802_11::recv_timer` sets the NAV to EIFS after
    /// a collision or a packet in error, `recv` flags one arriving while `tx_active_`),
    /// with three differences: ns-2 drops without EIFS a packet whose reception ends while
    /// it transmits (wtcp: EIFS), forces an error on a packet already arriving when it
    /// starts to send (`transmit`; wtcp decodes it if it ends after its own frame), and
    /// its EIFS is a one-time NAV (wtcp's stays until the next busy period).
    #[default]
    AnyError,
    /// Only a frame whose PLCP preamble and header the station received (the PHY
    /// indicated its start) and whose MAC frame then failed: "the PHY has indicated to
    /// the MAC that a frame transmission was begun that did not result in the correct
    /// reception of a complete MAC frame" (802.11-2007 9.2.3.4). A frame whose header was
    /// overlapped (two transmissions starting in the same slot), that began while the
    /// station was sending, or that came from beyond transmission range is energy on the
    /// medium only, followed by DIFS; only a frame whose header can arrive ends an EIFS.
    /// ns-3.44 (the ns3 profile's source): a preamble arriving while transmitting is
    /// dropped (`phy-entity.cc:462-464`), a reception aborted by our transmission tells
    /// the MAC nothing (`wifi-phy.cc` RECEPTION_ABORTED_BY_TX), and an OFDM header lost to
    /// an equal-power overlap ends in an L-SIG failure without `NotifyRxEndError`
    /// (`ofdm-phy.cc`, `phy-entity.cc`); whether a DSSS header survives such an overlap
    /// depends on ns-3's SINR (its 1 Mb/s header often does), so for 802.11b ns-3 may
    /// start EIFS where this rule does not (untested; `tests/engine/wifi_ns3_gate.rs` measures
    /// the 802.11b throughputs within 0.5 % of ns-3's all the same).
    HeaderReceived,
}

/// When a sender gives up waiting for an ACK or a CTS.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AckTimeout {
    /// When the response would have ended: SIFS + its airtime + 2 delta. wtcp's default.
    #[default]
    ResponseEnd,
    /// 802.11's ACKTimeout: SIFS + a slot + the PHY's RX start delay (its PLCP preamble and
    /// header) after the frame; a response being received by then is waited for (ns-3.44
    /// `frame-exchange-manager.cc:578-580`, rescheduled by `RxStartIndication`, 290-305).
    /// Here a frame for us, in range, that began after our transmission extends it to
    /// when the response would end (ns-3: the frame's actual end + 400 ns; it extends
    /// for any frame). wtcp adds the round-trip propagation delay (802.11 counts it in
    /// the slot), so that any allowed delay (below SIFS) leaves the header time to arrive.
    RxStart,
}

/// Which ACK airtime the EIFS contains.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EifsRule {
    /// The standard: an ACK at the PHY's lowest mandatory rate (802.11-2007 9.2.3.4), see
    /// [`PhyParams::eifs`].
    #[default]
    LowestMandatory,
    /// An ACK at the channel's basic (control-frame) rate: wtcp's reading before the
    /// standard's was adopted, kept for comparison.
    BasicRate,
    /// 802.11g: the ACK at 1 Mb/s DSSS (long preamble, 304 us), the lowest mandatory rate
    /// of the ERP PHY when its DSSS and CCK rates are counted (802.11-2012 19.1.1), as
    /// ns-3.44 reads it (wifi-phy.cc:903-913 Configure80211g keeps 802.11b's ACK time;
    /// channel-access-manager.cc:364-367). 802.11b and 802.11a: as `LowestMandatory`.
    LowestMandatoryDsss,
}

/// The contention window after a frame was given up at the retry limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CwAfterGiveUp {
    /// Back to CWmin (802.11-2012 9.3.3: "The CW shall be reset to aCWmin ... when SLRC
    /// reaches dot11LongRetryLimit, or when SSRC reaches dot11ShortRetryLimit"; ns-2).
    #[default]
    Reset,
    /// ns-3.44's station retry count (txop.cc:377-399 UpdateFailedCw, ResetCw): every
    /// failure of any frame increments it and sets CW = min(CWmax, 2^count (CWmin + 1) - 1)
    /// while the count is below the retry limit; the failure after it reached the limit
    /// resets count and CW; only a success resets them otherwise. A frame given up thus
    /// leaves its CW to the next frame, whose failure resets it.
    Kept,
}

/// When a frame arriving at a station whose backoff has run out draws a new backoff.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ArrivalBackoff {
    /// Unless the medium has been idle for DIFS (EIFS) already, in which case the frame
    /// goes at once (802.11-2012 9.3.4.2, 9.3.4.3).
    #[default]
    UnlessIdleIfs,
    /// Only if the medium is busy at the arrival (physical or virtual carrier sense, or
    /// the station's own transmission); otherwise the frame goes without a backoff, a DIFS
    /// after the arrival and a DIFS (EIFS after an error) after the end of the last busy
    /// period, the station's own pending ACK included. A post-backoff that has counted
    /// down to zero counts as none (ns-3.44 channel-access-manager.cc:471-527
    /// NeedBackoffUponAccess, txop.cc:705-734). 802.11n and 802.11ac's QoS stations
    /// (ns-3's EDCAFs) skip the DIFS from the arrival: the frame goes AIFS (EIFS) after the
    /// last busy end if that is later, else at the first slot boundary of the idle medium
    /// strictly after the arrival (channel-access-manager.cc:507-519 moves a QosTxop's
    /// backoff start to the arrival itself; RequestAccess, 544-557, aligns it).
    IfBusy,
}

/// Where a station's countdown resumes after an ACK or CTS timeout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AfterTimeout {
    /// On the slot grid of the idle period that began with the station's own frame's end.
    #[default]
    SlotGrid,
    /// A DIFS after the timeout, then whole slots (ns-3.44 channel-access-manager.cc:669-687
    /// GetAccessGrantStart counts m_lastAckTimeoutEnd and m_lastCtsTimeoutEnd as the end
    /// of a busy period). wtcp's timeout itself comes 2 propagation delays + 1 ns later
    /// than ns-3's ([`AckTimeout`]).
    Difs,
}

/// What a station counts against its retry limits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RetryCount {
    /// 802.11's short and long counts: RTS and short data frames against
    /// `short_retry_limit` (a CTS resets it), data frames above the RTS threshold against
    /// `long_retry_limit`.
    #[default]
    Separate,
    /// One count per frame: every failed RTS and every failed data frame, against
    /// `short_retry_limit`; a CTS resets nothing (ns-3.44: WifiMpdu's retry count against
    /// WifiMac::FrameRetryLimit, wifi-remote-station-manager.cc:1152-1170).
    Combined,
}

/// Parameters of one channel and its stations.
#[derive(Clone, Debug, PartialEq)]
pub struct WifiConfig {
    pub phy: PhyParams,
    /// Rate of data frames, kb/s (with `ht`, that mode's rate rounded, for reports).
    pub data_kbps: u32,
    /// 802.11n (802.11ac): data frames are HT-mixed (VHT) PPDUs at this mode (`phy` is
    /// [`PhyParams::N`]).
    pub ht: Option<HtMode>,
    pub short_gi_txtime: ShortGiTxtime,
    pub vht_sig_b: VhtSigB,
    /// 802.11n and 802.11ac: A-MPDU aggregation under Block Ack (`ampdu.rs`); `None`: one MPDU per
    /// channel access, each acknowledged by an ACK.
    pub aggregation: Option<Aggregation>,
    /// Basic rate of control frames (RTS, CTS, ACK), kb/s.
    pub basic_kbps: u32,
    /// The ACK airtime in the EIFS (default: at the PHY's lowest mandatory rate).
    pub eifs: EifsRule,
    /// MPDUs longer than this (bytes, MAC header and FCS included) use RTS/CTS; `None`:
    /// never (dot11RTSThreshold, 2347 by default, is above any MPDU we send).
    pub rts_threshold: Option<u32>,
    /// dot11ShortRetryLimit: transmission attempts of a frame at most the RTS threshold
    /// (and of the RTS of a longer one) before the MSDU is discarded (7 by default: one
    /// first transmission and 6 retransmissions). 0 acts as 1.
    pub short_retry_limit: u32,
    /// dot11LongRetryLimit: transmission attempts of a data frame above the RTS threshold
    /// (each after a CTS) before the MSDU is discarded (4 by default). 0 acts as 1.
    pub long_retry_limit: u32,
    pub cw_after_give_up: CwAfterGiveUp,
    pub retry_count: RetryCount,
    pub arrival_backoff: ArrivalBackoff,
    pub after_timeout: AfterTimeout,
    /// Bytes in front of the IP packet in a data frame's body: an LLC/SNAP header (IEEE
    /// 802.2 and RFC 1042: 8 bytes) or none (0, wtcp's default).
    pub llc_snap_bytes: u32,
    /// Interface queue limit in packets, not counting the frame in service.
    pub queue_limit: usize,
    /// Bit error rate of every frame (data and control) at its receiver.
    pub ber: f64,
    /// The radio model (`channel.model = "log_distance"`): frames sensed and received by
    /// their power and SINR ([`radio`]) instead of the range disc (`tx_range`, `cs_range`).
    /// OFDM PHYs only (a, g, n, ac), without `ber`.
    pub radio: Option<radio::Radio>,
    /// How 802.11n/ac stations choose the MCS of each data PPDU.
    pub rate_control: RateControl,
    pub prop_delay: Time,
    /// Metres (any unit, consistent with the positions).
    pub tx_range: f64,
    pub cs_range: f64,
    pub timing: CollisionTiming,
    pub backoff_rule: BackoffRule,
    pub eifs_trigger: EifsTrigger,
    pub ack_timeout: AckTimeout,
}

impl WifiConfig {
    /// 802.11b at 11 Mb/s data, 1 Mb/s control, all defaults of the standard.
    pub fn b11() -> WifiConfig {
        WifiConfig {
            phy: PhyParams::B,
            data_kbps: 11_000,
            ht: None,
            short_gi_txtime: ShortGiTxtime::Standard,
            vht_sig_b: VhtSigB::Sent,
            aggregation: None,
            basic_kbps: 1_000,
            eifs: EifsRule::LowestMandatory,
            rts_threshold: None,
            short_retry_limit: 7,
            long_retry_limit: 4,
            llc_snap_bytes: 0,
            cw_after_give_up: CwAfterGiveUp::Reset,
            retry_count: RetryCount::Separate,
            arrival_backoff: ArrivalBackoff::UnlessIdleIfs,
            after_timeout: AfterTimeout::SlotGrid,
            queue_limit: 50,
            ber: 0.0,
            radio: None,
            rate_control: RateControl::Constant,
            prop_delay: 1_000,
            tx_range: 250.0,
            cs_range: 550.0,
            timing: CollisionTiming::Standard,
            backoff_rule: BackoffRule::BusySlotCounts,
            eifs_trigger: EifsTrigger::AnyError,
            ack_timeout: AckTimeout::ResponseEnd,
        }
    }

    /// 802.11g at 54 Mb/s data, 24 Mb/s control.
    pub fn g54() -> WifiConfig {
        WifiConfig { phy: PhyParams::G, data_kbps: 54_000, basic_kbps: 24_000, ..WifiConfig::b11() }
    }

    /// 802.11n (5 GHz) at `mode`, its ACKs and Block Acks at the control response rate
    /// (9.7.6.5.2), A-MPDUs of up to 65535 octets and 64 MPDUs.
    pub fn n(mode: HtMode) -> WifiConfig {
        let data_kbps = (mode.rate_bps() / 1e3).round() as u32;
        WifiConfig { phy: PhyParams::N, data_kbps, ht: Some(mode), aggregation: Some(Aggregation::default()), basic_kbps: mode.control_response_kbps(), ..WifiConfig::b11() }
    }

    /// The rate of data frames, b/s.
    pub fn data_rate_bps(&self) -> f64 {
        self.ht.map_or(f64::from(self.data_kbps) * 1e3, |m| m.rate_bps())
    }

    /// 802.11ac: every data PPDU is an A-MPDU, a single MPDU too (an S-MPDU, with its
    /// delimiter; 802.11-2016 10.13.8), so a lone MPDU carries this many octets more.
    pub fn lone_mpdu_delimiter(&self) -> u32 {
        if self.ht.is_some_and(|m| m.vht_streams.is_some()) {
            ampdu::DELIMITER_BYTES
        } else {
            0
        }
    }

    /// Airtime of a data frame of `bytes` MAC bytes.
    pub fn data_airtime(&self, bytes: u32) -> Time {
        match self.ht {
            Some(mode) => mode.airtime_as(bytes, self.short_gi_txtime, self.vht_sig_b),
            None => self.phy.airtime(bytes, self.data_kbps),
        }
    }
}

/// What the MAC hands back to the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WifiOutcome {
    /// `station` received `packet` from `from` (first copy only); the caller owns it now.
    Delivered { station: u32, from: u32, packet: PacketId },
    /// `station` gave `packet` up; the caller owns it now. Retry-limit drops carry
    /// `DropCause::Channel` with `retry_limit` set ("wireless: retry limit").
    Dropped { station: u32, packet: PacketId, cause: DropCause, retry_limit: bool },
    /// `station` reached the retry limit on a TCP data frame of `flow` at `seq` whose copy
    /// had arrived (all ACKs lost): no drop, but the MAC's give-up is still its hint.
    GaveUpAfterDelivery { station: u32, flow: u32, seq: u64 },
}

/// `kind` values of [`Event::Wifi`](crate::events::Event::Wifi).
pub(crate) mod kind {
    /// A station's backoff may have reached zero.
    pub const BACKOFF: u8 = 0;
    /// A station's own transmission ended.
    pub const TX_END: u8 = 1;
    /// A station's transmission starts to be sensed by the others (after the delay).
    pub const SENSE_START: u8 = 2;
    /// ... and stops being sensed; its receiver decides whether it got it.
    pub const SENSE_END: u8 = 3;
    /// A station's ACK/CTS timeout may have expired.
    pub const TIMEOUT: u8 = 4;
    /// A station sends its pending response (SIFS after a reception).
    pub const RESPOND: u8 = 5;
}
