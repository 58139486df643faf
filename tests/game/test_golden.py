"""Golden traces: replaying the checked-in configs gives the checked-in traces exactly.
Regenerate only on purpose with `make golden` and review the diff."""

from __future__ import annotations

import pytest

from mexsim.game.referee import check_jsonl
from tests.make_golden import CASES, GOLDEN, golden_text


@pytest.mark.parametrize("stem", sorted(CASES))
def test_golden_trace_is_unchanged(stem):
    config_path, match = CASES[stem]
    expected = (GOLDEN / f"{stem}.jsonl").read_text()
    assert golden_text(config_path, match) == expected


@pytest.mark.parametrize("stem", sorted(CASES))
def test_golden_trace_is_legal(stem):
    check_jsonl((GOLDEN / f"{stem}.jsonl").read_text())
