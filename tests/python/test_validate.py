"""The validation suite (validation/, `wtcp validate`): the suite files load, the generated
section of docs/validation.md sits between its markers, the quick subset runs end to end,
and the ns-3 classes the ablations swap in reproduce ns-3's own classes exactly when their
switches are off (so an ablation changes one mechanism and nothing else).

The runs need the `ns3` package (`make test` installs it; WTCP_REQUIRE_NS3=1 fails rather
than skips without it).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import wtcp.cli
from wtcp.crosscheck import Config, crosscheck
from wtcp.errors import CliError
from wtcp.scenario import Scenario
from wtcp.validate import BEGIN, END, SuiteError, load_ablation_code, load_suite, write_section

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "validation"




def test_docs_validation_md_has_one_generated_section():
    text = (ROOT / "docs" / "validation.md").read_text(encoding="utf-8")
    assert text.count(BEGIN) == 1 and text.count(END) == 1
    assert text.index(BEGIN) < text.index(END)
    section = text.split(BEGIN, 1)[1].split(END, 1)[0]
    assert "points within 5 %" in section and "| algorithm |" in section


def test_the_suite_loads_and_every_point_translates():
    """Every scenario, algorithm, variant and loss rate of the suite passes ns-3's
    translator (checked before anything runs, as `wtcp validate` does)."""
    from wtcp.crosscheck import cases

    suite = load_suite(SUITE)
    assert [s.name for s in suite.scenarios] == ["simple2", "long-rtt-two-hop", "dumbbell-10", "lossy-hop-20"]
    assert suite.seeds == 3
    for spec in suite.scenarios:
        assert spec.loss_rates == [0.0, 0.01, 0.02, 0.05]
        assert {v.name for v in spec.variants} == {"SACK", "no SACK"}
        assert Scenario.from_file(spec.file).document  # the file resolves
        points = [{**v.set, spec.loss_path: 0.01} for v in spec.variants]
        assert len(cases(spec.scenario(), points, spec.algorithms)) == 2 * len(spec.algorithms)
    quick = load_suite(SUITE, quick=True)
    assert quick.seeds == 1 and quick.size() == 2 * len(quick.scenarios)


def test_the_802_11_suite_loads_and_every_point_translates():
    from wtcp.crosscheck import cases

    suite = load_suite(SUITE / "wifi")
    assert [s.name for s in suite.scenarios] == ["ap-download-b", "ap-downloads-g", "up-and-down-g", "chain-3hop-b"]
    for spec in suite.scenarios:
        assert spec.loss_path == "wifi.0.ber" and spec.loss_rates == [0.0, 5e-5]
        points = [{**v.set, spec.loss_path: 5e-5} for v in spec.variants]
        assert len(cases(spec.scenario(), points, spec.algorithms)) == 2 * len(spec.algorithms)
    text = (ROOT / "docs" / "validation-wifi.md").read_text(encoding="utf-8")
    section = text.split(BEGIN, 1)[1].split(END, 1)[0]
    assert "Suite `validation/wifi/` (full)" in section and "| MAC wtcp | MAC ns-3 |" in section


def test_the_modern_802_11_suite_loads_and_every_point_translates():
    from wtcp.crosscheck import cases
    from wtcp.ns3 import plan

    suite = load_suite(SUITE / "wifi-modern")
    radio = ["ap-download-radio-n", "ap-download-radio-n-45m", "ap-download-radio-n-fading"]
    minstrel = ["ap-download-minstrel-n", "up-and-down-minstrel-n", "ap-downloads-minstrel-n4"]
    assert [s.name for s in suite.scenarios] == ["ap-download-n", "ap-downloads-n4", "up-and-down-n", "ap-download-ac", *radio, *minstrel]
    for spec in suite.scenarios:
        assert [v.name for v in spec.variants] == ["A-MPDU", "no aggregation"]
        points = [{**v.set, spec.loss_path: 0.001} for v in spec.variants]
        runs = cases(spec.scenario(), points, spec.algorithms)
        assert len(runs) == 2 * len(spec.algorithms)
        # ns-3 takes every point: the aggregating ones with its A-MPDU size, the others without.
        plans = [plan(case.ns3.document).wifis[0] for case in runs]
        assert {w.ampdu_max_bytes for w in plans} == {0, 65535}
        # The radio scenarios reach ns-3 with the radio model and their rate control.
        expected = "ideal" if spec.name in radio else "minstrel_ht" if spec.name in minstrel else "constant"
        assert {(w.radio is not None, w.rate_control) for w in plans} == {(expected != "constant", expected)}
        assert {w.radio and w.radio["fading"] for w in plans} <= {None, "none", "rayleigh"}
    text = (ROOT / "docs" / "validation-wifi-modern.md").read_text(encoding="utf-8")
    section = text.split(BEGIN, 1)[1].split(END, 1)[0]
    assert "Suite `validation/wifi-modern/` (full)" in section


def test_a_quick_802_11_point_reports_the_mac_in_both_engines(ns3, tmp_path: Path):
    doc = tmp_path / "wifi.md"
    results = tmp_path / "results.json"
    out = CliRunner().invoke(wtcp.cli.cli, ["validate", "--quick", "--suite", str(SUITE / "wifi"), "--scenario", "ap-download-b", "--out", str(doc), "--results", str(results)])
    assert out.exit_code == 0, out.output
    point = json.loads(results.read_text(encoding="utf-8"))["points"][0]
    for engine in ("wtcp", "ns3"):
        # BER 5e-5 loses about 46 % of 1536-byte frames: the MAC retries in both engines.
        assert point[engine]["mac_retries"][0] > 500, engine
    assert "| newreno | SACK | 5e-05 |" in doc.read_text(encoding="utf-8")


def test_suite_mistakes_name_the_file_and_key(tmp_path: Path):
    (tmp_path / "suite.toml").write_text('scenarios = ["a"]\nseed = 3\n', encoding="utf-8")
    with pytest.raises(SuiteError, match="unknown key `seed`"):
        load_suite(tmp_path)
    (tmp_path / "suite.toml").write_text('scenarios = []\n[[ablations]]\nname = "x"\nset = { "tcp.sack" = true }\n', encoding="utf-8")
    with pytest.raises(SuiteError, match="not an option ns-3 fixes"):
        load_suite(tmp_path)


def test_the_section_is_replaced_between_the_markers(tmp_path: Path):
    doc = tmp_path / "v.md"
    doc.write_text(f"# Title\n\nbefore\n\n{BEGIN}\nold\n{END}\n\nafter\n", encoding="utf-8")
    write_section(doc, [BEGIN, "new", END])
    assert doc.read_text(encoding="utf-8") == f"# Title\n\nbefore\n\n{BEGIN}\nnew\n{END}\n\nafter\n"
    plain = tmp_path / "plain.md"
    plain.write_text("# Title\n", encoding="utf-8")
    write_section(plain, [BEGIN, "new", END])
    assert plain.read_text(encoding="utf-8") == f"# Title\n\n{BEGIN}\nnew\n{END}\n"
    broken = tmp_path / "broken.md"
    broken.write_text(f"{BEGIN}\n", encoding="utf-8")
    with pytest.raises(CliError, match="only one of the markers"):
        write_section(broken, [BEGIN, END])


def test_quick_validate_writes_the_section_and_the_results(ns3, tmp_path: Path):
    doc = tmp_path / "validation.md"
    doc.write_text(f"hand-written\n\n{BEGIN}\n{END}\n\nexplanations\n", encoding="utf-8")
    results = tmp_path / "results.json"
    out = CliRunner().invoke(wtcp.cli.cli, ["validate", "--quick", "--suite", str(SUITE), "--out", str(doc), "--results", str(results)])
    assert out.exit_code == 0, out.output
    text = doc.read_text(encoding="utf-8")
    assert text.startswith("hand-written\n") and text.endswith("\nexplanations\n")
    section = text.split(BEGIN, 1)[1].split(END, 1)[0]
    assert "quick subset" in section and "of 4 points within 5 %" in section
    rows = [line for line in section.splitlines() if line.startswith("| newreno | SACK | 1 % |")]
    assert len(rows) == 4  # one point per scenario
    data = json.loads(results.read_text(encoding="utf-8"))
    assert len(data["points"]) == 4 and data["meta"]["grid"]["runs"] == 8
    for p in data["points"]:
        assert len(p["wtcp"]["goodput_mbps"]) == 1 and p["ns3"]["goodput_mbps"][0] > 0
        flagged = p["diff_percent"] is None or abs(p["diff_percent"]) > 5.0
        # every flagged point gets the ablations that apply to it (here the wtcp-side
        # ones for NewReno), a point within the band none
        assert bool(p["ablations"]) == flagged
    # --reuse runs ns-3 nowhere again and wtcp everywhere (its numbers are reproduced)
    again = CliRunner().invoke(wtcp.cli.cli, ["validate", "--quick", "--suite", str(SUITE), "--results", str(results), "--reuse"])
    assert again.exit_code == 0, again.output
    redone = json.loads(results.read_text(encoding="utf-8"))
    # and the time it reports is its own: wtcp's 4 runs, said to have reused ns-3's numbers
    assert redone["meta"]["grid"]["runs"] == 4 and redone["meta"]["reused"] is True
    for before, after in zip(data["points"], redone["points"]):
        assert after["ns3"] == before["ns3"] and after["wtcp"]["goodput_mbps"] == before["wtcp"]["goodput_mbps"]


PAIRS = [
    # (wtcp algorithm and parameters, ns-3's class, the copy with its switches off)
    ("newreno", {"halve": "cwnd", "byte_counting": True, "abc_limit": 65535}, ("ns3::TcpLinuxReno", None), ("wtcpval::LinuxRenoCopy", None)),
    ("newreno", {}, (None, "ns3::TcpPrrRecovery"), (None, "wtcpval::PrrCopy")),
    ("veno", {}, ("ns3::TcpVeno", None), ("wtcpval::VenoCopy", None)),
]


@pytest.mark.parametrize("cc, params, original, copy", PAIRS, ids=["LinuxReno", "PRR", "Veno"])
def test_ablation_classes_with_switches_off_are_ns3s_own(ns3, cc, params, original, copy):
    load_ablation_code(SUITE)
    sc = Scenario.from_file(ROOT / "scenarios" / "reference-simple2.toml").with_overrides(
        {"run.duration_s": 12.0, "links.1.ab.loss.rate": 0.03, "tcp.sack": True, "tcp.recovery": "prr"}
    )
    rows = [crosscheck(sc, [{}], [Config(cc, cc, params, t, r)], [1, 2])[0] for t, r in (original, copy)]
    assert rows[0].ns3 == rows[1].ns3
    assert rows[0].ns3.fast_retransmits[0] > 5  # recoveries happened


def test_vegas_halving_cuts_ns3s_vegas_deeper_than_its_own_loss_response(ns3):
    """`wtcpval::VegasHalving` replaces only TcpVegas::GetSsThresh, max(min(ssthresh, cwnd -
    1 segment), 2 segments), by max(cwnd / 2, 2 segments): with the same losses it must
    send less (the pairing sets wtcp's alpha = 1, beta = 3 on both)."""
    load_ablation_code(SUITE)
    sc = Scenario.from_file(ROOT / "scenarios" / "reference-simple2.toml").with_overrides({"run.duration_s": 30.0, "links.1.ab.loss.rate": 0.02})
    ns3s, halving = (crosscheck(sc, [{}], [Config("vegas", "vegas", {}, t)], [1, 2])[0].ns3 for t in ("ns3::TcpVegas", "wtcpval::VegasHalving"))
    assert ns3s.fast_retransmits[0] > 5
    assert sum(halving.segments_sent) < 0.9 * sum(ns3s.segments_sent)


def _point(wtcp_mbps: list[float], ns3_mbps: list[float]):
    from wtcp.crosscheck import EngineStats, Row
    from wtcp.validate import Point

    return Point("s", "newreno", "SACK", 0.05, Row("newreno", {}, EngineStats(goodput_mbps=wtcp_mbps), EngineStats(goodput_mbps=ns3_mbps)))


def test_a_gap_inside_the_seeds_spread_is_noise_and_a_steady_gap_is_not():
    from wtcp.validate import noise_summary, within_seed_noise

    # Means 1.00 vs 1.10 (-9 %), seeds spread by 0.2: Welch's 95 % half-width is far wider.
    assert within_seed_noise(_point([0.8, 1.0, 1.2], [0.9, 1.1, 1.3]))
    # The same gap with seeds 0.01 apart lies outside it.
    assert not within_seed_noise(_point([0.99, 1.00, 1.01], [1.09, 1.10, 1.11]))
    # Deterministic points (no spread) and single seeds are never called noise.
    assert not within_seed_noise(_point([1.0, 1.0, 1.0], [1.1, 1.1, 1.1]))
    assert not within_seed_noise(_point([0.8], [1.1]))
    points = [_point([0.8, 1.0, 1.2], [0.9, 1.1, 1.3]), _point([0.99, 1.00, 1.01], [1.09, 1.10, 1.11]), _point([1.0, 1.0], [1.01, 1.01])]
    assert noise_summary(points).startswith("Seed noise: 1 of the 2 flagged points")


def test_with_common_losses_the_seeds_are_paired():
    from wtcp.validate import within_seed_noise

    # Seeds spread widely (different loss lists) but wtcp is 0.1 Mb/s below ns-3 on each
    # list: independent-sample Welch calls it noise, the paired difference does not.
    steady = _point([0.8, 1.0, 1.2], [0.9, 1.1, 1.3])
    assert within_seed_noise(steady) and not within_seed_noise(steady, paired=True)
    # Per-seed differences that change sign are noise when paired too.
    assert within_seed_noise(_point([0.8, 1.2, 1.0], [0.9, 1.1, 1.1]), paired=True)
