"""Running `mexsim run` in tests: configs, the command in process or as a real process,
and the signals that stop it. Shared by the tests of tests/tournament/."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from mexsim.cli import app

ROOT = Path(__file__).resolve().parents[2]
cli_runner = CliRunner()  # this typer's CliRunner keeps result.stdout and result.stderr apart

STRATEGIES = ("greedy", "random", "early_doubles", "mexican_first")
MATCHES = 200  # a multiple of len(STRATEGIES); more than one block of matches (64 first)
SEED = 7


# --- configs ----------------------------------------------------------------------


def toml_str(value: object) -> str:
    """A TOML basic string (JSON's escaping is valid TOML)."""
    return json.dumps(str(value))


def config_text(
    out: Path | str,
    *,
    matches: int = MATCHES,
    seed: int = SEED,
    rotate: bool = True,
    rules: str = "",
    players: str | None = None,
) -> str:
    if players is None:
        players = "".join(f'[[players]]\nstrategy = "{s}"\n' for s in STRATEGIES)
    return (
        f"[run]\nmatches = {matches}\nseed = {seed}\nout = {toml_str(out)}\n"
        f"[rules]\n{rules}"
        f"[seating]\nrotate = {'true' if rotate else 'false'}\n"
        f"{players}"
    )


def write_config(folder: Path, text: str, name: str = "cfg.toml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def temp_folders(folder: Path) -> list[Path]:
    """The runner's hidden work folders (``.NAME.tmp-PID``) anywhere under ``folder``."""
    return [p for p in folder.rglob(".*") if ".tmp-" in p.name]


def parts_done(folder: Path) -> int:
    """Blocks finished in the work folders under ``folder``."""
    return sum(len(list(w.glob("parts/*.matches.arrow"))) for w in temp_folders(folder))


# --- the command in this process ----------------------------------------------------


def assert_no_crash(result: Any) -> None:
    """CliRunner catches what escapes the app: only SystemExit may end a command."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "Traceback" not in result.output


def run_cli(*args: str | Path) -> Any:
    """`mexsim run ARGS` in process."""
    result = cli_runner.invoke(app, ["run", *map(str, args)])
    assert_no_crash(result)
    return result


def one_line_error(result: Any, status: int) -> str:
    """The one line of a refused command, which ended with ``status``."""
    assert_no_crash(result)
    assert result.exit_code == status, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mexsim: error:"), result.stderr
    return lines[0]


def ctrl_c() -> None:
    """A real SIGINT to this process, as Ctrl-C sends: the run's handler stops it in
    the main thread (call it from a patched step of an in-process run)."""
    os.kill(os.getpid(), signal.SIGINT)


def ctrl_c_once_written(parent: Path, blocks: int) -> None:
    """ctrl_c() once blocks 0 .. blocks-1 of the in-process run writing into a work
    folder under ``parent`` are on disk. Called as a later block starts: the blocks
    before it are played (one play thread plays them in order), but their writes, on
    threads of their own with several blocks in flight, may lag behind; what is on disk
    when the run stops must not depend on that timing."""
    from mexsim.store.parts import WorkFolder

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        folders = list(parent.glob(".*.tmp-*"))
        parts = [WorkFolder(f).part(i, "matches") for f in folders for i in range(blocks)]
        if folders and all(part.exists() for part in parts):  # (not done(): it tidies)
            break
        time.sleep(0.01)
    ctrl_c()


# --- the command as a process, and signals ------------------------------------------


def mexsim_in(folder: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """`mexsim ARGS` run to its end in ``folder`` as a real process, output captured."""
    return subprocess.run(
        [sys.executable, "-m", "mexsim", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def python_in(code: str, *args: str | Path, timeout: float = 600) -> subprocess.CompletedProcess:
    """``code`` run to its end in a new Python process (nothing of this one's imports,
    as a user's session), in the project's folder, output captured."""
    return subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def mexsim(*args: str | Path, **kw: Any) -> subprocess.Popen:
    """`mexsim ARGS` as a real process (its signals are real), output captured."""
    return subprocess.Popen(
        [sys.executable, "-m", "mexsim", *map(str, args)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def finish(proc: subprocess.Popen, timeout: float = 600) -> tuple[int, str, str]:
    """(exit status, stdout, stderr); the process is killed if it outlives ``timeout``."""
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, out, err


def wait_until(
    proc: subprocess.Popen, ready: Callable[[], Any], what: str, timeout: float = 300
) -> None:
    """Poll ``ready()`` while ``proc`` runs; fail when it ended or ``timeout`` passed
    first (numba may be loading or compiling the kernels meanwhile)."""
    deadline = time.monotonic() + timeout
    while not ready():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def wait_for_parts(
    proc: subprocess.Popen, folder: Path, at_least: int, timeout: float = 300
) -> None:
    """Until ``proc`` finished ``at_least`` blocks in a work folder under ``folder``."""
    wait_until(proc, lambda: parts_done(folder) >= at_least, "the run never got going", timeout)


def interrupt(
    proc: subprocess.Popen, signum: int, timeout: float = 30
) -> tuple[int, str, str, float]:
    """Send ``signum`` and wait for the end: (status, stdout, stderr, seconds it took)."""
    sent = time.monotonic()
    proc.send_signal(signum)
    code, out, err = finish(proc, timeout)
    return code, out, err, time.monotonic() - sent


def kill_a_worker_mid_run(monkeypatch: Any) -> list[int]:
    """Patch the cluster player so that the first task submitted after the one of block
    0 has a Dask worker process SIGKILLed 0.2 s later (as the machine's OOM killer
    would); returns the list that receives its pid."""
    import threading

    from distributed import Client

    from mexsim.running.dask.cluster import ClusterPlayer

    killed: list[int] = []
    original = ClusterPlayer.submit

    def submit_then_kill(
        self: ClusterPlayer, spans: list[tuple[int, int]], *args: Any, **kwargs: Any
    ) -> Any:
        future = original(self, spans, *args, **kwargs)
        if spans[0][0] > 0 and not killed:
            victim = min(Client.run(self.client, os.getpid).values())
            killed.append(victim)
            threading.Timer(0.2, os.kill, (victim, signal.SIGKILL)).start()
        return future

    monkeypatch.setattr(ClusterPlayer, "submit", submit_then_kill)
    return killed


def temporary_folder(tmp_path: Path) -> Path:
    """An empty folder to be a run's $TMPDIR, its path too long for a socket in it
    (AF_UNIX: ~107 bytes with multiprocessing's pymp-*/listener-* under it), as a job
    scheduler's or pytest-xdist's can be: what a run leaves there is seen, and a
    local cluster's fork server must listen elsewhere."""
    folder = tmp_path / ("tmp-" + "x" * 80)
    folder.mkdir()
    return folder


# --- process groups ---------------------------------------------------------------


def group_alive(group: int) -> bool:
    """Whether a process of ``group`` (a command started in a session of its own, and
    what it started) still runs."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def group_ends(group: int, within: float) -> bool:
    """Whether every process of ``group`` has ended within ``within`` seconds."""
    deadline = time.monotonic() + within
    while group_alive(group) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not group_alive(group)


def assert_stopped_in_one_line(code: int, err: str, status: int) -> None:
    """A command stopped by a signal ends with ``status`` and says so in one line (a
    local cluster's notice of its workers aside)."""
    assert code == status, err
    lines = [line for line in err.splitlines() if "Dask worker" not in line]
    assert len(lines) == 1 and lines[0].startswith("mexsim: interrupted"), err
