//! The linux engine's time series, in the simulator's `Traces` tables and columns: the
//! senders' state from `TCP_INFO` (sampled by the run's sampler thread), the relay's
//! queues (sampled on its own clock) and every packet the relay dropped.
//!
//! Deviations and ambiguities resolved (`TCP_INFO` against wtcp's sender columns):
//! - `cwnd`, `cwnd_base` = `tcpi_snd_cwnd` x `tcpi_snd_mss` bytes (Linux has no inflation);
//!   `ssthresh` likewise, infinite while it is `TCP_INFINITE_SSTHRESH`.
//! - `srtt` = `tcpi_rtt`; `rtt` (the latest sample) is not in `TCP_INFO`: NaN.
//! - `snd_una` = `tcpi_bytes_acked`; `snd_nxt` = `snd_max` = `snd_una` + `tcpi_unacked`
//!   x MSS (Linux counts packets out, not the highest byte sent).
//! - `in_recovery` = 1 in `TCP_CA_Recovery` (fast recovery), also 2 in `TCP_CA_Loss`
//!   (after a timeout), a value wtcp's sender never has.
//! - `delivered` = the receiver's `tcpi_bytes_received`.
//! - cc table: `delivery_rate_bps`, `pacing_rate_bps` (0 when unpaced), `lost`,
//!   `sacked`, `retrans` (segments), `ca_state`.

use wtcp_engine::time::{to_secs, Time};
use wtcp_engine::tcp::SENDER_TRACE_COLUMNS;
use wtcp_engine::Traces;

use crate::info::TcpInfo;

/// `TCP_INFINITE_SSTHRESH` (include/net/tcp.h).
const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// Empty traces with the simulator's columns and `dir_names`.
pub fn empty(dir_names: Vec<String>) -> Traces {
    Traces {
        flow_columns: SENDER_TRACE_COLUMNS.iter().chain(["delivered"].iter()).map(|c| (*c, Vec::new())).collect(),
        dir_names,
        ..Traces::default()
    }
}

/// One sample of flow `flow`'s sender (`s`) and receiver (`r`) at `now`.
pub fn push_flow(tr: &mut Traces, now: Time, flow: u32, s: &TcpInfo, r: Option<&TcpInfo>) {
    let t = to_secs(now);
    let mss = f64::from(s.snd_mss);
    let una = s.bytes_acked as f64;
    let max = una + f64::from(s.unacked) * mss;
    let ssthresh = if s.snd_ssthresh >= INFINITE_SSTHRESH { f64::INFINITY } else { f64::from(s.snd_ssthresh) * mss };
    let state = match s.ca_state {
        3 => 1.0,
        4 => 2.0,
        _ => 0.0,
    };
    let row = [
        f64::from(s.snd_cwnd) * mss,
        f64::from(s.snd_cwnd) * mss,
        ssthresh,
        f64::from(s.rtt) / 1e6,
        f64::NAN,
        f64::from(s.rto) / 1e6,
        una,
        max,
        max,
        state,
        f64::from(s.backoff),
        r.map_or(f64::NAN, |r| r.bytes_received as f64),
    ];
    tr.flow_time.push(t);
    tr.flow_id.push(flow);
    for (col, v) in tr.flow_columns.iter_mut().zip(row) {
        col.1.push(v);
    }
    let vars = [
        ("delivery_rate_bps", s.delivery_rate as f64 * 8.0),
        ("pacing_rate_bps", if s.pacing_rate == u64::MAX { 0.0 } else { s.pacing_rate as f64 * 8.0 }),
        ("lost", f64::from(s.lost)),
        ("sacked", f64::from(s.sacked)),
        ("retrans", f64::from(s.retrans)),
        ("ca_state", f64::from(s.ca_state)),
    ];
    for (name, v) in vars {
        tr.cc_time.push(t);
        tr.cc_flow.push(flow);
        tr.cc_name.push(name);
        tr.cc_value.push(v);
    }
}

/// Merge the relay's queue and drop rows into `tr` (the relay's rows are in time order).
pub fn merge_relay(tr: &mut Traces, relay: Traces) {
    tr.queue_time = relay.queue_time;
    tr.queue_dir = relay.queue_dir;
    tr.queue_packets = relay.queue_packets;
    tr.queue_bytes = relay.queue_bytes;
    tr.queue_capacity_mbps = relay.queue_capacity_mbps;
    tr.drop_time = relay.drop_time;
    tr.drop_dir = relay.drop_dir;
    tr.drop_flow = relay.drop_flow;
    tr.drop_kind = relay.drop_kind;
    tr.drop_seq = relay.drop_seq;
    tr.drop_cause = relay.drop_cause;
}
