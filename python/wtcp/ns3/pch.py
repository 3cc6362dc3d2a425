"""A precompiled header of the ns-3 modules the harness uses, built once and reused.

Parsing the nine modules' umbrella headers is most of what loading ns-3 costs (about 8
of the 11 s of CPU of `wtcp.ns3.run.load` on this project's machine, the 802.11 module's
alone 5 s). cppyy starts its interpreter from a precompiled header (PCH) of the standard
library, named by the environment variable CLING_STANDARD_PCH when it is imported. This
module builds that PCH with the nine modules' headers and the harness (`harness.cc`,
`wifi.cc`) added, compiled with the symbols their libraries were built with. It is built
the way cppyy builds its own (`cppyy_backend/etc/dictpch/makepch.py` of cppyy-backend
1.15): cppyy's `rootcling`, its header list and flags, `EXTRA_CLING_ARGS` as cppyy's
loader sets it before it builds (`loader.set_cling_compile_options`: the user's, else
"-O2 -march=native", which the PCH fixes as predefined macros such as __OPTIMIZE__) and
makepch's STDCXX rule. With it the headers and the harness are read instead of parsed,
and a load takes about 1.3 s of CPU instead of 9-12 (the harness's functions are
compiled when first called). The ns-3 metrics of five built-in scenarios were the same
byte for byte with and without it.

The PCH (about 130 MB) is built on the first load that finds none (15-30 s, said on
stderr), under a lock so that concurrent processes build it once (a process that waits
says so; after `LOCK_WAIT_S` it loads without), and kept in `cache_dir()` under a name
hashed from what it is made of (`pch_name`, the harness's text included: an edited
harness is a new PCH; in the environment's own folder a new PCH replaces all others). cppyy's
loader rebuilds a PCH it thinks out of date (older than its include folder) in place,
with its standard headers only; the import sets CLING_REBUILD_PCH=0 so that it never
does so to this one. A build that fails is not tried again for these inputs (a `.failed`
file beside it says why; delete it to retry), and ns-3 then loads by parsing, as with
`WTCP_NS3_PCH=0` or in a process that imported cppyy before ns-3 was loaded (the
variables are read when cppyy starts).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # no flock (Windows): concurrent first loads may each build it
    fcntl = None  # type: ignore[assignment]

ENV_DISABLE = "WTCP_NS3_PCH"  # "0": never use or build the PCH
ENV_CACHE = "WTCP_CACHE_DIR"  # where the PCH is kept (default: see `cache_dir`)
RECIPE = "3"  # the build's own version: a change of `build` changes every name
BUILD_TIMEOUT_S = 600
LOCK_WAIT_S = 900  # at most one build's time, and a margin
TMP_PREFIX = "wtcp-ns3-pch-"
# The C and C++ library headers the standard part of the PCH is made from (their folders'
# listings and times change when a package adds or replaces one).
SYSTEM_HEADERS = (Path("/usr/include"), Path("/usr/include/c++"), Path("/usr/include/x86_64-linux-gnu"), Path("/usr/include/aarch64-linux-gnu"))


def cache_dir() -> Path:
    """`$WTCP_CACHE_DIR`; else, in a virtual environment, its `share/wtcp` (the PCH goes
    with the ns3 wheel it was made from, and away with the environment); else
    `$XDG_CACHE_HOME/wtcp` (default `~/.cache/wtcp`)."""
    if os.environ.get(ENV_CACHE):
        return Path(os.environ[ENV_CACHE])
    if sys.prefix != sys.base_prefix:
        return Path(sys.prefix) / "share" / "wtcp"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "wtcp"


def own_folder() -> bool:
    """Whether `cache_dir()` is this virtual environment's own (the default there): then
    a new PCH replaces the ones of earlier inputs (an edited harness, another ns3)."""
    return not os.environ.get(ENV_CACHE) and sys.prefix != sys.base_prefix


def _remove_others(target: Path) -> None:
    for other in target.parent.glob("ns3-*.pch*"):
        if other != target and other.name.endswith((".pch", ".pch.failed")):
            other.unlink(missing_ok=True)


@contextmanager
def environment(values: Mapping[str, str], restore: Sequence[str] = ()) -> Iterator[None]:
    """Set the environment variables `values` while the block runs, then put them (and
    the variables `restore`, which the block may set) back as they were: cppyy reads its
    variables when it starts, and processes started later must not inherit them."""
    names = [*values, *restore]
    before = {name: os.environ.get(name) for name in names}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _backend() -> Path:
    import cppyy_backend  # imports no interpreter: only cppyy itself starts one

    return Path(cppyy_backend.__file__).parent


def cling_args() -> str:
    """EXTRA_CLING_ARGS as cppyy's loader makes it when cppyy starts (this process's
    environment is left as it was)."""
    from cppyy_backend import loader

    with environment({}, restore=("EXTRA_CLING_ARGS",)):
        loader.set_cling_compile_options()
        return os.environ.get("EXTRA_CLING_ARGS", "")


def _installation(name: str) -> str:
    """What identifies the installed distribution `name`: its version and its files with
    their hashes (pip's RECORD, less the files that say only how it was installed)."""
    from importlib import metadata

    dist = metadata.distribution(name)
    record = [line for line in (dist.read_text("RECORD") or "").splitlines() if not line.split(",")[0].endswith(("INSTALLER", "REQUESTED", "direct_url.json"))]
    return f"{name} {dist.version}\n" + "\n".join(record)


def _system_headers() -> str:
    parts = []
    for folder in SYSTEM_HEADERS:
        if folder.is_dir():
            parts.append(f"{folder} {folder.stat().st_mtime_ns} {sorted(os.listdir(folder))}")
    return "\n".join(parts)


def _cppflags(backend: Path, extra_cling_args: str) -> list[str]:
    """cppyy's flags for its PCH, read by makepch.py's own `getCppFlags` (allCppflags.txt
    without -fno-plt, with STDCXX or a standard in EXTRA_CLING_ARGS replacing the file's),
    less the lone -isystem that makepch then drops."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("cppyy_makepch", backend / "etc" / "dictpch" / "makepch.py")
    makepch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(makepch)  # its main runs only as a script
    with environment({"EXTRA_CLING_ARGS": extra_cling_args}):  # what it reads, as cppyy sets it
        flags = makepch.getCppFlags(str(backend / "etc" / "dictpch" / "allCppflags.txt"))
    return [f for f in flags if f and f != "-isystem"]


def pch_name(prefix: Path, modules: Sequence[str], symbols: Mapping[str, str], sources: Mapping[str, bytes] | None = None) -> str:
    """The PCH's file name: a hash of everything it is made from (`sources`: the harness's
    files, name -> contents)."""
    backend = _backend()
    extra = cling_args()
    h = hashlib.sha256()
    parts = (
        RECIPE, str(prefix), str(backend), extra, os.environ.get("STDCXX", ""), " ".join(_cppflags(backend, extra)), " ".join(modules),
        *(f"{name}={value}" for name, value in sorted(symbols.items())),
        _installation("ns3"), _installation("cppyy-cling"), _installation("cppyy-backend"), _system_headers(),
        *(f"{name} {hashlib.sha256(text).hexdigest()}" for name, text in (sources or {}).items()),
    )  # fmt: skip
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return f"ns3-{h.hexdigest()[:20]}.pch"


def pch_path(prefix: Path, modules: Sequence[str], symbols: Mapping[str, str], sources: Mapping[str, bytes] | None = None) -> Path:
    """Where the PCH of these inputs is kept."""
    return cache_dir() / pch_name(prefix, modules, symbols, sources)


def _die_with_parent() -> Callable[[], object] | None:
    """What the child runs before exec to be SIGKILLed when its parent dies (Linux prctl
    PR_SET_PDEATHSIG = 1), so that a killed load leaves no rootcling behind; None where
    there is no prctl. Looked up here, in the parent: the child imports nothing."""
    try:
        import ctypes

        prctl = ctypes.CDLL(None).prctl
    except (OSError, AttributeError):
        return None
    return lambda: prctl(1, signal.SIGKILL)


def build(target: Path, prefix: Path, modules: Sequence[str], symbols: Mapping[str, str], sources: Mapping[str, bytes] | None = None) -> None:
    """Write the PCH to `target`: rootcling writes into a folder beside it, which is then
    renamed into place (never a partial file under its name) and removed. `sources` are
    compiled as given (copied into that folder: the text the name was hashed from, even if
    the files change meanwhile). `OSError` or a `subprocess` error if it fails."""
    backend = _backend()
    extra = cling_args()
    dictpch = Path("etc") / "dictpch"
    with tempfile.TemporaryDirectory(prefix=TMP_PREFIX, dir=target.parent) as tmp:
        copies = []
        for name, text in (sources or {}).items():
            (Path(tmp) / name).write_bytes(text)
            copies.append(str(Path(tmp) / name))
        command = [
            str(backend / "bin" / "rootcling"), "-rootbuild", "-generate-pch", "-f", str(Path(tmp) / "allDict.cxx"), "-noDictSelection",
            "-D__CLING__", "-DROOT_PCH",
            *(f"-I{backend / d}" for d in ("include", "etc", dictpch, Path("etc") / "cling")),
            f"-I{prefix / 'include'}",
            *(f"-D{name}={value}" for name, value in symbols.items()),
            "-cxxflags", " ".join(_cppflags(backend, extra)),
            str(dictpch / "allHeaders.h"),
            *(f"ns3/{m}-module.h" for m in modules),
            *copies,
            str(dictpch / "allLinkDefs.h"),
        ]  # fmt: skip
        env = {**os.environ, "EXTRA_CLING_ARGS": extra, "LD_LIBRARY_PATH": f"{backend / 'lib'}:{os.environ.get('LD_LIBRARY_PATH', '')}"}
        done = subprocess.run(command, cwd=backend, env=env, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, preexec_fn=_die_with_parent())
        if done.returncode != 0:
            raise OSError(f"rootcling exited with {done.returncode}: {first_error(done.stderr)}")
        os.replace(Path(tmp) / "allDict_rdict.pch", target)


def first_error(stderr: str, limit: int = 1500) -> str:
    """rootcling's output from its first error on (at most `limit` characters)."""
    at = stderr.find("error:")
    start = stderr.rfind("\n", 0, at) + 1 if at >= 0 else max(0, len(stderr) - limit)
    return stderr[start : start + limit].strip()


def _lock(file, waiting: str) -> bool:
    """Take the build lock (`flock` on `file`), saying `waiting` on stderr once if another
    process holds it; False if it is still held after `LOCK_WAIT_S`."""
    if fcntl is None:
        return True
    said = False
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if not said:
                print(waiting, file=sys.stderr)
                said = True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.2)


def ensure(prefix: Path, modules: Sequence[str], symbols: Mapping[str, str], sources: Sequence[Path] = ()) -> Path | None:
    """The PCH to start cppyy with, built if there is none yet; None when it is not to be
    used (disabled, cppyy already started) or cannot be had (the reason on stderr).
    `sources` (the harness) are read once, here: the name and the build use that text."""
    if os.environ.get(ENV_DISABLE) == "0" or "cppyy" in sys.modules:
        return None
    try:
        texts = {path.name: path.read_bytes() for path in sources}
        target = pch_path(prefix, modules, symbols, texts)
        failed = target.with_name(target.name + ".failed")
        if target.is_file() and not target.is_symlink():
            return target
        if failed.is_file():
            print(f"wtcp: ns-3 loads without precompiled headers (slower): building them failed before ({failed.read_text(encoding='utf-8').strip()}); "
                  f"a change of the harness or of ns-3 or cppyy tries again, as does deleting {failed}", file=sys.stderr)
            return None
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target.parent / "ns3-pch.lock", "a") as lock:
            if not _lock(lock, "wtcp: waiting for another process to build ns-3's precompiled headers"):
                raise OSError(f"another process has held {lock.name} for {LOCK_WAIT_S} s")
            if target.is_file() and not target.is_symlink():
                return target  # built by the process we waited for
            if failed.is_file():
                return None
            for stale in target.parent.glob(TMP_PREFIX + "*"):  # left by a killed build
                shutil.rmtree(stale, ignore_errors=True)
            print(f"wtcp: building ns-3's precompiled headers once, into {target} (15-30 s)", file=sys.stderr)
            try:
                build(target, prefix, modules, symbols, texts)
            except (OSError, subprocess.SubprocessError) as e:
                failed.write_text(f"{e}\n", encoding="utf-8")
                raise
            if own_folder():
                _remove_others(target)
        return target
    except (OSError, subprocess.SubprocessError, ModuleNotFoundError) as e:
        print(f"wtcp: ns-3 loads without precompiled headers (slower): {e}", file=sys.stderr)
        return None
