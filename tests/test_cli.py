"""mexsim.cli: exit status 2 with one line on stderr for bad input, replay output, --help cost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from mexsim.cli import app
from mexsim.tournament.config import Config

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("numba", "numpy", "pandas", "pyarrow", "mexsim.tournament.replay", "mexsim.game.kernel")
GOOD = (
    '[run]\nmatches = 5\nseed = 11\n[[players]]\nstrategy = "greedy"\n'
    '[[players]]\nstrategy = "random"\n'
)
EVENTS: list[dict[str, Any]] = [
    {
        "event": "match",
        "match": 3,
        "seed": 99,
        "players": [
            {"seat": 0, "player": "greedy", "strategy": "greedy"},
            {"seat": 1, "player": "random", "strategy": "random"},
        ],
        "rules": {},
    },
    {"event": "match_end", "totals": [10, 20]},
]

runner = CliRunner()  # this typer's CliRunner keeps result.stdout and result.stderr apart


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cfg.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def fake_replay(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Config, int]]:
    """Stand in for mexsim.tournament.replay (the engine) and record its calls."""
    calls: list[tuple[Config, int]] = []

    def trace_match(
        config: Config, match: int, variant: int = 0, explained: bool = False
    ) -> list[dict[str, Any]]:
        calls.append((config, match))
        return EVENTS

    module = types.ModuleType("mexsim.tournament.replay")
    module.trace_match = trace_match  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "mexsim.tournament.replay", module)
    return calls


def assert_usage_error(result: Any, *parts: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("mexsim: error: ")
    assert "Traceback" not in result.output
    for part in parts:
        assert part in lines[0], f"{part!r} not in {lines[0]!r}"


# --- errors ---------------------------------------------------------------------------


@pytest.mark.usefixtures("fake_replay")
@pytest.mark.parametrize(
    ("config", "args", "parts"),
    [
        ("[run]\nmatchs = 1\n", [], ["cfg.toml [run]", "'matchs'", "did you mean 'matches'?"]),
        (
            GOOD.replace('"random"', '"randon"'),
            [],
            ["'randon'", "greedy, longest_train, mexican_first, random"],
        ),
        ("[run\n", [], ["TOML syntax error", "line 1"]),
        (GOOD, ["--match", "-1"], ["--match", "0"]),
        (GOOD, ["--match", "5"], ["--match 5", "allowed: 0..4"]),
        (GOOD, ["--match", "0", "--format", "xml"], ["--format", "text", "jsonl"]),
        (GOOD, ["--match", "0", "--seed", "-3"], ["--seed"]),
        (GOOD, ["--match", "zero"], ["--match"]),
        (GOOD, ["--match", "0", "--sed", "1"], ["--sed"]),
    ],
    ids=[
        "unknown-key",
        "unknown-strategy",
        "toml-syntax",
        "negative-match",
        "match-range",
        "bad-format",
        "negative-seed",
        "match-not-int",
        "unknown-option",
    ],
)
def test_usage_and_config_errors(
    tmp_path: Path, config: str, args: list[str], parts: list[str]
) -> None:
    path = write(tmp_path, config)
    if not args:
        args = ["--match", "0"]
    result = runner.invoke(app, ["replay", str(path), *args])
    assert_usage_error(result, *parts)


@pytest.mark.parametrize(
    ("config", "args", "parts"),
    [
        (
            '[analysis]\nluck = "yes"\n' + GOOD.split("[[players]]", 1)[0],
            [],
            ["[analysis]", "'luck'"],
        ),
        (GOOD, ["--matches", "0"], ["--matches"]),
        (GOOD, ["--out", ""], ["--out"]),
    ],
)
def test_run_refuses_before_compiling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str, args: list[str], parts: list[str]
) -> None:
    """On a cold cache `run` compiles the strategies first (minutes): a mistake that
    needs none of them is said at once."""
    import mexsim.running.warmup

    def compile_nothing(*_: Any) -> None:
        raise AssertionError("compiled before refusing")

    monkeypatch.setattr(mexsim.running.warmup, "warm_up", compile_nothing)
    result = runner.invoke(app, ["run", str(write(tmp_path, config)), *args])
    assert_usage_error(result, *parts)


def test_missing_config_file(tmp_path: Path) -> None:
    result = runner.invoke(app, ["replay", str(tmp_path / "gone.toml"), "--match", "0"])
    assert_usage_error(result, "gone.toml", "not found")


def test_missing_match_option(tmp_path: Path) -> None:
    result = runner.invoke(app, ["replay", str(write(tmp_path, GOOD))])
    assert_usage_error(result, "--match")


def test_unknown_command() -> None:
    assert_usage_error(runner.invoke(app, ["replya"]), "replya")


def test_no_arguments_shows_help() -> None:
    result = runner.invoke(app, [])
    assert result.exit_code == 2
    assert "replay" in result.output  # rich prints help on stdout, plain click on stderr


# --- replay ---------------------------------------------------------------------------


def test_replay_jsonl(tmp_path: Path, fake_replay: list[tuple[Config, int]]) -> None:
    path = write(tmp_path, GOOD)
    result = runner.invoke(app, ["replay", str(path), "--match", "3", "--format", "jsonl"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert [json.loads(line) for line in lines] == EVENTS
    assert lines[1] == '{"event":"match_end","totals":[10,20]}'  # compact separators
    ((config, match),) = fake_replay
    assert (match, config.seed, config.matches, config.path) == (3, 11, 5, str(path))


def test_replay_seed_override_and_text(
    tmp_path: Path, fake_replay: list[tuple[Config, int]]
) -> None:
    path = write(tmp_path, GOOD)
    result = runner.invoke(app, ["replay", str(path), "--match", "0", "--seed", "123"])
    assert result.exit_code == 0, result.output
    assert "Winner: seat 0 (greedy) with 10" in result.stdout
    assert fake_replay[0][0].seed == 123


def test_replay_with_the_engine(tmp_path: Path) -> None:
    """End to end through the real engine, once mexsim.tournament.replay exists."""
    pytest.importorskip("mexsim.tournament.replay")
    path = write(tmp_path, GOOD)
    result = runner.invoke(app, ["replay", str(path), "--match", "2", "--format", "jsonl"])
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[0]["event"] == "match" and events[0]["match"] == 2
    assert events[-1]["event"] == "match_end"
    text = runner.invoke(app, ["replay", str(path), "--match", "2"])
    assert text.exit_code == 0, text.output
    assert "Round 12 — engine 0|0" in text.stdout


# --- start-up cost --------------------------------------------------------------------

HELP_PROBE = f"""
import json, sys
from mexsim.cli import app
sys.argv = ["mexsim", "--help"]
try:
    app()
except SystemExit as exc:
    code = exc.code
print(json.dumps({{"code": code, "heavy": [m for m in {HEAVY!r} if m in sys.modules]}}))
"""


@pytest.mark.processes
def test_help_imports_nothing_heavy() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", HELP_PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report == {"code": 0, "heavy": []}
    assert "replay" in proc.stdout


EXIT_PROBE = """
import atexit, gc, sys
atexit.register(lambda: print("frozen", gc.get_freeze_count() > 0))  # runs after mexsim's
from mexsim.cli import app
app(sys.argv[1:])
"""


@pytest.mark.processes
def test_the_command_leaves_the_collector_nothing_at_exit(tmp_path: Path) -> None:
    """gc.freeze() at exit: a process with the kernels loaded ended 1-2 s later without."""
    proc = subprocess.run(
        [sys.executable, "-c", EXIT_PROBE, "run", str(tmp_path / "missing.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout.splitlines() == ["frozen True"]


@pytest.mark.processes
def test_python_dash_m_help() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mexsim", "replay", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    for option in ("--match", "--seed", "--format"):
        assert option in proc.stdout


@pytest.mark.parametrize("command", [["replay", "CFG", "--match", "0"], ["run", "CFG"]])
def test_ctrl_c_before_play_is_one_line_and_exit_130(tmp_path: Path, monkeypatch, command):
    """Ctrl-C while the config loads or the strategies compile (before the runner's own
    handlers): 'interrupted', exit 130, no traceback."""

    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("mexsim.cli.load_config", interrupted)
    cfg = str(write(tmp_path, GOOD))
    result = runner.invoke(app, [cfg if word == "CFG" else word for word in command])
    assert result.exit_code == 130
    assert result.stderr.strip().splitlines()[-1] == "mexsim: interrupted"
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("show", [False, True])
def test_an_internal_error_is_one_line_with_its_own_status(
    monkeypatch: pytest.MonkeyPatch, show: bool
) -> None:
    """A fault of mexsim's own (here the strategy list failing as no input could make
    it) is one line naming it, exit status 70; the traceback only when asked for."""
    from mexsim.strategy import registry

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the registry\nbroke")

    monkeypatch.setattr(registry, "available_strategies", broken)
    env = {"MEXSIM_TRACEBACK": "1"} if show else {}
    if not show:
        monkeypatch.delenv("MEXSIM_TRACEBACK", raising=False)
    result = runner.invoke(app, ["strategies"], env=env)
    assert result.exit_code == 70, result.output
    lines = result.stderr.splitlines()
    assert lines[-1].startswith("mexsim: error: internal error of mexsim ")
    assert "RuntimeError: the registry broke" in lines[-1]
    assert "MEXSIM_TRACEBACK=1" in lines[-1]
    if show:
        assert "Traceback" in result.stderr and "in broken" in result.stderr
    else:
        assert len(lines) == 1 and "Traceback" not in result.output


@pytest.mark.slow
@pytest.mark.processes
def test_a_run_on_threads_does_not_load_dask(tmp_path: Path) -> None:
    """Dask is for --cluster: a run on threads imported it all the same (through the
    cluster module's signal helpers), ~0.3 s of every run's start."""
    config = write(tmp_path, GOOD.replace("[run]\n", f'[run]\nout = "{tmp_path / "out"}"\n'))
    code = (
        "import sys\nfrom typer.testing import CliRunner\nfrom mexsim.cli import app\n"
        f"result = CliRunner().invoke(app, ['run', {str(config)!r}, '--quiet', "
        "'--workers', '2'])\n"
        "print(result.exit_code, 'distributed' in sys.modules, 'dask' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
    )
    assert done.stdout.split() == ["0", "False", "False"], done.stdout + done.stderr
    assert (tmp_path / "out" / "matches.parquet").exists()


def test_a_match_index_beyond_int64_is_a_usage_error(tmp_path: Path):
    """Issue 32, row 17: `replay --match` >= 2**63 with a config of as many matches was
    exit 70 (OverflowError). Now a config's matches and --match stop at 2**62."""
    huge = write(tmp_path, GOOD.replace("matches = 5", f"matches = {2**63}"))
    assert_usage_error(runner.invoke(app, ["replay", str(huge), "--match", "0"]), "matches")
    path = write(tmp_path, GOOD)
    assert_usage_error(runner.invoke(app, ["replay", str(path), "--match", str(2**63)]))
    assert_usage_error(runner.invoke(app, ["run", str(path), "--matches", str(2**63)]), "--matches")


@pytest.mark.processes
@pytest.mark.parametrize("args", [["--help"], ["replay", "{cfg}", "--match", "1"]])
def test_a_full_standard_output_is_an_output_error(tmp_path: Path, args: list[str]):
    """Issue 32, row 18: `replay … > /dev/full` was exit 70, an internal error. A
    standard output that refuses what is printed is exit 4, in one line."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    path = write(tmp_path, GOOD)
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "mexsim", *[a.format(cfg=path) for a in args]],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=600,
            check=False,
        )
    assert done.returncode == 4, done.stderr
    errors = [line for line in done.stderr.splitlines() if "compiling" not in line]
    assert errors == ["mexsim: error: standard output: cannot write (No space left on device)"]


@pytest.mark.parametrize("value", ["nan", "-1", "inf", "1e7"])
@pytest.mark.parametrize("command", ["run", "replay"])
def test_a_decision_limit_out_of_range_is_one_line(
    tmp_path: Path, command: str, value: str
) -> None:
    """nan was refused as "should be less than or equal to 1000000" (typer's range)."""
    args = [command, str(write(tmp_path, GOOD)), "--decision-limit", value]
    result = runner.invoke(app, [*args, *(["--match", "0"] if command == "replay" else [])])
    assert_usage_error(result, "--decision-limit", "from 0 (no limit) to 1000000")


def test_version_is_printed() -> None:
    from mexsim import __version__

    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout == f"mexsim {__version__}\n"


@pytest.mark.parametrize(
    "command", [[], ["run"], ["replay"], ["report"], ["check"], ["play"], ["analyze"]]
)
def test_no_help_shows_a_flag_as_taking_a_value(command: list[str]) -> None:
    """typer writes "<bool>" beside a flag, as if it took a value."""
    result = runner.invoke(app, [*command, "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.stdout and "--help" in result.stdout


def test_one_more_player_is_singular() -> None:
    from mexsim.analysis.comparison import PLAIN_MOST, analyze

    n = PLAIN_MOST + 2  # the best, PLAIN_MOST said in words, one more
    rng = np.random.default_rng(3)
    totals = rng.normal(300, 10, (200, n)) + np.arange(n) * 20.0
    words = analyze(totals, np.arange(200), [f"p{i}" for i in range(n)], ["x"] * n, {}, 13)
    assert "(1 more player in the table below.)" in words.format()


def test_a_sweeps_best_at_the_edge_of_its_range_is_said() -> None:
    from mexsim.analysis.comparison import analyze

    rng = np.random.default_rng(5)
    players = ["lt[w=0]", "lt[w=1]", "lt[w=2]", "other"]
    totals = rng.normal(300, 10, (400, 4)) + np.array([20.0, 10.0, 0.0, 5.0])
    text = analyze(
        totals, np.arange(400), players, ["lt", "lt", "lt", "x"], {"lt": players[:3]}, 13
    ).format()
    assert "the best value is the highest swept (w=2): the best may lie beyond it" in text


def test_numbas_refusal_to_cache_a_strategy_is_said_in_words(capsys) -> None:
    from numba.core.errors import NumbaWarning

    from mexsim.process.command_process import show_warning

    message = 'Cannot cache compiled function "decide" as it uses dynamic globals (such as …)'
    show_warning(NumbaWarning(message), NumbaWarning, "/s/m_list.py", 9)
    said = capsys.readouterr().err
    assert said.count("\n") == 1
    assert said.startswith("mexsim: warning: /s/m_list.py:9: decide cannot be kept in numba's")
    assert "compiled again at every run: sort an array of keys with np.argsort" in said
