"""The documented feature vector, against a plain reading of the view entry by entry."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mexsim.env.features import feature_count, feature_names, features
from mexsim.game import view as V
from mexsim.tournament.table import Game

ROOT = Path(__file__).resolve().parents[2]


def plain(v: np.ndarray, rules) -> list[float]:
    P, T, N = rules.players, rules.tiles, rules.max_pip
    me = int(v[V.SEAT])
    seats = [(me + k) % P for k in range(P)]
    trains = [*seats, P]

    def bit(base: int, t: int) -> float:
        return float((int(np.uint64(v[base + t // 64])) >> (t % 64)) & 1)

    open_trains = {int(v[V.OPEN_DOUBLES + k]) for k in range(int(v[V.N_OPEN]))}
    deciding = int(v[V.N_MOVES]) > 0
    out = [bit(V.HAND, t) for t in range(T)] + [bit(V.TABLE_TILES, t) for t in range(T)]
    out += [v[V.TRAIN_END + t] / N for t in trains]
    out += [v[V.TRAIN_LEN + t] / T for t in trains]
    out += [float(t < P and v[V.TRAIN_MARKED + t] != 0) for t in trains]
    out += [float(t in open_trains) for t in trains]
    out += [v[V.HAND_SIZE + s] / rules.hand_size for s in seats]
    out += [v[V.SEAT_DRAWS + s] / T for s in seats]
    out += [v[V.SEAT_PASSES + s] / T for s in seats]
    out += [v[V.SCORE + s] / 100 for s in seats]
    out += [v[V.BONEYARD] / T, v[V.ROUND] / (N + 1), float(deciding)]
    out += [float(deciding and v[V.FIRST_TURN] != 0), float(deciding and v[V.DUTY] != 0)]
    out += [v[V.LAID_THIS_TURN] / T if deciding else 0.0]
    return out


@pytest.mark.parametrize("name", ["default.toml", "big-table.toml", "house-rules.toml"])
def test_the_features_read_the_view_as_documented(name: str):
    game = Game.from_config(ROOT / "configs" / name, 0)
    rules = game.rules
    assert len(feature_names(rules)) == feature_count(rules)
    steps = 0
    while not game.is_over() and steps < 400:
        for s in range(rules.players):
            v = game.view(s)
            got = features(v, rules)
            assert got.dtype == np.float32 and got.shape == (feature_count(rules),)
            assert np.array_equal(got, np.array(plain(v, rules), dtype=np.float32))
        game.play(game.suggest())
        steps += 1
