"""Common losses (wtcp.crosscheck.CommonLosses): the validation suite's way of losing the
same packets in both engines."""

import math
from pathlib import Path

import pytest

from wtcp import ScenarioError
from wtcp.crosscheck import SMALLEST_DATA_PACKET, CommonLosses, case_keys, cases, lost_packets
from wtcp.scenario import Scenario

ROOT = Path(__file__).parents[2]
SIMPLE2 = ROOT / "scenarios" / "reference-simple2.toml"
RATE = "links.1.ab.loss.rate"


def test_a_seed_and_rate_give_one_list_of_independent_losses():
    n, rate = 70_000, 0.02
    a = lost_packets(1, rate, n)
    assert a == lost_packets(1, rate, n)  # every algorithm and variant gets the same list
    assert a != lost_packets(2, rate, n)
    assert a == sorted(set(a)) and 1 <= a[0] and a[-1] <= n
    # Bernoulli(rate) per packet: the count within 4 standard deviations of n * rate.
    assert abs(len(a) - n * rate) <= 4 * math.sqrt(n * rate * (1 - rate))
    # A longer list extends a shorter one: the stream is the seed's and the rate's alone.
    assert lost_packets(1, rate, 2 * n)[: len(a)] == a


def test_the_list_covers_every_packet_the_lossy_link_could_carry():
    sc = Scenario.from_file(SIMPLE2).with_overrides({RATE: 0.05})
    losses = CommonLosses.of(sc, RATE)
    assert losses is not None and losses.path == "links.1.ab.loss" and losses.rate == 0.05
    link, run = sc.document["links"][1], sc.document["run"]
    # 2 Mb/s for 201 s in packets of the smallest data packet plus the 2-byte link header.
    assert losses.packets * 8 * (SMALLEST_DATA_PACKET + link["link_header_bytes"]) >= link["rate_mbps"] * 1e6 * run["duration_s"]
    assert CommonLosses.of(sc.with_overrides({RATE: 0.0}), RATE) is None


def test_only_a_uniform_loss_rate_is_replaced():
    sc = Scenario.from_file(SIMPLE2).with_overrides({"links.1.ab.loss": {"model": "ber", "ber": 1e-5}})
    with pytest.raises(ScenarioError, match=r"links\.1\.ab\.loss\.model.*allowed: uniform"):
        CommonLosses.of(sc, RATE)
    with pytest.raises(ScenarioError, match=r"links\.1\.ab\.rate.*allowed"):
        CommonLosses.of(sc, "links.1.ab.rate")


def test_both_engines_run_the_same_list_and_the_stored_key_says_so():
    sc = Scenario.from_file(SIMPLE2).with_overrides({"run.duration_s": 5.0})
    [case] = cases(sc, [{RATE: 0.05}], ["newreno"])
    drawn_keys = case_keys(case)
    case.losses = CommonLosses.of(case.wtcp, RATE)
    ours, theirs = case.seeded(2)
    assert ours.document["links"][1]["ab"]["loss"] == theirs.document["links"][1]["ab"]["loss"] == {"model": "list", "packets": lost_packets(2, 0.05, case.losses.packets)}
    common_keys = case_keys(case)
    # A stored row of independent draws is never reused for common losses, on either side.
    assert common_keys[0] != drawn_keys[0] and common_keys[1] != drawn_keys[1]


def test_wtcp_loses_exactly_the_listed_packets():
    # The rfc profile opens no connection: every packet on the lossy hop's a -> b side is a
    # data packet the loss model sees.
    sc = Scenario.from_file(SIMPLE2).with_overrides({"run.duration_s": 20.0, RATE: 0.05})
    losses = CommonLosses.of(sc, RATE)
    result = sc.with_overrides(losses.overrides(1)).run(seed=1, engine="wtcp")
    hop = next(d for d in result.raw["drops"] if d["link"] == "wireless" and d["from"] == "BS")
    listed = lost_packets(1, 0.05, losses.packets)
    # The channel lost the listed packets among those the hop carried, and no other.
    assert hop["channel"] == sum(1 for k in listed if k <= hop["tx_packets"]) > 0


def test_a_hop_that_carries_more_packets_than_the_list_covers_is_an_error():
    sc = Scenario.from_file(SIMPLE2).with_overrides({"run.duration_s": 5.0, RATE: 0.05})
    losses = CommonLosses.of(sc, RATE)
    result = sc.with_overrides(losses.overrides(1)).run(seed=1, engine="wtcp")
    losses.check(sc, result)  # the bound holds
    short = CommonLosses(losses.path, losses.rate, 100)
    with pytest.raises(ScenarioError, match=r"links\.1\.ab\.loss: the hop carried \d+ packets, more than the 100"):
        short.check(sc, result)
