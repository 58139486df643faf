"""docs/notebooks/tournament.ipynb runs as written, every cell, in a Jupyter kernel
(nbclient), a smaller tournament into a temporary folder: its plot is drawn."""

from __future__ import annotations

from pathlib import Path

import pytest

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.processes


def test_the_notebook_runs_and_draws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    notebook = nbformat.read(ROOT / "docs" / "notebooks" / "tournament.ipynb", as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.source = cell.source.replace('"results/notebook"', repr(str(tmp_path / "r")))
            cell.source = cell.source.replace("matches=4000", "matches=200")
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    client = nbclient.NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()  # raises CellExecutionError, naming the cell, when one fails
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert any("image/png" in o.get("data", {}) for o in outputs)
    assert "longest_train" in "".join(o.get("text", "") for o in outputs)
    assert (tmp_path / "r" / "summary.csv").is_file()
