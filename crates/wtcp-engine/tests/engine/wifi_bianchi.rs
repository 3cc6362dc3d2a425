//! The 802.11 DCF MAC against Bianchi's saturation model, the retry limit against the
//! geometric law, and determinism.
//!
//! Model: G. Bianchi, "Performance Analysis of the IEEE 802.11 Distributed Coordination
//! Function", IEEE JSAC 18(3), 2000: eq. (7) tau(p), eq. (9) p(tau), eq. (13) S, eqs.
//! (17)-(18) Ts/Tc, infinite retries (the simulations use a retry limit of 1000).
//!
//! Setup (as in Bianchi-style ns-2 validations): 802.11b long preamble, data at 11 Mb/s,
//! ACK/RTS/CTS at the 1 Mb/s basic rate, PLCP header 192 us at 1 Mb/s, MAC header 28
//! bytes at the data rate, 1500-byte payloads, delta = 1 us, W = 32, m = 5. N saturated
//! stations send to one sink; all are in range of each other.

use crate::common;

use wtcp_engine::events::{Event, EventQueue};
use wtcp_engine::packet::{Packet, PacketKind, PacketPool};
use wtcp_engine::time::{secs, Time};
use wtcp_engine::wifi::{BackoffRule, CollisionTiming, StationStats, WifiChannel, WifiConfig, WifiOutcome};

const PAYLOAD: u32 = 1500;

struct Run {
    /// Payload throughput in the measurement window, Mb/s.
    mbps: f64,
    stats: Vec<StationStats>,
    delivered: u64,
}

/// N saturated senders (stations 0..n) and a sink (station n), all within 10 m.
fn saturate(n: usize, cfg: WifiConfig, warmup: Time, end: Time, seed: u64) -> Run {
    let mut pos: Vec<(f64, f64)> =
        (0..n).map(|i| (10.0 * (i as f64 / n as f64 * std::f64::consts::TAU).cos(), 10.0 * (i as f64 / n as f64 * std::f64::consts::TAU).sin())).collect();
    pos.push((0.0, 0.0));
    let limit = cfg.queue_limit;
    let mut ch = WifiChannel::new(0, cfg, &pos, seed, 0, "wifi");
    let (delivered, measured) = common::saturate_channel(&mut ch, n as u32, |_| n as u32, PAYLOAD, limit, warmup, end);
    let window = (end - warmup) as f64 / 1e9;
    Run { mbps: measured as f64 * f64::from(PAYLOAD) * 8.0 / window / 1e6, stats: (0..=n as u32).map(|s| ch.stats(s).clone()).collect(), delivered }
}

/// Bianchi's tau and p by damped fixed-point iteration of eqs. (7) and (9).
fn tau_p(n: usize, w: f64, m: i32) -> (f64, f64) {
    let tau_of = |p: f64| 2.0 * (1.0 - 2.0 * p) / ((1.0 - 2.0 * p) * (w + 1.0) + p * w * (1.0 - (2.0 * p).powi(m)));
    let mut tau = 2.0 / (w + 1.0);
    for _ in 0..10_000 {
        let p = 1.0 - (1.0 - tau).powi(n as i32 - 1);
        let next = tau_of(p);
        if (next - tau).abs() < 1e-14 {
            return (next, p);
        }
        tau = 0.5 * tau + 0.5 * next;
    }
    panic!("fixed point did not converge for n = {n}");
}

/// Saturation throughput in Mb/s, eq. (13) with eqs. (17)-(18); times in microseconds.
fn bianchi(n: usize, rts: bool, timing: CollisionTiming) -> f64 {
    let (tau, _) = tau_p(n, 32.0, 5); // W = CWmin + 1 = 32; m = log2(1024 / 32) = 5
    let (sigma, delta, sifs, difs) = (20.0, 1.0, 10.0, 50.0);
    let plcp = 192.0; // preamble + PLCP header at 1 Mb/s
    let (data_rate, basic) = (11.0, 1.0); // bits per microsecond
    let h = plcp + 28.0 * 8.0 / data_rate; // PHY hdr + MAC hdr (incl. FCS)
    let payload = f64::from(PAYLOAD) * 8.0 / data_rate; // E[P] = E[P*]
    let ack = plcp + 14.0 * 8.0 / basic;
    let rts_t = plcp + 20.0 * 8.0 / basic;
    let cts = plcp + 14.0 * 8.0 / basic;
    let eifs = sifs + ack + difs;
    let (ts, tc) = if rts {
        let ts = rts_t + sifs + delta + cts + sifs + delta + h + payload + sifs + delta + ack + difs + delta;
        let tc = match timing {
            CollisionTiming::Bianchi => rts_t + difs + delta,
            CollisionTiming::Standard => rts_t + delta + eifs,
        };
        (ts, tc)
    } else {
        let ts = h + payload + sifs + delta + ack + difs + delta;
        let tc = match timing {
            CollisionTiming::Bianchi => h + payload + difs + delta,
            CollisionTiming::Standard => h + payload + delta + eifs,
        };
        (ts, tc)
    };
    let ptr = 1.0 - (1.0 - tau).powi(n as i32);
    let ps = n as f64 * tau * (1.0 - tau).powi(n as i32 - 1) / ptr;
    ps * ptr * f64::from(PAYLOAD) * 8.0 / ((1.0 - ptr) * sigma + ptr * ps * ts + ptr * (1.0 - ps) * tc)
}

fn bianchi_cfg(rts: bool, timing: CollisionTiming, rule: BackoffRule) -> WifiConfig {
    WifiConfig {
        rts_threshold: rts.then_some(0),
        short_retry_limit: 1000,
        long_retry_limit: 1000,
        queue_limit: 1,
        timing,
        backoff_rule: rule,
        ..WifiConfig::b11()
    }
}

/// Rows (N, RTS?, model Mb/s, simulated Mb/s, model p, simulated p).
fn table(timing: CollisionTiming, rule: BackoffRule, secs_each: f64) -> Vec<(usize, bool, f64, f64, f64, f64)> {
    let mut rows = Vec::new();
    for rts in [false, true] {
        for n in [1, 5, 10, 20] {
            let model = bianchi(n, rts, timing);
            let r = saturate(n, bianchi_cfg(rts, timing, rule), secs(1.0), secs(1.0 + secs_each), 11 + n as u64);
            // Conditional collision probability: colliding accesses over all accesses.
            let (coll, att) = r.stats[..n].iter().fold((0, 0), |(c, a), s| (c + s.collisions, a + s.attempts));
            let (p_model, p_sim) = (tau_p(n, 32.0, 5).1, coll as f64 / att as f64);
            println!(
                "{timing:?} {rule:?} N={n:2} {:5} model {model:.4} Mb/s sim {:.4} Mb/s err {:+.2} % | p model {p_model:.4} sim {p_sim:.4}",
                if rts { "rts" } else { "basic" },
                r.mbps,
                100.0 * (r.mbps - model) / model
            );
            rows.push((n, rts, model, r.mbps, p_model, p_sim));
        }
    }
    rows
}

#[test]
fn saturation_throughput_matches_bianchi_with_the_papers_collision_time() {
    // Bianchi's own assumptions: failure known at the end of the frame, DIFS after a
    // collision, and the busy slot counting as one backoff decrement.
    for (n, rts, model, sim, p_model, p_sim) in table(CollisionTiming::Bianchi, BackoffRule::BusySlotCounts, 50.0) {
        assert!((sim - model).abs() / model < 0.03, "N={n} rts={rts}: sim {sim} vs model {model}");
        assert!((p_sim - p_model).abs() < 0.02, "N={n} rts={rts}: p sim {p_sim} vs model {p_model}");
    }
}

#[test]
fn saturation_throughput_matches_bianchi_with_standard_timeouts_and_eifs() {
    // ACK/CTS timeout and EIFS: the model with Tc = H + P + delta + EIFS.
    for (n, rts, model, sim, p_model, p_sim) in table(CollisionTiming::Standard, BackoffRule::BusySlotCounts, 50.0) {
        assert!((sim - model).abs() / model < 0.03, "N={n} rts={rts}: sim {sim} vs model {model}");
        assert!((p_sim - p_model).abs() < 0.02, "N={n} rts={rts}: p sim {p_sim} vs model {p_model}");
    }
}

#[test]
fn the_strict_idle_slot_rule_is_also_close_to_bianchi() {
    // The strict reading (a busy period never decrements the counter) is not Bianchi's
    // chain; it comes out about 1 % below the model (reported, bounded at 3 %).
    for (n, rts, model, sim, _, _) in table(CollisionTiming::Standard, BackoffRule::IdleSlotsOnly, 30.0) {
        assert!((sim - model).abs() / model < 0.03, "N={n} rts={rts}: sim {sim} vs model {model}");
    }
}

#[test]
fn retry_limit_drops_follow_the_frame_error_rate() {
    // One station, no contention: every attempt fails independently. The retry limit L
    // counts transmission attempts (802.11-2012 9.3.4.4: retries continue "until the SRC
    // ... is equal to dot11ShortRetryLimit"; this test first assumed L + 1 attempts). An
    // MSDU is dropped (no copy ever arrived) with FER_data^L; the MAC gives up (also
    // counting lost ACKs) with p^L, p = 1 - (1 - FER_data)(1 - FER_ack).
    let ber = 5e-5;
    let limit = 3;
    let cfg = WifiConfig { ber, short_retry_limit: limit, queue_limit: 1, ..WifiConfig::b11() };
    let r = saturate(1, cfg, 0, secs(60.0), 5);
    let st = &r.stats[0];
    let frames = (st.successes + st.retry_limit_drops + st.gave_up_after_delivery) as f64;
    let fer = |bytes: u32| 1.0 - (1.0 - ber).powf(f64::from(bytes) * 8.0);
    let fer_data = fer(PAYLOAD + 28);
    let p = 1.0 - (1.0 - fer_data) * (1.0 - fer(14));
    let check = |got: f64, want: f64, what: &str| {
        let sigma = (want * (1.0 - want) / frames).sqrt();
        println!("{what}: {got:.5} vs {want:.5} (sigma {sigma:.5}, {frames} frames)");
        assert!((got - want).abs() < 4.0 * sigma, "{what}: {got} vs {want} over {frames} frames");
    };
    check(st.retry_limit_drops as f64 / frames, fer_data.powi(limit as i32), "drop rate");
    check((st.retry_limit_drops + st.gave_up_after_delivery) as f64 / frames, p.powi(limit as i32), "give-up rate");
    assert_eq!(st.collisions, 0);
    // Every MSDU the MAC did not drop arrived exactly once.
    assert!((r.delivered as f64 - (frames - st.retry_limit_drops as f64)).abs() <= 1.0);
    // Mean attempts per MSDU: sum_{i=0..L-1} p^i (attempt i + 1 happens if i failed).
    let attempts = st.attempts as f64 / frames;
    let want: f64 = (0..limit as i32).map(|i| p.powi(i)).sum();
    assert!((attempts - want).abs() < 0.02 * want, "{attempts} vs {want}");
}

#[test]
fn same_seed_same_statistics_and_another_seed_differs() {
    let cfg = || WifiConfig { short_retry_limit: 2, ber: 2e-5, ..bianchi_cfg(false, CollisionTiming::Standard, BackoffRule::BusySlotCounts) };
    let a = saturate(5, cfg(), 0, secs(3.0), 42);
    let b = saturate(5, cfg(), 0, secs(3.0), 42);
    let c = saturate(5, cfg(), 0, secs(3.0), 43);
    assert_eq!(a.stats, b.stats);
    assert_eq!(a.delivered, b.delivered);
    assert_ne!(a.stats, c.stats);
    assert!(a.stats[..5].iter().all(|s| s.collisions > 0 && s.retry_limit_drops > 0));
}

#[test]
fn a_single_80211g_station_gets_the_analytic_throughput() {
    // No contention: a cycle is DIFS + mean backoff CWmin/2 slots + DATA + SIFS + ACK +
    // 2 delta, with ERP-OFDM airtimes (54 Mb/s data, 24 Mb/s ACK).
    let cfg = WifiConfig { queue_limit: 1, ..WifiConfig::g54() };
    let r = saturate(1, cfg, secs(0.5), secs(20.5), 3);
    let sym = |bits: f64, mbps: f64| 20.0 + 4.0 * ((16.0 + bits + 6.0) / (4.0 * mbps)).ceil() + 6.0;
    let cycle = 28.0 + 7.5 * 9.0 + sym(1528.0 * 8.0, 54.0) + 10.0 + sym(14.0 * 8.0, 24.0) + 2.0;
    let want = 1500.0 * 8.0 / cycle;
    println!("802.11g N=1: sim {:.3} Mb/s, analytic {want:.3} Mb/s", r.mbps);
    assert!((r.mbps - want).abs() / want < 0.01, "{} vs {want}", r.mbps);
}

/// Two saturated senders on either side of a sink, out of carrier-sense range of each
/// other: (throughput Mb/s, colliding fraction of accesses).
fn hidden(rts: bool) -> (f64, f64) {
    let cfg = WifiConfig { rts_threshold: rts.then_some(0), tx_range: 250.0, cs_range: 250.0, queue_limit: 1, ..WifiConfig::b11() };
    let mut ch = WifiChannel::new(0, cfg, &[(-200.0, 0.0), (200.0, 0.0), (0.0, 0.0)], 9, 0, "hidden");
    let (mut pool, mut ev, mut out) = (PacketPool::default(), EventQueue::default(), Vec::new());
    let end = secs(20.0);
    let mut delivered = 0u64;
    let mut now = 0;
    loop {
        for s in 0..2 {
            while ch.queue_len(s) < 1 || !ch.is_backlogged(s) {
                let id = pool.alloc(&Packet::new(PacketKind::Udp, s, s, 2, PAYLOAD, now));
                ch.enqueue(s, id, 2, now, &mut ev, &mut pool).unwrap();
            }
        }
        let Some((t, Event::Wifi { station, kind, .. })) = ev.pop_until(end) else { break };
        now = t;
        ch.on_event(station, kind, now, &mut ev, &mut pool, &mut out);
        for o in out.drain(..) {
            match o {
                WifiOutcome::Delivered { packet, .. } => {
                    delivered += 1;
                    pool.free(packet)
                }
                WifiOutcome::Dropped { packet, .. } => pool.free(packet),
                WifiOutcome::GaveUpAfterDelivery { .. } => {}
            }
        }
    }
    let (c, a) = (0..2).fold((0, 0), |(c, a), s| (c + ch.stats(s).collisions, a + ch.stats(s).attempts));
    (delivered as f64 * 12_000.0 / 20.0 / 1e6, c as f64 / a as f64)
}

fn saturate_two_in_range() -> (f64, f64) {
    let r = saturate(2, WifiConfig { queue_limit: 1, ..WifiConfig::b11() }, 0, secs(20.0), 9);
    let (c, a) = r.stats[..2].iter().fold((0, 0), |(c, a), s| (c + s.collisions, a + s.attempts));
    (r.mbps, c as f64 / a as f64)
}

#[test]
fn hidden_terminals_collide_and_rts_cts_rescues_them() {
    let (basic, basic_coll) = hidden(false);
    let (rts, rts_coll) = hidden(true);
    println!("hidden terminals: basic {basic:.3} Mb/s, {basic_coll:.3} of accesses collide; RTS/CTS {rts:.3} Mb/s, {rts_coll:.3}");
    // Two senders that hear each other (no hidden terminal) get about 6.2 Mb/s with basic
    // access; hidden, a large share of the long data frames overlap at the sink.
    let (open, open_coll) = saturate_two_in_range();
    println!("in range: basic {open:.3} Mb/s, {open_coll:.3} collide");
    assert!(basic_coll > 0.3 && basic_coll > 5.0 * open_coll, "{basic_coll} vs {open_coll}");
    assert!(basic < 0.75 * open, "{basic} vs {open}");
    // With RTS/CTS only the short RTS can collide, and the NAV set by the CTS protects the
    // data: it beats basic access despite sending RTS and CTS at 1 Mb/s, and gets 90 % of
    // what a lone station gets with RTS/CTS (4.52 Mb/s).
    assert!(rts > basic && rts > 0.9 * 4.52, "{rts} vs {basic}");
    assert!(rts_coll < basic_coll);
}

#[test]
fn a_full_interface_queue_refuses_the_packet() {
    let cfg = WifiConfig { queue_limit: 2, ..WifiConfig::b11() };
    let mut ch = WifiChannel::new(0, cfg, &[(0.0, 0.0), (1.0, 0.0)], 1, 0, "q");
    let (mut pool, mut ev) = (PacketPool::default(), EventQueue::default());
    let ids: Vec<_> = (0..4).map(|_| pool.alloc(&Packet::new(PacketKind::Udp, 0, 0, 1, PAYLOAD, 0))).collect();
    // One in service, two waiting, the fourth refused.
    let res: Vec<_> = ids.iter().map(|&id| ch.enqueue(0, id, 1, 0, &mut ev, &mut pool)).collect();
    assert_eq!(res, vec![Ok(()), Ok(()), Ok(()), Err(ids[3])]);
    assert_eq!(ch.stats(0).queue_drops, 1);
}

#[test]
fn random_topologies_and_traffic_conserve_packets() {
    // Every packet offered is refused, delivered once, dropped once, or still held by the
    // MAC at the end: across hidden terminals, RTS/CTS, bit errors, small retry limits,
    // queue overflow and both timing models.
    use rand::{Rng, SeedableRng};
    let mut g = rand_pcg::Pcg64Mcg::seed_from_u64(7);
    let mut total_delivered = 0;
    for case in 0..40 {
        let n = g.random_range(2..8usize);
        let pos: Vec<(f64, f64)> = (0..n).map(|_| (g.random_range(0.0..500.0), g.random_range(0.0..500.0))).collect();
        let cfg = WifiConfig {
            rts_threshold: g.random_bool(0.5).then_some(500),
            short_retry_limit: g.random_range(0..8),
            long_retry_limit: g.random_range(0..5),
            queue_limit: g.random_range(1..6),
            ber: if g.random_bool(0.5) { 3e-5 } else { 0.0 },
            tx_range: 250.0,
            cs_range: g.random_range(250.0..600.0),
            timing: if g.random_bool(0.5) { CollisionTiming::Standard } else { CollisionTiming::Bianchi },
            backoff_rule: if g.random_bool(0.5) { BackoffRule::BusySlotCounts } else { BackoffRule::IdleSlotsOnly },
            ..if g.random_bool(0.5) { WifiConfig::b11() } else { WifiConfig::g54() }
        };
        let mut ch = WifiChannel::new(0, cfg, &pos, case, 0, "rand");
        let (mut pool, mut ev, mut out) = (PacketPool::default(), EventQueue::default(), Vec::new());
        let (mut offered, mut refused, mut delivered, mut dropped) = (0u64, 0u64, 0u64, 0u64);
        let mut seen = std::collections::HashSet::new();
        let end = secs(2.0);
        let mut next_arrival = 0;
        loop {
            match ev.pop_until(end.min(next_arrival)) {
                Some((t, Event::Wifi { station, kind, .. })) => ch.on_event(station, kind, t, &mut ev, &mut pool, &mut out),
                Some(_) => unreachable!(),
                None if next_arrival <= end => {
                    // A packet of random size from a random station to another.
                    let now = next_arrival;
                    let s = g.random_range(0..n as u32);
                    let d = (s + g.random_range(1..n as u32)) % n as u32;
                    let mut p = Packet::new(PacketKind::Udp, s, s, d, g.random_range(40..1500), now);
                    p.seq = offered;
                    let id = pool.alloc(&p);
                    offered += 1;
                    if ch.enqueue(s, id, d, now, &mut ev, &mut pool).is_err() {
                        refused += 1;
                        pool.free(id);
                    }
                    next_arrival = now + g.random_range(0..secs(0.004));
                }
                None => break,
            }
            for o in out.drain(..) {
                let (WifiOutcome::Delivered { packet, .. } | WifiOutcome::Dropped { packet, .. }) = o else {
                    continue; // a hint-only give-up: the packet was handed back when delivered
                };
                assert!(seen.insert(pool.get(packet).seq), "case {case}: packet handed back twice");
                match o {
                    WifiOutcome::Delivered { station, .. } => {
                        assert_eq!(pool.get(packet).dst, station, "case {case}: delivered to the wrong station");
                        delivered += 1;
                    }
                    WifiOutcome::Dropped { .. } => dropped += 1,
                    WifiOutcome::GaveUpAfterDelivery { .. } => {}
                }
                pool.free(packet);
            }
        }
        let held: usize = (0..n as u32).map(|s| ch.holding(s)).sum();
        assert_eq!(offered, refused + delivered + dropped + held as u64, "case {case}");
        assert_eq!(pool.live(), held, "case {case}");
        let st: Vec<_> = (0..n as u32).map(|s| ch.stats(s).clone()).collect();
        assert_eq!(refused, st.iter().map(|s| s.queue_drops).sum::<u64>());
        assert_eq!(dropped, st.iter().map(|s| s.retry_limit_drops).sum::<u64>());
        total_delivered += delivered;
        println!("case {case}: n={n} offered {offered} refused {refused} delivered {delivered} dropped {dropped} held {held}");
    }
    assert!(total_delivered > 1000, "{total_delivered}");
}

#[test]
fn the_wifi_event_keeps_event_small() {
    assert!(std::mem::size_of::<Event>() <= 16, "{}", std::mem::size_of::<Event>());
}
