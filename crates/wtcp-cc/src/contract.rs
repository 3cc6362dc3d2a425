//! The behavioural contract every algorithm must keep, whoever wrote it: the registry's
//! algorithms (`tests/contract.rs` runs it on each with its default parameters), an
//! algorithm from `wtcp new-algorithm`, and a user's Python class
//! (`wtcp.check_algorithm`). Each check drives the algorithm through [`Harness`] and
//! returns what it broke.

use crate::api::{CongestionControl, Loss};
use crate::registry::AlgorithmInfo;
use crate::testing::{Harness, MSS};

const MS: u64 = 1_000_000;

/// Algorithms whose paper sets ssthresh on every expiry (ns-2's slowdown() on every
/// timeout, the CLAP paper's Fig. 1; TCP-Taichung's Fig. 4 timeout branch): ssthresh
/// shrinks from the restart window each time.
pub const SSTHRESH_ON_EVERY_EXPIRY: &[&str] = &["acc", "clap", "taichung"];

/// Algorithms whose window follows a router's per-packet marks (ABC's accelerate and
/// brake, the authors' `tcp_abc.c`): a duplicate ACK reports a delivered packet and its
/// mark like any other ACK (it moves the window by at most two segments: its mark's and
/// one of additive increase), and there is no threshold to set (ssthresh stays infinite).
pub const EXPLICIT_FEEDBACK: &[&str] = &["abc"];

/// How long the overflow check runs, in simulated days of loss-free ACKs (one per 100 ms).
pub const DEFAULT_DAYS: u32 = 10;

/// Builds a fresh instance of the algorithm under test.
pub type Build<'a> = &'a dyn Fn() -> Box<dyn CongestionControl>;

/// One check of the contract.
pub struct Check {
    pub name: &'static str,
    /// What the check asserts, and the rule it comes from.
    pub rule: &'static str,
    pub run: fn(&AlgorithmInfo, Build, u32) -> Result<(), String>,
}

/// Every check, in the order they run.
pub const CHECKS: &[Check] = &[
    Check { name: "slow_start_grows_the_window", rule: "four ACKs in slow start grow cwnd (RFC 5681 §3.1)", run: slow_start_grows_the_window },
    Check {
        name: "a_timeout_collapses_the_window",
        rule: "a timeout sets cwnd to one segment (RFC 5681 §3.1 LW) unless the algorithm's info says otherwise, and sets a finite ssthresh (except the schemes of EXPLICIT_FEEDBACK)",
        run: a_timeout_collapses_the_window,
    },
    Check {
        name: "repeated_timeouts_hold_ssthresh",
        rule: "a second and third expiry for the same data leave ssthresh alone (RFC 5681 §3.1), except the schemes of SSTHRESH_ON_EVERY_EXPIRY",
        run: repeated_timeouts_hold_ssthresh,
    },
    Check {
        name: "the_window_stays_in_bounds",
        rule: "cwnd stays finite and at least one segment over days of loss-free ACKs and 50 fast retransmits",
        run: the_window_stays_in_bounds,
    },
    Check {
        name: "duplicate_acks_alone_never_grow_the_window",
        rule: "duplicate ACKs outside recovery do not grow cwnd (RFC 5681 §3.2: only the sender's inflation does); for the schemes of EXPLICIT_FEEDBACK, by at most two segments each",
        run: duplicate_acks_alone_never_grow_the_window,
    },
    Check {
        name: "identical_input_gives_identical_behaviour",
        rule: "the same hooks with the same arguments give the same windows, bit for bit (determinism)",
        run: identical_input_gives_identical_behaviour,
    },
];

/// Run every check; the failures, each as (check name, what went wrong).
pub fn run_all(info: &AlgorithmInfo, build: Build, days: u32) -> Vec<(&'static str, String)> {
    CHECKS.iter().filter_map(|c| (c.run)(info, build, days).err().map(|e| (c.name, e))).collect()
}

fn ensure(ok: bool, msg: impl FnOnce() -> String) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(msg())
    }
}

fn slow_start_grows_the_window(_: &AlgorithmInfo, build: Build, _: u32) -> Result<(), String> {
    let mut h = Harness::new(build());
    let before = h.w.cwnd;
    for _ in 0..4 {
        h.ack(1, 50 * MS);
    }
    ensure(h.w.cwnd > before, || format!("cwnd {} did not grow from {} over four ACKs", h.w.cwnd, before))
}

fn a_timeout_collapses_the_window(info: &AlgorithmInfo, build: Build, _: u32) -> Result<(), String> {
    let mut h = Harness::new(build());
    for _ in 0..30 {
        h.ack(1, 50 * MS);
    }
    h.loss(Loss::Timeout { consecutive: 1 });
    if info.timeout_collapses_window {
        ensure(h.w.cwnd == f64::from(MSS), || format!("cwnd {} after a timeout, not one segment ({MSS} bytes)", h.w.cwnd))?;
    }
    if EXPLICIT_FEEDBACK.contains(&info.name) {
        return Ok(());
    }
    ensure(h.w.ssthresh.is_finite(), || format!("ssthresh {} after a timeout: a timeout must set it", h.w.ssthresh))
}

fn repeated_timeouts_hold_ssthresh(info: &AlgorithmInfo, build: Build, _: u32) -> Result<(), String> {
    let mut h = Harness::new(build());
    for _ in 0..30 {
        h.ack(1, 50 * MS);
    }
    h.loss(Loss::Timeout { consecutive: 1 });
    let first = h.w.ssthresh;
    h.loss(Loss::Timeout { consecutive: 2 });
    h.loss(Loss::Timeout { consecutive: 3 });
    if SSTHRESH_ON_EVERY_EXPIRY.contains(&info.name) {
        ensure(h.w.ssthresh < first && h.w.ssthresh >= 2.0 * f64::from(MSS), || format!("ssthresh {} -> {} over repeated timeouts", first, h.w.ssthresh))
    } else {
        ensure(h.w.ssthresh == first, || format!("ssthresh {} after the first timeout, {} after the third", first, h.w.ssthresh))
    }
}

fn the_window_stays_in_bounds(_: &AlgorithmInfo, build: Build, days: u32) -> Result<(), String> {
    let mut h = Harness::new(build());
    // Loss-free ACKs, one per 100 ms RTT, then losses.
    let rtt = 100 * MS;
    let acks = u64::from(days) * 24 * 3600 * 10;
    for i in 0..acks {
        h.ack(1, rtt);
        if i % 100_000 == 0 {
            ensure(h.w.cwnd.is_finite() && h.w.cwnd >= f64::from(MSS), || format!("cwnd {} after {i} ACKs", h.w.cwnd))?;
        }
    }
    ensure(h.w.cwnd.is_finite(), || format!("cwnd overflowed in {days} days"))?;
    for _ in 0..50 {
        h.loss(Loss::FastRetransmit);
        ensure(h.w.cwnd >= f64::from(MSS), || format!("cwnd {} below one segment after a fast retransmit", h.w.cwnd))?;
        h.exit_recovery();
    }
    Ok(())
}

fn duplicate_acks_alone_never_grow_the_window(info: &AlgorithmInfo, build: Build, _: u32) -> Result<(), String> {
    let mut h = Harness::new(build());
    for _ in 0..10 {
        h.ack(1, 50 * MS);
    }
    let before = h.w.cwnd;
    h.dup_ack();
    h.dup_ack();
    if EXPLICIT_FEEDBACK.contains(&info.name) {
        let bound = before + 4.0 * f64::from(MSS);
        return ensure(h.w.cwnd <= bound, || format!("two duplicate ACKs grew cwnd {} -> {}, more than two segments each", before, h.w.cwnd));
    }
    ensure(h.w.cwnd <= before, || format!("two duplicate ACKs grew cwnd {} -> {}", before, h.w.cwnd))
}

fn identical_input_gives_identical_behaviour(_: &AlgorithmInfo, build: Build, _: u32) -> Result<(), String> {
    let run = || {
        let mut h = Harness::new(build());
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
    let (a, b) = (run(), run());
    match a.iter().zip(&b).position(|(x, y)| x != y) {
        None => Ok(()),
        Some(i) => Err(format!(
            "two runs of the same input differ at step {i}: cwnd {} vs {}, ssthresh {} vs {}",
            f64::from_bits(a[i].0),
            f64::from_bits(b[i].0),
            f64::from_bits(a[i].1),
            f64::from_bits(b[i].1)
        )),
    }
}
