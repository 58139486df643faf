"""mexsim's Python API (mexsim/api.py): what ``import mexsim`` promises."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import mexsim
from mexsim.errors import ConfigError

CONFIG = (
    "[run]\nmatches = 40\nseed = 3\n"
    '[[players]]\nstrategy = "greedy"\n[[players]]\nstrategy = "random"\n'
)


def test_importing_mexsim_loads_nothing_heavy() -> None:
    code = (
        "import sys, mexsim; "
        "print(sorted(m for m in ('numba', 'pandas', 'pyarrow', 'mexsim.api') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert sorted(mexsim.__all__) == sorted(
        ["Game", "Results", "__version__", "check", "load_results", "run"]
    )
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = mexsim.nothing  # type: ignore[attr-defined]
    assert (Path(mexsim.__file__).parent / "py.typed").is_file()


def test_run_then_read_the_results(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(CONFIG)
    results = mexsim.run(config, out=tmp_path / "res", matches=20, workers=1)
    assert results.record["matches"] == 20 and results.folder == tmp_path / "res"
    assert set(results.summary["player"]) == {"greedy", "random"}
    assert list(results.comparisons["player"]) == [results.summary["player"].iloc[0]]
    matches = results.matches(["match", "player", "total"])
    assert len(matches) == 40 and list(matches.columns) == ["match", "player", "total"]
    assert results.dataset("rounds").count_rows() == 20 * 13 * 2
    assert "greedy" in results.text()
    again = mexsim.load_results(tmp_path / "res")
    assert again.summary.equals(results.summary)
    with pytest.raises(ValueError, match="allowed: matches, rounds"):
        results.dataset("players")


def test_bad_input_raises_the_commands_one_line(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(CONFIG.replace("matches = 40", "matchs = 40"))
    with pytest.raises(ConfigError, match="did you mean 'matches'"):
        mexsim.run(config, out=tmp_path / "res")
    with pytest.raises(ConfigError, match="not a results directory"):
        mexsim.load_results(tmp_path)


def test_check_and_game() -> None:
    assert mexsim.check("greedy", examples=3).passed
    game = mexsim.Game.from_config("configs/default.toml", 0)
    assert game.legal_moves() and not game.is_over()
