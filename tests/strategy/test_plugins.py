"""The strategy plug-in system: a strategy file outside mexsim/ runs end to end, bad
files and misbehaving strategies give errors that name them, an edited file is never
run from a stale compiled cache, and `mexsim strategies` lists what there is.

The strategy files are written to temporary folders; each new file costs a numba
compile, so the well-behaved ones are shared by a module-scoped folder.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from mexsim.cli import app
from mexsim.errors import ConfigError
from mexsim.game import reference
from mexsim.game import view as V
from mexsim.game.enums import Calling
from mexsim.game.play import (
    StrategyError,
    core_trace,
    play_match_results,
    play_matches_results,
    play_scheduled,
)
from mexsim.game.referee import check_jsonl, check_trace
from mexsim.game.rules import PRESETS, resolve_rules
from mexsim.strategy.origin import BUILTIN_FOLDER
from mexsim.strategy.policy import Policy, resolve_policies
from mexsim.strategy.registry import (
    StrategyInfo,
    available_strategies,
    load_strategy_file,
)
from mexsim.tournament.config import load_config
from mexsim.tournament.lineup import match_policies
from mexsim.tournament.replay import match_header, trace_match
from tests.cli_output import without_compile_notes

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()

PICK_X = '''\
"""Plays legal move number x (the last one when there are fewer)."""
from mexsim.strategy.api import strategy
from mexsim.game.view import N_MOVES

NAME = "pick_x"
DESCRIPTION = "plays legal move number x, or the last one"
PARAMS = {"x": 1}


@strategy
def decide(view, params):
    return min(int(params[0]), view[N_MOVES] - 1)
'''

OUT_OF_RANGE = """\
from mexsim.strategy.api import strategy
from mexsim.game.view import N_MOVES, ROUND

NAME = "out_of_range"
DESCRIPTION = "in round 1 it answers one past its last legal move"


@strategy
def decide(view, params):
    return view[N_MOVES] if view[ROUND] == 1 else 0
"""

BOOM = """\
from mexsim.strategy.api import strategy
from mexsim.game.view import ROUND

NAME = "boom"
DESCRIPTION = "raises in round 2"


@strategy
def decide(view, params):
    if view[ROUND] == 2:
        raise ValueError("boom")
    return 0
"""

# greedy's choice (the heaviest tile: the lowest number, the earliest move among
# equals), through arrays made in decide and in a helper that returns one
SCRATCHPAD = """\
import numpy as np
from numba import njit
from mexsim.strategy.api import strategy
from mexsim.game.view import MOVE_TILE, N_MOVES

NAME = "scratchpad"
DESCRIPTION = "greedy's choice, through arrays it makes"


@njit
def _copy(tiles):
    return tiles.copy()


@strategy
def decide(view, params):
    tiles = np.empty(view[N_MOVES], dtype=np.int64)
    for i in range(view[N_MOVES]):
        tiles[i] = view[MOVE_TILE + i]
    return np.argmin(_copy(tiles))
"""

CONFIG = """\
[run]
matches = 3
seed = 5
strategies = "plugins"

[[players]]
strategy = "{strategy}"
params = {params}

[[players]]
strategy = "greedy"

[[players]]
strategy = "random"
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with plugins/ (pick_x, out_of_range, boom, scratchpad); configs go next
    to it."""
    root = tmp_path_factory.mktemp("project")
    (root / "plugins").mkdir()
    for name, text in (
        ("pick_x", PICK_X),
        ("out_of_range", OUT_OF_RANGE),
        ("boom", BOOM),
        ("scratchpad", SCRATCHPAD),
    ):
        (root / "plugins" / f"{name}.py").write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def plugins(project: Path) -> dict[str, StrategyInfo]:
    return available_strategies([project / "plugins"])


def write_config(
    project: Path, name: str, strategy: str = "pick_x", params: str = "{ x = 2 }"
) -> Path:
    path = project / name
    path.write_text(CONFIG.format(strategy=strategy, params=params), encoding="utf-8")
    return path


@pytest.mark.compiles
def test_the_tmp_strategy_is_short():
    assert len(PICK_X.splitlines()) <= 20


# --------------------------------------------------------------- end to end


@pytest.mark.compiles
def test_a_tmp_strategy_runs_end_to_end(project: Path, plugins: dict[str, StrategyInfo]):
    config = load_config(write_config(project, "pick.toml"))
    assert config.players[0].params == {"x": 2.0}
    trace = trace_match(config, 0)
    check_trace(trace)
    assert trace[0]["players"][0]["strategy"] == "pick_x"
    # the core played pick_x with x = 2, move for move as the reference engine does
    info = plugins["pick_x"]
    assert info.path == str(project / "plugins" / "pick_x.py")
    seats = resolve_policies([Policy(info, (2.0,)), "greedy", "random"])
    expected = reference.play_match(config.rules, 5, 0, seats, header=match_header(config, 0))
    assert trace == expected.events
    assert match_policies(config, 0)[0] == seats[0]
    # and x matters: with x = 0 the game goes differently
    other = reference.play_match(
        config.rules, 5, 0, resolve_policies([Policy(info, (0.0,)), "greedy", "random"])
    )
    assert other.events != trace[1:]


@pytest.mark.compiles
def test_a_strategy_that_makes_arrays_plays_as_the_built_ins_do_not(
    plugins: dict[str, StrategyInfo],
):
    # The built-ins' decide is compiled without numba's reference counts (they make no
    # arrays); a user's keeps them, so that arrays it makes are freed as they go
    rules = resolve_rules({"preset": "seed-001"}, 3)
    played = play_matches_results(
        rules, resolve_policies([Policy(plugins["scratchpad"], ()), "greedy", "random"]), 9, 0, 40
    )
    assert np.array_equal(
        played,
        play_matches_results(rules, resolve_policies(["greedy", "greedy", "random"]), 9, 0, 40),
    )
    assert plugins["scratchpad"].decide.targetoptions["_nrt"] is True
    built_in = [
        info for info in available_strategies().values() if Path(info.path).parent == BUILTIN_FOLDER
    ]
    assert len(built_in) >= 5
    for info in built_in:
        assert info.decide.targetoptions["_nrt"] is False, info.name


def test_a_tmp_strategy_replays_from_the_cli(project: Path):
    path = write_config(project, "pick.toml")
    result = runner.invoke(app, ["replay", str(path), "--match", "0", "--format", "jsonl"])
    assert result.exit_code == 0, result.output
    check_jsonl(result.stdout)
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events == trace_match(load_config(path), 0)


def test_the_strategies_folder_can_come_from_the_command_line(project: Path):
    path = project / "no_folder.toml"
    path.write_text(
        CONFIG.format(strategy="pick_x", params="{ x = 2 }").replace(
            'strategies = "plugins"\n', ""
        ),
        encoding="utf-8",
    )
    result = runner.invoke(
        app,
        [
            "replay",
            str(path),
            "--match",
            "1",
            "--format",
            "jsonl",
            "--strategies",
            str(project / "plugins"),
        ],
    )
    assert result.exit_code == 0, result.output
    check_jsonl(result.stdout)
    without = runner.invoke(app, ["replay", str(path), "--match", "1"])
    assert without.exit_code == 2
    assert "'pick_x'" in without.stderr


# --------------------------------------------------------------- config errors


def test_unknown_strategy_lists_what_exists(project: Path):
    with pytest.raises(ConfigError) as err:
        load_config(write_config(project, "unknown.toml", strategy="pick_y"))
    message = str(err.value)
    assert "\n" not in message
    assert "'pick_y'" in message
    for name in [*available_strategies(), "pick_x", "boom", "out_of_range"]:
        assert name in message, name
    assert "did you mean 'pick_x'?" in message


def test_unknown_parameter_lists_what_exists(project: Path):
    with pytest.raises(ConfigError) as err:
        load_config(write_config(project, "unknown_param.toml", params="{ y = 2 }"))
    message = str(err.value)
    assert "\n" not in message
    assert "params.y" in message
    assert "'pick_x'" in message
    assert re.search(r"\bx \(default 1(\.0)?\)", message), message


def test_a_parameter_of_a_strategy_without_any(project: Path):
    path = project / "greedy_param.toml"
    path.write_text(CONFIG.format(strategy="greedy", params="{ x = 2 }"), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"params\.x.*'greedy' has no parameters"):
        load_config(path)


HEADER = 'NAME = "{name}"\nDESCRIPTION = "a broken strategy"\n'
COMPILED = """\
from mexsim.strategy.api import strategy

NAME = "{name}"
DESCRIPTION = "a strategy"


@strategy
def decide(view, params):
    return 0
"""


@pytest.mark.compiles
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('DESCRIPTION = "no name"\nPARAMS = {}\n', ["NAME"]),
        ('NAME = "Bad Name"\nDESCRIPTION = "x"\n', ["NAME", "'Bad Name'"]),
        (HEADER.format(name="bad_params") + 'PARAMS = {"x": "two"}\n', ["PARAMS", "numbers"]),
        (HEADER.format(name="bad_params") + 'PARAMS = {"x": True}\n', ["PARAMS", "numbers"]),
        (
            HEADER.format(name="plain") + "PARAMS = {}\n\n\ndef decide(view, params):\n"
            "    return 0\n",
            ["'decide'", "@mexsim.strategy.api.strategy"],
        ),
        (HEADER.format(name="no_decide"), ["'decide'"]),
        (
            HEADER.format(name="syntax") + "def decide(view, params:\n    return 0\n",
            [":3: syntax error", "never closed"],
        ),
        (
            "import no_such_module_here\n" + HEADER.format(name="missing_import"),
            ["importing the strategy failed", "no_such_module_here"],
        ),
        (
            "import sys\nsys.exit(3)\n" + HEADER.format(name="exits"),
            ["importing the strategy failed", "sys.exit(3)"],
        ),
        (
            "raise SystemExit\n" + HEADER.format(name="exits_bare"),
            ["importing the strategy failed", "sys.exit(None)"],
        ),
        (
            "raise GeneratorExit('done')\n" + HEADER.format(name="generator_exit"),
            ["importing the strategy failed", "GeneratorExit: done"],
        ),
        (
            "class Mine(BaseException):\n    pass\n\n\nraise Mine('own')\n"
            + HEADER.format(name="own_base"),
            ["importing the strategy failed", "Mine: own"],
        ),
        (HEADER.format(name="big_memory") + "MEMORY = 33\n", ["MEMORY", "0..32", "33"]),
        (HEADER.format(name="neg_memory") + "MEMORY = -1\n", ["MEMORY", "0..32"]),
    ],
    ids=[
        "missing-name",
        "bad-name",
        "params-not-number",
        "params-bool",
        "not-compiled",
        "no-decide",
        "syntax-error",
        "import-error",
        "exits",
        "exits-bare",
        "generator-exit",
        "own-base-exception",
        "memory-over-32",
        "memory-negative",
    ],
)
def test_a_bad_strategy_file_is_one_line_naming_it(tmp_path: Path, text: str, expected: list[str]):
    folder = tmp_path / "bad"
    folder.mkdir()
    path = folder / "broken.py"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_strategy_file(path)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"{path}:")
    for part in expected:
        assert part in message, (part, message)
    # the command line lists the others and shows it as one warning line, exit status 0
    result = runner.invoke(app, ["strategies", "--strategies", str(folder)])
    assert result.exit_code == 0, result.output
    assert "greedy" in result.stdout
    stderr = without_compile_notes(result.stderr)
    assert stderr.count("\n") == 1 and str(path) in stderr, result.stderr
    assert stderr.startswith("mexsim: warning: "), result.stderr


@pytest.mark.compiles
def test_a_file_name_that_is_not_utf8_is_named_in_its_line(tmp_path: Path):
    """Bytes that are not UTF-8 in the file's name (UnicodeEncodeError out of the
    command, from the module name's digest): its one line, the bytes escaped."""
    path = tmp_path / os.fsdecode(b"caf\xe9.py")
    path.write_text(HEADER.format(name="cafe"), encoding="utf-8")
    with pytest.raises(ConfigError, match="'decide'") as err:
        load_strategy_file(path)
    assert str(err.value).startswith(f"{path}:")


@pytest.mark.compiles
@pytest.mark.parametrize("name", [b"caf\xe9.py", b"new\nline.py", b"sp ace.py"])
def test_a_strategy_file_with_an_odd_name_loads(tmp_path: Path, name: bytes):
    """numba encodes the module's name in UTF-8 as it compiles decide: a file name
    with bytes that are not UTF-8 failed to compile (UnicodeEncodeError)."""
    path = tmp_path / os.fsdecode(name)
    path.write_text(COMPILED.format(name="odd"), encoding="utf-8")
    info = load_strategy_file(path)
    assert (info.name, info.path) == ("odd", str(path))


@pytest.mark.compiles
def test_a_keyboard_interrupt_at_import_is_a_ctrl_c(tmp_path: Path):
    """KeyboardInterrupt is what Ctrl-C raises while the file imports: the command
    answers it as an interruption (exit status 130), not as the file's fault."""
    path = tmp_path / "interrupts.py"
    path.write_text("raise KeyboardInterrupt\n" + HEADER.format(name="interrupts"))
    with pytest.raises(KeyboardInterrupt):
        load_strategy_file(path)
    assert not [name for name in sys.modules if name.startswith("mexsim_strategy_interrupts")]


@pytest.mark.compiles
def test_mexsim_strategies_lists_an_odd_file_name_on_one_line(tmp_path: Path):
    """A file's name with a newline or bytes that are not UTF-8 is listed escaped: a
    newline broke the listing's line, a strict UTF-8 stdout could not write the bytes."""
    names = {"newline": b"new\nline.py", "latin": b"caf\xe9.py"}
    for name, file_name in names.items():
        (tmp_path / os.fsdecode(file_name)).write_text(COMPILED.format(name=name))
    result = runner.invoke(app, ["strategies", "--strategies", str(tmp_path)])
    assert result.exit_code == 0, result.output
    files = [
        line.split("file:", 1)[1].strip()
        for line in result.stdout.splitlines()
        if "file:" in line and str(tmp_path) in line
    ]
    assert sorted(files) == sorted([f"{tmp_path}/new\\nline.py", f"{tmp_path}/caf\\udce9.py"])


@pytest.mark.compiles
def test_two_files_with_the_same_name(tmp_path: Path):
    folder = tmp_path / "twins"
    folder.mkdir()
    for stem in ("twin_a", "twin_b"):
        (folder / f"{stem}.py").write_text(COMPILED.format(name="twin"), encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        available_strategies([folder])
    message = str(err.value)
    assert "\n" not in message
    assert "'twin'" in message
    assert str(folder / "twin_a.py") in message and str(folder / "twin_b.py") in message


@pytest.mark.compiles
def test_a_file_reusing_a_built_in_name(tmp_path: Path):
    folder = tmp_path / "clash"
    folder.mkdir()
    (folder / "mine.py").write_text(COMPILED.format(name="greedy"), encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        available_strategies([folder])
    message = str(err.value)
    assert "'greedy'" in message
    assert str(folder / "mine.py") in message
    assert str(BUILTIN_FOLDER / "greedy.py") in message


@pytest.mark.compiles
def test_a_missing_strategies_folder(tmp_path: Path):
    with pytest.raises(ConfigError, match="not found"):
        available_strategies([tmp_path / "nowhere"])


@pytest.mark.parametrize("command", [["strategies"], ["check", "greedy"]])
def test_a_missing_strategies_folder_is_refused_before_any_compile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
):
    # on a cold cache the compile (warm-up, the built-ins) came first: a minute or more
    import mexsim.running.warmup
    import mexsim.strategy.registry as registry
    from mexsim.cli import app

    compiled: list[object] = []
    monkeypatch.setattr(mexsim.running.warmup, "warm_up", lambda *a, **k: compiled.append(a))
    monkeypatch.setattr(
        registry,
        "load_strategy_file",
        lambda *a, **k: compiled.append(a) or pytest.fail("compiled"),
    )
    registry._index.cache_clear()
    registry._load_once.cache_clear()
    result = CliRunner().invoke(app, [*command, "--strategies", str(tmp_path / "nowhere")])
    assert result.exit_code == 2, result.output
    nowhere = tmp_path / "nowhere"
    assert result.stderr.strip() == f"mexsim: error: {nowhere}: strategies folder not found"
    assert compiled == []


# --------------------------------------------------------------- misbehaving strategies

RULES = resolve_rules({}, 3)


@pytest.mark.compiles
def test_out_of_range_index_stops_the_run(plugins: dict[str, StrategyInfo]):
    seats = resolve_policies([Policy(plugins["out_of_range"], ()), "greedy", "random"])
    with pytest.raises(StrategyError) as err:
        play_match_results(RULES, seats, 3, 7)
    message = str(err.value)
    assert "'out_of_range'" in message
    assert "match 7" in message
    assert "round 1" in message
    chose = re.search(r"chose move (\d+) of (\d+)", message)
    assert chose and chose[1] == chose[2], message
    # the reference engine refuses it too
    with pytest.raises(ValueError, match=r"chose move (\d+) of \1"):
        reference.play_match(RULES, 3, 7, seats)


@pytest.mark.compiles
def test_a_failing_strategy_in_a_pool_is_named_by_its_seating(plugins: dict[str, StrategyInfo]):
    """In a pool the failing seat's player comes from that match's seating."""
    players = resolve_policies(
        ["greedy", "random", "mexican_first", Policy(plugins["out_of_range"], ())]
    )
    seating = np.array([[0, 1, 2], [2, 3, 0]])
    with pytest.raises(StrategyError) as err:
        play_scheduled(RULES, players, 3, np.array([10, 11]), np.array([10, 11]), seating)
    message = str(err.value)
    assert "'out_of_range' (seat 1) in match 11" in message, message


@pytest.mark.compiles
def test_a_raising_strategy_stops_the_run(plugins: dict[str, StrategyInfo]):
    seats = resolve_policies(["greedy", Policy(plugins["boom"], ()), "random"])
    with pytest.raises(StrategyError) as err:
        play_match_results(RULES, seats, 3, 4)
    message = str(err.value)
    assert "'boom'" in message
    assert "seat 1" in message
    assert "match 4" in message
    assert "round 2" in message
    assert "ValueError: boom" in message
    assert isinstance(err.value.__cause__, ValueError)
    # and it played rounds 0 and 1 without trouble: only round 2 raises
    with pytest.raises(ValueError, match="boom"):
        reference.play_match(RULES, 3, 4, seats)


def test_a_raising_strategy_from_the_cli(project: Path):
    path = write_config(project, "boom.toml", strategy="boom", params="{}")
    result = runner.invoke(app, ["replay", str(path), "--match", "0"])
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("mexsim: error: strategy 'boom'")
    assert "round 2" in lines[0] and "boom" in lines[0]


SCRIBBLER = """\
from mexsim.strategy.api import strategy
from mexsim.game.view import HAND, MOVE_TILE, TILES

NAME = "scribbler"
DESCRIPTION = "writes a tile it does not hold into its first legal move"


@strategy
def decide(view, params):
    for t in range(view[TILES]):
        if not (view[HAND + (t >> 6)] >> (t & 63)) & 1:
            view[MOVE_TILE] = t
            return 0
    return 0
"""


@pytest.mark.compiles
def test_writing_to_the_view_cannot_change_the_game(tmp_path: Path):
    folder = tmp_path / "scribble"
    folder.mkdir()
    (folder / "scribbler.py").write_text(SCRIBBLER, encoding="utf-8")
    seats = resolve_policies(
        [Policy(available_strategies([folder])["scribbler"], ()), "greedy", "greedy"]
    )
    header = {
        "event": "match",
        "match": 0,
        "seed": 0,
        "rules": RULES.to_dict(),
        "players": [{"seat": s, "player": f"p{s}", "strategy": "x"} for s in range(3)],
    }
    try:
        trace = core_trace(RULES, seats, 0, 0, header=header)
    except StrategyError:
        return  # refusing such a strategy would do too
    check_trace(trace)


SCRIBBLE_ALL = """\
from mexsim.strategy.api import strategy
from mexsim.game.view import MOVE_TILE, N_MOVES, NOTES, RNG, SIZE

NAME = "scribble_all"
DESCRIPTION = "greedy's choice, then overwrites every word of the view it may not write"


@strategy
def decide(view, params):
    best = 0
    for i in range(1, view[N_MOVES]):
        if view[MOVE_TILE + i] < view[MOVE_TILE + best]:
            best = i
    for k in range(SIZE):
        if not (RNG <= k < RNG + 4 or NOTES <= k < NOTES + 32):
            view[k] = -7777777 - k
    return best
"""


@pytest.mark.compiles
@pytest.mark.parametrize("players", [2, 4])
def test_scribbling_on_every_forbidden_word_plays_exactly_like_its_twin(
    tmp_path: Path, players: int
):
    """greedy and a greedy that then overwrites all of its view but its random stream
    and notes play identical games, in the core and in the reference engine."""
    folder = tmp_path / "scribble_all"
    folder.mkdir()
    (folder / "scribble_all.py").write_text(SCRIBBLE_ALL, encoding="utf-8")
    scribbler = Policy(available_strategies([folder])["scribble_all"], ())
    rules = resolve_rules({}, players)
    for match in (0, 5):
        twin = resolve_policies(["greedy"] * players)
        seats = resolve_policies([scribbler if s % 2 == 0 else "greedy" for s in range(players)])
        expected = core_trace(rules, twin, 2, match)
        assert core_trace(rules, seats, 2, match) == expected
        assert reference.play_match(rules, 2, match, seats).events == expected


@pytest.mark.slow
@pytest.mark.compiles
def test_only_the_built_ins_skip_the_undoing_of_their_writes(tmp_path: Path):
    """The kernel undoes what a strategy wrote over the trains and seats after each
    call (R17) but for a built-in, which writes none of it (test_strategies.py's
    test_deterministic_for_a_given_random_stream): a user's file, even one named like a
    built-in or copied from one, is undone."""
    from mexsim.game.play import KernelArgs

    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "scribble_all.py").write_text(SCRIBBLE_ALL, encoding="utf-8")
    copied = (BUILTIN_FOLDER / "greedy.py").read_text(encoding="utf-8")
    (folder / "copied.py").write_text(
        copied.replace('NAME = "greedy"', 'NAME = "copied"'), encoding="utf-8"
    )
    known = available_strategies([folder])
    longest = known["longest_train"]
    seats = [
        Policy(known["scribble_all"], ()),
        Policy(known["copied"], ()),
        "greedy",
        Policy(longest, (0.0,)),
        Policy(longest, (0.5,)),
        "random",
        "early_doubles",
        "mexican_first",
    ]
    calling = KernelArgs.build(resolve_rules({}, 8), resolve_policies(seats)).arrays.calling
    assert calling.tolist() == [
        Calling.user,
        Calling.user,
        Calling.greedy_in_kernel,
        Calling.longest_train_in_kernel,
        Calling.builtin,
        Calling.random_in_kernel,
        Calling.builtin_on_table,
        Calling.builtin,
    ]


@pytest.mark.slow
@pytest.mark.compiles
@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize(
    ("name", "calling", "params"),
    [
        ("greedy", Calling.greedy_in_kernel, ()),
        ("random", Calling.random_in_kernel, ()),
        ("early_doubles", Calling.builtin_on_table, (1.0,)),
        ("early_doubles", Calling.builtin_on_table, (0.0,)),
        ("longest_train", Calling.longest_train_in_kernel, (0.0,)),
    ],
)
def test_the_kernels_choice_plays_exactly_like_the_built_in_called(
    tmp_path: Path, preset: str, name: str, calling: int, params: tuple[float, ...]
):
    """The kernel makes the built-in greedy's, random's, early_doubles' and
    longest_train's choices itself, without a call: the file copied as a user's, which
    the kernel calls, plays the same games move for move on every preset, at two to
    eight seats, beside the other built-ins (random's draws from the same stream as the
    copy's; early_doubles with own_first on and off; longest_train's plan kept in the
    kernel's notes as the copy keeps it in the view's)."""
    from mexsim.game.play import KernelArgs

    folder = tmp_path / "mine"
    folder.mkdir()
    copied = (BUILTIN_FOLDER / f"{name}.py").read_text(encoding="utf-8")
    (folder / "copied.py").write_text(
        copied.replace(f'NAME = "{name}"', 'NAME = "copied"'), encoding="utf-8"
    )
    known = available_strategies([folder])
    built_in = Policy(known[name], params)
    copy = Policy(known["copied"], params)
    others = ["longest_train", "early_doubles", "random", "mexican_first", "greedy"]
    others.remove(name)
    for players in range(2, 9):
        rules = resolve_rules({"preset": preset}, players)
        kernel = resolve_policies(
            [built_in if s % 2 == 0 else others[s // 2 % 4] for s in range(players)]
        )
        called = resolve_policies(
            [copy if s % 2 == 0 else others[s // 2 % 4] for s in range(players)]
        )
        assert KernelArgs.build(rules, kernel).arrays.calling[0] == calling
        assert KernelArgs.build(rules, called).arrays.calling[0] == Calling.user
        for match in (0, 7):
            assert core_trace(rules, kernel, 11, match) == core_trace(rules, called, 11, match)
        assert np.array_equal(
            play_matches_results(rules, kernel, 11, 0, 30),
            play_matches_results(rules, called, 11, 0, 30),
        )


# --------------------------------------------------------------- edited files

FIRST_VERSION = """\
from mexsim.strategy.api import strategy

NAME = "edited"
DESCRIPTION = "first version: the first legal move"


@strategy
def decide(view, params):
    return 0
"""

SECOND_VERSION = """\
from mexsim.strategy.api import strategy
from mexsim.game.view import N_MOVES

NAME = "edited"
DESCRIPTION = "second version: the last legal move, whatever the first version did"


@strategy
def decide(view, params):
    return view[N_MOVES] - 1
"""

PLAY = """\
import json, sys
from mexsim.game.play import core_trace
from mexsim.game.rules import resolve_rules
from mexsim.strategy.policy import Policy, resolve_policies
from mexsim.strategy.registry import available_strategies
info = available_strategies([sys.argv[1]])["edited"]
seats = resolve_policies([Policy(info, ()), "greedy"])
print(json.dumps([info.description, core_trace(resolve_rules({}, 2), seats, 1, 0)]))
"""


def play_in_a_new_process(folder: Path) -> tuple[str, list[dict]]:
    done = subprocess.run(
        [sys.executable, "-c", PLAY, str(folder)],
        cwd=ROOT,
        env=os.environ,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    description, trace = json.loads(done.stdout)
    return description, trace


def python_strategy(decide) -> Policy:
    """A seat for the reference engine, which calls ``decide`` as plain Python."""
    return Policy(StrategyInfo("edited", "stand-in", decide=decide), ())


@pytest.mark.slow
@pytest.mark.processes
@pytest.mark.compiles
def test_an_edited_strategy_is_never_run_stale(tmp_path: Path):
    """numba caches compiled strategies on disk; an edit must be compiled afresh."""
    rules = resolve_rules({}, 2)
    first = reference.play_match(
        rules, 1, 0, resolve_policies([python_strategy(lambda v, p: 0), "greedy"])
    )
    last = reference.play_match(
        rules,
        1,
        0,
        resolve_policies([python_strategy(lambda v, p: int(v[V.N_MOVES]) - 1), "greedy"]),
    )
    assert first.events != last.events  # the two versions play differently

    folder = tmp_path / "edit"
    folder.mkdir()
    path = folder / "edited.py"
    path.write_text(FIRST_VERSION, encoding="utf-8")
    description, trace = play_in_a_new_process(folder)
    assert description.startswith("first version")
    assert trace == first.events

    before = path.stat()
    path.write_text(SECOND_VERSION, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 10**10))  # 10 s later
    assert path.stat().st_size != before.st_size
    description, trace = play_in_a_new_process(folder)
    assert description.startswith("second version")
    assert trace == last.events


# --------------------------------------------------------------- `mexsim strategies`


@pytest.mark.compiles
def test_the_strategies_command_lists_everything(project: Path, plugins):
    result = runner.invoke(app, ["strategies", "--strategies", str(project / "plugins")])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert set(plugins) >= {"pick_x", *available_strategies()}
    for name, info in plugins.items():
        assert re.search(rf"^\s*{name}\b", out, re.MULTILINE), name
        assert info.description in out, name
        for key, default in info.params.items():
            assert re.search(rf"\b{key}\s*[=:]\s*{default:g}\b", out), (name, key)
    assert re.search(r"\bx\s*[=:]\s*1\b", out)  # pick_x's own parameter and default
    assert re.search(r"\bpip_weight\s*[=:]\s*0\b", out)
    assert re.search(r"\bown_first\s*[=:]\s*1\b", out)


CACHE_PLACE = """\
import numba  # before mexsim, as pytest's warning filters and notebooks do
import mexsim
from mexsim.planner import longest_chain
print(longest_chain.stats.cache_path)
"""


@pytest.mark.processes
def test_numba_imported_first_still_caches_per_version_of_mexsim():
    """numba reads its cache folder at import; imported before mexsim it would cache
    beside the sources, where a strategy's cache outlives a change of the mexsim code
    it calls (found: pytest imported numba first, and tests ran an old planner)."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    done = subprocess.run(
        [sys.executable, "-c", CACHE_PLACE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    import mexsim.jit

    assert done.stdout.strip().startswith(mexsim.jit.numba_cache_dir())


@pytest.mark.processes
def test_the_cache_key_covers_modules_of_every_subpackage(tmp_path: Path):
    """An edit anywhere under mexsim/ — a built-in strategy, the kernel — gives a new
    numba cache folder, so no strategy ever runs against stale compiled code."""
    import shutil
    import subprocess

    copy = tmp_path / "src"
    shutil.copytree(ROOT / "mexsim", copy / "mexsim", ignore=shutil.ignore_patterns("__pycache__"))

    def key() -> str:
        env = {**os.environ, "PYTHONPATH": str(copy)}
        env.pop("NUMBA_CACHE_DIR", None)
        done = subprocess.run(
            [sys.executable, "-c", "import mexsim.jit; print(mexsim.jit.numba_cache_dir())"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    before = key()
    for nested in ("strategy/builtin/greedy.py", "game/kernel.py"):
        path = copy / "mexsim" / nested
        path.write_text(path.read_text() + "\n# edited\n")
        after = key()
        assert after != before, nested
        before = after


@pytest.mark.slow
@pytest.mark.processes
@pytest.mark.compiles
def test_a_strategy_file_loads_however_its_path_is_spelt(tmp_path: Path):
    """numba's cache of decide refers to the module by name, and the name was a digest
    of the path as given: loaded once as 'odd.py' from its folder, the file then failed
    to load by its full path in every later process (ModuleNotFoundError), and so did
    a built-in after `mexsim check mexsim/strategy/builtin/greedy.py`."""
    (tmp_path / "odd.py").write_text(COMPILED.format(name="odd"), encoding="utf-8")
    (tmp_path / "link.py").symlink_to(tmp_path / "odd.py")
    for spelt in ("odd.py", str(tmp_path / "odd.py"), "./odd.py", "link.py"):
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from pathlib import Path; from "
                "mexsim.strategy.registry import load_strategy_file as load; "
                "print(load(Path(sys.argv[1])).name)",
                spelt,
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=600,
            env=os.environ | {"PYTHONPATH": str(ROOT)},
        )
        assert done.stdout.split() == ["odd"], (spelt, done.stderr[-500:])
