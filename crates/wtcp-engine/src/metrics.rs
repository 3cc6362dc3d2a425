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
