"""A precompiled header of the ns-3 modules the harness uses, built once and reused.

Parsing the nine modules' umbrella headers is most of what loading ns-3 costs (about 8 of
the 11 s of CPU of `wtcp.ns3.run.load` on this project's machine, the 802.11 module's
alone 5 s). cppyy starts its interpreter from a precompiled header (PCH) of the standard
library, named by the environment variable CLING_STANDARD_PCH when it is imported. This
module builds that PCH with the nine modules' headers added, compiled with the symbols
their libraries were built with, using the `rootcling` that cppyy ships and the same
inputs and flags as cppyy's own PCH (`cppyy_backend/etc/dictpch/makepch.py`): with it,
the headers are read from the PCH instead of parsed, and a load takes about 5 s, most
of it the harness's compilation. The ns-3 metrics of five built-in scenarios were the
same byte for byte with and without it.

The PCH (about 110 MB) is built on the first load that finds none (about 30 s, said on
stderr), under a lock so that concurrent processes build it once, and kept in
`cache_dir()` under a name that changes with everything it was made from: the ns3 and
cppyy-backend installations, the modules, the symbols and cppyy's flags. A build that
fails, or `WTCP_NS3_PCH=0`, leaves ns-3 to load by parsing, as before; so does a process
that imported cppyy before ns-3 was loaded (the variable is read when cppyy starts).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

try:
    import fcntl
except ImportError:  # no flock (Windows): concurrent first loads may each build it
    fcntl = None  # type: ignore[assignment]

ENV_DISABLE = "WTCP_NS3_PCH"  # "0": never use or build the PCH
ENV_CACHE = "WTCP_CACHE_DIR"  # where the PCH is kept (default: see `cache_dir`)
BUILD_TIMEOUT_S = 600


def cache_dir() -> Path:
    """`$WTCP_CACHE_DIR`; else, in a virtual environment, its `share/wtcp` (the PCH goes
    with the ns3 wheel it was made from, and away with the environment); else
    `$XDG_CACHE_HOME/wtcp` (default `~/.cache/wtcp`)."""
    if os.environ.get(ENV_CACHE):
        return Path(os.environ[ENV_CACHE])
    if sys.prefix != sys.base_prefix:
        return Path(sys.prefix) / "share" / "wtcp"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "wtcp"


def _backend() -> Path:
    import cppyy_backend  # imports no interpreter: only cppyy itself starts one

    return Path(cppyy_backend.__file__).parent


def _installation(name: str) -> str:
    """What identifies the installed distribution `name`: its version and its file list
    with the files' hashes (pip's RECORD)."""
    from importlib import metadata

    dist = metadata.distribution(name)
    return f"{name} {dist.version}\n{dist.read_text('RECORD') or ''}"


def _cppflags(backend: Path) -> list[str]:
    """cppyy's flags for its PCH, as its makepch.py reads them (no -fno-plt, which Cling
    refuses, and no lone -isystem)."""
    lines = (backend / "etc" / "dictpch" / "allCppflags.txt").read_text(encoding="utf-8").splitlines()
    return [f for f in (line.strip() for line in lines) if f and f not in ("-fno-plt", "-isystem")]


def pch_name(prefix: Path, modules: Sequence[str], symbols: Mapping[str, str]) -> str:
    """The PCH's file name: a hash of everything it is made from."""
    backend = _backend()
    h = hashlib.sha256()
    for part in (str(prefix), _installation("ns3"), _installation("cppyy-cling"), _installation("cppyy-backend"), str(backend), " ".join(_cppflags(backend)), " ".join(modules)):
        h.update(part.encode())
        h.update(b"\0")
    for name, value in sorted(symbols.items()):
        h.update(f"{name}={value}\0".encode())
    return f"ns3-{h.hexdigest()[:20]}.pch"


def pch_path(prefix: Path, modules: Sequence[str], symbols: Mapping[str, str]) -> Path:
    """Where the PCH of these inputs is kept."""
    return cache_dir() / pch_name(prefix, modules, symbols)


def build(target: Path, prefix: Path, modules: Sequence[str], symbols: Mapping[str, str]) -> None:
    """Write the PCH to `target` (through a temporary file in its folder, then renamed:
    never a partial file under its name). `OSError` or `subprocess` errors if it fails."""
    backend = _backend()
    dictpch = Path("etc") / "dictpch"
    with tempfile.TemporaryDirectory(prefix="wtcp-ns3-pch-") as tmp:
        command = [
            str(backend / "bin" / "rootcling"), "-rootbuild", "-generate-pch", "-f", str(Path(tmp) / "allDict.cxx"), "-noDictSelection",
            "-D__CLING__", "-DROOT_PCH",
            *(f"-I{backend / d}" for d in ("include", "etc", dictpch, Path("etc") / "cling")),
            f"-I{prefix / 'include'}",
            *(f"-D{name}={value}" for name, value in symbols.items()),
            "-cxxflags", " ".join(_cppflags(backend)),
            str(dictpch / "allHeaders.h"),
            *(f"ns3/{m}-module.h" for m in modules),
            str(dictpch / "allLinkDefs.h"),
        ]  # fmt: skip
        env = {**os.environ, "LD_LIBRARY_PATH": f"{backend / 'lib'}:{os.environ.get('LD_LIBRARY_PATH', '')}"}
        done = subprocess.run(command, cwd=backend, env=env, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
        if done.returncode != 0:
            raise OSError(f"rootcling exited with {done.returncode}: {done.stderr.strip()[-500:]}")
        fd, part = tempfile.mkstemp(prefix=target.name + ".", suffix=".part", dir=target.parent)
        os.close(fd)
        try:
            shutil.move(str(Path(tmp) / "allDict_rdict.pch"), part)
            os.replace(part, target)
        except BaseException:
            Path(part).unlink(missing_ok=True)
            raise


def ensure(prefix: Path, modules: Sequence[str], symbols: Mapping[str, str]) -> Path | None:
    """The PCH to start cppyy with, built if there is none yet; None when it is not to be
    used (disabled, cppyy already started) or cannot be built (the reason on stderr)."""
    if os.environ.get(ENV_DISABLE) == "0" or "cppyy" in sys.modules:
        return None
    try:
        target = pch_path(prefix, modules, symbols)
        folder = target.parent
        folder.mkdir(parents=True, exist_ok=True)
        if target.is_file():
            return target
        with open(folder / "ns3-pch.lock", "a") as lock:
            if fcntl is not None:
                fcntl.flock(lock, fcntl.LOCK_EX)  # another process's build: wait for it
            if not target.is_file():
                print(f"wtcp: building ns-3's precompiled headers once, into {target} (about 30 s)", file=sys.stderr)
                build(target, prefix, modules, symbols)
        return target
    except (OSError, subprocess.SubprocessError, ModuleNotFoundError) as e:
        print(f"wtcp: ns-3 loads without precompiled headers (slower): {e}", file=sys.stderr)
        return None

