"""Queue disciplines from Python and the command line: the shipped `wifi-aqm` scenario
(FQ-CoDel on an access point's interface queue), and mistakes in a queue table."""

from __future__ import annotations

import pytest

import wtcp
from conftest import run_cli


def wifi_aqm(**overrides: object) -> wtcp.Scenario:
    return wtcp.load(wtcp.builtin_scenario_path("wifi-aqm")).with_overrides({"run.duration_s": 15.0, **overrides})


def test_fq_codel_on_the_access_point_keeps_a_voice_call_out_of_the_bulk_queue():
    """RFC 8290's flow isolation on Wi-Fi: behind a 1000-packet DropTail queue the voice
    datagrams wait as long as the bulk download's segments; with FQ-CoDel they wait for
    about one frame, and the download keeps most of its goodput."""
    fq = wifi_aqm().run().flows.set_index("name")
    droptail = wifi_aqm(**{"wifi.0.stations.0.queue": {"limit_packets": 1000}}).run().flows.set_index("name")
    path_ms = 20.0  # the wired path's propagation delay; the air adds well under 1 ms
    assert droptail.loc["voice", "delay_p95_ms"] > path_ms + 100, droptail.loc["voice"]
    assert fq.loc["voice", "delay_p95_ms"] < path_ms + 5, fq.loc["voice"]
    assert fq.loc["voice", "goodput_bps"] == pytest.approx(64e3, rel=0.01)
    assert fq.loc["bulk", "goodput_bps"] > 0.9 * droptail.loc["bulk", "goodput_bps"]


def test_interface_queue_mistakes_are_value_errors_naming_the_field():
    with pytest.raises(ValueError, match=r"wifi\.0\.stations\.0\.queue\.quantum_bytes") as e:
        wifi_aqm(**{"wifi.0.stations.0.queue": {"discipline": "fq_codel", "quantum_bytes": 0}})
    assert "allowed: 1..=1048576 (bytes)" in str(e.value)
    with pytest.raises(ValueError, match=r"wifi\.0\.queue_packets"):
        wifi_aqm(**{"wifi.0.queue": {"discipline": "codel", "limit_packets": 10}})


def test_the_cli_exits_2_on_a_bad_discipline_option():
    done = run_cli("run", "wifi-aqm", "--set", "run.duration_s=6", "--set", 'wifi.0.queue={ discipline = "red", flows = 4 }')
    assert done.returncode == 2, done.stderr
    assert "wifi.0.queue.flows" in done.stderr and 'not an option of discipline "red"' in done.stderr
