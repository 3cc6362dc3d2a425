//! The behavioural contract (`wtcp_cc::contract`) on every registered algorithm with its
//! default parameters. A new algorithm is covered as soon as it is registered.

use wtcp_cc::contract::{Check, CHECKS, DEFAULT_DAYS};
use wtcp_cc::{catalog, CcConfig};

fn check(name: &str) {
    let c: &Check = CHECKS.iter().find(|c| c.name == name).expect("a check of that name");
    for info in catalog() {
        let build = || CcConfig::default_for(info.name).unwrap().build();
        if let Err(e) = (c.run)(info, &build, DEFAULT_DAYS) {
            panic!("{}: {}: {e}", info.name, c.name);
        }
    }
}

#[test]
fn slow_start_grows_the_window() {
    check("slow_start_grows_the_window");
}

#[test]
fn a_timeout_collapses_the_window_unless_the_paper_says_otherwise() {
    check("a_timeout_collapses_the_window");
}

#[test]
fn repeated_timeouts_hold_ssthresh() {
    check("repeated_timeouts_hold_ssthresh");
}

#[test]
fn the_window_never_falls_below_one_segment_nor_overflows_in_ten_days() {
    check("the_window_stays_in_bounds");
}

#[test]
fn duplicate_acks_alone_never_grow_the_window_outside_recovery() {
    check("duplicate_acks_alone_never_grow_the_window");
}

#[test]
fn identical_input_gives_identical_behaviour() {
    check("identical_input_gives_identical_behaviour");
}

#[test]
fn every_check_runs_in_one_of_the_tests_above() {
    let source = include_str!("contract.rs");
    for c in CHECKS {
        assert!(source.contains(&format!("check(\"{}\")", c.name)), "{} has no test", c.name);
    }
}

/// A check can fail: an algorithm that grows on duplicate ACKs is caught.
#[test]
fn the_contract_catches_a_broken_algorithm() {
    use wtcp_cc::{AckSample, CongestionControl, Ctx, Loss, Verdict, Window};
    #[derive(Debug)]
    struct GrowsOnDupacks;
    impl CongestionControl for GrowsOnDupacks {
        fn name(&self) -> &'static str {
            "newreno"
        }
        fn on_ack(&mut self, _: &AckSample, w: &mut Window, cx: &mut Ctx) {
            w.cwnd += cx.mss_f();
        }
        fn on_loss(&mut self, _: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
            w.ssthresh = 2.0 * cx.mss_f();
            w.cwnd = cx.mss_f();
            Verdict::None
        }
    }
    let info = CcConfig::default_for("newreno").unwrap().info();
    let failures = wtcp_cc::contract::run_all(info, &|| Box::new(GrowsOnDupacks), 1);
    let names: Vec<_> = failures.iter().map(|f| f.0).collect();
    assert_eq!(names, ["duplicate_acks_alone_never_grow_the_window"], "{failures:?}");
}
