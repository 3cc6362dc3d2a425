"""ns-3's headers precompiled for cppyy (`wtcp.ns3.pch`): built once, under a lock, named
after what it was made from, never left half-written, and giving the same ns-3 results as
parsing the headers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

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


def test_the_name_follows_the_modules_and_the_symbols():
    from wtcp.ns3.modules import MODULES, wheel_prefix

    prefix = wheel_prefix()
    name = pch.pch_name(prefix, MODULES, {"NS3_LOG_ENABLE": "1"})
    assert name == pch.pch_name(prefix, MODULES, {"NS3_LOG_ENABLE": "1"})
    assert name.startswith("ns3-") and name.endswith(".pch")
    assert name != pch.pch_name(prefix, MODULES, {"NS3_LOG_ENABLE": "0"})
    assert name != pch.pch_name(prefix, (*MODULES, "lte"), {"NS3_LOG_ENABLE": "1"})
    assert name != pch.pch_name(prefix.parent, MODULES, {"NS3_LOG_ENABLE": "1"})


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


def test_a_failed_build_leaves_no_file_and_ns3_loads_without_it(cache, monkeypatch, capsys):
    def failing(target: Path, *_: object) -> None:
        raise OSError("rootcling exited with 1: fatal error")

    monkeypatch.setattr(pch, "build", failing)
    assert pch.ensure(Path("/ns3"), ("core",), {}) is None
    assert "ns-3 loads without precompiled headers (slower): rootcling exited with 1" in capsys.readouterr().err
    assert not list(cache.glob("*.pch*"))


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


def run_ns3(env: dict[str, str]) -> tuple[dict, str | None, str]:
    """reference-simple2 for 11 s in ns-3 in a new process: (its metrics, CLING_STANDARD_PCH
    after the load, its stderr)."""
    code = ("import json, sys, wtcp; from wtcp.ns3.run import load; load(); import os; "
            "print(json.dumps({'pch': os.environ.get('CLING_STANDARD_PCH')})); "
            f"sc = wtcp.load({str(reference_path())!r}).set('run.duration_s', 11.0); print(sc.run(engine='ns3').to_json())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    first, metrics = done.stdout.split("\n", 1)
    return without_wall(metrics), json.loads(first)["pch"], done.stderr


def test_ns3_gives_the_same_results_from_the_precompiled_headers_as_from_parsing(ns3):
    from wtcp.ns3.modules import MODULES, build_definitions, wheel_prefix

    cmake = next(wheel_prefix().glob("lib*/cmake/ns3/ns3Targets.cmake")).read_text(encoding="utf-8")
    built = pch.pch_path(wheel_prefix(), MODULES, build_definitions(cmake))
    assert built.is_file()  # what this session's load of ns-3 used (and built if missing)
    assert "CLING_STANDARD_PCH" not in os.environ
    with_pch, variable, err = run_ns3(dict(os.environ))
    assert "building" not in err
    assert variable is None  # put back: processes started after the load do not inherit it
    parsed, _, _ = run_ns3({**os.environ, pch.ENV_DISABLE: "0"})
    assert with_pch == parsed and with_pch["flows"][0]["goodput_bps"] > 0
