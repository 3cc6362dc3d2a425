//! One clock for the relay and every flow thread: CLOCK_MONOTONIC (one clock for every
//! namespace), in ns since the run's start, the simulator's `Time`.

use wtcp_engine::time::Time;

/// CLOCK_MONOTONIC now, ns.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// CLOCK_REALTIME now, ns (the clock of the kernel's socket timestamps).
pub fn realtime_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[derive(Clone, Copy, Debug)]
pub struct Clock {
    origin: u64,
}

impl Clock {
    pub fn start() -> Clock {
        Clock { origin: monotonic_ns() }
    }

    /// Time since the start, ns.
    pub fn now(&self) -> Time {
        monotonic_ns().saturating_sub(self.origin)
    }

    /// The run's time of a CLOCK_MONOTONIC reading.
    pub fn of(&self, mono: u64) -> Time {
        mono.saturating_sub(self.origin)
    }

    /// Sleep until run time `t` (at once if it has passed).
    pub fn sleep_until(&self, t: Time) {
        let abs = self.origin + t;
        let ts = libc::timespec { tv_sec: (abs / 1_000_000_000) as libc::time_t, tv_nsec: (abs % 1_000_000_000) as libc::c_long };
        // SAFETY: an absolute sleep on CLOCK_MONOTONIC; EINTR just returns early.
        unsafe { libc::clock_nanosleep(libc::CLOCK_MONOTONIC, libc::TIMER_ABSTIME, &ts, std::ptr::null_mut()) };
    }
}

/// Run the calling thread under SCHED_FIFO (priority 10), so that it wakes when its
/// timer or a packet says, ahead of ordinary threads (measured: docs/linux-engine.md). It
/// sleeps between events, so it never holds a core for long. Without the privilege the
/// thread stays as it was; whether the priority was granted is returned.
pub fn realtime_priority() -> bool {
    let param = libc::sched_param { sched_priority: 10 };
    // SAFETY: sets this thread's policy (pid 0 = the calling thread).
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0 }
}
