"""The [tune] table's checks, racing's arithmetic, the edge advice and best.toml's TOML:
no game is played here."""

from __future__ import annotations

import math
import tomllib
from types import SimpleNamespace

import numpy as np
import pytest
from typer.testing import CliRunner

from mexsim.cli import app
from mexsim.errors import ConfigError
from mexsim.tune.outputs import best_config, toml_text
from mexsim.tune.racing import clearly_worse, paired_difference, rungs
from mexsim.tune.settings import ParamRange, fit_to_player, read_tune
from mexsim.tune.verdict import edge_advice

GOOD = {"player": "counter", "params": {"starve": [0.0, 200.0]}}


def test_the_issues_form_reads() -> None:
    s = read_tune(
        "c.toml",
        {
            "player": "counter",
            "trials": 40,
            "matches": 2000,
            "params": {"starve": [0.0, 200.0], "traps": [0, 1]},
        },
    )
    assert [p.kind for p in s.params] == ["float", "int"]
    assert (s.trials, s.matches, s.validate, s.sampler, s.prune) == (40, 2000, 10_000, "tpe", True)


def test_the_long_forms_read() -> None:
    s = read_tune(
        "c.toml",
        {
            "player": "p",
            "minutes": 5,
            "params": {
                "a": {"low": 0.1, "high": 100.0, "log": True},
                "b": {"low": 0, "high": 10, "step": 2},
                "c": {"choices": [0, 1, 2.5]},
            },
        },
    )
    a, b, c = s.params
    assert (a.kind, a.log) == ("float", True)
    assert (b.kind, b.step) == ("int", 2.0)
    assert c.choices == (0.0, 1.0, 2.5)
    assert s.trials is None and s.minutes == 5.0  # a time budget alone: no default trials


@pytest.mark.parametrize(
    ("table", "named"),
    [
        (None, "no [tune] table"),
        ({**GOOD, "trails": 3}, "did you mean 'trials'"),
        ({"params": GOOD["params"]}, "'player' is missing"),
        ({**GOOD, "player": ""}, "'player' must be a non-empty string"),
        ({**GOOD, "trials": 0}, "'trials' = 0 is out of range"),
        ({**GOOD, "matches": "many"}, "'matches' must be an integer"),
        ({**GOOD, "minutes": -1}, "'minutes' = -1 must be a positive number"),
        ({**GOOD, "sampler": "grid"}, "'sampler' = 'grid' is not allowed"),
        ({**GOOD, "prune": 1}, "'prune' must be true or false"),
        ({"player": "p"}, "'params' must be a table"),
        ({"player": "p", "params": {"a": [1.0]}}, "params.a: must be [low, high]"),
        ({"player": "p", "params": {"a": [2.0, 1.0]}}, "low (2) must be below high (1)"),
        ({"player": "p", "params": {"a": [0.0, math.inf]}}, "must be finite numbers"),
        ({"player": "p", "params": {"a": {"low": 0.0, "high": 1.0, "log": True}}}, "low > 0"),
        ({"player": "p", "params": {"a": {"low": 0, "high": 9, "step": 0.5}}}, "integer"),
        ({"player": "p", "params": {"a": {"low": 0.0, "hi": 9.0}}}, "unknown key 'hi'"),
        ({"player": "p", "params": {"a": 5.0}}, "params.a: must be [low, high]"),
        ({"player": "p", "params": {"a": "wide"}}, "params.a: must be [low, high]"),
        (
            {"player": "p", "params": {"a": {"low": 0.0, "high": 200.0, "step": 70.0}}},
            "does not divide high - low (200): the range would end at 140",
        ),
        ({**GOOD, "out": "x" * 300}, "'out' has a name of 300 bytes"),
        ({"player": "p", "params": {"a": {"choices": [1]}}}, "two or more distinct numbers"),
        ({"player": "p", "params": {"a": {"choices": [1, 1]}}}, "two or more distinct numbers"),
        (
            {"player": "p", "sampler": "cmaes", "params": {"a": {"choices": [1, 2]}}},
            'sampler = "cmaes" searches numeric ranges only',
        ),
    ],
)
def test_a_bad_table_is_one_line_naming_its_key(table: object, named: str) -> None:
    with pytest.raises(ConfigError) as caught:
        read_tune("c.toml", table)
    message = str(caught.value)
    assert named in message and "\n" not in message and message.startswith("c.toml")


def test_a_range_the_strategy_does_not_allow_is_refused() -> None:
    players = {"counter": "counter", "longest_train": "longest_train"}
    defaults, bounds = {"starve": 40.0, "traps": 1.0}, {"starve": (0.0, 1000.0)}
    with pytest.raises(ConfigError, match=r"no numeric parameter 'strave'.*did you mean 'starve'"):
        fit_to_player(
            "c.toml",
            read_tune("c.toml", {**GOOD, "params": {"strave": [0.0, 1.0]}}),
            players,
            defaults,
            bounds,
            None,
        )
    with pytest.raises(ConfigError, match=r"-5 is outside what strategy 'counter' allows"):
        fit_to_player(
            "c.toml",
            read_tune("c.toml", {**GOOD, "params": {"starve": [-5.0, 1.0]}}),
            players,
            defaults,
            bounds,
            None,
        )
    with pytest.raises(ConfigError, match=r"names no player.*'counter', 'longest_train'"):
        fit_to_player(
            "c.toml",
            read_tune("c.toml", {**GOOD, "player": "cuonter"}),
            players,
            defaults,
            bounds,
            None,
        )


def test_the_command_refuses_a_config_without_tune_before_compiling(tmp_path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[[players]]\nstrategy = "greedy"\n[[players]]\nstrategy = "random"\n')
    result = CliRunner().invoke(app, ["tune", str(config)])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "no [tune] table" in result.stderr
    assert not (tmp_path / "results").exists()


def test_rungs_halve_up_to_the_whole_trial() -> None:
    assert rungs(2000, 4) == [248, 500, 1000, 2000]
    assert rungs(200, 2) == [100, 200]
    assert rungs(50, 2) == [50]


def test_racing_stops_only_the_clearly_worse() -> None:
    rng = np.random.default_rng(1)
    best = rng.normal(0.0, 30.0, 400)
    same = best + rng.normal(0.0, 5.0, 400)
    worse = best + 3.0 + rng.normal(0.0, 5.0, 400)
    assert not clearly_worse(same, best)
    assert clearly_worse(worse, best)
    assert not clearly_worse(best - 3.0, best)  # better is never stopped
    d, lo, hi = paired_difference(worse, best)
    assert lo < d < hi and lo > 2.0


def test_the_edge_advice_widens_only_where_the_strategy_allows() -> None:
    starve = ParamRange("starve", "float", 0.0, 200.0, allowed=(0.0, 1000.0))
    traps = ParamRange("traps", "int", 0.0, 1.0, allowed=(0.0, 1.0))
    lines = edge_advice((starve, traps), {"starve": 199.0, "traps": 0})
    assert len(lines) == 1 and "starve = 199 lies at the high end" in lines[0]
    assert "high = 400" in lines[0]
    assert edge_advice((starve,), {"starve": 120.0}) == []
    assert (
        "low = 0"
        in edge_advice((ParamRange("s", "float", 10.0, 20.0, allowed=(0.0, 99.0)),), {"s": 10.0})[0]
    )


def test_best_toml_is_the_config_with_the_best_parameters(tmp_path) -> None:
    (tmp_path / "mine").mkdir()
    config = tmp_path / "c.toml"
    config.write_text(
        '[run]\nmatches = 10\nstrategies = ["mine"]\n[rules]\npreset = "seed-001"\n'
        '[[players]]\nstrategy = "search"\nparams = { worlds = [8, 16] }\n'
        '[[players]]\nname = "c"\nstrategy = "counter"\nparams = { endgame = 2 }\n'
        '[tune]\nplayer = "c"\n[tune.params]\nstarve = [0.0, 9.0]\n'
    )
    loaded = SimpleNamespace(path=str(config), seed=9, strategy_dirs=(str(tmp_path / "mine"),))
    text = best_config(loaded, 2, {"starve": 7.25, "traps": 1.0}, "elsewhere")  # type: ignore[arg-type]
    data = tomllib.loads(text)
    assert "tune" not in data and data["run"]["out"] == "elsewhere" and data["run"]["seed"] == 9
    assert data["run"]["strategies"] == [str(tmp_path / "mine")]
    assert data["players"][1]["params"] == {"endgame": 2, "starve": 7.25, "traps": 1}
    assert data["players"][0]["params"] == {"worlds": [8, 16]}
    odd = {"a b": 'q"\\\u00e9', "t": {"x": [1, 2.5, True], "y": {"z": -math.inf}}}
    assert tomllib.loads(toml_text(odd)) == odd


def test_a_step_too_fine_to_count_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"makes 1e\+300 steps of the range"):
        read_tune(
            "c.toml", {"player": "p", "params": {"a": {"low": 0.0, "high": 1.0, "step": 1e-300}}}
        )


def test_report_of_a_name_too_long_is_one_line(tmp_path) -> None:
    result = CliRunner().invoke(app, ["report", str(tmp_path / ("b" * 300))])
    assert result.exit_code in (2, 4) and result.stderr.count("\n") == 1
