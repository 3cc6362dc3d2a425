"""The example notebooks run from top to bottom without an error, in a kernel of the
interpreter running the tests and with the wtcp the tests import."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

import wtcp

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))
KERNEL = "wtcp-tests"
# Appended to the executed copy: where the kernel's interpreter and wtcp come from.
WHERE = "import sys, json, wtcp; print(json.dumps({'python': sys.executable, 'wtcp': wtcp.__file__}))"


def kernel_manager(directory: Path) -> KernelManager:
    """A kernel of `sys.executable` that imports wtcp from where this process did: a kernel
    spec of its own (not whatever `python3` kernel Jupyter would find first), with the
    directory holding the `wtcp` package first on PYTHONPATH."""
    spec_dir = directory / "kernels" / KERNEL
    spec_dir.mkdir(parents=True)
    package_root = str(Path(wtcp.__file__).resolve().parents[1])
    path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p)
    spec = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"], "display_name": KERNEL,
            "language": "python", "env": {"PYTHONPATH": path}}
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    return KernelManager(kernel_name=KERNEL, kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(directory / "kernels")]))


def test_there_are_example_notebooks():
    assert [p.name for p in NOTEBOOKS] == ["quickstart.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_stored_without_outputs(path):
    # Outputs (PNG figures, timings) would bloat the repository and go stale; running the
    # notebook makes them.
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: a cell with outputs: {cell.source[:60]!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_without_an_error(path, tmp_path):
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(WHERE))
    client = nbclient.NotebookClient(notebook, km=kernel_manager(tmp_path), timeout=120,
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError, with the cell and its traceback, on any error
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    where = json.loads(notebook.cells[-1].outputs[0]["text"])
    assert where == {"python": sys.executable, "wtcp": wtcp.__file__}
    images = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]
    assert len(images) == 3  # cwnd, time-sequence, goodput against loss
