//! Active queue management at arrival: RED (Floyd & Jacobson, ToN 1993; RFC 3168 ECN marking), PIE
//! (`pie.rs`, decided here at arrival; CoDel decides at dequeue, `codel.rs`) and
//! the congestion warning of TCP-Jersey (RED's average queue, every packet marked while
//! the average exceeds one threshold; no early drops).
//!
//! The average is an EWMA of the instantaneous queue length (packets) taken at each
//! arrival: avg <- (1 - w) avg + w q. After an idle period it is first aged as if
//! m = idle time x (link rate / mean packet size) empty arrivals had happened:
//! avg <- (1 - w)^m avg (Floyd & Jacobson §4).

use crate::rng::{unit, SimRng};
use crate::time::Time;

#[derive(Clone, Debug, PartialEq)]
pub struct RedCfg {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub weight: f64,
    pub gentle: bool,
    pub ecn: bool,
    pub mean_packet_bytes: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WarningCfg {
    pub threshold: f64,
    pub weight: f64,
    pub mean_packet_bytes: u32,
}

/// The queue discipline of one link direction.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Aqm {
    #[default]
    DropTail,
    Red(RedCfg),
    Warning(WarningCfg),
    /// Decides at dequeue (`codel.rs`); arrivals are only tail-dropped at the limit.
    Codel(crate::net::codel::CodelCfg),
    /// Random early drop by a PI controller on the queueing delay (`pie.rs`).
    Pie(crate::net::pie::PieCfg),
    /// Per-flow queues served by deficit round robin, CoDel on each (`fq_codel.rs`).
    FqCodel(crate::net::fq_codel::FqCodelCfg),
    /// ABC accelerate/brake marking at departure (`abc.rs`); arrivals are only tail-dropped.
    Abc(crate::net::abc::AbcCfg),
}

/// What the discipline decides for an arriving packet (overflow is checked separately).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    Accept,
    /// Accept and set the congestion mark.
    Mark,
    /// Drop early (RED).
    Drop,
}

/// The average-queue state and the RED counter.
#[derive(Debug)]
pub struct AqmState {
    aqm: Aqm,
    avg: f64,
    /// Packets accepted since the last early mark or drop (RED's `count`).
    count: u64,
    idle_since: Option<Time>,
    rate_bps: f64,
    rng: Option<SimRng>,
    pie: Option<crate::net::pie::Pie>,
}

impl AqmState {
    pub fn new(aqm: Aqm, rate_bps: f64, rng: Option<SimRng>) -> Self {
        let (pie, rng) = match (&aqm, rng) {
            (Aqm::Pie(c), Some(r)) => (Some(crate::net::pie::Pie::new(*c, r)), None),
            (Aqm::Pie(c), None) => (Some(crate::net::pie::Pie::new(*c, crate::rng::stream(0, 0, "pie"))), None),
            (_, r) => (None, r),
        };
        AqmState { aqm, avg: 0.0, count: 0, idle_since: Some(0), rate_bps, rng, pie }
    }

    /// Nothing to decide at arrival (DropTail, and the disciplines that act at dequeue).
    pub fn is_drop_tail(&self) -> bool {
        matches!(self.aqm, Aqm::DropTail | Aqm::Codel(_) | Aqm::FqCodel(_) | Aqm::Abc(_))
    }

    pub fn average(&self) -> f64 {
        self.avg
    }

    /// The queue went empty at `now` (the transmitter is idle).
    pub fn on_idle(&mut self, now: Time) {
        if self.idle_since.is_none() {
            self.idle_since = Some(now);
        }
    }

    fn update_average(&mut self, queue_len: usize, now: Time, weight: f64, mean_bytes: u32) {
        if let Some(since) = self.idle_since.take() {
            if queue_len == 0 {
                let m = (now - since) as f64 / 1e9 * self.rate_bps / (8.0 * f64::from(mean_bytes));
                self.avg *= (1.0 - weight).powf(m);
            }
        }
        self.avg = (1.0 - weight) * self.avg + weight * queue_len as f64;
    }

    #[cfg(test)]
    fn on_arrival_pkts(&mut self, queue_len: usize, now: Time, ect: bool) -> Admit {
        self.on_arrival(queue_len, 0, now, ect)
    }

    /// A packet that waited `sojourn` started its transmission (PIE's delay sample; nothing
    /// for the other disciplines).
    #[inline]
    pub fn on_departure(&mut self, now: Time, sojourn: Time, queue_empty: bool) {
        if let Some(p) = self.pie.as_mut() {
            p.on_departure(now, sojourn, queue_empty);
        }
    }

    /// Decide for a packet arriving at a queue holding `queue_len` packets of
    /// `queue_bytes` bytes.
    pub fn on_arrival(&mut self, queue_len: usize, queue_bytes: u64, now: Time, ect: bool) -> Admit {
        match self.aqm.clone() {
            Aqm::DropTail | Aqm::Codel(_) | Aqm::FqCodel(_) | Aqm::Abc(_) => Admit::Accept,
            Aqm::Pie(_) => match self.pie.as_mut().map(|p| p.on_arrival(now, queue_bytes, ect)) {
                Some(crate::net::pie::PieVerdict::Mark) => Admit::Mark,
                Some(crate::net::pie::PieVerdict::Drop) => Admit::Drop,
                _ => Admit::Accept,
            },
            Aqm::Warning(c) => {
                self.update_average(queue_len, now, c.weight, c.mean_packet_bytes);
                if self.avg > c.threshold {
                    Admit::Mark
                } else {
                    Admit::Accept
                }
            }
            Aqm::Red(c) => {
                self.update_average(queue_len, now, c.weight, c.mean_packet_bytes);
                self.red_decision(&c, ect)
            }
        }
    }

    fn red_decision(&mut self, c: &RedCfg, ect: bool) -> Admit {
        let avg = self.avg;
        if avg < c.min_th {
            self.count = 0;
            return Admit::Accept;
        }
        let forced = if c.gentle { avg >= 2.0 * c.max_th } else { avg >= c.max_th };
        if forced {
            self.count = 0;
            return Admit::Drop;
        }
        // pb rises linearly to max_p at max_th (and, gentle, to 1 at 2 max_th).
        let pb = if avg < c.max_th {
            c.max_p * (avg - c.min_th) / (c.max_th - c.min_th)
        } else {
            c.max_p + (1.0 - c.max_p) * (avg - c.max_th) / c.max_th
        };
        // pa = pb / (1 - count pb): the gap between actions is uniform on 1..1/pb
        // (Floyd & Jacobson §7).
        let pa = if (self.count as f64) * pb >= 1.0 { 1.0 } else { pb / (1.0 - self.count as f64 * pb) };
        let u = self.rng.as_mut().map_or(1.0, unit);
        if u < pa {
            self.count = 0;
            if c.ecn && ect {
                Admit::Mark
            } else {
                Admit::Drop
            }
        } else {
            self.count += 1;
            Admit::Accept
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn warning(threshold: f64) -> AqmState {
        AqmState::new(Aqm::Warning(WarningCfg { threshold, weight: 0.5, mean_packet_bytes: 1000 }), 1e6, None)
    }

    #[test]
    fn congestion_warning_marks_every_packet_while_the_average_is_above_threshold() {
        let mut q = warning(4.0);
        // w = 0.5: the average goes 0, 5, 2.5, 6.25 for arrivals seeing 0, 10, 0, 10.
        assert_eq!(q.on_arrival_pkts(0, 0, false), Admit::Accept);
        assert_eq!(q.on_arrival_pkts(10, 1, false), Admit::Mark);
        assert_eq!(q.on_arrival_pkts(0, 2, false), Admit::Accept);
        assert_eq!(q.on_arrival_pkts(10, 3, false), Admit::Mark);
        assert_eq!(q.average(), 6.25);
    }

    #[test]
    fn red_accepts_below_min_th_and_drops_above_max_th() {
        let cfg = RedCfg { min_th: 5.0, max_th: 15.0, max_p: 0.1, weight: 1.0, gentle: false, ecn: false, mean_packet_bytes: 1000 };
        let mut q = AqmState::new(Aqm::Red(cfg), 1e6, Some(stream(1, 0, "red")));
        assert_eq!(q.on_arrival_pkts(3, 0, true), Admit::Accept);
        assert_eq!(q.on_arrival_pkts(20, 1, true), Admit::Drop);
    }

    #[test]
    fn red_marks_ecn_capable_packets_instead_of_dropping_them() {
        let cfg = RedCfg { min_th: 5.0, max_th: 15.0, max_p: 1.0, weight: 1.0, gentle: true, ecn: true, mean_packet_bytes: 1000 };
        let mut q = AqmState::new(Aqm::Red(cfg), 1e6, Some(stream(1, 0, "red")));
        // avg = 14.9: pb close to 1, pa = 1 after one packet: an early action happens.
        let decisions: Vec<Admit> = (0..4).map(|t| q.on_arrival_pkts(14, t, true)).collect();
        assert!(decisions.contains(&Admit::Mark));
        assert!(!decisions.contains(&Admit::Drop));
    }

    #[test]
    fn red_early_probability_matches_the_linear_ramp() {
        // Held at avg = 10 (halfway): pb = 0.05; with the count correction the gap between
        // actions is uniform on 1..20, mean 10.5 packets (Floyd & Jacobson §7).
        let cfg = RedCfg { min_th: 5.0, max_th: 15.0, max_p: 0.1, weight: 1.0, gentle: false, ecn: false, mean_packet_bytes: 1000 };
        let mut q = AqmState::new(Aqm::Red(cfg), 1e6, Some(stream(9, 0, "red")));
        let n = 200_000;
        let drops = (0..n).filter(|&t| q.on_arrival_pkts(10, t as Time, false) == Admit::Drop).count();
        let gap = n as f64 / drops as f64;
        assert!((gap - 10.5).abs() < 0.1, "{gap}");
    }

    #[test]
    fn the_average_decays_over_idle_time() {
        let mut q = warning(100.0);
        q.on_arrival_pkts(10, 0, false);
        q.on_arrival_pkts(10, 1, false);
        let before = q.average();
        q.on_idle(2);
        // 1 s idle at 1 Mb/s with 1000-byte packets = 125 empty arrivals at w = 0.5.
        q.on_arrival_pkts(0, 1_000_000_002, false);
        assert!(q.average() < before * 1e-30);
    }
}
