//! What a flow's algorithm assumes of its set-up, checked before a run: a scheme run
//! outside its paper's conditions still runs, with a warning printed by `run`, `sweep`
//! and the demo and stored with the result.
//!
//! - Receiver-timestamp schemes (New Jersey's TABE, NJ+'s MABE, JTCP's jitter, EWR's
//!   receiver RTT) without `tcp.timestamps`: each falls back to a sender-side stand-in
//!   (its module header says which).
//! - The Jersey family (jersey, newjersey, njplus) with no congestion-warning queue
//!   (`discipline = "cw"`, on a link or an 802.11 station's interface queue) on its path:
//!   no ACK ever carries the mark its papers rely on.
//! - CLAP with no source of the MAC retry-limit hint: its sender is no 802.11 station,
//!   no link leaving it has ARQ, and no channel or link relays hints.
//! - EWR with delayed ACKs: its paper's rule (b) counts one ACK per segment.

use super::{FlowApp, Scenario};
use crate::net::queue::Aqm;
use crate::net::routing::Hop;
use crate::scenario::schema::MacHint;

/// One warning per (algorithm, missing condition), naming up to three of its flows.
pub fn warnings(sc: &Scenario) -> Vec<String> {
    fn note<'a>(found: &mut Vec<(String, Vec<&'a str>)>, why: String, flow: &'a str) {
        match found.iter_mut().find(|(w, _)| *w == why) {
            Some((_, flows)) => flows.push(flow),
            None => found.push((why, vec![flow])),
        }
    }
    let mut found: Vec<(String, Vec<&str>)> = Vec::new();
    for (i, f) in sc.flows.iter().enumerate() {
        let FlowApp::Tcp(t) = &f.app else { continue };
        let cc = t.cc.name();
        if matches!(cc, "newjersey" | "njplus" | "jtcp" | "ewr") && !t.tcp.timestamps {
            note(&mut found, format!("{cc} runs without tcp.timestamps, which its paper's receiver-side estimate needs (it falls back to a sender-side one; see `wtcp algorithms`)"), &f.name);
        }
        if matches!(cc, "jersey" | "newjersey" | "njplus") && !path_has_warning_queue(sc, i) {
            note(&mut found, format!("{cc} has no congestion-warning queue (queue.discipline = \"cw\") on its path, so it never sees the congestion warnings its paper relies on"), &f.name);
        }
        if cc == "clap" && !has_hint_source(sc, f.src) {
            note(&mut found, "clap's sender is no 802.11 station and no link leaving it has ARQ: no MAC retry-limit hint can reach it, so it runs as ACC".to_string(), &f.name);
        }
        if cc == "ewr" && t.tcp.delayed_ack {
            note(&mut found, "ewr runs with delayed ACKs; its paper's rule (b) counts one ACK per segment (ns-2's TCPSink), so the window grows about half as fast".to_string(), &f.name);
        }
    }
    let mut out = ber_warnings(sc);
    out.extend(found.into_iter().map(|(why, flows)| {
            let mut names: Vec<String> = flows.iter().take(3).map(|n| format!("`{n}`")).collect();
            if flows.len() > 3 {
                names.push(format!("... {} more", flows.len() - 3));
            }
            let who = if flows.len() == 1 { format!("flow {}", names[0]) } else { format!("{} flows ({})", flows.len(), names.join(", ")) };
            format!("{who}: {why}")
        }));
    out
}

/// A bit-error rate that loses most full-size packets: likely a packet loss rate written
/// as `model = "ber"` (a BER of 0.01 loses a 1040-byte packet with probability 1 - 0.99^8320).
fn ber_warnings(sc: &Scenario) -> Vec<String> {
    let mut out = Vec::new();
    for l in &sc.links {
        for (d, name) in [(0, "ab"), (1, "ba")] {
            if let Some(crate::scenario::LossSpec::Ber { ber }) = &l.dirs[d].loss {
                let bits = 8.0 * 1040.0;
                let lost = 1.0 - (1.0 - ber).powf(bits);
                if lost > 0.5 {
                    out.push(format!(
                        "link `{}` {name}: a bit-error rate of {ber} loses a 1040-byte packet with probability {lost:.3}; a BER is per bit (1e-5 loses 8 % of such packets); for a packet loss rate use loss = {{ model = \"uniform\", rate = {ber} }}",
                        l.name
                    ));
                }
            }
        }
    }
    out
}

/// Does a link direction on flow `i`'s path (data direction) mark congestion warnings?
fn path_has_warning_queue(sc: &Scenario, i: usize) -> bool {
    let (mut at, dst) = (sc.flows[i].src, sc.flows[i].dst);
    for _ in 0..sc.nodes.len() {
        match sc.routes.next_hop(at, dst) {
            None => return false,
            Some(Hop::Link(dir)) => {
                let link = &sc.links[dir as usize / 2];
                if matches!(link.queue.aqm, Aqm::Warning(_)) {
                    return true;
                }
                at = if dir % 2 == 0 { link.b } else { link.a };
            }
            Some(Hop::Wifi { channel, from, to }) => {
                let w = &sc.wifi[channel as usize];
                if matches!(w.queues[from as usize].aqm, Aqm::Warning(_)) {
                    return true;
                }
                at = w.stations[to as usize].0;
            }
        }
        if at == dst {
            return false;
        }
    }
    false
}

/// Can a retry-limit hint reach a TCP sender on node `src`?
fn has_hint_source(sc: &Scenario, src: usize) -> bool {
    let station = sc.wifi.iter().any(|w| w.stations.iter().any(|s| s.0 == src) || w.mac_hint == MacHint::Relay);
    let arq = sc.links.iter().any(|l| {
        let (ab, ba) = (&l.dirs[0].arq, &l.dirs[1].arq);
        (l.a == src && ab.is_some()) || (l.b == src && ba.is_some()) || ab.as_ref().is_some_and(|a| a.relay) || ba.as_ref().is_some_and(|a| a.relay)
    });
    station || arq
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "[run]\nduration_s = 1.0\n[[nodes]]\nname = \"S\"\n[[nodes]]\nname = \"D\"\n[[links]]\na = \"S\"\nb = \"D\"\nrate_mbps = 2.0\ndelay_ms = 1.0\n[[flows]]\nsrc = \"S\"\ndst = \"D\"\n";

    fn warned(sets: &[(&str, &str)]) -> Vec<String> {
        let sets: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        warnings(&Scenario::from_toml_str(BASE, &sets).unwrap())
    }

    #[test]
    fn each_missing_condition_is_named_once_with_its_flow() {
        assert!(warned(&[]).is_empty());
        let w = warned(&[("flows.0.cc", "\"njplus\"")]);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].starts_with("flow `flow0`: njplus runs without tcp.timestamps"), "{w:?}");
        assert!(w[1].contains("no congestion-warning queue"), "{w:?}");
        let ok = warned(&[("flows.0.cc", "\"njplus\""), ("tcp.timestamps", "true"), ("links.0.queue", "{ discipline = \"cw\", limit_packets = 20, threshold = 5.0 }")]);
        assert!(ok.is_empty(), "{ok:?}");
    }

    #[test]
    fn clap_needs_a_hint_source_and_ewr_an_ack_per_segment() {
        assert_eq!(warned(&[("flows.0.cc", "\"clap\"")]).len(), 1);
        assert!(warned(&[("flows.0.cc", "\"clap\""), ("links.0.ab.arq", "{ retry_limit = 3 }")]).is_empty());
        let w = warned(&[("flows.0.cc", "\"ewr\""), ("tcp.timestamps", "true")]);
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("delayed ACKs"));
        assert!(warned(&[("flows.0.cc", "\"ewr\""), ("tcp.timestamps", "true"), ("tcp.delayed_ack", "false")]).is_empty());
    }
}
