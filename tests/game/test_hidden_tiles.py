"""No strategy can compute a hidden tile from its own random stream (R17, issue 32).

A strategy is handed its stream's xoshiro256** state. When every key was a chain of
splitmix64 mixes, each of them invertible, a strategy ran the chain backwards from
that state to the seed's mix, forward again to the round's shuffle key, and replayed
the shuffle: every other hand and the boneyard's order. The attack below is that
strategy's arithmetic; it works against keys made the old way and fails against the
streams the engines hand out now (SipHash-2-4 keyed with the seed)."""

from __future__ import annotations

import numpy as np

from mexsim.game import view as V
from mexsim.game.reference import Round, deal, play_match
from mexsim.game.rng import (
    GOLDEN_INT,
    MASK64,
    MIX1_INT,
    MIX2_INT,
    STREAM_SHUFFLE,
    STREAM_STRATEGY,
    Xoshiro,
    key_py,
    mix_py,
    siphash24_py,
    strategy_key,
    strategy_key_py,
)
from mexsim.game.rules import resolve_rules
from mexsim.game.tiles import tile_set
from mexsim.strategy.policy import resolve_policies


def _unshift(y: int, k: int) -> int:
    x = y
    for _ in range(64 // k + 1):
        x = y ^ (x >> k)
    return x


def unmix(z: int) -> int:
    """splitmix64's output run backwards: unmix(mix_py(x)) == x."""
    z = _unshift(z, 31)
    z = (z * pow(MIX2_INT, -1, 1 << 64)) & MASK64
    z = _unshift(z, 27)
    z = (z * pow(MIX1_INT, -1, 1 << 64)) & MASK64
    z = _unshift(z, 30)
    return (z - GOLDEN_INT) & MASK64


def attack(state: list[int], match: int, seat: int, rules, round_no: int) -> list[list[int]]:
    """The hands of a round, as a strategy that holds its stream's untouched state and
    knows its seat and match (both in its view) would compute them, were the stream's
    key splitmix64's key(seed, match, STREAM_STRATEGY, seat)."""
    key = unmix(state[0])  # Xoshiro(key).s[0] == mix(key)
    seed_mix = unmix(unmix(unmix(key) ^ seat) ^ STREAM_STRATEGY) ^ match
    shuffle_key = mix_py(mix_py(mix_py(seed_mix ^ match) ^ STREAM_SHUFFLE) ^ round_no)
    ts = tile_set(rules.max_pip)
    tiles = list(range(ts.count))
    Xoshiro(shuffle_key).shuffle(tiles)
    H = rules.hand_size
    return [sorted(tiles[p * H : (p + 1) * H]) for p in range(rules.players)]


def test_siphash_is_siphash():
    """The reference vectors of SipHash-2-4's paper (key 00..0f; messages 00.. of 0
    and 15 bytes), and the compiled key equal to the Python one."""
    k0 = int.from_bytes(bytes(range(8)), "little")
    k1 = int.from_bytes(bytes(range(8, 16)), "little")
    assert siphash24_py(k0, k1, b"") == 0x726FDB47DD0E0E31
    assert siphash24_py(k0, k1, bytes(range(15))) == 0xA129CA6149BE45E5
    for seed, match, seat in ((0, 0, 0), (2026, 17, 3), (2**64 - 1, 2**62, 9)):
        assert int(strategy_key(np.uint64(seed), match, seat)) == strategy_key_py(seed, match, seat)


def test_the_attack_reads_every_hand_from_splitmix_keys():
    """The attack is sound: against the old keys it finds the true hands."""
    rules = resolve_rules({}, 4)
    for seed, match, seat in ((2026, 0, 1), (7, 12, 3)):
        old = Xoshiro(key_py(seed, match, STREAM_STRATEGY, seat))
        for r in (0, 5):
            hands, _ = deal(rules, seed, match, r)
            assert attack(old.s, match, seat, rules, r) == [sorted(h) for h in hands]


def test_no_strategy_reads_a_hidden_hand_from_its_stream():
    """At the first decision of every seat in a match, the state in its view, attacked:
    no other hand comes out (in 13 rounds of 3 matches)."""
    rules = resolve_rules({}, 4)
    seed = 2026
    tried = 0
    found = 0
    fill = Round.fill_view

    def filled(self: Round, seat: int, *args, **kwargs) -> None:
        nonlocal tried, found
        fill(self, seat, *args, **kwargs)
        state = [int(w) & MASK64 for w in self.view[V.RNG : V.RNG + 4]]
        guess = attack(state, int(self.view[V.MATCH]), seat, rules, self.r)
        true_hands, _ = deal(rules, seed, int(self.view[V.MATCH]), self.r)
        tried += 1
        found += sum(guess[s] == sorted(true_hands[s]) for s in range(rules.players) if s != seat)

    Round.fill_view = filled
    try:
        for match in range(3):
            play_match(rules, seed, match, resolve_policies(["greedy"] * 4))  # greedy never draws
    finally:
        Round.fill_view = fill
    assert tried > 100
    assert found == 0
