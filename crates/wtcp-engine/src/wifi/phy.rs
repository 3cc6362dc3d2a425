//! 802.11 PHY parameter sets and frame airtime.
//!
//! Sources: IEEE Std 802.11-2007, clause 15 (DSSS, 1 and 2 Mb/s), clause 18 (HR/DSSS,
//! 5.5 and 11 Mb/s), clause 17 (OFDM, 802.11a) and clause 19 (ERP, 802.11g); MAC frame sizes from
//! clause 7.2; Bianchi, IEEE JSAC 18(3) 2000, Table II (FHSS numbers, same structure).
//!
//! Deviations / ambiguities resolved:
//! - 802.11b uses the long PLCP preamble only (144 + 48 bits at 1 Mb/s = 192 us).
//! - 802.11g is ERP-OFDM only (no DSSS/CCK rates, no protection mechanisms), with the
//!   short slot (9 us) of an ERP-only BSS.
//! - EIFS = aSIFSTime + DIFS + ACKTxTime, "ACKTxTime ... at the lowest PHY mandatory rate"
//!   (IEEE 802.11-2007 9.2.3.4, 9.2.10; 802.11-1999 wrote it as aSIFSTime + 8 x ACKSize +
//!   aPreambleLength + aPLCPHeaderLength + DIFS at that rate). 802.11b: 1 Mb/s with the
//!   long preamble, 304 us, EIFS 364 us. 802.11g: the model's rate set is ERP-OFDM only,
//!   whose mandatory rates are 6, 12 and 24 Mb/s, so 6 Mb/s: 20 us preamble + SIGNAL, 6
//!   symbols (16 + 112 + 6 bits at 24 bits/symbol) and the 6 us signal extension, 50 us,
//!   EIFS 88 us (INET's ERP-only `g(erp)` mode set uses the same 6 Mb/s mode; 802.11-2016
//!   replaced ACKTxTime by an EstimatedAckTxTime by the PHY of the frame that caused the
//!   EIFS, which on this OFDM-only channel is an OFDM ACK). The 6 Mb/s reading rests on the
//!   model's OFDM-only rate set, not on the PHY as such: a full ERP
//!   PHY also has the DSSS/CCK rates, whose 1 Mb/s is then the lowest mandatory rate
//!   ("Mandatory rates for IEEE 802.11g PHY: 1, 2, 5.5, 11, 6, 12, 24 Mbps", Linux
//!   mac80211); ns-3's `Configure80211g` (EIFS - DIFS = 10 + 304 us) and INET's mixed `g`
//!   set read it so. That mixed-mode reading is not modelled, like the DSSS rates.

use crate::time::Time;

const US: Time = 1_000;

/// Modulation family: decides the airtime formula.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhyKind {
    /// Clauses 15/18: DSSS and HR/DSSS (CCK), long preamble.
    Dsss,
    /// Clauses 17/19: ERP-OFDM with the 6 us signal extension.
    ErpOfdm,
    /// Clause 17: OFDM in the 5 GHz band (802.11a), no signal extension.
    Ofdm,
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
    /// The lowest of its mandatory rates, kb/s (the ACK rate of the EIFS).
    pub lowest_mandatory_kbps: u32,
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
        // 15.1 / 18.1: 1 and 2 Mb/s (DSSS) and 5.5 and 11 Mb/s (HR/DSSS) are all mandatory.
        lowest_mandatory_kbps: 1_000,
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
        // 17.1 / 19.1: of the (ERP-)OFDM rates 6, 12 and 24 Mb/s are mandatory.
        lowest_mandatory_kbps: 6_000,
    };

    /// 802.11a OFDM (clause 17, 20 MHz channels, Table 17-15): 802.11g's slot, CW bounds,
    /// frame sizes and rates (6, 12 and 24 Mb/s mandatory, 17.1), SIFS 16 us, no signal
    /// extension.
    pub const A: PhyParams = PhyParams { kind: PhyKind::Ofdm, sifs: 16 * US, ..PhyParams::G };

    /// DIFS = SIFS + 2 slots (9.2.10).
    pub fn difs(&self) -> Time {
        self.sifs + 2 * self.slot
    }

    /// EIFS = aSIFSTime + DIFS + ACKTxTime at the lowest PHY mandatory rate
    /// (802.11-2007 9.2.3.4, 9.2.10).
    pub fn eifs(&self) -> Time {
        self.eifs_with_ack_at(self.lowest_mandatory_kbps)
    }

    /// The EIFS formula with the ACK at `kbps` ([`super::EifsRule::BasicRate`]).
    pub fn eifs_with_ack_at(&self, kbps: u32) -> Time {
        self.sifs + self.difs() + self.airtime(self.ack_bytes, kbps)
    }

    /// Duration of the PLCP preamble and header, after which a receiver's PHY indicates
    /// the start of a frame (PHY-RXSTART): 192 us long DSSS (15.2.3), 20 us OFDM
    /// (17.3.2: 16 us preamble + 4 us SIGNAL).
    pub fn plcp_header(&self) -> Time {
        match self.kind {
            PhyKind::Dsss => 192 * US,
            PhyKind::ErpOfdm | PhyKind::Ofdm => 20 * US,
        }
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
            PhyKind::ErpOfdm | PhyKind::Ofdm => {
                let n_dbps = kbps * 4 / 1000;
                let symbols = (16 + bits + 6).div_ceil(n_dbps);
                let extension = if self.kind == PhyKind::ErpOfdm { 6 } else { 0 };
                (16 + 4 + 4 * symbols + extension) * US
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
    }

    #[test]
    fn erp_ofdm_ack_at_24_mbps_and_data_at_54() {
        // ACK: 16 + 112 + 6 = 134 bits / 96 = 2 symbols -> 20 + 8 + 6 = 34 us.
        assert_eq!(PhyParams::G.airtime(14, 24_000), 34 * US);
        // 1528 bytes at 54 Mb/s: 12246 / 216 = 56.7 -> 57 symbols -> 20 + 228 + 6.
        assert_eq!(PhyParams::G.airtime(1528, 54_000), 254 * US);
        assert_eq!(PhyParams::G.difs(), 28 * US);
    }

    /// EIFS recomputed from the standard's formula (802.11-2007 9.2.3.4): aSIFSTime + DIFS +
    /// ACKTxTime at the lowest mandatory rate, DIFS = aSIFSTime + 2 aSlotTime (9.2.10),
    /// with each PHY's own ACKTxTime formula written out independently here.
    #[test]
    fn ofdm_5ghz_has_no_signal_extension_and_the_longer_sifs() {
        // 17.4.3: ACK at 24 Mb/s: 20 us + 2 symbols = 28 us; 1528 bytes at 54 Mb/s: 20 +
        // 4 x ceil((16 + 12224 + 6) / 216) = 248 us. DIFS = 16 + 2 x 9 = 34 us, EIFS with
        // the 6 Mb/s ACK (20 + 4 x ceil(134 / 24) = 44 us): 16 + 34 + 44 = 94 us.
        assert_eq!(PhyParams::A.airtime(14, 24_000), 28 * US);
        assert_eq!(PhyParams::A.airtime(1528, 54_000), 248 * US);
        assert_eq!(PhyParams::A.difs(), 34 * US);
        assert_eq!(PhyParams::A.eifs(), 94 * US);
        // The same exchange takes as long as 802.11g's: its 6 us extension after each
        // frame is 802.11a's extra 6 us of SIFS.
        let g = PhyParams::G.airtime(1528, 54_000) + PhyParams::G.sifs + PhyParams::G.airtime(14, 24_000) + PhyParams::G.difs();
        let a = PhyParams::A.airtime(1528, 54_000) + PhyParams::A.sifs + PhyParams::A.airtime(14, 24_000) + PhyParams::A.difs();
        assert_eq!(g, a);
    }

    #[test]
    fn eifs_is_sifs_difs_and_an_ack_at_the_lowest_mandatory_rate() {
        // 802.11b (15.3.3, 18.3.4, long preamble): aSIFSTime 10, aSlotTime 20; the ACK (14
        // bytes = 112 bits) at 1 Mb/s after aPreambleLength 144 + aPLCPHeaderLength 48 us.
        let (sifs, slot) = (10, 20);
        let ack = 144 + 48 + 112;
        assert_eq!(PhyParams::B.eifs(), (sifs + (sifs + 2 * slot) + ack) * US);
        assert_eq!(PhyParams::B.eifs(), 364 * US);
        // 802.11g ERP-OFDM (19.8.4, short slot): aSIFSTime 10, aSlotTime 9; the ACK at 6
        // Mb/s (17.4.3 TXTIME: N_DBPS = 24): preamble 16 + SIGNAL 4 us, then
        // ceil((16 service + 112 + 6 tail) / 24) = 6 symbols of 4 us, then the 6 us ERP
        // signal extension (19.8.3).
        let (sifs, slot) = (10, 9);
        let symbols = (16 + 112 + 6 + 23) / 24;
        let ack = 16 + 4 + 4 * symbols + 6;
        assert_eq!(ack, 50);
        assert_eq!(PhyParams::G.eifs(), (sifs + (sifs + 2 * slot) + ack) * US);
        assert_eq!(PhyParams::G.eifs(), 88 * US);
        // Not the basic rate: 24 Mb/s control frames do not shorten it.
        assert_eq!(PhyParams::G.eifs_with_ack_at(24_000), (10 + 28 + 34) * US);
        assert!(PhyParams::G.eifs() > PhyParams::G.eifs_with_ack_at(24_000));
    }
}
