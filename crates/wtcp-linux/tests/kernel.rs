//! Runs on the machine's kernel: needs root, namespaces and /dev/net/tun; each test says
//! it skipped otherwise.

use std::sync::atomic::AtomicBool;

use serde_json::Value;
use wtcp_engine::Scenario;

fn kernel_ready() -> bool {
    match wtcp_linux::netns::check_privileges() {
        Ok(()) => true,
        Err(why) => {
            eprintln!("skipped: {why}");
            false
        }
    }
}

/// Kernel runs are real time: one at a time, or they take each other's CPU (the test
/// harness runs tests on parallel threads).
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn run(text: &str) -> Value {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let sc = Scenario::from_toml_str(text, &[]).expect("scenario");
    let (out, _) = wtcp_linux::run(&sc, &AtomicBool::new(false)).expect("linux run");
    serde_json::from_str(&out).expect("json")
}

const TCP_PATH: &str = r#"
profile = "linux"
[run]
duration_s = 4
measure_from_s = 1
[[nodes]]
name = "s"
[[nodes]]
name = "d"
[[links]]
name = "bottleneck"
a = "s"
b = "d"
rate_mbps = 10
delay_ms = 10
queue = { limit_packets = 50 }
[[flows]]
name = "f"
src = "s"
dst = "d"
cc = "cubic"
"#;

#[test]
fn the_kernel_takes_the_scenarios_window_mss_and_rto_floor() {
    if !kernel_ready() {
        return;
    }
    let text = TCP_PATH.replace("duration_s = 4", "duration_s = 2").replace("[[nodes]]\nname = \"s\"", "[tcp]\ninitial_cwnd_segments = 3\nmss_bytes = 1000\ntimestamps = false\nrto_min_s = 1.0\n[[nodes]]\nname = \"s\"");
    let m = run(&text);
    let k = &m["flows"][0]["kernel"];
    assert_eq!(k["initial_cwnd_segments"], 3, "{m}");
    assert_eq!(k["mss_bytes"], 1000, "{m}");
    // Linux's floor bounds the variance term: RTO = SRTT + max(4 RTTVAR, rto_min) >= 1 s.
    assert!(k["rto_at_connect_s"].as_f64().unwrap() >= 1.0, "{m}");
}

#[test]
fn a_kernel_tcp_flow_fills_the_emulated_bottleneck() {
    if !kernel_ready() {
        return;
    }
    let m = run(TCP_PATH);
    let f = &m["flows"][0];
    let goodput = f["goodput_bps"].as_f64().unwrap();
    // 10 Mb/s of IP packets of 1500 bytes carry 1448 payload bytes each: 9.65 Mb/s.
    let payload_rate = 10e6 * 1448.0 / 1500.0;
    assert!(goodput > 0.9 * payload_rate && goodput <= 1.01 * payload_rate, "goodput {goodput} against {payload_rate}: {m}");
    assert_eq!(m["engine"], "linux");
    // The kernel took the linux profile's window and the MSS the TUN MTU gives.
    assert_eq!(f["kernel"]["initial_cwnd_segments"], 10, "{m}");
    assert_eq!(f["kernel"]["mss_bytes"], 1448, "{m}");
    // One flow per namespace: the socket's RTO count is the namespace's.
    assert_eq!(f["kernel"]["mib_timeouts"], f["timeouts"], "{m}");
    assert!(m["relay"]["foreign_packets"].as_u64().unwrap() < 10, "{m}");
}

/// One CBR flow of 1000-byte payloads over one link of `rate_mbps`, 10 ms, for
/// `seconds` (measured from 1 s).
fn udp_path(rate_mbps: f64, load: f64, loss: f64, seconds: f64) -> String {
    format!(
        r#"
[run]
duration_s = {d}
measure_from_s = 1
[metrics]
delays = true
[[nodes]]
name = "s"
[[nodes]]
name = "d"
[[links]]
name = "l"
a = "s"
b = "d"
rate_mbps = {rate_mbps}
delay_ms = 10
queue = {{ limit_packets = 1000 }}
ab = {{ loss = {{ model = "uniform", rate = {loss} }} }}
[[flows]]
name = "u"
kind = "cbr"
src = "s"
dst = "d"
rate_mbps = {r}
packet_bytes = 1000
"#,
        d = seconds + 1.0,
        r = rate_mbps * load,
    )
}

struct Fidelity {
    /// Payload rate received / the link's payload rate.
    rate: f64,
    /// p50 and p99 of the one-way delay less propagation and serialisation, ms.
    p50: f64,
    p99: f64,
    /// Share of the relay's events run more than 0.1 ms late (half load).
    late: f64,
    /// Loss fraction at 2 % set, and its binomial 95 % half-interval.
    loss: f64,
    half: f64,
}

/// The emulator's fidelity at `rate_mbps`.
fn fidelity(rate_mbps: f64) -> Fidelity {
    // Saturated (1.2x the link): the link's payload rate, 1000 of every 1028 bytes.
    let m = run(&udp_path(rate_mbps, 1.2, 0.0, 4.0));
    let expected = rate_mbps * 1e6 * 1000.0 / 1028.0;
    let rate_ratio = m["flows"][0]["goodput_bps"].as_f64().unwrap() / expected;
    // Half load: no queue, so the delay is 10 ms plus one serialisation.
    let m = run(&udp_path(rate_mbps, 0.5, 0.0, 4.0));
    let ideal = 10.0 + 1028.0 * 8.0 / (rate_mbps * 1e6) * 1e3;
    let p99 = m["flows"][0]["delay_p99_ms"].as_f64().unwrap() - ideal;
    let p50 = m["flows"][0]["delay_p50_ms"].as_f64().unwrap() - ideal;
    let late = m["relay"]["events_late_over_0_1_ms"].as_f64().unwrap() / m["relay"]["events"].as_f64().unwrap();
    // 2 % loss at half load.
    let m = run(&udp_path(rate_mbps, 0.5, 0.02, 4.0));
    let f = &m["flows"][0];
    let sent = f["segments_sent"].as_f64().unwrap();
    let on_link = m["drops"][0]["tx_packets"].as_f64().unwrap();
    let lost = m["drops"][0]["channel"].as_f64().unwrap();
    let received = f["packets_received"].as_f64().unwrap();
    // Sent = received + lost + what was still on its way at the end (10 ms of it).
    let in_flight = sent - received - lost;
    assert!((0.0..=0.02 * sent).contains(&in_flight), "{sent} sent, {received} received, {lost} lost: {m}");
    let p = lost / on_link;
    Fidelity { rate: rate_ratio, p50, p99, late, loss: p, half: 1.96 * (0.02 * 0.98 / on_link).sqrt() }
}

#[test]
fn emulator_fidelity_at_10_mbps() {
    if !kernel_ready() {
        return;
    }
    let f = fidelity(10.0);
    assert!((f.rate - 1.0).abs() < 0.01, "rate {}", f.rate);
    // The median datagram's one-way delay is the configured one plus less than 0.3 ms of
    // the two hosts' stacks and the relay (measured 0.07-0.18 ms; the p99 is not within
    // 0.1 ms: docs/linux-engine.md).
    assert!((0.0..0.3).contains(&f.p50), "p50 delay {} ms above the ideal", f.p50);
    assert!((f.loss - 0.02).abs() < f.half, "loss {} outside 0.02 +- {}", f.loss, f.half);
}

/// `cargo test -p wtcp-linux --release --test kernel -- --ignored --nocapture`: the
/// table of docs/linux-engine.md.
#[test]
#[ignore]
fn fidelity_table() {
    if !kernel_ready() {
        return;
    }
    println!("| rate Mb/s | received / link payload rate | delay above ideal, p50 / p99 (ms) | relay events > 0.1 ms late | loss (2 % set) | 95 % interval |");
    println!("|---|---|---|---|---|---|");
    for rate in [2.0, 10.0, 50.0, 100.0, 200.0] {
        let f = fidelity(rate);
        println!("| {rate} | {:.4} | {:.3} / {:.3} | {:.2} % | {:.3} % | ± {:.3} % |", f.rate, f.p50, f.p99, f.late * 100.0, f.loss * 100.0, f.half * 100.0);
    }
}

fn host_orphans() -> u64 {
    let text = std::fs::read_to_string("/proc/net/sockstat").expect("sockstat");
    let tcp = text.lines().find(|l| l.starts_with("TCP:")).expect("TCP line");
    let fields: Vec<&str> = tcp.split_whitespace().collect();
    let at = fields.iter().position(|f| *f == "orphan").expect("orphan field");
    fields[at + 1].parse().expect("a count")
}

#[test]
fn a_handshake_still_going_at_the_end_neither_holds_nor_fails_the_run_and_nothing_is_orphaned() {
    if !kernel_ready() {
        return;
    }
    let before = host_orphans();
    // The SYN leaves at 2.5 s over a 400 ms link: no answer before the end at 3 s.
    let text = TCP_PATH.replace("duration_s = 4", "duration_s = 3").replace("delay_ms = 10", "delay_ms = 400").replace("cc = \"cubic\"", "cc = \"cubic\"\nstart_s = 2.5");
    let m = run(&text);
    assert!(m["wall_seconds"].as_f64().unwrap() < 3.5, "the run ended with its scenario: {m}");
    assert!(m["warnings"].to_string().contains("did not connect") || m["warnings"].to_string().contains("delivered no data"), "{m}");
    // A full run closes its sockets with a reset: no orphan keeps a namespace alive.
    run(TCP_PATH);
    assert!(host_orphans() <= before, "orphans {} after, {before} before", host_orphans());
}
