"""One block of a ``--out URL`` run, played and written to the location by whoever plays
it (a Dask worker, or a thread of the command): its parts, and the totals it returns."""

from __future__ import annotations

import numpy as np

from mexsim.run.preparation import played_tables
from mexsim.store.location import open_location, write_part
from mexsim.store.parts import block_statistics, with_run_id
from mexsim.tournament.config import Config
from mexsim.tournament.luck import LuckModel


def play_and_write(
    url: str,
    run_id: str,
    config: Config,
    players: list,
    index: int,
    first: int,
    n: int,
    model: LuckModel | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Play block ``index`` (matches first … first+n-1), with its luck scored by
    ``model`` when given, write its two parts to ``url`` and return what the client's
    statistics fold: its totals[match, player], deals and luck-adjusted totals (None
    without ``model``)."""
    names = [p.name for p in config.players]
    rounds, matches = played_tables(config, players, names, first, n, model)
    fs, root = open_location(url)
    write_part(fs, root, "rounds", index, with_run_id(rounds, run_id))
    write_part(fs, root, "matches", index, with_run_id(matches, run_id))
    return block_statistics(matches, names, len(config.players))
