//! Validation against ns-3 (3.44) on the reference scenario "simple2"
//! (shared/reference/ns3-reference.md), configured as described there. The published
//! values are means of 3 seeds; a well-built NewReno lands within about 10 %.

mod common;

use common::load;

/// (loss rate, ns-3 NewReno goodput in Mb/s)
const NS3_NEWRENO: [(f64, f64); 5] = [(0.0, 1.919), (0.005, 1.78), (0.01, 1.51), (0.02, 1.13), (0.05, 0.555)];
const SEEDS: u64 = 8;

/// (loss rate, ns-3 Westwood+ goodput in Mb/s)
const NS3_WESTWOODPLUS: [(f64, f64); 5] = [(0.0, 1.912), (0.005, 1.83), (0.01, 1.72), (0.02, 1.60), (0.05, 0.94)];

fn mean_goodput_mbps(cc: &str, loss: f64) -> f64 {
    let loss = loss.to_string();
    let total: f64 = (1..=SEEDS)
        .map(|seed| {
            let seed = seed.to_string();
            let sc = load("scenarios/reference-simple2.toml", &[("flows.0.cc", cc), ("links.1.ab.loss.rate", &loss), ("run.seed", &seed)]);
            wtcp_engine::run(&sc).flows[0].goodput_bps
        })
        .sum();
    total / SEEDS as f64 / 1e6
}

#[test]
fn newreno_goodput_is_within_ten_percent_of_ns3() {
    let mut report = String::new();
    let mut ok = true;
    for (loss, ns3) in NS3_NEWRENO {
        let ours = mean_goodput_mbps("newreno", loss);
        let rel = ours / ns3 - 1.0;
        report.push_str(&format!("loss {loss}: wtcp {ours:.3} Mb/s, ns-3 {ns3} Mb/s, {:+.1} %\n", rel * 100.0));
        ok &= rel.abs() <= 0.10;
    }
    assert!(ok, "NewReno outside 10 % of ns-3:\n{report}");
}

#[test]
fn westwoodplus_goodput_is_within_ten_percent_of_ns3() {
    // Until its bandwidth samples credited bytes twice (westwood.rs), wtcp's Westwood+ was
    // 12.5 % and 10.3 % above ns-3 at 2 % and 5 %.
    let mut report = String::new();
    let mut ok = true;
    for (loss, ns3) in NS3_WESTWOODPLUS {
        let ours = mean_goodput_mbps("westwoodplus", loss);
        let rel = ours / ns3 - 1.0;
        report.push_str(&format!("loss {loss}: wtcp {ours:.3} Mb/s, ns-3 {ns3} Mb/s, {:+.1} %\n", rel * 100.0));
        ok &= rel.abs() <= 0.10;
    }
    assert!(ok, "Westwood+ against ns-3:\n{report}");
}
