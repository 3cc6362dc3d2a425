//! A timing wheel for the event queue's distant events (flows' retransmission and
//! delayed-ACK timers): O(1) to add, and released a slot at a time, in time order of the
//! slots, into the queue's heap, which orders them exactly (Varghese & Lauck's scheme 6,
//! one level, with a heap for what lies beyond its span, as htsim keeps its timers out of
//! the main heap). Written by hand: the crates that offer wheels round deadlines to their
//! slots, and the queue needs every event at its exact time and insertion number.
//!
//! Slots are [`SLOT_NS`] wide and the wheel spans [`SLOTS`] of them from `base`, the first
//! slot not yet released; an event due past the span waits in `beyond` until the span
//! reaches it. An event due in a slot already released is refused (the caller keeps it).

use std::collections::BinaryHeap;

use crate::time::Time;

/// log2 of a slot's width in ns (2^18 ns = 262 us).
const SLOT_SHIFT: u32 = 18;
pub const SLOT_NS: Time = 1 << SLOT_SHIFT;
/// Slots in the span (16384 slots of 262 us: 4.3 s).
pub const SLOTS: u64 = 1 << 14;

/// What the wheel holds: anything with a due time.
pub trait Due {
    fn due(&self) -> Time;
}

#[derive(Debug)]
pub struct Wheel<T> {
    slots: Vec<Vec<T>>,
    /// The first slot (absolute number: time >> SLOT_SHIFT) not yet released.
    base: u64,
    /// Events in `slots`.
    in_slots: usize,
    /// Events due at or past slot `base + SLOTS`, soonest first.
    beyond: BinaryHeap<T>,
}

impl<T: Due + Ord> Default for Wheel<T> {
    fn default() -> Self {
        Wheel { slots: Vec::new(), base: 0, in_slots: 0, beyond: BinaryHeap::new() }
    }
}

impl<T: Due + Ord> Wheel<T> {
    pub fn len(&self) -> usize {
        self.in_slots + self.beyond.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Add `e`, or give it back if its slot was already released.
    pub fn push(&mut self, e: T) -> Result<(), T> {
        let slot = e.due() >> SLOT_SHIFT;
        if slot < self.base {
            return Err(e);
        }
        if slot - self.base >= SLOTS {
            self.beyond.push(e);
        } else {
            self.put(e);
        }
        Ok(())
    }

    /// Release the next slot that holds events, if it starts at or before `limit`: its
    /// events go to `out` (in no particular order). False when there is none so soon.
    #[inline]
    pub fn release_next(&mut self, limit: Time, mut out: impl FnMut(T)) -> bool {
        loop {
            if self.in_slots == 0 {
                // Nothing in the span: move it to the first event beyond, if that is due.
                let Some(first) = self.beyond.peek() else { return false };
                if first.due() > limit {
                    return false;
                }
                self.base = self.base.max(first.due() >> SLOT_SHIFT);
                self.refill();
                continue;
            }
            if self.base << SLOT_SHIFT > limit {
                return false;
            }
            let slot = &mut self.slots[(self.base % SLOTS) as usize];
            self.base += 1;
            let n = slot.len();
            for e in slot.drain(..) {
                out(e);
            }
            self.in_slots -= n;
            self.refill();
            if n > 0 {
                return true;
            }
        }
    }

    /// Move the events beyond that the span now reaches into their slots (every one is
    /// due at or after `base`: the span moves one slot at a time, or jumps to the first).
    fn refill(&mut self) {
        while self.beyond.peek().is_some_and(|first| first.due() >> SLOT_SHIFT < self.base + SLOTS) {
            let Some(e) = self.beyond.pop() else { return };
            self.put(e);
        }
    }

    fn put(&mut self, e: T) {
        if self.slots.is_empty() {
            self.slots.resize_with(SLOTS as usize, Vec::new);
        }
        self.slots[((e.due() >> SLOT_SHIFT) % SLOTS) as usize].push(e);
        self.in_slots += 1;
    }

    /// The earliest due time held (a scan of the first slot that holds events).
    pub fn first_due(&self) -> Option<Time> {
        let in_span = (self.in_slots > 0).then(|| {
            (0..SLOTS).map(|k| &self.slots[((self.base + k) % SLOTS) as usize]).find(|s| !s.is_empty()).and_then(|s| s.iter().map(Due::due).min())
        });
        in_span.flatten().or_else(|| self.beyond.peek().map(Due::due))
    }

    /// Everything held, emptied (the wheel keeps its slots' memory).
    pub fn drain_all(&mut self, mut out: impl FnMut(T)) {
        for s in &mut self.slots {
            for e in s.drain(..) {
                out(e);
            }
        }
        for e in self.beyond.drain() {
            out(e);
        }
        self.in_slots = 0;
    }

    /// Start again from time `now` (after [`Wheel::drain_all`]).
    pub fn reset(&mut self, now: Time) {
        debug_assert!(self.is_empty());
        self.base = now >> SLOT_SHIFT;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
    struct E(std::cmp::Reverse<Time>);
    impl Due for E {
        fn due(&self) -> Time {
            self.0 .0
        }
    }
    fn e(t: Time) -> E {
        E(std::cmp::Reverse(t))
    }

    fn release_all(w: &mut Wheel<E>) -> Vec<Vec<Time>> {
        let mut out = Vec::new();
        loop {
            let mut slot = Vec::new();
            if !w.release_next(Time::MAX, |x| slot.push(x.due())) {
                return out;
            }
            slot.sort_unstable();
            out.push(slot);
        }
    }

    #[test]
    fn slots_come_out_in_time_order_and_the_far_ones_after_the_span() {
        let mut w = Wheel::default();
        let far = SLOTS * SLOT_NS * 3 + 5;
        for t in [far, 3 * SLOT_NS + 1, 3 * SLOT_NS, 10, far - 1, 2 * SLOT_NS] {
            w.push(e(t)).unwrap();
        }
        assert_eq!(w.len(), 6);
        assert_eq!(w.first_due(), Some(10));
        assert_eq!(release_all(&mut w), vec![vec![10], vec![2 * SLOT_NS], vec![3 * SLOT_NS, 3 * SLOT_NS + 1], vec![far - 1, far]]);
        assert!(w.is_empty());
    }

    #[test]
    fn nothing_is_released_before_its_slot_starts_and_a_released_slot_refuses() {
        let mut w = Wheel::default();
        w.push(e(5 * SLOT_NS + 7)).unwrap();
        assert!(!w.release_next(5 * SLOT_NS - 1, |_| panic!("too early")));
        let mut got = Vec::new();
        assert!(w.release_next(5 * SLOT_NS, |x| got.push(x.due())));
        assert_eq!(got, vec![5 * SLOT_NS + 7]);
        assert_eq!(w.push(e(5 * SLOT_NS + 9)), Err(e(5 * SLOT_NS + 9)));
        assert_eq!(w.push(e(6 * SLOT_NS)), Ok(()));
    }

    #[test]
    fn the_end_of_time_fits() {
        let mut w = Wheel::default();
        w.push(e(Time::MAX)).unwrap();
        w.push(e(1)).unwrap();
        assert_eq!(release_all(&mut w), vec![vec![1], vec![Time::MAX]]);
    }
}
