//! Traces handed over in chunks (`run_streamed`): the chunks, concatenated, are the traces
//! of an unstreamed run, row for row, and the run holds about one chunk at a time.

use crate::common;

use std::ops::ControlFlow;

use common::load;
use wtcp_engine::heap::thread_bytes;
use wtcp_engine::scenario::TraceStore;
use wtcp_engine::{run, run_streamed, RunResult, Scenario, ScenarioError, Traces, TRACE_CHUNK_ROWS};

fn metrics(r: &RunResult) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    v.as_object_mut().unwrap().remove("wall_seconds");
    v.as_object_mut().unwrap().remove("loop_cpu_seconds");
    v
}

/// `b` appended to `a`, column by column.
fn append(a: &mut Traces, b: Traces) {
    a.flow_time.extend(b.flow_time);
    a.flow_id.extend(b.flow_id);
    for (ca, cb) in a.flow_columns.iter_mut().zip(b.flow_columns) {
        assert_eq!(ca.0, cb.0);
        ca.1.extend(cb.1);
    }
    a.cc_time.extend(b.cc_time);
    a.cc_flow.extend(b.cc_flow);
    a.cc_name.extend(b.cc_name);
    a.cc_value.extend(b.cc_value);
    a.queue_time.extend(b.queue_time);
    a.queue_dir.extend(b.queue_dir);
    a.queue_packets.extend(b.queue_packets);
    a.queue_bytes.extend(b.queue_bytes);
    a.queue_capacity_mbps.extend(b.queue_capacity_mbps);
    a.loss_time.extend(b.loss_time);
    a.loss_flow.extend(b.loss_flow);
    a.loss_timeout.extend(b.loss_timeout);
    a.loss_seq.extend(b.loss_seq);
    a.loss_cause.extend(b.loss_cause);
    a.loss_verdict.extend(b.loss_verdict);
    a.drop_time.extend(b.drop_time);
    a.drop_dir.extend(b.drop_dir);
    a.drop_flow.extend(b.drop_flow);
    a.drop_kind.extend(b.drop_kind);
    a.drop_seq.extend(b.drop_seq);
    a.drop_cause.extend(b.drop_cause);
    assert_eq!(a.dir_names, b.dir_names);
}

fn debug(t: &Traces) -> String {
    format!("{t:?}")
}

#[test]
fn chunks_concatenated_are_the_whole_traces() {
    for (file, interval) in [("dumbbell-reverse-udp", "1"), ("chain-4hop", "1"), ("clap-interference", "5")] {
        let sc = load(&format!("python/wtcp/scenarios/{file}.toml"), &[("trace.enabled", "true"), ("trace.interval_ms", interval)]);
        let whole = run(&sc);
        let mut chunks: Vec<Traces> = Vec::new();
        let streamed = run_streamed(&sc, |_| ControlFlow::Continue(()), |c| chunks.push(c)).unwrap();
        assert!(streamed.traces.is_none());
        assert_eq!(metrics(&streamed), metrics(&whole), "{file}");
        let expected = whole.traces.unwrap();
        assert!(expected.rows() > 3 * TRACE_CHUNK_ROWS, "{file}: {} rows, too few for several chunks", expected.rows());
        // Every chunk but the last is handed over at the first poll past the threshold.
        assert!(chunks[..chunks.len() - 1].iter().all(|c| c.rows() >= TRACE_CHUNK_ROWS), "{file}");
        let mut got = chunks.remove(0);
        for c in chunks {
            append(&mut got, c);
        }
        assert_eq!(debug(&got), debug(&expected), "{file}");
    }
}

/// Peak heap of a streamed run, sampled at every poll, of the dumbbell traced every 1 ms
/// for `duration` s (the chunks are dropped as they come).
fn streamed_peak(duration: &str) -> isize {
    let sc = load("python/wtcp/scenarios/dumbbell-reverse-udp.toml", &[("run.duration_s", duration), ("trace.enabled", "true"), ("trace.interval_ms", "1")]);
    let base = thread_bytes();
    let mut peak = 0;
    run_streamed(&sc, |_| {
        peak = peak.max(thread_bytes() - base);
        ControlFlow::Continue(())
    }, drop)
    .unwrap();
    peak
}

#[test]
fn streamed_memory_does_not_grow_with_duration() {
    let (short, long) = (streamed_peak("50"), streamed_peak("500"));
    // 500 s at 1 ms is 6.5e6 rows (about 400 MB held whole); streamed, about one chunk.
    assert!(long < 16 << 20, "{long} bytes");
    assert!(long < 2 * short, "{short} -> {long} bytes");
}

/// The two-hop path traced for 200 s every `interval_ms`, budgeted as `store` says.
fn traced(interval_ms: &str, store: TraceStore) -> Result<Scenario, ScenarioError> {
    let text = std::fs::read_to_string(common::repo_path("python/wtcp/scenarios/two-hop-wireless.toml")).unwrap();
    let ov = [("trace.enabled", "true"), ("trace.interval_ms", interval_ms)].map(|(k, v)| (k.to_string(), v.to_string()));
    Scenario::from_toml_str_with(&text, &ov, store)
}

#[test]
fn streamed_traces_count_against_the_disk_budget() {
    // 2e7 samples of 5 rows (a flow, four link directions): over the 4 GiB memory budget
    // held whole, within the 100 GiB disk budget streamed.
    let held = traced("0.01", TraceStore::Memory).unwrap_err();
    assert_eq!(held.path, "trace.interval_ms");
    assert!(held.message.contains("memory budget"), "{}", held.message);
    traced("0.01", TraceStore::Disk).unwrap();
    // Ten times the samples: over the disk budget too.
    let streamed = traced("0.001", TraceStore::Disk).unwrap_err();
    assert_eq!(streamed.path, "trace.interval_ms");
    assert!(streamed.message.contains("disk budget") && streamed.message.contains("WTCP_DISK_BUDGET_GIB"), "{}", streamed.message);
}
