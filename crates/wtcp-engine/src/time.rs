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
