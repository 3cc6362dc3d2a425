"""The benchmark's scenarios build and run (shortened)."""

from __future__ import annotations

import json
import subprocess
import sys

import wtcp
from wtcp import bench


def test_dumbbell_document_builds_a_runnable_scenario():
    document = bench.dumbbell_document(flows=5, duration_s=3.0)
    starts = [f["start_s"] for f in document["flows"]]
    assert starts[0] == 0.0 and starts[-1] == 1.0 and starts == sorted(starts)
    result = wtcp.Scenario.from_dict(document).run()
    assert len(result.flows) == 5
    assert (result.flows["goodput_bps"] > 0).all()
    assert "bottleneck" in set(result.drops["link"])


def test_reference_case_has_one_percent_loss_and_the_asked_duration():
    scenario = bench.reference_scenario(duration_s=21.0)
    document = scenario.document
    assert document["run"]["duration_s"] == 21.0
    assert {"model": "uniform", "rate": 0.01} in [link.get("ab", {}).get("loss") for link in document["links"]]


def test_a_case_reports_its_numbers_as_json():
    done = subprocess.run([sys.executable, "-m", "wtcp.bench", "--case", "a"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    numbers = json.loads(done.stdout)
    assert numbers["case"] == "a" and numbers["repeats"] == 5
    assert numbers["events_per_s"] > 0 and numbers["packets_per_s"] > 0 and numbers["peak_rss_mib"] > 0
