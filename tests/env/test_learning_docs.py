"""docs/learning.md's examples run as written: the page a learning user copies from is
never stale."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("pyspiel")
pytest.importorskip("sklearn")

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.processes


def test_the_learning_page_runs(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "learning.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 6
    code = "\n".join(blocks).replace('"results/decisions"', repr(str(tmp_path / "res")))
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    # the examples' totals and returns, the dataset's size, the fitted [params] table
    assert lines[4] == "[params]" and len(lines) == 14
    assert [line.split(" = ")[0] for line in lines[5:13]] == [
        "pips", "double", "own", "public", "plan", "follow", "starve", "trap"
    ]  # fmt: skip
    assert (tmp_path / "res" / "decisions.parquet").is_file()
