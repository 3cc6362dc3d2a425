//! Per-flow counters and the ground-truth record of every segment's fate.
//!
//! The [`Oracle`] sees what the sender cannot: which transmission of a segment was
//! dropped where, and whether any copy reached the receiver. It classifies each fast
//! retransmit and timeout exactly as the dynamic-responding paper does: by the fate of
//! the segment that triggered it (dropped by a queue: congestion; by the channel or an
//! outage: wireless; not dropped at all: spurious).

use std::collections::VecDeque;

use serde::Serialize;

use crate::net::DropCause;

/// Ground-truth cause of a fast retransmit or timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossCause {
    Congestion,
    Wireless,
    Spurious,
}

impl LossCause {
    pub fn as_str(self) -> &'static str {
        match self {
            LossCause::Congestion => "congestion",
            LossCause::Wireless => "wireless",
            LossCause::Spurious => "spurious",
        }
    }
}

/// Counts of loss events by ground-truth cause.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CauseCounts {
    pub congestion: u64,
    pub wireless: u64,
    pub spurious: u64,
}

impl CauseCounts {
    pub fn add(&mut self, c: LossCause) {
        match c {
            LossCause::Congestion => self.congestion += 1,
            LossCause::Wireless => self.wireless += 1,
            LossCause::Spurious => self.spurious += 1,
        }
    }
}

/// Counts of the algorithm's own loss verdicts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct VerdictCounts {
    pub congestion: u64,
    pub wireless: u64,
    pub none: u64,
}

impl VerdictCounts {
    pub fn add(&mut self, v: wtcp_cc::Verdict) {
        match v {
            wtcp_cc::Verdict::Congestion => self.congestion += 1,
            wtcp_cc::Verdict::Wireless => self.wireless += 1,
            wtcp_cc::Verdict::None => self.none += 1,
        }
    }
}

/// The algorithm's verdicts split by the ground-truth cause of each loss event: the
/// confusion matrix of a loss classifier (rows: truth, columns: verdict).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct VerdictsByCause {
    pub congestion: VerdictCounts,
    pub wireless: VerdictCounts,
    pub spurious: VerdictCounts,
}

impl VerdictsByCause {
    pub fn add(&mut self, cause: LossCause, verdict: wtcp_cc::Verdict) {
        match cause {
            LossCause::Congestion => self.congestion.add(verdict),
            LossCause::Wireless => self.wireless.add(verdict),
            LossCause::Spurious => self.spurious.add(verdict),
        }
    }

    /// Verdicts whatever the cause.
    pub fn totals(&self) -> VerdictCounts {
        let rows = [self.congestion, self.wireless, self.spurious];
        VerdictCounts {
            congestion: rows.iter().map(|r| r.congestion).sum(),
            wireless: rows.iter().map(|r| r.wireless).sum(),
            none: rows.iter().map(|r| r.none).sum(),
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Fate {
    /// Number of the latest transmission (1 = original).
    last_tx: u32,
    /// Cause of the drop of the latest transmission, if it was dropped.
    last_drop: Option<DropCause>,
    /// Some transmission reached the receiver.
    delivered: bool,
}

/// Fate of every segment from SND.UNA up, indexed by segment number (seq / MSS).
#[derive(Debug)]
pub struct Oracle {
    mss: u64,
    /// Segment number of `fates[0]`.
    base: u64,
    fates: VecDeque<Fate>,
}

impl Oracle {
    pub fn new(mss: u32) -> Self {
        Oracle { mss: u64::from(mss), base: 0, fates: VecDeque::new() }
    }

    fn slot(&mut self, seq: u64) -> Option<&mut Fate> {
        let k = seq / self.mss;
        if k < self.base {
            return None;
        }
        let i = (k - self.base) as usize;
        if i >= self.fates.len() {
            self.fates.resize(i + 1, Fate::default());
        }
        self.fates.get_mut(i)
    }

    /// A transmission of the segment at `seq` leaves the sender. Returns true when an
    /// earlier copy had already reached the receiver (an unnecessary retransmission).
    pub fn on_send(&mut self, seq: u64, tx_no: u32) -> bool {
        match self.slot(seq) {
            Some(f) => {
                f.last_tx = tx_no;
                f.last_drop = None;
                f.delivered && tx_no > 1
            }
            None => false,
        }
    }

    pub fn on_drop(&mut self, seq: u64, tx_no: u32, cause: DropCause) {
        if let Some(f) = self.slot(seq) {
            if f.last_tx == tx_no {
                f.last_drop = Some(cause);
            }
        }
    }

    pub fn on_delivered(&mut self, seq: u64) {
        if let Some(f) = self.slot(seq) {
            f.delivered = true;
        }
    }

    /// The cumulative ACK reached `ack`: forget the segments below it.
    pub fn advance(&mut self, ack: u64) {
        let k = ack / self.mss;
        while self.base < k {
            self.fates.pop_front();
            self.base += 1;
        }
    }

    /// Why the segment at `seq` is being retransmitted, by its latest transmission's fate.
    pub fn cause_of(&mut self, seq: u64) -> LossCause {
        match self.slot(seq) {
            Some(f) if !f.delivered => match f.last_drop {
                Some(DropCause::Queue) => LossCause::Congestion,
                Some(DropCause::Channel) | Some(DropCause::Outage) => LossCause::Wireless,
                None => LossCause::Spurious,
            },
            _ => LossCause::Spurious,
        }
    }
}

/// Counters of one TCP flow's sender.
#[derive(Clone, Debug, Default)]
pub struct TcpCounters {
    pub segments_sent: u64,
    pub retransmitted_segments: u64,
    pub unnecessary_retransmissions: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub max_backoff: u32,
    pub fast_retransmit_causes: CauseCounts,
    pub timeout_causes: CauseCounts,
    pub verdicts: VerdictsByCause,
    /// Timeouts F-RTO declared spurious.
    pub frto_spurious: u64,
    /// MAC retry-limit hints delivered to the sender.
    pub mac_hints: u64,
    /// ACKs whose first SACK block was a D-SACK (RFC 2883): a segment arrived twice.
    pub dsacks: u64,
    /// Tail loss probes sent (RFC 8985 §7).
    pub loss_probes: u64,
    /// SYNs sent (the first and its retransmissions; 0 without the handshake).
    pub syns_sent: u64,
    /// Seconds from the first SYN to the SYN-ACK.
    pub handshake_s: Option<f64>,
    /// When the receiver held the last byte of a finite transfer in order.
    pub completed_at: Option<crate::time::Time>,
    /// IP-level bytes of data segments the source put on the wire: counted once per copy
    /// when the source's link finishes its first transmission or its 802.11 station is done
    /// with the frame (payload + headers, retransmissions included, link-layer retries not;
    /// counted by the simulation loop).
    pub bytes_sent: u64,
    /// Integral of SRTT over time (ns * ns) and the time it covers, for the mean SRTT.
    pub srtt_area: f64,
    pub srtt_span: u64,
    /// Inside the measurement window (the delay histograms record only then).
    pub measuring: bool,
    /// One-way delay of the data segments that reached the receiver (each copy from its
    /// own transmission), and the sender's RTT samples, in the measurement window.
    pub one_way: DelayHistogram,
    pub rtt: DelayHistogram,
}

/// Jain's fairness index (Jain, Chiu, Hawe 1984): (sum x)^2 / (n * sum x^2).
pub fn jain_index(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    if sq == 0.0 {
        return None;
    }
    Some(sum * sum / (xs.len() as f64 * sq))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_bounds() {
        assert_eq!(jain_index(&[1.0, 1.0, 1.0, 1.0]), Some(1.0));
        assert_eq!(jain_index(&[1.0, 0.0, 0.0, 0.0]), Some(0.25));
        assert_eq!(jain_index(&[]), None);
        let j = jain_index(&[3.0, 1.0]).unwrap();
        assert!((j - 16.0 / 20.0).abs() < 1e-12);
    }

    #[test]
    fn verdicts_by_cause_is_a_confusion_matrix_whose_columns_sum_to_the_verdicts() {
        use wtcp_cc::Verdict;
        let mut m = VerdictsByCause::default();
        m.add(LossCause::Wireless, Verdict::Wireless);
        m.add(LossCause::Wireless, Verdict::Congestion);
        m.add(LossCause::Congestion, Verdict::Congestion);
        m.add(LossCause::Spurious, Verdict::None);
        assert_eq!(m.wireless, VerdictCounts { congestion: 1, wireless: 1, none: 0 });
        assert_eq!(m.congestion, VerdictCounts { congestion: 1, wireless: 0, none: 0 });
        assert_eq!(m.totals(), VerdictCounts { congestion: 2, wireless: 1, none: 1 });
    }

    #[test]
    fn oracle_classifies_by_the_latest_transmission() {
        let mut o = Oracle::new(1000);
        o.on_send(0, 1);
        o.on_drop(0, 1, DropCause::Queue);
        assert_eq!(o.cause_of(0), LossCause::Congestion);
        o.on_send(0, 2); // retransmitted, in flight
        assert_eq!(o.cause_of(0), LossCause::Spurious);
        o.on_drop(0, 2, DropCause::Channel);
        assert_eq!(o.cause_of(0), LossCause::Wireless);
        o.on_send(1000, 1);
        o.on_delivered(1000);
        assert_eq!(o.cause_of(1000), LossCause::Spurious);
        // A retransmission of a delivered segment is unnecessary.
        assert!(o.on_send(1000, 2));
        o.advance(2000);
        assert_eq!(o.cause_of(0), LossCause::Spurious); // below SND.UNA: forgotten
    }

    #[test]
    fn a_stale_drop_does_not_overwrite_a_newer_transmission() {
        let mut o = Oracle::new(1000);
        o.on_send(0, 1);
        o.on_send(0, 2);
        o.on_drop(0, 1, DropCause::Queue);
        assert_eq!(o.cause_of(0), LossCause::Spurious);
    }
}

/// Delays (ns) in buckets of HdrHistogram's kind: exact below 64 ns, then 64 linear
/// sub-buckets per power of two, each at most 1/64 of its lower bound wide. A percentile,
/// reported at its bucket's middle (clamped to the exact minimum and maximum), is within
/// 0.8 % of the exact nearest-rank percentile; the mean is exact (an integer sum). The
/// bucket is found with integer operations (no logarithm per sample); the counters grow
/// to the largest delay seen (about 1350 four-byte counters up to 100 ms, 2240 up to
/// 1000 s), never per sample.
#[derive(Clone, Debug, Default)]
pub struct DelayHistogram {
    counts: Vec<u32>,
    zeros: u64,
    n: u64,
    sum_ns: u128,
    min: u64,
    max: u64,
}

/// Sub-buckets per power of two (2^SUB_BITS).
const SUB_BITS: u32 = 6;

impl DelayHistogram {
    fn bucket(ns: u64) -> usize {
        if ns < 1 << SUB_BITS {
            return ns as usize;
        }
        let e = 63 - ns.leading_zeros(); // ns in [2^e, 2^(e+1))
        let shift = e - SUB_BITS;
        (((shift + 1) << SUB_BITS) as u64 + ((ns >> shift) & ((1 << SUB_BITS) - 1))) as usize
    }

    /// The bucket's bounds [lo, hi).
    fn bounds(b: usize) -> (f64, f64) {
        let sub = 1usize << SUB_BITS;
        if b < sub {
            return (b as f64, b as f64 + 1.0);
        }
        let shift = (b >> SUB_BITS) as i32 - 1;
        let m = (b & (sub - 1)) as f64 + sub as f64;
        let w = 2f64.powi(shift);
        (m * w, (m + 1.0) * w)
    }

    pub fn record(&mut self, ns: u64) {
        if ns == 0 {
            // Most packets on an uncongested hop never wait: counted without touching the
            // bucket array (kept in its own counter, bucket 0 at read time).
            self.zeros += 1;
            self.min = 0;
            self.n += 1;
            return;
        }
        let b = Self::bucket(ns);
        if b >= self.counts.len() {
            self.counts.resize(b + 1, 0);
        }
        // Saturates after 4.3e9 samples in one bucket (then the percentiles lean high).
        self.counts[b] = self.counts[b].saturating_add(1);
        if self.n == self.zeros {
            (self.min, self.max) = (if self.zeros > 0 { 0 } else { ns }, ns);
        } else {
            self.min = self.min.min(ns);
            self.max = self.max.max(ns);
        }
        self.n += 1;
        self.sum_ns += u128::from(ns);
    }

    /// Mean, ns (None without samples).
    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum_ns as f64 / self.n as f64)
    }

    /// The nearest-rank `q` quantile (0 < q <= 1), ns, within 0.8 % (None without samples).
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        if rank <= self.zeros {
            return Some(0.0);
        }
        let mut seen = self.zeros;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += u64::from(c);
            if seen >= rank {
                let (lo, hi) = Self::bounds(b);
                let mid = if b < 1 << SUB_BITS { lo } else { (lo + hi) / 2.0 };
                return Some(mid.clamp(self.min as f64, self.max as f64));
            }
        }
        Some(self.max as f64)
    }
}

#[cfg(test)]
mod delay_tests {
    use super::DelayHistogram;

    #[test]
    fn percentiles_are_within_one_percent_of_the_exact_ones_and_the_mean_is_exact() {
        let mut h = DelayHistogram::default();
        let mut xs: Vec<u64> = (0..10_000u64).map(|i| 2_000_000 + (i * i * 37) % 900_000_000).collect();
        for &x in &xs {
            h.record(x);
        }
        xs.sort_unstable();
        for q in [0.01, 0.5, 0.95, 0.99, 1.0] {
            let exact = xs[((q * xs.len() as f64).ceil() as usize).clamp(1, xs.len()) - 1] as f64;
            let got = h.quantile(q).unwrap();
            assert!((got / exact - 1.0).abs() <= 0.01, "q {q}: {got} vs {exact}");
        }
        let mean = xs.iter().map(|&x| x as f64).sum::<f64>() / xs.len() as f64;
        assert!((h.mean().unwrap() - mean).abs() < 1e-6 * mean);
        assert_eq!(h.quantile(1.0).unwrap(), *xs.last().unwrap() as f64);
        assert_eq!(DelayHistogram::default().quantile(0.5), None);
    }
}

#[cfg(test)]
mod delay_properties {
    use super::DelayHistogram;
    use proptest::prelude::*;

    proptest! {
        /// Any delays from 0 to 100 s: every percentile within 0.8 % of the brute-force
        /// nearest-rank one (exact below 64 ns and at the extremes), the mean exact.
        #[test]
        fn percentiles_match_brute_force(xs in prop::collection::vec(0u64..100_000_000_000, 1..400), q in 0.001f64..1.0) {
            let mut h = DelayHistogram::default();
            for &x in &xs {
                h.record(x);
            }
            let mut sorted = xs.clone();
            sorted.sort_unstable();
            let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
            let exact = sorted[rank - 1] as f64;
            let got = h.quantile(q).unwrap();
            prop_assert!((got / exact.max(1.0) - 1.0).abs() <= 0.008 || got == exact, "{} vs {}", got, exact);
            let mean = xs.iter().map(|&x| x as f64).sum::<f64>() / xs.len() as f64;
            prop_assert!((h.mean().unwrap() - mean).abs() <= 1e-9 * mean.max(1.0));
        }
    }
}
