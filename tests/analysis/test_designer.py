"""The designer's facts (mexsim/analysis/designer.py): per-match facts from rounds rows,
folded block by block and paired between variants, and the skill measures
(mexsim/analysis/adjusted.py ``skill_measures``)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from mexsim.analysis.accumulate import accumulate
from mexsim.analysis.adjusted import skill_measures
from mexsim.analysis.designer import (
    FACTS,
    DesignerAccumulator,
    MatchFacts,
    UnitMoments,
    designer_table,
    format_designer,
    match_facts,
)


def _rows(penalty: list[list[list[int]]], first: list[list[int]], turns: int = 5) -> dict:
    """Rounds rows of matches penalty[match][round][seat]; first[match][round]: the seat
    that moved first; every seat took ``turns`` turns; round 0 of each match blocked."""
    p = np.array(penalty)
    n, r, s = p.shape
    first_flags = np.zeros_like(p, dtype=bool)
    for m in range(n):
        for k in range(r):
            first_flags[m, k, first[m][k]] = True
    blocked = np.zeros_like(first_flags)
    blocked[:, 0, :] = True
    return {
        "match": np.repeat(np.arange(n), r * s),
        "seat": np.tile(np.arange(s), n * r),
        "penalty": p.ravel(),
        "blocked": blocked.ravel(),
        "first": first_flags.ravel(),
        "turns": np.full(p.size, turns),
        "deal": np.repeat(np.arange(n), r * s),
    }


def test_match_facts_by_hand() -> None:
    # one match, two rounds, three seats
    rows = _rows([[[0, 10, 20], [6, 3, 3]]], [[0, 1]])
    facts = match_facts(rows)
    assert list(facts.matches) == [0]
    turns, blocked, edge, lowest, total = facts.facts[0]
    assert turns == 15  # three seats of five turns, in each round
    assert blocked == 0.5  # round 0 of 2
    # round 0: 0 - (10 + 20) / 2 = -15; round 1: 3 - (6 + 3) / 2 = -1.5
    assert edge == pytest.approx((-15 - 1.5) / 2)
    # round 0: seat 0 alone lowest (1); round 1: seats 1 and 2 tie (1/2 each)
    assert lowest == pytest.approx((1 + 0.5) / 2)
    assert total == pytest.approx(30 / 3 + 12 / 3)  # a seat's mean match total
    assert list(facts.round_turns) == [15, 15]


def test_rows_without_a_row_per_seat_are_refused() -> None:
    rows = _rows([[[0, 10, 20], [6, 3, 3]]], [[0, 1]])
    broken = {k: np.delete(v, 1) for k, v in rows.items()}  # round 0 lost seat 1's row
    with pytest.raises(ValueError, match="a row per seat"):
        match_facts(broken)


def _random_facts(n: int, deals: np.ndarray, seed: int) -> MatchFacts:
    rng = np.random.default_rng(seed)
    return MatchFacts(
        np.arange(n),
        deals,
        rng.normal(size=(n, len(FACTS))),
        rng.integers(0, 60, size=n * 13),
        seats=4,
    )


@pytest.mark.parametrize("duplicate", [False, True])
def test_one_block_or_many_fold_the_same(duplicate: bool) -> None:
    n = 240
    deals = np.arange(n) // 4 if duplicate else np.arange(n)
    variants = [_random_facts(n, deals, seed) for seed in range(3)]
    whole = DesignerAccumulator(3)
    for v, facts in enumerate(variants):
        whole.add(v, facts)
    pieces = DesignerAccumulator(3)
    cuts = [0, 7, 64, 65, 130, 239, n]  # blocks that cut deals in the middle
    for a, b in itertools.pairwise(cuts):
        for v, facts in enumerate(variants):
            piece = MatchFacts(
                facts.matches[a:b], facts.deals[a:b], facts.facts[a:b], facts.round_turns[:0], 4
            )
            pieces.add(v, piece)
    one, many = whole.close(["a", "b", "c"], []), pieces.close(["a", "b", "c"], [])
    np.testing.assert_allclose(one.moments.mean, many.moments.mean)
    np.testing.assert_allclose(one.moments.m2, many.moments.m2, rtol=1e-9)
    assert one.moments.n[0] == (60 if duplicate else n)  # the unit is the deal


def test_the_paired_difference_is_the_mean_of_per_match_differences() -> None:
    n = 500
    deals = np.arange(n)
    base, other = _random_facts(n, deals, 1), _random_facts(n, deals, 2)
    other = MatchFacts(
        other.matches, deals, base.facts + 0.3 + 0.1 * other.facts, other.round_turns, 4
    )
    acc = DesignerAccumulator(2)
    acc.add(0, base)
    acc.add(1, other)
    stats = acc.close(["base", "plus"], [])
    table = designer_table(stats)
    diff = other.facts[:, 0] - base.facts[:, 0]
    assert table.loc[1, "turns_per_round_diff"] == pytest.approx(diff.mean())
    # paired: the interval is the differences' own, far narrower than the values' spread
    half = table.loc[1, "turns_per_round_diff_hi"] - table.loc[1, "turns_per_round_diff"]
    assert half == pytest.approx(1.96 * diff.std(ddof=1) / np.sqrt(n), rel=0.01)
    assert table.loc[1, "turns_per_round_diff_p"] < 1e-10
    assert np.isnan(table.loc[0, "turns_per_round_diff"])  # the baseline against itself


def test_variants_of_other_matches_are_refused() -> None:
    acc = DesignerAccumulator(2)
    facts = _random_facts(10, np.arange(10), 0)
    acc.add(0, facts)
    shifted = MatchFacts(facts.matches + 1, facts.deals, facts.facts, facts.round_turns, 4)
    with pytest.raises(ValueError, match="not the same matches"):
        acc.add(1, shifted)


def test_a_variant_short_of_matches_is_refused_at_the_end() -> None:
    acc = DesignerAccumulator(2)
    facts = _random_facts(10, np.arange(10), 0)
    acc.add(0, facts)
    with pytest.raises(ValueError, match="same matches"):
        acc.close(["a", "b"], [])


def test_identical_players_have_no_skill_share() -> None:
    """Four players drawn alike (a deal effect plus noise): the share is ≈ 0 and its
    interval reaches 0, at a full table and in a pool."""
    rng = np.random.default_rng(5)
    deals = 4000
    totals = rng.normal(300, 20, size=(deals, 1)) + rng.normal(0, 60, size=(deals, 4))
    _, share, lo, hi = skill_measures(accumulate(totals))
    assert share < 0.01 and lo == 0.0 and hi < 0.02
    pool = totals.copy()  # five players, each deal seats four of them
    pool = np.column_stack([pool, rng.normal(300, 60, size=deals)])
    for d in range(deals):
        pool[d, d % 5] = np.nan
    _, share, lo, _ = skill_measures(accumulate(pool))
    assert share < 0.01 and lo == 0.0


def test_players_who_differ_have_a_skill_share() -> None:
    rng = np.random.default_rng(6)
    deals = 4000
    effects = np.array([-30.0, -10.0, 10.0, 30.0])  # sigma_p² = 1000/3 against noise 3600
    totals = rng.normal(300, 20, size=(deals, 1)) + effects + rng.normal(0, 60, size=(deals, 4))
    spread, _, lo, hi = skill_measures(accumulate(totals))
    truth = (1000 / 3) / (1000 / 3 + 3600)
    assert lo < truth < hi
    assert spread == pytest.approx(60, abs=8)


def test_the_printed_sentence_names_the_first_movers_edge() -> None:
    acc = DesignerAccumulator(1)
    rows = _rows([[[0, 10, 20], [6, 3, 3]]] * 3, [[0, 1]] * 3)
    rows["match"] = np.repeat(np.arange(3), 6)
    rows["deal"] = rows["match"]
    acc.add(0, match_facts(rows))
    text = format_designer(designer_table(acc.close(["base"], [])), 3)
    assert "turns a round" in text and "first mover scores 8.25 points a round fewer" in text
    assert "(even: 33.3 %)" in text


def test_unit_moments_hold_a_deal_back_until_it_is_whole() -> None:
    acc = UnitMoments(1)
    acc.add(np.array([[1.0], [3.0]]), np.array([0, 0]))
    assert acc.moments.n[0] == 0  # deal 0 may go on in the next block
    acc.add(np.array([[5.0], [7.0]]), np.array([0, 1]))
    assert acc.moments.n[0] == 1 and acc.moments.mean[0] == 3.0
    assert acc.close().n[0] == 2


def test_a_shares_interval_stays_within_what_a_share_can_be() -> None:
    """Four deals of a share near 0 or 1: the t interval ran past it (a 4-match run said
    "the round's lowest penalty in 20.2 % of rounds [-6.0, 46.3]"). A confidence
    interval cut to the values the quantity can take covers it as often."""
    n = 4
    rng = np.random.default_rng(5)
    facts = np.zeros((n, len(FACTS)))
    facts[:, FACTS.index("turns_per_round")] = [0.5, 9.0, 0.2, 0.1]
    facts[:, FACTS.index("blocked_share")] = [0.0, 0.0, 0.0, 0.6]
    facts[:, FACTS.index("first_mover_lowest")] = [1.0, 1.0, 1.0, 0.3]
    facts[:, FACTS.index("first_mover_edge")] = [-30.0, 20.0, -25.0, 5.0]
    facts[:, FACTS.index("mean_total")] = [10.0, 400.0, 5.0, 3.0]
    base = MatchFacts(np.arange(n), np.arange(n), facts, rng.integers(0, 9, n * 13), 4)
    moved = facts.copy()
    moved[:, FACTS.index("blocked_share")] = [1.0, 1.0, 0.1, 0.9]
    moved[:, FACTS.index("first_mover_lowest")] = [0.0, 0.0, 0.0, 1.0]
    other = MatchFacts(np.arange(n), np.arange(n), moved, base.round_turns, 4)
    acc = DesignerAccumulator(2)
    acc.add(0, base)
    acc.add(1, other)
    table = designer_table(acc.close(["base", "other"], []))
    for name, least, most in [
        ("blocked_share", 0, 1),
        ("first_mover_lowest", 0, 1),
        ("turns_per_round", 0, np.inf),
        ("mean_total", 0, np.inf),
    ]:
        assert (table[f"{name}_lo"] >= least).all() and (table[f"{name}_hi"] <= most).all()
        assert (table[f"{name}_lo"] <= table[name]).all()
        assert (table[name] <= table[f"{name}_hi"]).all()
        span = most - least
        diff = table.loc[1, [f"{name}_diff_lo", f"{name}_diff_hi"]]
        assert -span <= diff.iloc[0] <= diff.iloc[1] <= span
    assert table.loc[0, "first_mover_lowest_hi"] == 1.0  # cut: the t interval was wider
    assert table.loc[1, "blocked_share_diff_hi"] == 1.0
    edge = table.loc[0, ["first_mover_edge_lo", "first_mover_edge_hi"]]
    assert edge.iloc[0] < -30 and edge.iloc[1] > 20  # a difference of penalties: uncut
