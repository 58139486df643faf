"""Counter-seeded randomness: splitmix64 and SipHash keys feeding xoshiro256** streams.

Every random number of a match derives from (seed, deal) alone, where the deal is the
match index unless duplicate deals replay one deal in several matches (docs/rules.md,
"Randomness"; mexsim/tournament/schedule.py), so results never depend on scheduling. The numba
kernels and the pure-Python ``Xoshiro`` used by the reference engine produce the
same numbers; tests compare them.

A strategy is handed its own stream's state (it draws from it), and xoshiro256** and
splitmix64 can both be run backwards: from a state derived by splitmix64 alone, a
strategy recovered the seed's mix, then every shuffle of the match. So the
strategies' stream keys are SipHash-2-4 of (deal, stream, seat) keyed with the seed, a
pseudo-random function: its output tells nothing of its key short of trying every
seed. (A small, known seed can be tried: a tournament between untrusted authors draws
its seed, ``seed = "random"``.) The shuffles' keys, never shown to a strategy, stay
splitmix64's.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mexsim.jit.options import compiled

MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1
GOLDEN_INT = 0x9E3779B97F4A7C15
MIX1_INT = 0xBF58476D1CE4E5B9
MIX2_INT = 0x94D049BB133111EB

STREAM_SHUFFLE = 0  # key(seed, deal, STREAM_SHUFFLE, round)
STREAM_STRATEGY = 1  # key(seed, deal, STREAM_STRATEGY, seat)
STREAM_SCHEDULE = 2  # key(seed, 0, STREAM_SCHEDULE, 0): the order of a pool's tables
STREAM_REVIEW = 3  # key(seed, match, STREAM_REVIEW, k): the worlds `mexsim analyze` deals
# for a trace's decision k

# SipHash-2-4's initial words, and the second half of its key ("mexsim-1" as
# little-endian bytes: the first half is the seed)
SIP_V0, SIP_V1 = 0x736F6D6570736575, 0x646F72616E646F6D
SIP_V2, SIP_V3 = 0x6C7967656E657261, 0x7465646279746573
SIP_K1_INT = int.from_bytes(b"mexsim-1", "little")
SIP_LENGTH_INT = 24 << 56  # the last block of a message of three words: its length

# numba: `uint64 op int64` promotes to float64, so every constant is a uint64.
GOLDEN = np.uint64(GOLDEN_INT)
MIX1 = np.uint64(MIX1_INT)
MIX2 = np.uint64(MIX2_INT)
U1 = np.uint64(1)
LOW32 = np.uint64(MASK32)
TWO32 = np.uint64(1 << 32)


# ---------------------------------------------------------------- pure Python twin
def mix_py(x: int) -> int:
    """splitmix64's output for state x."""
    z = (x + GOLDEN_INT) & MASK64
    z = ((z ^ (z >> 30)) * MIX1_INT) & MASK64
    z = ((z ^ (z >> 27)) * MIX2_INT) & MASK64
    return z ^ (z >> 31)


def key_py(seed: int, a: int, b: int, c: int) -> int:
    return mix_py(mix_py(mix_py(mix_py(seed & MASK64) ^ a) ^ b) ^ c)


def _sip_round_py(v0: int, v1: int, v2: int, v3: int) -> tuple[int, int, int, int]:
    v0 = (v0 + v1) & MASK64
    v1 = _rotl_py(v1, 13) ^ v0
    v0 = _rotl_py(v0, 32)
    v2 = (v2 + v3) & MASK64
    v3 = _rotl_py(v3, 16) ^ v2
    v0 = (v0 + v3) & MASK64
    v3 = _rotl_py(v3, 21) ^ v0
    v2 = (v2 + v1) & MASK64
    v1 = _rotl_py(v1, 17) ^ v2
    v2 = _rotl_py(v2, 32)
    return v0, v1, v2, v3


def siphash24_py(k0: int, k1: int, data: bytes) -> int:
    """SipHash-2-4 of ``data`` under the key (k0, k1), the 64-bit words of its 16 bytes."""
    v0, v1, v2, v3 = k0 ^ SIP_V0, k1 ^ SIP_V1, k0 ^ SIP_V2, k1 ^ SIP_V3
    whole = len(data) - len(data) % 8
    blocks = [int.from_bytes(data[i : i + 8], "little") for i in range(0, whole, 8)]
    blocks.append(((len(data) & 255) << 56) | int.from_bytes(data[whole:], "little"))
    for m in blocks:
        v3 ^= m
        v0, v1, v2, v3 = _sip_round_py(*_sip_round_py(v0, v1, v2, v3))
        v0 ^= m
    v2 ^= 0xFF
    for _ in range(4):
        v0, v1, v2, v3 = _sip_round_py(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


def strategy_key_py(seed: int, deal: int, seat: int) -> int:
    """The key of the seat's strategy stream: SipHash-2-4 of (deal, STREAM_STRATEGY,
    seat) as little-endian words, keyed with (seed, "mexsim-1")."""
    words = (deal & MASK64, STREAM_STRATEGY, seat & MASK64)
    data = b"".join(w.to_bytes(8, "little") for w in words)
    return siphash24_py(seed & MASK64, SIP_K1_INT, data)


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
        """Uniform in 0..n-1 (1 <= n < 2**32): Lemire's multiply-and-reject on 32 bits."""
        m = (self.next() >> 32) * n
        if (m & MASK32) < n:
            threshold = (MASK32 + 1 - n) % n
            while (m & MASK32) < threshold:
                m = (self.next() >> 32) * n
        return m >> 32

    def shuffle(self, items: list) -> None:
        """Fisher–Yates from the last position down."""
        for i in range(len(items) - 1, 0, -1):
            j = self.bounded(i + 1)
            items[i], items[j] = items[j], items[i]


def _rotl_py(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & MASK64


# ---------------------------------------------------------------- numba kernels
@compiled(cache=True)
def mix(x):
    z = x + GOLDEN
    z = (z ^ (z >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    return z ^ (z >> np.uint64(31))


@compiled(cache=True)
def stream_key(seed, a, b, c):
    return mix(mix(mix(mix(np.uint64(seed)) ^ np.uint64(a)) ^ np.uint64(b)) ^ np.uint64(c))


@njit(inline="always")
def _sip_round(v0, v1, v2, v3):
    v0 += v1
    v1 = _rotl(v1, 13) ^ v0
    v0 = _rotl(v0, 32)
    v2 += v3
    v3 = _rotl(v3, 16) ^ v2
    v0 += v3
    v3 = _rotl(v3, 21) ^ v0
    v2 += v1
    v1 = _rotl(v1, 17) ^ v2
    v2 = _rotl(v2, 32)
    return v0, v1, v2, v3


@compiled(cache=True)
def strategy_key(seed, deal, seat):
    """strategy_key_py compiled: SipHash-2-4 of the three words (deal, STREAM_STRATEGY,
    seat), keyed with (seed, "mexsim-1")."""
    k0 = np.uint64(seed)
    k1 = np.uint64(SIP_K1_INT)
    v0 = k0 ^ np.uint64(SIP_V0)
    v1 = k1 ^ np.uint64(SIP_V1)
    v2 = k0 ^ np.uint64(SIP_V2)
    v3 = k1 ^ np.uint64(SIP_V3)
    for k in range(4):
        if k == 0:
            m = np.uint64(deal)
        elif k == 1:
            m = np.uint64(STREAM_STRATEGY)
        elif k == 2:
            m = np.uint64(seat)
        else:
            m = np.uint64(SIP_LENGTH_INT)
        v3 ^= m
        v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
        v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
        v0 ^= m
    v2 ^= np.uint64(0xFF)
    for _ in range(4):
        v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


@compiled(cache=True)
def seed_words(key):
    """The four xoshiro256** words of Xoshiro(key)."""
    key = np.uint64(key)  # an int64 key would turn the sums below into float64
    return (
        mix(key),
        mix(key + GOLDEN),
        mix(key + np.uint64(2) * GOLDEN),
        mix(key + np.uint64(3) * GOLDEN),
    )


# The generator works on four scalar words and returns them updated: helpers that take
# arrays pay atomic reference counting on every call in the hot loop.
@compiled(cache=True)
def xoshiro_next(s0, s1, s2, s3):
    """One xoshiro256** step: (output, s0, s1, s2, s3)."""
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, s0, s1, s2, s3


@compiled(cache=True)
def xoshiro_bounded(n, s0, s1, s2, s3):
    """Uniform in 0..n-1, identical to Xoshiro.bounded: (value, s0, s1, s2, s3)."""
    un = np.uint64(n)
    x, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
    m = (x >> np.uint64(32)) * un
    if (m & LOW32) < un:
        threshold = (TWO32 - un) % un  # the rare retry is the only division
        while (m & LOW32) < threshold:
            x, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
            m = (x >> np.uint64(32)) * un
    return np.int64(m >> np.uint64(32)), s0, s1, s2, s3


@compiled(cache=True)
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))
