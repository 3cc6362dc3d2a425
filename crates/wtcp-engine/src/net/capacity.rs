//! Link capacity that follows a trace: mahimahi's packet-delivery opportunities, a
//! piecewise rate series, or a seeded synthetic model turned into opportunities.
//!
//! **Opportunities** (mahimahi, `src/frontend/link_queue.cc` `LinkQueue::rationalize`):
//! the trace lists opportunity times in milliseconds, sorted; the same time on several
//! lines is several opportunities. Each opportunity drains up to 1504 bytes (mahimahi's
//! `PACKET_SIZE`, the largest TUN payload: one 1500-byte IP packet with the 4-byte packet
//! information header), counting every packet as its wire size plus those 4 bytes, so a
//! 1500-byte IP packet takes one opportunity. A packet may be spread over several
//! opportunities and several small packets share one; what a packet leaves of an
//! opportunity goes to the next packet only if that one was already queued when the
//! opportunity came (`rationalize` burns every opportunity up to the present before a new
//! packet is enqueued); an opportunity with nothing queued is lost. A packet leaves at the
//! time of the opportunity that carries its last byte. The schedule repeats with the last
//! timestamp as its period (`base_timestamp_ += schedule_.back()`), which must be > 0.
//! A file holding only `1` is one 1500-byte IP packet per millisecond: 12 Mb/s.
//!
//! **Rates** (`format = "csv"`): rows `time_s,rate_mbps`, the first at time 0, times
//! increasing; the rate holds until the next row (`interpolate = "step"`) or changes
//! linearly to it (`"linear"`); the last row's time is the period after which the series
//! repeats (with `"step"` its rate is not used). A packet's transmission ends when the
//! integral of the rate since it started reaches its wire bits.
//!
//! Deviations and ambiguities resolved:
//! - A packet arriving at exactly an opportunity's time does not use it (mahimahi burns
//!   opportunities up to and including the present before enqueueing; its clock has 1 ms
//!   ticks, wtcp's 1 ns).
//! - The link's `link_header_bytes` counts in the wire size as on any link; for mahimahi's
//!   own accounting leave it at 0.

use crate::time::Time;

/// Bytes one opportunity carries (mahimahi `LinkQueue::PACKET_SIZE`).
pub const OPPORTUNITY_BYTES: u32 = 1504;
/// Bytes each packet counts beyond its wire size (the TUN packet information header).
pub const TUN_HEADER_BYTES: u32 = 4;
/// Bytes of IP packet one opportunity carries (mahimahi's "one 1500-byte packet").
pub const OPPORTUNITY_IP_BYTES: u32 = OPPORTUNITY_BYTES - TUN_HEADER_BYTES;
const NS_PER_MS: u64 = 1_000_000;
/// The largest timestamp a trace may hold, ms (about 31 years; keeps ns times in range).
pub const MAX_TIMESTAMP_MS: u64 = 1_000_000_000_000;

/// A schedule of delivery opportunities that repeats.
#[derive(Clone, Debug, PartialEq)]
pub struct Opportunities {
    /// Opportunity times within one period, ns, nondecreasing; the last equals `period`.
    times: Vec<u64>,
    period: u64,
}

impl Opportunities {
    /// From millisecond timestamps as mahimahi reads them (checked by the loader: at most
    /// `MAX_TIMESTAMP_MS`).
    pub fn from_ms(ms: &[u64]) -> Self {
        let times: Vec<u64> = ms.iter().map(|&m| m * NS_PER_MS).collect();
        let period = *times.last().expect("a schedule has at least one opportunity");
        Opportunities { times, period }
    }

    /// Opportunity times within one period, ns.
    pub fn times(&self) -> &[u64] {
        &self.times
    }

    /// Opportunities per period.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    pub fn period(&self) -> Time {
        self.period
    }

    /// The time of opportunity `n`, counted from 0 at the start of the run.
    pub fn time(&self, n: u64) -> Time {
        let len = self.times.len() as u64;
        (n / len) * self.period + self.times[(n % len) as usize]
    }

    /// The first opportunity strictly after `t`.
    pub fn first_after(&self, t: Time) -> u64 {
        let len = self.times.len() as u64;
        let k = t / self.period;
        let r = t - k * self.period;
        let i = self.times.partition_point(|&s| s <= r) as u64;
        // i == len: every opportunity of this period is at or before t; the next period's
        // first one is after it (its time is (k + 1) * period + times[0] >= (k + 1) * period > t).
        k * len + i
    }
}

/// Where the transmitter stands in an opportunity schedule: the next opportunity with
/// room, and the bytes already used of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cursor {
    pub next: u64,
    pub used: u32,
}

impl Opportunities {
    /// A packet of `wire` bytes that entered the queue at `arrival` starts at `now`: the
    /// time its last byte leaves, the cursor moved past it.
    pub fn send(&self, cursor: &mut Cursor, arrival: Time, wire: u32) -> Time {
        // Leftover bytes of a partly used opportunity serve only a packet that was queued
        // before that opportunity came; otherwise wait for the first one after the arrival.
        let leftover_usable = cursor.used > 0 && arrival < self.time(cursor.next);
        if !leftover_usable && (cursor.used > 0 || self.time(cursor.next) <= arrival) {
            *cursor = Cursor { next: self.first_after(arrival), used: 0 };
        }
        let mut need = wire + TUN_HEADER_BYTES;
        loop {
            let room = OPPORTUNITY_BYTES - cursor.used;
            let at = self.time(cursor.next);
            if need < room {
                cursor.used += need;
                return at;
            }
            need -= room;
            *cursor = Cursor { next: cursor.next + 1, used: 0 };
            if need == 0 {
                return at;
            }
        }
    }
}

/// How a rate series moves between its points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolate {
    Step,
    Linear,
}

/// A rate that varies with time and repeats.
#[derive(Clone, Debug, PartialEq)]
pub struct RateSeries {
    /// (time ns within the period, rate b/s); the first at 0, the last at the period.
    points: Vec<(u64, f64)>,
    interpolate: Interpolate,
    /// Per segment: its rate's slope (b/s per s; 0 for steps).
    slopes: Vec<f64>,
}

impl RateSeries {
    /// From checked points (the loader guarantees: first at 0, increasing times, rates
    /// >= 0, at least two points, some capacity in every period).
    pub fn new(points: Vec<(u64, f64)>, interpolate: Interpolate) -> Self {
        let slopes = (0..points.len().saturating_sub(1))
            .map(|i| match interpolate {
                Interpolate::Step => 0.0,
                Interpolate::Linear => (points[i + 1].1 - points[i].1) / ((points[i + 1].0 - points[i].0) as f64 / 1e9),
            })
            .collect();
        RateSeries { points, interpolate, slopes }
    }

    pub fn period(&self) -> Time {
        self.points.last().map_or(0, |p| p.0)
    }

    /// (time ns, rate b/s) points of one period.
    pub fn points(&self) -> &[(u64, f64)] {
        &self.points
    }

    pub fn interpolate(&self) -> Interpolate {
        self.interpolate
    }

    /// Rate at the start and end of segment `i` (b/s).
    fn ends(&self, i: usize) -> (f64, f64) {
        let r0 = self.points[i].1;
        match self.interpolate {
            Interpolate::Step => (r0, r0),
            Interpolate::Linear => (r0, self.points[i + 1].1),
        }
    }

    /// The rate at `t` (b/s), for traces of the available capacity.
    pub fn rate_at(&self, t: Time) -> f64 {
        let period = self.period();
        let r = t % period;
        let i = self.points.partition_point(|p| p.0 <= r).saturating_sub(1).min(self.points.len() - 2);
        let (t0, t1) = (self.points[i].0, self.points[i + 1].0);
        let (r0, r1) = self.ends(i);
        r0 + (r1 - r0) * (r - t0) as f64 / (t1 - t0) as f64
    }

    /// When `bits` sent from `start` on are through.
    pub fn finish(&self, start: Time, bits: f64) -> Time {
        self.finish_from(&mut Segment::default(), start, bits)
    }

    /// As `finish`, starting the search at `seg` (the segment the last transmission ended
    /// in: a transmitter moves forward through the series) and leaving it at the segment
    /// this one ends in.
    pub fn finish_from(&self, seg: &mut Segment, start: Time, bits: f64) -> Time {
        let period = self.period();
        let inside = |s: &Segment| s.i + 1 < self.points.len() && s.base + self.points[s.i].0 <= start && start < s.base + self.points[s.i + 1].0;
        if !inside(seg) {
            let next = if seg.i + 2 < self.points.len() { Segment { base: seg.base, i: seg.i + 1 } } else { Segment { base: seg.base + period, i: 0 } };
            *seg = if inside(&next) {
                next
            } else {
                let base = (start / period) * period;
                Segment { base, i: self.points.partition_point(|p| p.0 <= start - base).saturating_sub(1).min(self.points.len() - 2) }
            };
        }
        let Segment { mut base, mut i } = *seg;
        let mut t = start;
        let mut need = bits;
        loop {
            let (t0, t1) = (base + self.points[i].0, base + self.points[i + 1].0);
            let r0 = self.points[i].1;
            let slope = self.slopes[i]; // b/s per s
            let a = (t - t0) as f64 / 1e9;
            let ra = r0 + slope * a;
            let left = (t1 - t) as f64 / 1e9;
            // Bits this segment still carries from t: ra * left + slope * left^2 / 2.
            let room = ra * left + 0.5 * slope * left * left;
            // A relative allowance of 1e-9 keeps a packet that exactly fills the rest of
            // the segment in it (rounding would push it past a following outage).
            if room >= need * (1.0 - 1e-9) && room > 0.0 {
                // Solve ra * x + slope * x^2 / 2 = need (the stable root; linear when flat).
                let x = if slope == 0.0 { need / ra } else { 2.0 * need / (ra + (ra * ra + 2.0 * slope * need).max(0.0).sqrt()) };
                let dt = ceil_ns(x * 1e9);
                *seg = Segment { base, i };
                return (t + dt).clamp(t, t1);
            }
            need -= room.max(0.0);
            t = t1;
            i += 1;
            if i + 1 == self.points.len() {
                i = 0;
                base += period;
            }
        }
    }
}

/// `v.ceil() as Time` for v >= 0 without a call into libm's `ceil` (x86-64 without
/// SSE4.1 has no rounding instruction): the truncation, plus one if it lost a fraction.
#[inline]
fn ceil_ns(v: f64) -> Time {
    let t = v as Time;
    t + Time::from((t as f64) < v)
}

/// Where a transmitter stands in a rate series: the period's start and the segment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    base: Time,
    i: usize,
}

/// A direction's capacity when it does not run at a fixed rate.
#[derive(Clone, Debug, PartialEq)]
pub enum Capacity {
    Opportunities(std::sync::Arc<Opportunities>),
    Rates(std::sync::Arc<RateSeries>),
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = NS_PER_MS;

    fn opp(ms: &[u64]) -> Opportunities {
        Opportunities::from_ms(ms)
    }

    #[test]
    fn a_file_holding_one_is_an_opportunity_every_millisecond() {
        let o = opp(&[1]);
        assert_eq!((o.time(0), o.time(1), o.time(9)), (MS, 2 * MS, 10 * MS));
        assert_eq!(o.first_after(0), 0);
        assert_eq!(o.first_after(MS), 1, "an opportunity at the arrival time is not used");
        assert_eq!(o.first_after(MS + 1), 1);
        // A 1500-byte IP packet per opportunity.
        let mut c = Cursor::default();
        let done: Vec<Time> = (0..3).map(|_| o.send(&mut c, 0, 1500)).collect();
        assert_eq!(done, vec![MS, 2 * MS, 3 * MS]);
    }

    #[test]
    fn same_timestamp_lines_are_several_opportunities_and_the_file_loops() {
        let o = opp(&[0, 0, 5]);
        // Period 5 ms: opportunities at 0, 0, 5 | 5, 5, 10 | 10, 10, 15 ...
        let times: Vec<Time> = (0..7).map(|n| o.time(n)).collect();
        assert_eq!(times, vec![0, 0, 5 * MS, 5 * MS, 5 * MS, 10 * MS, 10 * MS]);
        assert_eq!(o.first_after(0), 2);
        assert_eq!(o.first_after(5 * MS), 5);
    }

    #[test]
    fn small_packets_share_an_opportunity_and_a_large_one_spans_two() {
        let o = opp(&[1]);
        let mut c = Cursor::default();
        // Three 40-byte ACKs queued at 0: 44 bytes each of 1504; all leave at 1 ms.
        for _ in 0..3 {
            assert_eq!(o.send(&mut c, 0, 40), MS);
        }
        assert_eq!(c, Cursor { next: 0, used: 132 });
        // A 1500-byte packet queued at 0 takes the 1372 bytes left and 132 of the next one.
        assert_eq!(o.send(&mut c, 0, 1500), 2 * MS);
        assert_eq!(c, Cursor { next: 1, used: 132 });
    }

    #[test]
    fn leftovers_serve_only_packets_queued_before_the_opportunity() {
        let o = opp(&[1]);
        let mut c = Cursor::default();
        assert_eq!(o.send(&mut c, 0, 100), MS);
        // Arrived at 1 ms exactly: the rest of the 1 ms opportunity is lost.
        assert_eq!(o.send(&mut c, MS, 100), 2 * MS);
        // Arrived at 5.5 ms to an idle link: the opportunities at 3, 4, 5 ms were lost.
        assert_eq!(o.send(&mut c, 5 * MS + MS / 2, 100), 6 * MS);
    }

    #[test]
    fn a_step_series_integrates_its_rate_and_wraps() {
        // 8 Mb/s for 1 s, then 0 for 1 s, repeating.
        let s = RateSeries::new(vec![(0, 8e6), (1_000_000_000, 0.0), (2_000_000_000, 0.0)], Interpolate::Step);
        // 1000 bytes at 8 Mb/s: 1 ms.
        assert_eq!(s.finish(0, 8000.0), MS);
        // Started 0.5 ms before the outage, the rest waits for the next period.
        assert_eq!(s.finish(999_500_000, 8000.0), 2_000_000_000 + 500_000);
        assert_eq!(s.rate_at(1_500_000_000), 0.0);
        // Back-to-back 1500-byte packets at 10 Mb/s fill the 3 s segment exactly: the
        // 2500th ends at 3 s, not after the next second's outage.
        let s = RateSeries::new(vec![(0, 10e6), (3_000_000_000, 0.0), (4_000_000_000, 0.0)], Interpolate::Step);
        let mut t = 0;
        for _ in 0..2500 {
            t = s.finish(t, 12_000.0);
        }
        assert!(t.abs_diff(3_000_000_000) <= 1, "{t}");
    }

    proptest::proptest! {
        #[test]
        fn ceil_ns_is_ceil(v in 0.0f64..1e15) {
            proptest::prop_assert_eq!(ceil_ns(v), v.ceil() as Time);
        }

        #[test]
        fn a_carried_segment_finds_the_same_finish_as_a_fresh_search(
            rates in proptest::collection::vec(0.0f64..20e6, 2..8),
            linear: bool,
            steps in proptest::collection::vec((0u64..3_000_000_000, 1.0f64..200_000.0), 1..60),
        ) {
            // Points every 0.5 s (some segments at rate 0), the last at the period; a
            // transmitter that moves forward (and sometimes jumps back in time: a new link).
            let mut points: Vec<(u64, f64)> = rates.iter().enumerate().map(|(k, &r)| (k as u64 * 500_000_000, r)).collect();
            points.push((rates.len() as u64 * 500_000_000, rates[0]));
            proptest::prop_assume!(rates.iter().any(|&r| r > 1e5));
            let s = RateSeries::new(points, if linear { Interpolate::Linear } else { Interpolate::Step });
            let mut seg = Segment::default();
            let mut t = 0;
            for (gap, bits) in steps {
                let start = if gap % 7 == 0 { gap } else { t + gap / 1000 };
                let carried = s.finish_from(&mut seg, start, bits);
                proptest::prop_assert_eq!(carried, s.finish(start, bits));
                t = carried;
            }
        }
    }

    #[test]
    fn a_linear_series_solves_the_quadratic() {
        // 0 to 2 Mb/s over 1 s: bits by time x = x^2 Mb.
        let s = RateSeries::new(vec![(0, 0.0), (1_000_000_000, 2e6)], Interpolate::Linear);
        assert_eq!(s.finish(0, 250_000.0), 500_000_000);
        assert!((s.rate_at(250_000_000) - 5e5).abs() < 1e-6);
    }
}
