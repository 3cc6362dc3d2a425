"""tools/common_losses.py: the loss lists both engines share."""

import importlib.util
import math
from pathlib import Path

SPEC = importlib.util.spec_from_file_location("common_losses", Path(__file__).parents[2] / "tools" / "common_losses.py")
assert SPEC and SPEC.loader
common_losses = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(common_losses)


def test_a_seed_and_rate_give_one_list_of_independent_losses():
    n, rate = 70_000, 0.02
    a = common_losses.lost_packets(1, rate, n)
    assert a == common_losses.lost_packets(1, rate, n)  # every algorithm and variant gets the same list
    assert a != common_losses.lost_packets(2, rate, n)
    assert a == sorted(set(a)) and 1 <= a[0] and a[-1] <= n
    # Bernoulli(rate) per packet: the count within 4 standard deviations of n * rate.
    assert abs(len(a) - n * rate) <= 4 * math.sqrt(n * rate * (1 - rate))


def test_the_difference_is_relative_to_ns3():
    assert abs(common_losses.mean_diff([1.1, 1.1], [1.0, 1.0]) - 10.0) < 1e-9
