//! ABC (Goyal et al., NSDI 2020): the `abc` queue discipline's accelerate/brake marks and
//! the `abc` sender, end to end on the shipped cellular and 802.11 scenarios.

use crate::common;

use wtcp_engine::RunResult;

/// The shipped cellular scenario (a recorded LTE capacity trace, 200 packets of buffer)
/// with `cc` and the cellular queue `queue`; traces made absolute as `wtcp` does.
fn cellular(cc: &str, queue: &str) -> RunResult {
    let path = |f: &str| format!("{:?}", common::repo_path(&format!("scenarios/traces/{f}")).display().to_string());
    let (down, up) = (path("lte-markov.trace"), path("uplink-walk.trace"));
    let ov = [("flows.0.cc", cc), ("links.1.queue", queue), ("links.1.ab.capacity.trace", down.as_str()), ("links.1.ba.capacity.trace", up.as_str())];
    wtcp_engine::run(&common::load("scenarios/cellular-trace.toml", &ov))
}

/// The goodput the trace allows in the measurement window (5-120 s): 94 931 delivery
/// opportunities of one 1500-byte packet (1448 bytes of payload) each.
const TRACE_GOODPUT_BPS: f64 = 94_931.0 * 1448.0 * 8.0 / 115.0;

#[test]
fn abc_fills_a_cellular_trace_and_steers_the_queue_to_its_delay_threshold() {
    // The router's target rate is eta mu = 0.98 of the capacity while the queue is under
    // d_t: ABC's goodput tracks the trace's (measured 97.7 %), and braking past d_t holds
    // the queueing delay near d_t (p95 within 10 ms of it: one RTT of feedback delay),
    // where CUBIC fills the 200-packet buffer.
    let abc = cellular("\"abc\"", "{ limit_packets = 200, discipline = \"abc\" }");
    let cubic = cellular("\"cubic\"", "{ limit_packets = 200 }");
    let (a, c) = (&abc.flows[0], &cubic.flows[0]);
    assert!(a.goodput_bps > 0.95 * TRACE_GOODPUT_BPS, "ABC {} b/s of {TRACE_GOODPUT_BPS}", a.goodput_bps);
    assert!(a.goodput_bps > 1.1 * c.goodput_bps, "ABC {} b/s, CUBIC {}", a.goodput_bps, c.goodput_bps);
    let q = &abc.drops[2];
    assert_eq!((q.queue, a.timeouts), (0, 0));
    assert!(q.sojourn_p95_ms.unwrap() < 50.0 + 10.0 && q.sojourn_mean_ms.unwrap() < 50.0, "{:?} {:?}", q.sojourn_p95_ms, q.sojourn_mean_ms);
    assert!(a.rtt_p95_ms.unwrap() < 0.4 * c.rtt_p95_ms.unwrap(), "ABC {:?} ms, CUBIC {:?}", a.rtt_p95_ms, c.rtt_p95_ms);
    // A lower threshold moves the queue with it.
    let low = cellular("\"abc\"", "{ limit_packets = 200, discipline = \"abc\", delay_threshold_ms = 20 }");
    let ql = &low.drops[2];
    assert!(ql.sojourn_p95_ms.unwrap() < 20.0 + 10.0 && ql.sojourn_p95_ms.unwrap() < q.sojourn_p95_ms.unwrap() - 15.0, "{:?}", ql.sojourn_p95_ms);
}

#[test]
fn abc_beats_cubic_over_codel_at_the_same_queueing_target() {
    // The artifact's comparison: CoDel with a 50 ms target and 100 ms interval against
    // ABC with d_t = 50 ms. CoDel can only slow CUBIC down; ABC also tells it to speed up.
    let abc = cellular("\"abc\"", "{ limit_packets = 200, discipline = \"abc\" }");
    let codel = cellular("\"cubic\"", "{ limit_packets = 200, discipline = \"codel\", target_ms = 50, interval_ms = 100 }");
    let (a, c) = (&abc.flows[0], &codel.flows[0]);
    assert!(a.goodput_bps > 1.25 * c.goodput_bps, "ABC {} b/s, CUBIC+CoDel {}", a.goodput_bps, c.goodput_bps);
    assert!(a.rtt_p95_ms.unwrap() < 1.1 * c.rtt_p95_ms.unwrap(), "ABC {:?} ms, CUBIC+CoDel {:?}", a.rtt_p95_ms, c.rtt_p95_ms);
}

#[test]
fn a_flow_without_ecn_sees_an_abc_queue_as_drop_tail() {
    let abc = cellular("\"cubic\"", "{ limit_packets = 200, discipline = \"abc\" }");
    let tail = cellular("\"cubic\"", "{ limit_packets = 200 }");
    let part = |r: &RunResult, key: &str| serde_json::from_str::<serde_json::Value>(&r.to_json()).unwrap()[key].to_string();
    for key in ["flows", "drops", "events"] {
        assert_eq!(part(&abc, key), part(&tail, key), "{key}");
    }
}

#[test]
fn abc_at_an_802_11_access_point_keeps_the_rtt_low_at_drop_tails_goodput() {
    // The AP's ABC router estimates mu from its MAC's service times. Against CUBIC over a
    // 1000-packet drop-tail AP queue, ABC keeps the RTT low at the same goodput.
    let run = |cc: &str, queue: &str| {
        let ov = [("flows.0.cc", cc), ("wifi.0.stations.0.queue", queue), ("run.duration_s", "30")];
        wtcp_engine::run(&common::load("scenarios/wifi-aqm.toml", &ov))
    };
    let abc = run("\"abc\"", "{ discipline = \"abc\", limit_packets = 1000 }");
    let cubic = run("\"cubic\"", "{ limit_packets = 1000 }");
    let (a, c) = (&abc.flows[0], &cubic.flows[0]);
    assert!(a.goodput_bps > 0.95 * c.goodput_bps, "ABC {} b/s, CUBIC {}", a.goodput_bps, c.goodput_bps);
    assert!(a.rtt_p95_ms.unwrap() < 0.2 * c.rtt_p95_ms.unwrap(), "ABC {:?} ms, CUBIC {:?}", a.rtt_p95_ms, c.rtt_p95_ms);
    assert_eq!(a.timeouts, 0);
}
