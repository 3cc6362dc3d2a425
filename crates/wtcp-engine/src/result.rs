//! What a run returns: per-flow and per-run metrics (serialisable to JSON) and optional
//! columnar traces.

use serde::Serialize;

use crate::metrics::{CauseCounts, VerdictCounts, VerdictsByCause};
use crate::net::{DropCause, LinkDir};
use crate::packet::Packet;
use crate::time::{to_secs, Time};

#[derive(Clone, Debug, Serialize)]
pub struct FlowResult {
    pub id: usize,
    pub name: String,
    /// `"tcp"` or `"cbr"`.
    pub kind: &'static str,
    /// Congestion-control algorithm (TCP), or `"-"` (CBR).
    pub cc: String,
    pub src: String,
    pub dst: String,
    /// Application bytes delivered in order at the receiver in the measurement window,
    /// times 8, over the window (headers and duplicates excluded).
    pub goodput_bps: f64,
    /// IP-level bytes the sender put on the wire in the window (headers and
    /// retransmissions included), times 8, over the window.
    pub throughput_bps: f64,
    /// Application bytes delivered in order over the whole run.
    pub delivered_bytes: u64,
    pub segments_sent: u64,
    pub retransmitted_segments: u64,
    /// Retransmissions sent after an earlier copy had reached the receiver.
    pub unnecessary_retransmissions: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    /// Largest RTO backoff exponent reached.
    pub max_backoff: u32,
    pub fast_retransmit_causes: CauseCounts,
    pub timeout_causes: CauseCounts,
    /// The algorithm's own verdicts on its loss events.
    pub loss_verdicts: VerdictCounts,
    /// The verdicts by the ground-truth cause of each loss event (a confusion matrix).
    pub verdicts_by_cause: VerdictsByCause,
    /// Timeouts that F-RTO (RFC 5682) declared spurious and undid.
    pub frto_spurious_timeouts: u64,
    /// MAC retry-limit hints (`Signal::MacRetryLimit`) delivered to the sender, from an
    /// ARQ link or an 802.11 channel (see `mac_hint`).
    pub mac_hints: u64,
    /// D-SACKs received (RFC 2883; 0 without SACK).
    pub dsacks: u64,
    /// Tail loss probes sent (RFC 8985 §7, `tcp.tail_loss_probe`).
    pub loss_probes: u64,
    /// SYNs sent, retransmissions included (0 without the handshake).
    pub syns_sent: u64,
    /// Seconds from the first SYN to the SYN-ACK (null without the handshake).
    pub handshake_s: Option<f64>,
    /// Flow completion time of a finite transfer (`bytes = N`), seconds from the flow's
    /// start to the last byte held in order at the receiver; null if unfinished or unlimited.
    pub fct_s: Option<f64>,
    /// Time-averaged smoothed RTT, seconds (TCP; NaN before any sample, null in JSON).
    pub mean_srtt_s: Option<f64>,
    /// One-way delay of the data packets that reached the receiver in the measurement
    /// window (each copy from its own transmission), ms: mean (exact) and percentiles
    /// (within 1 %, `metrics::DelayHistogram`); null without such packets.
    pub delay_mean_ms: Option<f64>,
    pub delay_p50_ms: Option<f64>,
    pub delay_p95_ms: Option<f64>,
    pub delay_p99_ms: Option<f64>,
    /// Percentiles of the sender's RTT samples in the window, ms (TCP; within 1 %).
    pub rtt_p50_ms: Option<f64>,
    pub rtt_p95_ms: Option<f64>,
    pub rtt_p99_ms: Option<f64>,
    /// UDP: datagrams received.
    pub packets_received: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct DropResult {
    pub link: String,
    pub from: String,
    pub to: String,
    pub queue: u64,
    pub channel: u64,
    pub outage: u64,
    /// Frames put on the wire, link-layer retransmissions included.
    pub tx_packets: u64,
    /// Time packets waited in the queue before their first transmission began, for those
    /// that began it in the measurement window, ms: mean (exact) and 95th percentile
    /// (within 1 %); null if none did.
    pub sojourn_mean_ms: Option<f64>,
    pub sojourn_p95_ms: Option<f64>,
    /// Link-layer (ARQ) retransmissions.
    pub arq_retries: u64,
    /// Frames the link layer gave up at its retry limit.
    pub retry_limit_drops: u64,
}

/// Columnar time series; every vector in a group has the same length.
#[derive(Clone, Debug, Default)]
pub struct Traces {
    /// Sampled sender state: `time`, `flow`, then [`crate::tcp::SENDER_TRACE_COLUMNS`],
    /// then `delivered` (receiver RCV.NXT).
    pub flow_time: Vec<f64>,
    pub flow_id: Vec<u32>,
    pub flow_columns: Vec<(&'static str, Vec<f64>)>,
    /// Algorithm variables in long form.
    pub cc_time: Vec<f64>,
    pub cc_flow: Vec<u32>,
    pub cc_name: Vec<&'static str>,
    pub cc_value: Vec<f64>,
    /// Queue lengths per link direction.
    pub queue_time: Vec<f64>,
    pub queue_dir: Vec<u32>,
    pub queue_packets: Vec<u32>,
    pub queue_bytes: Vec<u64>,
    /// The direction's capacity at the sample, Mb/s: its rate, or what its capacity trace
    /// offers then (a mahimahi schedule: its opportunities in the surrounding 100 ms).
    pub queue_capacity_mbps: Vec<f64>,
    /// Fast retransmits and timeouts.
    pub loss_time: Vec<f64>,
    pub loss_flow: Vec<u32>,
    pub loss_timeout: Vec<bool>,
    pub loss_seq: Vec<u64>,
    pub loss_cause: Vec<&'static str>,
    pub loss_verdict: Vec<&'static str>,
    /// Every dropped packet with its ground-truth cause.
    pub drop_time: Vec<f64>,
    pub drop_dir: Vec<u32>,
    pub drop_flow: Vec<u32>,
    pub drop_kind: Vec<&'static str>,
    pub drop_seq: Vec<u64>,
    pub drop_cause: Vec<&'static str>,
    /// Names of the link directions (`link:from->to`), indexed by direction id.
    pub dir_names: Vec<String>,
}

impl Traces {
    /// Rows held, over every table.
    pub fn rows(&self) -> usize {
        self.flow_time.len() + self.cc_time.len() + self.queue_time.len() + self.loss_time.len() + self.drop_time.len()
    }

    /// One row of the queue table: direction `d` at `now`.
    pub fn push_queue(&mut self, now: Time, d: &LinkDir) {
        self.queue_time.push(to_secs(now));
        self.queue_dir.push(d.id);
        self.queue_packets.push(d.queue_packets() as u32);
        self.queue_bytes.push(d.queue_bytes());
        self.queue_capacity_mbps.push(d.capacity_bps(now) / 1e6);
    }

    /// One row of the drop table: packet `p` dropped on direction `dir` at `now`.
    pub fn push_drop(&mut self, now: Time, dir: u32, p: &Packet, cause: DropCause) {
        self.drop_time.push(to_secs(now));
        self.drop_dir.push(dir);
        self.drop_flow.push(p.flow);
        self.drop_kind.push(p.kind.as_str());
        self.drop_seq.push(p.seq);
        self.drop_cause.push(cause.as_str());
    }

    /// The rows held so far as a chunk (same columns, same `dir_names`), leaving these
    /// traces empty to collect the rows that follow.
    pub fn take_chunk(&mut self) -> Traces {
        let empty = Traces {
            flow_columns: self.flow_columns.iter().map(|(name, _)| (*name, Vec::new())).collect(),
            dir_names: self.dir_names.clone(),
            ..Traces::default()
        };
        std::mem::replace(self, empty)
    }
}

/// MAC statistics of one 802.11 station.
#[derive(Clone, Debug, Serialize)]
pub struct WifiStationResult {
    pub channel: String,
    pub node: String,
    /// Channel accesses (RTS frames, or data frames under basic access).
    pub attempts: u64,
    /// Frames acknowledged.
    pub successes: u64,
    /// Accesses after the first, summed over all frames.
    pub retries: u64,
    /// Frames that overlapped another transmission at their receiver (under the radio
    /// model: frames lost while something overlapped them). An A-MPDU's MPDUs lost to the
    /// draw count one each; a PPDU lost whole counts once.
    pub collisions: u64,
    /// Frames lost to the bit-error draw (under the radio model: lost to noise alone), an
    /// A-MPDU's MPDUs one each.
    pub frame_errors: u64,
    /// Frames given up at the retry limit.
    pub retry_limit_drops: u64,
    /// Frames given up at the retry limit although a copy had arrived (every ACK lost):
    /// not drops, but still retry-limit hints.
    pub gave_up_after_delivery: u64,
    /// Packets the interface queue dropped: refused when full or by its discipline at
    /// arrival, or dropped by it later (CoDel, FQ-CoDel).
    pub queue_drops: u64,
    /// 802.11n with aggregation: A-MPDUs sent (PPDUs of two MPDUs or more) and the MPDUs
    /// in them (their ratio is the mean A-MPDU's length in MPDUs).
    pub ampdus: u64,
    pub ampdu_mpdus: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    pub scenario: String,
    /// The profile whose defaults the run used (`rfc` unless the scenario names one).
    pub profile: String,
    pub seed: u64,
    pub replication: u64,
    pub flows: Vec<FlowResult>,
    /// Jain's index over the goodputs of the chosen flows (null if undefined).
    pub jain_fairness: Option<f64>,
    pub drops: Vec<DropResult>,
    /// Per-station 802.11 MAC statistics (empty without [[wifi]] channels).
    pub wifi: Vec<WifiStationResult>,
    pub events: u64,
    pub sim_seconds: f64,
    pub wall_seconds: f64,
    /// CPU time of the thread that ran the event loop, over the same span as
    /// `wall_seconds` (the loop alone: parsing and building the scenario are not in it).
    pub loop_cpu_seconds: f64,
    /// Most packets alive at once (pool high-water mark).
    pub peak_packets: usize,
    pub warnings: Vec<String>,
    #[serde(skip)]
    pub traces: Option<Traces>,
}

impl RunResult {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("results are always serialisable")
    }
}
