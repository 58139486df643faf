"""Every pair compared (mexsim/analysis/pairs.py), the sweep verdicts beside the
head-to-head shares, and the pool's partial-cycle warning (issue 13, "statistics a
reader can trust")."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mexsim.analysis.formatting import p_value
from mexsim.analysis.head_to_head import head_to_head
from mexsim.analysis.pairs import compare_pairs, format_pairs, holm
from mexsim.analysis.sweeps import compare_sweeps, format_sweeps
from mexsim.tournament.schedule import Schedule


def test_holm_by_hand() -> None:
    # sorted 0.01, 0.03, 0.04 times 3, 2, 1 -> 0.03, 0.06, 0.04 -> monotone 0.03, 0.06, 0.06
    np.testing.assert_allclose(holm(np.array([0.01, 0.04, 0.03])), [0.03, 0.06, 0.06])
    adjusted = holm(np.array([0.2, np.nan, 0.01]))
    assert np.isnan(adjusted[1])
    np.testing.assert_allclose(adjusted[[0, 2]], [0.2, 0.02])


def test_every_pair_is_a_paired_t_test_then_holm() -> None:
    rng = np.random.default_rng(5)
    deal = rng.normal(0, 20, size=(400, 1))
    units = deal + rng.normal([50, 51, 54, 54.2], 8, size=(400, 4))
    players = ["a", "b", "c", "d"]
    table = compare_pairs(units, players, players)
    assert len(table) == 6
    raw = []
    for row in table.itertuples(index=False):
        i, j = players.index(row.player), players.index(row.opponent)
        assert row.diff == pytest.approx(np.mean(units[:, j] - units[:, i]))
        assert row.p_value == pytest.approx(stats.ttest_rel(units[:, j], units[:, i]).pvalue)
        assert row.diff_lo < row.diff < row.diff_hi
        raw.append(row.p_value)
    np.testing.assert_allclose(table["p_holm"], holm(np.array(raw)))
    assert (table["p_holm"] >= table["p_value"]).all()
    assert (table["separated"] == (table["p_holm"] < 0.05)).all()
    # c and d differ by 0.2 points only: not separated; a from c by 4 points: separated
    pair = table.set_index(["player", "opponent"])
    assert not pair.loc[("c", "d"), "separated"] and pair.loc[("a", "c"), "separated"]
    assert "c vs d" in format_pairs(table)


def test_a_pool_compares_pairs_on_deal_adjusted_totals() -> None:
    rng = np.random.default_rng(2)
    units = rng.normal([10, 12, 14], 3, size=(300, 3))
    units[np.arange(300), rng.integers(0, 3, 300)] = np.nan  # one sits out each deal
    table = compare_pairs(units, ["x", "y", "z"], ["x", "y", "z"])
    assert table["separated"].all()
    assert "all 3 pairs separated" in format_pairs(table)


def test_p_values_print_for_people() -> None:
    assert [p_value(p) for p in (np.nan, 0.0, 1e-5, 0.25)] == ["n/a", "<1e-300", "1.0e-05", "0.250"]


def test_sweep_verdict_names_its_statistic_and_shows_the_head_to_head_share() -> None:
    # value 1.0 finishes ahead of 0.0 more often (by 1 point) but loses by 5 when it
    # loses: the mean total favours 0.0, the share favours 1.0 -> both are shown
    rng = np.random.default_rng(0)
    ahead = rng.random(2000) < 0.6
    totals = np.where(ahead[:, None], [[20.0, 19.0]], [[20.0, 25.0]])
    players = ["lt[pip_weight=0.0]", "lt[pip_weight=1.0]"]
    deals = np.arange(len(totals))
    sweeps = compare_sweeps(totals, players, deals, {"lt": players})
    h2h = head_to_head(totals, players, deals)
    text = format_sweeps(sweeps, h2h)
    assert "best pip_weight=0.0 (mean total" in text
    assert "ahead of pip_weight=0.0 in 6" in text and "(differs from 50 %)" in text
    assert "how often it finished ahead" in text


def test_a_pooled_sweep_says_adjusted_total() -> None:
    rng = np.random.default_rng(1)
    totals = rng.normal(50, 5, size=(300, 3))
    totals[np.arange(300), np.arange(300) % 3] = np.nan
    players = ["s[v=1]", "s[v=2]", "s[v=3]"]
    sweeps = compare_sweeps(totals, players, np.arange(300), {"s": players})
    assert set(sweeps["method"]) == {"deal-adjusted"}
    assert "(adjusted total (pool: deal-adjusted)" in format_sweeps(sweeps)


def test_partial_pool_cycle_warns_with_whole_counts() -> None:
    schedule = Schedule.build(players=4, table_size=3, rotate=True, duplicate=False, seed=1)
    assert schedule.cycle == 12
    assert schedule.partial_cycle_warning(24) is None
    warning = schedule.partial_cycle_warning(30)
    assert "2.50 cycles of 12" in warning and "--matches 24 or 36" in warning
    assert "--matches 12" in schedule.partial_cycle_warning(5)
    table = Schedule.build(players=4, table_size=4, rotate=True, duplicate=False, seed=1)
    assert table.partial_cycle_warning(7) is None  # no pool: nothing to balance


def test_summary_csv_rounds_fractional_wins(tmp_path) -> None:
    from mexsim.analysis.comparison import analyze

    totals = np.array([[1.0, 1.0, 1.0], [0.0, 2.0, 3.0], [5.0, 5.0, 5.0]])
    analysis = analyze(totals, np.arange(3), ["a", "b", "c"], ["g"] * 3, {}, rounds=13)
    analysis.write(tmp_path)
    wins = pd.read_csv(tmp_path / "summary.csv").set_index("player")["wins"]
    assert wins["a"] == pytest.approx(1.667) and wins["b"] == pytest.approx(0.667)
    assert (tmp_path / "comparisons.csv").exists()
