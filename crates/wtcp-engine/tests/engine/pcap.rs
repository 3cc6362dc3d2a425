//! Packet captures (`run_with` + `pcap::Capture`): the files hold one record per packet a
//! link direction put on the wire, and a run gives the same results with or without them.

use crate::common;

use std::fs::File;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use common::{fingerprint, load};
use pcap_file::pcap::PcapReader;
use pcap_file::{DataLink, TsResolution};
use wtcp_engine::pcap::{check_disk, Capture};
use wtcp_engine::scenario::TraceStore;
use wtcp_engine::{run, run_with, RunResult, Scenario};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wtcp-pcap-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn captured(sc: &Scenario, dir: &Path) -> (RunResult, Vec<wtcp_engine::pcap::CaptureFile>) {
    let mut cap = Capture::create(sc, dir).unwrap();
    let r = run_with(sc, &mut |_| ControlFlow::Continue(()), None, Some(&mut cap)).unwrap();
    (r, cap.finish().unwrap())
}

/// Records of a file: (time ns, captured length, original length).
fn records(path: &Path) -> Vec<(u128, usize, u32)> {
    let mut r = PcapReader::new(File::open(path).unwrap()).unwrap();
    let h = r.header();
    assert_eq!(h.datalink, DataLink::RAW);
    assert_eq!(h.ts_resolution, TsResolution::NanoSecond);
    assert_eq!(h.snaplen, 80);
    let mut out = Vec::new();
    // Raw records: pcap-file 2.0.0's checked reader refuses an original length above the
    // snap length, which is what a header-only capture has (tcpdump and Wireshark read it).
    while let Some(p) = r.next_raw_packet() {
        let p = p.unwrap();
        assert!(p.ts_frac < 1_000_000_000);
        assert_eq!(p.incl_len as usize, p.data.len());
        out.push((u128::from(p.ts_sec) * 1_000_000_000 + u128::from(p.ts_frac), p.data.len(), p.orig_len));
    }
    out
}

const LOSSY: &[(&str, &str)] = &[
    ("run.duration_s", "20"),
    ("tcp.sack", "true"),
    ("tcp.timestamps", "true"),
    ("tcp.handshake", "true"),
    ("links.1.ab.loss.rate", "0.02"),
];

#[test]
fn a_record_per_transmission_and_identical_results() {
    let sc = load("scenarios/reference-simple2.toml", LOSSY);
    let dir = temp_dir("simple2");
    let (with, files) = captured(&sc, &dir);
    let without = run(&sc);
    assert_eq!(fingerprint(&with), fingerprint(&without), "a capture changes nothing in the run");
    assert_eq!(files.len(), 4);
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["wired_S_to_BS.pcap", "wired_BS_to_S.pcap", "wireless_BS_to_D.pcap", "wireless_D_to_BS.pcap"]);
    for (f, d) in files.iter().zip(&with.drops) {
        let recs = records(&dir.join(&f.name));
        assert_eq!(recs.len() as u64, d.tx_packets, "{}", f.name);
        assert_eq!(f.packets, d.tx_packets);
        assert!(recs.windows(2).all(|w| w[0].0 <= w[1].0), "records in time order");
        assert!(recs.iter().all(|&(_, cap, orig)| cap <= orig as usize && cap >= 40));
    }
    // Data segments are 1000 + 52 bytes on the wire; nothing else is that long.
    let data = records(&dir.join("wireless_BS_to_D.pcap")).iter().filter(|r| r.2 == 1052).count() as u64;
    assert!(data > 0 && data <= with.flows[0].segments_sent);
    assert!(std::fs::read_to_string(dir.join("hosts")).unwrap().starts_with("10.0.0.1\tS\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn wifi_stations_have_a_file_each() {
    let sc = load("scenarios/wifi-one-hop.toml", &[("run.duration_s", "8")]);
    let dir = temp_dir("wifi");
    let (with, files) = captured(&sc, &dir);
    assert_eq!(fingerprint(&with), fingerprint(&run(&sc)));
    let wifi: Vec<_> = files.iter().filter(|f| f.kind == "wifi").collect();
    assert_eq!(wifi.len(), with.wifi.len());
    // What a station's MAC can still hold at the end: its interface queue and the frame in service.
    let held = sc.wifi[0].config.queue_limit as u64 + 1;
    for (f, s) in wifi.iter().zip(&with.wifi) {
        assert_eq!(f.from, s.node);
        // Each packet the MAC took in is recorded once; it ends as a success, a drop at the
        // retry limit, or is still held when the run ends.
        assert!(f.packets >= s.successes + s.retry_limit_drops, "{}", f.name);
        assert!(f.packets <= s.successes + s.retry_limit_drops + held, "{}", f.name);
        assert_eq!(records(&dir.join(&f.name)).len() as u64, f.packets);
    }
    assert!(wifi.iter().all(|f| f.packets > 0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_capture_past_the_disk_budget_is_refused_with_its_estimate() {
    let sc = load("scenarios/reference-simple2.toml", &[("run.duration_s", "1e7")]);
    let e = check_disk(&sc, TraceStore::Memory).unwrap_err();
    assert_eq!(e.path, "run.duration_s");
    assert!(e.message.contains("packet captures") && e.message.contains("on disk") && e.message.contains("WTCP_DISK_BUDGET_GIB"), "{}", e.message);
    check_disk(&load("scenarios/reference-simple2.toml", &[]), TraceStore::Memory).unwrap();
}

#[test]
fn an_unwritable_directory_fails_before_the_run() {
    let sc = load("scenarios/reference-simple2.toml", &[]);
    let file = temp_dir("not-a-dir");
    std::fs::write(&file, b"x").unwrap();
    let e = Capture::create(&sc, &file.join("sub")).err().expect("a file in the way");
    assert!(e.to_string().contains("not-a-dir"), "{e}");
    let _ = std::fs::remove_file(&file);
}

/// IP ECN field and TCP flags of each record.
fn ecn_and_flags(path: &Path) -> Vec<(u8, u8)> {
    let mut r = PcapReader::new(File::open(path).unwrap()).unwrap();
    let mut out = Vec::new();
    while let Some(p) = r.next_raw_packet() {
        let d = p.unwrap().data;
        out.push((d[1] & 0b11, d[20 + 13]));
    }
    out
}

#[test]
fn ecn_marks_echoes_and_window_reductions_show() {
    let red = "{ discipline = \"red\", limit_packets = 100, min_th = 5, max_th = 15, max_p = 0.1, weight = 0.02, ecn = true }";
    let sc = common::parse(common::TWO_HOP, &[("links.1.queue", red), ("tcp.ecn", "true"), ("tcp.handshake", "true"), ("run.measure_from_s", "2")]);
    let dir = temp_dir("ecn");
    let (with, files) = captured(&sc, &dir);
    assert_eq!(fingerprint(&with), fingerprint(&run(&sc)));
    let [first, back, bottleneck, acks] = [0, 1, 2, 3].map(|i| ecn_and_flags(&dir.join(&files[i].name)));
    let (syn, ece, cwr, ack) = (0x02, 0x40, 0x80, 0x10);
    // RFC 3168 §6.1.1: ECE + CWR on the SYN, ECE on the SYN-ACK; then ECT(0) on data.
    assert_eq!(first[0], (0, syn | ece | cwr));
    assert_eq!(back[0], (0, syn | ack | ece));
    assert!(first[1..].iter().all(|&(e, _)| e == 0b10), "data is ECT(0) before the bottleneck");
    // The RED queue marks CE on the bottleneck, the receiver echoes ECE, the sender answers CWR.
    assert!(bottleneck.iter().any(|&(e, _)| e == 0b11));
    assert!(acks[1..].iter().any(|&(e, f)| e == 0 && f & ece != 0));
    assert!(first[1..].iter().any(|&(_, f)| f & cwr != 0));
    let _ = std::fs::remove_dir_all(&dir);
}
