//! The tail loss probe (RFC 8985 §7, Linux's rules; `tcp.tail_loss_probe`) at the scenario
//! level: a lost tail is repaired by a probe and a fast recovery instead of a timeout.

use crate::common;

use common::two_hop;
use wtcp_engine::{FlowResult, RunResult};

const MSS: u64 = 1000; // the two-hop path's `tcp.mss_bytes`

/// A 100-segment transfer with the `linux` profile (SACK, RACK, TLP) on the two-hop path
/// with a 100 Mb/s last hop (no queue: the SRTT stays near the 22 ms base RTT), losing the
/// data packets `lost` (tests/python/test_linux_engine.py runs it against the kernel).
fn transfer(probe: bool, lost: &str) -> RunResult {
    two_hop(&[
        ("profile", "\"linux\""),
        ("run.duration_s", "10"),
        ("flows.0.bytes", &(100 * MSS).to_string()),
        ("links.1.rate_mbps", "100"),
        ("links.1.ab.loss", &format!("{{ model = \"list\", packets = {lost} }}")),
        ("tcp.tail_loss_probe", if probe { "true" } else { "false" }),
        ("trace.enabled", "true"),
        ("trace.interval_ms", "1"),
    ])
}

fn flow(r: &RunResult) -> &FlowResult {
    &r.flows[0]
}

#[test]
fn a_lost_tail_is_found_by_one_probe_and_repaired_without_a_timeout() {
    let with = transfer(true, "[99, 100]");
    let without = transfer(false, "[99, 100]");
    // Without the probe only the retransmission timer can repair the two last segments.
    assert_eq!(flow(&without).timeouts, 1, "{:?}", flow(&without));
    assert_eq!(flow(&without).loss_probes, 0);
    // With it: the probe resends segment 100, its SACK lets RACK mark 99 lost, and a fast
    // recovery resends 99.
    let f = flow(&with);
    assert_eq!((f.timeouts, f.loss_probes, f.fast_retransmits, f.retransmitted_segments), (0, 1, 1, 2), "{f:?}");
    // The probe fires two SRTTs + 2 ms (about 46 ms) after the last ACK where the timer
    // waits its RTO (the SRTT + at least 200 ms): the transfer ends over 100 ms sooner.
    let (fast, slow) = (f.fct_s.unwrap(), flow(&without).fct_s.unwrap());
    assert!(slow - fast > 0.1, "fct {fast} s with the probe, {slow} s without");
}

#[test]
fn the_probe_leaves_two_srtts_and_two_ms_after_the_last_ack() {
    // Segments 99 and 100 and the probe (packet 101) are lost: the probe's drop at the
    // second hop shows when it left.
    let r = two_hop(&[
        ("profile", "\"linux\""),
        ("run.duration_s", "2"),
        ("flows.0.bytes", &(100 * MSS).to_string()),
        ("links.1.rate_mbps", "100"),
        ("links.1.ab.loss", "{ model = \"list\", packets = [99, 100, 101] }"),
        ("trace.enabled", "true"),
        ("trace.interval_ms", "0.1"),
    ]);
    assert_eq!(flow(&r).loss_probes, 1);
    let t = r.traces.as_ref().unwrap();
    assert_eq!(t.drop_seq, vec![98 * MSS, 99 * MSS, 99 * MSS], "the probe resends the last segment");
    // The first hop: 10 ms and 1052 bytes (1000 + 40 + 12 of timestamps) at 10 Mb/s.
    let sent = t.drop_time[2] - (0.010 + 1052.0 * 8.0 / 10e6);
    // The ACK of segment 98 (the trace samples every 0.1 ms) and the SRTT it left.
    let i = column(&r, "snd_una").iter().position(|&u| u >= (98 * MSS) as f64).unwrap();
    let (acked, srtt) = (t.flow_time[i], column(&r, "srtt")[i]);
    // Linux tcp_schedule_loss_probe: two segments out, PTO = 2 SRTT + TCP_TIMEOUT_MIN.
    let expected = acked + 2.0 * srtt + 0.002;
    assert!((sent - expected).abs() < 0.0002, "probe at {sent} s, expected {expected} s");
}

#[test]
fn a_probe_that_resends_the_only_lost_segment_ends_the_transfer_without_a_recovery() {
    let r = transfer(true, "[100]");
    let f = flow(&r);
    // The probe is the repair itself: its ACK reaches the end, no recovery starts.
    assert_eq!((f.timeouts, f.loss_probes, f.fast_retransmits, f.retransmitted_segments), (0, 1, 0, 1), "{f:?}");
    assert_eq!(f.delivered_bytes, 100 * MSS);
    // Its ACK reaches exactly the probe's end: Linux cannot tell a repair from a late
    // original there, and nothing is reduced.
    assert!(column(&r, "ssthresh").iter().all(|s| s.is_infinite()));
}

#[test]
fn without_sack_there_is_no_probe() {
    let r = two_hop(&[
        ("profile", "\"linux\""),
        ("tcp.sack", "false"),
        ("tcp.recovery", "\"classic\""),
        ("tcp.tail_loss_probe", "true"),
        ("run.duration_s", "10"),
        ("flows.0.bytes", &(100 * MSS).to_string()),
        ("links.1.ab.loss", "{ model = \"list\", packets = [100] }"),
    ]);
    // Linux `tcp_schedule_loss_probe`: !tcp_is_sack(tp) returns false.
    assert_eq!((flow(&r).loss_probes, flow(&r).timeouts), (0, 1), "{:?}", flow(&r));
}

/// An on/off bulk flow whose first on-period's last data packet is lost: the probe resends
/// it in the silence (its ACK reaches exactly the probe's end, so the episode stays open),
/// and the first ACK beyond it, in the next on-period, reduces the window (RFC 8985 §7.4.2,
/// Linux `tcp_process_tlp_ack`).
fn on_off(probe: bool, lost: Option<u64>) -> RunResult {
    let list = lost.map_or("[]".to_string(), |k| format!("[{k}]"));
    two_hop(&[
        ("profile", "\"linux\""),
        ("run.duration_s", "3"),
        ("flows.0.on_off", "{ on_s = 0.5, off_s = 1.0 }"),
        ("links.1.rate_mbps", "100"),
        ("tcp.recv_buffer_bytes", "100000"),
        ("links.1.ab.loss", &format!("{{ model = \"list\", packets = {list} }}")),
        ("tcp.tail_loss_probe", if probe { "true" } else { "false" }),
        ("trace.enabled", "true"),
        ("trace.interval_ms", "1"),
    ])
}

fn column<'a>(r: &'a RunResult, name: &str) -> &'a [f64] {
    &r.traces.as_ref().unwrap().flow_columns.iter().find(|(n, _)| *n == name).unwrap().1
}

fn at(r: &RunResult, name: &str, time: f64) -> f64 {
    let t = &r.traces.as_ref().unwrap().flow_time;
    let i = t.iter().position(|&x| x >= time).unwrap();
    column(r, name)[i]
}

#[test]
fn a_probe_that_repaired_a_loss_reduces_the_window_at_the_first_ack_beyond_it() {
    // The first on-period's data, from a lossless run: its segments are packets 1..=k.
    let clean = on_off(true, None);
    let k = (at(&clean, "snd_max", 1.2) as u64).div_ceil(MSS);
    let r = on_off(true, Some(k));
    let f = flow(&r);
    assert_eq!((f.timeouts, f.loss_probes, f.fast_retransmits), (0, 1, 0), "{f:?}");
    // The silence keeps the window: ssthresh is still unset before the next on-period
    // (nothing was lost before) ...
    assert!(at(&r, "ssthresh", 1.45).is_infinite(), "ssthresh {}", at(&r, "ssthresh", 1.45));
    // ... and the first ACK of new data beyond the probe (1.5 s + one RTT of about 22 ms)
    // sets ssthresh = cwnd = half the window (Linux's Reno: max(cwnd / 2, 2)), before the
    // window grows on that ACK.
    let before = at(&r, "cwnd", 1.45);
    let cut = column(&r, "ssthresh").iter().position(|s| s.is_finite()).unwrap();
    let t = r.traces.as_ref().unwrap().flow_time[cut];
    assert!((1.5..1.53).contains(&t), "reduced at {t} s");
    let (ssthresh, cwnd) = (column(&r, "ssthresh")[cut], column(&r, "cwnd")[cut]);
    assert_eq!(ssthresh, (before / 2.0 / MSS as f64).floor() * MSS as f64, "cwnd {before} before");
    assert!(cwnd >= ssthresh && cwnd <= ssthresh + 2.0 * MSS as f64, "cwnd {cwnd}, ssthresh {ssthresh}");
    assert!(at(&clean, "ssthresh", 1.9).is_infinite());
    // Without the probe, the timer repairs it and the window restarts from one segment.
    let timer = on_off(false, Some(k));
    assert_eq!(flow(&timer).timeouts, 1);
}
