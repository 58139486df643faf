"""A stop signal whose exception numba's compiler swallowed still stops the command
(issue 32, row 14): a Ctrl-C during `mexsim check`'s compile landed in a ctypes
callback of llvmlite's, was printed as "Exception ignored … KeyboardInterrupt", and the
check went on and passed, exit 0. Here a ctypes callback swallows it, as llvmlite's."""

from __future__ import annotations

import contextlib
import ctypes
import signal
from typing import Any

import pytest
from typer.testing import CliRunner

import mexsim.testing
from mexsim.cli import app
from mexsim.jit import interrupts

runner = CliRunner()


def _swallowed(handler: Any, signum: int) -> None:
    """``handler`` run for ``signum`` inside a ctypes callback, which drops what it raises."""
    callback = ctypes.CFUNCTYPE(None)(lambda: handler(signum, None))
    callback()


@pytest.mark.parametrize(
    ("signum", "status", "line"),
    [
        (signal.SIGINT, 130, "mexsim: interrupted"),
        (signal.SIGTERM, 143, "mexsim: interrupted by SIGTERM"),
    ],
)
def test_a_swallowed_stop_signal_ends_the_check_in_one_line(
    monkeypatch: pytest.MonkeyPatch, signum: int, status: int, line: str
) -> None:
    def check_swallowing_a_signal(*args: Any, **kwargs: Any) -> Any:
        _swallowed(signal.getsignal(signum), signum)  # the command's own handler
        raise AssertionError("not reached: the check passes, as it did")

    def passing_check(*args: Any, **kwargs: Any) -> Any:
        with contextlib.suppress(AssertionError):
            check_swallowing_a_signal()
        return mexsim.testing.CheckReport("greedy", None, 1, 1)

    monkeypatch.setattr(mexsim.testing, "check_strategy", passing_check)
    result = runner.invoke(app, ["check", "greedy"])
    assert result.exit_code == status, (result.stdout, result.stderr)
    assert result.stderr.splitlines() == [line]
    assert "passed" not in result.stdout
    # the command's own: a check run after it in this process is not stopped by it
    assert interrupts.received() is None


def test_a_fault_after_a_swallowed_ctrl_c_is_the_interruption(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """hypothesis called the game a swallowed Ctrl-C cut short "flaky" (exit 70)."""

    def flaky_check(*args: Any, **kwargs: Any) -> Any:
        _swallowed(signal.getsignal(signal.SIGINT), signal.SIGINT)
        raise RuntimeError("Hypothesis play(...) produces unreliable results")

    monkeypatch.setattr(mexsim.testing, "check_strategy", flaky_check)
    result = runner.invoke(app, ["check", "greedy"])
    assert result.exit_code == 130, (result.stdout, result.stderr)
    assert result.stderr.splitlines() == ["mexsim: interrupted"]
    assert interrupts.received() is None
