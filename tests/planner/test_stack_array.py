"""stack_array: a constant-size int64 scratch in the compiled caller's frame."""

import subprocess
import sys
from pathlib import Path

import pytest
from numba import njit
from numba.core.errors import TypingError

from mexsim.planner.stack_array import stack_array


@njit
def _fill_and_sum(n):
    a = stack_array(64)
    for i in range(n):
        a[i] = i * i
    total = 0
    for i in range(n):
        total += a[i]
    a[0] = -(1 << 62)  # 64-bit slots: this survives the round trip
    return total, a.shape[0], a[0]


@njit
def _in_a_loop(rounds):
    # the slot is made once, in the function's entry, however often the loop runs
    total = 0
    for r in range(rounds):
        a = stack_array(1024)
        a[0] = r
        a[1023] = r
        total += a[0] + a[1023]
    return total


def test_it_holds_what_is_written_and_has_its_size():
    total, size, first = _fill_and_sum(64)
    assert total == sum(i * i for i in range(64))
    assert size == 64
    assert first == -(1 << 62)


def test_a_loop_does_not_grow_the_stack():
    # 1,000,000 rounds of 8 KiB each would be 8 GB of stack if every pass made one
    assert _in_a_loop(1_000_000) == 2 * sum(range(1_000_000))


def test_a_size_known_only_when_running_is_refused():
    @njit
    def sized_at_run_time(n):
        return stack_array(n).shape[0]

    with pytest.raises(TypingError):
        sized_at_run_time(8)


SMALL_STACK = """
import threading
from mexsim.game.play import play_matches_results
from mexsim.game.rules import resolve_rules
from mexsim.strategy.policy import resolve_policies
rules = resolve_rules({"preset": "seed-001"}, 4)
seats = resolve_policies(["longest_train"] * 4)
play_matches_results(rules, seats, 7, 0, 1)  # loaded on the main thread
threading.stack_size(128 * 1024)  # musl's default for a thread
out = []
thread = threading.Thread(target=lambda: out.append(
    int(play_matches_results(rules, seats, 7, 0, 100).sum())))
thread.start()
thread.join()
print("played", out[0])
"""


@pytest.mark.processes
def test_a_thread_with_a_small_stack_plans():
    # The dense path's ~164 KiB scratch once lived in the plan's frame: a thread of
    # musl's 128 KiB died of it (SIGSEGV) in the first dense plan. Only the small
    # scratches are on the stack.
    result = subprocess.run(
        [sys.executable, "-c", SMALL_STACK],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert result.returncode == 0, (result.returncode, result.stderr[-2000:])
    assert result.stdout.startswith("played ")
