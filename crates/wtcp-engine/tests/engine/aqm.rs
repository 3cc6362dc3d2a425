//! Active queue management end to end: RED with ECN, and the congestion warning.

use crate::common;

use common::two_hop;

const RED_ECN: &str = "{ discipline = \"red\", limit_packets = 100, min_th = 5, max_th = 15, max_p = 0.1, weight = 0.02, ecn = true }";

#[test]
fn red_with_ecn_keeps_the_queue_short_without_losses() {
    // RFC 3168: ECN-capable segments are marked, the sender halves on the echo, no drops.
    let r = two_hop(&[("links.1.queue", RED_ECN), ("tcp.ecn", "true"), ("run.measure_from_s", "2")]);
    let f = &r.flows[0];
    assert_eq!(r.drops[2].queue, 0, "{:?}", r.drops[2]);
    assert_eq!(f.fast_retransmits + f.timeouts, 0);
    // The mean RTT stays near the base RTT plus a few packets of queue (15 x 4.16 ms).
    assert!(f.mean_srtt_s.unwrap() < 0.027 + 0.07, "{:?}", f.mean_srtt_s);
    assert!(f.goodput_bps > 0.9 * 2e6 * 1000.0 / 1040.0, "{}", f.goodput_bps);
}

#[test]
fn red_without_ecn_drops_early() {
    let r = two_hop(&[("links.1.queue", RED_ECN)]);
    assert!(r.drops[2].queue > 0);
    assert!(r.flows[0].fast_retransmit_causes.congestion > 0);
}

#[test]
fn droptail_fills_the_buffer_where_red_does_not() {
    let drop_tail = two_hop(&[("run.measure_from_s", "2")]);
    let red = two_hop(&[("links.1.queue", RED_ECN), ("tcp.ecn", "true"), ("run.measure_from_s", "2")]);
    assert!(drop_tail.flows[0].mean_srtt_s.unwrap() > 2.0 * red.flows[0].mean_srtt_s.unwrap());
}

#[test]
fn congestion_warning_marks_without_dropping_and_reno_answers_the_echo() {
    let cw = "{ discipline = \"cw\", limit_packets = 100, threshold = 10, weight = 0.2 }";
    let r = two_hop(&[("links.1.queue", cw)]);
    assert_eq!(r.drops[2].queue, 0);
    assert_eq!(r.flows[0].fast_retransmits, 0);
}

#[test]
fn discipline_options_of_another_discipline_are_refused() {
    let text = common::TWO_HOP;
    let ov = vec![("links.1.queue".to_string(), "{ limit_packets = 10, threshold = 3 }".to_string())];
    let e = wtcp_engine::Scenario::from_toml_str(text, &ov).unwrap_err();
    assert_eq!(e.path, "links.1.queue.threshold");
}

#[test]
fn an_early_drop_on_an_idle_red_link_does_not_freeze_the_average() {
    // RED with its default weight (0.002) and ECN on the EWR dumbbell's bottleneck, with
    // NewReno and the reverse flow: a packet dropped early while the link is idle must
    // restart the idle clock, or the average never decays, every later arrival is
    // dropped and the flows starve (0 goodput before the fix).
    let sc = common::load(
        "python/wtcp/papers/ewr/ewr-dumbbell.toml",
        &[
            ("run.duration_s", "60"),
            ("flows.0.cc", "newreno"),
            ("links.1.queue", "{ discipline = \"red\", limit_packets = 100, ecn = true }"),
            ("tcp.ecn", "true"),
        ],
    );
    let r = wtcp_engine::run(&sc);
    assert!(r.flows[0].goodput_bps > 1e6, "{}", r.flows[0].goodput_bps);
}
