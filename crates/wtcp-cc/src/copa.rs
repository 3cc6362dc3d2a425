//! Copa: V. Arun, H. Balakrishnan, "Copa: Practical Delay-Based Congestion Control for the
//! Internet", USENIX NSDI 2018.
//!
//! Copa steers the window toward a target rate 1/(delta * d_q) packets per second, d_q the
//! queueing delay (RTTstanding, the smallest RTT of the last srtt/2, minus RTTmin, the
//! smallest of the last 10 s): per acknowledged packet cwnd grows by v/(delta * cwnd)
//! packets when the current rate cwnd/RTTstanding is at or below the target and shrinks by
//! as much above it; the velocity v doubles once the direction has stayed the same for
//! three RTTs. Slow start doubles cwnd once per RTT until the rate first exceeds the target.
//! Packets are paced at 2 * cwnd / RTTstanding. With buffer-filling competitors the queue
//! never drains: Copa then switches to competitive mode, where 1/delta grows by one per
//! RTT and halves on a loss (AIMD on 1/delta).
//!
//! The paper's text is not among this project's sources; its algorithm is read from two
//! implementations that cite it: Meta's mvfst `quic/congestion_control/Copa.cpp` (the
//! default mode: filters, target and current rate, velocity, slow start, pacing; cited
//! "mvfst") and the authors' genericCC `markoviancc.cc` and `rtt-window.cc` (the mode
//! switch and delta's AIMD, `auto:0.5`; cited "genericCC").
//!
//! Deviations and ambiguities resolved:
//! - d_q = RTTstanding - RTTmin, as the paper's summary and genericCC; mvfst by default
//!   takes the latest RTT sample minus RTTmin for d_q (its `copaUseRttStanding` off) and
//!   RTTstanding only for the current rate.
//! - The window changes by (acknowledged segments) * MSS^2 * v / (delta * cwnd) bytes per
//!   ACK (mvfst: per acknowledged packet), so delayed ACKs do not halve the rate of change.
//! - Velocity (mvfst checkAndUpdateDirection, changeDirection): once at least an SRTT has
//!   passed since the last record, the direction is "up" if cwnd grew since then, else
//!   "down"; the same direction again counts, and from the third on v doubles; a change
//!   resets v to 1. Also as mvfst: an ACK whose decision opposes the current direction
//!   while v > 1 resets v to 1 at once. Not updated while slow start grows the window.
//!   v is capped at max(1, delta * cwnd in segments), so one RTT's change never exceeds the
//!   window (genericCC halves its step above that bound; mvfst has none).
//! - Slow start doubles cwnd on the first ACK at least one SRTT after the last doubling
//!   (mvfst: strictly more than one SRTT) and ends at the first decrease.
//! - Mode switch (genericCC RTTWindow::is_copa): default mode while the smallest RTT of the
//!   last `mode_window_rtts` = 4 SRTTs is below RTTmin + 0.1 * (largest RTT of those 4 SRTTs
//!   - RTTmin) (the queue drained at least once), competitive mode otherwise. genericCC
//!   compares with "<", which calls a constant RTT (an empty queue: the largest equals
//!   RTTmin) competitive; "<=" here. genericCC's windows use its own SRTT (gain 1/16); here
//!   the sender's (RFC 6298, gain 1/8).
//! - Competitive mode (genericCC update_delta): on a loss delta doubles (1/delta halves),
//!   else once per RTT (the latest sample) 1/delta += 1, counted from the last ACK in
//!   default mode; delta never exceeds the default; back in default mode delta is the
//!   default (0.5). genericCC doubles on every ACK that reveals a loss (its once-per-RTT
//!   guard compares with an RTT of 0); wtcp's sender reports one loss per recovery episode,
//!   so delta doubles once per episode. A timeout leaves delta alone (genericCC onTimeout
//!   does nothing).
//! - Losses in default mode do not change the window (mvfst onPacketLoss acts only on
//!   persistent congestion; genericCC's later `reduce_on_loss` is not among the sources
//!   read). The sender's fast recovery runs on top: ssthresh is set to Copa's window, which
//!   recovery's exit restores; Copa's own window keeps moving with the ACKs that carry RTT
//!   samples in recovery, and the ACK that ends recovery (`on_recovery_exit_ack`) counts as
//!   any other. A retransmission timeout sets cwnd to one segment (RFC 5681 LW; mvfst's
//!   persistent congestion sets its minimum of two packets) and leaves slow start as it
//!   was (mvfst; an undone timeout restores the window).
//! - Every ACK of new data counts (mvfst: every ACK, with the latest RTT sample): one
//!   without an RTT sample of its own (Karn, or `rtt_sampling = "one_per_rtt"`) uses the
//!   sender's latest sample.
//! - The window stays in [2 segments, 1e15 bytes] (mvfst's minimum of 2 packets; its
//!   64-bit overflow check becomes a cap).
//!
//! Measured (two-hop-wireless without loss, 200 kB socket buffers, 100 s, queue sampled
//! every 100 ms after 10 s): with `mode_switch = false` Copa keeps 3.1 packets queued on
//! average at full goodput (1.903 Mb/s) with no loss (NewReno 36.7, with losses). With the
//! switch on, Copa alone is in competitive mode 60 % of the samples (queue 23.9 packets, 25
//! fast retransmits, 1.757 Mb/s): its own oscillation (period about 4 SRTTs here, RTT
//! samples in steps of two packet times with delayed ACKs) does not always reach the
//! "nearly empty" band within the 4-SRTT window, and once in competitive mode 1/delta grows
//! until the buffer overflows, which keeps the queue from draining. Ablations of the same
//! run: `mode_window_rtts = 5` 7 %, 8 0 %, no delayed ACKs 72 %. The share is sensitive to
//! small changes of the dynamics (41 % before the ACK that ends recovery was fed to Copa).
//! Against a NewReno flow on the same path Copa gets 1.13 Mb/s to NewReno's 0.73 with the
//! switch, 0.24 to 1.66 without.

use serde::Deserialize;

use crate::api::{AckSample, CongestionControl, Ctx, Loss, Time, Verdict, Window, NS_PER_SEC};
use crate::filters::WindowedExtreme;
use crate::registry::{AlgorithmInfo, ParamInfo, Range, MAX_GAIN, MAX_RTTS, MAX_SECONDS, MAX_WINDOW_BYTES};

const PARAMS: &[ParamInfo] = &[
    ParamInfo { name: "delta", unit: "1/packets", default: "0.5", doc: "delta of the target rate 1/(delta * d_q) in default mode (the paper's default 0.5; genericCC auto:0.5)", range: Range::above(0.0, MAX_GAIN) },
    ParamInfo { name: "mode_switch", unit: "bool", default: "true", doc: "switch to competitive mode (AIMD on 1/delta) while the queue never drains (genericCC auto mode); false keeps delta fixed", range: Range::Any },
    ParamInfo { name: "standing_rtts", unit: "SRTTs", default: "0.5", doc: "window of RTTstanding, the smallest recent RTT (the paper: srtt/2)", range: Range::above(0.0, MAX_RTTS) },
    ParamInfo { name: "min_rtt_window_s", unit: "s", default: "10.0", doc: "window of RTTmin (the paper, mvfst, genericCC: 10 s)", range: Range::above(0.0, MAX_SECONDS) },
    ParamInfo { name: "mode_window_rtts", unit: "SRTTs", default: "4.0", doc: "window in which the queue must drain once to stay in default mode (genericCC: 4 SRTTs)", range: Range::above(0.0, MAX_RTTS) },
    ParamInfo { name: "velocity_rtts", unit: "RTTs", default: "3", doc: "RTTs of one direction before the velocity starts doubling (mvfst: 3)", range: Range::closed(1.0, 1000.0) },
    ParamInfo { name: "pacing_gain", unit: "ratio", default: "2.0", doc: "pacing rate = gain * cwnd / RTTstanding (genericCC: 2; mvfst: 2 * cwnd / srtt)", range: Range::above(0.0, MAX_GAIN) },
];

pub const COPA_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "copa",
    summary: "Delay-based: the window moves toward the target rate 1/(delta * queueing delay) with a velocity that doubles while the direction holds; competitive mode (AIMD on 1/delta) against buffer-filling flows.",
    reference: "Arun, Balakrishnan, USENIX NSDI 2018; mvfst Copa.cpp; genericCC markoviancc.cc",
    params: PARAMS,
    timeout_collapses_window: true,
    constraints: &[],
};

/// Parameters of Copa.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CopaParams {
    pub delta: f64,
    pub mode_switch: bool,
    pub standing_rtts: f64,
    pub min_rtt_window_s: f64,
    pub mode_window_rtts: f64,
    pub velocity_rtts: u32,
    pub pacing_gain: f64,
}

impl Default for CopaParams {
    fn default() -> Self {
        CopaParams { delta: 0.5, mode_switch: true, standing_rtts: 0.5, min_rtt_window_s: 10.0, mode_window_rtts: 4.0, velocity_rtts: 3, pacing_gain: 2.0 }
    }
}

pub fn build(p: &CopaParams) -> Box<dyn CongestionControl> {
    Box::new(Copa::new(*p))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Up,
    Down,
}

/// mvfst's VelocityState.
#[derive(Clone, Copy, Debug)]
struct Velocity {
    v: f64,
    direction: Direction,
    same: u32,
    /// When the window was last recorded, and its value then.
    record: Option<(Time, f64)>,
}

/// The Copa state machine.
#[derive(Clone, Debug)]
pub struct Copa {
    params: CopaParams,
    /// Copa's own window, bytes (the sender's cwnd outside fast recovery).
    cwnd: f64,
    slow_start: bool,
    last_double: Option<Time>,
    velocity: Velocity,
    rtt_min: WindowedExtreme,
    standing: WindowedExtreme,
    mode_min: WindowedExtreme,
    mode_max: WindowedExtreme,
    delta: f64,
    competitive: bool,
    /// Last increase of 1/delta in competitive mode (or ACK in default mode).
    delta_up_at: Option<Time>,
    latest_rtt: Time,
}

impl Copa {
    pub fn new(params: CopaParams) -> Self {
        Copa {
            params,
            cwnd: 0.0,
            slow_start: true,
            last_double: None,
            velocity: Velocity { v: 1.0, direction: Direction::Up, same: 0, record: None },
            rtt_min: WindowedExtreme::min(),
            standing: WindowedExtreme::min(),
            mode_min: WindowedExtreme::min(),
            mode_max: WindowedExtreme::max(),
            delta: params.delta,
            competitive: false,
            delta_up_at: None,
            latest_rtt: 0,
        }
    }

    fn secs(d: f64) -> Time {
        (d * NS_PER_SEC).round() as Time
    }

    /// genericCC update_delta for an ACK (`loss` false) or a loss.
    fn update_delta(&mut self, now: Time, loss: bool) {
        let default = self.params.delta;
        if !self.competitive {
            self.delta = default;
            // genericCC refreshes prev_delta_update_time in default mode: the first step
            // of 1/delta comes an RTT after the switch.
            self.delta_up_at = Some(now);
            return;
        }
        let rtt = self.latest_rtt;
        if loss {
            self.delta *= 2.0;
        } else if self.delta_up_at.is_none_or(|t| t + rtt < now) {
            self.delta = 1.0 / (1.0 / self.delta + 1.0);
            self.delta_up_at = Some(now);
        }
        self.delta = self.delta.min(default);
    }

    /// mvfst checkAndUpdateDirection.
    fn update_direction(&mut self, now: Time, srtt: Time) {
        let vel = &mut self.velocity;
        let Some((at, recorded)) = vel.record else {
            vel.record = Some((now, self.cwnd));
            return;
        };
        if now - at >= srtt {
            let dir = if self.cwnd > recorded { Direction::Up } else { Direction::Down };
            if dir != vel.direction {
                vel.v = 1.0;
                vel.same = 0;
            } else {
                vel.same += 1;
                if vel.same >= self.params.velocity_rtts {
                    vel.v *= 2.0;
                }
            }
            vel.direction = dir;
            vel.record = Some((now, self.cwnd));
        }
    }

    /// mvfst changeDirection: a decision against the current direction while v > 1.
    fn change_direction(&mut self, dir: Direction, now: Time) {
        let vel = &mut self.velocity;
        if vel.direction != dir && vel.v > 1.0 {
            *vel = Velocity { v: 1.0, direction: dir, same: 0, record: Some((now, self.cwnd)) };
        }
    }

    fn clamp(&mut self, mss: f64) {
        self.cwnd = self.cwnd.clamp(2.0 * mss, MAX_WINDOW_BYTES);
    }
}

impl CongestionControl for Copa {
    fn name(&self) -> &'static str {
        "copa"
    }

    fn init(&mut self, w: &mut Window, _: &mut Ctx) {
        self.cwnd = w.cwnd;
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        if ack.dup || ack.acked_bytes == 0 {
            return;
        }
        let Some(rtt) = ack.rtt.or(cx.rtt.latest()) else { return };
        let now = cx.now;
        let p = self.params;
        let srtt = cx.rtt.srtt().unwrap_or(rtt);
        self.latest_rtt = rtt;
        let rtt_min = self.rtt_min.update(now, rtt, Self::secs(p.min_rtt_window_s));
        let standing = self.standing.update(now, rtt, (srtt as f64 * p.standing_rtts) as Time);
        let mode_window = (srtt as f64 * p.mode_window_rtts) as Time;
        let (lo, hi) = (self.mode_min.update(now, rtt, mode_window), self.mode_max.update(now, rtt, mode_window));
        if p.mode_switch {
            // genericCC is_copa: the queue drained at least once in the window (<= here).
            self.competitive = (lo as f64) > rtt_min as f64 + 0.1 * (hi - rtt_min) as f64;
        }
        self.update_delta(now, false);

        let mss = cx.mss_f();
        if standing >= rtt_min && standing > 0 {
            let dq = (standing - rtt_min) as f64 / NS_PER_SEC;
            let increase = dq == 0.0 || mss / (self.delta * dq) >= self.cwnd / (standing as f64 / NS_PER_SEC);
            if !(increase && self.slow_start) {
                self.update_direction(now, srtt);
            }
            let segments = ack.acked_bytes as f64 / mss;
            let v_cap = (self.delta * self.cwnd / mss).max(1.0);
            self.velocity.v = self.velocity.v.min(v_cap);
            let step = segments * mss * mss * self.velocity.v / (self.delta * self.cwnd);
            if increase {
                if self.slow_start {
                    match self.last_double {
                        None => self.last_double = Some(now),
                        Some(t) if now - t >= srtt => {
                            self.cwnd *= 2.0;
                            self.last_double = Some(now);
                        }
                        Some(_) => {}
                    }
                } else {
                    self.change_direction(Direction::Up, now);
                    self.cwnd += step;
                }
            } else {
                self.change_direction(Direction::Down, now);
                self.slow_start = false;
                self.cwnd -= step.min(self.cwnd - 2.0 * mss);
            }
            self.clamp(mss);
            w.pacing_rate = Some(p.pacing_gain * self.cwnd * NS_PER_SEC / standing as f64);
        }
        if !ack.in_recovery {
            w.cwnd = self.cwnd;
        }
    }

    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
        match loss {
            Loss::FastRetransmit => {
                self.update_delta(cx.now, true);
                // No window change; the exit from recovery restores it.
                w.ssthresh = self.cwnd;
                w.cwnd = self.cwnd;
            }
            Loss::Timeout { consecutive } => {
                if consecutive <= 1 {
                    w.ssthresh = self.cwnd;
                }
                self.cwnd = cx.mss_f();
                w.cwnd = self.cwnd;
                if let Some(standing) = self.standing.value().filter(|&s| s > 0) {
                    w.pacing_rate = Some(self.params.pacing_gain * self.cwnd * NS_PER_SEC / standing as f64);
                }
            }
        }
        Verdict::None
    }

    fn on_recovery_exit(&mut self, w: &mut Window, _: &mut Ctx) {
        w.cwnd = self.cwnd;
    }

    fn on_recovery_exit_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        self.on_ack(ack, w, cx);
    }

    fn on_spurious_timeout(&mut self, prior: &Window, w: &mut Window, _: &mut Ctx) {
        self.cwnd = prior.cwnd;
        w.cwnd = prior.cwnd;
        w.ssthresh = prior.ssthresh;
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("delta", self.delta));
        out.push(("velocity", self.velocity.v));
        out.push(("competitive", f64::from(u8::from(self.competitive))));
        out.push(("slow_start", f64::from(u8::from(self.slow_start))));
        out.push(("rtt_standing_ms", self.standing.value().map_or(f64::NAN, |v| v as f64 / 1e6)));
        out.push(("rtt_min_ms", self.rtt_min.value().map_or(f64::NAN, |v| v as f64 / 1e6)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{ack_timed, var, Harness, MSS};
    use crate::Loss;

    const MS: Time = 1_000_000;

    fn harness(p: CopaParams) -> Harness {
        Harness::new(Box::new(Copa::new(p)))
    }

    /// Out of slow start at the harness's initial 10 segments, with a min RTT of 100 ms.
    fn settled(p: CopaParams) -> Harness {
        let mut copa = Copa::new(p);
        copa.slow_start = false;
        let mut h = Harness::new(Box::new(copa));
        ack_timed(&mut h, 1, 100 * MS, 100 * MS, None, false);
        h
    }

    #[test]
    fn slow_start_doubles_once_per_rtt_until_the_rate_passes_the_target() {
        let mut h = harness(CopaParams::default());
        let start = h.w.cwnd;
        // No queueing delay: the target rate is infinite.
        for _ in 0..3 {
            h.ack(1, 50 * MS);
        }
        assert_eq!(h.w.cwnd, 4.0 * start, "two doublings over three ACKs one RTT apart");
        assert_eq!(var(&h, "slow_start"), 1.0);
    }

    #[test]
    fn the_window_moves_toward_the_target_rate_by_v_over_delta_cwnd_per_packet() {
        let p = CopaParams { mode_switch: false, ..CopaParams::default() };
        let step = |rtt: Time| {
            let mut h = settled(p);
            // RTTstanding: `rtt` once the window of srtt/2 holds only such samples.
            for _ in 0..20 {
                ack_timed(&mut h, 1, 10 * MS, rtt * MS, None, false);
            }
            let before = h.w.cwnd;
            ack_timed(&mut h, 1, MS, rtt * MS, None, false);
            (h.w.cwnd - before) / f64::from(MSS) * (0.5 * before / f64::from(MSS))
        };
        // d_q = 10 ms, RTTstanding 110 ms: target 1/(0.5 * 0.01) = 200 packets/s, a window
        // of 22 packets, above ~10-14: + v/(delta * cwnd), v = 1 (times delta * cwnd: 1).
        assert!((step(110) - 1.0).abs() < 1e-9, "{}", step(110));
        // d_q = 50 ms, RTTstanding 150 ms: target window 6 packets: - v/(delta * cwnd).
        assert!((step(150) + 1.0).abs() < 1e-9, "{}", step(150));
        // An ACK of two segments moves the window twice as far (per packet, as mvfst).
        let mut h = settled(p);
        for _ in 0..20 {
            ack_timed(&mut h, 1, 10 * MS, 110 * MS, None, false);
        }
        let before = h.w.cwnd;
        ack_timed(&mut h, 2, MS, 110 * MS, None, false);
        let two = (h.w.cwnd - before) / f64::from(MSS) * (0.5 * before / f64::from(MSS));
        assert!((two - 2.0).abs() < 1e-9, "{two}");
    }

    #[test]
    fn velocity_doubles_after_three_rtts_in_one_direction_and_resets_when_it_turns() {
        let mut h = settled(CopaParams { mode_switch: false, ..CopaParams::default() });
        let mut v = Vec::new();
        // Below the target (RTT 102 ms over a 100 ms minimum: a target of ~100 packets):
        // the window keeps growing; one ACK per 10 ms.
        for _ in 0..60 {
            ack_timed(&mut h, 1, 10 * MS, 102 * MS, None, false);
            v.push(var(&h, "velocity"));
        }
        assert_eq!(v[0], 1.0);
        // Records one SRTT apart: the third one in the same direction doubles v.
        assert!(v.iter().any(|&x| x == 2.0) && v.iter().any(|&x| x >= 4.0), "{v:?}");
        // Far above the target once RTTstanding has left the old samples behind: the
        // first decrease resets v.
        let mut after = Vec::new();
        for _ in 0..60 {
            ack_timed(&mut h, 1, 20 * MS, 600 * MS, None, false);
            after.push(var(&h, "velocity"));
        }
        assert!(after.contains(&1.0), "{after:?}");
    }

    #[test]
    fn a_queue_that_never_drains_switches_to_competitive_mode_where_one_over_delta_grows() {
        let mut h = settled(CopaParams::default());
        // RTTs between 300 and 320 ms with a 100 ms minimum: never near RTTmin.
        for i in 0..200 {
            ack_timed(&mut h, 1, 20 * MS, (300 + i % 20) * MS, None, false);
        }
        assert_eq!(var(&h, "competitive"), 1.0);
        let d = var(&h, "delta");
        assert!(1.0 / d > 8.0, "1/delta {}", 1.0 / d);
        // A loss halves 1/delta; a timeout leaves it.
        h.loss(Loss::FastRetransmit);
        assert!((var(&h, "delta") - 2.0 * d).abs() < 1e-12);
        h.exit_recovery();
        h.loss(Loss::Timeout { consecutive: 1 });
        assert!((var(&h, "delta") - 2.0 * d).abs() < 1e-12);
        // RTTs at the minimum again (the queue drains): default mode, delta 0.5.
        for _ in 0..100 {
            ack_timed(&mut h, 1, 20 * MS, 100 * MS, None, false);
        }
        assert_eq!((var(&h, "competitive"), var(&h, "delta")), (0.0, 0.5));
    }

    #[test]
    fn a_fast_retransmit_keeps_the_window_and_a_timeout_collapses_it() {
        let mut h = settled(CopaParams::default());
        let w = h.w.cwnd;
        h.loss(Loss::FastRetransmit);
        assert_eq!((h.w.cwnd, h.w.ssthresh), (w, w));
        h.exit_recovery();
        assert_eq!(h.w.cwnd, w);
        h.loss(Loss::Timeout { consecutive: 1 });
        assert_eq!(h.w.cwnd, f64::from(MSS));
    }
}
