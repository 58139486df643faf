"""The tile set of R1, numbered heaviest first, and the bitmask tables the core uses.

Tile numbering (docs/rules.md): pip value descending, ties by the higher half
descending, so tile 0 is N|N and "heaviest legal tile" is "lowest set bit".
Hands are bitmasks of ``WORDS`` = 3 uint64 words, enough for the 136 tiles of a
double-15 set (the core lists moves on two of them while the mover's hand holds no
tile beyond 127, always so up to double-14, and on all three otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

WORDS = 3


@dataclass(frozen=True)
class TileSet:
    """A double-N set: tile halves, values and the masks of tiles carrying each number."""

    max_pip: int
    lo: np.ndarray  # int64[T]: smaller half
    hi: np.ndarray  # int64[T]: larger half
    pips: np.ndarray  # int64[T]: face value a + b
    number_mask: np.ndarray  # uint64[N+1, WORDS]: tiles with number n on either half
    index: np.ndarray  # int64[N+1, N+1]: tile number of (a, b), symmetric

    @property
    def count(self) -> int:
        return len(self.lo)

    def tile(self, t: int) -> tuple[int, int]:
        return int(self.lo[t]), int(self.hi[t])

    def double(self, n: int) -> int:
        return int(self.index[n, n])


def ordered_tiles(max_pip: int) -> list[tuple[int, int]]:
    """Every (a, b) with a <= b, heaviest first (see module docstring)."""
    pairs = [(a, b) for b in range(max_pip + 1) for a in range(b + 1)]
    return sorted(pairs, key=lambda ab: (-(ab[0] + ab[1]), -ab[1]))


@cache
def tile_set(max_pip: int) -> TileSet:
    pairs = ordered_tiles(max_pip)
    lo = np.array([a for a, _ in pairs], dtype=np.int64)
    hi = np.array([b for _, b in pairs], dtype=np.int64)
    number_mask = np.zeros((max_pip + 1, WORDS), dtype=np.uint64)
    index = np.zeros((max_pip + 1, max_pip + 1), dtype=np.int64)
    for t, (a, b) in enumerate(pairs):
        index[a, b] = index[b, a] = t
        for n in {a, b}:
            number_mask[n, t >> 6] |= np.uint64(1) << np.uint64(t & 63)
    for arr in (lo, hi, number_mask, index):
        arr.setflags(write=False)
    return TileSet(max_pip, lo, hi, lo + hi, number_mask, index)
