//! The real-time relay: the scenario's network between the kernel's sockets.
//!
//! mahimahi's design (a TUN device per host, a process that timestamps, queues and
//! releases each IP packet) with wtcp's own link models: the relay holds the scenario's
//! link directions (`wtcp_engine::net::build`, the simulator's code: queue disciplines,
//! transmitters at the rate or a capacity trace, propagation pipes, loss models, outages,
//! delay spikes, each with the simulator's random stream) and runs their events on the
//! wall clock. A packet read from an endpoint's TUN device enters the network at its
//! host's node at the time it was read; a packet that reaches the node of its destination
//! address is written to that endpoint's TUN device. Between events the relay sleeps in
//! `ppoll` until the next event or a packet, with a 1 ns timer slack.
//!
//! Buffers: one per packet slot of the pool, reused; after warm-up nothing is allocated
//! per packet.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};

use wtcp_engine::events::{Event, EventQueue};
use wtcp_engine::net::build::{link_dirs, schedule_link_events, OutageGen};
use wtcp_engine::net::link::TxOutcome;
use wtcp_engine::net::routing::Hop;
use wtcp_engine::net::{DropCause, LinkDir};
use wtcp_engine::packet::{Packet, PacketId, PacketKind, PacketPool};
use wtcp_engine::time::Time;
use wtcp_engine::{Scenario, Traces};

use crate::clock::Clock;

/// A host of the emulated network: a namespace's TUN device at a scenario node.
#[derive(Debug)]
pub struct Endpoint {
    pub node: u32,
    /// The flow it belongs to (FQ-CoDel's flow key, drop records).
    pub flow: u32,
    pub tun: OwnedFd,
}

/// The address of endpoint `e` (10.77.0.0/16, hosts from 1).
pub fn endpoint_addr(e: usize) -> [u8; 4] {
    let h = e as u32 + 1;
    [10, 77, (h >> 8) as u8, (h & 0xff) as u8]
}

/// The endpoint an address names, if it is one of ours.
fn endpoint_of(addr: &[u8]) -> Option<usize> {
    (addr[0] == 10 && addr[1] == 77).then(|| ((usize::from(addr[2]) << 8) | usize::from(addr[3])).wrapping_sub(1))
}

/// What the relay counted besides the links' own statistics.
#[derive(Clone, Debug, Default)]
pub struct RelayStats {
    pub packets_in: u64,
    pub packets_out: u64,
    /// Packets not IPv4 or not addressed to an endpoint (dropped at once).
    pub foreign: u64,
    /// Writes the destination's TUN device refused.
    pub write_errors: u64,
    /// The largest lateness of an event, ns (the relay's timing error).
    pub max_late_ns: u64,
    /// Per flow: IP bytes of data its source's first link finished sending inside the
    /// measurement window (the simulator's throughput: what the source's own queue
    /// refused never left the host).
    pub put_on_wire: Vec<u64>,
    /// Events run, and those run more than 0.1 ms and 1 ms after their time.
    pub events: u64,
    pub late_100us: u64,
    pub late_1ms: u64,
}

pub struct Relay<'s> {
    sc: &'s Scenario,
    pub dirs: Vec<LinkDir>,
    gens: Vec<Option<OutageGen>>,
    ev: EventQueue,
    pool: PacketPool,
    bufs: Vec<Vec<u8>>,
    /// Destination endpoint of each packet slot.
    dst_ep: Vec<u32>,
    endpoints: Vec<Endpoint>,
    now: Time,
    pub stats: RelayStats,
    /// Queue samples and drops, when the scenario traces (`trace::empty`'s tables).
    pub traces: Option<Traces>,
}

impl<'s> Relay<'s> {
    pub fn new(sc: &'s Scenario, endpoints: Vec<Endpoint>) -> Self {
        let (dirs, gens) = link_dirs(sc);
        let traces = sc.trace_interval.map(|_| crate::trace::empty(Vec::new()));
        let stats = RelayStats { put_on_wire: vec![0; sc.flows.len()], ..RelayStats::default() };
        Relay { sc, dirs, gens, ev: EventQueue::with_capacity(256), pool: PacketPool::default(), bufs: Vec::new(), dst_ep: Vec::new(), endpoints, now: 0, stats, traces }
    }

    /// Run until `end` on `clock` (or until `stop`).
    pub fn run(&mut self, clock: &Clock, end: Time, stop: &AtomicBool) -> io::Result<()> {
        // SAFETY: prctl on this thread only: wake from ppoll within 1 ns of the deadline
        // asked (the default slack is 50 us).
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
        crate::clock::realtime_priority();
        schedule_link_events(self.sc, &mut self.ev, &mut self.gens);
        if self.traces.is_some() {
            self.ev.schedule(0, Event::TraceSample);
        }
        let mut pfds: Vec<libc::pollfd> = self.endpoints.iter().map(|e| libc::pollfd { fd: e.tun.as_raw_fd(), events: libc::POLLIN, revents: 0 }).collect();
        let mut scratch = vec![0u8; 65536];
        loop {
            let now = clock.now();
            self.run_due(now);
            if now >= end || stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            let next = self.ev.next_time().unwrap_or(end).min(end).min(now + 10_000_000);
            let wait = next.saturating_sub(clock.now());
            let ts = libc::timespec { tv_sec: (wait / 1_000_000_000) as libc::time_t, tv_nsec: (wait % 1_000_000_000) as libc::c_long };
            // SAFETY: pfds is a valid array of pollfd for its length.
            let n = unsafe { libc::ppoll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, &ts, std::ptr::null()) };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            if n == 0 {
                continue;
            }
            let now = clock.now();
            self.run_due(now);
            for (e, pfd) in pfds.iter_mut().enumerate() {
                if pfd.revents & libc::POLLIN != 0 {
                    self.read_all(e, now, &mut scratch);
                }
                pfd.revents = 0;
            }
        }
    }

    /// Every event due by `now`, at its own time.
    fn run_due(&mut self, now: Time) {
        while let Some((t, e)) = self.ev.pop_until(now) {
            let late = now - t;
            self.stats.max_late_ns = self.stats.max_late_ns.max(late);
            self.stats.events += 1;
            self.stats.late_100us += u64::from(late > 100_000);
            self.stats.late_1ms += u64::from(late > 1_000_000);
            self.now = t;
            self.handle(e);
        }
        self.now = self.now.max(now);
    }

    fn read_all(&mut self, e: usize, now: Time, scratch: &mut [u8]) {
        let fd = self.endpoints[e].tun.as_raw_fd();
        loop {
            // SAFETY: scratch is a valid writable buffer of its length.
            let n = unsafe { libc::read(fd, scratch.as_mut_ptr().cast(), scratch.len()) };
            if n <= 0 {
                return;
            }
            self.stats.packets_in += 1;
            self.inject(e, &scratch[..n as usize], now);
        }
    }

    /// A packet from endpoint `from`'s host enters the network at its node.
    fn inject(&mut self, from: usize, bytes: &[u8], now: Time) {
        let Some((p, dst)) = classify(bytes, &self.endpoints, from, now) else {
            self.stats.foreign += 1;
            return;
        };
        let id = self.pool.alloc(&p);
        let slot = id as usize;
        if self.bufs.len() <= slot {
            self.bufs.resize_with(slot + 1, || Vec::with_capacity(2048));
            self.dst_ep.resize(slot + 1, 0);
        }
        self.bufs[slot].clear();
        self.bufs[slot].extend_from_slice(bytes);
        self.dst_ep[slot] = dst as u32;
        self.forward(p.src, id);
    }

    fn handle(&mut self, e: Event) {
        match e {
            Event::TxDone { dir } => {
                self.count_put_on_wire(dir);
                let outcome = self.dirs[dir as usize].on_tx_done(&mut self.pool, self.now, &mut self.ev);
                self.free_discipline_drops(dir);
                if let TxOutcome::Dropped { id, cause, .. } = outcome {
                    self.drop(id, dir, cause);
                }
            }
            Event::PipeArrive { dir } => {
                let id = self.dirs[dir as usize].on_pipe_arrive(&mut self.ev);
                let node = self.dirs[dir as usize].to;
                self.forward(node, id);
            }
            Event::Outage { dir, begin } => {
                let d = &mut self.dirs[dir as usize];
                d.outage_depth = if begin { d.outage_depth + 1 } else { d.outage_depth.saturating_sub(1) };
            }
            Event::RandomOutage { dir } => {
                let Some(g) = self.gens[dir as usize].as_mut() else { return };
                let (len, next) = g.draw();
                self.dirs[dir as usize].outage_depth += 1;
                self.ev.schedule(self.now + len, Event::Outage { dir, begin: false });
                self.ev.schedule(self.now.saturating_add(next.max(1)), Event::RandomOutage { dir });
            }
            Event::DelaySpike { dir, extra } => self.dirs[dir as usize].extra_delay = extra,
            Event::TraceSample => self.sample_queues(),
            // The relay schedules no flow, 802.11 or measurement events.
            _ => {}
        }
    }

    fn forward(&mut self, node: u32, id: PacketId) {
        let dst = self.pool.get(id).dst;
        if dst == node {
            self.deliver(id);
            return;
        }
        match self.sc.routes.next_hop_on_route(node as usize, dst as usize) {
            Hop::Link(dir) => {
                if let Err(id) = self.dirs[dir as usize].enqueue(id, &mut self.pool, self.now, &mut self.ev) {
                    self.dirs[dir as usize].count_queue_drop();
                    self.drop(id, dir, DropCause::Queue);
                }
                self.free_discipline_drops(dir);
            }
            // Refused before the run (`plan.rs`): no 802.11 channel reaches the relay.
            Hop::Wifi { .. } => self.pool.free(id),
        }
    }

    fn free_discipline_drops(&mut self, dir: u32) {
        let mut drops = std::mem::take(&mut self.dirs[dir as usize].dequeue_drops);
        for id in drops.drain(..) {
            self.drop(id, dir, DropCause::Queue);
        }
        self.dirs[dir as usize].dequeue_drops = drops;
    }

    /// The simulator's `count_put_on_wire`: a data packet or datagram counts once, when
    /// its source's link finishes its first transmission.
    fn count_put_on_wire(&mut self, dir: u32) {
        let d = &self.dirs[dir as usize];
        let Some(id) = d.first_transmission() else { return };
        let p = self.pool.get(id);
        let window = self.sc.measure_from..self.sc.measure_to;
        if d.from == p.src && matches!(p.kind, PacketKind::Data | PacketKind::Udp) && window.contains(&self.now) {
            self.stats.put_on_wire[p.flow as usize] += u64::from(p.size);
        }
    }

    /// Free a dropped packet's slot, recording it when tracing.
    fn drop(&mut self, id: PacketId, dir: u32, cause: DropCause) {
        let p = *self.pool.get(id);
        self.pool.free(id);
        if let Some(tr) = self.traces.as_mut() {
            tr.push_drop(self.now, dir, &p, cause);
        }
    }

    fn sample_queues(&mut self) {
        let (Some(tr), Some(iv)) = (self.traces.as_mut(), self.sc.trace_interval) else { return };
        for d in &self.dirs {
            tr.push_queue(self.now, d);
        }
        self.ev.schedule(self.now + iv, Event::TraceSample);
    }

    /// Write the packet to its destination endpoint's TUN device.
    fn deliver(&mut self, id: PacketId) {
        let slot = id as usize;
        let p = *self.pool.get(id);
        self.pool.free(id);
        let buf = &mut self.bufs[slot];
        if p.ce && p.ect {
            mark_ce(buf);
        }
        let fd = self.endpoints[self.dst_ep[slot] as usize].tun.as_raw_fd();
        // SAFETY: buf is a valid readable buffer of its length.
        let n = unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) };
        if n < 0 {
            self.stats.write_errors += 1;
        } else {
            self.stats.packets_out += 1;
        }
    }
}

/// wtcp's record of an IPv4 packet read from endpoint `from`, and its destination
/// endpoint; None for anything else (IPv6, an address not ours).
fn classify(b: &[u8], endpoints: &[Endpoint], from: usize, now: Time) -> Option<(Packet, usize)> {
    if b.len() < 20 || b[0] >> 4 != 4 {
        return None;
    }
    let dst = endpoint_of(&b[16..20]).filter(|&e| e < endpoints.len())?;
    let ihl = usize::from(b[0] & 0x0f) * 4;
    let total = usize::from(u16::from_be_bytes([b[2], b[3]])).min(b.len());
    let (kind, seq, len) = match b[9] {
        6 if b.len() >= ihl + 20 => {
            let t = &b[ihl..];
            let doff = usize::from(t[12] >> 4) * 4;
            let payload = total.saturating_sub(ihl + doff);
            let flags = t[13];
            let kind = match (flags & 0x02 != 0, flags & 0x10 != 0) {
                (true, false) => PacketKind::Syn,
                (true, true) => PacketKind::SynAck,
                _ if payload > 0 => PacketKind::Data,
                _ => PacketKind::Ack,
            };
            (kind, u64::from(u32::from_be_bytes([t[4], t[5], t[6], t[7]])), payload as u32)
        }
        17 => (PacketKind::Udp, 0, total.saturating_sub(ihl + 8) as u32),
        // Anything else passes like an ACK (never hit by a data-only loss model).
        _ => (PacketKind::Ack, 0, 0),
    };
    let mut p = Packet::new(kind, endpoints[from].flow, endpoints[from].node, endpoints[dst].node, total as u32, now);
    p.seq = seq;
    p.len = len;
    p.ect = matches!(b[1] & 0x03, 1 | 2);
    Some((p, dst))
}

/// Set the IPv4 ECN field to CE (RFC 3168 §5) and recompute the header checksum.
fn mark_ce(b: &mut [u8]) {
    b[1] |= 0x03;
    let ihl = usize::from(b[0] & 0x0f) * 4;
    b[10] = 0;
    b[11] = 0;
    let mut sum: u32 = b[..ihl].chunks(2).map(|w| u32::from(u16::from_be_bytes([w[0], w[1]]))).sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    let c = !(sum as u16);
    b[10..12].copy_from_slice(&c.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_round_trip() {
        for e in [0, 1, 254, 255, 256, 1000] {
            assert_eq!(endpoint_of(&endpoint_addr(e)), Some(e));
        }
        assert_eq!(endpoint_of(&[192, 168, 0, 1]), None);
    }

    #[test]
    fn ce_mark_keeps_the_header_checksum_valid() {
        // An IPv4 header (20 bytes) with ECT(0), checksum computed the same way.
        let mut h = vec![0x45, 0x02, 0, 40, 0, 0, 0x40, 0, 64, 6, 0, 0, 10, 77, 0, 1, 10, 77, 0, 2];
        mark_ce(&mut h);
        assert_eq!(h[1] & 3, 3);
        let sum: u32 = h.chunks(2).map(|w| u32::from(u16::from_be_bytes([w[0], w[1]]))).sum();
        let folded = (sum & 0xffff) + (sum >> 16);
        assert_eq!(folded as u16, 0xffff, "a valid header sums to all ones");
    }
}
