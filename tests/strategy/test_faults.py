"""A user's strategy that is wrong ends in one clear line, never a crash, a hang or a
silently different game (issue 10, "What was found"):

- an index past the view raises IndexError (user strategies are bounds-checked) and is
  reported as that strategy's fault, through `mexsim run` too; so does an accessor's
  index that lands before the view's start (it no longer wraps to the view's end);
- a decide numba cannot compile, or that can only raise, has a path without `return`,
  returns a float, indexes an accessor with a float or draws from np.random / random
  is refused at load: file:line and the cause, one line;
- a broken file that no config names is a warning, not a refusal;
- PARAMS may declare (default, lowest, highest); configs outside it, or not finite,
  are refused naming the file and the key.

Each strategy file costs a numba compile, so the files share a module-scoped folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mexsim.cli import app
from mexsim.errors import ConfigError, StrategyError, StrategyFileWarning
from mexsim.game import view as V
from mexsim.game.play import play_match_results
from mexsim.game.rules import resolve_rules
from mexsim.strategy.policy import Policy, resolve_policies
from mexsim.strategy.registry import (
    _index,
    _load_once,
    available_strategies,
    load_strategy_file,
)
from mexsim.tournament.config import load_config

runner = CliRunner()

HEAD = """\
import random

import numpy as np

from mexsim.game.view import N_MOVES, SIZE
from mexsim.strategy.api import strategy, train_end

NAME = "{name}"
DESCRIPTION = "a test strategy"


"""  # decide's decorator is on line 12, its def on line 13

BODIES = {
    # name: (body of decide, line reported, words of the cause)
    "only_raises": ('    raise ValueError("not yet")\n', 13, ["never returns a move"]),
    "no_return_on_a_path": (
        "    if view[N_MOVES] > 1:\n        return 1\n",
        14,
        ["without 'return'"],
    ),
    "uses_a_class": ("    return Plan().x\n", 14, ["does not compile", "Plan"]),
    # the mistakes a new author makes most, with what to write instead (issue 35)
    "params_by_name": (
        '    return int(params["own_bonus"])\n',
        14,
        ["indexed by position", "param_index(PARAMS)", "params[P.own_bonus]"],  # its name
    ),
    "lambda_key": (
        "    return max(range(view[N_MOVES]), key=lambda i: view[i])\n",
        14,
        ["lambda", "write the loop out"],
    ),
    "starts_as_none": (
        "    best = None\n    for i in range(view[N_MOVES]):\n        best = i\n    return best\n",
        13,
        ["can return None", "best = 0"],
    ),
    "np_random": (
        "    return np.random.randint(0, view[N_MOVES])\n",
        13,
        ["np.random", "random_below(view, n)"],
    ),
    "python_random": (
        "    return random.randrange(view[N_MOVES])\n",
        13,
        ["random's global random state", "random_below(view, n)"],
    ),
    "returns_a_float": ("    return view[N_MOVES] * 0.5\n", 13, ["float64", "truncated"]),
    "wrong_type": ('    view[0] = "x"\n    return 0\n', 14, ["does not compile", "setitem"]),
    # numba's words were "No conversion from UniTuple(int64 x 2) to int64 for
    # '$224return_value.11', defined at None": no line, a temporary's name
    "returns_a_tuple": (
        "    best = view[N_MOVES] - 1\n    return best, 0\n",
        15,
        ["decide returns a tuple, not one move index", "return one integer"],
    ),
    # an accessor casts its index to unsigned: a float must not be truncated silently
    # (numba places an inlined accessor's error in access.py: no line in the file)
    "float_index": (
        "    return train_end(view, view[N_MOVES] / 2) * 0\n",
        None,
        ["does not compile", "index must be an integer, got float64", "(in train_end)"],
    ),
}
CLASS = "class Plan:\n    x = 0\n\n\n"

FAR = "    view[10**7] = 1\n    return 0\n"
JUST_PAST = "    view[SIZE + 3] = 1\n    return 0\n"
# TRAIN_END - (TRAIN_END + 1) = -1: Python's wraparound read the view's last word, silently
BEFORE_START = f"    return train_end(view, -{V.TRAIN_END + 1}) * 0\n"
RANGED = """\
from mexsim.strategy.api import strategy

NAME = "ranged"
DESCRIPTION = "declares a range for its weight"
PARAMS = {"weight": (1.0, 0.0, 10.0), "free": 2.0}


@strategy
def decide(view, params):
    return 0
"""


def strategy_text(name: str, body: str) -> str:
    head = HEAD.format(name=name)
    if name == "uses_a_class":  # keep decide's lines where the table says
        head = head.replace(
            'DESCRIPTION = "a test strategy"\n\n\n', 'DESCRIPTION = "a test strategy"\n' + CLASS
        )
    return head + "@strategy\ndef decide(view, params):\n" + body


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("faults")
    plugins = root / "plugins"
    plugins.mkdir()
    for name, (body, _, _) in BODIES.items():
        (plugins / f"{name}.py").write_text(strategy_text(name, body), encoding="utf-8")
    (plugins / "far.py").write_text(strategy_text("far", FAR), encoding="utf-8")
    (plugins / "just_past.py").write_text(strategy_text("just_past", JUST_PAST), encoding="utf-8")
    (plugins / "before_start.py").write_text(
        strategy_text("before_start", BEFORE_START), encoding="utf-8"
    )
    (plugins / "ranged.py").write_text(RANGED, encoding="utf-8")
    return root


@pytest.mark.compiles
@pytest.mark.parametrize("name", list(BODIES))
def test_a_bad_decide_is_refused_in_one_line(folder: Path, name: str):
    path = folder / "plugins" / f"{name}.py"
    _, line, words = BODIES[name]
    if name == "uses_a_class":
        line += 2  # the class takes the two blank lines' place and two more
    with pytest.raises(ConfigError) as err:
        load_strategy_file(path)
    message = str(err.value)
    assert "\n" not in message and len(message) < 400, message
    assert message.startswith(f"{path}:{line}: " if line else f"{path}: "), message
    for word in words:
        assert word in message, (word, message)


@pytest.mark.compiles
def test_refused_twice_the_same_way(folder: Path):
    """The second load meets numba's on-disk cache (no IR to inspect): still refused."""
    path = folder / "plugins" / "np_random.py"
    for _ in range(2):
        with pytest.raises(ConfigError, match=r"np\.random"):
            load_strategy_file(path)


@pytest.mark.compiles
def test_broken_files_are_warnings_in_the_listing_and_unread_by_a_config_not_using_them(
    folder: Path,
):
    with pytest.warns(StrategyFileWarning) as caught:
        found = available_strategies([folder / "plugins"])
    assert {"far", "just_past", "ranged", "greedy"} <= set(found)
    assert not set(BODIES) & set(found)
    assert len(caught) >= len(BODIES)
    config = folder / "ok.toml"
    config.write_text(
        '[run]\nmatches = 2\nstrategies = "plugins"\n[[players]]\n'
        'strategy = "ranged"\n[[players]]\nstrategy = "greedy"\n',
        encoding="utf-8",
    )
    _load_once.cache_clear()  # as in a new process
    _index.cache_clear()
    result = runner.invoke(app, ["replay", str(config), "--match", "1", "--format", "jsonl"])
    assert result.exit_code == 0, result.output
    assert '"match_end"' in result.stdout
    # the broken files are not imported (issue 32, row 8), so nothing is said of them; on
    # a cold cache the replay's kernel may compile first, and say so on its own line
    said = [
        line for line in result.stderr.splitlines() if not line.startswith("mexsim: compiling ")
    ]
    assert said == [], result.stderr


def test_a_config_naming_a_broken_strategy_is_refused(folder: Path):
    config = folder / "uses_float.toml"
    config.write_text(
        '[run]\nstrategies = "plugins"\n[[players]]\n'
        'strategy = "returns_a_float"\n[[players]]\nstrategy = "greedy"\n',
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as err:
        load_config(config)
    message = str(err.value)
    assert message.startswith(
        f"{config} [[players]] #1: strategy 'returns_a_float' cannot be loaded: "
    ), message
    assert "returns_a_float.py:13" in message and "float64" in message


RULES = resolve_rules({}, 2)


@pytest.mark.compiles
@pytest.mark.parametrize("name", ["far", "just_past", "before_start"])
def test_an_index_outside_the_view_is_the_strategy_s_fault(folder: Path, name: str):
    info = available_strategies([folder / "plugins"])[name]
    with pytest.raises(StrategyError) as err:
        play_match_results(RULES, resolve_policies(["greedy", Policy(info, ())]), 1, 3)
    message = str(err.value)
    assert message.startswith(
        f"strategy '{name}' (seat 1) in match 3, round 0 raised IndexError"
    ), message


def test_the_engine_s_own_compile_error_is_not_blamed_on_a_strategy(monkeypatch):
    """numba compiles a strategy when it is loaded; a compile error while the kernel runs
    is mexsim's own (once reported as "strategy 'greedy' ... raised TypingError")."""
    from numba.core.errors import TypingError

    from mexsim.game import kernel

    def broken(*args):
        raise TypingError("a kernel that does not compile")

    monkeypatch.setattr(kernel, "play_match", broken)
    with pytest.raises(TypingError):
        play_match_results(RULES, resolve_policies(["greedy", "greedy"]), 1, 3)


def test_a_write_past_the_view_through_mexsim_run(folder: Path):
    config = folder / "far.toml"
    config.write_text(
        '[run]\nmatches = 3\nstrategies = "plugins"\n[[players]]\n'
        'strategy = "greedy"\n[[players]]\nstrategy = "far"\n',
        encoding="utf-8",
    )
    out = folder / "results"
    result = runner.invoke(
        app, ["run", str(config), "--out", str(out), "--quiet", "--workers", "1"]
    )
    assert result.exit_code == 1, result.output
    errors = [line for line in result.stderr.splitlines() if "warning" not in line]
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith("mexsim: error: strategy 'far' (seat "), errors
    assert "IndexError" in errors[0] and "round 0" in errors[0]
    assert not out.exists()


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ("{ weight = -1 }", ["'params.weight' = -1", "allowed: 0..10"]),
        ("{ weight = 1e308 }", ["'params.weight' = 1e+308", "allowed: 0..10"]),
        ("{ weight = [1, 11] }", ["'params.weight' = 11"]),
        ("{ free = inf }", ["'params.free' = inf", "a finite number"]),
        ("{ free = nan }", ["'params.free' = nan", "a finite number"]),
    ],
)
def test_parameters_out_of_range_or_not_finite(folder: Path, params: str, words: list[str]):
    config = folder / "ranged.toml"
    config.write_text(
        f'[run]\nstrategies = "plugins"\n[[players]]\nstrategy = "ranged"\n'
        f'params = {params}\n[[players]]\nstrategy = "greedy"\n',
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as err:
        load_config(config)
    message = str(err.value)
    assert message.startswith(f"{config} [[players]] #1: "), message
    for word in words:
        assert word in message, (word, message)


@pytest.mark.parametrize("pip_weight", ["-1e308", "inf", "-1", "101"])
def test_longest_train_refuses_weights_that_never_end(tmp_path: Path, pip_weight: str):
    config = tmp_path / "lt.toml"
    config.write_text(
        f'[[players]]\nstrategy = "longest_train"\nparams = {{ pip_weight = '
        f'{pip_weight} }}\n[[players]]\nstrategy = "greedy"\n',
        encoding="utf-8",
    )
    result = runner.invoke(app, ["run", str(config), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "'params.pip_weight'" in result.stderr
    assert str(config) in result.stderr and "allowed: 0..100" in result.stderr


def test_the_built_ins_declare_their_ranges():
    found = available_strategies()
    assert found["longest_train"].bounds == {"pip_weight": (0.0, 100.0)}
    assert found["early_doubles"].bounds == {"own_first": (0.0, 1.0)}


@pytest.mark.compiles
@pytest.mark.parametrize(
    "declared",
    [
        '{"w": (1.0, 2.0, 3.0)}',
        '{"w": (1.0, 0.0)}',
        '{"w": float("inf")}',
        '{"w": (0.0, 0.0, float("nan"))}',
    ],
)
def test_bad_params_declarations(tmp_path: Path, declared: str):
    path = tmp_path / "bad_params.py"
    path.write_text(
        f'NAME = "bad_params"\nDESCRIPTION = "x"\nPARAMS = {declared}\n', encoding="utf-8"
    )
    with pytest.raises(ConfigError) as err:
        load_strategy_file(path)
    assert str(err.value).startswith(f"{path}: PARAMS"), err.value
