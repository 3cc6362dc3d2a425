//! Random streams: one independent, seeded stream per component.
//!
//! A stream is derived from (seed, replication, component label), so adding a flow or a
//! link never shifts the numbers another component draws. The generator is PCG-64 (MCG
//! variant, `rand_pcg::Pcg64Mcg`): fast, small, and fixed across releases.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

pub type SimRng = Pcg64Mcg;

/// FNV-1a over the label: a stable 64-bit component id. Written out because std's
/// hasher makes no promise to stay the same across Rust releases.
fn fnv1a(label: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in label.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64's finaliser: spreads nearby inputs over the whole 64-bit range.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The stream of component `label` in replication `replication` of base seed `seed`.
pub fn stream(seed: u64, replication: u64, label: &str) -> SimRng {
    let hi = mix(seed ^ mix(replication));
    let lo = mix(fnv1a(label) ^ mix(hi));
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&hi.to_le_bytes());
    bytes[8..].copy_from_slice(&lo.to_le_bytes());
    Pcg64Mcg::from_seed(bytes)
}

/// A uniform draw in [0, 1).
pub fn unit(rng: &mut SimRng) -> f64 {
    rng.random::<f64>()
}

/// Two independent standard normal draws (Box-Muller, from two uniforms).
pub fn normal_pair(rng: &mut SimRng) -> (f64, f64) {
    let r = (-2.0 * (1.0 - unit(rng)).ln()).sqrt(); // 1 - u in (0, 1]
    let theta = std::f64::consts::TAU * unit(rng);
    (r * theta.cos(), r * theta.sin())
}

/// An exponential draw with the given mean.
pub fn exponential(rng: &mut SimRng, mean: f64) -> f64 {
    // Inverse transform; 1 - u lies in (0, 1], so the log is finite.
    -mean * (1.0 - unit(rng)).ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_inputs_same_stream() {
        let a: Vec<u64> = (0..4).map(|_| stream(7, 0, "link:x").random()).collect();
        let b: Vec<u64> = (0..4).map(|_| stream(7, 0, "link:x").random()).collect();
        assert_eq!(a, b);
    }

    #[test]
    fn seed_replication_and_label_each_change_the_stream() {
        let base: u64 = stream(7, 0, "link:x").random();
        assert_ne!(base, stream(8, 0, "link:x").random::<u64>());
        assert_ne!(base, stream(7, 1, "link:x").random::<u64>());
        assert_ne!(base, stream(7, 0, "link:y").random::<u64>());
    }

    #[test]
    fn exponential_mean_is_close() {
        let mut r = stream(1, 0, "t");
        let n = 100_000;
        let m: f64 = (0..n).map(|_| exponential(&mut r, 2.0)).sum::<f64>() / n as f64;
        // Standard error is 2/sqrt(n) ~ 0.0063; 5 sigma.
        assert!((m - 2.0).abs() < 0.032, "{m}");
    }
}
