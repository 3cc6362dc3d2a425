//! Minstrel-HT rate control, as Linux's `net/mac80211/rc80211_minstrel_ht.c` and
//! `rc80211_minstrel_ht.h` (v6.18) describe it: one [`MinstrelHt`] per (sender, peer), a
//! pure state machine fed the outcome of every data PPDU and asked for the rates of the next.
//!
//! What it does (function names are the kernel's):
//! - **Groups.** Rates sit in Linux's 42 groups (HT 0-15: bandwidth, guard interval,
//!   1-4 streams; CCK 16; OFDM 17; VHT 18-41), ten rates each, named `group << 4 | mcs`
//!   (`MI_RATE`). Each rate's airtime is that of 16 MPDUs of 1200 octets, divided by 16
//!   (`MCS_DURATION`), in ns, kept `>> shift` as the kernel's u16 table does.
//! - **Statistics** (`minstrel_ht_update_stats`, every 50 ms: `update_interval = HZ / 20`):
//!   each rate's success ratio of the interval feeds a second-order low-pass filter
//!   (`minstrel_filter_avg_add`, period 16, 12-bit fixed point); a rate never tried takes
//!   the best probability of the faster rates of its group. Throughput
//!   (`minstrel_ht_get_tp_avg`) is the probability, capped at 90 % and 0 below 10 %, over
//!   the rate's airtime plus the per-frame overhead shared by the average A-MPDU length (an
//!   EWMA, weight 96/128). The four best throughputs (`max_tp_rate`, ties to the higher
//!   probability) and the best rate by probability (`max_prob_rate`, by throughput among
//!   those above 75 %; then replaced by the best-throughput `max_group_prob_rate` of a
//!   group with fewer streams than `max_tp_rate[0]`'s, if there is one) are chosen.
//! - **Retry chain** (`minstrel_ht_update_rates`): `max_tp_rate[0..3]` then
//!   `max_prob_rate`, each tried as often as fits a 6 ms segment (`minstrel_calc_retransmit`:
//!   CW 15..1023, 9 us slots, at most 7 tries, 6 in effect; 2 below 20 % success);
//!   fallbacks (entries after the first) are protected by RTS/CTS and use the RTS count
//!   (`minstrel_ht_set_rate`).
//! - **Sampling** (`minstrel_ht_get_rate`): at most every 20 ms (`MINSTREL_SAMPLE_INTERVAL =
//!   HZ / 50`) and at once after each statistics update, a frame goes once at a sample rate
//!   taken in the order INC, JUMP, INC, JUMP, INC, SLOW from three lists refilled at every
//!   update (`minstrel_ht_refill_sample_rates`): INC, per group the slowest rate faster than
//!   `max_tp_rate[0]`; JUMP, random rates (a 10 x 10 table of permutations, drawn once,
//!   `init_sample_table`) faster than the fastest chosen rate; SLOW, those between the
//!   fastest and the slowest chosen rate that succeed at most 95 %. The probe takes slot 0 of
//!   the chain and the rest of the table follows from slot 1 (`rate_control_fill_sta_table`,
//!   net/mac80211/rate.c).
//! - **Sudden death** (`minstrel_ht_tx_status`): a `max_tp_rate[0]` or `[1]` with more than
//!   30 attempts in the interval and under 25 % success is replaced at once by the next lower
//!   group's (with no more streams) `max_group_tp_rate[0]` (for `[1]`: its `[1]`).
//!
//! Deviations and ambiguities resolved:
//! - Time is the simulation's nanoseconds, not jiffies: the 50 ms and 20 ms intervals are
//!   exact (`time_after`: strictly later; a sample is due at `now >= sample_time`). In the
//!   kernel they are whole jiffies (at HZ = 250, `HZ / 20` is 12 jiffies, 48 ms).
//! - How the MAC meets it (`channel.rs`): a transmission sequence is the tries of one PPDU
//!   until a response; the MAC walks the chain one entry count at a time on failed tries,
//!   and a retry within the sequence resends the same MPDUs, as hardware multi-rate retry
//!   does; the sequence is reported when it ends (`tx_status`: per rate, attempts += MPDUs
//!   sent; the MPDUs the last PPDU's Block Ack or ACK acknowledged are its rate's
//!   successes), so sudden death and the 50 ms check see what the kernel's status report
//!   shows. A try whose RTS got no CTS moves the chain but is no attempt at the data rate
//!   (no data went); the kernel's accounting there depends on the driver.
//! - A probe goes alone, one MPDU (ath9k `ath_lookup_rate`: "if rate selected is a probe
//!   rate then avoid aggregation of this packet"). Any PPDU that begins a sequence may be
//!   the probe, a retransmission too, where the kernel decides per MPDU at dequeue.
//! - A-MPDUs are sized by the MAC's limits at the rate of each try (the standard's 5484 us
//!   PPDU and 65 535 octets), not by ath9k's 4 ms at the slowest rate of the chain; a retry
//!   at a slower fallback may then carry fewer of the MPDUs, and the sums above differ from
//!   the kernel's `count * ampdu_len` by those.
//! - The MAC's retry limits (802.11's, per MPDU) still end a frame, and they cut the chain
//!   short: with counts 2/2/2/2 an MPDU that keeps failing reaches `max_prob_rate` once
//!   under the short limit of 7; a lone frame with counts of 5-6 may never reach it, and an
//!   RTS-protected fallback's data failures count against the long limit (4). ath9k walks
//!   the whole chain and retries aggregated MPDUs in software up to 30 times. A chain used
//!   up before the limit starts a new sequence (a driver's software retry; ath9k does that
//!   for aggregated MPDUs only).
//! - The legacy groups (CCK, OFDM) are not offered: 802.11n/ac stations at 5 GHz
//!   (`minstrel_ht_update_ofdm` skips HT stations; CCK is 2.4 GHz only). The groups are the
//!   channel's: 802.11n one stream, 802.11ac 1..=`spatial_streams`; long GI, and short GI
//!   where the channel has it; every width up to the channel's. (ath9k is an 802.11n
//!   driver: the 802.11ac case applies the same rules to VHT groups, as the kernel does.)
//! - A frame the channel's `rts_threshold` protects keeps entry 0's plain count, where the
//!   kernel takes `count_rts` for every slot of an RTS frame (`rate_control_fill_sta_table`).
//! - A Block Ack acknowledging an MPDU that arrived in an earlier PPDU of the sequence (its
//!   Block Ack lost) counts it as a success of the last rate, as the kernel reads the bitmap.
//! - Counters are u32/u64 where the kernel's `attempts`/`success` are u16.
//! - A-MSDU limits (`minstrel_ht_get_max_amsdu_len`), STBC/LDPC flags, SMPS and the debugfs
//!   fixed rate are not modelled.

use crate::rng::SimRng;
use crate::time::Time;
use rand::Rng;

/// Groups in Linux's table (`MINSTREL_GROUPS_NB`) and rates per group (`MCS_GROUP_RATES`).
pub const GROUPS: usize = 42;
pub const RATES: usize = 10;
const MAX_STREAMS: usize = 4;
const HT_GROUP_0: usize = 0;
const VHT_GROUP_0: usize = 18;
/// `MAX_THR_RATES`; `MINSTREL_SAMPLE_RATES`; `SAMPLE_COLUMNS`.
const MAX_THR_RATES: usize = 4;
const SAMPLE_RATES: usize = 5;
const SAMPLE_COLUMNS: usize = 10;
/// `MINSTREL_SCALE`: probabilities are 12-bit fixed point.
const SCALE: u32 = 12;
const EWMA_LEVEL: i64 = 96;
const EWMA_DIV: i64 = 128;
/// The filter's coefficients (`MINSTREL_AVG_COEFF1..3`).
const COEFF2: i32 = 0x1499;
const COEFF3: i32 = -0x92e;
const COEFF1: i32 = (1 << SCALE) - COEFF2 - COEFF3;
/// `update_interval = HZ / 20` and `MINSTREL_SAMPLE_INTERVAL = HZ / 50`, in ns.
pub const UPDATE_INTERVAL: Time = 50_000_000;
pub const SAMPLE_INTERVAL: Time = 20_000_000;
/// `minstrel_ht_alloc`: CW 15..1023, a 6000 us segment per chain entry, at most 7 tries
/// (the kernel's default when the driver states no `max_rate_tries`; ath9k states 10, to
/// no effect: the segment's contention alone, 67 + 139 + 283 + 571 + 1147 + 2299 us, stops
/// the count at 6); 9 us slots (`minstrel_calc_retransmit`); a four-entry rate table
/// (`IEEE80211_TX_RATE_TABLE_SIZE`).
const CW_MIN: u32 = 15;
const CW_MAX: u32 = 1023;
const SEGMENT_US: u32 = 6000;
const MAX_RETRY: u8 = 7;
const SLOT_US: u32 = 9;
pub const TABLE: usize = 4;
/// `minstrel_sample_seq`.
const SAMPLE_SEQ: [Sample; 6] = [Sample::Inc, Sample::Jump, Sample::Inc, Sample::Jump, Sample::Inc, Sample::Slow];

const fn frac(val: u32, div: u32) -> u32 {
    (val << SCALE) / div
}

const fn trunc(val: u32) -> u32 {
    val >> SCALE
}

/// One of Linux's rate groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Group {
    pub streams: u8,
    pub short_gi: bool,
    pub width_mhz: u16,
    pub vht: bool,
    shift: u32,
    /// `MCS_DURATION >> shift`, as the kernel stores it (u16).
    duration: [u32; RATES],
}

/// Data bits per OFDM symbol and stream of MCS 0-9 at 20/40/80 MHz (`MCS_GROUP`, `VHT_GROUP`).
const BPS: [[u32; RATES]; 3] = [
    [26, 52, 78, 104, 156, 208, 234, 260, 312, 346],
    [54, 108, 162, 216, 324, 432, 486, 540, 648, 720],
    [117, 234, 351, 468, 702, 936, 1053, 1170, 1404, 1560],
];

/// `MCS_DURATION`: ns for 16 x 1200 octets on `streams` at `bps` bits per symbol, over 16.
fn mcs_duration(streams: u32, short_gi: bool, bps: u32) -> u32 {
    let syms = (1200 * 16 * 8_u32).div_ceil(streams * bps);
    let t = if short_gi { (syms * 18_000 + 4_000) / 5 } else { syms * 4_000 };
    t / 16
}

/// The group table, in Linux's order (`minstrel_mcs_groups`); the legacy groups are empty.
pub fn groups() -> &'static [Group; GROUPS] {
    static TABLE: std::sync::OnceLock<[Group; GROUPS]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let empty = Group { streams: 1, short_gi: false, width_mhz: 20, vht: false, shift: 0, duration: [0; RATES] };
        let mut t = [empty; GROUPS];
        let mut make = |g: usize, streams: usize, sgi: bool, bw: usize, vht: bool| {
            let rates = if vht { RATES } else { 8 };
            // GROUP_SHIFT: the bits above 16 of the group's slowest duration.
            let shift = (32 - mcs_duration(streams as u32, sgi, BPS[bw][0]).leading_zeros()).saturating_sub(16);
            let mut duration = [0; RATES];
            for (i, d) in duration.iter_mut().enumerate().take(rates) {
                *d = mcs_duration(streams as u32, sgi, BPS[bw][i]) >> shift;
            }
            t[g] = Group { streams: streams as u8, short_gi: sgi, width_mhz: 20 << bw, vht, shift, duration };
        };
        for bw in 0..2 {
            for sgi in [false, true] {
                for s in 1..=MAX_STREAMS {
                    make(HT_GROUP_0 + MAX_STREAMS * 2 * bw + MAX_STREAMS * usize::from(sgi) + s - 1, s, sgi, bw, false);
                }
            }
        }
        for bw in 0..3 {
            for sgi in [false, true] {
                for s in 1..=MAX_STREAMS {
                    make(VHT_GROUP_0 + MAX_STREAMS * 2 * bw + MAX_STREAMS * usize::from(sgi) + s - 1, s, sgi, bw, true);
                }
            }
        }
        t
    })
}

/// `MI_RATE(group, idx)`.
pub const fn rate(group: usize, idx: usize) -> u16 {
    ((group << 4) | idx) as u16
}

pub const fn group_of(rate: u16) -> usize {
    (rate >> 4) as usize
}

pub const fn idx_of(rate: u16) -> usize {
    (rate & 0xf) as usize
}

/// `minstrel_get_duration`: ns.
pub fn duration(rate: u16) -> u32 {
    let g = &groups()[group_of(rate)];
    g.duration[idx_of(rate)] << g.shift
}

/// Linux's group index of a (VHT or HT) group.
pub fn group_index(vht: bool, streams: u8, short_gi: bool, width_mhz: u16) -> usize {
    let bw = match width_mhz {
        20 => 0,
        40 => 1,
        _ => 2,
    };
    let base = if vht { VHT_GROUP_0 } else { HT_GROUP_0 };
    base + MAX_STREAMS * 2 * bw + MAX_STREAMS * usize::from(short_gi) + usize::from(streams) - 1
}

/// `sample_table`: ten random permutations of the ten rate indices (`init_sample_table`),
/// drawn once per channel from its own stream.
#[derive(Clone, Debug)]
pub struct SampleTable([[u8; RATES]; SAMPLE_COLUMNS]);

impl SampleTable {
    pub fn new(rng: &mut SimRng) -> SampleTable {
        let mut t = [[0xff_u8; RATES]; SAMPLE_COLUMNS];
        for col in &mut t {
            for i in 0..RATES {
                let rnd: u8 = rng.random();
                let mut j = (i + usize::from(rnd)) % RATES;
                while col[j] != 0xff {
                    j = (j + 1) % RATES;
                }
                col[j] = i as u8;
            }
        }
        SampleTable(t)
    }
}

/// One entry of the retry chain: a rate, its tries, and whether RTS/CTS protects it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub rate: u16,
    pub count: u8,
    pub rts: bool,
}

/// The rates of one transmission sequence: the probe, if any, then the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chain {
    pub entries: [Entry; TABLE],
    /// Slot 0 is a probe (`IEEE80211_TX_CTL_RATE_CTRL_PROBE`).
    pub probe: bool,
}

impl Chain {
    /// The entry of the `n`th try (0-based), if the chain still has one.
    pub fn at(&self, mut n: u32) -> Option<Entry> {
        for e in &self.entries {
            if n < u32::from(e.count) {
                return Some(*e);
            }
            n -= u32::from(e.count);
        }
        None
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct RateStats {
    attempts: u32,
    success: u32,
    att_hist: u64,
    succ_hist: u64,
    prob_avg: u16,
    prob_avg_1: u16,
    retry_count: u8,
    retry_count_rtscts: u8,
    retry_updated: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct GroupData {
    index: u8,
    column: u8,
    max_group_tp_rate: [u16; MAX_THR_RATES],
    max_group_prob_rate: u16,
    rates: [RateStats; RATES],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sample {
    Inc = 0,
    Jump = 1,
    Slow = 2,
}

#[derive(Clone, Copy, Debug, Default)]
struct SampleCategory {
    sample_group: u8,
    sample_rates: [u16; SAMPLE_RATES],
}

/// `ieee80211_frame_duration` of an OFDM frame of `len` octets at 6 Mb/s, SIFS included, us.
fn ofdm_frame_us(len: u32) -> u32 {
    16 + 16 + 4 + 4 * ((16 + 8 * (len + 4) + 6) * 10).div_ceil(4 * 60)
}

/// `minstrel_ewma`.
fn ewma(old: u32, new: u32, weight: i64) -> u32 {
    let diff = i64::from(new) - i64::from(old);
    (i64::from(old) + (EWMA_DIV - weight) * diff / EWMA_DIV) as u32
}

/// `minstrel_filter_avg_add`: the next filtered probability; `prev_1`, `prev_2` are the
/// last two outputs.
fn filter_avg_add(prev_1: &mut u16, prev_2: &mut u16, input: u32) -> u16 {
    let input = input.max(1) as i32;
    let out_1 = i32::from(*prev_1);
    let val = if out_1 == 0 {
        *prev_2 = input as u16;
        input
    } else {
        let v = (COEFF1 * input + COEFF2 * out_1 + COEFF3 * i32::from(*prev_2)) >> SCALE;
        *prev_2 = out_1 as u16;
        if v > 1 << SCALE {
            1 << SCALE
        } else if v < 0 {
            1
        } else {
            v
        }
    };
    *prev_1 = val as u16;
    val as u16
}

/// Minstrel-HT's state for one peer (`struct minstrel_ht_sta`).
#[derive(Clone, Debug)]
pub struct MinstrelHt {
    supported: [u16; GROUPS],
    groups: Box<[GroupData; GROUPS]>,
    ampdu_len: u32,
    ampdu_packets: u32,
    avg_ampdu_len: u32,
    max_tp_rate: [u16; MAX_THR_RATES],
    max_prob_rate: u16,
    last_stats_update: Time,
    overhead: u32,
    overhead_rtscts: u32,
    sample_seq: usize,
    sample_time: Time,
    sample: [SampleCategory; 3],
    table: [Entry; TABLE],
}

impl MinstrelHt {
    /// `minstrel_ht_update_caps` for a peer supporting `supported[g]` (bit i: rate i of
    /// group g), at `now`.
    pub fn new(supported: [u16; GROUPS], now: Time, samples: &SampleTable) -> MinstrelHt {
        let ack_us = ofdm_frame_us(10);
        let overhead = ofdm_frame_us(0) + ack_us;
        let mut m = MinstrelHt {
            supported,
            groups: Box::new([GroupData::default(); GROUPS]),
            ampdu_len: 0,
            ampdu_packets: 0,
            avg_ampdu_len: frac(1, 1),
            max_tp_rate: [0; MAX_THR_RATES],
            max_prob_rate: 0,
            last_stats_update: now,
            overhead,
            overhead_rtscts: overhead + 2 * ack_us,
            sample_seq: 0,
            sample_time: 0,
            sample: [SampleCategory::default(); 3],
            table: [Entry { rate: 0, count: 0, rts: false }; TABLE],
        };
        m.update_stats(now, samples);
        m.update_rates();
        m
    }

    fn stats(&self, rate: u16) -> &RateStats {
        &self.groups[group_of(rate)].rates[idx_of(rate)]
    }

    fn stats_mut(&mut self, rate: u16) -> &mut RateStats {
        &mut self.groups[group_of(rate)].rates[idx_of(rate)]
    }

    fn prob(&self, rate: u16) -> u32 {
        u32::from(self.stats(rate).prob_avg)
    }

    /// The chosen rates, best first, and the most reliable one.
    pub fn max_tp_rate(&self) -> [u16; MAX_THR_RATES] {
        self.max_tp_rate
    }

    pub fn max_prob_rate(&self) -> u16 {
        self.max_prob_rate
    }

    /// The filtered success probability of `rate` (0..=1).
    pub fn probability(&self, rate: u16) -> f64 {
        self.prob(rate) as f64 / f64::from(1 << SCALE)
    }

    /// The current rate table (`minstrel_ht_update_rates`).
    pub fn table(&self) -> [Entry; TABLE] {
        self.table
    }

    /// `minstrel_ht_avg_ampdu_len`.
    fn avg_ampdu(&self) -> u32 {
        if self.avg_ampdu_len != 0 {
            return trunc(self.avg_ampdu_len);
        }
        match duration(self.max_tp_rate[0]) {
            d if d > 400_000 => 2,
            d if d > 250_000 => 4,
            d if d > 150_000 => 8,
            _ => 16,
        }
    }

    /// `minstrel_ht_get_tp_avg`: throughput of `rate` at probability `prob` (scaled).
    fn tp_avg(&self, rate: u16, prob: u32) -> u32 {
        if prob < frac(10, 100) {
            return 0;
        }
        // ampdu_len >= 1 (the EWMA of lengths >= 1 from 1).
        let nsecs = 1000 * self.overhead / self.avg_ampdu().max(1) + duration(rate);
        let prob = prob.min(frac(90, 100));
        // (The kernel's int product wraps and is divided as unsigned: the exact quotient.)
        trunc(((u64::from(prob) * 1_000_000 / u64::from(nsecs)) * 100) as u32)
    }

    fn tp_of(&self, rate: u16) -> u32 {
        self.tp_avg(rate, self.prob(rate))
    }

    /// `minstrel_ht_sort_best_tp_rates`: insert `index` into the list sorted by throughput
    /// (ties: higher probability first).
    fn sort_best_tp_rates(&self, index: u16, list: &mut [u16; MAX_THR_RATES]) {
        let cur_prob = self.prob(index);
        let cur_tp = self.tp_avg(index, cur_prob);
        let mut j = MAX_THR_RATES;
        while j > 0 {
            let tmp = list[j - 1];
            let (tmp_prob, tmp_tp) = (self.prob(tmp), self.tp_of(tmp));
            if cur_tp < tmp_tp || (cur_tp == tmp_tp && cur_prob <= tmp_prob) {
                break;
            }
            j -= 1;
        }
        if j < MAX_THR_RATES - 1 {
            list.copy_within(j..MAX_THR_RATES - 1, j + 1);
        }
        if j < MAX_THR_RATES {
            list[j] = index;
        }
    }

    /// `minstrel_ht_set_best_prob_rate`.
    fn set_best_prob_rate(&mut self, dest: &mut u16, index: u16) {
        let g = group_of(index);
        let cur_prob = self.prob(index);
        let tmp_tp = self.tp_of(*dest);
        let tmp_prob = self.prob(*dest);
        let max_tp_prob = self.prob(self.max_tp_rate[0]);
        // Skip rates faster than the max-throughput rate with a lower probability.
        if duration(self.max_tp_rate[0]) > duration(index) && cur_prob < max_tp_prob {
            return;
        }
        let gpr = self.groups[g].max_group_prob_rate;
        let (gpr_prob, gpr_tp) = (self.prob(gpr), self.tp_of(gpr));
        if cur_prob > frac(75, 100) {
            let cur_tp = self.tp_avg(index, cur_prob);
            if cur_tp > tmp_tp {
                *dest = index;
            }
            if cur_tp > gpr_tp {
                self.groups[g].max_group_prob_rate = index;
            }
        } else {
            if cur_prob > tmp_prob {
                *dest = index;
            }
            if cur_prob > gpr_prob {
                self.groups[g].max_group_prob_rate = index;
            }
        }
    }

    /// `minstrel_ht_prob_rate_reduce_streams`.
    fn prob_rate_reduce_streams(&mut self) {
        let max_streams = groups()[group_of(self.max_tp_rate[0])].streams;
        let mut best = 0;
        for g in (0..GROUPS).filter(|&g| self.supported[g] != 0) {
            let r = rate(g, idx_of(self.groups[g].max_group_prob_rate));
            let tp = self.tp_of(r);
            if best < tp && groups()[g].streams < max_streams {
                self.max_prob_rate = self.groups[g].max_group_prob_rate;
                best = tp;
            }
        }
    }

    /// `minstrel_ht_calc_rate_stats`.
    fn calc_rate_stats(mrs: &mut RateStats) {
        if mrs.attempts > 0 {
            let cur = frac(mrs.success, mrs.attempts);
            let (mut p1, mut p2) = (mrs.prob_avg, mrs.prob_avg_1);
            filter_avg_add(&mut p1, &mut p2, cur);
            (mrs.prob_avg, mrs.prob_avg_1) = (p1, p2);
            mrs.att_hist += u64::from(mrs.attempts);
            mrs.succ_hist += u64::from(mrs.success);
        }
        mrs.success = 0;
        mrs.attempts = 0;
    }

    /// `minstrel_ht_update_stats`.
    fn update_stats(&mut self, now: Time, samples: &SampleTable) {
        if self.ampdu_packets > 0 {
            self.avg_ampdu_len = ewma(self.avg_ampdu_len, frac(self.ampdu_len, self.ampdu_packets), EWMA_LEVEL);
            self.ampdu_len = 0;
            self.ampdu_packets = 0;
        }
        let first = if self.supported[VHT_GROUP_0] != 0 { VHT_GROUP_0 } else { HT_GROUP_0 };
        let mut max_prob = rate(first, 0);
        let mut tp_rates = [max_prob; MAX_THR_RATES];
        for g in 0..GROUPS {
            if self.supported[g] == 0 {
                continue;
            }
            let mut group_tp = [rate(g, 0); MAX_THR_RATES];
            let mut last_prob = 0;
            let supported = self.supported[g];
            for i in (0..RATES).rev().filter(|&i| supported & (1 << i) != 0) {
                let index = rate(g, i);
                let mrs = &mut self.groups[g].rates[i];
                mrs.retry_updated = false;
                Self::calc_rate_stats(mrs);
                // A rate never tried is as good as the best faster rate of its group.
                if mrs.att_hist > 0 {
                    last_prob = last_prob.max(mrs.prob_avg);
                } else {
                    mrs.prob_avg = mrs.prob_avg.max(last_prob);
                }
                if self.tp_of(index) == 0 {
                    continue;
                }
                self.sort_best_tp_rates(index, &mut tp_rates);
                self.sort_best_tp_rates(index, &mut group_tp);
            }
            self.groups[g].max_group_tp_rate = group_tp;
        }
        self.max_tp_rate = tp_rates;
        for g in 0..GROUPS {
            if self.supported[g] == 0 {
                continue;
            }
            self.groups[g].max_group_prob_rate = rate(g, 0);
            let supported = self.supported[g];
            for i in (0..RATES).filter(|&i| supported & (1 << i) != 0) {
                self.set_best_prob_rate(&mut max_prob, rate(g, i));
            }
        }
        self.max_prob_rate = max_prob;
        self.prob_rate_reduce_streams();
        self.refill_sample_rates(samples);
        self.last_stats_update = now;
        self.sample_time = now;
    }

    fn find_sample_rate(&self, kind: Sample, index: u16) -> bool {
        for &cur in &self.sample[kind as usize].sample_rates {
            if cur == index {
                return true;
            }
            if cur == 0 {
                break;
            }
        }
        false
    }

    /// `minstrel_ht_move_sample_rates`: keep the listed rates still worth sampling, packed.
    fn move_sample_rates(&mut self, kind: Sample, fast_dur: u32, slow_dur: u32) -> usize {
        let rates = &mut self.sample[kind as usize].sample_rates;
        let mut j = 0;
        for i in 0..SAMPLE_RATES {
            let cur = rates[i];
            if cur == 0 {
                continue;
            }
            let d = duration(cur);
            let valid = match kind {
                Sample::Slow => d > fast_dur && d < slow_dur,
                Sample::Inc | Sample::Jump => d < fast_dur,
            };
            if !valid {
                rates[i] = 0;
                continue;
            }
            if i == j {
                // (The kernel keeps it in place without advancing j: a quirk kept.)
                continue;
            }
            rates[j] = cur;
            j += 1;
            rates[i] = 0;
        }
        j
    }

    /// `minstrel_ht_group_min_rate_offset`: the slowest rate of `g` faster than `max_dur`.
    fn group_min_rate_offset(&self, g: usize, max_dur: u32) -> Option<usize> {
        (0..RATES).find(|&i| self.supported[g] & (1 << i) != 0 && duration(rate(g, i)) < max_dur)
    }

    /// `minstrel_ht_next_inc_rate`.
    fn next_inc_rate(&mut self, fast_dur: u32) -> u16 {
        let mut g = usize::from(self.sample[Sample::Inc as usize].sample_group);
        let mut found = 0;
        for _ in 0..GROUPS {
            g = (g + 1) % GROUPS;
            let Some(i) = self.group_min_rate_offset(g, fast_dur) else { continue };
            let index = rate(g, i & 0xf);
            if !self.find_sample_rate(Sample::Inc, index) {
                found = index;
                break;
            }
        }
        self.sample[Sample::Inc as usize].sample_group = g as u8;
        found
    }

    /// `minstrel_ht_next_group_sample_rate`: walk the group's column of the sample table.
    fn next_group_sample_rate(&mut self, g: usize, offset: usize, samples: &SampleTable) -> Option<u16> {
        let supported = self.supported[g];
        let mg = &mut self.groups[g];
        for _ in 0..RATES {
            let idx = usize::from(samples.0[usize::from(mg.column)][usize::from(mg.index)]);
            mg.index += 1;
            if usize::from(mg.index) >= RATES {
                mg.index = 0;
                mg.column += 1;
                if usize::from(mg.column) >= SAMPLE_COLUMNS {
                    mg.column = 0;
                }
            }
            if idx < offset || supported & (1 << idx) == 0 {
                continue;
            }
            return Some(rate(g, idx));
        }
        None
    }

    /// `minstrel_ht_next_jump_rate`.
    fn next_jump_rate(&mut self, fast_dur: u32, slow_dur: u32, slow_ofs: &mut usize, samples: &SampleTable) -> u16 {
        let mut max_dur = if *slow_ofs >= SAMPLE_RATES { fast_dur } else { slow_dur };
        let mut g = usize::from(self.sample[Sample::Jump as usize].sample_group);
        let mut found = 0;
        for _ in 0..GROUPS {
            g = (g + 1) % GROUPS;
            if self.supported[g] == 0 {
                continue;
            }
            let Some(offset) = self.group_min_rate_offset(g, max_dur) else { continue };
            let Some(index) = self.next_group_sample_rate(g, offset, samples) else { continue };
            let d = duration(index);
            let kind = if d < fast_dur { Sample::Jump } else { Sample::Slow };
            if self.find_sample_rate(kind, index) {
                continue;
            }
            if kind == Sample::Jump {
                found = index;
                break;
            }
            if *slow_ofs >= SAMPLE_RATES || d >= slow_dur {
                continue;
            }
            // Skip slow rates that succeed more than 95 % of the time.
            if self.prob(index) > frac(95, 100) {
                continue;
            }
            self.sample[Sample::Slow as usize].sample_rates[*slow_ofs] = index;
            *slow_ofs += 1;
            if *slow_ofs >= SAMPLE_RATES {
                max_dur = fast_dur;
            }
        }
        self.sample[Sample::Jump as usize].sample_group = g as u8;
        found
    }

    /// `minstrel_ht_refill_sample_rates`.
    fn refill_sample_rates(&mut self, samples: &SampleTable) {
        let prob_dur = duration(self.max_prob_rate);
        let tp_dur = duration(self.max_tp_rate[0]);
        let tp2_dur = duration(self.max_tp_rate[1]);
        let fast_dur = tp_dur.min(tp2_dur).min(prob_dur);
        let slow_dur = tp_dur.max(tp2_dur).max(prob_dur);
        let mut i = self.move_sample_rates(Sample::Inc, fast_dur, slow_dur);
        while i < SAMPLE_RATES {
            let r = self.next_inc_rate(tp_dur);
            self.sample[Sample::Inc as usize].sample_rates[i] = r;
            if r == 0 {
                break;
            }
            i += 1;
        }
        let mut i = self.move_sample_rates(Sample::Jump, fast_dur, slow_dur);
        let mut j = self.move_sample_rates(Sample::Slow, fast_dur, slow_dur);
        while i < SAMPLE_RATES {
            let r = self.next_jump_rate(fast_dur, slow_dur, &mut j, samples);
            self.sample[Sample::Jump as usize].sample_rates[i] = r;
            if r == 0 {
                break;
            }
            i += 1;
        }
    }

    /// `minstrel_downgrade_rate`: the best rate of the next lower group with no more streams.
    fn downgrade_rate(&self, index: u16, primary: bool) -> u16 {
        let orig = group_of(index);
        let mut g = orig;
        while g > 0 {
            g -= 1;
            if self.supported[g] == 0 || groups()[g].streams > groups()[orig].streams {
                continue;
            }
            return self.groups[g].max_group_tp_rate[if primary { 0 } else { 1 }];
        }
        index
    }

    /// `minstrel_ht_tx_status` for one transmission sequence: the data PPDUs sent, in
    /// order, each as (rate, MPDUs in it), and the MPDUs the last one's Block Ack (ACK)
    /// acknowledged (0: no response).
    pub fn tx_status(&mut self, now: Time, tries: &[(u16, u32)], acked: u32, samples: &SampleTable) {
        let Some(&(last, len)) = tries.last() else { return };
        self.ampdu_packets += 1;
        self.ampdu_len += len;
        // attempts += count * ampdu_len per rate; the successes go to the last rate.
        for &(r, n) in tries {
            self.stats_mut(r).attempts += n;
        }
        self.stats_mut(last).success += acked;
        let mut update = false;
        // Sudden death of spatial multiplexing: downgrade at once.
        for (k, primary) in [(0, true), (1, false)] {
            let s = self.stats(self.max_tp_rate[k]);
            if s.attempts > 30 && s.success < s.attempts / 4 {
                self.max_tp_rate[k] = self.downgrade_rate(self.max_tp_rate[k], primary);
                update = true;
            }
        }
        if now > self.last_stats_update + UPDATE_INTERVAL {
            update = true;
            self.update_stats(now, samples);
        }
        if update {
            self.update_rates();
        }
    }

    /// `minstrel_calc_retransmit`: how many tries of `index` fit the segment.
    fn calc_retransmit(&mut self, index: u16) {
        let ampdu = self.avg_ampdu();
        let (overhead, overhead_rtscts) = (self.overhead, self.overhead_rtscts);
        let mrs = self.stats_mut(index);
        if u32::from(mrs.prob_avg) < frac(1, 10) {
            mrs.retry_count = 1;
            mrs.retry_count_rtscts = 1;
            return;
        }
        mrs.retry_count = 2;
        mrs.retry_count_rtscts = 2;
        mrs.retry_updated = true;
        let data = duration(index) * ampdu / 1000;
        let mut cw = CW_MIN;
        // Contention for the first two tries.
        let mut ctime = (SLOT_US * cw) >> 1;
        cw = ((cw << 1) | 1).min(CW_MAX);
        ctime += (SLOT_US * cw) >> 1;
        cw = ((cw << 1) | 1).min(CW_MAX);
        let mut tx = ctime + 2 * (overhead + data);
        let mut tx_rts = ctime + 2 * (overhead_rtscts + data);
        loop {
            let ctime = (SLOT_US * cw) >> 1;
            cw = ((cw << 1) | 1).min(CW_MAX);
            tx += ctime + overhead + data;
            tx_rts += ctime + overhead_rtscts + data;
            if tx_rts < SEGMENT_US {
                mrs.retry_count_rtscts += 1;
            }
            if tx >= SEGMENT_US {
                break;
            }
            mrs.retry_count += 1;
            if mrs.retry_count >= MAX_RETRY {
                break;
            }
        }
    }

    /// `minstrel_ht_set_rate`: entry `offset` of the table.
    fn set_rate(&mut self, offset: usize, index: u16) -> Entry {
        if !self.stats(index).retry_updated {
            self.calc_retransmit(index);
        }
        let s = self.stats(index);
        let (count, count_rts) = if u32::from(s.prob_avg) < frac(20, 100) || s.retry_count == 0 { (2, 2) } else { (s.retry_count, s.retry_count_rtscts) };
        // Fallback rates go with RTS/CTS, "to increase chances of getting through".
        if offset > 0 {
            Entry { rate: index, count: count_rts, rts: true }
        } else {
            Entry { rate: index, count, rts: false }
        }
    }

    /// `minstrel_ht_update_rates`: `max_tp_rate[0..3]`, then `max_prob_rate`.
    fn update_rates(&mut self) {
        for i in 0..TABLE - 1 {
            self.table[i] = self.set_rate(i, self.max_tp_rate[i]);
        }
        self.table[TABLE - 1] = self.set_rate(TABLE - 1, self.max_prob_rate);
    }

    /// `minstrel_ht_get_sample_rate`.
    fn next_sample(&mut self) -> u16 {
        let kind = SAMPLE_SEQ[self.sample_seq];
        self.sample_seq = (self.sample_seq + 1) % SAMPLE_SEQ.len();
        let rates = &mut self.sample[kind as usize].sample_rates;
        match rates.iter_mut().find(|r| **r != 0) {
            Some(r) => std::mem::take(r),
            None => 0,
        }
    }

    /// `minstrel_ht_get_rate` with `rate_control_fill_sta_table`: the chain of the next
    /// transmission sequence, begun at `now`.
    pub fn chain(&mut self, now: Time) -> Chain {
        let mut chain = Chain { entries: self.table, probe: false };
        if now >= self.sample_time {
            self.sample_time = now + SAMPLE_INTERVAL;
            let r = self.next_sample();
            if r != 0 {
                chain.entries[0] = Entry { rate: r, count: 1, rts: false };
                chain.probe = true;
            }
        }
        chain
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn ht20() -> [u16; GROUPS] {
        let mut s = [0; GROUPS];
        s[group_index(false, 1, false, 20)] = 0xff;
        s
    }

    fn samples() -> SampleTable {
        SampleTable::new(&mut stream(1, 0, "minstrel-test"))
    }

    #[test]
    fn durations_follow_the_kernels_macros() {
        // HT MCS 7, one stream, 20 MHz, long GI: ceil(153600 / 260) = 591 symbols of 4 us,
        // over 16: 147 750 ns; the group's shift (MCS 0: 1 477 000 ns, 21 bits) is 5, so the
        // stored value loses its low 5 bits.
        let g = group_index(false, 1, false, 20);
        assert_eq!(groups()[g].shift, 5);
        assert_eq!(duration(rate(g, 7)), (147_750 >> 5) << 5);
        // Short GI: (syms * 18000 + 4000) / 5 ns.
        let sg = group_index(false, 1, true, 20);
        assert_eq!(duration(rate(sg, 7)), ((591 * 18_000 + 4_000) / 5 / 16 >> groups()[sg].shift) << groups()[sg].shift);
        // VHT MCS 9 on two streams at 80 MHz: ceil(153600 / 3120) = 50 symbols.
        let v = group_index(true, 2, false, 80);
        assert_eq!(duration(rate(v, 9)), (50 * 4_000 / 16 >> groups()[v].shift) << groups()[v].shift);
        // mac80211's overhead: a 6 Mb/s OFDM frame of 0 octets plus an ACK, SIFS included.
        assert_eq!((ofdm_frame_us(0), ofdm_frame_us(10)), (48, 60));
    }

    #[test]
    fn the_filter_starts_at_its_input_and_settles_on_a_constant_one() {
        let (mut p1, mut p2) = (0, 0);
        assert_eq!(filter_avg_add(&mut p1, &mut p2, 2048), 2048);
        // A step to 4096 is followed, not overshot past the 1.0 clamp, and reached.
        let mut last = 2048;
        for _ in 0..40 {
            last = filter_avg_add(&mut p1, &mut p2, 4096);
        }
        assert!((4090..=4096).contains(&last), "{last}");
        // Input 0 counts as 1 (never a zero probability, which would read as "untried").
        let (mut a, mut b) = (0, 0);
        assert_eq!(filter_avg_add(&mut a, &mut b, 0), 1);
    }

    #[test]
    fn sample_table_columns_are_permutations() {
        let t = samples();
        for col in &t.0 {
            let mut seen = *col;
            seen.sort_unstable();
            assert_eq!(seen, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        }
    }

    /// Feed `m` one A-MPDU of 16 per ms for `ms`, each rate succeeding with `p(rate)`.
    fn run(m: &mut MinstrelHt, t: &SampleTable, start_ms: u64, ms: u64, p: impl Fn(u16) -> f64) -> Vec<u16> {
        let mut used = Vec::new();
        for k in start_ms..start_ms + ms {
            let now = k * 1_000_000;
            let chain = m.chain(now);
            let e = chain.entries[0];
            let acked = (16.0 * p(e.rate)).round() as u32;
            m.tx_status(now, &[(e.rate, 16)], acked, t);
            used.push(e.rate);
        }
        used
    }

    #[test]
    fn a_clean_link_climbs_to_the_fastest_rate_by_sampling() {
        let t = samples();
        let mut m = MinstrelHt::new(ht20(), 0, &t);
        let g = group_index(false, 1, false, 20);
        // Starts at MCS 0 (nothing known).
        assert_eq!(m.table()[0].rate, rate(g, 0));
        run(&mut m, &t, 0, 1000, |_| 1.0);
        assert_eq!(m.max_tp_rate()[0], rate(g, 7));
        // The chain is ordered by throughput; the last entry is the reliable one.
        assert_eq!(m.max_tp_rate()[1], rate(g, 6));
    }

    #[test]
    fn rates_that_fail_are_left_for_the_best_throughput_below_them() {
        let t = samples();
        let mut m = MinstrelHt::new(ht20(), 0, &t);
        let g = group_index(false, 1, false, 20);
        // MCS 6 and 7 fail; MCS 5 (52 Mb/s) succeeds 60 %, MCS 4 (39 Mb/s) always: at the
        // 90 % cap 39 x 0.9 = 35.1 beats 52 x 0.6 = 31.2 (before the per-frame overhead).
        let p = |r: u16| match idx_of(r) {
            0..=4 => 1.0,
            5 => 0.6,
            _ => 0.0,
        };
        let used = run(&mut m, &t, 0, 2000, p);
        assert_eq!(m.max_tp_rate()[0], rate(g, 4));
        // Sampling stays a small share: at most one PPDU per 20 ms (50 per second), and
        // one more after each 50 ms update.
        let late = &used[1000..];
        let off = late.iter().filter(|&&r| r != rate(g, 4)).count();
        assert!(off <= 1000 / 20 + 1000 / 50 + 2, "{off} of 1000 PPDUs not at MCS 4");
        assert!(off >= 10, "sampling stopped: {off}");
    }

    #[test]
    fn the_retry_chain_fits_six_milliseconds_and_protects_fallbacks() {
        let t = samples();
        let mut m = MinstrelHt::new(ht20(), 0, &t);
        run(&mut m, &t, 0, 1000, |_| 1.0);
        let table = m.table();
        assert!(!table[0].rts && table[1..].iter().all(|e| e.rts));
        // MCS 7 with 16-MPDU A-MPDUs: 2 364 us of data per try; two tries and their
        // contention fill 5.1 ms, a third would pass 6 ms.
        assert_eq!(table[0].count, 2);
        // A lone MPDU (255 us at MCS 7 with its overhead) fits five: the contention doubles
        // each try (67 + 139 + 283 + 571 + 1147 us), and the fifth ends at 3 482 us, a sixth
        // at 6 036.
        let mut short = MinstrelHt::new(ht20(), 0, &t);
        for k in 0..2000 {
            let now = k * 1_000_000;
            let e = short.chain(now).entries[0];
            short.tx_status(now, &[(e.rate, 1)], 1, &t);
        }
        assert_eq!(short.table()[0].count, 5);
        let c = short.chain(3_000_000_000);
        let total: u32 = c.entries.iter().map(|e| u32::from(e.count)).sum();
        assert!(c.at(total - 1).is_some() && c.at(total).is_none());
    }

    #[test]
    fn sudden_death_drops_to_fewer_streams_within_the_interval() {
        let t = samples();
        let mut s = [0; GROUPS];
        let (one, two) = (group_index(true, 1, false, 20), group_index(true, 2, false, 20));
        (s[one], s[two]) = (0x1ff, 0x1ff);
        let mut m = MinstrelHt::new(s, 0, &t);
        run(&mut m, &t, 0, 1000, |_| 1.0);
        assert_eq!(group_of(m.max_tp_rate()[0]), two);
        // A report 60 ms on updates the statistics and opens a new interval.
        let now = 1_060_000_000;
        m.tx_status(now, &[(rate(one, 0), 1)], 1, &t);
        assert_eq!(group_of(m.max_tp_rate()[0]), two);
        // Two streams die; within the interval, 31 attempts under 25 % success are enough.
        m.tx_status(now, &[(m.max_tp_rate()[0], 16)], 0, &t);
        assert_eq!(group_of(m.max_tp_rate()[0]), two);
        m.tx_status(now, &[(m.max_tp_rate()[0], 16)], 0, &t);
        assert_eq!(group_of(m.max_tp_rate()[0]), one);
    }

    proptest::proptest! {
        /// Whatever the outcomes, Minstrel-HT only names rates the peer supports, keeps its
        /// probabilities in [0, 1], gives every chain entry 1 to 6 tries (the 6 ms segment's
        /// contention alone stops the count at 6) and a chain at least one try per entry.
        #[test]
        fn rates_are_supported_and_counts_bounded(
            vht in proptest::bool::ANY,
            wide in proptest::bool::ANY,
            sgi in proptest::bool::ANY,
            two in proptest::bool::ANY,
            events in proptest::collection::vec((0u64..30_000_000, 1u32..64, 0u32..=100, 0usize..8), 1..400),
        ) {
            let mut s = [0u16; GROUPS];
            let streams = if vht && two { 2 } else { 1 };
            for width in [20, 40].into_iter().filter(|&w| w == 20 || wide) {
                for g in [false, true].into_iter().filter(|&g| !g || sgi) {
                    for nss in 1..=streams {
                        let mask = match (vht, width) { (false, _) => 0xff, (true, 20) => 0x1ff, (true, _) => 0x3ff };
                        s[group_index(vht, nss, g, width)] = mask;
                    }
                }
            }
            let t = samples();
            let mut m = MinstrelHt::new(s, 0, &t);
            let ok = |r: u16| group_of(r) < GROUPS && s[group_of(r)] & (1 << idx_of(r)) != 0;
            let mut now = 0;
            for (dt, mpdus, pct, tries) in events {
                now += dt;
                let chain = m.chain(now);
                let mut seq = Vec::new();
                for k in 0..tries as u32 {
                    let Some(e) = chain.at(k) else { break };
                    seq.push((e.rate, mpdus));
                }
                if seq.is_empty() {
                    seq.push((chain.entries[0].rate, mpdus));
                }
                m.tx_status(now, &seq, mpdus * pct / 100, &t);
                for e in chain.entries.iter().chain(m.table().iter()) {
                    proptest::prop_assert!(ok(e.rate), "unsupported rate {:#x} in {:?}", e.rate, chain);
                    proptest::prop_assert!((1..=6).contains(&e.count), "{:?}", e);
                }
                for r in m.max_tp_rate().into_iter().chain([m.max_prob_rate()]) {
                    proptest::prop_assert!(ok(r), "unsupported rate {:#x}", r);
                    let p = m.probability(r);
                    proptest::prop_assert!((0.0..=1.0).contains(&p), "{}", p);
                }
            }
        }
    }
}
