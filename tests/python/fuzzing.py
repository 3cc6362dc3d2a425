"""A seeded scenario mutator and the harness that runs its cases.

Bases: every shipped scenario (`python/wtcp/scenarios/*.toml`) and the first run of every
sweep (`sweeps/*.toml` and the papers' sweeps). A case shortens its base (runs of about a
second), then applies one to four mutations: a value replaced by an extreme (0, negative,
nan, inf, huge, tiny, a wrong type, a string, an empty table), a key removed, an unknown key
added, a value nested deep, a list element duplicated, a number scaled by 1e±6. Most cases
go through the Python API (`Scenario.from_dict`, then `run`), a share through the CLI
(`wtcp run BASE --set PATH=VALUE ...`).

Outcomes: `ok` (the run completed with finite metrics), `error` (a `ScenarioError` / a
`ValueError` subclass with a field path; on the CLI exit status 2 with `error: ` and the
path on stderr, no traceback). Everything else is a failure: `no-path` (an error without
a field path), `nonsense` (NaN, an infinity or a negative number accepted where the schema's
meaning forbids it), `bad-result` (NaN or negative metrics, or numbers that break an oracle of
`semantic`: goodput above what the flow's ends can carry, throughput above the source's
links, delivered above sent, cause counts that do not sum, Jain's index outside [1/n, 1], a
negative traced window), `internal` (SimulationError),
`traceback` (any other exception, or a traceback on the CLI), `terminal` (an escape or C1
control character of a name reached the CLI's output), `link-followed` (a CLI case that
writes traces or captures into a folder with a symbolic link planted, one in four, wrote
the link's target), `exit-N` (another CLI exit
status), `crash` (the worker died: a panic that aborts, a memory limit hit), `hang` (past the
per-case time limit).

Each case runs in a worker process with an address-space limit (`resource.setrlimit`), a
per-case time limit, and the resource budgets lowered (`WTCP_MEMORY_BUDGET_GIB`,
`WTCP_EVENT_BUDGET`) so that the estimate, not the limit, is what stops a huge run.

    python tests/python/fuzzing.py --cases 100000 --workers 2 --seed 1
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import multiprocessing as mp
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCENARIO_DIR = ROOT / "python" / "wtcp" / "scenarios"
SWEEP_FILES = sorted((ROOT / "sweeps").glob("*.toml")) + sorted((ROOT / "python" / "wtcp" / "papers").glob("*/*.toml"))

FAILURES = ("no-path", "nonsense", "bad-result", "internal", "traceback", "terminal", "link-followed", "crash", "hang")
GOOD = ("ok", "error")

# Budgets inside the workers: small enough that a case stays within the limits below.
WORKER_ENV = {"WTCP_MEMORY_BUDGET_GIB": "1", "WTCP_EVENT_BUDGET": "3e7"}
MEMORY_LIMIT_BYTES = 6 * 1024**3  # address space of a worker (Python, NumPy and the engine)
CASE_TIME_LIMIT_S = 60.0

NESTED = {"a": {"a": {"a": {"a": {"a": {"a": {"a": {"a": {"a": {"a": 1}}}}}}}}}}
EXTREMES: list[Any] = [
    0, -1, -1.5, 1, 2, 0.5, 1e-300, 5e-324, 1e-9, 1e9, 1e15, 1e308, -1e308, 2**31, 2**32, 2**53 + 1, 2**63 - 1, 2**64, -(2**63),
    10_000, 100_000, float("nan"), float("inf"), float("-inf"), True, False, "", "x", "nan", "1.0", " ", "\u00e9\u0000",
    [], {}, [1], [[]], {"a": 1}, NESTED, [float("nan")], {"model": "uniform", "rate": 0.5},
    # Hostile names: rich markup, terminal escapes, a script URL.
    "[/]", "x [red]y[/red] [a]", "\x1b]0;owned\x07", "a\x9bb", "javascript:alert(1)",
]
# What must never reach a terminal from a name: the escape and C1 control characters.
RAW_CONTROL = ("\x1b", "\x9b", "\x07")
NUMBERS = [x for x in EXTREMES if isinstance(x, (int, float)) and not isinstance(x, bool)]
UNKNOWN_KEY = "fuzz_unknown_key"


# --- choices: from a seeded RNG (make fuzz) or from hypothesis (make test) ---


class RandomChooser:
    def __init__(self, rng: random.Random):
        self.rng = rng

    def index(self, n: int) -> int:
        return self.rng.randrange(n)


class DataChooser:
    """Draws through hypothesis, so that a failing case shrinks."""

    def __init__(self, data: Any):
        from hypothesis import strategies as st

        self.data = data
        self.st = st

    def index(self, n: int) -> int:
        return self.data.draw(self.st.integers(0, n - 1))


# --- bases ---


def traces_beside(doc: dict[str, Any], directory: Path) -> dict[str, Any]:
    """The document with relative capacity trace paths made absolute against `directory`
    (as `Scenario.from_file` finds them beside the scenario file)."""
    for link in doc.get("links", []):
        for side in ("ab", "ba"):
            cap = link.get(side, {}).get("capacity", {})
            if isinstance(cap.get("trace"), str) and not Path(cap["trace"]).is_absolute():
                cap["trace"] = str(directory / cap["trace"])
    return doc


def bases() -> list[tuple[str, dict[str, Any]]]:
    """(name, document) of every base: shipped scenarios, then each sweep's first run."""
    out = [(p.name, traces_beside(tomllib.loads(p.read_text(encoding="utf-8")), p.parent)) for p in sorted(SCENARIO_DIR.glob("*.toml"))]
    from wtcp.sweep.spec import Sweep

    for path in SWEEP_FILES:
        try:
            first = next(Sweep.from_file(path).runs())
        except Exception:
            continue  # not a sweep (a paper's own definition)
        if first.toml is not None:
            out.append((f"{path.parent.name}/{path.name}#1", tomllib.loads(first.toml)))
    return out


def shorten(doc: dict[str, Any]) -> dict[str, Any]:
    """About a second of simulated time: start times and copies cut down, tracing off."""
    doc = copy.deepcopy(doc)
    run = doc.setdefault("run", {})
    run["duration_s"] = min(float(run.get("duration_s", 1.0)), 1.5)
    run.pop("measure_to_s", None)
    run["measure_from_s"] = 0.0
    for f in doc.get("flows", []):
        if not isinstance(f, dict):
            continue
        f["start_s"] = min(float(f.get("start_s", 0.0)), 0.5)
        f.pop("stop_s", None)
        f["start_stagger_s"] = min(float(f.get("start_stagger_s", 0.0)), 0.01)
        if f.get("count", 1) > 3:
            f["count"] = 3
    doc.pop("trace", None)
    doc.pop("metrics", None)  # its flow names may be copies cut above
    return doc


# --- mutations ---


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path below `value` (containers and leaves), as tuples of keys and indices."""
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            out.append((*prefix, k))
            out += paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.append((*prefix, i))
            out += paths(v, (*prefix, i))
    return out


def get(doc: Any, path: tuple) -> Any:
    for p in path:
        doc = doc[p]
    return doc


def dotted(path: tuple) -> str:
    return ".".join(str(p) for p in path)


ACTIONS = ("replace", "replace", "numeric", "numeric", "numeric", "remove", "unknown_key", "scale", "duplicate", "stringify", "schema", "schema", "cc", "cc")

# Fields a base may not have, set by the `schema` action (an index 0 is taken as is: most
# bases have a first link and a first flow).
SCHEMA_PATHS = (
    "tcp.initial_cwnd_segments", "tcp.initial_ssthresh_segments", "tcp.send_buffer_bytes", "tcp.recv_buffer_bytes", "tcp.mss_bytes",
    "tcp.header_bytes", "tcp.rto_initial_s", "tcp.rto_min_s", "tcp.rto_max_s", "tcp.clock_granularity_s", "tcp.max_backoff",
    "tcp.dupack_threshold", "tcp.delayed_ack_count", "tcp.delayed_ack_timeout_s", "tcp.sack", "tcp.recovery", "tcp.timestamps",
    "tcp.handshake", "tcp.frto", "tcp.ecn", "tcp.rtt_sampling", "trace.enabled", "trace.interval_ms", "run.duration_s", "run.seed",
    "run.replication", "run.measure_to_s", "flows.0.count", "flows.0.on_off", "flows.0.bytes", "flows.0.stop_s", "flows.0.start_stagger_s",
    "flows.0.tcp", "links.0.ab.random_outages", "links.0.ab.loss", "links.0.queue", "links.0.ab.arq", "links.0.ab.delay_spikes",
    "links.0.ab.outages", "links.0.link_header_bytes", "links.0.rate_mbps", "links.0.delay_ms", "metrics.fairness_flows",
)
SCHEMA_VALUES: list[Any] = [
    {"count_per_200s": 1e12, "duration_s": 1e-9}, {"count_per_200s": 50, "duration_s": 0.01, "exponential_duration": True},
    {"model": "gilbert_elliott", "p_good_to_bad": 0.1, "p_bad_to_good": 0.5}, {"model": "list", "packets": [1, 2, 3]},
    {"model": "ber", "ber": 1e-5}, {"discipline": "red", "limit_packets": 50}, {"discipline": "cw", "limit_packets": 50, "threshold": 5},
    {"limit_bytes": 2**62}, {"retry_limit": 7}, [{"start_s": 0.2, "duration_s": 0.1, "extra_delay_ms": 500}],
    [{"start_s": 0.1, "duration_s": 0.3}], {"on_s": 1e-9, "off_s": 1e-9}, {"on_s": 0.1, "off_s": 0.1, "exponential": True},
    {"sack": True, "recovery": "prr"}, {"timestamps": True, "handshake": True}, "prr", "one_per_rtt", 1e-6, 0.001, 2**62,
]


def algorithms() -> list[dict[str, Any]]:
    from wtcp import _core

    return _core.algorithms()


def numeric_params(params: list[dict[str, Any]], prefix: str = "") -> list[str]:
    out = []
    for p in params:
        if p.get("params"):
            out += numeric_params(p["params"], f"{prefix}{p['name']}.")
        out.append(prefix + p["name"])
    return out


def set_path(doc: dict[str, Any], parts: list[str], value: Any) -> bool:
    """Set a dotted path, creating tables on the way; False where the document's shape
    does not allow it (an index past a list's end, a scalar on the way)."""
    at: Any = doc
    for part in parts[:-1]:
        if isinstance(at, list):
            if not part.isdigit() or int(part) >= len(at):
                return False
            at = at[int(part)]
        elif isinstance(at, dict):
            at = at.setdefault(part, {})
        else:
            return False
    if isinstance(at, list):
        if not parts[-1].isdigit() or int(parts[-1]) >= len(at):
            return False
        at[int(parts[-1])] = value
    elif isinstance(at, dict):
        at[parts[-1]] = value
    else:
        return False
    return True


def mutate(doc: dict[str, Any], ch: Any, api: bool = True) -> tuple[dict[str, Any], list[tuple[str, str, Any]]]:
    """Apply 1-4 mutations; returns the document and [(action, dotted path, value)]. With
    `api = False` only what `--set` can express (replacements and additions)."""
    doc = copy.deepcopy(doc)
    done: list[tuple[str, str, Any]] = []
    for _ in range(1 + ch.index(4)):
        all_paths = paths(doc)
        if not all_paths:
            break
        path = all_paths[ch.index(len(all_paths))]
        action = ACTIONS[ch.index(len(ACTIONS))]
        if not api and action in ("remove", "duplicate"):
            action = "replace"
        if action == "schema":
            target = SCHEMA_PATHS[ch.index(len(SCHEMA_PATHS))]
            pool = SCHEMA_VALUES + EXTREMES
            value = copy.deepcopy(pool[ch.index(len(pool))])
            if set_path(doc, target.split("."), value):
                done.append(("schema", target, value))
            continue
        if action == "cc":
            all_flows = doc.get("flows")
            if not isinstance(all_flows, list):
                continue
            flows = [i for i, f in enumerate(all_flows) if isinstance(f, dict) and f.get("kind", "tcp") == "tcp"]
            if not flows:
                continue
            i = flows[ch.index(len(flows))]
            algs = algorithms()
            alg = algs[ch.index(len(algs))]
            names = numeric_params(alg["params"])
            doc["flows"][i]["cc"] = alg["name"]
            params: dict[str, Any] = {}
            if names:
                name = names[ch.index(len(names))]
                set_path(params, name.split("."), copy.deepcopy(EXTREMES[ch.index(len(EXTREMES))]))
            doc["flows"][i]["cc_params"] = params
            done.append(("cc", f"flows.{i}.cc", alg["name"]))
            done += [("cc", f"flows.{i}.cc_params.{p}", v) for p, v in flat_items(params)]
            continue
        parent = get(doc, path[:-1])
        key = path[-1]
        current = parent[key]
        if action == "numeric":
            # A number for a number: past the type check, into the range checks and the run.
            if isinstance(current, bool) or not isinstance(current, (int, float)):
                continue
            value = NUMBERS[ch.index(len(NUMBERS))]
            if isinstance(current, int) and isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
                value = int(value)
        elif action == "replace":
            value = copy.deepcopy(EXTREMES[ch.index(len(EXTREMES))])
        elif action == "remove":
            del parent[key]
            done.append(("remove", dotted(path), None))
            continue
        elif action == "unknown_key":
            target = current if isinstance(current, dict) else parent if isinstance(parent, dict) else None
            if target is None:
                continue
            where = path if target is current else path[:-1]
            target[UNKNOWN_KEY] = 1
            done.append(("unknown_key", dotted((*where, UNKNOWN_KEY)), 1))
            continue
        elif action == "scale":
            if isinstance(current, bool) or not isinstance(current, (int, float)):
                continue
            factor = (1e6, 1e-6, -1.0, 1e12)[ch.index(4)]
            value = current * factor
            if isinstance(current, int) and factor >= 1:
                value = int(value)
        elif action == "duplicate":
            if not isinstance(current, list) or not current:
                continue
            current.append(copy.deepcopy(current[ch.index(len(current))]))
            done.append(("duplicate", dotted(path), None))
            continue
        else:  # stringify
            if isinstance(current, (dict, list)):
                continue
            value = str(current)
        parent[key] = value
        done.append((action, dotted(path), value))
    return doc, done


def flat_items(table: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out = []
    for k, v in table.items():
        if isinstance(v, dict) and v:
            out += flat_items(v, f"{prefix}{k}.")
        else:
            out.append((prefix + k, v))
    return out


# Files a CLI case may find planted as symbolic links in its --trace or --pcap folder.
LINK_TARGETS = {"--trace": ["flows.csv", "cc.csv", "drops.csv"], "--pcap": ["hosts", "flows.csv", "captures.csv"]}


def make_case(base_index: int, ch: Any, cli: bool) -> dict[str, Any]:
    name, doc = BASES[base_index]
    short = shorten(doc)
    mutated, done = mutate(short, ch, api=not cli)
    case = {"base": name, "doc": mutated, "short": short, "mutations": done, "cli": cli}
    if cli and ch.index(4) == 0:
        # One CLI case in four writes a trace or captures into a folder with a link planted.
        option = ["--trace", "--pcap"][ch.index(2)]
        case["link"] = (option, LINK_TARGETS[option][ch.index(len(LINK_TARGETS[option]))])
    return case


BASES: list[tuple[str, dict[str, Any]]] = []


def load_bases() -> None:
    if not BASES:
        BASES.extend(bases())


# --- judging ---

# Where a negative number or an infinity means something.
NEGATIVE_OK = ("x", "y")
INFINITY_OK = ("initial_ssthresh_segments",)


def nonsense(mutations: list[tuple[str, str, Any]], doc: dict[str, Any]) -> str | None:
    """A NaN, an infinity or a negative number that a mutation put where the schema's
    meaning forbids it and that is still in the accepted document."""
    for action, path, value in mutations:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        parts = tuple(int(p) if p.isdigit() else p for p in path.split("."))
        try:
            present = get(doc, parts)
        except (KeyError, IndexError, TypeError):
            continue
        if isinstance(present, bool) or not isinstance(present, (int, float)):
            continue
        if not (present is value or present == value or (math.isnan(value) and isinstance(present, float) and math.isnan(present))):
            continue
        leaf = parts[-1]
        if isinstance(value, float) and math.isnan(value):
            return f"{path} = nan accepted"
        if math.isinf(value) and leaf not in INFINITY_OK:
            return f"{path} = {value} accepted"
        if value < 0 and leaf not in NEGATIVE_OK:
            return f"{path} = {value} accepted"
    return None


def bad_numbers(value: Any, where: str = "") -> str | None:
    """A NaN or a negative count in the metrics."""
    if isinstance(value, dict):
        for k, v in value.items():
            found = bad_numbers(v, f"{where}.{k}" if where else str(k))
            if found:
                return found
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found = bad_numbers(v, f"{where}.{i}")
            if found:
                return found
    elif isinstance(value, float) and not isinstance(value, bool):
        if math.isnan(value) and not where.endswith("min_rtt_s"):
            return f"{where} is NaN"
        if value < 0:
            return f"{where} is {value}"
    elif isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return f"{where} is {value}"
    return None


MAX_WIFI_MBPS = 54.0  # the fastest 802.11a/g data rate, for a station without data_rate_mbps


def access_capacity_bps(doc: dict[str, Any], node: str) -> float:
    """Bits per second a node can send or receive at most: its wired links' rates plus
    the data rate of every 802.11 channel it is a station of (the fastest PHY rate when
    the channel sets none). A flow's goodput cannot exceed either end's."""
    total = sum(float(l.get("rate_mbps", 0.0)) for l in doc.get("links", []) if node in (l.get("a"), l.get("b")))
    for w in doc.get("wifi", []):
        names = [s if isinstance(s, str) else s.get("node") for s in w.get("stations", [])]
        if node in names:
            total += float(w.get("data_rate_mbps") or MAX_WIFI_MBPS)
    return total * 1e6


def semantic(result: Any, doc: dict[str, Any]) -> str | None:
    """Numbers a successful run must satisfy whatever the scenario: goodput within both
    ends' access capacity and no more than was put on the wire, delivered data no more than
    was sent, cause counts summing to their totals, Jain's index within [1/n, 1], and no
    negative traced window."""
    flows = result.raw.get("flows", [])
    for f in flows:
        name = f"flows.{f['id']} ({f['name']})"
        bound = min(access_capacity_bps(doc, f["src"]), access_capacity_bps(doc, f["dst"]))
        if f["goodput_bps"] > bound * 1.0001:
            return f"{name}: goodput {f['goodput_bps']:.6g} b/s above the {bound:.6g} b/s its ends can carry"
        if f["throughput_bps"] > access_capacity_bps(doc, f["src"]) * 1.0001:
            return f"{name}: throughput {f['throughput_bps']:.6g} b/s above the source's {access_capacity_bps(doc, f['src']):.6g} b/s"
        if f["kind"] == "tcp":
            causes = f["fast_retransmit_causes"], f["timeout_causes"]
            if sum(causes[0].values()) != f["fast_retransmits"] or sum(causes[1].values()) != f["timeouts"]:
                return f"{name}: loss causes {causes} do not sum to {f['fast_retransmits']} fast retransmits and {f['timeouts']} timeouts"
            if sum(f["loss_verdicts"].values()) != f["fast_retransmits"] + f["timeouts"]:
                return f"{name}: verdicts {f['loss_verdicts']} do not sum to the losses"
            if f["retransmitted_segments"] > f["segments_sent"] or f["unnecessary_retransmissions"] > f["retransmitted_segments"]:
                return f"{name}: retransmissions {f['retransmitted_segments']} ({f['unnecessary_retransmissions']} unnecessary) of {f['segments_sent']} sent"
            mss = (doc.get("tcp") or {}).get("mss_bytes", 1000)
            mss = max(mss, *(int((fl.get("tcp") or {}).get("mss_bytes", mss)) for fl in doc.get("flows", [])))
            if f["delivered_bytes"] > f["segments_sent"] * mss:
                return f"{name}: {f['delivered_bytes']} bytes delivered from {f['segments_sent']} segments of at most {mss} bytes"
        elif f["delivered_bytes"] > f["segments_sent"] * max(int(fl.get("packet_bytes", 0)) for fl in doc.get("flows", [])):
            return f"{name}: {f['delivered_bytes']} bytes delivered from {f['segments_sent']} datagrams"
    jain = result.raw.get("jain_fairness")
    active = [f for f in flows if f["goodput_bps"] > 0]
    if jain is not None and active and not (1.0 / len(flows) - 1e-9 <= jain <= 1.0 + 1e-9):
        return f"jain_fairness {jain} outside [1/{len(flows)}, 1]"
    if result.traces is not None:
        cwnd = result.traces.flows["cwnd"]
        if len(cwnd) and float(cwnd.min()) < 0:
            return f"traced cwnd down to {float(cwnd.min())}"
    return None


def run_api(case: dict[str, Any]) -> tuple[str, str]:
    import wtcp
    from wtcp.errors import ScenarioError, SimulationError

    try:
        sc = wtcp.Scenario.from_dict(case["doc"])
        result = sc.run()
    except ScenarioError as e:
        path = getattr(e, "path", "")
        if not path or not str(e).startswith(path):
            return "no-path", str(e)[:300]
        return "error", str(e)[:200]
    except SimulationError as e:
        return "internal", str(e)[:300]
    except ValueError as e:
        # Another ValueError subclass must still name the field.
        text = str(e)
        if any(m[1] and m[1].split(".")[0] in text for m in case["mutations"]):
            return "error", text[:200]
        return "no-path", f"{type(e).__name__}: {text[:300]}"
    except Exception as e:  # noqa: BLE001 - any other exception is the finding
        import traceback

        return "traceback", "".join(traceback.format_exception(e))[-1500:]
    found = nonsense(case["mutations"], sc.document)
    if found:
        return "nonsense", found
    found = bad_numbers(result.raw.get("flows", []), "flows") or semantic(result, sc.document)
    if found:
        return "bad-result", found
    return "ok", ""


def limit_child() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))


def cli_sets(case: dict[str, Any]) -> list[str]:
    """The base file's shortening and the mutations as `--set PATH=VALUE` arguments."""
    from wtcp.toml_text import to_toml_value

    out = []
    short = case["short"]
    out += [f"run.duration_s={to_toml_value(short['run']['duration_s'])}", "run.measure_from_s=0.0"]
    for i, f in enumerate(short.get("flows", [])):
        for key in ("start_s", "start_stagger_s", "count"):
            if key in f:
                out.append(f"flows.{i}.{key}={to_toml_value(f[key])}")
    for action, path, value in case["mutations"]:
        out.append(f"{path}={to_toml_value(value, path)}")
    return out


def run_cli(case: dict[str, Any]) -> tuple[str, str]:
    base = case["base"]
    if "#" in base:
        return run_api(case)  # a sweep's run has no file of its own
    try:
        sets = cli_sets(case)
    except ValueError as e:
        return "error", f"(not expressible as --set: {e})"[:200]
    args = [sys.executable, "-m", "wtcp.cli", "run", str(SCENARIO_DIR / base)]
    for s in sets:
        args += ["--set", s]
    env = {**os.environ, **WORKER_ENV}
    with tempfile.TemporaryDirectory(prefix="wtcp-fuzz-") as tmp:
        victim = Path(tmp) / "victim.txt"
        if case.get("link"):
            option, file = case["link"]
            folder = Path(tmp) / "out"
            folder.mkdir()
            victim.write_text("victim")
            os.symlink(victim, folder / file)
            args += [option, str(folder)]
        try:
            p = subprocess.run(args, capture_output=True, text=True, timeout=CASE_TIME_LIMIT_S, env=env, preexec_fn=limit_child)
        except subprocess.TimeoutExpired:
            return "hang", "CLI past the time limit"
        if case.get("link") and victim.read_text() != "victim":
            return "link-followed", f"{case['link']}: the link's target was written"
    err = p.stderr
    if "Traceback" in err or "panicked" in err:
        return "traceback", err[-1500:]
    if any(c in p.stdout + err for c in RAW_CONTROL):
        return "terminal", "a control character reached the terminal: " + repr((p.stdout + err)[-300:])
    if p.returncode == 0:
        return "ok", ""
    if p.returncode == 2:
        if not err.startswith("error: "):
            return "no-path", err[:300]
        if case.get("link") and "is a symbolic link" in err:
            return "error", err[:200]  # the planted link, refused and named
        paths_given = [m[1] for m in case["mutations"]] + ["run.", "flows.", "links.", "nodes", "wifi.", "tcp.", "trace.", "metrics."]
        if not any(x.split(".")[0] in err for x in paths_given if x):
            return "no-path", err[:300]
        return "error", err[:200]
    if p.returncode < 0:
        return "crash", f"signal {-p.returncode}: {err[-800:]}"
    return f"exit-{p.returncode}", err[-800:]


def run_case(case: dict[str, Any]) -> tuple[str, str]:
    return run_cli(case) if case["cli"] else run_api(case)


# --- workers ---


def worker_main(conn: Any) -> None:
    os.environ.update(WORKER_ENV)
    limit_child()
    import wtcp  # noqa: F401 - imported once, before the first case

    while True:
        try:
            case = conn.recv()
        except EOFError:
            return
        if case.get("sleep"):
            time.sleep(case["sleep"])  # the harness's own test: a case that hangs
        conn.send(run_case(case))


class Worker:
    """A process that runs cases one at a time; restarted after a crash or a hang."""

    def __init__(self, ctx: Any):
        self.ctx = ctx
        self.start()

    def start(self) -> None:
        self.conn, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=worker_main, args=(child,), daemon=True)
        self.proc.start()
        child.close()
        self.case: dict[str, Any] | None = None
        self.deadline = 0.0

    def submit(self, case: dict[str, Any], time_limit: float) -> None:
        self.case = case
        self.deadline = time.monotonic() + time_limit
        self.conn.send(case)

    def restart(self) -> None:
        self.proc.kill()
        self.proc.join()
        self.conn.close()
        self.start()

    def run(self, case: dict[str, Any], time_limit: float = CASE_TIME_LIMIT_S) -> tuple[str, str]:
        """One case, synchronously (for the test suite)."""
        self.submit(case, time_limit)
        return self.collect(time_limit)

    def collect(self, timeout: float) -> tuple[str, str]:
        if not self.conn.poll(timeout):
            self.restart()
            return "hang", f"past {timeout} s"
        try:
            outcome = self.conn.recv()
        except (EOFError, ConnectionResetError):
            code = self.proc.exitcode
            self.restart()
            return "crash", f"worker died (exit code {code})"
        self.case = None
        return outcome

    def close(self) -> None:
        self.conn.close()
        self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.proc.kill()


def fuzz(cases: int, workers: int, seed: int, cli_share: float, report: Path | None) -> Counter:
    load_bases()
    ctx = mp.get_context("fork")
    pool = [Worker(ctx) for _ in range(workers)]
    rng = random.Random(seed)
    counts: Counter = Counter()
    failures: list[dict[str, Any]] = []
    started = time.monotonic()
    next_case = 0
    busy: dict[Any, Worker] = {}

    def new_case() -> dict[str, Any]:
        nonlocal next_case
        case_seed = rng.randrange(2**63)
        case_rng = random.Random(case_seed)
        case = make_case(case_rng.randrange(len(BASES)), RandomChooser(case_rng), cli=case_rng.random() < cli_share)
        case["seed"] = case_seed
        next_case += 1
        return case

    idle = list(pool)
    done = 0
    while done < cases:
        while idle and next_case < cases:
            w = idle.pop()
            w.submit(new_case(), CASE_TIME_LIMIT_S)
            busy[w.conn] = w
        ready = wait(list(busy), timeout=1.0)
        now = time.monotonic()
        finished = []
        for conn in ready:
            finished.append(busy[conn])
        for w in busy.values():
            if w not in finished and now > w.deadline:
                finished.append(w)
        for w in finished:
            del busy[w.conn]
            case = w.case
            if now > w.deadline and not w.conn.poll(0):
                w.restart()
                outcome, detail = "hang", f"past the {CASE_TIME_LIMIT_S} s time limit"
            else:
                outcome, detail = w.collect(1.0)
            counts[outcome] += 1
            done += 1
            if outcome not in GOOD:
                failures.append({"outcome": outcome, "detail": detail, "seed": case["seed"], "base": case["base"], "cli": case["cli"], "mutations": [(a, p, repr(v)) for a, p, v in case["mutations"]]})
                print(f"FAIL {outcome}: {case['base']} {case['mutations']!r:.300} -> {detail[:300]}", flush=True)
            idle.append(w)
        if done and done % 1000 == 0 and finished:
            rate = done / (time.monotonic() - started)
            print(f"{done} cases, {rate:.0f}/s: {dict(counts)}", flush=True)
    for w in pool:
        w.close()
    if report is not None:
        report.write_text(json.dumps({"cases": cases, "seed": seed, "counts": dict(counts), "failures": failures}, indent=1, default=repr))
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cli-share", type=float, default=0.02, help="fraction of cases run through the CLI")
    ap.add_argument("--report", type=Path, help="write counts and failing cases (JSON)")
    args = ap.parse_args(argv)
    started = time.monotonic()
    counts = fuzz(args.cases, args.workers, args.seed, args.cli_share, args.report)
    elapsed = time.monotonic() - started
    print(f"\n{args.cases} cases (seed {args.seed}, {args.workers} workers) in {elapsed:.0f} s")
    for outcome, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"  {outcome:12s} {n}")
    bad = sum(n for o, n in counts.items() if o not in GOOD)
    print(f"failures: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
