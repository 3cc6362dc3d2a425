//! TCP behaviour the RFCs define, observed end to end on small networks.

use crate::common;

use common::{fingerprint, two_hop};
use wtcp_engine::time::tx_time;

const MS: f64 = 1e-3;

/// One-way and round-trip times on the test path, from the link parameters.
fn base_rtt_s(data_bytes: u32, ack_bytes: u32) -> f64 {
    let t = |b: u32, rate: f64| tx_time(b, rate) as f64 / 1e9;
    t(data_bytes, 10e6) + 10.0 * MS + t(data_bytes, 2e6) + 1.0 * MS + t(ack_bytes, 2e6) + 1.0 * MS + t(ack_bytes, 10e6) + 10.0 * MS
}

#[test]
fn a_lossless_flow_fills_the_bottleneck() {
    let r = two_hop(&[("run.measure_from_s", "5.0")]);
    let payload_rate = 2e6 * 1000.0 / 1040.0;
    let f = &r.flows[0];
    assert!(f.goodput_bps >= 0.95 * payload_rate, "goodput {} of {}", f.goodput_bps, payload_rate);
    assert!(f.goodput_bps <= payload_rate * 1.0001);
}

#[test]
fn delayed_ack_holds_a_lone_segment_for_the_timer() {
    // RFC 1122 §4.2.3.2 / RFC 5681 §4.2: a single in-order segment is acknowledged when
    // the delayed-ACK timer (200 ms) fires, so the one RTT sample is path RTT + 200 ms.
    let r = two_hop(&[("flows.0.bytes", "1000")]);
    let srtt = r.flows[0].mean_srtt_s.unwrap();
    let expect = base_rtt_s(1040, 40) + 0.2;
    assert!((srtt - expect).abs() < 1e-6, "{srtt} vs {expect}");
}

#[test]
fn without_delayed_ack_a_lone_segment_is_acknowledged_at_once() {
    let r = two_hop(&[("flows.0.bytes", "1000"), ("tcp.delayed_ack", "false")]);
    let srtt = r.flows[0].mean_srtt_s.unwrap();
    assert!((srtt - base_rtt_s(1040, 40)).abs() < 1e-6, "{srtt}");
}

#[test]
fn the_second_segment_triggers_the_delayed_ack() {
    // Two back-to-back segments: the ACK leaves when the second arrives (every 2nd
    // full-sized segment), and the sample is for the second segment (ack - 1).
    let r = two_hop(&[("flows.0.bytes", "2000")]);
    let srtt = r.flows[0].mean_srtt_s.unwrap();
    let t = |b: u32, rate: f64| tx_time(b, rate) as f64 / 1e9;
    // The second segment waits behind the first on both links.
    let expect = base_rtt_s(1040, 40) + t(1040, 10e6).max(t(1040, 2e6));
    assert!((srtt - expect).abs() < 1e-6, "{srtt} vs {expect}");
    assert_eq!(r.flows[0].delivered_bytes, 2000);
}

#[test]
fn a_hand_placed_channel_loss_causes_one_wireless_fast_retransmit() {
    let r = two_hop(&[("links.1.ab.loss", "{ model = \"list\", packets = [30] }")]);
    let f = &r.flows[0];
    assert_eq!(f.fast_retransmits, 1);
    assert_eq!(f.fast_retransmit_causes.wireless, 1);
    assert_eq!(f.timeouts, 0);
    assert_eq!(f.retransmitted_segments, 1);
    assert_eq!(r.drops[2].channel, 1);
}

#[test]
fn newreno_repairs_two_losses_in_one_window_with_one_fast_retransmit() {
    // RFC 6582 §3.2: the partial ACK after the first retransmission triggers the second
    // retransmission at once, inside the same recovery episode.
    let r = two_hop(&[("links.1.ab.loss", "{ model = \"list\", packets = [30, 33] }")]);
    let f = &r.flows[0];
    assert_eq!((f.fast_retransmits, f.timeouts, f.retransmitted_segments), (1, 0, 2));
}

#[test]
fn reno_needs_more_than_one_recovery_for_two_losses_in_one_window() {
    // RFC 5681: Reno leaves recovery on the first new ACK, so the second loss needs a
    // second fast retransmit or a timeout.
    let r = two_hop(&[("flows.0.cc", "reno"), ("links.1.ab.loss", "{ model = \"list\", packets = [30, 33] }")]);
    let f = &r.flows[0];
    assert!(f.fast_retransmits + f.timeouts >= 2, "{f:?}");
}

#[test]
fn queue_overflow_is_classified_as_congestion() {
    let r = two_hop(&[("links.1.queue.limit_packets", "5"), ("tcp.initial_cwnd_segments", "40")]);
    let f = &r.flows[0];
    assert!(r.drops[2].queue > 0);
    assert!(f.fast_retransmits + f.timeouts > 0);
    assert!(f.fast_retransmit_causes.congestion + f.timeout_causes.congestion > 0);
    assert_eq!(f.fast_retransmit_causes.wireless + f.timeout_causes.wireless, 0);
}

#[test]
fn a_delay_spike_without_loss_causes_a_spurious_timeout() {
    // A 20-segment receive window keeps the queues from overflowing: no loss at all.
    let r = two_hop(&[
        ("tcp.recv_buffer_bytes", "20000"),
        ("links.1.ab.delay_spikes", "[{ start_s = 5.0, duration_s = 2.0, extra_delay_ms = 3000.0 }]"),
    ]);
    let f = &r.flows[0];
    assert!(f.timeouts >= 1, "{f:?}");
    assert_eq!(f.timeout_causes.spurious, f.timeouts);
    assert_eq!(r.drops.iter().map(|d| d.queue + d.channel + d.outage).sum::<u64>(), 0);
}

#[test]
fn timeouts_back_off_exponentially_and_a_dead_path_only_warns() {
    // RFC 6298 §5.5: with the path down, RTOs expire at 1, 3, 7, 15 s after the first
    // send at 1 s (initial RTO 1 s, doubling): 4 expiries by 20 s.
    let r = two_hop(&[("flows.0.start_s", "1.0"), ("links.1.ab.outages", "[{ start_s = 0.0, duration_s = 100.0 }]")]);
    let f = &r.flows[0];
    assert_eq!(f.timeouts, 4);
    assert_eq!(f.max_backoff, 4);
    assert_eq!(f.timeout_causes.wireless, 4);
    assert_eq!(f.goodput_bps, 0.0);
    assert_eq!(r.warnings.len(), 1);
}

#[test]
fn loss_of_every_packet_ends_at_the_duration_with_zero_goodput() {
    let r = two_hop(&[("links.1.ab.loss", "{ model = \"uniform\", rate = 1.0 }"), ("run.duration_s", "300")]);
    assert_eq!(r.flows[0].delivered_bytes, 0);
    assert_eq!(r.sim_seconds, 300.0);
    assert!(!r.warnings.is_empty());
}

#[test]
fn same_seed_same_output_other_replication_other_output() {
    let ov = [("links.1.ab.loss", "{ model = \"uniform\", rate = 0.02 }"), ("links.1.ab.random_outages", "{ count_per_200s = 20, duration_s = 0.2 }")];
    let a = two_hop(&ov);
    let b = two_hop(&ov);
    assert_eq!(fingerprint(&a), fingerprint(&b));
    let mut ov2 = ov.to_vec();
    ov2.push(("run.replication", "1"));
    let c = two_hop(&ov2);
    assert_ne!(fingerprint(&a), fingerprint(&c));
}

#[test]
fn adding_a_flow_elsewhere_does_not_change_a_flows_random_numbers() {
    // Per-component streams: a new lossy path between two new nodes leaves the first
    // path's draws, and so its whole history, unchanged.
    let base = [("links.1.ab.loss", "{ model = \"uniform\", rate = 0.02 }")];
    let a = two_hop(&base);
    let extra = [
        ("links.1.ab.loss", "{ model = \"uniform\", rate = 0.02 }"),
        ("nodes.3", "{ name = \"X\" }"),
        ("nodes.4", "{ name = \"Y\" }"),
        ("links.2", "{ a = \"X\", b = \"Y\", rate_mbps = 5.0, delay_ms = 3.0, ab = { loss = { model = \"uniform\", rate = 0.05 } } }"),
        ("flows.1", "{ name = \"other\", src = \"X\", dst = \"Y\", cc = \"reno\" }"),
    ];
    let b = two_hop(&extra);
    let flow_a = serde_json::to_string(&a.flows[0]).unwrap();
    let flow_b = serde_json::to_string(&b.flows[0]).unwrap();
    assert_eq!(flow_a, flow_b);
    assert!(b.flows[1].fast_retransmits > 0);
}

#[test]
fn limited_transmit_sends_new_data_on_the_first_two_duplicates() {
    // RFC 3042: two more original segments leave before the fast retransmit.
    let ov = [("links.1.ab.loss", "{ model = \"list\", packets = [30] }")];
    let with = two_hop(&ov);
    let mut ov_off = ov.to_vec();
    ov_off.push(("tcp.limited_transmit", "false"));
    let without = two_hop(&ov_off);
    assert_eq!(with.flows[0].fast_retransmits, 1);
    assert_eq!(without.flows[0].fast_retransmits, 1);
    assert!(with.flows[0].delivered_bytes >= without.flows[0].delivered_bytes);
}

#[test]
fn a_flow_with_count_runs_that_many_named_copies_with_staggered_starts() {
    let r = common::two_hop(&[("flows.0.count", "3"), ("flows.0.start_stagger_s", "2"), ("run.duration_s", "20")]);
    let names: Vec<&str> = r.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["bulk-1", "bulk-2", "bulk-3"]);
    // Every copy moves data; a later start delivers less by the end.
    assert!(r.flows.iter().all(|f| f.delivered_bytes > 0));
    assert!(r.flows[0].delivered_bytes > r.flows[2].delivered_bytes);
}

#[test]
fn fairness_flows_name_a_copy_or_every_copy_of_a_counted_flow() {
    let copies = [("flows.0.count", "3"), ("flows.0.start_stagger_s", "4"), ("run.duration_s", "20")];
    let jain = |extra: &str| {
        let mut ov = copies.to_vec();
        ov.push(("metrics.fairness_flows", extra));
        common::two_hop(&ov).jain_fairness.unwrap()
    };
    let r = common::two_hop(&copies);
    let x: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps).collect();
    let jain_of = |xs: &[f64]| xs.iter().sum::<f64>().powi(2) / (xs.len() as f64 * xs.iter().map(|v| v * v).sum::<f64>());
    // The entry's name selects all three copies; a copy's own name selects that copy alone.
    assert!((jain("[\"bulk\"]") - jain_of(&x)).abs() < 1e-12);
    assert!((jain("[\"bulk-1\", \"bulk-3\"]") - jain_of(&[x[0], x[2]])).abs() < 1e-12);
    assert!(jain_of(&x) < 1.0, "staggered copies should not share exactly equally");
}

#[test]
fn partial_acks_restart_the_timer_once_when_impatient_and_every_time_when_slow_but_steady() {
    // RFC 6582 §4: eight losses in one window need eight partial-ACK round trips, longer
    // than the RTO (minimum 0.2 s). The Impatient variant's timer, restarted on the first
    // partial ACK only, expires during the recovery; Slow-but-Steady's, restarted on each,
    // never does.
    let losses = ("links.1.ab.loss", "{ model = \"list\", packets = [30, 32, 34, 36, 38, 40, 42, 44] }");
    let rto_min = ("tcp.rto_min_s", "0.2");
    let impatient = two_hop(&[losses, rto_min]);
    let steady = two_hop(&[losses, rto_min, ("tcp.partial_ack_timer", "\"slow_but_steady\"")]);
    let (i, s) = (&impatient.flows[0], &steady.flows[0]);
    assert_eq!((s.fast_retransmits, s.timeouts, s.retransmitted_segments), (1, 0, 8));
    // The timeout comes while the last retransmission is still on its way (the segment at
    // SND.UNA was not dropped again): go-back-N then resends data the receiver holds.
    assert_eq!((i.timeouts, i.timeout_causes.spurious), (1, 1), "{i:?}");
    assert!(i.unnecessary_retransmissions > 0 && i.retransmitted_segments > 8, "{i:?}");
}

#[test]
fn a_timeout_inside_fast_recovery_cuts_ssthresh_again_per_rfc_5681_and_keeps_it_as_linux_does() {
    // The impatient timer of the test above expires during the recovery of eight losses.
    let run = |rule: &str| {
        let r = two_hop(&[
            ("links.1.ab.loss", "{ model = \"list\", packets = [30, 32, 34, 36, 38, 40, 42, 44] }"),
            ("tcp.rto_min_s", "0.2"),
            ("tcp.timeout_in_recovery", rule),
            ("trace.enabled", "true"),
            ("trace.interval_ms", "1"),
        ]);
        let t = r.traces.unwrap();
        let col = |name: &str| t.flow_columns.iter().find(|(n, _)| *n == name).unwrap().1.clone();
        let (ssthresh, in_recovery, una, max) = (col("ssthresh"), col("in_recovery"), col("snd_una"), col("snd_max"));
        let at = t.loss_time.iter().zip(&t.loss_timeout).find(|(_, &to)| to).map(|(&time, _)| time).unwrap();
        let i = t.flow_time.iter().position(|&s| s > at).unwrap();
        let before = (0..i).rev().find(|&k| in_recovery[k] == 1.0).unwrap();
        (ssthresh[before], ssthresh[i], max[before] - una[before])
    };
    let (during, after, _) = run("\"keep\"");
    assert_eq!(after, during);
    // RFC 5681 eq. 4: half the FlightSize at the timeout (the last sample of the recovery
    // is within a millisecond of it and sees the same outstanding data).
    let (during_cut, after_cut, flight) = run("\"cut\"");
    assert_eq!(during_cut, during);
    assert_eq!(after_cut, (flight / 2.0).max(2000.0));
    assert_ne!(after_cut, during);
}

/// ssthresh just after each timeout of flow 0 on simple2 with ns-3's recovery without SACK
/// (`reno_sack`, NewReno halving the pipe): a 2 s outage from 5 s costs two timeouts of
/// the same segment, with no ACK between them.
fn ssthresh_after_timeouts(reset: &str) -> Vec<f64> {
    let r = wtcp_engine::run(&common::load(
        "scenarios/reference-simple2.toml",
        &[
            ("run.duration_s", "20"),
            ("links.1.ab.outages", "[{ start_s = 5.0, duration_s = 2.0 }]"),
            ("tcp.reno_sack", "true"),
            ("flows.0.cc_params.halve", "\"pipe\""),
            ("tcp.timeout_count_reset", reset),
            ("trace.enabled", "true"),
            ("trace.interval_ms", "1"),
        ],
    ));
    let t = r.traces.as_ref().unwrap();
    let ssthresh = &t.flow_columns.iter().find(|(n, _)| *n == "ssthresh").unwrap().1;
    let timeouts: Vec<f64> = t.loss_time.iter().zip(&t.loss_timeout).filter(|(_, &to)| to).map(|(&time, _)| time).collect();
    assert_eq!(timeouts.len(), 2, "{timeouts:?}");
    timeouts.iter().map(|&at| ssthresh[t.flow_time.iter().position(|&s| s > at).unwrap()]).collect()
}

#[test]
fn a_second_timeout_of_the_same_segment_keeps_ssthresh_per_rfc_5681_and_cuts_it_as_ns3_does() {
    // RFC 5681 §3.1 (wtcp's default): only the first of consecutive timeouts cuts ssthresh.
    let rfc = ssthresh_after_timeouts("\"new_ack\"");
    assert_eq!(rfc[1], rfc[0], "{rfc:?}");
    // ns-3.44 cuts on every timeout, from what is in flight then: the one segment the first
    // timeout resent, so the floor of two segments (MSS 1000).
    let ns3 = ssthresh_after_timeouts("\"every_timeout\"");
    assert_eq!(ns3[0], rfc[0], "{ns3:?}");
    assert_eq!(ns3[1], 2000.0, "{ns3:?}");
}

/// Trace of flow 0 on simple2 at 1 ms with a 1 s delay spike of 3 s on the ACK path from 5 s
/// (spurious timeouts: the ACKs of what was sent before them arrive late), under `tcp.rtt_sampling = SAMPLING`: (time of
/// the first timeout, SND.MAX then, the trace's time, snd_una, srtt and latest RTT sample
/// columns).
#[allow(clippy::type_complexity)]
fn rtt_around_a_timeout(sampling: &str, timestamps: bool) -> (f64, f64, Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
    let r = wtcp_engine::run(&common::load(
        "scenarios/reference-simple2.toml",
        &[
            ("run.duration_s", "12"),
            ("tcp.recv_buffer_bytes", "20000"),
            ("links.1.ba.delay_spikes", "[{ start_s = 5.0, duration_s = 1.0, extra_delay_ms = 3000.0 }]"),
            ("tcp.rtt_sampling", sampling),
            ("tcp.timestamps", if timestamps { "true" } else { "false" }),
            ("trace.enabled", "true"),
            ("trace.interval_ms", "1"),
        ],
    ));
    let t = r.traces.as_ref().unwrap();
    let col = |name: &str| t.flow_columns.iter().find(|(n, _)| *n == name).unwrap().1.clone();
    let first_timeout = *t.loss_time.iter().zip(&t.loss_timeout).find(|(_, &to)| to).unwrap().0;
    let at = t.flow_time.iter().position(|&s| s >= first_timeout).unwrap();
    let snd_max = col("snd_max")[at];
    (first_timeout, snd_max, t.flow_time.clone(), col("snd_una"), col("srtt"), col("rtt"))
}

#[test]
fn ns3_rtt_sampling_times_nothing_sent_before_a_timeout_and_reads_timestamps_in_milliseconds() {
    // ns-3.44 clears its RTT history at a timeout and records only new data (tcp-socket-base.cc
    // 3954, 3360-3366): SRTT holds until an ACK covers data first sent after the timeout.
    let held = |sampling: &str| {
        let (t0, snd_max, time, una, srtt, _) = rtt_around_a_timeout(sampling, true);
        let start = time.iter().position(|&s| s > t0).unwrap();
        let end = una.iter().position(|&u| u >= snd_max + 1000.0).unwrap();
        assert!(una[end - 1] > una[start], "ACKs arrive before new data is acknowledged");
        srtt[start..end].iter().all(|&s| s == srtt[start])
    };
    assert!(held("\"ns3\""));
    // RFC 7323 §4.1 (wtcp's every_ack with timestamps): every ACK of new data is timed by
    // its echo, the resent segment's included.
    assert!(!held("\"every_ack\""));
    // With timestamps, ns-3's TSval counts milliseconds: every sample is whole milliseconds.
    let (_, _, _, _, _, rtt) = rtt_around_a_timeout("\"ns3\"", true);
    let samples: Vec<f64> = rtt.iter().copied().filter(|r| r.is_finite()).collect();
    assert!(samples.len() > 100);
    assert!(samples.iter().all(|&r| ((r * 1e3).round() - r * 1e3).abs() < 1e-6), "{:?}", &samples[..10]);
    let (_, _, _, _, _, exact) = rtt_around_a_timeout("\"every_ack\"", true);
    assert!(exact.iter().filter(|r| r.is_finite()).any(|&r| ((r * 1e3).round() - r * 1e3).abs() > 1e-6));
}

#[test]
fn the_linux_profiles_receiver_acknowledges_its_first_16_segments_one_by_one() {
    // Linux tcp_event_data_recv -> tcp_incr_quickack(sk, TCP_MAX_QUICKACKS): the kernel
    // acknowledged segments 1-16 of a 100-segment transfer each alone, then every second
    // (relay capture, docs/linux-engine.md). 99 segments: 15 or 17 quick ACKs would give
    // another count.
    let acks = |quick: Option<&str>| {
        let mut set = vec![("profile", "\"linux\""), ("run.duration_s", "2"), ("flows.0.bytes", "99000"), ("links.1.rate_mbps", "100")];
        set.extend(quick.map(|q| ("tcp.quick_acks_at_start", q)));
        // Packets D -> BS: the SYN-ACK and the ACKs.
        two_hop(&set).drops.iter().find(|d| d.from == "D" && d.to == "BS").unwrap().tx_packets
    };
    // The SYN-ACK, 16 quick ACKs, 41 pairs and the last segment's (delayed) ACK.
    assert_eq!(acks(None), 1 + 16 + 41 + 1);
    assert_eq!(acks(Some("15")), 1 + 15 + 42);
    assert_eq!(acks(Some("0")), 1 + 49 + 1);
}
