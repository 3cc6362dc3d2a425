//! Rate control "minstrel_ht" on a channel: it settles near the best fixed MCS for the
//! link, its probes go alone, and its scenario errors.

use crate::common;
use crate::wifi_phy::{one_hop_on, with};

use wtcp_engine::time::secs;
use wtcp_engine::wifi::radio::Radio;
use wtcp_engine::wifi::{Aggregation, HtMode, RateControl, StationStats, WifiChannel, WifiConfig};

/// One saturated 802.11n sender (20 MHz, long GI) `d` metres from its receiver under the
/// radio model: frames received from 1 s to 11 s, and the sender's counts.
fn saturated(d: f64, mcs: u8, rate_control: RateControl, aggregation: Option<Aggregation>) -> (u64, StationStats) {
    let cfg = WifiConfig { radio: Some(Radio::default()), queue_limit: 200, aggregation, rate_control, ..WifiConfig::n(HtMode::new(mcs, 20, false).unwrap()) };
    let mut ch = WifiChannel::new(0, cfg, &[(0.0, 0.0), (d, 0.0)], 3, 0, "minstrel");
    let (_, received) = common::saturate_channel(&mut ch, 1, |_| 1, 1500, 100, secs(1.0), secs(11.0));
    (received, ch.stats(0).clone())
}

#[test]
fn minstrel_ht_carries_nearly_what_the_best_fixed_mcs_carries() {
    // At each distance the best of the eight fixed MCSs sets the mark; Minstrel-HT gives
    // some of it to sampling (at most one frame per 20 ms) and to fallback tries, and takes
    // nothing from rates it has found to fail.
    for d in [5.0, 25.0, 40.0] {
        let fixed: Vec<u64> = (0..8).map(|m| saturated(d, m, RateControl::Constant, None).0).collect();
        let best = *fixed.iter().max().unwrap();
        let (minstrel, _) = saturated(d, 0, RateControl::MinstrelHt, None);
        assert!(minstrel as f64 > 0.9 * best as f64, "at {d} m: {minstrel} frames against {best} at the best fixed MCS ({fixed:?})");
        assert!(minstrel <= best, "at {d} m: {minstrel} beats every fixed MCS ({fixed:?})");
    }
}

#[test]
fn minstrel_ht_probes_go_alone_and_no_more_often_than_every_20_ms() {
    // At 25 m, MCS 7 fails and MCS 6 sits near its cliff: the faster rates are sampled. A
    // probe is one MPDU in its own PPDU (ath9k's rule), and so are its retries down the
    // chain; every other PPDU of the saturated sender is an A-MPDU.
    let agg = Some(Aggregation::default());
    let (_, st) = saturated(25.0, 0, RateControl::MinstrelHt, agg);
    // 11 s of sending: a probe at most every 20 ms, and one after each 50 ms update.
    assert!(st.probes > 50 && st.probes <= 11 * (50 + 20), "{st:?}");
    let alone = st.attempts - st.ampdus;
    assert!(alone >= st.probes, "a probe went in an A-MPDU: {st:?}");
    // A probe's retries (at most the three fallback entries' tries) go alone too.
    assert!(alone <= st.probes * (1 + 3 * 7), "{st:?}");
    // On a clean link nothing is faster than MCS 7 and nothing needs sampling once the
    // climb is over: the first second's probes only.
    let (_, near) = saturated(5.0, 0, RateControl::MinstrelHt, agg);
    assert!(near.probes < 60 && near.attempts - near.ampdus == near.probes, "{near:?}");
}

#[test]
fn minstrel_ht_scenario_errors_name_the_field() {
    let cases: &[(&str, &[(&str, &str)], &str, &str)] = &[
        ("n", &[("wifi.0.rate_control", "\"minstrel_ht\""), ("wifi.0.mcs", "5")], "wifi.0.mcs", "rate_control = \"minstrel_ht\" chooses the MCS"),
        ("g", &[("wifi.0.rate_control", "\"minstrel_ht\"")], "wifi.0.rate_control", "802.11n/ac setting"),
    ];
    for (phy, pairs, path, says) in cases {
        let e = with(&one_hop_on(phy), pairs).unwrap_err();
        assert_eq!(&e.path, path, "{e}");
        assert!(e.message.contains(says), "{e}");
    }
}

#[test]
fn over_the_range_model_minstrel_ht_climbs_to_mcs_7_and_carries_what_it_carries() {
    // No radio model: frames are lost only to collisions and the channel's `ber`, the same
    // at every MCS, so MCS 7 carries the most and Minstrel-HT, from MCS 0, ends there: the
    // TCP download gets MCS 7's goodput less the climb (a few hundred ms of 20 s). One run's
    // goodput varies by a few percent with its collisions: the mean of four seeds.
    let mean = |pairs: &[(&str, &str)]| {
        let runs = ["1", "2", "3", "4"].map(|seed| {
            let sc = with(&one_hop_on("n"), &[&[("run.duration_s", "20"), ("run.seed", seed)], pairs].concat()).unwrap();
            wtcp_engine::run(&sc).flows[0].goodput_bps
        });
        runs.iter().sum::<f64>() / 4.0
    };
    let (fixed, minstrel) = (mean(&[]), mean(&[("wifi.0.rate_control", "\"minstrel_ht\"")]));
    assert!(fixed > 20e6, "{fixed}");
    assert!(minstrel > 0.97 * fixed && minstrel <= 1.02 * fixed, "{minstrel} against MCS 7's {fixed}");
}
