//! The behavioural contract every registered algorithm must keep, run on each one with
//! its default parameters. A new algorithm is covered as soon as it is registered.

use wtcp_cc::testing::{Harness, MSS};
use wtcp_cc::{catalog, AlgorithmInfo, CcConfig, Loss};

const MS: u64 = 1_000_000;

fn harness(info: &AlgorithmInfo) -> Harness {
    Harness::new(CcConfig::default_for(info.name).unwrap().build())
}

fn each(check: impl Fn(&AlgorithmInfo)) {
    for info in catalog() {
        check(info);
    }
}

#[test]
fn slow_start_grows_the_window() {
    each(|info| {
        let mut h = harness(info);
        let before = h.w.cwnd;
        for _ in 0..4 {
            h.ack(1, 50 * MS);
        }
        assert!(h.w.cwnd > before, "{}: cwnd {} did not grow from {}", info.name, h.w.cwnd, before);
    });
}

#[test]
fn a_timeout_collapses_the_window_unless_the_paper_says_otherwise() {
    each(|info| {
        let mut h = harness(info);
        for _ in 0..30 {
            h.ack(1, 50 * MS);
        }
        h.loss(Loss::Timeout { consecutive: 1 });
        if info.timeout_collapses_window {
            assert_eq!(h.w.cwnd, f64::from(MSS), "{}", info.name);
        }
        assert!(h.w.ssthresh.is_finite(), "{}: a timeout must set ssthresh", info.name);
    });
}

/// Algorithms whose paper sets ssthresh on every expiry (ns-2's slowdown() on every
/// timeout, the CLAP paper's Fig. 1; TCP-Taichung's Fig. 4 timeout branch): ssthresh
/// shrinks from the restart window each time.
const SSTHRESH_ON_EVERY_EXPIRY: &[&str] = &["acc", "clap", "taichung"];

#[test]
fn repeated_timeouts_hold_ssthresh() {
    // RFC 5681 §3.1, except where the paper says otherwise.
    each(|info| {
        let mut h = harness(info);
        for _ in 0..30 {
            h.ack(1, 50 * MS);
        }
        h.loss(Loss::Timeout { consecutive: 1 });
        let first = h.w.ssthresh;
        h.loss(Loss::Timeout { consecutive: 2 });
        h.loss(Loss::Timeout { consecutive: 3 });
        if SSTHRESH_ON_EVERY_EXPIRY.contains(&info.name) {
            assert!(h.w.ssthresh < first, "{}", info.name);
            assert!(h.w.ssthresh >= 2.0 * f64::from(MSS), "{}", info.name);
        } else {
            assert_eq!(h.w.ssthresh, first, "{}", info.name);
        }
    });
}

#[test]
fn the_window_never_falls_below_one_segment_nor_overflows_in_ten_days() {
    each(|info| {
        let mut h = harness(info);
        // Ten simulated days of loss-free ACKs, one per 100 ms RTT, then losses.
        let rtt = 100 * MS;
        let acks = 10 * 24 * 3600 * 10;
        for i in 0..acks {
            h.ack(1, rtt);
            if i % 100_000 == 0 {
                assert!(h.w.cwnd.is_finite() && h.w.cwnd >= f64::from(MSS), "{}: cwnd {}", info.name, h.w.cwnd);
            }
        }
        assert!(h.w.cwnd.is_finite(), "{}: cwnd overflowed", info.name);
        for _ in 0..50 {
            h.loss(Loss::FastRetransmit);
            assert!(h.w.cwnd >= f64::from(MSS), "{}: cwnd {} below one segment", info.name, h.w.cwnd);
            h.exit_recovery();
        }
    });
}

#[test]
fn duplicate_acks_alone_never_grow_the_window_outside_recovery() {
    each(|info| {
        let mut h = harness(info);
        for _ in 0..10 {
            h.ack(1, 50 * MS);
        }
        let before = h.w.cwnd;
        h.dup_ack();
        h.dup_ack();
        assert!(h.w.cwnd <= before, "{}: {} -> {}", info.name, before, h.w.cwnd);
    });
}

#[test]
fn identical_input_gives_identical_behaviour() {
    each(|info| {
        let run = || {
            let mut h = harness(info);
            let mut trace = Vec::new();
            for i in 0..200u64 {
                h.ack(1 + i % 3, (40 + i % 17) * MS);
                if i % 37 == 0 {
                    h.loss(Loss::FastRetransmit);
                    h.exit_recovery();
                }
                if i % 91 == 0 {
                    h.loss(Loss::Timeout { consecutive: 1 });
                }
                trace.push((h.w.cwnd.to_bits(), h.w.ssthresh.to_bits()));
            }
            trace
        };
        assert_eq!(run(), run(), "{}", info.name);
    });
}
