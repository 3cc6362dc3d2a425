//! CPU time of the calling thread, for reporting how long the event loop computed
//! (`RunResult::loop_cpu_seconds`). It never influences a run's results.

/// CPU seconds the calling thread has used (POSIX `CLOCK_THREAD_CPUTIME_ID`); 0 where the
/// clock is not available.
pub fn thread_cpu_seconds() -> f64 {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `ts` is a valid, writable timespec; the call only writes to it.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0 {
            return ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9;
        }
    }
    0.0
}

#[cfg(test)]
mod tests {
    #[test]
    fn grows_with_work_on_this_thread() {
        let start = super::thread_cpu_seconds();
        let mut x = 0u64;
        while super::thread_cpu_seconds() - start < 0.01 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        assert!(super::thread_cpu_seconds() - start >= 0.01);
    }
}
