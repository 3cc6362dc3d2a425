//! `tcp.cwnd_limited`: growth held while the flow does not use its window, as ns-3.44
//! (m_isCwndLimited, tested by TcpCubic and TcpLinuxReno) and Linux (tcp_is_cwnd_limited,
//! tested by reno and cubic) do it, on a flow the receive window holds at 20 segments
//! (lossless: 20 segments never fill the bottleneck's queue of 100).

use crate::common;

use common::two_hop;
use wtcp_engine::RunResult;

fn run(cc: &str, params: &str, rule: &str) -> RunResult {
    two_hop(&[
        ("run.duration_s", "10"),
        ("tcp.recv_buffer_bytes", "20000"),
        ("tcp.delayed_ack", "false"),
        ("flows.0.cc", cc),
        ("flows.0.cc_params", params),
        ("tcp.cwnd_limited", rule),
        ("trace.enabled", "true"),
        ("trace.interval_ms", "1"),
    ])
}

/// The largest cwnd of flow 0 in the trace, in segments.
fn max_cwnd_segments(r: &RunResult) -> f64 {
    let t = r.traces.as_ref().unwrap();
    let col = &t.flow_columns.iter().find(|(n, _)| *n == "cwnd").unwrap().1;
    col.iter().cloned().fold(0.0, f64::max) / 1000.0
}

const NS3_CUBIC: &str = "{ arithmetic = \"ns3\", hystart = false, slow_start = \"segments_acked\" }";
const LINUX_CUBIC: &str = "{ arithmetic = \"linux\", hystart = false }";

#[test]
fn ns3_rule_stops_growth_one_segment_above_what_the_receive_window_lets_fly() {
    let r = run("\"cubic\"", NS3_CUBIC, "\"ns3\"");
    assert_eq!(r.flows[0].timeouts + r.flows[0].fast_retransmits, 0, "lossless");
    // After the send that fills the receive window (20 segments in flight) cwnd = 21
    // segments is not below in-flight + one segment: m_isCwndLimited turns false and
    // TcpCubic stops growing (as ns-3.44 does on the long-RTT validation path at 91).
    assert_eq!(max_cwnd_segments(&r), 21.0);
    // LinuxReno's test (ns-3) holds avoidance only; slow start never ends here, so it grows.
    let reno = run("\"newreno\"", "{ growth = \"linux_segments\" }", "\"ns3\"");
    assert!(max_cwnd_segments(&reno) > 1000.0, "{}", max_cwnd_segments(&reno));
}

#[test]
fn linux_rule_lets_slow_start_reach_twice_what_was_outstanding() {
    // tcp_is_cwnd_limited: in slow start the flow counts as limited while cwnd < 2 *
    // max_packets_out (20 segments here), for reno and cubic alike.
    for (cc, params) in [("\"newreno\"", "{ growth = \"linux\" }"), ("\"cubic\"", LINUX_CUBIC)] {
        let r = run(cc, params, "\"linux\"");
        assert_eq!(max_cwnd_segments(&r), 40.0, "{cc}");
    }
}

#[test]
fn assumed_and_rfc_growth_ignore_the_receive_window() {
    // RFC 5681 (the default) grows on every ACK of new data whatever limits the flow; an
    // algorithm with RFC growth ignores the rule.
    for (cc, params, rule) in [("\"cubic\"", NS3_CUBIC, "\"assumed\""), ("\"newreno\"", "{}", "\"ns3\""), ("\"newreno\"", "{}", "\"linux\"")] {
        let r = run(cc, params, rule);
        assert!(max_cwnd_segments(&r) > 1000.0, "{cc} {rule}: {}", max_cwnd_segments(&r));
    }
}
