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

#[cfg(test)]
mod tests {
    use super::*;

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
