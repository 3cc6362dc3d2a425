//! The radio channel of `channel = { model = "log_distance" }`: received power from
//! log-distance path loss (with optional log-normal shadowing and Rayleigh or Rician
//! fading), thermal noise, and the probability that an OFDM chunk of bits survives at a
//! given SINR.
//!
//! Sources:
//! - Path loss: the log-distance model, L(d) = L0 + 10 n log10(d / d0) dB (Rappaport,
//!   *Wireless Communications*, 2nd ed., eq. 4.68); below d0 the loss is L0. A scenario's
//!   default L0 is the free-space (Friis) loss at d0 for the PHY's band (46.68 dB at 1 m and
//!   5.15 GHz for a, n and ac; 40.10 dB at 2.412 GHz for g; scenario/resolve.rs);
//!   [`Radio::default`] holds ns-3.44's `LogDistancePropagationLossModel` defaults (exponent
//!   3, d0 = 1 m, L0 = 46.6777 dB, Friis at 5.15 GHz with c = 3e8).
//! - Shadowing: a zero-mean normal in dB per pair of stations, drawn once (Rappaport eq.
//!   4.69a), the same both ways.
//! - Fading: a power gain per frame and receiver, exponential with mean 1 (Rayleigh), or
//!   |h|^2 with h = sqrt(K / (K + 1)) + sqrt(1 / (K + 1)) CN(0, 1) (Rician, K the ratio of the
//!   direct path's power to the scattered power).
//! - Noise: k T B with T = 290 K, times the receiver's noise figure (ns-3.44
//!   `InterferenceHelper::CalculateSnr`, interference-helper.cc:405-433).
//! - Errors: the NIST OFDM model (Pei and Henderson, "Validation of OFDM error rate model in
//!   ns-3", 2010; ns-3's `NistErrorRateModel`): the uncoded bit error rate of BPSK, QPSK or
//!   M-QAM in AWGN, the Viterbi decoder's first-event error probability bounded by the
//!   convolutional code's distance spectrum (K = 7, rates 1/2, 2/3, 3/4, 5/6), and a chunk of
//!   `nbits` bits survives with (1 - Pe)^nbits.
//!
//! Deviations and ambiguities resolved:
//! - The code's union bound is cut at its first nine (rate 1/2) or ten terms, as in the
//!   source model; at low SNR it exceeds 1 and is clipped to 1.
//! - A frame is sensed (and may be received) only if it arrives at or above the clear-channel
//!   assessment threshold (`cca_threshold_dbm`, default -82 dBm: 802.11-2016 17.3.10.6's
//!   sensitivity for 20 MHz OFDM, and ns-3's preamble-detection minimum RSSI); a weaker frame
//!   neither makes the medium busy nor adds interference. ns-3 also sums frames down to its
//!   RxSensitivity (-101 dBm) into the interference and declares the medium busy when that sum
//!   reaches its energy-detection threshold (-62 dBm); the ns-3 engine sets its RxSensitivity to
//!   the same threshold, so both drop weaker frames.

use crate::rng::{normal_pair, unit, SimRng};

/// Boltzmann's constant, J/K.
const BOLTZMANN: f64 = 1.380_649e-23;
/// The noise temperature, K.
const NOISE_KELVIN: f64 = 290.0;

/// Fading of each frame at each receiver.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fading {
    None,
    Rayleigh,
    /// Rician with this K factor (linear, > 0).
    Rician { k: f64 },
}

/// The radio model's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Radio {
    pub exponent: f64,
    pub reference_distance_m: f64,
    pub reference_loss_db: f64,
    pub tx_power_dbm: f64,
    pub noise_figure_db: f64,
    pub cca_threshold_dbm: f64,
    /// Standard deviation of the log-normal shadowing, dB (0: none).
    pub shadowing_sigma_db: f64,
    pub fading: Fading,
}

impl Default for Radio {
    /// ns-3.44's defaults: LogDistancePropagationLossModel, WifiPhy TxPowerStart 16.0206 dBm
    /// (40 mW), RxNoiseFigure 7 dB, ThresholdPreambleDetectionModel MinimumRssi -82 dBm.
    fn default() -> Radio {
        Radio {
            exponent: 3.0,
            reference_distance_m: 1.0,
            reference_loss_db: 46.6777,
            tx_power_dbm: 16.0206,
            noise_figure_db: 7.0,
            cca_threshold_dbm: -82.0,
            shadowing_sigma_db: 0.0,
            fading: Fading::None,
        }
    }
}

impl Radio {
    /// Path loss at `d` metres, dB.
    pub fn path_loss_db(&self, d: f64) -> f64 {
        if d <= self.reference_distance_m {
            return self.reference_loss_db;
        }
        self.reference_loss_db + 10.0 * self.exponent * (d / self.reference_distance_m).log10()
    }

    /// Mean received power at `d` metres (before shadowing and fading), dBm.
    pub fn mean_rx_dbm(&self, d: f64) -> f64 {
        self.tx_power_dbm - self.path_loss_db(d)
    }

    /// The distance at which the mean received power falls to the CCA threshold, m.
    pub fn cca_range_m(&self) -> f64 {
        let loss = self.tx_power_dbm - self.cca_threshold_dbm;
        if loss <= self.reference_loss_db {
            return self.reference_distance_m;
        }
        self.reference_distance_m * 10f64.powf((loss - self.reference_loss_db) / (10.0 * self.exponent))
    }

    /// Thermal noise plus the noise figure over `width_mhz`, mW.
    pub fn noise_mw(&self, width_mhz: u16) -> f64 {
        let watts = BOLTZMANN * NOISE_KELVIN * f64::from(width_mhz) * 1e6;
        watts * 1e3 * db_to_linear(self.noise_figure_db)
    }

    /// One frame's fading power gain at one receiver, dB.
    pub fn fading_db(&self, rng: &mut SimRng) -> f64 {
        match self.fading {
            Fading::None => 0.0,
            // |CN(0, 1)|^2 is exponential with mean 1.
            Fading::Rayleigh => 10.0 * (-(1.0 - unit(rng)).ln()).max(1e-300).log10(),
            Fading::Rician { k } => {
                let (re, im) = normal_pair(rng);
                let (los, scatter) = ((k / (k + 1.0)).sqrt(), (0.5 / (k + 1.0)).sqrt());
                let (a, b) = (los + scatter * re, scatter * im);
                10.0 * (a * a + b * b).max(1e-300).log10()
            }
        }
    }

    /// One shadowing draw, dB.
    pub fn shadowing_db(&self, rng: &mut SimRng) -> f64 {
        if self.shadowing_sigma_db == 0.0 {
            return 0.0;
        }
        self.shadowing_sigma_db * normal_pair(rng).0
    }
}

pub fn db_to_linear(db: f64) -> f64 {
    10f64.powf(db / 10.0)
}

pub fn dbm_to_mw(dbm: f64) -> f64 {
    10f64.powf(dbm / 10.0)
}

/// An OFDM subcarrier modulation and convolutional code rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Modulation {
    /// Coded bits per subcarrier: 1 BPSK, 2 QPSK, 4 16-QAM, 6 64-QAM, 8 256-QAM.
    pub bits: u8,
    /// Code rate numerator and denominator: 1/2, 2/3, 3/4, 5/6.
    pub rate: (u8, u8),
}

impl Modulation {
    pub const BPSK_1_2: Modulation = Modulation { bits: 1, rate: (1, 2) };

    /// The modulation of 802.11a/g's OFDM rate `kbps` (17.3.2.3, Table 17-4).
    pub fn of_ofdm_kbps(kbps: u32) -> Option<Modulation> {
        let (bits, rate) = match kbps {
            6_000 => (1, (1, 2)),
            9_000 => (1, (3, 4)),
            12_000 => (2, (1, 2)),
            18_000 => (2, (3, 4)),
            24_000 => (4, (1, 2)),
            36_000 => (4, (3, 4)),
            48_000 => (6, (2, 3)),
            54_000 => (6, (3, 4)),
            _ => return None,
        };
        Some(Modulation { bits, rate })
    }

    /// Uncoded bit error rate at `snr` (linear) in AWGN.
    fn uncoded_ber(&self, snr: f64) -> f64 {
        match self.bits {
            1 => 0.5 * libm::erfc(snr.sqrt()),
            2 => 0.5 * libm::erfc((snr / 2.0).sqrt()),
            b => {
                // Square M-QAM, M = 2^b: (sqrt M - 1) / (sqrt M log2 sqrt M) erfc(sqrt(3 SNR /
                // (2 (M - 1)))).
                let m = f64::from(1u32 << b);
                let root = m.sqrt();
                (root - 1.0) / (root * root.log2()) * libm::erfc((snr / (2.0 * (m - 1.0) / 3.0)).sqrt())
            }
        }
    }

    /// The SNR (linear) at which a bit's error probability after decoding falls to `ber`:
    /// bisection over [1e-25, 1e25] to within 8e-12, as ns-3.44's
    /// `ErrorRateModel::CalculateSnr` (error-rate-model.cc:28-51).
    pub fn snr_threshold(&self, ber: f64) -> f64 {
        let (mut low, mut high) = (1e-25_f64, 1e25_f64);
        while high - low > 8e-12 {
            let middle = low + (high - low) / 2.0;
            if 1.0 - self.chunk_success(middle, 1.0) > ber {
                low = middle;
            } else {
                high = middle;
            }
        }
        low
    }

    /// Probability that a chunk of `nbits` bits at `snr` (linear) is decoded.
    pub fn chunk_success(&self, snr: f64, nbits: f64) -> f64 {
        let p = self.uncoded_ber(snr);
        if p == 0.0 {
            return 1.0;
        }
        let pe = first_event_error(p, self.rate).min(1.0);
        (1.0 - pe).powf(nbits)
    }
}

/// The Viterbi decoder's first-event error probability for the K = 7 code punctured to
/// `rate`, from the uncoded bit error rate `p` with hard decisions: the union bound over the
/// code's distance spectrum, sum_d a_d D^d with D = sqrt(4 p (1 - p)), divided by 2k for
/// the rate k/(k+1) (Pei and Henderson 2010, Table 1; the spectra of Haccoun and Begin 1989
/// and Frenger et al. 1999).
fn first_event_error(p: f64, rate: (u8, u8)) -> f64 {
    let d = (4.0 * p * (1.0 - p)).sqrt();
    // (free distance, step, coefficients of D^dfree, D^(dfree + step), ..., divisor 2k).
    let (dfree, step, coefficients, divisor): (i32, i32, &[f64], f64) = match rate {
        (1, 2) => (10, 2, &[36.0, 211.0, 1404.0, 11633.0, 77433.0, 502690.0, 3322763.0, 21292910.0, 134365911.0], 2.0),
        (2, 3) => (6, 1, &[3.0, 70.0, 285.0, 1276.0, 6160.0, 27128.0, 117019.0, 498860.0, 2103891.0, 8784123.0], 4.0),
        (3, 4) => (5, 1, &[42.0, 201.0, 1492.0, 10469.0, 62935.0, 379644.0, 2253373.0, 13073811.0, 75152755.0, 428005675.0], 6.0),
        (5, 6) => (4, 1, &[92.0, 528.0, 8694.0, 79453.0, 792114.0, 7375573.0, 67884974.0, 610875423.0, 5427275376.0, 47664215639.0], 10.0),
        _ => unreachable!("code rate {rate:?}"),
    };
    let sum: f64 = coefficients.iter().enumerate().map(|(i, a)| a * d.powi(dfree + step * i as i32)).sum();
    sum / divisor
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    #[test]
    fn log_distance_loses_10n_db_per_decade_and_l0_inside_d0() {
        let r = Radio::default();
        assert!((r.path_loss_db(0.5) - 46.6777).abs() < 1e-12);
        assert!((r.path_loss_db(10.0) - 76.6777).abs() < 1e-9);
        assert!((r.path_loss_db(100.0) - 106.6777).abs() < 1e-9);
        // 16.0206 dBm - 106.6777 dB at 100 m.
        assert!((r.mean_rx_dbm(100.0) + 90.6571).abs() < 1e-9);
        // The CCA range inverts the mean power: -82 dBm at it.
        assert!((r.mean_rx_dbm(r.cca_range_m()) + 82.0).abs() < 1e-9);
    }

    #[test]
    fn noise_is_kt_b_times_the_noise_figure() {
        // kT at 290 K is -173.98 dBm/Hz; + 73.01 dB (20 MHz) + 7 dB = -93.96 dBm.
        let dbm = 10.0 * Radio::default().noise_mw(20).log10();
        assert!((dbm + 93.9649).abs() < 1e-3, "{dbm}");
        let wider = 10.0 * Radio::default().noise_mw(80).log10();
        assert!((wider - dbm - 6.0206).abs() < 1e-4);
    }

    #[test]
    fn uncoded_bpsk_follows_q_of_sqrt_2_snr() {
        // BPSK at Eb/N0 = 9.6 dB: 1e-5 (the textbook point).
        let ber = Modulation::BPSK_1_2.uncoded_ber(db_to_linear(9.6));
        assert!((ber / 1e-5 - 1.0).abs() < 0.05, "{ber}");
        // QPSK's per-bit rate at twice the SNR is BPSK's.
        let qpsk = Modulation { bits: 2, rate: (1, 2) };
        assert!((qpsk.uncoded_ber(2.0 * 3.0) - Modulation::BPSK_1_2.uncoded_ber(3.0)).abs() < 1e-15);
    }

    #[test]
    fn a_2000_byte_frame_survives_as_the_published_nist_curves_say() {
        // Reference points of the NIST model for 2000-byte frames at 802.11a rates (Pei and
        // Henderson 2010; the values ns-3.44's wifi-error-rate-models-test.cc holds its
        // NistErrorRateModel to, within 0.001): (Mb/s, SNR dB, success probability).
        let points = [(6, 3.0, 0.020), (6, 4.0, 0.885), (9, 6.0, 0.097), (9, 7.0, 0.918), (12, 7.0, 0.881), (18, 9.5, 0.623), (24, 13.0, 0.495), (36, 16.5, 0.818)];
        for (mbps, db, expected) in points {
            let m = Modulation::of_ofdm_kbps(mbps * 1000).unwrap();
            let p = m.chunk_success(db_to_linear(db), 16_000.0);
            assert!((p - expected).abs() < 0.001, "{mbps} Mb/s at {db} dB: {p} against {expected}");
        }
    }

    #[test]
    fn coded_frames_go_from_lost_to_received_within_a_few_db_and_denser_modes_need_more() {
        // 1500 bytes: the SNR at which half survive rises with the mode.
        let half = |m: Modulation| {
            let (mut lo, mut hi) = (-10.0_f64, 50.0_f64);
            for _ in 0..100 {
                let mid = (lo + hi) / 2.0;
                if m.chunk_success(db_to_linear(mid), 12_000.0) < 0.5 { lo = mid } else { hi = mid }
            }
            lo
        };
        let modes = [(1, (1, 2)), (2, (1, 2)), (2, (3, 4)), (4, (1, 2)), (4, (3, 4)), (6, (2, 3)), (6, (3, 4)), (6, (5, 6)), (8, (3, 4)), (8, (5, 6))];
        let points: Vec<f64> = modes.iter().map(|&(bits, rate)| half(Modulation { bits, rate })).collect();
        assert!(points.windows(2).all(|w| w[1] > w[0]), "{points:?}");
        // BPSK 1/2 needs a little over 0 dB; 64-QAM 5/6 over 20 dB (Pei and Henderson, Fig. 3).
        assert!((0.0..4.0).contains(&points[0]), "{points:?}");
        assert!((18.0..26.0).contains(&points[7]), "{points:?}");
        // From 1 % to 99 % of frames within 2 dB (the cliff).
        let m = Modulation { bits: 6, rate: (3, 4) };
        let at = |db: f64| m.chunk_success(db_to_linear(db), 12_000.0);
        assert!(at(points[6] - 1.0) < 0.05 && at(points[6] + 1.0) > 0.95);
    }

    #[test]
    fn the_snr_threshold_gives_the_asked_coded_bit_error_rate_and_rises_with_the_mode() {
        let (bpsk, qam64) = (Modulation::BPSK_1_2, Modulation { bits: 6, rate: (5, 6) });
        let (t0, t7) = (bpsk.snr_threshold(1e-6), qam64.snr_threshold(1e-6));
        assert!((1.0 - bpsk.chunk_success(t0, 1.0) - 1e-6).abs() < 1e-8);
        assert!((1.0 - qam64.chunk_success(t7 * 1.001, 1.0)) < 1e-6);
        assert!(t7 > 10.0 * t0, "{t0} {t7}");
    }

    #[test]
    fn rayleigh_power_has_mean_one_and_rician_approaches_no_fading() {
        let mut rng = stream(1, 0, "t");
        let ray = Radio { fading: Fading::Rayleigh, ..Radio::default() };
        let n = 200_000;
        let mean: f64 = (0..n).map(|_| db_to_linear(ray.fading_db(&mut rng))).sum::<f64>() / f64::from(n);
        assert!((mean - 1.0).abs() < 0.01, "{mean}");
        let rice = Radio { fading: Fading::Rician { k: 10_000.0 }, ..Radio::default() };
        let draws: Vec<f64> = (0..1000).map(|_| rice.fading_db(&mut rng)).collect();
        assert!(draws.iter().all(|d| d.abs() < 0.5), "K = 10 000 stays within 0.5 dB");
        let rice4 = Radio { fading: Fading::Rician { k: 4.0 }, ..Radio::default() };
        let mean4: f64 = (0..n).map(|_| db_to_linear(rice4.fading_db(&mut rng))).sum::<f64>() / f64::from(n);
        assert!((mean4 - 1.0).abs() < 0.01, "{mean4}");
    }

    #[test]
    fn shadowing_has_the_stated_spread() {
        let mut rng = stream(2, 0, "t");
        let r = Radio { shadowing_sigma_db: 6.0, ..Radio::default() };
        let xs: Vec<f64> = (0..100_000).map(|_| r.shadowing_db(&mut rng)).collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64).sqrt();
        assert!(mean.abs() < 0.1 && (sd - 6.0).abs() < 0.1, "{mean} {sd}");
        assert_eq!(Radio::default().shadowing_db(&mut rng), 0.0);
    }
}
