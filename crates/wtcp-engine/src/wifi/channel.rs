//! The shared medium: carrier sense, reception, and the DCF frame exchange.
//!
//! Events per transmission: the transmitter's end (`TX_END`), and the start and end of
//! its being sensed by everyone in carrier-sense range (`SENSE_START`, `SENSE_END`,
//! one event each, for all listeners). Per station at most one backoff timer, one
//! ACK/CTS timeout (both lazy) and one pending response.

use super::ampdu::{self, with_subframe, Mpdu, BLOCK_ACK_BYTES, HT_PPDU_MAX, WINDOW};
use super::dcf::{Air, Frame, Head, Phase, RateState, Sensed, Station, StationStats};
use super::minstrel::{self, MinstrelHt, SampleTable};
use super::motion::Motion;
use super::phy::{HtMode, PhyKind, PhyParams, VhtSigB};
use super::radio::Modulation;
use super::reception::{Geometry, Section};
use super::{kind, AckTimeout, AfterTimeout, ArrivalBackoff, CollisionTiming, CwAfterGiveUp, EifsRule, EifsTrigger, RateControl, RetryCount, WifiConfig, WifiOutcome};
use crate::events::{Event, EventQueue};
use crate::net::qdisc::Qdisc;
use crate::net::queue::Aqm;
use crate::net::DropCause;
use crate::packet::{PacketId, PacketPool};
use crate::rng::{stream, unit};
use crate::scenario::QueueCfg;
use crate::time::Time;

/// Radio model: how long a receiver takes to detect a preamble, during which a stronger
/// frame arriving takes its place (ns-3.44's ThresholdPreambleDetectionModel, checked 4 us
/// after the start, wifi-phy.cc:1528-1531, phy-entity.cc:1023-1052).
const PREAMBLE_DETECTION: Time = 4_000;
/// Radio model: the SINR a preamble needs to be detected, 4 dB (ns-3.44's
/// ThresholdPreambleDetectionModel::Threshold, threshold-preamble-detection-model.cc:31-41).
const PREAMBLE_SINR: f64 = 2.511_886_431_509_58;

#[derive(Debug)]
pub struct WifiChannel {
    id: u32,
    cfg: WifiConfig,
    st: Vec<Station>,
    /// `hears[a * n + b]`: b is within carrier-sense range of a.
    hears: Vec<bool>,
    /// `reach[a * n + b]`: b is within transmission range of a.
    reach: Vec<bool>,
    cts_time: Time,
    eifs: Time,
    /// Rate control "ideal": the candidate modes, slowest first, with their SNR thresholds.
    ideal: Vec<(HtMode, f64)>,
    /// Rate control "minstrel_ht": the rates a peer supports (Linux's groups; bit i: MCS i)
    /// and the channel's sample table.
    minstrel: Option<([u16; minstrel::GROUPS], SampleTable)>,
    /// Radio model: the payload windows of the PPDU being decoded (reused).
    windows: Vec<Section>,
    /// Drops the interface queues' disciplines made at enqueue, for the caller.
    queue_drops: Vec<Head>,
    /// Moving stations or the radio model: `hears`, `reach` and received powers
    /// recomputed as each frame starts.
    geo: Option<Geometry>,
}

impl WifiChannel {
    /// A channel with one station per position; station i draws from the stream
    /// `"{label}:sta{i}"` of (seed, replication).
    pub fn new(id: u32, cfg: WifiConfig, positions: &[(f64, f64)], seed: u64, replication: u64, label: &str) -> WifiChannel {
        assert!(cfg.prop_delay < cfg.phy.sifs, "the propagation delay must be shorter than SIFS");
        assert!((cfg.ht.is_some() || cfg.phy.supports(cfg.data_kbps)) && cfg.phy.supports(cfg.basic_kbps), "rate not in the PHY's rate set");
        assert!(cfg.tx_range <= cfg.cs_range, "the transmission range must not exceed the carrier-sense range");
        assert!(cfg.rate_control == RateControl::Constant || cfg.ht.is_some(), "rate control needs an HT/VHT mode");
        assert!(cfg.rate_control != RateControl::Ideal || cfg.radio.is_some(), "rate control \"ideal\" needs the radio model");
        let n = positions.len();
        let mut hears = vec![false; n * n];
        let mut reach = vec![false; n * n];
        for (a, pa) in positions.iter().enumerate() {
            for (b, pb) in positions.iter().enumerate() {
                let d = (pa.0 - pb.0).hypot(pa.1 - pb.1);
                hears[a * n + b] = a != b && d <= cfg.cs_range;
                reach[a * n + b] = a != b && d <= cfg.tx_range;
            }
        }
        let drop_tail = QueueCfg { limit_packets: Some(cfg.queue_limit as u32), limit_bytes: None, aqm: Aqm::DropTail };
        let rate = cfg.data_rate_bps();
        let mut st: Vec<Station> = positions
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                let queue = Qdisc::new(&drop_tail, rate, stream(seed, replication, &format!("{label}:sta{i}:queue")));
                Station::new(p, cfg.phy.cw_min, stream(seed, replication, &format!("{label}:sta{i}")), queue)
            })
            .collect();
        let phy = cfg.phy;
        let eifs = match cfg.eifs {
            EifsRule::LowestMandatory => phy.eifs(),
            EifsRule::BasicRate => phy.eifs_with_ack_at(cfg.basic_kbps),
            EifsRule::LowestMandatoryDsss if phy.kind == PhyKind::ErpOfdm => phy.sifs + phy.difs() + PhyParams::B.airtime(PhyParams::B.ack_bytes, 1_000),
            EifsRule::LowestMandatoryDsss => phy.eifs(),
        };
        let cts_time = phy.airtime(phy.cts_bytes, cfg.basic_kbps);
        let ideal = match (cfg.rate_control, cfg.ht) {
            (RateControl::Ideal, Some(m)) => ideal_modes(m),
            _ => Vec::new(),
        };
        let minstrel = match (cfg.rate_control, cfg.ht) {
            (RateControl::MinstrelHt, Some(m)) => Some((minstrel_groups(m), SampleTable::new(&mut stream(seed, replication, &format!("{label}:minstrel"))))),
            _ => None,
        };
        for sta in &mut st {
            sta.mode = cfg.ht;
            if cfg.rate_control == RateControl::Ideal {
                sta.mode = ideal.first().map(|&(m, _)| m);
                sta.snr_seen = vec![0.0; n];
            }
            if minstrel.is_some() {
                // A sequence has at most a chain's tries (4 entries of at most 6).
                sta.rc = Some(Box::new(RateState { minstrel: vec![None; n], tries: Vec::with_capacity(4 * 6), ..RateState::default() }));
            }
        }
        let geo = cfg.radio.map(|r| Geometry::new(positions, vec![Motion::Fixed; n], Some(r), seed, replication, label));
        WifiChannel { id, cts_time, eifs, ideal, minstrel, windows: Vec::new(), cfg, st, hears, reach, queue_drops: Vec::new(), geo }
    }

    /// Stations that move (one [`Motion`] per station); stream labels as in [`WifiChannel::new`].
    pub fn with_motion(mut self, motions: Vec<Motion>, seed: u64, replication: u64, label: &str) -> Self {
        let starts: Vec<(f64, f64)> = self.st.iter().map(|s| s.pos).collect();
        self.geo = Some(Geometry::new(&starts, motions, self.cfg.radio, seed, replication, label));
        self
    }

    pub fn config(&self) -> &WifiConfig {
        &self.cfg
    }

    pub fn stations(&self) -> usize {
        self.st.len()
    }

    pub fn stats(&self, station: u32) -> &StationStats {
        &self.st[station as usize].stats
    }

    /// 802.11n/ac: the MCS of the station's next data PPDU (rate control's latest choice).
    pub fn data_mcs(&self, station: u32) -> u8 {
        self.st[station as usize].mode.map_or(0, |m| m.mcs)
    }

    /// Where the station is at time 0.
    pub fn position(&self, station: u32) -> (f64, f64) {
        self.st[station as usize].pos
    }

    /// Packets the interface queues' disciplines dropped other than refused arrivals (FQ-CoDel's
    /// overload drops at enqueue): the caller frees and records them.
    pub fn take_queue_drops(&mut self) -> impl Iterator<Item = PacketId> + '_ {
        self.queue_drops.drain(..).map(|h| h.packet)
    }

    /// Give each station its own interface queue (by default a DropTail queue of
    /// `queue_limit` packets); station i's discipline draws from the stream
    /// `"{label}:sta{i}:queue"`.
    pub fn with_queues(mut self, queues: &[QueueCfg], seed: u64, replication: u64, label: &str) -> Self {
        let rate = self.cfg.data_rate_bps();
        for (i, (sta, q)) in self.st.iter_mut().zip(queues).enumerate() {
            sta.queue = Qdisc::new(q, rate, stream(seed, replication, &format!("{label}:sta{i}:queue")));
        }
        self
    }

    /// Packets waiting in the interface queue (not counting the frame in service).
    pub fn queue_len(&self, station: u32) -> usize {
        self.st[station as usize].queue.len()
    }

    /// Packets the MAC of `station` still owns: waiting, or in service and not yet
    /// handed over as `Delivered`.
    pub fn holding(&self, station: u32) -> usize {
        let sta = &self.st[station as usize];
        if self.cfg.aggregation.is_some() {
            return sta.queue.len() + usize::from(sta.spare.is_some()) + sta.win.q.iter().filter(|e| !e.up && !e.gone).count();
        }
        sta.queue.len() + usize::from(sta.head.is_some_and(|h| !h.delivered))
    }

    /// The station holds a frame in service or waiting.
    pub fn is_backlogged(&self, station: u32) -> bool {
        self.st[station as usize].head.is_some()
    }

    fn event(&self, station: usize, k: u8) -> Event {
        Event::Wifi { channel: self.id, station: station as u32, kind: k }
    }

    /// Offer `packet` at `station` for `dst`. `Err(packet)` when the interface queue is
    /// full (a `DropCause::Queue` drop; the caller still owns the packet).
    pub fn enqueue(&mut self, station: u32, packet: PacketId, dst: u32, now: Time, ev: &mut EventQueue, pool: &mut PacketPool) -> Result<(), PacketId> {
        let s = station as usize;
        assert!(dst as usize != s && (dst as usize) < self.st.len(), "bad destination station {dst}");
        let p = pool.get_mut(packet);
        p.enqueued = now;
        let head = Head { packet, dst, size: p.size, attempts: 0, delivered: false, flow: p.flow, seq: p.seq, data: p.kind == crate::packet::PacketKind::Data };
        let ifs = self.ifs(s);
        let backoff_event = self.event(s, kind::BACKOFF);
        let ns3_arrival = self.cfg.arrival_backoff == ArrivalBackoff::IfBusy;
        let qos = self.cfg.ht.is_some();
        let sta = &mut self.st[s];
        let idle = sta.head.is_none();
        if !sta.queue.admit(packet, pool, now, idle && sta.queue.is_empty()) {
            sta.stats.queue_drops += 1;
            return Err(packet);
        }
        if !idle {
            let before = self.queue_drops.len();
            let pushed = sta.queue.push(head, pool, &mut self.queue_drops);
            sta.stats.queue_drops += (self.queue_drops.len() - before) as u64 + u64::from(pushed.is_err());
            return pushed.map_err(|h| h.packet);
        }
        sta.queue.on_departure(packet, pool, now, 0);
        sta.head = Some(head);
        sta.head_since = now;
        if self.cfg.aggregation.is_some() {
            debug_assert!(sta.win.q.is_empty() && sta.spare.is_none());
            sta.win.q.push_back(Mpdu::new(head));
        }
        if ns3_arrival && sta.backoff == Some(0) {
            // ns-3 decides on a counter at 0 as on none (channel-access-manager.cc:507).
            sta.backoff = None;
            sta.count_start = None;
            sta.backoff_timer.set(None, ev, backoff_event);
        }
        if sta.backoff.is_none() {
            let busy = sta.sensed > 0 || sta.transmitting || now < sta.nav_until;
            if ns3_arrival && !busy {
                // ns-3: no backoff. A DCF waits a DIFS from the arrival, and the DIFS (EIFS)
                // from the last busy end as always; an EDCAF (802.11n/ac's QoS stations)
                // only the AIFS from the last busy end, then the first slot boundary after
                // the arrival (channel-access-manager.cc:507-519: the backoff start moves to
                // the arrival plus DIFS for a Txop, to the arrival for a QosTxop, which
                // RequestAccess aligns, 544-557).
                sta.backoff = Some(0);
                if qos {
                    sta.edca_arrival = true;
                } else {
                    sta.difs_from = sta.difs_from.max(now);
                }
            } else if sta.may_count() && now >= sta.nav_until && now >= sta.idle_since + ifs {
                // Medium idle for at least DIFS: transmit at once (9.2.5.1). The queue was
                // empty, so an aggregate takes nothing from it (and drops nothing).
                let mut none = Vec::new();
                self.access(s, now, ev, pool, &mut none);
                debug_assert!(none.is_empty());
                return Ok(());
            } else {
                sta.draw_backoff();
            }
        }
        self.try_resume(s, now, ev);
        Ok(())
    }

    /// Handle an [`Event::Wifi`] of this channel; outcomes are appended to `out`.
    pub fn on_event(&mut self, station: u32, k: u8, now: Time, ev: &mut EventQueue, pool: &mut PacketPool, out: &mut Vec<WifiOutcome>) {
        let s = station as usize;
        match k {
            kind::BACKOFF => {
                let e = self.event(s, kind::BACKOFF);
                if self.st[s].backoff_timer.fire(now, ev, e) {
                    let sta = &mut self.st[s];
                    sta.backoff = None;
                    sta.count_start = None;
                    if sta.head.is_some() && sta.phase == Phase::Contend {
                        self.access(s, now, ev, pool, out);
                    }
                }
            }
            kind::TX_END => self.tx_end(s, now, ev),
            kind::SENSE_START => self.sense_start(s, now, ev, pool, out),
            kind::SENSE_END => self.sense_end(s, now, ev, pool, out),
            kind::TIMEOUT => {
                let e = self.event(s, kind::TIMEOUT);
                if self.st[s].timeout.fire(now, ev, e) {
                    let n = self.st.len();
                    let sta = &mut self.st[s];
                    // AckTimeout::RxStart: a frame for us, in range, that began after our
                    // transmission (its PHY-RXSTART fell in the interval): wait for it.
                    let begun = sta.receiving.is_some_and(|r| self.reach[r as usize * n + s] && sta.receiving_since >= sta.tx_ended);
                    if std::mem::take(&mut sta.rx_start_wait) && begun && sta.response_end > now {
                        sta.timeout.set(Some(sta.response_end), ev, e);
                    } else if self.cfg.aggregation.is_some() {
                        self.aggregate_failed(s, now, ev, pool, out);
                    } else {
                        self.attempt_failed(s, now, ev, pool, out);
                    }
                }
            }
            kind::RESPOND => self.respond(s, now, ev),
            _ => unreachable!("unknown wifi event kind {k}"),
        }
    }

    fn ifs(&self, s: usize) -> Time {
        let phy = &self.cfg.phy;
        if self.st[s].busy_error && self.cfg.timing == CollisionTiming::Standard {
            self.eifs
        } else {
            phy.difs()
        }
    }

    /// A data frame's MPDU: MAC header and FCS, the LLC/SNAP header if any, the IP packet.
    fn mpdu_bytes(&self, ip_bytes: u32) -> u32 {
        ip_bytes + self.cfg.llc_snap_bytes + self.cfg.phy.mac_header_bytes
    }

    /// The PSDU station `s` sends next (with aggregation, as gathered at its access).
    fn psdu_bytes(&self, s: usize, h: &Head) -> u32 {
        if self.cfg.aggregation.is_some() {
            self.st[s].ppdu_bytes
        } else {
            self.mpdu_bytes(h.size) + self.cfg.lone_mpdu_delimiter()
        }
    }

    /// RTS/CTS for frames above the threshold, and for Minstrel-HT's fallback rates.
    fn uses_rts(&self, s: usize, h: &Head) -> bool {
        self.cfg.rts_threshold.is_some_and(|t| self.psdu_bytes(s, h) > t) || self.st[s].rc.as_ref().is_some_and(|rc| rc.sent.is_some_and(|(_, e, _)| e.rts))
    }

    fn data_time(&self, s: usize, h: &Head) -> Time {
        self.data_airtime(s, self.psdu_bytes(s, h))
    }

    /// Airtime of a data PPDU of `bytes` from station `s` at its current mode.
    fn data_airtime(&self, s: usize, bytes: u32) -> Time {
        match self.st[s].mode {
            Some(m) => m.airtime_as(bytes, self.cfg.short_gi_txtime, self.cfg.vht_sig_b),
            None => self.cfg.phy.airtime(bytes, self.cfg.data_kbps),
        }
    }

    /// The rate of the ACK or Block Ack answering station `s`'s data PPDU, kb/s: 802.11n/ac's
    /// control response rate for its mode (9.7.6.5.2), else the channel's basic rate.
    fn response_kbps(&self, s: usize) -> u32 {
        self.st[s].mode.map_or(self.cfg.basic_kbps, |m| m.control_response_kbps())
    }

    /// The response to station `s`'s data PPDU: a Block Ack to an A-MPDU, else an ACK.
    fn response_time(&self, s: usize) -> Time {
        let bytes = if self.cfg.aggregation.is_some() && self.st[s].ppdu_mpdus >= 2 { BLOCK_ACK_BYTES } else { self.cfg.phy.ack_bytes };
        self.cfg.phy.airtime(bytes, self.response_kbps(s))
    }

    /// Start (or restart) the countdown if the station may count: from the slot boundary
    /// DIFS (EIFS) after the medium went idle, and not before the NAV has run out.
    fn try_resume(&mut self, s: usize, now: Time, ev: &mut EventQueue) {
        let ifs = self.ifs(s);
        let slot = self.cfg.phy.slot;
        let difs = self.cfg.phy.difs();
        let e = self.event(s, kind::BACKOFF);
        let sta = &mut self.st[s];
        let edca_arrival = std::mem::take(&mut sta.edca_arrival);
        let Some(k) = sta.backoff else { return };
        if !sta.may_count() || sta.count_start.is_some() {
            return;
        }
        let mut s0 = (sta.idle_since + ifs).max(sta.nav_until + difs).max(sta.difs_from + difs);
        if s0 < now {
            // Join the slot grid of the current idle period: at the first boundary from now
            // on; after an EDCA arrival, ns-3's first boundary strictly after it
            // (channel-access-manager.cc:549-556: floor((now - s0) / slot) + 1 slots).
            s0 += if edca_arrival { (now - s0) / slot + 1 } else { (now - s0).div_ceil(slot) } * slot;
        }
        sta.count_start = Some(s0);
        sta.backoff_timer.set(Some(s0 + u64::from(k) * slot), ev, e);
    }

    /// Backoff done: send the RTS, or the data frame under basic access.
    fn access(&mut self, s: usize, now: Time, ev: &mut EventQueue, pool: &mut PacketPool, out: &mut Vec<WifiOutcome>) {
        let phy = self.cfg.phy;
        let aggregate = self.cfg.aggregation.is_some();
        if self.cfg.rate_control != RateControl::Constant {
            let sta = &self.st[s];
            let dst = sta.win.dst().or(sta.head.map(|h| h.dst)).or(sta.spare.map(|h| h.dst)).expect("access without a frame");
            let mode = match self.cfg.rate_control {
                RateControl::Ideal => self.ideal_mode(s, dst as usize),
                _ => self.minstrel_pick(s, dst, now),
            };
            self.st[s].mode = Some(mode);
        }
        if aggregate {
            self.gather(s, now, pool, out);
        }
        let mut h = self.st[s].head.expect("access without a frame");
        h.attempts += 1;
        let rts = self.uses_rts(s, &h);
        let data = self.data_time(s, &h);
        let response = self.response_time(s);
        let sta = &mut self.st[s];
        sta.backoff = None;
        sta.count_start = None;
        sta.stats.attempts += 1;
        if !aggregate {
            // (An aggregate counts its MPDUs' transmissions in `gather`.)
            sta.head = Some(h);
            if h.attempts > 1 {
                sta.stats.retries += 1;
            }
        }
        if rts {
            sta.phase = Phase::TxRts;
            let nav = 3 * phy.sifs + self.cts_time + data + response;
            self.start_tx(s, Air { frame: Frame::Rts, dst: h.dst, bytes: phy.rts_bytes, nav, clean: true, kbps: self.cfg.basic_kbps, snr: 0.0 }, now, ev);
        } else {
            self.send_data(s, now, ev);
        }
    }

    fn send_data(&mut self, s: usize, now: Time, ev: &mut EventQueue) {
        let h = self.st[s].head.expect("data without a frame");
        self.st[s].phase = Phase::TxData;
        let air = Air { frame: Frame::Data, dst: h.dst, bytes: self.psdu_bytes(s, &h), nav: self.cfg.phy.sifs + self.response_time(s), clean: true, kbps: 0, snr: 0.0 };
        self.start_tx(s, air, now, ev);
    }

    /// Airtime of `air` sent by station `s`.
    fn airtime(&self, s: usize, air: &Air) -> Time {
        if air.frame == Frame::Data {
            self.data_airtime(s, air.bytes)
        } else {
            self.cfg.phy.airtime(air.bytes, air.kbps)
        }
    }

    fn start_tx(&mut self, s: usize, air: Air, now: Time, ev: &mut EventQueue) {
        if let Some(g) = self.geo.as_mut().filter(|g| g.changes()) {
            let width = if air.frame == Frame::Data { self.st[s].mode.map_or(20, |m| m.width_mhz) } else { 20 };
            g.refresh(s, now, width, self.cfg.tx_range, self.cfg.cs_range, &mut self.hears, &mut self.reach);
            if self.cfg.radio.is_some() && !self.hears[s * self.st.len() + air.dst as usize] {
                // Faded or shadowed below what the addressee senses: it never learns of it.
                self.st[s].stats.out_of_range += 1;
            }
        }
        let dur = self.airtime(s, &air);
        let d = self.cfg.prop_delay;
        let header_rule = self.cfg.eifs_trigger == EifsTrigger::HeaderReceived;
        let sta = &mut self.st[s];
        debug_assert!(!sta.transmitting);
        sta.transmitting = true;
        if header_rule {
            // Half duplex: what we were hearing is cut, a header not yet complete is lost;
            // and our own frame ends the idle period an erroneous reception made EIFS.
            for e in sta.sensing.iter_mut() {
                e.intact = false;
                // A reception the PHY drops for our transmission tells the MAC nothing
                // (ns-3 `wifi-phy.cc` RECEPTION_ABORTED_BY_TX).
                e.header_ok = false;
            }
            sta.busy_error = false;
        }
        sta.air = Some(air);
        // Half duplex: a frame we were receiving is lost.
        if let Some(g) = self.geo.as_mut() {
            g.unlock(s);
        }
        let sta = &mut self.st[s];
        if let Some(r) = sta.receiving {
            if let Some(a) = self.st[r as usize].air.as_mut() {
                a.clean = false;
            }
        }
        ev.schedule(now + dur, self.event(s, kind::TX_END));
        ev.schedule(now + d, self.event(s, kind::SENSE_START));
        ev.schedule(now + dur + d, self.event(s, kind::SENSE_END));
    }

    fn tx_end(&mut self, s: usize, now: Time, ev: &mut EventQueue) {
        let d = self.cfg.prop_delay;
        let sifs = self.cfg.phy.sifs;
        let (ack, cts) = (self.response_time(s), self.cts_time);
        let e = self.event(s, kind::TIMEOUT);
        let sta = &mut self.st[s];
        sta.transmitting = false;
        sta.tx_ended = now;
        let frame = sta.air.expect("tx end without a transmission").frame;
        let rx_start = (self.cfg.ack_timeout == AckTimeout::RxStart).then_some(self.cfg.phy.slot + self.cfg.phy.plcp_header());
        let mut wait = |sta: &mut Station, response: Time| {
            // Until the response would have ended at us (and 1 ns more, so that a response
            // ending exactly then is seen first); or, 802.11's ACKTimeout, until its
            // header would have arrived, then to its end if it did.
            sta.response_end = now + sifs + response + 2 * d + 1;
            sta.rx_start_wait = rx_start.is_some();
            let deadline = rx_start.map_or(sta.response_end, |r| now + sifs + r + 2 * d + 1);
            sta.timeout.set(Some(deadline), ev, e);
        };
        match frame {
            Frame::Data if sta.phase == Phase::TxData => {
                sta.phase = Phase::WaitAck;
                wait(sta, ack);
            }
            Frame::Rts => {
                sta.phase = Phase::WaitCts;
                wait(sta, cts);
            }
            _ => {}
        }
        if sta.sensed == 0 {
            sta.idle_since = now;
            self.try_resume(s, now, ev);
        }
    }

    fn sense_start(&mut self, x: usize, now: Time, ev: &mut EventQueue, pool: &mut PacketPool, out: &mut Vec<WifiOutcome>) {
        let n = self.st.len();
        let air = self.st[x].air.expect("sense start without a transmission");
        let (slot, rule) = (self.cfg.phy.slot, self.cfg.backoff_rule);
        let (header_rule, header) = (self.cfg.eifs_trigger == EifsTrigger::HeaderReceived, self.cfg.phy.plcp_header());
        let radio = self.cfg.radio.is_some();
        for s in 0..n {
            if !self.hears[x * n + s] {
                continue;
            }
            if radio {
                self.radio_arrival(x, s, air.dst as usize == s, air.frame, now);
            } else {
                // Interference: the frame s was receiving is lost.
                if let Some(r) = self.st[s].receiving {
                    if let Some(a) = self.st[r as usize].air.as_mut() {
                        a.clean = false;
                    }
                }
                let sta = &self.st[s];
                if air.dst as usize == s {
                    let clean = sta.sensed == 0 && !sta.transmitting && self.reach[x * n + s];
                    if !clean {
                        self.st[x].air.as_mut().expect("air").clean = false;
                    }
                    self.st[s].receiving = Some(x as u32);
                    self.st[s].receiving_since = now;
                }
            }
            let reach = self.reach[x * n + s];
            let sta = &mut self.st[s];
            let was_idle = sta.sensed == 0 && !sta.transmitting;
            sta.sensed += 1;
            if header_rule {
                // The new frame overlaps what is being heard; a header still arriving is lost.
                for e in sta.sensing.iter_mut() {
                    e.intact = false;
                    e.header_ok &= now >= e.header_end;
                }
                sta.sensing.push(Sensed { from: x as u32, header_end: now + header, header_ok: was_idle && reach, intact: true });
            }
            if !was_idle {
                if !header_rule && !radio {
                    sta.busy_error = true; // overlapping frames: none decodable
                }
                continue;
            }
            // A new busy period decides the EIFS anew; with the header rule only a frame
            // whose header can arrive does (energy alone leaves an EIFS running).
            if !header_rule || reach {
                sta.busy_error = false;
            }
            let e = self.event(s, kind::BACKOFF);
            let sta = &mut self.st[s];
            let tie = sta.freeze(now, slot, rule);
            sta.backoff_timer.set(None, ev, e);
            if tie && sta.head.is_some() && sta.phase == Phase::Contend && sta.respond.is_none() {
                self.access(s, now, ev, pool, out);
            } else if tie {
                sta.backoff = None; // post-backoff done, nothing to send
            }
        }
    }

    fn sense_end(&mut self, x: usize, now: Time, ev: &mut EventQueue, pool: &mut PacketPool, out: &mut Vec<WifiOutcome>) {
        let n = self.st.len();
        let radio = self.cfg.radio.is_some();
        let air = self.st[x].air.expect("sense end without a transmission");
        for s in 0..n {
            if !self.hears[x * n + s] {
                continue;
            }
            let reach = self.reach[x * n + s];
            // Under the radio model a third party decodes by its own SINR (before its lock ends).
            let overheard = (radio && air.dst as usize != s).then(|| self.radio_overheard(x, s, &air));
            let heard = {
                let sta = &mut self.st[s];
                sta.sensed -= 1;
                if sta.receiving == Some(x as u32) {
                    sta.receiving = None;
                }
                if radio {
                    self.geo.as_mut().expect("radio").frame_ends(s, x, now);
                }
                let k = sta.sensing.iter().position(|e| e.from == x as u32);
                k.map(|k| sta.sensing.swap_remove(k))
            };
            if air.dst as usize == s {
                // Without the header rule every failed frame counts as received in error.
                let header_ok = heard.is_none_or(|e| e.header_ok);
                self.receive(x, s, air, reach, header_ok, now, ev, pool, out);
            } else if let Some((header_ok, decoded)) = overheard {
                // Decoded: its NAV; its header but no MPDU: EIFS; else energy only.
                let sta = &mut self.st[s];
                if decoded && !sta.transmitting {
                    sta.nav_until = sta.nav_until.max(now + air.nav);
                } else if header_ok {
                    sta.busy_error = true;
                }
            } else {
                let sta = &mut self.st[s];
                match heard {
                    // EifsTrigger::HeaderReceived: decoded (NAV), received in error (EIFS),
                    // or energy only.
                    Some(e) if e.header_ok && e.intact && !sta.transmitting => sta.nav_until = sta.nav_until.max(now + air.nav),
                    Some(e) if e.header_ok => sta.busy_error = true,
                    Some(_) => {}
                    None if reach && !sta.busy_error && !sta.transmitting => sta.nav_until = sta.nav_until.max(now + air.nav),
                    None => sta.busy_error = true,
                }
            }
            let sta = &mut self.st[s];
            if sta.sensed == 0 && !sta.transmitting {
                sta.idle_since = now;
                self.try_resume(s, now, ev);
            }
        }
    }

    /// The frame `air` from `x` ends at its receiver `s`.
    #[allow(clippy::too_many_arguments)]
    fn receive(&mut self, x: usize, s: usize, air: Air, reach: bool, header_ok: bool, now: Time, ev: &mut EventQueue, pool: &mut PacketPool, out: &mut Vec<WifiOutcome>) {
        let mut ok = air.clean && reach;
        let mut header_ok = header_ok;
        let per_mpdu = air.frame == Frame::Data && self.cfg.aggregation.is_some();
        if self.cfg.radio.is_some() {
            // A frame the station was not locked onto, or whose PHY header failed, is energy
            // only (no EIFS).
            header_ok = ok && self.radio_header(x, s, &air);
            ok = header_ok;
        }
        // (A header lost under the radio model was counted by `radio_header`; it is clean and
        // in reach, so none of the counts below applies to it.)
        if ok && per_mpdu {
            ok = self.receive_mpdus(x, s);
        } else if ok && self.cfg.radio.is_some() {
            let (payload, _) = self.radio_payload(x, &air);
            let p = self.geo.as_mut().expect("radio").survives(s, &payload);
            if unit(&mut self.st[x].rng) >= p {
                ok = false;
                self.count_radio_loss(x, s);
            }
        } else if ok && self.cfg.ber > 0.0 {
            let bits = f64::from(air.bytes) * 8.0;
            let fer = -f64::exp_m1(bits * f64::ln_1p(-self.cfg.ber));
            if unit(&mut self.st[x].rng) < fer {
                ok = false;
                self.st[x].stats.frame_errors += 1;
            }
        } else if !reach {
            self.st[x].stats.out_of_range += 1;
        } else if !air.clean {
            self.st[x].stats.collisions += 1;
        }
        // The station that owns the exchange this frame belongs to.
        let owner = match air.frame {
            Frame::Data | Frame::Rts => x,
            Frame::Cts | Frame::Ack | Frame::BlockAck => s,
        };
        if ok {
            let sifs = self.cfg.phy.sifs;
            if air.frame == Frame::Data && self.cfg.rate_control == RateControl::Ideal {
                let noise = self.cfg.radio.expect("ideal needs the radio model").noise_mw(self.st[x].mode.map_or(20, |m| m.width_mhz));
                self.st[s].rx_snr = self.geo.as_ref().expect("radio").end_sinr(s, noise, now);
            }
            match air.frame {
                Frame::Data if per_mpdu => {
                    // The recipient hands up what is in order, and answers (9.21.7.5).
                    self.st[x].win.advance(x as u32, out);
                    let response = if self.st[x].ppdu_mpdus >= 2 { Frame::BlockAck } else { Frame::Ack };
                    self.st[s].respond = Some((response, x as u32));
                    ev.schedule(now + sifs, self.event(s, kind::RESPOND));
                    return;
                }
                Frame::Data => {
                    let h = self.st[x].head.as_mut().expect("data without a frame");
                    if !h.delivered {
                        h.delivered = true;
                        out.push(WifiOutcome::Delivered { station: s as u32, from: x as u32, packet: h.packet });
                    }
                    self.st[s].respond = Some((Frame::Ack, x as u32));
                    ev.schedule(now + sifs, self.event(s, kind::RESPOND));
                    return;
                }
                Frame::Rts if self.st[s].nav_until <= now && self.st[s].respond.is_none() => {
                    self.st[s].respond = Some((Frame::Cts, x as u32));
                    ev.schedule(now + sifs, self.event(s, kind::RESPOND));
                    return;
                }
                Frame::Cts if self.st[s].phase == Phase::WaitCts => {
                    let e = self.event(s, kind::TIMEOUT);
                    let sta = &mut self.st[s];
                    sta.timeout.set(None, ev, e);
                    if self.cfg.retry_count == RetryCount::Separate {
                        sta.ssrc = 0;
                    }
                    sta.respond = Some((Frame::Data, x as u32));
                    ev.schedule(now + sifs, self.event(s, kind::RESPOND));
                    return;
                }
                Frame::Ack | Frame::BlockAck if self.st[s].phase == Phase::WaitAck => {
                    if air.snr > 0.0 && self.cfg.rate_control == RateControl::Ideal {
                        self.st[s].snr_seen[x] = air.snr;
                    }
                    let e = self.event(s, kind::TIMEOUT);
                    self.st[s].timeout.set(None, ev, e);
                    if self.cfg.aggregation.is_some() {
                        self.aggregate_done(s, true, now, pool, out);
                    } else {
                        self.minstrel_outcome(s, Some(1), now);
                        self.finish(s, true, now, pool, out);
                    }
                    return;
                }
                _ => {} // an RTS we may not answer (NAV set), or a stray response
            }
        } else if header_ok {
            self.st[s].busy_error = true;
        }
        // The exchange failed. Bianchi's idealisation: its owner knows at once.
        if self.cfg.timing == CollisionTiming::Bianchi && matches!(self.st[owner].phase, Phase::WaitAck | Phase::WaitCts) {
            let e = self.event(owner, kind::TIMEOUT);
            self.st[owner].rx_start_wait = false;
            self.st[owner].timeout.set(Some(now), ev, e);
        }
    }

    fn respond(&mut self, s: usize, now: Time, ev: &mut EventQueue) {
        let phy = self.cfg.phy;
        let Some((frame, dst)) = self.st[s].respond.take() else { return };
        match frame {
            Frame::Ack | Frame::BlockAck => {
                let bytes = if frame == Frame::Ack { phy.ack_bytes } else { BLOCK_ACK_BYTES };
                let (kbps, snr) = (self.response_kbps(dst as usize), std::mem::take(&mut self.st[s].rx_snr));
                self.start_tx(s, Air { frame, dst, bytes, nav: 0, clean: true, kbps, snr }, now, ev)
            }
            Frame::Cts => {
                // Duration of the RTS minus SIFS and the CTS itself.
                let Some(h) = self.st[dst as usize].head else { return };
                let nav = 2 * phy.sifs + self.data_time(dst as usize, &h) + self.response_time(dst as usize);
                self.start_tx(s, Air { frame, dst, bytes: phy.cts_bytes, nav, clean: true, kbps: self.cfg.basic_kbps, snr: 0.0 }, now, ev)
            }
            Frame::Data => self.send_data(s, now, ev),
            Frame::Rts => unreachable!("RTS is never a response"),
        }
    }

    /// The ACK or CTS did not come: count the failure, retry or give up.
    fn attempt_failed(&mut self, s: usize, now: Time, ev: &mut EventQueue, pool: &mut PacketPool, out: &mut Vec<WifiOutcome>) {
        let (short, long, cw_max) = (self.cfg.short_retry_limit, self.cfg.long_retry_limit, self.cfg.phy.cw_max);
        let h = self.st[s].head.expect("timeout without a frame");
        let long_frame = self.st[s].phase == Phase::WaitAck && self.uses_rts(s, &h);
        self.minstrel_outcome(s, None, now);
        let sta = &mut self.st[s];
        debug_assert!(matches!(sta.phase, Phase::WaitAck | Phase::WaitCts));
        // 802.11-2012 9.3.4.4 (1999/2007: 9.2.5.3): the SRC/SSRC (LRC/SLRC for a data frame
        // above dot11RTSThreshold) is incremented on every failed transmission, and
        // "retries for failed transmission attempts shall continue until the SRC ... is
        // equal to dot11ShortRetryLimit": the count reaching the limit ends the MSDU, so
        // a frame that always fails is sent `limit` times (ns-2 RetransmitDATA:
        // `if (*rcount >= thresh)` after `(*rcount)++`; ns-3.44's WifiMac::FrameRetryLimit,
        // "the maximum number of transmission attempts of a frame"). A CTS resets the
        // SSRC, which is also this count (ns-2's reading; see the module docs).
        let give_up = if long_frame && self.cfg.retry_count == RetryCount::Separate {
            sta.slrc += 1;
            sta.slrc >= long
        } else {
            sta.ssrc += 1;
            sta.ssrc >= short
        };
        if self.cfg.cw_after_give_up == CwAfterGiveUp::Kept {
            sta.ns3_failed_cw(short, self.cfg.phy.cw_min, cw_max);
        } else {
            sta.double_cw(cw_max);
        }
        if self.cfg.after_timeout == AfterTimeout::Difs {
            sta.difs_from = sta.difs_from.max(now);
        }
        if give_up {
            let kept = (self.cfg.cw_after_give_up == CwAfterGiveUp::Kept).then_some((sta.cw, sta.station_retries));
            self.finish(s, false, now, pool, out);
            if let Some((cw, retries)) = kept {
                let sta = &mut self.st[s];
                (sta.cw, sta.station_retries) = (cw, retries);
                sta.draw_backoff();
            }
        } else {
            sta.phase = Phase::Contend;
            sta.draw_backoff();
        }
        self.try_resume(s, now, ev);
    }

    /// Aggregation: the A-MPDU of this access (802.11-2012 8.6, 9.12): the window's MPDUs
    /// still to be sent, in sequence order, then new ones from the queue while the window
    /// spans fewer than 64, as long as the A-MPDU keeps within its octet and MPDU limits
    /// and the longest HT-mixed PPDU. Each MPDU in it counts a transmission.
    fn gather(&mut self, s: usize, now: Time, pool: &mut PacketPool, out: &mut Vec<WifiOutcome>) {
        let agg = self.cfg.aggregation.expect("aggregation");
        // A Minstrel-HT probe goes alone, as ath9k sends it ("if rate selected is a probe
        // rate then avoid aggregation of this packet", xmit.c ath_lookup_rate).
        let rc = self.st[s].rc.as_deref();
        let probe = rc.is_some_and(|rc| rc.sent.is_some_and(|(_, _, probe)| probe));
        // A retry within a Minstrel-HT chain resends the same PPDU's MPDUs, as a multi-rate
        // retry chain in hardware does; new MPDUs join at the next chain.
        let within_chain = rc.is_some_and(|rc| rc.chain.is_some_and(|(_, tries)| tries > 0));
        let max_frames = match (probe, within_chain) {
            (true, _) => 1,
            (false, true) => self.st[s].ppdu_mpdus.clamp(1, WINDOW as u32),
            (false, false) => agg.max_frames.clamp(1, WINDOW as u32),
        };
        let overhead = self.cfg.llc_snap_bytes + self.cfg.phy.mac_header_bytes;
        let cfg = &self.cfg;
        let mode = self.st[s].mode.expect("aggregation without an HT mode");
        let fits = |len: u32| len <= agg.max_bytes && mode.airtime_as(len, cfg.short_gi_txtime, cfg.vht_sig_b) <= HT_PPDU_MAX;
        let sta = &mut self.st[s];
        let dst = sta.win.dst().expect("access without a frame");
        let (mut len, mut n, mut single) = (0, 0_u32, 0);
        // The MPDUs still to be sent go first, as many as fit: at the same MCS all of them
        // (they were all in the last A-MPDU), after rate control chose a slower one perhaps
        // not; the rest wait for the next access, as in ns-3.44 (its aggregator holds
        // retransmissions to the same size and time limits, qos-frame-exchange-manager.cc:428-448).
        let mut all_pending = true;
        for e in sta.win.q.iter_mut().filter(|e| e.pending()) {
            let mpdu = e.h.size + overhead;
            let next = with_subframe(len, mpdu);
            if n > 0 && !(n < max_frames && fits(next)) {
                all_pending = false;
                break;
            }
            e.in_ppdu = true;
            (len, n, single) = (next, n + 1, mpdu);
        }
        let mut scratch = std::mem::take(&mut self.queue_drops);
        while all_pending && !within_chain && n < max_frames && sta.win.q.len() < WINDOW {
            let Some(h) = sta.spare.take().or_else(|| dequeue(sta, s, now, pool, &mut scratch, out)) else { break };
            let mpdu = h.size + overhead;
            let next = with_subframe(len, mpdu);
            if h.dst != dst || !fits(next) {
                sta.spare = Some(h);
                break;
            }
            let mut e = Mpdu::new(h);
            e.in_ppdu = true;
            sta.win.q.push_back(e);
            (len, n, single) = (next, n + 1, mpdu);
        }
        self.queue_drops = scratch;
        for e in sta.win.q.iter_mut().filter(|e| e.in_ppdu) {
            e.h.attempts += 1;
            sta.stats.retries += u64::from(e.h.attempts > 1);
        }
        // One MPDU goes alone (HT: without a delimiter; VHT: an S-MPDU) and is answered by an
        // ACK.
        sta.ppdu_mpdus = n;
        sta.ppdu_bytes = if n == 1 { single + cfg.lone_mpdu_delimiter() } else { len };
        if n >= 2 {
            sta.stats.ampdus += 1;
            sta.stats.ampdu_mpdus += u64::from(n);
        }
        sta.head = sta.win.first_pending();
    }

    /// Rate control "ideal": the fastest candidate whose threshold lies below the SNR `dst`
    /// last reported to `s` (strictly: `threshold < snr`, as ns-3), else the slowest.
    fn ideal_mode(&self, s: usize, dst: usize) -> HtMode {
        let snr = self.st[s].snr_seen[dst];
        let fastest = self.ideal.iter().rev().find(|&&(_, t)| t < snr);
        fastest.or(self.ideal.first()).expect("no candidate modes").0
    }

    /// Rate control "minstrel_ht": the mode of `s`'s next PPDU to `dst`: the next try of the
    /// current retry chain, or the first of a new one (a new sequence; see [`minstrel`]).
    fn minstrel_pick(&mut self, s: usize, dst: u32, now: Time) -> HtMode {
        let (supported, samples) = self.minstrel.as_ref().expect("minstrel_ht state");
        let sta = &mut self.st[s];
        let rc = sta.rc.as_deref_mut().expect("minstrel_ht station state");
        if rc.minstrel[dst as usize].is_none() {
            rc.minstrel[dst as usize] = Some(MinstrelHt::new(*supported, now, samples));
        }
        let (entry, probe) = loop {
            if rc.chain.is_none() {
                let m = rc.minstrel[dst as usize].as_mut().expect("made above");
                rc.chain = Some((m.chain(now), 0));
            }
            let (chain, tries) = rc.chain.expect("set above");
            match chain.at(tries) {
                Some(e) => break (e, chain.probe && tries == 0),
                // The chain is used up: the sequence ends unanswered, and a new one starts (a
                // driver's software retry).
                None => end_sequence(rc, 0, now, samples),
            }
        };
        rc.sent = Some((dst, entry, probe));
        sta.stats.probes += u64::from(probe);
        minstrel_mode(entry.rate)
    }

    /// Rate control "minstrel_ht": the PPDU in flight ended: `answered` with the MPDUs its
    /// Block Ack (ACK) acknowledged, which ends the sequence, or not (`None`), which moves
    /// the chain on a try. A data PPDU sent is one try at its rate; an RTS that got no CTS
    /// moves the chain without a try (no data went at the rate).
    fn minstrel_outcome(&mut self, s: usize, answered: Option<u32>, now: Time) {
        let Some((_, samples)) = self.minstrel.as_ref() else { return };
        let aggregate = self.cfg.aggregation.is_some();
        let sta = &mut self.st[s];
        let Some(rc) = sta.rc.as_deref_mut() else { return };
        let Some((_, entry, _)) = rc.sent else { return };
        if sta.phase == Phase::WaitAck {
            rc.tries.push((entry.rate, if aggregate { sta.ppdu_mpdus.max(1) } else { 1 }));
        }
        match answered {
            Some(acked) => end_sequence(rc, acked, now, samples),
            None => {
                if let Some((_, tries)) = rc.chain.as_mut() {
                    *tries += 1;
                }
            }
        }
    }

    /// Rate control "ideal": forget what `dst` reported once a frame for it is given up
    /// (ns-3.44 IdealWifiManager::DoReportFinalDataFailed resets the station).
    fn forget_snr(&mut self, s: usize, dst: u32) {
        if self.cfg.rate_control == RateControl::Ideal {
            self.st[s].snr_seen[dst as usize] = 0.0;
        }
    }

    /// Radio model: `x`'s frame arrives at `s` (which senses it). A station not sending
    /// locks onto it if its preamble stands PREAMBLE_SINR over the noise and what the
    /// station already senses, and it is locked onto nothing, or onto a weaker frame that
    /// began less than the preamble detection time ago (which then becomes interference, and
    /// is lost if it was addressed to `s`). Otherwise the frame interferes with the locked
    /// one, and is lost if it was addressed to `s`. (ns-3.44: ThresholdPreambleDetectionModel,
    /// phy-entity.cc:1023-1067; a PHY that only senses energy, CCA_BUSY, still detects a
    /// new preamble, phy-entity.cc:435-488.)
    fn radio_arrival(&mut self, x: usize, s: usize, addressed: bool, frame: Frame, now: Time) {
        let radio = self.cfg.radio.expect("radio");
        let width = if frame == Frame::Data { self.st[x].mode.map_or(20, |m| m.width_mhz) } else { 20 };
        let g = self.geo.as_mut().expect("radio");
        let sta = &self.st[s];
        let detected = g.power(x, s) >= PREAMBLE_SINR * (radio.noise_mw(width) + g.ambient_mw(s));
        let before = g.locked_on(s).map(|(y, _)| y);
        // A stronger preamble within the detection time evicts the locked frame; it is then
        // detected or not by its own SINR (ns-3.44 phy-entity.cc:1023-1052, judged there at
        // the end of the window, here on arrival).
        let evict = matches!(g.locked_on(s), Some((y, since)) if now < since + PREAMBLE_DETECTION && g.power(x, s) > g.power(y, s));
        let take = !sta.transmitting && (evict || (before.is_none() && detected));
        if take {
            if let Some(y) = before {
                if self.st[s].receiving == Some(y as u32) {
                    self.st[y].air.as_mut().expect("air").clean = false;
                    self.st[s].receiving = None;
                }
            }
            if !detected {
                g.unlock(s);
                g.arrive(s, x);
                if addressed {
                    self.st[x].air.as_mut().expect("air").clean = false;
                }
                return;
            }
            g.lock(s, x, now);
            g.arrive(s, x);
            if addressed {
                self.st[s].receiving = Some(x as u32);
                self.st[s].receiving_since = now;
            }
            return;
        }
        if before.is_some() {
            g.interfere(s, x, now);
        }
        g.arrive(s, x);
        if addressed {
            self.st[x].air.as_mut().expect("air").clean = false;
            // (Kept for AckTimeout::RxStart, as under the range disc, unless it would replace
            // a frame being received.)
            if self.st[s].receiving.is_none() {
                self.st[s].receiving = Some(x as u32);
                self.st[s].receiving_since = now;
            }
        }
    }

    /// Radio model: the PHY header of the frame `s` is locked onto survives (one draw from
    /// the transmitter's stream): L-SIG (4 us at 6 Mb/s, BPSK 1/2, after the 16 us legacy
    /// training fields; 802.11-2012 18.3.2), and for an HT or VHT data PPDU HT-SIG or
    /// VHT-SIG-A (8 us, BPSK 1/2; 20.3.9.4.3, 802.11-2016 21.3.8.3.3). The noise is over the
    /// PPDU's width (the legacy fields are duplicated on each 20 MHz, each with its share of
    /// the power), as ns-3.44 (phy-entity.cc:1290-1293). Counts a failure.
    fn radio_header(&mut self, x: usize, s: usize, air: &Air) -> bool {
        let p = self.header_survives(x, s, air);
        if unit(&mut self.st[x].rng) < p {
            return true;
        }
        self.count_radio_loss(x, s);
        false
    }

    /// Radio model: the probability that the PHY header of `x`'s frame `air`, which `s` is
    /// locked onto, survives (one draw decides both fields).
    fn header_survives(&mut self, x: usize, s: usize, air: &Air) -> f64 {
        const US: Time = 1_000;
        let radio = self.cfg.radio.expect("radio");
        let mode = self.st[x].mode.filter(|_| air.frame == Frame::Data);
        let noise_mw = radio.noise_mw(mode.map_or(20, |m| m.width_mhz));
        let g = self.geo.as_mut().expect("radio");
        let lsig = Section { from: 16 * US, to: 20 * US, modulation: Modulation::BPSK_1_2, rate_bps: 6e6, noise_mw };
        let mut p = g.survives(s, &lsig);
        if mode.is_some() {
            p *= g.survives(s, &Section { from: 20 * US, to: 28 * US, ..lsig });
        }
        p
    }

    /// Radio model: a third party `s` overhears `x`'s frame `air`: whether its header
    /// arrived and whether the frame (with aggregation: any of its MPDUs) was decoded, each
    /// by a draw from `x`'s stream as for the addressee. Only a frame `s` is still locked
    /// onto can be (a transmission of its own has ended the lock).
    fn radio_overheard(&mut self, x: usize, s: usize, air: &Air) -> (bool, bool) {
        let locked = self.geo.as_ref().and_then(|g| g.locked_on(s)).map(|(y, _)| y);
        if locked != Some(x) || self.st[s].transmitting {
            return (false, false);
        }
        let p = self.header_survives(x, s, air);
        if unit(&mut self.st[x].rng) >= p {
            return (false, false);
        }
        let aggregated = air.frame == Frame::Data && self.cfg.aggregation.is_some();
        let mut windows = std::mem::take(&mut self.windows);
        self.payload_windows(x, air, aggregated, &mut windows);
        let mut decoded = false;
        for w in &windows {
            let p = self.geo.as_mut().expect("radio").survives(s, w);
            decoded |= unit(&mut self.st[x].rng) < p;
        }
        self.windows = windows;
        (true, decoded)
    }

    /// Radio model: the windows of `x`'s PPDU `air` whose success a receiver draws: the whole
    /// payload, or with aggregation each subframe's (802.11-2012 8.6.1: a delimiter and the
    /// MPDU, padded to 4 octets; the first from the SERVICE field, the last to the PPDU's
    /// end, as ns-3.44 phy-entity.cc:585-660).
    fn payload_windows(&self, x: usize, air: &Air, aggregated: bool, out: &mut Vec<Section>) {
        out.clear();
        let (payload, rate) = self.radio_payload(x, air);
        if !aggregated {
            out.push(payload);
            return;
        }
        let overhead = self.cfg.llc_snap_bytes + self.cfg.phy.mac_header_bytes;
        let sta = &self.st[x];
        let (lone, single) = (self.cfg.lone_mpdu_delimiter(), sta.ppdu_mpdus == 1);
        let bits_ns = |bits: u32| (f64::from(bits) / rate * 1e9) as Time;
        let mut end: u32 = 0;
        for (k, e) in sta.win.q.iter().filter(|e| e.in_ppdu).enumerate() {
            let start = end.next_multiple_of(4);
            end = start + if single { lone } else { ampdu::DELIMITER_BYTES } + e.h.size + overhead;
            let from = if k == 0 { payload.from } else { payload.from + bits_ns(16 + 8 * start) };
            out.push(Section { from, to: payload.from + bits_ns(16 + 8 * end.next_multiple_of(4)), ..payload });
        }
        if let Some(last) = out.last_mut() {
            last.to = payload.to;
        }
    }

    /// Radio model: the payload of `air` as a section, from the SERVICE field to the end of
    /// the PPDU (tail and padding included; the ERP signal extension not), and the rate,
    /// b/s. The section's bits are per spatial stream (each stream's share of the rate;
    /// ns-3.44 interference-helper.cc:543-565).
    fn radio_payload(&self, x: usize, air: &Air) -> (Section, f64) {
        const US: Time = 1_000;
        let radio = self.cfg.radio.unwrap_or_default();
        let (modulation, rate, width, from) = match (air.frame, self.st[x].mode) {
            (Frame::Data, Some(m)) => {
                let sig_b = if m.vht_streams.is_some() && self.cfg.vht_sig_b == VhtSigB::Sent { 4 * US } else { 0 };
                (m.modulation(), m.rate_bps(), m.width_mhz, (20 + 8 + 4 + 4 * m.streams()) * US + sig_b)
            }
            (Frame::Data, None) => (Modulation::of_ofdm_kbps(self.cfg.data_kbps).expect("an OFDM rate"), self.cfg.data_rate_bps(), 20, 20 * US),
            _ => (Modulation::of_ofdm_kbps(air.kbps).expect("an OFDM rate"), f64::from(air.kbps) * 1e3, 20, 20 * US),
        };
        let extension = if self.cfg.phy.kind == PhyKind::ErpOfdm && self.st[x].mode.is_none() { 6 * US } else { 0 };
        let to = self.airtime(x, air) - extension;
        let streams = if air.frame == Frame::Data { self.st[x].mode.map_or(1, |m| m.streams()) } else { 1 };
        (Section { from, to, modulation, rate_bps: rate / streams as f64, noise_mw: radio.noise_mw(width) }, rate)
    }

    fn count_radio_loss(&mut self, x: usize, s: usize) {
        if self.geo.as_ref().is_some_and(|g| g.interfered(s)) {
            self.st[x].stats.collisions += 1;
        } else {
            self.st[x].stats.frame_errors += 1;
        }
    }

    /// Aggregation: the recipient `s` decodes the MPDUs of `x`'s PPDU, each with its own
    /// frame-error draw; whether any arrived (a Block Ack is due).
    fn receive_mpdus(&mut self, x: usize, s: usize) -> bool {
        let (ber, overhead) = (self.cfg.ber, self.cfg.llc_snap_bytes + self.cfg.phy.mac_header_bytes);
        let radio = self.cfg.radio.is_some();
        let mut windows = std::mem::take(&mut self.windows);
        if radio {
            let air = self.st[x].air.expect("data without a transmission");
            self.payload_windows(x, &air, true, &mut windows);
        }
        let (sta, geo) = (&mut self.st[x], &mut self.geo);
        let mut any = false;
        for (k, e) in sta.win.q.iter_mut().filter(|e| e.in_ppdu).enumerate() {
            if let Some(g) = geo.as_mut().filter(|_| radio) {
                if unit(&mut sta.rng) >= g.survives(s, &windows[k]) {
                    if g.interfered(s) {
                        sta.stats.collisions += 1;
                    } else {
                        sta.stats.frame_errors += 1;
                    }
                    continue;
                }
            }
            if ber > 0.0 {
                let bits = f64::from(e.h.size + overhead) * 8.0;
                if unit(&mut sta.rng) < -f64::exp_m1(bits * f64::ln_1p(-ber)) {
                    sta.stats.frame_errors += 1;
                    continue;
                }
            }
            e.h.delivered = true;
            any = true;
        }
        self.windows = windows;
        any
    }

    /// Aggregation: no Block Ack (or ACK, or CTS) came. The contention window grows as
    /// after any failed exchange, back to CWmin when the station's count reaches the short
    /// retry limit (9.3.3); every MPDU sent counts a failed transmission.
    fn aggregate_failed(&mut self, s: usize, now: Time, ev: &mut EventQueue, pool: &mut PacketPool, out: &mut Vec<WifiOutcome>) {
        let (short, cw_min, cw_max) = (self.cfg.short_retry_limit, self.cfg.phy.cw_min, self.cfg.phy.cw_max);
        let sta = &mut self.st[s];
        debug_assert!(matches!(sta.phase, Phase::WaitAck | Phase::WaitCts));
        if self.cfg.cw_after_give_up == CwAfterGiveUp::Kept {
            sta.ns3_failed_cw(short, cw_min, cw_max);
        } else {
            sta.ssrc += 1;
            if sta.ssrc >= short {
                sta.ssrc = 0;
                sta.cw = cw_min;
            } else {
                sta.double_cw(cw_max);
            }
        }
        if self.cfg.after_timeout == AfterTimeout::Difs {
            sta.difs_from = sta.difs_from.max(now);
        }
        self.aggregate_done(s, false, now, pool, out);
        self.try_resume(s, now, ev);
    }

    /// Aggregation: the exchange ended, answered (`responded`: a Block Ack or ACK) or not.
    /// What the recipient holds is acknowledged; an MPDU sent and not acknowledged is given
    /// up once its transmissions reach the short retry limit; the window moves; the next
    /// MPDU to send takes the head, after a fresh backoff.
    fn aggregate_done(&mut self, s: usize, responded: bool, now: Time, pool: &mut PacketPool, out: &mut Vec<WifiOutcome>) {
        let (limit, cw_min) = (self.cfg.short_retry_limit.max(1), self.cfg.phy.cw_min);
        if self.minstrel.is_some() {
            let q = &self.st[s].win.q;
            let acked = q.iter().filter(|e| e.in_ppdu && e.pending() && e.h.delivered).count() as u32;
            self.minstrel_outcome(s, responded.then_some(acked), now);
        }
        let sta = &mut self.st[s];
        let mut acked_bytes = 0;
        // Whether an MPDU of this PPDU is still to be resent (Minstrel-HT's sequence goes on).
        let mut sent_pending = false;
        for e in sta.win.q.iter_mut() {
            let sent = std::mem::take(&mut e.in_ppdu);
            if !e.pending() {
                continue;
            }
            if responded && e.h.delivered {
                e.acked = true;
                acked_bytes += u64::from(e.h.size);
                sta.stats.record_done(&e.h, true);
            } else if sent && e.h.attempts >= limit {
                e.gone = true;
                sta.stats.record_done(&e.h, false);
                give_up(s, &e.h, out);
                // Rate control "ideal" forgets the SNR after a missed Block Ack only (ns-3.44
                // calls ReportFinalDataFailed from MissedBlockAck, ht-frame-exchange-manager.cc
                // :1617-1622); `snr_seen` is empty otherwise.
                if !responded {
                    if let Some(seen) = sta.snr_seen.get_mut(e.h.dst as usize) {
                        *seen = 0.0;
                    }
                }
            } else {
                sent_pending |= sent;
            }
        }
        sta.win.advance(s as u32, out);
        if let Some(abc) = sta.queue.abc_mut() {
            abc.on_served(now, acked_bytes, now - sta.head_since);
        }
        if responded {
            (sta.cw, sta.station_retries, sta.ssrc) = (cw_min, 0, 0);
        }
        sta.phase = Phase::Contend;
        sta.head = sta.win.first_pending();
        if !sent_pending {
            // Minstrel-HT: every MPDU of the unanswered PPDU is given up; its sequence ends.
            if let (Some((_, samples)), Some(rc)) = (self.minstrel.as_ref(), sta.rc.as_deref_mut()) {
                end_sequence(rc, 0, now, samples);
            }
        }
        if sta.head.is_none() {
            debug_assert!(sta.win.q.is_empty());
            let mut scratch = std::mem::take(&mut self.queue_drops);
            let next = sta.spare.take().or_else(|| dequeue(sta, s, now, pool, &mut scratch, out));
            self.queue_drops = scratch;
            match next {
                Some(h) => sta.win.q.push_back(Mpdu::new(h)),
                None => sta.queue.on_idle(now),
            }
            sta.head = next;
        }
        sta.head_since = now;
        sta.draw_backoff();
    }

    /// The MSDU in service leaves (acknowledged or given up); the next one starts, after
    /// a fresh backoff (drawn even when the queue is empty: post-backoff).
    fn finish(&mut self, s: usize, acked: bool, now: Time, pool: &mut PacketPool, out: &mut Vec<WifiOutcome>) {
        let cw_min = self.cfg.phy.cw_min;
        let sta = &mut self.st[s];
        let h = sta.head.take().expect("finish without a frame");
        sta.stats.record_done(&h, acked);
        if let Some(abc) = sta.queue.abc_mut() {
            // A frame given up delivered nothing in the time it held the head.
            abc.on_served(now, if acked { u64::from(h.size) } else { 0 }, now - sta.head_since);
        }
        if !acked {
            give_up(s, &h, out);
            self.forget_snr(s, h.dst);
        }
        let sta = &mut self.st[s];
        if let (Some((_, samples)), Some(rc)) = (self.minstrel.as_ref(), sta.rc.as_deref_mut()) {
            end_sequence(rc, 0, now, samples);
        }
        sta.cw = cw_min;
        sta.station_retries = 0;
        sta.ssrc = 0;
        sta.slrc = 0;
        sta.phase = Phase::Contend;
        let mut scratch = std::mem::take(&mut self.queue_drops);
        sta.head = dequeue(sta, s, now, pool, &mut scratch, out);
        self.queue_drops = scratch;
        match sta.head {
            Some(_) => sta.head_since = now,
            None => sta.queue.on_idle(now),
        }
        sta.draw_backoff();
    }
}

/// Rate control "ideal": the modes a station may choose, slowest first, each with the SNR
/// at which its coded bit error rate is 1e-6 (ns-3.44 IdealWifiManager's BerThreshold): the
/// channel's width, guard interval and streams; 802.11n MCS 0-7 (one stream), 802.11ac MCS
/// 0-9 on the channel's streams (MCS 9 at 20 MHz is none).
fn ideal_modes(base: HtMode) -> Vec<(HtMode, f64)> {
    let modes: Vec<HtMode> = match base.vht_streams {
        None => (0..8).filter_map(|m| HtMode::new(m, base.width_mhz, base.short_gi).ok()).collect(),
        Some(nss) => (0..10).filter_map(|m| HtMode::vht(m, base.width_mhz, nss, base.short_gi).ok()).collect(),
    };
    let mut out: Vec<(HtMode, f64)> = modes.into_iter().map(|m| (m, m.modulation().snr_threshold(1e-6))).collect();
    out.sort_by(|a, b| a.0.rate_bps().total_cmp(&b.0.rate_bps()));
    out
}

/// Rate control "minstrel_ht": the rates of Linux's groups that a peer of the channel's
/// mode supports: 802.11n one stream, 802.11ac 1..= the channel's streams; long GI, and short
/// GI where the channel has it; every width up to the channel's; the MCSs the PHY defines
/// there (VHT MCS 9 is none at 20 MHz).
fn minstrel_groups(base: HtMode) -> [u16; minstrel::GROUPS] {
    let mut supported = [0; minstrel::GROUPS];
    let streams = base.vht_streams.unwrap_or(1);
    for width in [20, 40, 80].into_iter().filter(|&w| w <= base.width_mhz) {
        for sgi in [false, true].into_iter().filter(|&g| !g || base.short_gi) {
            for nss in 1..=streams {
                let g = minstrel::group_index(base.vht_streams.is_some(), nss, sgi, width);
                for mcs in 0..minstrel::RATES as u8 {
                    let ok = match base.vht_streams {
                        Some(_) => HtMode::vht(mcs, width, nss, sgi).is_ok(),
                        None => mcs < 8 && HtMode::new(mcs, width, sgi).is_ok(),
                    };
                    supported[g] |= u16::from(ok) << mcs;
                }
            }
        }
    }
    supported
}

/// Rate control "minstrel_ht": a station's transmission sequence ends, `acked` MPDUs
/// acknowledged by its last PPDU's response: its tries go to the destination's statistics
/// (`minstrel_ht_tx_status`), and the next PPDU starts a new chain.
fn end_sequence(rc: &mut RateState, acked: u32, now: Time, samples: &SampleTable) {
    if let (Some((dst, _, _)), false) = (rc.sent, rc.tries.is_empty()) {
        if let Some(m) = rc.minstrel[dst as usize].as_mut() {
            m.tx_status(now, &rc.tries, acked, samples);
        }
    }
    rc.tries.clear();
    rc.chain = None;
}

/// Rate control "minstrel_ht": the mode of one of Linux's rates.
fn minstrel_mode(rate: u16) -> HtMode {
    let g = minstrel::groups()[minstrel::group_of(rate)];
    let mcs = minstrel::idx_of(rate) as u8;
    let mode = if g.vht { HtMode::vht(mcs, g.width_mhz, g.streams, g.short_gi) } else { HtMode::new(mcs + 8 * (g.streams - 1), g.width_mhz, g.short_gi) };
    mode.expect("a supported rate")
}

/// Station `s` gave `h` up at the retry limit: a retry-limit drop, or, when a copy arrived
/// but every ACK was lost, the give-up all the same (the MAC cannot know it; TCP-CLAP Fig.
/// 6: Retry Count = Retry Limit).
fn give_up(s: usize, h: &Head, out: &mut Vec<WifiOutcome>) {
    if !h.delivered {
        out.push(WifiOutcome::Dropped { station: s as u32, packet: h.packet, cause: DropCause::Channel, retry_limit: true });
    } else if h.data {
        out.push(WifiOutcome::GaveUpAfterDelivery { station: s as u32, flow: h.flow, seq: h.seq });
    }
}

/// The next MPDU from `sta`'s interface queue, its sojourn told to the discipline; what
/// the discipline drops at dequeue (CoDel) is reported as queue drops (`scratch` is
/// reused).
fn dequeue(sta: &mut Station, s: usize, now: Time, pool: &mut PacketPool, scratch: &mut Vec<Head>, out: &mut Vec<WifiOutcome>) -> Option<Head> {
    let next = sta.queue.pop(pool, now, scratch);
    if let Some(h) = next {
        let sojourn = now - pool.get(h.packet).enqueued;
        sta.queue.on_departure(h.packet, pool, now, sojourn);
    }
    for d in scratch.drain(..) {
        sta.stats.queue_drops += 1;
        out.push(WifiOutcome::Dropped { station: s as u32, packet: d.packet, cause: DropCause::Queue, retry_limit: false });
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_ack_is_32_octets_at_the_control_response_rate() {
        // 8.3.1.9; at 24 Mb/s (MCS 7's control response rate) 20 + 4 x ceil((16 + 256 + 6) /
        // 96) = 32 us, at 6 Mb/s (MCS 0's) 20 + 4 x 12 = 68 us; the ACK 28 and 44 us.
        let at = |mcs| WifiChannel::new(0, WifiConfig::n(super::super::HtMode::new(mcs, 20, false).unwrap()), &[(0.0, 0.0), (1.0, 0.0)], 1, 0, "t");
        let (seven, zero) = (at(7), at(0));
        let answers = |ch: &WifiChannel| (ch.cfg.phy.airtime(BLOCK_ACK_BYTES, ch.response_kbps(0)), ch.cfg.phy.airtime(ch.cfg.phy.ack_bytes, ch.response_kbps(0)));
        assert_eq!(answers(&seven), (32_000, 28_000));
        assert_eq!(answers(&zero), (68_000, 44_000));
    }
    use crate::packet::{Packet, PacketKind};

    /// A two-station channel under `cfg` whose station 0 holds `msdus` 1500-byte MSDUs for
    /// station 1, and a way to fail its exchanges.
    struct Failing {
        ch: WifiChannel,
        pool: PacketPool,
        ev: EventQueue,
        out: Vec<WifiOutcome>,
    }

    impl Failing {
        fn new(cfg: WifiConfig, msdus: usize) -> Self {
            let mut ch = WifiChannel::new(0, cfg, &[(0.0, 0.0), (10.0, 0.0)], 1, 0, "t");
            let (mut pool, mut ev) = (PacketPool::default(), EventQueue::default());
            for _ in 0..msdus {
                let id = pool.alloc(&Packet::new(PacketKind::Udp, 0, 0, 1, 1500, 0));
                ch.enqueue(0, id, 1, 0, &mut ev, &mut pool).unwrap();
            }
            Failing { ch, pool, ev, out: Vec::new() }
        }

        /// Station 0's exchange fails in `phase` (no CTS: `WaitCts`; no ACK: `WaitAck`);
        /// whether the MAC then gave the MSDU up (a retry-limit drop).
        fn fail(&mut self, phase: Phase) -> bool {
            self.ch.st[0].phase = phase;
            self.ch.attempt_failed(0, 0, &mut self.ev, &mut self.pool, &mut self.out);
            match self.out.pop() {
                Some(WifiOutcome::Dropped { retry_limit, .. }) => {
                    assert!(retry_limit);
                    true
                }
                _ => false,
            }
        }

        /// The failures, in `phases`, until the first MSDU is given up, if it is.
        fn failures_until_discard(&mut self, phases: impl IntoIterator<Item = Phase>) -> Option<usize> {
            phases.into_iter().position(|phase| self.fail(phase)).map(|k| k + 1)
        }
    }

    /// Station 0's one MSDU fails every exchange in `phase`: the failures until the discard.
    fn failures_until_discard(rts: bool, phase: Phase) -> usize {
        let cfg = WifiConfig { rts_threshold: rts.then_some(0), ..WifiConfig::b11() };
        Failing::new(cfg, 1).failures_until_discard(std::iter::repeat_n(phase, 100)).expect("never discarded")
    }

    #[test]
    fn the_retry_counts_reaching_the_limits_end_the_msdu() {
        // 802.11-2012 9.3.4.4: retries continue until the SRC equals dot11ShortRetryLimit
        // (7) or the LRC dot11LongRetryLimit (4).
        assert_eq!(failures_until_discard(false, Phase::WaitAck), 7, "short data frame, no ACK");
        assert_eq!(failures_until_discard(true, Phase::WaitCts), 7, "RTS, no CTS");
        assert_eq!(failures_until_discard(true, Phase::WaitAck), 4, "long data frame after a CTS, no ACK");
    }

    #[test]
    fn a_combined_retry_count_adds_rts_and_data_failures_against_the_short_limit() {
        // RTS failures and data failures after a CTS, alternating. 802.11's separate counts
        // discard when the LRC reaches 4 (the 8th failure); ns-3's one count at 7.
        let rts = WifiConfig { rts_threshold: Some(0), ..WifiConfig::b11() };
        let alternating: Vec<Phase> = (0..20).map(|k| if k % 2 == 0 { Phase::WaitCts } else { Phase::WaitAck }).collect();
        assert_eq!(Failing::new(rts.clone(), 2).failures_until_discard(alternating.clone()), Some(8));
        assert_eq!(Failing::new(WifiConfig { retry_count: RetryCount::Combined, ..rts }, 2).failures_until_discard(alternating), Some(7));
    }

    /// The contention window after each of `failures` failed exchanges of station 0, whose
    /// queue holds three MSDUs, and where the MSDUs were given up.
    fn cw_after_failures(cfg: WifiConfig, failures: usize) -> (Vec<u32>, Vec<usize>) {
        let mut f = Failing::new(cfg, 3);
        let (mut cws, mut give_ups) = (Vec::new(), Vec::new());
        for n in 1..=failures {
            if f.fail(Phase::WaitAck) {
                give_ups.push(n);
            }
            cws.push(f.ch.st[0].cw);
        }
        (cws, give_ups)
    }

    #[test]
    fn a_kept_contention_window_follows_ns3s_station_retry_count() {
        // 802.11: CWmin again after each give-up (31, 63, ..., 1023, 1023, then 31).
        let (cws, give_ups) = cw_after_failures(WifiConfig::b11(), 16);
        assert_eq!(give_ups, [7, 14]);
        assert_eq!(&cws[..9], &[63, 127, 255, 511, 1023, 1023, 31, 63, 127]);
        // ns-3 (txop.cc:377-399): the station count runs 1..7 over the first frame (its 7th
        // failure sets 1023 too), the second frame's first failure resets it (31), its six
        // more take it to 6 (1023); the third frame starts from 1023, its first failure
        // takes the count to 7 (1023), its second resets it.
        let kept = WifiConfig { cw_after_give_up: CwAfterGiveUp::Kept, ..WifiConfig::b11() };
        let (cws, give_ups) = cw_after_failures(kept, 17);
        assert_eq!(give_ups, [7, 14]);
        assert_eq!(&cws[..7], &[63, 127, 255, 511, 1023, 1023, 1023]);
        assert_eq!(&cws[7..14], &[31, 63, 127, 255, 511, 1023, 1023]);
        assert_eq!(&cws[14..], &[1023, 31, 63]);
    }

    #[test]
    fn ns3s_arrival_rule_waits_a_difs_without_a_backoff_or_for_an_edcaf_the_slot_after_it() {
        // A frame reaches an idle station on a medium idle for a second: 802.11 sends it at
        // once, ns-3 a DIFS later (a DCF), without a backoff either way. ns-3's EDCAF (an
        // 802.11n station) takes the first slot boundary of the idle medium after the
        // arrival: it has been idle since 0, so the grid runs from AIFS = 43 us in 9 us
        // slots; 1 s is 3 us past one, and an arrival on a boundary waits a whole slot
        // (channel-access-manager.cc:549-556).
        let g = WifiConfig::g54();
        let n = WifiConfig { aggregation: None, ..WifiConfig::n(super::super::HtMode::new(7, 20, false).unwrap()) };
        let (second, on_boundary): (Time, Time) = (1_000_000_000, 43_000 + 111_111 * 9_000);
        let cases = [
            (&g, ArrivalBackoff::UnlessIdleIfs, second, second),
            (&g, ArrivalBackoff::IfBusy, second, second + PhyParams::G.difs()),
            (&n, ArrivalBackoff::IfBusy, second, second + 6_000),
            (&n, ArrivalBackoff::IfBusy, on_boundary, on_boundary + 9_000),
        ];
        for (base, rule, at, expected) in cases {
            let cfg = WifiConfig { arrival_backoff: rule, ..base.clone() };
            let mut ch = WifiChannel::new(0, cfg, &[(0.0, 0.0), (10.0, 0.0)], 1, 0, "t");
            let (mut pool, mut ev, mut out) = (PacketPool::default(), EventQueue::default(), Vec::new());
            let id = pool.alloc(&Packet::new(PacketKind::Udp, 0, 0, 1, 1000, 0));
            ch.enqueue(0, id, 1, at, &mut ev, &mut pool).unwrap();
            let mut sent = ch.st[0].transmitting.then_some(at);
            while sent.is_none() {
                let (now, e) = ev.pop_until(u64::MAX).expect("an event");
                let Event::Wifi { station, kind, .. } = e else { unreachable!() };
                ch.on_event(station, kind, now, &mut ev, &mut pool, &mut out);
                sent = ch.st[0].transmitting.then_some(now);
            }
            assert_eq!(sent, Some(expected), "{rule:?}");
        }
    }

    #[test]
    fn ns3_counts_a_difs_from_an_ack_timeout() {
        // The frame ended 95 us before its timeout: 802.11 resumes on the slot grid that
        // began a DIFS (28 us) after the frame, at the first boundary after the timeout
        // (67 us into the grid: 8 slots, 5 us on); ns-3 a DIFS after the timeout.
        let now = 1_000_000;
        for (rule, expected) in [(AfterTimeout::SlotGrid, now + 5_000), (AfterTimeout::Difs, now + PhyParams::G.difs())] {
            let cfg = WifiConfig { after_timeout: rule, ..WifiConfig::g54() };
            let mut ch = WifiChannel::new(0, cfg, &[(0.0, 0.0), (10.0, 0.0)], 1, 0, "t");
            let (mut pool, mut ev, mut out) = (PacketPool::default(), EventQueue::default(), Vec::new());
            let id = pool.alloc(&Packet::new(PacketKind::Udp, 0, 0, 1, 1000, 0));
            ch.enqueue(0, id, 1, 0, &mut ev, &mut pool).unwrap();
            // As after an access: no countdown running.
            (ch.st[0].idle_since, ch.st[0].backoff, ch.st[0].count_start) = (now - 95_000, None, None);
            ch.st[0].phase = Phase::WaitAck;
            ch.attempt_failed(0, now, &mut ev, &mut pool, &mut out);
            assert_eq!(ch.st[0].count_start, Some(expected), "{rule:?}");
        }
    }

    #[test]
    fn an_llc_snap_header_lengthens_every_data_frame() {
        let plain = WifiChannel::new(0, WifiConfig::g54(), &[(0.0, 0.0), (10.0, 0.0)], 1, 0, "t");
        let llc = WifiChannel::new(0, WifiConfig { llc_snap_bytes: 8, ..WifiConfig::g54() }, &[(0.0, 0.0), (10.0, 0.0)], 1, 0, "t");
        // 54 Mb/s: 216 data bits per 4 us symbol; 1040 + 28 bytes need 40 symbols, + 8 need 40 too,
        // 1100 + 28 need 42 and + 8 need 43.
        assert_eq!(plain.mpdu_bytes(1040) + 8, llc.mpdu_bytes(1040));
        assert_eq!(llc.cfg.phy.airtime(llc.mpdu_bytes(1100), 54_000) - plain.cfg.phy.airtime(plain.mpdu_bytes(1100), 54_000), 4 * 1_000);
    }

    #[test]
    fn the_dsss_eifs_of_802_11g_holds_an_ack_at_1_mbps() {
        let eifs = |phy: PhyParams, rule: EifsRule| {
            let base = if phy.kind == PhyKind::Dsss { WifiConfig::b11() } else { WifiConfig::g54() };
            WifiChannel::new(0, WifiConfig { phy, eifs: rule, ..base }, &[(0.0, 0.0), (1.0, 0.0)], 1, 0, "t").eifs
        };
        // ns-3's 802.11g (short slot): SIFS 10 + 304 us ACK + DIFS 28.
        assert_eq!(eifs(PhyParams::G, EifsRule::LowestMandatoryDsss), 342 * 1_000);
        assert_eq!(eifs(PhyParams::G, EifsRule::LowestMandatory), PhyParams::G.eifs());
        assert_eq!(eifs(PhyParams::B, EifsRule::LowestMandatoryDsss), PhyParams::B.eifs());
        assert_eq!(eifs(PhyParams::A, EifsRule::LowestMandatoryDsss), PhyParams::A.eifs());
    }

    /// Stations A (0, 0), B (100, 0), C (50, 0), D (0, 50) in range of each other and F
    /// (500, 0) sensed by all but in transmission range of none; 802.11b, so a PLCP header
    /// lasts 192 us and a CTS at 1 Mb/s 304 us. Sends CTS frames `(from, to, start us)`
    /// and returns the channel once they are over.
    fn frames(trigger: EifsTrigger, sends: &[(usize, u32, u64)]) -> WifiChannel {
        const A: usize = 0;
        let cfg = WifiConfig { eifs_trigger: trigger, ..WifiConfig::b11() };
        let pos = [(0.0, 0.0), (100.0, 0.0), (50.0, 0.0), (0.0, 50.0), (500.0, 0.0)];
        let ch = WifiChannel::new(0, cfg, &pos, 1, 0, "eifs");
        assert!(ch.reach[A * 5 + 1] && !ch.reach[4 * 5 + 2] && ch.hears[4 * 5 + 2]);
        send_ctss(ch, sends)
    }

    /// Sends CTS frames `(from, to, start us)` on `ch` and returns it once they are over.
    fn send_ctss(mut ch: WifiChannel, sends: &[(usize, u32, u64)]) -> WifiChannel {
        let (mut pool, mut ev, mut out) = (PacketPool::default(), EventQueue::default(), Vec::new());
        let mut sends: Vec<(usize, u32, u64)> = sends.to_vec();
        sends.sort_by_key(|s| s.2);
        let mut next = 0;
        loop {
            let due = sends.get(next).map(|s| s.2 * 1_000);
            if let Some((now, e)) = ev.pop_until(due.map_or(u64::MAX, |d| d.saturating_sub(1))) {
                let Event::Wifi { station, kind, .. } = e else { unreachable!() };
                ch.on_event(station, kind, now, &mut ev, &mut pool, &mut out);
                continue;
            }
            let Some(d) = due else { return ch };
            let (from, to, _) = sends[next];
            let air = Air { frame: Frame::Cts, dst: to, bytes: ch.cfg.phy.cts_bytes, nav: 0, clean: true, kbps: ch.cfg.basic_kbps, snr: 0.0 };
            ch.start_tx(from, air, d, &mut ev);
            next += 1;
        }
    }

    fn defers_eifs(ch: &WifiChannel, s: usize) -> bool {
        ch.ifs(s) == ch.eifs
    }

    #[test]
    fn under_the_radio_model_a_third_party_decodes_through_weak_interference() {
        // 802.11g: A (0, 0) sends to B (10, 0); the observer C (0, 10) hears A at -54 dBm
        // and W (0, 89), hidden from A and B, at -81 dBm from 24 us into A's 34 us frame:
        // 27 dB of SIR, so C decodes A's frame and defers DIFS, under either EIFS rule. Under
        // the range disc any overlap is an error, after a header received alone too: EIFS.
        let pos = [(0.0, 0.0), (10.0, 0.0), (0.0, 10.0), (0.0, 89.0)];
        let radio = super::super::radio::Radio { reference_loss_db: 40.1, ..Default::default() };
        for trigger in [EifsTrigger::HeaderReceived, EifsTrigger::AnyError] {
            let cfg = WifiConfig { eifs_trigger: trigger, radio: Some(radio), ..WifiConfig::g54() };
            let ch = send_ctss(WifiChannel::new(0, cfg, &pos, 1, 0, "third"), &[(0, 1, 0), (3, 2, 24)]);
            assert!(!ch.hears[3 * 4] && ch.hears[3 * 4 + 2], "W is hidden from A and heard by C");
            assert!(!defers_eifs(&ch, 2), "{trigger:?}");
            assert!(ch.st[2].nav_until > 0, "{trigger:?}: C took A's NAV");
            let disc = WifiConfig { eifs_trigger: trigger, tx_range: 80.0, cs_range: 80.0, ..WifiConfig::g54() };
            let ch = send_ctss(WifiChannel::new(0, disc, &pos, 1, 0, "third"), &[(0, 1, 0), (3, 2, 24)]);
            assert!(defers_eifs(&ch, 2), "{trigger:?} under the range disc (the header arrived alone)");
        }
    }

    #[test]
    fn a_same_slot_collision_is_energy_under_the_header_rule_and_an_error_under_any_error() {
        // A -> B and D -> B start together: no header arrives alone anywhere.
        let sends = [(0, 1, 0), (3, 1, 0)];
        let header = frames(EifsTrigger::HeaderReceived, &sends);
        assert!(!defers_eifs(&header, 2) && !defers_eifs(&header, 1), "observer and destination defer DIFS");
        assert!(!defers_eifs(&header, 0) && !defers_eifs(&header, 3), "the colliders too");
        let any = frames(EifsTrigger::AnyError, &sends);
        assert!(defers_eifs(&any, 2) && defers_eifs(&any, 1) && defers_eifs(&any, 0));
    }

    #[test]
    fn a_frame_hit_after_its_header_starts_eifs_under_both_readings() {
        // D starts 200 us into A's frame, after A's 192 us header: A's frame was begun and
        // lost, at the observer C and at its destination B.
        for trigger in [EifsTrigger::HeaderReceived, EifsTrigger::AnyError] {
            let ch = frames(trigger, &[(0, 1, 0), (3, 1, 200)]);
            assert!(defers_eifs(&ch, 2) && defers_eifs(&ch, 1), "{trigger:?}");
        }
        // 100 us into the header instead: under the header rule both frames are energy.
        let ch = frames(EifsTrigger::HeaderReceived, &[(0, 1, 0), (3, 1, 100)]);
        assert!(!defers_eifs(&ch, 2) && !defers_eifs(&ch, 1));
    }

    #[test]
    fn a_frame_from_beyond_transmission_range_is_energy_under_the_header_rule() {
        let header = frames(EifsTrigger::HeaderReceived, &[(4, 0, 0)]);
        assert!(!defers_eifs(&header, 2));
        let any = frames(EifsTrigger::AnyError, &[(4, 0, 0)]);
        assert!(defers_eifs(&any, 2));
    }

    #[test]
    fn a_correct_frame_after_an_erroneous_one_ends_the_eifs() {
        for trigger in [EifsTrigger::HeaderReceived, EifsTrigger::AnyError] {
            let ch = frames(trigger, &[(0, 1, 0), (3, 1, 200), (1, 0, 2_000)]);
            assert!(!defers_eifs(&ch, 2), "{trigger:?}");
        }
        // Energy alone (a frame from beyond range) leaves it running under the header rule.
        let ch = frames(EifsTrigger::HeaderReceived, &[(0, 1, 0), (3, 1, 200), (4, 0, 2_000)]);
        assert!(defers_eifs(&ch, 2));
    }

    /// When station 0's first attempt at a frame to an unreachable station 1 fails,
    /// counted from the end of the frame.
    fn first_failure_after_tx_end(ack_timeout: AckTimeout) -> Time {
        let cfg = WifiConfig { ack_timeout, ..WifiConfig::b11() };
        let mut ch = WifiChannel::new(0, cfg, &[(0.0, 0.0), (300.0, 0.0)], 1, 0, "t");
        let (mut pool, mut ev, mut out) = (PacketPool::default(), EventQueue::default(), Vec::new());
        let id = pool.alloc(&Packet::new(PacketKind::Udp, 0, 0, 1, 1500, 0));
        ch.enqueue(0, id, 1, 0, &mut ev, &mut pool).unwrap();
        let mut tx_end = None;
        while let Some((now, Event::Wifi { station, kind, .. })) = ev.pop_until(u64::MAX) {
            if station == 0 && kind == kind::TX_END {
                tx_end = Some(now);
            }
            ch.on_event(station, kind, now, &mut ev, &mut pool, &mut out);
            if ch.st[0].ssrc == 1 {
                return now - tx_end.unwrap();
            }
        }
        panic!("no failure");
    }

    #[test]
    fn the_ack_timeout_ends_at_the_response_or_at_802_11s_rx_start_delay() {
        const US: Time = 1_000;
        // 802.11b: SIFS 10 us; ACK at 1 Mb/s 304 us; slot 20 us; PLCP 192 us; delta 1 us.
        assert_eq!(first_failure_after_tx_end(AckTimeout::ResponseEnd), (10 + 304 + 2) * US + 1);
        assert_eq!(first_failure_after_tx_end(AckTimeout::RxStart), (10 + 20 + 192 + 2) * US + 1);
    }

    #[test]
    fn under_rx_start_a_response_that_began_in_time_is_waited_for() {
        // 802.11b: the ACK (304 us at 1 Mb/s) outlasts the RX-start deadline (SIFS + slot +
        // 192 us): the exchange still succeeds at the first attempt.
        let cfg = WifiConfig { ack_timeout: AckTimeout::RxStart, ..WifiConfig::b11() };
        let mut ch = WifiChannel::new(0, cfg, &[(0.0, 0.0), (10.0, 0.0)], 1, 0, "t");
        let (mut pool, mut ev, mut out) = (PacketPool::default(), EventQueue::default(), Vec::new());
        let id = pool.alloc(&Packet::new(PacketKind::Udp, 0, 0, 1, 1500, 0));
        ch.enqueue(0, id, 1, 0, &mut ev, &mut pool).unwrap();
        while let Some((now, Event::Wifi { station, kind, .. })) = ev.pop_until(u64::MAX) {
            ch.on_event(station, kind, now, &mut ev, &mut pool, &mut out);
        }
        assert_eq!((ch.stats(0).successes, ch.stats(0).retries), (1, 0));
    }

    #[test]
    fn bianchi_timing_fails_at_once_even_while_receiving() {
        // The idealised timing reports a collision when the frame ends at the receiver,
        // whatever the sender is hearing then (the RX-start extension is not for it).
        for ack_timeout in [AckTimeout::ResponseEnd, AckTimeout::RxStart] {
            let cfg = WifiConfig { ack_timeout, timing: CollisionTiming::Bianchi, ..WifiConfig::b11() };
            let mut ch = WifiChannel::new(0, cfg, &[(0.0, 0.0), (10.0, 0.0)], 1, 0, "t");
            let (mut pool, mut ev, mut out) = (PacketPool::default(), EventQueue::default(), Vec::new());
            // Both send at once (the medium idle for longer than DIFS): A 1500 bytes to B, B
            // 40 bytes to A.
            let t = 100_000;
            let a = pool.alloc(&Packet::new(PacketKind::Udp, 0, 0, 1, 1500, t));
            let b = pool.alloc(&Packet::new(PacketKind::Udp, 1, 1, 0, 40, t));
            ch.enqueue(0, a, 1, t, &mut ev, &mut pool).unwrap();
            ch.enqueue(1, b, 0, t, &mut ev, &mut pool).unwrap();
            let mut b_tx_end = None;
            while let Some((now, Event::Wifi { station, kind, .. })) = ev.pop_until(u64::MAX) {
                if station == 1 && kind == kind::TX_END && b_tx_end.is_none() {
                    b_tx_end = Some(now);
                }
                ch.on_event(station, kind, now, &mut ev, &mut pool, &mut out);
                if ch.st[1].ssrc == 1 {
                    // B's short frame ends at A first; its failure is known by then + delta.
                    assert!(now - b_tx_end.unwrap() <= 2 * ch.cfg.prop_delay, "{ack_timeout:?}: {}", now - b_tx_end.unwrap());
                    break;
                }
            }
            assert_eq!(ch.st[1].ssrc, 1, "{ack_timeout:?}");
        }
    }
}
