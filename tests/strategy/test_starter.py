"""`mexsim strategies --new NAME`: a starter file that loads, never over a user's file."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mexsim.cli import app
from mexsim.strategy.registry import load_strategy_file

runner = CliRunner()


@pytest.mark.compiles
def test_new_writes_a_loadable_commented_starter(tmp_path: Path):
    result = runner.invoke(app, ["strategies", "--new", "my_bot", "--strategies", str(tmp_path)])
    assert result.exit_code == 0, result.output
    path = tmp_path / "my_bot.py"
    text = path.read_text()
    assert "mexsim check my_bot" in text and text.count("#") >= 5
    info = load_strategy_file(path)
    assert (info.name, info.params) == ("my_bot", {"keep_bonus": 5.0})


@pytest.mark.compiles
def test_new_refuses_to_overwrite_and_bad_names(tmp_path: Path):
    path = tmp_path / "mine.py"
    path.write_text("precious = True\n")
    result = runner.invoke(app, ["strategies", "--new", "mine", "--strategies", str(tmp_path)])
    assert result.exit_code == 2 and "already exists" in result.stderr
    assert path.read_text() == "precious = True\n"
    bad = runner.invoke(app, ["strategies", "--new", "My-Bot", "--strategies", str(tmp_path)])
    assert bad.exit_code == 2 and "lower-case identifier" in bad.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.py"]


@pytest.mark.compiles
def test_new_refuses_a_built_in_s_name_and_an_endless_one(tmp_path: Path):
    """Issue 32, rows 19 and 20: a 300-character name was exit 70 (File name too long);
    `--new greedy` wrote a second 'greedy', after which every command in the folder
    failed. Both are one line, exit 2, nothing written."""
    long = runner.invoke(app, ["strategies", "--new", "a" * 300, "--strategies", str(tmp_path)])
    assert long.exit_code == 2 and "at most 64 characters" in long.stderr
    assert len(long.stderr.splitlines()) == 1
    taken = runner.invoke(app, ["strategies", "--new", "greedy", "--strategies", str(tmp_path)])
    assert taken.exit_code == 2 and "built-in" in taken.stderr
    assert list(tmp_path.iterdir()) == []
