"""`wtcp reproduce` and `wtcp report`: the paper definitions, the measurement of claims,
the outputs a user opens (claims.csv, figures, report.html), and the report in a browser."""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import wtcp
from wtcp.reproduce import measure
from wtcp.reproduce.run import all_targets
from wtcp.reproduce.spec import PaperError, load_paper, paper_from_dict, quick_variant

from chromium import find_browser, render
from conftest import run_cli

PAPERS = ("dynamic", "ewr", "taichung", "clap", "njplus")
CLAIM_COLUMNS = ["paper", "source", "claim", "published", "measured", "ci_low", "ci_high", "holds"]
REQUIRE_BROWSER = os.environ.get("WTCP_REQUIRE_CHROMIUM") == "1"


# --- the shipped definitions ---


def test_every_paper_of_the_issue_and_the_scorecard_ship():
    assert set(PAPERS) <= set(all_targets())
    assert all_targets()[-1] == "scorecard"


@pytest.mark.parametrize("name", PAPERS)
def test_each_paper_definition_loads_and_cites_its_sources(name):
    paper = load_paper(name)
    assert paper.experiments and paper.claims
    for claim in paper.claims:
        assert claim.get("source") and claim.get("claim")
    # Every sweep (full and quick) expands into valid runs.
    for exp in paper.experiments:
        for quick in (False, True):
            sweep = exp.sweep(quick, paper.name)
            runs = list(sweep.runs())
            assert runs and all(r.error is None for r in runs), [r.error for r in runs if r.error][:1]


# --- definition errors name the field ---


def _doc(**claim):
    return {
        "paper": "x",
        "title": "X",
        "experiments": [{"id": "e", "sweep": "fig7-goodput.toml"}],
        "claims": [{"source": "Table 1", "claim": "c", **claim}],
    }


NJPLUS = Path(wtcp.__file__).parent / "papers" / "njplus"


@pytest.mark.parametrize(
    "doc, path, fragment",
    [
        ({**_doc(measure="value", experiment="e", metric="m", select={}), "colour": 1}, "colour", "unknown key"),
        (_doc(measure="guess"), "claims.0.measure", "must be one of"),
        (_doc(measure="value", experiment="nope", metric="m", select={}), "claims.0.experiment", "must name an experiment"),
        (_doc(measure="ratio", experiment="e", metric="m", a={}), "claims.0.b", "missing"),
        (_doc(measure="na"), "claims.0.reason", "missing"),
        (_doc(measure="value", experiment="e", metric="m", select={}, expect="bigger"), "claims.0.expect", "comparison"),
        ({**_doc(measure="na", reason="r"), "experiments": [{"id": "e", "sweep": "none.toml"}]}, "experiments.0.sweep", "no sweep file"),
        (
            {**_doc(measure="na", reason="r"), "experiments": [{"id": "e", "sweep": "fig7-goodput.toml", "figures": [{"id": "f", "kind": "trace", "from_s": "34"}]}]},
            "experiments.0.figures.0.from_s",
            "must be a number",
        ),
    ],
)
def test_definition_mistakes_are_reported_with_their_path(doc, path, fragment):
    with pytest.raises(PaperError) as err:
        paper_from_dict(doc, NJPLUS)
    assert err.value.path == path and fragment in err.value.reason


def test_quick_variant_replaces_factors_and_adds_fixed_values():
    doc = {"replications": 10, "set": {"a": 1}, "grid": {"x": [1, 2, 3], "y": [1]}}
    quick = quick_variant(doc, {"replications": 2, "set": {"b": 2}, "grid": {"x": [3]}})
    assert quick == {"replications": 2, "set": {"a": 1, "b": 2}, "grid": {"x": [3], "y": [1]}}
    assert doc["grid"]["x"] == [1, 2, 3]  # the definition itself is untouched


# --- measurement ---


def test_judge_tests_the_stated_direction_and_the_rough_size():
    assert measure.judge(18.0, 19.0, ">0", True, 0.5) == "yes"
    assert measure.judge(5.0, 19.0, ">0", True, 0.5) == "no"  # right direction, far too small
    assert measure.judge(-3.0, 19.0, ">0", False, 0.5) == "no"  # wrong direction
    assert measure.judge(5.0, 19.0, ">0", False, 0.5) == "yes"  # direction only
    assert measure.judge(0.995, 0.9999, None, 0.01, 0.5) == "yes"
    assert measure.judge(0.33, 0.9999, None, 0.01, 0.5) == "no"
    assert measure.judge(math.nan, 19.0, ">0", True, 0.5) == "na"
    assert measure.judge(1.0, None, None, True, 0.5) == "na"  # nothing to check against


def test_swept_values_sort_as_the_legends_do_numbers_by_value_whatever_their_type():
    """A claim's points and a figure's rows follow the swept values in the legends' order
    (`wtcp.plot.natural_key`): a flow count read from a pandas nullable integer column is
    a `numpy.int64`, and 4 still comes before 10; then algorithms in their registered order
    (the legends' and the tables' alike), then other text ("flow2" before "flow10")."""
    import numpy as np

    from wtcp.plot import ALGORITHM_ORDER, natural_key

    values = ["reno", np.int64(10), 4, np.int64(3), np.float64(2.5), "cubic", True, "flow10", "flow2"]
    first, second = sorted(["reno", "cubic"], key=ALGORITHM_ORDER.index)
    assert sorted(values, key=natural_key) == [2.5, 3, 4, 10, first, second, "flow2", "flow10", True]


@given(st.lists(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), min_size=2, max_size=30))
def test_the_interval_contains_the_mean(values):
    est = measure.estimate(values)
    assert est.n == len(values)
    tol = 1e-9 * max(1.0, abs(est.mean))
    assert est.ci_low <= est.mean + tol and est.mean - tol <= est.ci_high


def test_a_constant_has_a_zero_width_interval_and_one_value_none():
    est = measure.estimate([2.0, 2.0, 2.0])
    assert est.mean == est.ci_low == est.ci_high == 2.0
    assert math.isnan(measure.estimate([2.0]).ci_low)


def test_gains_are_paired_by_replication():
    import pandas as pd

    frame = pd.DataFrame(
        {
            "key": ["a0", "a1", "b0", "b1"],
            "algorithm": ["njplus", "njplus", "reno", "reno"],
            "replication": [0, 1, 0, 1],
            "goodput_mbps": [1.2, 2.4, 1.0, 2.0],
        }
    )
    paper = load_paper("njplus")
    claim = paper.claims[0]
    claim.spec.update(a={"algorithm": "njplus"}, b={"algorithm": "reno"}, experiment="fig7")
    result = measure.evaluate(paper, claim, {"fig7": frame})
    # Both replications gain exactly 20 %: a zero-width interval around 20.
    assert result.measured == pytest.approx(20.0)
    assert result.ci_low == pytest.approx(20.0) and result.ci_high == pytest.approx(20.0)


# --- the whole command, quick grid ---


@pytest.fixture(scope="session")
def quick_all(reproduce_all_quick) -> Path:
    """The README's `wtcp reproduce all` in its quick form (run once, shared with test_readme)."""
    proc, out = reproduce_all_quick
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.mark.xdist_group("reproduce-all")
def test_reproduce_all_quick_writes_claims_figures_and_a_report(quick_all):
    for name in all_targets():
        folder = quick_all / name
        with (folder / "claims.csv").open(encoding="utf-8") as f:
            reader = csv.DictReader(f)
            assert reader.fieldnames[: len(CLAIM_COLUMNS)] == CLAIM_COLUMNS
            rows = list(reader)
        assert all(r["holds"] in ("yes", "no", "inconclusive", "na") and r["source"] and r["mode"] == "quick" for r in rows)
        if name != "scorecard":
            assert any(r["holds"] != "na" for r in rows), f"{name}: no claim measured"
        pngs = list(folder.glob("*.png"))
        assert pngs and all((folder / f"{p.stem}.svg").is_file() for p in pngs)
    assert (quick_all / "scorecard" / "confusion.csv").is_file()
    text = (quick_all / "report.html").read_text(encoding="utf-8")
    assert "<script" not in text and "http://" not in text and "https://" not in text
    for name in all_targets():
        assert f'id="{name}"' in text


@pytest.mark.xdist_group("reproduce-all")
def test_a_trace_figure_keeps_only_its_time_window(quick_all):
    # clap's Fig. 4 for ftp2 is drawn over from_s = 34 .. until_s = 66 (paper.toml).
    with (quick_all / "clap" / "fig4-trace-ftp2.csv").open(encoding="utf-8") as f:
        times = [float(r["time"]) for r in csv.DictReader(f)]
    assert times and min(times) >= 34.0 and max(times) <= 66.0
    assert min(times) < 35.0 < max(times)


@pytest.mark.xdist_group("reproduce-all")
def test_a_second_run_reuses_the_stored_runs(quick_all):
    proc = run_cli("reproduce", "scorecard", "--quick", "--quiet", "--out", str(quick_all))
    assert proc.returncode == 0, proc.stderr
    assert "0 failed" in proc.stdout


@pytest.mark.xdist_group("reproduce-all")
def test_report_regenerates_the_page_from_the_directory(quick_all, tmp_path):
    out = tmp_path / "again.html"
    proc = run_cli("report", str(quick_all), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_text(encoding="utf-8").count("<figure>") >= 10


@pytest.mark.parametrize(
    "args, fragment",
    [
        (("reproduce", "nosuchpaper"), "no paper `nosuchpaper`; allowed: "),
        (("reproduce", "njplus", "--workers", "1", "--dask-local", "2"), "at most one of"),
        (("report", "/nonexistent/dir"), "no such directory or result store"),
    ],
)
def test_user_mistakes_exit_2_with_a_message(args, fragment):
    proc = run_cli(*args)
    assert proc.returncode == 2
    assert fragment in proc.stderr and "Traceback" not in proc.stderr


# --- reports of stores escape what users wrote ---


def test_a_store_report_escapes_user_strings(tmp_path):
    from wtcp.sweep import InlineExecutor, load_sweep, run_sweep

    hostile = '<script>alert("x")</script>'
    sweep = load_sweep({"name": hostile, "description": hostile, "scenario": "reference-simple2", "algorithms": ["reno", "newreno"], "set": {"run.duration_s": 5.0}, "grid": {"links.1.ab.loss.rate": [0.0, 0.02]}})
    store = tmp_path / "s.duckdb"
    run_sweep(sweep, store, InlineExecutor())
    proc = run_cli("report", str(store))
    assert proc.returncode == 0, proc.stderr
    text = store.with_suffix(".html").read_text(encoding="utf-8")
    assert hostile not in text and "&lt;script&gt;" in text
    assert "<script" not in text


def test_a_store_report_draws_a_swept_number_with_store_plot(tmp_path):
    # One swept number: Store.plot's figure, with units on both axes and a goodput axis
    # that starts at zero.
    import base64
    import re

    from wtcp.sweep import InlineExecutor, load_sweep, run_sweep

    sweep = load_sweep({"name": "s", "scenario": "reference-simple2", "algorithms": ["reno", "newreno"], "set": {"run.duration_s": 5.0},
                        "grid": {"links.1.ab.loss.rate": [0.0, 0.02, 0.05]}})
    store = tmp_path / "s.duckdb"
    run_sweep(sweep, store, InlineExecutor())
    proc = run_cli("report", str(store))
    assert proc.returncode == 0, proc.stderr
    page = store.with_suffix(".html").read_text(encoding="utf-8")
    [svg] = [base64.b64decode(b).decode() for b in re.findall(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", page)]
    labels = wtcp.open_store(store).plot(x="links.1.ab.loss.rate", y="goodput_mbps", hue="cc", flows="sum").axes[0]
    assert labels.get_ylim()[0] == 0
    for text in (labels.get_xlabel(), labels.get_ylabel()):
        assert "(" in text  # a unit
        for word in text.replace("(", " ").replace(")", " ").split():
            assert word in svg or any(ord(c) > 127 for c in word), (word, text)


# --- in a browser ---


browser = pytest.mark.skipif(find_browser() is None and not REQUIRE_BROWSER, reason="no Chromium (make test installs it)")


@browser
@pytest.mark.xdist_group("reproduce-all")
def test_the_reproduction_report_renders_in_chromium_without_errors(quick_all):
    page = render(quick_all / "report.html", find_browser())
    assert page.problems == []
    assert page.title == "wtcp: the papers reproduced"
    assert page.images >= 10 and page.broken_images == 0


@browser
def test_the_browser_check_sees_errors_when_there_are_some(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text('<html><body><img src="missing.png"><script>console.error("boom"); throw new Error("bang")</script></body></html>')
    page = render(bad, find_browser())
    assert any("boom" in e for e in page.console_errors)
    assert page.exceptions and page.broken_images == 1


def test_a_claim_over_every_point_holds_only_if_it_holds_at_each_and_shows_the_worst():
    import pandas as pd

    frame = pd.DataFrame(
        {
            "key": ["k0", "k1", "k2", "k3"],
            "algorithm": ["njplus"] * 4,
            "replication": [0, 1, 0, 1],
            "links_1_ab_loss_rate": [0.0, 0.0, 0.1, 0.1],
            "jain_fairness": [0.40, 0.42, 0.99, 0.99],
        }
    )
    paper = load_paper("njplus")
    claim = next(c for c in paper.claims if c.get("over") and c.get("measure") == "value")
    result = measure.evaluate(paper, claim, {claim.get("experiment"): frame})
    assert result.holds == "no"
    assert result.measured == pytest.approx(0.41)  # the worst point, 0 % loss
    assert "fails at 0" in result.note


@pytest.mark.xdist_group("reproduce-all")
def test_the_report_puts_each_papers_verdicts_and_figures_before_its_long_tables(quick_all):
    page = (quick_all / "report.html").read_text(encoding="utf-8")
    section = page[page.index('<h2 id="njplus"'):]
    section = section[: section.index("<h2", 10)] if "<h2" in section[10:] else section
    order = [section.index(marker) for marker in ("<th>claims</th>", "<h3>Figures</h3>", "<h3>Published versus measured</h3>", "<h3>Ablations</h3>")]
    assert order == sorted(order)
    # The claims table: seven columns, reason and evidence folded.
    claims = section[section.index('<table class="claims">'):]
    head = claims[: claims.index("</thead>")]
    assert head.count("<th>") == 7 and "<details><summary>why</summary>" in claims
    assert "not measured under the ablation: <" not in page and "not measured under the ablation: </td>" not in page


@pytest.mark.parametrize(
    "measured, published, shown",
    [("-1.81641", "19", "-1.8"), ("3.19172", "2.5", "3.19"), ("123.389", "", "123"), ("njplus,0.05 0.7092 > newjersey,0.05 0.7224", "0.7", "njplus 0.05 0.71 > newjersey 0.05 0.72"), ("nan", "1", "")],
)
def test_measured_numbers_are_shown_to_one_place_more_than_the_published_one(measured, published, shown):
    from wtcp.htmlreport import decimals_of, rounded

    assert rounded(measured, decimals_of(published)) == shown
