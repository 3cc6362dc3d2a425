//! Rate estimators do not read above the bottleneck: one bulk flow on the ns-3 "simple2"
//! path (S -10 Mb/s, 10 ms- BS -2 Mb/s, 1 ms- D, DropTail 100 packets), random loss of
//! 0-5 % on the 2 Mb/s hop, SACK, delayed ACKs and timestamps on or off. Each algorithm's
//! traced estimate, averaged over one SRTT (the trace samples in (t - SRTT(t), t], for
//! every sample t), stays within 10 % of the payload rate the hop can carry, 2 Mb/s x
//! MSS / (MSS + IP/TCP header + timestamps option + link header).
//!
//! Held to the bound ([`BOUNDED`]): Westwood, Westwood+ with Linux's sampling window,
//! Prairie, Dynamic Responding TCP, TCP-Taichung (one segment per smoothed inter-ACK gap),
//! Jersey's ABE, New Jersey's rate (TABE with timestamps, ABE without) and NJ+'s MABE with
//! their defaults (one data packet per ACK in ABE's L_n), and with timestamps the
//! receiver-count readings of Jersey's ABE and NJ+'s MABE. Westwood+ with its default (ns-3) window is held to 20 %
//! ([`NS3_WINDOW_BOUND`]). Before the fix of `DeliveryCounter` (crates/wtcp-cc westwood.rs)
//! this test failed: Westwood+ read 1.70x (its minimal case: 3.7 % loss, no SACK, no
//! delayed ACKs; 3.57x with SACK), Westwood with SACK 1.15x (0 % loss, after a slow-start
//! overflow).
//!
//! Known to read above it, with their defaults ([`documented_readings_above_the_bottleneck`]):
//! - `jersey` (ABE) and `njplus` (MABE = max(R_sn, R_rn)) with the earlier reading of
//!   L_n, the whole cumulative-ACK advance (`dupack_credit = false`): the ACK that fills a
//!   hole counts every segment the receiver held, and Eq. 1 over Tw = one RTT turns that
//!   into a rate of several times the bottleneck (55x and 18x in one survey of random
//!   set-ups, 26.7x and 16.3x in another, N, timestamps and code version not recorded;
//!   `survey` covers Jersey's `dupack_credit = false` only; the test asserts more than 2x).
//! - `ewr`: the traced `bwe_bytes_per_s` is the sender's mirror of Eq. 1-2 (ewr.rs: "kept
//!   up to date in every mode"), per ACK, with its own copy of Linux's duplicate-ACK
//!   accounting (`delivered_bytes`, with the one-segment-per-partial-ACK over-credit
//!   `DeliveryCounter` no longer has): up to 32x without timestamps, 1.3x with (1.29x
//!   both ways with the corrected accounting, an ablation: a delayed ACK's two segments over the short
//!   gap to an immediate ACK, through an EWMA of gain 0.3). The receiver's Eq. 1, which
//!   sets the advertised oCwnd by default, times each arriving segment and cannot exceed
//!   the bottleneck; it is not traced as a rate.

use crate::common;

use common::load;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use wtcp_engine::RunResult;

const MSS: f64 = 1000.0;
const HEADER: f64 = 40.0;
const TIMESTAMPS_OPTION: f64 = 12.0;
const LINK_HEADER: f64 = 2.0;
const BOTTLENECK_BPS: f64 = 2e6;

/// The bound: an RTT mean of the estimate at most 10 % above the payload rate.
const BOUND: f64 = 1.10;

/// Westwood+'s ns-3 window (`sampling = "ns3"`) counts the ACK that opens it and divides by
/// the RTT, while the time from its end to the next ACK belongs to no window: a sample
/// holds up to one ACK's data (two segments with delayed ACKs) more than the RTT
/// delivered, at most 1.30x on the 27.5 ms base RTT, and the Tustin filter averages
/// samples. Measured: up to 1.14x over 500 random setups, the high ones with delayed ACKs.
const NS3_WINDOW_BOUND: f64 = 1.20;

/// `scenarios/reference-simple2.toml` (its flow starts at 1 s), 25 s, traced every 5 ms.
const PATH: &str = "scenarios/reference-simple2.toml";
const RUN: [(&str, &str); 4] = [("run.duration_s", "25"), ("run.measure_from_s", "0"), ("trace.enabled", "true"), ("trace.interval_ms", "5")];

/// How an algorithm's traced variable reads as a rate.
#[derive(Clone, Copy, Debug)]
enum Unit {
    /// Bits per second.
    BitsPerS,
    /// Bytes per second (Jersey's `*_bps` variables and EWR's `bwe_bytes_per_s`).
    BytesPerS,
    /// An inter-ACK time in seconds, read as one segment per gap (Taichung's ideal ssthresh
    /// RTTmin / InterACK + 1 counts segments).
    SegmentGapS,
}

/// One estimator: the algorithm, its `cc_params`, the traced variable and its unit.
#[derive(Clone, Copy, Debug)]
struct Estimator {
    cc: &'static str,
    /// `cc_params` overrides, `(key, TOML value)`.
    params: &'static [(&'static str, &'static str)],
    var: &'static str,
    unit: Unit,
    /// The estimate exists only with timestamps (the receiver's clock and byte count).
    needs_timestamps: bool,
}

const fn est(cc: &'static str, var: &'static str, unit: Unit) -> Estimator {
    Estimator { cc, params: &[], var, unit, needs_timestamps: false }
}

const WESTWOODPLUS: Estimator = est("westwoodplus", "bwe_bps", Unit::BitsPerS);
const JERSEY: Estimator = est("jersey", "rate_bps", Unit::BytesPerS);
const NJPLUS: Estimator = est("njplus", "rate_bps", Unit::BytesPerS);
const EWR: Estimator = est("ewr", "bwe_bytes_per_s", Unit::BytesPerS);

/// Estimators held to [`BOUND`].
const BOUNDED: &[Estimator] = &[
    est("westwood", "bwe_bps", Unit::BitsPerS),
    // Westwood+'s default accounting (ns-3's, each byte once) in windows that tile the ACK
    // stream.
    Estimator { params: &[("sampling", "\"linux\"")], ..WESTWOODPLUS },
    est("prairie", "abw_bps", Unit::BitsPerS),
    est("dynamic", "abw_bps", Unit::BitsPerS),
    est("taichung", "interack_s", Unit::SegmentGapS),
    JERSEY,
    NJPLUS,
    est("newjersey", "rate_bps", Unit::BytesPerS),
    Estimator { params: &[("abe_bytes", "\"received\"")], needs_timestamps: true, ..JERSEY },
    Estimator { params: &[("new_jersey.abe_bytes", "\"received\"")], needs_timestamps: true, ..NJPLUS },
];

/// One run's impairments and TCP options.
#[derive(Clone, Copy, Debug)]
struct Setup {
    loss: f64,
    sack: bool,
    delayed_ack: bool,
    timestamps: bool,
    seed: u64,
}

fn run(e: &Estimator, s: &Setup) -> RunResult {
    let mut ov: Vec<(String, String)> = vec![
        ("flows.0.cc".into(), e.cc.into()),
        ("links.1.ab.loss.rate".into(), s.loss.to_string()),
        ("tcp.sack".into(), s.sack.to_string()),
        ("tcp.delayed_ack".into(), s.delayed_ack.to_string()),
        ("tcp.timestamps".into(), s.timestamps.to_string()),
        ("run.seed".into(), s.seed.to_string()),
    ];
    ov.extend(e.params.iter().map(|(k, v)| (format!("flows.0.cc_params.{k}"), v.to_string())));
    ov.extend(RUN.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let ov: Vec<(&str, &str)> = ov.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    wtcp_engine::run(&load(PATH, &ov))
}

/// Payload bits per second the bottleneck carries.
fn payload_bps(timestamps: bool) -> f64 {
    let header = HEADER + LINK_HEADER + if timestamps { TIMESTAMPS_OPTION } else { 0.0 };
    BOTTLENECK_BPS * MSS / (MSS + header)
}

/// The estimate in bits per second at every trace sample, as (time, estimate, SRTT);
/// samples without an estimate or an SRTT are left out.
fn series(r: &RunResult, e: &Estimator) -> Vec<(f64, f64, f64)> {
    let t = r.traces.as_ref().expect("traced run");
    let srtt = &t.flow_columns.iter().find(|(n, _)| *n == "srtt").expect("srtt column").1;
    let rows = (0..t.cc_name.len()).filter(|&i| t.cc_flow[i] == 0 && t.cc_name[i] == e.var);
    let mut out = Vec::new();
    // One flow: its j-th row of `e.var` and its j-th flow row are the same sample.
    for (j, i) in rows.enumerate() {
        assert_eq!(t.flow_time[j], t.cc_time[i]);
        let v = t.cc_value[i];
        let bps = match e.unit {
            Unit::BitsPerS => v,
            Unit::BytesPerS => v * 8.0,
            Unit::SegmentGapS => MSS * 8.0 / v,
        };
        if bps.is_finite() && srtt[j].is_finite() && srtt[j] > 0.0 {
            out.push((t.cc_time[i], bps, srtt[j]));
        }
    }
    out
}

/// The largest mean of the estimate over one SRTT: for every sample t, the mean of the
/// samples in (t - SRTT(t), t]. Returns (mean, t).
fn max_rtt_mean(s: &[(f64, f64, f64)]) -> (f64, f64) {
    let mut prefix = vec![0.0; s.len() + 1];
    for (k, &(_, v, _)) in s.iter().enumerate() {
        prefix[k + 1] = prefix[k] + v;
    }
    let mut best = (f64::NEG_INFINITY, f64::NAN);
    for (k, &(t, _, srtt)) in s.iter().enumerate() {
        let from = s[..=k].partition_point(|&(u, _, _)| u <= t - srtt);
        let mean = (prefix[k + 1] - prefix[from]) / (k + 1 - from) as f64;
        if mean > best.0 {
            best = (mean, t);
        }
    }
    best
}

/// The largest RTT mean of `e`'s estimate in a run, as a multiple of the payload rate, and
/// the time it ends.
fn peak(e: &Estimator, s: &Setup) -> (f64, f64) {
    let (mean, at) = max_rtt_mean(&series(&run(e, s), e));
    (mean / payload_bps(s.timestamps), at)
}

fn setup() -> impl Strategy<Value = Setup> {
    (0.0f64..0.05, any::<bool>(), any::<bool>(), any::<bool>(), 0u64..1_000_000)
        .prop_map(|(loss, sack, delayed_ack, timestamps, seed)| Setup { loss, sack, delayed_ack, timestamps, seed })
}

proptest! {
    // A fixed seed keeps CI reproducible; raise `cases` locally to search wider (each case
    // runs every estimator for 25 simulated seconds, about 5 ms each).
    #![proptest_config(ProptestConfig { cases: 64, rng_seed: RngSeed::Fixed(0x6277_6562), failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn no_estimate_averaged_over_an_rtt_exceeds_the_bottleneck_payload_rate(s in setup()) {
        for e in BOUNDED.iter().filter(|e| s.timestamps || !e.needs_timestamps) {
            let (ratio, at) = peak(e, &s);
            prop_assert!(ratio <= BOUND, "{} {:?} ({}) reads {:.3}x the payload rate over the RTT ending at {:.3} s, {:?}", e.cc, e.params, e.var, ratio, at, s);
        }
        let (ratio, at) = peak(&WESTWOODPLUS, &s);
        prop_assert!(ratio <= NS3_WINDOW_BOUND, "westwoodplus reads {:.3}x the payload rate over the RTT ending at {:.3} s, {:?}", ratio, at, s);
    }
}

#[test]
fn documented_readings_above_the_bottleneck() {
    // 1 % loss, SACK, an ACK per segment: the case where the hole-filling ACK jumps most.
    let with_ts = Setup { loss: 0.01, sack: true, delayed_ack: false, timestamps: true, seed: 1 };
    let without_ts = Setup { timestamps: false, ..with_ts };
    // ABE's L_n = the whole cumulative-ACK advance, and NJ+'s max(R_sn, R_rn) takes its
    // jumps.
    let whole_advance = [
        Estimator { params: &[("dupack_credit", "false")], ..JERSEY },
        Estimator { params: &[("new_jersey.dupack_credit", "false")], ..NJPLUS },
    ];
    for e in whole_advance {
        let (ratio, _) = peak(&e, &with_ts);
        assert!(ratio > 2.0, "{}: {ratio:.3}", e.cc);
    }
    // EWR's traced sender mirror, timed by ACK arrivals without timestamps.
    let (ratio, _) = peak(&EWR, &without_ts);
    assert!(ratio > 2.0, "ewr: {ratio:.3}");
    // The ns-3 window with delayed ACKs: above the payload rate, within NS3_WINDOW_BOUND.
    let delayed = Setup { loss: 0.02, delayed_ack: true, ..without_ts };
    let (ratio, _) = peak(&WESTWOODPLUS, &delayed);
    assert!(ratio > 1.02 && ratio <= NS3_WINDOW_BOUND, "westwoodplus: {ratio:.3}");
}

/// Prints, for every estimator and its documented alternatives, the distribution of the
/// peak RTT mean over `N` (default 200) random setups (`TS=0|1` fixes timestamps).
#[test]
#[ignore = "survey for reports: cargo test --test engine estimator_bounds:: survey -- --ignored --nocapture"]
fn survey() {
    let n: u64 = std::env::var("N").map_or(200, |v| v.parse().expect("N"));
    let ts = std::env::var("TS").ok();
    let defaults = [
        est("westwood", "bwe_bps", Unit::BitsPerS),
        WESTWOODPLUS,
        est("prairie", "abw_bps", Unit::BitsPerS),
        est("dynamic", "abw_bps", Unit::BitsPerS),
        JERSEY,
        NJPLUS,
        est("taichung", "interack_s", Unit::SegmentGapS),
        EWR,
        Estimator { params: &[("flavour", "\"ns2\"")], ..est("westwood", "bwe_bps", Unit::BitsPerS) },
        Estimator { params: &[("dupack_credit", "false")], ..JERSEY },
    ];
    for e in defaults.iter().chain(BOUNDED) {
        let mut peaks = Vec::new();
        let mut worst: Option<(f64, Setup)> = None;
        for i in 0..n {
            let h = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let timestamps = ts.as_deref().map_or((h >> 22) & 1 == 1, |v| v == "1");
            let s = Setup { loss: (h % 5000) as f64 / 100_000.0, sack: (h >> 20) & 1 == 1, delayed_ack: (h >> 21) & 1 == 1, timestamps, seed: h >> 32 };
            if e.needs_timestamps && !s.timestamps {
                continue;
            }
            let (ratio, _) = peak(e, &s);
            if worst.is_none_or(|(w, _)| ratio > w) {
                worst = Some((ratio, s));
            }
            peaks.push(ratio);
        }
        peaks.sort_by(f64::total_cmp);
        let q = |f: f64| peaks[((peaks.len() - 1) as f64 * f) as usize];
        let over = peaks.iter().filter(|&&x| x > BOUND).count();
        println!(
            "{:12} {:?}: max {:.3} p90 {:.3} median {:.3}, above {BOUND}: {over}/{}; worst {:?}",
            e.cc,
            e.params,
            q(1.0),
            q(0.9),
            q(0.5),
            peaks.len(),
            worst.map(|w| w.1)
        );
    }
}
