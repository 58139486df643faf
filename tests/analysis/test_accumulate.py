"""Statistics gathered block by block (mexsim/analysis/accumulate.py) equal those of the
whole run at once, however the matches are split — the property that lets `mexsim run`
and `mexsim report` keep memory independent of the number of matches."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mexsim.analysis.accumulate import Moments, RunAccumulator, accumulate
from mexsim.analysis.comparison import analyze, analyze_statistics
from tests.profiles import examples

PLAYERS = ["p0", "p1", "p2", "p3"]


@st.composite
def runs(draw):
    """A run's totals and deals: independent deals, duplicate deals (each deal played
    in several consecutive matches), or a pool (one player sits out each match)."""
    kind = draw(st.sampled_from(["independent", "duplicate", "pool"]))
    n_deals = draw(st.integers(2, 25))
    per_deal = 3 if kind == "duplicate" else 1
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    deals = np.repeat(np.arange(n_deals), per_deal)
    totals = rng.integers(0, 60, size=(len(deals), 4)).astype(float)
    if kind == "pool":
        totals[np.arange(len(deals)), rng.integers(0, 4, len(deals))] = np.nan
    cuts = sorted(draw(st.lists(st.integers(1, len(deals) - 1), max_size=5, unique=True)))
    return totals, deals, cuts


def in_blocks(totals, deals, cuts):
    acc = RunAccumulator(totals.shape[1])
    for t, d in zip(np.split(totals, cuts), np.split(deals, cuts), strict=True):
        acc.add(t, d)
    return acc.close()


@settings(max_examples=examples(25), deadline=None)
@given(runs())
def test_any_block_split_gives_the_tables_of_one_block(run) -> None:
    totals, deals, cuts = run
    whole = analyze(totals, deals, PLAYERS, ["s"] * 4, {"s": PLAYERS[:3]}, rounds=13)
    split = analyze_statistics(
        in_blocks(totals, deals, cuts),
        PLAYERS,
        ["s"] * 4,
        {"s": PLAYERS[:3]},
        np.full(4, np.nan),
        rounds=13,
    )
    for name in ("summary", "pairs", "head_to_head", "sweeps"):
        pd.testing.assert_frame_equal(
            getattr(split, name), getattr(whole, name), check_exact=False, rtol=1e-7, atol=1e-9
        )
    assert (split.deals, split.matches) == (whole.deals, whole.matches)


def test_tied_players_keep_their_order_whatever_the_split() -> None:
    """Players 0 and 3 tie on total (343 over 11 matches); merged block by block
    their means differ in the last bits, which once swapped them in every table."""
    totals = np.array(
        [
            [12, 31, 50, 36],
            [49, 28, 12, 12],
            [30, 31, 17, 11],
            [29, 16, 15, 45],
            [11, 33, 0, 51],
            [53, 48, 41, 14],
            [47, 11, 38, 59],
            [9, 40, 7, 16],
            [25, 12, 54, 37],
            [51, 39, 22, 53],
            [27, 58, 48, 9],
        ],
        dtype=float,
    )
    test_any_block_split_gives_the_tables_of_one_block.hypothesis.inner_test(
        (totals, np.arange(11), [1, 2])
    )


def test_tied_swept_players_keep_their_order_whatever_the_split() -> None:
    """The same in the sweeps table, found by the test above: p1 and p2 tie (1,265 over
    13 duplicate deals); its rows followed the unrounded means and swapped them."""
    totals = np.array(
        [
            [53, 51, 49, 51],
            [4, 48, 56, 15],
            [10, 4, 47, 56],
            [36, 36, 47, 0],
            [50, 54, 7, 59],
            [50, 17, 28, 48],
            [54, 4, 39, 26],
            [20, 49, 41, 24],
            [52, 31, 51, 7],
            [54, 48, 31, 29],
            [18, 14, 16, 46],
            [23, 58, 22, 32],
            [23, 44, 21, 59],
            [38, 1, 57, 35],
            [41, 58, 16, 7],
            [41, 13, 0, 33],
            [32, 43, 54, 33],
            [14, 32, 3, 3],
            [6, 44, 53, 19],
            [5, 4, 7, 57],
            [9, 39, 36, 27],
            [28, 43, 48, 28],
            [39, 7, 56, 36],
            [41, 44, 15, 44],
            [58, 33, 18, 55],
            [46, 56, 42, 52],
            [46, 22, 47, 16],
            [56, 31, 31, 39],
            [18, 9, 43, 33],
            [42, 26, 26, 0],
            [40, 25, 4, 23],
            [2, 57, 12, 3],
            [44, 55, 16, 54],
            [12, 35, 40, 11],
            [9, 47, 29, 9],
            [49, 19, 18, 39],
            [13, 25, 43, 27],
            [31, 18, 53, 2],
            [4, 21, 43, 49],
        ],
        dtype=float,
    )
    test_any_block_split_gives_the_tables_of_one_block.hypothesis.inner_test(
        (totals, np.repeat(np.arange(13), 3), [4])
    )


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=30), min_size=1, max_size=5))
def test_moments_merge_like_one_sample(chunks) -> None:
    moments = Moments.zeros((1,))
    for chunk in chunks:
        moments.add_columns(np.array(chunk)[:, None])
    values = np.concatenate(chunks)
    assert moments.n[0] == len(values)
    assert moments.mean[0] == pytest.approx(values.mean(), abs=1e-9)
    if len(values) >= 2:
        assert moments.var[0] == pytest.approx(values.var(ddof=1), rel=1e-9, abs=1e-9)


def test_a_deal_split_across_blocks_waits_for_its_last_match() -> None:
    totals = np.arange(24, dtype=float).reshape(6, 4)
    deals = np.array([0, 0, 0, 1, 1, 1])
    acc = RunAccumulator(4)
    acc.add(totals[:2], deals[:2])
    assert acc.stats.deals == 0  # deal 0 may go on in the next block
    acc.add(totals[2:4], deals[2:4])
    assert acc.stats.deals == 1 and acc.stats.matches == 3
    acc.add(totals[4:], deals[4:])
    run = acc.close()
    assert run.deals == 2 and run.matches == 6 and run.duplicate


def test_out_of_order_deals_are_refused() -> None:
    with pytest.raises(ValueError, match="deal order"):
        accumulate(np.zeros((3, 2)), np.array([0, 2, 1]))


def test_memory_does_not_grow_with_matches() -> None:
    """The statistics are P and P x P arrays: the same size after 10 or 10,000 blocks."""
    rng = np.random.default_rng(0)
    acc = RunAccumulator(4)
    sizes = []
    for block in range(200):
        acc.add(rng.normal(50, 10, size=(100, 4)), np.arange(block * 100, block * 100 + 100))
        if block in (9, 199):
            s = acc.stats
            sizes.append(
                sum(
                    a.nbytes
                    for a in (
                        s.info,
                        s.q,
                        s.ahead,
                        s.tied,
                        s.met,
                        s.pairs.n,
                        s.pairs.mean,
                        s.pairs.m2,
                    )
                )
            )
    assert sizes[0] == sizes[1]


def test_streamed_results_directory_gives_the_in_memory_analysis(tmp_path) -> None:
    """`mexsim report` streams the Parquet files in small batches; the tables equal
    those of the tables read whole."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from mexsim.analysis import results_stream
    from mexsim.analysis.comparison import analyze_directory, analyze_results
    from tests.analysis.test_summary import NAMES, results

    rng = np.random.default_rng(8)
    totals = np.round(
        rng.normal(200, 60, size=(300, 1)) + np.array([0, 6, 15]) + rng.normal(0, 8, size=(300, 3))
    ).clip(0)
    matches, rounds = results(totals, NAMES)
    pq.write_table(
        pa.Table.from_pandas(matches, preserve_index=False),
        tmp_path / "matches.parquet",
        row_group_size=100,
    )
    pq.write_table(
        pa.Table.from_pandas(rounds, preserve_index=False),
        tmp_path / "rounds.parquet",
        row_group_size=1000,
    )
    whole = analyze_results(tmp_path, matches, rounds)
    old = results_stream.BATCH_ROWS
    results_stream.BATCH_ROWS = 7  # matches straddle every batch
    try:
        streamed, digest = analyze_directory(tmp_path)
    finally:
        results_stream.BATCH_ROWS = old
    for name in ("summary", "pairs", "head_to_head"):
        pd.testing.assert_frame_equal(
            getattr(streamed, name), getattr(whole, name), check_exact=False, rtol=1e-9
        )
    assert digest.total_counts.sum() == totals.size
    penalty = rounds.groupby("player", observed=True)["penalty"].mean()
    np.testing.assert_allclose(
        digest.mean_round_penalty(), penalty.reindex(digest.players).to_numpy()
    )


def test_the_fold_runs_on_one_blas_thread(monkeypatch) -> None:
    """The fold's products are small: spread over OpenBLAS's threads they cost 6-8 ×
    the CPU on a busy machine (a 2,000,000-match report: 55 CPU-s against 26). Fails
    wherever BLAS has more than one thread by default (any machine of 2 cores or
    more) and the limit is gone."""
    from threadpoolctl import threadpool_info

    seen: list[int] = []
    fold = RunAccumulator._fold_head_to_head

    def recording(self, *args) -> None:
        seen.extend(pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas")
        fold(self, *args)

    def threads() -> list[int]:
        return [pool["num_threads"] for pool in threadpool_info()]

    before = threads()
    monkeypatch.setattr(RunAccumulator, "_fold_head_to_head", recording)
    accumulate(np.random.default_rng(3).normal(50, 10, size=(40, 4)))
    assert seen and set(seen) == {1}
    assert threads() == before  # restored after the fold
