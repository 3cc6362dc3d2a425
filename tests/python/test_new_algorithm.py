"""`wtcp new-algorithm NAME`: the module it writes compiles, passes its own tests and the
contract suite every registered algorithm must pass, and needs no other edit; bad names
and checkouts are refused with exit 2 and nothing written."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli
from wtcp import _core
from wtcp.new_algorithm import NewAlgorithmError, camel, create

ROOT = Path(__file__).resolve().parents[2]
REGISTERED = [a["name"] for a in _core.algorithms()]


def checkout(tmp_path: Path) -> Path:
    """A copy of the wtcp-cc crate as a one-member workspace (what the command edits)."""
    root = tmp_path / "wtcp"
    shutil.copytree(ROOT / "crates" / "wtcp-cc", root / "crates" / "wtcp-cc", ignore=shutil.ignore_patterns("target"))
    (root / "crates" / "wtcp-engine" / "tests").mkdir(parents=True)
    manifest = (ROOT / "Cargo.toml").read_text(encoding="utf-8")
    members = manifest.split("members = [", 1)[1].split("]", 1)[0]
    (root / "Cargo.toml").write_text(manifest.replace(members, '"crates/wtcp-cc"', 1), encoding="utf-8")
    shutil.copy(ROOT / "Cargo.lock", root / "Cargo.lock")
    return root


def test_it_writes_the_module_its_registry_line_and_an_engine_test(tmp_path):
    root = checkout(tmp_path)
    w = create("my_aimd", root, REGISTERED)
    assert w.module.read_text().count('name: "my_aimd"') == 1
    assert "pub struct MyAimdParams" in w.module.read_text()
    assert "Deviations and ambiguities resolved" in w.module.read_text()
    assert "pub mod my_aimd;\npub mod registry;" in w.lib.read_text()
    registry = w.registry.read_text()
    assert "MyAimd(crate::my_aimd::MyAimdParams) => crate::my_aimd::MY_AIMD_INFO, crate::my_aimd::build, no_receiver;\n}" in registry
    assert '("flows.0.cc", "my_aimd")' in w.test.read_text()
    assert camel("a_b_c") == "ABC" and camel("aimd") == "Aimd"


@pytest.mark.parametrize(
    "name, says",
    [("Bad-Name", "not allowed"), ("9lives", "not allowed"), ("", "not allowed"), ("x" * 40, "not allowed"), ("fn", "keyword"), ("registry", "keyword or a wtcp-cc module"), ("cubic", "already a registered algorithm"), ("a\x1b[31m", "not allowed")],
)
def test_bad_names_exit_2_and_write_nothing(tmp_path, name, says):
    root = checkout(tmp_path)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    r = run_cli("new-algorithm", name, "--root", str(root))
    assert r.returncode == 2, r.stderr
    assert says in r.stderr and "allowed" in r.stderr and "Traceback" not in r.stderr
    assert "\x1b" not in r.stderr + r.stdout
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("name", ["new_reno", "westwood_plus", "nj_plus"])
def test_a_name_whose_registry_variant_is_taken_is_refused(tmp_path, name):
    """`new_reno` would declare `NewReno`, newreno's variant: the build would fail."""
    root = checkout(tmp_path)
    with pytest.raises(NewAlgorithmError, match="variant .* is taken"):
        create(name, root, REGISTERED)
    assert not (root / "crates" / "wtcp-cc" / "src" / f"{name}.rs").exists()


def test_an_algorithm_of_the_checkout_the_installed_core_lacks_is_taken_too(tmp_path):
    root = checkout(tmp_path)
    create("mine", root, REGISTERED)
    (root / "crates" / "wtcp-cc" / "src" / "mine.rs").unlink()
    (root / "crates" / "wtcp-engine" / "tests" / "cc_mine.rs").unlink()
    with pytest.raises(NewAlgorithmError, match="already has a module|is taken"):
        create("mine", root, REGISTERED)


def test_an_existing_module_is_not_overwritten(tmp_path):
    root = checkout(tmp_path)
    target = root / "crates" / "wtcp-cc" / "src" / "mine.rs"
    target.write_text("// my own work\n")
    with pytest.raises(NewAlgorithmError, match="exists"):
        create("mine", root, REGISTERED)
    assert target.read_text() == "// my own work\n"
    assert "mine" not in (root / "crates" / "wtcp-cc" / "src" / "registry.rs").read_text()


def test_a_symlinked_registry_is_refused(tmp_path):
    root = checkout(tmp_path)
    registry = root / "crates" / "wtcp-cc" / "src" / "registry.rs"
    outside = tmp_path / "elsewhere.rs"
    outside.write_text(registry.read_text())
    registry.unlink()
    registry.symlink_to(outside)
    with pytest.raises(NewAlgorithmError, match="not a regular file"):
        create("mine", root, REGISTERED)
    assert "mine" not in outside.read_text()
    assert not (root / "crates" / "wtcp-cc" / "src" / "mine.rs").exists()


def test_outside_a_checkout_exits_2(tmp_path):
    r = run_cli("new-algorithm", "mine", "--root", str(tmp_path))
    assert r.returncode == 2
    assert "not inside a wtcp source checkout" in r.stderr


@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo (the Rust toolchain)")
def test_the_new_module_compiles_and_passes_its_tests_and_the_contract_suite(tmp_path):
    """The contract suite and the parameter-range checks iterate over the registry, so
    they run on the new algorithm with no edit; so do its own unit tests."""
    root = checkout(tmp_path)
    create("aimd_try", root, REGISTERED)
    # The repository's target directory and the profile `make test` builds in: only the
    # copied crate compiles, its dependencies are built already (not incrementally: the
    # copy's path is new each time, and its incremental state would pile up).
    env = {**os.environ, "CARGO_TARGET_DIR": str(ROOT / "target"), "CARGO_INCREMENTAL": "0"}
    cargo_test = ["cargo", "test", "-q", "--offline", "--profile", "fast", "-p", "wtcp-cc"]
    r = subprocess.run(cargo_test, cwd=root, env=env, capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    listed = subprocess.run([*cargo_test, "--lib", "--", "--list"], cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert "aimd_try::tests::a_fast_retransmit_keeps_b_of_the_flight_size: test" in listed.stdout
