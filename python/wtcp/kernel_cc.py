"""The kernel's own congestion controls (`cc = "kernel:NAME"`, the linux engine): which
BPF struct_ops programs are registered under which name, read through bpftool.

bpftool names a struct_ops registration by its map (the C variable), which need not be
the algorithm's name, so registrations are found by the `name` field of their
`tcp_congestion_ops` (what net.ipv4.tcp_available_congestion_control lists)."""

from __future__ import annotations

import json
import shutil
import subprocess


def struct_ops_ids() -> dict[str, int] | None:
    """Each registered BPF congestion control's name and its struct_ops map id (a new
    registration gets a new id); None when bpftool is absent or cannot tell."""
    if shutil.which("bpftool") is None:
        return None
    try:
        done = subprocess.run(["bpftool", "-j", "struct_ops", "dump"], capture_output=True, text=True, timeout=10)
        entries = json.loads(done.stdout or "[]")
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError):
        return None
    if done.returncode != 0 or not isinstance(entries, list):
        return None
    ids: dict[str, int] = {}
    # bpftool prints each registration as a map-info object followed by its value.
    for info, value in zip(entries[0::2], entries[1::2]):
        try:
            map_id = int(info["bpf_map_info"]["id"])
            name = value["bpf_struct_ops_tcp_congestion_ops"]["data"]["name"]
        except (KeyError, TypeError, ValueError):
            continue
        ids[str(name)] = map_id
    return ids


def unregister(name: str) -> bool:
    """Unregister the BPF congestion control registered as `name`; False if there is none."""
    map_id = (struct_ops_ids() or {}).get(name)
    if map_id is None:
        return False
    subprocess.run(["bpftool", "struct_ops", "unregister", "id", str(map_id)], capture_output=True, timeout=10, check=True)
    return True
