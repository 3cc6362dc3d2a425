//! The receiver's SACK option (RFC 2018 §4) with D-SACK (RFC 2883 §4).
//!
//! RFC 2018 §4: "The first SACK block MUST specify the contiguous block of data containing
//! the segment which triggered this ACK", and the following blocks repeat "the most
//! recently reported SACK blocks" that are not subsets of a block already included.
//! RFC 2883 §4: a duplicate segment is reported in the first block of the next ACK; when
//! it lies inside received out-of-order data, the second block is that data's block.
//! The option holds 4 blocks (40 option bytes), 3 with the timestamps option (RFC 2018 §3).

use super::scoreboard::Block;

/// Most SACK blocks one ACK can carry (no other option).
pub const MAX_BLOCKS: usize = 4;

/// The blocks of one ACK, first block first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    pub blocks: [Block; MAX_BLOCKS],
    pub len: u8,
    /// The first block is a D-SACK.
    pub dsack: bool,
}

impl SackBlocks {
    pub fn as_slice(&self) -> &[Block] {
        &self.blocks[..self.len as usize]
    }

    fn push(&mut self, b: Block) {
        self.blocks[self.len as usize] = b;
        self.len += 1;
    }

    /// Option bytes on the wire: kind, length and 8 bytes per block, padded to 4 bytes
    /// with two NOPs (RFC 2018 §3), 0 without blocks.
    pub fn option_bytes(&self) -> u32 {
        if self.len == 0 {
            0
        } else {
            2 + 8 * u32::from(self.len) + 2
        }
    }
}

/// What the receiver remembers between ACKs to order its blocks.
#[derive(Clone, Debug, Default)]
pub struct SackReporter {
    /// Blocks in the order they were last reported, most recent first.
    recent: Vec<Block>,
    /// A duplicate segment to report in the next ACK (RFC 2883).
    dsack: Option<Block>,
}

impl SackReporter {
    /// A segment `[start, end)` arrived. `held` is the receiver's out-of-order data after
    /// the segment was taken in, `rcv_nxt` its cumulative point, and `duplicate` whether
    /// every byte of the segment had already been received.
    pub fn on_segment(&mut self, start: u64, end: u64, held: &[Block], rcv_nxt: u64, duplicate: bool) {
        self.on_segment_in(start, end, |s, e| held.iter().find(|&&(hs, he)| hs <= s && e <= he).copied(), rcv_nxt, duplicate);
    }

    /// [`Self::on_segment`] with the held data given as a lookup: `containing(s, e)` is the
    /// held block that contains `[s, e)`, if any (the receiver answers it in O(log holes)).
    pub fn on_segment_in(&mut self, start: u64, end: u64, containing: impl Fn(u64, u64) -> Option<Block>, rcv_nxt: u64, duplicate: bool) {
        if duplicate {
            self.dsack = Some((start, end));
        }
        // The block now holding the segment goes first (RFC 2018 §4).
        if let Some(b) = containing(start, end) {
            self.recent.retain(|&(s, e)| !(b.0 <= s && e <= b.1));
            self.recent.insert(0, b);
        }
        self.refresh(containing, rcv_nxt);
    }

    /// Drop blocks now covered by the cumulative ACK and widen blocks that merged, in
    /// place (at most MAX_BLOCKS + 1 entries; no allocation per segment).
    fn refresh(&mut self, containing: impl Fn(u64, u64) -> Option<Block>, rcv_nxt: u64) {
        let mut n = 0;
        for i in 0..self.recent.len() {
            let (s, e) = self.recent[i];
            if e <= rcv_nxt {
                continue;
            }
            let Some(b) = containing(s, e) else { continue };
            if !self.recent[..n].contains(&b) {
                self.recent[n] = b;
                n += 1;
            }
        }
        self.recent.truncate(n.min(MAX_BLOCKS));
    }

    /// The blocks for the next ACK, at most `max_blocks`; a pending D-SACK goes first and
    /// is reported once.
    pub fn report(&mut self, max_blocks: usize) -> SackBlocks {
        let mut out = SackBlocks::default();
        let max = max_blocks.min(MAX_BLOCKS);
        if max == 0 {
            return out;
        }
        if let Some(d) = self.dsack.take() {
            out.dsack = true;
            out.push(d);
            // RFC 2883 §4 (2): if the duplicate lies inside a SACKed block, that block next.
            if let Some(&b) = self.recent.iter().find(|&&(s, e)| s <= d.0 && d.1 <= e) {
                if (out.len as usize) < max {
                    out.push(b);
                }
            }
        }
        for &b in &self.recent {
            if out.len as usize >= max {
                break;
            }
            if !out.as_slice()[usize::from(out.dsack)..].contains(&b) {
                out.push(b);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replays arrivals through a minimal receiver (held ranges, RCV.NXT) and returns the
    /// blocks of the ACK each arrival triggers.
    struct Rx {
        held: Vec<Block>,
        rcv_nxt: u64,
        sack: SackReporter,
    }

    impl Rx {
        fn new() -> Self {
            Rx { held: Vec::new(), rcv_nxt: 0, sack: SackReporter::default() }
        }

        fn arrive(&mut self, start: u64, end: u64, max: usize) -> Vec<Block> {
            let duplicate = end <= self.rcv_nxt || self.held.iter().any(|&(s, e)| s <= start && end <= e);
            if start <= self.rcv_nxt {
                self.rcv_nxt = self.rcv_nxt.max(end);
            } else {
                let mut set = super::super::scoreboard::RangeSet::default();
                for &(s, e) in &self.held {
                    set.insert(s, e);
                }
                set.insert(start, end);
                self.held = set.ranges().to_vec();
            }
            while let Some(&(s, e)) = self.held.first() {
                if s > self.rcv_nxt {
                    break;
                }
                self.rcv_nxt = self.rcv_nxt.max(e);
                self.held.remove(0);
            }
            self.sack.on_segment(start, end, &self.held, self.rcv_nxt, duplicate);
            self.sack.report(max).as_slice().to_vec()
        }
    }

    /// RFC 2018 §4 (the example with segments 5000..9000 of 500 bytes, 5000 received,
    /// 5500 lost, then 6000, 7000, 8000 ... as in "Case 3" of §5, 8 segments of 500 bytes).
    #[test]
    fn the_first_block_holds_the_newest_segment_and_older_blocks_follow() {
        let mut rx = Rx::new();
        rx.rcv_nxt = 5000;
        // 5000..5500 arrives in order; 5500 lost; 6000 arrives.
        assert_eq!(rx.arrive(5000, 5500, 4), vec![]);
        assert_eq!(rx.arrive(6000, 6500, 4), vec![(6000, 6500)]);
        // 6500 lost; 7000 arrives: its block first, the older one after.
        assert_eq!(rx.arrive(7000, 7500, 4), vec![(7000, 7500), (6000, 6500)]);
        // 7500 lost; 8000 arrives.
        assert_eq!(rx.arrive(8000, 8500, 4), vec![(8000, 8500), (7000, 7500), (6000, 6500)]);
        // 6500 (a retransmission) fills one hole: 6000..7500 is one block now, first.
        assert_eq!(rx.arrive(6500, 7000, 4), vec![(6000, 7500), (8000, 8500)]);
        // 5500 fills the first hole: RCV.NXT jumps to 7500; 8000..8500 remains.
        assert_eq!(rx.arrive(5500, 6000, 4), vec![(8000, 8500)]);
        assert_eq!(rx.rcv_nxt, 7500);
    }

    #[test]
    fn with_timestamps_at_most_three_blocks_fit() {
        let mut rx = Rx::new();
        for i in 0..5 {
            rx.arrive(1000 + 2000 * i, 2000 + 2000 * i, 3);
        }
        let b = rx.arrive(11_000, 12_000, 3);
        assert_eq!(b, vec![(11_000, 12_000), (9000, 10_000), (7000, 8000)]);
        assert_eq!(SackBlocks { len: 3, ..Default::default() }.option_bytes(), 28);
    }

    /// RFC 2883 §4.1.1: a duplicate of data below the cumulative ACK is the first block.
    #[test]
    fn a_duplicate_below_the_ack_is_reported_once_as_dsack() {
        let mut rx = Rx::new();
        rx.arrive(0, 1000, 4);
        rx.arrive(1000, 2000, 4);
        assert_eq!(rx.arrive(0, 1000, 4), vec![(0, 1000)]);
        assert!(!rx.sack.report(4).dsack, "reported once");
    }

    /// RFC 2883 §4.1.3: a duplicate of out-of-order data: D-SACK block, then its block.
    #[test]
    fn a_duplicate_of_held_data_is_followed_by_its_block() {
        let mut rx = Rx::new();
        rx.arrive(2000, 3000, 4);
        rx.arrive(4000, 5000, 4);
        let b = rx.arrive(2000, 3000, 4);
        assert_eq!(b, vec![(2000, 3000), (2000, 3000), (4000, 5000)]);
    }
}
