//! ABC router marking (Accel-Brake Control): P. Goyal, A. Agarwal, R. Netravali,
//! M. Alizadeh, H. Balakrishnan, "ABC: A Simple Explicit Congestion Controller for
//! Wireless Networks", USENIX NSDI 2020, and the authors' artifact
//! (github.com/prateshg/ABC-NSDI2020, `mahimahi/src/packet/cellular_packet_queue.cc`, the
//! router the paper's cellular results ran on).
//!
//! Each ECN-capable packet leaving the queue is marked "accelerate" or "brake" so that the
//! fraction of accelerates is f(t) = min(tr(t) / (2 cr(t)), 1), where the target rate is
//! tr(t) = eta mu(t) - (mu(t) / delta) (x(t) - d_t)+, mu the link's capacity, cr the
//! dequeue rate of ECN-capable traffic and x the queueing delay. A sender that grows its
//! window by one packet per accelerate and shrinks it by one per brake then sends at
//! 2 f cr = tr one RTT later. Marks follow a token bucket (deterministic, not random):
//! tokens += f per packet, capped at `token_limit`; a packet leaves as an accelerate when
//! more than one token is there (and takes it), else as a brake.
//!
//! Deviations and ambiguities resolved:
//! - Source: the paper's text beyond its abstract was not available here; the rule above
//!   is the artifact's router, written in the paper's form (tr from eta mu). The artifact
//!   computes 0.98 cr per packet and adds 0.49 tokens per unused delivery opportunity;
//!   that gives the same accelerates per unit of time as f = tr / 2cr per packet as long
//!   as f stays within [0, 1] (here f is clamped per packet; there the credit of idle
//!   slots is not, and a brake's negative part is floored at 0.49 - brake / 2cr).
//! - Token bucket in the artifact's order: add f, decide (more than one token and not CE:
//!   accelerate, take a token), then cap at `token_limit`; the bucket starts full.
//! - Encoding: a brake is the IP CE codepoint, an accelerate leaves the packet as it was
//!   (the artifact's encoding; a packet some earlier router set to CE stays a brake and
//!   takes no token, so the most congested ABC router on the path decides). A legacy AQM's
//!   CE is therefore a brake too. Packets that are not ECN-capable are neither marked nor
//!   counted in cr; the capacity they use is not ABC's: mu is the transmitter's capacity
//!   less their departure rate over `rate_window` (the artifact counts only ECN-capable
//!   departures and idle opportunities toward mu).
//! - mu, in IP bytes: a link's rate, or a capacity trace's current rate, less the
//!   link-layer header's share of the departing packet; a mahimahi schedule's delivery
//!   opportunities (used or not) in the trailing `rate_window`, at its 1504 bytes each (the
//!   artifact's count over 20 ms). 0 in an outage, where every packet brakes. An 802.11
//!   interface has no capacity it could read: mu is the bytes its MAC delivered over the
//!   time frames held the head of the queue (contention, retries and collisions
//!   included, frames given up at the retry limit counting their time and no bytes),
//!   summed over the trailing `rate_window` (before the first frame, the PHY's nominal
//!   rate). The artifact has no 802.11 router; this estimator is wtcp's, not the paper's.
//! - When: a packet is marked as it starts its transmission (the previous one finished,
//!   or it found the transmitter idle); on a mahimahi schedule the artifact marks at the
//!   packet's own delivery opportunity, which comes later by up to the gap to the next
//!   opportunity (mu and cr are then measured up to that time).
//! - x: `queue_delay = "backlog"` (default, the artifact): the bytes queued, the departing
//!   packet included, over mu; `"sojourn"`: the departing packet's time in the queue.
//! - cr: ECN-capable bytes that left in the trailing `rate_window`, the departing packet
//!   included (so cr > 0 at the first packet), over the window.
//! - Defaults: eta 0.98, delta 133 ms, d_t 50 ms, a 20 ms window and 5 tokens (the
//!   artifact's code and its experiment script, `exp.sh`: `qdelay_ref=50,delta=133`).

use std::collections::VecDeque;

use crate::time::Time;

/// What the router estimates the queueing delay x(t) from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueDelay {
    /// Bytes queued (the departing packet included) over mu.
    Backlog,
    /// The departing packet's sojourn time.
    Sojourn,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AbcCfg {
    /// Target utilisation eta (ratio).
    pub eta: f64,
    /// delta: the time over which a queue above d_t is drained, ns.
    pub delta: Time,
    /// d_t: queueing delay tolerated before braking, ns.
    pub delay_threshold: Time,
    /// Window of the cr (and, on 802.11 and mahimahi schedules, mu) measurements, ns.
    pub rate_window: Time,
    /// Most accelerate tokens held.
    pub token_limit: f64,
    pub queue_delay: QueueDelay,
}

pub const DEFAULT_ETA: f64 = 0.98;
pub const DEFAULT_DELTA: Time = 133_000_000;
pub const DEFAULT_DELAY_THRESHOLD: Time = 50_000_000;
pub const DEFAULT_RATE_WINDOW: Time = 20_000_000;
pub const DEFAULT_TOKEN_LIMIT: f64 = 5.0;

/// Bytes over a trailing window of time.
#[derive(Debug, Default)]
struct Trailing {
    events: VecDeque<(Time, u64)>,
    sum: u64,
}

impl Trailing {
    fn push(&mut self, now: Time, bytes: u64, window: Time) {
        self.events.push_back((now, bytes));
        self.sum += bytes;
        while let Some(&(t, b)) = self.events.front() {
            if now.saturating_sub(t) < window {
                break;
            }
            self.events.pop_front();
            self.sum -= b;
        }
    }
}

/// The marking state of one queue.
#[derive(Debug)]
pub struct AbcMarker {
    cfg: AbcCfg,
    tokens: f64,
    /// ECN-capable departures (cr).
    departures: Trailing,
    /// Departures that are not ECN-capable: the capacity they take is not ABC's.
    others: Trailing,
    /// The transmitter's capacity, bytes/s, as it last reported it.
    mu: f64,
    /// 802.11: bytes served and their service times (ns) in the window.
    served: Trailing,
    service_ns: Trailing,
    /// Accelerates and brakes given.
    pub accelerates: u64,
    pub brakes: u64,
}

impl AbcMarker {
    /// `nominal_bps`: the transmitter's rate until it reports another.
    pub fn new(cfg: AbcCfg, nominal_bps: f64) -> Self {
        AbcMarker {
            cfg,
            tokens: cfg.token_limit,
            departures: Trailing::default(),
            others: Trailing::default(),
            mu: nominal_bps / 8.0,
            served: Trailing::default(),
            service_ns: Trailing::default(),
            accelerates: 0,
            brakes: 0,
        }
    }

    pub fn rate_window(&self) -> Time {
        self.cfg.rate_window
    }

    /// The link's capacity now, bits/s of IP packets (0 in an outage).
    pub fn set_capacity(&mut self, bps: f64) {
        self.mu = (bps / 8.0).max(0.0);
    }

    /// 802.11: a frame of `bytes` left the head of the queue `service` ns after it got
    /// there: delivered, or given up at the retry limit with `bytes` 0.
    pub fn on_served(&mut self, now: Time, bytes: u64, service: Time) {
        let w = self.cfg.rate_window;
        self.served.push(now, bytes, w);
        self.service_ns.push(now, service, w);
        if self.service_ns.sum > 0 {
            self.mu = self.served.sum as f64 * 1e9 / self.service_ns.sum as f64;
        }
    }

    /// The accelerate fraction f for a packet leaving now; `queued_bytes`: the queue's
    /// bytes with the packet included.
    fn fraction(&self, queued_bytes: u64, sojourn: Time) -> f64 {
        let c = &self.cfg;
        let per_window = |bytes: u64| bytes as f64 * 1e9 / c.rate_window as f64;
        // ABC's share of the capacity: what ECN-capable traffic used or left unused.
        let mu = self.mu - per_window(self.others.sum);
        if mu <= 0.0 {
            return 0.0;
        }
        let x = match c.queue_delay {
            QueueDelay::Backlog => queued_bytes as f64 / mu,
            QueueDelay::Sojourn => sojourn as f64 / 1e9,
        };
        let excess = (x - c.delay_threshold as f64 / 1e9).max(0.0);
        let tr = c.eta * mu - mu / (c.delta as f64 / 1e9) * excess;
        (tr / (2.0 * per_window(self.departures.sum))).clamp(0.0, 1.0)
    }

    /// A packet of `bytes` leaves the queue at `now` after `sojourn`; `queued_bytes` is
    /// the queue's backlog with it. Returns true if it must carry a brake (CE).
    pub fn on_departure(&mut self, now: Time, bytes: u32, queued_bytes: u64, sojourn: Time, ect: bool, ce: bool) -> bool {
        if !ect {
            self.others.push(now, u64::from(bytes), self.cfg.rate_window);
            return false;
        }
        self.departures.push(now, u64::from(bytes), self.cfg.rate_window);
        self.tokens += self.fraction(queued_bytes, sojourn);
        // The cap applies after the decision (the artifact's order: a limit of one
        // token still lets accelerates through).
        let brake = if self.tokens > 1.0 && !ce {
            self.tokens -= 1.0;
            self.accelerates += 1;
            false
        } else {
            self.brakes += 1;
            true
        };
        self.tokens = self.tokens.min(self.cfg.token_limit);
        brake
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    fn cfg(queue_delay: QueueDelay) -> AbcCfg {
        AbcCfg { eta: DEFAULT_ETA, delta: DEFAULT_DELTA, delay_threshold: DEFAULT_DELAY_THRESHOLD, rate_window: DEFAULT_RATE_WINDOW, token_limit: DEFAULT_TOKEN_LIMIT, queue_delay }
    }

    /// Packets of 1500 bytes leaving at `rate` bytes/s for `n` packets with `backlog`
    /// bytes queued; the fraction of accelerates among the last half.
    fn accel_share(m: &mut AbcMarker, rate: f64, backlog: u64, n: u64) -> f64 {
        let gap = (1500.0 / rate * 1e9) as Time;
        let (mut a0, mut seen) = (0, 0);
        for i in 0..n {
            if i == n / 2 {
                a0 = m.accelerates;
            }
            m.on_departure(i * gap, 1500, backlog, 0, true, false);
            seen += u64::from(i >= n / 2);
        }
        (m.accelerates - a0) as f64 / seen as f64
    }

    #[test]
    fn a_queue_under_the_threshold_at_full_rate_accelerates_eta_over_two_of_packets() {
        // cr = mu (the link is busy), x below d_t: f = eta mu / 2 cr = 0.49.
        let mut m = AbcMarker::new(cfg(QueueDelay::Backlog), 12e6);
        let share = accel_share(&mut m, 1.5e6, 15_000, 4000);
        assert!((share - 0.49).abs() < 0.01, "{share}");
    }

    #[test]
    fn an_idle_link_half_used_accelerates_every_packet() {
        // cr = mu / 2: f = eta mu / (2 cr) = 0.98.
        let mut m = AbcMarker::new(cfg(QueueDelay::Backlog), 12e6);
        let share = accel_share(&mut m, 0.75e6, 0, 4000);
        assert!((share - 0.98).abs() < 0.01, "{share}");
    }

    #[test]
    fn a_queue_past_the_threshold_brakes_in_proportion_to_the_excess() {
        // x = 100 ms of backlog at mu = 1.5 MB/s: excess 50 ms, tr = mu (0.98 - 50/133),
        // f = tr / 2 mu = 0.302.
        let mut m = AbcMarker::new(cfg(QueueDelay::Backlog), 12e6);
        let share = accel_share(&mut m, 1.5e6, 150_000, 4000);
        let want = (0.98 - 50.0 / 133.0) / 2.0;
        assert!((share - want).abs() < 0.01, "{share} vs {want}");
        // Past d_t + eta delta every packet brakes.
        let mut m = AbcMarker::new(cfg(QueueDelay::Sojourn), 12e6);
        m.tokens = 0.0;
        for i in 0..100 {
            assert!(m.on_departure(i * MS, 1500, 0, 200 * MS, true, false));
        }
    }

    #[test]
    fn a_link_used_at_a_quarter_accelerates_every_packet() {
        // f = eta mu / (2 cr) = 1.96, clamped to 1.
        let mut m = AbcMarker::new(cfg(QueueDelay::Backlog), 12e6);
        assert_eq!(accel_share(&mut m, 0.375e6, 0, 4000), 1.0);
    }

    #[test]
    fn a_one_token_bucket_still_accelerates_and_a_full_bucket_allows_a_burst() {
        // The cap comes after the decision: with a limit of 1, f = 0.49 still gives
        // accelerates (every other packet or so), not none.
        let mut m = AbcMarker::new(AbcCfg { token_limit: 1.0, ..cfg(QueueDelay::Backlog) }, 12e6);
        let share = accel_share(&mut m, 1.5e6, 15_000, 4000);
        assert!((share - 0.49).abs() < 0.01, "{share}");
        // A full bucket of 5 tokens lets 4 packets accelerate in a row even when f is 0.
        let mut m = AbcMarker::new(cfg(QueueDelay::Sojourn), 12e6);
        let run: Vec<bool> = (0..6).map(|i| m.on_departure(i * MS, 1500, 0, 500 * MS, true, false)).collect();
        assert_eq!(run, vec![false, false, false, false, true, true]);
    }

    #[test]
    fn no_capacity_brakes_every_packet() {
        let mut m = AbcMarker::new(cfg(QueueDelay::Backlog), 12e6);
        m.set_capacity(0.0);
        m.tokens = 0.0;
        assert!((0..50).all(|i| m.on_departure(i * MS, 1500, 1500, 0, true, false)));
    }

    #[test]
    fn traffic_without_ecn_takes_its_share_of_the_capacity_from_mu() {
        // mu 1.5 MB/s; a non-ECT flow departs at 0.75 MB/s and ABC's at 0.75 MB/s, its
        // queue under d_t: f = eta (mu - 0.75) / (2 * 0.75) = 0.49, where counting the
        // whole capacity would give 0.98.
        let mut m = AbcMarker::new(cfg(QueueDelay::Backlog), 12e6);
        let gap = MS;
        let (mut a0, mut n) = (0, 0);
        for i in 0..4000u64 {
            m.on_departure(2 * i * gap, 1500, 0, 0, false, false);
            if i == 2000 {
                a0 = m.accelerates;
            }
            m.on_departure((2 * i + 1) * gap, 1500, 1500, 0, true, false);
            n += u64::from(i >= 2000);
        }
        let share = (m.accelerates - a0) as f64 / n as f64;
        assert!((share - 0.49).abs() < 0.01, "{share}");
    }

    #[test]
    fn the_sojourn_reading_brakes_in_proportion_to_the_packets_wait() {
        // A 90 ms sojourn at full rate: excess 40 ms, f = (0.98 - 40/133) / 2 = 0.34.
        let mut m = AbcMarker::new(cfg(QueueDelay::Sojourn), 12e6);
        let gap = MS;
        let (mut a0, mut n) = (0, 0);
        for i in 0..4000u64 {
            if i == 2000 {
                a0 = m.accelerates;
            }
            m.on_departure(i * gap, 1500, 0, 90 * MS, true, false);
            n += u64::from(i >= 2000);
        }
        let share = (m.accelerates - a0) as f64 / n as f64;
        let want = (0.98 - 40.0 / 133.0) / 2.0;
        assert!((share - want).abs() < 0.01, "{share} vs {want}");
    }

    #[test]
    fn a_brake_set_upstream_stays_and_takes_no_token_and_non_ect_packets_pass() {
        let mut m = AbcMarker::new(cfg(QueueDelay::Backlog), 12e6);
        assert!(m.on_departure(0, 1500, 1500, 0, true, true));
        assert_eq!(m.tokens, DEFAULT_TOKEN_LIMIT);
        assert!(!m.on_departure(MS, 1500, 1500, 0, false, false));
        assert_eq!((m.accelerates, m.brakes, m.departures.sum, m.others.sum), (0, 1, 1500, 1500));
    }

    #[test]
    fn the_802_11_rate_is_bytes_served_over_their_service_times() {
        let mut m = AbcMarker::new(cfg(QueueDelay::Backlog), 54e6);
        assert_eq!(m.mu, 54e6 / 8.0);
        m.on_served(MS, 1500, 2 * MS);
        m.on_served(3 * MS, 1500, MS);
        assert!((m.mu - 3000.0 / 3e-3).abs() < 1e-6);
        // 25 ms later the first two have left the 20 ms window.
        m.on_served(28 * MS, 1000, 4 * MS);
        assert!((m.mu - 1000.0 / 4e-3).abs() < 1e-6);
        // A frame given up adds its time and no bytes.
        m.on_served(30 * MS, 0, 4 * MS);
        assert!((m.mu - 1000.0 / 8e-3).abs() < 1e-6);
    }
}
