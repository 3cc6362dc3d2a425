//! Link-layer retransmission (ARQ) with a retry limit, and its cross-layer hint.

use crate::common;

use common::two_hop;

/// A CBR source S -> D at 1 Mb/s instead of the TCP flow, for counting frames.
fn cbr(overrides: &[(&str, &str)]) -> wtcp_engine::RunResult {
    let mut ov = vec![
        ("flows.0", "{ kind = \"cbr\", name = \"cbr\", src = \"S\", dst = \"D\", rate_mbps = 1.0, packet_bytes = 1000 }"),
        ("run.duration_s", "200"),
    ];
    ov.extend_from_slice(overrides);
    two_hop(&ov)
}

#[test]
fn retry_limit_drops_match_the_geometric_expectation() {
    // Per-attempt loss p = 0.3 and 2 retries: a frame is lost with p^3 = 0.027, and the
    // mean number of retries per frame is p + p^2 = 0.39.
    let r = cbr(&[("links.1.ab.loss", "{ model = \"uniform\", rate = 0.3 }"), ("links.1.ab.arq", "{ retry_limit = 2 }")]);
    let d = &r.drops[2];
    let frames = r.flows[0].segments_sent as f64;
    let p_drop = d.retry_limit_drops as f64 / frames;
    let sigma = (0.027f64 * 0.973 / frames).sqrt();
    assert!((p_drop - 0.027).abs() < 4.0 * sigma, "{p_drop} over {frames} frames");
    let retries = d.arq_retries as f64 / frames;
    assert!((retries - 0.39).abs() < 0.02, "{retries}");
    assert_eq!(d.channel, d.retry_limit_drops);
    // Everything else arrives, but for the few datagrams still on the way when the run ends.
    let in_flight = frames - d.retry_limit_drops as f64 - r.flows[0].packets_received as f64;
    assert!((0.0..=3.0).contains(&in_flight), "{in_flight}");
}

#[test]
fn without_loss_the_link_layer_never_retries() {
    let r = cbr(&[("links.1.ab.arq", "{ retry_limit = 7 }")]);
    assert_eq!((r.drops[2].arq_retries, r.drops[2].retry_limit_drops), (0, 0));
}

#[test]
fn arq_hides_most_channel_loss_from_tcp() {
    let plain = two_hop(&[("links.1.ab.loss", "{ model = \"uniform\", rate = 0.05 }")]);
    let arq = two_hop(&[("links.1.ab.loss", "{ model = \"uniform\", rate = 0.05 }"), ("links.1.ab.arq", "{ retry_limit = 3 }")]);
    assert!(arq.flows[0].fast_retransmits * 10 < plain.flows[0].fast_retransmits.max(1));
    assert!(arq.flows[0].goodput_bps > plain.flows[0].goodput_bps);
}
