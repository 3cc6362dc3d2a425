//! The 802.11 model against the standard, and the MAC retry-limit hint against TCP-CLAP:
//! - retry limits count transmission attempts (IEEE 802.11-2012 9.3.4.4: retries continue
//!   "until the SRC ... is equal to dot11ShortRetryLimit");
//! - the hint comes from the sender's own MAC (tcp-clap.txt line 141, Figs. 6-7, lines
//!   161-190); `mac_hint = "relay"` lets other stations notify the sender after a delay.

use crate::common;

use common::load;
use wtcp_engine::events::{Event, EventQueue};
use wtcp_engine::packet::{Packet, PacketKind, PacketPool};
use wtcp_engine::time::secs;
use wtcp_engine::wifi::{WifiChannel, WifiConfig, WifiOutcome};
use wtcp_engine::RunResult;

const ONE_HOP: &str = "scenarios/wifi-one-hop.toml";

/// Times (s) of the retry-limit drops of TCP segments on the channel, and the drops
/// counted by the station on `node` (the only one carrying the flow's data here).
fn data_drop_times(r: &RunResult, node: &str) -> Vec<f64> {
    let tr = r.traces.as_ref().expect("traces on");
    let wifi_dir = tr.dir_names.iter().position(|n| n == "wifi:wlan").expect("the channel is traced") as u32;
    let times: Vec<f64> = (0..tr.drop_time.len())
        .filter(|&i| tr.drop_dir[i] == wifi_dir && tr.drop_kind[i] == "data" && tr.drop_cause[i] == "channel")
        .map(|i| tr.drop_time[i])
        .collect();
    let station = r.wifi.iter().find(|w| w.node == node).unwrap();
    assert!(station.retry_limit_drops >= times.len() as u64, "{station:?}");
    times
}

fn traced(extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut ov = vec![("trace.enabled", "true"), ("trace.interval_ms", "100000")];
    ov.extend_from_slice(extra);
    ov
}

#[test]
fn a_frame_that_always_fails_is_sent_exactly_short_retry_limit_times() {
    // BER 1e-3: a 1528-byte data frame survives with probability 0.999^12224 = 5e-6, so
    // every MSDU of the download is discarded; each is sent dot11ShortRetryLimit times.
    for (limit, text) in [(7u64, "7"), (3, "3"), (1, "1")] {
        let r = wtcp_engine::run(&load(ONE_HOP, &[("wifi.0.ber", "1e-3"), ("wifi.0.short_retry_limit", text)]));
        let ap = &r.wifi[0];
        assert_eq!(ap.node, "AP");
        assert_eq!(ap.successes, 0);
        assert!(ap.retry_limit_drops >= 10, "{ap:?}");
        assert_eq!(ap.attempts, limit * ap.retry_limit_drops, "limit {limit}: {ap:?}");
        assert_eq!(ap.retries, (limit - 1) * ap.retry_limit_drops, "limit {limit}: {ap:?}");
    }
}

#[test]
fn acknowledged_frames_use_at_most_limit_minus_one_retries() {
    // One saturated station, frames corrupted independently (FER 0.46 per attempt at
    // BER 5e-5): acknowledged MSDUs fill retry_hist[0..L-1] only, L = 3 attempts.
    let cfg = WifiConfig { ber: 5e-5, short_retry_limit: 3, queue_limit: 1, ..WifiConfig::b11() };
    let mut ch = WifiChannel::new(0, cfg, &[(0.0, 0.0), (10.0, 0.0)], 4, 0, "hist");
    let (mut pool, mut ev, mut out) = (PacketPool::default(), EventQueue::default(), Vec::new());
    let end = secs(20.0);
    let mut now = 0;
    loop {
        while !ch.is_backlogged(0) || ch.queue_len(0) < 1 {
            let id = pool.alloc(&Packet::new(PacketKind::Udp, 0, 0, 1, 1500, now));
            ch.enqueue(0, id, 1, now, &mut ev, &mut pool).unwrap();
        }
        let Some((t, Event::Wifi { station, kind, .. })) = ev.pop_until(end) else { break };
        now = t;
        ch.on_event(station, kind, now, &mut ev, &mut pool, &mut out);
        for o in out.drain(..) {
            if let WifiOutcome::Delivered { packet, .. } | WifiOutcome::Dropped { packet, .. } = o {
                pool.free(packet);
            }
        }
    }
    let h = ch.stats(0).retry_hist;
    println!("retry_hist {h:?}");
    assert!(h[..3].iter().all(|&n| n > 100), "{h:?}");
    assert!(h[3..].iter().all(|&n| n == 0), "{h:?}");
    assert_eq!(h.iter().sum::<u64>(), ch.stats(0).successes);
}

#[test]
fn a_wired_sender_behind_the_access_point_gets_no_mac_hint_by_default() {
    // S -wired- AP ~~ STA: the AP gives up on S's segments, but S's own stack has no MAC
    // on that hop, and TCP-CLAP's hint is the sender's own MAC's retry count.
    let r = wtcp_engine::run(&load(ONE_HOP, &[("flows.0.cc", "clap"), ("wifi.0.ber", "6e-5")]));
    assert!(r.wifi[0].retry_limit_drops > 10, "{:?}", r.wifi[0]);
    assert_eq!(r.flows[0].mac_hints, 0);
    // Without hints CLAP has nothing to call a loss wireless with.
    assert_eq!(r.flows[0].loss_verdicts.wireless, 0, "{:?}", r.flows[0].loss_verdicts);
    assert!(r.flows[0].loss_verdicts.congestion > 0);
}

#[test]
fn with_the_relay_option_the_access_point_notifies_the_wired_sender_after_the_delay() {
    // NewReno ignores the hint, so the runs are the same whatever the delay, and a hint
    // for a drop at t arrives at t + delay if that is within the run (60 s).
    let base = wtcp_engine::run(&load(ONE_HOP, &traced(&[("wifi.0.ber", "6e-5")])));
    let drops = data_drop_times(&base, "AP");
    assert!(drops.len() > 20, "{}", drops.len());
    assert_eq!(base.flows[0].mac_hints, 0);
    let relayed = |ms: &'static str| {
        let r = wtcp_engine::run(&load(ONE_HOP, &traced(&[("wifi.0.ber", "6e-5"), ("wifi.0.mac_hint", "relay"), ("wifi.0.mac_hint_relay_delay_ms", ms)])));
        assert_eq!(data_drop_times(&r, "AP"), drops, "the hint changed NewReno's run");
        r.flows[0].mac_hints
    };
    // Give-ups of frames whose copy arrived (all ACKs lost) are hints too (no drop time).
    let after_delivery = base.wifi.iter().find(|s| s.node == "AP").unwrap().gave_up_after_delivery;
    assert_eq!(relayed("0"), drops.len() as u64 + after_delivery);
    for (ms, delay_s) in [("25000", 25.0), ("45000", 45.0)] {
        let due = drops.iter().filter(|&&t| t + delay_s <= 60.0).count() as u64;
        assert!(due > 0 && due < drops.len() as u64, "{due} of {}", drops.len());
        let got = relayed(ms);
        assert!((due..=due + after_delivery).contains(&got), "delay {ms} ms: {got} hints, {due} drops due");
    }
    // The relayed hint reaches TCP-CLAP, which then calls losses wireless.
    let clap = wtcp_engine::run(&load(ONE_HOP, &[("flows.0.cc", "clap"), ("wifi.0.ber", "6e-5"), ("wifi.0.mac_hint", "relay")]));
    assert!(clap.flows[0].mac_hints > 0);
    assert!(clap.flows[0].loss_verdicts.wireless > 0, "{:?}", clap.flows[0].loss_verdicts);
}

#[test]
fn a_sender_on_a_station_gets_hints_from_its_own_mac() {
    // Upload STA -> AP -wired- S: the sender's own station gives up on its segments.
    let up = [("flows.0.src", "STA"), ("flows.0.dst", "S"), ("wifi.0.ber", "6e-5")];
    let r = wtcp_engine::run(&load(ONE_HOP, &traced(&up)));
    let drops = data_drop_times(&r, "STA");
    assert!(drops.len() > 10, "{}", drops.len());
    // Every give-up of the sender's MAC is a hint, also when a copy had arrived and only
    // the ACKs were lost (the MAC cannot tell; paper Fig. 6: Retry Count = Retry Limit).
    let sta = r.wifi.iter().find(|s| s.node == "STA").unwrap();
    assert_eq!(r.flows[0].mac_hints, drops.len() as u64 + sta.gave_up_after_delivery);
    // A sender on the access point's node (its own MAC sends the flow's data downlink).
    let on_ap = [("flows.0.src", "AP"), ("flows.0.dst", "STA"), ("wifi.0.ber", "6e-5")];
    let h = wtcp_engine::run(&load(ONE_HOP, &traced(&on_ap)));
    let ap = h.wifi.iter().find(|s| s.node == "AP").unwrap();
    assert!(ap.gave_up_after_delivery > 0, "no give-up after delivery at this BER");
    assert_eq!(h.flows[0].mac_hints, data_drop_times(&h, "AP").len() as u64 + ap.gave_up_after_delivery);
    // The relay option adds nothing here: no other station carries the flow's data.
    let mut relay = up.to_vec();
    relay.push(("wifi.0.mac_hint", "relay"));
    let r2 = wtcp_engine::run(&load(ONE_HOP, &traced(&relay)));
    assert_eq!(r2.flows[0].mac_hints, r.flows[0].mac_hints);
    // `hint_delay_ms` delays the own-MAC hint inside the host.
    let mut late = up.to_vec();
    late.push(("wifi.0.hint_delay_ms", "30000"));
    let r3 = wtcp_engine::run(&load(ONE_HOP, &traced(&late)));
    let due = drops.iter().filter(|&&t| t + 30.0 <= 60.0).count() as u64;
    let after_delivery = r.wifi.iter().find(|s| s.node == "STA").unwrap().gave_up_after_delivery;
    assert!((due..=due + after_delivery).contains(&r3.flows[0].mac_hints), "{} hints, {due} due", r3.flows[0].mac_hints);
    assert!(due < drops.len() as u64);
}

#[test]
fn the_new_wifi_fields_are_checked_with_their_path_and_allowed_values() {
    let text = std::fs::read_to_string(common::repo_path(ONE_HOP)).unwrap();
    let check = |set: &[(&str, &str)], path: &str, msg: &str| {
        let ov: Vec<(String, String)> = set.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let e = wtcp_engine::Scenario::from_toml_str(&text, &ov).unwrap_err();
        assert_eq!(e.path, path, "{e}");
        assert!(e.message.contains(msg), "{e}");
    };
    check(&[("wifi.0.mac_hint", "sometimes")], "wifi.0.mac_hint", "unknown variant `sometimes`, expected `own` or `relay`");
    check(&[("wifi.0.mac_hint_relay_delay_ms", "5")], "wifi.0.mac_hint_relay_delay_ms", "applies only with mac_hint = \"relay\"");
    check(&[("wifi.0.mac_hint", "relay"), ("wifi.0.mac_hint_relay_delay_ms", "-1")], "wifi.0.mac_hint_relay_delay_ms", "allowed: milliseconds >= 0");
    check(&[("wifi.0.eifs", "fast")], "wifi.0.eifs", "unknown variant `fast`, expected one of `lowest_mandatory`, `basic_rate`, `lowest_mandatory_dsss`");
    check(&[("wifi.0.arrival_backoff", "never")], "wifi.0.arrival_backoff", "expected `unless_idle_ifs` or `if_busy`");
    check(&[("wifi.0.after_timeout", "eifs")], "wifi.0.after_timeout", "expected `slot_grid` or `difs`");
    check(&[("wifi.0.cw_after_give_up", "double")], "wifi.0.cw_after_give_up", "expected `reset` or `kept`");
    check(&[("wifi.0.retry_count", "one")], "wifi.0.retry_count", "expected `separate` or `combined`");
    check(&[("wifi.0.llc_snap_bytes", "65")], "wifi.0.llc_snap_bytes", "allowed: 0..=64 bytes");
    check(&[("wifi.0.short_retry_limit", "0")], "wifi.0.short_retry_limit", "allowed: 1..=1000");
    check(&[("wifi.0.long_retry_limit", "1001")], "wifi.0.long_retry_limit", "allowed: 1..=1000");
    for ok in [&[("wifi.0.mac_hint", "own")][..], &[("wifi.0.mac_hint", "relay"), ("wifi.0.mac_hint_relay_delay_ms", "2.5")], &[("wifi.0.eifs", "basic_rate")]] {
        let ov: Vec<(String, String)> = ok.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        wtcp_engine::Scenario::from_toml_str(&text, &ov).unwrap();
    }
}
