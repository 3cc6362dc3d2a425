//! SACK (RFC 2018), RFC 6675 loss recovery, RFC 6937 PRR and D-SACK (RFC 2883) at the
//! scenario level.

use crate::common;

use common::two_hop;
use wtcp_engine::RunResult;

/// Four data packets of one window lost on the 2 Mb/s hop, 60 s run.
const FOUR_IN_ONE_WINDOW: &str = "{ model = \"list\", packets = [200, 203, 206, 209] }";

fn run(sack: &str, recovery: &str) -> RunResult {
    two_hop(&[
        ("run.duration_s", "60"),
        ("flows.0.bytes", "2000000"),
        ("links.1.ab.loss", FOUR_IN_ONE_WINDOW),
        // A 200 ms round trip and a 40-segment receive window, below the 50-segment
        // bandwidth-delay product: no queue, the four are the only losses and every round
        // trip takes the base RTT.
        ("links.0.delay_ms", "99"),
        ("tcp.recv_buffer_bytes", "40000"),
        ("tcp.sack", sack),
        ("tcp.recovery", recovery),
        // NewReno's partial ACKs keep its timer running (RFC 6582 §4), so that it too
        // repairs the window without a timeout, one hole per round trip.
        ("tcp.partial_ack_timer", "slow_but_steady"),
        ("trace.enabled", "true"),
        ("trace.interval_ms", "1"),
    ])
}

/// How long flow 0 stayed in recovery (`in_recovery` in the 1-ms trace), seconds.
fn recovery_time_s(r: &RunResult) -> f64 {
    let t = r.traces.as_ref().unwrap();
    let col = &t.flow_columns.iter().find(|(n, _)| *n == "in_recovery").unwrap().1;
    let times: Vec<f64> = (0..col.len()).filter(|&i| col[i] == 1.0).map(|i| t.flow_time[i]).collect();
    times.last().unwrap() - times.first().unwrap()
}

#[test]
fn several_losses_in_one_window_are_repaired_in_one_round_trip_with_sack() {
    let newreno = run("false", "classic");
    let sack = run("true", "classic");
    let prr = run("true", "prr");
    for (name, r) in [("newreno", &newreno), ("sack", &sack), ("prr", &prr)] {
        let f = &r.flows[0];
        assert_eq!(f.delivered_bytes, 2_000_000, "{name}");
        assert_eq!(f.fast_retransmits, 1, "{name}: one recovery episode");
        assert_eq!(f.timeouts, 0, "{name}");
        // Only the rescue copy can be unnecessary (its original may have arrived already).
        assert!(f.unnecessary_retransmissions <= f.dsacks, "{name}");
        // The four lost segments, plus (with SACK) at most RFC 6675's one rescue
        // retransmission, whose duplicate arrival comes back as a D-SACK.
        assert_eq!(f.retransmitted_segments - f.dsacks, 4, "{name}: {} retransmissions, {} D-SACKs", f.retransmitted_segments, f.dsacks);
        assert!(f.dsacks <= 1, "{name}");
    }
    // NewReno repairs one hole per partial ACK, one per round trip (4 RTTs); with SACK the
    // holes are known at once and the recovery lasts one round trip.
    let (t_newreno, t_sack, t_prr) = (recovery_time_s(&newreno), recovery_time_s(&sack), recovery_time_s(&prr));
    let rtt = 0.2;
    assert!(t_sack < 1.5 * rtt, "SACK recovery {t_sack} s");
    assert!(t_prr < 1.5 * rtt, "PRR recovery {t_prr} s");
    assert!(t_newreno > 3.0 * rtt, "NewReno recovery {t_newreno} s");
}

#[test]
fn a_spurious_retransmission_is_reported_by_a_dsack() {
    // A 1.5 s delay spike makes the RTO fire spuriously: the go-back-N resends segments
    // the receiver already has, and each duplicate comes back as a D-SACK.
    let spike = "[{ start_s = 5.0, duration_s = 0.5, extra_delay_ms = 1500 }]";
    let r = two_hop(&[("run.duration_s", "20"), ("links.1.ab.delay_spikes", spike), ("tcp.sack", "true")]);
    let f = &r.flows[0];
    assert!(f.timeouts >= 1);
    assert!(f.unnecessary_retransmissions > 0);
    assert!(f.dsacks > 0, "no D-SACK for {} unnecessary retransmissions", f.unnecessary_retransmissions);
    // Each D-SACK reports a copy that arrived twice, so a retransmission; the oracle's
    // "unnecessary" counts only copies sent after the first had arrived, so the spike's
    // resends of data still in flight are D-SACKed without being counted there.
    assert!(f.dsacks <= f.retransmitted_segments);
    // Without SACK there are none.
    let r = two_hop(&[("run.duration_s", "20"), ("links.1.ab.delay_spikes", spike)]);
    assert_eq!(r.flows[0].dsacks, 0);
}

#[test]
fn after_a_timeout_go_back_n_skips_sacked_segments() {
    // Bursty loss (Gilbert-Elliott) that ends many recoveries in a timeout: without SACK the
    // go-back-N resends segments the receiver holds; with SACK it skips the SACKed ones.
    // (With the skip disabled the SACK runs made 520 unnecessary retransmissions here.)
    let runs = |sack: &str| {
        let (mut timeouts, mut unnecessary) = (0, 0);
        for seed in 1..=4 {
            let s = seed.to_string();
            let r = two_hop(&[
                ("run.seed", &s),
                ("run.duration_s", "100"),
                ("links.1.ab.loss", "{ model = \"gilbert_elliott\", p_good_to_bad = 0.01, p_bad_to_good = 0.3, loss_bad = 0.9 }"),
                ("tcp.sack", sack),
            ]);
            timeouts += r.flows[0].timeouts;
            unnecessary += r.flows[0].unnecessary_retransmissions;
        }
        (timeouts, unnecessary)
    };
    let (plain_to, plain_un) = runs("false");
    let (sack_to, sack_un) = runs("true");
    assert!(plain_to >= 10 && sack_to >= 10, "{plain_to} / {sack_to} timeouts");
    assert!(sack_un * 10 < plain_un, "{sack_un} vs {plain_un} unnecessary retransmissions");
}

#[test]
fn prr_needs_sack() {
    let text = common::TWO_HOP;
    let err = wtcp_engine::Scenario::from_toml_str(text, &[("tcp.recovery".into(), "\"prr\"".into())]).unwrap_err();
    assert!(err.to_string().contains("tcp.recovery") && err.to_string().contains("sack"), "{err}");
}

/// One data packet lost on the 2 Mb/s hop with PRR, NewReno halving cwnd (so that
/// ssthresh is not computed from the pipe), the given ns-3 options (`tcp.KEY`, value);
/// 1-ms trace.
fn one_loss_prr(options: &[(&str, &str)]) -> RunResult {
    let mut overrides = vec![
        ("run.duration_s", "10"),
        ("flows.0.cc_params", "{ halve = \"cwnd\" }"),
        ("links.1.ab.loss", "{ model = \"list\", packets = [200] }"),
        // A 200 ms round trip (50-segment BDP) and slow start ending at 30 segments: the
        // one loss is the only one, and the window, not the receiver, limits the sender.
        ("links.0.delay_ms", "99"),
        ("tcp.initial_ssthresh_segments", "30"),
        ("tcp.sack", "true"),
        ("tcp.recovery", "prr"),
        ("trace.enabled", "true"),
        ("trace.interval_ms", "1"),
    ];
    overrides.extend_from_slice(options);
    two_hop(&overrides)
}

fn column<'a>(r: &'a RunResult, name: &str) -> &'a [f64] {
    let t = r.traces.as_ref().unwrap();
    &t.flow_columns.iter().find(|(n, _)| *n == name).unwrap().1
}

/// (bytes of new data sent in the first half of recovery, cwnd and ssthresh at the first
/// sample after it).
fn recovery_sends_and_exit(r: &RunResult) -> (f64, f64, f64) {
    let (rec, snd_max) = (column(r, "in_recovery"), column(r, "snd_max"));
    let first = rec.iter().position(|&v| v == 1.0).unwrap();
    let after = first + rec[first..].iter().position(|&v| v == 0.0).unwrap();
    let half = (first + after) / 2;
    (snd_max[half] - snd_max[first], column(r, "cwnd")[after], column(r, "ssthresh")[after])
}

#[test]
fn prr_recover_fs_from_the_pipe_sends_more_during_recovery() {
    // RFC 6937 §3 sends ssthresh / RecoverFS of what is delivered while pipe > ssthresh;
    // ns-3.44's TcpPrrRecovery takes RecoverFS from the pipe (outstanding less the SACKed
    // and the lost segment), smaller than FlightSize, so it sends sooner (both reach
    // ssthresh by the end of a one-loss recovery).
    let (rfc, _, _) = recovery_sends_and_exit(&one_loss_prr(&[("tcp.prr_recover_fs", "\"flight_size\"")]));
    let (ns3, _, _) = recovery_sends_and_exit(&one_loss_prr(&[("tcp.prr_recover_fs", "\"pipe\"")]));
    assert!(ns3 > rfc, "sent in the first half of recovery: pipe {ns3} B, FlightSize {rfc} B");
}

#[test]
fn the_exit_ack_grows_the_window_only_with_recovery_exit_growth() {
    // RFC 6582 §3.2 step 3 deflates to ssthresh; ns-3.44 then gives that ACK to
    // IncreaseWindow (one RFC 5681 eq. 3 step for NewReno).
    let (_, cwnd_rfc, ssthresh_rfc) = recovery_sends_and_exit(&one_loss_prr(&[("tcp.prr_recover_fs", "\"flight_size\"")]));
    let (_, cwnd_ns3, ssthresh_ns3) = recovery_sends_and_exit(&one_loss_prr(&[("tcp.recovery_exit_growth", "true")]));
    assert_eq!(ssthresh_rfc, ssthresh_ns3);
    let step = 1000.0 * 1000.0 / ssthresh_ns3;
    assert!((cwnd_ns3 - cwnd_rfc - step).abs() < 0.05 * step, "cwnd {cwnd_ns3} vs {cwnd_rfc}, one step {step}");
}

#[test]
fn prr_with_ns3s_duplicate_ack_credit_sends_sooner() {
    // ns-3.44's TcpPrrRecovery adds one SMSS to what a duplicate ACK delivered while less
    // than RecoverFS was delivered: about one segment per duplicate ACK early in recovery.
    let run = |credit: &str| one_loss_prr(&[("tcp.prr_dupack_credit", credit)]);
    let (rfc, _, _) = recovery_sends_and_exit(&run("false"));
    let (ns3, _, _) = recovery_sends_and_exit(&run("true"));
    assert!(ns3 > rfc, "sent in the first half of recovery: with the credit {ns3} B, without {rfc} B");
}

/// A 1-s outage of the 2 Mb/s hop from 5 s (a timeout, then go-back-N in slow start) with
/// `tcp.loss_exit_credit = credit` and `more` overrides.
fn outage(credit: &str, more: &[(&str, &str)]) -> RunResult {
    let mut o = vec![
        ("links.1.ab.loss", "{ model = \"list\", packets = [] }"),
        ("links.1.ab.outages", "[{ start_s = 5.0, duration_s = 1.0 }]"),
        ("tcp.loss_exit_credit", credit),
    ];
    o.extend_from_slice(more);
    one_loss_prr(&o)
}

/// The trace sample at which the first timeout has happened, and the recovery point it set
/// (SND.MAX just before it: nothing is sent while the outage stalls the flow).
fn timeout_and_recovery_point(r: &RunResult) -> (usize, f64) {
    let at = column(r, "backoff").iter().position(|&b| b >= 1.0).expect("a timeout");
    (at, column(r, "snd_max")[at - 1])
}

#[test]
fn the_ack_that_ends_a_timeouts_recovery_is_credited_above_the_recovery_point_only_with_ns3s_rule() {
    // RFC 5681 grows the window by what the ACK reaching the recovery point acknowledges
    // (at most one SMSS per ACK in slow start); ns-3.44 (tcp-socket-base.cc:2219-2233) only
    // by its part above the recovery point. The runs are identical until SND.UNA reaches
    // the recovery point, and differ from that sample on.
    let (rfc, ns3) = (outage("\"delivered\"", &[]), outage("\"above_recovery_point\"", &[]));
    assert_eq!(rfc.flows[0].timeouts, ns3.flows[0].timeouts);
    let (at, recover) = timeout_and_recovery_point(&rfc);
    let una = column(&rfc, "snd_una");
    let exit = una.iter().position(|&u| u >= recover).unwrap();
    assert!(exit > at);
    let (a, b) = (column(&rfc, "cwnd"), column(&ns3, "cwnd"));
    assert_eq!(a[..exit], b[..exit], "the runs differ before the ACK that leaves CA_LOSS");
    let gap = a[exit] - b[exit];
    assert!(gap > 0.0 && gap <= 1000.0, "cwnd {} vs {} at the exit", a[exit], b[exit]);

    // CUBIC in ns-3's arithmetic counts DeliveredData (`delivered_bytes`): cut the same way.
    let cubic = [("flows.0.cc", "\"cubic\""), ("flows.0.cc_params", "{ arithmetic = \"ns3\", slow_start = \"segments_acked\", hystart = false }")];
    let (rfc, ns3) = (outage("\"delivered\"", &cubic), outage("\"above_recovery_point\"", &cubic));
    let exit = column(&rfc, "snd_una").iter().position(|&u| u >= timeout_and_recovery_point(&rfc).1).unwrap();
    assert_eq!(column(&rfc, "cwnd")[..exit], column(&ns3, "cwnd")[..exit]);
    assert!(column(&rfc, "cwnd")[exit] > column(&ns3, "cwnd")[exit]);
}

#[test]
fn the_loss_exit_credit_applies_only_with_sack_and_not_to_a_paced_model() {
    // Without SACK the option does nothing (`reno_sack` has its own rule); BBR, paced, sees
    // every ACK whole (ns-3's TcpBbr takes the rate sample, not segsAcked).
    for more in [
        &[("tcp.sack", "false"), ("tcp.recovery", "\"classic\"")][..],
        &[("flows.0.cc", "\"bbr\""), ("flows.0.cc_params", "{}")][..],
    ] {
        let (rfc, ns3) = (outage("\"delivered\"", more), outage("\"above_recovery_point\"", more));
        assert!(rfc.flows[0].timeouts >= 1, "{more:?}");
        assert_eq!(column(&rfc, "cwnd"), column(&ns3, "cwnd"), "{more:?}");
    }
}

/// The ACK that enters recovery is judged on the pipe before the fast retransmission (RFC
/// 9937; Linux tcp_cwnd_reduction, ns-3 EnterRecovery). simple2 on the `ns3` profile with
/// Westwood+ and a fixed list of lost packets: the second recovery (1.368 s) starts with
/// two segments in the pipe and ssthresh between two and three segments (2385 bytes), so
/// it sends the retransmission and nothing new. Judged after the retransmission (pipe 3000
/// > ssthresh) PRR's proportional branch let a new segment go with it, which ns-3 does not
/// send.
#[test]
fn the_ack_entering_recovery_sends_only_the_retransmission_when_the_pipe_is_at_ssthresh() {
    let r = common::load(
        "python/wtcp/scenarios/reference-simple2.toml",
        &[
            ("profile", "\"ns3\""),
            ("flows.0.cc", "\"westwoodplus\""),
            ("links.1.ab.loss", "{ model = \"list\", packets = [6, 8, 36, 38, 45, 58, 63, 95, 109, 118] }"),
            ("run.duration_s", "3"),
            ("trace.enabled", "true"),
            ("trace.interval_ms", "1"),
        ],
    );
    let r = wtcp_engine::run(&r);
    let (rec, snd_max, ssthresh) = (column(&r, "in_recovery"), column(&r, "snd_max"), column(&r, "ssthresh"));
    let t = &r.traces.as_ref().unwrap().flow_time;
    let entries: Vec<usize> = (1..rec.len()).filter(|&i| rec[i] == 1.0 && rec[i - 1] == 0.0).collect();
    let i = entries[1];
    assert!((t[i] - 1.368).abs() < 1e-9, "second recovery at {}", t[i]);
    // The case: the pipe before the retransmission (2 segments) is within ssthresh, the
    // pipe after it (3) is not.
    assert!(2000.0 <= ssthresh[i] && ssthresh[i] < 3000.0, "ssthresh {}", ssthresh[i]);
    assert_eq!(snd_max[i], snd_max[i - 1], "new data sent by the entering ACK");
}
