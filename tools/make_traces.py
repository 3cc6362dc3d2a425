"""Write the capacity traces shipped with wtcp (python/wtcp/scenarios/traces/) and their
figure (docs/traces.png) from the synthetic models below, with fixed seeds: running it again
gives the same files byte for byte.

    .venv/bin/python tools/make_traces.py
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from wtcp import traces

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "python" / "wtcp" / "scenarios" / "traces"

# name -> (capacity table, what it stands for)
SHIPPED = {
    "lte-markov": (
        {"model": "markov", "rates_mbps": [1.5, 6.0, 18.0], "mean_holding_s": [1.0, 3.0, 2.0], "duration_s": 60.0, "seed": 1},
        "an LTE-like downlink: three capacity levels held for exponential times",
    ),
    "lte-walk": (
        {"model": "random_walk", "start_mbps": 8.0, "min_mbps": 0.5, "max_mbps": 24.0, "sigma_mbps": 1.5, "step_s": 0.1, "duration_s": 60.0, "seed": 2},
        "an LTE-like bounded random walk, 0.5 to 24 Mb/s",
    ),
    "uplink-walk": (
        {"model": "random_walk", "start_mbps": 3.0, "min_mbps": 0.5, "max_mbps": 6.0, "sigma_mbps": 0.5, "step_s": 0.1, "duration_s": 60.0, "seed": 3},
        "a slower uplink walk, 0.5 to 6 Mb/s (for the ACK direction)",
    ),
    "wifi-fades": (
        {"model": "on_off", "on_mbps": 20.0, "off_mbps": 0.0, "mean_on_s": 4.0, "mean_off_s": 0.25, "duration_s": 60.0, "seed": 4},
        "a 20 Mb/s Wi-Fi link with short fades to nothing",
    ),
}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(len(SHIPPED), 1, figsize=(7.5, 1.9 * len(SHIPPED)), sharex=True)
    for ax, (name, (spec, what)) in zip(axes, SHIPPED.items()):
        trace = traces.generate(spec)
        (OUT / f"{name}.trace").write_text(trace.to_mahimahi(), encoding="utf-8")
        s = trace.summary()
        trace.plot(ax=ax)
        ax.set_xlabel("")
        ax.set_ylabel("Mb/s")
        ax.set_title(f"{name}.trace: mean {s['mean_mbps']:.2f} Mb/s, {100 * s['outage_share']:.1f} % of 0.1 s bins without capacity", fontsize=8)
        print(f"{name}.trace: {len(trace.times_ms)} opportunities, mean {s['mean_mbps']:.3f} Mb/s")
    axes[-1].set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(ROOT / "docs" / "traces.png", dpi=90, metadata={"Software": None})
    plt.close(fig)


if __name__ == "__main__":
    main()
