//! The 802.11 PHYs from a scenario: 802.11a's timing end to end, and rates checked
//! against the PHY's rate set.

use crate::common;

use common::load;

/// wifi-one-hop's text with its channel on `phy` ("b" as shipped; "n" or "ac" without its
/// legacy rates).
pub fn one_hop_on(phy: &str) -> String {
    let b = std::fs::read_to_string(common::repo_path("python/wtcp/scenarios/wifi-one-hop.toml")).unwrap();
    if phy == "b" {
        return b;
    }
    b.replace("phy = \"b\"", &format!("phy = \"{phy}\"")).replace("data_rate_mbps = 11.0\n", "").replace("basic_rate_mbps = 1.0\n", "")
}

/// `text` resolved with `--set` style overrides.
pub fn with(text: &str, pairs: &[(&str, &str)]) -> Result<wtcp_engine::Scenario, wtcp_engine::scenario::ScenarioError> {
    let ov: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    wtcp_engine::Scenario::from_toml_str(text, &ov)
}

#[test]
fn an_802_11a_hop_carries_tcp_as_fast_as_the_same_802_11g_hop() {
    // 802.11a and 802.11g (ERP-OFDM, short slot) give every exchange the same duration
    // (11a's 6 us of extra SIFS is 11g's signal extension); only the hand-over of a frame
    // to the receiver comes 6 us later in 11g (after its extension). One TCP download
    // through an access point gets the same goodput within 0.5 %.
    let run = |phy: &str| wtcp_engine::run(&load("python/wtcp/scenarios/wifi-one-hop.toml", &[("run.duration_s", "20"), ("wifi.0.phy", phy), ("wifi.0.data_rate_mbps", "54"), ("wifi.0.basic_rate_mbps", "24")]));
    let (a, g) = (run("\"a\""), run("\"g\""));
    assert!(a.flows[0].goodput_bps > 15e6, "{}", a.flows[0].goodput_bps);
    let (ga, gg) = (a.flows[0].goodput_bps, g.flows[0].goodput_bps);
    assert!((ga - gg).abs() / gg < 0.005, "{ga} vs {gg}");
}

#[test]
fn a_rate_outside_the_phys_set_names_the_field_and_the_rates() {
    let text = std::fs::read_to_string(common::repo_path("python/wtcp/scenarios/wifi-one-hop.toml")).unwrap();
    let ov = vec![("wifi.0.phy".to_string(), "\"a\"".to_string()), ("wifi.0.data_rate_mbps".to_string(), "11".to_string())];
    let e = wtcp_engine::Scenario::from_toml_str(&text, &ov).unwrap_err();
    assert_eq!(e.path, "wifi.0.data_rate_mbps");
    assert!(e.message.contains("not a rate of 802.11a") && e.message.contains("a and g: 6, 9"), "{e}");
}

/// One saturated 802.11n station without aggregation: IP throughput of 1500-byte packets
/// against the exchange time worked out from 802.11-2012: AIFS[BE] 43 us, the mean backoff
/// of CWmin = 15 (7.5 slots of 9 us), the HT-mixed data PPDU (phy.rs's hand-worked TXTIMEs
/// for a 1530-byte QoS MPDU), SIFS 16 us, the ACK at the control response rate, two 1 us
/// propagation delays.
fn one_station_n(mcs: u8, width_mhz: u16, short_gi: bool) -> f64 {
    use wtcp_engine::time::secs;
    use wtcp_engine::wifi::{HtMode, WifiChannel, WifiConfig};
    let cfg = WifiConfig { aggregation: None, ..WifiConfig::n(HtMode::new(mcs, width_mhz, short_gi).unwrap()) };
    let mut ch = WifiChannel::new(0, cfg, &[(0.0, 0.0), (10.0, 0.0)], 1, 0, "n-one");
    let (warmup, end) = (secs(1.0), secs(21.0));
    let (_, received) = common::saturate_channel(&mut ch, 1, |_| 1, 1500, 1, warmup, end);
    received as f64 * 12_000.0 / 20.0
}

#[test]
fn one_saturated_802_11n_station_gets_the_exchange_time_of_its_mcs() {
    // MCS 7, 20 MHz, long GI: data 228 us, ACK at 24 Mb/s 28 us.
    let expected = 12_000.0 / ((43.0 + 67.5 + 228.0 + 16.0 + 28.0 + 2.0) * 1e-6);
    let got = one_station_n(7, 20, false);
    assert!((got - expected).abs() / expected < 0.01, "{got} vs {expected}");
    // MCS 15, 40 MHz, short GI: data 84 us, ACK at 24 Mb/s.
    let expected = 12_000.0 / ((43.0 + 67.5 + 84.0 + 16.0 + 28.0 + 2.0) * 1e-6);
    let got = one_station_n(15, 40, true);
    assert!((got - expected).abs() / expected < 0.01, "{got} vs {expected}");
    // MCS 0: 6.5 Mb/s data (1530 bytes: 472 symbols, 36 + 1888 us) and the ACK at 6 Mb/s
    // (44 us).
    let expected = 12_000.0 / ((43.0 + 67.5 + 1924.0 + 16.0 + 44.0 + 2.0) * 1e-6);
    let got = one_station_n(0, 20, false);
    assert!((got - expected).abs() / expected < 0.01, "{got} vs {expected}");
}

#[test]
fn an_802_11n_channel_refuses_legacy_rates_and_bad_modes_and_the_others_refuse_its_settings() {
    let (b, n) = (one_hop_on("b"), one_hop_on("n"));
    // 802.11b's rates with phy = "n": refused by name, pointing to `mcs`.
    let e = with(&b, &[("wifi.0.phy", "\"n\"")]).unwrap_err();
    assert_eq!(e.path, "wifi.0.data_rate_mbps", "{e}");
    assert!(e.message.contains("mcs"), "{e}");
    let e = with(&n, &[("wifi.0.basic_rate_mbps", "24")]).unwrap_err();
    assert_eq!(e.path, "wifi.0.basic_rate_mbps", "{e}");
    // Modes outside 802.11n's.
    let e = with(&n, &[("wifi.0.mcs", "16")]).unwrap_err();
    assert_eq!(e.path, "wifi.0.mcs");
    assert!(e.message.contains("0-15"), "{e}");
    let e = with(&n, &[("wifi.0.channel_width_mhz", "80")]).unwrap_err();
    assert_eq!(e.path, "wifi.0.channel_width_mhz");
    assert!(e.message.contains("20, 40"), "{e}");
    // An 802.11n setting on 802.11b.
    let e = with(&b, &[("wifi.0.short_gi", "true")]).unwrap_err();
    assert_eq!(e.path, "wifi.0.short_gi");
    assert!(e.message.contains("phy = \"n\""), "{e}");
    // Aggregation is 802.11n's only, within HT's limits, and a table or a switch.
    let e = with(&b, &[("wifi.0.aggregation", "false")]).unwrap_err();
    assert_eq!(e.path, "wifi.0.aggregation", "{e}");
    let e = with(&n, &[("wifi.0.aggregation", "{ ampdu_max_frames = 65 }")]).unwrap_err();
    assert_eq!(e.path, "wifi.0.aggregation.ampdu_max_frames", "{e}");
    assert!(e.message.contains("1..=64"), "{e}");
    let e = with(&n, &[("wifi.0.aggregation", "{ ampdu_max_bytes = 65536 }")]).unwrap_err();
    assert_eq!(e.path, "wifi.0.aggregation.ampdu_max_bytes", "{e}");
    assert!(e.message.contains("65535"), "{e}");
    for (bad, allowed) in [("3", "true, false, or a table"), ("\"on\"", "true, false, or a table"), ("{ max_bytes = 9000 }", "ampdu_max_bytes")] {
        let e = with(&n, &[("wifi.0.aggregation", bad)]).unwrap_err();
        assert!(e.path.starts_with("wifi.0.aggregation"), "{bad}: {e}");
        assert!(e.message.contains(allowed), "{bad}: {e}");
    }
    // And a valid one runs: without aggregation a TCP download at MCS 7 gets most of the
    // 31.2 Mb/s of 1500-byte packets one saturated station would (the TCP ACKs share the
    // channel).
    let sc = with(&n, &[("wifi.0.mcs", "7"), ("run.duration_s", "20"), ("wifi.0.aggregation", "false")]).unwrap();
    let g = wtcp_engine::run(&sc).flows[0].goodput_bps;
    assert!(g > 20e6 && g < 12_000.0 / 384.5e-6, "{g}");
}

#[test]
fn an_802_11ac_channel_takes_vht_modes_and_refuses_the_others_by_field() {
    let ac = one_hop_on("ac");
    let e = with(&ac, &[("wifi.0.mcs", "9")]).unwrap_err();
    assert_eq!(e.path, "wifi.0.mcs", "{e}");
    assert!(e.message.contains("MCS 9 at 20 MHz"), "{e}");
    let e = with(&ac, &[("wifi.0.spatial_streams", "3")]).unwrap_err();
    assert_eq!(e.path, "wifi.0.spatial_streams", "{e}");
    let e = with(&ac, &[("wifi.0.channel_width_mhz", "160")]).unwrap_err();
    assert_eq!(e.path, "wifi.0.channel_width_mhz", "{e}");
    let n = one_hop_on("n");
    let e = with(&n, &[("wifi.0.spatial_streams", "2")]).unwrap_err();
    assert_eq!(e.path, "wifi.0.spatial_streams", "{e}");
    // VHT's longest A-MPDU is 802.11n's refusal.
    let big = [("wifi.0.aggregation", "{ ampdu_max_bytes = 1048575 }")];
    assert!(with(&ac, &big).is_ok());
    assert_eq!(with(&n, &big).unwrap_err().path, "wifi.0.aggregation.ampdu_max_bytes");
    // A TCP download (CUBIC, behind a 1 Gb/s backhaul) at MCS 9, 80 MHz, 2 streams gets
    // more than 802.11n's MCS 7 at 20 MHz could carry at all (65 Mb/s of PHY rate).
    let fast = [("run.duration_s", "10"), ("wifi.0.queue_packets", "200"), ("links.0.rate_mbps", "1000"), ("flows.0.cc", "\"cubic\"")];
    let vht = [("wifi.0.mcs", "9"), ("wifi.0.channel_width_mhz", "80"), ("wifi.0.spatial_streams", "2")];
    let sc = with(&ac, &[&fast[..], &vht[..]].concat()).unwrap();
    let g = wtcp_engine::run(&sc).flows[0].goodput_bps;
    assert!(g > 65e6, "{g}");
}
