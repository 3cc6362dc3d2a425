//! The 802.11 PHYs from a scenario: 802.11a's timing end to end, and rates checked
//! against the PHY's rate set.

use crate::common;

use common::load;

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
