//! From a scenario document to the typed, checked [`Scenario`].

use toml::Value;
use wtcp_cc::registry::fmt_num;
use wtcp_cc::{CcConfig, RttConfig};

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::budget;
pub use super::budget::TraceStore;
use super::overrides::{apply_override, parse_value};
use super::schema::*;
use super::ScenarioError;
use crate::net::capacity::Capacity;
use crate::net::link::ArqCfg;
use crate::net::queue::{Aqm, RedCfg, WarningCfg};
use crate::net::routing::{Hop, RouteTable, Topology};
use crate::wifi::motion::Motion;
use crate::wifi::radio::{db_to_linear, Fading, Radio};
use crate::wifi::{phy::PhyParams, Aggregation, HtMode, RateControl, WifiConfig};
use crate::time::{secs, Time};

pub use super::schema::{AppliesTo, BackoffReset, RtoEstimator, EcnEcho, LossDetection, LossSpec, MacHint, PartialAckTimer, PrrExtraSegment, RecoverFs, Recovery, RttSampling, TimeoutCountReset, LossExitCredit, CwndLimited, TsRecent, TimeoutInRecovery, ReceiveWindow};

/// TCP options of one flow, fully resolved (defaults filled in).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Maximum segment size: payload bytes per segment.
    pub mss: u32,
    /// IP + TCP header bytes per packet, without options (40).
    pub header_bytes: u32,
    /// RFC 7323 timestamps (adds 12 bytes per packet; exact RTT samples; the receiver's
    /// arrival time of acknowledged data rides back to the sender).
    pub timestamps: bool,
    pub initial_cwnd_segments: f64,
    /// `None`: unlimited.
    pub initial_ssthresh_segments: Option<f64>,
    pub rtt: RttConfig,
    pub rtt_sampling: RttSampling,
    pub dupack_threshold: u32,
    pub limited_transmit: bool,
    pub delayed_ack: bool,
    pub delayed_ack_count: u32,
    pub delayed_ack_timeout: Time,
    pub send_buffer_bytes: u64,
    pub recv_buffer_bytes: u64,
    /// Data segments are ECN-capable (RED queues with `ecn = true` mark instead of drop).
    pub ecn: bool,
    pub ecn_echo: EcnEcho,
    /// RFC 5682 F-RTO detection of spurious timeouts (basic, without SACK).
    pub frto: bool,
    /// RFC 6582 §4: which partial ACKs restart the retransmission timer.
    pub partial_ack_timer: PartialAckTimer,
    /// RFC 2018 SACK (the receiver reports blocks, the sender keeps a scoreboard and
    /// recovers per RFC 6675) and RFC 2883 D-SACK.
    pub sack: bool,
    /// Recovery after a fast retransmit (`prr` needs `sack`).
    pub recovery: Recovery,
    /// Loss detection before the timer: duplicate ACKs (RFC 5681 / RFC 6675) or RFC 8985
    /// RACK (which applies only with `sack`, as in Linux).
    pub loss_detection: LossDetection,
    /// Every retransmission of the segment at SND.UNA restarts the retransmission timer
    /// (Linux tcp_xmit_retransmit_queue); RFC 6298 restarts it on ACKs of new data only.
    pub rearm_rto_on_head_retransmit: bool,
    /// RFC 8985 §7 tail loss probe as Linux sends it (`tcp/tlp.rs`): with SACK, in the open
    /// state, a probe when no ACK came for about two SRTTs.
    pub tail_loss_probe: bool,
    /// When the RTO backoff is cleared.
    pub backoff_reset: BackoffReset,
    /// Open the connection with SYN / SYN-ACK before data (RFC 793, RFC 6298 §5.7).
    pub handshake: bool,
    /// PRR's RecoverFS: FlightSize (RFC 6937 §3) or the pipe (ns-3).
    pub prr_recover_fs: RecoverFs,
    /// PRR credits one more SMSS per duplicate ACK while less than RecoverFS was delivered
    /// (ns-3.44's TcpPrrRecovery); RFC 6937 credits what the ACK delivered.
    pub prr_dupack_credit: bool,
    /// When PRR-SSRB's extra segment is allowed (`every_ack`, RFC 6937; ns-3: only on an ACK
    /// of retransmitted data).
    pub prr_extra_segment: PrrExtraSegment,
    /// When a run of consecutive timeouts ends (`new_ack`, RFC 5681; `every_timeout`, ns-3).
    pub timeout_count_reset: TimeoutCountReset,
    /// The ACK that ends fast recovery is also offered to the algorithm's window growth
    /// (ns-3.44's TcpSocketBase::ProcessAck calls IncreaseWindow with its whole span);
    /// RFC 5681 §3.2 step 6 / RFC 6582 §3.2 step 3 only deflate.
    pub recovery_exit_growth: bool,
    /// Without SACK, ns-3.44's scoreboard of invented SACKs (one per duplicate ACK, kept
    /// after recovery; everything lost after a timeout) drives the pipe and what is resent
    /// (`tcp/reno_sack.rs`); RFC 5681 / RFC 6582 window inflation otherwise.
    pub reno_sack: bool,
    /// With SACK, the growth credit of the ACK that reaches a timeout's recovery point
    /// (`delivered`; ns-3: `above_recovery_point`). Without SACK, `reno_sack` credits as
    /// ns-3 does.
    pub loss_exit_credit: LossExitCredit,
    /// When the flow counts as cwnd-limited for algorithms that grow only then (`assumed`:
    /// always, RFC 5681; `ns3`; `linux`).
    pub cwnd_limited: CwndLimited,
    /// Which data segment's TSval the receiver echoes (`rfc7323`; `ns3`).
    pub ts_recent: TsRecent,
    /// A timeout during a fast recovery cuts ssthresh again (`cut`: RFC 5681, ns-3) or
    /// keeps the recovery's (`keep`: Linux).
    pub timeout_in_recovery: TimeoutInRecovery,
    /// The receiver acknowledges at once until it has sent this many ACKs (0: delayed
    /// ACKs from the first segment, RFC 5681 §4.2; ns-3: 1).
    pub quick_acks_at_start: u32,
    /// With the handshake, the sender answers the SYN-ACK with a pure ACK before its data
    /// (RFC 9293 §3.5, ns-3, Linux) instead of letting the first data segment carry it.
    pub handshake_ack: bool,
    /// What the receiver advertises (`free_space`; ns-3: `whole_buffer`).
    pub receive_window: ReceiveWindow,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1000,
            header_bytes: 40,
            timestamps: false,
            initial_cwnd_segments: 10.0,
            initial_ssthresh_segments: None,
            rtt: RttConfig::default(),
            rtt_sampling: RttSampling::EveryAck,
            dupack_threshold: 3,
            limited_transmit: true,
            delayed_ack: true,
            delayed_ack_count: 2,
            delayed_ack_timeout: 200_000_000,
            send_buffer_bytes: 1 << 20,
            recv_buffer_bytes: 1 << 20,
            ecn: false,
            ecn_echo: EcnEcho::PerPacket,
            frto: false,
            partial_ack_timer: PartialAckTimer::Impatient,
            sack: false,
            recovery: Recovery::Classic,
            loss_detection: LossDetection::Dupack,
            rearm_rto_on_head_retransmit: false,
            tail_loss_probe: false,
            backoff_reset: BackoffReset::RttSample,
            handshake: false,
            prr_recover_fs: RecoverFs::FlightSize,
            prr_dupack_credit: false,
            prr_extra_segment: PrrExtraSegment::EveryAck,
            timeout_count_reset: TimeoutCountReset::NewAck,
            recovery_exit_growth: false,
            reno_sack: false,
            loss_exit_credit: LossExitCredit::Delivered,
            cwnd_limited: CwndLimited::Assumed,
            ts_recent: TsRecent::Rfc7323,
            timeout_in_recovery: TimeoutInRecovery::Cut,
            quick_acks_at_start: 0,
            handshake_ack: false,
            receive_window: ReceiveWindow::FreeSpace,
        }
    }
}

impl TcpConfig {
    /// Header bytes of every segment and ACK (IP + TCP + timestamps option).
    pub fn packet_overhead(&self) -> u32 {
        self.header_bytes + if self.timestamps { 12 } else { 0 }
    }

    /// Bytes of a SYN or SYN-ACK: the header, the timestamps option if on, the MSS option
    /// (4 bytes) and SACK-permitted padded to 4 bytes if SACK is on (RFC 793, RFC 2018 §2).
    pub fn syn_size(&self) -> u32 {
        self.packet_overhead() + 4 + if self.sack { 4 } else { 0 }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct OnOffCfg {
    pub on: Time,
    pub off: Time,
    pub exponential: bool,
}

#[derive(Clone, Debug)]
pub struct TcpFlowCfg {
    pub cc: CcConfig,
    /// `cc = "kernel:NAME"`: the kernel's congestion control NAME, which only the linux
    /// engine runs (a module or a BPF struct_ops program it lists). `cc` is then the
    /// algorithm the flow's TCP options are checked with (`reno`, no parameters); the wtcp
    /// engine refuses such a flow ([`Scenario::refuse_kernel_algorithms`]).
    pub kernel_cc: Option<KernelCc>,
    pub tcp: TcpConfig,
    pub bytes: Option<u64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CbrFlowCfg {
    pub rate_bps: f64,
    pub packet_bytes: u32,
}

#[derive(Clone, Debug)]
pub enum FlowApp {
    Tcp(TcpFlowCfg),
    Cbr(CbrFlowCfg),
}

#[derive(Clone, Debug)]
pub struct FlowCfg {
    pub name: String,
    pub src: usize,
    pub dst: usize,
    pub start: Time,
    pub stop: Option<Time>,
    pub on_off: Option<OnOffCfg>,
    pub app: FlowApp,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RandomOutageCfg {
    pub mean_interval: f64,
    pub duration: Time,
    pub exponential: bool,
    pub from: Time,
}

/// Impairments of one link direction.
#[derive(Clone, Debug, Default)]
pub struct ImpairCfg {
    pub loss: Option<LossSpec>,
    pub applies_to: AppliesTo,
    /// (start, duration)
    pub outages: Vec<(Time, Time)>,
    pub random_outages: Option<RandomOutageCfg>,
    /// (start, duration, extra delay)
    pub delay_spikes: Vec<(Time, Time, Time)>,
    pub arq: Option<ArqCfg>,
    /// A trace-driven capacity (the link's rate otherwise).
    pub capacity: Option<Capacity>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct QueueCfg {
    pub limit_packets: Option<u32>,
    pub limit_bytes: Option<u64>,
    pub aqm: Aqm,
}

#[derive(Clone, Debug)]
pub struct LinkCfg {
    pub name: String,
    pub a: usize,
    pub b: usize,
    pub rate_bps: f64,
    pub delay: Time,
    pub link_header_bytes: u32,
    pub queue: QueueCfg,
    /// [a -> b, b -> a]
    pub dirs: [ImpairCfg; 2],
}

/// One 802.11 channel: its configuration and its stations (node index, position).
#[derive(Clone, Debug)]
pub struct WifiCfg {
    pub name: String,
    pub config: WifiConfig,
    pub stations: Vec<(usize, f64, f64)>,
    /// How each station moves, in the order of `stations`.
    pub motions: Vec<Motion>,
    /// Each station's interface queue, in the order of `stations`.
    pub queues: Vec<QueueCfg>,
    /// Delay of the hint from the sender's own station's MAC to the sender.
    pub hint_delay: Time,
    pub mac_hint: MacHint,
    /// Delay of a relayed hint (`MacHint::Relay`, from a station not hosting the sender).
    pub relay_delay: Time,
}

/// A checked scenario, ready to run.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    /// Whose defaults filled what the document left out (`profile.rs`).
    pub profile: &'static str,
    /// The document after overrides: what was actually run.
    pub document: Value,
    pub duration: Time,
    pub seed: u64,
    pub replication: u64,
    pub measure_from: Time,
    pub measure_to: Time,
    pub nodes: Vec<String>,
    pub links: Vec<LinkCfg>,
    pub wifi: Vec<WifiCfg>,
    pub flows: Vec<FlowCfg>,
    /// Shared by every run of the scenario (read-only).
    pub routes: Arc<RouteTable>,
    /// Trace sampling interval, when tracing is on.
    pub trace_interval: Option<Time>,
    /// Flow indices entering Jain's fairness index.
    pub fairness_flows: Vec<usize>,
    /// `metrics.delays`: record the delay histograms.
    pub delay_metrics: bool,
}

impl Scenario {
    /// A flow runs an algorithm registered at run time (`wtcp_cc::user`): its hooks call
    /// back into the code that registered it.
    pub fn uses_user_algorithms(&self) -> bool {
        self.flows.iter().any(|f| matches!(&f.app, FlowApp::Tcp(t) if matches!(t.cc, CcConfig::User(_))))
    }

    /// The wtcp engine's refusal of a flow that names a kernel algorithm (`kernel:NAME`):
    /// the first such flow's field, or `Ok` when there is none.
    pub fn refuse_kernel_algorithms(&self) -> Result<(), ScenarioError> {
        for f in &self.flows {
            if let FlowApp::Tcp(TcpFlowCfg { kernel_cc: Some(k), .. }) = &f.app {
                return Err(ScenarioError::new(k.field.clone(), format!("is `{KERNEL_CC_PREFIX}{}`, the kernel's own algorithm: only the linux engine runs it (--engine linux); allowed here: one of wtcp's algorithms (wtcp algorithms)", k.name)));
            }
        }
        Ok(())
    }

    /// Parse TOML text and apply `--set` style overrides (`path`, `value text`).
    pub fn from_toml_str(text: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
        Self::from_toml_str_with(text, overrides, TraceStore::Memory)
    }

    /// [`Scenario::from_toml_str`], its traces (if on) budgeted as `traces` says.
    pub fn from_toml_str_with(text: &str, overrides: &[(String, String)], traces: TraceStore) -> Result<Scenario, ScenarioError> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            ScenarioError::new("", format!("TOML syntax error: {}", e.to_string().trim_end()))
        })?;
        Self::from_value_with(Value::Table(table), overrides, traces)
    }

    /// Parse a JSON document (how Python dictionaries arrive) and apply overrides.
    pub fn from_json_str(text: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
        Self::from_json_str_with(text, overrides, TraceStore::Memory)
    }

    /// [`Scenario::from_json_str`], its traces (if on) budgeted as `traces` says.
    pub fn from_json_str_with(text: &str, overrides: &[(String, String)], traces: TraceStore) -> Result<Scenario, ScenarioError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| ScenarioError::new("", format!("invalid scenario document: {e} (null values are not allowed)")))?;
        Self::from_value_with(value, overrides, traces)
    }

    pub fn from_value(doc: Value, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
        Self::from_value_with(doc, overrides, TraceStore::Memory)
    }

    /// [`Scenario::from_value`], its traces (if on) budgeted as `traces` says: held in
    /// memory, or streamed to files ([`crate::sim::run_streamed`]) against the disk budget.
    pub fn from_value_with(mut doc: Value, overrides: &[(String, String)], traces: TraceStore) -> Result<Scenario, ScenarioError> {
        if !doc.is_table() {
            return Err(ScenarioError::new("", "a scenario must be a table of sections ([run], [[nodes]], ...)"));
        }
        for (path, text) in overrides {
            apply_override(&mut doc, path, parse_value(text))?;
        }
        if doc.get("scenario").is_some() && doc.get("nodes").is_none() {
            return Err(ScenarioError::new(
                "scenario",
                "is a key of a sweep file, not of a scenario: this looks like a sweep (it names its scenario); run it with `wtcp sweep FILE` (a scenario has [run], [[nodes]], [[links]] and [[flows]])",
            ));
        }
        let profile = super::profile::apply(&mut doc)?;
        let file: ScenarioFile = serde_path_to_error::deserialize(doc.clone()).map_err(|e| {
            let mut path = dotted(e.path());
            let mut msg = first_line(&e.into_inner().to_string());
            if msg == UNIT_VARIANT {
                msg = names_expected(&doc, &path, |probe| {
                    serde_path_to_error::deserialize::<_, ScenarioFile>(probe).err().map(|e| (dotted(e.path()), e.into_inner().to_string()))
                });
            }
            if let Some(advice) = unit_advice(&path, &msg) {
                msg = advice;
            }
            // A missing field is reported at the field, not at the table that lacks it.
            if let Some(field) = msg.strip_prefix("missing field `").and_then(|r| r.split('`').next()) {
                path = if path.is_empty() { field.to_string() } else { format!("{path}.{field}") };
            }
            ScenarioError::new(path, msg)
        })?;
        resolve(file, doc, traces, profile.name)
    }
}

/// serde_path_to_error's path in the `--set` notation (`links.1.ab.loss`).
fn dotted(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let parts: Vec<String> = path
        .iter()
        .filter_map(|s| match s {
            Segment::Seq { index } => Some(index.to_string()),
            Segment::Map { key } => Some(key.clone()),
            Segment::Enum { variant } => Some(variant.clone()),
            Segment::Unknown => None,
        })
        .collect();
    parts.join(".")
}

/// Units a number may be written with, by dimension, with their factor to the base unit.
const UNITS: &[(&str, &str, f64)] = &[
    ("s", "time", 1.0),
    ("sec", "time", 1.0),
    ("ms", "time", 1e-3),
    ("us", "time", 1e-6),
    ("bps", "rate", 1.0),
    ("b/s", "rate", 1.0),
    ("kbps", "rate", 1e3),
    ("kb/s", "rate", 1e3),
    ("mbps", "rate", 1e6),
    ("mb/s", "rate", 1e6),
    ("gbps", "rate", 1e9),
    ("gb/s", "rate", 1e9),
    ("b", "size", 1.0),
    ("bytes", "size", 1.0),
    ("kb", "size", 1e3),
    ("kib", "size", 1024.0),
    ("mb", "size", 1e6),
    ("mib", "size", 1_048_576.0),
];

/// The unit a field's name carries (`duration_s`, `rate_mbps`, `limit_bytes`).
fn field_unit(key: &str) -> Option<(&'static str, &'static str, f64)> {
    [("_s", "seconds", "time", 1.0), ("_ms", "milliseconds", "time", 1e-3), ("_mbps", "Mb/s", "rate", 1e6), ("_kbps", "kb/s", "rate", 1e3), ("_bytes", "bytes", "size", 1.0)]
        .iter()
        .find(|(suffix, ..)| key.ends_with(suffix))
        .map(|&(_, name, dim, f)| (name, dim, f))
}

/// A number written with a unit where a plain number belongs (`"1%"`, `"2Mbps"`, `"20s"`):
/// the message says what unit the field takes and what number was meant.
fn unit_advice(path: &str, msg: &str) -> Option<String> {
    let given = msg.strip_prefix("invalid type: string \"")?.split('"').next()?.trim();
    let digits = given.trim_start_matches(['-', '+']);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
        if given.replace('_', "").parse::<i64>().is_ok() {
            return Some(format!("is \"{given}\", text; allowed: a number (written without quotes)"));
        }
        // An integer TOML cannot hold (`--set` then passes the text on as a string).
        let shown = if given.len() > 24 { format!("{}... ({} digits)", &given[..20], digits.len()) } else { given.to_string() };
        return Some(format!("is {shown}, a whole number beyond the 64 bits a number here can hold; allowed: a smaller number"));
    }
    let split = given.find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+')))?;
    let (number, unit) = given.split_at(split);
    let v: f64 = number.parse().ok()?;
    let unit = unit.trim().to_ascii_lowercase();
    if unit == "%" {
        return Some(format!("is \"{given}\", text; allowed: a number: a probability is written from 0 to 1 ({} % is {})", fmt_num(v), fmt_num(v / 100.0)));
    }
    let key = path.rsplit('.').next().unwrap_or(path);
    let (name, dim, factor) = field_unit(key)?;
    let meant = UNITS.iter().find(|(u, d, _)| *u == unit && *d == dim).map(|&(_, _, f)| v * f / factor);
    Some(match meant {
        Some(m) => format!("is \"{given}\", text; allowed: a number in {name} (the unit is in the field's name): {}", fmt_num(m)),
        None => format!("is \"{given}\", text; allowed: a number in {name} (the unit is in the field's name)"),
    })
}

/// What serde says of a number or a list given where a name (an enum variant) belongs.
const UNIT_VARIANT: &str = "invalid type: unit variant, expected string only";

/// A clearer message for [`UNIT_VARIANT`] at `path`: the names the field takes, found by
/// putting a name that no field has there and reading the deserialiser's "expected" list.
fn names_expected(doc: &Value, path: &str, deserialize: impl Fn(Value) -> Option<(String, String)>) -> String {
    let mut probe = doc.clone();
    let expected = apply_override(&mut probe, path, Value::String("\u{1}".into()))
        .ok()
        .and_then(|()| deserialize(probe))
        .filter(|(p, _)| p == path)
        .and_then(|(_, m)| m.split_once("expected ").map(|(_, e)| first_line(e)));
    match expected {
        Some(names) => format!("invalid type: not a name; allowed: {names}"),
        None => "invalid type: not a name; allowed: one of the names of this field".to_string(),
    }
}

/// The deserialiser's own message without its trailing "in `key`" line (the path is
/// reported separately, with array indices).
fn first_line(msg: &str) -> String {
    msg.lines().next().unwrap_or("").trim_end().to_string()
}

type R<T> = Result<T, ScenarioError>;

fn err<T>(path: impl Into<String>, msg: impl Into<String>) -> R<T> {
    Err(ScenarioError::new(path, msg))
}

/// A time in seconds: finite, >= 0 (or > 0 when `positive`), at most 10^7 s.
fn time_s(path: &str, v: f64, positive: bool) -> R<Time> {
    let ok = v.is_finite() && v <= 1e7 && if positive { v > 0.0 } else { v >= 0.0 };
    if !ok {
        let allowed = if positive { "a number of seconds > 0 and <= 1e7" } else { "a number of seconds >= 0 and <= 1e7" };
        return err(path, format!("is {}; allowed: {allowed}", fmt_num(v)));
    }
    // The engine's clock ticks in nanoseconds: a positive time that rounds to 0 would make
    // a timer fire at the same instant forever.
    let t = secs(v);
    if positive && t == 0 {
        return err(path, format!("is {v} s, which rounds to 0 ns; allowed: at least 1e-9 s"));
    }
    Ok(t)
}

fn probability(path: &str, v: f64) -> R<f64> {
    if !(0.0..=1.0).contains(&v) || v.is_nan() {
        // A percentage where a probability belongs: say which number was meant.
        let percent = if v > 1.0 && v <= 100.0 { format!(" ({} % is {})", fmt_num(v), fmt_num(v / 100.0)) } else { String::new() };
        return err(path, format!("is {}; a probability must lie in [0, 1]{percent}", fmt_num(v)));
    }
    Ok(v)
}

fn positive(path: &str, v: f64, what: &str) -> R<f64> {
    if !(v.is_finite() && v > 0.0) {
        return err(path, format!("is {}; allowed: {what} > 0", fmt_num(v)));
    }
    Ok(v)
}

/// The algorithm of a TCP flow that names none.
pub const DEFAULT_CC: &str = "newreno";

/// Most copies one `[[flows]]` entry may ask for (`count`).
const MAX_FLOW_COPIES: u32 = 10_000;

fn resolve(f: ScenarioFile, document: Value, traces: TraceStore, profile: &'static str) -> R<Scenario> {
    let limits = budget::Limits::from_env()?;
    let duration = time_s("run.duration_s", f.run.duration_s, true)?;
    let measure_from = time_s("run.measure_from_s", f.run.measure_from_s, false)?;
    if measure_from >= duration {
        return err("run.measure_from_s", format!("is {} s; it must be before the end of the run ({} s)", f.run.measure_from_s, f.run.duration_s));
    }
    let measure_to = match f.run.measure_to_s {
        None => duration,
        Some(v) => {
            let t = time_s("run.measure_to_s", v, true)?;
            if t <= measure_from || t > duration {
                return err("run.measure_to_s", format!("is {v} s; allowed: after run.measure_from_s and at most run.duration_s"));
            }
            t
        }
    };

    // Nodes.
    if f.nodes.len() < 2 {
        return err("nodes", "needs at least two nodes");
    }
    let mut nodes: Vec<String> = Vec::with_capacity(f.nodes.len());
    let mut node_index: HashMap<&str, usize> = HashMap::with_capacity(f.nodes.len());
    for (i, n) in f.nodes.iter().enumerate() {
        if n.name.trim().is_empty() {
            return err(format!("nodes.{i}.name"), "must not be empty");
        }
        if node_index.insert(n.name.as_str(), i).is_some() {
            return err(format!("nodes.{i}.name"), format!("`{}` is defined twice; node names must be unique", n.name));
        }
        nodes.push(n.name.clone());
    }
    let node = |path: String, name: &str| -> R<usize> {
        node_index.get(name).copied().ok_or_else(|| {
            // A long list is cut: the message names the first nodes only.
            let mut known: Vec<&str> = nodes.iter().take(20).map(String::as_str).collect();
            if nodes.len() > known.len() {
                known.push("...");
            }
            ScenarioError::new(path, format!("unknown node `{name}`; defined nodes: {}", known.join(", ")))
        })
    };

    // Links.
    if f.links.is_empty() && f.wifi.is_empty() {
        return err("links", "needs at least one link (or a [[wifi]] channel)");
    }
    let mut links: Vec<LinkCfg> = Vec::with_capacity(f.links.len());
    let mut link_names: HashSet<String> = HashSet::with_capacity(f.links.len());
    for (i, l) in f.links.iter().enumerate() {
        let p = format!("links.{i}");
        let a = node(format!("{p}.a"), &l.a)?;
        let b = node(format!("{p}.b"), &l.b)?;
        if a == b {
            return err(format!("{p}.b"), format!("a link must join two different nodes (both ends are `{}`)", l.a));
        }
        let name = l.name.clone().unwrap_or_else(|| format!("{}-{}", l.a, l.b));
        if !link_names.insert(name.clone()) {
            return err(format!("{p}.name"), format!("link name `{name}` is used twice; give the links distinct names"));
        }
        let rate_mbps = positive(&format!("{p}.rate_mbps"), l.rate_mbps, "a rate in Mb/s")?;
        // A packet's transmission time must fit the nanosecond clock (below 1 kb/s a 64 kB
        // frame would take minutes; below ~1e-12 Mb/s the time overflows).
        if !(1e-3..=1e6).contains(&rate_mbps) {
            return err(format!("{p}.rate_mbps"), format!("is {rate_mbps}; allowed: 0.001 (1 kb/s) to 1e6 (1 Tb/s)"));
        }
        let delay = time_s(&format!("{p}.delay_ms"), l.delay_ms / 1e3, false)
            .map_err(|_| ScenarioError::new(format!("{p}.delay_ms"), format!("is {}; allowed: milliseconds >= 0", l.delay_ms)))?;
        if l.link_header_bytes > 65_535 {
            return err(format!("{p}.link_header_bytes"), format!("is {}; allowed: 0..=65535 bytes", l.link_header_bytes));
        }
        let queue = resolve_queue(&format!("{p}.queue"), &l.queue, DEFAULT_LINK_QUEUE_PACKETS, None)?;
        let dirs = [
            resolve_impair(&format!("{p}.ab"), &l.ab, f.run.seed, f.run.replication)?,
            resolve_impair(&format!("{p}.ba"), &l.ba, f.run.seed, f.run.replication)?,
        ];
        links.push(LinkCfg { name, a, b, rate_bps: rate_mbps * 1e6, delay, link_header_bytes: l.link_header_bytes, queue, dirs });
    }
    let mut wifi = Vec::with_capacity(f.wifi.len());
    for (i, w) in f.wifi.iter().enumerate() {
        wifi.push(resolve_wifi(&format!("wifi.{i}"), i, w, &node)?);
    }
    // Links first, then every pair of stations in transmission range of each other.
    let link_edges = links.iter().enumerate().map(|(i, l)| (l.a, l.b, Hop::Link((2 * i) as u32), Hop::Link((2 * i + 1) as u32)));
    // The station pairs are checked before they are listed (stations^2 of them).
    budget::Estimate { items: wifi.iter().enumerate().map(|(c, w)| budget::wifi_item(c, w.stations.len())).collect(), ..Default::default() }.check(&limits)?;
    let mut wifi_edges = Vec::new();
    for (c, w) in wifi.iter().enumerate() {
        for (i, &(a, ax, ay)) in w.stations.iter().enumerate() {
            for (j, &(b, bx, by)) in w.stations.iter().enumerate().skip(i + 1) {
                // Routes are fixed at time 0; under the radio model, from the mean power
                // (without shadowing and fading).
                let range = w.config.radio.map_or(w.config.tx_range, |r| r.cca_range_m());
                if (ax - bx).hypot(ay - by) <= range {
                    let (c, i, j) = (c as u32, i as u32, j as u32);
                    wifi_edges.push((a, b, Hop::Wifi { channel: c, from: i, to: j }, Hop::Wifi { channel: c, from: j, to: i }));
                }
            }
        }
    }
    // Flows: their end points first, which the route table is built towards.
    if f.flows.is_empty() {
        return err("flows", "needs at least one flow");
    }
    let mut ends: Vec<(usize, usize)> = Vec::with_capacity(f.flows.len());
    for (i, fl) in f.flows.iter().enumerate() {
        let p = format!("flows.{i}");
        let src = node(format!("{p}.src"), &fl.src)?;
        let dst = node(format!("{p}.dst"), &fl.dst)?;
        if src == dst {
            return err(format!("{p}.dst"), format!("a flow needs two different end nodes (both are `{}`)", fl.src));
        }
        ends.push((src, dst));
    }
    let dests: Vec<usize> = ends.iter().flat_map(|&(a, b)| [a, b]).collect();
    let mut distinct = vec![false; nodes.len()];
    let k = dests.iter().filter(|&&d| !std::mem::replace(&mut distinct[d], true)).count();
    // The table is checked before it is built (transit nodes x destinations entries).
    let topology = Topology::new(nodes.len(), link_edges.chain(wifi_edges));
    budget::Estimate { items: vec![budget::nodes_item(nodes.len()), budget::route_item(nodes.len(), topology.transit_nodes(), topology.edge_ends(), k)], ..Default::default() }
        .check(&limits)?;
    let routes = Arc::new(RouteTable::shortest_paths(&topology, &dests));
    drop(topology);

    let mut flows: Vec<FlowCfg> = Vec::with_capacity(f.flows.len());
    let mut flow_names: HashSet<String> = HashSet::with_capacity(f.flows.len());
    // The `[[flows]]` entry each resolved flow came from (its copies share it).
    let mut entry_of: Vec<usize> = Vec::with_capacity(f.flows.len());
    for (i, fl) in f.flows.iter().enumerate() {
        let p = format!("flows.{i}");
        if fl.count > MAX_FLOW_COPIES {
            return err(format!("{p}.count"), format!("is {}; allowed: 0..={MAX_FLOW_COPIES}", fl.count));
        }
        let stagger = time_s(&format!("{p}.start_stagger_s"), fl.start_stagger_s, false)?;
        let base = fl.name.clone().unwrap_or_else(|| format!("flow{i}"));
        let (src, dst) = ends[i];
        for (from, to) in [(src, dst), (dst, src)] {
            if routes.next_hop(from, to).is_none() {
                return err(p.clone(), format!("no route from `{}` to `{}`; connect them with links", nodes[from], nodes[to]));
            }
        }
        let start0 = time_s(&format!("{p}.start_s"), fl.start_s, false)?;
        let stop = match fl.stop_s {
            None => None,
            Some(v) => Some(time_s(&format!("{p}.stop_s"), v, true)?),
        };
        let on_off = match &fl.on_off {
            None => None,
            Some(o) => Some(OnOffCfg {
                on: time_s(&format!("{p}.on_off.on_s"), o.on_s, true)?,
                off: time_s(&format!("{p}.on_off.off_s"), o.off_s, true)?,
                exponential: o.exponential,
            }),
        };
        // The application is the same for every copy: checked once per entry (an entry with
        // count = 0 runs no flow but is still checked: a mistake in it is a mistake in the file).
        let app = match fl.kind {
            FlowKind::Tcp => {
                for (set, field) in [(fl.rate_mbps.is_some(), "rate_mbps"), (fl.packet_bytes.is_some(), "packet_bytes")] {
                    if set {
                        return err(format!("{p}.{field}"), "is a CBR option; not allowed on a TCP flow (kind = \"tcp\")");
                    }
                }
                FlowApp::Tcp(resolve_tcp_flow(&p, fl, &f.tcp)?)
            }
            FlowKind::Cbr => {
                for (set, field) in [(fl.cc.is_some(), "cc"), (fl.cc_params.is_some(), "cc_params"), (fl.bytes.is_some(), "bytes"), (fl.tcp.is_some(), "tcp")] {
                    if set {
                        return err(format!("{p}.{field}"), "is a TCP option; not allowed on a CBR flow (kind = \"cbr\")");
                    }
                }
                let rate = fl.rate_mbps.ok_or_else(|| ScenarioError::new(format!("{p}.rate_mbps"), "is required for a CBR flow"))?;
                // Rate 0 is a sweep's "no traffic" point, allowed with count = 0 only.
                let rate = if fl.count == 0 && rate == 0.0 { 0.0 } else { positive(&format!("{p}.rate_mbps"), rate, "a rate in Mb/s (0 only with count = 0)")? };
                // A packet interval must fit the nanosecond clock: at 1 b/s the largest UDP
                // packet leaves every 6 days.
                if rate > 1e5 || (rate > 0.0 && rate < 1e-6) {
                    return err(format!("{p}.rate_mbps"), format!("is {}; allowed: 1e-6 (1 b/s) to 1e5 Mb/s", fmt_num(rate)));
                }
                let packet_bytes = fl.packet_bytes.unwrap_or(1000);
                if packet_bytes == 0 || packet_bytes > 65_507 {
                    return err(format!("{p}.packet_bytes"), format!("is {packet_bytes}; allowed: 1..=65507 (UDP payload)"));
                }
                FlowApp::Cbr(CbrFlowCfg { rate_bps: rate * 1e6, packet_bytes })
            }
        };
        for copy in 0..fl.count.max(1) {
            let name = if fl.count == 1 { base.clone() } else { format!("{base}-{}", copy + 1) };
            if flow_names.contains(&name) {
                return err(format!("{p}.name"), format!("flow name `{name}` is used twice; give the flows distinct names"));
            }
            let start = start0 + u64::from(copy) * stagger;
            if start >= duration {
                let what = if copy == 0 { format!("is {} s", fl.start_s) } else { format!("with start_stagger_s, copy {} starts at {} s", copy + 1, start as f64 / 1e9) };
                return err(format!("{p}.start_s"), format!("{what}; a flow must start before the end of the run ({} s)", f.run.duration_s));
            }
            if let (Some(t), Some(v)) = (stop, fl.stop_s) {
                if t <= start {
                    let starts = if copy == 0 { format!("start_s ({} s)", fl.start_s) } else { format!("the start of copy {} ({} s, start_stagger_s apart)", copy + 1, start as f64 / 1e9) };
                    return err(format!("{p}.stop_s"), format!("is {v} s; it must be after {starts}"));
                }
            }
            if copy < fl.count {
                flow_names.insert(name.clone());
                flows.push(FlowCfg { name, src, dst, start, stop, on_off: on_off.clone(), app: app.clone() });
                entry_of.push(i);
            }
        }
    }
    if flows.is_empty() {
        return err("flows", "every flow has count = 0; at least one flow must run");
    }

    // A name selects the flow of that name, or every copy of a `[[flows]]` entry with `count`.
    let fairness_flows = match &f.metrics.fairness_flows {
        None => flows.iter().enumerate().filter(|(_, fl)| matches!(fl.app, FlowApp::Tcp(_))).map(|(i, _)| i).collect(),
        Some(names) => {
            let by_name: HashMap<&str, usize> = flows.iter().enumerate().map(|(k, fl)| (fl.name.as_str(), k)).collect();
            let bases: Vec<String> = f.flows.iter().enumerate().map(|(e, fl)| fl.name.clone().unwrap_or_else(|| format!("flow{e}"))).collect();
            let mut by_entry: HashMap<&str, Vec<usize>> = HashMap::new();
            for (k, &e) in entry_of.iter().enumerate() {
                by_entry.entry(bases[e].as_str()).or_default().push(k);
            }
            let mut out: Vec<usize> = Vec::new();
            let mut taken = vec![false; flows.len()];
            for (i, n) in names.iter().enumerate() {
                let selected: Vec<usize> = match by_name.get(n.as_str()) {
                    Some(&idx) => vec![idx],
                    None => by_entry.get(n.as_str()).cloned().unwrap_or_default(),
                };
                if selected.is_empty() {
                    let mut known: Vec<&str> = flows.iter().take(20).map(|fl| fl.name.as_str()).collect();
                    if flows.len() > known.len() {
                        known.push("...");
                    }
                    return err(
                        format!("metrics.fairness_flows.{i}"),
                        format!("unknown flow `{n}`; allowed: a flow name ({}) or the name of a [[flows]] entry, which selects all its copies", known.join(", ")),
                    );
                }
                for idx in selected {
                    if !std::mem::replace(&mut taken[idx], true) {
                        out.push(idx);
                    }
                }
            }
            out
        }
    };

    // Checked with tracing off too: a sweep may turn it on (`--trace`, `trace=True`).
    let iv = positive("trace.interval_ms", f.trace.interval_ms, "milliseconds")?;
    let trace_interval = f.trace.enabled.then(|| secs(iv / 1e3).max(1));

    let sc = Scenario {
        name: f.name.clone().unwrap_or_else(|| "scenario".to_string()),
        profile,
        document,
        duration,
        seed: f.run.seed,
        replication: f.run.replication,
        measure_from,
        measure_to,
        nodes,
        links,
        wifi,
        flows,
        routes,
        trace_interval,
        fairness_flows,
        delay_metrics: f.metrics.delays,
    };
    // What the run will need, before it starts.
    budget::estimate(&sc, &entry_of, traces).check(&limits)?;
    Ok(sc)
}

/// `[[wifi]] aggregation` of an 802.11n or 802.11ac (`vht`) channel: on by default.
fn resolve_aggregation(p: &str, a: Option<&AggregationSpec>, vht: bool) -> R<Option<Aggregation>> {
    let limits = match a {
        None | Some(AggregationSpec::Switch(true)) => AmpduLimits::default(),
        Some(AggregationSpec::Switch(false)) => return Ok(None),
        Some(AggregationSpec::Limits(l)) => l.clone(),
    };
    let default = Aggregation::default();
    let max_bytes = limits.ampdu_max_bytes.unwrap_or(default.max_bytes);
    // 802.11-2012 8.4.2.58.3: an HT station receives A-MPDUs of up to 2^(13 + e) - 1
    // octets, e = 0..=3; a VHT station up to 2^(13 + e) - 1, e = 0..=7 (802.11-2016
    // 9.4.2.158.2). A sender may keep below that. (An MPDU longer than the limit still
    // goes, alone.)
    let (longest, standard) = if vht { (1_048_575, "802.11ac") } else { (65_535, "802.11n") };
    if !(1..=longest).contains(&max_bytes) {
        return err(format!("{p}.aggregation.ampdu_max_bytes"), format!("is {max_bytes}; allowed: 1..={longest} octets ({longest}: {standard}'s longest A-MPDU)"));
    }
    let max_frames = limits.ampdu_max_frames.unwrap_or(default.max_frames);
    if !(1..=64).contains(&max_frames) {
        return err(format!("{p}.aggregation.ampdu_max_frames"), format!("is {max_frames}; allowed: 1..=64 MPDUs (the compressed Block Ack's window)"));
    }
    Ok(Some(Aggregation { max_bytes, max_frames }))
}

fn resolve_wifi(p: &str, index: usize, w: &WifiSpec, node: &dyn Fn(String, &str) -> R<usize>) -> R<WifiCfg> {
    let name = w.name.clone().unwrap_or_else(|| format!("wifi{index}"));
    let (phy, data_default, basic_default) = match w.phy {
        WifiPhy::B => (PhyParams::B, 11.0, 1.0),
        WifiPhy::G => (PhyParams::G, 54.0, 24.0),
        WifiPhy::A => (PhyParams::A, 54.0, 24.0),
        WifiPhy::N | WifiPhy::Ac => (PhyParams::N, 0.0, 0.0),
    };
    let rate = |field: &str, v: Option<f64>, default: f64| -> R<u32> {
        let mbps = v.unwrap_or(default);
        let kbps = (mbps * 1000.0).round();
        if !(kbps > 0.0 && kbps < 1e7) || !phy.supports(kbps as u32) {
            return err(format!("{p}.{field}"), format!("is {mbps}; not a rate of 802.11{} (b: 1, 2, 5.5, 11; a and g: 6, 9, 12, 18, 24, 36, 48, 54)", match w.phy { WifiPhy::B => "b", WifiPhy::G => "g", WifiPhy::A => "a", WifiPhy::N => "n", WifiPhy::Ac => "ac" }));
        }
        Ok(kbps as u32)
    };
    let mut config = if matches!(w.phy, WifiPhy::N | WifiPhy::Ac) {
        let ac = w.phy == WifiPhy::Ac;
        let standard = if ac { "802.11ac" } else { "802.11n" };
        for (field, set) in [("data_rate_mbps", w.data_rate_mbps.is_some()), ("basic_rate_mbps", w.basic_rate_mbps.is_some())] {
            if set {
                return err(format!("{p}.{field}"), format!("is not an {standard} setting (its data rate is `mcs` with `channel_width_mhz` and `short_gi`; its ACKs go at 802.11's control response rate); allowed: leave it out"));
            }
        }
        if !ac && w.spatial_streams.is_some() {
            return err(format!("{p}.spatial_streams"), "is not an 802.11n setting (its MCS 8-15 are MCS 0-7 on two streams); allowed with phy = \"ac\" only");
        }
        let adaptive = w.rate_control.is_some_and(|r| r != RateControl::Constant);
        if adaptive && w.mcs.is_some() {
            let name = w.rate_control.unwrap_or_default().name();
            return err(format!("{p}.mcs"), format!("is set, but rate_control = \"{name}\" chooses the MCS of every frame; allowed: leave it out (or rate_control = \"constant\")"));
        }
        // Under rate control the channel's own mode (its width, guard interval and streams)
        // starts at MCS 0, where the rate control starts.
        let mcs = w.mcs.unwrap_or(if adaptive { 0 } else { 7 });
        let width = w.channel_width_mhz.unwrap_or(20);
        let short_gi = w.short_gi.unwrap_or(false);
        let mode = if ac { HtMode::vht(mcs, width, w.spatial_streams.unwrap_or(1), short_gi) } else { HtMode::new(mcs, width, short_gi) };
        let mode = mode.map_err(|e| {
            let field = if e.starts_with("MCS") { "mcs" } else if e.contains("streams") { "spatial_streams" } else { "channel_width_mhz" };
            ScenarioError::new(format!("{p}.{field}"), format!("is {e}"))
        })?;
        WifiConfig { aggregation: resolve_aggregation(p, w.aggregation.as_ref(), ac)?, rate_control: w.rate_control.unwrap_or_default(), ..WifiConfig::n(mode) }
    } else {
        for (field, set) in [("rate_control", w.rate_control.is_some()), ("mcs", w.mcs.is_some()), ("channel_width_mhz", w.channel_width_mhz.is_some()), ("short_gi", w.short_gi.is_some()), ("aggregation", w.aggregation.is_some()), ("spatial_streams", w.spatial_streams.is_some())] {
            if set {
                return err(format!("{p}.{field}"), "is an 802.11n/ac setting; allowed with phy = \"n\" or \"ac\" only (b, g and a take `data_rate_mbps`)");
            }
        }
        let mut config = WifiConfig { phy, ..WifiConfig::b11() };
        config.data_kbps = rate("data_rate_mbps", w.data_rate_mbps, data_default)?;
        config.basic_kbps = rate("basic_rate_mbps", w.basic_rate_mbps, basic_default)?;
        config
    };
    config.eifs = w.eifs.unwrap_or_default();
    config.short_gi_txtime = w.short_gi_txtime.unwrap_or_default();
    config.vht_sig_b = w.vht_sig_b.unwrap_or_default();
    config.backoff_rule = w.backoff_rule.unwrap_or(config.backoff_rule);
    config.eifs_trigger = w.eifs_trigger.unwrap_or(config.eifs_trigger);
    config.ack_timeout = w.ack_timeout.unwrap_or(config.ack_timeout);
    config.rts_threshold = w.rts_threshold_bytes;
    config.short_retry_limit = w.short_retry_limit.unwrap_or(config.short_retry_limit);
    config.long_retry_limit = w.long_retry_limit.unwrap_or(config.long_retry_limit);
    for (field, v) in [("short_retry_limit", config.short_retry_limit), ("long_retry_limit", config.long_retry_limit)] {
        // Transmission attempts per MSDU (802.11-2012 9.3.4.4; the MIB allows 1..=255).
        if !(1..=1000).contains(&v) {
            return err(format!("{p}.{field}"), format!("is {v}; allowed: 1..=1000 (transmission attempts per frame)"));
        }
    }
    if w.queue_packets == Some(0) {
        return err(format!("{p}.queue_packets"), "is 0; allowed: >= 1");
    }
    let stated = |q: &QueueSpec| q.limit_packets.is_some() || q.limit_bytes.is_some();
    let queue = match &w.queue {
        Some(q) if stated(q) && w.queue_packets.is_some() => {
            return err(format!("{p}.queue_packets"), "and queue.limit_packets/limit_bytes both give the interface queue's limit; give one");
        }
        Some(q) => resolve_queue(&format!("{p}.queue"), q, DEFAULT_WIFI_QUEUE_PACKETS, w.queue_packets.map(|n| (Some(n), None)))?,
        None => QueueCfg { limit_packets: Some(w.queue_packets.unwrap_or(DEFAULT_WIFI_QUEUE_PACKETS)), limit_bytes: None, aqm: Aqm::DropTail },
    };
    // The DropTail limit of a channel used on its own (the engine gives each station `queues`).
    config.queue_limit = queue.limit_packets.unwrap_or(DEFAULT_WIFI_QUEUE_PACKETS) as usize;
    // What a station's own queue table inherits when it states no limit: the channel's
    // stated limit, if any.
    let channel_limit = (w.queue.as_ref().is_some_and(stated) || w.queue_packets.is_some()).then_some((queue.limit_packets, queue.limit_bytes));
    config.cw_after_give_up = w.cw_after_give_up.unwrap_or_default();
    config.retry_count = w.retry_count.unwrap_or_default();
    config.arrival_backoff = w.arrival_backoff.unwrap_or_default();
    config.after_timeout = w.after_timeout.unwrap_or_default();
    config.llc_snap_bytes = w.llc_snap_bytes.unwrap_or(0);
    if config.llc_snap_bytes > 64 {
        return err(format!("{p}.llc_snap_bytes"), format!("is {}; allowed: 0..=64 bytes (8: an LLC/SNAP header, RFC 1042)", config.llc_snap_bytes));
    }
    config.ber = probability(&format!("{p}.ber"), w.ber.unwrap_or(0.0))?;
    config.radio = resolve_channel(p, w)?;
    if config.rate_control == RateControl::Ideal && config.radio.is_none() {
        return err(format!("{p}.rate_control"), "is \"ideal\", which chooses by the SNR; the range model has none; allowed: with channel = { model = \"log_distance\" }, or \"constant\"");
    }
    config.tx_range = positive(&format!("{p}.tx_range_m"), w.tx_range_m.unwrap_or(250.0), "a distance")?;
    config.cs_range = positive(&format!("{p}.cs_range_m"), w.cs_range_m.unwrap_or(550.0), "a distance")?;
    if config.cs_range < config.tx_range {
        return err(format!("{p}.cs_range_m"), "is below tx_range_m; the carrier-sense range must cover the transmission range");
    }
    let hint_delay = time_s(&format!("{p}.hint_delay_ms"), w.hint_delay_ms / 1e3, false)
        .map_err(|_| ScenarioError::new(format!("{p}.hint_delay_ms"), format!("is {}; allowed: milliseconds >= 0", w.hint_delay_ms)))?;
    let mac_hint = w.mac_hint.unwrap_or_default();
    let relay_delay = match (mac_hint, w.mac_hint_relay_delay_ms) {
        (MacHint::Own, Some(_)) => {
            return err(format!("{p}.mac_hint_relay_delay_ms"), "applies only with mac_hint = \"relay\" (the default \"own\" relays nothing)");
        }
        (_, ms) => {
            let ms = ms.unwrap_or(0.0);
            time_s(&format!("{p}.mac_hint_relay_delay_ms"), ms / 1e3, false)
                .map_err(|_| ScenarioError::new(format!("{p}.mac_hint_relay_delay_ms"), format!("is {ms}; allowed: milliseconds >= 0")))?
        }
    };
    if w.stations.len() < 2 {
        return err(format!("{p}.stations"), "needs at least two stations");
    }
    let mut stations = Vec::with_capacity(w.stations.len());
    let mut motions = Vec::with_capacity(w.stations.len());
    let mut queues = Vec::with_capacity(w.stations.len());
    let mut on_channel: HashSet<usize> = HashSet::with_capacity(w.stations.len());
    for (i, s) in w.stations.iter().enumerate() {
        let n = node(format!("{p}.stations.{i}.node"), &s.node)?;
        if !on_channel.insert(n) {
            return err(format!("{p}.stations.{i}.node"), format!("`{}` is already a station of this channel", s.node));
        }
        if !(s.x.is_finite() && s.y.is_finite()) {
            return err(format!("{p}.stations.{i}"), "positions must be finite numbers");
        }
        stations.push((n, s.x, s.y));
        motions.push(resolve_motion(&format!("{p}.stations.{i}"), s)?);
        queues.push(match &s.queue {
            Some(q) => resolve_queue(&format!("{p}.stations.{i}.queue"), q, DEFAULT_WIFI_QUEUE_PACKETS, channel_limit)?,
            None => queue.clone(),
        });
    }
    Ok(WifiCfg { name, config, stations, motions, queues, hint_delay, mac_hint, relay_delay })
}

/// `[[wifi]] channel`: the radio model's parameters, or `None` for the range disc.
fn resolve_channel(p: &str, w: &WifiSpec) -> R<Option<Radio>> {
    let Some(c) = &w.channel else { return Ok(None) };
    let here = |f: &str| format!("{p}.channel.{f}");
    let radio_fields = [
        ("exponent", c.exponent.is_some()),
        ("reference_distance_m", c.reference_distance_m.is_some()),
        ("reference_loss_db", c.reference_loss_db.is_some()),
        ("tx_power_dbm", c.tx_power_dbm.is_some()),
        ("noise_figure_db", c.noise_figure_db.is_some()),
        ("cca_threshold_dbm", c.cca_threshold_dbm.is_some()),
        ("shadowing_sigma_db", c.shadowing_sigma_db.is_some()),
        ("fading", c.fading.is_some()),
        ("rician_k_db", c.rician_k_db.is_some()),
    ];
    if c.model == ChannelModel::Range {
        if let Some((f, _)) = radio_fields.iter().find(|(_, set)| *set) {
            return err(here(f), "is a log_distance setting; the range model takes tx_range_m and cs_range_m");
        }
        return Ok(None);
    }
    if w.phy == WifiPhy::B {
        return err(here("model"), "is log_distance, whose error model is OFDM's; allowed with phy = \"a\", \"g\", \"n\" or \"ac\" (802.11b is DSSS)");
    }
    for (f, set) in [("tx_range_m", w.tx_range_m.is_some()), ("cs_range_m", w.cs_range_m.is_some()), ("ber", w.ber.is_some_and(|b| b > 0.0))] {
        if set {
            return err(format!("{p}.{f}"), "belongs to the range model; under channel.model = \"log_distance\" power, noise and SINR decide (remove it)");
        }
    }
    let num = |f: &str, v: Option<f64>, default: f64, ok: &dyn Fn(f64) -> bool, allowed: &str| -> R<f64> {
        let v = v.unwrap_or(default);
        if v.is_finite() && ok(v) { Ok(v) } else { err(here(f), format!("is {}; allowed: {allowed}", fmt_num(v))) }
    };
    let d0 = num("reference_distance_m", c.reference_distance_m, 1.0, &|v| v > 0.0, "metres > 0")?;
    // Free space (Friis) at d0: 20 log10(4 pi d0 f / c).
    let f_hz = if w.phy == WifiPhy::G { 2.412e9 } else { 5.15e9 };
    let free_space = 20.0 * (4.0 * std::f64::consts::PI * d0 * f_hz / 299_792_458.0).log10();
    let mut radio = Radio {
        exponent: num("exponent", c.exponent, 3.0, &|v| (1.0..=8.0).contains(&v), "1..=8 (2: free space; 2.7-3.5: indoors)")?,
        reference_distance_m: d0,
        reference_loss_db: num("reference_loss_db", c.reference_loss_db, free_space, &|v| (0.0..=200.0).contains(&v), "0..=200 dB")?,
        tx_power_dbm: num("tx_power_dbm", c.tx_power_dbm, 16.0206, &|v| (-50.0..=50.0).contains(&v), "-50..=50 dBm")?,
        noise_figure_db: num("noise_figure_db", c.noise_figure_db, 7.0, &|v| (0.0..=30.0).contains(&v), "0..=30 dB")?,
        cca_threshold_dbm: num("cca_threshold_dbm", c.cca_threshold_dbm, -82.0, &|v| (-120.0..=0.0).contains(&v), "-120..=0 dBm")?,
        shadowing_sigma_db: num("shadowing_sigma_db", c.shadowing_sigma_db, 0.0, &|v| (0.0..=20.0).contains(&v), "0..=20 dB")?,
        fading: Fading::None,
    };
    radio.fading = match (c.fading.unwrap_or(FadingSpec::None), c.rician_k_db) {
        (FadingSpec::Rician, None) => return err(here("rician_k_db"), "is missing; fading = \"rician\" needs the K factor in dB (e.g. 6)"),
        (FadingSpec::Rician, Some(k)) => Fading::Rician { k: db_to_linear(num("rician_k_db", Some(k), 0.0, &|v| (-30.0..=40.0).contains(&v), "-30..=40 dB")?) },
        (_, Some(_)) => return err(here("rician_k_db"), "applies only with fading = \"rician\""),
        (FadingSpec::Rayleigh, None) => Fading::Rayleigh,
        (FadingSpec::None, None) => Fading::None,
    };
    Ok(Some(radio))
}

/// A station's `velocity` or `waypoints`.
fn resolve_motion(p: &str, s: &StationSpec) -> R<Motion> {
    match (&s.velocity, &s.waypoints) {
        (Some(_), Some(_)) => err(format!("{p}.waypoints"), "and velocity both move the station; give one"),
        (Some([vx, vy]), None) => {
            if !(vx.is_finite() && vy.is_finite() && vx.hypot(*vy) <= 1e4) {
                return err(format!("{p}.velocity"), format!("is [{}, {}]; allowed: [vx, vy], finite metres per second, speed <= 10000", fmt_num(*vx), fmt_num(*vy)));
            }
            Ok(Motion::Velocity { vx: *vx, vy: *vy })
        }
        (None, Some(points)) => {
            if points.is_empty() {
                return err(format!("{p}.waypoints"), "is empty; allowed: [[t_s, x, y], ...] with at least one waypoint");
            }
            let mut last = 0;
            let mut out = Vec::with_capacity(points.len());
            for (k, &[t, x, y]) in points.iter().enumerate() {
                let at = time_s(&format!("{p}.waypoints.{k}"), t, true).map_err(|_| ScenarioError::new(format!("{p}.waypoints.{k}"), format!("time {}; allowed: seconds > 0 and <= 1e7", fmt_num(t))))?;
                if at <= last {
                    return err(format!("{p}.waypoints.{k}"), format!("time {} s is not after the previous waypoint's; allowed: increasing times", fmt_num(t)));
                }
                if !(x.is_finite() && y.is_finite()) {
                    return err(format!("{p}.waypoints.{k}"), "positions must be finite numbers (metres)");
                }
                last = at;
                out.push((at, x, y));
            }
            Ok(Motion::Waypoints(out))
        }
        (None, None) => Ok(Motion::Fixed),
    }
}

/// A queue table. A table that states no limit takes `inherited` (packets, bytes) if
/// given, else its discipline's default: FQ-CoDel's 10240 packets (Linux, ns-3), or
/// `default_limit` packets.
fn resolve_queue(p: &str, q: &QueueSpec, default_limit: u32, inherited: Option<(Option<u32>, Option<u64>)>) -> R<QueueCfg> {
    let (limit_packets, limit_bytes) = match (q.limit_packets, q.limit_bytes) {
        (Some(_), Some(_)) => return err(p, "give either limit_packets or limit_bytes, not both"),
        // No limit stated (and no profile gave one).
        (None, None) => match inherited {
            Some(limit) => limit,
            None if q.discipline == Discipline::FqCodel => (Some(crate::net::fq_codel::DEFAULT_LIMIT_PACKETS), None),
            None => (Some(default_limit), None),
        },
        (Some(0), _) => return err(format!("{p}.limit_packets"), "is 0; allowed: >= 1"),
        (_, Some(0)) => return err(format!("{p}.limit_bytes"), "is 0; allowed: >= 1"),
        (lp, lb) => (lp, lb),
    };
    // Options that belong to another discipline are refused, not ignored.
    let given = [
        ("min_th", q.min_th.is_some()),
        ("max_th", q.max_th.is_some()),
        ("max_p", q.max_p.is_some()),
        ("gentle", q.gentle.is_some()),
        ("ecn", q.ecn.is_some()),
        ("weight", q.weight.is_some()),
        ("threshold", q.threshold.is_some()),
        ("mean_packet_bytes", q.mean_packet_bytes.is_some()),
        ("target_ms", q.target_ms.is_some()),
        ("interval_ms", q.interval_ms.is_some()),
        ("t_update_ms", q.t_update_ms.is_some()),
        ("max_burst_ms", q.max_burst_ms.is_some()),
        ("quantum_bytes", q.quantum_bytes.is_some()),
        ("flows", q.flows.is_some()),
        ("drop_batch", q.drop_batch.is_some()),
        ("eta", q.eta.is_some()),
        ("delta_ms", q.delta_ms.is_some()),
        ("delay_threshold_ms", q.delay_threshold_ms.is_some()),
        ("rate_window_ms", q.rate_window_ms.is_some()),
        ("token_limit", q.token_limit.is_some()),
        ("queue_delay", q.queue_delay.is_some()),
    ];
    let allowed: &[&str] = match q.discipline {
        Discipline::Droptail => &[],
        Discipline::Red => &["min_th", "max_th", "max_p", "gentle", "ecn", "weight", "mean_packet_bytes"],
        Discipline::Cw => &["threshold", "weight", "mean_packet_bytes"],
        Discipline::Codel => &["target_ms", "interval_ms", "ecn"],
        Discipline::Pie => &["target_ms", "t_update_ms", "max_burst_ms", "ecn"],
        Discipline::FqCodel => &["target_ms", "interval_ms", "ecn", "quantum_bytes", "flows", "drop_batch"],
        Discipline::Abc => &["eta", "delta_ms", "delay_threshold_ms", "rate_window_ms", "token_limit", "queue_delay"],
    };
    if let Some((name, _)) = given.iter().find(|(n, set)| *set && !allowed.contains(n)) {
        return err(format!("{p}.{name}"), format!("is not an option of discipline \"{}\"; allowed: {}", q.discipline.name(), if allowed.is_empty() { "none".to_string() } else { allowed.join(", ") }));
    }
    let mean_packet_bytes = q.mean_packet_bytes.unwrap_or(1000);
    if mean_packet_bytes == 0 {
        return err(format!("{p}.mean_packet_bytes"), "is 0; allowed: >= 1");
    }
    let weight = |default: f64| -> R<f64> {
        let w = q.weight.unwrap_or(default);
        if !(w > 0.0 && w <= 1.0) {
            return err(format!("{p}.weight"), format!("is {w}; allowed: (0, 1]"));
        }
        Ok(w)
    };
    let aqm = match q.discipline {
        Discipline::Droptail => Aqm::DropTail,
        Discipline::Red => {
            // Defaults: Floyd & Jacobson's w = 0.002, max_p = 0.1; thresholds 5 / 15 packets.
            let min_th = q.min_th.unwrap_or(5.0);
            let max_th = q.max_th.unwrap_or(3.0 * min_th);
            // Each threshold on its own first (a NaN or negative one is its own mistake), then
            // their order.
            for (field, v) in [("min_th", min_th), ("max_th", max_th)] {
                if !(v >= 0.0 && v.is_finite()) {
                    return err(format!("{p}.{field}"), format!("is {}; allowed: a number of packets >= 0", fmt_num(v)));
                }
            }
            if max_th <= min_th {
                return err(format!("{p}.max_th"), format!("min_th {min_th} and max_th {max_th}: allowed 0 <= min_th < max_th"));
            }
            let max_p = probability(&format!("{p}.max_p"), q.max_p.unwrap_or(0.1))?;
            Aqm::Red(RedCfg { min_th, max_th, max_p, weight: weight(0.002)?, gentle: q.gentle.unwrap_or(true), ecn: q.ecn.unwrap_or(false), mean_packet_bytes })
        }
        Discipline::Cw => {
            let threshold = q.threshold.ok_or_else(|| ScenarioError::new(format!("{p}.threshold"), "is required for discipline \"cw\" (average queue in packets)"))?;
            if !(threshold >= 0.0 && threshold.is_finite()) {
                return err(format!("{p}.threshold"), format!("is {threshold}; allowed: packets >= 0"));
            }
            Aqm::Warning(WarningCfg { threshold, weight: weight(0.002)?, mean_packet_bytes })
        }
        Discipline::Pie => {
            use crate::net::pie::{DEFAULT_MAX_BURST, DEFAULT_TARGET, DEFAULT_T_UPDATE};
            let target = queue_ms(p, "target_ms", q.target_ms, DEFAULT_TARGET)?;
            let t_update = queue_ms(p, "t_update_ms", q.t_update_ms, DEFAULT_T_UPDATE)?;
            let max_burst = match q.max_burst_ms {
                Some(0.0) => 0,
                v => queue_ms(p, "max_burst_ms", v, DEFAULT_MAX_BURST)?,
            };
            Aqm::Pie(crate::net::pie::PieCfg { target, t_update, max_burst, ecn: q.ecn.unwrap_or(false) })
        }
        // CoDel's ECN is off by default (Linux codel); RFC 8290 §5.2.6 turns it on for
        // FQ-CoDel (Linux fq_codel, ns-3 UseEcn).
        Discipline::Codel => Aqm::Codel(codel_cfg(p, q, false)?),
        Discipline::FqCodel => {
            use crate::net::fq_codel::{DEFAULT_DROP_BATCH, DEFAULT_FLOWS, DEFAULT_QUANTUM};
            let count = |field: &str, v: Option<u32>, default: u32, max: u32, unit: &str| -> R<u32> {
                match v.unwrap_or(default) {
                    n if (1..=max).contains(&n) => Ok(n),
                    n => err(format!("{p}.{field}"), format!("is {n}; allowed: 1..={max} ({unit})")),
                }
            };
            Aqm::FqCodel(crate::net::fq_codel::FqCodelCfg {
                codel: codel_cfg(p, q, true)?,
                quantum: count("quantum_bytes", q.quantum_bytes, DEFAULT_QUANTUM, 1 << 20, "bytes")?,
                flows: count("flows", q.flows, DEFAULT_FLOWS, 65_536, "queues")?,
                drop_batch: count("drop_batch", q.drop_batch, DEFAULT_DROP_BATCH, 1 << 16, "packets")?,
            })
        }
        Discipline::Abc => {
            use crate::net::abc::{AbcCfg, QueueDelay, DEFAULT_DELAY_THRESHOLD, DEFAULT_DELTA, DEFAULT_ETA, DEFAULT_RATE_WINDOW, DEFAULT_TOKEN_LIMIT};
            let eta = q.eta.unwrap_or(DEFAULT_ETA);
            if !(eta > 0.0 && eta <= 2.0) {
                return err(format!("{p}.eta"), format!("is {}; allowed: a ratio in (0, 2] (target rate over link capacity)", fmt_num(eta)));
            }
            let token_limit = q.token_limit.unwrap_or(DEFAULT_TOKEN_LIMIT);
            if !(token_limit.is_finite() && (1.0..=1e6).contains(&token_limit)) {
                return err(format!("{p}.token_limit"), format!("is {}; allowed: tokens from 1 to 1000000", fmt_num(token_limit)));
            }
            let delay_threshold = match q.delay_threshold_ms {
                Some(0.0) => 0,
                v => queue_ms(p, "delay_threshold_ms", v, DEFAULT_DELAY_THRESHOLD)?,
            };
            Aqm::Abc(AbcCfg {
                eta,
                delta: queue_ms(p, "delta_ms", q.delta_ms, DEFAULT_DELTA)?,
                delay_threshold,
                rate_window: queue_ms(p, "rate_window_ms", q.rate_window_ms, DEFAULT_RATE_WINDOW)?,
                token_limit,
                queue_delay: match q.queue_delay {
                    None | Some(AbcQueueDelay::Backlog) => QueueDelay::Backlog,
                    Some(AbcQueueDelay::Sojourn) => QueueDelay::Sojourn,
                },
            })
        }
    };
    Ok(QueueCfg { limit_packets, limit_bytes, aqm })
}

/// CoDel's target and interval (RFC 8289 §4.2-4.3), and its ECN switch.
fn codel_cfg(p: &str, q: &QueueSpec, ecn_default: bool) -> R<crate::net::codel::CodelCfg> {
    let target = queue_ms(p, "target_ms", q.target_ms, crate::net::codel::DEFAULT_TARGET)?;
    let interval = queue_ms(p, "interval_ms", q.interval_ms, crate::net::codel::DEFAULT_INTERVAL)?;
    if target >= interval {
        return err(format!("{p}.target_ms"), format!("is {} ms, not below interval_ms ({} ms); allowed: target < interval (RFC 8289: 5 and 100 ms)", target as f64 / 1e6, interval as f64 / 1e6));
    }
    Ok(crate::net::codel::CodelCfg { target, interval, ecn: q.ecn.unwrap_or(ecn_default) })
}

/// A queue discipline's time option in ms (`default` when absent).
fn queue_ms(p: &str, field: &str, v: Option<f64>, default: Time) -> R<Time> {
    match v {
        None => Ok(default),
        Some(x) if x.is_finite() && (0.001..=60_000.0).contains(&x) => Ok((x * 1e6).round() as Time),
        Some(x) => err(format!("{p}.{field}"), format!("is {}; allowed: milliseconds from 0.001 to 60000", fmt_num(x))),
    }
}

fn resolve_impair(p: &str, d: &DirectionSpec, run_seed: u64, replication: u64) -> R<ImpairCfg> {
    if let Some(loss) = &d.loss {
        let lp = format!("{p}.loss");
        match loss {
            LossSpec::Uniform { rate } => {
                probability(&format!("{lp}.rate"), *rate)?;
            }
            LossSpec::Ber { ber } => {
                probability(&format!("{lp}.ber"), *ber)?;
            }
            LossSpec::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
                probability(&format!("{lp}.p_good_to_bad"), *p_good_to_bad)?;
                probability(&format!("{lp}.p_bad_to_good"), *p_bad_to_good)?;
                probability(&format!("{lp}.loss_good"), *loss_good)?;
                probability(&format!("{lp}.loss_bad"), *loss_bad)?;
            }
            LossSpec::List { packets } => {
                if let Some(i) = packets.iter().position(|&n| n == 0) {
                    return err(format!("{lp}.packets.{i}"), "is 0; packets are counted from 1");
                }
            }
        }
    }
    let mut outages = Vec::new();
    for (i, o) in d.outages.iter().enumerate() {
        let s = time_s(&format!("{p}.outages.{i}.start_s"), o.start_s, false)?;
        let len = time_s(&format!("{p}.outages.{i}.duration_s"), o.duration_s, true)?;
        outages.push((s, len));
    }
    let random_outages = match &d.random_outages {
        None => None,
        Some(r) => {
            let rp = format!("{p}.random_outages");
            if !(r.count_per_200s.is_finite() && r.count_per_200s >= 0.0) {
                return err(format!("{rp}.count_per_200s"), format!("is {}; allowed: a number >= 0", r.count_per_200s));
            }
            let dur = time_s(&format!("{rp}.duration_s"), r.duration_s, true)?;
            let from = time_s(&format!("{rp}.from_s"), r.from_s, false)?;
            (r.count_per_200s > 0.0).then(|| RandomOutageCfg {
                mean_interval: 200.0 / r.count_per_200s,
                duration: dur,
                exponential: r.exponential_duration,
                from,
            })
        }
    };
    let mut delay_spikes = Vec::new();
    for (i, s) in d.delay_spikes.iter().enumerate() {
        let sp = format!("{p}.delay_spikes.{i}");
        let start = time_s(&format!("{sp}.start_s"), s.start_s, false)?;
        let len = time_s(&format!("{sp}.duration_s"), s.duration_s, true)?;
        let extra = time_s(&format!("{sp}.extra_delay_ms"), s.extra_delay_ms / 1e3, false)
            .map_err(|_| ScenarioError::new(format!("{sp}.extra_delay_ms"), format!("is {}; allowed: milliseconds >= 0", s.extra_delay_ms)))?;
        delay_spikes.push((start, len, extra));
    }
    let arq = match &d.arq {
        None => None,
        Some(a) => {
            if a.retry_limit > 1000 {
                return err(format!("{p}.arq.retry_limit"), format!("is {}; allowed: 0..=1000", a.retry_limit));
            }
            let hint_delay = time_s(&format!("{p}.arq.hint_delay_ms"), a.hint_delay_ms / 1e3, false)
                .map_err(|_| ScenarioError::new(format!("{p}.arq.hint_delay_ms"), format!("is {}; allowed: milliseconds >= 0", a.hint_delay_ms)))?;
            Some(ArqCfg { retry_limit: a.retry_limit, hint_delay, relay: a.mac_hint == MacHint::Relay })
        }
    };
    let capacity = d.capacity.as_ref().map(|c| super::traces::resolve(&format!("{p}.capacity"), c, run_seed, replication)).transpose()?;
    Ok(ImpairCfg { loss: d.loss.clone(), applies_to: d.loss_applies_to, outages, random_outages, delay_spikes, arq, capacity })
}

/// A TOML table as the parameter checker reads it.
struct TomlParams<'a>(&'a toml::Table);

impl wtcp_cc::ParamTable for TomlParams<'_> {
    fn get(&self, key: &str) -> Option<wtcp_cc::ParamValue<'_>> {
        Some(match self.0.get(key)? {
            Value::Integer(i) => wtcp_cc::ParamValue::Number(*i as f64),
            Value::Float(f) => wtcp_cc::ParamValue::Number(*f),
            Value::Table(t) => wtcp_cc::ParamValue::Table(Box::new(TomlParams(t))),
            _ => wtcp_cc::ParamValue::Other,
        })
    }
}

/// Refuse an infinite or NaN number anywhere in `table` (a user algorithm's parameters go
/// to it as JSON, which has neither).
fn non_finite(table: &toml::Table, path: &str) -> R<()> {
    for (k, v) in table {
        let here = format!("{path}.{k}");
        match v {
            Value::Float(f) if !f.is_finite() => return err(here, format!("is {}; allowed: a finite number", fmt_num(*f))),
            Value::Table(t) => non_finite(t, &here)?,
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    if let Value::Float(f) = x {
                        if !f.is_finite() {
                            return err(format!("{here}.{i}"), format!("is {}; allowed: a finite number", fmt_num(*f)));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The prefix of a kernel algorithm's name in `cc` (`cc = "kernel:htcp"`).
pub const KERNEL_CC_PREFIX: &str = "kernel:";

/// A flow's kernel algorithm and the field that named it (the file's flow, before
/// `count` copies it).
#[derive(Clone, Debug, PartialEq)]
pub struct KernelCc {
    pub name: String,
    pub field: String,
}

/// A kernel algorithm's name (after `kernel:`), checked as [`kernel_cc`] does: `Err` says
/// what is wrong and what is allowed, without repeating the name (it may hold anything).
pub fn check_kernel_cc_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 15 || !name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')) {
        return Err(format!("names a kernel algorithm of {} bytes; its name has 1 to 15 letters, digits, `_`, `.` or `-` (TCP_CA_NAME_MAX); allowed: kernel:NAME as net.ipv4.tcp_available_congestion_control lists it", name.len()));
    }
    Ok(())
}

/// The kernel algorithm a flow's `cc` names, checked: `TCP_CA_NAME_MAX` (16 bytes with the
/// terminating NUL, include/net/tcp.h) and the characters a module or BPF object name has
/// (letters, digits, `_`, `.` as bpf_obj_name_cpy allows, `-` as in `dctcp-reno`).
fn kernel_cc(p: &str, fl: &FlowSpec) -> R<Option<KernelCc>> {
    let Some(name) = fl.cc.as_deref().and_then(|c| c.strip_prefix(KERNEL_CC_PREFIX)) else { return Ok(None) };
    check_kernel_cc_name(name).map_err(|why| ScenarioError::new(format!("{p}.cc"), why))?;
    if fl.cc_params.as_ref().is_some_and(|t| !t.is_empty()) {
        return Err(ScenarioError::new(format!("{p}.cc_params"), format!("the kernel's `{name}` takes no parameters from a scenario; allowed: leave cc_params out")));
    }
    Ok(Some(KernelCc { name: name.to_string(), field: format!("{p}.cc") }))
}

fn resolve_tcp_flow(p: &str, fl: &FlowSpec, global: &TcpSection) -> R<TcpFlowCfg> {
    let kernel_cc = kernel_cc(p, fl)?;
    let name = if kernel_cc.is_some() { "reno".to_string() } else { fl.cc.clone().unwrap_or_else(|| DEFAULT_CC.to_string()) };
    let params = Value::Table(fl.cc_params.clone().unwrap_or_default());
    let mut track = serde_path_to_error::Track::new();
    let cc = CcConfig::from_name(&name, serde_path_to_error::Deserializer::new(params.clone(), &mut track));
    let cc = cc.map_err(|e| {
        let inner = dotted(&track.path());
        let mut msg = first_line(&e.to_string());
        if msg == UNIT_VARIANT {
            msg = names_expected(&params, &inner, |probe| {
                let mut track = serde_path_to_error::Track::new();
                CcConfig::from_name(&name, serde_path_to_error::Deserializer::new(probe, &mut track)).err().map(|e| (dotted(&track.path()), e.to_string()))
            });
        }
        if msg.starts_with("unknown algorithm") {
            ScenarioError::new(format!("{p}.cc"), msg)
        } else if inner.is_empty() {
            ScenarioError::new(format!("{p}.cc_params"), format!("{msg} (algorithm `{name}`)"))
        } else {
            ScenarioError::new(format!("{p}.cc_params.{inner}"), format!("{msg} (algorithm `{name}`)"))
        }
    })?;
    if let CcConfig::User(u) = &cc {
        // An algorithm registered at run time checks its own table, after the numbers its
        // JSON form cannot hold.
        if let Some(table) = &fl.cc_params {
            non_finite(table, &format!("{p}.cc_params")).map_err(|e| ScenarioError::new(e.path.clone(), format!("{} (algorithm `{name}`)", e.message)))?;
        }
        u.alg.check_params(&u.params).map_err(|e| {
            let path = if e.path.is_empty() { format!("{p}.cc_params") } else { format!("{p}.cc_params.{}", e.path) };
            ScenarioError::new(path, format!("{} (algorithm `{name}`)", e.message))
        })?;
    }
    // Each value against its documented range (`wtcp algorithms`), then the constraints
    // between parameters.
    if let Some(table) = &fl.cc_params {
        wtcp_cc::check_params(cc.info(), &TomlParams(table)).map_err(|e| {
            ScenarioError::new(format!("{p}.cc_params.{}", e.path), format!("{} (algorithm `{name}`)", e.message))
        })?;
    }
    let local = fl.tcp.clone().unwrap_or_default();
    // Per-flow table first, then the global one, then the defaults. A value is blamed on
    // the table that gave it: the flow's own only if it states the field.
    let stated = toml::Value::try_from(&local).unwrap_or(toml::Value::Table(Default::default()));
    let tp = |field: &str| -> String {
        if stated.get(field).is_some() {
            format!("{p}.tcp.{field}")
        } else {
            format!("tcp.{field}")
        }
    };
    let d = TcpConfig::default();
    macro_rules! pick {
        ($f:ident) => {
            local.$f.or(global.$f)
        };
    }
    let mss = pick!(mss_bytes).unwrap_or(d.mss);
    if mss == 0 || mss > 65_495 {
        return err(tp("mss_bytes"), format!("is {mss}; allowed: 1..=65495"));
    }
    let header_bytes = pick!(header_bytes).unwrap_or(d.header_bytes);
    if header_bytes > 1000 {
        return err(tp("header_bytes"), format!("is {header_bytes}; allowed: 0..=1000"));
    }
    let iw = pick!(initial_cwnd_segments).unwrap_or(d.initial_cwnd_segments);
    if !(iw.is_finite() && iw >= 1.0) {
        return err(tp("initial_cwnd_segments"), format!("is {iw}; allowed: >= 1 segment"));
    }
    let iss = pick!(initial_ssthresh_segments);
    if let Some(v) = iss {
        if v.is_nan() || v < 2.0 {
            return err(tp("initial_ssthresh_segments"), format!("is {v}; allowed: >= 2 segments (omit for unlimited)"));
        }
    }
    let rto_initial = time_s(&tp("rto_initial_s"), pick!(rto_initial_s).unwrap_or(1.0), true)?;
    let rto_min = time_s(&tp("rto_min_s"), pick!(rto_min_s).unwrap_or(1.0), false)?;
    let rto_max = time_s(&tp("rto_max_s"), pick!(rto_max_s).unwrap_or(60.0), true)?;
    if rto_min > rto_max {
        return err(tp("rto_min_s"), "is larger than rto_max_s; the minimum RTO must not exceed the maximum");
    }
    let granularity = time_s(&tp("clock_granularity_s"), pick!(clock_granularity_s).unwrap_or(0.001), false)?;
    let max_backoff = pick!(max_backoff).unwrap_or(d.rtt.max_backoff);
    if max_backoff > 30 {
        return err(tp("max_backoff"), format!("is {max_backoff}; allowed: 0..=30 doublings"));
    }
    let dupack_threshold = pick!(dupack_threshold).unwrap_or(d.dupack_threshold);
    if dupack_threshold == 0 {
        return err(tp("dupack_threshold"), "is 0; allowed: >= 1");
    }
    let delayed_ack_count = pick!(delayed_ack_count).unwrap_or(d.delayed_ack_count);
    if delayed_ack_count == 0 {
        return err(tp("delayed_ack_count"), "is 0; allowed: >= 1 (set delayed_ack = false to acknowledge every segment)");
    }
    let delack_s = pick!(delayed_ack_timeout_s).unwrap_or(0.2);
    let delayed_ack_timeout = time_s(&tp("delayed_ack_timeout_s"), delack_s, true)?;
    if delack_s >= 0.5 {
        return err(tp("delayed_ack_timeout_s"), format!("is {delack_s}; RFC 1122 requires < 0.5 s"));
    }
    let send_buffer_bytes = pick!(send_buffer_bytes).unwrap_or(d.send_buffer_bytes);
    let recv_buffer_bytes = pick!(recv_buffer_bytes).unwrap_or(d.recv_buffer_bytes);
    for (v, field) in [(send_buffer_bytes, "send_buffer_bytes"), (recv_buffer_bytes, "recv_buffer_bytes")] {
        if v < u64::from(mss) {
            return err(tp(field), format!("is {v}; allowed: at least one segment ({mss} bytes)"));
        }
    }
    if let Some(b) = fl.bytes {
        if b == 0 {
            return err(format!("{p}.bytes"), "is 0; allowed: >= 1 (omit for an unlimited transfer)");
        }
    }
    let sack = pick!(sack).unwrap_or(d.sack);
    let recovery = pick!(recovery).unwrap_or(d.recovery);
    if recovery == Recovery::Prr && !sack {
        return err(tp("recovery"), "is \"prr\", which needs sack = true here (PRR's pipe comes from the SACK scoreboard); allowed without SACK: \"classic\"");
    }
    // Without SACK "rack" leaves the duplicate-ACK rule in place, as Linux does
    // (tcp_identify_packet_loss: tcp_newreno_mark_lost for a connection without SACK).
    let loss_detection = pick!(loss_detection).unwrap_or(d.loss_detection);
    let reno_sack = pick!(reno_sack).unwrap_or(d.reno_sack);
    if reno_sack && !sack && pick!(frto).unwrap_or(d.frto) {
        return err(tp("reno_sack"), "is true, ns-3's recovery without SACK, which has no F-RTO; set frto = false, or reno_sack = false");
    }
    // An algorithm that needs ECN turns it on with the per-packet DCTCP echo (Linux
    // TCP_CONG_NEEDS_ECN), whatever the [tcp] table says; a flow's own table may not
    // refuse it.
    let (ecn, ecn_echo) = if cc.needs_ecn() {
        if local.ecn == Some(false) {
            return err(format!("{p}.tcp.ecn"), format!("is false, but algorithm `{name}` needs ECN (its router's brakes arrive as CE marks); allowed: true, or leave it out"));
        }
        if let Some(e) = local.ecn_echo.filter(|e| *e != EcnEcho::StateChange) {
            let stated = toml::Value::try_from(e).map(|v| v.to_string()).unwrap_or_default();
            return err(format!("{p}.tcp.ecn_echo"), format!("is {stated}, but algorithm `{name}` counts one mark per packet (RFC 8257 §3.2 echo); allowed: \"state_change\", or leave it out"));
        }
        (true, EcnEcho::StateChange)
    } else {
        (pick!(ecn).unwrap_or(d.ecn), pick!(ecn_echo).unwrap_or(d.ecn_echo))
    };
    let tcp = TcpConfig {
        mss,
        header_bytes,
        timestamps: pick!(timestamps).unwrap_or(d.timestamps),
        initial_cwnd_segments: iw,
        initial_ssthresh_segments: iss.filter(|v| v.is_finite()),
        rtt: RttConfig { initial_rto: rto_initial, min_rto: rto_min, max_rto: rto_max, granularity, max_backoff, linux_estimator: pick!(rto_estimator) == Some(RtoEstimator::Linux) },
        rtt_sampling: pick!(rtt_sampling).unwrap_or(d.rtt_sampling),
        dupack_threshold,
        limited_transmit: pick!(limited_transmit).unwrap_or(d.limited_transmit),
        delayed_ack: pick!(delayed_ack).unwrap_or(d.delayed_ack),
        delayed_ack_count,
        delayed_ack_timeout,
        send_buffer_bytes,
        recv_buffer_bytes,
        ecn,
        ecn_echo,
        frto: pick!(frto).unwrap_or(d.frto),
        partial_ack_timer: pick!(partial_ack_timer).unwrap_or(d.partial_ack_timer),
        sack,
        recovery,
        loss_detection,
        rearm_rto_on_head_retransmit: pick!(rearm_rto_on_head_retransmit).unwrap_or(d.rearm_rto_on_head_retransmit),
        tail_loss_probe: pick!(tail_loss_probe).unwrap_or(d.tail_loss_probe),
        backoff_reset: pick!(backoff_reset).unwrap_or(d.backoff_reset),
        handshake: pick!(handshake).unwrap_or(d.handshake),
        prr_recover_fs: pick!(prr_recover_fs).unwrap_or(d.prr_recover_fs),
        prr_dupack_credit: pick!(prr_dupack_credit).unwrap_or(d.prr_dupack_credit),
        prr_extra_segment: pick!(prr_extra_segment).unwrap_or(d.prr_extra_segment),
        timeout_count_reset: pick!(timeout_count_reset).unwrap_or(d.timeout_count_reset),
        recovery_exit_growth: pick!(recovery_exit_growth).unwrap_or(d.recovery_exit_growth),
        reno_sack,
        loss_exit_credit: pick!(loss_exit_credit).unwrap_or(d.loss_exit_credit),
        cwnd_limited: pick!(cwnd_limited).unwrap_or(d.cwnd_limited),
        ts_recent: pick!(ts_recent).unwrap_or(d.ts_recent),
        timeout_in_recovery: pick!(timeout_in_recovery).unwrap_or(d.timeout_in_recovery),
        quick_acks_at_start: pick!(quick_acks_at_start).unwrap_or(d.quick_acks_at_start),
        handshake_ack: pick!(handshake_ack).unwrap_or(d.handshake_ack),
        receive_window: pick!(receive_window).unwrap_or(d.receive_window),
    };
    Ok(TcpFlowCfg { cc, kernel_cc, tcp, bytes: fl.bytes })
}
