//! The event queue: events ordered by (time, insertion number).
//!
//! Equal times pop in insertion order (FIFO tie-break), so a run is a pure function of
//! its input. Events are a small `Copy` enum; nothing is boxed. Timers are cancelled
//! lazily by their owners (a stale event finds its generation or deadline changed).
//!
//! Two forms of one order. While few events are pending (a handful per link direction
//! and flow timer in small scenarios), they sit in a vector sorted latest first: the
//! next event is popped off its end, and a new one, usually among the soonest, is placed
//! by a short scan from that end. With many pending (hundreds of flows), two binary
//! heaps: events due within [`FAR_NS`] (packets' transmissions and arrivals) and the
//! rest (mostly flows' retransmission and delayed-ACK timers, a thousand of them at a
//! thousand flows), so that the packets' events sift through a small heap; the next
//! event is the earlier of the two heaps' first. The queue switches form at [`TO_HEAP`]
//! and back at [`TO_SORTED`] pending events. Every form yields the exact minimum of
//! (time, insertion number), so the order of events, and every result, is the same
//! whichever form holds them and whichever heap an event went to.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::time::Time;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A link direction finished serialising the packet it was sending.
    TxDone { dir: u32 },
    /// The first packet in a link direction's pipe reaches the far end.
    PipeArrive { dir: u32 },
    /// A flow's retransmission timer may have expired.
    Rto { flow: u32 },
    /// A paced flow may send its next segment.
    Pace { flow: u32 },
    /// A flow's RACK reordering timer may have expired (RFC 8985 §6.2 step 5).
    Rack { flow: u32 },
    /// A flow's delayed-ACK timer may have expired.
    DelAck { flow: u32 },
    /// A flow's application starts, stops, or switches on/off.
    AppStart { flow: u32 },
    AppStop { flow: u32 },
    AppToggle { flow: u32, on: bool },
    /// A CBR source sends its next packet.
    CbrSend { flow: u32 },
    /// An outage of a link direction begins or ends.
    Outage { dir: u32, begin: bool },
    /// The next random outage of a link direction begins.
    RandomOutage { dir: u32 },
    /// A delay spike begins (`extra` > 0) or ends (`extra` = 0).
    DelaySpike { dir: u32, extra: Time },
    /// The MAC gave up on a frame carrying the segment at `seq` of `flow` (cross-layer hint).
    MacHint { flow: u32, seq: u64 },
    /// A timer or transmission milestone of station `station` on 802.11 channel
    /// `channel` (`kind`: see `wifi::kind`).
    Wifi { channel: u32, station: u32, kind: u8 },
    /// Start and end of the measurement window.
    MeasureStart,
    MeasureEnd,
    /// Periodic trace sample.
    TraceSample,
}

/// A heap entry; `key` packs (time, insertion number) so one integer comparison orders it.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    event: Event,
}

impl Entry {
    fn time(&self) -> Time {
        (self.key >> 64) as Time
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest (time, seq) first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// Pending events past which the sorted vector becomes a heap (a placement's scan and
/// shift grow with the count, a heap's sift with its logarithm).
pub const TO_HEAP: usize = 64;
/// Pending events below which the heap becomes a sorted vector again (well below
/// [`TO_HEAP`], so that a count hovering near one bound does not switch at every event).
pub const TO_SORTED: usize = 16;

/// In heap form, events more than this far ahead of the last popped one (timers: RTO,
/// delayed ACK) go to a second heap, so that the heap the packets' events cycle through
/// stays small (2^24 ns: 16.8 ms).
pub const FAR_NS: Time = 1 << 24;

#[derive(Debug)]
pub struct EventQueue {
    /// In use while `in_heap` is false: sorted by key, latest first (the next event last).
    sorted: Vec<Entry>,
    /// In use while `in_heap` is true: events scheduled within [`FAR_NS`] of `now`, and
    /// the others. The queue's next event is the earlier of the two heaps' first.
    near: BinaryHeap<Entry>,
    far: BinaryHeap<Entry>,
    in_heap: bool,
    /// In heap form, the time of the last event popped (the reference of [`FAR_NS`]).
    now: Time,
    next_seq: u64,
    popped: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl EventQueue {
    /// Bytes one pending event takes in the heap (for the resource estimate).
    pub const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();
    pub fn with_capacity(n: usize) -> Self {
        EventQueue { sorted: Vec::with_capacity(n.min(TO_HEAP + 1)), near: BinaryHeap::new(), far: BinaryHeap::new(), in_heap: false, now: 0, next_seq: 0, popped: 0 }
    }

    pub fn schedule(&mut self, time: Time, event: Event) {
        let entry = Entry { key: (u128::from(time) << 64) | u128::from(self.next_seq), event };
        self.next_seq += 1;
        if self.in_heap {
            self.to_heaps(entry);
        } else {
            self.place(entry);
        }
    }

    fn to_heaps(&mut self, entry: Entry) {
        if entry.time().saturating_sub(self.now) > FAR_NS {
            self.far.push(entry);
        } else {
            self.near.push(entry);
        }
    }

    /// Put `entry` in the sorted vector: after (in pop order) every entry of its time or
    /// earlier, as its insertion number is the largest yet.
    fn place(&mut self, entry: Entry) {
        let v = &mut self.sorted;
        let time = entry.time();
        // Insertion sort's step: scan from the end and move each passed entry up by one.
        v.push(entry);
        let mut i = v.len() - 1;
        while i > 0 && v[i - 1].time() <= time {
            v[i] = v[i - 1];
            i -= 1;
        }
        v[i] = entry;
        if v.len() > TO_HEAP {
            self.to_heap();
        }
    }

    #[cold]
    #[inline(never)]
    fn to_heap(&mut self) {
        // The sorted form does not keep the time; its soonest event stands in for it.
        self.now = self.sorted.last().map_or(0, Entry::time);
        let mut sorted = std::mem::take(&mut self.sorted);
        for e in sorted.drain(..) {
            self.to_heaps(e);
        }
        self.sorted = sorted;
        self.in_heap = true;
    }

    #[cold]
    #[inline(never)]
    fn to_sorted(&mut self) {
        self.sorted.extend(self.near.drain().chain(self.far.drain()));
        self.sorted.sort_unstable_by(|a, b| b.key.cmp(&a.key));
        self.in_heap = false;
    }

    /// The next event at or before `until`, if any.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, Event)> {
        if self.in_heap {
            return self.pop_heaps(until);
        }
        if self.sorted.last()?.time() > until {
            return None;
        }
        let e = self.sorted.pop()?;
        self.popped += 1;
        Some((e.time(), e.event))
    }

    /// [`EventQueue::pop_until`] in heap form; out of line, so that the loop that pops
    /// carries only the sorted form's few instructions (measured: 4-8 % of the small
    /// scenarios' loop CPU when both heaps' pops were inlined there).
    #[inline(never)]
    fn pop_heaps(&mut self, until: Time) -> Option<(Time, Event)> {
        let far_first = match (self.near.peek(), self.far.peek()) {
            (Some(n), Some(f)) => f.key < n.key,
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (None, None) => return None,
        };
        let heap = if far_first { &mut self.far } else { &mut self.near };
        if heap.peek()?.time() > until {
            return None;
        }
        let e = heap.pop()?;
        self.now = e.time();
        if self.near.len() + self.far.len() < TO_SORTED {
            self.to_sorted();
        }
        self.popped += 1;
        Some((e.time(), e.event))
    }

    /// When the next event is due (None: nothing pending). For a caller that waits in
    /// real time between events (the Linux engine's relay).
    pub fn next_time(&self) -> Option<Time> {
        if self.in_heap {
            let n = self.near.peek().map(Entry::time);
            let f = self.far.peek().map(Entry::time);
            return n.into_iter().chain(f).min();
        }
        self.sorted.last().map(Entry::time)
    }

    /// Events processed so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.sorted.len() + self.near.len() + self.far.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earlier_times_first_and_ties_in_insertion_order() {
        let mut q = EventQueue::default();
        q.schedule(5, Event::Rto { flow: 1 });
        q.schedule(3, Event::Rto { flow: 2 });
        q.schedule(5, Event::Rto { flow: 3 });
        q.schedule(5, Event::Rto { flow: 4 });
        let order: Vec<Event> = std::iter::from_fn(|| q.pop_until(10).map(|(_, e)| e)).collect();
        assert_eq!(order, vec![Event::Rto { flow: 2 }, Event::Rto { flow: 1 }, Event::Rto { flow: 3 }, Event::Rto { flow: 4 }]);
    }

    #[test]
    fn nothing_past_the_horizon() {
        let mut q = EventQueue::default();
        q.schedule(11, Event::MeasureEnd);
        assert!(q.pop_until(10).is_none());
        assert_eq!(q.len(), 1);
    }
}

/// A one-shot timer with lazy cancellation: at most one live event per timer.
///
/// Re-arming to a later deadline only moves the deadline; the pending event, when it
/// fires early, re-schedules itself for the deadline. Re-arming earlier schedules a new
/// event and the old one is recognised as stale when it fires.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LazyTimer {
    deadline: Option<Time>,
    event_at: Option<Time>,
}

impl LazyTimer {
    pub fn deadline(&self) -> Option<Time> {
        self.deadline
    }

    pub fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }

    /// Arm for `at`, or stop with `None`.
    pub fn set(&mut self, at: Option<Time>, ev: &mut EventQueue, event: Event) {
        self.deadline = at;
        if let Some(d) = at {
            if self.event_at.is_none_or(|t| t > d) {
                ev.schedule(d, event);
                self.event_at = Some(d);
            }
        }
    }

    /// Called when the timer's event fires at `now`: true if the timer expires now.
    pub fn fire(&mut self, now: Time, ev: &mut EventQueue, event: Event) -> bool {
        if self.event_at != Some(now) {
            return false; // stale: superseded by an earlier event
        }
        self.event_at = None;
        match self.deadline {
            None => false,
            Some(d) if d > now => {
                ev.schedule(d, event);
                self.event_at = Some(d);
                false
            }
            Some(_) => {
                self.deadline = None;
                true
            }
        }
    }
}

#[cfg(test)]
mod timer_tests {
    use super::*;

    fn run(q: &mut EventQueue, t: &mut LazyTimer) -> Vec<Time> {
        let mut fired = Vec::new();
        while let Some((now, e)) = q.pop_until(u64::MAX) {
            if t.fire(now, q, e) {
                fired.push(now);
            }
        }
        fired
    }

    #[test]
    fn pushing_the_deadline_later_fires_once_at_the_new_time() {
        let mut q = EventQueue::default();
        let mut t = LazyTimer::default();
        let e = Event::Rto { flow: 0 };
        t.set(Some(10), &mut q, e);
        t.set(Some(25), &mut q, e);
        assert_eq!(q.len(), 1);
        assert_eq!(run(&mut q, &mut t), vec![25]);
    }

    #[test]
    fn pulling_the_deadline_earlier_fires_at_the_earlier_time_only() {
        let mut q = EventQueue::default();
        let mut t = LazyTimer::default();
        let e = Event::Rto { flow: 0 };
        t.set(Some(30), &mut q, e);
        t.set(Some(5), &mut q, e);
        assert_eq!(run(&mut q, &mut t), vec![5]);
    }

    #[test]
    fn a_stopped_timer_does_not_fire() {
        let mut q = EventQueue::default();
        let mut t = LazyTimer::default();
        let e = Event::Rto { flow: 0 };
        t.set(Some(30), &mut q, e);
        t.set(None, &mut q, e);
        assert!(run(&mut q, &mut t).is_empty());
    }
}
