//! The IPv4 + TCP/UDP header bytes of one simulated packet, as a capture shows them.
//!
//! Hand-written: the crates that build packets (etherparse, pnet) allocate or want a
//! payload buffer, and a header-only capture needs just these 20 + 20..60 bytes written
//! into a reused array. Field layouts: IPv4 RFC 791 §3.1, TCP RFC 9293 §3.1, UDP RFC 768,
//! ECN RFC 3168 §5 and §6.1, timestamps RFC 7323 §3, window scale RFC 7323 §2, SACK
//! RFC 2018 §2-3. Checksums (RFC 1071) cover the headers and an all-zero payload: the
//! payload is not simulated, so a zero payload is the one that makes them valid.

use crate::packet::{Packet, PacketKind};
use crate::scenario::{FlowApp, FlowCfg};
use crate::time::Time;

/// Most header bytes one packet can have: IPv4 without options (20) + TCP with 40 option
/// bytes (60). The capture's snap length.
pub const MAX_HEADER: usize = 80;

const IP_HEADER: usize = 20;
const TCP_HEADER: usize = 20;
const UDP_HEADER: usize = 8;
/// A TTL as Linux's default.
const TTL: u8 = 64;

// TCP flags (RFC 9293 §3.1, RFC 3168 §6.1).
pub const SYN: u8 = 0x02;
pub const ACK: u8 = 0x10;
pub const ECE: u8 = 0x40;
pub const CWR: u8 = 0x80;

// TCP option kinds.
const NOP: u8 = 1;
const MSS: u8 = 2;
const WSCALE: u8 = 3;
const SACK_PERMITTED: u8 = 4;
const SACK: u8 = 5;
const TIMESTAMPS: u8 = 8;

/// The IPv4 address of node `index` (its place in `[[nodes]]`): 10.0.0.0 + index + 1, so
/// node 0 is 10.0.0.1, node 255 is 10.0.1.0 and node 256 is 10.0.1.1.
pub fn node_address(index: u32) -> [u8; 4] {
    (0x0a00_0000u32 + index + 1).to_be_bytes()
}

/// Nodes [`node_address`] can number (10.0.0.1 ..= 10.255.255.254).
pub const MAX_NODES: usize = 0x00ff_fffe;

/// Ports of flow `index`: source 10000 + (index mod 50000), destination
/// 5000 + index / 50000, distinct for every flow below 2.7e9.
pub fn flow_ports(index: u32) -> (u16, u16) {
    ((10_000 + index % 50_000) as u16, (5_000 + index / 50_000) as u16)
}

/// An initial sequence number (RFC 9293 §3.4.1) for side `side` (0: the sender, 1: the
/// receiver) of flow `index`: splitmix64 of the pair, so the same in every run and
/// spread over the whole 32-bit space (wrap-around shows up in long transfers).
pub fn initial_seq(index: u32, side: u32) -> u32 {
    let mut z = (u64::from(index) << 1 | u64::from(side)).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) as u32
}

/// The timestamp clock (RFC 7323 §5.4): 1 µs per tick from the start of the run,
/// wrapping after 2^32 µs (71.6 minutes).
pub fn ts_ticks(t: Time) -> u32 {
    (t / 1_000) as u32
}

/// What the headers of one flow's packets need beyond the packet itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowWire {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub sport: u16,
    pub dport: u16,
    /// UDP (a CBR flow) or TCP.
    pub udp: bool,
    /// Initial sequence numbers of the sender and of the receiver.
    pub isn: [u32; 2],
    pub mss: u16,
    pub timestamps: bool,
    pub sack: bool,
    pub ecn: bool,
    /// The window scale both ends announce on their SYNs (RFC 7323 §2.2); `None` when
    /// the option is not sent (windows are then clamped to 65535).
    pub wscale: Option<u8>,
    /// The window the sender advertises on its data segments (its receive buffer).
    pub sender_window: u64,
}

impl FlowWire {
    /// Flow `index` of a scenario.
    pub fn of(index: u32, f: &FlowCfg) -> FlowWire {
        let (sport, dport) = flow_ports(index);
        let base = FlowWire {
            src: node_address(f.src as u32),
            dst: node_address(f.dst as u32),
            sport,
            dport,
            udp: true,
            isn: [initial_seq(index, 0), initial_seq(index, 1)],
            mss: 0,
            timestamps: false,
            sack: false,
            ecn: false,
            wscale: None,
            sender_window: 0,
        };
        match &f.app {
            FlowApp::Cbr(_) => base,
            FlowApp::Tcp(t) => {
                let c = &t.tcp;
                let buffer = c.recv_buffer_bytes;
                // The window scale option fits in the SYN's option bytes the engine counts
                // (`TcpConfig::syn_size`) only with both SACK and timestamps on (the
                // Linux layout MSS, SACK-permitted + timestamps, NOP + window scale).
                let shift = (0..=14u8).find(|&s| buffer >> s <= 0xffff).unwrap_or(14);
                let wscale = (c.sack && c.timestamps && shift > 0).then_some(shift);
                FlowWire { udp: false, mss: c.mss.min(0xffff) as u16, timestamps: c.timestamps, sack: c.sack, ecn: c.ecn, wscale, sender_window: buffer, ..base }
            }
        }
    }

    fn window(&self, bytes: u64, syn: bool) -> u16 {
        let shift = if syn { 0 } else { self.wscale.unwrap_or(0) };
        (bytes >> shift).min(0xffff) as u16
    }
}

/// Write the headers of `p` (a packet of the flow `w` describes) into `out`; returns the
/// bytes written (the captured length) and the packet's length on the wire (IPv4 total
/// length: the headers plus the payload, which is not written).
pub fn encode(w: &FlowWire, p: &Packet, out: &mut [u8; MAX_HEADER]) -> (usize, u32) {
    let from_sender = matches!(p.kind, PacketKind::Data | PacketKind::Syn | PacketKind::HandshakeAck | PacketKind::Udp);
    let (src, dst, sport, dport) = if from_sender { (w.src, w.dst, w.sport, w.dport) } else { (w.dst, w.src, w.dport, w.sport) };
    let (l4_len, payload, proto) = if p.kind == PacketKind::Udp {
        write_udp(out, sport, dport, p.len);
        (UDP_HEADER, p.len, 17)
    } else {
        let n = write_tcp(w, p, sport, dport, out);
        (n, if p.kind == PacketKind::Data { p.len } else { 0 }, 6)
    };
    let total = (IP_HEADER + l4_len) as u32 + payload;
    // ECN field (RFC 3168 §5): ECT(0) = 10, CE = 11.
    let ecn = if p.ce { 0b11 } else if p.ect { 0b10 } else { 0 };
    let ip = &mut out[..IP_HEADER];
    ip[0] = 0x45; // version 4, 5 words
    ip[1] = ecn;
    ip[2..4].copy_from_slice(&(total.min(0xffff) as u16).to_be_bytes());
    ip[4..6].copy_from_slice(&[0, 0]); // identification: any value for an atomic datagram (RFC 6864 §4.1)
    ip[6..8].copy_from_slice(&0x4000u16.to_be_bytes()); // don't fragment, offset 0
    ip[8] = TTL;
    ip[9] = proto;
    ip[10..12].copy_from_slice(&[0, 0]);
    ip[12..16].copy_from_slice(&src);
    ip[16..20].copy_from_slice(&dst);
    let sum = !fold(sum16(ip, 0));
    ip[10..12].copy_from_slice(&sum.to_be_bytes());
    // Transport checksum over the pseudo-header (RFC 9293 §3.1, RFC 768) and a zero payload.
    let l4_total = l4_len as u32 + payload;
    let mut acc = sum16(&src, 0);
    acc = sum16(&dst, acc);
    acc += u64::from(proto) + u64::from(l4_total);
    acc = sum16(&out[IP_HEADER..IP_HEADER + l4_len], acc);
    let mut sum = !fold(acc);
    let at = if proto == 17 {
        if sum == 0 {
            sum = 0xffff; // RFC 768: a computed zero is sent as all ones
        }
        IP_HEADER + 6
    } else {
        IP_HEADER + 16
    };
    out[at..at + 2].copy_from_slice(&sum.to_be_bytes());
    (IP_HEADER + l4_len, total)
}

fn write_udp(out: &mut [u8; MAX_HEADER], sport: u16, dport: u16, payload: u32) {
    let u = &mut out[IP_HEADER..IP_HEADER + UDP_HEADER];
    u[0..2].copy_from_slice(&sport.to_be_bytes());
    u[2..4].copy_from_slice(&dport.to_be_bytes());
    u[4..6].copy_from_slice(&((UDP_HEADER as u32 + payload).min(0xffff) as u16).to_be_bytes());
    u[6..8].copy_from_slice(&[0, 0]);
}

/// The TCP header with its options; returns its length.
fn write_tcp(w: &FlowWire, p: &Packet, sport: u16, dport: u16, out: &mut [u8; MAX_HEADER]) -> usize {
    // Sequence space: each side's SYN takes its ISN, data byte k is ISN + 1 + k (mod 2^32).
    let s_data = |k: u64| w.isn[0].wrapping_add(1).wrapping_add(k as u32);
    let r_next = w.isn[1].wrapping_add(1);
    let (seq, ack, mut flags, window) = match p.kind {
        PacketKind::Syn => (w.isn[0], 0, SYN, w.window(w.sender_window, true)),
        PacketKind::SynAck => (w.isn[1], s_data(0), SYN | ACK, w.window(p.rwnd, true)),
        PacketKind::Data => (s_data(p.seq), r_next, ACK, w.window(w.sender_window, false)),
        PacketKind::HandshakeAck => (s_data(0), r_next, ACK, w.window(w.sender_window, false)),
        PacketKind::Ack => (r_next, s_data(p.ack), ACK, w.window(p.rwnd, false)),
        PacketKind::Udp => unreachable!("UDP has no TCP header"),
    };
    // ECN negotiation (RFC 3168 §6.1.1): ECE + CWR on the SYN, ECE on the SYN-ACK.
    match p.kind {
        PacketKind::Syn if w.ecn => flags |= ECE | CWR,
        PacketKind::SynAck if w.ecn => flags |= ECE,
        _ => {}
    }
    if p.ece {
        flags |= ECE;
    }
    if p.cwr {
        flags |= CWR;
    }
    let o = &mut out[IP_HEADER + TCP_HEADER..];
    let mut n = 0;
    let mut put = |bytes: &[u8]| {
        o[n..n + bytes.len()].copy_from_slice(bytes);
        n += bytes.len();
    };
    let ts = |put: &mut dyn FnMut(&[u8])| {
        let (val, ecr) = (ts_ticks(p.ts_val), if p.kind == PacketKind::Syn { 0 } else { ts_ticks(p.ts_ecr) });
        put(&[TIMESTAMPS, 10]);
        put(&val.to_be_bytes());
        put(&ecr.to_be_bytes());
    };
    match p.kind {
        PacketKind::Syn | PacketKind::SynAck => {
            // The option bytes the engine counts for a SYN: MSS, and 4 each for
            // SACK-permitted and 12 for the timestamps when on.
            put(&[MSS, 4]);
            put(&w.mss.to_be_bytes());
            match (w.sack, w.timestamps) {
                (true, true) => {
                    put(&[SACK_PERMITTED, 2]);
                    ts(&mut put);
                    match w.wscale {
                        Some(s) => put(&[NOP, WSCALE, 3, s]),
                        None => put(&[NOP, NOP, NOP, NOP]),
                    }
                }
                (true, false) => put(&[NOP, NOP, SACK_PERMITTED, 2]),
                (false, true) => {
                    put(&[NOP, NOP]);
                    ts(&mut put);
                }
                (false, false) => {}
            }
        }
        PacketKind::Data | PacketKind::Ack | PacketKind::HandshakeAck => {
            if w.timestamps {
                put(&[NOP, NOP]);
                ts(&mut put);
            }
            let blocks = p.sack.as_slice();
            if !blocks.is_empty() {
                put(&[NOP, NOP, SACK, 2 + 8 * blocks.len() as u8]);
                for &(start, end) in blocks {
                    put(&s_data(start).to_be_bytes());
                    put(&s_data(end).to_be_bytes());
                }
            }
        }
        PacketKind::Udp => unreachable!("UDP has no TCP header"),
    }
    let len = TCP_HEADER + n;
    debug_assert!(len <= 60 && len.is_multiple_of(4), "TCP header of {len} bytes");
    let t = &mut out[IP_HEADER..IP_HEADER + TCP_HEADER];
    t[0..2].copy_from_slice(&sport.to_be_bytes());
    t[2..4].copy_from_slice(&dport.to_be_bytes());
    t[4..8].copy_from_slice(&seq.to_be_bytes());
    t[8..12].copy_from_slice(&ack.to_be_bytes());
    t[12] = ((len / 4) as u8) << 4;
    t[13] = flags;
    t[14..16].copy_from_slice(&window.to_be_bytes());
    t[16..20].copy_from_slice(&[0, 0, 0, 0]); // checksum (filled in by `encode`), urgent pointer
    len
}

/// One's-complement sum of 16-bit big-endian words (RFC 1071), unfolded.
fn sum16(bytes: &[u8], mut acc: u64) -> u64 {
    let mut chunks = bytes.chunks_exact(2);
    for c in &mut chunks {
        acc += u64::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        acc += u64::from(*last) << 8;
    }
    acc
}

fn fold(mut acc: u64) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u16
}

/// RFC 1071 checksum of `bytes` (0 when a header carrying its checksum is valid).
pub fn checksum(bytes: &[u8]) -> u16 {
    !fold(sum16(bytes, 0))
}
