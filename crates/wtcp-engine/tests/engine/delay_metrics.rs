//! Delay as a result (`metrics.delays = true`): one-way delay and RTT percentiles per
//! flow, queueing (sojourn) delay per link direction, over the measurement window.

use crate::common;

use common::two_hop;
use wtcp_engine::time::tx_time;

#[test]
fn an_unqueued_cbr_flow_sees_exactly_the_path_delay() {
    // 1000-byte datagrams (1028 on the wire) at 0.5 Mb/s: never queued on 10 + 2 Mb/s.
    let r = two_hop(&[("metrics.delays", "true"), ("flows.0", "{ kind = \"cbr\", name = \"cbr\", src = \"S\", dst = \"D\", rate_mbps = 0.5, packet_bytes = 1000 }")]);
    let f = &r.flows[0];
    let path_ms = (tx_time(1028, 10e6) + 10_000_000 + tx_time(1028, 2e6) + 1_000_000) as f64 / 1e6;
    for v in [f.delay_mean_ms, f.delay_p50_ms, f.delay_p95_ms, f.delay_p99_ms] {
        assert!((v.unwrap() - path_ms).abs() < 1e-9, "{v:?} vs {path_ms}");
    }
    assert_eq!(f.rtt_p50_ms, None, "a CBR flow has no RTT samples");
    assert!(r.drops.iter().all(|d| d.sojourn_p95_ms.is_none_or(|v| v == 0.0)), "nothing waits in a queue");
}

#[test]
fn a_bulk_flow_queues_at_the_bottleneck_and_its_delays_say_so() {
    let r = two_hop(&[("metrics.delays", "true"), ("run.measure_from_s", "5.0")]);
    let f = &r.flows[0];
    let (p50, p95, p99) = (f.delay_p50_ms.unwrap(), f.delay_p95_ms.unwrap(), f.delay_p99_ms.unwrap());
    assert!(p50 <= p95 && p95 <= p99, "{p50} {p95} {p99}");
    // At least the empty path; at most the path plus a full 100-packet queue at 2 Mb/s.
    let path_ms = (tx_time(1040, 10e6) + 10_000_000 + tx_time(1040, 2e6) + 1_000_000) as f64 / 1e6;
    let full_ms = 100.0 * tx_time(1040, 2e6) as f64 / 1e6;
    assert!(p50 > path_ms && p99 <= (path_ms + full_ms) * 1.01, "{p50} {p99} path {path_ms} queue {full_ms}");
    // The RTT adds the ACK path and the receiver's delayed ACKs: above the one-way delay.
    assert!(f.rtt_p50_ms.unwrap() > p50);
    // The bottleneck direction (wireless BS -> D) holds the queue; its sojourn explains
    // the one-way delay above the path's.
    let bottleneck = r.drops.iter().find(|d| d.link == "wireless" && d.from == "BS").unwrap();
    let sojourn = bottleneck.sojourn_mean_ms.unwrap();
    assert!((f.delay_mean_ms.unwrap() - path_ms - sojourn).abs() < 0.05 * sojourn, "{f:?} {bottleneck:?}");
}

#[test]
fn codel_at_the_bottleneck_keeps_the_standing_queue_near_its_target() {
    let bottleneck = |r: &wtcp_engine::RunResult| r.drops.iter().find(|d| d.link == "wireless" && d.from == "BS").unwrap().clone();
    let droptail = two_hop(&[("metrics.delays", "true"), ("run.measure_from_s", "5.0")]);
    let codel = two_hop(&[("metrics.delays", "true"), ("run.measure_from_s", "5.0"), ("links.1.queue", "{ discipline = \"codel\", limit_packets = 100 }")]);
    let (d, c) = (bottleneck(&droptail), bottleneck(&codel));
    // DropTail fills its 100 packets (400 ms at 2 Mb/s); CoDel drops at dequeue until the
    // sojourn falls under 5 ms, so what stands is a few packets of 4.2 ms each.
    assert!(d.sojourn_mean_ms.unwrap() > 100.0, "{d:?}");
    assert!(c.sojourn_mean_ms.unwrap() < 20.0 && c.sojourn_p95_ms.unwrap() < 60.0, "{c:?}");
    assert!(c.queue > 0, "CoDel's drops count as queue drops: {c:?}");
    // The link stays busy: goodput within 10 % of DropTail's.
    assert!(codel.flows[0].goodput_bps > 0.9 * droptail.flows[0].goodput_bps, "{} vs {}", codel.flows[0].goodput_bps, droptail.flows[0].goodput_bps);
    // With ECN on both sides CoDel marks instead: no queue drops, the same short queue.
    let ecn = two_hop(&[("metrics.delays", "true"), ("run.measure_from_s", "5.0"), ("tcp.ecn", "true"), ("links.1.queue", "{ discipline = \"codel\", ecn = true, limit_packets = 100 }")]);
    let e = bottleneck(&ecn);
    assert_eq!(e.queue, 0, "{e:?}");
    assert!(e.sojourn_mean_ms.unwrap() < 20.0, "{e:?}");
}

#[test]
fn without_metrics_delays_nothing_is_recorded() {
    let r = two_hop(&[("run.measure_from_s", "5.0")]);
    assert!(r.flows[0].delay_p50_ms.is_none() && r.flows[0].rtt_p50_ms.is_none());
    assert!(r.drops.iter().all(|d| d.sojourn_mean_ms.is_none()));
}

#[test]
fn pie_at_the_bottleneck_holds_the_queueing_delay_near_its_target() {
    let bottleneck = |r: &wtcp_engine::RunResult| r.drops.iter().find(|d| d.link == "wireless" && d.from == "BS").unwrap().clone();
    let droptail = two_hop(&[("metrics.delays", "true"), ("run.measure_from_s", "5.0")]);
    let pie = two_hop(&[("metrics.delays", "true"), ("run.measure_from_s", "5.0"), ("links.1.queue", "{ discipline = \"pie\", limit_packets = 100 }")]);
    let (d, p) = (bottleneck(&droptail), bottleneck(&pie));
    // RFC 8033's target is 15 ms: the mean sojourn settles around it, far below DropTail's.
    let mean = p.sojourn_mean_ms.unwrap();
    assert!((5.0..40.0).contains(&mean) && mean < d.sojourn_mean_ms.unwrap() / 3.0, "{p:?} vs {d:?}");
    assert!(p.queue > 0, "{p:?}");
    assert!(pie.flows[0].goodput_bps > 0.9 * droptail.flows[0].goodput_bps, "{} vs {}", pie.flows[0].goodput_bps, droptail.flows[0].goodput_bps);
}
