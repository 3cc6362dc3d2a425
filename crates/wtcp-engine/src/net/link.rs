//! One direction of a full-duplex point-to-point link: a queue and its discipline
//! (`qdisc.rs`), a transmitter
//! and a propagation pipe (htsim's Queue + Pipe). The transmitter runs at the link's rate,
//! or follows a capacity trace (`capacity.rs`: mahimahi's delivery opportunities or a rate
//! series).
//!
//! At most two events are pending per direction: the end of the current transmission
//! and the arrival of the pipe's head. Packets in the pipe wait in a ring buffer.

use std::collections::VecDeque;

use super::capacity::{Capacity, Cursor, Opportunities, Segment, OPPORTUNITY_IP_BYTES};
use super::loss::LossModel;
use super::qdisc::Qdisc;
use super::routing::DirId;
use crate::events::{Event, EventQueue};
use crate::metrics::DelayHistogram;
use crate::packet::{PacketId, PacketKind, PacketPool};
use crate::rng::SimRng;
use crate::scenario::{AppliesTo, QueueCfg};
use crate::time::{Time, TxTimes};

/// The ground-truth cause of a drop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropCause {
    /// The queue was full (congestion).
    Queue,
    /// The channel corrupted the frame (wireless loss).
    Channel,
    /// The direction was in an outage.
    Outage,
}

impl DropCause {
    pub const ALL: [DropCause; 3] = [DropCause::Queue, DropCause::Channel, DropCause::Outage];
    pub fn as_str(self) -> &'static str {
        match self {
            DropCause::Queue => "queue",
            DropCause::Channel => "channel",
            DropCause::Outage => "outage",
        }
    }
    pub fn index(self) -> usize {
        self as usize
    }
}

#[derive(Clone, Debug, Default)]
pub struct DirStats {
    /// Frames put on the wire (retransmission attempts included).
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub drops: [u64; 3],
    /// Link-layer retransmissions (ARQ).
    pub retries: u64,
    /// Frames given up at the retry limit (also counted in `drops` by cause).
    pub retry_limit_drops: u64,
}

/// Link-layer ARQ: a frame hit by the channel or an outage is sent again, up to a limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArqCfg {
    /// Retransmissions after the first attempt (802.11's short retry limit is 7 attempts).
    pub retry_limit: u32,
    /// Delay of the cross-layer hint to the TCP sender when a frame is given up.
    pub hint_delay: Time,
    /// The hint reaches a sender on another node too (`mac_hint = "relay"`); otherwise only
    /// a sender on the transmitting node hears it.
    pub relay: bool,
}

#[derive(Debug)]
pub struct LinkDir {
    pub id: DirId,
    pub from: u32,
    pub to: u32,
    /// Serialisation times at the link's rate.
    tx_times: TxTimes,
    delay: Time,
    /// Extra propagation delay while a delay spike is active.
    pub extra_delay: Time,
    link_header: u32,
    queue: Qdisc<PacketId>,
    in_tx: Option<PacketId>,
    /// When the packet in transmission started (for a packet capture).
    tx_start: Time,
    /// A trace-driven capacity, and where the transmitter stands in it.
    capacity: Option<Capacity>,
    cursor: Cursor,
    segment: Segment,
    pipe: VecDeque<(Time, PacketId)>,
    loss: Option<LossModel>,
    applies_to: AppliesTo,
    arq: Option<ArqCfg>,
    /// Attempts made for the frame being transmitted.
    attempts: u32,
    /// Number of overlapping outages in force.
    pub outage_depth: u32,
    pub stats: DirStats,
    /// Inside the measurement window; then each packet's time in the queue, from its
    /// arrival to the start of its first transmission, is recorded in `sojourn`.
    pub measuring: bool,
    pub sojourn: DelayHistogram,
    /// Packets the discipline dropped other than a refused arrival (CoDel at dequeue,
    /// FQ-CoDel's overload drops), for the caller to free and record.
    pub dequeue_drops: Vec<PacketId>,
}

/// What happened to the packet whose transmission just ended.
pub enum TxOutcome {
    /// On its way; nothing to do.
    InPipe,
    /// Lost on the channel or in an outage (`retry_limit`: after ARQ gave up).
    Dropped { id: PacketId, cause: DropCause, retry_limit: bool },
    /// Hit, and being sent again by ARQ.
    Retrying,
}

/// A mahimahi schedule's opportunities after `from` up to `to`, over `window`, as b/s of IP
/// packets.
fn opportunities_bps(o: &Opportunities, from: Time, to: Time, window: Time) -> f64 {
    let n = o.first_after(to) - o.first_after(from);
    n as f64 * f64::from(OPPORTUNITY_IP_BYTES) * 8.0 / (window as f64 / 1e9)
}

impl LinkDir {
    #[allow(clippy::too_many_arguments)]
    pub fn new(id: DirId, from: u32, to: u32, rate_bps: f64, delay: Time, link_header: u32, queue_cfg: &QueueCfg, queue_rng: SimRng, loss: Option<LossModel>, applies_to: AppliesTo, arq: Option<ArqCfg>) -> Self {
        LinkDir {
            id,
            from,
            to,
            tx_times: TxTimes::new(rate_bps),
            delay,
            extra_delay: 0,
            link_header,
            queue: Qdisc::new(queue_cfg, rate_bps, queue_rng),
            in_tx: None,
            tx_start: 0,
            capacity: None,
            cursor: Cursor::default(),
            segment: Segment::default(),
            pipe: VecDeque::new(),
            loss,
            applies_to,
            arq,
            attempts: 0,
            outage_depth: 0,
            stats: DirStats::default(),
            measuring: false,
            sojourn: DelayHistogram::default(),
            dequeue_drops: Vec::new(),
        }
    }

    /// Take the capacity from a trace instead of the rate.
    pub fn with_capacity(mut self, capacity: Option<Capacity>) -> Self {
        self.capacity = capacity;
        self
    }

    /// The capacity available now, b/s (the rate, a trace's current rate, or a mahimahi
    /// schedule's opportunities in the surrounding 100 ms), for traces.
    pub fn capacity_bps(&self, now: Time) -> f64 {
        match &self.capacity {
            None => self.tx_times.rate_bps(),
            Some(Capacity::Rates(r)) => r.rate_at(now),
            Some(Capacity::Opportunities(o)) => {
                const WINDOW: Time = 100_000_000;
                let from = now.saturating_sub(WINDOW / 2);
                opportunities_bps(o, from, from + WINDOW, WINDOW)
            }
        }
    }

    /// The capacity a router at this transmitter knows now, b/s of IP packets (ABC's mu):
    /// the rate or a trace's current rate without the link-layer header of a packet of
    /// `size` IP bytes, or a mahimahi schedule's opportunities (of IP bytes), used or not,
    /// in the trailing `window` (none in the future).
    fn trailing_capacity_bps(&self, now: Time, window: Time, size: u32) -> f64 {
        let ip_share = f64::from(size) / f64::from(size + self.link_header).max(1.0);
        match &self.capacity {
            None => self.tx_times.rate_bps() * ip_share,
            Some(Capacity::Rates(r)) => r.rate_at(now) * ip_share,
            Some(Capacity::Opportunities(o)) => opportunities_bps(o, now.saturating_sub(window), now, window),
        }
    }

    /// Offer a packet: the queue discipline may drop or mark it; then start sending it at
    /// once if idle, queue it, or refuse it (full).
    pub fn enqueue(&mut self, id: PacketId, pool: &mut PacketPool, now: Time, ev: &mut EventQueue) -> Result<(), PacketId> {
        pool.get_mut(id).enqueued = now;
        let idle = self.in_tx.is_none();
        if !self.queue.admit(id, pool, now, idle && self.queue.is_empty()) {
            return Err(id);
        }
        if idle {
            let size = pool.get(id).size;
            self.start_tx(id, size, now, now, pool, ev);
            return Ok(());
        }
        let before = self.dequeue_drops.len();
        let pushed = self.queue.push(id, pool, &mut self.dequeue_drops);
        if self.dequeue_drops.len() != before {
            self.stats.drops[DropCause::Queue.index()] += (self.dequeue_drops.len() - before) as u64;
        }
        pushed
    }

    /// Start sending packet `id`, queued since `arrival`, at `now`.
    fn start_tx(&mut self, id: PacketId, size: u32, arrival: Time, now: Time, pool: &mut PacketPool, ev: &mut EventQueue) {
        self.in_tx = Some(id);
        self.tx_start = now;
        if self.attempts == 0 {
            if self.measuring {
                self.sojourn.record(now - arrival);
            }
            if let Some(window) = self.queue.abc_mut().map(|abc| abc.rate_window()) {
                let bps = self.trailing_capacity_bps(now, window, size);
                if let Some(abc) = self.queue.abc_mut() {
                    abc.set_capacity(bps);
                }
            }
            self.queue.on_departure(id, pool, now, now - arrival);
        }
        self.attempts += 1;
        let wire = size + self.link_header;
        let done = match &self.capacity {
            None => now + self.tx_times.get(wire),
            Some(Capacity::Opportunities(o)) => o.send(&mut self.cursor, arrival, wire).max(now),
            Some(Capacity::Rates(r)) => r.finish_from(&mut self.segment, now, f64::from(wire) * 8.0),
        };
        ev.schedule(done, Event::TxDone { dir: self.id });
    }

    /// The transmitter finished: decide the packet's fate, put it in the pipe, start the next.
    pub fn on_tx_done(&mut self, pool: &mut PacketPool, now: Time, ev: &mut EventQueue) -> TxOutcome {
        let id = self.in_tx.take().expect("TxDone without a packet in transmission");
        let (p_size, p_kind, p_enqueued) = {
            let p = pool.get(id);
            (p.size, p.kind, p.enqueued)
        };
        let wire = p_size + self.link_header;
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += u64::from(wire);
        // `data`: TCP segments carrying data and UDP, as ns-3's harness filters (no SYN or ACK).
        let exposed = self.applies_to == AppliesTo::All || matches!(p_kind, PacketKind::Data | PacketKind::Udp);
        let hit = if exposed && self.outage_depth > 0 {
            Some(DropCause::Outage)
        } else if exposed && self.loss.as_mut().is_some_and(|m| m.lose(u64::from(wire) * 8)) {
            Some(DropCause::Channel)
        } else {
            None
        };
        if let (Some(_), Some(arq)) = (hit, self.arq) {
            if self.attempts <= arq.retry_limit {
                // ARQ: send the same frame again at once.
                self.stats.retries += 1;
                self.start_tx(id, p_size, p_enqueued, now, pool, ev);
                return TxOutcome::Retrying;
            }
        }
        self.attempts = 0;
        let outcome = if let Some(cause) = hit {
            let retry_limit = self.arq.is_some();
            if retry_limit {
                self.stats.retry_limit_drops += 1;
            }
            TxOutcome::Dropped { id, cause, retry_limit }
        } else {
            // FIFO on the wire: a delay that shrinks never lets a packet overtake.
            let last = self.pipe.back().map_or(0, |&(t, _)| t);
            let arrival = (now + self.delay + self.extra_delay).max(last);
            if self.pipe.is_empty() {
                ev.schedule(arrival, Event::PipeArrive { dir: self.id });
            }
            self.pipe.push_back((arrival, id));
            TxOutcome::InPipe
        };
        if let TxOutcome::Dropped { cause, .. } = outcome {
            self.stats.drops[cause.index()] += 1;
        }
        if let Some(next) = self.dequeue(pool, now) {
            let (size, queued) = (pool.get(next).size, pool.get(next).enqueued);
            self.start_tx(next, size, queued, now, pool, ev);
        } else {
            self.queue.on_idle(now);
        }
        outcome
    }

    /// The next packet to send: the queue's head, or what CoDel lets through (its drops go
    /// to `dequeue_drops`, counted as queue drops).
    #[inline]
    fn dequeue(&mut self, pool: &mut PacketPool, now: Time) -> Option<PacketId> {
        let before = self.dequeue_drops.len();
        let next = self.queue.pop(pool, now, &mut self.dequeue_drops);
        if self.dequeue_drops.len() != before {
            self.stats.drops[DropCause::Queue.index()] += (self.dequeue_drops.len() - before) as u64;
        }
        next
    }

    /// The pipe's head arrives at the far end; returns it and schedules the next arrival.
    pub fn on_pipe_arrive(&mut self, ev: &mut EventQueue) -> PacketId {
        let (_, id) = self.pipe.pop_front().expect("PipeArrive with an empty pipe");
        if let Some(&(t, _)) = self.pipe.front() {
            ev.schedule(t, Event::PipeArrive { dir: self.id });
        }
        id
    }

    pub fn count_queue_drop(&mut self) {
        self.stats.drops[DropCause::Queue.index()] += 1;
    }

    /// The packet being serialised, if any, and when its transmission began, given the
    /// time `now` at which it ends (for a packet capture; the memo of times is not used,
    /// so nothing changes).
    pub fn in_tx(&self, _now: Time, _pool: &PacketPool) -> Option<(PacketId, Time)> {
        Some((self.in_tx?, self.tx_start))
    }

    /// The packet being serialised if this is its first attempt (ARQ retries excluded).
    pub fn first_transmission(&self) -> Option<PacketId> {
        self.in_tx.filter(|_| self.attempts == 1)
    }

    /// Packets waiting (not counting the one being sent).
    pub fn queue_packets(&self) -> usize {
        self.queue.len()
    }

    pub fn queue_bytes(&self) -> u64 {
        self.queue.bytes()
    }
}
