//! The world: builds the network and flows from a [`Scenario`] and runs the event loop.

use std::fmt;
use std::ops::ControlFlow;
use std::time::Instant;

use wtcp_cc::HostShared;

use crate::events::{Event, EventQueue, LazyTimer};
use crate::metrics::{jain_index, DelayHistogram, Oracle, TcpCounters};
use crate::net::build::{link_dirs, period, schedule_link_events, OutageGen};
use crate::net::link::{LinkDir, TxOutcome};
use crate::net::routing::{Hop, RouteTable};
use crate::wifi::{WifiChannel, WifiOutcome};
use crate::net::DropCause;
use crate::packet::{Packet, PacketId, PacketKind, PacketPool};
use crate::pcap::PacketTap;
use crate::result::{DropResult, FlowResult, RunResult, Traces, WifiStationResult};
use crate::rng::{stream, SimRng};
use crate::scenario::{FlowApp, MacHint, OnOffCfg, Scenario};
use crate::tcp::{LossEvent, Receiver, Sender, SenderIo, SENDER_TRACE_COLUMNS};
use crate::time::{to_secs, tx_time, Time};

/// UDP + IP header bytes.
const UDP_OVERHEAD: u32 = 28;

/// Events between two polls of a run's caller (see [`World::run_polled`]). At 15-25 M
/// events/s (`python -m wtcp.bench`) that is a quarter of a millisecond of wall time, so a
/// stop request is seen at once, while the cost (a test of the event counter per event; an
/// indirect call per 4096 events) does not show in the benchmarks.
pub const POLL_EVERY: u64 = 4096;

/// Trace rows (over every table) past which a streamed run hands its traces over as a
/// chunk (see [`World::run_streamed`]). A chunk is checked for at each poll, so between two
/// hand-overs the traces hold at most this many rows plus what [`POLL_EVERY`] events add.
pub const TRACE_CHUNK_ROWS: usize = 1 << 16;

/// How far a run has come: what its caller sees at each poll.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Simulated time reached.
    pub now: Time,
    /// The run's end (`run.duration_s`).
    pub end: Time,
    /// Events processed so far.
    pub events: u64,
}

/// A run ended early because its caller's poll asked it to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stopped {
    pub at: Progress,
}

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "stopped at simulated t = {:.1} s of {} s", to_secs(self.at.now), to_secs(self.at.end))
    }
}

struct TcpFlow {
    sender: Sender,
    receiver: Receiver,
    oracle: Oracle,
    counters: TcpCounters,
}

/// Run a sender hook of `fl` (a TCP flow; nothing otherwise) with its I/O context, from
/// the world's parts (so that a packet in the pool can be lent to it meanwhile).
fn sender_hook(now: Time, ev: &mut EventQueue, out: &mut Vec<Packet>, hosts: &mut [HostShared], losses: &mut Vec<LossEvent>, fl: &mut Flow, f: impl FnOnce(&mut Sender, &mut SenderIo)) {
    if let FlowState::Tcp(t) = &mut fl.state {
        let TcpFlow { sender, oracle, counters, .. } = t.as_mut();
        let mut io = SenderIo { now, ev, out, host: &mut hosts[fl.src as usize], oracle, counters, losses };
        f(sender, &mut io);
    }
}

struct CbrFlow {
    interval: Time,
    packet_bytes: u32,
    next_send: LazyTimer,
    sent: u64,
    received_bytes: u64,
    received_packets: u64,
    bytes_sent: u64,
    /// One-way delay of the datagrams received in the measurement window.
    one_way: DelayHistogram,
    /// On-time still to wait for the next datagram when the supply was switched off.
    on_time_left: Option<Time>,
}

enum FlowState {
    Tcp(Box<TcpFlow>),
    Cbr(CbrFlow),
}

struct Flow {
    src: u32,
    dst: u32,
    stop: Option<Time>,
    on_off: Option<OnOffCfg>,
    on_off_rng: SimRng,
    /// The application is supplying data now.
    on: bool,
    state: FlowState,
    /// (delivered bytes, bytes sent) at the start and end of the measurement window.
    at_measure_start: (u64, u64),
    at_measure_end: Option<(u64, u64)>,
}

impl Flow {
    /// (application bytes delivered in order, IP bytes sent).
    fn progress(&self) -> (u64, u64) {
        match &self.state {
            FlowState::Tcp(t) => (t.receiver.rcv_nxt, t.counters.bytes_sent),
            FlowState::Cbr(c) => (c.received_bytes, c.bytes_sent),
        }
    }
}

/// The simulation state.
pub struct World<'s> {
    sc: &'s Scenario,
    now: Time,
    ev: EventQueue,
    pool: PacketPool,
    dirs: Vec<LinkDir>,
    wifi: Vec<WifiChannel>,
    /// Outcomes of the last 802.11 event (reused buffer).
    wifi_out: Vec<WifiOutcome>,
    /// Scratch for the packets an interface queue's discipline dropped at enqueue.
    wifi_victims: Vec<PacketId>,
    routes: &'s RouteTable,
    flows: Vec<Flow>,
    hosts: Vec<HostShared>,
    outage_gens: Vec<Option<OutageGen>>,
    /// Packets produced by a handler, injected after it returns (reused buffer).
    out: Vec<Packet>,
    losses: Vec<LossEvent>,
    traces: Option<Traces>,
    cc_vars: Vec<(&'static str, f64)>,
    /// Packet capture: sees each packet where it goes on the medium (off: `None`).
    tap: Option<&'s mut dyn PacketTap>,
    /// Inside the measurement window.
    measuring: bool,
}

impl<'s> World<'s> {
    pub fn new(sc: &'s Scenario) -> Self {
        let label = |s: String| stream(sc.seed, sc.replication, &s);
        let (dirs, outage_gens) = link_dirs(sc);
        let flows = sc
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let state = match &f.app {
                    FlowApp::Tcp(t) => {
                        let sender = Sender::new(i as u32, f.src as u32, f.dst as u32, t.tcp.clone(), t.cc.build_for(i as u32), t.bytes);
                        let receiver = Receiver::new(i as u32, f.dst as u32, f.src as u32, &t.tcp, t.cc.build_receiver());
                        FlowState::Tcp(Box::new(TcpFlow { sender, receiver, oracle: Oracle::new(t.tcp.mss), counters: TcpCounters::default() }))
                    }
                    FlowApp::Cbr(c) => FlowState::Cbr(CbrFlow {
                        interval: tx_time(c.packet_bytes, c.rate_bps),
                        packet_bytes: c.packet_bytes,
                        next_send: LazyTimer::default(),
                        sent: 0,
                        received_bytes: 0,
                        received_packets: 0,
                        one_way: DelayHistogram::default(),
                        bytes_sent: 0,
                        on_time_left: None,
                    }),
                };
                Flow {
                    src: f.src as u32,
                    dst: f.dst as u32,
                    stop: f.stop,
                    on_off: f.on_off.clone(),
                    on_off_rng: label(format!("flow:{}:on_off", f.name)),
                    on: false,
                    state,
                    at_measure_start: (0, 0),
                    at_measure_end: None,
                }
            })
            .collect();
        let wifi: Vec<WifiChannel> = sc
            .wifi
            .iter()
            .enumerate()
            .map(|(c, w)| {
                let positions: Vec<(f64, f64)> = w.stations.iter().map(|&(_, x, y)| (x, y)).collect();
                let label = format!("wifi:{}", w.name);
                {
                    let ch = WifiChannel::new(c as u32, w.config.clone(), &positions, sc.seed, sc.replication, &label).with_queues(&w.queues, sc.seed, sc.replication, &label);
                    if w.motions.iter().any(|m| m.moves()) { ch.with_motion(w.motions.clone(), sc.seed, sc.replication, &label) } else { ch }
                }
            })
            .collect();
        let traces = sc.trace_interval.map(|_| Traces {
            flow_columns: SENDER_TRACE_COLUMNS.iter().chain(["delivered"].iter()).map(|c| (*c, Vec::new())).collect(),
            dir_names: dirs
                .iter()
                .map(|d: &LinkDir| format!("{}:{}->{}", sc.links[d.id as usize / 2].name, sc.nodes[d.from as usize], sc.nodes[d.to as usize]))
                .chain(sc.wifi.iter().map(|w| format!("wifi:{}", w.name)))
                .collect(),
            ..Traces::default()
        });
        World {
            sc,
            now: 0,
            ev: EventQueue::with_capacity(1024),
            pool: PacketPool::default(),
            dirs,
            wifi,
            wifi_out: Vec::with_capacity(8),
            wifi_victims: Vec::new(),
            routes: &sc.routes,
            flows,
            hosts: vec![HostShared::default(); sc.nodes.len()],
            outage_gens,
            out: Vec::with_capacity(64),
            losses: Vec::with_capacity(8),
            traces,
            cc_vars: Vec::new(),
            tap: None,
            measuring: false,
        }
    }

    fn schedule_initial_events(&mut self) {
        let sc = self.sc;
        // First: the window opens before any other event at `measure_from_s` (what is
        // counted, transmissions ending and deliveries, all come later in the run anyway;
        // this fixes the order for events at the same instant).
        self.ev.schedule(sc.measure_from, Event::MeasureStart);
        for (i, f) in sc.flows.iter().enumerate() {
            self.ev.schedule(f.start, Event::AppStart { flow: i as u32 });
            if let Some(stop) = f.stop {
                self.ev.schedule(stop, Event::AppStop { flow: i as u32 });
            }
        }
        schedule_link_events(sc, &mut self.ev, &mut self.outage_gens);
        self.ev.schedule(sc.measure_to, Event::MeasureEnd);
        if sc.trace_interval.is_some() {
            self.ev.schedule(0, Event::TraceSample);
        }
    }

    /// Run to the end and collect the results.
    pub fn run(self) -> RunResult {
        match self.run_polled(&mut |_| ControlFlow::Continue(())) {
            Ok(r) => r,
            Err(_) => unreachable!("a poll that never breaks stopped the run"),
        }
    }

    /// Run to the end, calling `poll` before the first event and after every
    /// [`POLL_EVERY`] events; `poll` returning `Break` stops the run there (`Err`). The
    /// poll sees the progress only and changes nothing in the simulation: a run that is not
    /// stopped gives the same result as [`World::run`], bit for bit. It is called once
    /// more at the end (its answer is then ignored: a finished run is not stopped). The
    /// poll is `dyn`, so this loop is one non-generic function: measured, it runs as fast
    /// as the loop had before polling, whereas a generic poll ran 1.5-2.5 % slower on the
    /// reference and 802.11 chain scenarios (why, in the generated code, is untested).
    pub fn run_polled(self, poll: &mut dyn FnMut(Progress) -> ControlFlow<()>) -> Result<RunResult, Stopped> {
        self.run_inner(poll, None)
    }

    /// [`World::run_polled`], handing the traces over in chunks: at a poll where they hold
    /// [`TRACE_CHUNK_ROWS`] rows or more, and once at the end (possibly empty), `sink` gets
    /// the rows collected since the last chunk. The chunks, concatenated, are the traces a
    /// [`World::run`] returns, row for row; the result carries none. Without tracing on,
    /// `sink` is never called. Nothing in the simulation changes.
    pub fn run_streamed(self, poll: &mut dyn FnMut(Progress) -> ControlFlow<()>, sink: &mut dyn FnMut(Traces)) -> Result<RunResult, Stopped> {
        self.run_inner(poll, Some(sink))
    }

    /// Hand every packet to `tap` where it goes on the medium (see [`PacketTap`]).
    /// Nothing in the simulation changes.
    pub fn with_tap(mut self, tap: &'s mut dyn PacketTap) -> Self {
        self.tap = Some(tap);
        self
    }

    fn run_inner(mut self, poll: &mut dyn FnMut(Progress) -> ControlFlow<()>, mut sink: Option<&mut dyn FnMut(Traces)>) -> Result<RunResult, Stopped> {
        let wall = Instant::now();
        let cpu = crate::cpu::thread_cpu_seconds();
        self.schedule_initial_events();
        let end = self.sc.duration;
        let progress = |w: &Self| Progress { now: w.now, end, events: w.ev.processed() };
        if poll(progress(&self)).is_break() {
            return Err(Stopped { at: progress(&self) });
        }
        while let Some((t, e)) = self.ev.pop_until(end) {
            self.now = t;
            self.handle(e);
            if self.ev.processed().is_multiple_of(POLL_EVERY) {
                // The poll first, so that it sees the memory a chunk holds before it goes.
                if poll(progress(&self)).is_break() {
                    return Err(Stopped { at: progress(&self) });
                }
                if let (Some(sink), Some(tr)) = (sink.as_mut(), self.traces.as_mut()) {
                    if tr.rows() >= TRACE_CHUNK_ROWS {
                        sink(tr.take_chunk());
                    }
                }
            }
        }
        self.now = end;
        let _ = poll(progress(&self));
        let wall_seconds = wall.elapsed().as_secs_f64();
        let loop_cpu_seconds = crate::cpu::thread_cpu_seconds() - cpu;
        let mut result = self.collect(wall_seconds, loop_cpu_seconds);
        if let Some(sink) = sink {
            if let Some(tr) = result.traces.take() {
                sink(tr);
            }
        }
        Ok(result)
    }

    fn handle(&mut self, e: Event) {
        match e {
            Event::TxDone { dir } => {
                if let Some(tap) = self.tap.as_deref_mut() {
                    capture_link_tx(tap, &self.dirs[dir as usize], &self.pool, self.now);
                }
                if let Some(id) = self.dirs[dir as usize].first_transmission() {
                    self.count_put_on_wire(self.dirs[dir as usize].from, id);
                }
                let outcome = self.dirs[dir as usize].on_tx_done(&mut self.pool, self.now, &mut self.ev);
                if !self.dirs[dir as usize].dequeue_drops.is_empty() {
                    self.record_discipline_drops(dir);
                }
                if let TxOutcome::Dropped { id, cause, retry_limit } = outcome {
                    let p = *self.pool.get(id);
                    if retry_limit && p.kind == PacketKind::Data {
                        // The sender's own link layer, or a relay when configured (as 802.11).
                        let arq = self.sc.links[dir as usize / 2].dirs[dir as usize % 2].arq;
                        let own = self.dirs[dir as usize].from == self.flows[p.flow as usize].src;
                        if let Some(a) = arq.filter(|a| own || a.relay) {
                            self.ev.schedule(self.now + a.hint_delay, Event::MacHint { flow: p.flow, seq: p.seq });
                        }
                    }
                    self.drop_packet(id, dir, cause);
                }
            }
            Event::PipeArrive { dir } => {
                let id = self.dirs[dir as usize].on_pipe_arrive(&mut self.ev);
                let node = self.dirs[dir as usize].to;
                self.forward(node, id);
            }
            Event::Rto { flow } => self.with_sender(flow, |s, io| s.on_rto_event(io)),
            Event::Pace { flow } => self.with_sender(flow, |s, io| s.on_pace_event(io)),
            Event::Rack { flow } => self.with_sender(flow, |s, io| s.on_rack_timer(io)),
            Event::DelAck { flow } => {
                if let FlowState::Tcp(t) = &mut self.flows[flow as usize].state {
                    t.receiver.on_delack_event(self.now, &mut self.ev, &mut self.out);
                }
            }
            Event::AppStart { flow } => self.app_start(flow),
            Event::AppStop { flow } => self.app_supply(flow, false, true),
            Event::AppToggle { flow, on } => self.app_toggle(flow, on),
            Event::CbrSend { flow } => self.cbr_send(flow),
            Event::Outage { dir, begin } => self.set_outage(dir, begin),
            Event::RandomOutage { dir } => {
                let g = self.outage_gens[dir as usize].as_mut().expect("random outage without a generator");
                let (len, next) = g.draw();
                self.set_outage(dir, true);
                self.ev.schedule(self.now + len, Event::Outage { dir, begin: false });
                // Saturating: a mean interval of ages (a count near 0) means no further outage.
                self.ev.schedule(self.now.saturating_add(next.max(1)), Event::RandomOutage { dir });
            }
            Event::DelaySpike { dir, extra } => self.dirs[dir as usize].extra_delay = extra,
            Event::MacHint { flow, seq } => self.with_sender(flow, |s, io| {
                io.counters.mac_hints += 1;
                s.on_mac_hint(seq, io)
            }),
            Event::MeasureStart => {
                for f in &mut self.flows {
                    f.at_measure_start = f.progress();
                }
                self.set_measuring(true);
            }
            Event::MeasureEnd => {
                for f in &mut self.flows {
                    f.at_measure_end = Some(f.progress());
                }
                self.set_measuring(false);
            }
            Event::TraceSample => self.trace_sample(),
            Event::Wifi { channel, station, kind } => self.on_wifi_event(channel, station, kind),
        }
        self.flush_out();
    }

    fn set_outage(&mut self, dir: u32, begin: bool) {
        let d = &mut self.dirs[dir as usize];
        if begin {
            d.outage_depth += 1;
        } else {
            d.outage_depth = d.outage_depth.saturating_sub(1);
        }
    }

    /// Run a sender hook with its I/O context.
    fn with_sender(&mut self, flow: u32, f: impl FnOnce(&mut Sender, &mut SenderIo)) {
        let World { now, ev, out, hosts, losses, flows, .. } = self;
        sender_hook(*now, ev, out, hosts, losses, &mut flows[flow as usize], f);
        self.record_losses(flow);
    }

    fn record_losses(&mut self, flow: u32) {
        if self.losses.is_empty() {
            return;
        }
        if let Some(tr) = self.traces.as_mut() {
            for l in &self.losses {
                tr.loss_time.push(to_secs(self.now));
                tr.loss_flow.push(flow);
                tr.loss_timeout.push(l.timeout);
                tr.loss_seq.push(l.seq);
                tr.loss_cause.push(l.cause.as_str());
                tr.loss_verdict.push(l.verdict.as_str());
            }
        }
        self.losses.clear();
    }

    fn app_start(&mut self, flow: u32) {
        let now = self.now;
        let fl = &mut self.flows[flow as usize];
        if let Some(o) = &fl.on_off {
            let on_len = period(o.on, o.exponential, &mut fl.on_off_rng);
            self.ev.schedule(now + on_len, Event::AppToggle { flow, on: false });
        }
        fl.on = true;
        match &mut fl.state {
            FlowState::Tcp(_) => self.with_sender(flow, |s, io| s.start(io)),
            FlowState::Cbr(c) => c.next_send.set(Some(now), &mut self.ev, Event::CbrSend { flow }),
        }
    }

    /// Switch the application's supply on or off; `final_stop` ends it for good.
    fn app_supply(&mut self, flow: u32, on: bool, final_stop: bool) {
        let fl = &mut self.flows[flow as usize];
        if final_stop {
            fl.stop = Some(self.now);
        }
        fl.on = on;
        let now = self.now;
        match &mut fl.state {
            FlowState::Tcp(_) => {
                if on {
                    self.with_sender(flow, |s, io| s.resume_supply(io));
                } else {
                    self.with_sender(flow, |s, _| s.stop_supply());
                }
            }
            FlowState::Cbr(c) => {
                // One datagram per `interval` of on-time: an off period pauses the countdown
                // to the next datagram and the next on period resumes it (so short on periods
                // do not each start with a datagram the rate does not allow).
                let at = if on {
                    Some(now.saturating_add(c.on_time_left.take().unwrap_or(0)))
                } else {
                    if c.on_time_left.is_none() {
                        c.on_time_left = c.next_send.deadline().map(|d| d.saturating_sub(now));
                    }
                    None
                };
                c.next_send.set(at, &mut self.ev, Event::CbrSend { flow });
            }
        }
    }

    fn app_toggle(&mut self, flow: u32, on: bool) {
        let now = self.now;
        let fl = &mut self.flows[flow as usize];
        if fl.stop.is_some_and(|s| s <= now) {
            return;
        }
        let o = fl.on_off.clone().expect("toggle without an on/off pattern");
        let len = if on { period(o.on, o.exponential, &mut fl.on_off_rng) } else { period(o.off, o.exponential, &mut fl.on_off_rng) };
        self.ev.schedule(now + len, Event::AppToggle { flow, on: !on });
        self.app_supply(flow, on, false);
    }

    fn cbr_send(&mut self, flow: u32) {
        let now = self.now;
        let fl = &mut self.flows[flow as usize];
        let (src, dst) = (fl.src, fl.dst);
        if let FlowState::Cbr(c) = &mut fl.state {
            if !c.next_send.fire(now, &mut self.ev, Event::CbrSend { flow }) {
                return;
            }
            let size = c.packet_bytes + UDP_OVERHEAD;
            let mut p = Packet::new(PacketKind::Udp, flow, src, dst, size, now);
            p.seq = c.sent;
            p.len = c.packet_bytes;
            c.sent += 1;
            self.out.push(p);
            c.next_send.set(Some(now.saturating_add(c.interval)), &mut self.ev, Event::CbrSend { flow });
        }
    }

    /// Inject the packets produced by the last handler at their source nodes, in order.
    fn flush_out(&mut self) {
        let mut i = 0;
        while i < self.out.len() {
            let id = self.pool.alloc(&self.out[i]);
            i += 1;
            self.forward(self.pool.get(id).src, id);
        }
        self.out.clear();
    }

    /// A packet is at `node`: deliver it locally or queue it on the next hop.
    fn forward(&mut self, node: u32, id: PacketId) {
        let dst = self.pool.get(id).dst;
        if dst == node {
            self.deliver_local(id);
            return;
        }
        match self.routes.next_hop_on_route(node as usize, dst as usize) {
            Hop::Link(dir) => {
                if let Err(id) = self.dirs[dir as usize].enqueue(id, &mut self.pool, self.now, &mut self.ev) {
                    self.dirs[dir as usize].count_queue_drop();
                    self.drop_packet(id, dir, DropCause::Queue);
                }
                if !self.dirs[dir as usize].dequeue_drops.is_empty() {
                    self.record_discipline_drops(dir);
                }
            }
            Hop::Wifi { channel, from, to } => {
                let queued = self.wifi[channel as usize].enqueue(from, id, to, self.now, &mut self.ev, &mut self.pool);
                if let Err(id) = queued {
                    self.drop_packet(id, self.wifi_trace_dir(channel), DropCause::Queue);
                } else if let Some(tap) = self.tap.as_deref_mut() {
                    tap.wifi_tx(channel, from, self.now, self.pool.get(id));
                }
                let mut victims = std::mem::take(&mut self.wifi_victims);
                victims.extend(self.wifi[channel as usize].take_queue_drops());
                for v in victims.drain(..) {
                    self.drop_packet(v, self.wifi_trace_dir(channel), DropCause::Queue);
                }
                self.wifi_victims = victims;
            }
        }
    }

    /// Drops the queue discipline made other than refusing an arrival (CoDel's at dequeue,
    /// FQ-CoDel's overload drops); the buffer keeps its capacity.
    #[cold]
    #[inline(never)]
    fn record_discipline_drops(&mut self, dir: u32) {
        let mut drops = std::mem::take(&mut self.dirs[dir as usize].dequeue_drops);
        for &id in &drops {
            self.drop_packet(id, dir, DropCause::Queue);
        }
        drops.clear();
        self.dirs[dir as usize].dequeue_drops = drops;
    }

    /// A flow's throughput counts the IP bytes its source put on the wire: a data segment
    /// or datagram once, when the source's link finishes its first transmission or the
    /// source's 802.11 station is done with it (delivered, or given up after its retries).
    /// What the source's own queue refused never left the host.
    fn count_put_on_wire(&mut self, node: u32, id: PacketId) {
        let p = self.pool.get(id);
        if node != p.src || !matches!(p.kind, PacketKind::Data | PacketKind::Udp) {
            return;
        }
        let size = u64::from(p.size);
        match &mut self.flows[p.flow as usize].state {
            FlowState::Tcp(t) => t.counters.bytes_sent += size,
            FlowState::Cbr(c) => c.bytes_sent += size,
        }
    }

    /// The index of an 802.11 channel among the traced link directions.
    fn wifi_trace_dir(&self, channel: u32) -> u32 {
        self.dirs.len() as u32 + channel
    }

    /// An 802.11 event: deliver what arrived, drop what the MAC gave up (with the
    /// retry-limit hint to the TCP sender, see [`World::wifi_hint_delay`]).
    fn on_wifi_event(&mut self, channel: u32, station: u32, kind: u8) {
        let mut out = std::mem::take(&mut self.wifi_out);
        self.wifi[channel as usize].on_event(station, kind, self.now, &mut self.ev, &mut self.pool, &mut out);
        let stations = &self.sc.wifi[channel as usize].stations;
        for o in out.drain(..) {
            match o {
                WifiOutcome::Delivered { station, from, packet } => {
                    self.count_put_on_wire(stations[from as usize].0 as u32, packet);
                    self.forward(stations[station as usize].0 as u32, packet)
                }
                WifiOutcome::Dropped { station, packet, cause, retry_limit } => {
                    if retry_limit {
                        self.count_put_on_wire(stations[station as usize].0 as u32, packet);
                    }
                    let p = *self.pool.get(packet);
                    if retry_limit && p.kind == PacketKind::Data {
                        if let Some(delay) = self.wifi_hint_delay(channel, station, p.flow) {
                            self.ev.schedule(self.now + delay, Event::MacHint { flow: p.flow, seq: p.seq });
                        }
                    }
                    self.drop_packet(packet, self.wifi_trace_dir(channel), cause);
                }
                WifiOutcome::GaveUpAfterDelivery { station, flow, seq } => {
                    if let Some(delay) = self.wifi_hint_delay(channel, station, flow) {
                        self.ev.schedule(self.now + delay, Event::MacHint { flow, seq });
                    }
                }
            }
        }
        self.wifi_out = out;
    }

    /// Whether (and after what delay) the sender of `flow` hears that `station` of
    /// `channel` gave up on a frame of the flow. TCP-CLAP's hint is the sender's own MAC's
    /// retry count (paper Figs. 6-7): by default only the station on the sender's node
    /// reports; `mac_hint = "relay"` lets any other station notify the sender as well.
    fn wifi_hint_delay(&self, channel: u32, station: u32, flow: u32) -> Option<Time> {
        let w = &self.sc.wifi[channel as usize];
        if w.stations[station as usize].0 as u32 == self.flows[flow as usize].src {
            Some(w.hint_delay)
        } else {
            (w.mac_hint == MacHint::Relay).then_some(w.relay_delay)
        }
    }

    /// Delay histograms record inside the measurement window only, with `metrics.delays`.
    fn set_measuring(&mut self, on: bool) {
        let on = on && self.sc.delay_metrics;
        self.measuring = on;
        for f in &mut self.flows {
            if let FlowState::Tcp(t) = &mut f.state {
                t.counters.measuring = on;
            }
        }
        for d in &mut self.dirs {
            d.measuring = on;
        }
    }

    fn deliver_local(&mut self, id: PacketId) {
        let World { now, ev, out, hosts, losses, flows, pool, measuring, .. } = self;
        let (now, p) = (*now, pool.get(id));
        let fl = &mut flows[p.flow as usize];
        match p.kind {
            PacketKind::Data => {
                if let FlowState::Tcp(t) = &mut fl.state {
                    if *measuring {
                        t.counters.one_way.record(now - p.created);
                    }
                    t.oracle.on_delivered(p.seq);
                    t.receiver.on_data(p, now, ev, out);
                    // A finite transfer is complete when its last byte is held in order.
                    if t.counters.completed_at.is_none() && t.sender.total().is_some_and(|n| t.receiver.rcv_nxt >= n) {
                        t.counters.completed_at = Some(now);
                    }
                }
            }
            PacketKind::Ack => sender_hook(now, ev, out, hosts, losses, fl, |s, io| s.on_ack(p, io)),
            PacketKind::Syn => {
                if let FlowState::Tcp(t) = &mut fl.state {
                    t.receiver.on_syn(p, now, out);
                }
            }
            PacketKind::SynAck => sender_hook(now, ev, out, hosts, losses, fl, |s, io| s.on_syn_ack(p, io)),
            PacketKind::HandshakeAck => {} // the receiver opened the connection with the SYN
            PacketKind::Udp => {
                if let FlowState::Cbr(c) = &mut fl.state {
                    if *measuring {
                        c.one_way.record(now - p.created);
                    }
                    c.received_bytes += u64::from(p.len);
                    c.received_packets += 1;
                }
            }
        }
        let (flow, kind) = (p.flow, p.kind);
        self.pool.free(id);
        if matches!(kind, PacketKind::Ack | PacketKind::SynAck) {
            self.record_losses(flow);
        }
    }

    fn drop_packet(&mut self, id: PacketId, dir: u32, cause: DropCause) {
        let p = *self.pool.get(id);
        let (kind, flow, seq, tx_no) = (p.kind, p.flow, p.seq, p.tx_no);
        self.pool.free(id);
        if kind == PacketKind::Data {
            if let FlowState::Tcp(t) = &mut self.flows[flow as usize].state {
                t.oracle.on_drop(seq, tx_no, cause);
            }
        }
        if let Some(tr) = self.traces.as_mut() {
            tr.push_drop(self.now, dir, &p, cause);
        }
    }

    fn trace_sample(&mut self) {
        let t = to_secs(self.now);
        let Some(tr) = self.traces.as_mut() else { return };
        for (i, f) in self.flows.iter().enumerate() {
            if let FlowState::Tcp(tf) = &f.state {
                tr.flow_time.push(t);
                tr.flow_id.push(i as u32);
                let row = tf.sender.trace_row();
                for (col, v) in tr.flow_columns.iter_mut().zip(row.iter().chain([tf.receiver.rcv_nxt as f64].iter())) {
                    col.1.push(*v);
                }
                self.cc_vars.clear();
                tf.sender.cc().trace_vars(&mut self.cc_vars);
                for &(name, v) in &self.cc_vars {
                    tr.cc_time.push(t);
                    tr.cc_flow.push(i as u32);
                    tr.cc_name.push(name);
                    tr.cc_value.push(v);
                }
            }
        }
        for d in &self.dirs {
            tr.push_queue(self.now, d);
        }
        let iv = self.sc.trace_interval.expect("tracing is on");
        self.ev.schedule(self.now + iv, Event::TraceSample);
    }

    fn collect(mut self, wall_seconds: f64, loop_cpu_seconds: f64) -> RunResult {
        let sc = self.sc;
        let window = to_secs(sc.measure_to - sc.measure_from);
        let mut starved: Vec<(Starved, usize)> = Vec::new();
        let mut flows = Vec::with_capacity(self.flows.len());
        for (i, f) in self.flows.iter_mut().enumerate() {
            let cfg = &sc.flows[i];
            let end = f.at_measure_end.unwrap_or_else(|| f.progress());
            let goodput_bps = (end.0 - f.at_measure_start.0) as f64 * 8.0 / window;
            let throughput_bps = (end.1 - f.at_measure_start.1) as f64 * 8.0 / window;
            let mut r = FlowResult {
                id: i,
                name: cfg.name.clone(),
                kind: "tcp",
                cc: String::from("-"),
                src: sc.nodes[cfg.src].clone(),
                dst: sc.nodes[cfg.dst].clone(),
                goodput_bps,
                throughput_bps,
                delivered_bytes: f.progress().0,
                segments_sent: 0,
                retransmitted_segments: 0,
                unnecessary_retransmissions: 0,
                fast_retransmits: 0,
                timeouts: 0,
                max_backoff: 0,
                fast_retransmit_causes: Default::default(),
                timeout_causes: Default::default(),
                loss_verdicts: Default::default(),
                verdicts_by_cause: Default::default(),
                frto_spurious_timeouts: 0,
                mac_hints: 0,
                dsacks: 0,
                loss_probes: 0,
                syns_sent: 0,
                handshake_s: None,
                fct_s: None,
                mean_srtt_s: None,
                delay_mean_ms: None,
                delay_p50_ms: None,
                delay_p95_ms: None,
                delay_p99_ms: None,
                rtt_p50_ms: None,
                rtt_p95_ms: None,
                rtt_p99_ms: None,
                packets_received: 0,
            };
            match &mut f.state {
                FlowState::Tcp(t) => {
                    t.sender.finish(sc.duration, &mut t.counters);
                    let c = &t.counters;
                    r.cc = t.sender.cc().name().to_string();
                    r.segments_sent = c.segments_sent;
                    r.retransmitted_segments = c.retransmitted_segments;
                    r.unnecessary_retransmissions = c.unnecessary_retransmissions;
                    r.fast_retransmits = c.fast_retransmits;
                    r.timeouts = c.timeouts;
                    r.max_backoff = c.max_backoff;
                    r.fast_retransmit_causes = c.fast_retransmit_causes;
                    r.timeout_causes = c.timeout_causes;
                    r.loss_verdicts = c.verdicts.totals();
                    r.verdicts_by_cause = c.verdicts;
                    r.frto_spurious_timeouts = c.frto_spurious;
                    r.mac_hints = c.mac_hints;
                    r.dsacks = c.dsacks;
                    r.loss_probes = c.loss_probes;
                    r.syns_sent = c.syns_sent;
                    r.handshake_s = c.handshake_s;
                    // Flow completion time: from the application's start (the first SYN with
                    // the handshake) to the last byte held in order at the receiver.
                    r.fct_s = c.completed_at.map(|t| (t - cfg.start) as f64 / 1e9);
                    r.mean_srtt_s = (c.srtt_span > 0).then(|| c.srtt_area / c.srtt_span as f64 / 1e9);
                    set_delays(&mut r, &c.one_way);
                    (r.rtt_p50_ms, r.rtt_p95_ms, r.rtt_p99_ms) = (ms(c.rtt.quantile(0.5)), ms(c.rtt.quantile(0.95)), ms(c.rtt.quantile(0.99)));
                    if t.receiver.rcv_nxt == 0 {
                        let (fr, to) = (c.fast_retransmit_causes, c.timeout_causes);
                        let why = if fr.wireless + to.wireless > 0 {
                            Starved::PathLoss
                        } else if fr.congestion + to.congestion > 0 {
                            Starved::Queues
                        } else if c.segments_sent == 0 && c.syns_sent == 0 {
                            Starved::NothingSent
                        } else {
                            Starved::NoLossSeen
                        };
                        starved.push((why, i));
                    }
                }
                FlowState::Cbr(c) => {
                    r.kind = "cbr";
                    r.segments_sent = c.sent;
                    r.packets_received = c.received_packets;
                    set_delays(&mut r, &c.one_way);
                    if c.received_packets == 0 {
                        starved.push((Starved::Cbr, i));
                    }
                }
            }
            flows.push(r);
        }
        let mut warnings = crate::scenario::conditions::warnings(sc);
        warnings.extend(starved_warnings(sc, &starved));
        let fair: Vec<f64> = sc.fairness_flows.iter().map(|&i| flows[i].goodput_bps).collect();
        let drops = self
            .dirs
            .iter()
            .map(|d| DropResult {
                link: sc.links[d.id as usize / 2].name.clone(),
                from: sc.nodes[d.from as usize].clone(),
                to: sc.nodes[d.to as usize].clone(),
                queue: d.stats.drops[DropCause::Queue.index()],
                channel: d.stats.drops[DropCause::Channel.index()],
                outage: d.stats.drops[DropCause::Outage.index()],
                tx_packets: d.stats.tx_packets,
                sojourn_mean_ms: ms(d.sojourn.mean()),
                sojourn_p95_ms: ms(d.sojourn.quantile(0.95)),
                arq_retries: d.stats.retries,
                retry_limit_drops: d.stats.retry_limit_drops,
            })
            .collect();
        let wifi = self
            .wifi
            .iter()
            .enumerate()
            .flat_map(|(c, ch)| {
                let w = &sc.wifi[c];
                w.stations.iter().enumerate().map(move |(i, &(node, _, _))| {
                    let s = ch.stats(i as u32);
                    WifiStationResult {
                        channel: w.name.clone(),
                        node: sc.nodes[node].clone(),
                        attempts: s.attempts,
                        successes: s.successes,
                        retries: s.retries,
                        collisions: s.collisions,
                        frame_errors: s.frame_errors,
                        retry_limit_drops: s.retry_limit_drops,
                        gave_up_after_delivery: s.gave_up_after_delivery,
                        queue_drops: s.queue_drops,
                        ampdus: s.ampdus,
                        ampdu_mpdus: s.ampdu_mpdus,
                    }
                })
            })
            .collect();
        RunResult {
            scenario: sc.name.clone(),
            profile: sc.profile.to_string(),
            wifi,
            seed: sc.seed,
            replication: sc.replication,
            flows,
            jain_fairness: jain_index(&fair),
            drops,
            events: self.ev.processed(),
            sim_seconds: to_secs(sc.duration),
            wall_seconds,
            loop_cpu_seconds,
            peak_packets: self.pool.capacity_used(),
            warnings,
            traces: self.traces.take(),
        }
    }
}

/// Why a flow delivered no data, as far as its loss events tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Starved {
    /// Some of its losses came from a loss model, an outage or the 802.11 channel.
    PathLoss,
    /// Every loss it saw was a drop at a full queue.
    Queues,
    /// It sent segments but saw no loss event before the run ended.
    NoLossSeen,
    /// It sent nothing.
    NothingSent,
    /// A CBR flow none of whose packets arrived.
    Cbr,
}

/// One warning per cause for the flows that delivered no data, naming a few of them.
fn starved_warnings(sc: &Scenario, starved: &[(Starved, usize)]) -> Vec<String> {
    let mut by_cause: std::collections::BTreeMap<Starved, Vec<usize>> = Default::default();
    for &(why, i) in starved {
        by_cause.entry(why).or_default().push(i);
    }
    // The largest group of flows that start at the same instant, for the congestion case.
    let mut starts: std::collections::HashMap<Time, usize> = Default::default();
    for f in &sc.flows {
        *starts.entry(f.start).or_default() += 1;
    }
    let (&start, &together) = starts.iter().max_by_key(|&(t, n)| (*n, std::cmp::Reverse(*t))).expect("a run has flows");
    by_cause
        .into_iter()
        .map(|(why, flows)| {
            let mut names: Vec<String> = flows.iter().take(3).map(|&i| format!("`{}`", sc.flows[i].name)).collect();
            if flows.len() > names.len() {
                names.push(format!("... {} more", flows.len() - names.len()));
            }
            let who = if flows.len() == 1 { format!("flow {}", names[0]) } else { format!("{} flows ({})", flows.len(), names.join(", ")) };
            let cause = match why {
                Starved::PathLoss => "some of their segments were lost on the path (a loss model, an outage or the 802.11 channel): the path may be unusable (loss rate 1, or an outage covering the run)".to_string(),
                Starved::Queues => {
                    let crowd = if together > 1 {
                        format!("; {together} flows start at {} s together (spread them with start_stagger_s)", secs_f(start))
                    } else {
                        String::new()
                    };
                    format!("every loss they detected was a drop at a full queue (congestion), none a loss model's or an outage's, and their retransmissions did not get through before the run ended{crowd}; a larger queue or a longer run may help")
                }
                Starved::NoLossSeen => "they sent segments but no loss was detected and nothing arrived before the run ended (a run too short for the path's delay or for the handshake)".to_string(),
                Starved::NothingSent => "they sent nothing (they started too close to the end of the run, or their application had no data)".to_string(),
                Starved::Cbr => "none of their packets arrived (dropped at queues or lost on the path)".to_string(),
            };
            format!("{who} delivered no data: {cause}")
        })
        .collect()
}

fn secs_f(t: Time) -> f64 {
    t as f64 / 1e9
}

/// Run a scenario to completion.
pub fn run(sc: &Scenario) -> RunResult {
    World::new(sc).run()
}

/// Run a scenario, polled as [`World::run_polled`] describes (building the world is not
/// polled).
pub fn run_polled(sc: &Scenario, mut poll: impl FnMut(Progress) -> ControlFlow<()>) -> Result<RunResult, Stopped> {
    World::new(sc).run_polled(&mut poll)
}

/// Run a scenario, polled, its traces handed to `sink` in chunks as
/// [`World::run_streamed`] describes.
pub fn run_streamed(sc: &Scenario, mut poll: impl FnMut(Progress) -> ControlFlow<()>, mut sink: impl FnMut(Traces)) -> Result<RunResult, Stopped> {
    World::new(sc).run_streamed(&mut poll, &mut sink)
}

/// Run a scenario, polled, its traces handed to `sink` in chunks if given (as
/// [`World::run_streamed`]) and its packets to `tap` if given (as [`World::with_tap`]).
pub fn run_with(sc: &Scenario, poll: &mut dyn FnMut(Progress) -> ControlFlow<()>, sink: Option<&mut dyn FnMut(Traces)>, tap: Option<&mut dyn PacketTap>) -> Result<RunResult, Stopped> {
    let w = World::new(sc);
    let w = match tap {
        Some(tap) => w.with_tap(tap),
        None => w,
    };
    w.run_inner(poll, sink)
}

/// The packet whose transmission on `d` ends now, to a capture (at its start).
#[cold]
fn capture_link_tx(tap: &mut dyn PacketTap, d: &LinkDir, pool: &PacketPool, now: Time) {
    if let Some((id, start)) = d.in_tx(now, pool) {
        tap.link_tx(d.id, start, pool.get(id));
    }
}

/// Run a scenario until it ends or `stop` is set (checked every [`POLL_EVERY`] events).
pub fn run_until(sc: &Scenario, stop: &std::sync::atomic::AtomicBool) -> Result<RunResult, Stopped> {
    run_polled(sc, |_| if stop.load(std::sync::atomic::Ordering::Relaxed) { ControlFlow::Break(()) } else { ControlFlow::Continue(()) })
}

/// Nanoseconds as milliseconds.
fn ms(ns: Option<f64>) -> Option<f64> {
    ns.map(|v| v / 1e6)
}

/// A flow's one-way delay mean and percentiles.
fn set_delays(r: &mut FlowResult, h: &DelayHistogram) {
    r.delay_mean_ms = ms(h.mean());
    (r.delay_p50_ms, r.delay_p95_ms, r.delay_p99_ms) = (ms(h.quantile(0.5)), ms(h.quantile(0.95)), ms(h.quantile(0.99)));
}
