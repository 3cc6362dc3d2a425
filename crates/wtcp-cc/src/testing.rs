//! A small harness that drives an algorithm's hooks without a network: it keeps the
//! sender-side numbers a real sender would (SND.UNA, SND.MAX, the RTT estimator) and
//! builds the [`Ctx`] for each call. Used by the contract suite and per-algorithm tests.

use crate::api::{AckSample, CongestionControl, Ctx, HostShared, Loss, Requests, Signal, Time, Verdict, Window};
use crate::rtt::{RttConfig, RttEstimator};

pub const MSS: u32 = 1000;

/// One algorithm with the sender state around it.
pub struct Harness {
    pub cc: Box<dyn CongestionControl>,
    pub w: Window,
    pub rtt: RttEstimator,
    pub host: HostShared,
    pub requests: Requests,
    pub now: Time,
    pub snd_una: u64,
    pub snd_max: u64,
    pub dupacks: u32,
    pub in_recovery: bool,
    /// Payload bytes that reached the receiver so far (the ACKs' `rx_bytes`).
    pub rx_bytes: u64,
    /// What `Ctx::cwnd_limited` says (true unless a test sets it).
    pub cwnd_limited: bool,
}

impl Harness {
    /// A harness with the RFC 6928 initial window (10 segments) and no ssthresh.
    pub fn new(cc: Box<dyn CongestionControl>) -> Self {
        let mut h = Harness {
            cc,
            w: Window::new(10.0 * f64::from(MSS), f64::INFINITY),
            rtt: RttEstimator::new(RttConfig { min_rto: 200_000_000, ..RttConfig::default() }),
            host: HostShared::default(),
            requests: Requests::default(),
            now: 0,
            snd_una: 0,
            snd_max: 0,
            dupacks: 0,
            in_recovery: false,
            rx_bytes: 0,
            cwnd_limited: true,
        };
        h.call(|cc, w, cx| cc.init(w, cx));
        h
    }

    /// Call a hook with a context made from the harness state.
    pub fn call<R>(&mut self, f: impl FnOnce(&mut dyn CongestionControl, &mut Window, &mut Ctx) -> R) -> R {
        let outstanding = self.snd_max - self.snd_una;
        let mut cx = Ctx {
            now: self.now,
            mss: MSS,
            flight_size: outstanding,
            pipe: outstanding.saturating_sub(u64::from(self.dupacks) * u64::from(MSS)),
            snd_una: self.snd_una,
            snd_max: self.snd_max,
            segments_sent: self.snd_max.div_ceil(u64::from(MSS)),
            cwnd_limited: self.cwnd_limited,
            rtt: &self.rtt,
            host: &mut self.host,
            requests: &mut self.requests,
        };
        let r = f(self.cc.as_mut(), &mut self.w, &mut cx);
        // Checked before the sender's floor, which would turn a NaN into one segment.
        let name = self.cc.name();
        assert!(self.w.cwnd.is_finite(), "{name}: a hook left cwnd = {}", self.w.cwnd);
        assert!(!self.w.ssthresh.is_nan() && self.w.ssthresh > 0.0, "{name}: a hook left ssthresh = {}", self.w.ssthresh);
        assert!(self.w.pacing_rate.is_none_or(|r| r.is_finite() && r > 0.0), "{name}: a hook left pacing_rate = {:?}", self.w.pacing_rate);
        self.w.cwnd = self.w.cwnd.max(f64::from(MSS));
        r
    }

    /// Send everything the window allows (the network is not modelled).
    pub fn fill_window(&mut self) {
        let w = self.w.cwnd.max(f64::from(MSS)) as u64;
        if self.snd_una + w > self.snd_max {
            self.snd_max = self.snd_una + w;
        }
    }

    /// An ACK of `segments` new segments after `rtt` nanoseconds, with the arrival time of
    /// the data at the receiver half an RTT earlier.
    pub fn ack(&mut self, segments: u64, rtt: Time) {
        self.fill_window();
        self.now += rtt.max(1);
        let bytes = (segments * u64::from(MSS)).min(self.snd_max - self.snd_una);
        self.snd_una += bytes;
        self.dupacks = 0;
        self.rtt.on_sample(rtt);
        let mut s = AckSample::default();
        s.ack = self.snd_una;
        s.acked_bytes = bytes;
        s.delivered_bytes = bytes;
        s.rtt = Some(rtt);
        self.rx_bytes += bytes;
        s.rx_arrival = Some(self.now - rtt / 2);
        s.rx_bytes = Some(self.rx_bytes);
        s.ts_echo = Some(self.now - rtt);
        s.delivered = self.snd_una;
        s.delivered_total = self.snd_una;
        s.in_recovery = self.in_recovery;
        self.call(|cc, w, cx| cc.on_ack(&s, w, cx));
    }

    /// A duplicate ACK.
    pub fn dup_ack(&mut self) {
        self.fill_window();
        self.now += 1_000_000;
        self.dupacks += 1;
        let mut s = AckSample::default();
        s.ack = self.snd_una;
        s.dup = true;
        s.in_recovery = self.in_recovery;
        s.delivered = self.snd_una;
        s.delivered_total = self.snd_una;
        self.call(|cc, w, cx| cc.on_ack(&s, w, cx));
    }

    /// A duplicate ACK `gap` ns after the previous event, reporting one more segment that
    /// reached the receiver at `rx` (timestamps on).
    pub fn dup_ack_rx(&mut self, gap: Time, rx: Time) {
        self.fill_window();
        self.now += gap;
        self.dupacks += 1;
        self.rx_bytes += u64::from(MSS);
        let mut s = AckSample::default();
        s.ack = self.snd_una;
        s.dup = true;
        s.rx_arrival = Some(rx);
        s.rx_bytes = Some(self.rx_bytes);
        s.in_recovery = self.in_recovery;
        s.delivered = self.snd_una;
        self.call(|cc, w, cx| cc.on_ack(&s, w, cx));
    }

    pub fn loss(&mut self, loss: Loss) -> Verdict {
        self.fill_window();
        if let Loss::Timeout { .. } = loss {
            self.rtt.on_timeout();
        }
        self.call(|cc, w, cx| cc.on_loss(loss, w, cx))
    }

    pub fn signal(&mut self, s: Signal) {
        self.call(|cc, w, cx| cc.on_signal(s, w, cx));
    }

    pub fn exit_recovery(&mut self) {
        self.in_recovery = false;
        self.call(|cc, w, cx| cc.on_recovery_exit(w, cx));
    }

    pub fn cwnd_segments(&self) -> f64 {
        self.w.cwnd / f64::from(MSS)
    }
}

/// An algorithm's trace variable by name (NaN if it reports none of that name).
pub fn var(h: &Harness, name: &str) -> f64 {
    let mut v = Vec::new();
    h.cc.trace_vars(&mut v);
    v.iter().find(|(n, _)| *n == name).map_or(f64::NAN, |p| p.1)
}

/// Equal up to floating-point rounding.
pub fn approx(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// An ACK of `segments` new segments `gap` ns after the previous event, with RTT sample
/// `rtt`, the receiver's arrival time `rx` (timestamps on) and an echoed mark.
pub fn ack_timed(h: &mut Harness, segments: u64, gap: Time, rtt: Time, rx: Option<Time>, marked: bool) {
    h.fill_window();
    h.now += gap;
    let bytes = (segments * u64::from(MSS)).min(h.snd_max - h.snd_una);
    h.snd_una += bytes;
    h.dupacks = 0;
    h.rtt.on_sample(rtt);
    let mut s = AckSample::default();
    s.ack = h.snd_una;
    s.acked_bytes = bytes;
    s.rtt = Some(rtt);
    s.rx_arrival = rx;
    if rx.is_some() {
        h.rx_bytes += bytes;
        s.rx_bytes = Some(h.rx_bytes);
    }
    s.ts_echo = rx.map(|_| h.now.saturating_sub(rtt));
    s.marked = marked;
    s.delivered = h.snd_una;
    s.in_recovery = h.in_recovery;
    if marked {
        h.signal(Signal::CongestionMark);
    }
    h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
}
