"""What a local cluster run killed outright leaves in the temporary folder, and the next
run's removal of it (mexsim/running/dask/stale_scratch.py, socket_folder.py)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from mexsim.running.dask import stale_scratch
from tests.tournament.runs import (
    config_text,
    finish,
    group_alive,
    group_ends,
    mexsim,
    wait_for_parts,
    write_config,
)


def _gone_pid() -> int:
    """The pid of a process that has ended."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


LOCK_AND_SLEEP = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(60)
"""


@pytest.mark.processes
def test_only_the_folders_of_gone_commands_are_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stale_scratch.tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(stale_scratch, "SHORT_FOLDERS", ())
    gone = _gone_pid()
    old = time.time() - 2 * stale_scratch.UNLOCKED_AGE
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    # a command in another pid namespace: its pid means nothing here, its lock does
    elsewhere = tmp_path / f"mexsim-dask-{gone}-elsewher"
    elsewhere.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", LOCK_AND_SLEEP, str(elsewhere / stale_scratch.OWNER_FILE)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        unlocked = [
            tmp_path / f"mexsim-dask-{sleeper.pid}-reusedpd",  # pid reused: lock says
            tmp_path / f"mexsim-fork-{gone}-zz9abc0q",
        ]
        no_owner = [tmp_path / f"mexsim-dask-{gone}-ab1_cd2e"]  # killed before locking
        kept = [
            tmp_path / f"mexsim-dask-{os.getpid()}-abcdefgh",  # this process's
            tmp_path / f"mexsim-fork-{sleeper.pid}-abcdefgh",  # a live command's
            tmp_path / f"mexsim-fork-{gone}-youngabc",  # just made, not locked yet
            elsewhere,
            tmp_path / f"mexsim-dask-{gone}",  # not a name mexsim gives
            tmp_path / f"mexsim-dask-{gone}-abcdefgh-mine",
            tmp_path / f"mexsim-dask-{gone}-abcdefgh\n",
            tmp_path / "mexsim-dask-\u0661\u0662\u0663-abcdefgh",  # digits, not ASCII
            tmp_path / f"mexsim-strategies-{gone}-abcdefgh",
            tmp_path / "pymp-abcdefgh",
        ]
        for folder in unlocked + no_owner + kept:
            folder.mkdir(exist_ok=True)
            (folder / "inside").write_text("x")
        for folder in unlocked:
            (folder / stale_scratch.OWNER_FILE).write_text("")
        for folder in (*unlocked, *no_owner, *kept[2:]):
            os.utime(folder, (old, old))
        os.utime(kept[2], None)  # young
        a_file = tmp_path / f"mexsim-dask-{gone}-fileabcd"  # a file of that name: kept
        a_file.write_text("mine")
        assert sorted(stale_scratch.remove_stale_scratch()) == sorted(unlocked + no_owner)
        assert sorted(tmp_path.iterdir()) == sorted([*kept, a_file])
    finally:
        for process in (sleeper, holder):
            process.kill()
            process.communicate()


def test_a_folder_claimed_by_this_process_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stale_scratch.tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(stale_scratch, "SHORT_FOLDERS", ())
    folder = Path(stale_scratch.scratch_folder())
    assert folder.parent == tmp_path and folder.name.startswith(f"mexsim-dask-{os.getpid()}-")
    monkeypatch.setattr(stale_scratch, "_alive", lambda pid: False)  # the pid misleads
    assert stale_scratch.remove_stale_scratch() == []
    assert (folder / stale_scratch.OWNER_FILE).exists()


def _ours(folder: Path, pid: int) -> list[Path]:
    return sorted(
        p
        for p in folder.iterdir()
        if p.name.startswith(("mexsim-dask-", "mexsim-fork-")) and p.name.split("-")[2] == str(pid)
    )


@pytest.mark.slow
@pytest.mark.processes
def test_the_next_run_removes_what_a_killed_run_left(tmp_path: Path) -> None:
    """kill -9 of a `--cluster local:2` command mid-run: its workers end with it, but
    its scratch folder and its fork server's folder stay in $TMPDIR; the next local
    cluster run removes both. ($TMPDIR is a short folder of this test's own: under /tmp
    itself, any other local cluster run could remove them first, as it should.)"""
    temporary = Path(tempfile.mkdtemp(prefix="ms-", dir="/tmp"))
    try:
        _kill_then_run_again(tmp_path, temporary)
    finally:
        shutil.rmtree(temporary, ignore_errors=True)


def _kill_then_run_again(tmp_path: Path, temporary: Path) -> None:
    env = os.environ | {"TMPDIR": str(temporary)}
    cfg = write_config(tmp_path, config_text(tmp_path / "out", matches=400_000))
    proc = mexsim("run", cfg, "--quiet", "--cluster", "local:2", start_new_session=True, env=env)
    try:
        wait_for_parts(proc, tmp_path, 2)
        os.kill(proc.pid, signal.SIGKILL)  # the command alone, as the OOM killer would
        proc.communicate(timeout=60)
        assert group_ends(proc.pid, within=30), "worker processes outlived the command"
    finally:
        if group_alive(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
    left = _ours(temporary, proc.pid)
    assert [p.name.split("-")[1] for p in left] == ["dask", "fork"], left

    (tmp_path / "small").mkdir()
    small = write_config(tmp_path / "small", config_text(tmp_path / "small" / "out", matches=64))
    code, _, err = finish(mexsim("run", small, "--quiet", "--cluster", "local:2", env=env), 300)
    assert code == 0, err
    assert list(temporary.iterdir()) == []  # what was left, and the second run's own


@pytest.mark.processes
def test_where_locks_cannot_be_taken_the_pid_decides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file system without locks (flock fails with ENOLCK): claim cannot lock the
    owner file, so the sweep cannot read a lock either; a folder goes when its pid is
    gone and it is a minute old, as one without the file."""
    import errno
    import fcntl

    monkeypatch.setattr(stale_scratch.tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(stale_scratch, "SHORT_FOLDERS", ())

    def no_locks(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, "no locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    gone = _gone_pid()
    old = time.time() - 2 * stale_scratch.UNLOCKED_AGE
    stale = tmp_path / f"mexsim-dask-{gone}-nolockab"
    young = tmp_path / f"mexsim-dask-{gone}-nolockcd"
    mine = Path(stale_scratch.scratch_folder())  # this process's: alive
    for folder in (stale, young):
        folder.mkdir()
        (folder / stale_scratch.OWNER_FILE).write_text("")
    for folder in (stale, mine):
        os.utime(folder, (old, old))
    assert stale_scratch.remove_stale_scratch() == [stale]
    assert sorted(tmp_path.iterdir()) == sorted([mine, young])
