//! Scenario tests that pin a paper's mechanism where a reading of the paper was settled
//! (see the "Deviations and ambiguities resolved" of each module in `wtcp-cc`).

use crate::common;

use wtcp_engine::RunResult;

/// One traced run of `scenarios/two-hop-wireless.toml` (2 Mb/s bottleneck, 1024-byte
/// segments, timestamps on) for 80 s.
fn two_hop_wireless(cc: &str, loss: &str, extra: &[(&str, &str)]) -> RunResult {
    let mut ov = vec![
        ("flows.0.cc", cc),
        ("links.1.ab.loss.rate", loss),
        ("run.duration_s", "80"),
        ("trace.enabled", "true"),
    ];
    ov.extend_from_slice(extra);
    wtcp_engine::run(&common::load("scenarios/two-hop-wireless.toml", &ov))
}

/// The values of one algorithm variable of flow 0 after `from_s`.
fn cc_var(r: &RunResult, name: &str, from_s: f64) -> Vec<f64> {
    let t = r.traces.as_ref().expect("traced run");
    (0..t.cc_name.len())
        .filter(|&i| t.cc_flow[i] == 0 && t.cc_name[i] == name && t.cc_time[i] >= from_s && t.cc_value[i].is_finite())
        .map(|i| t.cc_value[i])
        .collect()
}

/// A flow column of flow 0.
fn flow_col(r: &RunResult, name: &str) -> Vec<f64> {
    let t = r.traces.as_ref().expect("traced run");
    let col = &t.flow_columns.iter().find(|(n, _)| *n == name).expect("flow column").1;
    (0..col.len()).filter(|&i| t.flow_id[i] == 0).map(|i| col[i]).collect()
}

#[test]
fn prairie_available_bandwidth_never_reads_above_the_bottleneck_payload_rate() {
    // One flow alone on the path: the bandwidth it can use is the 2 Mb/s link's payload
    // rate, 2e6 * 1024 / (1024 + 40 bytes of IP/TCP + 12 of timestamps) = 1.903 Mb/s. The
    // off-weight c' = c read 2.25 Mb/s here at 0 % loss and 3.5-4 Mb/s at 1-5 %.
    let payload_bps = 2e6 * 1024.0 / 1076.0;
    for cc in ["prairie", "dynamic"] {
        for loss in ["0", "0.02", "0.05"] {
            let r = two_hop_wireless(cc, loss, &[]);
            let mut abw = cc_var(&r, "abw_bps", 20.0);
            assert!(abw.len() > 1000, "{cc} {loss}");
            abw.sort_by(f64::total_cmp);
            let p99 = abw[abw.len() * 99 / 100];
            let max = *abw.last().unwrap();
            // Steady state: at most the payload rate (0.5 % for rounding of the filter).
            assert!(p99 <= 1.005 * payload_bps, "{cc} at {loss}: p99 {p99}");
            // Single values within ~50 ms after a Reno recovery (dynamic) rise to 1.10x:
            // they fall 16-53 ms after loss events (measured); the recovery-ending ACK
            // crediting held bytes is the untested guess. Far from 2x.
            assert!(max <= 1.15 * payload_bps, "{cc} at {loss}: max {max}");
        }
    }
    // The earlier default, kept as `off_weight = "congestion"`, reads far above the link.
    let r = two_hop_wireless("prairie", "0.02", &[("flows.0.cc_params", "{ abw = { off_weight = \"congestion\" } }")]);
    let abw = cc_var(&r, "abw_bps", 20.0);
    let median = {
        let mut v = abw.clone();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    assert!(median > 1.5 * payload_bps, "{median}");
}

#[test]
fn dynamic_sets_ssthresh_to_abw_in_bytes_per_second_at_every_first_loss_response() {
    // Algorithm box line 1, "ssthresh = ABW", with the paper's Fig. 7 scale (ssthresh
    // 132811 while cwnd is about 11 kB): after the loss response ssthresh equals ABW / 8.
    let r = two_hop_wireless("dynamic", "0.02", &[("trace.interval_ms", "1")]);
    let ssthresh = flow_col(&r, "ssthresh");
    let cwnd = flow_col(&r, "cwnd_base");
    let t = r.traces.as_ref().unwrap();
    let abw: Vec<f64> = (0..t.cc_name.len()).filter(|&i| t.cc_name[i] == "abw_bps").map(|i| t.cc_value[i]).collect();
    assert_eq!(abw.len(), ssthresh.len());
    let late: Vec<usize> = (abw.len() / 4..abw.len()).collect();
    // ssthresh is the ABW of the last response: within a few per cent of the current
    // estimate (the estimate moves between responses), not ABW * RTT (~0.03 of it).
    let mut ratio: Vec<f64> = late.iter().map(|&i| ssthresh[i] * 8.0 / abw[i]).collect();
    ratio.sort_by(f64::total_cmp);
    let median = ratio[ratio.len() / 2];
    assert!((0.9..=1.1).contains(&median), "{median}");
    // ... and far above the window Eq. 5 leaves (at most cwnd_max = 25 kB while SLoss > 0).
    let above = late.iter().filter(|&&i| ssthresh[i] > 4.0 * 25_000.0).count();
    assert!(above * 10 >= late.len() * 9, "{above} of {}", late.len());
    assert!(late.iter().any(|&i| cwnd[i] <= 25_000.0));
}

#[test]
fn acc_nvar0_never_exceeds_half_the_largest_uninflated_window() {
    // Fig. 1 updates nvar0 in ns-2's slowdown() from ssthresh = cwnd/2, cwnd without the
    // recovery inflation; nvar0 = int(0.4*ssthresh + 0.6*nvar0) therefore stays at or below
    // the larger of its seed (1 segment here) and half the largest cwnd. With FlightSize
    // (`halve = "flight_size"`) a timeout after a long inflated recovery lifts it above.
    let run = |halve: &str| {
        let mut ov = vec![("flows.3.count", "0"), ("trace.enabled", "true")];
        let p = format!("{{ halve = \"{halve}\" }}");
        let keys = ["flows.0.cc_params", "flows.1.cc_params", "flows.2.cc_params"];
        for k in keys {
            ov.push((k, p.as_str()));
        }
        for k in ["flows.0.cc", "flows.1.cc", "flows.2.cc"] {
            ov.push((k, "acc"));
        }
        let r = wtcp_engine::run(&common::load("python/wtcp/scenarios/clap-interference.toml", &ov));
        let t = r.traces.as_ref().unwrap();
        let col = &t.flow_columns.iter().find(|(n, _)| *n == "cwnd_base").unwrap().1;
        let max_cwnd = col.iter().cloned().fold(0.0, f64::max) / 1000.0;
        let nvar0 = (0..t.cc_name.len())
            .filter(|&i| t.cc_name[i] == "nvar0_segments" && t.cc_value[i].is_finite())
            .map(|i| t.cc_value[i])
            .fold(0.0, f64::max);
        (nvar0, max_cwnd)
    };
    let (nvar0, max_cwnd) = run("cwnd");
    assert!(nvar0 >= 2.0, "{nvar0}");
    assert!(nvar0 <= (max_cwnd / 2.0).max(1.0), "nvar0 {nvar0} vs max cwnd {max_cwnd}");
    // FlightSize halving (12 vs 49 segments when this was written).
    let (flight_nvar0, _) = run("flight_size");
    assert!(flight_nvar0 > 2.0 * nvar0, "nvar0 {flight_nvar0} vs {nvar0}");
}

#[test]
fn a_link_layer_hint_reaches_only_a_sender_on_the_giving_up_node_unless_relayed() {
    // TCP-CLAP's hint is its own MAC's retry count (Figs. 6-7): the ARQ link that gives up
    // must be the sender's. S -> BS is S's own link; BS -> D is behind a wired hop.
    let lossy = |link: &str, arq: &str| {
        let loss = format!("links.{link}.ab.loss");
        let arq_path = format!("links.{link}.ab.arq");
        let r = common::two_hop(&[
            ("flows.0.cc", "clap"),
            (loss.as_str(), "{ model = \"uniform\", rate = 0.3 }"),
            (arq_path.as_str(), arq),
        ]);
        (r.flows[0].mac_hints, r.drops.iter().map(|d| d.retry_limit_drops).sum::<u64>())
    };
    let (hints, drops) = lossy("0", "{ retry_limit = 2 }");
    assert!(drops > 10 && hints == drops, "own link: {hints} hints, {drops} drops");
    let (hints, drops) = lossy("1", "{ retry_limit = 2 }");
    assert!(drops > 10 && hints == 0, "behind a hop: {hints} hints, {drops} drops");
    let (hints, drops) = lossy("1", "{ retry_limit = 2, mac_hint = \"relay\" }");
    assert!(drops > 10 && hints == drops, "relayed: {hints} hints, {drops} drops");
}
