"""Load the ns-3 modules the harness uses, and only those, from the `ns3` wheel.

The wheel's own `from ns import ns` has cppyy parse the umbrella header of every module it
ships (LTE, WiMAX, mesh, ...) and load every library: 12.4 s per process on the project's
machine. The harness (`harness.cc`, `wifi.cc`) includes nine modules; loading those the
same way takes 7.3 s. Every ns-3 run, the bench and the cross-checks pay this once per
process, so this is what the tests' and sweeps' ns-3 processes save.

What is kept from the wheel's loader (`ns3/ns/__init__.py` of ns3 3.44.post0):
- `Ptr` registered as a smart pointer with cppyy;
- the wheel's `lib64` on the library path and its `include` on the include path;
- its rule for preprocessor symbols: a library linked against GSL, SQLite or libxml2
  brings `HAVE_GSL`, `HAVE_SQLITE3` or `HAVE_LIBXML2` before any header is parsed (of the
  nine modules' headers only `dsss-error-rate-model.h` tests one, `HAVE_GSL`, and the
  class's members differ with it, so the symbol must match the library's build);
- the libraries loaded in dependency order (the dynamic loader brings the modules they
  link, such as spectrum and energy, with them).
Left out, since wtcp creates no ns-3 object from Python that needs them: the wheel's
Python comparison operators for `Time`, its `Node.__del__` that keeps Python-held nodes
alive, and its `LookupByNameFailSafe` tuple wrapper.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

# The harness's #includes, in dependency order (each after every module it links).
MODULES = ("core", "network", "propagation", "mobility", "internet", "traffic-control", "point-to-point", "applications", "wifi")
VERSION = "3.44"
# The wheel's LIBRARY_AND_DEFINES, for the libraries it bundles.
LINKED_DEFINES = {b"libgsl": "HAVE_GSL", b"libsqlite3": "HAVE_SQLITE3", b"libxml2": "HAVE_LIBXML2"}


def wheel_prefix() -> Path:
    """The installed `ns3` package's folder (with `include/` and `lib64/`)."""
    spec = importlib.util.find_spec("ns3")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("ns3")
    return Path(next(iter(spec.submodule_search_locations)))


def defines(libraries: list[Path]) -> list[str]:
    """The preprocessor symbols the wheel's loader sets for these libraries: one per
    bundled library any of them names among its dependencies (the wheel reads the names
    from the file's bytes, as this does)."""
    found: set[str] = set()
    for lib in libraries:
        needed = set(re.findall(rb"\x00(lib[\w.+-]*?\.so)", lib.read_bytes()))
        for name in needed:
            found.update(d for key, d in LINKED_DEFINES.items() if name.startswith(key))
    return sorted(found)


def load_ns3() -> Any:
    """`cppyy.gbl.ns3` with the harness's nine modules parsed and loaded."""
    import cppyy
    import libcppyy

    prefix = wheel_prefix()
    lib_dir = prefix / "lib64" if (prefix / "lib64").is_dir() else prefix / "lib"
    libraries = [lib_dir / f"libns{VERSION}-{m}.so" for m in MODULES]
    missing = [str(p) for p in libraries if not p.is_file()]
    if missing:
        raise ModuleNotFoundError(f"the ns3 wheel lacks {', '.join(missing)}")
    libcppyy.AddSmartPtrType("Ptr")
    cppyy.add_library_path(str(lib_dir))
    cppyy.add_include_path(str(prefix / "include"))
    symbols = defines(libraries)
    if symbols:
        cppyy.cppexec("\n".join(f"#define {s}" for s in symbols) + "\n")
    for m in MODULES:
        cppyy.include(f"ns3/{m}-module.h")
    for lib in libraries:
        cppyy.load_library(str(lib))
    return cppyy.gbl.ns3
