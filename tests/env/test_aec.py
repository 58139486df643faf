"""The PettingZoo AEC environment: PettingZoo's own api_test and seed_test, and the
matches it deals are `mexsim run`'s."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, seed_test

from mexsim.env import aec_env
from mexsim.env.actions import legal_actions
from mexsim.tournament.table import Game

ROOT = Path(__file__).resolve().parents[2]
HEAD = ROOT / "configs" / "head-to-head.toml"
DEFAULT = ROOT / "configs" / "default.toml"
# what api_test says of every dict observation (its own classic games are on a list)
DICT_OBSERVATION = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
)


@pytest.mark.parametrize("path", [HEAD, DEFAULT], ids=["2 seats", "4 seats"])
def test_pettingzoos_api_test_passes(path: Path):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        api_test(aec_env(path), num_cycles=3000, verbose_progress=False)
    other = {str(w.message) for w in seen if not str(w.message).startswith(DICT_OBSERVATION)}
    assert not other


def test_pettingzoos_seed_test_passes():
    seed_test(lambda: aec_env(HEAD), num_cycles=400)


def agents_play_their_strategies(env) -> dict[str, float]:
    """Every agent plays its seat's configured strategy's choice; the rewards summed."""
    got = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        got[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        actions = legal_actions(env.game)
        assert sorted(actions) == list(np.flatnonzero(obs["action_mask"]))
        env.step(actions[env.game.suggest()])
    return got


def test_the_agents_playing_their_strategies_play_the_match_mexsim_run_plays():
    env = aec_env(DEFAULT, match=3)
    for match in (3, 4):
        env.reset()
        rewards = agents_play_their_strategies(env)
        ref = Game.from_config(DEFAULT, match)
        while not ref.is_over():
            ref.play(ref.suggest())
        assert [-rewards[f"seat_{s}"] for s in range(4)] == ref.totals()
        assert env.agents == []


def test_reset_deals_the_next_match_and_a_seed_starts_again():
    env = aec_env(DEFAULT, match=5)
    env.reset()
    assert env.game.match == 5
    env.reset()
    assert env.game.match == 6
    env.reset(seed=77)
    first = env.game.hand(0)
    assert env.game.match == 5 and env.game.seed == 77
    env.reset(seed=77)
    assert env.game.hand(0) == first
    env.reset(seed=2026)  # the config's seed again: the config's match 5
    assert env.game.hand(0) == Game.from_config(DEFAULT, 5).hand(0)


def test_an_illegal_action_is_refused_with_the_legal_ones_named():
    env = aec_env(HEAD)
    env.reset()
    obs = env.observe(env.agent_selection)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=r"not one of seat_\d's legal moves"):
        env.step(illegal)
    with pytest.raises(ValueError, match="give an action"):
        env.step(None)


def test_an_observation_shows_nothing_of_what_its_seat_cannot_see():
    """R17: the other hands and the boneyard dealt afresh, every seat's observation of
    the one to move is the same."""
    env = aec_env(DEFAULT)
    env.reset()
    for _ in range(30):
        env.step(legal_actions(env.game)[0])
    game = env.game
    seat = game.to_move
    before = env.observe(f"seat_{seat}")
    for k in range(5):
        env.game = game.redeal_hidden([k, 5, 6, 7])
        after = env.observe(f"seat_{seat}")
        assert np.array_equal(after["observation"], before["observation"])
        assert np.array_equal(after["action_mask"], before["action_mask"])
    env.game = game
