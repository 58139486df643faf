"""Memory or threads refused (issue 32, row 15): under `ulimit -v` a run ended in an
LLVM abort (134), OpenBLAS giving up (1) or Arrow unable to start a thread (70), each
leaving a work folder. Now: one line, exit status 4, nothing left when no block was
played."""

from __future__ import annotations

import errno
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import mexsim.running.runner
from mexsim.running.machine_limits import resource_shortage
from tests.tournament.runs import (
    ROOT,
    config_text,
    one_line_error,
    run_cli,
    temp_folders,
    write_config,
)


@pytest.mark.processes
@pytest.mark.parametrize("command", ["run", "report", "check"])
def test_a_low_address_space_limit_is_refused_before_anything_starts(
    tmp_path: Path, command: str
) -> None:
    out = tmp_path / "r"
    cfg = write_config(tmp_path, config_text(out, matches=8))
    args = {
        "run": ["run", str(cfg)],
        "report": ["report", str(tmp_path)],
        "check": ["check", "greedy"],
    }

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (512 * 2**20, resource.RLIM_INFINITY))

    done = subprocess.run(
        [sys.executable, "-m", "mexsim", *args[command]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=limited,
    )
    assert done.returncode == 4, done.stderr
    assert done.stderr.splitlines() == [
        f"mexsim: error: this process may reserve 0.50 GiB of address space (ulimit -v), "
        f"and `mexsim {command}` reserves about "
        + done.stderr.split("reserves about ", 1)[1].strip()
    ]
    assert "raise the limit (ulimit -v unlimited)" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cfg.toml"]


@pytest.mark.parametrize(
    ("exc", "said"),
    [
        (MemoryError(), "out of memory"),
        (RuntimeError("can't start new thread"), "the system refused a new thread"),
        (OSError(errno.ENOMEM, "Cannot allocate memory"), "the system refused memory"),
        (OSError(errno.ENOSPC, "No space left on device"), None),  # the disk's: exit 4 too
        (ValueError("a bug"), None),
    ],
)
def test_what_counts_as_a_resource_shortage(exc: BaseException, said: str | None) -> None:
    found = resource_shortage(exc)
    assert (found is None) if said is None else (found is not None and found.startswith(said))


def test_memory_refused_during_play_is_one_line_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise MemoryError

    monkeypatch.setattr(mexsim.running.runner, "_play", refused)
    out = tmp_path / "r"
    line = one_line_error(run_cli(write_config(tmp_path, config_text(out, matches=8))), 4)
    assert line == (
        "mexsim: error: out of memory; use fewer --workers, or raise the limits "
        "(ulimit -v, -u): no results written"
    )
    assert not out.exists() and temp_folders(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cfg.toml"]
