use proptest::prelude::*;

use super::headers::*;
use crate::packet::{Packet, PacketKind};
use crate::tcp::sack::SackBlocks;

fn wire(isn: [u32; 2], ts: bool, sack: bool, ecn: bool, wscale: Option<u8>) -> FlowWire {
    FlowWire {
        src: node_address(0),
        dst: node_address(2),
        sport: 10_000,
        dport: 5_000,
        udp: false,
        isn,
        mss: 1448,
        timestamps: ts,
        sack,
        ecn,
        wscale,
        sender_window: 1 << 20,
    }
}

fn be16(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// The transport checksum verified as a receiver does (RFC 1071): over the pseudo-header,
/// the header and the (all-zero) payload, the sum is 0.
fn transport_sum_ok(h: &[u8], total: u32) -> bool {
    let ihl = usize::from(h[0] & 0xf) * 4;
    let l4 = total as usize - ihl;
    let mut seg = h[ihl..].to_vec();
    seg.resize(l4, 0);
    let mut pseudo = Vec::new();
    pseudo.extend_from_slice(&h[12..20]);
    pseudo.extend_from_slice(&[0, h[9]]);
    pseudo.extend_from_slice(&(l4 as u16).to_be_bytes());
    pseudo.extend_from_slice(&seg);
    checksum(&pseudo) == 0
}

fn data(seq: u64, len: u32, ts_val: u64, ts_ecr: u64) -> Packet {
    let mut p = Packet::new(PacketKind::Data, 0, 0, 2, 40 + 12 + len, ts_val);
    p.seq = seq;
    p.len = len;
    p.ts_val = ts_val;
    p.ts_ecr = ts_ecr;
    p
}

#[test]
fn addresses_and_ports_follow_the_documented_mapping() {
    assert_eq!(node_address(0), [10, 0, 0, 1]);
    assert_eq!(node_address(255), [10, 0, 1, 0]);
    assert_eq!(node_address(MAX_NODES as u32 - 1), [10, 255, 255, 254]);
    assert_eq!(flow_ports(0), (10_000, 5_000));
    assert_eq!(flow_ports(49_999), (59_999, 5_000));
    assert_eq!(flow_ports(50_000), (10_000, 5_001));
    assert_ne!(initial_seq(0, 0), initial_seq(0, 1));
    assert_ne!(initial_seq(0, 0), initial_seq(1, 0));
}

#[test]
fn data_segment_headers() {
    let w = wire([0xffff_ff00, 7], true, true, true, Some(5));
    let mut p = data(0x1_0000_0100, 1448, 2_500_000, 1_000_000);
    p.ect = true;
    p.ce = true;
    p.cwr = true;
    let mut out = [0u8; MAX_HEADER];
    let (n, total) = encode(&w, &p, &mut out);
    let h = &out[..n];
    // IPv4: version/IHL, CE, total length = engine size, DF, TTL, TCP, addresses.
    assert_eq!(n, 52);
    assert_eq!(total, p.size);
    assert_eq!(h[0], 0x45);
    assert_eq!(h[1] & 0b11, 0b11);
    assert_eq!(u32::from(be16(&h[2..])), p.size);
    assert_eq!(be16(&h[6..]), 0x4000);
    assert_eq!(h[9], 6);
    assert_eq!(&h[12..16], &[10, 0, 0, 1]);
    assert_eq!(&h[16..20], &[10, 0, 0, 3]);
    assert_eq!(checksum(&h[..20]), 0, "IPv4 header checksum");
    // TCP: ports, seq = ISN + 1 + offset mod 2^32, ack = peer ISN + 1, 32-byte header.
    let t = &h[20..];
    assert_eq!((be16(t), be16(&t[2..])), (10_000, 5_000));
    assert_eq!(be32(&t[4..]), 0xffff_ff00u32.wrapping_add(1).wrapping_add(0x0000_0100));
    assert_eq!(be32(&t[4..]), 1);
    assert_eq!(be32(&t[8..]), 8);
    assert_eq!(t[12] >> 4, 8);
    assert_eq!(t[13], ACK | CWR);
    assert_eq!(be16(&t[14..]), ((1u32 << 20) >> 5) as u16);
    // NOP NOP timestamps, in 1 µs ticks.
    assert_eq!(&t[20..24], &[1, 1, 8, 10]);
    assert_eq!(be32(&t[24..]), 2_500);
    assert_eq!(be32(&t[28..]), 1_000);
    assert!(transport_sum_ok(h, total), "TCP checksum");
}

#[test]
fn ack_with_sack_blocks() {
    let w = wire([100, u32::MAX], true, true, false, None);
    let mut blocks = SackBlocks::default();
    let mut a = Packet::new(PacketKind::Ack, 0, 2, 0, 40 + 12, 9_000_000);
    a.ack = 5_000;
    a.rwnd = 70_000;
    a.ts_val = 9_000_000;
    a.ts_ecr = 8_000_000;
    a.ece = true;
    for (i, b) in [(7_000, 8_000), (10_000, 12_000), (14_000, 15_000)].into_iter().enumerate() {
        blocks.blocks[i] = b;
    }
    blocks.len = 3;
    a.sack = blocks;
    a.size += a.sack.option_bytes();
    let mut out = [0u8; MAX_HEADER];
    let (n, total) = encode(&w, &a, &mut out);
    let h = &out[..n];
    assert_eq!(total, a.size);
    assert_eq!(n as u32, a.size, "an ACK carries no payload");
    // From the receiver back to the sender.
    assert_eq!(&h[12..16], &[10, 0, 0, 3]);
    assert_eq!(&h[16..20], &[10, 0, 0, 1]);
    assert_eq!(h[1], 0, "a pure ACK is not ECN-capable");
    assert_eq!(checksum(&h[..20]), 0);
    let t = &h[20..];
    assert_eq!((be16(t), be16(&t[2..])), (5_000, 10_000));
    assert_eq!(be32(&t[4..]), 0, "receiver ISN + 1 wraps to 0");
    assert_eq!(be32(&t[8..]), 101 + 5_000);
    assert_eq!(t[13], ACK | ECE);
    assert_eq!(be16(&t[14..]), 65_535, "without window scaling the window is clamped");
    assert_eq!(usize::from(t[12] >> 4) * 4, 20 + 12 + 28);
    assert_eq!(&t[20..24], &[1, 1, 8, 10]);
    assert_eq!(&t[32..36], &[1, 1, 5, 26]);
    let edges: Vec<u32> = (0..6).map(|i| be32(&t[36 + 4 * i..])).collect();
    assert_eq!(edges, vec![7_101, 8_101, 10_101, 12_101, 14_101, 15_101]);
    assert!(transport_sum_ok(h, total));
}

#[test]
fn handshake_segments_carry_the_negotiation_options() {
    let w = wire([1_000, 2_000], true, true, true, Some(5));
    // Engine sizes (TcpConfig::syn_size): 40 + 12 + 4 + 4.
    let mut syn = Packet::new(PacketKind::Syn, 0, 0, 2, 60, 0);
    syn.ts_val = 3_000;
    let mut out = [0u8; MAX_HEADER];
    let (n, total) = encode(&w, &syn, &mut out);
    assert_eq!((n, total), (60, 60));
    let t = &out[20..n];
    assert_eq!(be32(&t[4..]), 1_000);
    assert_eq!(be32(&t[8..]), 0);
    assert_eq!(t[13], SYN | ECE | CWR);
    assert_eq!(be16(&t[14..]), 65_535, "a SYN's window is never scaled");
    assert_eq!(&t[20..24], &[2, 4, 0x05, 0xa8], "MSS 1448");
    assert_eq!(&t[24..26], &[4, 2], "SACK permitted");
    assert_eq!(&t[26..28], &[8, 10]);
    assert_eq!(be32(&t[28..]), 3);
    assert_eq!(be32(&t[32..]), 0, "TSecr of a SYN is 0");
    assert_eq!(&t[36..40], &[1, 3, 3, 5], "window scale 5");
    assert!(transport_sum_ok(&out[..n], total));

    let mut sa = Packet::new(PacketKind::SynAck, 0, 2, 0, 60, 0);
    sa.rwnd = 1 << 20;
    sa.ts_val = 20_000;
    sa.ts_ecr = 3_000;
    let (n, total) = encode(&w, &sa, &mut out);
    assert_eq!(total, 60);
    let t = &out[20..n];
    assert_eq!(be32(&t[4..]), 2_000);
    assert_eq!(be32(&t[8..]), 1_001);
    assert_eq!(t[13], SYN | ACK | ECE);
    assert_eq!(be32(&t[32..]), 3);
    assert!(transport_sum_ok(&out[..n], total));
}

#[test]
fn udp_datagram() {
    let mut w = wire([0, 0], false, false, false, None);
    w.udp = true;
    let mut p = Packet::new(PacketKind::Udp, 0, 0, 2, 1000 + 28, 0);
    p.len = 1000;
    let mut out = [0u8; MAX_HEADER];
    let (n, total) = encode(&w, &p, &mut out);
    assert_eq!((n, total), (28, 1028));
    assert_eq!(out[9], 17);
    assert_eq!(be16(&out[24..]), 1008);
    assert_eq!(checksum(&out[..20]), 0);
    assert!(transport_sum_ok(&out[..n], total));
}

proptest! {
    /// With the default 40-byte headers every packet's length in the file is the engine's
    /// size, sequence numbers are the offsets plus ISN + 1 modulo 2^32, and both checksums
    /// hold.
    #[test]
    fn lengths_sequence_numbers_and_checksums(
        isn in any::<u32>(), seq in 0u64..(1 << 40), len in 1u32..9000, ts in any::<bool>(), sack in any::<bool>(),
        blocks in 0u8..4, ack in 0u64..(1 << 40), now in 0u64..(1 << 45),
    ) {
        let w = wire([isn, isn ^ 0x5555_5555], ts, sack, false, None);
        let overhead = 40 + if ts { 12 } else { 0 };
        let mut p = data(seq, len, now, now / 2);
        p.size = overhead + len;
        let mut out = [0u8; MAX_HEADER];
        let (n, total) = encode(&w, &p, &mut out);
        prop_assert_eq!(total, p.size);
        prop_assert_eq!(be32(&out[24..]), isn.wrapping_add(1).wrapping_add(seq as u32));
        prop_assert_eq!(checksum(&out[..20]), 0);
        prop_assert!(transport_sum_ok(&out[..n], total));

        let mut a = Packet::new(PacketKind::Ack, 0, 2, 0, overhead, now);
        a.ack = ack;
        a.rwnd = ack;
        let max = if ts { 3 } else { 4 };
        if sack {
            a.sack.len = blocks.min(max);
            for i in 0..a.sack.len as usize {
                a.sack.blocks[i] = (ack + 1000 * i as u64, ack + 1000 * i as u64 + 500);
            }
            a.size += a.sack.option_bytes();
        }
        let (n, total) = encode(&w, &a, &mut out);
        prop_assert_eq!(total, a.size);
        prop_assert_eq!(n as u32, a.size);
        prop_assert_eq!(be32(&out[28..]), isn.wrapping_add(1).wrapping_add(ack as u32));
        prop_assert!(transport_sum_ok(&out[..n], total));

        // SYN: the options fill exactly what TcpConfig::syn_size counts.
        let syn_size = overhead + 4 + if sack { 4 } else { 0 };
        let syn = Packet::new(PacketKind::Syn, 0, 0, 2, syn_size, now);
        let (n, total) = encode(&w, &syn, &mut out);
        prop_assert_eq!(total, syn_size);
        prop_assert_eq!(n as u32, syn_size);
    }
}
