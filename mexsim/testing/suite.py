"""``check_strategy``: the whole contract on one strategy, and what its decisions cost."""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from numba.core.errors import NumbaExperimentalFeatureWarning

from mexsim.errors import ConfigError
from mexsim.game.strategy_output import output_counted
from mexsim.strategy.registry import (
    StrategyInfo,
    available_strategies,
    broken_strategies,
    load_strategy_file,
    strategy_names,
)
from mexsim.testing import probes
from mexsim.testing.contract import Checker, ContractViolation, Decision
from mexsim.testing.crossprocess import choices_elsewhere
from mexsim.testing.games import games

ROUNDS_A_MATCH = 13  # double-12, the usual set: what the cost estimate assumes
TIMED_PASSES = 20  # calls per state when timing (the fastest counts)


class _LoadFailure(Exception):
    """A strategy file that is there but does not import, compile or pass the vetting;
    ``check`` is the contract's clause it breaks."""

    def __init__(self, message: str, check: str = "loads") -> None:
        super().__init__(message)
        self.check = check


def _condensed(message: str) -> str:
    """numba's many-line compile error as its first line and the innermost place in the
    strategy's own code ('File "...", line N' and that line)."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    if not lines:
        return message
    head = lines[0]
    pipeline = "Failed in nopython mode pipeline (step: nopython frontend)"
    if head.endswith(pipeline) and len(lines) > 1:  # the cause is numba's next line
        head = head[: -len(pipeline)] + lines[1]
    places = [i for i, line in enumerate(lines) if line.startswith("File ")]
    if places:
        i = places[0]
        head += f"\n  at {lines[i].rstrip(':')}" + (
            f": {lines[i + 2]}" if i + 2 < len(lines) else ""
        )
    return head


@dataclass
class CheckReport:
    """What ``check_strategy`` found: a failure, or the timings of a pass."""

    name: str
    failure: ContractViolation | None
    rounds: int = 0
    decisions: int = 0
    median_ns: float = 0.0
    p99_ns: float = 0.0
    mean_ns: float = 0.0
    decisions_a_round: float = 0.0
    printed: int = 0  # lines the strategy printed while deciding (not shown)

    @property
    def passed(self) -> bool:
        return self.failure is None

    @property
    def million_match_seconds(self) -> float:
        """CPU seconds its decisions take in 1,000,000 double-12 matches, one seat."""
        return self.mean_ns * 1e-9 * self.decisions_a_round * ROUNDS_A_MATCH * 1e6


def resolve(target: str, strategy_dirs: Sequence[str | Path] = ()) -> StrategyInfo:
    """A strategy by name (the folders the registry searches), or a ``.py`` file.

    ConfigError (a usage error) for a name not found or a missing file; a file that is
    there but does not load is the contract's first failed check, 'loads'."""
    if target.endswith(".py"):
        if not Path(target).is_file():
            raise ConfigError(f"{target}: strategy file not found")
        try:
            return load_strategy_file(Path(target).resolve())
        except ConfigError as exc:
            raise _LoadFailure(_condensed(str(exc)), getattr(exc, "check", "loads")) from None
    known = available_strategies(strategy_dirs, [target])
    broken = broken_strategies(strategy_dirs, [target]).get(target)
    if target not in known and broken is not None:
        # its file is there but set aside: the contract's first failed check, as for its
        # path ('not a known strategy' sent the author looking for a typo)
        raise _LoadFailure(_condensed(broken))
    if target not in known:
        raise ConfigError(
            f"'{target}' is not a known strategy (allowed: "
            f"{', '.join(strategy_names(strategy_dirs))}); give a name or a .py file"
        )
    return known[target]


def check_strategy(
    target: str | StrategyInfo,
    strategy_dirs: Sequence[str | Path] = (),
    examples: int = 50,
    seed: int = 0,
    params: Sequence[float] | None = None,
) -> CheckReport:
    """Check a strategy (name, file or loaded) against the contract (mexsim.testing.contract).

    Raises ConfigError for a strategy name not found or a file not there.
    ``examples`` drawn games (rounds), hypothesis ``seed``; ``params`` default to the
    strategy's PARAMS. A failure is shrunk to the smallest game hypothesis finds."""
    name = target if isinstance(target, str) else target.name
    try:
        info = target if isinstance(target, StrategyInfo) else resolve(target, strategy_dirs)
    except _LoadFailure as exc:
        return CheckReport(name, ContractViolation(exc.check, str(exc)))
    name = info.name
    values = tuple(info.params.values()) if params is None else tuple(params)
    decide = info.decide_with(values)  # a built-in's form for these values
    try:
        checked, returned = probes.checked_compile(decide.py_func)
    except Exception as exc:  # numba's compile error, in the words numba gives
        return CheckReport(
            name, ContractViolation("loads", _condensed(f"{type(exc).__name__}: {exc}"))
        )
    fault = probes.return_fault(returned)
    if fault is not None:
        return CheckReport(name, ContractViolation("returns an integer", fault))
    checker = Checker(info, values, checked)

    @hypothesis_seed(seed)
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=False,
        verbosity=Verbosity.quiet,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
    )
    @given(games())
    def play(game):
        checker.play(game)

    with output_counted() as printed:
        try:
            play()
        except ContractViolation as exc:
            report = CheckReport(name, exc, checker.rounds, checker.decisions)
        else:
            report = CheckReport(name, None, checker.rounds, checker.decisions)
            report.failure = _across_processes(info, checker.kept)
            if report.failure is None:
                _time(decide, checker.kept, report)
    report.printed = printed.lines
    return report


def _across_processes(info: StrategyInfo, kept: list[Decision]) -> ContractViolation | None:
    if not kept:
        return None
    views = np.stack([d.view for d in kept])
    params = np.stack([d.params for d in kept])
    elsewhere = choices_elsewhere(info.path, views, params)
    if isinstance(elsewhere, str):
        return ContractViolation("deterministic across processes", elsewhere)
    for d, other in zip(kept, elsewhere, strict=False):
        if other != d.choice:
            return ContractViolation(
                "deterministic across processes",
                f"this process chose move {d.choice}, a fresh one move {other} (does it "
                "depend on an address, the clock, a process id or a hash?)",
                d,
            )
    return None


def _time(decide: Any, kept: list[Decision], report: CheckReport) -> None:
    """Per-state time of the real (unchecked) compile, best of TIMED_PASSES calls."""
    if not kept:
        return
    views = np.stack([d.view for d in kept])
    params = np.stack([d.params for d in kept])
    ticks = np.zeros(len(kept), dtype=np.int64)
    with warnings.catch_warnings():  # numba calls first-class functions "experimental"
        warnings.simplefilter("ignore", NumbaExperimentalFeatureWarning)
        probes.time_decisions((decide,), views[:1], params[:1], 1, ticks[:1])  # compile
        c0, t0 = probes.now_cycles(), time.perf_counter_ns()
        probes.time_decisions((decide,), views, params, TIMED_PASSES, ticks)
        c1, t1 = probes.now_cycles(), time.perf_counter_ns()
    if c1 <= c0:  # no cycle counter on this CPU: a mean only, from the wall clock
        ns = np.full(len(kept), (t1 - t0) / (TIMED_PASSES * len(kept)))
    else:
        ns = np.sort(ticks * ((t1 - t0) / (c1 - c0)))
    report.median_ns = float(ns[len(ns) // 2])
    report.p99_ns = float(ns[min(len(ns) - 1, int(len(ns) * 0.99))])
    report.mean_ns = float(ns.mean())
    report.decisions_a_round = report.decisions / max(1, report.rounds)
