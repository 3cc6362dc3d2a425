//! Each scheme's core mechanism at work on a small network.

mod common;

use common::two_hop;
use wtcp_engine::RunResult;

fn run_cc(cc: &str, overrides: &[(&str, &str)]) -> RunResult {
    let mut ov = vec![("flows.0.cc", cc), ("run.duration_s", "100")];
    ov.extend_from_slice(overrides);
    two_hop(&ov)
}

/// 2 % random loss on the wireless hop and a receive window (8 segments) that keeps the
/// bottleneck queue nearly empty: every loss is a wireless loss.
const WIRELESS_ONLY: [(&str, &str); 2] = [("links.1.ab.loss", "{ model = \"uniform\", rate = 0.02 }"), ("tcp.recv_buffer_bytes", "8000")];
/// No random loss and a 10-packet bottleneck queue: every loss is a queue overflow.
const CONGESTION_ONLY: [(&str, &str); 1] = [("links.1.queue.limit_packets", "10")];

#[test]
fn vegas_fills_the_bottleneck_without_loss_and_with_a_short_queue() {
    // Vegas keeps alpha..beta (1..3) segments queued: no overflow of the 100-packet
    // queue, where NewReno fills it and loses.
    let vegas = run_cc("vegas", &[]);
    let newreno = run_cc("newreno", &[]);
    assert_eq!(vegas.drops[2].queue, 0);
    assert!(newreno.drops[2].queue > 0);
    assert!(vegas.flows[0].goodput_bps > 0.95 * 2e6 * 1000.0 / 1040.0);
    // Base RTT 27 ms; three queued segments add 12.5 ms.
    assert!(vegas.flows[0].mean_srtt_s.unwrap() < 0.027 + 0.02, "{:?}", vegas.flows[0].mean_srtt_s);
}

#[test]
fn veno_calls_random_losses_wireless_and_overflows_congestion() {
    let wireless = run_cc("veno", &WIRELESS_ONLY);
    let v = wireless.flows[0].loss_verdicts;
    assert!(v.wireless > 4 * v.congestion, "{v:?}");
    let congested = run_cc("veno", &CONGESTION_ONLY);
    let v = congested.flows[0].loss_verdicts;
    assert!(v.congestion > 4 * v.wireless, "{v:?}");
}
