//! What a run counts: throughput is what the source put on the wire, a CBR source keeps
//! its rate across on/off periods, the measurement window opens before anything sent at
//! its start, and the traced window is never negative.

use crate::common;

use common::{load, parse, two_hop};

/// A CBR source A -> B over one link of `rate_mbps`, 20 s.
fn cbr(rate_mbps: f64, link_mbps: f64, extra: &str) -> wtcp_engine::RunResult {
    let text = format!(
        r#"
[run]
duration_s = 20.0
measure_from_s = 0.0
[[nodes]]
name = "A"
[[nodes]]
name = "B"
[[links]]
a = "A"
b = "B"
rate_mbps = {link_mbps}
delay_ms = 5.0
queue = {{ limit_packets = 20 }}
[[flows]]
kind = "cbr"
src = "A"
dst = "B"
rate_mbps = {rate_mbps}
packet_bytes = 512
{extra}
"#
    );
    wtcp_engine::run(&parse(&text, &[]))
}

#[test]
fn cbr_throughput_is_what_the_link_carried_not_what_was_offered() {
    // 5 Mb/s offered to a 2 Mb/s link: the source's own queue drops the rest, which never
    // reached the wire (docs/model.md: throughput counts IP bytes put on the wire).
    let r = cbr(5.0, 2.0, "");
    let f = &r.flows[0];
    assert!(f.throughput_bps <= 2e6, "throughput {} b/s over a 2 Mb/s link", f.throughput_bps);
    // The link stays busy: nearly all of its rate (less any link-layer header).
    assert!(f.throughput_bps >= 0.85 * 2e6, "{}", f.throughput_bps);
    assert!(f.goodput_bps <= f.throughput_bps);
}

#[test]
fn cbr_on_off_sends_at_its_rate_during_on_time_only() {
    // 1 kb/s of 512-byte datagrams (one every 4.096 s of on-time), on and off 0.1 s each:
    // 10 s of on-time in 20 s allows 3 datagrams (at 0, 4.1 and 8.2 s of on-time), not
    // one per on period (100).
    let r = cbr(0.001, 10.0, "on_off = { on_s = 0.1, off_s = 0.1 }");
    let f = &r.flows[0];
    let datagrams = f.delivered_bytes / 512;
    assert_eq!(datagrams, 3, "{} datagrams delivered", datagrams);
}

#[test]
fn the_measurement_window_counts_what_is_sent_at_its_start() {
    // A 10-segment transfer leaves at t = 0 in the initial window; with measure_from_s = 0
    // every one of its bytes is inside the window.
    let r = two_hop(&[("run.measure_from_s", "0"), ("flows.0.bytes", "10000"), ("run.duration_s", "2")]);
    let f = &r.flows[0];
    let ip_bytes = 10.0 * 1040.0;
    assert!((f.throughput_bps - ip_bytes * 8.0 / 2.0).abs() < 1e-6, "throughput {}", f.throughput_bps);
}

#[test]
fn the_traced_window_is_never_negative_during_partial_ack_deflation() {
    // The case found by the fuzzer (a 1500-byte drop-tail bottleneck, a reverse Taichung
    // flow): NewReno's partial-ACK deflation took cwnd + inflation below zero.
    let r = wtcp_engine::run(&load(
        "scenarios/reference-simple2.toml",
        &[
            ("run.duration_s", "13.09"),
            ("run.seed", "353661787"),
            ("links.1.rate_mbps", "0.8561"),
            ("links.1.queue", "{ discipline = \"droptail\", limit_bytes = 1500 }"),
            ("flows.1", "{ name = \"rev\", src = \"D\", dst = \"S\", cc = \"taichung\", start_s = 4.931 }"),
            ("trace.enabled", "true"),
            ("trace.interval_ms", "1"),
        ],
    ));
    let t = r.traces.as_ref().unwrap();
    let cwnd = &t.flow_columns.iter().find(|(n, _)| *n == "cwnd").unwrap().1;
    let recovery = &t.flow_columns.iter().find(|(n, _)| *n == "in_recovery").unwrap().1;
    assert!(recovery.iter().any(|&v| v == 1.0), "the case must go through recovery");
    let lowest = cwnd.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(lowest >= 0.0, "cwnd went down to {lowest}");
}
