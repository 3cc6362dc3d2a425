//! 802.11 channels inside whole scenarios: TCP over an access point, a multi-hop chain,
//! and the MAC retry-limit hint reaching TCP-CLAP.

use crate::common;

use common::{fingerprint, load};

#[test]
fn tcp_over_one_11b_hop_reaches_the_textbook_goodput() {
    // 11 Mb/s 802.11b, 1500-byte frames: a data frame costs about 1.1 ms of payload plus
    // 0.19 ms of preamble, DIFS, backoff and a 1 Mb/s MAC ACK (about 2 ms in all), and
    // every second segment the station sends a TCP ACK frame of its own, contending with
    // the AP. The well-known result is 5-6 Mb/s; wtcp gives 4.98 Mb/s here.
    let r = wtcp_engine::run(&load("scenarios/wifi-one-hop.toml", &[]));
    let g = r.flows[0].goodput_bps;
    assert!(g > 4.7e6 && g < 6.0e6, "{g}");
    assert_eq!(r.wifi.len(), 2);
    assert!(r.wifi[0].successes > 20_000);
}

#[test]
fn bit_errors_cost_retries_and_then_retry_limit_drops() {
    let clean = wtcp_engine::run(&load("scenarios/wifi-one-hop.toml", &[]));
    let noisy = wtcp_engine::run(&load("scenarios/wifi-one-hop.toml", &[("wifi.0.ber", "1e-4")]));
    assert_eq!(clean.wifi[0].retry_limit_drops, 0);
    assert!(noisy.wifi[0].frame_errors > 1000);
    assert!(noisy.wifi[0].retry_limit_drops > 0);
    // Retry-limit drops are the losses TCP sees: classified wireless.
    let f = &noisy.flows[0];
    assert!(f.fast_retransmit_causes.wireless + f.timeout_causes.wireless > 0);
    assert_eq!(f.fast_retransmit_causes.congestion, 0);
}

#[test]
fn clap_reads_the_mac_hint_as_a_wireless_loss() {
    // The sender S is wired, behind the AP. TCP-CLAP's hint is the retry count of the
    // sender's own MAC (tcp-clap.txt line 141, Figs. 6-7), so by default S hears nothing
    // of the AP's give-ups; `mac_hint = "relay"` has the AP notify S, which this test reads.
    let relay = ("wifi.0.mac_hint", "\"relay\"");
    let r = wtcp_engine::run(&load("scenarios/wifi-one-hop.toml", &[("flows.0.cc", "clap"), ("wifi.0.ber", "6e-5"), relay]));
    let v = r.flows[0].loss_verdicts;
    assert!(r.wifi[0].retry_limit_drops > 0);
    assert!(v.wireless > v.congestion, "{v:?}");
    let acc = wtcp_engine::run(&load("scenarios/wifi-one-hop.toml", &[("flows.0.cc", "acc"), ("wifi.0.ber", "6e-5"), relay]));
    assert_eq!(acc.flows[0].loss_verdicts.wireless, 0);
}

#[test]
fn a_four_hop_chain_suffers_collisions_between_hidden_terminals() {
    let r = wtcp_engine::run(&load("scenarios/chain-4hop.toml", &[("run.duration_s", "60")]));
    let f = &r.flows[0];
    assert!(f.goodput_bps > 0.3e6 && f.goodput_bps < 2.0e6, "{}", f.goodput_bps);
    // N0 and N3 cannot sense each other (600 m > 550 m): their frames collide at N1/N2.
    assert!(r.wifi.iter().map(|w| w.collisions).sum::<u64>() > 1000);
    assert!(f.fast_retransmit_causes.wireless > 0);
}

#[test]
fn wifi_runs_are_deterministic() {
    let ov = [("wifi.0.ber", "2e-5"), ("run.duration_s", "20")];
    let a = wtcp_engine::run(&load("scenarios/wifi-one-hop.toml", &ov));
    let b = wtcp_engine::run(&load("scenarios/wifi-one-hop.toml", &ov));
    assert_eq!(fingerprint(&a), fingerprint(&b));
}

#[test]
fn wifi_mistakes_are_reported_with_their_path() {
    let text = std::fs::read_to_string(common::repo_path("scenarios/wifi-one-hop.toml")).unwrap();
    let check = |k: &str, v: &str, path: &str| {
        let e = wtcp_engine::Scenario::from_toml_str(&text, &[(k.to_string(), v.to_string())]).unwrap_err();
        assert_eq!(e.path, path, "{e}");
    };
    check("wifi.0.data_rate_mbps", "7", "wifi.0.data_rate_mbps");
    check("wifi.0.stations.1.node", "X", "wifi.0.stations.1.node");
    check("wifi.0.ber", "2", "wifi.0.ber");
    check("wifi.0.phy", "z", "wifi.0.phy");
    check("wifi.0.stations.1.x", "900", "flows.0");
}
