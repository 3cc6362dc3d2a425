//! Helpers shared by the engine's integration tests.
#![allow(dead_code)]

use wtcp_engine::{RunResult, Scenario};

/// A two-hop path S -10 Mb/s, 10 ms- BS -2 Mb/s, 1 ms- D with one bulk flow from 0 s.
/// Variations are applied with `--set` style overrides.
pub const TWO_HOP: &str = r#"
name = "two-hop-test"
[run]
duration_s = 20.0
[tcp]
mss_bytes = 1000
[[nodes]]
name = "S"
[[nodes]]
name = "BS"
[[nodes]]
name = "D"
[[links]]
name = "wired"
a = "S"
b = "BS"
rate_mbps = 10.0
delay_ms = 10.0
queue = { limit_packets = 100 }
[[links]]
name = "wireless"
a = "BS"
b = "D"
rate_mbps = 2.0
delay_ms = 1.0
queue = { limit_packets = 100 }
[[flows]]
name = "bulk"
src = "S"
dst = "D"
cc = "newreno"
"#;

pub fn repo_path(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel)
}

fn owned(overrides: &[(&str, &str)]) -> Vec<(String, String)> {
    overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

pub fn load(rel: &str, overrides: &[(&str, &str)]) -> Scenario {
    let text = std::fs::read_to_string(repo_path(rel)).expect("scenario file");
    Scenario::from_toml_str(&text, &owned(overrides)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

pub fn parse(text: &str, overrides: &[(&str, &str)]) -> Scenario {
    Scenario::from_toml_str(text, &owned(overrides)).unwrap_or_else(|e| panic!("{e}"))
}

pub fn two_hop(overrides: &[(&str, &str)]) -> RunResult {
    wtcp_engine::run(&parse(TWO_HOP, overrides))
}

/// The metrics JSON without the wall-clock time (the only non-deterministic field).
pub fn fingerprint(r: &RunResult) -> String {
    let mut v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    v.as_object_mut().unwrap().remove("wall_seconds");
    v.as_object_mut().unwrap().remove("loop_cpu_seconds");
    v.to_string()
}

/// Frames delivered by saturated 802.11 senders: stations `0..senders` of `ch` always hold
/// `queue` frames of `bytes` (IP bytes) for `dest(station)` until `end`. Returns the frames
/// delivered in all and those delivered from `warmup` on.
pub fn saturate_channel(
    ch: &mut wtcp_engine::wifi::WifiChannel,
    senders: u32,
    dest: impl Fn(u32) -> u32,
    bytes: u32,
    queue: usize,
    warmup: wtcp_engine::time::Time,
    end: wtcp_engine::time::Time,
) -> (u64, u64) {
    use wtcp_engine::events::{Event, EventQueue};
    use wtcp_engine::packet::{Packet, PacketKind, PacketPool};
    use wtcp_engine::wifi::WifiOutcome;

    let (mut pool, mut ev, mut out) = (PacketPool::default(), EventQueue::with_capacity(256), Vec::with_capacity(8));
    let refill = |ch: &mut wtcp_engine::wifi::WifiChannel, pool: &mut PacketPool, ev: &mut EventQueue, now| {
        for s in 0..senders {
            while !ch.is_backlogged(s) || ch.queue_len(s) < queue {
                let to = dest(s);
                let id = pool.alloc(&Packet::new(PacketKind::Udp, s, s, to, bytes, now));
                ch.enqueue(s, id, to, now, ev, pool).expect("room was checked");
            }
        }
    };
    refill(ch, &mut pool, &mut ev, 0);
    let (mut delivered, mut measured) = (0u64, 0u64);
    while let Some((now, e)) = ev.pop_until(end) {
        let Event::Wifi { station, kind, .. } = e else { unreachable!() };
        ch.on_event(station, kind, now, &mut ev, &mut pool, &mut out);
        for o in out.drain(..) {
            match o {
                WifiOutcome::Delivered { packet, .. } => {
                    delivered += 1;
                    measured += u64::from(now >= warmup);
                    pool.free(packet);
                }
                WifiOutcome::Dropped { packet, .. } => pool.free(packet),
                WifiOutcome::GaveUpAfterDelivery { .. } => {}
            }
        }
        refill(ch, &mut pool, &mut ev, now);
    }
    (delivered, measured)
}
