"""A multiplayer rating of every player over all matches: openskill's Plackett–Luce.

Each match is one rating update in match order, with the players at the table ranked by
their totals (R4: lower is better; equal totals share a rank). A rating is a belief
about skill: ``mu`` its mean and ``sigma`` its uncertainty (both start at openskill's
defaults, 25 and 25/3; openskill's small per-match ``tau`` keeps sigma from collapsing
to zero, so late matches still move the rating). ``ordinal = mu - 3·sigma`` is the
conservative score leaderboards sort by. The updates run in match order, so the ratings
depend on (config, seed) only.

openskill is imported on first use: it is needed only once matches are played.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

RATING_COLUMNS = ["player", "rating", "rating_sigma", "rating_ordinal"]


def match_ranks(totals: np.ndarray) -> np.ndarray:
    """rank[match, player]: 1 + the number of players at the table with a lower total;
    0 where the player sat the match out (NaN total)."""
    present = ~np.isnan(totals)
    filled = np.where(present, totals, np.inf)
    lower = (filled[:, None, :] < filled[:, :, None]).sum(axis=2)
    return np.where(present, 1 + lower, 0)


def rate(totals: np.ndarray, players: Sequence[str], chunk: int = 100_000) -> pd.DataFrame:
    """Plackett–Luce ratings from a (match × player) matrix of totals (NaN: absent),
    one row per player in ``players`` order (columns ``RATING_COLUMNS``)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating(name=str(p)) for p in players]
    for start in range(0, len(totals), chunk):  # ranks in slices: bounded memory
        ranks = match_ranks(np.asarray(totals[start:start + chunk], dtype=float))
        seats_of = [np.flatnonzero(row).tolist() for row in ranks]
        for row, seats in zip(ranks.tolist(), seats_of, strict=True):
            if len(seats) < 2:  # nobody to be ranked against
                continue
            updated = model.rate([[ratings[i]] for i in seats], ranks=[row[i] for i in seats])
            for i, team in zip(seats, updated, strict=True):
                ratings[i] = team[0]
    mu = np.array([r.mu for r in ratings])
    sigma = np.array([r.sigma for r in ratings])
    return pd.DataFrame({"player": list(players), "rating": mu, "rating_sigma": sigma,
                         "rating_ordinal": mu - 3 * sigma})
