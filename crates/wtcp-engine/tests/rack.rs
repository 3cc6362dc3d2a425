//! RFC 8985 RACK loss detection at the scenario level.

mod common;

use common::two_hop;
use wtcp_engine::RunResult;

/// A 2 MB transfer on a 200 ms path (1000-packet queues: no queue losses; a receive
/// window that never limits, so new data follows a retransmission) losing data packet 200
/// and packet 312, that segment's fast retransmission.
fn run(loss_detection: &str, lost: &str) -> RunResult {
    two_hop(&[
        ("run.duration_s", "30"),
        ("flows.0.bytes", "2000000"),
        ("links.0.delay_ms", "99"),
        ("links.1.ab.loss", lost),
        ("tcp.recv_buffer_bytes", "1000000"),
        ("links.0.queue", "{ limit_packets = 1000 }"),
        ("links.1.queue", "{ limit_packets = 1000 }"),
        ("tcp.sack", "true"),
        ("tcp.loss_detection", loss_detection),
        ("trace.enabled", "true"),
    ])
}

const RETRANSMISSION_LOST: &str = "{ model = \"list\", packets = [200, 312] }";

#[test]
fn rack_repairs_a_lost_retransmission_without_a_timeout() {
    let dupack = run("\"dupack\"", RETRANSMISSION_LOST);
    let rack = run("\"rack\"", RETRANSMISSION_LOST);
    // The two drops are the same segment: the second is its retransmission.
    let drops = &rack.traces.as_ref().unwrap().drop_seq;
    assert_eq!(drops.len(), 2);
    assert_eq!(drops[0], drops[1]);
    // RFC 6675 cannot see a lost retransmission: the timer repairs it.
    assert_eq!(dupack.flows[0].timeouts, 1);
    // RACK: a segment sent after the retransmission is SACKed an RTT later, so the
    // retransmission is lost (RFC 8985 §6.2 step 5) and sent again within the recovery.
    assert_eq!(rack.flows[0].timeouts, 0, "{:?}", rack.flows[0]);
    assert_eq!(rack.flows[0].retransmitted_segments, 2);
    assert_eq!(rack.flows[0].fast_retransmits, 1);
    assert!(rack.flows[0].fct_s.unwrap() < dupack.flows[0].fct_s.unwrap());
}
