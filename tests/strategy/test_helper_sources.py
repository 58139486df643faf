"""A strategy that imports a helper module of the user's is compiled afresh when the
helper is edited, and the helper is in the run id (issue 32, row 6: numba keyed the
cached decide on its own file only, so threads played the old helper's code, and the
run id was the same before and after the edit)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mexsim.tournament.identity import run_id, run_identity
from tests.tournament.runs import ROOT, config_text, write_config

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


@pytest.fixture(autouse=True)
def no_helper_module_left() -> Iterator[None]:
    """A helper module another test's strategy imported in this process stays in
    sys.modules under its name, and a strategy loaded here would bind that one."""
    search = list(sys.path)
    sys.modules.pop("helper_mod", None)
    yield
    sys.modules.pop("helper_mod", None)
    sys.path[:] = search


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


PLAYS_HELPER = """\
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from helper_mod import pick  # noqa: E402

from mexsim.strategy.api import move_count, strategy  # noqa: E402

NAME = "uses_helper"
DESCRIPTION = "the legal move its helper module names"


@strategy
def decide(view, params):
    return pick() % move_count(view)
"""


@pytest.mark.processes
@pytest.mark.compiles
@pytest.mark.slow
def test_a_cluster_plays_the_helper_module_it_was_given(tmp_path: Path) -> None:
    """A cluster's workers get the helper modules beside the strategy file (a worker
    elsewhere has none of them): a local cluster writes the threads' bytes."""
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "helper_mod.py").write_text(HELPER.format(value=1))
    (plugins / "uses_helper.py").write_text(PLAYS_HELPER)
    players = '[[players]]\nstrategy = "uses_helper"\n[[players]]\nstrategy = "greedy"\n'
    cfg = write_config(tmp_path, config_text(tmp_path / "unused", matches=64, players=players))
    for out, extra in (("threads", []), ("cluster", ["--cluster", "local:1"])):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "mexsim",
                "run",
                str(cfg),
                "--strategies",
                str(plugins),
                "--out",
                str(tmp_path / out),
                "--quiet",
                *extra,
            ],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert done.returncode == 0, done.stderr
    for name in ("rounds.parquet", "matches.parquet"):
        assert (tmp_path / "threads" / name).read_bytes() == (
            tmp_path / "cluster" / name
        ).read_bytes()


def test_a_clusters_workers_are_given_the_helper_modules(tmp_path: Path) -> None:
    """What a cluster's workers get (mexsim.running.dask.cluster.strategy_sources): the
    strategy file and, beside it, its helper module as it is now (a local cluster's
    workers could also import it from here, a remote one's could not)."""
    from mexsim.running.dask.cluster import HELPER_KEY, strategy_sources
    from mexsim.tournament.config import load_config

    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "helper_mod.py").write_text(HELPER.format(value=1))
    (plugins / "uses_helper.py").write_text(PLAYS_HELPER)
    players = '[[players]]\nstrategy = "uses_helper"\n[[players]]\nstrategy = "greedy"\n'
    text = config_text(tmp_path / "r", matches=8, players=players)
    cfg = write_config(tmp_path, text)
    sources = strategy_sources(load_config(cfg, strategy_dirs=[str(plugins)]))
    assert sorted(sources) == [f"{HELPER_KEY}helper_mod.py", "uses_helper"]
    name, source, here = sources[f"{HELPER_KEY}helper_mod.py"]
    assert (name, here) == ("helper_mod.py", str(plugins / "helper_mod.py"))
    assert source == HELPER.format(value=1)


def test_a_long_lived_worker_plays_each_runs_helper_module(tmp_path: Path) -> None:
    """A remote worker serves many runs in one process: the helper module an earlier
    run's strategy imported stayed in sys.modules under its name, and a later run with
    the helper edited would have played the old one."""
    import numpy as np

    from mexsim.game.view import N_MOVES, SIZE
    from mexsim.running.dask.cluster import _worker_config, _worker_strategies, strategy_sources
    from mexsim.tournament.config import load_config

    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "uses_helper.py").write_text(PLAYS_HELPER)
    players = '[[players]]\nstrategy = "uses_helper"\n[[players]]\nstrategy = "greedy"\n'
    cfg = write_config(tmp_path, config_text(tmp_path / "r", matches=8, players=players))
    view = np.zeros(SIZE, dtype=np.int64)
    view[N_MOVES] = 5
    chosen = []
    try:
        for value in (1, 2):
            (plugins / "helper_mod.py").write_text(HELPER.format(value=value))
            config = load_config(cfg, strategy_dirs=[str(plugins)])
            sources = strategy_sources(config)
            client = sys.modules.get("helper_mod")  # the client's: the worker is elsewhere
            if client is not None and Path(client.__file__).parent == plugins:
                del sys.modules["helper_mod"]
            known = _worker_strategies(_worker_config(config, sources), sources)
            chosen.append(int(known["uses_helper"].decide(view, np.zeros(8))))
    finally:
        sys.modules.pop("helper_mod", None)
    assert chosen == [1, 2]
