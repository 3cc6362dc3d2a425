//! The 802.11 DCF MAC over a shared channel (IEEE 802.11-2007 clause 9.2).
//!
//! A [`WifiChannel`] is one shared medium with stations at fixed positions. A station
//! senses a transmission if it lies within the carrier-sense range of the transmitter; a
//! frame is received if the receiver lies within the transmission range, nothing else it
//! senses overlaps the frame, it is not itself transmitting, and the frame-error draw
//! (FER = 1 - (1 - BER)^bits) succeeds. Hidden terminals are thus representable.
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
//! - ACK/CTS timeout: the station waits until the response would have ended (SIFS +
//!   response airtime + 2 delta, + 1 ns), not SIFS + slot + PHY-RX-START delay.
//! - Frames overheard by third parties are decoded (for NAV and the EIFS decision) if in
//!   transmission range and not overlapped; no bit-error draw is made for them.
//! - EIFS is not cancelled by a correct reception during it; no capture effect; no
//!   fragmentation, broadcast, beacons, rate adaptation or power save.
//! - Duplicate detection uses the sender's ground truth (has a copy arrived?) instead of
//!   sequence numbers; an MSDU given up after a copy arrived (lost ACKs) is counted in
//!   `gave_up_after_delivery` and not reported as a drop.
//! - The retry limits count retransmissions: an MSDU gets `limit + 1` attempts.

mod channel;
mod dcf;
pub mod phy;

pub use channel::WifiChannel;
pub use dcf::StationStats;
pub use phy::{PhyKind, PhyParams};

use crate::net::DropCause;
use crate::packet::PacketId;
use crate::time::Time;

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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackoffRule {
    /// Only fully idle slots decrement the counter.
    IdleSlotsOnly,
    /// The busy period that interrupts the countdown also decrements it once, as in
    /// Bianchi's Markov chain (the counter moves once per generic slot, idle or busy);
    /// equivalently, the counter decrements at the end of the DIFS that follows.
    BusySlotCounts,
}

/// Parameters of one channel and its stations.
#[derive(Clone, Debug, PartialEq)]
pub struct WifiConfig {
    pub phy: PhyParams,
    /// Rate of data frames, kb/s.
    pub data_kbps: u32,
    /// Basic rate of control frames (RTS, CTS, ACK) and of the EIFS computation, kb/s.
    pub basic_kbps: u32,
    /// MPDUs longer than this (bytes, MAC header and FCS included) use RTS/CTS; `None`:
    /// never (dot11RTSThreshold, 2347 by default, is above any MPDU we send).
    pub rts_threshold: Option<u32>,
    /// Retransmissions allowed for frames at most the RTS threshold (and for RTS).
    pub short_retry_limit: u32,
    /// Retransmissions allowed for data frames above the RTS threshold.
    pub long_retry_limit: u32,
    /// Interface queue limit in packets, not counting the frame in service.
    pub queue_limit: usize,
    /// Bit error rate of every frame (data and control) at its receiver.
    pub ber: f64,
    pub prop_delay: Time,
    /// Metres (any unit, consistent with the positions).
    pub tx_range: f64,
    pub cs_range: f64,
    pub timing: CollisionTiming,
    pub backoff_rule: BackoffRule,
}

impl WifiConfig {
    /// 802.11b at 11 Mb/s data, 1 Mb/s control, all defaults of the standard.
    pub fn b11() -> WifiConfig {
        WifiConfig {
            phy: PhyParams::B,
            data_kbps: 11_000,
            basic_kbps: 1_000,
            rts_threshold: None,
            short_retry_limit: 7,
            long_retry_limit: 4,
            queue_limit: 50,
            ber: 0.0,
            prop_delay: 1_000,
            tx_range: 250.0,
            cs_range: 550.0,
            timing: CollisionTiming::Standard,
            backoff_rule: BackoffRule::BusySlotCounts,
        }
    }

    /// 802.11g at 54 Mb/s data, 24 Mb/s control.
    pub fn g54() -> WifiConfig {
        WifiConfig { phy: PhyParams::G, data_kbps: 54_000, basic_kbps: 24_000, ..WifiConfig::b11() }
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
