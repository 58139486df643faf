"""scripts/learn_weights.py runs end to end, small: decisions recorded, a conditional
logit fitted, the weights written as a params file and played with `mexsim.run`."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytest.importorskip("sklearn")

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.processes


def test_the_learning_loop_runs_small(tmp_path: Path) -> None:
    out = tmp_path / "learn"
    done = subprocess.run(
        [
            sys.executable,
            "scripts/learn_weights.py",
            "--record",
            "40",
            "--play",
            "60",
            "--teacher",
            "longest_train",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    fitted = tomllib.loads((out / "fitted.toml").read_text(encoding="utf-8"))["params"]
    assert list(fitted) == ["pips", "double", "own", "public", "plan", "follow", "starve", "trap"]
    assert max(abs(v) for v in fitted.values()) == pytest.approx(200.0)
    assert "choose as longest_train did in" in done.stdout
    assert "fitted weights ahead of longest_train in" in done.stdout
    assert (out / "recorded" / "decisions.parquet").is_file()
