"""`Result.plot_sequence`: the time-sequence figure draws the traced sender state and marks
every drop, fast retransmit and timeout exactly where the run recorded them, as many as the
run's metrics count; bad arguments are clear ValueErrors."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("matplotlib")

from hypothesis import assume, given, settings
from hypothesis import strategies as st

import wtcp
from wtcp import plot

CAUSES = ("congestion", "wireless", "spurious")
DROP_CAUSES = ("queue", "channel", "outage")
# Three Reno flows against reverse UDP over a link with outages: queue and outage drops of
# data and ACKs, fast retransmits and timeouts of every cause, a UDP flow that is not drawn.
DUMBBELL = {"run.duration_s": 12.0, "run.measure_from_s": 2.0}
# One NewReno flow over a 2 % lossy last hop (data only): channel drops.
LOSSY = {"run.duration_s": 11.0, "links.1.ab.loss.rate": 0.02}


@pytest.fixture(scope="module")
def dumbbell() -> wtcp.Scenario:
    return wtcp.load("dumbbell-reverse-udp").with_overrides(DUMBBELL)


@pytest.fixture(scope="module")
def traced(dumbbell) -> wtcp.Result:
    return dumbbell.run(seed=1, trace=True)


@pytest.fixture(scope="module")
def lossy() -> wtcp.Result:
    return wtcp.load("reference-simple2").with_overrides(LOSSY).run(seed=3, trace=True)


def marked(ax, gid: str) -> list:
    """The points of the marker artists whose gid is `gid` (or starts with `gid-`)."""
    return [(x, y) for line in ax.get_lines() if line.get_gid() == gid or (line.get_gid() or "").startswith(gid + "-")
            for x, y in zip(line.get_xdata(), line.get_ydata())]


def panels(fig, result: wtcp.Result) -> dict[int, object]:
    """Flow id -> its panel (titled "name (cc)")."""
    by_title = {f"{n} ({c})": int(i) for i, n, c in zip(result.flows["id"], result.flows["name"], result.flows["cc"])}
    return {by_title[ax.get_title(loc="left")]: ax for ax in fig.axes}


# --- files --------------------------------------------------------------------------------


def test_a_stem_writes_png_and_svg_and_the_figure_is_returned(traced, tmp_path):
    fig = traced.plot_sequence(tmp_path / "seq", from_s=2.0, until_s=6.0)
    assert len(fig.axes) == 3  # the three TCP flows; the UDP flows have no sender trace
    assert (tmp_path / "seq.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    root = ET.parse(tmp_path / "seq.svg").getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    traced.plot_sequence(tmp_path / "again", from_s=2.0, until_s=6.0)
    assert (tmp_path / "again.svg").read_bytes() == (tmp_path / "seq.svg").read_bytes()  # reproducible
    traced.plot_sequence(tmp_path / "only.svg", from_s=2.0, until_s=6.0)
    assert not (tmp_path / "only.png").exists()


# --- what is marked equals what the metrics count ----------------------------------------------


def test_every_loss_detection_is_marked_by_kind_and_true_cause(traced, lossy):
    for result in (traced, lossy):
        fig = result.plot_sequence()
        flows = result.flows.set_index("id")
        for fid, ax in panels(fig, result).items():
            for cause in CAUSES:
                assert len(marked(ax, f"fast-retransmit-{cause}")) == flows.loc[fid, f"fr_{cause}"]
                assert len(marked(ax, f"timeout-{cause}")) == flows.loc[fid, f"to_{cause}"]
            assert len(marked(ax, "fast-retransmit")) == flows.loc[fid, "fast_retransmits"]
            assert len(marked(ax, "timeout")) == flows.loc[fid, "timeouts"]
    assert lossy.flows.loc[0, "fast_retransmits"] > 0 and traced.flows["timeouts"].sum() > 0


def test_every_drop_of_a_tcp_packet_is_marked_by_cause(traced, lossy):
    # One flow, loss on data only: the channel drops of the link metrics are the marks.
    (ax,) = lossy.plot_sequence().axes
    assert len(marked(ax, "drop-channel")) == lossy.drops["channel"].sum() > 0
    # Several flows: the link metrics count every packet; UDP datagrams are not drawn.
    fig = traced.plot_sequence()
    udp = traced.traces.drops[traced.traces.drops["kind"] == "udp"]
    for cause in DROP_CAUSES:
        data = sum(len(marked(ax, f"drop-{cause}")) for ax in fig.axes)
        acks = traced.traces.drops.query("kind == 'ack' and cause == @cause")
        assert data + len(acks) == traced.drops[cause].sum() - (udp["cause"] == cause).sum()
    assert sum(len(marked(ax, "ack-drop")) for ax in fig.axes) == (traced.traces.drops["kind"] == "ack").sum() > 0
    assert sum(len(marked(ax, "drop-outage")) for ax in fig.axes) > 0 and sum(len(marked(ax, "drop-queue")) for ax in fig.axes) > 0


def test_marks_within_a_window_equal_the_metrics_of_a_run_that_ends_there(dumbbell, traced):
    # The simulation is deterministic: a run cut at 6 s is the first 6 s of the 12 s run.
    short = dumbbell.with_overrides({"run.duration_s": 6.0}).run(seed=1)
    fig = traced.plot_sequence(from_s=0.0, until_s=6.0)
    flows = short.flows.set_index("id")
    for fid, ax in panels(fig, traced).items():
        assert ax.get_xlim() == (0.0, 6.0)
        assert len(marked(ax, "fast-retransmit")) == flows.loc[fid, "fast_retransmits"]
        assert len(marked(ax, "timeout")) == flows.loc[fid, "timeouts"]
    later = traced.plot_sequence(from_s=6.0 + 1e-9)
    assert sum(len(marked(ax, "timeout")) for ax in later.axes) == traced.flows["timeouts"].sum() - short.flows["timeouts"].sum()


def test_marks_sit_at_the_recorded_time_and_sequence_number(lossy):
    losses = lossy.traces.losses
    (ax,) = lossy.plot_sequence(mss_bytes=1000).axes
    assert ax.get_ylabel() == "sequence number (segments)"
    expected = sorted(zip(losses["time"], losses["seq"] / 1000))
    got = sorted(marked(ax, "fast-retransmit") + marked(ax, "timeout"))
    assert [x for x, _ in got] == pytest.approx([x for x, _ in expected])
    assert [y for _, y in got] == pytest.approx([y for _, y in expected])


@settings(max_examples=12, deadline=None)
@given(a=st.floats(0.0, 10.9), width=st.floats(0.02, 11.0))
def test_a_window_marks_exactly_the_events_inside_it(lossy, a, width):
    until = a + width
    assume(until <= 11.0)  # the trace: samples every 10 ms from 0 to 11 s
    (ax,) = lossy.plot_sequence(from_s=a, until_s=until).axes
    losses, drops = lossy.traces.losses, lossy.traces.drops
    inside = losses[(losses["time"] >= a) & (losses["time"] <= until)]
    assert len(marked(ax, "fast-retransmit")) + len(marked(ax, "timeout")) == len(inside)
    assert len(marked(ax, "drop")) == ((drops["time"] >= a) & (drops["time"] <= until)).sum()


# --- lines and labels -------------------------------------------------------------------------


def test_lines_are_the_sampled_sender_state_in_the_flows_colour(traced):
    fig = traced.plot_sequence(flows=["tcp2"], from_s=2.0, until_s=8.0)
    (ax,) = fig.axes
    assert ax.get_xlabel() == "time (s)" and ax.get_ylabel() == "sequence number (kB)"
    rows = traced.traces.flows.query("flow == 1 and time >= 2.0 and time <= 8.0")
    lines = {line.get_gid(): line for line in ax.get_lines()}
    for column in ("snd_max", "snd_una", "delivered"):
        assert list(lines[column].get_ydata()) == pytest.approx(list(rows[column] / 1000))
        assert lines[column].get_color() == plot.algorithm_color("reno")
    # SND.NXT is drawn only where it is below SND.MAX (resending after a timeout).
    nxt = lines["snd_nxt"].get_ydata()
    below = (rows["snd_nxt"] < rows["snd_max"]).to_numpy()
    assert below.any()
    assert all(math.isclose(y, v / 1000) for y, v, b in zip(nxt, rows["snd_nxt"], below) if b)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[0] == "highest sent (SND.MAX)" and any(label.startswith("timeout, ") for label in labels)
    fig.canvas.draw()
    assert ax.get_legend().get_window_extent().x0 >= ax.get_window_extent().x1  # outside the data


def test_flows_are_chosen_by_name_or_id(traced):
    assert [ax.get_title(loc="left") for ax in traced.plot_sequence(flows=[2, "tcp1"]).axes] == ["tcp3 (reno)", "tcp1 (reno)"]
    assert [ax.get_title(loc="left") for ax in traced.plot_sequence(flows=1).axes] == ["tcp2 (reno)"]


# --- bad arguments -----------------------------------------------------------------------------


def test_a_run_without_traces_says_how_to_record_them(dumbbell):
    result = dumbbell.run(seed=1)
    with pytest.raises(plot.NoTraceError) as info:
        result.plot_sequence()
    assert isinstance(info.value, ValueError)
    assert "time-sequence" in str(info.value) and "trace=True" in str(info.value) and "--trace" in str(info.value)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"flows": "nope"}, "no traced flow 'nope'; traced flows (id and name): 0 (tcp1), 1 (tcp2), 2 (tcp3)"),
    ({"flows": 3}, "no traced flow 3"),  # udp1: no TCP sender
    ({"from_s": 5.0, "until_s": 5.0}, "empty time window: from_s = 5 s is not before until_s = 5 s"),
    ({"from_s": 30.0}, "empty time window: from_s = 30 s is not before until_s = 12 s"),
    ({"from_s": 3.001, "until_s": 3.002}, "empty time window: no trace sample"),
    ({"from_s": -1.0}, "from_s is -1.0; allowed: a time in seconds"),
    ({"until_s": float("nan")}, "until_s is nan; allowed"),
    ({"from_s": "2"}, "from_s is '2'; allowed"),
    ({"mss_bytes": 0}, "mss_bytes is 0; allowed: a positive integer"),
])
def test_bad_arguments_are_value_errors_that_say_what_is_allowed(traced, kwargs, message):
    with pytest.raises(plot.PlotError) as info:
        traced.plot_sequence(**kwargs)
    assert isinstance(info.value, ValueError)
    assert message in str(info.value)
