//! Stopping a run from outside: the poll every `POLL_EVERY` events, the stop flag, and the
//! heap accounting behind per-run memory limits. A run that is not stopped must give the
//! same result as an unpolled one, bit for bit.

use crate::common;

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{load, parse, TWO_HOP};
use wtcp_engine::heap::thread_bytes;
use wtcp_engine::{run, run_polled, run_until, RunResult, Scenario, POLL_EVERY};

/// The metrics as JSON without the wall time (the only field identical runs may differ in).
fn metrics(r: &RunResult) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    v.as_object_mut().unwrap().remove("wall_seconds");
    v.as_object_mut().unwrap().remove("loop_cpu_seconds");
    v
}

fn scenarios() -> Vec<(&'static str, Scenario)> {
    vec![
        ("reference-simple2", load("python/wtcp/scenarios/reference-simple2.toml", &[])),
        ("chain-4hop", load("python/wtcp/scenarios/chain-4hop.toml", &[])),
        ("dumbbell-reverse-udp", load("python/wtcp/scenarios/dumbbell-reverse-udp.toml", &[])),
        ("two-hop traced", parse(TWO_HOP, &[("trace.enabled", "true"), ("trace.interval_ms", "10")])),
    ]
}

#[test]
fn a_flag_that_is_never_set_changes_nothing() {
    let never = AtomicBool::new(false);
    for (name, sc) in scenarios() {
        let plain = run(&sc);
        let polled = run_until(&sc, &never).unwrap_or_else(|s| panic!("{name}: {s}"));
        assert!(plain.events > 4 * POLL_EVERY, "{name}: too short to be polled ({} events)", plain.events);
        assert_eq!(metrics(&plain), metrics(&polled), "{name}");
        // Debug text: NaN samples compare equal, every other value exactly.
        assert_eq!(format!("{:?}", plain.traces), format!("{:?}", polled.traces), "{name}: traces");
    }
}

#[test]
fn the_poll_comes_before_the_first_event_every_poll_every_events_and_at_the_end() {
    let sc = parse(TWO_HOP, &[]);
    let mut seen = Vec::new();
    let r = run_polled(&sc, |p| {
        seen.push(p);
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(seen[0].events, 0);
    let last = seen.pop().unwrap();
    assert_eq!((last.now, last.events), (sc.duration, r.events));
    assert!(seen.iter().enumerate().all(|(i, p)| p.events == i as u64 * POLL_EVERY && p.end == sc.duration));
    assert_eq!(seen.len() as u64, 1 + r.events / POLL_EVERY);
    assert!(seen.windows(2).all(|w| w[0].now <= w[1].now));
}

#[test]
fn a_set_flag_stops_the_loop_at_the_next_poll() {
    let sc = parse(TWO_HOP, &[("run.duration_s", "200")]);
    // Set before the run: nothing is simulated.
    let stopped = run_until(&sc, &AtomicBool::new(true)).unwrap_err();
    assert_eq!((stopped.at.now, stopped.at.events), (0, 0));
    // Set by the third poll: the run stops there, far before its end.
    let flag = AtomicBool::new(false);
    let mut polls = 0;
    let stopped = run_polled(&sc, |_| {
        polls += 1;
        if polls == 3 {
            flag.store(true, Ordering::Relaxed);
        }
        if flag.load(Ordering::Relaxed) { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    })
    .unwrap_err();
    assert_eq!(stopped.at.events, 2 * POLL_EVERY);
    assert!(stopped.at.now > 0 && stopped.at.now < sc.duration / 10, "stopped at {} ns", stopped.at.now);
    assert_eq!(stopped.to_string(), format!("stopped at simulated t = {:.1} s of 200 s", stopped.at.now as f64 / 1e9));
}

#[test]
fn a_flag_set_by_another_thread_stops_a_long_run_at_once() {
    // About 10^4 s of simulated time per wall second: unstopped, this run takes minutes.
    let sc = load("python/wtcp/scenarios/reference-simple2.toml", &[("run.duration_s", "1e7")]);
    let flag = AtomicBool::new(false);
    let start = Instant::now();
    let stopped = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(200));
            flag.store(true, Ordering::Relaxed);
        });
        run_until(&sc, &flag).unwrap_err()
    });
    let wall = start.elapsed();
    assert!(wall < Duration::from_secs(2), "stopped after {wall:?}");
    assert!(stopped.at.now > 0 && stopped.at.now < sc.duration / 100);
}

#[test]
fn the_heap_count_follows_a_run_and_returns_to_where_it_was() {
    // A trace sample every 0.1 ms: the trace columns grow steadily with simulated time.
    let sc = parse(TWO_HOP, &[("run.duration_s", "400"), ("trace.enabled", "true"), ("trace.interval_ms", "0.1")]);
    let before = thread_bytes();
    let limit: isize = 20 << 20;
    let mut held_at_stop = 0;
    let stopped = run_polled(&sc, |_| {
        held_at_stop = thread_bytes() - before;
        if held_at_stop > limit { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    })
    .unwrap_err();
    assert!(stopped.at.now < sc.duration / 10);
    // Caught at the first poll past the limit: by then a column may have doubled once.
    assert!(held_at_stop > limit && held_at_stop < 3 * limit, "{held_at_stop} bytes held at the stop");
    // Everything the run held is freed with it.
    assert_eq!(thread_bytes(), before);
}
