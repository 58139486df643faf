"""Deterministic across processes: a fresh interpreter replays the recorded decisions.

``python -m mexsim.testing.crossprocess PATH`` loads the strategy file at PATH, reads
the states (an ``.npz`` of views and params) from stdin and prints its choices, one a
line. Anything that differs between processes — an address, a process id, the clock,
a hash seed — shows as another choice for the same state.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np


def choices_elsewhere(
    path: str, views: np.ndarray, params: np.ndarray, timeout: float = 300.0
) -> list[int] | str:
    """The moves a fresh process makes on the states, or the reason it could not say."""
    buffer = io.BytesIO()
    np.savez(buffer, views=views, params=params)
    env = dict(os.environ, PYTHONHASHSEED="random")
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    # run from mexsim's own root: ``-m`` puts the working folder first on the path, and
    # a folder holding another copy of mexsim (a checkout) gave the second process that
    # copy's strategy code (a strategy there a failure that was not its own)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "mexsim.testing.crossprocess", os.path.abspath(path)],
            input=buffer.getvalue(),
            capture_output=True,
            timeout=timeout,
            env=env,
            check=False,
            cwd=root,
        )
    except subprocess.TimeoutExpired:
        return f"the second process took over {timeout:.0f} s"
    if done.returncode != 0:
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        return f"the second process failed ({lines[-1] if lines else done.returncode})"
    return [int(line) for line in done.stdout.decode().split()]


def main() -> None:
    from mexsim.game.strategy_output import output_counted
    from mexsim.strategy.registry import load_strategy_file

    info = load_strategy_file(Path(sys.argv[1]))
    data = np.load(io.BytesIO(sys.stdin.buffer.read()))
    views, params = data["views"], data["params"]
    with output_counted():  # what the strategy prints is not one of its choices
        out = [
            str(
                int(
                    info.decide_with(tuple(params[k][: len(info.params)]))(
                        views[k].copy(), params[k].copy()
                    )
                )
            )
            for k in range(len(views))
        ]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
