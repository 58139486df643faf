"""The project's ``strategies/`` folder is the user's: it ships with the README's example,
and the test suite never depends on what a user put there (the README's tour writes
into it)."""

from __future__ import annotations

import re
from pathlib import Path

from mexsim.strategy.registry import load_strategy_file, strategy_dirs

ROOT = Path(__file__).resolve().parents[2]


def test_the_project_ships_its_strategies_folder_with_the_readmes_example():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.search(r'```python\n("""lightest_first.*?)```', readme, re.S)
    assert code is not None
    shipped = ROOT / "strategies" / "lightest_first.py"
    assert shipped.read_text(encoding="utf-8") == code.group(1)
    assert (ROOT / "strategies" / "README.md").is_file()
    info = load_strategy_file(shipped)
    assert info.name == "lightest_first"


def test_from_the_projects_root_the_suite_sees_no_users_strategies(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert (ROOT / "strategies").is_dir()
    assert (ROOT / "strategies").resolve() not in strategy_dirs()


def test_a_folder_of_its_own_has_its_strategies_found(monkeypatch, tmp_path):
    (tmp_path / "strategies").mkdir()
    monkeypatch.chdir(tmp_path)
    assert (tmp_path / "strategies").resolve() in strategy_dirs()
