"""Self-contained HTML reports: one page, figures embedded as data URIs, inline CSS, no
script and no external resource, so it opens offline and can be mailed as one file.

`reproduction_report(DIR)` is built from the `summary.json` and `claims.csv` files that
`wtcp reproduce` writes; `store_report(STORE)` summarises every sweep of a result store.
Every string that comes from a user (names, descriptions, scenario text, table cells) is
escaped.
"""

from __future__ import annotations

import base64
import csv
import html
import json
import math
import os
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from wtcp import _core, paths
from wtcp.safefile import atomic_write_text

if TYPE_CHECKING:
    import pandas as pd

CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 2em auto; max-width: 1100px; color: #222; line-height: 1.4; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; } h3 { margin-top: 1.5em; }
table { border-collapse: collapse; margin: .6em 0; font-size: .85em; max-width: 100%; }
table.claims td { overflow-wrap: anywhere; } table.claims td:nth-child(2) { min-width: 18em; }
th, td { border: 1px solid #ddd; padding: .25em .5em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.yes { background: #e3f4e1; } td.no { background: #fbe3e1; } td.na { color: #777; } td.inconclusive { background: #fdf3d6; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #eee; } figcaption { font-size: .85em; color: #555; }
pre { background: #f7f7f7; padding: .6em; overflow-x: auto; font-size: .8em; }
details { margin: .4em 0; } summary { cursor: pointer; color: #245; }
.meta { color: #555; font-size: .9em; }
"""
NUMERIC = ("published", "measured", "ci_low", "ci_high", "mean", "n", "std")


# Largest figure table a report reads into its page (the tables `wtcp reproduce` writes
# are a few kB: one row per point and series).
MAX_TABLE_BYTES = 16 * 2**20


def href(*segments: Any) -> str:
    """A link to a file inside the report's folder, for an `href` attribute: a relative
    path whose segments (folder and file names, possibly the user's) are percent-encoded,
    so that none is read as a scheme (`javascript:`), a query, a fragment or a parent, and
    that starts with `./`."""
    return esc("./" + "/".join(quote(str(s), safe="") for s in segments))


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def page(title: str, body: Iterable[str]) -> str:
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{esc(title)}</title><style>{CSS}</style></head><body>\n"
        f"<h1>{esc(title)}</h1>\n<p class=\"meta\">wtcp {esc(_core.__version__)}, generated {esc(generated)}</p>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def image(path: Path, alt: str) -> str:
    """An image embedded as a data URI (SVG preferred, PNG otherwise)."""
    kind = "image/svg+xml" if path.suffix == ".svg" else "image/png"
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="{esc(alt)}" src="data:{kind};base64,{data}">'


def cell(value: Any) -> tuple[str, bool]:
    if isinstance(value, float):
        return ("" if math.isnan(value) else f"{value:.4g}"), True
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value), True
    return str(value) if value is not None else "", False


# Cell texts of a verdict column that colour their cell (the outcome of an ablation's
# prediction in the colours of the verdicts).
VERDICT_CLASSES = {"yes": "yes", "no": "no", "na": "na", "inconclusive": "inconclusive", "held": "yes", "did not hold": "no"}


def table(columns: Sequence[str], rows: Iterable[Sequence[Any]], classes: dict[str, str] | None = None) -> str:
    """An HTML table; a column named in `classes` gives its cell value as the cell's class
    (e.g. holds -> yes/no/inconclusive/na)."""
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    out = [f"<table><thead><tr>{head}</tr></thead><tbody>"]
    for row in rows:
        tds = []
        for c, v in zip(columns, row):
            text, numeric = cell(v)
            cls = []
            if numeric or (c in NUMERIC and _is_number(text)):
                cls.append("num")
            if classes and c in classes and text in VERDICT_CLASSES:
                cls.append(VERDICT_CLASSES[text])
            attr = f' class="{" ".join(cls)}"' if cls else ""
            tds.append(f"<td{attr}>{esc(text)}</td>")
        out.append("<tr>" + "".join(tds) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def frame_table(df: pd.DataFrame, max_rows: int = 400) -> str:
    rows = df.head(max_rows).itertuples(index=False, name=None)
    note = f"<p class=\"meta\">first {max_rows} of {len(df)} rows</p>" if len(df) > max_rows else ""
    return table([str(c) for c in df.columns], rows) + note


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def read_claims(path: Path) -> list[dict[str, str]]:
    try:
        with path.open(encoding="utf-8", newline="") as f:
            return list(csv.DictReader(f))
    except (UnicodeDecodeError, csv.Error) as e:
        raise ReportError(str(path), f"not a claims table written by `wtcp reproduce` ({e})") from None


# --- the reproduction report ---


class ReportError(ValueError):
    """An output folder a report cannot be built from: `.path` (the file, then the field
    path in it, e.g. `out/njplus/summary.json: figures.0.images.0`) and `.reason`."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}" if path else reason)
        self.path = path
        self.reason = reason


def reproduction_report(directory: str | Path, out: str | Path | None = None) -> Path:
    """Write `DIR/report.html` (or `out`) from the papers' outputs in `DIR`.

    Only files inside `DIR` are read or embedded: a `summary.json` whose figures, tables
    or claims name a file elsewhere (`../..`, an absolute path, a symbolic link leading
    out) raises `ReportError`, as does one that is not what `wtcp reproduce` writes."""
    root = Path(directory)
    summaries = []
    for path in sorted(root.glob("*/summary.json")):
        summaries.append((path.parent, read_summary(path, root)))
    if not summaries:
        raise FileNotFoundError(2, "no paper outputs (*/summary.json) in", str(root))
    order = {name: i for i, name in enumerate(_target_order())}
    summaries.sort(key=lambda s: (order.get(s[1]["paper"], 99), s[1]["paper"]))
    body = ["<p>Each paper's experiments re-run in wtcp, its published numbers and claims beside the measured values "
            "(mean over replications with the 95 % Student-t interval). <em>holds</em> is the verdict: <em>yes</em> when the "
            "whole interval lies where the claim holds (its direction, bound or ordering and, for a published number, the "
            "paper's rough-size band), <em>no</em> when it lies wholly outside, <em>inconclusive</em> when it straddles, "
            "<em>na</em> when nothing could be measured. With the reduced grid (--quick) every verdict is indicative. "
            "Mismatches are reported, not tuned away. A <em>reason</em> is a hypothesis until an ablation (the experiment "
            "re-run with the factor it names changed) tests it: <em>evidence</em> says what each ablation measured; a "
            "reason no ablation tested says <em>untested</em>, one an ablation contradicted says <em>refuted</em>. "
            "A published value repeated from another configuration is marked in <em>copied_from</em> and counted once.</p>"]
    overview = []
    for folder, s in summaries:
        h = s.get("holds", {})
        overview.append((s["paper"], s["title"], "quick (indicative)" if s.get("quick") else "full", s["runs"], s["failed"], h.get("yes", 0), h.get("no", 0),
                         h.get("inconclusive", 0), h.get("na", 0), h.get("copies", 0), len(s.get("ablations", []))))
    body.append("<h2>Overview</h2>")
    body.append(table(["paper", "title", "grid", "runs", "failed", "claims hold", "do not hold", "inconclusive", "not measurable", "copies (not counted)", "ablations"], overview))
    body.append("<ul>" + "".join(f'<li><a href="#{esc(s["paper"])}">{esc(s["title"])}</a> (<a href="{href(folder.name, "claims.csv")}">claims.csv</a>)</li>' for folder, s in summaries) + "</ul>")
    for folder, s in summaries:
        body.extend(_paper_section(folder, s))
    if out is not None:
        out_path = Path(out)
    else:
        out_path = root / "report.html"
        if out_path.is_symlink():
            raise ReportError(str(out_path), f"is a symbolic link (to {os.readlink(out_path)}); the report is written inside {root} only")
    atomic_write_text(out_path, page("wtcp: the papers reproduced", body))
    return out_path


# What `read_summary` requires of a summary.json: key -> accepted types.
_SUMMARY_FIELDS = {"paper": str, "title": str, "runs": int, "failed": int}
_SUMMARY_OPTIONAL = {"citation": str, "summary": str, "quick": bool, "wall_seconds": (int, float), "holds": dict, "claims": str, "figures": list, "experiments": list,
                     "ablations": list, "ablations_file": str}
_ABLATION_FIELDS = {"id": str, "experiment": str, "factor": str, "reason": str, "predict": str, "results": list}
_ABLATION_OPTIONAL = {"share": (int, float), "note": str, "sweep": str, "runs": int, "failed": int, "replications": int, "seed": int}
_NUMBER = (int, float, type(None))
_ABLATION_RESULT_FIELDS = {"claim": str, "outcome": str}
_ABLATION_RESULT_OPTIONAL = {"published": (str, int, float, type(None)), "unit": str, "base": (str, int, float, type(None)), "ablated": (str, int, float, type(None)),
                             "base_ci_low": _NUMBER, "base_ci_high": _NUMBER, "ablated_ci_low": _NUMBER, "ablated_ci_high": _NUMBER,
                             "change": _NUMBER, "change_ci_low": _NUMBER, "change_ci_high": _NUMBER, "base_verdict": str, "ablated_verdict": str, "why": str}
_FIGURE_FIELDS = {"title": str, "images": list}
_FIGURE_OPTIONAL = {"caption": str, "data": (str, type(None)), "table": bool, "id": str}
_EXPERIMENT_FIELDS = {"id": str, "title": str, "sweep": str, "sweep_file": str, "scenario_name": str, "sweep_text": str, "scenario_text": str,
                      "replications": object, "seed": object, "runs": object}
_EXPERIMENT_OPTIONAL = {"algorithms": (list, type(None)), "simulated_s": (int, float)}


def read_summary(path: Path, root: Path) -> dict[str, Any]:
    """A paper's `summary.json`, checked: the fields the report shows have their types, and
    every file it names (claims, figure images and data) is a relative path resolving
    inside `root`; otherwise `ReportError` with the field path."""
    where = str(path)
    if not paths.inside(root, path):
        raise ReportError(where, f"leads outside {root} (a symbolic link); allowed: the outputs of `wtcp reproduce` inside {root}")
    try:
        s = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ReportError(where, f"not a summary written by `wtcp reproduce` ({e})") from None
    except RecursionError:
        raise ReportError(where, "not a summary written by `wtcp reproduce` (nested too deeply)") from None
    _fields(s, _SUMMARY_FIELDS, _SUMMARY_OPTIONAL, where, "")
    folder = path.parent

    def contained(value: Any, field: str) -> None:
        if not isinstance(value, str) or not value:
            raise ReportError(f"{where}: {field}", f"must be a file name, not {value!r}")
        target = folder / value
        if not paths.inside(folder, target):
            how = " through a symbolic link" if target.is_symlink() else ""
            raise ReportError(f"{where}: {field}", f"is {value!r}, which leads outside {folder}{how}; allowed: a file inside {folder}")

    contained(s.get("claims", "claims.csv"), "claims")
    if "ablations_file" in s:
        contained(s["ablations_file"], "ablations_file")
    for i, a in enumerate(s.get("ablations", [])):
        _fields(a, _ABLATION_FIELDS, _ABLATION_OPTIONAL, where, f"ablations.{i}")
        for j, r in enumerate(a["results"]):
            _fields(r, _ABLATION_RESULT_FIELDS, _ABLATION_RESULT_OPTIONAL, where, f"ablations.{i}.results.{j}")
    for i, f in enumerate(s.get("figures", [])):
        _fields(f, _FIGURE_FIELDS, _FIGURE_OPTIONAL, where, f"figures.{i}")
        for j, image_file in enumerate(f["images"]):
            contained(image_file, f"figures.{i}.images.{j}")
        if f.get("data") is not None:
            contained(f["data"], f"figures.{i}.data")
    for i, e in enumerate(s.get("experiments", [])):
        _fields(e, _EXPERIMENT_FIELDS, _EXPERIMENT_OPTIONAL, where, f"experiments.{i}")
        if not all(isinstance(a, str) for a in e.get("algorithms") or []):
            raise ReportError(f"{where}: experiments.{i}.algorithms", "must be a list of algorithm names")
    return s


def _fields(value: Any, required: dict[str, Any], optional: dict[str, Any], where: str, path: str) -> None:
    if not isinstance(value, dict):
        raise ReportError(f"{where}: {path}" if path else where, f"must be an object, not {type(value).__name__}")
    for key, types in {**required, **optional}.items():
        field = f"{path}.{key}" if path else key
        if key not in value:
            if key in required:
                raise ReportError(f"{where}: {field}", "missing; a summary written by `wtcp reproduce` has it")
            continue
        v = value[key]
        if not isinstance(v, types) or (types is int and isinstance(v, bool)):
            names = " or ".join(t.__name__ for t in (types if isinstance(types, tuple) else (types,)))
            raise ReportError(f"{where}: {field}", f"is a {type(v).__name__}; allowed: {names}")


def _target_order() -> list[str]:
    from wtcp.reproduce.run import all_targets

    return all_targets()


def _paper_section(folder: Path, s: dict[str, Any]) -> list[str]:
    out = [f'<h2 id="{esc(s["paper"])}">{esc(s["title"])}</h2>']
    if s.get("citation"):
        out.append(f"<p class=\"meta\">{esc(s['citation'])}</p>")
    if s.get("summary"):
        out.append(f"<p>{esc(s['summary'])}</p>")
    grid = "reduced (--quick)" if s.get("quick") else "full"
    ablations_file = f", <a href=\"{href(folder.name, s['ablations_file'])}\">{esc(s['ablations_file'])}</a>" if s.get("ablations_file") else ""
    out.append(f"<p class=\"meta\">{esc(s['runs'])} runs ({esc(grid)} grid), {esc(s['failed'])} failed, {esc(s.get('wall_seconds'))} s wall; "
               f"files: <a href=\"{href(folder.name, 'claims.csv')}\">claims.csv</a>{ablations_file}, <code>{esc(folder.name)}/runs.duckdb</code></p>")
    h = s.get("holds", {})
    if h:
        # The paper at a glance first: its verdicts, then its figures, then the long tables.
        indicative = " Reduced grid: every verdict is indicative." if s.get("quick") else ""
        copies = f" {h.get('copies', 0)} copied claims are not counted." if h.get("copies") else ""
        out.append(table(["claims", "hold", "do not hold", "inconclusive", "not measurable"],
                         [(sum(int(h.get(k, 0)) for k in ("yes", "no", "inconclusive", "na")), h.get("yes", 0), h.get("no", 0), h.get("inconclusive", 0), h.get("na", 0))]))
        if indicative or copies:
            out.append(f"<p class=\"meta\">{esc((copies + indicative).strip())}</p>")
    figures = s.get("figures", [])
    if figures:
        out.append("<h3>Figures</h3>")
    tables: list[str] = []
    for f in figures:
        svg = [i for i in f["images"] if i.endswith(".svg")]
        png = [i for i in f["images"] if i.endswith(".png")]
        pick = (svg or png or [None])[0]
        out.append("<figure>")
        if pick is not None and (folder / pick).is_file():
            out.append(image(folder / pick, f["title"]))
        caption = esc(f["title"]) + (f" {esc(f['caption'])}" if f.get("caption") else "")
        links = " ".join(f'<a href="{href(folder.name, *Path(i).parts)}">{esc(Path(i).suffix[1:])}</a>' for i in f["images"])
        if f.get("data"):
            links += f' <a href="{href(folder.name, *Path(f["data"]).parts)}">csv</a>'
        out.append(f"<figcaption>{caption} [{links}]</figcaption></figure>")
        if f.get("table") and f.get("data") and (folder / f["data"]).is_file():
            tables.append(f"<details><summary>{esc(f['title'])}: the table</summary>{_figure_table(folder / f['data'])}</details>")
    claims_path = folder / s.get("claims", "claims.csv")
    if claims_path.is_file():
        claims = read_claims(claims_path)
        if claims:
            out.append("<h3>Published versus measured</h3>")
            out.append("<p class=\"meta\">measured: the mean over replications with its 95 % interval, to the precision of the published "
                       "number; <em>why</em> opens the reason, the evidence and notes.</p>")
            out.append(_claims_table(claims))
    if tables:
        out.append("<h3>Figure tables</h3>")
        out.extend(tables)
    if s.get("ablations"):
        out.extend(_ablations_section(s["ablations"]))
    out.append("<h3>Experiments and scenario definitions</h3>")
    for e in s.get("experiments", []):
        algos = ", ".join(e.get("algorithms") or []) or "as in the scenario"
        out.append(f"<h4>{esc(e['title'] or e['id'])}</h4>")
        out.append(f"<p class=\"meta\">sweep <code>{esc(e['sweep'])}</code> ({esc(e['sweep_file'])}), scenario <code>{esc(e['scenario_name'])}</code>; "
                   f"algorithms: {esc(algos)}; {esc(e['replications'])} replications, seed {esc(e['seed'])}; {esc(e['runs'])} runs, "
                   f"{esc(round(e.get('simulated_s', 0)))} simulated s</p>")
        factors = {"set": e.get("fixed"), "grid": e.get("grid"), "zip": e.get("zips"), "points": e.get("points")}
        out.append(f"<details><summary>sweep as run</summary><pre>{esc(json.dumps({k: v for k, v in factors.items() if v}, indent=1))}</pre>"
                   f"<pre>{esc(e['sweep_text'])}</pre></details>")
        out.append(f"<details><summary>scenario {esc(e['scenario_name'])}</summary><pre>{esc(e['scenario_text'])}</pre></details>")
    return out


def _figure_table(path: Path) -> str:
    import pandas as pd

    size = path.stat().st_size
    if size > MAX_TABLE_BYTES:
        # A figure's table is a few kB; a huge file (damaged, or planted) is linked, not read.
        raise ReportError(str(path), f"is {size / 2**20:.0f} MiB; a figure's table written by `wtcp reproduce` is under {MAX_TABLE_BYTES // 2**20} MiB")
    try:
        data = pd.read_csv(path)
    except (ValueError, UnicodeDecodeError) as e:  # pandas' ParserError, EmptyDataError
        raise ReportError(str(path), f"not a table written by `wtcp reproduce` ({e})") from None
    return frame_table(data)


def decimals_of(text: str) -> int | None:
    """Digits after the point of a number as written (`"1.80"` -> 2), None if not one."""
    text = text.strip()
    if not _is_number(text):
        return None
    mantissa = text.lower().split("e")[0]
    return len(mantissa.split(".")[1]) if "." in mantissa else 0


def rounded(text: str, decimals: int | None) -> str:
    """A measured number to `decimals` places, or to 3 significant digits without a
    published number to match; text that is not one number (a ranking) made readable:
    each `name,value` of `a,v > b,w` as `name value` with the value rounded."""
    text = (text or "").strip()
    if _is_number(text):
        v = float(text)
        if math.isnan(v):
            return ""
        if decimals is not None:
            return f"{v:.{min(decimals + 1, 6)}f}"
        return f"{v:.3g}"
    if " > " in text or " < " in text:
        sep = " > " if " > " in text else " < "
        parts = []
        for part in text.split(sep):
            label, _, value = part.strip().rpartition(" ")
            parts.append(f"{label.replace(',', ' ')} {rounded(value, decimals)}" if _is_number(value) else part.strip())
        return sep.join(parts)
    return text


def _claims_table(claims: list[dict[str, str]]) -> str:
    """Claims in seven columns that fit a page: the claim with its source, the published
    and measured numbers (measured rounded to the published precision, one place more,
    with its interval), the unit, the verdict, and the reason and evidence folded."""
    head = "".join(f"<th>{c}</th>" for c in ("id", "claim", "published", "measured [95 % interval]", "unit", "holds", "why"))
    rows = [f"<table class=\"claims\"><thead><tr>{head}</tr></thead><tbody>"]
    for c in claims:
        places = decimals_of(c.get("published", ""))
        measured = rounded(c.get("measured", ""), places)
        low, high = rounded(c.get("ci_low", ""), places), rounded(c.get("ci_high", ""), places)
        interval = f" [{low}, {high}]" if low and high else ""
        verdict = c.get("holds", "")
        why = [f"<p>{esc(c['reason'])}</p>" if c.get("reason") else "", f"<p class=\"meta\">evidence: {esc(c['evidence'])}</p>" if c.get("evidence") else "",
               f"<p class=\"meta\">copied from {esc(c['copied_from'])}</p>" if c.get("copied_from") else "", f"<p class=\"meta\">{esc(c['note'])}</p>" if c.get("note") else ""]
        folded = f"<details><summary>why</summary>{''.join(why)}</details>" if any(why) else ""
        rows.append(
            f"<tr><td>{esc(c.get('id', ''))}</td><td>{esc(c.get('claim', ''))}<div class=\"meta\">{esc(c.get('source', ''))}</div></td>"
            f"<td class=\"num\">{esc(c.get('published', ''))}</td><td class=\"num\">{esc(measured + interval)}</td><td>{esc(c.get('unit', ''))}</td>"
            f"<td class=\"{VERDICT_CLASSES.get(verdict, '')}\">{esc(verdict)}</td><td>{folded}</td></tr>"
        )
    rows.append("</tbody></table>")
    return "".join(rows)


def _ablations_section(ablations: list[dict[str, Any]]) -> list[str]:
    """Each ablation: what it changed, the reason it tests and its prediction, then per
    explained claim the base and ablated measurement and whether the prediction held."""
    out = ["<h3>Ablations</h3>", "<p class=\"meta\">Each ablation re-runs one experiment with one factor changed (same seed and "
           "replications) and measures the claims it explains again; <em>change</em> is ablated minus base with its 95 % interval "
           "(paired by replication where possible). The rules of the predictions are in docs/reproduction.md.</p>"]
    cols = ["claim", "published", "unit", "base", "base interval", "base verdict", "ablated", "ablated interval", "ablated verdict", "change", "change interval", "prediction", "why"]
    for a in ablations:
        share = f" (share {a['share']:g})" if isinstance(a.get("share"), (int, float)) and a.get("predict") in ("toward_published", "no_change") else ""
        runs = f"; {a['runs']} runs, {a.get('failed', 0)} failed" if isinstance(a.get("runs"), int) else ""
        out.append(f"<h4>{esc(a['id'])}</h4>")
        out.append(f"<p>Experiment <code>{esc(a['experiment'])}</code>, changed: <code>{esc(a['factor'])}</code>{esc(runs)}.<br>"
                   f"Reason tested: {esc(a['reason'])}<br>Prediction: <code>{esc(a['predict'])}</code>{esc(share)}</p>")
        if a.get("note"):
            out.append(f"<p class=\"meta\">{esc(a['note'])}</p>")
        rows = []
        for r in a["results"]:
            rows.append((r["claim"], r.get("published"), r.get("unit", ""), r.get("base"), _interval(r.get("base_ci_low"), r.get("base_ci_high")), r.get("base_verdict", ""),
                         r.get("ablated"), _interval(r.get("ablated_ci_low"), r.get("ablated_ci_high")), r.get("ablated_verdict", ""),
                         r.get("change"), _interval(r.get("change_ci_low"), r.get("change_ci_high")), r["outcome"], r.get("why", "")))
        out.append(table(cols, rows, classes={"base verdict": "", "ablated verdict": "", "prediction": ""}))
    return out


def _interval(low: Any, high: Any) -> str:
    if isinstance(low, (int, float)) and isinstance(high, (int, float)) and not (math.isnan(low) or math.isnan(high)):
        return f"[{low:.4g}, {high:.4g}]"
    return ""


# --- the store report ---


def store_report(store_path: str | Path, out: str | Path | None = None, metric: str = "goodput_mbps") -> Path:
    """Write an HTML page summarising every sweep of a result store: runs, the metric's
    mean and 95 % interval per point and algorithm, a figure per sweep, the sweep's
    definition and the seeds. A store another process is writing is read from a snapshot
    of the results committed so far (the page says so); DuckDB errors are `StoreError`."""
    import tempfile
    from contextlib import ExitStack

    from wtcp.reproduce.figures import Figure, draw
    from wtcp.reproduce.measure import with_derived
    from wtcp.sweep.store import readable_store, summarize

    store_path = Path(store_path)
    stack = ExitStack()
    store, note = stack.enter_context(readable_store(store_path))
    try:
        sweeps = store.sweeps()
        defs = store.definitions()
        body = [f"<p>Result store <code>{esc(store_path.name)}</code>: {len(sweeps)} sweep(s).</p>"]
        if note:
            body.append("<p class=\"meta\">A snapshot: another process was writing the store, so this page shows the results committed when it was made.</p>")
        body.append(table(["sweep", "runs", "done", "failed", "simulated s", "wall s"], ((r.sweep, r.runs, r.done, r.failed, round(_total(r.sim_seconds)), round(_total(r.wall_seconds), 1)) for r in sweeps.itertuples(index=False))))
        with tempfile.TemporaryDirectory() as tmp:
            for row in sweeps.itertuples(index=False):
                name = row.sweep
                body.append(f"<h2>{esc(name)}</h2>")
                flows = store.flows(name)
                runs = store.runs(name)
                seeds = sorted({int(x) for x in runs["seed"].dropna()})
                reps = int(runs["replication"].max()) + 1 if runs["replication"].notna().any() else 0
                body.append(f"<p class=\"meta\">seeds {esc(', '.join(map(str, seeds)))}; {reps} replication(s); wtcp {esc(', '.join(sorted(set(runs['wtcp_version'].dropna()))))}</p>")
                failed = runs[runs["status"] == "failed"]
                if len(failed):
                    body.append(f"<details><summary>{len(failed)} failed run(s)</summary>" + frame_table(failed[["key", "params", "algorithm", "replication", "error"]]) + "</details>")
                if flows.empty:
                    continue
                flows = with_derived(flows)
                if metric not in flows.columns:
                    from wtcp.sweep.store import UnknownMetric, numeric_columns

                    raise ReportError(f"--metric {metric}", str(UnknownMetric(metric, numeric_columns(flows, ("key", "flow_id", "id", "seed", "replication", *store.param_columns())))))
                params = [c for c in store.param_columns() if c in flows.columns and flows[c].notna().any()]
                by = [*params, "algorithm", "name"]
                summary = summarize(flows, metric, by)
                body.append(frame_table(summary))
                numeric = [p for p in params if flows[p].map(lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)).all() and flows[p].nunique() > 1]
                # One swept number: `Store.plot`'s figure (units on the axes, a floor at zero
                # for a metric that cannot be negative, a log axis for a bit-error rate).
                # Otherwise, or where it would mix runs that differ in another swept value,
                # the reproduction's bars or lines.
                svg = store_figure(store, name, numeric[0], metric, Path(tmp) / f"{_safe(name)}.svg") if len(numeric) == 1 else None
                if svg is not None:
                    title = f"{name}: {metric}"
                    body.append(f"<figure>{image(svg, title)}<figcaption>{esc(title)} (total of the flows of a run; mean over replications, 95 % interval)</figcaption></figure>")
                    images = []
                else:
                    # Swept-path columns name themselves: param_column(column) == column.
                    spec = {"id": "fig", "metric": metric, "flows": "sum", "title": f"{name}: {metric}", **({"x": numeric[0]} if numeric else {})}
                    drawn = draw(Figure(id="fig", kind="lines" if numeric else "bars", spec=spec), flows, Path(tmp) / _safe(name))
                    images = [(img, drawn.title) for img in drawn.images]
                for img, title in images:
                    if img.suffix == ".svg":
                        body.append(f"<figure>{image(img, title)}<figcaption>{esc(title)} (total of the flows of a run; mean over replications, 95 % interval)</figcaption></figure>")
                delay_svg = delay_figure(store, name, flows, Path(tmp) / f"{_safe(name)}-delay.svg")
                if delay_svg is not None:
                    title = f"{name}: throughput against p95 one-way delay"
                    body.append(f"<figure>{image(delay_svg, title)}<figcaption>{esc(title)} (Pantheon's plane: a point per TCP flow of a run, per algorithm the mean with its 95 % interval on both axes; delay on an inverted log axis)</figcaption></figure>")
                d = defs.get(name)
                if d:
                    body.append(f"<details><summary>sweep definition</summary><pre>{esc(d['definition'])}</pre></details>")
                    body.append(f"<details><summary>base scenario</summary><pre>{esc(d['scenario'])}</pre></details>")
    finally:
        stack.close()
    out_path = Path(out) if out is not None else store_path.with_suffix(".html")
    atomic_write_text(out_path, page(f"wtcp results: {store_path.name}", body))
    return out_path


def store_figure(store: Any, sweep: str, x: str, metric: str, path: Path) -> Path | None:
    """`Store.plot` of `metric` (the sum of a run's flows) against `x` for `sweep`, one
    series per algorithm, written as SVG to `path`; None if the plot cannot show the sweep
    as one line per algorithm (`PlotError`: runs that differ in something else)."""
    import matplotlib.pyplot as plt

    from wtcp.plot import PlotError

    try:
        fig = store.plot(x=x, y=metric, hue="cc", path=path, sweep=sweep, flows="sum", title=f"{sweep}: {metric}")
    except PlotError:
        return None
    plt.close(fig)
    return path


def delay_figure(store: Any, sweep: str, flows: pd.DataFrame, path: Path) -> Path | None:
    """`Store.plot_delay_throughput` for `sweep` as SVG at `path`, when its TCP flows
    recorded delays (`metrics.delays`); None otherwise."""
    import matplotlib.pyplot as plt

    from wtcp.plot import PlotError

    tcp = flows[flows["kind"] == "tcp"] if "kind" in flows.columns else flows
    if "delay_p95_ms" not in tcp.columns or not tcp["delay_p95_ms"].notna().any():
        return None
    try:
        fig = store.plot_delay_throughput(path, sweep=sweep)
    except PlotError:
        return None
    plt.close(fig)
    return path


def _total(value: Any) -> float:
    """A sum over runs, 0 when no run has the value (NULL, NaN in pandas)."""
    return 0.0 if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name)[:60] or "sweep"
