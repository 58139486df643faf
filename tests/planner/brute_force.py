"""The best chain by trying every ordered subset: the tests' check on tiny hands."""

from __future__ import annotations

from itertools import permutations


def chain_value(chain: list[tuple[int, int]], pip_weight: float) -> float:
    return sum(1.0 + pip_weight * (a + b) for a, b in chain)


def longest_chain_brute_force(start: int, tiles: list[tuple[int, int]], pip_weight: float) -> float:
    """The best chain value by trying every ordered subset (tests only: tiny hands)."""
    best = 0.0
    for r in range(1, len(tiles) + 1):
        for order in permutations(range(len(tiles)), r):
            end, ok = start, True
            for i in order:
                a, b = tiles[i]
                if a == end:
                    end = b
                elif b == end:
                    end = a
                else:
                    ok = False
                    break
            if ok:
                best = max(best, chain_value([tiles[i] for i in order], pip_weight))
    return best
