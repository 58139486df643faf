"""One block of a ``--out URL`` run played on a Dask worker and written to the location
there (mexsim/store/location_sink.py): its parts, and the totals it returns."""

from __future__ import annotations

from mexsim.running.preparation import played_tables
from mexsim.store.location_sink import Totals, write_location_block
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
) -> Totals:
    """Play block ``index`` (matches first … first+n-1), with its luck scored by
    ``model`` when given, write its two parts to ``url`` and return what the client's
    statistics fold: its totals[match, player], deals and luck-adjusted totals (None
    without ``model``)."""
    names = [p.name for p in config.players]
    rounds, matches = played_tables(config, players, names, first, n, model)
    return write_location_block(url, run_id, index, rounds, matches, names)
