//! Small estimators shared by several algorithms.

/// Exponentially weighted moving average: `v <- (1 - gain) * v + gain * x`; the first
/// sample initialises it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ewma {
    gain: f64,
    value: Option<f64>,
}

impl Ewma {
    /// `gain` is the weight of a new sample, in (0, 1].
    pub fn new(gain: f64) -> Self {
        Ewma { gain, value: None }
    }

    pub fn update(&mut self, x: f64) -> f64 {
        let v = match self.value {
            None => x,
            Some(v) => (1.0 - self.gain) * v + self.gain * x,
        };
        self.value = Some(v);
        v
    }

    pub fn value(&self) -> Option<f64> {
        self.value
    }

    pub fn reset(&mut self) {
        self.value = None;
    }
}

/// The smallest value seen (e.g. the base RTT).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MinTracker {
    min: Option<u64>,
}

impl MinTracker {
    pub fn update(&mut self, x: u64) -> u64 {
        let m = self.min.map_or(x, |m| m.min(x));
        self.min = Some(m);
        m
    }

    pub fn value(&self) -> Option<u64> {
        self.min
    }
}

/// The smallest (or largest) sample of the last `window` units of time (ns, or rounds for a
/// packet-timed filter): a deque of samples that are each the extreme of everything after
/// them (each sample enters and leaves once, so the cost per sample is constant on average;
/// the deque's storage is kept between samples). A sample that has left the window given
/// to one update does not come back when a later update gives a longer one. The newest
/// sample always stays, however old.
#[derive(Clone, Debug)]
pub struct WindowedExtreme<T = u64> {
    max: bool,
    samples: std::collections::VecDeque<(u64, T)>,
}

impl<T: Copy + PartialOrd> WindowedExtreme<T> {
    pub fn min() -> Self {
        WindowedExtreme { max: false, samples: std::collections::VecDeque::new() }
    }

    pub fn max() -> Self {
        WindowedExtreme { max: true, samples: std::collections::VecDeque::new() }
    }

    /// Add sample `x` taken at `now`; forget samples older than `now - window`.
    pub fn update(&mut self, now: u64, x: T, window: u64) -> T {
        let beaten = |old: T| if self.max { old <= x } else { old >= x };
        while self.samples.back().is_some_and(|&(_, v)| beaten(v)) {
            self.samples.pop_back();
        }
        self.samples.push_back((now, x));
        while self.samples.len() > 1 && self.samples.front().is_some_and(|&(t, _)| t + window < now) {
            self.samples.pop_front();
        }
        self.value().expect("a sample was just added")
    }

    pub fn value(&self) -> Option<T> {
        self.samples.front().map(|&(_, v)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windowed_extremes_forget_samples_older_than_the_window() {
        let (mut lo, mut hi) = (WindowedExtreme::min(), WindowedExtreme::max());
        for (t, x) in [(0, 5), (10, 3), (20, 9), (30, 4)] {
            lo.update(t, x, 15);
            hi.update(t, x, 15);
        }
        // At t = 30 the window holds t >= 15: samples 9 and 4.
        assert_eq!((lo.value(), hi.value()), (Some(4), Some(9)));
        lo.update(100, 7, 15);
        assert_eq!(lo.value(), Some(7)); // only the newest is left
    }

    #[test]
    fn ewma_starts_at_the_first_sample_then_moves_by_the_gain() {
        let mut e = Ewma::new(0.25);
        assert_eq!(e.update(8.0), 8.0);
        assert_eq!(e.update(4.0), 0.75 * 8.0 + 0.25 * 4.0);
    }

    #[test]
    fn min_tracker_keeps_the_minimum() {
        let mut m = MinTracker::default();
        m.update(5);
        m.update(3);
        m.update(9);
        assert_eq!(m.value(), Some(3));
    }
}
