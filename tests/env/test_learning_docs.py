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

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.processes


def test_the_learning_page_runs() -> None:
    text = (ROOT / "docs" / "learning.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 4
    done = subprocess.run(
        [sys.executable, "-c", "\n".join(blocks)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(done.stdout.splitlines()) == 3  # each example's totals or returns
