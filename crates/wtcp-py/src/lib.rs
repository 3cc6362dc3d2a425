//! Python bindings: a whole scenario goes in, metrics (JSON) and columnar traces (NumPy
//! arrays) come out. Nothing calls back into Python during a run, and the GIL is
//! released while the simulation runs.

use std::panic::{catch_unwind, AssertUnwindSafe};

use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use wtcp_engine::{RunResult, Scenario, ScenarioError as CoreScenarioError, Traces};

create_exception!(_core, ScenarioError, PyValueError, "A scenario is malformed or inconsistent.");
create_exception!(_core, SimulationError, PyRuntimeError, "The simulator failed internally (a bug; please report it).");

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
    let sc = match format {
        "toml" => Scenario::from_toml_str(text, &overrides),
        "json" => Scenario::from_json_str(text, &overrides),
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

/// Run a scenario. Returns `(metrics_json, traces_or_None)`.
#[pyfunction]
#[pyo3(signature = (text, format = "toml", overrides = Vec::new()))]
fn run<'py>(py: Python<'py>, text: &str, format: &str, overrides: Vec<(String, String)>) -> PyResult<(String, Option<Bound<'py, PyDict>>)> {
    let sc = parse(text, format, overrides)?;
    let outcome = py.detach(|| catch_unwind(AssertUnwindSafe(|| wtcp_engine::run(&sc))));
    let mut result: RunResult = outcome.map_err(|panic| {
        let msg = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".into());
        SimulationError::new_err(format!("internal simulator error: {msg}"))
    })?;
    let traces = match result.traces.take() {
        Some(t) => Some(traces_to_dict(py, t)?),
        None => None,
    };
    Ok((result.to_json(), traces))
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
    for a in wtcp_cc::catalog() {
        let d = PyDict::new(py);
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

/// Parameters as dicts: name, unit, default, doc, range (text; "" for a switch or a
/// choice) and, for a nested table, its own `params`.
fn param_list<'py>(py: Python<'py>, params: &[wtcp_cc::ParamInfo]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for p in params {
        let pd = PyDict::new(py);
        pd.set_item("name", p.name)?;
        pd.set_item("unit", p.unit)?;
        pd.set_item("default", p.default)?;
        pd.set_item("doc", p.doc)?;
        match p.range {
            wtcp_cc::Range::Any => pd.set_item("range", "")?,
            wtcp_cc::Range::Num { .. } => pd.set_item("range", p.range.describe(p.name))?,
            wtcp_cc::Range::Table(nested) => {
                pd.set_item("range", "table")?;
                pd.set_item("params", param_list(py, nested)?)?;
            }
        }
        list.append(pd)?;
    }
    Ok(list)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("__version__", wtcp_engine::VERSION)?;
    Ok(())
}
