//! Links whose capacity follows a trace (mahimahi opportunities, a CSV rate series, a
//! synthetic model), end to end.

use crate::common;

use common::{parse, TWO_HOP};
use wtcp_engine::Scenario;

/// A trace file in the system's temporary directory, unique per test.
fn trace_file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("wtcp-capacity-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn run(overrides: &[(&str, &str)]) -> wtcp_engine::RunResult {
    wtcp_engine::run(&parse(TWO_HOP, overrides))
}

const MSS_1460: [(&str, &str); 3] = [("tcp.mss_bytes", "1460"), ("run.measure_from_s", "5.0"), ("links.0.rate_mbps", "100.0")];

#[test]
fn the_mahimahi_file_one_carries_12_mbps_times_the_payload_share() {
    // One 1500-byte IP packet per millisecond: 1460 payload bytes of 1500 (mahimahi README).
    let path = trace_file("one.trace", "1\n");
    let cap = format!("{{ trace = \"{path}\", format = \"mahimahi\" }}");
    let mut o = MSS_1460.to_vec();
    o.push(("links.1.ab.capacity", &cap));
    let r = run(&o);
    let expect = 12e6 * 1460.0 / 1500.0;
    let g = r.flows[0].goodput_bps;
    assert!((g / expect - 1.0).abs() <= 0.01, "goodput {g} vs {expect}");
    // The link's own rate (2 Mb/s) no longer limits that direction.
    assert!(g > 5e6);
}

#[test]
fn an_opportunity_every_other_millisecond_halves_it_and_outages_in_the_trace_stop_it() {
    // 0, 2, 4, ... 1000 ms, then nothing until 2000 ms (the period): half the time at 6 Mb/s.
    let mut text: String = (1..=500).map(|i| format!("{}\n", 2 * i)).collect();
    text.push_str("2000\n");
    let path = trace_file("half.trace", &text);
    let cap = format!("{{ trace = \"{path}\" }}");
    let mut o = MSS_1460.to_vec();
    o.push(("links.1.ab.capacity", &cap));
    o.push(("run.duration_s", "45.0"));
    let r = run(&o);
    // 501 opportunities per 2 s, TCP loses some of the on-times to its own dynamics.
    let ceiling = 501.0 * 1460.0 * 8.0 / 2.0;
    let g = r.flows[0].goodput_bps;
    assert!(g <= ceiling * 1.0001 && g >= 0.8 * ceiling, "goodput {g} of {ceiling}");
}

#[test]
fn a_csv_rate_series_limits_goodput_to_its_mean() {
    // 4 Mb/s for 2 s, 1 Mb/s for 2 s: mean 2.5 Mb/s of IP packets.
    let path = trace_file("steps.csv", "time_s,rate_mbps\n0,4\n2,1\n4,1\n");
    let cap = format!("{{ trace = \"{path}\", format = \"csv\" }}");
    let mut o = MSS_1460.to_vec();
    o.push(("links.1.ab.capacity", &cap));
    o.push(("run.duration_s", "65.0"));
    let r = run(&o);
    let ceiling = 2.5e6 * 1460.0 / 1500.0;
    let g = r.flows[0].goodput_bps;
    assert!(g <= ceiling * 1.001 && g >= 0.85 * ceiling, "goodput {g} of {ceiling}");
}

#[test]
fn a_seeded_model_is_the_same_link_in_every_run_and_differs_without_its_seed() {
    let model = |seed: &str| format!("{{ model = \"markov\", rates_mbps = [0.5, 6.0], mean_holding_s = [1.0, 3.0], duration_s = 30.0{seed} }}");
    let with_seed = model(", seed = 4");
    let a = run(&[("links.1.ab.capacity", &with_seed), ("run.seed", "1")]);
    let b = run(&[("links.1.ab.capacity", &with_seed), ("run.seed", "2")]);
    assert_eq!(a.flows[0].goodput_bps, b.flows[0].goodput_bps, "the model's own seed fixes the trace");
    let unseeded = model("");
    let c = run(&[("links.1.ab.capacity", &unseeded), ("run.seed", "1")]);
    let d = run(&[("links.1.ab.capacity", &unseeded), ("run.seed", "2")]);
    assert_ne!(c.flows[0].goodput_bps, d.flows[0].goodput_bps);
}

#[test]
fn bad_traces_are_refused_with_the_file_and_line() {
    let check = |text: &str, fragment: &str| {
        let path = trace_file(&format!("bad{}.trace", text.len()), text);
        let cap = format!("{{ trace = \"{path}\" }}");
        let e = Scenario::from_toml_str(TWO_HOP, &[("links.1.ab.capacity".into(), cap)]).expect_err("refused");
        assert_eq!(e.path, "links.1.ab.capacity.trace");
        assert!(e.message.contains(&path) && e.message.contains(fragment), "{}", e.message);
    };
    check("", "empty file");
    check("5\n3\n", "line 2");
    check("1\nten\n", "line 2");
    check("0\n0\n", "nonzero time");
    let missing = Scenario::from_toml_str(TWO_HOP, &[("links.1.ab.capacity".into(), "{ trace = \"/nonexistent/x.trace\" }".into())]).unwrap_err();
    assert!(missing.message.contains("cannot read /nonexistent/x.trace"), "{}", missing.message);
}

mod schedule_properties {
    use proptest::prelude::*;
    use wtcp_engine::net::capacity::{Cursor, Opportunities, OPPORTUNITY_BYTES, TUN_HEADER_BYTES};

    proptest! {
        /// Against a brute-force replay of mahimahi's `rationalize`: packets (arrival ms,
        /// size) sent through a schedule leave at the same times.
        #[test]
        fn departures_match_a_replay_of_mahimahi(
            mut ms in prop::collection::vec(0u64..40, 1..30),
            packets in prop::collection::vec((0u64..200, 40u32..1500, any::<bool>()), 1..60),
        ) {
            ms.sort_unstable();
            let last = *ms.last().unwrap();
            prop_assume!(last > 0);
            let o = Opportunities::from_ms(&ms);
            // Arrivals in the middle of a millisecond or exactly on one (where an
            // opportunity at that time must not serve them).
            let mut arrivals: Vec<(u64, u32)> = packets.iter().map(|&(a, size, exact)| (a * 1_000_000 + if exact { 0 } else { 500_000 }, size)).collect();
            arrivals.sort_unstable_by_key(|p| p.0);
            // wtcp: one transmitter, FIFO; the cursor carries each packet's leftovers on.
            let mut cursor = Cursor::default();
            let ours: Vec<u64> = arrivals
                .iter()
                .map(|&(a, size)| o.send(&mut cursor, a, size))
                .collect();
            // mahimahi: walk the opportunities in order; each drains the queue of packets
            // that arrived before it, carrying a partly sent packet over.
            let mut theirs = Vec::new();
            let mut queue = std::collections::VecDeque::new();
            let mut next_packet = 0;
            let mut left_of_head = 0u32;
            let mut n = 0u64;
            while theirs.len() < arrivals.len() {
                let t = o.time(n);
                n += 1;
                while next_packet < arrivals.len() && arrivals[next_packet].0 < t {
                    queue.push_back(arrivals[next_packet].1 + TUN_HEADER_BYTES);
                    next_packet += 1;
                }
                let mut room = OPPORTUNITY_BYTES;
                while room > 0 {
                    if left_of_head == 0 {
                        match queue.pop_front() {
                            Some(b) => left_of_head = b,
                            None => break,
                        }
                    }
                    let used = room.min(left_of_head);
                    room -= used;
                    left_of_head -= used;
                    if left_of_head == 0 {
                        theirs.push(t);
                    }
                }
            }
            prop_assert_eq!(ours, theirs);
        }
    }
}
