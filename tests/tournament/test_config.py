"""mexsim.tournament.config: loading, validation, overrides, seating (the Config keys)."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import pytest

from mexsim.errors import ConfigError
from mexsim.game.rules import resolve_rules
from mexsim.strategy.registry import StrategyInfo, available_strategies
from mexsim.tournament import config as config_module
from mexsim.tournament.config import (
    Config,
    PlayerSpec,
    load_config,
    seat_players,
    with_overrides,
)

TWO_PLAYERS = '[[players]]\nstrategy = "greedy"\n[[players]]\nstrategy = "random"\n'


def players(*strategies: str) -> str:
    return "".join(f'[[players]]\nstrategy = "{s}"\n' for s in strategies)


def write(tmp_path: Path, text: str, name: str = "cfg.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# (id, TOML text, substrings the one-line message must contain)
BAD_CONFIGS = [
    (
        "syntax",
        '[run]\nmatches = 10\nseed = "unterminated\n' + TWO_PLAYERS,
        ["TOML syntax error", "line 3"],
    ),
    ("syntax-eof", TWO_PLAYERS + "[run]\nmatches =", ["TOML syntax error", "line"]),
    (
        "unknown-section",
        "[rnu]\nmatches = 1\n" + TWO_PLAYERS,
        [
            "'rnu'",
            "[run], [rules], [seating], [tournament], [analysis], [[players]]",
            "did you mean 'run'?",
        ],
    ),
    ("key-outside-section", "matches = 5\n" + TWO_PLAYERS, ["'matches'", "belongs in [run]"]),
    ("section-not-table", "run = 5\n" + TWO_PLAYERS, ["'run'", "must be a table"]),
    (
        "unknown-run-key",
        "[run]\nmatchs = 10\n" + TWO_PLAYERS,
        ["[run]", "'matchs'", "allowed: matches, seed, out", "did you mean 'matches'?"],
    ),
    ("matches-zero", "[run]\nmatches = 0\n" + TWO_PLAYERS, ["'matches'", "1..4611686018427387904"]),
    (
        "matches-bool",
        "[run]\nmatches = true\n" + TWO_PLAYERS,
        ["'matches'", "integer", "got true", "1..4611686018427387904"],
    ),
    (
        "matches-string",
        '[run]\nmatches = "100"\n' + TWO_PLAYERS,
        ["'matches'", "integer", "1..4611686018427387904"],
    ),
    ("matches-float", "[run]\nmatches = 1e3\n" + TWO_PLAYERS, ["'matches'", "integer"]),
    ("seed-negative", "[run]\nseed = -1\n" + TWO_PLAYERS, ["'seed'", "0..18446744073709551615"]),
    (
        "seed-too-big",
        f"[run]\nseed = {2**64}\n" + TWO_PLAYERS,
        ["'seed'", "0..18446744073709551615"],
    ),
    ("out-not-string", "[run]\nout = 5\n" + TWO_PLAYERS, ["'out'", "non-empty string"]),
    ("out-empty", '[run]\nout = ""\n' + TWO_PLAYERS, ["'out'", "non-empty string"]),
    ("rotate-int", "[seating]\nrotate = 1\n" + TWO_PLAYERS, ["'rotate'", "true or false"]),
    (
        "unknown-seating-key",
        "[seating]\nrotation = false\n" + TWO_PLAYERS,
        ["[seating]", "'rotation'", "allowed: rotate", "did you mean 'rotate'?"],
    ),
    ("no-players", "[run]\nmatches = 1\n", ["0 [[players]]", "2..100 players", "2..10"]),
    ("one-player", players("greedy"), ["'players'", "1 [[players]]", "2..10"]),
    (
        "eleven-players",
        players(*["random"] * 11),
        ["11 players", "at most 10 (R2)", "'table_size'", "2..10"],
    ),
    ("players-not-array", '[players]\nstrategy = "greedy"\n', ["'players'", "array of tables"]),
    (
        "missing-strategy",
        '[[players]]\nname = "x"\n' + players("random"),
        ["#1", "'strategy'", "greedy, longest_train, mexican_first, random"],
    ),
    (
        "unknown-strategy",
        players("greedy", "gready"),
        [
            "#2",
            "'strategy'",
            "'gready'",
            "greedy, longest_train, mexican_first, random",
            "did you mean 'greedy'?",
        ],
    ),
    (
        "strategy-not-string",
        "[[players]]\nstrategy = 3\n" + players("random"),
        ["'strategy'", "greedy, longest_train, mexican_first, random"],
    ),
    (
        "unknown-player-key",
        '[[players]]\nstrategy = "greedy"\nnmae = "x"\n' + players("random"),
        ["'nmae'", "allowed: name, strategy, params", "did you mean 'name'?"],
    ),
    (
        "duplicate-names",
        '[[players]]\nname = "a"\nstrategy = "greedy"\n'
        '[[players]]\nname = "a"\nstrategy = "random"\n',
        ["#2", "duplicate 'name'", "'a'", "#1"],
    ),
    (
        "name-not-string",
        '[[players]]\nname = 7\nstrategy = "greedy"\n' + players("random"),
        ["'name'", "string"],
    ),
    (
        "param-on-parameterless",
        '[[players]]\nstrategy = "greedy"\nparams = {depth = 2}\n' + players("random"),
        ["'params.depth'", "'greedy'", "has no parameters"],
    ),
    (
        "params-not-table",
        '[[players]]\nstrategy = "greedy"\nparams = 3\n' + players("random"),
        ["'params'", "table of numbers"],
    ),
    (
        "unknown-rules-key",
        '[rules]\npresett = "standard"\n' + TWO_PLAYERS,
        ["[rules]", "'presett'", "max_pip", "did you mean 'preset'?"],
    ),
    (
        "bad-preset",
        '[rules]\npreset = "seed-002"\n' + TWO_PLAYERS,
        ["[rules]", "'preset'", '"seed-001", "seed-000", "standard"'],
    ),
    (
        "bad-engine",
        '[rules]\nengine = "middle"\n' + TWO_PLAYERS,
        ["[rules]", "'engine'", '"holder", "set_aside"'],
    ),
    ("hand-too-big", "[rules]\nhand_size = 50\n" + TWO_PLAYERS, ["'hand_size'", "allowed: 2..45"]),
    (
        "luck-string",
        '[analysis]\nluck = "yes"\n' + TWO_PLAYERS,
        ["[analysis]", "'luck'", "true or false", "'yes'"],
    ),
    (
        "duplicate-int",
        "[tournament]\nduplicate = 1\n" + TWO_PLAYERS,
        ["[tournament]", "'duplicate'", "true or false"],
    ),
]
# Found without the strategies, so before they are loaded (compiled: minutes on a cold
# cache); the others need them (names, parameters) or the players they make.
NEED_NO_STRATEGY = {
    "syntax",
    "syntax-eof",
    "unknown-section",
    "key-outside-section",
    "section-not-table",
    "unknown-run-key",
    "matches-zero",
    "matches-bool",
    "matches-string",
    "matches-float",
    "seed-negative",
    "seed-too-big",
    "out-not-string",
    "out-empty",
    "rotate-int",
    "unknown-seating-key",
    "players-not-array",
    "unknown-player-key",
    "unknown-rules-key",
    "luck-string",
    "duplicate-int",
}


@pytest.mark.parametrize(
    ("text", "expected"), [c[1:] for c in BAD_CONFIGS], ids=[c[0] for c in BAD_CONFIGS]
)
def test_bad_config_is_one_line_naming_file_key_and_allowed(
    tmp_path: Path, text: str, expected: list[str]
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(str(path))
    for part in expected:
        assert part in message, f"{part!r} not in {message!r}"


@pytest.mark.parametrize(
    "text",
    [c[1] for c in BAD_CONFIGS if c[0] in NEED_NO_STRATEGY],
    ids=[c[0] for c in BAD_CONFIGS if c[0] in NEED_NO_STRATEGY],
)
def test_what_needs_no_strategy_is_refused_before_strategies_load(
    tmp_path: Path, text: str
) -> None:
    loading: list[tuple[str, ...]] = []
    with pytest.raises(ConfigError):
        load_config(
            write(tmp_path, text), before_strategies=lambda folders, _: loading.append(folders)
        )
    assert loading == []


@pytest.mark.parametrize("kind", ["missing", "a file"])
def test_a_bad_strategies_flag_folder_is_refused_before_strategies_load(
    tmp_path: Path, kind: str
) -> None:
    # on a cold cache, --strategies nowhere compiled for a minute before its one line
    folder = tmp_path / "nowhere"
    if kind == "a file":
        folder.write_text("not a folder\n")
    loading: list[tuple[str, ...]] = []
    with pytest.raises(
        ConfigError,
        match="nowhere: strategies folder "
        + ("is a file, not a folder" if kind == "a file" else "not found"),
    ):
        load_config(
            write(tmp_path, TWO_PLAYERS),
            strategy_dirs=[folder],
            before_strategies=lambda folders, _: loading.append(folders),
        )
    assert loading == []


def test_strategies_load_after_the_hook_from_every_folder(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    path = write(tmp_path, '[run]\nstrategies = "mine"\n' + TWO_PLAYERS)
    loading: list[tuple[str, ...]] = []
    tables: list = []

    def hook(folders: tuple[str, ...], players: list) -> None:
        loading.append(folders)
        tables.append(players)

    cfg = load_config(path, strategy_dirs=[tmp_path], before_strategies=hook)
    assert loading == [cfg.strategy_dirs] == [(str(tmp_path / "mine"), str(tmp_path))]
    # the [[players]] tables as read: the warm-up looks for a pip_weight in them
    assert tables == [[{"strategy": "greedy"}, {"strategy": "random"}]]


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.toml"
    with pytest.raises(ConfigError, match=r"nope\.toml: config file not found"):
        load_config(path)


def test_directory_is_not_a_config(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_config(tmp_path)


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'[run]\nout = "r\xe9sultats"\n')
    with pytest.raises(ConfigError, match="UTF-8"):
        load_config(path)


# --- good configs ---------------------------------------------------------------------

FULL = """
[run]
matches = 250
seed = 18446744073709551615
out = "results/full"

[rules]
preset = "standard"
double_blank_points = 50

[seating]
rotate = false

[[players]]
name = "planner"
strategy = "greedy"
params = {}

[[players]]
strategy = "random"

[[players]]
strategy = "greedy"
"""


def test_full_config_round_trip(tmp_path: Path) -> None:
    path = write(tmp_path, FULL, "full.toml")
    cfg = load_config(path)
    assert cfg == Config(
        path=str(path),
        matches=250,
        seed=2**64 - 1,
        out="results/full",
        rules=resolve_rules({"preset": "standard", "double_blank_points": 50}, 3),
        rotate=False,
        players=(
            PlayerSpec("planner", "greedy", {}),
            PlayerSpec("random", "random", {}),
            PlayerSpec("greedy", "greedy", {}),
        ),
    )
    assert cfg.rules.engine == "set_aside"
    assert cfg.rules.players == 3


def test_defaults(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, TWO_PLAYERS, "my-run.toml"))
    assert (cfg.matches, cfg.seed, cfg.out, cfg.rotate) == (1000, 0, "results/my-run", True)
    assert cfg.rules == resolve_rules({}, 2)
    assert cfg.rules.preset == "seed-001"


def test_accepts_str_path(tmp_path: Path) -> None:
    path = write(tmp_path, TWO_PLAYERS)
    assert load_config(str(path)) == load_config(path)


@pytest.mark.parametrize("name", ["default.toml", "standard.toml", "seed-000.toml"])
def test_shipped_configs_load(name: str) -> None:
    path = Path(__file__).resolve().parents[2] / "configs" / name
    cfg = load_config(path)
    assert len(cfg.players) == 4
    assert cfg.rules.preset == {"default.toml": "seed-001"}.get(name, name[:-5])
    assert {p.strategy for p in cfg.players} <= set(available_strategies())


def test_default_toml_matches_interface() -> None:
    cfg = load_config(Path(__file__).resolve().parents[2] / "configs" / "default.toml")
    assert (cfg.matches, cfg.seed, cfg.out) == (100_000, 2026, "results/default")
    assert [p.strategy for p in cfg.players] == [
        "longest_train",
        "early_doubles",
        "greedy",
        "random",
    ]
    assert [p.name for p in cfg.players] == [p.strategy for p in cfg.players]


# --- names ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tables", "names"),
    [
        (
            [(None, "greedy"), (None, "greedy"), (None, "random"), (None, "greedy")],
            ["greedy", "greedy-2", "random", "greedy-3"],
        ),
        # an explicit name is never taken by a generated one
        (
            [(None, "greedy"), ("greedy-2", "random"), (None, "greedy"), (None, "greedy")],
            ["greedy", "greedy-2", "greedy-3", "greedy-4"],
        ),
        ([(None, "greedy"), ("greedy", "random")], ["greedy-2", "greedy"]),
        ([("x", "random"), ("y", "random")], ["x", "y"]),
    ],
)
def test_names_are_made_unique(
    tmp_path: Path, tables: list[tuple[str | None, str]], names: list[str]
) -> None:
    text = ""
    for name, strategy in tables:
        text += "[[players]]\n" + (f'name = "{name}"\n' if name else "")
        text += f'strategy = "{strategy}"\n'
    cfg = load_config(write(tmp_path, text))
    assert [p.name for p in cfg.players] == names
    assert [p.strategy for p in cfg.players] == [s for _, s in tables]


# --- parameters (with a stand-in strategy that has some) -------------------------------


@pytest.fixture
def tuned_strategy(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = {
        **available_strategies(),
        "tuned": StrategyInfo("tuned", "test stand-in", {"depth": 2.0, "weight": 0.5}),
    }
    monkeypatch.setattr(
        config_module, "available_strategies", lambda dirs=(), names=None: dict(fake)
    )
    monkeypatch.setattr(config_module, "strategy_names", lambda dirs=(): sorted(fake))


@pytest.mark.usefixtures("tuned_strategy")
def test_params_fill_defaults_and_become_floats(tmp_path: Path) -> None:
    text = '[[players]]\nstrategy = "tuned"\nparams = {depth = 3}\n' + players("tuned")
    cfg = load_config(write(tmp_path, text))
    assert cfg.players[0].params == {"depth": 3.0, "weight": 0.5}
    assert isinstance(cfg.players[0].params["depth"], float)
    assert cfg.players[1].params == {"depth": 2.0, "weight": 0.5}


@pytest.mark.usefixtures("tuned_strategy")
@pytest.mark.parametrize(
    ("params", "expected"),
    [
        (
            "{dept = 1}",
            ["'params.dept'", "depth (default 2.0), weight (default 0.5)", "did you mean 'depth'?"],
        ),
        ("{depth = true}", ["'params.depth'", "must be a number", "default: 2)"]),
        ('{depth = "3"}', ["'params.depth'", "must be a number"]),
    ],
)
def test_bad_params(tmp_path: Path, params: str, expected: list[str]) -> None:
    text = f'[[players]]\nstrategy = "tuned"\nparams = {params}\n' + players("random")
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text))
    message = str(info.value)
    assert "\n" not in message
    for part in expected:
        assert part in message


# --- overrides ------------------------------------------------------------------------


def test_with_overrides(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, TWO_PLAYERS))
    assert with_overrides(cfg) == cfg
    changed = with_overrides(cfg, matches=7, seed=9, out="elsewhere")
    assert (changed.matches, changed.seed, changed.out) == (7, 9, "elsewhere")
    assert changed.rules == cfg.rules and changed.players == cfg.players
    assert with_overrides(cfg, seed=0).seed == 0


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"matches": 0}, "--matches"),
        ({"seed": -1}, "--seed"),
        ({"seed": 2**64}, "--seed"),
        ({"out": ""}, "--out"),
    ],
)
def test_bad_overrides(tmp_path: Path, kwargs: dict[str, object], expected: str) -> None:
    cfg = load_config(write(tmp_path, TWO_PLAYERS))
    with pytest.raises(ConfigError, match=expected):
        with_overrides(cfg, **kwargs)  # type: ignore[arg-type]


# --- seating --------------------------------------------------------------------------


def _config(count: int, rotate: bool) -> Config:
    specs = tuple(PlayerSpec(f"p{i}", "random", {}) for i in range(count))
    return Config("x.toml", 10, 0, "out", resolve_rules({}, count), rotate, specs)


@pytest.mark.parametrize("count", range(2, 11))
def test_rotation_is_balanced(count: int) -> None:
    cfg = _config(count, rotate=True)
    for start in (0, 5, 1234):
        seen: Counter[tuple[int, int]] = Counter()
        for match in range(start, start + count):
            seating = seat_players(cfg, match)
            assert sorted(seating) == list(range(count))  # a permutation
            seen.update((seat, player) for seat, player in enumerate(seating))
        # every player sits in every seat exactly once in any P consecutive matches
        assert seen == Counter(itertools.product(range(count), repeat=2))


def test_rotation_formula() -> None:
    cfg = _config(4, rotate=True)
    assert seat_players(cfg, 0) == (0, 1, 2, 3)
    assert seat_players(cfg, 1) == (3, 0, 1, 2)  # player 0 moved to seat 1
    for match in range(9):
        seating = seat_players(cfg, match)
        for player in range(4):
            assert seating[(player + match) % 4] == player


def test_no_rotation() -> None:
    cfg = _config(5, rotate=False)
    assert all(seat_players(cfg, k) == (0, 1, 2, 3, 4) for k in range(7))


@pytest.mark.parametrize("name", ["=HYPERLINK(A1)", "+1", "-cmd", "@SUM(A1)"])
def test_a_name_a_spreadsheet_would_run_is_refused(tmp_path: Path, name: str) -> None:
    """Issue 32 (held, but worth a look): names like =HYPERLINK(…) went verbatim into the
    CSVs, where a spreadsheet runs them as formulas."""
    text = f'[[players]]\nname = "{name}"\nstrategy = "greedy"\n' + players("random")
    with pytest.raises(ConfigError, match="formula"):
        load_config(write(tmp_path, text))


def test_a_sweep_too_large_is_refused_before_it_is_expanded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32, row 11: 20**8 combinations were expanded in full (1.4 GB after 40 s)
    before the 100-player limit was checked. Now they are counted first."""
    made = []
    real = config_module.PlayerSpec
    monkeypatch.setattr(config_module, "PlayerSpec", lambda **kw: made.append(1) or real(**kw))
    values = "[" + ", ".join(str(v) for v in range(20)) + "]"
    text = (
        f'[[players]]\nstrategy = "counter"\nparams = {{ starve = {values}, '
        f"endgame = {values}, traps = [0, 1] }}\n" + players("greedy")
    )
    with pytest.raises(ConfigError, match="giving 801 players"):
        load_config(write(tmp_path, text))
    assert made == []
