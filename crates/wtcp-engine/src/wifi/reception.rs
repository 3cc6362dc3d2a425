//! Geometry and reception under the radio model: who senses a frame (recomputed when it
//! starts, so stations may move), the power it arrives with, the frame a receiver is
//! locked onto, the interference it sums meanwhile, and the probability that each part of
//! the frame survives (module [`super::radio`] for the formulas).
//!
//! A station that is not transmitting locks onto any frame it senses (addressed to it or
//! not) whose preamble stands 4 dB above the noise plus what it already senses, if it is
//! locked onto nothing; a stronger frame arriving within 4 us of the lock evicts it (the
//! channel's `radio_arrival`). What it already senses, and every frame that starts later,
//! adds its power to the interference for the time they overlap. The frame's PHY header
//! (L-SIG, and HT-SIG or VHT-SIG-A) and its payload (each A-MPDU subframe on its own)
//! survive with the product of the chunk success rates between the instants the
//! interference changes. A transmission of its own ends the lock (half duplex).
//!
//! Deviations and ambiguities resolved:
//! - Detection is judged when the frame arrives, with the interference then; ns-3.44 judges
//!   it 4 us later (phy-entity.cc:1056-1067), so a frame starting in those 4 us is counted
//!   there and not here.
//! - No frame capture after the detection window, as ns-3.44 without a frame capture model.
//! - Frames below the CCA threshold are not summed into the interference (module
//!   [`super::radio`]).
//! - ns-3.44 multiplies the SNR of an AWGN channel by antennas / streams for every field
//!   (interference-helper.cc:422-432), the headers and control frames at one stream
//!   included; wtcp has no receive diversity. The ns-3 engine gives an 802.11n station one
//!   antenna per stream of its MCS, but a two-stream station there still gains 3 dB on its
//!   PHY headers, preamble detection and ACKs (effect untested).

use super::motion::Motion;
use super::radio::{dbm_to_mw, Modulation, Radio};
use crate::rng::{stream, SimRng};
use crate::time::Time;

/// One frame overlapping a locked reception.
#[derive(Clone, Copy, Debug)]
struct Interferer {
    from: u32,
    start: Time,
    /// `Time::MAX` while it lasts.
    end: Time,
    mw: f64,
}

/// What a receiver knows of the frame it is locked onto.
#[derive(Debug, Default)]
struct Locked {
    /// The transmitter, while the frame lasts.
    from: Option<u32>,
    signal_mw: f64,
    start: Time,
    interferers: Vec<Interferer>,
}

/// One part of a frame, timed from the start of its reception at the receiver.
#[derive(Clone, Copy, Debug)]
pub struct Section {
    pub from: Time,
    pub to: Time,
    pub modulation: Modulation,
    pub rate_bps: f64,
    pub noise_mw: f64,
}

#[derive(Debug)]
pub struct Geometry {
    starts: Vec<(f64, f64)>,
    motions: Vec<Motion>,
    radio: Option<Radio>,
    /// Shadowing per pair, dB (`[a * n + b]`, symmetric).
    shadow_db: Vec<f64>,
    /// The current frame of each transmitter at each listener, mW (`[tx * n + rx]`).
    rx_mw: Vec<f64>,
    fading: Vec<SimRng>,
    locked: Vec<Locked>,
    /// Positions or powers change from frame to frame (see `changes`).
    changes: bool,
    /// The frames each station senses now: (transmitter, power in mW).
    ongoing: Vec<Vec<(u32, f64)>>,
    scratch: Vec<Time>,
}

impl Geometry {
    /// Stations at `starts` at time 0 moving as `motions` say; with `radio`, the shadowing of
    /// each pair is drawn from the stream `"{label}:shadowing"` and each station's fading from
    /// `"{label}:sta{i}:fading"`.
    pub fn new(starts: &[(f64, f64)], motions: Vec<Motion>, radio: Option<Radio>, seed: u64, replication: u64, label: &str) -> Geometry {
        let n = starts.len();
        let mut shadow_db = vec![0.0; n * n];
        if let Some(r) = &radio {
            let mut rng = stream(seed, replication, &format!("{label}:shadowing"));
            for a in 0..n {
                for b in a + 1..n {
                    let s = r.shadowing_db(&mut rng);
                    shadow_db[a * n + b] = s;
                    shadow_db[b * n + a] = s;
                }
            }
        }
        let fading = (0..n).map(|i| stream(seed, replication, &format!("{label}:sta{i}:fading"))).collect();
        let changes = radio.is_some() || motions.iter().any(Motion::moves);
        Geometry { starts: starts.to_vec(), motions, radio, shadow_db, rx_mw: vec![0.0; n * n], fading, locked: (0..n).map(|_| Locked::default()).collect(), changes, ongoing: vec![Vec::new(); n], scratch: Vec::new() }
    }

    /// Whether positions or powers change from frame to frame (else the range disc's
    /// matrices, computed once, hold).
    pub fn changes(&self) -> bool {
        self.changes
    }

    pub fn position(&self, s: usize, t: Time) -> (f64, f64) {
        self.motions[s].at(self.starts[s], t)
    }

    /// Transmitter `x` starts a frame `width_mhz` wide at `now`: fill its rows of `hears` and
    /// `reach` (and, with the radio model, the power at each listener). Range disc: within
    /// `cs_range` / `tx_range`. Radio: at or above the CCA threshold, 3 dB higher per doubling
    /// of the width (802.11-2016 19.3.19.5.2 and 21.3.18.5.3: -82, -79, -76 dBm for a 20, 40,
    /// 80 MHz PPDU; ns-3.44 yans-wifi-channel.cc:131-136), for both.
    pub fn refresh(&mut self, x: usize, now: Time, width_mhz: u16, tx_range: f64, cs_range: f64, hears: &mut [bool], reach: &mut [bool]) {
        let n = self.starts.len();
        let px = self.position(x, now);
        for b in 0..n {
            let pb = self.position(b, now);
            let d = (px.0 - pb.0).hypot(px.1 - pb.1);
            let (h, r) = match &self.radio {
                None => (d <= cs_range, d <= tx_range),
                Some(radio) => {
                    let dbm = radio.mean_rx_dbm(d) + self.shadow_db[x * n + b] + if b == x { 0.0 } else { radio.fading_db(&mut self.fading[x]) };
                    self.rx_mw[x * n + b] = dbm_to_mw(dbm);
                    let sensed = dbm >= radio.cca_threshold_dbm + 10.0 * (f64::from(width_mhz) / 20.0).log10();
                    (sensed, sensed)
                }
            };
            hears[x * n + b] = b != x && h;
            reach[x * n + b] = b != x && r;
        }
    }

    /// `x`'s frame begins at `s` (after `lock` or `interfere` has dealt with it).
    pub fn arrive(&mut self, s: usize, x: usize) {
        let mw = self.power(x, s);
        self.ongoing[s].push((x as u32, mw));
    }

    /// The power of the frames `s` senses now, mW.
    pub fn ambient_mw(&self, s: usize) -> f64 {
        self.ongoing[s].iter().map(|&(_, mw)| mw).sum()
    }

    /// `s` locks onto `x`'s frame at `now`; the frames it already senses interfere from now.
    pub fn lock(&mut self, s: usize, x: usize, now: Time) {
        let n = self.starts.len();
        let l = &mut self.locked[s];
        l.from = Some(x as u32);
        l.signal_mw = self.rx_mw[x * n + s];
        l.start = now;
        l.interferers.clear();
        for &(from, mw) in &self.ongoing[s] {
            l.interferers.push(Interferer { from, start: now, end: Time::MAX, mw });
        }
    }

    /// `s` starts to transmit: it drops the frame it was locked onto.
    pub fn unlock(&mut self, s: usize) {
        self.locked[s].from = None;
    }

    /// The frame `s` is locked onto (its transmitter) and when the lock began.
    pub fn locked_on(&self, s: usize) -> Option<(usize, Time)> {
        let l = &self.locked[s];
        l.from.map(|x| (x as usize, l.start))
    }

    /// The power of `x`'s current frame at `s`, mW.
    pub fn power(&self, x: usize, s: usize) -> f64 {
        self.rx_mw[x * self.starts.len() + s]
    }

    /// `y`'s frame ends at `s`: the lock ends if it was the locked frame (what was learnt
    /// of it stays for the reception's outcome), else its interference ends.
    pub fn frame_ends(&mut self, s: usize, y: usize, now: Time) {
        if let Some(k) = self.ongoing[s].iter().position(|&(from, _)| from == y as u32) {
            self.ongoing[s].swap_remove(k);
        }
        let l = &mut self.locked[s];
        if l.from == Some(y as u32) {
            l.from = None;
        } else {
            self.interference_ends(s, y, now);
        }
    }

    /// `y`'s frame begins to overlap what `s` is locked onto.
    pub fn interfere(&mut self, s: usize, y: usize, now: Time) {
        let n = self.starts.len();
        let mw = self.rx_mw[y * n + s];
        self.locked[s].interferers.push(Interferer { from: y as u32, start: now, end: Time::MAX, mw });
    }

    /// `y`'s frame ends at `s`.
    pub fn interference_ends(&mut self, s: usize, y: usize, now: Time) {
        if let Some(i) = self.locked[s].interferers.iter_mut().find(|i| i.from == y as u32 && i.end == Time::MAX) {
            i.end = now;
        }
    }

    /// The SINR (linear) of `s`'s locked frame at its end `t`: the interference of the last
    /// interval before it (the SNR ns-3.44 reports, interference-helper.cc:437-485).
    pub fn end_sinr(&self, s: usize, noise_mw: f64, t: Time) -> f64 {
        let l = &self.locked[s];
        let interference: f64 = l.interferers.iter().filter(|i| i.start < t && i.end >= t).map(|i| i.mw).sum();
        l.signal_mw / (noise_mw + interference)
    }

    /// Whether anything overlapped `s`'s locked frame.
    pub fn interfered(&self, s: usize) -> bool {
        !self.locked[s].interferers.is_empty()
    }

    /// Probability that `section` of the frame `s` is locked onto survives: the product of
    /// the chunk success rates between the instants the interference changes.
    pub fn survives(&mut self, s: usize, section: &Section) -> f64 {
        let l = &self.locked[s];
        let (a, b) = (l.start + section.from, l.start + section.to);
        if b <= a {
            return 1.0;
        }
        let cuts = &mut self.scratch;
        cuts.clear();
        cuts.extend([a, b]);
        for i in &l.interferers {
            cuts.extend([i.start, i.end].into_iter().filter(|&t| t > a && t < b));
        }
        cuts.sort_unstable();
        cuts.dedup();
        let mut p = 1.0;
        for w in cuts.windows(2) {
            let (c0, c1) = (w[0], w[1]);
            let interference: f64 = l.interferers.iter().filter(|i| i.start < c1 && i.end > c0).map(|i| i.mw).sum();
            let sinr = l.signal_mw / (section.noise_mw + interference);
            // Whole bits, as ns-3.44 (interference-helper.cc:525-565).
            let bits = ((c1 - c0) as f64 * 1e-9 * section.rate_bps).floor();
            p *= section.modulation.chunk_success(sinr, bits);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: Time = 1_000;

    fn two_at(d: f64, radio: Radio) -> Geometry {
        Geometry::new(&[(0.0, 0.0), (d, 0.0), (0.0, d)], vec![Motion::Fixed; 3], Some(radio), 1, 0, "w")
    }

    fn payload(noise_mw: f64) -> Section {
        Section { from: 20 * US, to: 220 * US, modulation: Modulation { bits: 6, rate: (3, 4) }, rate_bps: 54e6, noise_mw }
    }

    #[test]
    fn power_follows_distance_and_the_cca_threshold_bounds_what_is_sensed() {
        let r = Radio::default();
        let far = r.cca_range_m() * 1.01;
        let mut g = Geometry::new(&[(0.0, 0.0), (10.0, 0.0), (far, 0.0)], vec![Motion::Fixed; 3], Some(r), 1, 0, "w");
        let (mut hears, mut reach) = (vec![false; 9], vec![false; 9]);
        g.refresh(0, 0, 20, 0.0, 0.0, &mut hears, &mut reach);
        assert_eq!(&hears[0..3], &[false, true, false]);
        assert_eq!(hears, reach);
        assert!((10.0 * g.rx_mw[1].log10() - r.mean_rx_dbm(10.0)).abs() < 1e-9);
        // A 40 MHz PPDU needs 3 dB more, an 80 MHz one 6: one arriving at -78.9 dBm is sensed
        // only as the first.
        let at_79 = r.cca_range_m() * 10f64.powf(-3.1 / 30.0);
        let mut g = Geometry::new(&[(0.0, 0.0), (at_79, 0.0)], vec![Motion::Fixed; 2], Some(r), 1, 0, "w");
        let (mut hears, mut reach) = (vec![false; 4], vec![false; 4]);
        g.refresh(0, 0, 40, 0.0, 0.0, &mut hears, &mut reach);
        assert!(hears[1], "-78.9 dBm reaches a 40 MHz PPDU threshold");
        g.refresh(0, 0, 80, 0.0, 0.0, &mut hears, &mut reach);
        assert!(!hears[1]);
    }

    #[test]
    fn an_interferer_lowers_the_success_only_while_it_overlaps() {
        let r = Radio::default();
        // 20 m: -68.8 dBm, 25 dB over the noise: 54 Mb/s survives.
        let mut g = two_at(20.0, r);
        let (mut hears, mut reach) = (vec![false; 9], vec![false; 9]);
        g.refresh(0, 0, 20, 0.0, 0.0, &mut hears, &mut reach);
        g.refresh(2, 0, 20, 0.0, 0.0, &mut hears, &mut reach);
        let noise = r.noise_mw(20);
        g.lock(1, 0, 0);
        let alone = g.survives(1, &payload(noise));
        assert!(alone > 0.999, "{alone}");
        // Station 2 is 28 m from 1: only 4.4 dB weaker; overlapping all of the payload kills it.
        g.interfere(1, 2, 10 * US);
        assert!(g.survives(1, &payload(noise)) < 1e-6);
        // Overlapping only the preamble, before the section, costs nothing.
        g.interference_ends(1, 2, 15 * US);
        assert!((g.survives(1, &payload(noise)) - alone).abs() < 1e-12);
        assert!(g.interfered(1));
    }

    #[test]
    fn moving_stations_leave_range() {
        let r = Radio::default();
        let range = r.cca_range_m();
        let mut g = Geometry::new(&[(0.0, 0.0), (range - 10.0, 0.0)], vec![Motion::Fixed, Motion::Velocity { vx: 1.0, vy: 0.0 }], Some(r), 1, 0, "w");
        let (mut hears, mut reach) = (vec![false; 4], vec![false; 4]);
        g.refresh(0, 0, 20, 0.0, 0.0, &mut hears, &mut reach);
        assert!(hears[1]);
        g.refresh(0, 20_000_000_000, 20, 0.0, 0.0, &mut hears, &mut reach);
        assert!(!hears[1]);
        assert!(g.changes());
        // The range disc moves too.
        let mut disc = Geometry::new(&[(0.0, 0.0), (240.0, 0.0)], vec![Motion::Fixed, Motion::Velocity { vx: 1.0, vy: 0.0 }], None, 1, 0, "w");
        disc.refresh(0, 0, 20, 250.0, 550.0, &mut hears, &mut reach);
        assert!(reach[1] && hears[1]);
        disc.refresh(0, 20_000_000_000, 20, 250.0, 550.0, &mut hears, &mut reach);
        assert!(!reach[1] && hears[1]);
    }
}
