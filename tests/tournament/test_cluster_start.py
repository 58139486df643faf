"""A local cluster's start (mexsim/running/dask/cluster.py, worker_preload.py): its
workers are forks of one process that loaded the engine and the built-in strategies
while the command prepared; a worker loads only the strategies the run uses; the client
leaves the kernels to the cluster; a run refused or interrupted leaves no process."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from mexsim import __version__
from mexsim.running import preparation, runner
from mexsim.running.compile_jobs import compile_engine
from mexsim.running.dask import cluster
from mexsim.strategy import registry
from mexsim.strategy.origin import BUILTIN_FOLDER
from mexsim.tournament.config import load_config
from tests.tournament.runs import (
    assert_stopped_in_one_line,
    config_text,
    finish,
    mexsim,
    temporary_folder,
    wait_for_parts,
    wait_until,
    write_config,
)

TWO = '[[players]]\nstrategy = "greedy"\n[[players]]\nstrategy = "random"\n'


def test_a_worker_loads_only_the_strategies_the_run_uses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = load_config(
        write_config(tmp_path, config_text(tmp_path / "r", matches=8, players=TWO + TWO))
    )
    loaded: list[str] = []
    real = registry.load_strategy_file

    def recording(path: Path) -> registry.StrategyInfo:
        loaded.append(path.name)
        return real(path)

    monkeypatch.setattr(registry, "load_strategy_file", recording)
    monkeypatch.setattr(cluster, "_WORKER_STRATEGIES", {})
    _, players = cluster._worker_players(config, {}, __version__)
    assert sorted(loaded) == ["greedy.py", "random.py"]  # not every built-in
    assert [p.name for p in players] == ["greedy", "random", "greedy", "random"]
    assert players == runner.player_policies(config)  # what the client plays
    cluster._worker_players(config, {}, __version__)
    assert len(loaded) == 2  # once per worker process


@pytest.mark.processes
def test_the_client_leaves_the_kernels_to_the_cluster(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads: list[str] = []
    monkeypatch.setattr(preparation, "play_block", lambda *args: loads.append("engine"))
    config = load_config(write_config(tmp_path, config_text(tmp_path / "r", matches=8)))
    runner.load_engine(config, [], "local:2", None)
    assert loads == []  # every block is played on the cluster
    runner.load_engine(config, [], None, None)
    assert loads == ["engine"]  # threads play here: loaded before any exists


pytest.importorskip("distributed")


@pytest.mark.processes
def test_local_workers_have_the_engine_loaded_before_their_first_task(tmp_path: Path) -> None:
    def loaded() -> tuple[bool, int, list[str]]:  # on each worker (pickled by value)
        import sys

        from mexsim.game import kernel
        from mexsim.running.dask import cluster as on_worker

        preload = sys.modules.get("mexsim.running.dask.worker_preload")
        return (
            preload is not None and preload.LOADED,
            len(kernel.play_matches.overloads),
            sorted(Path(p).name for p in on_worker._WORKER_STRATEGIES),
        )

    config = load_config(write_config(tmp_path, config_text(tmp_path / "r", matches=8)))
    compile_engine()  # the fork server only loads from numba's cache (the command
    # warms it first: mexsim/running/warmup.py); on a cold cache the workers load on a task
    player = cluster.ClusterPlayer("local:2", config)
    try:
        found = player.client.run(loaded)
    finally:
        player.close()
    builtins = sorted(p.name for p in BUILTIN_FOLDER.glob("*.py") if not p.name.startswith("_"))
    assert len(found) == 2
    for preloaded, kernels, strategies in found.values():
        assert preloaded and kernels >= 1 and strategies == builtins


@pytest.mark.processes
def test_a_worker_started_after_a_crash_leaves_ctrl_c_to_the_command(tmp_path: Path) -> None:
    """The first workers inherit SIGINT ignored (worker_signals.py); one the cluster
    starts in place of a crashed one is spawned by the command's process, which handles
    Ctrl-C by then: the worker plugin makes it ignore the signal too."""

    def ignores() -> bool:  # on each worker
        import signal as on_worker

        return on_worker.getsignal(on_worker.SIGINT) is on_worker.SIG_IGN

    config = load_config(write_config(tmp_path, config_text(tmp_path / "r", matches=8)))
    player = cluster.ClusterPlayer("local:2", config)
    try:
        assert all(player.client.run(ignores).values())
        pids = player.client.run(os.getpid)
        before = set(pids)
        os.kill(pids[sorted(before)[0]], signal.SIGKILL)  # a crash
        deadline = time.monotonic() + 60
        while len(set(player.client.nthreads()) - before) < 1 and time.monotonic() < deadline:
            time.sleep(0.2)
        after = set(player.client.nthreads())
        assert after - before, "no worker was started in place of the crashed one"
        assert all(player.client.run(ignores).values())
    finally:
        player.close()


def _marked(mark: str) -> list[int]:
    """The live processes whose environment holds ``mark``."""
    pids = []
    for folder in Path("/proc").iterdir():
        if folder.name.isdigit():
            try:
                if mark.encode() in (folder / "environ").read_bytes():
                    pids.append(int(folder.name))
            except OSError:
                pass  # gone, or not ours
    return pids


def _none_left(mark: str, within: float = 15) -> bool:
    deadline = time.monotonic() + within
    while _marked(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not _marked(mark)


def _signalled_cluster_run(
    tmp_path: Path, matches: int, signum: int, ready: Callable[[subprocess.Popen, str], None]
) -> tuple[int, str, str, Path]:
    """`mexsim run --cluster local:2` in a session of its own, its processes marked
    (``_marked``); once ``ready(proc, mark)`` returns, ``signum`` to the whole group, as
    a terminal sends it. Returns (exit status, stderr, the mark, its $TMPDIR)."""
    mark = f"MEXSIM_TEST_{uuid.uuid4().hex}"
    temporary = temporary_folder(tmp_path)
    cfg = write_config(tmp_path, config_text(tmp_path / "r", matches=matches))
    proc = mexsim(
        "run",
        cfg,
        "--cluster",
        "local:2",
        "--quiet",
        env=os.environ | {mark: "1", "TMPDIR": str(temporary)},
        start_new_session=True,
    )
    try:
        ready(proc, mark)
        os.killpg(proc.pid, signum)
        code, _, err = finish(proc, 60)
    finally:
        if proc.poll() is None:
            proc.kill()
    return code, err, mark, temporary


@pytest.mark.slow
@pytest.mark.processes
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
def test_a_refused_local_cluster_run_leaves_no_process(tmp_path: Path) -> None:
    """The workers' process starts as soon as the config is read; the run is refused
    later (a folder of the user's own as --out): the command ends, and nothing else
    is left running."""
    mark = f"MEXSIM_TEST_{uuid.uuid4().hex}"
    precious = tmp_path / "mine"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    cfg = write_config(tmp_path, config_text(precious, matches=100))
    proc = mexsim("run", cfg, "--cluster", "local:2", "--quiet", env=os.environ | {mark: "1"})
    code, _, err = finish(proc, 300)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert (precious / "notes.txt").read_text() == "keep me"
    assert _none_left(mark), _marked(mark)


@pytest.mark.processes
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
def test_ctrl_c_while_a_local_cluster_starts_leaves_no_process(tmp_path: Path) -> None:
    """Ctrl-C (to the whole process group, as a terminal sends it) once the workers'
    process is up, before play: the command ends and takes every process with it."""
    code, err, mark, temporary = _signalled_cluster_run(
        tmp_path,
        20_000,
        signal.SIGINT,
        lambda proc, mark: wait_until(
            proc, lambda: len(_marked(mark)) >= 2, "no worker process started"
        ),
    )
    assert code != 0, err
    assert _none_left(mark), _marked(mark)
    assert list(temporary.iterdir()) == []  # the workers' scratch folders too


@pytest.mark.slow
@pytest.mark.processes
def test_a_local_cluster_run_leaves_nothing_in_the_temporary_folder(tmp_path: Path) -> None:
    """Dask's workers keep scratch folders under the temporary folder (by default a
    ``dask-scratch-space`` it leaves behind): a local cluster's are mexsim's own,
    removed with the cluster."""
    temporary = temporary_folder(tmp_path)
    cfg = write_config(tmp_path, config_text(tmp_path / "r", matches=64))
    proc = mexsim(
        "run", cfg, "--cluster", "local:2", "--quiet", env=os.environ | {"TMPDIR": str(temporary)}
    )
    code, _, err = finish(proc, 300)
    assert code == 0, err
    assert list(temporary.iterdir()) == []


FAILS_ON_WORKERS = """\
import threading

from mexsim.strategy.api import strategy


class Refused(BaseException):
    pass


if threading.current_thread() is not threading.main_thread():  # a worker's task thread
    raise Refused("not on this machine")

NAME = "fussy"
DESCRIPTION = "loads in the command, not on a Dask worker"


@strategy
def decide(view, params):
    return 0
"""
GOOD = FAILS_ON_WORKERS.replace("raise Refused", "pass  #").replace("fussy", "easy")


@pytest.mark.slow
@pytest.mark.processes
@pytest.mark.compiles
@pytest.mark.parametrize(("name", "code"), [("easy", 0), ("fussy", 2)])
def test_a_local_cluster_run_with_strategy_files_leaves_nothing_in_the_temporary_folder(
    tmp_path: Path, name: str, code: int
) -> None:
    """The workers' copies of the run's strategy files went to the temporary folder
    and stayed there (a local cluster's workers end without running atexit), one
    folder per worker and run; a file that fails to load on a worker is named as the
    command knows it, not by the worker's copy of it (gone, or on another machine)."""
    temporary = temporary_folder(tmp_path)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "easy.py").write_text(GOOD)
    (mine / "fussy.py").write_text(FAILS_ON_WORKERS)
    players = f'[[players]]\nstrategy = "{name}"\n[[players]]\nstrategy = "greedy"\n'
    text = config_text(tmp_path / "r", matches=64, players=players)
    cfg = write_config(tmp_path, text.replace("[rules]", f'strategies = "{mine}"\n[rules]', 1))
    proc = mexsim(
        "run", cfg, "--cluster", "local:2", "--quiet", env=os.environ | {"TMPDIR": str(temporary)}
    )
    status, _, err = finish(proc, 300)
    assert status == code, err
    assert list(temporary.iterdir()) == []
    if code:
        lines = [line for line in err.splitlines() if "Dask worker" not in line]
        assert lines == [
            f"mexsim: error: {mine / 'fussy.py'}: importing the strategy failed: "
            "Refused: not on this machine"
        ], err


def _fork_servers(mark: str) -> list[int]:
    pids = []
    for pid in _marked(mark):
        try:
            if b"forkserver" in Path(f"/proc/{pid}/cmdline").read_bytes():
                pids.append(pid)
        except OSError:
            pass
    return pids


def _signal_sets(pid: int) -> dict[str, set[int]]:
    """A process's ignored (``SigIgn``) and blocked (``SigBlk``) signals, by number."""
    sets = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("SigIgn", "SigBlk"):
            bits = int(value, 16)
            sets[key] = {n for n in range(1, 65) if bits >> (n - 1) & 1}
    return sets


@pytest.mark.processes
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_the_cluster_s_helper_processes_never_take_ctrl_c_or_a_hangup(tmp_path: Path) -> None:
    """The fork server ignored Ctrl-C only once its preload ran, after its interpreter
    had started and imported mexsim (~0.3 s, more on a busy machine): a Ctrl-C in that
    window printed a KeyboardInterrupt traceback over the command's one line (seen in
    CI). Read the moment its command line shows, the fork server already holds back or
    ignores SIGINT and SIGHUP, and so does the resource tracker."""
    mark = f"MEXSIM_TEST_{uuid.uuid4().hex}"
    cfg = write_config(tmp_path, config_text(tmp_path / "r", matches=20_000))
    proc = mexsim(
        "run",
        cfg,
        "--cluster",
        "local:2",
        "--quiet",
        start_new_session=True,
        env=os.environ | {mark: "1", "TMPDIR": str(temporary_folder(tmp_path))},
    )
    try:
        seen: dict[str, dict[str, set[int]]] = {}

        def both_seen() -> bool:
            for pid in _marked(mark):
                with contextlib.suppress(OSError):
                    command = Path(f"/proc/{pid}/cmdline").read_bytes()
                    for name in ("forkserver", "resource_tracker"):
                        if name.encode() in command and name not in seen:
                            seen[name] = _signal_sets(pid)
            return len(seen) == 2

        wait_until(proc, both_seen, "no fork server or resource tracker started")
    finally:
        proc.terminate()
        finish(proc, 60)
    assert _none_left(mark), _marked(mark)
    for sets in seen.values():
        assert {signal.SIGINT, signal.SIGHUP} <= sets["SigIgn"] | sets["SigBlk"], seen


@pytest.mark.slow
@pytest.mark.processes
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
def test_ctrl_c_while_the_fork_server_loads_is_one_line(tmp_path: Path) -> None:
    """Ctrl-C to the whole group in the fork server's first second (its imports of Dask
    and numba): the fork server printed a KeyboardInterrupt traceback over the
    command's one line; it ignores Ctrl-C from its first preload on."""

    def in_its_imports(proc: subprocess.Popen, mark: str) -> None:
        wait_until(proc, lambda: _fork_servers(mark), "no fork server started")
        time.sleep(0.3)  # inside its imports (~1-2 s)

    code, err, mark, _ = _signalled_cluster_run(tmp_path, 20_000, signal.SIGINT, in_its_imports)
    assert_stopped_in_one_line(code, err, 130)
    assert _none_left(mark), _marked(mark)


@pytest.mark.slow
@pytest.mark.processes
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
def test_a_hangup_of_the_whole_group_is_one_line(tmp_path: Path) -> None:
    """SIGHUP to every process of the group, as a closed terminal or a supervisor's
    ``kill -HUP -PGID`` sends it, mid-run: the command stops in its one line (129). The
    resource tracker multiprocessing starts for the cluster died of it, and its
    replacement printed a dozen KeyError tracebacks over that line."""
    code, err, mark, temporary = _signalled_cluster_run(
        tmp_path, 400_000, signal.SIGHUP, lambda proc, mark: wait_for_parts(proc, tmp_path, 2)
    )
    assert_stopped_in_one_line(code, err, 129)
    assert _none_left(mark), _marked(mark)
    assert list(temporary.iterdir()) == []
