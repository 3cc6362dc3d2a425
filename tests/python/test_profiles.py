"""Profiles as a user meets them: `wtcp profile`, `--profile`, the generated table, the
ns-3 engine's own profile, and a paper on its simulator's profile."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from conftest import run_cli

import wtcp
from wtcp import _core
from wtcp.profiles import UnknownProfile, markdown, profile, where

ROOT = Path(__file__).resolve().parents[2]


def test_docs_profiles_md_is_current():
    assert (ROOT / "docs" / "profiles.md").read_text(encoding="utf-8") == markdown(), "docs/profiles.md is stale: run `python tools/profiles_doc.py`"


def test_profile_show_prints_every_setting_with_its_source():
    done = run_cli("profile", "show", "ns2")
    assert done.returncode == 0, done.stderr
    for e in profile("ns2")["entries"]:
        assert where(e["key"]) in done.stdout
    as_json = json.loads(run_cli("profile", "show", "qualnet", "--json").stdout)
    assert as_json == profile("qualnet")
    listed = run_cli("profile", "list").stdout
    assert all(name in listed for name in ("rfc", "ns2", "ns3", "qualnet", "linux"))


@pytest.mark.parametrize("args", [("profile", "show", "ns-2"), ("run", "reference-simple2", "--profile", "ns-2")])
def test_an_unknown_profile_exits_2_naming_the_profiles(args):
    done = run_cli(*args)
    assert done.returncode == 2
    assert "allowed: rfc, ns2, ns3, qualnet, linux" in done.stderr
    assert "Traceback" not in done.stderr
    with pytest.raises(UnknownProfile) as info:
        profile("ns-2")
    assert isinstance(info.value, ValueError)


def test_a_run_records_its_profile_and_a_stated_value_wins():
    sc = wtcp.load("reference-simple2").with_overrides({"run.duration_s": 3.0})
    assert sc.run().profile == "rfc"
    ns2 = sc.with_overrides({"profile": "ns2"})
    assert ns2.run().profile == "ns2"
    assert ns2.document["tcp"]["rto_min_s"] == 1.0  # the scenario states it
    assert ns2.document["tcp"]["rto_initial_s"] == 1.0  # stated too
    assert ns2.document["tcp"]["rtt_sampling"] == "one_per_rtt"  # left out: ns-2's
    assert ns2.document["flows"][0]["cc_params"] == {"ecn": False, "halve": "cwnd"}


def test_the_translators_matched_values_are_the_ns3_profiles():
    from wtcp.ns3.translate import ALGORITHMS, TCP_MATCHED

    ns3 = {e["key"]: tomllib.loads(f"v = {e['value']}")["v"] for e in profile("ns3")["entries"]}
    for key, (value, _) in TCP_MATCHED.items():
        assert ns3[f"tcp.{key}"] == value
    for name, alg in ALGORITHMS.items():
        for param, (value, _) in alg.matched.items():
            assert ns3[f"cc.{name}.{param}"] == value


def test_a_sweep_takes_a_profile_unless_it_sweeps_one(tmp_path):
    from wtcp.sweep.spec import Sweep

    (tmp_path / "s.toml").write_text('scenario = "reference-simple2"\n[grid]\n"links.1.ab.loss.rate" = [0.0, 0.01]\n')
    assert Sweep.from_file(tmp_path / "s.toml", profile="linux").fixed["profile"] == "linux"
    (tmp_path / "axis.toml").write_text('scenario = "reference-simple2"\n[grid]\nprofile = ["ns2", "ns3"]\n')
    swept = Sweep.from_file(tmp_path / "axis.toml", profile="linux")
    assert "profile" not in swept.fixed and swept.grid["profile"] == ["ns2", "ns3"]


def test_each_paper_runs_on_its_simulators_profile():
    from wtcp.reproduce.spec import load_paper

    expected = {"dynamic": "qualnet", "ewr": "ns2", "taichung": "ns2", "clap": "ns2", "njplus": "ns2"}
    for name, prof in expected.items():
        paper = load_paper(name)
        assert paper.profile == prof
        for e in paper.experiments:
            assert e.sweep(True, name).fixed["profile"] == prof
    assert load_paper("ewr", profile="rfc").experiments[0].sweep(True, "ewr").fixed["profile"] == "rfc"


def test_the_profiles_binding_lists_rfc_first_and_only_rfc_fills_nothing():
    items = _core.profiles()
    assert items[0]["name"] == "rfc"
    assert [p["name"] for p in items if not p["fills"]] == ["rfc"]
