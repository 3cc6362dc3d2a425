//! CUBIC in ns-3.44's integer arithmetic (`arithmetic = "ns3"`, the `ns3` profile):
//! `TcpCubic::IncreaseWindow`, `Update`, `PktsAcked`, `GetSsThresh` and `CubicReset`
//! (src/internet/model/tcp-cubic.cc), restated from their text, in whole segments.
//!
//! What differs from RFC 9438's real-valued window (and is the point of this mode):
//! - cwnd grows one segment once a counter of acknowledged segments reaches
//!   `cnt = segCwnd / (target - segCwnd)` (218-230, 311-319); the counter `m_cWndCnt` is
//!   never reset, so segments counted while cnt is large (`100 * segCwnd` at or above the
//!   target) are spent one segment per ACK once cnt falls;
//! - the target is `origin +/- (uint32)(C * |t - K|^3)` with t = now + the minimum of the
//!   smoothed RTTs it was handed (275; 363-366), the difference taken in uint32 (it wraps
//!   when the cubic term exceeds the origin);
//! - the Reno-friendly window `m_tcpCwnd` grows one segment per `(segCwnd * scale) >> 3`
//!   acknowledged segments, scale = (uint32)(8 (1024 + 1024 beta) / 3 / (1024 - 1024
//!   beta)), alpha fixed (326-343); cnt is at least 2 (348) and at most 20 while W_max
//!   is 0 (321-324: before the first loss, and after a timeout at one segment);
//! - ssthresh = max((uint32)(segCwnd * beta), 2) segments, W_max in whole segments
//!   (455-475); a timeout keeps W_max and clears the origin, K, the counters and the
//!   RTT minimum (CubicReset, 490-500), so the next stage starts from K of the old W_max
//!   (no RFC 9438 §4.8 K = 0).
//! The RTT ns-3 hands PktsAcked is the smoothed RTT of every ACK of new data (recovery
//! and the ACK that ends it included), as `cubic.rs` hands it here.
//! Growth waits while the sender's `Ctx::cwnd_limited` is false (187-192,
//! `m_isCwndLimited`; the `ns3` profile's `tcp.cwnd_limited = "ns3"` computes it as
//! SendDataPacket does), in slow start, avoidance and on the ACK that ends recovery.
//! Not reproduced (differences of the sender around it, effects untested):
//! - cwnd during PRR recovery: ns-3's TcpPrrRecovery writes cwnd = BytesInFlight +
//!   sendCount on every recovery ACK, so a timeout inside recovery cuts from that;
//!   wtcp's sender keeps PRR's window to itself and the algorithm sees ssthresh;
//! - an ACK that both advances SND.UNA and SACKs new data outside recovery is a
//!   duplicate to ns-3 (CA_DISORDER, no IncreaseWindow); wtcp grows on it;
//! - the exit span's remainder: ns-3 drops what is short of a whole segment, wtcp
//!   carries it to the next ACK.

use crate::api::{Time, NS_PER_SEC};

/// ns-3's `m_cntClamp` (tcp-cubic.cc CntClamp attribute default 20).
const CNT_CLAMP: u32 = 20;
/// ns-3's `m_cubicDelta` (CubicDelta attribute default 10 ms).
const CUBIC_DELTA: Time = 10_000_000;

/// ns-3.44 TcpCubic's integer state.
#[derive(Clone, Debug, Default)]
pub(super) struct Ns3Cubic {
    /// m_cWndCnt: acknowledged segments not yet turned into growth (never reset).
    cwnd_cnt: u32,
    /// m_ackCnt: acknowledged segments toward the Reno-friendly window.
    ack_cnt: u32,
    /// m_tcpCwnd: the Reno-friendly window (segments).
    tcp_cwnd: u32,
    /// m_lastMaxCwnd (segments).
    last_max: u32,
    /// m_bicOriginPoint (segments) and m_bicK (s).
    origin: u32,
    k: f64,
    /// m_epochStart.
    epoch_start: Option<Time>,
    /// m_delayMin: the least RTT handed to PktsAcked since the last reset.
    delay_min: Option<Time>,
}

impl Ns3Cubic {
    /// PktsAcked at `now`: the RTT ns-3 hands its congestion control (the smoothed RTT),
    /// ignored within m_cubicDelta (10 ms) of an epoch's start (357-360).
    pub(super) fn on_rtt(&mut self, now: Time, rtt: Time) {
        if self.epoch_start.is_some_and(|e| now.saturating_sub(e) < CUBIC_DELTA) {
            return;
        }
        self.delay_min = Some(self.delay_min.map_or(rtt, |m| m.min(rtt)));
    }

    /// IncreaseWindow in congestion avoidance, `segments` acknowledged (> 0), cwnd of
    /// `seg_cwnd` whole segments: true when cwnd grows by one segment.
    pub(super) fn on_ca_ack(&mut self, now: Time, segments: u32, seg_cwnd: u32, c: f64, beta: f64, friendly: bool) -> bool {
        self.cwnd_cnt = self.cwnd_cnt.saturating_add(segments);
        let cnt = self.update(now, segments, seg_cwnd, c, beta, friendly);
        if self.cwnd_cnt >= cnt {
            self.cwnd_cnt -= cnt;
            return true;
        }
        false
    }

    /// TcpCubic::Update: the number of acknowledged segments per one segment of growth.
    fn update(&mut self, now: Time, segments: u32, seg_cwnd: u32, c: f64, beta: f64, friendly: bool) -> u32 {
        self.ack_cnt = self.ack_cnt.saturating_add(segments);
        let epoch = match self.epoch_start {
            Some(e) => e,
            None => {
                self.epoch_start = Some(now);
                self.ack_cnt = segments;
                self.tcp_cwnd = seg_cwnd;
                if self.last_max <= seg_cwnd {
                    self.k = 0.0;
                    self.origin = seg_cwnd;
                } else {
                    self.k = (f64::from(self.last_max - seg_cwnd) / c).cbrt();
                    self.origin = self.last_max;
                }
                now
            }
        };
        let t = (now + self.delay_min.unwrap_or(0)).saturating_sub(epoch) as f64 / NS_PER_SEC;
        let offs = (t - self.k).abs();
        // `delta = m_c * pow(offs, 3)` into a uint32 (saturating where C++ would be undefined).
        let delta = (c * offs.powi(3)) as u32;
        let target = if t < self.k { self.origin.wrapping_sub(delta) } else { self.origin.wrapping_add(delta) };
        let mut cnt = if target > seg_cwnd { seg_cwnd / (target - seg_cwnd) } else { 100u32.saturating_mul(seg_cwnd) };
        if self.last_max == 0 && cnt > CNT_CLAMP {
            cnt = CNT_CLAMP;
        }
        if friendly {
            let scale = (8.0 * (1024.0 + beta * 1024.0) / 3.0 / (1024.0 - beta * 1024.0)) as u32;
            let per = (seg_cwnd.saturating_mul(scale)) >> 3;
            // `while (m_ackCnt > delta)` (330-334); per >= 1 whenever cwnd >= 1 segment.
            while per > 0 && self.ack_cnt > per {
                self.ack_cnt -= per;
                self.tcp_cwnd = self.tcp_cwnd.saturating_add(1);
            }
            if self.tcp_cwnd > seg_cwnd {
                cnt = cnt.min(seg_cwnd / (self.tcp_cwnd - seg_cwnd));
            }
        }
        cnt.max(2)
    }

    /// GetSsThresh at a cwnd of `seg_cwnd` segments: the new ssthresh in segments.
    pub(super) fn ssthresh(&mut self, seg_cwnd: u32, beta: f64, fast_convergence: bool) -> u32 {
        self.last_max = if seg_cwnd < self.last_max && fast_convergence {
            (f64::from(seg_cwnd) * (1.0 + beta) / 2.0) as u32
        } else {
            seg_cwnd
        };
        self.epoch_start = None;
        ((f64::from(seg_cwnd) * beta) as u32).max(2)
    }

    /// CubicReset, on entering CA_LOSS (a timeout).
    pub(super) fn reset(&mut self) {
        self.origin = 0;
        self.k = 0.0;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
        self.delay_min = None;
    }

    pub(super) fn last_max(&self) -> u32 {
        self.last_max
    }

    pub(super) fn k(&self) -> f64 {
        self.k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    #[test]
    fn reno_friendly_window_grows_one_segment_per_15_eighths_of_cwnd_acknowledged_segments() {
        // beta 0.7: scale = (uint32)(8 * 1740.8 / 3 / 307.2) = 15; cwnd 8: one per 15 segments.
        let mut n = Ns3Cubic { last_max: 8, ..Ns3Cubic::default() };
        n.on_rtt(0, 100 * MS);
        for i in 0..15 {
            n.update(i * MS, 1, 8, 0.4, 0.7, true);
        }
        assert_eq!(n.tcp_cwnd, 8, "ack_cnt 15 is not > 15");
        n.update(15 * MS, 1, 8, 0.4, 0.7, true);
        assert_eq!(n.tcp_cwnd, 9);
        assert_eq!(n.ack_cnt, 1);
    }

    #[test]
    fn ssthresh_is_whole_segments_and_fast_convergence_lowers_w_max() {
        let mut n = Ns3Cubic::default();
        assert_eq!(n.ssthresh(5, 0.7, true), 3, "(uint32)(5 * 0.7) = 3");
        assert_eq!(n.last_max(), 5);
        assert_eq!(n.ssthresh(4, 0.7, true), 2);
        assert_eq!(n.last_max(), 3, "(uint32)(4 * 1.7 / 2) = 3");
        assert_eq!(n.ssthresh(2, 0.7, true), 2, "floor of 2 segments");
    }

    #[test]
    fn counted_segments_are_kept_across_epochs_and_spent_one_growth_per_ack() {
        // At the origin (t = K) the target equals cwnd: cnt = 100 * cwnd, segments bank up.
        let mut n = Ns3Cubic { last_max: 10, ..Ns3Cubic::default() };
        n.on_rtt(0, 0);
        let mut grew = 0;
        for i in 0..200 {
            grew += u32::from(n.on_ca_ack(i * MS, 2, 10, 0.4, 0.7, false));
        }
        assert_eq!(grew, 0);
        assert_eq!(n.cwnd_cnt, 400);
        // A loss starts a new epoch below W_max (origin 10, K = 1.96 s). From 1 s into it
        // the target is 10 over a cwnd of 7: cnt = 7 / 3 = 2. With the bank every ACK of one
        // segment grows the window; a fresh counter grows on every second one.
        assert_eq!(n.ssthresh(10, 0.7, true), 7);
        let mut fresh = Ns3Cubic { last_max: 10, ..Ns3Cubic::default() };
        fresh.on_rtt(0, 0);
        for m in [&mut n, &mut fresh] {
            m.on_ca_ack(1_000 * MS, 1, 7, 0.4, 0.7, false);
        }
        let grows = |m: &mut Ns3Cubic| (1..=10).map(|i| u32::from(m.on_ca_ack(2_000 * MS + i * MS, 1, 7, 0.4, 0.7, false))).sum::<u32>();
        assert_eq!(grows(&mut n), 10);
        assert_eq!(grows(&mut fresh), 5);
    }

    #[test]
    fn timeout_reset_keeps_w_max_and_clears_the_origin() {
        let mut n = Ns3Cubic::default();
        n.on_rtt(0, 50 * MS);
        n.ssthresh(20, 0.7, true);
        n.on_ca_ack(0, 1, 14, 0.4, 0.7, true);
        n.reset();
        assert_eq!((n.origin, n.k, n.tcp_cwnd, n.delay_min), (0, 0.0, 0, None));
        assert_eq!(n.last_max(), 20);
    }
}
