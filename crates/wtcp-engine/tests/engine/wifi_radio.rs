//! The radio model (`channel.model = "log_distance"`): frame errors from SNR as the NIST
//! model predicts, a locked frame surviving weaker interference, moving stations, and the
//! scenario's errors.

use crate::common;
use crate::wifi_phy::{one_hop_on, with};

use wtcp_engine::time::secs;
use wtcp_engine::wifi::radio::{db_to_linear, Modulation, Radio};
use wtcp_engine::wifi::{HtMode, WifiChannel, WifiConfig};

fn n7_radio(radio: Radio) -> WifiConfig {
    WifiConfig { radio: Some(radio), queue_limit: 200, aggregation: None, ..WifiConfig::n(HtMode::new(7, 20, false).unwrap()) }
}

#[test]
fn an_isolated_link_loses_frames_at_the_nist_models_rate_for_its_snr() {
    let radio = Radio::default();
    let d = 21.5;
    let mut ch = WifiChannel::new(0, n7_radio(radio), &[(0.0, 0.0), (d, 0.0)], 3, 0, "per");
    common::saturate_channel(&mut ch, 1, |_| 1, 1500, 50, secs(1.0), secs(21.0));
    let st = ch.stats(0);
    // The frame's SNR; L-SIG (24 bits) and HT-SIG (48 bits) at BPSK 1/2, then the payload at
    // 64-QAM 5/6 from the SERVICE field to the PPDU's end: ceil((16 + 8 x 1530 + 6) / 260) =
    // 48 data symbols after the 36 us preamble, 192 us at 65 Mb/s.
    let snr = db_to_linear(radio.mean_rx_dbm(d)) / radio.noise_mw(20);
    let header = Modulation::BPSK_1_2.chunk_success(snr, 24.0) * Modulation::BPSK_1_2.chunk_success(snr, 48.0);
    let payload = Modulation { bits: 6, rate: (5, 6) }.chunk_success(snr, (192e-6_f64 * 65e6).floor());
    let expected = 1.0 - header * payload;
    let measured = st.frame_errors as f64 / st.attempts as f64;
    assert!((0.05..0.95).contains(&expected), "the distance should sit on the cliff: {expected}");
    // Binomial: over 47 000 attempts the standard error is 0.0022.
    assert!(st.attempts > 2000, "{}", st.attempts);
    assert!((measured - expected).abs() < 0.01, "measured {measured}, NIST model {expected}");
    assert_eq!(st.collisions, 0, "one sender: nothing overlaps");
    // One metre closer the link is clean, three metres further it is dead.
    let at = |d: f64| {
        let mut ch = WifiChannel::new(0, n7_radio(radio), &[(0.0, 0.0), (d, 0.0)], 3, 0, "per");
        common::saturate_channel(&mut ch, 1, |_| 1, 1500, 50, secs(1.0), secs(6.0)).1
    };
    let (near, far) = (at(18.0), at(24.5));
    assert!(near > 10_000 && far < near / 100, "{near} {far}");
}

#[test]
fn a_locked_frame_survives_weaker_interference_that_the_range_disc_calls_a_collision() {
    // R at the origin; A 5 m away, B 48 m the other way: both reach R, but A and B (53 m
    // apart) are hidden from each other (the CCA range is 51.5 m). At R, A arrives ~30 dB
    // above B, so A's frame survives B's starting during it; B's never survives A's.
    let radio = Radio::default();
    let positions = [(5.0, 0.0), (-48.0, 0.0), (0.0, 0.0)];
    let run = |cfg: WifiConfig| {
        let mut ch = WifiChannel::new(0, cfg, &positions, 5, 0, "capture");
        common::saturate_channel(&mut ch, 2, |_| 2, 1500, 50, secs(1.0), secs(11.0));
        let (a, b) = (ch.stats(0).clone(), ch.stats(1).clone());
        (a.collisions as f64 / a.attempts as f64, b.collisions as f64 / b.attempts as f64, a.successes, b.successes)
    };
    let base = WifiConfig { queue_limit: 200, aggregation: None, ..WifiConfig::n(HtMode::new(4, 20, false).unwrap()) };
    let disc = WifiConfig { tx_range: 50.0, cs_range: 50.0, ..base.clone() };
    let (a_disc, b_disc, _, _) = run(disc);
    let (a_radio, b_radio, a_ok, b_ok) = run(WifiConfig { radio: Some(radio), ..base });
    assert!(a_disc > 0.2 && b_disc > 0.2, "hidden terminals collide under the range disc: {a_disc} {b_disc}");
    assert!(a_radio < a_disc / 2.0, "A's frames that began first survive B: {a_radio} vs {a_disc}");
    assert!(b_radio > a_radio, "B's frames do not survive A's: {b_radio} vs {a_radio}");
    assert!(a_ok > b_ok, "{a_ok} {b_ok}");
}

#[test]
fn a_station_walking_out_of_range_stops_receiving() {
    // A TCP download over 802.11n MCS 4 while the station walks from 10 m to 100 m between
    // 10 s and 12 s (waypoints): nothing arrives once it is gone.
    let text = one_hop_on("n");
    let walk = |duration: &str| {
        let sc = with(
            &text,
            &[
                ("wifi.0.channel", "{ model = \"log_distance\" }"),
                ("wifi.0.mcs", "4"),
                ("wifi.0.stations.1.x", "10.0"),
                ("wifi.0.stations.1.waypoints", "[[10.0, 10.0, 0.0], [12.0, 100.0, 0.0]]"),
                ("run.duration_s", duration),
                ("run.measure_from_s", "0"),
            ],
        )
        .unwrap();
        wtcp_engine::run(&sc).flows[0].delivered_bytes
    };
    let (at10, at20, at30) = (walk("10"), walk("20"), walk("30"));
    assert!(at10 > 10_000_000, "{at10}");
    // From 10 s to 12 s it still receives (for part of the walk); nothing after.
    assert!(at20 > at10 && at20 - at10 < at10 / 4, "{at10} {at20}");
    assert_eq!(at30, at20);
    // Constant velocity: 1 m/s away from 10 m crosses MCS 4's cliff (~37 m) near 27 s.
    let drive = |duration: &str| {
        let sc = with(&text, &[("wifi.0.channel", "{ model = \"log_distance\" }"), ("wifi.0.mcs", "4"), ("wifi.0.stations.1.x", "10.0"), ("wifi.0.stations.1.velocity", "[1.0, 0.0]"), ("run.duration_s", duration), ("run.measure_from_s", "0")]).unwrap();
        wtcp_engine::run(&sc).flows[0].delivered_bytes
    };
    let (d20, d40, d60) = (drive("20"), drive("40"), drive("60"));
    assert!(d40 > d20 && d60 == d40, "{d20} {d40} {d60}");
}

#[test]
fn fading_draws_are_reproducible_and_vary_with_the_seed() {
    let text = one_hop_on("n");
    let run = |seed: &str| {
        let sc = with(&text, &[("wifi.0.channel", "{ model = \"log_distance\", fading = \"rayleigh\" }"), ("wifi.0.stations.1.x", "8.0"), ("run.duration_s", "10"), ("run.seed", seed)]).unwrap();
        let r = wtcp_engine::run(&sc);
        (r.flows[0].delivered_bytes, r.wifi[0].frame_errors)
    };
    let (a, b, c) = (run("1"), run("1"), run("2"));
    assert_eq!(a, b);
    assert_ne!(a, c);
    // Rayleigh fading at a mean SNR of 28 dB still loses some MCS 7 frames.
    assert!(a.1 > 0, "{a:?}");
}

#[test]
fn the_radio_model_refuses_what_it_cannot_take_naming_the_field() {
    let cases: &[(&str, &[(&str, &str)], &str, &str)] = &[
        ("b", &[("wifi.0.channel", "{ model = \"log_distance\" }")], "wifi.0.channel.model", "802.11b is DSSS"),
        ("n", &[("wifi.0.channel", "{ model = \"log_distance\" }"), ("wifi.0.tx_range_m", "100.0")], "wifi.0.tx_range_m", "belongs to the range model"),
        ("g", &[("wifi.0.channel", "{ model = \"log_distance\" }"), ("wifi.0.cs_range_m", "600.0")], "wifi.0.cs_range_m", "belongs to the range model"),
        ("g", &[("wifi.0.channel", "{ model = \"log_distance\" }"), ("wifi.0.ber", "1e-6")], "wifi.0.ber", "belongs to the range model"),
        ("n", &[("wifi.0.stations.1.velocity", "[1e5, 0.0]")], "wifi.0.stations.1.velocity", "is [100000, 0]; allowed"),
        ("n", &[("wifi.0.channel", "{ model = \"log_distance\", fading = \"rician\" }")], "wifi.0.channel.rician_k_db", "needs the K factor"),
        ("n", &[("wifi.0.channel", "{ model = \"range\", exponent = 3.0 }")], "wifi.0.channel.exponent", "is a log_distance setting"),
        ("n", &[("wifi.0.channel", "{ model = \"log_distance\", exponent = 0.5 }")], "wifi.0.channel.exponent", "allowed: 1..=8"),
        ("n", &[("wifi.0.stations.1.waypoints", "[[5.0, 1.0, 1.0], [5.0, 2.0, 2.0]]")], "wifi.0.stations.1.waypoints.1", "not after the previous"),
        ("n", &[("wifi.0.stations.1.waypoints", "[[5.0, 1.0, 1.0]]"), ("wifi.0.stations.1.velocity", "[1.0, 0.0]")], "wifi.0.stations.1.waypoints", "give one"),
        ("n", &[("wifi.0.stations.1.waypoints", "[[0.0, 1.0, 1.0]]")], "wifi.0.stations.1.waypoints.0", "seconds > 0"),
        ("n", &[("wifi.0.rate_control", "\"ideal\"")], "wifi.0.rate_control", "the range model has none"),
        ("n", &[("wifi.0.rate_control", "\"ideal\""), ("wifi.0.channel", "{ model = \"log_distance\" }"), ("wifi.0.mcs", "5")], "wifi.0.mcs", "chooses the MCS"),
        ("g", &[("wifi.0.rate_control", "\"ideal\"")], "wifi.0.rate_control", "802.11n/ac setting"),
    ];
    for (phy, pairs, path, says) in cases {
        let e = with(&one_hop_on(phy), pairs).unwrap_err();
        assert_eq!(&e.path, path, "{e}");
        assert!(e.message.contains(says), "{e}");
    }
}

/// One saturated 802.11n sender at `d` metres under rate control "ideal": (frames received
/// from 1 s to 11 s, the mode its next frame would take).
fn ideal_at(d: f64) -> (u64, u8) {
    let cfg = WifiConfig { rate_control: wtcp_engine::wifi::RateControl::Ideal, ..n7_radio(Radio::default()) };
    let mut ch = WifiChannel::new(0, cfg, &[(0.0, 0.0), (d, 0.0)], 3, 0, "ideal");
    let (_, received) = common::saturate_channel(&mut ch, 1, |_| 1, 1500, 50, secs(1.0), secs(11.0));
    (received, ch.data_mcs(0))
}

#[test]
fn ideal_rate_control_takes_the_fastest_mcs_whose_threshold_the_snr_clears() {
    let radio = Radio::default();
    // The MCS whose 1e-6 threshold lies below the link's SNR, from the NIST formulas.
    let modulations = [(1, (1, 2)), (2, (1, 2)), (2, (3, 4)), (4, (1, 2)), (4, (3, 4)), (6, (2, 3)), (6, (3, 4)), (6, (5, 6))];
    let expected = |d: f64| {
        let snr = db_to_linear(radio.mean_rx_dbm(d)) / radio.noise_mw(20);
        modulations.iter().rposition(|&(bits, rate)| Modulation { bits, rate }.snr_threshold(1e-6) < snr).unwrap_or(0) as u8
    };
    let mut last = u64::MAX;
    for d in [5.0, 15.0, 25.0, 35.0, 45.0] {
        let (received, mcs) = ideal_at(d);
        assert_eq!(mcs, expected(d), "at {d} m");
        assert!(received > 1000 && received <= last, "at {d} m: {received} after {last}");
        last = received;
    }
    // MCS 7's cliff (near 22 m) is well inside the 1e-6 threshold's reach for it.
    assert_eq!(ideal_at(5.0).1, 7);
    assert!(ideal_at(25.0).1 < 7);
}

#[test]
fn after_ideal_rate_control_slows_down_a_retransmitted_a_mpdu_still_fits_its_ppdu() {
    // Rayleigh fading at 20 m: the SNR a Block Ack reports swings by tens of dB, and a missed
    // Block Ack whose MPDU reaches its retry limit sends the station back to MCS 0 with an
    // A-MPDU's MPDUs still to resend; they go in as many PPDUs as the 5484 us limit needs.
    let radio = Radio { fading: wtcp_engine::wifi::radio::Fading::Rayleigh, ..Radio::default() };
    let cfg = WifiConfig { rate_control: wtcp_engine::wifi::RateControl::Ideal, aggregation: Some(Default::default()), ..n7_radio(radio) };
    let mut ch = WifiChannel::new(0, cfg, &[(0.0, 0.0), (20.0, 0.0)], 7, 0, "ideal-fading");
    let (_, received) = common::saturate_channel(&mut ch, 1, |_| 1, 1500, 100, secs(1.0), secs(21.0));
    let st = ch.stats(0);
    assert!(received > 20_000, "{received}");
    assert!(st.retry_limit_drops > 0, "the case needs give-ups: {st:?}");
    assert!(st.ampdus > 0 && st.ampdu_mpdus > 2 * st.ampdus, "{st:?}");
}
