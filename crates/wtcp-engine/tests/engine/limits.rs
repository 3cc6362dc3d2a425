//! Values a run cannot take: `cc_params` outside their documented ranges, and scenarios
//! whose resource estimate exceeds the budget (memory or events) are refused with the field
//! that drives the estimate; large but feasible scenarios resolve quickly; flows that
//! deliver nothing are reported once per cause.

use crate::common;

use common::TWO_HOP;
use wtcp_engine::Scenario;

fn ov(overrides: &[(&str, &str)]) -> Vec<(String, String)> {
    overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn refused(overrides: &[(&str, &str)], path: &str, fragments: &[&str]) {
    let e = Scenario::from_toml_str(TWO_HOP, &ov(overrides)).expect_err("the scenario should be refused");
    assert_eq!(e.path, path, "message: {}", e.message);
    for f in fragments {
        assert!(e.message.contains(f), "`{}` should mention `{f}`", e.message);
    }
}

#[test]
fn cc_params_outside_their_range_are_refused_with_the_field_path() {
    refused(&[("flows.0.cc", "\"vegas\""), ("flows.0.cc_params", "{alpha=-1, beta=nan}")], "flows.0.cc_params.alpha", &["is -1", "allowed: 0 <= alpha <= 1e9", "vegas"]);
    refused(&[("flows.0.cc", "\"vegas\""), ("flows.0.cc_params", "{beta=nan}")], "flows.0.cc_params.beta", &["is nan", "allowed:"]);
    refused(&[("flows.0.cc", "\"vegas\""), ("flows.0.cc_params", "{alpha=4}")], "flows.0.cc_params.alpha", &["alpha <= beta", "beta = 3"]);
    refused(&[("flows.0.cc", "\"jtcp\""), ("flows.0.cc_params", "{history=1099511627776}")], "flows.0.cc_params.history", &["allowed: 2 <= history <= 1.048576e6"]);
    refused(&[("flows.0.cc", "\"cubic\""), ("flows.0.cc_params", "{beta=1}")], "flows.0.cc_params.beta", &["0 < beta < 1"]);
    refused(&[("flows.0.cc", "\"prairie\""), ("flows.0.cc_params", "{abw={filter_gain=inf}}")], "flows.0.cc_params.abw.filter_gain", &["is inf"]);
    refused(&[("flows.0.cc", "\"njplus\""), ("flows.0.cc_params", "{new_jersey={window_rtts=0}}")], "flows.0.cc_params.new_jersey.window_rtts", &["0 < window_rtts"]);
    refused(&[("flows.0.cc", "\"acc\""), ("flows.0.cc_params", "{nvar0_initial_segments=0.5}")], "flows.0.cc_params.nvar0_initial_segments", &["1 <= nvar0_initial_segments"]);
    // In range: accepted, and the name form of a mixed parameter is untouched.
    for ok in ["{alpha=2, beta=4}", "{alpha=0, beta=0, gamma=0}"] {
        Scenario::from_toml_str(TWO_HOP, &ov(&[("flows.0.cc", "\"vegas\""), ("flows.0.cc_params", ok)])).unwrap();
    }
    Scenario::from_toml_str(TWO_HOP, &ov(&[("flows.0.cc", "\"acc\""), ("flows.0.cc_params", "{nvar0_initial_segments=\"initial_window\"}")])).unwrap();
}

#[test]
fn a_trace_interval_of_a_nanosecond_is_refused_with_its_row_count() {
    refused(
        &[("trace.enabled", "true"), ("trace.interval_ms", "1e-9"), ("run.duration_s", "200")],
        "trace.interval_ms",
        &["trace rows", "allowed: at most", "within the memory budget of 4.0 GiB", "WTCP_MEMORY_BUDGET_GIB", "raise trace.interval_ms"],
    );
    // A 10 ms trace over 1e7 s: 1e9 samples.
    refused(&[("trace.enabled", "true"), ("run.duration_s", "1e7")], "trace.interval_ms", &["1.0e9 samples"]);
    // Without tracing the same interval costs nothing.
    Scenario::from_toml_str(TWO_HOP, &ov(&[("trace.interval_ms", "1e-9")])).unwrap();
    // With tracing off the interval is still checked (a run may turn tracing on).
    refused(&[("trace.interval_ms", "nan")], "trace.interval_ms", &["is nan"]);
}

#[test]
fn a_huge_initial_window_with_huge_buffers_is_refused() {
    let huge = (1u64 << 62).to_string();
    refused(
        &[("tcp.initial_cwnd_segments", "1e9"), ("tcp.send_buffer_bytes", &huge), ("tcp.recv_buffer_bytes", &huge)],
        "tcp.initial_cwnd_segments",
        &["segments outstanding", "tcp.send_buffer_bytes", "outstanding segments within the memory budget"],
    );
    // The same window with the default 1 MiB buffers is bounded by them.
    Scenario::from_toml_str(TWO_HOP, &ov(&[("tcp.initial_cwnd_segments", "1e9")])).unwrap();
}

#[test]
fn random_outages_by_the_trillion_are_refused_as_too_many_events() {
    refused(
        &[("links.1.ab.random_outages", "{count_per_200s=1e12, duration_s=1e-9}"), ("run.duration_s", "200")],
        "links.1.ab.random_outages.count_per_200s",
        &["1.0e12 outages", "events", "WTCP_EVENT_BUDGET"],
    );
}

#[test]
fn overlapping_random_outages_are_refused_for_the_events_they_hold_at_once() {
    // 1e12 outages per 200 s of 0.3 s each: 1.5e9 in progress at once, each end waiting in
    // the event heap (the run once grew it until an allocation aborted the process).
    refused(
        &[("links.1.ab.random_outages", "{count_per_200s=1e12, duration_s=0.3}"), ("run.duration_s", "5")],
        "links.1.ab.random_outages.count_per_200s",
        &["1.5e9 of them in progress at once", "memory budget", "WTCP_MEMORY_BUDGET_GIB"],
    );
}

#[test]
fn a_long_run_over_a_fast_link_is_refused_as_too_many_events() {
    refused(&[("run.duration_s", "1e7"), ("links.0.rate_mbps", "1e5"), ("links.1.rate_mbps", "1e5")], "run.duration_s", &["events", "bottleneck"]);
}

#[test]
fn a_finite_transfer_is_estimated_by_its_segments_not_by_the_run_length() {
    // The same long, fast run, but 100 kB to send: a few hundred events, accepted.
    let over = [("run.duration_s", "1e7"), ("links.0.rate_mbps", "1e5"), ("links.1.rate_mbps", "1e5"), ("flows.0.bytes", "100000")];
    let sc = Scenario::from_toml_str(TWO_HOP, &ov(&over)).unwrap();
    let r = wtcp_engine::run(&sc);
    assert_eq!(r.flows[0].delivered_bytes, 100_000);
}

#[test]
fn an_events_refusal_below_one_unit_says_how_much_fits() {
    // Even one simulated second is over the budget: "at most 0 simulated seconds" said
    // nothing; the fraction that fits is given instead.
    let e = Scenario::from_toml_str(TWO_HOP, &ov(&[("run.duration_s", "1e9"), ("links.0.rate_mbps", "1e9"), ("links.1.rate_mbps", "1e9")])).unwrap_err();
    assert_eq!(e.path, "run.duration_s", "{}", e.message);
    assert!(!e.message.contains("at most 0 simulated seconds"), "{}", e.message);
}

/// `nodes` nodes in a chain; flows between the first `pairs` disjoint pairs of neighbours.
fn chain(nodes: usize, flows: usize) -> String {
    let mut s = String::from("[run]\nduration_s = 1.0\n");
    for i in 0..nodes {
        s += &format!("[[nodes]]\nname = \"n{i}\"\n");
    }
    for i in 0..nodes - 1 {
        s += &format!("[[links]]\na = \"n{i}\"\nb = \"n{}\"\nrate_mbps = 1.0\ndelay_ms = 1.0\n", i + 1);
    }
    for k in 0..flows {
        s += &format!("[[flows]]\nsrc = \"n{}\"\ndst = \"n{}\"\n", 2 * k, 2 * k + 1);
    }
    s
}

#[test]
fn the_route_table_grows_with_flow_end_points_not_with_nodes_squared() {
    // 100 000 nodes with one flow: two route columns, not 10^10 entries.
    let sc = Scenario::from_toml_str(&chain(100_000, 1), &[]).unwrap();
    assert_eq!(sc.nodes.len(), 100_000);
    // 100 000 nodes with 40 000 flows between distinct end points: 8e9 entries, refused.
    let e = Scenario::from_toml_str(&chain(100_000, 40_000), &[]).unwrap_err();
    assert_eq!(e.path, "nodes", "{}", e.message);
    assert!(e.message.contains("100000 nodes (99998 with more than one neighbour) and 80000 flow end points") && e.message.contains("route table"), "{}", e.message);
}

#[test]
fn eighty_thousand_flows_resolve_in_linear_time() {
    let text = TWO_HOP.replace("[[flows]]", "[[flows]]\ncount = 10000");
    let mut doc: toml::Table = text.parse().unwrap();
    let flow = doc["flows"].as_array().unwrap()[0].clone();
    let entries: Vec<toml::Value> = (0..8)
        .map(|i| {
            let mut f = flow.as_table().unwrap().clone();
            f.insert("name".into(), toml::Value::String(format!("group{i}")));
            toml::Value::Table(f)
        })
        .collect();
    doc.insert("flows".into(), toml::Value::Array(entries));
    let t = std::time::Instant::now();
    let sc = Scenario::from_value(toml::Value::Table(doc), &[]).unwrap();
    assert_eq!(sc.flows.len(), 80_000);
    assert_eq!(sc.flows[79_999].name, "group7-10000");
    eprintln!("80 000 flows resolved in {:.2} s", t.elapsed().as_secs_f64());
}

#[test]
fn flows_that_deliver_nothing_after_starting_together_give_one_warning_with_the_cause() {
    // 3000 flows start at once into one 100-packet queue; in 2 s most never get a segment
    // through: the cause is congestion at the queue, not an unusable path.
    let sc = Scenario::from_toml_str(
        TWO_HOP,
        &ov(&[("run.duration_s", "2"), ("flows.0.count", "3000"), ("links.1.ab.loss", "{model=\"uniform\", rate=0}")]),
    )
    .unwrap();
    let r = wtcp_engine::run(&sc);
    let starved = r.flows.iter().filter(|f| f.delivered_bytes == 0).count();
    assert!(starved > 1000, "only {starved} flows starved; the set-up no longer reproduces the case");
    assert_eq!(r.warnings.len(), 1, "{:?}", &r.warnings[..r.warnings.len().min(5)]);
    let w = &r.warnings[0];
    assert!(w.contains(&format!("{starved} flows")) && w.contains("full queue") && w.contains("3000 flows start at 0 s together"), "{w}");
    assert!(!w.contains("loss rate 1"), "{w}");
}

#[test]
fn a_flow_behind_a_dead_link_is_still_blamed_on_the_path() {
    let sc = Scenario::from_toml_str(TWO_HOP, &ov(&[("links.1.ab.loss", "{model=\"uniform\", rate=1}")])).unwrap();
    let r = wtcp_engine::run(&sc);
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(r.warnings[0].contains("lost on the path") && r.warnings[0].contains("loss rate 1"), "{}", r.warnings[0]);
}

#[test]
fn a_number_where_a_name_belongs_lists_the_names() {
    refused(&[("tcp.recovery", "0")], "tcp.recovery", &["not a name", "`classic` or `prr`"]);
    refused(&[("flows.0.kind", "[1]")], "flows.0.kind", &["`tcp` or `cbr`"]);
    refused(&[("flows.0.cc_params", "{halve=1e15}")], "flows.0.cc_params.halve", &["not a name", "`flight_size`", "newreno"]);
    refused(&[("flows.0.cc", "\"njplus\""), ("flows.0.cc_params", "{new_jersey={rtt=2}}")], "flows.0.cc_params.new_jersey.rtt", &["`srtt`"]);
}

#[test]
fn a_channel_of_twenty_thousand_stations_is_refused_before_its_pairs_are_listed() {
    let n = 20_000;
    let mut s = String::from("[run]\nduration_s = 1.0\n");
    for i in 0..n {
        s += &format!("[[nodes]]\nname = \"n{i}\"\n");
    }
    s += "[[wifi]]\nphy = \"b\"\n";
    for i in 0..n {
        s += &format!("[[wifi.stations]]\nnode = \"n{i}\"\nx = {}.0\n", i % 100);
    }
    s += "[[flows]]\nsrc = \"n0\"\ndst = \"n1\"\n";
    let t = std::time::Instant::now();
    let e = Scenario::from_toml_str(&s, &[]).unwrap_err();
    assert_eq!(e.path, "wifi.0.stations", "{}", e.message);
    assert!(e.message.contains("20000 stations") && e.message.contains("station pairs"), "{}", e.message);
    assert!(t.elapsed().as_secs_f64() < 30.0);
}

#[test]
fn rates_near_zero_do_not_wrap_the_clock() {
    // A CBR rate whose packet interval overflows the clock is refused ...
    let cbr = "{kind=\"cbr\", src=\"D\", dst=\"S\", rate_mbps=1e-300}";
    refused(&[("flows.1", cbr)], "flows.1.rate_mbps", &["1e-6 (1 b/s)"]);
    // ... and a random-outage rate near zero means no outage, not one that wraps time.
    let sc = Scenario::from_toml_str(TWO_HOP, &ov(&[("run.duration_s", "2"), ("links.1.ab.random_outages", "{count_per_200s=1e-300, duration_s=1}")])).unwrap();
    let r = wtcp_engine::run(&sc);
    assert!(r.flows[0].delivered_bytes > 0 && r.drops.iter().all(|d| d.outage == 0));
}
