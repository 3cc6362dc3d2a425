//! CoDel, Controlled Delay (K. Nichols, V. Jacobson, A. McGregor, J. Iyengar, RFC 8289,
//! January 2018): drop (or ECN-mark) at dequeue when packets have stayed in the queue
//! longer than `target` for at least `interval`, then at intervals of
//! interval / sqrt(count) while that lasts.
//!
//! Follows the pseudo-code of RFC 8289 §5, routine by routine (`dodequeue`, `dequeue`,
//! `control_law`; cited below by routine name):
//! - `dodequeue`: a packet whose sojourn time is below TARGET, or that leaves at most
//!   one MTU (MAXPACKET, 1500 bytes here) in the queue, clears `first_above_time`; the first
//!   one above it starts the INTERVAL clock; once that expires, dropping is allowed.
//! - `dequeue`: in the dropping state, drop while `now >= drop_next`, each time
//!   setting `drop_next = control_law(drop_next, count)`; leave it as soon as a packet is
//!   below target. Entering it drops one packet and sets count to `delta = count -
//!   lastcount` (the drops the last episode made after its first) if that is > 1 and the
//!   last scheduled drop (`drop_next`) is less than 16 intervals ago, else to 1.
//! - MAXPACKET is 1500 bytes (an Ethernet MTU; the RFC says the interface MTU, Linux takes
//!   the device's): with larger packets a single waiting packet can be dropped.
//! - `control_law(t, count) = t + interval / sqrt(count)`.
//!
//! Deviations and ambiguities resolved:
//! - ECN (as Linux `codel_dequeue`; the RFC's pseudo-code only drops): with
//!   `ecn = true` an ECN-capable packet that would be dropped is marked CE and sent instead,
//!   counted as a drop for the control law; the dequeue then ends with it.
//! - Times are the simulator's nanoseconds; the square root is taken in floating point
//!   (Linux uses a Newton step on a fixed-point inverse square root).

use std::collections::VecDeque;

use crate::packet::{PacketId, PacketPool};
use crate::time::Time;

/// RFC 8289 §4.2-4.3 defaults: TARGET 5 ms, INTERVAL 100 ms.
pub const DEFAULT_TARGET: Time = 5_000_000;
pub const DEFAULT_INTERVAL: Time = 100_000_000;
/// MAXPACKET (`dodequeue`): below one MTU of backlog a packet is never dropped.
const MAXPACKET: u64 = 1500;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodelCfg {
    pub target: Time,
    pub interval: Time,
    pub ecn: bool,
}

/// CoDel's per-queue state (the pseudo-code's queue variables).
#[derive(Clone, Debug)]
pub struct Codel {
    cfg: CodelCfg,
    first_above_time: Option<Time>,
    drop_next: Time,
    count: u32,
    lastcount: u32,
    dropping: bool,
    /// Packets CoDel dropped or marked, for tests and statistics.
    pub drops: u64,
    pub marks: u64,
}

/// An entry of a packet queue: a packet id, or an 802.11 station's MSDU record.
pub trait Queued: Copy {
    fn packet(self) -> PacketId;
}

impl Queued for PacketId {
    #[inline]
    fn packet(self) -> PacketId {
        self
    }
}

/// What CoDel dequeues from: one FIFO (`Fifo`), or one flow's queue of FQ-CoDel.
pub trait CodelQueue {
    type Item: Queued;
    /// Take the head (and its bytes off the backlog).
    fn pop(&mut self) -> Option<Self::Item>;
    /// Bytes the whole queue still holds, for `dodequeue`'s MAXPACKET test (FQ-CoDel: every
    /// flow's, as Linux's `fq_codel_dequeue` passes the qdisc's backlog).
    fn backlog(&self) -> u64;
    fn pool(&mut self) -> &mut PacketPool;
    /// A packet CoDel dropped: the caller frees and records it.
    fn dropped(&mut self, item: Self::Item);
}

/// A single FIFO: entries in order, their byte count, the pool.
pub struct Fifo<'a, T> {
    pub queue: &'a mut VecDeque<T>,
    pub bytes: &'a mut u64,
    pub pool: &'a mut PacketPool,
    /// Packets dropped at dequeue go here (the caller frees and records them).
    pub dropped: &'a mut Vec<T>,
}

impl<T: Queued> CodelQueue for Fifo<'_, T> {
    type Item = T;
    fn pop(&mut self) -> Option<T> {
        let item = self.queue.pop_front()?;
        *self.bytes -= u64::from(self.pool.get(item.packet()).size);
        Some(item)
    }
    fn backlog(&self) -> u64 {
        *self.bytes
    }
    fn pool(&mut self) -> &mut PacketPool {
        self.pool
    }
    fn dropped(&mut self, item: T) {
        self.dropped.push(item);
    }
}

impl Codel {
    pub fn new(cfg: CodelCfg) -> Self {
        Codel { cfg, first_above_time: None, drop_next: 0, count: 0, lastcount: 0, dropping: false, drops: 0, marks: 0 }
    }

    fn control_law(&self, t: Time) -> Time {
        t + (self.cfg.interval as f64 / f64::from(self.count.max(1)).sqrt()) as Time
    }

    /// `dodequeue`: take the head; whether CoDel may drop it.
    fn dodequeue<Q: CodelQueue>(&mut self, now: Time, q: &mut Q) -> (Option<Q::Item>, bool) {
        let Some(id) = q.pop() else {
            self.first_above_time = None;
            return (None, false);
        };
        let sojourn = now - q.pool().get(id.packet()).enqueued;
        if sojourn < self.cfg.target || q.backlog() <= MAXPACKET {
            self.first_above_time = None;
            return (Some(id), false);
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + self.cfg.interval);
                (Some(id), false)
            }
            Some(t) => (Some(id), now >= t),
        }
    }

    /// Drop `id`, or mark it when ECN allows (then it is sent: returns true).
    fn drop_or_mark<Q: CodelQueue>(&mut self, id: Q::Item, q: &mut Q) -> bool {
        let pool = q.pool();
        if self.cfg.ecn && pool.get(id.packet()).ect {
            pool.get_mut(id.packet()).ce = true;
            self.marks += 1;
            return true;
        }
        q.dropped(id);
        self.drops += 1;
        false
    }

    /// `dequeue`: the next packet to send, if any, dropping per the control law.
    pub fn dequeue<Q: CodelQueue>(&mut self, now: Time, q: &mut Q) -> Option<Q::Item> {
        let (mut p, mut ok_to_drop) = self.dodequeue(now, q);
        let Some(mut id) = p else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                if self.drop_or_mark(id, q) {
                    self.drop_next = self.control_law(self.drop_next);
                    return Some(id);
                }
                (p, ok_to_drop) = self.dodequeue(now, q);
                let Some(next) = p else {
                    self.dropping = false;
                    return None;
                };
                id = next;
                if ok_to_drop {
                    self.drop_next = self.control_law(self.drop_next);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok_to_drop {
            let marked = self.drop_or_mark(id, q);
            self.dropping = true;
            // `dequeue`: resume near the last episode's drop rate if it ended recently.
            let delta = self.count.saturating_sub(self.lastcount);
            self.count = if delta > 1 && now.saturating_sub(self.drop_next) < 16 * self.cfg.interval { delta } else { 1 };
            self.drop_next = self.control_law(now);
            self.lastcount = self.count;
            if marked {
                return Some(id);
            }
            (p, _) = self.dodequeue(now, q);
            return p;
        }
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Packet, PacketKind};

    const MS: Time = 1_000_000;

    /// A queue fed faster than it drains: one 1500-byte packet arrives every 0.5 ms, one
    /// leaves every 1 ms; CoDel's drop instants over 1.5 s.
    fn overload(ecn: bool) -> (Vec<Time>, Codel) {
        let mut pool = PacketPool::default();
        let mut queue = VecDeque::new();
        let mut bytes = 0u64;
        let mut dropped = Vec::new();
        let mut codel = Codel::new(CodelCfg { target: DEFAULT_TARGET, interval: DEFAULT_INTERVAL, ecn });
        let mut drop_times = Vec::new();
        let (mut t, mut next_arrival, mut next_departure) = (0, 0, MS);
        while t < 1500 * MS {
            if next_arrival <= next_departure {
                t = next_arrival;
                let mut p = Packet::new(PacketKind::Data, 0, 0, 1, 1500, t);
                p.enqueued = t;
                p.ect = ecn;
                queue.push_back(pool.alloc(&p));
                bytes += 1500;
                next_arrival += MS / 2;
            } else {
                t = next_departure;
                let before = codel.drops + codel.marks;
                let mut q = Fifo { queue: &mut queue, bytes: &mut bytes, pool: &mut pool, dropped: &mut dropped };
                if let Some(id) = codel.dequeue(t, &mut q) {
                    pool.free(id);
                }
                for id in dropped.drain(..) {
                    pool.free(id);
                }
                drop_times.extend(std::iter::repeat_n(t, (codel.drops + codel.marks - before) as usize));
                next_departure += MS;
            }
        }
        (drop_times, codel)
    }

    #[test]
    fn under_constant_overload_drops_follow_interval_over_sqrt_count() {
        let (drops, codel) = overload(false);
        // The sojourn passes 5 ms at about 10 ms; one interval later the first drop.
        assert!((105 * MS..=115 * MS).contains(&drops[0]), "{:?}", &drops[..3]);
        // Then the gap after the n-th drop is interval / sqrt(n): 100, 70.7, 57.7, ... ms,
        // each rounded up to the next departure (1 ms apart).
        for (n, w) in drops.windows(2).take(20).enumerate() {
            let expect = DEFAULT_INTERVAL as f64 / ((n + 1) as f64).sqrt();
            let gap = (w[1] - w[0]) as f64;
            assert!((gap - expect).abs() <= MS as f64, "gap after drop {}: {gap} vs {expect}", n + 1);
        }
        assert_eq!(codel.marks, 0);
    }

    /// Drop instants of a 2x overload from 0 to `first_end`, a lull (arrivals stop) until
    /// `resume`, then the overload again until `end`.
    fn two_overloads(first_end: Time, resume: Time, end: Time) -> Vec<Time> {
        let mut pool = PacketPool::default();
        let mut queue = VecDeque::new();
        let (mut bytes, mut dropped, mut drops) = (0u64, Vec::new(), Vec::new());
        let mut codel = Codel::new(CodelCfg { target: DEFAULT_TARGET, interval: DEFAULT_INTERVAL, ecn: false });
        let (mut next_arrival, mut next_departure) = (0, MS);
        while next_departure < end {
            if next_arrival <= next_departure {
                let t = next_arrival;
                let mut p = Packet::new(PacketKind::Data, 0, 0, 1, 1500, t);
                p.enqueued = t;
                queue.push_back(pool.alloc(&p));
                bytes += 1500;
                next_arrival += MS / 2;
                if (first_end..resume).contains(&next_arrival) {
                    next_arrival = resume;
                }
            } else {
                let t = next_departure;
                let mut q = Fifo { queue: &mut queue, bytes: &mut bytes, pool: &mut pool, dropped: &mut dropped };
                if let Some(id) = codel.dequeue(t, &mut q) {
                    pool.free(id);
                }
                for id in dropped.drain(..) {
                    pool.free(id);
                    drops.push(t);
                }
                next_departure += MS;
            }
        }
        drops
    }

    #[test]
    fn a_new_episode_soon_after_the_last_resumes_near_its_drop_rate() {
        // `dequeue`: the second episode starts with count = delta > 1 if it begins within 16
        // intervals of the last drop; its first gap is then shorter than the interval.
        // 300 ms of overload leave a backlog that drains by about 600 ms.
        let drops = two_overloads(300 * MS, 900 * MS, 1600 * MS);
        let second: Vec<Time> = drops.iter().copied().filter(|&t| t > 900 * MS).collect();
        let first_gap = second[1] - second[0];
        assert!(first_gap < DEFAULT_INTERVAL * 3 / 4, "{first_gap}");
        // Long after (beyond 16 intervals) it starts again from count = 1: gap = interval.
        let drops = two_overloads(300 * MS, 2600 * MS, 3400 * MS);
        let second: Vec<Time> = drops.iter().copied().filter(|&t| t > 2600 * MS).collect();
        assert!((second[1] - second[0]).abs_diff(DEFAULT_INTERVAL) <= MS, "{:?}", &second[..3]);
    }

    #[test]
    fn with_ecn_capable_packets_it_marks_at_the_same_instants() {
        let (dropped, _) = overload(false);
        let (marked, codel) = overload(true);
        assert_eq!(codel.drops, 0);
        assert_eq!(&marked[..10], &dropped[..10]);
    }

    #[test]
    fn a_queue_below_target_is_never_dropped() {
        let mut pool = PacketPool::default();
        let mut queue = VecDeque::new();
        let (mut bytes, mut dropped) = (0u64, Vec::new());
        let mut codel = Codel::new(CodelCfg { target: DEFAULT_TARGET, interval: DEFAULT_INTERVAL, ecn: false });
        for k in 0..1000u64 {
            let t = k * MS;
            for _ in 0..3 {
                let mut p = Packet::new(PacketKind::Data, 0, 0, 1, 1500, t);
                p.enqueued = t;
                queue.push_back(pool.alloc(&p));
                bytes += 4500 / 3;
            }
            // Three leave per ms: the queue never holds a packet for 5 ms.
            for _ in 0..3 {
                let mut q = Fifo { queue: &mut queue, bytes: &mut bytes, pool: &mut pool, dropped: &mut dropped };
                let id = codel.dequeue(t + MS / 2, &mut q).unwrap();
                pool.free(id);
            }
        }
        assert_eq!((codel.drops, dropped.len()), (0, 0));
    }
}
