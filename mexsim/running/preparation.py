"""What a run prepares before its first block, and how a block becomes its tables: the
luck model, the engine loaded before any thread, the (rounds, matches) tables of a block
played here or on a cluster. Shared by the folder run and the URL run."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from mexsim.jit.compile_notice import compiling
from mexsim.running.block_play import play_block, play_luck_block
from mexsim.running.dask.transfer import received
from mexsim.store.result_tables import block_tables
from mexsim.strategy.policy import Policy
from mexsim.tournament.config import Config, config_schedule
from mexsim.tournament.decision_rows import block_decisions
from mexsim.tournament.luck import LuckModel, fit_luck_model


def luck_model(config: Config, players: list[Policy]) -> LuckModel | None:
    """The run's value model when ``[analysis] luck`` is on (else None): the pilot,
    played once before any thread or worker, then fixed for the run (docs/luck.md)."""
    if not config.luck:
        return None
    with compiling("the luck scorer"):
        return fit_luck_model(config, players)


def load_engine(
    config: Config, players: list[Policy], cluster: str | None, model: LuckModel | None
) -> None:
    """Load (or compile) the kernels here, before any thread exists, unless every block
    is played on a cluster (whose workers load them: worker_preload.py) and no luck
    model was fitted here (which loads them). The strategies are loaded and vetted
    here in any case (``player_policies``), so a broken one is refused before play."""
    if cluster and model is None:
        return
    with compiling("the engine"):
        for variant in range(len(config.variant_names)):  # each variant's rules
            play_block(config, players, variant * config.matches, 0)
            if config.decisions:  # the walk too: one match, walked (compiled on first use)
                _, tables = block_decisions(config, players, variant * config.matches, 1)
                for _ in tables:
                    pass


Played = tuple[Any, Any]  # a block's res[k, round, seat, field] and its (deal, draw) luck


def play_raw(
    config: Config,
    players: list[Policy],
    first: int,
    n: int,
    model: LuckModel | None = None,
    remote: Any = None,
) -> Played:
    """Matches first … first+n-1 played here, or the result of ``remote`` (a cluster's
    future), with their luck scored by ``model`` when given (None without)."""
    luck = None
    if model is not None:
        res, *luck = (
            play_luck_block(config, players, first, n, model) if remote is None else remote.result()
        )
    else:
        res = play_block(config, players, first, n) if remote is None else remote.result()
    if remote is not None:
        res = received(res)
    return res, None if luck is None else (luck[0], luck[1])


def tables_of(
    config: Config, names: list[str], first: int, n: int, played: Played
) -> tuple[pa.Table, pa.Table]:
    """The (rounds, matches) tables of a played block (``play_raw``)."""
    res, luck = played
    schedule = config_schedule(config)
    variant, first = config.played_at(first)
    return block_tables(
        res,
        first,
        config.variant_rules(variant).max_pip,
        schedule.seating(first, n),
        names,
        [p.strategy for p in config.players],
        schedule.deals(first, n),
        luck,
        (variant, config.variant_names) if config.variants else None,
    )


def played_tables(
    config: Config,
    players: list[Policy],
    names: list[str],
    first: int,
    n: int,
    model: LuckModel | None = None,
    remote: Any = None,
) -> tuple[pa.Table, pa.Table]:
    """The (rounds, matches) tables of matches first … first+n-1: played here, or the
    result of ``remote`` (a cluster's future), with their luck scored by ``model`` when
    given. Shared by the runner's threads and a URL run's Dask workers, so that both
    write the same rows."""
    return tables_of(config, names, first, n, play_raw(config, players, first, n, model, remote))
