"""Figures fit for a paper: one style for every figure wtcp draws.

- One colour, marker and line style per algorithm (`algorithm_style`), the same in the
  demo, `Store.plot`, `Result.plot_cwnd` and the reproduced papers' figures. Colours are
  Paul Tol's colour-blind-safe "muted" scheme plus black for NewReno, the reference
  baseline. Nine colours cannot tell eighteen algorithms apart, so eight colours are worn
  by two algorithms each; the two never share a family panel of the demo nor a figure of
  the reproduced papers, and always differ in marker and line style.
- Axis labels with units (`quantity`, `axis_label`) for metric names (`goodput_mbps`,
  `cwnd`, `srtt`, ...) and for swept paths (`links.1.ab.loss.rate` -> "loss rate, link 1
  a→b (%)", a probability shown in percent).
- Legends outside the data, their entries in natural order (`natural_key`: numbers by
  value, algorithms in the family order of `FAMILIES`, other text with its digits read as
  numbers).
- Confidence intervals: 95 % Student-t over replications, computed by the result store's
  `summarize` (one rule for tables and figures), drawn only where there are at least two
  replications.
- Figures are `matplotlib.figure.Figure` objects on an Agg canvas: pyplot is never used,
  so nothing here touches pyplot's global figure state. `save` writes PNG, SVG (or both for
  a path without an image suffix); SVGs are reproducible (fixed ids, no date).

`Result.plot_sequence` draws sequence number against time from what the traces carry:
sampled sender and receiver state, and every drop, fast retransmit and timeout at its exact
time and sequence number. Results carry no per-segment send or ACK records, so it has no
mark per transmission (see docs/figures.md for what it shows and what the engine would have
to record).
"""

from __future__ import annotations

import math
import os
import re
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wtcp import families

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from wtcp.result import Result
    from wtcp.sweep.store import Store


class PlotError(ValueError):
    """A figure that cannot be drawn from the data given (a missing trace, an unknown
    metric or column, data that would mix different experiments in one point)."""


class NoTraceError(PlotError):
    """The run carries no traces, which the figure needs."""


# --- colours, markers and line styles -------------------------------------------------

BLACK = "#000000"
# Paul Tol, "muted" qualitative scheme (https://personal.sron.nl/~pault/#sec:qualitative):
# distinct for the common forms of colour blindness and on white.
ROSE, INDIGO, SAND, GREEN, CYAN = "#CC6677", "#332288", "#DDCC77", "#117733", "#88CCEE"
WINE, TEAL, OLIVE, PURPLE = "#882255", "#44AA99", "#999933", "#AA4499"
PALETTE = (INDIGO, ROSE, GREEN, SAND, CYAN, WINE, TEAL, OLIVE, PURPLE)
CONTEXT_GREY = "#C8C8C8"  # lines drawn for context (the demo's other algorithms)
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "<", ">", "h", "p", "*")
LINESTYLES = ("-", "--", "-.", ":")


@dataclass(frozen=True)
class Style:
    color: str
    marker: str
    linestyle: str

    def kwargs(self) -> dict[str, str]:
        return {"color": self.color, "marker": self.marker, "linestyle": self.linestyle}


# Families of the registered algorithms, in legend order (the demo's panels).
FAMILIES = families.FAMILIES

# Shared colours: reno/ewr, cubic/jersey, vegas/jtcp, veno/dynamic, bbr/acc,
# westwood/taichung, westwoodplus/njplus, prairie/clap, newjersey/c2tcp, newreno/copa
# (today's baselines: dotted). No pair appears together in a
# family above or in one of the papers' experiments (python/wtcp/papers/*/*.toml); each
# pair differs in marker and line style. The papers' schemes and NewReno are solid lines.
ALGORITHM_STYLES: dict[str, Style] = {
    "newreno": Style(BLACK, "o", "-"),
    "reno": Style(INDIGO, "s", "-."),
    "cubic": Style(OLIVE, "D", "-."),
    "vegas": Style(PURPLE, "^", ":"),
    "veno": Style(GREEN, "v", ":"),
    "bbr": Style(SAND, "P", ":"),
    "westwood": Style(TEAL, "<", "--"),
    "westwoodplus": Style(ROSE, ">", "--"),
    "jersey": Style(OLIVE, "h", "--"),
    "newjersey": Style(CYAN, "p", "--"),
    "prairie": Style(WINE, "*", "--"),
    "jtcp": Style(PURPLE, "X", "--"),
    "taichung": Style(TEAL, "o", "-"),
    "acc": Style(SAND, "s", "-"),
    "clap": Style(WINE, "D", "-"),
    "ewr": Style(INDIGO, "^", "-"),
    "njplus": Style(ROSE, "v", "-"),
    "dynamic": Style(GREEN, "P", "-"),
    "c2tcp": Style(CYAN, "d", ":"),
    "copa": Style(BLACK, "*", ":"),
}
ALGORITHM_ORDER: tuple[str, ...] = tuple(name for _, names in FAMILIES for name in names)
_RANK = {name: i for i, name in enumerate(ALGORITHM_ORDER)}


def algorithm_style(name: str) -> Style:
    """The style of an algorithm in every figure. A registered algorithm without an entry
    in `ALGORITHM_STYLES` (one added with `wtcp new-algorithm`) gets a combination of
    colour, marker and line style no other registered algorithm has; any other name one
    derived from its name. Either is the same in every figure."""
    style = ALGORITHM_STYLES.get(str(name))
    if style is not None:
        return style
    style = _registered_styles().get(str(name))
    if style is not None:
        return style
    return _hashed_style(str(name))


def _hashed_style(name: str) -> Style:
    h = zlib.crc32(name.encode("utf-8"))
    return Style(PALETTE[h % len(PALETTE)], MARKERS[(h // len(PALETTE)) % len(MARKERS)], ":")


_REGISTERED: tuple[tuple[str, ...], dict[str, Style]] | None = None


def _registered_styles() -> dict[str, Style]:
    """Styles of the registered algorithms missing from `ALGORITHM_STYLES`: each takes the
    first combination, from its name's hash on, that no built-in style and no algorithm
    before it (in name order) has, in a colour no other member of its family
    (`families.FAMILIES`) has. Recomputed when the set of algorithms changes (a class
    registered from Python)."""
    global _REGISTERED
    from wtcp import _core

    names = tuple(sorted(a["name"] for a in _core.algorithms() if a["name"] not in ALGORITHM_STYLES))
    if _REGISTERED is None or _REGISTERED[0] != names:
        combos = [Style(c, m, ls) for ls in ("--", ":", "-.", "-") for m in MARKERS for c in PALETTE]
        taken = set(ALGORITHM_STYLES.values())
        family_colours: dict[str, set[str]] = {}
        for name, style in ALGORITHM_STYLES.items():
            family_colours.setdefault(families.family_of(name), set()).add(style.color)
        styles: dict[str, Style] = {}
        for name in names:
            family = families.family_of(name)
            # A family that has every colour shares them (the marker still differs).
            full = set(PALETTE) <= family_colours.get(family, set())
            start = zlib.crc32(name.encode("utf-8")) % len(combos)
            for i in range(len(combos)):
                candidate = combos[(start + i) % len(combos)]
                if candidate not in taken and (full or candidate.color not in family_colours.get(family, ())):
                    styles[name] = candidate
                    taken.add(candidate)
                    family_colours.setdefault(family, set()).add(candidate.color)
                    break
        _REGISTERED = (names, styles)
    return _REGISTERED[1]


def algorithm_color(name: str) -> str:
    return algorithm_style(name).color


def is_algorithm(value: Any) -> bool:
    return isinstance(value, str) and value in ALGORITHM_STYLES


def series_styles(values: Iterable[Any], algorithms: bool | None = None) -> dict[Any, Style]:
    """A style per series value: the algorithm's own when the values are algorithm names
    (`algorithms=None`: when every value is a registered algorithm's name), otherwise the
    palette in the values' natural order."""
    values = sort_naturally(set(values))
    if algorithms is None:
        algorithms = bool(values) and all(is_algorithm(v) for v in values)
    if algorithms:
        return {v: algorithm_style(str(v)) for v in values}
    return {v: Style(PALETTE[i % len(PALETTE)], MARKERS[i % len(MARKERS)], LINESTYLES[(i // len(PALETTE)) % len(LINESTYLES)]) for i, v in enumerate(values)}


# --- natural order --------------------------------------------------------------------


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        import numpy as np

        if isinstance(value, np.bool_):
            return None
    except ImportError:  # pragma: no cover - numpy comes with pandas
        pass
    if isinstance(value, (int, float)) or type(value).__module__ == "numpy":
        try:
            return float(value)
        except (TypeError, ValueError):
            return None
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


_NUMBER_IN_TEXT = re.compile(r"(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)")


def natural_key(value: Any) -> tuple:
    """Sort key: numbers (and numeric text) by value first, then registered algorithms in
    `ALGORITHM_ORDER`, then other text with the numbers in it compared as numbers
    ("flow2" < "flow10", "3 / 0.005" < "3 / 0.04"); missing values (None, NaN) last."""
    if value is None:
        return (4, 0.0, ())
    number = _number(value)
    if number is not None:
        return (3 if math.isnan(number) else 0, 0.0 if math.isnan(number) else number, ())
    text = str(value)
    if text in _RANK:
        return (1, float(_RANK[text]), ())
    # Split's captured (odd) parts are the numbers, decimals and exponents whole: a joined
    # label "3 / 0.005" before "3 / 0.04".
    parts = _NUMBER_IN_TEXT.split(text)
    chunks = tuple((0, float(part), "") if i % 2 else (1, 0.0, part.lower()) for i, part in enumerate(parts) if part)
    return (2, 0.0, chunks)


def sort_naturally(values: Iterable[Any]) -> list[Any]:
    return sorted(values, key=natural_key)


def format_value(value: Any, scale: float = 1.0) -> str:
    """A legend or tick text: a number times `scale` in its shortest form ("1.5"), other
    values as text."""
    number = None if isinstance(value, str) else _number(value)
    return f"{number * scale:g}" if number is not None else str(value)


# --- labels with units ----------------------------------------------------------------


@dataclass(frozen=True)
class Quantity:
    """What an axis shows: `label` and `unit` of the plotted values, which are the data's
    values times `scale` (bytes -> kB: 1e-3; a probability -> %: 100)."""

    label: str
    unit: str = ""
    scale: float = 1.0

    @property
    def axis_label(self) -> str:
        return f"{self.label} ({self.unit})" if self.unit else self.label


# Metric and column names of results, stores and traces.
METRICS: dict[str, Quantity] = {
    "goodput_mbps": Quantity("goodput", "Mb/s"),
    "goodput_kbps": Quantity("goodput", "kb/s"),
    "goodput_bps": Quantity("goodput", "Mb/s", 1e-6),
    "throughput_mbps": Quantity("throughput", "Mb/s"),
    "throughput_bps": Quantity("throughput", "Mb/s", 1e-6),
    "delivered_bytes": Quantity("data delivered", "MB", 1e-6),
    "segments_sent": Quantity("segments sent", "segments"),
    "retransmitted_segments": Quantity("retransmitted segments", "segments"),
    "unnecessary_retransmissions": Quantity("unnecessary retransmissions", "segments"),
    "retransmission_pct": Quantity("retransmissions", "% of segments sent"),
    "fast_retransmits": Quantity("fast retransmits", "per flow"),
    "timeouts": Quantity("retransmission timeouts", "per flow"),
    "loss_events": Quantity("loss events (fast retransmits + timeouts)", "per flow"),
    "congestion_loss_events": Quantity("congestion loss events", "per flow"),
    "wireless_loss_events": Quantity("wireless loss events", "per flow"),
    "max_backoff": Quantity("largest RTO backoff", "doublings"),
    "packets_received": Quantity("packets received", "packets"),
    "mean_srtt_s": Quantity("mean smoothed RTT", "ms", 1e3),
    "delay_mean_ms": Quantity("mean one-way delay", "ms"),
    "delay_p50_ms": Quantity("median one-way delay", "ms"),
    "delay_p95_ms": Quantity("95th percentile one-way delay", "ms"),
    "delay_p99_ms": Quantity("99th percentile one-way delay", "ms"),
    "rtt_p50_ms": Quantity("median RTT sample", "ms"),
    "rtt_p95_ms": Quantity("95th percentile RTT sample", "ms"),
    "rtt_p99_ms": Quantity("99th percentile RTT sample", "ms"),
    "fct_s": Quantity("flow completion time", "s"),
    "handshake_s": Quantity("handshake time", "s"),
    "jain_fairness": Quantity("Jain's fairness index", "0 to 1"),
    "events": Quantity("simulator events", "events"),
    "sim_seconds": Quantity("simulated time", "s"),
    "wall_seconds": Quantity("wall-clock time", "s"),
    "peak_packets": Quantity("peak packets in the network", "packets"),
    # traces
    "time": Quantity("time", "s"),
    "cwnd": Quantity("cwnd", "kB", 1e-3),
    "cwnd_base": Quantity("base cwnd", "kB", 1e-3),
    "ssthresh": Quantity("ssthresh", "kB", 1e-3),
    "srtt": Quantity("smoothed RTT", "ms", 1e3),
    "rtt": Quantity("RTT sample", "ms", 1e3),
    "rto": Quantity("RTO", "s"),
    "snd_una": Quantity("SND.UNA", "kB", 1e-3),
    "snd_nxt": Quantity("SND.NXT", "kB", 1e-3),
    "snd_max": Quantity("SND.MAX", "kB", 1e-3),
    "delivered": Quantity("delivered (RCV.NXT)", "kB", 1e-3),
    "packets": Quantity("queue length", "packets"),
    "bytes": Quantity("queue length", "kB", 1e-3),
    # series
    "algorithm": Quantity("algorithm"),
    "cc": Quantity("algorithm"),
    "name": Quantity("flow"),
    "flow": Quantity("flow"),
    "engine": Quantity("engine"),
}

# The last key of a swept path: (label, unit, scale).
FIELDS: dict[str, tuple[str, str, float]] = {
    "rate": ("loss rate", "%", 100.0),  # links.N.ab.loss.rate: a probability
    "ber": ("bit error rate", "", 1.0),
    "p_good_to_bad": ("P(good→bad)", "%", 100.0),
    "p_bad_to_good": ("P(bad→good)", "%", 100.0),
    "loss_good": ("loss in the good state", "%", 100.0),
    "loss_bad": ("loss in the bad state", "%", 100.0),
    "max_p": ("RED max_p", "%", 100.0),
    "rate_mbps": ("rate", "Mb/s", 1.0),
    "data_rate_mbps": ("data rate", "Mb/s", 1.0),
    "basic_rate_mbps": ("basic rate", "Mb/s", 1.0),
    "delay_ms": ("one-way delay", "ms", 1.0),
    "extra_delay_ms": ("extra delay", "ms", 1.0),
    "limit_packets": ("queue limit", "packets", 1.0),
    "limit_bytes": ("queue limit", "kB", 1e-3),
    "count_per_200s": ("outages", "per 200 s", 1.0),
    "count": ("number of flows", "", 1.0),
    "mss_bytes": ("MSS", "bytes", 1.0),
    "recv_buffer_bytes": ("receive buffer", "kB", 1e-3),
    "send_buffer_bytes": ("send buffer", "kB", 1e-3),
    "initial_cwnd_segments": ("initial cwnd", "segments", 1.0),
    "initial_ssthresh_segments": ("initial ssthresh", "segments", 1.0),
    "rts_threshold_bytes": ("RTS threshold", "bytes", 1.0),
    "duration_s": ("duration", "s", 1.0),
    "delayed_ack": ("delayed ACKs", "", 1.0),
}
SUFFIX_UNITS = (("_mbps", "Mb/s"), ("_kbps", "kb/s"), ("_bps", "b/s"), ("_ms", "ms"), ("_s", "s"), ("_bytes", "bytes"),
                ("_packets", "packets"), ("_segments", "segments"), ("_m", "m"), ("_pct", "%"))
# Parameter units of `wtcp algorithms` that are units (not enumerations or kinds).
PARAM_UNITS = {"segments", "ms", "s", "m", "%", "bytes", "RTTs", "ACKs", "rounds", "segments/s^3"}


def _from_suffix(key: str) -> tuple[str, str]:
    for suffix, unit in SUFFIX_UNITS:
        if key.endswith(suffix) and len(key) > len(suffix):
            return key[: -len(suffix)].replace("_", " "), unit
    return key.replace("_", " "), ""


def _entry(document: Mapping[str, Any] | None, section: str, index: int) -> Mapping[str, Any]:
    if not document:
        return {}
    items = document.get(section)
    if isinstance(items, list) and 0 <= index < len(items) and isinstance(items[index], Mapping):
        return items[index]
    return {}


def _param_unit(name: str, algorithm: str | None) -> str:
    from wtcp import _core

    units = {p["unit"] for a in _core.algorithms() if algorithm in (None, a["name"]) for p in a["params"] if p["name"] == name}
    return units.pop() if len(units) == 1 and next(iter(units)) in PARAM_UNITS else ""


def path_quantity(path: str, scenario: Mapping[str, Any] | None = None) -> Quantity:
    """The label of a swept path: the field, then where it is. With the scenario document
    links and flows are named: "loss rate, wireless link BS→D (%)"; without it by index:
    "loss rate, link 1 a→b (%)"."""
    parts = path.split(".")
    where: list[str] = []
    leaf = parts[-1]
    i = 0
    if len(parts) >= 2 and parts[0] in ("links", "flows", "wifi", "nodes") and parts[1].isdigit():
        index = int(parts[1])
        entry = _entry(scenario, parts[0], index)
        noun = {"links": "link", "flows": "flow", "wifi": "Wi-Fi channel", "nodes": "node"}[parts[0]]
        name = entry.get("name")
        where.append(f"{name} link" if parts[0] == "links" and name is not None else f"{noun} {index if name is None else name}")
        i = 2
        if parts[0] == "links" and len(parts) > 2 and parts[2] in ("ab", "ba"):
            a, b = (str(entry.get("a", "a")), str(entry.get("b", "b")))
            where.append(f"{a}→{b}" if parts[2] == "ab" else f"{b}→{a}")
            i = 3
        if parts[0] == "flows" and len(parts) > i + 1 and parts[i] == "cc_params":
            algorithm = entry.get("cc") if entry else None
            unit = _param_unit(leaf, algorithm)
            what = f"{algorithm} {leaf}" if algorithm else f"cc parameter {leaf}"
            return Quantity(f"{what}, {' '.join(where)}", unit)
    elif parts[0] == "tcp":
        where.append("TCP")
        i = 1
    middle = [p for p in parts[i:-1] if not p.isdigit() and p not in ("loss", "ab", "ba")]
    if leaf in FIELDS:
        label, unit, scale = FIELDS[leaf]
    else:
        label, unit = _from_suffix(leaf)
        scale = 1.0
    if middle and leaf not in FIELDS:
        label = f"{' '.join(m.replace('_', ' ') for m in middle)} {label}"
    if leaf == "count" and parts[0] == "flows":
        return Quantity(f"number of flows, {' '.join(where)}")
    context = " ".join(where)
    if parts[0] == "tcp" and context:
        return Quantity(f"TCP {label}", unit, scale)
    return Quantity(f"{label}, {context}" if context else label, unit, scale)


def quantity(name: str, scenario: Mapping[str, Any] | None = None) -> Quantity:
    """Label, unit and scale of a metric or column name (`goodput_mbps`, `cwnd`, `srtt`,
    `algorithm`) or a swept path (`links.1.ab.loss.rate`)."""
    if name in METRICS:
        return METRICS[name]
    if "." in name:
        return path_quantity(name, scenario)
    label, unit = _from_suffix(name)
    return Quantity(label, unit)


def axis_label(name: str, scenario: Mapping[str, Any] | None = None) -> str:
    """"goodput (Mb/s)" for `goodput_mbps`, "loss rate, link 1 a→b (%)" for
    `links.1.ab.loss.rate`, ..."""
    return quantity(name, scenario).axis_label


# --- figures and files ----------------------------------------------------------------

DPI = 200
FONT_SIZE = 9


def new_figure(width: float = 6.4, height: float = 4.0) -> Figure:
    """A Figure on its own Agg canvas (no pyplot), laid out by constrained layout so that
    legends outside the axes are kept inside the figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def style_axes(ax: Axes, grid: str = "both") -> None:
    """The house style of an axes: light grid behind the data, no top/right frame."""
    ax.grid(True, axis=grid, color="#E0E0E0", linewidth=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(labelsize=FONT_SIZE - 1)
    ax.xaxis.label.set_size(FONT_SIZE)
    ax.yaxis.label.set_size(FONT_SIZE)


def legend_outside(ax: Axes, title: str | None = None, handles: Sequence[Any] | None = None, labels: Sequence[str] | None = None, fontsize: float = FONT_SIZE - 1):
    """A legend to the right of the axes, outside the data, entries as given (callers
    draw series in natural order)."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    return ax.legend(handles, labels, title=title, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                     frameon=False, fontsize=fontsize, title_fontsize=fontsize, alignment="left")


IMAGE_SUFFIXES = (".png", ".svg", ".pdf", ".eps", ".ps", ".jpg", ".jpeg", ".tif", ".tiff", ".webp")


def output_paths(path: str | os.PathLike[str]) -> list[Path]:
    """The files `save` writes for `path`: itself when it ends in an image suffix (.png,
    .svg, .pdf, ...), otherwise `path` as a stem: `<path>.png` and `<path>.svg`."""
    p = Path(path)
    if p.suffix.lower() in IMAGE_SUFFIXES:
        return [p]
    return [p.with_name(p.name + ".png"), p.with_name(p.name + ".svg")]


def save(fig: Figure, path: str | os.PathLike[str], dpi: int = DPI) -> list[Path]:
    """Write `fig` to `path` (see `output_paths`); returns the files written. SVGs keep
    their text as text and are byte-for-byte reproducible (fixed ids, no date)."""
    import matplotlib

    written = []
    for target in output_paths(path):
        target.parent.mkdir(parents=True, exist_ok=True)
        fmt = target.suffix.lower().lstrip(".")
        if fmt == "svg":
            # Read when the SVG is written; restored on return.
            with matplotlib.rc_context({"svg.hashsalt": "wtcp", "svg.fonttype": "none"}):
                fig.savefig(target, format="svg", metadata={"Date": None})
        else:
            fig.savefig(target, dpi=dpi)
        written.append(target)
    return written


# --- confidence intervals -------------------------------------------------------------


def has_interval(frame: pd.DataFrame) -> pd.Series:
    """Rows of a `summarize` table whose interval can be drawn: two or more replications."""
    return (frame["n"] >= 2) & frame["ci_low"].notna() & frame["ci_high"].notna()


def draw_series(ax: Axes, x: Sequence[float], summary: pd.DataFrame, style: Style, label: str, ci: str = "band", y_scale: float = 1.0, **line: Any) -> None:
    """One series of a `summarize` table (sorted by x): the mean as a line with markers
    and the 95 % interval as a band (`ci="band"`) or error bars (`"bars"`) where there
    are two or more replications (`ci=None`: no interval). Interval artists carry
    gid "ci-band" / "ci-bars"."""
    import numpy as np

    xs = np.asarray(x, dtype=float)
    mean = summary["mean"].to_numpy(dtype=float) * y_scale
    kwargs = {**style.kwargs(), "linewidth": 1.5, "markersize": 5, **line}
    ax.plot(xs, mean, label=label, **kwargs)
    if ci is None:
        return
    ok = has_interval(summary).to_numpy()
    if not ok.any():
        return
    low = summary["ci_low"].to_numpy(dtype=float) * y_scale
    high = summary["ci_high"].to_numpy(dtype=float) * y_scale
    if ci == "band":
        band = ax.fill_between(xs, np.where(ok, low, mean), np.where(ok, high, mean), where=ok, color=style.color, alpha=0.18, linewidth=0, interpolate=False)
        band.set_gid("ci-band")
    elif ci == "bars":
        bars = ax.errorbar(xs[ok], mean[ok], yerr=[mean[ok] - low[ok], high[ok] - mean[ok]], fmt="none", ecolor=style.color, elinewidth=1.0, capsize=3)
        for artist in bars.lines[2]:
            artist.set_gid("ci-bars")
    else:
        raise PlotError(f"ci is {ci!r}; allowed: 'band', 'bars' or None")


def interval_note(summary: pd.DataFrame, ci: str | None, unit: str = "replication") -> str:
    """How the points were computed, for a legend title: "mean, 95 % CI (Student t),
    n = 3" (`unit`: what n counts, "replication" or "seed")."""
    ns = sorted({int(n) for n in summary["n"]}) if len(summary) else [0]
    n = f"{ns[0]}" if len(ns) == 1 else f"{ns[0]}–{ns[-1]}"
    if ci is None or max(ns) < 2:
        return f"mean of n = {n} {unit}{'s' if ns[-1] != 1 else ''}"
    return f"mean, 95 % CI (Student t), n = {n} {unit}s"


# --- Result.plot_cwnd -----------------------------------------------------------------

NO_TRACE = ("this run has no traces, which the {figure} needs: run it with tracing on, "
            "`scenario.run(seed=..., trace=True)` (or `trace_interval_ms=...`), set `[trace] enabled = true` "
            "in the scenario, or use `wtcp run FILE --trace DIR`; ns-3 runs (engine=\"ns3\") record no traces")


def flow_ids(result: Result, flows: int | str | Sequence[int | str] | None) -> list[int]:
    """Flow ids of `flows` (ids or names; None: every flow with a trace)."""
    traced = sorted(int(f) for f in result.traces.flows["flow"].unique())
    if flows is None:
        return traced
    info = result.flows
    by_name = {str(n): int(i) for i, n in zip(info["id"], info["name"])}
    wanted = [flows] if isinstance(flows, (int, str)) else list(flows)
    out = []
    for f in wanted:
        fid = by_name.get(f) if isinstance(f, str) else int(f)
        if fid is None or fid not in traced:
            have = ", ".join(f"{i} ({n})" for i, n in zip(info["id"], info["name"]) if int(i) in traced)
            raise PlotError(f"no traced flow {f!r}; traced flows (id and name): {have}")
        out.append(fid)
    return out


def flow_panels(result: Result, trace: pd.DataFrame, ids: Sequence[int], width: float, per_panel: float) -> tuple[Figure, list[tuple[Axes, int, pd.DataFrame, str, str]]]:
    """A figure with one panel per flow, sharing the time axis, and for each panel its
    flow id, trace rows, algorithm and name."""
    info = result.flows.set_index("id")
    fig = new_figure(width, 1.3 + per_panel * len(ids))
    axes = fig.subplots(len(ids), 1, sharex=True, squeeze=False)[:, 0]
    panels = []
    for ax, fid in zip(axes, ids):
        cc = str(info.loc[fid, "cc"]) if fid in info.index else "?"
        name = str(info.loc[fid, "name"]) if fid in info.index else str(fid)
        panels.append((ax, fid, trace[trace["flow"] == fid], cc, name))
    return fig, panels


def plot_cwnd(result: Result, path: str | os.PathLike[str] | None = None, flows: int | str | Sequence[int | str] | None = None,
              mss_bytes: int | None = None, losses: bool = True) -> Figure:
    """cwnd (solid) and ssthresh (dashed) against time, one panel per flow, in the colour
    of the flow's algorithm; fast retransmits (▼) and timeouts (✕) marked along the top
    (`losses`). In kB, or in segments with `mss_bytes`. Before the first loss ssthresh is
    infinite and not drawn. Writes `path` (see `save`) when given."""
    import numpy as np

    if result.traces is None:
        raise NoTraceError(NO_TRACE.format(figure="cwnd figure"))
    ids = flow_ids(result, flows)
    if not ids:
        raise NoTraceError("the run's traces hold no TCP flow")
    trace = result.traces.flows
    loss_table = result.traces.losses if losses else None
    scale = 1.0 / mss_bytes if mss_bytes else 1e-3
    unit = "segments" if mss_bytes else "kB"
    fig, panels = flow_panels(result, trace, ids, 7.0, 1.9)
    for ax, fid, rows, cc, name in panels:
        style = algorithm_style(cc)
        t = rows["time"].to_numpy(dtype=float)
        for column, linestyle, width in (("cwnd", "-", 1.3), ("ssthresh", "--", 1.0)):
            y = rows[column].to_numpy(dtype=float) * scale
            y = np.where(np.isfinite(y), y, np.nan)
            ax.plot(t, y, color=style.color, linestyle=linestyle, linewidth=width, label=column, drawstyle="steps-post")
        if loss_table is not None and len(loss_table):
            mine = loss_table[loss_table["flow"] == fid]
            transform = ax.get_xaxis_transform()
            for timeout, marker, label in ((False, "v", "fast retransmit"), (True, "x", "timeout")):
                times = mine.loc[mine["timeout"] == timeout, "time"].to_numpy(dtype=float)
                if len(times):
                    ax.plot(times, np.full(len(times), 1.0), linestyle="none", marker=marker, markersize=4, color="#555555",
                            transform=transform, clip_on=False, label=label)
        ax.set_ylim(bottom=0)
        ax.set_title(f"{name} ({cc})", fontsize=FONT_SIZE, loc="left")
        ax.set_ylabel(f"window ({unit})")
        style_axes(ax)
        legend_outside(ax)
    panels[-1][0].set_xlabel(axis_label("time"))
    if path is not None:
        save(fig, path)
    return fig


# --- Result.plot_sequence -------------------------------------------------------------

# Ground-truth loss causes (`Traces.losses.cause`) in the colours of the papers' cause bars.
CAUSE_COLORS = {"congestion": ROSE, "wireless": INDIGO, "spurious": "#999999"}
# Drop causes (`Traces.drops.cause`): the loss cause each one is (metrics.rs: a channel
# error or an outage is a wireless loss, a queue overflow a congestion loss) and a marker.
DROP_MARKS = {"queue": ("congestion", "o"), "channel": ("wireless", "o"), "outage": ("wireless", "s")}
DETECTIONS = ((False, "fast retransmit", "v"), (True, "timeout", "x"))
# The sampled sender and receiver state (`Traces.flows`): column, label, line style, width.
SEQUENCE_LINES = (("snd_max", "highest sent (SND.MAX)", "-", 1.4),
                  ("snd_nxt", "resending below it (SND.NXT)", "-", 0.8),
                  ("snd_una", "acknowledged (SND.UNA)", "--", 1.0),
                  ("delivered", "received in order (RCV.NXT)", ":", 1.0))


def time_window(result: Result, from_s: float | None, until_s: float | None) -> tuple[float, float]:
    """The window [from_s, until_s] in seconds, checked; None: the trace's first or last
    sample."""
    times = result.traces.flows["time"]
    bounds = []
    for name, value, default in (("from_s", from_s, float(times.min())), ("until_s", until_s, float(times.max()))):
        if value is None:
            bounds.append(default)
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise PlotError(f"{name} is {value!r}; allowed: a time in seconds, a finite number >= 0 (or None for the whole trace)")
        bounds.append(float(value))
    since, until = bounds
    if since >= until:
        raise PlotError(f"empty time window: from_s = {since:g} s is not before until_s = {until:g} s")
    return since, until


def in_window(frame: pd.DataFrame, since: float, until: float) -> pd.DataFrame:
    return frame[(frame["time"] >= since) & (frame["time"] <= until)]


def plot_sequence(result: Result, path: str | os.PathLike[str] | None = None, flows: int | str | Sequence[int | str] | None = None,
                  from_s: float | None = None, until_s: float | None = None, mss_bytes: int | None = None) -> Figure:
    """Sequence number against time, one panel per flow, from the run's traces:

    - lines, sampled every `trace.interval_ms` (steps): the highest sequence sent
      (SND.MAX, solid, the colour of the flow's algorithm), SND.NXT where it is below
      SND.MAX (go-back-N after a timeout), the cumulative ACK (SND.UNA, dashed) and the
      receiver's next expected byte (RCV.NXT, dotted);
    - exact events: every dropped data segment (○, □ for an outage) at its time and
      sequence number, coloured by its cause; every fast retransmit (▼) and timeout (✕)
      at the time the sender detected it and the segment it retransmitted (SND.UNA),
      coloured by the loss's true cause; dropped ACKs (|) along the bottom, at their time.

    `flows`: ids or names (None: every traced flow); `from_s`, `until_s`: the time window
    in seconds, both ends included. Sequence numbers in kB, or in segments with
    `mss_bytes`. Marker artists carry gids (`drop-<cause>`, `fast-retransmit-<cause>`,
    `timeout-<cause>`, `ack-drop`) and legend entries their counts."""
    import numpy as np

    if result.traces is None:
        raise NoTraceError(NO_TRACE.format(figure="time-sequence figure"))
    ids = flow_ids(result, flows)
    if not ids:
        raise NoTraceError("the run's traces hold no TCP flow")
    if mss_bytes is not None and (isinstance(mss_bytes, bool) or not isinstance(mss_bytes, int) or mss_bytes <= 0):
        raise PlotError(f"mss_bytes is {mss_bytes!r}; allowed: a positive integer (bytes per segment) or None for kB")
    since, until = time_window(result, from_s, until_s)
    trace = in_window(result.traces.flows, since, until)
    trace = trace[trace["flow"].isin(ids)]
    if trace.empty:
        times = result.traces.flows["time"]
        raise PlotError(f"empty time window: no trace sample of flow(s) {', '.join(map(str, ids))} between {since:g} s and {until:g} s; "
                        f"the trace runs from {times.min():g} s to {times.max():g} s")
    losses = in_window(result.traces.losses, since, until)
    drops = in_window(result.traces.drops, since, until)
    scale = 1.0 / mss_bytes if mss_bytes else 1e-3
    unit = "segments" if mss_bytes else "kB"
    fig, panels = flow_panels(result, trace, ids, 7.6, 2.3)
    for ax, fid, rows, cc, name in panels:
        color = algorithm_style(cc).color
        t = rows["time"].to_numpy(dtype=float)
        for column, label, linestyle, width in SEQUENCE_LINES:
            y = rows[column].to_numpy(dtype=float) * scale
            if column == "snd_nxt":
                below = rows["snd_nxt"].to_numpy() < rows["snd_max"].to_numpy()
                # Keep the sample before and after a stretch below SND.MAX, so it joins the line.
                keep = below | np.r_[below[1:], False] | np.r_[False, below[:-1]]
                if not below.any():
                    continue
                y = np.where(keep, y, np.nan)
            ax.plot(t, y, color=color, linestyle=linestyle, linewidth=width, drawstyle="steps-post", label=label, gid=column,
                    alpha=0.7 if column == "snd_nxt" else 1.0)
        mine = drops[drops["flow"] == fid]
        data = mine[mine["kind"] == "data"]
        for cause, (loss_cause, marker) in DROP_MARKS.items():
            part = data[data["cause"] == cause]
            if len(part):
                ax.plot(part["time"].to_numpy(dtype=float), part["seq"].to_numpy(dtype=float) * scale, linestyle="none", marker=marker,
                        markersize=5, markerfacecolor="none", markeredgewidth=0.9, color=CAUSE_COLORS[loss_cause],
                        label=f"dropped: {cause} ({len(part)})", gid=f"drop-{cause}")
        detected = losses[losses["flow"] == fid]
        for timeout, what, marker in DETECTIONS:
            for cause, cause_color in CAUSE_COLORS.items():
                part = detected[(detected["timeout"] == timeout) & (detected["cause"] == cause)]
                if len(part):
                    ax.plot(part["time"].to_numpy(dtype=float), part["seq"].to_numpy(dtype=float) * scale, linestyle="none", marker=marker,
                            markersize=5 if timeout else 4, markeredgewidth=1.3 if timeout else 0.5, color=cause_color,
                            label=f"{what}, {cause} ({len(part)})", gid=f"{what.replace(' ', '-')}-{cause}")
        acks = mine[mine["kind"] == "ack"]
        if len(acks):
            # The drops table records no ACK number (seq is 0 for an ACK): time only.
            ax.plot(acks["time"].to_numpy(dtype=float), np.zeros(len(acks)), linestyle="none", marker="|", markersize=6, color="#555555",
                    transform=ax.get_xaxis_transform(), clip_on=False, label=f"ACK dropped ({len(acks)})", gid="ack-drop")
        ax.set_xlim(since, until)
        ax.set_title(f"{name} ({cc})", fontsize=FONT_SIZE, loc="left")
        ax.set_ylabel(f"sequence number ({unit})")
        style_axes(ax)
        legend_outside(ax)
    panels[-1][0].set_xlabel(axis_label("time"))
    if path is not None:
        save(fig, path)
    return fig


# --- Store.plot -----------------------------------------------------------------------

RUN_SELECT = ("sweep", "engine", "algorithm")


def _column(frame: pd.DataFrame, name: str, what: str, extra: Iterable[str] = ()) -> str:
    from wtcp.sweep.store import param_column

    aliases = {"flow": "name"}
    for candidate in (aliases.get(name, name), param_column(name)):
        if candidate in frame.columns:
            return candidate
    choices = ", ".join(sort_naturally({*extra, "algorithm", "cc", "flow", "engine", "sweep"}))
    raise PlotError(f"{what} {name!r} is neither a column nor a swept path of this store; allowed: {choices}")


def _is_numeric(values: pd.Series) -> bool:
    return len(values) > 0 and all(_number(v) is not None and not isinstance(v, str) for v in values)


def _paths_of(frame: pd.DataFrame) -> dict[str, str]:
    """Swept-path column -> path, from the runs' `params` (JSON of path -> value)."""
    import json

    from wtcp.sweep.store import param_column

    paths: dict[str, str] = {}
    for text in frame["params"].dropna().unique() if "params" in frame.columns else ():
        try:
            for path in json.loads(text):
                paths[param_column(path)] = path
        except (ValueError, TypeError):
            continue
    return paths


def _scenario_of(store: Store, sweeps: Iterable[str]) -> dict[str, Any] | None:
    import tomllib

    defs = store.definitions()
    names = [s for s in sweeps if s in defs]
    if len(names) != 1:
        return None
    try:
        return tomllib.loads(defs[names[0]]["scenario"])
    except (tomllib.TOMLDecodeError, KeyError, TypeError):
        return None


def store_frame(store: Store, y: str, sweep: str | None = None) -> tuple[pd.DataFrame, bool]:
    """The store's flows (done runs) with the derived metrics (`goodput_mbps`, ...) and,
    for a `runs` metric, that column; whether `y` is a per-run metric."""
    from wtcp.reproduce.measure import with_derived

    frame = store.flows(sweep)
    if frame.empty:
        names = ", ".join(store.sweeps()["sweep"].astype(str))
        raise PlotError(f"{store.path}: no finished runs{f' of sweep {sweep!r}' if sweep else ''} to plot; sweeps in the store: {names or 'none'}")
    import pandas as pd

    frame = with_derived(frame)
    runs = store.runs(sweep)
    if y in frame.columns and pd.api.types.is_numeric_dtype(frame[y]):
        return frame, False
    if y in runs.columns and y not in frame.columns and pd.api.types.is_numeric_dtype(runs[y]):
        return frame.merge(runs[["key", y]], on="key", how="left"), True
    skip = {"key", "flow_id", "id", "src", "dst", "replication", "seed", "stream", *store.param_columns()}
    numeric = {c for table in (frame, runs) for c in table.columns if c not in skip and pd.api.types.is_numeric_dtype(table[c])}
    raise PlotError(f"no metric {y!r} in the store; allowed: {', '.join(sorted(numeric))}")


def store_summary(store: Store, x: str, y: str, hue: str | None = "cc", sweep: str | None = None, where: Mapping[str, Any] | None = None,
                  kind: str | None = "tcp", flows: str = "mean") -> tuple[pd.DataFrame, str, str | None, dict[str, Any]]:
    """The numbers `plot_store` draws: one value per run (the run's flows of one `hue`
    value aggregated by `flows`: mean or sum), then the store's `summarize` over
    replications at every (x, hue). Returns (summary, x column, hue column, context)."""
    import pandas as pd

    from wtcp.reproduce.measure import select
    from wtcp.sweep.store import summarize

    if flows not in ("mean", "sum"):
        raise PlotError(f"flows is {flows!r}; allowed: 'mean' (of a run's flows) or 'sum'")
    frame, run_level = store_frame(store, y, sweep)
    if kind is not None and "kind" in frame.columns:
        frame = frame[frame["kind"] == kind]
    if where:
        try:
            frame = select(frame, where)
        except KeyError as e:
            raise PlotError(f"where: {e.args[0]}") from None
    paths = _paths_of(frame)
    x_col = _column(frame, x, "x", paths.values())
    hue_col = _column(frame, hue, "hue", paths.values()) if hue else None
    if hue_col == x_col:
        hue_col = None
    frame = frame[frame[x_col].notna()]
    if hue_col:
        frame = frame[frame[hue_col].notna()]
    if frame.empty:
        raise PlotError(f"no flows to plot (kind={kind!r}, where={dict(where or {})!r})")
    groups = ["key", x_col] + ([hue_col] if hue_col else [])
    if run_level and hue_col:
        hues = frame.groupby("key")[hue_col].nunique()
        if (hues > 1).any():
            raise PlotError(f"{y} is one value per run, but runs hold flows of several {hue} values; use hue='algorithm' (or a swept path)")
    per_run = frame.groupby(groups, sort=False, dropna=False).agg(value=(y, "first" if run_level else flows), replication=("replication", "first")).reset_index()
    # Every point must be one run per replication: anything else mixes experiments.
    point = [x_col] + ([hue_col] if hue_col else []) + ["replication"]
    clash = per_run[per_run.duplicated(point, keep=False)]
    if len(clash):
        runs = frame[frame["key"].isin(clash["key"])]
        candidates = [c for c in (*RUN_SELECT, *paths) if c in runs.columns and c not in (x_col, hue_col)]
        varying = [c for c in candidates if runs.groupby(point, dropna=False)[c].nunique(dropna=False).max() > 1]
        names = [paths.get(c, c) for c in varying] or ["(a column this figure does not show)"]
        raise PlotError(f"several runs per replication at one point of the figure: they differ in {', '.join(names)}; "
                        f"choose one with where={{...}} (or sweep=...), or show it as x or hue")
    summary = summarize(per_run.rename(columns={"value": y}), y, [x_col] + ([hue_col] if hue_col else []))
    context = {"paths": paths, "scenario": _scenario_of(store, frame["sweep"].unique()) if "sweep" in frame.columns else None}
    if not hue_col:
        summary = summary.assign(**{"_series": ""})
    return pd.DataFrame(summary), x_col, hue_col, context


def plot_store(store: Store, x: str, y: str, hue: str | None = "cc", path: str | os.PathLike[str] | None = None, *,
               sweep: str | None = None, where: Mapping[str, Any] | None = None, kind: str | None = "tcp", flows: str = "mean",
               ci: str | None = "band", title: str | None = None) -> Figure:
    """`y` against `x` over a result store, one series per `hue` value: the mean over
    replications with its 95 % Student-t interval (`ci`: "band", "bars" or None), drawn
    only where there are two or more replications. See `Store.plot`."""
    import numpy as np

    if ci not in ("band", "bars", None):
        raise PlotError(f"ci is {ci!r}; allowed: 'band', 'bars' or None")
    summary, x_col, hue_col, context = store_summary(store, x, y, hue, sweep, where, kind, flows)
    scenario = context["scenario"]
    x_name = context["paths"].get(x_col, x)
    x_q = quantity(x_name, scenario)
    y_q = quantity(y)
    series_col = hue_col or "_series"
    values = sort_naturally(summary[series_col].unique())
    styles = series_styles(values, algorithms=True if hue_col in ("cc", "algorithm") else None)
    hue_q = quantity(context["paths"].get(hue_col, hue), scenario) if hue_col else None
    labels = {v: format_value(v, hue_q.scale) if hue_q else y_q.label for v in values}
    fig = new_figure(6.4, 4.0)
    ax = fig.add_subplot()
    numeric = _is_numeric(summary[x_col])
    if numeric:
        for value in values:
            part = summary[summary[series_col] == value].copy()
            part["_x"] = part[x_col].astype(float)
            part = part.sort_values("_x")
            draw_series(ax, part["_x"] * x_q.scale, part, styles[value], labels[value], ci, y_q.scale)
        ax.set_xlabel(x_q.axis_label)
    else:
        categories = sort_naturally(summary[x_col].unique())
        position = {c: i for i, c in enumerate(categories)}
        if hue_col is None and x_col in ("algorithm", "cc"):
            # One point per algorithm, each in its own style; the ticks name them.
            for c in categories:
                part = summary[summary[x_col] == c]
                draw_series(ax, [position[c]], part, algorithm_style(str(c)), "_nolegend_", "bars" if ci else None, y_q.scale, linestyle="none")
        else:
            width = 0.7 / max(1, len(values))
            for j, value in enumerate(values):
                part = summary[summary[series_col] == value]
                xs = np.array([position[c] for c in part[x_col]], dtype=float) + (j - (len(values) - 1) / 2) * width
                order = np.argsort(xs)
                draw_series(ax, xs[order], part.iloc[order], styles[value], labels[value], "bars" if ci else None, y_q.scale, linestyle="none")
        rotate = len(categories) > 4
        ax.set_xticks(range(len(categories)), [str(c) for c in categories], rotation=30 if rotate else 0, ha="right" if rotate else "center")
        ax.set_xlim(-0.6, len(categories) - 0.4)
        ax.set_xlabel(x_q.label)
    ax.set_ylabel(y_q.axis_label)
    if np.nanmin(summary["mean"].to_numpy(dtype=float)) >= 0:
        ax.set_ylim(bottom=0)
    style_axes(ax)
    note = interval_note(summary, ci)
    if legend_outside(ax, title=f"{hue_q.axis_label if hue_q else ''}\n{note}".strip()) is None:
        ax.set_title(note, fontsize=FONT_SIZE - 1, loc="right", color="#555555")
    if title:
        ax.set_title(title, fontsize=FONT_SIZE + 1)
    if path is not None:
        save(fig, path)
    return fig


def plot_delay_throughput(store: Store, path: str | os.PathLike[str] | None = None, *, sweep: str | None = None,
                          where: Mapping[str, Any] | None = None, delay: str = "delay_p95_ms", throughput: str = "goodput_mbps",
                          hue: str = "algorithm", kind: str | None = "tcp", title: str | None = None) -> Figure:
    """Pantheon's comparison: throughput against delay, one small point per run and, per
    `hue` value, a large marker at the mean over the runs with the 95 % Student-t
    interval on both axes. Delay is on a logarithmic axis, inverted (better to the right).
    Each run's flows (`kind`; None: all) count by their mean of each metric (of a delay
    percentile too: not the percentile of the pooled packets). `where` selects runs by
    column value (`{"links.1.ab.capacity.trace": "..."}` through the swept columns or any
    flows column). `wtcp.plot.PlotError` (a ValueError) when the store holds no delay
    results (runs made before wtcp reported them) or nothing matches."""
    import numpy as np

    from wtcp.sweep.store import param_column, summarize

    flows = store.flows(sweep)
    for metric in (delay, throughput):
        if metric not in flows.columns:
            raise PlotError(f"{metric}: not in the store's flows; allowed: {', '.join(c for c in flows.columns if c.endswith(('_ms', '_mbps', '_bps')))}")
    if kind is not None and "kind" in flows.columns:
        flows = flows[flows["kind"] == kind]
    for key, value in (where or {}).items():
        col = key if key in flows.columns else param_column(key)
        if col not in flows.columns:
            raise PlotError(f"where: {key} is neither a flows column nor a swept path of this store")
        flows = flows[flows[col] == value]
    hue_col = hue if hue in flows.columns else param_column(hue)
    if hue_col not in flows.columns:
        raise PlotError(f"hue: {hue} is neither a flows column nor a swept path of this store")
    flows = flows.assign(_d=pd_numeric(flows[delay]), _t=pd_numeric(flows[throughput])).dropna(subset=["_d", "_t"])
    if flows.empty:
        raise PlotError(f"no flows with both {delay} and {throughput} (runs before wtcp reported delays have none)")
    runs = flows.groupby(["key", hue_col], dropna=False)[["_d", "_t"]].mean().reset_index()
    values = sort_naturally(runs[hue_col].unique())
    styles = series_styles(values, algorithms=True if hue_col in ("cc", "algorithm") else None)
    fig = new_figure(6.4, 4.4)
    ax = fig.add_subplot()
    d_q, t_q = quantity(delay), quantity(throughput)
    for value in values:
        part = runs[runs[hue_col] == value]
        st = styles[value]
        ax.scatter(part["_d"] * d_q.scale, part["_t"] * t_q.scale, s=10, color=st.color, marker=st.marker, alpha=0.35, linewidths=0)
        sd, stt = summarize(part, "_d", []), summarize(part, "_t", [])
        md, mt = float(sd["mean"][0]) * d_q.scale, float(stt["mean"][0]) * t_q.scale
        xerr = np.array([[md - float(sd["ci_low"][0]) * d_q.scale], [float(sd["ci_high"][0]) * d_q.scale - md]]) if len(part) > 1 else None
        yerr = np.array([[mt - float(stt["ci_low"][0]) * t_q.scale], [float(stt["ci_high"][0]) * t_q.scale - mt]]) if len(part) > 1 else None
        ax.errorbar([md], [mt], xerr=xerr, yerr=yerr, color=st.color, marker=st.marker, markersize=8, linestyle="none", capsize=3, label=f"{value} ({len(part)} runs)")
    ax.set_xscale("log")
    ax.invert_xaxis()
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(d_q.axis_label + " (log, better to the right)")
    ax.set_ylabel(t_q.axis_label)
    ax.set_ylim(bottom=0)
    style_axes(ax)
    legend_outside(ax, title=f"{hue}\nmean over runs, 95 % t-interval")
    if title:
        ax.set_title(title, fontsize=FONT_SIZE + 1)
    if path is not None:
        save(fig, path)
    return fig


def pd_numeric(values: Any) -> Any:
    import pandas as pd

    return pd.to_numeric(values, errors="coerce")
