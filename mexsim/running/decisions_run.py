"""What a run that records decisions (``[run] decisions``, ``--decisions``) cannot be
combined with, refused in one line before anything is played."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mexsim.errors import ConfigError
from mexsim.store.location import is_url
from mexsim.tournament.config import Config


def refuse_with_decisions(config: Config, out: Path | str, until: Any, cluster: Any) -> None:
    where = f"{config.path} [run] decisions"
    if is_url(out):
        raise ConfigError(
            f"{where}: decisions.parquet is written into a results folder on this machine, "
            f"not to a URL ({out}): give --out a folder"
        )
    if cluster:
        raise ConfigError(
            f"{where}: decisions are recorded by this machine's threads: drop --cluster "
            "(and [run] cluster)"
        )
    if until is not None:
        raise ConfigError(f"{where}: decisions record every match: drop --until")
    if config.luck:
        raise ConfigError(
            f"{where}: cannot be combined with [analysis] luck = true: record the "
            "decisions in a run of their own"
        )
