//! The connection handshake (`tcp.handshake = true`) and the flow completion time.

use crate::common;

use common::two_hop;
use wtcp_engine::RunResult;

/// A 100 kB transfer starting at 1 s over the two-hop path (RTT about 22 ms plus queueing).
fn transfer(extra: &[(&str, &str)]) -> RunResult {
    let mut ov = vec![("run.duration_s", "30"), ("flows.0.start_s", "1.0"), ("flows.0.bytes", "100000"), ("tcp.handshake", "true")];
    ov.extend_from_slice(extra);
    two_hop(&ov)
}

#[test]
fn the_handshake_costs_one_round_trip_and_its_syn_ack_gives_the_first_rtt_sample() {
    let with = transfer(&[]);
    let f = &with.flows[0];
    assert_eq!(f.syns_sent, 1);
    let hs = f.handshake_s.unwrap();
    // Base RTT: 2 x (10 + 1) ms of propagation plus two SYN-sized packets' transmission.
    assert!((0.022..0.03).contains(&hs), "{hs}");
    let without = transfer(&[("tcp.handshake", "false")]);
    assert_eq!(without.flows[0].syns_sent, 0);
    assert!(without.flows[0].handshake_s.is_none());
    let (a, b) = (f.fct_s.unwrap(), without.flows[0].fct_s.unwrap());
    // The handshake adds about its round trip to the completion time.
    assert!((a - b - hs).abs() < 0.01, "fct {a} with, {b} without, handshake {hs}");
    assert_eq!(f.delivered_bytes, 100_000);
}

#[test]
fn a_lost_syn_costs_one_initial_rto() {
    // The first packet on S -> BS is the SYN.
    let lost = transfer(&[("links.0.ab.loss", "{ model = \"list\", packets = [1] }"), ("links.0.ab.loss_applies_to", "all")]);
    let f = &lost.flows[0];
    assert_eq!(f.syns_sent, 2);
    let hs = f.handshake_s.unwrap();
    let clean = transfer(&[]).flows[0].handshake_s.unwrap();
    // RFC 6298 §2.1: the initial RTO is 1 s.
    assert!((hs - clean - 1.0).abs() < 1e-6, "{hs} vs {clean}");
    assert_eq!(f.delivered_bytes, 100_000);
    assert!(f.fct_s.unwrap() > 1.0 + clean);
    // RFC 5681 §3.1: after a lost SYN the first flight is one segment (10 without the loss).
    let first_cwnd = |r: &RunResult| {
        let t = r.traces.as_ref().unwrap();
        let cwnd = &t.flow_columns.iter().find(|(n, _)| *n == "cwnd").unwrap().1;
        let una = &t.flow_columns.iter().find(|(n, _)| *n == "snd_max").unwrap().1;
        (0..cwnd.len()).find(|&i| una[i] > 0.0).map(|i| cwnd[i]).unwrap()
    };
    let traced = [("trace.enabled", "true"), ("trace.interval_ms", "1")];
    let lost_t = transfer(&[("links.0.ab.loss", "{ model = \"list\", packets = [1] }"), ("links.0.ab.loss_applies_to", "all"), traced[0], traced[1]]);
    assert_eq!(first_cwnd(&lost_t), 1000.0);
    assert_eq!(first_cwnd(&transfer(&traced)), 10_000.0);
    // With rto_initial_s = 3 (RFC 2988's value) it costs 3 s.
    let lost3 = transfer(&[
        ("links.0.ab.loss", "{ model = \"list\", packets = [1] }"),
        ("links.0.ab.loss_applies_to", "all"),
        ("tcp.rto_initial_s", "3"),
    ]);
    assert!((lost3.flows[0].handshake_s.unwrap() - clean - 3.0).abs() < 1e-6);
}

#[test]
fn an_unfinished_or_unlimited_transfer_has_no_completion_time() {
    let r = two_hop(&[("run.duration_s", "5")]);
    assert!(r.flows[0].fct_s.is_none());
    let r = two_hop(&[("run.duration_s", "1"), ("flows.0.bytes", "100000000")]);
    assert!(r.flows[0].fct_s.is_none());
}

#[test]
fn the_handshake_ack_is_one_more_packet_and_passes_data_only_loss() {
    // The SYN is the first packet on S -> BS; with `handshake_ack` a pure ACK follows it
    // (RFC 9293 §3.5, ns-3's ProcessSynSent), ahead of the data.
    let sent = |r: &RunResult| r.drops.iter().find(|d| d.from == "S" && d.to == "BS").unwrap().tx_packets;
    let (without, with) = (transfer(&[]), transfer(&[("tcp.handshake_ack", "true")]));
    assert_eq!(sent(&with), sent(&without) + 1);
    assert_eq!(with.flows[0].delivered_bytes, 100_000);
    assert_eq!(with.flows[0].retransmitted_segments, 0);
    // `loss_applies_to = "data"` exposes neither the SYN nor the pure ACK (as ns-3's
    // harness): the first exposed packet is the first data segment, lost and resent.
    let lost = transfer(&[("tcp.handshake_ack", "true"), ("links.0.ab.loss", "{ model = \"list\", packets = [1] }"), ("links.0.ab.loss_applies_to", "data")]);
    assert_eq!(lost.flows[0].syns_sent, 1);
    assert_eq!(lost.flows[0].retransmitted_segments, 1);
    assert_eq!(lost.flows[0].delivered_bytes, 100_000);
}
