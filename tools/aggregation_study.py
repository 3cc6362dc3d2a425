"""The README's 802.11n example: one CUBIC download through an access point
(`wifi-n-aggregation`) at MCS 0-7, with and without A-MPDU aggregation, 3 replications
(sweeps/wifi-n-aggregation.toml). Writes docs/wifi-n-aggregation.png and prints the mean
goodput per point (the numbers README.md quotes). Runs in a temporary folder; 32 runs of
20 s, a few seconds.

    .venv/bin/python tools/aggregation_study.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from wtcp.sweep import load_sweep, open_store, run_sweep

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    sweep = load_sweep(ROOT / "sweeps" / "wifi-n-aggregation.toml")
    with tempfile.TemporaryDirectory() as tmp:
        store_path = Path(tmp) / "study.duckdb"
        run_sweep(sweep, store_path)
        with open_store(store_path) as store:
            flows = store.flows()
            table = flows.groupby(["wifi_0_mcs", "wifi_0_aggregation"])["goodput_mbps"].mean().unstack().round(2)
            print(table.to_string())
            store.plot("wifi.0.mcs", "goodput_mbps", hue="wifi.0.aggregation", path=ROOT / "docs" / "wifi-n-aggregation.png",
                       title="TCP over 802.11n, A-MPDU aggregation on and off")


if __name__ == "__main__":
    main()
