//! Every user mistake gets one message naming the field path, what is wrong and what is
//! allowed.

use crate::common;

use common::TWO_HOP;
use wtcp_engine::Scenario;

fn error(overrides: &[(&str, &str)]) -> (String, String) {
    let ov: Vec<(String, String)> = overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let e = Scenario::from_toml_str(TWO_HOP, &ov).expect_err("the scenario should be rejected");
    (e.path, e.message)
}

fn check(overrides: &[(&str, &str)], path: &str, fragment: &str) {
    let (p, m) = error(overrides);
    assert_eq!(p, path, "message: {m}");
    assert!(m.contains(fragment), "`{m}` should mention `{fragment}`");
}

#[test]
fn unknown_keys_are_rejected_with_the_allowed_ones() {
    check(&[("links.1.rate_mpbs", "2")], "links.1.rate_mpbs", "unknown field `rate_mpbs`, expected one of `name`, `a`, `b`, `rate_mbps`");
    check(&[("run.durations", "2")], "run.durations", "unknown field `durations`");
    check(&[("tcp.msss_bytes", "2")], "tcp.msss_bytes", "expected one of");
    check(&[("tcp.partial_ack_timer", "\"sometimes\"")], "tcp.partial_ack_timer", "unknown variant `sometimes`, expected `impatient` or `slow_but_steady`");
}

#[test]
fn wrong_types_name_the_field() {
    check(&[("links.0.rate_mbps", "\"fast\"")], "links.0.rate_mbps", "invalid type");
    check(&[("flows.0.bytes", "1.5")], "flows.0.bytes", "invalid type");
}

#[test]
fn rates_and_times_must_be_positive() {
    check(&[("links.0.rate_mbps", "0")], "links.0.rate_mbps", "> 0");
    check(&[("links.0.rate_mbps", "-3")], "links.0.rate_mbps", "> 0");
    check(&[("links.0.delay_ms", "-1")], "links.0.delay_ms", ">= 0");
    check(&[("run.duration_s", "0")], "run.duration_s", "> 0");
    check(&[("run.duration_s", "nan")], "run.duration_s", "> 0");
}

#[test]
fn probabilities_must_lie_in_the_unit_interval() {
    check(&[("links.1.ab.loss", "{ model = \"uniform\", rate = 1.5 }")], "links.1.ab.loss.rate", "[0, 1]");
    check(&[("links.1.ab.loss", "{ model = \"ber\", ber = -0.1 }")], "links.1.ab.loss.ber", "[0, 1]");
    check(&[("links.1.ab.loss", "{ model = \"coin\" }")], "links.1.ab.loss.model", "unknown variant `coin`, expected one of `uniform`, `ber`");
}

#[test]
fn unknown_nodes_and_missing_routes() {
    check(&[("flows.0.dst", "Q")], "flows.0.dst", "unknown node `Q`; defined nodes: S, BS, D");
    check(&[("links.0.a", "BS")], "links.0.b", "two different nodes");
    check(&[("nodes.3", "{ name = \"island\" }"), ("flows.0.dst", "island")], "flows.0", "no route from `S` to `island`");
}

#[test]
fn start_must_precede_stop_and_the_end() {
    check(&[("flows.0.start_s", "5"), ("flows.0.stop_s", "4")], "flows.0.stop_s", "after start_s");
    check(&[("flows.0.start_s", "25")], "flows.0.start_s", "before the end of the run");
    check(&[("run.measure_from_s", "30")], "run.measure_from_s", "before the end");
}

#[test]
fn unknown_algorithms_and_parameters() {
    check(&[("flows.0.cc", "renoo")], "flows.0.cc", "allowed: reno, newreno");
    check(&[("flows.0.cc_params", "{ byte_countin = true }")], "flows.0.cc_params.byte_countin", "unknown field `byte_countin`");
    check(&[("flows.0.cc_params", "{ halve = \"ssthresh\" }")], "flows.0.cc_params.halve", "unknown variant");
}

#[test]
fn options_of_the_other_flow_kind_are_refused() {
    check(&[("flows.0.rate_mbps", "1")], "flows.0.rate_mbps", "CBR option");
    check(&[("flows.0.kind", "cbr"), ("flows.0.rate_mbps", "1")], "flows.0.cc", "TCP option");
    check(&[("flows.0.kind", "cbr"), ("flows.0.cc", "newreno")], "flows.0.cc", "TCP option");
}

#[test]
fn queue_limits_and_tcp_options_are_checked() {
    check(&[("links.0.queue", "{ limit_packets = 0 }")], "links.0.queue.limit_packets", ">= 1");
    check(&[("links.0.queue", "{ limit_packets = 5, limit_bytes = 5000 }")], "links.0.queue", "not both");
    check(&[("tcp.rto_min_s", "5"), ("tcp.rto_max_s", "1")], "tcp.rto_min_s", "must not exceed");
    check(&[("tcp.delayed_ack_timeout_s", "0.6")], "tcp.delayed_ack_timeout_s", "< 0.5 s");
    check(&[("flows.0.tcp", "{ mss_bytes = 0 }")], "flows.0.tcp.mss_bytes", "allowed: 1..=65495");
}

#[test]
fn toml_syntax_errors_point_at_the_line() {
    let e = Scenario::from_toml_str("[run\nduration_s = 1", &[]).unwrap_err();
    assert!(e.message.starts_with("TOML syntax error"), "{}", e.message);
    assert!(e.message.contains("line 1"), "{}", e.message);
}

#[test]
fn overrides_that_miss_their_target_are_errors() {
    check(&[("links.7.rate_mbps", "1")], "links", "out of range");
    check(&[("run.duration_s.x", "1")], "run.duration_s", "not a table");
}

#[test]
fn flow_copies_are_bounded_and_must_leave_a_flow() {
    check(&[("flows.0.count", "0")], "flows", "count = 0");
    check(&[("flows.0.count", "20000")], "flows.0.count", "0..=10000");
    check(&[("flows.0.count", "3"), ("flows.0.start_stagger_s", "12")], "flows.0.start_s", "copy 3 starts at 24 s");
}

#[test]
fn fairness_flows_must_name_flows_that_run() {
    check(&[("metrics.fairness_flows", "[\"bluk\"]")], "metrics.fairness_flows.0", "unknown flow `bluk`; allowed: a flow name (bulk)");
}

#[test]
fn positive_times_that_round_to_zero_nanoseconds_are_refused() {
    // These used to pass validation and loop forever (a timer firing at the same instant).
    check(&[("tcp.rto_initial_s", "1e-10")], "tcp.rto_initial_s", "rounds to 0 ns");
    check(&[("flows.0.on_off", "{ on_s = 1e-10, off_s = 1e-10 }")], "flows.0.on_off.on_s", "rounds to 0 ns");
}

#[test]
fn link_rates_and_header_bytes_stay_within_what_the_clock_and_packet_sizes_hold() {
    // A rate of 1e-20 Mb/s overflowed the transmission time (the link then "delivered"
    // 2.8 Mb/s); 4294967295 header bytes wrapped the packet size.
    check(&[("links.1.rate_mbps", "1e-20")], "links.1.rate_mbps", "0.001 (1 kb/s) to 1e6");
    check(&[("links.1.link_header_bytes", "4294967295")], "links.1.link_header_bytes", "0..=65535");
}

#[test]
fn a_flow_with_count_zero_is_still_checked() {
    check(&[("flows.1", "{ src = \"nowhere\", dst = \"D\", cc = \"newreno\", count = 0 }")], "flows.1.src", "nowhere");
    check(&[("flows.1", "{ src = \"S\", dst = \"D\", cc = \"no-such-cc\", count = 0 }")], "flows.1.cc", "no-such-cc");
}

#[test]
fn a_copy_that_starts_after_stop_s_is_named() {
    let e = wtcp_engine::Scenario::from_toml_str(common::TWO_HOP, &[("flows.0.count".into(), "2".into()), ("flows.0.start_s".into(), "1".into()), ("flows.0.start_stagger_s".into(), "2.5".into()), ("flows.0.stop_s".into(), "3".into())]).unwrap_err();
    assert_eq!(e.path, "flows.0.stop_s");
    assert!(e.message.contains("the start of copy 2 (3.5 s"), "{}", e.message);
}

#[test]
fn a_global_tcp_value_is_blamed_on_tcp_even_when_the_flow_has_its_own_table() {
    let e = wtcp_engine::Scenario::from_toml_str(common::TWO_HOP, &[("tcp.rto_initial_s".into(), "nan".into()), ("flows.0.tcp".into(), "{ sack = true }".into())]).unwrap_err();
    assert_eq!(e.path, "tcp.rto_initial_s", "{}", e.message);
    let e = wtcp_engine::Scenario::from_toml_str(common::TWO_HOP, &[("flows.0.tcp".into(), "{ rto_initial_s = nan }".into())]).unwrap_err();
    assert_eq!(e.path, "flows.0.tcp.rto_initial_s", "{}", e.message);
}

#[test]
fn a_nan_red_threshold_is_reported_on_itself() {
    let e = wtcp_engine::Scenario::from_toml_str(common::TWO_HOP, &[("links.1.queue".into(), "{ discipline = \"red\", limit_packets = 100, min_th = nan }".into())]).unwrap_err();
    assert_eq!(e.path, "links.1.queue.min_th", "{}", e.message);
}

#[test]
fn numbers_written_with_units_say_the_unit_and_the_number_meant() {
    let cases = [
        ("links.1.rate_mbps", "\"2Mbps\"", "a number in Mb/s (the unit is in the field's name): 2"),
        ("run.duration_s", "\"20s\"", "a number in seconds (the unit is in the field's name): 20"),
        ("links.1.delay_ms", "\"0.01s\"", "a number in milliseconds (the unit is in the field's name): 10"),
    ];
    for (path, value, advice) in cases {
        let e = wtcp_engine::Scenario::from_toml_str(common::TWO_HOP, &[(path.into(), value.into())]).unwrap_err();
        assert_eq!(e.path, path);
        assert!(e.message.contains(advice), "{}", e.message);
    }
    let e = wtcp_engine::Scenario::from_toml_str(common::TWO_HOP, &[("links.1.ab.loss".into(), "{ model = \"uniform\", rate = \"1%\" }".into())]).unwrap_err();
    assert!(e.message.contains("a probability is written from 0 to 1 (1 % is 0.01)"), "{} {}", e.path, e.message);
    let e = wtcp_engine::Scenario::from_toml_str(common::TWO_HOP, &[("links.1.ab.loss".into(), "{ model = \"uniform\", rate = 5 }".into())]).unwrap_err();
    assert!(e.message.contains("(5 % is 0.05)"), "{}", e.message);
    let e = wtcp_engine::Scenario::from_toml_str(common::TWO_HOP, &[("run.seed".into(), format!("1{}", "0".repeat(100)))]).unwrap_err();
    assert!(e.message.contains("a whole number beyond the 64 bits"), "{}", e.message);
    // A small number in quotes is text, not a number too large.
    let e = wtcp_engine::Scenario::from_toml_str(common::TWO_HOP, &[("links.1.rate_mbps".into(), "\"3\"".into())]).unwrap_err();
    assert_eq!(e.path, "links.1.rate_mbps");
    assert!(e.message.contains("is \"3\", text; allowed: a number (written without quotes)"), "{}", e.message);
}

#[test]
fn a_sweep_file_given_as_a_scenario_says_so() {
    let e = wtcp_engine::Scenario::from_toml_str("name = \"s\"\nscenario = \"reference-simple2\"\n[grid]\n\"run.seed\" = [1]\n", &[]).unwrap_err();
    assert_eq!(e.path, "scenario");
    assert!(e.message.contains("run it with `wtcp sweep FILE`"), "{}", e.message);
}

#[test]
fn a_ber_that_loses_most_packets_is_warned_about() {
    let sc = wtcp_engine::Scenario::from_toml_str(common::TWO_HOP, &[("links.1.ab.loss".into(), "{ model = \"ber\", ber = 0.05 }".into()), ("run.duration_s".into(), "2".into())]).unwrap();
    let r = wtcp_engine::run(&sc);
    assert!(r.warnings.iter().any(|w| w.contains("bit-error rate of 0.05") && w.contains("model = \"uniform\"")), "{:?}", r.warnings);
    let sc = wtcp_engine::Scenario::from_toml_str(common::TWO_HOP, &[("links.1.ab.loss".into(), "{ model = \"ber\", ber = 1e-6 }".into()), ("run.duration_s".into(), "2".into())]).unwrap();
    assert!(!wtcp_engine::run(&sc).warnings.iter().any(|w| w.contains("bit-error rate")));
}

#[test]
fn ns3_recovery_without_sack_cannot_run_with_frto() {
    // ns-3.44 has no F-RTO, and its CA_LOSS resends everything presumed lost at once.
    check(&[("tcp.reno_sack", "true"), ("tcp.frto", "true")], "tcp.reno_sack", "set frto = false");
}

#[test]
fn codel_options_are_checked_and_belong_to_codel() {
    check(&[("links.1.queue", "{ discipline = \"codel\", target_ms = 100, interval_ms = 50 }")], "links.1.queue.target_ms", "target < interval");
    check(&[("links.1.queue", "{ discipline = \"codel\", target_ms = -1 }")], "links.1.queue.target_ms", "milliseconds from 0.001");
    check(&[("links.1.queue", "{ discipline = \"codel\", min_th = 5 }")], "links.1.queue.min_th", "target_ms, interval_ms, ecn");
    check(&[("links.1.queue", "{ discipline = \"red\", target_ms = 5 }")], "links.1.queue.target_ms", "not an option of discipline \"red\"");
}

#[test]
fn abc_options_are_checked_and_an_abc_flow_keeps_ecn() {
    check(&[("links.1.queue", "{ discipline = \"abc\", eta = 0 }")], "links.1.queue.eta", "allowed: a ratio in (0, 2]");
    check(&[("links.1.queue", "{ discipline = \"abc\", token_limit = 0.5 }")], "links.1.queue.token_limit", "allowed: tokens from 1 to 1000000");
    check(&[("links.1.queue", "{ discipline = \"abc\", delta_ms = -1 }")], "links.1.queue.delta_ms", "milliseconds from 0.001");
    check(&[("links.1.queue", "{ discipline = \"abc\", queue_delay = \"average\" }")], "links.1.queue.queue_delay", "expected `backlog` or `sojourn`");
    check(&[("links.1.queue", "{ discipline = \"codel\", eta = 0.9 }")], "links.1.queue.eta", "allowed: target_ms, interval_ms, ecn");
    check(&[("flows.0.cc", "\"abc\""), ("flows.0.tcp", "{ ecn = false }")], "flows.0.tcp.ecn", "algorithm `abc` needs ECN");
    check(&[("flows.0.cc", "\"abc\""), ("flows.0.tcp", "{ ecn_echo = \"latched\" }")], "flows.0.tcp.ecn_echo", "allowed: \"state_change\"");
}

#[test]
fn fq_codel_options_are_checked_and_belong_to_fq_codel() {
    check(&[("links.1.queue", "{ discipline = \"fq_codel\", quantum_bytes = 0 }")], "links.1.queue.quantum_bytes", "allowed: 1..=1048576 (bytes)");
    check(&[("links.1.queue", "{ discipline = \"fq_codel\", flows = 100000 }")], "links.1.queue.flows", "allowed: 1..=65536 (queues)");
    check(&[("links.1.queue", "{ discipline = \"fq_codel\", target_ms = 200 }")], "links.1.queue.target_ms", "target < interval");
    check(&[("links.1.queue", "{ discipline = \"fq_codel\", min_th = 5 }")], "links.1.queue.min_th", "target_ms, interval_ms, ecn, quantum_bytes, flows, drop_batch");
    check(&[("links.1.queue", "{ discipline = \"codel\", flows = 8 }")], "links.1.queue.flows", "not an option of discipline \"codel\"");
}

#[test]
fn pie_options_are_checked_and_belong_to_pie() {
    check(&[("links.1.queue", "{ discipline = \"pie\", t_update_ms = 0 }")], "links.1.queue.t_update_ms", "milliseconds from 0.001");
    check(&[("links.1.queue", "{ discipline = \"pie\", interval_ms = 100 }")], "links.1.queue.interval_ms", "target_ms, t_update_ms, max_burst_ms, ecn");
}
