//! Simulation time: integer nanoseconds since the start of the run.

pub use wtcp_cc::Time;

pub const NS_PER_S: f64 = 1e9;

/// Seconds to nanoseconds, rounded to the nearest nanosecond.
pub fn secs(s: f64) -> Time {
    (s * NS_PER_S).round() as Time
}

/// Nanoseconds to seconds.
pub fn to_secs(t: Time) -> f64 {
    t as f64 / NS_PER_S
}

/// Serialisation time of `bytes` on a link of `rate_bps`, at least 1 ns.
pub fn tx_time(bytes: u32, rate_bps: f64) -> Time {
    // x + 0.5 truncated is round-half-up for x >= 0, without a libm call on the hot path.
    ((f64::from(bytes) * 8.0 * NS_PER_S / rate_bps + 0.5) as Time).max(1)
}

/// [`tx_time`] of one link rate, remembered for the few frame sizes a link carries (data
/// segments, ACKs with 0..4 SACK blocks): a hit costs a load and a compare instead of a
/// float division, and returns the very value `tx_time` computed, so results are
/// bit-identical. (An integer ns-per-byte formula can round differently from the float
/// one near half a nanosecond; a memo of the float formula cannot.)
#[derive(Clone, Debug)]
pub struct TxTimes {
    rate_bps: f64,
    /// Direct-mapped on `bytes / 4`: the ACK sizes of one flow (8-byte SACK blocks plus
    /// headers) fall in distinct slots. Empty slots hold `u32::MAX` bytes.
    slots: [(u32, Time); 8],
}

impl TxTimes {
    pub fn new(rate_bps: f64) -> Self {
        TxTimes { rate_bps, slots: [(u32::MAX, 0); 8] }
    }

    pub fn rate_bps(&self) -> f64 {
        self.rate_bps
    }

    /// `tx_time(bytes, rate_bps)`.
    #[inline]
    pub fn get(&mut self, bytes: u32) -> Time {
        let slot = &mut self.slots[(bytes as usize >> 2) & 7];
        if slot.0 != bytes {
            *slot = (bytes, tx_time(bytes, self.rate_bps));
        }
        slot.1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembered_times_equal_the_formula() {
        for rate in [2e6, 5.5e6, 11e6, 1e8, 1e9, 1e10, 123_456.789, 0.1e6 * 3.0] {
            let mut t = TxTimes::new(rate);
            for round in 0..2 {
                for bytes in (1..3000).chain([u32::MAX - 1]).rev().step_by(7 - round) {
                    assert_eq!(t.get(bytes), tx_time(bytes, rate), "{bytes} B at {rate} b/s");
                }
            }
        }
    }
}
