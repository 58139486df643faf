"""Ratings (mexsim/analysis/ratings.py): Bradley–Terry by maximum likelihood, with a
jackknife interval over deals — checked against counts by hand, planted strengths and
the head-to-head shares they summarise."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mexsim.analysis.accumulate import JACKKNIFE_GROUPS, accumulate
from mexsim.analysis.ratings import ELO_SCALE, expected_share, fit_strengths, rate
from tests.profiles import examples


def pairs_by_hand(totals: np.ndarray, groups: np.ndarray, n_groups: int):
    n_players = totals.shape[1]
    score = np.zeros((n_groups, n_players, n_players))
    met = np.zeros((n_groups, n_players, n_players))
    for row, g in zip(totals, groups, strict=True):
        for a in range(n_players):
            for b in range(n_players):
                if a != b and not np.isnan(row[a]) and not np.isnan(row[b]):
                    met[g, a, b] += 1
                    score[g, a, b] += 1.0 if row[a] < row[b] else 0.5 if row[a] == row[b] else 0
    return score, met


@settings(max_examples=examples(40), deadline=None)
@given(st.data())
def test_pair_counts_equal_a_count_by_hand(data) -> None:
    n, p = data.draw(st.integers(1, 12)), data.draw(st.integers(2, 5))
    cells = st.one_of(st.just(np.nan), st.integers(0, 4).map(float))
    totals = np.array(
        data.draw(st.lists(st.lists(cells, min_size=p, max_size=p), min_size=n, max_size=n))
    )
    deals = np.array(sorted(data.draw(st.lists(st.integers(0, 70), min_size=n, max_size=n))))
    run = accumulate(totals, deals)
    groups = deals % JACKKNIFE_GROUPS
    want_score, want_met = pairs_by_hand(totals, groups, JACKKNIFE_GROUPS)
    np.testing.assert_array_equal(run.ahead + 0.5 * run.tied, want_score)
    np.testing.assert_array_equal(run.met, want_met)


def simulated_matches(strength: np.ndarray, n: int, seed: int) -> np.ndarray:
    """Two-player matches of random pairs; the winner by Bradley–Terry odds gets total 0,
    the loser 1, the others sit out."""
    rng = np.random.default_rng(seed)
    p = len(strength)
    totals = np.full((n, p), np.nan)
    for m in range(n):
        a, b = rng.choice(p, 2, replace=False)
        a_ahead = rng.random() < 1 / (1 + np.exp(strength[b] - strength[a]))
        totals[m, a], totals[m, b] = (0.0, 1.0) if a_ahead else (1.0, 0.0)
    return totals


def test_planted_strengths_are_recovered_within_their_intervals() -> None:
    strength = np.array([0.0, 0.3, -0.4, 0.8])
    totals = simulated_matches(strength, 20_000, seed=1)
    table = rate(totals, ["a", "b", "c", "d"])
    planted = 1500 + ELO_SCALE * (strength - strength.mean())
    assert np.all(np.abs(table["rating"] - planted) < 4 * table["rating_sigma"])
    assert list(table.sort_values("rating")["player"]) == ["c", "a", "b", "d"]


@pytest.mark.slow
def test_intervals_cover_the_planted_strengths_about_95_percent() -> None:
    strength = np.array([0.0, 0.5, -0.5])
    planted = 1500 + ELO_SCALE * (strength - strength.mean())
    covered = []
    for seed in range(60):
        table = rate(simulated_matches(strength, 600, seed), ["a", "b", "c"])
        covered += list((table["rating_lo"] <= planted) & (planted <= table["rating_hi"]))
    assert 0.85 <= np.mean(covered) <= 1.0


def test_two_players_rating_difference_is_their_head_to_head_share() -> None:
    # a finished ahead in 7 of 10, one tie: share (7 + 0.5) / 10; with the half
    # pseudo-game each way the fit is (7.5 + 0.5) / (10 + 1)
    totals = np.array([[0.0, 1.0]] * 7 + [[1.0, 0.0]] * 2 + [[1.0, 1.0]])
    table = rate(totals, ["a", "b"])
    difference = table["rating"][0] - table["rating"][1]
    assert expected_share(difference) == pytest.approx(8 / 11)
    assert table["rating"].mean() == pytest.approx(1500)


def test_uncertainty_shrinks_with_the_evidence() -> None:
    strength = np.array([0.0, 0.2, -0.2])
    small = rate(simulated_matches(strength, 2_000, seed=3), ["a", "b", "c"])
    large = rate(simulated_matches(strength, 32_000, seed=4), ["a", "b", "c"])
    ratio = large["rating_sigma"] / small["rating_sigma"]
    assert np.all((ratio > 0.15) & (ratio < 0.4))  # about 1/4 for 16x the matches


def test_one_player_always_ahead_stays_finite() -> None:
    totals = np.array([[0.0, 5.0, 9.0]] * 20)
    table = rate(totals, ["a", "b", "c"])
    assert np.isfinite(table["rating"]).all()
    assert table["rating"][0] > table["rating"][1] > table["rating"][2]


def test_a_single_deal_has_no_interval() -> None:
    table = rate(np.array([[0.0, 3.0]]), ["a", "b"])
    assert np.isfinite(table["rating"]).all()
    assert table["rating_sigma"].isna().all()


def test_fit_ignores_players_who_never_played() -> None:
    score = np.array([[0, 3, 0], [1, 0, 0], [0, 0, 0]], dtype=float)
    met = np.array([[0, 4, 0], [4, 0, 0], [0, 0, 0]], dtype=float)
    log_p = fit_strengths(score, met)
    assert np.isnan(log_p[2]) and log_p[0] > log_p[1]
