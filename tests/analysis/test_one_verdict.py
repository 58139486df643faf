"""Issue 35, "one verdict": a sweep's verdict on a value is the run's verdict on that
pair (Holm over every pair, comparisons.csv), never "significant" beside "not
separated" for the same two players."""

from __future__ import annotations

import numpy as np

from mexsim.analysis.comparison import analyze


def _run(seed: int):
    rng = np.random.default_rng(seed)
    deals = 300
    effects = np.array([0.0, 1.8, 0.0, 0.5, 1.0, 40.0])  # w=0, w=2 and four others
    totals = rng.normal(300, 30, size=(deals, 1)) + effects + rng.normal(0, 12, (deals, 6))
    players = ["lt[w=0]", "lt[w=2]", "a", "b", "c", "d"]
    return analyze(
        totals,
        np.arange(deals),
        players,
        ["lt", "lt", "x", "x", "x", "x"],
        {"lt": ["lt[w=0]", "lt[w=2]"]},
        13,
    )


def test_a_sweep_says_what_comparisons_say_of_the_same_pair() -> None:
    disagreed_before = 0
    for seed in range(40):
        analysis = _run(seed)
        sweep = analysis.sweeps[~analysis.sweeps["best"]].iloc[0]
        best = analysis.sweeps[analysis.sweeps["best"]].iloc[0]["player"]
        pairs = analysis.pairs
        row = pairs[
            ((pairs["player"] == best) & (pairs["opponent"] == sweep["player"]))
            | ((pairs["opponent"] == best) & (pairs["player"] == sweep["player"]))
        ].iloc[0]
        assert sweep["separated"] == row["separated"]
        assert sweep["p_holm"] == row["p_holm"]
        disagreed_before += (sweep["diff_p_value"] < 0.05) != row["separated"]
        text = analysis.format()
        verdict = "-> separated" if row["separated"] else "-> not separated"
        assert verdict in text.split("sweep lt:")[1]
    # the case of the issue happens here: uncorrected "significant", Holm "not separated"
    assert disagreed_before > 0


def test_the_output_leads_with_the_comparison_in_plain_words() -> None:
    """Issue 35: no sentence said it in words. Now one per player against the best, with
    the interval and how often the best finished ahead; a pair the run does not
    separate is said to be not yet told apart, never "fewer points"."""
    rng = np.random.default_rng(2)
    deals = 500
    totals = (
        rng.normal(300, 30, (deals, 1)) + np.array([0.0, 30.0, 0.2]) + rng.normal(0, 10, (deals, 3))
    )
    analysis = analyze(totals, np.arange(deals), ["a", "b", "c"], ["x"] * 3, {}, 13)
    text = analysis.format()
    first = text.splitlines()[:2]
    best = analysis.summary.iloc[0]["player"]
    b = analysis.summary.set_index("player").loc["b"]
    assert any(
        line.startswith(f"{best} scores {b.diff_vs_best:.1f} fewer points a match than b")
        and f"between {b.diff_vs_best_lo:.1f} and {b.diff_vs_best_hi:.1f}" in line
        and "finishes ahead in" in line
        for line in first
    )
    other = "c" if best == "a" else "a"
    assert any(f"{best} and {other} cannot be told apart yet" in line for line in first)


def test_a_best_that_trails_in_head_to_head_is_explained() -> None:
    """Issue 35: the `*` best trailed the runner-up in head to head with no word why.
    b finishes ahead of a four times in five by 3 points and loses the fifth by 40:
    a is best on points, and the screen says why b's head to head differs."""
    rng = np.random.default_rng(4)
    deals = 2000
    a = rng.normal(300, 30, deals)
    b = np.where(rng.random(deals) < 0.8, a - 3, a + 40)
    c = a + 80 + rng.normal(0, 5, deals)
    analysis = analyze(
        np.column_stack([a, b, c]), np.arange(deals), ["a", "b", "c"], ["x"] * 3, {}, 13
    )
    assert analysis.summary.iloc[0]["player"] == "a"
    text = analysis.format()
    assert "why a is best although b finished ahead of it in 79.4 %" in text
    assert "why a is best although c" not in text
