"""mexsim's own Wilson interval and Holm adjustment (mexsim/analysis/stats.py) against the
statsmodels functions they replace: the very same floats, bit for bit, so that the tables
a run writes do not change (statsmodels is a test-only dependency)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from mexsim.analysis.pairs import holm
from mexsim.analysis.stats import CONFIDENCE, holm_adjusted, wilson_interval
from tests.profiles import examples

LEVELS = st.sampled_from([CONFIDENCE, 0.9, 0.99, 0.5, 0.999])


@st.composite
def proportions(draw: st.DrawFn) -> tuple[float, int]:
    """(successes, n) as the callers have them: n matches, and a count of whole wins or
    of 1/k shares of tied wins (k-way ties; 1/2 in the head-to-head)."""
    n = draw(st.one_of(st.integers(0, 3), st.integers(0, 200), st.integers(0, 10**8)))
    k = draw(st.sampled_from([1, 2, 3, 4, 7]))
    units = draw(st.one_of(st.just(0), st.just(n * k), st.integers(0, n * k)))
    return units / k, n


def same(a: np.ndarray, b: np.ndarray) -> None:
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b), strict=True)


@settings(deadline=None, max_examples=examples(150))
@given(st.lists(proportions(), min_size=1, max_size=30), LEVELS)
def test_wilson_matches_statsmodels_on_arrays(cases: list, level: float) -> None:
    successes = np.array([s for s, _ in cases])
    n = np.array([m for _, m in cases], dtype=np.int64)
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = proportion_confint(successes, n, alpha=1 - level, method="wilson")
    lo, hi = wilson_interval(successes, n, level)
    same(lo, expected[0])
    same(hi, expected[1])


@settings(deadline=None, max_examples=examples(150))
@given(proportions(), LEVELS)
def test_wilson_matches_statsmodels_on_scalars(case: tuple[float, int], level: float) -> None:
    successes, n = case
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = proportion_confint(successes, n, alpha=1 - level, method="wilson")
    got = wilson_interval(successes, n, level)
    assert all(type(x) is float for x in got)
    same(np.array(got), np.array(expected))


@pytest.mark.parametrize(
    ("successes", "n"),
    [
        (0, 1),
        (1, 1),
        (0.5, 1),
        (0, 7),
        (7, 7),
        (0, 10**7),
        (10**7, 10**7),
        (1 / 3, 2),
    ],
)
def test_wilson_edge_cases(successes: float, n: int) -> None:
    expected = proportion_confint(successes, n, alpha=1 - CONFIDENCE, method="wilson")
    assert wilson_interval(successes, n) == expected
    lo, hi = wilson_interval(successes, n)
    # at 0 or n successes the bound misses 0 or 1 by a rounding error (5.6e-17 for 0 of 7),
    # as in statsmodels: kept, since the tables must not change
    assert 0 <= lo <= successes / n + 1e-15 and successes / n - 1e-15 <= hi <= 1
    assert lo < 1e-15 if successes == 0 else lo > 0
    assert hi > 1 - 1e-15 if successes == n else hi < 1


def test_wilson_two_dimensional_with_unmet_pairs_is_nan_and_quiet() -> None:
    # the head-to-head's (player × opponent) matrix: the diagonal never met (n = 0)
    met = np.array([[0, 4, 1], [4, 0, 0], [1, 0, 0]])
    won = np.array([[0, 2.5, 1], [1.5, 0, 0], [0, 0, 0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lo, hi = wilson_interval(won, met)
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = proportion_confint(won, met, alpha=1 - CONFIDENCE, method="wilson")
    same(lo, expected[0])
    same(hi, expected[1])
    assert np.isnan(lo[met == 0]).all() and np.isnan(hi[met == 0]).all()
    assert np.isfinite(lo[met > 0]).all()


P_VALUES = st.one_of(
    st.floats(0, 1),
    st.sampled_from([0.0, 1.0, 0.01, 0.05, 0.2, 0.5, 1e-300, 0.999]),  # ties, p = 0 and 1
)


# statsmodels' multipletests takes ~50 ms a call: a few dozen lists are enough
@pytest.mark.slow
@settings(deadline=None, max_examples=examples(40))
@given(st.lists(P_VALUES, min_size=1, max_size=60))
def test_holm_matches_statsmodels(p: list[float]) -> None:
    p_values = np.array(p)
    expected = multipletests(p_values, alpha=1 - CONFIDENCE, method="holm")[1]
    adjusted = holm_adjusted(p_values)
    same(adjusted, expected)
    assert (adjusted >= p_values).all() and (adjusted <= 1).all()
    order = np.argsort(p_values, kind="stable")
    assert (np.diff(adjusted[order]) >= 0).all()  # monotone in p


@pytest.mark.slow
@settings(deadline=None, max_examples=examples(30))
@given(st.lists(st.one_of(P_VALUES, st.just(np.nan)), min_size=1, max_size=30))
def test_holm_with_nan_matches_statsmodels_and_the_callers(p: list[float]) -> None:
    p_values = np.array(p)
    same(holm_adjusted(p_values), multipletests(p_values, method="holm")[1])
    # pairs.holm: NaN stays NaN and is not counted as a test
    finite = np.isfinite(p_values)
    expected = np.full(len(p_values), np.nan)
    if finite.any():
        expected[finite] = multipletests(p_values[finite], alpha=1 - CONFIDENCE, method="holm")[1]
    same(holm(p_values), expected)


def test_holm_by_hand_ties_and_ones() -> None:
    # sorted 0.01, 0.02, 0.02, 1 times 4, 3, 2, 1 -> 0.04, 0.06, 0.04, 1 -> 0.04, 0.06, 0.06, 1
    np.testing.assert_allclose(
        holm_adjusted(np.array([0.02, 1.0, 0.01, 0.02])), [0.06, 1.0, 0.04, 0.06]
    )
    same(holm_adjusted(np.array([0.3, 0.3, 0.3, 0.3])), np.ones(4) * 1.0)
    same(holm_adjusted(np.array([1.0])), np.array([1.0]))
    same(holm_adjusted(np.array([])), np.array([]))


@settings(deadline=None, max_examples=examples(200))
@given(
    st.floats(0.0, 1.0),
    st.one_of(st.floats(0.05, 1e7), st.sampled_from([0.0, -1.0, np.inf, np.nan, 1.0, 2.0])),
    st.floats(-50.0, 50.0),
)
def test_t_and_normal_match_scipy_stats(q: float, df: float, x: float) -> None:
    """analysis.stats' t quantile, t upper tail and normal quantile are scipy.stats'
    (whose import took 0.4-0.7 s of every run), float for float."""
    from scipy import stats as scipy_stats

    from mexsim.analysis.stats import normal_upper_quantile, t_quantile, t_upper_tail

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        same(np.asarray(t_quantile(q, df)), np.asarray(scipy_stats.t.ppf(q, df)))
        same(np.asarray(t_upper_tail(x, df)), np.asarray(scipy_stats.t.sf(x, df)))
        same(np.asarray(normal_upper_quantile(q)), np.asarray(scipy_stats.norm.isf(q)))
    dfs = np.array([1.0, 3.0, 30.0, 1e6])
    same(t_quantile(0.975, dfs), scipy_stats.t.ppf(0.975, dfs))
