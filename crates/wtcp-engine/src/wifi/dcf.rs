//! One station's DCF state: interface queue, frame in service, contention window, retry
//! counters and the frozen/resumed backoff counter (IEEE 802.11-2007 clause 9.2).
//!
//! The medium-facing half (who senses what, who receives what) is in `channel.rs`; this
//! file holds the per-station bookkeeping that does not need to see other stations.

use rand::Rng;

use super::ampdu::Window;
use super::BackoffRule;
use crate::events::LazyTimer;
use crate::net::codel::Queued;
use crate::net::qdisc::Qdisc;
use crate::packet::PacketId;
use super::minstrel::{Chain, Entry, MinstrelHt};
use super::phy::HtMode;
use crate::rng::SimRng;
use crate::time::Time;

/// Frame types on the air.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Frame {
    Data,
    Rts,
    Cts,
    Ack,
    /// A compressed BlockAck answering an A-MPDU (`ampdu.rs`).
    BlockAck,
}

/// A transmission, kept by its transmitter until the end is sensed everywhere.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Air {
    pub frame: Frame,
    pub dst: u32,
    pub bytes: u32,
    /// Duration field (NAV) carried by the frame, counted from the frame's end.
    pub nav: Time,
    /// No other transmission overlapped it at `dst`, and `dst` is in range and listening.
    pub clean: bool,
    /// A control frame's rate, kb/s (a data frame's is its transmitter's `mode`).
    pub kbps: u32,
    /// An ACK or Block Ack under rate control "ideal": the SNR (linear) at which the data
    /// it answers arrived (0: none), fed back to the data's sender.
    pub snr: f64,
}

/// The MSDU in service: the head of line of the interface queue.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Head {
    pub packet: PacketId,
    pub dst: u32,
    /// MSDU bytes (the packet's IP size).
    pub size: u32,
    /// Channel accesses (RTS or basic data) made for it so far.
    pub attempts: u32,
    /// Some copy reached the receiver (later copies are duplicates, filtered there).
    pub delivered: bool,
    /// The packet's flow and sequence number, and whether it is a TCP data segment: what
    /// a retry-limit hint names once a delivered copy has been handed on.
    pub flow: u32,
    pub seq: u64,
    pub data: bool,
}

impl Queued for Head {
    #[inline]
    fn packet(self) -> PacketId {
        self.packet
    }
}

/// A frame a station senses, for `EifsTrigger::HeaderReceived`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sensed {
    pub from: u32,
    /// When its PLCP preamble and header end here.
    pub header_end: Time,
    /// The header arrived alone, in range, while the station listened: the PHY indicated
    /// the frame's start.
    pub header_ok: bool,
    /// No other frame (nor a transmission of ours) overlapped it so far.
    pub intact: bool,
}

/// Where the station is in its own frame exchange.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Contending (or idle): may count down its backoff.
    Contend,
    TxRts,
    WaitCts,
    TxData,
    WaitAck,
}

/// Per-station counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StationStats {
    /// Channel accesses: RTS frames, or data frames under basic access.
    pub attempts: u64,
    /// MSDUs acknowledged.
    pub successes: u64,
    /// Accesses after the first, over all MSDUs (failed attempts that were retried).
    pub retries: u64,
    /// Frames sent by this station that overlapped another transmission at their receiver
    /// (radio model: lost while something overlapped them).
    pub collisions: u64,
    /// Frames sent by this station lost to the bit-error draw (radio model: lost to noise
    /// alone).
    pub frame_errors: u64,
    /// Frames sent by this station whose receiver was out of transmission range (radio
    /// model: below what it senses, faded or shadowed included).
    pub out_of_range: u64,
    /// MSDUs given up at the retry limit (reported as `Dropped` outcomes).
    pub retry_limit_drops: u64,
    /// MSDUs given up at the retry limit although a copy had arrived (lost ACKs): counted
    /// here, not reported as a drop.
    pub gave_up_after_delivery: u64,
    /// MSDUs the interface queue dropped: refused when full or by its discipline at
    /// arrival (RED, PIE), or dropped by it later (CoDel, FQ-CoDel).
    pub queue_drops: u64,
    /// Retries per acknowledged MSDU: entry i counts MSDUs acknowledged after i retries,
    /// i.e. at attempt i + 1 (last entry: 7 or more; with the default short retry limit of
    /// 7 attempts, entries 0..=6 are used).
    pub retry_hist: [u64; 8],
    /// With aggregation: A-MPDUs sent (PPDUs of two MPDUs or more), and the MPDUs in them.
    pub ampdus: u64,
    pub ampdu_mpdus: u64,
    /// Rate control "minstrel_ht": PPDUs sent as probes (at a sample rate, once).
    pub probes: u64,
}

impl StationStats {
    /// Count an MSDU leaving service (acknowledged, or given up).
    pub(crate) fn record_done(&mut self, head: &Head, acked: bool) {
        let retries = head.attempts.saturating_sub(1);
        if acked {
            self.successes += 1;
            self.retry_hist[(retries as usize).min(7)] += 1;
        } else if head.delivered {
            self.gave_up_after_delivery += 1;
        } else {
            self.retry_limit_drops += 1;
        }
    }
}

#[derive(Debug)]
pub(crate) struct Station {
    pub pos: (f64, f64),
    pub queue: Qdisc<Head>,
    pub head: Option<Head>,
    /// When `head` reached the head of the queue (its MAC service time starts).
    pub head_since: Time,
    pub phase: Phase,
    pub cw: u32,
    /// [`super::CwAfterGiveUp::Kept`]: ns-3's station retry count, which sets `cw`.
    pub station_retries: u32,
    /// A DIFS must also elapse from this instant before the countdown (the last ACK/CTS
    /// timeout with [`super::AfterTimeout::Difs`], a frame's arrival with
    /// [`super::ArrivalBackoff::IfBusy`]).
    pub difs_from: Time,
    /// [`super::ArrivalBackoff::IfBusy`] on a QoS station: the frame in service reached an
    /// idle medium, so the countdown joins the slot grid as ns-3's EDCAF does.
    pub edca_arrival: bool,
    /// Short and long retry counters (9.2.4).
    pub ssrc: u32,
    pub slrc: u32,
    /// Remaining backoff slots; `None` when no backoff is pending.
    pub backoff: Option<u32>,
    /// The slot boundary from which the counter is running; `None` while frozen.
    pub count_start: Option<Time>,
    /// Transmissions of others currently sensed (physical carrier sense).
    pub sensed: u32,
    pub transmitting: bool,
    /// The transmitter of the frame addressed to us that we are receiving.
    pub receiving: Option<u32>,
    /// When the medium last became idle here.
    pub idle_since: Time,
    /// The current (or last) busy period held a frame we could not decode: defer EIFS.
    pub busy_error: bool,
    /// The frames being sensed (kept only with `EifsTrigger::HeaderReceived`).
    pub sensing: Vec<Sensed>,
    /// Virtual carrier sense (NAV) from the Duration field of overheard frames.
    pub nav_until: Time,
    /// A response (CTS, ACK, or the data frame after a CTS) due SIFS after a reception.
    pub respond: Option<(Frame, u32)>,
    pub backoff_timer: LazyTimer,
    pub timeout: LazyTimer,
    /// With `AckTimeout::RxStart`: when the awaited response would end, if it started.
    pub response_end: Time,
    /// The armed timeout is `AckTimeout::RxStart`'s first deadline, which a response
    /// already begun may extend once.
    pub rx_start_wait: bool,
    /// When our last transmission ended, and when the frame in `receiving` began.
    pub tx_ended: Time,
    pub receiving_since: Time,
    pub air: Option<Air>,
    /// With aggregation: the MPDUs in service (`head` is then the first still to be sent),
    /// an MPDU taken from the queue that did not fit the last A-MPDU, and the PPDU in
    /// flight: its MPDUs and its PSDU octets.
    pub win: Window,
    pub spare: Option<Head>,
    pub ppdu_mpdus: u32,
    pub ppdu_bytes: u32,
    pub rng: SimRng,
    pub stats: StationStats,
    /// 802.11n/ac: the mode of this station's next data PPDU (the channel's, or rate
    /// control's choice for its destination).
    pub mode: Option<HtMode>,
    /// Rate control "ideal": the last data SNR each peer reported (linear; 0: none yet).
    pub snr_seen: Vec<f64>,
    /// Rate control "ideal": the SNR of the data frame this station is about to acknowledge.
    pub rx_snr: f64,
    /// Rate control "minstrel_ht": the station's state (boxed, so that the DCF's own fields
    /// stay as close together as without it).
    pub rc: Option<Box<RateState>>,
}

/// Rate control "minstrel_ht": one station's state.
#[derive(Debug, Default)]
pub struct RateState {
    /// Per destination (made at the first frame to it).
    pub minstrel: Vec<Option<MinstrelHt>>,
    /// The retry chain of the PPDU being sent and how many of its tries failed; `None`
    /// between sequences.
    pub chain: Option<(Chain, u32)>,
    /// The data PPDUs of the current sequence, (rate, MPDUs), reported when it ends (reused).
    pub tries: Vec<(u16, u32)>,
    /// The destination and chain entry of the PPDU in flight, and whether it is a probe.
    pub sent: Option<(u32, Entry, bool)>,
}

impl Station {
    pub fn new(pos: (f64, f64), cw_min: u32, rng: SimRng, queue: Qdisc<Head>) -> Station {
        Station {
            pos,
            queue,
            head_since: 0,
            head: None,
            phase: Phase::Contend,
            cw: cw_min,
            station_retries: 0,
            difs_from: 0,
            edca_arrival: false,
            ssrc: 0,
            slrc: 0,
            backoff: None,
            count_start: None,
            sensed: 0,
            transmitting: false,
            receiving: None,
            idle_since: 0,
            busy_error: false,
            sensing: Vec::new(),
            nav_until: 0,
            respond: None,
            backoff_timer: LazyTimer::default(),
            timeout: LazyTimer::default(),
            response_end: 0,
            rx_start_wait: false,
            tx_ended: 0,
            receiving_since: 0,
            air: None,
            win: Window::default(),
            spare: None,
            ppdu_mpdus: 0,
            ppdu_bytes: 0,
            rng,
            stats: StationStats::default(),
            mode: None,
            snr_seen: Vec::new(),
            rx_snr: 0.0,
            rc: None,
        }
    }

    /// Draw a backoff uniformly in [0, CW] (9.2.4) from the station's own stream.
    pub fn draw_backoff(&mut self) {
        self.backoff = Some(self.rng.random_range(0..=self.cw));
    }

    /// May count down now (the medium is idle here and we are not in an exchange).
    pub fn may_count(&self) -> bool {
        self.phase == Phase::Contend && self.respond.is_none() && !self.transmitting && self.sensed == 0
    }

    /// The medium turned busy at `t`: freeze the counter. Returns true when the counter
    /// reaches zero exactly at `t` (the station transmits in this slot: it decided at
    /// the slot boundary, before it could sense the other transmission).
    pub fn freeze(&mut self, t: Time, slot: Time, rule: BackoffRule) -> bool {
        let (Some(s0), Some(k)) = (self.count_start.take(), self.backoff) else { return false };
        if t < s0 {
            return false; // still in DIFS/EIFS: no slot elapsed
        }
        let n = (t - s0) / slot;
        if n >= u64::from(k) {
            return true;
        }
        // Slots fully idle so far; under Bianchi's chain the interrupted slot (the busy
        // period that follows) also decrements the counter.
        let dec = n + u64::from(rule == BackoffRule::BusySlotCounts);
        self.backoff = Some(k - dec.min(u64::from(k)) as u32);
        false
    }

    /// [`super::CwAfterGiveUp::Kept`]: the contention window after a failed exchange from
    /// ns-3's station retry count (txop.cc:377-399), which wraps at FrameRetryLimit.
    pub fn ns3_failed_cw(&mut self, limit: u32, cw_min: u32, cw_max: u32) {
        if self.station_retries < limit {
            self.station_retries += 1;
            self.cw = ((cw_min + 1) << self.station_retries.min(16)).saturating_sub(1).min(cw_max);
        } else {
            self.station_retries = 0;
            self.cw = cw_min;
        }
    }

    /// Contention window after a failed attempt: CW = min(2(CW+1) - 1, CWmax) (9.2.4).
    pub fn double_cw(&mut self, cw_max: u32) {
        self.cw = (2 * self.cw + 1).min(cw_max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn counting(k: u32, s0: Time) -> Station {
        let q = crate::scenario::QueueCfg { limit_packets: Some(50), limit_bytes: None, aqm: crate::net::queue::Aqm::DropTail };
        let mut s = Station::new((0.0, 0.0), 31, stream(1, 0, "t"), Qdisc::new(&q, 11e6, stream(1, 0, "q")));
        s.backoff = Some(k);
        s.count_start = Some(s0);
        s
    }

    #[test]
    fn a_busy_medium_in_the_middle_of_a_slot_keeps_that_slot_under_the_idle_slot_rule() {
        let mut s = counting(5, 100);
        assert!(!s.freeze(100 + 2 * 20 + 7, 20, BackoffRule::IdleSlotsOnly));
        assert_eq!(s.backoff, Some(3));
        let mut s = counting(5, 100);
        assert!(!s.freeze(100 + 2 * 20 + 7, 20, BackoffRule::BusySlotCounts));
        assert_eq!(s.backoff, Some(2));
    }

    #[test]
    fn busy_during_difs_decrements_nothing_and_busy_at_expiry_transmits() {
        let mut s = counting(5, 100);
        assert!(!s.freeze(99, 20, BackoffRule::BusySlotCounts));
        assert_eq!(s.backoff, Some(5));
        let mut s = counting(5, 100);
        assert!(s.freeze(200, 20, BackoffRule::BusySlotCounts));
    }

    #[test]
    fn contention_window_doubles_to_cwmax() {
        let mut s = counting(0, 0);
        let seen: Vec<u32> = (0..7)
            .map(|_| {
                s.double_cw(1023);
                s.cw
            })
            .collect();
        assert_eq!(seen, vec![63, 127, 255, 511, 1023, 1023, 1023]);
    }
}
