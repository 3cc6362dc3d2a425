"""The README's radio-channel example: one CUBIC download through an 802.11n access point
(`wifi-distance`) with the station 5-50 m away, the constant MCS 7 against rate control
"ideal" and "minstrel_ht", 3 replications (sweeps/wifi-distance.toml). Writes
docs/wifi-distance.png and prints the mean goodput per point (the numbers README.md
quotes). Runs in a temporary folder; 99 runs of 20 s, under a minute.

    .venv/bin/python tools/distance_study.py
"""

from sweep_study import study

if __name__ == "__main__":
    study("wifi-distance", "wifi.0.stations.1.x", "wifi.0.rate_control", "wifi-distance.png", "TCP over 802.11n: MCS 7, ideal or Minstrel-HT rate control")
