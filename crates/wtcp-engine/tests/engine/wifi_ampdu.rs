//! 802.11n A-MPDU aggregation under Block Ack: the aggregate's size from its limits, the
//! exchange time, selective retransmission with in-order delivery, and TCP over it.

use crate::common;

use wtcp_engine::events::{Event, EventQueue};
use wtcp_engine::packet::{Packet, PacketKind, PacketPool};
use wtcp_engine::time::{secs, Time};
use wtcp_engine::wifi::{Aggregation, HtMode, WifiChannel, WifiConfig, WifiOutcome};

fn n(mcs: u8, aggregation: Aggregation) -> WifiConfig {
    WifiConfig { aggregation: Some(aggregation), queue_limit: 200, ..WifiConfig::n(HtMode::new(mcs, 20, false).unwrap()) }
}

/// Station 0 saturated with 1500-byte packets for station 1 (100 queued): IP throughput
/// from 1 s to 21 s, and the mean MPDUs per A-MPDU.
fn saturated(cfg: WifiConfig) -> (f64, f64) {
    let mut ch = WifiChannel::new(0, cfg, &[(0.0, 0.0), (10.0, 0.0)], 1, 0, "ampdu");
    let (_, received) = common::saturate_channel(&mut ch, 1, |_| 1, 1500, 100, secs(1.0), secs(21.0));
    let st = ch.stats(0);
    (received as f64 * 12_000.0 / 20.0, st.ampdu_mpdus as f64 / st.ampdus as f64)
}

/// One exchange: AIFS[BE] 43 us, the mean backoff 67.5 us, the A-MPDU, SIFS 16 us, the
/// Block Ack, two 1 us propagation delays; bits of IP packets per second.
fn exchange_rate(mpdus: u32, ppdu_us: f64, block_ack_us: f64) -> f64 {
    f64::from(mpdus) * 12_000.0 / ((43.0 + 67.5 + ppdu_us + 16.0 + block_ack_us + 2.0) * 1e-6)
}

#[test]
fn a_saturated_station_sends_the_longest_a_mpdu_its_ppdu_allows() {
    // 1500-byte packets in 1530-byte QoS MPDUs, subframes of 4 + 1530 padded to 1536
    // octets (8.6.1). MCS 7 (260 data bits per 4 us symbol): the 5484 us HT-mixed PPDU
    // limit leaves 1362 symbols, so 28 MPDUs (43 006 octets, 1324 symbols: 36 + 5296 us);
    // the Block Ack (32 octets) at 24 Mb/s takes 20 + 3 x 4 = 32 us.
    let (got, mean) = saturated(n(7, Aggregation::default()));
    assert_eq!(mean, 28.0);
    let expected = exchange_rate(28, 36.0 + 5296.0, 32.0);
    assert!((got - expected).abs() / expected < 0.01, "{got} vs {expected}");
    // MCS 0 (26 bits per symbol): two MPDUs (3070 octets, 946 symbols: 36 + 3784 us), the
    // Block Ack at 6 Mb/s in 20 + 12 x 4 = 68 us.
    let (got, mean) = saturated(n(0, Aggregation::default()));
    assert_eq!(mean, 2.0);
    let expected = exchange_rate(2, 36.0 + 3784.0, 68.0);
    assert!((got - expected).abs() / expected < 0.01, "{got} vs {expected}");
}

#[test]
fn the_a_mpdu_keeps_within_its_octet_and_mpdu_limits() {
    let (_, mean) = saturated(n(7, Aggregation { max_bytes: 65_535, max_frames: 10 }));
    assert_eq!(mean, 10.0);
    // 1536 (k - 1) + 1534 <= 8000: k = 5.
    let (_, mean) = saturated(n(7, Aggregation { max_bytes: 8000, max_frames: 64 }));
    assert_eq!(mean, 5.0);
    // A limit below two MPDUs: each goes alone with its ACK, at the unaggregated rate.
    let (alone, _) = saturated(n(7, Aggregation { max_bytes: 3000, max_frames: 64 }));
    let (unaggregated, _) = saturated(WifiConfig { aggregation: None, ..n(7, Aggregation::default()) });
    assert_eq!(alone, unaggregated);
}

/// Station 0 sends `count` numbered 1500-byte packets to station 1 over a channel with
/// bit errors, 100 at a time; the numbers delivered, in delivery order, and those dropped.
fn numbered_over_errors(count: u64, ber: f64) -> (Vec<u64>, Vec<u64>, WifiChannel) {
    let cfg = WifiConfig { ber, ..n(7, Aggregation::default()) };
    let mut ch = WifiChannel::new(0, cfg, &[(0.0, 0.0), (10.0, 0.0)], 3, 0, "errors");
    let (mut pool, mut ev, mut out) = (PacketPool::default(), EventQueue::with_capacity(256), Vec::new());
    let (mut next, mut delivered, mut dropped) = (0u64, Vec::new(), Vec::new());
    let offer = |ch: &mut WifiChannel, pool: &mut PacketPool, ev: &mut EventQueue, now: Time, next: &mut u64| {
        while *next < count && ch.queue_len(0) < 100 {
            let mut p = Packet::new(PacketKind::Udp, 0, 0, 1, 1500, now);
            p.seq = *next;
            *next += 1;
            let id = pool.alloc(&p);
            ch.enqueue(0, id, 1, now, ev, pool).expect("room was checked");
        }
    };
    offer(&mut ch, &mut pool, &mut ev, 0, &mut next);
    while let Some((now, e)) = ev.pop_until(secs(60.0)) {
        let Event::Wifi { station, kind, .. } = e else { unreachable!() };
        ch.on_event(station, kind, now, &mut ev, &mut pool, &mut out);
        for o in out.drain(..) {
            match o {
                WifiOutcome::Delivered { packet, .. } => {
                    delivered.push(pool.get(packet).seq);
                    pool.free(packet);
                }
                WifiOutcome::Dropped { packet, .. } => {
                    dropped.push(pool.get(packet).seq);
                    pool.free(packet);
                }
                WifiOutcome::GaveUpAfterDelivery { .. } => {}
            }
        }
        offer(&mut ch, &mut pool, &mut ev, now, &mut next);
    }
    (delivered, dropped, ch)
}

#[test]
fn mpdus_lost_in_an_a_mpdu_are_resent_in_the_next_and_everything_goes_up_in_order_once() {
    // BER 4e-5: each 1530-byte MPDU is lost with probability 1 - (1 - 4e-5)^12240 = 39 %,
    // so 7 transmissions all fail for 0.39^7 = 0.14 % of them.
    let (delivered, dropped, ch) = numbered_over_errors(20_000, 4e-5);
    let st = ch.stats(0);
    // Nothing lost or duplicated: every packet is delivered or given up, once.
    let mut all: Vec<u64> = delivered.iter().chain(&dropped).copied().collect();
    all.sort_unstable();
    assert_eq!(all, (0..20_000).collect::<Vec<_>>());
    // The recipient's reordering: delivered in sending order, gaps only where given up.
    assert!(delivered.windows(2).all(|w| w[0] < w[1]), "out of order");
    // Each MPDU is given up at its 7th failed transmission: 20 000 x 0.39^7 = 28 expected
    // (a binomial count: 17-39 at three standard deviations).
    assert_eq!(st.retry_limit_drops as usize, dropped.len());
    assert!((17..=39).contains(&dropped.len()), "{} dropped", dropped.len());
    assert_eq!(st.retry_hist[7], 0, "acknowledged after 7 failures: {st:?}");
    // Selective retransmission: only the lost MPDUs go again, so the transmissions per
    // MPDU are those of a geometric number of tries, 1 / (1 - 0.39) = 1.64, not one
    // A-MPDU's worth per loss.
    let fer = -f64::exp_m1(12_240.0 * f64::ln_1p(-4e-5));
    let sent: u64 = st.retry_hist.iter().enumerate().map(|(i, k)| (i as u64 + 1) * k).sum();
    let per_acked = sent as f64 / st.successes as f64;
    assert!((per_acked - 1.0 / (1.0 - fer)).abs() < 0.05, "{per_acked} transmissions per acknowledged MPDU, FER {fer}");
    assert!(st.ampdus > 0 && st.ampdu_mpdus / st.ampdus >= 10, "{st:?}");
}

#[test]
fn aggregation_lifts_a_tcp_download_over_802_11n() {
    // The download of wifi-one-hop through an access point at MCS 7: without aggregation
    // every 1500-byte packet costs a channel access and an ACK (at most 31.2 Mb/s for one
    // saturated station); with it, an access carries what the AP's queue holds.
    let text = crate::wifi_phy::one_hop_on("n");
    let run = |aggregation: &str| {
        let sc = crate::wifi_phy::with(&text, &[("run.duration_s", "20"), ("wifi.0.mcs", "7"), ("wifi.0.aggregation", aggregation)]).unwrap();
        wtcp_engine::run(&sc).flows[0].goodput_bps
    };
    let (off, on) = (run("false"), run("true"));
    assert!(off < 12_000.0 / 384.5e-6, "{off}");
    assert!(on > 1.3 * off, "{on} with aggregation, {off} without");
}

#[test]
fn an_802_11ac_station_aggregates_up_to_its_octet_limit_or_the_block_ack_window() {
    // MCS 9, 80 MHz, 2 streams (N_DBPS 3120, two encoders), the long GI: 65535 octets hold
    // 42 subframes (64 510 octets, 166 symbols: 44 + 664 us); 1 048 575 octets are bounded
    // by the 64-MPDU window instead (98 302 octets, 253 symbols: 44 + 1012 us).
    let ac = |aggregation| WifiConfig { aggregation, queue_limit: 200, ..WifiConfig::n(HtMode::vht(9, 80, 2, false).unwrap()) };
    let (got, mean) = saturated(ac(Some(Aggregation::default())));
    assert_eq!(mean, 42.0);
    let expected = exchange_rate(42, 44.0 + 664.0, 32.0);
    assert!((got - expected).abs() / expected < 0.01, "{got} vs {expected}");
    let (got, mean) = saturated(ac(Some(Aggregation { max_bytes: 1_048_575, max_frames: 64 })));
    assert_eq!(mean, 64.0);
    let expected = exchange_rate(64, 44.0 + 1012.0, 32.0);
    assert!((got - expected).abs() / expected < 0.01, "{got} vs {expected}");
    // Without aggregation every MPDU is an S-MPDU (with its delimiter: 1534 octets, 60 us)
    // answered by a 28 us ACK.
    let (got, _) = saturated(ac(None));
    let expected = 12_000.0 / ((43.0 + 67.5 + 60.0 + 16.0 + 28.0 + 2.0) * 1e-6);
    assert!((got - expected).abs() / expected < 0.01, "{got} vs {expected}");
}
