"""Run a sweep of sweeps/ in a temporary folder, print the mean goodput per point and draw
it (one series per `hue`) into docs/: what the README's example figures are made with.

    .venv/bin/python tools/sweep_study.py SWEEP X HUE PNG TITLE
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from wtcp.sweep import load_sweep, open_store, run_sweep

ROOT = Path(__file__).resolve().parent.parent


def study(sweep_name: str, x: str, hue: str, png: str, title: str) -> None:
    """Run sweeps/`sweep_name`.toml; print goodput_mbps by (`x`, `hue`); plot to docs/`png`."""
    sweep = load_sweep(ROOT / "sweeps" / f"{sweep_name}.toml")
    with tempfile.TemporaryDirectory() as tmp:
        store_path = Path(tmp) / "study.duckdb"
        run_sweep(sweep, store_path)
        with open_store(store_path) as store:
            flows = store.flows()
            columns = [x.replace(".", "_"), hue.replace(".", "_")]
            print(flows.groupby(columns)["goodput_mbps"].mean().unstack().round(2).to_string())
            store.plot(x, "goodput_mbps", hue=hue, path=ROOT / "docs" / png, title=title)


if __name__ == "__main__":
    study(*sys.argv[1:6])
