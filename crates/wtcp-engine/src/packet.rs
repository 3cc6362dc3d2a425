//! Packets: small `Copy` records with no payload, kept in a pool and named by index.
//!
//! Queues and pipes hold `PacketId`s; a freed slot is reused, so after warm-up the hot
//! path allocates nothing.

use crate::tcp::sack::SackBlocks;
use crate::time::Time;

pub type PacketId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    /// A TCP segment carrying data.
    Data,
    /// A pure TCP acknowledgement.
    Ack,
    /// A UDP datagram (CBR traffic).
    Udp,
    /// The connection request (RFC 793 SYN), sender to receiver, when the handshake is on.
    Syn,
    /// The receiver's SYN-ACK.
    SynAck,
    /// The sender's pure ACK of the SYN-ACK, the handshake's third segment
    /// (`tcp.handshake_ack`); the receiver only consumes it.
    HandshakeAck,
}

impl PacketKind {
    /// The name in traces.
    pub fn as_str(self) -> &'static str {
        match self {
            PacketKind::Data => "data",
            PacketKind::Ack => "ack",
            PacketKind::Udp => "udp",
            PacketKind::Syn => "syn",
            PacketKind::SynAck => "syn_ack",
            PacketKind::HandshakeAck => "handshake_ack",
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub kind: PacketKind,
    /// Index of the flow the packet belongs to.
    pub flow: u32,
    pub src: u32,
    pub dst: u32,
    /// Bytes at the IP layer (payload + IP/TCP or IP/UDP headers + options).
    pub size: u32,
    /// Data: first payload byte. UDP: datagram number.
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// Which transmission of this segment the packet is (1 = original).
    pub tx_no: u32,
    /// ACK: cumulative acknowledgement number.
    pub ack: u64,
    /// ACK: advertised receive window in bytes.
    pub rwnd: u64,
    /// Timestamps option: TSval (sender time) / TSecr (echo). Data: ts_val is the send time.
    pub ts_val: Time,
    pub ts_ecr: Time,
    /// ACK: arrival time at the receiver of the data segment that triggered it.
    pub rx_arrival: Time,
    /// ACK: payload bytes of all data segments the receiver has received (running count).
    pub rx_bytes: u64,
    /// ACK: a congestion window the receiver's algorithm advertises, bytes (0: none).
    pub adv_cwnd: u64,
    /// ACK: the SACK option's blocks (RFC 2018; empty without SACK).
    pub sack: SackBlocks,
    /// ECN-capable transport (RFC 3168 ECT): a RED queue may mark instead of drop.
    pub ect: bool,
    /// Congestion mark set by a router (ECN CE / congestion warning).
    pub ce: bool,
    /// Data: the sender has reduced its window after an ECN echo (RFC 3168 CWR).
    pub cwr: bool,
    /// ACK: echo of a congestion mark.
    pub ece: bool,
    /// When the packet was created (for one-way delay of UDP).
    pub created: Time,
    /// When it entered the queue of the link direction it is on (set by the link).
    pub enqueued: Time,
}

impl Packet {
    pub fn new(kind: PacketKind, flow: u32, src: u32, dst: u32, size: u32, now: Time) -> Packet {
        Packet {
            kind,
            flow,
            src,
            dst,
            size,
            seq: 0,
            len: 0,
            tx_no: 0,
            ack: 0,
            rwnd: 0,
            ts_val: 0,
            ts_ecr: 0,
            rx_arrival: 0,
            rx_bytes: 0,
            adv_cwnd: 0,
            sack: SackBlocks::default(),
            ect: false,
            ce: false,
            cwr: false,
            ece: false,
            created: now,
            enqueued: now,
        }
    }
}

/// A free-list pool of packets.
#[derive(Debug, Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<PacketId>,
}

impl PacketPool {
    pub fn alloc(&mut self, p: &Packet) -> PacketId {
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = *p;
            id
        } else {
            self.slots.push(*p);
            (self.slots.len() - 1) as PacketId
        }
    }

    pub fn free(&mut self, id: PacketId) {
        self.free.push(id);
    }

    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id as usize]
    }

    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    /// Slots ever allocated: the high-water mark of packets alive at once.
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }

    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}
