"""The Gymnasium single-seat environment: Gymnasium's check_env, and one seat learning
among the configured strategies of `mexsim run`'s match."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env

from mexsim.env import SeatEnv
from mexsim.env.actions import legal_actions
from mexsim.tournament.table import Game

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "configs" / "default.toml"


@pytest.mark.parametrize("seat", [0, 1])
def test_gymnasiums_check_env_passes_without_a_warning(seat: int):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(
            SeatEnv(ROOT / "configs" / "head-to-head.toml", seat=seat), skip_render_check=True
        )


def test_the_seat_playing_its_own_strategy_plays_the_match_mexsim_run_plays():
    env = SeatEnv(DEFAULT, seat=2, match=1)
    obs, info = env.reset()
    assert info["match"] == 1 and env.game.to_move == 2
    total = 0.0
    while True:
        game = env.game
        assert sorted(legal_actions(game)) == list(np.flatnonzero(obs["action_mask"]))
        obs, reward, terminated, truncated, info = env.step(legal_actions(game)[game.suggest()])
        total += reward
        assert not truncated and not info["illegal_action"]
        if terminated:
            break
    ref = Game.from_config(DEFAULT, 1)
    while not ref.is_over():
        ref.play(ref.suggest())
    assert -total == ref.totals()[2]
    assert env.game.totals() == ref.totals()


def test_an_illegal_action_plays_the_first_legal_move_or_raises():
    env = SeatEnv(DEFAULT, seat=0)
    obs, _ = env.reset(seed=4)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    first = legal_actions(env.game)[0]
    twin = SeatEnv(DEFAULT, seat=0)
    twin.reset(seed=4)
    a = env.step(illegal)
    b = twin.step(first)
    assert a[4]["illegal_action"] and not b[4]["illegal_action"]
    assert np.array_equal(a[0]["view"], b[0]["view"]) and a[1] == b[1]
    strict = SeatEnv(DEFAULT, seat=0, illegal="raise")
    strict.reset(seed=4)
    with pytest.raises(ValueError, match="not one of seat 0's legal moves"):
        strict.step(illegal)
    with pytest.raises(ValueError, match="seat 9 is not at the table"):
        SeatEnv(DEFAULT, seat=9)
