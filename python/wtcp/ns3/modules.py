"""Load the ns-3 modules the harness uses, and only those, from the `ns3` wheel.

The wheel's own `from ns import ns` has cppyy parse the umbrella header of every module it
ships (42: LTE, WiMAX, mesh, ...) and load every library. The harness (`harness.cc`,
`wifi.cc`) includes nine modules; loading only those, the way the wheel does, and then
compiling the harness took 8 s per process against 12 s with the wheel's import (this
project's machine, idle). Every ns-3 run, the bench and the cross-checks pay this once
per process; starting cppyy from a precompiled header of the nine modules and the
harness (`wtcp.ns3.pch`) saves nearly all of it: about 1.3 s.

What is kept from the wheel's loader (`ns3/ns/__init__.py` of ns3 3.44.post0): `Ptr`
registered as a smart pointer with cppyy, the wheel's `lib64` on the library path and its
`include` on the include path, and the libraries loaded by cppyy (the dynamic loader
brings the modules they link, such as spectrum, energy and stats, with them).

Deviation: the preprocessor symbols are the ones the libraries were built with, read from
the wheel's CMake export (`lib64/cmake/ns3/ns3Targets.cmake`, the targets'
INTERFACE_COMPILE_DEFINITIONS: NS3_LOG_ENABLE, NS3_ASSERT_ENABLE, HAVE_GSL, ...), what a
C++ program built against the wheel gets. The wheel's loader guesses them from the
libraries each one links and, since those are bundled inside the wheel, sets none that
matter here; then cppyy sees a class smaller than the library makes it (`UdpClient`
without the `m_peerString` that NS3_LOG_ENABLE adds: 296 against 328 bytes).
Left out, since wtcp creates no ns-3 object from Python that needs them: the wheel's
Python comparison operators for `Time`, its `Node.__del__` that keeps Python-held nodes
alive, and its `LookupByNameFailSafe` tuple wrapper.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

from wtcp.ns3 import pch

VERSION = "3.44"
PCH_VARIABLE = "CLING_STANDARD_PCH"  # cppyy's: the PCH its interpreter starts from
# The harness's sources, compiled in this order: 802.11 channels, then the rest.
HARNESS = (Path(__file__).with_name("wifi.cc"), Path(__file__).with_name("harness.cc"))


def harness_modules(sources: tuple[Path, ...] = HARNESS) -> tuple[str, ...]:
    """The modules whose umbrella headers the harness #includes ("ns3/X-module.h"), in
    order of first mention (their libraries load the modules they link)."""
    found = re.findall(r'#include\s+"ns3/([\w-]+)-module\.h"', "".join(p.read_text(encoding="utf-8") for p in sources))
    return tuple(dict.fromkeys(found))


MODULES = harness_modules()


def wheel_prefix() -> Path:
    """The installed `ns3` package's folder (with `include/` and `lib64/`): the entry of
    the namespace package that holds the wheel's libraries."""
    spec = importlib.util.find_spec("ns3")
    for entry in (spec.submodule_search_locations or []) if spec is not None else []:
        if any((Path(entry) / d / f"libns{VERSION}-core.so").is_file() for d in ("lib64", "lib")):
            return Path(entry)
    raise ModuleNotFoundError("ns3 (the ns-3 3.44 wheel's libraries)")


def build_definitions(cmake_targets: str, modules: tuple[str, ...] = MODULES) -> dict[str, str]:
    """The preprocessor symbols the modules' libraries were built with (name -> value, "1"
    where CMake gives none), from the text of the wheel's `ns3Targets.cmake`."""
    found: dict[str, str] = {}
    for module in modules:
        block = re.search(rf"set_target_properties\(ns3::{re.escape(module)} PROPERTIES\n(.*?)\n\)", cmake_targets, re.S)
        if block is None:
            raise ModuleNotFoundError(f"the ns3 wheel's CMake export has no target ns3::{module}")
        line = re.search(r'INTERFACE_COMPILE_DEFINITIONS "((?:[^"\\]|\\.)*)"', block.group(1))
        for item in line.group(1).replace('\\"', '"').split(";") if line else []:
            name, _, value = item.partition("=")
            if name:
                found.setdefault(name, value or "1")
    return found


@functools.cache
def _wheel() -> tuple[Path, Path, list[Path], dict[str, str]]:
    """The wheel's folder, library folder, the modules' libraries and build symbols (read
    once per process: `standard_pch` and `load_ns3` both need them)."""
    prefix = wheel_prefix()
    lib_dir = prefix / "lib64" if (prefix / "lib64").is_dir() else prefix / "lib"
    libraries = [lib_dir / f"libns{VERSION}-{m}.so" for m in MODULES]
    missing = [str(p) for p in libraries if not p.is_file()]
    if missing:
        raise ModuleNotFoundError(f"the ns3 wheel lacks {', '.join(missing)}")
    cmake = (lib_dir / "cmake" / "ns3" / "ns3Targets.cmake").read_text(encoding="utf-8")
    return prefix, lib_dir, libraries, build_definitions(cmake)


def standard_pch() -> Path | None:
    """The precompiled header of the modules' headers and the harness to start cppyy
    from (built on first use; `wtcp.ns3.pch`), or None."""
    prefix, _, _, symbols = _wheel()
    return pch.ensure(prefix, MODULES, symbols, HARNESS)


def import_cppyy(standard_pch: Path | None) -> None:
    """Start cppyy's interpreter from `standard_pch` (`wtcp.ns3.pch`), or from its own
    PCH if None. The variables are read when cppyy is imported: CLING_STANDARD_PCH names
    the PCH, and CLING_REBUILD_PCH=0 keeps cppyy from rebuilding it in place with its
    standard headers only (which it does to a PCH older than its include folder). Both
    are put back after, so that processes this one starts do not inherit them."""
    if standard_pch is None or "cppyy" in sys.modules:
        import cppyy  # noqa: F401

        return
    with pch.environment({PCH_VARIABLE: str(standard_pch), "CLING_REBUILD_PCH": "0"}):
        import cppyy  # noqa: F401, F811


def load_ns3(standard_pch: Path | None = None) -> Any:
    """`cppyy.gbl.ns3` with the harness's nine modules parsed (with the libraries' build
    definitions) and loaded; cppyy started from `standard_pch` if given and cppyy is not
    imported yet (`standard_pch()`: the modules' headers are then read from it)."""
    prefix, lib_dir, libraries, symbols = _wheel()
    import_cppyy(standard_pch)
    import cppyy
    import libcppyy

    if standard_pch is not None and not hasattr(cppyy.gbl, "wtcpns3"):
        # Not the PCH that was built (cppyy's loader made one of its standard headers in
        # its place, as when the file went between `standard_pch()` and the import): the
        # headers are parsed now, and the next load builds it again.
        print(f"wtcp: {standard_pch} did not hold ns-3's headers; removed, to be built again", file=sys.stderr)
        standard_pch.unlink(missing_ok=True)

    libcppyy.AddSmartPtrType("Ptr")
    cppyy.add_library_path(str(lib_dir))
    cppyy.add_include_path(str(prefix / "include"))
    cppyy.cppexec("".join(f"#define {name} {value}\n" for name, value in symbols.items()))
    for m in MODULES:
        cppyy.include(f"ns3/{m}-module.h")
    for lib in libraries:
        cppyy.load_library(str(lib))
    return cppyy.gbl.ns3
