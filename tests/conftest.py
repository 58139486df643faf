"""The suite's set-up: on a cold numba cache, compile once before the test processes start.

`make test` spreads the test files over processes (pytest-xdist), and every process
collects every file; tests/strategies_hyp.py loads the built-in strategies at import,
so on a cold cache (every CI run) each process compiled longest_train's planner and
the other built-ins at collection, all at once, the same machine code N times over.
The controller compiles them first, in parallel jobs (mexsim/running/warmup.py, as `mexsim run`
does), and the processes load them from the cache. A run in one process (no ``-n``)
skips this and compiles only what its tests need.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import tests.profiles  # noqa: F401  the Hypothesis profile, loaded before any test

ROOT = Path(__file__).resolve().parents[1]


class _DropInOutsideTheProject(os.PathLike):
    """The working directory's ``strategies/`` (mexsim.strategy.registry.DROP_IN_FOLDER)
    as the tests see it: the project's own folder is the user's (the README's tour
    writes there), so from the project's root the tests see none; a test that moves to
    a folder of its own finds that folder's, as a user there would."""

    def __fspath__(self) -> str:
        if Path.cwd().resolve() == ROOT:
            return str(ROOT / "tests" / "fixtures" / "no-drop-in-folder")
        return "strategies"


def _ignore_the_users_strategies() -> None:
    from mexsim.strategy import registry

    registry.DROP_IN_FOLDER = _DropInOutsideTheProject()  # type: ignore[assignment]


def pytest_configure(config: pytest.Config) -> None:
    _ignore_the_users_strategies()
    if hasattr(config, "workerinput"):  # a test process: its controller warmed the cache
        return
    if not getattr(config.option, "numprocesses", None):
        return  # one process (a test file after an edit): it compiles only what it needs
    from contextlib import nullcontext

    from mexsim.game.engine_cache import engine_is_cold
    from mexsim.jit.compile_notice import compile_notice
    from mexsim.running.warmup import warm_up

    capture = config.pluginmanager.getplugin("capturemanager")
    # its compile notice on the terminal, as `mexsim run` shows it: not minutes of silence
    shown = capture.global_and_fixture_disabled() if capture else nullcontext()
    with shown, compile_notice(is_cold=engine_is_cold):
        warm_up()
