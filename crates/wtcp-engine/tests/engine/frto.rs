//! F-RTO (RFC 5682): spurious timeouts are detected and undone; real ones are not.

use crate::common;

use common::two_hop;

const SPIKE: &str = "[{ start_s = 5.0, duration_s = 2.0, extra_delay_ms = 3000.0 }]";

#[test]
fn a_delay_spike_timeout_is_declared_spurious_and_undone() {
    let base = [("tcp.recv_buffer_bytes", "20000"), ("links.1.ab.delay_spikes", SPIKE)];
    let plain = two_hop(&base);
    let mut ov = base.to_vec();
    ov.push(("tcp.frto", "true"));
    let frto = two_hop(&ov);
    assert!(plain.flows[0].timeouts >= 1);
    assert_eq!(plain.flows[0].frto_spurious_timeouts, 0);
    assert!(frto.flows[0].frto_spurious_timeouts >= 1, "{:?}", frto.flows[0]);
    // No go-back-N burst of segments that were never lost.
    assert!(frto.flows[0].retransmitted_segments < plain.flows[0].retransmitted_segments, "{:?} vs {:?}", frto.flows[0], plain.flows[0]);
}

#[test]
fn a_real_loss_timeout_is_not_declared_spurious() {
    // An outage drops a whole window: the timeout is genuine.
    let r = two_hop(&[("tcp.frto", "true"), ("links.1.ab.outages", "[{ start_s = 5.0, duration_s = 1.5 }]"), ("flows.0.bytes", "3000000"), ("run.duration_s", "120")]);
    let f = &r.flows[0];
    assert!(f.timeouts >= 1);
    assert_eq!(f.frto_spurious_timeouts, 0);
    assert_eq!(f.delivered_bytes, 3_000_000);
}

/// The `linux` profile (SACK, RACK, F-RTO) on the two-hop path with a 20-segment receive
/// window and a one-second delay spike at 5 s: the timeout during the spike is spurious.
fn spike_then(lost: &str) -> wtcp_engine::RunResult {
    two_hop(&[
        ("profile", "\"linux\""),
        ("run.duration_s", "12"),
        ("tcp.recv_buffer_bytes", "20000"),
        ("links.1.ab.delay_spikes", "[{ start_s = 5.0, duration_s = 0.02, extra_delay_ms = 1000.0 }]"),
        ("links.1.ab.loss", lost),
        ("trace.enabled", "true"),
    ])
}

#[test]
fn after_a_timeout_found_spurious_a_loss_starts_a_fast_recovery() {
    // Which data packet left during the spike, from a lossless run.
    let clean = spike_then("{ model = \"list\", packets = [] }");
    assert_eq!((clean.flows[0].timeouts, clean.flows[0].frto_spurious_timeouts), (1, 1), "{:?}", clean.flows[0]);
    let t = clean.traces.as_ref().unwrap();
    let col = |name: &str| &t.flow_columns.iter().find(|(n, _)| *n == name).unwrap().1;
    let i = t.flow_time.iter().position(|&x| x >= 5.1).unwrap();
    let k = (col("snd_max")[i] / 1000.0) as u64 - 2;
    // It is lost: below the timeout's recovery point. Linux is open again after the undo
    // (tcp_try_undo_loss) and repairs it by a fast recovery; no second timeout.
    let r = spike_then(&format!("{{ model = \"list\", packets = [{k}] }}"));
    let f = &r.flows[0];
    assert_eq!(f.frto_spurious_timeouts, 1, "{f:?}");
    assert_eq!((f.timeouts, f.fast_retransmits), (1, 1), "{f:?}");
}
