//! RFC 8985 RACK loss detection at the scenario level.

use crate::common;

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

/// The `linux` profile (RACK, F-RTO, SACK, Linux's RTO estimator) on the 200 ms path with
/// uniform loss of data packets; `rearm`: the RTO re-armed by the head's retransmission.
fn lossy(cc: &str, rate: &str, rearm: &str) -> RunResult {
    two_hop(&[
        ("profile", "\"linux\""),
        ("run.duration_s", "60"),
        ("flows.0.cc", cc),
        ("links.0.delay_ms", "99"),
        ("links.1.ab.loss", &format!("{{ model = \"uniform\", rate = {rate} }}")),
        ("tcp.rearm_rto_on_head_retransmit", rearm),
    ])
}

#[test]
fn a_timeout_after_a_real_loss_is_not_judged_spurious_by_frto() {
    // RACK marks lost what the head's retransmission overtakes; those marks must not turn
    // F-RTO's new-data probes into retransmissions (which would make step 3b call the
    // timeout spurious when its head was in fact dropped).
    let r = lossy("\"newreno\"", "0.1", "true");
    let f = &r.flows[0];
    assert!(f.timeouts > 0, "the test needs timeouts");
    assert!(f.frto_spurious_timeouts <= f.timeout_causes.spurious, "{} judged spurious, {:?}", f.frto_spurious_timeouts, f.timeout_causes);
}

#[test]
fn rearming_the_rto_on_the_heads_retransmission_stops_timeouts_while_it_is_in_flight() {
    // RACK marks the head lost later than a third duplicate ACK would; an RTO armed at the
    // last cumulative ACK then fires while the retransmission is still on its way (a
    // timeout whose segment was not lost: cause "spurious").
    let without = &lossy("\"newreno\"", "0.05", "false").flows[0];
    let with = &lossy("\"newreno\"", "0.05", "true").flows[0];
    assert!(without.timeout_causes.spurious > 0, "{:?}", without.timeout_causes);
    assert_eq!(with.timeout_causes.spurious, 0, "{:?}", with.timeout_causes);
    assert!(with.timeouts < without.timeouts, "{} vs {}", with.timeouts, without.timeouts);
}

#[test]
fn an_algorithm_without_fast_recovery_keeps_one_loss_event_per_lost_segment() {
    // EWR (fast retransmit only) has no recovery episode to bound RACK's marks (each ACK
    // with a mark would start another loss event): it keeps the duplicate-ACK rule.
    let rack = lossy("\"ewr\"", "0.01", "true");
    let mut dupack_ov = vec![("tcp.loss_detection", "\"dupack\"")];
    dupack_ov.extend([("profile", "\"linux\""), ("run.duration_s", "60"), ("flows.0.cc", "\"ewr\""), ("links.0.delay_ms", "99"), ("links.1.ab.loss", "{ model = \"uniform\", rate = 0.01 }")]);
    let dupack = two_hop(&dupack_ov);
    assert_eq!(rack.flows[0].fast_retransmits, dupack.flows[0].fast_retransmits);
    assert_eq!(rack.flows[0].retransmitted_segments, dupack.flows[0].retransmitted_segments);
}
