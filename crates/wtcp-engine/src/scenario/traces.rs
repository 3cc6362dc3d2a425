//! A link direction's `capacity`: a trace file (mahimahi or CSV) or a seeded synthetic
//! model, checked and turned into the link's [`Capacity`]. The semantics of each form are
//! in `net/capacity.rs`; the parameters of the models here.
//!
//! Synthetic models give a rate that changes at random or scheduled instants; the rate is
//! turned into mahimahi opportunities (1500 bytes of IP packet each, placed in the
//! millisecond in which the cumulative bytes reach each multiple of 1500), so a model in a
//! scenario and the file `wtcp trace generate` writes for it are the same link. Models:
//! - `steps`: `steps = [[duration_s, rate_mbps], ...]`, in order.
//! - `on_off`: `on_mbps` for an exponential time of mean `mean_on_s`, then `off_mbps`
//!   (default 0) for mean `mean_off_s`, starting on.
//! - `markov`: states with `rates_mbps` and mean holding times `mean_holding_s`
//!   (exponential); on leaving a state the next is drawn from row `next[i]` (default: the
//!   other states alike), starting in state 0. Two states make a good/bad channel.
//! - `random_walk`: from `start_mbps`, every `step_s` the rate moves by a normal draw of
//!   standard deviation `sigma_mbps`, reflected into [`min_mbps`, `max_mbps`] (an LTE-like
//!   bounded walk).
//!
//! Every model needs `duration_s`, the period after which it repeats, and takes an optional
//! `seed`: with it the draws come from that seed alone (as `wtcp trace generate` uses it);
//! without it from the run's seed and the direction, so each direction and run differs.

use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::ScenarioError;
use crate::net::capacity::{Capacity, Interpolate, Opportunities, RateSeries, MAX_TIMESTAMP_MS, OPPORTUNITY_IP_BYTES};
use crate::rng::{exponential, stream, unit, SimRng};

type R<T> = Result<T, ScenarioError>;

/// Bytes of IP packet one generated opportunity carries (mahimahi's contract).
const MTU: f64 = OPPORTUNITY_IP_BYTES as f64;
/// At most this many opportunities per period (8 bytes each once loaded).
const MAX_OPPORTUNITIES: usize = 100_000_000;

/// How a capacity trace file is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceFormat {
    /// One millisecond timestamp per line, one opportunity each (mahimahi).
    #[default]
    Mahimahi,
    /// `time_s,rate_mbps` rows.
    Csv,
}

/// `interpolate` of a CSV trace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InterpolateSpec {
    #[default]
    Step,
    Linear,
}

/// The synthetic models.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Model {
    Steps,
    OnOff,
    Markov,
    RandomWalk,
}

/// `capacity = { ... }` of a link direction.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CapacitySpec {
    pub trace: Option<String>,
    pub format: Option<TraceFormat>,
    pub interpolate: Option<InterpolateSpec>,
    pub model: Option<Model>,
    pub duration_s: Option<f64>,
    pub seed: Option<u64>,
    pub steps: Option<Vec<(f64, f64)>>,
    pub on_mbps: Option<f64>,
    pub off_mbps: Option<f64>,
    pub mean_on_s: Option<f64>,
    pub mean_off_s: Option<f64>,
    pub rates_mbps: Option<Vec<f64>>,
    pub mean_holding_s: Option<Vec<f64>>,
    pub next: Option<Vec<Vec<f64>>>,
    pub start_mbps: Option<f64>,
    pub min_mbps: Option<f64>,
    pub max_mbps: Option<f64>,
    pub sigma_mbps: Option<f64>,
    pub step_s: Option<f64>,
}

impl CapacitySpec {
    /// The fields set, by name (for "not a parameter of" messages).
    fn set_fields(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        let mut add = |set: bool, name: &'static str| {
            if set {
                v.push(name);
            }
        };
        add(self.trace.is_some(), "trace");
        add(self.format.is_some(), "format");
        add(self.interpolate.is_some(), "interpolate");
        add(self.duration_s.is_some(), "duration_s");
        add(self.seed.is_some(), "seed");
        add(self.steps.is_some(), "steps");
        add(self.on_mbps.is_some(), "on_mbps");
        add(self.off_mbps.is_some(), "off_mbps");
        add(self.mean_on_s.is_some(), "mean_on_s");
        add(self.mean_off_s.is_some(), "mean_off_s");
        add(self.rates_mbps.is_some(), "rates_mbps");
        add(self.mean_holding_s.is_some(), "mean_holding_s");
        add(self.next.is_some(), "next");
        add(self.start_mbps.is_some(), "start_mbps");
        add(self.min_mbps.is_some(), "min_mbps");
        add(self.max_mbps.is_some(), "max_mbps");
        add(self.sigma_mbps.is_some(), "sigma_mbps");
        add(self.step_s.is_some(), "step_s");
        v
    }
}

/// The parameters each form takes.
fn allowed(model: Option<Model>, format: TraceFormat) -> &'static [&'static str] {
    match model {
        None if format == TraceFormat::Csv => &["trace", "format", "interpolate"],
        None => &["trace", "format"],
        Some(Model::Steps) => &["duration_s", "seed", "steps"],
        Some(Model::OnOff) => &["duration_s", "seed", "on_mbps", "off_mbps", "mean_on_s", "mean_off_s"],
        Some(Model::Markov) => &["duration_s", "seed", "rates_mbps", "mean_holding_s", "next"],
        Some(Model::RandomWalk) => &["duration_s", "seed", "start_mbps", "min_mbps", "max_mbps", "sigma_mbps", "step_s"],
    }
}

fn err<T>(path: impl Into<String>, msg: impl Into<String>) -> R<T> {
    Err(ScenarioError::new(path, msg))
}

/// Resolve `capacity` at field path `p`; `run_seed` and `replication` seed a model without
/// its own seed, together with `p`.
pub fn resolve(p: &str, spec: &CapacitySpec, run_seed: u64, replication: u64) -> R<Capacity> {
    let format = spec.format.unwrap_or_default();
    let given = |name: &str| format!("{p}.{name}");
    let allowed_here = allowed(spec.model, format);
    if let Some(f) = spec.set_fields().into_iter().find(|f| !allowed_here.contains(f)) {
        let what = match spec.model {
            Some(m) => format!("is not a parameter of model \"{}\"", model_name(m)),
            None if spec.trace.is_some() => format!("does not apply to a {} trace file", format_name(format)),
            None => "needs `trace = \"PATH\"` or `model = ...`".to_string(),
        };
        return err(given(f), format!("{what}; allowed here: {}", allowed_here.join(", ")));
    }
    match (spec.model, &spec.trace) {
        (Some(_), Some(_)) => err(given("trace"), "and `model` are both set; give a trace file or a model"),
        (None, None) => err(p, "needs `trace = \"PATH\"` (with `format = \"mahimahi\"` or `\"csv\"`) or `model = \"steps\" | \"on_off\" | \"markov\" | \"random_walk\"`"),
        (None, Some(path)) => load_file(&given("trace"), Path::new(path), format, spec.interpolate.unwrap_or_default()),
        (Some(model), None) => {
            let seeded = spec.seed.map(|s| stream(s, 0, "capacity"));
            let mut rng = seeded.unwrap_or_else(|| stream(run_seed, replication, &format!("capacity:{p}")));
            let ms = generate(p, model, spec, &mut rng)?;
            Ok(Capacity::Opportunities(Arc::new(Opportunities::from_ms(&ms))))
        }
    }
}

fn model_name(m: Model) -> &'static str {
    match m {
        Model::Steps => "steps",
        Model::OnOff => "on_off",
        Model::Markov => "markov",
        Model::RandomWalk => "random_walk",
    }
}

fn format_name(f: TraceFormat) -> &'static str {
    match f {
        TraceFormat::Mahimahi => "mahimahi",
        TraceFormat::Csv => "csv",
    }
}

/// A `capacity` table given alone as TOML text (`{ model = "markov", ... }` or
/// `{ trace = "PATH" }`), as `wtcp trace` and `wtcp.traces` take it; errors name
/// `capacity.FIELD`. `run_seed` seeds a model without its own seed.
pub fn resolve_text(text: &str, run_seed: u64) -> R<Capacity> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Wrapper {
        capacity: CapacitySpec,
    }
    let w: Wrapper = toml::from_str(&format!("capacity = {}", text.trim())).map_err(|e| {
        let msg = e.message().to_string();
        let field = msg.split('`').nth(1).filter(|_| msg.starts_with("unknown field")).map_or("capacity".to_string(), |f| format!("capacity.{f}"));
        ScenarioError::new(field, msg)
    })?;
    resolve("capacity", &w.capacity, run_seed, 0)
}

/// Read a trace file; errors name the file and the line.
pub fn load_file(field: &str, path: &Path, format: TraceFormat, interpolate: InterpolateSpec) -> R<Capacity> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ScenarioError::new(field, format!("cannot read {shown}: {e}")))?;
    match format {
        TraceFormat::Mahimahi => {
            let ms = parse_mahimahi(&text).map_err(|m| ScenarioError::new(field, format!("{shown}: {m}")))?;
            Ok(Capacity::Opportunities(Arc::new(Opportunities::from_ms(&ms))))
        }
        TraceFormat::Csv => {
            let interp = match interpolate {
                InterpolateSpec::Step => Interpolate::Step,
                InterpolateSpec::Linear => Interpolate::Linear,
            };
            let points = parse_csv(&text, interp).map_err(|m| ScenarioError::new(field, format!("{shown}: {m}")))?;
            Ok(Capacity::Rates(Arc::new(RateSeries::new(points, interp))))
        }
    }
}

/// mahimahi's reader (`LinkQueue::LinkQueue`): one nonnegative integer per line, nondecreasing,
/// the last > 0. A trailing newline is allowed; an empty line inside is not.
pub fn parse_mahimahi(text: &str) -> Result<Vec<u64>, String> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let body = body.strip_suffix('\r').unwrap_or(body);
    if body.is_empty() {
        return Err("empty file; allowed: one timestamp in milliseconds per line".into());
    }
    let mut ms: Vec<u64> = Vec::with_capacity(body.len() / 4);
    for (i, line) in body.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let n = i + 1;
        if line.is_empty() {
            return Err(format!("line {n}: empty line; allowed: a timestamp in milliseconds"));
        }
        let v: u64 = line.trim().parse().map_err(|_| format!("line {n}: `{}` is not a timestamp; allowed: a whole number of milliseconds >= 0", truncate(line)))?;
        if v > MAX_TIMESTAMP_MS {
            return Err(format!("line {n}: {v} ms; allowed: up to {MAX_TIMESTAMP_MS} ms"));
        }
        if ms.last().is_some_and(|&last| v < last) {
            return Err(format!("line {n}: {v} is before the previous timestamp {}; timestamps must not decrease", ms[ms.len() - 1]));
        }
        if ms.len() == MAX_OPPORTUNITIES {
            return Err(format!("line {n}: more than {MAX_OPPORTUNITIES} opportunities"));
        }
        ms.push(v);
    }
    if ms.last() == Some(&0) {
        return Err("the last timestamp is 0: the trace must last a nonzero time (its period)".into());
    }
    Ok(ms)
}

fn truncate(s: &str) -> String {
    s.chars().take(40).collect()
}

/// `time_s,rate_mbps` rows (an optional header line whose first field is not a number).
pub fn parse_csv(text: &str, interpolate: Interpolate) -> Result<Vec<(u64, f64)>, String> {
    let mut points: Vec<(u64, f64)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let mut fields = line.split(',').map(str::trim);
        let (Some(a), Some(b), None) = (fields.next(), fields.next(), fields.next()) else {
            return Err(format!("line {n}: `{}`; allowed: time_s,rate_mbps", truncate(line)));
        };
        let (Ok(t), Ok(r)) = (a.parse::<f64>(), b.parse::<f64>()) else {
            if n == 1 && a.parse::<f64>().is_err() {
                continue; // a header
            }
            return Err(format!("line {n}: `{}` is not two numbers; allowed: time_s,rate_mbps", truncate(line)));
        };
        if !(t.is_finite() && t >= 0.0) {
            return Err(format!("line {n}: time {a}; allowed: seconds >= 0"));
        }
        if !(r.is_finite() && r >= 0.0) {
            return Err(format!("line {n}: rate {b}; allowed: Mb/s >= 0"));
        }
        let t_ns = (t * 1e9).round() as u64;
        if points.is_empty() && t_ns != 0 {
            return Err(format!("line {n}: the first row is at {t} s; allowed: 0 (the series starts at time 0)"));
        }
        if points.last().is_some_and(|p| t_ns <= p.0) {
            return Err(format!("line {n}: time {t} s is not after the previous row's; times must increase"));
        }
        points.push((t_ns, r * 1e6));
    }
    if points.len() < 2 {
        return Err("fewer than two rows; allowed: rows from time 0 to the period, the last row's time being the period".into());
    }
    let carries = match interpolate {
        Interpolate::Step => points[..points.len() - 1].iter().any(|p| p.1 > 0.0),
        Interpolate::Linear => points.iter().any(|p| p.1 > 0.0),
    };
    if !carries {
        return Err("every rate is 0: the link would never send".into());
    }
    Ok(points)
}

/// A rate schedule: (duration s, rate b/s) pieces covering one period.
type Pieces = Vec<(f64, f64)>;

fn positive(path: String, v: Option<f64>, what: &str) -> R<f64> {
    match v {
        None => err(path, format!("is missing; allowed: {what}")),
        Some(x) if x.is_finite() && x > 0.0 => Ok(x),
        Some(x) => err(path, format!("is {x}; allowed: {what}")),
    }
}

fn rate(path: String, v: Option<f64>, default: Option<f64>) -> R<f64> {
    match v.or(default) {
        None => err(path, "is missing; allowed: a rate in Mb/s >= 0"),
        Some(x) if x.is_finite() && (0.0..=1e6).contains(&x) => Ok(x * 1e6),
        Some(x) => err(path, format!("is {x}; allowed: a rate in Mb/s from 0 to 1e6")),
    }
}

/// Opportunity timestamps (ms) of one period of a model.
pub fn generate(p: &str, model: Model, s: &CapacitySpec, rng: &mut SimRng) -> R<Vec<u64>> {
    let f = |name: &str| format!("{p}.{name}");
    let duration = positive(f("duration_s"), s.duration_s, "the period in seconds, > 0")?;
    if duration > 86_400.0 {
        return err(f("duration_s"), format!("is {duration}; allowed: up to 86400 s (one day)"));
    }
    let mut pieces: Pieces = Vec::new();
    let mut t = 0.0;
    match model {
        Model::Steps => {
            let steps = s.steps.as_ref().filter(|v| !v.is_empty()).ok_or_else(|| ScenarioError::new(f("steps"), "is missing; allowed: [[duration_s, rate_mbps], ...]"))?;
            for (i, &(d, r)) in steps.iter().enumerate() {
                let d = positive(f(&format!("steps.{i}.0")), Some(d), "a duration in seconds, > 0")?;
                pieces.push((d, rate(f(&format!("steps.{i}.1")), Some(r), None)?));
            }
            let total: f64 = pieces.iter().map(|p| p.0).sum();
            if (total - duration).abs() > 1e-9 * duration {
                return err(f("steps"), format!("last {total} s in all; allowed: durations summing to duration_s ({duration} s)"));
            }
        }
        Model::OnOff => {
            let on = rate(f("on_mbps"), s.on_mbps, None)?;
            let off = rate(f("off_mbps"), s.off_mbps, Some(0.0))?;
            let mean_on = positive(f("mean_on_s"), s.mean_on_s, "a mean time in seconds, > 0")?;
            let mean_off = positive(f("mean_off_s"), s.mean_off_s, "a mean time in seconds, > 0")?;
            let mut is_on = true;
            while t < duration {
                let d = exponential(rng, if is_on { mean_on } else { mean_off });
                pieces.push((d, if is_on { on } else { off }));
                t += d;
                is_on = !is_on;
            }
        }
        Model::Markov => {
            let rates = s.rates_mbps.as_ref().filter(|v| v.len() >= 2).ok_or_else(|| ScenarioError::new(f("rates_mbps"), "is missing or has fewer than 2 states; allowed: [rate_mbps, ...] per state"))?;
            let rates: Vec<f64> = rates.iter().enumerate().map(|(i, &r)| rate(f(&format!("rates_mbps.{i}")), Some(r), None)).collect::<R<_>>()?;
            let holding = s.mean_holding_s.as_ref().ok_or_else(|| ScenarioError::new(f("mean_holding_s"), "is missing; allowed: one mean time in seconds per state"))?;
            if holding.len() != rates.len() {
                return err(f("mean_holding_s"), format!("has {} entries for {} states; allowed: one per state", holding.len(), rates.len()));
            }
            let holding: Vec<f64> = holding.iter().enumerate().map(|(i, &h)| positive(f(&format!("mean_holding_s.{i}")), Some(h), "a mean time in seconds, > 0")).collect::<R<_>>()?;
            let k = rates.len();
            let next: Vec<Vec<f64>> = match &s.next {
                None => (0..k).map(|i| (0..k).map(|j| if i == j { 0.0 } else { 1.0 / (k - 1) as f64 }).collect()).collect(),
                Some(rows) => {
                    if rows.len() != k {
                        return err(f("next"), format!("has {} rows for {} states; allowed: a k x k matrix of probabilities", rows.len(), k));
                    }
                    for (i, row) in rows.iter().enumerate() {
                        let sum: f64 = row.iter().sum();
                        if row.len() != k || row.iter().any(|v| !(v.is_finite() && *v >= 0.0)) || (sum - 1.0).abs() > 1e-9 || row[i] != 0.0 {
                            return err(f(&format!("next.{i}")), format!("is {row:?}; allowed: {k} probabilities >= 0 summing to 1, 0 on the diagonal (the next state differs)"));
                        }
                    }
                    rows.clone()
                }
            };
            let mut state = 0;
            while t < duration {
                let d = exponential(rng, holding[state]);
                pieces.push((d, rates[state]));
                t += d;
                let u = unit(rng);
                let mut acc = 0.0;
                let mut pick = k - 1;
                for (j, &pj) in next[state].iter().enumerate() {
                    acc += pj;
                    if u < acc {
                        pick = j;
                        break;
                    }
                }
                state = pick;
            }
        }
        Model::RandomWalk => {
            let lo = rate(f("min_mbps"), s.min_mbps, Some(0.0))?;
            let hi = rate(f("max_mbps"), s.max_mbps, None)?;
            if hi <= lo {
                return err(f("max_mbps"), format!("is {}; allowed: above min_mbps ({})", hi / 1e6, lo / 1e6));
            }
            let mut r = rate(f("start_mbps"), s.start_mbps, None)?;
            if !(lo..=hi).contains(&r) {
                return err(f("start_mbps"), format!("is {}; allowed: from min_mbps to max_mbps", r / 1e6));
            }
            let sigma = s.sigma_mbps.unwrap_or(f64::NAN);
            if !(sigma.is_finite() && sigma >= 0.0) {
                return err(f("sigma_mbps"), format!("is {}; allowed: a standard deviation in Mb/s >= 0", s.sigma_mbps.map_or("missing".into(), |v| v.to_string())));
            }
            let step = positive(f("step_s"), s.step_s, "a step in seconds, > 0")?;
            if step < 1e-3 {
                return err(f("step_s"), format!("is {step}; allowed: at least 0.001 (the trace's millisecond resolution)"));
            }
            while t < duration {
                pieces.push((step, r));
                t += step;
                r = reflect(r + normal(rng) * sigma * 1e6, lo, hi);
            }
        }
    }
    let ms = opportunities(&pieces, duration);
    if ms.is_empty() {
        return err(p, "carries no data in its period (every rate 0 or too short to fill one 1500-byte opportunity)");
    }
    Ok(ms)
}

/// A standard normal draw (one of Box-Muller's pair).
fn normal(rng: &mut SimRng) -> f64 {
    crate::rng::normal_pair(rng).0
}

/// Reflect `x` into [lo, hi].
fn reflect(mut x: f64, lo: f64, hi: f64) -> f64 {
    let w = hi - lo;
    while x < lo || x > hi {
        x = if x < lo { 2.0 * lo - x } else { 2.0 * hi - x };
        if w == 0.0 {
            return lo;
        }
    }
    x
}

/// Opportunities of a piecewise-constant rate cut at `duration`: one in the millisecond in
/// which the cumulative bytes reach each multiple of 1500; the period is `duration` in whole
/// milliseconds (the last timestamp is raised to it so the file loops at the right time).
fn opportunities(pieces: &Pieces, duration: f64) -> Vec<u64> {
    let period_ms = (duration * 1e3).round().max(1.0) as u64;
    let mut out = Vec::new();
    // Each opportunity's time from its own byte count within its piece (no error carried
    // from one opportunity to the next).
    let (mut t0, mut bytes0, mut k) = (0.0f64, 0.0f64, 1u64);
    for &(d, r) in pieces {
        let end = (t0 + d).min(duration);
        let per_s = r / 8.0;
        let bytes1 = bytes0 + per_s * (end - t0);
        while per_s > 0.0 && k as f64 * MTU <= bytes1 {
            let at = t0 + (k as f64 * MTU - bytes0) / per_s;
            // The millisecond in which the byte count is reached (a 1e-9 ms allowance for
            // rounding: 1500 bytes at 12 Mb/s are in at 1 ms, not 0.999...).
            out.push(((at * 1e3 + 1e-9).floor() as u64).min(period_ms));
            k += 1;
        }
        (t0, bytes0) = (end, bytes1);
        if t0 >= duration {
            break;
        }
    }
    if out.last().is_some_and(|&last| last != period_ms) {
        // mahimahi's period is the last line's timestamp: an opportunity at the period's
        // end fixes it, adding one packet per period (documented).
        out.push(period_ms);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mahimahi_files_parse_as_mahimahi_reads_them() {
        assert_eq!(parse_mahimahi("1\n").unwrap(), vec![1]);
        assert_eq!(parse_mahimahi("0\n0\n3\n3\n5").unwrap(), vec![0, 0, 3, 3, 5]);
        assert!(parse_mahimahi("").unwrap_err().contains("empty file"));
        assert!(parse_mahimahi("0\n").unwrap_err().contains("nonzero time"));
        assert!(parse_mahimahi("1\n\n2\n").unwrap_err().contains("line 2: empty line"));
        assert!(parse_mahimahi("1\n3\n2\n").unwrap_err().contains("line 3: 2 is before"));
        assert!(parse_mahimahi("1\nx\n").unwrap_err().contains("line 2: `x` is not a timestamp"));
        assert!(parse_mahimahi("-1\n").unwrap_err().contains("line 1"));
    }

    #[test]
    fn csv_rows_start_at_zero_and_increase() {
        let p = parse_csv("time_s,rate_mbps\n0,2\n1.5,4\n3,4\n", Interpolate::Step).unwrap();
        assert_eq!(p, vec![(0, 2e6), (1_500_000_000, 4e6), (3_000_000_000, 4e6)]);
        assert!(parse_csv("1,2\n2,2\n", Interpolate::Step).unwrap_err().contains("line 1: the first row"));
        assert!(parse_csv("0,2\n0,3\n", Interpolate::Step).unwrap_err().contains("line 2"));
        assert!(parse_csv("0,0\n1,5\n", Interpolate::Step).unwrap_err().contains("every rate is 0"));
        assert!(parse_csv("0,0\n1,5\n", Interpolate::Linear).is_ok());
        assert!(parse_csv("0,-1\n1,5\n", Interpolate::Step).unwrap_err().contains("line 1: rate"));
    }

    #[test]
    fn a_constant_rate_becomes_evenly_spaced_opportunities() {
        // 12 Mb/s = one 1500-byte opportunity per ms: timestamps 1..=1000 over 1 s.
        let ms = opportunities(&vec![(1.0, 12e6)], 1.0);
        assert_eq!(ms.len(), 1000);
        assert_eq!(ms[0], 1, "the first 1500 bytes are in at 1 ms");
        assert_eq!(*ms.last().unwrap(), 1000);
        // 6 Mb/s: one every 2 ms.
        let ms = opportunities(&vec![(1.0, 6e6)], 1.0);
        assert_eq!((ms.len(), ms[0], ms[1]), (500, 2, 4));
        // No drift over an hour: still exactly one per millisecond.
        let ms = opportunities(&vec![(3600.0, 12e6)], 3600.0);
        assert!(ms.iter().copied().eq(1..=3_600_000), "first mismatch at {:?}", ms.iter().zip(1u64..).find(|(a, b)| **a != *b));
    }

    #[test]
    fn models_are_seeded_and_respect_their_parameters() {
        let spec = CapacitySpec { model: Some(Model::Markov), duration_s: Some(30.0), rates_mbps: Some(vec![1.0, 10.0]), mean_holding_s: Some(vec![1.0, 2.0]), seed: Some(7), ..Default::default() };
        let a = resolve("c", &spec, 1, 0).unwrap();
        let b = resolve("c", &spec, 2, 0).unwrap();
        assert_eq!(a, b, "an explicit seed ignores the run's");
        let unseeded = CapacitySpec { seed: None, ..spec.clone() };
        assert_ne!(resolve("c", &unseeded, 1, 0).unwrap(), resolve("c", &unseeded, 2, 0).unwrap());
        // A random walk stays within its bounds: at most max_mbps worth of opportunities per ms.
        let walk = CapacitySpec { model: Some(Model::RandomWalk), duration_s: Some(20.0), start_mbps: Some(5.0), min_mbps: Some(1.0), max_mbps: Some(12.0), sigma_mbps: Some(3.0), step_s: Some(0.1), seed: Some(1), ..Default::default() };
        let Capacity::Opportunities(o) = resolve("c", &walk, 1, 0).unwrap() else { panic!() };
        let mean_mbps = o.len() as f64 * 1500.0 * 8.0 / 20.0 / 1e6;
        assert!((1.0..=12.0).contains(&mean_mbps), "{mean_mbps}");
    }

    #[test]
    fn parameters_of_another_model_are_refused_by_name() {
        let spec = CapacitySpec { model: Some(Model::Steps), duration_s: Some(1.0), steps: Some(vec![(1.0, 1.0)]), sigma_mbps: Some(1.0), ..Default::default() };
        let e = resolve("links.0.ab.capacity", &spec, 1, 0).unwrap_err();
        assert_eq!(e.path, "links.0.ab.capacity.sigma_mbps");
        assert!(e.message.contains("not a parameter of model \"steps\""), "{}", e.message);
        let none = CapacitySpec::default();
        assert_eq!(resolve("x", &none, 1, 0).unwrap_err().path, "x");
    }
}
