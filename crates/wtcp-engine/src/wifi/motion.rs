//! Where a station is at a given time: fixed, moving at a constant velocity, or along
//! waypoints.
//!
//! The channel asks for positions when a frame starts (received power and range are fixed
//! for a frame's duration, as in ns-3's `YansWifiChannel::Send`, which reads both mobility
//! models once per transmission).
//!
//! Deviations and ambiguities resolved:
//! - Waypoints: the station's `x, y` is its position at time 0 and the first waypoint; it
//!   moves in a straight line at constant speed from each waypoint to the next and stays at
//!   the last one. ns-3's `WaypointMobilityModel` moves the same way between waypoints; the
//!   ns-3 engine gives it the station's position as a waypoint at time 0.

use crate::time::{Time, NS_PER_S};

#[derive(Clone, Debug, PartialEq)]
pub enum Motion {
    Fixed,
    /// Metres per second along x and y from the position at time 0.
    Velocity { vx: f64, vy: f64 },
    /// (time, x, y), times strictly increasing and after 0.
    Waypoints(Vec<(Time, f64, f64)>),
}

impl Motion {
    /// The position at `t` of a station that was at `start` at time 0.
    pub fn at(&self, start: (f64, f64), t: Time) -> (f64, f64) {
        match self {
            Motion::Fixed => start,
            Motion::Velocity { vx, vy } => {
                let s = t as f64 / NS_PER_S;
                (start.0 + vx * s, start.1 + vy * s)
            }
            Motion::Waypoints(points) => {
                let (mut t0, mut p0) = (0, start);
                for &(t1, x1, y1) in points {
                    if t < t1 {
                        let f = (t - t0) as f64 / (t1 - t0) as f64;
                        return (p0.0 + f * (x1 - p0.0), p0.1 + f * (y1 - p0.1));
                    }
                    (t0, p0) = (t1, (x1, y1));
                }
                p0
            }
        }
    }

    pub fn moves(&self) -> bool {
        !matches!(self, Motion::Fixed | Motion::Velocity { vx: 0.0, vy: 0.0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Time = 1_000_000_000;

    #[test]
    fn constant_velocity_moves_v_times_t() {
        let m = Motion::Velocity { vx: 2.0, vy: -1.0 };
        assert_eq!(m.at((10.0, 5.0), 0), (10.0, 5.0));
        assert_eq!(m.at((10.0, 5.0), 3 * S), (16.0, 2.0));
        assert_eq!(m.at((10.0, 5.0), S / 2), (11.0, 4.5));
    }

    #[test]
    fn waypoints_interpolate_in_straight_lines_and_stay_at_the_last() {
        let m = Motion::Waypoints(vec![(10 * S, 100.0, 0.0), (20 * S, 100.0, 50.0)]);
        assert_eq!(m.at((0.0, 0.0), 0), (0.0, 0.0));
        assert_eq!(m.at((0.0, 0.0), 5 * S), (50.0, 0.0));
        assert_eq!(m.at((0.0, 0.0), 10 * S), (100.0, 0.0));
        assert_eq!(m.at((0.0, 0.0), 15 * S), (100.0, 25.0));
        assert_eq!(m.at((0.0, 0.0), 99 * S), (100.0, 50.0));
        assert_eq!(Motion::Fixed.at((3.0, 4.0), 7 * S), (3.0, 4.0));
    }
}
