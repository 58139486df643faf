"""`mexsim run --until decided` (stop when the question is answered) and
`--cluster local:N` (blocks as Dask tasks): the same files as a plain run, byte for
byte, whatever played them or stopped them."""

from __future__ import annotations

import filecmp
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from tests.tournament.runs import (
    assert_stopped_in_one_line,
    config_text,
    finish,
    group_alive,
    group_ends,
    kill_a_worker_mid_run,
    mexsim,
    one_line_error,
    run_cli,
    temporary_folder,
    wait_for_parts,
    write_config,
)

RESULTS = ("rounds.parquet", "matches.parquet")
DIFFERENT = '[[players]]\nstrategy = "greedy"\n[[players]]\nstrategy = "random"\n'


def test_the_verdict_has_a_line_of_its_own_in_a_log(tmp_path: Path) -> None:
    """Issue 35: without a terminal (a log) the verdict was glued to the progress bar's
    line, which a log keeps as written (carriage returns and all)."""
    cfg = write_config(tmp_path, config_text(tmp_path / "r", matches=20_000, players=DIFFERENT))
    result = run_cli(cfg, "--until", "decided", "--margin", "0.5")  # the bar shown
    assert result.exit_code == 0, result.stderr
    said = [line for line in result.stderr.splitlines() if "decided after" in line]
    assert len(said) == 1 and said[0].startswith("mexsim: decided after"), result.stderr


def test_until_decided_stops_early_and_says_so(tmp_path: Path) -> None:
    cfg = write_config(tmp_path, config_text(tmp_path / "r", matches=20_000, players=DIFFERENT))
    result = run_cli(cfg, "--until", "decided", "--margin", "0.5", "--quiet")
    assert result.exit_code == 0, result.stderr
    assert "decided after" in result.stderr
    assert "" not in result.stderr.splitlines()  # no bar shown: no line to step past
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    assert run["until"]["decided"] and run["until"]["max_matches"] == 20_000
    assert run["matches"] < 20_000  # random is far worse: settled long before the cap
    matches = pd.read_parquet(tmp_path / "r" / "matches.parquet")
    assert matches["match"].nunique() == run["matches"]
    # the verdict counts every deal played, the last block's last one too
    assert f"decided after {run['matches']:,} deals" in result.stderr
    summary = pd.read_csv(tmp_path / "r" / "summary.csv")
    assert summary["player"].iloc[-1] == "random"

    # a fixed run of the same length writes the same files, byte for byte
    fixed = write_config(
        tmp_path,
        config_text(tmp_path / "f", matches=run["matches"], players=DIFFERENT),
        "fixed.toml",
    )
    assert run_cli(fixed, "--quiet").exit_code == 0
    # the same blocks only when the fixed run cuts them the same way: compare rows
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "f" / "matches.parquet"), matches)


def test_until_decided_plays_to_the_cap_when_undecided(tmp_path: Path) -> None:
    twins = '[[players]]\nstrategy = "greedy"\n[[players]]\nstrategy = "greedy"\n'
    cfg = write_config(
        tmp_path, config_text(tmp_path / "r", matches=300, players=twins, rotate=False)
    )
    result = run_cli(cfg, "--until", "decided", "--margin", "0", "--quiet")
    assert result.exit_code == 0, result.stderr
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    assert run["matches"] == 300 and not run["until"]["decided"]
    # it says so, and why it stopped there: the cap, not a verdict (it said nothing)
    said = [line for line in result.stderr.splitlines() if "decided after" in line]
    assert len(said) == 1, result.stderr
    assert said[0].startswith(
        "mexsim: not decided after 300 deals: run.matches (300 matches) reached; "
    ), said
    assert "a run of more matches (run.matches or --matches) would tell more" in said[0]
    assert run["until"]["verdict"] == said[0].removeprefix("mexsim: ")


def test_until_decided_says_a_verdict_reached_at_the_cap(tmp_path: Path) -> None:
    """A comparison decided by the last block, the cap's, is decided: said and recorded
    (the looks that stop a run early are taken before the cap). 192 matches are three
    blocks of 64: greedy and random are not yet separated after 128, and are at the cap."""
    cfg = write_config(tmp_path, config_text(tmp_path / "r", matches=192, players=DIFFERENT))
    result = run_cli(cfg, "--until", "decided", "--margin", "0.5", "--quiet")
    assert result.exit_code == 0, result.stderr
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    said = [line for line in result.stderr.splitlines() if "decided after" in line]
    assert len(said) == 1, result.stderr
    assert said[0].startswith(
        "mexsim: decided after 192 deals: run.matches (192 matches) reached; best greedy"
    )
    assert run["until"]["decided"] and run["until"]["verdict"] == said[0].removeprefix("mexsim: ")


@pytest.mark.processes
def test_bad_cluster_address_is_one_line(tmp_path: Path) -> None:
    cfg = write_config(tmp_path, config_text(tmp_path / "r", matches=10))
    for address in ("local:0", "nowhere", "local:x", "udp://host:1"):  # udp: a traceback
        result = run_cli(cfg, "--cluster", address, "--quiet")
        assert result.exit_code == 2, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "--cluster" in lines[0], result.stderr
    assert not (tmp_path / "r").exists()


pytest.importorskip("distributed")


@pytest.mark.slow
@pytest.mark.processes
def test_local_cluster_writes_the_bytes_of_a_threaded_run(tmp_path: Path) -> None:
    strategies = tmp_path / "mine"
    strategies.mkdir()
    source = Path(__file__).resolve().parents[2] / "mexsim" / "strategy" / "builtin"
    (strategies / "copycat.py").write_text(
        (source / "greedy.py").read_text().replace('NAME = "greedy"', 'NAME = "copycat"')
    )
    players = (
        '[[players]]\nstrategy = "copycat"\n[[players]]\nstrategy = "random"\n'
        '[[players]]\nstrategy = "greedy"\n'
    )
    # 16 blocks of 64 matches: two blocks a task on local:2 (block_tasks.py)
    text = config_text(tmp_path / "threads", matches=1_000, players=players)
    cfg = write_config(
        tmp_path, text.replace("[rules]", f'strategies = "{strategies}"\n[rules]', 1)
    )
    assert run_cli(cfg, "--workers", "1", "--quiet").exit_code == 0
    result = run_cli(cfg, "--cluster", "local:2", "--out", tmp_path / "dask", "--quiet")
    assert result.exit_code == 0, result.stderr
    assert "Dask workers" in result.stderr and "dashboard" in result.stderr
    if importlib.util.find_spec("bokeh") is None:  # a dashboard address would serve nothing
        assert "dashboard needs bokeh: pip install" in result.stderr
    else:
        assert "dashboard http://" in result.stderr
    for name in RESULTS:
        assert filecmp.cmp(tmp_path / "threads" / name, tmp_path / "dask" / name, shallow=False), (
            name
        )


@pytest.mark.slow
@pytest.mark.processes
@pytest.mark.compiles
def test_a_strategy_that_raises_on_the_cluster_is_one_line(tmp_path: Path) -> None:
    """The workers share the command's terminal: a failed task's log (Dask prints its
    traceback) must not come before mexsim's one line."""
    strategies = tmp_path / "mine"
    strategies.mkdir()
    (strategies / "reads_before.py").write_text(
        "from mexsim.strategy.api import move_tile, strategy\n\n"
        'NAME = "reads_before"\nDESCRIPTION = "reads before the view"\n'
        "PARAMS: dict[str, float] = {}\n\n\n"
        "@strategy\ndef decide(view, params):\n"
        "    return move_tile(view, -100000) * 0\n",
        encoding="utf-8",
    )
    players = '[[players]]\nstrategy = "reads_before"\n[[players]]\nstrategy = "greedy"\n'
    text = config_text(tmp_path / "out", matches=20, players=players)
    cfg = write_config(
        tmp_path, text.replace("[rules]", f'strategies = "{strategies}"\n[rules]', 1)
    )
    proc = subprocess.run(
        [sys.executable, "-m", "mexsim", "run", str(cfg), "--quiet", "--cluster", "local:2"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    lines = [
        line for line in proc.stderr.splitlines() if "Dask worker" not in line
    ]  # the cluster's own notice
    assert len(lines) == 1 and lines[0].startswith("mexsim: error: strategy 'reads_before'"), (
        proc.stderr
    )


@pytest.mark.slow
@pytest.mark.processes
def test_a_worker_killed_mid_run_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker process killed while the run goes on: its blocks run elsewhere."""
    cfg = write_config(tmp_path, config_text(tmp_path / "threads", matches=3_000))
    assert run_cli(cfg, "--workers", "2", "--quiet").exit_code == 0
    killed = kill_a_worker_mid_run(monkeypatch)
    result = run_cli(cfg, "--cluster", "local:2", "--out", tmp_path / "dask", "--quiet")
    assert killed and result.exit_code == 0, result.stderr
    for name in RESULTS:
        assert filecmp.cmp(tmp_path / "threads" / name, tmp_path / "dask" / name, shallow=False), (
            name
        )


WORKER_COPY = (
    "import dataclasses\n"
    "from mexsim.running.dask.cluster import _worker_config\n"
    "@dataclasses.dataclass(frozen=True)\n"
    "class Cfg:\n"
    "    strategy_dirs: tuple = ()\n"
    "sources = {'mine': ('mine.py', 'x = 1', 'mine.py')}\n"
    "print(_worker_config(Cfg(), sources).strategy_dirs[0])\n"
)


def worker_copy(tmp_path: Path, cache: Path) -> Path:
    """Where a fresh worker process puts its copy of a strategy's source."""
    done = subprocess.run(
        [sys.executable, "-c", WORKER_COPY],
        capture_output=True,
        text=True,
        check=True,
        env=os.environ | {"TMPDIR": str(tmp_path / "tmp"), "NUMBA_CACHE_DIR": str(cache)},
    )
    return Path(done.stdout.strip())


@pytest.mark.processes
def test_a_worker_copies_the_strategies_once_to_a_lasting_path(tmp_path):
    """numba keys its cache on a file's path and time stamp: a worker's copy of a
    user's strategy lies at a path of its content's in the cache folder, written once,
    so that the next run's workers load it compiled (a copy in a new temporary folder
    each run compiled it again, on every worker, every run); nothing in $TMPDIR."""
    (tmp_path / "tmp").mkdir()
    cache = tmp_path / "cache"
    first = worker_copy(tmp_path, cache)
    assert first.parent == cache / "worker-strategies"
    copy = first / "mine.py"
    assert copy.read_text() == "x = 1"
    stamp = copy.stat().st_mtime_ns
    time.sleep(0.01)
    assert worker_copy(tmp_path, cache) == first  # the next worker: the same file
    assert copy.stat().st_mtime_ns == stamp and sorted(p.name for p in first.iterdir()) == [
        "mine.py"
    ]
    assert list((tmp_path / "tmp").iterdir()) == []


@pytest.mark.processes
@pytest.mark.parametrize("case", ["no cache folder", "changed by hand"])
def test_a_worker_plays_a_temporary_copy_when_the_lasting_one_will_not_do(tmp_path, case):
    """A cache folder that cannot be written, or a lasting copy that no longer holds the
    source: a copy in a folder of the worker's own, gone when the worker process is."""
    (tmp_path / "tmp").mkdir()
    cache = tmp_path / "cache"
    if case == "no cache folder":
        cache.write_text("a file where the cache folder would be")
    else:
        worker_copy(tmp_path, cache)
        for copy in (cache / "worker-strategies").rglob("mine.py"):
            copy.write_text("x = 2")
    folder = worker_copy(tmp_path, cache)
    assert folder.parent == tmp_path / "tmp" and folder.name.startswith("mexsim-strategies-")
    assert not folder.exists()


@pytest.mark.slow
@pytest.mark.processes
def test_ctrl_c_on_a_terminal_stops_a_cluster_run_in_one_line(tmp_path: Path) -> None:
    """Ctrl-C on a terminal sends SIGINT to every process of the foreground group: the
    command and its local cluster's worker processes. The command stops the run and
    says so in one line; the workers, which the command closes, must not each print a
    KeyboardInterrupt traceback over it, nor outlive it, nor leave anything in the
    temporary folder (the fork server's pymp-* folder stayed: the command ends with
    os._exit, which runs no exit handler)."""
    temporary = temporary_folder(tmp_path)
    cfg = write_config(tmp_path, config_text(tmp_path / "out", matches=400_000))
    proc = mexsim(
        "run",
        cfg,
        "--quiet",
        "--cluster",
        "local:2",
        start_new_session=True,
        env=os.environ | {"TMPDIR": str(temporary)},
    )
    try:
        wait_for_parts(proc, tmp_path, 2)
        os.killpg(proc.pid, signal.SIGINT)  # the whole group, as a terminal does
        code, _, stderr = finish(proc, timeout=60)
        assert group_ends(proc.pid, within=15), "worker processes outlived the command"
    finally:
        if group_alive(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
    assert_stopped_in_one_line(code, stderr, 130)
    assert list(temporary.iterdir()) == []


def test_a_workers_results_travel_as_int16_and_arrive_as_the_kernels_wrote_them():
    """A block's results cross the client's socket as int16 (a quarter of the bytes)
    when every value fits, as the results files' columns need anyway; a block with a
    value that would not fit travels as it is. Either way the client gets int64 back,
    value for value."""
    import numpy as np

    from mexsim.running.dask.transfer import for_transfer, received

    rng = np.random.default_rng(3)
    res = rng.integers(-40, 2_000, size=(5, 13, 4, 6), dtype=np.int64)
    sent = for_transfer(res)
    assert sent.dtype == np.int16 and sent.nbytes == res.nbytes // 4
    back = received(sent)
    assert back.dtype == np.int64 and np.array_equal(back, res)
    for big in (np.iinfo(np.int16).max + 1, np.iinfo(np.int16).min - 1):
        wide = res.copy()
        wide[4, 12, 3, 0] = big
        assert for_transfer(wide).dtype == np.int64
        assert np.array_equal(received(for_transfer(wide)), wide)
    empty = np.zeros((0, 13, 4, 6), dtype=np.int64)
    assert received(for_transfer(empty)).shape == empty.shape


def test_local_workers_are_bounded_by_the_machine(tmp_path: Path) -> None:
    """Issue 32, held note: `--cluster local:N` took any N up to 256, as `--workers` does
    not: a few worker processes a core, and as many as fit in half the memory."""
    from mexsim.running.dask.cluster import max_local_workers

    most = max_local_workers()
    assert 1 <= most <= 4 * (os.cpu_count() or 1)
    cfg = write_config(tmp_path, config_text(tmp_path / "r", matches=8))
    line = one_line_error(run_cli(cfg, "--cluster", f"local:{most + 1}", "--quiet"), 2)
    assert f"local:N needs N in 1..{most} on this machine" in line
    assert not (tmp_path / "r").exists()
