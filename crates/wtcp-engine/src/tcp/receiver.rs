//! The TCP receiver: cumulative ACKs, immediate duplicate ACKs for out-of-order data,
//! delayed ACKs (RFC 1122 §4.2.3.2, RFC 5681 §4.2), RFC 7323 timestamp echo, and the
//! advertised window (with a hook for receiver-side algorithms).
//!
//! The application reads in-order data at once, so the advertised window is the receive
//! buffer minus the out-of-order bytes held.
//!
//! Out-of-order data is held in an ordered map of disjoint ranges with a running byte
//! count: a segment costs O(log holes), not a scan or a shift of every range.

use std::collections::BTreeMap;

use wtcp_cc::ReceiverControl;

use super::sack::{SackReporter, MAX_BLOCKS};
use crate::events::{Event, EventQueue, LazyTimer};
use crate::packet::{Packet, PacketKind};
use crate::scenario::{EcnEcho, ReceiveWindow, TcpConfig, TsRecent};
use crate::time::Time;

#[derive(Debug)]
pub struct Receiver {
    flow: u32,
    /// This end (the data's destination) and the peer (the data's source).
    node: u32,
    peer: u32,
    delayed_ack: bool,
    delack_count: u32,
    delack_timeout: Time,
    /// ACKs still to send at once before delaying (`tcp.quick_acks_at_start`).
    quick_acks: u32,
    timestamps: bool,
    overhead: u32,
    buffer: u64,
    /// Whether held out-of-order data shrinks the advertised window (`tcp.receive_window`).
    whole_buffer: bool,
    /// RCV.NXT: every byte below it was delivered in order.
    pub rcv_nxt: u64,
    /// Out-of-order data held: disjoint, non-touching [start, end) ranges keyed by start.
    ooo: BTreeMap<u64, u64>,
    /// Bytes in `ooo` (kept as ranges come and go).
    ooo_bytes: u64,
    /// In-order segments received since the last ACK.
    unacked: u32,
    delack_timer: LazyTimer,
    /// RFC 7323 TS.Recent and Last.ACK.sent.
    ts_recent: Time,
    last_ack_sent: u64,
    /// Which segment's TSval becomes TS.Recent (`tcp.ts_recent`), and for ns-3's rule the
    /// largest TSval seen (m_rcvTimestampValue, whole milliseconds).
    ts_rule: TsRecent,
    ts_max_ms: u64,
    last_arrival: Time,
    /// Payload bytes of every data segment received (duplicates and out-of-order included).
    rx_bytes: u64,
    /// A congestion mark arrived since the last ACK (per-packet echo), or since the last
    /// CWR (latched echo); the last segment's CE state (state-change echo).
    mark_pending: bool,
    ecn_echo: EcnEcho,
    control: Option<Box<dyn ReceiverControl>>,
    /// SACK option state (RFC 2018 / 2883), when SACK is on.
    sack: Option<SackReporter>,
    /// Blocks that fit beside the other options: 4, or 3 with timestamps (RFC 2018 §3).
    sack_blocks: usize,
    /// Bytes of a SYN-ACK.
    syn_size: u32,
}

/// The range of `held` that contains [start, end), if any.
fn held_block(held: &BTreeMap<u64, u64>, start: u64, end: u64) -> Option<(u64, u64)> {
    held.range(..=start).next_back().filter(|&(_, &e)| end <= e).map(|(&s, &e)| (s, e))
}

impl Receiver {
    pub fn new(flow: u32, node: u32, peer: u32, cfg: &TcpConfig, control: Option<Box<dyn ReceiverControl>>) -> Self {
        Receiver {
            flow,
            node,
            peer,
            delayed_ack: cfg.delayed_ack,
            delack_count: cfg.delayed_ack_count,
            delack_timeout: cfg.delayed_ack_timeout,
            quick_acks: cfg.quick_acks_at_start,
            timestamps: cfg.timestamps,
            overhead: cfg.packet_overhead(),
            buffer: cfg.recv_buffer_bytes,
            whole_buffer: cfg.receive_window == ReceiveWindow::WholeBuffer,
            rcv_nxt: 0,
            ooo: BTreeMap::new(),
            ooo_bytes: 0,
            unacked: 0,
            delack_timer: LazyTimer::default(),
            ts_recent: 0,
            last_ack_sent: 0,
            ts_rule: cfg.ts_recent,
            ts_max_ms: 0,
            last_arrival: 0,
            rx_bytes: 0,
            mark_pending: false,
            ecn_echo: cfg.ecn_echo,
            control,
            sack: cfg.sack.then(SackReporter::default),
            sack_blocks: if cfg.timestamps { MAX_BLOCKS - 1 } else { MAX_BLOCKS },
            syn_size: cfg.syn_size(),
        }
    }

    /// A data segment arrived. ACKs to send are pushed to `out`.
    pub fn on_data(&mut self, p: &Packet, now: Time, ev: &mut EventQueue, out: &mut Vec<Packet>) {
        let (start, end) = (p.seq, p.seq + u64::from(p.len));
        // Every byte already received (RFC 2883: report it as a D-SACK).
        let duplicate = self.sack.is_some() && (end <= self.rcv_nxt || self.held_block(start, end).is_some());
        // RFC 8257 §3.2 as Linux's dctcp_ece_ack_update: a change of CE state first
        // acknowledges, with the old state, the segments whose ACK was being delayed, and
        // the segment that changed it is acknowledged at once.
        let mut ack_now = false;
        if self.ecn_echo == EcnEcho::StateChange && p.ce != self.mark_pending {
            if self.unacked > 0 {
                self.send_ack(now, ev, out);
            }
            self.mark_pending = p.ce;
            ack_now = true;
        }
        self.last_arrival = now;
        self.rx_bytes += u64::from(p.len);
        if self.ecn_echo == EcnEcho::Latched && p.cwr {
            self.mark_pending = false;
        }
        if self.ecn_echo != EcnEcho::StateChange {
            self.mark_pending |= p.ce;
        }
        if let Some(c) = self.control.as_mut() {
            // RFC 7323 §3.2: TSecr is meaningful once the sender has seen an ACK (0 before).
            let ts_ecr = (self.timestamps && p.ts_ecr > 0).then_some(p.ts_ecr);
            c.on_segment(p.seq, p.len, now, ts_ecr);
        }
        self.update_ts_recent(start, end, p.ts_val);
        if end <= self.rcv_nxt {
            // Entirely old data: acknowledge at once.
            self.note_sack(start, end, duplicate);
            self.send_ack(now, ev, out);
        } else if start > self.rcv_nxt {
            // Out of order: hold it and send an immediate duplicate ACK (RFC 5681 §4.2).
            self.hold(start, end);
            self.note_sack(start, end, duplicate);
            self.send_ack(now, ev, out);
        } else {
            let filled_gap = !self.ooo.is_empty();
            self.rcv_nxt = end;
            self.pull_in_order();
            self.note_sack(start, end, duplicate);
            self.unacked += 1;
            // A segment that fills (part of) a gap is acknowledged at once; otherwise
            // every delack_count-th segment, or when the delayed-ACK timer fires.
            if filled_gap || ack_now || !self.delayed_ack || self.unacked >= self.delack_count || self.quick_acks > 0 {
                self.send_ack(now, ev, out);
            } else if !self.delack_timer.is_armed() {
                self.delack_timer.set(Some(now + self.delack_timeout), ev, Event::DelAck { flow: self.flow });
            }
        }
    }

    pub fn on_delack_event(&mut self, now: Time, ev: &mut EventQueue, out: &mut Vec<Packet>) {
        if self.delack_timer.fire(now, ev, Event::DelAck { flow: self.flow }) && self.unacked > 0 {
            self.send_ack(now, ev, out);
        }
    }

    /// The held range that contains [start, end), if any.
    fn held_block(&self, start: u64, end: u64) -> Option<(u64, u64)> {
        held_block(&self.ooo, start, end)
    }

    /// Insert [start, end) and merge it with overlapping or touching neighbours.
    fn hold(&mut self, start: u64, end: u64) {
        // The range starting at or before `start`, if it reaches `start`, absorbs the segment.
        let (s, mut e) = match self.ooo.range_mut(..=start).next_back() {
            Some((&ps, pe)) if *pe >= start => {
                if *pe >= end {
                    return; // already held
                }
                self.ooo_bytes += end - *pe;
                *pe = end;
                (ps, end)
            }
            _ => {
                self.ooo.insert(start, end);
                self.ooo_bytes += end - start;
                (start, end)
            }
        };
        // Absorb the ranges that now overlap or touch it from the right.
        let mut merged = false;
        while let Some((&ns, &ne)) = self.ooo.range(s + 1..).next() {
            if ns > e {
                break;
            }
            self.ooo.remove(&ns);
            // [ns, min(e, ne)) was counted in both ranges.
            self.ooo_bytes -= e.min(ne) - ns;
            e = e.max(ne);
            merged = true;
        }
        if merged {
            self.ooo.insert(s, e);
        }
    }

    fn pull_in_order(&mut self) {
        while let Some((&s, &e)) = self.ooo.first_key_value() {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            self.ooo.pop_first();
            self.ooo_bytes -= e - s;
        }
    }

    /// TS.Recent from a data segment [start, end) with `ts_val`, before RCV.NXT moves
    /// (`tcp.ts_recent`).
    fn update_ts_recent(&mut self, start: u64, end: u64, ts_val: Time) {
        match self.ts_rule {
            // RFC 7323 §5.3: R2 rejects a segment outside the window (here: wholly below
            // RCV.NXT, an old duplicate), then R3 "If SEG.TSval >= TS.Recent and SEG.SEQ <=
            // Last.ACK.sent" records its TSval (Linux: tcp_sequence, then
            // tcp_replace_ts_recent).
            TsRecent::Rfc7323 => {
                if ts_val >= self.ts_recent && start <= self.last_ack_sent && end > self.rcv_nxt {
                    self.ts_recent = ts_val;
                }
            }
            // ns-2.35 tcp-sink.cc Acker::update_ts (ts_echo_rfc1323_ false): no window test.
            TsRecent::Ns2 => {
                if ts_val >= self.ts_recent && start <= self.last_ack_sent {
                    self.ts_recent = ts_val;
                }
            }
            // tcp-socket-base.cc:4467-4480: a smaller TSval than any seen is ignored (taken
            // for reordering); the echo moves only for the segment at RCV.NXT.
            TsRecent::Ns3 => {
                let ms = ts_val / 1_000_000;
                if ms < self.ts_max_ms {
                    return;
                }
                self.ts_max_ms = ms;
                if start == self.rcv_nxt && start <= self.last_ack_sent {
                    self.ts_recent = ts_val;
                }
            }
        }
    }

    /// A SYN arrived: answer with a SYN-ACK (again for a retransmitted SYN).
    pub fn on_syn(&mut self, p: &Packet, now: Time, out: &mut Vec<Packet>) {
        let mut a = Packet::new(PacketKind::SynAck, self.flow, self.node, self.peer, self.syn_size, now);
        if self.timestamps {
            a.ts_val = now;
            a.ts_ecr = p.ts_val;
        }
        a.rwnd = self.buffer;
        out.push(a);
    }

    /// Fold an arrival into the SACK blocks (after `ooo` and RCV.NXT took it in).
    fn note_sack(&mut self, start: u64, end: u64, duplicate: bool) {
        if let Some(s) = self.sack.as_mut() {
            let ooo = &self.ooo;
            s.on_segment_in(start, end, |s, e| held_block(ooo, s, e), self.rcv_nxt, duplicate);
        }
    }

    fn send_ack(&mut self, now: Time, ev: &mut EventQueue, out: &mut Vec<Packet>) {
        self.unacked = 0;
        self.quick_acks = self.quick_acks.saturating_sub(1);
        self.delack_timer.set(None, ev, Event::DelAck { flow: self.flow });
        let free = if self.whole_buffer { self.buffer } else { self.buffer.saturating_sub(self.ooo_bytes) };
        let (rwnd, adv_cwnd) = match self.control.as_mut() {
            Some(c) => (c.advertised_window(free, now), c.advertised_cwnd().unwrap_or(0)),
            None => (free, 0),
        };
        let mut a = Packet::new(PacketKind::Ack, self.flow, self.node, self.peer, self.overhead, now);
        a.ack = self.rcv_nxt;
        a.rwnd = rwnd;
        a.adv_cwnd = adv_cwnd;
        a.ece = match self.ecn_echo {
            EcnEcho::PerPacket => std::mem::take(&mut self.mark_pending),
            EcnEcho::Latched | EcnEcho::StateChange => self.mark_pending,
        };
        if self.timestamps {
            a.ts_val = now;
            a.ts_ecr = self.ts_recent;
            a.rx_arrival = self.last_arrival;
            a.rx_bytes = self.rx_bytes;
        }
        if let Some(s) = self.sack.as_mut() {
            a.sack = s.report(self.sack_blocks);
            a.size += a.sack.option_bytes();
        }
        self.last_ack_sent = self.rcv_nxt;
        out.push(a);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;

    /// The (cumulative ACK, ECE) of each ACK the receiver sends for in-order segments of
    /// 1000 bytes carrying the given CE marks, with delayed ACKs every second segment.
    fn acks(echo: EcnEcho, marks: &[bool]) -> Vec<(u64, bool)> {
        let cfg = TcpConfig { ecn: true, ecn_echo: echo, ..TcpConfig::default() };
        let mut r = Receiver::new(0, 1, 0, &cfg, None);
        let (mut ev, mut out) = (EventQueue::default(), Vec::new());
        for (i, &ce) in marks.iter().enumerate() {
            let mut p = Packet::new(PacketKind::Data, 0, 0, 1, 1040, 0);
            p.seq = i as u64 * 1000;
            p.len = 1000;
            p.ect = true;
            p.ce = ce;
            r.on_data(&p, i as Time * 1000, &mut ev, &mut out);
        }
        out.iter().map(|a| (a.ack, a.ece)).collect()
    }

    #[test]
    fn the_state_change_echo_acks_at_once_when_the_mark_changes() {
        // RFC 8257 §3.2 (Linux dctcp_ece_ack_update), with an ACK every second segment:
        // 0-1 unmarked fill an ACK; 2 (marked) changes the state and is acknowledged at
        // once; 3 waits for a partner; 4 (unmarked) changes it back: 3 is acknowledged
        // with its (marked) echo, then 4 at once; 5-6 (unmarked) fill an ACK. Every ACK
        // covers segments of one state.
        let got = acks(EcnEcho::StateChange, &[false, false, true, true, false, false, false]);
        assert_eq!(got, vec![(2000, false), (3000, true), (4000, true), (5000, false), (7000, false)]);
    }

    /// The (cumulative ACK, advertised window) of each ACK for 1000-byte segments arriving
    /// in the order given (segment indices), with delayed ACKs every second segment.
    fn acks_of(cfg: &TcpConfig, order: &[u64]) -> Vec<(u64, u64)> {
        let mut r = Receiver::new(0, 1, 0, cfg, None);
        let (mut ev, mut out) = (EventQueue::default(), Vec::new());
        for (i, &k) in order.iter().enumerate() {
            let mut p = Packet::new(PacketKind::Data, 0, 0, 1, 1040, 0);
            p.seq = k * 1000;
            p.len = 1000;
            r.on_data(&p, i as Time * 1000, &mut ev, &mut out);
        }
        out.iter().map(|a| (a.ack, a.rwnd)).collect()
    }

    #[test]
    fn ns3_acknowledges_the_first_segment_at_once_then_every_second() {
        // RFC 5681 §4.2: an ACK for every second segment from the first.
        let rfc = acks_of(&TcpConfig::default(), &[0, 1, 2, 3, 4]);
        assert_eq!(rfc.iter().map(|a| a.0).collect::<Vec<_>>(), vec![2000, 4000]);
        // ns-3 (tcp-socket-base.cc:2445-2447): the first in-order segment at once, so the
        // pairs that follow are (1, 2) and (3, 4).
        let ns3 = TcpConfig { quick_acks_at_start: 1, ..TcpConfig::default() };
        assert_eq!(acks_of(&ns3, &[0, 1, 2, 3, 4]).iter().map(|a| a.0).collect::<Vec<_>>(), vec![1000, 3000, 5000]);
        // Any ACK sent uses the quick ACK up: a first segment lost makes the duplicate ACK
        // the first ACK, and in-order data after the repair is delayed again.
        let got = acks_of(&ns3, &[1, 0, 2, 3, 4]);
        assert_eq!(got.iter().map(|a| a.0).collect::<Vec<_>>(), vec![0, 2000, 4000]);
    }

    #[test]
    fn out_of_order_data_shrinks_the_free_space_window_but_not_ns3s() {
        let buffer = 10_000;
        let free = TcpConfig { recv_buffer_bytes: buffer, ..TcpConfig::default() };
        // Segment 0 is missing: 1, 2, 3 are held, each answered by a duplicate ACK.
        let got = acks_of(&free, &[1, 2, 3]);
        assert_eq!(got, vec![(0, 9000), (0, 8000), (0, 7000)]);
        let whole = TcpConfig { receive_window: ReceiveWindow::WholeBuffer, ..free };
        assert_eq!(acks_of(&whole, &[1, 2, 3]), vec![(0, buffer), (0, buffer), (0, buffer)]);
    }

    /// The TSecr of each ACK for segments (start, TSval in ms), one ACK per segment.
    fn echoes(rule: TsRecent, segments: &[(u64, Time)]) -> Vec<Time> {
        let cfg = TcpConfig { timestamps: true, delayed_ack: false, ts_recent: rule, ..TcpConfig::default() };
        let mut r = Receiver::new(0, 1, 0, &cfg, None);
        let (mut ev, mut out) = (EventQueue::default(), Vec::new());
        for &(start, ts_ms) in segments {
            let mut p = Packet::new(PacketKind::Data, 0, 0, 1, 1052, 0);
            p.seq = start * 1000;
            p.len = 1000;
            p.ts_val = ts_ms * 1_000_000;
            r.on_data(&p, ts_ms * 1_000_000 + 5_000_000, &mut ev, &mut out);
        }
        out.iter().map(|a| a.ts_ecr / 1_000_000).collect()
    }

    #[test]
    fn ns3_echoes_only_the_segment_at_rcv_nxt_where_rfc7323_takes_old_duplicates_too() {
        // Segments 0 and 1 in order (TSval 10, 20); segment 0 again (a needless resend,
        // TSval 30); segment 3 out of order (TSval 40); segment 2, the hole (TSval 35).
        let segs = [(0, 10), (1, 20), (0, 30), (3, 40), (2, 35)];
        // RFC 7323 §5.3: the duplicate lies wholly below RCV.NXT, outside the window (R2),
        // and the out-of-order 3 starts above Last.ACK.sent: neither moves TS.Recent; the
        // hole (35 >= 20, at the left edge) does.
        assert_eq!(echoes(TsRecent::Rfc7323, &segs), vec![10, 20, 20, 20, 35]);
        // ns-3: the duplicate starts below RCV.NXT: no echo; 40 raises the largest TSval
        // seen, so the hole's 35 is taken for reordering and ignored.
        assert_eq!(echoes(TsRecent::Ns3, &segs), vec![10, 20, 20, 20, 20]);
        // ns-2: the duplicate (30 >= 20, at or below the last ACK sent) moves the echo.
        assert_eq!(echoes(TsRecent::Ns2, &segs), vec![10, 20, 30, 30, 35]);
    }

    #[test]
    fn rfc7323_keeps_ts_recent_from_moving_back() {
        // Segment 0 (TSval 30) sets TS.Recent; segment 2 (25) is held out of order;
        // segment 1 with an older TSval (15, a delayed original) fills the left edge: R3's
        // SEG.TSval >= TS.Recent (30) fails.
        assert_eq!(echoes(TsRecent::Rfc7323, &[(0, 30), (2, 25), (1, 15)]), vec![30, 30, 30]);
    }

    #[test]
    fn the_per_packet_echo_merges_the_marks_of_a_delayed_ack() {
        let got = acks(EcnEcho::PerPacket, &[false, true, false, false]);
        assert_eq!(got, vec![(2000, true), (4000, false)]);
    }
}
