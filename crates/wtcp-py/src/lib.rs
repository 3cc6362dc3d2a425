//! Python bindings: a whole scenario goes in, metrics (JSON) and columnar traces (NumPy
//! arrays) come out. The GIL is released while the simulation runs. The engine polls its
//! caller every `POLL_EVERY` events: the poll publishes the progress to a `RunControl`,
//! applies its stop request and limits, and, on the main thread at most every
//! `SIGNAL_CHECK`, briefly takes the GIL to run Python's signal handlers (so Ctrl-C
//! raises `KeyboardInterrupt` within a fraction of a second). Nothing else calls into
//! Python during a run, except an algorithm written in Python (`user_cc`): a run with one
//! keeps the GIL and calls its hooks.

mod user_cc;

use std::ops::ControlFlow;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use wtcp_engine::heap::{thread_bytes, CountingAlloc};
use wtcp_engine::pcap::{check_disk, Capture};
use wtcp_engine::scenario::TraceStore;
use wtcp_engine::{Progress, RunResult, Scenario, ScenarioError as CoreScenarioError, Traces};

/// Counts the heap each thread holds, for `RunControl(memory_limit_mb=...)`.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// How often (wall time) a run on the main thread runs Python's signal handlers.
const SIGNAL_CHECK: Duration = Duration::from_millis(10);

const MB: f64 = (1u64 << 20) as f64;

create_exception!(_core, ScenarioError, PyValueError, "A scenario is malformed or inconsistent.");
create_exception!(_core, SimulationError, PyRuntimeError, "The simulator failed internally (a bug; please report it).");
create_exception!(
    _core,
    RunStopped,
    PyException,
    "A run ended before its end time: `RunControl.stop()` was called, or it exceeded its wall-time or memory limit. Attributes: `reason` (\"stopped\", \"timeout\" or \"memory\"), `sim_seconds` (simulated time reached), `duration_seconds`, `events`."
);

create_exception!(
    _core,
    AlgorithmError,
    PyRuntimeError,
    "An algorithm written in Python failed in a run: a hook raised (the exception is the `__cause__`) or left a value the sender cannot take. Attributes: `algorithm`, `flow` (index), `flow_name`, `hook`, `sim_seconds`, `traceback` (text, empty when nothing was raised)."
);

create_exception!(
    _core,
    LinuxEngineUnavailable,
    PyRuntimeError,
    "The linux engine cannot run here: it needs root, network namespaces and /dev/net/tun (the message names what is missing)."
);

/// Progress and stop request of one run, shared between the run and Python.
#[derive(Default)]
struct Shared {
    stop: AtomicBool,
    now_ns: AtomicU64,
    end_ns: AtomicU64,
    events: AtomicU64,
    /// Heap bytes the run holds now and at most (growth of its thread's count).
    heap: AtomicI64,
    peak_heap: AtomicI64,
}

/// Watch and steer one run: pass it as `control=` to `run`. Another thread may read the
/// progress (`sim_seconds`, `events`, `heap_mb`) while the run goes on, or call `stop()`.
/// `timeout_s` limits the run's wall time and `memory_limit_mb` the heap it may hold
/// (MB = 2^20 bytes); a run past either raises `RunStopped`. Both are checked every
/// `POLL_EVERY` events (the heap also before the first event). Use one control per run.
#[pyclass(frozen, module = "wtcp._core")]
struct RunControl {
    shared: Arc<Shared>,
    #[pyo3(get)]
    timeout_s: Option<f64>,
    #[pyo3(get)]
    memory_limit_mb: Option<f64>,
}

fn positive(name: &str, v: Option<f64>) -> PyResult<Option<f64>> {
    match v {
        Some(x) if !(x.is_finite() && x > 0.0) => Err(PyValueError::new_err(format!("{name} must be a positive number of seconds or megabytes, not {x}"))),
        _ => Ok(v),
    }
}

#[pymethods]
impl RunControl {
    #[new]
    #[pyo3(signature = (timeout_s = None, memory_limit_mb = None))]
    fn new(timeout_s: Option<f64>, memory_limit_mb: Option<f64>) -> PyResult<Self> {
        Ok(RunControl { shared: Arc::default(), timeout_s: positive("timeout_s", timeout_s)?, memory_limit_mb: positive("memory_limit_mb", memory_limit_mb)? })
    }

    /// Ask the run to stop: it raises `RunStopped` (reason "stopped") at its next poll.
    fn stop(&self) {
        self.shared.stop.store(true, Relaxed);
    }

    /// Whether `stop()` was called.
    #[getter]
    fn stop_requested(&self) -> bool {
        self.shared.stop.load(Relaxed)
    }

    /// Simulated time the run has reached (s).
    #[getter]
    fn sim_seconds(&self) -> f64 {
        self.shared.now_ns.load(Relaxed) as f64 / 1e9
    }

    /// The run's simulated duration (s); 0 until it starts.
    #[getter]
    fn duration_seconds(&self) -> f64 {
        self.shared.end_ns.load(Relaxed) as f64 / 1e9
    }

    /// Events processed so far.
    #[getter]
    fn events(&self) -> u64 {
        self.shared.events.load(Relaxed)
    }

    /// Heap the run holds now, and the most it held (MB, 2^20 bytes), as of the last poll.
    #[getter]
    fn heap_mb(&self) -> f64 {
        self.shared.heap.load(Relaxed).max(0) as f64 / MB
    }

    #[getter]
    fn peak_heap_mb(&self) -> f64 {
        self.shared.peak_heap.load(Relaxed).max(0) as f64 / MB
    }

    fn __repr__(&self) -> String {
        format!("<RunControl t={:.1}/{} s, {} events, stop={}>", self.sim_seconds(), self.duration_seconds(), self.events(), self.stop_requested())
    }
}

/// Why a run was stopped.
enum Halt {
    Requested,
    Timeout,
    Memory(i64),
    /// A Python signal handler raised (Ctrl-C: `KeyboardInterrupt`).
    Signal(PyErr),
    /// Writing the packet capture failed (its error is raised instead).
    Capture,
    /// An algorithm written in Python failed (`AlgorithmError` is raised instead).
    Algorithm,
}

fn scenario_err(e: CoreScenarioError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    Python::attach(|py| {
        let v = err.value(py);
        let _ = v.setattr("path", e.path.clone());
        let _ = v.setattr("reason", e.message.clone());
    });
    err
}

fn parse(text: &str, format: &str, overrides: Vec<(String, String)>) -> PyResult<Scenario> {
    parse_with(text, format, overrides, TraceStore::Memory)
}

fn parse_with(text: &str, format: &str, overrides: Vec<(String, String)>, traces: TraceStore) -> PyResult<Scenario> {
    let sc = match format {
        "toml" => Scenario::from_toml_str_with(text, &overrides, traces),
        "json" => Scenario::from_json_str_with(text, &overrides, traces),
        other => return Err(PyValueError::new_err(format!("format must be \"toml\" or \"json\", not {other:?}"))),
    };
    sc.map_err(scenario_err)
}

/// Check a scenario and return the resolved document (after overrides) as TOML text
/// (TOML, unlike JSON, carries `inf` and `nan` exactly).
#[pyfunction]
#[pyo3(signature = (text, format = "toml", overrides = Vec::new()))]
fn resolve(text: &str, format: &str, overrides: Vec<(String, String)>) -> PyResult<String> {
    let sc = parse(text, format, overrides)?;
    toml::to_string(&sc.document).map_err(|e| SimulationError::new_err(e.to_string()))
}

/// `resolve`, and the same document as Python objects (dict, list, str, int, float,
/// bool): what `tomllib.loads` of the TOML text gives, without parsing the text again.
/// The document is None if it holds a TOML date or time (read the text then).
#[pyfunction]
#[pyo3(signature = (text, format = "toml", overrides = Vec::new()))]
fn resolve_document<'py>(py: Python<'py>, text: &str, format: &str, overrides: Vec<(String, String)>) -> PyResult<(String, Option<Bound<'py, PyAny>>)> {
    let sc = parse(text, format, overrides)?;
    let toml = toml::to_string(&sc.document).map_err(|e| SimulationError::new_err(e.to_string()))?;
    Ok((toml, toml_to_py(py, &sc.document)?))
}

/// `(node, destination node, "link" | "wifi", link or channel, far end or station)`.
type NextHop = (usize, usize, &'static str, u32, u32);

/// The core's next hops (`net/routing.rs`) towards the scenario's flow end points, for the
/// ns-3 engine's routes: `(node, destination node, "link", link, far end)` with far end 0
/// for link end a, 1 for b; or `(node, destination node, "wifi", channel, station)`.
#[pyfunction]
#[pyo3(signature = (text, format = "toml", overrides = Vec::new()))]
fn next_hops(text: &str, format: &str, overrides: Vec<(String, String)>) -> PyResult<Vec<NextHop>> {
    use wtcp_engine::net::routing::Hop;
    let sc = parse(text, format, overrides)?;
    let mut ends: Vec<usize> = sc.flows.iter().flat_map(|f| [f.src, f.dst]).collect();
    ends.sort_unstable();
    ends.dedup();
    let mut out = Vec::new();
    for from in 0..sc.nodes.len() {
        for &to in &ends {
            match sc.routes.next_hop(from, to) {
                Some(Hop::Link(dir)) => out.push((from, to, "link", dir / 2, 1 - dir % 2)),
                Some(Hop::Wifi { channel, to: station, .. }) => out.push((from, to, "wifi", channel, station)),
                None => {}
            }
        }
    }
    Ok(out)
}

/// Each `[[wifi]]` channel's resolved radio model (`channel.model = "log_distance"`, its
/// defaults filled in), or None under the range disc: a dict of the `channel` table's keys,
/// `fading` as "none" | "rayleigh" | "rician" and `rician_k_db`, for the ns-3 engine.
#[pyfunction]
#[pyo3(signature = (text, format = "toml", overrides = Vec::new()))]
fn wifi_radios<'py>(py: Python<'py>, text: &str, format: &str, overrides: Vec<(String, String)>) -> PyResult<Vec<Option<Bound<'py, PyDict>>>> {
    use wtcp_engine::wifi::radio::Fading;
    let sc = parse(text, format, overrides)?;
    sc.wifi
        .iter()
        .map(|w| {
            let Some(r) = w.config.radio else { return Ok(None) };
            let d = PyDict::new(py);
            d.set_item("exponent", r.exponent)?;
            d.set_item("reference_distance_m", r.reference_distance_m)?;
            d.set_item("reference_loss_db", r.reference_loss_db)?;
            d.set_item("tx_power_dbm", r.tx_power_dbm)?;
            d.set_item("noise_figure_db", r.noise_figure_db)?;
            d.set_item("cca_threshold_dbm", r.cca_threshold_dbm)?;
            d.set_item("shadowing_sigma_db", r.shadowing_sigma_db)?;
            let (fading, k_db) = match r.fading {
                Fading::None => ("none", None),
                Fading::Rayleigh => ("rayleigh", None),
                Fading::Rician { k } => ("rician", Some(10.0 * k.log10())),
            };
            d.set_item("fading", fading)?;
            d.set_item("rician_k_db", k_db)?;
            Ok(Some(d))
        })
        .collect()
}

/// A TOML value as Python objects, as `tomllib` reads it; None for a date or time.
fn toml_to_py<'py>(py: Python<'py>, value: &toml::Value) -> PyResult<Option<Bound<'py, PyAny>>> {
    use pyo3::IntoPyObjectExt;
    use toml::Value;
    Ok(Some(match value {
        Value::String(s) => s.into_bound_py_any(py)?,
        Value::Integer(i) => i.into_bound_py_any(py)?,
        Value::Float(f) => f.into_bound_py_any(py)?,
        Value::Boolean(b) => b.into_bound_py_any(py)?,
        Value::Datetime(_) => return Ok(None),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                let Some(v) = toml_to_py(py, item)? else { return Ok(None) };
                list.append(v)?;
            }
            list.into_any()
        }
        Value::Table(table) => {
            let dict = PyDict::new(py);
            for (k, item) in table {
                let Some(v) = toml_to_py(py, item)? else { return Ok(None) };
                dict.set_item(k, v)?;
            }
            dict.into_any()
        }
    }))
}

fn is_main_thread(py: Python<'_>) -> PyResult<bool> {
    let threading = py.import("threading")?;
    Ok(threading.call_method0("current_thread")?.is(&threading.call_method0("main_thread")?))
}

/// Seconds as the scenario gives them (`200`, `0.5`).
fn secs_text(s: f64) -> String {
    format!("{s}")
}

fn stopped_err(py: Python<'_>, halt: Halt, at: Progress, control: Option<&RunControl>) -> PyErr {
    let (now, end) = (at.now as f64 / 1e9, at.end as f64 / 1e9);
    let place = format!("at simulated t = {now:.1} s of {} s", secs_text(end));
    let (reason, message) = match halt {
        Halt::Signal(e) => return e,
        Halt::Capture => unreachable!("a failed capture raises its own error"),
        Halt::Algorithm => unreachable!("a failed algorithm raises its own error"),
        Halt::Requested => ("stopped", format!("stopped {place}")),
        Halt::Timeout => ("timeout", format!("exceeded the {} s run timeout {place}", secs_text(control.and_then(|c| c.timeout_s).unwrap_or(0.0)))),
        Halt::Memory(held) => (
            "memory",
            format!("exceeded the {} MB memory limit {place} ({:.0} MB held)", secs_text(control.and_then(|c| c.memory_limit_mb).unwrap_or(0.0)), held as f64 / MB),
        ),
    };
    let err = RunStopped::new_err(message);
    let v = err.value(py);
    let _ = v.setattr("reason", reason);
    let _ = v.setattr("sim_seconds", now);
    let _ = v.setattr("duration_seconds", end);
    let _ = v.setattr("events", at.events);
    err
}

/// Run a scenario. Returns `(metrics_json, traces_or_None)`. With `control`, the run
/// reports its progress there and obeys its stop request and limits (`RunStopped`).
/// On the main thread, a signal handler that raises (Ctrl-C) stops the run and its
/// exception propagates.
///
/// With `trace_sink` (a callable), the traces are not returned (None) but handed to it in
/// chunks, each a dict of tables as returned without it, holding the rows collected since
/// the previous chunk: whenever `TRACE_CHUNK_ROWS` rows have gathered, and once at the end.
/// The chunks, concatenated, are the traces returned without a sink, row for row; the
/// memory they hold in the run stays bounded. An exception the sink raises stops the run
/// and propagates.
///
/// With `pcap_dir`, a pcap file per link direction and per 802.11 station is written into
/// that directory as the run goes (docs/pcap.md); the capture counts against the disk
/// budget (`ScenarioError` at `run.duration_s` past it) and a directory or file that
/// cannot be written raises `OSError` before the run starts.
#[pyfunction]
#[pyo3(signature = (text, format = "toml", overrides = Vec::new(), control = None, trace_sink = None, pcap_dir = None))]
fn run<'py>(
    py: Python<'py>,
    text: &str,
    format: &str,
    overrides: Vec<(String, String)>,
    control: Option<Py<RunControl>>,
    trace_sink: Option<Py<PyAny>>,
    pcap_dir: Option<std::path::PathBuf>,
) -> PyResult<(String, Option<Bound<'py, PyDict>>)> {
    let start = Instant::now();
    let heap0 = thread_bytes();
    let ctl = control.as_ref().map(|c| c.get());
    let shared = ctl.map_or_else(Arc::default, |c| Arc::clone(&c.shared));
    let timeout = ctl.and_then(|c| c.timeout_s).map(Duration::from_secs_f64);
    let memory_limit = ctl.and_then(|c| c.memory_limit_mb).map(|mb| (mb * MB) as i64);
    let signals = is_main_thread(py)?;
    // Streamed traces count against the disk budget, not the memory budget.
    let store = if trace_sink.is_some() { TraceStore::Disk } else { TraceStore::Memory };
    let sc = parse_with(text, format, overrides, store)?;
    sc.refuse_kernel_algorithms().map_err(scenario_err)?;
    let mut capture = match &pcap_dir {
        None => None,
        Some(dir) => {
            check_disk(&sc, store).map_err(scenario_err)?;
            Some(Capture::create(&sc, dir).map_err(|e| PyOSError::new_err(e.to_string()))?)
        }
    };
    // A failed write stops the run at its next poll; the error is raised after it.
    let capture_failed = capture.as_ref().map(|c| c.failed_flag());
    shared.end_ns.store(sc.duration, Relaxed);
    let mut halt = None;
    // An exception from the trace sink, raised at the next poll (or after the run).
    let sink_err: Mutex<Option<PyErr>> = Mutex::new(None);
    // A Python algorithm's hooks need the GIL: such a run keeps it.
    let user = sc.uses_user_algorithms();
    let _failures = user_cc::Scope::begin();
    let mut body = || {
        catch_unwind(AssertUnwindSafe(|| {
            let mut last_signal_check = start;
            let poll = |p: Progress| {
                if let Some(e) = sink_err.lock().expect("never poisoned").take() {
                    halt = Some(Halt::Signal(e));
                    return ControlFlow::Break(());
                }
                shared.now_ns.store(p.now, Relaxed);
                shared.events.store(p.events, Relaxed);
                let held = (thread_bytes() - heap0) as i64;
                shared.heap.store(held, Relaxed);
                shared.peak_heap.fetch_max(held, Relaxed);
                if capture_failed.as_ref().is_some_and(|f| f.load(Relaxed)) {
                    halt = Some(Halt::Capture);
                } else if user && user_cc::has_failed() {
                    halt = Some(Halt::Algorithm);
                } else if shared.stop.load(Relaxed) {
                    halt = Some(Halt::Requested);
                } else if memory_limit.is_some_and(|limit| held > limit) {
                    halt = Some(Halt::Memory(held));
                } else {
                    let now = Instant::now();
                    if timeout.is_some_and(|t| now - start > t) {
                        halt = Some(Halt::Timeout);
                    } else if signals && now - last_signal_check >= SIGNAL_CHECK {
                        last_signal_check = now;
                        if let Err(e) = Python::attach(|py| py.check_signals()) {
                            halt = Some(Halt::Signal(e));
                        }
                    }
                }
                if halt.is_some() { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
            };
            let mut poll = poll;
            let mut send = |chunk: Traces| {
                let Some(sink) = &trace_sink else { return };
                if sink_err.lock().expect("never poisoned").is_some() {
                    return;
                }
                let sent = Python::attach(|py| traces_to_dict(py, chunk).and_then(|d| sink.call1(py, (d,)).map(drop)));
                if let Err(e) = sent {
                    *sink_err.lock().expect("never poisoned") = Some(e);
                }
            };
            let sink: Option<&mut dyn FnMut(Traces)> = if trace_sink.is_some() { Some(&mut send) } else { None };
            let tap = capture.as_mut().map(|c| c as &mut dyn wtcp_engine::pcap::PacketTap);
            wtcp_engine::run_with(&sc, &mut poll, sink, tap)
        }))
    };
    let outcome = if user { body() } else { py.detach(body) };
    if let Some(f) = user_cc::take_failure() {
        let flow_name = sc.flows.get(f.flow as usize).map(|fl| fl.name.clone());
        return Err(algorithm_err(py, f, flow_name));
    }
    drop(_failures);
    if let Some(e) = sink_err.into_inner().expect("never poisoned") {
        // The sink failed on the last chunk, after the last poll.
        if matches!(outcome, Ok(Ok(_))) {
            return Err(e);
        }
    }
    // Flush the capture (also after a stopped run: its files hold what was sent so far).
    let written = capture.map(Capture::finish);
    if let Some(Err(e)) = written {
        if outcome.is_ok() {
            return Err(PyOSError::new_err(format!("packet capture: {e}")));
        }
    }
    let mut result: RunResult = match outcome {
        Ok(Ok(r)) => r,
        Ok(Err(stopped)) => {
            let halt = halt.expect("the run stops only when its poll says why");
            return Err(stopped_err(py, halt, stopped.at, ctl));
        }
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            return Err(SimulationError::new_err(format!("internal simulator error: {msg}")));
        }
    };
    let traces = match result.traces.take() {
        Some(t) => Some(traces_to_dict(py, t)?),
        None => None,
    };
    Ok((result.to_json(), traces))
}

/// `AlgorithmError` for a Python algorithm's failure.
fn algorithm_err(py: Python<'_>, f: user_cc::Failure, flow_name: Option<String>) -> PyErr {
    if let Some(e) = &f.error {
        // KeyboardInterrupt, SystemExit: not the algorithm's failure, raised as they are.
        if !e.is_instance_of::<PyException>(py) {
            return f.error.expect("checked");
        }
    }
    let secs = f.now as f64 / 1e9;
    let traceback = match &f.error {
        None => String::new(),
        Some(e) => py
            .import("traceback")
            .and_then(|tb| tb.call_method1("format_exception", (e.get_type(py), e.value(py), e.traceback(py))))
            .and_then(|lines| lines.extract::<Vec<String>>())
            .map(|lines| lines.concat())
            .unwrap_or_else(|_| e.to_string()),
    };
    let what = if f.error.is_some() { format!("raised {}", f.message) } else { f.message.clone() };
    let flow = match &flow_name {
        Some(n) => format!("flow {} `{}`", f.flow, n.escape_default()),
        None => format!("flow {}", f.flow),
    };
    let mut message = format!("algorithm `{}`, {flow}, {} at simulated t = {secs:.6} s: {what}", f.algorithm, f.hook);
    if !traceback.is_empty() {
        message.push('\n');
        message.push_str(traceback.trim_end());
    }
    let err = AlgorithmError::new_err(message);
    let v = err.value(py);
    let _ = v.setattr("algorithm", f.algorithm);
    let _ = v.setattr("flow", f.flow);
    let _ = v.setattr("flow_name", flow_name);
    let _ = v.setattr("hook", f.hook);
    let _ = v.setattr("sim_seconds", secs);
    let _ = v.setattr("traceback", traceback);
    if let Some(e) = f.error {
        err.set_cause(py, Some(e));
    }
    err
}

/// Register an algorithm written in Python (called by `wtcp.register`, which checks the
/// class and builds the arguments): `params` as (name, default as text, doc),
/// `recovery_style` "reno" | "newreno" | "fast_retransmit_only", `hooks` the optional hooks
/// the class overrides, `make(params) -> instance`, `check(params) -> None | message`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn register_algorithm(
    name: String,
    summary: String,
    reference: String,
    params: Vec<(String, String, String)>,
    recovery_style: &str,
    timeout_collapses_window: bool,
    hooks: Vec<String>,
    make: Py<PyAny>,
    check: Py<PyAny>,
) -> PyResult<()> {
    use wtcp_cc::RecoveryStyle;
    let style = match recovery_style {
        "reno" => RecoveryStyle::Reno,
        "newreno" => RecoveryStyle::NewReno,
        "fast_retransmit_only" => RecoveryStyle::FastRetransmitOnly,
        other => return Err(PyValueError::new_err(format!("recovery_style is {other:?}; allowed: \"reno\", \"newreno\", \"fast_retransmit_only\""))),
    };
    let hooks = user_cc::Hooks::from_names(&hooks).map_err(PyValueError::new_err)?;
    let def = user_cc::Definition { name, summary, reference, params, style, timeout_collapses_window, hooks, make, check };
    wtcp_cc::register_user(Arc::new(user_cc::PyAlgorithm::new(def))).map_err(PyValueError::new_err)
}

/// Remove a registered Python algorithm; False if none had that name.
#[pyfunction]
fn unregister_algorithm(name: &str) -> bool {
    wtcp_cc::unregister_user(name)
}

/// Run the contract suite (`wtcp_cc::contract`) on a registered algorithm with the
/// parameters `params` (a dict, JSON-able). Returns one (check, rule, failure or None) per
/// check; `days` is the length of the overflow check.
#[pyfunction]
#[pyo3(signature = (name, params, days = wtcp_cc::contract::DEFAULT_DAYS))]
fn check_algorithm(py: Python<'_>, name: &str, params: &Bound<'_, PyAny>, days: u32) -> PyResult<Vec<(String, String, Option<String>)>> {
    let Some(alg) = wtcp_cc::user_algorithm(name) else {
        return Err(PyValueError::new_err(format!("no algorithm `{name}` is registered")));
    };
    let text: String = py.import("json")?.call_method1("dumps", (params,))?.extract()?;
    let params: serde_json::Value = serde_json::from_str(&text).map_err(|e| PyValueError::new_err(e.to_string()))?;
    alg.check_params(&params).map_err(|e| PyValueError::new_err(if e.path.is_empty() { e.message } else { format!("{}: {}", e.path, e.message) }))?;
    let info = alg.info();
    let mut out = Vec::new();
    let _failures = user_cc::Scope::begin();
    for c in wtcp_cc::contract::CHECKS {
        user_cc::take_failure();
        let build = || alg.build(&params, 0);
        let result = catch_unwind(AssertUnwindSafe(|| (c.run)(info, &build, days)));
        let failure = match (user_cc::take_failure(), result) {
            (Some(f), _) if f.error.as_ref().is_some_and(|e| !e.is_instance_of::<PyException>(py)) => return Err(f.error.expect("checked")),
            (Some(f), _) => Some(algorithm_err(py, f, None).value(py).to_string()),
            (None, Ok(Ok(()))) => None,
            (None, Ok(Err(msg))) => Some(msg),
            (None, Err(panic)) => Some(panic.downcast_ref::<String>().cloned().unwrap_or_else(|| "the check panicked".into())),
        };
        out.push((c.name.to_string(), c.rule.to_string(), failure));
    }
    Ok(out)
}

/// Columnar traces as a dict of tables, each a dict of NumPy arrays (strings as lists).
fn traces_to_dict<'py>(py: Python<'py>, t: Traces) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);

    let flows = PyDict::new(py);
    flows.set_item("time", t.flow_time.into_pyarray(py))?;
    flows.set_item("flow", t.flow_id.into_pyarray(py))?;
    for (name, col) in t.flow_columns {
        flows.set_item(name, col.into_pyarray(py))?;
    }
    out.set_item("flows", flows)?;

    let cc = PyDict::new(py);
    cc.set_item("time", t.cc_time.into_pyarray(py))?;
    cc.set_item("flow", t.cc_flow.into_pyarray(py))?;
    cc.set_item("name", PyList::new(py, t.cc_name)?)?;
    cc.set_item("value", t.cc_value.into_pyarray(py))?;
    out.set_item("cc", cc)?;

    let q = PyDict::new(py);
    q.set_item("time", t.queue_time.into_pyarray(py))?;
    q.set_item("dir", t.queue_dir.into_pyarray(py))?;
    q.set_item("packets", t.queue_packets.into_pyarray(py))?;
    q.set_item("bytes", t.queue_bytes.into_pyarray(py))?;
    q.set_item("capacity_mbps", t.queue_capacity_mbps.into_pyarray(py))?;
    out.set_item("queues", q)?;

    let l = PyDict::new(py);
    l.set_item("time", t.loss_time.into_pyarray(py))?;
    l.set_item("flow", t.loss_flow.into_pyarray(py))?;
    l.set_item("timeout", t.loss_timeout.into_pyarray(py))?;
    l.set_item("seq", t.loss_seq.into_pyarray(py))?;
    l.set_item("cause", PyList::new(py, t.loss_cause)?)?;
    l.set_item("verdict", PyList::new(py, t.loss_verdict)?)?;
    out.set_item("losses", l)?;

    let d = PyDict::new(py);
    d.set_item("time", t.drop_time.into_pyarray(py))?;
    d.set_item("dir", t.drop_dir.into_pyarray(py))?;
    d.set_item("flow", t.drop_flow.into_pyarray(py))?;
    d.set_item("kind", PyList::new(py, t.drop_kind)?)?;
    d.set_item("seq", t.drop_seq.into_pyarray(py))?;
    d.set_item("cause", PyList::new(py, t.drop_cause)?)?;
    out.set_item("drops", d)?;

    out.set_item("dir_names", PyList::new(py, t.dir_names)?)?;
    Ok(out)
}

/// Every algorithm with its parameters, units, defaults and reference.
#[pyfunction]
fn algorithms(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    let users: Vec<_> = wtcp_cc::user_names().into_iter().filter_map(wtcp_cc::user_algorithm).collect();
    for (a, user) in wtcp_cc::catalog().iter().map(|a| (a, false)).chain(users.iter().map(|u| (u.info(), true))) {
        let d = PyDict::new(py);
        d.set_item("user", user)?;
        d.set_item("name", a.name)?;
        d.set_item("summary", a.summary)?;
        d.set_item("reference", a.reference)?;
        d.set_item("params", param_list(py, a.params)?)?;
        let constraints = PyList::empty(py);
        for o in a.constraints {
            constraints.append(format!("{} <= {}: {}", o.low, o.high, o.why))?;
        }
        d.set_item("constraints", constraints)?;
        list.append(d)?;
    }
    Ok(list)
}

/// Every profile (`rfc` first): name, title, note, whether it fills a document, and its
/// entries (key, value as text, source).
#[pyfunction]
fn profiles(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for p in wtcp_engine::scenario::profile::PROFILES {
        let d = PyDict::new(py);
        d.set_item("name", p.name)?;
        d.set_item("title", p.title)?;
        d.set_item("note", p.note)?;
        d.set_item("fills", p.fills)?;
        let entries = PyList::empty(py);
        for e in p.entries {
            let ed = PyDict::new(py);
            ed.set_item("key", e.key)?;
            ed.set_item("value", e.value.text())?;
            ed.set_item("source", e.source)?;
            entries.append(ed)?;
        }
        d.set_item("entries", entries)?;
        list.append(d)?;
    }
    Ok(list)
}

/// A link capacity from its `capacity` table as TOML text (a trace file or a synthetic
/// model; `seed` seeds a model without its own). Returns a dict: `kind`
/// ("opportunities": `times_ms`, one per opportunity of one period, the last the period;
/// "rates": `times_s`, `rates_mbps`, `interpolate`).
#[pyfunction]
#[pyo3(signature = (text, seed = 1))]
fn capacity<'py>(py: Python<'py>, text: &str, seed: u64) -> PyResult<Bound<'py, PyDict>> {
    use wtcp_engine::net::capacity::{Capacity, Interpolate};
    let cap = wtcp_engine::scenario::traces::resolve_text(text, seed).map_err(scenario_err)?;
    let d = PyDict::new(py);
    match cap {
        Capacity::Opportunities(o) => {
            d.set_item("kind", "opportunities")?;
            let ms: Vec<u64> = o.times().iter().map(|t| t / 1_000_000).collect();
            d.set_item("times_ms", ms.into_pyarray(py))?;
        }
        Capacity::Rates(r) => {
            d.set_item("kind", "rates")?;
            let (t, v): (Vec<f64>, Vec<f64>) = r.points().iter().map(|&(t, v)| (t as f64 / 1e9, v / 1e6)).unzip();
            d.set_item("times_s", t.into_pyarray(py))?;
            d.set_item("rates_mbps", v.into_pyarray(py))?;
            d.set_item("interpolate", if r.interpolate() == Interpolate::Linear { "linear" } else { "step" })?;
        }
    }
    Ok(d)
}

/// Parameters as dicts: name, unit, default, doc, range (text; "" for a switch or a
/// choice) and, for a nested table, its own `params`, whose defaults are those the table's
/// default gives (C2TCP's CUBIC is not CUBIC's defaults).
fn param_list<'py>(py: Python<'py>, params: &[wtcp_cc::ParamInfo]) -> PyResult<Bound<'py, PyList>> {
    param_list_with(py, params, None)
}

fn param_list_with<'py>(py: Python<'py>, params: &[wtcp_cc::ParamInfo], defaults: Option<&serde_json::Map<String, serde_json::Value>>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for p in params {
        let pd = PyDict::new(py);
        pd.set_item("name", p.name)?;
        pd.set_item("unit", p.unit)?;
        let given = defaults.and_then(|d| d.get(p.name)).map(|v| match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        });
        pd.set_item("default", given.as_deref().unwrap_or(p.default))?;
        pd.set_item("doc", p.doc)?;
        match p.range {
            wtcp_cc::Range::Any => pd.set_item("range", "")?,
            wtcp_cc::Range::Num { .. } => pd.set_item("range", p.range.describe(p.name))?,
            wtcp_cc::Range::Table(nested) => {
                pd.set_item("range", "table")?;
                let table: Option<serde_json::Map<String, serde_json::Value>> = serde_json::from_str(p.default).ok();
                pd.set_item("params", param_list_with(py, nested, table.as_ref())?)?;
            }
        }
        list.append(pd)?;
    }
    Ok(list)
}

/// Run the scenario on the machine's own kernel (`wtcp-linux`): its flows as kernel
/// sockets in network namespaces over wtcp's link models in real time; the metrics JSON
/// and the traces (as `run`'s, when the scenario traces).
/// Wall time equals simulated time; Ctrl-C (KeyboardInterrupt) stops it within 0.1 s and
/// removes everything it made. Raises `ScenarioError` for what the kernel cannot be told
/// (the field) and `LinuxEngineUnavailable` without root, namespaces or TUN.
#[pyfunction]
#[pyo3(signature = (text, format = "toml", overrides = Vec::new()))]
fn run_linux<'py>(py: Python<'py>, text: &str, format: &str, overrides: Vec<(String, String)>) -> PyResult<(String, Option<Bound<'py, PyDict>>)> {
    let sc = parse(text, format, overrides)?;
    let stop = AtomicBool::new(false);
    let signals = is_main_thread(py)?;
    let result = std::thread::scope(|s| {
        let job = s.spawn(|| wtcp_linux::run(&sc, &stop));
        let mut interrupted = None;
        while !job.is_finished() {
            py.detach(|| std::thread::sleep(Duration::from_millis(50)));
            if signals && interrupted.is_none() {
                if let Err(e) = py.check_signals() {
                    stop.store(true, Relaxed);
                    interrupted = Some(e);
                }
            }
        }
        let out = job.join();
        (out, interrupted)
    });
    match result {
        (_, Some(e)) => Err(e),
        (Ok(Ok((json, traces))), None) => Ok((json, traces.map(|t| traces_to_dict(py, t)).transpose()?)),
        (Ok(Err(wtcp_linux::EngineError::Scenario(e))), None) => Err(scenario_err(e)),
        (Ok(Err(wtcp_linux::EngineError::Unavailable(why))), None) => Err(LinuxEngineUnavailable::new_err(why)),
        (Ok(Err(wtcp_linux::EngineError::Io(e))), None) => Err(PyOSError::new_err(format!("the linux engine: {e}"))),
        (Err(_), None) => Err(SimulationError::new_err("the linux engine panicked (a bug; please report it)")),
    }
}

/// Check that wtcp's own engine can run the scenario (a flow naming the kernel's own
/// algorithm, `kernel:NAME`, it cannot): None, or raises `ScenarioError` naming the field.
#[pyfunction]
#[pyo3(signature = (text, format = "toml", overrides = Vec::new()))]
fn check_wtcp(text: &str, format: &str, overrides: Vec<(String, String)>) -> PyResult<()> {
    parse(text, format, overrides)?.refuse_kernel_algorithms().map_err(scenario_err)
}

/// What is wrong with a kernel algorithm's name (the part after `kernel:`), as a scenario's
/// `cc` is checked: None if nothing.
#[pyfunction]
fn kernel_cc_name_problem(name: &str) -> Option<String> {
    wtcp_engine::scenario::check_kernel_cc_name(name).err()
}

/// Check a scenario against the kernel without running it: None, or raises as `run_linux`.
#[pyfunction]
#[pyo3(signature = (text, format = "toml", overrides = Vec::new()))]
fn check_linux(text: &str, format: &str, overrides: Vec<(String, String)>) -> PyResult<()> {
    let sc = parse(text, format, overrides)?;
    wtcp_linux::check(&sc).map(|_| ()).map_err(|e| match e {
        wtcp_linux::EngineError::Scenario(e) => scenario_err(e),
        wtcp_linux::EngineError::Unavailable(why) => LinuxEngineUnavailable::new_err(why),
        wtcp_linux::EngineError::Io(e) => PyOSError::new_err(e.to_string()),
    })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_linux, m)?)?;
    m.add_function(wrap_pyfunction!(check_wtcp, m)?)?;
    m.add_function(wrap_pyfunction!(kernel_cc_name_problem, m)?)?;
    m.add_function(wrap_pyfunction!(check_linux, m)?)?;
    m.add("LinuxEngineUnavailable", m.py().get_type::<LinuxEngineUnavailable>())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_document, m)?)?;
    m.add_function(wrap_pyfunction!(next_hops, m)?)?;
    m.add_function(wrap_pyfunction!(wifi_radios, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(register_algorithm, m)?)?;
    m.add_function(wrap_pyfunction!(unregister_algorithm, m)?)?;
    m.add_function(wrap_pyfunction!(check_algorithm, m)?)?;
    m.add_class::<user_cc::PyWindow>()?;
    m.add_class::<user_cc::PyAck>()?;
    m.add_class::<user_cc::PyCtx>()?;
    m.add_class::<user_cc::PyLoss>()?;
    m.add_class::<user_cc::PySignal>()?;
    m.add_class::<user_cc::PyRate>()?;
    m.add("AlgorithmError", m.py().get_type::<AlgorithmError>())?;
    m.add_function(wrap_pyfunction!(profiles, m)?)?;
    m.add_function(wrap_pyfunction!(capacity, m)?)?;
    m.add_class::<RunControl>()?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("RunStopped", m.py().get_type::<RunStopped>())?;
    m.add("POLL_EVERY", wtcp_engine::POLL_EVERY)?;
    m.add("TRACE_CHUNK_ROWS", wtcp_engine::TRACE_CHUNK_ROWS)?;
    m.add("__version__", wtcp_engine::VERSION)?;
    Ok(())
}
