"""The README's 802.11n example: one CUBIC download through an access point
(`wifi-n-aggregation`) at MCS 0-7, with and without A-MPDU aggregation, 3 replications
(sweeps/wifi-n-aggregation.toml). Writes docs/wifi-n-aggregation.png and prints the mean
goodput per point (the numbers README.md quotes). Runs in a temporary folder; 32 runs of
20 s, a few seconds.

    .venv/bin/python tools/aggregation_study.py
"""

from sweep_study import study

if __name__ == "__main__":
    study("wifi-n-aggregation", "wifi.0.mcs", "wifi.0.aggregation", "wifi-n-aggregation.png", "TCP over 802.11n, A-MPDU aggregation on and off")
