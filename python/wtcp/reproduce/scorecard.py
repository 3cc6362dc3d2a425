"""The loss-classification scorecard: each classifying algorithm's verdicts against the
simulator's ground truth.

Every fast retransmit and timeout has a true cause (the fate of the segment that triggered
it: dropped by a queue = congestion, by the channel or an outage = wireless, not dropped =
spurious) and the algorithm's verdict (congestion, wireless, or none). Per flow the engine
counts the pairs (`cm_<cause>_<verdict>`). From them:

- precision of "wireless" = wireless judged wireless / all judged wireless (of the losses
  that were real drops; spurious events have no drop to classify and are left out);
- recall of "wireless" = wireless judged wireless / all wireless losses;
- the same for "congestion"; a verdict of none counts against recall.
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from wtcp.reproduce.figures import MARKERS, FigureOutput, pyplot
from wtcp.sweep.store import param_column

if TYPE_CHECKING:
    import pandas as pd

CAUSES = ("congestion", "wireless", "spurious")
VERDICTS = ("congestion", "wireless", "none")
CELLS = [f"cm_{c}_{v}" for c in CAUSES for v in VERDICTS]


def rates(counts: pd.DataFrame) -> pd.DataFrame:
    """Precision and recall of both verdicts and the accuracy over real drops, from summed
    confusion cells (NaN where a denominator is zero)."""
    out = counts.copy()

    def ratio(num, den):
        return (num / den.where(den > 0)).astype(float)

    ww, cc = out["cm_wireless_wireless"], out["cm_congestion_congestion"]
    judged_w = out["cm_congestion_wireless"] + ww
    judged_c = cc + out["cm_wireless_congestion"]
    real_w = sum(out[f"cm_wireless_{v}"] for v in VERDICTS)
    real_c = sum(out[f"cm_congestion_{v}"] for v in VERDICTS)
    out["wireless_precision"] = ratio(ww, judged_w)
    out["wireless_recall"] = ratio(ww, real_w)
    out["congestion_precision"] = ratio(cc, judged_c)
    out["congestion_recall"] = ratio(cc, real_c)
    out["accuracy"] = ratio(ww + cc, real_w + real_c)
    out["drops_classified"] = real_w + real_c
    return out


def scorecard(frame: pd.DataFrame, loss_path: str) -> pd.DataFrame:
    """Summed confusion cells and rates per (algorithm, congestion level, loss rate); the
    frame holds the classifying flows of every scorecard experiment with a `congestion`
    column (the experiment's label)."""
    loss_col = param_column(loss_path)
    keys = ["algorithm", "congestion", loss_col]
    summed = frame.groupby(keys, sort=False)[CELLS].sum().reset_index()
    summed = summed.rename(columns={loss_col: "loss_rate"})
    return rates(summed)


def overall(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per algorithm over every run of the scorecard."""
    summed = frame.groupby("algorithm", sort=False)[CELLS].sum().reset_index()
    return rates(summed)


def draw_confusion(totals: pd.DataFrame, out_dir: Path) -> FigureOutput:
    """Row-normalised confusion matrices, one panel per algorithm."""
    import numpy as np

    plt = pyplot()
    n = len(totals)
    cols = min(4, max(1, n))
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(2.6 * cols, 2.4 * rows + 0.4), squeeze=False)
    for ax in axes.flat[n:]:
        ax.axis("off")
    for ax, row in zip(axes.flat, totals.itertuples(index=False)):
        m = np.array([[getattr(row, f"cm_{c}_{v}") for v in VERDICTS] for c in CAUSES], dtype=float)
        sums = m.sum(axis=1, keepdims=True)
        share = np.divide(m, sums, out=np.zeros_like(m), where=sums > 0)
        ax.imshow(share, vmin=0, vmax=1, cmap="Blues")
        for i in range(3):
            for j in range(3):
                ax.text(j, i, f"{int(m[i, j])}", ha="center", va="center", fontsize=7, color="white" if share[i, j] > 0.6 else "black")
        ax.set_xticks(range(3), ["cong.", "wireless", "none"], fontsize=7)
        ax.set_yticks(range(3), ["cong.", "wireless", "spur."], fontsize=7)
        ax.set_title(str(row.algorithm), fontsize=8)
        ax.set_xlabel("verdict", fontsize=7)
        ax.set_ylabel("true cause", fontsize=7)
    return _save(plt, fig, out_dir, "confusion", "Confusion matrices: true cause (rows) x verdict (columns), all runs", "Counts of loss events; shading is the share of the row.")


def draw_rates(card: pd.DataFrame, out_dir: Path, loss_scale: float = 100.0) -> FigureOutput:
    """Precision and recall of the wireless verdict against the loss rate, one column of
    panels per congestion level."""
    plt = pyplot()
    levels = list(dict.fromkeys(card["congestion"]))
    fig, axes = plt.subplots(2, len(levels), figsize=(3.2 * len(levels) + 0.6, 5.4), squeeze=False, sharey=True)
    for j, level in enumerate(levels):
        part = card[card["congestion"] == level]
        for i, (name, group) in enumerate(part.groupby("algorithm", sort=False)):
            group = group.sort_values("loss_rate")
            for r, metric in enumerate(("wireless_precision", "wireless_recall")):
                axes[r, j].plot(group["loss_rate"] * loss_scale, group[metric], marker=MARKERS[i % len(MARKERS)], label=str(name), markersize=4)
        axes[0, j].set_title(f"congestion: {level}", fontsize=8)
        axes[1, j].set_xlabel("wireless loss rate (%)", fontsize=8)
        for r in range(2):
            axes[r, j].grid(True, alpha=0.3)
            axes[r, j].set_ylim(-0.03, 1.03)
    axes[0, 0].set_ylabel("precision (wireless)", fontsize=8)
    axes[1, 0].set_ylabel("recall (wireless)", fontsize=8)
    axes[0, -1].legend(fontsize=6)
    return _save(plt, fig, out_dir, "precision-recall", "Precision and recall of the \"wireless\" verdict against loss rate and congestion level", "A missing point: no event of that kind at that point.")


def _save(plt, fig, out_dir: Path, fig_id: str, title: str, caption: str) -> FigureOutput:
    out_dir.mkdir(parents=True, exist_ok=True)
    fig.suptitle(textwrap.fill(title, 90), fontsize=9)
    fig.tight_layout()
    out = FigureOutput(id=fig_id, title=title, caption=caption)
    for ext in ("png", "svg"):
        path = out_dir / f"{fig_id}.{ext}"
        fig.savefig(path, dpi=200, metadata={"Date": None} if ext == "svg" else None)
        out.images.append(path)
    plt.close(fig)
    return out


PROBE_FLOW = "probe"


def probe_flows(frame: pd.DataFrame) -> pd.DataFrame:
    """The flows whose verdicts are scored: those named `probe` (the cross traffic of the
    scorecard scenarios has other names)."""
    return frame[frame["name"] == PROBE_FLOW]
