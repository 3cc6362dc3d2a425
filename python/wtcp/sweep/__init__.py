"""Sweeps at scale: a sweep description (TOML or dict) expanded into runs, run on a local
process pool or a Dask cluster, every result stored in a DuckDB file.

    >>> from wtcp.sweep import load_sweep, run_sweep, open_store
    >>> outcome = run_sweep(load_sweep("sweeps/loss-vs-goodput.toml"), "loss.duckdb")
    >>> open_store("loss.duckdb").summary("goodput_bps")
"""

from wtcp.sweep.runner import AutoExecutor, DaskExecutor, DryRun, InlineExecutor, Outcome, ProcessPoolExecutor, RunLimits, SweepInterrupted, dry_run, run_batch, run_sweep
from wtcp.sweep.spec import Run, Sweep, SweepError, load_sweep
from wtcp.sweep.store import Store, StoreError, copy_store, open_store, readable_store, summarize, t975

__all__ = [
    "Sweep",
    "SweepError",
    "Run",
    "load_sweep",
    "run_sweep",
    "dry_run",
    "DryRun",
    "run_batch",
    "Outcome",
    "RunLimits",
    "SweepInterrupted",
    "AutoExecutor",
    "InlineExecutor",
    "ProcessPoolExecutor",
    "DaskExecutor",
    "Store",
    "StoreError",
    "open_store",
    "copy_store",
    "readable_store",
    "summarize",
    "t975",
]
