"""A cold cache compiles in parallel processes, a few jobs each; a warm one starts none."""

from __future__ import annotations

import _thread
import io
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mexsim.running import compile_jobs, warmup
from mexsim.strategy.origin import BUILTIN_FOLDER


def fake_compilers(
    monkeypatch, log: Path, seconds: float, dies_on: str = "", slow_on: str = ""
) -> None:
    """Compiler processes that log each job's start and end instead of compiling (and
    die without answering when given the job ``dies_on``, take 2 s on ``slow_on``)."""
    monkeypatch.setattr(warmup, "engine_is_cold", lambda: True)
    code = (
        f"import os, sys, time, pathlib; p = pathlib.Path({str(log)!r})\n"
        "import json\n"
        "for line in sys.stdin:\n"
        "    name = pathlib.Path(json.loads(line)).name\n"
        "    p.open('a').write(f'start {name} {time.monotonic()} {os.getpid()}\\n')\n"
        f"    if name == {dies_on!r}: os._exit(1)\n"
        f"    time.sleep(2.0 if name == {slow_on!r} else {seconds})\n"
        "    p.open('a').write(f'end {name} {time.monotonic()} {os.getpid()}\\n')\n"
        "    print(line.strip(), flush=True)\n"
    )
    monkeypatch.setattr(warmup, "server_command", lambda: [sys.executable, "-c", code])


def events(log: Path) -> list[tuple[float, str, str, int]]:
    """(time, start or end, job, process), in time order."""
    return sorted(
        (float(t), kind, name, int(pid))
        for kind, name, t, pid in (line.split() for line in log.read_text().splitlines())
    )


BUILTIN_PLANNING = (compile_jobs.PLANNER, compile_jobs.SPARSE_PLANNER)
ALL_PLANNING = (compile_jobs.WEIGHTED_PLANNER, *BUILTIN_PLANNING)


def test_jobs_are_the_engine_and_planner_then_strategy_files_largest_first(tmp_path: Path):
    (tmp_path / "small.py").write_text("x = 1\n")
    (tmp_path / "big.py").write_text("x = 1\n" * 50)
    (tmp_path / "planning.py").write_text("from mexsim.planner import longest_chain\n")
    (tmp_path / "_private.py").write_text("x = 1\n" * 99)
    jobs = dict(compile_jobs.warm_up_jobs([tmp_path]))
    order = list(jobs)
    # a user's file may call longest_chain, which compiles the weighted form too
    weighted, *counting = ALL_PLANNING
    assert order[:4] == [weighted, compile_jobs.ENGINE, *counting]
    mine = [Path(j).name for j in order if Path(j).parent == tmp_path]
    assert mine == ["big.py", "planning.py", "small.py"]
    assert jobs[str(tmp_path / "planning.py")] == ALL_PLANNING
    assert jobs[str(tmp_path / "big.py")] == ()
    builtin = {Path(j).name: after for j, after in jobs.items()}
    assert builtin["longest_train.py"] == BUILTIN_PLANNING and builtin["greedy.py"] == ()


@pytest.mark.parametrize(
    "weight", [0, 0.0, [0.0], None, "0.5", {"x": 1}, True, -1.0, float("nan"), float("inf")]
)
def test_the_built_ins_at_pip_weight_0_compile_no_weighted_form(weight):
    """longest_train at its default plans with the counting form alone: the weighted
    form (a quarter of a cold start's compiling) is no job. What is no weight to plan
    with is the config check's to refuse, not the warm-up's to compile for; nor does a
    pip_weight of another strategy ask for it."""
    players = [
        {"strategy": "longest_train", "params": {"pip_weight": weight}},
        {"strategy": "greedy"},
        {"strategy": "random", "params": 3},
        {"strategy": "mine", "params": {"pip_weight": 0.5}},
    ]
    jobs = dict(compile_jobs.warm_up_jobs(players=players))
    assert list(jobs)[:3] == [compile_jobs.ENGINE, *BUILTIN_PLANNING]
    assert compile_jobs.WEIGHTED_PLANNER not in jobs
    assert compile_jobs.WEIGHTED_LONGEST_TRAIN not in jobs


def test_longest_train_as_the_kernel_plays_it_is_a_job_after_the_counting_forms():
    """The kernel plays longest_train at pip_weight 0 through a function of its own
    (mexsim/game/kernel_longest_train.py), which plans with the counting forms: a job
    that waits for them, unless the config's players name no longest_train."""
    for players in ([], [{"strategy": "longest_train"}, {"strategy": "greedy"}]):
        jobs = dict(compile_jobs.warm_up_jobs(players=players))
        assert jobs[compile_jobs.LONGEST_TRAIN_IN_TABLE] == BUILTIN_PLANNING
    jobs = dict(compile_jobs.warm_up_jobs(players=[{"strategy": "greedy"}]))
    assert compile_jobs.LONGEST_TRAIN_IN_TABLE not in jobs


@pytest.mark.parametrize("weight", [0.5, 1, [0.0, 0.5]])
def test_a_pip_weight_adds_the_weighted_jobs(weight):
    players = [{"strategy": "longest_train", "params": {"pip_weight": weight}}]
    jobs = compile_jobs.warm_up_jobs(players=players)
    assert jobs[0] == (compile_jobs.WEIGHTED_PLANNER, ())  # the longest first
    assert jobs[-1] == (
        compile_jobs.WEIGHTED_LONGEST_TRAIN,
        (compile_jobs.WEIGHTED_PLANNER, str(BUILTIN_FOLDER / "longest_train.py")),
    )


@pytest.mark.processes
def test_every_job_runs_once_at_most_cores_at_once_after_what_it_waits_for(
    tmp_path: Path, monkeypatch
):
    log = tmp_path / "log"
    fake_compilers(monkeypatch, log, 0.2)
    jobs = compile_jobs.warm_up_jobs()
    warmup.warm_up(cores=2)
    seen = events(log)
    ended = [name for _, kind, name, _ in seen if kind == "end"]
    assert sorted(ended) == sorted(Path(job).name for job, _ in jobs)
    running = peak = 0
    for _, kind, _, _ in seen:
        running += 1 if kind == "start" else -1
        peak = max(peak, running)
    assert peak == 2
    when = {(kind, name): t for t, kind, name, _ in seen}
    assert when["start", "longest_train.py"] >= max(when["end", job] for job in BUILTIN_PLANNING)
    # two processes took every job: numba starts, and compiles its helpers, twice
    assert len({pid for _, _, _, pid in seen}) == 2


@pytest.mark.processes
def test_a_compiler_that_dies_with_its_job_is_replaced_for_the_others(tmp_path: Path, monkeypatch):
    log = tmp_path / "log"
    fake_compilers(monkeypatch, log, 0.05, dies_on=compile_jobs.ENGINE)
    jobs = compile_jobs.warm_up_jobs()
    warmup.warm_up(cores=2)
    seen = events(log)
    ended = {name for _, kind, name, _ in seen if kind == "end"}
    assert ended == {Path(job).name for job, _ in jobs} - {compile_jobs.ENGINE}
    assert len({pid for _, _, _, pid in seen}) == 3


@pytest.mark.processes
def test_the_compiler_answers_each_job_whatever_the_strategy_prints_or_raises(tmp_path: Path):
    """The protocol with a real compiler process: a strategy file that prints, raises
    or exits still gets its one answer, in order, and the process takes the next job."""
    (tmp_path / "talks.py").write_text("print('engine')\nprint('x' * 10000)\n")
    (tmp_path / "raises.py").write_text("raise RuntimeError('no')\n")
    (tmp_path / "exits.py").write_text("import sys\nsys.exit(3)\n")
    jobs = [str(tmp_path / name) for name in ("talks.py", "raises.py", "exits.py")]
    jobs.append(str(BUILTIN_FOLDER / "greedy.py"))  # after them, it still compiles
    assert serve(jobs) == [warmup.encode_job(job) for job in jobs]


def serve(jobs: list[str]) -> list[str]:
    """The answer lines of a real compiler process given these jobs."""
    lines = "".join(warmup.encode_job(job) + "\n" for job in jobs)
    compiler = subprocess.run(
        warmup.server_command(),
        input=lines,
        capture_output=True,
        text=True,
        timeout=300,
        env=os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert compiler.returncode == 0, compiler.stderr
    return compiler.stdout.splitlines()


IMPORTED = "import os\nopen({log!r}, 'ab').write(os.fsencode(__file__).hex().encode() + b'\\n')\n"


def imported(log: Path) -> list[str]:
    """The files that were imported, one a line of the log IMPORTED writes."""
    return sorted(os.fsdecode(bytes.fromhex(line)) for line in log.read_text().split())


def test_a_job_is_one_line_whatever_the_file_s_name(tmp_path: Path, monkeypatch):
    """A name with a newline, a carriage return, bytes that are not UTF-8 or a leading
    space is one job, the file it names (a newline split it into two jobs of files
    that do not exist; the bytes raised UnicodeEncodeError out of the command)."""
    log = tmp_path / "log"
    folder = tmp_path / " odd folder"
    folder.mkdir()
    names = ["new\nline.py", "carriage\rreturn.py", os.fsdecode(b"latin\xe9.py"), " lead.py"]
    for name in names:
        (folder / name).write_text(IMPORTED.format(log=str(log)))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(sys.path))
    jobs = [
        (job, after)
        for job, after in compile_jobs.warm_up_jobs([folder])
        if Path(job).parent == folder
    ]
    assert sorted(Path(job).name for job, _ in jobs) == sorted(names)
    with warmup._Compilers(2) as pool:
        pool.run(jobs)
    assert imported(log) == sorted(str(folder / name) for name in names)


@pytest.mark.processes
def test_a_strategy_file_that_reads_stdin_takes_no_job(tmp_path: Path):
    """What a strategy file reads from stdin, in a thread or not, is nothing: it took
    the next jobs' lines (or, given its job alone, waited for ever for the next)."""
    log = tmp_path / "log"
    reads = tmp_path / "reads.py"
    reads.write_text(
        "import sys, threading\n"
        "threading.Thread(target=sys.stdin.read, daemon=True).start()\n"
        f"assert sys.stdin.readline() == ''\n{IMPORTED.format(log=str(log))}"
    )
    after = tmp_path / "after.py"
    after.write_text(IMPORTED.format(log=str(log)))
    jobs = [str(reads), str(after), str(reads)]
    assert serve(jobs) == [warmup.encode_job(job) for job in jobs]
    assert imported(log) == sorted(map(str, [after, reads, reads]))


def test_a_name_that_is_no_file_is_left_to_the_command(tmp_path: Path):
    """A broken symbolic link, a folder named like a strategy file: no job, and no
    FileNotFoundError out of the warm-up (the command reports them, in one line)."""
    (tmp_path / "broken.py").symlink_to(tmp_path / "gone.py")
    (tmp_path / "folder.py").mkdir()
    (tmp_path / "linked.py").symlink_to(BUILTIN_FOLDER / "greedy.py")
    jobs = [
        Path(job).name
        for job, _ in compile_jobs.warm_up_jobs([tmp_path])
        if Path(job).parent == tmp_path
    ]
    assert jobs == ["linked.py"]


@pytest.mark.slow
@pytest.mark.processes
def test_a_job_that_takes_long_is_named_in_the_notice(tmp_path: Path, monkeypatch):
    """A strategy file that hangs at import holds the warm-up: its notice names the
    job once it has run LONG seconds (it named none: the command looked frozen, where
    a warm cache's notice names the strategy it loads), and names it no more after."""
    from mexsim.jit import compile_notice as cn

    monkeypatch.setattr(cn, "SILENT_FOR", 0.05)
    monkeypatch.setattr(cn, "REDRAW", 0.01)
    monkeypatch.setattr(warmup, "LONG", 0.5)
    log = tmp_path / "log"
    fake_compilers(monkeypatch, log, 0.05, slow_on=compile_jobs.ENGINE)
    stream = io.StringIO()
    with cn.compile_notice(stream=stream):
        warmup.warm_up(cores=2)
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith(f"mexsim: compiling {warmup.STEP} (")
    assert lines[1].startswith(f"mexsim: compiling {warmup.STEP}; still on engine (")
    # the plain step again, if the spinner saw it before the warm-up ended (the engine's
    # job is likely the last to end)
    assert all(line.startswith(f"mexsim: compiling {warmup.STEP} (") for line in lines[2:])


@pytest.mark.processes
@pytest.mark.parametrize(
    ("usable", "asked", "started"), [(2, 8, 2), (1, None, 0), (1, 2, 0), (2, 1, 0)]
)
def test_no_more_compilers_than_usable_cores(
    tmp_path: Path, monkeypatch, usable: int, asked: int | None, started: int
):
    """`--workers 8` on two cores, or two cores counted with one usable (taskset, a
    container's CPU set): as many compiler processes as cores there are to run them."""
    log = tmp_path / "log"
    fake_compilers(monkeypatch, log, 0.0)
    monkeypatch.setattr(warmup.os, "sched_getaffinity", lambda pid: set(range(usable)))
    warmup.warm_up(cores=asked)
    pids = {pid for _, _, _, pid in events(log)} if log.exists() else set()
    assert len(pids) == started


@pytest.mark.processes
def test_a_warm_cache_or_one_core_starts_nothing(tmp_path: Path, monkeypatch):
    log = tmp_path / "log"
    fake_compilers(monkeypatch, log, 0.0)
    warmup.warm_up(cores=1)
    monkeypatch.setattr(warmup, "engine_is_cold", lambda: False)
    warmup.warm_up(cores=2)
    assert not log.exists()


def recorded_compilers(monkeypatch) -> list:
    """The compiler processes the warm-up starts, in a list, as it starts them."""
    started: list = []
    real_popen = warmup.subprocess.Popen

    def popen(*args, **kwargs):
        started.append(real_popen(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(warmup.subprocess, "Popen", popen)
    return started


@pytest.mark.processes
def test_ctrl_c_leaves_no_compiler_running(tmp_path: Path, monkeypatch):
    log = tmp_path / "log"
    fake_compilers(monkeypatch, log, 30.0)
    started = recorded_compilers(monkeypatch)
    threading.Timer(1.0, _thread.interrupt_main).start()
    begun = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        warmup.warm_up(cores=2)
    assert time.monotonic() - begun < 10
    assert len(started) == 2 and all(job.poll() is not None for job in started)
    assert "end" not in (log.read_text() if log.exists() else "")


class Terminated(Exception):
    pass


@pytest.mark.processes
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_stops_the_compilers_before_the_command(tmp_path: Path, monkeypatch, signum: int):
    """SIGTERM (or SIGHUP) during the warm-up: the compilers are stopped, then the
    signal does what the command would have done with it (by default, end it: it
    ended the command at once and left the compilers running their jobs)."""
    log = tmp_path / "log"
    fake_compilers(monkeypatch, log, 30.0)
    started = recorded_compilers(monkeypatch)

    def command_s_own(signum, frame):  # stands for the default action: ending
        assert all(job.poll() is not None for job in started)
        raise Terminated(signum)

    previous = signal.signal(signum, command_s_own)
    try:
        threading.Timer(1.0, os.kill, (os.getpid(), signum)).start()
        begun = time.monotonic()
        with pytest.raises(Terminated):
            warmup.warm_up(cores=2)
        assert signal.getsignal(signum) is command_s_own
    finally:
        signal.signal(signum, previous)
    assert time.monotonic() - begun < 10
    assert len(started) == 2 and all(job.poll() is not None for job in started)


@pytest.mark.parametrize("job", ALL_PLANNING)
def test_the_planner_jobs_compile_what_longest_train_calls(job):
    """The jobs' argument types are the router's, or longest_train would compile the
    paths again: once longest_train is in numba's cache (at pip_weight 0 and weighted),
    the job adds no signature."""
    from mexsim.planner.dense import dense_chain, weighted_dense_chain
    from mexsim.planner.sparse import sparse_chain, sparse_count_chain
    from mexsim.strategy.registry import load_strategy_file

    paths = {
        compile_jobs.PLANNER: (dense_chain,),
        compile_jobs.SPARSE_PLANNER: (sparse_count_chain,),
        compile_jobs.WEIGHTED_PLANNER: (weighted_dense_chain, sparse_chain),
    }[job]
    info = load_strategy_file(BUILTIN_FOLDER / "longest_train.py")  # cached, or compiled
    info.decide_with((0.5,))

    def signatures() -> set:
        return {(path, key[0]) for path in paths for key in path._cache._cache_file._load_index()}

    before = signatures()  # longest_train's, and those other tests compiled directly
    compile_jobs.compile_planner(job)
    assert signatures() == before


def test_only_the_strategies_a_config_plays_or_names_are_jobs(tmp_path: Path):
    """A cold start compiles what the run plays (the default table: 16-18 s rather than
    40 s with search and counter, docs/speed.md); a strategy a parameter names (search's
    rollout) is played too, and search, which rolls out with longest_train, waits for
    the planner's jobs rather than compile them again."""
    (tmp_path / "mine.py").write_text('NAME = "mine"\n')
    (tmp_path / "other.py").write_text('NAME = "other"\n')
    table = [{"strategy": s} for s in ("longest_train", "early_doubles", "greedy", "random")]
    files = {Path(job).name for job, _ in compile_jobs.warm_up_jobs([tmp_path], table)}
    assert {"search.py", "counter.py", "mexican_first.py", "mine.py"}.isdisjoint(files)
    assert {"longest_train.py", "greedy.py", "random.py", "early_doubles.py"} <= files
    named = [{"strategy": "search", "params": {"rollout": ["mine", 1]}}, {"strategy": "greedy"}]
    jobs = {Path(job).name: after for job, after in compile_jobs.warm_up_jobs([tmp_path], named)}
    assert {"search.py", "mine.py", "greedy.py"} <= set(jobs) and "other.py" not in jobs
    assert jobs["search.py"] == BUILTIN_PLANNING
