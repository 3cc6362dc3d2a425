"""`wtcp reproduce`: run a paper's experiments as sweeps, draw its figures, measure its
claims, run its ablations and write `claims.csv`, `ablations.csv`, `summary.json` and the
HTML report.

Output of one paper, in `DIR/<paper>/`: `runs.duckdb` (every run; a second call skips the
runs already there), one PNG + SVG + CSV per figure, `claims.csv` (verdict, reason and
evidence per claim), `ablations.csv` (each ablation's re-measured claims) and
`summary.json` (what the report is built from).
"""

from __future__ import annotations

import csv
import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wtcp import _core
from wtcp.paths import SAFE_NAME_RULE, name_problem
from wtcp.reproduce import scorecard as sc
from wtcp.reproduce.ablate import ABLATION_COLUMNS, AblationResult, counts, explain, mark_copies, predict
from wtcp.reproduce.figures import FigureOutput, draw
from wtcp.reproduce.measure import ClaimResult, evaluate, with_derived
from wtcp.reproduce.spec import Paper, PaperError, copied_claims, load_paper, paper_names
from wtcp.sweep.runner import Executor, Progress, run_sweep
from wtcp.sweep.spec import Run
from wtcp.sweep.store import Store, param_column

if TYPE_CHECKING:
    import pandas as pd

# The first eight columns are those of earlier versions; filter on `holds` and `mode`.
CLAIM_COLUMNS = ["paper", "source", "claim", "published", "measured", "ci_low", "ci_high", "holds", "id", "unit", "note", "mode", "reason", "evidence", "copied_from"]
SCORECARD = "scorecard"
STORE_FILE = "runs.duckdb"
SUMMARY_FILE = "summary.json"
ABLATIONS_FILE = "ablations.csv"


def all_targets() -> list[str]:
    """What `wtcp reproduce all` runs: every paper, then the scorecard."""
    names = paper_names()
    return [n for n in names if n != SCORECARD] + ([SCORECARD] if SCORECARD in names else [])


@dataclass
class PaperOutcome:
    paper: Paper
    folder: Path
    runs: int = 0
    failed: int = 0
    claims: list[ClaimResult] = field(default_factory=list)
    figures: list[FigureOutput] = field(default_factory=list)
    ablations: list[AblationResult] = field(default_factory=list)
    wall_seconds: float = 0.0

    def holds_counts(self) -> dict[str, int]:
        """Claims per verdict (yes, no, inconclusive, na), each copied claim counted once
        (`copies`: how many copies were left out)."""
        return counts(self.claims)


def reproduce_paper(
    name: str,
    out_dir: Path,
    executor: Executor,
    quick: bool = False,
    on_update: Callable[[str, Progress], None] | None = None,
    profile: str | None = None,
) -> PaperOutcome:
    """Run one paper's experiments into `out_dir/<paper>/` and write its outputs. `name`
    is a shipped paper's name or the path of a paper definition (see `load_paper`);
    `profile` replaces the paper's own simulator profile."""
    t0 = time.perf_counter()
    paper = load_paper(name, profile)
    out_dir = Path(out_dir)
    folder = out_dir / paper.name
    if name_problem(paper.name) is not None or Path(os.path.normpath(folder)).parent != Path(os.path.normpath(out_dir)):
        raise PaperError("paper", f"is {paper.name!r}, whose folder {folder} is not a folder of {out_dir}; allowed: {SAFE_NAME_RULE}")
    # Every sweep, the ablations' too, is built (and checked) before anything runs; an
    # ablation's mistake that only the other grid (full or quick) would meet is caught too.
    sweeps = {exp.id: exp.sweep(quick, paper.name) for exp in paper.experiments}
    ablation_sweeps = {a.id: a.sweep(paper, quick) for a in paper.ablations}
    for a in paper.ablations:
        a.sweep(paper, not quick)
    folder.mkdir(parents=True, exist_ok=True)
    outcome = PaperOutcome(paper=paper, folder=folder)
    frames: dict[str, pd.DataFrame] = {}
    experiments_info = []
    ablations_info = []
    store = Store(folder / STORE_FILE)
    try:
        for exp in paper.experiments:
            sweep = sweeps[exp.id]
            update = (lambda p, _id=exp.id: on_update(_id, p)) if on_update else None
            result = run_sweep(sweep, store, executor, on_update=update)
            outcome.runs += result.total
            outcome.failed += result.failed
            runs = list(sweep.runs())
            frame = experiment_frame(store, runs)
            frames[exp.id] = frame
            for fig_spec in exp.figures:
                out = draw(fig_spec, frame, folder, trace_of=lambda key: store.traces("flows", key))
                if out.table is not None:
                    out.data_file = folder / f"{fig_spec.id}-table.csv"
                    out.table.to_csv(out.data_file, index=False)
                if out.images or out.table is not None:
                    outcome.figures.append(out)
            experiments_info.append(_experiment_info(exp, sweep, result, runs))
        if paper.name == SCORECARD:
            outcome.figures.extend(_scorecard(paper, frames, folder))
        outcome.claims = [evaluate(paper, claim, frames, quick) for claim in paper.claims]
        by_id = {c.id: c for c in outcome.claims}
        for abl in paper.ablations:
            sweep = ablation_sweeps[abl.id]
            label = f"{abl.experiment}~{abl.id}"
            update = (lambda p, _label=label: on_update(_label, p)) if on_update else None
            result = run_sweep(sweep, store, executor, on_update=update)
            outcome.runs += result.total
            outcome.failed += result.failed
            frame = experiment_frame(store, list(sweep.runs()))
            results = []
            for c_id in abl.explains:
                claim = paper.claim(c_id)
                ablated = evaluate(paper, claim, {abl.experiment: frame}, quick)
                results.append(predict(abl, claim, by_id[c_id], ablated, quick))
            outcome.ablations.extend(results)
            ablations_info.append(_ablation_info(abl, sweep, result, results))
    finally:
        store.close()
    explain(paper, outcome.claims, outcome.ablations)
    mark_copies(outcome.claims, copied_claims(paper))
    write_claims(folder / "claims.csv", outcome.claims)
    write_ablations(folder / ABLATIONS_FILE, outcome.ablations)
    outcome.wall_seconds = time.perf_counter() - t0
    write_summary(folder / SUMMARY_FILE, outcome, experiments_info, quick, ablations_info)
    return outcome


def experiment_frame(store: Store, runs: Sequence[Run]) -> pd.DataFrame:
    """The flows of these runs, with the run-level metrics and the derived columns
    (goodput_mbps, ...). A run is stored once, under the sweep that ran it first (an
    ablation that leaves a point as it was shares its runs with the experiment), so runs
    are found by key; a swept value the stored run lacks is taken from `runs`."""
    keys = sorted({r.key for r in runs})
    with store.session():  # one connection for both reads
        flows = store.flows(keys=keys)
        metrics = store.runs(keys=keys)[["key", "jain_fairness", "events", "peak_packets"]]
    params: dict[str, dict[str, Any]] = {}
    for r in runs:
        for path, value in r.params.items():
            params.setdefault(param_column(path), {})[r.key] = value
    for column, by_key in params.items():
        given = flows["key"].map(by_key)
        flows[column] = flows[column].where(flows[column].notna(), given) if column in flows.columns else given
    return with_derived(flows.merge(metrics, on="key", how="left"))


def _experiment_info(exp, sweep, result, runs) -> dict[str, Any]:
    base = sweep.base
    return {
        "id": exp.id,
        "title": exp.title,
        "sweep": sweep.name,
        "sweep_file": exp.sweep_file.name,
        "sweep_text": exp.sweep_file.read_text(encoding="utf-8"),
        "scenario_name": base.name,
        "scenario_text": Path(base.source).read_text(encoding="utf-8") if base.source else base._resolved_toml,
        "fixed": sweep.fixed,
        "grid": sweep.grid,
        "zips": sweep.zips,
        "points": sweep.points,
        "algorithms": sweep.algorithms,
        "replications": sweep.replications,
        "seed": sweep.seed,
        "runs": result.total,
        "failed": result.failed,
        "simulated_s": sum(r.sim_seconds or 0.0 for r in runs),
    }


def _scorecard(paper: Paper, frames: dict[str, pd.DataFrame], folder: Path) -> list[FigureOutput]:
    import pandas as pd

    parts = [sc.probe_flows(f) for f in frames.values() if not f.empty]
    if not parts:
        return []
    frame = pd.concat(parts, ignore_index=True)
    loss_path, congestion_path = _scorecard_paths(paper)
    frame = frame.sort_values([param_column(congestion_path), param_column(loss_path)], kind="stable")
    frame["congestion"] = frame[param_column(congestion_path)].map(lambda n: f"{int(n)} cross flows" if isinstance(n, (int, float)) else str(n))
    card = sc.scorecard(frame, loss_path)
    card.to_csv(folder / "scorecard.csv", index=False)
    totals = sc.overall(frame)
    confusion = sc.draw_confusion(totals, folder)
    confusion.table = totals[["algorithm", *sc.CELLS, "accuracy", "wireless_precision", "wireless_recall", "congestion_precision", "congestion_recall"]]
    confusion.data_file = folder / "confusion.csv"
    confusion.table.to_csv(confusion.data_file, index=False)
    pr = sc.draw_rates(card, folder)
    pr.data_file = folder / "scorecard.csv"
    return [confusion, pr]


def _scorecard_paths(paper: Paper) -> tuple[str, str]:
    """The scorecard's swept paths: the loss rate (first grid path of its first experiment)
    and the congestion level (the second)."""
    paths = list(paper.experiments[0].sweep(False, paper.name).grid)
    if len(paths) != 2:
        raise PaperError(f"experiments.0.sweep", "the scorecard sweep's [grid] must have two paths: the loss rate, then the congestion level")
    return paths[0], paths[1]


def _ablation_info(abl, sweep, result, results: list[AblationResult]) -> dict[str, Any]:
    return {
        "id": abl.id,
        "experiment": abl.experiment,
        "factor": abl.describe(),
        "reason": abl.reason,
        "predict": abl.predict,
        "share": abl.share,
        "note": abl.note,
        "sweep": sweep.name,
        "replications": sweep.replications,
        "seed": sweep.seed,
        "runs": result.total,
        "failed": result.failed,
        "results": [_plain(r.row()) for r in results],
    }


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    """A row for JSON: NaN as null."""
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}


def write_claims(path: Path, claims: Sequence[ClaimResult]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=CLAIM_COLUMNS)
        writer.writeheader()
        for c in claims:
            row = c.row()
            for k in ("measured", "ci_low", "ci_high"):
                row[k] = _number(row[k])
            writer.writerow({k: row[k] for k in CLAIM_COLUMNS})


def write_ablations(path: Path, results: Sequence[AblationResult]) -> None:
    """One row per ablation and explained claim (only the header when there are none)."""
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=ABLATION_COLUMNS)
        writer.writeheader()
        for r in results:
            row = r.row()
            writer.writerow({k: _number(row[k]) for k in ABLATION_COLUMNS})


def _number(value: Any) -> Any:
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.6g}"
    return value


def write_summary(path: Path, outcome: PaperOutcome, experiments: list[dict[str, Any]], quick: bool, ablations: list[dict[str, Any]] | None = None) -> None:
    p = outcome.paper
    folder = outcome.folder
    doc = {
        "paper": p.name,
        "title": p.title,
        "citation": p.citation,
        "source": p.source,
        "summary": p.summary,
        "tolerance": p.tolerance,
        "quick": quick,
        "wtcp_version": _core.__version__,
        "wall_seconds": round(outcome.wall_seconds, 2),
        "runs": outcome.runs,
        "failed": outcome.failed,
        "holds": outcome.holds_counts(),
        "experiments": experiments,
        "ablations": ablations or [],
        "figures": [
            {
                "id": f.id,
                "title": f.title,
                "caption": f.caption,
                "images": [str(i.relative_to(folder)) for i in f.images],
                "data": str(f.data_file.relative_to(folder)) if f.data_file else None,
                "table": f.table is not None,
            }
            for f in outcome.figures
        ],
        "claims": "claims.csv",
        "ablations_file": ABLATIONS_FILE,
    }
    path.write_text(json.dumps(doc, indent=1, default=str), encoding="utf-8")
