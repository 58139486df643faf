"""What a run may ask of this machine, checked before anything is played.

Play itself needs little memory: a few blocks of results per worker. What grows with
the match count is the summary, which holds every match's totals (a match × player
matrix and its statistics' temporaries: measured at 4 + 51 bytes a cell for 1M
matches of 4 players, so ``BYTES_PER_CELL`` = 64 with room to spare), so
``matches`` is bounded by half this machine's memory. Threads beyond a few per core
only cost memory and make Ctrl-C slower, so ``--workers`` is bounded by the cores.
"""

from __future__ import annotations

import os

from mexsim.errors import ConfigError

BYTES_PER_CELL = 64
WORKERS_PER_CORE = 4
MEMORY_SHARE = 0.5


def machine_memory() -> int:
    """Physical memory in bytes (a generous guess where the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not Linux/macOS
        return 16 * 2**30


def max_workers() -> int:
    return WORKERS_PER_CORE * (os.cpu_count() or 1)


def max_matches(players: int) -> int:
    return int(machine_memory() * MEMORY_SHARE) // (BYTES_PER_CELL * players)


def check_resources(where: str, matches: int, players: int, workers: int) -> None:
    """Raise ConfigError if the run cannot fit this machine."""
    most = max_workers()
    if not 1 <= workers <= most:
        raise ConfigError(
            f"--workers {workers} is more threads than this machine can use (allowed: "
            f"1..{most}, {WORKERS_PER_CORE} per core on {os.cpu_count() or 1} cores)"
        )
    limit = max_matches(players)
    if matches > limit:
        need = matches * players * BYTES_PER_CELL / 2**30
        have = machine_memory() / 2**30
        raise ConfigError(
            f"{where}: 'matches' = {matches:,} needs about {need:,.0f} GiB for the summary "
            f"of {players} players, more than half of this machine's {have:,.0f} GiB "
            f"(allowed: at most {limit:,}; split it into runs with different seeds)"
        )
