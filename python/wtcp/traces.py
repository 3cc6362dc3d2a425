"""Link capacity traces: load mahimahi and CSV files, generate the synthetic models, and
summarise or plot a trace.

A trace is what a link direction's `capacity = { ... }` table describes (docs/traces.md);
the core reads and generates it, so a trace here is exactly the link a run uses:

    >>> import wtcp.traces as tr
    >>> t = tr.generate({"model": "markov", "rates_mbps": [1, 10], "mean_holding_s": [2, 4],
    ...                  "duration_s": 60, "seed": 3})
    >>> t.summary()["mean_mbps"]          # doctest: +SKIP
    >>> open("lte-like.trace", "w").write(t.to_mahimahi())   # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from wtcp import _core
from wtcp.toml_text import to_toml_value

__all__ = ["Trace", "load", "generate", "from_spec", "OPPORTUNITY_IP_BYTES"]

# Bytes of IP packet one mahimahi opportunity carries (its README; 1504 with the TUN header).
OPPORTUNITY_IP_BYTES = 1500


def _table_text(spec: Mapping[str, Any]) -> str:
    return "{ " + ", ".join(f"{k} = {to_toml_value(v)}" for k, v in spec.items()) + " }"


@dataclass(frozen=True)
class Trace:
    """One period of a link capacity. `kind` "opportunities": `times_ms` (mahimahi
    delivery opportunities, the last timestamp is the period); "rates": `times_s`,
    `rates_mbps` and `interpolate` ("step" or "linear"), the last time the period."""

    kind: str
    times_ms: np.ndarray | None = None
    times_s: np.ndarray | None = None
    rates_mbps: np.ndarray | None = None
    interpolate: str = "step"

    @property
    def period_s(self) -> float:
        if self.kind == "opportunities":
            return float(self.times_ms[-1]) / 1e3
        return float(self.times_s[-1])

    def rate(self, bin_s: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
        """Capacity (Mb/s of IP packets) per bin of `bin_s` over one period: (bin starts
        in s, Mb/s). For opportunities, 1500 bytes each in the bin they fall in (an
        opportunity exactly at a bin's end counts in the next bin)."""
        if not (bin_s > 0 and np.isfinite(bin_s)):
            raise ValueError(f"bin_s: is {bin_s}; allowed: seconds > 0")
        period = self.period_s
        n = max(1, int(np.ceil(period / bin_s - 1e-9)))
        starts = np.arange(n) * bin_s
        if self.kind == "opportunities":
            idx = np.minimum((self.times_ms / 1e3 / bin_s).astype(np.int64), n - 1)
            counts = np.bincount(idx, minlength=n)
            widths = np.minimum(starts + bin_s, period) - starts
            return starts, counts * OPPORTUNITY_IP_BYTES * 8 / widths / 1e6
        mids = np.minimum(starts + bin_s / 2, period)
        if self.interpolate == "linear":
            return starts, np.interp(mids, self.times_s, self.rates_mbps)
        pos = np.searchsorted(self.times_s, mids, side="right") - 1
        return starts, self.rates_mbps[np.clip(pos, 0, len(self.rates_mbps) - 1)]

    def mean_mbps(self) -> float:
        """The mean capacity over one period (Mb/s of IP packets)."""
        if self.kind == "opportunities":
            return len(self.times_ms) * OPPORTUNITY_IP_BYTES * 8 / self.period_s / 1e6
        t, r = self.times_s, self.rates_mbps
        if self.interpolate == "linear":
            return float(np.trapezoid(r, t) / t[-1])
        return float(np.sum(r[:-1] * np.diff(t)) / t[-1])

    def summary(self, bin_s: float = 0.1) -> dict[str, float]:
        """Mean capacity over the period, percentiles of the per-bin capacity, and the share
        of bins with no capacity at all (outages)."""
        _, mbps = self.rate(bin_s)
        return {
            "period_s": self.period_s,
            "mean_mbps": self.mean_mbps(),
            "p5_mbps": float(np.percentile(mbps, 5)),
            "p50_mbps": float(np.percentile(mbps, 50)),
            "p95_mbps": float(np.percentile(mbps, 95)),
            "outage_share": float(np.mean(mbps == 0)),
            "bin_s": bin_s,
            **({"opportunities": int(len(self.times_ms))} if self.kind == "opportunities" else {}),
        }

    def to_mahimahi(self) -> str:
        """The trace as a mahimahi file (one millisecond timestamp per line)."""
        if self.kind != "opportunities":
            raise ValueError("a rate series has no mahimahi form here; generate a model or load a mahimahi file")
        return "\n".join(map(str, self.times_ms.tolist())) + "\n"

    def plot(self, ax: Any = None, bin_s: float = 0.1, label: str | None = None) -> Any:
        """Capacity over one period as a step line (Mb/s); returns the axes."""
        import matplotlib.pyplot as plt  # noqa: PLC0415 - optional and slow

        if ax is None:
            _, ax = plt.subplots(figsize=(7, 2.6))
        t, mbps = self.rate(bin_s)
        ax.step(t, mbps, where="post", lw=0.9, label=label)
        ax.set_xlabel("time (s)")
        ax.set_ylabel(f"capacity (Mb/s, {bin_s:g} s bins)")
        ax.set_xlim(0, self.period_s)
        ax.set_ylim(bottom=0)
        return ax


def from_spec(spec: Mapping[str, Any] | str, seed: int = 1) -> Trace:
    """The trace a `capacity` table describes (a dict or its TOML text), as the core builds
    it; `seed` seeds a model without its own `seed`. Bad input raises `ScenarioError`
    (a `ValueError`) naming `capacity.FIELD`."""
    text = spec if isinstance(spec, str) else _table_text(spec)
    d = _core.capacity(text, seed)
    if d["kind"] == "opportunities":
        return Trace("opportunities", times_ms=np.asarray(d["times_ms"], dtype=np.int64))
    return Trace("rates", times_s=np.asarray(d["times_s"]), rates_mbps=np.asarray(d["rates_mbps"]), interpolate=d["interpolate"])


def load(path: str | os.PathLike[str], format: str = "mahimahi", interpolate: str = "step") -> Trace:
    """Read a trace file (`format` "mahimahi" or "csv"; `interpolate` for CSV)."""
    spec: dict[str, Any] = {"trace": os.fspath(Path(path)), "format": format}
    if format == "csv":
        spec["interpolate"] = interpolate
    return from_spec(spec)


def generate(spec: Mapping[str, Any] | str, seed: int = 1) -> Trace:
    """One period of a synthetic model (`{"model": "markov", ...}`; docs/traces.md)."""
    return from_spec(spec, seed)
