"""ns-3's headers precompiled for cppyy (`wtcp.ns3.pch`): built once, under a lock, named
after what it was made from, never left half-written, and giving the same ns-3 results as
parsing the headers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import wtcp
from conftest import reference_path, without_wall
from wtcp.ns3 import pch

pytest.importorskip("cppyy_backend")
pytest.importorskip("ns3")


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """An empty cache folder, and a process in which cppyy has not started yet."""
    monkeypatch.setenv(pch.ENV_CACHE, str(tmp_path / "cache"))
    monkeypatch.delenv(pch.ENV_DISABLE, raising=False)
    monkeypatch.delitem(sys.modules, "cppyy", raising=False)
    return tmp_path / "cache"


def fake_build(calls: list[Path], seconds: float = 0.0):
    def build(target: Path, *_: object) -> None:
        calls.append(target)
        time.sleep(seconds)
        target.write_bytes(b"pch")

    return build


def test_the_name_follows_the_modules_the_symbols_and_the_harness():
    from wtcp.ns3.modules import MODULES, wheel_prefix

    prefix = wheel_prefix()
    name = pch.pch_name(prefix, MODULES, {"NS3_LOG_ENABLE": "1"})
    assert name == pch.pch_name(prefix, MODULES, {"NS3_LOG_ENABLE": "1"})
    assert name.startswith("ns3-") and name.endswith(".pch")
    assert name != pch.pch_name(prefix, MODULES, {"NS3_LOG_ENABLE": "0"})
    assert name != pch.pch_name(prefix, (*MODULES, "lte"), {"NS3_LOG_ENABLE": "1"})
    assert name != pch.pch_name(prefix.parent, MODULES, {"NS3_LOG_ENABLE": "1"})
    with_harness = pch.pch_name(prefix, MODULES, {"NS3_LOG_ENABLE": "1"}, {"harness.cc": b"int f() { return 1; }\n"})
    assert with_harness != name
    edited = pch.pch_name(prefix, MODULES, {"NS3_LOG_ENABLE": "1"}, {"harness.cc": b"int f() { return 2; }\n"})
    assert edited != with_harness  # an edited harness: another PCH


def test_a_new_pch_replaces_the_old_ones_in_the_environments_own_folder_only(tmp_path, monkeypatch):
    monkeypatch.delenv(pch.ENV_CACHE, raising=False)
    monkeypatch.delenv(pch.ENV_DISABLE, raising=False)
    monkeypatch.delitem(sys.modules, "cppyy", raising=False)
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "venv"))
    monkeypatch.setattr(sys, "base_prefix", "/usr")
    calls: list[Path] = []
    monkeypatch.setattr(pch, "build", fake_build(calls))
    own = tmp_path / "venv" / "share" / "wtcp"
    own.mkdir(parents=True)
    for name in ("ns3-old.pch", "ns3-older.pch.failed", "notes.txt"):
        (own / name).write_text("x")
    new = pch.ensure(Path("/ns3"), ("core",), {})
    assert new is not None and sorted(f.name for f in own.iterdir()) == sorted([new.name, "notes.txt", "ns3-pch.lock"])
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "ns3-old.pch").write_text("x")  # another environment's, in a folder it shares
    monkeypatch.setenv(pch.ENV_CACHE, str(shared))
    assert pch.ensure(Path("/ns3"), ("core",), {}) is not None and (shared / "ns3-old.pch").exists()


def test_concurrent_loads_build_it_once_and_later_ones_reuse_it(cache, monkeypatch, capsys):
    calls: list[Path] = []
    monkeypatch.setattr(pch, "build", fake_build(calls, 0.3))
    found: list[Path | None] = []
    threads = [threading.Thread(target=lambda: found.append(pch.ensure(Path("/ns3"), ("core",), {}))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and found == [calls[0]] * 3 and calls[0].parent == cache
    assert capsys.readouterr().err.count("building ns-3's precompiled headers once") == 1
    assert pch.ensure(Path("/ns3"), ("core",), {}) == calls[0] and len(calls) == 1
    assert pch.ensure(Path("/ns3"), ("core", "wifi"), {}) != calls[0] and len(calls) == 2  # other modules: another PCH


class FakeRootcling:
    """Stands for rootcling in `pch.build`: writes a partial PCH into the build's folder
    and exits with `code`."""

    def __init__(self, code: int):
        self.code, self.calls = code, 0

    def __call__(self, command, **_):
        self.calls += 1
        out = Path(command[command.index("-f") + 1]).with_name("allDict_rdict.pch")
        out.write_bytes(b"partial")
        return subprocess.CompletedProcess(command, self.code, "", "fatal error: no such header")


def test_a_failed_build_leaves_no_file_is_not_retried_and_ns3_loads_without_it(cache, monkeypatch, capsys):
    rootcling = FakeRootcling(1)
    monkeypatch.setattr(pch.subprocess, "run", rootcling)
    assert pch.ensure(Path("/ns3"), ("core",), {}) is None
    assert "ns-3 loads without precompiled headers (slower): rootcling exited with 1: fatal error" in capsys.readouterr().err
    assert sorted(f.suffix for f in cache.iterdir()) == [".failed", ".lock"]  # no PCH, no build folder
    assert pch.ensure(Path("/ns3"), ("core",), {}) is None and rootcling.calls == 1
    assert "building them failed before (rootcling exited with 1" in capsys.readouterr().err


def test_the_harness_is_compiled_as_it_was_read_and_a_failure_names_its_first_error(tmp_path, monkeypatch):
    """`build` compiles the text the name was hashed from (copied beside the build), not
    the file as it may be by then; rootcling's first error is what is reported."""
    seen: dict[str, bytes] = {}

    def rootcling(command, **_):
        for arg in command:
            if arg.endswith(".cc"):
                seen[Path(arg).name] = Path(arg).read_bytes()
        stderr = "note: reading\n" * 200 + "harness.cc:3:1: error: unknown type name 'Foo'\nFoo x;\n" + "note: more\n" * 400
        return subprocess.CompletedProcess(command, 1, "", stderr)

    monkeypatch.setattr(pch.subprocess, "run", rootcling)
    with pytest.raises(OSError) as failure:
        pch.build(tmp_path / "x.pch", Path("/ns3"), ("core",), {}, {"wifi.cc": b"int a;\n", "harness.cc": b"Foo x;\n"})
    assert seen == {"wifi.cc": b"int a;\n", "harness.cc": b"Foo x;\n"}
    assert str(failure.value).startswith("rootcling exited with 1: harness.cc:3:1: error: unknown type name 'Foo'")
    assert list(tmp_path.iterdir()) == []


def test_a_build_that_cannot_be_put_in_place_leaves_nothing(cache, monkeypatch):
    def cannot_rename(*_: object) -> None:
        raise OSError("No space left on device")

    monkeypatch.setattr(pch.subprocess, "run", FakeRootcling(0))
    monkeypatch.setattr(pch.os, "replace", cannot_rename)
    assert pch.ensure(Path("/ns3"), ("core",), {}) is None
    assert sorted(f.suffix for f in cache.iterdir()) == [".failed", ".lock"]


def test_a_load_that_waits_too_long_for_another_build_loads_without(cache, monkeypatch, capsys):
    import fcntl

    calls: list[Path] = []
    monkeypatch.setattr(pch, "build", fake_build(calls))
    monkeypatch.setattr(pch, "LOCK_WAIT_S", 0.5)
    cache.mkdir()
    with open(cache / "ns3-pch.lock", "a") as held:  # another process's build, stuck
        fcntl.flock(held, fcntl.LOCK_EX)
        holder = subprocess.Popen([sys.executable, "-c", f"import fcntl, time; f = open({str(cache / 'ns3-pch.lock')!r}, 'a'); fcntl.flock(f, fcntl.LOCK_EX); time.sleep(30)"])
        fcntl.flock(held, fcntl.LOCK_UN)
        try:
            time.sleep(1.0)  # the other process takes the lock
            assert pch.ensure(Path("/ns3"), ("core",), {}) is None
        finally:
            holder.kill()
            holder.wait()
    err = capsys.readouterr().err
    assert "waiting for another process to build" in err and "has held" in err and calls == []


def test_a_real_build_that_fails_leaves_no_partial_file(cache):
    """rootcling on a header that does not exist: an error, and nothing under the name."""
    from wtcp.ns3.modules import wheel_prefix

    cache.mkdir(parents=True)
    target = cache / "x.pch"
    with pytest.raises(OSError, match="rootcling exited"):
        pch.build(target, wheel_prefix(), ("no-such",), {})
    assert not list(cache.iterdir())


def test_it_is_not_used_when_disabled_or_when_cppyy_has_started(cache, monkeypatch):
    calls: list[Path] = []
    monkeypatch.setattr(pch, "build", fake_build(calls))
    monkeypatch.setenv(pch.ENV_DISABLE, "0")
    assert pch.ensure(Path("/ns3"), ("core",), {}) is None
    monkeypatch.delenv(pch.ENV_DISABLE)
    monkeypatch.setitem(sys.modules, "cppyy", object())
    assert pch.ensure(Path("/ns3"), ("core",), {}) is None
    assert calls == [] and not cache.exists()


def test_the_default_folder_is_the_environments_or_the_users_cache(monkeypatch, tmp_path):
    monkeypatch.delenv(pch.ENV_CACHE, raising=False)
    monkeypatch.setattr(sys, "prefix", "/venv")
    monkeypatch.setattr(sys, "base_prefix", "/usr")
    assert pch.cache_dir() == Path("/venv/share/wtcp")
    monkeypatch.setattr(sys, "prefix", "/usr")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert pch.cache_dir() == tmp_path / "wtcp"


def run_parsing_ns3() -> tuple[list[dict], bool]:
    """`short_runs()` in ns-3, in a new process that parses the headers: (their metrics,
    whether ns-3's classes were there before any header was parsed)."""
    code = ("import json, sys, wtcp; from wtcp.ns3 import modules; modules.import_cppyy(modules.standard_pch()); import cppyy; "
            "print(json.dumps(hasattr(cppyy.gbl, 'ns3'))); from test_ns3_pch import short_runs; "
            "[print(sc.run(engine='ns3').to_json()) for sc in short_runs()]")
    env = {**os.environ, pch.ENV_DISABLE: "0", "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    first, *metrics = done.stdout.splitlines()
    return [without_wall(m) for m in metrics], json.loads(first)


def short_runs() -> list:
    """The wired reference path for 11 s and an 802.11n access point with aggregation
    for 3 s (the harness's two sources, harness.cc and wifi.cc, both at work)."""
    return [wtcp.load(reference_path()).set("run.duration_s", 11.0), wtcp.load(wtcp.builtin_scenario_path("wifi-n-aggregation")).set("run.duration_s", 3.0)]


def the_pch() -> Path:
    from wtcp.ns3.modules import HARNESS, MODULES, build_definitions, wheel_prefix

    cmake = next(wheel_prefix().glob("lib*/cmake/ns3/ns3Targets.cmake")).read_text(encoding="utf-8")
    return pch.pch_path(wheel_prefix(), MODULES, build_definitions(cmake), {path.name: path.read_bytes() for path in HARNESS})


def test_ns3_gives_the_same_results_from_the_precompiled_headers_as_from_parsing(ns3):
    """This process loaded ns-3 from the PCH (cppyy names its own PCH in the environment
    when it starts from it instead); a new one parses the headers."""
    assert the_pch().is_file() and "CLING_STANDARD_PCH" not in os.environ
    with_pch = [without_wall(sc.run(engine="ns3").to_json()) for sc in short_runs()]
    parsed, ready = run_parsing_ns3()
    assert not ready  # nothing of ns-3 was declared before its headers were parsed
    assert with_pch == parsed and all(m["flows"][0]["goodput_bps"] > 0 for m in with_pch)


def test_a_pch_without_ns3_under_the_name_is_removed_and_ns3_still_loads(ns3, tmp_path):
    """A file that cppyy's loader put in the PCH's place (its standard headers only, as
    when it found the name missing at the import): the load parses the headers, says so
    and removes the file, so that the next load builds the PCH again."""
    import cppyy_backend

    standard = next(Path(cppyy_backend.__file__).parent.parent.glob("cppyy/allDict.cxx.pch.*"))
    shutil.copyfile(standard, tmp_path / the_pch().name)
    code = "from wtcp.ns3.run import load; ns, gbl = load(); print(hasattr(gbl, 'wtcpns3'))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, pch.ENV_CACHE: str(tmp_path)}, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True" and "did not hold ns-3's headers; removed" in done.stderr
    assert not (tmp_path / the_pch().name).exists()


def test_cppyy_does_not_rebuild_an_old_pch_with_its_standard_headers(ns3, tmp_path):
    """cppyy's loader rebuilds, in place and with its standard headers only, a PCH older
    than its include folder (as after a reinstall of cppyy-cling)."""
    copy = tmp_path / the_pch().name
    shutil.copyfile(the_pch(), copy)
    os.utime(copy, (0, 0))
    size = copy.stat().st_size
    code = ("import os; from wtcp.ns3 import modules; modules.import_cppyy(modules.standard_pch()); import cppyy; "
            "print(hasattr(cppyy.gbl, 'ns3'), hasattr(cppyy.gbl, 'wtcpns3'), os.environ.get('CLING_STANDARD_PCH'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, pch.ENV_CACHE: str(tmp_path)}, timeout=300)
    assert done.returncode == 0, done.stderr
    # ns-3's classes and the harness declared from the PCH before any include or cppdef,
    # the variable put back (not passed on to processes started after), the file as it was.
    assert done.stdout.split() == ["True", "True", "None"] and "building" not in done.stderr
    assert copy.stat().st_size == size and copy.stat().st_mtime == 0
