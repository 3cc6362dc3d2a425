//! Queue disciplines on 802.11 interface queues (`[[wifi]] queue = {...}`, and a
//! station's own `queue`), and FQ-CoDel on a link.

use crate::common;

use common::{load, two_hop};
use wtcp_engine::time::tx_time;
use wtcp_engine::RunResult;

fn wifi_one_hop(overrides: &[(&str, &str)]) -> RunResult {
    let mut all = vec![("run.duration_s", "30"), ("metrics.delays", "true")];
    all.extend_from_slice(overrides);
    wtcp_engine::run(&load("python/wtcp/scenarios/wifi-one-hop.toml", &all))
}

fn ap(r: &RunResult) -> &wtcp_engine::result::WifiStationResult {
    r.wifi.iter().find(|s| s.node == "AP").unwrap()
}

#[test]
fn codel_on_the_access_point_cuts_the_download_delay_and_keeps_the_goodput() {
    // The AP's 50-packet DropTail queue fills (about 1.5 ms of air per 1500-byte frame at
    // 11 Mb/s with DCF overhead: some 90 ms of queue); CoDel holds its sojourn near 5 ms.
    let droptail = wifi_one_hop(&[]);
    let codel = wifi_one_hop(&[("wifi.0.queue", "{ discipline = \"codel\" }")]);
    let (d, c) = (&droptail.flows[0], &codel.flows[0]);
    assert!(d.delay_p50_ms.unwrap() > 50.0, "{d:?}");
    assert!(c.delay_p50_ms.unwrap() < d.delay_p50_ms.unwrap() / 3.0, "{} vs {}", c.delay_p50_ms.unwrap(), d.delay_p50_ms.unwrap());
    assert!(c.goodput_bps > 0.9 * d.goodput_bps, "{} vs {}", c.goodput_bps, d.goodput_bps);
    // CoDel's drops at dequeue are the AP's queue drops, and TCP sees them as congestion.
    assert!(ap(&codel).queue_drops > 0 && c.fast_retransmit_causes.congestion > 0, "{:?}", ap(&codel));
    // The queue table without a limit takes `queue_packets` (50): same limit, same
    // DropTail as `queue_packets` alone.
    let explicit = wifi_one_hop(&[("wifi.0.queue", "{ discipline = \"droptail\" }")]);
    assert_eq!(common::fingerprint(&explicit), common::fingerprint(&droptail));
}

#[test]
fn a_station_queue_overrides_the_channel_queue() {
    // CoDel on the channel, DropTail on the AP alone: the AP's queue is DropTail again.
    let r = wifi_one_hop(&[("wifi.0.queue", "{ discipline = \"codel\" }"), ("wifi.0.stations.0.queue", "{ discipline = \"droptail\" }")]);
    assert_eq!(common::fingerprint(&r), common::fingerprint(&wifi_one_hop(&[])));
}

#[test]
fn ecn_marks_from_codel_on_wifi_replace_its_drops() {
    let r = wifi_one_hop(&[("tcp.ecn", "true"), ("wifi.0.queue", "{ discipline = \"codel\", ecn = true }")]);
    assert_eq!(ap(&r).queue_drops, 0, "{:?}", ap(&r));
    assert_eq!(r.flows[0].fast_retransmits, 0);
    assert!(r.flows[0].delay_p50_ms.unwrap() < 30.0, "{:?}", r.flows[0]);
}

#[test]
fn the_congestion_warning_on_the_access_point_reaches_jersey() {
    // TCP-Jersey's mark on an 802.11 interface queue: the sender answers it, so the AP
    // queue never overflows, and no warning about a missing "cw" queue is given.
    let cw = "{ discipline = \"cw\", threshold = 10, weight = 0.2 }";
    let run = |extra: &[(&str, &str)]| {
        let mut o = vec![("run.duration_s", "30"), ("flows.0.cc", "jersey")];
        o.extend_from_slice(extra);
        wtcp_engine::run(&load("python/wtcp/scenarios/wifi-one-hop.toml", &o))
    };
    let marked = run(&[("wifi.0.queue", cw)]);
    assert!(marked.warnings.iter().all(|w| !w.contains("congestion-warning")), "{:?}", marked.warnings);
    assert_eq!(ap(&marked).queue_drops, 0, "{:?}", ap(&marked));
    let unmarked = run(&[]);
    assert!(unmarked.warnings.iter().any(|w| w.contains("congestion-warning")), "{:?}", unmarked.warnings);
    assert!(ap(&unmarked).queue_drops > 0);
}

#[test]
fn fq_codel_isolates_a_sparse_flow_from_a_bulk_one() {
    // RFC 8290 §1.3: a bulk TCP flow and a sparse CBR flow (0.1 Mb/s of 200-byte datagrams)
    // share the 2 Mb/s bottleneck. DropTail and CoDel make the CBR packets wait behind
    // the bulk flow's queue; FQ-CoDel sends each one after at most the bulk packet in
    // transmission.
    let cbr = "{ kind = \"cbr\", name = \"sparse\", src = \"S\", dst = \"D\", rate_mbps = 0.1, packet_bytes = 200 }";
    let run = |queue: &str| two_hop(&[("metrics.delays", "true"), ("run.measure_from_s", "5.0"), ("flows.1", cbr), ("links.1.queue", queue)]);
    let droptail = run("{ limit_packets = 100 }");
    let codel = run("{ discipline = \"codel\", limit_packets = 100 }");
    let fq = run("{ discipline = \"fq_codel\" }");
    let path_ms = (tx_time(228, 10e6) + 10_000_000 + tx_time(228, 2e6) + 1_000_000) as f64 / 1e6;
    let bulk_packet_ms = tx_time(1040, 2e6) as f64 / 1e6;
    let first_hop_packet_ms = tx_time(1040, 10e6) as f64 / 1e6;
    let sparse = |r: &RunResult| r.flows[1].clone();
    assert!(sparse(&droptail).delay_p50_ms.unwrap() > path_ms + 100.0, "{:?}", sparse(&droptail));
    // CoDel keeps a standing queue near its 5 ms target, and the sparse flow waits in it.
    assert!(sparse(&codel).delay_p50_ms.unwrap() > path_ms + 5.0, "{:?}", sparse(&codel));
    // FQ-CoDel: a CBR packet waits for little more than the bulk packet on the wire, its
    // median under one bulk packet (isolation from the FIFO's queue; the new-list
    // priority itself is checked in `net/fq_codel.rs`).
    let f = sparse(&fq);
    assert!(f.delay_p50_ms.unwrap() < path_ms + bulk_packet_ms, "{f:?} path {path_ms}");
    // At worst the bulk queue is new as well (it emptied after a drop) and is ahead with
    // its quantum (two packets): three bulk packets, plus a short wait on the first hop.
    assert!(f.delay_p99_ms.unwrap() < path_ms + 3.0 * bulk_packet_ms + 2.0 * first_hop_packet_ms, "{f:?} path {path_ms}");
    // The bulk flow keeps the link busy.
    assert!(fq.flows[0].goodput_bps > 0.9 * droptail.flows[0].goodput_bps, "{} vs {}", fq.flows[0].goodput_bps, droptail.flows[0].goodput_bps);
}

#[test]
fn interface_queue_mistakes_name_the_field() {
    let text = std::fs::read_to_string(common::repo_path("python/wtcp/scenarios/wifi-one-hop.toml")).unwrap();
    let error = |ov: &[(&str, &str)]| {
        let ov: Vec<(String, String)> = ov.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        wtcp_engine::Scenario::from_toml_str(&text, &ov).expect_err("rejected")
    };
    // Two places for one limit.
    let e = error(&[("wifi.0.queue", "{ discipline = \"codel\", limit_packets = 20 }")]);
    assert_eq!(e.path, "wifi.0.queue_packets", "{e}");
    let e = error(&[("wifi.0.stations.1.queue", "{ discipline = \"pie\", interval_ms = 5 }")]);
    assert_eq!(e.path, "wifi.0.stations.1.queue.interval_ms", "{e}");
    let e = error(&[("wifi.0.queue", "{ discipline = \"cw\" }")]);
    assert_eq!(e.path, "wifi.0.queue.threshold", "{e}");
}

#[test]
fn a_profile_fills_the_interface_queue_limit_only_where_no_queue_table_states_one() {
    // The ns3 profile's WifiMacQueue (500 packets, the one in service included: 499 waiting)
    // becomes a limit-less table's limit; a stated limit is kept.
    let text = std::fs::read_to_string(common::repo_path("python/wtcp/scenarios/wifi-one-hop.toml")).unwrap().replace("queue_packets = 50\n", "");
    let resolve = |ov: &[(&str, &str)]| {
        let mut all = vec![("profile", "\"ns3\"")];
        all.extend_from_slice(ov);
        let ov: Vec<(String, String)> = all.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        wtcp_engine::Scenario::from_toml_str(&text, &ov).unwrap()
    };
    assert_eq!(resolve(&[("wifi.0.queue", "{ discipline = \"codel\" }")]).wifi[0].queues[0].limit_packets, Some(499));
    let stated = resolve(&[("wifi.0.queue", "{ discipline = \"codel\", limit_bytes = 30000 }")]);
    assert_eq!((stated.wifi[0].queues[1].limit_packets, stated.wifi[0].queues[1].limit_bytes), (None, Some(30_000)));
    // FQ-CoDel without any limit anywhere (no profile): its own 10240 packets.
    let plain = std::fs::read_to_string(common::repo_path("python/wtcp/scenarios/wifi-one-hop.toml")).unwrap().replace("queue_packets = 50\n", "");
    let sc = wtcp_engine::Scenario::from_toml_str(&plain, &[("wifi.0.queue".to_string(), "{ discipline = \"fq_codel\" }".to_string())]).unwrap();
    assert_eq!(sc.wifi[0].queues[0].limit_packets, Some(10_240));
}
