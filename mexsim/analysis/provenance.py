"""Checks that a results directory's files are mexsim results of one and the same run.

``mexsim run`` stores its run id (mexsim/tournament/identity.py) in the key-value
metadata of both Parquet files and in run.json. ``check_results`` refuses a directory
whose files name different runs (a ``matches.parquet`` copied from another run), or a
Parquet file without the columns its name promises (the two files swapped, another
program's file). Results written before run ids existed carry none and are checked by
their columns only.
"""

from __future__ import annotations

import json
from pathlib import Path

from mexsim.errors import ConfigError
from mexsim.tournament.identity import RUN_ID_KEY

REQUIRED = {
    "matches": ("match", "seat", "player", "strategy", "total", "rank", "win"),
    "rounds": ("match", "round", "engine", "seat", "player", "strategy", "penalty",
               "tiles_left", "went_out", "blocked", "tiles_played", "draws"),
}


def check_results(directory: Path) -> None:
    """Raise ConfigError (one line) unless ``directory`` holds the results of one run."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    ids: dict[str, str | None] = {}
    for kind, columns in REQUIRED.items():
        path = directory / f"{kind}.parquet"
        if not path.exists():
            raise ConfigError(f"{directory}: not a results directory (no {path.name})")
        try:
            schema = pq.read_schema(path)
        except (OSError, pa.ArrowException) as exc:
            raise ConfigError(f"{path}: cannot be read as Parquet ({_first_line(exc)})"
                              ) from None
        missing = [c for c in columns if c not in schema.names]
        if missing:
            raise ConfigError(
                f"{path}: not mexsim's {kind} table (missing columns: {', '.join(missing)})")
        raw = (schema.metadata or {}).get(RUN_ID_KEY)
        ids[path.name] = raw.decode(errors="replace") if raw else None
    try:
        recorded = json.loads((directory / "run.json").read_text()).get("run_id")
    except (OSError, ValueError, AttributeError):
        recorded = None
    ids["run.json"] = recorded if isinstance(recorded, str) else None
    if any(ids.values()) and len(set(ids.values())) > 1:
        shown = ", ".join(f"{name} {rid[:12] if rid else 'none'}" for name, rid in ids.items())
        raise ConfigError(f"{directory}: files of different runs (run ids: {shown}); "
                          "keep each run's files together in its own folder")


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
