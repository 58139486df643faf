"""`mexsim init [DIR]` (issue 35, "starting anywhere"): a runnable config with the
user's own strategy, the starter and the example configs, from the package alone;
never overwrites."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mexsim.cli import app
from mexsim.tournament.starter_project import EXAMPLES, example_configs

runner = CliRunner()


def test_the_examples_ship_inside_the_package() -> None:
    """configs/ is a link to mexsim/examples/: a wheel carries the same files."""
    root = Path(__file__).resolve().parents[1]
    assert (root / "configs").resolve() == EXAMPLES
    names = {p.name for p in example_configs()}
    assert {"default.toml", "house-rules.toml", "head-to-head.toml"} <= names


def test_init_writes_a_project_and_says_what_next(tmp_path: Path) -> None:
    result = runner.invoke(app, ["init", str(tmp_path / "proj")])
    assert result.exit_code == 0, result.stderr
    proj = tmp_path / "proj"
    assert (proj / "mexsim.toml").is_file() and (proj / "strategies" / "my_strategy.py").is_file()
    assert sorted(p.name for p in (proj / "examples").iterdir()) == sorted(
        p.name for p in example_configs()
    )
    assert "mexsim check my_strategy" in result.stdout.splitlines()[-1]


def test_init_never_overwrites(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    (proj / "examples").mkdir(parents=True)
    (proj / "examples" / "default.toml").write_text("mine")
    result = runner.invoke(app, ["init", str(proj)])
    assert result.exit_code == 2
    line = result.stderr.strip()
    assert line.startswith("mexsim: error:") and "default.toml already exists" in line
    assert (proj / "examples" / "default.toml").read_text() == "mine"
    assert not (proj / "mexsim.toml").exists()  # nothing written


@pytest.mark.slow
@pytest.mark.compiles
def test_the_project_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """From inside the folder: the config finds its strategy and plays."""
    assert runner.invoke(app, ["init", str(tmp_path)]).exit_code == 0
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["run", "mexsim.toml", "--matches", "8", "--quiet"])
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "results" / "mexsim" / "summary.csv").is_file()
    assert "my_strategy" in (tmp_path / "results" / "mexsim" / "summary.csv").read_text()
