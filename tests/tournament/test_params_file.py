"""[[players]] params_file: a player's parameters from a TOML file (a fitted model's
weights), part of the run's identity by their values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mexsim.errors import ConfigError
from mexsim.tournament.config import load_config
from mexsim.tournament.resolved import config_identity


def write(folder: Path, params_file: str = "w.toml", extra: str = "", file: str | None = None):
    (folder / "w.toml").write_text(
        file if file is not None else "[params]\npips = 1.5\ndouble = 40.0\n", encoding="utf-8"
    )
    path = folder / "c.toml"
    path.write_text(
        '[run]\nmatches = 10\n[[players]]\nstrategy = "weights"\n'
        f"params_file = {json.dumps(params_file)}\n{extra}"
        '[[players]]\nstrategy = "greedy"\n',
        encoding="utf-8",
    )
    return path


def test_the_files_values_are_the_players_and_its_identity(tmp_path: Path):
    config = load_config(write(tmp_path, extra="params = { trap = 3.0 }\n"))
    params = config.players[0].params
    assert (params["pips"], params["double"], params["trap"]) == (1.5, 40.0, 3.0)
    before = config_identity(config)
    (tmp_path / "w.toml").write_text("[params]\npips = 1.5\ndouble = 41.0\n", encoding="utf-8")
    assert config_identity(load_config(tmp_path / "c.toml")) != before


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"params_file": "nope.toml"}, "'params_file' .*nope.toml does not exist"),
        ({"params_file": ""}, "'params_file' must be a file's path"),
        ({"file": "pips = 1.0\n"}, "holds one \\[params\\] table"),
        ({"extra": "params = { pips = 2.0 }\n"}, "'pips' is given both in 'params' and in"),
        ({"file": '[params]\npips = "a"\n'}, "pips"),
        ({"file": "[params]\nbogus = 1.0\n"}, "bogus"),
    ],
)
def test_a_bad_params_file_is_one_clear_error(tmp_path: Path, kwargs: dict, says: str):
    with pytest.raises(ConfigError, match=says):
        load_config(write(tmp_path, **kwargs))
