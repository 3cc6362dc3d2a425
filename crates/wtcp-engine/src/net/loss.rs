//! Channel loss models of one link direction, each with its own random stream.

use crate::rng::{unit, SimRng};
use crate::scenario::LossSpec;

#[derive(Debug)]
pub struct LossModel {
    spec: LossSpec,
    rng: SimRng,
    /// Gilbert-Elliott: currently in the bad state.
    bad: bool,
    /// Packets seen so far (for the list model).
    seen: u64,
}

impl LossModel {
    pub fn new(mut spec: LossSpec, rng: SimRng) -> Self {
        if let LossSpec::List { packets } = &mut spec {
            packets.sort_unstable();
        }
        LossModel { spec, rng, bad: false, seen: 0 }
    }

    /// Decide the fate of one frame of `bits` bits: true = lost.
    pub fn lose(&mut self, bits: u64) -> bool {
        self.seen += 1;
        match &self.spec {
            LossSpec::Uniform { rate } => *rate > 0.0 && unit(&mut self.rng) < *rate,
            LossSpec::Ber { ber } => {
                // Frame error rate = 1 - (1 - BER)^bits, computed stably for small BER.
                let fer = -f64::exp_m1(bits as f64 * f64::ln_1p(-*ber));
                fer > 0.0 && unit(&mut self.rng) < fer
            }
            LossSpec::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
                // The chain steps once per packet, then the packet sees the new state.
                let flip = if self.bad { *p_bad_to_good } else { *p_good_to_bad };
                if unit(&mut self.rng) < flip {
                    self.bad = !self.bad;
                }
                let p = if self.bad { *loss_bad } else { *loss_good };
                p > 0.0 && unit(&mut self.rng) < p
            }
            LossSpec::List { packets } => packets.binary_search(&self.seen).is_ok(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn rate(spec: LossSpec, bits: u64, n: usize) -> f64 {
        let mut m = LossModel::new(spec, stream(3, 0, "loss-test"));
        (0..n).filter(|_| m.lose(bits)).count() as f64 / n as f64
    }

    #[test]
    fn uniform_loss_matches_its_rate() {
        // n = 200k, p = 0.05: sigma ~ 0.00049; allow 5 sigma.
        let r = rate(LossSpec::Uniform { rate: 0.05 }, 8000, 200_000);
        assert!((r - 0.05).abs() < 0.0025, "{r}");
    }

    #[test]
    fn ber_gives_the_frame_error_rate_of_the_frame_length() {
        let ber: f64 = 1e-5;
        let bits = 8320; // a 1040-byte frame
        let expect = 1.0 - (1.0 - ber).powi(bits as i32);
        let r = rate(LossSpec::Ber { ber }, bits, 200_000);
        assert!((r - expect).abs() < 5.0 * (expect * (1.0 - expect) / 200_000.0).sqrt(), "{r} vs {expect}");
    }

    #[test]
    fn gilbert_elliott_long_run_loss_matches_the_stationary_state() {
        // pi_bad = p_gb / (p_gb + p_bg); loss = pi_bad * loss_bad.
        let spec = LossSpec::GilbertElliott { p_good_to_bad: 0.01, p_bad_to_good: 0.1, loss_good: 0.0, loss_bad: 1.0 };
        let expect = 0.01 / 0.11;
        let r = rate(spec, 8000, 400_000);
        assert!((r - expect).abs() < 0.01, "{r} vs {expect}");
    }

    #[test]
    fn list_loses_exactly_the_listed_packets() {
        let mut m = LossModel::new(LossSpec::List { packets: vec![5, 2] }, stream(3, 0, "x"));
        let lost: Vec<u64> = (1..=6).filter(|_| m.lose(8000)).collect();
        assert_eq!(lost, vec![2, 5]);
    }

    #[test]
    fn certain_and_impossible_loss() {
        assert_eq!(rate(LossSpec::Uniform { rate: 1.0 }, 1, 1000), 1.0);
        assert_eq!(rate(LossSpec::Uniform { rate: 0.0 }, 1, 1000), 0.0);
        assert_eq!(rate(LossSpec::Ber { ber: 0.0 }, 8000, 1000), 0.0);
    }
}
