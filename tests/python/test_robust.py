"""Hostile input gives a clean error, never a traceback or a file outside the output folder.

Python values the simulator cannot take (too deep, self-containing, lone surrogates);
result stores that are locked, corrupt, empty or not DuckDB; names and paths that would
lead outside the chosen folder. Each case is a reproducer of a failure seen before."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wtcp
from wtcp.reproduce.spec import PAPER_DIR, PaperError, load_paper, paper_from_dict
from wtcp.sweep import InlineExecutor, Sweep, SweepError, run_sweep
from wtcp.sweep.runner import default_store_path
from wtcp.sweep.store import Store, StoreError, copy_store, open_store, wal_path

from chromium import find_browser, render
from conftest import reference_path, run_cli

pytest.importorskip("duckdb")

SHORT = {"run.duration_s": 3.0, "run.measure_from_s": 1.0}


def nested(depth: int, kind: str = "dict"):
    value: object = 1
    for _ in range(depth):
        value = {"a": value} if kind == "dict" else [value]
    return value


def self_containing(kind: str):
    if kind == "dict":
        d: dict = {}
        d["s"] = d
        return d
    items: list = []
    items.append(items)
    return items


def assert_clean(error: Exception, path: str, fragment: str) -> None:
    """A ScenarioError-shaped error: the path, a reason, and text that can be printed."""
    assert error.path == path
    assert fragment in error.reason
    str(error).encode("utf-8")  # printable: no lone surrogate left in the message


# --- 5. Python values the simulator cannot take ---


@pytest.mark.parametrize("kind", ["dict", "list"])
def test_a_value_nested_990_deep_is_a_scenario_error(reference, kind):
    deep = nested(990, kind)
    with pytest.raises(wtcp.ScenarioError) as info:
        reference.set("name", deep)
    assert info.value.path.startswith("name.") and "nested more than 32 levels" in info.value.reason
    document = reference.document
    document["name"] = deep
    with pytest.raises(wtcp.ScenarioError) as info:
        wtcp.Scenario.from_dict(document)
    assert info.value.path.startswith("name.") and "nested more than 32 levels" in info.value.reason


def test_nesting_up_to_the_limit_reaches_the_schema_check(reference):
    # 30 levels below `name` (31 with it) pass the walk; the schema then refuses the type.
    with pytest.raises(wtcp.ScenarioError) as info:
        reference.set("name", nested(30, "list"))
    assert info.value.path == "name" and "nested" not in info.value.reason


@pytest.mark.parametrize("kind, inner", [("dict", "name.s"), ("list", "name.0")])
def test_a_value_containing_itself_is_a_scenario_error(reference, kind, inner):
    with pytest.raises(wtcp.ScenarioError) as info:
        reference.set("name", self_containing(kind))
    assert_clean(info.value, inner, "contains itself")
    document = reference.document
    document["name"] = self_containing(kind)
    with pytest.raises(wtcp.ScenarioError) as info:
        wtcp.Scenario.from_dict(document)
    assert_clean(info.value, inner, "contains itself")


def test_a_value_repeated_but_not_containing_itself_is_fine(reference):
    shared = {"model": "uniform", "rate": 0.02}
    sc = reference.with_overrides({"links.1.ab.loss": shared, "links.1.ba.loss": shared})
    assert sc.document["links"][1]["ba"]["loss"]["rate"] == 0.02


LONE = "a\udcff"


@pytest.mark.parametrize(
    "make, path",
    [
        (lambda sc: sc.set("name", LONE), "name"),
        (lambda sc: sc.set("flows.0.cc_params", {LONE: 1}), "flows.0.cc_params.a\\udcff"),
        (lambda sc: sc.set(f"na{LONE}me", 1), "naa\\udcffme"),
        (lambda sc: sc.with_text_overrides([("name", f'"{LONE}"')]), "name"),
        (lambda sc: sc.with_text_overrides([(f"n{LONE}", "1")]), "na\\udcff"),
        (lambda sc: wtcp.Scenario.from_dict({**sc.document, "name": LONE}), "name"),
        (lambda sc: wtcp.Scenario.from_dict({**sc.document, LONE: 1}), "a\\udcff"),
    ],
    ids=["value", "key", "path", "text value", "text path", "dict value", "dict key"],
)
def test_a_lone_surrogate_is_a_scenario_error_with_the_path(reference, make, path):
    with pytest.raises(wtcp.ScenarioError) as info:
        make(reference)
    assert_clean(info.value, path, "not valid Unicode text: a lone surrogate")


def test_a_lone_surrogate_in_toml_text_names_line_and_column(reference_text):
    text = reference_text + f'\n# {LONE}\n'
    with pytest.raises(wtcp.ScenarioError) as info:
        wtcp.Scenario.from_toml(text)
    line = text.count("\n", 0, text.index(LONE)) + 1
    assert_clean(info.value, "", f"at line {line}, column 4")


# Nested values of every kind, with surrogates among the strings: the API raises
# ScenarioError or accepts, nothing else (no RecursionError, no UnicodeEncodeError).
_scalars = st.one_of(st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True), st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0xDFFF), max_size=6))
_values = st.recursive(_scalars, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(alphabet=st.characters(min_codepoint=0xD7F0, max_codepoint=0xDFFF), max_size=3), inner, max_size=3)), max_leaves=40)


@settings(max_examples=150, deadline=None)
@given(path=st.sampled_from(["name", "flows.0.cc_params", "links.1.ab.loss", "nodes.0"]), value=_values)
def test_any_nested_value_is_accepted_or_a_scenario_error(reference, path, value):
    try:
        reference.set(path, value)
    except wtcp.ScenarioError as e:
        str(e).encode("utf-8")
    try:
        document = reference.document
        document["description"] = value
        wtcp.Scenario.from_dict(document)
    except wtcp.ScenarioError as e:
        str(e).encode("utf-8")


@pytest.mark.parametrize(
    "doc, path, fragment",
    [
        ({"set": {"name": nested(990)}}, "set.name.a", "nested more than 32"),
        ({"grid": {"name": [self_containing("dict")]}}, "grid.name.0.s", "contains itself"),
        ({"points": [self_containing("dict")]}, "points.0.s", "contains itself"),
        ({"grid": {f"na{LONE}me": ["x"]}}, "grid.naa\\udcffme", "lone surrogate"),
        ({"grid": {"name": [LONE]}}, "grid.name.0", "lone surrogate"),
        ({"description": LONE}, "description", "lone surrogate"),
    ],
    ids=["deep set", "self in grid", "self point", "surrogate path", "surrogate value", "surrogate description"],
)
def test_sweep_documents_python_cannot_hold_are_sweep_errors(doc, path, fragment):
    with pytest.raises(SweepError) as info:
        Sweep.from_dict({"scenario": "reference-simple2", **doc})
    assert info.value.path.startswith(path) and fragment in info.value.reason
    str(info.value).encode("utf-8")


def test_paper_documents_python_cannot_hold_are_paper_errors():
    doc = {"paper": "x", "title": "X", "experiments": [{"id": "e", "sweep": "fig7-goodput.toml"}], "claims": [self_containing("dict")]}
    with pytest.raises(PaperError) as info:
        paper_from_dict(doc, PAPER_DIR / "njplus")
    assert info.value.path == "claims.0.s" and "contains itself" in info.value.reason


def test_cli_set_with_undecodable_bytes_exits_2(tmp_path):
    # Bytes that are not UTF-8 reach Python as lone surrogates (surrogateescape).
    arg = os.fsdecode(b"name=\xff\xfe")
    proc = run_cli("run", str(reference_path()), "--set", arg, "--set", "run.duration_s=2")
    assert proc.returncode == 2, proc.stderr
    assert "name: the value is not valid Unicode text" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("kind", ["[", "{a="])
def test_cli_sweep_file_nested_990_deep_exits_2(tmp_path, kind):
    close = "]" if kind == "[" else "}"
    body = 'scenario = "reference-simple2"\n[set]\nname = ' + kind * 990 + ("1" if kind != "[" else "") + close * 990 + "\n"
    file = tmp_path / "deep.toml"
    file.write_text(body, encoding="utf-8")
    proc = run_cli("sweep", str(file), "--workers", "1", "--quiet")
    assert proc.returncode == 2, proc.stderr
    assert "not valid TOML: arrays or tables nested too deeply" in proc.stderr and "Traceback" not in proc.stderr


# --- 7. result stores that cannot be used ---


SWEEP = textwrap.dedent(
    """\
    name = "s"
    scenario = "reference-simple2"
    [set]
    "run.duration_s" = 3.0
    "run.measure_from_s" = 1.0
    """
)


@pytest.fixture(scope="module")
def good_store(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("store")
    sweep = Sweep.from_dict(json.loads(json.dumps({"scenario": "reference-simple2", "name": "s", "set": SHORT})))
    run_sweep(sweep, folder / "good.duckdb", InlineExecutor())
    return folder / "good.duckdb"


def _corrupt(good: Path, target: Path) -> None:
    shutil.copyfile(good, target)
    with target.open("r+b") as f:
        f.seek(3 * 4096)  # the first block after DuckDB's three header blocks
        f.write(b"\xff" * 8192)


def _truncated(good: Path, target: Path) -> None:
    shutil.copyfile(good, target)
    os.truncate(target, 20_000)


def _foreign(good: Path, target: Path) -> None:
    import duckdb

    con = duckdb.connect(str(target))
    con.execute("CREATE TABLE t (x INTEGER)")
    con.close()


def _foreign_runs(good: Path, target: Path) -> None:
    import duckdb

    con = duckdb.connect(str(target))
    con.execute("CREATE TABLE runs (x INTEGER)")
    con.close()


BAD_STORES = {
    "empty": (lambda good, t: t.write_bytes(b""), "is not a DuckDB database file"),
    "text": (lambda good, t: t.write_text("hello\n"), "is not a DuckDB database file"),
    "random": (lambda good, t: t.write_bytes(os.urandom(50_000)), "is not a DuckDB database file"),
    "truncated": (_truncated, "is damaged (corrupt or truncated"),
    "corrupt": (_corrupt, "is damaged (corrupt or truncated"),
    "other database": (_foreign, "not a wtcp result store (no `runs` table"),
    "other runs table": (_foreign_runs, "not a wtcp result store (`runs` has no column key"),
}


@pytest.mark.parametrize("make, fragment", BAD_STORES.values(), ids=BAD_STORES.keys())
def test_an_unusable_store_is_a_store_error_from_python(good_store, tmp_path, make, fragment):
    path = tmp_path / "bad.duckdb"
    make(good_store, path)
    for open_it in (open_store, Store):
        with pytest.raises(StoreError) as info:
            open_it(path)
        assert isinstance(info.value, ValueError)
        assert info.value.path == str(path) and fragment in info.value.reason


@pytest.mark.parametrize("make, fragment", BAD_STORES.values(), ids=BAD_STORES.keys())
@pytest.mark.parametrize("command", ["report", "results", "sweep"])
def test_an_unusable_store_exits_2_from_every_command(good_store, tmp_path, make, fragment, command):
    path = tmp_path / "bad.duckdb"
    make(good_store, path)
    before = path.read_bytes()
    if command == "sweep":
        sweep = tmp_path / "s.toml"
        sweep.write_text(SWEEP, encoding="utf-8")
        proc = run_cli("sweep", str(sweep), "--workers", "1", "--quiet", "--store", str(path))
    else:
        proc = run_cli(command, str(path))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"error: {path}: ") and fragment in proc.stderr
    assert "Traceback" not in proc.stderr
    assert path.read_bytes() == before  # left as it was


HOLD_LOCK = textwrap.dedent(
    """\
    import sys, time
    import duckdb
    con = duckdb.connect(sys.argv[1])
    con.execute("INSERT INTO runs (key, sweep, status, replication) VALUES ('late', 'late', 'done', 0)")
    print("ready", flush=True)
    time.sleep(120)
    """
)


@pytest.fixture
def locked_store(good_store, tmp_path):
    """A store held open for writing by another process, which has committed one run
    (in the write-ahead log only) since the file was last written."""
    path = tmp_path / "locked.duckdb"
    shutil.copyfile(good_store, path)
    proc = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        assert wal_path(path).is_file()
        yield path
    finally:
        proc.kill()
        proc.wait()


def test_a_sweep_on_a_locked_store_exits_2_naming_the_holder(locked_store, tmp_path):
    sweep = tmp_path / "s.toml"
    sweep.write_text(SWEEP, encoding="utf-8")
    proc = run_cli("sweep", str(sweep), "--workers", "1", "--quiet", "--store", str(locked_store))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"error: {locked_store}: is locked by another process (PID ")
    with pytest.raises(StoreError) as info:
        open_store(locked_store)
    assert info.value.locked


def test_results_and_report_read_a_locked_store_from_a_snapshot(locked_store, tmp_path):
    listing = run_cli("results", str(locked_store), "--export", "csv", "--out", str(tmp_path / "out"))
    assert listing.returncode == 0, listing.stderr
    assert "being written by another process" in listing.stderr
    assert "late" in listing.stdout  # the run committed only to the write-ahead log
    assert "late" in (tmp_path / "out" / "runs.csv").read_text()
    page = run_cli("report", str(locked_store), "--out", str(tmp_path / "r.html"))
    assert page.returncode == 0, page.stderr
    assert "A snapshot" in (tmp_path / "r.html").read_text()


def test_a_copy_includes_the_write_ahead_log_also_while_the_store_is_written(locked_store, tmp_path):
    plain = tmp_path / "plain.duckdb"
    shutil.copyfile(locked_store, plain)  # the file alone: the late run is missing
    with open_store(plain) as st:
        assert "late" not in set(st.runs().key)
    proc = run_cli("results", str(locked_store), "--copy", str(tmp_path / "copy.duckdb"))
    assert proc.returncode == 0, proc.stderr
    assert not wal_path(tmp_path / "copy.duckdb").exists()  # one self-contained file
    with open_store(tmp_path / "copy.duckdb") as st:
        assert {"late"} < set(st.runs().key)


def test_a_copy_after_a_sigkilled_writer_keeps_the_logged_results(good_store, tmp_path):
    path = tmp_path / "killed.duckdb"
    shutil.copyfile(good_store, path)
    script = HOLD_LOCK.replace('print("ready", flush=True)', "import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    subprocess.run([sys.executable, "-c", script, str(path)])
    assert wal_path(path).is_file()
    copy_store(path, tmp_path / "copy.duckdb")
    with open_store(tmp_path / "copy.duckdb") as st:
        assert "late" in set(st.runs().key)
    with pytest.raises(StoreError):
        copy_store(tmp_path / "copy.duckdb", tmp_path / "copy.duckdb")


# --- 9. nothing outside the chosen folder ---


@pytest.mark.parametrize("name", ["../../x", "/tmp/wtcp-absolute-x", "sub/x", "..", "a\\b", " x", "x\x00y"])
def test_a_sweep_name_that_is_not_one_file_name_is_refused(tmp_path, name):
    folder = tmp_path / "a" / "b"
    folder.mkdir(parents=True)
    file = folder / "s.toml"
    file.write_text(SWEEP.replace('name = "s"', f"name = {json.dumps(name)}"), encoding="utf-8")
    proc = run_cli("sweep", str(file), "--workers", "1", "--quiet")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"error: {file}: name: ") and "allowed: a plain file name" in proc.stderr
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a", "b", "s.toml"]
    assert not Path("/tmp/wtcp-absolute-x.duckdb").exists()


def test_the_default_store_stays_next_to_the_sweep_file(tmp_path):
    file = tmp_path / "s.toml"
    file.write_text(SWEEP, encoding="utf-8")
    assert default_store_path(Sweep.from_file(file)) == tmp_path / "s.duckdb"
    sweep = Sweep.from_dict({"scenario": "reference-simple2", "name": "../escape"}, base_dir=tmp_path)
    with pytest.raises(SweepError) as info:
        default_store_path(sweep)
    assert info.value.path == "name" and "--store" in info.value.reason


def test_with_a_store_path_a_name_is_only_a_label(tmp_path):
    file = tmp_path / "s.toml"
    file.write_text(SWEEP.replace('name = "s"', 'name = "paper/fig7"'), encoding="utf-8")
    proc = run_cli("sweep", str(file), "--workers", "1", "--quiet", "--store", str(tmp_path / "given.duckdb"))
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["given.duckdb", "s.toml"]
    with open_store(tmp_path / "given.duckdb") as st:
        assert list(st.sweeps().sweep) == ["paper/fig7"]


def test_a_bare_paper_name_loads_only_the_shipped_paper(tmp_path, monkeypatch):
    (tmp_path / "njplus").mkdir()
    (tmp_path / "njplus" / "paper.toml").write_text("not = = toml\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    paper = load_paper("njplus")
    assert paper.folder == PAPER_DIR / "njplus"
    with pytest.raises(PaperError) as info:
        load_paper("./njplus")  # the explicit path form reads the local file
    assert "not valid TOML" in info.value.reason
    with pytest.raises(PaperError) as info:
        load_paper("mine")
    assert "./mine" in info.value.reason


USER_PAPER = textwrap.dedent(
    """\
    paper = "mine"
    title = "A paper of one's own"

    [[experiments]]
    id = "e"
    sweep = "e.toml"

    [[experiments.figures]]
    id = "f"
    kind = "bars"
    metric = "goodput_mbps"

    [[claims]]
    source = "nowhere"
    claim = "nothing"
    measure = "na"
    reason = "a test"
    """
)


def write_user_paper(folder: Path, paper: str = USER_PAPER) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "paper.toml").write_text(paper, encoding="utf-8")
    (folder / "e.toml").write_text(SWEEP.replace('name = "s"\n', ""), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def user_output(tmp_path_factory) -> Path:
    """`wtcp reproduce ./mine --out out` of a one-run paper of one's own."""
    root = tmp_path_factory.mktemp("user")
    write_user_paper(root / "mine")
    proc = subprocess.run([sys.executable, "-m", "wtcp.cli", "reproduce", "./mine", "--quick", "--workers", "1", "--quiet", "--out", "out"], cwd=root, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return root / "out"


def test_a_paper_of_ones_own_runs_by_its_path(user_output):
    assert sorted(p.name for p in user_output.iterdir()) == ["mine", "report.html"]
    assert {"f.svg", "claims.csv", "summary.json", "runs.duckdb"} <= {p.name for p in (user_output / "mine").iterdir()}


@pytest.mark.parametrize(
    "old, new, path",
    [
        ('paper = "mine"', 'paper = "../../escape"', "paper"),
        ('paper = "mine"', 'paper = "/tmp/wtcp-escape"', "paper"),
        ('id = "e"', 'id = "../e"', "experiments.0.id"),
        ('id = "f"', 'id = "../../f"', "experiments.0.figures.0.id"),
    ],
)
def test_names_in_a_paper_that_would_write_outside_out_are_refused(tmp_path, old, new, path):
    write_user_paper(tmp_path / "mine", USER_PAPER.replace(old, new))
    proc = run_cli("reproduce", str(tmp_path / "mine"), "--quick", "--workers", "1", "--quiet", "--out", str(tmp_path / "out"))
    assert proc.returncode == 2, proc.stderr
    assert f": {path}: is " in proc.stderr and "allowed: a plain file name" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]
    assert not Path("/tmp/wtcp-escape").exists()


def test_reproduce_of_an_unknown_bare_name_points_to_the_path_form():
    proc = run_cli("reproduce", "mine", "--quick")
    assert proc.returncode == 2 and "or the path of a paper definition of your own (./mine)" in proc.stderr


SECRET = "SECRET-CONTENT-OUTSIDE"


TAMPERINGS = {
    "image ../": (lambda s, f, o: s["figures"][0].update(images=["../../secret.svg"]), "figures.0.images.0"),
    "image absolute": (lambda s, f, o: s["figures"][0].update(images=[str(o / "secret.svg")]), "figures.0.images.0"),
    "image symlink": (lambda s, f, o: (os.symlink(o / "secret.svg", f / "linked.svg"), s["figures"][0].update(images=["linked.svg"])), "figures.0.images.0"),
    "table data": (lambda s, f, o: s["figures"][0].update(data="../../secret.csv", table=True), "figures.0.data"),
    "claims": (lambda s, f, o: s.update(claims=str(o / "secret.csv")), "claims"),
    "not shaped": (lambda s, f, o: s.update(figures="f.svg"), "figures"),
}


@pytest.mark.parametrize("tamper, path", TAMPERINGS.values(), ids=TAMPERINGS.keys())
def test_report_refuses_a_summary_naming_files_outside_its_folder(user_output, tmp_path, tamper, path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.svg").write_text(f"<svg>{SECRET}</svg>")
    (outside / "secret.csv").write_text(f"a\n{SECRET}\n")
    out = tmp_path / "out"
    shutil.copytree(user_output, out)
    summary_file = out / "mine" / "summary.json"
    summary = json.loads(summary_file.read_text())
    tamper(summary, out / "mine", outside)
    summary_file.write_text(json.dumps(summary))
    (out / "report.html").unlink()
    proc = run_cli("report", str(out))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"error: {summary_file}: {path}: ") and "Traceback" not in proc.stderr
    assert not (out / "report.html").exists()


def test_report_refuses_a_paper_folder_that_links_outside(user_output, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(user_output / "mine", out / "mine")
    proc = run_cli("report", str(out))
    assert proc.returncode == 2 and "leads outside" in proc.stderr and "Traceback" not in proc.stderr


def test_report_of_an_untampered_folder_still_works(user_output, tmp_path):
    shutil.copytree(user_output, tmp_path / "out")
    proc = run_cli("report", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert "data:image/svg+xml;base64," in (tmp_path / "out" / "report.html").read_text()


def test_a_paper_folder_named_like_a_script_url_gives_only_relative_file_links(user_output, tmp_path):
    # A sub-folder named `javascript:...` once became a live script link in report.html.
    out = tmp_path / "out"
    shutil.copytree(user_output, out)
    hostile = "javascript:document.title='PWNED',alert(1),x"
    (out / "mine").rename(out / hostile)
    proc = run_cli("report", str(out))
    assert proc.returncode == 0, proc.stderr
    page = (out / "report.html").read_text()
    assert 'href="javascript' not in page and "href=\"./javascript%3A" in page
    browser = find_browser()
    if browser is None:
        pytest.skip("no Chromium to check how a browser reads the links")
    links = render(out / "report.html", browser).links
    assert links and all(protocol == "file:" for protocol, _ in links), links
    assert all(url.startswith((out.resolve().as_uri() + "/", (out / "report.html").resolve().as_uri())) for _, url in links), links


# Ten numeric paths of reference-simple2 that take values from 1 to 2: 100 each, 1e20 runs.
BIG_GRID_PATHS = ["links.0.delay_ms", "links.1.delay_ms", "links.0.rate_mbps", "links.1.rate_mbps", "tcp.rto_min_s", "tcp.initial_cwnd_segments",
                  "tcp.rto_initial_s", "tcp.delayed_ack_timeout_s", "run.duration_s", "tcp.clock_granularity_s"]


@pytest.mark.parametrize(
    "body, path",
    [
        ("replications = 1000000000000000000\n", "replications"),
        ("[grid]\n" + "".join(f'"{p}" = [{", ".join(str(1 + v / 100) for v in range(100))}]\n' for p in BIG_GRID_PATHS), f"grid.{BIG_GRID_PATHS[0]}"),
    ],
    ids=["1e18 replications", "1e20-run grid"],
)
def test_a_sweep_too_large_to_plan_is_refused_from_its_axes_before_anything_is_made(tmp_path, body, path):
    file = tmp_path / "big.toml"
    file.write_text(f'name = "big"\nscenario = "reference-simple2"\n{body}', encoding="utf-8")
    for extra in (["--dry-run"], []):
        proc = run_cli("sweep", str(file), *extra)
        assert proc.returncode == 2, proc.stderr
        assert f": {path}: the sweep has " in proc.stderr and "WTCP_MEMORY_BUDGET_GIB" in proc.stderr and "Traceback" not in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.toml"]
    with pytest.raises(SweepError) as info:
        run_sweep(Sweep.from_file(file), tmp_path / "api.duckdb", InlineExecutor())
    assert info.value.path == path and not (tmp_path / "api.duckdb").exists()


def test_a_store_check_finds_done_runs_without_flow_rows_and_the_sweep_runs_them_again(tmp_path):
    import duckdb

    file = tmp_path / "s.toml"
    file.write_text(SWEEP + '[grid]\n"links.1.ab.loss.rate" = [0.0, 0.01]\n', encoding="utf-8")
    store = tmp_path / "s.duckdb"
    assert run_cli("sweep", str(file), "--workers", "1", "--quiet", "--store", str(store)).returncode == 0
    sound = run_cli("results", str(store), "--check")
    assert sound.returncode == 0 and "sound" in sound.stdout
    con = duckdb.connect(str(store))
    key = con.execute("SELECT key FROM runs LIMIT 1").fetchone()[0]
    con.execute("DELETE FROM flows WHERE key = ?", [key])
    con.close()
    damaged = run_cli("results", str(store), "--check")
    assert damaged.returncode == 1 and f"1 run(s) stored as done have no flow rows (e.g. key {key})" in damaged.stderr
    again = run_cli("sweep", str(file), "--workers", "1", "--store", str(store))
    assert again.returncode == 0 and "1 done, 1 skipped" in again.stdout
    assert run_cli("results", str(store), "--check").returncode == 0


def test_a_damaged_store_is_refused_by_the_check(tmp_path, good_store):
    damaged = tmp_path / "d.duckdb"
    data = bytearray(good_store.read_bytes())
    for offset in range(len(data) // 3, len(data), 262_144):
        data[offset] ^= 0xFF
    damaged.write_bytes(bytes(data))
    proc = run_cli("results", str(damaged), "--check")
    assert proc.returncode in (1, 2), proc.stdout
    assert ("damaged" in proc.stdout or "is damaged" in proc.stderr) and "Traceback" not in proc.stderr
    # A sweep does not add to it (nor count its runs as done).
    sweep = tmp_path / "s.toml"
    sweep.write_text(SWEEP, encoding="utf-8")
    proc = run_cli("sweep", str(sweep), "--workers", "1", "--store", str(damaged))
    assert proc.returncode == 2 and "is damaged" in proc.stderr, proc.stderr


@pytest.mark.parametrize("command", [["results"], ["report"], ["sweep", "SWEEP", "--store"]])
def test_a_fifo_in_place_of_a_store_is_refused_at_once(tmp_path, command):
    fifo = tmp_path / "f.duckdb"
    os.mkfifo(fifo)
    sweep = tmp_path / "s.toml"
    sweep.write_text(SWEEP, encoding="utf-8")
    args = [str(sweep) if a == "SWEEP" else a for a in command]
    proc = run_cli(*args, str(fifo), timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "not a regular file" in proc.stderr or "FIFO" in proc.stderr, proc.stderr


def test_a_huge_figure_table_is_refused_without_reading_it(user_output, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(user_output, out)
    summary_file = out / "mine" / "summary.json"
    summary = json.loads(summary_file.read_text())
    summary["figures"][0].update(data="big.csv", table=True)
    summary_file.write_text(json.dumps(summary))
    with open(out / "mine" / "big.csv", "wb") as f:
        f.truncate(20 * 2**30)  # 20 GB, sparse: nothing on disk
    proc = run_cli("report", str(out), timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "big.csv: is 20480 MiB" in proc.stderr and "Traceback" not in proc.stderr
