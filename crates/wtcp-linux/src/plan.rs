//! What the kernel runs for a scenario, or the field it cannot be told.
//!
//! The engine runs with the `linux` profile (`profile.rs`): every TCP option the scenario
//! leaves out is Linux's. What remains is checked against what a namespace's kernel can
//! be told:
//! - through a sysctl of the sender's and receiver's namespaces: `tcp.timestamps`
//!   (`net.ipv4.tcp_timestamps`), `tcp.sack` (`tcp_sack`), `tcp.ecn` (`tcp_ecn`: 1 asks
//!   for ECN, 2 only accepts it), `tcp.frto` (`tcp_frto`), `tcp.dupack_threshold`
//!   (`tcp_reordering`), `tcp.loss_detection` (`tcp_recovery`: 1 for RACK, 0 for the
//!   duplicate-ACK rule), `tcp.tail_loss_probe` (`tcp_early_retrans`: 3 for the probe,
//!   0 without), `tcp.send_buffer_bytes` / `tcp.recv_buffer_bytes` (the maximum of
//!   `tcp_wmem` / `tcp_rmem`);
//! - through the RTO sysctls of Linux 6.11+ / 6.15+: `tcp.rto_min_s` (`tcp_rto_min_us`)
//!   and `tcp.rto_max_s` (`tcp_rto_max_ms`);
//! - through the host's route (rtnetlink, `route.rs`): `tcp.initial_cwnd_segments`
//!   (the route metric `initcwnd`);
//! - through the TUN device's MTU: `tcp.mss_bytes` (MTU = MSS + 40 + 12 with timestamps,
//!   so the kernel's own MSS is the scenario's);
//! - per socket: the flow's algorithm (`TCP_CONGESTION`).
//!
//! Every other TCP option must equal the `linux` profile's value (Linux has no knob for
//! it); a scenario that states another is refused with the field, its value and Linux's.
//! `tcp.recovery` is not compared: Linux reduces by PRR with or without SACK.
//! Refused too: on/off applications (`flows.N.on_off`), 802.11 channels (the relay carries wired links only), a flow's
//! algorithm the kernel does not offer, algorithm parameters other than the profile's.

use wtcp_engine::scenario::{FlowApp, LossDetection, Scenario, ScenarioError, TcpConfig};

/// wtcp's algorithm names that are the kernel's module of another name.
const KERNEL_NAMES: &[(&str, &str)] = &[("newreno", "reno"), ("reno", "reno"), ("cubic", "cubic"), ("bbr", "bbr")];

/// One flow as the kernel runs it.
#[derive(Clone, Debug)]
pub enum FlowPlan {
    Tcp { cc: String, bytes: Option<u64>, sysctls: Vec<(&'static str, String)>, mtu: u32, initcwnd: u32 },
    Cbr { rate_bps: f64, payload_bytes: u32 },
}

/// The kernel's plan of every flow of `sc`, or the first field it cannot run.
/// `available`: the kernel's algorithms (`tcp_available_congestion_control`).
pub fn plan(sc: &Scenario, available: &[String]) -> Result<Vec<FlowPlan>, ScenarioError> {
    if let Some(w) = sc.wifi.first() {
        return Err(ScenarioError::new("wifi.0", format!("802.11 channel `{}`: the linux engine's relay carries wired links only; allowed: links", w.name)));
    }
    let baseline = baseline()?;
    let linux_rto_min = baseline.tcp.rtt.min_rto;
    let mut plans = Vec::with_capacity(sc.flows.len());
    for (i, f) in sc.flows.iter().enumerate() {
        if f.on_off.is_some() {
            return Err(ScenarioError::new(format!("flows.{i}.on_off"), "the linux engine's applications send without pauses; allowed: leave on_off out"));
        }
        plans.push(match &f.app {
            FlowApp::Cbr(c) => {
                if c.packet_bytes < 16 {
                    return Err(ScenarioError::new(format!("flows.{i}.packet_bytes"), format!("is {} bytes; the linux engine's datagrams carry a sequence number and a send time; allowed: 16 bytes or more", c.packet_bytes)));
                }
                FlowPlan::Cbr { rate_bps: c.rate_bps, payload_bytes: c.packet_bytes }
            }
            FlowApp::Tcp(t) => {
                let name = t.cc.name();
                let kernel = match &t.kernel_cc {
                    // `kernel:NAME`: the kernel's own algorithm, whatever wtcp has.
                    Some(k) => {
                        if !available.iter().any(|a| *a == k.name) {
                            return Err(ScenarioError::new(k.field.clone(), format!("is `kernel:{}`; the kernel lists no such congestion control (load its module or register its BPF struct_ops program first); allowed: kernel:NAME, NAME one of {} (the kernel's tcp_available_congestion_control)", k.name, available.join(", "))));
                        }
                        k.name.as_str()
                    }
                    None => {
                        if matches!(t.cc, wtcp_cc::CcConfig::User(_)) {
                            return Err(ScenarioError::new(format!("flows.{i}.cc"), format!("is `{name}`, an algorithm registered from Python; the linux engine runs the kernel's own algorithms; allowed: {} (the kernel's tcp_available_congestion_control)", available.join(", "))));
                        }
                        let kernel = KERNEL_NAMES.iter().find(|(w, _)| *w == name).map(|(_, k)| *k).unwrap_or(name);
                        if !available.iter().any(|a| a == kernel) {
                            return Err(ScenarioError::new(format!("flows.{i}.cc"), format!("is `{name}`; the kernel has no such congestion control; allowed: {} (the kernel's tcp_available_congestion_control; newreno runs as reno), or kernel:NAME for one of them", available.join(", "))));
                        }
                        if baseline_cc(name).as_ref() != Some(&t.cc) {
                            return Err(ScenarioError::new(format!("flows.{i}.cc_params"), format!("the kernel's `{kernel}` takes no parameters from a scenario; allowed: leave cc_params out (the linux profile's values)")));
                        }
                        kernel
                    }
                };
                check_fixed(&t.tcp, &baseline.tcp, &f.name)?;
                let initcwnd = t.tcp.initial_cwnd_segments;
                if initcwnd.fract() != 0.0 || !(1.0..=1024.0).contains(&initcwnd) {
                    return Err(ScenarioError::new("tcp.initial_cwnd_segments", format!("is {initcwnd} for flow `{}`; the kernel's route metric initcwnd is a whole number of segments; allowed: 1 to 1024", f.name)));
                }
                let rto_min_us = t.tcp.rtt.min_rto / 1000;
                if rto_min_us != baseline.tcp.rtt.min_rto / 1000 {
                    if rto_min_us == 0 {
                        return Err(ScenarioError::new("tcp.rto_min_s", format!("is {} s for flow `{}`; net.ipv4.tcp_rto_min_us takes 1 us or more (rounded up to whole jiffies); allowed: 0.000001 or more", t.tcp.rtt.min_rto as f64 / 1e9, f.name)));
                    }
                    kernel_knob("tcp.rto_min_s", "tcp_rto_min_us", "6.11", secs(linux_rto_min))?;
                }
                let rto_max_ms = t.tcp.rtt.max_rto / 1_000_000;
                if rto_max_ms != baseline.tcp.rtt.max_rto / 1_000_000 {
                    if !(1000..=120_000).contains(&rto_max_ms) {
                        return Err(ScenarioError::new("tcp.rto_max_s", format!("is {} s for flow `{}`; net.ipv4.tcp_rto_max_ms takes 1 s to 120 s; allowed: 1 to 120", t.tcp.rtt.max_rto as f64 / 1e9, f.name)));
                    }
                    kernel_knob("tcp.rto_max_s", "tcp_rto_max_ms", "6.15", secs(baseline.tcp.rtt.max_rto))?;
                }
                FlowPlan::Tcp { cc: kernel.to_string(), bytes: t.bytes, sysctls: sysctls(&t.tcp, &baseline.tcp), mtu: mtu(&t.tcp), initcwnd: initcwnd as u32 }
            }
        });
    }
    Ok(plans)
}

fn secs(ns: u64) -> String {
    format!("{}", ns as f64 / 1e9)
}

/// A value other than Linux's default needs the kernel's sysctl `name` (Linux `since`+).
fn kernel_knob(field: &str, name: &str, since: &str, default: String) -> Result<(), ScenarioError> {
    if std::path::Path::new(&format!("/proc/sys/net/ipv4/{name}")).exists() {
        return Ok(());
    }
    Err(ScenarioError::new(field, format!("this kernel ({}) has no net.ipv4.{name} (Linux {since} and later); allowed: {default}, its default", crate::kernel_release())))
}

/// The TUN MTU that gives the kernel the scenario's MSS.
pub fn mtu(t: &TcpConfig) -> u32 {
    t.mss + t.packet_overhead()
}

/// The namespace sysctls of a TCP flow's two hosts (the RTO's only where they differ from
/// Linux's, so that a kernel without them runs everything else).
fn sysctls(t: &TcpConfig, linux: &TcpConfig) -> Vec<(&'static str, String)> {
    let b = |v: bool| if v { "1" } else { "0" }.to_string();
    let mut out = vec![
        ("net/ipv4/tcp_timestamps", b(t.timestamps)),
        ("net/ipv4/tcp_sack", b(t.sack)),
        ("net/ipv4/tcp_dsack", b(t.sack)),
        ("net/ipv4/tcp_ecn", if t.ecn { "1" } else { "2" }.to_string()),
        ("net/ipv4/tcp_frto", if t.frto { "2" } else { "0" }.to_string()),
        ("net/ipv4/tcp_reordering", t.dupack_threshold.to_string()),
        ("net/ipv4/tcp_recovery", b(t.loss_detection == LossDetection::Rack)),
        ("net/ipv4/tcp_early_retrans", if t.tail_loss_probe { "3" } else { "0" }.to_string()),
        // Linux 6.11+ and 6.15+: the RTO's floor and ceiling per namespace. Linux's floor
        // bounds the variance term (RTO = SRTT + max(4 RTTVAR, rto_min), tcp_input.c
        // tcp_set_rto), RFC 6298's the whole RTO: docs/linux-engine.md.
        // A socket starts at the middle value and auto-tuning only grows it, so a limit
        // below Linux's starting size lowers the start too (tcp_init_sock).
        ("net/ipv4/tcp_wmem", buffer(16384, t.send_buffer_bytes)),
        ("net/ipv4/tcp_rmem", buffer(131072, t.recv_buffer_bytes)),
        // Each run starts from nothing: no cached metrics of an earlier connection.
        ("net/ipv4/tcp_no_metrics_save", "1".to_string()),
    ];
    if t.rtt.min_rto != linux.rtt.min_rto {
        out.push(("net/ipv4/tcp_rto_min_us", (t.rtt.min_rto / 1000).to_string()));
    }
    if t.rtt.max_rto != linux.rtt.max_rto {
        out.push(("net/ipv4/tcp_rto_max_ms", (t.rtt.max_rto / 1_000_000).to_string()));
    }
    out
}

/// `tcp_wmem` / `tcp_rmem`: minimum, starting size, maximum = the scenario's buffer.
fn buffer(linux_start: u64, max: u64) -> String {
    let max = max.max(4096);
    format!("4096 {} {max}", linux_start.min(max))
}

struct Baseline {
    tcp: TcpConfig,
}

const BASELINE: &str = r#"
profile = "linux"
[run]
duration_s = 1
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
a = "a"
b = "b"
rate_mbps = 10
delay_ms = 1
[[flows]]
src = "a"
dst = "b"
"#;

/// The `linux` profile's TCP options (what the kernel does where it has no knob).
fn baseline() -> Result<Baseline, ScenarioError> {
    let sc = Scenario::from_toml_str(BASELINE, &[])?;
    match &sc.flows[0].app {
        FlowApp::Tcp(t) => Ok(Baseline { tcp: t.tcp.clone() }),
        FlowApp::Cbr(_) => Err(ScenarioError::new("", "the linux baseline has no TCP flow")),
    }
}

/// The `linux` profile's parameters of algorithm `name` (None: wtcp cannot build it alone).
fn baseline_cc(name: &str) -> Option<wtcp_cc::CcConfig> {
    let text = format!("{BASELINE}cc = \"{name}\"\n");
    Scenario::from_toml_str(&text, &[]).ok().and_then(|sc| match &sc.flows[0].app {
        FlowApp::Tcp(t) => Some(t.cc.clone()),
        FlowApp::Cbr(_) => None,
    })
}

fn estimator(linux: bool) -> String {
    if linux { "\"linux\"" } else { "\"rfc6298\"" }.to_string()
}

/// Every TCP option Linux has no knob for must be the linux profile's.
fn check_fixed(t: &TcpConfig, linux: &TcpConfig, flow: &str) -> Result<(), ScenarioError> {
    let s = |v: f64| format!("{v}");
    let secs = |ns: u64| s(ns as f64 / 1e9);
    let fixed: [(&str, String, String); 19] = [
        ("header_bytes", t.header_bytes.to_string(), linux.header_bytes.to_string()),
        ("initial_ssthresh_segments", format!("{:?}", t.initial_ssthresh_segments), format!("{:?}", linux.initial_ssthresh_segments)),
        ("rto_initial_s", secs(t.rtt.initial_rto), secs(linux.rtt.initial_rto)),
        ("clock_granularity_s", secs(t.rtt.granularity), secs(linux.rtt.granularity)),
        ("max_backoff", t.rtt.max_backoff.to_string(), linux.rtt.max_backoff.to_string()),
        ("rto_estimator", estimator(t.rtt.linux_estimator), estimator(linux.rtt.linux_estimator)),
        ("rtt_sampling", format!("{:?}", t.rtt_sampling), format!("{:?}", linux.rtt_sampling)),
        ("limited_transmit", t.limited_transmit.to_string(), linux.limited_transmit.to_string()),
        ("delayed_ack", t.delayed_ack.to_string(), linux.delayed_ack.to_string()),
        ("delayed_ack_count", t.delayed_ack_count.to_string(), linux.delayed_ack_count.to_string()),
        ("delayed_ack_timeout_s", secs(t.delayed_ack_timeout), secs(linux.delayed_ack_timeout)),
        ("ecn_echo", format!("{:?}", t.ecn_echo), format!("{:?}", linux.ecn_echo)),
        ("partial_ack_timer", format!("{:?}", t.partial_ack_timer), format!("{:?}", linux.partial_ack_timer)),
        ("backoff_reset", format!("{:?}", t.backoff_reset), format!("{:?}", linux.backoff_reset)),
        ("handshake", t.handshake.to_string(), linux.handshake.to_string()),
        ("prr_recover_fs", format!("{:?}", t.prr_recover_fs), format!("{:?}", linux.prr_recover_fs)),
        ("prr_dupack_credit", t.prr_dupack_credit.to_string(), linux.prr_dupack_credit.to_string()),
        ("timeout_count_reset", format!("{:?}", t.timeout_count_reset), format!("{:?}", linux.timeout_count_reset)),
        ("reno_sack", t.reno_sack.to_string(), linux.reno_sack.to_string()),
    ];
    let more = [
        ("rearm_rto_on_head_retransmit", t.rearm_rto_on_head_retransmit.to_string(), linux.rearm_rto_on_head_retransmit.to_string()),
        ("prr_extra_segment", format!("{:?}", t.prr_extra_segment), format!("{:?}", linux.prr_extra_segment)),
        ("recovery_exit_growth", t.recovery_exit_growth.to_string(), linux.recovery_exit_growth.to_string()),
        ("loss_exit_credit", format!("{:?}", t.loss_exit_credit), format!("{:?}", linux.loss_exit_credit)),
        ("cwnd_limited", format!("{:?}", t.cwnd_limited), format!("{:?}", linux.cwnd_limited)),
        ("ts_recent", format!("{:?}", t.ts_recent), format!("{:?}", linux.ts_recent)),
        ("timeout_in_recovery", format!("{:?}", t.timeout_in_recovery), format!("{:?}", linux.timeout_in_recovery)),
        ("quick_acks_at_start", t.quick_acks_at_start.to_string(), linux.quick_acks_at_start.to_string()),
        ("handshake_ack", t.handshake_ack.to_string(), linux.handshake_ack.to_string()),
        ("receive_window", format!("{:?}", t.receive_window), format!("{:?}", linux.receive_window)),
    ];
    for (field, ours, theirs) in fixed.iter().chain(more.iter()) {
        if ours != theirs {
            return Err(ScenarioError::new(
                format!("tcp.{field}"),
                format!("is {ours} for flow `{flow}`; the kernel cannot be told this (no sysctl or socket option); allowed: {theirs}, Linux's (the linux profile)"),
            ));
        }
    }
    Ok(())
}
