"""Packet captures (`wtcp run --pcap DIR`, `Scenario.run(pcap_dir=...)`): pcap files that
packet tools read, whose packets agree with the run's own counts (docs/pcap.md)."""

from __future__ import annotations

import csv
import shutil
import struct
import subprocess
from pathlib import Path

import dpkt
import pytest

import wtcp
from conftest import reference_path, run_cli, without_wall

LINKTYPE_RAW = 101
NANO_MAGIC_LE = bytes.fromhex("4d3cb2a1")
MSS = 1000
# reference-simple2 for 20 s with 2 % loss on the last hop, SACK, timestamps and the
# handshake: losses, fast retransmits and SACK blocks within a second of simulated time.
OVERRIDES = {
    "run.duration_s": 20.0,
    "links.1.ab.loss.rate": 0.02,
    "tcp.sack": True,
    "tcp.timestamps": True,
    "tcp.handshake": True,
}


def scenario() -> wtcp.Scenario:
    return wtcp.load(reference_path()).with_overrides(OVERRIDES)


def tcp_options(tcp: dpkt.tcp.TCP) -> dict[int, bytes]:
    return dict(dpkt.tcp.parse_opts(tcp.opts))


def read(path: Path) -> list[tuple[int, int, dpkt.ip.IP]]:
    """(capture time in ns, length on the wire, IP packet) of each record."""
    with open(path, "rb") as f:
        assert f.read(4) == NANO_MAGIC_LE, "a nanosecond pcap file"
        f.seek(0)
        reader = dpkt.pcap.Reader(f)
        assert reader.datalink() == LINKTYPE_RAW
        assert reader.snaplen == 80
        out = []
        for ts, buf in reader:
            ip = dpkt.ip.IP(buf)
            out.append((round(ts * 10**9), ip.len, ip))
    return out


@pytest.fixture(scope="module")
def captured(tmp_path_factory):
    d = tmp_path_factory.mktemp("pcap")
    result = scenario().run(pcap_dir=d)
    with open(d / "captures.csv", newline="") as f:
        files = list(csv.DictReader(f))
    with open(d / "flows.csv", newline="") as f:
        flows = list(csv.DictReader(f))
    return d, result, files, flows


def test_results_are_identical_with_and_without_the_capture(captured):
    _, result, _, _ = captured
    assert without_wall(result.to_json()) == without_wall(scenario().run().to_json())


def test_a_file_per_link_direction_with_a_record_per_packet_sent(captured):
    d, result, files, _ = captured
    drops = {(x["link"], x["from"], x["to"]): x for x in result.raw["drops"]}
    assert [f["file"] for f in files] == ["wired_S_to_BS.pcap", "wired_BS_to_S.pcap", "wireless_BS_to_D.pcap", "wireless_D_to_BS.pcap"]
    for f in files:
        records = read(d / f["file"])
        sent = drops[(f["medium"], f["from"], f["to"])]["tx_packets"]
        assert len(records) == int(f["packets"]) == sent, f["file"]
        times = [t for t, _, _ in records]
        assert times == sorted(times)
        for _, wire, ip in records:
            # A valid IPv4 header checksum: recomputed over the header, it is 0.
            assert dpkt.in_cksum(bytes(ip)[: ip.hl * 4]) == 0
            assert isinstance(ip.data, dpkt.tcp.TCP)
            assert wire == ip.len >= 40
    assert (d / "hosts").read_text().splitlines() == ["10.0.0.1\tS", "10.0.0.2\tBS", "10.0.0.3\tD"]


def test_sequence_numbers_retransmissions_sack_and_timestamps(captured):
    d, result, _, flows = captured
    flow = result.raw["flows"][0]
    isn_s, isn_d = int(flows[0]["isn_src"]), int(flows[0]["isn_dst"])
    assert (flows[0]["src_ip"], flows[0]["dst_ip"], flows[0]["src_port"], flows[0]["dst_port"]) == ("10.0.0.1", "10.0.0.3", "10000", "5000")
    rel = lambda seq, isn: (seq - isn - 1) % 2**32  # noqa: E731

    first_hop = read(d / "wired_S_to_BS.pcap")
    # The handshake: a SYN offering SACK and timestamps, seq = ISN.
    _, _, syn = first_hop[0]
    tcp = syn.data
    assert tcp.flags & dpkt.tcp.TH_SYN and not tcp.flags & dpkt.tcp.TH_ACK
    assert tcp.seq == isn_s and (tcp.sport, tcp.dport) == (10000, 5000)
    opts = tcp_options(tcp)
    assert dpkt.tcp.TCP_OPT_SACKOK in opts and dpkt.tcp.TCP_OPT_TIMESTAMP in opts
    assert struct.unpack("!H", opts[dpkt.tcp.TCP_OPT_MSS])[0] == MSS
    syn_ack = read(d / "wired_BS_to_S.pcap")[0][2].data
    assert syn_ack.flags & (dpkt.tcp.TH_SYN | dpkt.tcp.TH_ACK) == dpkt.tcp.TH_SYN | dpkt.tcp.TH_ACK
    assert syn_ack.seq == isn_d and syn_ack.ack == (isn_s + 1) % 2**32

    # Data: payload = IP length - headers; offsets start at 0 and cover what was delivered.
    data = [(t, ip.data, ip.len - ip.hl * 4 - ip.data.off * 4) for t, _, ip in first_hop[1:]]
    assert all(n == MSS for _, _, n in data)
    offsets = [rel(tcp.seq, isn_s) for _, tcp, _ in data]
    assert min(offsets) == 0 and all(o % MSS == 0 for o in offsets)
    assert max(offsets) + MSS >= flow["delivered_bytes"]
    # Retransmissions show as repeated sequence numbers: every retransmitted segment that
    # got past the first queue.
    repeats = len(offsets) - len(set(offsets))
    assert repeats > 0
    assert repeats <= flow["retransmitted_segments"]
    if result.raw["drops"][0]["queue"] == 0:
        assert repeats == flow["retransmitted_segments"]
    # Every segment sent is on the first hop, but those still queued at S when the run ends
    # (at most the queue's 100 and the one in transmission).
    assert flow["segments_sent"] - 101 <= len(data) <= flow["segments_sent"]
    assert flow["syns_sent"] == 1

    # Timestamps: TSval (µs) never decreases and was taken when the segment was sent.
    tsvals = []
    for t, tcp, _ in data:
        tsval, _ = struct.unpack("!II", tcp_options(tcp)[dpkt.tcp.TCP_OPT_TIMESTAMP])
        assert tsval * 1000 <= t
        tsvals.append(tsval)
    assert tsvals == sorted(tsvals) and tsvals[-1] > tsvals[0]

    # ACKs: cumulative ACK numbers up to the bytes delivered; after a loss, SACK blocks
    # above the cumulative ACK (RFC 2018), and TSecr echoing the data's TSval.
    acks = [ip.data for _, _, ip in read(d / "wireless_D_to_BS.pcap")[1:]]
    acked = [rel(a.ack, isn_s) for a in acks]
    assert acked == sorted(acked)
    assert flow["delivered_bytes"] - 2 * MSS <= acked[-1] <= flow["delivered_bytes"]
    sacked = 0
    for a in acks:
        opts = tcp_options(a)
        assert dpkt.tcp.TCP_OPT_TIMESTAMP in opts
        if dpkt.tcp.TCP_OPT_SACK in opts:
            raw = opts[dpkt.tcp.TCP_OPT_SACK]
            edges = [rel(e, isn_s) for e in struct.unpack(f"!{len(raw) // 4}I", raw)]
            blocks = list(zip(edges[::2], edges[1::2]))
            assert all(s < e for s, e in blocks)
            if blocks[0][0] >= rel(a.ack, isn_s):  # not a D-SACK
                sacked += 1
    assert sacked > 0
    assert flow["fast_retransmits"] > 0


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_tshark_reads_the_files(captured):
    d, _, files, _ = captured
    for f in files:
        out = subprocess.run(["tshark", "-r", str(d / f["file"]), "-T", "fields", "-e", "tcp.seq_raw"], capture_output=True, text=True, check=True)
        assert len(out.stdout.splitlines()) == int(f["packets"])


@pytest.mark.skipif(shutil.which("tcpdump") is None, reason="tcpdump is not installed")
def test_tcpdump_reads_the_files_and_checks_the_syn(captured):
    d, _, files, _ = captured
    for f in files:
        out = subprocess.run(["tcpdump", "-vvnr", str(d / f["file"])], capture_output=True, text=True, check=True)
        assert "link-type RAW" in out.stderr and "snapshot length 80" in out.stderr
        assert out.stdout.count(" IP (tos ") == int(f["packets"])
        assert "incorrect" not in out.stdout
    # The SYN has no payload, so tcpdump can verify its TCP checksum.
    first = subprocess.run(["tcpdump", "-vvnr", str(d / "wired_S_to_BS.pcap"), "-c", "1"], capture_output=True, text=True, check=True).stdout
    assert "Flags [S]" in first and "(correct)" in first and "sackOK" in first and "wscale 5" in first


def test_cli_writes_the_captures(tmp_path):
    done = run_cli("run", str(reference_path()), "--set", "run.duration_s=3", "--pcap", str(tmp_path / "cap"))
    assert done.returncode == 0, done.stderr
    assert "packet captures written to" in done.stderr and "4 pcap files" in done.stderr
    assert sorted(p.name for p in (tmp_path / "cap").glob("*.pcap")) == ["wired_BS_to_S.pcap", "wired_S_to_BS.pcap", "wireless_BS_to_D.pcap", "wireless_D_to_BS.pcap"]


def test_cbr_flows_are_udp(tmp_path):
    sc = wtcp.load("dumbbell-reverse-udp").with_overrides({"run.duration_s": 3.0, "run.measure_from_s": 1.0})
    sc.run(pcap_dir=tmp_path)
    with open(tmp_path / "flows.csv", newline="") as f:
        udp = [row for row in csv.DictReader(f) if row["protocol"] == "udp"]
    assert udp
    ports = {int(row["src_port"]) for row in udp}
    seen = 0
    for path in tmp_path.glob("*.pcap"):
        for _, wire, ip in read(path):
            if isinstance(ip.data, dpkt.udp.UDP):
                assert ip.data.sport in ports and ip.data.ulen == wire - 20
                seen += 1
    assert seen > 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["--engine", "ns3"], "--pcap needs --engine wtcp"),
        (["--set", "run.duration_s=1e7"], "on disk"),
    ],
)
def test_bad_use_exits_2_with_a_message(tmp_path, args, message):
    done = run_cli("run", str(reference_path()), "--pcap", str(tmp_path / "cap"), *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_a_capture_file_that_is_a_link_is_refused_before_the_run(tmp_path):
    # A link planted at a capture file's name (here to /dev/full) is not written through;
    # a full disk itself is tested in test_disk_full.py.
    (tmp_path / "wired_S_to_BS.pcap").symlink_to("/dev/full")
    control = wtcp.RunControl()
    with pytest.raises(OSError, match="wired_S_to_BS.pcap: is a symbolic link"):
        scenario().with_overrides({"run.duration_s": 200.0}).run(pcap_dir=tmp_path, control=control)
    assert control.sim_seconds == 0
    done = run_cli("run", str(reference_path()), "--pcap", str(tmp_path))
    assert done.returncode == 2
    assert "is a symbolic link" in done.stderr and "Traceback" not in done.stderr


def test_an_unwritable_directory_exits_2_before_the_run(tmp_path):
    (tmp_path / "file").write_text("x")
    done = run_cli("run", str(reference_path()), "--pcap", str(tmp_path / "file" / "cap"))
    assert done.returncode == 2
    assert "error:" in done.stderr and "file" in done.stderr and "Traceback" not in done.stderr
    with pytest.raises(OSError):
        scenario().run(pcap_dir=tmp_path / "file" / "cap")
    with pytest.raises(ValueError, match="pcap_dir applies to engine"):
        scenario().run(pcap_dir=tmp_path / "x", engine="ns3")
