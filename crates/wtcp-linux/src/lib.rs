//! The Linux engine: a scenario's flows as the machine's own kernel sockets, one network
//! namespace per flow end, over wtcp's link models run in real time by a relay
//! (`relay.rs`). The same scenario file as the simulator, the same metrics JSON
//! (`"engine": "linux"`, with the kernel's release), the kernel's own counters
//! (`TCP_INFO` per socket, the namespace's MIB).
//!
//! Wall time equals simulated time: a 30 s scenario takes 30 s. Runs are sequential (one
//! kernel). Needs root, network namespaces and `/dev/net/tun`; nothing is left behind,
//! whatever ends the process (`netns.rs`).
//!
//! Each flow end is a host of its own (namespace, TUN device, address 10.77.0.0/16), at
//! the scenario node the flow names: two flows from one node share that node's links and
//! queues in the relay, but not a kernel stack, so every kernel counter is the flow's.
//!
//! Deviations and ambiguities resolved:
//! - Fast retransmits are the kernel's recovery episodes (`TcpExt.TCPSackRecovery` +
//!   `TCPRenoRecovery` of the sender's namespace), as wtcp counts one per recovery.
//! - Timeouts are `tcpi_total_rto` (Linux 6.7+), else `TcpExt.TCPTimeouts`.
//! - Data a flow's receiver already held (`unnecessary_retransmissions`) is not known
//!   to the kernel: null; `dsacks` is the sender's `tcpi_dsack_dups`.
//! - A flow's throughput is counted by the relay as the simulator counts it: the IP bytes
//!   of data its source's first link finished sending inside the window.

pub mod clock;
pub mod flows;
pub mod info;
pub mod netns;
pub mod plan;
pub mod relay;
pub mod route;
pub mod sock;
pub mod trace;

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{json, Value};
use wtcp_engine::net::DropCause;
use wtcp_engine::scenario::{Scenario, ScenarioError};
use wtcp_engine::time::Time;
use wtcp_engine::Traces;

use crate::clock::Clock;
use crate::flows::{Slots, UdpStats};
use crate::info::TcpInfo;
use crate::netns::Netns;
use crate::plan::FlowPlan;
use crate::relay::{endpoint_addr, Endpoint, Relay};

/// Why a run could not happen.
#[derive(Debug)]
pub enum EngineError {
    /// The scenario asks for something the kernel cannot be told (field path, message).
    Scenario(ScenarioError),
    /// The machine lacks what the engine needs (root, namespaces, TUN).
    Unavailable(String),
    /// A system call failed during the run.
    Io(io::Error),
}

impl From<ScenarioError> for EngineError {
    fn from(e: ScenarioError) -> Self {
        EngineError::Scenario(e)
    }
}

impl From<io::Error> for EngineError {
    fn from(e: io::Error) -> Self {
        EngineError::Io(e)
    }
}

/// The kernel's congestion controls (`tcp_available_congestion_control`).
pub fn available_algorithms() -> Vec<String> {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control").map(|s| s.split_whitespace().map(String::from).collect()).unwrap_or_default()
}

/// The kernel's release (`uname -r`).
pub fn kernel_release() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease").map(|s| s.trim().to_string()).unwrap_or_else(|_| "unknown".into())
}

/// Check `sc` against the kernel without running it.
pub fn check(sc: &Scenario) -> Result<Vec<FlowPlan>, EngineError> {
    Ok(plan::plan(sc, &available_algorithms())?)
}

/// One flow's hosts.
struct FlowHosts {
    sender: Netns,
    receiver: Netns,
    /// TCP: the sender's unconnected socket; UDP: its socket.
    send_fd: std::os::fd::OwnedFd,
    /// TCP: the listener; UDP: the bound socket.
    recv_fd: std::os::fd::OwnedFd,
}

fn make_hosts(i: usize, p: &FlowPlan) -> io::Result<(FlowHosts, std::os::fd::OwnedFd, std::os::fd::OwnedFd)> {
    let (s_addr, r_addr) = (endpoint_addr(2 * i), endpoint_addr(2 * i + 1));
    let (mtu, sysctls, initcwnd): (u32, &[(&str, String)], Option<u32>) = match p {
        FlowPlan::Tcp { mtu, sysctls, initcwnd, .. } => (*mtu, sysctls, Some(*initcwnd)),
        FlowPlan::Cbr { payload_bytes, .. } => ((payload_bytes + 28).max(1500), &[], None),
    };
    let setup = |addr: [u8; 4]| -> io::Result<std::os::fd::OwnedFd> {
        let tun = netns::tun_device(addr, 16, mtu)?;
        for (k, v) in sysctls {
            netns::sysctl(k, v)?;
        }
        Ok(tun)
    };
    let sender = Netns::new()?;
    let receiver = Netns::new()?;
    let (s_tun, send_fd) = sender.run(|| {
        let tun = setup(s_addr)?;
        if let Some(iw) = initcwnd {
            route::set_metrics([10, 77, 0, 0], 16, netns::TUN_NAME, s_addr, &[(route::RTAX_INITCWND, iw)])?;
        }
        let fd = match p {
            FlowPlan::Tcp { cc, .. } => sock::tcp_sender(cc)?,
            FlowPlan::Cbr { .. } => sock::udp(s_addr, 0)?,
        };
        Ok((tun, fd))
    })?;
    let (r_tun, recv_fd) = receiver.run(|| {
        let tun = setup(r_addr)?;
        // A first flight above Linux's 10 segments needs the receiver's first window too.
        if let Some(iw) = initcwnd.filter(|&iw| iw > 10) {
            route::set_metrics([10, 77, 0, 0], 16, netns::TUN_NAME, r_addr, &[(route::RTAX_INITRWND, iw)])?;
        }
        let fd = match p {
            FlowPlan::Tcp { .. } => sock::tcp_listener(r_addr)?,
            FlowPlan::Cbr { .. } => sock::udp(r_addr, sock::PORT)?,
        };
        Ok((tun, fd))
    })?;
    Ok((FlowHosts { sender, receiver, send_fd, recv_fd }, s_tun, r_tun))
}

/// Counters of one TCP flow at one instant: its receiver's in-order bytes.
#[derive(Clone, Copy, Default)]
struct Snapshot {
    received: u64,
}

fn sender_info(slots: &Slots) -> Option<TcpInfo> {
    let fd = slots.sender_fd.load(Ordering::Acquire);
    (fd >= 0).then(|| TcpInfo::of(fd).ok().map(|(i, _)| i)).flatten()
}

fn receiver_info(slots: &Slots) -> Option<TcpInfo> {
    let fd = slots.receiver_fd.load(Ordering::Acquire);
    (fd >= 0).then(|| TcpInfo::of(fd).ok().map(|(i, _)| i)).flatten()
}

fn snapshot(slots: &Slots) -> Snapshot {
    Snapshot { received: receiver_info(slots).map_or(0, |i| i.bytes_received) }
}

/// Run `sc` on the kernel: the metrics JSON (wtcp's schema, `"engine": "linux"`) and,
/// when the scenario traces, the time series (`trace.rs`).
pub fn run(sc: &Scenario, stop: &AtomicBool) -> Result<(String, Option<Traces>), EngineError> {
    let plans = check(sc)?;
    netns::check_privileges().map_err(EngineError::Unavailable)?;
    let mut hosts = Vec::with_capacity(plans.len());
    let mut endpoints = Vec::with_capacity(plans.len() * 2);
    for (i, p) in plans.iter().enumerate() {
        let (h, s_tun, r_tun) = make_hosts(i, p)?;
        endpoints.push(Endpoint { node: sc.flows[i].src as u32, flow: i as u32, tun: s_tun });
        endpoints.push(Endpoint { node: sc.flows[i].dst as u32, flow: i as u32, tun: r_tun });
        hosts.push(h);
    }
    let slots: Vec<Slots> = plans.iter().map(|_| Slots::new()).collect();
    let end = sc.duration;
    let (from, to) = (sc.measure_from, sc.measure_to);
    let done = AtomicBool::new(false);
    let quit = || done.load(Ordering::Relaxed) || stop.load(Ordering::Relaxed);
    let clock = Clock::start();
    let wall = std::time::Instant::now();
    let mut relay = Relay::new(sc, endpoints);
    let mut udp_stats: Vec<Option<UdpStats>> = plans.iter().map(|_| None).collect();
    let mut at_from = vec![Snapshot::default(); plans.len()];
    let mut at_to = vec![Snapshot::default(); plans.len()];
    let mut srtt_sum = vec![(0.0f64, 0u64); plans.len()];
    let mut max_backoff = vec![0u64; plans.len()];
    let dir_names: Vec<String> = relay.dirs.iter().map(|d| format!("{}:{}->{}", sc.links[d.id as usize / 2].name, sc.nodes[d.from as usize], sc.nodes[d.to as usize])).collect();
    let mut traces = sc.trace_interval.map(|_| trace::empty(dir_names));
    let relay_result = std::thread::scope(|s| -> io::Result<()> {
        let relay_handle = s.spawn(|| relay.run(&clock, end, &done));
        let mut workers = Vec::new();
        let mut udp_receivers = Vec::new();
        for (i, (p, h)) in plans.iter().zip(hosts.iter_mut()).enumerate() {
            let f = &sc.flows[i];
            let stop_at = f.stop.unwrap_or(end).min(end);
            let to_addr = endpoint_addr(2 * i + 1);
            let send_fd = h.send_fd.try_clone()?;
            let recv_fd = h.recv_fd.try_clone()?;
            let (slots, done) = (&slots[i], &done);
            let at = flows::Schedule { to: to_addr, clock, start: f.start, stop_at };
            match p {
                FlowPlan::Tcp { bytes, .. } => {
                    workers.push(s.spawn(move || flows::tcp_send(send_fd, at, *bytes, slots, done)));
                    workers.push(s.spawn(move || flows::tcp_receive(recv_fd, *bytes, clock, slots, done)));
                }
                FlowPlan::Cbr { rate_bps, payload_bytes } => {
                    let (rate, payload) = (*rate_bps, *payload_bytes);
                    workers.push(s.spawn(move || flows::udp_send(send_fd, at, rate, payload, done, &slots.datagrams_sent)));
                    udp_receivers.push((i, s.spawn(move || flows::udp_receive(std::os::fd::AsRawFd::as_raw_fd(&recv_fd), clock, from, to, sc.delay_metrics, done))));
                }
            }
        }
        // The sampler, until the end: the window's edges (each taken after sleeping to
        // it), every 10 ms each flow's backoff (and SRTT inside the window), and the
        // traces every interval.
        let mut next_tick: Time = 0;
        let mut next_trace = sc.trace_interval.map(|_| 0);
        let (mut from_done, mut to_done) = (false, false);
        while !quit() {
            let mut next = end;
            for t in [(!from_done).then_some(from), (!to_done).then_some(to), Some(next_tick), next_trace] {
                next = next.min(t.unwrap_or(end));
            }
            clock.sleep_until(next);
            if !from_done && next >= from {
                for (i, sl) in slots.iter().enumerate() {
                    at_from[i] = snapshot(sl);
                }
                from_done = true;
            }
            if !to_done && next >= to {
                for (i, sl) in slots.iter().enumerate() {
                    at_to[i] = snapshot(sl);
                }
                to_done = true;
            }
            if next >= end {
                break;
            }
            if next == next_tick {
                for (i, sl) in slots.iter().enumerate() {
                    let Some(info) = sender_info(sl) else { continue };
                    max_backoff[i] = max_backoff[i].max(u64::from(info.backoff));
                    if (from..to).contains(&next) && info.rtt > 0 {
                        srtt_sum[i].0 += f64::from(info.rtt) / 1e6;
                        srtt_sum[i].1 += 1;
                    }
                }
                next_tick += 10_000_000;
            }
            if let (Some(t), Some(iv), Some(tr)) = (next_trace, sc.trace_interval, traces.as_mut()) {
                if t == next {
                    for (i, sl) in slots.iter().enumerate() {
                        if let Some(si) = sender_info(sl) {
                            trace::push_flow(tr, clock.now(), i as u32, &si, receiver_info(sl).as_ref());
                        }
                    }
                    next_trace = Some(t + iv);
                }
            }
        }
        done.store(true, Ordering::Relaxed);
        let relayed = relay_handle.join().map_err(|_| io::Error::other("relay thread panicked"))?;
        for w in workers {
            w.join().map_err(|_| io::Error::other("flow thread panicked"))??;
        }
        for (i, r) in udp_receivers {
            udp_stats[i] = Some(r.join().map_err(|_| io::Error::other("flow thread panicked"))?);
        }
        relayed
    });
    relay_result?;
    let wall_seconds = wall.elapsed().as_secs_f64();
    let mut rows = Vec::with_capacity(plans.len());
    let mut warnings: Vec<String> = Vec::new();
    for (i, p) in plans.iter().enumerate() {
        if let (FlowPlan::Tcp { initcwnd, mtu, .. }, wtcp_engine::scenario::FlowApp::Tcp(t)) = (p, &sc.flows[i].app) {
            if u64::from(*initcwnd) * u64::from(t.tcp.mss) > 65535 {
                warnings.push(format!("flow `{}`: an initial window of {initcwnd} segments of {} bytes (MTU {mtu}) exceeds the 64 KiB a SYN-ACK's unscaled window can offer (RFC 7323 §2.2): the kernel's first flight is smaller", sc.flows[i].name, t.tcp.mss));
            }
        }
    }
    if sc.delay_metrics {
        warnings.push("metrics.delays: the linux engine measures one-way delays of CBR flows only (sender's clock to the kernel's arrival stamp); TCP flows' delay fields are null".into());
    }
    let window = (to - from) as f64 / 1e9;
    for (i, p) in plans.iter().enumerate() {
        let f = &sc.flows[i];
        let row = match p {
            FlowPlan::Tcp { cc, .. } => {
                let mib = hosts[i].sender.run(info::mib)?;
                let s_fd = slots[i].sender_fd.load(Ordering::Acquire);
                let (si, has_rto) = if s_fd >= 0 { TcpInfo::of(s_fd)? } else { (TcpInfo::default(), false) };
                let r_fd = slots[i].receiver_fd.load(Ordering::Acquire);
                let ri = if r_fd >= 0 { TcpInfo::of(r_fd)?.0 } else { TcpInfo::default() };
                let m = |k: &str| mib.get(k).copied().unwrap_or(0);
                let timeouts = if has_rto { u64::from(si.total_rto) } else { m("TcpExt.TCPTimeouts") };
                let (a, b) = (at_from[i], at_to[i]);
                if let Some(e) = slots[i].connect_error.lock().expect("slot").as_ref() {
                    warnings.push(format!("flow `{}` did not connect: {e}", f.name));
                } else if ri.bytes_received == 0 {
                    warnings.push(format!("flow `{}` delivered no data", f.name));
                }
                let srtt = (srtt_sum[i].1 > 0).then(|| srtt_sum[i].0 / srtt_sum[i].1 as f64);
                let at_connect = *slots[i].at_connect.lock().expect("slot");
                tcp_row(i, f, sc, cc, at_connect, TcpNumbers {
                    goodput_bps: (b.received - a.received) as f64 * 8.0 / window,
                    throughput_bps: relay.stats.put_on_wire[i] as f64 * 8.0 / window,
                    delivered: ri.bytes_received,
                    segments_sent: u64::from(si.data_segs_out),
                    retransmitted: u64::from(si.total_retrans),
                    fast_retransmits: m("TcpExt.TCPSackRecovery") + m("TcpExt.TCPRenoRecovery"),
                    timeouts,
                    mib_timeouts: m("TcpExt.TCPTimeouts"),
                    undo: UNDO_COUNTERS.map(|(_, name)| m(name)),
                    max_backoff: max_backoff[i].max(u64::from(si.backoff)),
                    dsacks: u64::from(si.dsack_dups),
                    loss_probes: m("TcpExt.TCPLossProbes"),
                    fct_s: slots[i].completed_at.lock().expect("slot").map(|t| t.saturating_sub(f.start) as f64 / 1e9),
                    srtt,
                })
            }
            FlowPlan::Cbr { .. } => {
                let st = udp_stats[i].take().unwrap_or_default();
                if st.packets == 0 {
                    warnings.push(format!("flow `{}` delivered no data", f.name));
                }
                cbr_row(i, f, sc, &st, window, slots[i].datagrams_sent.load(Ordering::Relaxed))
            }
        };
        rows.push(row);
    }
    let goodputs: Vec<f64> = sc.fairness_flows.iter().map(|&i| rows[i]["goodput_bps"].as_f64().unwrap_or(0.0)).collect();
    let sq: f64 = goodputs.iter().map(|x| x * x).sum();
    let jain = (!goodputs.is_empty() && sq > 0.0).then(|| goodputs.iter().sum::<f64>().powi(2) / (goodputs.len() as f64 * sq));
    let drops: Vec<Value> = relay
        .dirs
        .iter()
        .map(|d| {
            let l = &sc.links[d.id as usize / 2];
            json!({
                "link": l.name,
                "from": sc.nodes[d.from as usize],
                "to": sc.nodes[d.to as usize],
                "queue": d.stats.drops[DropCause::Queue.index()],
                "channel": d.stats.drops[DropCause::Channel.index()],
                "outage": d.stats.drops[DropCause::Outage.index()],
                "tx_packets": d.stats.tx_packets,
                "arq_retries": d.stats.retries,
                "retry_limit_drops": d.stats.retry_limit_drops,
                "sojourn_mean_ms": null,
                "sojourn_p95_ms": null,
            })
        })
        .collect();
    let mut tun_dropped = 0;
    for h in &hosts {
        tun_dropped += h.sender.run(netns::tun_tx_dropped)? + h.receiver.run(netns::tun_tx_dropped)?;
    }
    if tun_dropped > 0 {
        warnings.push(format!("{tun_dropped} packets were dropped by the hosts' TUN devices before the relay read them (relay.tun_tx_dropped): losses outside the scenario's network"));
    }
    let st = &relay.stats;
    if let (Some(tr), Some(relayed)) = (traces.as_mut(), relay.traces.take()) {
        trace::merge_relay(tr, relayed);
    }
    let metrics = json!({
        "engine": "linux",
        "engine_version": kernel_release(),
        "scenario": sc.name,
        "profile": sc.profile,
        "seed": sc.seed,
        "replication": sc.replication,
        "flows": rows,
        "jain_fairness": jain,
        "drops": drops,
        "wifi": [],
        "events": st.events,
        "sim_seconds": end as f64 / 1e9,
        "wall_seconds": wall_seconds,
        "loop_cpu_seconds": null,
        "peak_packets": null,
        "relay": {
            "packets_in": st.packets_in,
            "packets_out": st.packets_out,
            "foreign_packets": st.foreign,
            "write_errors": st.write_errors,
            "tun_tx_dropped": tun_dropped,
            "max_late_ms": st.max_late_ns as f64 / 1e6,
            "events": st.events,
            "events_late_over_0_1_ms": st.late_100us,
            "events_late_over_1_ms": st.late_1ms,
        },
        "warnings": warnings,
    })
    .to_string();
    Ok((metrics, traces))
}

/// What Linux undid or found spurious, which wtcp's `linux` profile does not model (undo on
/// D-SACK or timestamps) or counts elsewhere, for `flows[i].kernel.undo`: the result's key
/// and the MIB counter (include/uapi/linux/snmp.h).
const UNDO_COUNTERS: [(&str, &str); 6] = [
    ("full", "TcpExt.TCPFullUndo"),
    ("partial", "TcpExt.TCPPartialUndo"),
    ("dsack", "TcpExt.TCPDSACKUndo"),
    ("loss", "TcpExt.TCPLossUndo"),
    ("spurious_rtos", "TcpExt.TCPSpuriousRTOs"),
    ("loss_probe_recoveries", "TcpExt.TCPLossProbeRecovery"),
];

struct TcpNumbers {
    goodput_bps: f64,
    throughput_bps: f64,
    delivered: u64,
    segments_sent: u64,
    retransmitted: u64,
    fast_retransmits: u64,
    timeouts: u64,
    /// The sender namespace's `TcpExt.TCPTimeouts` (every RTO, a SYN's too), beside
    /// `tcpi_total_rto`, so that a reader can check one counter against the other.
    mib_timeouts: u64,
    /// The sender namespace's undo and spurious-loss counters (`UNDO_COUNTERS`).
    undo: [u64; UNDO_COUNTERS.len()],
    max_backoff: u64,
    dsacks: u64,
    /// The sender namespace's `TcpExt.TCPLossProbes`.
    loss_probes: u64,
    /// From the flow's start (its connect) to the receiving application's read of the
    /// last byte of a finite transfer.
    fct_s: Option<f64>,
    srtt: Option<f64>,
}

fn causes() -> Value {
    json!({"congestion": null, "wireless": null, "spurious": null})
}

fn verdicts() -> Value {
    json!({"congestion": null, "wireless": null, "none": null})
}

fn delay_fields(row: &mut Value, delays_ns: Option<&mut Vec<u64>>) {
    let keys = ["delay_mean_ms", "delay_p50_ms", "delay_p95_ms", "delay_p99_ms", "rtt_p50_ms", "rtt_p95_ms", "rtt_p99_ms"];
    for k in keys {
        row[k] = Value::Null;
    }
    if let Some(d) = delays_ns.filter(|d| !d.is_empty()) {
        d.sort_unstable();
        let q = |p: f64| d[((d.len() - 1) as f64 * p).round() as usize] as f64 / 1e6;
        row["delay_mean_ms"] = json!(d.iter().map(|&x| x as f64).sum::<f64>() / d.len() as f64 / 1e6);
        row["delay_p50_ms"] = json!(q(0.5));
        row["delay_p95_ms"] = json!(q(0.95));
        row["delay_p99_ms"] = json!(q(0.99));
    }
}

fn tcp_row(i: usize, f: &wtcp_engine::scenario::FlowCfg, sc: &Scenario, cc: &str, at_connect: Option<(u32, u32, u32)>, n: TcpNumbers) -> Value {
    // The scenario's name: `kernel:NAME` for the kernel's own algorithm.
    let name = match &f.app {
        wtcp_engine::scenario::FlowApp::Tcp(t) => match &t.kernel_cc {
            Some(k) => format!("{}{}", wtcp_engine::scenario::KERNEL_CC_PREFIX, k.name),
            None => t.cc.name().to_string(),
        },
        wtcp_engine::scenario::FlowApp::Cbr(_) => "-".to_string(),
    };
    let mut row = json!({
        "id": i,
        "name": f.name,
        "kind": "tcp",
        "cc": name,
        // What the kernel ran: its algorithm, and its window, MSS and RTO when it connected.
        "kernel": {"cc": cc, "initial_cwnd_segments": at_connect.map(|c| c.0), "mss_bytes": at_connect.map(|c| c.1), "rto_at_connect_s": at_connect.map(|c| f64::from(c.2) / 1e6), "mib_timeouts": n.mib_timeouts,
            "undo": UNDO_COUNTERS.iter().zip(n.undo).map(|((key, _), v)| (key.to_string(), json!(v))).collect::<serde_json::Map<_, _>>()},
        "src": sc.nodes[f.src],
        "dst": sc.nodes[f.dst],
        "goodput_bps": n.goodput_bps,
        "throughput_bps": n.throughput_bps,
        "delivered_bytes": n.delivered,
        "segments_sent": n.segments_sent,
        "retransmitted_segments": n.retransmitted,
        "unnecessary_retransmissions": null,
        "fast_retransmits": n.fast_retransmits,
        "timeouts": n.timeouts,
        "max_backoff": n.max_backoff,
        "fast_retransmit_causes": causes(),
        "timeout_causes": causes(),
        "loss_verdicts": verdicts(),
        "verdicts_by_cause": {"congestion": verdicts(), "wireless": verdicts(), "spurious": verdicts()},
        "frto_spurious_timeouts": null,
        "mac_hints": 0,
        "dsacks": n.dsacks,
        "loss_probes": n.loss_probes,
        "syns_sent": null,
        "handshake_s": null,
        "fct_s": n.fct_s,
        "mean_srtt_s": n.srtt,
        "packets_received": null,
    });
    delay_fields(&mut row, None);
    row
}

fn cbr_row(i: usize, f: &wtcp_engine::scenario::FlowCfg, sc: &Scenario, st: &UdpStats, window: f64, sent: u64) -> Value {
    let payload = st.window_bytes as f64;
    let mut delays = st.delays.clone();
    let mut row = json!({
        "id": i,
        "name": f.name,
        "kind": "cbr",
        "cc": "-",
        "src": sc.nodes[f.src],
        "dst": sc.nodes[f.dst],
        "goodput_bps": payload * 8.0 / window,
        "throughput_bps": null,
        "delivered_bytes": st.bytes,
        "segments_sent": sent,
        "retransmitted_segments": 0,
        "unnecessary_retransmissions": 0,
        "fast_retransmits": 0,
        "timeouts": 0,
        "max_backoff": 0,
        "fast_retransmit_causes": causes(),
        "timeout_causes": causes(),
        "loss_verdicts": verdicts(),
        "verdicts_by_cause": {"congestion": verdicts(), "wireless": verdicts(), "spurious": verdicts()},
        "frto_spurious_timeouts": 0,
        "mac_hints": 0,
        "dsacks": null,
        "loss_probes": 0,
        "syns_sent": null,
        "handshake_s": null,
        "fct_s": null,
        "mean_srtt_s": null,
        "packets_received": st.packets,
    });
    delay_fields(&mut row, Some(&mut delays));
    row
}
