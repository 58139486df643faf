"""Who sits where in each match, and which deal it plays: seat rotation, pools of
players larger than a table, and duplicate deals.

A schedule is a list of *tables* (ordered tuples of player indices, one per seat) and
a rule turning a match index k into a seating and a deal:

- table ``tables[(k // T) % C]`` (T seats, C tables), rotated by ``r = k % T`` places:
  seat s holds ``table[(s - r) mod T]``. With one table of all P players this is the
  plain rotation of docs/interface.md (player i at seat (i + k) mod P); without rotation
  seat s holds player s.
- the deal (the round shuffles and the strategies' random streams) is k itself, or,
  with duplicate deals, ``k // T``: the T rotations of one table replay one deal, so
  every player at it plays every hand from every seat.

A pool (more players than seats) uses every T-subset of the players once per cycle,
each in all T rotations: over a cycle of C·T matches every pair of players meets
C(N-2, T-2)·T times and every player sits C(N-1, T-1) times in every seat. The order of
the subsets and the order of the players within each come from the seed (a
Fisher–Yates shuffle on the seed's own stream), so a run's first matches are not all
player 0's. Balance is exact after whole cycles; a partial last cycle is balanced only
approximately (``Schedule.cycle`` says how long one is).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

#: most distinct tables (T-subsets of the pool) a schedule may list
MAX_TABLES = 200_000


def table_count(players: int, table_size: int) -> int:
    """C(N, T): the distinct tables of a pool of N players with T seats."""
    return math.comb(players, table_size)


@dataclass(frozen=True)
class Schedule:
    """The seating and deal of every match of a run (see the module docstring)."""

    players: int
    table_size: int
    rotate: bool
    duplicate: bool
    tables: np.ndarray  # int64 [C, T]: player index per seat, before rotation

    @classmethod
    def build(
        cls, players: int, table_size: int, seed: int, rotate: bool = True, duplicate: bool = False
    ) -> Schedule:
        if not 2 <= table_size <= players:
            raise ValueError(f"table_size {table_size} for {players} players")
        if (players > table_size or duplicate) and not rotate:
            raise ValueError("pools and duplicate deals need seat rotation")
        if players == table_size:
            tables = np.arange(players, dtype=np.int64)[None, :]
        else:
            if table_count(players, table_size) > MAX_TABLES:
                raise ValueError(f"C({players}, {table_size}) tables exceed {MAX_TABLES}")
            tables = _shuffled_tables(players, table_size, seed)
        tables.setflags(write=False)
        return cls(players, table_size, rotate, duplicate, tables)

    @property
    def pool(self) -> bool:
        """More players than seats: each match seats a subset."""
        return self.players > self.table_size

    @property
    def cycle(self) -> int:
        """Matches after which every pair has met, and every player has sat in every
        seat, equally often (1 without rotation)."""
        return len(self.tables) * self.table_size if self.rotate else 1

    def partial_cycle_warning(self, matches: int) -> str | None:
        """A line for a pool run that would stop mid-cycle (balance is exact only after
        whole cycles), naming the whole counts around it; None when it ends on one."""
        if not self.pool or matches % self.cycle == 0:
            return None
        below, above = matches // self.cycle * self.cycle, -(-matches // self.cycle) * self.cycle
        nearest = f"--matches {above:,}" if below == 0 else (f"--matches {below:,} or {above:,}")
        return (
            f"{matches:,} matches are {matches / self.cycle:,.2f} cycles of {self.cycle:,}: "
            "pairs meet and seats rotate equally often only after whole cycles; "
            f"use {nearest}"
        )

    def seating(self, first: int, n: int) -> np.ndarray:
        """int64 [n, T]: the player in each seat of matches first … first + n - 1."""
        T = self.table_size
        if not self.rotate:
            return np.broadcast_to(self.tables[0], (n, T)).copy()
        k = np.arange(first, first + n, dtype=np.int64)
        base = self.tables[(k // T) % len(self.tables)]
        columns = (np.arange(T)[None, :] - (k % T)[:, None]) % T
        return np.take_along_axis(base, columns, axis=1)

    def deals(self, first: int, n: int) -> np.ndarray:
        """int64 [n]: the deal each of matches first … first + n - 1 plays."""
        k = np.arange(first, first + n, dtype=np.int64)
        return k // self.table_size if self.duplicate else k

    def seats_of(self, match: int) -> tuple[int, ...]:
        """The player in each seat of one match."""
        return tuple(int(i) for i in self.seating(match, 1)[0])

    def deal_of(self, match: int) -> int:
        return int(self.deals(match, 1)[0])


def _shuffled_tables(players: int, table_size: int, seed: int) -> np.ndarray:
    """Every table_size-subset of the players, in a seeded order, each seated in a
    seeded order."""
    from mexsim.game.rng import STREAM_SCHEDULE, Xoshiro, key_py  # numba: not at import time

    rng = Xoshiro(key_py(seed, 0, STREAM_SCHEDULE, 0))
    tables = [list(c) for c in itertools.combinations(range(players), table_size)]
    rng.shuffle(tables)
    for table in tables:
        rng.shuffle(table)
    return np.array(tables, dtype=np.int64)
