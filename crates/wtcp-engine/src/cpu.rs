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
    fn counts_the_time_this_thread_computes() {
        // 50 ms of wall time spent computing on this thread count as CPU time, no more than
        // the wall time (other tests may share the cores), and a sleep adds almost none.
        let (wall, start) = (std::time::Instant::now(), super::thread_cpu_seconds());
        let mut x = 0u64;
        while wall.elapsed().as_secs_f64() < 0.05 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        let busy = super::thread_cpu_seconds() - start;
        assert!(busy > 0.0 && busy <= wall.elapsed().as_secs_f64() + 1e-3, "{busy} s of CPU in 50 ms of computing");
        std::thread::sleep(std::time::Duration::from_millis(50));
        let slept = super::thread_cpu_seconds() - start - busy;
        assert!(slept < 0.01, "{slept} s of CPU while asleep");
    }
}
