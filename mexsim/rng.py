"""Counter-seeded randomness: splitmix64 keys feeding xoshiro256** streams.

Every random number of a match derives from (seed, match index) alone
(docs/rules.md, "Randomness"), so results never depend on scheduling. The numba
kernels and the pure-Python ``Xoshiro`` used by the reference engine produce the
same numbers; tests compare them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

MASK64 = (1 << 64) - 1
GOLDEN_INT = 0x9E3779B97F4A7C15
MIX1_INT = 0xBF58476D1CE4E5B9
MIX2_INT = 0x94D049BB133111EB

STREAM_SHUFFLE = 0  # key(seed, match, STREAM_SHUFFLE, round)
STREAM_STRATEGY = 1  # key(seed, match, STREAM_STRATEGY, seat)

# numba: `uint64 op int64` promotes to float64, so every constant is a uint64.
GOLDEN = np.uint64(GOLDEN_INT)
MIX1 = np.uint64(MIX1_INT)
MIX2 = np.uint64(MIX2_INT)
U0 = np.uint64(0)
U1 = np.uint64(1)


# ---------------------------------------------------------------- pure Python twin
def mix_py(x: int) -> int:
    """splitmix64's output for state x."""
    z = (x + GOLDEN_INT) & MASK64
    z = ((z ^ (z >> 30)) * MIX1_INT) & MASK64
    z = ((z ^ (z >> 27)) * MIX2_INT) & MASK64
    return z ^ (z >> 31)


def key_py(seed: int, a: int, b: int, c: int) -> int:
    return mix_py(mix_py(mix_py(mix_py(seed & MASK64) ^ a) ^ b) ^ c)


class Xoshiro:
    """xoshiro256** in plain Python, seeded by splitmix64 from a key."""

    def __init__(self, key: int) -> None:
        self.s = [mix_py((key + i * GOLDEN_INT) & MASK64) for i in range(4)]

    def next(self) -> int:
        s = self.s
        r = _rotl_py((s[1] * 5) & MASK64, 7) * 9 & MASK64
        t = (s[1] << 17) & MASK64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl_py(s[3], 45)
        return r

    def bounded(self, n: int) -> int:
        """Uniform in 0..n-1 by rejection (no modulo bias)."""
        threshold = (MASK64 + 1 - n) % n
        while True:
            r = self.next()
            if r >= threshold:
                return r % n

    def shuffle(self, items: list) -> None:
        """Fisher–Yates from the last position down."""
        for i in range(len(items) - 1, 0, -1):
            j = self.bounded(i + 1)
            items[i], items[j] = items[j], items[i]


def _rotl_py(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & MASK64


# ---------------------------------------------------------------- numba kernels
@njit(cache=True, inline="always")
def mix(x):
    z = x + GOLDEN
    z = (z ^ (z >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def stream_key(seed, a, b, c):
    return mix(mix(mix(mix(np.uint64(seed)) ^ np.uint64(a)) ^ np.uint64(b)) ^ np.uint64(c))


@njit(cache=True, inline="always")
def seed_state(state, row, key):
    """Fill state[row, 0:4] from key, as Xoshiro(key) does."""
    for i in range(4):
        state[row, i] = mix(key + np.uint64(i) * GOLDEN)


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True, inline="always")
def next_u64(state, row):
    s0 = state[row, 0]
    s1 = state[row, 1]
    s2 = state[row, 2]
    s3 = state[row, 3]
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    state[row, 0] = s0
    state[row, 1] = s1
    state[row, 2] = s2
    state[row, 3] = s3
    return result


@njit(cache=True, inline="always")
def bounded(state, row, n):
    """Uniform in 0..n-1 by rejection, identical to Xoshiro.bounded."""
    un = np.uint64(n)
    threshold = (U0 - un) % un
    while True:
        r = next_u64(state, row)
        if r >= threshold:
            return np.int64(r % un)
