//! The queue in front of a transmitter (a link direction, an 802.11 station's interface
//! queue): its limit and its discipline, in one place for both.
//!
//! - At arrival: RED, the congestion warning and PIE decide (`queue.rs`, `pie.rs`);
//!   DropTail only checks the limit.
//! - At dequeue: CoDel on the single FIFO (`codel.rs`), or FQ-CoDel's per-flow queues
//!   (`fq_codel.rs`), which over the limit drops from its fattest queue instead of
//!   refusing the arrival.
//! - At departure (the packet starts its transmission, queued or not): ABC's
//!   accelerate/brake mark (`abc.rs`).
//!
//! The packet in transmission is not in the queue: the limit counts packets waiting.

use std::collections::VecDeque;

use rand::Rng;

use super::abc::AbcMarker;
use super::codel::{Codel, Fifo, Queued};
use super::fq_codel::FqCodel;
use super::queue::{Admit, Aqm, AqmState};
use crate::packet::{PacketId, PacketPool};
use crate::rng::SimRng;
use crate::scenario::QueueCfg;
use crate::time::Time;

#[derive(Debug)]
pub struct Qdisc<T> {
    limit_packets: Option<u32>,
    limit_bytes: Option<u64>,
    aqm: AqmState,
    fifo: VecDeque<T>,
    fifo_bytes: u64,
    codel: Option<Codel>,
    fq: Option<Box<FqCodel<T>>>,
    abc: Option<Box<AbcMarker>>,
    /// A DropTail FIFO: nothing to decide at arrival or dequeue (the common case, kept
    /// on its own short path).
    plain: bool,
}

impl<T: Queued> Qdisc<T> {
    /// `rate_bps`: the transmitter's rate (RED ages its average over idle time with it);
    /// `rng`: the queue's own stream (RED's and PIE's draws, FQ-CoDel's hash perturbation).
    pub fn new(cfg: &QueueCfg, rate_bps: f64, mut rng: SimRng) -> Self {
        let (codel, fq) = match &cfg.aqm {
            Aqm::Codel(c) => (Some(Codel::new(*c)), None),
            Aqm::FqCodel(c) => (None, Some(Box::new(FqCodel::new(*c, rng.random())))),
            _ => (None, None),
        };
        Qdisc {
            plain: matches!(cfg.aqm, Aqm::DropTail),
            limit_packets: cfg.limit_packets,
            limit_bytes: cfg.limit_bytes,
            aqm: AqmState::new(cfg.aqm.clone(), rate_bps, Some(rng)),
            fifo: VecDeque::new(),
            fifo_bytes: 0,
            codel,
            fq,
            abc: match &cfg.aqm {
                Aqm::Abc(c) => Some(Box::new(AbcMarker::new(*c, rate_bps))),
                _ => None,
            },
        }
    }

    /// ABC's marker, if this queue is an ABC router's (the transmitter reports its
    /// capacity or its MAC service times to it).
    #[inline]
    pub fn abc_mut(&mut self) -> Option<&mut AbcMarker> {
        self.abc.as_deref_mut()
    }

    /// Packets waiting.
    #[inline]
    pub fn len(&self) -> usize {
        self.fq.as_ref().map_or(self.fifo.len(), |f| f.len())
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    pub fn bytes(&self) -> u64 {
        self.fq.as_ref().map_or(self.fifo_bytes, |f| f.bytes())
    }

    /// The arrival-time discipline's verdict on packet `id` (RED, congestion warning, PIE;
    /// a mark is set on the packet). `false`: dropped early. `idle`: nothing is being
    /// sent or waits, so the idle clock restarts after an early drop (else RED's average
    /// never decays and every later arrival is dropped).
    #[inline]
    pub fn admit(&mut self, id: PacketId, pool: &mut PacketPool, now: Time, idle: bool) -> bool {
        if self.plain || self.aqm.is_drop_tail() {
            return true;
        }
        let ect = pool.get(id).ect;
        match self.aqm.on_arrival(self.len(), self.bytes(), now, ect) {
            Admit::Accept => true,
            Admit::Mark => {
                pool.get_mut(id).ce = true;
                true
            }
            Admit::Drop => {
                if idle {
                    self.aqm.on_idle(now);
                }
                false
            }
        }
    }

    /// Queue `item` behind the others. `Err(item)`: refused, the queue is full. FQ-CoDel
    /// takes every arrival and, over the limit, drops from its fattest queue: those
    /// victims go to `dropped` (if the arrival is among them, it is returned as `Err`).
    #[inline]
    pub fn push(&mut self, item: T, pool: &PacketPool, dropped: &mut Vec<T>) -> Result<(), T> {
        let size = u64::from(pool.get(item.packet()).size);
        if let (false, Some(fq)) = (self.plain, self.fq.as_mut()) {
            fq.push(item, pool);
            let over = self.limit_packets.is_some_and(|l| fq.len() > l as usize) || self.limit_bytes.is_some_and(|l| fq.bytes() > l);
            if over {
                let from = dropped.len();
                fq.drop_from_fattest(pool, dropped);
                if let Some(k) = dropped[from..].iter().position(|v| v.packet() == item.packet()) {
                    dropped.remove(from + k);
                    return Err(item);
                }
            }
            return Ok(());
        }
        let full = match (self.limit_packets, self.limit_bytes) {
            (Some(lp), _) => self.fifo.len() >= lp as usize,
            (_, Some(lb)) => self.fifo_bytes + size > lb,
            (None, None) => false,
        };
        if full {
            return Err(item);
        }
        self.fifo.push_back(item);
        self.fifo_bytes += size;
        Ok(())
    }

    /// The next packet to send, if any; CoDel's and FQ-CoDel's drops go to `dropped`.
    #[inline]
    pub fn pop(&mut self, pool: &mut PacketPool, now: Time, dropped: &mut Vec<T>) -> Option<T> {
        if !self.plain {
            if let Some(fq) = self.fq.as_mut() {
                return fq.pop(pool, now, dropped);
            }
        }
        let Some(codel) = self.codel.as_mut().filter(|_| !self.plain) else {
            let item = self.fifo.pop_front()?;
            self.fifo_bytes -= u64::from(pool.get(item.packet()).size);
            return Some(item);
        };
        codel.dequeue(now, &mut Fifo { queue: &mut self.fifo, bytes: &mut self.fifo_bytes, pool, dropped })
    }

    /// The transmitter went idle with nothing queued.
    #[inline]
    pub fn on_idle(&mut self, now: Time) {
        if !self.plain {
            self.aqm.on_idle(now);
        }
    }

    /// Packet `id`, which waited `sojourn`, starts its transmission (PIE's delay sample;
    /// ABC's mark).
    #[inline]
    pub fn on_departure(&mut self, id: PacketId, pool: &mut PacketPool, now: Time, sojourn: Time) {
        if !self.plain {
            let empty = self.is_empty();
            self.aqm.on_departure(now, sojourn, empty);
            if let Some(abc) = self.abc.as_deref_mut() {
                let p = pool.get_mut(id);
                let backlog = self.fifo_bytes + u64::from(p.size);
                if abc.on_departure(now, p.size, backlog, sojourn, p.ect, p.ce) {
                    p.ce = true;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::codel::{CodelCfg, DEFAULT_INTERVAL, DEFAULT_TARGET};
    use crate::net::fq_codel::FqCodelCfg;
    use crate::packet::{Packet, PacketKind};
    use crate::rng::stream;

    fn fq_codel(limit_packets: u32) -> Qdisc<PacketId> {
        let codel = CodelCfg { target: DEFAULT_TARGET, interval: DEFAULT_INTERVAL, ecn: true };
        let cfg = QueueCfg { limit_packets: Some(limit_packets), limit_bytes: None, aqm: Aqm::FqCodel(FqCodelCfg { codel, quantum: 1500, flows: 1024, drop_batch: 64 }) };
        Qdisc::new(&cfg, 1e6, stream(3, 0, "q"))
    }

    fn packet(pool: &mut PacketPool, flow: u32, size: u32) -> PacketId {
        pool.alloc(&Packet::new(PacketKind::Data, flow, 0, 1, size, 0))
    }

    #[test]
    fn fq_codel_over_its_limit_takes_the_arrival_and_drops_from_the_fattest_queue() {
        let (mut q, mut pool, mut dropped) = (fq_codel(4), PacketPool::default(), Vec::new());
        let fat: Vec<PacketId> = (0..4).map(|_| packet(&mut pool, 0, 1000)).collect();
        for &id in &fat {
            assert_eq!(q.push(id, &pool, &mut dropped), Ok(()));
        }
        // The fifth packet, of another flow, is taken; the fat flow loses half its bytes
        // from its head (two packets).
        let thin = packet(&mut pool, 1, 1000);
        assert_eq!(q.push(thin, &pool, &mut dropped), Ok(()));
        assert_eq!(dropped, fat[..2].to_vec());
        assert_eq!((q.len(), q.bytes()), (3, 3000));
    }

    #[test]
    fn fq_codel_returns_the_arrival_when_it_is_the_victim() {
        // The arrival alone in the fattest queue: it is dropped at once, and reported as
        // refused rather than among the victims.
        let (mut q, mut pool, mut dropped) = (fq_codel(1), PacketPool::default(), Vec::new());
        let small = packet(&mut pool, 0, 500);
        assert_eq!(q.push(small, &pool, &mut dropped), Ok(()));
        let big = packet(&mut pool, 1, 1500);
        assert_eq!(q.push(big, &pool, &mut dropped), Err(big));
        assert!(dropped.is_empty());
        assert_eq!((q.len(), q.bytes()), (1, 500));
    }

    #[test]
    fn a_drop_tail_queue_refuses_the_arrival_at_its_limit() {
        let cfg = QueueCfg { limit_packets: Some(2), limit_bytes: None, aqm: Aqm::DropTail };
        let (mut q, mut pool, mut dropped) = (Qdisc::new(&cfg, 1e6, stream(3, 0, "q")), PacketPool::default(), Vec::new());
        let ids: Vec<PacketId> = (0..3).map(|_| packet(&mut pool, 0, 1000)).collect();
        let got: Vec<_> = ids.iter().map(|&id| q.push(id, &pool, &mut dropped)).collect();
        assert_eq!(got, vec![Ok(()), Ok(()), Err(ids[2])]);
        assert_eq!(q.pop(&mut pool, 0, &mut dropped), Some(ids[0]));
    }
}
