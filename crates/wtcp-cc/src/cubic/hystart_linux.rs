//! HyStart as Linux's tcp_cubic.c ships it (Ha and Rhee, "Taming the elephants: New TCP
//! slow start", Computer Networks 55(9), 2011; Linux 6.x `hystart_update`,
//! `bictcp_hystart_reset`, `cubictcp_acked`), `hystart_variant = "linux"`.
//!
//! In slow start, until it has fired, every RTT sample first starts a new round if SND.UNA
//! has passed the SND.NXT recorded at the round's start; then, once cwnd >= 16 segments
//! (`hystart_low_window`), it feeds two detectors, and the first to fire sets ssthresh =
//! cwnd (slow start ends):
//! - ACK train: ACKs no more than 2 ms apart (`hystart_ack_delta_us`) extend the train;
//!   once the train reaches (delay_min + ack_delay) / 2 past the round's start, the window
//!   holds a path's worth of data (halved when the flow is not paced; ack_delay =
//!   min(1 ms, 4 * GSO size / pacing rate), `hystart_ack_delay`).
//! - Delay increase: the round's minimum RTT over its first 8 samples
//!   (`HYSTART_MIN_SAMPLES`) exceeds delay_min + clamp(delay_min / 8, 4 ms, 16 ms).
//!
//! delay_min is the smallest RTT sample since the algorithm started or the last timeout;
//! samples within a second of the start of a congestion-avoidance epoch are discarded
//! (`cubictcp_acked`). A timeout clears everything (`bictcp_reset` zeroes delay_min and
//! `found`, CA_Loss in `cubictcp_state`), so HyStart runs again in the slow start after
//! it; once it has fired, no other event re-arms it.
//!
//! Read from Linux 6.x: since 4e1fddc98d25 (2021) rounds reset only in `hystart_update`,
//! not in `cubictcp_cong_avoid`, and since 25c1a9ca53db (2025) that reset comes before the
//! low-window test, so rounds follow SND.UNA below 16 segments too.
//!
//! Deviations and ambiguities resolved:
//! - The RTT sample is the ACK's sample as the sender's `tcp.rtt_sampling` takes it (the
//!   `linux` profile: every ACK, from the timestamp echo when timestamps are on). Linux
//!   feeds `ca_rtt_us`, the RTT of the most recently sent segment the ACK newly delivers
//!   (tcp_input.c tcp_clean_rtx_queue), SACKed segments included (`last_sackt`), so
//!   Linux also samples duplicate ACKs that SACK new data, which carry no sample here; with
//!   delayed ACKs the two samples differ by up to one segment's spacing at the sender, in
//!   delay_min and in the round minimum alike (effect untested).
//! - The pacing rate behind ack_delay is Linux's default one (tcp_update_pacing_rate:
//!   mss * max(cwnd, in flight) / srtt, times 2 while cwnd < ssthresh / 2, else 1.2; in
//!   flight taken as cwnd, the current ACK's cwnd where Linux's rate is one ACK older), and
//!   the GSO size 65536 bytes (GSO_LEGACY_MAX_SIZE, a TUN or veth device's default; Linux's
//!   `sk_gso_max_size` is somewhat less): below about 2 Gb/s ack_delay is 1 ms either way.
//! - Time is wtcp's nanosecond clock in microseconds where Linux reads tcp_clock_us(); the
//!   epoch test is in seconds (one HZ of jiffies).

use crate::api::{Time, NS_PER_SEC};

/// hystart_low_window: segments.
const LOW_WINDOW: f64 = 16.0;
/// hystart_ack_delta_us.
const ACK_DELTA_US: u64 = 2000;
/// HYSTART_MIN_SAMPLES.
const MIN_SAMPLES: u32 = 8;
/// HYSTART_DELAY_MIN / HYSTART_DELAY_MAX, us.
const DELAY_MIN_US: u64 = 4000;
const DELAY_MAX_US: u64 = 16000;
/// GSO_LEGACY_MAX_SIZE, bytes.
const GSO_MAX_SIZE: f64 = 65536.0;

/// What the detectors need to know about the sender at one ACK.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sample {
    pub now: Time,
    pub rtt: Time,
    /// cwnd and ssthresh in segments (ssthresh infinite before any).
    pub cwnd: f64,
    pub ssthresh: f64,
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// The flow is paced (Linux: sk_pacing_status != SK_PACING_NONE).
    pub paced: bool,
    /// The sender's smoothed RTT and MSS, for the default pacing rate.
    pub srtt: Option<Time>,
    pub mss: f64,
    /// Within a second of a congestion-avoidance epoch's start.
    pub fresh_epoch: bool,
}

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LinuxHyStart {
    /// Slow start has been ended by HyStart (`found`).
    found: bool,
    /// delay_min, us (0: none yet).
    delay_min_us: u64,
    /// round_start and last_ack, us.
    round_start_us: u64,
    last_ack_us: u64,
    /// end_seq: SND.NXT at the round's start.
    end_seq: u64,
    /// curr_rtt: the round's minimum sample, us (None: ~0U).
    curr_rtt_us: Option<u64>,
    sample_cnt: u32,
}

fn us(t: Time) -> u64 {
    t / 1000
}

impl LinuxHyStart {
    /// bictcp_hystart_reset: a new round.
    pub(super) fn reset_round(&mut self, now: Time, snd_nxt: u64) {
        self.round_start_us = us(now);
        self.last_ack_us = us(now);
        self.end_seq = snd_nxt;
        self.curr_rtt_us = None;
        self.sample_cnt = 0;
    }

    /// bictcp_reset and bictcp_hystart_reset: at the start and on a timeout.
    pub(super) fn reset(&mut self, now: Time, snd_nxt: u64) {
        self.found = false;
        self.delay_min_us = 0;
        self.reset_round(now, snd_nxt);
    }

    /// cubictcp_acked: one RTT sample; true when slow start ends here (ssthresh = cwnd).
    pub(super) fn on_rtt(&mut self, s: &Sample) -> bool {
        if s.fresh_epoch {
            return false;
        }
        let delay = us(s.rtt).max(1);
        if self.delay_min_us == 0 || delay < self.delay_min_us {
            self.delay_min_us = delay;
        }
        if self.found || s.cwnd >= s.ssthresh {
            return false;
        }
        self.update(s, delay)
    }

    /// hystart_update.
    fn update(&mut self, s: &Sample, delay: u64) -> bool {
        if s.snd_una > self.end_seq {
            self.reset_round(s.now, s.snd_nxt);
        }
        if s.cwnd < LOW_WINDOW {
            return false;
        }
        let now = us(s.now);
        // ACK train.
        if now.saturating_sub(self.last_ack_us) <= ACK_DELTA_US {
            self.last_ack_us = now;
            let mut threshold = self.delay_min_us + self.ack_delay_us(s);
            if !s.paced {
                threshold >>= 1;
            }
            if now.saturating_sub(self.round_start_us) > threshold {
                self.found = true;
                return true;
            }
        }
        // Delay increase.
        self.curr_rtt_us = Some(self.curr_rtt_us.map_or(delay, |c| c.min(delay)));
        if self.sample_cnt < MIN_SAMPLES {
            self.sample_cnt += 1;
        } else if self.curr_rtt_us.is_some_and(|c| c > self.delay_min_us + (self.delay_min_us >> 3).clamp(DELAY_MIN_US, DELAY_MAX_US)) {
            self.found = true;
            return true;
        }
        false
    }

    /// hystart_ack_delay: min(1 ms, 4 * GSO size / pacing rate), 0 without a rate.
    fn ack_delay_us(&self, s: &Sample) -> u64 {
        let Some(srtt) = s.srtt.filter(|&r| r > 0) else { return 0 };
        let ratio = if s.cwnd < s.ssthresh / 2.0 { 2.0 } else { 1.2 };
        let rate = s.mss * s.cwnd * ratio / (srtt as f64 / NS_PER_SEC);
        (4.0 * GSO_MAX_SIZE * 1e6 / rate).min(1000.0) as u64
    }

    pub(super) fn found(&self) -> bool {
        self.found
    }

    pub(super) fn delay_min_s(&self) -> f64 {
        self.delay_min_us as f64 / 1e6
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;
    const US: Time = 1_000;

    fn sample(now: Time, rtt: Time, cwnd: f64) -> Sample {
        Sample { now, rtt, cwnd, ssthresh: f64::INFINITY, snd_una: 0, snd_nxt: 1_000_000, paced: false, srtt: Some(100 * MS), mss: 1448.0, fresh_epoch: false }
    }

    /// The first of `times` (us) at which a flat-RTT sample fires, if any.
    fn first_firing(h: &mut LinuxHyStart, times: impl Iterator<Item = u64>, rtt: Time, cwnd: f64) -> Option<u64> {
        times.into_iter().find(|&t| h.on_rtt(&sample(t * US, rtt, cwnd)))
    }

    #[test]
    fn the_ack_train_fires_past_half_of_delay_min_plus_the_ack_delay() {
        // delay_min 100 ms, ACKs 0.5 ms apart from the round's start at 0: the threshold is
        // (100 + 1) / 2 = 50.5 ms, passed strictly, so the ACK at 51.0 ms fires (50.5 ms
        // without the 1 ms ack delay, or with >=; 100.5 ms without the halving).
        let mut h = LinuxHyStart::default();
        h.reset(0, 1_000_000);
        assert_eq!(first_firing(&mut h, (1..=400).map(|k| k * 500), 100 * MS, 20.0), Some(51_000));
        assert!(h.found());
        // Paced: not halved, 101 ms.
        let mut h = LinuxHyStart::default();
        h.reset(0, 1_000_000);
        let fired = (1..=400u64).map(|k| k * 500).find(|&t| h.on_rtt(&Sample { paced: true, ..sample(t * US, 100 * MS, 20.0) }));
        assert_eq!(fired, Some(101_500));
    }

    #[test]
    fn a_gap_in_the_train_stops_it_and_small_windows_are_not_watched() {
        let mut h = LinuxHyStart::default();
        h.reset(0, 1_000_000);
        // ACKs 3 ms apart never extend the train, and the RTT stays at delay_min.
        assert_eq!(first_firing(&mut h, (1..=60).map(|k| k * 3000), 100 * MS, 20.0), None);
        // Below 16 segments nothing fires, however long the train.
        let mut h = LinuxHyStart::default();
        h.reset(0, 1_000_000);
        assert_eq!(first_firing(&mut h, (1..=200).map(|k| k * 1000), 100 * MS, 15.0), None);
    }

    #[test]
    fn rounds_follow_snd_una_below_the_low_window_too() {
        // A round ends at 1 ms while cwnd is 10: Linux 6.x resets it there (round start and
        // last ACK at 1 ms). At 16 segments from 6 ms the ACKs are then more than 2 ms past
        // the train's last ACK, so no train forms in that round; with the reset after the
        // low-window test (before 2025) the round would start at 6 ms and fire at 57 ms.
        let mut h = LinuxHyStart::default();
        h.reset(0, 1000);
        let past = Sample { snd_una: 2000, snd_nxt: 10_000_000, ..sample(MS, 100 * MS, 10.0) };
        assert!(!h.on_rtt(&past));
        for t in 2..=5u64 {
            assert!(!h.on_rtt(&Sample { snd_una: 2000, ..sample(t * MS, 100 * MS, 10.0) }));
        }
        let fired = (6..=80u64).find(|&t| h.on_rtt(&Sample { snd_una: 3000, ..sample(t * MS, 100 * MS, 16.0) }));
        assert_eq!(fired, None);
    }

    #[test]
    fn a_rise_of_the_rounds_minimum_rtt_fires_on_the_ninth_sample() {
        let mut h = LinuxHyStart::default();
        h.reset(0, 1_000_000);
        // delay_min 40 ms; the threshold is 40 + clamp(40 / 8, 4, 16) = 45 ms. ACKs 3 ms
        // apart (no train). A round of samples at 45.1 ms (0.1 ms above it): the first 8
        // are only counted, the 9th is tested and fires.
        assert!(!h.on_rtt(&sample(3 * MS, 40 * MS, 10.0)));
        let rtt = 45 * MS + 100 * US;
        let new_round = Sample { snd_una: 2_000_000, snd_nxt: 3_000_000, ..sample(6 * MS, rtt, 20.0) };
        assert!(!h.on_rtt(&new_round));
        let fired: Vec<bool> = (3..=10u64).map(|k| h.on_rtt(&sample(3 * k * MS, rtt, 20.0))).collect();
        assert_eq!(fired, [false, false, false, false, false, false, false, true]);
        // At 45.0 ms (not above the threshold) it would not have.
        let mut h = LinuxHyStart::default();
        h.reset(0, 1_000_000);
        h.on_rtt(&sample(3 * MS, 40 * MS, 10.0));
        assert_eq!(first_firing(&mut h, (2..=20).map(|k| 3000 * k), 45 * MS, 20.0), None);
    }

    #[test]
    fn once_fired_it_stays_off_until_a_reset() {
        let mut h = LinuxHyStart::default();
        h.reset(0, 1_000_000);
        assert!(first_firing(&mut h, (1..=200).map(|k| k * 1000), 100 * MS, 20.0).is_some());
        // A later slow start (cwnd below ssthresh again, e.g. after a recovery): off.
        assert_eq!(first_firing(&mut h, (300..=600).map(|k| k * 1000), 100 * MS, 20.0), None);
        // A timeout resets it: it fires again.
        h.reset(700 * MS, 2_000_000);
        assert!(first_firing(&mut h, (701..=900).map(|k| k * 1000), 100 * MS, 20.0).is_some());
    }

    #[test]
    fn samples_right_after_an_epoch_starts_are_discarded_and_a_timeout_clears_delay_min() {
        let mut h = LinuxHyStart::default();
        h.reset(0, 0);
        let mut s = sample(MS, 30 * MS, 10.0);
        s.fresh_epoch = true;
        h.on_rtt(&s);
        assert_eq!(h.delay_min_s(), 0.0);
        h.on_rtt(&sample(2 * MS, 30 * MS, 10.0));
        assert_eq!(h.delay_min_s(), 0.03);
        h.reset(3 * MS, 0);
        assert_eq!(h.delay_min_s(), 0.0);
    }
}
