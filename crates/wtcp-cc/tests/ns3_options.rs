//! The options that reproduce ns-3.44's departures from the papers and RFCs (set only by
//! the `ns3` profile, docs/profiles.md): each behaves as the ns-3 source it cites, and the
//! paper/RFC default is unchanged.

use wtcp_cc::reno::{Growth, HalveOf, Reno, RenoParams};
use wtcp_cc::testing::{var, Harness, MSS};
use wtcp_cc::vegas::{self, VegasLoss, VegasParams, VegasRtt};
use wtcp_cc::veno::{self, VenoBacklog, VenoGrowth, VenoParams, VenoRtt, VenoTimeout};
use wtcp_cc::{AckSample, Loss, RecoveryStyle, Window};

const MS: u64 = 1_000_000;
const SEG: f64 = MSS as f64;

fn linux_reno() -> Harness {
    Harness::new(Reno::boxed(RenoParams { halve: HalveOf::Cwnd, growth: Growth::LinuxSegments, ..RenoParams::default() }, RecoveryStyle::NewReno))
}

#[test]
fn linux_segments_avoidance_adds_one_mss_per_window_of_acknowledged_segments() {
    // tcp-linux-reno.cc CongestionAvoidance: w = cwnd / MSS; +1 MSS when the counter reaches w.
    let mut h = linux_reno();
    h.w = Window::new(10.0 * SEG, 10.0 * SEG);
    for i in 1..=9 {
        h.ack(1, 50 * MS);
        assert_eq!(h.w.cwnd, 10.0 * SEG, "after {i} segments");
    }
    h.ack(1, 50 * MS);
    assert_eq!(h.w.cwnd, 11.0 * SEG);
    // A stretch ACK of 22 segments at w = 11: two increases, no fraction.
    h.snd_max = h.snd_una + 22 * u64::from(MSS);
    h.ack(22, 50 * MS);
    assert_eq!(h.w.cwnd, 13.0 * SEG);
}

#[test]
fn linux_segments_slow_start_stops_at_ssthresh_without_carrying_the_rest() {
    // tcp-linux-reno.cc IncreaseWindow: slow start or avoidance, never both on one ACK.
    let mut h = linux_reno();
    h.w = Window::new(8.0 * SEG, 10.0 * SEG);
    h.ack(4, 50 * MS);
    assert_eq!(h.w.cwnd, 10.0 * SEG);
    // The RFC growth with byte counting carries the two extra segments into avoidance.
    let mut rfc = Harness::new(Reno::boxed(RenoParams { byte_counting: true, abc_limit: 65535, ..RenoParams::default() }, RecoveryStyle::NewReno));
    rfc.w = Window::new(8.0 * SEG, 10.0 * SEG);
    rfc.ack(4, 50 * MS);
    assert!(rfc.w.cwnd > 10.0 * SEG);
}

#[test]
fn linux_segments_counter_survives_a_loss_as_in_ns3() {
    // ns-3 keeps m_cWndCnt across a reduction: 15 counted towards w = 20, then the window is
    // halved to 10; the next ACK finds the counter at or above w and adds one MSS at once.
    let mut h = linux_reno();
    h.w = Window::new(20.0 * SEG, 20.0 * SEG);
    h.ack(15, 50 * MS);
    assert_eq!(h.w.cwnd, 20.0 * SEG);
    h.loss(Loss::FastRetransmit);
    h.exit_recovery();
    assert_eq!(h.w.cwnd, 10.0 * SEG);
    h.ack(1, 50 * MS);
    assert_eq!(h.w.cwnd, 11.0 * SEG);
}

#[test]
fn reno_grows_on_the_exit_ack_only_when_offered() {
    // The hook is what `tcp.recovery_exit_growth` calls; the RFC sender never does.
    let mut h = Harness::new(Reno::boxed(RenoParams::default(), RecoveryStyle::NewReno));
    h.w = Window::new(10.0 * SEG, 10.0 * SEG);
    let mut s = AckSample::default();
    (s.ack, s.acked_bytes, s.delivered) = (20_000, 20_000, 20_000);
    h.call(|cc, w, cx| cc.on_recovery_exit_growth(&s, w, cx));
    // RFC 5681 eq. 3 once: MSS * MSS / cwnd.
    assert!((h.w.cwnd - 10.1 * SEG).abs() < 1e-9, "{}", h.w.cwnd);
}

fn vegas_in_avoidance(params: VegasParams, cwnd: f64, ssthresh: f64) -> Harness {
    let mut h = Harness::new(vegas::build(&params));
    h.w = Window::new(cwnd * SEG, ssthresh * SEG);
    h
}

#[test]
fn vegas_one_segment_loss_response_is_ns3s_get_ssthresh() {
    let p = VegasParams { loss_response: VegasLoss::OneSegment, ..VegasParams::default() };
    // ssthresh unlimited: min(inf, cwnd - 1 segment).
    let mut h = vegas_in_avoidance(p, 20.0, f64::INFINITY);
    h.loss(Loss::FastRetransmit);
    assert_eq!((h.w.ssthresh, h.w.cwnd), (19.0 * SEG, 19.0 * SEG));
    // An ssthresh already below cwnd - 1 stays; a timeout sets cwnd to one segment.
    let mut h = vegas_in_avoidance(p, 20.0, 16.0);
    h.loss(Loss::Timeout { consecutive: 1 });
    assert_eq!((h.w.ssthresh, h.w.cwnd), (16.0 * SEG, SEG));
    // Two segments at least.
    let mut h = vegas_in_avoidance(p, 2.0, f64::INFINITY);
    h.loss(Loss::FastRetransmit);
    assert_eq!(h.w.ssthresh, 2.0 * SEG);
    // The default halves.
    let mut h = vegas_in_avoidance(VegasParams::default(), 20.0, f64::INFINITY);
    h.loss(Loss::FastRetransmit);
    assert_eq!(h.w.ssthresh, 10.0 * SEG);
}

#[test]
fn vegas_one_segment_keeps_ssthresh_at_three_quarters_of_cwnd_after_a_round() {
    // tcp-vegas.cc IncreaseWindow: ssthresh = max(ssthresh, 3/4 cwnd) after the decision.
    let p = VegasParams { loss_response: VegasLoss::OneSegment, ..VegasParams::default() };
    let mut h = vegas_in_avoidance(p, 20.0, 4.0);
    for _ in 0..60 {
        h.ack(1, 100 * MS);
    }
    assert!(h.w.ssthresh >= 0.75 * h.w.cwnd - 1e-9, "ssthresh {} cwnd {}", h.w.ssthresh, h.w.cwnd);
    let mut rfc = vegas_in_avoidance(VegasParams::default(), 20.0, 4.0);
    for _ in 0..60 {
        rfc.ack(1, 100 * MS);
    }
    assert_eq!(rfc.w.ssthresh, 4.0 * SEG);
}

#[test]
fn vegas_smoothed_rtt_takes_base_rtt_from_srtt() {
    // One 100 ms sample, then 300 ms samples: SRTT stays above 100 ms after the first, so
    // BaseRTT is the first SRTT (100 ms) either way; a 50 ms sample lowers the sample
    // minimum to 50 ms but SRTT only to 7/8 of it plus 1/8 of 50 ms.
    let run = |rtt: VegasRtt| {
        let mut h = vegas_in_avoidance(VegasParams { rtt, ..VegasParams::default() }, 10.0, 5.0);
        for r in [100, 300, 300, 50] {
            h.ack(1, r * MS);
        }
        for _ in 0..30 {
            h.ack(1, 300 * MS);
        }
        var(&h, "base_rtt_s")
    };
    assert!((run(VegasRtt::Sample) - 0.050).abs() < 1e-9);
    assert!((run(VegasRtt::Smoothed) - 0.100).abs() < 1e-9);
}

fn veno_after(params: VenoParams, cwnd: f64, base: u64, rtt: u64) -> Harness {
    let mut h = Harness::new(veno::build(&params));
    h.w = Window::new(cwnd * SEG, 2.0 * SEG);
    h.ack(1, base * MS);
    h.w.cwnd = cwnd * SEG;
    h.ack(1, rtt * MS);
    h.w.cwnd = cwnd * SEG;
    h
}

#[test]
fn veno_whole_segment_backlog_truncates_the_target_window() {
    // tcp-veno.cc: targetCwnd = (uint32) (10 * 100 / 115) = 8, N = 10 - 8 = 2; the real N
    // is 10 * 15 / 115 = 1.30.
    let whole = VenoParams { backlog: VenoBacklog::WholeSegments, ..VenoParams::default() };
    assert_eq!(var(&veno_after(whole, 10.0, 100, 115), "backlog_segments"), 2.0);
    let real = var(&veno_after(VenoParams::default(), 10.0, 100, 115), "backlog_segments");
    assert!((real - 10.0 * 15.0 / 115.0).abs() < 1e-9, "{real}");
}

#[test]
fn veno_cut_of_pipe_multiplies_bytes_in_flight() {
    // With three duplicate ACKs the harness's pipe is the outstanding data less 3 segments.
    let p = VenoParams { cut_of: HalveOf::Pipe, ..VenoParams::default() };
    let mut h = veno_after(p, 20.0, 100, 101);
    h.fill_window();
    for _ in 0..3 {
        h.dup_ack();
    }
    let pipe = (h.snd_max - h.snd_una) as f64 - 3.0 * SEG;
    h.loss(Loss::FastRetransmit);
    assert!((h.w.ssthresh - pipe * 4.0 / 5.0).abs() < 1e-9, "{} vs {}", h.w.ssthresh, pipe * 0.8);
}

#[test]
fn veno_timeout_cut_applies_the_backlog_rule() {
    let p = VenoParams { timeout_cut: VenoTimeout::Veno, ..VenoParams::default() };
    let mut h = veno_after(p, 20.0, 100, 101);
    h.loss(Loss::Timeout { consecutive: 1 });
    assert_eq!((h.w.ssthresh, h.w.cwnd), (16.0 * SEG, SEG));
    // The paper's Reno halves on a timeout.
    let mut h = veno_after(VenoParams::default(), 20.0, 100, 101);
    h.loss(Loss::Timeout { consecutive: 1 });
    assert_eq!(h.w.ssthresh, 10.0 * SEG);
}

#[test]
fn veno_reno_growth_ignores_the_congestive_state() {
    // N = 20 * 100 / 200 = 10 >= beta: Veno grows on every other ACK, ns-3 on every one.
    let grow = |growth: VenoGrowth| {
        let mut h = Harness::new(veno::build(&VenoParams { growth, rtt: VenoRtt::Sample, ..VenoParams::default() }));
        h.w = Window::new(20.0 * SEG, 2.0 * SEG);
        h.ack(1, 100 * MS);
        h.w.cwnd = 20.0 * SEG;
        for _ in 0..4 {
            h.ack(1, 200 * MS);
        }
        h.w.cwnd
    };
    assert!(grow(VenoGrowth::Reno) > grow(VenoGrowth::Veno) + 0.05 * SEG);
}

#[test]
fn vegas_ns3_model_meets_the_contract() {
    // ns-3.44's TcpVegas structure (`model = "ns3"`, with the ns3 profile's inputs) passes
    // every check the registered defaults pass.
    use wtcp_cc::contract::{CHECKS, DEFAULT_DAYS};
    use wtcp_cc::vegas::{RoundRtt, VegasModel};
    let p = VegasParams {
        alpha: 2.0,
        beta: 4.0,
        model: VegasModel::Ns3,
        rtt: VegasRtt::Smoothed,
        round_rtt: RoundRtt::Min,
        loss_response: VegasLoss::OneSegment,
        ..VegasParams::default()
    };
    let info = wtcp_cc::catalog().iter().find(|i| i.name == "vegas").expect("vegas is registered");
    let build = || vegas::build(&p);
    for c in CHECKS {
        if let Err(e) = (c.run)(info, &build, DEFAULT_DAYS) {
            panic!("vegas model = ns3: {}: {e}", c.name);
        }
    }
}
