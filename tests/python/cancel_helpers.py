"""Helpers for test_cancel.py that pool worker processes import (so a plain module, not
the test file): a process pool whose workers run every batch under an address-space cap,
so that a run needing more memory makes its allocation fail and its worker abort, as an
out-of-memory death does."""

from __future__ import annotations

import resource

from wtcp.sweep.runner import ProcessPoolExecutor, run_batch


def address_space_bytes() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")


def run_batch_capped(jobs, cap_mb: int):
    """`run_batch` with RLIMIT_AS at the worker's address space now plus `cap_mb`."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (address_space_bytes() + cap_mb * 2**20, hard))
    try:
        return run_batch(jobs)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


class CappedPool(ProcessPoolExecutor):
    """A process pool whose workers run each batch with `cap_mb` of address space to spare."""

    def __init__(self, workers: int, cap_mb: int):
        self.cap_mb = cap_mb
        super().__init__(workers)

    def batch_call(self, batch):
        return run_batch_capped, (list(batch), self.cap_mb)


def run_batch_stuck_on(jobs, stuck_duration_s: float):
    """`run_batch`, except that a run of `run.duration_s = stuck_duration_s` hangs in its
    worker without ever reaching the engine's poll (as a run deadlocked after an allocation
    failure does)."""
    import time

    from wtcp.sweep.runner import _mark

    for job in jobs:
        if f'duration_s = {stuck_duration_s}' in job[1]:
            _mark(job[0])
            while True:
                time.sleep(3600)
    return run_batch(jobs)


class StuckPool(ProcessPoolExecutor):
    """A process pool on which the run of `run.duration_s = stuck_duration_s` never ends."""

    def __init__(self, workers: int, stuck_duration_s: float):
        self.stuck_duration_s = stuck_duration_s
        super().__init__(workers)

    def batch_call(self, batch):
        return run_batch_stuck_on, (list(batch), self.stuck_duration_s)
