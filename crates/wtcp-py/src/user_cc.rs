//! Congestion control written in Python (`wtcp.Algorithm`), behind the same trait as the
//! built-ins: the sender calls [`PyCc`]'s hooks exactly where it calls a Rust algorithm's,
//! and [`PyCc`] calls the Python object's method of the same name with the same fields and
//! units (bytes, nanoseconds).
//!
//! Each flow's instance owns one `Window`, `Ack` and `Ctx` object, rewritten in place
//! before every call (nothing is allocated per ACK unless the hook asks for `ack.rate`).
//! A hook the class does not override runs the trait's default in Rust, without a call.
//! Runs with a Python algorithm keep the GIL (`run` does not detach), so a call is a plain
//! method call.
//!
//! An exception in a hook, or a value outside what the sender accepts (cwnd not a finite
//! number > 0, ssthresh NaN or <= 0 or, after `on_loss`, infinite, a pacing rate not
//! finite and > 0, an unknown verdict),
//! ends the run: the instance stops calling Python, records the failure in [`FAILURE`]
//! (first one wins) with its flow, hook and simulated time, the run's poll stops the run,
//! and `run` raises `AlgorithmError` with the user's traceback.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use wtcp_cc::registry::{AlgorithmInfo, ParamError, ParamInfo, Range};
use wtcp_cc::{AckSample, CongestionControl, Ctx, Loss, RecoveryStyle, Signal, Time, UserAlgorithm, Verdict, Window};

/// The first failure of a Python algorithm in the run on this thread.
pub struct Failure {
    pub algorithm: &'static str,
    pub flow: u32,
    pub hook: &'static str,
    pub now: Time,
    /// The exception (None when the hook returned a value the sender refuses).
    pub error: Option<PyErr>,
    pub message: String,
}

thread_local! {
    /// Runs are single-threaded: a run's algorithms fail into its thread's slot.
    pub static FAILURE: RefCell<Option<Failure>> = const { RefCell::new(None) };
}

/// The failure slot of one run: `begin` sets the slot aside (a run started from inside a
/// hook of another run must neither see nor erase that run's failure) and dropping the
/// scope puts it back.
pub struct Scope(Option<Failure>);

impl Scope {
    pub fn begin() -> Scope {
        Scope(take_failure())
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        let outer = self.0.take();
        FAILURE.with(|f| *f.borrow_mut() = outer);
    }
}

pub fn has_failed() -> bool {
    FAILURE.with(|f| f.borrow().is_some())
}

pub fn take_failure() -> Option<Failure> {
    FAILURE.with(|f| f.borrow_mut().take())
}

fn record(f: Failure) {
    FAILURE.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.is_none() {
            *slot = Some(f);
        }
    });
}

/// Names that must live as long as the process (trait signatures take `&'static str`):
/// each distinct one is stored once.
fn intern(s: &str) -> &'static str {
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut guard = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let set = guard.get_or_insert_with(HashSet::new);
    if let Some(&known) = set.get(s) {
        return known;
    }
    let leaked: &'static str = Box::leak(s.to_string().into_boxed_str());
    set.insert(leaked);
    leaked
}

/// The congestion window, as the hooks see and change it (bytes; `pacing_rate` bytes/s).
#[pyclass(module = "wtcp._core", name = "Window")]
#[derive(Clone, Copy)]
pub struct PyWindow {
    #[pyo3(get, set)]
    cwnd: f64,
    #[pyo3(get, set)]
    ssthresh: f64,
    #[pyo3(get, set)]
    pacing_rate: Option<f64>,
}

#[pymethods]
impl PyWindow {
    /// A snapshot (the object a hook gets is rewritten before every call).
    fn copy(&self) -> PyWindow {
        *self
    }
    fn __repr__(&self) -> String {
        format!("Window(cwnd={}, ssthresh={}, pacing_rate={})", self.cwnd, self.ssthresh, py_opt(self.pacing_rate))
    }
}

impl From<&Window> for PyWindow {
    fn from(w: &Window) -> Self {
        PyWindow { cwnd: w.cwnd, ssthresh: w.ssthresh, pacing_rate: w.pacing_rate }
    }
}

/// One delivery-rate sample (`ack.rate`), as `wtcp_cc::RateSample`.
#[pyclass(module = "wtcp._core", name = "RateSample", frozen, get_all)]
pub struct PyRate {
    delivered: u64,
    interval: u64,
    prior_delivered: u64,
    is_app_limited: bool,
    is_retrans: bool,
}

#[pymethods]
impl PyRate {
    fn bytes_per_sec(&self) -> f64 {
        self.delivered as f64 * 1e9 / self.interval.max(1) as f64
    }
    fn __repr__(&self) -> String {
        format!("RateSample(delivered={}, interval={}, prior_delivered={}, is_app_limited={}, is_retrans={})", self.delivered, self.interval, self.prior_delivered, py_bool(self.is_app_limited), py_bool(self.is_retrans))
    }
}

/// An optional value as Python prints it.
fn py_opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "None".to_string(), |x| x.to_string())
}

fn py_bool(v: bool) -> &'static str {
    if v { "True" } else { "False" }
}

/// What the sender learned from one ACK (`wtcp_cc::AckSample`, same names and units).
#[pyclass(module = "wtcp._core", name = "Ack")]
pub struct PyAck {
    s: AckSample,
}

#[pymethods]
impl PyAck {
    /// A snapshot (the object a hook gets is rewritten before every ACK).
    fn copy(&self) -> PyAck {
        PyAck { s: self.s }
    }
    #[getter]
    fn ack(&self) -> u64 {
        self.s.ack
    }
    #[getter]
    fn acked_bytes(&self) -> u64 {
        self.s.acked_bytes
    }
    #[getter]
    fn delivered_bytes(&self) -> u64 {
        self.s.delivered_bytes
    }
    #[getter]
    fn dup(&self) -> bool {
        self.s.dup
    }
    #[getter]
    fn rtt(&self) -> Option<u64> {
        self.s.rtt
    }
    #[getter]
    fn rx_arrival(&self) -> Option<u64> {
        self.s.rx_arrival
    }
    #[getter]
    fn rx_bytes(&self) -> Option<u64> {
        self.s.rx_bytes
    }
    #[getter]
    fn ts_echo(&self) -> Option<u64> {
        self.s.ts_echo
    }
    #[getter]
    fn in_recovery(&self) -> bool {
        self.s.in_recovery
    }
    #[getter]
    fn marked(&self) -> bool {
        self.s.marked
    }
    #[getter]
    fn delivered(&self) -> u64 {
        self.s.delivered
    }
    #[getter]
    fn adv_cwnd(&self) -> Option<u64> {
        self.s.adv_cwnd
    }
    #[getter]
    fn delivered_total(&self) -> u64 {
        self.s.delivered_total
    }
    #[getter]
    fn rate(&self) -> Option<PyRate> {
        self.s.rate.map(|r| PyRate {
            delivered: r.delivered,
            interval: r.interval,
            prior_delivered: r.prior_delivered,
            is_app_limited: r.is_app_limited,
            is_retrans: r.is_retrans,
        })
    }
    fn __repr__(&self) -> String {
        format!("Ack(ack={}, acked_bytes={}, dup={}, rtt={}, in_recovery={})", self.s.ack, self.s.acked_bytes, py_bool(self.s.dup), py_opt(self.s.rtt), py_bool(self.s.in_recovery))
    }
}

/// The sender as the hooks see it (`wtcp_cc::Ctx`): times in ns, sizes in bytes.
#[pyclass(module = "wtcp._core", name = "Ctx", get_all)]
pub struct PyCtx {
    now: u64,
    mss: u32,
    flight_size: u64,
    pipe: u64,
    snd_una: u64,
    snd_max: u64,
    segments_sent: u64,
    /// The flow is limited by its window (the sender's `tcp.cwnd_limited` rule; always
    /// true by default).
    cwnd_limited: bool,
    /// RFC 6298 SRTT, RTTVAR, the latest and the minimum sample, the current RTO (backed
    /// off) and the number of backoffs in it (0: none; the RTO is the base one times
    /// 2^rto_backoff, up to the maximum).
    srtt: Option<u64>,
    rttvar: u64,
    latest_rtt: Option<u64>,
    min_rtt: Option<u64>,
    rto: u64,
    rto_backoff: u32,
    /// A host-wide initial window in bytes (`HostShared::initial_cwnd`), settable.
    #[pyo3(set)]
    host_initial_cwnd: Option<f64>,
    mark_app_limited_requested: bool,
    reset_rto_backoff_requested: bool,
}

#[pymethods]
impl PyCtx {
    /// Mark the delivery-rate samples app-limited for the data now in flight.
    fn mark_app_limited(&mut self) {
        self.mark_app_limited_requested = true;
    }
    /// Reset the exponential RTO backoff.
    fn reset_rto_backoff(&mut self) {
        self.reset_rto_backoff_requested = true;
    }
    fn __repr__(&self) -> String {
        format!("Ctx(now={}, mss={}, flight_size={}, snd_una={}, snd_max={})", self.now, self.mss, self.flight_size, self.snd_una, self.snd_max)
    }
}

impl PyCtx {
    fn blank() -> Self {
        PyCtx {
            now: 0,
            mss: 0,
            flight_size: 0,
            pipe: 0,
            snd_una: 0,
            snd_max: 0,
            segments_sent: 0,
            cwnd_limited: true,
            srtt: None,
            rttvar: 0,
            latest_rtt: None,
            min_rtt: None,
            rto: 0,
            rto_backoff: 1,
            host_initial_cwnd: None,
            mark_app_limited_requested: false,
            reset_rto_backoff_requested: false,
        }
    }

    fn load(&mut self, cx: &Ctx) {
        self.now = cx.now;
        self.mss = cx.mss;
        self.flight_size = cx.flight_size;
        self.pipe = cx.pipe;
        self.snd_una = cx.snd_una;
        self.snd_max = cx.snd_max;
        self.segments_sent = cx.segments_sent;
        self.cwnd_limited = cx.cwnd_limited;
        self.srtt = cx.rtt.srtt();
        self.rttvar = cx.rtt.rttvar();
        self.latest_rtt = cx.rtt.latest();
        self.min_rtt = cx.rtt.min_rtt();
        self.rto = cx.rtt.rto();
        self.rto_backoff = cx.rtt.backoff();
        self.host_initial_cwnd = cx.host.initial_cwnd;
        self.mark_app_limited_requested = false;
        self.reset_rto_backoff_requested = false;
    }

    /// Why the hook's `host_initial_cwnd` cannot go to the host, if it cannot.
    fn refuse(&self) -> Option<String> {
        match self.host_initial_cwnd {
            Some(v) if !(v.is_finite() && v > 0.0) => Some(format!("left cx.host_initial_cwnd = {v}; allowed: None or a finite number of bytes > 0")),
            _ => None,
        }
    }

    fn store(&self, cx: &mut Ctx) {
        cx.host.initial_cwnd = self.host_initial_cwnd;
        if self.mark_app_limited_requested {
            cx.mark_app_limited();
        }
        if self.reset_rto_backoff_requested {
            cx.reset_rto_backoff();
        }
    }
}

/// A loss event: `kind` is "fast_retransmit" or "timeout"; `consecutive` counts expiries
/// for the same data (1 for the first; 0 for a fast retransmit).
#[pyclass(module = "wtcp._core", name = "Loss", frozen, get_all)]
pub struct PyLoss {
    kind: &'static str,
    consecutive: u32,
}

#[pymethods]
impl PyLoss {
    fn __repr__(&self) -> String {
        format!("Loss(kind={:?}, consecutive={})", self.kind, self.consecutive)
    }
}

/// A signal: `kind` "congestion_mark" or "mac_retry_limit" (with the segment's `seq`).
#[pyclass(module = "wtcp._core", name = "Signal", frozen, get_all)]
pub struct PySignal {
    kind: &'static str,
    seq: Option<u64>,
}

#[pymethods]
impl PySignal {
    fn __repr__(&self) -> String {
        format!("Signal(kind={:?}, seq={})", self.kind, py_opt(self.seq))
    }
}

/// The hooks a class overrides (the others run the trait's default in Rust).
#[derive(Clone, Copy, Debug, Default)]
pub struct Hooks {
    pub init: bool,
    pub on_recovery_exit: bool,
    pub on_recovery_exit_growth: bool,
    pub on_recovery_exit_ack: bool,
    pub on_spurious_timeout: bool,
    pub on_signal: bool,
    pub trace_vars: bool,
}

impl Hooks {
    pub fn from_names(names: &[String]) -> Result<Hooks, String> {
        let mut h = Hooks::default();
        for n in names {
            match n.as_str() {
                "init" => h.init = true,
                "on_recovery_exit" => h.on_recovery_exit = true,
                "on_recovery_exit_growth" => h.on_recovery_exit_growth = true,
                "on_recovery_exit_ack" => h.on_recovery_exit_ack = true,
                "on_spurious_timeout" => h.on_spurious_timeout = true,
                "on_signal" => h.on_signal = true,
                "trace_vars" => h.trace_vars = true,
                "on_ack" | "on_loss" => {}
                other => return Err(format!("unknown hook `{other}`")),
            }
        }
        Ok(h)
    }
}

/// A registered Python class: builds one [`PyCc`] per flow.
pub struct PyAlgorithm {
    info: &'static AlgorithmInfo,
    style: RecoveryStyle,
    hooks: Hooks,
    /// `make(params: dict) -> instance` (the class with its parameters merged).
    make: Py<PyAny>,
    /// `check(params: dict) -> None | str`.
    check: Py<PyAny>,
}

/// What `register` learned about a class.
pub struct Definition {
    pub name: String,
    pub summary: String,
    pub reference: String,
    /// (name, default as text, doc).
    pub params: Vec<(String, String, String)>,
    pub style: RecoveryStyle,
    pub timeout_collapses_window: bool,
    pub hooks: Hooks,
    pub make: Py<PyAny>,
    pub check: Py<PyAny>,
}

impl PyAlgorithm {
    pub fn new(d: Definition) -> PyAlgorithm {
        let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
        let params: Vec<ParamInfo> = d
            .params
            .into_iter()
            .map(|(name, default, doc)| ParamInfo { name: leak(name), unit: "", default: leak(default), doc: leak(doc), range: Range::Any })
            .collect();
        // Leaked once per registration: the registry's documentation is `'static`.
        let info: &'static AlgorithmInfo = Box::leak(Box::new(AlgorithmInfo {
            name: intern(&d.name),
            summary: leak(d.summary),
            reference: leak(d.reference),
            params: Box::leak(params.into_boxed_slice()),
            constraints: &[],
            timeout_collapses_window: d.timeout_collapses_window,
        }));
        PyAlgorithm { info, style: d.style, hooks: d.hooks, make: d.make, check: d.check }
    }
}

fn json_to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (v.to_string(),))
}

impl UserAlgorithm for PyAlgorithm {
    fn info(&self) -> &'static AlgorithmInfo {
        self.info
    }

    fn check_params(&self, params: &serde_json::Value) -> Result<(), ParamError> {
        let whole = |message: String| ParamError { path: String::new(), message };
        Python::attach(|py| {
            let d = json_to_py(py, params).map_err(|e| whole(e.to_string()))?;
            let out = self.check.call1(py, (d,)).map_err(|e| whole(format!("check_params raised {e}")))?;
            match out.extract::<Option<(String, String)>>(py) {
                Ok(None) => Ok(()),
                Ok(Some((path, message))) => Err(ParamError { path, message }),
                Err(e) => Err(whole(e.to_string())),
            }
        })
    }

    fn build(&self, params: &serde_json::Value, flow: u32) -> Box<dyn CongestionControl> {
        Python::attach(|py| {
            let made = json_to_py(py, params).and_then(|d| self.make.call1(py, (d,)));
            let parts = made.and_then(|obj| {
                let ack = Py::new(py, PyAck { s: AckSample::default() })?;
                let win = Py::new(py, PyWindow { cwnd: 0.0, ssthresh: 0.0, pacing_rate: None })?;
                let prior = Py::new(py, PyWindow { cwnd: 0.0, ssthresh: 0.0, pacing_rate: None })?;
                let cx = Py::new(py, PyCtx::blank())?;
                Ok((obj, ack, win, prior, cx))
            });
            let failed = Cell::new(false);
            let (obj, ack, win, prior, cx) = match parts {
                Ok(p) => p,
                Err(e) => {
                    failed.set(true);
                    record(Failure { algorithm: self.info.name, flow, hook: "__init__", now: 0, message: e.to_string(), error: Some(e) });
                    (py.None(), Py::new(py, PyAck { s: AckSample::default() }).expect("a small object"), blank_win(py), blank_win(py), Py::new(py, PyCtx::blank()).expect("a small object"))
                }
            };
            Box::new(PyCc { info: self.info, style: self.style, hooks: self.hooks, flow, obj, ack, win, prior, cx, failed, started: false, last_now: Cell::new(0) }) as Box<dyn CongestionControl>
        })
    }
}

fn blank_win(py: Python<'_>) -> Py<PyWindow> {
    Py::new(py, PyWindow { cwnd: 0.0, ssthresh: 0.0, pacing_rate: None }).expect("a small object")
}

/// One flow's Python algorithm.
pub struct PyCc {
    info: &'static AlgorithmInfo,
    style: RecoveryStyle,
    hooks: Hooks,
    flow: u32,
    obj: Py<PyAny>,
    ack: Py<PyAck>,
    win: Py<PyWindow>,
    /// `on_spurious_timeout`'s `prior` window.
    prior: Py<PyWindow>,
    cx: Py<PyCtx>,
    /// A hook failed: no more calls into Python (the run is being stopped).
    failed: Cell<bool>,
    /// `init` has run (traces sample the flow before it starts).
    started: bool,
    /// Simulated time of the last hook call (for a failure of `trace_vars`).
    last_now: Cell<Time>,
}

impl std::fmt::Debug for PyCc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PyCc({}, flow {})", self.info.name, self.flow)
    }
}

/// Why a window the hook left cannot go to the sender, if it cannot.
fn refuse_window(w: &PyWindow) -> Option<String> {
    if !(w.cwnd.is_finite() && w.cwnd > 0.0) {
        return Some(format!("left w.cwnd = {}; allowed: a finite number of bytes > 0", w.cwnd));
    }
    if w.ssthresh.is_nan() || w.ssthresh <= 0.0 {
        return Some(format!("left w.ssthresh = {}; allowed: bytes > 0 (math.inf for none)", w.ssthresh));
    }
    if let Some(r) = w.pacing_rate {
        if !(r.is_finite() && r > 0.0) {
            return Some(format!("left w.pacing_rate = {r}; allowed: None or a finite rate in bytes/s > 0"));
        }
    }
    None
}

/// A loss response must set ssthresh (RFC 5681 §3.1 eq. 4 on a timeout, §3.2 step 2 on a
/// fast retransmit): with none, the deflation at the end of recovery would set an infinite
/// window.
const UNSET_SSTHRESH: &str = "left w.ssthresh = inf; allowed: a finite number of bytes > 0 (a loss response sets ssthresh, RFC 5681 §3.1-3.2)";

impl PyCc {
    fn fail(&self, hook: &'static str, now: Time, message: String, error: Option<PyErr>) {
        self.failed.set(true);
        record(Failure { algorithm: self.info.name, flow: self.flow, hook, now, message, error });
    }

    /// Call `hook` with the window and context loaded into this flow's objects; apply the
    /// window and requests it leaves, if valid. `call` makes the call and returns its value.
    fn call<'py, R>(
        &self,
        py: Python<'py>,
        hook: &'static str,
        w: &mut Window,
        cx: &mut Ctx,
        call: impl FnOnce(&Bound<'py, PyAny>, &Bound<'py, PyWindow>, &Bound<'py, PyCtx>) -> PyResult<Bound<'py, PyAny>>,
        convert: impl FnOnce(&Bound<'py, PyAny>) -> Result<R, String>,
    ) -> Option<R> {
        // After a failure (this flow's or another's in the same run) no more user code runs.
        if self.failed.get() || has_failed() {
            return None;
        }
        self.last_now.set(cx.now);
        let win = self.win.bind(py);
        let pcx = self.cx.bind(py);
        *win.borrow_mut() = PyWindow::from(&*w);
        pcx.borrow_mut().load(cx);
        let out = match call(self.obj.bind(py), win, pcx) {
            Ok(v) => v,
            Err(e) => {
                // Ctrl-C (KeyboardInterrupt) and SystemExit end the run too; `run` raises
                // them as they are.
                self.fail(hook, cx.now, e.to_string(), Some(e));
                return None;
            }
        };
        let r = match convert(&out) {
            Ok(r) => r,
            Err(msg) => {
                self.fail(hook, cx.now, msg, None);
                return None;
            }
        };
        let nw = *win.borrow();
        let refused = refuse_window(&nw).or_else(|| (hook == "on_loss" && nw.ssthresh.is_infinite()).then(|| UNSET_SSTHRESH.to_string()));
        if let Some(msg) = refused.or_else(|| pcx.borrow().refuse()) {
            self.fail(hook, cx.now, msg, None);
            return None;
        }
        w.cwnd = nw.cwnd;
        w.ssthresh = nw.ssthresh;
        w.pacing_rate = nw.pacing_rate;
        pcx.borrow().store(cx);
        Some(r)
    }

    fn ignore(_: &Bound<'_, PyAny>) -> Result<(), String> {
        Ok(())
    }

    fn call_ack(&self, hook: &'static str, method: &Bound<'_, PyString>, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        let py = method.py();
        self.ack.bind(py).borrow_mut().s = *ack;
        let a = self.ack.bind(py);
        self.call(py, hook, w, cx, |obj, win, pcx| obj.call_method1(method, (a, win, pcx)), Self::ignore);
    }
}

/// Interned method names (one Python string each per process).
macro_rules! method {
    ($py:expr, $name:literal) => {
        pyo3::intern!($py, $name)
    };
}

impl CongestionControl for PyCc {
    fn name(&self) -> &'static str {
        self.info.name
    }

    fn recovery_style(&self) -> RecoveryStyle {
        self.style
    }

    fn init(&mut self, w: &mut Window, cx: &mut Ctx) {
        self.started = true;
        if self.hooks.init {
            Python::attach(|py| self.call(py, "init", w, cx, |o, win, pcx| o.call_method1(method!(py, "init"), (win, pcx)), Self::ignore));
        }
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        Python::attach(|py| self.call_ack("on_ack", method!(py, "on_ack"), ack, w, cx));
    }

    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
        let (kind, consecutive) = match loss {
            Loss::FastRetransmit => ("fast_retransmit", 0),
            Loss::Timeout { consecutive } => ("timeout", consecutive),
        };
        Python::attach(|py| {
            let Ok(l) = Py::new(py, PyLoss { kind, consecutive }) else { return Verdict::None };
            let verdict = |v: &Bound<'_, PyAny>| -> Result<Verdict, String> {
                if v.is_none() {
                    return Ok(Verdict::None);
                }
                match v.extract::<String>().as_deref() {
                    Ok("none") => Ok(Verdict::None),
                    Ok("congestion") => Ok(Verdict::Congestion),
                    Ok("wireless") => Ok(Verdict::Wireless),
                    _ => Err(format!("returned {}; allowed: None, \"none\", \"congestion\", \"wireless\"", v.repr().map(|r| r.to_string()).unwrap_or_default())),
                }
            };
            self.call(py, "on_loss", w, cx, |o, win, pcx| o.call_method1(method!(py, "on_loss"), (l, win, pcx)), verdict).unwrap_or(Verdict::None)
        })
    }

    fn on_recovery_exit(&mut self, w: &mut Window, cx: &mut Ctx) {
        if !self.hooks.on_recovery_exit {
            if w.ssthresh.is_finite() {
                w.cwnd = w.ssthresh;
            } else if !self.failed.get() {
                self.fail("on_recovery_exit", cx.now, "the default on_recovery_exit (cwnd = ssthresh) found w.ssthresh = inf: a hook set it during recovery; allowed: a finite number of bytes > 0".into(), None);
            }
            return;
        }
        Python::attach(|py| self.call(py, "on_recovery_exit", w, cx, |o, win, pcx| o.call_method1(method!(py, "on_recovery_exit"), (win, pcx)), Self::ignore));
    }

    fn on_recovery_exit_growth(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        if self.hooks.on_recovery_exit_growth {
            Python::attach(|py| self.call_ack("on_recovery_exit_growth", method!(py, "on_recovery_exit_growth"), ack, w, cx));
        }
    }

    fn on_recovery_exit_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        if self.hooks.on_recovery_exit_ack {
            Python::attach(|py| self.call_ack("on_recovery_exit_ack", method!(py, "on_recovery_exit_ack"), ack, w, cx));
        }
    }

    fn on_spurious_timeout(&mut self, prior: &Window, w: &mut Window, cx: &mut Ctx) {
        if !self.hooks.on_spurious_timeout {
            w.cwnd = prior.cwnd;
            w.ssthresh = prior.ssthresh;
            return;
        }
        Python::attach(|py| {
            *self.prior.bind(py).borrow_mut() = PyWindow::from(prior);
            let p = self.prior.bind(py);
            self.call(py, "on_spurious_timeout", w, cx, |o, win, pcx| o.call_method1(method!(py, "on_spurious_timeout"), (p, win, pcx)), Self::ignore);
        });
    }

    fn on_signal(&mut self, signal: Signal, w: &mut Window, cx: &mut Ctx) {
        if !self.hooks.on_signal {
            return;
        }
        let (kind, seq) = match signal {
            Signal::CongestionMark => ("congestion_mark", None),
            Signal::MacRetryLimit { seq } => ("mac_retry_limit", Some(seq)),
            _ => return,
        };
        Python::attach(|py| {
            let Ok(s) = Py::new(py, PySignal { kind, seq }) else { return };
            self.call(py, "on_signal", w, cx, |o, win, pcx| o.call_method1(method!(py, "on_signal"), (s, win, pcx)), Self::ignore);
        });
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        // Not before `init`: a Python object sets up its state there.
        if !self.hooks.trace_vars || !self.started || self.failed.get() || has_failed() {
            return;
        }
        Python::attach(|py| {
            let got = self.obj.bind(py).call_method0(method!(py, "trace_vars")).and_then(|d| {
                let d = d.cast_into::<PyDict>().map_err(|e| PyErr::from(e))?;
                let mut vars = Vec::with_capacity(d.len());
                for (k, v) in d.iter() {
                    let name = k.extract::<String>()?;
                    if name.is_empty() || name.chars().any(char::is_control) {
                        return Err(pyo3::exceptions::PyValueError::new_err(format!("trace variable name {name:?}; allowed: a non-empty name without control characters")));
                    }
                    vars.push((intern(&name), v.extract::<f64>()?));
                }
                Ok(vars)
            });
            match got {
                Ok(vars) => out.extend(vars),
                Err(e) => self.fail("trace_vars", self.last_now.get(), format!("{e} (trace_vars must return a dict of str to float)"), Some(e)),
            }
        });
    }
}
