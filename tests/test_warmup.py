"""A cold cache compiles in parallel processes; a warm one starts none."""

from __future__ import annotations

import _thread
import sys
import threading
import time
from pathlib import Path

import pytest

from mexsim import warmup


def fake_jobs(monkeypatch, log: Path, seconds: float) -> None:
    """Jobs that log their start and end instead of compiling."""
    monkeypatch.setattr(warmup, "cache_is_cold", lambda: True)

    def command(job: str) -> list[str]:
        name = Path(job).name
        code = (f"import time, pathlib; p = pathlib.Path({str(log)!r}); "
                f"p.open('a').write(f'start {name} {{time.monotonic()}}\\n'); "
                f"time.sleep({seconds}); "
                f"p.open('a').write(f'end {name} {{time.monotonic()}}\\n')")
        return [sys.executable, "-c", code]

    monkeypatch.setattr(warmup, "job_command", command)


def test_jobs_are_the_planner_and_engine_then_strategy_files_largest_first(tmp_path: Path):
    (tmp_path / "small.py").write_text("x = 1\n")
    (tmp_path / "big.py").write_text("x = 1\n" * 50)
    (tmp_path / "planning.py").write_text("from mexsim.planner import longest_chain\n")
    (tmp_path / "_private.py").write_text("x = 1\n" * 99)
    jobs = dict(warmup.warm_up_jobs([tmp_path]))
    order = list(jobs)
    assert order[:3] == [*warmup.PLANNER, warmup.ENGINE]
    mine = [Path(j).name for j in order if Path(j).parent == tmp_path]
    assert mine == ["big.py", "planning.py", "small.py"]
    assert jobs[str(tmp_path / "planning.py")] == warmup.PLANNER
    assert jobs[str(tmp_path / "big.py")] == ()
    builtin = {Path(j).name: after for j, after in jobs.items()}
    assert builtin["longest_train.py"] == warmup.PLANNER and builtin["greedy.py"] == ()


def test_every_job_runs_at_most_cores_at_once_after_what_it_waits_for(tmp_path: Path,
                                                                       monkeypatch):
    log = tmp_path / "log"
    fake_jobs(monkeypatch, log, 0.4)
    jobs = warmup.warm_up_jobs()
    warmup.warm_up(cores=2)
    events = sorted((float(t), kind, name) for kind, name, t in
                    (line.split() for line in log.read_text().splitlines()))
    assert sum(kind == "end" for _, kind, _ in events) == len(jobs)
    running = peak = 0
    for _, kind, _ in events:
        running += 1 if kind == "start" else -1
        peak = max(peak, running)
    assert peak == 2
    when = {(kind, name): t for t, kind, name in events}
    assert when["start", "longest_train.py"] >= max(when["end", job] for job in warmup.PLANNER)


def test_a_warm_cache_or_one_core_starts_nothing(tmp_path: Path, monkeypatch):
    log = tmp_path / "log"
    fake_jobs(monkeypatch, log, 0.0)
    warmup.warm_up(cores=1)
    monkeypatch.setattr(warmup, "cache_is_cold", lambda: False)
    warmup.warm_up(cores=2)
    assert not log.exists()


def test_ctrl_c_leaves_no_compiler_running(tmp_path: Path, monkeypatch):
    log = tmp_path / "log"
    fake_jobs(monkeypatch, log, 30.0)
    started: list = []
    real_popen = warmup.subprocess.Popen

    def popen(*args, **kwargs):
        started.append(real_popen(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(warmup.subprocess, "Popen", popen)
    threading.Timer(1.0, _thread.interrupt_main).start()
    begun = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        warmup.warm_up(cores=2)
    assert time.monotonic() - begun < 10
    assert len(started) == 2 and all(job.poll() is not None for job in started)
    assert "end" not in (log.read_text() if log.exists() else "")


@pytest.mark.parametrize("weighted", [False, True])
def test_the_planner_jobs_compile_what_longest_train_calls(weighted):
    """The jobs' argument types are longest_chain's, or longest_train would compile the
    paths again: once longest_train is in numba's cache, the job adds no signature."""
    from mexsim.planner.dense import dense_chain, weighted_dense_chain
    from mexsim.strategy.registry import BUILTIN_STRATEGIES, load_strategy_file

    path = weighted_dense_chain if weighted else dense_chain
    load_strategy_file(BUILTIN_STRATEGIES / "longest_train.py")  # cached by now, or compiled

    def signatures() -> set:
        return {key[0] for key in path._cache._cache_file._load_index()}

    before = signatures()  # longest_train's, and those other tests compiled directly
    warmup.compile_planner(weighted)
    assert signatures() == before
