"""Congestion control written in Python (docs/new-algorithm.md, "In Python").

    import wtcp

    @wtcp.register
    class Aimd(wtcp.Algorithm):
        name = "aimd"
        params = {"beta": 0.5}          # defaults; a scenario's cc_params override them

        def on_ack(self, ack, w, cx):
            if ack.dup or ack.in_recovery or ack.acked_bytes == 0:
                return
            w.cwnd += cx.mss if w.cwnd < w.ssthresh else cx.mss * cx.mss / w.cwnd

        def on_loss(self, loss, w, cx):
            w.ssthresh = max(cx.flight_size * self.beta, 2 * cx.mss)
            w.cwnd = cx.mss if loss.kind == "timeout" else w.ssthresh

    wtcp.load("simple2.toml").set("flows.0.cc", "aimd").run()

The hooks are those of the Rust trait (`crates/wtcp-cc/src/api.rs`), called by the same
sender at the same points with the same fields and units: `w.cwnd`, `w.ssthresh` in bytes
(floats), `w.pacing_rate` in bytes/s or None, times (`ack.rtt`, `cx.now`, `cx.srtt`) in
integer nanoseconds. A hook a class does not override runs the trait's default without a
call into Python.

An exception in a hook (or a window the sender cannot take: cwnd not a finite number > 0,
ssthresh NaN or <= 0) ends the run with `AlgorithmError`, which names the algorithm, the
flow, the hook and the simulated time and carries the user's traceback; a sweep stores the
run as failed and goes on.

Registered algorithms are per process. A sweep's worker processes (process pool, Dask)
receive the classes registered when the sweep starts (pickled with cloudpickle, so a class
defined in a script or a notebook works too); a package can also declare its algorithms
as entry points in the group `wtcp.algorithms` (`mycc = "mypkg.cc:MyCC"`), loaded on first
use in every process.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import keyword
import marshal
import math
import re
import threading
import warnings
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, NamedTuple

from wtcp import _core

__all__ = ["Algorithm", "AlgorithmError", "InvalidAlgorithm", "ContractCheck", "ContractViolation", "register", "unregister", "registered", "check_algorithm"]

AlgorithmError = _core.AlgorithmError

# The hooks a class may leave out (the trait's default then runs in Rust).
OPTIONAL_HOOKS = ("init", "on_recovery_exit", "on_recovery_exit_growth", "on_recovery_exit_ack", "on_spurious_timeout", "on_signal", "trace_vars")
RECOVERY_STYLES = ("reno", "newreno", "fast_retransmit_only")
NAME_RE = re.compile(r"[a-z][a-z0-9_]{0,39}")
ENTRY_POINT_GROUP = "wtcp.algorithms"


class InvalidAlgorithm(ValueError):
    """A class cannot be registered: the message says what is wrong and what is allowed."""


class ContractViolation(AssertionError):
    """`check_algorithm` found checks of the contract the algorithm breaks."""


class Algorithm:
    """Base class of a congestion-control algorithm written in Python.

    Class attributes: `name` (required: lowercase letters, digits, `_`), `summary`,
    `reference`, `params` (name -> default; a scenario's `cc_params` may override them,
    and each instance gets them as attributes), `recovery_style` ("newreno", "reno" or
    "fast_retransmit_only", as `RecoveryStyle` in api.rs), `timeout_collapses_window`
    (False if the scheme keeps more than one segment after a timeout; the contract suite
    checks it).

    Hooks (override `on_ack` and `on_loss`; the rest are optional):
    `init(w, cx)`, `on_ack(ack, w, cx)`, `on_loss(loss, w, cx)` -> None or a verdict
    ("congestion", "wireless", "none"), `on_recovery_exit(w, cx)`,
    `on_recovery_exit_growth(ack, w, cx)`, `on_recovery_exit_ack(ack, w, cx)`,
    `on_spurious_timeout(prior, w, cx)`, `on_signal(signal, w, cx)`, `trace_vars()` -> a
    dict of name -> float sampled into the traces' `cc` table.
    """

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    reference: ClassVar[str] = ""
    params: ClassVar[Mapping[str, Any]] = {}
    recovery_style: ClassVar[str] = "newreno"
    timeout_collapses_window: ClassVar[bool] = True

    def __init__(self, **params: Any) -> None:
        for key, value in params.items():
            setattr(self, key, value)

    @classmethod
    def check_params(cls, params: Mapping[str, Any]) -> str | None:
        """Refuse values the types of `params` allow but the algorithm does not: return
        what is wrong and what is allowed, or None. `params` holds every parameter (the
        defaults merged); called before any run, so a scenario error names the field."""
        return None

    def init(self, w: Any, cx: Any) -> None:
        """Once, before the first segment; `w` holds the initial window and ssthresh."""

    def on_ack(self, ack: Any, w: Any, cx: Any) -> None:
        """Every ACK, new or duplicate, after the RTT estimator took its sample."""
        raise NotImplementedError

    def on_loss(self, loss: Any, w: Any, cx: Any) -> str | None:
        """A loss (`loss.kind` "fast_retransmit" or "timeout", `loss.consecutive`): set
        ssthresh and cwnd; return None or a verdict."""
        raise NotImplementedError

    def on_recovery_exit(self, w: Any, cx: Any) -> None:
        """Fast recovery ended. Default: deflate to ssthresh (RFC 5681 §3.2 step 6)."""
        w.cwnd = w.ssthresh

    def on_recovery_exit_growth(self, ack: Any, w: Any, cx: Any) -> None:
        """The ACK that ended recovery, offered for growth with `tcp.recovery_exit_growth`."""

    def on_recovery_exit_ack(self, ack: Any, w: Any, cx: Any) -> None:
        """The ACK that ended recovery, for a model that takes every ACK."""

    def on_spurious_timeout(self, prior: Any, w: Any, cx: Any) -> None:
        """F-RTO found the last timeout spurious. Default: undo to the `prior` window."""
        w.cwnd = prior.cwnd
        w.ssthresh = prior.ssthresh

    def on_signal(self, signal: Any, w: Any, cx: Any) -> None:
        """A congestion mark (`signal.kind` "congestion_mark") or a MAC hint
        ("mac_retry_limit", `signal.seq`)."""

    def trace_vars(self) -> dict[str, float]:
        """The algorithm's own variables for traces."""
        return {}


_registered: dict[str, type[Algorithm]] = {}
_lock = threading.Lock()
_entry_points_loaded = False


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def _kind(default: Any) -> str:
    if isinstance(default, bool):
        return "a boolean"
    if isinstance(default, (int, float)):
        return "a finite number"
    return "a string"


def _fits(default: Any, value: Any) -> bool:
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, (int, float)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return False
        return isinstance(default, float) or isinstance(value, int)
    return isinstance(value, str)


def _checker(cls: type[Algorithm]):
    """`check(params) -> None | (key, message)`: the key below `cc_params` ("" for the
    table) and what is wrong, for the scenario error the core raises."""
    defaults = dict(cls.params)

    def check(params: Mapping[str, Any]) -> tuple[str, str] | None:
        for key, value in params.items():
            if key not in defaults:
                # Worded as the built-ins' (serde's) error, which `wtcp` reads as a path
                # that names nothing and completes with "did you mean".
                if not defaults:
                    return "", f"unknown field `{key}`; the algorithm takes no parameters"
                return "", f"unknown field `{key}`, expected one of {', '.join(f'`{k}`' for k in defaults)}"
            if not _fits(defaults[key], value):
                kind = _kind(defaults[key]) + (" (whole)" if isinstance(defaults[key], int) and not isinstance(defaults[key], bool) else "")
                return key, f"is {_describe(value)}; allowed: {kind}, default {_describe(defaults[key])}"
        refused = cls.check_params(_merged(defaults, params))
        if refused is None:
            return None
        if not isinstance(refused, str) or not refused.strip():
            return "", f"{cls.__qualname__}.check_params returned {refused!r}; allowed: None or a message saying what is wrong and what is allowed"
        return "", refused

    return check


def _merged(defaults: Mapping[str, Any], params: Mapping[str, Any]) -> dict[str, Any]:
    """The defaults with `params` over them; a float parameter given as an integer is still a
    float (the arithmetic of a run must not depend on how the number was written)."""
    merged = {**defaults, **params}
    for key, default in defaults.items():
        if isinstance(default, float) and not isinstance(merged[key], bool):
            merged[key] = float(merged[key])
    return merged


def _maker(cls: type[Algorithm]):
    defaults = dict(cls.params)

    def make(params: Mapping[str, Any]) -> Algorithm:
        return cls(**_merged(defaults, params))

    return make


def _overridden(cls: type[Algorithm], hook: str) -> bool:
    return getattr(cls, hook) is not getattr(Algorithm, hook)


def _check_class(cls: Any) -> None:
    if cls is Algorithm:
        raise InvalidAlgorithm("wtcp.Algorithm itself cannot run; allowed: a class derived from it that defines on_ack and on_loss")
    if not (isinstance(cls, type) and issubclass(cls, Algorithm)):
        raise InvalidAlgorithm(f"{cls!r} is not a subclass of wtcp.Algorithm; allowed: a class derived from it")
    name = cls.name
    where = f"{cls.__qualname__}.name"
    if not isinstance(name, str) or not NAME_RE.fullmatch(name) or keyword.iskeyword(name):
        raise InvalidAlgorithm(f"{where} is {name!r}; allowed: 1-40 lowercase letters, digits and `_`, starting with a letter, not a Python keyword")
    builtin = {a["name"] for a in _core.algorithms() if not a.get("user")}
    if name in builtin:
        raise InvalidAlgorithm(f"{where} is {name!r}, a built-in algorithm; allowed: another name")
    for hook in ("on_ack", "on_loss"):
        if not _overridden(cls, hook):
            raise InvalidAlgorithm(f"{cls.__qualname__} does not define {hook}(); every algorithm must")
    for hook in ("on_ack", "on_loss", *OPTIONAL_HOOKS):
        fn = getattr(cls, hook)
        if inspect.iscoroutinefunction(fn) or inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
            raise InvalidAlgorithm(f"{cls.__qualname__}.{hook} is a coroutine or generator function; the sender calls hooks directly; allowed: a plain method")
    if not isinstance(cls.timeout_collapses_window, bool):
        raise InvalidAlgorithm(f"{cls.__qualname__}.timeout_collapses_window is {cls.timeout_collapses_window!r}; allowed: True or False")
    if cls.recovery_style not in RECOVERY_STYLES:
        raise InvalidAlgorithm(f"{cls.__qualname__}.recovery_style is {cls.recovery_style!r}; allowed: {', '.join(map(repr, RECOVERY_STYLES))}")
    if not isinstance(cls.params, Mapping):
        raise InvalidAlgorithm(f"{cls.__qualname__}.params is {type(cls.params).__name__}; allowed: a dict of parameter name -> default")
    for key, default in cls.params.items():
        if not isinstance(key, str) or not key.isidentifier() or keyword.iskeyword(key):
            raise InvalidAlgorithm(f"{cls.__qualname__}.params has the key {key!r}; allowed: Python identifiers")
        if hasattr(Algorithm, key) or callable(getattr(cls, key, None)):
            # Each parameter becomes an attribute of the instance: it would hide this one.
            raise InvalidAlgorithm(f"{cls.__qualname__}.params has the key {key!r}, the name of a method or of wtcp.Algorithm's attributes; allowed: another name")
        if not isinstance(default, (bool, int, float, str)) or (isinstance(default, float) and not math.isfinite(default)):
            raise InvalidAlgorithm(f"{cls.__qualname__}.params[{key!r}] is {default!r}; allowed: a bool, a finite number or a string")
        if isinstance(default, int) and not isinstance(default, bool) and not -(2**63) <= default < 2**63:
            raise InvalidAlgorithm(f"{cls.__qualname__}.params[{key!r}] is {default!r}; allowed: an integer of 64 bits (a scenario's TOML holds no larger)")


def register(cls: type[Algorithm]) -> type[Algorithm]:
    """Register a class so that scenarios can name it (`cc = cls.name`); usable as a
    decorator. Registering another class under the same name replaces it. Raises
    `InvalidAlgorithm` for a class that cannot run."""
    _check_class(cls)
    hooks = [h for h in OPTIONAL_HOOKS if _overridden(cls, h)]
    params = [(k, _describe(v), "") for k, v in cls.params.items()]
    summary = cls.summary or (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
    with _lock:
        _core.register_algorithm(
            cls.name, summary, cls.reference or "written in Python", params, cls.recovery_style, bool(cls.timeout_collapses_window), hooks, _maker(cls), _checker(cls)
        )
        _registered[cls.name] = cls
    return cls


def unregister(name: str) -> bool:
    """Forget a registered algorithm; False if none had that name."""
    with _lock:
        _registered.pop(name, None)
        return bool(_core.unregister_algorithm(name))


def registered() -> dict[str, type[Algorithm]]:
    """The algorithms registered in this process, by name."""
    load_entry_points()
    with _lock:
        return dict(_registered)


def load_entry_points() -> None:
    """Register the algorithms packages declare in the entry-point group
    `wtcp.algorithms` (once per process; one that fails to load is skipped with a warning)."""
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in _registered:
            # A class registered in this process before the entry points were first
            # looked at keeps its name.
            warnings.warn(f"wtcp: entry point {ep.name} = {ep.value} ({ENTRY_POINT_GROUP}) not loaded: a class named {ep.name!r} is registered here", stacklevel=2)
            continue
        try:
            cls = ep.load()
            if getattr(cls, "name", None) != ep.name:
                raise InvalidAlgorithm(f"the class's name is {getattr(cls, 'name', None)!r}, the entry point's {ep.name!r}; allowed: the same")
            register(cls)
        except Exception as e:  # noqa: BLE001 - a broken plug-in must not break wtcp
            warnings.warn(f"wtcp: entry point {ep.name} = {ep.value} ({ENTRY_POINT_GROUP}) not loaded: {type(e).__name__}: {e}", stacklevel=2)


def pickled_registrations(names: Iterable[str]) -> bytes | None:
    """The registered classes of `names` (the others are built-ins or unknown), pickled
    for a sweep's workers; None if there are none. Raises `InvalidAlgorithm` for a class
    cloudpickle cannot pickle."""
    with _lock:
        classes = [_registered[n] for n in sorted(set(names)) if n in _registered]
    if not classes:
        return None
    import cloudpickle

    try:
        return cloudpickle.dumps(classes)
    except Exception as e:  # noqa: BLE001 - any pickling failure: say which class
        raise InvalidAlgorithm(
            f"the sweep's worker processes cannot receive {', '.join(c.__qualname__ for c in classes)}: {type(e).__name__}: {e}; "
            "allowed: a class cloudpickle can pickle (no locks, open files or sockets in class attributes), or the sweep in this process "
            "(`InlineExecutor()` from Python, `--workers 1` without `--run-timeout` on the command line)"
        ) from e


@functools.lru_cache(maxsize=None)
def fingerprint(cls: type[Algorithm]) -> str:
    """A hash of the class's code (the compiled code of its methods and its other class
    attributes, and those of its bases below wtcp.Algorithm), which a sweep puts in its
    store keys: results stored by an earlier version of a class are not taken for this
    one's. Code moved to other lines counts as changed; a change to a function outside
    the class does not."""
    h = hashlib.sha256()
    for c in cls.__mro__:
        if c is Algorithm or not issubclass(c, Algorithm):
            break
        for key, value in sorted(vars(c).items()):
            if key in ("__dict__", "__weakref__", "__module__", "__qualname__", "__doc__"):
                continue
            value = getattr(value, "__func__", value)  # classmethod, staticmethod
            code = getattr(value, "__code__", None)
            h.update(key.encode() + b"\0")
            h.update(marshal.dumps(code) if code is not None else repr(value).encode())
    return h.hexdigest()[:16]


def fingerprints(names: Iterable[str]) -> dict[str, str]:
    """`fingerprint` of each registered Python algorithm among `names`."""
    with _lock:
        classes = {n: _registered[n] for n in set(names) if n in _registered}
    return {n: fingerprint(c) for n, c in sorted(classes.items())}


def register_pickled(payload: bytes | None) -> None:
    """In a worker: register the classes of `pickled_registrations`."""
    if payload is None:
        return
    import pickle

    for cls in pickle.loads(payload):
        if _registered.get(cls.name) is not cls:
            register(cls)


class ContractCheck(NamedTuple):
    name: str
    rule: str
    failure: str | None

    @property
    def ok(self) -> bool:
        return self.failure is None


def check_algorithm(cls: type[Algorithm], params: Mapping[str, Any] | None = None, days: int = 10, strict: bool = True) -> list[ContractCheck]:
    """Run the contract suite every built-in algorithm passes (crates/wtcp-cc/src/contract.rs)
    on `cls` (registered first if it is not), with `params` over its defaults. `days`: the
    simulated days of the overflow check (10 as for the built-ins: 8.6 million ACKs, 6.4 s of
    CPU for the Python NewReno). Returns every check with its failure or None; with
    `strict`, raises `ContractViolation` listing the failures."""
    if _registered.get(getattr(cls, "name", None)) is not cls:
        register(cls)
    if not isinstance(days, int) or isinstance(days, bool) or not 1 <= days <= 10:
        raise ValueError(f"days is {days!r}; allowed: a whole number of days from 1 to 10")
    checks = [ContractCheck(*c) for c in _core.check_algorithm(cls.name, dict(params or {}), days)]
    failed = [c for c in checks if not c.ok]
    if strict and failed:
        raise ContractViolation(f"{cls.name} breaks the contract:\n" + "\n".join(f"- {c.name} ({c.rule}): {c.failure}" for c in failed))
    return checks
