"""Golden traces: replaying the checked-in configs gives the checked-in traces exactly,
in the numba core and in the reference engine, and the referee accepts them.
Regenerate only on purpose with `make golden` and review the diff."""

from __future__ import annotations

import json

import pytest

from mexsim.game.referee import check_jsonl
from tests import make_golden
from tests.make_golden import CASES, GOLDEN, golden_text, reference_text


@pytest.mark.parametrize("stem", sorted(CASES))
def test_golden_trace_is_unchanged(stem):
    config_path, match = CASES[stem]
    expected = (GOLDEN / f"{stem}.jsonl").read_text()
    assert golden_text(config_path, match) == expected


@pytest.mark.parametrize("stem", sorted(CASES))
def test_the_reference_engine_plays_the_golden_trace(stem):
    config_path, match = CASES[stem]
    expected = (GOLDEN / f"{stem}.jsonl").read_text()
    assert reference_text(config_path, match) == expected


@pytest.mark.parametrize("stem", sorted(CASES))
def test_golden_trace_is_legal(stem):
    check_jsonl((GOLDEN / f"{stem}.jsonl").read_text())


def test_the_goldens_cover_every_built_in():
    from mexsim.strategy.registry import available_strategies
    from mexsim.tournament.config import load_config

    used = {p.strategy for path, _ in CASES.values() for p in load_config(path).players}
    assert used == set(available_strategies())


def test_make_golden_refuses_when_the_engines_disagree(monkeypatch, tmp_path, capsys):
    """A trace the reference engine does not play is never written."""
    monkeypatch.setattr(make_golden, "GOLDEN", tmp_path)
    real = make_golden.reference_text
    stem = sorted(CASES)[-1]

    def off_by_one(config_path, match):
        text = real(config_path, match)
        if config_path == CASES[stem][0]:
            lines = text.splitlines(keepends=True)
            end = json.loads(lines[-1])
            end["totals"][0] += 1
            lines[-1] = json.dumps(end, separators=(",", ":")) + "\n"
            text = "".join(lines)
        return text

    monkeypatch.setattr(make_golden, "reference_text", off_by_one)
    assert make_golden.main() == 1
    assert "reference engine" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
