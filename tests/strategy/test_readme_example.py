"""The examples of docs/writing-strategies.md (and the README's tour) are real: they
load and play."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mexsim.game.play import core_trace
from mexsim.game.referee import check_trace
from mexsim.game.rules import resolve_rules
from mexsim.strategy.policy import Policy, resolve_policies
from mexsim.strategy.registry import load_strategy_file

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "docs" / "writing-strategies.md"


@pytest.mark.compiles
def test_readme_strategy_example_plays_legal_games(tmp_path):
    code = re.search(r"```python\n(\"\"\"lightest_first.*?)```", README.read_text(), re.S)
    assert code is not None, "the example is gone from docs/writing-strategies.md"
    assert len(code.group(1).strip().splitlines()) <= 20
    path = tmp_path / "lightest_first.py"
    path.write_text(code.group(1))
    info = load_strategy_file(path)
    assert (info.name, info.params) == ("lightest_first", {"own_train_bonus": 1.0})
    rules = resolve_rules({}, 3)
    seats = resolve_policies([Policy(info, (1.0,)), "greedy", Policy(info, (0.0,))])
    header = {
        "event": "match",
        "match": 0,
        "seed": 1,
        "rules": rules.to_dict(),
        "players": [{"seat": s, "player": f"p{s}", "strategy": "x"} for s in range(3)],
    }
    events = core_trace(rules, seats, 1, 0, header=header)
    check_trace(events)

    # it sheds light tiles first: its plays are lighter on average than greedy's
    def mean_pips(seats):
        pips = [sum(e["tile"]) for e in events if e["event"] == "play" and e["seat"] in seats]
        return sum(pips) / len(pips)

    assert mean_pips({0, 2}) < mean_pips({1})


@pytest.mark.slow
@pytest.mark.compiles
def test_readme_counting_example_plays_and_starves(tmp_path):
    """The tile counter of docs/writing-strategies.md: under 30 lines, loads, plays legal
    games, and leaves the next seat a number it lacks more often than greedy does."""
    code = re.search(r"```python\n(\"\"\"starver.*?)```", README.read_text(), re.S)
    assert code is not None, "the counting example is gone from docs/writing-strategies.md"
    assert len(code.group(1).strip().splitlines()) < 30
    path = tmp_path / "starver.py"
    path.write_text(code.group(1))
    info = load_strategy_file(path)
    rules = resolve_rules({}, 2)
    header = {
        "event": "match",
        "match": 0,
        "seed": 1,
        "rules": rules.to_dict(),
        "players": [{"seat": s, "player": f"p{s}", "strategy": "x"} for s in range(2)],
    }
    passes = {}
    for name, seats in (("starver", [Policy(info, ()), "greedy"]), ("greedy", ["greedy"] * 2)):
        total = 0
        for match in range(6):
            events = core_trace(rules, resolve_policies(seats), 1, match, header=header)
            check_trace(events)
            total += sum(1 for e in events if e["event"] == "pass" and e["seat"] == 1)
        passes[name] = total
    assert passes["starver"] > passes["greedy"]


def test_the_readme_tour_shows_the_same_strategy() -> None:
    """The README's 10-minute tour writes the strategy the docs explain, word for word."""
    pattern = r"```python\n(\"\"\"lightest_first.*?)```"
    tour = re.search(pattern, (ROOT / "README.md").read_text(), re.S)
    docs = re.search(pattern, README.read_text(), re.S)
    assert tour is not None and docs is not None
    assert tour.group(1) == docs.group(1)
