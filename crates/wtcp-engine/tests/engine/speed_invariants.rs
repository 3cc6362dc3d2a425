//! Invariants of the hot-path data structures: the receiver's reorder buffer (bytes
//! delivered once and in order, a running count of held bytes, RFC 2018 / RFC 2883 SACK
//! blocks built from the held ranges) and the event queue's FIFO tie-break.

use proptest::prelude::*;
use wtcp_engine::events::{Event, EventQueue, FAR_NS, TO_HEAP};
use wtcp_engine::packet::{Packet, PacketKind};
use wtcp_engine::scenario::TcpConfig;
use wtcp_engine::tcp::sack::SackReporter;
use wtcp_engine::tcp::Receiver;

const STREAM: u64 = 600;
const BUFFER: u64 = 1 << 20;

/// Maximal runs of received bytes above the first missing byte, and that byte.
fn model(received: &[bool]) -> (u64, Vec<(u64, u64)>) {
    let rcv_nxt = received.iter().position(|&r| !r).unwrap_or(received.len()) as u64;
    let mut held = Vec::new();
    let mut i = rcv_nxt as usize;
    while i < received.len() {
        if received[i] {
            let s = i;
            while i < received.len() && received[i] {
                i += 1;
            }
            held.push((s as u64, i as u64));
        } else {
            i += 1;
        }
    }
    (rcv_nxt, held)
}

/// Remove and return the model's next event: earliest time, then earliest scheduled.
fn pop_model(model: &mut Vec<(u64, u32)>) -> (u64, u32) {
    let i = (0..model.len()).min_by_key(|&i| (model[i].0, i)).expect("the model holds an event");
    model.remove(i)
}

fn segments() -> impl Strategy<Value = Vec<(u64, u64)>> {
    prop::collection::vec((0..STREAM, 1..80u64), 1..120).prop_map(|v| v.into_iter().map(|(s, l)| (s, (s + l).min(STREAM))).collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Every arrival, in any order and with duplicates and overlaps: the ACK carries the
    /// first byte not yet received (so bytes are delivered once, in order), the window is
    /// the buffer minus exactly the bytes held above it, and the SACK blocks equal those of
    /// the reference reporter run over the held ranges of a byte-by-byte model: a D-SACK
    /// first for data already received, then held ranges, the newest segment's first.
    #[test]
    fn reorder_buffer_delivers_in_order_and_reports_its_ranges(segs in segments(), timestamps in any::<bool>()) {
        let cfg = TcpConfig { sack: true, delayed_ack: false, timestamps, recv_buffer_bytes: BUFFER, ..TcpConfig::default() };
        let mut rx = Receiver::new(0, 1, 0, &cfg, None);
        let mut q = EventQueue::default();
        let mut received = vec![false; STREAM as usize];
        let mut reference = SackReporter::default();
        let mut last_ack = 0;
        for (now, &(start, end)) in segs.iter().enumerate() {
            let (rcv_nxt_before, _) = model(&received);
            let duplicate = (start..end).all(|b| received[b as usize]);
            for b in start..end {
                received[b as usize] = true;
            }
            let (rcv_nxt, held) = model(&received);
            let mut p = Packet::new(PacketKind::Data, 0, 0, 1, 1040, now as u64);
            p.seq = start;
            p.len = (end - start) as u32;
            let mut out = Vec::new();
            rx.on_data(&p, now as u64 + 1, &mut q, &mut out);
            prop_assert_eq!(out.len(), 1, "no delayed ACKs: one ACK per segment");
            let a = &out[0];
            prop_assert_eq!(a.ack, rcv_nxt);
            prop_assert_eq!(rx.rcv_nxt, rcv_nxt);
            prop_assert!(a.ack >= last_ack && a.ack >= rcv_nxt_before);
            last_ack = a.ack;
            let held_bytes: u64 = held.iter().map(|(s, e)| e - s).sum();
            prop_assert_eq!(a.rwnd, BUFFER - held_bytes);
            reference.on_segment(start, end, &held, rcv_nxt, duplicate);
            let want = reference.report(if timestamps { 3 } else { 4 });
            prop_assert_eq!(a.sack, want);
            prop_assert_eq!(a.sack.dsack, duplicate);
            for b in &a.sack.as_slice()[usize::from(a.sack.dsack)..] {
                prop_assert!(held.contains(b), "block {:?} is not a held range {:?}", b, held);
            }
            if start > rcv_nxt_before && !duplicate {
                let first = a.sack.as_slice()[usize::from(a.sack.dsack)];
                prop_assert!(first.0 <= start && end <= first.1, "RFC 2018 §4: the first block holds the segment");
            }
        }
    }

    /// Events at equal times pop in the order they were scheduled, whatever the
    /// interleaving of pushes and pops; earlier times pop first.
    #[test]
    fn equal_times_pop_in_insertion_order(ops in prop::collection::vec((0..20u64, any::<bool>()), 1..2000)) {
        let mut q = EventQueue::default();
        let mut model: Vec<(u64, u32)> = Vec::new();
        let mut now = 0;
        for (n, &(dt, pop)) in ops.iter().enumerate() {
            if pop && !model.is_empty() {
                let (t, e) = q.pop_until(u64::MAX).unwrap();
                let i = (0..model.len()).min_by_key(|&i| (model[i].0, i)).unwrap();
                let (mt, mf) = model.remove(i);
                prop_assert_eq!((t, e), (mt, Event::Rto { flow: mf }));
                now = t;
            } else {
                q.schedule(now + dt, Event::Rto { flow: n as u32 });
                model.push((now + dt, n as u32));
            }
        }
        while let Some((t, e)) = q.pop_until(u64::MAX) {
            let i = (0..model.len()).min_by_key(|&i| (model[i].0, i)).unwrap();
            let (mt, mf) = model.remove(i);
            prop_assert_eq!((t, e), (mt, Event::Rto { flow: mf }));
        }
        prop_assert!(model.is_empty());
    }

    /// The same order while bursts of events carry the queue across both of its forms
    /// (a sorted vector below `TO_SORTED`, two heaps above `TO_HEAP`) and back, many
    /// times, with times from equal to far apart (up to 1.2 s, past `FAR_NS`, so that both
    /// heaps hold events).
    #[test]
    fn order_holds_across_the_queues_two_forms(bursts in prop::collection::vec((0..3 * TO_HEAP, 0..3 * TO_HEAP, 0..9u32), 1..40)) {
        let mut q = EventQueue::default();
        let mut model: Vec<(u64, u32)> = Vec::new();
        let (mut now, mut n) = (0u64, 0u32);
        for &(pushes, pops, scale) in &bursts {
            for i in 0..pushes {
                let t = now + (i as u64 * 7919 % 13) * 10u64.pow(scale);
                q.schedule(t, Event::Rto { flow: n });
                model.push((t, n));
                n += 1;
            }
            for _ in 0..pops.min(model.len()) {
                let (t, e) = q.pop_until(u64::MAX).unwrap();
                let i = (0..model.len()).min_by_key(|&i| (model[i].0, i)).unwrap();
                let (mt, mf) = model.remove(i);
                prop_assert_eq!((t, e), (mt, Event::Rto { flow: mf }));
                now = t;
            }
            prop_assert_eq!(q.len(), model.len());
        }
    }

    /// `pop_until` yields the next event exactly when it is due by `until`, and nothing
    /// otherwise (the event stays), with delays around `FAR_NS` and up to the end of time,
    /// from a start at 0, mid-range or just below `u64::MAX`; length and emptiness agree
    /// with the model after every operation.
    #[test]
    fn pop_until_yields_exactly_the_due_events(
        base in prop_oneof![Just(0u64), Just(u64::MAX - (1u64 << 40)), 0..u64::MAX / 2],
        bursts in prop::collection::vec((0..3 * TO_HEAP, 0..3 * TO_HEAP, prop::collection::vec(prop_oneof![0..3u64, (FAR_NS - 2)..(FAR_NS + 3), 0..(1u64 << 30), Just(u64::MAX)], 1..8), 0..4usize), 1..30),
    ) {
        let mut q = EventQueue::default();
        let mut model: Vec<(u64, u32)> = Vec::new();
        let (mut now, mut n) = (base, 0u32);
        for (pushes, pops, delays, horizon) in &bursts {
            for i in 0..*pushes {
                let t = now.saturating_add(delays[i % delays.len()]);
                q.schedule(t, Event::Rto { flow: n });
                model.push((t, n));
                n += 1;
            }
            prop_assert_eq!(q.len(), model.len());
            for j in 0..*pops {
                let until = match (horizon + j) % 4 {
                    0 => u64::MAX,
                    1 => now,
                    2 => now.saturating_add(FAR_NS),
                    _ => now.saturating_add(delays[j % delays.len()]),
                };
                let got = q.pop_until(until);
                match model.iter().map(|m| m.0).min() {
                    Some(due) if due <= until => {
                        let (t, f) = pop_model(&mut model);
                        prop_assert_eq!(got, Some((t, Event::Rto { flow: f })));
                        now = t;
                    }
                    _ => prop_assert_eq!(got, None),
                }
                prop_assert_eq!(q.len(), model.len());
                prop_assert_eq!(q.is_empty(), model.is_empty());
            }
        }
        while let Some((t, e)) = q.pop_until(u64::MAX) {
            let (mt, mf) = pop_model(&mut model);
            prop_assert_eq!((t, e), (mt, Event::Rto { flow: mf }));
        }
        prop_assert!(model.is_empty());
    }
}

/// Two events at one time in the two heaps (the first scheduled far ahead, the second
/// once that time came near): the first scheduled pops first.
#[test]
fn a_tie_between_the_two_heaps_goes_to_the_first_scheduled() {
    let mut q = EventQueue::default();
    for i in 0..=TO_HEAP as u32 {
        q.schedule(10 + u64::from(i), Event::Rto { flow: 1000 + i }); // into heap form
    }
    let t = 10 + FAR_NS + 100;
    q.schedule(t, Event::Rto { flow: 0 }); // far from the last popped time (none yet: 10)
    for i in 0..40 {
        q.schedule(t - 1000, Event::Rto { flow: 2000 + i });
    }
    for _ in 0..TO_HEAP + 2 {
        q.pop_until(u64::MAX).unwrap(); // now t - 1000, 40 pending: still heaps
    }
    for i in 0..20 {
        q.schedule(t, Event::Rto { flow: 200 + i }); // near, at the far event's time
    }
    let mut at_t = Vec::new();
    while let Some((when, e)) = q.pop_until(u64::MAX) {
        if when == t {
            at_t.push(e);
        }
    }
    let want: Vec<Event> = std::iter::once(0).chain(200..220).map(|flow| Event::Rto { flow }).collect();
    assert_eq!(at_t, want);
}
