"""Figures fit for a paper: files, units on the axes, one colour per algorithm, intervals
only over replications, natural legend order, and a clear error without traces."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytest.importorskip("duckdb")
pytest.importorskip("matplotlib")

from matplotlib.colors import to_hex

import wtcp
from wtcp import demo, plot
from wtcp.sweep import InlineExecutor, Sweep, open_store, run_sweep

LOSS = "links.1.ab.loss.rate"
# Short runs: 8 s of simulated time, measured from 2 s.
SHORT = {"run.duration_s": 8.0, "run.measure_from_s": 2.0}
PNG = b"\x89PNG\r\n\x1a\n"


def sweep(name: str, replications: int, seed: int) -> Sweep:
    # cubic before newreno alphabetically, after it in the legend order.
    return Sweep.from_dict({"name": name, "scenario": "two-hop-wireless", "algorithms": ["cubic", "newreno"], "replications": replications,
                            "seed": seed, "set": SHORT, "grid": {LOSS: [0.02, 0.1]}}, base_dir=".")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("plot") / "store.duckdb"
    run_sweep(sweep("two", 2, seed=1), path, InlineExecutor())
    run_sweep(sweep("one", 1, seed=2), path, InlineExecutor())  # another seed: runs of its own
    with open_store(path) as st:
        yield st


@pytest.fixture(scope="module")
def scenario() -> wtcp.Scenario:
    return wtcp.load("two-hop-wireless").with_overrides({**SHORT, LOSS: 0.02})


@pytest.fixture(scope="module")
def traced(scenario) -> wtcp.Result:
    return scenario.run(seed=1, trace=True)


@pytest.fixture(scope="module")
def demo_sweep(scenario):
    return demo.goodput_sweep(scenario, ["newreno", "westwoodplus", "njplus"], [0.0, 2.0], [1, 2], workers=2)


def assert_png(path: Path) -> None:
    data = path.read_bytes()
    assert data[:8] == PNG and len(data) > 1000


def assert_svg(path: Path) -> None:
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert len(list(root.iter())) > 20


def line_colors(fig) -> dict[str, str]:
    """Legend label -> colour of the lines (the mean lines) of every axes."""
    return {line.get_label(): to_hex(line.get_color()) for ax in fig.axes for line in ax.get_lines() if not line.get_label().startswith("_")}


def interval_artists(fig, gid: str) -> list:
    return [a for ax in fig.axes for a in (*ax.collections, *ax.lines) if a.get_gid() == gid]


def legend_texts(ax) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]


# --- files ------------------------------------------------------------------------------


def test_store_plot_writes_png_and_svg_for_a_stem(store, tmp_path):
    fig = store.plot(x=LOSS, y="goodput_mbps", sweep="two", path=tmp_path / "goodput")
    assert fig.axes
    assert_png(tmp_path / "goodput.png")
    assert_svg(tmp_path / "goodput.svg")


def test_plot_cwnd_writes_the_format_of_its_suffix(traced, tmp_path):
    traced.plot_cwnd(path=tmp_path / "cwnd.svg")
    assert_svg(tmp_path / "cwnd.svg")
    assert not (tmp_path / "cwnd.png").exists()
    traced.plot_cwnd(path=tmp_path / "cwnd.png")
    assert_png(tmp_path / "cwnd.png")


def test_demo_figure_is_a_png_and_an_svg(demo_sweep, tmp_path):
    wide = demo.mean_goodput(demo_sweep, ["newreno", "westwoodplus", "njplus"])
    for name in ("demo.png", "demo.svg"):
        assert demo.plot_goodput(wide, tmp_path / name, "title", sweep=demo_sweep) == tmp_path / name
    assert_png(tmp_path / "demo.png")
    assert_svg(tmp_path / "demo.svg")


def test_svg_is_reproducible(traced, tmp_path):
    traced.plot_cwnd(path=tmp_path / "a")
    traced.plot_cwnd(path=tmp_path / "b")
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()


# --- labels -----------------------------------------------------------------------------


def test_axis_labels_carry_units(store, traced):
    fig = store.plot(x=LOSS, y="goodput_mbps", sweep="two")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "loss rate, wireless link BS→D (%)"  # named from the sweep's scenario
    assert ax.get_ylabel() == "goodput (Mb/s)"
    ax = traced.plot_cwnd().axes[0]
    assert ax.get_xlabel() == "time (s)"
    assert ax.get_ylabel() == "window (kB)"
    assert traced.plot_cwnd(mss_bytes=1024).axes[0].get_ylabel() == "window (segments)"


def test_labels_of_names_and_paths():
    assert plot.axis_label("goodput_mbps") == "goodput (Mb/s)"
    assert plot.axis_label("srtt") == "smoothed RTT (ms)"
    assert plot.axis_label("cwnd") == "cwnd (kB)"
    assert plot.axis_label(LOSS) == "loss rate, link 1 a→b (%)"
    assert plot.quantity(LOSS).scale == 100.0
    assert plot.axis_label("links.0.ba.loss.rate") == "loss rate, link 0 b→a (%)"
    assert plot.axis_label("links.3.delay_ms") == "one-way delay, link 3 (ms)"
    doc = {"links": [{"name": "radio", "a": "BS", "b": "D"}]}
    assert plot.axis_label("links.0.ba.loss.rate", doc) == "loss rate, radio link D→BS (%)"
    assert plot.axis_label("tcp.mss_bytes") == "TCP MSS (bytes)"
    # A cc parameter takes its unit from the algorithm's parameter table.
    assert plot.axis_label("flows.0.cc_params.alpha", {"flows": [{"cc": "vegas"}]}) == "vegas alpha, flow 0 (segments)"


def test_goodput_in_bps_is_drawn_in_mbps_with_the_stores_interval(store):
    fig = store.plot(x=LOSS, y="goodput_bps", sweep="two")
    summary = store.summary("goodput_bps", by=[LOSS.replace(".", "_"), "algorithm"], sweep="two")
    for line in fig.axes[0].get_lines():
        rows = summary[summary["algorithm"] == line.get_label()].sort_values(LOSS.replace(".", "_"))
        assert list(line.get_xdata()) == pytest.approx(list(rows[LOSS.replace(".", "_")] * 100))
        assert list(line.get_ydata()) == pytest.approx(list(rows["mean"] / 1e6))
    (band,) = [b for b in interval_artists(fig, "ci-band") if to_hex(b.get_facecolor()[0]) == plot.algorithm_color("newreno")]
    ys = band.get_paths()[0].vertices[:, 1]
    rows = summary[summary["algorithm"] == "newreno"]
    assert min(ys) == pytest.approx(rows["ci_low"].min() / 1e6)
    assert max(ys) == pytest.approx(rows["ci_high"].max() / 1e6)


# --- colours ----------------------------------------------------------------------------


def test_an_algorithm_has_one_colour_in_every_figure(store, traced, demo_sweep):
    stored = line_colors(store.plot(x=LOSS, y="goodput_mbps", sweep="two"))
    cwnd = line_colors(traced.plot_cwnd())
    wide = demo.mean_goodput(demo_sweep, ["newreno", "westwoodplus", "njplus"])
    demo_fig = line_colors(demo.goodput_figure(wide, "t", demo_sweep))
    newreno = plot.algorithm_color("newreno")
    assert stored["newreno"] == newreno == demo_fig["newreno"]
    assert cwnd["cwnd"] == newreno  # the traced flow runs newreno
    assert stored["cubic"] == plot.algorithm_color("cubic") != newreno


def test_every_algorithm_has_its_own_style_and_families_do_not_share_colours():
    names = [a["name"] for a in wtcp.algorithms()]
    styles = [plot.algorithm_style(n) for n in names]
    assert len(set(styles)) == len(styles)
    for family, members in plot.FAMILIES:
        colours = [plot.algorithm_color(n) for n in members]
        assert len(set(colours)) == len(colours), family
    # Among the built-in styles colours are shared by at most two algorithms, which then
    # differ in marker and line style.
    by_colour: dict[str, list[plot.Style]] = {}
    for s in plot.ALGORITHM_STYLES.values():
        by_colour.setdefault(s.color, []).append(s)
    for shared in by_colour.values():
        assert len(shared) <= 2
        if len(shared) == 2:
            assert shared[0].marker != shared[1].marker and shared[0].linestyle != shared[1].linestyle
    # An unknown name gets the same derived style every time.
    assert plot.algorithm_style("my-new-cc") == plot.algorithm_style("my-new-cc")


def test_an_algorithm_added_to_the_registry_gets_a_style_of_its_own_without_an_edit(monkeypatch):
    """`wtcp new-algorithm` adds no entry to ALGORITHM_STYLES: the registered newcomers get
    styles no built-in and no other newcomer has, the same however often they are asked."""
    from wtcp import _core

    builtin = _core.algorithms()
    added = [{**builtin[0], "name": n} for n in ("aimd", "aimd2", "mycc", "zeta", "x")]
    monkeypatch.setattr(_core, "algorithms", lambda: [*builtin, *added])
    monkeypatch.setattr(plot, "_REGISTERED", None)
    styles = [plot.algorithm_style(a["name"]) for a in [*builtin, *added]]
    assert len(set(styles)) == len(styles)
    assert [plot.algorithm_style(a["name"]) for a in added] == styles[len(builtin):]
    monkeypatch.setattr(plot, "_REGISTERED", None)
    assert [plot.algorithm_style(a["name"]) for a in added] == styles[len(builtin):]


# --- intervals --------------------------------------------------------------------------


def test_intervals_only_with_two_or_more_replications(store):
    for ci, gid in (("band", "ci-band"), ("bars", "ci-bars")):
        assert interval_artists(store.plot(x=LOSS, y="goodput_mbps", sweep="two", ci=ci), gid)
        assert not interval_artists(store.plot(x=LOSS, y="goodput_mbps", sweep="one", ci=ci), gid)
    assert not interval_artists(store.plot(x=LOSS, y="goodput_mbps", sweep="two", ci=None), "ci-band")


def test_demo_bands_only_with_two_or_more_seeds(demo_sweep):
    algorithms = ["newreno", "westwoodplus", "njplus"]
    wide = demo.mean_goodput(demo_sweep, algorithms)
    assert interval_artists(demo.goodput_figure(wide, "t", demo_sweep), "ci-band")
    one_seed = demo_sweep[demo_sweep["seed"] == 1]
    assert not interval_artists(demo.goodput_figure(demo.mean_goodput(one_seed, algorithms), "t", one_seed), "ci-band")
    assert not interval_artists(demo.goodput_figure(wide, "t"), "ci-band")


def test_a_point_that_would_mix_runs_is_refused(store):
    with pytest.raises(plot.PlotError, match="several runs per replication .* algorithm"):
        store.plot(x=LOSS, y="goodput_mbps", hue=None, sweep="two")
    with pytest.raises(plot.PlotError, match="sweep"):
        store.plot(x=LOSS, y="goodput_mbps")  # two sweeps in the store
    with pytest.raises(ValueError, match="no metric 'goodput'.*goodput_mbps"):
        store.plot(x=LOSS, y="goodput", sweep="two")
    with pytest.raises(ValueError, match="neither a column nor a swept path.*links.1.ab.loss.rate"):
        store.plot(x="links.0.delay_ms", y="goodput_mbps", sweep="two")


# --- legends ----------------------------------------------------------------------------


def test_natural_order():
    values = ["flow10", "cubic", 10, "flow2", "2", "westwood", "newreno", 1.5, "zeta"]
    assert plot.sort_naturally(values) == [1.5, "2", 10, "newreno", "cubic", "westwood", "flow2", "flow10", "zeta"]


def test_numbers_inside_labels_sort_by_value_decimals_included():
    """A table's joined labels (flow count / loss rate) follow both numbers by value."""
    labels = ["12 / 0.0", "3 / 0.04", "3 / 0.005", "3 / 0.021", "3 / 0.0", "3 / 1e-05"]
    assert plot.sort_naturally(labels) == ["3 / 0.0", "3 / 1e-05", "3 / 0.005", "3 / 0.021", "3 / 0.04", "12 / 0.0"]


def test_legends_are_outside_the_data_and_in_natural_order(store):
    fig = store.plot(x=LOSS, y="goodput_mbps", sweep="two")
    ax = fig.axes[0]
    assert legend_texts(ax) == ["newreno", "cubic"]  # family order, not alphabetical
    fig.canvas.draw()
    assert ax.get_legend().get_window_extent().x0 >= ax.get_window_extent().x1
    # Numbers by value (2 before 10), in the unit of the legend's title (percent).
    fig = store.plot(x="algorithm", y="goodput_mbps", hue=LOSS, sweep="two")
    legend = fig.axes[0].get_legend()
    assert legend_texts(fig.axes[0]) == ["2", "10"]
    assert legend.get_title().get_text().startswith("loss rate, wireless link BS→D (%)")
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["newreno", "cubic"]


# --- traces -----------------------------------------------------------------------------


def test_plot_cwnd_without_traces_says_how_to_record_them(scenario):
    result = scenario.run(seed=1)
    assert result.traces is None
    with pytest.raises(ValueError) as info:
        result.plot_cwnd()
    assert isinstance(info.value, plot.NoTraceError)
    assert "trace=True" in str(info.value) and "--trace" in str(info.value)


def test_plot_cwnd_draws_cwnd_ssthresh_and_losses_per_flow(traced):
    fig = traced.plot_cwnd(flows=["bulk"])
    (ax,) = fig.axes
    labels = legend_texts(ax)
    assert labels[:2] == ["cwnd", "ssthresh"]
    assert "fast retransmit" in labels  # 2 % loss: the trace has fast retransmits
    cwnd = ax.get_lines()[0]
    trace = traced.traces.flows
    assert list(cwnd.get_ydata()) == pytest.approx(list(trace.loc[trace["flow"] == 0, "cwnd"] / 1000))
    with pytest.raises(plot.PlotError, match="no traced flow 'nope'"):
        traced.plot_cwnd(flows=["nope"])


# --- the demo's layout --------------------------------------------------------------------


def test_demo_panels_hold_every_algorithm_once():
    names = [a["name"] for a in wtcp.algorithms()]
    layout = demo.panels(names + ["my-new-cc"])
    placed = [n for _, members in layout for n in members]
    assert sorted(placed) == sorted(names + ["my-new-cc"])
    assert layout[-1] == ("Other algorithms", ["my-new-cc"])


def test_algorithms_compared_by_one_paper_have_distinct_colours():
    """Every algorithm named anywhere in one paper's experiments (python/wtcp/papers/<paper>/)
    has a colour of its own there: the shared colours never meet in a reproduced figure."""
    import tomllib

    def named(value, out: set[str]) -> set[str]:
        if isinstance(value, dict):
            for v in value.values():
                named(v, out)
        elif isinstance(value, list):
            for v in value:
                named(v, out)
        elif isinstance(value, str) and value in plot.ALGORITHM_STYLES:
            out.add(value)
        return out

    papers = Path(wtcp.__file__).parent / "papers"
    folders = [d for d in papers.iterdir() if d.is_dir()]
    assert folders
    for folder in folders:
        names: set[str] = set()
        for f in folder.glob("*.toml"):
            named(tomllib.loads(f.read_text(encoding="utf-8")), names)
        colours = [plot.algorithm_color(n) for n in names]
        assert len(set(colours)) == len(colours), (folder.name, sorted(names))
