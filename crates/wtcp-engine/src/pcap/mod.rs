//! Packet captures: a pcap file per link direction and per 802.11 station, as tcpdump on
//! the sending interface would record them (docs/pcap.md).
//!
//! The run hands each packet to a [`PacketTap`] where it goes on the medium (see
//! [`crate::sim::run_with`]); [`Capture`] writes its IPv4 + TCP/UDP headers
//! ([`headers::encode`]) to the file of that link direction or station, streamed through
//! a small buffer per file. Only headers are stored (a snap length of
//! [`headers::MAX_HEADER`] bytes); each record keeps the packet's full length. The tap
//! reads the packets and changes nothing, so a run gives the same results with or
//! without it.

pub mod headers;

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, PcapError, TsResolution};

use crate::packet::Packet;
use crate::scenario::budget::{self, fmt_count, path_of, Item, Limits, TraceStore};
use crate::scenario::{FlowApp, Scenario, ScenarioError};
use crate::time::Time;
use headers::{FlowWire, MAX_HEADER};

/// Where packets go on the medium, handed over by the run as they do.
pub trait PacketTap {
    /// Link direction `dir` (link `dir / 2`, a -> b when even) began serialising `p` at
    /// `start`. Called once per transmission on the wire (a link-layer ARQ repeat is
    /// another), when the transmission ends, so a run's file holds the transmissions it
    /// completed (the link's `tx_packets`).
    fn link_tx(&mut self, dir: u32, start: Time, p: &Packet);
    /// Station `station` of 802.11 channel `channel` took `p` into its MAC at `at` (the
    /// interface queue accepted it); once per packet, whatever the MAC's retries.
    fn wifi_tx(&mut self, channel: u32, station: u32, at: Time, p: &Packet);
}

/// One capture file written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureFile {
    /// File name within the capture directory.
    pub name: String,
    /// `link` or `wifi`.
    pub kind: &'static str,
    /// The link's or the 802.11 channel's name.
    pub medium: String,
    /// The sending node.
    pub from: String,
    /// The receiving node (a link's far end; empty for an 802.11 station).
    pub to: String,
    pub packets: u64,
}

struct Output {
    file: CaptureFile,
    w: PcapWriter<BufWriter<File>>,
}

/// Pcap files for every link direction and 802.11 station of a scenario.
pub struct Capture {
    dir: PathBuf,
    links: Vec<Output>,
    /// `wifi[channel][station]`.
    wifi: Vec<Vec<Output>>,
    flows: Vec<FlowWire>,
    buf: [u8; MAX_HEADER],
    error: Option<io::Error>,
    failed: Arc<AtomicBool>,
}

/// The pcap file header: LINKTYPE_RAW (raw IPv4, no link-layer header: the simulated
/// links model a header's bytes, not its format), nanosecond timestamps (the engine's
/// clock), header-only snap length.
fn file_header() -> PcapHeader {
    PcapHeader {
        version_major: 2,
        version_minor: 4,
        ts_correction: 0,
        ts_accuracy: 0,
        snaplen: MAX_HEADER as u32,
        datalink: DataLink::RAW,
        ts_resolution: TsResolution::NanoSecond,
        endianness: Endianness::Little,
    }
}

fn io_err(e: PcapError) -> io::Error {
    match e {
        PcapError::IoError(e) => e,
        other => io::Error::other(other.to_string()),
    }
}

/// `name` with every character but letters, digits, `.`, `-` and `_` replaced by `_`.
fn safe(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' }).collect()
}

impl Capture {
    /// Create `dir` (and its parents) and the capture files in it, with the name and
    /// flow tables `hosts` and `flows.csv`. Fails (an I/O error naming the path) before
    /// anything runs when the directory or a file cannot be written.
    pub fn create(sc: &Scenario, dir: &Path) -> io::Result<Capture> {
        if sc.nodes.len() > headers::MAX_NODES {
            return Err(io::Error::other(format!("a packet capture numbers at most {} nodes (10.0.0.1 ..= 10.255.255.254); the scenario has {}", headers::MAX_NODES, sc.nodes.len())));
        }
        let at = |e: io::Error, p: &Path| io::Error::new(e.kind(), format!("{}: {e}", p.display()));
        fs::create_dir_all(dir).map_err(|e| at(e, dir))?;
        let mut used = std::collections::HashSet::new();
        let mut open = |stem: String, file: CaptureFile| -> io::Result<Output> {
            let mut name = format!("{stem}.pcap");
            let mut n = 1;
            while !used.insert(name.clone()) {
                n += 1;
                name = format!("{stem}_{n}.pcap");
            }
            let path = dir.join(&name);
            let f = create_no_follow(&path).map_err(|e| at(e, &path))?;
            let w = PcapWriter::with_header(BufWriter::new(f), file_header()).map_err(io_err).map_err(|e| at(e, &path))?;
            Ok(Output { file: CaptureFile { name, ..file }, w })
        };
        let mut links = Vec::with_capacity(sc.links.len() * 2);
        for l in &sc.links {
            for (from, to) in [(l.a, l.b), (l.b, l.a)] {
                let (from, to) = (&sc.nodes[from], &sc.nodes[to]);
                let file = CaptureFile { name: String::new(), kind: "link", medium: l.name.clone(), from: from.clone(), to: to.clone(), packets: 0 };
                links.push(open(format!("{}_{}_to_{}", safe(&l.name), safe(from), safe(to)), file)?);
            }
        }
        let mut wifi = Vec::with_capacity(sc.wifi.len());
        for w in &sc.wifi {
            let mut stations = Vec::with_capacity(w.stations.len());
            for &(node, _, _) in &w.stations {
                let node = &sc.nodes[node];
                let file = CaptureFile { name: String::new(), kind: "wifi", medium: w.name.clone(), from: node.clone(), to: String::new(), packets: 0 };
                stations.push(open(format!("wifi_{}_{}", safe(&w.name), safe(node)), file)?);
            }
            wifi.push(stations);
        }
        let flows: Vec<FlowWire> = sc.flows.iter().enumerate().map(|(i, f)| FlowWire::of(i as u32, f)).collect();
        write_tables(sc, &flows, dir)?;
        Ok(Capture { dir: dir.to_path_buf(), links, wifi, flows, buf: [0; MAX_HEADER], error: None, failed: Arc::default() })
    }

    /// Set when a write failed (the capture then stops writing; [`Capture::finish`] returns
    /// the error). A run's poll may watch it to stop the run early.
    pub fn failed_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.failed)
    }

    fn record(out: &mut Output, flow: &FlowWire, buf: &mut [u8; MAX_HEADER], at: Time, p: &Packet, error: &mut Option<io::Error>, failed: &AtomicBool) {
        if error.is_some() {
            return;
        }
        let (n, wire) = headers::encode(flow, p, buf);
        let rec = PcapPacket::new(Duration::from_nanos(at), wire, &buf[..n]);
        match out.w.write_packet(&rec) {
            Ok(_) => out.file.packets += 1,
            Err(e) => {
                let e = io_err(e);
                *error = Some(io::Error::new(e.kind(), format!("writing {}: {e}", out.file.name)));
                failed.store(true, Ordering::Relaxed);
            }
        }
    }

    /// Flush the files and list them in `captures.csv` (file, kind, medium, from, to,
    /// packets); the files written (link directions in the order of `[[links]]`, a -> b
    /// first, then the 802.11 stations by channel) or the first write error.
    pub fn finish(self) -> io::Result<Vec<CaptureFile>> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let mut files = Vec::with_capacity(self.links.len());
        for o in self.links.into_iter().chain(self.wifi.into_iter().flatten()) {
            let name = o.file.name.clone();
            o.w.into_writer().flush().map_err(|e| io::Error::new(e.kind(), format!("writing {name}: {e}")))?;
            files.push(o.file);
        }
        let at = |e: io::Error| io::Error::new(e.kind(), format!("writing {}: {e}", self.dir.join("captures.csv").display()));
        write_index(&files, &self.dir).map_err(at)?;
        Ok(files)
    }
}

impl PacketTap for Capture {
    fn link_tx(&mut self, dir: u32, start: Time, p: &Packet) {
        Self::record(&mut self.links[dir as usize], &self.flows[p.flow as usize], &mut self.buf, start, p, &mut self.error, &self.failed);
    }

    fn wifi_tx(&mut self, channel: u32, station: u32, at: Time, p: &Packet) {
        Self::record(&mut self.wifi[channel as usize][station as usize], &self.flows[p.flow as usize], &mut self.buf, at, p, &mut self.error, &self.failed);
    }
}

/// `hosts` (address and node name, as /etc/hosts: Wireshark's name resolution reads it)
/// and `flows.csv` (each flow's addresses, ports and initial sequence numbers).
fn write_tables(sc: &Scenario, flows: &[FlowWire], dir: &Path) -> io::Result<()> {
    // Each error names its file (a full disk: "writing DIR/hosts: No space left on device").
    let named = |path: PathBuf| move |e: io::Error| io::Error::new(e.kind(), format!("writing {}: {e}", path.display()));
    let write_hosts = || -> io::Result<()> {
        let mut hosts = BufWriter::new(create_no_follow(&dir.join("hosts"))?);
        for (i, n) in sc.nodes.iter().enumerate() {
            writeln!(hosts, "{}\t{}", ip(headers::node_address(i as u32)), safe(n))?;
        }
        hosts.flush()
    };
    write_hosts().map_err(named(dir.join("hosts")))?;
    write_flows(sc, flows, dir).map_err(named(dir.join("flows.csv")))
}

fn ip(a: [u8; 4]) -> String {
    format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])
}

fn write_flows(sc: &Scenario, flows: &[FlowWire], dir: &Path) -> io::Result<()> {
    let mut csv = BufWriter::new(create_no_follow(&dir.join("flows.csv"))?);
    writeln!(csv, "flow,name,protocol,src,src_ip,src_port,dst,dst_ip,dst_port,isn_src,isn_dst")?;
    for (i, (f, w)) in sc.flows.iter().zip(flows).enumerate() {
        let name = csv_field(&f.name);
        let (proto, isn) = if w.udp { ("udp", ["".to_string(), "".to_string()]) } else { ("tcp", [w.isn[0].to_string(), w.isn[1].to_string()]) };
        let (src, dst) = (&sc.nodes[f.src], &sc.nodes[f.dst]);
        let (src, dst) = (csv_field(src), csv_field(dst));
        writeln!(csv, "{i},{name},{proto},{src},{},{},{dst},{},{},{},{}", ip(w.src), w.sport, ip(w.dst), w.dport, isn[0], isn[1])?;
    }
    csv.flush()
}

/// Create (truncate) a file in the capture folder, refusing a symbolic link at its name: a
/// link planted there must not make a capture overwrite its target (`O_NOFOLLOW`).
fn create_no_follow(path: &Path) -> io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path).map_err(|e| {
        if path.is_symlink() {
            io::Error::new(io::ErrorKind::PermissionDenied, format!("{}: is a symbolic link; wtcp does not write through links", path.display()))
        } else {
            e
        }
    })
}

/// A CSV field, quoted when it must be.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn write_index(files: &[CaptureFile], dir: &Path) -> io::Result<()> {
    let mut csv = BufWriter::new(create_no_follow(&dir.join("captures.csv"))?);
    writeln!(csv, "file,kind,medium,from,to,packets")?;
    for f in files {
        writeln!(csv, "{},{},{},{},{},{}", csv_field(&f.name), f.kind, csv_field(&f.medium), csv_field(&f.from), csv_field(&f.to), f.packets)?;
    }
    csv.flush()
}

/// Bytes of a pcap record: its 16-byte record header and the captured headers.
const RECORD_HEADER: f64 = 16.0;

/// An upper bound of the capture's bytes on disk: each flow sending at its path's
/// bottleneck rate for as long as it is active, a record per packet per hop (data, and an
/// ACK per data segment), bounded by what every link direction and channel can carry of
/// the smallest packets.
pub fn estimate_item(sc: &Scenario) -> Item {
    let secs = |t: Time| t as f64 / 1e9;
    let duration = secs(sc.duration);
    let mut bytes = 0.0;
    let mut records = 0.0;
    for f in &sc.flows {
        let active = secs(f.stop.unwrap_or(sc.duration).min(sc.duration).saturating_sub(f.start));
        let (hops, wifi_hops, rate) = path_of(sc, f.src, f.dst);
        let hops = (hops + wifi_hops) as f64;
        match &f.app {
            FlowApp::Tcp(t) => {
                let c = &t.tcp;
                let opts: f64 = if c.timestamps { 12.0 } else { 0.0 };
                let packets = rate * active / (8.0 * f64::from(c.mss + c.packet_overhead()));
                let sack: f64 = if c.sack { 36.0 } else { 0.0 };
                let (data, ack) = (40.0 + opts, (40.0 + opts + sack).min(MAX_HEADER as f64));
                records += 2.0 * packets * hops;
                bytes += packets * hops * (2.0 * RECORD_HEADER + data + ack);
            }
            FlowApp::Cbr(c) => {
                let packets = c.rate_bps * active / (8.0 * f64::from(c.packet_bytes + 28));
                records += packets * hops;
                bytes += packets * hops * (RECORD_HEADER + 28.0);
            }
        }
    }
    // What the media can carry: 40-byte packets back to back on every link direction and
    // at the data rate on every channel.
    let mut capacity = 0.0;
    for l in &sc.links {
        capacity += 2.0 * l.rate_bps * duration / (8.0 * f64::from(40 + l.link_header_bytes));
    }
    for w in &sc.wifi {
        capacity += f64::from(w.config.data_kbps) * 1e3 * duration / (8.0 * 40.0);
    }
    let largest = RECORD_HEADER + MAX_HEADER as f64;
    if records > capacity {
        bytes = bytes.min(capacity * largest);
        records = capacity;
    }
    Item {
        path: "run.duration_s".into(),
        what: format!("packet captures of {} flow{} over {} s: about {} records", sc.flows.len(), if sc.flows.len() == 1 { "" } else { "s" }, duration, fmt_count(records)),
        count: duration,
        unit: "simulated seconds",
        bytes,
        events: 0.0,
        hint: "shorten run.duration_s, use slower links or fewer flows, or run without the packet capture".into(),
    }
}

/// Refuse a run whose packet capture, with its streamed traces (if `traces` is
/// [`TraceStore::Disk`]), would exceed the disk budget (`WTCP_DISK_BUDGET_GIB`).
pub fn check_disk(sc: &Scenario, traces: TraceStore) -> Result<(), ScenarioError> {
    let limits = Limits::from_env()?;
    let entry_of: Vec<usize> = (0..sc.flows.len()).collect();
    let mut est = budget::estimate(sc, &entry_of, traces);
    // Memory and events were checked when the scenario was resolved.
    est.items.clear();
    est.disk.push(estimate_item(sc));
    est.check(&limits)
}

#[cfg(test)]
mod tests;
