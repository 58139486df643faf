"""docs/python.md's examples run as written (a smaller tournament, into a temporary
folder): the page a notebook user copies from is never stale."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.processes


def test_the_python_page_runs(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 2
    code = "\n".join(blocks)
    code = code.replace('"results/notebook"', repr(str(tmp_path / "res"))).replace(
        "matches=4000", "matches=200"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "MPLBACKEND": "Agg"},
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "longest_train" in done.stdout
    assert (tmp_path / "res" / "summary.csv").is_file()
