"""The outcome of a run: metrics as a dict and as DataFrames, and the optional traces."""

from __future__ import annotations

import contextlib

import json
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import os
    from collections.abc import Sequence

    import pandas as pd
    from matplotlib.figure import Figure

# Short column prefixes for the per-flow cause counters.
CAUSE_PREFIXES = {"fast_retransmit_causes": "fr", "timeout_causes": "to", "loss_verdicts": "verdict", "verdicts_by_cause": "cm"}
SUMMARY_KEYS = ("engine", "scenario", "profile", "seed", "replication", "jain_fairness", "events", "sim_seconds", "wall_seconds", "loop_cpu_seconds", "peak_packets", "warnings")
TRACE_TABLES = ("flows", "cc", "queues", "losses", "drops")
# Per-flow delay results, ms (null, then NaN, where a flow has no samples).
DELAY_COLUMNS = ("delay_mean_ms", "delay_p50_ms", "delay_p95_ms", "delay_p99_ms", "rtt_p50_ms", "rtt_p95_ms", "rtt_p99_ms")
ENGINES = ("wtcp", "ns3", "linux")


def with_engine(metrics_json: str, engine: str) -> str:
    """The core's metrics JSON with `"engine"` as its first key (the text is otherwise
    unchanged, so every number stays exactly as the simulator wrote it)."""
    body = metrics_json.lstrip()
    if not body.startswith("{") or body.startswith('{"engine"'):
        return metrics_json
    return '{"engine":' + json.dumps(engine) + ("," if body[1:].lstrip() != "}" else "") + body[1:]


class Result:
    """Metrics of one run (`raw`, `flows`, `drops`, `summary`) and its `traces` (or None)."""

    def __init__(self, metrics_json: str, traces: dict | None = None):
        self._json = metrics_json
        self.raw: dict[str, Any] = json.loads(metrics_json)
        self.traces: Traces | None = Traces(traces) if traces is not None else None

    @cached_property
    def flows(self) -> pd.DataFrame:
        """One row per flow; cause counters flattened (`fr_wireless`, `to_congestion`,
        `verdict_none`, ...); `goodput_mbps` and `throughput_mbps` added."""
        import pandas as pd

        df = pd.DataFrame([flatten_flow(f) for f in self.raw["flows"]])
        df["mean_srtt_s"] = df["mean_srtt_s"].astype(float)
        for c in DELAY_COLUMNS:
            if c in df.columns:
                df[c] = df[c].astype(float)
        df["goodput_mbps"] = df["goodput_bps"] / 1e6
        df["throughput_mbps"] = df["throughput_bps"] / 1e6
        return df

    @cached_property
    def drops(self) -> pd.DataFrame:
        """One row per link direction: drops by cause (queue, channel, outage), frames sent,
        link-layer retries and retry-limit drops, and the queueing (sojourn) delay of the
        packets that began their transmission in the measurement window (mean and 95th
        percentile, ms; NaN for an engine that does not report it)."""
        import pandas as pd

        columns = ["link", "from", "to", "queue", "channel", "outage", "tx_packets", "arq_retries", "retry_limit_drops", "sojourn_mean_ms", "sojourn_p95_ms"]
        df = pd.DataFrame(self.raw["drops"], columns=columns)
        for c in ("sojourn_mean_ms", "sojourn_p95_ms"):
            df[c] = df[c].astype(float)
        return df

    @cached_property
    def wifi(self) -> pd.DataFrame:
        """One row per 802.11 station: attempts, successes, retries, collisions, frame
        errors, retry-limit drops, give-ups whose frame had arrived (lost ACKs), queue
        drops, and with 802.11n aggregation the A-MPDUs sent and the MPDUs in them (empty
        without [[wifi]] channels)."""
        import pandas as pd

        columns = ["channel", "node", "attempts", "successes", "retries", "collisions", "frame_errors", "retry_limit_drops", "gave_up_after_delivery", "queue_drops", "ampdus", "ampdu_mpdus"]
        return pd.DataFrame(self.raw.get("wifi", []), columns=columns)

    @property
    def engine(self) -> str:
        """The simulator that produced the run: "wtcp" (native) or "ns3"."""
        return self.raw.get("engine", "wtcp")

    @property
    def profile(self) -> str:
        """Whose defaults filled what the scenario left out (docs/profiles.md)."""
        return self.raw.get("profile", "rfc")

    @property
    def summary(self) -> dict[str, Any]:
        """Run-wide numbers: engine, seed, replication, fairness, events, times, warnings."""
        return {k: self.raw.get(k) for k in SUMMARY_KEYS}

    @property
    def warnings(self) -> list[str]:
        return list(self.raw.get("warnings", []))

    def to_json(self) -> str:
        """The metrics exactly as the simulator wrote them."""
        return self._json

    def plot_cwnd(self, path: str | os.PathLike[str] | None = None, flows: int | str | Sequence[int | str] | None = None,
                  mss_bytes: int | None = None, losses: bool = True) -> Figure:
        """cwnd and ssthresh against time from `traces`, one panel per flow (`flows`: ids
        or names; None: every traced flow), in the colour of the flow's algorithm, with
        fast retransmits and timeouts marked (`losses`). In kB, or segments with
        `mss_bytes`. Returns the matplotlib Figure; writes `path` if given (.png, .svg, or
        both for a path without a suffix). A run without traces raises
        `wtcp.plot.NoTraceError` (a ValueError) saying how to record them."""
        from wtcp.plot import plot_cwnd

        return plot_cwnd(self, path, flows, mss_bytes=mss_bytes, losses=losses)

    def plot_sequence(self, path: str | os.PathLike[str] | None = None, flows: int | str | Sequence[int | str] | None = None,
                      from_s: float | None = None, until_s: float | None = None, mss_bytes: int | None = None) -> Figure:
        """Sequence number against time from `traces`, one panel per flow (`flows`: ids or
        names; None: every traced flow), cut to `from_s`..`until_s` (seconds): the sampled
        highest sequence sent, SND.NXT below it, the cumulative ACK and the receiver's
        RCV.NXT as lines; every dropped data segment and every fast retransmit and timeout
        at its exact time and sequence number, coloured by its true cause. In kB, or
        segments with `mss_bytes`. Returns the matplotlib Figure; writes `path` if given.
        A run without traces raises `wtcp.plot.NoTraceError`, other bad arguments
        `wtcp.plot.PlotError` (both ValueErrors). See docs/figures.md."""
        from wtcp.plot import plot_sequence

        return plot_sequence(self, path, flows, from_s=from_s, until_s=until_s, mss_bytes=mss_bytes)

    def __repr__(self) -> str:
        goodputs = ", ".join(f"{f['name']}={f['goodput_bps'] / 1e6:.3f}" for f in self.raw["flows"])
        return f"<Result {self.raw['scenario']!r} engine={self.engine} seed={self.raw['seed']} goodput Mb/s: {goodputs}>"


class Traces:
    """Time series of a traced run as DataFrames. Flow ids match `Result.flows.id`;
    `link` names a link direction as "link:from->to"."""

    def __init__(self, tables: dict[str, Any]):
        self._tables = tables
        self.dir_names: list[str] = list(tables["dir_names"])

    @cached_property
    def flows(self) -> pd.DataFrame:
        """TCP sender state per flow per sample: cwnd, ssthresh, srtt, rto, snd_una, ..."""
        return self._frame("flows")

    @cached_property
    def cc(self) -> pd.DataFrame:
        """Algorithm-specific variables in long form: time, flow, name, value."""
        return self._frame("cc")

    @cached_property
    def queues(self) -> pd.DataFrame:
        """Queue length per link direction per sample."""
        return self._with_link(self._frame("queues"))

    @cached_property
    def losses(self) -> pd.DataFrame:
        """Every loss a sender detected: time, flow, timeout, seq, true cause, verdict."""
        return self._frame("losses")

    @cached_property
    def drops(self) -> pd.DataFrame:
        """Every dropped packet: time, link direction, flow, kind, seq, cause."""
        return self._with_link(self._frame("drops"))

    def to_csv(self, directory: str | Path) -> list[Path]:
        """Write flows.csv, cc.csv, queues.csv, losses.csv and drops.csv; return their paths."""
        writer = TraceWriter(directory)
        writer(self._tables)
        return writer.paths

    def _frame(self, name: str) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(dict(self._tables[name]))

    def _with_link(self, df: pd.DataFrame) -> pd.DataFrame:
        import numpy as np

        names = np.asarray(self.dir_names, dtype=object)
        df.insert(df.columns.get_loc("dir") + 1, "link", names[df["dir"].to_numpy(dtype=np.intp)])
        return df

    def __repr__(self) -> str:
        sizes = ", ".join(f"{name}={len(self._tables[name]['time'])}" for name in TRACE_TABLES)
        return f"<Traces rows: {sizes}>"


class TraceWriter:
    """Writes traces into a directory as `Traces.to_csv` does (flows.csv, cc.csv,
    queues.csv, losses.csv, drops.csv, same columns), a chunk at a time: called with each
    chunk of a streamed run (`_core.run(..., trace_sink=writer)`), it appends the chunk's
    rows to the files, so the files equal those of the whole traces and no more than a
    chunk is held in memory. The directory is created at once (an unwritable one fails
    before the run); the first call creates (truncates) the files and writes their
    headers."""

    def __init__(self, directory: str | Path):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.paths = [self.directory / f"{name}.csv" for name in TRACE_TABLES]
        self.chunks = 0

    def __call__(self, tables: dict[str, Any]) -> None:
        chunk = Traces(tables)
        from wtcp.safefile import write_no_follow

        for name, path in zip(TRACE_TABLES, self.paths):
            frame = getattr(chunk, name)
            if self.chunks == 0 or len(frame):
                # Never through a link planted in the folder (wtcp.safefile); a write error
                # (a full disk) names the file.
                try:
                    with write_no_follow(path, append=self.chunks > 0) as f:
                        frame.to_csv(f, index=False, header=self.chunks == 0)
                except OSError as e:
                    # The files are incomplete now: none is left to look like a whole trace.
                    for written in self.paths:
                        with contextlib.suppress(OSError):
                            written.unlink()
                    if e.filename is None:
                        raise OSError(e.errno, e.strerror or str(e), str(path)) from None
                    raise
        self.chunks += 1


def flatten_flow(flow: dict[str, Any]) -> dict[str, Any]:
    """A flow's metrics with nested counters as prefixed columns (`fr_wireless`, ...;
    the confusion matrix `verdicts_by_cause` as `cm_<true cause>_<verdict>`)."""
    row: dict[str, Any] = {}

    def put(name: str, value: dict[str, Any]) -> None:
        for k, v in value.items():
            if isinstance(v, dict):
                put(f"{name}_{k}", v)
            else:
                row[f"{name}_{k}"] = v

    for key, value in flow.items():
        if isinstance(value, dict):
            put(CAUSE_PREFIXES.get(key, key), value)
        else:
            row[CAUSE_PREFIXES.get(key, key)] = value
    return row
