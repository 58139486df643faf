"""A strategy that imports a helper module of the user's is compiled afresh when the
helper is edited, and the helper is in the run id (issue 32, row 6: numba keyed the
cached decide on its own file only, so threads played the old helper's code, and the
run id was the same before and after the edit)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from mexsim.tournament.identity import run_id, run_identity
from tests.tournament.runs import ROOT

HELPER = """\
from numba import njit


@njit(cache=True)
def pick():
    return {value}
"""

USES_HELPER = """\
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from helper_mod import pick  # noqa: E402

from mexsim.strategy.api import strategy  # noqa: E402

NAME = "uses_helper"
DESCRIPTION = "the move its helper module names"


@strategy
def decide(view, params):
    return pick()
"""

LOAD = """\
import sys
import numpy as np
from mexsim.strategy.registry import available_strategies
info = available_strategies([sys.argv[1]])["uses_helper"]
print(info.decide(np.zeros(8, dtype=np.int64), np.zeros(1)))
print("|".join(info.sources))
"""


def _load(folder: Path) -> tuple[int, list[str]]:
    """The strategy loaded in a new process (numba's disk cache, as a second run)."""
    done = subprocess.run(
        [sys.executable, "-c", LOAD, str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    choice, sources = done.stdout.splitlines()[-2:]
    return int(choice), sources.split("|")


def test_an_edited_helper_module_is_played_and_changes_the_run_id(tmp_path: Path) -> None:
    helper = tmp_path / "helper_mod.py"
    helper.write_text(HELPER.format(value=0))
    (tmp_path / "uses_helper.py").write_text(USES_HELPER)
    choice, sources = _load(tmp_path)
    assert choice == 0
    assert [Path(s).name for s in sources] == ["uses_helper.py", "helper_mod.py"]
    before = run_id(run_identity({"run": {}}, {"uses_helper": sources}))

    helper.write_text(HELPER.format(value=1))  # the same size: only the content differs
    stamp = helper.stat().st_mtime + 10
    os.utime(helper, (stamp, stamp))
    choice, sources = _load(tmp_path)
    assert choice == 1  # not the cached code compiled with the old helper
    assert run_id(run_identity({"run": {}}, {"uses_helper": sources})) != before

    helper.write_text(HELPER.format(value=0))  # back: the first entry's code again
    os.utime(helper, (stamp + 10, stamp + 10))
    assert _load(tmp_path)[0] == 0
