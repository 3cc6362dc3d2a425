//! What a run will need, estimated from the resolved scenario before it starts.
//!
//! The estimate is a sum of items, each an upper bound of one cost that a scenario value
//! drives (trace rows, segments in flight, the route table, random outages, ...). A run
//! whose memory estimate exceeds the memory budget, or whose event estimate exceeds the
//! event budget, is refused with a [`ScenarioError`] at the field of the largest item.
//!
//! Budgets (documented in docs/scenarios.md, "Resource limits"):
//! - memory: `WTCP_MEMORY_BUDGET_GIB` (GiB, default 4);
//! - disk, for traces streamed to files ([`TraceStore::Disk`]): `WTCP_DISK_BUDGET_GIB`
//!   (GiB, default 100); their memory is then one chunk;
//! - events: `WTCP_EVENT_BUDGET` (default 1e12: about 14 hours at the engine's measured
//!   2e7 events per second on the shipped scenarios; a run past it takes days).
//!
//! The estimate is cheap: one pass over the flows (plus the hops of their paths) and the
//! links, nothing allocated in proportion to what it estimates.

use std::collections::HashMap;

use toml::Value;
use wtcp_cc::registry::fmt_num;
use wtcp_cc::CcConfig;

use super::resolve::{FlowApp, Scenario};
use super::ScenarioError;
use crate::events::EventQueue;
use crate::net::routing::{Hop, RouteTable};
use crate::packet::Packet;
use crate::sim::TRACE_CHUNK_ROWS;
use crate::time::Time;

/// Default memory budget, GiB.
pub const DEFAULT_MEMORY_GIB: f64 = 4.0;
/// Default disk budget for streamed traces, GiB.
pub const DEFAULT_DISK_GIB: f64 = 100.0;
/// Default event budget.
pub const DEFAULT_EVENTS: f64 = 1e12;
/// Events per second of wall-clock time the engine processes (measured on the shipped
/// scenarios, 1.9e7 to 2.6e7), for the time a refused run would have taken.
const EVENTS_PER_SECOND: f64 = 2e7;
/// Environment variables that override the budgets.
pub const MEMORY_ENV: &str = "WTCP_MEMORY_BUDGET_GIB";
pub const EVENTS_ENV: &str = "WTCP_EVENT_BUDGET";
pub const DISK_ENV: &str = "WTCP_DISK_BUDGET_GIB";

/// Where a run's traces go: held in memory to the end (returned whole), or handed over in
/// chunks of about [`crate::sim::TRACE_CHUNK_ROWS`] rows and written to files
/// ([`crate::sim::run_streamed`]), so that they count against the disk budget instead.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TraceStore {
    #[default]
    Memory,
    Disk,
}

/// Bytes of one outstanding segment: the packet in the pool plus the sender's record.
fn segment_bytes() -> f64 {
    (std::mem::size_of::<Packet>() + 64) as f64
}
/// Bytes of one packet held in a queue.
fn packet_bytes() -> f64 {
    std::mem::size_of::<Packet>() as f64
}
/// Fixed state of one flow (sender, receiver, algorithm, counters, result), bytes.
const FLOW_BYTES: f64 = 4096.0;
/// Bytes of a trace row: a flow row (time, flow, about a dozen columns), a congestion-control
/// variable row (time, flow, name, value), a queue row (time, direction, packets, bytes,
/// capacity);
/// doubled for the copy made when the traces are handed over (NumPy arrays, CSV).
const FLOW_ROW_BYTES: f64 = 2.0 * 120.0;
const CC_ROW_BYTES: f64 = 2.0 * 40.0;
const QUEUE_ROW_BYTES: f64 = 2.0 * 32.0;
/// Bytes of a trace row as CSV text (upper bounds: at most 24 characters and a separator
/// per number, the direction's `link:from->to` name in a queue row taken as 64 at most):
/// a flow row of 14 numbers, a congestion-control row of three numbers and a name, a
/// queue row of five numbers and the link name. Measured on the dumbbell scenario: 125
/// bytes per flow row, 28 per queue row.
const FLOW_ROW_CSV: f64 = 14.0 * 25.0;
const CC_ROW_CSV: f64 = 3.0 * 25.0 + 25.0;
const QUEUE_ROW_CSV: f64 = 5.0 * 25.0 + 65.0;
/// Smallest packet on a wire: a bare IPv4 + TCP header.
const MIN_PACKET: f64 = 40.0;
/// Events per packet per hop (transmission end, arrival) and per 802.11 frame (backoff,
/// DIFS, transmission, ACK).
const EVENTS_PER_HOP: f64 = 2.0;
const EVENTS_PER_WIFI_HOP: f64 = 8.0;

/// The budgets a run must fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    pub memory_bytes: f64,
    pub events: f64,
    pub disk_bytes: f64,
}

impl Limits {
    /// The defaults, overridden by the environment variables.
    pub fn from_env() -> Result<Limits, ScenarioError> {
        let read = |name: &str, default: f64| -> Result<f64, ScenarioError> {
            match std::env::var(name) {
                Err(_) => Ok(default),
                Ok(text) => match text.trim().parse::<f64>() {
                    Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
                    _ => Err(ScenarioError::new("", format!("environment variable {name} is {text:?}; allowed: a number > 0"))),
                },
            }
        };
        Ok(Limits {
            memory_bytes: read(MEMORY_ENV, DEFAULT_MEMORY_GIB)? * GIB,
            events: read(EVENTS_ENV, DEFAULT_EVENTS)?,
            disk_bytes: read(DISK_ENV, DEFAULT_DISK_GIB)? * GIB,
        })
    }
}

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// One cost of the run.
#[derive(Clone, Debug)]
pub struct Item {
    /// The field that drives it (where a refusal is reported).
    pub path: String,
    /// What it is, with the numbers that give it.
    pub what: String,
    /// How many of `unit` it holds (trace rows, segments, outages).
    pub count: f64,
    pub unit: &'static str,
    pub bytes: f64,
    pub events: f64,
    /// How to make it smaller.
    pub hint: String,
}

/// The estimate of a run: its items and totals.
#[derive(Clone, Debug, Default)]
pub struct Estimate {
    pub items: Vec<Item>,
    /// Files written during the run (streamed traces); their `bytes` are bytes on disk.
    pub disk: Vec<Item>,
}

impl Estimate {
    pub fn bytes(&self) -> f64 {
        self.items.iter().map(|i| i.bytes).sum()
    }
    pub fn events(&self) -> f64 {
        self.items.iter().map(|i| i.events).sum()
    }

    /// Refuse the run if it exceeds a budget, at the largest item's field: what the item
    /// is, how many of its units the budget leaves room for, and what to change.
    pub fn check(&self, limits: &Limits) -> Result<(), ScenarioError> {
        let bytes = self.bytes();
        if bytes > limits.memory_bytes {
            let top = self.items.iter().max_by(|a, b| a.bytes.total_cmp(&b.bytes)).expect("a run over budget has items");
            let room = (limits.memory_bytes - (bytes - top.bytes)).max(0.0);
            let allowed = (room / (top.bytes / top.count.max(1.0))).floor();
            return Err(ScenarioError::new(
                top.path.clone(),
                format!(
                    "{} (about {}); allowed: at most {} {} within the memory budget of {} (the run would need about {} in all); {}, or raise the budget with the environment variable {MEMORY_ENV} (GiB)",
                    top.what,
                    fmt_bytes(top.bytes),
                    fmt_count(allowed),
                    top.unit,
                    fmt_bytes(limits.memory_bytes),
                    fmt_bytes(bytes),
                    top.hint
                ),
            ));
        }
        let disk: f64 = self.disk.iter().map(|i| i.bytes).sum();
        if disk > limits.disk_bytes {
            let top = self.disk.iter().max_by(|a, b| a.bytes.total_cmp(&b.bytes)).expect("a run over budget has items");
            let room = (limits.disk_bytes - (disk - top.bytes)).max(0.0);
            let allowed = (room / (top.bytes / top.count.max(1.0))).floor();
            return Err(ScenarioError::new(
                top.path.clone(),
                format!(
                    "{} (about {} on disk); allowed: at most {} {} within the disk budget of {}; {}, or raise the budget with the environment variable {DISK_ENV} (GiB)",
                    top.what,
                    fmt_bytes(top.bytes),
                    fmt_count(allowed),
                    top.unit,
                    fmt_bytes(limits.disk_bytes),
                    top.hint
                ),
            ));
        }
        let events = self.events();
        if events > limits.events {
            let top = self.items.iter().max_by(|a, b| a.events.total_cmp(&b.events)).expect("a run over budget has items");
            let room = (limits.events - (events - top.events)).max(0.0);
            let allowed = room / (top.events / top.count.max(1.0));
            return Err(ScenarioError::new(
                top.path.clone(),
                format!(
                    "{} (about {} events); allowed: at most {} {} within the budget of {} events (the run would process about {} events in all, {} of computing at {} events per second); {}, or raise the budget with the environment variable {EVENTS_ENV}",
                    top.what,
                    fmt_count(top.events),
                    fmt_allowed(allowed),
                    top.unit,
                    fmt_count(limits.events),
                    fmt_count(events),
                    fmt_duration(events / EVENTS_PER_SECOND),
                    fmt_count(EVENTS_PER_SECOND),
                    top.hint
                ),
            ));
        }
        Ok(())
    }
}

/// How many units fit: whole ones from one up, else two significant digits (`0.0023`).
fn fmt_allowed(v: f64) -> String {
    if v >= 1.0 {
        fmt_count(v.floor())
    } else {
        format!("{v:.2e}").parse::<f64>().map_or_else(|_| v.to_string(), |x| x.to_string())
    }
}

/// `1.5 GiB`, `3.2 PiB`.
pub fn fmt_bytes(b: f64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = b;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == UNITS.len() - 1 && v >= 1024.0 {
        return format!("{} EiB", fmt_count(v));
    }
    format!("{v:.1} {}", UNITS[u])
}

/// `3.5 hours`, `12.0 days`.
fn fmt_duration(s: f64) -> String {
    if s < 3600.0 {
        format!("{:.0} s", s)
    } else if s < 86400.0 * 2.0 {
        format!("{:.1} hours", s / 3600.0)
    } else {
        format!("{} days", fmt_count((s / 86400.0).round()))
    }
}

/// `12345`, `2.0e14`.
pub fn fmt_count(v: f64) -> String {
    if v < 1e6 {
        format!("{v:.0}")
    } else {
        format!("{v:.1e}")
    }
}

fn secs(t: Time) -> f64 {
    t as f64 / 1e9
}

/// The route table's bytes for `n` nodes, `transit` of them with two or more neighbours
/// (they keep a row each), `edge_ends` ends of edges, and `dests` destinations: checked
/// before the table is built. Building it searches the transit nodes once per destination.
/// Bytes one node costs from its TOML text to the end of a run (the document, the resolved
/// scenario, the node's host state), measured: 2e5 isolated nodes added to
/// reference-simple2 raised the peak resident memory by 2.2 KB each (1.7 KB by the end of
/// resolution, 0.5 KB more in the run).
pub const NODE_BYTES: f64 = 2200.0;

/// The nodes' own memory (`NODE_BYTES` each).
pub fn nodes_item(n: usize) -> Item {
    Item {
        path: "nodes".into(),
        what: format!("{n} nodes take about {}", fmt_bytes(n as f64 * NODE_BYTES)),
        count: n as f64,
        unit: "nodes",
        bytes: n as f64 * NODE_BYTES,
        events: 0.0,
        hint: "use fewer nodes".into(),
    }
}

pub fn route_item(n: usize, transit: usize, edge_ends: usize, dests: usize) -> Item {
    let bytes = RouteTable::bytes(n, transit, dests) as f64;
    let entries = transit as f64 * dests as f64;
    Item {
        path: "nodes".into(),
        what: format!("{n} nodes ({transit} with more than one neighbour) and {dests} flow end points give a route table of {} entries", fmt_count(entries)),
        count: entries,
        unit: "route table entries",
        bytes,
        events: dests as f64 * (transit + edge_ends) as f64,
        hint: "use fewer routers or fewer distinct flow end points".into(),
    }
}

/// The station pairs of 802.11 channel `c` with `stations` stations: checked before the
/// pairs in range are listed.
pub fn wifi_item(c: usize, stations: usize) -> Item {
    let s = stations as f64;
    Item {
        path: format!("wifi.{c}.stations"),
        what: format!("{stations} stations give up to {} neighbour pairs", fmt_count(s * (s - 1.0) / 2.0)),
        count: s * s,
        unit: "station pairs",
        bytes: s * s * 48.0,
        events: s * s,
        hint: "use fewer stations on one channel".into(),
    }
}

/// Where a TCP option of flow entry `entry` was set: its own `tcp` table or the global one.
fn tcp_path(doc: &Value, entry: usize, field: &str) -> String {
    let own = doc.get("flows").and_then(|f| f.get(entry)).and_then(|f| f.get("tcp")).and_then(|t| t.get(field)).is_some();
    if own {
        format!("flows.{entry}.tcp.{field}")
    } else {
        format!("tcp.{field}")
    }
}

/// Estimate a resolved scenario. `entry_of[k]` is the `[[flows]]` entry flow `k` came from.
pub fn estimate(sc: &Scenario, entry_of: &[usize], traces: TraceStore) -> Estimate {
    let mut items = Vec::new();
    let mut disk = Vec::new();
    let duration = secs(sc.duration);
    let dirs = sc.links.len() * 2;

    // Route table (already checked on its own before it was built; counted in the total).
    // The route table is checked when it is built (`route_item`) and shared by every run.

    items.push(nodes_item(sc.nodes.len()));

    // 802.11 neighbour pairs.
    for (c, w) in sc.wifi.iter().enumerate() {
        items.push(wifi_item(c, w.stations.len()));
    }

    // Packets the network can hold at once: queues and pipes (bandwidth x delay).
    let mut queue_packets = 0.0;
    let mut pipe_packets = 0.0;
    let mut capacity_packets = 0.0; // packets all links can carry over the run
    let held = |q: &crate::scenario::QueueCfg| match (q.limit_packets, q.limit_bytes) {
        (Some(p), _) => p as f64,
        (_, Some(b)) => b as f64 / MIN_PACKET,
        _ => 0.0,
    };
    for l in &sc.links {
        queue_packets += 2.0 * held(&l.queue);
        pipe_packets += 2.0 * (l.rate_bps * secs(l.delay) / (8.0 * MIN_PACKET)).ceil();
        capacity_packets += 2.0 * l.rate_bps * duration / (8.0 * MIN_PACKET);
    }
    for w in &sc.wifi {
        queue_packets += w.queues.iter().map(held).sum::<f64>();
        capacity_packets += f64::from(w.config.data_kbps) * 1e3 * duration / (8.0 * MIN_PACKET);
    }
    let network_packets = queue_packets + pipe_packets;

    // Per flow: fixed state, outstanding segments, algorithm state, and packets sent.
    let mut cc_vars: HashMap<&'static str, usize> = HashMap::new();
    let mut vars_total = 0.0;
    let mut window_segments = 0.0; // what the buffers allow
    let mut initial_segments = 0.0; // initial windows within them
    let mut biggest_window: Option<(f64, usize, usize)> = None; // (segments, flow, entry)
    let mut extra_cc = 0.0;
    let mut biggest_cc: Option<(f64, usize)> = None;
    let mut tcp_events = 0.0;
    let mut tcp_flows = 0usize;
    for (k, f) in sc.flows.iter().enumerate() {
        let entry = entry_of[k];
        let active = secs(f.stop.unwrap_or(sc.duration).min(sc.duration).saturating_sub(f.start));
        let (hops, wifi_hops, bottleneck_bps) = path_of(sc, f.src, f.dst);
        match &f.app {
            FlowApp::Tcp(t) => {
                tcp_flows += 1;
                let mss = f64::from(t.tcp.mss);
                let w = (t.tcp.send_buffer_bytes.min(t.tcp.recv_buffer_bytes) as f64 / mss).ceil() + 1.0;
                window_segments += w;
                initial_segments += t.tcp.initial_cwnd_segments.min(w);
                if biggest_window.is_none_or(|(b, _, _)| w > b) {
                    biggest_window = Some((w, k, entry));
                }
                let extra = t.cc.extra_state_bytes() as f64;
                extra_cc += extra;
                if extra > 0.0 && biggest_cc.is_none_or(|(b, _)| extra > b) {
                    biggest_cc = Some((extra, entry));
                }
                let n = *cc_vars.entry(t.cc.name()).or_insert_with(|| {
                    let mut out = Vec::new();
                    // A user algorithm is not built (run) to count its variables: its traces
                    // are not in the estimate (docs/new-algorithm.md says so).
                    if !matches!(t.cc, CcConfig::User(_)) {
                        CcConfig::default_for(t.cc.name()).map(|c| c.build().trace_vars(&mut out)).ok();
                    }
                    out.len()
                });
                vars_total += n as f64;
                // Data segments at the path's bottleneck rate, and an ACK for each; a finite
                // transfer (`bytes = N`) sends no more than its segments, counted twice for
                // retransmissions.
                let size = mss + f64::from(t.tcp.packet_overhead());
                let mut packets = bottleneck_bps * active / (8.0 * size);
                if let Some(bytes) = t.bytes.filter(|&b| b > 0) {
                    packets = packets.min(2.0 * (bytes as f64 / mss).ceil() + 2.0);
                }
                tcp_events += 2.0 * packets * (hops as f64 * EVENTS_PER_HOP + wifi_hops as f64 * EVENTS_PER_WIFI_HOP + 2.0);
            }
            FlowApp::Cbr(c) => {
                let packets = c.rate_bps * active / (8.0 * f64::from(c.packet_bytes));
                let held = packets.min(queue_packets);
                items.push(Item {
                    path: format!("flows.{entry}.rate_mbps"),
                    what: format!(
                        "a CBR flow at {} Mb/s of {}-byte packets for {} s sends {} packets, up to {} of them held in queues",
                        fmt_num(c.rate_bps / 1e6),
                        c.packet_bytes,
                        fmt_num(active),
                        fmt_count(packets),
                        fmt_count(held)
                    ),
                    count: packets,
                    unit: "packets",
                    bytes: held * packet_bytes(),
                    events: packets * (hops as f64 * EVENTS_PER_HOP + wifi_hops as f64 * EVENTS_PER_WIFI_HOP + 1.0),
                    hint: format!("lower flows.{entry}.rate_mbps or raise flows.{entry}.packet_bytes"),
                });
            }
        }
        if let Some(o) = &f.on_off {
            let cycle = secs(o.on + o.off);
            items.push(Item {
                path: format!("flows.{entry}.on_off"),
                what: format!("on/off periods of {} s and {} s over {} s", fmt_num(secs(o.on)), fmt_num(secs(o.off)), fmt_num(active)),
                count: active / cycle,
                unit: "on/off cycles",
                bytes: 0.0,
                events: 2.0 * active / cycle,
                hint: format!("lengthen flows.{entry}.on_off.on_s and off_s"),
            });
        }
    }
    let flows = sc.flows.len() as f64;
    items.push(Item {
        path: "flows".into(),
        what: format!("{} flows", sc.flows.len()),
        count: flows,
        unit: "flows",
        bytes: flows * FLOW_BYTES,
        events: flows,
        hint: "use fewer flows (count)".into(),
    });
    if let Some((_, entry)) = biggest_cc {
        items.push(Item {
            path: format!("flows.{entry}.cc_params.history"),
            what: format!("the algorithms' sample histories take {}", fmt_bytes(extra_cc)),
            count: extra_cc / 24.0,
            unit: "samples",
            bytes: extra_cc,
            events: 0.0,
            hint: "lower cc_params.history".into(),
        });
    }
    if let Some((w, k, entry)) = biggest_window {
        // Windows grow only as ACKs return: beyond the initial windows, what is outstanding
        // is in the network or lost from it (at most twice what it holds, slow start's
        // overshoot), and never more than the buffers allow.
        let segments = window_segments.min(initial_segments + 2.0 * network_packets);
        let FlowApp::Tcp(t) = &sc.flows[k].app else { unreachable!("the biggest window is a TCP flow's") };
        let fields = [
            tcp_path(&sc.document, entry, "initial_cwnd_segments"),
            tcp_path(&sc.document, entry, "send_buffer_bytes"),
            tcp_path(&sc.document, entry, "recv_buffer_bytes"),
        ];
        items.push(Item {
            // The binding bound names the field: the buffers, or the initial windows.
            path: if window_segments <= initial_segments + 2.0 * network_packets { fields[1].clone() } else { fields[0].clone() },
            what: format!(
                "up to {} segments outstanding at once ({} = {}, {} = {}, {} = {} allow {} per flow, {} in all)",
                fmt_count(segments),
                fields[0],
                fmt_num(t.tcp.initial_cwnd_segments),
                fields[1],
                fmt_num(t.tcp.send_buffer_bytes as f64),
                fields[2],
                fmt_num(t.tcp.recv_buffer_bytes as f64),
                fmt_count(w),
                fmt_count(window_segments)
            ),
            count: segments,
            unit: "outstanding segments",
            bytes: segments * segment_bytes(),
            events: segments,
            hint: format!("lower {}, {} or {}", fields[0], fields[1], fields[2]),
        });
    }
    if tcp_flows > 0 {
        // Transmissions cannot exceed what all links can carry in the run.
        let events = tcp_events.min(capacity_packets * EVENTS_PER_WIFI_HOP);
        items.push(Item {
            path: "run.duration_s".into(),
            what: format!("{tcp_flows} TCP flows at their paths' bottleneck rates (finite transfers: their segments) for {} s", fmt_num(duration)),
            count: duration,
            unit: "simulated seconds",
            bytes: 0.0,
            events,
            hint: "shorten run.duration_s or use slower links".into(),
        });
    }

    // Traces: a flow row per flow, a row per congestion-control variable and a queue row per
    // link direction, every interval.
    if let Some(iv) = sc.trace_interval {
        let samples = duration / secs(iv) + 1.0;
        let rows = flows + vars_total + dirs as f64;
        let bytes = samples * (flows * FLOW_ROW_BYTES + vars_total * CC_ROW_BYTES + dirs as f64 * QUEUE_ROW_BYTES);
        let csv_bytes = samples * (flows * FLOW_ROW_CSV + vars_total * CC_ROW_CSV + dirs as f64 * QUEUE_ROW_CSV);
        // The interval as given (the clock rounds it to whole nanoseconds, at least one).
        let interval_ms = sc.document.get("trace").and_then(|t| t.get("interval_ms")).and_then(|v| v.as_float().or(v.as_integer().map(|i| i as f64))).unwrap_or(secs(iv) * 1e3);
        let item = Item {
            path: "trace.interval_ms".into(),
            what: format!(
                "{} ms over {} s gives {} samples of {} rows, {} trace rows",
                fmt_num(interval_ms),
                fmt_num(duration),
                fmt_count(samples),
                rows,
                fmt_count(samples * rows)
            ),
            count: samples * rows,
            unit: "trace rows",
            bytes,
            events: samples * rows,
            hint: "raise trace.interval_ms, shorten run.duration_s or turn trace.enabled off".into(),
        };
        match traces {
            TraceStore::Memory => items.push(item),
            TraceStore::Disk => {
                // In memory, one chunk at most (its rows taken as flow rows, the widest).
                let chunk = bytes.min(TRACE_CHUNK_ROWS as f64 * FLOW_ROW_BYTES);
                disk.push(Item { bytes: csv_bytes, events: 0.0, ..item.clone() });
                items.push(Item { bytes: chunk, ..item });
            }
        }
    }

    // Random outages: two events each.
    for (i, l) in sc.links.iter().enumerate() {
        for (d, name) in ["ab", "ba"].iter().enumerate() {
            if let Some(r) = &l.dirs[d].random_outages {
                let span = (duration - secs(r.from)).max(0.0);
                let count = span / r.mean_interval;
                // Outages overlap when they come faster than they last: the end of every
                // outage in progress waits in the event heap (which doubles as it grows).
                let pending = count.min((secs(r.duration) / r.mean_interval).ceil() + 1.0);
                items.push(Item {
                    path: format!("links.{i}.{name}.random_outages.count_per_200s"),
                    what: format!(
                        "{} outages per 200 s over {} s gives {} outages, up to {} of them in progress at once",
                        fmt_num(200.0 / r.mean_interval),
                        fmt_num(span),
                        fmt_count(count),
                        fmt_count(pending)
                    ),
                    count,
                    unit: "outages",
                    bytes: 2.0 * pending * EventQueue::ENTRY_BYTES as f64,
                    events: 2.0 * count,
                    hint: format!("lower links.{i}.{name}.random_outages.count_per_200s"),
                });
            }
        }
    }
    Estimate { items, disk }
}

/// Hops over links and over 802.11, and the bottleneck rate (bit/s) of the path src -> dst.
pub(crate) fn path_of(sc: &Scenario, src: usize, dst: usize) -> (usize, usize, f64) {
    let (mut links, mut wifi, mut rate) = (0usize, 0usize, f64::INFINITY);
    let mut at = src;
    while at != dst && links + wifi <= sc.nodes.len() {
        match sc.routes.next_hop(at, dst) {
            Some(Hop::Link(d)) => {
                let l = &sc.links[d as usize / 2];
                rate = rate.min(l.rate_bps);
                links += 1;
                at = if d % 2 == 0 { l.b } else { l.a };
            }
            Some(Hop::Wifi { channel, to, .. }) => {
                let w = &sc.wifi[channel as usize];
                rate = rate.min(f64::from(w.config.data_kbps) * 1e3);
                wifi += 1;
                at = w.stations[to as usize].0;
            }
            None => break,
        }
    }
    (links, wifi, if rate.is_finite() { rate } else { 0.0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_million_nodes_are_over_the_default_memory_budget() {
        // The measured 2.2 KB a node: 2e6 isolated nodes once aborted a 4 GiB process.
        let limits = Limits { memory_bytes: DEFAULT_MEMORY_GIB * GIB, events: DEFAULT_EVENTS, disk_bytes: DEFAULT_DISK_GIB * GIB };
        let e = Estimate { items: vec![nodes_item(2_000_000)], ..Default::default() }.check(&limits).unwrap_err();
        assert_eq!(e.path, "nodes");
        assert!(e.message.contains("2000000 nodes take about"), "{}", e.message);
        Estimate { items: vec![nodes_item(100_000)], ..Default::default() }.check(&limits).unwrap();
    }
}
