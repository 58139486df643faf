"""The strategy contract, public: what ``mexsim check`` runs, for a user's pytest too.

    from mexsim.testing import assert_strategy_passes

    def test_my_strategy():
        assert_strategy_passes("strategies/my_strategy.py", examples=30)

or ``check_strategy(...)`` for the report itself (passed, failure, timings). The checks
are listed in mexsim.testing.contract. Needs hypothesis (a dependency of mexsim).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mexsim.testing.contract import CHECKS, ContractViolation
from mexsim.testing.report import format_report
from mexsim.testing.suite import CheckReport, check_strategy

__all__ = [
    "CHECKS",
    "CheckReport",
    "ContractViolation",
    "assert_strategy_passes",
    "check_strategy",
    "format_report",
]


def assert_strategy_passes(
    target: str, strategy_dirs: Sequence[str | Path] = (), examples: int = 50, seed: int = 0
) -> CheckReport:
    """AssertionError with the whole report (check, cause, shrunk state) unless it passes."""
    report = check_strategy(target, strategy_dirs, examples=examples, seed=seed)
    if not report.passed:
        raise AssertionError(format_report(report))
    return report
