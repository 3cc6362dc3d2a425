//! FQ-CoDel, the FlowQueue-CoDel packet scheduler (T. Hoeiland-Joergensen, P. McKenney,
//! D. Taht, J. Gettys, E. Dumazet, RFC 8290, January 2018): packets are hashed into
//! per-flow queues, served by deficit round robin with a quantum of bytes, newly active
//! queues first; CoDel (`codel.rs`) runs on each queue.
//!
//! - Enqueue (§4.1): the packet goes to the tail of its flow's queue; a queue that was
//!   in neither list joins the tail of the new list with its deficit set to the quantum.
//! - Overload (§4.1, §5.2.3): above the limit, packets are dropped from the head of the
//!   queue holding the most bytes.
//! - Dequeue (§4.2): take the first queue of the new list, else of the old list; one with
//!   a deficit <= 0 gets a quantum more and moves to the tail of the old list. CoDel then
//!   dequeues from it; a queue found empty leaves the lists, except one of the new list
//!   (see below). The packet's bytes are taken off the queue's deficit.
//! - A flow that sends less than its share finds its queue out of both lists and joins the
//!   new list: it goes ahead of the backlogged queues (§1.3).
//!
//! Deviations and ambiguities resolved:
//! - Classification: the hash is salted with a random value chosen at initialisation
//!   (§4.1, §1.3); wtcp hashes its own flow id instead of the 5-tuple (§4.1.1 allows other
//!   classifications; data and ACKs of one connection travel in opposite directions) with
//!   SplitMix64, salted from the queue's seeded stream, modulo `flows`: flows may share a
//!   queue as in Linux.
//! - An emptied queue of the new list: §4.2 moves it to the end of the old list without
//!   condition; as Linux `fq_codel_dequeue`, it moves there only if the old list is not
//!   empty, else it leaves the lists (ns-3 always moves it).
//! - "Negative" deficit: §4.2 tops up a queue "with a negative number of credits", §3 one
//!   whose credits are "zero or less"; as Linux and ns-3, <= 0.
//! - Overload: §4.1 drops one packet from the fattest queue; as Linux `fq_codel_drop` and
//!   ns-3's `FqCodelDrop`, a batch: until half that queue's bytes are gone, at most
//!   `drop_batch` (64) packets. Linux then adds the batch to the queue's CoDel count; ns-3
//!   and wtcp do not.
//! - MAXPACKET: CoDel's "at most one MTU left" test counts every queue's bytes, as Linux
//!   `fq_codel_dequeue` passes the qdisc's backlog (ns-3 counts the flow's own).
//! - Quantum: bytes of IP packets, 1500 by default. §5.2.4's 1514 is the Ethernet MTU plus
//!   its 14-byte header, which Linux counts in every packet too. The other defaults are
//!   §5.2's, Linux's and ns-3's: limit 10240 packets (§5.2.3), 1024 queues (§5.2.5), ECN
//!   on (§5.2.6).
//! - Not modelled: `ce_threshold`, `memory_limit`, set-associative hashing.

use std::collections::VecDeque;

use super::codel::{Codel, CodelCfg, CodelQueue, Queued};
use crate::packet::PacketPool;
use crate::time::Time;

pub const DEFAULT_QUANTUM: u32 = 1500;
pub const DEFAULT_FLOWS: u32 = 1024;
pub const DEFAULT_LIMIT_PACKETS: u32 = 10240;
pub const DEFAULT_DROP_BATCH: u32 = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FqCodelCfg {
    pub codel: CodelCfg,
    pub quantum: u32,
    pub flows: u32,
    pub drop_batch: u32,
}

/// Which list a flow queue is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

#[derive(Debug)]
struct FlowQueue<T> {
    queue: VecDeque<T>,
    bytes: u64,
    deficit: i64,
    list: List,
    codel: Codel,
}

#[derive(Debug)]
pub struct FqCodel<T> {
    cfg: FqCodelCfg,
    queues: Vec<FlowQueue<T>>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    perturbation: u64,
    len: usize,
    bytes: u64,
}

/// SplitMix64's finaliser: a well-mixed 64-bit hash of the flow and the perturbation.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One flow's queue seen by CoDel: pops update the flow's and the total byte counts.
struct FlowView<'a, T> {
    queue: &'a mut VecDeque<T>,
    bytes: &'a mut u64,
    len: &'a mut usize,
    total: &'a mut u64,
    pool: &'a mut PacketPool,
    dropped: &'a mut Vec<T>,
}

impl<T: Queued> CodelQueue for FlowView<'_, T> {
    type Item = T;
    fn pop(&mut self) -> Option<T> {
        let item = self.queue.pop_front()?;
        let size = u64::from(self.pool.get(item.packet()).size);
        *self.bytes -= size;
        *self.total -= size;
        *self.len -= 1;
        Some(item)
    }
    fn backlog(&self) -> u64 {
        *self.total
    }
    fn pool(&mut self) -> &mut PacketPool {
        self.pool
    }
    fn dropped(&mut self, item: T) {
        self.dropped.push(item);
    }
}

impl<T: Queued> FqCodel<T> {
    pub fn new(cfg: FqCodelCfg, perturbation: u64) -> Self {
        let queues = (0..cfg.flows).map(|_| FlowQueue { queue: VecDeque::new(), bytes: 0, deficit: 0, list: List::None, codel: Codel::new(cfg.codel) }).collect();
        FqCodel { cfg, queues, new_flows: VecDeque::new(), old_flows: VecDeque::new(), perturbation, len: 0, bytes: 0 }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The queue a flow's packets go to.
    pub fn queue_of(&self, flow: u32) -> usize {
        (mix(u64::from(flow) ^ self.perturbation) % u64::from(self.cfg.flows)) as usize
    }

    /// CoDel's drops and marks over every queue.
    pub fn codel_counts(&self) -> (u64, u64) {
        self.queues.iter().fold((0, 0), |(d, m), q| (d + q.codel.drops, m + q.codel.marks))
    }

    /// §4.1: add `item` to its flow's queue.
    pub fn push(&mut self, item: T, pool: &PacketPool) {
        let p = pool.get(item.packet());
        let (i, size) = (self.queue_of(p.flow), u64::from(p.size));
        let q = &mut self.queues[i];
        q.queue.push_back(item);
        q.bytes += size;
        if q.list == List::None {
            q.list = List::New;
            q.deficit = i64::from(self.cfg.quantum);
            self.new_flows.push_back(i as u32);
        }
        self.len += 1;
        self.bytes += size;
    }

    /// §4.1: drop from the head of the fattest queue until half its bytes are gone (at
    /// most `drop_batch` packets); the victims go to `dropped`.
    pub fn drop_from_fattest(&mut self, pool: &PacketPool, dropped: &mut Vec<T>) {
        // The first queue with the most bytes (a scan, as Linux and ns-3 do).
        let Some((i, _)) = self.queues.iter().enumerate().fold(None, |best: Option<(usize, u64)>, (i, q)| match best {
            Some((_, b)) if b >= q.bytes => best,
            _ if q.bytes == 0 => best,
            _ => Some((i, q.bytes)),
        }) else {
            return;
        };
        let q = &mut self.queues[i];
        let threshold = q.bytes / 2;
        let (mut gone, mut count) = (0u64, 0u32);
        while let Some(item) = q.queue.pop_front() {
            let size = u64::from(pool.get(item.packet()).size);
            q.bytes -= size;
            self.bytes -= size;
            self.len -= 1;
            dropped.push(item);
            gone += size;
            count += 1;
            if count >= self.cfg.drop_batch || gone >= threshold {
                break;
            }
        }
    }

    /// §4.2: the next packet to send, if any (CoDel's drops go to `dropped`).
    pub fn pop(&mut self, pool: &mut PacketPool, now: Time, dropped: &mut Vec<T>) -> Option<T> {
        loop {
            let (from_new, i) = match self.new_flows.front() {
                Some(&i) => (true, i as usize),
                None => (false, *self.old_flows.front()? as usize),
            };
            let q = &mut self.queues[i];
            if q.deficit <= 0 {
                q.deficit += i64::from(self.cfg.quantum);
                q.list = List::Old;
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.old_flows.push_back(i as u32);
                continue;
            }
            let FlowQueue { queue, bytes, codel, .. } = q;
            let got = codel.dequeue(now, &mut FlowView { queue, bytes, len: &mut self.len, total: &mut self.bytes, pool, dropped });
            match got {
                Some(item) => {
                    q.deficit -= i64::from(pool.get(item.packet()).size);
                    return Some(item);
                }
                None => {
                    if from_new {
                        self.new_flows.pop_front();
                        if self.old_flows.is_empty() {
                            q.list = List::None;
                        } else {
                            q.list = List::Old;
                            self.old_flows.push_back(i as u32);
                        }
                    } else {
                        self.old_flows.pop_front();
                        q.list = List::None;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::codel::{DEFAULT_INTERVAL, DEFAULT_TARGET};
    use crate::packet::{Packet, PacketId, PacketKind};

    const MS: Time = 1_000_000;

    fn cfg(flows: u32) -> FqCodelCfg {
        FqCodelCfg { codel: CodelCfg { target: DEFAULT_TARGET, interval: DEFAULT_INTERVAL, ecn: false }, quantum: 1500, flows, drop_batch: 64 }
    }

    fn packet(pool: &mut PacketPool, flow: u32, size: u32, t: Time) -> PacketId {
        let mut p = Packet::new(PacketKind::Data, flow, 0, 1, size, t);
        p.enqueued = t;
        pool.alloc(&p)
    }

    /// An FQ-CoDel whose flows 0..n hash to distinct queues.
    fn distinct(n: u32) -> FqCodel<PacketId> {
        (0..).map(|s| FqCodel::new(cfg(1024), s)).find(|f| (0..n).map(|k| f.queue_of(k)).collect::<std::collections::HashSet<_>>().len() == n as usize).unwrap()
    }

    #[test]
    fn deficit_round_robin_serves_equal_bytes_not_equal_packets() {
        // Flow 0 sends 1500-byte packets, flow 1 500-byte ones, both backlogged: per round
        // each gets one quantum (1500 bytes): one big packet, three small ones.
        let (mut fq, mut pool, mut dropped) = (distinct(2), PacketPool::default(), Vec::new());
        for _ in 0..30 {
            let a = packet(&mut pool, 0, 1500, 0);
            fq.push(a, &pool);
            for _ in 0..3 {
                let b = packet(&mut pool, 1, 500, 0);
                fq.push(b, &pool);
            }
        }
        let mut bytes = [0u64; 2];
        for _ in 0..40 {
            let id = fq.pop(&mut pool, MS, &mut dropped).unwrap();
            let p = pool.get(id);
            bytes[p.flow as usize] += u64::from(p.size);
        }
        // 40 packets = 10 rounds of 1 + 3: 15 000 bytes each.
        assert_eq!(bytes, [15_000, 15_000]);
        assert!(dropped.is_empty());
    }

    #[test]
    fn a_sparse_flow_is_served_before_a_bulk_backlog() {
        // RFC 8290 §1.3: a flow that sends a packet now and then is put in the new list
        // and goes out next, however long the bulk flow's queue.
        let (mut fq, mut pool, mut dropped) = (distinct(2), PacketPool::default(), Vec::new());
        for _ in 0..100 {
            let a = packet(&mut pool, 0, 1500, 0);
            fq.push(a, &pool);
        }
        let _ = fq.pop(&mut pool, MS, &mut dropped).unwrap();
        let sparse = packet(&mut pool, 1, 100, MS);
        fq.push(sparse, &pool);
        assert_eq!(fq.pop(&mut pool, 2 * MS, &mut dropped), Some(sparse));
        let next = fq.pop(&mut pool, 2 * MS, &mut dropped).unwrap();
        assert_eq!(pool.get(next).flow, 0);
    }

    #[test]
    fn a_returning_sparse_flow_goes_ahead_of_a_queue_with_deficit_left() {
        // §1.3: what plain deficit round robin would not do. The bulk queue (500-byte
        // packets) has sent one and moved to the old list with its deficit topped up; it
        // still has credit when the sparse packet comes, yet the sparse queue, new, goes
        // first.
        let (mut fq, mut pool, mut dropped) = (distinct(2), PacketPool::default(), Vec::new());
        for _ in 0..20 {
            let a = packet(&mut pool, 0, 500, 0);
            fq.push(a, &pool);
        }
        for _ in 0..4 {
            let id = fq.pop(&mut pool, MS, &mut dropped).unwrap();
            assert_eq!(pool.get(id).flow, 0);
        }
        // Four sent: deficit 1500 - 3 x 500 = 0, topped up to 1500 (old list), minus 500.
        let sparse = packet(&mut pool, 1, 200, MS);
        fq.push(sparse, &pool);
        assert_eq!(fq.pop(&mut pool, MS, &mut dropped), Some(sparse));
    }

    #[test]
    fn an_emptied_new_queue_moves_to_the_old_list_not_straight_back() {
        // §4.2: a queue of the new list found empty while old queues wait goes to the
        // old list; a packet arriving for it then waits its turn instead of jumping ahead
        // as a new queue again.
        let (mut fq, mut pool, mut dropped) = (distinct(2), PacketPool::default(), Vec::new());
        for _ in 0..10 {
            let a = packet(&mut pool, 0, 500, 0);
            fq.push(a, &pool);
        }
        let flow_of = |fq: &mut FqCodel<PacketId>, pool: &mut PacketPool, d: &mut Vec<PacketId>| {
            let id = fq.pop(pool, MS, d).unwrap();
            pool.get(id).flow
        };
        assert_eq!(flow_of(&mut fq, &mut pool, &mut dropped), 0);
        let b = packet(&mut pool, 1, 500, MS);
        fq.push(b, &pool);
        // Flow 0 spends its quantum (three 500-byte packets), then b goes.
        assert_eq!([0, 0, 1].map(|_| flow_of(&mut fq, &mut pool, &mut dropped)), [0, 0, 1]);
        // Flow 1's queue is empty with deficit left: it moves to the old list, flow 0 sends.
        assert_eq!(flow_of(&mut fq, &mut pool, &mut dropped), 0);
        let b2 = packet(&mut pool, 1, 500, MS);
        fq.push(b2, &pool);
        // Flow 0 still has deficit (1000 bytes) at the head of the old list: it goes first.
        assert_eq!([0, 0, 1].map(|_| flow_of(&mut fq, &mut pool, &mut dropped)), [0, 0, 1]);
    }

    #[test]
    fn overload_drops_half_the_fattest_queue_from_its_head() {
        let (mut fq, mut pool, mut dropped) = (distinct(2), PacketPool::default(), Vec::new());
        let fat: Vec<PacketId> = (0..10).map(|_| packet(&mut pool, 0, 1000, 0)).collect();
        for &id in &fat {
            fq.push(id, &pool);
        }
        let thin = packet(&mut pool, 1, 1000, 0);
        fq.push(thin, &pool);
        fq.drop_from_fattest(&pool, &mut dropped);
        // 10 000 bytes: the first five packets of the fat flow go.
        assert_eq!(dropped, fat[..5].to_vec());
        assert_eq!((fq.len(), fq.bytes()), (6, 6000));
        // At most drop_batch packets at once.
        let mut small = FqCodel::new(FqCodelCfg { drop_batch: 2, ..cfg(1) }, 0);
        for &id in &fat[5..] {
            small.push(id, &pool);
        }
        dropped.clear();
        small.drop_from_fattest(&pool, &mut dropped);
        assert_eq!(dropped.len(), 2);
    }

    #[test]
    fn codel_runs_per_queue_and_spares_a_flow_below_target() {
        // Flow 0 overloads its queue (2 packets per ms arrive, the link serves 1 per ms
        // shared with flow 1); flow 1 sends one packet every 4 ms, well under its share.
        // CoDel drops flow 0's packets only.
        let (mut fq, mut pool, mut dropped) = (distinct(2), PacketPool::default(), Vec::new());
        let mut lost = [0u32; 2];
        let mut t = 0;
        while t < 2000 * MS {
            for k in 0..2 {
                let a = packet(&mut pool, 0, 1500, t + k * MS / 2);
                fq.push(a, &pool);
            }
            if (t / MS).is_multiple_of(4) {
                let b = packet(&mut pool, 1, 1500, t);
                fq.push(b, &pool);
            }
            t += MS;
            if let Some(id) = fq.pop(&mut pool, t, &mut dropped) {
                pool.free(id);
            }
            for id in dropped.drain(..) {
                lost[pool.get(id).flow as usize] += 1;
                pool.free(id);
            }
        }
        assert!(lost[0] > 0);
        assert_eq!(lost[1], 0);
        assert_eq!(fq.codel_counts().0, u64::from(lost[0]));
    }
}
