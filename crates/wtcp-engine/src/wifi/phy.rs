//! 802.11 PHY parameter sets and frame airtime.
//!
//! Sources: IEEE Std 802.11-2007, clause 15 (DSSS, 1 and 2 Mb/s), clause 18 (HR/DSSS,
//! 5.5 and 11 Mb/s), clause 17 (OFDM, 802.11a) and clause 19 (ERP, 802.11g); MAC frame sizes from
//! clause 7.2; Bianchi, IEEE JSAC 18(3) 2000, Table II (FHSS numbers, same structure).
//! 802.11n (HT, [`HtMode`]): IEEE Std 802.11-2012 clause 20 (HT-mixed format TXTIME,
//! 20.4.3 Equations 20-91/20-92; N_SYM, Equation 20-32; MCS parameters, 20.6) and 9.19.2
//! (EDCA: AIFS[AC] = aSIFSTime + AIFSN[AC] x aSlotTime, best effort's AIFSN 3, Table 8-105;
//! EIFS - DIFS + AIFS[AC] after an error, 9.19.2.3); the control response rate, 9.7.6.5.
//! 802.11ac (VHT single user, [`HtMode::vht`]): IEEE Std 802.11-2016 clause 21 (TXTIME,
//! 21.4.3 Equation 21-105; MCS parameters, 21.5; 234 data subcarriers at 80 MHz).
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
//! - 802.11n is modelled in the 5 GHz band only (802.11a's slot, SIFS and OFDM control
//!   frames, no signal extension), HT-mixed format, BCC coding, no STBC, one or two spatial
//!   streams (MCS 0-15), 20 or 40 MHz, one BCC encoder (N_ES = 1: ns-3's rule, ht-phy.cc
//!   GetNumberBccEncoders, gives 1 up to 320 Mb/s with the long GI and 350 with the short;
//!   MCS 15 at 40 MHz, short GI, is 300). Its stations are QoS stations sending best-effort
//!   traffic: a QoS data frame (8.3.2.1: 24-byte header, 2-byte QoS Control, FCS: 30 bytes)
//!   and EDCA's AIFS[BE] (43 us) where DCF waits DIFS, with CW 15..1023, and no TXOP
//!   bursting (AC_BE's TXOP limit is 0, Table 8-105); A-MPDU aggregation is `ampdu.rs`'s.
//! - 802.11ac likewise, in the 5 GHz band with 802.11n's MAC, on 1 or 2 spatial streams
//!   (one VHT-LTF each), 20, 40 or 80 MHz, BCC. N_ES, given per mode by 802.11-2016's
//!   tables, is taken as ns-3.44 reads them: one encoder per 540 Mb/s (600 with the short
//!   GI), which has no exception at 2 streams or fewer. `vht_sig_b = "omitted"` leaves the
//!   4 us VHT-SIG-B out of a single-user PPDU, as ns-3.44 does ([`VhtSigB`]).
//! - The basic rate set is taken to be 802.11a's mandatory rates, 6, 12 and 24 Mb/s (an
//!   access point chooses it; hostapd's 802.11a default), so ACKs and CTSs go at the
//!   highest of them not above the data MCS's non-HT reference rate (9.7.6.5.2); an RTS goes
//!   at that rate too, and `eifs = "basic_rate"` means it.
//! - Short guard interval: Equation 20-92 as read, T_SYML x ceil(T_SYMS x N_SYM / T_SYML)
//!   for the data symbols (the HT preamble and HT-SIG are whole 4 us symbols, so rounding
//!   their sum with them is the same). ns-3.44's `CalculateTxDuration` does not round
//!   (36 + 3.6 x 48 = 208.8 us for a 1530-byte MPDU at MCS 7, against 212 us here); Linux's
//!   ath9k rounds 3.6 x N_SYM up to the microsecond. `short_gi_txtime = "unrounded"` is
//!   ns-3's ([`ShortGiTxtime`]).
//! - A receiver's PHY header ([`PhyParams::plcp_header`]) is the legacy 20 us (through
//!   L-SIG) for HT-mixed PPDUs too; their HT-SIG ends 8 us later, and ns-3 starts the
//!   payload only after the whole HT preamble (36 or 40 us). After an error ns-3 holds
//!   802.11-2016's EstimatedAckTxTime (68, 44 or 32 us by the failed frame's
//!   constellation) where this EIFS holds the 6 Mb/s ACK (44 us). Effects untested.

use super::ShortGiTxtime;
use crate::time::Time;

const US: Time = 1_000;

/// Modulation family: decides the airtime formula.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhyKind {
    /// Clauses 15/18: DSSS and HR/DSSS (CCK), long preamble.
    Dsss,
    /// Clauses 17/19: ERP-OFDM with the 6 us signal extension.
    ErpOfdm,
    /// Clause 17: OFDM in the 5 GHz band (802.11a), no signal extension. Also the control
    /// frames of 802.11n in that band.
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
    /// Slots after SIFS before a station may count down: 2 for DCF's DIFS (9.3.2.3), 3 for
    /// EDCA's best-effort AIFS (9.19.2, Table 8-105).
    pub aifsn: u32,
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
        aifsn: 2,
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
        aifsn: 2,
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

    /// 802.11n in the 5 GHz band (clause 20 over clause 17's timing): 802.11a's slot,
    /// SIFS, CW bounds and OFDM control frames; best-effort EDCA (AIFSN 3, 9.19.2 Table
    /// 8-105: CWmin = aCWmin, CWmax = aCWmax) and QoS data frames (24-byte header + 2-byte
    /// QoS Control + FCS, 8.3.2.1). Data frames go at an [`HtMode`], not at `rates_kbps`.
    pub const N: PhyParams = PhyParams { aifsn: 3, mac_header_bytes: 30, ..PhyParams::A };

    /// The time a station waits after SIFS before counting down: DIFS = SIFS + 2 slots
    /// (9.2.10), or under EDCA AIFS[AC] = SIFS + AIFSN slots (9.19.2.3).
    pub fn difs(&self) -> Time {
        self.sifs + u64::from(self.aifsn) * self.slot
    }

    /// EIFS = aSIFSTime + DIFS + ACKTxTime at the lowest PHY mandatory rate
    /// (802.11-2007 9.2.3.4, 9.2.10); under EDCA EIFS - DIFS + AIFS[AC] (9.19.2.3), the
    /// same formula with AIFS in DIFS's place.
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

/// One 802.11n HT-mixed format data rate: MCS 0-15 (MCS 8-15 are 0-7 on two spatial
/// streams), a 20 or 40 MHz channel, the long (800 ns) or short (400 ns) guard interval;
/// or one 802.11ac VHT single-user rate ([`HtMode::vht`]): MCS 0-9 on 1 or 2 spatial
/// streams, 20, 40 or 80 MHz.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HtMode {
    pub mcs: u8,
    pub width_mhz: u16,
    pub short_gi: bool,
    /// 802.11ac: the VHT format on this many spatial streams; `None`: 802.11n's HT.
    pub vht_streams: Option<u8>,
}

/// Whether a VHT single-user PPDU's TXTIME holds the 4 us VHT-SIG-B.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VhtSigB {
    /// 802.11-2016 21.4.3 (Equation 21-105): T_VHT-SIG-B = 4 us in every VHT PPDU.
    #[default]
    Sent,
    /// ns-3.44 (`vht-phy.cc` GetSigBDuration): 0 for a single-user PPDU, 4 us for
    /// multi-user only. The ns3 profile's.
    Omitted,
}

/// 20.6 (Tables 20-30 to 20-37): coded bits per subcarrier and coding rate of MCS 0-7 (the
/// same per stream for MCS 8-15).
const HT_MODULATION: [(u64, u64, u64); 8] = [(1, 1, 2), (2, 1, 2), (2, 3, 4), (4, 1, 2), (4, 3, 4), (6, 2, 3), (6, 3, 4), (6, 5, 6)];

/// 802.11-2016 21.5 (Tables 21-30 to 21-37): VHT MCS 0-9; 8 and 9 are 256-QAM 3/4 and 5/6.
const VHT_MODULATION: [(u64, u64, u64); 10] = [(1, 1, 2), (2, 1, 2), (2, 3, 4), (4, 1, 2), (4, 3, 4), (6, 2, 3), (6, 3, 4), (6, 5, 6), (8, 3, 4), (8, 5, 6)];

/// The non-HT reference rate of MCS 0-7, kb/s (9.7.9; ns-3's `CalculateNonHtReferenceRate`
/// cites 802.11-2016 Table 10-7): the modulation and coding rate's 802.11a rate; 64-QAM 5/6
/// maps to 54 Mb/s.
const HT_NON_HT_REFERENCE_KBPS: [u32; 8] = [6_000, 12_000, 18_000, 24_000, 36_000, 48_000, 54_000, 54_000];

impl HtMode {
    /// The mode, or what is wrong with it.
    pub fn new(mcs: u8, width_mhz: u16, short_gi: bool) -> Result<HtMode, String> {
        if mcs > 15 {
            return Err(format!("MCS {mcs}; allowed: 0-15 (8-15: two spatial streams)"));
        }
        if width_mhz != 20 && width_mhz != 40 {
            return Err(format!("channel width {width_mhz} MHz; allowed: 20, 40"));
        }
        Ok(HtMode { mcs, width_mhz, short_gi, vht_streams: None })
    }

    /// An 802.11ac VHT single-user mode, or what is wrong with it. MCS 9 at 20 MHz on 1 or
    /// 2 streams has no whole number of data bits per symbol and is not a VHT MCS (802.11-2016
    /// Table 21-30; ns-3.44 VhtPhy::IsCombinationAllowed).
    pub fn vht(mcs: u8, width_mhz: u16, streams: u8, short_gi: bool) -> Result<HtMode, String> {
        if mcs > 9 {
            return Err(format!("MCS {mcs}; allowed: 0-9"));
        }
        if ![20, 40, 80].contains(&width_mhz) {
            return Err(format!("channel width {width_mhz} MHz; allowed: 20, 40, 80"));
        }
        if !(1..=2).contains(&streams) {
            return Err(format!("{streams} spatial streams; allowed: 1, 2"));
        }
        if mcs == 9 && width_mhz == 20 {
            return Err("MCS 9 at 20 MHz, not a VHT MCS on 1 or 2 streams; allowed: MCS 0-8 at 20 MHz, 0-9 at 40 and 80".into());
        }
        Ok(HtMode { mcs, width_mhz, short_gi, vht_streams: Some(streams) })
    }

    /// N_SS: spatial streams.
    pub fn streams(&self) -> u64 {
        self.vht_streams.map_or(u64::from(self.mcs / 8) + 1, u64::from)
    }

    /// N_DBPS = N_SD x N_BPSCS x R x N_SS (20.3.11.10.1 / Table 20-6: 52 data subcarriers in
    /// 20 MHz, 108 in 40 MHz; 802.11-2016 Table 21-5: 234 in 80 MHz).
    pub fn data_bits_per_symbol(&self) -> u64 {
        let n_sd = match self.width_mhz {
            80 => 234,
            40 => 108,
            _ => 52,
        };
        let (bpscs, num, den) = match self.vht_streams {
            Some(_) => VHT_MODULATION[usize::from(self.mcs)],
            None => HT_MODULATION[usize::from(self.mcs % 8)],
        };
        n_sd * bpscs * num * self.streams() / den
    }

    /// The subcarrier modulation and code rate of each spatial stream.
    pub fn modulation(&self) -> super::radio::Modulation {
        let (bits, num, den) = match self.vht_streams {
            Some(_) => VHT_MODULATION[usize::from(self.mcs)],
            None => HT_MODULATION[usize::from(self.mcs % 8)],
        };
        super::radio::Modulation { bits: bits as u8, rate: (num as u8, den as u8) }
    }

    /// N_ES, the BCC encoders. HT: 1 (ns-3's rule gives 1 up to 320 Mb/s, 350 with the short
    /// GI, above every mode here). VHT: 802.11-2016 Tables 21-30 to 21-61 give it per mode;
    /// ns-3.44 (VhtPhy::GetNumberBccEncoders) reads them as one encoder per 540 Mb/s (600
    /// with the short GI), with exceptions only above 2 streams; at 2 streams or fewer that
    /// gives 2 at 80 MHz, 2 streams, MCS 7-9, and 1 elsewhere.
    pub fn encoders(&self) -> u64 {
        match self.vht_streams {
            None => 1,
            Some(_) => {
                let per_encoder = if self.short_gi { 600e6 } else { 540e6 };
                (self.rate_bps() / per_encoder).ceil() as u64
            }
        }
    }

    /// The data rate, b/s: N_DBPS per 4 us symbol (3.6 us with the short guard interval).
    pub fn rate_bps(&self) -> f64 {
        let symbol_us = if self.short_gi { 3.6 } else { 4.0 };
        self.data_bits_per_symbol() as f64 / symbol_us * 1e6
    }

    /// The non-HT reference rate, kb/s (9.7.9), from which the control response rate of a
    /// frame sent at this mode is chosen (9.7.6.5.2).
    pub fn non_ht_reference_kbps(&self) -> u32 {
        match self.vht_streams {
            // 256-QAM (VHT MCS 8 and 9) maps to 54 Mb/s (802.11-2016 Table 10-7).
            Some(_) => HT_NON_HT_REFERENCE_KBPS.get(usize::from(self.mcs)).copied().unwrap_or(54_000),
            None => HT_NON_HT_REFERENCE_KBPS[usize::from(self.mcs % 8)],
        }
    }

    /// Airtime of an HT-mixed format PPDU carrying `bytes` (one MPDU, header and FCS
    /// included), 5 GHz (no signal extension). 20.4.3: L-STF + L-LTF 16 us, L-SIG 4 us,
    /// HT-SIG 8 us, HT-STF 4 us and one 4 us HT-LTF per stream (N_LTF = 1 or 2), then N_SYM
    /// = ceil((8 L + 16 + 6 N_ES) / N_DBPS) data symbols (Equation 20-32, BCC, N_ES = 1).
    /// With the short guard interval the data symbols end on the 4 us grid: T_SYML x
    /// ceil(T_SYMS x N_SYM / T_SYML) (Equation 20-92); the HT preamble and HT-SIG are whole
    /// 4 us units, so rounding their sum with them (as here) is the same.
    ///
    /// VHT (802.11-2016 21.4.3, Equation 21-105): L-STF + L-LTF 16 us, L-SIG 4 us,
    /// VHT-SIG-A 8 us, VHT-STF 4 us, one 4 us VHT-LTF per stream (1 or 2), VHT-SIG-B 4 us,
    /// then the data symbols of the same formula with N_ES = [`HtMode::encoders`]; `bytes`
    /// is the A-MPDU before its end-of-frame padding (APEP_LENGTH).
    pub fn airtime(&self, bytes: u32) -> Time {
        self.airtime_as(bytes, ShortGiTxtime::Standard, VhtSigB::Sent)
    }

    /// [`HtMode::airtime`], with the short guard interval's rounding as `sgi` says, and
    /// VHT-SIG-B as `sig_b` says.
    pub fn airtime_as(&self, bytes: u32, sgi: ShortGiTxtime, sig_b: VhtSigB) -> Time {
        let n_sym = (8 * u64::from(bytes) + 16 + 6 * self.encoders()).div_ceil(self.data_bits_per_symbol());
        let ht_preamble = 4 * US + 4 * US * self.streams();
        // HT-SIG, or VHT-SIG-A and (unless omitted) VHT-SIG-B: 8 us either way before it.
        let sig_b = if self.vht_streams.is_some() && sig_b == VhtSigB::Sent { 4 * US } else { 0 };
        let (legacy, ht_sig) = (16 * US + 4 * US, 8 * US + sig_b);
        match (self.short_gi, sgi) {
            (false, _) => legacy + ht_preamble + ht_sig + 4 * US * n_sym,
            (true, ShortGiTxtime::Standard) => legacy + (ht_preamble + ht_sig + 3_600 * n_sym).div_ceil(4 * US) * 4 * US,
            (true, ShortGiTxtime::Unrounded) => legacy + ht_preamble + ht_sig + 3_600 * n_sym,
        }
    }

    /// The rate of the ACK (or CTS) answering a frame at this mode, kb/s (9.7.6.5.2): the
    /// highest rate of the basic rate set not above the non-HT reference rate; the basic
    /// rate set is 802.11a's mandatory rates, 6, 12 and 24 Mb/s (17.1).
    pub fn control_response_kbps(&self) -> u32 {
        [24_000, 12_000, 6_000].into_iter().find(|&r| r <= self.non_ht_reference_kbps()).unwrap_or(6_000)
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
    /// 802.11-2012 20.4.3 worked by hand for a 1530-byte QoS data MPDU (1500 IP bytes).
    #[test]
    fn ht_mixed_airtime_follows_the_txtime_equations() {
        let m = |mcs, w, sgi| HtMode::new(mcs, w, sgi).unwrap();
        // MCS 7, 20 MHz: N_DBPS = 52 x 6 x 5/6 = 260 (65 Mb/s); (12240 + 22) / 260 -> 48
        // symbols; 16 + 4 + 8 (HT-SIG) + 4 (HT-STF) + 4 (one HT-LTF) + 48 x 4 = 228 us.
        assert_eq!(m(7, 20, false).data_bits_per_symbol(), 260);
        assert_eq!(m(7, 20, false).rate_bps(), 65e6);
        assert_eq!(m(7, 20, false).airtime(1530), 228 * US);
        // Short GI: 20 + 4 x ceil((8 + 8 + 3.6 x 48) / 4) = 20 + 4 x 48 = 212 us.
        assert_eq!(m(7, 20, true).airtime(1530), 212 * US);
        assert!((m(7, 20, true).rate_bps() - 72.222e6).abs() < 1e3);
        // MCS 15, 40 MHz: two streams, N_DBPS = 108 x 6 x 5/6 x 2 = 1080 (270 / 300 Mb/s);
        // 12 symbols; two HT-LTFs: 20 + 8 + 12 + 48 = 88 us long GI; short GI 20 + 4 x
        // ceil((12 + 8 + 43.2) / 4) = 20 + 64 = 84 us.
        assert_eq!(m(15, 40, false).data_bits_per_symbol(), 1080);
        assert_eq!(m(15, 40, false).airtime(1530), 88 * US);
        assert_eq!(m(15, 40, true).airtime(1530), 84 * US);
        // ns-3.44's reading (CalculateTxDuration gives 208.8 and 83.2 us): no rounding.
        assert_eq!(m(7, 20, true).airtime_as(1530, ShortGiTxtime::Unrounded, VhtSigB::Sent), 208_800);
        assert_eq!(m(15, 40, true).airtime_as(1530, ShortGiTxtime::Unrounded, VhtSigB::Sent), 83_200);
        assert_eq!(m(7, 20, false).airtime_as(1530, ShortGiTxtime::Unrounded, VhtSigB::Sent), 228 * US);
        assert!((m(15, 40, true).rate_bps() - 300e6).abs() < 1.0);
        // MCS 0 and MCS 8 (BPSK 1/2 on one and two streams): 6.5 and 13 Mb/s.
        assert_eq!(m(0, 20, false).rate_bps(), 6.5e6);
        assert_eq!(m(8, 20, false).rate_bps(), 13e6);
        assert!(HtMode::new(16, 20, false).is_err() && HtMode::new(3, 80, false).is_err());
    }

    #[test]
    fn ht_acks_go_at_the_highest_basic_rate_not_above_the_reference_rate() {
        // 9.7.6.5.2 with 802.11a's mandatory rates as the basic rate set.
        let ack = |mcs| HtMode::new(mcs, 20, false).unwrap().control_response_kbps();
        assert_eq!([ack(0), ack(1), ack(2), ack(3), ack(4), ack(7), ack(9), ack(15)], [6_000, 12_000, 12_000, 24_000, 24_000, 24_000, 12_000, 24_000]);
    }

    #[test]
    fn edca_best_effort_waits_aifs_and_its_eifs_uses_it() {
        // 9.19.2.3: AIFS[BE] = 16 + 3 x 9 = 43 us; EIFS = SIFS + ACK at 6 Mb/s (44 us) + AIFS.
        assert_eq!(PhyParams::N.difs(), 43 * US);
        assert_eq!(PhyParams::N.eifs(), (16 + 44 + 43) * US);
        assert_eq!((PhyParams::N.cw_min, PhyParams::N.cw_max, PhyParams::N.mac_header_bytes), (15, 1023, 30));
    }

    #[test]
    fn vht_txtime_follows_802_11_2016_and_ns3_drops_only_the_sig_b() {
        let v = |mcs, width, nss, sgi| HtMode::vht(mcs, width, nss, sgi).unwrap();
        let both = |m: HtMode, bytes, sgi| (m.airtime_as(bytes, sgi, VhtSigB::Sent), m.airtime_as(bytes, sgi, VhtSigB::Omitted));
        // A 1534-octet S-MPDU (a 1530-octet MPDU and its delimiter). MCS 0, 20 MHz, 1 stream:
        // N_DBPS 26, N_SYM ceil((12272 + 16 + 6) / 26) = 473; 40 us of preamble and SIGs.
        // ns-3.44's CalculateTxDuration, through the wheel: 1928 us (no VHT-SIG-B).
        assert_eq!(both(v(0, 20, 1, false), 1534, ShortGiTxtime::Standard), (1932 * US, 1928 * US));
        // MCS 7: N_DBPS 260, 48 symbols; ns-3 228 us.
        assert_eq!(both(v(7, 20, 1, false), 1534, ShortGiTxtime::Standard), (232 * US, 228 * US));
        // MCS 9, 80 MHz, 2 streams: N_DBPS 3120, 780 Mb/s, two BCC encoders: N_SYM
        // ceil((12272 + 16 + 12) / 3120) = 4; two VHT-LTFs. ns-3 56 us, and 54.4 us with the
        // short GI unrounded.
        let m = v(9, 80, 2, false);
        assert_eq!((m.data_bits_per_symbol(), m.encoders()), (3120, 2));
        assert_eq!(both(m, 1534, ShortGiTxtime::Standard), (60 * US, 56 * US));
        assert_eq!(v(9, 80, 2, true).airtime_as(1534, ShortGiTxtime::Unrounded, VhtSigB::Omitted), 54_400);
        // The standard's short GI: 20 + 4 x ceil((12 + 12 + 3.6 x 4) / 4) = 60 us.
        assert_eq!(v(9, 80, 2, true).airtime(1534), 60 * US);
        // A 43 006-octet A-MPDU at MCS 7, 80 MHz, 2 streams (585 Mb/s: two encoders): 148
        // symbols; ns-3 632 us. At MCS 6 (526.5 Mb/s) one encoder.
        assert_eq!(both(v(7, 80, 2, false), 43_006, ShortGiTxtime::Standard), (636 * US, 632 * US));
        assert_eq!(v(6, 80, 2, false).encoders(), 1);
        // MCS 8, 40 MHz, 2 streams, short GI: N_DBPS 1296, 10 symbols; ns-3 76 us.
        assert_eq!(v(8, 40, 2, true).airtime_as(1534, ShortGiTxtime::Unrounded, VhtSigB::Omitted), 76 * US);
        // Rates: MCS 9, 80 MHz, one stream: 390 Mb/s, 433.3 with the short GI.
        assert_eq!(v(9, 80, 1, false).rate_bps(), 390e6);
        assert!((v(9, 80, 1, true).rate_bps() - 433.33e6).abs() < 0.01e6);
        // 256-QAM's control response comes at 24 Mb/s (non-HT reference 54 Mb/s).
        assert_eq!(v(9, 40, 1, false).control_response_kbps(), 24_000);
    }

    #[test]
    fn vht_modes_outside_802_11ac_single_user_two_streams_are_refused() {
        assert!(HtMode::vht(9, 20, 1, false).unwrap_err().contains("MCS 9 at 20 MHz"));
        assert!(HtMode::vht(10, 40, 1, false).unwrap_err().contains("0-9"));
        assert!(HtMode::vht(7, 160, 1, false).unwrap_err().contains("20, 40, 80"));
        assert!(HtMode::vht(7, 80, 3, false).unwrap_err().contains("1, 2"));
        assert!(HtMode::vht(9, 40, 2, true).is_ok());
    }
}
