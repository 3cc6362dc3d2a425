//! TCP-Jersey / New Jersey / NJ+ mechanisms on the NJ+ paper's two-hop path
//! (`njplus-two-hop`: S -100 Mb/s, 45 ms- BS -2 Mb/s, 1 ms, lossy- D, congestion-warning
//! queue on the wireless hop, 726-byte segments, timestamps on).

use crate::common;

use common::load;
use wtcp_engine::RunResult;

const SCENARIO: &str = "python/wtcp/scenarios/njplus-two-hop.toml";

/// Payload bytes per second the 2 Mb/s hop carries: 726-byte segments in 778-byte packets
/// (40 bytes of IP/TCP header and 12 of timestamps option).
const PAYLOAD_RATE: f64 = 2e6 / 8.0 * 726.0 / 778.0;

fn run(overrides: &[(&str, &str)]) -> RunResult {
    wtcp_engine::run(&load(SCENARIO, overrides))
}

/// One algorithm variable of one flow, as sampled by the trace.
fn cc_series(r: &RunResult, flow: u32, name: &str) -> Vec<f64> {
    let t = r.traces.as_ref().expect("traced run");
    (0..t.cc_name.len()).filter(|&i| t.cc_flow[i] == flow && t.cc_name[i] == name).map(|i| t.cc_value[i]).collect()
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

#[test]
fn the_receiver_timed_estimate_does_not_read_above_the_bottleneck_rate() {
    // NJ+ l.124: R_rn counts "the length of the n-th data packet" at its arrival, so on a
    // single-flow path it is a weighted mean of rates the bottleneck delivered.
    for loss in ["0.01", "0.05"] {
        let ov = [("flows.0.cc", "newjersey"), ("links.1.ab.loss.rate", loss), ("run.duration_s", "60"), ("trace.enabled", "true"), ("trace.interval_ms", "2")];
        let r = run(&ov);
        assert!(r.flows[0].fast_retransmits > 50, "losses to recover from: {}", r.flows[0].fast_retransmits);
        let tabe = max(&cc_series(&r, 0, "tabe_bps"));
        assert!(tabe <= 1.01 * PAYLOAD_RATE, "loss {loss}: TABE peaked at {:.3}x the payload rate", tabe / PAYLOAD_RATE);
    }
    // With L_n = the whole cumulative-ACK advance the ACK that fills a hole counts every
    // segment the receiver held, and the estimate overshoots.
    let ov = [
        ("flows.0.cc", "newjersey"),
        ("flows.0.cc_params.tabe_bytes", "\"cumulative_ack\""),
        ("flows.0.cc_params.dupack_credit", "false"),
        ("links.1.ab.loss.rate", "0.01"),
        ("run.duration_s", "60"),
        ("trace.enabled", "true"),
        ("trace.interval_ms", "2"),
    ];
    let tabe = max(&cc_series(&run(&ov), 0, "tabe_bps"));
    assert!(tabe > 1.3 * PAYLOAD_RATE, "{:.3}", tabe / PAYLOAD_RATE);
}

#[test]
fn njplus_takes_the_max_of_jerseys_abe_and_new_jerseys_tabe() {
    // MABE (Fig. 2): R_sn is Jersey's ABE, one data packet per ACK (l.86, l.124: a
    // duplicate counts its segment, the ACK that fills a hole its own), R_rn New Jersey's
    // TABE: on this path neither reads above the bottleneck rate, nor their max.
    let base = [("flows.0.cc", "njplus"), ("links.1.ab.loss.rate", "0.01"), ("run.duration_s", "60"), ("trace.enabled", "true"), ("trace.interval_ms", "2")];
    let r = run(&base);
    let (rate, abe, tabe) = (max(&cc_series(&r, 0, "rate_bps")), max(&cc_series(&r, 0, "abe_bps")), max(&cc_series(&r, 0, "tabe_bps")));
    assert!(rate <= 1.01 * PAYLOAD_RATE, "{:.3}", rate / PAYLOAD_RATE);
    assert_eq!(rate, abe.max(tabe));
    // The earlier reading, L_n = the whole cumulative advance (`dupack_credit = false`):
    // the ACK that fills a hole acknowledges every segment the receiver held, R_sn jumps
    // above the bottleneck rate, and the maximum takes the jump.
    let mut whole = base.to_vec();
    whole.push(("flows.0.cc_params.new_jersey.dupack_credit", "false"));
    let r = run(&whole);
    let (rate, abe, tabe) = (max(&cc_series(&r, 0, "rate_bps")), max(&cc_series(&r, 0, "abe_bps")), max(&cc_series(&r, 0, "tabe_bps")));
    assert!(rate > 1.3 * PAYLOAD_RATE, "{:.3}", rate / PAYLOAD_RATE);
    assert_eq!(rate, abe);
    assert!(tabe <= 1.01 * PAYLOAD_RATE, "{:.3}", tabe / PAYLOAD_RATE);
    // With `abe_bytes = "received"` both recursions count the data that reached the
    // receiver: on this path (no reverse traffic, ACK spacing = arrival spacing) neither
    // reads above the bottleneck rate, nor their max.
    let mut received = base.to_vec();
    received.push(("flows.0.cc_params.new_jersey.abe_bytes", "\"received\""));
    let rate = max(&cc_series(&run(&received), 0, "rate_bps"));
    assert!(rate <= 1.01 * PAYLOAD_RATE, "{:.3}", rate / PAYLOAD_RATE);
}

/// Ten New Jersey flows 0.1 s apart on the congestion-warning queue, no random loss.
fn ten_flows(grow_on_marked_acks: &str) -> RunResult {
    run(&[
        ("flows.0.cc", "newjersey"),
        ("flows.0.cc_params.grow_on_marked_acks", grow_on_marked_acks),
        ("flows.0.count", "10"),
        ("flows.0.start_stagger_s", "0.1"),
        ("links.1.ab.loss.rate", "0.0"),
        ("run.duration_s", "100"),
        ("trace.enabled", "true"),
    ])
}

/// Flows whose cwnd never exceeds 2.5 segments in the second half of the run.
fn flows_held_at_two_segments(r: &RunResult) -> usize {
    let t = r.traces.as_ref().unwrap();
    let cwnd = &t.flow_columns.iter().find(|(n, _)| *n == "cwnd").unwrap().1;
    (0..r.flows.len() as u32)
        .filter(|&f| {
            let peak = (0..cwnd.len()).filter(|&i| t.flow_id[i] == f && t.flow_time[i] >= 50.0).map(|i| cwnd[i]).fold(0.0, f64::max);
            peak <= 2.5 * 726.0
        })
        .count()
}

fn queue_drops_after(r: &RunResult, t0: f64) -> usize {
    r.traces.as_ref().unwrap().drop_time.iter().filter(|&&t| t > t0).count()
}

#[test]
fn without_growth_on_marked_acks_the_warning_queue_bounds_the_buffer_and_holds_windows() {
    // Default: no marked ACK grows the window (RFC 3168 §6.1.2; ns-2 TcpAgent). The queue
    // never overflows once the flows are in ("The buffer of the router is also controlled
    // by the CW mechanism", NJ+ l.190), and windows move only at cuts to ownd: flows that
    // started while the average queue was above the threshold were cut to the ownd floor
    // (2 segments) and stay there.
    let r = ten_flows("false");
    assert_eq!(queue_drops_after(&r, 10.0), 0);
    assert!(flows_held_at_two_segments(&r) >= 5, "{}", flows_held_at_two_segments(&r));
}

#[test]
fn with_growth_on_marked_acks_no_flow_is_held_at_two_segments() {
    // The ns-3 port's reading: marked ACKs grow the window between the once-per-window cuts.
    // Every flow leaves the ownd floor; the queue then overflows.
    let r = ten_flows("true");
    assert_eq!(flows_held_at_two_segments(&r), 0);
    assert!(queue_drops_after(&r, 10.0) > 100, "{}", queue_drops_after(&r, 10.0));
}
