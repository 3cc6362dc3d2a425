//! 802.11 PHY parameter sets and frame airtime.
//!
//! Sources: IEEE Std 802.11-2007, clause 15 (DSSS, 1 and 2 Mb/s), clause 18 (HR/DSSS,
//! 5.5 and 11 Mb/s), clause 17 (OFDM) and clause 19 (ERP, 802.11g); MAC frame sizes from
//! clause 7.2; Bianchi, IEEE JSAC 18(3) 2000, Table II (FHSS numbers, same structure).
//!
//! Deviations / ambiguities resolved:
//! - 802.11b uses the long PLCP preamble only (144 + 48 bits at 1 Mb/s = 192 us).
//! - 802.11g is ERP-OFDM only (no DSSS/CCK rates, no protection mechanisms), with the
//!   short slot (9 us) of an ERP-only BSS.

use crate::time::Time;

const US: Time = 1_000;

/// Modulation family: decides the airtime formula.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhyKind {
    /// Clauses 15/18: DSSS and HR/DSSS (CCK), long preamble.
    Dsss,
    /// Clauses 17/19: ERP-OFDM with the 6 us signal extension.
    ErpOfdm,
}

/// Timing and MAC constants of one PHY.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhyParams {
    pub kind: PhyKind,
    /// aSlotTime.
    pub slot: Time,
    /// aSIFSTime.
    pub sifs: Time,
    /// aCWmin / aCWmax (contention window bounds, in slots; CW + 1 is a power of two).
    pub cw_min: u32,
    pub cw_max: u32,
    /// MAC header of a data frame including the 4-byte FCS (24 + 4).
    pub mac_header_bytes: u32,
    pub ack_bytes: u32,
    pub rts_bytes: u32,
    pub cts_bytes: u32,
    /// Rates this PHY supports, in kb/s.
    pub rates_kbps: &'static [u32],
}

impl PhyParams {
    /// 802.11b (clauses 15 and 18, long preamble): slot 20 us, SIFS 10 us, CW 31..1023.
    pub const B: PhyParams = PhyParams {
        kind: PhyKind::Dsss,
        slot: 20 * US,
        sifs: 10 * US,
        cw_min: 31,
        cw_max: 1023,
        mac_header_bytes: 28,
        ack_bytes: 14,
        rts_bytes: 20,
        cts_bytes: 14,
        rates_kbps: &[1_000, 2_000, 5_500, 11_000],
    };

    /// 802.11g ERP-OFDM (clauses 17 and 19): short slot 9 us, SIFS 10 us, CW 15..1023.
    pub const G: PhyParams = PhyParams {
        kind: PhyKind::ErpOfdm,
        slot: 9 * US,
        sifs: 10 * US,
        cw_min: 15,
        cw_max: 1023,
        mac_header_bytes: 28,
        ack_bytes: 14,
        rts_bytes: 20,
        cts_bytes: 14,
        rates_kbps: &[6_000, 9_000, 12_000, 18_000, 24_000, 36_000, 48_000, 54_000],
    };

    /// DIFS = SIFS + 2 slots (9.2.10).
    pub fn difs(&self) -> Time {
        self.sifs + 2 * self.slot
    }

    /// EIFS = SIFS + ACK time at the lowest basic rate + DIFS (9.2.10).
    pub fn eifs(&self, basic_kbps: u32) -> Time {
        self.sifs + self.airtime(self.ack_bytes, basic_kbps) + self.difs()
    }

    pub fn supports(&self, kbps: u32) -> bool {
        self.rates_kbps.contains(&kbps)
    }

    /// Airtime of a frame of `bytes` MAC bytes (header and FCS included) at `kbps`.
    pub fn airtime(&self, bytes: u32, kbps: u32) -> Time {
        let bits = u64::from(bytes) * 8;
        let kbps = u64::from(kbps);
        match self.kind {
            // 15.2.3 / 18.2.2.1: PLCP preamble (144 bits) + header (48 bits) at 1 Mb/s =
            // 192 us; 18.2.3.5: the LENGTH field is the PSDU duration in whole
            // microseconds, rounded up.
            PhyKind::Dsss => 192 * US + bits.saturating_mul(1000).div_ceil(kbps) * US,
            // 17.4.3 (TXTIME), 19.8.3: preamble 16 us + SIGNAL 4 us + 4 us symbols
            // carrying 16 service bits + PSDU + 6 tail bits, plus the 6 us ERP signal
            // extension. N_DBPS = 4 us * rate.
            PhyKind::ErpOfdm => {
                let n_dbps = kbps * 4 / 1000;
                let symbols = (16 + bits + 6).div_ceil(n_dbps);
                (16 + 4 + 4 * symbols + 6) * US
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dsss_ack_at_1_mbps_is_304_us_and_data_rounds_up() {
        assert_eq!(PhyParams::B.airtime(14, 1_000), 304 * US);
        // 1528 bytes at 11 Mb/s: 12224 / 11 = 1111.27 -> 1112 us + 192.
        assert_eq!(PhyParams::B.airtime(1528, 11_000), (192 + 1112) * US);
        assert_eq!(PhyParams::B.difs(), 50 * US);
        assert_eq!(PhyParams::B.eifs(1_000), (10 + 304 + 50) * US);
    }

    #[test]
    fn erp_ofdm_ack_at_24_mbps_and_data_at_54() {
        // ACK: 16 + 112 + 6 = 134 bits / 96 = 2 symbols -> 20 + 8 + 6 = 34 us.
        assert_eq!(PhyParams::G.airtime(14, 24_000), 34 * US);
        // 1528 bytes at 54 Mb/s: 12246 / 216 = 56.7 -> 57 symbols -> 20 + 228 + 6.
        assert_eq!(PhyParams::G.airtime(1528, 54_000), 254 * US);
        assert_eq!(PhyParams::G.difs(), 28 * US);
    }
}
