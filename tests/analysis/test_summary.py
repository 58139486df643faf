"""The comparison table (analysis.summary) and the plots (analysis.plots) on hand-built data.

Each expected number is recomputed here independently — with pandas, scipy and
statsmodels directly — from small synthetic results whose structure is known.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint
from statsmodels.stats.weightstats import CompareMeans, DescrStatsW

from mexsim.analysis.plots import write_plots
from mexsim.analysis.summary import (
    SUMMARY_COLUMNS,
    format_summary,
    load_results,
    summarize,
    summarize_totals,
)

ROUNDS = 13  # double-12: engines 12 → 0


def results(
    totals: np.ndarray, names: list[str], seed: int = 0, categorical: bool = True
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """matches and rounds frames shaped like docs/interface.md's for a (match × player) matrix.

    rank and win follow the run's rules (rank method "min"; a k-way tie for the lowest
    total gives 1/k each). Each match total is split over the 13 rounds at random.
    """
    n_matches, n_players = totals.shape
    low = totals.min(axis=1, keepdims=True)
    winners = totals == low
    win = winners / winners.sum(axis=1, keepdims=True)
    rank = pd.DataFrame(totals).rank(axis=1, method="min").to_numpy()
    seats = (np.arange(n_players)[None, :] + np.arange(n_matches)[:, None]) % n_players
    player = np.tile(names, n_matches)
    strategy = np.tile([f"{n}_strategy" for n in names], n_matches)
    if categorical:
        player, strategy = pd.Categorical(player), pd.Categorical(strategy)
    matches = pd.DataFrame(
        {
            "match": np.repeat(np.arange(n_matches, dtype=np.int64), n_players),
            "seat": seats.ravel().astype(np.int8),
            "player": player,
            "strategy": strategy,
            "total": totals.ravel().astype(np.int16),
            "rank": rank.ravel().astype(np.int8),
            "win": win.ravel(),
        }
    )
    # Split each total into 13 round penalties (multinomial keeps the sum exact).
    rng = np.random.default_rng(seed)
    penalty = rng.multinomial(totals.ravel().astype(np.int64), np.full(ROUNDS, 1 / ROUNDS))
    penalty = penalty.reshape(n_matches, n_players, ROUNDS).transpose(0, 2, 1)  # m × r × p
    round_ids = np.tile(np.repeat(np.arange(ROUNDS), n_players), n_matches)
    rounds = pd.DataFrame(
        {
            "match": np.repeat(np.arange(n_matches, dtype=np.int64), ROUNDS * n_players),
            "round": round_ids.astype(np.int8),
            "engine": (12 - round_ids).astype(np.int8),
            "seat": np.tile(seats, (1, ROUNDS)).ravel().astype(np.int8),
            "player": pd.Categorical(np.tile(names, n_matches * ROUNDS)),
            "strategy": pd.Categorical(
                np.tile([f"{n}_strategy" for n in names], n_matches * ROUNDS)
            ),
            "penalty": penalty.ravel().astype(np.int16),
            "tiles_left": (penalty.ravel() > 0).astype(np.int8),
            "went_out": penalty.ravel() == 0,
            "blocked": np.zeros(penalty.size, dtype=bool),
            "tiles_played": np.full(penalty.size, 5, dtype=np.int8),
            "draws": np.zeros(penalty.size, dtype=np.int8),
        }
    )
    return matches, rounds


NAMES = ["ann", "bob", "cy"]


@pytest.fixture(scope="module")
def correlated() -> tuple[np.ndarray, pd.DataFrame, pd.DataFrame]:
    """50 matches, 3 players: a large per-match luck term shared by the whole table
    (everyone suffers a bad deal together) plus small individual noise and skill offsets.
    """
    rng = np.random.default_rng(42)
    luck = rng.normal(200, 60, size=(50, 1))
    skill = np.array([0.0, 6.0, 15.0])  # ann best, then bob, then cy
    totals = np.round(luck + skill + rng.normal(0, 8, size=(50, 3))).clip(0)
    totals[0] = [150, 150, 190]  # a 2-way tie for the lowest total
    totals[1] = [170, 170, 170]  # a 3-way tie
    matches, rounds = results(totals, NAMES)
    return totals, matches, rounds


def row(summary: pd.DataFrame, player: str) -> pd.Series:
    return summary.set_index("player").loc[player]


def test_columns_and_order(correlated) -> None:
    _, matches, rounds = correlated
    summary = summarize(matches, rounds)
    assert list(summary.columns) == SUMMARY_COLUMNS
    assert summary["player"].tolist() == ["ann", "bob", "cy"]
    assert summary["mean_total"].is_monotonic_increasing
    assert summary["strategy"].tolist() == ["ann_strategy", "bob_strategy", "cy_strategy"]
    assert (summary["matches"] == 50).all()


def test_wins_sum_to_matches_and_ties_split(correlated) -> None:
    totals, matches, rounds = correlated
    summary = summarize(matches, rounds)
    assert summary["wins"].sum() == pytest.approx(50)
    assert summary["win_rate"].sum() == pytest.approx(1)
    # Recount by hand: a k-way tie for the lowest total is worth 1/k to each.
    low = totals.min(axis=1, keepdims=True)
    expected = ((totals == low) / (totals == low).sum(axis=1, keepdims=True)).sum(axis=0)
    for name, wins in zip(NAMES, expected, strict=True):
        assert row(summary, name)["wins"] == pytest.approx(wins)


def test_two_way_tie_gives_half_each() -> None:
    totals = np.array([[100, 100, 130], [90, 120, 95]])
    matches, rounds = results(totals, NAMES)
    summary = summarize(matches, rounds)
    assert row(summary, "ann")["wins"] == pytest.approx(1.5)
    assert row(summary, "bob")["wins"] == pytest.approx(0.5)
    assert row(summary, "cy")["wins"] == 0


def test_win_rate_interval_is_wilson_on_fractional_wins(correlated) -> None:
    _, matches, rounds = correlated
    summary = summarize(matches, rounds)
    for r in summary.itertuples():
        lo, hi = proportion_confint(r.wins, r.matches, alpha=0.05, method="wilson")
        assert r.win_rate == pytest.approx(r.wins / r.matches)
        assert (r.win_rate_lo, r.win_rate_hi) == pytest.approx((lo, hi))
        assert r.win_rate_lo <= r.win_rate <= r.win_rate_hi


def test_mean_total_and_t_interval(correlated) -> None:
    _, matches, rounds = correlated
    summary = summarize(matches, rounds)
    means = matches.groupby("player", observed=True)["total"].mean()
    for name in NAMES:
        r = row(summary, name)
        values = matches.loc[matches["player"] == name, "total"].to_numpy(dtype=float)
        assert r["mean_total"] == pytest.approx(means[name])
        lo, hi = DescrStatsW(values).tconfint_mean(alpha=0.05)
        assert (r["mean_total_lo"], r["mean_total_hi"]) == pytest.approx((lo, hi))
        assert r["mean_total_lo"] < r["mean_total"] < r["mean_total_hi"]


def test_mean_round_penalty(correlated) -> None:
    totals, matches, rounds = correlated
    summary = summarize(matches, rounds)
    expected = rounds.groupby("player", observed=True)["penalty"].mean()
    for name in NAMES:
        assert row(summary, name)["mean_round_penalty"] == pytest.approx(expected[name])
    # The round penalties add up to the totals, so this is mean_total / 13 here.
    assert row(summary, "ann")["mean_round_penalty"] == pytest.approx(totals[:, 0].mean() / ROUNDS)
    assert summarize(matches, None)["mean_round_penalty"].isna().all()


def test_paired_difference_vs_best(correlated) -> None:
    totals, matches, rounds = correlated
    summary = summarize(matches, rounds)
    best = totals[:, 0]  # ann
    for j, name in enumerate(NAMES[1:], start=1):
        r = row(summary, name)
        d = totals[:, j] - best
        assert r["diff_vs_best"] == pytest.approx(d.mean())
        lo, hi = DescrStatsW(d).tconfint_mean(alpha=0.05)
        assert (r["diff_vs_best_lo"], r["diff_vs_best_hi"]) == pytest.approx((lo, hi))
        assert r["diff_p_value"] == pytest.approx(stats.ttest_rel(totals[:, j], best).pvalue)
        # The shared luck cancels in the paired difference: its interval is far narrower
        # than the unpaired (Welch) interval of the difference of the two means.
        unpaired = CompareMeans(DescrStatsW(totals[:, j]), DescrStatsW(best))
        ulo, uhi = unpaired.tconfint_diff(alpha=0.05, usevar="unequal")
        assert hi - lo < (uhi - ulo) / 3
    # cy is 15 pips worse with noise sd ~11 per difference: clearly significant.
    assert row(summary, "cy")["diff_p_value"] < 1e-6


def test_best_player_has_zero_difference(correlated) -> None:
    _, matches, rounds = correlated
    best = summarize(matches, rounds).iloc[0]
    assert best["player"] == "ann"
    assert (best["diff_vs_best"], best["diff_vs_best_lo"], best["diff_vs_best_hi"]) == (0, 0, 0)
    assert np.isnan(best["diff_p_value"])


def test_one_match_gives_nan_t_intervals_without_warnings() -> None:
    matches, rounds = results(np.array([[120, 95, 140]]), NAMES)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing may leak from the degenerate statistics
        summary = summarize(matches, rounds)
        text = format_summary(summary)
    assert summary["player"].tolist() == ["bob", "ann", "cy"]
    assert summary["wins"].tolist() == [1, 0, 0]
    for column in ("mean_total_lo", "mean_total_hi", "diff_p_value"):
        assert summary[column].isna().all(), column
    assert summary.loc[1:, ["diff_vs_best_lo", "diff_vs_best_hi"]].isna().all().all()
    assert summary["diff_vs_best"].tolist() == [0, 25, 45]
    # The Wilson interval is defined for a single match: it stays finite and wide.
    assert summary["win_rate_lo"].between(0, 1).all()
    assert (summary["win_rate_hi"] - summary["win_rate_lo"] > 0.5).all()
    assert "n/a" in text


def test_empty_input() -> None:
    matches, rounds = results(np.zeros((0, 3)), NAMES)
    summary = summarize(matches, rounds)
    assert summary.empty and list(summary.columns) == SUMMARY_COLUMNS


def test_plain_string_players_and_missing_matches() -> None:
    """Object (non-categorical) names work, and a player absent from some matches is
    compared with the best on the matches both played."""
    totals = np.array([[10, 20], [12, 25], [11, 21], [13, 30]], dtype=float)
    matches, rounds = results(totals.astype(int), ["a", "b"], categorical=False)
    matches = matches.drop(
        index=matches.index[(matches["match"] == 3) & (matches["player"] == "a")]
    )
    summary = summarize(matches, rounds)
    assert summary["matches"].tolist() == [3, 4]
    assert row(summary, "a")["mean_total"] == pytest.approx(11)
    assert row(summary, "b")["diff_vs_best"] == pytest.approx(np.mean([10, 13, 10]))


def test_duplicate_rows_are_rejected(correlated) -> None:
    _, matches, rounds = correlated
    with pytest.raises(ValueError, match="more than one row"):
        summarize(pd.concat([matches, matches.iloc[:1]]), rounds)


def test_format_summary_lists_every_player_and_marks_the_best(correlated) -> None:
    _, matches, rounds = correlated
    text = format_summary(summarize(matches, rounds))
    for name in NAMES:
        assert name in text
    best_line = next(line for line in text.splitlines() if "ann" in line)
    assert best_line.startswith("*") and "best" in best_line
    assert not any(line.startswith("*") and "bob" in line for line in text.splitlines())


def test_the_footnote_names_the_interval_the_win_share_has(correlated) -> None:
    """Issue 35: the footnote said "(Wilson interval)" under duplicate deals too, where
    the win share's interval is a t interval over deals."""
    _, matches, rounds = correlated
    assert "(Wilson interval)" in format_summary(summarize(matches, rounds))
    paired = matches.assign(deal=matches["match"] // 5)  # five seatings of each deal
    text = format_summary(summarize(paired, rounds))
    assert "Wilson" not in text and "t interval over deals" in text


def test_write_plots(tmp_path: Path, correlated) -> None:
    _, matches, rounds = correlated
    paths = write_plots(tmp_path / "plots", matches, rounds)
    assert [p.name for p in paths] == [
        "penalty_by_round.png",
        "totals.png",
        "win_share.png",
        "head_to_head.png",
        "ratings.png",
    ]
    for path in paths:
        assert path.parent == tmp_path / "plots"
        data = path.read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 1000


def test_write_plots_one_match(tmp_path: Path) -> None:
    matches, rounds = results(np.array([[120, 95, 140]]), NAMES)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        paths = write_plots(tmp_path, matches, rounds)
    assert all(p.stat().st_size > 0 for p in paths)


def test_load_results_reads_files_and_part_directories(tmp_path: Path, correlated) -> None:
    _, matches, rounds = correlated
    matches.to_parquet(tmp_path / "matches.parquet")
    parts = tmp_path / "rounds.parquet"
    parts.mkdir()
    for k, part in enumerate(np.array_split(np.arange(len(rounds)), 3)):
        rounds.iloc[part].to_parquet(parts / f"part-{k}.parquet")
    loaded_matches, loaded_rounds = load_results(tmp_path)
    assert len(loaded_matches) == len(matches) and len(loaded_rounds) == len(rounds)
    pd.testing.assert_frame_equal(
        summarize(loaded_matches, loaded_rounds), summarize(matches, rounds)
    )
    _, slim = load_results(tmp_path, rounds_columns=["player", "penalty"])
    assert list(slim.columns) == ["player", "penalty"]
    with pytest.raises(FileNotFoundError, match=r"matches\.parquet"):
        load_results(tmp_path / "nowhere")


def test_large_input_is_vectorised() -> None:
    """200 000 matches × 4 players: completes quickly (vectorised), right shapes."""
    rng = np.random.default_rng(7)
    n, names = 200_000, ["p0", "p1", "p2", "p3"]
    totals = rng.poisson(150, size=(n, 4)) + np.array([0, 2, 4, 6])
    low = totals.min(axis=1, keepdims=True)
    matches = pd.DataFrame(
        {
            "match": np.repeat(np.arange(n, dtype=np.int64), 4),
            "seat": np.tile(np.arange(4, dtype=np.int8), n),
            "player": pd.Categorical(np.tile(names, n)),
            "strategy": pd.Categorical(np.tile(names, n)),
            "total": totals.ravel().astype(np.int16),
            "win": ((totals == low) / (totals == low).sum(axis=1, keepdims=True)).ravel(),
        }
    )
    rounds = pd.DataFrame(
        {  # one row per match × round × player, penalties only
            "player": pd.Categorical.from_codes(
                np.tile(np.arange(4, dtype=np.int8), n * ROUNDS), names
            ),
            "penalty": rng.integers(0, 25, size=n * 4 * ROUNDS).astype(np.int16),
        }
    )
    summary = summarize(matches, rounds)
    assert summary.shape == (4, len(SUMMARY_COLUMNS))
    assert summary["player"].tolist() == names
    assert (summary["matches"] == n).all()
    assert summary["wins"].sum() == pytest.approx(n)
    assert summary["diff_vs_best"].iloc[1:].to_numpy() == pytest.approx([2, 4, 6], abs=0.2)


@pytest.mark.processes
def test_report_import_is_light() -> None:
    """matplotlib is loaded only when plots are drawn, not by importing the modules."""
    code = (
        "import sys, mexsim.analysis.summary, mexsim.analysis.plots; "
        "print('matplotlib' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_summarize_totals_matches_summarize(correlated) -> None:
    """The run's shortcut (totals in memory) gives the table of the written results."""
    totals, matches, rounds = correlated
    strategies = [f"{n}_strategy" for n in NAMES]
    fast = summarize_totals(totals.astype(np.int32), NAMES, strategies, ROUNDS)
    pd.testing.assert_frame_equal(fast, summarize(matches, rounds))
    one = summarize_totals(totals[:1], NAMES, strategies, ROUNDS)
    assert one["mean_total_lo"].isna().all()
    with pytest.raises(ValueError):
        summarize_totals(totals, NAMES[:2], strategies, ROUNDS)


def test_the_head_to_head_diagonal_is_not_the_colour_of_fifty_percent() -> None:
    """A player against itself has no share: grey, not the white that means 50 %."""
    from mexsim.analysis.plots import head_to_head_colors

    colors = head_to_head_colors()
    bad = colors(np.nan)
    middle = colors(0.5)
    assert bad[:3] != pytest.approx(middle[:3], abs=0.1)
    assert bad[0] == bad[1] == bad[2]  # grey
